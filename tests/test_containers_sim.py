"""Issue 17: the playbook's way on the simulated cluster. Ray and vLLM run in real OCI containers (one
podman engine per node behind its /run/docker.sock, the real Docker CLI), started as NVIDIA's
run_cluster.sh starts them, and lesson 2 reads them through `docker inspect` / `docker exec` over SSH.
The container faults' own tracks are in tests/test_track.py (tests/sim_container_faults.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from grader import sim
from grader.sim import containers, serve
from grader.sim import topology as T

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="the sim needs root"),
    pytest.mark.skipif(os.geteuid() == 0 and serve.installed() is not None, reason=str(serve.installed())),
    pytest.mark.skipif(os.geteuid() == 0 and containers.installed() is not None, reason=str(containers.installed())),
]
CLI = [sys.executable, "-m", "grader.cli"]


def _cgroup(pid: int) -> str:
    return Path(f"/proc/{pid}/cgroup").read_text()


def _serving_pids(node: str) -> dict[int, str]:
    """The node's Ray daemons and vLLM processes (pid -> command line), by its network namespace."""
    out = {}
    for pid in sim.cluster._ns_pids(node):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "raylet" in cmd or "gcs_server" in cmd or " serve " in cmd and "/bin/vllm" in cmd:
            out[pid] = cmd
    return out


def _as_nobody(groups: list[int], command: str) -> subprocess.CompletedProcess:
    """``command`` in spark-a as the unprivileged user nobody, with exactly the supplementary ``groups``."""
    priv = ["setpriv", "--reuid=65534", "--regid=65534"] + ([f"--groups={','.join(map(str, groups))}"] if groups
                                                            else ["--clear-groups"])
    return subprocess.run(sim.cluster.node_command("spark-a") + priv + ["env", "-i", f"PATH={T.SESSION_PATH}",
                          "HOME=/tmp", "sh", "-c", command], capture_output=True, text=True, timeout=60)


def learner_permission_path() -> None:
    """What the engine needs of the learner's user: membership in the docker group (the socket is root:docker
    0660), nothing else. Outside the group the probe says so, and lesson 2a's facts name `usermod -aG docker`;
    in it, `docker inspect` gives the containers' variables though the root processes' /proc environ is closed."""
    import grp

    from grader.evidence import Evidence, RawOutput
    from grader.facts.lesson2 import _env
    from grader.parsers.proc_env import parse_serving_env
    from grader.probes.lesson2 import RAY_STATUS, SERVING_ENV

    outside = _as_nobody([], SERVING_ENV)
    procs = parse_serving_env(outside.stdout)
    assert [p.source for p in procs if p.source.startswith("docker")] == ["docker-denied"], outside.stdout
    assert not any(p.readable for p in procs)  # Ray's processes are root's: their environ is closed to nobody
    ev = Evidence(lesson="lesson2", profile="sim", inventory={})
    ev.raw.append(RawOutput("spark-a", "serving_env", SERVING_ENV, outside.stdout, outside.stderr, outside.returncode))
    env, n, problems = _env(ev, "spark-a")
    assert (env, n) == ({}, 0) and "`sudo usermod -aG docker nobody`" in problems[0], problems
    ray = _as_nobody([], RAY_STATUS.format(addr=""))
    assert ray.returncode == 127 and "sudo usermod -aG docker nobody" in ray.stderr, ray.stderr
    inside = _as_nobody([grp.getgrnam("docker").gr_gid], SERVING_ENV)
    boxed = [p for p in parse_serving_env(inside.stdout) if p.source.startswith("docker ")]
    assert len(boxed) == 1 and boxed[0].readable and "clsim-spark-a" in boxed[0].description, inside.stdout
    assert boxed[0].env["VLLM_HOST_IP"] == "192.168.100.10" and boxed[0].env["GLOO_SOCKET_IFNAME"] == "enp1s0f1np1"
    ray = _as_nobody([grp.getgrnam("docker").gr_gid], RAY_STATUS.format(addr=""))
    assert ray.returncode == 0 and "Node status" in ray.stdout, ray.stdout + ray.stderr


@pytest.mark.busy_ok  # structure only (the checks pass or not), no timed figure
def test_containers_serve_and_lesson2_passes_20_of_20(tmp_path):
    from tests.test_track import served_facts_hold
    had_sock = os.path.lexists(containers.DOCKER_SOCK)
    try:
        inv = sim.up([])
        info = serve.start("ray", containers=True)
        assert info["containers"] is True and set(info["engines"]) == set(T.NODES)
        for node in T.NODES:
            ps = containers.docker(node, "ps", "--format", "{{.ID}} {{.Names}} {{.Image}}").stdout.split("\n")[0].split()
            assert ps[1:] == [f"clsim-{node}", "localhost/clusterlab-sim-vllm:latest"], ps
            full = containers.docker(node, "inspect", "-f", "{{.Id}}", ps[0]).stdout.strip()
            procs = _serving_pids(node)
            assert any("raylet" in c for c in procs.values()), procs
            for pid, cmd in procs.items():  # every serving process of the node is inside its container
                assert f"libpod-{full}" in _cgroup(pid), (node, pid, cmd, _cgroup(pid))
            # no Ray on the node itself, as on a playbook Spark: `ray status` must go through `docker exec`
            which = subprocess.run(sim.cluster.node_command(node) + ["sh", "-c", f"PATH={T.SESSION_PATH}; command -v ray"],
                                   capture_output=True, text=True)
            assert which.returncode != 0 and which.stdout == ""
        assert any(" serve " in c for c in _serving_pids("spark-a").values())
        # the Docker CLI reaches the node's engine as a member of the docker group: the socket says so
        st = os.stat(containers.ENGINE_DIR / "spark-a" / "podman.sock")
        assert oct(st.st_mode & 0o777) == "0o660" and st.st_gid == __import__("grp").getgrnam("docker").gr_gid
        learner_permission_path()
        p = subprocess.run(CLI + ["check", "lesson2", "--inventory", str(inv), "--evidence", str(tmp_path), "--json"],
                           capture_output=True, text=True, timeout=300)
        assert "Traceback" not in p.stderr
        report = json.loads(p.stdout)
        assert p.returncode == 0, json.dumps(report["verdicts"], indent=1)
        points = [(v.get("points"), v.get("max_points")) for v in report["verdicts"]]
        ev = json.loads((tmp_path / "lesson2.json").read_text())
        served_facts_hold(report, ev["facts"])
        raw = {(r["node"], r["probe"]): r for r in ev["raw"]}
        assert "# docker exec" in raw[("spark-a", "ray_status")]["stdout"]  # Ray's view came from inside the container
        for node in T.NODES:
            assert f"=== docker " in raw[(node, "serving_env")]["stdout"]
        text = subprocess.run(CLI + ["grade", str(tmp_path / "lesson2.json")], capture_output=True, text=True).stdout
        assert "score 20/20" in text, (text, points)  # L2.roce_active is the sim's own doing (given_on): 0 points
    finally:
        sim.down()
    # sim down removed the containers and each engine (its process group ended), kept the image
    assert not containers.ENGINE_DIR.exists()
    left = subprocess.run(["pgrep", "-f", "podman system service|[r]aylet"], capture_output=True, text=True).stdout
    assert left == ""
    assert containers.installed() is None
    assert os.path.lexists(containers.DOCKER_SOCK) == had_sock  # the host's /run/docker.sock as it was


def test_containers_need_ray_mode_and_container_faults_need_containers():
    p = subprocess.run(CLI + ["sim", "up", "--serve", "nnodes", "--containers"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.strip().splitlines() == ["clusterlab: sim up: --containers needs --serve ray (run_cluster.sh starts "
                                             "Ray in the containers): `clusterlab sim up --serve ray --containers`"]
    try:
        sim.up(["image-without-ray"])
        with pytest.raises(serve.ServeError, match=r"container fault: run `clusterlab sim up --fault image-without-ray "
                                                   r"--serve ray --containers`"):
            serve.start("ray")
    finally:
        sim.down()
