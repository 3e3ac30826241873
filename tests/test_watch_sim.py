"""`clusterlab check --watch` and the notebook's "Keep checking while I fix it" on the simulated cluster:
a fault fixed from another shell (`clusterlab sim shell`, as a learner's terminal) turns the check green
on its own within two intervals, each change printed once; a node whose sshd goes away and comes back
(as after a reboot) is reported unreachable, then connected again. Needs root and OpenSSH sshd."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time

import pytest

from grader import sim
from grader.sim import topology as T
from tests.helpers_learner import typed

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("sshd", path="/usr/sbin:/usr/bin:/sbin:/bin"),
                                reason="the sim needs root and OpenSSH sshd")

CLI = [sys.executable, "-m", "grader.cli"]
TWINS = T.TWINS[T.QSFP_PORT]
INTERVAL_S = 4.0


def fix_mtu() -> float:
    """What the learner types in a node's shell, as L1.mtu's hint says: `mtu: 9000` on both twins in
    /etc/netplan/40-cx7.yaml (netplan.io's own `sudo netplan set`), then `sudo netplan apply`, on both nodes (a live-only
    `ip link set ... mtu` would now fail L1.netplan: not persisted). Returns when done."""
    for node in T.NODES:
        for twin in TWINS:
            p = typed(node, f"sudo netplan set --origin-hint 40-cx7 ethernets.{twin}.mtu={T.JUMBO_MTU}")
            assert p.returncode == 0, p.stdout + p.stderr
        p = typed(node, "sudo netplan apply")
        assert p.returncode == 0, p.stdout + p.stderr
    return time.monotonic()


def reboot_sshd(node: str) -> None:
    """As if ``node`` rebooted: its sshd stops and every open SSH session to it ends (the grader's too)."""
    sim.stop_sshd(node)
    for pid in subprocess.run(["ip", "netns", "pids", node], capture_output=True, text=True).stdout.split():
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            continue
        if cmd.startswith(b"sshd"):
            subprocess.run(["kill", pid], check=False)


def test_watch_turns_green_on_its_own_after_a_fix_from_another_shell(tmp_path):
    try:
        sim.up(["mtu-1500"])
        p = subprocess.Popen(CLI + ["check", "lesson1", "--inventory", str(T.INVENTORY), "--evidence", str(tmp_path),
                                    "--watch", "--timeout", "120", "--interval", str(INTERVAL_S)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = ""
        while "watching:" not in first:  # the first round's table, then the watch announces itself
            line = p.stdout.readline()
            assert line, p.stderr.read()
            first += line
        assert re.search(r"FAIL\s+L1\.mtu", first)
        reboot_sshd("spark-b")  # as if spark-b rebooted: the grader's connection drops
        time.sleep(INTERVAL_S * 1.5)
        sim.start_sshd("spark-b")
        fixed = fix_mtu()
        out, err = p.communicate(timeout=120)
        done = time.monotonic()
    finally:
        sim.down()
    assert p.returncode == 0, out + err
    assert done - fixed <= 2 * INTERVAL_S + 10, f"green {done - fixed:.1f} s after the fix"  # + one round's work
    changes = [ln for ln in out.splitlines() if ln.startswith("round ")]
    assert sum("L1.mtu: FAIL -> PASS" in ln for ln in changes) == 1, out  # printed once
    assert any("node spark-b: reachable -> unreachable" in ln for ln in changes), out
    assert any("node spark-b: unreachable -> reachable" in ln for ln in changes), out
    assert "after" in out and "every check passes" in out and "Traceback" not in err


def test_the_notebook_toggle_watches_until_green(tmp_path, monkeypatch):
    pytest.importorskip("ipywidgets")
    from grader import notebook as cl

    monkeypatch.chdir(tmp_path)
    try:
        sim.up(["mtu-1500"])
        panel = cl.check_my_cluster("lesson1", inventory=T.INVENTORY)
        assert panel.result is not None and panel.result.exit_code == 1
        panel._keep.value = True  # the learner clicks "Keep checking while I fix it"
        fix_mtu()
        deadline = time.monotonic() + 60
        while panel.result.exit_code != 0 and time.monotonic() < deadline:
            time.sleep(0.5)
        while panel._keep.value and time.monotonic() < deadline:  # the watch ends itself when green
            time.sleep(0.1)
    finally:
        sim.down()
    assert panel.result.exit_code == 0
    assert "L1.mtu: FAIL -&gt; PASS" in panel._changes.value
    assert panel._keep.value is False and "lesson1" not in cl.CheckPanel._watching
