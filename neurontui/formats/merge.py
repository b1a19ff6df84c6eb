"""Joining traces of one capture: re-adding a loaded Trace's columns into a shared TraceBuilder."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from neurontui.model.builder import TraceBuilder
from neurontui.model.lanes import Lane
from neurontui.model.trace import ArgsDecoder, Trace

_SOURCE_SHIFT = 48
_LOCAL_MASK = (1 << _SOURCE_SHIFT) - 1


class ArgsRouter:
    """One decode_args for a joined trace: the top bits of a raw handle name the source it came from."""

    def __init__(self) -> None:
        self._decoders: list[ArgsDecoder] = []

    def add(self, decoder: ArgsDecoder) -> int:
        """Register a source's decoder; returns the base to add to that source's raw handles."""
        self._decoders.append(decoder)
        return (len(self._decoders) - 1) << _SOURCE_SHIFT

    def __call__(self, handle: int) -> dict[str, Any]:
        if handle < 0:
            return {}
        source = handle >> _SOURCE_SHIFT
        if source >= len(self._decoders):
            return {}
        return self._decoders[source](handle & _LOCAL_MASK)


def add_trace(builder: TraceBuilder, trace: Trace, router: ArgsRouter, lanes: Iterable[Lane] | None = None) -> int:
    """Copy a trace's tracks, events, links and steps (optionally only some lanes); returns events added."""
    keep_lanes = set(Lane if lanes is None else lanes)
    ev = trace.events
    track_lane = np.fromiter((int(t.lane) for t in trace.tracks), dtype=np.int8, count=len(trace.tracks))
    wanted = np.isin(track_lane, [int(lane) for lane in keep_lanes])
    keep = np.flatnonzero(wanted[ev.track]) if len(ev) else np.zeros(0, np.int64)

    track_map = np.full(len(trace.tracks), -1, dtype=np.int32)
    for t in trace.tracks:
        if wanted[t.id]:
            track_map[t.id] = builder.track(t.lane, t.key, t.name, t.group, sort=(0, t.id))
    name_map = _string_map(builder, trace.names, ev.name[keep])
    cat_map = np.array([builder.category(c) for c in trace.categories] or [0], dtype=np.int16)

    base = router.add(trace.decode_args)
    raw = ev.raw[keep]
    first = builder.add_events(
        ev.start[keep],
        ev.end[keep],
        track_map[ev.track[keep]],
        name_map[ev.name[keep]],
        cat_map[ev.cat[keep]],
        corr=ev.corr[keep],
        ext=ev.ext[keep],
        flags=ev.flags[keep],
        raw=np.where(raw >= 0, raw + base, -1),
    )
    position = np.full(len(ev), -1, dtype=np.int64)
    position[keep] = first + np.arange(len(keep), dtype=np.int64)
    links = trace.links
    if len(links):
        src, dst = position[links.src], position[links.dst]
        both = (src >= 0) & (dst >= 0)
        builder.add_links(src[both], dst[both])
    for start, end in trace.steps.tolist():
        builder.add_step(start, end)
    builder.meta.update({k: v for k, v in trace.meta.items() if k not in builder.meta})
    builder.warnings.extend(w for w in trace.warnings if w not in builder.warnings)
    return len(keep)


def _string_map(builder: TraceBuilder, names: Any, used: np.ndarray) -> np.ndarray:
    """Old name index -> builder name index, interning only the names the copied events use."""
    mapping = np.zeros(max(len(names), 1), dtype=np.int32)
    for old in np.unique(used).tolist():
        mapping[old] = builder.names.intern(names[old])
    return mapping
