"""The visible time window and the pure arithmetic of zooming and panning it."""

from __future__ import annotations

from dataclasses import dataclass

MIN_SPAN_NS = 100
ZOOM_FACTOR = 2.0
PAN_FRACTION = 0.25


@dataclass(frozen=True)
class Viewport:
    """[t0, t1) in epoch ns, always inside the trace's window and never narrower than MIN_SPAN_NS."""

    t0: int
    t1: int

    @property
    def span(self) -> int:
        return self.t1 - self.t0

    @property
    def centre(self) -> int:
        return (self.t0 + self.t1) // 2

    def contains(self, t: int) -> bool:
        return self.t0 <= t < self.t1


def fit(window: tuple[int, int]) -> Viewport:
    """The whole trace, with a minimum span so empty or instant traces still have an axis."""
    lo, hi = window
    return Viewport(lo, max(hi, lo + MIN_SPAN_NS))


def clamp(t0: int, t1: int, window: tuple[int, int]) -> Viewport:
    """Shift and shrink [t0, t1) so that it stays inside the trace's window."""
    whole = fit(window)
    span = min(max(t1 - t0, MIN_SPAN_NS), whole.span)
    t0 = min(max(t0, whole.t0), whole.t1 - span)
    return Viewport(t0, t0 + span)


def zoom(view: Viewport, factor: float, anchor: int, window: tuple[int, int]) -> Viewport:
    """Scale the span by 1/factor keeping `anchor` at the same screen position."""
    span = max(int(view.span / factor), MIN_SPAN_NS)
    frac = (anchor - view.t0) / view.span if view.span else 0.5
    frac = min(max(frac, 0.0), 1.0)
    t0 = anchor - int(frac * span)
    return clamp(t0, t0 + span, window)


def pan(view: Viewport, fraction: float, window: tuple[int, int]) -> Viewport:
    """Move by a fraction of the span (negative: towards earlier times)."""
    shift = int(view.span * fraction)
    return clamp(view.t0 + shift, view.t1 + shift, window)


def show(view: Viewport, t0: int, t1: int, window: tuple[int, int], margin: float = 0.1) -> Viewport:
    """Keep the zoom when [t0, t1) fits, else zoom out just enough; centre on it when it is off-screen."""
    length = max(t1 - t0, 1)
    if view.t0 <= t0 and t1 <= view.t1 and length <= view.span:
        return view
    span = view.span if length <= view.span * (1 - 2 * margin) else int(length / (1 - 2 * margin))
    mid = (t0 + t1) // 2
    return clamp(mid - span // 2, mid - span // 2 + span, window)


def frame(t0: int, t1: int, window: tuple[int, int], margin: float = 0.1) -> Viewport:
    """Zoom so that [t0, t1) fills the view with a margin either side."""
    length = max(t1 - t0, MIN_SPAN_NS)
    pad = int(length * margin)
    return clamp(t0 - pad, t1 + pad, window)
