"""Lesson 2's container faults end to end (not a test module: tests/test_track.py's fault track runs each
function here, then solves the fault). Each brings the sim, serving in containers as run_cluster.sh does
(``serve.start("ray", containers=True)``), to the fault's failing state, and asserts that ``check lesson2``
fails exactly the owning check with the cause in its details. Leaves the sim up."""

from __future__ import annotations

import json

import pytest

from grader import sim
from grader.sim import containers, serve
from grader.sim import topology as T
from tests.test_lesson2_sim import SERVE_CHECKS, check, failed


def docker_run_no_host_ip(fault: str, tmp_path) -> None:
    """spark-b's `docker run` without run_cluster.sh's `-e VLLM_HOST_IP`: the model still serves (Ray gives
    the worker its address); lesson 2 reads the variables from `docker inspect` and the container's
    processes, and L2.vllm_host_ip alone fails, naming spark-b."""
    inv = sim.up([fault])
    serve.start("ray", containers=True)
    env = {node: containers.docker(node, "inspect", "-f", "{{range .Config.Env}}{{println .}}{{end}}",
                                   containers.container_name(node)).stdout.splitlines() for node in ("spark-a", "spark-b")}
    assert "VLLM_HOST_IP=192.168.100.10" in env["spark-a"] and not any(e.startswith("VLLM_HOST_IP=") for e in env["spark-b"])
    code, out, stderr = check(inv, tmp_path)
    assert "Traceback" not in stderr
    docker_run_no_host_ip_judged(fault, code, out)


def docker_run_no_host_ip_judged(fault: str, code: int, out: dict) -> None:
    """What ``check lesson2`` (live) or ``grade --json`` (of its recording) says of docker-run-no-host-ip."""
    assert code == 1
    assert failed(out) == {"L2.vllm_host_ip"}, json.dumps(out["verdicts"], indent=1)
    v = next(v for v in out["verdicts"] if v["id"] == "L2.vllm_host_ip")
    assert v["hint"] and any("spark-b" in d for d in v["details"]), v


def image_without_ray(fault: str, tmp_path) -> None:
    """The image has no Ray: run_cluster.sh's `ray start` fails in the container (`ray: command not found`,
    exit 127), the container stops; `ray status` finds Ray neither on the host nor in a running container.
    L2.ray_nodes fails; lesson 2b's other checks have nothing to judge."""
    inv = sim.up([fault])
    with pytest.raises(serve.ServeError, match="Ray is not installed where vLLM runs") as err:
        serve.start("ray", containers=True)
    assert "`docker run -d --name clsim-spark-a ... clusterlab-sim-vllm:noray ray start` failed (rc 127)" in str(err.value)
    assert "ray: command not found" in (T.LOG_DIR / "spark-a" / "ray.log").read_text()
    ps = containers.docker("spark-a", "ps", "-a", "--format", "{{.Names}} {{.Image}} {{.Status}}").stdout
    assert "clsim-spark-a localhost/clusterlab-sim-vllm:noray Exited (127)" in ps, ps
    code, out, stderr = check(inv, tmp_path)
    assert "Traceback" not in stderr
    image_without_ray_judged(fault, code, out)


def image_without_ray_judged(fault: str, code: int, out: dict) -> None:
    """What ``check lesson2`` (live) or ``grade --json`` (of its recording) says of image-without-ray."""
    assert code == 1
    assert failed(out) == {"L2.ray_nodes"}, json.dumps(out["verdicts"], indent=1)
    v = next(v for v in out["verdicts"] if v["id"] == "L2.ray_nodes")
    assert "ray: not found" in " ".join(v["details"]) and "ray: command not found" in v["hint"], v
    unmeasured = {v["id"] for v in out["verdicts"] if v["status"] == "unmeasured"}
    assert unmeasured <= SERVE_CHECKS | {"L2.ifname_vars", "L2.ib_hca", "L2.gid_index", "L2.env_same"}


FAILS_EXACTLY = {"docker-run-no-host-ip": docker_run_no_host_ip, "image-without-ray": image_without_ray}
"""Each container fault with the function that brings it to its failing state (tests/test_track.py)."""
JUDGED = {"docker-run-no-host-ip": docker_run_no_host_ip_judged, "image-without-ray": image_without_ray_judged}
"""Each with the function that judges its check's (or its recording's grade's) exit status and JSON."""
