"""The explorer on Neuron-shaped data: overlapping hardware events all drawn, links from op to engine followed."""

from __future__ import annotations

import numpy as np
import pytest

from neurontui.model.builder import TraceBuilder
from neurontui.model.lanes import Lane
from neurontui.model.trace import Trace
from neurontui.tui.app import NeuronTUI
from tui_helpers import NEURON_SAMPLE, timeline_text, wait_loaded

T0 = 1_767_189_312_000_000_000


def neuron_shaped_trace() -> Trace:
    """An op launching an nrt_execute that runs on NC0 with four overlapping DMA transfers on one queue."""
    b = TraceBuilder(path="neuron-shaped", source="synthetic")
    fw = b.track(Lane.FRAMEWORK, "fw", "MainThread")
    rt = b.track(Lane.RUNTIME, "rt", "NC0")
    hw = b.track(Lane.HARDWARE, "exec", "NC0 exec", sort=(0,))
    dma = b.track(Lane.HARDWARE, "dma", "NC0 DMA q0", sort=(1,))
    cat = b.category("neuron")
    names = [b.names.intern(n) for n in ("aten::rms_norm", "nrt_execute", "nc_exec_running", "dmaA", "dmaB", "dmaC", "dmaD")]
    us = 1_000
    b.add_events([T0], [T0 + 400 * us], fw, names[0], cat)
    b.add_events([T0 + 20 * us], [T0 + 380 * us], rt, names[1], cat)
    b.add_events([T0 + 50 * us, T0 + 250 * us], [T0 + 150 * us, T0 + 350 * us], hw, names[2], cat)
    starts = T0 + np.array([60, 70, 80, 90]) * us
    b.add_events(starts, starts + 60 * us, dma, np.array(names[3:]), cat)
    b.add_links([0], [1])
    b.add_links([1, 1], [2, 3])
    return b.build()


async def test_every_overlapping_hardware_event_is_drawn():
    trace = neuron_shaped_trace()
    dma = next(t for t in trace.tracks if t.key == "dma")
    assert dma.n_rows == 4  # four overlapping transfers need four rows
    app = NeuronTUI()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        explorer = app.explorer
        explorer.open_trace(trace)
        explorer.jump_to(T0 + 55_000, T0 + 155_000)
        await pilot.pause()
        lines = timeline_text(app)
        drawn = [name for name in ("dmaA", "dmaB", "dmaC", "dmaD") if sum(name in line for line in lines) == 1]
        assert drawn == ["dmaA", "dmaB", "dmaC", "dmaD"]
        await pilot.press("0")  # zoomed out they stay visible as occupied cells on four rows
        rows = [line for line in timeline_text(app) if line.startswith((" NC0 DMA", "  ·"))]
        assert len(rows) == 4 and all(line[12:].strip() for line in rows)


async def test_gaps_of_the_neuron_shaped_trace_are_found_framed_and_drawn():
    app = NeuronTUI()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.explorer.open_trace(neuron_shaped_trace())
        await pilot.press("g")
        state = app.explorer.state
        gap = state.interior_gaps[state.selected_gap]
        assert (gap.start, gap.end) == (T0 + 150_000, T0 + 250_000)
        assert any("100µs" in line for line in timeline_text(app))
        await pilot.press("0")
        header = next(line for line in timeline_text(app) if line.startswith("▾ hardware"))
        cells = header[12:]
        assert cells.startswith("·") and cells.rstrip().endswith("·")  # leading and trailing idle, drawn dimmer


@pytest.mark.skipif(not NEURON_SAMPLE.exists(), reason="the synthetic Neuron sample is not in this checkout")
async def test_synthetic_neuron_capture_follows_op_to_hardware():
    app = NeuronTUI(str(NEURON_SAMPLE))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(app, pilot)
        state = app.explorer.state
        assert state.index.execution_lane == Lane.HARDWARE
        assert str(app.explorer.query_one("#status").render()).startswith("SYNTHETIC")
        trace = state.trace
        lanes = {int(s): trace.event(int(d)).lane for s, d in zip(trace.links.src, trace.links.dst)}
        start = next(s for s, lane in lanes.items() if trace.event(s).lane in (Lane.FRAMEWORK, Lane.DEVICE, Lane.RUNTIME))
        app.explorer.select_event(start)
        before = trace.event(start).lane
        await pilot.press("right_square_bracket")
        after = trace.event(state.selected_event).lane
        assert after > before  # downstream goes towards the silicon
        await pilot.press("left_square_bracket")
        assert trace.event(state.selected_event).lane < after
        await pilot.press("n")
        assert state.focus == "gap" and state.selected_gap == 0
