"""Lesson 2 on a switch of N and a ring of three (issue 18 item 4), from evidence built of real Spark
outputs (ibdev2netdev 01, nccl-tests 07 and 08, ray status 12, NCCL log 13), no cluster needed: every node
compared, Ray's counts scaled to N, the all_gather bar of the topology, and the ring's interface rule.
The live runs on the sim are in tests/test_sim_multi_serve.py."""

from __future__ import annotations

import pytest

from grader.evidence import Evidence, RawOutput
from grader.facts.lesson2 import derive
from grader.grading import grade
from grader.ranges import CatalogueError, _validate, expected_range
from tests.conftest import real_fixture
from tests.test_lesson2_facts import GOOD_ENV, env_text, ip_addr_text, rdma_text
from tests.test_lesson2b_facts import ray_status_fixture

NAMES = ("spark-a", "spark-b", "spark-c", "spark-d")
CHECKS_2B = {"L2.ray_nodes", "L2.head_on_qsfp", "L2.vllm_host_ip", "L2.parallel_sizes", "L2.kv_capacity",
             "L2.model_same", "L2.versions_same", "L2.launch"}
HOUSE = "10.77.7.{}"
RING_ENV = {**GOOD_ENV, "NCCL_SOCKET_IFNAME": "enP7s7", "GLOO_SOCKET_IFNAME": "enP7s7", "UCX_NET_DEVICES": "enP7s7",
            "NCCL_IB_HCA": "rocep1s0f0,rocep1s0f1,roceP2p1s0f0,roceP2p1s0f1"}
"""A ring as NVIDIA's cluster script sets it: the bootstrap on the house network, the data on all four HCAs."""


def house(octet: int) -> str:
    return (f"9: enP7s7: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default qlen 1000\n"
            f"    inet {HOUSE.format(octet)}/24 brd 10.77.7.255 scope global enP7s7\n")


def twin(index: int, name: str, cidr: str) -> str:
    return (f"{index}: {name}: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP group default qlen 1000\n"
            f"    inet {cidr} scope global {name}\n")


def ring_ip_addr(i: int) -> str:
    """Node i of a ring of three, as NVIDIA's connect-three-sparks cables it: port 0 to node i+1's port 1,
    each link's twins on a /24 of their own (link k: 192.168.(100+2k) and (101+2k), the sim's numbering)."""
    out_link, in_link = i, (i - 1) % 3
    return (twin(2, "enp1s0f0np0", f"192.168.{100 + 2 * out_link}.{10 + i}/24")
            + twin(3, "enP2p1s0f0np0", f"192.168.{101 + 2 * out_link}.{10 + i}/24")
            + twin(4, "enp1s0f1np1", f"192.168.{100 + 2 * in_link}.{10 + i}/24")
            + twin(5, "enP2p1s0f1np1", f"192.168.{101 + 2 * in_link}.{10 + i}/24") + house(10 + i))


def evidence(n: int = 3, topology: str = "switch", envs: dict[str, dict] | None = None, nccl_tests: str = "spark/07_*",
             profile: str = "spark-pair") -> Evidence:
    """Lesson-2 evidence of ``n`` Sparks through a switch (port 1 cabled, node i at 192.168.10x.(10+i)) or a
    ring of three (both ports cabled), the NCCL log and nccl-tests output on the head."""
    names = list(NAMES[:n])
    inv = {"profile": profile, "nodes": [{"name": x} for x in names]}
    if topology == "switch":
        inv |= {"topology": "switch", "qsfp_port": 1}
    else:
        inv |= {"topology": "ring"}
    ev = Evidence(lesson="lesson2", profile=profile, inventory=inv)
    ibdev = real_fixture("spark/01_*").read_text()
    rdma = rdma_text()
    if topology == "ring":
        ibdev = ibdev.replace("(Down)", "(Up)")
        rdma = rdma.replace("state DOWN physical_state DISABLED", "state ACTIVE physical_state LINK_UP")
    for i, node in enumerate(names):
        ip = ring_ip_addr(i) if topology == "ring" else ip_addr_text(10 + i) + house(10 + i)
        env = (envs or {}).get(node, RING_ENV if topology == "ring" else GOOD_ENV)
        for probe, out in (("ip_addr", ip), ("ibdev2netdev", ibdev), ("rdma_link", rdma), ("serving_env", env_text(env))):
            ev.raw.append(RawOutput(node, probe, probe, out, "", 0))
    for probe, pattern in (("log:nccl_debug", "spark/13_*"), ("log:nccl_tests", nccl_tests)):
        ev.raw.append(RawOutput(names[0], probe, f"tail -c 4000000 {pattern}", real_fixture(pattern).read_text(), "", 0))
    return ev


def statuses(ev: Evidence) -> dict[str, str]:
    return {v.id: v.status for v in grade(derive(ev), "lesson2", ev.profile) if v.id not in CHECKS_2B
            and v.id != "L2.ib_write_bw"}  # no ib_write_bw output named here: not measured


def details(ev: Evidence, check: str) -> list[str]:
    return [d for v in grade(derive(ev), "lesson2", ev.profile) if v.id == check for d in v.details]


# --------------------------------------------------------------------------- a switch of N


@pytest.mark.parametrize("n", [3, 4])
def test_a_healthy_switch_passes_lesson_2a_on_every_node(n):
    facts = derive(evidence(n))
    assert sorted(facts["nodes"]) == list(NAMES[:n]) and facts["topology"] == "switch"
    assert all(f["cabled_port"] == [1] for f in facts["nodes"].values())
    assert facts["pair"]["env_differences"] == [] and facts["pair"]["allgather_busbw_gbs"] == 22.96
    assert set(statuses(evidence(n)).values()) == {"pass"}


def test_the_third_node_differing_fails_env_same_naming_it():
    """Every node is compared with the head, not only the first two (a pair's rule would miss spark-c)."""
    other = dict(GOOD_ENV, NCCL_IB_HCA="rocep1s0f1")
    ev = evidence(3, envs={"spark-c": other})
    assert {k for k, s in statuses(ev).items() if s == "fail"} == {"L2.env_same", "L2.ib_hca"}
    assert details(ev, "L2.env_same") == [
        "NCCL_IB_HCA differs: spark-a has 'rocep1s0f1,roceP2p1s0f1', spark-c has 'rocep1s0f1'; the ranks of one job "
        "must agree"]


def test_a_node_without_serving_processes_is_named_and_the_others_still_compared():
    ev = evidence(4, envs={"spark-b": {}, "spark-d": dict(GOOD_ENV, GLOO_SOCKET_IFNAME="enP2p1s0f1np1")})
    ev.raw = [r for r in ev.raw if not (r.node == "spark-b" and r.probe == "serving_env")]
    facts = derive(ev)["pair"]
    assert facts["env_differences"] == ["GLOO_SOCKET_IFNAME differs: spark-a has 'enp1s0f1np1', spark-d has "
                                        "'enP2p1s0f1np1'; the ranks of one job must agree"]
    assert facts["env_unmeasured"] == ["the variables could not be compared: spark-b has no readable serving process"]


def test_the_switch_keeps_nvidias_21_875_bar_and_a_ring_has_its_own_10():
    """nccl-tests 08 (MTU 1500: 19.945 GB/s) is below NVIDIA's bar for a pair or a switch and above its ring bar
    (spark_cluster_setup.py MIN_NCCL_TEST_BW = 21.875, MIN_NCCL_TEST_BW_RING = 10)."""
    switch = evidence(3, nccl_tests="spark/08_*")
    assert {k for k, s in statuses(switch).items() if s == "fail"} == {"L2.busbw"}
    assert details(switch, "L2.busbw") == ["pair.allgather_busbw_gbs = 19.945, expected 21.875-25 GB/s"]
    ring = evidence(3, "ring", nccl_tests="spark/08_*")
    assert statuses(ring)["L2.busbw"] == "pass"
    src = next(v.range_source for v in grade(derive(ring), "lesson2", "spark-pair") if v.id == "L2.busbw")
    assert "MIN_NCCL_TEST_BW_RING = 10" in src and "3 ranks" in src


# --------------------------------------------------------------------------- a ring of three


def test_a_ring_bootstrapped_on_the_house_network_with_all_four_hcas_passes():
    facts = derive(evidence(3, "ring"))
    assert facts["topology"] == "ring" and all(f["cabled_port"] == [0, 1] for f in facts["nodes"].values())
    s = statuses(evidence(3, "ring"))
    assert s.pop("L2.head_on_qsfp", None) is None  # a 2b check: not in statuses(); its skip is tested below
    assert set(s.values()) == {"pass"}, s


def test_a_ring_with_a_twin_as_the_socket_interface_warns_ifname_vars_saying_why():
    """A twin's subnet holds one neighbour only (each ring link is a subnet of its own): Gloo's one interface
    must reach both, so NVIDIA bootstraps on enP7s7. Doubtful, not wrong: routes over the other link (which
    lesson 2 does not read) would make it work, so the check warns."""
    twin_env = dict(RING_ENV, GLOO_SOCKET_IFNAME="enp1s0f1np1")
    ev = evidence(3, "ring", envs={n: twin_env for n in NAMES[:3]})
    assert {k: s for k, s in statuses(ev).items() if s != "pass"} == {"L2.ifname_vars": "warn"}
    d = details(ev, "L2.ifname_vars")
    assert len(d) == 3 and d[0].startswith("spark-a: GLOO_SOCKET_IFNAME=enp1s0f1np1 selects enp1s0f1np1, whose "
                                           "subnet does not hold both ring neighbours")
    assert "(enP7s7)" in d[0] and "unless routes" in d[0]
    unset = {k: v for k, v in RING_ENV.items() if k != "GLOO_SOCKET_IFNAME"}
    ev = evidence(3, "ring", envs={"spark-b": unset})
    assert statuses(ev)["L2.ifname_vars"] == "fail"
    assert details(ev, "L2.ifname_vars") == ["spark-b: GLOO_SOCKET_IFNAME is not set for the serving processes: on a "
                                             "ring set GLOO_SOCKET_IFNAME=enP7s7 on every node (an interface that "
                                             "reaches both peers)"]


def test_the_pair_rule_on_the_same_ring_outputs_would_have_failed_the_house_network():
    """The ring's rule is the topology's, not a looser one: a pair with GLOO on enP7s7 still fails."""
    ev = evidence(3, "ring")
    ev.inventory = {**ev.inventory, "topology": "pair", "qsfp_port": 1}
    assert statuses(ev)["L2.ifname_vars"] == "fail"


def test_head_on_qsfp_is_skipped_on_a_ring_with_the_catalogues_reason():
    v = next(v for v in grade(derive(evidence(3, "ring")), "lesson2", "spark-pair") if v.id == "L2.head_on_qsfp")
    assert v.status == "skip" and v.points == 0
    assert v.details[0].startswith("does not apply to a ring (checks/lesson2.toml: on a ring of three no QSFP "
                                   "address of the head reaches both other nodes")
    sw = next(v for v in grade(derive(evidence(3)), "lesson2", "spark-pair") if v.id == "L2.head_on_qsfp")
    assert sw.status == "unmeasured"  # a switch judges it (no [serve] table here: nothing to judge)


# --------------------------------------------------------------------------- Ray on N nodes


def ray_status(n: int) -> str:
    """spark/12's `ray status` with ``n`` active nodes and n GPUs (its node lines, cut or extended in their shape)."""
    lines = ray_status_fixture().splitlines(keepends=True)
    first = next(i for i, x in enumerate(lines) if x.startswith(" 1 node_"))
    nodes = lines[first:first + 2] + [f" 1 node_{str(k) * 56}\n" for k in range(3, n + 1)]
    return "".join(lines[:first] + nodes[:n] + lines[first + 2:]).replace("0.0/2.0 GPU", f"0.0/{n}.0 GPU")


def serve_evidence(n: int, active: int) -> Evidence:
    ev = evidence(n)
    ev.inventory["serve"] = {"url": "http://192.168.100.10:8000", "model": "/models/x", "mode": "ray",
                             "head": "spark-a", "ray_address": "192.168.100.10:6379"}
    ev.raw.append(RawOutput("spark-a", "ray_status", "ray status -v", ray_status(active), "", 0))
    for i, node in enumerate(NAMES[:n]):
        ip = f"192.168.100.{10 + i}"
        gcs = f"=== gcs_server\n--node-ip-address={ip}\n" if i == 0 else ""
        if i < active:
            ev.raw.append(RawOutput(node, "ray_node", "ray_node", gcs + f"=== raylet\n--node_ip_address={ip}\n", "", 0))
        else:
            ev.raw.append(RawOutput(node, "ray_node", "ray_node", "", "", 0))
    return ev


def test_ray_with_every_node_of_a_switch_of_4_passes_and_one_missing_names_it():
    facts = derive(serve_evidence(4, 4))["pair"]
    assert facts["ray_node_count"] == 4 and facts["ray_resources"]["GPU"] == 4.0 and facts["ray_problems"] == []
    facts = derive(serve_evidence(4, 3))["pair"]
    assert facts["ray_problems"][0].startswith("`ray status` shows 3 node(s) up, expected 4: join the missing "
                                               "nodes, each with `ray start --address=")
    assert any(p.startswith("spark-d runs no Ray daemon") for p in facts["ray_problems"])


def test_a_pair_still_expects_two():
    """The pair's figures are as written (checks/ranges.toml nodes = 2): 2 nodes, 2 GPUs."""
    facts = derive(serve_evidence(2, 2))["pair"]
    assert facts["ray_problems"] == []
    assert derive(serve_evidence(2, 1))["pair"]["ray_problems"][0].startswith(
        "`ray status` shows 1 node(s) up, expected 2: join the other node with")


# --------------------------------------------------------------------------- the ranges behind it


def test_counts_that_grow_with_the_cluster_scale_and_say_so():
    r = expected_range("sim", "ray_node_count", nodes=3)
    assert (r["min"], r["max"], type(r["min"])) == (3, 3, int) and "(written for 2 nodes; scaled to 3)" in r["source"]
    assert expected_range("spark-pair", "ray_accelerators", nodes=8)["max"] == 8.0
    assert expected_range("spark-pair", "ray_accelerators", nodes=2) == expected_range("spark-pair", "ray_accelerators")
    assert expected_range("spark-pair", "tcp_gbps", nodes=4) == expected_range("spark-pair", "tcp_gbps")  # not a count


def test_a_topology_table_replaces_the_figures_and_source_only_for_its_topology():
    ring = expected_range("spark-pair", "allgather_busbw_gbs", topology="ring")
    pair = expected_range("spark-pair", "allgather_busbw_gbs")
    assert (ring["min"], ring["unit"], pair["min"]) == (10.0, "GB/s", 21.875)
    assert expected_range("spark-pair", "allgather_busbw_gbs", topology="switch") == pair
    assert "ring" not in pair


@pytest.mark.parametrize("bad,says", [
    ({"ring": {"min": 1.0, "engine": "e"}}, "[p.x.ring] has no `source`"),
    ({"ring": {"source": "s", "engine": "e"}}, "[p.x.ring] needs `min` and/or `max`"),
    ({"nodes": 0}, "`nodes` must be a whole number of nodes"),
])
def test_a_malformed_topology_table_or_node_count_is_refused_naming_it(bad, says):
    base = {"min": 1.0, "unit": "u", "source": "s", "engine": "e"}
    with pytest.raises(CatalogueError) as e:
        _validate({"p": {"x": base | bad}}, "checks/ranges.toml")
    assert says in str(e.value)


@pytest.mark.parametrize("topology", ["pair", "ring", "switch"])
def test_the_courses_topology_table_and_the_graded_range_give_one_bar(topology):
    """The notebook's table (checks/specs/topologies.toml, lesson 2 section 2a.5) and the range L2.busbw grades
    with must not drift apart: the same NVIDIA figure per topology."""
    from grader.calc.specs import row

    taught = row("topologies.toml", topology).figures["allgather_busbw_min_gbs"].value
    assert expected_range("spark-pair", "allgather_busbw_gbs", topology=topology)["min"] == taught
