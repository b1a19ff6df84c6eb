"""Runs side by side: per-step device busy time, dispatches, host time, gaps by cause, correctness, speedup.

Every figure is per step window (ProfilerStep markers, else the whole trace as one
window) and states its lane and thresholds. On a CPU-only run the execution lane
is empty, so the framework ops (step markers excluded) stand in for the device:
the "device" of a CPU backend is the host, and the row says so in `lane`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from neurontui.analysis.gaps import GapSettings, analyse_gaps, gap_totals, sync_mask
from neurontui.analysis.ownership import framework_ownership
from neurontui.model import intervals
from neurontui.model.lanes import Lane
from neurontui.model.trace import BUSY, Trace

BASELINE_IMPL = "naive"
HOST_STANDS_IN = "framework (CPU run: host ops stand in for the device)"


@dataclass(frozen=True)
class RunInput:
    """One run to compare: its trace plus what its capture manifest says (when there is one)."""

    name: str
    trace: Trace
    impl: str | None = None
    manifest: dict[str, Any] | None = None


@dataclass(frozen=True)
class RunFigures:
    """One run's figures, per step window unless the name says otherwise."""

    name: str
    impl: str | None
    lane: str
    steps: int
    window_ns_per_step: float
    device_busy_ns_per_step: float
    device_busy_ns_by_step: list[int]
    utilization: float  # busy / window, 0..1
    dispatches_per_step: float
    executions_per_step: float
    host_ns_per_step: float
    gap_count: int  # interior gaps above the noise floor, all steps
    gap_ns_per_step: float
    gap_largest_ns: int
    gap_by_cause_ns: dict[str, int]
    edge_idle_ns_per_step: float  # leading + trailing holes, reported apart
    correct: bool | None
    max_abs_error: float | None
    measured_over: str  # the lane and windows the figures were measured over (the thresholds are the Comparison's)
    summary_metrics: list[dict[str, Any]] = field(default_factory=list)  # Neuron export Summary rows (MFU, HFU, MBU)
    speedup: float | None = None  # baseline device busy per step / this run's
    synthetic: bool = False  # generated sample data, not a measurement


@dataclass(frozen=True)
class Comparison:
    """All runs' figures against one baseline."""

    baseline: str
    settings: GapSettings
    runs: list[RunFigures]

    @property
    def synthetic_note(self) -> str:
        """A warning naming the runs that hold generated, not measured, data ('' when none do)."""
        names = [r.name for r in self.runs if r.synthetic]
        return f"SYNTHETIC (not measured on hardware): {', '.join(names)}" if names else ""

    def window(self, run: RunFigures) -> str:
        """The window, lane and thresholds of one run's figures in one line."""
        return f"{run.measured_over}; {self.settings.describe()}"

    def to_json(self) -> dict[str, Any]:
        """The script contract: baseline name, thresholds and one object per run."""
        return {
            "baseline": self.baseline,
            "thresholds": self.settings.describe(),
            "noise_floor_ns": self.settings.noise_floor_ns,
            "runs": [{**_run_json(r), "window": self.window(r)} for r in self.runs],
        }


def compare_runs(runs: list[RunInput], baseline: str | None = None, settings: GapSettings | None = None) -> Comparison:
    """Figures per run and speedups against the baseline (the named run, else naive, else the first)."""
    settings = settings or GapSettings()
    figures = [run_figures(r, settings) for r in runs]
    if not figures:
        return Comparison("", settings, [])
    base = _pick_baseline(figures, baseline)
    ref = base.device_busy_ns_per_step
    out = [
        replace(f, speedup=ref / f.device_busy_ns_per_step if f.device_busy_ns_per_step > 0 and ref > 0 else None)
        for f in figures
    ]
    return Comparison(base.name, settings, out)


def run_figures(run: RunInput, settings: GapSettings) -> RunFigures:
    """One run's per-step figures on its execution lane (framework ops on CPU-only runs)."""
    trace = run.trace
    windows = trace.step_windows()
    steps = len(windows)
    per = max(steps, 1)
    span = int(np.sum(windows[:, 1] - windows[:, 0])) if steps else 0
    own = framework_ownership(trace)
    host_s, host_e = intervals.union(own.start, own.end)
    host_by_step = [intervals.total(*intervals.clip(host_s, host_e, a, b)) for a, b in windows.tolist()]
    host = sum(host_by_step)
    lane = trace.execution_lane()
    report = analyse_gaps(trace, settings, lane=lane)
    if trace.has_busy(lane):
        by_step = report.busy_ns.tolist()
        lane_label = lane.label
        totals = gap_totals(report.gaps)
        measured_over = report.measured_over()
    else:
        by_step = host_by_step
        lane_label = HOST_STANDS_IN
        totals = gap_totals([])
        measured_over = f"framework ops (step markers excluded) over {steps} window(s)"
    busy = sum(by_step)
    dispatches, executions = _dispatches(trace, lane, windows)
    manifest = run.manifest or {}
    correctness = manifest.get("correctness") or {}
    correct = manifest.get("correct", correctness.get("correct"))
    return RunFigures(
        name=run.name,
        impl=run.impl,
        lane=lane_label,
        steps=steps,
        window_ns_per_step=span / per,
        device_busy_ns_per_step=busy / per,
        device_busy_ns_by_step=[int(b) for b in by_step],
        utilization=busy / span if span else 0.0,
        dispatches_per_step=dispatches / per,
        executions_per_step=executions / per,
        host_ns_per_step=host / per,
        gap_count=int(totals["count"]),
        gap_ns_per_step=int(totals["total_ns"]) / per,
        gap_largest_ns=int(totals["largest_ns"]),
        gap_by_cause_ns=dict(totals["by_cause_ns"]),
        edge_idle_ns_per_step=(int(totals["leading_ns"]) + int(totals["trailing_ns"])) / per,
        correct=correct if isinstance(correct, bool) else None,
        max_abs_error=_number(correctness.get("max_abs_error")),
        measured_over=measured_over,
        summary_metrics=_summary_rows(trace.meta.get("summary_metrics")),
        synthetic=bool(trace.meta.get("synthetic")),  # discover puts the manifest's marker there
    )


def _dispatches(trace: Trace, lane: Lane, windows: np.ndarray) -> tuple[int, int]:
    """Device dispatches (launch calls that reach the device) and execution starts inside the windows."""
    ev = trace.events
    busy = (ev.flags & BUSY) != 0
    execs = trace.lane_mask(lane) & busy & (ev.end > ev.start) if trace.has_busy(lane) else np.zeros(len(ev), bool)
    device = trace.lane_mask(Lane.DEVICE) & busy & ~sync_mask(trace)
    if lane != Lane.DEVICE and len(trace.links):
        reaches = np.zeros(len(ev), dtype=bool)
        reaches[trace.links.src[execs[trace.links.dst]]] = True
        launches = device & reaches
        if not launches.any():  # no links into the device: every device call counts
            launches = device
    else:
        launches = device
    if len(trace.links):  # count launched executions, not the instructions and DMA beneath them
        launched = np.zeros(len(ev), dtype=bool)
        launched[trace.links.dst[~execs[trace.links.src]]] = True
        if (execs & launched).any():
            execs &= launched
    return _starts_inside(ev.start[launches], windows), _starts_inside(ev.start[execs], windows)


def _starts_inside(starts: np.ndarray, windows: np.ndarray) -> int:
    s = np.sort(starts)
    return int(sum(np.searchsorted(s, b, "left") - np.searchsorted(s, a, "left") for a, b in windows.tolist()))


def _pick_baseline(figures: list[RunFigures], baseline: str | None) -> RunFigures:
    if baseline is not None:
        for f in figures:
            if baseline in (f.name, f.impl):
                return f
    for f in figures:
        if BASELINE_IMPL in (f.impl, f.name):
            return f
    return figures[0]


def _summary_rows(value: Any) -> list[dict[str, Any]]:
    """The Neuron reader's summary metrics as a list of rows, whatever shape the reader chose."""
    rows = [value] if isinstance(value, dict) else value if isinstance(value, list) else []
    return [dict(r) for r in rows if isinstance(r, dict)]


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _run_json(r: RunFigures) -> dict[str, Any]:
    return {
        "name": r.name,
        "impl": r.impl,
        "synthetic": r.synthetic,
        "lane": r.lane,
        "steps": r.steps,
        "window_ns_per_step": r.window_ns_per_step,
        "device_busy_ns_per_step": r.device_busy_ns_per_step,
        "device_busy_ns_by_step": r.device_busy_ns_by_step,
        "utilization": r.utilization,
        "dispatches_per_step": r.dispatches_per_step,
        "executions_per_step": r.executions_per_step,
        "host_ns_per_step": r.host_ns_per_step,
        "gap_count": r.gap_count,
        "gap_ns_per_step": r.gap_ns_per_step,
        "gap_largest_ns": r.gap_largest_ns,
        "gap_by_cause_ns": r.gap_by_cause_ns,
        "edge_idle_ns_per_step": r.edge_idle_ns_per_step,
        "speedup": r.speedup,
        "correct": r.correct,
        "max_abs_error": r.max_abs_error,
        "summary_metrics": r.summary_metrics,
    }
