"""The RMSNorm implementations a session can compare, each with its availability and why not.

Every implementation is a function `fn(x, weight, eps) -> Tensor` normalizing over the last
dimension; user functions given as `module:function` or `path/to/file.py:function` follow the same
signature and are loaded only inside the worker, so their import-time code never runs in the UI.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import torch

from neurontui.capture.backends import Backend
from neurontui.errors import UserError

RMSNormFn = Callable[[torch.Tensor, torch.Tensor, float], torch.Tensor]
BUILTINS = ("naive", "fused", "compiled", "kernel")


@dataclass(frozen=True)
class Implementation:
    """One entry of the registry: a display name, whether it can run here, and how to build it."""

    spec: str
    name: str
    description: str
    reason: str
    build: Callable[[], RMSNormFn]

    @property
    def available(self) -> bool:
        return not self.reason


def naive_rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """RMSNorm as common model code writes it: one framework op per arithmetic step."""
    variance = x.pow(2).mean(-1, keepdim=True)
    return x * torch.rsqrt(variance + eps) * weight


def fused_rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """RMSNorm through PyTorch's single torch.rms_norm op."""
    return torch.rms_norm(x, (x.shape[-1],), weight, eps)


def registry(backend: Backend) -> list[Implementation]:
    """The built-in implementations on this backend, in display order, for pickers and validation."""
    return [builtin(name, backend) for name in BUILTINS]


def builtin(name: str, backend: Backend) -> Implementation:
    if name == "naive":
        return Implementation(name, name, "separate PyTorch ops", "", lambda: naive_rmsnorm)
    if name == "fused":
        return Implementation(name, name, "torch.rms_norm", "", lambda: fused_rmsnorm)
    if name == "compiled":
        compile_backend, reason = backend.compile_backend()
        return Implementation(
            name,
            name,
            f"torch.compile(naive, backend={compile_backend or '?'})",
            reason,
            lambda: torch.compile(naive_rmsnorm, backend=compile_backend, dynamic=False),
        )
    if name == "kernel":
        return Implementation(name, name, "NKI kernel", _kernel_reason(backend), _build_kernel)
    raise KeyError(name)


def resolve(spec: str, backend: Backend) -> Implementation:
    """An implementation from a built-in name or a user `module:function` / `file.py:function`."""
    if spec in BUILTINS:
        return builtin(spec, backend)
    if ":" not in spec:
        raise UserError(
            f"unknown implementation '{spec}'; choose from {', '.join(BUILTINS)} "
            "or give module:function or path/to/file.py:function."
        )
    target, _, function = spec.rpartition(":")
    if not function.isidentifier():
        raise UserError(f"implementation '{spec}' does not end in a function name.")
    if target.endswith(".py"):
        if not Path(target).is_file():
            raise UserError(f"implementation file '{target}' does not exist.")
        stem = Path(target).stem
    else:
        if not all(part.isidentifier() for part in target.split(".")):
            raise UserError(f"implementation '{spec}' is not module:function or path/to/file.py:function.")
        top = target.split(".")[0]
        if importlib.util.find_spec(top) is None and importlib.machinery.PathFinder.find_spec(
            top, [os.getcwd()]
        ) is None:
            raise UserError(f"module '{target}' of implementation '{spec}' cannot be found.")
        stem = target
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{stem}.{function}")
    return Implementation(spec, name, f"user function {spec}", "", lambda: load_user_function(target, function))


def load_user_function(target: str, function: str) -> RMSNormFn:
    """Import a user's module or file and return its function (worker side only)."""
    if target.endswith(".py"):
        module_spec = importlib.util.spec_from_file_location(f"neurontui_user_{Path(target).stem}", target)
        if module_spec is None or module_spec.loader is None:
            raise ImportError(f"cannot load {target}")
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(target)
    fn = getattr(module, function, None)
    if not callable(fn):
        raise AttributeError(f"{target} has no function {function}")
    return fn


def _nki_reason() -> str:
    for module in ("neuronxcc.nki", "nki"):
        try:
            importlib.import_module(module)
            return ""
        except ImportError:
            continue
    return "the Neuron Kernel Interface (neuronxcc.nki) is not importable"


def _kernel_reason(backend: Backend) -> str:
    if backend.name != "neuron":
        return f"NKI kernels run on Neuron devices, not on {backend.name}"
    return _nki_reason()


def _build_kernel() -> RMSNormFn:
    from neurontui.capture.nki_rmsnorm import nki_rmsnorm

    return nki_rmsnorm
