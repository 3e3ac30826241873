"""Parser for what a Spark cluster launcher prints about the interfaces it picked: the community launcher most Spark
pairs use (eugr/spark-vllm-docker ``launch-cluster.sh``, ``run-recipe``) autodetects them and says so::

    Auto-detecting interfaces...
      Detected IB_IF: rocep1s0f0,rocep1s0f1,roceP2p1s0f0,roceP2p1s0f1
      Detected ETH_IF: enp1s0f0np0
      Detected Local IP: 192.168.100.10 (192.168.100.10/24)
    Head Node: 192.168.100.10
    Worker Nodes: 192.168.100.11

(eugr/spark-vllm-docker issue #40, verbatim). ``IB_IF`` becomes NCCL_IB_HCA and ``ETH_IF`` the socket interface
(NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME) of every container it starts. Later versions add ``Found peer:``,
``Cluster Nodes:`` and a ``Non-mesh mode: 2 CX7 interfaces active.`` line, ``--check-config`` prints ``IB Interface:``
and ``ETH Interface:``, and ``--ib-if``/``--eth-if`` on the command line replace detection; all are read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import ParseError, content_lines, fail_on_line, strip_log_prefix

CMD = "cluster launcher"

_FIELD_RE = re.compile(r"^(?:Detected (?P<det>IB_IF|ETH_IF|Local IP)|(?P<conf>IB|ETH) Interface"
                       r"|(?P<node>Head Node|Worker Nodes|Cluster Nodes|Found peer)):[ \t]*(?P<value>\S.{0,2000})?$")
_ARG_RE = re.compile(r"(?:^|\s)--(?P<opt>ib-if|eth-if)(?:=|\s+)(?P<value>[\w.,:-]+)")
"""``--ib-if a,b`` / ``--eth-if x`` on the launcher's command line: what it uses instead of detecting."""
_MODE_RE = re.compile(r"^(?P<mode>Non-mesh|Mesh) mode\b", re.I)
_ERROR_RE = re.compile(r"^Error:[ \t]*(?P<msg>\S.{0,2000})$")
_NAMES_RE = re.compile(r"[\w.:-]+")


@dataclass(frozen=True)
class LauncherPicks:
    """What the launcher said it uses: ``ib_if`` the RDMA devices (NCCL_IB_HCA), ``eth_if`` the netdev (socket
    interface), ``local_ip`` this node's address on it (the CIDR after it, if printed, in ``local_cidr``),
    ``head``/``workers``/``cluster``/``peers`` the addresses it names, ``mode`` ``"non-mesh"``/``"mesh"`` or None,
    ``errors`` its ``Error:`` lines. None or empty where it did not say."""

    ib_if: tuple[str, ...] = ()
    eth_if: str | None = None
    local_ip: str | None = None
    local_cidr: str | None = None
    head: str | None = None
    workers: tuple[str, ...] = ()
    cluster: tuple[str, ...] = ()
    peers: tuple[str, ...] = ()
    mode: str | None = None
    errors: tuple[str, ...] = ()


def parse_launcher(text: str) -> LauncherPicks:
    """Read the launcher's lines (indented or behind a log prefix); other lines are ignored. Raises ParseError when
    none of its lines (the ones above, ``Auto-detecting interfaces...``, an ``Error:`` line) is there."""
    got: dict = {"workers": [], "cluster": [], "peers": [], "errors": []}
    seen = False
    first = None
    for line in content_lines(text):
        s = strip_log_prefix(line.text).strip()
        first = first or line
        for arg in _ARG_RE.finditer(line.command or ""):  # given on the command line: what it uses
            got.setdefault("ib_if" if arg.group("opt") == "ib-if" else "eth_if",
                           tuple(arg.group("value").split(",")) if arg.group("opt") == "ib-if" else arg.group("value"))
        m = _FIELD_RE.match(s)
        if m:
            seen = True
            value = (m.group("value") or "").strip()
            names = _NAMES_RE.findall(value)
            key = m.group("det") or m.group("node") or f"{m.group('conf')}_IF"  # "IB Interface:" of --check-config
            if key == "IB_IF":
                got["ib_if"] = tuple(n for n in names if n)
            elif key == "ETH_IF":
                got["eth_if"] = names[0] if names else None
            elif key == "Local IP":
                got["local_ip"] = names[0] if names else None
                cidr = re.search(r"\(([^\s()/]{1,64}/\d{1,3})\)", value)
                got["local_cidr"] = cidr.group(1) if cidr else None
            elif key == "Head Node":
                got["head"] = names[0] if names else None
            else:
                got[{"Worker Nodes": "workers", "Cluster Nodes": "cluster", "Found peer": "peers"}[key]] += names
            continue
        m = _MODE_RE.match(s)
        if m:
            seen, got["mode"] = True, m.group("mode").lower()
            continue
        m = _ERROR_RE.match(s)
        if m:
            got["errors"].append(m.group("msg"))
        seen = seen or bool(m) or s == "Auto-detecting interfaces..."
    if not seen:
        if first is not None:
            raise fail_on_line(CMD, first, "no launcher line found (expected `Detected IB_IF:`, `Detected ETH_IF:` "
                                           "or `Head Node:`)")
        raise ParseError(CMD, "no launcher output (the text is empty)")
    return LauncherPicks(**{k: tuple(v) if isinstance(v, list) else v for k, v in got.items()})
