"""The simulated DGX Spark pair as data: names, addresses, cabling, per-node files.

Nothing here touches the machine. :func:`default_spec` returns the cluster as NVIDIA's current
connect-two-sparks playbook leaves it (one QSFP cable in port 1, each twin in its own /24) plus the
community's MTU 9000; a fault (``faults.py``) is a small function that edits one part of that spec;
``cluster.py`` builds whatever spec it is given.

Real Spark facts this mirrors (research/procedure.md 1.1-1.4):

- each QSFP port shows as two netdevs ("twins"): port 0 ``enp1s0f0np0`` + ``enP2p1s0f0np0``,
  port 1 ``enp1s0f1np1`` + ``enP2p1s0f1np1``; RDMA names ``rocep1s0f0`` ... ``roceP2p1s0f1``;
- ``enP7s7`` is the 10 GbE management port (here: the "house network", shaped to 1 Gbit/s);
- NVIDIA's netplan file is ``/etc/netplan/40-cx7.yaml``, mode 600, statics with ``dhcp4: no``.
"""

from __future__ import annotations

import copy
import ipaddress
from dataclasses import dataclass, field
from pathlib import Path

from grader.ranges import expected_range

# --- names -------------------------------------------------------------------------------------

NODE_NAMES: tuple[str, ...] = tuple(f"spark-{c}" for c in "abcdefgh")
"""Every name a sim node may have (``sim up --nodes N`` takes the first N; grader/sim/multi.py)."""
NODES: tuple[str, str] = NODE_NAMES[:2]
"""The pair's node names: each is a network namespace, a hostname and an inventory ``name``."""

VOID_NS = "clsim-void"
"""A namespace holding the far ends of uncabled ports, so a port brought up there has no carrier."""

BRIDGE = "clsim-br0"
BRIDGE_ADDR = "10.77.7.1/24"
HOUSE_IF = "enP7s7"
HOUSE_ADDR: dict[str, str] = {n: f"10.77.7.{10 + i}" for i, n in enumerate(NODE_NAMES)}
HOUSE_PREFIX = 24
HOUSE_MTU = 1500
HOUSE_RATE = "1gbit"
HOUSE_TBF = ("rate", HOUSE_RATE, "burst", "256kb", "latency", "50ms")
HOUSE_ROOT_END: dict[str, str] = {n: f"clsim-h{n[-1]}" for n in NODE_NAMES}
"""Root-namespace ends of each node's enP7s7 veth, enslaved to the bridge."""

QSFP_PORT = 1
"""The port the sim's cable is in (the inventory's ``qsfp_port``)."""

TWINS: dict[int, tuple[str, str]] = {
    0: ("enp1s0f0np0", "enP2p1s0f0np0"),
    1: ("enp1s0f1np1", "enP2p1s0f1np1"),
}
ALL_TWINS: tuple[str, ...] = TWINS[0] + TWINS[1]

SWITCH_BRIDGES: tuple[str, str] = ("clsim-sw0", "clsim-sw1")
"""The switch of ``sim up --topology switch``: a bridge in the host per twin of the cabled port (the
first twins on one, the second on the other), each twin's subnet on its own bridge."""


def switch_lane(twin: str) -> int:
    """0 for a port's first twin (``enp1s0f*``), 1 for its second (``enP2p1s0f*``): its switch bridge."""
    return 0 if twin in (TWINS[0][0], TWINS[1][0]) else 1

RDMA_OF: dict[str, str] = {
    "enp1s0f0np0": "rocep1s0f0",
    "enp1s0f1np1": "rocep1s0f1",
    "enP2p1s0f0np0": "roceP2p1s0f0",
    "enP2p1s0f1np1": "roceP2p1s0f1",
}
"""netdev -> RDMA device, as ``ibdev2netdev`` pairs them on a real Spark (fixtures/real/spark/01_*)."""

PLAYBOOK_ADDR: dict[str, dict[str, str]] = {
    "spark-a": {"enp1s0f1np1": "192.168.100.10/24", "enP2p1s0f1np1": "192.168.101.10/24"},
    "spark-b": {"enp1s0f1np1": "192.168.100.11/24", "enP2p1s0f1np1": "192.168.101.11/24"},
}
"""NVIDIA's connect-two-sparks addresses (revision 2026-07-21): each twin in its own /24."""

IFINDEX_BASE: dict[str, int] = {**{n: 10 * (i + 1) for i, n in enumerate(NODE_NAMES)}, VOID_NS: 100}
"""Explicit interface indexes, distinct across namespaces: the kernel delays a veth's carrier
change by up to a second when its index equals its peer's (as it would with both ends created in
lockstep), and ``up`` waits for carrier before it returns."""


def void_name(node: str, iface: str) -> str:
    """The far end, in :data:`VOID_NS`, of ``node``'s uncabled ``iface`` (``b-enp1s0f0np0``; 15 characters at most,
    as a Linux interface name)."""
    return f"{node[-1]}-{iface}"[:15]


def ifindex(ns: str, iface: str) -> int:
    """The index of ``iface`` in node ``ns`` (twins in ALL_TWINS order, then enP7s7)."""
    names = (*ALL_TWINS, HOUSE_IF)
    return IFINDEX_BASE[ns] + names.index(iface)


JUMBO_MTU = int(expected_range("sim", "mtu")["min"])
"""The healthy twins' MTU: the sim profile's ``mtu`` range in checks/ranges.toml (what L1.mtu asks for)."""
DEFAULT_MTU = 1500
NETPLAN_FILE = "40-cx7.yaml"

# --- places on the host ------------------------------------------------------------------------

STATE_DIR = Path("/var/lib/clusterlab/sim")
BIN_DIR = STATE_DIR / "bin"
"""Sim-only commands (the ibdev2netdev shim), first on every SSH session's PATH."""
GRADER_KEY = STATE_DIR / "grader_ed25519"
KNOWN_HOSTS = STATE_DIR / "known_hosts"
INVENTORY = STATE_DIR / "inventory.toml"
STATE_FILE = STATE_DIR / "state.json"
KEYS_DIR = STATE_DIR / "keys"
"""Host keys and the shared cluster key; kept across ``down`` so host keys stay the same."""
NODES_DIR = STATE_DIR / "nodes"
"""``nodes/<node>/root`` and ``nodes/<node>/home``: the directories bind-mounted over /root and /home in that node
(``home/nvidia``: the login user's home)."""
RUN_DIR = STATE_DIR / "run"
LOG_DIR = STATE_DIR / "logs"
RUNTIME_PARTS: tuple[Path, ...] = (BIN_DIR, NODES_DIR, RUN_DIR, LOG_DIR, KNOWN_HOSTS, INVENTORY,
                                   STATE_FILE)
"""What ``down`` removes from the state dir (the grader key and keys/ stay)."""

ETC_NETNS = Path("/etc/netns")
NODE_BIN = "/usr/local/sbin"
"""Where a node sees the sim's commands (BIN_DIR bound there by its init): on every PATH, sudo's included."""
SESSION_PATH = f"{NODE_BIN}:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
SHARED_KEY_NAME = "id_ed25519_shared"
SHARED_KEY_COMMENT = "shared-cluster-key"


def peer_of(node: str) -> str:
    """The other node of the pair."""
    return NODES[1] if node == NODES[0] else NODES[0]


# --- the spec ----------------------------------------------------------------------------------

@dataclass
class Iface:
    """One QSFP twin on one node: admin state, MTU and addresses (``a.b.c.d/len``)."""

    name: str
    up: bool = False
    mtu: int = DEFAULT_MTU
    addresses: list[str] = field(default_factory=list)


@dataclass
class NetplanIface:
    """One ``ethernets:`` entry of a netplan file. ``mtu`` None: no mtu key (NVIDIA's layout)."""

    addresses: list[str]
    mtu: int | None = None


@dataclass
class Node:
    """Everything that differs between the two nodes."""

    name: str
    house_addr: str
    ifaces: dict[str, Iface]
    netplan: dict[str, NetplanIface] | None
    """The 40-cx7.yaml ``ethernets`` mapping; None: no netplan file."""
    peer_in_hosts: str | None = None
    """The address the PEER's name resolves to in /etc/hosts; None: the peer's first cable address."""
    authorize_shared_key: bool = True
    """Whether authorized_keys holds the shared cluster key (the grader key is always there)."""
    serve_env: dict[str, str] = field(default_factory=dict)
    """Interface variables the node's Ray and vLLM processes get (lesson 2); see :func:`serve_env`."""


@dataclass
class Spec:
    """The whole simulated cluster. ``cables``: veth pairs between nodes, ((node, if), (node, if))."""

    nodes: dict[str, Node]
    cables: list[tuple[tuple[str, str], tuple[str, str]]]
    faults: list[str] = field(default_factory=list)
    topology: str = "pair"
    """How the nodes are cabled: ``pair`` (:func:`default_spec`), ``switch`` or ``ring`` (grader/sim/multi.py)."""
    switched: list[tuple[str, str]] = field(default_factory=list)
    """(node, iface) ends cabled to the switch (a bridge per twin of the port: :data:`SWITCH_BRIDGES`)."""
    nccl_network: str = "IB"
    """What the simulated NCCL_DEBUG=INFO log on the head shows NCCL using: "IB" or "Socket"."""
    ray_node_ip: dict[str, str] = field(default_factory=dict)
    """node -> the address its ``ray start --node-ip-address`` gets instead of its QSFP address
    (the head's is also the Ray address the worker and vLLM join); lesson 2b's faults set it."""
    model_elsewhere: dict[str, str] = field(default_factory=dict)
    """node -> where that node keeps the model instead: ``serve`` copies it there and hides the
    shared path in that node's mount namespace (an empty tmpfs), as on a machine without it."""
    serve_args: dict[str, str | None] = field(default_factory=dict)
    """Options of the head's ``vllm serve`` that lesson 2b's faults change: option -> value, None
    removes it (``serve_spec`` applies them)."""
    image_tag: str = "latest"
    """The tag of clusterlab-sim-vllm the nodes' containers run (``--containers``; ``noray``: no Ray in it)."""
    docker_run_drop_env: dict[str, list[str]] = field(default_factory=dict)
    """node -> variables its ``docker run`` leaves out (a forgotten ``-e``; ``--containers`` only)."""
    start: str | None = None
    """None: the course's end state (the answer key, and the base of every fault); ``"lesson1"``: lesson 1's
    start, a new pair out of the box (:func:`lesson1_start`)."""

    def copy(self) -> "Spec":
        return copy.deepcopy(self)

    @property
    def names(self) -> list[str]:
        """The node names, in order (the first is the head)."""
        return list(self.nodes)

    def peers(self, node: str) -> list[str]:
        """The nodes ``node`` talks to: the other of a pair, every other node through a switch, both
        neighbours in a ring of 3 (which are every other node)."""
        return [n for n in self.nodes if n != node]

    def cabled(self, node: str, iface: str) -> tuple[str, str] | None:
        """The (node, iface) at the other end of ``iface``'s cable (``("switch", bridge)`` for a port
        cabled to the switch), or None if uncabled."""
        if (node, iface) in self.switched:
            return ("switch", SWITCH_BRIDGES[switch_lane(iface)])
        for a, b in self.cables:
            if a == (node, iface):
                return b
            if b == (node, iface):
                return a
        return None

    def fabric(self, node: str) -> tuple[str, str] | None:
        """(interface, IPv4) of ``node``'s first cabled, addressed twin (a cable to a peer, else a port
        on the switch): what its peers reach it by and what its serving processes bind; None if none."""
        ends = [end for a, b in self.cables for end in (a, b)] + list(self.switched)
        for name, iface in ends:
            if name == node and self.nodes[node].ifaces[iface].addresses:
                return iface, self.nodes[node].ifaces[iface].addresses[0].split("/")[0]
        return None

    def primary_address(self, node: str) -> str | None:
        """The node's address on its first cabled, addressed twin (what its peer calls it)."""
        for a, b in self.cables:
            for end in (a, b):
                if end[0] == node and self.nodes[node].ifaces[end[1]].addresses:
                    return self.nodes[node].ifaces[end[1]].addresses[0].split("/")[0]
        return None

    def hosts_peer_address(self, node: str) -> str | None:
        n = self.nodes[node]
        return n.peer_in_hosts or self.primary_address(peer_of(node))

    def address_towards(self, node: str, peer: str) -> str | None:
        """``peer``'s first twin address on a subnet one of ``node``'s twins is on (its name in
        ``node``'s /etc/hosts in a switch or ring), else ``peer``'s first cable address."""
        mine = [ipaddress.ip_interface(a).network for i in self.nodes[node].ifaces.values() for a in i.addresses]
        for i in self.nodes[peer].ifaces.values():
            for a in i.addresses:
                if any(ipaddress.ip_interface(a).ip in net for net in mine):
                    return a.split("/")[0]
        return self.primary_address(peer)

    def ssh_names(self, node: str) -> list[str]:
        """Names a node is reached by over SSH: its name, its twin addresses, its house address."""
        n = self.nodes[node]
        addrs = [a.split("/")[0] for i in n.ifaces.values() for a in i.addresses]
        return [node, *addrs, n.house_addr]


def default_spec() -> Spec:
    """The healthy cluster: port 1 cabled, playbook addresses, MTU 9000 both ends, netplan matching."""
    nodes: dict[str, Node] = {}
    for name in NODES:
        ifaces = {t: Iface(t) for t in ALL_TWINS}
        netplan: dict[str, NetplanIface] = {}
        for twin in TWINS[QSFP_PORT]:
            addr = PLAYBOOK_ADDR[name][twin]
            ifaces[twin] = Iface(twin, up=True, mtu=JUMBO_MTU, addresses=[addr])
            netplan[twin] = NetplanIface([addr], JUMBO_MTU)
        nodes[name] = Node(name, HOUSE_ADDR[name], ifaces, netplan, serve_env=serve_env(name))
    a, b = NODES
    cables = [((a, t), (b, t)) for t in TWINS[QSFP_PORT]]
    return Spec(nodes, cables)


def lesson1_start(spec: Spec) -> Spec:
    """``spec`` as a learner meets it at lesson 1's start, a new pair out of the box: the cable where the
    spec has it and its twins up, but no twin address, every twin at MTU 1500, no netplan file of ours, no
    peer in /etc/hosts, no key shared or trusted between the nodes (the grader's own key aside) and no
    known_hosts. The learner's lesson-1 commands, typed into the nodes, make the end state."""
    s = spec.copy()
    s.start = "lesson1"
    for n in s.nodes.values():
        for i in n.ifaces.values():
            i.addresses, i.mtu = [], DEFAULT_MTU
        n.netplan, n.peer_in_hosts, n.authorize_shared_key, n.serve_env = None, None, False, {}
    return s


LOGIN_USER = "nvidia"
"""The login user every sim node has, as a new Spark has the first user its owner made at setup: a home of its
own (:data:`LOGIN_HOME`), a password (:data:`LOGIN_PASSWORD`) and sudo (the ``sudo`` group; sudo asks for that
password, as on a Spark), and the ``docker`` group. The grader logs in as this user (the sim's inventory), the
learner types the lesson's commands as this user (``ssh nvidia@ADDRESS`` or ``clusterlab sim shell NODE``), and
the sim's own Ray and vLLM run as this user. Root has no password and logs in only by key."""
LOGIN_UID = 1000
"""Its uid and gid (a Spark's first user's): the host may have another user of this uid, whose name the host's
``ps`` then shows for the nodes' processes."""
LOGIN_HOME = f"/home/{LOGIN_USER}"
LOGIN_PASSWORD = "spark"
"""The password of every sim node's login user (sshd takes it as a new Spark takes its first user's), so that
``ssh-copy-id`` works as the playbook prints it and ``sudo`` asks for it. Not a secret: a node's sshd listens
only on the sim's own networks, which only this machine reaches."""


SIM_GID_INDEX = 3
"""The RoCE v2 GID index of a twin's IPv4 address in the simulated sysfs: 3, as on most Sparks
(NVIDIA performance benchmarking guide, ib_write_bw 'GID index : 3')."""


def serve_env(node: str) -> dict[str, str]:
    """The interface variables a correct setup gives the node's Ray and vLLM processes.

    All name the cabled port's first twin; NCCL_IB_HCA lists both twins' RoCE devices (the
    NVIDIA vLLM playbook's run_cluster.sh -e flags, procedure.md §2.3).
    """
    twin = TWINS[QSFP_PORT][0]
    return {
        "NCCL_SOCKET_IFNAME": twin, "GLOO_SOCKET_IFNAME": twin, "TP_SOCKET_IFNAME": twin,
        "UCX_NET_DEVICES": twin, "OMPI_MCA_btl_tcp_if_include": twin,
        "NCCL_IB_HCA": ",".join(RDMA_OF[t] for t in TWINS[QSFP_PORT]),
        "NCCL_IB_GID_INDEX": str(SIM_GID_INDEX),
        "VLLM_HOST_IP": PLAYBOOK_ADDR[node][twin].split("/")[0],
    }


def serve_env_on(spec: Spec, node: str) -> dict[str, str]:
    """:func:`serve_env` for a node of any topology (a switch or ring: grader/sim/multi.py): every
    interface variable names the node's fabric twin (:meth:`Spec.fabric`) and VLLM_HOST_IP its address;
    on a ring, where no twin reaches both neighbours, the house network ``enP7s7`` and the node's house
    address, as NVIDIA's cluster script bootstraps a ring. NCCL_IB_HCA lists the RoCE devices of its
    cabled, addressed twins (a switch: the port's two; a ring: all four, as that script). Raises
    ValueError without a fabric twin."""
    n = spec.nodes[node]
    fab = (HOUSE_IF, n.house_addr) if spec.topology == "ring" else spec.fabric(node)
    if fab is None:
        raise ValueError(f"{node} has no cabled twin with an address: the serving stack needs one")
    twin, addr = fab
    hcas = [dev for t, dev in RDMA_OF.items() if n.ifaces[t].addresses and spec.cabled(node, t)]
    return {
        "NCCL_SOCKET_IFNAME": twin, "GLOO_SOCKET_IFNAME": twin, "TP_SOCKET_IFNAME": twin,
        "UCX_NET_DEVICES": twin, "OMPI_MCA_btl_tcp_if_include": twin,
        "NCCL_IB_HCA": ",".join(hcas), "NCCL_IB_GID_INDEX": str(SIM_GID_INDEX), "VLLM_HOST_IP": addr,
    }


# --- file contents -----------------------------------------------------------------------------

def netplan_yaml(ethernets: dict[str, NetplanIface]) -> str:
    """NVIDIA's 40-cx7.yaml layout (network/version/ethernets, addresses list, dhcp4: no), + mtu."""
    lines = ["network:", "  version: 2", "  ethernets:"]
    for name, entry in ethernets.items():
        lines.append(f"    {name}:")
        lines.append("      addresses:")
        lines += [f"        - {a}" for a in entry.addresses]
        lines.append("      dhcp4: no")
        if entry.mtu is not None:
            lines.append(f"      mtu: {entry.mtu}")
    return "\n".join(lines) + "\n"


def hosts_file(spec: Spec, node: str) -> str:
    """/etc/hosts as Ubuntu writes it (own name on 127.0.1.1) plus the peer's name (every peer's, in a
    switch or ring: its address on a subnet this node shares)."""
    lines = ["127.0.0.1\tlocalhost", f"127.0.1.1\t{node}"]
    if spec.topology == "pair":
        peer_addr = spec.hosts_peer_address(node)
        if peer_addr:
            lines.append(f"{peer_addr}\t{peer_of(node)}")
    else:
        for peer in spec.peers(node):
            addr = spec.address_towards(node, peer)
            if addr:
                lines.append(f"{addr}\t{peer}")
    lines += ["", "::1\tlocalhost ip6-localhost ip6-loopback", "ff02::1\tip6-allnodes",
              "ff02::2\tip6-allrouters"]
    return "\n".join(lines) + "\n"


OFFLINE_ENV: dict[str, str] = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1",
                               "RAY_USAGE_STATS_ENABLED": "0", "DO_NOT_TRACK": "1"}
"""The sim reaches nothing outside this machine: the Hub is not asked (a model given by a path that does not
exist fails at once, saying the Hub is offline, instead of waiting on a download) and no usage is reported."""
SIM_GPU_ENV: dict[str, str] = {"RAY_OVERRIDE_RESOURCES": '{"CPU":1,"GPU":1}', "VLLM_CPU_RAY": "1"}
"""What stands in for a Spark's one GPU in a node's sessions, so Ray and vLLM launched as the course prints them
(`ray start ...`, `vllm serve ... --distributed-executor-backend ray`) behave as on a pair: Ray's own
override of a node's resources (ray/_private/ray_constants.py RESOURCES_ENVIRONMENT_VARIABLE) offers one GPU
and one core per node, as `ray status` shows on a pair ("0.0/2.0 GPU"); VLLM_CPU_RAY=1 turns on the opt-in
vLLM platform plugin (plugins/vllm-cpu-ray) that places vLLM's CPU workers on that GPU resource."""


NCCL_SIM = f"{NODE_BIN}/clsim-nccl.py"
"""grader/sim/nccl_sim.py as every node sees it (copied into the sim's bin folder): the sim's vLLM plugin loads it
to print the NCCL lines a rank launched with NCCL_DEBUG=INFO would print (``CLUSTERLAB_SIM_NCCL``)."""


def session_env(node: str) -> dict[str, str]:
    """What every session in ``node`` has in its environment (sshd's SetEnv; ``clusterlab sim shell``):
    PATH with the sim's commands first, HOME, where the simulated RDMA sysfs tree and NCCL lines
    (:data:`NCCL_SIM`) are, the sim's stand-in for the GPU (:data:`SIM_GPU_ENV`) and :data:`OFFLINE_ENV`. None of the course's own variables (NCCL's,
    Gloo's, VLLM_HOST_IP): setting those is the learner's work."""
    return {"PATH": SESSION_PATH, "HOME": LOGIN_HOME, "CLUSTERLAB_SIM_INFINIBAND": f"{NODES_DIR}/{node}/infiniband",
            "CLUSTERLAB_SIM_NCCL": NCCL_SIM, **SIM_GPU_ENV, **OFFLINE_ENV}


def _setenv_word(name: str, value: str) -> str:
    """``NAME=VALUE`` as one word of sshd_config (OpenSSH's argv_split: double quotes, backslash escapes)."""
    word = f"{name}={value}"
    if not any(c in word for c in ' "\\\''):
        return word
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def sshd_config(node: str) -> str:
    """The node's own sshd_config: :data:`LOGIN_USER` by key or by :data:`LOGIN_PASSWORD`, root by key only (as
    Ubuntu's ``prohibit-password``), sim bin dir first on PATH."""
    return f"""\
# clusterlab sim: sshd of {node} (its own network, UTS, PID and mount namespaces)
Port 22
HostKey /etc/ssh/ssh_host_ed25519_key
PidFile /run/sshd.pid
PermitRootLogin prohibit-password
PubkeyAuthentication yes
AuthorizedKeysFile .ssh/authorized_keys
PasswordAuthentication yes
KbdInteractiveAuthentication no
UsePAM no
UseDNS no
X11Forwarding no
PrintMotd no
PrintLastLog no
MaxStartups 100:30:200
MaxSessions 64
AcceptEnv LANG LC_*
SetEnv {" ".join(_setenv_word(k, v) for k, v in session_env(node).items() if k != "HOME")}
Subsystem sftp /usr/lib/openssh/sftp-server
"""


SSH_CLIENT_CONFIG = """\
# clusterlab sim: ssh client defaults of this node
Host *
    SendEnv LANG LC_*
    HashKnownHosts no
    GSSAPIAuthentication no
"""

USER_SSH_CONFIG = f"Host *\n    IdentityFile ~/.ssh/{SHARED_KEY_NAME}\n"
"""What NVIDIA's discover-sparks appends to ~/.ssh/config on every node."""

PROFILE = f"""\
# clusterlab sim: login shells reset PATH in /etc/profile; keep the sim's commands ({NODE_BIN}) on it.
case ":$PATH:" in *":{NODE_BIN}:"*) ;; *) PATH="{NODE_BIN}:$PATH" ;; esac
export PATH
"""
