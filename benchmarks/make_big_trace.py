"""Write a large accelerator-shaped Kineto trace (MTIA-like) for load benchmarks.

Default: about 450 k events and 85 MB of JSON, shaped like a real MTIA
capture: 300 k metadata events, and the rest a quarter each of framework ops
(with recorded shapes), device runtime calls, hardware executions and ac2g
flow points. Deterministic for a given --seed; `--timed N` scales it up.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random


def generate(path: str, timed: int = 150_000, metadata: int = 300_000, seed: int = 0) -> None:
    rng = random.Random(seed)
    quarter = timed // 4
    pid, dev_pid = 865, 17
    threads = [1457 + i for i in range(8)]
    streams = [100 + i for i in range(4)]
    stream_free = dict.fromkeys(streams, 0.0)
    ops = ["aten::linear", "aten::addmm", "aten::relu", "aten::mul", "aten::add", "aten::layer_norm",
           "aten::embedding_bag", "aten::cat", "aten::copy_", "aten::sum"]
    kernels = [f"mtia_kernel_{k}" for k in ("fc", "relu", "eltwise_mul", "eltwise_add", "ln", "emb", "cat")]
    out: list[str] = []
    t = 701_805_000_000.0  # microseconds, relative to baseTimeNanoseconds
    ext = 1000
    corr = 1_000_000_000
    n_fw = n_rt = n_hw = n_flow = 0
    while n_fw < quarter:
        tid = rng.choice(threads)
        op_dur = rng.uniform(5, 60)
        ext += 1
        corr += 1
        out.append(json.dumps({"ph": "X", "cat": "cpu_op", "name": rng.choice(ops), "pid": pid, "tid": tid,
                               "ts": round(t, 3), "dur": round(op_dur, 3),
                               "args": {"External id": ext, "Record function id": 0, "Ev Idx": n_fw, "Sequence number": n_fw,
                                        "Input Dims": [[64, 512], [512, 512], [512]],
                                        "Input type": ["float", "float", "float"],
                                        "Input Strides": [[512, 1], [512, 1], [1]],
                                        "Concrete Inputs": ["", "", ""],
                                        "Call stack": "model.py(88): forward;torch/nn/modules/module.py(1751): _call_impl;"
                                                      "torch/nn/modules/linear.py(125): forward;ranker.py(412): score"}}))
        n_fw += 1
        launch_ts = t + op_dur * 0.3
        out.append(json.dumps({"ph": "X", "cat": "mtia_runtime", "name": "launchKernel", "pid": pid, "tid": tid,
                               "ts": round(launch_ts, 3), "dur": round(op_dur * 0.4, 3),
                               "args": {"External id": ext, "correlation": corr, "device": dev_pid, "stream_id": 112}}))
        n_rt += 1
        stream = rng.choice(streams)
        # Work on one stream runs in order: a kernel starts after the previous one ends.
        kts = max(launch_ts + rng.uniform(2, 20), stream_free[stream])
        kdur = rng.uniform(1, 40)
        stream_free[stream] = kts + kdur
        out.append(json.dumps({"ph": "X", "cat": "mtia_ccp_events", "name": rng.choice(kernels), "pid": dev_pid,
                               "tid": stream, "ts": round(kts, 3), "dur": round(kdur, 3),
                               "args": {"External id": ext, "correlation": corr, "device": dev_pid, "stream": stream,
                                        "queued": 0, "context": 1, "registers per thread": 64, "shared memory": 8192,
                                        "blocks per SM": 1.5, "warps per SM": 12.0, "grid": [512, 1, 1],
                                        "block": [256, 1, 1], "est. achieved occupancy %": 75,
                                        "kernel_backend": "mtia_ccp", "kernel_hash": "8d3f0c2a91be47e5"}}))
        n_hw += 1
        t += op_dur + rng.uniform(0.5, 8)
        if n_fw % 2:  # one flow (s + f) per two launches keeps flows at a quarter
            continue
        out.append(json.dumps({"ph": "s", "id": corr, "pid": pid, "tid": tid, "ts": round(launch_ts, 3),
                               "cat": "ac2g", "name": "ac2g"}))
        out.append(json.dumps({"ph": "f", "id": corr, "pid": dev_pid, "tid": stream, "ts": round(kts, 3),
                               "cat": "ac2g", "name": "ac2g", "bp": "e"}))
        n_flow += 2
    for i in range(metadata):
        kind = i % 3
        if kind == 0:
            out.append(json.dumps({"name": "thread_name", "ph": "M", "ts": 0, "pid": pid, "tid": threads[i % 8],
                                   "args": {"name": f"thread {threads[i % 8]} (python)"}}))
        elif kind == 1:
            out.append(json.dumps({"name": "thread_sort_index", "ph": "M", "ts": 0, "pid": pid,
                                   "tid": threads[i % 8], "args": {"sort_index": i % 8}}))
        else:
            out.append(json.dumps({"name": "process_labels", "ph": "M", "ts": 0, "pid": dev_pid, "tid": 0,
                                   "args": {"labels": f"MTIA {i % 4}"}}))
    out.append(json.dumps({"ph": "X", "cat": "Trace", "ts": 701_805_000_000.0, "dur": round(t - 701_805_000_000.0, 3),
                           "pid": "Spans", "tid": "PyTorch Profiler", "name": "PyTorch Profiler (0)",
                           "args": {"Op count": 0}}))
    head = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "MTIA (synthetic)"}],
            "displayTimeUnit": "ms", "baseTimeNanoseconds": 1767189312000000000}
    body = json.dumps(head)[:-1] + ', "traceEvents": [\n' + ",\n".join(out) + "\n]}"
    tmp = path + ".tmp"
    opener = gzip.open if path.endswith(".gz") else open
    with opener(tmp, "wt") as fh:
        fh.write(body)
    os.replace(tmp, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", default="benchmarks/out/big_trace.json")
    parser.add_argument("--timed", type=int, default=150_000, help="timed events (X and flow points)")
    parser.add_argument("--metadata", type=int, default=300_000, help="metadata (M) events")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.makedirs(os.path.dirname(os.path.abspath(args.path)), exist_ok=True)
    generate(args.path, args.timed, args.metadata, args.seed)
    print(f"{args.path}: {os.path.getsize(args.path) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
