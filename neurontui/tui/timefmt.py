"""Human-readable nanosecond durations and ruler ticks, deterministic and unit-aware."""

from __future__ import annotations

import math
from datetime import datetime, timezone

_UNITS = ((1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "µs"), (1, "ns"))


def duration(ns: int | float) -> str:
    """Three significant digits in the largest unit that keeps the number >= 1."""
    value = float(ns)
    sign = "-" if value < 0 else ""
    value = abs(value)
    for scale, unit in _UNITS:
        if value >= scale or scale == 1:
            x = value / scale
            text = f"{x:.0f}" if x >= 100 or scale == 1 else f"{x:.1f}" if x >= 10 else f"{x:.2f}"
            return f"{sign}{text.rstrip('0').rstrip('.') if '.' in text else text}{unit}"
    return f"{sign}0ns"  # pragma: no cover - the loop always returns


def absolute(epoch_ns: int) -> str:
    """Wall-clock UTC time of an epoch-ns instant, to the microsecond."""
    dt = datetime.fromtimestamp(epoch_ns // 1_000_000_000, tz=timezone.utc)
    return f"{dt:%Y-%m-%d %H:%M:%S}.{epoch_ns % 1_000_000_000 // 1000:06d} UTC"


def nice_step(min_ns: float) -> int:
    """The smallest 1-2-5 × 10^k nanosecond step that is at least min_ns."""
    if min_ns <= 1:
        return 1
    exp = 10 ** math.floor(math.log10(min_ns))
    for m in (1, 2, 5, 10):
        if m * exp >= min_ns:
            return int(m * exp)
    return int(10 * exp)  # pragma: no cover - 10 always satisfies the bound


def offset(ns: int, resolution_ns: int) -> str:
    """An offset in its largest unit, with just enough decimals to tell apart values resolution_ns apart."""
    value = abs(int(ns))
    scale, unit = next(((s, u) for s, u in _UNITS if value >= s), (1, "ns"))
    decimals = max(0, math.ceil(math.log10(scale / max(resolution_ns, 1)))) if resolution_ns < scale else 0
    text = f"{value / scale:.{decimals}f}"
    return f"{'-' if ns < 0 else ''}{text}{unit}"
