"""Packing events of one track into rows so that no two events in a row overlap."""

from __future__ import annotations

import heapq

import numpy as np


def pack_rows(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """First-fit row per event; nested ops land at their stack depth, overlaps get extra rows.

    Events must be sorted by (start asc, end desc). Tracks without any overlap
    (most device streams) are detected vectorised and cost no Python loop.
    """
    n = len(starts)
    rows = np.zeros(n, dtype=np.int32)
    if n < 2:
        return rows
    reach = np.maximum.accumulate(ends)
    if bool(np.all(starts[1:] >= reach[:-1])):
        return rows
    nested = _nesting_depth(starts, ends)
    if nested is not None:
        return nested
    return _first_fit(starts, ends)


def _nesting_depth(starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """Depth rows for properly nested events (call stacks), vectorised; None if they are not.

    In a laminar family every earlier event still open at s_i is an ancestor, so
    depth_i = i - #{events ended by s_i}; the result is verified, not assumed.
    """
    n = len(starts)
    closed = np.searchsorted(np.sort(ends), starts, side="right")
    depth = np.arange(n, dtype=np.int64) - closed
    if depth.min() < 0:
        return None
    order = np.lexsort((starts, depth))
    d, s, e = depth[order], starts[order], ends[order]
    same_row = d[1:] == d[:-1]
    if np.any(same_row & (s[1:] < e[:-1])):
        return None
    return depth.astype(np.int32)


def _first_fit(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Greedy interval partitioning for arbitrary overlaps (a heap of busy rows)."""
    n = len(starts)
    rows = np.zeros(n, dtype=np.int32)
    # Free rows sit in a heap keyed by row index so the lowest free row is reused.
    busy: list[tuple[int, int]] = []  # (end, row) of rows currently occupied
    free: list[int] = []
    n_rows = 0
    for i, (s, e) in enumerate(zip(starts.tolist(), ends.tolist())):
        while busy and busy[0][0] <= s:
            heapq.heappush(free, heapq.heappop(busy)[1])
        if free:
            r = heapq.heappop(free)
        else:
            r, n_rows = n_rows, n_rows + 1
        rows[i] = r
        heapq.heappush(busy, (e, r))
    return rows
