"""The installed `neurontui` in a real terminal (tmux): open, zoom, jump to a gap and search, reading the screen."""

from __future__ import annotations

import os
import re

import pytest

from tmux_terminal import Terminal, needs_tmux, neurontui_command
from tui_helpers import DATA

pytestmark = needs_tmux


@pytest.fixture
def terminal():
    term = Terminal(f"neurontui-test-{os.getpid()}", "explorer")
    yield term
    term.close()


def test_zoom_gap_jump_and_search_in_a_real_terminal(terminal):
    terminal.start(neurontui_command(str(DATA / "cuda_sampled_rank0.json.gz")), 120, 36)
    _, screen = terminal.wait_for("4,811 events")
    assert "view +0ns…+3.37s" in screen and "▾ hardware" in screen
    terminal.keys("w")
    terminal.wait_for("span 1.68s")
    terminal.keys("g")
    _, screen = terminal.wait_for("Gap 835/929")
    assert "58.9ms idle on the hardware lane" in screen
    terminal.keys("/")
    terminal.keys("-l", "Memcpy")
    terminal.keys("Enter")
    _, screen = terminal.wait_for("/Memcpy ")
    position = re.search(r"/Memcpy (\d+)/(\d+)", screen)
    assert position and 1 <= int(position[1]) <= int(position[2])
    assert "Memcpy" in screen.split("─" * 20)[-1]  # the detail pane below the timeline names the match
    terminal.keys("Escape", "q")
