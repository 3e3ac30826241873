"""What `clusterlab sim up --serve` starts, as data: per node, each process's argv and environment.

Nothing here touches the machine. :func:`serve_spec` turns the cluster's topology spec and a mode
into a :class:`ServeSpec`; ``serve.py`` runs it. A future serving fault (issue 4 item 5: no Gloo
interface, the head on the house network, ...) edits a ServeSpec the way ``faults.py`` edits a
topology Spec.

The modes (research/vllm_cpu.md, vllm_netns.md):

- ``ray``: a Ray head on spark-a bound to its QSFP address, every other node joined as a worker on
  its own, one ``vllm serve --pipeline-parallel-size N --distributed-executor-backend ray`` on
  spark-a (N = the nodes of the sim: 2 for the pair, 3+ on a switch or a ring of 3); PP rank 0 runs
  on spark-a, one rank on each other node in the order Ray's placement group gives them (seen with
  3 nodes: rank 1 on spark-c as often as on spark-b). Each Ray node offers one fake GPU (``--num-gpus=1``) that the opt-in platform
  plugin (plugins/vllm-cpu-ray, ``VLLM_CPU_RAY=1``) maps vLLM's workers onto.
- ``nnodes``: vLLM's own multi-node mode, no Ray: ``--nnodes 2 --node-rank 0|1`` with
  ``--headless`` on spark-b, the mp backend, one core per node. The pair only.
- ``single``: the same model on spark-a alone, the one-machine baseline. The pair only.

Beyond a pair (grader/sim/multi.py): on a switch every node binds its port's first twin, as the pair
does. On a ring of three no twin reaches both neighbours (each link is a subnet of its own), so, as
NVIDIA's cluster script bootstraps a ring (NCCL_SOCKET_IFNAME=enP7s7, NCCL_IB_HCA all four devices;
procedure.md §1.5 e) and as lesson 2's L2.ifname_vars expects there, Ray, VLLM_HOST_IP and every interface
variable name the house network ``enP7s7`` (:func:`bind`). A real ring then moves the data over RoCE; the
CPU build has only Gloo, so on the sim's ring the activations cross the house bridge.

Every mode runs with the sim's vLLM plugin (``VLLM_CPU_RAY=1``, as in a learner's node session): eager
execution unless the command line chooses a compilation mode, ~35 s sooner a start (plugins/vllm-cpu-ray,
its platform module says what was measured).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from grader.sim import topology as T
from grader.sim.topology import Spec

MODES: tuple[str, ...] = ("ray", "nnodes", "single")
NETWORKS: tuple[str, ...] = ("qsfp", "house")
"""Which link the serving processes are bound to: the QSFP twin (the course's setup) or the house
network ``enP7s7`` (the lesson's comparison: Ray, VLLM_HOST_IP and every interface variable there, so
pipeline activations cross the shaped house link)."""
HEAD, WORKER = T.NODES
"""The pair's head and worker; beyond a pair the head is the spec's first node (``Spec.names[0]``)."""

SERVE_VENV = Path(os.environ.get("CLUSTERLAB_SERVE_VENV", "/opt/clusterlab/serve-venv"))
"""vLLM's CPU build and Ray (scripts/install-serve.sh): outside /root, which each node has its own of."""
MODEL_DIR = T.STATE_DIR / "models" / "tiny-llama"
"""The locally generated model, one path both nodes see (as on shared storage); kept across down."""
CACHE_DIR = T.STATE_DIR / "cache"
"""Per-node torch.compile / inductor caches, kept across down (a warm start is ~30 s faster)."""
RAY_DIR = T.RUN_DIR / "ray"
"""Ray's --temp-dir per node (short: Ray's socket paths must stay under 107 bytes)."""
TMP_DIR = T.RUN_DIR / "tmp"
"""Each node's TMPDIR (vLLM's ZMQ sockets, torch's FileStore); removed by down."""

SERVED_NAME = "tiny-llama"
SERVE_PORT = 8000
RAY_PORT = 6379
MASTER_PORT = 29501
MAX_MODEL_LEN = 512
KV_CACHE_BYTES = 64 * 2**20
"""KV cache per worker, little memory and a visible line. The tiny model needs 1 KiB per token
(4 layers x K,V x 2 heads x 32 x 2 bytes): one worker holds 65,536 tokens ("Maximum concurrency for
512 tokens per request: 128.00x"); with PP=2 each worker holds 2 layers, so 131,072 (256.00x). With
PP=3 the layers split [1, 2, 1] (vLLM's get_pp_indices, grader.calc.serving.pp_layers) and vLLM sizes every
worker's cache by the largest stage: 131,072 again (measured 2026-12-03 on a switch and a ring of 3)."""

IFACE_VARS: tuple[str, ...] = ("GLOO_SOCKET_IFNAME", "NCCL_SOCKET_IFNAME", "TP_SOCKET_IFNAME",
                               "UCX_NET_DEVICES", "OMPI_MCA_btl_tcp_if_include")
"""Variables that name the interface Gloo, NCCL, TensorPipe, UCX and Open MPI use: the QSFP twin.
Gloo's is the one this vLLM needs (without it Gloo binds the hostname's 127.0.1.1 and
connectFullMesh is refused); the others are set as on a real pair, for lesson 2a's checks."""

QUIET_ENV: dict[str, str] = {
    **T.OFFLINE_ENV, "TOKENIZERS_PARALLELISM": "false", "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1", "RAY_COLOR_PREFIX": "0",
    "RAY_DEDUP_LOGS": "0",
}
"""Nothing is downloaded or reported anywhere; logs are written as they happen, without colour codes, and with every
rank's lines: Ray's default drops a line that equals, but for its numbers, one printed in the last 5 s by any worker
(``[repeated 2x across cluster]``), so which rank's ``PP rank`` line the head's log kept was a race (since the eager
start, often the head's own). A learner's own Ray keeps Ray's default, as on a Spark."""


@dataclass
class Proc:
    """One command started on one node, in its namespaces, in its own process group.

    ``oneshot``: a command that starts daemons and exits (``ray start``); serve waits for it to
    exit 0. Otherwise it runs until stopped (``vllm serve``)."""

    node: str
    name: str
    argv: list[str]
    env: dict[str, str]
    log: Path
    oneshot: bool = False
    stdin: str | None = None
    label: str | None = None
    """How messages name the command (default: its first three words)."""
    """Text fed to the command's standard input (a shell script typed into ``docker exec -i ... bash``)."""


@dataclass
class ServeSpec:
    mode: str
    procs: list[Proc]
    head: str
    url: str
    """The OpenAI-compatible endpoint as the nodes see it (the head's QSFP address)."""
    host_url: str
    """The same server as this host sees it (the head's house address, over the bridge)."""
    model: str
    ray_address: str | None = None
    addresses: dict[str, str] = field(default_factory=dict)
    """node -> the QSFP address its serving processes are bound to."""
    iface: dict[str, str] = field(default_factory=dict)
    """node -> the QSFP interface those addresses are on (what IFACE_VARS name)."""

    @property
    def nodes(self) -> list[str]:
        """The nodes it serves on, the head first."""
        return list(self.addresses)


def fabric(spec: Spec, node: str) -> tuple[str, str]:
    """(interface, IPv4) of ``node``'s first cabled, addressed twin (:meth:`Spec.fabric`): what its peers
    reach it by. Raises ValueError when it has none."""
    fab = spec.fabric(node)
    if fab is None:
        raise ValueError(f"{node} has no cabled twin with an address: the serving stack needs one")
    return fab


def log_path(node: str, name: str) -> Path:
    return T.LOG_DIR / node / f"{name}.log"


def house(spec: Spec, node: str) -> tuple[str, str]:
    """(``enP7s7``, the node's house address): the house network, as :func:`fabric` gives the twin."""
    return T.HOUSE_IF, spec.nodes[node].house_addr


def iface_env(spec: Spec, node: str) -> dict[str, str]:
    """The interface variables of ``node``'s Ray and vLLM processes: the topology's own
    ``Node.serve_env`` where it has one (the pair's; lesson 2a's faults edit it), else the same variables
    for its fabric twin (:func:`~grader.sim.topology.serve_env_on`: a switch's or ring's node)."""
    own = getattr(spec.nodes[node], "serve_env", None)
    if own:
        return dict(own)
    return T.serve_env_on(spec, node)


def supported(mode: str, nodes: int, containers: bool = False) -> str | None:
    """None when ``--serve mode`` (in containers or not) runs on a sim of ``nodes`` nodes; else why not
    and what does (one line)."""
    if nodes == 2:
        return None
    if mode != "ray":
        return (f"--serve {mode} runs on the pair only; on {nodes} nodes use --serve ray "
                f"(Ray and vLLM with pipeline parallel {nodes})")
    if containers:
        return f"--containers runs on the pair only; on {nodes} nodes use --serve ray without --containers"
    return None


def bind(spec: Spec, node: str, network: str = "qsfp") -> tuple[str, str]:
    """(interface, IPv4) ``node``'s serving processes bind on ``network``: ``qsfp`` its fabric twin
    (:func:`fabric`), except on a ring, where no twin reaches both neighbours and the house network is
    used (the module's docstring); ``house``: enP7s7 everywhere."""
    if network == "house" or spec.topology == "ring":
        return house(spec, node)
    return fabric(spec, node)


def node_env(spec: Spec, node: str, network: str = "qsfp") -> dict[str, str]:
    """The environment every serving process on ``node`` starts with; with ``network="house"`` the
    interface variables name ``enP7s7`` and VLLM_HOST_IP is the node's house address."""
    env = dict(QUIET_ENV)
    env.update({
        "PATH": f"{SERVE_VENV}/bin:{T.SESSION_PATH}",
        "HOME": T.LOGIN_HOME, "USER": T.LOGIN_USER, "LOGNAME": T.LOGIN_USER,
        "TMPDIR": str(TMP_DIR / node),
        "VLLM_CACHE_ROOT": str(CACHE_DIR / node / "vllm"),
        "TORCHINDUCTOR_CACHE_DIR": str(CACHE_DIR / node / "inductor"),
        "TRITON_CACHE_DIR": str(CACHE_DIR / node / "triton"),
    })
    env.update(iface_env(spec, node))
    if network == "house":
        iface, addr = house(spec, node)
        env.update({**{var: iface for var in IFACE_VARS}, "VLLM_HOST_IP": addr})
    return env


def _vllm(*args: str) -> list[str]:
    return [str(SERVE_VENV / "bin" / "vllm"), "serve", str(MODEL_DIR), *args]


def _common_args() -> list[str]:
    return ["--served-model-name", SERVED_NAME, "--max-model-len", str(MAX_MODEL_LEN),
            "--kv-cache-memory-bytes", str(KV_CACHE_BYTES)]


def _api_args() -> list[str]:
    return ["--host", "0.0.0.0", "--port", str(SERVE_PORT)]


def with_args(argv: list[str], changes: dict[str, str | None]) -> list[str]:
    """``argv`` with each ``--option value`` of ``changes`` replaced (added when missing), or
    removed where the value is None (lesson 2b's faults: :attr:`Spec.serve_args`)."""
    out = list(argv)
    for opt, value in changes.items():
        if opt in out:
            i = out.index(opt)
            del out[i:i + 2]
        if value is not None:
            out += [opt, value]
    return out


def serve_spec(spec: Spec, mode: str = "ray", network: str = "qsfp") -> ServeSpec:
    """The processes that serve the tiny model in ``mode`` on the cluster ``spec`` describes, bound to
    ``network`` (``qsfp``: each node's cabled twin; ``house``: ``enP7s7``). Raises ValueError on an
    unknown mode or network, when a node has no addressed twin, or for a mode that runs on the pair only
    (:func:`supported`).

    The pair (``spec.names`` == T.NODES) gets what it always got; a switch or ring of N nodes gets one
    ``ray start`` per node (the head first) and ``--pipeline-parallel-size N``."""
    if mode not in MODES:
        raise ValueError(f"unknown serve mode {mode!r}; known modes: {', '.join(MODES)}")
    if network not in NETWORKS:
        raise ValueError(f"unknown serving network {network!r}; known: {', '.join(NETWORKS)}")
    names = spec.names
    why_not = supported(mode, len(names))
    if why_not:
        raise ValueError(why_not)
    head, workers = names[0], names[1:]
    fab = {n: bind(spec, n, network) for n in names}
    head_ip = fab[head][1]
    env = {n: {**node_env(spec, n, network), "VLLM_CPU_RAY": "1"} for n in names}  # the plugin, in every mode
    procs: list[Proc] = []
    ray_address = None
    ray_ip = {n: (getattr(spec, "ray_node_ip", None) or {}).get(n, fab[n][1]) for n in names}
    if mode == "ray":
        ray_address = f"{ray_ip[head]}:{RAY_PORT}"
        ray = str(SERVE_VENV / "bin" / "ray")
        node_args = ["--num-cpus=1", "--num-gpus=1", "--disable-usage-stats",
                     "--object-store-memory=100000000"]
        procs.append(Proc(head, "ray", [
            ray, "start", "--head", f"--node-ip-address={ray_ip[head]}", f"--port={RAY_PORT}",
            "--include-dashboard=false", f"--temp-dir={RAY_DIR / head[-1]}", *node_args],
            env[head], log_path(head, "ray"), oneshot=True))
        for worker in workers:
            procs.append(Proc(worker, "ray", [
                ray, "start", f"--address={ray_address}", f"--node-ip-address={ray_ip[worker]}",
                f"--temp-dir={RAY_DIR / worker[-1]}", *node_args],
                env[worker], log_path(worker, "ray"), oneshot=True))
        procs.append(Proc(head, "vllm", _vllm(
            *_common_args(), *_api_args(), "--pipeline-parallel-size", str(len(names)),
            "--distributed-executor-backend", "ray"),
            {**env[head], "RAY_ADDRESS": ray_address}, log_path(head, "vllm")))
    elif mode == "nnodes":
        multi = ["--pipeline-parallel-size", "2", "--distributed-executor-backend", "mp", "--nnodes", "2",
                 "--master-addr", head_ip, "--master-port", str(MASTER_PORT)]
        procs.append(Proc(WORKER, "vllm", _vllm(*_common_args(), *multi, "--node-rank", "1", "--headless"),
                          {**env[WORKER], "VLLM_CPU_OMP_THREADS_BIND": "1"}, log_path(WORKER, "vllm")))
        procs.append(Proc(HEAD, "vllm", _vllm(*_common_args(), *multi, "--node-rank", "0", *_api_args()),
                          {**env[HEAD], "VLLM_CPU_OMP_THREADS_BIND": "0"}, log_path(HEAD, "vllm")))
    else:
        procs.append(Proc(HEAD, "vllm", _vllm(*_common_args(), *_api_args()), env[HEAD], log_path(HEAD, "vllm")))
    changes = getattr(spec, "serve_args", None)
    if changes:
        for p in procs:
            if p.name == "vllm" and p.node == head:
                p.argv = with_args(p.argv, changes)
    return ServeSpec(mode=mode, procs=procs, head=head, url=f"http://{head_ip}:{SERVE_PORT}",
                     host_url=f"http://{spec.nodes[head].house_addr}:{SERVE_PORT}", model=str(MODEL_DIR),
                     ray_address=ray_address, addresses={n: fab[n][1] for n in names},
                     iface={n: fab[n][0] for n in names})
