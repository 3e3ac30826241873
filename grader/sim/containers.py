"""The playbook's way on the sim: Ray and vLLM inside OCI containers, one container engine per node.

    clusterlab sim up --serve ray --containers

Each node runs its own rootful ``podman system service`` inside that node's namespaces (network and
mount), with its own storage (the image comes read-only from the host's store), and that service's
socket is bind-mounted over ``/run/docker.sock`` in the node's mount namespace only, root:docker 0660.
The real Docker CLI (API 1.41) talks to it, so ``docker ps``, ``docker inspect``, ``docker exec`` and
``docker logs`` over SSH read that node's containers, as on a Spark.

Serving is started the way NVIDIA's ``run_cluster.sh`` does it: per node ``docker run -d --network host
--ipc host -e VLLM_HOST_IP=... -e NCCL_SOCKET_IFNAME=... <image> bash -c "ray start --block ..."``, then
``vllm serve`` through ``docker exec <head container>``. The image ``clusterlab-sim-vllm`` is
built on this machine from Debian's packages (scripts/build-sim-image.sh); the serving environment is
mounted read-only at its own path, the model and caches at theirs.

What runs where is still :mod:`~grader.sim.serve_spec`'s: :func:`containerize` turns its processes into
container commands. Below :mod:`~grader.sim.groups` (which ends the containers and engines at stop and
``sim down``) and :mod:`~grader.sim.serve`.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import time
from pathlib import Path

from grader.sim import host as H
from grader.sim import serve_spec as S
from grader.sim import topology as T

IMAGE = "clusterlab-sim-vllm"
TAGS = ("latest", "noray")
"""``latest``: Ray and vLLM on PATH; ``noray``: vLLM only (fault image-without-ray)."""
BUILD_HINT = "bash scripts/install-serve.sh (it installs podman, runc and a Docker CLI and builds the image)"
ENGINE_DIR = T.RUN_DIR / "podman"
"""Per node: the engine's storage.conf, storage, run root, temporary files, socket and log."""
DOCKER_SOCK = "/run/docker.sock"
DOCKER_GROUP = "docker"
ENGINE_READY_S = 30.0
ENGINE_GRACE_S = 10.0
"""How long an engine gets after SIGTERM before SIGKILL; `sim down` waits for it to end either way,
so the next `sim up` never finds its socket still held."""
RAY_READY_S = 90
SERVE_CMD_VAR = "CLSIM_SERVE_CMD"
SHM_SIZE = "1g"
CGROUPS = ("cpu", "cpuacct", "cpuset", "memory", "devices", "freezer", "blkio", "pids")

# `ip netns exec` gave each node a fresh /sys without the cgroup mounts runc needs: mount the host's
# hierarchies again there (the same v1 controllers, name=systemd and the unified v2), in that node only.
_CGROUP_MOUNTS = (
    "mountpoint -q /sys/fs/cgroup && exit 0; mount -t tmpfs -o mode=755 cgroup /sys/fs/cgroup || exit 1; "
    f"for c in {' '.join(CGROUPS)}; do mkdir -p /sys/fs/cgroup/$c; mount -t cgroup -o $c cgroup /sys/fs/cgroup/$c || exit 1; done; "
    "mkdir -p /sys/fs/cgroup/systemd /sys/fs/cgroup/unified; "
    "mount -t cgroup -o none,name=systemd cgroup /sys/fs/cgroup/systemd; mount -t cgroup2 cgroup2 /sys/fs/cgroup/unified; true"
)
_BIND_SOCK = (
    'S=$1; chgrp "$2" "$S" && chmod 660 "$S" || exit 1; '
    f"while mountpoint -q {DOCKER_SOCK}; do umount {DOCKER_SOCK} || break; done; "
    f"[ -e {DOCKER_SOCK} ] || : > {DOCKER_SOCK}; mount --bind \"$S\" {DOCKER_SOCK}"
)
"""In a node (its own /run): the engine's socket bound over /run/docker.sock, made there when missing."""


def _docker() -> str | None:
    """A real Docker CLI (not podman-docker's wrapper, which would bypass each node's engine)."""
    path = H._which("docker")
    if path is None:
        return None
    with contextlib.suppress(OSError):
        with open(path, "rb") as f:
            if f.read(2) == b"#!":
                return None
    return path


def installed(tag: str = "latest") -> str | None:
    """None when the container engine, the Docker CLI and the image ``tag`` are ready; else what is missing."""
    for tool in ("podman", "runc", "conmon"):
        if H._which(tool) is None and not Path(f"/usr/libexec/podman/{tool}").exists():
            return f"no `{tool}` on this machine: {BUILD_HINT}"
    if _docker() is None:
        return f"no real Docker CLI (`docker`; podman-docker's script does not count): {BUILD_HINT}"
    p = subprocess.run(["podman", "image", "exists", f"{IMAGE}:{tag}"], capture_output=True, timeout=30)
    if p.returncode != 0:
        return f"no image {IMAGE}:{tag}: {BUILD_HINT}"
    return None


def container_name(node: str) -> str:
    return f"clsim-{node}"


def _storage_conf(node: str) -> Path:
    d = ENGINE_DIR / node
    conf = d / "storage.conf"
    H._write(conf, f'[storage]\ndriver = "overlay"\ngraphroot = "{d}/root"\nrunroot = "{d}/runroot"\n'
                   '[storage.options]\nadditionalimagestores = ["/var/lib/containers/storage"]\n')
    return conf


def engine_env(node: str) -> dict[str, str]:
    return {"PATH": T.SESSION_PATH, "CONTAINERS_STORAGE_CONF": str(ENGINE_DIR / node / "storage.conf"),
            "HOME": "/root", "LANG": "C.UTF-8"}


def _podman(node: str) -> list[str]:
    return ["podman", "--tmpdir", str(ENGINE_DIR / node / "tmp")]


def start_engines(groups: dict[str, int]) -> dict[str, int]:
    """Start each node's engine and bind its socket over the node's /run/docker.sock; fills and returns
    ``groups`` (node -> the engine's process group, each recorded as soon as it runs, so a failure
    leaves nothing unrecorded). Raises H.SimError naming the engine's log when one does not answer."""
    for node in T.NODES:
        d = ENGINE_DIR / node
        H._mkdir(d, 0o755)
        _storage_conf(node)
        sock = d / "podman.sock"
        sock.unlink(missing_ok=True)
        H._run(H.node_command(node) + ["sh", "-c", _CGROUP_MOUNTS], what=f"{node}: mounting the cgroup hierarchies")
        log = d / "engine.log"
        with open(log, "ab") as out:
            p = subprocess.Popen(H.node_command(node) + _podman(node) + ["system", "service", "--time=0", f"unix://{sock}"],
                                 env=engine_env(node), cwd="/", stdin=subprocess.DEVNULL, stdout=out,
                                 stderr=subprocess.STDOUT, start_new_session=True)
        groups[node] = p.pid
        deadline = time.monotonic() + ENGINE_READY_S
        while not sock.exists():
            if p.poll() is not None or time.monotonic() > deadline:
                raise H.SimError(f"{node}: the container engine did not start (log: {log}: "
                                 f"{' / '.join(log.read_text(errors='replace').strip().splitlines()[-2:])})")
            time.sleep(0.1)
        H._run(H.node_command(node) + ["sh", "-c", _BIND_SOCK, "bind-sock", str(sock), DOCKER_GROUP],
               what=f"{node}: binding the engine's socket over {DOCKER_SOCK}")
    return groups


def docker(node: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """``docker ARGS`` in ``node`` (its own engine), as root."""
    return subprocess.run(H.node_command(node) + [_docker() or "docker", *args], capture_output=True, text=True,
                          timeout=timeout, env={"PATH": T.SESSION_PATH, "HOME": "/root"})


def end_engines(state: dict) -> None:
    """Remove every container of each node's engine, then end the engines (TERM, a grace, KILL) and wait
    until each engine's process group is gone; remove their storage. Needs no lock."""
    engines = (state.get("serve") or {}).get("engines") or {}
    for node in engines:
        with contextlib.suppress(H.SimError, OSError, subprocess.SubprocessError):
            ids = docker(node, "ps", "-aq", timeout=30).stdout.split()
            if ids:
                docker(node, "rm", "-f", "-t", "0", *ids, timeout=120)
    H.end_groups([g for g in engines.values() if H.group_alive(g)], ENGINE_GRACE_S, 5.0)
    for node in engines:
        with contextlib.suppress(H.SimError, OSError, subprocess.SubprocessError):
            subprocess.run(H.node_command(node) + ["sh", "-c", f"while mountpoint -q {DOCKER_SOCK}; do umount {DOCKER_SOCK} || break; done; "
                           f'grep -o " {ENGINE_DIR}/[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l'],
                           capture_output=True, timeout=30)
    if engines:
        import shutil
        shutil.rmtree(ENGINE_DIR, ignore_errors=True)


# --- the serving processes as container commands ---------------------------------------------------

_HOST_ONLY = {"PATH"}
"""Variables the image sets itself (its PATH says whether Ray is in it)."""


def _mounts(node: str) -> list[str]:
    ro = [S.SERVE_VENV, S.MODEL_DIR.parent]
    rw = [S.CACHE_DIR / node, S.TMP_DIR / node]
    return [a for p in ro for a in ("-v", f"{p}:{p}:ro")] + [a for p in rw for a in ("-v", f"{p}:{p}")]


def run_argv(node: str, ray_argv: list[str], env: dict[str, str], image: str) -> list[str]:
    """``docker run`` as run_cluster.sh does it: host network and IPC, the variables as ``-e``, Ray as
    the container's command (``--block``: the container lives as long as Ray). Ray's own files stay in
    the container's /tmp/ray, so ``ray status`` inside finds the cluster without an address."""
    ray = ["ray", *[a for a in ray_argv[1:] if not a.startswith("--temp-dir=")], "--block"]
    envs = [a for k, v in env.items() if k not in _HOST_ONLY for a in ("-e", f"{k}={v}")]
    return [_docker() or "docker", "run", "-d", "--name", container_name(node), "--network", "host", "--ipc", "host",
            *envs, *_mounts(node), image, "bash", "-c", shlex.join(ray)]


def _start_ray_script(node: str, run: list[str]) -> list[str]:
    """A shell command for the node: ``docker run -d``, then wait until Ray says it started (exit 0) or
    the container stops (exit: the container's status, else 1); the container's output (``docker logs``)
    follows, for ray.log."""
    name = container_name(node)
    script = (
        f'{shlex.join(run)} >/dev/null || exit $?; i=0; rc=1; '
        f'while [ $i -lt {RAY_READY_S * 2} ]; do i=$((i+1)); '
        f'if docker logs {name} 2>&1 | grep -q "Ray runtime started"; then rc=0; break; fi; '
        f'[ "$(docker inspect -f "{{{{.State.Running}}}}" {name} 2>/dev/null)" = true ] || break; sleep 0.5; done; '
        f'echo "# docker logs {name}"; docker logs {name} 2>&1; [ $rc = 0 ] && exit 0; '
        f'rc=$(docker inspect -f "{{{{.State.ExitCode}}}}" {name} 2>/dev/null); [ "${{rc:-0}}" != 0 ] || rc=1; exit $rc')
    return ["sh", "-c", script]


def containerize(ss: S.ServeSpec, image_tag: str = "latest", drop_env: dict[str, list[str]] | None = None) -> S.ServeSpec:
    """``ss`` (mode ``ray``) with each ``ray start`` turned into a node's ``docker run`` of the image
    ``image_tag`` and ``vllm serve`` into ``docker exec`` of the head's container.
    ``drop_env``: node -> variables its ``docker run`` leaves out (a ``-e`` forgotten on one node)."""
    if ss.mode != "ray":
        raise ValueError(f"--containers serves with Ray (run_cluster.sh's way), not {ss.mode!r}: use --serve ray")
    image = f"{IMAGE}:{image_tag}"
    out = []
    for p in ss.procs:
        env = {k: v for k, v in p.env.items() if k not in (drop_env or {}).get(p.node, [])}
        if p.name == "ray":
            out.append(S.Proc(p.node, "ray", _start_ray_script(p.node, run_argv(p.node, p.argv, env, image)),
                              engine_env(p.node), p.log, oneshot=True,
                              label=f"docker run -d --name {container_name(p.node)} ... {image} ray start"))
        else:
            # the command reaches the container through a variable (`docker exec -e NAME` copies the client's
            # value), so the host-side client's command line does not look like a vLLM process to lesson 2's
            # probes; no stdin (podman's exec may end the attach when a client half-closes it)
            extra = [a for k in ("RAY_ADDRESS",) if k in p.env for a in ("-e", f"{k}={p.env[k]}")]
            argv = ["vllm", *p.argv[1:]]
            out.append(S.Proc(p.node, p.name, [_docker() or "docker", "exec", *extra, "-e", SERVE_CMD_VAR,
                                               container_name(p.node), "bash", "-c", f'eval "${SERVE_CMD_VAR}"'],
                              {**engine_env(p.node), SERVE_CMD_VAR: f"exec {shlex.join(argv)}"}, p.log,
                              label=f"docker exec {container_name(p.node)} vllm serve"))
    ss.procs = out
    return ss


def hide_host_ray() -> None:
    """No `ray` on the nodes' own PATH while containers serve (a playbook Spark has Ray in the image only)."""
    (T.BIN_DIR / "ray").unlink(missing_ok=True)


def restore_host_ray() -> None:
    ray = S.SERVE_VENV / "bin" / "ray"
    link = T.BIN_DIR / "ray"
    if T.BIN_DIR.is_dir() and os.access(ray, os.X_OK) and not link.is_symlink():
        link.symlink_to(ray)
