"""Interval maths on int64 nanosecond arrays: unions, holes, window queries.

Everything here is vectorised with numpy: cost is O(n log n) for a union and
O(log n) for a visibility query, never a Python loop per event.
"""

from __future__ import annotations

import numpy as np

EMPTY = np.zeros(0, dtype=np.int64)


def union(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge intervals into disjoint, sorted [start, end) pieces (empty ones are dropped)."""
    starts = np.asarray(starts, dtype=np.int64)
    ends = np.asarray(ends, dtype=np.int64)
    keep = ends > starts
    starts, ends = starts[keep], ends[keep]
    if starts.size == 0:
        return EMPTY.copy(), EMPTY.copy()
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], ends[order]
    reach = np.maximum.accumulate(e)
    # A new piece begins where the start lies beyond everything seen so far.
    begins = np.empty(s.size, dtype=bool)
    begins[0] = True
    begins[1:] = s[1:] > reach[:-1]
    first = np.flatnonzero(begins)
    last = np.append(first[1:] - 1, s.size - 1)
    return s[first], reach[last]


def clip(starts: np.ndarray, ends: np.ndarray, t0: int, t1: int) -> tuple[np.ndarray, np.ndarray]:
    """Clip disjoint sorted intervals to [t0, t1), dropping what falls outside."""
    s = np.clip(starts, t0, t1)
    e = np.clip(ends, t0, t1)
    keep = e > s
    return s[keep], e[keep]


def total(starts: np.ndarray, ends: np.ndarray) -> int:
    """Summed length of disjoint intervals."""
    return int(np.sum(ends - starts, dtype=np.int64)) if len(starts) else 0


def holes(starts: np.ndarray, ends: np.ndarray, t0: int, t1: int) -> tuple[np.ndarray, np.ndarray]:
    """The gaps of a disjoint sorted union inside [t0, t1), leading and trailing included."""
    s, e = clip(starts, ends, t0, t1)
    hs = np.concatenate(([t0], e)).astype(np.int64)
    he = np.concatenate((s, [t1])).astype(np.int64)
    keep = he > hs
    return hs[keep], he[keep]


def covered(starts: np.ndarray, ends: np.ndarray, t0: int, t1: int) -> int:
    """Length of [t0, t1) covered by a disjoint sorted union (O(log n + k))."""
    lo = int(np.searchsorted(ends, t0, side="right"))
    hi = int(np.searchsorted(starts, t1, side="left"))
    if hi <= lo:
        return 0
    s = np.maximum(starts[lo:hi], t0)
    e = np.minimum(ends[lo:hi], t1)
    return int(np.sum(np.maximum(e - s, 0), dtype=np.int64))


def prefix_max(ends: np.ndarray) -> np.ndarray:
    """Running maximum of ends, the index that makes visibility queries a binary search."""
    return np.maximum.accumulate(ends) if len(ends) else ends.copy()


def visible(starts: np.ndarray, max_ends: np.ndarray, t0: int, t1: int) -> tuple[int, int]:
    """Index range [lo, hi) of start-sorted events that may intersect [t0, t1).

    `max_ends` is prefix_max(ends). Every event outside [lo, hi) misses the
    window; events inside either intersect it or are enclosed by a long event
    before them (nesting), so callers filter the range with `end > t0`.
    """
    lo = int(np.searchsorted(max_ends, t0, side="right"))
    hi = int(np.searchsorted(starts, t1, side="left"))
    return lo, max(lo, hi)
