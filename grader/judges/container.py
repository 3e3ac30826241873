"""Judge of the containers a node runs in: ``docker ps`` (grader.parsers.docker_ps), and one started in the background
(``docker run -d``, grader.parsers.docker_run), where what it printed is
only its ID, so what can be judged is the command that started it, where a multi-node Ray or vLLM container is
often set up wrong: the loopback address given as the head's or as this node's own (other machines cannot reach
127.0.0.1: Ray's ``ray start`` and vLLM's VLLM_HOST_IP docs), and a Ray node started without the host's network
(NVIDIA's run_cluster.sh runs its containers with ``--network host``; in a bridge network Ray registers the
container's own 172.17.x.x address, which the other machine cannot reach).
"""

from __future__ import annotations

from typing import Any

from ..parsers.common import command_argv, option_value
from .common import fail, info, is_loopback, warn
from .context import context
from .model import Finding, Summary

_ADDRESS_VARS = ("VLLM_HOST_IP", "MASTER_ADDR", "RAY_ADDRESS")
_IFNAME_VARS = ("NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME")
_ANY_ADDRESS = ("0.0.0.0", "::", "[::]")
"""The addresses that mean every interface to a listener: never one to advertise to other nodes."""


def _loopback(value: str) -> bool:
    """Whether an address (``127.0.0.1:6379``, ``[::1]:6379``, ``localhost``, ``tcp://127.0.0.1``) is this machine's own."""
    host = value.split("://", 1)[-1]
    host = host[1:host.index("]")] if host.startswith("[") and "]" in host else \
        host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    return is_loopback(host)


def container_env(argv: list[str]) -> dict[str, str]:
    """``-e NAME=VALUE`` / ``--env NAME=VALUE`` / ``--env=NAME=VALUE`` of a ``docker run`` argv (a bare ``-e NAME``
    passes the caller's value, unknown here, and is left out)."""
    env: dict[str, str] = {}
    for i, arg in enumerate(argv):
        value = (argv[i + 1] if i + 1 < len(argv) else "") if arg in ("-e", "--env") else \
            arg.split("=", 1)[1] if arg.startswith(("--env=", "-e=")) else None
        if value and "=" in value:
            name, _, val = value.partition("=")
            env[name] = val
    return env


def detached(argv: list[str]) -> bool:
    """Whether a ``docker run`` (``podman run``, ``docker container run``) argv runs detached: ``-d``/``--detach`` or a
    short-option group holding ``d`` (``-dit``), among docker's own options, before the image."""
    i = next((k + 1 for k, a in enumerate(argv) if a == "run"), len(argv))
    while i < len(argv) and argv[i].startswith("-"):
        a = argv[i]
        if a in ("-d", "--detach") or a.startswith("--detach=") and a.split("=", 1)[1].lower() != "false" or \
                not a.startswith("--") and len(a) <= 5 and "d" in a[1:] and a[1:].isalpha() and set(a[1:]) <= set("ditP"):
            return True
        i += 1 if a.startswith("--") and "=" in a or a in _FLAGS else 2  # an option's value follows it
    return False


_FLAGS = {"-i", "-t", "-it", "-ti", "--rm", "--privileged", "--init", "-P", "--interactive", "--tty", "--read-only"}
"""docker run's options that take no value (the others take the next word)."""


def ray_starts(argv: list[str]) -> list[list[str]]:
    """The ``ray start ...`` commands a ``docker run`` argv runs (as its command, or in a ``-c "..."`` string), each
    as its own argv."""
    found = []
    for i, arg in enumerate(argv):
        if " " in arg and "ray start" in arg:
            found.append(command_argv(arg[arg.index("ray start"):]))
        elif arg.rsplit("/", 1)[-1] == "ray" and argv[i + 1:i + 2] == ["start"]:
            found.append(argv[i:])
    return found


def _error_hint(error: str) -> str:
    """What to do about docker's error line (the common ones of a GPU node)."""
    e = error.lower()
    if "capabilities: [[gpu]]" in e or "nvidia-container-cli" in e or "nvml" in e:
        return ("The NVIDIA container runtime could not give it the GPU: check `nvidia-smi` on the host and the NVIDIA "
                "Container Toolkit (`nvidia-ctk runtime configure --runtime=docker`, then restart docker).")
    if "unauthorized" in e or "denied" in e:
        return "The registry refused the pull: `docker login nvcr.io` (user `$oauthtoken`, your NGC API key) first."
    if "already in use" in e:
        return "A container of that name exists: `docker rm -f <name>` (or another --name), then run it again."
    return "`docker ps -a` and `docker logs <name>` say more."


def summarise_docker_run(run: Any, command: str | None) -> Summary:
    """``docker run -d``'s output (a DockerRun; None when only the command is pasted) and the command that printed it,
    judged (module docstring)."""
    argv = command_argv(command)
    name = option_value(argv, "--name")
    cid = run.container_id[:12] if run is not None and run.container_id else None
    if run is None:
        findings: list[Finding] = [info(
            "Only the command is in the paste: `docker run -d` prints the new container's ID (or docker's error), and "
            f"what the container's programs print is in `docker logs {name or '<container>'}`. Its options are read.")]
    elif run.error:
        findings = [fail(
            f"docker did not start the container{' ' + name if name else ''}: `{run.error}`"
            + (" (with -d docker prints the ID before it starts the container: the ID above is of one created, not "
               "running)" if cid else "") + ". " + _error_hint(run.error))]
    else:
        findings = [info(
            (f"The container {cid}" if cid else "The container") + (f" ({name})" if name else "")
            + (" started in the background" if cid else " was being created (the paste stops before its ID)")
            + (", after pulling its image" if run.pulled else "") + ": what it prints is in `docker logs "
            + (name or cid or "<container>") + "`, not here.")]
    for w in run.warnings if run is not None else ():
        platform = "platform" in w and "does not match" in w
        findings.append((warn if platform else info)(f"docker warned: `{w}`" + (
            ": the image is built for another CPU than this host's (a DGX Spark is arm64): its programs end at once "
            "with `exec format error`. Use an arm64 (or multi-arch) image." if platform else ".")))
    starts = ray_starts(argv) if context().nodes != 1 else []  # on one machine, its own address is every node's
    env = container_env(argv)
    for start in starts:
        head = option_value(start, "--address")
        if head and _loopback(head) and "--head" not in start:
            findings.append(warn(f"The container's `ray start --address={head}` joins this machine itself: a worker "
                                 "on another machine than the head finds no head there (Ray dials this machine's own "
                                 "address instead). Give the head's address on the link the nodes share."))
    rays = ray_starts(argv)  # (a Ray node, on any number of machines: its workers are handed the address)
    anywhere = [f"-e VLLM_HOST_IP={env['VLLM_HOST_IP']}"] if env.get("VLLM_HOST_IP") in _ANY_ADDRESS and (
        rays or (context().nodes or 1) > 1) else []  # (one server alone on one machine never hands it out)
    anywhere += [f"ray start --node-ip-address={x}" for x in (option_value(s, "--node-ip-address") for s in rays)
                 if x in _ANY_ADDRESS]
    if anywhere:
        findings.append(fail(f"`{'`, `'.join(anywhere)}`: {anywhere[0].split('=')[-1]} means every interface to a "
                             "program that listens, not an address to give others: Ray and vLLM hand this node's "
                             "address to the other workers, which then dial themselves. Give the node's own address "
                             "on the link the nodes share (on a Spark, its QSFP twin's)."))
    for var in _ADDRESS_VARS:
        if starts and var in env and _loopback(env[var]):
            findings.append(warn(f"`-e {var}={env[var]}` names the loopback address in a container that joins a Ray "
                                 "cluster: the other machine cannot reach it. Give this node's (or, for MASTER_ADDR "
                                 "and RAY_ADDRESS, the head's) address on the link the nodes share."))
    for var in _IFNAME_VARS:
        if starts and env.get(var) == "lo":
            findings.append(warn(f"`-e {var}=lo` keeps that traffic on the loopback interface: across machines "
                                 "name the interface of the link the nodes share (on a Spark, a QSFP twin)."))
    network = option_value(argv, "--network", "--net")
    if starts and network != "host":
        findings.append(warn("This container runs a Ray node " + (f"in the `{network}` network" if network else
                             "without `--network host` (in docker's bridge network)") + ": Ray registers the "
                             "container's own address (172.17.x.x), which the other machine cannot reach. Start it "
                             "with `--network host`, as NVIDIA's run_cluster.sh does."))
    facts = {"container_id": run and run.container_id, "pulled": run is not None and run.pulled, "name": name,
             "network": network,
             "env": {k: v for k, v in env.items() if k in _ADDRESS_VARS + _IFNAME_VARS},
             "ray_starts": [" ".join(s[:6]) for s in starts]}
    return facts, findings


def summarise_docker_ps(rows: list[Any], command: str | None) -> Summary:
    """``docker ps [-a]``: each container's state. A container that restarts again and again warns; one that exited
    is said with its exit code, whose meaning (a crash by signal, a kill) checks/diagnoses.toml gives beside this."""
    findings: list[Finding] = []
    up = [r for r in rows if r.status.startswith("Up")]
    if up:
        findings.append(info("Running: " + "; ".join(f"{r.name} ({r.image}), {r.status}" for r in up[:8])
                             + (f"; and {len(up) - 8} more" if len(up) > 8 else "") + "."))
    for r in rows:
        if r.status.startswith("Restarting"):
            findings.append(warn(f"{r.name} ({r.image}) is restarting again and again ({r.status}): it exits at once "
                                 f"each time it starts. `docker logs {r.name}` says why."))
        elif r.status.startswith("Exited"):
            findings.append(info(f"{r.name} ({r.image}) is not running: {r.status}"
                                 + (" (exit code 0: it ended by itself)." if r.exit_code == 0 else
                                    f". `docker logs {r.name}` shows its last lines.")))
        elif r.status in ("Created", "Dead"):
            findings.append(info(f"{r.name} ({r.image}) is {r.status.lower()}, not running."))
    if not rows:
        findings.append(info("No container " + ("at all." if command and " -a" in command else "running (`docker ps -a` "
                                                                                          "lists the stopped ones too).")))
    facts = {"containers": [{"id": r.id, "image": r.image, "status": r.status, "name": r.name,
                             "exit_code": r.exit_code} for r in rows]}
    return facts, findings
