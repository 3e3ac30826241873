"""What a ping says once the rest of the paste is read beside it (for grader.judges.linktest): the interfaces that
the same host's ``ip addr`` / ``ip link`` / ``ifconfig`` show (their MTU, their addresses) decide whether ``ping: local
error: message too long, mtu=N`` is the interface's MTU or the route's (a path MTU cached from an earlier ``Frag
needed``), and whether the address pinged is this host's own (answered by its kernel, not over a link).

Sources: ip-route(8) (``ip route get`` shows a route's ``mtu`` and a cached path MTU, ``cache expires``; ``ip route
flush cache`` clears it), iputils ping.c (``local error: message too long, mtu=%u``: EMSGSIZE from the kernel, which
gives the route's path MTU), Linux's ip-sysctl.txt (packets to one of this host's own addresses are delivered through
the loopback device, whatever the state of the interface that holds the address).
"""

from __future__ import annotations

import ipaddress
import re
from functools import lru_cache
from typing import Any

from ..parsers.common import ParseError
from ..parsers.common.chunks import split_chunks
from ..parsers.iproute import parse_ip_addr
from .common import JUMBO_MTU, head_lines, info, is_loopback
from .context import context
from .model import Finding


@lru_cache(maxsize=4)
def _chunks(paste: str) -> list[Any]:
    return split_chunks(paste)


def _shown_interfaces(command: str | None) -> list[Any]:
    """The interfaces that the paste's ``ip addr``/``ip link``/``ifconfig`` outputs show on the host the ping ran on:
    a chunk whose prompt names the ping's host, or, where no prompt names one, one that names none; where the paste's
    comments (``# on the second Spark``) or ``host$`` prompts name two machines, only one said to be the ping's."""
    chunks = _chunks(context().paste or "")
    mine = next((c.host for c in chunks if command and c.command == command), None)
    labels = _machine_labels(context().paste or "")
    out: list[Any] = []
    for c in chunks:
        argv = (c.command or "").split()
        argv = argv[1:] if argv[:1] == ["sudo"] else argv
        if not argv or argv[0] not in ("ip", "ifconfig") or not c.lines:
            continue
        if c.host != mine:
            continue  # another machine's interfaces, or not known to be the ping's
        if len(set(labels.values())) > 1 and (labels.get(command or "") is None
                                              or labels.get(c.command or "") != labels.get(command or "")):
            continue  # the paste's comments or prompts put them on two machines: not known to be the ping's
        try:
            out.extend(parse_ip_addr("\n".join(c.lines)))
        except ParseError:
            continue
    return out


_MACHINE_NOTE_RE = re.compile(
    r"^\s{0,4}#{1,3}\s{0,4}(?:(?:on|from|at)\s{1,4})?(?:the\s{1,4})?(?P<l>(?:first|second|third|other|1st|2nd|3rd|head|worker|"
    r"main|remote|local)\s{1,4}(?:spark|node|host|machine|server|box)|(?:spark|node|host|machine|server)[\s_-]{0,2}"
    r"(?:\d{1,3}|[a-z])\b)[^\n]{0,80}$", re.I)
_NAME_PROMPT_RE = re.compile(r"^\s{0,4}(?:[\w.-]{1,40}@)?(?P<n>[\w.-]{1,64})(?::[~/\w.-]{0,120})?[$#]\s{1,4}(?P<cmd>\S.{0,400})$")
_BARE_PROMPT_RE = re.compile(r"^\s{0,4}[$#]\s{1,4}(?P<cmd>\S.{0,400})$")


@lru_cache(maxsize=4)
def _machine_labels(paste: str) -> dict[str, str | None]:
    """Each command line's machine, as the paste says it: a ``host$`` (``user@host:~$``) prompt's name, or the last
    comment line that names one (``# on the second Spark``, ``# spark-b``) above a bare ``$`` prompt."""
    label, out = None, {}
    for ln in head_lines(paste, 2000):
        if m := _MACHINE_NOTE_RE.match(ln):
            label = " ".join(m["l"].lower().split())
        elif m := _NAME_PROMPT_RE.match(ln):
            out.setdefault(m["cmd"].strip(), m["n"].lower())
        elif m := _BARE_PROMPT_RE.match(ln):
            out.setdefault(m["cmd"].strip(), label)
    return out


def _on_route(ifaces: list[Any], dest: str | None) -> list[Any]:
    """The interfaces whose address's subnet holds ``dest`` (the one the route leaves by), else all of them."""
    try:
        target = ipaddress.ip_address(dest or "")
    except ValueError:
        return ifaces
    hits = [i for i in ifaces for a in i.addresses
            if _network(a) is not None and target in _network(a)]  # type: ignore[operator]
    return hits or ifaces


def _network(a: Any) -> Any:
    try:
        return ipaddress.ip_interface(f"{a.local}/{a.prefixlen}").network
    except (ValueError, TypeError):
        return None


def local_refusal(r: Any, dest: str, command: str | None, size: int | None, spark: bool) -> tuple[str, str] | None:
    """For ``ping: local error: message too long, mtu=N`` (this host's kernel refused the packet: the MTU of the route
    it leaves by), where the paste shows the interfaces: ``("route", text)`` when every interface shown that could carry
    it has a larger MTU than N (so N is the route's MTU or a path MTU cached from a hop's ``Frag needed``, not the
    interface's), ``("interface", text)`` when one shown has MTU N; ``("unknown", text)`` when none is shown (the
    interface or the route: the hedge). None when the refusal is not this host's own or N is not given."""
    mtu = r.path_mtu
    if not mtu or not any(e.startswith("ping: local error") for e in r.errors):
        return None
    shown = [i for i in _on_route(_shown_interfaces(command), r.destination) if i.mtu]
    larger = [i for i in shown if i.mtu > mtu]
    packets = f"{size}-byte packets" if size else "larger packets"
    flush = (f"`ip route get {dest}` shows it (an `mtu {mtu}` on the route, or a cached one with `cache expires`): "
             f"clear a cached one with `sudo ip route flush cache`, remove an `mtu` set on the route (`ip route show`), "
             f"and check that every hop on the way carries {size or 'the packet'}")
    if shown and len(larger) == len(shown):
        names = ", ".join(f"{i.name} MTU {i.mtu}" for i in larger[:3])
        return "route", (f"This host refused {packets} itself (`ping: local error`, mtu={mtu}), yet the interface shown "
                         f"({names}) is larger: the {mtu} is the route's MTU or a path MTU the kernel cached after a "
                         f"hop's `Frag needed`, not the interface's. {flush}.")
    if shown and all(i.mtu == mtu for i in shown):  # (interfaces of several MTUs, none on the route: not decided)
        return "interface", ""
    who = "This Spark" if spark else "This host"
    raise_it = (f"set `mtu: {JUMBO_MTU}` on the twins in netplan on BOTH Sparks and run `sudo netplan apply`" if spark
                else f"raise it (and the peer's) to at least {size or 'the packet'}, or keep the payload within it "
                     f"(`-s {mtu - 28}`)")
    return "unknown", (f"{who} refused {packets} itself (`ping: local error`: with fragmenting forbidden they cannot "
                       f"leave): the MTU ({mtu}) of its route to {dest} is the outgoing interface's own or a path "
                       f"MTU cached after a hop's `Frag needed`. `ip link` shows the interface's MTU: if it is {mtu}, "
                       f"{raise_it}; if it is larger, {flush}.")


def own_address(r: Any, command: str | None) -> Finding | None:
    """An info where the pinged address is this host's own (loopback, or an address the paste's ``ip addr`` shows on
    the host that pinged): the kernel answers it through the loopback device, so the replies say nothing of a link or
    a cable. None otherwise."""
    dest = r.destination
    if not dest or not r.received:
        return None
    if is_loopback(dest):
        held = None
    else:
        held = next((i for i in _shown_interfaces(command) for a in i.addresses if a.local == dest), None)
        if held is None:
            return None
    where = (f"one of this host's own addresses ({held.name}'s"
             + (f", which is {held.operstate}" if held.operstate and held.operstate != "UP" else "") + ")"
             if held else "this host's loopback address")
    return info(f"{dest} is {where}: the kernel answers it itself, through the loopback device, so the replies "
                f"({r.received} of {r.transmitted if r.transmitted is not None else r.received}) prove nothing about "
                "a link or its cable. Ping the peer's address to test the link.")
