"""Real CPU captures end to end: real torch, real profiler, real child processes and files."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from neurontui.capture.launcher import MANIFEST_FILE, SESSION_FILE, CaptureSession, ProgressEvent, plan_capture
from neurontui.capture.spec import CaptureSpec, Schedule
from neurontui.formats.kineto import load_kineto

SCHEDULE = Schedule(wait=1, warmup=1, active=3, repeat=1)
USER_IMPLS = '''
import torch

def good(x, weight, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight

def wrong(x, weight, eps):
    return x * weight  # forgets to normalize

def boom(x, weight, eps):
    raise ValueError("boom: this layout is not supported")
'''


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[CaptureSession, list[ProgressEvent]]:
    """One session covering the built-ins and user functions from a file (one compiled run in the suite)."""
    root = tmp_path_factory.mktemp("capture")
    user_file = root / "userimpls.py"
    user_file.write_text(USER_IMPLS)
    impls = ["naive", "fused", "compiled", f"{user_file}:boom", f"{user_file}:good", f"{user_file}:wrong"]
    plan = plan_capture(impls, CaptureSpec(shape=(4, 64), schedule=SCHEDULE), root / "runs", "cpu", timeout_s=240)
    captured = CaptureSession(plan)
    events = list(captured.events())
    return captured, events


def manifest(session: CaptureSession, name: str) -> dict[str, Any]:
    return json.loads((session.path / name / MANIFEST_FILE).read_text())


def top_level_ops_per_step(trace_path: Path) -> list[int]:
    """Count framework ops called directly by the step (cpu_op not nested in another cpu_op), per ProfilerStep."""
    events = json.loads(trace_path.read_text())["traceEvents"]
    steps = [e for e in events if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")]
    ops = sorted((e for e in events if e.get("ph") == "X" and e.get("cat") == "cpu_op"),
                 key=lambda e: (e["ts"], -e["dur"]))
    counts = []
    for step in steps:
        inside = [e for e in ops if e["tid"] == step["tid"] and step["ts"] <= e["ts"] <= step["ts"] + step["dur"]]
        open_until = -1.0
        top = 0
        for op in inside:
            if op["ts"] >= open_until:
                top += 1
                open_until = op["ts"] + op["dur"]
        counts.append(top)
    return counts


def test_builtin_implementations_complete_with_trace_and_key_averages(session: Any) -> None:
    captured, _ = session
    for name in ("naive", "fused", "compiled"):
        data = manifest(captured, name)
        assert data["status"] == "complete", data["error_tail"]
        assert data["correct"] is True
        assert data["correctness"]["max_abs_error"] < data["correctness"]["atol"] + 1e-3
        assert {"trace.json", "key_averages.csv"} <= set(data["files"])
        assert data["backend"] == "cpu" and data["torch_version"] and data["shape"] == [4, 64]
        header = (captured.path / name / "key_averages.csv").read_text().splitlines()[0]
        assert header == "name,calls,self_host_us,total_host_us,self_device_us,total_device_us"
        trace = load_kineto(captured.path / name / "trace.json")
        assert len(trace.steps) == SCHEDULE.active
        assert f"rmsnorm/{name}" in (captured.path / name / "key_averages.csv").read_text()


def test_fused_calls_fewer_framework_ops_per_step_than_naive(session: Any) -> None:
    captured, _ = session
    naive = top_level_ops_per_step(captured.path / "naive" / "trace.json")
    fused = top_level_ops_per_step(captured.path / "fused" / "trace.json")
    assert len(naive) == len(fused) == SCHEDULE.active
    assert max(fused) < min(naive), (fused, naive)


def test_raising_implementation_fails_and_the_others_complete(session: Any) -> None:
    captured, events = session
    statuses = captured.statuses
    boom = next(impl for impl in statuses if impl.endswith(":boom"))
    assert statuses[boom] == "failed"
    assert [s for impl, s in statuses.items() if impl != boom] == ["complete"] * 5
    data = manifest(captured, "userimpls.boom")
    assert data["status"] == "failed"
    assert "boom: this layout is not supported" in data["error"]
    assert any("ValueError" in line for line in data["error_tail"])
    finished = [e for e in events if e.impl == boom and e.phase == "finished"]
    assert finished[0].status == "failed"


def test_user_function_from_a_file_is_captured(session: Any) -> None:
    captured, _ = session
    data = manifest(captured, "userimpls.good")
    assert data["status"] == "complete" and data["correct"] is True
    assert "trace.json" in data["files"]


def test_wrong_result_is_flagged_but_still_profiled(session: Any) -> None:
    captured, _ = session
    data = manifest(captured, "userimpls.wrong")
    assert data["status"] == "complete"
    assert data["correct"] is False
    assert data["correctness"]["max_abs_error"] > data["correctness"]["atol"]
    assert (data["correctness"]["atol"], data["correctness"]["rtol"]) == (1e-5, 1e-5)


def test_progress_events_walk_the_phases_in_order(session: Any) -> None:
    _, events = session
    phases = [e.phase for e in events if e.impl == "naive"]
    order = ["starting", "compiling", "warmup", "active", "exporting", "done", "finished"]
    assert [p for i, p in enumerate(phases) if i == 0 or phases[i - 1] != p] == order
    steps = [e.step for e in events if e.impl == "naive" and e.phase in ("warmup", "active")]
    assert steps == list(range(1, SCHEDULE.total_steps + 1))


def test_session_json_lists_runs_and_is_finished(session: Any) -> None:
    captured, _ = session
    data = json.loads((captured.path / SESSION_FILE).read_text())
    assert data["finished"] is not None and data["backend"] == "cpu"
    assert [run["dir"] for run in data["impls"]] == list(captured.plan.names)
    assert [run["status"] for run in data["impls"]].count("complete") == 5
    assert not list(captured.path.rglob("*.partial")) and not list(captured.path.rglob("worker-result.json"))


def test_user_function_from_a_module_on_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my_norms.py").write_text(USER_IMPLS)
    monkeypatch.chdir(tmp_path)
    plan = plan_capture(["my_norms:good"], CaptureSpec(shape=(4, 64), schedule=Schedule(0, 1, 1, 1)),
                        tmp_path / "runs", "cpu")
    captured = CaptureSession(plan)
    assert captured.run() == {"my_norms:good": "complete"}
    data = manifest(captured, "my_norms.good")
    assert data["correct"] is True and "trace.json" in data["files"]


COUNTING_IMPL = '''
import itertools
import torch

calls = itertools.count()

def counted(x, weight, eps):
    with torch.profiler.record_function(f"call-{next(calls)}"):
        return torch.rms_norm(x, (x.shape[-1],), weight, eps)
'''


def test_each_recorded_cycle_has_the_key_averages_of_its_own_trace(tmp_path: Path) -> None:
    (tmp_path / "counting.py").write_text(COUNTING_IMPL)
    spec = CaptureSpec(shape=(4, 64), schedule=Schedule(wait=0, warmup=1, active=2, repeat=2))
    captured = CaptureSession(plan_capture([f"{tmp_path / 'counting.py'}:counted"], spec, tmp_path / "runs", "cpu"))
    assert set(captured.run().values()) == {"complete"}
    run_dir = next(p for p in captured.path.iterdir() if p.is_dir())

    def labels(text: str) -> set[str]:
        return set(re.findall(r"call-\d+", text))

    first, second = labels((run_dir / "trace.json").read_text()), labels((run_dir / "trace-2.json").read_text())
    assert first and second and not first & second
    assert labels((run_dir / "key_averages.csv").read_text()) == first
    assert labels((run_dir / "key_averages-2.csv").read_text()) == second
