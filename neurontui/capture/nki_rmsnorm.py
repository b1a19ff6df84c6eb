"""An RMSNorm kernel in the Neuron Kernel Interface, imported only where NKI is present.

After the NKI tutorial's RMSNorm: rows are tiled 128 at a time over the partition dimension,
the sum of squares is reduced along the free dimension, and eps is added before rsqrt.
"""

from __future__ import annotations

import math

import torch

try:
    import neuronxcc.nki as nki
    import neuronxcc.nki.language as nl
except ImportError:  # newer Neuron SDKs ship NKI as a top-level package
    import nki  # type: ignore[no-redef]
    import nki.language as nl  # type: ignore[no-redef]


@nki.jit
def _rmsnorm_kernel(a_tensor, g_tensor, eps):  # type: ignore[no-untyped-def]
    out_tensor = nl.ndarray(a_tensor.shape, dtype=a_tensor.dtype, buffer=nl.shared_hbm)
    rows, hidden = a_tensor.shape
    ix = nl.arange(128)[:, None]
    iw = nl.arange(1)[:, None]
    iy = nl.arange(hidden)[None, :]
    g_tile = nl.load(g_tensor.reshape((1, hidden))[iw, iy])
    for i in nl.affine_range(math.ceil(rows / 128)):
        mask = i * 128 + ix < rows
        a_tile = nl.load(a_tensor[i * 128 + ix, iy], mask=mask)
        mean = nl.sum(nl.square(a_tile), axis=[1]) / hidden
        out_tile = nl.multiply(a_tile, nl.rsqrt(mean + eps))
        out_tile[...] = nl.multiply(out_tile, g_tile.broadcast_to((128, hidden)), mask=mask)
        nl.store(out_tensor[i * 128 + ix, iy], value=out_tile, mask=mask)
    return out_tensor


def nki_rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """Run the kernel on a 2-D view of x, since it tiles rows over the 128 partitions."""
    flat = x.reshape(-1, x.shape[-1])
    return _rmsnorm_kernel(flat, weight, eps).reshape(x.shape)
