"""Lesson 2a facts and verdicts from evidence built of real outputs (spark-pair), no cluster needed."""

from __future__ import annotations

import re
from pathlib import Path

from grader.evidence import Evidence, RawOutput
from grader.facts.lesson2 import derive
from grader.grading import grade
from tests.conftest import real_fixture
from tests.samples_lesson2 import ib_sysfs_probe_output

IBDEV = "spark/01_*"
LESSON_2B = {"L2.ray_nodes", "L2.head_on_qsfp", "L2.vllm_host_ip", "L2.parallel_sizes", "L2.kv_capacity",
             "L2.model_same", "L2.versions_same", "L2.launch"}
A, B = "spark-a", "spark-b"
GOOD_ENV = {"NCCL_SOCKET_IFNAME": "enp1s0f1np1", "GLOO_SOCKET_IFNAME": "enp1s0f1np1",
            "NCCL_IB_HCA": "rocep1s0f1,roceP2p1s0f1", "UCX_NET_DEVICES": "enp1s0f1np1"}


def ip_addr_text(node_octet: int) -> str:
    """`ip addr` of a Spark with port 1 cabled, in the playbook's addresses (text shape, as in fixture 04)."""
    return (f"4: enp1s0f1np1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP group default qlen 1000\n"
            f"    inet 192.168.100.{node_octet}/24 brd 192.168.100.255 scope global enp1s0f1np1\n"
            f"5: enP2p1s0f1np1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP group default qlen 1000\n"
            f"    inet 192.168.101.{node_octet}/24 brd 192.168.101.255 scope global enP2p1s0f1np1\n")


def env_text(env: dict[str, str]) -> str:
    return "=== 4242 ray::RayWorkerWrapper\n" + "".join(f"{k}={v}\n" for k, v in env.items())


def rdma_text() -> str:
    return ("link rocep1s0f0/1 state DOWN physical_state DISABLED netdev enp1s0f0np0\n"
            "link rocep1s0f1/1 state ACTIVE physical_state LINK_UP netdev enp1s0f1np1\n"
            "link roceP2p1s0f0/1 state DOWN physical_state DISABLED netdev enP2p1s0f0np0\n"
            "link roceP2p1s0f1/1 state ACTIVE physical_state LINK_UP netdev enP2p1s0f1np1\n")


def evidence(env_a=GOOD_ENV, env_b=GOOD_ENV, nccl_log="spark/13_*", nccl_tests="spark/07_*",
             ib_write_bw="spark/03_*", ib_sysfs: dict[str, str] | None = None, two_cables: bool = False) -> Evidence:
    """Lesson-2 evidence of a spark-pair, cable in port 1 (``two_cables``: in both ports, all four twins
    Up and addressed); ``ib_sysfs``: the sysfs probe's output per node, where the test reads GID tables."""
    ev = Evidence(lesson="lesson2", profile="spark-pair",
                  inventory={"profile": "spark-pair", "qsfp_port": 1, "nodes": [{"name": A}, {"name": B}]})
    ibdev = real_fixture(IBDEV).read_text()
    rdma = rdma_text()
    if two_cables:
        ibdev = ibdev.replace("(Down)", "(Up)")
        rdma = rdma.replace("state DOWN physical_state DISABLED", "state ACTIVE physical_state LINK_UP")
    for node, octet, env in ((A, 10, env_a), (B, 11, env_b)):
        ip = ip_addr_text(octet) + (port0_ip_addr_text(octet) if two_cables else "")
        for probe, out in (("ip_addr", ip), ("ibdev2netdev", ibdev), ("rdma_link", rdma),
                           ("serving_env", env_text(env))) + ((("ib_sysfs", ib_sysfs[node]),) if ib_sysfs else ()):
            ev.raw.append(RawOutput(node, probe, probe, out, "", 0))
    for probe, pattern in (("log:nccl_debug", nccl_log), ("log:nccl_tests", nccl_tests), ("log:ib_write_bw:0", ib_write_bw)):
        if pattern:
            ev.raw.append(RawOutput(A, probe, f"tail -c 4000000 {pattern}", real_fixture(pattern).read_text(), "", 0))
    return ev


def port0_ip_addr_text(node_octet: int) -> str:
    """`ip addr` lines of port 0's twins with a second cable in, each on its own /24 (as ip_addr_text)."""
    return (f"2: enp1s0f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP group default qlen 1000\n"
            f"    inet 192.168.200.{node_octet}/24 brd 192.168.200.255 scope global enp1s0f0np0\n"
            f"3: enP2p1s0f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP group default qlen 1000\n"
            f"    inet 192.168.201.{node_octet}/24 brd 192.168.201.255 scope global enP2p1s0f0np0\n")


PORT1_ROCE = ("rocep1s0f1", "roceP2p1s0f1")
_SWAP_2_3_WITH_4_5 = {"2": "4", "3": "5", "4": "2", "5": "3"}


def ib_sysfs_text(tmp: Path, node_octet: int, roce_v2_index: int = 3, devices: tuple[str, ...] = PORT1_ROCE) -> str:
    """The sysfs probe's output on a Spark with port 1 cabled (its twins at 192.168.10x.<node_octet>),
    as the probe prints it (``# root`` first). The kernel lays each IPv4-mapped GID pair at 2 (RoCE v1)
    and 3 (RoCE v2); ``roce_v2_index=5`` moves ``devices``' pairs to 4/5, entries 2/3 freed (all
    zeros), as on a Spark whose GID table had two entries before the IPv4 ones."""
    assert roce_v2_index in (3, 5)
    out = ib_sysfs_probe_output(tmp, {"rocep1s0f1": f"192.168.100.{node_octet}",
                                      "roceP2p1s0f1": f"192.168.101.{node_octet}"})
    if roce_v2_index == 5:
        line = re.compile(rf"^(/sys/class/infiniband/(?:{'|'.join(devices)})/ports/1/"
                          r"(?:gids|gid_attrs/types|gid_attrs/ndevs)/)([2-5]):", re.M)
        out = line.sub(lambda m: f"{m[1]}{_SWAP_2_3_WITH_4_5[m[2]]}:", out)
    return "# root /sys/class/infiniband\n" + out


def verdicts(ev: Evidence) -> dict[str, str]:
    return {v.id: v.status for v in grade(derive(ev), "lesson2", "spark-pair")}


def test_real_spark_outputs_pass_every_lesson2a_check():
    facts = derive(evidence())
    a = facts["nodes"][A]
    row = next(r for r in a["mapping"] if r["netdev"] == "enP2p1s0f1np1")
    assert (row["rdma_device"], row["domain"], row["qsfp_port"], row["state"], row["ipv4"]) == \
        ("roceP2p1s0f1", "0002", 1, "ACTIVE", "192.168.101.10")
    assert a["cabled_port"] == [1] and a["env"]["NCCL_IB_HCA"] == "rocep1s0f1,roceP2p1s0f1"
    assert facts["pair"]["nccl_transport"] == "NET/IB"
    assert facts["pair"]["allgather_busbw_gbs"] == 22.96        # (22.94 + 22.98) / 2, fixture 07's row
    assert facts["pair"]["ib_write_bw_gbps"] == [92.57, 97.28]  # NVIDIA's two rails, fixture 03
    v = verdicts(evidence())
    assert {k for k, s in v.items() if s != "pass"} == LESSON_2B  # no [serve] here: lesson 2b is not measured
    assert {s for k, s in v.items() if k in LESSON_2B} == {"unmeasured"}


def test_socket_fallback_log_fails_the_transport_check_only():
    v = verdicts(evidence(nccl_log="h200x2/nccl-allreduce-socket-fallback.txt"))
    assert {k for k, s in v.items() if s == "fail"} == {"L2.nccl_transport"}


def test_mtu1500_busbw_is_below_nvidias_bar():
    ev = evidence(nccl_tests="spark/08_*")
    assert derive(ev)["pair"]["allgather_busbw_gbs"] == 19.945  # mean of 18.94 and 20.95
    assert {k for k, s in verdicts(ev).items() if s == "fail"} == {"L2.busbw"}


def test_one_hca_wrong_gid_and_mismatch_each_fail_their_check():
    one = dict(GOOD_ENV, NCCL_IB_HCA="rocep1s0f1")
    assert {k for k, s in verdicts(evidence(env_a=one, env_b=one)).items() if s == "fail"} == {"L2.ib_hca"}
    house = dict(GOOD_ENV, GLOO_SOCKET_IFNAME="enP7s7")
    v = verdicts(evidence(env_a=house, env_b=house))
    assert {k for k, s in v.items() if s == "fail"} == {"L2.ifname_vars"}
    other = dict(GOOD_ENV, NCCL_SOCKET_IFNAME="enP2p1s0f1np1")
    assert {k for k, s in verdicts(evidence(env_b=other)).items() if s == "fail"} == {"L2.env_same"}
    unset = {k: v for k, v in GOOD_ENV.items() if k != "NCCL_IB_HCA"}
    details = [d for x in grade(derive(evidence(env_a=unset, env_b=unset)), "lesson2", "spark-pair")
               if x.id == "L2.ib_hca" for d in x.details]
    assert details[0].startswith("spark-a: NCCL_IB_HCA is not set")


def test_no_serving_process_is_not_measured_and_says_start_the_cluster():
    ev = evidence()
    ev.raw = [r for r in ev.raw if r.probe != "serving_env"]
    facts = derive(ev)
    assert facts["nodes"][A]["env_unmeasured"][0].startswith("spark-a: no Ray or vLLM process could be read")
    assert facts["nodes"][A]["ifname_problems"] == [] and facts["pair"]["env_differences"] == []
    v = verdicts(ev)
    assert {k: v[k] for k in ("L2.ifname_vars", "L2.ib_hca", "L2.gid_index", "L2.env_same")} == {
        "L2.ifname_vars": "unmeasured", "L2.ib_hca": "unmeasured", "L2.gid_index": "unmeasured",
        "L2.env_same": "unmeasured"}


def test_missing_logs_are_not_measured_and_name_the_inventory_field():
    ev = evidence(nccl_log=None, nccl_tests=None, ib_write_bw=None)
    facts = derive(ev)
    assert "[logs] table (nccl_debug" in facts["pair"]["nccl_transport_unmeasured"][0]
    assert facts["pair"]["nccl_transport_problems"] == facts["pair"]["busbw_problems"] == []
    assert facts["pair"]["ib_write_bw_unmeasured"] == [
        "no ib_write_bw output was named: add one client output per twin to [logs] ib_write_bw"]
    v = verdicts(ev)
    assert (v["L2.nccl_transport"], v["L2.busbw"], v["L2.ib_write_bw"]) == ("unmeasured",) * 3


# --- checks agree with each other (issue 11 item 4): NCCL_IB_GID_INDEX is per node, NCCL_IB_HCA only usable twins

UNREACHABLE = ("NCCL pairs the listed HCAs across the nodes and fails on such a one (`ibv_modify_qp ... Network is "
               "unreachable`): set NCCL_IB_HCA=rocep1s0f1,roceP2p1s0f1")


def hca(value: str) -> dict[str, str]:
    return dict(GOOD_ENV, NCCL_IB_HCA=value)


def gid(value: str) -> dict[str, str]:
    return dict(GOOD_ENV, NCCL_IB_GID_INDEX=value)


def failing(ev: Evidence) -> set[str]:
    return {k for k, s in verdicts(ev).items() if s == "fail"}


def test_gid_index_3_and_5_each_matching_its_own_table_pass_gid_index_and_env_same(tmp_path):
    sysfs = {A: ib_sysfs_text(tmp_path / A, 10, 3), B: ib_sysfs_text(tmp_path / B, 11, 5)}
    ev = evidence(env_a=gid("3"), env_b=gid("5"), ib_sysfs=sysfs)
    facts = derive(ev)
    assert [(r["rdma_device"], r["roce_v2_gid_index"]) for r in facts["nodes"][B]["mapping"] if r["qsfp_port"] == 1] \
        == [("rocep1s0f1", 5), ("roceP2p1s0f1", 5)]
    assert [r["roce_v2_gid_index"] for r in facts["nodes"][A]["mapping"] if r["qsfp_port"] == 1] == [3, 3]
    assert facts["nodes"][A]["gid_problems"] == facts["nodes"][B]["gid_problems"] == []
    assert facts["pair"]["env_differences"] == []
    v = verdicts(ev)
    assert (v["L2.gid_index"], v["L2.env_same"]) == ("pass", "pass")
    assert {k for k, s in v.items() if s != "pass"} == LESSON_2B


def test_gid_index_3_on_both_where_spark_b_says_5_fails_gid_index_on_spark_b_only(tmp_path):
    sysfs = {A: ib_sysfs_text(tmp_path / A, 10, 3), B: ib_sysfs_text(tmp_path / B, 11, 5)}
    facts = derive(evidence(env_a=gid("3"), env_b=gid("3"), ib_sysfs=sysfs))
    assert facts["nodes"][A]["gid_problems"] == []
    assert facts["nodes"][B]["gid_problems"] == [
        f"spark-b: NCCL_IB_GID_INDEX=3, but the RoCE v2 GID carrying {netdev}'s IPv4 (192.168.{net}.11) on {dev} is "
        "index 5 (`show_gids`): set NCCL_IB_GID_INDEX=5 on this node, or unset it and let NCCL choose"
        for netdev, net, dev in (("enp1s0f1np1", 100, "rocep1s0f1"), ("enP2p1s0f1np1", 101, "roceP2p1s0f1"))]
    assert failing(evidence(env_a=gid("3"), env_b=gid("3"), ib_sysfs=sysfs)) == {"L2.gid_index"}
    # a wrong index that also differs: L2.gid_index owns it; L2.env_same would contradict it (3 on spark-a is right)
    ev = evidence(env_a=gid("3"), env_b=gid("4"), ib_sysfs=sysfs)
    assert derive(ev)["pair"]["env_differences"] == [] and failing(ev) == {"L2.gid_index"}
    assert [p[:58] for p in derive(ev)["nodes"][B]["gid_problems"]] == \
        ["spark-b: NCCL_IB_GID_INDEX=4, but the RoCE v2 GID carrying"] * 2
    # following L2.gid_index's sentence (5 on spark-b) fails no other check
    assert failing(evidence(env_a=gid("3"), env_b=gid("5"), ib_sysfs=sysfs)) == set()


def test_twins_whose_gids_sit_at_different_indices_cannot_share_one_gid_index(tmp_path):
    sysfs = {A: ib_sysfs_text(tmp_path / A, 10, 3), B: ib_sysfs_text(tmp_path / B, 11, 5, ("roceP2p1s0f1",))}
    assert derive(evidence(env_a=gid("3"), env_b=gid("3"), ib_sysfs=sysfs))["nodes"][B]["gid_problems"] == [
        "spark-b: NCCL_IB_GID_INDEX=3, but the RoCE v2 GIDs carrying the twins' IPv4 addresses are at different "
        "indices (3 on rocep1s0f1, 5 on roceP2p1s0f1, `show_gids`): one value cannot name both; unset "
        "NCCL_IB_GID_INDEX and let NCCL choose"]
    # following it (unset on spark-b, 3 kept on spark-a) fails no other check
    assert failing(evidence(env_a=gid("3"), env_b=GOOD_ENV, ib_sysfs=sysfs)) == set()


def test_hca_list_with_port_0s_uncabled_device_fails_naming_it():
    ev = evidence(env_a=hca("rocep1s0f0,rocep1s0f1,roceP2p1s0f1"), env_b=hca("rocep1s0f0,rocep1s0f1,roceP2p1s0f1"))
    facts = derive(ev)
    for node in (A, B):
        assert facts["nodes"][node]["ib_hca_problems"] == [
            f"{node}: NCCL_IB_HCA=rocep1s0f0,rocep1s0f1,roceP2p1s0f1 selects rocep1s0f0, which cannot reach the other "
            "node: rocep1s0f0 (enp1s0f0np0, QSFP port 0) is Down with no IPv4 address, not on the cabled port 1. "
            + UNREACHABLE]
    assert failing(ev) == {"L2.ib_hca"}


def test_hca_list_with_a_device_on_the_wrong_port_fails_naming_it():
    mixed = hca("rocep1s0f1,roceP2p1s0f0")  # one twin of each port
    assert derive(evidence(env_a=mixed, env_b=mixed))["nodes"][A]["ib_hca_problems"] == [
        "spark-a: NCCL_IB_HCA=rocep1s0f1,roceP2p1s0f0 selects roceP2p1s0f0, which cannot reach the other node: "
        "roceP2p1s0f0 (enP2p1s0f0np0, QSFP port 0) is Down with no IPv4 address, not on the cabled port 1. "
        + UNREACHABLE,
        "spark-a: NCCL_IB_HCA=rocep1s0f1,roceP2p1s0f0 leaves out roceP2p1s0f1: each twin is one PCIe x4 link "
        "(~100 Gb/s), so one HCA gives about half the cable's bandwidth; set NCCL_IB_HCA=rocep1s0f1,roceP2p1s0f1"]
    port0 = hca("rocep1s0f0,roceP2p1s0f0")  # a recipe written for a cable in port 0
    assert derive(evidence(env_a=port0, env_b=port0))["nodes"][B]["ib_hca_problems"] == [
        "spark-b: NCCL_IB_HCA=rocep1s0f0,roceP2p1s0f0 selects rocep1s0f0, roceP2p1s0f0, which cannot reach the other "
        "node: rocep1s0f0 (enp1s0f0np0, QSFP port 0) is Down with no IPv4 address, not on the cabled port 1; "
        "roceP2p1s0f0 (enP2p1s0f0np0, QSFP port 0) is Down with no IPv4 address, not on the cabled port 1. "
        + UNREACHABLE]
    prefix = hca("roce")  # prefix match: all four
    assert derive(evidence(env_a=prefix, env_b=prefix))["nodes"][A]["ib_hca_problems"][0].startswith(
        "spark-a: NCCL_IB_HCA=roce selects rocep1s0f0, roceP2p1s0f0, which cannot reach the other node")
    exact_none = hca("=rocep1s0f")  # `=`: exact names, so this names no device
    assert derive(evidence(env_a=exact_none, env_b=exact_none))["nodes"][A]["ib_hca_problems"] == [
        "spark-a: NCCL_IB_HCA==rocep1s0f selects none of rocep1s0f1, roceP2p1s0f1: NCCL has no RoCE device that "
        "reaches the other node (it falls back to sockets); set NCCL_IB_HCA=rocep1s0f1,roceP2p1s0f1"]
    assert failing(evidence(env_a=mixed, env_b=mixed)) == {"L2.ib_hca"}


def test_both_twins_of_the_cabled_port_pass_in_every_spelling():
    for value in ("rocep1s0f1,roceP2p1s0f1", "=rocep1s0f1:1,roceP2p1s0f1:1", "^rocep1s0f0,roceP2p1s0f0",
                  "^=rocep1s0f0,roceP2p1s0f0", "rocep1s0f1,roceP2p1s0f1:1"):
        ev = evidence(env_a=hca(value), env_b=hca(value))
        assert [derive(ev)["nodes"][n]["ib_hca_problems"] for n in (A, B)] == [[], []], value
        assert verdicts(ev)["L2.ib_hca"] == "pass", value


def test_two_cables_all_four_addressed_list_all_four():
    four = hca("rocep1s0f0,roceP2p1s0f0,rocep1s0f1,roceP2p1s0f1")
    ev = evidence(env_a=four, env_b=four, two_cables=True)
    facts = derive(ev)
    assert facts["nodes"][A]["cabled_port"] == [0, 1] and facts["nodes"][A]["ib_hca_problems"] == []
    assert failing(ev) == set()
    port1 = evidence(two_cables=True)  # GOOD_ENV lists port 1's twins only
    assert derive(port1)["nodes"][A]["ib_hca_problems"] == [
        "spark-a: NCCL_IB_HCA=rocep1s0f1,roceP2p1s0f1 leaves out rocep1s0f0, roceP2p1s0f0: each twin is one PCIe x4 "
        "link (~100 Gb/s), so one HCA gives about half the cable's bandwidth; set "
        "NCCL_IB_HCA=rocep1s0f0,roceP2p1s0f0,rocep1s0f1,roceP2p1s0f1"]
