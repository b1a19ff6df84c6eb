"""One implementation's run on the capture screen: a title with phase and status, a progress bar and a log tail."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Log, ProgressBar, Static

from neurontui.capture.launcher import ProgressEvent

LOG_LINES = 200
STATUS_STYLES = {"complete": "green", "failed": "red", "cancelled": "magenta", "timeout": "red"}


class RunProgress(Vertical):
    """Fed by the screen's message handlers only; remembers phase, status and pid for the title and for tests."""

    DEFAULT_CSS = """
    RunProgress { height: auto; margin-bottom: 1; }
    RunProgress .run-title { height: 1; }
    RunProgress ProgressBar { height: 1; }
    RunProgress Log { height: 5; border-left: wide $primary-darken-2; }
    """

    def __init__(self, impl: str, run_dir: str, steps: int) -> None:
        super().__init__(classes="run-progress")
        self.impl, self.run_dir, self.steps = impl, run_dir, steps
        self.phase = "queued"
        self.status: str | None = None
        self.correct: bool | None = None
        self.pid: int | None = None

    def compose(self) -> ComposeResult:
        yield Static(self.title(), classes="run-title")
        yield ProgressBar(total=self.steps, show_eta=False)
        yield Log(max_lines=LOG_LINES)

    def title(self) -> Text:
        """Name, then the final status (WRONG RESULT in red when the output disagreed with the reference)."""
        text = Text(f"{self.impl}  ", style="bold")
        if self.status is None:
            text.append(self.phase, style="yellow" if self.phase != "queued" else "dim")
        else:
            text.append(self.status, style=STATUS_STYLES.get(self.status, ""))
        if self.correct is False:
            text.append("  WRONG RESULT", style="bold red")
        return text

    def advance(self, event: ProgressEvent) -> None:
        """A progress event: the phase in the title, the step on the bar, a line in the log."""
        self.phase = event.phase
        self.pid = event.pid or self.pid
        if event.step is not None:
            self.query_one(ProgressBar).update(progress=event.step)
        steps = f" {event.step}/{event.steps}" if event.step is not None else ""
        self._log(f"{event.phase}{steps}" + (f": {event.message}" if event.message else ""))

    def finish(self, event: ProgressEvent, correct: bool | None, error_tail: list[str]) -> None:
        """The run's end: status, correctness, and the worker's last stderr lines when it did not complete."""
        self.status = event.status
        self.correct = correct
        self.pid = event.pid or self.pid
        if event.status == "complete":
            self.query_one(ProgressBar).update(progress=self.steps)
        for line in error_tail:
            self._log(f"  {line}")
        self._log(f"{event.status}" + (f": {event.message}" if event.message else ""))
        if correct is False:
            self._log("WRONG RESULT: the output differs from the float64 reference")
        self._show_title()

    def _log(self, line: str) -> None:
        self.query_one(Log).write_line(line)
        self._show_title()

    def _show_title(self) -> None:
        self.query_one(".run-title", Static).update(self.title())
