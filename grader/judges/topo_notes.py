"""More of ``nvidia-smi topo -m`` read (judges/gpu.py, at its size limit, calls these): where every GPU hangs off one
NUMA node of the CPU, which the matrix's own CPU and NUMA Affinity columns say."""

from __future__ import annotations

from typing import Any

from .common import info
from .model import Finding


def one_numa_node(t: Any, said_already: bool) -> list[Finding]:
    """Every GPU row of ``t`` (a parsed topo matrix) shows the same NUMA node (a number, not N/A) and the same CPU
    affinity: said with the CPUs to keep a job's processes on, which matters where the machine has more (another
    socket); [] for fewer than two GPUs, a row without a node, GPUs on several nodes, or where the PCIe-only reading
    said the node already (``said_already``)."""
    numa = {g: t.numa_affinity.get(g) for g in t.gpus}
    cpus = {t.cpu_affinity.get(g) for g in t.gpus}
    if said_already or len(numa) < 2 or None in numa.values() or len(set(numa.values())) != 1 or len(cpus) != 1 \
            or None in cpus:
        return []
    node, cpu = next(iter(numa.values())), next(iter(cpus))
    return [info(f"{'Both' if len(numa) == 2 else f'All {len(numa)}'} GPUs report NUMA node {node} and CPU affinity {cpu}: they hang off that one node "
                 "of the CPU, so no GPU pays a hop between sockets to another. Where the machine has more CPUs than "
                 f"these (`lscpu`: another socket or NUMA node), keep the job's processes and data loaders on {cpu} "
                 f"(`numactl --cpunodebind={node}`): threads elsewhere cross the CPU-to-CPU link to reach the GPUs.")]
