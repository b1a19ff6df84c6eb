"""Everything the explorer shows, as plain data plus the moves the keys make; no Textual in here."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from neurontui.analysis.gaps import Gap
from neurontui.model.lanes import Lane
from neurontui.model.trace import Trace
from neurontui.tui import viewport as vp
from neurontui.tui.aggregate import RangeSummary, summarize
from neurontui.tui.layout import Layout, Stop, build_layout, default_collapsed
from neurontui.tui.paint import PaintIndex

CHAIN_LIMIT = 9  # linked events listed (and reachable with keys 1-9) in the detail pane


@dataclass
class Search:
    """A name search: its matches in time order and the one selected."""

    query: str
    matches: np.ndarray
    position: int = -1


@dataclass
class ExplorerState:
    """The explorer's model: trace, viewport, cursor, selection, search, mark and pins."""

    index: PaintIndex
    view: vp.Viewport
    collapsed: set[Lane]
    pinned: list[int] = field(default_factory=list)
    cursor: Stop | None = None
    selected_event: int | None = None
    selected_gap: int | None = None  # position among the interior gaps
    focus: str = "event"  # what the detail pane shows: "event", "gap" or "range"
    search: Search | None = None
    mark_anchor: int | None = None
    marked: RangeSummary | None = None
    version: int = 0  # bumped on every change; widgets drop their caches when it moves
    layout: Layout = field(init=False)

    def __post_init__(self) -> None:
        self.relayout()
        if self.cursor is None and self.layout.stops:
            self.cursor = self._first_stop_of(self.index.execution_lane) or self.layout.stops[0]

    @classmethod
    def open(cls, index: PaintIndex) -> ExplorerState:
        trace = index.trace
        return cls(index=index, view=vp.fit(index.window), collapsed=default_collapsed(trace))

    @property
    def trace(self) -> Trace:
        return self.index.trace

    @property
    def window(self) -> tuple[int, int]:
        return self.index.window

    @property
    def interior_gaps(self) -> list[Gap]:
        return [self.index.gaps[k] for k in self.index.gap_ids]

    def changed(self) -> None:
        self.version += 1

    def relayout(self) -> None:
        self.layout = build_layout(self.trace, self.collapsed, self.pinned)
        self.changed()

    # ---- viewport ------------------------------------------------------------------
    def anchor(self) -> int:
        """Zoom around the selected event (or gap) when it is on screen, else around the centre."""
        if self.focus == "gap" and self.selected_gap is not None:
            gap = self.interior_gaps[self.selected_gap]
            mid = (gap.start + gap.end) // 2
        elif self.selected_event is not None:
            e = self.trace.event(self.selected_event)
            mid = (e.start + e.end) // 2
        else:
            return self.view.centre
        return mid if self.view.contains(mid) else self.view.centre

    def zoom(self, factor: float) -> None:
        self.view = vp.zoom(self.view, factor, self.anchor(), self.window)
        self.changed()

    def pan(self, fraction: float) -> None:
        self.view = vp.pan(self.view, fraction, self.window)
        self.changed()

    def fit(self) -> None:
        self.view = vp.fit(self.window)
        self.changed()

    def jump_to(self, t0: int, t1: int) -> None:
        self.view = vp.clamp(int(t0), int(t1), self.window)
        self.changed()

    def focus_selected(self) -> bool:
        """Zoom so the selected event (or gap) fills the view; False when nothing is selected."""
        if self.focus == "gap" and self.selected_gap is not None:
            gap = self.interior_gaps[self.selected_gap]
            self.view = vp.frame(gap.start, gap.end, self.window)
        elif self.selected_event is not None:
            e = self.trace.event(self.selected_event)
            self.view = vp.frame(e.start, e.end, self.window)
        else:
            return False
        self.changed()
        return True

    # ---- cursor ----------------------------------------------------------------------
    def _first_stop_of(self, lane: Lane) -> Stop | None:
        return next((s for s in self.layout.stops if s.lane == lane), None)

    def move_cursor(self, step: int) -> None:
        stops = self.layout.stops
        if not stops:
            return
        i = stops.index(self.cursor) if self.cursor in stops else 0
        self.cursor = stops[max(0, min(len(stops) - 1, i + step))]
        self.changed()

    def next_lane(self, step: int) -> None:
        lanes = sorted({s.lane for s in self.layout.stops})
        if not lanes or self.cursor is None:
            return
        i = lanes.index(self.cursor.lane)
        self.cursor = self._first_stop_of(lanes[(i + step) % len(lanes)])
        self.changed()

    def toggle_lane(self) -> None:
        if self.cursor is None:
            return
        lane = self.cursor.lane
        self.collapsed ^= {lane}
        self.relayout()
        on_selected = self.selected_event is not None and self.trace.event(self.selected_event).lane == lane
        track = self.trace.event(self.selected_event).track.id if on_selected and lane not in self.collapsed else None
        self.cursor = Stop(lane, track) if track is not None else self._first_stop_of(lane)

    def toggle_pin(self) -> bool | None:
        """Pin or unpin the cursor's track; None when the cursor is not on a track."""
        if self.cursor is None or self.cursor.track is None:
            return None
        track = self.cursor.track
        if track in self.pinned:
            self.pinned.remove(track)
        else:
            self.pinned.append(track)
        self.relayout()
        return track in self.pinned

    # ---- events ----------------------------------------------------------------------
    def select_event(self, i: int, show: bool = True) -> None:
        """Select event i, expand its lane, put the cursor on its track and bring it on screen."""
        e = self.trace.event(i)
        if e.lane in self.collapsed:
            self.collapsed.discard(e.lane)
            self.relayout()
        self.selected_event = int(i)
        self.cursor = Stop(e.lane, e.track.id)
        self.focus = "event"
        if show:
            self.view = vp.show(self.view, e.start, e.end, self.window)
        self.changed()

    def step_event(self, step: int) -> bool:
        """Select the next (+1) or previous (-1) event on the cursor's track in (start, depth) order."""
        if self.cursor is None or self.cursor.track is None:
            return False
        trace = self.trace
        track = trace.tracks[self.cursor.track]
        ev = trace.events
        current = self.selected_event
        if current is not None and int(ev.track[current]) == track.id:
            key = (int(ev.start[current]), trace.rows[int(ev.row[current])].depth)
        else:
            key = (self.view.t0 - 1, 1 << 30) if step > 0 else (self.view.t1, -1)
        best: tuple[int, int, int] | None = None
        for row in trace.track_rows(track):
            starts = ev.start[row.lo : row.hi]
            if step > 0:
                j = int(np.searchsorted(starts, key[0], side="left" if row.depth > key[1] else "right"))
                if j < len(starts):
                    cand = (int(starts[j]), row.depth, row.lo + j)
                    best = cand if best is None or cand < best else best
            else:
                j = int(np.searchsorted(starts, key[0], side="right" if row.depth < key[1] else "left")) - 1
                if j >= 0:
                    cand = (int(starts[j]), row.depth, row.lo + j)
                    best = cand if best is None or cand > best else best
        if best is None:
            return False
        self.select_event(best[2])
        return True

    def follow(self, downstream: bool) -> bool:
        """Select the first linked event downstream (op -> runtime -> device) or upstream."""
        if self.selected_event is None:
            return False
        links = self.trace.links
        linked = links.downstream(self.selected_event) if downstream else links.upstream(self.selected_event)
        if not len(linked):
            return False
        starts = self.trace.events.start[linked]
        self.select_event(int(linked[int(np.argmin(starts))]))
        return True

    def chain(self) -> list[int]:
        """The selected event's link chain: upstream ancestors, itself, then downstream events (breadth first)."""
        if self.selected_event is None:
            return []
        links = self.trace.links
        up: list[int] = []
        node = self.selected_event
        while len(up) < CHAIN_LIMIT:
            parents = links.upstream(node)
            if not len(parents) or int(parents[0]) in up:
                break
            node = int(parents[0])
            up.append(node)
        chain = [*reversed(up), self.selected_event]
        frontier = [self.selected_event]
        while frontier and len(chain) < CHAIN_LIMIT:
            nxt = [int(d) for f in frontier for d in links.downstream(f) if int(d) not in chain]
            chain.extend(nxt[: CHAIN_LIMIT - len(chain)])
            frontier = nxt
        return chain

    # ---- gaps ------------------------------------------------------------------------
    def select_gap(self, k: int) -> None:
        gap = self.interior_gaps[k]
        self.selected_gap = k
        self.focus = "gap"
        self.view = vp.frame(gap.start, gap.end, self.window, margin=1.0)
        self.changed()

    def step_gap(self, step: int) -> bool:
        starts = self.index.gap_start
        if not len(starts):
            return False
        if self.selected_gap is not None:
            k = self.selected_gap + step
        elif step > 0:
            k = int(np.searchsorted(starts, self.view.t0, side="left"))
        else:
            k = int(np.searchsorted(starts, self.view.t1, side="left")) - 1
        if not 0 <= k < len(starts):
            return False
        self.select_gap(k)
        return True

    def largest_gap(self) -> bool:
        if not len(self.index.gap_start):
            return False
        self.select_gap(int(np.argmax(self.index.gap_end - self.index.gap_start)))
        return True

    # ---- search ----------------------------------------------------------------------
    def search_step(self, query: str, step: int) -> bool:
        """Select the next (+1) or previous (-1) event whose name contains query."""
        if self.search is None or self.search.query != query:
            matches = self.trace.find_names(query) if query else np.zeros(0, np.int64)
            self.search = Search(query, matches)
            if len(matches):
                first = int(np.searchsorted(self.trace.events.start[matches], self.view.t0, side="left"))
                self.search.position = (first if step > 0 else first - 1) % len(matches)
        elif len(self.search.matches):
            self.search.position = (self.search.position + step) % len(self.search.matches)
        if not len(self.search.matches):
            self.changed()
            return False
        self.select_event(int(self.search.matches[self.search.position]))
        return True

    # ---- marked range ----------------------------------------------------------------
    def mark(self) -> str:
        """First press anchors, second closes the range and summarises it, third clears; returns which."""
        if self.marked is not None:
            self.marked, self.mark_anchor = None, None
            self.focus = "event"
            self.changed()
            return "cleared"
        if self.mark_anchor is None:
            self.mark_anchor = self.trace.event(self.selected_event).start if self.selected_event is not None else self.view.centre
            self.changed()
            return "anchored"
        end = self.trace.event(self.selected_event).end if self.selected_event is not None else self.view.centre
        t0, t1 = sorted((self.mark_anchor, end))
        if t1 <= t0:
            t0, t1 = self.view.t0, self.view.t1
        self.marked = summarize(self.index, t0, t1)
        self.focus = "range"
        self.changed()
        return "marked"

    # ---- reload ------------------------------------------------------------------------
    def carried_to(self, index: PaintIndex, keep_view: bool) -> ExplorerState:
        """The same view of a reloaded trace: viewport, lanes, pins, cursor and selection by stable keys."""
        new = index.trace
        by_key = {t.key: t.id for t in new.tracks}
        old = self.trace
        pins = [by_key[old.tracks[t].key] for t in self.pinned if old.tracks[t].key in by_key]
        state = ExplorerState(index=index, view=vp.fit(index.window), collapsed=set(self.collapsed), pinned=pins)
        if keep_view:
            state.view = vp.clamp(self.view.t0, self.view.t1, index.window)
        if self.cursor is not None:
            track = by_key.get(old.tracks[self.cursor.track].key) if self.cursor.track is not None else None
            stop = Stop(self.cursor.lane, track)
            if stop in state.layout.stops:
                state.cursor = stop
        if self.selected_event is not None:
            found = _same_event(old, self.selected_event, new, by_key)
            if found is not None:
                state.select_event(found, show=False)
        if self.search is not None:
            state.search = Search(self.search.query, new.find_names(self.search.query))
        state.changed()
        return state


def _same_event(old: Trace, i: int, new: Trace, by_key: dict[str, int]) -> int | None:
    """The event of `new` on the same track with the same start and name as old event i."""
    e = old.event(i)
    track = by_key.get(e.track.key)
    name = new.names.lookup(e.name)
    if track is None or name is None:
        return None
    ev = new.events
    for row in new.track_rows(new.tracks[track]):
        starts = ev.start[row.lo : row.hi]
        j = int(np.searchsorted(starts, e.start, side="left"))
        if j < len(starts) and starts[j] == e.start and ev.name[row.lo + j] == name:
            return row.lo + j
    return None
