#!/usr/bin/env python3
"""Median time to load a Neuron Explorer Parquet export with 2 M instruction rows (target: <= 2 s).

    python benchmarks/bench_neuron_load.py [--rows 2000000] [--runs 5]

The export is generated once into benchmarks/out/ (gitignored) with numpy -> pyarrow: 4 NeuronCores,
5 engines each, 2 K device executions, DMA packets on 4 queues per core.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from neurontui.formats.neuron import load_explorer_export

OUT = Path(__file__).resolve().parent / "out"
BASE_NS = 1_764_700_000_000_000_000
CORES = 4
EXECUTIONS = 2_000
ENGINES = np.array(["tensor", "vector", "scalar", "gpsimd", "sync"])
TRACKS = np.array(["TensorMatrix", "Vector", "Scalar", "GpSimd", "Sync"])
OPCODES = np.array(["MATMUL", "TENSOR_TENSOR", "ACTIVATE", "IOTA", "SEM_WAIT", "TENSOR_REDUCE", "TENSOR_SCALAR_PTR"])


def generate(directory: Path, rows: int) -> None:
    """An export with `rows` instructions split into 4 parts, plus system events and DMA packets."""
    rng = np.random.default_rng(0)
    directory.mkdir(parents=True, exist_ok=True)
    period = 400_000
    exec_start = BASE_NS + np.arange(EXECUTIONS, dtype=np.int64) * period
    exec_len = 300_000
    # Instructions: spread evenly over executions and cores, serial per (core, engine).
    per_exec = rows // EXECUTIONS
    idx = np.arange(rows, dtype=np.int64)
    ex = idx // per_exec % EXECUTIONS
    k = idx % per_exec
    core = k % CORES
    engine = (k // CORES) % len(ENGINES)
    slot = k // (CORES * len(ENGINES))
    slots = per_exec // (CORES * len(ENGINES)) + 1
    start = exec_start[ex] + slot * (exec_len // slots) + engine * 7
    dur = rng.integers(50, exec_len // slots - 10, size=rows)
    instr = pa.table({
        "start_ts": start, "end_ts": start + dur, "duration_ns": dur, "engine": ENGINES[engine], "timeline_track": TRACKS[engine],
        "pcore_idx": core, "opcode": OPCODES[rng.integers(0, len(OPCODES), size=rows)], "operands": np.full(rows, "src=sb[0:128] dst=sb[0:128]"),
        "id": idx, "pc": idx * 64, "hlo_name": np.full(rows, "rmsnorm.1"), "hbm_read_bytes": rng.integers(0, 4096, size=rows),
        "sbuf_write_bytes": rng.integers(0, 4096, size=rows), "raw_flops": rng.integers(0, 1 << 20, size=rows),
    })
    parts = 4
    for p in range(parts):
        lo, hi = rows * p // parts, rows * (p + 1) // parts
        pq.write_table(instr.slice(lo, hi - lo), directory / f"Instruction_{p}.parquet")
    n_dma = rows // 10
    d = np.arange(n_dma, dtype=np.int64)
    dma_start = exec_start[d * EXECUTIONS // n_dma] + (d % 50) * 5_000
    pq.write_table(pa.table({
        "start_ts": dma_start, "end_ts": dma_start + 2_000, "duration_ns": np.full(n_dma, 2_000), "queue_name": np.char.add("qSyncIO", (d % 4).astype(str)),
        "queue_type": np.full(n_dma, "io"), "transfer_bytes": np.full(n_dma, 8192), "pcore_idx": (d // 4) % CORES,
    }), directory / "DmaPacket.parquet")
    n_sys = EXECUTIONS * CORES
    e = np.repeat(np.arange(EXECUTIONS), CORES)
    c = np.tile(np.arange(CORES), EXECUTIONS)
    flows = pa.array([[f"exec-{i}"] for i in range(n_sys)], type=pa.list_(pa.string()))
    system = pa.table({
        "name": np.full(n_sys, "nc_exec_running"), "start_ts": exec_start[e], "end_ts": exec_start[e] + exec_len, "trace_event_source": np.full(n_sys, "neuron_hw"),
        "process_id": np.full(n_sys, 1), "thread_id": np.full(n_sys, 1), "nc_idx": c, "pcore_idx": c, "flow_id": flows,
    })
    runtime = system.set_column(0, "name", pa.array(np.full(n_sys, "nrt_execute"))).set_column(3, "trace_event_source", pa.array(np.full(n_sys, "neuron_rt")))
    pq.write_table(pa.concat_tables([system, runtime]), directory / "SystemProfileEvents.parquet")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    directory = OUT / f"neuron-export-{args.rows}"
    if not (directory / "SystemProfileEvents.parquet").exists():
        t = time.perf_counter()
        generate(directory, args.rows)
        print(f"generated {directory} in {time.perf_counter() - t:.1f} s")
    times = []
    for _ in range(args.runs):
        gc.collect()
        t = time.perf_counter()
        trace = load_explorer_export(directory)
        times.append(time.perf_counter() - t)
        events, tracks = len(trace.events), len(trace.tracks)
        del trace
    print(f"rows={args.rows} events={events} tracks={tracks} runs={args.runs}")
    print(f"load times: {', '.join(f'{x:.2f}' for x in times)} s")
    print(f"median load: {statistics.median(times):.2f} s (target <= 2 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
