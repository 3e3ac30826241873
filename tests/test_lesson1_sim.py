"""Lesson 1 end to end on the simulated cluster: real sshd, real iperf3, the real CLI.

Only the RoCE view (ibdev2netdev) is simulated, and the evidence says so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader import sim

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("sshd") and not Path("/usr/sbin/sshd").exists(),
                                reason="the sim needs root and OpenSSH sshd")

CLI = [sys.executable, "-m", "grader.cli"]
ALL = {"L1.port", "L1.addressing", "L1.netplan", "L1.mtu", "L1.ssh", "L1.link_speed", "L1.route", "L1.tcp"}


def check(inventory: Path, evidence: Path, *extra: str) -> tuple[int, dict, str]:
    p = subprocess.run(CLI + ["check", "lesson1", "--inventory", str(inventory), "--evidence", str(evidence),
                              "--json", *extra], capture_output=True, text=True, timeout=120)
    out = json.loads(p.stdout) if p.stdout.strip().startswith("{") else {}
    return p.returncode, out, p.stderr


def statuses(out: dict) -> dict[str, str]:
    return {v["id"]: v["status"] for v in out["verdicts"]}


@pytest.fixture(scope="module")
def healthy(tmp_path_factory):
    inv = sim.up([])
    ev = tmp_path_factory.mktemp("evidence")
    code, out, err = check(inv, ev)
    yield inv, ev, code, out, err
    sim.down()


def test_healthy_sim_passes_every_check(healthy):
    inv, ev, code, out, err = healthy
    assert code == 0, err + json.dumps(out, indent=1)
    assert statuses(out) == {i: "pass" for i in ALL}
    assert out["score"] == {"earned": 14, "total": 14}
    assert "Traceback" not in err


def test_healthy_facts_are_the_sims_real_values(healthy):
    _, ev, _, _, _ = healthy
    data = json.loads((ev / "lesson1.json").read_text())
    a, b = data["facts"]["nodes"]["spark-a"], data["facts"]["nodes"]["spark-b"]
    assert a["hostname"] == "spark-a" and b["hostname"] == "spark-b"
    assert a["roce_simulated"] is True and b["roce_simulated"] is True
    assert a["cabled_port"] == [1] and b["cabled_port"] == [1]
    assert a["twin_state"] == {"enp1s0f0np0": "Down", "enP2p1s0f0np0": "Down", "enp1s0f1np1": "Up", "enP2p1s0f1np1": "Up"}
    assert a["twin_ipv4"] == {"enp1s0f1np1": ["192.168.100.10/24"], "enP2p1s0f1np1": ["192.168.101.10/24"]}
    assert b["twin_ipv4"] == {"enp1s0f1np1": ["192.168.100.11/24"], "enP2p1s0f1np1": ["192.168.101.11/24"]}
    assert a["mtu_values"] == [9000, 9000] and b["mtu_values"] == [9000, 9000]
    assert a["link_speeds_mbps"] == [10000, 10000]
    assert data["facts"]["pair"]["tcp_gbps"] > 2.0  # > 2x the 1 Gbit/s house network: it crossed a veth twin
    probes = {(r["node"], r["probe"]) for r in data["raw"]}
    assert ("spark-a", "ping:enp1s0f1np1") in probes and ("spark-b", "ping:enP2p1s0f1np1") in probes
    assert ("spark-a", "iperf3_client") in probes and ("spark-b", "iperf3_server") in probes
    assert data["provenance"]["grader_version"] and "Linux" in data["provenance"]["nodes"]["spark-a"]["sysinfo"]


def test_grade_offline_gives_the_same_verdicts(healthy):
    _, ev, _, out, _ = healthy
    p = subprocess.run(CLI + ["grade", str(ev / "lesson1.json"), "--json"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["verdicts"] == out["verdicts"]
    p = subprocess.run(CLI + ["grade", str(ev / "lesson1.json"), "--profile", "spark-pair", "--json"],
                       capture_output=True, text=True)
    got = statuses(json.loads(p.stdout))
    assert p.returncode == 1 and got["L1.link_speed"] == "fail" and got["L1.tcp"] == "fail"  # a veth is no Spark


def test_edited_evidence_is_refused(healthy, tmp_path):
    _, ev, _, _, _ = healthy
    data = json.loads((ev / "lesson1.json").read_text())
    for r in data["raw"]:
        if r["probe"] == "ip_addr" and r["node"] == "spark-b":
            r["stdout"] = r["stdout"].replace('"mtu":9000', '"mtu":9001')
    bad = tmp_path / "lesson1.json"
    bad.write_text(json.dumps(data))
    p = subprocess.run(CLI + ["grade", str(bad)], capture_output=True, text=True)
    assert p.returncode == 2 and "does not match its sha256" in p.stderr and "Traceback" not in p.stderr


FAULTS = {
    "mtu-1500": {"L1.mtu"},
    "mtu-mismatch": {"L1.mtu"},
    "same-subnet": {"L1.addressing"},
    "link-local": {"L1.addressing", "L1.netplan"},
    "no-netplan": {"L1.netplan"},
    "netplan-drift": {"L1.netplan"},
    "no-peer-key": {"L1.ssh"},
    "one-twin-down": {"L1.port"},
    "wrong-port": {"L1.port"},
    "house-network": {"L1.route"},
    # lesson-2 faults must leave lesson 1 whole
    "no-ib-hca": set(), "one-hca": set(), "wrong-gid-index": set(), "env-mismatch": set(), "socket-fallback": set(),
}


def test_every_sim_fault_is_covered():
    from tests.test_sim import SERVING_FAULTS  # lesson 2b's: only what `sim serve` starts (sim_lesson2b_faults.py)
    assert set(FAULTS) | SERVING_FAULTS == set(sim.FAULTS)


# Each fault failing exactly its checks, then solved: tests/test_track.py (test_fault_track).


def test_unreachable_node_is_reported_and_the_other_still_graded(tmp_path):
    try:
        inv = sim.up([])
        sim.stop_sshd("spark-b")
        t0 = time.monotonic()
        code, out, err = check(inv, tmp_path)
        elapsed = time.monotonic() - t0
    finally:
        sim.down()
    assert elapsed <= 10 + 1  # command_timeout_s + 1 s (refused at once here; bounded in any case)
    assert code == 1 and "Traceback" not in err
    assert "spark-b" in out["unreachable"] and "cannot connect" in out["unreachable"]["spark-b"]
    data = json.loads((tmp_path / "lesson1.json").read_text())
    assert data["facts"]["nodes"]["spark-a"]["twin_ipv4"]["enp1s0f1np1"] == ["192.168.100.10/24"]
    assert data["facts"]["nodes"]["spark-b"]["reachable"] is False
    by = {v["id"]: v for v in out["verdicts"]}
    assert any("spark-b: not measured, the node was unreachable" in d for d in by["L1.mtu"]["details"])


def node_state(node: str) -> tuple[str, set[str]]:
    """(sha256 over every file under the node's /etc, the live processes in the node's namespace).

    Zombies are left out: this VM's PID 1 reaps finished sshd sessions late.
    """
    etc = subprocess.run(["ip", "netns", "exec", node, "sh", "-c",
                          "find /etc -xdev -type f -readable -print0 | sort -z | xargs -0 sha256sum | sha256sum"],
                         capture_output=True, text=True, check=True).stdout
    return etc, live_processes(node, but="find /etc")


def live_processes(node: str, but: str) -> set[str]:
    """``{"<pid> <command line>"}`` of the live processes in ``node``'s namespace, less zombies and the
    probe's own command (any holding ``but``)."""
    procs = set()
    for pid in subprocess.run(["ip", "netns", "pids", node], capture_output=True, text=True).stdout.split():
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[0] != "Z" and but not in cmd:
            procs.add(f"{pid} {cmd}")
    return procs


def test_a_check_leaves_both_nodes_as_they_were(tmp_path):
    try:
        inv = sim.up([])
        before = {n: node_state(n) for n in ("spark-a", "spark-b")}
        code, _, err = check(inv, tmp_path)
        time.sleep(0.5)  # sshd session processes end just after the client closes
        after = {n: node_state(n) for n in ("spark-a", "spark-b")}
        iperf = subprocess.run(["pgrep", "-a", "iperf3"], capture_output=True, text=True).stdout
    finally:
        sim.down()
    assert code == 0, err
    for n in before:
        assert after[n][0] == before[n][0], f"/etc changed on {n}"
        assert after[n][1] == before[n][1], f"processes differ on {n}: {after[n][1] ^ before[n][1]}"
    assert iperf == ""
