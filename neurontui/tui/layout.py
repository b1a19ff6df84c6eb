"""Which line of the timeline shows what: lane headers, track depth rows, and pinned tracks on top."""

from __future__ import annotations

from dataclasses import dataclass

from neurontui.model.lanes import LANES, Lane
from neurontui.model.trace import Trace

COLLAPSE_TRACKS_OVER = 12  # lanes with more tracks than this start collapsed


@dataclass(frozen=True)
class LaneLine:
    """A lane's header: its name, track count and busy/gap strip."""

    lane: Lane
    collapsed: bool
    tracks: int


@dataclass(frozen=True)
class RowLine:
    """One depth row of a track; the track's label sits on its first row."""

    track: int
    row: int
    depth: int
    pinned: bool = False


Line = LaneLine | RowLine


@dataclass(frozen=True)
class Stop:
    """A place the cursor can rest: a track, or the header of a collapsed lane."""

    lane: Lane
    track: int | None


@dataclass(frozen=True)
class Layout:
    """Lines in screen order (pinned lines are drawn fixed above the scrolling ones) and cursor stops."""

    pinned: tuple[RowLine, ...]
    lines: tuple[Line, ...]
    stops: tuple[Stop, ...]

    def line_of(self, stop: Stop) -> int:
        """Index in `lines` where a stop starts (its lane header when the lane is collapsed)."""
        for i, line in enumerate(self.lines):
            if stop.track is None and isinstance(line, LaneLine) and line.lane == stop.lane:
                return i
            if stop.track is not None and isinstance(line, RowLine) and line.track == stop.track:
                return i
        return 0

    def track_span(self, track: int) -> tuple[int, int]:
        """[first, last] line indices of a track's rows, or (0, 0) when it is not laid out."""
        hits = [i for i, line in enumerate(self.lines) if isinstance(line, RowLine) and line.track == track]
        return (hits[0], hits[-1]) if hits else (0, 0)


def default_collapsed(trace: Trace) -> set[Lane]:
    """The 'other' lane and lanes with very many tracks start collapsed so the device lanes are on screen."""
    collapsed = {Lane.OTHER}
    for lane in LANES:
        if len(trace.lane_tracks(lane)) > COLLAPSE_TRACKS_OVER:
            collapsed.add(lane)
    return collapsed


def build_layout(trace: Trace, collapsed: set[Lane], pinned: list[int]) -> Layout:
    """Lay out every lane with events, expanded lanes with all their non-empty tracks' depth rows."""
    lines: list[Line] = []
    stops: list[Stop] = []
    for lane in LANES:
        tracks = [t for t in trace.lane_tracks(lane) if t.n_rows]
        if not tracks:
            continue
        folded = lane in collapsed
        lines.append(LaneLine(lane, folded, len(tracks)))
        if folded:
            stops.append(Stop(lane, None))
            continue
        for track in tracks:
            stops.append(Stop(lane, track.id))
            for row in trace.track_rows(track):
                lines.append(RowLine(track.id, row.id, row.depth))
    pinned_lines = tuple(
        RowLine(t, row.id, row.depth, pinned=True) for t in pinned for row in trace.track_rows(trace.tracks[t])
    )
    return Layout(pinned_lines, tuple(lines), tuple(stops))
