"""Category -> lane tables, one per trace source, as data (DESIGN.md, "Lanes")."""

from __future__ import annotations

from neurontui.model.lanes import Lane

# PyTorch profiler (Kineto) categories, for every backend that writes them:
# TorchNeuron (PrivateUse1), CUDA, ROCm (under CUDA names), MTIA, and old Kineto.
KINETO_LANES: dict[str, Lane] = {
    # framework: host work of the framework, per thread
    "cpu_op": Lane.FRAMEWORK,
    "user_annotation": Lane.FRAMEWORK,
    "python_function": Lane.FRAMEWORK,
    "privateuse1_runtime": Lane.FRAMEWORK,
    "operator": Lane.FRAMEWORK,  # very old Kineto
    # device: the framework's calls into the device
    "privateuse1_driver": Lane.DEVICE,
    "cuda_runtime": Lane.DEVICE,
    "runtime": Lane.DEVICE,  # old Kineto "Runtime"
    "mtia_runtime": Lane.DEVICE,
    # runtime: the accelerator runtime library
    "cuda_driver": Lane.RUNTIME,
    # hardware: execution on the accelerator
    "kernel": Lane.HARDWARE,  # old Kineto "Kernel"
    "gpu_memcpy": Lane.HARDWARE,
    "gpu_memset": Lane.HARDWARE,
    "cuda_profiler_range": Lane.HARDWARE,
    "cuda_sync": Lane.HARDWARE,
    "gpu_user_annotation": Lane.HARDWARE,
    "mtia_ccp_events": Lane.HARDWARE,
}

# Drawn on the hardware lane but not busy time: a sync is waiting, an annotation is a label.
KINETO_NOT_BUSY: frozenset[str] = frozenset({"cuda_sync", "gpu_user_annotation"})

# Flow categories that link a launch (s) to its device execution (f).
KINETO_LAUNCH_FLOWS: frozenset[str] = frozenset({"ac2g", "async_gpu"})


def kineto_lane(category: str) -> Lane:
    """Lane of a Kineto category (case-insensitive, so old `Runtime`/`Kernel` map too)."""
    return KINETO_LANES.get(category.lower(), Lane.OTHER)
