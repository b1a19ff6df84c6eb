"""PyTorch profiler (Kineto) Chrome traces -> Trace, fast: typed msgspec decode + numpy columns.

Handles `.json` / `.json.gz`, object or bare-list traces, every backend's
categories (lane table in lanemap.py), links from `External id`,
`correlation` and launch flows, and `ProfilerStep#N` windows. Odd events are
skipped and counted in a warning; a file that is not a trace raises TraceError.
"""

from __future__ import annotations

import gc
import math
import os
from operator import attrgetter
from functools import cached_property
from typing import Any

import msgspec
import numpy as np
import pandas as pd

from neurontui.formats.lanemap import KINETO_LAUNCH_FLOWS, KINETO_NOT_BUSY, kineto_lane
from neurontui.formats.rawio import read_bytes
from neurontui.model.builder import TraceBuilder
from neurontui.model.errors import TraceError
from neurontui.model.lanes import Lane
from neurontui.model.trace import BUSY, Trace

ID = int | str | None


class _Args(msgspec.Struct, gc=False):
    """The few args read at load time; everything else is decoded on demand."""

    external_id: int | None = msgspec.field(default=None, name="External id")
    correlation: int | None = None
    name: Any = None  # metadata events: process/thread names
    sort_index: Any = None


class _Event(msgspec.Struct, gc=False):
    ph: str = ""
    name: Any = None
    cat: str | None = None
    pid: ID = None
    tid: ID = None
    ts: float | None = None
    dur: float | None = None
    id: ID = None
    bp: str | None = None
    args: _Args | None = None


class _File(msgspec.Struct, gc=False):
    traceEvents: list[_Event] | None = None
    baseTimeNanoseconds: int | None = None
    schemaVersion: Any = None
    traceName: Any = None
    displayTimeUnit: Any = None
    deviceProperties: Any = None
    distributedInfo: Any = None


class _LooseFile(msgspec.Struct, gc=False):
    traceEvents: Any = None
    baseTimeNanoseconds: Any = None


_DECODE_FILE = msgspec.json.Decoder(_File)
_DECODE_LIST = msgspec.json.Decoder(list[_Event])
_DECODE_EVENT = msgspec.json.Decoder(_Event)

# Timestamps past this (ns since epoch, ~2096) or durations past a week are not real.
_MAX_EPOCH_NS = 4 * 10**18
_MAX_DUR_NS = 7 * 86_400 * 10**9


def is_kineto_bytes(head: bytes) -> bool:
    """Cheap sniff: does a file start like a Chrome trace?"""
    h = head.lstrip()[:4096]
    return h.startswith(b"[") or (h.startswith(b"{") and b"traceEvents" in head)


def load_kineto(path: str | os.PathLike[str]) -> Trace:
    """Load a Kineto trace file into a Trace; raises TraceError with one sentence if unreadable."""
    p = os.fspath(path)
    data = read_bytes(p)
    # Hundreds of thousands of short-lived objects: the cyclic GC would only rescan them.
    paused = gc.isenabled()
    gc.disable()
    try:
        header, events, skipped = _decode(p, data)
        return _Assembler(p, data, header, events, skipped).build()
    finally:
        if paused:
            gc.enable()


def _decode(path: str, data: bytes) -> tuple[_File, list[_Event], int]:
    """Typed decode of the whole file; per-event fallback when some events have odd types."""
    first = data.lstrip()[:1]
    if first not in (b"{", b"["):
        raise TraceError(path, "is not JSON (it does not start with '{' or '[')")
    try:
        if first == b"[":
            return _File(), _DECODE_LIST.decode(data), 0
        header = _DECODE_FILE.decode(data)
        if header.traceEvents is None:
            raise TraceError(path, "is JSON but not a PyTorch profiler trace (no 'traceEvents' list)")
        return header, header.traceEvents, 0
    except msgspec.ValidationError:
        pass  # valid JSON with some unexpected types: decode event by event below
    except msgspec.DecodeError as exc:
        raise TraceError(path, f"is truncated or not valid JSON ({_short(exc)})") from None
    return _decode_loose(path, data)


def _decode_loose(path: str, data: bytes) -> tuple[_File, list[_Event], int]:
    try:
        loose = msgspec.json.decode(data, type=_LooseFile | list[msgspec.Raw])
    except msgspec.ValidationError:
        raise TraceError(path, "is JSON but not a PyTorch profiler trace") from None
    if isinstance(loose, list):
        raws, header = loose, _File()
    else:
        if not isinstance(loose.traceEvents, list):
            raise TraceError(path, "is JSON but 'traceEvents' is not a list")
        raws = [msgspec.json.encode(e) for e in loose.traceEvents]
        base = loose.baseTimeNanoseconds
        header = _File(baseTimeNanoseconds=base if isinstance(base, int) else None)
    events: list[_Event] = []
    skipped = 0
    for raw in raws:
        try:
            events.append(_DECODE_EVENT.decode(raw))
        except (msgspec.ValidationError, msgspec.DecodeError):
            events.append(_Event(ph="?"))  # keeps positions aligned with the raw list
            skipped += 1
    return header, events, skipped


def _short(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:120]


def _ids_to_codes(*columns: list) -> list[np.ndarray]:
    """Factorise several id columns (ints or strings) against one shared vocabulary."""
    joined = np.empty(sum(len(c) for c in columns), dtype=object)
    pos = 0
    for c in columns:
        joined[pos : pos + len(c)] = c
        pos += len(c)
    codes, _ = pd.factorize(joined, use_na_sentinel=False)
    out, pos = [], 0
    for c in columns:
        out.append(codes[pos : pos + len(c)])
        pos += len(c)
    return out


class _Assembler:
    """Turns decoded events into builder columns; one instance per load."""

    def __init__(self, path: str, data: bytes, header: _File, events: list[_Event], skipped: int) -> None:
        self.path = path
        self.data = data
        self.header = header
        self.events = events
        self.skipped = skipped
        self.builder = TraceBuilder(path=path, source="kineto", decode_args=self._decode_args)

    # -- on-demand args ---------------------------------------------------------------
    @cached_property
    def _raw_events(self) -> list[msgspec.Raw]:
        if self.data.lstrip()[:1] == b"[":
            return msgspec.json.decode(self.data, type=list[msgspec.Raw])

        class RawFile(msgspec.Struct):
            traceEvents: list[msgspec.Raw] = []

        return msgspec.json.decode(self.data, type=RawFile).traceEvents

    def _decode_args(self, handle: int) -> dict[str, Any]:
        if handle < 0:
            return {}
        try:
            event = msgspec.json.decode(self._raw_events[handle])
        except (msgspec.DecodeError, IndexError):
            return {}
        args = event.get("args") if isinstance(event, dict) else None
        return args if isinstance(args, dict) else {}

    # -- assembly -----------------------------------------------------------------------
    def build(self) -> Trace:
        evs = self.events
        phase = np.array(list(map(_PH, evs)), dtype=object)
        groups = {p: np.flatnonzero(phase == p).tolist() for p in ("X", "s", "f", "M", "i", "I")}
        x_pos = groups.get("X", [])
        flow_pos = groups.get("s", []) + groups.get("f", [])
        n_instants = len(groups.get("i", ())) + len(groups.get("I", ()))
        if not x_pos and not flow_pos and not n_instants:
            problem = "holds no readable trace events" if evs else "holds no trace events"
            raise TraceError(self.path, problem)

        b = self.builder
        base = self.header.baseTimeNanoseconds
        b.meta.update(self._header_meta(base, n_instants))
        xs = [evs[i] for i in x_pos]
        fl = [evs[i] for i in flow_pos]
        x_pid_vals, x_tid_vals = list(map(_PID, xs)), list(map(_TID, xs))
        x_pid, x_tid, f_pid, f_tid = _ids_to_codes(x_pid_vals, x_tid_vals, list(map(_PID, fl)), list(map(_TID, fl)))

        start, dur_ns, ok = self._times(list(map(_TS, xs)), list(map(_DUR, xs)), base or 0)
        odd = int((~ok).sum())
        cat_codes, cat_uniques = pd.factorize(np.array(list(map(_CAT, xs)), dtype=object), use_na_sentinel=False)
        cat_uniques = ["" if not isinstance(c, str) else c for c in cat_uniques]
        cat_ids = np.array([b.category(c) for c in cat_uniques], dtype=np.int16)
        cat_lane = np.array([int(kineto_lane(c)) for c in cat_uniques], dtype=np.int8)
        cat_flags = np.array([0 if c.lower() in KINETO_NOT_BUSY else BUSY for c in cat_uniques], np.uint8)
        lane = cat_lane[cat_codes] if len(xs) else np.zeros(0, np.int8)

        names = b.names.intern_many(_names(list(map(_NAME, xs))))
        args = list(map(_ARGS, xs))
        ext = np.array([-1 if a is None or a.external_id is None else a.external_id for a in args], dtype=np.int64)
        corr = np.array([-1 if a is None or a.correlation is None else a.correlation for a in args], dtype=np.int64)

        keep = np.flatnonzero(ok)
        if len(keep) < len(ok):
            start, end, lane = start[keep], start[keep] + dur_ns[keep], lane[keep]
            x_pid, x_tid, names, ext, corr = x_pid[keep], x_tid[keep], names[keep], ext[keep], corr[keep]
            cat_codes = cat_codes[keep]
        else:
            end = start + dur_ns
        tracks = self._tracks(lane, x_pid, x_tid, keep, x_pid_vals, x_tid_vals, [evs[i] for i in groups.get("M", [])])
        first = b.add_events(
            start,
            end,
            tracks,
            names,
            cat_ids[cat_codes],
            corr=corr,
            ext=ext,
            flags=cat_flags[cat_codes],
            raw=np.asarray(x_pos, dtype=np.int64)[keep],
        )
        self._link_ids(first, lane, ext, corr)
        self._link_flows(first, fl, f_pid, f_tid, lane, x_pid, x_tid, start, end, base or 0)
        self._steps(names, lane, start, end)

        bad = odd + self.skipped
        if bad:
            b.warnings.append(f"skipped {bad} odd event(s) (missing, negative, NaN or absurd times, or unexpected types)")
        b.meta["skipped_events"] = bad
        return b.build()

    def _header_meta(self, base: int | None, n_instants: int) -> dict[str, Any]:
        h = self.header
        meta: dict[str, Any] = {
            "format": "kineto",
            "time_base": "baseTimeNanoseconds + ts" if base is not None else "ts as epoch microseconds (no baseTimeNanoseconds)",
            "instants": n_instants,
        }
        if base is None:
            self.builder.warnings.append("no baseTimeNanoseconds: times are the trace's own ts values")
        for key in ("schemaVersion", "traceName", "displayTimeUnit", "deviceProperties", "distributedInfo"):
            value = getattr(h, key)
            if value is not None:
                meta[key] = value
        return meta

    @staticmethod
    def _times(ts: list, dur: list, base: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Epoch-ns starts and ns durations; `ok` marks events with sane numbers."""
        t = np.array(ts, dtype=np.float64) if ts else np.zeros(0)
        d = np.array(dur, dtype=np.float64) if dur else np.zeros(0)
        with np.errstate(invalid="ignore", over="ignore"):
            ok = np.isfinite(t) & np.isfinite(d) & (d >= 0) & (np.abs(t) < 1e16) & (d * 1000 < _MAX_DUR_NS)
            t = np.where(ok, t, 0.0)
            d = np.where(ok, d, 0.0)
            whole = np.floor(t)
            # Split whole microseconds and the fraction so float64 never rounds epoch ns.
            start = base + whole.astype(np.int64) * 1000 + np.rint((t - whole) * 1000).astype(np.int64)
            dur_ns = np.rint(d * 1000).astype(np.int64)
            ok &= (start >= 0) & (start < _MAX_EPOCH_NS)
        return start, dur_ns, ok

    def _tracks(self, lane, pid, tid, keep, pid_vals, tid_vals, metas) -> np.ndarray:
        """One track per (lane, pid, tid), named from the trace's metadata events."""
        b = self.builder
        procs, threads, proc_sort, thread_sort = _metadata(metas)
        key = (lane.astype(np.int64) << 42) | (pid.astype(np.int64) << 21) | tid.astype(np.int64)
        uniq, first_idx, inverse = np.unique(key, return_index=True, return_inverse=True)
        ids = np.empty(len(uniq), dtype=np.int32)
        for u, fi in enumerate(first_idx):
            ln = Lane(int(lane[fi]))
            p, t = pid_vals[keep[fi]], tid_vals[keep[fi]]
            ids[u] = b.track(
                ln,
                key=f"{ln.label}:{p}:{t}",
                name=self._track_name(ln, p, t, threads),
                group=procs.get(p) or (f"pid {p}" if p is not None else ""),
                sort=(proc_sort.get(p, _num(p)), thread_sort.get((p, t), _num(t)), str(p), str(t)),
            )
        return ids[inverse.reshape(-1)]

    @staticmethod
    def _track_name(lane: Lane, pid: Any, tid: Any, threads: dict) -> str:
        label = threads.get((pid, tid))
        if lane == Lane.HARDWARE:
            return label or f"stream {tid}"
        if label and str(tid) not in label:
            return f"{label} ({tid})"
        return label or f"thread {tid}"

    def _link_ids(self, first: int, lane: np.ndarray, ext: np.ndarray, corr: np.ndarray) -> None:
        """Op -> launch by External id; launch -> runtime/hardware by correlation."""
        pos = np.arange(first, first + len(lane), dtype=np.int64)
        fw = (lane == Lane.FRAMEWORK) & (ext >= 0)
        dv = (lane == Lane.DEVICE) & (ext >= 0)
        ops = pd.DataFrame({"key": ext[fw], "src": pos[fw]}).drop_duplicates("key")
        launches = pd.DataFrame({"key": ext[dv], "dst": pos[dv]})
        m = ops.merge(launches, on="key")
        self.builder.add_links(m["src"].to_numpy(), m["dst"].to_numpy())
        for up, down in ((Lane.DEVICE, Lane.RUNTIME), (Lane.DEVICE, Lane.HARDWARE), (Lane.RUNTIME, Lane.HARDWARE)):
            a = (lane == up) & (corr >= 0)
            z = (lane == down) & (corr >= 0)
            if a.any() and z.any():
                m = pd.DataFrame({"key": corr[a], "src": pos[a]}).merge(pd.DataFrame({"key": corr[z], "dst": pos[z]}), on="key")
                self.builder.add_links(m["src"].to_numpy(), m["dst"].to_numpy())

    def _link_flows(self, first, flows, f_pid, f_tid, lane, x_pid, x_tid, start, end, base) -> None:
        """Launch flows (ac2g): bind `s` to the launch and `f` to the execution it points at."""
        sel = [i for i, e in enumerate(flows) if isinstance(e.cat, str) and e.cat.lower() in KINETO_LAUNCH_FLOWS and e.id is not None]
        if not sel:
            return
        ts, _, ok = self._times([flows[i].ts for i in sel], [0.0] * len(sel), base)
        is_start = np.array([flows[i].ph == "s" for i in sel])
        fid = pd.factorize(np.array([flows[i].id for i in sel], dtype=object), use_na_sentinel=False)[0]
        fpid, ftid = f_pid[sel], f_tid[sel]
        bound = np.full(len(sel), -1, dtype=np.int64)
        launch_side = (lane == Lane.DEVICE) | (lane == Lane.RUNTIME)
        exec_side = lane == Lane.HARDWARE
        for side_mask, want_start in ((launch_side, True), (exec_side, False)):
            cand = np.flatnonzero(side_mask)
            pts = np.flatnonzero((is_start == want_start) & ok)
            if not len(cand) or not len(pts):
                continue
            thread = (x_pid[cand].astype(np.int64) << 32) | x_tid[cand].astype(np.int64)
            order = np.lexsort((start[cand], thread))
            cand, thread = cand[order], thread[order]
            pthread = (fpid[pts].astype(np.int64) << 32) | ftid[pts].astype(np.int64)
            for th in np.unique(pthread):
                lo, hi = np.searchsorted(thread, [th, th + 1])
                if hi <= lo:
                    continue
                c = cand[lo:hi]
                p = pts[pthread == th]
                j = np.searchsorted(start[c], ts[p], side="right") - 1
                good = j >= 0
                jj = np.where(good, j, 0)
                hit = good & (end[c[jj]] >= ts[p])
                bound[p[hit]] = c[jj[hit]]
        s = pd.DataFrame({"id": fid[is_start], "src": bound[is_start]})
        f = pd.DataFrame({"id": fid[~is_start], "dst": bound[~is_start]})
        m = s[s.src >= 0].drop_duplicates("id", keep="last").merge(f[f.dst >= 0], on="id")
        self.builder.add_links(first + m["src"].to_numpy(), first + m["dst"].to_numpy())

    def _steps(self, names: np.ndarray, lane: np.ndarray, start: np.ndarray, end: np.ndarray) -> None:
        """ProfilerStep#N on the framework lane: one window per step number."""
        b = self.builder
        step_ids = b.names.matching(lambda s: s.startswith("ProfilerStep#"))
        if not len(step_ids):
            return
        idx = np.flatnonzero(np.isin(names, step_ids) & (lane == Lane.FRAMEWORK))
        seen: set[int] = set()
        for i in idx[np.argsort(start[idx], kind="stable")]:
            if int(names[i]) in seen:
                continue
            seen.add(int(names[i]))
            b.add_step(int(start[i]), int(end[i]))


_PH = attrgetter("ph")
_PID = attrgetter("pid")
_TID = attrgetter("tid")
_TS = attrgetter("ts")
_DUR = attrgetter("dur")
_CAT = attrgetter("cat")
_NAME = attrgetter("name")
_ARGS = attrgetter("args")


def _metadata(metas: list[_Event]) -> tuple[dict, dict, dict, dict]:
    """Process/thread names and sort indices from `M` events (duplicates collapse first)."""
    procs: dict = {}
    threads: dict = {}
    proc_sort: dict = {}
    thread_sort: dict = {}
    try:
        seen = {(e.name, e.pid, e.tid, e.args.name, e.args.sort_index) for e in metas if e.args is not None}
    except TypeError:  # a list or dict where a name belongs: keep only the plain ones
        seen = {(e.name, e.pid, e.tid, e.args.name, e.args.sort_index) for e in metas if e.args is not None and _hashable(e.args.name) and _hashable(e.args.sort_index)}
    for name, pid, tid, value, sort_index in seen:
        if name == "process_name" and isinstance(value, str):
            procs[pid] = value
        elif name == "thread_name" and isinstance(value, str):
            threads[(pid, tid)] = value
        elif name == "process_sort_index" and isinstance(sort_index, int | float):
            proc_sort[pid] = float(sort_index)
        elif name == "thread_sort_index" and isinstance(sort_index, int | float):
            thread_sort[(pid, tid)] = float(sort_index)
    return procs, threads, proc_sort, thread_sort


def _hashable(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float)


def _names(values: list) -> list:
    """Event names as strings; the rare non-string name is converted, not dropped."""
    if all(type(v) is str for v in values):
        return values
    return [v if isinstance(v, str) else _name_of(v) for v in values]


def _name_of(value: Any) -> str:
    if value is None:
        return "(unnamed)"
    if isinstance(value, float) and math.isnan(value):
        return "(unnamed)"
    return str(value)


def _num(value: Any) -> float:
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        return math.inf
