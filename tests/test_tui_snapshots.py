"""SVG snapshots of the explorer at 80×24 and 160×48 on a real GPU trace and the MTIA trace."""

from __future__ import annotations

import pytest

from neurontui.tui.app import NeuronTUI
from tui_helpers import DATA, wait_loaded

TRACES = {"gpu": "cuda_sampled_rank0.json.gz", "mtia": "mtia_inference_rank_0.json.gz"}


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
@pytest.mark.parametrize("trace", sorted(TRACES))
def test_explorer_snapshot(snap_compare, trace, size):
    app = NeuronTUI(str(DATA / TRACES[trace]))

    async def opened_zoomed_on_the_largest_gap(pilot):
        await wait_loaded(app, pilot)
        await pilot.press("g")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=opened_zoomed_on_the_largest_gap)


def test_explorer_snapshot_with_selected_event_plain_theme(snap_compare):
    app = NeuronTUI(str(DATA / "cuda_alexnet.json.gz"), plain=True)

    async def selected(pilot):
        await wait_loaded(app, pilot)
        await pilot.press("full_stop", "f")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=selected)
