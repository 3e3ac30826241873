"""Judge of ``nvidia-smi -L`` (grader.parsers.nvidia_smi_query.parse_gpu_list): the GPUs a machine has, and which of
them are split into MIG instances. Source: NVIDIA's Multi-Instance GPU user guide (each MIG instance is a GPU of its own
to CUDA and NCCL, with a slice of the card's memory and compute, and no peer access or NVLink to other GPUs).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .common import info
from .model import Summary


def summarise_gpu_list(gpus: Any, command: str | None) -> Summary:
    facts = {"gpus": [{"index": g.index, "name": g.name, "mig": list(g.mig)} for g in gpus]}
    names = sorted({g.name for g in gpus})
    findings = [info(f"{len(gpus)} GPU(s): " + (f"{len(gpus)} x {names[0]}" if len(names) == 1 else
                                                 ", ".join(f"GPU{g.index} {g.name}" for g in gpus[:16])) + ".")]
    for g in (g for g in gpus if g.mig):
        profiles = ", ".join(f"{n} x {p}" for p, n in Counter(g.mig).items())
        findings.append(info(f"GPU{g.index} is split into {len(g.mig)} MIG instance(s) ({profiles}): to CUDA and NCCL "
                             "each is a GPU of its own, with a slice of the card's memory and compute and no peer "
                             "access or NVLink to other GPUs, so it cannot take part in tensor parallel as a whole "
                             f"card. For that, turn MIG off on it (`sudo nvidia-smi -i {g.index} -mig 0`, the GPU "
                             "idle) or leave it out (CUDA_VISIBLE_DEVICES)."))
    return facts, findings
