"""`neurontui summary PATH [--json]`: the headless overview other tools build on."""

from __future__ import annotations

import argparse
import json
import sys

from neurontui.analysis.gaps import NO_DEVICE_WORK
from neurontui.analysis.summary import summarize
from neurontui.formats.load import load_trace


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("summary", help="per-lane counts, busy time, gaps and top ops of a trace")
    parser.add_argument("path", help="a trace file (.json, .json.gz) or a capture directory")
    parser.add_argument("--json", action="store_true", help="print the JSON contract instead of a table")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    trace = load_trace(args.path)
    data = summarize(trace)
    if args.json:
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print_table(data)
    for warning in trace.warnings:
        print(f"neurontui: warning: {warning}", file=sys.stderr)
    return 0


def _print_table(data: dict) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()
    t0, t1 = data["window_ns"]
    console.print(f"[bold]{escape(data['path'])}[/bold]  {escape('[' + data['source'] + ']')}", highlight=False)
    if data.get("synthetic"):
        console.print("[bold yellow]SYNTHETIC[/bold yellow]: generated sample data, not measured on hardware")
    lanes = Table(title_justify="left")
    for col in ("lane", "events", "tracks", "busy"):
        lanes.add_column(col, justify="right" if col != "lane" else "left")
    for name, lane in data["lanes"].items():
        lanes.add_row(name, f"{lane['events']:,}", str(lane["tracks"]), _fmt_ns(lane["busy_ns"]))
    console.print(lanes)
    gaps = data["gaps"]
    gap_text = (
        f"{gaps['count']} gap(s) on the {gaps['lane']} lane totalling {_fmt_ns(gaps['total_ns'])}, "
        f"largest {_fmt_ns(gaps['largest_ns'])}"
        if data["lanes"][gaps["lane"]]["busy_ns"]
        else NO_DEVICE_WORK
    )
    console.print(f"window {_fmt_ns(t1 - t0)} · {data['steps']} step(s) · {data['links']:,} links · {gap_text}")
    if data["top_ops"]:
        ops = Table(title="top framework ops by host time", title_justify="left")
        for col in ("op", "calls", "host", "device"):
            ops.add_column(col, justify="right" if col != "op" else "left", overflow="fold")
        for row in data["top_ops"]:
            ops.add_row(escape(row["name"]), str(row["calls"]), _fmt_ns(row["host_ns"]), _fmt_ns(row["device_ns"]))
        console.print(ops)


def _fmt_ns(ns: float) -> str:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(ns) >= scale:
            return f"{ns / scale:.2f} {unit}"
    return f"{int(ns)} ns"
