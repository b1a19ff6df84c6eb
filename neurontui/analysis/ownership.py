"""Self time as intervals: which event owns each instant of a thread, so self time can be clipped to any window."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from neurontui.model.lanes import Lane
from neurontui.model.trace import BUSY, Trace


@dataclass(frozen=True)
class Ownership:
    """Disjoint-per-track segments, each owned by the deepest event active over it (its self time)."""

    start: np.ndarray  # int64, sorted across all tracks
    end: np.ndarray  # int64
    owner: np.ndarray  # int64 event index

    def self_ns(self, n_events: int) -> np.ndarray:
        """Self time of every event (0 for events not considered): total minus its children's time."""
        return np.bincount(self.owner, weights=(self.end - self.start), minlength=n_events).astype(np.int64)


def framework_ownership(trace: Trace, exclude_prefixes: tuple[str, ...] = ("ProfilerStep#",)) -> Ownership:
    """Ownership of the framework lane's busy events; step markers are windows, not ops, so they own nothing."""
    ev = trace.events
    keep = trace.lane_mask(Lane.FRAMEWORK) & ((ev.flags & BUSY) != 0) & (ev.end > ev.start)
    if exclude_prefixes:
        skip = trace.names.matching(lambda s: s.startswith(exclude_prefixes))
        if len(skip):
            keep &= ~np.isin(ev.name, skip)
    return ownership(trace, keep)


def ownership(trace: Trace, keep: np.ndarray) -> Ownership:
    """Deepest-row-wins segmentation of the kept events, track by track (rows never overlap inside)."""
    ev = trace.events
    parts_s, parts_e, parts_o = [], [], []
    for track in trace.tracks:
        rows = trace.track_rows(track)
        if not rows:
            continue
        lo, hi = rows[0].lo, rows[-1].hi
        sel = lo + np.flatnonzero(keep[lo:hi])
        if not len(sel):
            continue
        bounds = np.unique(np.concatenate((ev.start[sel], ev.end[sel])))
        seg_s, seg_e = bounds[:-1], bounds[1:]
        owner = np.full(len(seg_s), -1, dtype=np.int64)
        for row in rows:  # shallow to deep: deeper rows overwrite
            idx = row.lo + np.flatnonzero(keep[row.lo : row.hi])
            if not len(idx):
                continue
            j = np.searchsorted(ev.start[idx], seg_s, side="right") - 1
            jj = np.maximum(j, 0)
            inside = (j >= 0) & (ev.end[idx[jj]] > seg_s)
            owner[inside] = idx[jj[inside]]
        used = owner >= 0
        parts_s.append(seg_s[used])
        parts_e.append(seg_e[used])
        parts_o.append(owner[used])
    if not parts_s:
        z = np.zeros(0, dtype=np.int64)
        return Ownership(z, z.copy(), z.copy())
    s, e, o = np.concatenate(parts_s), np.concatenate(parts_e), np.concatenate(parts_o)
    order = np.argsort(s, kind="stable")
    return Ownership(s[order], e[order], o[order])
