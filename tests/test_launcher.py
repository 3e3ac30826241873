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
    ("rocep1s0f1,roceP2p1s0f1", "warn", "IB_IF lists rocep1s0f1, roceP2p1s0f1 besides"),
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
