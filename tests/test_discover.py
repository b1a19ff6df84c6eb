"""Finding captures in a directory and loading them: raw TorchNeuron captures with and without neuron-explorer, runs, exports."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

import neuron_export as fx  # tests/neuron_export.py: fixture writers (tests/ is on sys.path)

from neurontui.formats import discover
from neurontui.formats.discover import capture_for, find_captures, load_capture
from neurontui.formats.explorer_cli import MISSING_CLI
from neurontui.model import Lane, TraceError

FAKE_BIN = Path(__file__).parent / "fakes" / "bin"
DATA = Path(__file__).parent / "data"


def lane_counts(trace) -> dict[Lane, int]:
    return {lane: int(trace.lane_mask(lane).sum()) for lane in Lane}


def tree_hashes(root: Path) -> dict[str, tuple[str, int]]:
    return {
        str(p.relative_to(root)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def no_cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


@pytest.fixture
def fake_cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The fake neuron-explorer on PATH (run by this venv's python3); returns its invocation log."""
    log = tmp_path / "explorer-calls.log"
    python_bin = tmp_path / "python-bin"
    python_bin.mkdir()
    wrapper = python_bin / "python3"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{FAKE_BIN}{os.pathsep}{python_bin}")
    monkeypatch.setenv("FAKE_NEURON_EXPLORER_LOG", str(log))
    return log


@pytest.fixture
def raw_capture(tmp_path: Path) -> Path:
    return fx.write_raw_capture(tmp_path / "profiles" / "i-0abc123_pid_4242" / "20261202T183000")


def test_finds_every_kind_of_capture(tmp_path: Path, no_cli: None) -> None:
    root = tmp_path / "root"
    fx.write_raw_capture(root / "neuron_profile" / "i-0abc_pid_1" / "20261202T000000")
    fx.write_export(root / "profiles" / "global" / "rmsnorm@latest")
    fx.write_legacy_json(root / "legacy")
    run = root / "runs" / "session-1" / "naive"
    fx.write_kineto(run / "trace.json")
    (run / "manifest.json").write_text(json.dumps({"implementation": "naive", "status": "complete"}))
    shutil.copy(DATA / "cuda_alexnet.json.gz", root / "alexnet.pt.trace.json.gz")
    (root / "notes.json").write_text('{"not": "a trace"}')

    found = {str(c.path.relative_to(root)): c for c in find_captures(root)}
    assert {k: c.kind for k, c in found.items()} == {
        "alexnet.pt.trace.json.gz": discover.KINETO,
        "legacy": discover.EXPORT_JSON,
        "neuron_profile/i-0abc_pid_1/20261202T000000": discover.TORCHNEURON,
        "profiles/global/rmsnorm@latest": discover.EXPORT,
        "runs/session-1/naive": discover.RUN,
    }
    raw = found["neuron_profile/i-0abc_pid_1/20261202T000000"]
    assert raw.lanes == (Lane.FRAMEWORK, Lane.DEVICE) and raw.missing_lanes == (Lane.RUNTIME, Lane.HARDWARE)
    assert raw.kineto is not None and raw.kineto.name == "trace.json"
    assert found["profiles/global/rmsnorm@latest"].lanes == (Lane.FRAMEWORK, Lane.DEVICE, Lane.RUNTIME, Lane.HARDWARE)
    assert found["alexnet.pt.trace.json.gz"].lanes is None
    assert found["runs/session-1/naive"].manifest["implementation"] == "naive"
    assert found["runs/session-1/naive"].lanes is None  # no Neuron files: the Kineto trace decides


def test_neff_and_ntff_pair_by_hash(tmp_path: Path, no_cli: None) -> None:
    cap = fx.write_raw_capture(tmp_path / "cap", neff_hash="395760075800974")
    (cap / "395760075800974_instid_1_vnc_0.ntff").write_bytes(b"x")
    (cap / "neff_111_vnc_1.neff").write_bytes(b"x")
    (cap / "profile_nc_0_session_1.ntff").write_bytes(b"x")
    (cap / "neuron_framework_trace_rank_0.json").write_bytes((cap / "trace.json").read_bytes())
    (cap / "trace.json").unlink()
    (capture,) = find_captures(tmp_path)
    programs = {p.hash: p for p in capture.programs}
    assert set(programs) == {"395760075800974", "111"}
    assert programs["395760075800974"].neff.name == "neff_395760075800974_vnc_0.neff"
    assert [n.name for n in programs["395760075800974"].ntffs] == ["395760075800974_instid_0_vnc_0.ntff", "395760075800974_instid_1_vnc_0.ntff"]
    assert programs["111"].ntffs == ()
    assert capture.kineto.name == "neuron_framework_trace_rank_0.json"


def test_raw_capture_without_cli_loads_framework_and_device_lanes(raw_capture: Path, tmp_path: Path, no_cli: None) -> None:
    before = tree_hashes(raw_capture)
    trace = load_capture(raw_capture, cache_dir=tmp_path / "cache")
    counts = lane_counts(trace)
    assert counts[Lane.FRAMEWORK] == fx.KINETO_COUNTS["framework"] and counts[Lane.DEVICE] == fx.KINETO_COUNTS["device"]
    assert counts[Lane.RUNTIME] == counts[Lane.HARDWARE] == 0
    assert MISSING_CLI in trace.warnings
    assert MISSING_CLI == "runtime and hardware lanes need the neuron-explorer CLI from aws-neuronx-tools; showing framework and device lanes only"
    assert trace.meta["lanes_missing"] == ["runtime", "hardware"]
    assert tree_hashes(raw_capture) == before


def test_raw_capture_with_fake_cli_loads_all_four_lanes(raw_capture: Path, tmp_path: Path, fake_cli: Path) -> None:
    before = tree_hashes(raw_capture)
    messages: list[str] = []
    cache = tmp_path / "cache"
    trace = load_capture(raw_capture, cache_dir=cache, progress=messages.append)
    counts = lane_counts(trace)
    c = fx.EXPECTED_COUNTS
    # Framework/device from the Kineto trace only: the export's framework events are not counted twice.
    assert counts[Lane.FRAMEWORK] == fx.KINETO_COUNTS["framework"] and counts[Lane.DEVICE] == fx.KINETO_COUNTS["device"]
    assert counts[Lane.RUNTIME] == c["runtime"]
    assert counts[Lane.HARDWARE] == c["system_hw"] + c["instructions"] + c["dma"]
    assert trace.source == "neuron-capture" and not trace.warnings
    assert any("neuron-explorer" in m for m in messages) and "Done" in messages
    assert tree_hashes(raw_capture) == before
    assert Path(trace.meta["explorer_export"]).parent == cache
    assert fake_cli.read_text().splitlines() == [str(raw_capture)]
    # Both sources are on one epoch clock: each driver call encloses its nrt_execute.
    drivers = sorted(trace.event(i).start for i in trace.find_names("neuron_launch"))
    executes = sorted(trace.event(i).start for i in trace.find_names("nrt_execute"))
    assert all(d <= e < d + 200_000 for d, e in zip(drivers, executes, strict=True))
    # Export flows re-attach to the Kineto driver events: device -> runtime -> hardware.
    launch = trace.event(trace.find_names("neuron_launch")[0])
    assert launch.category == "privateuse1_driver"
    runtime = [e for e in launch.downstream() if e.lane == Lane.RUNTIME]
    assert [e.name for e in runtime] == ["nrt_execute"]
    assert [e.name for e in runtime[0].downstream()] == ["nc_exec_running"]

    again = load_capture(raw_capture, cache_dir=cache)
    assert len(fake_cli.read_text().splitlines()) == 1  # served from the cache
    assert len(again.events) == len(trace.events)


def test_touching_an_input_invalidates_the_cache(raw_capture: Path, tmp_path: Path, fake_cli: Path) -> None:
    cache = tmp_path / "cache"
    load_capture(raw_capture, cache_dir=cache)
    ntrace = raw_capture / "ntrace.pb"
    os.utime(ntrace, ns=(ntrace.stat().st_atime_ns, ntrace.stat().st_mtime_ns + 10**9))
    load_capture(raw_capture, cache_dir=cache)
    assert len(fake_cli.read_text().splitlines()) == 2


def test_cache_dir_defaults_to_env(raw_capture: Path, tmp_path: Path, fake_cli: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEURONTUI_CACHE", str(tmp_path / "env-cache"))
    trace = load_capture(raw_capture)
    assert Path(trace.meta["explorer_export"]).parent == tmp_path / "env-cache"


def test_cli_failure_is_one_warning_sentence(raw_capture: Path, tmp_path: Path, fake_cli: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_NEURON_EXPLORER_FAIL", "1")
    trace = load_capture(raw_capture, cache_dir=tmp_path / "cache")
    assert lane_counts(trace)[Lane.RUNTIME] == 0 and lane_counts(trace)[Lane.FRAMEWORK] > 0
    assert trace.warnings == [
        "neuron-explorer could not decode the capture (ERROR: ntff version 99 is not supported); showing framework and device lanes only"
    ]
    assert not any((tmp_path / "cache").iterdir())


def test_run_with_explorer_export_is_joined(tmp_path: Path, no_cli: None) -> None:
    run = tmp_path / "out" / "session" / "fused"
    fx.write_kineto(run / "trace.json")
    fx.write_raw_capture(run / "neuron_profile" / "i-0abc_pid_9" / "20261202T000000")
    fx.write_export(run / "explorer")
    (run / "manifest.json").write_text(json.dumps({"implementation": "fused", "backend": "neuron", "synthetic": True, "status": "complete"}))
    before = tree_hashes(run)
    trace = load_capture(run)
    assert all(lane_counts(trace)[lane] > 0 for lane in (Lane.FRAMEWORK, Lane.DEVICE, Lane.RUNTIME, Lane.HARDWARE))
    assert trace.meta["synthetic"] is True and trace.meta["capture_kind"] == discover.RUN
    assert len(trace.steps) == fx.EXECUTIONS
    assert trace.meta["programs"][0]["hash"] == "395760075800974"
    assert tree_hashes(run) == before


def test_single_files_and_parquet_tables_name_their_capture(tmp_path: Path, no_cli: None) -> None:
    export = fx.write_export(tmp_path / "export")
    assert capture_for(export / "Instruction_0.parquet").path == export
    system, device = fx.write_legacy_json(tmp_path / "legacy")
    trace = load_capture(device)
    assert lane_counts(trace)[Lane.HARDWARE] == fx.EXPECTED_COUNTS["instructions"] + fx.EXPECTED_COUNTS["dma"]
    both = load_capture(tmp_path / "legacy")
    assert lane_counts(both)[Lane.RUNTIME] == fx.EXPECTED_COUNTS["runtime"]
    kineto = load_capture(DATA / "cuda_sampled_rank0.json.gz")
    assert kineto.source == "kineto" and kineto.meta["capture_kind"] == discover.KINETO


def test_directory_with_several_or_no_captures_is_one_sentence(tmp_path: Path, no_cli: None) -> None:
    fx.write_export(tmp_path / "many" / "a")
    fx.write_export(tmp_path / "many" / "b")
    with pytest.raises(TraceError, match=r"holds 2 captures; open one of them, e\.g\. .*/a$"):
        load_capture(tmp_path / "many")
    (tmp_path / "none").mkdir()
    with pytest.raises(TraceError, match="holds no trace, Neuron capture or Neuron Explorer export"):
        load_capture(tmp_path / "none")


def test_legacy_json_matches_parquet_timing(tmp_path: Path) -> None:
    system, device = fx.write_legacy_json(tmp_path / "legacy")
    trace = load_capture(tmp_path / "legacy")
    execs = np.sort(trace.events.start[np.isin(trace.events.name, trace.names.lookup("nc_exec_running"))])
    matmuls = np.sort(trace.events.start[trace.find_names("MATMUL")])
    assert list(matmuls) == list(execs)
    assert trace.meta["summary_metrics"] == [{"mfu_estimated_percent": 1.5}]


def test_legacy_device_json_with_relative_times_is_aligned(tmp_path: Path) -> None:
    system, device = fx.write_legacy_json(tmp_path / "legacy")
    doc = json.loads(device.read_text())
    for row in doc["instruction"] + doc["dma"]:
        row["timestamp"] -= fx.PROFILE_START_NS
    device.write_text(json.dumps(doc))
    trace = load_capture(tmp_path / "legacy")
    assert trace.meta["alignment"] == "inferred"
    windows = sorted(trace.event(i).start for i in trace.find_names("nc_exec_running"))
    assert sorted(trace.event(i).start for i in trace.find_names("MATMUL")) == windows
