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
from grader.probes import Probe, platform, run_plan
from grader.probes.lesson1 import inventory_summary
from grader.transport import Connection

ENV_VARS = ("NCCL_SOCKET_IFNAME", "NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "NCCL_IB_DISABLE", "NCCL_NET",
            "NCCL_IB_MERGE_NICS", "GLOO_SOCKET_IFNAME", "UCX_NET_DEVICES", "OMPI_MCA_btl_tcp_if_include",
            "TP_SOCKET_IFNAME", "VLLM_HOST_IP", "MASTER_ADDR", "NCCL_DEBUG")
"""The variables that decide which interface NCCL, Gloo, UCX, Open MPI and vLLM use (procedure.md §2.3)."""

_ENV_GREP = "grep -E '^(" + "|".join(ENV_VARS) + ")='"

_NOT_SERVING = "sh|bash|dash|zsh|tail|cat|less|grep|sed|awk|pgrep|ps|timeout|sudo|ssh|sshd|tmux*|screen|watch"
"""Process names (``/proc/<pid>/comm``) that ``pgrep -f`` may match by their command line but that serve nothing."""

_EACH_SERVING_PROCESS = (
    # [r]aylet: a bracket keeps this probe's own shell out of pgrep's matches
    "me=$(readlink /proc/$$/ns/net); "
    "for p in $(pgrep -f '[r]aylet|[g]cs_server|[v]llm|[r]ay::|[d]efault_worker'); do "
    # processes of another network namespace are another machine's (the sim shares one PID space)
    "net=$(readlink /proc/$p/ns/net 2>/dev/null); [ -n \"$net\" ] && [ \"$net\" != \"$me\" ] && continue; "
    # a shell or a reader whose command line names a log (`tail ... vllm.log`, another probe running beside this
    # one) is not a serving process
    f"case \"$(cat /proc/$p/comm 2>/dev/null)\" in {_NOT_SERVING}) continue;; esac; "
)
"""The head of a loop over this node's Ray and vLLM processes (``$p``), which SERVING_ENV and SERVING_VERSIONS
share: one place decides what a serving process is."""

SERVING_ENV = (
    _EACH_SERVING_PROCESS +
    "c=$(tr '\\0' ' ' </proc/$p/cmdline 2>/dev/null | cut -c1-160); [ -n \"$c\" ] || continue; "
    # a process that ended since pgrep is gone, not another user's
    "[ -r /proc/$p/environ ] || { [ -d /proc/$p ] && echo \"=== $p unreadable $(cat /proc/$p/comm 2>/dev/null)\"; continue; }; "
    "echo \"=== $p $c\"; "
    f"tr '\\0' '\\n' </proc/$p/environ | {_ENV_GREP}; done; "
    # a user outside the docker group is refused the engine's socket: say so (the hint names usermod)
    "if command -v docker >/dev/null 2>&1; then ids=$(docker ps -q 2>&1) || { case \"$ids\" in "
    "*[Pp]ermission\\ denied*) echo \"=== docker-denied $(id -un)\";; esac; ids=; }; for c in $ids; do "
    "echo \"=== docker $c $(docker inspect -f '{{.Name}} {{.Config.Image}}' $c 2>/dev/null)\"; "
    f"docker inspect -f '{{{{range .Config.Env}}}}{{{{println .}}}}{{{{end}}}}' $c 2>/dev/null | {_ENV_GREP}; done; fi; true"
)
"""Each Ray/vLLM process (and container) as ``=== <pid> <cmdline>`` then its interface variables;
``=== docker-denied <user>`` when the Docker CLI is refused the engine's socket (not in the docker group)."""

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


RAY_STATUS = (
    "if command -v ray >/dev/null 2>&1; then ray status -v{addr} 2>&1; "
    # on a Spark, Ray runs in the vLLM container (NVIDIA's run_cluster.sh): ask the running ones
    "elif command -v docker >/dev/null 2>&1; then rc=127; ids=$(docker ps -q 2>&1) || {{ case \"$ids\" in "
    "*[Pp]ermission\\ denied*) echo \"docker ps: permission denied: $(id -un) is not in the docker group "
    "(sudo usermod -aG docker $(id -un), then log in again)\" >&2;; esac; ids=; }}; for c in $ids; do "
    "echo \"# docker exec $c ray status\"; docker exec $c ray status -v 2>&1 && {{ rc=0; break; }}; done; "
    "[ $rc = 0 ] || echo 'ray: not found on the host or in a running container' >&2; exit $rc; "
    "else echo 'ray: command not found' >&2; exit 127; fi"
)
"""``ray status -v`` on the head: on the host, else inside each running container until one answers."""

_DIST = ("for d in \"$sp\"[v]llm-*.dist-info \"$sp\"torch-*.dist-info \"$sp\"ray-*.dist-info "
         "\"$sp\"nvidia_nccl_cu*-*.dist-info; do [ -d \"$d\" ] && echo \"${d%.dist-info}\"; done | "
         "sed -e 's|.*/||' -e 's/^nvidia_nccl_cu[0-9]*-/nccl-/' -e 's/-/ /'")
"""The versions of vLLM, PyTorch, Ray and pip's NCCL in the packages folder ``$sp`` (ending in /), from their
dist-info folders' names (no Python is imported). No probe's text holds the names the serving probes look for with
``pgrep -f`` (``[v]llm``: the glob matches the same folders), or a probe running beside them would be taken for a
serving process: SERVING_ENV once read this probe's own shell as a vLLM process without interface variables."""

_IN_CONTAINER = (
    "py=$(command -v python3) || exit 0; "
    "$py -B -c \"import importlib.util as u,sys; sys.exit(0 if u.find_spec('v'+'llm') or u.find_spec('ray') else 1)\" "
    "2>/dev/null || exit 0; "
    "$py -B -c \"import site,platform; print('python',platform.python_version()); print(*site.getsitepackages(),sep=chr(10))\" "
    f"2>/dev/null | while read -r a b; do if [ \"$a\" = python ]; then echo \"python $b\"; else sp=\"$a/\"; {_DIST}; fi; done; "
    "for f in /usr/lib/*/libnccl.so.2.*; do [ -e \"$f\" ] && echo \"nccl ${f##*libnccl.so.}\"; done; true"
)
"""Inside a running container: nothing unless its python3 has vLLM or Ray; else its Python, the packages of its
site folders and the system's libnccl (NGC images build PyTorch against it)."""

SERVING_VERSIONS = (
    "mnt=$(readlink /proc/$$/ns/mnt); seen=:; " + _EACH_SERVING_PROCESS +
    "[ -r /proc/$p/maps ] || { [ -d /proc/$p ] && echo \"=== $p unreadable\"; continue; }; "
    # a container's process (another mount namespace): its files are asked through docker below
    "[ \"$(readlink /proc/$p/ns/mnt 2>/dev/null)\" = \"$mnt\" ] || continue; "
    "exe=$(readlink /proc/$p/exe 2>/dev/null); first=; "
    "for sp in $( { echo \"$exe\"; awk '{print $6}' /proc/$p/maps 2>/dev/null; } | "
    "sed -n 's#^\\(.*/\\(site\\|dist\\)-packages/\\).*#\\1#p' | sort -u); do [ -n \"$first\" ] || first=$sp; "
    f"case \"$seen\" in *\":$sp:\"*) ;; *) seen=\"$seen$sp:\"; echo \"=== $sp\"; {_DIST};; esac; done; "
    "[ -n \"$first\" ] || continue; "
    # only an interpreter's own name: raylet and gcs_server live under .../python3.X/site-packages/ and are never run
    "case \"${exe##*/}\" in python|python[0-9]*) case \"$seen\" in *\":$exe:\"*) ;; *) seen=\"$seen$exe:\"; echo \"=== $first\"; "
    "echo \"python $(\"$exe\" -B -c 'import platform; print(platform.python_version())' 2>/dev/null)\";; esac;; esac; "
    "lib=$(grep -o 'libnccl\\.so\\.[0-9][0-9.]*' /proc/$p/maps 2>/dev/null | head -n 1); "
    "[ -n \"$lib\" ] && echo \"=== $first\" && echo \"nccl ${lib#libnccl.so.}\"; done; "
    "if command -v docker >/dev/null 2>&1; then for c in $(docker ps -q 2>/dev/null); do echo \"=== docker $c\"; "
    f"docker exec $c sh -c {shlex.quote(_IN_CONTAINER)} 2>/dev/null; done; fi; true"
)
"""The serving stack's versions on this node (grader.parsers.versions): per packages folder a Ray or vLLM process
of this node maps (and the Python and libnccl of that process), per running container with vLLM or Ray, and
``=== <pid> unreadable`` for a process of another user. Read-only: dist-info names, memory maps, ``python -c``
of the interpreters already running, with -B (no .pyc written)."""

MODEL_FILES = (
    "M={model}; cd \"$M\" 2>/dev/null || {{ echo \"no directory $M\" >&2; exit 1; }}; "
    "if [ -f model.safetensors.index.json ]; then W=model.safetensors.index.json; else W=$(ls *.safetensors 2>/dev/null | head -1); fi; "
    "sha256sum config.json $W"
)
"""sha256 of config.json and the safetensors index (or the single safetensors file) at the served path."""

RAY_NODE = (
    "me=$(readlink /proc/$$/ns/net); "
    "for p in $(pgrep -f '[r]aylet|[g]cs_server'); do "
    "net=$(readlink /proc/$p/ns/net 2>/dev/null); [ -n \"$net\" ] && [ \"$net\" != \"$me\" ] && continue; "
    "echo \"=== $(cat /proc/$p/comm 2>/dev/null)\"; "
    "tr '\\0' '\\n' </proc/$p/cmdline 2>/dev/null | grep -E '^--(node[-_]ip[-_]address|gcs[-_]address)='; done; true"
)
"""This node's Ray daemons (``=== raylet``, ``=== gcs_server`` on the head) and the address each was
given: ``ray status`` of this Ray version shows no node IPs, the daemons' command lines do. In a
container with the host's network (NVIDIA's run_cluster.sh), they are visible from the host too."""

MODEL_CONFIG_BYTES = 200_000


def serve_head(inventory: Inventory) -> str:
    """The node ``vllm serve`` runs on: ``[serve] head``, else the first node."""
    if inventory.serve is not None and inventory.serve.head:
        return inventory.serve.head
    return inventory.nodes[0].name


def model_path(inventory: Inventory) -> str | None:
    """The served model as a path on the nodes (None without [serve], or for a hub name)."""
    if inventory.serve is None or not inventory.serve.model.startswith(("/", "~/")):
        return None
    return inventory.serve.model.rstrip("/") or "/"


def vllm_log_path(inventory: Inventory) -> str | None:
    if inventory.logs is not None and inventory.logs.vllm:
        return inventory.logs.vllm
    if inventory.serve is not None and inventory.serve.log_dir:
        return f"{inventory.serve.log_dir.rstrip('/')}/{serve_head(inventory)}/vllm.log"
    return None


def serve_node_probes(inventory: Inventory, node: str) -> list[Probe]:
    """Lesson 2b, every node: its Ray daemons, its serving stack's versions and the served model's files (to compare
    across nodes) and, when ``[serve] log_dir`` is set, the node's own `ray start` log ``<log_dir>/<node>/ray.log``
    (it says which --node-ip-address a node that never joined was given)."""
    if inventory.serve is None:
        return []
    model = model_path(inventory)
    probes = [Probe("ray_node", RAY_NODE), Probe("serving_versions", SERVING_VERSIONS)] + (
        [Probe("model_files", MODEL_FILES.format(model=remote_path(model)))] if model else [])
    if inventory.serve.log_dir:
        log = f"{inventory.serve.log_dir.rstrip('/')}/{node}/ray.log"
        probes.append(Probe("log:ray", f"tail -c {LOG_BYTES} {remote_path(log)}"))
    return probes


def serve_head_probes(inventory: Inventory) -> list[Probe]:
    """Lesson 2b, the head only: Ray's view, the vLLM log, config.json and /v1/models."""
    serve = inventory.serve
    if serve is None:
        return []
    addr = f" --address {shlex.quote(serve.ray_address)}" if serve is not None and serve.ray_address else ""
    probes = [Probe("ray_status", RAY_STATUS.format(addr=addr))]
    log = vllm_log_path(inventory)
    if log:
        probes.append(Probe("log:vllm", f"tail -c {LOG_BYTES} {remote_path(log)}"))
    model = model_path(inventory)
    if model:
        probes.append(Probe("model_config", f"head -c {MODEL_CONFIG_BYTES} {remote_path(model + '/config.json')}"))
    probes.append(Probe("v1_models", f"curl -sS -m 5 {shlex.quote(serve.url + '/v1/models')}"))
    return probes


def collect(inventory: Inventory, conns: dict[str, Connection], errors: dict[str, str]) -> Evidence:
    """Run the lesson-2 probes on every reachable node (logs on the head node); return the evidence."""
    ev = Evidence(lesson="lesson2", profile=inventory.profile, inventory=inventory_summary(inventory),
                  errors=errors)
    if inventory.serve is not None:
        ev.inventory["serve"] = inventory.serve.model_dump()
    head = inventory.nodes[0].name
    shead = serve_head(inventory)
    plan = {n.name: node_probes() + serve_node_probes(inventory, n.name) + (log_probes(inventory) if n.name == head else [])
            + (serve_head_probes(inventory) if n.name == shead else []) + [platform.PROBE] for n in inventory.nodes}
    ev.raw += run_plan(conns, plan, errors)
    platform.record_host_keys(ev, conns)
    ev.stamp()
    return ev
