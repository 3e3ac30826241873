"""grade(facts, lesson, profile): the operators, missing data (not measured), ranges with sources, warn
and unmeasured severities, the summary line and the exit status."""

from __future__ import annotations

import copy

from grader.grading import exit_code, grade, load_catalogue, lookup, summary_line, warn_points
from grader.ranges import CatalogueError
from grader.ranges import load_ranges

GOOD_NODE = {
    "reachable": True, "cabled_port": [1], "port_problems": [], "addressing_problems": [], "addressing_half_problems": [],
    "netplan_problems": [], "netplan_unverified": [], "mtu_values": [9000, 9000], "jumbo_ping_problems": [],
    "ssh_problems": [], "link_speeds_mbps": [200000, 200000], "route_problems": [],
    "ssh_not_judged": [], "route_not_judged": [], "nic_pcie_problems": [], "nic_pcie_not_judged": [],
}
GOOD = {"nodes": {"spark-a": dict(GOOD_NODE), "spark-b": dict(GOOD_NODE)},
        "pair": {"tcp_gbps": 95.0, "tcp_problems": [], "tcp_unmeasured": []}}


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
    """100 GbE on a Spark port works at half its rate: a warning earning half the point (checks/ranges.toml
    [spark-pair.link_speed_working_mbps]), as explain reads the same ethtool; 25 GbE is out of both ranges: a fault."""
    f = copy.deepcopy(GOOD)
    f["nodes"]["spark-a"]["link_speeds_mbps"] = [100000, 100000]
    v = by_id(grade(f, "lesson1", "spark-pair"))["L1.link_speed"]
    assert (v.status, v.earned) == ("warn", 0.5)
    assert v.details == ("nodes.spark-a.link_speeds_mbps = [100000, 100000], expected 200000 Mb/s",)
    assert "multi-sparks-through-switch" in v.range_source and "holds for" in v.range_source
    f["nodes"]["spark-a"]["link_speeds_mbps"] = [25000, 25000]
    v = by_id(grade(f, "lesson1", "spark-pair"))["L1.link_speed"]
    assert (v.status, v.earned) == ("fail", 0)
    assert "nodes.spark-a.link_speeds_mbps = [25000, 25000], expected 100000-200000 Mb/s" in v.details


def test_a_twin_left_unaddressed_beside_an_addressed_one_warns_and_earns_half():
    """Corpus q004, z004, zc007 (Spark owners' `ip a`): one twin of the cabled port addressed, the other Up without
    IPv4. RoCE runs over the one twin at about half the port's rate: L1.addressing warns (1 of its 2 points); an Up
    twin without an address whose twin has none either still fails it."""
    f = copy.deepcopy(GOOD)
    f["nodes"]["spark-b"]["addressing_half_problems"] = ["enP2p1s0f1np1 has no IPv4 address, while its twin ..."]
    v = by_id(grade(f, "lesson1", "spark-pair"))["L1.addressing"]
    assert (v.status, v.earned) == ("warn", 1.0)
    f["nodes"]["spark-b"]["addressing_problems"] = ["enp1s0f1np1 has no IPv4 address: ..."]
    v = by_id(grade(f, "lesson1", "spark-pair"))["L1.addressing"]
    assert (v.status, v.earned) == ("fail", 0.0)


def test_a_twin_at_half_its_pcie_width_warns_and_an_unread_link_is_not_measured():
    """200G on the cable but one twin's PCIe link at x2 of x4 (an ASUS GX10's 0002 function): measured and doubtful,
    half the point (warn_points); evidence that does not show the links is not measured, and earns nothing."""
    f = copy.deepcopy(GOOD)
    f["nodes"]["spark-b"]["nic_pcie_problems"] = ["enP2p1s0f1np1: its PCIe link trained at 32 GT/s x2"]
    v = by_id(grade(f, "lesson1", "spark-pair"))["L1.link_speed"]
    assert (v.status, v.details) == ("warn", ("enP2p1s0f1np1: its PCIe link trained at 32 GT/s x2",))
    assert v.earned == warn_points(next(c for c in load_catalogue("lesson1") if c["id"] == "L1.link_speed")) == 0.5
    del f["nodes"]["spark-b"]["nic_pcie_problems"]  # evidence from before the probe
    assert by_id(grade(f, "lesson1", "spark-pair"))["L1.link_speed"].status == "unmeasured"
    f["nodes"]["spark-b"]["nic_pcie_problems"] = []
    f["nodes"]["spark-b"]["nic_pcie_not_judged"] = ["the PCIe link of enp1s0f1np1 was not shown"]
    v = by_id(grade(f, "lesson1", "spark-pair"))["L1.link_speed"]
    assert (v.status, v.earned) == ("unmeasured", 0)


def test_same_speeds_pass_on_sim_only_when_they_match_the_veth():
    f = copy.deepcopy(GOOD)
    for n in f["nodes"].values():
        n["link_speeds_mbps"] = [10000]
    f["pair"]["tcp_gbps"] = 1.5  # what a run over the 1 Gbit/s house network gives
    v = by_id(grade(f, "lesson1", "sim"))
    assert v["L1.link_speed"].status == "pass"
    assert v["L1.tcp"].status == "fail" and "expected >= 2 Gbit/s" in v["L1.tcp"].details[0]
    assert by_id(grade(f, "lesson1", "spark-pair"))["L1.link_speed"].status == "fail"


def test_unreachable_node_is_not_measured_with_reason_and_keeps_the_other():
    f = copy.deepcopy(GOOD)
    f["nodes"]["spark-b"] = {"reachable": False, "error": "spark-b: cannot connect: Connection refused"}
    verdicts = grade(f, "lesson1", "spark-pair")
    v = by_id(verdicts)
    assert (v["L1.ssh"].status, v["L1.ssh"].earned) == ("unmeasured", 0)
    assert v["L1.ssh"].details == ("spark-b: not measured, the node was unreachable "
                                   "(spark-b: cannot connect: Connection refused)",)
    assert v["L1.tcp"].status == "pass"
    # L1.port reads two facts of spark-b: both missing; tcp (2 points) is the only check left standing
    assert summary_line(verdicts) == "score 2/14: 1 pass, 0 warn, 0 fail, 7 not measured"
    assert exit_code(verdicts) == 1


def test_empty_list_in_range_op_is_not_measured():
    f = copy.deepcopy(GOOD)
    f["nodes"]["spark-a"]["mtu_values"] = []
    v = by_id(grade(f, "lesson1", "sim"))["L1.mtu"]
    assert (v.status, v.earned) == ("unmeasured", 0) and "no value measured" in v.details[0]


def test_none_for_in_range_is_not_measured_but_a_wrong_value_fails():
    f = copy.deepcopy(GOOD)
    f["pair"]["tcp_gbps"] = None
    assert by_id(grade(f, "lesson1", "spark-pair"))["L1.tcp"].status == "unmeasured"
    f["pair"]["tcp_problems"] = ["iperf3: unable to connect to server"]
    v = by_id(grade(f, "lesson1", "spark-pair"))["L1.tcp"]
    assert v.status == "fail" and v.details[0] == "iperf3: unable to connect to server"  # fail outranks not measured


def test_unmeasured_severity_earns_nothing_and_says_what_is_missing():
    f = copy.deepcopy(GOOD)
    f["nodes"]["spark-a"]["netplan_unverified"] = ["/etc/netplan/40-cx7.yaml (mode 600) is not readable"]
    v = by_id(grade(f, "lesson1", "spark-pair"))["L1.netplan"]
    assert (v.status, v.earned) == ("unmeasured", 0)
    assert v.details == ("/etc/netplan/40-cx7.yaml (mode 600) is not readable",)
    assert exit_code([v]) == 1


def test_warn_earns_half_by_default():
    f = {"nodes": {"box": {"p2p_problems": ["GPU0-GPU1 through the CPU (SYS)"], "p2p_unmeasured": []}}}
    v = by_id(grade(f, "lesson3", "dual-gpu-desktop"))["L3.p2p_path"]
    assert (v.status, v.points, v.earned) == ("warn", 1, 0.5)
    assert exit_code([v]) == 0


def test_warn_points_full_only_with_a_reason():
    assert warn_points({"points": 2}) == 1.0
    assert warn_points({"points": 2, "warn_points": 0.5}) == 0.5
    bad = {"id": "X.y", "points": 2, "warn_points": 2}
    import grader.grading as g
    saved = g._read
    try:
        g._read = lambda name: {"check": [dict(bad, title="t", profiles=["sim"], hint="h", source="s",
                                               expect=[{"fact": "x", "op": "empty"}])]}
        g.load_catalogue.cache_clear()
        try:
            g.load_catalogue("lesson1")
        except CatalogueError as e:
            assert "warn_points_why" in str(e)
        else:
            raise AssertionError("a full-points warning without a reason was accepted")
    finally:
        g._read = saved
        g.load_catalogue.cache_clear()


def test_fail_outranks_unmeasured_outranks_warn():
    f = {"nodes": {"box": {"power_problems": [], "power_warnings": ["limit above TGP"],
                           "power_unmeasured": ["no [desktop] table"]}}}
    v = by_id(grade(f, "lesson3", "dual-gpu-desktop"))["L3.power_budget"]
    assert v.status == "unmeasured" and v.details == ("no [desktop] table", "limit above TGP")
    f["nodes"]["box"]["power_problems"] = ["load 1200 W exceeds the 1000 W PSU"]
    v = by_id(grade(f, "lesson3", "dual-gpu-desktop"))["L3.power_budget"]
    assert v.status == "fail" and v.details[0] == "load 1200 W exceeds the 1000 W PSU"


def test_lesson1_not_applicable_on_one_node_profiles():
    v = grade(GOOD, "lesson1", "single-spark")
    assert {x.status for x in v} == {"skip"} and sum(x.points for x in v) == 0
    assert v[0].details == ("does not apply to profile 'single-spark' (checks/lesson1.toml: spark-pair, sim)",)
    assert summary_line(v) == "score 0/0: 0 pass, 0 warn, 0 fail, 0 not measured, 8 n.a."


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
