"""Lesson 1 facts on a switch of N Sparks or a ring of three (issue 18), from the raw outputs of
:mod:`grader.probes.lesson1_multi`, in the shape of :mod:`grader.facts.lesson1` so the same catalogue
(checks/lesson1.toml) grades them:

- ``nodes.<name>``: the pair's per-node facts, with ``ssh_problems``, ``route_problems`` and the jumbo
  pings taken per peer, and ``addressing_problems`` adding the fabric's: a node that shares no subnet
  with a peer it should talk to (through a switch: every other node; in a ring: its neighbours). The
  probes that need a shared subnet (ping, SSH, route, iperf3) are then **not judged** for that pair
  (``*_not_judged``: the check says so and earns nothing) instead of failing a second check;
- ``pair``: the pairwise iperf3 measurements judged by :func:`grader.facts.pairwise.judge_pairs` (best-pair
  bar and the profile's range, checks/pairwise.toml): ``tcp_gbps`` the lowest pair's latest Gbit/s,
  ``tcp_problems`` the failing pairs' reasons and the links whose RDMA error counters grew between the
  readings before and after the measurements (:func:`grader.facts.pairwise.judge_counters`),
  ``tcp_unmeasured`` the pairs that could not be measured and the counters that could not be read, and
  ``pairwise`` the judgment (``PairwiseJudgment.to_dict()``, the matrix and heat map's input).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from grader.evidence import Evidence
from grader.facts import pairwise
from grader.facts import lesson1
from grader.facts.lesson1 import _route, _ssh, node_facts
from grader.parsers import ParseError, parse_iperf3
from grader.parsers.ib_counters import parse_ib_counters
from grader.parsers.iproute import shared_subnet_pairs, up_twin_cidrs


def expected_pairs(ev: Evidence) -> list[tuple[str, str]]:
    """The pairs that should talk, from the evidence's inventory: a ring's links (n1-n2, n2-n3, n3-n1),
    or every pair through a switch, in [[nodes]] order."""
    names = [n["name"] for n in ev.inventory["nodes"]]
    if ev.inventory.get("topology") == "ring":
        return [(names[i], names[(i + 1) % len(names)]) for i in range(len(names))]
    return list(combinations(names, 2))


def _cidrs(ev: Evidence, node: str) -> dict[str, str]:
    r = ev.outputs(node, "ip_addr")
    return up_twin_cidrs(r.stdout if r and r.exit_status == 0 else None)


def _subnet_problems(ev: Evidence, pairs: list[tuple[str, str]], apart: set[frozenset]) -> dict[str, list[str]]:
    """{node: sentences} for the pairs that share no subnet: blamed on a node that shares none with any of
    its peers (the odd one out), else on both ends."""
    peers: dict[str, set[str]] = {}
    for a, b in pairs:
        peers.setdefault(a, set()).add(b)
        peers.setdefault(b, set()).add(a)
    isolated = {n for n, ps in peers.items() if ps and all(frozenset((n, p)) in apart for p in ps)}
    out: dict[str, list[str]] = {}
    for n in sorted(isolated):
        mine = ", ".join(sorted(_cidrs(ev, n).values())) or "no address on an up twin"
        theirs = "; ".join(f"{p} {', '.join(sorted(_cidrs(ev, p).values())) or '-'}" for p in sorted(peers[n]))
        out.setdefault(n, []).append(
            f"{n}'s twins ({mine}) share no subnet with any node it should talk to ({theirs}): give each twin an "
            "address on the subnet its peers use for that twin (one subnet per twin through a switch, one per link "
            "and twin in a ring), in /etc/netplan/40-cx7.yaml, then `sudo netplan apply`")
    for a, b in pairs:
        if frozenset((a, b)) in apart and not ({a, b} & isolated):
            for n, p in ((a, b), (b, a)):
                out.setdefault(n, []).append(f"{n} shares no subnet with {p}, which it should talk to: put the "
                                             "twins that face each other on one subnet")
    return out


def _gbps(ev: Evidence, probe: str) -> tuple[float | None, str | None]:
    r = ev.outputs_any(probe)
    if r is None:
        return None, None
    try:
        res = parse_iperf3(r.stdout)
    except ParseError as e:
        return None, str(e)
    if res.error or res.received_gbps is None:
        return None, f"iperf3 failed: {res.error or 'no receiver figure'}"
    return res.received_gbps, None


def measured_pairs(ev: Evidence) -> tuple[dict[tuple[str, str], float], dict[tuple[str, str], float], dict[str, str]]:
    """(first Gbit/s per (client, server), the re-measures, {"a>b": why not measured}) from the evidence."""
    first, again, why = {}, {}, dict(ev.measurements.get("iperf3_errors") or {})
    for r in ev.raw:
        if not r.probe.startswith("iperf3_client:") or r.probe.endswith("#2"):
            continue
        key = r.probe.split(":", 1)[1]
        a, _, b = key.partition(">")
        gbps, err = _gbps(ev, r.probe)
        if gbps is None:
            why[key] = err or "no result"
            continue
        first[(a, b)] = gbps
        g2, _ = _gbps(ev, r.probe + "#2")
        if g2 is not None:
            again[(a, b)] = g2
    return first, again, why


def flagged_pairs(ev: Evidence) -> list[tuple[str, str]]:
    """The pairs measured once and below the best pair's bar: what to measure again (checks/pairwise.toml)."""
    first, again, _ = measured_pairs(ev)
    if not first or again:
        return []
    rule = pairwise.load_rule().for_profile(ev.profile)
    return list(pairwise.judge_pairs(first, profile=ev.profile, rule=rule).to_remeasure())


def judgment(ev: Evidence) -> pairwise.PairwiseJudgment | None:
    """The pairwise bandwidth judgment of a switch or ring's evidence (first measurements, and the
    re-measures of the pairs they flagged), or None when no pair was measured: what the check's table,
    its JSON and the notebook's heat map show (grader/widgets/pairwise.py)."""
    first, again, _ = measured_pairs(ev)
    if not first:
        return None
    rule = pairwise.load_rule().for_profile(ev.profile)
    flagged = set(pairwise.judge_pairs(first, profile=ev.profile, rule=rule).to_remeasure())
    return pairwise.judge_pairs(first, {k: v for k, v in again.items() if k in flagged}, profile=ev.profile,
                                rule=rule)


def _counter_readings(ev: Evidence, when: str) -> tuple[dict[str, dict[str, int]], dict[str, str]]:
    """({"<node> <device>/<port>": {counter: count}}, {node: why its reading is missing}) for ``when``."""
    links: dict[str, dict[str, int]] = {}
    missing = {}
    for n in [x["name"] for x in ev.inventory["nodes"]]:
        r = ev.outputs(n, f"ib_counters:{when}")
        if r is None:
            missing[n] = f"{n}: its RDMA error counters were not read {when} the measurement"
            continue
        if not r.stdout.strip():
            continue  # no RDMA device on this node: nothing to judge
        try:
            links.update(pairwise.per_link({n: parse_ib_counters(r.stdout).values()}))
        except ParseError as e:
            missing[n] = f"{n}: {e}"
    return links, missing


def counter_facts(ev: Evidence) -> tuple[list[str], list[str]]:
    """(links whose RDMA error counters grew across the measurements, what could not be read): the
    sentences of :func:`grader.facts.pairwise.judge_counters` (checks/pairwise.toml [counters])."""
    before, miss_b = _counter_readings(ev, "before")
    after, miss_a = _counter_readings(ev, "after")
    gone = set(miss_b) | set(miss_a)  # a node not read once: said once, its links not judged
    links = [k for k in dict.fromkeys([*before, *after]) if k.split(" ", 1)[0] not in gone]
    verdicts = pairwise.judge_counters(before, after, links=links) if links else []
    grew = [f"{v.link}: " + "; ".join(v.reasons) for v in verdicts if v.status == "fail"]
    unread = [*miss_b.values(), *miss_a.values()] + [f"{v.link}: " + "; ".join(v.reasons) for v in verdicts
                                                      if v.status == "unmeasured"]
    return grew, unread


def _tcp(ev: Evidence) -> dict[str, Any]:
    _, _, why = measured_pairs(ev)
    grew, unread = counter_facts(ev)
    unmeasured = [f"{k.replace('>', ' -> ')}: {v}" for k, v in sorted(why.items())] + unread
    judged = judgment(ev)
    if judged is None:
        return {"tcp_gbps": None, "tcp_problems": grew if unmeasured else ["iperf3 did not run"] + grew,
                "tcp_unmeasured": unmeasured, "pairwise": None}
    problems = [f"{p.a} -> {p.b}: " + "; ".join(p.reasons) for p in judged.pairs if p.status in ("fail", "flag")]
    problems += grew
    lowest = min((p.final_gbps for p in judged.pairs), default=None)
    return {"tcp_gbps": round(lowest, 3) if lowest is not None else None, "tcp_problems": problems,
            "tcp_unmeasured": unmeasured, "pairwise": judged.to_dict()}


def derive_multi(ev: Evidence) -> dict[str, Any]:
    """All lesson-1 facts of a switch or ring from ``ev``'s raw outputs (see the module doc). Pure."""
    names = [n["name"] for n in ev.inventory["nodes"]]
    port = ev.inventory.get("qsfp_port")
    pairs = expected_pairs(ev)
    apart = {frozenset((a, b)) for a, b in pairs
             if _cidrs(ev, a) and _cidrs(ev, b) and not shared_subnet_pairs(_cidrs(ev, a), _cidrs(ev, b))}
    blame = _subnet_problems(ev, pairs, apart)
    head = names[0]
    nodes = {}
    for n in names:
        f = node_facts(ev, n, None, port)
        if not f.get("reachable"):
            nodes[n] = f
            continue
        f["addressing_problems"] = list(f["addressing_problems"]) + blame.get(n, [])
        peers = [b if a == n else a for a, b in pairs if n in (a, b)]
        cut = [p for p in peers if frozenset((n, p)) in apart]
        if cut:
            f["jumbo_ping_problems"] = [x for x in f["jumbo_ping_problems"] if not x.startswith("no jumbo ping")]
            f["jumbo_ping_not_judged"] = list(f["jumbo_ping_not_judged"]) + [
                f"no jumbo ping from {n} to {p}: they share no subnet (see L1.addressing)" for p in cut]
        ssh_to = [p for p in peers if head in (n, p)]
        f["ssh_problems"] = [x for p in ssh_to if p not in cut for x in _ssh(ev, n, p, f":{p}")]
        f["ssh_not_judged"] = [f"no SSH from {n} to {p} over the fabric: they share no subnet (see L1.addressing)"
                               for p in ssh_to if p in cut]
        f["route_problems"] = [x for p in peers if p not in cut for x in _route(ev, n, p, f":{p}")]
        f["route_not_judged"] = [f"the route from {n} to {p} is not judged: they share no subnet (see L1.addressing)"
                                 for p in cut]
        nodes[n] = f
    return {"nodes": nodes, "pair": _tcp(ev)}


def derive(ev: Evidence) -> dict[str, Any]:
    """Lesson 1's facts (the registry's deriver): :func:`derive_multi` for a switch or a ring, else the
    pair's :func:`grader.facts.lesson1.derive`."""
    return derive_multi(ev) if ev.inventory.get("topology", "pair") != "pair" else lesson1.derive(ev)
