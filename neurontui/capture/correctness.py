"""Check an implementation's output against a float64 reference before its profile is trusted."""

from __future__ import annotations

from typing import Any

import torch

# (atol, rtol) per input dtype: a result is correct when |out - ref| <= atol + rtol * |ref| everywhere.
TOLERANCES: dict[str, tuple[float, float]] = {
    "float64": (1e-10, 1e-10),
    "float32": (1e-5, 1e-5),
    "float16": (1e-3, 1e-3),
    "bfloat16": (1e-2, 1.6e-2),
}


def reference(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """RMSNorm in float64 on the host, from the very inputs the implementation saw."""
    x64 = x.detach().to("cpu", torch.float64)
    w64 = weight.detach().to("cpu", torch.float64)
    return x64 * torch.rsqrt(x64.pow(2).mean(-1, keepdim=True) + eps) * w64


def check(out: Any, x: torch.Tensor, weight: torch.Tensor, eps: float, dtype: str) -> dict[str, Any]:
    """Max absolute/relative error, the tolerance used, and whether the result is within it."""
    atol, rtol = TOLERANCES[dtype]
    verdict: dict[str, Any] = {"reference": "float64", "atol": atol, "rtol": rtol}
    if not isinstance(out, torch.Tensor) or tuple(out.shape) != tuple(x.shape):
        got = tuple(out.shape) if isinstance(out, torch.Tensor) else type(out).__name__
        return {**verdict, "correct": False, "max_abs_error": None, "max_rel_error": None,
                "problem": f"expected a tensor of shape {tuple(x.shape)}, got {got}"}
    ref = reference(x, weight, eps)
    diff = (out.detach().to("cpu", torch.float64) - ref).abs()
    rel = diff / ref.abs().clamp_min(torch.finfo(torch.float64).tiny)
    finite = bool(torch.isfinite(diff).all())
    correct = finite and bool((diff <= atol + rtol * ref.abs()).all())
    return {**verdict, "correct": correct, "max_abs_error": _number(diff.max()), "max_rel_error": _number(rel.max())}


def _number(value: torch.Tensor) -> float | None:
    """A JSON-safe float: NaN and infinities become None."""
    number = float(value)
    return number if torch.isfinite(value) else None
