"""The five lanes every event is sorted into, in screen order."""

from __future__ import annotations

from enum import IntEnum


class Lane(IntEnum):
    """Where an event sits between the framework and the silicon."""

    FRAMEWORK = 0  # host work of the framework, per thread
    DEVICE = 1  # the framework's calls into the device, per stream/thread
    RUNTIME = 2  # the accelerator runtime library, per core / thread
    HARDWARE = 3  # execution on the accelerator, per core / stream / engine / queue
    OTHER = 4  # everything else (Trace spans, unknown categories): never dropped

    @property
    def label(self) -> str:
        return self.name.lower()


LANES: tuple[Lane, ...] = tuple(Lane)
