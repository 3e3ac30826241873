"""Judge of CUDA samples' ``deviceQuery`` (grader.parsers.device_query): which GPUs the CUDA runtime sees, whether
the driver is new enough for the runtime, whether the cards report peer access, and the result.

Peer access reads as simpleP2P's (grader.judges.simple_p2p.no_peer_finding, at p2pBandwidthLatencyTest's level: none
on GeForce cards is a note, on others a warning); ``Result = FAIL`` is a failure, its cudaGetDeviceCount error named.
"""

from __future__ import annotations

from typing import Any

from .common import fail, info, ok
from .simple_p2p import no_peer_finding
from .model import Finding, Summary

_ERRORS = {
    35: "the driver is older than the CUDA runtime this program was built with: update the driver (or run a build of "
        "the samples for the driver's CUDA version)",
    803: "the NVIDIA driver's user-space library and its kernel module are of different versions (`Driver/library "
         "version mismatch` in nvidia-smi): reboot after a driver update, or reinstall one driver",
    100: "no CUDA device is visible: the driver does not see the GPU, or the process was given none "
         "(CUDA_VISIBLE_DEVICES, a container started without --gpus)",
    804: "the CUDA forward-compatibility package was loaded on a GPU it does not support: remove it from the library "
         "path (a container's compat libraries on a GeForce card)",
    999: "the driver could not be used (unknown error): a driver and kernel module out of step after an update (reboot), "
         "a GPU that fell off the bus (`dmesg` for an Xid), or /dev/nvidia* not reachable",
}
"""What cudaGetDeviceCount's usual errors mean (CUDA runtime's cudaError_t: 35 cudaErrorInsufficientDriver, 100
cudaErrorNoDevice, 803 cudaErrorSystemDriverMismatch, 804 cudaErrorCompatNotSupportedOnDevice, 999 cudaErrorUnknown)."""


def summarise_device_query(q: Any, command: str | None) -> Summary:
    facts = {"devices": [d.__dict__ for d in q.devices], "detected": q.detected, "driver": q.driver,
             "runtime": q.runtime, "peer": [[a, b, yes] for (a, b), yes in q.peer.items()],
             "error": list(q.error) if q.error else None, "passed": q.passed, "memory_unit": "MiB"}
    findings: list[Finding] = []
    if q.devices:
        findings.append(info(f"deviceQuery sees {len(q.devices)} CUDA device(s): " + "; ".join(
            f"GPU{d.index} {d.name}" + (f" (compute capability {d.capability}" if d.capability else " (") +
            (f", {d.memory_mib:,} MiB" if d.memory_mib else "") + ")" for d in q.devices)
            + (f"; CUDA driver {q.driver}, runtime {q.runtime}" if q.driver else "") + "."))
    if q.error:
        code, said = q.error
        findings.append(fail(f"cudaGetDeviceCount returned {code}" + (f" ({said})" if said else "") + ": the CUDA "
                             "runtime could not reach any GPU, so no CUDA program runs here: " + _ERRORS.get(
                                 code, "`nvidia-smi` and `dmesg` say whether the driver sees the GPUs") + "."))
    elif q.passed is False:
        findings.append(fail("`Result = FAIL`: the CUDA runtime could not query the GPUs; the lines above say why."))
    elif q.passed and q.devices:
        findings.append(ok(f"`Result = PASS`: the driver and the CUDA runtime work, and see {len(q.devices)} GPU(s)."))
    elif q.passed is None:
        findings.append(info("The paste stops before deviceQuery's result (`Result = PASS` or `FAIL`)."))
    yes = [k for k, v in q.peer.items() if v]
    if q.peer and not yes:
        findings.append(no_peer_finding([d.name for d in q.devices], "deviceQuery's `> Peer access ... : No`"))
    elif yes:
        no = sorted(k for k, v in q.peer.items() if not v)
        findings.append(info("Peer access reported between " + ", ".join(f"GPU{a}->GPU{b}" for a, b in sorted(yes))
                             + (" (not between " + ", ".join(f"GPU{a}->GPU{b}" for a, b in no) + ")" if no else "")
                             + ": reported only; simpleP2P or p2pBandwidthLatencyTest show whether copies over it work."))
    return facts, findings
