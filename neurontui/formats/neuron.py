"""Neuron Explorer exports -> Trace: system trace, instructions and DMA packets on the four lanes.

Everything is column-wise (pyarrow -> numpy); no Python loop runs per row. Tracks follow
Neuron Explorer's System Trace Viewer: framework threads, framework driver streams, runtime
per logical NeuronCore, hardware per physical core with one sub-track per engine and per
DMA queue. `flow_id` lists become links framework -> device -> runtime -> hardware.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from neurontui.formats import arrowcols as ac
from neurontui.formats.merge import ArgsRouter
from neurontui.formats.neuron_align import INFERRED, align_device_times
from neurontui.formats.neuron_tables import (
    DMA_PACKET,
    EXECUTION_INFO,
    INSTRUCTION,
    SUMMARY,
    SYSTEM_EVENTS,
    SYSTEM_METADATA,
    ParquetRows,
    read_tables,
    row_sources,
)
from neurontui.model.builder import TraceBuilder
from neurontui.model.lanes import LANES, Lane
from neurontui.model.trace import BUSY, Trace

_TABLE_SHIFT = 40
_ROW_MASK = (1 << _TABLE_SHIFT) - 1
_SOURCE_LANES = {"neuron_rt": Lane.RUNTIME, "neuron_hw": Lane.HARDWARE}
# Engines in the order Neuron Explorer stacks them; unknown ones follow alphabetically.
_ENGINE_ORDER = ("tensor", "vector", "scalar", "gpsimd", "sync")


def load_explorer_export(path: str | os.PathLike[str]) -> Trace:
    """Load a Neuron Explorer Parquet export directory; TraceError with one sentence if unreadable."""
    tables = read_tables(path)
    router = ArgsRouter()
    builder = TraceBuilder(path=os.fspath(path), source="neuron-parquet", decode_args=router)
    add_explorer_tables(builder, tables, router, rows=row_sources(path))
    return builder.build()


@dataclass(frozen=True)
class AddedCounts:
    """How many events of each kind a call to add_explorer_tables put into the builder."""

    system: int
    instructions: int
    dma: int


def add_explorer_tables(
    builder: TraceBuilder,
    tables: dict[str, pa.Table],
    router: ArgsRouter,
    lanes: Iterable[Lane] = LANES,
    stand_ins: pd.DataFrame | None = None,
    rows: dict[str, ParquetRows] | None = None,
) -> AddedCounts:
    """Add an export's events (only the given lanes) to a builder, so it can be joined with a Kineto trace.

    `stand_ins` (columns name, start, pos: builder input positions) lets flows that start at
    skipped framework/device events link from the same events (same name and start) already added.
    `rows` gives whole-row readers for tables loaded with only some columns (see row_sources).
    """
    keep_lanes = set(lanes)
    handles = _Handles(router)
    system = tables[SYSTEM_EVENTS]
    system_start, system_end = _times(system)
    system_lane = _system_lanes(system)
    kept = np.flatnonzero(np.isin(system_lane, [int(lane) for lane in keep_lanes]))
    first = _add_system(builder, system, system_start, system_end, system_lane, kept, handles.add(system))
    _add_flow_links(builder, system, system_start, system_lane, kept, first, stand_ins)

    hardware = Lane.HARDWARE in keep_lanes
    n_instr = n_dma = 0
    device_tables = [(name, tables[name]) for name in (INSTRUCTION, DMA_PACKET) if name in tables and hardware]
    if device_tables:
        exec_windows = _exec_windows(system, system_start, system_end, system_lane)
        for name, table in device_tables:
            start, end = _times(table)
            pcore = ac.ints(table, "pcore_idx", 0)
            start, end, note = align_device_times(start, end, pcore, exec_windows, tables.get(EXECUTION_INFO))
            if note:
                builder.meta["alignment"] = "inferred" if note == INFERRED else "unaligned"
                if note not in builder.warnings:
                    builder.warnings.append(note)
            base = handles.add((rows or {}).get(name, table))
            if name == INSTRUCTION:
                n_instr = _add_instructions(builder, table, start, end, pcore, base)
            else:
                n_dma = _add_dma(builder, table, start, end, pcore, base)
    builder.meta.setdefault("alignment", "epoch")
    _add_meta(builder, tables)
    return AddedCounts(len(kept), n_instr, n_dma)


class _Handles:
    """Raw handles for decode_args: table number in the high bits, row index in the low bits."""

    def __init__(self, router: ArgsRouter) -> None:
        self.tables: list[pa.Table | ParquetRows] = []
        self.base = router.add(self.decode)

    def add(self, table: pa.Table | ParquetRows) -> int:
        self.tables.append(table)
        return self.base + ((len(self.tables) - 1) << _TABLE_SHIFT)

    def decode(self, handle: int) -> dict[str, Any]:
        table_no, row = handle >> _TABLE_SHIFT, handle & _ROW_MASK
        if table_no >= len(self.tables):
            return {}
        source = self.tables[table_no]
        if isinstance(source, ParquetRows):
            record = source.row(row)
        elif row < source.num_rows:
            record = source.slice(row, 1).to_pylist()[0]
        else:
            return {}
        return {k: v for k, v in record.items() if v is not None}


def _times(table: pa.Table) -> tuple[np.ndarray, np.ndarray]:
    """start/end in ns: end_ts when present, else start + duration_ns, else an instant."""
    start = ac.ints(table, "start_ts", 0)
    if "end_ts" in table.column_names:
        end = ac.ints(table, "end_ts", -1)
        missing = end < 0
        if missing.any():
            end[missing] = start[missing] + ac.ints(table, "duration_ns", 0)[missing]
    else:
        end = start + ac.ints(table, "duration_ns", 0)
    return start, np.maximum(end, start)


def _system_lanes(system: pa.Table) -> np.ndarray:
    """Lane per system event: framework (driver ones -> device), neuron_rt, neuron_hw, else other."""
    found, values = ac.codes(system, "trace_event_source")
    table = np.array([int(_source_lane(v)) for v in values] + [int(Lane.OTHER)], dtype=np.int8)
    lane = table[found]  # code -1 picks the trailing OTHER
    driver = (lane == Lane.FRAMEWORK) & ac.present(system, "framework_stream_id")
    lane[driver] = Lane.DEVICE
    return lane


def _source_lane(value: Any) -> Lane:
    if value == "framework":
        return Lane.FRAMEWORK
    return _SOURCE_LANES.get(str(value), Lane.OTHER)


def _add_system(builder, system, start, end, lane, kept, base) -> int:
    """Add the kept system events with one track per thread / stream / logical core / physical core."""
    pid, pid_values = ac.codes(system, "process_id")
    tid, tid_values = ac.codes(system, "thread_id")
    stream, stream_values = ac.codes(system, "framework_stream_id")
    nc, nc_values = ac.codes(system, "nc_idx")
    pcore, pcore_values = ac.codes(system, "pcore_idx")
    source, source_values = ac.codes(system, "trace_event_source")
    # Only the columns that identify a track in each lane take part in its key.
    minus = np.full(len(lane), -1, dtype=np.int64)
    fw, dv, rt, hw = (lane == Lane.FRAMEWORK), (lane == Lane.DEVICE), (lane == Lane.RUNTIME), (lane == Lane.HARDWARE)
    rt_by_thread = rt & (nc < 0)
    a = np.select([fw | dv | rt_by_thread, rt, hw], [pid, nc, pcore], minus)
    b = np.select([fw | rt_by_thread, dv, lane == Lane.OTHER], [tid, stream, source], minus)
    group, n_groups = ac.combine(lane.astype(np.int64), a, b, rt_by_thread.astype(np.int64))
    track_of_group = np.zeros(n_groups, dtype=np.int32)
    used = np.zeros(n_groups, dtype=bool)
    used[group[kept]] = True  # tracks of skipped lanes are never created
    for g, row in enumerate(ac.first_index(group, n_groups).tolist()):
        if not used[g]:
            continue
        track_of_group[g] = _system_track(
            builder,
            Lane(int(lane[row])),
            _value(pid_values, pid[row]),
            _value(tid_values, tid[row]),
            _value(stream_values, stream[row]),
            _value(nc_values, nc[row]) if not rt_by_thread[row] else None,
            _value(pcore_values, pcore[row]),
            _value(source_values, source[row]),
        )
    name_codes, name_values = ac.codes(system, "name")
    name_ids = np.append(builder.names.intern_many([str(v) for v in name_values]), builder.names.intern("(unnamed)"))
    cat_ids = np.array([builder.category(str(v)) for v in source_values] + [builder.category("neuron")], dtype=np.int16)
    flags = np.full(len(kept), BUSY, dtype=np.uint8)
    return builder.add_events(
        start[kept],
        end[kept],
        track_of_group[group[kept]],
        name_ids[name_codes[kept]],
        cat_ids[source[kept]],
        flags=flags,
        raw=base + kept.astype(np.int64),
    )


def _value(values: list[Any], code: int) -> Any:
    return values[code] if code >= 0 else None


def _system_track(builder: TraceBuilder, lane: Lane, pid, tid, stream, nc, pcore, source) -> int:
    group = f"pid {pid}" if pid is not None else ""
    if lane == Lane.FRAMEWORK:
        return builder.track(lane, f"framework:{pid}:{tid}", f"thread {tid}", group, sort=(1, _num(pid), _num(tid)))
    if lane == Lane.DEVICE:
        return builder.track(lane, f"device:{pid}:stream:{stream}", f"stream {stream}", group, sort=(1, _num(pid), _num(stream)))
    if lane == Lane.RUNTIME:
        if nc is None:
            return builder.track(lane, f"runtime:{pid}:{tid}", f"thread {tid}", group, sort=(2, _num(pid), _num(tid)))
        return builder.track(lane, f"runtime:nc:{nc}", f"NC{nc}", "logical NeuronCores", sort=(1, _num(nc), 0))
    if lane == Lane.HARDWARE:
        return builder.track(lane, f"hardware:core:{pcore}", f"NC{pcore} exec", f"NeuronCore {pcore}", sort=(1, _num(pcore), 0, 0, ""))
    return builder.track(lane, f"other:{source}", str(source), "", sort=(1, 0, 0))


def _num(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("inf")


def _add_flow_links(builder, system, start, lane, kept, first, stand_ins) -> None:
    """Events sharing a flow id are linked from each lane present in the flow to the next one down."""
    if "flow_id" not in system.column_names or not len(kept):
        return
    col = system.column("flow_id")
    if not (pa.types.is_list(col.type) or pa.types.is_large_list(col.type)):
        return
    col = col.combine_chunks()
    flat = pc.list_flatten(col)
    parent = np.asarray(pc.list_parent_indices(col).to_numpy(), dtype=np.int64)
    if not len(parent):
        return
    position = np.full(len(lane), -1, dtype=np.int64)
    position[kept] = first + np.arange(len(kept), dtype=np.int64)
    if stand_ins is not None and len(stand_ins):
        _fill_stand_ins(system, start, lane, position, stand_ins)
    members = pd.DataFrame(
        {"flow": pd.factorize(np.asarray(flat.to_numpy(zero_copy_only=False), dtype=object))[0],
         "level": lane[parent].astype(np.int64), "pos": position[parent]}
    )
    members = members[(members.flow >= 0) & (members.pos >= 0) & (members.level < int(Lane.OTHER))]
    levels = members[["flow", "level"]].drop_duplicates().sort_values(["flow", "level"])
    levels["next"] = levels.groupby("flow")["level"].shift(-1)
    steps = levels.dropna(subset=["next"]).astype({"next": np.int64})
    up = members.merge(steps, on=["flow", "level"])
    down = members.rename(columns={"level": "next", "pos": "dst"})
    pairs = up.merge(down, on=["flow", "next"])[["pos", "dst"]].drop_duplicates()
    builder.add_links(pairs["pos"].to_numpy(), pairs["dst"].to_numpy())


def _fill_stand_ins(system, start, lane, position, stand_ins: pd.DataFrame) -> None:
    """Positions of skipped framework/device events taken from the builder's events with the same name and start."""
    skipped = np.flatnonzero((position < 0) & ((lane == Lane.FRAMEWORK) | (lane == Lane.DEVICE)))
    if not len(skipped):
        return
    found, values = ac.codes(system, "name")
    names = np.array([str(v) for v in values] + [""], dtype=object)[found[skipped]]
    wanted = pd.DataFrame({"name": names, "start": start[skipped], "row": skipped})
    hits = wanted.merge(stand_ins.drop_duplicates(["name", "start"]), on=["name", "start"])
    position[hits["row"].to_numpy()] = hits["pos"].to_numpy()


def _exec_windows(system, start, end, lane) -> dict[int, np.ndarray]:
    """nc_exec_running windows per physical core: what relative device tables are aligned to."""
    found, values = ac.codes(system, "name")
    want = [i for i, v in enumerate(values) if v == "nc_exec_running"]
    mask = np.isin(found, want) & (lane == Lane.HARDWARE)
    pcore = ac.ints(system, "pcore_idx", 0)[mask]
    windows = np.stack([start[mask], end[mask]], axis=1)
    out: dict[int, np.ndarray] = {}
    for core in np.unique(pcore).tolist():
        w = windows[pcore == core]
        out[int(core)] = w[np.argsort(w[:, 0], kind="stable")]
    return out


def _add_instructions(builder, table, start, end, pcore, base) -> int:
    """One hardware sub-track per (core, timeline track or engine); the opcode names the event."""
    track_col = "timeline_track" if "timeline_track" in table.column_names else "engine"
    engine, engine_values = ac.codes(table, track_col)
    tracks = _core_subtracks(
        builder, pcore, engine, engine_values, "instructions",
        lambda core, label: (f"engine:{label}", f"NC{core} {label}", (1, core, 1, _engine_rank(label), label)),
    )
    name_col = "opcode" if "opcode" in table.column_names else "hlo_name"
    name_codes, name_values = ac.codes(table, name_col)
    name_ids = np.append(builder.names.intern_many([str(v) for v in name_values]), builder.names.intern("instruction"))
    return _add_rows(builder, table, start, end, tracks, name_ids[name_codes], "instruction", base)


def _engine_rank(label: str) -> int:
    low = label.lower()
    return next((i for i, engine in enumerate(_ENGINE_ORDER) if low.startswith(engine)), len(_ENGINE_ORDER))


def _add_dma(builder, table, start, end, pcore, base) -> int:
    """One hardware sub-track per (core, DMA queue); the queue type names the event."""
    queue, queue_values = ac.codes(table, "queue_name")
    tracks = _core_subtracks(
        builder, pcore, queue, queue_values, "queue",
        lambda core, label: (f"dma:{label}", f"NC{core} DMA {label}", (1, core, 2, 0, label)),
    )
    kind, kind_values = ac.codes(table, "queue_type")
    name_ids = np.append(builder.names.intern_many([f"dma {v}" for v in kind_values]), builder.names.intern("dma"))
    return _add_rows(builder, table, start, end, tracks, name_ids[kind], "dma", base)


def _core_subtracks(builder, pcore, codes, values, fallback: str, describe) -> np.ndarray:
    """One hardware track per (physical core, code), named by `describe(core, label)`; the track of each row."""
    core_codes, _ = pd.factorize(pcore)
    group, n_groups = ac.combine(core_codes.astype(np.int64), codes)
    track_of_group = np.zeros(n_groups, dtype=np.int32)
    for g, row in enumerate(ac.first_index(group, n_groups).tolist()):
        core = int(pcore[row])
        label = str(_value(values, codes[row]) or fallback)
        key, name, sort = describe(core, label)
        track_of_group[g] = builder.track(Lane.HARDWARE, f"hardware:core:{core}:{key}", name, f"NeuronCore {core}", sort=sort)
    return track_of_group[group]


def _add_rows(builder, table, start, end, tracks, names, category, base) -> int:
    n = table.num_rows
    builder.add_events(
        start, end, tracks, names, builder.category(category), flags=BUSY, raw=base + np.arange(n, dtype=np.int64)
    )
    return n


def _add_meta(builder: TraceBuilder, tables: dict[str, pa.Table]) -> None:
    """Summary metrics, execution count and profile metadata; `synthetic` when the export says so."""
    if SUMMARY in tables:
        builder.meta["summary_metrics"] = tables[SUMMARY].to_pylist()
    if EXECUTION_INFO in tables:
        builder.meta["executions"] = tables[EXECUTION_INFO].num_rows
    if SYSTEM_METADATA in tables and tables[SYSTEM_METADATA].num_rows:
        record = tables[SYSTEM_METADATA].slice(0, 1).to_pylist()[0]
        builder.meta["neuron_metadata"] = record
        if record.get("synthetic"):
            builder.meta["synthetic"] = True
    builder.meta.setdefault("format", "neuron-explorer-parquet")
