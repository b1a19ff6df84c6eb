"""The painter's occupancy maths against brute force, and the colour modes (NO_COLOR, plain)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neurontui.tui.app import NeuronTUI
from neurontui.tui.paint import cell_edges, occupancy
from neurontui.tui.palette import make_palette
from tui_helpers import DATA, wait_loaded


@st.composite
def rows_and_windows(draw):
    """Non-overlapping intervals (some instants) in start order, and a window with a cell count."""
    n = draw(st.integers(0, 40))
    gaps = draw(st.lists(st.integers(0, 50), min_size=n, max_size=n))
    lengths = draw(st.lists(st.integers(1, 50), min_size=n, max_size=n))
    starts, ends, t = [], [], 0
    for gap, length in zip(gaps, lengths):
        t += gap
        starts.append(t)
        ends.append(t + length)
        t += length
    t0 = draw(st.integers(-20, max(t, 1)))
    t1 = t0 + draw(st.integers(1, 2 * max(t, 10)))
    cells = draw(st.integers(1, 60))
    return np.array(starts, np.int64), np.array(ends, np.int64), t0, t1, cells


@settings(max_examples=200, deadline=None)
@given(rows_and_windows())
def test_occupancy_counts_every_event_touching_each_cell(case):
    starts, ends, t0, t1, cells = case
    edges = cell_edges(t0, t1, cells)
    first, count = occupancy(starts, ends, edges)
    for k in range(cells):
        touching = np.flatnonzero((starts < edges[k + 1]) & (ends > edges[k]))
        assert count[k] == len(touching)
        if len(touching):
            assert first[k] == touching[0]


def test_palette_colour_is_stable_per_name_and_mono_has_no_colour():
    rich = make_palette("rich")
    assert rich.event(3, "aten::mm") == make_palette("rich").event(7, "aten::mm")
    mono = make_palette("mono").event(3, "aten::mm")
    assert mono.color is None and mono.bgcolor is None and mono.reverse
    plain = make_palette("plain").event(3, "aten::mm")
    assert plain.bgcolor.name in {"blue", "green", "magenta", "cyan", "yellow", "red", "bright_blue", "bright_green"}


async def test_no_color_environment_draws_boxes_in_reverse_video(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = NeuronTUI(str(DATA / "cuda_alexnet.json.gz"))
    assert app.palette_kind == "mono"
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(app, pilot)
        await pilot.press("full_stop", "full_stop", "f")
        timeline = app.explorer.query_one("#timeline")
        styles = [seg.style for y in range(timeline.size.height) for seg in timeline.render_line(y) if seg.style]
        assert any(style.reverse for style in styles)


async def test_plain_flag_switches_to_the_ansi_theme():
    app = NeuronTUI(str(DATA / "cpu_only_rank34.json.gz"), plain=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(app, pilot)
        assert app.theme == "ansi-dark" and app.explorer.query_one("#timeline").palette.kind == "plain"
