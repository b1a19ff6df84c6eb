"""Aggregates of a marked time range: events, device busy time, gaps and the names that took the time."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from neurontui.model import intervals
from neurontui.tui.paint import PaintIndex

TOP_NAMES = 5


@dataclass(frozen=True)
class RangeSummary:
    """What happened in [t0, t1): counts and clipped durations, every number tied to that window."""

    t0: int
    t1: int
    events: int
    busy_ns: int  # union of the execution lane's busy events, clipped to the range
    gaps: int  # interior gaps that intersect the range
    gap_ns: int  # their length clipped to the range
    top: tuple[tuple[str, int, int], ...]  # (name, clipped total ns, count), largest first


def summarize(index: PaintIndex, t0: int, t1: int) -> RangeSummary:
    """Vectorised per row: O(rows · log n) to find the events, then one bincount over them."""
    trace = index.trace
    ev = trace.events
    picked: list[np.ndarray] = []
    for row in trace.rows:
        lo, hi = trace.visible(row, t0, t1)
        if hi > lo:
            idx = np.arange(lo, hi)
            picked.append(idx[index.paint_end[lo:hi] > t0])
    hits = np.concatenate(picked) if picked else np.zeros(0, np.int64)
    clipped = np.minimum(ev.end[hits], t1) - np.maximum(ev.start[hits], t0)
    totals = np.bincount(ev.name[hits], weights=np.maximum(clipped, 0), minlength=len(trace.names))
    counts = np.bincount(ev.name[hits], minlength=len(trace.names))
    order = [int(i) for i in np.argsort(-totals, kind="stable")[:TOP_NAMES] if counts[i] > 0]
    gs, ge = intervals.clip(index.gap_start, index.gap_end, t0, t1)
    return RangeSummary(
        t0=t0,
        t1=t1,
        events=int(len(hits)),
        busy_ns=intervals.covered(index.exec_busy[0], index.exec_busy[1], t0, t1),
        gaps=int(len(gs)),
        gap_ns=intervals.total(gs, ge),
        top=tuple((trace.names[i], int(totals[i]), int(counts[i])) for i in order),
    )
