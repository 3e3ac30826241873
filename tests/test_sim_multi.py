"""Beyond a pair (issue 18): the sim as a switch of N or a ring of three, and lesson 1 checked on it.

Real namespaces, real sshd, real iperf3 through a real Linux bridge (the switch) or veth pairs (the ring);
the grader through its command line. What each test expects is worked out from the topology the sim
was asked for (grader/sim/multi.py's addressing), not read back from the grader.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader import sim
from grader.cli import main as cli_main
from grader.ranges import pairwise_counters
from grader.sim import multi
from grader.sim import topology as T
from grader.transport import CONNECTIONS_OPENED

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("sshd", path="/usr/sbin:/usr/bin:/sbin:/bin"),
                                reason="the sim needs root and OpenSSH sshd")

CLI = [sys.executable, "-m", "grader.cli"]

FAULT_CHECKS = {
    "switch-wrong-subnet": {"L1.addressing"},
    "switch-wrong-port": {"L1.port"},
    "ring-link-mtu-1500": {"L1.mtu"},
}
"""Each N-node fault and the one check it fails."""
NOT_MEASURED = {
    # the odd node's pairs share no subnet: SSH, route and TCP to it are not judged (they would fail
    # only because of the addressing, which L1.addressing already fails)
    "switch-wrong-subnet": {"L1.ssh", "L1.route", "L1.tcp"},
}


def check(evidence: Path, lesson: str = "lesson1") -> tuple[int, dict, str]:
    p = subprocess.run(CLI + ["check", lesson, "--inventory", str(T.INVENTORY), "--evidence", str(evidence), "--json"],
                       capture_output=True, text=True, timeout=300)
    assert "Traceback" not in p.stderr, p.stderr
    return p.returncode, (json.loads(p.stdout) if p.stdout.strip() else {}), p.stderr


def by_status(report: dict, status: str) -> set[str]:
    return {v["id"] for v in report["verdicts"] if v["status"] == status}


def ns(node: str, *argv: str) -> str:
    """``argv``'s output in ``node`` as its sessions see it (its own /etc, process table...)."""
    return subprocess.run(sim.node_command(node) + list(argv), capture_output=True, text=True, timeout=30).stdout


@pytest.fixture(autouse=True)
def _down():
    yield
    sim.down()


def test_every_n_node_fault_is_covered_and_named_for_its_topology():
    assert set(multi.FAULTS) == set(FAULT_CHECKS)
    assert {multi.FAULT_TOPOLOGY[f] for f in multi.FAULTS} == {"switch", "ring"}
    assert not set(multi.FAULTS) & set(sim.FAULTS)  # the pair's registry (and its track test) stays apart


def test_bad_counts_and_topologies_say_what_to_do():
    for nodes, topo, words in ((4, "ring", "exactly 3"), (9, "switch", "2 to 8"), (3, "pair", "--topology switch"),
                               (3, "mesh", "unknown topology")):
        with pytest.raises(sim.SimError, match=words):
            sim.up([], nodes=nodes, topology=topo)
    with pytest.raises(sim.SimError, match="is for --topology ring, not switch"):
        sim.up(["ring-link-mtu-1500"], nodes=4, topology="switch")
    p = subprocess.run(CLI + ["sim", "up", "--nodes", "3", "--serve", "nnodes"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "--serve nnodes runs on the pair only; on 3 nodes use --serve ray" in p.stderr
    assert "Traceback" not in p.stderr


def test_switch_of_four_is_one_subnet_per_twin_through_a_bridge(tmp_path):
    inv = sim.up([], nodes=4, topology="switch")
    text = inv.read_text()
    assert 'topology = "switch"' in text and "qsfp_port = 1" in text and text.count("[[nodes]]") == 4
    names = T.NODE_NAMES[:4]
    for i, n in enumerate(names):
        addrs = {a["ifname"]: [x["local"] + "/" + str(x["prefixlen"]) for x in a["addr_info"] if x["family"] == "inet"]
                 for a in json.loads(ns(n, "ip", "-j", "addr"))}
        assert addrs["enp1s0f1np1"] == [f"192.168.100.{10 + i}/24"] and addrs["enP2p1s0f1np1"] == [f"192.168.101.{10 + i}/24"]
        assert addrs["enp1s0f0np0"] == [] and addrs["enP2p1s0f0np0"] == []
        hosts = ns(n, "cat", "/etc/hosts")
        for k, p in enumerate(names):
            assert (f"192.168.100.{10 + k}\t{p}" in hosts) == (p != n), hosts
    # every node's first twin is a port of the one bridge clsim-sw0 in the host: a jumbo frame crosses it
    ports = subprocess.run(["ip", "-j", "link", "show", "master", "clsim-sw0"], capture_output=True, text=True).stdout
    assert len(json.loads(ports)) == 4
    out = ns("spark-a", "ping", "-c", "1", "-W", "2", "-M", "do", "-s", "8972", "-I", "enp1s0f1np1", "192.168.100.13")
    assert " 0% packet loss" in out, out
    sim.down()
    assert not {*T.NODE_NAMES, T.VOID_NS} & set(subprocess.run(["ip", "netns"], capture_output=True, text=True).stdout.split())
    assert not any(Path(f"/sys/class/net/{d}").exists() for d in (*T.SWITCH_BRIDGES, T.BRIDGE))


def test_ring_cables_port0_to_the_next_nodes_port1():
    sim.up([], nodes=3, topology="ring")
    a, b, c = T.NODE_NAMES[:3]
    # link 1 (a port 0 -> b port 1) is 192.168.100/101; link 2 (b -> c) 102/103; link 3 (c -> a) 104/105
    for src, twin, dst in ((a, "enp1s0f0np0", "192.168.100.11"), (b, "enp1s0f0np0", "192.168.102.12"),
                           (c, "enp1s0f0np0", "192.168.104.10"), (a, "enP2p1s0f1np1", "192.168.105.12")):
        out = ns(src, "ping", "-c", "1", "-W", "2", "-M", "do", "-s", "8972", "-I", twin, dst)
        assert " 0% packet loss" in out, (src, twin, dst, out)
    assert "Network is unreachable" in subprocess.run(
        ["ip", "netns", "exec", a, "ping", "-c", "1", "-W", "1", "192.168.102.12"], capture_output=True, text=True).stderr


@pytest.mark.parametrize("nodes,topology", [(4, "switch"), (8, "switch"), (3, "ring")])  # 8: issue 29
def test_healthy_n_nodes_pass_lesson1_with_one_connection_per_node(tmp_path, nodes, topology):
    sim.up([], nodes=nodes, topology=topology)
    code, report, err = check(tmp_path)
    assert code == 0 and by_status(report, "pass") == {v["id"] for v in report["verdicts"]}, err
    assert len(report["verdicts"]) == 8
    ev = json.loads((tmp_path / "lesson1.json").read_text())
    names = list(T.NODE_NAMES[:nodes])
    assert ev["inventory"]["topology"] == topology and [n["name"] for n in ev["inventory"]["nodes"]] == names
    # iperf3 around the cycle: a -> b, b -> c, ..., last -> a, each once
    measured = sorted(r["probe"] for r in ev["raw"] if r["probe"].startswith("iperf3_client:"))
    assert measured == sorted(f"iperf3_client:{names[i]}>{names[(i + 1) % nodes]}" for i in range(nodes))
    pw = ev["facts"]["pair"]["pairwise"]
    assert pw["unit"] == "Gbit/s" and len(pw["pairs"]) == nodes and pw["status"] == "pass"
    assert ev["facts"]["pair"]["tcp_gbps"] == min(p["final_gbps"] for p in pw["pairs"])
    # the counters were read on every node before and after, all five on every simulated port
    for n in names:
        for when in ("before", "after"):
            r = next(r for r in ev["raw"] if r["node"] == n and r["probe"] == f"ib_counters:{when}")
            assert r["stdout"].count(":0\n") == 4 * len(pairwise_counters()), r["stdout"]
    # jumbo pings from every node to each peer over each twin that shares its subnet (2 twins a peer)
    for n in names:
        pings = [r["probe"] for r in ev["raw"] if r["node"] == n and r["probe"].startswith("ping:")]
        assert len(pings) == 2 * (nodes - 1), pings
    # SSH from the head to every node and from every node to the head
    ssh = sorted((r["node"], r["probe"]) for r in ev["raw"] if r["probe"].startswith("ssh_peer:"))
    head = names[0]
    assert ssh == sorted([(head, f"ssh_peer:{p}") for p in names[1:]] + [(p, f"ssh_peer:{head}") for p in names[1:]])
    # in-process, as the benchmark runs it: one SSH connection per node, and the matrix under the table
    CONNECTIONS_OPENED.clear()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli_main(["check", "lesson1", "--inventory", str(T.INVENTORY), "--evidence", str(tmp_path / "2")])
    assert code == 0 and dict(CONNECTIONS_OPENED) == {n: 1 for n in names}
    assert "Pairwise bandwidth, Gbit/s (row -> column)" in out.getvalue() and f"{names[-1]}  " in out.getvalue()


@pytest.mark.parametrize("fault", sorted(FAULT_CHECKS))
def test_each_n_node_fault_fails_exactly_its_check(tmp_path, fault):
    topology = multi.FAULT_TOPOLOGY[fault]
    sim.up([fault], nodes=4 if topology == "switch" else 3, topology=topology)
    code, report, err = check(tmp_path)
    assert code == 1, err
    assert by_status(report, "fail") == FAULT_CHECKS[fault], json.dumps(report["verdicts"], indent=1)
    assert by_status(report, "unmeasured") == NOT_MEASURED.get(fault, set()), json.dumps(report["verdicts"], indent=1)
    for v in report["verdicts"]:
        if v["status"] == "fail":
            assert v["hint"] and v["details"], v
    details = " ".join(d for v in report["verdicts"] if v["status"] == "fail" for d in v["details"])
    if fault == "switch-wrong-subnet":
        assert "spark-d's twins (192.168.102.13/24, 192.168.103.13/24) share no subnet" in details
    elif fault == "switch-wrong-port":
        assert "nodes.spark-d.cabled_port = [0]" in details and "qsfp_port = 1, but the cable is in port 0" in details
    else:
        assert "nodes.spark-a.mtu_values = [1500, 1500, 9000, 9000]" in details
        assert "-I enp1s0f0np0 192.168.100.11` failed" in details and "192.168.102" not in details


def test_lesson2_on_a_ring_before_serving(tmp_path):
    """lesson2 probes all three nodes of a ring: both ports' RoCE devices are ACTIVE on each (the sim's
    trees), the variables are not measured on any node (nothing serves yet), the Ray head's QSFP check does
    not apply to a ring, and a pair's all_gather and ib_write_bw checks not to the sim."""
    sim.up([], nodes=3, topology="ring")
    code, report, err = check(tmp_path, "lesson2")
    assert code == 1 and report["verdicts"], err
    assert by_status(report, "pass") == {"L2.roce_active"}
    assert by_status(report, "skip") == {"L2.head_on_qsfp", "L2.busbw", "L2.ib_write_bw"}
    ring = next(v for v in report["verdicts"] if v["id"] == "L2.head_on_qsfp")
    assert ring["details"][0].startswith("does not apply to a ring")
    ifname = next(v for v in report["verdicts"] if v["id"] == "L2.ifname_vars")
    assert [d.split(":")[0] for d in ifname["details"]] == ["spark-a", "spark-b", "spark-c"]
    facts = json.loads((tmp_path / "lesson2.json").read_text())["facts"]
    assert facts["topology"] == "ring" and all(f["cabled_port"] == [0, 1] for f in facts["nodes"].values())


def test_iperf3_tries_once_more_when_an_earlier_server_still_holds_the_port():
    """An earlier measurement's server, still serving its one test on port 5201 (started here by hand, with
    a 2 s client), answers the new client `the server is busy running a test`: the measurement waits
    BUSY_RETRY_S and measures again, and the result is a real one (the field saw an extra L1.tcp failure)."""
    from grader.inventory import load_inventory
    from grader.probes.lesson1 import BUSY_RETRY_S, iperf3_between
    from grader.transport import connect_all

    sim.up([], nodes=2, topology="switch")
    a, b = "192.168.100.10", "192.168.100.11"
    old = subprocess.Popen(["ip", "netns", "exec", "spark-b", "iperf3", "-s", "-1", "-B", b, "-p", "5201"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(50):
            if "5201" in ns("spark-b", "ss", "-ltn"):
                break
            subprocess.run(["sleep", "0.1"])
        busy = subprocess.Popen(["ip", "netns", "exec", "spark-a", "iperf3", "-c", b, "-B", a, "-p", "5201", "-t", "2"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(["sleep", "0.5"])
        conns, errors = connect_all(load_inventory(T.INVENTORY))
        try:
            cli, _ = iperf3_between(conns["spark-a"], conns["spark-b"], b, a, streams=1, seconds=1)
        finally:
            for c in conns.values():
                c.close()
        busy.wait(timeout=10)
    finally:
        old.kill()
    assert BUSY_RETRY_S >= 2.0 and "busy" not in cli.stdout, cli.stdout[-400:]
    assert json.loads(cli.stdout)["end"]["sum_received"]["bits_per_second"] > 0


def test_solve_lesson1_clears_a_switch_fault_and_keeps_the_switch(tmp_path):
    """solve rebuilds the sim that is up without its faults: a switch of 4 with one node's cable in port 0
    becomes a healthy switch of 4 (not the default pair), and lesson 1 passes on it."""
    sim.up(["switch-wrong-port"], nodes=4, topology="switch")
    p = subprocess.run(CLI + ["solve", "lesson1"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and "rebuilt the sim's 4 nodes" in p.stdout and "switch-wrong-port" in p.stdout, p.stderr
    st = sim.status()
    assert sorted(st["nodes"]) == ["spark-a", "spark-b", "spark-c", "spark-d"] and st["faults"] == []
    code, report, err = check(tmp_path)
    assert code == 0, err
