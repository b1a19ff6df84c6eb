"""Cancel and timeout: the child is gone, the run says why, and nothing half-written looks complete."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from neurontui.capture.launcher import MANIFEST_FILE, SESSION_FILE, CaptureSession, plan_capture
from neurontui.capture.spec import CaptureSpec, Schedule

SLOW_IMPL = '''
import time
import torch

def slow(x, weight, eps):
    time.sleep(0.3)
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight
'''
LONG = Schedule(wait=0, warmup=1, active=100, repeat=1)


@pytest.fixture
def slow_impl(tmp_path: Path) -> str:
    path = tmp_path / "slowimpl.py"
    path.write_text(SLOW_IMPL)
    return f"{path}:slow"


def assert_gone(pid: int) -> None:
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def assert_nothing_looks_complete(run_dir: Path, status: str) -> None:
    data = json.loads((run_dir / MANIFEST_FILE).read_text())
    assert data["status"] == status
    assert "trace.json" not in data["files"] and not (run_dir / "trace.json").exists()
    assert not list(run_dir.rglob("*.partial"))


def test_cancel_during_the_active_phase(slow_impl: str, tmp_path: Path) -> None:
    plan = plan_capture([slow_impl, "naive"], CaptureSpec(shape=(4, 64), schedule=LONG), tmp_path / "runs", "cpu",
                        grace_s=2.0)
    session = CaptureSession(plan)
    pid = None
    events = []
    for event in session.events():
        events.append(event)
        if event.phase == "active" and pid is None:
            pid = event.pid
            session.cancel()
    assert pid is not None
    assert_gone(pid)
    assert session.statuses == {slow_impl: "cancelled", "naive": "cancelled"}
    assert_nothing_looks_complete(session.path / "slowimpl.slow", "cancelled")
    assert json.loads((session.path / "naive" / MANIFEST_FILE).read_text())["error"] == "cancelled before it started"
    assert not any(e.impl == "naive" and e.phase == "starting" for e in events)
    runs = json.loads((session.path / SESSION_FILE).read_text())["impls"]
    assert [run["status"] for run in runs] == ["cancelled", "cancelled"]


def test_timeout_stops_the_child_and_marks_the_run(slow_impl: str, tmp_path: Path) -> None:
    plan = plan_capture([slow_impl], CaptureSpec(shape=(4, 64), schedule=LONG), tmp_path / "runs", "cpu",
                        timeout_s=8.0, grace_s=2.0)
    session = CaptureSession(plan)
    started = time.monotonic()
    events = list(session.events())
    assert time.monotonic() - started < 20  # the schedule alone would take over 30 s
    assert session.statuses == {slow_impl: "timeout"}
    pid = next(e.pid for e in events if e.pid is not None)
    assert_gone(pid)
    run_dir = session.path / "slowimpl.slow"
    assert_nothing_looks_complete(run_dir, "timeout")
    assert "timed out after 8 s" in json.loads((run_dir / MANIFEST_FILE).read_text())["error"]
    assert events[-1].phase == "finished" and events[-1].status == "timeout"
