"""The help screen: every key of the screen below it and of the app, generated from the bindings themselves."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


def key_table(groups: list[tuple[str, list[Binding]]]) -> Table:
    """Keys with their aliases and what they do, one section per owner."""
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column("key", style="bold", no_wrap=True)
    table.add_column("does")
    for title, bindings in groups:
        table.add_row(f"[u]{title}[/u]", "")
        for b in bindings:
            keys = " / ".join(_key_label(k) for k in b.key.split(","))
            table.add_row(keys, b.description)
    return table


def _key_label(key: str) -> str:
    names = {"full_stop": ".", "comma": ",", "slash": "/", "plus": "+", "minus": "-", "question_mark": "?",
             "left_square_bracket": "[", "right_square_bracket": "]", "left": "←", "right": "→", "up": "↑",
             "down": "↓"}
    return names.get(key, key)


class HelpScreen(ModalScreen[None]):
    """A modal list of keys; escape, q or ? closes it."""

    BINDINGS = [Binding("escape,q,question_mark", "app.pop_screen", "Close help", id="help.close")]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen VerticalScroll { width: 72; max-width: 100%; height: 90%; border: round $primary; background: $surface; padding: 0 1; }
    """

    def __init__(self, groups: list[tuple[str, list[Binding]]]) -> None:
        super().__init__()
        self.groups = groups

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(key_table(self.groups))
