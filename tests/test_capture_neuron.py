"""The Neuron path against a fake torch_neuronx injected at the module boundary (tests/fakes)."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path
from typing import Any

import pytest
import torch
from torch.profiler import ProfilerActivity

from neurontui.capture import backends, worker
from neurontui.capture.probe import probe
from neurontui.capture.spec import CaptureSpec, Schedule

FAKES = Path(__file__).parent / "fakes"
SCHEDULE = Schedule(wait=1, warmup=1, active=3, repeat=1)


class RecordingChannel:
    """Collects the worker's progress events instead of writing them to stdout."""

    def __init__(self) -> None:
        self.phases: list[str] = []

    def emit(self, phase: str, step: int | None = None, steps: int | None = None, message: str = "") -> None:
        self.phases.append(phase)


@pytest.fixture
def fake_neuronx(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Import the fake torch_neuronx (which attaches torch.neuron) and log every prof.step() next to its calls."""
    for name in ("torch_neuronx", "torch_neuronx.profiling"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(torch, "neuron", None, raising=False)
    monkeypatch.syspath_prepend(str(FAKES))
    import torch_neuronx

    torch_neuronx.calls.clear()
    real_step = torch.profiler.profile.step

    def logged_step(self: Any) -> None:
        torch_neuronx.calls.append(("step", None))
        real_step(self)

    monkeypatch.setattr(torch.profiler.profile, "step", logged_step)
    return torch_neuronx


@pytest.fixture
def fake_explorer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `neuron-explorer` on PATH that records its arguments and writes an output directory."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "explorer-args.json"
    script = bin_dir / "neuron-explorer"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        f"json.dump(sys.argv[1:], open({str(log)!r}, 'w'))\n"
        "out = sys.argv[sys.argv.index('--output-file') + 1]\n"
        "os.makedirs(out)\n"
        "open(os.path.join(out, 'SystemProfileEvents.parquet'), 'wb').close()\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}:{Path(sys.executable).parent}:/usr/bin:/bin")
    return log


def test_auto_picks_neuron_when_torch_neuronx_and_a_device_are_present(fake_neuronx: Any) -> None:
    assert backends.availability()["neuron"] == ""
    chosen = backends.select("auto")
    assert chosen.name == "neuron"
    assert chosen.device_name() == "Fake NeuronCore-v2"
    assert chosen.versions()["torch_neuronx"] == "0.0+fake"


def test_neuron_is_unavailable_with_a_reason_without_torch_neuronx(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch_neuronx", None)  # import raises ImportError, like the PyPI stub
    assert "torch_neuronx is not importable" in backends.availability()["neuron"]
    assert backends.resolve_name("auto") in ("cuda", "cpu")


# CPU torch has no PrivateUse1 backend registered, so the profiler warns about the activity we ask for.
@pytest.mark.filterwarnings("ignore:The privateuseone is not a valid device option")
def test_neuron_capture_configures_profiler_and_synchronizes_before_every_step(
    fake_neuronx: Any, fake_explorer: Path, tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    backend = backends.NeuronBackend(fake_neuronx, device="cpu")  # tensors on the host, all else the Neuron path
    channel = RecordingChannel()
    worker.capture("naive", backend, CaptureSpec(shape=(4, 64), schedule=SCHEDULE), run_dir, channel)

    calls = fake_neuronx.calls
    names = [name for name, _ in calls]
    (config,) = [info for name, info in calls if name == "NeuronConfig"]
    assert config["modes"] == [fake_neuronx.profiling.ProfileMode.DEVICE, fake_neuronx.profiling.ProfileMode.RUNTIME]
    assert config["profile_output_dir"].startswith(str(run_dir))
    assert config["correlate_device_time"] is True
    (export,) = [info for name, info in calls if name == "export_trace"]
    assert export["activities"] == {ProfilerActivity.CPU, ProfilerActivity.PrivateUse1}

    # Between the profiler's creation and each prof.step() the device must have been synchronized.
    in_loop = names[names.index("NeuronConfig") :]
    assert in_loop.count("step") == SCHEDULE.total_steps
    previous = 0
    for index, name in enumerate(in_loop):
        if name == "step":
            assert "synchronize" in in_loop[previous:index], f"step at {index} not preceded by synchronize"
            previous = index

    assert channel.phases[-1] == "exporting"
    profile_dir = run_dir / backends.NEURON_PROFILE_DIR
    (raw_trace,) = profile_dir.rglob("trace.json")
    assert (run_dir / "trace.json").read_bytes() == raw_trace.read_bytes()
    assert (run_dir / "key_averages.csv").exists()
    args = json.loads(fake_explorer.read_text())
    assert args[:3] == ["view", "-d", str(raw_trace.parent)]
    assert args[3:5] == ["--output-format", "parquet"]
    assert (run_dir / backends.EXPLORER_DIR / "SystemProfileEvents.parquet").exists()
    result = json.loads((run_dir / worker.RESULT_FILE).read_text())
    assert result["device"] == "Fake NeuronCore-v2" and result["correct"] is True
    assert not list(run_dir.rglob("*.partial"))


def test_the_probe_child_finds_the_fake_neuron_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(FAKES))
    checked = probe("auto", ["naive"])
    assert checked.backend == "neuron" and checked.reasons["neuron"] == "" and not checked.error
    assert [impl.name for impl in checked.builtins] == ["naive", "fused", "compiled", "kernel"]
    assert checked.requested[0].spec == "naive"
