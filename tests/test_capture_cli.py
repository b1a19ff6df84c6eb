"""`neurontui capture`: argument errors exit 2 with one line before any child starts; JSON progress; exit 1 on a failed run; wrong results flagged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neurontui.cli import main


def run_capture(argv: list[str]) -> int:
    return main(["capture", *argv])


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--impl", "bogus"], "unknown implementation 'bogus'"),
        (["--impl", "naive", "--shape", "8xq"], "shape '8xq' is not like 8x4096"),
        (["--impl", "naive", "--shape", "0x64"], "must have positive dimensions"),
        (["--impl", "naive", "--dtype", "int8"], "dtype 'int8' is not supported"),
        (["--impl", "naive", "--backend", "tpu"], "unknown backend 'tpu'"),
        (["--impl", "naive", "--active", "0"], "active >= 1"),
        (["--impl", "kernel", "--backend", "cpu"], "'kernel' is not available on cpu"),
        (["--impl", "naive,missing_file.py:fn"], "file 'missing_file.py' does not exist"),
        (["--impl", "no_such_module_xyz:fn"], "module 'no_such_module_xyz'"),
        (["--impl", "naive,naive"], "listed twice"),
        (["--impl", "naive", "--timeout", "0"], "timeout must be positive"),
    ],
)
def test_bad_arguments_exit_2_with_one_line_and_start_nothing(
    argv: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "runs"
    assert run_capture([*argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err and "Traceback" not in err
    assert not out.exists()


def test_unavailable_backend_names_the_reason(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run_capture(["--impl", "naive", "--backend", "neuron", "--out", str(tmp_path)]) == 2
    assert "backend 'neuron' is not available: torch_neuronx is not importable" in capsys.readouterr().err


def test_json_progress_and_exit_1_when_a_run_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    impl_file = tmp_path / "broken.py"
    impl_file.write_text("def fn(x, weight, eps):\n    raise RuntimeError('no')\n")
    argv = ["--impl", f"naive,{impl_file}:fn", "--shape", "4x64", "--wait", "0", "--warmup", "1", "--active", "2",
            "--json", "--out", str(tmp_path / "runs")]
    assert run_capture(argv) == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    summary = lines[-1]
    assert summary["statuses"] == {"naive": "complete", f"{impl_file}:fn": "failed"}
    finished = {e["impl"]: e["status"] for e in lines[:-1] if e["phase"] == "finished"}
    assert finished == summary["statuses"]
    assert {e["phase"] for e in lines[:-1] if e["impl"] == "naive"} >= {"starting", "warmup", "active", "done"}
    assert (Path(summary["session"]) / "naive" / "trace.json").exists()


def test_a_wrong_result_is_flagged_in_the_json_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    impl_file = tmp_path / "off_by_one.py"
    impl_file.write_text("import torch\n\ndef fn(x, weight, eps):\n    return torch.rms_norm(x, x.shape[-1:], weight, eps) + 1\n")
    argv = ["--impl", f"{impl_file}:fn", "--shape", "4x64", "--wait", "0", "--warmup", "1", "--active", "2",
            "--json", "--out", str(tmp_path / "runs")]
    assert run_capture(argv) == 0  # the run completed: a wrong result is flagged, not failed
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert summary["statuses"] == {f"{impl_file}:fn": "complete"}
    assert summary["wrong_results"] == [f"{impl_file}:fn"]
