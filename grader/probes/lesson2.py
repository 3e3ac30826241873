"""Lesson 2 probes: the RoCE view of each node, the interface variables of the running serving
processes, and the logs the learner names (NCCL_DEBUG=INFO, nccl-tests, ib_write_bw).

All read-only. The process environment is read from ``/proc/<pid>/environ`` of Ray and vLLM
processes (and ``docker inspect`` of running containers), filtered to the interface variables
so nothing else (tokens above all) leaves the machine.
"""

from __future__ import annotations

import shlex

from grader.evidence import Evidence
from grader.inventory import Inventory
from grader.probes import Probe, run_plan
from grader.probes.lesson1 import inventory_summary
from grader.transport import Connection

ENV_VARS = ("NCCL_SOCKET_IFNAME", "NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "NCCL_IB_DISABLE", "NCCL_NET",
            "NCCL_IB_MERGE_NICS", "GLOO_SOCKET_IFNAME", "UCX_NET_DEVICES", "OMPI_MCA_btl_tcp_if_include",
            "TP_SOCKET_IFNAME", "VLLM_HOST_IP", "MASTER_ADDR", "NCCL_DEBUG")
"""The variables that decide which interface NCCL, Gloo, UCX, Open MPI and vLLM use (procedure.md §2.3)."""

_ENV_GREP = "grep -E '^(" + "|".join(ENV_VARS) + ")='"

SERVING_ENV = (
    # [r]aylet: a bracket keeps this probe's own shell out of pgrep's matches
    "me=$(readlink /proc/$$/ns/net); "
    "for p in $(pgrep -f '[r]aylet|[g]cs_server|[v]llm|[r]ay::|[d]efault_worker'); do "
    # processes of another network namespace are another machine's (the sim shares one PID space)
    "net=$(readlink /proc/$p/ns/net 2>/dev/null); [ -n \"$net\" ] && [ \"$net\" != \"$me\" ] && continue; "
    "c=$(tr '\\0' ' ' </proc/$p/cmdline 2>/dev/null | cut -c1-160); [ -n \"$c\" ] || continue; "
    "[ -r /proc/$p/environ ] || { echo \"=== $p unreadable $(cat /proc/$p/comm 2>/dev/null)\"; continue; }; "
    "echo \"=== $p $c\"; "
    f"tr '\\0' '\\n' </proc/$p/environ | {_ENV_GREP}; done; "
    "if command -v docker >/dev/null 2>&1; then for c in $(docker ps -q 2>/dev/null); do "
    "echo \"=== docker $c $(docker inspect -f '{{.Name}} {{.Config.Image}}' $c 2>/dev/null)\"; "
    f"docker inspect -f '{{{{range .Config.Env}}}}{{{{println .}}}}{{{{end}}}}' $c 2>/dev/null | {_ENV_GREP}; done; fi; true"
)
"""Each Ray/vLLM process (and container) as ``=== <pid> <cmdline>`` then its interface variables."""

IB_SYSFS = (
    "IB=/sys/class/infiniband; [ -d \"$IB\" ] || IB=${CLUSTERLAB_SIM_INFINIBAND:-$IB}; echo \"# root $IB\"; "
    "for d in \"$IB\"/*; do [ -e \"$d\" ] || continue; "
    "echo \"device $(basename \"$d\") $(basename \"$(readlink -f \"$d/device\")\")\"; done; "
    "grep -H . \"$IB\"/*/ports/*/state \"$IB\"/*/ports/*/phys_state \"$IB\"/*/ports/*/gid_attrs/ndevs/* "
    "\"$IB\"/*/ports/*/gid_attrs/types/* \"$IB\"/*/ports/*/gids/* 2>/dev/null; true"
)
"""The RoCE sysfs tree: ``device <rdma> <pci bdf>`` lines, then ``path:value`` for state, GIDs and their types.

On the simulated cluster there is no RDMA; its nodes point ``CLUSTERLAB_SIM_INFINIBAND`` at a
tree written from a real Spark's layout, and the first line (``# root ...``) shows which was read.
"""

LOG_BYTES = 4_000_000
"""How much of the end of each named log is read (bytes)."""


def remote_path(path: str) -> str:
    """``path`` quoted for the remote shell, with a leading ``~/`` expanded there by ``$HOME``."""
    if path.startswith("~/"):
        return '"$HOME"/' + shlex.quote(path[2:])
    return shlex.quote(path)


def node_probes() -> list[Probe]:
    """What every node is asked."""
    return [
        Probe("hostname", "hostname"),
        Probe("ip_addr", "ip -j addr"),
        Probe("ibdev2netdev", "ibdev2netdev"),
        Probe("rdma_link", "rdma -j link 2>/dev/null || rdma link"),
        Probe("ib_sysfs", IB_SYSFS),
        Probe("serving_env", SERVING_ENV),
    ]


def log_probes(inventory: Inventory) -> list[Probe]:
    """Reading the logs the learner named in ``[logs]`` (on the head node)."""
    logs = inventory.logs
    if logs is None:
        return []
    probes = []
    if logs.nccl_debug:
        probes.append(Probe("log:nccl_debug", f"tail -c {LOG_BYTES} {remote_path(logs.nccl_debug)}"))
    if logs.nccl_tests:
        probes.append(Probe("log:nccl_tests", f"tail -c {LOG_BYTES} {remote_path(logs.nccl_tests)}"))
    for i, p in enumerate(logs.ib_write_bw):
        probes.append(Probe(f"log:ib_write_bw:{i}", f"tail -c {LOG_BYTES} {remote_path(p)}"))
    return probes


def collect(inventory: Inventory, conns: dict[str, Connection], errors: dict[str, str]) -> Evidence:
    """Run the lesson-2 probes on every reachable node (logs on the head node); return the evidence."""
    ev = Evidence(lesson="lesson2", profile=inventory.profile, inventory=inventory_summary(inventory),
                  errors=errors)
    head = inventory.nodes[0].name
    plan = {n.name: node_probes() + (log_probes(inventory) if n.name == head else []) for n in inventory.nodes}
    ev.raw += run_plan(conns, plan, errors)
    ev.stamp()
    return ev
