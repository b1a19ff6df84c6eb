"""Paints one screen row of a time window into segments: O(cells · log n), vectorised per row.

A row's events never overlap, so both its starts and its ends are sorted and
"which events touch cell k" is two np.searchsorted calls over all cell edges:
`first` = events ended before the cell, `count` = events started before its end
minus `first`. Cells are then grouped into runs and only runs are looped over,
so sub-cell events stay visible as dense cells at any zoom (occupancy, never
disappearance).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from rich.segment import Segment

from neurontui.analysis.gaps import Gap
from neurontui.model import intervals
from neurontui.model.lanes import Lane
from neurontui.model.trace import Row, Trace
from neurontui.tui import timefmt
from neurontui.tui.palette import Palette

EMPTY = -1
DENSE = -2
EDGE_GAP = -3  # a leading or trailing hole of a step: idle, but not between device work
GAP_BASE = -4  # interior gap k is encoded as GAP_BASE - k
DENSE_GLYPH = "▒"
GAP_GLYPH = "░"
EDGE_GAP_GLYPH = "·"
BUSY_GLYPH = "▄"
SEPARATOR = "▏"


@dataclass
class PaintIndex:
    """Per-trace arrays the painter needs, computed once when a trace is opened (in the loading worker)."""

    trace: Trace
    gaps: list[Gap]  # every gap of the analysis, in time order
    paint_end: np.ndarray  # end, but at least start + 1 so instants occupy their cell
    gap_start: np.ndarray  # interior gaps only, sorted, disjoint
    gap_end: np.ndarray
    gap_ids: list[int]  # interior gap k -> index in `gaps`
    edge_start: np.ndarray  # leading and trailing gaps, sorted, drawn dimmer in the lane header
    edge_end: np.ndarray
    execution_lane: Lane
    window: tuple[int, int]  # the trace's [first start, last end), computed once
    lane_union: dict[Lane, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    exec_busy: tuple[np.ndarray, np.ndarray] = (intervals.EMPTY, intervals.EMPTY)
    gap_memo: tuple[tuple[int, int, int], np.ndarray] | None = None

    @property
    def device_work(self) -> bool:
        """Whether anything ran on the execution lane; without it there are no device gaps to speak of."""
        return bool(len(self.exec_busy[0]))

    @classmethod
    def build(cls, trace: Trace, gaps: list[Gap]) -> PaintIndex:
        ev = trace.events
        interior = [k for k, g in enumerate(gaps) if g.kind == "interior"]
        interior.sort(key=lambda k: gaps[k].start)
        edges = sorted((g.start, g.end) for g in gaps if g.kind != "interior")
        lane_of_event = np.fromiter((t.lane for t in trace.tracks), np.int8, len(trace.tracks))[ev.track] if len(ev) else np.zeros(0, np.int8)
        index = cls(
            trace=trace,
            gaps=gaps,
            paint_end=np.maximum(ev.end, ev.start + 1),
            gap_start=np.array([gaps[k].start for k in interior], np.int64),
            gap_end=np.array([gaps[k].end for k in interior], np.int64),
            gap_ids=interior,
            edge_start=np.array([e[0] for e in edges], np.int64),
            edge_end=np.array([e[1] for e in edges], np.int64),
            execution_lane=trace.execution_lane(),
            window=trace.window,
        )
        for lane in Lane:
            mask = lane_of_event == int(lane)
            if mask.any():
                index.lane_union[lane] = intervals.union(ev.start[mask], index.paint_end[mask])
        index.exec_busy = trace.busy_union(index.execution_lane)
        return index


def cell_edges(t0: int, t1: int, cells: int) -> np.ndarray:
    """cells + 1 int64 boundaries splitting [t0, t1) evenly."""
    return t0 + (np.arange(cells + 1, dtype=np.int64) * (t1 - t0)) // max(cells, 1)


def occupancy(starts: np.ndarray, ends: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For sorted, non-overlapping intervals: (first intersecting index, how many) per cell."""
    first = np.searchsorted(ends, edges[:-1], side="right")
    count = np.searchsorted(starts, edges[1:], side="left") - first
    return first, count


def fit_label(text: str, width: int) -> str:
    """Text padded or cut (with an ellipsis) to exactly `width` cells; blank when under 3 cells."""
    if width < 3:
        return " " * width
    if len(text) <= width:
        return text + " " * (width - len(text))
    return text[: width - 1] + "…"


def centred(text: str, width: int) -> str | None:
    """Text centred in width cells, or None when it does not fit."""
    if len(text) + 2 > width:
        return None
    left = (width - len(text)) // 2
    return " " * left + text + " " * (width - left - len(text))


def _runs(keys: np.ndarray) -> list[tuple[int, int]]:
    """(key, length) of each run of equal keys, left to right."""
    bounds = [0, *(np.flatnonzero(keys[1:] != keys[:-1]) + 1).tolist(), len(keys)]
    values = keys[bounds[:-1]].tolist()
    return [(v, bounds[i + 1] - bounds[i]) for i, v in enumerate(values)]


def _gap_keys(index: PaintIndex, edges: np.ndarray) -> np.ndarray | None:
    """Interior gap per cell (GAP_BASE - k) or EMPTY; memoised for the frame's edges, shared by its rows."""
    if not len(index.gap_start):
        return None
    memo_key = (int(edges[0]), int(edges[-1]), len(edges))
    if index.gap_memo is None or index.gap_memo[0] != memo_key:
        first, count = occupancy(index.gap_start, index.gap_end, edges)
        index.gap_memo = (memo_key, np.where(count > 0, GAP_BASE - first, EMPTY))
    return index.gap_memo[1]


def paint_row(
    index: PaintIndex,
    row: Row,
    edges: np.ndarray,
    palette: Palette,
    selected_event: int | None,
    selected_gap: int | None,
) -> list[Segment]:
    """Segments for one depth row: event boxes with names, dense cells, and gap cells on the execution lane."""
    trace = index.trace
    ev = trace.events
    lo, hi = row.lo, row.hi
    first, count = occupancy(ev.start[lo:hi], index.paint_end[lo:hi], edges)
    keys = np.where(count == 1, first + lo, np.where(count > 1, DENSE, EMPTY))
    if trace.tracks[row.track].lane == index.execution_lane:
        gap_keys = _gap_keys(index, edges)
        if gap_keys is not None:
            keys = np.where(keys == EMPTY, gap_keys, keys)
    if selected_event is not None and lo <= selected_event < hi:
        c0 = int(np.searchsorted(edges, ev.start[selected_event], side="right")) - 1
        c1 = int(np.searchsorted(edges, index.paint_end[selected_event], side="left"))
        c0, c1 = max(c0, 0), min(c1, len(edges) - 1)
        if c1 > c0:
            keys[c0:c1] = selected_event
    segments: list[Segment] = []
    previous_was_box = False
    for key, length in _runs(keys):
        if key >= 0:
            name_id = int(ev.name[key])
            name = trace.names[name_id]
            style = palette.selected if key == selected_event else palette.event(name_id, name)
            if previous_was_box and length >= 2:
                segments.append(Segment(SEPARATOR + fit_label(name, length - 1), style))
            else:
                segments.append(Segment(fit_label(name, length), style))
            previous_was_box = True
            continue
        previous_was_box = False
        if key == EMPTY:
            segments.append(Segment(" " * length, palette.text))
        elif key == DENSE:
            segments.append(Segment(DENSE_GLYPH * length, palette.dense))
        else:
            k = GAP_BASE - key
            segments.append(Segment(GAP_GLYPH * length, palette.gap_selected if k == selected_gap else palette.gap_fill))
    return segments


def paint_lane(index: PaintIndex, lane: Lane, edges: np.ndarray, palette: Palette, selected_gap: int | None) -> list[Segment]:
    """The lane header's time strip: where the lane is busy, and on the execution lane every gap with its length."""
    union = index.lane_union.get(lane)
    cells = len(edges) - 1
    if union is None:
        return [Segment(" " * cells, palette.text)]
    first, count = occupancy(union[0], union[1], edges)
    keys = np.where(count > 0, 0, EMPTY)
    if lane == index.execution_lane:
        if len(index.edge_start):
            _, edge_count = occupancy(index.edge_start, index.edge_end, edges)
            keys = np.where((keys == EMPTY) & (edge_count > 0), EDGE_GAP, keys)
        gap_keys = _gap_keys(index, edges)
        if gap_keys is not None:
            keys = np.where(gap_keys != EMPTY, gap_keys, keys)
    segments: list[Segment] = []
    lane_style = palette.lane(lane)
    for key, length in _runs(keys):
        if key == 0:
            segments.append(Segment(BUSY_GLYPH * length, lane_style))
        elif key == EMPTY:
            segments.append(Segment(" " * length, palette.text))
        elif key == EDGE_GAP:
            segments.append(Segment(EDGE_GAP_GLYPH * length, palette.gap_fill))
        else:
            k = GAP_BASE - key
            gap = index.gaps[index.gap_ids[k]]
            label = centred(timefmt.duration(gap.duration), length)
            style = palette.gap_selected if k == selected_gap else palette.gap
            segments.append(Segment(label if label is not None else GAP_GLYPH * length, style))
    return segments
