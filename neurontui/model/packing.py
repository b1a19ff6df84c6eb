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
    # row_end[r] is the end of the last event placed in row r; free rows sit in a heap
    # keyed by row index so the lowest free row is reused (first fit).
    row_end: list[int] = []
    busy: list[tuple[int, int]] = []  # (end, row) of rows currently occupied
    free: list[int] = []
    out = rows
    for i, (s, e) in enumerate(zip(starts.tolist(), ends.tolist())):
        while busy and busy[0][0] <= s:
            _, r = heapq.heappop(busy)
            heapq.heappush(free, r)
        if free:
            r = heapq.heappop(free)
        else:
            r = len(row_end)
            row_end.append(e)
        row_end[r] = e
        out[i] = r
        heapq.heappush(busy, (e, r))
    return out
