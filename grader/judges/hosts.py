"""Judge of lesson 1's outputs of two hosts (or several of one host) in one paste, compared: ``ibdev2netdev`` of both
(the same QSFP port cabled), ``ip addr`` of both (each twin's addresses in one subnet, no conflict, one MTU), several
``ip addr show IF`` of one host (different twins never in one subnet), a netplan file and ``ip addr`` of one host
(what runs is what the file says: L1.netplan's own judgment, ``grader.facts.lesson1.persistence_problems``), and an
iperf3 server bound with ``-B`` to one address with a client refused at another.

Each function takes every (Section, parsed value) of a paste and returns (index of the section to attach to,
Finding) pairs (``grader.explain.core.CrossCheck``). Sources: NVIDIA's Connect Two Sparks playbook (C2S), Step 2
(the same port on both; one /24 per twin).
"""

from __future__ import annotations

import re
from typing import Any

from ..facts.lesson1 import persistence_problems
from ..parsers.common import command_argv, option_value
from ..spark_names import is_qsfp_twin
from .common import C2S, JUMBO_MTU, fail, info, ok, overlap_finding, overlap_pairs, warn
from .context import context
from .model import Finding, Section


def same_port_on_both(items: list[tuple[Section, Any]]) -> list[tuple[int, Finding]]:
    """ibdev2netdev from two hosts: the same QSFP port must be cabled on both."""
    ports: dict[str, tuple[int, tuple[int, ...]]] = {}
    for index, (s, _) in enumerate(items):
        if s.kind == "ibdev2netdev" and s.host and not s.error:
            ports[s.host] = (index, tuple(s.facts.get("up_ports", ())))
    if len(ports) < 2:
        return []
    if len(ports) > 2:  # a switch or a ring: each Spark may use its own port (a ring cables both)
        said = ", ".join(f"{h} {list(p)}" for h, (_, p) in ports.items())
        return [(max(i for i, _ in ports.values()), info(
            f"Ports Up per host: {said}. With three Sparks or more, each may reach a switch on either port, and on "
            "a ring both ports of each are cabled: what must hold is that every cabled port is Up on its ends "
            "(lesson 2, 2a.5)."))]
    (h1, (_, p1)), (h2, (i2, p2)) = list(ports.items())[:2]
    if p1 and p1 == p2:
        return [(i2, ok(f"{h1} and {h2} use the same QSFP port ({', '.join(map(str, p1))})."))]
    return [(i2, fail(f"{h1} has port(s) {list(p1)} Up but {h2} has {list(p2)}: cable the same physical port "
                      f"on both Sparks ({C2S}, Step 2: different ports break the NCCL tests)."))]


def addresses_across_hosts(items: list[tuple[Section, Any]]) -> list[tuple[int, Finding]]:
    """ip addr from two hosts: each twin's addresses in one subnet, no duplicates, same MTU. From three hosts or more
    (two cabled pairs, a switch, a ring) no two of them are known to be one cable's ends: each twin's addresses are
    grouped by subnet instead (:func:`_group_twin`)."""
    seen: dict[str, list[tuple[str, int, Any]]] = {}  # twin name -> (host, section index, Interface), one per host
    for index, (s, parsed) in enumerate(items):
        if s.kind != "ip-addr" or s.error or parsed is None or not s.host:
            continue
        for iface in parsed:
            if is_qsfp_twin(iface.name):
                kept = [x for x in seen.get(iface.name, []) if x[0] != s.host]
                seen[iface.name] = kept + [(s.host, index, iface)]
    out = []
    for name, ends in seen.items():
        if len(ends) == 2:
            (h1, _, a), (h2, index, b) = ends
            out += [(index, f) for f in _compare_twin(h1, a, h2, b)]
        elif len(ends) > 2:
            out += _group_twin(name, ends)
    return out


def _group_twin(name: str, ends: list[tuple[str, int, Any]]) -> list[tuple[int, Finding]]:
    """One twin's IPv4 addresses on three hosts or more, by subnet: the hosts that share one can reach each other
    over it (two pairs of Sparks, each pair its own /24, is a sound layout); an address no other host shares is
    said, not failed (its peer may not be in the paste); one address on two hosts is a conflict."""
    last = max(i for _, i, _ in ends)
    out: list[tuple[int, Finding]] = []
    firsts = [(host, iface, next((x for x in iface.ipv4 if not x.is_link_local and x.network), None))
              for host, _, iface in ends]  # each end's first routable IPv4 address, None where it has none
    groups: dict[Any, list[tuple[str, Any]]] = {}
    for host, _, v4 in firsts:
        if v4 is not None:
            groups.setdefault(v4.network, []).append((host, v4))
    for net, members in groups.items():
        locals_ = [v.local for _, v in members]
        dup = next((a for a in locals_ if locals_.count(a) > 1), None)
        if dup:
            hosts = [h for h, v in members if v.local == dup]
            out.append((last, fail(f"{name} has {dup} on {' and '.join(hosts)}: an address conflict; give each "
                                   "host its own address in the subnet.")))
        elif len(members) > 1:
            out.append((last, ok(f"{name}: " + ", ".join(f"{v.cidr} on {h}" for h, v in members)
                                 + f" share {net}.")))
        else:
            host, v = members[0]
            out.append((last, info(f"{name}: {v.cidr} on {host}, and no other host in the paste has an address in "
                                   f"{net}. With several Sparks each cable (or switch) joins the hosts that share a "
                                   "subnet; if this host's peer is in the paste, give both ends one /24.")))
    by_net: dict[Any, list[tuple[str, Any]]] = {}
    for host, iface, v4 in firsts:  # the MTUs compared within each subnet: a cable's two ends, not all the hosts
        by_net.setdefault(v4.network if v4 else None, []).append((host, iface))
    for members in by_net.values():
        if len({iface.mtu for _, iface in members if iface.mtu}) > 1:
            said = ", ".join(f"{iface.mtu} on {h}" for h, iface in members if iface.mtu)
            out.append((last, warn(f"{name} has MTU {said}: the two ends of each cable must agree ({JUMBO_MTU} "
                                    "for jumbo frames).")))
    return out


def _compare_twin(h1: str, a: Any, h2: str, b: Any) -> list[Finding]:
    out = []
    va = [x for x in a.ipv4 if not x.is_link_local]
    vb = [x for x in b.ipv4 if not x.is_link_local]
    if va and vb:
        x, y = va[0], vb[0]
        if x.local == y.local:
            out.append(fail(f"{a.name} has {x.local} on both {h1} and {h2}: an address conflict; use .10 on one "
                            "Spark and .11 on the other."))
        elif x.network and y.network and not x.network.overlaps(y.network):
            out.append(fail(f"{a.name} is {x.cidr} on {h1} but {y.cidr} on {h2}: not one subnet, so they "
                            "cannot reach each other over this twin. Use the same /24 on both ends."))
        else:
            out.append(ok(f"{a.name}: {x.cidr} on {h1} and {y.cidr} on {h2} share a subnet."))
    if a.mtu and b.mtu and a.mtu != b.mtu:
        out.append(warn(f"{a.name} has MTU {a.mtu} on {h1} but {b.mtu} on {h2}: both ends of the cable must "
                        f"agree ({JUMBO_MTU} for jumbo frames)."))
    return out


def subnets_within_host(items: list[tuple[Section, Any]]) -> list[tuple[int, Finding]]:
    """Separate `ip addr show IF` outputs of one host: different twins must not share a subnet."""
    by_host: dict[str | None, dict[str, tuple[int, list[str]]]] = {}
    out = []
    for index, (s, parsed) in enumerate(items):
        if s.kind != "ip-addr" or s.error or parsed is None:
            continue
        known = by_host.setdefault(s.host, {})
        names = {i.name for i in parsed}
        earlier = [(n, c) for n, (j, cidrs) in known.items() if n not in names for c in cidrs]
        here = [(i.name, a.cidr) for i in parsed if i.name != "lo" for a in i.ipv4]
        before = {n for n, _ in earlier}
        out += [(index, overlap_finding(a, ca, b, cb) if s.host or is_qsfp_twin(a) or is_qsfp_twin(b)
                 or (context().nodes or 1) < 2 else _two_ends(a, ca, b, cb))
                for a, ca, b, cb in overlap_pairs(earlier + here) if a in before and b not in before]
        for i in parsed:
            known[i.name] = (index, [a.cidr for a in i.ipv4])
    return out


def _two_ends(a: str, ca: str, b: str, cb: str) -> Finding:
    """Two outputs of no named host, from a paste of several machines, whose interfaces share a subnet: most often
    the two ends of one link, each output from its own machine (as they should be); on one host, an ambiguity."""
    return info(f"{a} ({ca}) and {b} ({cb}) are in one subnet. The paste names no host for these outputs and spans "
                "several machines: if they are the two ends of one link, each on its own machine, that is as it should "
                "be; if both are on one host, the kernel cannot tell which to use, so give each its own subnet.")


def iperf3_bound_elsewhere(items: list[tuple[Section, Any]]) -> list[tuple[int, Finding]]:
    """An iperf3 server started with ``-B X`` listens on X only: a client refused at another address Y reached a
    port nothing listens on (an addressing mismatch: a firewall would drop, and the client would time out)."""
    bound = [(option_value(command_argv(s.command), "-B", "--bind"), s) for s, _ in items
             if s.kind == "iperf3" and any(a in ("-s", "--server") for a in command_argv(s.command))]
    out = []
    for index, (s, parsed) in enumerate(items):
        target = option_value(command_argv(s.command), "-c", "--client") if s.kind == "iperf3" else None
        if not target or parsed is None or "refused" not in (parsed.result.error or "").lower():
            continue
        for addr, _server in bound:
            if addr and addr != target:
                out.append((index, fail(f"The server was started with `-B {addr}`, so it listens on {addr} only, "
                                        f"but this client connects to {target}: nothing listens there, hence "
                                        f"`Connection refused`. Connect to {addr}, or start the server without -B.")))
    return out


def netplan_against_live(items: list[tuple[Section, Any]]) -> list[tuple[int, Finding]]:
    """A netplan file and ``ip addr`` of one host in one paste: each Up twin the file sets must run with the file's
    addresses and MTU, or a reboot changes it (grader.facts.lesson1.persistence_problems, what L1.netplan fails).
    Outputs without a host caption are one host's only when no captioned host is in the paste; a paste of
    several netplan files of one host is left to the check (netplan merges them)."""
    by_host: dict[str | None, tuple[list[tuple[int, Section, Any]], list[tuple[int, Any]]]] = {}
    for index, (s, parsed) in enumerate(items):
        if s.error or parsed is None or s.kind not in ("netplan", "ip-addr") or s.kind == "netplan" and parsed.cut:
            continue
        files, lives = by_host.setdefault(s.host, ([], []))
        if s.kind == "netplan":
            files.append((index, s, parsed))
        else:
            lives.append((index, parsed))
    out = []
    for host, (files, lives) in by_host.items():
        if len(files) != 1 or not lives or (host is None and len(by_host) > 1):
            continue
        index, section, cfg = files[0]
        ifaces: dict[str, Any] = {}
        for _, parsed in lives:  # `ip link` lists no addresses: it never hides what an `ip addr` showed
            for i in parsed:
                if i.addresses_listed or i.name not in ifaces:
                    ifaces[i.name] = i
        up = [n for n in cfg.ethernets if n in ifaces and is_qsfp_twin(n) and (ifaces[n].operstate or "").upper() == "UP"]
        if not up:
            continue
        argv = command_argv(section.command)
        path = next((a for a in reversed(argv) if a.endswith((".yaml", ".yml"))), "The netplan file")
        defined = {n: ([path], list(cfg.ethernets[n].addresses), cfg.ethernets[n].mtu) for n in up}
        at = max(index, *(i for i, _ in lives))
        problems = persistence_problems(defined, ifaces, up, JUMBO_MTU, complete=False)
        out += [(at, fail(p)) for p in problems] or [
            (at, ok(f"{', '.join(up)} run{'s' if len(up) == 1 else ''} with what {path.replace('The ', 'the ', 1)} says: "
                    "a reboot keeps it."))]
    return out


def nearest_nic_across_hosts(items: list[tuple[Section, Any]]) -> list[tuple[int, Finding]]:
    """``nvidia-smi topo -m`` of two hosts or more: where their GPUs' nearest NICs (TopoMatrix.nearest_nics) differ,
    NCCL on each host drives another NIC, and those must reach each other across the machines (one network, one rail):
    a warning naming them. NVIDIA/nccl#719 (two pods whose GPUs sit near mlx5_2 on one host and mlx5_1 on the other)."""
    near: dict[str, tuple[int, tuple[str, ...]]] = {}
    for index, (s, parsed) in enumerate(items):
        if s.kind == "nvidia-smi-topo" and s.host and not s.error and parsed is not None:
            nics = tuple(dict.fromkeys(nic for nic, _ in parsed.nearest_nics().values()))
            if nics and not any(re.fullmatch(r"NIC\d+", n) for n in nics):  # (a legend cut off: no name to compare)
                near[s.host] = (index, nics)
    if len(near) < 2 or len({nics for _, nics in near.values()}) < 2:
        return []
    said = "; ".join(f"on {h}, {', '.join(nics)}" for h, (_, nics) in near.items())
    return [(max(i for i, _ in near.values()), warn(
        f"The hosts' GPUs are nearest to different NICs ({said}): NCCL on each host drives its GPUs' nearest NIC, so "
        "those must reach each other across the machines (cabled to one network, or one rail of it), else NCCL's "
        "connections hang or crawl. Pin NCCL_IB_HCA on each host to NICs that reach each other, and test that pair "
        "with `ib_write_bw`."))]
