"""The capture screen (c) driven with real keys: a real CPU capture that ends in the explorer, cancel, validation."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import Checkbox, Input, Log, ProgressBar, Static

from neurontui.capture.launcher import MANIFEST_FILE, ProgressEvent
from neurontui.capture.spec import CaptureSpec, Schedule
from neurontui.cli import build_parser
from neurontui.tui.app import NeuronTUI
from neurontui.tui.screens.capture import CaptureScreen
from neurontui.tui.widgets.capture_form import DEFAULT_IMPLS, DEFAULTS, read_form
from neurontui.tui.widgets.capture_progress import RunProgress

SIZE = (160, 50)
CAPTURE_TIMEOUT = 120.0  # a real child imports torch and profiles; generous for a busy 2-core machine
SLOW_IMPL = '''
import time
import torch

def slow(x, weight, eps):
    time.sleep(0.2)
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight
'''


async def wait_for(pilot, condition: Callable[[], bool], timeout: float = 30.0) -> None:
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < timeout, "condition not met in time"
        await pilot.pause(0.05)


async def open_capture(app: NeuronTUI, pilot) -> CaptureScreen:
    """Press c and wait until the checklist says which implementations run here."""
    await pilot.press("c")
    await wait_for(pilot, lambda: isinstance(app.screen, CaptureScreen) and len(app.screen.query(Checkbox)) == 4)
    await pilot.pause()
    assert isinstance(app.screen, CaptureScreen)
    return app.screen


async def tab_to(app: NeuronTUI, pilot, widget_id: str) -> None:
    for _ in range(40):
        if app.focused is not None and app.focused.id == widget_id:
            return
        await pilot.press("tab")
    raise AssertionError(f"tab never reached #{widget_id}")


async def type_into(app: NeuronTUI, pilot, widget_id: str, text: str) -> None:
    """Tab to a field, clear it (home, ctrl+k) and type."""
    await tab_to(app, pilot, widget_id)
    await pilot.press("home", "ctrl+k", *text)
    assert app.screen.query_one(f"#{widget_id}", Input).value == text


async def untick(app: NeuronTUI, pilot, name: str) -> None:
    await tab_to(app, pilot, f"impl-{name}")
    await pilot.press("space")
    assert app.screen.query_one(f"#impl-{name}", Checkbox).value is False


async def press_start(app: NeuronTUI, pilot) -> None:
    await tab_to(app, pilot, "start")
    await pilot.press("enter")


def error_text(screen: CaptureScreen, field: str) -> str:
    widget = screen.query_one(f"#{field}-error", Static)
    return str(widget.render()) if widget.display else ""


def one_sentence(text: str) -> bool:
    return text.endswith(".") and ". " not in text and "Traceback" not in text


def test_form_defaults_are_the_cli_defaults(tmp_path: Path):
    args = build_parser().parse_args(["capture"])
    request, errors = read_form({**DEFAULTS, "out": str(tmp_path)}, DEFAULT_IMPLS, {"cpu": ""})
    assert errors == {} and request is not None
    assert request.impls == tuple(args.impl.split(","))
    assert request.backend == args.backend and request.timeout_s == args.timeout
    assert request.spec == CaptureSpec(
        shape=tuple(int(d) for d in args.shape.split("x")), dtype=args.dtype, eps=args.eps,
        schedule=Schedule(args.wait, args.warmup, args.active, args.repeat),
    )


async def test_a_cpu_capture_shows_progress_and_opens_in_the_explorer(tmp_path: Path):
    out = tmp_path / "runs"
    app = NeuronTUI(out_dir=str(out))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_capture(app, pilot)
        kernel = screen.query_one("#impl-kernel", Checkbox)
        assert kernel.disabled and "unavailable: NKI kernels run on Neuron devices" in str(kernel.label)
        await untick(app, pilot, "compiled")
        await type_into(app, pilot, "shape", "4x64")
        await type_into(app, pilot, "wait", "0")
        await type_into(app, pilot, "warmup", "1")
        await type_into(app, pilot, "active", "3")
        await press_start(app, pilot)
        await wait_for(pilot, lambda: any(p.phase != "queued" for p in screen.panels.values()), CAPTURE_TIMEOUT)
        assert screen.running and screen.query_one("#cancel").has_focus
        await wait_for(pilot, lambda: app.screen is app.explorer, CAPTURE_TIMEOUT)
        assert [p.impl for p in screen.panels.values()] == ["naive", "fused"]
        for panel in screen.panels.values():
            assert panel.status == "complete" and panel.correct is True
            assert panel.query_one(ProgressBar).progress == 4
            lines = list(panel.query_one(Log).lines)
            assert "warmup 1/4" in lines and "active 4/4" in lines and lines[-1] == "complete"
        session = screen.session.path
        assert session.parent == out
        await wait_for(pilot, lambda: app.explorer.state is not None, CAPTURE_TIMEOUT)
        loaded = Path(app.explorer.state.trace.path).resolve()
        assert loaded.is_relative_to((session / "naive").resolve())  # the first complete run in the user's order


async def test_escape_cancels_a_running_capture(tmp_path: Path):
    out = tmp_path / "runs"
    slow = tmp_path / "slowimpl.py"
    slow.write_text(SLOW_IMPL)
    app = NeuronTUI(out_dir=str(out))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_capture(app, pilot)
        for name in ("naive", "fused", "compiled"):
            await untick(app, pilot, name)
        await type_into(app, pilot, "function", f"{slow}:slow")
        await type_into(app, pilot, "shape", "4x64")
        await type_into(app, pilot, "wait", "0")
        await type_into(app, pilot, "warmup", "1")
        await type_into(app, pilot, "active", "100")
        await press_start(app, pilot)
        await wait_for(pilot, lambda: bool(screen.panels), CAPTURE_TIMEOUT)
        assert list(screen.panels) == [f"{slow}:slow"]
        slow_panel = screen.panels[f"{slow}:slow"]
        await wait_for(pilot, lambda: slow_panel.phase == "active", CAPTURE_TIMEOUT)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.running, CAPTURE_TIMEOUT)
        assert app.screen is screen  # nothing completed, so nothing to open
        assert slow_panel.status == "cancelled"
        assert "cancelled" in str(slow_panel.title())
        manifest = json.loads((Path(slow_panel.run_dir) / MANIFEST_FILE).read_text())
        assert manifest["status"] == "cancelled" and manifest["error"] == "cancelled by the user"
        assert slow_panel.pid is not None
        with pytest.raises(ProcessLookupError):
            os.kill(slow_panel.pid, 0)
        await pilot.press("escape")  # no capture runs now: escape leaves
        assert app.screen is app.explorer


async def test_bad_fields_show_one_sentence_and_start_nothing(tmp_path: Path):
    out = tmp_path / "runs"
    app = NeuronTUI(out_dir=str(out))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_capture(app, pilot)
        await type_into(app, pilot, "function", "missing_impl.py:rmsnorm")  # checked once every field is right
        await type_into(app, pilot, "shape", "8x")
        await pilot.press("enter")  # enter in a field starts, like enter on Start
        assert error_text(screen, "shape") == "shape '8x' is not like 8x4096."
        await type_into(app, pilot, "shape", "4x64")
        await type_into(app, pilot, "active", "0")
        await pilot.press("enter")
        assert error_text(screen, "shape") == ""
        assert one_sentence(error_text(screen, "active")) and "active >= 1" in error_text(screen, "active")
        assert app.focused is screen.query_one("#active")  # the first bad field takes focus
        await pilot.press("backspace", "1", "enter")
        await wait_for(pilot, lambda: bool(error_text(screen, "function")))
        assert error_text(screen, "function") == "implementation file 'missing_impl.py' does not exist."
        assert error_text(screen, "active") == ""
        assert app.focused is screen.query_one("#function")
        assert not screen.running and screen.session is None and not screen.panels
        assert not out.exists()


class ProgressHost(App[None]):
    def compose(self):
        yield RunProgress("wrong", "/runs/s/wrong", 4)


async def test_a_wrong_result_is_flagged_in_red_on_its_progress_panel():
    app = ProgressHost()
    async with app.run_test() as pilot:
        panel = app.query_one(RunProgress)
        panel.advance(ProgressEvent("wrong", panel.run_dir, "active", 2, 4, pid=123))
        await pilot.pause()
        assert panel.query_one(ProgressBar).progress == 2 and panel.title().plain == "wrong  active"
        panel.finish(ProgressEvent("wrong", panel.run_dir, "finished", status="complete"), False, [])
        await pilot.pause()
        title = panel.title()
        assert title.plain == "wrong  complete  WRONG RESULT"
        assert any(title.plain[s.start:s.end].strip() == "WRONG RESULT" and "red" in str(s.style) for s in title.spans)
        assert list(panel.query_one(Log).lines)[-1].startswith("WRONG RESULT")


async def test_ticked_and_unticked_read_apart_without_colour(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = NeuronTUI(out_dir=str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_capture(app, pilot)

        def mark(name: str) -> str:
            return str(screen.query_one(f"#impl-{name}", Checkbox).render())[:3]

        assert (mark("naive"), mark("kernel")) == ("▐X▌", "▐ ▌")
        await untick(app, pilot, "naive")
        assert mark("naive") == "▐ ▌"
