"""A node that is the grader's own machine: ``address = "local"`` (issue 28). A desktop learner checks their own
box without running sshd or SSHing to 127.0.0.1: the same fixed probes run as local processes under the same
deadlines, and the machine's own SSH host key (read from /etc/ssh, not served) gives the identity a host key
gives over SSH. These tests run with no sshd listening for them (none is started here)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.inventory import Inventory, Node
from grader.transport import ANSWER_MARGIN_S, LocalConnection, open_connection

CLI = [sys.executable, "-m", "grader.cli"]
HOST_KEY = Path("/etc/ssh/ssh_host_ed25519_key.pub")


def local_inventory(tmp_path: Path) -> Path:
    inv = tmp_path / "inventory.toml"
    inv.write_text('profile = "dual-gpu-desktop"\n\n[[nodes]]\nname = "desktop"\naddress = "local"\n')
    return inv


def test_lesson3_checks_a_local_desktop_without_sshd(tmp_path):
    p = subprocess.run(CLI + ["check", "lesson3", "--inventory", str(local_inventory(tmp_path)), "--evidence",
                              str(tmp_path / "ev"), "--json"], capture_output=True, text=True, timeout=120,
                       env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp_path)})  # no ~/.ssh, no agent
    assert "Traceback" not in p.stderr and p.returncode in (0, 1), p.stderr
    out = json.loads(p.stdout)
    assert not out.get("unreachable"), out.get("unreachable")
    ev = json.loads((tmp_path / "ev" / "lesson3.json").read_text())
    probes = {r["probe"]: r for r in ev["raw"] if r["node"] == "desktop"}
    assert {"smi_query", "smi_topo", "platform", "sysinfo"} <= set(probes)
    # what this machine is, read by the probes themselves: the kernel line of `uname -srm`
    assert probes["sysinfo"]["stdout"].split()[0] == "Linux"
    if shutil.which("nvidia-smi") is None:  # a box without the driver: said, not guessed
        assert probes["smi_query"]["exit_status"] == 127
    if HOST_KEY.is_file():  # the identity: ssh-keygen's own fingerprint of the machine's host key
        fp = subprocess.run(["ssh-keygen", "-lf", str(HOST_KEY)], capture_output=True, text=True).stdout.split()[1]
        assert ev["provenance"]["nodes"]["desktop"]["host_key"] == fp
    graded = subprocess.run(CLI + ["grade", str(tmp_path / "ev" / "lesson3.json")], capture_output=True, text=True)
    assert "Traceback" not in graded.stderr and graded.returncode in (0, 1)


def _conn(tmp_path: Path, timeout_s: float = 1.0) -> LocalConnection:
    inv = Inventory(profile="dual-gpu-desktop", nodes=[Node(name="desktop", address="local")],
                    command_timeout_s=timeout_s)
    c = open_connection(inv.nodes[0], inv)
    assert isinstance(c, LocalConnection)
    c.connect(timeout_s)
    return c


def test_a_local_command_has_the_same_deadline(tmp_path):
    c = _conn(tmp_path)
    t0 = time.monotonic()
    res = c.run("echo started; sleep 30", 1.0)
    took = time.monotonic() - t0
    assert res.timed_out and res.exit_status is None and res.stdout == "started\n"
    assert took <= 1.0 + ANSWER_MARGIN_S + 0.5, took
    ok = c.run("printf 'a\\n'; printf 'b' >&2; exit 3")
    assert (ok.stdout, ok.stderr, ok.exit_status, ok.timed_out) == ("a\n", "b", 3, False)


def test_a_local_stream_reads_like_an_ssh_channel(tmp_path):
    chan = _conn(tmp_path).open_stream("echo listening; sleep 0.3; echo done; echo oops >&2", 5)
    got = bytearray()
    deadline = time.monotonic() + 5
    while not chan.exit_status_ready() and time.monotonic() < deadline:
        time.sleep(0.02)
    while chan.recv_ready():
        got += chan.recv(4)
    assert got.decode() == "listening\ndone\n" and chan.recv_exit_status() == 0
    assert chan.recv_stderr_ready() and chan.recv_stderr(100) == b"oops\n"
    chan.close()


@pytest.mark.parametrize("address", ["local", "10.0.0.5"])
def test_open_connection_picks_by_address(address):
    inv = Inventory(profile="dual-gpu-desktop", nodes=[Node(name="desktop", address=address)])
    assert isinstance(open_connection(inv.nodes[0], inv), LocalConnection) == (address == "local")
