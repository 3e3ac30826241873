"""Judge of lesson 2a's RDMA devices: which device is which twin and whether it is up (``rdma link``, sysfs under
``/sys/class/infiniband``, ``show_gids``, ``ibstat``, ``ibv_devinfo``), and their GID tables (a RoCE v2 IPv4 GID
at the index NCCL is given), on a Spark (rocep1s0f0 ... roceP2p1s0f1) or another host (mlx5_*, software RDMA).

Sources: docs/research/procedure.md §1.5, §1.6, §2 (NVIDIA's DGX Spark playbooks: the twins, NCCL_IB_HCA,
NCCL_IB_GID_INDEX); the figures are checks/ranges.toml's.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from ..parsers.common.commands import changes_state
from ..parsers.ib_sysfs import IbSysfs, ipv4_of_gid, roce_v2_ipv4_gid_index, RoceDevice
from ..parsers.ibstat import CaList
from ..parsers.rdma import RdmaLinks
from ..parsers.show_gids import GidTable
from ..spark_names import is_qsfp_twin, other_twin, qsfp_port
from .common import (C2S, JUMBO_MTU, LINE_GBPS, SPARK_RDMA, fail, host_findings, info, listed, ok, on_spark, port_findings,
                     soft_rdma_kind, warn)
from .model import Finding, Section, Summary
from .perftest import IB_BW_PASS_GBPS, PERF_GUIDE
from .roce_notes import (active_count, cut_gids, disabled_beside_cut, fabric_notes, gid_layouts, guid_gids, ib_lids, idle_port,
                         pinned_gid_index, trained_not_active, two_link_layers, uneven_rates, up_words)


#: PCI function of each Spark twin (procedure.md §1.1)
SPARK_PCI: dict[str, str] = {"enp1s0f0np0": "0000:01:00.0", "enp1s0f1np1": "0000:01:00.1",
                             "enP2p1s0f0np0": "0002:01:00.0", "enP2p1s0f1np1": "0002:01:00.1"}


# --------------------------------------------------------------------------- rdma link

def summarise_rdma(links: RdmaLinks, command: str | None) -> Summary:
    facts = {"links": [dataclasses.asdict(x) for x in links], "active": [x.device for x in links if x.is_active],
             "simulated": links.simulated, "truncated": links.truncated, "json": links.json,
             "software_rdma": [x.device for x in links if soft_rdma_kind(x.device)]}
    findings: list[Finding] = []
    if links.simulated:
        findings.append(info("This output says it is simulated (clusterlab's sim): no RDMA hardware is behind it."))
    spark = [x for x in links if x.device in SPARK_RDMA]
    for x in links:
        if x.state and not x.is_active and (x.physical_state or "").upper() == "LINK_UP":
            findings.append(trained_not_active(x))
        if x.device in SPARK_RDMA and x.netdev and x.netdev != SPARK_RDMA[x.device]:
            findings.append(warn(f"{x.device} rides on {x.netdev}; on a DGX Spark it belongs to {SPARK_RDMA[x.device]}: "
                                 "is this a Spark, or were the interfaces renamed?"))
    if not spark:
        findings += host_findings(list(dict.fromkeys(x.device for x in links)), "rdma link",
                                   {x.device: x.netdev for x in links})
        states = ", ".join(f"{x.device}/{x.port} {x.state or '?'}" + (f" on {x.netdev}" if x.netdev else "") + (
            f" (InfiniBand: {ib_lids(x)})" if x.lid is not None else "") for x in links)
        findings.append(info(f"Ports: {states}." + active_count(links)))
        hardware = [x for x in links if not soft_rdma_kind(x.device)]
        if hardware and not any(x.is_active for x in hardware):
            findings.append(fail("No RDMA port of an RDMA NIC is ACTIVE: NCCL would fall back to TCP sockets. Check "
                                 "the cable and that the netdevs are UP (`ip link`)."))
    else:
        findings += port_findings({x.device: x.is_active for x in spark}, "rdma link: state ACTIVE", command)
    if links.truncated:
        findings.append(info("The last line is cut off: paste the whole `rdma link` output."))
    return facts, findings


# --------------------------------------------------------------------------- sysfs

def _device_rows(devices: dict[str, RoceDevice]) -> list[dict[str, Any]]:
    rows = []
    for d in devices.values():
        for num, p in d.ports.items():
            idx = roce_v2_ipv4_gid_index(d, num)
            netdev = p.netdev or SPARK_RDMA.get(d.name)
            rows.append({"rdma_device": d.name, "port": num, "pci_bdf": d.pci_bdf, "domain": d.pci_domain,
                         "netdev": netdev, "qsfp_port": qsfp_port(netdev) if netdev else None,
                         "state": p.state, "phys_state": p.phys_state, "roce_v2_gid_index": idx,
                         "ipv4": p.gids[idx].ipv4 if idx is not None else None,
                         "gids": [dataclasses.asdict(g) for g in p.gids.values()]})
        if not d.ports:
            rows.append({"rdma_device": d.name, "port": None, "pci_bdf": d.pci_bdf, "domain": d.pci_domain,
                         "netdev": SPARK_RDMA.get(d.name), "qsfp_port": None, "state": None, "phys_state": None,
                         "roce_v2_gid_index": None, "ipv4": None, "gids": []})
    return rows


def _gid_findings(rows: list[dict[str, Any]]) -> list[Finding]:
    """RoCE v2 IPv4 GID per active device, and whether one NCCL_IB_GID_INDEX fits them all. A row's ``ipv4`` is
    None with ``redacted`` set when the paste masked the address; ``unknown_v2`` counts RoCE v2 GIDs whose kind the
    masking hides."""
    out: list[Finding] = []
    active = [r for r in rows if (r["state"] or "").upper() == "ACTIVE"]
    # a Spark's device on its own netdev (rocep1s0f0 on enp1s0f0np0); on another one (enp1s0f0) it is another ConnectX's
    spark = bool(on_spark(any(r["rdma_device"] in SPARK_RDMA and r["netdev"] in (SPARK_RDMA[r["rdma_device"]], None)
                              for r in rows) or None))
    for r in active:
        name = r["rdma_device"]
        if r["roce_v2_gid_index"] is None and r.get("unknown_v2"):
            out.append(info(f"{name}: the GIDs are masked, so which RoCE v2 GID carries the IPv4 address cannot be "
                            "told: paste `show_gids` with at least the `::ffff:` part and the IPv4 column visible."))
        elif r["roce_v2_gid_index"] is None and r.get("v1_ipv4"):
            idx, addr = r["v1_ipv4"][0]
            out.append(info(f"{name}: {addr} is on its netdev{' ' + r['netdev'] if r['netdev'] else ''} (RoCE v1 GID "
                            f"index {idx}); " + (f"its RoCE v2 row, index {idx + 1} after it, is cut off in this paste."
                                                 if r.get("cut") else "no RoCE v2 row carries it: this device offers "
                                                 "RoCE v1 only, or the table was shortened. NCCL and perftest need "
                                                 "the RoCE v2 GID.")))
        elif r["roce_v2_gid_index"] is None and r.get("ipv6_v2"):
            idx, gid = r["ipv6_v2"][0]
            out.append(warn(f"{name} has no IPv4 RoCE v2 GID, but RoCE v2 GID index {idx} carries the IPv6 address "
                            f"{gid}{' (' + r['netdev'] + ')' if r['netdev'] else ''}, which is not link-local: RoCE v2 "
                            "can route over it. Tools look for an IPv4 GID unless told: NCCL needs "
                            f"NCCL_IB_ADDR_FAMILY=AF_INET6 (or NCCL_IB_GID_INDEX={idx}), perftest `-x {idx}`, "
                            "Mooncake MC_GID_INDEX; or give the netdev an IPv4 address for an IPv4 GID."))
        elif r["roce_v2_gid_index"] is None:
            has_v2 = any(g.get("type") == "RoCE v2" for g in r["gids"])
            why = ("only link-local (fe80) RoCE v2 GIDs" if has_v2 else "no RoCE v2 GID at all")
            example = (" (netplan, e.g. 192.168.100.10/24 on enp1s0f1np1)" if spark else "")
            between = "the Sparks" if spark else "the nodes"
            twin = other_twin(r["netdev"]) if r["netdev"] and is_qsfp_twin(r["netdev"]) else None
            if r.get("state_unknown") and not r["netdev"] and (any(x["netdev"] for x in rows) or r.get("guid_gids")):
                # no netdev on any of its rows: an InfiniBand port
                out.append(info(f"{name} has no netdev in this table: an InfiniBand port (its GID comes from the port's "
                                "GUID), where RoCE and its IPv4 GIDs do not apply. `ibstat` shows its state."))
                continue
            if r.get("state_unknown") and twin and any(x["netdev"] == twin and x["roce_v2_gid_index"] is not None for x in rows):
                out.append(warn(f"{name} has {why}: its netdev {r['netdev']} has no IPv4 address, while its twin {twin} "
                                "(the other half of the same QSFP port, so the port is cabled) has one. The " + C2S
                                + " gives each half its own address in its own /24, so that both carry traffic."))
                continue
            if r.get("state_unknown") and any(x["roce_v2_gid_index"] is not None or x.get("ipv6_v2") for x in rows):
                # show_gids shows no port state: beside devices that have an IPv4 GID, an uncabled port's twin
                out.append(info(f"{name} has {why}: its netdev {r['netdev'] or '?'} has no IPv4 address. So are the "
                                "twins of a port without a cable; if this one carries traffic, give its netdev an "
                                f"address{example}. `rdma link` says which ports are ACTIVE."))
                continue
            active_word = "" if r.get("state_unknown") else " is ACTIVE but"
            # show_gids shows no port state: elsewhere that device may be one not used; a Spark's twins are the link
            out.append((warn if r.get("state_unknown") and not (spark or on_spark(None)) else fail)(
                f"{name}{active_word} has {why}: its netdev {r['netdev'] or '?'} has no IPv4 address, so "
                f"RoCE v2 cannot route between {between}. Give the netdev its address{example}; the GID "
                "appears by itself."))
        else:
            carries = r["ipv4"] or "an IPv4 address (masked in the paste)"
            below = r.get("link_local_below") or 0
            if len(r.get("addresses") or ()) > 1:  # one RoCE v2 GID per IPv4 address of the netdev
                idx, ips = [str(i) for i, _ in r["addresses"]], [a for _, a in r["addresses"]]
                out.append(ok(f"{name}: its netdev {r['netdev'] or '?'} has {len(ips)} IPv4 addresses, each with its "
                              f"own RoCE v2 GID: indexes {', '.join(idx[:-1])} and {idx[-1]} carry {', '.join(ips[:-1])} "
                              f"and {ips[-1]}, in that order. The index to use is that of the address the "
                              "traffic goes from (the one NCCL_SOCKET_IFNAME's interface and the peer's subnet use)."))
                continue
            moved = below > 2 and bool(on_spark(spark))  # Spark playbooks and launchers pin the usual index
            out.append((warn if moved else ok)(f"{name}: RoCE v2 GID index {r['roce_v2_gid_index']} carries {carries}"
                          f"{' (' + r['netdev'] + ')' if r['netdev'] else ''}."
                          + (f" Below it are {below} link-local IPv6 (fe80::) GIDs: each IPv6 address of the netdev "
                             f"takes two (RoCE v1 and v2), so with {below // 2} of them the IPv4 GID moves up; a tool "
                             "that assumes index 3 (a playbook's fixed NCCL_IB_GID_INDEX), or takes the first GID, gets a "
                             "link-local one. Set this node's own index, or remove the extra IPv6 address (NetworkManager's "
                             "`ipv6.addr-gen-mode eui64`, or `ipv6.method disabled`, on the twin)."
                             if below > 2 else "")))
    indices = {r["rdma_device"]: r["roce_v2_gid_index"] for r in active if r["roce_v2_gid_index"] is not None}
    values = set(indices.values())
    if len(values) == 1 and not any(r.get("several") or len(r.get("addresses") or ()) > 1 for r in active):
        # several netdevs, or addresses: said above
        idx = values.pop()
        other = "the other Spark" if spark else "every other node"
        out.append(info(f"If you set NCCL_IB_GID_INDEX, use {idx} (the same for every active device here; perftest "
                        f"picks it too and prints `GID index : {idx}`). Unset, NCCL 2.21 and later pick the RoCE v2 "
                        f"IPv4 GID themselves. Check {other}: the index can differ per node."))
    elif len(values) > 1:
        where = ", ".join(f"{d} {i}" for d, i in indices.items())
        out.append(warn(f"The RoCE v2 IPv4 GID sits at different indices ({where}): one NCCL_IB_GID_INDEX cannot fit "
                        "all devices. Leave NCCL_IB_GID_INDEX unset and let NCCL pick per device (NCCL 2.21 and later)."))
    return out


def summarise_sysfs(devices: IbSysfs, command: str | None) -> Summary:
    rows = _device_rows(devices)
    facts = {"devices": rows, "simulated": devices.simulated, "truncated": devices.truncated}
    findings: list[Finding] = []
    if devices.simulated:
        findings.append(info("This output says it is simulated (clusterlab's sim): the sysfs layout is copied from a "
                             "real DGX Spark, with this machine's addresses."))
    for d in devices.values():
        netdev = SPARK_RDMA.get(d.name)
        if netdev and d.pci_bdf and d.pci_bdf.lower() != SPARK_PCI[netdev]:
            findings.append(warn(f"{d.name} sits on PCI {d.pci_bdf}; on a DGX Spark it is {SPARK_PCI[netdev]}: is this "
                                 "a Spark?"))
    for r in rows:
        if r["port"] is None:
            continue
        where = ", ".join(x for x in (f"PCI {r['pci_bdf']}" if r["pci_bdf"] else "",
                                      r["netdev"] or "", f"QSFP port {r['qsfp_port']}" if r["qsfp_port"] is not None
                                      else "") if x)
        state = f"{r['state'] or '?'}/{r['phys_state'] or '?'}"
        if r["state"] is None:
            shown = "; ".join(f"GID {g['index']}" + "".join(f", {x}" for x in (g.get("type"), g.get("ipv4") and
                                                                                f"IPv4 {g['ipv4']}", g.get("ndev")) if x)
                              for g in r["gids"])
            findings.append(info(f"{r['rdma_device']} port {r['port']} ({where}): its state is not in this output"
                                 + (f"; {shown}." if shown else ".")
                                 + (" NCCL_IB_GID_INDEX wants the RoCE v2 entry carrying the twin's IPv4 address."
                                    if shown else "")))
        elif (r["state"] or "").upper() != "ACTIVE":
            findings.append(info(f"{r['rdma_device']} port {r['port']} ({where}): {state}, not in use."))
        else:
            findings.append(ok(f"{r['rdma_device']} port {r['port']} ({where}): {state}."))
    bare = [r["rdma_device"] for r in rows if r["port"] is None]
    if bare:
        spark_names = [d for d in bare if d in SPARK_RDMA]
        findings.append(info(f"RDMA devices listed: {', '.join(bare)}"
                             + (" (all four ConnectX-7 twins of a Spark)" if len(spark_names) == 4 else "")
                             + ". Their port state is not in this output: run `rdma link`."))
    findings += host_findings(list(devices), "sysfs", {r["rdma_device"]: r["netdev"] for r in rows})
    known = [r for r in rows if r["state"] is not None]
    spark = {r["rdma_device"]: r["state"].upper() == "ACTIVE" for r in known if r["rdma_device"] in SPARK_RDMA}
    if spark:
        findings += port_findings(spark, "sysfs ports/1/state", command)
    elif known and not any(r["state"].upper() == "ACTIVE" for r in known):
        findings.append(fail("No RDMA port is ACTIVE: NCCL would fall back to TCP sockets."))
    findings += _gid_findings(rows)
    if devices.truncated:
        findings.append(info("The last line is cut off: the lines before it were read."))
    return facts, findings


# --------------------------------------------------------------------------- show_gids

def _link_local_gid(gid: str) -> bool:
    """Whether a GID is a link-local IPv6 address (fe80::/10), which does not route."""
    return gid.lower()[:3] in ("fe8", "fe9", "fea", "feb")


def summarise_show_gids(table: GidTable, command: str | None) -> Summary:
    facts = {"rows": [dataclasses.asdict(r) for r in table], "n_gids_found": table.n_gids_found,
             "truncated": table.truncated, "roce_v2_ipv4": [dataclasses.asdict(r) for r in table.roce_v2_ipv4()],
             "redacted": table.redacted}
    findings: list[Finding] = []
    if not table:
        said = "`n_gids_found=0`" if table.n_gids_found == 0 else "no row under its header; the count line is cut"
        return facts, [fail(f"show_gids found no GID at all ({said}): no RDMA device here has an address on its "
                            "own netdev, so RoCE has nothing to address (a RoCE GID exists only for an IP address of the "
                            "RDMA device's netdev). Give the twins their addresses (`ip addr`); inside a container whose "
                            "interface is a veth or another virtual one, the RDMA NIC's netdev is not in it at all (a "
                            "host-network pod or an SR-IOV/macvlan interface on the NIC is).")]
    devices = list(dict.fromkeys(r.device for r in table))
    rows = []
    for dev in devices:
        v2 = table.roce_v2_ipv4(dev)
        own = next((r.netdev for r in table if r.device == dev and r.netdev and r.gid.lower().startswith("fe80")),
                   None)  # the device's own netdev holds its link-local GIDs; a VLAN or VXLAN on it has its own rows
        pick = next((r for r in v2 if r.netdev == own), v2[0]) if v2 else None
        netdev = pick.netdev if pick and pick.netdev else next((r.netdev for r in table if r.device == dev and r.netdev),
                                                               None)
        if len({r.netdev for r in v2}) > 1:
            where = ", ".join(f"index {r.index} on {r.netdev or '?'}" for r in v2)
            one = f" for one address, {v2[0].ipv4}" if len({r.ipv4 for r in v2}) == 1 and v2[0].ipv4 else ""
            findings.append(warn(
                f"{dev} has RoCE v2 IPv4 GIDs on several netdevs ({where}){one}: "
                f"a tool that takes the first RoCE v2 GID, or assumes index 3, gets {v2[0].netdev}'s. Traffic on "
                f"{dev}'s own netdev {own or '?'} needs its index: NCCL_IB_GID_INDEX={pick.index} (UCX_IB_GID_INDEX "
                "likewise): unset, NCCL and perftest may take the other. Or remove the address from the other netdev."))
        rows.append({"rdma_device": dev, "state": "ACTIVE", "state_unknown": True,  # show_gids shows no port state
                     "roce_v2_gid_index": pick.index if pick else None,
                     "ipv4": pick.ipv4 if pick else None, "netdev": netdev, "several": len({r.netdev for r in v2}) > 1,
                     "addresses": list(dict.fromkeys((r.index, r.ipv4) for r in v2 if r.netdev == netdev and r.ipv4)),
                     "unknown_v2": sum(1 for r in table if r.device == dev and r.is_roce_v2 and r.ipv4_gid is None),
                     "link_local_below": sum(1 for r in table if r.device == dev and pick and r.index < pick.index
                                             and r.gid.lower().startswith("fe80")),
                     "gids": [{"type": "RoCE v2" if r.is_roce_v2 else "RoCE v1"} for r in table if r.device == dev],
                     "v1_ipv4": [(r.index, r.ipv4) for r in table if r.device == dev and not r.is_roce_v2
                                 and r.ipv4], "cut": table.truncated and dev == devices[-1], "guid_gids": guid_gids(table, dev),
                     "ipv6_v2": [(r.index, r.gid) for r in table if r.device == dev and r.is_roce_v2
                                 and r.ipv4_gid is False and not r.redacted and not _link_local_gid(r.gid)]})
    findings += host_findings(devices, "show_gids")
    if table.redacted:
        findings.append(info("The GIDs (or their addresses) are masked in this paste (`xxxx`): the index, RoCE version "
                             "and netdev of each row are still read; the addresses themselves are not shown, so check "
                             "them with `ip addr` on the node."))
    findings += _gid_findings(rows) + pinned_gid_index(table)
    findings.append(info("show_gids lists every device, used or not: a GID with an IPv4 address exists only while "
                         "its netdev has that address. Check the link state with `rdma link`."))
    if table.truncated:
        findings.append(info("The table is cut off (no `n_gids_found=` line): the rows shown were read."))
    return facts, findings


# --------------------------------------------------------------------------- ibstat

def summarise_ibv_devices(devices: list[str], command: str | None) -> Summary:
    """``ibv_devices``: the RDMA devices libibverbs sees (no state: `rdma link` or `ibstat` shows that); an empty list
    whose warnings name kernel devices no user-space provider claims; a device whose node GUID is all zeros."""
    unique, unclaimed = list(dict.fromkeys(devices)), list(getattr(devices, "unclaimed", ()))
    zero = list(getattr(devices, "zero_guid", ()))
    if unique:
        findings = [info(f"RDMA devices libibverbs sees: {listed(unique)}; this list shows no state (`rdma link` "
                         "shows which are ACTIVE).")]
    elif unclaimed:
        findings = [fail(f"ibv_devices lists no RDMA device, though the kernel has {len(unclaimed)} "
                         f"({', '.join(unclaimed[:4])}): libibverbs found no user-space provider for it (`no userspace "
                         "device-specific driver found`), so no program can open it. Install rdma-core's providers for "
                         "its driver (ibverbs-providers: libmlx5, librxe...) where this runs, of the host's version.")]
    else:
        findings = [fail("ibv_devices lists no RDMA device: the driver is not loaded, or a container was started "
                         "without /dev/infiniband (`--device=/dev/infiniband` or `--privileged`).")]
    findings += [fail(f"{listed(zero)}: node GUID 0000000000000000, never assigned: a virtual function (SR-IOV) left "
                      "without its GUID (and on RoCE without a MAC), so RDMA CM and perftest cannot use it. Give each VF "
                      "its MAC and node/port GUID (`ip link set <pf> vf N mac ... node_guid ... port_guid ...`, then "
                      "rebind it), or let the SR-IOV operator do it.")] if zero else []
    return {"devices": list(devices), "zero_guid": zero}, findings + host_findings(unique, "ibv_devices")


def summarise_ibstat(cas: CaList, command: str | None, source: str = "ibstat") -> Summary:
    facts = {"cas": [dict(dataclasses.asdict(c), model=c.model) for c in cas], "truncated": cas.truncated}
    findings: list[Finding] = []
    kinds = {(c.ca_type, c.firmware) for c in cas if c.ca_type or c.firmware}
    if len(kinds) == 1 and len(cas) > 1:
        ca_type, fw = kinds.pop()
        model = next((c.model for c in cas if c.model), None)
        bits = [x for x in (f"{ca_type} = {model}" if model else ca_type, f"firmware {fw}" if fw else None) if x]
        findings.append(info(f"{len(cas)} devices ({', '.join(c.ca or '?' for c in cas)}): {', '.join(bits)}."))
    ethernet = [f"{c.ca} port {p.port}" for c in cas for p in c.ports if (p.link_layer or "").lower() == "ethernet"]
    ib = [f"{c.ca} port {p.port}" for c in cas for p in c.ports if (p.link_layer or "").lower() == "infiniband"]
    if ethernet and ib:  # as NCCL's device list that mixes them (judges.nccl): a note, not a fault by itself
        findings.append(two_link_layers(cas, ethernet, ib))
    elif ethernet:
        findings.append(info("Link layer Ethernet, i.e. RoCE (RDMA over Ethernet)"
                             + (": a Spark's ConnectX-7 ports have no InfiniBand mode" if on_spark(None) is not False
                                else "") + "; NCCL still calls its RDMA transport NET/IB."))
    zero_guid = [f"{c.ca or 'this device'} port {p.port}" for c in cas for p in c.ports if p.is_active and
                 (p.link_layer or "").lower() == "ethernet" and p.port_guid
                 and not p.port_guid.lower().removeprefix("0x").strip("0")]
    if zero_guid:  # RoCE: the port GUID is GID[0]'s interface part (the netdev's IPv6 link-local address)
        findings.append(warn(f"{', '.join(zero_guid)}: Port GUID 0x0000000000000000 on an Ethernet (RoCE) port: "
                             "its GID index 0 is empty, since its netdev has no IPv6 link-local address (IPv6 off, "
                             "or the netdev in another network namespace, a container's). A program that uses GID 0 "
                             "(perftest without -x) cannot connect; `show_gids` lists the indexes that hold an "
                             "address (give the netdev its IPv4 address and use that RoCE v2 index)."))
    unset = [c.ca or "this device" for c in cas  # a ConnectX's (AWS EFA and others print a zero GUID always)
             if c.guid_unset and (c.ca or "mlx").startswith(("mlx", "roce", "ibp"))]
    if unset:  # linux-rdma/rdma-core#1547, k8snetworkplumbingwg/sriov-network-operator#267 (SR-IOV VFs)
        odd = [c.node_guid for c in cas if c.guid_unset and (c.node_guid or "").strip("0x:")]  # (wi017: ...0001)
        findings.append(warn(f"{', '.join(unset)}: node GUID {'a placeholder, ' + odd[0] if odd else 'all zeros'}: nobody set this device's GUID, as with an "
                             "SR-IOV virtual function whose PF never assigned one. Plain verbs can work; RDMA-CM "
                             "users (`ib_write_bw -R`, rping, UCX, NVMe-oF) fail or crash on it (older librdmacm "
                             "dereferenced its missing device: rdma-core PR 1547), and on InfiniBand the port needs a GUID to join the "
                             "fabric. Set one from the PF (`ip link set <pf> vf <n> node_guid <guid>`), rebind the VF."))
    any_active = any(p.is_active for c in cas for p in c.ports)  # a Down port beside an Active one is one not used
    for c in cas:
        name = c.ca or "this device"
        bits = [x for x in (f"{c.ca_type} = {c.model}" if c.model else c.ca_type,
                            f"firmware {c.firmware}" if c.firmware else None) if x]
        if bits and not (len(cas) > 1 and len({(x.ca_type, x.firmware) for x in cas if x.ca_type or x.firmware}) == 1):
            findings.append(info(f"{name}: {', '.join(bits)}."))
        for p in c.ports:
            label = f"{name} port {p.port}"
            phys = f"/{p.physical_state}" if p.physical_state else ""  # plain ibv_devinfo prints no physical state
            if p.is_active and c.ca not in SPARK_RDMA:
                rate = p.rate_gbps
                findings.append(ok(f"{label}: Active{phys}"
                                   + (f" at {rate:g} Gb/s (this NIC's negotiated rate, {rate / 8:g} GB/s per port at most)" if rate is not None else "")
                                   + up_words(cas, c, p)))
            elif p.is_active:
                rate = p.rate_gbps
                if rate is not None and rate >= LINE_GBPS:
                    findings.append(ok(f"{label}: Active{phys} at {rate:g} Gb/s, the full "
                                       f"{LINE_GBPS} GbE "
                                       "of a Spark QSFP port (each twin reports the port's rate)."))
                elif rate is not None and LINE_GBPS / 2 <= rate < LINE_GBPS:
                    findings.append(warn(f"{label}: Active at only {rate:g} Gb/s: the link negotiated down; a Spark "
                                         f"port runs at {LINE_GBPS}. Use a cable rated for {LINE_GBPS}G; through a "
                                         f"switch, force {LINE_GBPS}G "
                                         "and turn auto-negotiation off on the switch port."))
                else:
                    findings.append(ok(f"{label}: Active{phys}" + (f" at {rate:g} Gb/s" if rate is not None else "")
                                       + ": the port's link is up and healthy."))
            elif (p.state or "").lower() == "down" and (p.physical_state or "").lower() == "linkup" \
                    and (p.link_layer or "").lower() == "infiniband":
                sm = (f"a subnet manager is on the fabric (SM lid {p.sm_lid}) but has not brought this port up"
                      if p.sm_lid else "no subnet manager has brought the port up")
                findings.append(fail(f"{label} is Down though its physical link is up (LinkUp): the cable and the far "
                                     f"end are fine, but {sm}, so it has no LID and nothing can use it. "
                                     + ("Check the SM's log for this port (a partition key it lacks, a port the SM "
                                        "disabled); " if p.sm_lid else "Check that a subnet manager runs (opensm, or "
                                        "the switch's); ") + "for an SR-IOV virtual function, that the SM has "
                                     "virtualization on and the VF its GUID."))
            elif (p.state or "").lower() == "down" and (p.link_layer or "").lower() == "infiniband" \
                    and p.base_lid and 0 < p.base_lid < 0xC000 and (p.physical_state or "").lower() != "disabled":
                findings.append(fail(f"{label} is Down{phys}, yet it keeps the LID {p.base_lid} a "
                                     "subnet manager gave it" + (f" (SM lid {p.sm_lid})" if p.sm_lid else "") + ": it "
                                     "had a link and lost it, so this rail carries nothing now. "
                                     + ("Polling: it is trying to train and sees no partner: " if
                                        (p.physical_state or "").lower() == "polling" else "")
                                     + "check the cable or transceiver and the switch port (`ibportstate`, the "
                                     "switch's port log); the Rate of a port that is down means nothing."))
            elif p.state is not None and any_active:
                findings.append(idle_port(label, p, phys))
            elif (p.state or "").lower().startswith("init") and (p.physical_state or "").lower() == "linkup":
                findings.append((fail if p.sm_lid else warn)(
                    f"{label}: {p.state}{phys}: cabled and trained, but not brought up: a subnet manager is on the "
                    f"fabric (SM lid {p.sm_lid}) and has not activated this port, so it carries nothing. Check the SM's "
                    "log for it (a partition key the port lacks, a sweep still pending; for an SR-IOV function, the "
                    "SM's virtualization) and `ibportstate`." if p.sm_lid else
                    f"{label}: {p.state}{phys}: cabled and trained, but no subnet manager has configured it (an "
                    "InfiniBand port waits in Initializing for one): start one (opensm on a host of the fabric, or the "
                    "switch's)."))
            elif p.state is not None and (note := disabled_beside_cut(cas, p, f"{label}: {p.state}{phys}")):
                findings.append(note)
            elif p.state is not None:  # no port of the output is Active: nothing here can carry RDMA
                findings.append((fail if cas.whole and sum(len(x.ports) for x in cas) > 1 else warn)(f"{label}: {p.state}{phys}, and no port in this output is "
                                     "Active, so none of it can carry RDMA: a port in use needs a cable (or module) "
                                     "and a live far end, and its netdev up (`ip link`); `Disabled` is a port turned "
                                     "off. The Rate of a port that is down means nothing."))
    findings += uneven_rates(cas) + host_findings([c.ca for c in cas if c.ca], source)
    spark = {c.ca: any(p.is_active for p in c.ports) for c in cas if c.ca in SPARK_RDMA and c.ports}
    if spark:
        findings += port_findings(spark, f"{source}: State Active", command)
    if cas.truncated:
        findings.append(info("The output is cut off inside the last port block: the lines shown were read."
                             if source == "ibstat" else "The output starts inside a port block (no `hca_id:` line): "
                             "the lines shown were read, as port 1 of a device not named."))
    for w in cas.warnings:
        findings.append(info(f"ibstat warned: {w}"))
    if getattr(cas, "panic", None):
        findings.append(warn(f"ibstat stopped at `{cas.panic}`: the devices after {cas[-1].ca or 'the last one read'} "
                             "are missing from this output. A device it cannot stat vanished while it ran (a VF "
                             "removed, a driver reset, a failed NIC): `rdma link` and `sudo dmesg | grep mlx5` "
                             "say which."))
    return facts, findings


def summarise_ibv_devinfo(cas: CaList, command: str | None) -> Summary:
    """ibstat's reading of the ports (the same shapes), plus what only ibv_devinfo shows: a port in INIT on
    InfiniBand (no subnet manager), RoCE's active MTU, and the GID table of ``-v``."""
    facts, findings = summarise_ibstat(cas, command, "ibv_devinfo")
    if cas.unopened:
        shown = ", ".join(c.ca or "?" for c in cas)
        findings.append(warn(f"{cas.unopened} RDMA device(s) could not be opened (`Failed to open device`); only "
                             f"{shown} could. In a container, the others' device files (/dev/infiniband/uverbs*) are "
                             "not passed in (an SR-IOV pod gets only its VF's): pin the job to the devices it can open "
                             f"(NCCL_IB_HCA={shown}), or pass the others in."))
    bare = [c.ca or "this device" for c in cas if not c.ports]  # ibv_devinfo prints each device's port blocks
    if bare:
        findings.append(info(f"{', '.join(bare)}: the output stops before the port section, so the port's state, link "
                             "layer, MTU and rate are not shown (`ibv_devinfo -d <device>` or `ibstat` shows them)."))
    for c in cas:
        for p in c.ports:
            label = f"{c.ca or 'this device'} port {p.port}"
            ib = (p.link_layer or "").lower() == "infiniband"
            if ib and (p.state or "").lower() == "initializing":
                findings.append(warn(f"{label} is PORT_INIT on InfiniBand: the link is up but no subnet manager has "
                                     "configured it (no LID yet). Run a subnet manager (opensm on one host, or the "
                                     "switch's), then the port turns ACTIVE."))
            if ib and (p.state or "").lower() == "down" and not any(f.message.startswith(f"{label}: Down/Disabled, yet it keeps") for f in findings):
                findings = [f for f in findings if not f.message.startswith(f"{label}: Down/")]  # said better here
                findings.append(info(f"{label} is PORT_DOWN on InfiniBand: no physical link on it (no cable, or the far "
                                     "end down); a port with a link but no subnet manager would show PORT_INIT. Fine "
                                     "if no job uses it."))
            if p.active_mtu and (p.link_layer or "").lower() != "infiniband" and p.is_active:
                findings.append(info(f"{label}: active_mtu {p.active_mtu}. RoCE uses the largest RDMA MTU (256 to 4096) "
                                     "that fits the Ethernet interface's MTU, so " + (
                                         "4096 means the interface carries jumbo frames." if p.active_mtu >= 4096 else
                                         f"{p.active_mtu} means the interface is at a standard MTU (1500); jumbo "
                                         f"frames (MTU {JUMBO_MTU} on both ends) give RoCE 4096.")))
            findings += _devinfo_gid_findings(label, c.ca or "this device", p)
    return facts, findings + gid_layouts(cas) + fabric_notes(cas)


def _devinfo_gid_findings(label: str, name: str, port: Any) -> list[Finding]:
    """What ``ibv_devinfo -v``'s GID lines of one port say. With their types printed, the same judge as
    show_gids and sysfs (:func:`_gid_findings`); without (older rdma-core), which indices hold an IPv4
    address; and the link-local (fe80) ones, which do not route between hosts."""
    if not port.gids:
        return []
    v4 = [(i, ipv4_of_gid(g), k) for i, g, k in port.gids if ipv4_of_gid(g)]
    local = [i for i, g, _ in port.gids if g.lower().startswith("fe80")]
    out: list[Finding] = []
    if any(k for _, _, k in port.gids) and not any(k == "RoCE v2" for _, _, k in port.gids):  # (v1 only)
        out.append(info(f"{label}: no RoCE v2 GID among the {len(port.gids)} shown (RoCE v1 only): a device with RoCE v2 "
                        "lists a v2 entry beside each v1 one, so the table is cut here or the device offers v1 only; "
                        "`show_gids` shows the whole table."))
    elif any(k for _, _, k in port.gids):
        v2 = next(((i, ip) for i, ip, k in v4 if k == "RoCE v2"), (None, None))
        up = port.is_active or port.physical_state == "LinkUp"
        out += cut_gids(label, port, v2[0]) or _gid_findings([{
            "rdma_device": name, "state": "ACTIVE" if up or port.state is None else port.state, "netdev": None, "roce_v2_gid_index":
            v2[0], "ipv4": v2[1], "unknown_v2": 0, "gids": [{"type": k} for _, _, k in port.gids]}])
    else:
        for ip in dict.fromkeys(ip for _, ip, _ in v4):
            idx = [str(i) for i, x, _ in v4 if x == ip]
            out.append(info(f"{label}: GID {'indices' if len(idx) > 1 else 'index'} {', '.join(idx)} hold {ip} "
                            "(IPv4-mapped); this output does not say which is RoCE v2 (of a v1/v2 pair it is usually "
                            "the second): `show_gids` or `cat /sys/class/infiniband/<dev>/ports/1/gid_attrs/types/"
                            "<index>` says."))
    if local:
        out.append(info(f"{label}: GID {'indices' if len(local) > 1 else 'index'} {', '.join(map(str, local))} "
                        "hold the link-local fe80:: address: not routable between hosts; a queue pair on it times "
                        "out across nodes (use the IPv4 RoCE v2 index)."))
    return out


def both_rails(items: list[tuple[Section, Any]]) -> list[tuple[int, Finding]]:
    """Two or more ib_write_bw clients on different Spark twins in one paste: their total."""
    seen: dict[str, float] = {}
    last = None
    for index, (s, parsed) in enumerate(items):
        if s.kind != "perftest" or s.error or not parsed:
            continue
        for r in parsed:
            if r.device in SPARK_RDMA and r.bw_average_gbps is not None and r.role != "server":
                seen[r.device] = r.bw_average_gbps
                last = index
    if len(seen) < 2 or last is None:
        return []
    total = sum(seen.values())
    parts = " + ".join(f"{v:.2f}" for v in seen.values())
    level = ok if total >= 2 * IB_BW_PASS_GBPS else warn
    return [(last, level(f"Twins {', '.join(seen)}: {parts} = {total:.2f} Gb/s together, if they ran at the same "
                         f"time ({PERF_GUIDE}: 92.57 + 97.28 = 189.85 Gb/s over one cable)."))]


def gid_index_across_tables(items: list[tuple[Section, Any]]) -> list[tuple[int, Finding]]:
    """``show_gids`` tables of two nodes (two pods) in one paste whose RoCE v2 IPv4 GIDs sit at different indexes: one
    NCCL_IB_GID_INDEX set for every node cannot fit them all (multus-cni#1100: index 5 in one pod, 7 in the other, on
    the same device name). Two tables are of two nodes when their prompts name two hosts, or when neither names one
    and a device of the same name carries another IPv4 address in each; never across a command that changed the
    state between them (one host before and after `ip addr add`), nor two devices of one host (the table's own
    judge says that)."""
    tables = []
    for index, (s, parsed) in enumerate(items):
        rows = parsed.roce_v2_ipv4() if s.kind == "show-gids" and not s.error and parsed is not None else None
        if rows:
            tables.append((index, s.host, {r.index for r in rows}, {r.device: r.ipv4 for r in rows}))
    for (i, host_a, found_a, ips_a), (j, host_b, found_b, ips_b) in zip(tables, tables[1:]):
        if found_a == found_b or any(changes_state(s.command) for s, _ in items[i + 1:j]):  # or one host, changed
            continue
        if host_a != host_b if host_a and host_b else not host_a and not host_b and any(
                dev in ips_b and ips_a[dev] and ips_b[dev] and ips_a[dev] != ips_b[dev] for dev in ips_a):
            said = f"{host_a or 'the first'}: {', '.join(map(str, sorted(found_a)))}; {host_b or 'the second'}: " \
                   f"{', '.join(map(str, sorted(found_b)))}"
            return [(j, warn(f"The two nodes' tables put the RoCE v2 IPv4 GID at different indexes ({said}): one "
                             "NCCL_IB_GID_INDEX given to every node cannot fit them all. Set it per node to that "
                             "node's own index, or leave it unset (NCCL 2.21 and later pick the RoCE v2 IPv4 GID on "
                             "each node)."))]
    return []


# --------------------------------------------------------------------------- lsmod

_ONE_GREP_RE = re.compile(r"^\s*grep\s+(?:-i\s+)?(?P<q>['\"]?)(?P<word>[A-Za-z0-9_]{3,40})(?P=q)\s*$")


def _may_show(name: str, command: str | None) -> bool:
    """Whether ``command``'s output would list module ``name`` if it were loaded: ``lsmod`` whole, or filtered by one
    plain grep (``grep [-i] WORD``) whose word is part of the name (``lsmod | grep nvidia`` shows nvidia_peermem); not
    told without the command, nor through ``grep -v``, ``-w``, a pattern, or a second filter (``| head``)."""
    if not command or not re.match(r"^\s*(?:sudo\s+)?lsmod\b", command):
        return False
    pipes = command.split("|")[1:]
    if not pipes:
        return True
    m = _ONE_GREP_RE.match(pipes[0]) if len(pipes) == 1 else None
    return bool(m) and m.group("word").lower() in name.lower()


def summarise_lsmod(mods: Any, command: str | None) -> Summary:
    """The kernel modules a GPU and RDMA host needs, from ``lsmod``: nvidia_peermem (GPUDirect RDMA's peer-memory
    path; not used on a DGX Spark, whose GPU memory is the system's), mlx5_ib beside mlx5_core (a ConnectX's RDMA
    devices). What is absent is said only where the command would have shown it (:func:`_may_show`)."""
    names = [m.name for m in mods.modules]
    facts = {"modules": names, "truncated": mods.truncated}
    shown = ", ".join(names[:12]) + (f" and {len(names) - 12} more" if len(names) > 12 else "")
    findings = [info(f"Loaded modules shown: {shown}.")]
    spark = on_spark(None)
    users = {u for m in mods.modules for u in m.used_by}  # a module another one uses is loaded, listed or not
    if mods.has("nv_peer_mem") or "nv_peer_mem" in users:
        findings.append(ok("nv_peer_mem (Mellanox's older GPUDirect RDMA module) is loaded: the NIC can read and "
                           "write GPU memory directly. Do not load nvidia_peermem beside it: they conflict."))
    elif mods.has("nvidia_peermem") or "nvidia_peermem" in users:
        findings.append(ok("nvidia_peermem is loaded: the NIC can read and write GPU memory directly (GPUDirect "
                           "RDMA's peer-memory path)." + (" A DGX Spark does not need it (its GPU memory is the "
                                                          "system's)." if spark else "")))
    elif _may_show("nvidia_peermem", command) and not mods.truncated:
        findings.append(info("nvidia_peermem is not loaded: " + (
            "expected on a DGX Spark, whose GPU memory is the system's (NCCL stages nothing)." if spark else
            "GPUDirect RDMA then needs DMA-BUF (NCCL 2.19+ with a 5.12+ kernel and a driver that offers it), or "
            "`sudo modprobe nvidia_peermem`; without either NCCL stages network transfers through host memory."
            + (" A DGX Spark does not use it (its GPU memory is the system's)." if spark is None else ""))))
    if mods.has("mlx5_core") and not mods.has("mlx5_ib") and "mlx5_ib" not in users and _may_show("mlx5_ib", command) \
            and not mods.truncated:
        findings.append(warn("mlx5_core is loaded without mlx5_ib: the ConnectX works as an Ethernet NIC but offers "
                             "no RDMA device (`ibv_devices` lists none), so RoCE cannot run: `sudo modprobe mlx5_ib`."))
    if mods.has("nouveau") and mods.has("nvidia"):
        findings.append(warn("nouveau (the open-source driver) is loaded beside nvidia: they compete for the GPUs. "
                             "Blacklist nouveau and reboot."))
    return facts, findings
