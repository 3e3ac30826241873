"""Notes of the ``link`` judge (grader.judges.link calls them). On an ``ip addr`` list: the members of a bond (or a
bridge), which hold no address of their own, and alias names. On ``ethtool -m``: a module whose compliance codes
stop below its form factor's rate (SFF-8636: a QSFP28 module's 40G codes in byte 131, its 100G ones in the extended
compliance byte 192, which ethtool prints as more ``Transceiver type`` lines). On ``ip route``: two routes to one
destination with one metric on two interfaces (the kernel takes the first: ip-route(8), and Linux's FIB picks one
route of equal metric unless a multipath route is set), and the routes of a host that is not a Spark. Source: the kernel's bonding driver documentation
(https://www.kernel.org/doc/Documentation/networking/bonding.txt: the bond carries the IP address, its members are
enslaved with ``master bond0`` and share its MAC), and NCCL's NCCL_SOCKET_IFNAME (the interface that carries the
address is the one to name).
"""

from __future__ import annotations

import re

from typing import Any

from .common import fail, info, warn
from .context import context
from .model import Finding

_GUEST_ENDS = ("veth", "vnet", "tap", "fwpr", "fwln", "cali", "lxc")


def no_ipv4_words(i: Any) -> str:
    """What an interface list says of an interface with no IPv4 read: a member of a bond has none of its own; where
    the output lists no address (``ip link``, a redacted paste) none is known."""
    return f"member of {i.master}" if getattr(i, "master", None) else "no IPv4" if i.addresses_listed else \
        "addresses not shown"


def member_findings(ifaces: list[Any]) -> list[Finding]:
    """One info per bond or bridge whose members the list shows (``master bond0``): the address lives on the master
    (the top one, where a bond is itself in a bridge), so a member's "no IPv4" is no fault, and that master is the
    interface a job names; whether it is shown. A member with an address of its own (a VRF's) and Open vSwitch's
    datapath (``master ovs-system``, the address on an OVS bridge) are left out."""
    shown = {i.name: i for i in ifaces}
    masters: dict[str, list[str]] = {}
    for i in ifaces:
        if getattr(i, "master", None) and not i.name.startswith(_GUEST_ENDS) and not i.ipv4 \
                and i.master != "ovs-system":  # (a container's or VM's end of a link; a VRF's member keeps its own)
            masters.setdefault(i.master, []).append(i.name)
    out = []
    for master, members in masters.items():
        top, chain = master, [master]
        while top in shown and getattr(shown[top], "master", None) and len(chain) < 4:  # a bond in a bridge
            top = shown[top].master
            chain.append(top)
        m = shown.get(top)
        where = ("is not in this paste (`ip addr show " + top + "` shows it)" if m is None else
                 f"has {', '.join(a.cidr for a in m.ipv4)}" if m.ipv4 else "shows no IPv4 address")
        out.append(info(f"{', '.join(members[:8])} {'is a member' if len(members) == 1 else 'are members'} of "
                        f"{master} (`master {master}`{f', itself in {top}' if top != master else ''}): a member "
                        f"holds no address of its own, so its missing IPv4 is no fault. The address, and the "
                        f"interface to name in NCCL_SOCKET_IFNAME or GLOO_SOCKET_IFNAME, is {top}, which {where}."))
    return out


def twin_in_bond(name: str, master: str) -> list[Finding]:
    """A Spark QSFP twin enslaved to a bond or bridge (``master bond0``): no address of its own is the bond's doing,
    and a bond works against RoCE, whose devices are the twins' own."""
    return [warn(f"{name} is a member of {master} (`master {master}`), so its address is {master}'s, not its own. NCCL "
                 "and RoCE use each twin's own RDMA device (rocep1s0f0, roceP2p1s0f0, ...), which a bond does not "
                 f"carry: the playbooks give each twin its own address in its own subnet. Take the twins out of "
                 f"{master} and address each (netplan), unless you mean to run TCP over the bond.")]


def alias_findings(ifaces: list[Any]) -> list[Finding]:
    """An interface with alias names (ifconfig's ``eth0:0`` blocks, ip's ``label eth0:0`` addresses): more addresses
    of one NIC, not more NICs."""
    out = []
    for i in ifaces:
        names = list(getattr(i, "aliases", ())) + [a.label for a in i.addresses
                                                    if a.label and a.label.startswith(i.name + ":")]
        if names:
            out.append(info(f"{', '.join(dict.fromkeys(names))}: alias names of {i.name}, i.e. more addresses on the "
                            f"same NIC (one link, one MAC), not interfaces of their own: they share {i.name}'s "
                            "bandwidth, and a connection leaves from its primary address unless the program binds to "
                            "an alias. Machines told apart by these addresses are one machine to the network."))
    return out


_FORM_GBPS = {"QSFP28": 100, "QSFP56": 200}
"""The rate each form factor is made for (SFF-8636 and SFF-8665: QSFP28 is 4 x 25G, QSFP56 4 x 50G)."""


def module_rate_findings(m: Any, name: str) -> list[Finding]:
    """A QSFP28/QSFP56 module whose transceiver types all name a slower standard (a 40G DAC in a QSFP28 shell): the
    link comes up at that rate at most."""
    form = next((f for f in _FORM_GBPS if f in (m.get("Identifier") or "")), None)
    rates = [int(g) for t in getattr(m, "transceiver_types", ())  # `40G Base-SR4`, `100G AOC`, `200GBASE-CR4`, `25GAUI`
             for g in re.findall(r"\b(\d{2,3})G(?=\b|base|aui)", t, re.I)]
    if form is None or not rates or max(rates) >= _FORM_GBPS[form]:
        return []
    return [warn(f"{name}: a {form} module whose compliance codes stop at {max(rates)}G "
                 f"({'; '.join(getattr(m, 'transceiver_types', ())[:4])}): it is a {max(rates)}G cable or optic in a "
                 f"{form} shell, so the link comes up at {max(rates)}G at most, not {_FORM_GBPS[form]}G; a port or "
                 f"switch forced to {_FORM_GBPS[form]}G stays down with it. For {_FORM_GBPS[form]}G use a module "
                 f"rated for it ({_FORM_GBPS[form]}GBASE-CR4/SR4...).")]


def nominal_link(r: Any, name: str) -> list[Finding]:
    """ethtool of an interface that is up (`Link detected: yes`) at a speed, with auto-negotiation off, `Port: Other`
    and no advertised link mode: no PHY negotiated that speed. A bond or team sums its members' (the kernel's bonding
    documentation); a virtual NIC (virtio_net, hv_netvsc, a VF, a veth) reports a nominal figure. An info: up, no
    fault; the driver (`ethtool -i`) tells which."""
    if not (r.link_detected and r.speed_mbps and r.auto_negotiation is False and r.port == "Other"
            and not r.advertised_modes and r.modes_not_reported):
        return []
    team = re.match(r"(?:bond|team)", r.interface or "")
    return [info(f"{name}: up (Link detected: yes) at {r.speed_mbps}Mb/s, with no auto-negotiation, `Port: Other` and "
                 "no advertised link mode: " + (
                     "a bond's speed, from its members' links (their sum in 802.3ad or balance modes, the active "
                     "one's in active-backup; each member's own `ethtool` shows its own)."
                     if team else "not a physical link that negotiated its speed but a virtual or software NIC "
                     "(virtio_net, hv_netvsc, an SR-IOV VF, a veth), whose speed is a nominal figure: nothing is "
                     "wrong, and the real bandwidth is the path's behind it. `ethtool -i "
                     f"{r.interface or '<iface>'}` names the driver, which decides."))]


VBOX_NAT_ADDRESS = "10.0.2.15"
"""The address VirtualBox's NAT adapter gives every guest (its built-in DHCP server, network 10.0.2.0/24)."""


def vbox_nat_findings(ifaces: list[Any]) -> list[Finding]:
    """A VirtualBox guest's NAT adapter (MAC 08:00:27..., 10.0.2.15): the same address in every VM, reachable from
    none of the others; a warning where the run spans machines (or may: not said), a note on one."""
    nat = [i for i in ifaces if (i.mac or "").lower().startswith("08:00:27") and any(
        a.local == VBOX_NAT_ADDRESS for a in i.ipv4)]
    if not nat:
        return []
    others = [f"{i.name} {i.ipv4[0].local}" for i in ifaces if i.ipv4 and i not in nat and i.name != "lo"]
    nodes = context().nodes
    return [(info if nodes == 1 else warn)(
        f"{nat[0].name} has {VBOX_NAT_ADDRESS}, the address VirtualBox's NAT adapter gives every VM: each node has it, "
        "and no other node can reach it, so a tool that picks the default-route interface (Kubernetes, Ray, NCCL, "
        "Gloo) advertises one address for all nodes. Bind the cluster to the host-only or bridged adapter"
        + (f" ({', '.join(others[:4])})" if others else "") + " (node IP, --node-ip-address, NCCL_SOCKET_IFNAME / "
        "GLOO_SOCKET_IFNAME).")]


def route_notes(routes: list[Any]) -> list[Finding]:
    """``ip route`` on any host, and ``ip route get`` on a host said not to be a Spark: where each destination goes,
    and two routes to one destination with one metric by different interfaces (all its traffic takes the first)."""
    table = [r for r in routes if r.in_table]
    if not table:
        return [info(f"Traffic to {r.dst} leaves by {r.dev}" + (f" through the gateway {r.via}" if r.via else "")
                     + (f", source {r.src}" if r.src else "") + ".") for r in routes[:8]]
    same: dict[tuple[str, int | None, str | None], list[Any]] = {}
    for r in table:  # (each routing table on its own: `ip rule` picks the table, as policy routing does)
        if not r.dst.lower().startswith(("fe80:", "ff")):  # (IPv6 link-local and multicast: one per interface, scoped)
            same.setdefault((r.dst, r.metric, r.table), []).append(r)
    out = [info(f"Routing table: {len(routes)} route(s); " + ("; ".join(
        f"default via {r.via or '?'} dev {r.dev}" + (f" metric {r.metric}" if r.metric is not None else "")
        + (f" (table {r.table})" if r.table else "")
        for r in table if r.dst == "default") or "no default route (only the subnets listed are reachable)") + ".")]
    for (dst, metric, _), rs in same.items():
        devs = list(dict.fromkeys(r.dev for r in rs))
        if len(devs) > 1:
            what, where = (("default routes", "every destination without a route of its own") if dst == "default"
                           else (f"routes to {dst}", dst))
            out.append(fail(f"{'Two' if len(rs) == 2 else len(rs)} {what} with the same metric"
                            f"{f' {metric}' if metric is not None else ''}, by {', '.join(devs)}: the kernel sends all "
                            f"traffic for {where} by the first ({devs[0]}), "
                            f"so what should leave by {devs[1]}" + (f" (source {rs[1].src})" if rs[1].src else "")
                            + f" goes out {devs[0]}, and a peer or reply that only {devs[1]} reaches is lost. Keep "
                            f"one such route (or give {devs[1]}'s a higher metric, or its own routing table with "
                            "`ip rule`), and put each link in a subnet of its own."))
    return out


def all_up(found: list[Finding], others: list[Any]) -> list[Finding]:
    """A host's interface list (not a Spark's) whose reading found nothing to warn of, every interface shown UP with
    link (``LOWER_UP``, ifconfig's ``RUNNING``) and an IPv4 address: said plainly, of the interfaces shown."""
    if not others or any(f.level in ("warn", "fail") for f in found) or not all(
            (i.operstate or "").upper() == "UP" and {"LOWER_UP", "RUNNING"} & set(i.flags or ()) and i.ipv4
            for i in others):
        return found
    names = ", ".join(i.name for i in others[:8]) + (", ..." if len(others) > 8 else "")
    return found + [info(f"Every interface shown ({names}) is UP with link and an IPv4 address: healthy, nothing wrong "
                         "in this list.")]


_ZERO_MAC_RE = re.compile(r"^[0:]{11,60}$")


def vf_findings(ifaces: list[Any]) -> list[Finding]:
    """``ip link`` of an SR-IOV physical function lists its virtual functions (``vf 0 ... link-state auto, trust on``):
    one note per such interface, naming the VFs and what the host set on them (ip-link(8): ``state auto|enable|
    disable`` sets a VF's link state, auto following the port's; ``trust``; ``mac``). A VF held down (``link-state
    disable``) passes no traffic whatever the port's link: a hedged warning. A VF's own netdev lives in the guest or
    container it was given to, or on the host as a separate interface."""
    out = []
    for i in ifaces:
        vfs = getattr(i, "vf_list", ())
        if not vfs:
            continue
        names = ", ".join(f"vf {v.index}" for v in vfs[:6]) + (f" and {len(vfs) - 6} more" if len(vfs) > 6 else "")
        unset = [v.index for v in vfs if v.mac and _ZERO_MAC_RE.match(v.mac)]
        states = sorted({v.link_state for v in vfs if v.link_state})
        trusted = sorted({v.trust for v in vfs if v.trust})
        set_words = "; ".join(x for x in (
            ("no address set by the host on " + ", ".join(f"vf {n}" for n in unset[:6]) + (
                " (all zeros: an InfiniBand VF needs its GUIDs set, `ip link set " + i.name + " vf N node_guid ... "
                "port_guid ...`)" if any(len(v.mac or "") > 17 for v in vfs) else " (all zeros: its driver picks a "
                "random MAC at each load; `ip link set " + i.name + " vf N mac ...` sets a stable one)")) if unset else
            "each with a MAC set" if all(v.mac for v in vfs) else "",
            f"link-state {'/'.join(states)}" + (" (each follows the port's link)" if states == ["auto"] else "")
            if states else "", f"trust {'/'.join(trusted)}" if trusted else "") if x)
        down = " (the port itself has no carrier, so VFs that follow it have no link either)" \
            if "NO-CARRIER" in (i.flags or ()) else ""
        out.append(info(f"{i.name} is an SR-IOV physical function with {len(vfs)} virtual function"
                        f"{'s' if len(vfs) != 1 else ''} shown ({names}){': ' + set_words if set_words else ''}"
                        f"{down}. A VF's own interface is in the VM or container it was given to, or a separate "
                        "interface on this host."))
        held = [v.index for v in vfs if v.link_state == "disable"]
        if held:
            out.append(warn(f"{', '.join(f'vf {n}' for n in held[:6])} of {i.name} {'has' if len(held) == 1 else 'have'}"
                            " link-state disable: the host holds that VF's link down, so it passes no traffic whatever "
                            "the port's link (on an InfiniBand VF, its policy is Down). If it should be in use: `sudo "
                            f"ip link set {i.name} vf {held[0]} state auto` (follow the port)."))
    return out


def counter_errors(others: list[Any]) -> list[Finding]:
    """Interfaces whose receive (or transmit) errors are more than checks/specs/ethernet.toml [rx_errors]
    warn_fraction of the packets they received (or sent), ifconfig's counters: a fault on that link, or in sending."""
    from ..calc.specs import row
    share = row("ethernet.toml", "rx_errors").graded("warn_fraction")
    bad = [i for i in others if i.rx and i.rx[0] and i.rx[1] / i.rx[0] > share]
    sent = [i for i in others if getattr(i, "tx", None) and i.tx[0] and i.tx[1] / i.tx[0] > share]
    return [warn(f"{i.name} counted {i.rx[1]:,} receive errors in {i.rx[0]:,} packets ({100 * i.rx[1] / i.rx[0]:.2g}%): "
                 "frames arrive corrupted, a fault on that link (a cable or module, the port, or a speed or duplex "
                 f"mismatch with the far end). `ethtool -S {i.name}` names the error counters; reseat or swap it.")
            for i in bad[:4]] + [warn(
        f"{i.name} counted {i.tx[1]:,} transmit errors in {i.tx[0]:,} packets sent ({100 * i.tx[1] / i.tx[0]:.2g}%): "
        "the NIC failed to send those frames (the link dropping while sending, a transmit timeout, a driver or "
        f"firmware fault), not corruption on the wire. `ethtool -S {i.name}` names the counters, and `dmesg | grep "
        f"{i.name}` shows a transmit timeout or a reset.") for i in sent[:4]]


def ipoib_findings(ifaces: list[Any]) -> list[Finding]:
    """IP over InfiniBand interfaces (a 20-byte ``link/infiniband`` address): their MTU says the IPoIB mode (the kernel's
    Documentation/infiniband/ipoib.rst: datagram mode carries the IB MTU less the 4-byte IPoIB header, 2044 or 4092;
    connected mode up to 65520). A note: NCCL and other verbs users move data over the InfiniBand port itself, so the
    IPoIB MTU matters only to TCP over it (NCCL's bootstrap, Gloo, iperf3)."""
    ib = [i for i in ifaces if len(i.mac or "") >= 59 and i.mtu]
    if not ib:
        return []
    mode = {2044: "datagram mode on an IB MTU of 2048", 4092: "datagram mode on an IB MTU of 4096",
            65520: "connected mode"}
    said = ", ".join(f"{i.name} MTU {i.mtu}" + (f" ({mode[i.mtu]})" if i.mtu in mode else "") for i in ib[:6])
    return [info(f"IP over InfiniBand: {said}. NCCL and other RDMA programs move data over the InfiniBand port itself, "
                 "not this interface; its MTU and mode matter only to TCP over it (NCCL's bootstrap, Gloo, iperf3), "
                 "so an iperf3 over IPoIB measures far less than the port's rate; ib_write_bw measures the port.")]
