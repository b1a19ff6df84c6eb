"""`neurontui capture`: profile RMSNorm implementations headless, one child process each."""

from __future__ import annotations

import argparse
import json
import signal
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "capture",
        help="profile RMSNorm implementations and save their traces",
        description="Profile RMSNorm implementations, each in its own process, into <out>/<session>/<impl>/.",
    )
    parser.add_argument("--impl", default="naive,fused,compiled",
                        help="comma-separated: naive, fused, compiled, kernel, module:function, file.py:function")
    parser.add_argument("--shape", default="8x4096", help="input shape, e.g. 8x4096 (normalized over the last dim)")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--eps", type=float, default=1e-6)
    parser.add_argument("--wait", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--active", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--backend", default="auto", help="auto, neuron, cuda or cpu")
    parser.add_argument("--out", default=None, help="output directory (default: $NEURONTUI_OUT or ./neurontui_runs)")
    parser.add_argument("--json", action="store_true", help="print progress as JSON lines")
    parser.add_argument("--timeout", type=float, default=None, help="seconds allowed per implementation's whole child process")
    parser.add_argument("--record-shapes", action="store_true")
    parser.add_argument("--with-stack", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from neurontui.capture.launcher import CaptureSession, plan_capture
    from neurontui.capture.spec import CaptureSpec, Schedule, parse_shape
    from neurontui.cli import default_out_dir

    impls = [impl.strip() for impl in args.impl.split(",") if impl.strip()]
    spec = CaptureSpec(
        shape=parse_shape(args.shape),
        dtype=args.dtype,
        eps=args.eps,
        schedule=Schedule(args.wait, args.warmup, args.active, args.repeat),
        seed=args.seed,
        record_shapes=args.record_shapes,
        with_stack=args.with_stack,
    )
    plan = plan_capture(impls, spec, Path(args.out or default_out_dir()), args.backend, args.timeout)
    session = CaptureSession(plan)
    with _cancel_on_interrupt(session.cancel):
        if args.json:
            for event in session.events():
                print(json.dumps(event.to_json()), flush=True)
        else:
            _show_progress(session)
    statuses = session.statuses
    manifests = _manifests(session)
    wrong = [manifest["implementation"] for manifest in manifests if manifest["correct"] is False]
    if args.json:
        print(json.dumps({"session": str(session.path), "statuses": statuses, "wrong_results": wrong}), flush=True)
    else:
        _print_summary(manifests, session.path)
    # The contract: exit 1 only for runs that did not complete; a wrong result is flagged, not failed.
    return 0 if all(status == "complete" for status in statuses.values()) else 1


def _show_progress(session: Any) -> None:
    """One rich progress bar per implementation, its description showing the current phase."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    columns = (TextColumn("{task.fields[impl]:<12}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.description}"), TimeElapsedColumn())
    steps = session.plan.spec.schedule.total_steps
    with Progress(*columns, console=console, transient=False) as progress:
        tasks = {impl: progress.add_task("queued", total=steps, impl=impl, start=False) for impl in session.plan.impls}
        for event in session.events():
            task = tasks[event.impl]
            progress.start_task(task)
            if event.phase == "finished":
                done = steps if event.status == "complete" else None
                progress.update(task, description=_final_text(event), completed=done)
                progress.stop_task(task)
            else:
                progress.update(task, description=event.phase, completed=event.step or 0)


def _final_text(event: Any) -> str:
    if event.status == "complete":
        return "[green]complete[/]"
    return f"[red]{event.status}[/]: {event.message}"


def _manifests(session: Any) -> list[dict[str, Any]]:
    """Each run's final manifest, in the order implementations were given."""
    from neurontui.capture.launcher import MANIFEST_FILE

    return [json.loads((session.path / name / MANIFEST_FILE).read_text(encoding="utf-8")) for name in session.plan.names]


def _print_summary(manifests: list[dict[str, Any]], session_path: Path) -> None:
    print(f"session {session_path}")
    for manifest in manifests:
        flag = "  WRONG RESULT" if manifest["correct"] is False else ""
        error = f"  {manifest['error']}" if manifest["error"] else ""
        print(f"  {manifest['implementation']:<20} {manifest['status']:<10}{flag}{error}")


@contextmanager
def _cancel_on_interrupt(cancel: Any) -> Iterator[None]:
    """Ctrl-C cancels the session (children are in their own process groups and never see it)."""
    previous = signal.signal(signal.SIGINT, lambda *_: cancel())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)

