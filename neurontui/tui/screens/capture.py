"""The capture screen (c): pick implementations and settings, watch each run's progress, then explore the result.

Threads: `_check` (which backends and implementations run here; it imports torch, so never on the UI thread)
and `_capture` (plans and drives a CaptureSession) only post the messages below; the handlers own every
piece of state, including the session that `cancel()` is called on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Footer, Input, Label, Select, Static

from neurontui.capture.launcher import MANIFEST_FILE, CaptureSession, ImplementationError, ProgressEvent, plan_capture
from neurontui.capture.probe import ImplInfo, ProbeResult, probe
from neurontui.capture.spec import DTYPES
from neurontui.errors import UserError
from neurontui.tui.widgets.capture_form import BACKEND_CHOICES, DEFAULT_IMPLS, DEFAULTS, CaptureRequest, read_form
from neurontui.tui.widgets.capture_progress import RunProgress
from neurontui.tui.widgets.tickbox import TickBox

if TYPE_CHECKING:
    from neurontui.tui.app import NeuronTUI

HINT = ("tab moves between fields, space ticks, enter (in a field or on Start) begins; "
        "escape cancels a running capture, otherwise goes back.")
TEXT_FIELDS = (("function", "User function"), ("shape", "Shape"), ("eps", "eps"), ("wait", "wait"),
               ("warmup", "warmup"), ("active", "active"), ("repeat", "repeat"), ("out", "Output dir"),
               ("timeout", "Timeout (s)"))
PLACEHOLDERS = {"function": "module:function or path/to/file.py:function (optional)",
                "timeout": "none: seconds per implementation"}


class Availability(Message):
    """What runs here: a reason per backend ("" = usable) and the built-ins on `backend`, or why none."""

    def __init__(self, backend: str, checked: ProbeResult | None, failure: str = "") -> None:
        super().__init__()
        self.backend, self.checked, self.failure = backend, checked, failure

    @property
    def reasons(self) -> dict[str, str]:
        return self.checked.reasons if self.checked is not None else {}

    @property
    def impls(self) -> tuple[ImplInfo, ...]:
        return self.checked.builtins if self.checked is not None else ()

    @property
    def error(self) -> str:
        """Why nothing can run: the probe child's sentence, or why the probe itself failed."""
        return self.checked.error if self.checked is not None else self.failure


class CaptureRejected(Message):
    """The request failed validation that needs torch (user function, plan); nothing was started."""

    def __init__(self, field: str, sentence: str) -> None:
        super().__init__()
        self.field, self.sentence = field, sentence


class CaptureStarted(Message):
    """The session directory exists; runs are listed in the order they will execute."""

    def __init__(self, session: CaptureSession) -> None:
        super().__init__()
        self.session = session


class CaptureProgress(Message):
    """One progress event of a running implementation."""

    def __init__(self, event: ProgressEvent) -> None:
        super().__init__()
        self.event = event


class RunEnded(Message):
    """An implementation's run finished; correct and error_tail come from its manifest."""

    def __init__(self, event: ProgressEvent, correct: bool | None, error_tail: list[str]) -> None:
        super().__init__()
        self.event, self.correct, self.error_tail = event, correct, error_tail


class CaptureEnded(Message):
    """Every run of the session ended (or the session broke off with `error`)."""

    def __init__(self, session: CaptureSession, error: str = "") -> None:
        super().__init__()
        self.session, self.error = session, error


class CaptureScreen(Screen):
    """A form on the left, one progress panel per implementation on the right."""

    AUTO_FOCUS = ""  # none: the first checkbox takes focus once the checklist exists
    BINDINGS = [
        Binding("escape", "back", "Back (cancels a running capture)", id="capture.back"),
    ]

    DEFAULT_CSS = """
    CaptureScreen #capture-hint { height: auto; padding: 0 1; background: $panel; color: $text-muted; }
    CaptureScreen #capture-left { width: 1fr; max-width: 80; height: 1fr; }
    CaptureScreen #capture-form { height: 1fr; padding: 0 1; }
    CaptureScreen .heading { text-style: bold; margin-top: 1; }
    CaptureScreen .field { height: auto; }
    CaptureScreen .field Label { width: 14; }
    CaptureScreen .field Input, CaptureScreen .field Select { width: 1fr; }
    CaptureScreen .field-error { color: $error; height: auto; display: none; }
    CaptureScreen #impls { height: auto; }
    CaptureScreen #impls Checkbox { width: 1fr; }
    CaptureScreen #impls-note, CaptureScreen #backend-note { color: $text-muted; height: auto; }
    CaptureScreen #capture-buttons { height: auto; padding: 1 1 0 1; }
    CaptureScreen #capture-buttons Button { margin-right: 2; }
    CaptureScreen #start-error { padding: 0 1; }
    CaptureScreen #capture-progress { width: 1fr; height: 1fr; padding: 0 1; border-left: solid $primary-darken-2; }
    CaptureScreen #capture-header { height: auto; margin-bottom: 1; }
    """

    def __init__(self) -> None:
        super().__init__(id="capture")
        self.reasons: dict[str, str] | None = None  # per backend, once the check arrived
        self.checking = ""  # the backend whose check is on its way
        self.probed: dict[str, ProbeResult] = {}  # backend choice -> its check, reused when Start plans
        self.session: CaptureSession | None = None
        self.running = False
        self.cancel_requested = False
        self.panels: dict[str, RunProgress] = {}

    @property
    def tui(self) -> NeuronTUI:
        return cast("NeuronTUI", self.app)

    def compose(self) -> ComposeResult:
        from neurontui.cli import default_out_dir

        yield Static(HINT, id="capture-hint")
        with Horizontal():
            with Vertical(id="capture-left"):
                with VerticalScroll(id="capture-form", can_focus=False):
                    yield Static("Implementations", classes="heading")
                    yield Static("checking which implementations run here…", id="impls-note", markup=False)
                    yield Vertical(id="impls")
                    yield _error("impls")
                    values = {**DEFAULTS, "out": self.tui.out_dir or default_out_dir()}
                    for key, label in TEXT_FIELDS:
                        if key == "eps":
                            yield from _field("dtype", Select([(d, d) for d in DTYPES], value=values["dtype"],
                                                              allow_blank=False, compact=True, id="dtype"))
                        if key == "out":
                            yield from _field("Backend", Select([(b, b) for b in BACKEND_CHOICES],
                                                                value=values["backend"], allow_blank=False,
                                                                compact=True, id="backend"))
                            yield Static("", id="backend-note", markup=False)
                        yield from _field(label, Input(values[key], placeholder=PLACEHOLDERS.get(key, ""),
                                                        compact=True, id=key))
                with Horizontal(id="capture-buttons"):
                    yield Button("Start", variant="primary", id="start")
                    yield Button("Cancel", variant="error", id="cancel", disabled=True)
                yield _error("start")
            with VerticalScroll(id="capture-progress"):
                yield Static("Fill in the form and press Start; each implementation gets a progress bar here.",
                             id="capture-header", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self._request_check(DEFAULTS["backend"])

    def on_unmount(self) -> None:
        if self.session is not None and self.running:
            self.session.cancel()  # the app is closing: stop the child rather than leave it running

    # ---- availability ----------------------------------------------------------------------
    def _request_check(self, backend: str) -> None:
        self.checking = backend
        self.query_one("#backend-note", Static).update(f"checking backend {backend}…")
        self._check(backend)

    @work(thread=True, exclusive=True, group="capture-check")
    def _check(self, backend: str) -> None:
        """Ask a probe child what runs here: the app itself never imports torch or a device runtime."""
        try:
            checked = probe(backend)
        except UserError as exc:
            self.post_message(Availability(backend, None, str(exc)))
            return
        self.post_message(Availability(backend, checked))

    def on_availability(self, message: Availability) -> None:
        if message.backend != self.checking:
            return  # the person chose another backend meanwhile
        self.reasons = message.reasons
        if message.checked is not None:
            self.probed[message.backend] = message.checked
        unusable = [f"{name}: {reason}" for name, reason in message.reasons.items() if reason]
        self.query_one("#backend-note", Static).update("; ".join(unusable) or "every backend is usable here")
        note = self.query_one("#impls-note", Static)
        note.update(message.error or "space ticks; greyed out ones cannot run on this backend")
        box = self.query_one("#impls", Vertical)
        new: list[Checkbox] = []
        for impl in message.impls:
            label = f"{impl.name} — " + (f"unavailable: {impl.reason}" if impl.reason else impl.description)
            existing = box.query(f"#impl-{impl.name}")
            if existing:
                checkbox = existing.only_one(Checkbox)
                checkbox.label = label
                checkbox.disabled = bool(impl.reason)
                checkbox.value = checkbox.value and not impl.reason
            else:
                new.append(TickBox(label, value=impl.name in DEFAULT_IMPLS and not impl.reason, compact=True,
                                    disabled=bool(impl.reason), id=f"impl-{impl.name}"))
        box.mount_all(new)
        first = next((checkbox for checkbox in new if not checkbox.disabled), None)
        if first is not None and self.focused is None:
            first.focus()  # the checklist is where a capture starts

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "backend" and event.value != self.checking and isinstance(event.value, str):
            self._request_check(event.value)

    # ---- start -------------------------------------------------------------------------------
    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "start":
            self.start()
        elif event.button.id == "cancel":
            self.cancel()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.start()  # enter in any field starts, as on Start itself

    def start(self) -> None:
        """Check every field; start the capture worker only when all are right."""
        if self.running:
            return
        if self.reasons is None:
            self._show_errors({"start": "still checking which implementations run here; press Start again in a moment."})
            return
        values = {key: self.query_one(f"#{key}", Input).value for key, _ in TEXT_FIELDS}
        values |= {key: str(self.query_one(f"#{key}", Select).value) for key in ("dtype", "backend")}
        ticked = [cb.id.removeprefix("impl-") for cb in self.query("#impls Checkbox").results(Checkbox)
                  if cb.value and not cb.disabled and cb.id]
        request, errors = read_form(values, ticked, self.reasons)
        self._show_errors(errors)
        if request is None:
            self._focus_field(next(iter(errors)))
            self.notify(next(iter(errors.values())), title="Cannot start the capture", severity="error")
            return
        self._set_running(True)
        self.query_one("#capture-header", Static).update("preparing the capture…")
        self._capture(request)

    @work(thread=True, exclusive=True, group="capture")
    def _capture(self, request: CaptureRequest) -> None:
        try:
            plan = plan_capture(request.impls, request.spec, request.out_dir, request.backend, request.timeout_s,
                                checked=self.probed.get(request.backend))
            session = CaptureSession(plan)
        except ImplementationError as exc:
            field = "function" if request.function and exc.spec == request.function else "start"
            self.post_message(CaptureRejected(field, str(exc)))
            return
        except (UserError, OSError) as exc:
            self.post_message(CaptureRejected("start", str(exc)))
            return
        self.post_message(CaptureStarted(session))
        try:
            for event in session.events():
                if event.phase == "finished":
                    manifest = _read_manifest(Path(event.run_dir) / MANIFEST_FILE)
                    self.post_message(RunEnded(event, manifest.get("correct"), manifest.get("error_tail") or []))
                else:
                    self.post_message(CaptureProgress(event))
        except OSError as exc:
            self.post_message(CaptureEnded(session, f"the session stopped: {exc}"))
            return
        self.post_message(CaptureEnded(session))

    def on_capture_rejected(self, message: CaptureRejected) -> None:
        self._set_running(False)
        self._show_errors({message.field: message.sentence})
        self._focus_field(message.field)
        self.query_one("#capture-header", Static).update("Nothing was started.")
        self.notify(message.sentence, title="Cannot start the capture", severity="error")

    async def on_capture_started(self, message: CaptureStarted) -> None:
        session = message.session
        self.session = session
        await self.query(RunProgress).remove()
        steps = session.plan.spec.schedule.total_steps
        self.panels = {impl: RunProgress(impl, str(session.path / name), steps)
                       for impl, name in zip(session.plan.impls, session.plan.names)}
        self.query_one("#capture-header", Static).update(f"session {session.path}")
        await self.query_one("#capture-progress").mount_all(self.panels.values())
        if self.cancel_requested:
            session.cancel()

    def on_capture_progress(self, message: CaptureProgress) -> None:
        self.panels[message.event.impl].advance(message.event)

    def on_run_ended(self, message: RunEnded) -> None:
        self.panels[message.event.impl].finish(message.event, message.correct, message.error_tail)

    def on_capture_ended(self, message: CaptureEnded) -> None:
        self._set_running(False)
        session = message.session
        done = [panel for panel in self.panels.values() if panel.status == "complete"]
        wrong = [panel.impl for panel in self.panels.values() if panel.correct is False]
        summary = f"{len(done)} of {len(self.panels)} complete" + (f"; {message.error}" if message.error else "")
        self.query_one("#capture-header", Static).update(f"session {session.path}: {summary}.")
        flags = f" WRONG RESULT: {', '.join(wrong)}." if wrong else ""
        if not done:
            self.notify(f"{session.path.name}: {summary}; nothing to open.{flags}", title="Capture ended",
                        severity="error")
            return
        first = done[0]
        compare = " Press t to compare the runs." if len(done) > 1 else ""
        self.notify(f"{session.path.name}: {summary}; opened {first.impl}.{compare}{flags}", title="Capture ended",
                    severity="warning" if wrong or len(done) < len(self.panels) else "information")
        self.tui.open_path(first.run_dir)
        if self.is_current:
            self.app.pop_screen()

    # ---- cancel and leave ---------------------------------------------------------------------
    def cancel(self) -> None:
        """Stop the running child and skip the implementations not yet started."""
        if not self.running:
            return
        self.cancel_requested = True
        self.query_one("#capture-header", Static).update("cancelling…")
        if self.session is not None:
            self.session.cancel()

    def action_back(self) -> None:
        if self.running:
            self.cancel()
        else:
            self.app.pop_screen()

    # ---- helpers ------------------------------------------------------------------------------
    def _set_running(self, running: bool) -> None:
        self.running = running
        if running:
            self.cancel_requested = False
            self.session = None
        self.query_one("#capture-form").disabled = running
        self.query_one("#start", Button).disabled = running
        cancel = self.query_one("#cancel", Button)
        cancel.disabled = not running
        (cancel if running else self.query_one("#start", Button)).focus()

    def _show_errors(self, errors: dict[str, str]) -> None:
        """One sentence under each bad field; fields not named are cleared."""
        for widget in self.query(".field-error").results(Static):
            field = (widget.id or "").removesuffix("-error")
            widget.update(errors.get(field, ""))
            widget.display = field in errors


    def _focus_field(self, field: str) -> None:
        """Put the cursor on the field an error names (the first tickable box for the checklist)."""
        targets = self.query(f"#{field}") if field != "impls" else self.query("#impls Checkbox")
        target = next((w for w in targets if w.focusable), None)
        if target is not None:
            target.focus()


def _field(label: str, widget: Widget) -> ComposeResult:
    yield Horizontal(Label(label), widget, classes="field")
    yield _error(widget.id or "")


def _error(field: str) -> Static:
    return Static("", id=f"{field}-error", classes="field-error", markup=False)  # messages quote user input


def _read_manifest(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
