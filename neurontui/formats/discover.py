"""Finding every capture under a directory and loading one as a single Trace on the epoch-ns clock.

Capture kinds: a neurontui run (`manifest.json` + `trace.json`, maybe `neuron_profile/` and
`explorer/`), a TorchNeuron capture directory (`.pb`/`.neff`/`.ntff` + Kineto trace), a Neuron
Explorer Parquet export, legacy Explorer JSON files, and plain Kineto trace files.

Joining rule: when a capture has both a Kineto trace and an Explorer export, the framework and
device lanes (and "other") come from the Kineto trace and only the runtime and hardware lanes
from the export, so no framework event is counted twice; export flows that start at framework
or driver events are re-attached to the Kineto events with the same name and start time.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from neurontui.formats import explorer_cli
from neurontui.formats.kineto import is_kineto_bytes, load_kineto
from neurontui.formats.merge import ArgsRouter, add_trace
from neurontui.formats.neuron import add_explorer_tables, load_explorer_export
from neurontui.formats.neuron_json import load_legacy_json, sniff_legacy
from neurontui.formats.neuron_tables import is_explorer_export, read_tables, row_sources
from neurontui.model.builder import TraceBuilder
from neurontui.model.errors import TraceError
from neurontui.model.lanes import Lane
from neurontui.model.trace import Trace

RUN = "neurontui-run"
TORCHNEURON = "torchneuron"
EXPORT = "explorer-export"
EXPORT_JSON = "explorer-json"
KINETO = "kineto"

MANIFEST = "manifest.json"
RAW_SUFFIXES = (".pb", ".neff", ".ntff")
PROGRAM_HASH = re.compile(r"(?:neff_)?(\d+)(?:_instid_\d+)?_vnc_\d+")
_FRAMEWORK_TRACE = re.compile(r"^(trace\.json|neuron_framework_trace_rank_\d+\.json)$")
_KINETO_NAME = re.compile(r"\.(json|json\.gz)$")
_FRAMEWORK_DEVICE = (Lane.FRAMEWORK, Lane.DEVICE)
_ALL_FOUR = (Lane.FRAMEWORK, Lane.DEVICE, Lane.RUNTIME, Lane.HARDWARE)


@dataclass(frozen=True)
class Program:
    """A compiled program (NEFF) and the instruction traces (NTFF) recorded for it, paired by hash."""

    hash: str
    neff: Path | None
    ntffs: tuple[Path, ...]


@dataclass(frozen=True)
class Capture:
    """One loadable capture on disk and what it can show."""

    path: Path  # the run / capture / export directory, or the trace file
    kind: str  # RUN, TORCHNEURON, EXPORT, EXPORT_JSON or KINETO
    kineto: Path | None = None  # the framework (Kineto) trace
    export: Path | None = None  # a Neuron Explorer Parquet export directory
    legacy_json: tuple[Path, ...] = ()  # legacy Explorer JSON profiles
    raw_dir: Path | None = None  # .pb/.ntff directory neuron-explorer can decode
    programs: tuple[Program, ...] = ()
    manifest: dict[str, Any] = field(default_factory=dict)
    lanes: tuple[Lane, ...] | None = None  # None: a plain Kineto trace, lanes known after loading
    missing_lanes: tuple[Lane, ...] = ()  # lanes the raw files hold but that cannot be decoded here

    @property
    def synthetic(self) -> bool:
        return bool(self.manifest.get("synthetic"))


def find_captures(directory: str | os.PathLike[str], cache_dir: Path | None = None) -> list[Capture]:
    """Every capture under a directory (sorted by path); never reads more than file heads."""
    root = Path(directory)
    if not root.is_dir():
        raise TraceError(root, "is not a directory")
    found: list[Capture] = []
    for current, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        here = Path(current)
        names = set(files)
        if MANIFEST in names:
            found.append(_run_capture(here, cache_dir))
            dirs[:] = []
        elif is_explorer_export(here):
            found.append(_export_capture(here))
            dirs[:] = []
        elif any(n.endswith(RAW_SUFFIXES) for n in names):
            found.append(_raw_capture(here, cache_dir))
            dirs[:] = []
        else:
            found.extend(_file_captures(here, sorted(names)))
    return sorted(found, key=lambda c: str(c.path))


def capture_for(path: str | os.PathLike[str], cache_dir: Path | None = None) -> Capture:
    """The single capture a path names: a trace file, a .parquet table, or a directory holding one capture."""
    p = Path(path)
    if not p.exists():
        raise TraceError(p, "no such file or directory")
    if p.is_file():
        if p.suffix == ".parquet":
            return _export_capture(p.parent)
        if p.name == MANIFEST:
            return _run_capture(p.parent, cache_dir)
        if sniff_legacy(_head(p)):
            return _legacy_capture(p.parent, [p])
        return Capture(path=p, kind=KINETO, kineto=p)
    captures = find_captures(p, cache_dir)
    exact = [c for c in captures if c.path == p]
    if exact:
        return exact[0]
    if len(captures) == 1:
        return captures[0]
    if not captures:
        raise TraceError(p, "holds no trace, Neuron capture or Neuron Explorer export")
    raise TraceError(p, f"holds {len(captures)} captures; open one of them, e.g. {captures[0].path}")


def load_capture(
    capture_or_path: Capture | str | os.PathLike[str],
    *,
    cache_dir: Path | None = None,
    progress: Callable[[str], None] | None = None,
    timeout_s: float = explorer_cli.DEFAULT_TIMEOUT_S,
) -> Trace:
    """Load a capture as one Trace, decoding raw Neuron files with neuron-explorer when needed and possible."""
    capture = capture_or_path if isinstance(capture_or_path, Capture) else capture_for(capture_or_path, cache_dir)
    warnings: list[str] = []
    export = capture.export
    if export is None and capture.raw_dir is not None:
        try:
            export = explorer_cli.convert(capture.raw_dir, cache_dir, progress, timeout_s)
        except explorer_cli.ExplorerError as exc:
            warnings.append(str(exc))
    if capture.legacy_json:
        trace = load_legacy_json(capture.legacy_json)
    elif capture.kineto is not None and export is not None:
        trace = _joined(capture, export)
    elif capture.kineto is not None:
        trace = load_kineto(capture.kineto)
    elif export is not None:
        trace = load_explorer_export(export)
    else:
        raise TraceError(capture.path, "holds no framework trace and no Neuron Explorer export to load")
    trace.warnings.extend(w for w in warnings if w not in trace.warnings)
    _describe(trace, capture, export)
    return trace


def _joined(capture: Capture, export: Path) -> Trace:
    """Kineto framework/device lanes plus the export's runtime/hardware lanes in one builder."""
    assert capture.kineto is not None
    framework = load_kineto(capture.kineto)
    tables = read_tables(export)
    router = ArgsRouter()
    builder = TraceBuilder(path=str(capture.path), source="neuron-capture", decode_args=router)
    first = builder.count
    kept_lanes = (Lane.FRAMEWORK, Lane.DEVICE, Lane.OTHER)
    add_trace(builder, framework, router, lanes=kept_lanes)
    stand_ins = _stand_ins(framework, kept_lanes, first)
    add_explorer_tables(builder, tables, router, lanes=(Lane.RUNTIME, Lane.HARDWARE), stand_ins=stand_ins, rows=row_sources(export))
    if "baseTimeNanoseconds" not in framework.meta.get("time_base", ""):
        builder.warnings.append("the framework trace has no baseTimeNanoseconds, so its times may not line up with the Neuron runtime and hardware lanes")
    builder.meta["format"] = "neuron-capture"
    return builder.build()


def _stand_ins(trace: Trace, lanes: tuple[Lane, ...], first: int) -> pd.DataFrame:
    """(name, start, builder input position) of the framework/device events add_trace copied, in its order."""
    ev = trace.events
    track_lane = np.fromiter((int(t.lane) for t in trace.tracks), dtype=np.int8, count=len(trace.tracks))
    keep = np.flatnonzero(np.isin(track_lane, [int(lane) for lane in lanes])[ev.track]) if len(ev) else np.zeros(0, np.int64)
    pos = first + np.arange(len(keep), dtype=np.int64)
    fw_dev = np.isin(track_lane[ev.track[keep]], [int(Lane.FRAMEWORK), int(Lane.DEVICE)])
    names = np.array(list(trace.names), dtype=object)[ev.name[keep][fw_dev]] if len(trace.names) else np.zeros(0, object)
    return pd.DataFrame({"name": names, "start": ev.start[keep][fw_dev], "pos": pos[fw_dev]})


def _describe(trace: Trace, capture: Capture, export: Path | None) -> None:
    """Capture facts the UI shows: kind, programs, synthetic marker, lanes still missing."""
    trace.meta["capture_kind"] = capture.kind
    trace.meta["capture_path"] = str(capture.path)
    if export is not None:
        trace.meta["explorer_export"] = str(export)
    if capture.programs:
        trace.meta["programs"] = [
            {"hash": p.hash, "neff": str(p.neff) if p.neff else None, "ntff": [str(n) for n in p.ntffs]} for p in capture.programs
        ]
    if capture.manifest:
        trace.meta["manifest"] = capture.manifest
    if capture.synthetic:  # the trace's own marker, when it has one, is already in meta
        trace.meta["synthetic"] = True
    if export is None and capture.raw_dir is not None:
        trace.meta["lanes_missing"] = [lane.label for lane in (Lane.RUNTIME, Lane.HARDWARE)]


# ---- recognising captures -------------------------------------------------------------


def _run_capture(run_dir: Path, cache_dir: Path | None) -> Capture:
    manifest = _read_manifest(run_dir / MANIFEST)
    kineto = run_dir / "trace.json"
    export = run_dir / "explorer"
    raw = _newest_raw_dir(run_dir / "neuron_profile")
    capture = Capture(
        path=run_dir,
        kind=RUN,
        kineto=kineto if kineto.is_file() else _framework_trace(raw) if raw else None,
        export=export if is_explorer_export(export) else None,
        raw_dir=raw,
        programs=_programs(raw) if raw else (),
        manifest=manifest,
    )
    return _with_lanes(capture, cache_dir)


def _raw_capture(directory: Path, cache_dir: Path | None) -> Capture:
    capture = Capture(path=directory, kind=TORCHNEURON, kineto=_framework_trace(directory), raw_dir=directory, programs=_programs(directory))
    return _with_lanes(capture, cache_dir)


def _export_capture(directory: Path) -> Capture:
    return Capture(path=directory, kind=EXPORT, export=directory, lanes=_ALL_FOUR)


def _legacy_capture(directory: Path, files: list[Path]) -> Capture:
    return Capture(path=files[0] if len(files) == 1 else directory, kind=EXPORT_JSON, legacy_json=tuple(files), lanes=(Lane.RUNTIME, Lane.HARDWARE))


def _file_captures(directory: Path, names: list[str]) -> list[Capture]:
    """Plain Kineto files, one capture each; legacy JSON profiles of one directory, one capture together."""
    kineto: list[Capture] = []
    legacy: list[Path] = []
    for name in names:
        if not _KINETO_NAME.search(name):
            continue
        path = directory / name
        head = _head(path)
        if sniff_legacy(head):
            legacy.append(path)
        elif is_kineto_bytes(head):
            kineto.append(Capture(path=path, kind=KINETO, kineto=path))
    return kineto + ([_legacy_capture(directory, legacy)] if legacy else [])


def _with_lanes(capture: Capture, cache_dir: Path | None) -> Capture:
    """Which lanes the capture can show, given its files, the cache and the CLI on PATH (None: only the Kineto trace knows)."""
    neuron = capture.raw_dir is not None or capture.export is not None or capture.manifest.get("backend") == "neuron"
    if not neuron:
        return capture
    lanes = list(_FRAMEWORK_DEVICE) if capture.kineto else []
    missing: tuple[Lane, ...] = ()
    decodable = capture.raw_dir is not None and _has_runtime_files(capture.raw_dir)
    if capture.export is not None or (
        decodable and (explorer_cli.explorer_path() or explorer_cli.cached_export(capture.raw_dir, cache_dir))
    ):
        lanes += [Lane.RUNTIME, Lane.HARDWARE]
    elif decodable:
        missing = (Lane.RUNTIME, Lane.HARDWARE)
    return replace(capture, lanes=tuple(lanes), missing_lanes=missing)


def _has_runtime_files(directory: Path) -> bool:
    return any(p.suffix in (".pb", ".ntff") for p in directory.iterdir() if p.is_file())


def _newest_raw_dir(profile_dir: Path) -> Path | None:
    """The newest directory under a run's neuron_profile/ holding .pb/.neff/.ntff files."""
    if not profile_dir.is_dir():
        return None
    candidates = {p.parent for p in profile_dir.rglob("*") if p.suffix in RAW_SUFFIXES and p.is_file()}
    return max(candidates, key=lambda d: (d.stat().st_mtime_ns, str(d)), default=None)


def _framework_trace(directory: Path) -> Path | None:
    names = sorted(p for p in directory.iterdir() if p.is_file() and _FRAMEWORK_TRACE.match(p.name))
    return names[0] if names else None


def _programs(directory: Path) -> tuple[Program, ...]:
    """NEFF and NTFF files paired by the numeric hash in their names."""
    neffs: dict[str, Path] = {}
    ntffs: dict[str, list[Path]] = {}
    for path in sorted(directory.iterdir()):
        m = PROGRAM_HASH.search(path.name)
        if m is None:
            continue
        if path.suffix == ".neff":
            neffs[m.group(1)] = path
        elif path.suffix == ".ntff":
            ntffs.setdefault(m.group(1), []).append(path)
    return tuple(Program(h, neffs.get(h), tuple(ntffs.get(h, ()))) for h in sorted(neffs.keys() | ntffs.keys()))


def _read_manifest(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _head(path: Path, size: int = 65536) -> bytes:
    """The first bytes of a file, gunzipped when it is gzip; empty when unreadable."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(size)
        if head[:2] == b"\x1f\x8b":
            with gzip.open(path, "rb") as fh:
                head = fh.read(size)
    except (OSError, EOFError, zlib.error):
        return b""
    return head
