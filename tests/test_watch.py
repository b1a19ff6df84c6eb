"""RunWatcher with real files in a temporary directory: slow writes, renames, deletions, bursts, shutdown."""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from neurontui.catalog import CatalogUpdate
from neurontui.watch import RunWatcher

DATA = Path(__file__).parent / "data"
SMALL = DATA / "cpu_only_rank34.json.gz"
WAIT_S = 5.0  # generous bound; the latency actually measured is printed


class Recorder:
    """Collects every update the watcher posts and waits for conditions on the latest one."""

    def __init__(self) -> None:
        self.updates: list[CatalogUpdate] = []
        self._cond = threading.Condition()

    def __call__(self, update: CatalogUpdate) -> None:
        with self._cond:
            self.updates.append(update)
            self._cond.notify_all()

    def wait_for(self, predicate: Callable[[CatalogUpdate], bool], timeout: float = WAIT_S) -> float:
        """Seconds until the latest update satisfies predicate; fails the test after timeout."""
        start = time.monotonic()
        with self._cond:
            ok = self._cond.wait_for(lambda: bool(self.updates) and predicate(self.updates[-1]), timeout)
        assert ok, f"condition not met within {timeout} s; last update: {self.updates[-1] if self.updates else None}"
        return time.monotonic() - start

    def statuses(self, key: str) -> list[str]:
        with self._cond:
            return [r.status for u in self.updates for r in u.runs if r.key == key]


def _status(key: str, status: str) -> Callable[[CatalogUpdate], bool]:
    return lambda u: (run := u.run(key)) is not None and run.status == status


@pytest.fixture
def watch(tmp_path: Path):
    started: list[RunWatcher] = []

    def start(root: Path = tmp_path, **kwargs) -> tuple[RunWatcher, Recorder]:
        recorder = Recorder()
        watcher = RunWatcher(root, recorder, **kwargs)
        watcher.start()
        started.append(watcher)
        recorder.wait_for(lambda u: True)
        return watcher, recorder

    yield start
    for watcher in started:
        assert watcher.stop(timeout=5.0)


def test_slow_chunked_write_is_never_an_error_and_appears_complete(tmp_path: Path, watch) -> None:
    _, rec = watch()
    payload = gzip.decompress(SMALL.read_bytes())
    chunks = [payload[i : i + len(payload) // 6 + 1] for i in range(0, len(payload), len(payload) // 6 + 1)]
    with open(tmp_path / "slow.json", "wb") as fh:
        for chunk in chunks:
            fh.write(chunk)
            fh.flush()
            time.sleep(0.2)
    latency = rec.wait_for(_status("slow.json", "complete"))
    print(f"slow write: complete {latency:.3f} s after the last chunk")
    seen = rec.statuses("slow.json")
    assert "unreadable" not in seen and "in_progress" in seen


def test_rename_into_place_appears_quickly_and_temp_name_never_shows(tmp_path: Path, watch) -> None:
    _, rec = watch()
    tmp = tmp_path / "run.pt.trace.json.gz.tmp"
    shutil.copy(SMALL, tmp)
    time.sleep(0.3)
    os.replace(tmp, tmp_path / "run.pt.trace.json.gz")
    latency = rec.wait_for(_status("run.pt.trace.json.gz", "complete"))
    print(f"rename into place: listed complete after {latency:.3f} s")
    assert all(not r.key.endswith(".tmp") for u in rec.updates for r in u.runs)


def test_deleted_file_disappears(tmp_path: Path, watch) -> None:
    shutil.copy(SMALL, tmp_path / "gone.json.gz")
    _, rec = watch()
    rec.wait_for(_status("gone.json.gz", "complete"))
    (tmp_path / "gone.json.gz").unlink()
    latency = rec.wait_for(lambda u: u.run("gone.json.gz") is None and "gone.json.gz" in u.removed)
    print(f"deletion noticed after {latency:.3f} s")


def test_burst_of_100_files_gives_a_bounded_number_of_updates(tmp_path: Path, watch) -> None:
    _, rec = watch()
    before = len(rec.updates)
    for i in range(100):
        shutil.copy(SMALL, tmp_path / f"burst_{i:03d}.json.gz")
    latency = rec.wait_for(lambda u: sum(r.status == "complete" for r in u.runs) == 100, timeout=20)
    updates = len(rec.updates) - before
    print(f"burst of 100: all complete after {latency:.3f} s in {updates} updates")
    assert 1 <= updates <= 20


def test_truncated_file_that_stops_changing_is_unreadable_with_a_reason(tmp_path: Path, watch) -> None:
    _, rec = watch(settle_s=0.5)
    payload = gzip.decompress(SMALL.read_bytes())
    (tmp_path / "cut.json").write_bytes(payload[: len(payload) // 2])
    latency = rec.wait_for(_status("cut.json", "unreadable"))
    reason = rec.updates[-1].run("cut.json").reason
    print(f"truncated file reported unreadable after {latency:.3f} s: {reason}")
    assert reason and "\n" not in reason
    assert rec.statuses("cut.json")[0] == "in_progress"


def test_missing_output_directory_is_waited_for_not_created(tmp_path: Path, watch) -> None:
    root = tmp_path / "runs"
    _, rec = watch(root)
    assert not rec.updates[-1].root_exists
    time.sleep(0.5)
    assert not root.exists()
    root.mkdir()
    shutil.copy(SMALL, root / "late.json.gz")
    latency = rec.wait_for(_status("late.json.gz", "complete"))
    print(f"file in a directory created later: listed after {latency:.3f} s")


def test_polling_mode_sees_new_files(tmp_path: Path, watch) -> None:
    _, rec = watch(poll=True)
    shutil.copy(SMALL, tmp_path / "polled.json.gz.part")
    os.replace(tmp_path / "polled.json.gz.part", tmp_path / "polled.json.gz")
    latency = rec.wait_for(_status("polled.json.gz", "complete"))
    print(f"polling: listed after {latency:.3f} s")


def test_stop_leaves_no_thread_behind(tmp_path: Path) -> None:
    watcher = RunWatcher(tmp_path, lambda u: None)
    watcher.start()
    assert watcher.alive
    assert watcher.stop(timeout=5.0)
    assert not any(t.name.startswith("neurontui-watch") for t in threading.enumerate())


CHILD = """
import sys
from neurontui.watch import RunWatcher
watcher = RunWatcher(sys.argv[1], lambda u: print("update", len(u.runs), flush=True))
watcher.start()
sys.stdin.readline()
sys.exit(0 if watcher.stop() else 3)
"""


def test_process_exits_promptly_after_stop(tmp_path: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().startswith("update")
        start = time.monotonic()
        child.stdin.write("\n")
        child.stdin.flush()
        assert child.wait(timeout=WAIT_S) == 0
        print(f"process exit after stop: {time.monotonic() - start:.3f} s")
    finally:
        if child.poll() is None:
            child.kill()
