"""A stand-in for TorchNeuron that records, in order, what neurontui hands it; only tests import it."""

from __future__ import annotations

import types
from typing import Any

import torch

__version__ = "0.0+fake"

# The ordered log tests read: ("synchronize", None), ("NeuronConfig", kwargs), ("export_trace", info), …
calls: list[tuple[str, Any]] = []


def _synchronize() -> None:
    calls.append(("synchronize", None))


neuron = types.ModuleType("torch.neuron")
neuron.synchronize = _synchronize  # type: ignore[attr-defined]
neuron.device_count = lambda: 1  # type: ignore[attr-defined]
neuron.get_device_name = lambda: "Fake NeuronCore-v2"  # type: ignore[attr-defined]
torch.neuron = neuron  # type: ignore[attr-defined]
