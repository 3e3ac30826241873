"""Notes of the ``gpu`` judge that read one part of an nvidia-smi output each (grader.judges.gpu calls them):

- which NIC is nearest each GPU in ``nvidia-smi topo -m``, and what a GPU with every NIC at SYS means for GPUDirect
  RDMA (NCCL's environment variables, NCCL_NET_GDR_LEVEL: by default NCCL uses GPUDirect RDMA only when the NIC is
  close to the GPU, not across the CPU-to-CPU link; https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html);
- the plain table's header (the driver and the newest CUDA it runs: NVIDIA's CUDA compatibility guide,
  https://docs.nvidia.com/deploy/cuda-compatibility/), and most of a card's memory held while it idles (vLLM reserves
  ``gpu_memory_utilization`` of each card at start-up, https://docs.vllm.ai/en/latest/configuration/engine_args.html);
- a GPU with no NVLink among GPUs that NVLink joins all alike (an NVSwitch board): vllm-project/vllm#16336 (an 8x B200
  node whose GPU2 reads NODE/SYS to every other GPU while the rest read NV18).
"""

from __future__ import annotations

import re
from typing import Any

from .common import fail, info, on_spark, warn
from .model import Finding

HELD_SHARE = 0.8
"""The share of a card's memory above which an idle card holds "most" of it (a loaded model or a reserved pool)."""


def nearest_nics(t: Any) -> list[Finding]:
    """Each GPU's nearest NIC in the matrix (TopoMatrix.nearest_nics), in one sentence: PIX/PXB keep RDMA traffic off
    the CPU (GPUDirect RDMA), PHB/NODE/SYS cross it. A warning when every GPU's nearest NIC is SYS: no GPU can use
    GPUDirect RDMA by NCCL's default, so inter-node traffic is staged through host memory across the CPU link. Only
    where the GPUs share one home (NUMA node or CPU set): a NIC SYS to GPUs on both sockets sits on neither GPU's
    PCIe tree (a front-end NIC, or a VM that hides the tree), and moving it would not decide much."""
    nics = [d for d in t.devices if not d.startswith("GPU")]
    cut = [g for g in t.nearest_nics() if not all(t.link(g, n) for n in nics)]  # a row the paste cut: its nearest unknown
    nearest = {g: v for g, v in t.nearest_nics().items() if g not in cut}
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
    lopsided = _nics_on_one_side(nearest, gpu_homes(t), len(nics), t)
    if lopsided:
        return [lopsided]
    return [info(f"Nearest NIC of each GPU: {', '.join(near[:16])}. PIX/PXB: the NIC sits behind the GPU's own PCIe "
                 "switch, so RDMA between them (GPUDirect) stays off the CPU; PHB, NODE or SYS: that traffic crosses the "
                 "CPU." + (" Every GPU shown has a NIC behind its own PCIe switch: the layout GPUDirect RDMA wants: nothing "
                           "wrong in where the NICs sit." if all(c.startswith(("PIX", "PXB")) for _, c in nearest.values()) else "")
                 + (f" ({', '.join(cut)}: the row is cut before its NICs end, so its nearest NIC is not shown.)" if cut else "")
                 + _far_nics(t, nics, nearest))]


_NO_PXN_RE = re.compile(r"NCCL_PXN_DISABLE(?:=| set by environment to )1\b|NCCL version 2\.(?:\d|1[01])(?![\d])")


def _no_pxn() -> bool:
    """The paste's own NCCL runs without PXN: NCCL_PXN_DISABLE=1 (on the command line or NCCL's INFO line), or an
    `NCCL version` before 2.12 (PXN came in 2.12)."""
    from .context import context
    return bool(_NO_PXN_RE.search(context().paste or ""))


def _nics_on_one_side(nearest: dict, homes: tuple[dict, bool], n_nics: int, t: Any = None) -> Finding | None:
    """A warning where several NICs all sit on one socket: the GPUs of one home (NUMA node or CPU set) reach a NIC at
    PIX to NODE, those of every other home have every NIC at SYS, so the other socket's GPUs send their inter-node
    traffic across the CPU-to-CPU link, without GPUDirect RDMA by NCCL's default (NVIDIA/nccl#634: 4 GPUs, GPU2/GPU3
    on NUMA 1 SYS to all four HCAs, GPU0/GPU1 NODE). None with one NIC (it cannot sit on both sockets), with NICs near
    GPUs of two homes or more (spread already: NCCL forwards the rest over NVLink), or where homes are not shown. A
    note where every far GPU has NVLink (NV#) to a GPU at PIX/PXB from a NIC: NCCL 2.12+'s PXN sends its data over
    NVLink to that GPU and out of its NIC, with GPUDirect RDMA, so nothing crosses the CPU-to-CPU link (nccl#634's
    relay GPUs are NODE from the HCAs, no GDR by default: the warning stays). The warning also where the paste's NCCL
    has no PXN (NCCL_PXN_DISABLE=1, a version before 2.12)."""
    where, numa = homes
    far = [g for g, (_, code) in nearest.items() if code.startswith("SYS")]
    close = [g for g in nearest if g not in far]
    if n_nics < 2 or not far or not close or any(where.get(g) is None for g in nearest):
        return None
    far_homes, close_homes = {where[g] for g in far}, {where[g] for g in close}
    if len(close_homes) != 1 or far_homes & close_homes:
        return None
    home = "NUMA node" if numa else "CPUs"
    via = {g: next((c for c in close if (t.link(g, c) or "").startswith("NV") and nearest[c][1].startswith(
        ("PIX", "PXB"))), None) for g in far} if t else {}  # (a relay GPU at NODE from its NIC has no GDR either)
    if via and all(via.values()) and not _no_pxn():
        return info(f"All {n_nics} NICs sit on one CPU socket: {', '.join(far[:8])} ({home} "
                    f"{', '.join(sorted(map(str, far_homes)))}) have every NIC at SYS, but each has NVLink to a GPU "
                    f"near one ({', '.join(f'{g}-{c} {t.link(g, c)}' for g, c in list(via.items())[:4])}): NCCL 2.12 "
                    "and later (PXN, on by default; NCCL_PXN_DISABLE=1 turns it off) moves their inter-node data over "
                    "NVLink to that GPU and sends it from its NIC with GPUDirect RDMA, so it does not cross the "
                    f"CPU-to-CPU link. What the layout limits is bandwidth: {n_nics} NIC port(s) serve "
                    f"{len(nearest)} GPUs.")
    return warn(f"All {n_nics} NICs sit on one CPU socket: {', '.join(far[:8])} ({home} "
                f"{', '.join(sorted(map(str, far_homes)))}) have every NIC at SYS, while {', '.join(close[:8])} "
                f"({home} {', '.join(map(str, close_homes))}) have one nearer "
                f"({', '.join(f'{g}: {nearest[g][0]} {nearest[g][1]}' for g in close[:4])}). The other socket's GPUs "
                "send their inter-node traffic across the CPU-to-CPU link, and NCCL does not use GPUDirect RDMA (GDR) "
                "at SYS distance by default (NCCL_NET_GDR_LEVEL), so it is staged through host memory: slower, and "
                "shared with the first socket's traffic. Only multi-node work pays it; for that, move a NIC to a slot "
                "of the other socket.")


def _far_nics(t: Any, nics: list[str], nearest: dict) -> str:
    """The NICs SYS from every GPU shown while each GPU has a nearer one (ucx-py#638: GPU0 PIX to mlx5_0/mlx5_1, SYS to
    mlx5_2): a job pinned to one sends GPU data across the CPU-to-CPU link."""
    far = [n for n in nics if n not in {v[0] for v in nearest.values()} and all(
        (t.link(g, n) or "").startswith("SYS") for g in nearest)]
    if not far or any(code.startswith("SYS") for _, code in nearest.values()):
        return ""
    return (f" {', '.join(far[:4])} {'is' if len(far) == 1 else 'are'} SYS from every GPU (across NUMA nodes): a "
            "job pinned to it (NCCL_IB_HCA, UCX_NET_DEVICES) sends GPU data across the CPU-to-CPU link (QPI/UPI), "
            "slower than the nearest NIC above.")


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


PASSIVE_BOARD = re.compile(r"\b(?:Tesla|[ABHL]\d{1,3}[GSX]?|GH\d{3}|T4|V100|P100|P40|P4|K80|M40|M60)\b")
"""Data-centre boards (Tesla, A100/H100/L40/T4 ...): passively cooled, no fan of their own (the server's fans cool
them), so nvidia-smi has no fan to read (NVIDIA's data sheets: "Thermal solution: Passive", e.g. the Tesla P40's,
https://images.nvidia.com/content/pdf/tesla/184427-Tesla-P40-Datasheet-NV-Final-Letter-Web.pdf)."""


def no_memory_figure(index: Any, name: str, said: str) -> str:
    """What a GPU memory cell with no figure means: on a GB10 (or any card of unified memory) it is normal."""
    if "GB10" in name.upper():
        return (f"GPU{index} ({name}): {said}, as on every GB10: the GPU has no memory of its own, it shares the "
                "Spark's unified memory with the CPU, so nvidia-smi has no memory figure to give for it. Read the memory "
                "with `free -h`, and per process in nvidia-smi's process table.")
    return (f"GPU{index}: {said}: no memory figure from this card/driver; on a GPU of unified memory (a GB10) "
            "that is normal, read `free -h`.")


def unavailable_fields(q: Any, gpus: list[dict]) -> list[Finding]:
    """The ``--query-gpu`` fields nvidia-smi printed as ``[N/A]``/``[Not Supported]``, said once per output for all
    the rows alike (a field the board or driver does not report, not a fault): memory ones mean unified memory on a
    GB10; fan.speed on a data-centre board means no fan of its own (cooled by the chassis). A row without an index
    column is named by its position (nvidia-smi lists the GPUs in index order)."""
    groups: dict[tuple, list[tuple[Any, str]]] = {}
    for pos, (row, g) in enumerate(zip(q.rows, gpus)):
        na = tuple(k for k in q.fields if row.unavailable(k))
        if na:
            said = sorted({row.unavailable(k) or "" for k in na})
            groups.setdefault((na, " / ".join(said)), []).append(
                (pos if row.index is None else row.index, g.get("name") or ""))
    out: list[Finding] = []
    for (na, said), cards in groups.items():
        if any(k.startswith("memory.") for k in na):
            out += [info(no_memory_figure(i, name, f"{', '.join(na)} {said}")) for i, name in cards[:4]]
            continue
        names = sorted({n for _, n in cards if n})
        label = (f"GPU{cards[0][0]}" if len(cards) == 1 else f"All {len(cards)} GPUs" if len(cards) == len(q.rows)
                 else ", ".join(f"GPU{i}" for i, _ in cards[:8]) + ("..." if len(cards) > 8 else "")) + \
            (f" ({', '.join(names)})" if names else "")
        why = "a field nvidia-smi cannot read on this board or driver, not a fault in itself"
        if na == ("fan.speed",) and names and all(PASSIVE_BOARD.search(n) for n in names):
            why = ("as expected on a passively cooled data-centre board: it has no fan of its own (the chassis fans "
                   "cool it), so there is no fan speed to read. Not a fault, nothing wrong with the GPU")
        out.append(info(f"{label}: {', '.join(na)} {said}: {why}."))
    return out


def table_all_well(t: Any, findings: list[Finding]) -> list[Finding]:
    """The plain table read with nothing to warn of: said plainly, of what was read (the cards visible, the driver
    answering, their power, memory and processes), not of what the table does not show (the PCIe link, Xid errors)."""
    if not t.gpus or t.truncated or any(f.level in ("warn", "fail") for f in findings):
        return []
    cards = ", ".join(f"GPU{g.index} ({g.name})" for g in t.gpus[:4]) + (", ..." if len(t.gpus) > 4 else "")
    n = len(t.gpus)
    cards = cards if n == 1 else ("both GPUs, " if n == 2 else f"all {n} GPUs, ") + cards + ","
    return [info(f"nvidia-smi runs and {cards} " + ("is" if n == 1 else "are") + " visible: the driver is "
                 "loaded and answers; the power, memory and process figures read here are normal, nothing wrong in them."
                 + table_activity(t))]


BUSY_PCT = 50
"""GPU-Util (%) from which a card of the plain table is said busy; from 10% (grader.facts.lesson3.is_idle) to this it
is "in use" (a snapshot's utilisation flickers: a desktop's compositor, a server between tokens)."""


def _load(g: Any) -> str | None:
    """``busy`` (GPU-Util from BUSY_PCT), ``in use`` (from 10%), ``idle`` (below 10%, or no utilisation figure and a
    P-state of P5 or lower power), None where the row cannot tell (no utilisation figure at P0-P4)."""
    util, ps = g.utilization_pct, g.perf_state or ""
    if util is not None:
        return "busy" if util >= BUSY_PCT else "in use" if util >= 10 else "idle"
    return "idle" if ps[:1] == "P" and ps[1:].isdigit() and int(ps[1:]) >= 5 else None


def _cells(gs: list) -> str:
    """The P-states and GPU-Util figures of some GPUs, in a few words (``P8, 0% GPU-Util``; ranges where they differ)."""
    states = sorted({g.perf_state for g in gs if g.perf_state}, key=lambda p: (len(p), p))
    utils = sorted({g.utilization_pct for g in gs if g.utilization_pct is not None})
    said = ["/".join(states)] if states else []
    said += [f"{utils[0]}{'-' + str(utils[-1]) if len(utils) > 1 else ''}% GPU-Util"] if utils else []
    return ", ".join(said)


def table_activity(t: Any) -> str:
    """What the plain table says of the GPUs' load and processes, as a clause of :func:`table_all_well`: idle (GPU-Util
    below 10%, or P8 without a figure) or busy, each with its P-state and utilisation, and the processes (none running,
    those listed, or no process table in the paste)."""
    load = {g.index: _load(g) for g in t.gpus}
    groups = [(word, [g for g in t.gpus if load[g.index] == word]) for word in ("busy", "in use", "idle")]
    groups = [(word, gs) for word, gs in groups if gs]
    every = "" if len(t.gpus) == 1 else "Both " if len(t.gpus) == 2 else "All "
    if len(groups) == 1 and len(groups[0][1]) == len(t.gpus):
        said = f" {every or 'The GPU is '}{groups[0][0]} ({_cells(groups[0][1])})"
    else:
        said = " " + "; ".join(f"{', '.join(f'GPU{g.index}' for g in gs[:8])} {word} ({_cells(gs)})"
                               for word, gs in groups) if groups else ""
    if t.no_processes:
        return said + (", no" if said else " No") + " processes running."
    if t.processes:
        names = list(dict.fromkeys(p.name for p in t.processes))
        return said + (", " if said else " ") + f"{len(t.processes)} process(es) listed ({', '.join(names[:4])}" \
            f"{', ...' if len(names) > 4 else ''})."
    return said + ("; t" if said else " T") + "he process table is not in the paste."


def na_cells(t: Any) -> list[Finding]:
    """The plain table's power draw or GPU-Util cells (and power cap) that read ``N/A`` on every GPU read whole (not ``ERR!``, a
    sensor NVML failed to read): fields the board does not report to NVML, as GeForce boards of older generations (a
    GTX 690: nvidia-docker#206) do not; nothing wrong with the GPU, though tools that need the field (a monitoring
    exporter, nvidia-docker's plugin) show a gap or stop on it."""
    rows = [g for g in t.gpus if g.perf_state is not None]
    cells = [name for name, get, key in (("power draw", lambda g: g.power_draw_w, "power draw"),
                                         ("power cap", lambda g: g.power_cap_w, "power cap"),
                                         ("GPU-Util", lambda g: g.utilization_pct, "util"))
             if rows and all(get(g) is None and key not in g.unread for g in rows)]
    if "power draw" not in cells:  # (a GB10's power cap alone is every GB10's; GPU-Util alone is MIG mode's N/A)
        return []
    names = sorted({g.name for g in rows})
    return [info(f"{'GPU' + str(rows[0].index) if len(rows) == 1 else ', '.join(f'GPU{g.index}' for g in rows[:8])} "
                 f"({', '.join(names[:3])}): {', '.join(cells[:-1]) + ' and ' if len(cells) > 1 else ''}{cells[-1]} read N/A: "
                 f"{'a field' if len(cells) == 1 else 'fields'} this board does not report to the driver's NVML (older "
                 "and GeForce boards often do not), normal for such a card, not a fault; a tool that needs "
                 f"{'it' if len(cells) == 1 else 'them'} (a monitoring exporter, a container runtime's plugin) shows "
                 "a gap or stops on it.")]


def _gpu_key(g: str) -> int:
    return int(re.sub(r"\D", "", g) or 0)


def topo_layout(t: Any, findings: list[Finding], pcie_view: bool) -> list[Finding]:
    """``topo -m`` with nothing to warn of, said as a whole in one sentence: how the GPUs are joined (NVLink between
    every pair, NVLink pairs beside PCIe ones, or PCIe only) and where the NICs sit (one behind each GPU's own PCIe
    switch: the layout NCCL's GPUDirect RDMA wants, NCCL_NET_GDR_LEVEL's default), then the verdict: an all-NVLink
    node is a sound layout; PCIe paths are how the machine is built, not a fault. Of the rows shown where the paste
    is cut (said so); nothing for the PCIe-only view (``-mp``: NVLink left out), a single GPU, or two GPUs and no NIC."""
    from ..parsers.nvidia_smi import link_family
    pairs = [(a, b, c) for a, b, c in t.gpu_pairs() if c]
    nics = [d for d in t.devices if not d.startswith("GPU")]
    if pcie_view or not pairs or len(pairs) == 1 and not nics or any(f.level in ("warn", "fail") for f in findings):
        return []  # (one pair and no NIC: the pair's own sentence is the whole layout)
    shown = [g for g in t.gpus if any((g, o) in t.links for o in t.devices if o != g)]  # the GPU rows in the paste
    nearest = {g: v for g, v in t.nearest_nics().items() if g in shown and all(t.link(g, n) for n in nics)}
    nv = [(a, b, c) for a, b, c in pairs if link_family(c) == "NV"]
    whose = f"the {len(shown)} GPUs whose rows are shown" if t.truncated else "both GPUs" if len(shown) == 2 else \
        f"all {len(shown)} GPUs"
    every = " (every pair shown)" if t.truncated else "" if len(shown) == 2 else " (every pair)"
    near = bool(nearest) and len(nearest) == len(shown) and all(c.startswith(("PIX", "PXB")) for _, c in nearest.values())
    if near:
        own = len({nic for nic, _ in nearest.values()}) == len(nearest)
        nic = (", one NIC per GPU behind the GPU's own PCIe switch" if own else
               ", each GPU with a NIC behind its PCIe switch") + f" ({'/'.join(sorted({c for _, c in nearest.values()}))}" \
            + ("" if own else "; some NICs shared by two GPUs") + ")"
    else:
        nic = ""
    if len(nv) == len(pairs):
        far = bool(nics) and not near
        said = (f"{whose[0].upper()}{whose[1:]} are NVLink-connected{every}{nic}: a sound"
                + ("" if far else ", healthy") + " layout for tensor parallelism inside the node"
                + (" and for GPUDirect RDMA across nodes" if near else "")
                + ("; the NICs are further from the GPUs (see each GPU's nearest NIC above), which only traffic to "
                   "other nodes pays" if far else "") + ".")
    elif nv:
        said = (f"NVLink joins {', '.join(f'{a}-{b}' for a, b, _ in nv[:6])}; the other pairs "
                f"of {whose} go over PCIe{nic}: how the bridges are fitted, not a fault; keep a tensor-parallel "
                "group on NVLinked cards where it fits.")
    else:
        order = ("PIX", "PXB", "PHB", "NODE", "SYS", "SOC")
        fams = sorted({link_family(c) for _, _, c in pairs}, key=lambda f: order.index(f) if f in order else 9)
        said = (f"{whose[0].upper()}{whose[1:]} are joined over PCIe only ({', '.join(fams)}){nic}: the PCIe paths are "
                "how the machine is built, not a fault in themselves; `nvidia-smi topo -p2p r` tells whether "
                "peer-to-peer is allowed over them.")
    cut = " Of the rows shown only: the rest of the matrix is cut off." if t.truncated else ""
    return [info(f"Layout: {said}{nic_port_pairs(t)}{cut}")]


def compute_p2(g: Any, rec: dict[str, Any]) -> list[Finding]:
    """``nvidia-smi -q`` of a busy GPU (not idle by :func:`grader.facts.lesson3.is_idle`) in P2: the P-state the driver
    of GeForce and workstation cards runs CUDA work in, with the memory clock below P0's (NVIDIA's driver policy, the
    "CUDA - Force P2 State" profile setting). An info: expected, not a fault, though memory-bound work pays a little."""
    if (g.get("Performance State") or "").strip() != "P2" or rec.get("idle") is not False:
        return []
    return [info(f"GPU {g.bus_id}: busy in P2, the compute P-state: the driver of GeForce and workstation cards runs "
                 "CUDA work in P2, with a lower memory clock than P0 (its `CUDA - Force P2 State` policy). Expected, "
                 "not a fault; memory-bound work runs a little slower for it. Data-center GPUs run compute in P0.")]


def mixed_models(names: list[str]) -> list[Finding]:
    """GPUs of more than one model in one machine's list: tensor parallel gives each card an equal share of every
    layer, so the slowest card (and its link) sets the pace and the smallest card's memory sets each share (vLLM's
    tensor parallelism, https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html); a layer split can weight the
    cards (llama.cpp's --tensor-split). An info: a design choice, not a fault."""
    models = list(dict.fromkeys(n.strip() for n in names if n and n.strip()))
    if len(models) < 2:
        return []
    return [info(f"Mixed GPU models ({', '.join(models[:4])}): tensor parallel gives each card an equal share, so it "
                 "runs at the pace of the slowest card and its link, with each share held to the smallest card's "
                 "memory; a layer split (llama.cpp's --tensor-split) can weight the cards instead.")]


def nvlink_capabilities(g: Any) -> list[Finding]:
    """``nvidia-smi nvlink -c``: what each link of a GPU can do (P2P, system memory access, atomics), not whether it is
    up. An info: the links whose P2P is supported, and that the flags false on working parts (``SLI is supported``,
    ``Link is supported``, false on SXM2 V100s with every link up: https://github.com/m4rs-mt/ILGPU/issues/378) are no
    link state; ``nvidia-smi nvlink -s`` gives the state and speed."""
    caps = getattr(g, "capabilities", ())
    if not caps:
        return []
    links = sorted({n for n, _, _ in caps})
    p2p = sorted({n for n, what, v in caps if v and what.lower().startswith("p2p is supported")})
    p2p_no = sorted({n for n, what, v in caps if not v and what.lower().startswith("p2p is supported")})
    off = sorted({what for _, what, v in caps if not v and not what.lower().startswith("p2p")})
    said = (f"P2P is supported on link(s) {', '.join(map(str, p2p))}" if p2p else "P2P is supported on no link shown") \
        + (f", not on {', '.join(map(str, p2p_no))}" if p2p_no else "")
    return [info(f"GPU {g.index} ({g.name}): NVLink capabilities of link(s) {', '.join(map(str, links))} (as shown): "
                 f"{said}." + (f" {' and '.join(f'`{w}`' for w in off[:4])} read false: capability flags, false on "
                               "many working cards, not a link down." if off else "")
                 + " Capabilities say nothing of whether a link is up or its speed: `nvidia-smi nvlink -s` shows that.")]


def lone_without_nvlink(t: Any) -> list[Finding]:
    """``topo -m``'s GPUs of which one (or a few) has no NVLink to any other GPU while the other three or more are all
    joined by the same NV# (an NVSwitch baseboard gives every GPU the same links): that GPU's NVLinks are down or it
    is out of the NVLink fabric, unless it is a different card."""
    from ..parsers.nvidia_smi import link_family
    gpus = t.gpus
    shown = {g: [t.link(g, o) for o in gpus if o != g] for g in gpus}
    lone = [g for g, links in shown.items() if links and all(links) and not any(link_family(c) == "NV" for c in links)]
    rest = [g for g in gpus if g not in lone]
    codes = {t.link(a, b) for i, a in enumerate(rest) for b in rest[i + 1:]} - {None}
    if not lone or len(rest) < 3 or len(lone) * 4 > len(gpus) or len(codes) != 1 or link_family(next(iter(codes))) != "NV":
        return []
    code, paths = next(iter(codes)), sorted({c for g in lone for c in shown[g]})
    names = ", ".join(lone)
    return [fail(f"{names} {'has' if len(lone) == 1 else 'have'} no NVLink to any GPU ({'/'.join(paths)} to each), "
                 f"while the other {len(rest)} are all {code} with each other, as on an NVSwitch board where every "
                 f"GPU has the same NVLinks: {names}'s NVLinks are down or it is out of the NVLink fabric (NVIDIA "
                 "Fabric Manager), unless it is a different card. Its traffic to the others goes over PCIe and the "
                 "CPU, so tensor parallelism across it fails or crawls. Check `nvidia-smi nvlink -s`, `nvidia-smi -q` "
                 "(its Fabric state), the nvidia-fabricmanager service and `dmesg` (Xid, NVLink errors); then reset "
                 "the GPU or reboot.")]


def display_gpus(t: Any) -> list[Finding]:
    """The GPUs of the plain table whose Disp.A is ``On`` (a display initialised on them: they drive a monitor), said
    where the table has several GPUs (one driving the desktop is then told from the headless ones): an info."""
    on = [g for g in t.gpus if g.display_active == "On"]
    if not on or len(t.gpus) < 2:
        return []
    names = ", ".join(f"GPU{g.index}" for g in on)
    rest = ", ".join(f"GPU{g.index}" for g in t.gpus if g.display_active != "On")
    return [info(f"{names} drive{'s' if len(on) == 1 else ''} a display (Disp.A On): the desktop (its X or Wayland "
                 "session, compositor, browser) takes some of that card's memory and time, so it has a little less "
                 "free than " + (f"the headless {rest}" if rest else "a headless card") + " and its fan and clocks "
                 "may stay up while nothing else runs; expected on a desktop, not a fault.")]


SMALL_SHARE = 0.75
"""A card whose memory is below this share of the largest card's in the same table leaves a real part of the larger
card idle under tensor parallel (a wording threshold, not a catalogue figure: it turns the note into a warn)."""


def mixed_table(t: Any) -> list[Finding]:
    """The plain table with GPUs of more than one model (corpus wj017, openchat#117: an RTX 4090 of 24 GB beside an
    RTX 4060 Ti of 16 GB): said as :func:`mixed_models` does; where the smaller card's memory is well below the
    larger's, a warn with the figures, since tensor parallel holds every share to the smaller card and that card paces
    every step (https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html)."""
    sized = [g for g in t.gpus if g.memory_total_mib]
    if len({g.name.strip() for g in t.gpus}) < 2:
        return []
    small = min(sized, key=lambda g: g.memory_total_mib) if sized else None
    big = max(sized, key=lambda g: g.memory_total_mib) if sized else None
    if not small or small.memory_total_mib >= SMALL_SHARE * big.memory_total_mib or small.display_active == "On":
        return mixed_models([g.name for g in t.gpus])  # (a small card driving the display is the desktop's, not TP's)
    return [warn(f"Mismatched GPUs: GPU{big.index} ({big.name}, {big.memory_total_mib} MiB) beside GPU{small.index} "
                 f"({small.name}, {small.memory_total_mib} MiB). Tensor parallel splits every layer evenly, so each "
                 f"share must fit the smaller card's {small.memory_total_mib} MiB, leaving the rest of GPU{big.index} "
                 f"unused, and whichever card is slower paces every step; a layer split that weights the cards "
                 "(llama.cpp's --tensor-split) or the larger card alone may serve better.")]


def wsl_driver(t: Any) -> list[Finding]:
    """The plain table whose nvidia-smi version differs from its driver's (``NVIDIA-SMI 545.29.04  Driver Version:
    546.17``): on a Linux host the two come from one driver (a mismatch stops nvidia-smi with `Driver/library version
    mismatch`), so a table printed this way is a Linux nvidia-smi speaking to a Windows driver, as under WSL2
    (corpus wj017). An info, hedged: what it means for peer-to-peer between the GPUs. Drivers of 2013-2014 printed
    their nvidia-smi as a prefix and the driver's own number (``NVIDIA-SMI 5.325.15  Driver Version: 325.15``, blind
    batch wy005): one driver, no mismatch."""
    if not t.smi_version or not t.driver_version or t.smi_version == t.driver_version \
            or t.smi_version.endswith("." + t.driver_version):
        return []
    return [info(f"nvidia-smi {t.smi_version} reports driver {t.driver_version}: a Linux nvidia-smi on a Windows "
                 "driver, which is what WSL2 (Windows Subsystem for Linux) shows; the Windows driver serves the GPUs "
                 "to the Linux guest." + (" Under WSL2 direct peer-to-peer between the GPUs is typically not "
                 "available, so what they exchange (tensor parallel's all-reduce) goes through host memory."
                 if len(t.gpus) > 1 else ""))]


_GEN3_ON_RE = re.compile(r"\b(?:[ABHL]\d{1,3}S?|[BG]B?\d{3}|V100|P100|P40|P4|T4|K40|K80|M[146]0|RTX|GTX 1\d{3}|TITAN [VXR]|Quadro [A-Z]{0,2}\d{4})\b")
"""Cards that are PCIe Gen3 or later by their name though checks/specs/gpus.toml (desktop cards) has no row for them:
data-center Pascal and later (A100, H100, L40S, T4, V100, P100, B200), Maxwell's M10/M40/M60, Kepler's K40/K80, RTX, GTX 10xx and later."""


def links_not_known(names: Any) -> list[str]:
    """The cards of ``names`` not known to have a link of Gen3 x8 or more (grader.calc.pcie.p2p_floor_gbs's link):
    not in checks/specs/gpus.toml and not Gen3 or later by their name (:data:`_GEN3_ON_RE`), or a row there below it."""
    from ..calc.specs import match_gpu
    specs = {n: match_gpu(n) for n in dict.fromkeys(names)}
    return [n for n, spec in specs.items() if (spec is None and not _GEN3_ON_RE.search(n)) or spec is not None
            and ((spec.graded("pcie_gen") or 0) < 3 or (spec.graded("pcie_lanes") or 0) < 8)]


def p2p_rate_alone(said: str, rate: float, way: str, fits: str | None, names: Any = ()) -> list[Finding]:
    """p2pBandwidthLatencyTest's (or busGrind's) P2P=Enabled matrices with no P2P=Disabled one to compare: the fastest
    pair's copy (one way, or both ways together: twice the link) against the least a compute GPU's link carries
    (grader.calc.pcie.p2p_floor_gbs): below it, an x4 slot or the path between the cards holds P2P back, and which
    is told by each card's LnkSta and the test's P2P=Disabled matrices (a hedged warning). Where the test names its
    cards and one is not in checks/specs/gpus.toml (its own link unknown: an older card's PCIe Gen2 x16 carries about
    that floor), or its own link there is below the floor's, a note naming the card's own link as the first check."""
    from ..calc.pcie import p2p_floor_gbs, practical_bandwidth
    carries = f": what a {fits} link carries" if way == "uni" and fits else ""
    floor = p2p_floor_gbs()
    if floor is None or rate >= floor * (2 if way == "bi" else 1):
        return [info(f"Copies {said}{carries}.")]
    unknown = links_not_known(names)
    if unknown:
        low, high = practical_bandwidth(2, 16)
        return [info(f"Copies {said}{carries}: below what a Gen3 x8 link carries ({floor:.1f} GB/s each way), but "
                     f"the link {', '.join(unknown[:2])} itself has is not known here: an older card's PCIe Gen2 x16 "
                     f"carries {low:.1f}-{high:.1f} GB/s, so there this is its full link, not a fault. Its LnkCap and "
                     "LnkSta (`sudo lspci -vv -d 10de: | grep -E \"LnkCap|LnkSta\"`) say which generation and width it "
                     "has and runs; if Gen3 or later, the path between the cards holds P2P back (ACS, the IOMMU).")]
    return [warn(f"Copies {said}{carries}: slow for P2P between two compute GPUs, whose links carry more than "
                 f"{floor:.1f} GB/s each way even at x8. Unless the cards sit in x4 slots (a chipset slot, a riser, "
                 "an eGPU), the path between them holds P2P back (a host bridge that relays peer traffic slowly, ACS "
                 "or the IOMMU). Each card's LnkSta (`sudo lspci -vv -d 10de: | grep LnkSta`) and the test's "
                 "P2P=Disabled matrices (copies through host memory) say which.")]


_PEER_YES_RE = re.compile(r"^> Peer access from [^\n]{1,120}\(GPU(\d{1,2})\) -> [^\n]{1,120}\(GPU(\d{1,2})\) : Yes", re.M)


_TOPO_ROW_RE = re.compile(r"^GPU\d{1,2}\s{1,8}X\b|^\s{0,8}GPU0\s{1,8}GPU1\b")
_COPY_RE = re.compile(r"^cudaMemcpyPeer / cudaMemcpy between GPU\d{1,2} and GPU\d{1,2}: (?P<gbs>\d{1,6}(?:\.\d{1,4})?) ?GB/s", re.M)
_COUNT_RE = re.compile(r"^CUDA-capable device count: (\d{1,3})", re.M)


def p2p_proven(gpus: int = 2) -> bool:
    """Whether CUDA samples' simpleP2P, in the same paste (its first 2,000 lines), found peer access both ways between
    two GPUs and verified the data it copied (``Test passed``): P2P then works across whatever path the topology
    matrix shows (the field corpus's h019: two L4 on NUMA nodes 0 and 2, SYS, 19.87 GB/s and Test passed). Only a
    run of the matrix's machine (the same prompt host as the matrix's) with as many GPUs as it (``gpus``), whose copy
    reached what a Gen3 x8 link carries (grader.calc.pcie.p2p_floor_gbs): a verified copy at 2 GB/s works but is the
    slow path the matrix warns of (NCCL keeps P2P off across SYS by default)."""
    from ..calc.pcie import p2p_floor_gbs
    from ..parsers.common.chunks import split_chunks
    from .common import head_lines
    from .context import context
    chunks = split_chunks("\n".join(head_lines(context().paste or "", 2000)))
    topo_hosts = {c.host for c in chunks if any(_TOPO_ROW_RE.match(line) for line in c.lines)}
    floor = p2p_floor_gbs()
    for c in chunks:
        body = "\n".join(c.lines)
        found = _PEER_YES_RE.findall(body)
        if len(found) < 2 or len({tuple(sorted(m)) for m in found}) != 1 or not re.search(r"^Test passed", body, re.M):
            continue
        count, copy = _COUNT_RE.search(body), _COPY_RE.search(body)
        if (not topo_hosts or c.host in topo_hosts) and (count is None or int(count[1]) == gpus) \
                and (copy is None or floor is None or float(copy["gbs"]) >= floor):
            return True
    return False



_GEFORCE_RE = re.compile(r"GeForce|TITAN", re.IGNORECASE)


def no_p2p_level(names: list[str], staged: dict) -> tuple[Any, str]:
    """How p2pBandwidthLatencyTest's "no pair can access its peer" reads (the level and the sentence's tail): cards
    other than GeForce offer P2P, so its absence warns; GeForce cards on the stock driver offer none, which is no fault
    in itself (corpus zj013, zg009, zc020): a warn only where the test's ``staged`` one-way rates (P2P=Disabled) show
    the path through host memory slow, under checks/specs/pcie.toml [p2p_staged] of the cards' link (x001, zj014)."""
    from ..calc.pcie import p2p_staged_floor
    from ..calc.specs import match_gpu
    slow = ": for tensor parallel over these cards that is the slow path, every all-reduce through the CPU."
    if not names or not all(_GEFORCE_RE.search(n) for n in names):
        return warn, slow
    specs = [match_gpu(n) for n in names]
    links = [(int(s.graded("pcie_gen")), int(s.graded("pcie_lanes"))) if s and s.graded("pcie_gen")
             and s.graded("pcie_lanes") else None for s in specs]
    floor = p2p_staged_floor(links)
    rate = max(staged.values()) if staged else None
    if rate is not None and floor is not None and rate < floor[0]:
        return warn, (f", and that path is slow here: at most {rate:.2f} GB/s one way, under the {floor[0]:.1f} "
                      f"GB/s or more that staged copies reach over a sound {floor[1]} link. The platform holds it "
                      "back (the CPU's path between the cards' root ports, a VM); tensor parallel over these cards "
                      "pays it on every all-reduce.")
    said = (f" ({rate:.2f} GB/s one way is what staged copies reach over their {floor[1]} link)"
            if rate is not None and floor is not None else "")
    return info, (f": expected of these cards, not a fault{said}. Tensor parallel over them pays the trip through host "
                  "memory on every all-reduce; layer split (llama.cpp) or pipeline parallel pays it far less."
                  + ("" if rate is not None else " How fast that path is, p2pBandwidthLatencyTest's P2P=Disabled matrices say."))


def nic_port_pairs(t: Any) -> str:
    """The NICs of ``topo -m`` that are PIX to each other (nvidia-smi's legend: at most one PCIe bridge between them),
    said as one card's ports or cards under one switch; "" where none are."""
    nics = [d for d in t.devices if not d.startswith("GPU")]
    pairs = [f"{a}-{b}" for i, a in enumerate(nics) for b in nics[i + 1:] if (t.link(a, b) or "").startswith("PIX")]
    return (f" {', '.join(pairs[:8])}{', ...' if len(pairs) > 8 else ''} PIX to each other: at most one PCIe bridge apart, "
            "the two ports (functions) of one card, or two cards under one PCIe switch." if pairs else "")


def one_gpu_layout(t: Any, findings: list[Finding]) -> list[Finding]:
    """``topo -m`` of one GPU with NICs and nothing to warn of, said as a whole: no GPU pair to judge, where the NICs
    sit from the GPU and which NICs are one card's ports; a DGX Spark's (the GB10 and the ConnectX-7's four functions,
    two ports on each of two PCIe halves) said as that machine's own layout. Nothing for several GPUs or no NIC."""
    nics = [d for d in t.devices if not d.startswith("GPU")]
    if len(t.gpus) != 1 or not nics or any(f.level in ("warn", "fail") for f in findings):
        return []
    gpu = t.gpus[0]
    codes = sorted({c for c in (t.link(gpu, n) for n in nics) if c})
    if not codes:
        return []
    spark = on_spark(None) and len(nics) == 4
    return [info(f"Layout: one GPU and {len(nics)} NIC port(s), {gpu} reaching them at {'/'.join(codes)}."
                 + nic_port_pairs(t)
                 + (" This is a DGX Spark's layout as built: the GB10 and the ConnectX-7's two QSFP ports, each seen "
                    "twice (two PCIe halves); nothing wrong in this matrix." if spark else
                    " How the machine is built, not a fault: with one GPU there is no GPU-to-GPU path to judge."))]


def staged_latency(lat_off: dict[tuple[int, int], float], cannot: list[tuple[int, int]]) -> list[Finding]:
    """p2pBandwidthLatencyTest: pairs without P2P whose copies staged through host memory take longer to start than
    checks/specs/pcie.toml [p2p_staged_latency] high_us (what the field's Linux machines stay within): a warning, with what
    adds the time (Windows' driver model, a VM) and what pays it (every small transfer between the cards)."""
    from ..calc.pcie import p2p_staged_latency_high_us
    high = p2p_staged_latency_high_us()
    slow = {k: v for k, v in lat_off.items() if k in cannot and high is not None and v > high}
    if not slow:
        return []
    return [warn(f"Copies between the cards through host memory take {min(slow.values()):.1f}-{max(slow.values()):.1f} "
                 f"µs to start ({', '.join(f'GPU{a}-GPU{b}' for a, b in sorted(slow)[:4])}), more than the {high:g} µs "
                 "within which staged copies start on the field's Linux machines (checks/specs/pcie.toml "
                 "[p2p_staged_latency]): "
                 "the host adds the time (Windows' WDDM driver model, or a VM's virtualised devices). Bandwidth for "
                 "big copies is unaffected, but every small transfer between the cards pays it: tensor parallel's "
                 "per-layer all-reduce in token generation most; a layer split (llama.cpp's default) pays it far less.")]
