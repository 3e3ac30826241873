"""A Spark cluster launcher's picks (grader.parsers.launcher, explain kind ``launcher``): read from the real output
of eugr/spark-vllm-docker issue #40 (tests/fixtures/real/spark/18_*), and judged by how a Spark names its ConnectX-7:
IB_IF should be the two twins of the QSFP port ETH_IF is on (grader.spark_names: port 0 is enp1s0f0np0 and
enP2p1s0f0np0, whose RoCE devices are rocep1s0f0 and roceP2p1s0f0)."""

from __future__ import annotations

import pytest

from grader.explain import explain
from grader.parsers import ParseError
from grader.parsers.launcher import parse_launcher
from tests.conftest import real_fixture

REAL = real_fixture("spark/18_*").read_text()


def _body(ib_if: str, eth_if: str = "enp1s0f0np0", ip: str = "192.168.100.10") -> str:
    return (f"Auto-detecting interfaces...\n  Detected IB_IF: {ib_if}\n  Detected ETH_IF: {eth_if}\n"
            f"  Detected Local IP: {ip} ({ip}/24)\nHead Node: {ip}\nWorker Nodes: 192.168.100.11\n")


def test_the_real_output_is_read():
    assert REAL.startswith("# source: https://github.com/eugr/spark-vllm-docker/issues/40")
    p = parse_launcher(REAL)
    assert p.ib_if == ("rocep1s0f0", "rocep1s0f1", "roceP2p1s0f0", "roceP2p1s0f1")
    assert (p.eth_if, p.local_ip, p.local_cidr) == ("enp1s0f0np0", "192.168.100.10", "192.168.100.10/24")
    assert (p.head, p.workers, p.errors) == ("192.168.100.10", ("192.168.100.11",), ())


def test_all_four_devices_warn_and_name_port_0_s_twins():
    """The thread's own workaround is the fix the reading gives: --ib-if rocep1s0f0,roceP2p1s0f0."""
    [s] = explain(REAL, host="spark", nodes=2)
    assert s.kind == "launcher" and s.error is None
    [w] = [f.message for f in s.findings if f.level == "warn"]
    assert "rocep1s0f1, roceP2p1s0f1 are on port 1" in w and "--ib-if rocep1s0f0,roceP2p1s0f0" in w
    assert "NCCL_IB_HCA" in w


@pytest.mark.parametrize("ib_if, level, said", [
    ("rocep1s0f0,roceP2p1s0f0", "ok", "both twins of QSFP port 0"),
    ("roceP2p1s0f0,rocep1s0f0", "ok", "both twins of QSFP port 0"),
    ("rocep1s0f0", "warn", "IB_IF lacks roceP2p1s0f0"),
    ("rocep1s0f1,roceP2p1s0f1", "warn", "IB_IF (rocep1s0f1, roceP2p1s0f1) and ETH_IF (enp1s0f0np0, QSFP port 0) are on different ports"),
    ("rocep1s0f0,roceP2p1s0f0,rocep1s0f1", "warn", "IB_IF lists rocep1s0f1 besides QSFP port 0's twins"),
])
def test_ib_if_against_the_port_of_eth_if(ib_if, level, said):
    [s] = explain(_body(ib_if), host="spark", nodes=2)
    assert any(f.level == level and said in f.message for f in s.findings), s.findings
    assert not any(f.level == "fail" for f in s.findings)


def test_port_1_with_its_own_twins_passes():
    [s] = explain(_body("rocep1s0f1,roceP2p1s0f1", eth_if="enp1s0f1np1"), host="spark", nodes=2)
    assert [f.level for f in s.findings if f.level != "info"] == ["ok"]


def test_a_link_local_head_warns():
    [s] = explain(_body("rocep1s0f0,roceP2p1s0f0", ip="169.254.252.227"), host="spark", nodes=2)
    assert any(f.level == "warn" and "169.254.252.227 is link-local" in f.message for f in s.findings)


def test_the_launcher_s_error_fails():
    [s] = explain("Auto-detecting interfaces...\nError: No active IB-associated interfaces have IP addresses.\n")
    assert any(f.level == "fail" and "No active IB-associated interfaces" in f.message for f in s.findings)


def test_text_without_its_lines_is_refused():
    with pytest.raises(ParseError):
        parse_launcher("hello\nworld\n")


def test_inside_a_vllm_log_the_node_lines_stay_the_log_s():
    """tests/fixtures/real/spark/17_*: launch-cluster.sh's node lines above a vLLM log, no detection lines: one
    vllm-log section, as before this kind."""
    assert [s.kind for s in explain(real_fixture("spark/17_*").read_text())] == ["vllm-log"]


def test_another_host_or_a_mesh_is_not_judged_by_a_pair_s_ports():
    """`--host other`: the names are not a Spark's twins to judge; a mesh (the launcher says so, more than one
    worker, or --nodes 3): every cabled port leads to another Spark, so all four devices belong."""
    body = _body("rocep1s0f0,rocep1s0f1")
    [s] = explain(body, host="other", nodes=2)
    assert not [f for f in s.findings if f.level in ("warn", "fail")]
    mesh = _body("rocep1s0f0,rocep1s0f1,roceP2p1s0f0,roceP2p1s0f1").replace("Auto-detecting interfaces...\n",
                                                                        "Auto-detecting interfaces...\nMesh mode: 4 CX7 interfaces active.\n")
    for text, nodes in ((mesh, 2), (_body("rocep1s0f0,rocep1s0f1,roceP2p1s0f0,roceP2p1s0f1"), 3)):
        [s] = explain(text, host="spark", nodes=nodes)
        assert not [f for f in s.findings if f.level in ("warn", "fail")], s.findings
        assert any("every Up twin's device belongs" in f.message for f in s.findings)


def test_the_launcher_s_later_lines_and_its_error_stay_its_own():
    """The launcher's whole run up to a failed SSH check: one launcher section that fails with the launcher's error
    (its node and container lines are vllm-log's too; after its detection lines they stay the launcher's)."""
    text = (_body("rocep1s0f1,roceP2p1s0f1", eth_if="enp1s0f1np1") + "Container Name: vllm_node\nImage Name: vllm-node\n"
            "Checking SSH connectivity to worker nodes...\nError: Passwordless SSH to 192.168.100.11 failed.\n")
    [s] = explain(text, host="spark", nodes=2)
    assert s.kind == "launcher"
    assert any(f.level == "fail" and "Passwordless SSH to 192.168.100.11 failed" in f.message for f in s.findings)


def test_check_config_and_command_line_picks_are_read():
    """`--ib-if` on the command line and --check-config's `IB Interface:` / `ETH Interface:` summary: port 1's devices
    with ETH_IF on port 0 are on different ports."""
    text = ("$ ./launch-cluster.sh --ib-if rocep1s0f1,roceP2p1s0f1 --check-config\nAuto-detecting interfaces...\n"
            "  Detected ETH_IF: enp1s0f0np0\nConfiguration Check Complete.\n  ETH Interface: enp1s0f0np0\n"
            "  IB Interface: rocep1s0f1,roceP2p1s0f1\n")
    p = parse_launcher(text)
    assert (p.ib_if, p.eth_if) == (("rocep1s0f1", "roceP2p1s0f1"), "enp1s0f0np0")
    [s] = explain(text, host="spark", nodes=2)
    assert any(f.level == "warn" and "are on different ports" in f.message for f in s.findings)
