"""`neurontui summary` on Neuron data: the JSON counts per lane, and broken exports as exit 2 with one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import neuron_export as fx  # tests/neuron_export.py: fixture writers (tests/ is on sys.path)


def summary(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "neurontui.cli", "summary", *args], capture_output=True, text=True, timeout=120)


def test_summary_json_counts_every_hardware_row_and_sub_track(tmp_path: Path) -> None:
    done = summary(str(fx.write_export(tmp_path / "export")), "--json")
    assert done.returncode == 0, done.stderr
    lanes = json.loads(done.stdout)["lanes"]
    c = fx.EXPECTED_COUNTS
    assert lanes["hardware"]["events"] == c["system_hw"] + c["instructions"] + c["dma"]
    assert lanes["hardware"]["tracks"] == 1 + len(fx.ENGINES) + len(fx.QUEUES)
    assert (lanes["runtime"]["events"], lanes["runtime"]["tracks"]) == (c["runtime"], 1)


def _empty_file(export: Path) -> None:
    (export / "Instruction_0.parquet").write_bytes(b"")


def _string_times(export: Path) -> None:
    table = fx.system_events()
    pq.write_table(table.set_column(2, "start_ts", pa.array([str(v) for v in table.column("start_ts").to_pylist()])), export / "SystemProfileEvents.parquet")


def _no_system_table(export: Path) -> None:
    (export / "SystemProfileEvents.parquet").unlink()


@pytest.mark.parametrize(
    ("breakage", "problem"),
    [
        (_empty_file, "Instruction_0.parquet: is empty (0 bytes)"),
        (_string_times, "SystemProfileEvents column 'start_ts' has type string, expected int64 nanoseconds"),
        (_no_system_table, "is not a Neuron Explorer export (no SystemProfileEvents.parquet in it)"),
    ],
)
def test_broken_export_exits_2_with_one_line(tmp_path: Path, breakage, problem: str) -> None:
    export = fx.write_export(tmp_path / "export")
    breakage(export)
    done = summary(str(export))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("neurontui: ") and lines[0].endswith(problem), done.stderr
