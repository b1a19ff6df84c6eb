"""The `neurontui summary` figures: per-lane counts and busy time, links, gaps, top ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from neurontui.analysis.gaps import find_gaps, gap_totals
from neurontui.analysis.ops import op_table
from neurontui.model import intervals
from neurontui.model.lanes import LANES
from neurontui.model.trace import BUSY, Trace

TOP_OPS = 10


def summarize(trace: Trace, top: int = TOP_OPS) -> dict[str, Any]:
    """The JSON contract of `neurontui summary --json` (see README)."""
    ev = trace.events
    track_lane = np.fromiter((t.lane for t in trace.tracks), dtype=np.int8, count=len(trace.tracks))
    lane_of_event = track_lane[ev.track] if len(ev) else np.zeros(0, np.int8)
    lanes: dict[str, dict[str, int]] = {}
    for lane in LANES:
        mask = lane_of_event == int(lane)
        busy = mask & ((ev.flags & BUSY) != 0)
        us, ue = intervals.union(ev.start[busy], ev.end[busy])
        lanes[lane.label] = {
            "events": int(mask.sum()),
            "tracks": int(np.sum(track_lane == int(lane))),
            "busy_ns": intervals.total(us, ue),
        }
    exec_lane = trace.execution_lane()
    gaps = gap_totals(find_gaps(trace))
    t0, t1 = trace.window
    return {
        "path": trace.path,
        "source": trace.source,
        "window_ns": [t0, t1],
        "steps": int(len(trace.steps)),
        "lanes": lanes,
        "links": int(len(trace.links)),
        "gaps": {"lane": exec_lane.label, **gaps},
        "top_ops": top_ops(trace, top),
        "warnings": list(trace.warnings),
        "synthetic": bool(trace.meta.get("synthetic", False)),
    }


def top_ops(trace: Trace, top: int) -> list[dict[str, Any]]:
    """Framework ops by host time (profiler step markers excluded), with their linked device time."""
    rows = [r for r in op_table(trace) if r.name != "ProfilerStep*"][:top]
    return [
        {
            "name": r.name,
            "calls": r.calls,
            "host_ns": r.host_total_ns,
            "device_ns": r.device_total_ns,
            "host_self_ns": r.host_self_ns,
            "device_self_ns": r.device_self_ns,
        }
        for r in rows
    ]
