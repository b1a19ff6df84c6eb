"""Putting device tables whose times are relative to the profile start onto the system trace's epoch clock."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from neurontui.formats import arrowcols as ac

# Anything before 1973 in epoch ns is a relative time, not a wall-clock one.
EPOCH_FLOOR_NS = 10**17

INFERRED = (
    "device instruction/DMA times were relative to the profile start; "
    "they were aligned to the nc_exec_running windows of the system trace (alignment inferred)"
)
UNALIGNED = (
    "device instruction/DMA times are relative to the profile start and the system trace has no "
    "nc_exec_running window to align them to; hardware times are not on the host clock"
)


def is_relative(start: np.ndarray) -> bool:
    """Device times that start near zero rather than near now."""
    return bool(len(start)) and int(start.min()) < EPOCH_FLOOR_NS


def align_device_times(
    start: np.ndarray,
    end: np.ndarray,
    pcore: np.ndarray,
    exec_windows: dict[int, np.ndarray],
    execution_info: pa.Table | None,
) -> tuple[np.ndarray, np.ndarray, str]:
    """Shift relative device times per core onto the matching nc_exec_running windows; note says what happened.

    With an ExecutionInfo table listing as many executions as the core has windows, each row
    is moved by the offset of the execution it falls in (execution k <-> k-th window);
    otherwise the core's first row is put at the start of its first window.
    """
    if not is_relative(start):
        return start, end, ""
    every = [w for w in exec_windows.values() if len(w)]
    if not every:
        return start, end, UNALIGNED
    all_windows = np.concatenate(every)
    all_windows = all_windows[np.argsort(all_windows[:, 0], kind="stable")]
    exec_starts = _execution_starts(execution_info)
    offset = np.zeros(len(start), dtype=np.int64)
    for core in np.unique(pcore).tolist():
        rows = np.flatnonzero(pcore == core)
        windows = exec_windows.get(int(core), all_windows)
        if exec_starts is not None and len(exec_starts) == len(windows):
            k = np.clip(np.searchsorted(exec_starts, start[rows], side="right") - 1, 0, len(windows) - 1)
            offset[rows] = windows[k, 0] - exec_starts[k]
        else:
            offset[rows] = int(windows[0, 0]) - int(start[rows].min())
    return start + offset, end + offset, INFERRED


def _execution_starts(execution_info: pa.Table | None) -> np.ndarray | None:
    if execution_info is None or "execution_start_ts" not in execution_info.column_names:
        return None
    starts = np.sort(ac.ints(execution_info, "execution_start_ts", 0))
    return starts if is_relative(starts) else None
