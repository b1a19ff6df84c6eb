"""`neurontui [PATH]`: unreadable paths fail before the UI starts; an empty output directory opens an empty state."""

from __future__ import annotations

import subprocess
import sys

from neurontui.cli import main
from neurontui.tui.app import NeuronTUI
from neurontui.tui.screens.explorer import EMPTY_STATE, waiting_for_runs
from tui_helpers import DATA, wait_loaded


def test_missing_path_exits_2_with_one_sentence(tmp_path, capsys):
    missing = tmp_path / "nope.json.gz"
    assert main([str(missing)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"neurontui: {missing}: no such file or directory"


def test_missing_path_from_the_installed_entry_point(tmp_path):
    done = subprocess.run([sys.executable, "-m", "neurontui.cli", str(tmp_path / "x.json")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "no such file" in done.stderr


async def test_empty_out_dir_opens_the_empty_state(tmp_path):
    app = NeuronTUI(out_dir=str(tmp_path / "runs"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.explorer.state is None
        shown = str(app.explorer.query_one("#empty").render())
        assert shown == waiting_for_runs(str(tmp_path / "runs")) and "Press c to capture" in shown


async def test_no_path_and_no_out_dir_shows_the_plain_empty_state(tmp_path):
    app = NeuronTUI()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert str(app.explorer.query_one("#empty").render()) == EMPTY_STATE


async def test_directory_opens_its_newest_trace(tmp_path):
    older, newer = tmp_path / "a.json.gz", tmp_path / "b.json.gz"
    older.write_bytes((DATA / "cpu_only_rank34.json.gz").read_bytes())
    newer.write_bytes((DATA / "cuda_alexnet.json.gz").read_bytes())
    import os

    os.utime(older, (1, 1))
    app = NeuronTUI(out_dir=str(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(app, pilot)
        assert app.explorer.state.trace.path == str(newer)


async def test_a_file_that_is_not_a_trace_becomes_a_notice(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("this is not json")
    app = NeuronTUI(str(bad))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(app, pilot)
        assert app.explorer.state is None
        notices = list(app._notifications)
        assert len(notices) == 1 and str(bad) in notices[0].message
        assert bad.read_text() == "this is not json"


async def test_reload_keeps_viewport_selection_and_pins():
    path = str(DATA / "cuda_sampled_rank0.json.gz")
    app = NeuronTUI(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(app, pilot)
        explorer = app.explorer
        await pilot.press("w", "w", "d", "full_stop", "p")
        state = explorer.state
        view, event, pins = state.view, state.selected_event, list(state.pinned)
        app.open_path(path, keep_view=True)
        await wait_loaded(app, pilot)
        assert explorer.state is not state
        assert explorer.state.view == view
        assert explorer.state.selected_event == event and explorer.state.pinned == pins
