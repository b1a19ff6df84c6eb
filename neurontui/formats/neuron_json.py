"""Legacy Neuron Explorer JSON exports (system profile, device profile) -> the Parquet tables' schema -> Trace."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

import msgspec
import pyarrow as pa

from neurontui.formats.merge import ArgsRouter
from neurontui.formats.neuron import add_explorer_tables
from neurontui.formats.neuron_tables import DMA_PACKET, INSTRUCTION, SUMMARY, SYSTEM_EVENTS, check_times
from neurontui.formats.rawio import read_bytes
from neurontui.model.builder import TraceBuilder
from neurontui.model.errors import TraceError
from neurontui.model.trace import Trace

_GROUP_NUMBER = re.compile(r"(\d+)\s*$")
_SOURCES = ("framework", "neuron_rt", "neuron_hw")
_EMPTY_SYSTEM = pa.schema([("start_ts", pa.int64()), ("end_ts", pa.int64()), ("name", pa.string()), ("trace_event_source", pa.string())])


def sniff_legacy(head: bytes) -> str | None:
    """'system' or 'device' when the start of a JSON file looks like a legacy export, else None."""
    text = head.lstrip()[:65536]
    if not text.startswith(b"{") or b"traceEvents" in text:
        return None
    if b'"trace_events"' in text:
        return "system"
    if b'"instruction"' in text or b'"dma"' in text:
        return "device"
    return None


def load_legacy_json(paths: Sequence[str | os.PathLike[str]]) -> Trace:
    """Load one system profile and/or one device profile JSON file as one trace."""
    tables: dict[str, pa.Table] = {}
    for path in paths:
        doc = _decode(path)
        if "trace_events" in doc:
            tables[SYSTEM_EVENTS] = _system_table(path, doc["trace_events"])
        else:
            tables.update(_device_tables(path, doc))
    if not tables:
        raise TraceError(paths[0] if paths else "", "holds no Neuron Explorer JSON profile")
    tables.setdefault(SYSTEM_EVENTS, _EMPTY_SYSTEM.empty_table())
    router = ArgsRouter()
    builder = TraceBuilder(path=os.fspath(paths[0]), source="neuron-json", decode_args=router)
    add_explorer_tables(builder, tables, router)
    builder.meta["format"] = "neuron-explorer-json"
    return builder.build()


def _decode(path: str | os.PathLike[str]) -> dict[str, Any]:
    try:
        doc = msgspec.json.decode(read_bytes(path))
    except msgspec.DecodeError as exc:
        raise TraceError(path, f"is truncated or not valid JSON ({str(exc)[:100]})") from None
    if not isinstance(doc, dict) or not ({"trace_events", "instruction", "dma"} & doc.keys()):
        raise TraceError(path, "is JSON but not a Neuron Explorer system or device profile")
    return doc


def _system_table(path: Any, events: Any) -> pa.Table:
    """trace_events rows -> SystemProfileEvents columns; source from `type`, else from `group`."""
    if not isinstance(events, list):
        raise TraceError(path, "has a 'trace_events' entry that is not a list")
    rows = []
    for e in events:
        if not isinstance(e, dict) or not isinstance(e.get("timestamp"), int):
            continue
        group = str(e.get("group", ""))
        number = _GROUP_NUMBER.search(group)
        core = int(number.group(1)) if number else None
        source = e.get("type") if e.get("type") in _SOURCES else ("neuron_rt" if group.startswith("nrt") else "neuron_hw")
        rows.append(
            {
                "name": str(e.get("name", "")),
                "start_ts": e["timestamp"],
                "end_ts": e["timestamp"] + int(e.get("duration") or 0),
                "trace_event_source": source,
                "instance_id": None if e.get("instance_id") is None else str(e.get("instance_id")),
                "thread_id": e.get("thread_id") if isinstance(e.get("thread_id"), int) else None,
                "nc_idx": core if source == "neuron_rt" else None,
                "pcore_idx": core if source == "neuron_hw" else None,
                "group": group,
            }
        )
    table = pa.Table.from_pylist(rows) if rows else _EMPTY_SYSTEM.empty_table()
    check_times(table, SYSTEM_EVENTS, path)
    return table


def _device_tables(path: Any, doc: dict[str, Any]) -> dict[str, pa.Table]:
    """instruction / dma lists -> Instruction / DmaPacket tables (timestamp -> start_ts, duration -> duration_ns)."""
    out: dict[str, pa.Table] = {}
    for key, name in (("instruction", INSTRUCTION), ("dma", DMA_PACKET)):
        rows = [_renamed(r) for r in doc.get(key) or [] if isinstance(r, dict) and isinstance(r.get("timestamp"), int)]
        if rows:
            try:
                out[name] = pa.Table.from_pylist(rows)
            except (pa.ArrowException, TypeError) as exc:
                raise TraceError(path, f"has a '{key}' list with mixed value types ({str(exc)[:100]})") from None
            check_times(out[name], name, path)
    summary = doc.get("summary")
    if isinstance(summary, list) and summary and all(isinstance(r, dict) for r in summary):
        out[SUMMARY] = pa.Table.from_pylist(summary)
    elif isinstance(summary, dict) and summary:
        out[SUMMARY] = pa.Table.from_pylist([summary])
    return out


def _renamed(row: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in row.items() if k not in ("timestamp", "duration")}
    out["start_ts"] = row["timestamp"]
    out["duration_ns"] = int(row.get("duration") or 0)
    return out
