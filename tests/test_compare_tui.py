"""The compare view (t) and the gap list (G), driven with real key presses through Textual's Pilot."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

from textual.widgets import DataTable

from neurontui.analysis.gaps import NO_DEVICE_WORK
from neurontui.tui.app import NeuronTUI
from neurontui.tui.screens.compare import CompareScreen, session_of
from neurontui.tui.screens.gaps import GapsScreen

ROOT = Path(__file__).resolve().parent.parent
TRN1 = ROOT / "sample_traces" / "trn1-rmsnorm-synthetic"
SIZE = (160, 40)


async def wait_for(pilot, condition: Callable[[], bool], timeout: float = 20.0) -> None:
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < timeout, "condition not met in time"
        await pilot.pause(0.05)


def column(table: DataTable, key: str) -> list[str]:
    return [str(table.get_cell(row, key)) for row in table.rows]


def test_session_of_a_run_is_its_parent_and_a_loose_trace_stays_itself():
    assert session_of(str(TRN1 / "naive")) == str(TRN1)
    assert session_of(str(TRN1 / "naive" / "trace.json")) == str(TRN1)
    loose = str(ROOT / "tests" / "data" / "cuda_alexnet.json.gz")
    assert session_of(loose) == loose


async def test_compare_view_lists_the_session_and_sorts_by_the_cursor_column():
    app = NeuronTUI(str(TRN1 / "naive"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.explorer.state is not None)
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.query_one(DataTable).row_count == 3)
        table = app.screen.query_one(DataTable)
        assert column(table, "name")[-1] == "naive"  # sorted by speedup, fastest first: naive (1.00×) last
        assert "MFU" in str(app.screen.query_one("#compare-metrics").render())
        assert "SYNTHETIC" in str(app.screen.query_one("#compare-header").render())
        await pilot.press("right", "right", "right", "right", "s")  # cursor on dispatches/step, sort descending
        assert column(table, "name")[0] == "naive"
        await pilot.press("s")  # again: ascending
        assert column(table, "name")[-1] == "naive"
        await pilot.press("escape")
        assert app.screen is app.explorer


async def test_gap_list_ranks_gaps_and_enter_jumps_the_timeline():
    app = NeuronTUI(str(TRN1 / "naive"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.explorer.state is not None)
        await pilot.press("G")
        await wait_for(pilot, lambda: isinstance(app.screen, GapsScreen) and app.screen.query_one(DataTable).row_count > 0)
        screen = app.screen
        lengths = [g.duration for g in screen.gaps]
        assert lengths == sorted(lengths, reverse=True)
        causes = column(screen.query_one(DataTable), "cause")
        assert len(causes) == len(lengths) and causes.count("host wait") >= len(causes) // 2
        await pilot.press("down", "enter")
        assert app.screen is app.explorer
        gap = screen.gaps[1]
        view = app.explorer.state.view
        assert view.t0 <= gap.start and gap.end <= view.t1
        assert view.t1 - view.t0 < 2 * gap.duration


async def test_brackets_in_paths_are_shown_as_written(tmp_path):
    session = tmp_path / "[bold]runs[/bold]"
    for impl in ("naive", "fused"):
        shutil.copytree(TRN1 / impl, session / impl)
    app = NeuronTUI(str(session / "naive"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.explorer.state is not None)
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.query_one(DataTable).row_count == 2)
        assert "[bold]runs[/bold]" in str(app.screen.query_one("#compare-header").render())


async def test_gap_list_of_a_host_only_trace_says_why_it_is_empty():
    app = NeuronTUI(str(ROOT / "sample_traces" / "cpu-rmsnorm" / "naive"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.explorer.state is not None)
        await pilot.press("G")
        await wait_for(pilot, lambda: isinstance(app.screen, GapsScreen))
        assert app.screen.query_one(DataTable).row_count == 0
        assert NO_DEVICE_WORK in str(app.screen.query_one("#gap-header").render())
