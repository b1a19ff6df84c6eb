"""The committed SYNTHETIC Trn1 samples load with four lanes and show what the hardware does per implementation."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from neurontui.formats.discover import RUN, find_captures, load_capture
from neurontui.model import Lane

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_traces" / "trn1-rmsnorm-synthetic"
IMPLS = ("naive", "fused", "compiled")
FOUR = (Lane.FRAMEWORK, Lane.DEVICE, Lane.RUNTIME, Lane.HARDWARE)


def executions_per_step(trace) -> float:
    starts = trace.events.start[trace.find_names("nc_exec_running")]
    per_step = [int(((starts >= s) & (starts < e)).sum()) for s, e in trace.steps.tolist()]
    return float(np.mean(per_step))


@pytest.fixture(scope="module")
def traces() -> dict:
    return {impl: load_capture(SAMPLES / impl) for impl in IMPLS}


def test_samples_are_found_as_synthetic_runs() -> None:
    captures = find_captures(SAMPLES)
    assert [c.path.name for c in captures] == sorted(IMPLS)
    assert all(c.kind == RUN and c.synthetic and c.lanes == FOUR for c in captures)


@pytest.mark.parametrize("impl", IMPLS)
def test_each_sample_has_four_non_empty_lanes(traces: dict, impl: str) -> None:
    trace = traces[impl]
    assert all(trace.lane_mask(lane).sum() > 0 for lane in FOUR)
    assert trace.lane_mask(Lane.OTHER).sum() == 0
    assert trace.meta["synthetic"] is True and not trace.warnings
    assert len(trace.steps) == 5
    assert all(t.n_rows > 0 for t in trace.tracks)  # no empty track from the export's skipped lanes
    assert trace.meta["summary_metrics"][0]["synthetic"] is True
    names = {t.name for t in trace.lane_tracks(Lane.HARDWARE)}
    assert {"NC0 exec", "NC0 Vector", "NC0 Scalar", "NC0 DMA qSyncIO0"} <= names
    # Every device execution is linked from its framework op down to the hardware.
    op = trace.event(trace.find_names("nrt_execute_submit")[0])
    (runtime,) = [e for e in op.downstream() if e.lane == Lane.RUNTIME]
    assert [e.name for e in runtime.downstream()] == ["nc_exec_running"]


def test_naive_issues_more_device_executions_per_step(traces: dict) -> None:
    naive, fused, compiled = (executions_per_step(traces[i]) for i in IMPLS)
    assert naive == 6 and fused == 1 and compiled == 1


def test_engine_work_stays_inside_execution_windows(traces: dict) -> None:
    for trace in traces.values():
        windows = trace.events.start[trace.find_names("nc_exec_running")], trace.events.end[trace.find_names("nc_exec_running")]
        ws, we = np.sort(windows[0]), np.sort(windows[1])
        engine = np.flatnonzero(np.isin(trace.events.cat, [trace.categories.index("instruction"), trace.categories.index("dma")]))
        k = np.searchsorted(ws, trace.events.start[engine], side="right") - 1
        assert np.all(k >= 0) and np.all(trace.events.end[engine] <= we[k])


def test_generator_is_deterministic(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("make_trn1_samples", ROOT / "scripts" / "make_trn1_samples.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the script loads
    spec.loader.exec_module(module)
    module.write_implementation(tmp_path, "fused")
    for path in (SAMPLES / "fused").rglob("*"):
        if path.is_file():
            assert (tmp_path / "fused" / path.relative_to(SAMPLES / "fused")).read_bytes() == path.read_bytes(), path
    manifest = json.loads((tmp_path / "fused" / "manifest.json").read_text())
    assert manifest["synthetic"] is True and manifest["backend"] == "neuron"


def test_samples_stay_small() -> None:
    assert sum(p.stat().st_size for p in SAMPLES.rglob("*") if p.is_file()) < 3_000_000
