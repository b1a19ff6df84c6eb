"""The installed `neurontui` in a real terminal (tmux, private socket): runs copied in appear, follow mode opens them, q exits."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

TMUX = shutil.which("tmux") or ("/usr/bin/tmux" if Path("/usr/bin/tmux").exists() else None)
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed, so there is no real terminal to drive")
DATA = Path(__file__).parent / "data"
WAIT_S = 20.0  # generous bound; the latency actually measured is printed
SESSION = "live"


def _entry_point() -> list[str]:
    installed = Path(sys.executable).with_name("neurontui")
    return [str(installed)] if installed.exists() else [sys.executable, "-m", "neurontui.cli"]


class Terminal:
    """A detached tmux session on a private socket, read with capture-pane."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run([TMUX, "-L", self.socket, *args], capture_output=True, text=True, check=check, timeout=20)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", SESSION).stdout

    def wait_for(self, text: str) -> float:
        """Seconds until the screen shows `text`; fails with the screen after WAIT_S."""
        start = time.monotonic()
        while text not in (shown := self.screen()):
            assert time.monotonic() - start < WAIT_S, f"{text!r} never appeared; screen:\n{shown}"
            time.sleep(0.05)
        return time.monotonic() - start

    def alive(self) -> bool:
        return self.tmux("has-session", "-t", SESSION, check=False).returncode == 0


@pytest.fixture
def terminal():
    term = Terminal(f"neurontui-live-{os.getpid()}")
    yield term
    term.tmux("kill-server", check=False)


def test_copied_trace_is_listed_follow_mode_opens_the_next_and_q_exits(terminal: Terminal, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    out.mkdir()
    command = "env -u COLUMNS -u LINES " + " ".join([*_entry_point(), "--out", str(out)])
    env = ["-e", "TERM=xterm-256color", "-e", "TEXTUAL_ANIMATIONS=none", "-e", f"HOME={tmp_path}"]
    terminal.tmux("-f", "/dev/null", "new-session", "-d", "-s", SESSION, "-x", "140", "-y", "36", *env, command)
    terminal.wait_for("palette")  # the footer is drawn once the app is up
    shutil.copy(DATA / "cpu_only_rank34.json.gz", out / "first.json.gz")
    listed = terminal.wait_for("first.json.gz")
    print(f"copied trace listed on screen after {listed:.2f} s")
    terminal.tmux("send-keys", "-t", SESSION, "F")
    terminal.wait_for("follow ●")
    shutil.copy(DATA / "cuda_triton_example.json.gz", out / "second.json.gz")
    shown = terminal.wait_for("second.json.gz · ")  # the explorer's status line: "<file> · N events · view …"
    print(f"follow mode: explorer showed the new trace after {shown:.2f} s")
    terminal.tmux("send-keys", "-t", SESSION, "q")
    start = time.monotonic()
    while terminal.alive():
        assert time.monotonic() - start < WAIT_S, "the app did not exit after q"
        time.sleep(0.05)
    print(f"process exit after q: {time.monotonic() - start:.2f} s")
