"""The installed `neurontui` in a real terminal (tmux, private socket): runs copied in appear, follow mode opens them, q exits."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from tmux_terminal import WAIT_S, Terminal, needs_tmux, neurontui_command

pytestmark = needs_tmux
DATA = Path(__file__).parent / "data"


@pytest.fixture
def terminal():
    term = Terminal(f"neurontui-live-{os.getpid()}", "live")
    yield term
    term.close()


def test_copied_trace_is_listed_follow_mode_opens_the_next_and_q_exits(terminal: Terminal, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    out.mkdir()
    terminal.start(neurontui_command("--out", str(out)), 140, 36, "-e", f"HOME={tmp_path}")
    terminal.wait_for("palette")  # the footer is drawn once the app is up
    shutil.copy(DATA / "cpu_only_rank34.json.gz", out / "first.json.gz")
    listed, _ = terminal.wait_for("first.json.gz")
    print(f"copied trace listed on screen after {listed:.2f} s")
    terminal.keys("F")
    terminal.wait_for("follow ●")
    shutil.copy(DATA / "cuda_triton_example.json.gz", out / "second.json.gz")
    shown, _ = terminal.wait_for("second.json.gz · ")  # the explorer's status line: "<file> · N events · view …"
    print(f"follow mode: explorer showed the new trace after {shown:.2f} s")
    terminal.keys("q")
    start = time.monotonic()
    while terminal.alive():
        assert time.monotonic() - start < WAIT_S, "the app did not exit after q"
        time.sleep(0.05)
    print(f"process exit after q: {time.monotonic() - start:.2f} s")
