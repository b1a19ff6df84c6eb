"""Idle gaps of the device: holes in the execution lane's busy union inside each step window, with causes.

A gap is a hole of at least the noise floor in the union of busy intervals of the
execution lane (hardware when present, else device), inside a step window
(ProfilerStep markers, else the whole trace). Holes touching a window edge are
"leading"/"trailing" and reported apart from "interior" ones. Each gap gets one
cause, tried in this order, so the causes of a set of gaps add up to its total:

1. synchronization: a blocking sync (a name with "synchronize"/"sync" but not
   "async", or the `cuda_sync` category) overlaps the gap and ended no later than
   the next submit: the host waited for the device to drain, then refilled it.
2. host wait: the next submit (the launch of the work that ends the gap) started
   after the gap began: the device waited for the host to dispatch.
3. runtime: >= 25 % of the gap is covered by device/runtime-lane calls.
4. framework op: >= 20 % of the gap is covered by framework self time (the op
   with the most self time in the gap is named).
5. untraced: nothing traced explains it.
Everything is vectorised: unions, searchsorted and bincount, never a loop per event.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from neurontui.analysis.ownership import Ownership, framework_ownership
from neurontui.model import intervals
from neurontui.model.lanes import Lane
from neurontui.model.trace import BUSY, Trace

DEFAULT_NOISE_FLOOR_NS = 1_000

SYNC = "synchronization"
HOST_WAIT = "host wait"
RUNTIME = "runtime"
FRAMEWORK = "framework op"
UNTRACED = "untraced"
CAUSES: tuple[str, ...] = (SYNC, HOST_WAIT, RUNTIME, FRAMEWORK, UNTRACED)
NO_DEVICE_WORK = "no device or hardware work was traced, so there are no device gaps (a host-only trace)"

_SYNC_NAME = re.compile(r"synchroni[sz]e|(?<!a)sync", re.IGNORECASE)
_NO_SUBMIT = np.iinfo(np.int64).max


@dataclass(frozen=True)
class GapSettings:
    """Thresholds every gap figure depends on, kept together so reports can state them."""

    noise_floor_ns: int = DEFAULT_NOISE_FLOOR_NS
    runtime_share: float = 0.25
    framework_share: float = 0.20

    def describe(self) -> str:
        return (
            f"noise floor {self.noise_floor_ns / 1000:g} µs; runtime-dominated >= {self.runtime_share:.0%} of a gap; "
            f"framework-op-dominated >= {self.framework_share:.0%} framework self time"
        )


@dataclass(frozen=True)
class Gap:
    """One idle interval of the device inside a step window."""

    start: int
    end: int
    step: int  # index into trace.step_windows()
    kind: str  # "interior" (between device work), "leading" or "trailing" (step edge to first/last work)
    cause: str | None = None
    detail: str = ""
    op: str = ""  # framework op with the most self time during the gap
    submit_delay_ns: int | None = None  # next submit start minus gap start (None: no linked submit)
    runtime_share: float = 0.0
    framework_share: float = 0.0

    @property
    def duration(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class GapReport:
    """Gaps of one trace with the windows, lane and thresholds they were measured with."""

    lane: Lane
    windows: np.ndarray  # (k, 2) int64 step windows
    stepped: bool  # True when the windows are ProfilerStep markers, False for the whole trace
    settings: GapSettings
    busy_ns: np.ndarray  # (k,) busy union of the lane inside each window
    gaps: list[Gap] = field(default_factory=list)

    def measured_over(self) -> str:
        """The lane and windows alone, for tables that print the thresholds once."""
        return _measured_over(self.lane, self.windows, self.stepped)

    def totals(self) -> dict[str, int | dict[str, int]]:
        return gap_totals(self.gaps)


def find_gaps(
    trace: Trace,
    noise_floor_ns: int = DEFAULT_NOISE_FLOOR_NS,
    lane: Lane | None = None,
    *,
    track_ids: list[int] | None = None,
    settings: GapSettings | None = None,
) -> list[Gap]:
    """Gaps of the execution lane (or one lane / some tracks of it), each with its cause."""
    chosen = settings or GapSettings(noise_floor_ns=noise_floor_ns)
    return analyse_gaps(trace, chosen, lane=lane, track_ids=track_ids).gaps


def analyse_gaps(
    trace: Trace,
    settings: GapSettings | None = None,
    lane: Lane | None = None,
    track_ids: list[int] | None = None,
) -> GapReport:
    """Busy time per step and every gap above the noise floor, explained by what the host did meanwhile."""
    settings = settings or GapSettings()
    lane = trace.execution_lane() if lane is None else lane
    windows = trace.step_windows()
    us, ue = trace.busy_union(lane, track_ids)
    busy = np.array([intervals.total(*intervals.clip(us, ue, a, b)) for a, b in windows.tolist()], dtype=np.int64)
    report = GapReport(lane, windows, bool(len(trace.steps)), settings, busy)
    if not len(us):  # nothing ran there at all (a host-only trace): no idle time to explain
        return report
    gs, ge, step, kind = _holes(us, ue, windows, settings.noise_floor_ns)
    if not len(gs):
        return report
    submit = _next_submit(trace, lane, track_ids, ge)
    sync_s, sync_e = _sync_union(trace)
    runtime_cov = _covered_many(*trace_union(trace, (Lane.DEVICE, Lane.RUNTIME), exclude_sync=True), gs, ge)
    own = framework_ownership(trace)
    fw_cov = _covered_many(*intervals.union(own.start, own.end), gs, ge)
    top_op, top_ns = _top_owner(trace, own, gs, ge)

    dur = (ge - gs).astype(np.float64)
    p = np.searchsorted(sync_s, ge, side="left") - 1
    pp = np.maximum(p, 0)
    synced = (p >= 0) & (sync_e[pp] > gs) & (sync_e[pp] <= submit) if len(sync_s) else np.zeros(len(gs), bool)
    known = submit != _NO_SUBMIT
    host_wait = known & (submit > gs)
    rt_share = runtime_cov / dur
    fw_share = fw_cov / dur
    cause = np.select(
        [synced, host_wait, rt_share >= settings.runtime_share, fw_share >= settings.framework_share],
        [0, 1, 2, 3],
        default=4,
    )
    delays = np.where(known, submit - gs, 0).tolist()
    ops = [trace.names[n] if t > 0 else "" for n, t in zip(top_op.tolist(), top_ns.tolist())]
    out = [
        Gap(s, e, st, _KINDS[k], CAUSES[c], _detail(d if ok else None, rt, fw, op), op, d if ok else None, rt, fw)
        for s, e, st, k, c, d, ok, rt, fw, op in zip(
            gs.tolist(), ge.tolist(), step.tolist(), kind.tolist(), cause.tolist(), delays, known.tolist(),
            rt_share.tolist(), fw_share.tolist(), ops,
        )
    ]
    return GapReport(lane, windows, bool(len(trace.steps)), settings, busy, out)


def describe_window(trace: Trace, settings: GapSettings | None = None, lane: Lane | None = None) -> str:
    """What find_gaps(trace) measured over, in the words GapReport.describe uses, without recomputing gaps."""
    lane = trace.execution_lane() if lane is None else lane
    return _describe(lane, trace.step_windows(), bool(len(trace.steps)), settings or GapSettings())


def _describe(lane: Lane, windows: np.ndarray, stepped: bool, settings: GapSettings) -> str:
    return f"{_measured_over(lane, windows, stepped)}; {settings.describe()}"


def _measured_over(lane: Lane, windows: np.ndarray, stepped: bool) -> str:
    span = int(np.sum(windows[:, 1] - windows[:, 0])) if len(windows) else 0
    what = f"{len(windows)} ProfilerStep window(s)" if stepped else "the whole trace (no ProfilerStep markers)"
    return f"{lane.label} lane busy union over {what}, {span / 1e6:.3f} ms"


def gap_totals(gaps: list[Gap]) -> dict:
    """Count, total and largest of the interior gaps, their split by cause, and the edge holes apart (never negative)."""
    interior = [g for g in gaps if g.kind == "interior"]
    lengths = np.array([g.duration for g in interior], dtype=np.int64)
    by_cause = {c: 0 for c in CAUSES}
    for g in interior:
        by_cause[g.cause or UNTRACED] += g.duration
    return {
        "count": int(len(lengths)),
        "total_ns": int(lengths.sum()) if len(lengths) else 0,
        "largest_ns": int(lengths.max()) if len(lengths) else 0,
        "leading_ns": int(sum(g.duration for g in gaps if g.kind == "leading")),
        "trailing_ns": int(sum(g.duration for g in gaps if g.kind == "trailing")),
        "by_cause_ns": by_cause,
    }


def busy_per_step(trace: Trace, lane: Lane | None = None, track_ids: list[int] | None = None) -> np.ndarray:
    """Busy union of a lane (default: the execution lane) inside each step window, in ns."""
    lane = trace.execution_lane() if lane is None else lane
    us, ue = trace.busy_union(lane, track_ids)
    return np.array([intervals.total(*intervals.clip(us, ue, a, b)) for a, b in trace.step_windows().tolist()], dtype=np.int64)


def busy_by_track(trace: Trace, lane: Lane | None = None) -> dict[int, np.ndarray]:
    """Busy union per core/stream of a lane, per step window: which stream carried the work."""
    lane = trace.execution_lane() if lane is None else lane
    return {t.id: busy_per_step(trace, lane, [t.id]) for t in trace.lane_tracks(lane)}


def trace_union(trace: Trace, lanes: tuple[Lane, ...], exclude_sync: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Union of the busy events of several lanes (optionally leaving blocking syncs out)."""
    ev = trace.events
    mask = np.zeros(len(ev), dtype=bool)
    for lane in lanes:
        mask |= trace.lane_mask(lane)
    mask &= (ev.flags & BUSY) != 0
    if exclude_sync:
        mask &= ~sync_mask(trace)
    return intervals.union(ev.start[mask], ev.end[mask])


def sync_mask(trace: Trace) -> np.ndarray:
    """Events that block the host until the device drains: sync calls and `cuda_sync` spans."""
    ev = trace.events
    names = trace.names.matching(lambda s: _SYNC_NAME.search(s) is not None)
    host = trace.lane_mask(Lane.FRAMEWORK) | trace.lane_mask(Lane.DEVICE) | trace.lane_mask(Lane.RUNTIME)
    mask = host & np.isin(ev.name, names)
    cats = [i for i, c in enumerate(trace.categories) if c.lower() == "cuda_sync"]
    if cats:
        mask |= np.isin(ev.cat, np.asarray(cats, dtype=np.int16))
    return mask


_KINDS = ("interior", "leading", "trailing")


def _holes(us: np.ndarray, ue: np.ndarray, windows: np.ndarray, floor: int) -> tuple[np.ndarray, ...]:
    """Holes of the union per window at or above the floor, tagged interior/leading/trailing."""
    parts: list[tuple[np.ndarray, ...]] = []
    for step, (t0, t1) in enumerate(windows.tolist()):
        hs, he = intervals.holes(us, ue, t0, t1)
        if not len(hs):
            continue
        cs, ce = intervals.clip(us, ue, t0, t1)
        kind = np.zeros(len(hs), dtype=np.int8)
        if len(cs):
            kind[hs < cs[0]] = 1
            kind[(he > ce[-1]) & (hs >= cs[0])] = 2
        else:
            kind[:] = 1
        keep = (he - hs) >= floor
        parts.append((hs[keep], he[keep], np.full(int(keep.sum()), step, np.int64), kind[keep]))
    if not parts:
        z = np.zeros(0, dtype=np.int64)
        return z, z.copy(), z.copy(), np.zeros(0, np.int8)
    return tuple(np.concatenate(c) for c in zip(*parts))


def _next_submit(trace: Trace, lane: Lane, track_ids: list[int] | None, at: np.ndarray) -> np.ndarray:
    """Start of the submit behind the first execution at or after each time (_NO_SUBMIT when unknown)."""
    ev = trace.events
    mask = trace.lane_mask(lane) & ((ev.flags & BUSY) != 0) & (ev.end > ev.start)
    if track_ids is not None:
        mask &= np.isin(ev.track, np.asarray(track_ids, dtype=np.int32))
    execs = np.flatnonzero(mask)
    if not len(execs):
        return np.full(len(at), _NO_SUBMIT, dtype=np.int64)
    launch = np.full(len(ev), _NO_SUBMIT, dtype=np.int64)
    if lane == Lane.HARDWARE:
        links = trace.links
        lane_of = np.fromiter((t.lane for t in trace.tracks), dtype=np.int8, count=len(trace.tracks))
        up = (lane_of[ev.track[links.src]] != int(lane)) & mask[links.dst]
        np.minimum.at(launch, links.dst[up], ev.start[links.src[up]])
    else:  # the lane's events are the submits themselves
        launch[execs] = ev.start[execs]
    order = execs[np.argsort(ev.start[execs], kind="stable")]
    starts = ev.start[order]
    uniq, first = np.unique(starts, return_index=True)
    earliest = np.minimum.reduceat(launch[order], first)
    j = np.searchsorted(uniq, at, side="left")
    out = np.full(len(at), _NO_SUBMIT, dtype=np.int64)
    ok = j < len(uniq)
    out[ok] = earliest[j[ok]]
    return out


def _sync_union(trace: Trace) -> tuple[np.ndarray, np.ndarray]:
    ev = trace.events
    mask = sync_mask(trace)
    return intervals.union(ev.start[mask], ev.end[mask])


def _covered_many(us: np.ndarray, ue: np.ndarray, qs: np.ndarray, qe: np.ndarray) -> np.ndarray:
    """Length of each window [qs, qe) covered by a disjoint sorted union, all windows at once."""
    if not len(us):
        return np.zeros(len(qs), dtype=np.int64)
    cum = np.concatenate(([0], np.cumsum(ue - us)))

    def upto(t: np.ndarray) -> np.ndarray:
        k = np.searchsorted(us, t, side="right")
        over = np.where(k > 0, np.maximum(ue[np.maximum(k - 1, 0)] - t, 0), 0)
        return cum[k] - over

    return upto(qe) - upto(qs)


def _top_owner(trace: Trace, own: Ownership, gs: np.ndarray, ge: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per gap: the op name with the most self time inside it, and that time (gaps sorted, disjoint)."""
    n = len(gs)
    if not len(own.start):
        return np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    lo = np.searchsorted(ge, own.start, side="right")
    hi = np.searchsorted(gs, own.end, side="left")
    count = np.maximum(hi - lo, 0)
    seg = np.repeat(np.arange(len(own.start)), count)
    gap = np.repeat(lo, count) + (np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count))
    ov = np.minimum(own.end[seg], ge[gap]) - np.maximum(own.start[seg], gs[gap])
    name = trace.events.name[own.owner[seg]].astype(np.int64)
    good = ov > 0
    if not good.any():
        return np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    key = gap[good] * (len(trace.names) + 1) + name[good]
    uk, inv = np.unique(key, return_inverse=True)
    sums = np.bincount(inv, weights=ov[good]).astype(np.int64)
    kg, kn = uk // (len(trace.names) + 1), uk % (len(trace.names) + 1)
    order = np.lexsort((-sums, kg))  # per gap, largest first
    first = np.ones(len(order), dtype=bool)
    first[1:] = kg[order][1:] != kg[order][:-1]
    best = order[first]
    top_op = np.zeros(n, dtype=np.int64)
    top_ns = np.zeros(n, dtype=np.int64)
    top_op[kg[best]] = kn[best]
    top_ns[kg[best]] = sums[best]
    return top_op, top_ns


def _detail(delay: int | None, rt: float, fw: float, op: str) -> str:
    submit = "no linked submit" if delay is None else f"next submit {delay / 1000:+.1f} µs after gap start"
    host = f"framework self {fw:.0%}" + (f" (most: {op})" if op else "")
    return f"{submit}; runtime calls {rt:.0%}; {host}"
