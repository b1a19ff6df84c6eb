"""Pilot tests: every explorer key pressed for real on real traces, asserting the state it leaves."""

from __future__ import annotations

import numpy as np
import pytest

from textual import events
from textual.screen import Screen

from neurontui.analysis.gaps import NO_DEVICE_WORK
from neurontui.model.lanes import Lane
from neurontui.tui import viewport as vp
from neurontui.tui.app import NeuronTUI
from neurontui.tui.screens.help import HelpScreen
from neurontui.tui.widgets.search import SearchBar
from neurontui.tui.widgets.timeline import Timeline
from tui_helpers import DATA, timeline_text, wait_loaded

SAMPLED = str(DATA / "cuda_sampled_rank0.json.gz")
ALEXNET = str(DATA / "cuda_alexnet.json.gz")


async def test_zoom_and_pan_keys_move_the_viewport():
    app = NeuronTUI(SAMPLED)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(app, pilot)
        state = app.explorer.state
        whole = state.view
        assert whole == vp.fit(state.trace.window)
        for key in ("w", "plus"):
            span = state.view.span
            await pilot.press(key)
            assert state.view.span == span // 2
        for key in ("d", "right"):
            t0, span = state.view.t0, state.view.span
            await pilot.press(key)
            assert state.view.t0 == t0 + span // 4 and state.view.span == span
        for key in ("a", "left"):
            t0, span = state.view.t0, state.view.span
            await pilot.press(key)
            assert state.view.t0 == t0 - span // 4
        for key in ("s", "minus"):
            span = state.view.span
            await pilot.press(key)
            assert state.view.span == min(span * 2, whole.span)
        await pilot.press("w", "w", "0")
        assert state.view == whole


async def test_track_lane_and_collapse_keys_move_the_cursor():
    app = NeuronTUI(SAMPLED)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(app, pilot)
        state = app.explorer.state
        start = state.cursor
        assert start.lane == Lane.HARDWARE  # the execution lane is where the cursor starts
        stops = state.layout.stops
        i = stops.index(start)
        await pilot.press("down")
        assert state.cursor == stops[i + 1]
        await pilot.press("j")
        assert state.cursor == stops[i + 2]
        await pilot.press("k", "up")
        assert state.cursor == start
        await pilot.press("tab")
        assert state.cursor.lane == Lane.OTHER
        await pilot.press("shift+tab", "shift+tab")
        assert state.cursor.lane == Lane.DEVICE
        lines = len(state.layout.lines)
        await pilot.press("space")
        assert Lane.DEVICE in state.collapsed and len(state.layout.lines) < lines
        assert state.cursor.track is None
        await pilot.press("space")
        assert Lane.DEVICE not in state.collapsed and len(state.layout.lines) == lines


async def test_event_keys_walk_the_track_in_time_order():
    app = NeuronTUI(SAMPLED)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(app, pilot)
        state = app.explorer.state
        track = state.cursor.track
        ev = state.trace.events
        await pilot.press("full_stop")
        first = state.selected_event
        assert first is not None and ev.track[first] == track
        assert ev.start[first] == ev.start[ev.track == track].min()
        await pilot.press("full_stop", "full_stop")
        third = state.selected_event
        assert ev.start[third] >= ev.start[first] and third != first
        await pilot.press("comma", "comma")
        assert state.selected_event == first
        assert state.view.contains(int(ev.start[first]))
        await pilot.press("f")
        assert state.view == vp.frame(int(ev.start[first]), int(ev.end[first]), state.window)
        assert "start +" in str(app.explorer.query_one("#detail-text").render())


async def test_gap_keys_select_and_frame_gaps():
    app = NeuronTUI(SAMPLED)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(app, pilot)
        state = app.explorer.state
        gaps = state.interior_gaps
        assert len(gaps) > 3
        await pilot.press("n")
        assert state.selected_gap == 0 and state.focus == "gap"
        await pilot.press("n", "n", "N")
        assert state.selected_gap == 1
        gap = gaps[1]
        assert state.view.t0 <= gap.start and gap.end <= state.view.t1
        await pilot.press("g")
        largest = int(np.argmax([g.duration for g in gaps]))
        assert state.selected_gap == largest
        lines = timeline_text(app)
        from neurontui.tui.timefmt import duration

        assert any(duration(gaps[largest].duration) in line for line in lines)  # its length is drawn in the lane header


async def test_search_steps_through_matches_with_enter_and_shift_enter():
    app = NeuronTUI(SAMPLED)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(app, pilot)
        state = app.explorer.state
        expected = state.trace.find_names("Memcpy")
        assert len(expected) >= 3
        await pilot.press("slash", *"Memcpy", "enter")
        assert state.selected_event == expected[0]
        await pilot.press("enter", "enter")
        assert state.selected_event == expected[2]
        await pilot.press("shift+enter")
        assert state.selected_event == expected[1]
        await pilot.press("up")
        assert state.selected_event == expected[0]
        assert "Memcpy" in state.trace.event(state.selected_event).name
        await pilot.press("escape")
        assert app.focused is app.explorer.query_one(Timeline)
        await pilot.press("w")  # keys work on the timeline again once the search bar is closed
        assert state.view.span < vp.fit(state.window).span


async def test_keys_typed_straight_after_slash_go_into_the_search_not_to_the_explorer():
    """All keys queued before the app handles `/`, as when a fast typist's keys arrive in one SSH packet.

    Before the fix the letters ran as commands: "c" of "Memcpy" opened the capture screen, "q" would quit.
    """
    app = NeuronTUI(SAMPLED)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(app, pilot)
        state = app.explorer.state
        span = state.view.span
        for key, character in [("slash", "/"), *((c, c) for c in "Memcpy/"), ("escape", None), ("w", "w")]:
            app.post_message(events.Key(key, character))
        await pilot.pause()
        assert app.screen is app.explorer
        assert app.explorer.query_one(SearchBar).value == "Memcpy/"  # a second "/" is a character to search for
        assert app.focused is app.explorer.query_one(Timeline)  # escape handed focus back before "w" arrived
        assert state.view.span == span // 2


async def test_follow_links_downstream_and_back_upstream():
    app = NeuronTUI(ALEXNET)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(app, pilot)
        explorer = app.explorer
        trace = explorer.state.trace
        op = next(i for i in np.unique(trace.links.src).tolist() if _reaches_hardware(trace, i))
        explorer.select_event(op)
        await pilot.press("right_square_bracket")
        launch = explorer.state.selected_event
        assert launch in trace.links.downstream(op).tolist()
        assert trace.event(launch).lane == Lane.DEVICE
        await pilot.press("right_square_bracket")
        kernel = explorer.state.selected_event
        assert trace.event(kernel).lane == Lane.HARDWARE
        assert explorer.state.cursor.track == trace.event(kernel).track.id
        await pilot.press("left_square_bracket")
        assert explorer.state.selected_event == launch
        chain = explorer.state.chain()
        assert chain.index(op) < chain.index(launch) < chain.index(kernel)
        await pilot.press(str(chain.index(kernel) + 1))
        assert explorer.state.selected_event == kernel


def _earliest_downstream(trace, i):
    linked = trace.links.downstream(i)
    return int(linked[np.argmin(trace.events.start[linked])]) if len(linked) else None


def _reaches_hardware(trace, i):
    """An op whose first downstream launch itself leads to hardware: op -> launch -> kernel."""
    if trace.event(i).lane != Lane.FRAMEWORK:
        return False
    launch = _earliest_downstream(trace, i)
    if launch is None or trace.event(launch).lane != Lane.DEVICE:
        return False
    kernel = _earliest_downstream(trace, launch)
    return kernel is not None and trace.event(kernel).lane == Lane.HARDWARE


async def test_mark_range_summarises_events_busy_time_and_gaps():
    app = NeuronTUI(SAMPLED)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(app, pilot)
        state = app.explorer.state
        await pilot.press("full_stop")
        first = state.selected_event
        await pilot.press("m", *["full_stop"] * 5, "m")
        last = state.selected_event
        ev = state.trace.events
        t0, t1 = int(ev.start[first]), int(ev.end[last])
        summary = state.marked
        assert (summary.t0, summary.t1) == (t0, t1)
        touching = (ev.start < t1) & (np.maximum(ev.end, ev.start + 1) > t0)
        assert summary.events == int(touching.sum())
        assert 0 < summary.busy_ns <= t1 - t0
        assert summary.top and summary.top[0][1] >= summary.top[-1][1]
        assert "Marked range" in str(app.explorer.query_one("#detail-text").render())
        await pilot.press("m")
        assert state.marked is None


async def test_pin_keeps_a_track_above_the_scrolling_lines():
    app = NeuronTUI(SAMPLED)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(app, pilot)
        state = app.explorer.state
        track = state.cursor.track
        await pilot.press("p")
        assert state.pinned == [track]
        assert timeline_text(app)[0].startswith("▪ " + state.trace.tracks[track].name[:6])
        await pilot.press("p")
        assert state.pinned == []


async def test_help_palette_and_quit():
    app = NeuronTUI(SAMPLED)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(app, pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert app.screen is app.explorer
        span = app.explorer.state.view.span
        await pilot.press("ctrl+p", *"Zoom in")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.explorer.state.view.span == span // 2
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_page_keys_scroll_the_timeline_rows():
    app = NeuronTUI(SAMPLED)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(app, pilot)
        timeline = app.explorer.query_one(Timeline)
        assert timeline.virtual_size.height > timeline.scrollable_content_region.height  # more rows than fit
        page = timeline.scrollable_content_region.height - 1  # one line of the previous page stays in view
        assert timeline.scroll_offset.y == timeline.max_scroll_y  # scrolled to the cursor on the execution lane
        await pilot.press("pageup")
        assert timeline.scroll_offset.y == max(0, timeline.max_scroll_y - page)
        await pilot.press("pageup", "pagedown")
        assert timeline.scroll_offset.y == min(page, timeline.max_scroll_y)


async def test_command_palette_lists_each_command_once():
    app = NeuronTUI(SAMPLED)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(app, pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert len(titles) == len(set(titles)) and "Quit" in titles and "Largest gap" in titles


def test_every_binding_has_an_id_and_a_description():
    from neurontui.tui.screens.explorer import ExplorerScreen

    bindings = [*ExplorerScreen.BINDINGS, *NeuronTUI.BINDINGS, *Timeline.BINDINGS]
    ids = [b.id for b in bindings]
    assert all(ids) and len(ids) == len(set(ids))
    assert all(b.description for b in bindings)


@pytest.mark.parametrize("name", ["cpu_only_rank34.json.gz", "mtia_inference_rank_0.json.gz", "rocm_mi250_minitoy_train.json.gz"])
async def test_other_real_traces_open_and_zoom(name):
    app = NeuronTUI(str(DATA / name))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(app, pilot)
        state = app.explorer.state
        assert state is not None and state.layout.lines
        await pilot.press("w", "n", "full_stop")
        assert any(line.strip() for line in timeline_text(app))


async def test_detail_pane_scrolls_from_the_keyboard_and_e_returns_to_the_explorer():
    app = NeuronTUI(ALEXNET)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(app, pilot)
        explorer = app.explorer
        trace = explorer.state.trace
        kernel = next(i for i in range(len(trace.events)) if trace.event(i).category == "kernel")
        explorer.select_event(kernel)
        await pilot.pause()
        pane = explorer.query_one("#detail")
        assert pane.max_scroll_y > 0  # a kernel's args do not fit at 80×24
        await pilot.press("J")
        assert pane.scroll_offset.y > 0
        await pilot.press("K")
        assert pane.scroll_offset.y == 0
        await app.push_screen(Screen())  # any other screen, as a capture or compare screen would be
        await pilot.press("e")
        assert app.screen is explorer


def test_status_line_names_a_run_by_session_and_run_and_a_loose_file_by_its_name():
    from neurontui.tui.screens.explorer import display_name

    assert display_name(str(DATA.parent.parent / "sample_traces" / "cpu-rmsnorm" / "naive" / "trace.json")) == "cpu-rmsnorm/naive"
    assert display_name(str(DATA.parent.parent / "sample_traces" / "trn1-rmsnorm-synthetic" / "fused")) == "trn1-rmsnorm-synthetic/fused"
    assert display_name(SAMPLED) == "cuda_sampled_rank0.json.gz"


async def test_a_broken_file_under_a_bracketed_path_is_one_notice_shown_as_written(tmp_path):
    odd = tmp_path / "[red]runs"
    odd.mkdir()
    broken = odd / "broken.json"
    broken.write_text('{"traceEvents": [')
    app = NeuronTUI(str(broken))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_loaded(app, pilot)
        for _ in range(40):  # the toast rack is drawn on a later refresh
            if app.screen.query("Toast"):
                break
            await pilot.pause(0.05)
        [toast] = app.screen.query("Toast")
        assert "[red]runs" in str(toast.render())  # the path as written, not a colour tag
        assert app.explorer.state is None and app.is_running


async def test_a_host_only_trace_says_it_has_no_device_gaps_instead_of_counting_zero():
    app = NeuronTUI(str(DATA / "cpu_only_rank34.json.gz"))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(app, pilot)
        text = str(app.explorer.query_one("#detail-text").render())
        assert NO_DEVICE_WORK in text and "gaps on the" not in text
    app = NeuronTUI(SAMPLED)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(app, pilot)
        assert "gaps on the hardware lane" in str(app.explorer.query_one("#detail-text").render())
