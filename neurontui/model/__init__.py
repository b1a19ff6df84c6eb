"""The trace data model: columnar events on int64 epoch nanoseconds; imports nothing else of neurontui."""

from neurontui.model.builder import TraceBuilder
from neurontui.model.errors import TraceError
from neurontui.model.lanes import LANES, Lane
from neurontui.model.strings import StringTable
from neurontui.model.trace import BUSY, INSTANT, Events, EventView, Links, Row, Trace, Track

__all__ = [
    "BUSY",
    "INSTANT",
    "LANES",
    "EventView",
    "Events",
    "Lane",
    "Links",
    "Row",
    "StringTable",
    "Trace",
    "TraceBuilder",
    "TraceError",
    "Track",
]
