"""Neuron Explorer Parquet exports: lanes, tracks, links, alignment, details and broken inputs."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import neuron_export as fx  # tests/neuron_export.py: fixture writers (tests/ is on sys.path)

from neurontui.formats.neuron import load_explorer_export
from neurontui.model import BUSY, Lane, TraceError


def lane_counts(trace) -> dict[str, int]:
    return {lane.label: int(trace.lane_mask(lane).sum()) for lane in Lane}


def track_names(trace, lane: Lane) -> list[str]:
    return [t.name for t in trace.lane_tracks(lane)]


@pytest.mark.parametrize("split", [True, False])
def test_export_lanes_tracks_and_links(tmp_path: Path, split: bool) -> None:
    trace = load_explorer_export(fx.write_export(tmp_path / "export", split=split))
    c = fx.EXPECTED_COUNTS
    assert lane_counts(trace) == {
        "framework": c["framework"],
        "device": c["device"],
        "runtime": c["runtime"],
        "hardware": c["system_hw"] + c["instructions"] + c["dma"],
        "other": 0,
    }
    assert track_names(trace, Lane.FRAMEWORK) == ["thread 100"]
    assert track_names(trace, Lane.DEVICE) == ["stream 0"]
    assert track_names(trace, Lane.RUNTIME) == ["NC0"]
    assert track_names(trace, Lane.HARDWARE) == [
        "NC0 exec", "NC0 TensorMatrix", "NC0 Vector", "NC0 Scalar", "NC0 GpSimd", "NC0 DMA qSyncIO0", "NC0 DMA qSyncIO1",
    ]
    assert {t.group for t in trace.lane_tracks(Lane.HARDWARE)} == {"NeuronCore 0"}
    assert len(trace.links) == fx.EXPECTED_LINKS
    assert trace.meta["alignment"] == "epoch"
    assert trace.meta["summary_metrics"][0]["mfu_estimated_percent"] == 1.5
    assert trace.meta["executions"] == fx.EXECUTIONS


def test_flow_links_walk_framework_to_hardware(tmp_path: Path) -> None:
    trace = load_explorer_export(fx.write_export(tmp_path / "export"))
    op = trace.event(trace.find_names("aten::mul")[0])
    (driver,) = op.downstream()
    (runtime,) = driver.downstream()
    (hardware,) = runtime.downstream()
    assert (driver.lane, runtime.lane, hardware.lane) == (Lane.DEVICE, Lane.RUNTIME, Lane.HARDWARE)
    assert (runtime.name, hardware.name) == ("nrt_execute", "nc_exec_running")
    assert hardware.upstream()[0].index == runtime.index


def test_instruction_details_decode_by_row(tmp_path: Path) -> None:
    trace = load_explorer_export(fx.write_export(tmp_path / "export"))
    matmuls = trace.find_names("MATMUL")
    assert len(matmuls) == fx.EXECUTIONS
    ev = trace.event(matmuls[1])
    args = ev.args()
    assert ev.track.name == "NC0 TensorMatrix" and ev.busy
    assert args["opcode"] == "MATMUL" and args["hlo_name"] == "rmsnorm.1"
    assert args["raw_flops"] == 4096 and args["hbm_read_bytes"] == 512
    assert args["start_ts"] == ev.start == fx.BASE_NS + fx.PERIOD_NS + 100_000


def test_busy_union_covers_instructions_without_double_counting(tmp_path: Path) -> None:
    trace = load_explorer_export(fx.write_export(tmp_path / "export"))
    assert np.all(trace.events.flags[trace.lane_mask(Lane.HARDWARE)] & BUSY)
    starts, ends = trace.busy_union(Lane.HARDWARE)
    # Each execution's instructions and DMA lie inside its 100 µs nc_exec_running window.
    assert len(starts) == fx.EXECUTIONS
    assert int((ends - starts).sum()) == fx.EXECUTIONS * 100_000


def test_relative_device_tables_are_aligned_and_marked_inferred(tmp_path: Path) -> None:
    trace = load_explorer_export(fx.write_export(tmp_path / "export", relative=True))
    assert trace.meta["alignment"] == "inferred"
    assert any("alignment inferred" in w for w in trace.warnings)
    windows = sorted(trace.event(i).start for i in trace.find_names("nc_exec_running"))
    for k, matmul in enumerate(sorted(trace.event(i).start for i in trace.find_names("MATMUL"))):
        assert matmul == windows[k]
    dma = sorted(trace.event(i).start for i in trace.find_names("dma io"))
    assert dma[0] == windows[0] and dma[2] == windows[1]


def test_relative_without_execution_info_anchors_first_row_to_first_window(tmp_path: Path) -> None:
    export = fx.write_export(tmp_path / "export", relative=True)
    (export / "ExecutionInfo.parquet").unlink()
    trace = load_explorer_export(export)
    windows = sorted(trace.event(i).start for i in trace.find_names("nc_exec_running"))
    matmuls = sorted(trace.event(i).start for i in trace.find_names("MATMUL"))
    assert matmuls[0] == windows[0] and matmuls[1] - matmuls[0] == fx.PERIOD_NS
    assert trace.meta["alignment"] == "inferred"


def test_missing_optional_tables_and_columns(tmp_path: Path) -> None:
    trace = load_explorer_export(fx.write_export(tmp_path / "export", minimal=True))
    assert lane_counts(trace)["hardware"] == fx.EXPECTED_COUNTS["system_hw"] + fx.EXPECTED_COUNTS["instructions"] + fx.EXPECTED_COUNTS["dma"]
    assert "NC0 tensor" in track_names(trace, Lane.HARDWARE)  # engine names when timeline_track is absent
    assert "summary_metrics" not in trace.meta
    ev = trace.event(trace.find_names("MATMUL")[0])
    assert ev.end - ev.start == 15_000  # end from duration_ns when end_ts is absent
    assert len(trace.links) == fx.EXPECTED_LINKS


def test_empty_parquet_file_is_one_sentence(tmp_path: Path) -> None:
    export = fx.write_export(tmp_path / "export")
    (export / "DmaPacket.parquet").write_bytes(b"")
    with pytest.raises(TraceError, match=r"DmaPacket\.parquet: is empty \(0 bytes\)$"):
        load_explorer_export(export)


def test_garbage_parquet_file_is_one_sentence(tmp_path: Path) -> None:
    export = fx.write_export(tmp_path / "export")
    (export / "Instruction_1.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(TraceError, match="is not a readable Parquet file") as info:
        load_explorer_export(export)
    assert "\n" not in str(info.value)


def test_wrong_column_type_is_one_sentence(tmp_path: Path) -> None:
    export = fx.write_export(tmp_path / "export")
    table = fx.system_events()
    table = table.set_column(table.column_names.index("start_ts"), "start_ts", pa.array([str(v) for v in table.column("start_ts").to_pylist()]))
    pq.write_table(table, export / "SystemProfileEvents.parquet")
    with pytest.raises(TraceError, match="SystemProfileEvents column 'start_ts' has type string, expected int64 nanoseconds"):
        load_explorer_export(export)


def test_missing_system_table_is_one_sentence(tmp_path: Path) -> None:
    export = fx.write_export(tmp_path / "export")
    (export / "SystemProfileEvents.parquet").unlink()
    with pytest.raises(TraceError, match=r"is not a Neuron Explorer export \(no SystemProfileEvents\.parquet in it\)"):
        load_explorer_export(export)
