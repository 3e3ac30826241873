"""Parser of iproute2's routes: ``ip route get DST`` (the route one destination takes: text or ``-j`` JSON) and the
routing table ``ip route`` prints (``default via GW dev IF ... metric N``, ``10.0.0.0/24 dev IF scope link``), one
Route per line."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from .common import ParseError, content_lines, fail_on_line, find_json_start, load_json_lenient, raise_if_shell_error

# Error lines ip prints instead of output.
_IP_ERROR_RE = re.compile(
    r'^(?:Device ".*" does not exist\.|Cannot find device ".*"|RTNETLINK answers: .*'
    r'|Error: .*|Object ".*" is unknown.*|Command ".*" is unknown.*|Option ".*" is unknown.*'
    r'|\S+: error fetching interface information: .*)$')  # (the last: ifconfig naming no such interface)


@dataclass(frozen=True)
class Route:
    """One route: what ``ip route get DST`` says (the interface ``dev``, source and gateway used), or a line of the
    table (``dst`` ``default`` or a prefix ``10.0.0.0/24``; ``metric`` and ``table`` where printed: None is the main
    table)."""

    dst: str
    dev: str
    src: str | None
    via: str | None
    metric: int | None = None
    table: str | None = None

    @property
    def in_table(self) -> bool:
        """A line of the routing table (a default route or a prefix), not the answer of ``ip route get``."""
        return self.dst == "default" or "/" in self.dst


# --------------------------------------------------------------------------- ip route get

_ROUTE_TYPES = {"local", "broadcast", "unicast", "multicast", "anycast", "unreachable",
                "prohibit", "blackhole", "throw", "nat"}


def parse_ip_route_get(text: str) -> Route:
    """Parse ``ip route get DST`` (text or ``-j`` JSON) into the Route of its first answer.

    Text: ``192.168.100.11 dev enp1s0f1np1 src 192.168.100.10 uid 0`` then ``cache``;
    ``local``/``broadcast`` route-type prefixes are skipped. Raises ParseError for
    ``RTNETLINK answers: Network is unreachable`` (message carries the reason) and other
    error or unreadable output.
    """
    routes = parse_ip_route_get_all(text)
    return routes[0]


def parse_ip_route_get_all(text: str) -> list[Route]:
    """Like parse_ip_route_get, but every route answer in the text (at least one); lines of the routing table
    (``ip route``: a ``default`` route, a prefix, ``metric N``) are read as routes too."""
    lines = content_lines(text)
    raise_if_shell_error(lines, "ip route get")
    if not lines:
        raise ParseError("ip route get", "no output to read (empty paste?)")
    for line in lines:
        s = line.text.strip()
        if s.startswith("RTNETLINK answers:") or _IP_ERROR_RE.match(s):
            reason = s.split(":", 1)[1].strip() if ":" in s else s
            raise fail_on_line("ip route get", line, f"no route: {reason}")
    start = find_json_start(lines)
    if start is not None:
        data, _ = load_json_lenient("\n".join(x.text for x in lines[start:]), "ip -j route get",
                                    lines[start].no)
        items = data if isinstance(data, list) else [data]
        routes = [Route(str(r["dst"]), str(r["dev"]), r.get("prefsrc"), r.get("gateway"),
                        r["metric"] if isinstance(r.get("metric"), int) else None, _table(r.get("table")))
                  for r in items if isinstance(r, dict) and "dst" in r and "dev" in r]
        if not routes:
            raise ParseError("ip -j route get", "JSON holds no route with dst and dev")
        return routes
    routes: list[Route] = []
    head: Route | None = None  # a multipath (ECMP) route's first line, no device: its `nexthop` lines follow
    multipath: int | None = None  # where in routes that route is, once its first next hop is read
    for line in lines:
        tokens = line.text.split()
        if tokens in (["cache"],) or (tokens and tokens[0] == "cache"):
            continue
        if tokens and tokens[0] == "nexthop":  # a next hop of the route above: it spreads traffic over them, by design
            hop = {tokens[i]: tokens[i + 1] for i in range(1, len(tokens) - 1) if tokens[i] in ("dev", "via")}
            if head is not None and "dev" in hop and multipath is None:
                routes.append(Route(head.dst, hop["dev"], None, hop.get("via"), head.metric, head.table))
                multipath = len(routes) - 1
            elif multipath is not None and "dev" in hop:  # its devices joined by "+": one route, not two that compete
                r = routes[multipath]
                routes[multipath] = Route(r.dst, f"{r.dev}+{hop['dev']}", r.src, r.via, r.metric, r.table)
            continue
        head, multipath = None, None
        if tokens and tokens[0] in _ROUTE_TYPES:
            tokens = tokens[1:]
        fields = {tokens[i]: tokens[i + 1] for i in range(1, len(tokens) - 1)
                  if tokens[i] in ("dev", "src", "via", "from", "table", "uid", "mtu", "metric")}
        if tokens and "dev" not in fields and (tokens[0] == "default" or "/" in tokens[0]):
            head = Route(tokens[0], "", None, None, _metric(fields), _table(fields.get("table")))
            continue  # a table's route with no device (`blackhole 10.0.0.0/24`, a multipath route's head line)
        if not tokens or "dev" not in fields or not _looks_like_ip(tokens[0].split("/")[0]) and tokens[0] != "default":
            raise fail_on_line("ip route", line, "expected `DST [via GW] dev IF [src ADDR]` (DST an address, a prefix "
                               "or `default`)")
        routes.append(Route(tokens[0], fields["dev"], fields.get("src"), fields.get("via"), _metric(fields),
                            _table(fields.get("table"))))
    if not routes:
        raise ParseError("ip route get", "no route line found")
    return routes


def _table(name: object) -> str | None:
    """A route's table as ``Route.table`` holds it: None for the main table (printed or not)."""
    return None if name in (None, "main") else str(name)


def _metric(fields: dict[str, str]) -> int | None:
    """A text route's ``metric N`` as a number; None where it is not printed."""
    metric = fields.get("metric", "")
    return int(metric) if metric.isdigit() else None


def _looks_like_ip(tok: str) -> bool:
    try:
        ipaddress.ip_address(tok.split("%")[0])
        return True
    except ValueError:
        return False
