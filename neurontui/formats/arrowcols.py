"""Arrow columns -> numpy without a Python loop per row: integers with defaults, and value codes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc


def ints(table: pa.Table, name: str, default: int) -> np.ndarray:
    """An integer column as int64; nulls and a missing column become `default`."""
    if name not in table.column_names:
        return np.full(table.num_rows, default, dtype=np.int64)
    col = table.column(name)
    if pa.types.is_timestamp(col.type):
        col = col.cast(pa.int64())
    if col.null_count:
        col = pc.fill_null(col, default)
    if not pa.types.is_integer(col.type):
        col = pc.cast(col, pa.int64(), safe=False)
    return np.asarray(col.to_numpy(), dtype=np.int64)


def codes(table: pa.Table, name: str) -> tuple[np.ndarray, list[Any]]:
    """Per-row codes into a list of distinct values (nulls and a missing column get code -1)."""
    if name not in table.column_names:
        return np.full(table.num_rows, -1, dtype=np.int64), []
    col = table.column(name)
    if pa.types.is_dictionary(col.type):
        return _dictionary_codes(col)
    if pa.types.is_string(col.type) or pa.types.is_large_string(col.type) or pa.types.is_binary(col.type):
        encoded = col.combine_chunks().dictionary_encode()
        indices = encoded.indices
        if indices.null_count:
            indices = pc.fill_null(indices, -1)
        return np.asarray(indices.to_numpy(), dtype=np.int64), encoded.dictionary.to_pylist()
    values = col.to_numpy() if col.null_count == 0 else np.asarray(col.to_pylist(), dtype=object)
    found, uniques = pd.factorize(values, use_na_sentinel=True)
    return found.astype(np.int64), [v.item() if hasattr(v, "item") else v for v in uniques]


def _dictionary_codes(col: pa.ChunkedArray) -> tuple[np.ndarray, list[Any]]:
    """Codes of a dictionary column without decoding its strings: chunks share one unified dictionary."""
    if col.num_chunks == 0:
        return np.zeros(0, dtype=np.int64), []
    col = col.unify_dictionaries()
    indices = pa.chunked_array([chunk.indices for chunk in col.chunks])
    if indices.null_count:
        indices = pc.fill_null(indices, -1)
    return np.asarray(indices.to_numpy(), dtype=np.int64), col.chunk(0).dictionary.to_pylist()


def present(table: pa.Table, name: str) -> np.ndarray:
    """True where the column exists and holds a value."""
    if name not in table.column_names:
        return np.zeros(table.num_rows, dtype=bool)
    return np.asarray(pc.is_valid(table.column(name)).to_numpy(zero_copy_only=False), dtype=bool)


def first_index(group: np.ndarray, n_groups: int) -> np.ndarray:
    """Row index of each group's first member, for groups numbered in order of first appearance (as combine does)."""
    if not len(group):
        return np.zeros(0, dtype=np.int64)
    reach = np.maximum.accumulate(group)
    return np.concatenate(([0], np.flatnonzero(reach[1:] > reach[:-1]) + 1))[:n_groups].astype(np.int64)


def combine(*parts: np.ndarray) -> tuple[np.ndarray, int]:
    """Group rows by several code columns at once: (group per row, number of groups)."""
    key = np.zeros(len(parts[0]), dtype=np.int64)
    for part in parts:
        span = int(part.max()) + 2 if len(part) else 1
        key = key * span + (part + 1)
    group, uniques = pd.factorize(key)
    return group.astype(np.int64), len(uniques)
