"""Lesson 1 probes on more than a pair: a switch of N Sparks or a ring of three (issue 18).

The same read-only probes as :mod:`grader.probes.lesson1` on every node, one SSH connection per node,
every node at once; then, per pair that should talk (:meth:`grader.inventory.Inventory.pairs`), from
each end: the route to the peer's name, a don't-fragment jumbo ping over each twin that shares a subnet
with one of the peer's twins, and SSH from the head to every node and from every node to the head.

Twins are paired **by subnet** here (a ring gives each link its own subnets, a switch puts every node's
first twin on one subnet), where the pair pairs them by PCI domain.

The bounded measurement, after the other probes: iperf3 around the cycle of nodes (n1 -> n2, n2 -> n3, ...,
nN -> n1), so every node's cable is measured once sending and once receiving (full duplex: both at once),
all N pairs at once, or in rounds of the profile's ``max_parallel_pairs`` (checks/ranges.toml: the sim's
links share its CPU). All N(N-1)/2 pairs would take N-1 rounds of disjoint pairs. Probe ids carry the peer: ``getent_peer:<peer>``, ``route_peer:<peer>``,
``ping:<twin>@<peer>``, ``ssh_peer:<peer>``, ``iperf3_client:<a>><b>`` (on a) and ``iperf3_server:<a>><b>`` (on b).
"""

from __future__ import annotations

import shlex
import threading

from grader.evidence import Evidence, RawOutput
from grader.inventory import Inventory
from grader.parsers.getent import parse_getent_hosts
from grader.parsers.iproute import shared_subnet_pairs, up_twin_cidrs
from grader.probes import Probe, run_plan
from grader.probes import lesson1
from grader.probes.lesson1 import IP_ICMP_HEADERS, _ip, inventory_summary, iperf3_between, phase1, ssh_order
from grader.ranges import jumbo_mtu, measurement_params, pairwise_counters
from grader.transport import Connection
from grader.transport import reason as transport_reason

def counters_probe(when: str, names: tuple[str, ...]) -> Probe:
    """``ib_counters:<when>``: the RDMA error counters ``names`` of every device and port, ``path:value``
    per file (grader/parsers/ib_counters.py); the sim's nodes point CLUSTERLAB_SIM_INFINIBAND at their tree."""
    files = " ".join(f'"$IB"/*/ports/*/counters/{shlex.quote(n)}' for n in names)
    return Probe(f"ib_counters:{when}", "IB=/sys/class/infiniband; [ -d \"$IB\" ] || IB=${CLUSTERLAB_SIM_INFINIBAND:-$IB}; "
                                        f"grep -H . {files} 2>/dev/null; true")


IPERF3_PORT_BASE = 5201
"""iperf3's own default port; the pairs of one round use consecutive ports from it."""


def cycle_rounds(names: list[str], at_once: int | None = None) -> list[list[tuple[str, str]]]:
    """The cycle n1 -> n2 -> ... -> nN -> n1 as (client, server) pairs, in rounds of at most ``at_once``
    pairs measured at once (None: every pair in one round). Two nodes: one pair."""
    if len(names) < 2:
        return []
    edges = [(names[i], names[(i + 1) % len(names)]) for i in range(len(names))] if len(names) > 2 \
        else [(names[0], names[1])]
    step = at_once or len(edges)
    return [edges[i:i + step] for i in range(0, len(edges), step)]


def _phase2(node: str, peers: list[str], cidrs: dict[str, dict[str, str]], resolved: dict[str, str | None],
            mtu: int | None, head: str) -> list[Probe]:
    probes = []
    for p in peers:
        if resolved.get(p):
            probes.append(Probe(f"route_peer:{p}", f"ip route get {resolved[p]}"))
        pairs = shared_subnet_pairs(cidrs.get(node, {}), cidrs.get(p, {}))
        for twin, target in sorted(pairs.items()) if mtu else ():
            probes.append(Probe(f"ping:{twin}@{p}",
                                f"ping -c 2 -i 0.2 -W 1 -M do -s {mtu - IP_ICMP_HEADERS} -I {twin} {target}"))
        if pairs and head in (node, p):
            target = sorted(pairs.items(), key=ssh_order)[0][1]
            probes.append(Probe(f"ssh_peer:{p}", f"ssh -o BatchMode=yes -o ConnectTimeout=3 {target} hostname"))
    return probes


def measure_pair(conns: dict[str, Connection], a: str, b: str, cidrs: dict[str, dict[str, str]],
                 params: dict, port: int, ev: Evidence) -> list[RawOutput]:
    """iperf3 from ``a`` (client) to ``b`` (server) over their first shared subnet; [] with the reason in
    ``ev.measurements["iperf3_errors"][f"{a}>{b}"]`` when it cannot run."""
    errors = ev.measurements.setdefault("iperf3_errors", {})
    pairs = shared_subnet_pairs(cidrs.get(a, {}), cidrs.get(b, {}))
    if a not in conns or b not in conns or not pairs:
        errors[f"{a}>{b}"] = (f"{a} and {b} share no subnet on an up twin" if a in conns and b in conns
                              else f"{a if a not in conns else b} is unreachable")
        return []
    twin, target = sorted(pairs.items())[0]
    bind = cidrs[a][twin].split("/")[0]
    try:
        cli, srv = iperf3_between(conns[a], conns[b], target, bind, int(params["streams"]), int(params["seconds"]),
                                  port)
    except Exception as e:  # the channel broke mid-measurement: keep the reason, never a traceback
        errors[f"{a}>{b}"] = f"iperf3 from {a} to {b} stopped: {transport_reason(e)}"
        return []
    cli.probe, srv.probe = f"iperf3_client:{a}>{b}", f"iperf3_server:{a}>{b}"
    return [cli, srv]


def collect_multi(inventory: Inventory, conns: dict[str, Connection], errors: dict[str, str]) -> Evidence:
    """All lesson-1 probes on a switch or ring (see the module doc) and the cycle's iperf3; the evidence."""
    ev = Evidence(lesson="lesson1", profile=inventory.profile, inventory=inventory_summary(inventory),
                  errors=errors)
    names = [n.name for n in inventory.nodes]
    head = names[0]
    peers = {n: [p.name for p in inventory.peers_of(n)] for n in names}
    counters = tuple(pairwise_counters())
    plan1 = {}
    for n in names:
        probes = [p for p in phase1(None)]
        probes += [Probe(f"getent_peer:{p}", f"getent hosts {shlex.quote(p)}") for p in peers[n]]
        plan1[n] = probes + [counters_probe("before", counters)]
    ev.raw += run_plan(conns, plan1, errors)

    cidrs = {}
    for n in names:
        r = ev.outputs(n, "ip_addr")
        cidrs[n] = up_twin_cidrs(r.stdout if r and r.exit_status == 0 else None)
    mtu = jumbo_mtu(inventory.profile)
    plan2 = {}
    for n in names:
        resolved = {}
        for p in peers[n]:
            ge = ev.outputs(n, f"getent_peer:{p}")
            resolved[p] = _ip(parse_getent_hosts(ge.stdout)) if ge is not None else None
        plan2[n] = _phase2(n, peers[n], cidrs, resolved, mtu, head)

    ev.raw += run_plan(conns, plan2, errors)
    params = measurement_params(inventory.profile, "iperf3")
    measured: list[RawOutput] = []
    if params:  # after the other probes, so their traffic and CPU do not share the measurement
        at_once = params.get("max_parallel_pairs")
        for rnd in cycle_rounds(names, int(at_once) if at_once else None):
            outs: list[list[RawOutput]] = [[] for _ in rnd]
            threads = [threading.Thread(target=lambda i=i, a=a, b=b: outs[i].extend(
                measure_pair(conns, a, b, cidrs, params, IPERF3_PORT_BASE + i, ev)), name=f"iperf3 {a}>{b}")
                for i, (a, b) in enumerate(rnd)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            for o in outs:
                measured.extend(o)
    ev.raw += measured
    ev.raw += run_plan(conns, {n: [counters_probe("after", counters)] for n in names}, errors)
    return lesson1.finish(ev, names, conns)


def remeasure(inventory: Inventory, conns: dict[str, Connection], ev: Evidence,
              flagged: list[tuple[str, str]]) -> None:
    """Measure each flagged (client, server) pair once more, one at a time (the pairwise rule: a pair below
    its bar is measured again before it is judged); the outputs go into ``ev`` with ``#2`` on their ids."""
    names = [n.name for n in inventory.nodes]
    cidrs = {}
    for n in names:
        r = ev.outputs(n, "ip_addr")
        cidrs[n] = up_twin_cidrs(r.stdout if r and r.exit_status == 0 else None)
    params = measurement_params(inventory.profile, "iperf3")
    for a, b in flagged:
        for raw in measure_pair(conns, a, b, cidrs, params, IPERF3_PORT_BASE, ev) if params else []:
            raw.probe += "#2"
            ev.raw.append(raw)
    ev.stamp()


def collect(inventory: Inventory, conns: dict[str, Connection], errors: dict[str, str]) -> Evidence:
    """Lesson 1's probes (the registry's collector): :func:`collect_multi` for a switch or a ring, else the
    pair's :func:`grader.probes.lesson1.collect`."""
    if inventory.topology != "pair":
        return collect_multi(inventory, conns, errors)
    return lesson1.collect(inventory, conns, errors)
