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

Two other Spark launchers print the same picks in words of their own, read into the same fields: mark-ramsey-ri/
vllm-dgx-spark's ``start_cluster.sh`` banner (``Head IP:``, ``Worker Host:``/``Worker IB IP:``, ``NCCL Interface:``,
``NCCL IB HCAs:``; its issue #7), and sparkrun's ``sparkrun run`` (spark-arena/sparkrun issues #176, #208, #217:
``sparkrun v0.2.38``, ``Note: 2 nodes required, using 2 of 3 hosts``, its ``VRAM Estimation:`` block with
``Per-GPU total:`` and ``DGX Spark fit:``, ``Hosts:`` with ``Head:``/``Workers:``, and its steps ``[5/6] Launching
sglang runtime``, ``Step 4/7: Detecting head node IP``).
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
_BANNER_RE = re.compile(r"^(?P<key>Head IP|Worker Host|Worker IB IP|NCCL Interface|Primary IB IF|NCCL IB HCAs"
                        r"|Head|Workers):[ \t]*(?P<value>\S.{0,2000})?$")
"""start_cluster.sh's banner and sparkrun's ``Hosts:`` block (``Head:``, ``Workers:``)."""
_SPARKRUN_RE = re.compile(r"^sparkrun v(?P<version>\d{1,4}(?:\.\d{1,6}){1,3}\S{0,20})$")
_NOTE_RE = re.compile(r"\bNote: (?P<why>[^\n]{1,120}?), using (?P<used>\d{1,4}) of (?P<of>\d{1,4}) hosts?\b")
_ESTIMATE_RE = re.compile(r"^(?P<key>Model weights|KV cache|Tensor parallel|Per-GPU total|DGX Spark fit|Max context tokens"
                          r"|Mode):[ \t]+(?P<value>\S.{0,200})$")
_STEP_RE = re.compile(r"^(?:\[(?P<i>\d{1,3})/(?P<n>\d{1,3})\]|Step (?P<si>\d{1,3})/(?P<sn>\d{1,3}):)[ \t]*(?P<title>.{0,160})$")
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
    version: str | None = None
    """sparkrun's version (``sparkrun v0.2.38``), None for another launcher."""
    hosts_used: tuple[int, int, str] | None = None
    """(hosts used, hosts in the cluster, why) of sparkrun's ``Note: 2 nodes required, using 2 of 3 hosts``."""
    estimate: tuple[tuple[str, str], ...] = ()
    """sparkrun's VRAM estimate and run mode as printed: (``Per-GPU total``, ``36.04 GB``), (``DGX Spark fit``, ``YES``)."""
    last_step: str | None = None
    """The last step heading it printed (``[5/6] Launching sglang runtime`` / ``Step 4/7: ...``)."""
    after_step: bool = False
    """Whether any line came after that heading (a step's own output): False when the paste ends at the heading."""


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
        if got.get("last_step") is not None and s:
            got["after_step"] = True
        m = _BANNER_RE.match(s)
        if m and (m.group("key") not in ("Head", "Workers") or got.get("version")):  # sparkrun's, after its banner
            seen, key, names = True, m.group("key"), _NAMES_RE.findall(m.group("value") or "")
            if key in ("Head IP", "Head"):
                got["head"] = got.get("head") or (names[0] if names else None)
            elif key in ("Worker Host", "Worker IB IP", "Workers"):
                got["workers"] += [n for n in (names if key == "Workers" else names[:1]) if n not in got["workers"]]
            elif key == "NCCL IB HCAs":
                got["ib_if"] = tuple(n for n in (m.group("value") or "").replace(" ", "").split(",") if n)
            elif key == "NCCL Interface" or not got.get("eth_if"):
                got["eth_if"] = names[0] if names else None
            continue
        if m := _SPARKRUN_RE.match(s):
            seen, got["version"] = True, m.group("version")
            continue
        if m := _NOTE_RE.search(s):
            seen, got["hosts_used"] = True, (int(m.group("used")), int(m.group("of")), m.group("why"))
            continue
        if (m := _ESTIMATE_RE.match(s)) and got.get("version"):
            got.setdefault("estimate", []).append((m.group("key"), m.group("value").strip()))
            continue
        if (m := _STEP_RE.match(s)) and got.get("version"):
            got["last_step"], got["after_step"] = s[:200], False
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
