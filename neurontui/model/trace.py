"""The in-memory trace: tracks, depth rows and columnar events on one epoch-ns time base."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from neurontui.model import intervals
from neurontui.model.lanes import Lane
from neurontui.model.strings import StringTable

# Event flags (uint8 bit set).
BUSY = 1  # counts as busy time of its lane (cuda_sync, gpu_user_annotation do not)
INSTANT = 2  # zero-length marker drawn as a tick


@dataclass(frozen=True)
class Track:
    """A thread, stream, core, engine or queue: one labelled band of rows."""

    id: int
    lane: Lane
    name: str  # what the screen shows, e.g. "thread 23695", "stream 7", "NC0 tensor"
    key: str  # stable identity across reloads
    group: str = ""  # e.g. "pid 4037" or "NeuronCore 0"
    first_row: int = 0  # rows[first_row : first_row + n_rows] belong to this track
    n_rows: int = 0


@dataclass(frozen=True)
class Row:
    """One screen row: a depth level of a track; events[lo:hi] are sorted by start."""

    id: int
    track: int
    depth: int
    lo: int
    hi: int


@dataclass
class Events:
    """Columnar events, sorted by (row, start); index i is the event's identity."""

    start: np.ndarray  # int64 ns since epoch
    end: np.ndarray  # int64 ns since epoch
    row: np.ndarray  # int32 -> Trace.rows
    track: np.ndarray  # int32 -> Trace.tracks
    name: np.ndarray  # int32 -> Trace.names
    cat: np.ndarray  # int16 -> Trace.categories
    corr: np.ndarray  # int64 correlation key (-1 when none)
    ext: np.ndarray  # int64 external id / op key (-1 when none)
    flags: np.ndarray  # uint8 BUSY | INSTANT
    raw: np.ndarray  # int64 handle to the raw args, decoded on demand
    max_end: np.ndarray  # int64 running max of end within each row

    def __len__(self) -> int:
        return len(self.start)

    @property
    def duration(self) -> np.ndarray:
        return self.end - self.start


@dataclass
class Links:
    """Directed event links (upstream -> downstream), indexed both ways for O(log n) lookups."""

    src: np.ndarray  # int32, sorted
    dst: np.ndarray  # int32, aligned with src
    rev_dst: np.ndarray  # int32, dst sorted
    rev_src: np.ndarray  # int32, aligned with rev_dst

    @classmethod
    def from_pairs(cls, src: np.ndarray, dst: np.ndarray) -> Links:
        """Deduplicate (src, dst) pairs and index them both ways."""
        src, dst = np.asarray(src, np.int64), np.asarray(dst, np.int64)
        # One int64 key per pair (event indices are < 2**31) makes dedup a 1-D unique.
        keys = np.unique((src << 32) | dst)
        s, d = (keys >> 32).astype(np.int32), (keys & 0xFFFFFFFF).astype(np.int32)
        s, d = s[s != d], d[s != d]
        order = np.argsort(d, kind="stable")
        return cls(s, d, d[order], s[order])

    @classmethod
    def empty(cls) -> Links:
        z = np.zeros(0, dtype=np.int32)
        return cls(z, z, z, z)

    def __len__(self) -> int:
        return len(self.src)

    def downstream(self, i: int) -> np.ndarray:
        lo, hi = np.searchsorted(self.src, [i, i + 1])
        return self.dst[lo:hi]

    def upstream(self, i: int) -> np.ndarray:
        lo, hi = np.searchsorted(self.rev_dst, [i, i + 1])
        return self.rev_src[lo:hi]


ArgsDecoder = Callable[[int], dict[str, Any]]


def _no_args(_: int) -> dict[str, Any]:
    return {}


@dataclass
class Trace:
    """One capture on one clock: metadata, lanes of tracks, events, links and steps."""

    path: str
    source: str  # "kineto", "neuron-parquet", "neuron-json", "neuron-capture", ...
    names: StringTable
    categories: list[str]
    tracks: list[Track]
    rows: list[Row]
    events: Events
    links: Links
    steps: np.ndarray  # (k, 2) int64 [start, end) of ProfilerStep windows
    meta: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    decode_args: ArgsDecoder = _no_args

    # ---- structure -------------------------------------------------------------
    def lane_tracks(self, lane: Lane) -> list[Track]:
        return [t for t in self.tracks if t.lane == lane]

    def track_rows(self, track: Track) -> list[Row]:
        return self.rows[track.first_row : track.first_row + track.n_rows]

    def lane_mask(self, lane: Lane) -> np.ndarray:
        lanes = np.fromiter((t.lane for t in self.tracks), dtype=np.int8, count=len(self.tracks))
        return lanes[self.events.track] == int(lane) if len(self.tracks) else np.zeros(0, bool)

    @property
    def window(self) -> tuple[int, int]:
        """[first start, last end) over every event."""
        if len(self.events) == 0:
            return (0, 0)
        return int(self.events.start.min()), int(self.events.end.max())

    # ---- queries -----------------------------------------------------------------
    def visible(self, row: Row, t0: int, t1: int) -> tuple[int, int]:
        """Events of one row intersecting [t0, t1): O(log n) via the running max of ends."""
        ev = self.events
        lo, hi = intervals.visible(ev.start[row.lo : row.hi], ev.max_end[row.lo : row.hi], t0, t1)
        return row.lo + lo, row.lo + hi

    def busy_union(self, lane: Lane, track_ids: list[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Union of the lane's busy intervals, optionally restricted to some tracks."""
        ev = self.events
        mask = self.lane_mask(lane) & ((ev.flags & BUSY) != 0)
        if track_ids is not None:
            mask &= np.isin(ev.track, np.asarray(track_ids, dtype=np.int32))
        return intervals.union(ev.start[mask], ev.end[mask])

    def has_busy(self, lane: Lane) -> bool:
        return bool(np.any(self.lane_mask(lane) & ((self.events.flags & BUSY) != 0)))

    def execution_lane(self) -> Lane:
        """Hardware when it has busy events, else device: where device idle time is measured."""
        return Lane.HARDWARE if self.has_busy(Lane.HARDWARE) else Lane.DEVICE

    def step_windows(self) -> np.ndarray:
        """ProfilerStep windows, or the whole trace as a single window when there are none."""
        if len(self.steps):
            return self.steps
        t0, t1 = self.window
        return np.array([[t0, t1]], dtype=np.int64) if t1 > t0 else np.zeros((0, 2), np.int64)

    # ---- single events -----------------------------------------------------------
    def event(self, i: int) -> EventView:
        return EventView(self, int(i))

    def iter_events(self, indices) -> Iterator[EventView]:
        for i in indices:
            yield EventView(self, int(i))

    def find_names(self, needle: str) -> np.ndarray:
        """Event indices whose name contains needle (case-insensitive), in time order."""
        low = needle.lower()
        ids = self.names.matching(lambda s: low in s.lower())
        hits = np.flatnonzero(np.isin(self.events.name, ids))
        return hits[np.argsort(self.events.start[hits], kind="stable")]


@dataclass(frozen=True)
class EventView:
    """A read-only look at one event; args are decoded only when asked for."""

    trace: Trace
    index: int

    @property
    def name(self) -> str:
        return self.trace.names[int(self.trace.events.name[self.index])]

    @property
    def category(self) -> str:
        return self.trace.categories[int(self.trace.events.cat[self.index])]

    @property
    def track(self) -> Track:
        return self.trace.tracks[int(self.trace.events.track[self.index])]

    @property
    def lane(self) -> Lane:
        return self.track.lane

    @property
    def start(self) -> int:
        return int(self.trace.events.start[self.index])

    @property
    def end(self) -> int:
        return int(self.trace.events.end[self.index])

    @property
    def duration(self) -> int:
        return self.end - self.start

    @property
    def busy(self) -> bool:
        return bool(self.trace.events.flags[self.index] & BUSY)

    def args(self) -> dict[str, Any]:
        return self.trace.decode_args(int(self.trace.events.raw[self.index]))

    def downstream(self) -> list[EventView]:
        return list(self.trace.iter_events(self.trace.links.downstream(self.index)))

    def upstream(self) -> list[EventView]:
        return list(self.trace.iter_events(self.trace.links.upstream(self.index)))
