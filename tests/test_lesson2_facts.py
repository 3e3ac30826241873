"""Lesson 2a facts and verdicts from evidence built of real outputs (spark-pair), no cluster needed."""

from __future__ import annotations

from grader.evidence import Evidence, RawOutput
from grader.facts.lesson2 import derive
from grader.grading import grade
from tests.conftest import real_fixture

IBDEV = "spark/01_*"
LESSON_2B = {"L2.ray_nodes", "L2.head_on_qsfp", "L2.vllm_host_ip", "L2.parallel_sizes", "L2.kv_capacity",
             "L2.model_same", "L2.launch"}
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
             ib_write_bw="spark/03_*") -> Evidence:
    ev = Evidence(lesson="lesson2", profile="spark-pair",
                  inventory={"profile": "spark-pair", "qsfp_port": 1, "nodes": [{"name": A}, {"name": B}]})
    ibdev = real_fixture(IBDEV).read_text()
    for node, octet, env in ((A, 10, env_a), (B, 11, env_b)):
        for probe, out in (("ip_addr", ip_addr_text(octet)), ("ibdev2netdev", ibdev), ("rdma_link", rdma_text()),
                           ("serving_env", env_text(env))):
            ev.raw.append(RawOutput(node, probe, probe, out, "", 0))
    for probe, pattern in (("log:nccl_debug", nccl_log), ("log:nccl_tests", nccl_tests), ("log:ib_write_bw:0", ib_write_bw)):
        if pattern:
            ev.raw.append(RawOutput(A, probe, f"tail -c 4000000 {pattern}", real_fixture(pattern).read_text(), "", 0))
    return ev


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
    assert {k for k, s in v.items() if s != "pass"} == LESSON_2B  # no [serve] here: lesson 2b only warns
    assert {s for k, s in v.items() if k in LESSON_2B} == {"warn"}


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


def test_no_serving_process_says_start_the_cluster():
    ev = evidence()
    ev.raw = [r for r in ev.raw if r.probe != "serving_env"]
    facts = derive(ev)
    assert facts["nodes"][A]["ifname_problems"][0].startswith("spark-a: no Ray or vLLM process could be read")


def test_missing_logs_name_the_inventory_field():
    facts = derive(evidence(nccl_log=None, nccl_tests=None, ib_write_bw=None))
    assert "[logs] table (nccl_debug" in facts["pair"]["nccl_transport_problems"][0]
    assert facts["pair"]["ib_write_bw_problems"] == [
        "no ib_write_bw output was named: add one client output per twin to [logs] ib_write_bw"]
