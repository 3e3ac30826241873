"""Lesson 2b end to end on the simulated cluster: Ray across both nodes and one `vllm serve`
(PP=2) pass every serving check; each launch fault, reproduced for real, fails exactly its check
with vLLM's own error diagnosed. One healthy served cluster for the module; faults fail fast
(vLLM exits within ~20-60 s; `serve.start` then keeps Ray, the logs and the [serve] table)."""

from __future__ import annotations

import json
import os

import pytest

from grader import sim
from grader.sim import serve
from tests.test_lesson2_sim import SERVE_CHECKS, SIM_CHECKS, check, failed

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or serve.installed() is not None,
                                reason="needs root and the serving environment (bash scripts/install-serve.sh)")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    try:
        inv = sim.up([])
        serve.start("ray")
        ev = tmp_path_factory.mktemp("ev")
        yield (*check(inv, ev), json.loads((ev / "lesson2.json").read_text())["facts"])
    finally:
        sim.down()


def test_healthy_served_sim_passes_every_lesson2_check(served):
    code, out, err, facts = served
    assert code == 0, err + json.dumps(out, indent=1)
    assert {v["id"] for v in out["verdicts"] if v["status"] == "pass"} == SIM_CHECKS | SERVE_CHECKS
    pair = facts["pair"]
    assert pair["ray_node_count"] == 2 and pair["ray_resources"] == {"CPU": 2.0, "GPU": 2.0}
    assert pair["ray_node_ips"] == {"spark-a": "192.168.100.10", "spark-b": "192.168.100.11"}
    assert (pair["ray_head"], pair["ray_head_ip"]) == ("spark-a", "192.168.100.10")
    assert (pair["tp"], pair["pp"], pair["backend"]) == (1, 2, "ray")
    # 64 MiB per rank at 512 B per rank-token (the tiny model's 1,024 B/token, half the layers per rank)
    assert pair["kv_tokens_logged"] == pair["kv_tokens_predicted"] == 131_072 and pair["kv_ratio"] == 1.0
    a, b = pair["model_hashes"]["spark-a"], pair["model_hashes"]["spark-b"]
    assert a == b and set(a) == {"config.json", "model.safetensors"}
    assert pair["served_models"] == ["tiny-llama"] and pair["launch_diagnosis"] == []


FAULTS = {
    # vLLM's CPU build has no World size check (CUDA only): it starts both ranks on spark-a and fails
    # binding their threads; the check names the cause and the Ray backend as the fix
    "serve-no-ray-backend": ("L2.parallel_sizes", "without a multi-node backend", "--distributed-executor-backend ray"),
    "kv-too-small": ("L2.kv_capacity", "estimates the longest that fits at 128 tokens", "--max-model-len 128"),
    # the rank on spark-b cannot load the model: the launch fails, the model check owns it
    "model-path-differs": ("L2.model_same", "spark-b: the model files are not at", "same path"),
    # Gloo's own errors, owned by lesson 2a's check of the variables that caused them
    "no-gloo-ifname": ("L2.ifname_vars", "a loopback address", "GLOO_SOCKET_IFNAME is not set"),
    "gloo-wrong-iface": ("L2.ifname_vars", "names enp1s0f0np0, which has no address", "not an Up QSFP twin"),
}
SERVING_FAULTS = {
    # serving works, over the house network
    "head-on-house-network": ("L2.head_on_qsfp", "10.77.7.10 on enP7s7, not a QSFP twin", "--node-ip-address="),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_launch_fault_fails_exactly_its_check(fault, tmp_path):
    which, cause, fix = FAULTS[fault]
    try:
        inv = sim.up([fault])
        with pytest.raises(serve.ServeError, match="vllm serve exited") as err:
            serve.start("ray")
        assert "check lesson2" in str(err.value)
        code, out, stderr = check(inv, tmp_path)
    finally:
        sim.down()
    assert code == 1 and "Traceback" not in stderr
    assert failed(out) == {which}, json.dumps(out["verdicts"], indent=1)
    v = next(v for v in out["verdicts"] if v["id"] == which)
    assert v["hint"] and v["source"]
    details = " ".join(v["details"])
    assert cause in details and fix in details
    warned = {v["id"] for v in out["verdicts"] if v["status"] == "warn"}
    assert warned <= SERVE_CHECKS and "L2.launch" in warned


@pytest.mark.parametrize("fault", sorted(SERVING_FAULTS))
def test_serving_fault_fails_exactly_its_check(fault, tmp_path):
    which, cause, fix = SERVING_FAULTS[fault]
    try:
        inv = sim.up([fault])
        serve.start("ray")
        code, out, stderr = check(inv, tmp_path)
    finally:
        sim.down()
    assert code == 1 and "Traceback" not in stderr
    assert failed(out) == {which}, json.dumps(out["verdicts"], indent=1)
    v = next(v for v in out["verdicts"] if v["id"] == which)
    assert v["hint"] and v["source"] and cause in v["details"][0] and fix in v["details"][0]
