"""Assembles a Trace from column batches: sorts, packs rows, indexes and links in bulk."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from neurontui.model.lanes import Lane
from neurontui.model.packing import pack_rows
from neurontui.model.strings import StringTable
from neurontui.model.trace import BUSY, ArgsDecoder, Events, Links, Row, Trace, Track, _no_args


@dataclass
class _TrackSpec:
    lane: Lane
    name: str
    key: str
    group: str
    sort: tuple


@dataclass
class TraceBuilder:
    """Collects tracks and event columns from a reader, then builds an immutable-ish Trace.

    Readers add events in any order with `add_events`; link pairs refer to the
    *input* positions (the running count of events added), which `build` maps to
    final indices after sorting.
    """

    path: str
    source: str
    names: StringTable = field(default_factory=StringTable)
    categories: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    decode_args: ArgsDecoder = _no_args
    _tracks: list[_TrackSpec] = field(default_factory=list)
    _track_index: dict[str, int] = field(default_factory=dict)
    _cols: dict[str, list[np.ndarray]] = field(default_factory=dict)
    _links: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    _steps: list[tuple[int, int]] = field(default_factory=list)
    _count: int = 0

    def category(self, name: str) -> int:
        try:
            return self.categories.index(name)
        except ValueError:
            self.categories.append(name)
            return len(self.categories) - 1

    def track(self, lane: Lane, key: str, name: str, group: str = "", sort: tuple = ()) -> int:
        """Id of the track with this key, creating it on first use."""
        idx = self._track_index.get(key)
        if idx is None:
            idx = self._track_index[key] = len(self._tracks)
            self._tracks.append(_TrackSpec(lane, name, key, group, sort))
        return idx

    @property
    def count(self) -> int:
        """Events added so far: the input position the next batch starts at."""
        return self._count

    def add_events(
        self,
        start: np.ndarray,
        end: np.ndarray,
        track: np.ndarray,
        name: np.ndarray,
        cat: np.ndarray,
        *,
        corr: np.ndarray | None = None,
        ext: np.ndarray | None = None,
        flags: np.ndarray | None = None,
        raw: np.ndarray | None = None,
    ) -> int:
        """Append a batch; returns the input position of its first event."""
        n = len(start)
        first = self._count
        minus = np.full(n, -1, dtype=np.int64)
        batch = {
            "start": np.asarray(start, np.int64),
            "end": np.asarray(end, np.int64),
            "track": np.broadcast_to(np.asarray(track, np.int32), (n,)),
            "name": np.broadcast_to(np.asarray(name, np.int32), (n,)),
            "cat": np.broadcast_to(np.asarray(cat, np.int16), (n,)),
            "corr": minus if corr is None else np.asarray(corr, np.int64),
            "ext": minus if ext is None else np.asarray(ext, np.int64),
            "flags": np.full(n, BUSY, np.uint8) if flags is None else np.broadcast_to(np.asarray(flags, np.uint8), (n,)),
            "raw": minus if raw is None else np.asarray(raw, np.int64),
        }
        for key, col in batch.items():
            self._cols.setdefault(key, []).append(col)
        self._count += n
        return first

    def add_links(self, src_pos: np.ndarray, dst_pos: np.ndarray) -> None:
        """Link pairs by input position (upstream -> downstream)."""
        self._links.append((np.asarray(src_pos, np.int64), np.asarray(dst_pos, np.int64)))

    def add_step(self, start: int, end: int) -> None:
        self._steps.append((int(start), int(end)))

    def build(self) -> Trace:
        cols = {k: np.concatenate(v) if v else np.zeros(0) for k, v in self._cols.items()}
        if not cols:
            cols = {k: np.zeros(0, dtype=t) for k, t in _DTYPES.items()}
        cols = {k: np.ascontiguousarray(v, dtype=_DTYPES[k]) for k, v in cols.items()}

        # Order tracks: lane, then the reader's sort key, then name; renumber events.
        order = sorted(range(len(self._tracks)), key=lambda i: (self._tracks[i].lane, self._tracks[i].sort, self._tracks[i].name))
        renumber = np.empty(len(order), dtype=np.int32)
        renumber[np.asarray(order, dtype=np.int64)] = np.arange(len(order), dtype=np.int32)
        if len(cols["track"]):
            cols["track"] = renumber[cols["track"]]

        # Sort by (track, start, -end) so parents come before children, then pack rows.
        perm = np.lexsort((-cols["end"], cols["start"], cols["track"]))
        cols = {k: v[perm] for k, v in cols.items()}
        depth = np.zeros(len(perm), dtype=np.int32)
        bounds = np.searchsorted(cols["track"], np.arange(len(order) + 1, dtype=np.int32))
        for t in range(len(order)):
            lo, hi = bounds[t], bounds[t + 1]
            depth[lo:hi] = pack_rows(cols["start"][lo:hi], cols["end"][lo:hi])

        # Rows are numbered track by track, depth by depth; re-sort events by (row, start).
        max_depth = np.zeros(len(order), dtype=np.int64)
        nonempty = bounds[1:] > bounds[:-1]
        if nonempty.any():  # events are grouped by track here: one reduceat, not a per-event ufunc.at
            max_depth[nonempty] = np.maximum.reduceat(depth, bounds[:-1][nonempty])
        n_rows = np.where(bounds[1:] > bounds[:-1], max_depth + 1, 0)
        first_row = np.concatenate(([0], np.cumsum(n_rows)[:-1])).astype(np.int64)
        row = (first_row[cols["track"]] + depth).astype(np.int32) if len(depth) else depth
        perm2 = np.argsort(row, kind="stable")
        cols = {k: v[perm2] for k, v in cols.items()}
        row = row[perm2]
        final_pos = np.empty(len(perm), dtype=np.int64)
        final_pos[perm[perm2]] = np.arange(len(perm), dtype=np.int64)

        total_rows = int(n_rows.sum())
        row_bounds = np.searchsorted(row, np.arange(total_rows + 1, dtype=np.int32))
        max_end = cols["end"].copy()
        tracks: list[Track] = []
        rows: list[Row] = []
        for new_id, old_id in enumerate(order):
            spec = self._tracks[old_id]
            fr, nr = int(first_row[new_id]), int(n_rows[new_id])
            tracks.append(Track(new_id, spec.lane, spec.name, spec.key, spec.group, fr, nr))
            for d in range(nr):
                r = fr + d
                lo, hi = int(row_bounds[r]), int(row_bounds[r + 1])
                rows.append(Row(r, new_id, d, lo, hi))
                if hi > lo:
                    max_end[lo:hi] = np.maximum.accumulate(max_end[lo:hi])

        events = Events(row=row, max_end=max_end, **cols)
        links = self._build_links(final_pos)
        steps = np.array(sorted(self._steps), dtype=np.int64).reshape(-1, 2)
        return Trace(
            path=self.path,
            source=self.source,
            names=self.names,
            categories=self.categories,
            tracks=tracks,
            rows=rows,
            events=events,
            links=links,
            steps=steps,
            meta=self.meta,
            warnings=self.warnings,
            decode_args=self.decode_args,
        )

    def _build_links(self, final_pos: np.ndarray) -> Links:
        if not self._links:
            return Links.empty()
        src = np.concatenate([s for s, _ in self._links])
        dst = np.concatenate([d for _, d in self._links])
        if len(src) == 0:
            return Links.empty()
        return Links.from_pairs(final_pos[src], final_pos[dst])


_DTYPES = {
    "start": np.int64,
    "end": np.int64,
    "track": np.int32,
    "name": np.int32,
    "cat": np.int16,
    "corr": np.int64,
    "ext": np.int64,
    "flags": np.uint8,
    "raw": np.int64,
}
