"""The Textual app: a table of screens with their keys, trace loading in a worker, and palette commands for every key."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.dom import DOMNode
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen

from neurontui.model.errors import TraceError
from neurontui.tui.live import LiveRuns, RunsChanged, watch_root
from neurontui.tui.opening import load_for_explorer
from neurontui.tui.paint import PaintIndex
from neurontui.tui.screens.explorer import ExplorerScreen, prepare, waiting_for_runs
from neurontui.tui.screens.help import HelpScreen
from neurontui.tui.widgets.runlist import RunList


@dataclass(frozen=True)
class ScreenEntry:
    """A screen the app can show: its name, the key that shows it, and where its class lives."""

    name: str
    key: str
    description: str
    target: str  # "package.module:ClassName", imported when first shown


# Add a screen with one line here (and its module): the key, footer, help and palette follow.
SCREENS_TABLE: tuple[ScreenEntry, ...] = (
    ScreenEntry("explorer", "e", "Explorer", "neurontui.tui.screens.explorer:ExplorerScreen"),
    ScreenEntry("compare", "t", "Compare runs", "neurontui.tui.screens.compare:CompareScreen"),
    ScreenEntry("gaps", "G", "Gap list", "neurontui.tui.screens.gaps:GapsScreen"),
    ScreenEntry("capture", "c", "Capture", "neurontui.tui.screens.capture:CaptureScreen"),
)


def _loader(target: str) -> Callable[[], Screen]:
    module, _, cls = target.partition(":")
    return lambda: getattr(importlib.import_module(module), cls)()


class TraceLoaded(Message):
    """The loading worker finished: a prepared trace for the explorer."""

    def __init__(self, path: str, index: PaintIndex, keep_view: bool) -> None:
        super().__init__()
        self.path, self.index, self.keep_view = path, index, keep_view


class TraceFailed(Message):
    """The loading worker could not read a trace; `sentence` says why."""

    def __init__(self, path: str, sentence: str, empty_is_fine: bool) -> None:
        super().__init__()
        self.path, self.sentence, self.empty_is_fine = path, sentence, empty_is_fine


class NeuronTUI(App[None]):
    """Opens on the explorer; other screens are pushed on top by their key and popped with escape."""

    TITLE = "neurontui"
    CSS_PATH = "neurontui.tcss"
    SCREENS = {entry.name: _loader(entry.target) for entry in SCREENS_TABLE if entry.name != "explorer"}
    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("r", "runs", "Runs", id="app.runs"),
        Binding("F", "follow", "Follow new runs", id="app.follow"),
        *(Binding(e.key, f"show_screen('{e.name}')", e.description, show=False, id=f"app.screen-{e.name}") for e in SCREENS_TABLE),
    ]

    def __init__(self, path: str | None = None, *, out_dir: str | None = None, poll: bool = False, plain: bool = False) -> None:
        super().__init__()
        self.start_path = path
        self.out_dir = out_dir  # the capture output directory, opened when no path is given
        self.poll = poll  # watch directories by polling (network file systems), for follow mode
        self.plain = plain
        self.explorer = ExplorerScreen(self.palette_kind)
        self.live = LiveRuns(self, watch_root(path, out_dir), poll)  # runs arriving on disk

    @property
    def palette_kind(self) -> str:
        """'mono' when NO_COLOR is set, 'plain' for 16-colour terminals, else 'rich'."""
        return "mono" if self.no_color else "plain" if self.plain else "rich"

    def get_default_screen(self) -> Screen:
        return self.explorer

    def on_ready(self) -> None:
        if self.plain:
            self.theme = "ansi-dark"
        if self.start_path is not None:
            self.open_path(self.start_path)
        elif self.out_dir is not None and _has_files(self.out_dir):
            self.open_path(self.out_dir, empty_is_fine=True)
        elif self.live.root is not None:
            self.explorer.show_empty(waiting_for_runs(self.live.root))
        else:
            self.explorer.show_empty()
        self.live.start()

    def on_unmount(self) -> None:
        self.live.stop()

    def watch_theme(self) -> None:
        if self.explorer.is_mounted:
            self.explorer.set_palette(self.palette_kind)

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """Notices quote paths and error text: shown as written unless a caller asks for markup."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    # ---- opening traces ----------------------------------------------------------------
    def open_path(self, path: str, *, keep_view: bool = False, empty_is_fine: bool = False) -> None:
        """Load a trace file or directory in a worker; keep_view reloads it keeping the explorer's view."""
        self.explorer.show_loading(path)
        self._load(path, keep_view, empty_is_fine)

    @work(thread=True, exclusive=True, group="load")
    def _load(self, path: str, keep_view: bool, empty_is_fine: bool) -> None:
        try:
            index = prepare(load_for_explorer(path))
        except TraceError as exc:
            self.post_message(TraceFailed(path, str(exc), empty_is_fine))
        except (OSError, MemoryError, ValueError) as exc:
            self.post_message(TraceFailed(path, f"{path}: could not be read ({exc.__class__.__name__}: {exc})", empty_is_fine))
        else:
            self.post_message(TraceLoaded(path, index, keep_view))

    def on_trace_loaded(self, message: TraceLoaded) -> None:
        trace = message.index.trace
        if message.keep_view:
            self.explorer.reload_trace(trace, keep_view=True, index=message.index)
        else:
            self.explorer.open_trace(trace, index=message.index)
            self.live.trace_opened()

    def on_trace_failed(self, message: TraceFailed) -> None:
        if message.empty_is_fine:
            self.explorer.show_empty(f"Nothing to explore yet: {message.sentence}")
            return
        self.explorer.show_empty(message.sentence)
        self.notify(message.sentence, title="Cannot open trace", severity="error")

    # ---- runs arriving on disk (tui/live.py) ---------------------------------------------------
    def on_runs_changed(self, message: RunsChanged) -> None:
        if self.explorer.is_mounted:  # an update can still arrive while the app closes
            self.live.apply(message.update)

    def on_run_list_open(self, message: RunList.Open) -> None:
        self.live.open(message.run)

    def on_run_list_left(self, _: RunList.Left) -> None:
        self.live.leave_panel()

    def action_runs(self) -> None:
        self.live.toggle_panel()

    def action_follow(self) -> None:
        self.live.toggle_follow()

    # ---- screens, help, palette ----------------------------------------------------------
    def action_show_screen(self, name: str) -> None:
        """Show a screen from SCREENS_TABLE; the explorer is the base of the stack."""
        while len(self.screen_stack) > 1 and self.screen is not self.explorer:
            self.pop_screen()
        if name != "explorer":
            self.push_screen(name)

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
            return
        self.push_screen(HelpScreen([(title, bindings) for title, _owner, bindings in self.binding_groups(self.screen)]))

    def binding_groups(self, screen: Screen) -> list[tuple[str, DOMNode, list[Binding]]]:
        """The keys a person can press on `screen`, with who runs them: the screen, its own widgets, the app."""
        groups: list[tuple[str, DOMNode, list[Binding]]] = [(_title(screen), screen, _declared(screen))]
        seen: set[type] = set()
        for widget in screen.query("*"):
            kind = type(widget)
            if kind in seen or not kind.__module__.startswith("neurontui."):
                continue
            seen.add(kind)
            if bindings := _declared(widget):
                groups.append((_title(widget), widget, bindings))
        groups.append(("app", self, _declared(self)))
        return groups

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        titles: set[str] = set()
        for command in super().get_system_commands(screen):
            titles.add(command.title.lower())
            yield command
        for _title, owner, bindings in self.binding_groups(screen):
            for b in bindings:
                if b.description.lower() not in titles:  # Textual's own Quit, Keys… are not listed twice
                    yield SystemCommand(b.description, f"key: {b.key.replace(',', ' / ')}", partial(owner.run_action, b.action))


def _declared(node: DOMNode) -> list[Binding]:
    return [b for b in type(node).BINDINGS if isinstance(b, Binding)]


def _title(node: DOMNode) -> str:
    return type(node).__name__.removesuffix("Screen").lower()


def _has_files(directory: str) -> bool:
    """True when the directory exists and holds anything at all."""
    try:
        with os.scandir(directory) as entries:
            return any(True for _ in entries)
    except OSError:
        return False
