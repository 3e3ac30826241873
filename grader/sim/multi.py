"""The simulated cluster beyond a pair (issue 18): a switch of N Sparks, or a ring of three.

``sim up --nodes N --topology switch|ring`` builds what :func:`spec_for` returns, with the faults of
:data:`FAULTS` (the ones that only exist there) applied. Nothing here touches the machine.

- **switch** (NVIDIA's multi-sparks-through-switch): N = 2..8 nodes, each with one cable in port
  :data:`~grader.sim.topology.QSFP_PORT` to the switch; the switch is a bridge per twin of the port
  (:data:`~grader.sim.topology.SWITCH_BRIDGES`), so every node's first twin is on 192.168.100.0/24 and its
  second on 192.168.101.0/24, node i at .(10 + i) (the pair's addresses, extended);
- **ring** (NVIDIA's connect-three-sparks): exactly 3 nodes, node i's port 0 cabled to node i+1's port
  1 (the last to the first), both twins of each link on a subnet of their own: link k (from 0) uses
  192.168.(100 + 2k).0/24 for the first twins and 192.168.(101 + 2k).0/24 for the second, each end at
  .(10 + its node index). One subnet per link and twin is what the ring needs (two links of a node on
  one subnet route ambiguously); the numbers are the sim's choice.

Both keep the pair's MTU 9000, netplan file and house network; each node's /etc/hosts names every
peer by its address on a subnet the two share.

``--serve ray`` runs on both (grader/sim/serve_spec.py): Ray on every node, vLLM with pipeline parallel N.
"""

from __future__ import annotations

from grader.sim import faults as _pair_faults
from grader.sim.faults import Fault
from grader.sim.topology import (ALL_TWINS, DEFAULT_MTU, HOUSE_ADDR, JUMBO_MTU, NODE_NAMES, QSFP_PORT, TWINS,
                                 Iface, NetplanIface, Node, Spec, default_spec)

TOPOLOGIES = ("pair", "switch", "ring")
MAX_NODES = len(NODE_NAMES)
RING_NODES = 3
RING_OUT_PORT, RING_IN_PORT = 0, 1
"""A ring's cabling: node i's port 0 to node i+1's port 1 (connect-three-sparks)."""


def _node(name: str, addrs: dict[str, str]) -> Node:
    """A node whose twins ``addrs`` (twin -> cidr) are up at the jumbo MTU and in netplan."""
    ifaces = {t: Iface(t) for t in ALL_TWINS}
    for twin, cidr in addrs.items():
        ifaces[twin] = Iface(twin, up=True, mtu=JUMBO_MTU, addresses=[cidr])
    netplan = {t: NetplanIface([c], JUMBO_MTU) for t, c in addrs.items()}
    return Node(name, HOUSE_ADDR[name], ifaces, netplan)


def switch_spec(n: int) -> Spec:
    """``n`` nodes through a switch, each cabled on port QSFP_PORT, healthy."""
    names = NODE_NAMES[:n]
    nodes = {}
    for i, name in enumerate(names):
        nodes[name] = _node(name, {t: f"192.168.{100 + lane}.{10 + i}/24" for lane, t in enumerate(TWINS[QSFP_PORT])})
    return Spec(nodes, [], topology="switch", switched=[(name, t) for name in names for t in TWINS[QSFP_PORT]])


def ring_link_subnets(k: int) -> tuple[str, str]:
    """The two /24 prefixes (``a.b.c``) of ring link ``k`` (from 0): one per twin."""
    return f"192.168.{100 + 2 * k}", f"192.168.{101 + 2 * k}"


def ring_spec() -> Spec:
    """Three nodes in a ring, healthy: node i port 0 -> node i+1 port 1, a subnet per link and twin."""
    names = NODE_NAMES[:RING_NODES]
    addrs: dict[str, dict[str, str]] = {n: {} for n in names}
    cables = []
    for k, a in enumerate(names):
        b = names[(k + 1) % RING_NODES]
        for lane, (out, inn) in enumerate(zip(TWINS[RING_OUT_PORT], TWINS[RING_IN_PORT])):
            net = ring_link_subnets(k)[lane]
            addrs[a][out] = f"{net}.{10 + names.index(a)}/24"
            addrs[b][inn] = f"{net}.{10 + names.index(b)}/24"
            cables.append(((a, out), (b, inn)))
    return Spec({n: _node(n, addrs[n]) for n in names}, cables, topology="ring")


def spec_for(nodes: int, topology: str) -> Spec:
    """The healthy spec of ``nodes`` nodes cabled as ``topology``. Raises ValueError naming the fix."""
    if topology not in TOPOLOGIES:
        raise ValueError(f"unknown topology {topology!r}: use one of {', '.join(TOPOLOGIES)}")
    if topology == "pair":
        if nodes != 2:
            raise ValueError(f"a pair has 2 nodes, not {nodes}: use --topology switch for {nodes}")
        return default_spec()
    if topology == "ring":
        if nodes != RING_NODES:
            raise ValueError(f"a ring has exactly {RING_NODES} nodes (connect-three-sparks), not {nodes}: "
                             "use --topology switch for another count")
        return ring_spec()
    if not 2 <= nodes <= MAX_NODES:
        raise ValueError(f"the sim's switch takes 2 to {MAX_NODES} nodes, not {nodes}")
    return switch_spec(nodes)


# --- faults that only exist beyond a pair ------------------------------------------------------

FAULTS: dict[str, Fault] = {}
"""The N-node faults (``sim up --nodes N --topology T --fault NAME``), apart from the pair's registry."""


def _fault(name: str, description: str, topology: str):
    def register(fn):
        FAULTS[name] = Fault(name, description, fn)
        FAULT_TOPOLOGY[name] = topology
        return fn
    return register


FAULT_TOPOLOGY: dict[str, str] = {}
"""fault name -> the topology it applies to."""


@_fault("switch-wrong-subnet", "the last node's twins on 192.168.102.0/24 and .103.0/24, not the switch's "
                               "192.168.100.0/24 and .101.0/24 (live and in netplan)", "switch")
def switch_wrong_subnet(spec: Spec) -> None:
    node = spec.nodes[spec.names[-1]]
    for lane, twin in enumerate(TWINS[QSFP_PORT]):
        host = node.ifaces[twin].addresses[0].split("/")[0].split(".")[-1]
        cidr = f"192.168.{102 + lane}.{host}/24"
        node.ifaces[twin].addresses = [cidr]
        node.netplan[twin].addresses = [cidr]


@_fault("switch-wrong-port", "the last node's cable in port 0 (its port-0 twins carry its switch addresses) "
                             "while the others use port 1", "switch")
def switch_wrong_port(spec: Spec) -> None:
    name = spec.names[-1]
    node = spec.nodes[name]
    for p1, p0 in zip(TWINS[1], TWINS[0]):
        node.ifaces[p0] = Iface(p0, up=True, mtu=node.ifaces[p1].mtu, addresses=list(node.ifaces[p1].addresses))
        node.ifaces[p1] = Iface(p1)
    node.netplan = {p0: node.netplan[p1] for p1, p0 in zip(TWINS[1], TWINS[0])}
    spec.switched = [(n, t) for n, t in spec.switched if n != name] + [(name, t) for t in TWINS[0]]


@_fault("ring-link-mtu-1500", "ring link 1 (the first node's port 0 to the second's port 1) at MTU 1500 at both "
                              "ends, live and in netplan (no mtu key)", "ring")
def ring_link_mtu_1500(spec: Spec) -> None:
    (a, _), (b, _) = spec.cables[0]
    for (node, twin) in [end for cable in spec.cables if cable[0][0] == a and cable[1][0] == b for end in cable]:
        spec.nodes[node].ifaces[twin].mtu = DEFAULT_MTU
        spec.nodes[node].netplan[twin].mtu = None


def apply_faults(spec: Spec, names: list[str]) -> Spec:
    """A copy of ``spec`` with the N-node faults ``names`` applied. Raises ValueError on a fault that is
    unknown or belongs to another topology."""
    out = spec.copy()
    for name in dict.fromkeys(names):
        if name not in FAULTS:
            raise ValueError(f"unknown fault {name!r} for --topology {spec.topology}; its faults: "
                             f"{', '.join(n for n, t in FAULT_TOPOLOGY.items() if t == spec.topology) or '(none)'}")
        if FAULT_TOPOLOGY[name] != spec.topology:
            raise ValueError(f"fault {name} is for --topology {FAULT_TOPOLOGY[name]}, not {spec.topology}")
        FAULTS[name].apply(out)
        out.faults.append(name)
    return out


def build_spec(nodes: int, topology: str, faults: list[str]) -> Spec:
    """The spec ``sim up`` builds: the pair with the pair's faults (grader/sim/faults.py), or ``nodes`` nodes
    cabled as ``topology`` with the N-node faults above. Raises ValueError naming the fix."""
    if topology == "pair" and nodes == 2:
        return _pair_faults.apply_faults(default_spec(), faults)
    return apply_faults(spec_for(nodes, topology), faults)
