"""The run list panel: every run of the watched directory, newest first, with a status glyph, opened with enter."""

from __future__ import annotations

import time
from collections.abc import Sequence

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from neurontui.catalog import Run

# Glyphs carry the status on their own (NO_COLOR); colours only repeat it.
GLYPHS: dict[str, tuple[str, str]] = {
    "complete": ("●", "green"),
    "in_progress": ("◌", "yellow"),
    "failed": ("✗", "red"),
    "cancelled": ("⊘", "magenta"),
    "timeout": ("⧗", "red"),
    "unreadable": ("!", "bold red"),
}
STATUS_WORDS = {"in_progress": "in progress"}


def run_label(run: Run) -> str:
    """What a person calls the run: session/implementation for captures, the relative path otherwise."""
    if run.implementation:
        return f"{run.session}/{run.implementation}" if run.session else run.implementation
    return run.key


def run_prompt(run: Run, is_open: bool) -> Text:
    """Glyph and name; SYNTHETIC on its own line when so; then kind, backend, status, reason and time, dimmed."""
    glyph, colour = GLYPHS.get(run.status, ("?", ""))
    text = Text()
    text.append(f"{glyph} ", style=colour)
    text.append(run_label(run), style="bold" if is_open else "")
    if is_open:
        text.append("  ◀ open", style="italic")
    if run.synthetic:
        text.append("\n  SYNTHETIC", style="bold yellow")
        text.append(" · generated, not measured", style="dim")
    kind = "" if run.kind == "neurontui-run" else run.kind  # a capture of ours is the usual case
    details = [kind, run.backend, STATUS_WORDS.get(run.status, run.status)]
    if run.reason and run.status != "complete":
        details.append(run.reason)
    details.append(time.strftime("%H:%M:%S", time.localtime(run.mtime_ns / 1e9)) if run.mtime_ns else "")
    text.append("\n  " + " · ".join(d for d in details if d), style="dim")
    return text


class RunList(OptionList):
    """Keeps the highlighted run across refreshes, so a new arrival never moves the person's place."""

    BINDINGS = [Binding("escape", "leave", "Back to the timeline", show=False, id="runs.leave")]

    class Open(Message):
        """The person chose a run with enter."""

        def __init__(self, run: Run) -> None:
            super().__init__()
            self.run = run

    class Left(Message):
        """The person left the list with escape."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.runs: dict[str, Run] = {}
        self.border_title = "Runs"

    def show_runs(self, runs: Sequence[Run], open_key: str | None, follow: bool, root: str) -> None:
        """Replace the list, keeping the highlighted run (by key) where it still exists."""
        current = self.highlighted_option
        keep = current.id if current is not None else None
        self.runs = {run.key: run for run in runs}
        self.set_options([Option(run_prompt(run, run.key == open_key), id=run.key) for run in runs])
        if keep in self.runs:
            self.highlighted = self.get_option_index(keep)
        elif runs:
            self.highlighted = 0
        self.border_title = f"Runs · {len(runs)}"
        self.border_subtitle = "follow ●" if follow else "F: follow"
        self.tooltip = root

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        run = self.runs.get(event.option.id or "")
        if run is not None:
            self.post_message(self.Open(run))

    def action_leave(self) -> None:
        self.post_message(self.Left())
