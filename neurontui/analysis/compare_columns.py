"""The comparison table's columns, defined once so the CLI table, CSV, Markdown and the TUI view agree."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from neurontui.analysis.compare import RunFigures


@dataclass(frozen=True)
class Column:
    """A column: its header, the sortable value and the text shown."""

    key: str
    header: str
    value: Callable[[RunFigures], Any]
    text: Callable[[RunFigures], str]
    numeric: bool = True


def fmt_ns(ns: float | None) -> str:
    """A duration with a unit a person reads at a glance."""
    if ns is None:
        return "—"
    a = abs(ns)
    if a >= 1e9:
        return f"{ns / 1e9:.3f} s"
    if a >= 1e6:
        return f"{ns / 1e6:.3f} ms"
    if a >= 1e3:
        return f"{ns / 1e3:.1f} µs"
    return f"{ns:.0f} ns"


def top_cause(r: RunFigures) -> str:
    """The cause holding most interior gap time, with its share."""
    total = sum(r.gap_by_cause_ns.values())
    if not total:
        return "—"
    cause, ns = max(r.gap_by_cause_ns.items(), key=lambda kv: kv[1])
    return f"{cause} {ns / total:.0%}"


def _correct(r: RunFigures) -> str:
    if r.correct is None:
        return "?"
    text = "yes" if r.correct else "NO"
    return text if r.max_abs_error is None else f"{text} ({r.max_abs_error:.1e})"


COLUMNS: tuple[Column, ...] = (
    Column("name", "run", lambda r: r.name, lambda r: r.name, numeric=False),
    Column("speedup", "speedup", lambda r: r.speedup or 0.0, lambda r: "—" if r.speedup is None else f"{r.speedup:.2f}×"),
    Column("busy", "busy/step", lambda r: r.device_busy_ns_per_step, lambda r: fmt_ns(r.device_busy_ns_per_step)),
    Column("util", "util", lambda r: r.utilization, lambda r: f"{r.utilization:.0%}"),
    Column("dispatches", "disp/step", lambda r: r.dispatches_per_step, lambda r: f"{r.dispatches_per_step:.1f}"),
    Column("host", "host/step", lambda r: r.host_ns_per_step, lambda r: fmt_ns(r.host_ns_per_step)),
    Column("gaps", "gaps", lambda r: r.gap_count, lambda r: str(r.gap_count)),
    Column("gap", "gap/step", lambda r: r.gap_ns_per_step, lambda r: fmt_ns(r.gap_ns_per_step)),
    Column("largest", "largest", lambda r: r.gap_largest_ns, lambda r: fmt_ns(r.gap_largest_ns)),
    Column("cause", "gap cause", top_cause, top_cause, numeric=False),
    Column("correct", "ok", lambda r: -1 if r.correct is None else int(r.correct), _correct, numeric=False),
    Column("steps", "steps", lambda r: r.steps, lambda r: str(r.steps)),
)
