"""Deliberate mistakes for the simulated cluster, one small named unit each.

A fault is a function that edits the healthy :class:`~grader.sim.topology.Spec` before it is built,
and changes only what its name says, so exactly one lesson-1 check should fail. Faults are applied
in the order given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from grader.sim.topology import (DEFAULT_MTU, JUMBO_MTU, LOGIN_HOME, NODES, PLAYBOOK_ADDR, QSFP_PORT, RDMA_OF,
                                 SIM_GID_INDEX, TWINS, Iface, NetplanIface, Spec, peer_of)

A, B = NODES
T1, T2 = TWINS[QSFP_PORT]  # enp1s0f1np1, enP2p1s0f1np1


@dataclass(frozen=True)
class Fault:
    """One named mistake: ``apply`` edits a topology Spec in place.

    ``serve_mode``: the ``--serve`` mode the fault belongs to (None: any); ``health_deadline_s``:
    how long ``sim up --serve`` waits for /health with this fault (None: the normal deadline). A
    fault that hangs the launch without an error sets a short one, so the sim gives up quickly and
    leaves the logs for the grader."""

    name: str
    description: str
    apply: Callable[[Spec], None]
    serve_mode: str | None = None
    health_deadline_s: float | None = None
    lesson: str = "lesson1"
    """The lesson whose checks it breaks (``clusterlab finish LESSON`` clears that lesson's faults)."""
    containers: bool = False
    """A fault of the containerised sim only (``sim up --serve ray --containers``)."""


REGISTRY: dict[str, Fault] = {}


def fault(name: str, description: str, *, serve_mode: str | None = None, health_deadline_s: float | None = None,
          lesson: str = "lesson1", containers: bool = False):
    """Register the decorated function as the fault ``name`` (see :class:`Fault` for the options)."""
    def register(fn: Callable[[Spec], None]) -> Callable[[Spec], None]:
        REGISTRY[name] = Fault(name, description, fn, serve_mode, health_deadline_s, lesson, containers)
        return fn
    return register


def _set_mtu(spec: Spec, node: str, mtu: int) -> None:
    for twin in TWINS[QSFP_PORT]:
        spec.nodes[node].ifaces[twin].mtu = mtu
    if spec.nodes[node].netplan:
        for entry in spec.nodes[node].netplan.values():
            entry.mtu = None if mtu == DEFAULT_MTU else mtu  # NVIDIA's file has no mtu key


@fault("mtu-1500", "both ends' twins at MTU 1500 (NVIDIA's netplan, no mtu key)")
def mtu_1500(spec: Spec) -> None:
    for node in NODES:
        _set_mtu(spec, node, DEFAULT_MTU)


@fault("mtu-mismatch", f"{A}'s twins at MTU {JUMBO_MTU}, {B}'s at {DEFAULT_MTU} (netplan files match)")
def mtu_mismatch(spec: Spec) -> None:
    _set_mtu(spec, A, JUMBO_MTU)
    _set_mtu(spec, B, DEFAULT_MTU)


def _readdress(spec: Spec, node: str, twin: str, addr: str) -> None:
    spec.nodes[node].ifaces[twin].addresses = [addr]
    if spec.nodes[node].netplan and twin in spec.nodes[node].netplan:
        spec.nodes[node].netplan[twin].addresses = [addr]


@fault("same-subnet", "both twins of each node in one /24 (192.168.100.10+.12 / .11+.13), netplan matching")
def same_subnet(spec: Spec) -> None:
    _readdress(spec, A, T2, "192.168.100.12/24")
    _readdress(spec, B, T2, "192.168.100.13/24")


@fault("link-local", "twins on 169.254.x.y/16 link-local addresses, no netplan file")
def link_local(spec: Spec) -> None:
    host = {A: 62, B: 63}
    for node in NODES:
        spec.nodes[node].ifaces[T1].addresses = [f"169.254.35.{host[node]}/16"]
        spec.nodes[node].ifaces[T2].addresses = [f"169.254.36.{host[node]}/16"]
        spec.nodes[node].netplan = None


@fault("no-netplan", "playbook addresses set live (ip addr add) but no /etc/netplan/40-cx7.yaml on either node")
def no_netplan(spec: Spec) -> None:
    for node in NODES:
        spec.nodes[node].netplan = None


@fault("netplan-drift", f"{B}'s netplan says 192.168.100.21/24 for {T1}; live it has 192.168.100.11/24")
def netplan_drift(spec: Spec) -> None:
    spec.nodes[B].netplan[T1].addresses = ["192.168.100.21/24"]


@fault("no-peer-key", f"{B} cannot SSH to {A}: the shared key is missing from {A}'s authorized_keys")
def no_peer_key(spec: Spec) -> None:
    spec.nodes[A].authorize_shared_key = False


@fault("one-twin-down", f"{T2} set down on {B}, so {A}'s {T2} has no carrier; addresses stay")
def one_twin_down(spec: Spec) -> None:
    spec.nodes[B].ifaces[T2].up = False


@fault("wrong-port", f"{B} is cabled on port 0: its {TWINS[0][0]}/{TWINS[0][1]} carry the .11 addresses, "
                     "its port-1 twins are down")
def wrong_port(spec: Spec) -> None:
    node = spec.nodes[B]
    for p1, p0 in zip(TWINS[1], TWINS[0]):
        addr = PLAYBOOK_ADDR[B][p1]
        node.ifaces[p0] = Iface(p0, up=True, mtu=node.ifaces[p1].mtu, addresses=[addr])
        node.ifaces[p1] = Iface(p1)
    if node.netplan is not None:
        node.netplan = {p0: NetplanIface(node.netplan[p1].addresses, node.netplan[p1].mtu)
                        for p1, p0 in zip(TWINS[1], TWINS[0])}
    spec.cables = [((A, p1), (B, p0)) for p1, p0 in zip(TWINS[1], TWINS[0])]


@fault("house-network", "each node's /etc/hosts resolves the peer's name to its enP7s7 (house) address")
def house_network(spec: Spec) -> None:
    for node in NODES:
        spec.nodes[node].peer_in_hosts = spec.nodes[peer_of(node)].house_addr


# --- lesson 2: the interface variables of the serving processes, and NCCL's transport ----------

@fault("no-ib-hca", "NCCL_IB_HCA missing from both nodes' Ray/vLLM environment", lesson="lesson2")
def no_ib_hca(spec: Spec) -> None:
    for node in NODES:
        spec.nodes[node].serve_env.pop("NCCL_IB_HCA", None)


@fault("one-hca", f"NCCL_IB_HCA names only {RDMA_OF[T1]} (one twin) on both nodes", lesson="lesson2")
def one_hca(spec: Spec) -> None:
    for node in NODES:
        spec.nodes[node].serve_env["NCCL_IB_HCA"] = RDMA_OF[T1]


@fault("wrong-gid-index", f"NCCL_IB_GID_INDEX=2 (a RoCE v1 GID) on both nodes; the RoCE v2 IPv4 GID is {SIM_GID_INDEX}", lesson="lesson2")
def wrong_gid_index(spec: Spec) -> None:
    for node in NODES:
        spec.nodes[node].serve_env["NCCL_IB_GID_INDEX"] = "2"


@fault("env-mismatch", f"{B}'s NCCL_SOCKET_IFNAME/GLOO_SOCKET_IFNAME name {T2}, {A}'s name {T1}", lesson="lesson2")
def env_mismatch(spec: Spec) -> None:
    spec.nodes[B].serve_env["NCCL_SOCKET_IFNAME"] = T2
    spec.nodes[B].serve_env["GLOO_SOCKET_IFNAME"] = T2


@fault("socket-fallback", "the head's NCCL_DEBUG=INFO log shows NCCL on NET/Socket (no usable HCA)", lesson="lesson2")
def socket_fallback(spec: Spec) -> None:
    spec.nccl_network = "Socket"


# --- lesson 2b: the launch of `vllm serve` across the two nodes (Spec.serve_args) ----------------

@fault("serve-no-ray-backend", "`vllm serve --pipeline-parallel-size 2` without --distributed-executor-backend ray: "
                               "vLLM refuses with its World size error", lesson="lesson2")
def serve_no_ray_backend(spec: Spec) -> None:
    spec.serve_args["--distributed-executor-backend"] = None


@fault("head-on-house-network", f"{A}'s Ray head is started on its enP7s7 (house) address, VLLM_HOST_IP the same "
                                "(`hostname -I | awk '{print $1}'`, as NVIDIA's run_cluster.sh does); the worker joins it there", lesson="lesson2")
def head_on_house_network(spec: Spec) -> None:
    house = spec.nodes[A].house_addr
    spec.ray_node_ip[A] = house
    if spec.nodes[A].serve_env:
        spec.nodes[A].serve_env["VLLM_HOST_IP"] = house


@fault("model-path-differs", f"{B} keeps the model in {LOGIN_HOME}/models/tiny-llama; the served path is empty there",
       lesson="lesson2")
def model_path_differs(spec: Spec) -> None:
    spec.model_elsewhere[B] = f"{LOGIN_HOME}/models/tiny-llama"


@fault("no-gloo-ifname", "GLOO_SOCKET_IFNAME missing from both nodes' Ray/vLLM environment: Gloo binds the "
                         "hostname's 127.0.1.1 and connectFullMesh is refused", lesson="lesson2")
def no_gloo_ifname(spec: Spec) -> None:
    for node in NODES:
        spec.nodes[node].serve_env.pop("GLOO_SOCKET_IFNAME", None)


@fault("gloo-wrong-iface", f"GLOO_SOCKET_IFNAME={TWINS[0][0]} (port 0's twin, not cabled, no address) on both nodes: "
                           "Gloo is 'Unable to find address for' it", lesson="lesson2")
def gloo_wrong_iface(spec: Spec) -> None:
    for node in NODES:
        spec.nodes[node].serve_env["GLOO_SOCKET_IFNAME"] = TWINS[0][0]


KV_TOO_SMALL_BYTES = 131_072
"""128 KiB of KV cache per worker: 256 tokens at 512 B per rank-token (PP=2), less than one
512-token request, so vLLM stops with its KV-too-small ValueError and an estimated max length."""


@fault("kv-too-small", f"`vllm serve --kv-cache-memory-bytes {KV_TOO_SMALL_BYTES}`: the KV cache cannot hold one "
                       "request of --max-model-len 512", lesson="lesson2")
def kv_too_small(spec: Spec) -> None:
    spec.serve_args["--kv-cache-memory-bytes"] = str(KV_TOO_SMALL_BYTES)


WRONG_WORKER_IP = "192.168.100.111"
"""A typo of spark-b's 192.168.100.11: an address no node has. `ray start` then times out registering
the node (~30 s, vllm_netns.md §2: `The current node timed out during startup`)."""


@fault("ray-wrong-node-ip", f"{B}'s `ray start` is given --node-ip-address={WRONG_WORKER_IP} (a typo, not its own "
                            "address): the worker never joins, `ray start` times out during startup", serve_mode="ray", lesson="lesson2")
def ray_wrong_node_ip(spec: Spec) -> None:
    spec.ray_node_ip[B] = WRONG_WORKER_IP


HANG_DEADLINE_S = 75.0
"""How long ``sim up --serve nnodes`` waits for /health with nnodes-no-host-ip: a healthy --nnodes start
answers in ~30 s on 2 cores (eager, the sim's vLLM plugin; ~60 s when it compiled), this one has stopped logging
after ~35 s and would wait for
VLLM_ENGINE_READY_TIMEOUT_S (600 s) before vLLM gives up (vllm_netns.md §6, F5)."""


@fault("nnodes-no-host-ip", "`vllm serve --nnodes 2` with VLLM_HOST_IP set on neither node: the leader advertises "
                            "0.0.0.0 (no default route), the other node dials itself, both wait without an error",
       serve_mode="nnodes", health_deadline_s=HANG_DEADLINE_S, lesson="lesson2")
def nnodes_no_host_ip(spec: Spec) -> None:
    for node in NODES:
        spec.nodes[node].serve_env.pop("VLLM_HOST_IP", None)


# --- lesson 2 in containers (``--serve ray --containers``, NVIDIA's run_cluster.sh way) ---------------

@fault("docker-run-no-host-ip", f"{B}'s `docker run` lacks run_cluster.sh's `-e VLLM_HOST_IP=...` ({A}'s has it): "
                                "vLLM in that node's container has no address of its own", serve_mode="ray",
       lesson="lesson2", containers=True)
def docker_run_no_host_ip(spec: Spec) -> None:
    spec.docker_run_drop_env[B] = ["VLLM_HOST_IP"]


@fault("image-without-ray", "the containers run an image without Ray (as NGC's vLLM images since vLLM dropped its "
                            "Ray dependency): `ray start` in run_cluster.sh's container fails with `ray: command not found`",
       serve_mode="ray", lesson="lesson2", containers=True)
def image_without_ray(spec: Spec) -> None:
    spec.image_tag = "noray"


def serve_requirements(names: list[str], mode: str, containers: bool = False) -> tuple[str | None, float | None]:
    """For a serve ``mode`` (in ``containers`` or not) with the faults ``names``: (a message naming the
    mode to use when a fault belongs to another mode, else None; the shortest fault-specific health
    deadline in s, or None). Unknown names are ignored here (apply_faults reports them)."""
    boxed = [REGISTRY[n] for n in names if n in REGISTRY and REGISTRY[n].containers and not containers]
    if boxed:
        return (f"fault {boxed[0].name} is a container fault: run `clusterlab sim up --fault {boxed[0].name} "
                "--serve ray --containers`"), None
    wrong = [REGISTRY[n] for n in names if n in REGISTRY and REGISTRY[n].serve_mode not in (None, mode)]
    if wrong:
        f = wrong[0]
        return (f"fault {f.name} applies to `--serve {f.serve_mode}`, not {mode}: run `clusterlab sim up --fault "
                f"{f.name} --serve {f.serve_mode}`"), None
    deadlines = [REGISTRY[n].health_deadline_s for n in names if n in REGISTRY and REGISTRY[n].health_deadline_s]
    return None, (min(deadlines) if deadlines else None)


def apply_faults(spec: Spec, names: list[str]) -> Spec:
    """A copy of ``spec`` with the named faults applied. Raises ValueError on an unknown name."""
    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        raise ValueError(f"unknown fault {', '.join(map(repr, unknown))}; known faults: "
                         f"{', '.join(REGISTRY)}")
    out = spec.copy()
    for name in dict.fromkeys(names):  # each once, in the order given
        REGISTRY[name].apply(out)
        out.faults.append(name)
    return out
