"""The installed `neurontui` in a real terminal (tmux): open, zoom, jump to a gap and search, reading the screen."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tui_helpers import DATA

TMUX = shutil.which("tmux") or ("/usr/bin/tmux" if Path("/usr/bin/tmux").exists() else None)
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed, so there is no real terminal to drive")
WAIT_S = 30.0


def _entry_point() -> list[str]:
    installed = Path(sys.executable).with_name("neurontui")
    return [str(installed)] if installed.exists() else [sys.executable, "-m", "neurontui.cli"]


class Terminal:
    """A detached tmux session on a private socket, read with capture-pane."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> str:
        return subprocess.run([TMUX, "-L", self.socket, *args], capture_output=True, text=True, check=True, timeout=20).stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "explorer")

    def wait_for(self, text: str) -> str:
        """Poll the screen until it shows `text` (a condition, not a timing assertion)."""
        deadline = time.monotonic() + WAIT_S
        while True:
            shown = self.screen()
            if text in shown or time.monotonic() > deadline:
                return shown
            time.sleep(0.1)

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "explorer", *keys)


@pytest.fixture
def terminal():
    term = Terminal(f"neurontui-test-{os.getpid()}")
    yield term
    subprocess.run([TMUX, "-L", term.socket, "kill-server"], capture_output=True, timeout=20)


def test_zoom_gap_jump_and_search_in_a_real_terminal(terminal):
    command = " ".join([*_entry_point(), str(DATA / "cuda_sampled_rank0.json.gz")])
    env = ["-e", "TERM=xterm-256color", "-e", "TEXTUAL_ANIMATIONS=none"]
    # COLUMNS/LINES inherited from the test runner would override the real terminal's size.
    command = f"env -u COLUMNS -u LINES {command}"
    terminal.tmux("-f", "/dev/null", "new-session", "-d", "-s", "explorer", "-x", "120", "-y", "36", *env, command)
    screen = terminal.wait_for("4,811 events")
    assert "view +0ns…+3.37s" in screen and "▾ hardware" in screen
    terminal.keys("w")
    screen = terminal.wait_for("span 1.68s")
    assert "span 1.68s" in screen
    terminal.keys("g")
    screen = terminal.wait_for("Gap 835/929")
    assert "58.9ms idle on the hardware lane" in screen
    terminal.keys("/")
    terminal.keys("-l", "Memcpy")
    terminal.keys("Enter")
    screen = terminal.wait_for("/Memcpy ")
    position = re.search(r"/Memcpy (\d+)/(\d+)", screen)
    assert position and 1 <= int(position[1]) <= int(position[2])
    assert "Memcpy" in screen.split("─" * 20)[-1]  # the detail pane below the timeline names the match
    terminal.keys("Escape", "q")
