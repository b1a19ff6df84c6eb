"""The output directory as sessions and runs with a status each, refreshed incrementally.

A refresh walks the tree with `os.scandir` (stat only) and re-reads an entry only when its
signature (file count, total size, newest mtime) changed; results are cached per path and
signature. Parsing happens in whichever thread calls `refresh()` — the watcher's, never the UI's.

What counts as a run (kinds named as in formats/discover.py, whose readers validate them):
- neurontui run: a directory holding `manifest.json` (its status is the manifest's), or a
  directory inside a session (`session.json` beside it) without one yet: in progress.
- TorchNeuron capture directory: a directory holding `.ntff`/`.neff`/`.pb` profile files.
- Explorer export: a directory holding `*.parquet` tables.
- Loose Kineto trace: `*.json`, `*.json.gz` (so `*.pt.trace.json*` too) anywhere else.

A loose file or directory that fails to load while it is still changing is "in progress"; it
is reported unreadable only once it has been quiet for `settle_s`.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

import pyarrow as pa
import pyarrow.parquet as pq

from neurontui.formats import discover
from neurontui.formats.neuron_tables import is_explorer_export
from neurontui.model.errors import TraceError
from neurontui.model.trace import Trace

RunKind = str  # one of discover's capture kinds: RUN, TORCHNEURON, EXPORT, EXPORT_JSON, KINETO
RunStatus = Literal["complete", "in_progress", "failed", "cancelled", "timeout", "unreadable"]
Loader = Callable[[str], Trace]

MANIFEST_FILE = discover.MANIFEST
SESSION_FILE = "session.json"
TRACE_SUFFIXES = (".json", ".json.gz")
NOT_TRACES = frozenset({MANIFEST_FILE, SESSION_FILE, "worker-result.json"})
EXPORT_SUFFIX = ".parquet"
TEMP_SUFFIXES = (".tmp", ".part", ".partial", ".swp", ".crdownload", "~")
MANIFEST_STATUSES = frozenset({"complete", "failed", "cancelled", "timeout"})
MAX_DEPTH = 6
# A growing gzip file this big is not decompressed on every change; it waits until it settles.
YOUNG_PARSE_LIMIT = 16 * 1024 * 1024


def is_temporary_name(name: str) -> bool:
    """Names writers use before renaming into place: never shown, never parsed."""
    return name.startswith(".") or name.endswith(TEMP_SUFFIXES) or ".tmp" in name


@dataclass(frozen=True)
class Run:
    """One capture the user can open; key is its path relative to the root, stable across refreshes."""

    key: str
    path: str
    kind: RunKind
    status: RunStatus
    reason: str = ""  # why it failed, is unreadable or still in progress
    mtime_ns: int = 0
    size: int = 0
    session: str = ""
    implementation: str = ""
    backend: str = ""
    synthetic: bool = False  # generated, not measured: the UI must say so wherever it shows the run


@dataclass(frozen=True)
class Session:
    """A neurontui capture session: `session.json` plus one run directory per implementation."""

    name: str
    path: str
    backend: str
    started: str
    finished: str | None
    runs: tuple[Run, ...]


@dataclass(frozen=True)
class CatalogUpdate:
    """One refresh's result: every run newest first, and which keys appeared, changed or vanished."""

    root: str
    root_exists: bool
    runs: tuple[Run, ...]
    sessions: tuple[Session, ...]
    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    @property
    def has_changes(self) -> bool:
        return bool(self.added or self.changed or self.removed)

    def run(self, key: str) -> Run | None:
        return next((r for r in self.runs if r.key == key), None)


Signature = tuple[int, int, int]  # (files, total size, newest mtime_ns)


@dataclass
class _Entry:
    """What the catalog remembers about one path between refreshes."""

    sig: Signature
    first_seen: float  # monotonic time the current signature was first observed
    run: Run
    settled: bool  # the run's status is final for this signature (no re-check needed)


@dataclass
class _Candidate:
    path: str
    kind: RunKind
    sig: Signature
    session: str = ""


class Catalog:
    """Incremental view of one output directory; call refresh() from a worker thread only."""

    def __init__(self, root: str | os.PathLike[str], *, settle_s: float = 1.0, loader: Loader | None = None) -> None:
        self.root = os.path.abspath(os.fspath(root))
        self.settle_s = settle_s
        self._loader = loader
        self._entries: dict[str, _Entry] = {}
        self._scanned_once = False

    # ---- public ----------------------------------------------------------------------
    def refresh(self) -> CatalogUpdate:
        """Walk the root, re-read what changed, and report the differences since the last refresh."""
        now_mono, now_wall = time.monotonic(), time.time_ns()
        exists = os.path.isdir(self.root)
        candidates: list[_Candidate] = []
        sessions: list[tuple[str, dict[str, Any]]] = []
        if exists:
            self._walk(self.root, 0, "", candidates, sessions)
        seen: dict[str, _Candidate] = {os.path.relpath(c.path, self.root).replace(os.sep, "/"): c for c in candidates}
        added, changed = [], []
        for key, cand in seen.items():
            old = self._entries.get(key)
            if old is not None and old.sig == cand.sig and (old.settled or not self._quiet(old, now_mono, now_wall)):
                continue
            first_seen = old.first_seen if old is not None and old.sig == cand.sig else now_mono
            if old is None and not self._scanned_once:
                first_seen = now_mono - self.settle_s  # present before we started: already quiet
            entry = self._evaluate(key, cand, first_seen, now_mono, now_wall)
            self._entries[key] = entry
            if old is None:
                added.append(key)
            elif old.run != entry.run:
                changed.append(key)
        removed = [key for key in self._entries if key not in seen]
        for key in removed:
            del self._entries[key]
        self._scanned_once = True
        runs = tuple(sorted((e.run for e in self._entries.values()), key=lambda r: (-r.mtime_ns, r.key)))
        ordered = sorted((self._session(path, data, runs) for path, data in sessions),
                         key=lambda s: (-max((r.mtime_ns for r in s.runs), default=0), s.name))
        return CatalogUpdate(self.root, exists, runs, tuple(ordered), tuple(added), tuple(changed), tuple(removed))

    def recheck_due(self, now_mono: float | None = None) -> bool:
        """True when some entry still in progress has been quiet long enough to be judged."""
        now_mono = time.monotonic() if now_mono is None else now_mono
        now_wall = time.time_ns()
        return any(not e.settled and self._quiet(e, now_mono, now_wall) for e in self._entries.values())

    # ---- walking -------------------------------------------------------------------------
    def _walk(
        self, directory: str, depth: int, session: str,
        out: list[_Candidate], sessions: list[tuple[str, dict[str, Any]]],
    ) -> None:
        entries = _scan(directory)
        files = {e.name: e for e in entries if _is_file(e)}
        dirs = [e for e in entries if _is_dir(e)]
        if MANIFEST_FILE in files or session:
            # Named by where it lives now, as the explorer names it: copies get renamed.
            where = session or os.path.basename(os.path.dirname(os.path.abspath(directory)))
            out.append(_Candidate(directory, discover.RUN, _signature(directory, files), where))
            return
        kind = _directory_kind(directory, files) if depth > 0 else None
        if kind is not None:
            out.append(_Candidate(directory, kind, _tree_signature(directory)))
            return
        if SESSION_FILE in files:
            name = os.path.basename(directory)
            sessions.append((directory, _read_json(os.path.join(directory, SESSION_FILE)) or {}))
            for sub in dirs:
                self._walk(sub.path, depth + 1, name, out, sessions)
            return
        for name, entry in files.items():
            st = _stat(entry)
            if st is not None and name.endswith(TRACE_SUFFIXES) and name not in NOT_TRACES:
                out.append(_Candidate(entry.path, discover.KINETO, (1, st.st_size, st.st_mtime_ns)))
        if depth < MAX_DEPTH:
            for sub in dirs:
                self._walk(sub.path, depth + 1, "", out, sessions)

    def _session(self, path: str, data: dict[str, Any], runs: tuple[Run, ...]) -> Session:
        name = os.path.basename(path)
        return Session(
            name=name, path=path, backend=str(data.get("backend") or ""),
            started=str(data.get("started") or ""), finished=data.get("finished"),
            runs=tuple(r for r in runs if r.session == name and os.path.dirname(r.path) == path),
        )

    # ---- judging -------------------------------------------------------------------------
    def _quiet(self, entry: _Entry, now_mono: float, now_wall_ns: int) -> bool:
        """Unchanged for settle_s by our own observation and by its mtime."""
        settle_ns = int(self.settle_s * 1e9)
        return now_mono - entry.first_seen >= self.settle_s and now_wall_ns - entry.sig[2] >= settle_ns

    def _evaluate(self, key: str, cand: _Candidate, first_seen: float, now_mono: float, now_wall: int) -> _Entry:
        base = Run(key=key, path=cand.path, kind=cand.kind, status="in_progress",
                   mtime_ns=cand.sig[2], size=cand.sig[1], session=cand.session)
        probe = _Entry(cand.sig, first_seen, base, settled=False)
        quiet = self._quiet(probe, now_mono, now_wall)
        if cand.kind == discover.RUN:
            # Settled either way: the manifest's arrival changes the signature, which forces a re-read.
            return _Entry(cand.sig, first_seen, _judge_neurontui(base), settled=True)
        if not quiet and not _worth_parsing_young(cand):
            return _Entry(cand.sig, first_seen, replace(base, reason="being written"), settled=False)
        try:
            kind, synthetic = self._validate(cand)
        except Exception as exc:  # a reader's bug must not stop the watcher: it becomes the reason
            if not quiet:
                return _Entry(cand.sig, first_seen, replace(base, reason="being written"), settled=False)
            return _Entry(cand.sig, first_seen, replace(base, status="unreadable", reason=_reason(exc)), True)
        return _Entry(cand.sig, first_seen, replace(base, status="complete", kind=kind, synthetic=synthetic), settled=True)

    def _validate(self, cand: _Candidate) -> tuple[RunKind, bool]:
        """Raise when the entry cannot be opened, else return its kind as the reader saw it and
        whether its data marks itself synthetic (the marker is data, never guessed from a name).

        Kineto files get a full parse; export tables a Parquet footer check; a TorchNeuron capture
        directory is judged by its framework trace alone, since its raw files stay opaque until
        neuron-explorer decodes them when the run is opened.
        """
        if cand.kind == discover.EXPORT:
            for name in sorted(os.listdir(cand.path)):
                if name.endswith(EXPORT_SUFFIX):
                    _check_parquet(os.path.join(cand.path, name))
            return cand.kind, False
        if cand.kind == discover.KINETO:
            meta = self._load(cand.path).meta
            return str(meta.get("capture_kind") or cand.kind), bool(meta.get("synthetic"))
        synthetic = [bool(self._load(path).meta.get("synthetic")) for path in _framework_traces(cand.path)]
        return cand.kind, any(synthetic)

    def _load(self, path: str) -> Trace:
        """A single trace file through the project's reader (legacy Explorer JSON included)."""
        return self._loader(path) if self._loader is not None else discover.load_capture(path)


def _reason(exc: Exception) -> str:
    """One line saying why a load failed, without the path the list already shows."""
    if isinstance(exc, TraceError):
        return exc.problem
    text = str(exc).splitlines()[0][:160] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _judge_neurontui(base: Run) -> Run:
    """A neurontui run is complete only when its manifest says so; no manifest yet means in progress."""
    manifest_path = os.path.join(base.path, MANIFEST_FILE)
    if not os.path.exists(manifest_path):
        return replace(base, reason="capturing (no manifest yet)")
    manifest = _read_json(manifest_path)
    if not isinstance(manifest, dict):
        return replace(base, status="unreadable", reason="manifest.json is not a JSON object")
    status = manifest.get("status")
    run = replace(
        base,
        implementation=str(manifest.get("implementation") or manifest.get("name") or ""),
        backend=str(manifest.get("backend") or ""),
        synthetic=bool(manifest.get("synthetic")),
    )
    if status not in MANIFEST_STATUSES:
        return replace(run, status="unreadable", reason=f"manifest.json has an unknown status {status!r}")
    if status == "complete":
        return replace(run, status="complete")
    tail = manifest.get("error_tail") or []
    reason = manifest.get("error") or (tail[-1] if tail else "") or status
    return replace(run, status=status, reason=str(reason).splitlines()[0][:200] if str(reason) else status)


def _worth_parsing_young(cand: _Candidate) -> bool:
    """A still-changing file is parsed only if it could already be whole: cheap tail check, size cap."""
    if cand.kind != discover.KINETO:
        return False
    try:
        with open(cand.path, "rb") as fh:
            head = fh.read(2)
            if head == b"\x1f\x8b":
                return cand.sig[1] <= YOUNG_PARSE_LIMIT
            fh.seek(max(0, cand.sig[1] - 64))
            tail = fh.read().rstrip()
    except OSError:
        return False
    return tail.endswith((b"}", b"]"))


def _scan(directory: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as it:
            return [e for e in it if not is_temporary_name(e.name)]
    except OSError:
        return []


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _directory_kind(directory: str, files: dict[str, os.DirEntry[str]]) -> RunKind | None:
    names = list(files)
    if any(n.endswith(discover.RAW_SUFFIXES) for n in names):
        return discover.TORCHNEURON
    if any(n.endswith(EXPORT_SUFFIX) for n in names) and is_explorer_export(directory):
        return discover.EXPORT
    return None


def _framework_traces(directory: str) -> list[str]:
    """The Kineto traces a TorchNeuron capture directory holds (trace.json, neuron_framework_trace_rank_N.json)."""
    return sorted(
        os.path.join(directory, n) for n in os.listdir(directory)
        if n.endswith(TRACE_SUFFIXES) and not is_temporary_name(n)
    )


def _check_parquet(path: str) -> None:
    """Reading the footer catches a truncated or foreign table without loading its rows."""
    try:
        pq.read_metadata(path)
    except (OSError, pa.ArrowException) as exc:
        problem = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
        raise TraceError(path, f"is not a readable Parquet table ({problem})") from None


def _signature(directory: str, files: dict[str, os.DirEntry[str]]) -> Signature:
    """A manifest-bearing run changes only through its manifest; one without is judged by its contents."""
    st = _stat(files[MANIFEST_FILE]) if MANIFEST_FILE in files else None
    return (1, st.st_size, st.st_mtime_ns) if st is not None else _tree_signature(directory)


def _stat(entry: os.DirEntry[str]) -> os.stat_result | None:
    try:
        return entry.stat()
    except OSError:
        return None


def _tree_signature(directory: str) -> Signature:
    count = size = 0
    newest = _mtime_ns(directory)
    for root, dirs, names in os.walk(directory):
        dirs[:] = [d for d in dirs if not is_temporary_name(d)]
        for name in names:
            try:
                st = os.stat(os.path.join(root, name))
            except OSError:
                continue
            count += 1
            size += st.st_size
            newest = max(newest, st.st_mtime_ns)
    return (count, size, newest)


def _mtime_ns(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def _read_json(path: str) -> Any:
    try:
        with open(path, "rb") as fh:
            return json.loads(fh.read())
    except (OSError, ValueError):
        return None
