"""PyTorch profiler (Kineto) Chrome traces -> Trace, fast: typed msgspec decode + numpy columns.

Handles `.json` / `.json.gz`, object or bare-list traces, every backend's
categories (lane table in lanemap.py), links from `External id`,
`correlation` and launch flows, and `ProfilerStep#N` windows. Odd events are
skipped and counted in a warning; a file that is not a trace raises TraceError.
"""

from __future__ import annotations

import gc
import json
import math
import os
import re
from itertools import compress, count, repeat
from operator import attrgetter
from dataclasses import dataclass
from typing import Any, Union

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


class _XArgs(msgspec.Struct, gc=False):
    """The two link keys read at load time; every other arg is decoded on demand."""

    external_id: int | None = msgspec.field(default=None, name="External id")
    correlation: int | None = None


class _MArgs(msgspec.Struct, gc=False):
    name: Any = None
    sort_index: Any = None


# One struct per phase (the `ph` tag), so metadata and flows decode into small objects.
class _X(msgspec.Struct, gc=False, tag_field="ph", tag="X"):
    name: Any = None
    cat: Any = None
    pid: ID = None
    tid: ID = None
    ts: float | None = None
    dur: float | None = None
    args: _XArgs = msgspec.field(default_factory=_XArgs)


class _M(msgspec.Struct, gc=False, tag_field="ph", tag="M"):
    name: Any = None
    pid: ID = None
    tid: ID = None
    args: _MArgs | None = None


class _FlowStart(msgspec.Struct, gc=False, tag_field="ph", tag="s"):
    cat: Any = None
    pid: ID = None
    tid: ID = None
    ts: float | None = None
    id: ID = None


class _FlowEnd(_FlowStart, tag="f"):
    """The same fields as a flow start; only the phase differs."""


class _Instant(msgspec.Struct, gc=False, tag_field="ph", tag="i"):
    pass


class _InstantOld(msgspec.Struct, gc=False, tag_field="ph", tag="I"):
    pass


# Every other Chrome-trace phase is accepted and counted, not drawn.
_OTHER_PHASES = tuple(
    msgspec.defstruct(f"_Phase_{i}", [], tag_field="ph", tag=tag, gc=False)
    for i, tag in enumerate(("B", "E", "C", "b", "n", "e", "t", "P", "N", "O", "D", "V", "v", "R", "c", "(", ")"))
)
_Event = _X | _M | _FlowStart | _FlowEnd | _Instant | _InstantOld | Union[_OTHER_PHASES]  # noqa: UP007


class _File(msgspec.Struct, gc=False):
    traceEvents: list[_Event] | None = None
    baseTimeNanoseconds: int | None = None
    schemaVersion: Any = None
    traceName: Any = None
    displayTimeUnit: Any = None
    deviceProperties: Any = None
    distributedInfo: Any = None
    synthetic: Any = None  # neurontui's marker on generated samples; not a Kineto field


class _Unreadable(msgspec.Struct, gc=False):
    """Placeholder for an event that could not be decoded (counted, never drawn)."""


class _LooseFile(msgspec.Struct, gc=False):
    traceEvents: Any = None
    baseTimeNanoseconds: Any = None


class _RawFile(msgspec.Struct, gc=False):
    traceEvents: list[msgspec.Raw] = []


_DECODE_FILE = msgspec.json.Decoder(_File)
_DECODE_LIST = msgspec.json.Decoder(list[_Event])

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
        assembler = _Assembler(p, data, header, events, skipped)
        del header, events  # the assembler frees the decoded objects once it has columns
        return assembler.build()
    finally:
        if paused:
            gc.enable()


def _decode(path: str, data: bytes) -> tuple[_File, list[_Event], int]:
    """Typed decode of the whole file; per-event fallback when some events have odd types."""
    first = _first_byte(data)
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
        return _decode_nonstandard(path, data, exc)
    return _decode_loose(path, data)


def _decode_nonstandard(path: str, data: bytes, exc: msgspec.DecodeError) -> tuple[_File, list, int]:
    """Python's json accepts NaN/Infinity, which some writers emit; anything else is broken."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        raise TraceError(path, f"is truncated or not valid JSON ({_short(exc)})") from None
    if isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list):
        base = doc.get("baseTimeNanoseconds")
        return _convert_each(_File(baseTimeNanoseconds=base if isinstance(base, int) else None), doc["traceEvents"])
    if isinstance(doc, list):
        return _convert_each(_File(), doc)
    raise TraceError(path, "is JSON but not a PyTorch profiler trace (no 'traceEvents' list)")


def _convert_each(header: _File, items: list) -> tuple[_File, list, int]:
    """Typed conversion event by event; the ones that do not fit are counted, not fatal."""
    events: list = []
    skipped = 0
    for item in items:
        try:
            events.append(msgspec.convert(item, _Event))
        except (msgspec.ValidationError, TypeError):
            events.append(_Unreadable())
            skipped += 1
    return header, events, skipped


def _decode_loose(path: str, data: bytes) -> tuple[_File, list[_Event], int]:
    try:
        loose = msgspec.json.decode(data, type=_LooseFile | list[msgspec.Raw])
    except msgspec.ValidationError:
        raise TraceError(path, "is JSON but not a PyTorch profiler trace") from None
    except msgspec.DecodeError as exc:
        return _decode_nonstandard(path, data, exc)
    if isinstance(loose, list):
        return _convert_each(_File(), [msgspec.json.decode(raw) for raw in loose])
    if not isinstance(loose.traceEvents, list):
        raise TraceError(path, "is JSON but 'traceEvents' is not a list")
    base = loose.baseTimeNanoseconds
    return _convert_each(_File(baseTimeNanoseconds=base if isinstance(base, int) else None), loose.traceEvents)


def _first_byte(data: bytes) -> bytes:
    """The first non-whitespace byte, without copying a large buffer."""
    match = _LEADING_SPACE.match(data)
    end = match.end() if match else 0
    return data[end : end + 1]


_LEADING_SPACE = re.compile(rb"\s*")


def _short(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:120]


def _ids_to_codes(*columns: list) -> list[np.ndarray]:
    """Dense codes for several id columns (ints or strings) against one shared vocabulary."""
    seen: dict = {}
    position = count()  # shared, so values first seen in different columns get distinct codes
    raw = [np.fromiter(map(seen.setdefault, col, position), dtype=np.int64, count=len(col)) for col in columns]
    # setdefault hands out first-seen positions; make them dense 0..k-1.
    firsts = np.fromiter(seen.values(), dtype=np.int64, count=len(seen))
    dense = np.zeros(int(firsts.max()) + 1 if len(firsts) else 0, dtype=np.int64)
    dense[firsts] = np.arange(len(firsts), dtype=np.int64)
    return [dense[r] for r in raw]


def _args_decoder(data: bytes):
    """Decode one event's args on demand; the raw event list is indexed on first use."""
    cache: list[list[msgspec.Raw]] = []

    def decode(handle: int) -> dict[str, Any]:
        if handle < 0:
            return {}
        if not cache:
            if _first_byte(data) == b"[":
                cache.append(msgspec.json.decode(data, type=list[msgspec.Raw]))
            else:
                cache.append(msgspec.json.decode(data, type=_RawFile).traceEvents)
        try:
            event = msgspec.json.decode(cache[0][handle])
        except (msgspec.DecodeError, IndexError):
            return {}
        args = event.get("args") if isinstance(event, dict) else None
        return args if isinstance(args, dict) else {}

    return decode


@dataclass
class _FlowColumns:
    """Launch-flow points (s and f of ac2g / async_gpu) as arrays."""

    ts: np.ndarray
    ok: np.ndarray
    is_start: np.ndarray
    fid: np.ndarray
    pid: np.ndarray
    tid: np.ndarray

    @classmethod
    def extract(cls, flows: list, f_pid: np.ndarray, f_tid: np.ndarray, base: int) -> _FlowColumns | None:
        if not flows:
            return None
        cats, ids, stamps = _columns(_FLOW_FIELDS, flows)
        launch_cats = [c for c in set(cats) if isinstance(c, str) and c.lower() in KINETO_LAUNCH_FLOWS]
        sel = np.flatnonzero(np.isin(np.array(cats, dtype=object), launch_cats) & np.not_equal(np.array(ids, dtype=object), None))
        if not len(sel):
            return None
        ts, _, ok = _Assembler._times(np.array(stamps, dtype=np.float64)[sel], np.zeros(len(sel)), base)
        is_start = np.fromiter(map(_IS_FLOW_START.get, map(type, flows), repeat(False)), dtype=bool, count=len(flows))
        return cls(ts, ok, is_start[sel], _ids_to_codes(ids)[0][sel], f_pid[sel], f_tid[sel])


class _Assembler:
    """Turns decoded events into builder columns; one instance per load."""

    def __init__(self, path: str, data: bytes, header: _File, events: list, skipped: int) -> None:
        self.path = path
        self.header = header
        self.events = events
        self.skipped = skipped
        self.builder = TraceBuilder(path=path, source="kineto", decode_args=_args_decoder(data))

    def build(self) -> Trace:
        evs = self.events
        kinds = np.fromiter(map(_KIND.get, map(type, evs), repeat(_K_OTHER)), dtype=np.int8, count=len(evs))
        x_pos = np.flatnonzero(kinds == _K_X)
        flow_pos = np.flatnonzero(kinds == _K_FLOW)
        n_instants = int(np.count_nonzero(kinds == _K_INSTANT))
        if not len(x_pos) and not len(flow_pos) and not n_instants:
            problem = "holds no readable trace events" if evs else "holds no trace events"
            raise TraceError(self.path, problem)

        b = self.builder
        base = self.header.baseTimeNanoseconds
        b.meta.update(self._header_meta(base, n_instants))
        metadata = _metadata(list(compress(evs, (kinds == _K_META).tolist())))
        xs = list(compress(evs, (kinds == _K_X).tolist()))
        fl = list(compress(evs, (kinds == _K_FLOW).tolist()))
        # The metadata structs (most of a big trace's events) are freed here, before columns grow.
        self.events = None
        self.header.traceEvents = None
        del evs
        # Columns are consumed one by one and dropped, to keep the peak memory low.
        ts, dur, pid_vals, tid_vals, cats, raw_names, args = _columns(_X_FIELDS, xs)
        del xs
        x_pid, x_tid, f_pid, f_tid = _ids_to_codes(pid_vals, tid_vals, list(map(_PID, fl)), list(map(_TID, fl)))
        start, dur_ns, ok = self._times(ts, dur, base or 0)
        del ts, dur
        cat_codes, cat_uniques = pd.factorize(np.array(cats, dtype=object), use_na_sentinel=False)
        del cats
        cat_uniques = [c if isinstance(c, str) else "" for c in cat_uniques]
        cat_ids = np.array([b.category(c) for c in cat_uniques], dtype=np.int16)
        cat_lane = np.array([int(kineto_lane(c)) for c in cat_uniques], dtype=np.int8)
        cat_flags = np.array([0 if c.lower() in KINETO_NOT_BUSY else BUSY for c in cat_uniques], np.uint8)
        lane = cat_lane[cat_codes] if len(cat_codes) else np.zeros(0, np.int8)
        names = _intern_names(b.names, raw_names)
        del raw_names
        ext, corr = (_id_column(c) for c in _columns(_LINK_FIELDS, args))
        del args

        keep = np.flatnonzero(ok)
        odd = len(ok) - len(keep)
        if odd:
            start, dur_ns, lane, cat_codes = start[keep], dur_ns[keep], lane[keep], cat_codes[keep]
            x_pid, x_tid, names, ext, corr = x_pid[keep], x_tid[keep], names[keep], ext[keep], corr[keep]
        end = start + dur_ns
        tracks = self._tracks(lane, x_pid, x_tid, keep, pid_vals, tid_vals, metadata)
        flows = _FlowColumns.extract(fl, f_pid, f_tid, base or 0)
        # Every column is in numpy now: drop the decoded objects before the builder allocates.
        del fl, pid_vals, tid_vals
        first = b.add_events(
            start,
            end,
            tracks,
            names,
            cat_ids[cat_codes],
            corr=corr,
            ext=ext,
            flags=cat_flags[cat_codes],
            raw=x_pos[keep].astype(np.int64),
        )
        self._link_ids(first, lane, ext, corr)
        if flows is not None:
            self._link_flows(first, flows, lane, x_pid, x_tid, start, end)
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
        if h.synthetic is True:
            meta["synthetic"] = True
        return meta

    @staticmethod
    def _times(ts: list, dur: list, base: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Epoch-ns starts and ns durations; `ok` marks events with sane numbers."""
        t = np.array(ts, dtype=np.float64) if len(ts) else np.zeros(0)
        d = np.array(dur, dtype=np.float64) if len(dur) else np.zeros(0)
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

    def _tracks(self, lane, pid, tid, keep, pid_vals, tid_vals, metadata) -> np.ndarray:
        """One track per (lane, pid, tid), named from the trace's metadata events."""
        b = self.builder
        procs, threads, proc_sort, thread_sort = metadata
        key = (lane.astype(np.int64) << 42) | (pid.astype(np.int64) << 21) | tid.astype(np.int64)
        uniq, first_idx, inverse = np.unique(key, return_index=True, return_inverse=True)
        ids = np.empty(len(uniq), dtype=np.int32)
        for u, fi in enumerate(first_idx.tolist()):
            ln = Lane(int(lane[fi]))
            p, t = pid_vals[keep[fi]], tid_vals[keep[fi]]
            ids[u] = b.track(
                ln,
                key=f"{ln.label}:{p}:{t}",
                name=_track_name(ln, p, t, threads),
                group=procs.get(p) or (f"pid {p}" if p is not None else ""),
                sort=(proc_sort.get(p, _num(p)), thread_sort.get((p, t), _num(t)), str(p), str(t)),
            )
        return ids[inverse.reshape(-1)]

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

    def _link_flows(self, first, flows: _FlowColumns, lane, x_pid, x_tid, start, end) -> None:
        """Launch flows (ac2g): bind `s` to the launch and `f` to the execution it points at."""
        ts, ok, is_start, fid, fpid, ftid = flows.ts, flows.ok, flows.is_start, flows.fid, flows.pid, flows.tid
        sel = ts  # one entry per launch flow point
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


_PID = attrgetter("pid")
_TID = attrgetter("tid")
_X_FIELDS = ("ts", "dur", "pid", "tid", "cat", "name", "args")
_LINK_FIELDS = ("external_id", "correlation")
_META_KEY = attrgetter("name", "pid", "tid")
_META_ARGS = attrgetter("args")
_FLOW_FIELDS = ("cat", "id", "ts")
_K_X, _K_META, _K_FLOW, _K_INSTANT, _K_OTHER = range(5)
_IS_FLOW_START = {_FlowStart: True}
_KIND = {_X: _K_X, _M: _K_META, _FlowStart: _K_FLOW, _FlowEnd: _K_FLOW, _Instant: _K_INSTANT, _InstantOld: _K_INSTANT}


def _columns(fields: tuple[str, ...], objects: list) -> list[list]:
    """One list per field, each gathered in C with map + attrgetter (no Python loop per event)."""
    return [list(map(attrgetter(f), objects)) for f in fields]


def _id_column(values: list) -> np.ndarray:
    """Integer ids with -1 for missing ones (float64 is exact below 2**53, checked)."""
    arr = np.array(values, dtype=np.float64) if values else np.zeros(0)
    if len(arr) and np.nanmax(np.abs(arr), initial=0.0) >= 2.0**53:
        return np.array([v if isinstance(v, int) and -(2**63) <= v < 2**63 else -1 for v in values], dtype=np.int64)
    return np.where(np.isnan(arr), -1, arr).astype(np.int64)


def _track_name(lane: Lane, pid: Any, tid: Any, threads: dict) -> str:
    label = threads.get((pid, tid))
    if lane == Lane.HARDWARE:
        return label or f"stream {tid}"
    if label and str(tid) not in label:
        return f"{label} ({tid})"
    return label or f"thread {tid}"


def _metadata(metas: list[_M]) -> tuple[dict, dict, dict, dict]:
    """Process/thread names and sort indices from `M` events (duplicates collapse first)."""
    procs: dict = {}
    threads: dict = {}
    proc_sort: dict = {}
    thread_sort: dict = {}
    # Metadata repeats a lot: collapse it to the last record per (name, pid, tid) in C first.
    latest = dict(zip(map(_META_KEY, metas), map(_META_ARGS, metas)))
    for (name, pid, tid), margs in latest.items():
        if margs is None:
            continue
        value, sort_index = margs.name, margs.sort_index
        if name == "process_name" and isinstance(value, str):
            procs[pid] = value
        elif name == "thread_name" and isinstance(value, str):
            threads[(pid, tid)] = value
        elif name == "process_sort_index" and isinstance(sort_index, int | float):
            proc_sort[pid] = float(sort_index)
        elif name == "thread_sort_index" and isinstance(sort_index, int | float):
            thread_sort[(pid, tid)] = float(sort_index)
    return procs, threads, proc_sort, thread_sort


def _intern_names(table, values: list) -> np.ndarray:
    """Intern event names; the rare unhashable or non-string name is converted, not dropped."""
    try:
        return table.intern_many(values)
    except TypeError:
        return table.intern_many([v if isinstance(v, str) else _name_of(v) for v in values])


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
