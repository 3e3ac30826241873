"""Judge of a netplan file (lesson 1: the QSFP twins' addresses that survive a reboot): its ``ethernets:`` entries,
bonds and bridges over the twins, one address per twin in its own /24, the MTU. Sources: NVIDIA's connect-two-sparks
playbook (C2S) and the community guides that add ``mtu: 9000`` (docs/research/procedure.md §1, §2).
"""

from __future__ import annotations

import dataclasses
import ipaddress
from typing import Any

from ..spark_names import HOUSE_INTERFACE, QSFP_TWINS, is_qsfp_twin, qsfp_port
from .common import C2S, JUMBO_MTU, fail, in_spark_range, info, ok, on_spark, overlaps, warn
from .link import JUMBO_GUIDES
from .model import Finding, Summary


def read_netplan(text: str) -> Any:
    """A pasted netplan file, read as netplan's parser reads it, a last line cut in the middle of a key aside
    (grader.parsers.netplan.parse_netplan's ``cut_ok``): ParseError as it raises."""
    from ..parsers.netplan import parse_netplan
    return parse_netplan(text, cut_ok=True)


def summarise_netplan(cfg: Any, command: str | None) -> Summary:
    facts = {"renderer": cfg.renderer, "version": cfg.version,
             "ethernets": {n: dataclasses.asdict(i) for n, i in cfg.ethernets.items()}, "cut": cfg.cut}
    findings = [info(f"The file is cut off at its last line (`{cfg.cut[:80]}`): the lines above it were read; paste the "
                     "whole file (`sudo cat /etc/netplan/<file>.yaml`) for the rest.")] if cfg.cut else []
    if not cfg.ethernets:
        return facts, [fail("No `ethernets:` entries: this file configures none of the QSFP twins.")]
    if cfg.version not in (None, 2):
        findings.append(warn(f"`version: {cfg.version}`: netplan files use `version: 2`."))
    grouped = {m: g for g, (members, _) in {**cfg.bridges, **cfg.bonds}.items() for m in members}
    spark = on_spark(True if any(is_qsfp_twin(n) for n in cfg.ethernets) else None)
    for name, i in cfg.ethernets.items():
        findings += _netplan_iface_findings(name, i, grouped.get(name), spark)
    for bond, (members, conf) in {**cfg.bonds, **cfg.bridges}.items():
        twins = [m for m in members if is_qsfp_twin(m)]
        if twins:
            ports = sorted({qsfp_port(t) for t in twins})
            findings.append(warn(
                f"{bond} joins {', '.join(twins)} into one {'bond' if bond in cfg.bonds else 'bridge'}: the address "
                f"({', '.join(conf.addresses) or 'none given'}) moves to {bond}, and with it the IPv4 RoCE GID that NCCL's "
                f"RDMA (NET/IB) finds each twin's device by. A Spark's RDMA use (NCCL_IB_HCA, NVIDIA's setup) "
                "expects each twin unbonded, with its own address in its own /24."
                + (f" These are halves of QSFP ports {' and '.join(map(str, ports))}: two cables, not one."
                   if len(ports) > 1 else "")))
    for port, (a, b) in QSFP_TWINS.items():
        for x, y in ((a, b), (b, a)):
            if cfg.ethernets.get(x) and cfg.ethernets[x].addresses and not (cfg.ethernets.get(y) and cfg.ethernets[y].addresses):
                findings.append(warn(f"Only {x} of port {port} has an address; the {C2S}'s current procedure "
                                     f"gives its twin {y} one too, in its own /24 (e.g. {a} 192.168.100.10/24, "
                                     f"{b} 192.168.101.10/24), so both halves of the port are used."))
    findings += overlaps([(n, a) for n, i in cfg.ethernets.items() for a in i.addresses if "/" in a],
                         {n for n, i in cfg.ethernets.items() if (i.mtu or 0) > 1500 and not i.dhcp4})
    qsfp = [i for n, i in cfg.ethernets.items() if is_qsfp_twin(n)]
    if qsfp and all(i.mtu is None for i in qsfp) and not any(c.mtu for g, c in {**cfg.bonds, **cfg.bridges}.values()):
        findings.append(info("No `mtu:` key: the twins stay at MTU 1500, as in NVIDIA's playbook. The "
                             f"{JUMBO_GUIDES} add `mtu: {JUMBO_MTU}` to each twin on both Sparks for jumbo frames."))
    return facts, findings


def _netplan_iface_findings(name: str, i: Any, group: str | None = None, spark: bool | None = None) -> list[Finding]:
    """What one ``ethernets:`` entry means; ``group`` the bond or bridge it is a member of (which holds its address);
    ``spark`` whether the file is a DGX Spark's (None: not known). DHCP is judged only on a Spark's QSFP twin, the
    direct cable's interface: on another name it may be a network with a DHCP server."""
    out = []
    if not is_qsfp_twin(name) and name != HOUSE_INTERFACE and spark is not False:
        out.append(info(f"{name} is not a DGX Spark QSFP twin; the twins are enp1s0f0np0 and enP2p1s0f0np0 "
                        "(port 0), enp1s0f1np1 and enP2p1s0f1np1 (port 1)."))
    if i.link_local and "ipv4" in i.link_local:
        out.append(warn(f"{name}: `link-local: [ ipv4 ]` gives a 169.254.x.x address that changes after a "
                        "reboot (NVIDIA's 2025 procedure). The current " + C2S + " uses a static address "
                        "per twin, each in its own /24, e.g. `addresses: [192.168.100.10/24]`, `dhcp4: no`."))
    if i.dhcp4:
        out.append((warn if is_qsfp_twin(name) else info)(
            f"{name}: `dhcp4` is on, but nothing hands out addresses on a direct cable: use a static address and "
            "`dhcp4: no`" + ("." if is_qsfp_twin(name) else " there (fine on a network with a DHCP server).")))
    for a in i.addresses:
        try:
            iface = ipaddress.ip_interface(a)
        except ValueError:
            out.append(fail(f"{name}: {a!r} is not an address/prefix like 192.168.100.10/24."))
            continue
        if "/" not in a:
            out.append(fail(f"{name}: address {a} has no prefix length; write {a}/24."))
        elif iface.version == 4 and iface.ip.is_link_local:
            out.append(warn(f"{name}: {a} is a link-local (169.254) address; use a private /24 such as "
                            "192.168.100.0/24."))
        else:
            out.append(ok(f"{name}: static address {a}."))
    if not i.addresses and not (i.link_local and "ipv4" in i.link_local) and not i.dhcp4 and is_qsfp_twin(name) \
            and group is None:
        out.append(warn(f"{name} gets no IPv4 address from this file: add `addresses: [<ip>/24]`."))
    peers = "every twin of both Sparks" if spark is not False else "both ends of the link"
    applied = f" A file states what is wanted: `ip link show {name}` shows the MTU in effect."  # a reboot or apply
    if i.mtu is not None and not in_spark_range("mtu", i.mtu):
        out.append((info if i.mtu == 1500 else warn)(f"{name}: mtu {i.mtu}; for jumbo frames use {JUMBO_MTU} on {peers}."))
    elif i.mtu is not None:
        out.append(ok(f"{name}: mtu {JUMBO_MTU} (jumbo frames); {peers} must use {JUMBO_MTU}.{applied}"))
    return out
