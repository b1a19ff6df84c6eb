"""The gap list: every idle gap of the open trace, longest first, so enter takes the timeline to the worst one."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from neurontui.analysis.compare_columns import fmt_ns
from neurontui.analysis.gaps import CAUSES, NO_DEVICE_WORK, Gap, describe_window, gap_totals
from neurontui.tui.screens.explorer import ExplorerScreen

COLUMNS = (("rank", "#"), ("length", "length"), ("kind", "kind"), ("cause", "cause"), ("step", "step"),
           ("at", "at"), ("op", "host op"), ("detail", "detail"))
CONTEXT = 0.1  # share of the gap shown on each side when jumping to it


def explorer_of(app: App) -> ExplorerScreen | None:
    """The explorer at the bottom of the screen stack, where the open trace lives."""
    return next((s for s in app.screen_stack if isinstance(s, ExplorerScreen)), None)


class GapsScreen(Screen):
    """Gaps ranked by length with their cause; enter (the table's select) jumps the explorer to the highlighted gap."""

    BINDINGS = [
        Binding("escape", "close", "Back", id="gaps.close"),
    ]

    DEFAULT_CSS = """
    GapsScreen #gap-header { height: auto; padding: 0 1; background: $panel; }
    GapsScreen DataTable { height: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__(id="gaps")
        self.gaps: list[Gap] = []
        self.shown_for: object | None = None  # the trace the table was filled for

    def compose(self) -> ComposeResult:
        yield Static(id="gap-header", markup=False)
        yield DataTable(id="gap-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for key, header in COLUMNS:
            table.add_column(header, key=key)
        self._fill()

    def on_screen_resume(self) -> None:
        self._fill()

    def _fill(self) -> None:
        explorer = explorer_of(self.app)
        state = explorer.state if explorer is not None else None
        header = self.query_one("#gap-header", Static)
        table = self.query_one(DataTable)
        if state is None:
            header.update("No trace is open: open one to list its gaps.")
            table.clear()
            self.gaps, self.shown_for = [], None
            return
        if self.shown_for is state.trace:
            table.focus()
            return
        trace = state.trace
        self.shown_for = trace
        self.gaps = sorted(state.index.gaps, key=lambda g: (-g.duration, g.start))
        table.clear()
        if not state.index.device_work:
            header.update(f"Nothing to list: {NO_DEVICE_WORK}.")
            return
        totals = gap_totals(self.gaps)
        causes = ", ".join(f"{c} {fmt_ns(totals['by_cause_ns'][c])}" for c in CAUSES if totals["by_cause_ns"][c])
        header.update(
            f"{totals['count']} interior gap(s), {fmt_ns(totals['total_ns'])} in all"
            + (f" ({causes})" if causes else "")
            + f"; leading {fmt_ns(totals['leading_ns'])}, trailing {fmt_ns(totals['trailing_ns'])} apart.\n"
            + describe_window(trace)
        )
        t0 = trace.window[0]
        for rank, gap in enumerate(self.gaps, 1):
            cells = (str(rank), fmt_ns(gap.duration), gap.kind, gap.cause or "", str(gap.step),
                     f"+{fmt_ns(gap.start - t0)}", gap.op, gap.detail)
            table.add_row(*map(Text, cells), key=str(rank - 1))  # Text: op names are not markup
        table.focus()

    def action_close(self) -> None:
        self.app.pop_screen()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.jump(self.gaps[int(event.row_key.value)])

    def jump(self, gap: Gap) -> None:
        """Back to the explorer, showing the gap with a little context on each side."""
        explorer = explorer_of(self.app)
        self.app.pop_screen()
        if explorer is not None:
            pad = max(int(gap.duration * CONTEXT), 1)
            explorer.jump_to(gap.start - pad, gap.end + pad)
