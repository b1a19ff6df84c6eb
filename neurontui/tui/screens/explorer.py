"""The explorer screen: timeline, ruler, detail pane and search, driven entirely from the keyboard."""

from __future__ import annotations

import os

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Static

from neurontui.analysis.gaps import find_gaps
from neurontui.model.trace import Trace
from neurontui.tui import timefmt
from neurontui.tui.paint import PaintIndex
from neurontui.tui.state import ExplorerState
from neurontui.tui.viewport import PAN_FRACTION, ZOOM_FACTOR
from neurontui.tui.widgets.detail import DetailPane
from neurontui.tui.widgets.ruler import Ruler
from neurontui.tui.widgets.runlist import RunList
from neurontui.tui.widgets.search import SearchBar
from neurontui.tui.widgets.timeline import Timeline

EMPTY_STATE = "No trace open. Run `neurontui PATH` with a trace file or a capture directory, or capture one."


def waiting_for_runs(root: str) -> str:
    """The empty state while a directory is watched: where runs will come from and what to press."""
    return (f"No trace open yet. Watching {root} — new captures appear in the run list (r) as they arrive. "
            "Press c to capture, ? for help.")


def prepare(trace: Trace) -> PaintIndex:
    """Gaps and painting arrays for a trace: the slow part of opening, run in the loading worker."""
    return PaintIndex.build(trace, find_gaps(trace))


class ExplorerScreen(Screen):
    """Where people live: every binding has an id, shows in help and in the command palette."""

    BINDINGS = [
        Binding("w,plus", "zoom(1)", "Zoom in", id="explorer.zoom-in"),
        Binding("s,minus", "zoom(-1)", "Zoom out", id="explorer.zoom-out"),
        Binding("a,left", "pan(-1)", "Pan left", id="explorer.pan-left"),
        Binding("d,right", "pan(1)", "Pan right", id="explorer.pan-right"),
        Binding("up,k", "track(-1)", "Previous track", id="explorer.track-up"),
        Binding("down,j", "track(1)", "Next track", id="explorer.track-down"),
        Binding("tab", "lane(1)", "Next lane", id="explorer.lane-next"),
        Binding("shift+tab", "lane(-1)", "Previous lane", show=False, id="explorer.lane-previous"),
        Binding("space", "toggle_lane", "Collapse/expand lane", show=False, id="explorer.lane-toggle"),
        Binding("comma", "event(-1)", "Previous event", show=False, id="explorer.event-previous"),
        Binding("full_stop", "event(1)", "Next event", show=False, id="explorer.event-next"),
        Binding("n", "gap(1)", "Next gap", id="explorer.gap-next"),
        Binding("N", "gap(-1)", "Previous gap", show=False, id="explorer.gap-previous"),
        Binding("g", "largest_gap", "Largest gap", id="explorer.gap-largest"),
        Binding("f", "focus_selected", "Zoom to selection", show=False, id="explorer.focus"),
        Binding("0", "fit", "Fit all", id="explorer.fit"),
        # priority: runs as the key arrives, so the keys typed next reach the bar (see SearchBar)
        Binding("slash", "search", "Search", priority=True, id="explorer.search"),
        Binding("right_square_bracket", "follow(1)", "Follow link downstream", show=False, id="explorer.follow-down"),
        Binding("left_square_bracket", "follow(-1)", "Follow link upstream", show=False, id="explorer.follow-up"),
        Binding("m", "mark", "Mark range", show=False, id="explorer.mark"),
        Binding("p", "pin", "Pin track", show=False, id="explorer.pin"),
        Binding("J", "scroll_detail(1)", "Scroll details down", show=False, id="explorer.detail-down"),
        Binding("K", "scroll_detail(-1)", "Scroll details up", show=False, id="explorer.detail-up"),
        *(
            Binding(str(n), f"jump_chain({n})", f"Jump to linked event {n}", show=False, id=f"explorer.chain-{n}")
            for n in range(1, 10)
        ),
    ]

    DEFAULT_CSS = """
    ExplorerScreen #status { height: 1; background: $panel; color: $text; padding: 0 1; }
    ExplorerScreen #empty { height: 1fr; content-align: center middle; color: $text-muted; }
    ExplorerScreen Timeline { height: 1fr; }
    ExplorerScreen DetailPane { height: 30%; min-height: 5; max-height: 16; border-top: solid $primary-darken-2; padding: 0 1; }
    ExplorerScreen SearchBar { dock: bottom; margin-bottom: 1; }
    ExplorerScreen RunList { dock: left; width: 33%; min-width: 30; max-width: 42; display: none; border: round $primary-darken-2; }
    """

    def __init__(self, palette_kind: str = "rich") -> None:
        super().__init__(id="explorer")
        self.state: ExplorerState | None = None
        self.palette_kind = palette_kind
        self.message = ""  # the outcome of the last key, shown in the status line
        self.source_label = ""

    def compose(self) -> ComposeResult:
        yield RunList(id="runs")
        yield Static(id="status")
        yield Static(EMPTY_STATE, id="empty", markup=False)  # sentences quote paths
        yield Ruler(id="ruler")
        yield Timeline(self.palette_kind, id="timeline")
        yield DetailPane(id="detail")
        yield SearchBar(placeholder="search names: enter next, shift+enter/up previous, escape close", id="search")
        yield Footer()

    def on_mount(self) -> None:
        self._show_panels(False)
        self.query_one(Timeline).focus()

    # ---- public API ----------------------------------------------------------------------
    def open_trace(self, trace: Trace, index: PaintIndex | None = None) -> None:
        """Show a new trace fitted to the screen; `index` is the prepared painting data when a worker made it."""
        index = index if index is not None else prepare(trace)
        self.state = ExplorerState.open(index)
        self.source_label = display_name(trace.path)
        self.message = f"{len(trace.warnings)} reader warning(s)" if trace.warnings else ""
        self._show_panels(True)
        self._refresh()

    def reload_trace(self, trace: Trace, keep_view: bool = True, index: PaintIndex | None = None) -> None:
        """Swap in a newer version of the trace, keeping viewport, lanes, pins, cursor and selection."""
        if self.state is None:
            self.open_trace(trace, index)
            return
        index = index if index is not None else prepare(trace)
        self.state = self.state.carried_to(index, keep_view)
        self.source_label = display_name(trace.path)
        self._refresh()

    def jump_to(self, t0: int, t1: int) -> None:
        """Show the time range [t0, t1) (epoch ns), clamped to the trace."""
        if self.state is not None:
            self.state.jump_to(t0, t1)
            self._refresh()

    def select_event(self, i: int) -> None:
        """Select event i and bring it on screen."""
        if self.state is not None:
            self.state.select_event(i)
            self._refresh()

    def show_loading(self, path: str) -> None:
        """Show that a trace is being read; the previous trace, if any, stays on screen."""
        self.message = f"loading {os.path.basename(path.rstrip(os.sep)) or path}…"
        self.query_one(Timeline).loading = self.state is None
        self._update_status()

    def show_empty(self, sentence: str = EMPTY_STATE) -> None:
        """Show the empty state with one sentence saying why there is nothing to explore."""
        self.query_one(Timeline).loading = False
        self.query_one("#empty", Static).update(sentence)
        self.message = ""
        self._show_panels(self.state is not None)
        self._update_status()

    def set_palette(self, kind: str) -> None:
        self.palette_kind = kind
        self.query_one(Timeline).set_palette(kind)
        self._refresh()

    # ---- actions -------------------------------------------------------------------------
    def _act(self, moved: bool | None = True, failure: str = "") -> None:
        self.message = "" if moved or moved is None else failure
        self._refresh()

    def action_zoom(self, direction: int) -> None:
        if self.state:
            self.state.zoom(ZOOM_FACTOR if direction > 0 else 1 / ZOOM_FACTOR)
            self._act()

    def action_pan(self, direction: int) -> None:
        if self.state:
            self.state.pan(direction * PAN_FRACTION)
            self._act()

    def action_track(self, step: int) -> None:
        if self.state:
            self.state.move_cursor(step)
            self._act()

    def action_lane(self, step: int) -> None:
        if self.state:
            self.state.next_lane(step)
            self._act()

    def action_toggle_lane(self) -> None:
        if self.state:
            self.state.toggle_lane()
            self._act()

    def action_event(self, step: int) -> None:
        if self.state:
            self._act(self.state.step_event(step), "no further event on this track")

    def action_gap(self, step: int) -> None:
        if self.state:
            self._act(self.state.step_gap(step), "no further gap")

    def action_largest_gap(self) -> None:
        if self.state:
            self._act(self.state.largest_gap(), "no gaps in this trace")

    def action_focus_selected(self) -> None:
        if self.state:
            self._act(self.state.focus_selected(), "nothing selected")

    def action_fit(self) -> None:
        if self.state:
            self.state.fit()
            self._act()

    def action_follow(self, direction: int) -> None:
        if self.state:
            where = "downstream" if direction > 0 else "upstream"
            self._act(self.state.follow(direction > 0), f"no {where} link from the selected event")

    def action_mark(self) -> None:
        if self.state:
            outcome = self.state.mark()
            self.message = {"anchored": "range start marked; press m again to close it", "cleared": "mark cleared"}.get(outcome, "")
            self._refresh()

    def action_pin(self) -> None:
        if self.state:
            pinned = self.state.toggle_pin()
            self._act(pinned is not None, "pin needs the cursor on a track")

    def action_jump_chain(self, n: int) -> None:
        if self.state:
            chain = self.state.chain()
            if 1 <= n <= len(chain):
                self.state.select_event(chain[n - 1])
                self._act()
            else:
                self._act(False, f"no linked event {n}")

    def action_scroll_detail(self, direction: int) -> None:
        pane = self.query_one(DetailPane)
        pane.scroll_to(y=pane.scroll_offset.y + direction * max(1, pane.scrollable_content_region.height - 1), animate=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """In the search bar, `/` is a character to search for (Python events name files), not "open search"."""
        if action == "search":
            return not self.query_one(SearchBar).has_focus
        return True

    def action_search(self) -> None:
        self.query_one(SearchBar).open()

    def on_search_bar_step(self, event: SearchBar.Step) -> None:
        if self.state:
            found = self.state.search_step(event.query, event.step)
            self._act(found, f"no event name contains {event.query!r}")

    # ---- drawing -------------------------------------------------------------------------
    def _show_panels(self, has_trace: bool) -> None:
        self.query_one("#empty").display = not has_trace
        for selector in ("#ruler", "#timeline", "#detail"):
            self.query_one(selector).display = has_trace

    def _refresh(self) -> None:
        timeline = self.query_one(Timeline)
        timeline.loading = False
        timeline.show_state(self.state)
        self.query_one(Ruler).show_state(self.state, timeline.palette)
        self.query_one(DetailPane).show_state(self.state)
        self._update_status()

    def _update_status(self) -> None:
        self.query_one("#status", Static).update(
            Text(status_line(self.state, self.source_label, self.message), no_wrap=True, overflow="ellipsis")
        )


def display_name(path: str) -> str:
    """What the status line calls a trace: a run as `session/run`, a loose file by its name."""
    path = path.rstrip(os.sep) or path
    if os.path.basename(path).startswith("trace."):  # a run's trace.json says nothing on its own
        path = os.path.dirname(path)
    elif os.path.isfile(path):
        return os.path.basename(path)
    parent = os.path.basename(os.path.dirname(os.path.abspath(path)))
    name = os.path.basename(path) or path
    return f"{parent}/{name}" if parent else name


def status_line(state: ExplorerState | None, source: str, message: str) -> str:
    """One line, most important first: file, events, search position, mark, the last key's outcome, the window."""
    if state is None:
        return f"neurontui · {message}" if message else "neurontui"
    origin = state.window[0]
    resolution = max(1, state.view.span // 100)
    parts = [source, f"{len(state.trace.events):,} events"]
    if state.trace.meta.get("synthetic"):
        parts.insert(0, "SYNTHETIC (not measured)")
    if state.search is not None:
        total = len(state.search.matches)
        at = state.search.position + 1 if total else 0
        parts.append(f"/{state.search.query} {at}/{total}")
    if state.marked is not None:
        parts.append(f"marked {timefmt.duration(state.marked.t1 - state.marked.t0)}")
    if message:
        parts.append(message)
    parts.append(f"view +{timefmt.offset(state.view.t0 - origin, resolution)}…+{timefmt.offset(state.view.t1 - origin, resolution)}")
    return " · ".join(parts)
