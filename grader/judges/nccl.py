"""Judge of NCCL's own lines (``NCCL_DEBUG=INFO`` logs, alone or inside a vLLM log): which transport NCCL used (NET/IB
over RoCE, sockets, shared memory on one host), its queue pairs, GPUDirect RDMA, the HCAs it opened, the plugin, and
its WARN lines (with grader.diagnoses' table). A run on one host moves no data over a network, and is judged as
that (:func:`.common.machines_spanned`).

Sources: docs/research/procedure.md §2, §6 (NVIDIA's NCCL on two Sparks playbook, NCCL's environment variables);
the figures are checks/ranges.toml's.
"""

from __future__ import annotations

import dataclasses
import re

from ..nccl_env import ib_hca_names, ib_hcas
from ..parsers.nccl_log import NcclLog, transport_verdict
from ..spark_names import HOUSE_INTERFACE, QSFP_TWINS, is_qsfp_twin, qsfp_port, rdma_device_for
from .nccl_layout import duplicate_gpus, many_hcas, shm_hops, system_bandwidth, topology_findings
from .nccl_notes import (direct_pointer_note, p2p_expected, duplicates_on_one_host, hosts_disagree, p2p_off_by_env, told_hang,
                         virtual_beside_nic)
from .nccl_rdma import lookup_failed, no_verbs_here, rdma_netdevs as _rdma_netdevs, unused_rdma as _unused_rdma
from .nccl_errors import _chain_findings, _setup_failures, _verbs_findings, error_findings
from .common import (BUSBW_WARN_GBS, JUMBO_MTU, LINE_GBPS, SPARK_RDMA, fail, fields_of, hca_advice, info, listed,
                     machines_spanned, ok, on_spark, warn)
from .context import context
from .model import NO_ERROR_SEEN, Finding, Summary


def _came_up(log: NcclLog) -> bool:
    """Whether the log shows the ranks connected: channels, RDMA queue pairs, an Init COMPLETE, a benchmark's rows or
    the rings connected (past bootstrap and setup, whatever the transport)."""
    return bool(log.channels or log.n_ib_connections or log.init_complete or log.bench or log.rings_connected)


def _is_spark_log(log: NcclLog) -> bool:
    """Whether the log names a DGX Spark's RoCE devices or interfaces, or the paste around it shows a Spark's own signs."""
    return (context().spark_sure or any(h.device in SPARK_RDMA for h in log.ib_devices)
            or any(is_qsfp_twin(x or "") or x == HOUSE_INTERFACE
                   for x in (log.oob_iface, log.bootstrap_iface, *(s.name for s in log.socket_ifaces))))


def _spark_if_unsaid(log: NcclLog) -> str:
    """Where neither ``explain --host`` nor the log says whether the machines are Sparks: what a Spark pair makes of TCP
    (its QSFP link has RDMA, so there the same lines are a fault)."""
    return "" if on_spark(_is_spark_log(log) or None) is not None else (
        " (On a DGX Spark pair this is a fault: its QSFP link carries RDMA, which NCCL must use, NET/IB; this log "
        "does not show a Spark's devices: `explain --host spark` reads it as one.)")


def _qp_findings(log: NcclLog) -> list[Finding]:
    """What the ``NET/IB: ... qpn ... mtu ... GID ...`` queue-pair lines say: the GID and RDMA MTU NCCL used."""
    qps = log.ib_connections
    if not qps:
        return []
    out: list[Finding] = []
    gids = sorted({q.gid_index for q in qps if q.gid_index is not None})
    ips = list(dict.fromkeys(q.gid_ipv4 for q in qps if q.gid_ipv4))
    if gids:
        out.append(info(f"RoCE GID index {', '.join(map(str, gids))} in NCCL's queue-pair lines"
                        + (f", carrying {', '.join(ips[:8])}" if ips else "") + "."))
    if any(q.gid_link_local for q in qps):
        idx = sorted({q.gid_index for q in qps if q.gid_link_local and q.gid_index is not None})
        out.append(info(f"GID index {', '.join(map(str, idx))} is a link-local (fe80) GID: NCCL takes it for a device "
                        "whose netdev has no IPv4 address. It carries RoCE v2 over one cable or one switch (one L2 "
                        "segment), not through a router; NVIDIA's setup gives each twin its own IPv4 address, whose RoCE "
                        "v2 GID (`show_gids`) NCCL then picks (NCCL 2.21 and later, NCCL_IB_GID_INDEX unset)."))
    mtus = sorted({q.mtu_bytes for q in qps if q.mtu_bytes})
    if mtus and max(mtus) < 4096:
        out.append(info(f"RDMA path MTU {'/'.join(map(str, mtus))} bytes in the queue-pair lines: the interfaces run "
                        f"Ethernet MTU 1500 (RoCE fits 1024 in it); with MTU {JUMBO_MTU} (jumbo frames) on both ends "
                        "RoCE uses 4096."))
    return out


# --------------------------------------------------------------------------- NCCL log

def _socket_iface_notes(log: NcclLog) -> list[Finding]:
    """What the interfaces NCCL's sockets ran over say: a Spark's management port, the loopback."""
    out: list[Finding] = []
    if any(s.name == HOUSE_INTERFACE for s in log.socket_ifaces):
        out.append(fail(f"...and the sockets run over {HOUSE_INTERFACE}, the 10 GbE management port: set "
                        "NCCL_SOCKET_IFNAME to a QSFP twin."))
    if any(s.name == "lo" for s in log.socket_ifaces):  # blind batch zw004, zw019: NCCL_SOCKET_IFNAME=lo, two hosts
        spanned = machines_spanned(log.nnodes, len(log.hosts))
        blocked = not _came_up(log) and log.nnodes != 1  # (nnodes 1: every rank of the communicator under one host)
        if blocked and (spanned or 1) > 1:
            out.append(fail(f"NCCL's sockets run over the loopback interface (lo, 127.0.0.1), but the ranks are on "
                            f"{spanned} machines: loopback reaches only this machine, so a rank elsewhere cannot "
                            "connect (`Connection refused`, retried until a timeout). NCCL_SOCKET_IFNAME=lo (or a "
                            "hostname that resolves to 127.0.x.1) is the usual cause: set NCCL_SOCKET_IFNAME and "
                            "GLOO_SOCKET_IFNAME to the interface between the nodes."))
        elif blocked and spanned is None and log.troubled:
            out.append(warn("NCCL's sockets run over the loopback interface (lo, 127.0.0.1) and its connections are "
                            "refused or retried: if a rank runs on another machine, loopback cannot reach it (set "
                            "NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME to the interface between the nodes); on one "
                            "machine the refusals come from a peer that exited first (its own error says why). "
                            "`explain --nodes N` says which."))
        else:
            out.append(info("The socket transport ran over the loopback interface (lo): both ranks were on one "
                            "machine, so no cable was used."))
    out += virtual_beside_nic(log, _VIRTUAL_IFACE_RE, _came_up(log))
    first = log.socket_ifaces[0] if log.socket_ifaces else None
    if first is not None and log.nnodes != 1 and (_VIRTUAL_IFACE_RE.match(first.name)
                                                   or first.address.lower().startswith("fe80")):
        what = "a link-local address, which reaches only its own segment" if first.address.lower().startswith(
            "fe80") else "a virtual interface (a tunnel, a bridge, a container's), which may reach no other host"
        spanned = machines_spanned(log.nnodes, len(log.hosts)) or 1
        stuck = spanned > 1 and not (_came_up(log) or log.warnings or log.errors)  # (a WARN: its own cause)
        why = (f"; ranks on {spanned} machines never got past setting up their communicator in this paste, and that "
               "address would explain it" if stuck else "")
        out.append((fail if stuck else warn)(
            f"NCCL's sockets use {first.name} ({first.address}) first: {what}{why}. Set NCCL_SOCKET_IFNAME (and "
            "GLOO_SOCKET_IFNAME) to the interface between the nodes."))
    return out


_VIRTUAL_IFACE_RE = re.compile(r"^(?:ip6tnl|ip_vti|tunl|gre|sit|tun|tap|docker|virbr|veth|cni|flannel|cali|vxlan|"
                               r"tailscale|wg|zt)\w*$")
"""The names Linux gives tunnels, bridges and containers' interfaces (not a NIC between machines)."""


def _transport_findings(log: NcclLog, verdict: str, spark: bool | None = None) -> list[Finding]:
    """What the transport verdict means, and what to do about it."""
    out: list[Finding] = []
    hcas = [h.device for h in log.ib_devices]
    spanned = machines_spanned(log.nnodes, len(log.hosts))
    if verdict == "NET/IB":
        names = ", ".join(f"{h.device}:{h.port}/{h.link_layer}" for h in log.ib_devices)
        where = "; RoCE on a Spark's ConnectX-7" if _is_spark_log(log) else ""
        moved = _came_up(log)
        out.append(ok(f"NCCL {'moved data with' if moved else 'chose'} RDMA (NET/IB{where})"
                      + (f" over {names}." if names else "; this excerpt does not list its devices.")
                      + ("" if moved else " No connection is set up in these lines yet.") + (" `NET/Socket : Using` "
                      f"{log.socket_ifaces[0].name} names the TCP interface NCCL also set up (for its bootstrap and "
                      "out-of-band exchanges): the data goes over NET/IB." if log.socket_ifaces else "")))
        if not log.channels and log.network is None and not log.ib_devices and log.n_ib_connections:
            out.append(info(f"The verdict comes from {log.n_ib_connections} RDMA queue-pair line(s) (`NET/IB: ... qpn ... "
                            "GID ...`): NCCL connected over RDMA, so it did not fall back to TCP sockets."))
    elif verdict == "NET/Socket":
        where = ", ".join(f"{s.name} ({s.address})" for s in log.socket_ifaces)
        why = []
        if log.env_settings.get("NCCL_IB_DISABLE", "").strip() == "1":
            why.append("NCCL_IB_DISABLE=1 forbids RDMA: unset it")
        if log.ib_no_device:
            why.append("NCCL found no RDMA device (`NET/IB : No device found`): in a container pass "
                       "--device=/dev/infiniband with --cap-add=IPC_LOCK --ulimit memlock=-1 (or --privileged)")
        if "NCCL_IB_HCA" in log.env_settings and not hcas:
            why.append(f"NCCL_IB_HCA={log.env_settings['NCCL_IB_HCA']} matched no usable device: check the names "
                       "with `rdma link`")
        cause = ("; ".join(why) + ". ") if why else (
            "Check that NCCL_IB_DISABLE is not 1 (it turns RDMA off) and give NCCL the RDMA devices: set NCCL_IB_HCA to " + ("both Up twins (e.g. rocep1s0f1,roceP2p1s0f1)" if on_spark(
                _is_spark_log(log) or None) else "the NICs that reach the peer (`rdma link` lists them; on a DGX Spark "
                                                 "both Up QSFP twins)")
            + " and, in a container, pass --device=/dev/infiniband with IPC_LOCK (or --privileged). ")
        socket_channels = any(c.transport == "NET/Socket" for c in log.channels)
        if spanned == 1:
            out.append(info(("NCCL found no IB or RoCE device (`NET/IB : No device found`). " if log.ib_no_device else "")
                            + f"NCCL's network is TCP sockets (NET/Socket{' over ' + where if where else ''}), but the run "
                            "is on one machine: no network carries its data (P2P or SHM do), so it is harmless "
                            "here. Across machines it would: give NCCL an RDMA device before running across them."))
        elif (socket_channels or (spanned or 0) > 1) and not on_spark(_is_spark_log(log) or None):  # (not said: as
            # another host, with what a Spark pair would make of it: _spark_if_unsaid)
            reason = ("; ".join(why) + ". ") if why else ("check that NCCL_IB_DISABLE is not 1 and NCCL_IB_HCA (if set) "
                                                          "names them, and in a container pass --device=/dev/infiniband "
                                                          "with --cap-add=IPC_LOCK --ulimit memlock=-1 (or --privileged). ")
            rdma_plugin = any(re.search(r"Loaded net plugin .{0,40}\bRDMA\b|P2P plugin IB", m) for m in log.plugin_messages)
            ipoib = any(n.startswith("ib") for n in _rdma_netdevs(log))  # IPoIB: the host's IB stack is loaded
            if log.ib_no_device and not ipoib and not (rdma_plugin and _rdma_netdevs(log)):  # NCCL saw no RDMA
                # device: TCP may be all there is (an `np0` port name is mlx5's, but also ice's or bnxt's); IPoIB, or
                # an RDMA plugin loaded beside such ports (an image built for RDMA, nccl#941), shows the fault
                named = _rdma_netdevs(log)  # a ConnectX-like name says the NIC, not that its device reaches NCCL
                out.append(warn(
                    f"NCCL moves data between the machines over TCP sockets (NET/Socket{' over ' + where if where else ''}"
                    "), a few GB/s at best: NCCL found no RDMA device (`NET/IB : No device found`). " + (
                        f"{', '.join(named)} looks like an RDMA NIC's port by its name (InfiniBand or ConnectX), so "
                        "the device is likely there but not visible to NCCL (a container not given it, or no RDMA "
                        "driver on the host): `rdma link` or `ibv_devices` on the host lists it. " if named else
                        "That is expected where the machines have no RDMA NIC (most cloud VMs), and slow for "
                        "collectives. If these machines do have RDMA NICs (`rdma link` or `ibv_devices` on the host "
                        "lists them), NCCL cannot see them: ")
                    + "In a container pass --device=/dev/infiniband with --cap-add=IPC_LOCK --ulimit memlock=-1 (or "
                    "--privileged)." + _spark_if_unsaid(log)))
            elif not _rdma_netdevs(log) and why == ["NCCL_IB_DISABLE=1 forbids RDMA: unset it"]:  # TCP by choice
                over = f" over {where}" if where else ""
                out.append(info(f"NCCL moves data between the machines over TCP sockets (NET/Socket{over}) because "
                                "NCCL_IB_DISABLE=1 is set: a choice, a few GB/s at best. Fine "
                                "where the machines have no RDMA NIC; if they have one (`rdma link` lists it), unset it."
                                + _spark_if_unsaid(log)))
            else:
                out.append((fail if _rdma_netdevs(log) and lookup_failed(log) else warn)(
                    f"NCCL moves data between the machines over TCP sockets (NET/Socket{' over ' + where if where else ''}"
                    "): it works, at a few GB/s at best, with no RDMA." + (
                        _unused_rdma(log) + f" {reason}" if _rdma_netdevs(log) else " If these machines have RDMA NICs "
                        f"(`rdma link` or `ibv_devices` on the host lists them), NCCL is not using them: {reason}Without "
                        "any (most cloud VMs), TCP is all there is.") + _spark_if_unsaid(log)))
        elif socket_channels or (spanned or 0) > 1:
            out.append(fail(f"NCCL fell back to TCP sockets (NET/Socket{' over ' + where if where else ''}): no RDMA, a "
                            f"few GB/s at best. {cause}Then check the log shows `NET/IB : Using [0]...`."))
        else:
            # on a host told not a Spark TCP may be all there is, and the excerpt cannot say it carried anything: a note
            out.append((info if on_spark(_is_spark_log(log) or None) is False else warn)(
                f"NCCL's network is TCP sockets (NET/Socket{' over ' + where if where else ''}): between "
                "machines its data would go over TCP, a few GB/s at best; with every rank on one machine no network "
                "is used and it does not matter. This excerpt does not say which: the `Channel ... via NET/Socket` "
                "lines, or nNodes in NCCL's `comm ... nRanks ... nNodes` line, decide (or `explain --nodes N`). For a "
                f"run across machines: {cause}"))
        out += _socket_iface_notes(log)
    elif verdict in ("P2P", "SHM") and (spanned or 0) > 1:  # the hops inside each machine; those between not shown
        ranks = f" of {log.nranks} ranks" if log.nranks else ""  # (where the paste shows them, their section says it)
        out += [] if " via NET/" in (context().paste or "") else [info(f"The channel lines here all go {verdict} (inside one machine): those are the hops between "
                        f"ranks on the same machine. The communicator{ranks} spans {spanned} machines: the channels "
                        "between machines (`via NET/IB` or `via NET/Socket`) are not in this excerpt, so it does not "
                        "say which network carried them; paste those lines, or NCCL's `NET/IB : Using` line.")]
    elif verdict == "P2P":
        out.append(info("Every channel went P2P (GPU to GPU inside one machine, over NVLink or PCIe): normal inside a "
                        "machine" + direct_pointer_note(log) + "; no network was used, so this log says nothing about " + (
                            "the cable. Run across the two Sparks to see NET/IB." if on_spark(_is_spark_log(log) or None)
                            is not False else "the network between machines.")))
    elif verdict == "SHM":
        other = on_spark(_is_spark_log(log) or None) is False and not p2p_off_by_env(log) and p2p_expected(log)
        out.append((warn if other else info)("Every channel went through host shared memory (SHM) inside one machine: no network was "
                        "used" + (". Run across the two Sparks to see NET/IB." if on_spark(_is_spark_log(log) or None)
                                  is not False else ", and not GPU to GPU either (no P2P): NCCL used no peer-to-peer path "
                                  "between these GPUs (none allowed, or P2P turned off; `nvidia-smi topo -p2p r` shows "
                                  "whether they allow it).")))
    elif verdict.startswith("mixed"):
        parts = verdict.split(": ", 1)[1].split("+")
        other_host = not on_spark(_is_spark_log(log) or None)  # a Spark pair must use RDMA; elsewhere TCP may be all
        level = (warn if other_host and not (_rdma_netdevs(log) and lookup_failed(log)) else fail) if "NET/Socket" in parts else info
        level = info if level is warn and no_verbs_here(log) else level  # no RDMA stack, no RDMA port: TCP is what it has
        out.append(level(f"Channels used several transports ({verdict.split(': ', 1)[1]}): NET/* between machines, "
                         "P2P/SHM inside one."
                         + ((" NET/Socket means the traffic between machines went over TCP, a few GB/s at best: if "
                             "they have RDMA NICs (`rdma link` lists them), give NCCL them (NCCL_IB_HCA, "
                             "/dev/infiniband in containers)." + _unused_rdma(log) + _spark_if_unsaid(log) if other_host else
                             " NET/Socket means some traffic went over TCP: give NCCL the RDMA devices "
                             "(NCCL_IB_HCA, /dev/infiniband in containers).") if "NET/Socket" in parts else "")))
        out += shm_hops(log, parts)
    elif verdict == "unknown" and _setup_failures(log):
        out.append(info("No transport was set up: the communicator failed while connecting (see the ibverbs error)."))
    elif verdict == "unknown":
        merged = [d for d in log.virtual_devices if "+" in d]
        found = (f" It does show the RDMA devices NCCL's IB transport found: {', '.join(log.virtual_devices)}"
                 + (" (`a+b`: one virtual device NCCL made of two RDMA devices of one NIC, NCCL_IB_MERGE_NICS; "
                    "NCCL spreads its traffic over both)" if merged else "") + "."
                 if log.virtual_devices else "") + (f" NCCL_IB_HCA is set to {log.env_settings['NCCL_IB_HCA']}: the "
                                                    "HCAs NCCL uses once it connects over RDMA."
                                                    if log.env_settings.get("NCCL_IB_HCA") else "")
        out.append(info("The log does not show which transport NCCL used: no `Channel ... via ...`, no `Using "
                        "network` and no `NET/IB : Using` line. Paste more of it (NCCL prints them when the communicator "
                        f"is set up), from the start of the run.{found}"))
    else:
        out.append(info(f"NCCL used {verdict}."))
    if not log.channels and verdict in ("NET/IB", "NET/Socket"):
        out.append(info("No `Channel ... via` lines in this excerpt: the verdict comes from the network NCCL chose" + (
            "; whether they use GPUDirect RDMA (`/GDRDMA` on them) is not shown either." if verdict == "NET/IB" and not (
                log.gdr_hcas or log.gdr_off_hcas or log.gdrdma_in_text) else ".")))
    if verdict == "NET/IB" or (verdict.startswith("mixed") and "NET/IB" in verdict):
        out += _gdr_findings(log)
        out += _hca_findings(log)
    if spanned is None and len(log.hosts) == 1 and verdict in ("NET/IB", "NET/Socket"):  # the others may be elsewhere
        other = "the other Spark's" if _is_spark_log(log) else "the other node's"
        out.append(info(f"All lines come from one machine: check {other} log too."))
    if verdict == "NET/IB" or (verdict.startswith("mixed") and "NET/IB" in verdict):
        out += _qp_findings(log)
    return out


_PLUGIN_RE = re.compile(r"Loaded net plugin (?P<name>.*\S)\s*\((?P<api>v\d+)\)|^P2P plugin (?:v\d+ )?(?P<ib>\S+)")


_NO_PLUGIN_RE = re.compile(r"No plugin found \(libnccl-net|Could not find: libnccl-net|Using internal network plugin")
_UNUSABLE_PLUGIN_RE = re.compile(r"Failed to find ncclNetPlugin symbol \(>= v\d+\)|ncclNetPlugin symbols v\d+ and lower "
                                 r"are not supported")


def _inside_findings(log: NcclLog) -> list[Finding]:
    """What the log says of the GPUs inside one machine: a network plugin NCCL loaded, GPU pairs with peer-to-peer
    off, and network channels between two ranks of one host (a channel line's host holds its sender for ``[send]``,
    its receiver for ``[receive]``)."""
    out: list[Finding] = []
    loaded = [m for m in map(_PLUGIN_RE.search, log.plugin_messages) if m]
    if loaded:
        names = "; ".join(dict.fromkeys(f"{m['name']} ({m['api']} API)" if m["name"] else f"its IB transport as "
                                        f"{m['ib']}" for m in loaded))
        newer = " The `Failed to find ..._vN symbol` lines are NCCL asking for newer plugin APIs first: normal." if any(
            "Failed to find" in p for p in log.plugin_messages) else ""
        out.append(info(f"NCCL loaded an external network plugin: {names}.{newer}"))
    elif any(_NO_PLUGIN_RE.search(p) for p in log.plugin_messages):
        out.append(info("NCCL found no external network plugin (libnccl-net.so) and uses its built-in transports (IB "
                        "and sockets): an informational line, not an error; what most installs do."))
    elif any(_UNUSABLE_PLUGIN_RE.search(p) for p in log.plugin_messages):
        out.append(info("NCCL found a libnccl-net.so without a plugin API it supports (`Failed to find ncclNetPlugin "
                        "symbol`) and ignores it, using its own transports (IB and sockets): no cause of a failure; "
                        "a plugin built for another NCCL version is the usual reason."))
    if log.nvls_channels:
        out.append(info(f"NCCL set up {log.nvls_channels} NVLS channels (NVLink SHARP): the GPUs are joined by NVSwitch "
                        "(an HGX or DGX board), whose switches reduce the data themselves, so all-reduce inside the "
                        "machine runs over NVLink at its best."))
    if log.p2p_disabled:
        pairs = ", ".join(f"{a} and {b}" for a, b in log.p2p_disabled[:4])
        out.append(warn(f"NCCL says P2P is disabled between GPUs {pairs}: their traffic goes through host memory (SHM) "
                        "instead of GPU to GPU, slower. Causes: NCCL_P2P_DISABLE=1, a VM or container without peer "
                        "access, or the PCIe path (ACS, IOMMU) blocking it: `nvidia-smi topo -p2p r` shows what the "
                        "driver allows."))
    elif p2p_off_by_env(log) and not (log.hosts and (ranks := log.nranks or len({r for c in log.channels
                                                                 for r in (c.src_rank, c.dst_rank)}))
                     and ranks <= len(log.hosts)) \
            and not (log.nnodes and log.nranks and log.nranks <= log.nnodes):  # not one GPU a machine
        said = ", ".join(f"{k}={v}" for k, v in log.env_settings.items() if k in ("NCCL_P2P_LEVEL", "NCCL_P2P_DISABLE"))
        loc = " (what NCCL_P2P_DISABLE=1 sets)" if "NCCL_P2P_LEVEL" in said and "DISABLE" not in said else ""
        via = ("the network transport (NCCL_SHM_DISABLE=1 turns shared memory off too)"
               if log.env_settings.get("NCCL_SHM_DISABLE", "").strip() == "1" else "host memory (SHM)")
        out.append(info(f"P2P between GPUs is off ({said}{loc}, set in the environment): a setting, not a fault; "
                        f"traffic between the GPUs of one machine goes through {via}, slower. Keep it only where P2P "
                        "hangs or the cards cannot do it (`nvidia-smi topo -p2p r`)."))
    home = {}
    for c in log.channels:
        if c.host and c.direction:
            home[c.src_rank if c.direction == "send" else c.dst_rank] = c.host
    same = sorted({(c.src_rank, c.dst_rank, home[c.src_rank]) for c in log.channels if c.transport.startswith("NET/")
                   and home.get(c.src_rank) and home.get(c.src_rank) == home.get(c.dst_rank)})
    if same and not (log.nnodes and log.nranks and log.nranks <= log.nnodes):  # (one rank a node: hosts of one name)
        shown = ", ".join(f"{a}->{b} on {h}" for a, b, h in same[:4])
        out.append(warn(f"Channels between two GPUs of the same machine go over the network transport (ranks {shown}): "
                        "NCCL found no P2P or SHM path inside that machine, so even that traffic takes NET. Peer access "
                        "or shared memory is off there (NCCL_P2P_DISABLE / NCCL_SHM_DISABLE, or a container without "
                        "--ipc=host or a large enough /dev/shm)."))
    return out


def _gdr_findings(log: NcclLog) -> list[Finding]:
    """GPUDirect RDMA on the network channels (``via NET/IB/0/GDRDMA``): the NIC reads and writes GPU memory itself;
    without it NCCL's proxy stages each transfer through host memory. Not said of a Spark (its GPU memory is the
    system's, unified) nor when no channel line shows the network."""
    net = [c for c in log.channels if c.transport.startswith("NET/IB")]
    if not net or on_spark(_is_spark_log(log) or None) or log.gdr_off_hcas:  # (NCCL's own word said it: _gdr_off_findings)
        return []
    gdr = {c.host for c in net if "GDRDMA" in c.detail or "DMABUF" in c.detail}
    ways = {c.direction for c in net if c.host in gdr and ("GDRDMA" in c.detail or "DMABUF" in c.detail)}
    if gdr and None not in gdr and (without := sorted({c.host or "" for c in net if c.direction in ways} - gdr)):
        # per host, the same direction (GDR on sends is off by default on older GPUs): NVIDIA/nccl#1804
        return [warn(f"GPUDirect RDMA on {', '.join(sorted(gdr))} only (`/GDRDMA` on its network channels), not on "
                     f"{', '.join(without)}, whose channels are plain `via NET/IB`: there NCCL stages every transfer "
                     "through host memory, so the hosts are not set up alike. On that host check the GPUDirect module "
                     "(`lsmod | grep nvidia_peermem`, or DMA-BUF support) and how far the NIC sits from the GPU "
                     "(`nvidia-smi topo -m`; NCCL_NET_GDR_LEVEL).")]
    if gdr:
        return [info("The network channels use GPUDirect RDMA (`/GDRDMA`, or `/DMABUF`: its DMA-BUF form): the NIC "
                     "reads and writes GPU memory directly, with no copy through host memory.")]
    if log.gdrdma_in_text:  # in a piece of a line only: Ray's forwarding cut it
        return [info("No whole channel line shows `/GDRDMA`, but the text has it, in a piece of a line that Ray's "
                     "forwarding cut and interleaved with other workers' lines: GPUDirect RDMA is on for at least that "
                     "channel.")]
    return [warn("No network channel shows `/GDRDMA`: GPUDirect RDMA is off, so NCCL's proxy stages every transfer "
                 "through host memory, which costs bandwidth on discrete GPUs. Check that the kernel module for it is "
                 "loaded (`lsmod | grep nvidia_peermem`, or DMA-BUF with a recent driver and kernel) and, in "
                 "`nvidia-smi topo -m`, how far the NIC sits from the GPU: NCCL leaves it off on purpose across "
                 "the CPU (NODE/SYS; NCCL_NET_GDR_LEVEL).")]


_RDMA_DEVICE_RE = re.compile(r"^(?:mlx\d_|roce|ibp|bnxt_re|irdma|efa|hfi1|qedr|rxe|siw|erdma|ionic|mana)")
"""The names RDMA drivers give their devices (not a netdev's such as eth0)."""


def _gdr_off_findings(log: NcclLog) -> list[Finding]:
    """NCCL's own word that GPUDirect RDMA is off for its HCAs (``GPU Direct RDMA Disabled for HCA 0 'rocep1s0f0'``),
    said wherever the log shows it (it is printed when the IB transport starts, before any channel line): expected
    on a DGX Spark (its GPU memory is the host's; the field corpus's m016: nvidia-peermem does not load there), a
    cost on a discrete-GPU host."""
    if not log.gdr_off_hcas:
        return []
    if (not log.ib_devices and not log.n_ib_connections and transport_verdict(log) != "NET/IB"  # blind batch xk013
            and not any(_RDMA_DEVICE_RE.match(d) for d in log.gdr_off_hcas)):
        return [info(f"`GPU Direct RDMA Disabled` for {listed(log.gdr_off_hcas)}: network interfaces of a socket "
                     "transport (NET/Socket, FastSocket), which never does GPUDirect RDMA; expected, not a fault.")]
    spark = on_spark(_is_spark_log(log) or None)
    said = (f"GPU Direct RDMA is disabled for {listed(log.gdr_off_hcas)}: NCCL stages the data through host memory on "
            "its way to the NIC.")
    return [(info if spark else warn)(said + (
        " On a DGX Spark that is what NCCL reports (nvidia-peermem does not load there, and GB10's memory is the "
        f"host's): a pair still reaches the {BUSBW_WARN_GBS:g} GB/s busbw bar, so it is not graded." if spark else
        " On a discrete-GPU host that costs bandwidth: NCCL 2.19+ uses DMA-BUF (kernel 5.12+) or nvidia-peermem; "
        "check which the driver offers." if spark is False else
        " On a DGX Spark that is expected (nvidia-peermem does not load there); on a discrete-GPU host it costs "
        "bandwidth (NCCL 2.19+ uses DMA-BUF, or nvidia-peermem)."))]


def _hca_findings(log: NcclLog) -> list[Finding]:
    out: list[Finding] = []
    mixed: list[str] = []  # the hosts whose device list mixes link layers, with their RoCE ports
    for host, hcas in (log.ib_devices_by_host or {"": log.ib_devices}).items():
        devs = [h.device for h in hcas]
        who = f" on {host}" if host else ""
        spark = [d for d in devs if d in SPARK_RDMA]
        if len(devs) == 1 and devs[0] not in SPARK_RDMA:
            out.append(info(f"NCCL uses one HCA{who} ({devs[0]}): not a DGX Spark device name, so no Spark figure "
                            "applies; on a host with several RDMA NICs, list those that reach the peer in NCCL_IB_HCA."))
        elif len(devs) == 1:
            dev = devs[0]
            twin = None
            if dev in SPARK_RDMA:
                port = qsfp_port(SPARK_RDMA[dev])
                twin = [rdma_device_for(t) for t in QSFP_TWINS[port]]
            out.append(warn(f"NCCL uses only one HCA{who} ({dev}): one twin is one PCIe x4 link, about half the "
                            f"cable's {LINE_GBPS} Gb/s. Set {hca_advice(twin or [])} so it drives both."))
        elif spark and len({qsfp_port(SPARK_RDMA[d]) for d in spark}) == 1 and len(spark) == 2:
            out.append(ok(f"NCCL drives both twins of QSFP port {qsfp_port(SPARK_RDMA[spark[0]])}{who} "
                          f"({', '.join(spark)}): the whole cable."))
        elif len(spark) == 4:
            out.append(ok(f"NCCL drives all four twins{who} (both ports)."))
        if {"IB", "RoCE"} <= {h.link_layer for h in hcas}:  # an InfiniBand port's queue pair cannot reach a RoCE one's
            mixed.append(f"{', '.join(f'{h.device}:{h.port}' for h in hcas if h.link_layer == 'RoCE')} RoCE{who}")
    asked = (log.env_settings.get("NCCL_IB_HCA") or "").strip().strip("\"'")
    used = sorted({h.device for h in log.ib_devices})
    exclude, exact, names = ib_hca_names(asked)
    missing = [n for n in names if not ib_hcas(("=" if exact else "") + n, used)]  # each name alone selects none
    if used and missing and not exclude and "$" not in asked:  # blind batch xd016: mlx5_6,mlx_8
        out.append(warn(f"NCCL_IB_HCA={asked} names {listed(missing)}, which NCCL did not use: its `NET/IB : Using` "
                        f"lines list {listed(used)} only. A name that matches no device (a typo; `rdma link` "
                        "lists the names) or a port that is down leaves NCCL on fewer NICs than asked for."))
    if mixed:
        failed = any("modify_qp" in w for w in log.warnings)  # (ibv_modify_qp, as NCCL names it)
        out.append((warn if failed else info)(
            f"NCCL's device list mixes InfiniBand and RoCE (Ethernet) ports ({'; '.join(mixed)}, the rest IB): a "
            "channel that pairs a RoCE port with a peer's InfiniBand port cannot connect (its queue pair fails, "
            "`ibv_modify_qp`)" + (", as here" if failed else "; this run's channels connected all the same")
            + ". List the ports of one link layer in NCCL_IB_HCA."))
    hca = log.env_settings.get("NCCL_IB_HCA")
    if hca is not None:
        exact = hca.startswith("=")
        names = [x for x in hca.lstrip("=^").split(",") if x]
        if not exact and any(n not in SPARK_RDMA and not re.search(r":\d+$", n) for n in names):
            out.append(info(f"NCCL_IB_HCA={hca}: without a leading `=` each name is a prefix, so `{names[0]}` "
                            f"matches every device whose name starts with it (`mlx5_1` matches mlx5_10 too). "
                            f"NCCL_IB_HCA=={hca.lstrip('=^')} matches exactly."))
    gid = log.env_settings.get("NCCL_IB_GID_INDEX")
    if gid is not None:
        out.append(info(f"NCCL_IB_GID_INDEX={gid}: it must be the RoCE v2 GID carrying the twin's IPv4 address on "
                        "every node (`show_gids`); a wrong index fails with `unhandled system error`."))
    if log.oob_iface and is_qsfp_twin(log.oob_iface):
        out.append(ok(f"NCCL's out-of-band (bootstrap) traffic uses {log.oob_iface}, a QSFP twin."))
    elif log.oob_iface == HOUSE_INTERFACE:
        out.append(info(f"NCCL's out-of-band (bootstrap) traffic uses {HOUSE_INTERFACE}, the 10 GbE port: only "
                        "small setup messages go there (NVIDIA's cluster script does the same); the data goes over RDMA."))
    if log.gdr_hcas:
        out.append(info("GPU Direct RDMA is reported enabled for " + ", ".join(log.gdr_hcas) + "; whether a GB10 "
                        "really uses it is contested, so it is not graded (NET/IB is what counts)."))
    return out


def _network_findings(log: NcclLog, verdict: str) -> list[Finding]:
    """What the network NCCL chose means for this communicator: with one node or one rank it carried nothing
    between machines (said once); else what the transport ``verdict`` means (:func:`_transport_findings`)."""
    if verdict == "unknown" and (log.nranks == 1 or log.nnodes == 1) and not log.channels:
        shape = f" ({log.nranks} ranks on one node: NCCL's nranks {log.nranks})" if log.nranks and log.nranks > 1 and log.nnodes == 1 else ""
        return [info(f"One {'rank' if log.nranks == 1 else 'node'} in this communicator{shape}: the network NCCL "
                     f"chose ({log.network or 'none named'}) carried nothing between machines: its network lines (NET/IB, NET/Socket) are not used on one host.")]
    return (_transport_findings(log, verdict) + _mixed_hcas(log) + _bootstrap_across_hosts(log) + many_hcas(log)
            + _idle_socket_iface(log))


def _one_lan(a: str, b: str) -> bool:
    """Whether two IPv4 addresses look like one subnet: their first three octets agree (NCCL prints no mask, so the
    usual /24 is assumed); never for IPv6 or a name."""
    pa, pb = a.split("."), b.split(".")
    return len(pa) == len(pb) == 4 and pa[:3] == pb[:3]


def _idle_socket_iface(log: NcclLog) -> list[Finding]:
    """NET/Socket listing two or more interfaces between machines (not loopback, a bridge or a tunnel) while every
    network channel line shown runs over the first, ``NET/Socket/0``: the others carry none of these channels
    (NVIDIA/nccl#278: two ports per host on one subnet, every ring on NET/Socket/0). A warning where an idle one is on
    the first's subnet (a second data port); said neutrally where every idle one is on another network (a management
    LAN most often, rightly left out)."""
    names = list(dict.fromkeys(s.name for s in log.socket_ifaces if s.name != "lo" and not _VIRTUAL_IFACE_RE.match(s.name)))
    net = [c for c in log.channels if c.transport == "NET/Socket"]
    if len(names) < 2 or len(net) < 2 or any(not c.detail.endswith("/0") for c in net):
        return []
    first = [s.address for s in log.socket_ifaces if s.name == names[0]]
    twins = [n for n in names[1:] if any(_one_lan(s.address, a) for s in log.socket_ifaces if s.name == n for a in first)]
    if not twins:
        addr = {s.name: s.address for s in log.socket_ifaces}
        return [info(f"NCCL lists {len(names)} socket interfaces, and every network channel in these lines ({len(net)}) "
                     f"runs over the first, `NET/Socket/0` ({names[0]}, {addr[names[0]]}); "
                     + ", ".join(f"{n} ({addr[n]})" for n in names[1:4]) + " carries none of them, and its address is not "
                     f"in {names[0]}'s /24 (NCCL prints no mask): likely another network, most often a management LAN, "
                     "rightly left out. Where it is a data port that reaches "
                     "the peers too, bonding the ports gives NCCL both's bandwidth; otherwise NCCL_SOCKET_IFNAME="
                     f"{names[0]} keeps NCCL off it.")]
    return [warn(f"NCCL lists {len(names)} socket interfaces ({', '.join(names[:4])}), but every network channel in "
                 f"these lines ({len(net)}) runs over the first, `NET/Socket/0` ({names[0]}): {', '.join(twins[:3])} "
                 f"on the same subnet carries none of them, so the run gets one interface's bandwidth, at most half of "
                 "what the ports give together. NCCL_SOCKET_NTHREADS and NCCL_NSOCKS_PERTHREAD add sockets on that "
                 "interface, not interfaces; bonding the ports gives NCCL one interface with both's bandwidth.")]


def _bootstrap_across_hosts(log: NcclLog) -> list[Finding]:
    """Hosts whose ranks bootstrap over different interfaces (each host's first ``Bootstrap : Using`` line): names
    differ harmlessly where both addresses are IPv4 (``eth0`` and ``enp1s0`` of one subnet), which is said; an IPv6
    link-local address, or IPv4 on one host and IPv6 on the other, cannot meet, and the ranks never connect.
    NVIDIA/nccl#1291 (two GH200 hosts: ``ib0`` with a link-local IPv6 address on one, ``bond0`` IPv4 on the other)."""
    seen = {h: v for h, v in log.bootstrap_by_host.items() if h}
    if len(seen) < 2 or len({iface for iface, _ in seen.values()}) < 2 or _came_up(log):
        return []  # one interface, or the ranks connected after all: bootstrap worked
    said = ", ".join(f"{h} {iface} ({addr})" for h, (iface, addr) in list(seen.items())[:4])
    v6 = {h: ":" in addr for h, (_, addr) in seen.items()}
    virtual = [f"{h}'s {iface}" for h, (iface, _) in seen.items() if _VIRTUAL_IFACE_RE.match(iface)]
    if virtual:
        return [warn(f"The ranks bootstrap over different interfaces: {said}. {', '.join(virtual)} is a container "
                     "bridge or virtual interface, whose address the other host most often cannot reach. Set "
                     "NCCL_SOCKET_IFNAME on every host to the interface of the network they share.")]
    if len(set(v6.values())) > 1 or any(addr.lower().startswith("fe80") for _, addr in seen.values()):
        return [fail(f"The ranks bootstrap over different networks: {said}. An IPv6 link-local address, or IPv4 on "
                     "one host and IPv6 on the other, cannot reach the other host, so the ranks never connect. Set "
                     "NCCL_SOCKET_IFNAME to the interface with an IPv4 address on every host, the same network "
                     "on each (for a container or srun, pass it into the job's environment).")]
    return [info(f"The hosts bootstrap over interfaces of different names: {said}. That works where the addresses are "
                 "on one network that routes between them; NCCL_SOCKET_IFNAME set on each host makes the choice "
                 "explicit.")]


_OTHER_RDMA_RE = re.compile(r"^(?:i40iw|irdma|rxe|siw|bnxt_re|qedr|efa|hns|erdma|mana|ocrdma|cxgb|vmw_pvrdma)")
"""RDMA devices of drivers other than ConnectX's (mlx4/mlx5, or the udev names rocep*/ibp* they get): Intel's iWARP
(i40iw, irdma), Soft-RoCE (rxe), soft iWARP (siw), Broadcom's, QLogic's, AWS's, Huawei's, Alibaba's, Azure's..."""


def _mixed_hcas(log: NcclLog) -> list[Finding]:
    """NCCL's `NET/IB : Using` list holding a device of another driver beside the ConnectX ones: NCCL spreads its
    rings over every device it lists, so a slower or unrelated one (an on-board iWARP port, a Soft-RoCE device) is in
    the path or fails to connect."""
    names = [h.device for h in log.ib_devices]
    odd = [n for n in names if _OTHER_RDMA_RE.match(n)]
    if not odd or len(odd) == len(names):
        return []
    rest = [n for n in names if n not in odd]
    hca = rest[0].split("_")[0] if "_" in rest[0] else ",".join(rest)  # mlx5_0, mlx5_1: the prefix names them all
    return [warn(f"NCCL's RDMA devices mix drivers: {', '.join(odd)} beside {', '.join(rest)}. NCCL uses every "
                 "device it lists, so the other one (an on-board iWARP port, a software RoCE device) carries part of "
                 f"the traffic, slower, or fails to reach the peer. List only the fabric's NICs: NCCL_IB_HCA={hca}.")]


_HCA_ASKED_RE = re.compile(r"(?:^|\s)(?:-x\s+)?NCCL_IB_HCA=(?P<hca>[^\s]{1,200})")


def with_command_hca(log: NcclLog, command: str | None) -> NcclLog:
    """The log with the command line's NCCL_IB_HCA (mpirun's `-x NCCL_IB_HCA=...`, an `env X=...` prefix) among its
    settings, where its own lines do not say it: what the ranks were given."""
    hca = _HCA_ASKED_RE.search(command or "")
    if not hca or "NCCL_IB_HCA" in log.env_settings:
        return log
    return dataclasses.replace(log, env_settings={**log.env_settings, "NCCL_IB_HCA": hca["hca"]})


def summarise_nccl_log(log: NcclLog, command: str | None) -> Summary:
    log = with_command_hca(log, command)
    verdict = transport_verdict(log)
    facts = dict(fields_of(log), transport_verdict=verdict, transports=list(log.transports),
                 ib_devices=[h._asdict() for h in log.ib_devices],
                 ib_devices_by_host={k: [h._asdict() for h in v] for k, v in log.ib_devices_by_host.items()},
                 socket_ifaces=[s._asdict() for s in log.socket_ifaces],
                 ib_connections=[q._asdict() for q in log.ib_connections],
                 channels_by_transport={t: sum(1 for c in log.channels if c.transport == t) for t in log.transports})
    facts.pop("channels")
    findings: list[Finding] = []
    if log.simulated:
        findings.append(info("This log says it is simulated (clusterlab's sim): the line shapes are copied from a real "
                             "two-Spark run."))
    if log.version:
        findings.append(info(f"NCCL {log.version}."))
    forced = {k: v for k, v in log.env_settings.items() if k in ("NCCL_PROTO", "NCCL_ALGO")}
    if forced:  # NCCL's tuner no longer chooses: fine for a test, a cap for a run
        findings.append(info("Set by the environment: " + ", ".join(f"{k}={v}" for k, v in forced.items()) + ". NCCL "
                             "then uses only that protocol or algorithm instead of choosing per size: LL carries half "
                             "its bytes as flags, Tree and Ring each suit some sizes, so large transfers run below "
                             "what the link gives. Unset them unless a test asks for them."))
    if log.init_complete and not log.errors:
        ends = (context().paste or "").rstrip().rsplit("\n", 1)[-1].rstrip().endswith("Init COMPLETE")  # (tb008)
        findings.append(ok(f"NCCL set its communicator up (`Init COMPLETE`, {log.init_complete} line(s)"
                           + (f" of {log.nranks} ranks" if log.nranks else "") + "): initialisation succeeded."
                           + (" The paste ends there: what the job did after it (its collectives, a hang) is not "
                              "shown." if ends else "")))
    elif not (log.errors or log.warnings or log.verbs_failures or log.bench or log.troubled):  # no end shown
        findings.append(told_hang(log) or info(
            f"{NO_ERROR_SEEN}, and no `Init COMPLETE`: they show NCCL connecting its channels, not whether it "
            "finished, so they cannot decide a hang or a failure after them; every rank's last lines (an `Init "
            "COMPLETE`, or the first WARN) would." if log.channels else
            f"{NO_ERROR_SEEN}, and no `Init COMPLETE` or channel either: the excerpt ends while NCCL was still "
            "setting its communicator up, so it does not show whether that worked; the lines after it (an `Init "
            "COMPLETE`, or the first WARN) would."))
    findings += _network_findings(log, verdict) + _inside_findings(log) + _gdr_off_findings(log)
    findings += _verbs_findings(log) + _chain_findings(log)
    findings += error_findings(log) + duplicate_gpus(log) + duplicates_on_one_host(log) + topology_findings(log)
    findings += hosts_disagree(log) + system_bandwidth(log)
    if log.bench:
        b = max(log.bench, key=lambda x: x.size_mib)
        findings.append(info(f"The benchmark lines end at {b.size_mib:g} MiB with busbw {b.busbw_gbs:g} GB/s (= {b.busbw_gbs * 8:g} Gb/s)."))
    return facts, findings
