"""The timeline: every lane as bands of rows on one time axis, drawn with the Line API."""

from __future__ import annotations

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from neurontui.tui.layout import LaneLine, Line, RowLine
from neurontui.tui.paint import cell_edges, fit_label, paint_lane, paint_row
from neurontui.tui.palette import Palette, make_palette
from neurontui.tui.state import ExplorerState


SCROLLBAR_WIDTH = 1


def gutter_width(width: int) -> int:
    """Label column: 12 cells at 80 columns, growing to 24 on wide terminals."""
    return max(12, min(24, width // 7))


class Timeline(ScrollView, can_focus=True, inherit_bindings=False):
    """Lines are lane headers and track rows; pinned tracks stay fixed above the scrolling lines."""

    BINDINGS = [
        Binding("pageup", "page(-1)", "Page up", show=False, id="timeline.page-up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="timeline.page-down"),
    ]

    DEFAULT_CSS = """
    Timeline { scrollbar-size-vertical: 1; scrollbar-size-horizontal: 0; overflow-x: hidden; overflow-y: scroll; }
    """

    def __init__(self, palette_kind: str = "rich", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state: ExplorerState | None = None
        self.palette: Palette = make_palette(palette_kind)
        self._cache: LRUCache[tuple[int, int], Strip] = LRUCache(1024)
        self._cache_version = -1
        self._frame: tuple[Palette, int, np.ndarray] | None = None  # palette on the base style, width, cell edges
        self._based: tuple[Style, Palette, Palette] | None = None
        self.frames_painted = 0  # lines painted since start, read by the benchmark

    # ---- state -------------------------------------------------------------------------
    def show_state(self, state: ExplorerState | None) -> None:
        """Adopt a (new or changed) state: resize the virtual area, keep the cursor on screen, repaint."""
        self.state = state
        self.clear_cache()
        lines = 0 if state is None else len(state.layout.pinned) + len(state.layout.lines)
        self.virtual_size = Size(self.size.width, lines)
        self.keep_cursor_visible()
        self.refresh()

    def set_palette(self, kind: str) -> None:
        self.palette = make_palette(kind)
        self.clear_cache()
        self.refresh()

    def clear_cache(self) -> None:
        self._cache.clear()
        self._frame = None
        self._cache_version = -1 if self.state is None else self.state.version

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.clear_cache()

    @property
    def cells(self) -> int:
        """Columns of the time axis (the ruler draws the same ones)."""
        width = self.scrollable_content_region.width or self.size.width
        return max(1, width - gutter_width(width))

    def keep_cursor_visible(self) -> None:
        state = self.state
        if state is None or state.cursor is None:
            return
        fixed = len(state.layout.pinned)
        top = state.layout.line_of(state.cursor)
        if state.cursor.track is not None:
            _, bottom = state.layout.track_span(state.cursor.track)
        else:
            bottom = top
        height = max(1, self.scrollable_content_region.height - fixed)
        y = int(self.scroll_offset.y)
        if top < y:
            y = max(0, top - 1)
        elif min(bottom, top + height - 1) >= y + height:
            y = min(bottom, top + height - 1) - height + 1
        self.scroll_to(y=y, animate=False, immediate=True)

    def action_page(self, direction: int) -> None:
        self.scroll_to(y=self.scroll_offset.y + direction * max(1, self.scrollable_content_region.height - 1), animate=False)

    # ---- painting ------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        state = self.state
        if state is not None and state.version != self._cache_version:
            self.clear_cache()
        if self._frame is None:
            width = self.scrollable_content_region.width
            edges = cell_edges(state.view.t0, state.view.t1, max(1, width - gutter_width(width))) if state else np.zeros(1, np.int64)
            self._frame = (self._palette_on_base(), width, edges)
        palette, width, edges = self._frame
        if state is None:
            return Strip.blank(width, palette.base)
        fixed = len(state.layout.pinned)
        index = y if y < fixed else y + int(self.scroll_offset.y)
        key = (index, width)
        strip = self._cache.get(key)
        if strip is None:
            line = state.layout.pinned[index] if index < fixed else _line_at(state, index - fixed)
            strip = self._paint(state, line, palette, width, edges)
            self._cache[key] = strip
        return strip

    def _palette_on_base(self) -> Palette:
        """The palette over the current widget style, rebuilt only when either changes (theme, CSS)."""
        base = self.rich_style
        if self._based is None or self._based[0] != base or self._based[1] is not self.palette:
            self._based = (base, self.palette, self.palette.on(base))
        return self._based[2]

    def _paint(self, state: ExplorerState, line: Line | None, palette: Palette, width: int, edges: np.ndarray) -> Strip:
        self.frames_painted += 1
        if line is None:
            return Strip.blank(width, palette.base)
        gutter = gutter_width(width)
        if isinstance(line, LaneLine):
            arrow = "▸" if line.collapsed else "▾"
            label = fit_label(f"{arrow} {line.lane.label} {line.tracks}", gutter - 1) + " "
            on_cursor = state.cursor is not None and state.cursor.track is None and state.cursor.lane == line.lane
            style = palette.label_cursor if on_cursor else palette.header + palette.lane(line.lane)
            body = paint_lane(state.index, line.lane, edges, palette, state.selected_gap if state.focus == "gap" else None)
        else:
            label = fit_label(_row_label(state, line), gutter - 1) + " "
            on_cursor = state.cursor is not None and state.cursor.track == line.track
            style = palette.label_cursor if on_cursor else palette.pinned if line.pinned else palette.label
            row = state.trace.rows[line.row]
            gap = state.selected_gap if state.focus == "gap" else None
            body = paint_row(state.index, row, edges, palette, state.selected_event, gap)
        return Strip([Segment(label, style), *body], gutter + len(edges) - 1)


def _line_at(state: ExplorerState, i: int) -> Line | None:
    return state.layout.lines[i] if 0 <= i < len(state.layout.lines) else None


def _row_label(state: ExplorerState, line: RowLine) -> str:
    track = state.trace.tracks[line.track]
    if line.depth:
        return f"  {'·' * min(line.depth, 3)}"
    return ("▪ " if line.pinned else " ") + track.name

