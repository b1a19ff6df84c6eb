"""Run a session of captures, one child process per implementation, with progress events and cancel().

Who writes what: the worker writes the trace, key_averages.csv and a partial `worker-result.json`;
the launcher (this process) writes every `manifest.json` and `session.json`, because a worker may be
killed at any moment. After a child ends the launcher removes leftover `*.partial` files, merges the
partial result, lists the files and writes the manifest last, atomically, with the run's status:
complete, failed, cancelled or timeout. Only `complete` means the files are a finished capture.

Use from a UI thread: `session = CaptureSession(plan_capture(...))`, then iterate `session.events()`
(or `session.run(on_event)`) in a worker thread and call `session.cancel()` from any thread.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

import neurontui
from neurontui.capture.atomic import PARTIAL_SUFFIX, partial_path, write_json_atomic
from neurontui.capture.probe import ProbeResult, probe
from neurontui.capture.spec import CaptureSpec, format_shape
from neurontui.capture.worker import RESULT_FILE
from neurontui.errors import UserError

RunStatus = Literal["complete", "failed", "cancelled", "timeout"]
MANIFEST_FILE = "manifest.json"
SESSION_FILE = "session.json"
LOG_FILE = "worker.log"
ERROR_TAIL_LINES = 20
POLL_S = 0.1


@dataclass(frozen=True)
class ProgressEvent:
    """One step of progress for a progress bar or a JSON line.

    phase: starting, compiling, warmup, active, exporting, done (from the worker), error (the worker
    caught an exception; message says which), stopping (cancel or timeout is killing the child), then
    always finished, carrying status. step/steps count profiler steps during warmup and active.
    """

    impl: str
    run_dir: str
    phase: str
    step: int | None = None
    steps: int | None = None
    message: str = ""
    status: RunStatus | None = None
    pid: int | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CapturePlan:
    """A validated request: nothing here can make a child fail for a reason the user could have fixed first."""

    impls: tuple[str, ...]
    names: tuple[str, ...]
    backend: str
    spec: CaptureSpec
    out_dir: Path
    timeout_s: float | None = None
    grace_s: float = 5.0


class ImplementationError(UserError):
    """A backend or implementation that cannot run; `spec` names the implementation ("" for the backend)."""

    def __init__(self, sentence: str, spec: str = "") -> None:
        super().__init__(sentence)
        self.spec = spec


def plan_capture(
    impls: Sequence[str],
    spec: CaptureSpec,
    out_dir: Path | str,
    backend: str = "auto",
    timeout_s: float | None = None,
    grace_s: float = 5.0,
    checked: ProbeResult | None = None,
) -> CapturePlan:
    """Validate implementations, backend and limits before any capture starts; raises UserError.

    The backend and implementations are checked by a probe child (capture/probe.py), so this
    process never imports torch or a device runtime. `checked`, a probe already made for this
    backend, is reused when it knows every implementation asked for.
    """
    if not impls:
        raise UserError("give at least one implementation.")
    if len(set(impls)) != len(impls):
        raise UserError("an implementation is listed twice.")
    if timeout_s is not None and timeout_s <= 0:
        raise UserError(f"timeout must be positive, got {timeout_s}.")
    reused = checked.answering(tuple(impls)) if checked is not None else None
    checked = reused if reused is not None else probe(backend, tuple(impls))
    if checked.error:
        raise ImplementationError(checked.error, checked.error_spec)
    names = _unique([impl.name for impl in checked.requested])
    return CapturePlan(tuple(impls), tuple(names), checked.backend, spec, Path(out_dir), timeout_s, grace_s)


class CaptureSession:
    """A session directory and the sequential runs in it; events() drives them, cancel() stops them."""

    def __init__(self, plan: CapturePlan) -> None:
        self.plan = plan
        self.path = _make_session_dir(plan.out_dir, plan.backend)
        self.statuses: dict[str, RunStatus] = {}
        self.started = _now()
        self.finished: str | None = None
        self._cancelled = threading.Event()
        self._write_session()

    def cancel(self) -> None:
        """Stop the running child (SIGTERM to its group, SIGKILL after the grace period) and skip the rest."""
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def run(self, on_event: Callable[[ProgressEvent], None] | None = None) -> dict[str, RunStatus]:
        """Drive every run to its end, passing each event to on_event; returns status per implementation."""
        for event in self.events():
            if on_event is not None:
                on_event(event)
        return dict(self.statuses)

    def events(self) -> Iterator[ProgressEvent]:
        """Run the implementations one after another, yielding progress; each run ends with a "finished" event."""
        for impl, name in zip(self.plan.impls, self.plan.names):
            run = _Run(self, impl, self.path / name)
            yield from run.execute()
            self.statuses[impl] = run.status
            self._write_session()
        self.finished = _now()
        self._write_session()

    def _write_session(self) -> None:
        plan = self.plan
        write_json_atomic(
            self.path / SESSION_FILE,
            {
                "session": self.path.name,
                "backend": plan.backend,
                "impls": [{"impl": impl, "dir": name, "status": self.statuses.get(impl)}
                          for impl, name in zip(plan.impls, plan.names)],
                "args": {**plan.spec.to_dict(), "timeout_s": plan.timeout_s},
                "started": self.started,
                "finished": self.finished,
            },
        )


class _Run:
    """One implementation's child process, from spawn to manifest."""

    def __init__(self, session: CaptureSession, impl: str, run_dir: Path) -> None:
        self.session = session
        self.plan = session.plan
        self.impl = impl
        self.run_dir = run_dir
        self.status: RunStatus = "failed"
        self.error = ""
        self.started = _now()
        self.pid: int | None = None

    def event(self, phase: str, **fields: Any) -> ProgressEvent:
        return ProgressEvent(self.impl, str(self.run_dir), phase, pid=self.pid, **fields)

    def execute(self) -> Iterator[ProgressEvent]:
        self.run_dir.mkdir(parents=True)
        start = time.monotonic()
        if self.session.cancelled:
            self.status, self.error = "cancelled", "cancelled before it started"
        else:
            yield from self._supervise()
        self._write_manifest(time.monotonic() - start)
        yield self.event("finished", status=self.status, message=self.error)

    def _supervise(self) -> Iterator[ProgressEvent]:
        child = self._spawn()
        if child is None:
            return
        self.pid = child.pid
        stopped, last_phase = yield from self._follow(child)
        if stopped is not None:
            yield self.event("stopping", message=self.error)
            self._stop(child)
        code = child.wait()
        _kill_group(child.pid, signal.SIGKILL)  # stragglers, e.g. compile workers still holding the pipe
        if stopped is not None:
            self.status = stopped
        elif code == 0 and last_phase == "done":
            self.status = "complete"
        else:
            self.status = "failed"
            self.error = self.error or f"the worker exited with code {code}"

    def _spawn(self) -> subprocess.Popen[bytes] | None:
        """Start the worker in its own process group, stderr to the run's log; None (and an error) if it cannot."""
        command = [
            sys.executable, "-m", "neurontui.capture.worker",
            "--impl", self.impl, "--backend", self.plan.backend,
            "--spec", self.plan.spec.to_json(), "--run-dir", str(self.run_dir),
        ]
        try:
            with open(partial_path(self.run_dir / LOG_FILE), "wb") as log:
                return subprocess.Popen(
                    command, stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL,
                    start_new_session=True, env=self._child_env(),
                )
        except OSError as exc:
            self.error = f"cannot start the worker: {exc}"
            return None

    def _follow(
        self, child: subprocess.Popen[bytes]
    ) -> Generator[ProgressEvent, None, tuple[RunStatus | None, str]]:
        """Relay the child's progress until it exits, is cancelled or times out; returns (stopped, last phase)."""
        lines: queue.Queue[bytes | None] = queue.Queue()
        reader = threading.Thread(target=_pump, args=(child.stdout, lines), daemon=True)
        reader.start()
        deadline = None if self.plan.timeout_s is None else time.monotonic() + self.plan.timeout_s
        last_phase = ""
        end_of_output = False
        while True:
            exited = child.poll() is not None
            if exited:
                reader.join(timeout=1.0)  # the rest of its output, unless a straggler still holds the pipe
            for line in _take(lines, wait=not (exited or end_of_output)):
                fields = None if line is None else _parse(line)
                end_of_output = end_of_output or line is None
                if fields is not None:
                    last_phase = fields["phase"]
                    if last_phase == "error":
                        self.error = fields["message"]
                    yield self.event(**fields)
            if exited:
                return None, last_phase
            if end_of_output:
                time.sleep(POLL_S)
            if self.session.cancelled:
                self.error = "cancelled by the user"
                return "cancelled", last_phase
            if deadline is not None and time.monotonic() > deadline:
                self.error = f"timed out after {self.plan.timeout_s:g} s"
                return "timeout", last_phase

    def _stop(self, child: subprocess.Popen[bytes]) -> None:
        _kill_group(child.pid, signal.SIGTERM)
        try:
            child.wait(timeout=self.plan.grace_s)
        except subprocess.TimeoutExpired:
            _kill_group(child.pid, signal.SIGKILL)
            child.wait()

    def _child_env(self) -> dict[str, str]:
        env = dict(os.environ)
        package_root = str(Path(neurontui.__file__).resolve().parent.parent)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
        env["PYTHONUNBUFFERED"] = "1"
        return env

    def _write_manifest(self, wall_s: float) -> None:
        log = partial_path(self.run_dir / LOG_FILE)
        if log.exists():
            os.replace(log, self.run_dir / LOG_FILE)
        _remove_partials(self.run_dir)
        result = _read_result(self.run_dir / RESULT_FILE)
        spec = self.plan.spec
        correctness = result.get("correctness")
        manifest = {
            "implementation": self.impl,
            "name": self.run_dir.name,
            "session": self.session.path.name,
            "status": self.status,
            "backend": self.plan.backend,
            "device": result.get("device"),
            "torch_version": result.get("versions", {}).get("torch"),
            "torch_neuronx_version": result.get("versions", {}).get("torch_neuronx"),
            "shape": list(spec.shape),
            "shape_text": format_shape(spec.shape),
            "dtype": spec.dtype,
            "eps": spec.eps,
            "schedule": asdict(spec.schedule),
            "seed": spec.seed,
            "record_shapes": spec.record_shapes,
            "with_stack": spec.with_stack,
            "correct": None if correctness is None else correctness["correct"],
            "correctness": correctness,
            "wall_times": {**result.get("wall_times", {}), "total_s": wall_s},
            "files": sorted(
                str(p.relative_to(self.run_dir)) for p in self.run_dir.iterdir() if p.name != RESULT_FILE
            ),
            "notes": result.get("notes", []),
            "error": self.error or None,
            "error_tail": [] if self.status == "complete" else _tail(self.run_dir / LOG_FILE),
            "started": self.started,
            "finished": _now(),
            "pid": self.pid,
        }
        write_json_atomic(self.run_dir / MANIFEST_FILE, manifest)
        (self.run_dir / RESULT_FILE).unlink(missing_ok=True)


def _pump(stream: Any, lines: queue.Queue[bytes | None]) -> None:
    """Move the child's stdout lines into a queue (None at end of stream), so the loop can poll."""
    for line in stream:
        lines.put(line)
    lines.put(None)


def _take(lines: queue.Queue[bytes | None], wait: bool) -> list[bytes | None]:
    """Everything queued now, first waiting up to POLL_S for a line when asked to."""
    taken: list[bytes | None] = []
    try:
        if wait:
            taken.append(lines.get(timeout=POLL_S))
        while True:
            taken.append(lines.get_nowait())
    except queue.Empty:
        return taken


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        fields = json.loads(line)
    except ValueError:
        return None
    if not isinstance(fields, dict) or "phase" not in fields:
        return None
    return {key: fields.get(key) for key in ("phase", "step", "steps")} | {"message": fields.get("message") or ""}


def _kill_group(pid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _remove_partials(run_dir: Path) -> None:
    """Delete what a stopped worker left under temporary names, so no half-written file remains."""
    for path in sorted(run_dir.rglob(f"*{PARTIAL_SUFFIX}"), reverse=True):
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def _read_result(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _tail(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()[-ERROR_TAIL_LINES:]
    except OSError:
        return []


def _unique(names: list[str]) -> list[str]:
    """Directory names for the runs, suffixed -2, -3 … where two implementations share one."""
    seen: dict[str, int] = {}
    unique = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        unique.append(name if seen[name] == 1 else f"{name}-{seen[name]}")
    return unique


def _make_session_dir(out_dir: Path, backend: str) -> Path:
    """Create `<out>/<YYYYmmdd-HHMMSS>-<backend>`, suffixed -2, -3 … when that name is taken."""
    out_dir.mkdir(parents=True, exist_ok=True)
    base = f"{datetime.now().strftime('%Y%m%d-%H%M%S')}-{backend}"
    for index in range(1, 1000):
        path = out_dir / (base if index == 1 else f"{base}-{index}")
        try:
            path.mkdir()
            return path
        except FileExistsError:
            continue
    raise UserError(f"cannot create a new session directory under {out_dir}.")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
