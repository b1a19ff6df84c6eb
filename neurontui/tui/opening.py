"""What opening a path means in the app: a file as it is, a directory by its newest capture."""

from __future__ import annotations

import os

from neurontui.formats.discover import Capture, find_captures, load_capture
from neurontui.formats.load import load_trace
from neurontui.model.errors import TraceError
from neurontui.model.trace import Trace


def load_for_explorer(path: str) -> Trace:
    """Load a trace file, or the most recently written capture under a directory."""
    if not os.path.isdir(path):
        return load_trace(path)
    captures = find_captures(path)
    if not captures:
        raise TraceError(path, "holds no trace, Neuron capture or Neuron Explorer export")
    return load_capture(max(captures, key=_written))


def _written(capture: Capture) -> float:
    target = capture.kineto or capture.path
    try:
        return os.stat(target).st_mtime
    except OSError:
        return 0.0
