"""``clusterlab verify`` on the simulated cluster: honest lesson-1 evidence agrees with the machines,
copies edited by hand (an address changed and its sha256 recomputed, iperf3 throughput multiplied
by 10 with every hash and fact made consistent, a recorded time in the future) do not.

Brings the sim up and down itself (root and OpenSSH needed; skipped otherwise). Run it under
``flock /tmp/clusterlab-sim.lock``, like every sim test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader import sim
from grader.evidence import digest, seal

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("sshd") and not Path("/usr/sbin/sshd").exists(),
                                reason="the sim needs root and OpenSSH sshd")

CLI = [sys.executable, "-m", "grader.cli"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(CLI + list(args), capture_output=True, text=True, timeout=180)


def verify(evidence: Path, inventory: Path) -> tuple[int, dict, str]:
    p = run("verify", str(evidence), "--inventory", str(inventory), "--json")
    out = json.loads(p.stdout) if p.stdout.strip().startswith("{") else {}
    return p.returncode, out, p.stderr


def rows(out: dict) -> dict[str, dict]:
    return {r["item"]: r for r in out["rows"]}


@pytest.fixture(scope="module")
def honest(tmp_path_factory):
    """The sim up, and lesson-1 evidence recorded on it by `clusterlab check`."""
    inv = sim.up([])
    ev = tmp_path_factory.mktemp("evidence")
    p = run("check", "lesson1", "--inventory", str(inv), "--evidence", str(ev))
    assert p.returncode == 0, p.stdout + p.stderr
    yield Path(inv), ev / "lesson1.json"
    sim.down()


def edited(src: Path, dst: Path, edit) -> Path:
    """A copy of ``src`` with ``edit(data)`` applied and every sha256 and the manifest recomputed, as a forger would."""
    data = json.loads(src.read_text())
    edit(data)
    for r in data["raw"]:
        r["sha256"] = digest(r["stdout"], r["stderr"])
    dst.write_text(json.dumps(seal(data)))
    return dst


def test_honest_evidence_agrees(honest):
    inv, ev = honest
    code, out, err = verify(ev, inv)
    assert code == 0, err + json.dumps(out, indent=1)
    got = rows(out)
    assert {r["status"] for r in out["rows"]} == {"agree"}, out["rows"]
    assert got["spark-b enp1s0f1np1 IPv4"]["measured"] == ["192.168.100.11/24"]
    assert got["spark-a enP2p1s0f1np1 IPv4"]["recorded"] == ["192.168.101.10/24"]
    tcp = got["TCP throughput (iperf3, one twin)"]
    assert tcp["unit"] == "Gbit/s" and tcp["recorded"] > 2.0 and tcp["measured"] > 2.0
    assert got["spark-a kernel"]["recorded"] == got["spark-a kernel"]["measured"]
    assert "Traceback" not in err


def test_address_changed_and_rehashed_is_flagged(honest, tmp_path):
    inv, ev = honest

    def move_b(data):
        for r in data["raw"]:
            if r["node"] == "spark-b" and r["probe"] == "ip_addr":
                assert "192.168.100.11" in r["stdout"]
                r["stdout"] = r["stdout"].replace('"192.168.100.11"', '"192.168.100.77"')

    code, out, err = verify(edited(ev, tmp_path / "lesson1.json", move_b), inv)
    assert code == 1, err
    got = rows(out)
    moved = got["spark-b enp1s0f1np1 IPv4"]
    assert moved["status"] == "DIFFERS"
    assert moved["recorded"] == ["192.168.100.77/24"] and moved["measured"] == ["192.168.100.11/24"]
    assert got["raw outputs match their sha256"]["status"] == "agree"  # the forger rehashed
    assert got["stored facts = facts derived from the raw outputs"]["status"] == "DIFFERS"  # but left the facts
    assert got["spark-a enp1s0f1np1 IPv4"]["status"] == "agree"


def test_throughput_times_ten_with_consistent_facts_is_flagged(honest, tmp_path):
    inv, ev = honest
    from grader.evidence import load_evidence
    from grader.facts import derivers

    def faster(data):
        for r in data["raw"]:
            if r["probe"] == "iperf3_client":
                res = json.loads(r["stdout"])
                for key in ("sum_sent", "sum_received"):
                    res["end"][key]["bits_per_second"] *= 10
                r["stdout"] = json.dumps(res)

    path = edited(ev, tmp_path / "lesson1.json", faster)
    forged = load_evidence(path)  # loads: every hash matches
    data = json.loads(path.read_text())
    data["facts"] = json.loads(json.dumps(derivers()["lesson1"](forged)))
    path.write_text(json.dumps(data))
    before = json.loads(ev.read_text())["facts"]["pair"]["tcp_gbps"]  # rounded to 1 Mbit/s
    assert data["facts"]["pair"]["tcp_gbps"] == pytest.approx(10 * before, rel=1e-4)

    code, out, err = verify(path, inv)
    assert code == 1, err
    got = rows(out)
    tcp = got["TCP throughput (iperf3, one twin)"]
    assert tcp["status"] == "DIFFERS" and tcp["recorded"] == pytest.approx(10 * before, rel=1e-4)
    assert got["raw outputs match their sha256"]["status"] == "agree"
    assert got["stored facts = facts derived from the raw outputs"]["status"] == "agree"
    assert [r["item"] for r in out["rows"] if r["status"] == "DIFFERS"] == ["TCP throughput (iperf3, one twin)"]
    # and `grade` alone cannot tell: the forged copy passes every check (it earns nothing only because this sim
    # was built finished, grader.provenance.sim_work_problem, not because grading saw the edit)
    graded = json.loads(run("grade", str(path), "--format", "json").stdout)
    assert {v["status"] for v in graded["verdicts"]} == {"pass"}
    assert [u for u in graded["unfit"] if "was built finished" not in u] == []


def test_future_time_and_unhashed_edit_are_flagged(honest, tmp_path):
    inv, ev = honest
    data = json.loads(ev.read_text())
    data["provenance"]["created_at"] = "2031-01-01T00:00:00+00:00"
    for r in data["raw"]:
        if r["probe"] == "sysinfo" and r["node"] == "spark-a":
            r["stdout"] = r["stdout"].replace("Linux", "Linux ", 1)  # edited, hash not recomputed
    path = tmp_path / "lesson1.json"
    path.write_text(json.dumps(data))
    code, out, err = verify(path, inv)
    assert code == 1, err
    got = rows(out)
    assert got["recorded times are not in the future"]["status"] == "DIFFERS"
    assert "2031-01-01" in got["recorded times are not in the future"]["note"]
    assert got["raw outputs match their sha256"]["status"] == "DIFFERS"
    assert "sysinfo on spark-a" in got["raw outputs match their sha256"]["note"]


# The lab's `verify` (one load level run again) is judged on the scripted learner's lab.json while its pair still
# serves: tests/test_hands_on_sim.py::lab_verified (no served cluster of its own).
