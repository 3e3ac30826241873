"""More of ``nvidia-smi topo -m`` read (judges/gpu.py, at its size limit, calls these): where every GPU hangs off one
NUMA node of the CPU, which the matrix's own CPU and NUMA Affinity columns say."""

from __future__ import annotations

import re
from typing import Any

from ..calc.specs import row
from .common import fail, info, warn
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


def _nv_links(code: str | None) -> int | None:
    """The NVLink count of a topo code (``NV12`` -> 12), None for any other path."""
    return int(code[2:]) if code and code.startswith("NV") and code[2:].isdigit() else None


def odd_nvlink_pair(t: Any) -> list[Finding]:
    """A matrix of exactly two GPUs joined by an odd number of NVLinks above one (NV3): a bridge between two cards carries
    its links in pairs (NV2 on Turing and Volta workstation cards, NV4 on Ampere's, NV8 and NV12 with two or three
    bridges), so an odd count is a link that did not train, most often a bridge not fully seated (NVIDIA/nccl#557);
    said as a warning that names the check that decides it, since a board may wire an odd count itself (IBM's Power
    AC922 joins its V100 pairs with three). NV1 is left alone: two GPUs of a V100 or P100 SXM2 server (a VM's slice of
    a DGX-1) are joined by one link by design. [] otherwise."""
    if len(t.gpus) != 2:
        return []
    a, b = t.gpus
    code = t.link(a, b) or ""
    if not ((links := _nv_links(code)) and links % 2 == 1 and links > 1):
        return []
    return [warn(f"{a}-{b}: {code}, an odd number of NVLinks for two cards: a bridge carries its links in pairs "
                 "(NV2 on Turing and Volta cards, NV4 on Ampere's, NV8 or NV12 with two or three bridges), so one link "
                 "of the pair most likely did not train, as with a bridge not fully seated; that also slows the "
                 "driver's start (a slow `nvidia-smi topo -m`) and can hang NCCL. Unless this board wires an odd "
                 "count itself (IBM's Power AC922 joins V100 pairs with three), read `nvidia-smi nvlink -s` for a "
                 "link shown inactive, and reseat the bridge.")]


def switch_board_short(t: Any) -> list[Finding]:
    """Every pair of three or more GPUs joined by the same NVLink count of 12 or more (an NVSwitch board), and a count
    of GPUs no such board has (checks/specs/topologies.toml [nvlink_boards] switch_board_gpus): a GPU of the board is
    not shown (blind batch vn006: seven B300s at NV18, one gone unnoticed); [] otherwise."""
    n, board_gpus = len(t.gpus), row("topologies.toml", "nvlink_boards").graded("switch_board_gpus") or []
    codes = {t.link(a, b) for i, a in enumerate(t.gpus) for b in t.gpus[i + 1:]}
    code = next(iter(codes)) if len(codes) == 1 else ""
    if n < 3 or not board_gpus or n in board_gpus or (_nv_links(code) or 0) < 12:
        return []
    return [warn(f"{n} GPUs, every pair joined by {code}: an NVSwitch board, and such boards (HGX) carry "
                 f"{' or '.join(map(str, board_gpus))} GPUs, so one is not shown here: it fell off the bus or "
                 "failed (`nvidia-smi -L` and `sudo dmesg | grep -i xid` on the host), or this process sees only some "
                 f"(CUDA_VISIBLE_DEVICES, a container given {n}). `nvidia-smi -L` on the host decides.")]


def nvlink_meshed(t: Any, pairs: list[str]) -> bool:
    """Whether every GPU of ``pairs`` (``GPU0-GPU5`` labels) has NVLink to some other GPU of the matrix: a board whose
    NVLink mesh leaves some pairs without a direct link (a DGX-1's hybrid cube-mesh: NV1/NV2 to four peers, SYS to the
    rest), so SYS between them is the board's design, not a hidden PCIe tree (blind batch vn005)."""
    gpus = {g for p in pairs for g in p.split("-")}
    return bool(gpus) and all(any((t.link(g, o) or "").startswith("NV") for o in t.gpus if o != g) for g in gpus)


_BRIDGED_RE = re.compile(r"RTX|GeForce|Quadro|TITAN|PCIe|\bNVL\b|\bA40\b")
"""Names of cards whose NVLink is a bridge between two cards (workstation and PCIe cards), not an NVSwitch board."""


def bridge_pairs_note(st: Any) -> list[Finding]:
    """``nvidia-smi nvlink -s`` of more than two bridged cards (``st``: its parsed GPUs), every one with links up: the
    output lists each card's own links, not the card at their other end; a bridge joins two cards, so these are pairs,
    which `nvidia-smi topo -m` names (blind batch vn004: eight RTX A6000s, 4 links each, read by their admin as all
    joined)."""
    up = [g for g in st.gpus if g.active]
    if len(up) < 3 or len(up) != len(st.gpus) or not all(_BRIDGED_RE.search(g.name or "") for g in up):
        return []
    return [info(f"{len(up)} cards with NVLink up: `nvlink -s` lists each card's own links, not the card at their "
                 "other end. An NVLink bridge joins two cards, so these are pairs (each card to one partner), not one "
                 "fabric joining all; `nvidia-smi topo -m` shows which GPU pairs with which (NV# in its matrix) and "
                 "that the others talk over PCIe.")]


_SXM_RE = re.compile(r"SXM|HBM3|H200|\bH[28]0\b|H800|A800|B[23]00")  # (an HGX H20 or H800: break-it 29 G13)
"""Names of GPUs on SXM boards, whose NVLinks the board wires (an HGX's H100 80GB HBM3, H200, B200, B300), unless a
PCIe card's (``H100 PCIe``, ``H100 NVL``, ``H200 NVL``)."""


def unlinked_gpu(g: Any, st: Any) -> list[Finding]:
    """A GPU of ``nvidia-smi nvlink -s`` with every link inActive beside GPUs whose links are up: on a PCIe card no
    bridge (siboehm's third RTX A6000, blind batch vr009), a note; on an SXM board, whose NVLinks every GPU has, a fault
    (break-it 28: one H100 of an HGX board with all 18 down). [] otherwise."""
    if g.links or not g.all_inactive or not any(x.active for x in st.gpus):
        return []
    sxm = _SXM_RE.search(g.name or "") and not re.search(r"PCIe|NVL", g.name or "")
    return [(fail if sxm else info)(f"GPU {g.index} ({g.name}): no NVLink link active (nvidia-smi: all links are "
                                    "inActive): " + (
        "an SXM board wires every GPU's NVLinks, so all of them down is a fault (the GPU, its NVSwitch or the fabric "
        "manager): `nvidia-smi nvlink -e` and `sudo dmesg | grep -i xid` say more; reset the GPU or reboot, and if it "
        "stays, report the board." if sxm else "no bridge on it, or one not seated; it reaches the others over PCIe."))]
