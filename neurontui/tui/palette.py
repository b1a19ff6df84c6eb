"""Colours of the timeline: a stable colour per op name, and variants for 16-colour and NO_COLOR terminals."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field, fields, replace

from rich.style import Style

from neurontui.model.lanes import Lane

_RICH_BACKGROUNDS = (
    "#5b8def", "#e0795a", "#59b36b", "#b57ad6", "#d8b347", "#4fb3b9",
    "#d65f8c", "#8aa34a", "#7f8fd4", "#c98a4b", "#46a08a", "#a9748f",
)
_PLAIN_BACKGROUNDS = ("blue", "green", "magenta", "cyan", "yellow", "red", "bright_blue", "bright_green")
_LANE_RICH = {Lane.FRAMEWORK: "#7aa2f7", Lane.DEVICE: "#9ece6a", Lane.RUNTIME: "#e0af68", Lane.HARDWARE: "#f7768e", Lane.OTHER: "#a9b1d6"}
_LANE_PLAIN = {Lane.FRAMEWORK: "blue", Lane.DEVICE: "green", Lane.RUNTIME: "yellow", Lane.HARDWARE: "magenta", Lane.OTHER: "white"}


@dataclass
class Palette:
    """Every style the timeline paints with; event colours are cached per name index."""

    kind: str  # "rich", "plain" or "mono"
    backgrounds: tuple[str, ...]
    lanes: dict[Lane, str]
    text: Style
    dense: Style
    gap: Style
    gap_fill: Style
    gap_selected: Style
    selected: Style
    header: Style
    label: Style
    label_cursor: Style
    pinned: Style
    ruler: Style
    marked: Style
    base: Style = field(default_factory=Style)  # the widget's own style, under every other one
    _by_name: dict[int, Style] = field(default_factory=dict)

    def on(self, base: Style) -> Palette:
        """This palette drawn over a widget's base style, so painted lines need no second styling pass."""
        styles = {f.name: base + getattr(self, f.name) for f in fields(self) if f.type == "Style" and f.name != "base"}
        return replace(self, base=base, _by_name={}, **styles)

    def event(self, name_id: int, name: str) -> Style:
        """The box style of every event with this name: the same colour on every frame and run."""
        style = self._by_name.get(name_id)
        if style is None:
            if self.kind == "mono":
                style = self.base + Style(reverse=True)
            else:
                colour = self.backgrounds[zlib.crc32(name.encode()) % len(self.backgrounds)]
                style = Style(color="black", bgcolor=colour)
            style = self.base + style
            self._by_name[name_id] = style
        return style

    def lane(self, lane: Lane) -> Style:
        if self.kind == "mono":
            return self.base + Style(bold=True)
        return self.base + Style(color=self.lanes[lane])


def make_palette(kind: str) -> Palette:
    """Build the palette for 'rich' (truecolour), 'plain' (16 colours) or 'mono' (NO_COLOR)."""
    if kind == "mono":
        return Palette(
            kind, (), {}, text=Style(), dense=Style(), gap=Style(), gap_fill=Style(dim=True), gap_selected=Style(bold=True, underline=True),
            selected=Style(bold=True, underline=True), header=Style(bold=True), label=Style(),
            label_cursor=Style(reverse=True), pinned=Style(bold=True), ruler=Style(), marked=Style(reverse=True),
        )
    plain = kind == "plain"
    return Palette(
        kind,
        _PLAIN_BACKGROUNDS if plain else _RICH_BACKGROUNDS,
        _LANE_PLAIN if plain else _LANE_RICH,
        text=Style(),
        dense=Style(color="white" if plain else "#9aa0b4"),
        gap=Style(color="bright_white" if plain else "#ffd7d7", bgcolor="red" if plain else "#8b1e2d"),
        gap_fill=Style(color="red" if plain else "#c0505c", bgcolor="black" if plain else "#3a1419"),
        gap_selected=Style(color="black", bgcolor="bright_yellow" if plain else "#ffcc33", bold=True),
        selected=Style(color="black", bgcolor="bright_white" if plain else "#ffffff", bold=True),
        header=Style(bold=True, color="bright_white" if plain else "#e6e6e6"),
        label=Style(color="white" if plain else "#b0b4c4"),
        label_cursor=Style(color="black", bgcolor="bright_cyan" if plain else "#6fd6ff", bold=True),
        pinned=Style(color="bright_yellow" if plain else "#ffd866", bold=True),
        ruler=Style(color="white" if plain else "#9aa0b4"),
        marked=Style(color="black", bgcolor="cyan" if plain else "#3aa6b9"),
    )
