"""`neurontui [PATH]`: check the arguments, then start the Textual app on the explorer."""

from __future__ import annotations

import argparse
import os

from neurontui.errors import UserError


def build_parser() -> argparse.ArgumentParser:
    from neurontui.cli import default_out_dir

    parser = argparse.ArgumentParser(prog="neurontui", description="Explore a PyTorch profiler trace in the terminal.")
    parser.add_argument("path", nargs="?", metavar="PATH", help="a trace file or a directory (default: the capture output directory)")
    parser.add_argument("--out", metavar="DIR", default=default_out_dir(), help="capture output directory (default: %(default)s)")
    parser.add_argument("--poll", action="store_true", help="watch directories by polling (for network file systems)")
    parser.add_argument("--plain", action="store_true", help="plain 16-colour theme")
    return parser


def check_readable(path: str) -> None:
    """Raise UserError with one sentence when PATH cannot be read at all."""
    if not os.path.exists(path):
        raise UserError(f"{path}: no such file or directory")
    if not os.access(path, os.R_OK | (os.X_OK if os.path.isdir(path) else 0)):
        raise UserError(f"{path}: permission denied")


def run_app(argv: list[str]) -> int:
    """Parse, check PATH before the screen changes, then run the app until the person quits."""
    args = build_parser().parse_args(argv)
    if args.path is not None:
        check_readable(args.path)
    from neurontui.tui.app import NeuronTUI

    NeuronTUI(args.path, out_dir=args.out, poll=args.poll, plain=args.plain).run()
    return 0
