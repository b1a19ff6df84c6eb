"""Fast checks of the pieces around a capture: spec, registry, correctness, key_averages, session names."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import torch

from neurontui.capture import backends, correctness, implementations, profiling
from neurontui.capture.launcher import SESSION_FILE, CaptureSession, plan_capture
from neurontui.capture.spec import CaptureSpec, Schedule


def test_schedule_phases_follow_torch_profiler_cycles() -> None:
    sched = Schedule(wait=1, warmup=2, active=3, repeat=2)
    assert sched.total_steps == 12
    assert [sched.phase(i) for i in range(6)] == ["warmup"] * 3 + ["active"] * 3
    assert sched.phase(6) == "warmup" and sched.phase(11) == "active"


def test_spec_survives_the_trip_to_the_worker() -> None:
    spec = CaptureSpec(shape=(2, 3, 64), dtype="bfloat16", eps=1e-5, schedule=Schedule(0, 1, 2, 1), seed=7,
                       record_shapes=True)
    assert CaptureSpec.from_json(spec.to_json()) == spec


def test_registry_on_cpu_explains_what_is_unavailable() -> None:
    registry = {impl.name: impl for impl in implementations.registry(backends.CpuBackend())}
    assert list(registry) == ["naive", "fused", "compiled", "kernel"]
    assert registry["naive"].available and registry["fused"].available
    assert not registry["kernel"].available and "Neuron" in registry["kernel"].reason


def test_naive_and_fused_agree_with_the_float64_reference() -> None:
    x, weight = torch.randn(4, 64), torch.rand(64) + 0.5
    for fn in (implementations.naive_rmsnorm, implementations.fused_rmsnorm):
        verdict = correctness.check(fn(x, weight, 1e-6), x, weight, 1e-6, "float32")
        assert verdict["correct"] is True and verdict["max_abs_error"] < 1e-5


def test_wrong_shape_or_nan_is_not_correct() -> None:
    x, weight = torch.randn(4, 64), torch.ones(64)
    assert correctness.check(x[:2], x, weight, 1e-6, "float32")["correct"] is False
    nan = torch.full_like(x, float("nan"))
    verdict = correctness.check(nan, x, weight, 1e-6, "float32")
    assert verdict["correct"] is False and verdict["max_abs_error"] is None


def test_key_averages_reads_the_device_column_under_older_names(tmp_path: Path) -> None:
    event = SimpleNamespace(key="aten::mul", count=2, self_cpu_time_total=3.0, cpu_time_total=4.0,
                            self_privateuse1_time_total=5.0, privateuse1_time_total=6.0)
    profiling.write_key_averages(SimpleNamespace(key_averages=lambda: [event]), tmp_path)
    rows = list(csv.DictReader((tmp_path / profiling.KEY_AVERAGES_FILE).open()))
    assert rows == [{"name": "aten::mul", "calls": "2", "self_host_us": "3.0", "total_host_us": "4.0",
                     "self_device_us": "5.0", "total_device_us": "6.0"}]


def test_sessions_started_in_the_same_second_get_distinct_directories(tmp_path: Path) -> None:
    plan = plan_capture(["naive"], CaptureSpec(shape=(4, 64)), tmp_path, "cpu")
    first, second = CaptureSession(plan), CaptureSession(plan)
    assert first.path != second.path and first.path.name.endswith("-cpu")
    data = json.loads((second.path / SESSION_FILE).read_text())
    assert data["finished"] is None and data["impls"] == [{"impl": "naive", "dir": "naive", "status": None}]


def test_planning_checks_backend_and_implementations_in_a_child_and_never_imports_torch(tmp_path: Path) -> None:
    script = (
        "import sys; from neurontui.capture.launcher import plan_capture, ImplementationError\n"
        "from neurontui.capture.spec import CaptureSpec\n"
        f"plan = plan_capture(['naive', 'fused'], CaptureSpec(shape=(4, 64)), {str(tmp_path)!r}, 'cpu')\n"
        "try:\n    plan_capture(['kernel'], CaptureSpec(shape=(4, 64)), '.', 'cpu')\n"
        "except ImplementationError as exc:\n    print(exc.spec, '|', exc)\n"
        "print(plan.backend, plan.names, 'torch' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    rejected, planned = done.stdout.strip().splitlines()
    assert rejected.startswith("kernel | implementation 'kernel' is not available on cpu")
    assert planned == "cpu ('naive', 'fused') False"  # this process never imported torch


def test_a_probe_already_made_answers_for_built_ins_without_another_child(monkeypatch) -> None:
    from neurontui.capture import launcher
    from neurontui.capture.probe import ImplInfo, ProbeResult

    checked = ProbeResult(
        reasons={"neuron": "no device", "cuda": "no GPU", "cpu": ""}, backend="cpu", error="", error_spec="",
        builtins=(ImplInfo("naive", "naive", "separate ops", ""), ImplInfo("kernel", "kernel", "NKI", "needs Neuron")),
        requested=(),
    )
    assert checked.answering(["my.py:norm"]) is None  # a user function needs the child
    blocked = checked.answering(["naive", "kernel"])
    assert blocked is not None and blocked.error_spec == "kernel" and "needs Neuron" in blocked.error

    def no_child(*_args, **_kwargs):
        raise AssertionError("a second probe child was started")

    monkeypatch.setattr(launcher, "probe", no_child)
    plan = plan_capture(["naive"], CaptureSpec(shape=(4, 64)), Path("out"), "cpu", checked=checked)
    assert (plan.backend, plan.names) == ("cpu", ("naive",))
