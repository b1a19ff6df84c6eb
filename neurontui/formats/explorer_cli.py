"""Decoding raw .pb/.ntff captures with AWS's `neuron-explorer` CLI into a cache outside the user's directory."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

from neurontui.formats.neuron_tables import is_explorer_export

CACHE_ENV = "NEURONTUI_CACHE"
EXPLORER = "neuron-explorer"
DEFAULT_TIMEOUT_S = 600.0
MISSING_CLI = (
    "runtime and hardware lanes need the neuron-explorer CLI from aws-neuronx-tools; "
    "showing framework and device lanes only"
)

Progress = Callable[[str], None]


class ExplorerError(Exception):
    """The CLI ran but produced no export; str() is one sentence for a warning."""


def explorer_path() -> str | None:
    """The neuron-explorer executable on PATH, if any."""
    return shutil.which(EXPLORER)


def default_cache_dir() -> Path:
    """$NEURONTUI_CACHE, else ~/.cache/neurontui/explorer."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else Path.home() / ".cache" / "neurontui" / "explorer"


def cache_key(capture_dir: Path) -> str:
    """Changes whenever any input file of the capture is added, removed, resized or touched."""
    digest = hashlib.sha256(str(capture_dir.resolve()).encode())
    for path in sorted(p for p in capture_dir.rglob("*") if p.is_file()):
        st = path.stat()
        digest.update(f"\0{path.relative_to(capture_dir)}\0{st.st_size}\0{st.st_mtime_ns}".encode())
    return digest.hexdigest()[:24]


def cached_export(capture_dir: Path, cache_dir: Path | None = None) -> Path | None:
    """A previous conversion of exactly these inputs, when there is one."""
    out = (cache_dir or default_cache_dir()) / cache_key(capture_dir)
    return out if is_explorer_export(out) else None


def convert(
    capture_dir: Path,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> Path:
    """Export a raw capture to Parquet (or reuse the cached export); raises ExplorerError when that fails."""
    report = progress or (lambda _message: None)
    root = cache_dir or default_cache_dir()
    out = root / cache_key(capture_dir)
    if is_explorer_export(out):
        report(f"using cached Neuron Explorer export {out}")
        return out
    exe = explorer_path()
    if exe is None:
        raise ExplorerError(MISSING_CLI)
    root.mkdir(parents=True, exist_ok=True)
    tmp = root / f"{out.name}.partial-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    command = [exe, "view", "-d", str(capture_dir), "--output-format", "parquet", "--output-file", str(tmp)]
    report(f"decoding {capture_dir.name} with neuron-explorer")
    try:
        code, last_line = _run(command, cwd=root, report=report, timeout_s=timeout_s)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ExplorerError(f"neuron-explorer could not be started ({exc.strerror or exc})") from None
    if code is None:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ExplorerError(f"neuron-explorer did not finish within {timeout_s:g} s; showing framework and device lanes only")
    if code != 0 or not is_explorer_export(tmp):
        shutil.rmtree(tmp, ignore_errors=True)
        reason = last_line or f"exit code {code}"
        raise ExplorerError(f"neuron-explorer could not decode the capture ({reason}); showing framework and device lanes only")
    shutil.rmtree(out, ignore_errors=True)
    os.replace(tmp, out)
    report("neuron-explorer export done")
    return out


def _run(command: list[str], cwd: Path, report: Progress, timeout_s: float) -> tuple[int | None, str]:
    """Run the CLI, passing each output line to `report`; (None, …) on timeout."""
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True)
    last: list[str] = []

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            line = line.strip()
            if line:
                last[:] = [line]
                report(line)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        code = proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        reader.join(timeout=1)
        return None, ""
    reader.join(timeout=5)
    return code, last[0][:160] if last else ""
