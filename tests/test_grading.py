"""grade(facts, lesson, profile): the operators, missing data, ranges with sources, warn severity."""

from __future__ import annotations

import copy

from grader.grading import exit_code, grade, load_catalogue, lookup
from grader.ranges import load_ranges

GOOD_NODE = {
    "reachable": True, "cabled_port": [1], "port_problems": [], "addressing_problems": [],
    "netplan_problems": [], "netplan_unverified": [], "mtu_values": [9000, 9000], "jumbo_ping_problems": [],
    "ssh_problems": [], "link_speeds_mbps": [200000, 200000], "route_problems": [],
}
GOOD = {"nodes": {"spark-a": dict(GOOD_NODE), "spark-b": dict(GOOD_NODE)},
        "pair": {"tcp_gbps": 95.0, "tcp_problems": []}}


def by_id(verdicts):
    return {v.id: v for v in verdicts}


def test_all_pass_on_spark_pair():
    v = grade(GOOD, "lesson1", "spark-pair")
    assert {x.status for x in v} == {"pass"} and exit_code(v) == 0
    assert sum(x.earned for x in v) == sum(c["points"] for c in load_catalogue("lesson1")) == 14


def test_port_differs_between_nodes():
    f = copy.deepcopy(GOOD)
    f["nodes"]["spark-b"]["cabled_port"] = [0]
    v = by_id(grade(f, "lesson1", "spark-pair"))
    assert v["L1.port"].status == "fail" and v["L1.port"].earned == 0
    assert "nodes.spark-a.cabled_port = [1], nodes.spark-b.cabled_port = [0]" in v["L1.port"].details[0]
    assert [k for k, x in v.items() if x.status == "fail"] == ["L1.port"]


def test_speed_out_of_range_cites_source():
    f = copy.deepcopy(GOOD)
    f["nodes"]["spark-a"]["link_speeds_mbps"] = [100000, 100000]
    v = by_id(grade(f, "lesson1", "spark-pair"))["L1.link_speed"]
    assert v.status == "fail"
    assert v.details == ("nodes.spark-a.link_speeds_mbps = [100000, 100000], expected 200000 Mb/s",)
    assert "multi-sparks-through-switch" in v.range_source and "holds for" in v.range_source


def test_same_speeds_pass_on_sim_only_when_they_match_the_veth():
    f = copy.deepcopy(GOOD)
    for n in f["nodes"].values():
        n["link_speeds_mbps"] = [10000]
    f["pair"]["tcp_gbps"] = 1.5  # what a run over the 1 Gbit/s house network gives
    v = by_id(grade(f, "lesson1", "sim"))
    assert v["L1.link_speed"].status == "pass"
    assert v["L1.tcp"].status == "fail" and "expected >= 2 Gbit/s" in v["L1.tcp"].details[0]
    assert by_id(grade(f, "lesson1", "spark-pair"))["L1.link_speed"].status == "fail"


def test_unreachable_node_fails_its_checks_with_reason_and_keeps_the_other():
    f = copy.deepcopy(GOOD)
    f["nodes"]["spark-b"] = {"reachable": False, "error": "spark-b: cannot connect: Connection refused"}
    v = by_id(grade(f, "lesson1", "spark-pair"))
    assert v["L1.ssh"].status == "fail"
    assert v["L1.ssh"].details == ("spark-b: not measured, the node was unreachable "
                                   "(spark-b: cannot connect: Connection refused)",)
    assert v["L1.tcp"].status == "pass"


def test_empty_list_in_range_op_fails():
    f = copy.deepcopy(GOOD)
    f["nodes"]["spark-a"]["mtu_values"] = []
    v = by_id(grade(f, "lesson1", "sim"))["L1.mtu"]
    assert v.status == "fail" and "no value measured" in v.details[0]


def test_warn_severity_keeps_points():
    f = copy.deepcopy(GOOD)
    f["nodes"]["spark-a"]["netplan_unverified"] = ["/etc/netplan/40-cx7.yaml (mode 600) is not readable"]
    v = by_id(grade(f, "lesson1", "spark-pair"))["L1.netplan"]
    assert (v.status, v.earned) == ("warn", 2)
    assert exit_code([v]) == 0


def test_lesson1_skipped_on_one_node_profiles():
    v = grade(GOOD, "lesson1", "single-spark")
    assert {x.status for x in v} == {"skip"} and sum(x.points for x in v) == 0


def test_lookup_wildcards():
    assert lookup({"nodes": {"a": {"x": 1}, "b": {}}}, "nodes.*.x")[0] == ("nodes.a.x", 1)
    assert lookup({"nodes": {"a": {"x": 1}, "b": {}}}, "nodes.*.x")[1][0] == "nodes.b.x"


def test_every_range_has_source_engine_and_unit_and_every_check_resolves():
    ranges = load_ranges()
    for profile, table in ranges.items():
        for name, r in table.items():
            if name != "measure":
                assert r["source"] and r["engine"] and r["unit"], (profile, name)
    ids = [c["id"] for c in load_catalogue("lesson1")]
    assert len(ids) == len(set(ids))
    for c in load_catalogue("lesson1"):
        assert c["hint"] and c["source"]
        for e in c["expect"]:
            if "range" in e:
                for p in c["profiles"]:
                    assert e["range"] in ranges[p], (c["id"], p)
