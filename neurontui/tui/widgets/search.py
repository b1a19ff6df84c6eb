"""The search bar: type a name fragment, enter for the next match, shift+enter (or up) for the previous."""

from __future__ import annotations

from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input


class SearchBar(Input):
    """An Input that reports steps through matches and closes on escape, leaving search state to the screen.

    Opening and closing move focus at once rather than via `Widget.focus` (which waits for the app's
    queue): keys typed right after `/` or escape must land where the user now looks, otherwise the
    letters of a search like "Memcpy" run as explorer commands ("c" opens the capture screen).
    That only holds when the binding that opens or closes runs as the key arrives, so both are
    priority bindings.
    """

    BINDINGS = [
        Binding("shift+enter,up", "step(-1)", "Previous match", id="search.previous"),
        Binding("down", "step(1)", "Next match", show=False, id="search.next"),
        Binding("escape", "close", "Close search", priority=True, id="search.close"),
    ]

    DEFAULT_CSS = "SearchBar { display: none; }"

    class Step(Message):
        """Go to the next (+1) or previous (-1) match of `query`."""

        def __init__(self, query: str, step: int) -> None:
            super().__init__()
            self.query = query
            self.step = step

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._return_focus: Widget | None = None

    def open(self) -> None:
        """Show the bar and take focus now, remembering who had it."""
        if self.has_focus:
            return
        self._return_focus = self.screen.focused
        self.display = True
        self.screen.set_focus(self)

    def action_step(self, step: int) -> None:
        self.post_message(self.Step(self.value, step))

    def action_close(self) -> None:
        """Hide the bar and hand focus straight back to whoever had it before `open`."""
        self.display = False
        self.screen.set_focus(self._return_focus)

    async def action_submit(self) -> None:
        self.post_message(self.Step(self.value, 1))
