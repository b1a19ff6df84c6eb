"""A key_averages()-like table computed from the trace itself, checkable against the profiler's own CSV.

Per framework op name, over the whole trace: calls, host total and self time
(self = the time no deeper op on the same thread covers, i.e. total minus direct
children), device time from the hardware executions the op launched directly
(framework -> device launch -> runtime -> hardware, following links up to three
hops; each execution counted once per op), device time including nested ops
(an op's own plus everything that starts inside it on its thread), and dispatches
(executions launched directly). Kernels are attributed to the innermost op holding
the launch, so nested ops never count one kernel twice in self figures.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from neurontui.analysis.ownership import Ownership, ownership
from neurontui.model.lanes import Lane
from neurontui.model.trace import BUSY, Trace

DEFAULT_TOLERANCE = 0.05
DEFAULT_ABS_TOLERANCE_NS = 2_000  # key_averages.csv rounds to 1 ns but tiny ops jitter by a µs or two


@dataclass(frozen=True)
class OpRow:
    """One op name's figures, in ns, over the whole trace."""

    name: str
    calls: int
    host_total_ns: int
    host_self_ns: int
    device_self_ns: int
    device_total_ns: int
    dispatches: int

    @property
    def host_avg_ns(self) -> float:
        return self.host_total_ns / self.calls if self.calls else 0.0

    @property
    def device_avg_ns(self) -> float:
        return self.device_total_ns / self.calls if self.calls else 0.0


@dataclass(frozen=True)
class OpCheck:
    """Our figure beside the profiler's for one op and one column; `agrees` applies the tolerance."""

    name: str
    column: str  # calls, host_total, host_self, device_total, device_self
    ours: float
    profiler: float
    agrees: bool


def key_averages_name(name: str) -> str:
    """The name key_averages() groups an event under (it folds ProfilerStep#N into ProfilerStep*)."""
    return "ProfilerStep*" if name.startswith("ProfilerStep#") else name


def op_table(trace: Trace) -> list[OpRow]:
    """Per-op calls, host and device times, largest host total first."""
    ev = trace.events
    fw = trace.lane_mask(Lane.FRAMEWORK) & ((ev.flags & BUSY) != 0)
    survivor = _merge_recursive(trace, fw)
    fw &= survivor == np.arange(len(ev))
    idx = np.flatnonzero(fw)
    if not len(idx):
        return []
    own = ownership(trace, fw & (ev.end > ev.start))
    self_host = own.self_ns(len(ev))
    dev_self, dispatches = _device_self(trace, _launches(trace, fw, own, survivor))
    dev_total = _nested_sum(trace, idx, dev_self)
    names = np.array([key_averages_name(trace.names[int(n)]) for n in ev.name[idx]], dtype=object)
    frame = pd.DataFrame(
        {
            "name": names,
            "calls": 1,
            "host_total_ns": ev.end[idx] - ev.start[idx],
            "host_self_ns": self_host[idx],
            "device_self_ns": dev_self[idx],
            "device_total_ns": dev_total[idx],
            "dispatches": dispatches[idx],
        }
    )
    grouped = frame.groupby("name", sort=False).sum().sort_values("host_total_ns", ascending=False, kind="stable")
    return [OpRow(str(name), *(int(v) for v in row)) for name, row in zip(grouped.index, grouped.itertuples(index=False))]


def read_key_averages(path: str | os.PathLike[str]) -> dict[str, dict[str, float]]:
    """The profiler's key_averages.csv (µs) as ns per op name and column."""
    out: dict[str, dict[str, float]] = {}
    with open(path, newline="", encoding="utf-8") as handle:
        for rec in csv.DictReader(handle):
            out[rec["name"]] = {
                "calls": float(rec["calls"]),
                "host_self": float(rec["self_host_us"]) * 1000,
                "host_total": float(rec["total_host_us"]) * 1000,
                "device_self": float(rec["self_device_us"]) * 1000,
                "device_total": float(rec["total_device_us"]) * 1000,
            }
    return out


def check_against_profiler(
    rows: list[OpRow],
    profiler: dict[str, dict[str, float]],
    tolerance: float = DEFAULT_TOLERANCE,
    abs_tolerance_ns: float = DEFAULT_ABS_TOLERANCE_NS,
) -> list[OpCheck]:
    """Our figures beside the profiler's for every op both know; disagreement = beyond both tolerances."""
    checks: list[OpCheck] = []
    for row in rows:
        theirs = profiler.get(row.name)
        if theirs is None:
            continue
        ours = {
            "calls": row.calls,
            "host_total": row.host_total_ns,
            "host_self": row.host_self_ns,
            "device_total": row.device_total_ns,
            "device_self": row.device_self_ns,
        }
        for column, value in ours.items():
            other = theirs[column]
            diff = abs(value - other)
            limit = 0 if column == "calls" else max(abs_tolerance_ns, tolerance * abs(other))
            checks.append(OpCheck(row.name, column, float(value), other, diff <= limit))
    return checks


def _merge_recursive(trace: Trace, fw: np.ndarray) -> np.ndarray:
    """Event each framework event is counted as: an only child named like its parent folds into it, as key_averages() does."""
    ev = trace.events
    survivor = np.arange(len(ev), dtype=np.int64)
    parent = np.full(len(ev), -1, dtype=np.int64)
    for track in trace.tracks:
        rows = trace.track_rows(track)
        for upper, lower in zip(rows[:-1], rows[1:]):
            up = upper.lo + np.flatnonzero(fw[upper.lo : upper.hi])
            down = lower.lo + np.flatnonzero(fw[lower.lo : lower.hi])
            if not len(up) or not len(down):
                continue
            j = np.searchsorted(ev.start[up], ev.start[down], side="right") - 1
            jj = np.maximum(j, 0)
            inside = (j >= 0) & (ev.end[up[jj]] >= ev.end[down])
            parent[down[inside]] = up[jj[inside]]
    has = np.flatnonzero(parent >= 0)
    children = np.bincount(parent[has], minlength=len(ev))
    fold = has[(ev.name[has] == ev.name[parent[has]]) & (children[parent[has]] == 1)]
    survivor[fold] = parent[fold]
    while True:  # chains of same-named only children fold into the outermost
        nxt = survivor[survivor]
        if np.array_equal(nxt, survivor):
            return survivor
        survivor = nxt


def _launches(trace: Trace, fw: np.ndarray, own: Ownership, survivor: np.ndarray) -> pd.DataFrame:
    """(op, launch) pairs: linked by the trace, else the innermost op on the launching thread."""
    ev = trace.events
    links = trace.links
    lane_of = _lane_of(trace)
    direct = fw[survivor[links.src]] & (lane_of[links.dst] != int(Lane.FRAMEWORK)) if len(links) else np.zeros(0, bool)
    pairs = [pd.DataFrame({"op": survivor[links.src[direct]], "at": links.dst[direct].astype(np.int64)})]
    launched = np.zeros(len(ev), dtype=bool)
    launched[links.dst[direct]] = True
    orphan = np.flatnonzero((lane_of == int(Lane.DEVICE)) & ((ev.flags & BUSY) != 0) & ~launched)
    by_key = {t.key.split(":", 1)[1]: t.id for t in trace.tracks if t.lane == Lane.FRAMEWORK and ":" in t.key}
    owner_track = ev.track[own.owner]
    for track in trace.lane_tracks(Lane.DEVICE):
        host = by_key.get(track.key.split(":", 1)[-1])
        mine = orphan[ev.track[orphan] == track.id]
        if host is None or not len(mine):
            continue
        seg = np.flatnonzero(owner_track == host)
        j = np.searchsorted(own.start[seg], ev.start[mine], side="right") - 1
        jj = np.maximum(j, 0)
        hit = (j >= 0) & (own.end[seg[jj]] > ev.start[mine]) if len(seg) else np.zeros(len(mine), bool)
        pairs.append(pd.DataFrame({"op": own.owner[seg[jj[hit]]], "at": mine[hit].astype(np.int64)}))
    return pd.concat(pairs, ignore_index=True)


def _device_self(trace: Trace, launches: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Hardware time and execution count each op launched directly (each execution once per op)."""
    ev = trace.events
    n = len(ev)
    dev = np.zeros(n, dtype=np.int64)
    count = np.zeros(n, dtype=np.int64)
    links = trace.links
    lane_of = _lane_of(trace)
    hw = (lane_of == int(Lane.HARDWARE)) & ((ev.flags & BUSY) != 0)
    edges = pd.DataFrame({"a": links.src.astype(np.int64), "b": links.dst.astype(np.int64)})
    edges = edges[lane_of[edges["a"].to_numpy()] != int(Lane.FRAMEWORK)]  # only launches lead further down
    frontier = launches
    reached = [frontier]
    for _ in range(2):
        frontier = frontier.merge(edges, left_on="at", right_on="a")[["op", "b"]].rename(columns={"b": "at"})
        reached.append(frontier)
    pairs = pd.concat(reached).drop_duplicates()
    pairs = pairs[hw[pairs["at"].to_numpy()]]
    if len(pairs):
        at = pairs["at"].to_numpy()
        ops = pairs["op"].to_numpy()
        np.add.at(dev, ops, ev.end[at] - ev.start[at])
        np.add.at(count, ops, 1)
    return dev, count


def _lane_of(trace: Trace) -> np.ndarray:
    lanes = np.fromiter((t.lane for t in trace.tracks), dtype=np.int8, count=len(trace.tracks))
    return lanes[trace.events.track] if len(trace.tracks) else np.zeros(0, np.int8)


def _nested_sum(trace: Trace, fw_idx: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Each framework event's value plus the values of every framework event starting inside it on its thread."""
    ev = trace.events
    out = np.zeros(len(ev), dtype=np.int64)
    tracks = ev.track[fw_idx]
    order = fw_idx[np.lexsort((-ev.end[fw_idx], ev.start[fw_idx], tracks))]
    tr = ev.track[order]
    for t in np.unique(tr):
        lo, hi = np.searchsorted(tr, [t, t + 1])
        members = order[lo:hi]
        starts = ev.start[members]
        cum = np.concatenate(([0], np.cumsum(values[members])))
        stop = np.searchsorted(starts, ev.end[members], side="left")
        first = np.arange(len(members))
        out[members] = cum[np.maximum(stop, first + 1)] - cum[first]
    return out


def op_report(
    rows: list[OpRow], profiler: dict[str, dict[str, float]] | None, tolerance: float = DEFAULT_TOLERANCE
) -> list[dict[str, object]]:
    """Our figures per op with the profiler's beside them (None when it has no row) and the columns that disagree."""
    checks = check_against_profiler(rows, profiler or {}, tolerance)
    by_op: dict[str, list[OpCheck]] = {}
    for c in checks:
        by_op.setdefault(c.name, []).append(c)
    out: list[dict[str, object]] = []
    for r in rows:
        theirs = (profiler or {}).get(r.name)
        out.append(
            {
                "name": r.name,
                "calls": r.calls,
                "host_total_ns": r.host_total_ns,
                "host_self_ns": r.host_self_ns,
                "device_total_ns": r.device_total_ns,
                "device_self_ns": r.device_self_ns,
                "dispatches": r.dispatches,
                "profiler": theirs,
                "disagree": [c.column for c in by_op.get(r.name, []) if not c.agrees],
            }
        )
    return out
