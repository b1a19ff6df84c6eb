"""The compare view: every run of the open session side by side, sortable, with Neuron's MFU/HFU/MBU when exported."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from neurontui.analysis.compare import Comparison, RunFigures, compare_runs
from neurontui.analysis.compare_columns import COLUMNS
from neurontui.errors import TraceError, UserError
from neurontui.tui.screens.gaps import explorer_of

MANIFEST = "manifest.json"
METRIC_KEYS = (("mfu", "MFU"), ("hfu", "HFU"), ("mbu", "MBU"))


def session_of(path: str) -> str:
    """The session a run belongs to (its parent, when runs with manifests sit side by side), else the path itself."""
    p = Path(path)
    run = p if p.is_dir() else p.parent
    if not (run / MANIFEST).is_file():
        return path
    parent = run.parent
    if (parent / "session.json").is_file() or any((d / MANIFEST).is_file() for d in parent.iterdir() if d.is_dir() and d != run):
        return str(parent)
    return str(run)


def metrics_line(run: RunFigures) -> str:
    """MFU / HFU / MBU from the Neuron export's summary rows, or '' when the run has none."""
    parts = []
    for row in run.summary_metrics:
        for name, value in row.items():
            label = next((label for key, label in METRIC_KEYS if name.lower().startswith(key)), None)
            if label and isinstance(value, int | float) and not isinstance(value, bool):
                parts.append(f"{label} {value:.1f}%" if "percent" in name.lower() else f"{label} {value:g}")
    return f"{run.name}: " + " · ".join(parts) if parts else ""


class ComparisonReady(Message):
    """The worker finished comparing the runs of `session`; `error` is one sentence when it could not."""

    def __init__(self, session: str, comparison: Comparison | None, error: str = "") -> None:
        super().__init__()
        self.session, self.comparison, self.error = session, comparison, error


class CompareScreen(Screen):
    """Runs side by side; `s` sorts by the column under the cursor (again: reverse), headers sort on click."""

    BINDINGS = [
        Binding("escape", "close", "Back", id="compare.close"),
        Binding("s", "sort_column", "Sort by column", id="compare.sort"),
    ]

    DEFAULT_CSS = """
    CompareScreen #compare-header { height: auto; padding: 0 1; background: $panel; }
    CompareScreen #compare-metrics { height: auto; padding: 0 1; color: $text-muted; }
    CompareScreen DataTable { height: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__(id="compare")
        self.session: str | None = None
        self.comparison: Comparison | None = None
        self.sort_key = "speedup"
        self.reverse = True

    def compose(self) -> ComposeResult:
        yield Static(id="compare-header", markup=False)  # paths and error text, not markup
        yield DataTable(id="compare-table", cursor_type="cell", zebra_stripes=True)
        yield Static(id="compare-metrics", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for col in COLUMNS:
            table.add_column(col.header, key=col.key)
        self._load_if_needed()

    def on_screen_resume(self) -> None:
        self._load_if_needed()

    def _load_if_needed(self) -> None:
        explorer = explorer_of(self.app)
        state = explorer.state if explorer is not None else None
        header = self.query_one("#compare-header", Static)
        if state is None:
            header.update("No trace is open: open a run or a session to compare its implementations.")
            return
        session = session_of(state.trace.path)
        if session == self.session:
            self.query_one(DataTable).focus()
            return
        self.session = session
        header.update(f"comparing the runs of {session}…")
        self._compare(session)

    @work(thread=True, exclusive=True, group="compare")
    def _compare(self, session: str) -> None:
        from neurontui.commands.compare import load_runs

        try:
            comparison = compare_runs(load_runs([session]))
        except (UserError, TraceError, OSError) as exc:
            self.post_message(ComparisonReady(session, None, str(exc)))
        else:
            self.post_message(ComparisonReady(session, comparison))

    def on_comparison_ready(self, message: ComparisonReady) -> None:
        if message.session != self.session:
            return
        if message.comparison is None:
            self.query_one("#compare-header", Static).update(f"Cannot compare {message.session}: {message.error}")
            self.app.notify(message.error, title="Cannot compare", severity="error")
            return
        self.comparison = message.comparison
        self._show()

    def _show(self) -> None:
        comparison = self.comparison
        if comparison is None:
            return
        column = next(c for c in COLUMNS if c.key == self.sort_key)
        runs = sorted(comparison.runs, key=column.value, reverse=self.reverse)
        table = self.query_one(DataTable)
        cursor = table.cursor_coordinate
        table.clear()
        for run in runs:
            table.add_row(*(Text(c.text(run)) for c in COLUMNS), key=run.name)  # Text: names are not markup
        table.cursor_coordinate = cursor
        order = "descending" if self.reverse else "ascending"
        first = comparison.window(comparison.runs[0]) if comparison.runs else ""
        note = f"{comparison.synthetic_note}\n" if comparison.synthetic_note else ""
        self.query_one("#compare-header", Static).update(
            f"{note}{self.session} — baseline {comparison.baseline}; speedup = baseline device busy per step / run's; "
            f"sorted by {column.header} ({order}).\n{first}"
        )
        lines = [line for line in (metrics_line(r) for r in runs) if line]
        self.query_one("#compare-metrics", Static).update("\n".join(lines) or "No Neuron summary metrics (MFU/HFU/MBU) in these runs.")
        table.focus()

    def sort_by(self, key: str) -> None:
        """Sort by a column; the same column again flips the order."""
        self.reverse = not self.reverse if key == self.sort_key else True
        self.sort_key = key
        self._show()

    def action_sort_column(self) -> None:
        table = self.query_one(DataTable)
        self.sort_by(COLUMNS[table.cursor_column].key)

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        self.sort_by(str(event.column_key.value))

    def action_close(self) -> None:
        self.app.pop_screen()
