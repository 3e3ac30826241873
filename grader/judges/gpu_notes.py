"""Notes of the ``gpu`` judge that read one part of an nvidia-smi output each (grader.judges.gpu calls them):

- which NIC is nearest each GPU in ``nvidia-smi topo -m``, and what a GPU with every NIC at SYS means for GPUDirect
  RDMA (NCCL's environment variables, NCCL_NET_GDR_LEVEL: by default NCCL uses GPUDirect RDMA only when the NIC is
  close to the GPU, not across the CPU-to-CPU link; https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html);
- the plain table's header (the driver and the newest CUDA it runs: NVIDIA's CUDA compatibility guide,
  https://docs.nvidia.com/deploy/cuda-compatibility/), and most of a card's memory held while it idles (vLLM reserves
  ``gpu_memory_utilization`` of each card at start-up, https://docs.vllm.ai/en/latest/configuration/engine_args.html).
"""

from __future__ import annotations

from typing import Any

from .common import info, warn
from .model import Finding

HELD_SHARE = 0.8
"""The share of a card's memory above which an idle card holds "most" of it (a loaded model or a reserved pool)."""


def nearest_nics(t: Any) -> list[Finding]:
    """Each GPU's nearest NIC in the matrix (TopoMatrix.nearest_nics), in one sentence: PIX/PXB keep RDMA traffic off
    the CPU (GPUDirect RDMA), PHB/NODE/SYS cross it. A warning when every GPU's nearest NIC is SYS: no GPU can use
    GPUDirect RDMA by NCCL's default, so inter-node traffic is staged through host memory across the CPU link. Only
    where the GPUs share one home (NUMA node or CPU set): a NIC SYS to GPUs on both sockets sits on neither GPU's
    PCIe tree (a front-end NIC, or a VM that hides the tree), and moving it would not decide much."""
    nearest = t.nearest_nics()
    near = [f"{g} {nic} ({code})" for g, (nic, code) in nearest.items()]
    if not near:
        return []
    from ..facts.lesson3 import gpu_homes
    if all(code == "SYS" for _, code in nearest.values()) and len(set(gpu_homes(t)[0].values())) <= 1:
        return [warn(f"Every GPU is SYS from every NIC ({', '.join(near[:8])}{', ...' if len(near) > 8 else ''}): "
                     "the NICs hang off another CPU socket, or another PCIe root complex of the socket, than the GPUs, "
                     "so GPU-NIC traffic crosses the CPU. NCCL does not use GPUDirect RDMA (GDR) at SYS distance by "
                     "default (NCCL_NET_GDR_LEVEL): inter-node traffic is staged through host memory, slower. Only "
                     "multi-node work pays it; for that, put a NIC in a slot of the GPUs' socket, under their PCIe "
                     "switch if they have one.")]
    return [info(f"Nearest NIC of each GPU: {', '.join(near[:16])}. PIX/PXB: the NIC sits behind the GPU's own PCIe "
                 "switch, so RDMA between them (GPUDirect) stays off the CPU; PHB, NODE or SYS: that traffic crosses the "
                 "CPU.")]


def table_notes(t: Any) -> list[Finding]:
    """The plain table's driver and CUDA version, and the cards that hold most of their memory while idle."""
    from ..facts.lesson3 import is_idle
    out = []
    if t.driver_version and t.cuda_version:
        out.append(info(f"Driver {t.driver_version}; `CUDA Version: {t.cuda_version}` is the newest CUDA this driver "
                        "runs, not what is installed: a container image or a PyTorch/vLLM wheel built for a later "
                        "CUDA needs a newer driver, or it fails at CUDA initialisation."))
    held = [g for g in t.gpus if g.memory_total_mib and g.memory_used_mib is not None and is_idle(
        g.perf_state, g.utilization_pct) and g.memory_used_mib >= HELD_SHARE * g.memory_total_mib]
    if held:
        out.append(info(f"{', '.join(f'GPU{g.index}' for g in held)}: idle, yet holding most of the card's memory "
                        f"({', '.join(f'{g.memory_used_mib} of {g.memory_total_mib} MiB' for g in held[:8])}): what "
                        "a loaded model server keeps between requests. vLLM reserves its gpu_memory_utilization share "
                        "of each card at start (weights plus a KV-cache pool), SGLang its mem_fraction_static" + (
                            ". The process table lists none: in a container, or under WSL, nvidia-smi does not see "
                            "other namespaces' processes (then it is such a server's reserve, by design); on the host, "
                            "memory held by no process is a process that died holding it (`fuser -v /dev/nvidia*`)."
                            if t.no_processes else ": by design, not a leak. The process table says which process "
                            "holds it.")))
    return out


def p2p_model_pairs(devices: dict, access: dict) -> list[Finding]:
    """p2pBandwidthLatencyTest on mixed cards where P2P works exactly between cards of one model and nowhere across
    models: said as that pattern (CUDA gives peer access between GPUs of one architecture; a driver that enables P2P on
    GeForce cards does it per model), so a tensor-parallel group belongs on one model's cards."""
    can = sorted({tuple(sorted(k)) for k, v in access.items() if v and k[0] != k[1]})
    cannot = [k for k, v in access.items() if not v and k[0] != k[1]]
    if not can or not cannot or len(set(devices.values())) < 2 or any(
            devices.get(a) != devices.get(b) for a, b in can) or any(devices.get(a) == devices.get(b) for a, b in cannot):
        return []
    return [info("P2P works between " + ", ".join(f"GPU{a}-GPU{b} ({devices.get(a)})" for a, b in can[:6])
                 + ", each a pair of one model, and not between cards of different models: CUDA gives peer access "
                 "between GPUs of one architecture, and a driver that enables P2P on GeForce cards does so per model. "
                 "Expected, not a fault: keep a tensor-parallel group on cards of one model.")]
