"""The op table: host self/total against the profiler's key_averages.csv, device attribution on a built trace."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from neurontui.analysis.ops import check_against_profiler, op_table, read_key_averages
from neurontui.formats.kineto import load_kineto
from neurontui.model.builder import TraceBuilder
from neurontui.model.lanes import Lane

CPU_RUNS = Path(__file__).resolve().parent.parent / "sample_traces" / "cpu-rmsnorm"


@pytest.mark.parametrize("impl", ["naive", "fused", "compiled"])
def test_host_times_agree_with_key_averages(impl):
    run = CPU_RUNS / impl
    rows = op_table(load_kineto(run / "trace.json"))
    profiler = read_key_averages(run / "key_averages.csv")
    checks = check_against_profiler(rows, profiler, tolerance=0.05, abs_tolerance_ns=0)
    host = [c for c in checks if c.column in ("calls", "host_total", "host_self")]
    assert {c.name for c in host} == set(profiler)  # every profiler op is matched, ProfilerStep* included
    assert [c for c in host if not c.agrees] == []


def build_nested():
    """outer (0-100) holds inner (10-40); inner launches k1 via a linked launch, outer launches k2 unlinked."""
    b = TraceBuilder(path="nested", source="test")
    op, rt, kern = b.category("cpu_op"), b.category("cuda_runtime"), b.category("kernel")
    fw = b.track(Lane.FRAMEWORK, "framework:1:1", "thread 1")
    dev = b.track(Lane.DEVICE, "device:1:1", "thread 1")
    hw = b.track(Lane.HARDWARE, "hardware:0:7", "stream 7")
    n = b.names.intern
    ops = b.add_events(np.array([0, 10, 50, 52]), np.array([100, 40, 70, 60]), fw,
                       np.array([n("outer"), n("inner"), n("div_"), n("div_")]), op)
    launches = b.add_events(np.array([20, 45, 30]), np.array([25, 48, 32]), dev, n("cudaLaunchKernel"), rt)
    kernels = b.add_events(np.array([200, 300, 400]), np.array([230, 350, 401]), hw, n("k"), kern)
    b.add_links(np.array([ops + 1, launches, launches + 1, launches + 2]),
                np.array([launches, kernels, kernels + 1, kernels + 2]))
    b.add_links(np.array([ops + 1]), np.array([launches + 2]))  # inner also owns the third launch
    return b.build()


def test_device_time_goes_to_the_op_holding_the_launch():
    rows = {r.name: r for r in op_table(build_nested())}
    inner, outer = rows["inner"], rows["outer"]
    assert (inner.device_self_ns, inner.dispatches) == (31, 2)
    # The launch at 45 has no framework link: the innermost op around it on its thread (outer) gets it.
    assert (outer.device_self_ns, outer.dispatches) == (50, 1)
    assert outer.device_total_ns == 81  # its own 50 plus inner's 31, each kernel once
    assert outer.host_self_ns == 100 - 30 - 20 and inner.host_self_ns == 30


def test_only_child_with_the_parents_name_folds_into_it():
    rows = {r.name: r for r in op_table(build_nested())}
    assert (rows["div_"].calls, rows["div_"].host_total_ns, rows["div_"].host_self_ns) == (1, 20, 20)


def test_disagreement_is_flagged():
    rows = op_table(build_nested())
    checks = check_against_profiler(rows, {"inner": {"calls": 1, "host_total": 30, "host_self": 30,
                                                     "device_total": 31, "device_self": 60}}, 0.05, 0)
    assert [(c.column, c.agrees) for c in checks if not c.agrees] == [("device_self", False)]
