"""Lesson 2b's Ray kinds for ``explain``: ``ray status``, ``ray start`` (and ``ray stop``), ``ray.nodes()`` printed,
``kubectl get pods`` (KubeRay), judged by grader.judges.ray, and ``docker run -d`` (the container a node runs in), by
grader.judges.container; registered on import by the package, before :mod:`.serving`'s vLLM kinds. Detection keys on lines
no other kind prints: Ray's autoscaler header and ``0.0/2.0 GPU`` usage lines; ``Local node IP``, ``Ray runtime
started.`` and the Ray CLI's own logger lines (``... INFO scripts.py:1047 -- ``).
"""

from __future__ import annotations

import re

from ..judges.common import runs_program
from ..parsers.common.stderr import RAY_LOG_RE
from .core import KindSpec, register, register_cross_check
from .readers import (judge, parse_docker_ps, parse_docker_run, parse_kubectl_pods, parse_ray_nodes, parse_ray_start,
                      parse_ray_status)


# the containers first: `docker run -d IMAGE ray start ...` is a container's start, whose output is its ID
register(KindSpec(
    name="docker-run", parse=parse_docker_run, summarise=judge("container", "summarise_docker_run"),
    programs=("docker", "podman"),
    matches_command=lambda argv: (runs_program(argv, "docker", "run") or runs_program(argv, "podman", "run")
                                   or runs_program(argv, "container", "run")) and judge("container", "detached")(argv),
    reads_command=True,
))  # by its command only: a launcher's own docker run -d prints container IDs among its lines

register(KindSpec(
    name="docker-ps", parse=parse_docker_ps, summarise=judge("container", "summarise_docker_ps"),
    programs=("docker", "podman"),
    matches_command=lambda argv: runs_program(argv, "docker", "ps") or runs_program(argv, "podman", "ps"),
    line=re.compile(r"^CONTAINER ID\s{2,}IMAGE\s{2,}COMMAND\s{2,}CREATED\s{2,}STATUS\s{2,}PORTS\s{2,}NAMES\s*$"),
    starts=re.compile(r"^CONTAINER ID\s{2,}IMAGE\s"),
))

register(KindSpec(
    name="ray-status", parse=parse_ray_status, summarise=judge("ray", "summarise_ray"), programs=("ray",),
    matches_command=lambda argv: runs_program(argv, "ray", "status"),
    line=re.compile(
        r"^=+ (?:Autoscaler|Cluster Scaler|Cluster) status|^Node status$"
        r"|^(?:Healthy|Active|Idle|Recent failures|Total Usage|Pending Demands|From request_resources"
        r"|Total Constraints|Total Demands|Demands):$|^\d+ node\(s\) with resources: \{"
        r"|^\d++(?:\.\d++)?(?:[KMGTP]i?B|B)?/\d++(?:\.\d++)?(?:[KMGTP]i?B|B)? (?:CPU|GPU|memory|object_store_memory"
        r"|accelerator_type:\S+|node:\S+)(?:\s|$)"
        r"|^\d++ node_[0-9a-f]{8,}\b|^\((?:no pending nodes|no failures|no resource demands|no active nodes"
        r"|no idle nodes)\)$|: \d+\+? (?:pending(?: placement groups| tasks/actors|$)|from request_resources\(\))"
        r"|^Node: node_[0-9a-f]{8,}"
        r"|Could not find any running Ray instance"),
    starts=re.compile(r"^=+ (?:Autoscaler|Cluster Scaler|Cluster) status"),
    prelude=True,  # what the shell printed before the banner (a Python library's notes) stays with it
    inner=RAY_LOG_RE,  # Ray's own log lines (the autoscaler's) under the status
))


register(KindSpec(
    name="ray-start", parse=parse_ray_start, summarise=judge("ray", "summarise_ray_start"), programs=("ray",),
    matches_command=lambda argv: runs_program(argv, "ray", "start") or runs_program(argv, "ray", "stop"),
    line=re.compile(
        r"\bLocal node IP: [0-9A-Fa-f.:]|\bRay runtime started\.|^Started Ray on this node\.|\bRetrying to get node with node ID\b"
        r"|\b(?:Unable to connect to GCS|Failed to connect to GCS at address)\b|\bprocess_helper\.cc:\d{1,6}: ray start --head\b"
        r"|\bThis node has an IP address of \S+, and Ray expects\b|\bRay is trying to start at \S+, but is already"
        r"|\bSome Ray subprocesses exited unexpectedly\b|\bTo add another node to this Ray cluster\b"
        r"|^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+\s+(?:INFO|SUCC|WARN|WARNING|ERROR)\s+"
        r"(?:scripts|services|usage_lib|gcs_utils|node|resource_spec)\.py:\d+ -- "
        r"|\bThe object store is using /tmp instead of /dev/shm\b|\b(?:but we cannot find a local|while we can not f(?:i|ou)nd the matched) Raylet\b"
        r"|^Stopped (?:all|only) \d+ (?:out of \d+ )?Ray processes\b|^Did not find any active Ray processes\b"),
    starts=re.compile(r"\bLocal node IP: "),
    prelude=True,  # a raylet's retry line printed before `Local node IP` (stderr first) stays with its start
))


register(KindSpec(
    name="ray-nodes", parse=parse_ray_nodes, summarise=judge("ray", "summarise_ray_nodes"),
    line=re.compile(r"""^(?:\w{1,20}: )?\[?\{['"]NodeID['"]: ['"][0-9a-f]{8,64}['"]|^\s*NODE_ID\s+NODE_IP\s+IS_HEAD_NODE\s"""
                    r"|^(?:-\s{1,8})?node_id: [0-9a-f]{8,64}$"),  # its JSON too, and the State API's YAML
    matches_command=lambda argv: (runs_program(argv, "ray", "list") or runs_program(argv, "ray", "get")) and "nodes" in argv,
))


register(KindSpec(
    name="kubectl-pods", parse=parse_kubectl_pods, summarise=judge("ray_notes", "summarise_pods"), programs=("kubectl",),
    matches_command=lambda argv: (runs_program(argv, "kubectl", "get") or runs_program(argv, "k", "get"))  # k: its usual alias
    and any(a.startswith("po") for a in argv[2:]),
    line=re.compile(r"^(?:NAMESPACE\s+)?NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\b"
                    r"|^[a-z0-9][\w.-]*\s+\d+/\d+\s+(?:Running|Pending|ContainerCreating|Init:[\w/]+|CrashLoopBackOff"
                    r"|ImagePullBackOff|ErrImagePull|Error|Completed|OOMKilled|Terminating|Evicted)\s+\d+"),
))

register_cross_check(judge("ray", "placement_group_and_pods"), kinds=('kubectl-pods',))
