"""The lab end to end on the simulated cluster: `clusterlab loadtest` against the pair (Ray, PP=2)
and the one-node baseline, recorded into one evidence/lab.json, recomputed, graded, plotted.

Needs root, openssh-server and the serving environment (bash scripts/install-serve.sh), like
tests/test_sim_serve.py; skipped otherwise. A tiny load (2 levels, 8 prompts of 32+16 tokens)."""

from __future__ import annotations

import json
import os
import shutil

import pytest

import grader.sim as sim
from grader.cli import main
from grader.sim import serve
from grader.sim import topology as T

_why_not = None
if os.geteuid() != 0:
    _why_not = "the simulated cluster needs root (network namespaces)"
elif not shutil.which("sshd", path="/usr/sbin:/usr/bin:/sbin:/bin"):
    _why_not = "the simulated cluster needs openssh-server (bash scripts/install.sh)"
else:
    _why_not = serve.installed()
pytestmark = pytest.mark.skipif(_why_not is not None, reason=str(_why_not))

ARGS = ["--concurrency", "1,4", "--num-prompts", "8", "--input-len", "32", "--output-len", "16", "--timeout", "120"]


def test_loadtest_pair_and_baseline_end_to_end(tmp_path, capsys):
    inventory = str(sim.up([]))
    try:
        serve.start("ray")
        assert main(["loadtest", "--inventory", str(T.INVENTORY), "--evidence", str(tmp_path), *ARGS]) == 1
        out = capsys.readouterr().out
        assert "[pair] concurrency 4: 8 completed, 0 failed" in out and "LAB.recorded" in out  # baseline missing
        serve.start("single")
        code = main(["loadtest", "--inventory", str(T.INVENTORY), "--evidence", str(tmp_path), "--json", *ARGS])
        report = json.loads(capsys.readouterr().out)
    finally:
        sim.down()
    assert inventory
    status = {v["id"]: v["status"] for v in report["verdicts"]}
    assert status["LAB.recorded"] == status["LAB.sane"] == "pass", report
    assert status["LAB.pair_vs_one"] in ("pass", "warn") and code in (0, 1)
    assert [r["concurrency"] for r in report["comparison"]] == [1, 4]
    assert all(os.path.getsize(p) > 10_000 for p in report["plots"])
    ev = json.loads((tmp_path / "lab.json").read_text())
    probes = sorted(r["probe"] for r in ev["raw"] if r["probe"].startswith("vllm-bench"))
    assert probes == ["vllm-bench:baseline:c1", "vllm-bench:baseline:c4", "vllm-bench:pair:c1", "vllm-bench:pair:c4"]
    for r in ev["raw"]:
        if r["probe"].startswith("vllm-bench"):
            data = json.loads(r["stdout"])
            assert data["completed"] == 8 and len(data["ttfts"]) == 8  # per-request detail came back
