"""One entry point for every reader: a trace file or a capture directory -> Trace."""

from __future__ import annotations

import os

from neurontui.formats.kineto import load_kineto
from neurontui.model.errors import TraceError
from neurontui.model.trace import Trace

KINETO_SUFFIXES = (".json", ".json.gz")


def load_trace(path: str | os.PathLike[str]) -> Trace:
    """Load whatever `path` holds: a Kineto file, or a directory with one capture in it."""
    p = os.fspath(path)
    if os.path.isdir(p):
        return _load_directory(p)
    if not os.path.exists(p):
        raise TraceError(p, "no such file or directory")
    return load_kineto(p)


def _load_directory(path: str) -> Trace:
    try:
        from neurontui.formats import discover
    except ImportError:  # pragma: no cover - discover ships with the package
        discover = None
    if discover is not None and hasattr(discover, "load_capture"):
        return discover.load_capture(path)
    newest = _newest_trace_file(path)
    if newest is None:
        raise TraceError(path, "holds no trace file (*.json or *.json.gz)")
    return load_kineto(newest)


def _newest_trace_file(directory: str) -> str | None:
    best: tuple[float, str] | None = None
    for root, _dirs, files in os.walk(directory):
        for name in files:
            if name.endswith(KINETO_SUFFIXES) and name != "manifest.json" and name != "session.json":
                full = os.path.join(root, name)
                mtime = os.path.getmtime(full)
                if best is None or mtime > best[0]:
                    best = (mtime, full)
    return None if best is None else best[1]
