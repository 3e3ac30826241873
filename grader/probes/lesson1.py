"""Lesson 1 probes: cabling, addressing, persistence, MTU, SSH, route and TCP throughput.

Phase 1 reads each node on its own; phase 2 needs the peer's addresses from phase 1 (pings on
each twin, SSH to the peer, the route to the peer's name) and runs together with the one
bounded measurement, iperf3 between the nodes over a QSFP twin.
"""

from __future__ import annotations

import ipaddress
import shlex
import threading
import time

from grader.evidence import Evidence, RawOutput
from grader.inventory import Inventory
from grader.parsers.getent import parse_getent_hosts
from grader.parsers.iproute import up_twin_addresses
from grader.probes import Probe, platform, run_plan
from grader.ranges import jumbo_mtu, measurement_params
from grader.spark_names import QSFP_TWINS, twin_domain
from grader.transport import Connection, NodeUnreachable
from grader.transport import reason as transport_reason

NETPLAN_LISTING = (
    "for f in /etc/netplan/*.yaml /etc/netplan/*.yml; do [ -e \"$f\" ] || continue; "
    "echo \"=== $(stat -c '%a %U:%G' \"$f\") $f\"; "
    "cat \"$f\" 2>/dev/null || sudo -n cat \"$f\" 2>/dev/null || echo '!!! unreadable'; done"
)
"""Every netplan file as ``=== <mode> <owner:group> <path>`` then its text (sudo -n only if it can't be read)."""

SYSINFO = ("uname -srm; ip -V 2>&1; ethtool --version 2>&1; iperf3 --version 2>&1 | head -n 1; "
           "cat /etc/dgx-release 2>/dev/null | head -n 3; true")

NIC_PCIE = ("for t in " + " ".join(t for port in sorted(QSFP_TWINS) for t in QSFP_TWINS[port])
            + "; do grep -H . /sys/class/net/$t/device/*_link_*; done; true")
"""Each QSFP twin's PCIe link as sysfs shows it (``current_link_speed``, ``current_link_width``, ``max_link_speed``,
``max_link_width``; grader/parsers/pcie_sysfs.py); a twin with no PCIe device behind it (the sim's veth) makes grep
say ``No such file or directory``. Read-only, no root needed."""

IP_ICMP_HEADERS = 28
"""Bytes of IPv4 + ICMP header: a don't-fragment ping of payload MTU - 28 fills one MTU-sized frame."""


def phase1(peer_name: str | None) -> list[Probe]:
    """The probes that need nothing but the node itself (and the peer's name from the inventory)."""
    probes = [
        Probe("sysinfo", SYSINFO),
        Probe("hostname", "hostname"),
        Probe("ip_addr", "ip -j addr"),
        Probe("ip_link", "ip -j link"),
        Probe("ibdev2netdev", "ibdev2netdev"),
        Probe("netplan", NETPLAN_LISTING),
        platform.PROBE,
    ]
    probes += [Probe(f"ethtool:{twin}", f"ethtool {twin}") for port in sorted(QSFP_TWINS) for twin in QSFP_TWINS[port]]
    probes.append(Probe("nic_pcie", NIC_PCIE))
    if peer_name:
        probes.append(Probe("getent_peer", f"getent hosts {shlex.quote(peer_name)}"))
    return probes


def pair_twins(local: dict[str, str], peer: dict[str, str]) -> dict[str, str]:
    """{local twin: peer address to reach over it}: the peer's twin of the same PCI domain (0000/0002).

    Pairing by domain, not by name, keeps a pair cabled on different ports measurable; the port
    check reports that mistake.
    """
    by_domain = {twin_domain(t): a for t, a in peer.items()}
    return {t: by_domain[twin_domain(t)] for t in local if twin_domain(t) in by_domain}


def ssh_order(twin_target: tuple[str, str]) -> tuple[str, str]:
    """Sort key of (twin, peer address) pairs: the port's first twin first (PCI domain 0000, ``enp1s0f1np1``),
    whose peer address is the one the playbook and lesson 1 ssh to (``ssh 192.168.100.11 hostname``) and so
    the one whose host key the learner accepted; a plain sort by name puts ``enP2...`` first."""
    return twin_domain(twin_target[0]) or "", twin_target[0]


def phase2(node: str, local: dict[str, str], peer: dict[str, str], peer_resolved: str | None,
           mtu: int | None) -> list[Probe]:
    """Probes that need the peer's addresses: route to the peer's name, DF pings per twin (frames of
    ``mtu`` bytes; none when it is None), SSH to the peer."""
    probes = []
    if peer_resolved:
        probes.append(Probe("route_peer", f"ip route get {peer_resolved}"))
    for twin, target in sorted(pair_twins(local, peer).items()) if mtu else ():
        probes.append(Probe(f"ping:{twin}", f"ping -c 2 -i 0.2 -W 1 -M do -s {mtu - IP_ICMP_HEADERS} -I {twin} {target}"))
    targets = sorted(pair_twins(local, peer).items(), key=ssh_order)
    if targets:
        probes.append(Probe("ssh_peer", f"ssh -o BatchMode=yes -o ConnectTimeout=3 {targets[0][1]} hostname"))
    return probes


def _ip(text: str | None) -> str | None:
    try:
        return str(ipaddress.ip_address(text)) if text else None
    except ValueError:
        return None


IPERF3_SERVER = "iperf3 -s -1 --forceflush"
"""How the server of :func:`iperf3_between` begins (one test, then it exits): ``clusterlab finish`` finds
a stray one by it (grader.lifecycle.ours)."""
IPERF3_CLIENT = "iperf3 -J -c"
"""How the client of :func:`iperf3_between` begins."""


BUSY_RETRY_S = 3.0
"""How long :func:`iperf3_between` waits before its one retry when the port still had an earlier server
busy with its test (``the server is busy running a test``: the last measurement's server had not exited)."""


def _busy(raw: RawOutput) -> bool:
    return "server is busy" in raw.stdout or "server is busy" in raw.stderr


def iperf3_between(client: Connection, server: Connection, target: str, bind: str,
                   streams: int, seconds: int, port: int = 5201) -> tuple[RawOutput, RawOutput]:
    """A bounded TCP measurement: iperf3 server on ``server`` (one client, then it exits), client on ``client``.

    The server is stopped in every case: it serves one test (``-1``), runs under ``timeout``, and
    its channel is closed (which ends it) before this returns. When the client found the port held by an
    earlier server still busy with its test, it is tried once more after :data:`BUSY_RETRY_S` (the earlier
    one serves a single test, then exits). Returns (client raw, server raw), of the last try.
    """
    cli_raw, srv_raw = _iperf3_once(client, server, target, bind, streams, seconds, port)
    if _busy(cli_raw):
        time.sleep(BUSY_RETRY_S)
        cli_raw, srv_raw = _iperf3_once(client, server, target, bind, streams, seconds, port)
    return cli_raw, srv_raw


def _iperf3_once(client: Connection, server: Connection, target: str, bind: str,
                 streams: int, seconds: int, port: int) -> tuple[RawOutput, RawOutput]:
    budget = seconds + 5
    srv_cmd = f"{IPERF3_SERVER} -B {target} -p {port}"
    cli_cmd = f"{IPERF3_CLIENT} {target} -B {bind} -p {port} -P {streams} -t {seconds} --connect-timeout 2000"
    chan = server.open_stream(srv_cmd, budget)
    srv_out = bytearray()
    try:
        deadline = time.monotonic() + 2.0
        while b"listening" not in srv_out and time.monotonic() < deadline and not chan.exit_status_ready():
            if chan.recv_ready():
                srv_out += chan.recv(4096)
            else:
                time.sleep(0.005)
        res = client.run(cli_cmd, budget)
    finally:
        end = time.monotonic() + 1.0
        while time.monotonic() < end and not chan.exit_status_ready():
            time.sleep(0.01)
        while chan.recv_ready():
            srv_out += chan.recv(65536)
        srv_status = chan.recv_exit_status() if chan.exit_status_ready() else None
        chan.close()
    srv_err = chan.recv_stderr(65536).decode("utf-8", "replace") if chan.recv_stderr_ready() else ""
    cli_raw = RawOutput(node=client.node.name, probe="iperf3_client", command=cli_cmd, stdout=res.stdout,
                        stderr=res.stderr, exit_status=res.exit_status, timed_out=res.timed_out,
                        duration_s=res.duration_s)
    srv_raw = RawOutput(node=server.node.name, probe="iperf3_server", command=srv_cmd,
                        stdout=srv_out.decode("utf-8", "replace"), stderr=srv_err, exit_status=srv_status)
    return cli_raw, srv_raw


def collect(inventory: Inventory, conns: dict[str, Connection], errors: dict[str, str]) -> Evidence:
    """Run all lesson-1 probes on the reachable nodes and the iperf3 measurement; return the evidence.
    A pair only: the registry's collector, :func:`grader.probes.lesson1_multi.collect`, hands a switch or a
    ring to :func:`~grader.probes.lesson1_multi.collect_multi`."""
    ev = Evidence(lesson="lesson1", profile=inventory.profile, inventory=inventory_summary(inventory),
                  errors=errors)
    names = [n.name for n in inventory.nodes]
    peers = {n: (inventory.peer(n).name if inventory.peer(n) else None) for n in names}
    ev.raw += run_plan(conns, {n: phase1(peers[n]) for n in names}, errors)

    ip_addr = {n: ev.outputs(n, "ip_addr") for n in names}
    addrs = {n: up_twin_addresses(r.stdout if r and r.exit_status == 0 else None) for n, r in ip_addr.items()}
    plan2: dict[str, list[Probe]] = {}
    for n in names:
        p = peers[n]
        if p is None:
            continue
        ge = ev.outputs(n, "getent_peer")
        resolved = _ip(parse_getent_hosts(ge.stdout)) if ge is not None else None
        plan2[n] = phase2(n, addrs[n], addrs[p], resolved, jumbo_mtu(inventory.profile))

    measured: list[RawOutput] = []
    thread = None
    head, worker = (names + [None])[:2]
    params = measurement_params(inventory.profile, "iperf3")
    pairs = pair_twins(addrs.get(head, {}), addrs.get(worker, {})) if worker else {}
    if worker and head in conns and worker in conns and pairs and params:
        twin, target = sorted(pairs.items())[0]
        bind = addrs[head][twin]

        def measure() -> None:  # a thread: whatever happens is recorded, never a traceback on stderr
            try:
                measured.extend(iperf3_between(conns[head], conns[worker], target, bind,
                                               int(params["streams"]), int(params["seconds"])))
            except NodeUnreachable as e:
                ev.measurements["iperf3_error"] = str(e)
            except Exception as e:  # the channel broke mid-measurement (a node went away): keep the reason
                ev.measurements["iperf3_error"] = (f"iperf3 between {head} and {worker} stopped: "
                                                   f"{transport_reason(e)}")
        thread = threading.Thread(target=measure, name="iperf3")
        thread.start()
    ev.raw += run_plan(conns, plan2, errors)
    if thread is not None:
        thread.join()
    ev.raw += measured
    return finish(ev, names, conns)


def finish(ev: Evidence, names: list[str], conns: dict[str, Connection]) -> Evidence:
    """The end of a lesson-1 collection: each node's ``sysinfo`` and host key in provenance, then stamped."""
    for n in names:
        info = ev.outputs(n, "sysinfo")
        ev.provenance.setdefault("nodes", {}).setdefault(n, {})["sysinfo"] = info.stdout.strip() if info else None
    platform.record_host_keys(ev, conns)
    ev.stamp()
    return ev


def inventory_summary(inventory: Inventory) -> dict:
    """The inventory as recorded in evidence: no key paths, no secrets."""
    return {"profile": inventory.profile, "qsfp_port": inventory.qsfp_port,
            **({"topology": inventory.topology} if inventory.topology != "pair" else {}),
            "nodes": [{"name": n.name, "address": n.address or n.ssh_alias, "port": n.port, "user": n.user}
                      for n in inventory.nodes]}
