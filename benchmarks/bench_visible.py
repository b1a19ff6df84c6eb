"""The rendering-critical query, "visible events of one track in a window", on 5 M events.

Shows O(log n + k): the time per query stays flat as n grows 100x while the
window holds the same number of events k, and grows with k at fixed n.
    python benchmarks/bench_visible.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from neurontui.model.builder import TraceBuilder
from neurontui.model.lanes import Lane


def build(n: int):
    """One hardware track of n back-to-back 1 µs events with 1 µs gaps."""
    b = TraceBuilder(path="synthetic", source="bench")
    track = b.track(Lane.HARDWARE, "hw:0", "stream 0")
    start = np.arange(n, dtype=np.int64) * 2_000
    b.add_events(start, start + 1_000, track, b.names.intern("k"), b.category("kernel"))
    return b.build()


def query_time(trace, k: int, reps: int = 2_000) -> float:
    row = trace.rows[0]
    rng = np.random.default_rng(0)
    t_max = int(trace.events.end[-1])
    t0s = rng.integers(0, max(1, t_max - k * 2_000), size=reps)
    times = []
    for t0 in t0s.tolist():
        s = time.perf_counter_ns()
        lo, hi = trace.visible(row, t0, t0 + k * 2_000)
        visible = int(np.count_nonzero(trace.events.end[lo:hi] > t0))  # touch the k events, as a renderer does
        assert visible <= hi - lo
        times.append(time.perf_counter_ns() - s)
    return statistics.median(times) / 1e3


def main() -> None:
    print("n events    k visible   median µs/query")
    for n in (50_000, 500_000, 5_000_000):
        trace = build(n)
        for k in (10, 1_000, 100_000):
            print(f"{n:>9,} {k:>10,} {query_time(trace, k):>12.1f}")


if __name__ == "__main__":
    main()
