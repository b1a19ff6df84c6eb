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


def fit_label(label: str, width: int | None) -> str:
    """The label cut from the left when it is too wide: the implementation at its end is what tells runs apart."""
    if width is None or len(label) <= width:
        return label
    return "…" + label[len(label) - max(width - 1, 1):]


def run_prompt(run: Run, is_open: bool, width: int | None = None) -> Text:
    """Glyph and name; SYNTHETIC on its own line when so; then kind, backend, status, reason and time, dimmed.

    With a width, each line stays on one row (the name cut from the left, the rest with an ellipsis),
    so a narrow panel never wraps a run over many rows.
    """
    glyph, colour = GLYPHS.get(run.status, ("?", ""))
    label = run_label(run)
    name = Text(f"{glyph} ", style=colour)
    marker = "  ◀ open" if width is None or len(name) + len(label) + len("  ◀ open") <= width else " ◀"
    name.append(fit_label(label, None if width is None else width - len(name) - (len(marker) if is_open else 0)),
                style="bold" if is_open else "")
    if is_open:
        name.append(marker, style="italic")
    lines = [name]
    if run.synthetic:
        lines.append(Text.assemble(("  SYNTHETIC", "bold yellow"), (" · generated, not measured", "dim")))
    kind = "" if run.kind == "neurontui-run" else run.kind  # a capture of ours is the usual case
    details = [kind, run.backend, STATUS_WORDS.get(run.status, run.status)]
    if run.reason and run.status != "complete":
        details.append(run.reason)
    details.append(time.strftime("%H:%M:%S", time.localtime(run.mtime_ns / 1e9)) if run.mtime_ns else "")
    lines.append(Text("  " + " · ".join(d for d in details if d), style="dim"))
    if width is not None:
        for line in lines:
            line.truncate(width, overflow="ellipsis")
    return Text("\n").join(lines)


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
        self.open_key: str | None = None
        self.border_title = "Runs"

    def show_runs(self, runs: Sequence[Run], open_key: str | None, follow: bool, root: str) -> None:
        """Replace the list, keeping the highlighted run (by key) where it still exists."""
        current = self.highlighted_option
        keep = current.id if current is not None else None
        self.runs = {run.key: run for run in runs}
        self.open_key = open_key
        self._set_prompts()
        if keep in self.runs:
            self.highlighted = self.get_option_index(keep)
        elif runs:
            self.highlighted = 0
        self.border_title = f"Runs · {len(runs)}"
        self.border_subtitle = "follow ●" if follow else "F: follow"
        self.tooltip = root

    def on_resize(self) -> None:
        """Prompts are fitted to the width: fit them again, keeping the highlight."""
        if self.runs:
            highlighted = self.highlighted
            self._set_prompts()
            self.highlighted = highlighted

    def _set_prompts(self) -> None:
        width = self.scrollable_content_region.width - 1  # OptionList pads each prompt by one cell
        fitted = width if width > 8 else None  # not laid out yet: on_resize fits them once it is
        self.set_options([Option(run_prompt(run, run.key == self.open_key, fitted), id=run.key)
                          for run in self.runs.values()])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        run = self.runs.get(event.option.id or "")
        if run is not None:
            self.post_message(self.Open(run))

    def action_leave(self) -> None:
        self.post_message(self.Left())
