"""Runs side by side: figures on built traces, and the `neurontui compare` CLI contract on real CPU captures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from neurontui.analysis.compare import RunInput, compare_runs
from neurontui.cli import main
from neurontui.model.builder import TraceBuilder
from neurontui.model.lanes import Lane

CPU_SESSION = Path(__file__).resolve().parent.parent / "sample_traces" / "cpu-rmsnorm"
TRN1_SESSION = Path(__file__).resolve().parent.parent / "sample_traces" / "trn1-rmsnorm-synthetic"


def device_run(name: str, kernels: int, kernel_ns: int, launch_gap_ns: int, steps: int = 2):
    """`kernels` launches per step, each followed by its kernel; the launches are `launch_gap_ns` apart."""
    b = TraceBuilder(path=name, source="test")
    rt, kern, op = b.category("cuda_runtime"), b.category("kernel"), b.category("cpu_op")
    dev = b.track(Lane.DEVICE, "device:1:1", "thread 1")
    hw = b.track(Lane.HARDWARE, "hardware:0:7", "stream 7")
    fw = b.track(Lane.FRAMEWORK, "framework:1:1", "thread 1")
    t = 0
    for step in range(steps):
        step_start = t
        launch = t + 1_000 + np.arange(kernels) * launch_gap_ns
        lpos = b.add_events(launch, launch + 500, dev, b.names.intern("cudaLaunchKernel"), rt)
        kpos = b.add_events(launch + 800, launch + 800 + kernel_ns, hw, b.names.intern("k"), kern)
        b.add_links(lpos + np.arange(kernels), kpos + np.arange(kernels))
        b.add_events(launch - 200, launch + 600, fw, b.names.intern("aten::mul"), op)
        t = int(launch[-1]) + 800 + kernel_ns + 1_000
        b.add_step(step_start, t)
        b.add_events(np.array([step_start]), np.array([t]), fw, b.names.intern(f"ProfilerStep#{step}"), op)
    return b.build()


def test_fused_ranks_ahead_of_naive_with_fewer_dispatches_and_host_wait_gaps():
    naive = device_run("naive", kernels=6, kernel_ns=2_000, launch_gap_ns=10_000)
    fused = device_run("fused", kernels=1, kernel_ns=4_000, launch_gap_ns=10_000)
    result = compare_runs([RunInput("fused", fused, "fused"), RunInput("naive", naive, "naive")])
    assert result.baseline == "naive"
    by = {r.name: r for r in result.runs}
    assert by["naive"].speedup == 1.0 and by["fused"].speedup == pytest.approx(12_000 / 4_000)
    assert (by["naive"].dispatches_per_step, by["fused"].dispatches_per_step) == (6.0, 1.0)
    assert by["naive"].device_busy_ns_per_step == 12_000
    assert by["naive"].gap_count == 2 * 5 and by["naive"].gap_ns_per_step == 5 * 8_000
    assert by["naive"].gap_by_cause_ns["host wait"] == by["naive"].gap_ns_per_step * 2
    assert by["fused"].gap_count == 0 and by["fused"].edge_idle_ns_per_step == 1_800 + 1_000
    assert 0 < by["naive"].utilization < by["fused"].utilization <= 1


def test_baseline_can_be_named_and_defaults_to_first_without_naive():
    a, b = device_run("a", 2, 1_000, 5_000), device_run("b", 1, 1_000, 5_000)
    assert compare_runs([RunInput("a", a), RunInput("b", b)]).baseline == "a"
    named = compare_runs([RunInput("a", a), RunInput("b", b)], baseline="b")
    assert named.baseline == "b" and {r.name: r.speedup for r in named.runs} == {"a": 0.5, "b": 1.0}


def test_cli_json_contract_on_a_session(capsys):
    assert main(["compare", str(CPU_SESSION), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["baseline"] == "naive"
    runs = {r["name"]: r for r in data["runs"]}
    assert set(runs) == {"naive", "fused", "compiled"}
    types = {"name": str, "steps": int, "device_busy_ns_per_step": float, "dispatches_per_step": float,
             "host_ns_per_step": float, "gap_ns_per_step": float, "speedup": float}
    for run in runs.values():
        assert all(isinstance(run[k], t) for k, t in types.items())
        assert run["impl"] == run["name"] and run["correct"] is True and run["steps"] == 10
    assert runs["naive"]["speedup"] == 1.0


@pytest.mark.parametrize("flag,first", [("--csv", "baseline,name,impl"), ("--markdown", "Baseline: **naive**")])
def test_cli_csv_and_markdown(capsys, flag, first):
    assert main(["compare", str(CPU_SESSION / "naive"), str(CPU_SESSION / "fused"), flag]) == 0
    out = capsys.readouterr().out
    assert out.startswith(first) and "fused" in out


def test_cli_bad_paths_exit_2_with_one_sentence(capsys, tmp_path):
    assert main(["compare", str(tmp_path / "missing")]) == 2
    assert main(["compare", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("neurontui: ") for line in err)


def test_trn1_synthetic_session_ranks_fused_and_compiled_ahead_of_naive(capsys):
    assert main(["compare", str(TRN1_SESSION), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    runs = {r["name"]: r for r in data["runs"]}
    assert data["baseline"] == "naive" and runs["naive"]["lane"] == "hardware"
    assert runs["fused"]["speedup"] > 1.5 and runs["compiled"]["speedup"] > 1.5
    assert runs["naive"]["dispatches_per_step"] > runs["fused"]["dispatches_per_step"]
    assert runs["naive"]["dispatches_per_step"] > runs["compiled"]["dispatches_per_step"]
    causes = runs["naive"]["gap_by_cause_ns"]
    assert causes["host wait"] > 0.5 * sum(causes.values())
    assert runs["naive"]["summary_metrics"][0]["mfu_estimated_percent"] > 0


def test_cli_ops_puts_the_profilers_figures_beside_ours_and_flags_disagreement(capsys, tmp_path):
    run = tmp_path / "naive"
    shutil.copytree(CPU_SESSION / "naive", run)
    assert main(["compare", str(run), "--ops", "--json"]) == 0
    ops = {o["name"]: o for o in json.loads(capsys.readouterr().out)["runs"][0]["ops"]}
    assert ops["aten::mul"]["profiler"]["calls"] == ops["aten::mul"]["calls"] and ops["aten::mul"]["disagree"] == []
    table = (run / "key_averages.csv").read_text().replace("aten::mul,20,", "aten::mul,21,")
    (run / "key_averages.csv").write_text(table)
    assert main(["compare", str(run), "--ops", "--markdown"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("| aten::mul "))
    assert "20 [21] ≠" in line


@pytest.mark.parametrize("width", [80, 200])
def test_cli_table_fits_the_terminal_and_says_what_it_left_out(capsys, monkeypatch, width):
    monkeypatch.setenv("COLUMNS", str(width))
    assert main(["compare", str(TRN1_SESSION)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert all(len(line.rstrip()) <= width for line in lines)
    header = next(line for line in lines if "speedup" in line)
    assert "disp/step" in header and "gap cause" in header  # the verdict's columns always stay
    assert "SYNTHETIC" in out
    assert ("left out to fit the terminal" in out) == (width == 80)
