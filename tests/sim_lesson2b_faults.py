"""Lesson 2b's faults end to end on the simulated cluster (not a test module: tests/test_track.py runs
these): each launch fault, reproduced for real, fails exactly
its check with vLLM's own error diagnosed. The functions here bring a fault to its failing state and
assert that; the fault track (tests/test_track.py, test_fault_track) runs each of them and then solves
the fault, so each is reproduced once. The healthy served sim passing every check is the lesson-2
track there too. Faults fail fast (vLLM exits within ~20-60 s; `serve.start` then keeps Ray, the logs
and the [serve] table)."""

from __future__ import annotations

import json

import pytest

from grader import sim
from grader.sim import serve
from tests.test_lesson2_sim import SERVE_CHECKS, check, failed


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


def launch_fault_fails_exactly_its_check(fault: str, tmp_path) -> None:
    """A launch fault (:data:`FAULTS`): ``serve.start`` fails with vLLM's exit, and ``check lesson2`` fails
    exactly the owning check, naming the cause and the fix; the launch itself is not measured. Leaves the
    sim up."""
    inv = sim.up([fault])
    with pytest.raises(serve.ServeError, match="vllm serve exited") as err:
        serve.start("ray")
    assert "check lesson2" in str(err.value)
    code, out, stderr = check(inv, tmp_path)
    assert "Traceback" not in stderr
    launch_fault_judged(fault, code, out)


def launch_fault_judged(fault: str, code: int, out: dict) -> None:
    """What ``check lesson2`` (live) or ``grade --json`` (of its recording) says of a launch fault."""
    which, cause, fix = FAULTS[fault]
    assert code == 1
    assert failed(out) == {which}, json.dumps(out["verdicts"], indent=1)
    v = next(v for v in out["verdicts"] if v["id"] == which)
    assert v["hint"] and v["source"]
    details = " ".join(v["details"])
    assert cause in details and fix in details
    unmeasured = {v["id"] for v in out["verdicts"] if v["status"] == "unmeasured"}
    assert unmeasured <= SERVE_CHECKS and "L2.launch" in unmeasured


def serving_fault_fails_exactly_its_check(fault: str, tmp_path) -> None:
    """A serving fault (:data:`SERVING_FAULTS`): the model serves, and ``check lesson2`` fails exactly the
    owning check with the cause and the fix. Leaves the sim up."""
    inv = sim.up([fault])
    serve.start("ray")
    code, out, stderr = check(inv, tmp_path)
    assert "Traceback" not in stderr
    serving_fault_judged(fault, code, out)


def serving_fault_judged(fault: str, code: int, out: dict) -> None:
    """What ``check lesson2`` (live) or ``grade --json`` (of its recording) says of a serving fault."""
    which, cause, fix = SERVING_FAULTS[fault]
    assert code == 1
    assert failed(out) == {which}, json.dumps(out["verdicts"], indent=1)
    v = next(v for v in out["verdicts"] if v["id"] == which)
    assert v["hint"] and v["source"] and cause in v["details"][0] and fix in v["details"][0]


def _failing_start(fault: str, mode: str, tmp_path) -> tuple[str, dict, dict, dict]:
    """The sim up with ``fault``; ``serve.start(mode)`` must fail. Then lesson 2 is checked, the sim left
    up. Returns (the ServeError's text, the sim's serve state after the failure, the check's JSON, the
    one verdict that failed); asserts exactly one check failed, with a hint and a source."""
    inv = sim.up([fault])
    with pytest.raises(serve.ServeError) as err:
        serve.start(mode)
    state = serve.status() or {}
    assert "[serve]" in inv.read_text() and state.get("failed")
    code, out, stderr = check(inv, tmp_path)
    assert "Traceback" not in stderr
    return str(err.value), state, out, only_failure(code, out)


def only_failure(code: int, out: dict) -> dict:
    """The one verdict that failed (asserted: exit 1, exactly one failure, with a hint and a source)."""
    assert code == 1
    fails = [v for v in out["verdicts"] if v["status"] == "fail"]
    assert len(fails) == 1, json.dumps(out["verdicts"], indent=1)
    assert fails[0]["hint"] and fails[0]["source"]
    return fails[0]


def ray_wrong_node_ip_fails_only_ray_nodes(fault: str, tmp_path) -> None:
    """The worker's `ray start` with an address it does not own times out (~30 s, for real); the head's Ray,
    the logs and the [serve] table stay, and L2.ray_nodes alone fails, naming the node's own address."""
    msg, _, out, v = _failing_start(fault, "ray", tmp_path)
    assert "ray start" in msg and "timed out registering this node" in msg and "spark-b/ray.log" in msg
    ray_wrong_node_ip_judged(fault, 1, out)


def ray_wrong_node_ip_judged(fault: str, code: int, out: dict) -> None:
    """What ``check lesson2`` (live) or ``grade --json`` (of its recording) says of ray-wrong-node-ip."""
    v = only_failure(code, out)
    assert v["id"] == "L2.ray_nodes"
    details = " ".join(v["details"])
    assert "1 node(s) up, expected 2" in details and "spark-b runs no Ray daemon" in details
    assert "--node-ip-address=192.168.100.11`" in details  # spark-b's own QSFP address, the fix
    # read from spark-b's own `ray start` log ([serve] log_dir/spark-b/ray.log): the address it was given
    assert "it was given --node-ip-address=192.168.100.111, which none of spark-b's interfaces has" in details
    assert "--node-ip-address" in v["hint"] and "timed out during startup" in v["hint"]
    unmeasured = {v["id"] for v in out["verdicts"] if v["status"] == "unmeasured"}
    # spark-b runs nothing whose variables could be read, and vLLM was never launched: nothing to judge
    assert {"L2.ifname_vars", "L2.env_same", "L2.launch"} <= unmeasured
    ifn = next(v for v in out["verdicts"] if v["id"] == "L2.ifname_vars")
    assert any("never joined Ray (see L2.ray_nodes)" in d for d in ifn["details"])


def nnodes_without_host_ip_hangs_and_fails_only_vllm_host_ip(fault: str, tmp_path) -> None:
    """--nnodes without VLLM_HOST_IP: no error, no /health. The sim gives up after the fault's short
    deadline (not 240 s), leaves the hung vLLM and its log, and L2.vllm_host_ip alone fails, saying it
    is a hang and how long the log has been silent."""
    from grader.sim import faults

    msg, state, out, v = _failing_start(fault, "nnodes", tmp_path)
    assert f"did not answer within {faults.HANG_DEADLINE_S:.0f} s" in msg and faults.HANG_DEADLINE_S == 75.0
    assert "no new line for" in msg and "hangs without an error" in msg and state["hung"]
    nnodes_without_host_ip_judged(fault, 1, out)


def nnodes_without_host_ip_judged(fault: str, code: int, out: dict) -> None:
    """What ``check lesson2`` (live) or ``grade --json`` (of its recording) says of nnodes-no-host-ip."""
    v = only_failure(code, out)
    assert v["id"] == "L2.vllm_host_ip"
    details = " ".join(v["details"])
    assert "the launch hangs: the vLLM log on spark-a shows nothing new for" in details
    quiet = int(details.split("shows nothing new for ")[1].split(" s")[0])
    assert 15 <= quiet <= 240, details  # the log stops ~35 s into a 75 s wait, then the check runs
    assert "advertises 0.0.0.0" in details and "Set VLLM_HOST_IP to the node's QSFP address" in details
    assert "VLLM_HOST_IP is not set" in details  # read from the hung processes' environment too
    unmeasured = {v["id"] for v in out["verdicts"] if v["status"] == "unmeasured"}
    assert "L2.launch" in unmeasured and "L2.kv_capacity" in unmeasured


FAILS_EXACTLY = {**{f: launch_fault_fails_exactly_its_check for f in FAULTS},
                 **{f: serving_fault_fails_exactly_its_check for f in SERVING_FAULTS},
                 "ray-wrong-node-ip": ray_wrong_node_ip_fails_only_ray_nodes,
                 "nnodes-no-host-ip": nnodes_without_host_ip_hangs_and_fails_only_vllm_host_ip}
"""Lesson 2b's faults, each with the function that brings it to its failing state and asserts it."""
JUDGED = {**{f: launch_fault_judged for f in FAULTS}, **{f: serving_fault_judged for f in SERVING_FAULTS},
          "ray-wrong-node-ip": ray_wrong_node_ip_judged, "nnodes-no-host-ip": nnodes_without_host_ip_judged}
"""Each with the function that judges its check's (or its recording's grade's) exit status and JSON."""
