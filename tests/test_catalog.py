"""Catalog: what each kind of entry in the output directory becomes, and that refresh re-reads only changes."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from neurontui.catalog import Catalog, is_temporary_name
from neurontui.formats.kineto import load_kineto

DATA = Path(__file__).parent / "data"
SMALL = DATA / "cpu_only_rank34.json.gz"


def _age(path: Path, seconds: float = 3600) -> None:
    old = time.time() - seconds
    os.utime(path, (old, old))


def _manifest(run_dir: Path, **fields: object) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "manifest.json").write_text(json.dumps(fields))


class CountingLoader:
    """The real Kineto reader, counting calls per path."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, path: str):
        self.calls.append(os.path.basename(path))
        return load_kineto(path)


def test_loose_traces_complete_and_truncated_unreadable_with_one_line_reason(tmp_path: Path) -> None:
    shutil.copy(SMALL, tmp_path / "good.pt.trace.json.gz")
    (tmp_path / "nested").mkdir()
    shutil.copy(SMALL, tmp_path / "nested" / "deep.json.gz")
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"traceEvents": [{"ph": "X", "name": "a"')
    _age(bad)
    update = Catalog(tmp_path).refresh()
    status = {r.key: r.status for r in update.runs}
    assert status == {"good.pt.trace.json.gz": "complete", "nested/deep.json.gz": "complete", "bad.json": "unreadable"}
    assert update.run("good.pt.trace.json.gz").kind == "kineto"
    reason = update.run("bad.json").reason
    assert "truncated" in reason and "\n" not in reason
    assert set(update.added) == set(status)


def test_temporary_names_are_never_listed(tmp_path: Path) -> None:
    for name in ["a.json.tmp", ".hidden.json", "b.json~", "c.json.part", "d.tmp.json", "e.json.partial"]:
        shutil.copy(SMALL, tmp_path / name)
    (tmp_path / ".cache").mkdir()
    shutil.copy(SMALL, tmp_path / ".cache" / "f.json.gz")
    assert Catalog(tmp_path).refresh().runs == ()
    assert not is_temporary_name("trace.json") and is_temporary_name("trace.json.tmp123")


def test_neurontui_runs_follow_their_manifest(tmp_path: Path) -> None:
    session = tmp_path / "20261202-101500-cpu"
    session.mkdir()
    (session / "session.json").write_text(json.dumps({"backend": "cpu", "started": "2026-12-02T10:15:00+00:00"}))
    _manifest(session / "naive", status="complete", implementation="naive", backend="cpu")
    _manifest(session / "compiled", status="failed", implementation="compile", backend="cpu",
              error="child exited with code 1", error_tail=["Traceback", "RuntimeError: boom"])
    _manifest(session / "kernel", status="cancelled", implementation="nki", backend="cpu")
    (session / "rms").mkdir()
    (session / "rms" / "trace.json.partial").write_text("{")
    update = Catalog(tmp_path).refresh()
    runs = {r.key.split("/")[1]: r for r in update.runs}
    assert {k: r.status for k, r in runs.items()} == {
        "naive": "complete", "compiled": "failed", "kernel": "cancelled", "rms": "in_progress"}
    assert runs["compiled"].reason == "child exited with code 1"
    assert (runs["naive"].implementation, runs["naive"].backend) == ("naive", "cpu")
    assert all(r.kind == "neurontui-run" for r in runs.values())
    [only] = update.sessions
    assert only.backend == "cpu" and {r.key for r in only.runs} == {r.key for r in runs.values()}


def test_synthetic_marks_come_from_the_data_never_from_a_name(tmp_path: Path) -> None:
    _manifest(tmp_path / "s" / "made", status="complete", implementation="naive", synthetic=True)
    _manifest(tmp_path / "synthetic-data-loader" / "fused", status="complete", implementation="fused")
    _manifest(tmp_path / "s" / "measured", status="complete", implementation="naive")
    trace = json.loads(gzip.decompress(SMALL.read_bytes()))
    (tmp_path / "generated.json").write_text(json.dumps({**trace, "synthetic": True}))
    (tmp_path / "synthetic_batches.json").write_text(json.dumps(trace))
    for loose in ("generated.json", "synthetic_batches.json"):
        _age(tmp_path / loose)
    runs = {r.key: r.synthetic for r in Catalog(tmp_path).refresh().runs}
    assert runs == {"s/made": True, "synthetic-data-loader/fused": False, "s/measured": False,
                    "generated.json": True, "synthetic_batches.json": False}


def test_a_renamed_copy_of_a_session_groups_its_runs_under_the_new_name(tmp_path: Path) -> None:
    session = tmp_path / "renamed"
    session.mkdir()
    (session / "session.json").write_text(json.dumps({"backend": "cpu"}))
    _manifest(session / "naive", status="complete", implementation="naive", session="20261202-101500-cpu")
    update = Catalog(tmp_path).refresh()
    [run] = update.runs
    [only] = update.sessions
    assert run.session == "renamed" and only.runs == (run,)
    [watched_itself] = Catalog(session / "naive").refresh().runs  # the app opened on the run directory
    assert watched_itself.session == "renamed"


def test_manifest_arrival_turns_an_in_progress_run_complete(tmp_path: Path) -> None:
    run_dir = tmp_path / "s" / "naive"
    run_dir.mkdir(parents=True)
    (tmp_path / "s" / "session.json").write_text("{}")
    shutil.copy(SMALL, run_dir / "trace.json.gz")
    catalog = Catalog(tmp_path)
    assert catalog.refresh().run("s/naive").status == "in_progress"
    _manifest(run_dir, status="complete", implementation="naive", backend="cpu")
    update = catalog.refresh()
    assert update.changed == ("s/naive",) and update.run("s/naive").status == "complete"


def test_capture_directories_and_exports_are_runs_of_their_kind(tmp_path: Path) -> None:
    capture = tmp_path / "profile" / "i-0abc_pid_42" / "1764670000"
    capture.mkdir(parents=True)
    (capture / "ntrace.pb").write_bytes(b"\x00")
    shutil.copy(SMALL, capture / "trace.json.gz")
    export = tmp_path / "export"
    export.mkdir()
    pq.write_table(pa.table({"id": [1], "start_ts": [1], "end_ts": [2]}), export / "SystemProfileEvents.parquet")
    broken = tmp_path / "broken_export"
    broken.mkdir()
    (broken / "SystemProfileEvents.parquet").write_bytes(b"PAR1 cut short")
    for path in tmp_path.rglob("*"):
        _age(path)  # directories are judged once quiet: a fresh one may still be being written
    loader = CountingLoader()
    runs = {r.key: r for r in Catalog(tmp_path, loader=loader).refresh().runs}
    assert {k: (r.kind, r.status) for k, r in runs.items()} == {
        "profile/i-0abc_pid_42/1764670000": ("torchneuron", "complete"),
        "export": ("explorer-export", "complete"),
        "broken_export": ("explorer-export", "unreadable"),
    }
    assert loader.calls == ["trace.json.gz"]  # the raw .pb stays for neuron-explorer at open time
    assert "Parquet" in runs["broken_export"].reason


def test_refresh_rereads_only_what_changed_and_reports_deletions(tmp_path: Path) -> None:
    for name in ("a.json.gz", "b.json.gz", "c.json.gz"):
        shutil.copy(SMALL, tmp_path / name)
    loader = CountingLoader()
    catalog = Catalog(tmp_path, loader=loader)
    catalog.refresh()
    assert sorted(loader.calls) == ["a.json.gz", "b.json.gz", "c.json.gz"]
    loader.calls.clear()
    assert not catalog.refresh().has_changes and loader.calls == []
    os.utime(tmp_path / "b.json.gz", ns=(time.time_ns(), time.time_ns() + 10**9))
    (tmp_path / "c.json.gz").unlink()
    update = catalog.refresh()
    assert loader.calls == ["b.json.gz"]
    assert update.changed == ("b.json.gz",) and update.removed == ("c.json.gz",)
    assert [r.key for r in update.runs] == ["b.json.gz", "a.json.gz"]  # newest first


def test_young_broken_file_is_in_progress_until_it_settles(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path, settle_s=0.3)
    catalog.refresh()
    partial = tmp_path / "slow.json"
    partial.write_bytes(b'{"traceEvents": [')
    run = catalog.refresh().run("slow.json")
    assert (run.status, run.reason) == ("in_progress", "being written")
    assert not catalog.recheck_due()
    deadline = time.monotonic() + 5
    while not catalog.recheck_due() and time.monotonic() < deadline:
        time.sleep(0.05)
    run = catalog.refresh().run("slow.json")
    assert run.status == "unreadable" and not catalog.recheck_due()


def test_missing_root_is_reported_and_not_created(tmp_path: Path) -> None:
    root = tmp_path / "not_yet"
    update = Catalog(root).refresh()
    assert not update.root_exists and update.runs == () and not root.exists()


@pytest.mark.parametrize("payload", [b"", b"[1, 2", b'{"other": 1}'])
def test_settled_non_traces_say_why(tmp_path: Path, payload: bytes) -> None:
    bad = tmp_path / "x.json"
    bad.write_bytes(payload)
    _age(bad)
    run = Catalog(tmp_path).refresh().run("x.json")
    assert run.status == "unreadable" and run.reason and "\n" not in run.reason
