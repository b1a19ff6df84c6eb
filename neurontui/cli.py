"""Command-line entry point: `neurontui [PATH]` opens the app; subcommands run headless."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from neurontui.errors import TraceError, UserError

# Each subcommand lives in neurontui/commands/<name>.py and exposes
# `register(subparsers) -> None` (which sets `func` on its parser) so that
# this module stays a thin dispatcher and importing the CLI stays cheap.
SUBCOMMANDS = ("summary", "capture", "compare")


def default_out_dir() -> str:
    """The capture output directory: $NEURONTUI_OUT, else ./neurontui_runs."""
    return os.environ.get("NEURONTUI_OUT") or os.path.join(os.getcwd(), "neurontui_runs")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="neurontui",
        usage="neurontui [PATH] [--out DIR] [--poll] [--plain]\n       neurontui COMMAND ...",
        description="Terminal trace explorer for PyTorch on AWS Trainium (CUDA and CPU too).",
        epilog="Without a COMMAND, opens the app on PATH (a trace file or directory; default: the "
        "capture output directory, $NEURONTUI_OUT or ./neurontui_runs). `neurontui PATH --help` lists its options.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"neurontui.commands.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in SUBCOMMANDS and argv[0] not in ("-h", "--help"):
        from neurontui.commands.open_app import run_app

        return _guarded(lambda: run_app(argv))
    args = build_parser().parse_args(argv)
    return _guarded(lambda: args.func(args))


def _guarded(action) -> int:
    """Run a command, turning user errors into one line on stderr and exit 2."""
    try:
        return int(action() or 0)
    except (UserError, TraceError) as exc:
        print(f"neurontui: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("neurontui: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
