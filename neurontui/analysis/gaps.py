"""Idle gaps of the device: holes in the execution lane's busy union inside each step window."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from neurontui.model import intervals
from neurontui.model.lanes import Lane
from neurontui.model.trace import Trace

DEFAULT_NOISE_FLOOR_NS = 1_000


@dataclass(frozen=True)
class Gap:
    """One idle interval of the device inside a step window."""

    start: int
    end: int
    step: int  # index into trace.step_windows()
    kind: str  # "interior" (between device work), "leading" or "trailing" (step edge to first/last work)
    cause: str | None = None
    detail: str = ""

    @property
    def duration(self) -> int:
        return self.end - self.start


def find_gaps(trace: Trace, noise_floor_ns: int = DEFAULT_NOISE_FLOOR_NS, lane: Lane | None = None) -> list[Gap]:
    """Holes in the execution lane's union per step; holes shorter than the noise floor are dropped."""
    lane = trace.execution_lane() if lane is None else lane
    us, ue = trace.busy_union(lane)
    gaps: list[Gap] = []
    for step, (t0, t1) in enumerate(trace.step_windows().tolist()):
        hs, he = intervals.holes(us, ue, t0, t1)
        if len(hs) == 0:
            continue
        inside = intervals.clip(us, ue, t0, t1)[0]
        first_busy = int(inside[0]) if len(inside) else t1
        last_busy = int(intervals.clip(us, ue, t0, t1)[1][-1]) if len(inside) else t0
        for s, e in zip(hs.tolist(), he.tolist()):
            if e - s < noise_floor_ns:
                continue
            if not len(inside):
                kind = "leading"
            elif s < first_busy:
                kind = "leading"
            elif e > last_busy:
                kind = "trailing"
            else:
                kind = "interior"
            gaps.append(Gap(s, e, step, kind))
    return gaps


def gap_totals(gaps: list[Gap]) -> dict[str, int]:
    """Count, total and largest of the interior gaps (never negative)."""
    interior = np.array([g.duration for g in gaps if g.kind == "interior"], dtype=np.int64)
    return {
        "count": int(len(interior)),
        "total_ns": int(interior.sum()) if len(interior) else 0,
        "largest_ns": int(interior.max()) if len(interior) else 0,
        "leading_ns": int(sum(g.duration for g in gaps if g.kind == "leading")),
        "trailing_ns": int(sum(g.duration for g in gaps if g.kind == "trailing")),
    }
