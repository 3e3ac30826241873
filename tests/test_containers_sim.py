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


def test_containers_serve_and_lesson2_passes_22_of_22(tmp_path):
    from tests.test_track import served_facts_hold
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
        assert "score 22/22" in text, (text, points)
    finally:
        sim.down()
    # sim down removed the containers and each engine (its process group ended), kept the image
    assert not containers.ENGINE_DIR.exists()
    left = subprocess.run(["pgrep", "-f", "podman system service|[r]aylet"], capture_output=True, text=True).stdout
    assert left == ""
    assert containers.installed() is None


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
