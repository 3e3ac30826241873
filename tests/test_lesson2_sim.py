"""Lesson 2a end to end on the simulated cluster: real Ray processes carry the interface variables;
the RoCE view (sysfs, rdma, NCCL log) is simulated and the evidence says so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from grader import sim
from grader.sim import serve

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or serve.installed() is not None,
                                reason="needs root and the serving environment (bash scripts/install-serve.sh)")

CLI = [sys.executable, "-m", "grader.cli"]
SIM_CHECKS = {"L2.roce_active", "L2.ifname_vars", "L2.ib_hca", "L2.gid_index", "L2.env_same", "L2.nccl_transport"}
SERVE_CHECKS = {"L2.ray_nodes", "L2.head_on_qsfp", "L2.vllm_host_ip", "L2.parallel_sizes", "L2.kv_capacity",
                "L2.model_same", "L2.versions_same", "L2.launch"}
"""Lesson 2b's checks: judged on a served cluster (sim_lesson2b_faults.py); here vLLM is still starting."""


def check(inventory, evidence) -> tuple[int, dict, str]:
    p = subprocess.run(CLI + ["check", "lesson2", "--inventory", str(inventory), "--evidence", str(evidence), "--json"],
                       capture_output=True, text=True, timeout=120)
    return p.returncode, (json.loads(p.stdout) if p.stdout.strip().startswith("{") else {}), p.stderr


def up_with_ray(faults: list[str]):
    """The sim with Ray started on both nodes (vLLM launched, not awaited: its variables are what is read)."""
    inv = sim.up(faults)
    serve.start("ray", wait=False)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = subprocess.run(["pgrep", "-f", "[r]aylet"], capture_output=True, text=True).stdout.split()
        if len(found) >= 2:
            return inv
        time.sleep(0.5)
    raise AssertionError("Ray did not start on both nodes within 60 s")


def failed(out: dict) -> set[str]:
    return {v["id"] for v in out["verdicts"] if v["status"] == "fail"}


def test_healthy_sim_with_ray_passes_lesson2a(tmp_path):
    try:
        inv = up_with_ray([])
        code, out, err = check(inv, tmp_path)
    finally:
        sim.down()
    assert "Traceback" not in err
    assert {v["id"] for v in out["verdicts"] if v["status"] == "pass"} >= SIM_CHECKS, json.dumps(out, indent=1)
    assert failed(out) <= SERVE_CHECKS  # vLLM was launched, not awaited
    facts = json.loads((tmp_path / "lesson2.json").read_text())["facts"]
    a = facts["nodes"]["spark-a"]
    assert a["roce_simulated"] is True and a["env"]["NCCL_IB_HCA"] == "rocep1s0f1,roceP2p1s0f1"
    row = next(r for r in a["mapping"] if r["netdev"] == "enP2p1s0f1np1")
    assert (row["rdma_device"], row["pci_bdf"], row["state"], row["ipv4"], row["roce_v2_gid_index"]) == \
        ("roceP2p1s0f1", "0002:01:00.1", "ACTIVE", "192.168.101.10", 3)
    assert facts["pair"]["nccl_transport"] == "NET/IB"


FAULTS = {"no-ib-hca": {"L2.ib_hca"}, "one-hca": {"L2.ib_hca"}, "wrong-gid-index": {"L2.gid_index"},
          "env-mismatch": {"L2.env_same"}, "socket-fallback": {"L2.nccl_transport"}}
"""Lesson 2a's faults and the checks each fails (the fault track, tests/test_track.py, runs each through
:func:`fails_exactly_its_check`, then solves it)."""


def fails_exactly_its_check(fault: str, tmp_path) -> None:
    """The sim up with ``fault`` and Ray started on both nodes: ``check lesson2`` fails exactly the fault's
    lesson-2a check (lesson 2b's, judged on a served cluster, aside), each failure with a hint and details.
    Leaves the sim up (the caller solves or takes it down)."""
    inv = up_with_ray([fault])
    code, out, err = check(inv, tmp_path)
    assert "Traceback" not in err
    judged_2a(fault, code, out)


def judged_2a(fault: str, code: int, out: dict) -> None:
    """What ``check lesson2`` (live) or ``grade --json`` (of its recording) says of a lesson-2a fault with Ray
    up: exit 1, exactly the fault's check failed among lesson 2a's, each failure with a hint and details."""
    assert code == 1
    assert failed(out) - SERVE_CHECKS == FAULTS[fault], json.dumps(out["verdicts"], indent=1)
    for v in out["verdicts"]:
        if v["status"] == "fail" and v["id"] not in SERVE_CHECKS:
            assert v["hint"] and v["details"]


def test_without_serving_the_check_says_to_start_the_cluster(tmp_path):
    try:
        inv = sim.up([])
        code, out, err = check(inv, tmp_path)
    finally:
        sim.down()
    assert code == 1
    by = {v["id"]: v for v in out["verdicts"]}
    assert "no Ray or vLLM process could be read" in by["L2.ifname_vars"]["details"][0]
    assert by["L2.roce_active"]["status"] == "pass" and by["L2.nccl_transport"]["status"] == "pass"


JUDGED = {f: judged_2a for f in FAULTS}
"""Each lesson-2a fault with the function that judges its check's (or its recording's grade's) exit and JSON."""
