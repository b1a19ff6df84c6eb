"""One entry point for every reader: a trace file, table or capture directory -> Trace."""

from __future__ import annotations

import os
from collections.abc import Callable

from neurontui.formats.discover import load_capture
from neurontui.model.trace import Trace


def load_trace(path: str | os.PathLike[str], progress: Callable[[str], None] | None = None) -> Trace:
    """Load whatever `path` names (Kineto file, Neuron capture, Explorer export); TraceError if unreadable."""
    return load_capture(os.fspath(path), progress=progress)
