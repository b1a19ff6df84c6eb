"""Row counts per track stay right with empty tracks between busy ones (the builder's grouped depth maximum)."""

from __future__ import annotations

import numpy as np

from neurontui.model import Lane, TraceBuilder


def test_rows_per_track_with_empty_and_nested_tracks() -> None:
    b = TraceBuilder(path="mem", source="test")
    nested = b.track(Lane.FRAMEWORK, "a", "a", sort=(0,))
    b.track(Lane.FRAMEWORK, "b", "b", sort=(1,))  # stays empty
    flat = b.track(Lane.HARDWARE, "c", "c", sort=(2,))
    overlapping = b.track(Lane.HARDWARE, "d", "d", sort=(3,))
    start = np.array([0, 10, 20, 0, 100, 0, 5, 7])
    end = np.array([100, 50, 30, 50, 150, 10, 15, 20])
    track = np.array([nested, nested, nested, flat, flat, overlapping, overlapping, overlapping])
    b.add_events(start, end, track, np.zeros(8), np.zeros(8))
    trace = b.build()
    rows = {t.name: t.n_rows for t in trace.tracks}
    assert rows == {"a": 3, "b": 0, "c": 1, "d": 3}
    assert [r.hi - r.lo for r in trace.rows] == [1, 1, 1, 2, 1, 1, 1]
