"""Shared helpers of the TUI tests: open a trace in the app and read what the timeline shows."""

from __future__ import annotations

from pathlib import Path

from neurontui.tui.app import NeuronTUI
from neurontui.tui.widgets.timeline import Timeline

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
NEURON_SAMPLE = ROOT / "sample_traces" / "trn1-rmsnorm-synthetic" / "naive"


async def wait_loaded(app: NeuronTUI, pilot) -> None:
    """Wait for the loading worker and the message that hands its trace to the explorer."""
    await app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


def timeline_text(app: NeuronTUI) -> list[str]:
    """The timeline's visible lines as plain text, exactly as painted."""
    timeline = app.explorer.query_one(Timeline)
    height = timeline.scrollable_content_region.height
    return ["".join(seg.text for seg in timeline.render_line(y)) for y in range(height)]
