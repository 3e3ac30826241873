"""Move the pair's QSFP cable to another port of one node (``clusterlab sim cable NODE PORT``), as a hand moves it on
two real Sparks: the cable's two lanes (one per twin: ``enp1s0f1np1`` and ``enP2p1s0f1np1`` for port 1) leave the old
port's twins, which lose their carrier, and reach the new port's, which get it. Nothing else changes: every twin keeps
its addresses, MTU and up/down setting, the peer's end stays where it is, no process is touched. The sim's cables are
veth pairs (:func:`grader.sim.cluster._build_network`); moving one is deleting the pairs of both ports' twins and
making them again the other way round, each netdev given back its settings, with the same interface indexes.

Only the pair topology has a cable to move (a switch's or a ring's ports are wired by ``sim up --topology``).
"""

from __future__ import annotations

import json

from grader.sim import topology as T
from grader.sim.host import SimError, _ip_batch, _locked, _read_state, _run


def _links(ns: str) -> dict[str, dict]:
    """The netdevs of namespace ``ns`` by name, as ``ip -j link show`` gives them."""
    out = _run(["ip", "-n", ns, "-j", "link", "show"], what=f"reading {ns}'s links").stdout
    return {link["ifname"]: link for link in json.loads(out or "[]")}


def _settings(ns: str, dev: str) -> list[str]:
    """The ``ip`` commands that give ``dev`` in ``ns`` back its MTU, addresses (IPv4, and IPv6 but the kernel's own
    link-local one) and up/down setting, after it is made again."""
    out = _run(["ip", "-n", ns, "-j", "addr", "show", "dev", dev], what=f"reading {ns}'s {dev}").stdout
    [link] = json.loads(out or "[{}]") or [{}]
    cmds = [f"link set {dev} mtu {link.get('mtu', T.DEFAULT_MTU)}"]
    for a in link.get("addr_info", []):
        if a.get("family") == "inet6" and a.get("scope") == "link":
            continue
        brd = " brd +" if a.get("family") == "inet" else ""
        cmds.append(f"addr add {a['local']}/{a['prefixlen']}{brd} dev {dev} scope {a.get('scope', 'global')}")
    if "UP" in link.get("flags", []):
        cmds.append(f"link set {dev} up")
    return cmds


def cabled_port(node: str, void: dict[str, dict]) -> int | None:
    """The port of ``node`` whose twins both lead somewhere other than the void (the cable's), or None."""
    ports = [p for p, twins in T.TWINS.items() if not any(T.void_name(node, t) in void for t in twins)]
    return ports[0] if len(ports) == 1 else None


def move(node: str, port: int) -> str:
    """Move the cable's end at ``node`` to its QSFP ``port`` (0 or 1); returns what was done, in a sentence.
    Raises SimError when the sim is not up, is not a pair, ``node`` or ``port`` is unknown, or ``ip`` refuses."""
    if port not in T.TWINS:
        raise SimError(f"a DGX Spark has QSFP ports {' and '.join(map(str, T.TWINS))}, not {port}")
    with _locked():
        state = _read_state()
        if not state.get("complete") or node not in state.get("nodes", []):
            raise SimError(f"no sim node {node!r} is up: `clusterlab sim up` first")
        if state.get("topology", "pair") != "pair":
            raise SimError("only a pair's cable moves; a switch's or a ring's ports are wired by `sim up --topology`")
        peer = next(n for n in state["nodes"] if n != node)
        void = _links(T.VOID_NS)
        here, there = cabled_port(node, void), cabled_port(peer, void)
        if here is None or there is None:
            raise SimError(f"cannot tell which port of {node} the cable is in (its veth pairs are not as `sim up` "
                           "made them): `clusterlab sim up` again")
        if here == port:
            return f"the cable is already in {node}'s port {port}"
        index = {**{(node, d): link["ifindex"] for d, link in _links(node).items()},
                 **{(peer, d): link["ifindex"] for d, link in _links(peer).items()},
                 **{(T.VOID_NS, d): link["ifindex"] for d, link in void.items()}}
        keep = {node: [c for t in T.TWINS[here] + T.TWINS[port] for c in _settings(node, t)],
                peer: [c for t in T.TWINS[there] for c in _settings(peer, t)]}
        _ip_batch([f"link del {t}" for t in T.TWINS[here] + T.TWINS[port]], node,  # a veth goes with its far end
                  what=f"unplugging the cable from {node}'s port {here}")
        cmds = []
        for old, new, far in zip(T.TWINS[here], T.TWINS[port], T.TWINS[there]):
            cmds.append(f"link add {new} index {index[(node, new)]} netns {node} type veth peer name {far} "
                        f"index {index[(peer, far)]} netns {peer}")
            void_index = index[(T.VOID_NS, T.void_name(node, new))]  # the freed far end's index, reused
            cmds.append(f"link add {old} index {index[(node, old)]} netns {node} type veth peer name "
                        f"{T.void_name(node, old)} index {void_index} netns {T.VOID_NS}")
        _ip_batch(cmds, what=f"moving the cable to {node}'s port {port}")
        for ns, again in keep.items():
            _ip_batch(again, ns, what=f"giving {ns}'s twins back their settings")
    return (f"moved the cable from {node}'s port {here} to its port {port}: {', '.join(T.TWINS[port])} now reach "
            f"{peer}'s {', '.join(T.TWINS[there])}; {', '.join(T.TWINS[here])} have no carrier. Every twin kept its "
            "addresses and MTU.")
