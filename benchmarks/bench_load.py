"""Median load time and peak RSS of a trace, with stdlib json-to-dicts as a baseline.

Each run is a fresh child process, so peak RSS is per load, not cumulative:
    python benchmarks/bench_load.py benchmarks/out/big_trace.json --runs 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
mode, path = sys.argv[1], sys.argv[2]
import numpy, pandas, msgspec  # imported up front so the baseline RSS includes them
from neurontui.formats.load import load_trace
from neurontui.formats.rawio import read_bytes
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
if mode == "neurontui":
    trace = load_trace(path)
    n = len(trace.events)
else:
    n = len(json.loads(read_bytes(path)).get("traceEvents", ()))
dt = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": dt, "peak_kb": peak, "base_kb": base, "events": n}))
"""


def measure(mode: str, path: str, runs: int) -> dict:
    results = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", CHILD, mode, path], capture_output=True, text=True, check=True)
        results.append(json.loads(out.stdout))
    return {
        "median_s": statistics.median(r["seconds"] for r in results),
        "min_s": min(r["seconds"] for r in results),
        "peak_rss_mb": max(r["peak_kb"] for r in results) / 1024,
        "rss_after_imports_mb": max(r["base_kb"] for r in results) / 1024,
        "events": results[0]["events"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    size_mb = os.path.getsize(args.path) / 1e6
    print(f"{args.path}: {size_mb:.1f} MB on disk")
    for mode in ("neurontui", "json"):
        r = measure(mode, args.path, args.runs)
        print(
            f"{mode:>10}: median {r['median_s']:.3f} s (min {r['min_s']:.3f}) over {args.runs} runs; "
            f"peak RSS {r['peak_rss_mb']:.0f} MB = {r['peak_rss_mb'] / size_mb:.2f}x the file "
            f"({r['rss_after_imports_mb']:.0f} MB after imports); {r['events']:,} events"
        )


if __name__ == "__main__":
    main()
