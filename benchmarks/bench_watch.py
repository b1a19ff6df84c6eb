"""Speed of the live output directory: catalog refresh cost and watcher latency, with real files in a temp dir.

Reports: the first refresh of N loose traces (full parse each), a refresh with nothing
changed (stat only), the time from a rename into place to the watcher's update, and a
burst of N files: how many updates it caused and when the last one was listed complete.
Targets: a no-change refresh of 1,000 entries ≤ 50 ms; rename to update ≤ 1 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

from neurontui.catalog import Catalog, CatalogUpdate
from neurontui.watch import RunWatcher

DEFAULT_TRACE = Path(__file__).resolve().parent.parent / "tests" / "data" / "cpu_only_rank34.json.gz"


def refresh_costs(trace: Path, count: int) -> tuple[float, float]:
    """Seconds for the first refresh of `count` copies, and the median of five unchanged refreshes."""
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(count):
            shutil.copy(trace, Path(tmp) / f"t{i:05d}.json.gz")
        catalog = Catalog(tmp)
        start = time.perf_counter()
        catalog.refresh()
        first = time.perf_counter() - start
        again = []
        for _ in range(5):
            start = time.perf_counter()
            catalog.refresh()
            again.append(time.perf_counter() - start)
        return first, statistics.median(again)


class Waiter:
    """Collects watcher updates and waits for a condition on the latest one."""

    def __init__(self) -> None:
        self.updates: list[tuple[float, CatalogUpdate]] = []
        self.cond = threading.Condition()

    def __call__(self, update: CatalogUpdate) -> None:
        with self.cond:
            self.updates.append((time.monotonic(), update))
            self.cond.notify_all()

    def wait(self, predicate, timeout: float = 60.0) -> float:
        with self.cond:
            ok = self.cond.wait_for(lambda: bool(self.updates) and predicate(self.updates[-1][1]), timeout)
            if not ok:
                raise SystemExit("timed out waiting for the watcher")
            return self.updates[-1][0]


def rename_latency(trace: Path, repeats: int, poll: bool) -> list[float]:
    """Seconds from os.replace() into the watched directory to the update listing the file complete."""
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        waiter = Waiter()
        watcher = RunWatcher(tmp, waiter, poll=poll)
        watcher.start()
        waiter.wait(lambda u: True)
        for i in range(repeats):
            staged = Path(tmp) / f"r{i}.json.gz.tmp"
            shutil.copy(trace, staged)
            time.sleep(0.4)  # let the staging write's own events pass
            start = time.monotonic()
            os.replace(staged, Path(tmp) / f"r{i}.json.gz")
            key = f"r{i}.json.gz"
            seen = waiter.wait(lambda u: (r := u.run(key)) is not None and r.status == "complete")
            out.append(seen - start)
        watcher.stop()
    return out


def burst(trace: Path, count: int, poll: bool) -> tuple[int, float]:
    """Updates caused by copying `count` files at once, and seconds until all are listed complete."""
    with tempfile.TemporaryDirectory() as tmp:
        waiter = Waiter()
        watcher = RunWatcher(tmp, waiter, poll=poll)
        watcher.start()
        waiter.wait(lambda u: True)
        before = len(waiter.updates)
        start = time.monotonic()
        for i in range(count):
            shutil.copy(trace, Path(tmp) / f"b{i:05d}.json.gz")
        done = waiter.wait(lambda u: sum(r.status == "complete" for r in u.runs) == count)
        watcher.stop()
        return len(waiter.updates) - before, done - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE, help="a small trace to copy (default: %(default)s)")
    parser.add_argument("--count", type=int, default=1000, help="entries for the refresh and burst runs")
    parser.add_argument("--poll", action="store_true", help="use the polling watcher (network file systems)")
    args = parser.parse_args()
    first, again = refresh_costs(args.trace, args.count)
    print(f"catalog, {args.count} loose traces: first refresh {first:.2f} s, unchanged refresh {again * 1000:.1f} ms")
    lat = rename_latency(args.trace, 5, args.poll)
    print(f"rename into place -> update: median {statistics.median(lat) * 1000:.0f} ms, max {max(lat) * 1000:.0f} ms")
    updates, took = burst(args.trace, args.count, args.poll)
    print(f"burst of {args.count} files: {updates} updates, all listed complete after {took:.2f} s")


if __name__ == "__main__":
    main()
