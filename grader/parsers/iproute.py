"""Parsers for iproute2: ``ip addr`` / ``ip link`` (JSON, text, brief); ``ip route`` is read in iproute_route."""

from __future__ import annotations

import dataclasses
import ipaddress
import re
from dataclasses import dataclass
from typing import Any

from grader.spark_names import is_qsfp_twin

from .common import (Line, ParseError, as_int, content_lines, fail_on_line, find_json_start,
                     json_dig, load_json_lenient, raise_if_shell_error)
from .iproute_route import _IP_ERROR_RE, Route, parse_ip_route_get, parse_ip_route_get_all  # noqa: F401 (ip route's)

_LINK_LOCAL_V4 = ipaddress.ip_network("169.254.0.0/16")
_LINK_LOCAL_V6 = ipaddress.ip_network("fe80::/10")
OPERSTATES = ("UP", "DOWN", "UNKNOWN", "LOWERLAYERDOWN", "DORMANT", "NOTPRESENT", "TESTING")



@dataclass(frozen=True)
class Address:
    """One IP address on an interface.

    ``family`` is ``"inet"`` or ``"inet6"``; ``local`` the address without prefix;
    ``prefixlen`` in bits; ``scope`` as ip prints it (``global``, ``link``, ``host``; for
    ``ip -br`` output, which prints no scope, derived from the address); ``label`` the
    IPv4 label (usually the interface name) or None.
    """

    family: str
    local: str
    prefixlen: int
    scope: str
    noprefixroute: bool = False
    dynamic: bool = False
    label: str | None = None
    dadfailed: bool = False  # duplicate address detection found the address in use on the link: it is never used

    @property
    def cidr(self) -> str:
        """``"192.168.100.10/24"``."""
        return f"{self.local}/{self.prefixlen}"

    @property
    def is_link_local(self) -> bool:
        """True for 169.254.0.0/16 and fe80::/10 addresses."""
        try:
            addr = ipaddress.ip_address(self.local.split("%")[0])
        except ValueError:
            return False
        return addr in (_LINK_LOCAL_V4 if addr.version == 4 else _LINK_LOCAL_V6)

    @property
    def network(self) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
        """The subnet (``192.168.100.0/24``), or None if the address does not parse."""
        try:
            return ipaddress.ip_interface(self.cidr.split("%")[0]).network
        except ValueError:
            return None


@dataclass(frozen=True)
class VirtualFunction:
    """One ``vf N`` line of ``ip link`` under an SR-IOV physical function (``vf 0     link/ether f2:3b:.. brd ..,
    spoof checking off, link-state auto, trust on``; older iproute2: ``vf 0 MAC f2:3b:..``): its index, MAC (all
    zeros: none set by the host), ``link-state`` (auto: follows the port; enable; disable: held down) and ``trust``,
    None where the line does not say."""

    index: int
    mac: str | None = None
    link_state: str | None = None
    trust: str | None = None


@dataclass(frozen=True)
class Interface:
    """One network interface as ip reports it.

    ``name`` has any ``@peer`` suffix removed (``enp1s0f1np1@if12`` -> ``enp1s0f1np1``);
    ``mtu`` in bytes; ``operstate`` as printed (``UP``, ``DOWN``, ``UNKNOWN``,
    ``LOWERLAYERDOWN``...); ``flags`` the ``<...>`` flags; ``mac`` the link-layer address;
    ``link_kind`` from ``ip -d`` (``veth``, ``bridge``...). Fields the output shape does not
    carry are None (``ip -br`` has no mtu). ``truncated`` marks the last interface of a
    cut-off paste, whose data may be incomplete. ``addresses_listed`` is False for output
    shapes that never list addresses (``ip link``, ``ip -br link``): there an empty
    ``addresses`` means "not shown", not "none". ``vfs``: the SR-IOV virtual functions listed under it
    (``vf 0     link/ether ...``), 0 when none is shown. ``rx``: ifconfig's received packets and receive errors.
    """

    name: str
    ifindex: int | None
    mtu: int | None
    operstate: str | None
    flags: tuple[str, ...]
    mac: str | None
    addresses: tuple[Address, ...]
    link_kind: str | None = None
    truncated: bool = False
    addresses_listed: bool = True
    vfs: int = 0
    rx: tuple[int, int] | None = None  # ifconfig's `RX packets N` and `RX errors N`: packets received, and in error
    tx: tuple[int, int] | None = None  # ifconfig's `TX packets N` and `TX errors N`: packets sent, and in error
    master: str | None = None  # ``master bond0``: a bond's (or bridge's) member, which holds no address of its own
    flags_cut: bool = False  # the header ends inside its ``<...>`` flags (a cut paste): which flags it has is unknown
    aliases: tuple[str, ...] = ()  # ifconfig's alias blocks under it (``eth0:0``): more addresses of the same NIC
    vf_list: tuple[VirtualFunction, ...] = ()  # the ``vf N ...`` lines under a physical function, as read

    @property
    def ipv4(self) -> tuple[Address, ...]:
        """The IPv4 (``inet``) addresses."""
        return tuple(a for a in self.addresses if a.family == "inet")

    @property
    def is_up(self) -> bool:
        """operstate UP; or, when operstate is UNKNOWN/absent, flags hold both UP and LOWER_UP."""
        if self.operstate == "UP":
            return True
        if self.operstate in (None, "UNKNOWN"):
            return "UP" in self.flags and "LOWER_UP" in self.flags
        return False


# --------------------------------------------------------------------------- ip addr / link

def parse_ip_addr(text: str) -> list[Interface]:
    """Parse ``ip addr`` / ``ip link`` output into Interfaces, in the order printed.

    Accepts ``ip -j addr`` (also ``-p`` pretty, ``-d`` details), ``ip addr`` and
    ``ip addr show IF`` text (markdown indentation allowed), ``ip -br addr``,
    ``ip -br link``, ``ip -j link``, ``ip link`` (no addresses), and net-tools' ``ifconfig`` (see
    :func:`_from_ifconfig`). Prompt, sudo and
    comment lines are skipped. A cut-off paste gives what is there, the last interface
    marked ``truncated``.

    Raises ParseError for error output (``ip: command not found``,
    ``Device "x" does not exist.``), empty input, and lines it cannot read.
    """
    lines = content_lines(text)
    raise_if_shell_error(lines, "ip addr")
    if not lines:
        raise ParseError("ip addr", "no output to read (empty paste?)")
    for line in lines:
        if _IP_ERROR_RE.match(line.text.strip()):
            raise fail_on_line("ip addr", line, f"ip reported an error: {line.text.strip()}")
    while len(lines) > 1 and _IFCONFIG_NOTE_RE.match(lines[0].text):  # net-tools 1.60's note above an IPoIB list
        lines = lines[1:]
    start = find_json_start(lines)
    if start is not None:
        return _from_json(lines[start:])
    if _HEADER_RE.match(lines[0].text):
        return _from_text(lines)
    if _BRIEF_RE.match(lines[0].text):
        return _from_brief(lines)
    if _IFCONFIG_RE.match(lines[0].text) or _OLD_IFCONFIG_RE.match(lines[0].text):
        return _from_ifconfig(lines)
    if all(_ADDR_RE.match(x.text) or _ONELINE_RE.match(x.text) for x in lines):  # `ip a | grep inet`, `ip -o -4 a`
        return _from_address_lines(lines)
    raise fail_on_line("ip addr", lines[0], "not ip addr/link output (no `N: name: <FLAGS>` "
                       "header, no `name STATE ...` brief line, no JSON, no ifconfig `name: flags=N<...>` line)")


def _up_twins(text: str | None) -> list[Interface]:
    """The QSFP twins of ``ip -j addr`` output that are up with an IPv4 address; [] when there is none
    (None: not recorded or failed) or it cannot be read."""
    if text is None:
        return []
    try:
        ifaces = parse_ip_addr(text)
    except ParseError:
        return []
    return [i for i in ifaces if is_qsfp_twin(i.name) and i.is_up and i.ipv4]


def up_twin_addresses(text: str | None) -> dict[str, str]:
    """{twin netdev: its first IPv4 address} for the QSFP twins that are up and have one, read from
    ``ip -j addr`` output; {} when there is none (None: not recorded or failed) or it cannot be read."""
    return {i.name: i.ipv4[0].local for i in _up_twins(text)}


def up_twin_cidrs(text: str | None) -> dict[str, str]:
    """{twin netdev: its first IPv4 address with its prefix, ``a.b.c.d/len``} for the QSFP twins that
    are up and have one (as :func:`up_twin_addresses`); what pairs twins by subnet across N nodes."""
    return {i.name: i.ipv4[0].cidr for i in _up_twins(text)}


def _from_json(lines: list[Line]) -> list[Interface]:
    body = "\n".join(line.text for line in lines)
    data, truncated = load_json_lenient(body, "ip -j addr", lines[0].no)
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise ParseError("ip -j addr", "expected a JSON list of interfaces")
    if truncated and data and isinstance(data[-1], dict) and "ifname" not in data[-1]:
        data = data[:-1]  # cut before its name: nothing usable
        if not data:
            raise ParseError("ip -j addr", "the JSON output is cut off before the first interface's name")
    out = []
    for i, item in enumerate(data):
        if not isinstance(item, dict) or not isinstance(item.get("ifname"), str):
            raise ParseError("ip -j addr", f"item {i} is not an interface (no ifname)",
                             str(item)[:80])
        addrs = tuple(_json_address(a) for a in item.get("addr_info") or []
                      if isinstance(a, dict) and "local" in a)
        flags = item.get("flags")
        out.append(Interface(
            name=item["ifname"].split("@")[0], ifindex=as_int(item.get("ifindex")),
            mtu=as_int(item.get("mtu")), operstate=item.get("operstate"),
            flags=tuple(str(f) for f in flags) if isinstance(flags, list) else (),
            mac=item.get("address"), addresses=addrs,
            link_kind=json_dig(item, "linkinfo", "info_kind"),
            truncated=truncated and i == len(data) - 1, addresses_listed="addr_info" in item,
            **_json_vfs(item.get("vfinfo_list"))))
    return out


def _json_vfs(vfs: Any) -> dict[str, Any]:
    """``ip -j link``'s ``vfinfo_list`` (``{"vf": 0, "address": "..", "link_state": "auto", "trust": false}``) as the
    text form's ``vf N`` lines are read."""
    def text(v: dict[str, Any], key: str) -> str | None:
        return v[key] if isinstance(v.get(key), str) else None
    read = tuple(VirtualFunction(v["vf"], text(v, "address"), text(v, "link_state"),
                                 {True: "on", False: "off"}.get(v["trust"]) if isinstance(v.get("trust"), bool) else None)
                 for v in (vfs if isinstance(vfs, list) else []) if isinstance(v, dict) and isinstance(v.get("vf"), int))
    return {"vfs": len(read), "vf_list": read} if read else {}


def _is_ip(text: str) -> bool:
    """Whether ``text`` is an IPv4 or IPv6 address (``fe80::1%eth0`` with its zone too)."""
    try:
        ipaddress.ip_address(text.split("%")[0])
    except ValueError:
        return False
    return True


def _json_address(a: dict[str, Any]) -> Address:
    if not _is_ip(str(a["local"])):
        raise ParseError("ip -j addr", f"{str(a['local'])[:40]!r} in an addr_info is not an IP address")
    return Address(family=str(a.get("family", "inet")), local=str(a["local"]),
                   prefixlen=as_int(a.get("prefixlen")) or 0, scope=str(a.get("scope", "")),
                   noprefixroute=bool(a.get("noprefixroute")), dynamic=bool(a.get("dynamic")),
                   label=a.get("label"), dadfailed=bool(a.get("dadfailed")))


_HEADER_RE = re.compile(r"^(?P<indent>\s*)(?P<idx>\d+):\s+(?P<name>[^\s:]+):\s+<(?P<flags>[^>]*)>?(?P<rest>.*)$")
_ADDR_RE = re.compile(r"^\s*(?P<fam>inet6?)\s+(?P<local>[0-9a-fA-F.:]+)(?:/(?P<plen>\d+))?(?P<rest>.*)$")
_LINK_RE = re.compile(r"^\s*link/\S+(?:\s+(?P<mac>[0-9a-fA-F:]+))?")
_VF_RE = re.compile(r"^\s+vf (?P<index>\d{1,4})\b(?:\s{1,20}(?:MAC|link/\w{1,20})\s{1,4}(?P<mac>[0-9a-fA-F:]{11,60}))?")
_VF_STATE_RE = re.compile(r"\blink-state (\w{1,12})")
_VF_TRUST_RE = re.compile(r"\btrust (on|off)\b")
_ADDR_PAIRS = {"brd", "peer", "scope", "metric", "proto", "anycast", "broadcast"}
_ADDR_FLAGS = {"noprefixroute", "dynamic", "secondary", "tentative", "deprecated", "mngtmpaddr",
               "temporary", "permanent", "dadfailed", "optimistic", "home", "nodad",
               "autojoin", "stable-privacy", "primary"}


_STATS_HEAD_RE = re.compile(r"^\s+(?P<way>[RT])X:\s{1,8}bytes\s{1,8}packets\s{1,8}errors\b")
"""``ip -s link``'s counter header (``RX:  bytes packets errors dropped  missed   mcast``; older iproute2 ``RX: bytes
packets errors dropped overrun mcast``), its figures on the next line: read into ``rx``/``tx`` as ifconfig's are."""


def _from_text(lines: list[Line]) -> list[Interface]:
    out: list[dict[str, Any]] = []
    indent = 0
    stats: str | None = None  # "rx" or "tx": the line before was `ip -s`'s header of those counters
    for pos, line in enumerate(lines):
        figures, stats = (line.text.split(), stats), None
        if figures[1] and out and len(figures[0]) >= 3 and all(x.isdigit() for x in figures[0][:3]):
            out[-1][figures[1]] = (int(figures[0][1]), int(figures[0][2]))  # (packets, errors)
            continue
        last = pos == len(lines) - 1
        header = _HEADER_RE.match(line.text)
        if header:
            rest = header.group("rest")
            mtu = re.search(r"\bmtu (\d+)", rest)
            state = re.search(r"\bstate (\S+)", rest)
            indent = len(header.group("indent"))
            out.append(dict(name=header.group("name").split("@")[0], ifindex=int(header.group("idx")),
                            mtu=int(mtu.group(1)) if mtu else None,
                            operstate=state.group(1) if state else None,
                            flags=tuple(f for f in header.group("flags").split(",") if f),
                            mac=None, addresses=[], truncated=not header.group("rest") and last, vfs=0,
                            addresses_listed=not re.search(r"\bmode \S+", rest),
                            master=(re.findall(r"\bmaster (\S+)", rest) or [None])[0],
                            flags_cut=">" not in line.text))
            continue
        if not out or len(line.text) - len(line.text.lstrip()) <= indent:
            if last:  # a cut-off first or last line
                if out:
                    out[-1]["truncated"] = True
                break
            raise fail_on_line("ip addr", line, "expected an interface header `N: name: <FLAGS> ...`"
                               " or an indented detail line")
        addr = _ADDR_RE.match(line.text)
        link = _LINK_RE.match(line.text)
        if addr:
            read = _text_address(addr, line, last)
            if read is not None:
                out[-1]["addresses"].append(read)
            if last and (addr.group("plen") is None or read is None):
                out[-1]["truncated"] = True
        elif link:
            out[-1]["mac"] = link.group("mac")
        elif head := _STATS_HEAD_RE.match(line.text):
            stats = "rx" if head["way"] == "R" else "tx"
        elif vf := _VF_RE.match(line.text):
            out[-1]["vfs"] += 1
            state, trust = _VF_STATE_RE.search(line.text), _VF_TRUST_RE.search(line.text)
            out[-1]["vf_list"] = out[-1].get("vf_list", ()) + (VirtualFunction(
                int(vf["index"]), vf["mac"], state and state.group(1), trust and trust.group(1)),)
        # other indented lines (valid_lft, altname, `ip -d` details) carry nothing we keep
    return [Interface(addresses=tuple(d.pop("addresses")), **d) for d in out]


_ONELINE_RE = re.compile(r"^\s*\d{1,6}:\s+(?P<name>[^\s:]{1,40})\s+(?P<addr>inet6?\s[^\\\n]{1,400})")
"""A line of ``ip -o addr``: ``3: enp1s0f0np0    inet 192.168.100.10/24 ... enp1s0f0np0\\       valid_lft ...``."""


def _from_address_lines(lines: list[Line]) -> list[Interface]:
    """``ip addr`` filtered to its address lines (``ip a | grep inet``): each IPv4 line ends with its interface's name
    (its label), so the addresses are read by interface; what the filter dropped (state, MTU, flags, the lines of
    IPv6 addresses, which carry no name) is unknown, so ``addresses_listed`` is False (no "no IPv4" said). ``ip -o
    addr`` prints each address on one line behind its interface's name (``\\`` where it would break the line)."""
    out: dict[str, list[Address]] = {}
    for pos, line in enumerate(lines):
        one = _ONELINE_RE.match(line.text)
        addr = _ADDR_RE.match(one["addr"] if one else line.text)
        read = _text_address(addr, line, pos == len(lines) - 1 and not one) if addr else None
        if read is not None and (read.label or one):
            out.setdefault(one["name"] if one else read.label.split(":")[0], []).append(read)
    if not out:
        raise fail_on_line("ip addr", lines[0], "address lines without the interface's name (only IPv4's carry it): "
                           "paste `ip addr` whole")
    return [Interface(name=name, ifindex=None, mtu=None, operstate=None, flags=(), mac=None, addresses=tuple(addrs),
                      addresses_listed=False) for name, addrs in out.items()]


def _text_address(m: re.Match[str], line: Line, last: bool) -> Address | None:
    tokens = m.group("rest").split()
    scope, label, flags = "", None, set()
    plen = m.group("plen")
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in _ADDR_PAIRS and i + 1 < len(tokens):
            if tok == "scope":
                scope = tokens[i + 1]
            elif tok == "peer" and plen is None and "/" in tokens[i + 1]:
                plen = tokens[i + 1].split("/")[1]
            i += 2
            continue
        if tok in _ADDR_FLAGS:
            flags.add(tok)
        elif m.group("fam") == "inet" and i == len(tokens) - 1:
            label = tok
        i += 1
    if plen is None and not last:
        raise fail_on_line("ip addr", line, "address without a /prefix length")
    if not _is_ip(m.group("local")):
        if last:  # the paste is cut inside the address (`inet 192.168.1`): no address is read from it
            return None
        raise fail_on_line("ip addr", line, f"{m.group('local')!r} is not an IP address")
    return Address(m.group("fam"), m.group("local"), int(plen or 0), scope,
                   "noprefixroute" in flags, "dynamic" in flags, label, "dadfailed" in flags)


_BRIEF_RE = re.compile(r"^\s*(?P<name>\S+)\s+(?P<state>%s)\b(?P<rest>.*)$" % "|".join(OPERSTATES))
_MAC_RE = re.compile(r"^[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5,19}$")


def _from_brief(lines: list[Line]) -> list[Interface]:
    out = []
    for pos, line in enumerate(lines):
        last = pos == len(lines) - 1
        m = _BRIEF_RE.match(line.text)
        if not m:
            if last and out:
                out[-1] = _replace_truncated(out[-1])
                break
            raise fail_on_line("ip -br addr", line, "expected `name STATE [address/prefix ...]`")
        addrs, flags, mac, cut = [], (), None, False
        tokens = m.group("rest").split()
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            if tok in ("metric", "proto") and i + 1 < len(tokens):
                i += 2
                continue
            if tok.startswith("<"):
                flags = tuple(f for f in tok.strip("<>").split(",") if f)
            elif _MAC_RE.match(tok):
                mac = tok
            else:
                addr = _brief_address(tok)
                if addr is None:
                    if not (last and i == len(tokens) - 1):
                        raise fail_on_line("ip -br addr", line, f"cannot read {tok!r} as address/prefix")
                    cut = True
                else:
                    addrs.append(addr)
            i += 1
        out.append(Interface(name=m.group("name").split("@")[0], ifindex=None, mtu=None,
                             operstate=m.group("state"), flags=flags, mac=mac, addresses=tuple(addrs),
                             truncated=cut, addresses_listed=not (flags or mac) or bool(addrs)))
    return out


_IFCONFIG_RE = re.compile(r"^(?P<name>[^\s:]++(?::\d{1,4})?):\s+flags=\d+<(?P<flags>[^>]*)>(?:\s+mtu\s+(?P<mtu>\d+))?")
_IFCONFIG_INET_RE = re.compile(r"^\s+(?P<fam>inet6?)\s+(?P<local>[0-9a-fA-F.:]+)(?:%\S+)?(?:/(?P<plen>\d+))?"
                               r"(?:\s+-->\s+\S+)?(?:\s+netmask\s+(?P<mask>\S+)|\s+prefixlen\s+(?P<prefixlen>\d+))?")
_OLD_IFCONFIG_RE = re.compile(r"^(?P<name>[^\s:]++(?::\d{1,4})?)\s+Link encap:(?P<encap>\S+(?: \S+)?)"
                              r"(?:\s+HWaddr\s+(?P<mac>[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2})+))?")
"""net-tools 1.60's header (Ubuntu up to 16.04, busybox): ``eth0      Link encap:Ethernet  HWaddr 00:11:...``."""
_OLD_IFCONFIG_FLAGS_RE = re.compile(r"^\s++(?P<flags>(?:[A-Z][A-Z0-9_-]*+ )*+)\s*+MTU:(?P<mtu>\d+)(?:\s+Metric:\d+)?\s*$")
_OLD_IFCONFIG_INET_RE = re.compile(r"^\s+inet addr:(?P<local>[\d.]+)\s.*?\bMask:(?P<mask>[\d.]+)"
                                   r"|^\s+inet6 addr: ?(?P<local6>[0-9a-fA-F:]+)/(?P<plen6>\d+)")
_IFCONFIG_NOTE_RE = re.compile(r"^(?:Infiniband hardware address can be incorrect!|Ifconfig uses the ioctl access method"
                               r"|Because Infiniband address has 20 bytes|Ifconfig is obsolete!)")
"""net-tools' notes around IPoIB interfaces (2.x's one line in the block; 1.60's three lines above the list)."""
_IFCONFIG_MAC_RE = re.compile(r"^\s+(?:ether|infiniband|unspec)\s+(?P<mac>[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2})+)")


_IFCONFIG_RX_RE = re.compile(r"^\s++(?P<way>[RT])X (?P<what>packets|errors) (?P<n>\d{1,20})\b")


def _from_ifconfig(lines: list[Line]) -> list[Interface]:
    """net-tools' ``ifconfig`` (2.x, as Ubuntu and most distributions print it): a ``name: flags=N<UP,...>  mtu N``
    line per interface, then indented ``inet A  netmask M``, ``inet6 A  prefixlen N``, ``ether MAC`` and counter
    lines. ifconfig prints no operstate: an interface is ``UP`` when its flags hold UP and RUNNING (the carrier
    iproute shows as LOWER_UP), else ``DOWN``; LOWER_UP is added to the flags when RUNNING is there, NO-CARRIER when
    UP is without it, as ip would print them. A netmask is read as its prefix length (``255.255.255.0`` is 24;
    macOS's ``0xffffff00`` too)."""
    out: list[dict[str, Any]] = []
    filtered = "|" in (lines[0].command or "")  # `ifconfig X | grep mtu`: not every line shown
    for pos, line in enumerate(lines):
        last = pos == len(lines) - 1
        if _old_ifconfig_line(out, line.text):
            continue
        head = _IFCONFIG_RE.match(line.text)
        if head and ":" in head.group("name") and out and out[-1]["name"] == head.group("name").split(":")[0]:
            out[-1]["aliases"] = out[-1].get("aliases", ()) + (head.group("name"),)
            continue  # an alias (eth0:1): its address lines below are eth0's secondary addresses
        if head:
            flags = tuple(f for f in head.group("flags").split(",") if f)
            up = "UP" in flags and "RUNNING" in flags
            out.append(dict(name=head.group("name"), ifindex=None, mtu=as_int(head.group("mtu")),
                            operstate="UP" if up else "DOWN", mac=None, addresses_listed=not filtered,
                            flags=flags + (("LOWER_UP",) if up else ("NO-CARRIER",) if "UP" in flags else ()),
                            addresses=[], truncated=last))
            continue
        if _IFCONFIG_NOTE_RE.match(line.text):
            continue
        if out and line.text.strip() == "status: inactive":  # macOS: no link
            out[-1].update(operstate="DOWN", flags=tuple(f for f in out[-1]["flags"] if f != "LOWER_UP"))
            continue
        if not out or not line.text[:1].isspace():
            if last and out:  # a cut-off last line
                out[-1]["truncated"] = True
                break
            raise fail_on_line("ifconfig", line, "expected an interface line `name: flags=N<...>  mtu N` or an "
                               "indented detail line under one")
        inet, mac = _IFCONFIG_INET_RE.match(line.text), _IFCONFIG_MAC_RE.match(line.text)
        if re.match(r"\s+inet6?\s+[.xX*]", line.text):  # `inet xx.xx.xx.193`, `inet6 ...`: a redacted address
            out[-1]["addresses_listed"] = False
            continue
        if inet:
            plen = inet.group("plen") or inet.group("prefixlen") or _mask_length(inet.group("mask"))
            read = _brief_address(f"{inet.group('local')}/{plen}") if plen is not None else None
            if read is None and not last:
                raise fail_on_line("ifconfig", line, "an address without a netmask or prefixlen that can be read")
            if read is not None:
                out[-1]["addresses"].append(read)
            else:
                out[-1]["truncated"] = True
        elif mac:
            out[-1]["mac"] = mac.group("mac").replace("-", ":").lower()
        elif (rx := _IFCONFIG_RX_RE.match(line.text)) is not None:  # `RX packets N  bytes B`, `RX errors N  dropped..`
            way = "rx" if rx.group("way") == "R" else "tx"  # (`TX packets N`, `TX errors N`: the same, sent)
            got, n = out[-1].get(way) or (0, 0), int(rx.group("n"))
            out[-1][way] = (n, got[1]) if rx.group("what") == "packets" else (got[0], n)
        # TX counters, txqueuelen, device interrupt: nothing kept
    for d in out:
        d.pop("old_format", None)
    return [Interface(addresses=tuple(d.pop("addresses")), **d) for d in out]


def _old_ifconfig_line(out: list[dict[str, Any]], text: str) -> bool:
    """Whether ``text`` is a line of net-tools 1.60's ``ifconfig`` (:data:`_OLD_IFCONFIG_RE`), read into ``out`` (the
    interfaces so far, as :func:`_from_ifconfig` keeps them): the header opens an interface (its MTU and flags
    unknown, so cut short, until the ``UP BROADCAST RUNNING MULTICAST  MTU:9000  Metric:1`` line); ``inet addr:A
    Bcast:B  Mask:M`` and ``inet6 addr: A/N Scope:S`` are its addresses. An alias (``eth0:1``) adds to its
    interface."""
    head = _OLD_IFCONFIG_RE.match(text)
    if head:
        name = head.group("name")
        if ":" in name and out and out[-1]["name"] == name.split(":")[0]:
            return True
        mac = head.group("mac")
        out.append(dict(name=name, ifindex=None, mtu=None, operstate="UNKNOWN", flags=(), addresses=[],
                        mac=mac.replace("-", ":").lower() if mac else None, addresses_listed=True, truncated=True,
                        old_format=True))
        return True
    if not out or not out[-1].get("old_format"):
        return False
    flags, inet = _OLD_IFCONFIG_FLAGS_RE.match(text), _OLD_IFCONFIG_INET_RE.match(text)
    if flags:
        named = tuple(flags.group("flags").split())
        up = "UP" in named and "RUNNING" in named
        out[-1].update(mtu=int(flags.group("mtu")), operstate="UP" if up else "DOWN", truncated=False,
                       flags=named + (("LOWER_UP",) if up else ("NO-CARRIER",) if "UP" in named else ()))
    elif inet and inet.group("local"):
        plen = _mask_length(inet.group("mask"))
        if plen is not None and (read := _brief_address(f"{inet.group('local')}/{plen}")) is not None:
            out[-1]["addresses"].append(read)
    elif inet and (read := _brief_address(f"{inet.group('local6')}/{inet.group('plen6')}")) is not None:
        out[-1]["addresses"].append(read)
    return bool(text[:1].isspace())  # RX/TX counters, Interrupt, Memory: nothing kept


def _mask_length(mask: str | None) -> str | None:
    """The prefix length of a netmask as ifconfig prints it (``255.255.128.0`` or ``0xffff8000``: 17), or None when it
    is none, or not a contiguous mask."""
    if not mask:
        return None
    try:
        value = int(mask, 16) if mask.lower().startswith("0x") else int(ipaddress.IPv4Address(mask))
    except ValueError:
        return None
    bits = f"{value:032b}"
    return str(bits.count("1")) if value < 2 ** 32 and "01" not in bits else None


def _replace_truncated(iface: Interface) -> Interface:
    return dataclasses.replace(iface, truncated=True)


def _brief_address(tok: str) -> Address | None:
    try:
        iface = ipaddress.ip_interface(tok) if "/" in tok else None
    except ValueError:
        return None
    if iface is None:
        return None
    ip = iface.ip
    if ip.is_loopback:
        scope = "host"
    elif ip.is_link_local:
        scope = "link"
    else:
        scope = "global"
    return Address("inet" if ip.version == 4 else "inet6", str(ip), iface.network.prefixlen, scope)


def shared_subnet_pairs(local: dict[str, str], peer: dict[str, str]) -> dict[str, str]:
    """{local twin: the peer's address on that twin's subnet} from ``{twin: "a.b.c.d/len"}`` of each end."""
    out = {}
    for twin, cidr in sorted(local.items()):
        net = ipaddress.ip_interface(cidr).network
        hit = next((c.split("/")[0] for _, c in sorted(peer.items()) if ipaddress.ip_interface(c).ip in net), None)
        if hit:
            out[twin] = hit
    return out
