"""The capture form's text turned into a request, each bad field with its own sentence, without importing torch."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from neurontui.capture.spec import CaptureSpec, parse_shape
from neurontui.errors import UserError

BACKEND_CHOICES = ("auto", "neuron", "cuda", "cpu")
SCHEDULE_FIELDS = ("wait", "warmup", "active", "repeat")
# The CLI's defaults (`neurontui capture --help`), so the screen and the command capture the same thing.
DEFAULTS: dict[str, str] = {
    "function": "", "shape": "8x4096", "dtype": "float32", "eps": "1e-6",
    "wait": "1", "warmup": "3", "active": "10", "repeat": "1",
    "backend": "auto", "timeout": "",
}
DEFAULT_IMPLS = ("naive", "fused", "compiled")


@dataclass(frozen=True)
class CaptureRequest:
    """Everything plan_capture needs, already checked field by field."""

    impls: tuple[str, ...]
    spec: CaptureSpec
    backend: str
    out_dir: str
    timeout_s: float | None
    function: str  # the user function among impls, "" when none


def read_form(
    values: Mapping[str, str], ticked: Sequence[str], backend_reasons: Mapping[str, str]
) -> tuple[CaptureRequest | None, dict[str, str]]:
    """The request, or None and a sentence per bad field in screen order (keys as in DEFAULTS, plus "impls", "out")."""
    errors: dict[str, str] = {}
    spec = CaptureSpec()

    def check(field: str, make: Callable[[CaptureSpec], CaptureSpec]) -> None:
        nonlocal spec
        try:
            spec = make(spec)
        except UserError as exc:
            errors[field] = str(exc)

    function = values["function"].strip()
    impls = (*ticked, function) if function else tuple(ticked)
    if not impls:
        errors["impls"] = "tick at least one implementation or give a user function."
    if function and ":" not in function:
        errors["function"] = f"'{function}' is not module:function or path/to/file.py:function."
    check("shape", lambda s: replace(s, shape=parse_shape(values["shape"].strip())))
    check("dtype", lambda s: replace(s, dtype=values["dtype"]))
    check("eps", lambda s: replace(s, eps=_number(values["eps"], "eps", "1e-6")))
    for name in SCHEDULE_FIELDS:
        check(name, lambda s, name=name: replace(s, schedule=replace(s.schedule, **{name: _whole(values[name], name)})))
    backend = values["backend"]
    if backend not in BACKEND_CHOICES:
        errors["backend"] = f"unknown backend '{backend}'; choose {', '.join(BACKEND_CHOICES)}."
    elif backend_reasons.get(backend):
        errors["backend"] = f"backend '{backend}' is not available: {backend_reasons[backend]}."
    out_dir = values["out"].strip()
    if not out_dir:
        errors["out"] = "give an output directory."
    elif os.path.exists(out_dir) and not os.path.isdir(out_dir):
        errors["out"] = f"output directory '{out_dir}' is a file."
    timeout = _timeout(values["timeout"], errors)
    if errors:
        return None, errors
    return CaptureRequest(impls, spec, backend, os.path.abspath(os.path.expanduser(out_dir)), timeout, function), {}


def _number(text: str, name: str, example: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise UserError(f"{name} must be a number like {example}, got '{text}'.") from None


def _whole(text: str, name: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UserError(f"{name} must be a whole number, got '{text}'.") from None


def _timeout(text: str, errors: dict[str, str]) -> float | None:
    """Seconds per implementation, None when left blank."""
    if not text.strip():
        return None
    try:
        seconds = _number(text.strip(), "timeout", "600")
    except UserError as exc:
        errors["timeout"] = str(exc)
        return None
    if seconds <= 0:
        errors["timeout"] = f"timeout must be positive, got {text.strip()}."
    return seconds

