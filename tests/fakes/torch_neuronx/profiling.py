"""Fake `torch_neuronx.profiling`: NeuronConfig and NeuronProfiler that record their arguments."""

from __future__ import annotations

import enum
import os
from pathlib import Path
from typing import Any

from torch._C._profiler import _ExperimentalConfig

from torch_neuronx import calls


class ProfileMode(enum.Enum):
    DEVICE = "device"
    RUNTIME = "runtime"
    CPU_UTIL = "cpu_util"
    HOST_MEMORY = "host_memory"


class NeuronConfig(_ExperimentalConfig):
    """Subclasses the real experimental config, as torch.profiler only accepts that type."""

    def __init__(
        self,
        modes: list[ProfileMode] | None = None,
        profile_output_dir: str | None = None,
        max_events_per_nc: int | None = None,
        correlate_device_time: bool = False,
    ) -> None:
        super().__init__()
        self.kwargs = {
            "modes": modes,
            "profile_output_dir": profile_output_dir,
            "max_events_per_nc": max_events_per_nc,
            "correlate_device_time": correlate_device_time,
        }
        calls.append(("NeuronConfig", self.kwargs))


class NeuronProfiler:
    """Writes the raw capture layout TorchNeuron uses: <dir>/<instance>_pid_<pid>/<timestamp>/trace.json."""

    def __init__(self, config: NeuronConfig) -> None:
        self.config = config

    def export_trace(self, prof: Any) -> None:
        calls.append(("export_trace", {"activities": set(prof.activities)}))
        capture = Path(self.config.kwargs["profile_output_dir"]) / f"i-0fake_pid_{os.getpid()}" / "20261202T183000"
        capture.mkdir(parents=True, exist_ok=True)
        prof.export_chrome_trace(str(capture / "trace.json"))
        (capture / "ntrace.pb").write_bytes(b"")
