"""Lesson 1 facts, derived from the raw outputs in the evidence (never from a stored summary).

Shape (JSON-able)::

    {"nodes": {name: {"reachable": bool, "error": str|None, "hostname": str|None,
                      "roce_simulated": bool, "twin_state": {twin: "Up"|"Down"|"absent"},
                      "cabled_port": [port, ...], "up_twins": [twin, ...],
                      "twin_ipv4": {twin: [cidr, ...]}, "mtu_values": [int, ...],
                      "link_speeds_mbps": [int, ...],
                      "nic_pcie_problems" | "nic_pcie_not_judged": [sentence, ...] (absent: probe not recorded),
                      "port_problems" | "addressing_problems" | "netplan_problems" |
                      "netplan_unverified" | "jumbo_ping_problems" | "ssh_problems" |
                      "route_problems": [sentence, ...],
                      "jumbo_ping_not_judged" | "ssh_not_judged" | "route_not_judged": [sentence, ...]}},
     "pair": {"tcp_gbps": float|None (Gbit/s, receiver side), "tcp_problems": [sentence, ...],
              "tcp_unmeasured": [sentence, ...]}}

The ``*_not_judged`` and ``tcp_unmeasured`` lists are empty for a pair; a switch or a ring
(grader/facts/lesson1_multi.py) fills them for the peers a node shares no subnet with.

Each ``*_problems`` list holds one sentence per thing wrong, naming the node's interface and
the value seen, so a verdict can show exactly what was measured.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from grader.evidence import Evidence, RawOutput
from grader.parsers import (ParseError, parse_ethtool, parse_ibdev2netdev, parse_ip_addr, parse_iperf3,
                            parse_netplan, parse_ping)
from grader.parsers.iproute import parse_ip_route_get, up_twin_addresses
from grader.parsers.pcie_sysfs import PcieLink, parse_pcie_sysfs
from grader.ranges import jumbo_mtu
from grader.judges.link import half_addressed
from grader.spark_names import HOUSE_INTERFACE, QSFP_TWINS, is_qsfp_twin, other_twin, qsfp_port, twin_domain

ALL_TWINS = [t for p in sorted(QSFP_TWINS) for t in QSFP_TWINS[p]]


def _unreadable(raw: RawOutput | None, what: str) -> str | None:
    """Why ``raw`` cannot be used, or None if it can."""
    if raw is None:
        return f"`{what}` was not recorded"
    if raw.timed_out:
        return f"`{raw.command}` timed out"
    return None


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def split_netplan_listing(text: str) -> list[tuple[str, str, str]]:
    """[(path, mode, text)] from the ``netplan`` probe's ``=== <mode> <owner> <path>`` listing."""
    files: list[tuple[str, str, list[str]]] = []
    for line in text.splitlines():
        m = re.match(r"^=== (\d{3,4}) (\S+) (\S+)$", line)
        if m:
            files.append((m.group(3), m.group(1), []))
        elif files:
            files[-1][2].append(line)
    return [(p, mode, "\n".join(body)) for p, mode, body in files]


def node_facts(ev: Evidence, node: str, peer: str | None, cabled: int | None) -> dict[str, Any]:
    """Facts for one node from its raw outputs (and its peer's, for pairing). See the module docstring."""
    if node in ev.errors and ev.outputs(node, "ip_addr") is None:
        return {"reachable": False, "error": ev.errors[node]}
    f: dict[str, Any] = {"reachable": True, "error": ev.errors.get(node)}
    host = ev.outputs(node, "hostname")
    f["hostname"] = host.stdout.strip() if host and host.exit_status == 0 else None

    ifaces: dict[str, Any] = {}
    ip_raw = ev.outputs(node, "ip_addr")
    problem = _unreadable(ip_raw, "ip -j addr")
    try:
        if problem is None:
            ifaces = {i.name: i for i in parse_ip_addr(ip_raw.stdout + ("\n" + ip_raw.stderr if ip_raw.exit_status else ""))}
    except ParseError as e:
        problem = str(e)
    f.update(twin_states(ev, node, ifaces, problem, cabled))
    up = f["up_twins"]
    f["twin_ipv4"] = {t: [a.cidr for a in ifaces[t].ipv4] for t in up if t in ifaces}
    f["mtu_values"] = [ifaces[t].mtu for t in up if t in ifaces and ifaces[t].mtu is not None]
    f["addressing_problems"] = [problem] if problem else _addressing(ifaces, up)
    f["addressing_half_problems"] = [] if problem else _half_addressed(ifaces, up)
    shadowed = _shadowed_twins(ifaces, up)
    f["netplan_problems"], f["netplan_unverified"] = _netplan(ev.outputs(node, "netplan"), ifaces, up,
                                                              jumbo_mtu(ev.profile))
    f["link_speeds_mbps"] = _speeds(ev, node, up)
    pcie = ev.outputs(node, "nic_pcie")
    if pcie is not None:  # recorded since 2026-12-05; an older evidence file leaves L1.link_speed not measured
        f["nic_pcie_problems"], f["nic_pcie_not_judged"] = _nic_pcie(pcie, node, up)
    f["jumbo_ping_problems"], f["jumbo_ping_not_judged"] = _pings(ev, node, up, shadowed)
    f["ssh_problems"] = _ssh(ev, node, peer)
    f["route_problems"] = _route(ev, node, peer)
    f["ssh_not_judged"], f["route_not_judged"] = [], []  # beyond a pair: peers it shares no subnet with
    return f


def twin_states(ev: Evidence, node: str, ifaces: dict, ip_problem: str | None, cabled: int | None) -> dict:
    states: dict[str, str] = {t: "absent" for t in ALL_TWINS}
    simulated = False
    problems: list[str] = []
    raw = ev.outputs(node, "ibdev2netdev")
    source = "ibdev2netdev"
    try:
        if raw is None or raw.exit_status != 0 or not raw.stdout.strip():
            raise ParseError("ibdev2netdev", _last_line(raw.stderr) if raw else "not recorded")
        parsed = parse_ibdev2netdev(raw.stdout)
        simulated = parsed.simulated
        for m in parsed.mappings:
            if m.netdev in states:
                states[m.netdev] = "Up" if m.state.lower() == "up" else "Down"
    except ParseError as e:
        source = "ip -j addr"
        if ip_problem:
            problems.append(f"cannot tell which twins are up: {e}; and {ip_problem}")
        for t in ALL_TWINS:
            if t in ifaces:
                states[t] = "Up" if ifaces[t].is_up else "Down"
    up = [t for t in ALL_TWINS if states[t] == "Up"]
    ports = sorted({qsfp_port(t) for t in up})
    if not up and not problems:
        problems.append("no QSFP twin is Up: check the cable is seated in the same port on both Sparks "
                        f"(`{source}` shows every twin Down), then reboot both if it still shows Down")
    for p in ports:
        down = [t for t in QSFP_TWINS[p] if states[t] != "Up"]
        if down:
            problems.append(f"port {p} is cabled but its twin {', '.join(down)} is {states[down[0]]}: both twins "
                            f"of the port carry traffic (each is one PCIe x4 link); `sudo ip link set {down[0]} up`")
    if cabled is not None and ports and cabled not in ports:
        problems.append(f"the inventory says qsfp_port = {cabled}, but the cable is in port {ports[0]} here")
    return {"twin_state": states, "roce_simulated": simulated, "up_twins": up, "cabled_port": ports,
            "port_problems": problems}


def _half_addressed(ifaces: dict, up: list[str]) -> list[str]:
    """The Up twins without an IPv4 address whose port's other twin has one (judges.link.half_addressed): a
    warning of L1.addressing, not its failure."""
    ipv4_of = {t: ifaces[t].ipv4 for t in up if t in ifaces}
    return [f"{t} has no IPv4 address, while its twin {other_twin(t)} has one: RoCE and NCCL use only that twin, "
            "about half the port's rate; give it a static one in its own /24 in /etc/netplan/40-cx7.yaml"
            for t in up if t in ifaces and half_addressed(t, ipv4_of)]


def _addressing(ifaces: dict, up: list[str]) -> list[str]:
    problems = []
    ipv4_of = {t: ifaces[t].ipv4 for t in up if t in ifaces}
    for t in up:
        i = ifaces.get(t)
        if i is None:
            problems.append(f"{t} is Up but `ip addr` does not list it")
        elif half_addressed(t, ipv4_of):
            continue  # a warning: _half_addressed
        elif not i.ipv4:
            problems.append(f"{t} has no IPv4 address: give it a static one in its own /24 in /etc/netplan/40-cx7.yaml")
        elif not [a for a in i.ipv4 if not a.is_link_local and not a.dynamic]:
            a = i.ipv4[0]
            why = "a link-local address, which changes at reboot" if a.is_link_local else "a DHCP lease, not static"
            problems.append(f"{t} has only {a.cidr} ({why}): set a static address such as 192.168.100.10/24 in netplan")
    for t2, t1 in _shadowed_twins(ifaces, up).items():
        problems.append(f"{t1} ({ifaces[t1].ipv4[0].cidr}) and {t2} ({ifaces[t2].ipv4[0].cidr}) share a subnet: give "
                        "each twin its own (e.g. 192.168.100.0/24 and 192.168.101.0/24), or routing is ambiguous "
                        "and NCCL can fail")
    return problems


def _shadowed_twins(ifaces: dict, up: list[str]) -> dict[str, str]:
    """{twin: earlier twin} for Up twins whose IPv4 subnet overlaps an earlier Up twin's.

    Replies to such a twin can leave the peer over the other twin (the first matching route),
    so a ping bound to it says nothing about MTU; L1.addressing reports the overlap.
    """
    nets = [(t, ipaddress.ip_interface(a.cidr).network) for t in up if t in ifaces for a in ifaces[t].ipv4[:1]]
    return {t2: t1 for k, (t1, n1) in enumerate(nets) for t2, n2 in nets[k + 1:] if n1.overlaps(n2)}


NETPLAN_READ_FILE = "clusterlab-read"
NETPLAN_READ_SUDOERS = "ALL=(root) NOPASSWD: /usr/bin/cat ^/etc/netplan/[^/]+\\.ya?ml$"
"""The sudoers rule's text after the user name (/etc/sudoers.d/:data:`NETPLAN_READ_FILE`); the sim's finished pair
has the same (grader.sim.accounts.READ_RULE)."""
_SHELL_DOLLAR = NETPLAN_READ_SUDOERS.replace("$", "\\$")  # inside the echo's double quotes, $ is the shell's
NETPLAN_READ_RULE = f'echo "$(id -un) {_SHELL_DOLLAR}" > /tmp/{NETPLAN_READ_FILE}'
NETPLAN_READ_INSTALL = (f"sudo visudo -cf /tmp/{NETPLAN_READ_FILE} && sudo install -m 440 /tmp/{NETPLAN_READ_FILE} "
                        "/etc/sudoers.d/")
"""What lets the grader, logged in as the learner, read a netplan file of mode 600 (``sudo -n cat``, the probe's
fallback): a sudoers rule for ``cat`` of a file directly under /etc/netplan named ``*.yaml`` or ``*.yml``, as root,
without a password, and nothing else (``cat /etc/netplan/../shadow`` and a second file are refused). The ``^...$``
argument is a regular expression for sudo 1.9.10 and later. Checked with ``visudo`` before it is installed (a
broken file in /etc/sudoers.d stops sudo altogether). Lesson 1's notebook prints both lines as they are here."""


def _netplan(raw: RawOutput | None, ifaces: dict, up: list[str], jumbo: int | None = None
             ) -> tuple[list[str], list[str]]:
    """(problems, unverified): what is wrong with persistence, and what could not be read.

    Persistence covers the addresses and the MTU: a file whose ``mtu`` differs from the live MTU, or that
    has no ``mtu`` key while the twin runs at the profile's jumbo MTU (``jumbo``, bytes: the ``mtu`` range's
    min), leaves a setting made by hand that a reboot loses."""
    why = _unreadable(raw, "netplan files")
    if why:
        return [], [why]
    problems, unverified = [], []
    # netplan reads the files in the lexical order of their names; a later file's scalar (mtu) replaces an
    # earlier one's, a later sequence (addresses) is appended to it (netplan-generate(8), "Handling multiple
    # files"): `netplan set` without --origin-hint writes 70-netplan-set.yaml beside 40-cx7.yaml.
    defined: dict[str, tuple[list[str], list[str], int | None]] = {}
    for path, mode, text in sorted(split_netplan_listing(raw.stdout), key=lambda f: f[0].rsplit("/", 1)[-1]):
        if text.strip() == "!!! unreadable":
            unverified.append(f"{path} (mode {mode}) is not readable by this user and `sudo -n` may not read it: "
                              "allow the grader that one read on each node (lesson 1, section 2): "
                              f"`{NETPLAN_READ_RULE}` then `{NETPLAN_READ_INSTALL}`")
            continue
        try:
            cfg = parse_netplan(text)
        except ParseError as e:
            problems.append(f"{path} is not valid netplan YAML ({e}): `sudo netplan generate` shows the error")
            continue
        for name, eth in cfg.ethernets.items():
            if name in up:
                paths, addresses, mtu = defined.get(name, ([], [], None))
                defined[name] = (paths + [path], addresses + list(eth.addresses),
                                 eth.mtu if eth.mtu is not None else mtu)
                if mode.lstrip("0") != "600":
                    problems.append(f"{path} has mode {mode}; netplan wants 600 (it warns about others): "
                                    f"`sudo chmod 600 {path}`")
    problems += persistence_problems(defined, ifaces, up, jumbo, complete=not unverified)
    return sorted(set(problems), key=problems.index), unverified


def persistence_problems(defined: dict[str, tuple[list[str], list[str], int | None]], ifaces: dict, up: list[str],
                         jumbo: int | None, *, complete: bool = True) -> list[str]:
    """What a reboot would change on one node, one sentence each (L1.netplan's judgment; ``clusterlab explain``
    says the same of a pasted netplan file beside that node's ``ip addr``, grader.judges.hosts).

    ``defined``: twin -> (the files that set it, the addresses they give it, their mtu or None), netplan's merge of
    the files; ``ifaces``: name -> the parsed ``ip addr`` Interface, what runs now; ``up``: the Up twins judged;
    ``jumbo``: the MTU (bytes) from which a live MTU with no ``mtu`` key in the files counts as set by hand.
    ``complete``: the files read are all the node has (a twin that none sets was set by hand); False for a paste,
    which may show one file of several."""
    problems = []
    for t in up:
        live = sorted(a.cidr for a in ifaces[t].ipv4) if t in ifaces else []
        if t not in defined:
            if complete and live:
                problems.append(f"no file in /etc/netplan sets {t}: its address {', '.join(live)} was set by "
                                "hand and is lost at reboot; write /etc/netplan/40-cx7.yaml (mode 600) and `sudo netplan apply`")
            elif complete:
                problems.append(f"no file in /etc/netplan sets {t}, which has no address yet: write "
                                "/etc/netplan/40-cx7.yaml (mode 600) and `sudo netplan apply`")
            continue
        paths, in_file, file_mtu = defined[t]
        path, says = (paths[0], "says") if len(paths) == 1 else (" and ".join(paths) + ", merged,", "say")
        if sorted(set(in_file)) != live:
            problems.append(f"{path} {says} {t} is {', '.join(sorted(set(in_file))) or '(no address)'}, but it has "
                            f"{', '.join(live) or '(none)'} now: fix the file or run `sudo netplan apply`")
        live_mtu = ifaces[t].mtu if t in ifaces else None
        if live_mtu is not None and file_mtu is not None and file_mtu != live_mtu:
            problems.append(f"{path} {says} {t} has mtu {file_mtu}, but it runs at {live_mtu} now: fix the file or "
                            "run `sudo netplan apply`")
        elif live_mtu is not None and file_mtu is None and jumbo is not None and live_mtu >= jumbo:
            problems.append(f"{path} {'sets' if says == 'says' else 'set'} no mtu for {t}: its MTU {live_mtu} was set by hand and is lost at reboot; "
                            f"add `mtu: {live_mtu}` under {t} and `sudo netplan apply`")
    return problems


def _speeds(ev: Evidence, node: str, up: list[str]) -> list[int]:
    speeds = []
    for t in up:
        raw = ev.outputs(node, f"ethtool:{t}")
        if raw is None or raw.exit_status != 0:
            continue
        try:
            speeds += [r.speed_mbps for r in parse_ethtool(raw.stdout) if r.speed_mbps is not None]
        except ParseError:
            continue
    return speeds


GX10_REPORT = ("https://forums.developer.nvidia.com/t/asus-ascent-gx10-second-connectx-7-pcie-slot-wired-at-gen5-x2-"
               "instead-of-x4-50-bandwidth-loss-vs-dgx-spark-fe/367853")
"""An ASUS Ascent GX10 whose second ConnectX-7 function (PCI domain 0002) trains at Gen5 x2 of its x4, traced there
to the board's root port: a limit of that board, not a setting. On the DGX Spark FE all four functions train x4."""


def _speed_width(gts: float | None, width: int | None) -> str:
    return " ".join(([f"{gts:g} GT/s"] if gts is not None else []) + ([f"x{width}"] if width is not None else []))


def pcie_link_problem(name: str, link: PcieLink, domain: str | None = None, spark: bool = False) -> str | None:
    """The sentence for a PCIe link that trained narrower than its function can (its own maximum, from sysfs
    ``max_link_*`` or lspci's LnkCap), or, with ``spark`` (a DGX Spark's ConnectX-7 twin: a NIC, which does not lower
    its speed to save power), slower; None when it runs at its maximum, when a value is missing, and for a speed
    alone lowered on another device (a GPU lowers it at idle). ``domain``: the PCI domain (``0002``) that tells a
    GX10's second ConnectX-7 function. Speeds in GT/s per lane, widths in lanes. What L1.link_speed and `explain`
    both say (a warning)."""
    now = _speed_width(link.current_speed_gts, link.current_width)
    can = _speed_width(link.max_speed_gts, link.max_width)
    if link.current_width == 0:
        return (f"{name}: its PCIe link did not train (width 0; the function can {can or 'more: its maximum is not shown'}"
                "): nothing crosses it. Power the machine off and on and read it again")
    if not (link.narrower or (spark and link.slower)):
        return None
    lanes = link.current_width / link.max_width if link.narrower else 1.0  # narrower: both widths are known
    share = lanes * (link.current_speed_gts / link.max_speed_gts if link.slower else 1.0)  # slower: both speeds
    first = f"{name}: its PCIe link trained at {now}, not the {can} the function can: it moves about {share:.0%} of that"
    if not spark:
        return (f"{first}. A card in a slot wired for fewer lanes or an older generation trains that way (the board's "
                f"manual says how each slot is wired, and which slots share lanes); otherwise reseat it")
    gx10 = (f" If this machine is an ASUS Ascent GX10: its second ConnectX-7 function (PCI domain 0002) trains at x2, "
            f"traced to the board's root port, a limit of that board, not a setting ({GX10_REPORT})."
            if link.narrower and domain == "0002" else "")
    return (f"{first}.{gx10} On a DGX Spark all four ConnectX-7 functions train at their full width and speed: power "
            f"the machine off and on and read it again; if it stays, ask the vendor's support")


def _nic_pcie(raw: RawOutput, node: str, up: list[str]) -> tuple[list[str], list[str]]:
    """(problems, not judged) of the Up twins' PCIe links from the ``nic_pcie`` probe. A twin with no PCIe device
    behind it (a veth: grep finds no file) has none to judge; an Up twin whose link the output does not show, or
    shows without its current and maximum width, is not judged."""
    shown = parse_pcie_sysfs(raw.stdout + "\n" + raw.stderr)
    problems = [p for t in up if t in shown.links
                for p in [pcie_link_problem(f"{t} on {node}", shown.links[t], twin_domain(t), spark=True)] if p]
    unread = [t for t in up if t not in shown.no_device and (t not in shown.links or shown.links[t].current_width != 0
                                                            and None in (shown.links[t].current_width,
                                                                         shown.links[t].max_width))]
    return problems, ([f"the PCIe link of {', '.join(unread)} on {node} was not shown (`grep . /sys/class/net/"
                       f"{unread[0]}/device/*_link_*` prints it)"] if unread else [])


def _pings(ev: Evidence, node: str, up: list[str], shadowed: dict[str, str]) -> tuple[list[str], list[str]]:
    """(problems, not judged): failed DF jumbo pings, and pings over twins whose subnet is shadowed."""
    problems, not_judged = [], []
    mtu = jumbo_mtu(ev.profile)
    frame, setting = (f"{mtu}-byte frame", f"mtu: {mtu}") if mtu else ("jumbo frame", "the jumbo MTU")
    pinged = [r for r in ev.raw if r.node == node and r.probe.startswith("ping:")]
    for r in pinged:
        twin = r.probe.split(":", 1)[1].split("@")[0]  # ping:<twin>, or ping:<twin>@<peer> beyond a pair
        try:
            res = parse_ping(r.stdout + "\n" + r.stderr)
            ok, detail = res.ok, "; ".join(res.errors) or f"{res.received or 0} of {res.transmitted or 0} replies"
        except ParseError as e:
            ok, detail = False, str(e)
        if not ok and twin in shadowed:
            not_judged.append(f"`{r.command}` got no answer on {twin}, but {twin} shares a subnet with "
                              f"{shadowed[twin]}, so replies may come back over {shadowed[twin]} (see L1.addressing)")
        elif not ok:
            problems.append(f"`{r.command}` failed ({detail}): a {frame} does not cross {twin}; set "
                            f"{setting} on both ends' twins in netplan and `sudo netplan apply`")
    if up and not pinged:
        problems.append("no jumbo ping could be sent: no twin pair with IPv4 addresses on both nodes")
    return problems, not_judged


def _ssh(ev: Evidence, node: str, peer: str | None, suffix: str = "") -> list[str]:
    """Problems of the SSH from ``node`` to ``peer`` (probe ``ssh_peer``, ``ssh_peer:<peer>`` beyond a pair)."""
    if peer is None:
        return []
    r = ev.outputs(node, "ssh_peer" + suffix)
    if r is None:
        return [f"{node} has no QSFP address of {peer} to ssh to (see the addressing check)"]
    if r.exit_status != 0 or r.timed_out:
        why = _last_line(r.stderr) or ("timed out" if r.timed_out else f"exit {r.exit_status}")
        return [f"`{r.command}` on {node} failed ({why}): copy the shared key to {peer} (NVIDIA's discover-sparks, "
                f"or `ssh-copy-id` to {peer}) and accept {peer}'s host key once"]
    peer_host = ev.outputs(peer, "hostname")
    answered = r.stdout.strip()
    if peer_host and peer_host.exit_status == 0 and answered != peer_host.stdout.strip():
        return [f"ssh from {node} reached {answered!r}, not {peer} ({peer_host.stdout.strip()!r}): the address is "
                "another machine's"]
    return []


def _route(ev: Evidence, node: str, peer: str | None, suffix: str = "") -> list[str]:
    """Problems of the route from ``node`` to ``peer``'s name (``getent_peer``/``route_peer``, with
    ``:<peer>`` beyond a pair)."""
    if peer is None:
        return []
    ge = ev.outputs(node, "getent_peer" + suffix)
    if ge is None or ge.exit_status != 0 or not ge.stdout.strip():
        return [f"{node} cannot resolve the name {peer}: add `<its QSFP address> {peer}` to /etc/hosts"]
    r = ev.outputs(node, "route_peer" + suffix)
    if r is None:
        return [f"{node} resolves {peer} to something that is not an address: {ge.stdout.strip()!r}"]
    try:
        route = parse_ip_route_get(r.stdout + "\n" + r.stderr)
    except ParseError as e:
        return [f"{node} has no route to {peer}: {e}"]
    if not is_qsfp_twin(route.dev):
        where = "the house network" if route.dev == HOUSE_INTERFACE else route.dev
        ip_peer = ev.outputs(peer, "ip_addr")
        # the first twin first (enp1s0f1np1 before enP2p1s0f1np1, as the lesson and the L1.route hint name it)
        qsfp = sorted(up_twin_addresses(ip_peer.stdout if ip_peer and ip_peer.exit_status == 0 else None).items(),
                      key=lambda kv: kv[0].lower())
        example = f"`{qsfp[0][1]} {peer}`" if qsfp else f"`<its QSFP twin address> {peer}`"
        return [f"{node} reaches {peer} ({route.dst}) over {where} ({route.dev}), not a QSFP twin: make {peer} "
                f"resolve to its QSFP address in /etc/hosts on {node} ({example})"]
    return []


def pair_facts(ev: Evidence) -> dict[str, Any]:
    """The iperf3 measurement between the nodes: receiver-side TCP throughput in Gbit/s (bits/1e9)."""
    r = ev.outputs_any("iperf3_client")
    if r is None:
        why = ev.measurements.get("iperf3_error") or "iperf3 did not run (no twin pair with addresses on both nodes, or a node unreachable)"
        return {"tcp_gbps": None, "tcp_problems": [why], "tcp_unmeasured": []}
    try:
        res = parse_iperf3(r.stdout)
    except ParseError as e:
        return {"tcp_gbps": None, "tcp_problems": [f"{e}; stderr: {_last_line(r.stderr)}"], "tcp_unmeasured": []}
    if res.error:
        return {"tcp_gbps": None, "tcp_problems": [f"iperf3 failed: {res.error}"], "tcp_unmeasured": []}
    gbps = res.received_gbps
    return {"tcp_gbps": round(gbps, 3) if gbps is not None else None, "tcp_problems": [], "tcp_unmeasured": [],
            "tcp_streams": res.streams, "tcp_seconds": res.duration_s, "tcp_command": r.command}


def derive(ev: Evidence) -> dict[str, Any]:
    """All lesson-1 facts of a pair from ``ev``'s raw outputs. Pure: reads nothing but ``ev``. The registry's
    deriver, :func:`grader.facts.lesson1_multi.derive`, hands a switch or a ring to ``derive_multi``."""
    names = [n["name"] for n in ev.inventory["nodes"]]
    port = ev.inventory.get("qsfp_port")
    nodes = {}
    for n in names:
        peer = next((m for m in names if m != n), None)
        nodes[n] = node_facts(ev, n, peer, port)
    return {"nodes": nodes, "pair": pair_facts(ev) if len(names) == 2 else {}}
