"""`neurontui summary`: the JSON contract, and one clear line + exit 2 for every broken file."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from neurontui.analysis.gaps import NO_DEVICE_WORK
from neurontui.cli import main

DATA = Path(__file__).parent / "data"
GOOD = (DATA / "cuda_sampled_rank0.json.gz").read_bytes()


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "neurontui.cli", *args], capture_output=True, text=True, timeout=120
    )


def _broken_files(tmp: Path) -> dict[str, Path]:
    plain = gzip.decompress(GOOD)
    cases = {
        "missing": tmp / "nope.json",
        "empty": tmp / "empty.json",
        "truncated": tmp / "truncated.json",
        "not-json": tmp / "notes.json",
        "wrong-schema": tmp / "other.json",
        "wrong-type": tmp / "events-not-list.json",
        "no-events": tmp / "no-events.json",
        "corrupt-gzip": tmp / "corrupt.json.gz",
        "truncated-gzip": tmp / "cut.json.gz",
        "fake-gzip": tmp / "plain.json.gz",
        "truncated-list": tmp / "bare-list.json",
        "list-of-numbers": tmp / "numbers.json",
    }
    cases["truncated-list"].write_text("[1, 2")
    cases["list-of-numbers"].write_text("[1, 2, 3]")
    cases["empty"].write_bytes(b"")
    cases["truncated"].write_bytes(plain[: len(plain) // 2])
    cases["not-json"].write_text("hello, this is not a trace\n")
    cases["wrong-schema"].write_text(json.dumps({"name": "a package.json, say", "version": "1.0"}))
    cases["wrong-type"].write_text(json.dumps({"traceEvents": {"ph": "X"}}))
    cases["no-events"].write_text(json.dumps({"traceEvents": []}))
    cases["corrupt-gzip"].write_bytes(GOOD[:10] + bytes(200) + GOOD[210:])
    cases["truncated-gzip"].write_bytes(GOOD[: len(GOOD) // 2])
    cases["fake-gzip"].write_bytes(plain)
    return cases


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> dict[str, Path]:
    return _broken_files(tmp_path_factory.mktemp("broken"))


@pytest.mark.parametrize(
    "case",
    ["missing", "empty", "truncated", "not-json", "wrong-schema", "wrong-type", "no-events",
     "corrupt-gzip", "truncated-gzip", "fake-gzip", "truncated-list", "list-of-numbers"],
)  # fmt: skip
def test_broken_file_exits_2_with_one_line(broken, case, capsys):
    path = broken[case]
    before = path.read_bytes() if path.exists() else None
    assert main(["summary", str(path), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert str(path) in lines[0]
    assert "Traceback" not in err
    if before is not None:
        assert path.read_bytes() == before, "the user's file is never modified"


def test_broken_file_in_a_real_process_has_no_traceback(broken):
    result = _run("summary", str(broken["truncated"]))
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "truncated" in result.stderr and "Traceback" not in result.stderr


def test_odd_events_are_skipped_and_counted(tmp_path, capsys):
    events = [
        {"ph": "X", "cat": "cpu_op", "name": "ok", "pid": 1, "tid": 1, "ts": 10.0, "dur": 5.0},
        {"ph": "X", "cat": "cpu_op", "name": "negative", "pid": 1, "tid": 1, "ts": 20.0, "dur": -3.0},
        {"ph": "X", "cat": "cpu_op", "name": "no-dur", "pid": 1, "tid": 1, "ts": 30.0},
        {"ph": "X", "cat": "cpu_op", "name": "absurd", "pid": 1, "tid": 1, "ts": 1e30, "dur": 1.0},
        {"ph": "X", "cat": "cpu_op", "name": "string-ts", "pid": 1, "tid": 1, "ts": "soon", "dur": 1.0},
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 12.0, "dur": 2.0},
    ]
    path = tmp_path / "odd.json"
    path.write_text(json.dumps({"traceEvents": events, "baseTimeNanoseconds": 1_700_000_000_000_000_000}))
    assert main(["summary", str(path), "--json"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["lanes"]["framework"]["events"] == 1
    assert data["lanes"]["hardware"]["events"] == 1
    assert "skipped 4 odd event(s)" in err


def test_nan_duration_is_skipped(tmp_path, capsys):
    path = tmp_path / "nan.json"
    path.write_text('[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1.0,"dur":NaN},'
                    '{"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":5.0,"dur":1.0}]')
    # NaN is not standard JSON, but some writers emit it: the event is skipped, not fatal.
    assert main(["summary", str(path), "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["lanes"]["framework"]["events"] == 1
    assert "skipped 1 odd event(s)" in err


def test_summary_json_contract(capsys):
    assert main(["summary", str(DATA / "cuda_sampled_rank0.json.gz"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= {"path", "source", "window_ns", "steps", "lanes", "links", "gaps", "top_ops"}
    assert data["source"] == "kineto"
    assert data["steps"] == 2
    assert set(data["lanes"]) == {"framework", "device", "runtime", "hardware", "other"}
    for lane in data["lanes"].values():
        assert set(lane) >= {"events", "tracks", "busy_ns"} and lane["busy_ns"] >= 0
    assert data["window_ns"][1] > data["window_ns"][0]
    gaps = data["gaps"]
    assert gaps["lane"] == "hardware"
    assert gaps["count"] > 0 and gaps["total_ns"] >= gaps["largest_ns"] > 0
    assert data["links"] > 0
    op = data["top_ops"][0]
    assert set(op) >= {"name", "calls", "host_ns", "device_ns"}
    assert all(a["host_ns"] >= b["host_ns"] for a, b in zip(data["top_ops"], data["top_ops"][1:]))


def test_busy_excludes_sync_and_gpu_annotations(capsys):
    assert main(["summary", str(DATA / "cuda_alexnet.json.gz"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    raw = json.loads(gzip.decompress((DATA / "cuda_alexnet.json.gz").read_bytes()))["traceEvents"]
    busy = sorted(
        (round(e["ts"] * 1000), round((e["ts"] + e["dur"]) * 1000))
        for e in raw
        if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")
    )
    total, reach = 0, None
    for s, e in busy:  # brute-force union
        if reach is None or s > reach:
            total += e - s
            reach = e
        elif e > reach:
            total += e - reach
            reach = e
    assert abs(data["lanes"]["hardware"]["busy_ns"] - total) <= len(busy)  # ns rounding only


def test_table_output_is_readable():
    result = _run("summary", str(DATA / "mtia_inference_rank_0.json.gz"))
    assert result.returncode == 0
    assert "hardware" in result.stdout and "top framework ops" in result.stdout


def test_summary_table_names_the_source_and_marks_synthetic_samples(capsys):
    sample = Path(__file__).resolve().parent.parent / "sample_traces" / "trn1-rmsnorm-synthetic" / "naive"
    assert main(["summary", str(sample)]) == 0
    head = capsys.readouterr().out.splitlines()[:2]
    assert head[0].endswith("[neuron-capture]") and head[1].startswith("SYNTHETIC")
    assert main(["summary", str(DATA / "cuda_sampled_rank0.json.gz")]) == 0
    out = capsys.readouterr().out
    assert "[kineto]" in out and "SYNTHETIC" not in out


def test_summary_of_a_host_only_trace_says_it_has_no_device_gaps(capsys):
    assert main(["summary", str(DATA / "cpu_only_rank34.json.gz")]) == 0
    out = " ".join(capsys.readouterr().out.split())  # the console wraps at its width
    assert NO_DEVICE_WORK in out and "gap(s) on the" not in out
    assert main(["summary", str(DATA / "cpu_only_rank34.json.gz"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["gaps"]["count"] == 0
