"""What NCCL's failures say (grader.judges.nccl reads the rest of its log): a failed ibverbs call at set-up, the
error chain NCCL passes up its calls, its error lines and its WARN lines (with grader.diagnoses' table: a line the
table reads is said in the table's words, once).

Sources: NCCL's ibvwrap.cc warnings, nccl.h (ncclResult_t), nccl-tests issues #185 and #227, docs/research/procedure.md
section 2.4; ibv_reg_mr's Bad address on GPU memory: Mellanox/nv_peer_memory#115 and #121, flagos-ai/FlagCX#61 (a 3090).
"""

from __future__ import annotations

import re

from ..diagnoses import known_faults
from ..parsers.nccl_log import NcclLog
from .common import fail, info, machines_spanned, warn
from .context import context
from .model import Finding


#: what a failed ibverbs call at NCCL init means, by the error text (errno): NCCL's ibvwrap warnings
_VERBS_MEANING = (
    (r"dmabuf.*(?:not supported|\b95\b)",
     "registering GPU memory with the NIC through DMA-BUF is not supported by this kernel, rdma-core or driver "
     "(GPUDirect RDMA's newer path)",
     "set NCCL_DMABUF_ENABLE=0 so NCCL registers GPU memory through nvidia-peermem instead, or update the kernel, "
     "rdma-core and the NVIDIA driver to versions with DMA-BUF support"),
    (r"ibv_reg_\w{0,20}mr\w{0,10}\b.{0,80}bad address",
     "the NIC's driver could not pin the buffer NCCL registered (EFAULT): for GPU memory, GPUDirect RDMA's path is "
     "missing: no peer-memory module loaded (nvidia-peermem, formerly nv_peer_mem), no DMA-BUF support, or a GPU that "
     "does not offer GPUDirect RDMA (most GeForce cards); not the locked-memory limit (that fails with Cannot allocate "
     "memory) and not the network",
     "check `lsmod | grep peermem` on every node and load it (`sudo modprobe nvidia-peermem`), or use DMA-BUF "
     "(NCCL_DMABUF_ENABLE=1 with a kernel and driver that support it); to confirm it is the GPU path, "
     "NCCL_NET_GDR_LEVEL=LOC (GPUDirect RDMA off, staged through host memory) should then connect"),
    (r"cannot allocate memory|\b12\b",
     "the process or the HCA ran out of locked memory or RDMA resources (queue pairs, completion queues, memory "
     "registrations): a low memlock limit, as in a container started without --ulimit memlock=-1, or another RDMA "
     "user holding the HCA; not a routing fault",
     "raise the memlock limit (`ulimit -l unlimited`; in Docker `--ulimit memlock=-1`), check no other process "
     "holds the HCA's resources, and for ibv_reg_mr lower NCCL_BUFFSIZE if it was raised"),
    (r"network is unreachable|\b101\b",
     "the RoCE GID NCCL picked cannot route to the peer: no route from this HCA's netdev to the peer's GID address "
     "(the two ends in different subnets, an HCA in NCCL_IB_HCA that is not cabled to the peer, or NCCL_IB_GID_INDEX "
     "naming a GID without the netdev's IPv4 address)",
     "give each HCA's netdev an IPv4 address in the same /24 as the peer's (check `ip addr` and "
     "`ping -I <netdev> <peer address>`), list in NCCL_IB_HCA only the HCAs that reach the peer, and leave "
     "NCCL_IB_GID_INDEX unset (NCCL 2.21 and later pick the RoCE v2 IPv4 GID) or set it to that GID's index from "
     "`show_gids` on every node"),
    (r"timed out|\b110\b",
     "the peer's queue pair never answered: a GID index that differs between the nodes, an HCA that cannot reach "
     "the peer, or an MTU mismatch on the path",
     "read the RoCE v2 IPv4 GID index with `show_gids` on every node (or leave NCCL_IB_GID_INDEX unset), list only "
     "HCAs whose netdevs reach the peer in NCCL_IB_HCA, and use the same MTU on both ends"),
    (r"invalid argument|no such device|\b22\b|\b19\b",
     "the GID index or port NCCL was told to use does not exist on that device",
     "check NCCL_IB_GID_INDEX and NCCL_IB_HCA against `show_gids` and `rdma link` on that node"),
)


def _setup_failures(log: NcclLog | None) -> list[str]:
    """The failed ibverbs calls of ``log`` that set RDMA up: not ``ibv_get_async_event``, which fails after an event
    the NIC raised (checks/diagnoses.toml nccl-ib-async says what that event means)."""
    return [m for m in (log.verbs_failures if log else ()) if "ibv_get_async_event" not in m]


def _verbs_findings(log: NcclLog | None) -> list[Finding]:
    """A failed ibverbs call at init (``Call to ibv_modify_qp failed ... Network is unreachable``): the
    communicator did not come up; what it means and what to do (NCCL's ibvwrap warnings; nccl-tests issues
    #185 and #227; procedure.md section 2.4)."""
    out: list[Finding] = []
    for msg in _setup_failures(log)[:3]:
        text = msg.rstrip(". ")
        meaning = next(((m, f) for pat, m, f in _VERBS_MEANING if re.search(pat, text, re.I)), None)
        if meaning:
            out.append(fail(f"NCCL could not connect over RDMA: `{text}`. Meaning: {meaning[0]}. Fix: {meaning[1]}."))
        elif re.search(r"ibv_(?:create_(?:cq|qp|srq|comp_channel)|alloc_pd|reg_(?:dmabuf_)?mr)\b", text):
            out.append(fail(f"NCCL could not set up RDMA: `{text}`: creating a queue or registering memory on this "
                            "node's HCA failed, before any packet went to the peer, so this is this node's resources, "
                            "not the network: the locked-memory limit (`ulimit -l`: unlimited; a container needs "
                            "--ulimit memlock=-1 and --cap-add=IPC_LOCK, a Slurm or Kubernetes job the same "
                            "limits), access to /dev/infiniband, or another process holding the HCA's resources."))
        else:
            out.append(fail(f"NCCL could not connect over RDMA: `{text}`: an ibverbs call failed, so the communicator "
                            "did not come up. Check the HCAs in NCCL_IB_HCA are ACTIVE (`rdma link`) and reach the "
                            "peer, and NCCL_IB_GID_INDEX (`show_gids`)."))
    return out


_NCCL_RESULTS = {1: "unhandled CUDA error (a CUDA call failed)", 2: "system error (a system call: a socket, ibverbs, "
                 "shared memory)", 3: "internal error", 4: "invalid argument", 5: "invalid usage (the calls do not match "
                 "across ranks, or a setting is wrong)", 6: "remote error (a peer went away)", 7: "in progress"}
"""ncclResult_t's codes (nccl.h), as NCCL's `file:line -> N` error lines give them."""
_NET_FILE_RE = re.compile(r"(?:^|/)(?:net|socket|net_ib|net_socket|ibvwrap|bootstrap)\.")


def _chain_findings(log: NcclLog) -> list[Finding]:
    """NCCL's error chain (``transport/net.cc:515 -> 2``: NCCLCHECK passing a result up at INFO) where the log shows
    no WARN or error of its own to read instead and the run did not go on (no Init COMPLETE, no benchmark rows)."""
    if log.error_chain is not None and log.chain_in_bootstrap and (log.warnings or log.errors) \
            and not (log.init_complete or log.bench):  # (corpus a011: a peer's socket closed during bootstrap)
        return [info("NCCL passed the error up through its bootstrap (bootstrap.cc in its error chain): it failed "
                     "while the ranks met and exchanged their addresses at start-up, before any data moved.")]
    if log.error_chain is None or log.warnings or log.errors or log.init_complete or log.bench:
        return []
    file, line, code = log.error_chain[:3]
    if file == "net.cc" and (log.ib_devices or log.socket_ifaces or log.network):  # blind batch xd011
        return [info(f"`{file}:{line} -> {code}` is NCCL's network-plugin loading returning an error: a plugin "
                     "declined to start (NCCL_IBEXT_DISABLE=1, or one that finds no device), and NCCL went on with "
                     "another network, the one its later lines name. Not a failure.")]
    net = code == 2 and _NET_FILE_RE.search(file) is not None
    boot, moving = log.chain_in_bootstrap, log.chain_in_progress  # (either may be another rank's chain: only one said)
    where = ("; bootstrap.cc is in the chain: NCCL's bootstrap failed, the TCP connections the ranks make to meet at "
             "start-up (and later to swap connection details): an interface NCCL_SOCKET_IFNAME picks that does not "
             "reach the other ranks, the root's address (MASTER_ADDR, NCCL_COMM_ID) out of reach, or a firewall is "
             "the usual cause" if boot and not moving and code in (2, 3) else
             "; it failed in the proxy's progress thread (`[Progress Thread]`), which moves the data over the "
             "network: a send or receive through the network transport or its plugin failed mid-run, and the lines "
             "above the chain (a WARN of the plugin or the NIC) say why" if moving and not boot else "")
    return [fail(f"NCCL passed an error up its calls (`{file}:{line} -> {code}`): {file}:{line} returned {code}, "
                 f"{_NCCL_RESULTS.get(code, 'an error')}, and each caller above it returned it too, so the operation it "
                 "was part of failed" + where + ("; a system error in NCCL's network code is most often a connection "
                                                 "the other machine refused or never answered: an interface in "
                                                 "NCCL_SOCKET_IFNAME (or one NCCL picked) that does not reach it"
                                                 if net and not where else "")
                 + ". The lines just above the chain's first line name the call that failed; NCCL_DEBUG_SUBSYS=INIT,NET "
                 "shows more of the set-up.")]


_FAILED_WARN_RE = re.compile(r"\bCuda failure\b|\bFailed to execute operation\b|\bError encountered progressing "
                             r"operation\b|\bCall to \w+ failed\b")
"""A WARN line in which NCCL reports that an operation of its own failed (transport.cc's CUDA check, proxy.cc's
service thread, a verbs or socket call): the run did not go on. Other WARN lines (a plugin not found, an environment
value ignored) may be harmless, and stay warnings."""


_LEVELS = {"fail": fail, "warn": warn, "info": info}


def _chained(w: str, chain: tuple) -> Finding:
    """A WARN whose error NCCL then passed up its calls (``init.cc:771 -> 3``, ``group.cc:72 -> 3 [Async thread]``):
    not a note, the failure of what it was doing, with the result's name (nccl.h's ncclResult_t)."""
    file, line, code = chain[:3]
    return fail(f"NCCL WARN: {w}. NCCL then passed the error up its calls (`{file}:{line} -> {code}`: {code} is "
                f"{_NCCL_RESULTS[code]}), so what it was doing failed" + (
                    ": setting up the communicator (init), which never came up" if re.search(
                        r"^(?:init\.|graph/|bootstrap\.)", file) else "")
                + ". This WARN is the cause to follow; the lines after it follow from it.")


_SOURCE_RE = re.compile(r"\b[\w/]{1,80}\.cc:\d{1,6}\b")


def _warn_line(w: str) -> str:
    """The paste's whole line of the WARN ``w`` (from its first character: the source file NCCL names before `NCCL
    WARN` tells RAS's bind from a socket's, nccl-ras-port-in-use), else ``NCCL WARN w``."""
    paste, said = context().paste or "", f"NCCL WARN {w}"
    lines, files = [], set()
    for n, m in enumerate(re.finditer(re.escape(said), paste)):  # each line that says it, up to 50
        start = paste.rfind("\n", max(0, m.start() - 400), m.start())  # (a line's head longer than that is cut there)
        lines.append(paste[start + 1 if start >= 0 else max(0, m.start() - 400):m.end()])
        files.add(tuple(_SOURCE_RE.findall(lines[-1])[-1:]))
        if n >= 49:
            break
    # lines of two source files (RAS's bind and a socket's, the break-it review's p16): the words alone, so neither
    # file's reading is lent to the other
    return lines[0] if lines and len(files) == 1 else said


def error_findings(log: NcclLog) -> list[Finding]:
    """NCCL's error lines and WARN lines: each in the table's words where grader.diagnoses reads it (an error line's
    ``Last error:`` detail included), else as NCCL said it; the first WARN that reports a failed operation of NCCL's
    own is the run's failure."""
    findings: list[Finding] = []
    warned = [w for w in log.warnings if w not in log.errors and w not in log.verbs_failures][:5]
    # a WARN the table of known faults reads (a peer closed its connection, a completion error...) is said in its words;
    # one it reads as a failure or a warning leaves no other WARN to be raised to the run's failure
    readings = {w: [_LEVELS[level](message) for level, message in known_faults(_warn_line(w))] for w in warned}
    serious = any(f.level != "info" for said in readings.values() for f in said)
    went_on = log.init_complete or log.rings_connected or log.bench  # (a WARN the run got past stopped nothing)
    chain = log.error_chain if log.error_chain and log.error_chain[2] in range(1, 7) and not (
        log.error_chain[0] == "net.cc" and (log.ib_devices or log.socket_ifaces or log.network)) else None  # (xd011:
    # a network plugin declining to load passes its error up net.cc, and NCCL goes on with another network)
    unread = [w for w in warned if not readings[w]]
    first = None if serious or went_on else next((w for w in unread if _FAILED_WARN_RE.search(w)), None) or next(
        (w for w in unread if chain and w == chain[3] and len(w.split()) >= 3), None)  # else the WARN just before
    # the chain's first line: the one whose error NCCL passed up
    failing = any(f.level == "fail" for said in readings.values() for f in said)
    for e in [e for e in log.errors if e not in log.verbs_failures][:3]:
        if failing and ("system error" in e or "internal error" in e) and "Last error" not in e:
            continue  # `unhandled system error`: the WARN read above says which call failed, in the table's words
        said = [_LEVELS[level](message) for level, message in known_faults(e)]
        if said:  # its own line or its `Last error:` detail is one the table reads
            findings += [f for f in said if f not in findings]
            continue
        findings.append(fail(f"NCCL error: {e}." + (" `unhandled system error` at init is often a wrong "
                                                    "NCCL_IB_GID_INDEX or an HCA listed in NCCL_IB_HCA that cannot "
                                                    "reach the peer (another subnet)." if "system error" in e else
                                                    " The WARN lines above it say which call failed.")))
    for w in warned:
        if readings[w]:
            passed_up = chain and w == chain[3] and not went_on and not failing  # the table reads it, NCCL raised it
            findings += [f for f in readings[w] if f not in findings] if not passed_up else [
                fail(f.message + f" NCCL then passed the error up its calls (`{chain[0]}:{chain[1]} -> {chain[2]}`: "
                     f"{_NCCL_RESULTS[chain[2]]}), so " + ("setting up the communicator (init) failed." if re.search(
                         r"^(?:init\.|graph/|bootstrap\.)", chain[0]) else "what it was doing failed."))
                if f.level == "warn" else f for f in readings[w]]  # (a note stays one: it named no failure)
            continue
        if len(w.split()) < 3 and not any(c in w for c in ":'()"):  # `NCCL WARN Co`: the paste cut inside the line
            findings.append(info(f"An NCCL WARN line cut off after `{w}`: its message is not in the paste; paste that "
                                 "line whole (and the lines around it) to have it read."))
            continue
        findings.append((_chained(w, chain) if chain and not _FAILED_WARN_RE.search(w) else fail(
            f"NCCL WARN: {w}. NCCL says one of its own operations failed (a CUDA call, a connection its proxy was "
            "setting up): the run stopped. The earliest WARN line of the log is the one to follow; the later ones "
            "follow from it.")) if w is first else warn(f"NCCL WARN: {w}"))
    return findings + _tree_after_rings(log, findings)


_TREE_CONNECT_RE = re.compile(r"\bncclTransportTreeConnect\b")


def _tree_after_rings(log: NcclLog, said: list[Finding]) -> list[Finding]:
    """A failure while NCCL connected its trees (``ncclTransportTreeConnect`` in the failing call chain) after its rings
    had connected (``Connected all rings``), on more than two machines or machines not said: the edges that failed are
    the tree's between ranks that are not ring neighbours. A note beside the failure (MiaAI-Lab/DeepSeek-v4.1-Flash-DGX-Sparks#3, four DGX Sparks
    cabled as a ring without a switch: rank 0's tree edge to rank 2 has no path; RDMA does not route through a third
    node)."""
    spanned = machines_spanned(log.nnodes, len(log.hosts))
    if not (log.rings_connected and any(f.level == "fail" for f in said) and (spanned is None or spanned > 2)
            and _TREE_CONNECT_RE.search(context().paste)):
        return []
    return [info("It failed while connecting NCCL's tree (ncclTransportTreeConnect), after its rings had connected "
                 "(`Connected all rings`): a ring joins each rank to its neighbours only, a tree also joins ranks that "
                 "are not ring neighbours. Where the machines are cabled to each other directly in a ring, without a "
                 "switch, two that are not adjacent have no direct path, and RDMA does not route through a third "
                 "machine as IP can: run with NCCL_ALGO=Ring, or join the machines through a switch. With a switch "
                 "between them, the causes above apply; `ib_write_bw` between each such pair shows which cannot "
                 "reach the other.")]
