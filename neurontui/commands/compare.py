"""`neurontui compare PATH... [--json|--csv|--markdown]`: which implementation is faster on the device, and why."""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from pathlib import Path

from neurontui.analysis.compare import Comparison, RunInput, compare_runs
from neurontui.analysis.compare_columns import COLUMNS
from neurontui.analysis.gaps import CAUSES, GapSettings
from neurontui.errors import UserError
from neurontui.model.errors import TraceError


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("compare", help="compare runs side by side: device time, dispatches, gaps, speedup")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a session directory, run directories or trace files")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the JSON contract for scripts")
    out.add_argument("--csv", action="store_true", help="print CSV")
    out.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--baseline", default=None, help="run or implementation to compare against (default: naive, else the first)")
    parser.add_argument("--ops", action="store_true", help="also list each run's ops, beside key_averages.csv when the run has one")
    parser.add_argument("--noise-floor-us", type=float, default=1.0, help="ignore gaps shorter than this (default 1 µs)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.noise_floor_us < 0:
        raise UserError("--noise-floor-us must not be negative.")
    runs = load_runs(args.paths)
    comparison = compare_runs(runs, args.baseline, GapSettings(noise_floor_ns=int(round(args.noise_floor_us * 1000))))
    ops = {r.name: _ops(r.trace) for r in runs} if args.ops else {}
    if args.json:
        data = comparison.to_json()
        for run in data["runs"]:
            if run["name"] in ops:
                run["ops"] = ops[run["name"]]
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.csv:
        _write_csv(comparison)
    elif args.markdown:
        _write_markdown(comparison)
    else:
        _print_table(comparison)
    if ops and not args.json:
        _print_ops(ops, markdown=args.markdown or args.csv)
    return 0


def _ops(trace) -> list[dict]:
    """The run's op table with key_averages.csv beside it when the run directory has one."""
    from neurontui.analysis.ops import op_report, op_table, read_key_averages

    base = Path(trace.path)
    csv_path = (base if base.is_dir() else base.parent) / "key_averages.csv"
    return op_report(op_table(trace), read_key_averages(csv_path) if csv_path.is_file() else None)


def _print_ops(ops: dict[str, list[dict]], markdown: bool, limit: int = 15) -> None:
    """Top ops by host time per run: ours, the profiler's in brackets, '≠' where they disagree beyond 5 %."""
    from neurontui.analysis.compare_columns import fmt_ns

    def pair(row: dict, ours: str, theirs: str, column: str) -> str:
        prof = row["profiler"]
        text = fmt_ns(row[ours]) if ours != "calls" else str(row[ours])
        if prof is not None:
            other = prof[theirs]
            text += f" [{fmt_ns(other) if ours != 'calls' else int(other)}]"
            text += " ≠" if column in row["disagree"] else ""
        return text

    for name, rows in ops.items():
        header = ["op", "calls", "host total", "host self", "device self", "device total", "dispatches"]
        body = [
            [
                r["name"],
                pair(r, "calls", "calls", "calls"),
                pair(r, "host_total_ns", "host_total", "host_total"),
                pair(r, "host_self_ns", "host_self", "host_self"),
                pair(r, "device_self_ns", "device_self", "device_self"),
                pair(r, "device_total_ns", "device_total", "device_total"),
                str(r["dispatches"]),
            ]
            for r in rows[:limit]
        ]
        title = f"{name}: top {min(limit, len(rows))} ops by host time (ours [key_averages.csv])"
        if markdown:
            sys.stdout.write(f"\n{title}\n\n| " + " | ".join(header) + " |\n|" + "---|" * len(header) + "\n")
            sys.stdout.write("".join("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |\n" for row in body))
        else:
            from rich.console import Console
            from rich.markup import escape
            from rich.table import Table

            table = Table(title=escape(title), title_justify="left")
            for h in header:
                table.add_column(h, justify="left" if h == "op" else "right")
            for row in body:
                table.add_row(*(escape(c) for c in row))
            Console().print(table)


def load_runs(paths: list[str]) -> list[RunInput]:
    """Every run the paths name, in order: a session expands to its runs; unreadable session members are skipped."""
    from neurontui.formats import discover

    runs: list[RunInput] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise UserError(f"{raw}: no such file or directory.")
        try:
            captures = discover.find_captures(path) if path.is_dir() else [discover.capture_for(path)]
        except TraceError as exc:
            raise UserError(f"{exc}") from None
        if not captures:
            raise UserError(f"{raw} holds no run, trace or Neuron capture to compare.")
        for capture in captures:
            try:
                trace = discover.load_capture(capture)
            except TraceError as exc:
                if len(captures) == 1:
                    raise UserError(f"{exc}") from None
                print(f"neurontui: skipping {capture.path}: {exc}", file=sys.stderr)
                continue
            manifest = capture.manifest or None
            impl = manifest.get("implementation") if manifest else None
            name = (manifest or {}).get("name") or _run_name(capture.path)
            runs.append(RunInput(str(name), trace, impl, manifest))
    if not runs:
        raise UserError("none of the given paths holds a readable run.")
    return runs


def _run_name(path: Path) -> str:
    name = path.name
    for suffix in (".json.gz", ".json"):
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    return name if name != "trace" else os.path.basename(os.path.dirname(os.path.abspath(path))) or name


def _rows(comparison: Comparison) -> list[list[str]]:
    return [[c.text(r) for c in COLUMNS] for r in comparison.runs]


# Columns left out first when the terminal is too narrow for all of them, least needed first.
NARROW_DROPS = ("steps", "largest", "util", "host", "gaps")


def _print_table(comparison: Comparison) -> None:
    """A compact table that fits the terminal: cells never wrap; the least needed columns go first."""
    from rich import box
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()
    rows = _rows(comparison)
    shown = list(range(len(COLUMNS)))
    for key in NARROW_DROPS:
        if _width(shown, rows) <= console.width:
            break
        shown.remove(next(i for i, c in enumerate(COLUMNS) if c.key == key))
    title = f"baseline: {comparison.baseline}" + (f" · {comparison.synthetic_note}" if comparison.synthetic_note else "")
    table = Table(title=escape(title), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for i in shown:
        table.add_column(COLUMNS[i].header, justify="right" if COLUMNS[i].numeric else "left", no_wrap=True)
    for row in rows:
        table.add_row(*(escape(row[i]) for i in shown))
    console.print(table)
    thresholds = comparison.settings.describe()
    for r in comparison.runs:
        console.print(f"{r.name}: {r.measured_over}", style="dim", markup=False, highlight=False)
    left_out = [COLUMNS[i].header for i in range(len(COLUMNS)) if i not in shown]
    more = f"; left out to fit the terminal: {', '.join(left_out)} (see --markdown or --json)" if left_out else ""
    console.print(f"{thresholds}{more}", style="dim", markup=False, highlight=False)


def _width(shown: list[int], rows: list[list[str]]) -> int:
    """The table's width: the widest cell of each column plus a space between columns."""
    widths = [max(len(COLUMNS[i].header), *(len(row[i]) for row in rows)) for i in shown]
    return sum(widths) + 2 * (len(widths) - 1)


def _write_csv(comparison: Comparison) -> None:
    writer = csv.writer(sys.stdout)
    data = comparison.to_json()
    scalar = [k for k, v in data["runs"][0].items() if not isinstance(v, dict | list)] if data["runs"] else []
    writer.writerow(["baseline", *scalar, *(f"gap_{c.replace(' ', '_')}_ns" for c in CAUSES)])
    for run in data["runs"]:
        writer.writerow([data["baseline"], *(run[k] for k in scalar), *(run["gap_by_cause_ns"][c] for c in CAUSES)])


def _write_markdown(comparison: Comparison) -> None:
    lines = [
        f"Baseline: **{comparison.baseline}**; {comparison.settings.describe()}.",
        "",
        "| " + " | ".join(c.header for c in COLUMNS) + " |",
        "|" + "|".join("---:" if c.numeric else "---" for c in COLUMNS) + "|",
    ]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in _rows(comparison)]
    sys.stdout.write("\n".join(lines) + "\n")
