"""The `neurontui summary` figures: per-lane counts and busy time, links, gaps, top ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from neurontui.analysis.gaps import find_gaps, gap_totals
from neurontui.model import intervals
from neurontui.model.lanes import LANES, Lane
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
        "top_ops": top_ops(trace, lane_of_event, exec_lane, top),
        "warnings": list(trace.warnings),
        "synthetic": bool(trace.meta.get("synthetic", False)),
    }


def device_owner(trace: Trace, lane_of_event: np.ndarray) -> np.ndarray:
    """For every event, the framework op whose launch chain reaches it (-1 if none).

    Links run framework -> device -> runtime -> hardware; propagating the owner
    along them a few times covers every chain the readers produce.
    """
    owner = np.full(len(trace.events), -1, dtype=np.int64)
    src, dst = trace.links.src.astype(np.int64), trace.links.dst.astype(np.int64)
    if not len(src):
        return owner
    from_fw = lane_of_event[src] == int(Lane.FRAMEWORK)
    to_other = lane_of_event[dst] != int(Lane.FRAMEWORK)
    direct = from_fw & to_other
    owner[dst[direct]] = src[direct]
    for _ in range(3):
        carry = (~from_fw) & (owner[src] >= 0) & (owner[dst] < 0)
        if not carry.any():
            break
        owner[dst[carry]] = owner[src[carry]]
    return owner


def top_ops(trace: Trace, lane_of_event: np.ndarray, exec_lane: Lane, top: int) -> list[dict[str, Any]]:
    """Framework ops by host time (profiler step markers excluded), with linked device time."""
    ev = trace.events
    fw = np.flatnonzero(lane_of_event == int(Lane.FRAMEWORK))
    if not len(fw):
        return []
    step_names = trace.names.matching(lambda s: s.startswith("ProfilerStep#"))
    fw = fw[~np.isin(ev.name[fw], step_names)]
    names = ev.name[fw]
    host = np.bincount(names, weights=(ev.end[fw] - ev.start[fw]).astype(np.float64), minlength=len(trace.names))
    calls = np.bincount(names, minlength=len(trace.names))
    owner = device_owner(trace, lane_of_event)
    on_device = np.flatnonzero((lane_of_event == int(exec_lane)) & (owner >= 0) & ((ev.flags & BUSY) != 0))
    device = np.bincount(
        ev.name[owner[on_device]], weights=(ev.end[on_device] - ev.start[on_device]).astype(np.float64), minlength=len(trace.names)
    )
    order = np.argsort(-host, kind="stable")
    rows = []
    for n in order[:top]:
        if calls[n] == 0:
            break
        rows.append({"name": trace.names[int(n)], "calls": int(calls[n]), "host_ns": int(host[n]), "device_ns": int(device[n])})
    return rows
