"""A checkbox whose state reads without colour: Textual draws the same "X" ticked or not and lets colour tell them apart."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Checkbox


class TickBox(Checkbox):
    """Shows "X" when ticked and a blank when not, so NO_COLOR and 16-colour terminals can tell."""

    @property
    def _button(self) -> Content:
        self.BUTTON_INNER = "X" if self.value else " "
        return super()._button
