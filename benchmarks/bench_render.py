"""Render speed of the explorer's timeline on a 5 M-event trace: full frames at five zooms and key-to-frame latency.

Builds the trace with TraceBuilder directly (vectorised, a few seconds), opens it in
the real app headless at 200×60, then reports medians. Targets: a full frame
≤ 10 ms at every zoom, a key press to a repainted frame ≤ 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time

import numpy as np

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

from neurontui.model.builder import TraceBuilder  # noqa: E402
from neurontui.model.lanes import Lane  # noqa: E402
from neurontui.model.trace import Trace  # noqa: E402

BASE_NS = 1_767_189_312_000_000_000
SIZE = (200, 60)
KERNEL_STREAMS = 40  # with the other lanes, more rows than the frame shows: every line is painted


def build_trace(total: int, seed: int = 0) -> Trace:
    """Framework ops nested two deep on 2 threads, launches on 2 threads, kernels on enough streams to fill the frame."""
    rng = np.random.default_rng(seed)
    b = TraceBuilder(path="synthetic-5M", source="synthetic")
    names = np.array([b.names.intern(f"op_{k}") for k in range(64)], np.int32)
    cat = b.category("synthetic")
    per_kernel_stream = total * 6 // 10 // KERNEL_STREAMS
    for s in range(KERNEL_STREAMS):
        track = b.track(Lane.HARDWARE, f"stream{s}", f"stream {s}", sort=(s,))
        gaps = rng.integers(200, 3_000, per_kernel_stream)
        durs = rng.integers(500, 20_000, per_kernel_stream)
        starts = BASE_NS + np.cumsum(gaps + durs) - durs
        b.add_events(starts, starts + durs, track, rng.choice(names, per_kernel_stream), cat)
    span = int(starts[-1] - BASE_NS)
    per_launch_thread = total // 10 // 2
    for t in range(2):
        track = b.track(Lane.DEVICE, f"launch{t}", f"thread {t}", sort=(t,))
        starts = BASE_NS + np.sort(rng.integers(0, span, per_launch_thread))
        durs = np.minimum(np.diff(starts, append=starts[-1] + 5_000), 4_000)
        b.add_events(starts, starts + durs, track, names[0], cat)
    per_op_thread = (total - KERNEL_STREAMS * per_kernel_stream - 2 * per_launch_thread) // 2
    parents = per_op_thread // 3
    for t in range(2):
        track = b.track(Lane.FRAMEWORK, f"ops{t}", f"thread {t} ops", sort=(t,))
        slot = span // parents
        starts = BASE_NS + np.arange(parents, dtype=np.int64) * slot
        ends = starts + slot * 9 // 10
        kid1 = starts + slot // 10
        kid2 = starts + slot // 2
        all_starts = np.concatenate([starts, kid1, kid2])
        all_ends = np.concatenate([ends, kid1 + slot // 4, kid2 + slot // 4])
        n = len(all_starts)
        b.add_events(all_starts, all_ends, track, rng.choice(names, n), cat)
    return b.build()


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


async def measure(trace: Trace, repeats: int) -> None:
    from textual import events

    from neurontui.tui.app import NeuronTUI
    from neurontui.tui.screens.explorer import prepare
    from neurontui.tui.widgets.ruler import Ruler
    from neurontui.tui.widgets.timeline import Timeline

    t = time.perf_counter()
    index = prepare(trace)
    print(f"prepare (gaps, unions): {time.perf_counter() - t:.2f} s, {len(index.gap_start):,} interior gaps")
    app = NeuronTUI()
    async with app.run_test(size=SIZE) as pilot:
        explorer = app.explorer
        explorer.open_trace(trace, index)
        explorer.state.collapsed.clear()
        explorer.state.relayout()
        explorer._refresh()
        await pilot.pause()
        timeline = explorer.query_one(Timeline)
        ruler = explorer.query_one(Ruler)
        state = explorer.state
        lo, hi = trace.window
        height = timeline.scrollable_content_region.height
        print(f"frame: {timeline.scrollable_content_region.width}×{height} timeline cells + 2 ruler lines")
        for zoom_out in (1, 1e-1, 1e-2, 1e-4, 1e-6):
            span = max(int((hi - lo) * zoom_out), 1_000)
            mid = lo + (hi - lo) // 3
            state.jump_to(mid - span // 2, mid + span // 2)
            times, cpu = [], []
            for _ in range(repeats):
                timeline.clear_cache()
                t, c = time.perf_counter(), time.thread_time()
                for y in range(height):
                    timeline.render_line(y)
                for y in range(2):
                    ruler.render_line(y)
                times.append(time.perf_counter() - t)
                cpu.append(time.thread_time() - c)
            print(f"full frame at span {span / 1e6:>12.6f} ms: median {median_ms(times):6.2f} ms wall, {median_ms(cpu):6.2f} ms cpu")
        state.fit()
        explorer._refresh()
        await pilot.pause()
        latencies = []
        for k in range(repeats):
            key = "d" if k % 4 < 2 else "a"
            await pilot.pause()
            painted = timeline.frames_painted
            t = time.perf_counter()
            app.post_message(events.Key(key, key))
            while timeline.frames_painted < painted + height:  # every visible line repainted
                await asyncio.sleep(0)
            latencies.append(time.perf_counter() - t)
        print(f"key press (pan) to repainted frame: median {median_ms(latencies):6.2f} ms  (max {max(latencies) * 1000:.2f})")
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores (wall times grow with it)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=5_000_000)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    t = time.perf_counter()
    trace = build_trace(args.events)
    print(f"built {len(trace.events):,} events in {len(trace.rows)} rows: {time.perf_counter() - t:.2f} s")
    asyncio.run(measure(trace, args.repeats))


if __name__ == "__main__":
    main()
