"""A real terminal for tests: the installed `neurontui` in a detached tmux session on a private socket."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

TMUX = shutil.which("tmux") or ("/usr/bin/tmux" if Path("/usr/bin/tmux").exists() else None)
needs_tmux = pytest.mark.skipif(TMUX is None, reason="tmux is not installed, so there is no real terminal to drive")
WAIT_S = 30.0  # generous bound for a condition to appear; the latency actually measured is printed
ENV = ("-e", "TERM=xterm-256color", "-e", "TEXTUAL_ANIMATIONS=none")


def neurontui_command(*args: str) -> str:
    """The installed console script (else the module) with its arguments, as one shell command.

    COLUMNS/LINES inherited from the test runner would override the real terminal's size.
    """
    installed = Path(sys.executable).with_name("neurontui")
    entry = [str(installed)] if installed.exists() else [sys.executable, "-m", "neurontui.cli"]
    return " ".join(["env", "-u", "COLUMNS", "-u", "LINES", *entry, *args])


class Terminal:
    """One tmux session, driven with send-keys and read with capture-pane."""

    def __init__(self, socket: str, session: str) -> None:
        self.socket = socket
        self.session = session

    def tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run([TMUX, "-L", self.socket, *args], capture_output=True, text=True, check=check, timeout=20)

    def start(self, command: str, width: int, height: int, *env: str) -> None:
        self.tmux("-f", "/dev/null", "new-session", "-d", "-s", self.session, "-x", str(width), "-y", str(height),
                  *ENV, *env, command)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.session).stdout

    def wait_for(self, text: str) -> tuple[float, str]:
        """Seconds until the screen shows `text`, and that screen; fails with the screen after WAIT_S."""
        start = time.monotonic()
        while text not in (shown := self.screen()):
            assert time.monotonic() - start < WAIT_S, f"{text!r} never appeared; screen:\n{shown}"
            time.sleep(0.05)
        return time.monotonic() - start, shown

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.session, *keys)

    def alive(self) -> bool:
        return self.tmux("has-session", "-t", self.session, check=False).returncode == 0

    def close(self) -> None:
        self.tmux("kill-server", check=False)
