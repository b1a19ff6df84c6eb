"""One capture in a child process (`python -m neurontui.capture.worker`), so a crash never reaches the UI.

Protocol: progress goes to stdout as JSON lines `{"phase", "step", "steps", "message"}` with phase
starting / compiling / warmup / active / exporting / done, or `error` before a non-zero exit;
anything else printed (by torch or user code) is redirected to stderr. Partial results go to
`worker-result.json` (atomically, after each stage); the launcher merges it into manifest.json,
which only the launcher writes, because this process may be killed at any point.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from neurontui.capture.atomic import write_json_atomic
from neurontui.capture.spec import CaptureSpec

if TYPE_CHECKING:
    from neurontui.capture.backends import Backend

RESULT_FILE = "worker-result.json"
FIRST_CALLS = 3


class Channel:
    """The JSON-lines progress stream on the real stdout, while fd 1 is pointed at stderr."""

    def __init__(self) -> None:
        sys.stdout.flush()
        self._out: IO[str] = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
        os.dup2(2, 1)

    def emit(self, phase: str, step: int | None = None, steps: int | None = None, message: str = "") -> None:
        self._out.write(json.dumps({"phase": phase, "step": step, "steps": steps, "message": message}) + "\n")


class PartialResult:
    """What the worker has learned so far, rewritten atomically so a kill leaves the last complete state."""

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / RESULT_FILE
        self.data: dict[str, Any] = {}

    def update(self, **fields: Any) -> None:
        self.data.update(fields)
        write_json_atomic(self.path, self.data)


def capture(impl_spec: str, backend: Backend, spec: CaptureSpec, run_dir: Path, channel: Channel) -> None:
    """Build, check and profile one implementation, recording results as they arrive."""
    import torch

    from neurontui.capture import correctness, implementations, profiling

    result = PartialResult(run_dir)
    result.update(backend=backend.name, device=backend.device_name(), versions=backend.versions(), pid=os.getpid())
    impl = implementations.resolve(impl_spec, backend)
    if not impl.available:
        raise RuntimeError(f"implementation {impl.spec} is not available: {impl.reason}")

    torch.manual_seed(spec.seed)
    dtype = getattr(torch, spec.dtype)
    x = torch.randn(spec.shape, dtype=torch.float64).to(dtype).to(backend.device)
    weight = (1 + 0.1 * torch.randn(spec.shape[-1], dtype=torch.float64)).to(dtype).to(backend.device)
    inputs = (x, weight, spec.eps)

    channel.emit("compiling", message=impl.description)
    fn, build_s = profiling.timed(impl.build)

    def first_calls() -> Any:
        outputs = [fn(*inputs) for _ in range(FIRST_CALLS)]
        backend.synchronize()
        return outputs[0]

    out, first_s = profiling.timed(first_calls)
    verdict = correctness.check(out, x, weight, spec.eps, spec.dtype)
    result.update(correctness=verdict, correct=verdict["correct"])

    _, profile_s = profiling.timed(
        lambda: profiling.profile_loop(fn, inputs, backend, spec, run_dir, f"rmsnorm/{impl.name}", channel.emit)
    )
    channel.emit("exporting")

    notes, export_s = profiling.timed(lambda: backend.finish(run_dir))
    result.update(
        notes=notes,
        wall_times={"build_s": build_s, "first_calls_s": first_s, "profile_s": profile_s, "export_s": export_s},
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m neurontui.capture.worker")
    parser.add_argument("--impl", required=True)
    parser.add_argument("--backend", required=True)
    parser.add_argument("--spec", required=True, help="CaptureSpec as JSON")
    parser.add_argument("--run-dir", required=True, type=Path)
    args = parser.parse_args(argv)
    channel = Channel()
    channel.emit("starting", message=f"pid {os.getpid()}")
    try:
        from neurontui.capture.backends import select

        capture(args.impl, select(args.backend), CaptureSpec.from_json(args.spec), args.run_dir, channel)
    except Exception as exc:
        traceback.print_exc()
        channel.emit("error", message=f"{type(exc).__name__}: {exc}".splitlines()[0])
        return 1
    channel.emit("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
