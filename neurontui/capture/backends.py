"""Devices to capture on (neuron, cuda, cpu): placement, synchronization and profiler wiring for each."""

from __future__ import annotations

import inspect
import os
import platform
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Protocol

import torch
from torch.profiler import ProfilerActivity

from neurontui.capture.atomic import partial_path
from neurontui.errors import UserError

BACKEND_NAMES = ("neuron", "cuda", "cpu")
NEURON_PROFILE_DIR = "neuron_profile"
EXPLORER_DIR = "explorer"
TRACE_FILE = "trace.json"


@dataclass(frozen=True)
class ProfilerHooks:
    """The experimental config and on_trace_ready handler handed to torch.profiler.profile."""

    experimental_config: Any
    on_trace_ready: Callable[[Any], None]


class Backend(Protocol):
    """What the profiling loop needs from a device, so one loop serves Neuron, CUDA and CPU."""

    name: str
    device: torch.device | str
    activities: list[ProfilerActivity]

    def device_name(self) -> str: ...

    def synchronize(self) -> None: ...

    def compile_backend(self) -> tuple[str | None, str]: ...

    def versions(self) -> dict[str, str | None]: ...

    def profiler_hooks(self, run_dir: Path) -> ProfilerHooks: ...

    def finish(self, run_dir: Path) -> list[str]: ...


class ChromeTraceExport:
    """on_trace_ready for CPU/CUDA: each recorded cycle becomes trace.json (then trace-2.json, …), renamed into place."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.cycles = 0

    def __call__(self, prof: Any) -> None:
        self.cycles += 1
        final = self.run_dir / (TRACE_FILE if self.cycles == 1 else f"trace-{self.cycles}.json")
        tmp = partial_path(final)
        prof.export_chrome_trace(str(tmp))
        os.replace(tmp, final)


class CpuBackend:
    """The host CPU: always present, inductor needs a C++ compiler on PATH."""

    name = "cpu"
    device = torch.device("cpu")
    activities = [ProfilerActivity.CPU]

    def device_name(self) -> str:
        try:
            with open("/proc/cpuinfo", encoding="utf-8") as handle:
                for line in handle:
                    if line.startswith("model name"):
                        return line.split(":", 1)[1].strip()
        except OSError:
            pass
        return platform.processor() or "cpu"

    def synchronize(self) -> None:
        """Host execution is already synchronous."""

    def compile_backend(self) -> tuple[str | None, str]:
        if any(shutil.which(cxx) for cxx in ("g++", "c++", "clang++")):
            return "inductor", ""
        return None, "inductor on CPU needs a C++ compiler (g++, c++ or clang++) on PATH"

    def versions(self) -> dict[str, str | None]:
        return {"torch": torch.__version__, "torch_neuronx": None}

    def profiler_hooks(self, run_dir: Path) -> ProfilerHooks:
        return ProfilerHooks(None, ChromeTraceExport(run_dir))

    def finish(self, run_dir: Path) -> list[str]:
        return []


class CudaBackend(CpuBackend):
    """An NVIDIA (or ROCm) GPU through torch.cuda."""

    name = "cuda"
    device = torch.device("cuda")
    activities = [ProfilerActivity.CPU, ProfilerActivity.CUDA]

    def device_name(self) -> str:
        return torch.cuda.get_device_name(self.device)

    def synchronize(self) -> None:
        torch.cuda.synchronize()


class NeuronBackend:
    """A NeuronCore through TorchNeuron (PrivateUse1), profiled with NeuronConfig and NeuronProfiler."""

    name = "neuron"
    activities = [ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]

    def __init__(self, torch_neuronx: ModuleType, device: torch.device | str = "neuron") -> None:
        self.torch_neuronx = torch_neuronx
        self.device = device  # a string: "neuron" names a device only once TorchNeuron has registered it

    def device_name(self) -> str:
        neuron = torch.neuron  # type: ignore[attr-defined]
        get_name = getattr(neuron, "get_device_name", None)
        if callable(get_name):
            return str(get_name())
        count = getattr(neuron, "device_count", lambda: 1)()
        return f"NeuronCore x{count}"

    def synchronize(self) -> None:
        torch.neuron.synchronize()  # type: ignore[attr-defined]

    def compile_backend(self) -> tuple[str | None, str]:
        import torch._dynamo

        names = [name for name in torch._dynamo.list_backends(exclude_tags=()) if "neuron" in name]
        if not names:
            return None, "no TorchNeuron torch.compile backend is registered"
        return ("neuron" if "neuron" in names else names[0]), ""

    def versions(self) -> dict[str, str | None]:
        return {"torch": torch.__version__, "torch_neuronx": getattr(self.torch_neuronx, "__version__", None)}

    def profiler_hooks(self, run_dir: Path) -> ProfilerHooks:
        from torch_neuronx.profiling import NeuronConfig, NeuronProfiler, ProfileMode

        kwargs: dict[str, Any] = {
            "modes": [ProfileMode.DEVICE, ProfileMode.RUNTIME],
            "profile_output_dir": str(partial_path(run_dir / NEURON_PROFILE_DIR)),
        }
        if "correlate_device_time" in _parameters(NeuronConfig):
            kwargs["correlate_device_time"] = True
        config = NeuronConfig(**kwargs)
        return ProfilerHooks(config, NeuronProfiler(config).export_trace)

    def finish(self, run_dir: Path) -> list[str]:
        """Publish the profile directory, copy its Kineto trace to trace.json and run the Explorer export."""
        profile_dir = run_dir / NEURON_PROFILE_DIR
        os.replace(partial_path(profile_dir), profile_dir)
        trace = _newest_framework_trace(profile_dir)
        if trace is None:
            raise RuntimeError(f"NeuronProfiler wrote no Kineto trace under {profile_dir}")
        tmp = partial_path(run_dir / TRACE_FILE)
        shutil.copyfile(trace, tmp)
        os.replace(tmp, run_dir / TRACE_FILE)
        return _explorer_export(trace.parent, run_dir / EXPLORER_DIR)


def _parameters(callable_: Any) -> set[str]:
    """Parameter names of a callable, empty when it cannot be introspected (e.g. a C extension)."""
    try:
        return set(inspect.signature(callable_).parameters)
    except (TypeError, ValueError):
        return set()


def _newest_framework_trace(profile_dir: Path) -> Path | None:
    candidates = [*profile_dir.rglob(TRACE_FILE), *profile_dir.rglob("neuron_framework_trace_rank_*.json")]
    return max(candidates, key=lambda path: path.stat().st_mtime, default=None)


def _explorer_export(capture_dir: Path, out_dir: Path) -> list[str]:
    """Convert the raw capture to Parquet with neuron-explorer when it is installed; notes say what happened."""
    explorer = shutil.which("neuron-explorer")
    if explorer is None:
        return ["neuron-explorer is not on PATH; no Parquet export was made"]
    tmp = partial_path(out_dir)
    command = [explorer, "view", "-d", str(capture_dir), "--output-format", "parquet", "--output-file", str(tmp)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0 or not tmp.exists():
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or [f"exit code {done.returncode}"]
        shutil.rmtree(tmp, ignore_errors=True)
        return [f"neuron-explorer export failed: {tail[0]}"]
    os.replace(tmp, out_dir)
    return []


def _import_torch_neuronx() -> tuple[ModuleType | None, str]:
    try:
        import torch_neuronx
    except ImportError as exc:
        return None, f"torch_neuronx is not importable ({exc})"
    neuron = getattr(torch, "neuron", None)
    if neuron is None:
        return None, "torch_neuronx did not register the torch.neuron module"
    count = neuron.device_count() if hasattr(neuron, "device_count") else int(bool(neuron.is_available()))
    if count < 1:
        return None, "no Neuron device is present"
    return torch_neuronx, ""


def availability() -> dict[str, str]:
    """Each backend name mapped to "" when usable here, else the reason it is not."""
    _, neuron_reason = _import_torch_neuronx()
    cuda_reason = "" if torch.cuda.is_available() else "torch.cuda reports no GPU"
    return {"neuron": neuron_reason, "cuda": cuda_reason, "cpu": ""}


def resolve_name(name: str) -> str:
    """Turn `auto` into the first usable of neuron, cuda, cpu, and check that a named backend is usable."""
    reasons = availability()
    if name == "auto":
        return next(backend for backend in BACKEND_NAMES if not reasons[backend])
    if name not in reasons:
        raise UserError(f"unknown backend '{name}'; choose auto, {', '.join(BACKEND_NAMES)}.")
    if reasons[name]:
        raise UserError(f"backend '{name}' is not available: {reasons[name]}.")
    return name


def select(name: str) -> Backend:
    """The backend object for a name (or `auto`), raising UserError when it is not usable."""
    resolved = resolve_name(name)
    if resolved == "neuron":
        module, _ = _import_torch_neuronx()
        assert module is not None
        return NeuronBackend(module)
    return CudaBackend() if resolved == "cuda" else CpuBackend()
