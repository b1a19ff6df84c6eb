"""The search bar: type a name fragment, enter for the next match, shift+enter (or up) for the previous."""

from __future__ import annotations

from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input


class SearchBar(Input):
    """An Input that reports steps through matches and closes on escape, leaving state to the screen."""

    BINDINGS = [
        Binding("shift+enter,up", "step(-1)", "Previous match", id="search.previous"),
        Binding("down", "step(1)", "Next match", show=False, id="search.next"),
        Binding("escape", "close", "Close search", id="search.close"),
    ]

    class Step(Message):
        """Go to the next (+1) or previous (-1) match of `query`."""

        def __init__(self, query: str, step: int) -> None:
            super().__init__()
            self.query = query
            self.step = step

    class Closed(Message):
        """The search bar was dismissed."""

    def action_step(self, step: int) -> None:
        self.post_message(self.Step(self.value, step))

    def action_close(self) -> None:
        self.post_message(self.Closed())

    async def action_submit(self) -> None:
        self.post_message(self.Step(self.value, 1))
