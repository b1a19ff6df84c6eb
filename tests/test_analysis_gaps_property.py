"""Gaps, unions and causes against a brute-force computation on a 1 ns grid, for random traces."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neurontui.analysis.gaps import CAUSES, GapSettings, analyse_gaps, gap_totals
from neurontui.model.builder import TraceBuilder
from neurontui.model.lanes import Lane
from neurontui.model.trace import BUSY

T = 240
interval = st.tuples(st.integers(0, T - 1), st.integers(1, 60)).map(lambda p: (p[0], min(T, p[0] + p[1])))


@st.composite
def traces(draw):
    """Random executions with launches, host ops on two threads, syncs and optional steps."""
    b = TraceBuilder(path="random", source="test")
    kernel, launch, op, sync = (b.category(c) for c in ("kernel", "cuda_runtime", "cpu_op", "cuda_runtime"))
    streams = [b.track(Lane.HARDWARE, f"hw:{i}", f"stream {i}") for i in range(2)]
    dev = b.track(Lane.DEVICE, "dev:0", "thread 1")
    threads = [b.track(Lane.FRAMEWORK, f"fw:{i}", f"thread {i}") for i in range(2)]
    for s, e in draw(st.lists(interval, max_size=12)):
        delay = draw(st.integers(-20, 40))
        lstart = max(0, min(T - 1, s - delay))
        lend = min(T, lstart + draw(st.integers(1, 8)))
        lpos = b.add_events(np.array([lstart]), np.array([lend]), dev, b.names.intern("cudaLaunchKernel"), launch)
        busy = draw(st.sampled_from([True, True, True, False]))  # some spans are drawn but not busy
        kpos = b.add_events(np.array([s]), np.array([e]), draw(st.sampled_from(streams)), b.names.intern("k"), kernel,
                            flags=np.array([BUSY if busy else 0], np.uint8))
        if draw(st.booleans()):
            b.add_links(np.array([lpos]), np.array([kpos]))
    for s, e in draw(st.lists(interval, max_size=3)):
        b.add_events(np.array([s]), np.array([e]), dev, b.names.intern("cudaStreamSynchronize"), sync)
    for s, e in draw(st.lists(interval, max_size=10)):
        name = b.names.intern(draw(st.sampled_from(["aten::add", "aten::mul", "aten::rms_norm"])))
        b.add_events(np.array([s]), np.array([e]), draw(st.sampled_from(threads)), name, op)
    if draw(st.booleans()):
        cuts = sorted(set(draw(st.lists(st.integers(0, T), min_size=2, max_size=5))))
        for a, z in zip(cuts[:-1], cuts[1:]):
            b.add_step(a, z)
    return b.build()


def cells(trace, mask) -> np.ndarray:
    ev = trace.events
    grid = np.zeros(T + 1, dtype=bool)
    for i in np.flatnonzero(mask):
        grid[ev.start[i] : ev.end[i]] = True
    return grid


def runs(grid: np.ndarray, lo: int, hi: int, value: bool) -> list[tuple[int, int]]:
    out, t = [], lo
    while t < hi:
        if grid[t] == value:
            u = t
            while u < hi and grid[u] == value:
                u += 1
            out.append((t, u))
            t = u
        else:
            t += 1
    return out


def brute(trace, floor: int) -> tuple[list[tuple], list[int]]:
    ev = trace.events
    lane_of = np.array([t.lane for t in trace.tracks])[ev.track]
    names = np.array([trace.names[i] for i in ev.name])
    busy = (ev.flags & BUSY) != 0
    hw = (lane_of == Lane.HARDWARE) & busy & (ev.end > ev.start)
    exec_lane = Lane.HARDWARE if hw.any() else Lane.DEVICE
    execs = (lane_of == exec_lane) & busy & (ev.end > ev.start)
    is_sync = names == "cudaStreamSynchronize"
    g_busy = cells(trace, execs)
    g_sync = cells(trace, is_sync)
    g_rt = cells(trace, ((lane_of == Lane.DEVICE) | (lane_of == Lane.RUNTIME)) & busy & ~is_sync)
    fw = (lane_of == Lane.FRAMEWORK) & busy & (ev.end > ev.start)
    g_fw = cells(trace, fw)
    # Deepest framework op per thread and cell owns it.
    owner: dict[tuple[int, int], int] = {}
    for i in np.flatnonzero(fw):
        for t in range(ev.start[i], ev.end[i]):
            key = (int(ev.track[i]), t)
            if key not in owner or ev.row[i] > ev.row[owner[key]]:
                owner[key] = int(i)
    launch = {}
    for s, d in zip(trace.links.src.tolist(), trace.links.dst.tolist()):
        if lane_of[s] != exec_lane:
            launch[d] = min(launch.get(d, 1 << 62), int(ev.start[s]))
    gaps, busy_steps = [], []
    for step, (a, z) in enumerate(trace.step_windows().tolist()):
        busy_steps.append(int(g_busy[a:z].sum()))
        if not execs.any():
            continue  # nothing ran on the device anywhere: idle time is not defined, so no gaps
        pieces = runs(g_busy, a, z, True)
        for s, e in runs(g_busy, a, z, False):
            if e - s < floor:
                continue
            kind = "leading" if not pieces or s < pieces[0][0] else "trailing" if e > pieces[-1][1] else "interior"
            later = [i for i in np.flatnonzero(execs) if ev.start[i] >= e]
            first = min((int(ev.start[i]) for i in later), default=None)
            if exec_lane == Lane.HARDWARE:
                sub = min((launch.get(int(i), 1 << 62) for i in later if ev.start[i] == first), default=1 << 62)
            else:
                sub = first if first is not None else 1 << 62
            sub = sub if sub != 1 << 62 else None
            sync_runs = [r for r in runs(g_sync, 0, T + 1, True) if r[0] < e]
            synced = bool(sync_runs) and sync_runs[-1][1] > s and (sub is None or sync_runs[-1][1] <= sub)
            rt = g_rt[s:e].sum() / (e - s)
            fws = g_fw[s:e].sum() / (e - s)
            if synced:
                cause = "synchronization"
            elif sub is not None and sub > s:
                cause = "host wait"
            elif rt >= 0.25:
                cause = "runtime"
            elif fws >= 0.20:
                cause = "framework op"
            else:
                cause = "untraced"
            per_name: dict[str, int] = {}
            for (track, t), i in owner.items():
                if s <= t < e:
                    per_name[names[i]] = per_name.get(names[i], 0) + 1
            top = max(per_name.values(), default=0)
            gaps.append((s, e, step, kind, cause, {n for n, v in per_name.items() if v == top} if top else {""}))
    return gaps, busy_steps


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces(), st.integers(1, 6))
def test_gaps_match_brute_force(trace, floor):
    report = analyse_gaps(trace, GapSettings(noise_floor_ns=floor))
    expected, busy = brute(trace, floor)
    assert report.busy_ns.tolist() == busy
    got = [(g.start, g.end, g.step, g.kind, g.cause) for g in report.gaps]
    assert got == [x[:5] for x in expected]
    for g, x in zip(report.gaps, expected):
        assert g.op in x[5]
    totals = gap_totals(report.gaps)
    assert sum(totals["by_cause_ns"].values()) == totals["total_ns"]
    assert all(v >= 0 for v in totals["by_cause_ns"].values())
    assert min(totals["total_ns"], totals["leading_ns"], totals["trailing_ns"], totals["largest_ns"]) >= 0
    assert set(totals["by_cause_ns"]) == set(CAUSES)


def test_a_trace_with_nothing_on_the_device_has_no_gaps_only_zero_busy_steps():
    b = TraceBuilder(path="host-only", source="test")
    thread = b.track(Lane.FRAMEWORK, "fw:0", "thread 0")
    b.add_events(np.array([0, 50]), np.array([40, 90]), thread, b.names.intern("aten::mul"), b.category("cpu_op"))
    b.add_step(0, 60)
    b.add_step(60, 100)
    report = analyse_gaps(b.build())
    assert report.gaps == [] and report.busy_ns.tolist() == [0, 0]
