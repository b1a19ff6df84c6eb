"""The detail pane: the selected event (args decoded on selection, its link chain numbered for jumping), gap or range."""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from neurontui.analysis.gaps import NO_DEVICE_WORK
from neurontui.model.errors import TraceError
from neurontui.tui import timefmt
from neurontui.tui.state import ExplorerState

ARGS_SHOWN = 24
ARG_VALUE_CHARS = 120


def describe(state: ExplorerState | None) -> Text:
    """Rich text for whatever the explorer last selected; deterministic (no clocks)."""
    if state is None:
        return Text("No trace open.", style="dim")
    if state.focus == "gap" and state.selected_gap is not None:
        return _gap(state)
    if state.focus == "range" and state.marked is not None:
        return _range(state)
    if state.selected_event is not None:
        return _event(state)
    text = Text()
    text.append(f"{len(state.trace.events):,} events", style="bold")
    if state.index.device_work:
        text.append(f" · {len(state.interior_gaps):,} gaps on the {state.index.execution_lane.label} lane")
    else:
        text.append(f" · {NO_DEVICE_WORK}")
    text.append("\nPress . to select an event, n for the next gap, g for the largest, / to search, ? for help.", style="dim")
    return text


def _when(state: ExplorerState, t: int) -> str:
    return f"+{timefmt.duration(t - state.window[0])}  ({timefmt.absolute(t)})"


def _event(state: ExplorerState) -> Text:
    e = state.trace.event(state.selected_event)
    text = Text()
    text.append(e.name, style="bold")
    text.append(f"\n{e.lane.label} · {e.track.name}" + (f" · {e.track.group}" if e.track.group else ""))
    text.append(f"\nstart {_when(state, e.start)}")
    text.append(f"\nduration {timefmt.duration(e.duration)} · category {e.category}" + ("" if e.busy else " · not busy time"))
    chain = state.chain()
    if len(chain) > 1:
        text.append("\nlinks (press the number to jump):", style="bold")
        for n, i in enumerate(chain, start=1):
            linked = state.trace.event(i)
            here = "▶" if i == state.selected_event else " "
            text.append(f"\n {here}{n} {linked.lane.label:<9} {linked.name[:60]}  {timefmt.duration(linked.duration)}")
    try:
        args = e.args()
    except (TraceError, OSError) as exc:
        text.append(f"\nargs could not be read: {exc}", style="dim")
        return text
    if args:
        text.append("\nargs:", style="bold")
        for key, value in list(args.items())[:ARGS_SHOWN]:
            shown = repr(value) if not isinstance(value, str) else value
            text.append(f"\n  {key}: {shown[:ARG_VALUE_CHARS]}")
        if len(args) > ARGS_SHOWN:
            text.append(f"\n  … {len(args) - ARGS_SHOWN} more", style="dim")
    return text


def _gap(state: ExplorerState) -> Text:
    k = state.selected_gap
    gaps = state.interior_gaps
    gap = gaps[k]
    text = Text()
    text.append(f"Gap {k + 1}/{len(gaps)}: {timefmt.duration(gap.duration)} idle", style="bold")
    text.append(f" on the {state.index.execution_lane.label} lane, step {gap.step}")
    text.append(f"\nfrom {_when(state, gap.start)}\nto   {_when(state, gap.end)}")
    text.append(f"\ncause: {gap.cause}" if gap.cause else "\ncause: not analysed")
    if gap.detail:
        text.append(f"\n{gap.detail}")
    return text


def _range(state: ExplorerState) -> Text:
    r = state.marked
    span = r.t1 - r.t0
    text = Text()
    text.append(f"Marked range {timefmt.duration(span)}", style="bold")
    text.append(f"  +{timefmt.duration(r.t0 - state.window[0])} → +{timefmt.duration(r.t1 - state.window[0])}")
    busy = 100 * r.busy_ns / span if span else 0.0
    text.append(f"\nevents {r.events:,} · {state.index.execution_lane.label} busy {timefmt.duration(r.busy_ns)} ({busy:.1f}%)")
    text.append(f" · gaps {r.gaps} totalling {timefmt.duration(r.gap_ns)}")
    if r.top:
        text.append("\ntop names by time in range:", style="bold")
        for name, total, count in r.top:
            text.append(f"\n  {timefmt.duration(total):>8}  ×{count:<5} {name[:70]}")
    return text


class DetailPane(VerticalScroll, can_focus=False, inherit_bindings=False):
    """A scrollable panel whose text is rebuilt whenever the selection changes; the screen scrolls it (J/K)."""

    def compose(self):
        yield Static(id="detail-text")

    def show_state(self, state: ExplorerState | None) -> None:
        self.query_one("#detail-text", Static).update(describe(state))
        self.scroll_home(animate=False)
