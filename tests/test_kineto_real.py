"""The Kineto reader on real traces recorded by others (tests/data, HTA, MIT)."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from neurontui.formats.kineto import load_kineto
from neurontui.model import BUSY, Lane

DATA = Path(__file__).parent / "data"
REAL_TRACES = sorted(DATA.glob("*.json.gz"))

# The DESIGN.md lane table, restated here independently of neurontui.formats.lanemap.
EXPECTED_LANE = {
    "cpu_op": "framework", "user_annotation": "framework", "python_function": "framework",
    "privateuse1_runtime": "framework",
    "privateuse1_driver": "device", "cuda_runtime": "device", "runtime": "device", "mtia_runtime": "device",
    "cuda_driver": "runtime",
    "kernel": "hardware", "gpu_memcpy": "hardware", "gpu_memset": "hardware", "cuda_profiler_range": "hardware",
    "cuda_sync": "hardware", "gpu_user_annotation": "hardware", "mtia_ccp_events": "hardware",
}  # fmt: skip


def _json_events(path: Path) -> list[dict]:
    data = json.loads(gzip.decompress(path.read_bytes()))
    return data["traceEvents"] if isinstance(data, dict) else data


def _lane_counts(trace) -> Counter:
    lanes = np.array([t.lane for t in trace.tracks])[trace.events.track]
    return Counter({Lane(int(k)).label: int(v) for k, v in zip(*np.unique(lanes, return_counts=True))})


def test_every_real_trace_is_present():
    assert len(REAL_TRACES) == 9


@pytest.mark.parametrize("path", REAL_TRACES, ids=lambda p: p.name)
def test_lane_counts_match_an_independent_json_count(path):
    expected = Counter()
    for e in _json_events(path):
        if e.get("ph") == "X":
            expected[EXPECTED_LANE.get(str(e.get("cat", "")).lower(), "other")] += 1
    trace = load_kineto(path)
    assert _lane_counts(trace) == expected
    assert len(trace.events) == sum(expected.values()), "every complete event lands in exactly one lane"


@pytest.mark.parametrize("path", REAL_TRACES, ids=lambda p: p.name)
def test_rows_never_overlap_and_events_are_sorted(path):
    trace = load_kineto(path)
    ev = trace.events
    for row in trace.rows:
        s, e = ev.start[row.lo : row.hi], ev.end[row.lo : row.hi]
        assert np.all(np.diff(s) >= 0)
        assert np.all(s[1:] >= e[:-1]), f"overlap in {trace.tracks[row.track].name} depth {row.depth}"
        assert np.all(ev.row[row.lo : row.hi] == row.id)
    assert np.all(ev.end >= ev.start)


def test_epoch_time_uses_base_time_nanoseconds():
    path = DATA / "cuda_triton_example.json.gz"
    raw = json.loads(gzip.decompress(path.read_bytes()))
    first = min((e for e in raw["traceEvents"] if e.get("ph") == "X"), key=lambda e: e["ts"])
    trace = load_kineto(path)
    expected = raw["baseTimeNanoseconds"] + round(first["ts"] * 1000)
    assert trace.window[0] == expected
    assert trace.meta["time_base"] == "baseTimeNanoseconds + ts"


def test_trace_without_base_time_says_so():
    trace = load_kineto(DATA / "cuda_alexnet.json.gz")
    assert any("baseTimeNanoseconds" in w for w in trace.warnings)


def test_links_follow_external_id_and_correlation():
    trace = load_kineto(DATA / "cuda_alexnet.json.gz")
    ev = trace.events
    lanes = np.array([t.lane for t in trace.tracks])[ev.track]
    # every kernel with a correlation id has its launching runtime call upstream
    kernels = np.flatnonzero((lanes == Lane.HARDWARE) & (ev.corr >= 0) & ((ev.flags & BUSY) != 0))
    assert len(kernels) > 0
    for k in kernels[:50]:
        ups = trace.links.upstream(int(k))
        assert any(lanes[u] == Lane.DEVICE and ev.corr[u] == ev.corr[k] for u in ups)
    # and runtime calls hang under the cpu_op with the same External id
    launches = [int(i) for i in np.flatnonzero((lanes == Lane.DEVICE) & (ev.ext >= 0))[:50]]
    linked = [i for i in launches if any(lanes[u] == Lane.FRAMEWORK for u in trace.links.upstream(i))]
    assert linked, "cpu_op -> cuda_runtime links from External id"
    for i in linked:
        assert all(ev.ext[u] == ev.ext[i] for u in trace.links.upstream(i) if lanes[u] == Lane.FRAMEWORK)


def test_old_async_gpu_flows_link_runtime_to_kernel():
    trace = load_kineto(DATA / "old_categories_inference_rank_1.json.gz")
    lanes = np.array([t.lane for t in trace.tracks])
    src_lane = lanes[trace.events.track[trace.links.src]]
    dst_lane = lanes[trace.events.track[trace.links.dst]]
    assert np.any((src_lane == Lane.DEVICE) & (dst_lane == Lane.HARDWARE))


def test_profiler_steps_become_windows():
    trace = load_kineto(DATA / "cuda_sampled_rank0.json.gz")
    raw = _json_events(DATA / "cuda_sampled_rank0.json.gz")
    names = {e["name"] for e in raw if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")}
    assert len(trace.steps) == len(names) > 0
    assert np.all(trace.steps[:, 1] > trace.steps[:, 0])


def test_not_busy_categories_are_drawn_but_not_busy():
    trace = load_kineto(DATA / "cuda_alexnet.json.gz")
    sync = trace.categories.index("cuda_sync")
    mask = trace.events.cat == sync
    assert mask.any()
    assert not np.any(trace.events.flags[mask] & BUSY)


def test_args_are_decoded_on_demand():
    trace = load_kineto(DATA / "cuda_alexnet.json.gz")
    i = int(np.flatnonzero(trace.events.corr >= 0)[0])
    args = trace.event(i).args()
    assert args.get("correlation") == int(trace.events.corr[i])


def test_mtia_accelerator_lanes():
    trace = load_kineto(DATA / "mtia_inference_rank_0.json.gz")
    counts = _lane_counts(trace)
    assert counts["device"] == 823 and counts["hardware"] == 1313
    assert trace.execution_lane() == Lane.HARDWARE
