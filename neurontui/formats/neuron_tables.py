"""Finding and reading the tables of a Neuron Explorer Parquet export, with one-sentence errors."""

from __future__ import annotations

import bisect
import os
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from neurontui.model.errors import TraceError

SYSTEM_EVENTS = "SystemProfileEvents"
INSTRUCTION = "Instruction"
DMA_PACKET = "DmaPacket"
SUMMARY = "Summary"
EXECUTION_INFO = "ExecutionInfo"
SYSTEM_METADATA = "SystemProfileMetadata"
TABLES = (SYSTEM_EVENTS, INSTRUCTION, DMA_PACKET, SUMMARY, EXECUTION_INFO, SYSTEM_METADATA)

_PART = re.compile(r"^(?P<table>[A-Za-z]+)(?:_(?P<part>\d+))?\.parquet$")

# Columns that must be integer nanoseconds when present.
TIME_COLUMNS = ("start_ts", "end_ts", "duration_ns")
# Big tables: only these columns are read at load time; whole rows are read on demand (ParquetRows).
LOAD_COLUMNS = {
    INSTRUCTION: ("start_ts", "end_ts", "duration_ns", "pcore_idx", "engine", "timeline_track", "opcode", "hlo_name"),
    DMA_PACKET: ("start_ts", "end_ts", "duration_ns", "pcore_idx", "queue_name", "queue_type"),
}
# Low-cardinality strings read as dictionaries, so they are never decoded row by row.
DICTIONARY_COLUMNS = ("engine", "timeline_track", "opcode", "hlo_name", "queue_name", "queue_type", "trace_event_source", "name")


def table_files(directory: str | os.PathLike[str]) -> dict[str, list[Path]]:
    """Parquet files of an export by table name, split parts (`<Table>_0`, `_1`, …) in part order."""
    found: dict[str, list[tuple[int, Path]]] = {}
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return {}
    for entry in entries:
        m = _PART.match(entry.name)
        if m and entry.is_file():
            found.setdefault(m["table"], []).append((int(m["part"] or -1), Path(entry.path)))
    return {name: [p for _, p in sorted(parts)] for name, parts in found.items()}


def is_explorer_export(directory: str | os.PathLike[str]) -> bool:
    """A directory holding at least the system trace or the instruction table of an export."""
    files = table_files(directory)
    return SYSTEM_EVENTS in files or INSTRUCTION in files


def read_tables(directory: str | os.PathLike[str]) -> dict[str, pa.Table]:
    """Every known table of the export, split parts concatenated; TraceError for unreadable ones."""
    files = table_files(directory)
    if SYSTEM_EVENTS not in files:
        raise TraceError(directory, f"is not a Neuron Explorer export (no {SYSTEM_EVENTS}.parquet in it)")
    tables: dict[str, pa.Table] = {}
    for name in TABLES:
        if name in files:
            tables[name] = _read_parts(name, files[name], LOAD_COLUMNS.get(name))
    for name in (SYSTEM_EVENTS, INSTRUCTION, DMA_PACKET):
        if name in tables:
            check_times(tables[name], name, directory)
    return tables


def row_sources(directory: str | os.PathLike[str]) -> dict[str, ParquetRows]:
    """Whole-row readers for the tables read with only some columns."""
    files = table_files(directory)
    return {name: ParquetRows(files[name]) for name in LOAD_COLUMNS if name in files}


class ParquetRows:
    """Whole rows of a (split) table, read one row group at a time when a person opens an event."""

    def __init__(self, paths: list[Path]) -> None:
        self.paths = paths
        self._groups: list[tuple[int, Path, int]] | None = None  # (first row, file, row group)
        self._cached: tuple[int, pa.Table] | None = None

    def row(self, index: int) -> dict[str, object]:
        groups = self._index()
        starts = [first for first, _, _ in groups]
        k = bisect.bisect_right(starts, index) - 1
        if k < 0:
            return {}
        first, path, group = groups[k]
        if self._cached is None or self._cached[0] != k:
            self._cached = (k, pq.ParquetFile(path).read_row_group(group))
        table = self._cached[1]
        if index - first >= table.num_rows:
            return {}
        return table.slice(index - first, 1).to_pylist()[0]

    def _index(self) -> list[tuple[int, Path, int]]:
        if self._groups is None:
            groups, first = [], 0
            for path in self.paths:
                meta = pq.ParquetFile(path).metadata
                for g in range(meta.num_row_groups):
                    groups.append((first, path, g))
                    first += meta.row_group(g).num_rows
            self._groups = groups
        return self._groups


def _read_parts(name: str, paths: list[Path], columns: tuple[str, ...] | None) -> pa.Table:
    parts = []
    for path in paths:
        try:
            schema = pq.read_schema(path)
            wanted = None if columns is None else [c for c in columns if c in schema.names]
            dictionary = [c for c in DICTIONARY_COLUMNS if c in schema.names and pa.types.is_string(schema.field(c).type)]
            parts.append(pq.read_table(path, columns=wanted, read_dictionary=dictionary))
        except (pa.ArrowException, OSError) as exc:
            problem = "is empty (0 bytes)" if _size(path) == 0 else f"is not a readable Parquet file ({_first_line(exc)})"
            raise TraceError(path, problem) from None
    if len(parts) == 1:
        return parts[0]
    try:
        return pa.concat_tables(parts, promote_options="permissive")
    except pa.ArrowException as exc:
        raise TraceError(paths[0].parent, f"has {name} parts with incompatible columns ({_first_line(exc)})") from None


def check_times(table: pa.Table, name: str, where: object) -> None:
    """Timestamps must be integers (ns); a string or float column means the file is not an export."""
    for col in TIME_COLUMNS:
        if col in table.column_names:
            kind = table.schema.field(col).type
            if not (pa.types.is_integer(kind) or pa.types.is_timestamp(kind) or pa.types.is_null(kind)):
                raise TraceError(where, f"{name} column {col!r} has type {kind}, expected int64 nanoseconds")
    if "start_ts" not in table.column_names:
        raise TraceError(where, f"{name} has no 'start_ts' column")


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:120]
