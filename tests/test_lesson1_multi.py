"""Lesson 1 beyond a pair (issue 18), without a cluster: the pure parts of the switch/ring probes and
facts, on the golden evidence recorded on the sim's switch of four (tests/fixtures/golden/record_sim.sh)
and on edits of it made in memory. The live sim: tests/test_sim_multi.py."""

from __future__ import annotations

import copy
import json
import re
from itertools import combinations
from pathlib import Path

import pytest

from grader.evidence import load_evidence, shape_problems as problems_in
from grader.facts import pairwise
from grader.facts.lesson1_multi import counter_facts, derive, expected_pairs, flagged_pairs, judgment
from grader.grading import grade
from grader.parsers.iproute import shared_subnet_pairs
from grader.probes.lesson1_multi import cycle_rounds
from grader.ranges import pairwise_counters

GOLDEN = Path(__file__).resolve().parent / "fixtures" / "golden" / "lesson1-sim-switch4.json"
NAMES = ["spark-a", "spark-b", "spark-c", "spark-d"]


@pytest.fixture
def ev():
    return load_evidence(GOLDEN)


def statuses(facts: dict, profile: str = "sim") -> dict[str, str]:
    return {v.id: v.status for v in grade(facts, "lesson1", profile)}


@pytest.mark.parametrize("n,rounds", [(2, 1), (3, 3), (4, 2), (5, 3), (8, 2)])
def test_the_cycle_in_rounds_measures_each_link_once_and_no_node_twice_a_round(n, rounds):
    names = [f"n{i}" for i in range(n)]
    got = cycle_rounds(names)
    assert len(got) == rounds
    edges = [e for r in got for e in r]
    want = [(names[i], names[(i + 1) % n]) for i in range(n)] if n > 2 else [(names[0], names[1])]
    assert sorted(edges) == sorted(want)
    for r in got:
        used = [x for e in r for x in e]
        assert len(used) == len(set(used))


def test_twins_pair_by_subnet_not_by_name():
    a = {"enp1s0f0np0": "192.168.100.10/24", "enP2p1s0f0np0": "192.168.101.10/24", "enp1s0f1np1": "192.168.104.10/24"}
    b = {"enp1s0f1np1": "192.168.100.11/24", "enP2p1s0f1np1": "192.168.101.11/24", "enp1s0f0np0": "192.168.102.11/24"}
    assert shared_subnet_pairs(a, b) == {"enp1s0f0np0": "192.168.100.11", "enP2p1s0f0np0": "192.168.101.11"}
    assert shared_subnet_pairs({"enp1s0f1np1": "10.0.0.1/30"}, {"enp1s0f1np1": "10.0.0.5/30"}) == {}


def test_expected_pairs_of_a_switch_and_a_ring(ev):
    assert expected_pairs(ev) == list(combinations(NAMES, 2))
    ring = copy.deepcopy(ev)
    ring.inventory = {**ev.inventory, "topology": "ring", "nodes": ev.inventory["nodes"][:3]}
    assert expected_pairs(ring) == [("spark-a", "spark-b"), ("spark-b", "spark-c"), ("spark-c", "spark-a")]


def test_golden_switch_of_four_passes_every_check_with_its_measured_pairs(ev):
    facts = derive(ev)
    assert set(statuses(facts).values()) == {"pass"} and len(statuses(facts)) == 8
    pw = facts["pair"]["pairwise"]
    # the figures are the iperf3 receivers' own (bits/1e9), read from the raw JSON independently here
    for p in pw["pairs"]:
        raw = next(r for r in ev.raw if r.probe == f"iperf3_client:{p['a']}>{p['b']}")
        bps = json.loads(raw.stdout)["end"]["sum_received"]["bits_per_second"]
        assert p["gbps"] == pytest.approx(bps / 1e9, abs=1e-3)
    assert facts["pair"]["tcp_gbps"] == min(p["final_gbps"] for p in pw["pairs"])
    assert pw["min_fraction_of_best"] == 0.0  # the sim: no best-pair bar (checks/pairwise.toml not_for)
    assert flagged_pairs(ev) == []


def _with_stdout(ev, node: str, probe: str, edit) -> None:
    r = next(r for r in ev.raw if r.node == node and r.probe == probe)
    r.stdout = edit(r.stdout)


def test_a_counter_that_grew_fails_the_tcp_check_naming_link_counter_and_delta(ev):
    _with_stdout(ev, "spark-c", "ib_counters:after",
                 lambda s: re.sub(r"(roceP2p1s0f1/ports/1/counters/symbol_error):0", r"\1:3", s))
    grew, unread = counter_facts(ev)
    assert unread == [] and len(grew) == 1
    assert grew[0].startswith("spark-c roceP2p1s0f1/1: ") and "symbol_error grew by 3 (0 -> 3)" in grew[0]
    facts = derive(ev)
    assert statuses(facts)["L1.tcp"] == "fail" and facts["pair"]["tcp_problems"] == grew
    assert {k for k, v in statuses(facts).items() if v != "pass"} == {"L1.tcp"}


def test_counters_not_read_after_make_the_tcp_check_not_measured(ev):
    ev.raw = [r for r in ev.raw if not (r.node == "spark-b" and r.probe == "ib_counters:after")]
    grew, unread = counter_facts(ev)
    assert grew == [] and unread == ["spark-b: its RDMA error counters were not read after the measurement"]
    assert statuses(derive(ev))["L1.tcp"] == "unmeasured"


def _scale_pair(ev, a: str, b: str, factor: float) -> None:
    def edit(s: str) -> str:
        data = json.loads(s)
        for key in ("sum_received", "sum_sent"):
            data["end"][key]["bits_per_second"] *= factor
        return json.dumps(data)
    _with_stdout(ev, a, f"iperf3_client:{a}>{b}", edit)


def test_on_a_spark_switch_a_slow_pair_is_flagged_then_judged_on_its_remeasure(ev):
    """The best-pair bar applies on spark-pair (not on the sim): a pair at half the others is flagged; its
    re-measure (``#2``) decides. Figures scaled to a Spark's TCP range so only the bar can fail."""
    ev.profile = ev.inventory["profile"] = "spark-pair"
    rng = pairwise._range("spark-pair", None, pairwise.load_rule())
    for i, a in enumerate(NAMES):  # every pair at 1.5x the range's floor, spark-b -> spark-c at 1.05x (70% of best)
        b = NAMES[(i + 1) % 4]
        raw = next(r for r in ev.raw if r.probe == f"iperf3_client:{a}>{b}")
        got = json.loads(raw.stdout)["end"]["sum_received"]["bits_per_second"] / 1e9
        _scale_pair(ev, a, b, (rng["min"] * (1.5 if a != "spark-b" else 1.05)) / got)
    assert flagged_pairs(ev) == [("spark-b", "spark-c")]
    first = derive(ev)["pair"]  # not measured again (the pipeline always does): the flag is a problem
    assert len(first["tcp_problems"]) == 1 and first["tcp_problems"][0].startswith("spark-b -> spark-c: first ")
    assert "measure it again" in first["tcp_problems"][0] and "70.0%" in first["tcp_problems"][0]
    # the re-measure comes back at the others' speed: the pair passes
    again = copy.deepcopy(next(r for r in ev.raw if r.probe == "iperf3_client:spark-a>spark-b"))
    again.node, again.probe = "spark-b", "iperf3_client:spark-b>spark-c#2"
    ev.raw.append(again)
    j = judgment(ev)
    assert j.verdict("spark-b", "spark-c").status == "pass" and j.verdict("spark-b", "spark-c").remeasured
    assert derive(ev)["pair"]["tcp_problems"] == []


def test_evidence_of_n_nodes_validates_by_topology():
    data = json.loads(GOLDEN.read_text())
    assert not [p for p in problems_in(data) if "node" in p]
    ring2 = copy.deepcopy(data)
    ring2["inventory"] = {**data["inventory"], "topology": "ring", "nodes": data["inventory"]["nodes"][:2]}
    assert any("a ring needs" in p for p in problems_in(ring2))
    mesh = copy.deepcopy(data)
    mesh["inventory"] = {**data["inventory"], "topology": "mesh"}
    assert any("`inventory.topology` is 'mesh'" in p for p in problems_in(mesh))


def test_the_sims_ports_carry_the_counters_the_rule_reads(ev):
    before = next(r for r in ev.raw if r.node == "spark-a" and r.probe == "ib_counters:before").stdout
    for name in pairwise_counters():
        assert before.count(f"/counters/{name}:0") == 4
    assert pairwise_counters() == pairwise.load_rule().counters
