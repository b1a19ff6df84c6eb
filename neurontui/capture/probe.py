"""What can be captured here, asked of a short-lived child process.

Checking a backend means importing torch and, on Trainium, torch_neuronx and the Neuron runtime.
Doing that in the app (or the CLI parent) would cost it hundreds of MB, could crash it in native
code, and might hold NeuronCores the capture children need. So the check runs in its own process:
    python -m neurontui.capture.probe '{"backend": "auto", "specs": ["naive", "my.py:norm"]}'
which prints one JSON object; `probe()` is the parent's side.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, replace

from neurontui.errors import UserError

PROBE_TIMEOUT_S = 180.0  # importing torch_neuronx on a cold instance can take a while


@dataclass(frozen=True)
class ImplInfo:
    """One implementation as the child resolved it; `reason` is "" when it can run on the backend."""

    spec: str
    name: str
    description: str
    reason: str


@dataclass(frozen=True)
class ProbeResult:
    """Backends usable here, the chosen one, the built-ins on it and the requested implementations."""

    reasons: dict[str, str]  # backend name -> "" when usable, else why not
    backend: str  # what the requested backend (or auto) resolved to; "" when it is not usable
    error: str  # one sentence when the backend or a requested implementation is unusable
    error_spec: str  # the requested implementation the error is about; "" when it is about the backend
    builtins: tuple[ImplInfo, ...]
    requested: tuple[ImplInfo, ...]

    def answering(self, specs: tuple[str, ...] | list[str]) -> ProbeResult | None:
        """This result as if `specs` had been requested, when all are built-ins it knows; else None (probe again)."""
        known = {impl.spec: impl for impl in self.builtins}
        if self.error or not all(spec in known for spec in specs):
            return None
        requested = tuple(known[spec] for spec in specs)
        blocked = next((impl for impl in requested if impl.reason), None)
        if blocked is not None:
            return replace(self, error=unavailable(blocked.spec, self.backend, blocked.reason), error_spec=blocked.spec,
                           requested=requested)
        return replace(self, requested=requested)


def unavailable(spec: str, backend: str, reason: str) -> str:
    return f"implementation '{spec}' is not available on {backend}: {reason}."


def probe(backend: str, specs: tuple[str, ...] | list[str] = (), timeout_s: float = PROBE_TIMEOUT_S) -> ProbeResult:
    """Ask a child process; raises UserError with one sentence when the child itself fails."""
    request = json.dumps({"backend": backend, "specs": list(specs)})
    try:
        done = subprocess.run([sys.executable, "-m", "neurontui.capture.probe", request],
                              capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise UserError(f"checking the capture backends took longer than {timeout_s:.0f} s.") from None
    try:
        data = json.loads(done.stdout.strip().splitlines()[-1])
        return ProbeResult(
            reasons=dict(data["reasons"]), backend=data["backend"], error=data["error"], error_spec=data["error_spec"],
            builtins=tuple(ImplInfo(**i) for i in data["builtins"]),
            requested=tuple(ImplInfo(**i) for i in data["requested"]),
        )
    except (IndexError, KeyError, TypeError, ValueError):
        tail = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        raise UserError(f"could not check the capture backends: {tail}") from None


def answer(request: dict) -> dict:
    """The child's side: resolve the backend and every requested implementation, stopping at the first error."""
    from neurontui.capture import backends, implementations

    out: dict = {"reasons": backends.availability(), "backend": "", "error": "", "error_spec": "",
                 "builtins": [], "requested": []}
    try:
        chosen = backends.select(str(request.get("backend", "auto")))
    except UserError as exc:
        out["error"] = str(exc)
        return out
    out["backend"] = chosen.name
    out["builtins"] = [_info(impl) for impl in implementations.registry(chosen)]
    for spec in request.get("specs", []):
        try:
            impl = implementations.resolve(str(spec), chosen)
        except UserError as exc:
            out["error"], out["error_spec"] = str(exc), str(spec)
            return out
        out["requested"].append(_info(impl))
        if not impl.available:
            out["error"] = unavailable(impl.spec, chosen.name, impl.reason)
            out["error_spec"] = str(spec)
            return out
    return out


def _info(impl) -> dict:
    return {"spec": impl.spec, "name": impl.name, "description": impl.description, "reason": impl.reason}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    print(json.dumps(answer(json.loads(args[0]) if args else {})), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
