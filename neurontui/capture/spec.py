"""What to capture (shape, dtype, schedule, options), shared by the CLI, launcher and worker without torch."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from neurontui.errors import UserError

DTYPES = ("float32", "float16", "bfloat16", "float64")


@dataclass(frozen=True)
class Schedule:
    """The torch.profiler schedule: skipped, warm-up and recorded steps, repeated `repeat` times."""

    wait: int = 1
    warmup: int = 3
    active: int = 10
    repeat: int = 1

    @property
    def cycle(self) -> int:
        return self.wait + self.warmup + self.active

    @property
    def total_steps(self) -> int:
        return self.cycle * self.repeat

    def phase(self, step: int) -> str:
        """The progress phase of a zero-based step: "warmup" before the recorded window, else "active"."""
        return "warmup" if step % self.cycle < self.wait + self.warmup else "active"


@dataclass(frozen=True)
class CaptureSpec:
    """The inputs and profiler options every implementation of one session is measured with."""

    shape: tuple[int, ...] = (8, 4096)
    dtype: str = "float32"
    eps: float = 1e-6
    schedule: Schedule = field(default_factory=Schedule)
    seed: int = 0
    record_shapes: bool = False
    with_stack: bool = False

    def __post_init__(self) -> None:
        if not self.shape or any(dim <= 0 for dim in self.shape):
            raise UserError(f"shape {format_shape(self.shape)} must have positive dimensions.")
        if self.dtype not in DTYPES:
            raise UserError(f"dtype '{self.dtype}' is not supported; choose one of {', '.join(DTYPES)}.")
        if not self.eps > 0:
            raise UserError(f"eps must be positive, got {self.eps}.")
        sched = self.schedule
        if sched.wait < 0 or sched.warmup < 0 or sched.active < 1 or sched.repeat < 1:
            raise UserError("the schedule needs wait >= 0, warmup >= 0, active >= 1 and repeat >= 1.")

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["shape"] = list(self.shape)
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> CaptureSpec:
        data = json.loads(text)
        data["shape"] = tuple(data["shape"])
        data["schedule"] = Schedule(**data["schedule"])
        return cls(**data)


def parse_shape(text: str) -> tuple[int, ...]:
    """Parse a shape written like `8x4096` (rows x hidden; the norm runs over the last dimension)."""
    try:
        shape = tuple(int(part) for part in text.lower().split("x"))
    except ValueError:
        raise UserError(f"shape '{text}' is not like 8x4096.") from None
    return shape


def format_shape(shape: tuple[int, ...]) -> str:
    return "x".join(str(dim) for dim in shape)
