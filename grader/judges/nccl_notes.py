"""Notes on NCCL's failures that need the whole log (for grader.judges.nccl): where the ranks NCCL refused sit.

Sources: NCCL's init.cc (`Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx`, ncclInvalidUsage);
huggingface/accelerate#2246 (a Slurm launch meant for two nodes: ranks 4-7 all on one host, two on each GPU).
"""

from __future__ import annotations

import re

from ..parsers.nccl_log import NcclLog
from .common import fail, head_lines, info, machines_spanned, warn
from .model import Finding

_DUPLICATE_RE = re.compile(r"Duplicate GPU detected ?: ?rank (\d{1,6}) and rank (\d{1,6})")


def duplicates_on_one_host(log: NcclLog) -> list[Finding]:
    """Every ``Duplicate GPU detected`` line logged by one host: the colliding ranks all run there. Where the run
    was meant for several machines (``explain --nodes N``, NCCL's nNodes), the launcher put them on one."""
    ranks = sorted({int(r) for w in log.warnings for m in _DUPLICATE_RE.finditer(w) for r in m.groups()})
    if not ranks or len(log.hosts) != 1:
        return []
    host, spanned = log.hosts[0], machines_spanned(log.nnodes) or 0
    if machines_spanned(log.nnodes) == 1:  # told (or NCCL says) one machine: where they run is no news
        return []
    return [info(f"Every line here comes from one host, {host}: ranks {', '.join(map(str, ranks))} all run on it, sharing "
                 "its GPUs" + (
                     f", though the run was meant for {spanned} machines: the launch put the processes of several "
                     "nodes on one (a Slurm allocation or hostfile naming this node twice, or each node's launcher "
                     "given the same node rank, machine_rank, or more processes per node than GPUs)." if spanned > 1
                     else ". If the run was meant for several machines, the launcher placed them all on this one "
                     "(its node list, node rank or processes per node)."))]


def hosts_disagree(log: NcclLog) -> list[Finding]:
    """Hosts whose ``Using network`` lines name different networks (one on sockets, one on IB): the ranks cannot
    connect their channels across that difference; with it, a host whose lines are NCCL 2.0-2.2's format beside one's of
    a later NCCL (different NCCL versions on the nodes). Corpus zw019 (NVIDIA/nccl: a container without libibverbs on
    NCCL 2.3.7's sockets, the other node on an older NCCL over IB)."""
    nets = {h: n for h, n in log.networks_by_host.items() if h}
    if len(set(nets.values())) < 2:
        return []
    said = ", ".join(f"{h}: {n}" for h, n in list(nets.items())[:4])
    old = [h for h in log.old_format_hosts if h in nets]
    newer = [h for h in nets if h not in old]
    return [fail(f"The hosts chose different networks ({said}): NCCL's ranks must share one transport, and a rank on "
                 "sockets cannot connect its channels to one on InfiniBand/RoCE, so the job hangs or fails. Give every "
                 "node the same NCCL and RDMA stack (libibverbs and, in a container, /dev/infiniband), or set "
                 "NCCL_IB_DISABLE=1 on all of them" + (
                     f". The nodes also run different NCCL versions: {', '.join(old)} logs in NCCL 2.0-2.2's format (no "
                     f"`NCCL` before INFO), {', '.join(newer)} in a later one's; use the same NCCL on every node"
                     if old and newer else "") + ".")]


_TOLD_HANG_RE = re.compile(r"(?i)\b(?:hangs?|hanging|hung|stuck|freez(?:es|ing)|froze)\b")
_NOT_SO_RE = re.compile(r"(?i)\b(?:not|no longer|never|n't|fixed|solved|resolved|works|worked)\b")
_LOG_LINE_RE = re.compile(r"NCCL (?:INFO|WARN)|^\s*[\[\d<(]|^[IWEF]\d{4} |^(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\b")
# a figure of speech (the sender is stuck, on a problem, for days) or another program's hang (a download, a pull, "a
# separate thing"): not the run's hang
_NOT_THE_RUN_RE = re.compile(
    r"(?i)\b(?:I|I'?ve|I'?m|we|we'?ve|we'?re)\s(?:have\s|am\s|are\s|been\s|got\s|getting\s|completely\s|really\s){0,3}stuck\b"
    r"|\bstuck (?:on|with) (?:this|it|that|these|the (?:issue|problem|error|bug))\b"
    r"|\b(?:download(?:s|ing)?|pull(?:s|ing)?|apt|pip|install(?:er|s|ing)?|ssh|git|browser|UI|terminal|editor|jupyter|"
    r"notebook|desktop|laptop)\b[^.;]{0,40}\b(?:hangs?|hanging|hung|stuck|freez(?:es|ing)|froze)\b"
    r"|\b(?:separate|unrelated|different|another|other) (?:thing|issue|problem|story|matter)\b")


def told_hang(log: NcclLog) -> Finding | None:
    """Where the paste's own words (a line that is not a log line: the sender's sentence) say the run hangs, and the
    NCCL lines end with no error and no ``Init COMPLETE``: a failure, told, whose cause the lines do not show."""
    from .context import context
    told = next((ln.strip() for ln in head_lines(context().paste or "", 400) if len(ln) < 300
                 and _TOLD_HANG_RE.search(ln) and not _NOT_SO_RE.search(ln) and not _LOG_LINE_RE.search(ln)
                 and not _NOT_THE_RUN_RE.search(ln)), None)
    if told is None:
        return None
    return fail(f"The paste says the run hangs (`{told[:120]}`), and its NCCL lines end with no error and no `Init "
                "COMPLETE`: they end while NCCL was still setting its communicator up, and where it stopped and what it "
                "waits on are not in them, so they cannot tell why. The lines after them decide (NCCL_DEBUG=INFO up to the hang: the `Channel ... "
                "via` lines and the first WARN of each rank); " + (
                    "on one machine, a rerun with NCCL_P2P_DISABLE=1 tests the GPU-to-GPU path."
                    if machines_spanned(log.nnodes, len(log.hosts)) == 1 else "across machines, check first that the "
                    "bootstrap interface (NCCL_SOCKET_IFNAME) reaches every other machine."))


def p2p_off_by_env(log: NcclLog) -> bool:
    """Whether the environment turned GPU peer-to-peer off (NCCL_P2P_LEVEL=LOC or 0, NCCL_P2P_DISABLE=1): a setting,
    so the SHM channels it brings are that choice's, not a fault's (blind batch wi003)."""
    return (log.env_settings.get("NCCL_P2P_LEVEL", "").upper() in ("LOC", "0")
            or log.env_settings.get("NCCL_P2P_DISABLE", "").strip() == "1")


def virtual_beside_nic(log: NcclLog, virtual: re.Pattern, came_up: bool) -> list[Finding]:
    """A container's or a bridge's interface (veth, docker0, virbr0, ...) listed by NCCL's sockets after a real NIC,
    when NCCL's network is TCP and NCCL_SOCKET_IFNAME is not set: NCCL tells its peers these addresses too, and one on
    another machine cannot reach a virtual one (connects refused or hanging). Silent where one process drives every
    GPU (no peer elsewhere, nccl#1358's `-g 2`), the communicator came up, or on a machine told alone unless one is
    link-local only (vllm#6370's lxcbr0 and tailscale0 on one host: the one-machine note says it). Sources: NVIDIA/nccl#1499 (a torchrun log,
    eno8303 and a link-local veth), NCCL's environment variables (NCCL_SOCKET_IFNAME, `^` excludes)."""
    names = [s for s in log.socket_ifaces[1:] if virtual.match(s.name)]
    real = [s.name for s in log.socket_ifaces if not virtual.match(s.name) and s.name != "lo"]
    one = machines_spanned(log.nnodes, len(log.hosts)) == 1  # told one machine: only a link-local one is a trap
    if not names and real and not one:
        return _link_local_beside_routed(log, came_up)
    if not names or not real or "NCCL_SOCKET_IFNAME" in log.env_settings or came_up or log.one_process_gpus > 1 or (
            one and not any(s.address.lower().startswith("fe80") for s in names)):
        return []
    shown = ", ".join(f"{s.name} ({s.address or 'no address shown'})" for s in names[:3])
    cut = "" if log.warnings or log.errors else (" This excerpt shows no error after it, so it does not show that "
                                                 "this is what failed.")
    one = " On one machine no socket carries GPU data, so there it does not matter." if one else ""
    return [warn(f"NCCL's sockets list {shown} beside {real[0]}: a container's or bridge's virtual interface. NCCL "
                 "tells its peers these addresses too, and a rank on another machine cannot reach a virtual one "
                 f"(connects refused or hanging).{one} Pin NCCL_SOCKET_IFNAME={real[0]} (or exclude them: "
                 f"NCCL_SOCKET_IFNAME=^veth,docker,virbr,lo).{cut}")]


def _link_local_beside_routed(log: NcclLog, came_up: bool) -> list[Finding]:
    """NCCL's sockets (its network TCP) listing IPv6 link-local interfaces (fe80::...%ifname) beside one with a routed
    address, across machines, NCCL_SOCKET_IFNAME unset: NCCL makes a socket device of each and pairs the ranks' devices,
    and a link-local address reaches only its own link, so a peer dialling it from another network hangs or is
    refused. A warning until the ranks connected, a note after (Horovod#636: NCCL 2.3.7, a VLAN interface beside two
    link-local ones on one host, one on the other)."""
    local = [s for s in log.socket_ifaces if s.address.lower().startswith("fe80")]
    routed = [s for s in log.socket_ifaces if s.name != "lo" and s.address and not s.address.lower().startswith("fe80")]
    if not local or not routed or "NCCL_SOCKET_IFNAME" in log.env_settings or log.one_process_gpus > 1 or (
            log.network not in (None, "Socket")):
        return []
    names = ", ".join(f"{s.name} ({s.address.split('%')[0]})" for s in local[:3])
    return [(info if came_up else warn)(
        f"NCCL's sockets use several interfaces ({len(log.socket_ifaces)} in this log), link-local IPv6 ones among them "
        f"({names}) beside {routed[0].name} ({routed[0].address}): NCCL makes a socket device of each and pairs the "
        "ranks' devices, and a link-local address reaches only its own link, so a peer on another network that dials "
        "it hangs or is refused." + (" The ranks connected here, so it did not stop this run; " if came_up else " ")
        + "Pin NCCL_SOCKET_IFNAME on each node to its interface of the network the nodes share (with a routed address "
        f"here: {', '.join(s.name for s in routed[:4])}): interface selection decides which addresses the ranks "
        "exchange.")]


def direct_pointer_note(log: NcclLog) -> str:
    """``via P2P/direct pointer``: NCCL's P2P between two GPUs driven by one process, each reading the other's memory
    through a plain pointer (NCCL's transport/p2p.cc; NVIDIA/nccl#1773, wj009: all_reduce_perf -g 8); a clause, or ""."""
    if not any(c.transport == "P2P" and "direct pointer" in c.detail for c in log.channels):
        return ""
    return (" (`P2P/direct pointer`: the GPUs are driven by one process, which maps each peer's memory directly: the "
            "simplest P2P path, healthy)")


_P2P_EXPECTED_RE = re.compile(r"\+ NVL\[|\bNVLink\b|\b(?:[AHBV]100|A800|H[28]00|GB?200|B300|A30|A40|L40S?)\b"
                              r"|P2P/(?:IPC|CUMEM|direct pointer)")
"""What in a paste says these GPUs should reach each other directly: NCCL's topology dump of an NVLink (``+ NVL[``),
NVLink named, a data-centre card (which offers P2P over PCIe too), or P2P used by another of its channels."""


def p2p_expected(log: NcclLog) -> bool:
    """Whether the paste shows a sign that P2P should have worked between GPUs whose every channel went through SHM
    (NVLink, NVLS channels, a data-centre card, P2P channels elsewhere). Without one, SHM inside one machine is what
    GeForce cards without P2P, a VM or cards across sockets give: a note, not a warn (pending we021: two RTX 2080 Ti;
    xn018: vLLM's 4-GPU sanity check, the cards not named)."""
    from .context import context
    return log.nvls_channels > 0 or log.nvswitch_gbs > 0 or bool(_P2P_EXPECTED_RE.search((context().paste or "")[:500_000]))
