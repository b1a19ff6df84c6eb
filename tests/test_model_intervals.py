"""Interval maths and row packing against brute force on a fine grid (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neurontui.model import intervals
from neurontui.model.packing import pack_rows

GRID = 200

interval_lists = st.lists(
    st.tuples(st.integers(0, GRID - 1), st.integers(0, 40)).map(lambda p: (p[0], min(GRID, p[0] + p[1]))),
    max_size=40,
)


def _grid(pairs) -> np.ndarray:
    covered = np.zeros(GRID, dtype=bool)
    for s, e in pairs:
        covered[s:e] = True
    return covered


def _arrays(pairs):
    s = np.array([p[0] for p in pairs], dtype=np.int64)
    e = np.array([p[1] for p in pairs], dtype=np.int64)
    return s, e


@given(interval_lists)
def test_union_matches_grid(pairs):
    us, ue = intervals.union(*_arrays(pairs))
    assert np.all(ue > us)
    assert np.all(us[1:] > ue[:-1]), "pieces must be disjoint and not touching"
    assert np.array_equal(_grid(zip(us.tolist(), ue.tolist())), _grid(pairs))
    assert intervals.total(us, ue) == int(_grid(pairs).sum())


@given(interval_lists, st.integers(0, GRID), st.integers(0, GRID))
def test_holes_are_the_complement_inside_the_window(pairs, a, b):
    t0, t1 = min(a, b), max(a, b)
    us, ue = intervals.union(*_arrays(pairs))
    hs, he = intervals.holes(us, ue, t0, t1)
    expected = ~_grid(pairs)
    expected[:t0] = False
    expected[t1:] = False
    assert np.array_equal(_grid(zip(hs.tolist(), he.tolist())), expected)
    assert np.all(he - hs > 0), "hole lengths are never negative or empty"
    assert intervals.covered(us, ue, t0, t1) + intervals.total(hs, he) == t1 - t0


@given(interval_lists, st.integers(0, GRID), st.integers(1, 60))
def test_visible_range_holds_exactly_the_intersecting_events(pairs, t0, width):
    t1 = t0 + width
    s, e = _arrays(sorted(pairs, key=lambda p: (p[0], -p[1])))
    lo, hi = intervals.visible(s, intervals.prefix_max(e), t0, t1)
    inside = set(np.flatnonzero((s < t1) & (e > t0)).tolist())
    candidates = set(range(lo, hi))
    assert inside <= candidates, "no intersecting event may be missed"
    # Everything outside the range misses the window.
    outside = set(range(len(s))) - candidates
    assert all(not (s[i] < t1 and e[i] > t0) for i in outside)


@given(interval_lists)
@settings(max_examples=200)
def test_pack_rows_never_overlaps_and_drops_nothing(pairs):
    s, e = _arrays(sorted(pairs, key=lambda p: (p[0], -p[1])))
    rows = pack_rows(s, e)
    assert len(rows) == len(s)
    for r in np.unique(rows):
        idx = np.flatnonzero(rows == r)
        order = idx[np.argsort(s[idx], kind="stable")]
        assert np.all(s[order][1:] >= e[order][:-1]), "events in one row must not overlap"


def test_pack_rows_puts_nested_ops_at_their_stack_depth():
    # parent [0,100) > child [10,50) > grandchild [20,30); sibling [60,90)
    s = np.array([0, 10, 20, 60], dtype=np.int64)
    e = np.array([100, 50, 30, 90], dtype=np.int64)
    assert pack_rows(s, e).tolist() == [0, 1, 2, 1]


def test_pack_rows_gives_partial_overlaps_extra_rows():
    s = np.array([0, 5, 12], dtype=np.int64)
    e = np.array([10, 15, 20], dtype=np.int64)
    assert pack_rows(s, e).tolist() == [0, 1, 0]
