"""Runs arriving while the app is open, driven through Textual's Pilot with real files in a temporary directory."""

from __future__ import annotations

import asyncio
import gzip
import os
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path

from textual import events
from textual.binding import Binding

from neurontui.catalog import CatalogUpdate, Run
from neurontui.tui import app as app_module
from neurontui.tui.app import NeuronTUI
from neurontui.tui.live import react
from neurontui.tui.widgets.runlist import RunList, run_prompt

DATA = Path(__file__).parent / "data"
SMALL = DATA / "cpu_only_rank34.json.gz"
OTHER = DATA / "cuda_triton_example.json.gz"
MEDIUM = DATA / "cuda_alexnet.json.gz"  # 1.4 k events: a burst of these takes the watcher a while to read
WAIT_S = 5.0  # generous bound; the latency actually measured is printed
SIZE = (120, 36)


async def wait_for(pilot, condition: Callable[[], bool], timeout: float = WAIT_S) -> float:
    """Seconds until condition holds while the app keeps running; fails after timeout."""
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < timeout, "condition not met in time"
        await pilot.pause(0.05)
    return time.monotonic() - start


def listed(app: NeuronTUI) -> dict[str, str]:
    return {run.key: run.status for run in app.explorer.query_one(RunList).runs.values()}


def open_path(app: NeuronTUI) -> str | None:
    state = app.explorer.state
    return state.trace.path if state is not None else None


async def test_new_trace_is_listed_with_a_notice_and_follow_mode_opens_it(tmp_path: Path) -> None:
    app = NeuronTUI(out_dir=str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.live.runs is not None)
        assert not app.explorer.query_one(RunList).display  # nothing to list yet
        shutil.copy(SMALL, tmp_path / "first.json.gz")
        latency = await wait_for(pilot, lambda: listed(app).get("first.json.gz") == "complete")
        print(f"listed {latency:.3f} s after the copy")
        assert app.explorer.query_one(RunList).display
        assert any("first.json.gz" in n.message for n in app._notifications)
        assert open_path(app) is None  # not following: nothing opened by itself
        await pilot.press("F")
        assert app.live.follow
        shutil.copy(OTHER, tmp_path / "second.json.gz")
        latency = await wait_for(pilot, lambda: (open_path(app) or "").endswith("second.json.gz"))
        print(f"follow mode showed the new run {latency:.3f} s after the copy")


async def test_enter_opens_the_highlighted_run_and_a_rewrite_reloads_keeping_the_view(tmp_path: Path) -> None:
    target = tmp_path / "trace.json"
    target.write_bytes(gzip.decompress(SMALL.read_bytes()))
    app = NeuronTUI(out_dir=str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: listed(app).get("trace.json") == "complete")
        await pilot.press("r")
        assert app.explorer.query_one(RunList).has_focus
        await pilot.press("enter")
        await wait_for(pilot, lambda: open_path(app) == str(target))
        await pilot.press("escape", "w", "w")  # back to the timeline, zoom in twice
        view = app.explorer.state.view
        first_trace = app.explorer.state.trace
        tmp = tmp_path / "trace.json.tmp"
        tmp.write_bytes(target.read_bytes())
        os.replace(tmp, target)
        await wait_for(pilot, lambda: app.explorer.state.trace is not first_trace)
        assert app.explorer.state.view == view


async def test_deleted_run_disappears_and_unreadable_run_keeps_the_last_good_data(tmp_path: Path) -> None:
    shutil.copy(SMALL, tmp_path / "gone.json.gz")
    keep = tmp_path / "keep.json"
    keep.write_bytes(gzip.decompress(SMALL.read_bytes()))
    app = NeuronTUI(str(keep), out_dir=str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: open_path(app) == str(keep) and len(listed(app)) == 2)
        assert app.live.open_key == "keep.json"
        (tmp_path / "gone.json.gz").unlink()
        await wait_for(pilot, lambda: "gone.json.gz" not in listed(app))
        trace = app.explorer.state.trace
        keep.write_bytes(b'{"traceEvents": [')  # broken for good: it stops changing
        await wait_for(pilot, lambda: listed(app).get("keep.json") == "unreadable")
        assert app.explorer.state.trace is trace
        assert any("can no longer be read" in n.message for n in app._notifications)
        reason = app.explorer.query_one(RunList).runs["keep.json"].reason
        assert "truncated" in reason


async def test_run_list_marks_the_open_run_when_the_list_arrives_before_the_trace(tmp_path: Path, monkeypatch) -> None:
    keep = tmp_path / "keep.json"
    keep.write_bytes(gzip.decompress(SMALL.read_bytes()))
    slow_load = app_module.load_for_explorer

    def load_after_the_first_listing(path: str):
        time.sleep(0.5)  # the watcher's first update lands while the trace is still loading
        return slow_load(path)

    monkeypatch.setattr(app_module, "load_for_explorer", load_after_the_first_listing)
    app = NeuronTUI(str(keep), out_dir=str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.live.runs is not None)
        assert open_path(app) is None
        await wait_for(pilot, lambda: open_path(app) == str(keep))
        assert app.live.open_key == "keep.json"


class ProbeApp(NeuronTUI):
    """The app plus one cheap key, so a test can time how long a key waits while runs pour in."""

    BINDINGS = [*NeuronTUI.BINDINGS, Binding("z", "probe", "Probe")]
    CSS_PATH = str(Path(app_module.__file__).parent / NeuronTUI.CSS_PATH)
    answered = 0

    def action_probe(self) -> None:
        self.answered += 1


async def key_latency(app: ProbeApp) -> float:
    """Post a real key event (as the terminal driver does) and time until its handler has run."""
    before, start = app.answered, time.monotonic()
    app.post_message(events.Key("z", "z"))
    while app.answered == before:
        assert time.monotonic() - start < WAIT_S, "the app did not answer a key"
        await asyncio.sleep(0.005)
    return time.monotonic() - start


async def test_burst_of_100_files_keeps_keys_answering_with_bounded_updates(tmp_path: Path) -> None:
    app = ProbeApp(out_dir=str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.live.runs is not None)
        before = app.live.updates
        writer = threading.Thread(target=lambda: [shutil.copy(MEDIUM, tmp_path / f"b{i:03d}.json.gz") for i in range(100)])
        writer.start()
        latencies, start = [], time.monotonic()
        while sum(s == "complete" for s in listed(app).values()) < 100:
            assert time.monotonic() - start < 60, "the burst was never fully listed"
            latencies.append(await key_latency(app))
            await asyncio.sleep(0.02)
        writer.join()
        updates = app.live.updates - before
        print(f"burst of 100: listed after {time.monotonic() - start:.2f} s in {updates} list updates; "
              f"{len(latencies)} keys answered meanwhile, slowest {max(latencies) * 1000:.0f} ms")
        assert len(latencies) >= 3 and updates <= 20
        assert len(app._notifications) <= 20


async def test_quit_stops_the_watcher_thread(tmp_path: Path) -> None:
    app = NeuronTUI(out_dir=str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.live.runs is not None)
        assert any(t.name.startswith("neurontui-watch") for t in threading.enumerate())
        await pilot.press("q")
    assert not any(t.name.startswith("neurontui-watch") for t in threading.enumerate())


def _run(key: str, status: str) -> Run:
    return Run(key=key, path=f"/out/{key}", kind="kineto", status=status)  # type: ignore[arg-type]


def _update(*runs: Run, changed: tuple[str, ...] = (), removed: tuple[str, ...] = ()) -> CatalogUpdate:
    return CatalogUpdate("/out", True, runs, (), changed=changed, removed=removed)


def test_react_first_update_is_silent_and_follow_picks_the_newest_ready_run() -> None:
    assert react(None, _update(_run("a", "complete")), None, follow=True).notices == ()
    previous = {"a": _run("a", "complete"), "b": _run("b", "in_progress")}
    update = _update(_run("c", "complete"), _run("b", "complete"), _run("a", "complete"), changed=("b",))
    reaction = react(previous, update, open_key="a", follow=True)
    assert reaction.open_run is not None and reaction.open_run.key == "c"
    assert [n.text for n in reaction.notices] == ["New run ready: c", "New run ready: b"]
    assert react(previous, update, open_key="a", follow=False).open_run is None


def test_react_reloads_the_open_run_only_when_it_is_complete_again() -> None:
    previous = {"a": _run("a", "complete")}
    assert react(previous, _update(_run("a", "in_progress"), changed=("a",)), "a", False).reload_run is None
    assert react(previous, _update(_run("a", "complete"), changed=("a",)), "a", False).reload_run is not None
    gone = react(previous, _update(removed=("a",)), "a", False)
    assert gone.reload_run is None and "deleted" in gone.notices[0].text


def test_run_list_marks_synthetic_runs() -> None:
    made = Run(key="trn1-synthetic/naive", path="/x", kind="neurontui-run", status="complete", synthetic=True)
    measured = Run(key="cpu/naive", path="/y", kind="neurontui-run", status="complete")
    assert "SYNTHETIC" in run_prompt(made, is_open=False).plain
    assert "SYNTHETIC" not in run_prompt(measured, is_open=False).plain


def test_a_narrow_run_list_keeps_each_run_on_its_rows_and_the_implementation_in_view() -> None:
    run = Run(key="k", path="/x", kind="neurontui-run", status="failed", implementation="compiled",
              session="trn1-rmsnorm-synthetic-long-session", reason="child exited with code 1 after a long compile",
              synthetic=True)
    lines = run_prompt(run, is_open=True, width=24).plain.splitlines()
    assert len(lines) == 3 and all(len(line) <= 24 for line in lines)
    assert lines[0].startswith("✗ …") and lines[0].endswith("/compiled ◀")
    wide = run_prompt(run, is_open=True).plain.splitlines()
    assert wide[0] == "✗ trn1-rmsnorm-synthetic-long-session/compiled  ◀ open" and "after a long compile" in wide[2]


async def test_the_run_list_fits_its_prompts_to_a_narrow_terminal(tmp_path: Path) -> None:
    for name in ("a-rather-long-trace-name-from-a-training-job.json.gz", "b.json.gz"):
        shutil.copy(SMALL, tmp_path / name)
    app = NeuronTUI(out_dir=str(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: len(listed(app)) == 2)
        await pilot.pause()
        panel = app.explorer.query_one(RunList)
        rows = [str(panel.get_option_at_index(i).prompt) for i in range(panel.option_count)]
        assert all(len(line) < panel.size.width for row in rows for line in row.splitlines())
        assert any(row.startswith("● …") and ".json.gz" in row for row in rows)
