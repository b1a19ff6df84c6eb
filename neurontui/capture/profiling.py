"""The profiled loop: schedule, one labelled step per call, device synchronized before every prof.step()."""

from __future__ import annotations

import csv
import time
from pathlib import Path
from typing import Any, Callable

import torch
from torch.profiler import profile, record_function, schedule

from neurontui.capture.atomic import partial_path
from neurontui.capture.backends import Backend
from neurontui.capture.implementations import RMSNormFn
from neurontui.capture.spec import CaptureSpec

KEY_AVERAGES_FILE = "key_averages.csv"
KEY_AVERAGES_COLUMNS = ("name", "calls", "self_host_us", "total_host_us", "self_device_us", "total_device_us")

Report = Callable[[str, int, int], None]


def profile_loop(
    fn: RMSNormFn,
    inputs: tuple[torch.Tensor, torch.Tensor, float],
    backend: Backend,
    spec: CaptureSpec,
    run_dir: Path,
    label: str,
    report: Report,
) -> Any:
    """Run fn under the profiler for the whole schedule and return the finished profiler.

    Each recorded cycle writes its trace and, beside it, the key_averages() of that same cycle:
    read after the loop, key_averages() would describe the last cycle while trace.json holds the first.
    """
    sched = spec.schedule
    hooks = backend.profiler_hooks(run_dir)
    cycles = 0

    def on_trace_ready(prof: Any) -> None:
        nonlocal cycles
        cycles += 1
        hooks.on_trace_ready(prof)
        write_key_averages(prof, run_dir, cycles)

    with profile(
        activities=backend.activities,
        schedule=schedule(wait=sched.wait, warmup=sched.warmup, active=sched.active, repeat=sched.repeat),
        on_trace_ready=on_trace_ready,
        experimental_config=hooks.experimental_config,
        record_shapes=spec.record_shapes,
        with_stack=spec.with_stack,
    ) as prof:
        for step in range(sched.total_steps):
            report(sched.phase(step), step + 1, sched.total_steps)
            with record_function(label):
                fn(*inputs)
            backend.synchronize()
            prof.step()
    return prof


def key_averages_path(run_dir: Path, cycle: int = 1) -> Path:
    """key_averages.csv for the first recorded cycle, key_averages-N.csv for cycle N (as trace.json, trace-N.json)."""
    return run_dir / (KEY_AVERAGES_FILE if cycle == 1 else f"key_averages-{cycle}.csv")


def write_key_averages(prof: Any, run_dir: Path, cycle: int = 1) -> None:
    """key_averages() as CSV (µs), reading the device column under whichever name this PyTorch uses."""
    path = key_averages_path(run_dir, cycle)
    tmp = partial_path(path)
    with open(tmp, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(KEY_AVERAGES_COLUMNS)
        for event in prof.key_averages():
            writer.writerow(
                (
                    event.key,
                    event.count,
                    _us(event, "self_cpu_time_total"),
                    _us(event, "cpu_time_total"),
                    _us(event, "self_device_time_total", "self_privateuse1_time_total", "self_cuda_time_total"),
                    _us(event, "device_time_total", "privateuse1_time_total", "cuda_time_total"),
                )
            )
    tmp.replace(path)


def _us(event: Any, *names: str) -> float:
    for name in names:
        value = getattr(event, name, None)
        if value is not None:
            return round(float(value), 3)
    return 0.0


def timed(action: Callable[[], Any]) -> tuple[Any, float]:
    """Run an action and return its result with its wall time in seconds."""
    start = time.perf_counter()
    result = action()
    return result, time.perf_counter() - start
