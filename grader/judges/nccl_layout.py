"""Judge of where NCCL's ranks and devices sit, from its own lines (for grader.judges.nccl): two ranks of one
communicator on one GPU, an RDMA device list of every port and virtual function of a host, and NCCL's topology dump
(the GPU-to-GPU paths it found: across CPU sockets, through an NVSwitch).

Sources: NCCL's init.cc (`Duplicate GPU detected`), NVIDIA/TensorRT-LLM#9263 (two ranks on busId 100000),
NVIDIA/nccl#224 (34 RoCE devices on one host), NVIDIA/nccl-tests#307
(eight RTX 4090 under two CPUs: PHB within each four, SYS at 10 GB/s between), NVIDIA/nccl#901 (`+ NVL[160.0] - NVS/0`);
the threshold is checks/specs/topologies.toml's.
"""

from __future__ import annotations

import re

from ..parsers.nccl_log import NcclLog
from .common import fail, info, machines_spanned, on_spark, warn
from .context import context, spark_shown
from .model import Finding

_SYSTEM_RE = re.compile(r"=== System : maxBw (?P<max>\d{1,5}(?:\.\d{1,3})?) totalBw (?P<total>\d{1,5}(?:\.\d{1,3})?) ===")


def system_bandwidth(log: NcclLog) -> list[Finding]:
    """NCCL's ``=== System : maxBw M totalBw T ===`` (its graph search's two bounds: maxBw the best path from a GPU
    to a NIC or another GPU, totalBw a GPU's own link, its PCIe link or its NVLinks added up) where T is below M: NCCL
    rates the GPU's own link below the path it would drive, and plans its channels within T. A note naming the figures
    and what decides: on a GB10 (a DGX Spark) NCCL reads the GPU's PCIe entry that low (its GPU reaches memory over
    C2C) and pairs still run (pending we011: 2.30.7, totalBw 0.2, connects); elsewhere the GPU's PCIe link (LnkSta).
    Source: NCCL's graph/search.cc (ncclTopoSearchInit: maxBw from getMaxBw, totalBw from getTotalBw); corpus zh004."""
    m = _SYSTEM_RE.search(context().paste or "") if log.nccl_lines else None
    if not m or not 0 < float(m.group("total")) < float(m.group("max")):
        return []
    said = (f"NCCL's topology search (`{m.group(0)}`) rates a GPU's own link (totalBw: its PCIe link, or its NVLinks "
            f"added up) at {m.group('total')} GB/s, below the {m.group('max')} GB/s of its best path to a NIC or another "
            "GPU (maxBw): NCCL plans its channels within the lower figure. ")
    if on_spark(spark_shown() or None):
        return [info(said + "On a GB10 (DGX Spark) NCCL reads the GPU's PCIe entry that low, as its GPU reaches memory "
                     "over C2C, not PCIe, and pairs still connect with it: a figure of NCCL's model, not a narrow link "
                     "in itself; the busbw of a run (all_reduce_perf) says whether it holds the pair back.")]
    return [info(said + "The GPU's PCIe link as it runs decides whether that is real: `nvidia-smi -q -d PCIE` (Link "
                 "Width and Generation, Current against Max) or `lspci -vv` LnkSta; a link trained narrow or slow caps "
                 "every transfer to and from the GPU.")]


def duplicate_gpus(log: NcclLog) -> list[Finding]:
    """Ranks of one communicator (one commId) whose ``Init START`` lines name one host's same GPU (busId): NCCL
    refuses that (``Duplicate GPU detected``, ncclInvalidUsage), whether or not the paste reaches its WARN line."""
    if not log.duplicate_gpus or any("Duplicate GPU" in w for w in (*log.warnings, *log.errors)):
        return []
    host, bus, ranks = log.duplicate_gpus[0]
    return [fail(f"Ranks {' and '.join(map(str, ranks))} of one communicator start on the same GPU (busId {bus} on "
                 f"{host}, one commId): NCCL refuses two ranks on one GPU (`Duplicate GPU detected`, invalid usage). "
                 "Each process has to select its own GPU before it creates the communicator (torch.cuda.set_device"
                 "(local_rank), or its own CUDA_VISIBLE_DEVICES), and a node runs no more ranks than it has GPUs: "
                 "a container or pod that sees one GPU cannot hold two ranks of it.")]


def many_hcas(log: NcclLog) -> list[Finding]:
    """One host's ``NET/IB : Using`` list longer than checks/specs/topologies.toml [host_rdma] many_devices: every port
    and virtual function of the host, not its fabric's NICs (NVIDIA/nccl#224: 34 RoCE devices on one host)."""
    from ..calc.specs import row
    host, hcas = max(log.ib_devices_by_host.items(), key=lambda kv: len(kv[1]), default=("", ()))
    if len(hcas) <= row("topologies.toml", "host_rdma").graded("many_devices"):
        return []
    names = ", ".join(h.device for h in hcas[:4])
    return [warn(f"NCCL lists {len(hcas)} RDMA devices{f' on {host}' if host else ''} ({names}, ...): more than a "
                 "server has NICs for its GPUs, so these are every port and virtual function the host exposes (SR-IOV "
                 "VFs, storage and management ports), cabled or not. NCCL spreads its channels over the devices it "
                 "lists, and one that cannot reach the peer hangs or fails the connection: set NCCL_IB_HCA to the "
                 "fabric's ports only (`ibdev2netdev` or `rdma link` shows which are up and where).")]


def topology_findings(log: NcclLog) -> list[Finding]:
    """What NCCL's topology dump says of the paths between GPUs (``GPU/50000 :GPU/0-ce000 (5/10.0/SYS)``): pairs across
    CPU sockets (SYS: every ring or tree over them crosses the CPU-to-CPU link, the slowest hop) warned, other pairs
    named; a GPU's NVLink to an NVSwitch (``+ NVL[160.0] - NVS/0``) said."""
    out: list[Finding] = []
    kinds: dict[str, list] = {}
    for pair, (kind, gbs) in log.gpu_paths.items():
        kinds.setdefault(kind, []).append((pair, gbs))
    nets, spanned = log.net_gbs, machines_spanned(log.nnodes, len(log.hosts)) or 0
    slow_net = bool(nets) and spanned > 1 and "SYS" in kinds and max(nets.values()) < min(g for _, g in kinds["SYS"])
    if nets and (slow_net or spanned > 1):  # nccl#601: four 10 GbE NICs, 1.25 GB/s each, under a 6 GB/s SYS path
        out.append(info(f"NCCL's topology reaches {len(nets)} network device(s) ({', '.join(list(nets)[:6])}) from "
                        "the GPUs at " + "/".join(f"{g:g}" for g in sorted(set(nets.values()))) + " GB/s each (= "
                        + "/".join(f"{g * 8:g}" for g in sorted(set(nets.values()))) + " Gb/s)" + (
                            ": between the machines the network is the slowest hop, slower than any path between the "
                            "GPUs inside one, so it sets the collectives' speed." if slow_net else ".")))
    if "SYS" in kinds:
        (a, b), gbs = kinds["SYS"][0]
        rest = "; ".join(f"{len(v)} through {k} ({max(g for _, g in v):g} GB/s)" for k, v in kinds.items() if k != "SYS")
        out.append((info if slow_net else warn)(f"NCCL's topology puts GPUs under different CPU sockets: {len(kinds['SYS'])} GPU pair(s) joined "
                        f"through SYS at {gbs:g} GB/s (e.g. {a}-{b}), the CPU-to-CPU link" + (f"; the others: {rest}" if
                                                                                           rest else "") + (". Inside each machine a ring over all of them crosses that link; across "
                        "machines the network above is slower still." if slow_net else ". A ring or "
                        "tree over all of them crosses that link, the slowest path, and sets their collectives' speed: "
                        "keep a tensor-parallel group on one socket's GPUs (`nvidia-smi topo -m` shows the layout).")))
    elif kinds:
        said = "; ".join(f"{len(v)} through {k} ({max(g for _, g in v):g} GB/s)" for k, v in kinds.items())
        out.append(info(f"NCCL's topology: GPU pairs {said} (NVL: NVLink; PIX/PXB: a PCIe switch; PHB: the CPU's PCIe "
                        "root)."))
    masks: dict[str, list[int]] = {}
    for gpu, mask in log.cpu_affinity.items():
        masks.setdefault(mask, []).append(gpu)
    if masks:
        said = "; ".join(f"GPU {', '.join(map(str, g))}: {m}" for m, g in list(masks.items())[:4])
        head = f"NCCL set its threads' CPU affinity per GPU (`Setting affinity for GPU N to <mask>`; {said}): "
        if len(masks) > 1:
            out.append(info(head + "each GPU's threads run on the CPUs near it (its NUMA node's, within the process's "
                            f"own CPU set): {len(masks)} different CPU sets, one per group of GPUs (a CPU socket or "
                            "NUMA node each)."))
        elif set(mask := next(iter(masks)).lower()) <= set("f,"):  # CPUs 0..N-1 (NCCL prints no leading zero word)
            out.append(info(head + f"the same set for all of them, CPUs 0-{4 * len(mask.replace(',', '')) - 1}: "
                            "either every CPU of the machine (one socket, or a VM that shows one NUMA node) or the "
                            "first NUMA node's; `lscpu` (its NUMA node0 CPU(s) line) tells which."))
        else:
            out.append(info(head + "each GPU's threads run on the CPUs near it, within the process's own CPU set: "
                            "the same CPU set for all of them, one NUMA node's, or every CPU the process may use."))
    if log.nvswitch_gbs:
        out.append(info(f"NCCL's topology shows the GPUs' NVLink to an NVSwitch (`NVL[{log.nvswitch_gbs:g}] - NVS`): "
                        "collectives inside the machine run over NVLink through the switch."))
    return out


def shm_hops(log: NcclLog, parts: list[str]) -> list[Finding]:
    """Channels of one machine where some hops go GPU to GPU (P2P) and others through host shared memory (SHM): the
    SHM hops (rank pairs) named, a warning, since each ring channel crosses them at host-memory speed (blind batch
    vq004: NVLink pairs 0-1 and 2-3, the ring's 1 -> 2 and 3 -> 0 over SHM). [] where NET is among ``parts`` (the
    machines' own hops) or no hop is SHM."""
    if sorted(parts) != ["P2P", "SHM"] or {"NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL"} & set(log.env_settings):
        return []  # (P2P turned off or limited by the environment: the SHM hops are the setting's)
    p2p = {frozenset((c.src_rank, c.dst_rank)) for c in log.channels if c.transport == "P2P"}  # (another run's, vq004's
    hops = sorted({(c.src_rank, c.dst_rank) for c in log.channels  # pair over P2P: break-it 28 F2)
                   if c.transport == "SHM" and frozenset((c.src_rank, c.dst_rank)) not in p2p})
    if not hops:
        return []
    said = ", ".join(f"{a} -> {b}" for a, b in hops[:8]) + (" ..." if len(hops) > 8 else "")
    return [warn(f"Some hops inside this machine go GPU to GPU (P2P) and others through host shared memory (SHM: {said}): "
                 "no P2P between those GPUs (NVLink joins only some pairs, or they sit under different CPUs or PCIe "
                 "roots), so every ring channel crosses them at host-memory speed and they cap its bandwidth. "
                 "`nvidia-smi topo -m` shows the path of each pair.")]
