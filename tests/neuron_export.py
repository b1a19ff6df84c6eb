"""Small Neuron capture fixtures written from the documented schemas: Explorer Parquet, legacy JSON, Kineto, raw files.

Used by the tests and by the fake `neuron-explorer` CLI. Two device executions, each with a
framework op, its driver call, two runtime calls, one nc_exec_running window, four engine
instructions and two DMA packets; each execution's events share one flow id.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

BASE_NS = 1_764_700_000_000_000_000
PROFILE_START_NS = BASE_NS - 50_000
EXECUTIONS = 2
PERIOD_NS = 1_000_000
ENGINES = (("tensor", "TensorMatrix", "MATMUL"), ("vector", "Vector", "TENSOR_REDUCE"), ("scalar", "Scalar", "ACTIVATE"), ("gpsimd", "GpSimd", "IOTA"))
QUEUES = ("qSyncIO0", "qSyncIO1")

# Expected shape of the fixture (asserted by the tests).
EXPECTED_COUNTS = {"framework": 2, "device": 2, "runtime": 4, "system_hw": 2, "instructions": 8, "dma": 4}
EXPECTED_LINKS = 3 * EXECUTIONS  # framework -> driver -> nrt_execute -> nc_exec_running per flow


def system_events(base_ns: int = BASE_NS) -> pa.Table:
    rows = []
    for k in range(EXECUTIONS):
        t0 = base_ns + k * PERIOD_NS
        flow = [f"flow-{k}"]
        common = {"instance_id": "i-0synthetic", "process_id": 7, "worker_gid": 0}
        rows += [
            {**common, "name": "aten::mul", "start_ts": t0, "end_ts": t0 + 300_000, "trace_event_source": "framework", "thread_id": 100, "flow_id": flow},
            {**common, "name": "neuron_launch", "start_ts": t0 + 50_000, "end_ts": t0 + 250_000, "trace_event_source": "framework", "thread_id": 100, "framework_stream_id": 0, "flow_id": flow},
            {**common, "name": "nrt_execute", "start_ts": t0 + 60_000, "end_ts": t0 + 240_000, "trace_event_source": "neuron_rt", "thread_id": 200, "nc_idx": 0, "flow_id": flow},
            {**common, "name": "kbl_exec_wait", "start_ts": t0 + 70_000, "end_ts": t0 + 230_000, "trace_event_source": "neuron_rt", "thread_id": 200, "nc_idx": 0, "flow_id": []},
            {**common, "name": "nc_exec_running", "start_ts": t0 + 100_000, "end_ts": t0 + 200_000, "trace_event_source": "neuron_hw", "nc_idx": 0, "pcore_idx": 0, "flow_id": flow},
        ]
    for r in rows:
        r["duration_ns"] = r["end_ts"] - r["start_ts"]
        r["id"] = rows.index(r)
    schema = pa.schema(
        [
            ("id", pa.int64()), ("name", pa.string()), ("start_ts", pa.int64()), ("end_ts", pa.int64()), ("duration_ns", pa.int64()),
            ("trace_event_source", pa.string()), ("instance_id", pa.string()), ("process_id", pa.int64()), ("thread_id", pa.int64()),
            ("nc_idx", pa.int64()), ("pcore_idx", pa.int64()), ("worker_gid", pa.int64()), ("flow_id", pa.list_(pa.string())),
            ("framework_stream_id", pa.int64()),
        ]
    )
    return pa.Table.from_pylist(rows, schema=schema)


def instructions(base_ns: int = BASE_NS, relative: bool = False) -> pa.Table:
    rows = []
    shift = PROFILE_START_NS if relative else 0
    for k in range(EXECUTIONS):
        t0 = base_ns + k * PERIOD_NS + 100_000 - shift
        for i, (engine, track, opcode) in enumerate(ENGINES):
            s = t0 + i * 20_000
            rows.append(
                {"start_ts": s, "end_ts": s + 15_000, "duration_ns": 15_000, "engine": engine, "timeline_track": track, "pcore_idx": 0,
                 "opcode": opcode, "operands": "src=sb[0:128] dst=psum", "id": len(rows), "pc": 4 * len(rows), "hlo_name": "rmsnorm.1",
                 "hbm_read_bytes": 512, "sbuf_write_bytes": 256, "raw_flops": 4096, "adjusted_flops": 4096}
            )
    return pa.Table.from_pylist(rows)


def dma_packets(base_ns: int = BASE_NS, relative: bool = False) -> pa.Table:
    rows = []
    shift = PROFILE_START_NS if relative else 0
    for k in range(EXECUTIONS):
        t0 = base_ns + k * PERIOD_NS + 100_000 - shift
        for q, queue in enumerate(QUEUES):
            s = t0 + q * 80_000
            rows.append({"start_ts": s, "end_ts": s + 10_000, "duration_ns": 10_000, "queue_name": queue, "queue_type": "io",
                         "transfer_bytes": 4096, "throughput": 0.4, "pcore_idx": 0})
    return pa.Table.from_pylist(rows)


def write_export(out: Path, base_ns: int = BASE_NS, *, relative: bool = False, split: bool = True, minimal: bool = False) -> Path:
    """Write an Explorer Parquet export; `minimal` drops the optional tables and columns."""
    out.mkdir(parents=True, exist_ok=True)
    system = system_events(base_ns)
    instr = instructions(base_ns, relative)
    dma = dma_packets(base_ns, relative)
    if minimal:
        system = system.drop_columns(["id", "duration_ns", "instance_id", "worker_gid"])
        instr = instr.select(["start_ts", "duration_ns", "engine", "pcore_idx", "opcode"])
        dma = dma.select(["start_ts", "end_ts", "queue_name", "pcore_idx"])
    pq.write_table(system, out / "SystemProfileEvents.parquet")
    if split:
        half = instr.num_rows // 2
        pq.write_table(instr.slice(0, half), out / "Instruction_0.parquet")
        pq.write_table(instr.slice(half), out / "Instruction_1.parquet")
    else:
        pq.write_table(instr, out / "Instruction.parquet")
    pq.write_table(dma, out / "DmaPacket.parquet")
    if not minimal:
        execs = [{"execution_index": k, "neff_name": "neff_1234_vnc_0.neff", "execution_start_ts": k * PERIOD_NS + 150_000,
                  "execution_end_ts": k * PERIOD_NS + 250_000} for k in range(EXECUTIONS)]
        pq.write_table(pa.Table.from_pylist(execs), out / "ExecutionInfo.parquet")
        summary = [{"mfu_estimated_percent": 1.5, "hfu_estimated_percent": 2.0, "mbu_estimated_percent": 12.5, "total_time_ns": 200_000}]
        pq.write_table(pa.Table.from_pylist(summary), out / "Summary.parquet")
        meta = [{"first_ts_ns": PROFILE_START_NS, "last_ts_ns": base_ns + EXECUTIONS * PERIOD_NS, "ntff_version": 2}]
        pq.write_table(pa.Table.from_pylist(meta), out / "SystemProfileMetadata.parquet")
    return out


def write_kineto(path: Path, base_ns: int = BASE_NS) -> Path:
    """A TorchNeuron-style Kineto trace: one ProfilerStep per execution, ops (privateuse1_runtime) and driver calls."""
    events = [
        {"ph": "M", "name": "process_name", "pid": 7, "tid": 0, "args": {"name": "python"}},
        {"ph": "M", "name": "thread_name", "pid": 7, "tid": 100, "args": {"name": "main"}},
    ]
    for k in range(EXECUTIONS):
        t0 = k * PERIOD_NS / 1000  # µs relative to baseTimeNanoseconds
        events += [
            {"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{k}", "pid": 7, "tid": 100, "ts": t0 - 10, "dur": 400},
            {"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 7, "tid": 100, "ts": t0, "dur": 300, "args": {"External id": 10 + k}},
            {"ph": "X", "cat": "privateuse1_runtime", "name": "neuron::execute", "pid": 7, "tid": 100, "ts": t0 + 20, "dur": 260, "args": {"External id": 10 + k}},
            {"ph": "X", "cat": "privateuse1_driver", "name": "neuron_launch", "pid": 7, "tid": 100, "ts": t0 + 50, "dur": 200, "args": {"External id": 10 + k}},
        ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"schemaVersion": 1, "baseTimeNanoseconds": base_ns, "traceEvents": events}))
    return path


KINETO_COUNTS = {"framework": 3 * EXECUTIONS, "device": EXECUTIONS}


def write_raw_capture(directory: Path, base_ns: int = BASE_NS, neff_hash: str = "395760075800974") -> Path:
    """A TorchNeuron capture directory: Kineto trace plus placeholder .pb/.neff/.ntff files."""
    directory.mkdir(parents=True, exist_ok=True)
    write_kineto(directory / "trace.json", base_ns)
    (directory / "ntrace.pb").write_bytes(b"SYNTHETIC test placeholder: neuron runtime trace\n")
    (directory / "trace_info.pb").write_bytes(b"SYNTHETIC test placeholder: trace info\n")
    (directory / f"neff_{neff_hash}_vnc_0.neff").write_bytes(b"SYNTHETIC test placeholder: NEFF\n")
    (directory / f"{neff_hash}_instid_0_vnc_0.ntff").write_bytes(b"SYNTHETIC test placeholder: NTFF\n")
    return directory


def write_legacy_json(directory: Path, base_ns: int = BASE_NS) -> tuple[Path, Path]:
    """Legacy `--output-format json` files: a system profile and a device profile."""
    directory.mkdir(parents=True, exist_ok=True)
    trace_events = []
    for r in system_events(base_ns).to_pylist():
        source = r["trace_event_source"]
        if source == "framework":
            continue
        group = f"nrt-nc-{r['nc_idx']:03d}" if source == "neuron_rt" else f"nc-{r['pcore_idx']:03d}"
        trace_events.append({"timestamp": r["start_ts"], "duration": r["end_ts"] - r["start_ts"], "group": group, "name": r["name"],
                             "type": source, "instance_id": r["instance_id"], "thread_id": r["thread_id"]})
    system = directory / "system_profile.json"
    system.write_text(json.dumps({"trace_events": trace_events, "mem_usage": [], "cpu_util": []}))
    device = directory / "device_profile.json"
    instr = [{"timestamp": r["start_ts"], "duration": r["duration_ns"], "opcode": r["opcode"], "operands": r["operands"],
              "hlo_name": r["hlo_name"], "engine": r["engine"]} for r in instructions(base_ns).to_pylist()]
    dma = [{"timestamp": r["start_ts"], "duration": r["duration_ns"], "queue_name": r["queue_name"]} for r in dma_packets(base_ns).to_pylist()]
    device.write_text(json.dumps({"instruction": instr, "dma": dma, "active_time": [], "summary": [{"mfu_estimated_percent": 1.5}], "metadata": {}}))
    return system, device
