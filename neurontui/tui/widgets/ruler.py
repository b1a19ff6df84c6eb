"""The time ruler above the timeline: 1-2-5 ticks in readable units relative to the trace start, and the marked range."""

from __future__ import annotations

import numpy as np
from rich.segment import Segment
from textual.strip import Strip
from textual.widget import Widget

from neurontui.tui import timefmt
from neurontui.tui.paint import cell_edges, fit_label
from neurontui.tui.palette import Palette, make_palette
from neurontui.tui.state import ExplorerState
from neurontui.tui.widgets.timeline import SCROLLBAR_WIDTH, gutter_width

MIN_TICK_CELLS = 12


class Ruler(Widget):
    """Two lines: tick labels, then tick marks with the marked range (or its anchor) highlighted."""

    DEFAULT_CSS = "Ruler { height: 2; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state: ExplorerState | None = None
        self.palette: Palette = make_palette("rich")

    def show_state(self, state: ExplorerState | None, palette: Palette) -> None:
        self.state, self.palette = state, palette
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        state = self.state
        if state is None:
            return Strip.blank(width, self.rich_style)
        content = width - SCROLLBAR_WIDTH  # the timeline below always shows its scrollbar
        gutter = gutter_width(content)
        cells = max(1, content - gutter)
        view = state.view
        per_cell = view.span / cells
        step = timefmt.nice_step(per_cell * MIN_TICK_CELLS)
        origin = state.window[0]
        first = origin + ((view.t0 - origin + step - 1) // step) * step
        ticks = np.arange(first, view.t1, step, dtype=np.int64)
        columns = ((ticks - view.t0) / per_cell).astype(np.int64)
        if y == 0:
            line = [" "] * cells
            for t, c in zip(ticks.tolist(), columns.tolist()):
                label = "+" + timefmt.offset(t - origin, step) if t > origin else "0"
                if c + len(label) <= cells and all(ch == " " for ch in line[max(0, c - 1) : c + len(label)]):
                    line[c : c + len(label)] = label
            head = fit_label(f"span {timefmt.duration(view.span)}", gutter - 1) + " "
            segments = [Segment(head, self.palette.header), Segment("".join(line), self.palette.ruler)]
        else:
            marks = np.full(cells, "─", dtype="<U1")
            marks[columns[(columns >= 0) & (columns < cells)]] = "┴"
            segments = [Segment(fit_label(f"step {timefmt.duration(step)}", gutter - 1) + " ", self.palette.ruler)]
            segments.extend(self._marked(state, "".join(marks.tolist()), cells))
        return Strip(segments).adjust_cell_length(width).apply_style(self.rich_style)

    def _marked(self, state: ExplorerState, marks: str, cells: int) -> list[Segment]:
        if state.marked is not None:
            t0, t1 = state.marked.t0, state.marked.t1
        elif state.mark_anchor is not None:
            t0, t1 = state.mark_anchor, state.mark_anchor + 1
        else:
            return [Segment(marks, self.palette.ruler)]
        edges = cell_edges(state.view.t0, state.view.t1, cells)
        c0 = max(0, int(np.searchsorted(edges, t0, side="right")) - 1)
        c1 = min(cells, max(c0 + 1, int(np.searchsorted(edges, t1, side="left"))))
        if t1 <= state.view.t0 or t0 >= state.view.t1:
            return [Segment(marks, self.palette.ruler)]
        return [
            Segment(marks[:c0], self.palette.ruler),
            Segment(marks[c0:c1], self.palette.marked),
            Segment(marks[c1:], self.palette.ruler),
        ]
