"""Each sim node behaves as a machine of its own (issue 26, item 1).

A learner on the sim types the course's commands into a node: what they do there must stay there. These
tests look at the nodes the way a learner does, through ``clusterlab sim shell NODE CMD`` (the real CLI)
and over SSH, and at the host from outside:

- its own process table (PID 1 is the node's init; ``pkill`` on one node leaves the other's processes),
- its own /etc, /tmp and /run (an edit in one node reaches neither the other node nor the host),
- nothing of the grader readable inside (its private key, the sim's keys, the other node's folder),
- the course's commands as printed: ``ibdev2netdev``, ``netplan get``, ``netplan apply`` (netplan.io's parser:
  a bad file gets netplan's own error and changes nothing; an address the file no longer lists goes),
- ``sim reboot``: a node's processes end, settings made only live are lost, the netplan files are applied
  again; lesson 1 then says a live-only MTU was not persisted (L1.netplan before, L1.mtu after).
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
from grader.sim import topology as T
from grader.sim.netplan_sim import plan
from tests.helpers_learner import typed

A, B = T.NODES
TWIN = T.TWINS[T.QSFP_PORT][0]
CLI = [sys.executable, "-m", "grader.cli"]

live = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("sshd", path="/usr/sbin:/usr/bin:/sbin:/bin"),
                          reason="the sim needs root and OpenSSH sshd")


# --- pure: the sim's netplan apply plan ----------------------------------------------------------------

def _link(name, mtu, *addrs):
    return {"ifname": name, "mtu": mtu, "addr_info": [
        {"family": "inet", "local": a.split("/")[0], "prefixlen": int(a.split("/")[1]), "scope": "global"}
        for a in addrs] + [{"family": "inet6", "local": "fe80::1", "prefixlen": 64, "scope": "link"}]}


def test_plan_sets_exactly_the_listed_addresses_and_the_mtu():
    live_links = [_link("eth1", 1500, "10.0.0.1/24", "10.9.9.9/24"), _link("eth2", 9000, "10.1.0.1/24")]
    cmds, said = plan({"eth1": {"addresses": ["10.0.0.1/24", "10.0.0.2/24"], "mtu": 9000}}, live_links, ["eth2"])
    assert cmds == ["link set dev eth1 mtu 9000", "link set dev eth1 up", "addr del 10.9.9.9/24 dev eth1",
                    "addr add 10.0.0.2/24 dev eth1", "addr flush dev eth2 scope global"]
    assert said[0] == "eth1: mtu 9000; 10.0.0.1/24, 10.0.0.2/24"
    assert "eth2: no longer in /etc/netplan" in said[1]


def test_plan_leaves_the_mtu_alone_without_a_key_and_skips_absent_interfaces():
    cmds, said = plan({"eth1": {"addresses": ["10.0.0.1/24"]}, "nope0": {"addresses": ["10.5.0.1/24"]}},
                      [_link("eth1", 9000, "10.0.0.1/24")], [])
    assert cmds == ["link set dev eth1 up"]
    assert "no mtu key: left as it is" in said[0] and said[1].startswith("nope0: not present")


# --- live ------------------------------------------------------------------------------------------------

def shell(node: str, *argv: str, check: bool = True, root: bool = False) -> subprocess.CompletedProcess:
    """``clusterlab sim shell NODE ARGV...``, exactly as a learner types it (the node's login user), or with
    ``root`` as root there (``sim shell --root``: what a test does to the machine, not the learner's step)."""
    p = subprocess.run(CLI + ["sim", "shell", *(["--root"] if root else []), node, *argv], capture_output=True,
                       text=True, timeout=60)
    if check:
        assert p.returncode == 0, f"sim shell {node} {argv}: rc {p.returncode}: {p.stderr}{p.stdout}"
    return p


def check_lesson1(inventory: Path, evidence: Path) -> dict[str, str]:
    p = subprocess.run(CLI + ["check", "lesson1", "--inventory", str(inventory), "--evidence", str(evidence),
                              "--json"], capture_output=True, text=True, timeout=120)
    out = json.loads(p.stdout)
    return {v["id"]: v["status"] for v in out["verdicts"]} | {
        "_detail": json.dumps([v for v in out["verdicts"] if v["id"] in ("L1.netplan", "L1.mtu")])}


@pytest.fixture(scope="module")
def pair():
    inventory = sim.up([])
    yield inventory
    sim.down()


@live
def test_each_node_has_its_own_process_table(pair):
    ps_a = shell(A, "ps", "-eo", "pid=,comm=").stdout.split("\n")
    assert ps_a[0].split() == ["1", "python3"]  # the node's init
    assert sum("sshd" in line for line in ps_a) == 1  # its own listener, not the other node's
    sleeper = subprocess.Popen(sim.node_command(B) + ["sleep", "300"], start_new_session=True)
    try:
        assert "sleep" not in shell(A, "ps", "-eo", "comm=").stdout
        shell(A, "pkill", "-x", "sleep", check=False, root=True)  # a pkill on spark-a, even root's
        assert sleeper.poll() is None, "pkill on spark-a ended a process of spark-b"
        assert "sleep" in shell(B, "ps", "-eo", "comm=").stdout
    finally:
        sleeper.kill()
        sleeper.wait()


@live
def test_etc_tmp_and_run_are_the_nodes_own(pair):
    for path in ("/etc/clsim-test-edit", "/tmp/clsim-test-edit", "/run/clsim-test-edit"):
        shell(A, "sh", "-c", f"echo {A} > {path}", root=True)
        assert shell(A, "cat", path).stdout.strip() == A
        assert shell(B, "test", "-e", path, check=False, root=True).returncode == 1, f"{path} of {A} seen on {B}"
        assert not Path(path).exists(), f"{path} of {A} reached the host"
    assert shell(A, "cat", "/etc/hostname").stdout.strip() == A and shell(B, "hostname").stdout.strip() == B
    assert not Path("/etc/clusterlab-sim-node").exists()  # the host is not a node


@live
def test_nothing_of_the_grader_is_readable_in_a_node(pair):
    assert T.GRADER_KEY.read_text().startswith("-----BEGIN")  # the host has it
    for node in (A, B):  # not even to root there
        assert shell(node, "cat", str(T.GRADER_KEY), root=True).stdout == ""
        assert shell(node, "ls", "-A", str(T.KEYS_DIR), root=True).stdout == ""
        assert shell(node, "ls", "-A", str(T.NODES_DIR / T.peer_of(node)), root=True).stdout == ""
        assert shell(node, "cat", str(T.STATE_FILE), root=True).stdout == ""
        assert "BEGIN OPENSSH PRIVATE KEY" not in shell(node, "sh", "-c", "cat /etc/ssh/ssh_host_rsa_key 2>&1",
                                                        check=False, root=True).stdout


@live
def test_the_course_commands_work_as_printed(pair):
    out = shell(A, "ibdev2netdev").stdout
    assert f"==> {TWIN} (Up)" in out and out.startswith("# simulated by clusterlab sim")
    got = typed(A, f"sudo netplan get ethernets.{TWIN}.mtu")  # as the lesson prints it, the password typed
    assert got.returncode == 0 and got.stdout.strip() == str(T.JUMBO_MTU), got.stderr
    assert shell(A, "sh", "-c", "command -v netplan; command -v ibdev2netdev").stdout.split() == \
        [f"{T.NODE_BIN}/netplan", f"{T.NODE_BIN}/ibdev2netdev"]
    # lesson 1 section 5's PCIe read, as printed: on the sim a veth has no PCIe device, as the notebook says
    pcie = typed(A, "grep . /sys/class/net/enp1s0f1np1/device/*_link_* /sys/class/net/enP2p1s0f1np1/device/*_link_*")
    assert pcie.returncode == 2 and pcie.stdout == "" and pcie.stderr.count("No such file or directory") == 2, pcie


@live
def test_netplan_apply_follows_the_file_and_refuses_a_broken_one(pair):
    path = f"/etc/netplan/{T.NETPLAN_FILE}"
    good = shell(B, "cat", path, root=True).stdout
    addr = T.PLAYBOOK_ADDR[B][TWIN]
    try:
        # a broken file: netplan's own error, nothing changed
        shell(B, "sh", "-c", f"sed -i 's/mtu: {T.JUMBO_MTU}/mtu: lots/' {path}", root=True)
        bad = shell(B, "netplan", "apply", check=False, root=True)
        assert bad.returncode != 0 and "invalid unsigned int value" in bad.stderr
        assert addr in shell(B, "ip", "-br", "addr", "show", TWIN).stdout
        # the address moved in the file: the old one goes, the new one comes
        moved = addr.replace(".11/", ".21/")
        shell(B, "sh", "-c", f"printf '%s' \"$0\" > {path} && sed -i 's#{addr}#{moved}#' {path}", good, root=True)
        out = shell(B, "netplan", "apply", root=True).stdout
        assert "clusterlab sim" in out and moved in out
        now = shell(B, "ip", "-br", "addr", "show", TWIN).stdout
        assert moved.split("/")[0] in now and addr.split("/")[0] not in now
    finally:
        shell(B, "sh", "-c", f"printf '%s' \"$0\" > {path} && chmod 600 {path} && netplan apply", good, root=True)
    assert addr in shell(B, "ip", "-br", "addr", "show", TWIN).stdout


@live
def test_reboot_loses_a_live_only_mtu_and_lesson1_says_so(pair, tmp_path):
    path = f"/etc/netplan/{T.NETPLAN_FILE}"
    good = shell(B, "cat", path, root=True).stdout
    try:
        shell(B, "sed", "-i", "/mtu:/d", path, root=True)  # the MTU now lives only in the kernel
        before = check_lesson1(pair, tmp_path / "before")
        assert before["L1.netplan"] == "fail" and before["L1.mtu"] == "pass", before["_detail"]
        assert "lost at reboot" in before["_detail"]
        sleeper = subprocess.Popen(sim.node_command(B) + ["sleep", "300"], start_new_session=True)
        shell(B, "sh", "-c", "echo x > /tmp/clsim-boot && echo x > /dev/shm/clsim-boot")
        sim.reboot(B)
        assert sleeper.wait(timeout=10) is not None  # the node's processes ended
        assert shell(B, "ls", "-A", "/tmp", "/dev/shm").stdout.split() == ["/dev/shm:", "/tmp:"]
        mtu = shell(B, "cat", f"/sys/class/net/{TWIN}/mtu").stdout.strip()
        assert mtu == str(T.DEFAULT_MTU)  # not in the file: gone
        assert T.PLAYBOOK_ADDR[B][TWIN] in shell(B, "ip", "-br", "addr", "show", TWIN).stdout  # in the file: back
        after = check_lesson1(pair, tmp_path / "after")
        assert after["L1.mtu"] == "fail" and after["L1.netplan"] == "pass", after["_detail"]
    finally:
        shell(B, "sh", "-c", f"printf '%s' \"$0\" > {path} && chmod 600 {path}", good, root=True)
        sim.reboot(B)
    assert check_lesson1(pair, tmp_path / "restored")["L1.mtu"] == "pass"


@live
def test_stopping_sshd_does_not_end_the_node(pair):
    sim.stop_sshd(A)
    try:
        assert not sim.status()["nodes"][A]["ssh_reachable"]
        assert shell(A, "hostname").stdout.strip() == A  # the node lives on: its init holds it
    finally:
        sim.start_sshd(A)
    assert sim.status()["healthy"]


@live
@pytest.mark.skipif(not (T.BIN_DIR / "ray").exists() and sim.cluster.serve_venv_ray() is None,
                    reason="Ray is not installed (bash scripts/install-serve.sh)")
def test_ray_stop_on_one_node_leaves_the_others_head(pair):
    """The grader's hint for a worker that did not join (`ray stop` on spark-b, then `ray start`) once killed
    spark-a's head too, when the nodes shared one process table."""
    port = "6391"
    head = f"{T.HOUSE_ADDR[A]}:{port}"
    shell(A, "ray", "start", "--head", "--port", port, "--num-cpus", "1", "--disable-usage-stats",
          "--include-dashboard=false")
    try:
        stopped = shell(B, "ray", "stop", "--force")
        assert "Did not find any active Ray processes" in stopped.stdout + stopped.stderr
        deadline = time.monotonic() + 30  # a new head reports "No cluster status" for its first seconds (Ray says so)
        while "No cluster status" in (status := shell(A, "ray", "status", "--address", head)).stdout \
                and time.monotonic() < deadline:
            time.sleep(1)
        assert "Active:" in status.stdout and "1 node_" in status.stdout, status.stdout
    finally:
        sim.reboot(A)  # ends every process of the node, Ray's included
    assert "raylet" not in shell(A, "ps", "-eo", "comm=").stdout
