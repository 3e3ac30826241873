"""Parser for ``ray status`` (and ``ray status -v``): nodes, resources, pending demands.

Shapes read (Ray's autoscaler ``format_info_string`` as printed by Ray 2.x; sources:
ray-project/ray python/ray/autoscaler/_private/util.py and autoscaler/v2/utils.py, and the real
output in shared/fixtures/real/spark/12_*; docs/research/procedure.md §3.6)::

    ======== Autoscaler status: 2026-04-19 17:08:02.711002 ========   (Ray 1.x: "Cluster status:")
    GCS request time: 0.001s                 (-v only)
    Node status
    ---------------------------------------------------------------
    Active:                                  (older Ray: "Healthy:")
     1 node_83e4b772...                      (count, then node id or node type name)
    Idle:                                    (autoscaler v2 only)
     (no idle nodes)
    Pending:
     (no pending nodes) | ray.worker.gpu, 1 launching | 192.168.1.5: ray.worker.gpu, setting-up
    Recent failures:
     (no failures) | ray.worker.gpu: NodeTerminated (ip: 192.168.1.5)

    Resources
    ---------------------------------------------------------------
    Total Usage:                             (older / non-verbose: "Usage:")
     0.0/40.0 CPU
     2.0/2.0 GPU (2.0 used of 2.0 reserved in placement groups)
     0B/221.76GiB memory
     0B/19.46GiB object_store_memory
    From request_resources:                  (older: "Total Constraints:")
     (none)
    Pending Demands:                         (older: "Demands:" / "Total Demands:")
     (no resource demands) | {'GPU': 1.0}: 1+ pending tasks/actors
     | {'GPU': 1.0} * 2 (PACK): 1+ pending placement groups

    Node: node_83e4...  [(ray.head.default)] (-v: one block per node)
     Usage:
      0.0/20.0 CPU
     Activity:
      (no activity)

Ray 1.x lists nodes by their resources under ``Node status``: `` 1 node(s) with resources: {'CPU': 80.0,
'node:10.0.0.5': 1.0, ...}`` (read as active nodes, the IP from the ``node:`` key).

An excerpt of resource lines alone (``ray status | grep GPU``) is read as the usage block and
flagged ``excerpt``.

Units: CPU and GPU counts as printed (floats). ``memory`` and ``object_store_memory`` (and any
value printed with a unit) in **bytes**: Ray prints binary units (``KiB`` = 2**10, ``GiB`` =
2**30, Ray's format_memory); decimal units (``KB``, ``GB`` = 1e9), if a build prints them, are
read as decimal.
"""

from __future__ import annotations

import ast
import ipaddress
import re
from dataclasses import dataclass, field

from .common import BYTE_UNITS, Line, ParseError, content_lines, fail_on_line, raise_if_shell_error

COMMAND = "ray status"

_HEADER_RE = re.compile(r"^=+\s*(?:Autoscaler|Cluster Scaler|Cluster) status:?\s*(?P<rest>.*)$")  # see _header_ts
_SECTION_RE = re.compile(
    r"^(?P<name>Node status|Resources|Healthy|Active|Idle|Pending|Recent failures|Total Usage|Usage"
    r"|From request_resources|Total Constraints|Constraints|Pending Demands|Total Demands|Demands"
    r"|Activity|Is Idle)\s*+:?\s*+$")
_NODE_BLOCK_RE = re.compile(r"^Node:\s*(?P<id>\S+)(?:\s+\((?P<extra>[^)]*)\))?\s*$")
_ACTIVITY_RE = re.compile(r"^(?:Resource: |Busy workers on node|\(no activity\)|.*\b(?:in use|running)\b)")
_NONE_RE = re.compile(r"^\((?:no [\w ()_]+|none|unavailable[\w ]*)\)$", re.I)
_TIMING_RE = re.compile(r"^(?:GCS request time|Node Provider non_terminated_nodes time|Autoscaler iteration time):")
_NUM = r"\d+(?:\.\d+)?(?:[eE][+-]?\d+)?"
_UNIT = r"(?:[KMGTP]i?B|B)"
_RESOURCE_RE = re.compile(
    rf"^(?P<used>-?{_NUM})\s*(?P<uu>{_UNIT})?\s*/\s*(?P<total>{_NUM})\s*(?P<tu>{_UNIT})?\s+(?P<name>[^\s(]+)"
    rf"(?:\s+\((?P<pgused>{_NUM})\s*(?P<pguu>{_UNIT})?\s+used of\s+(?P<pgtotal>{_NUM})\s*(?P<pgtu>{_UNIT})?"
    r"\s+reserved in placement groups\))?\s*$")
_TOTAL_RE = re.compile(rf"^(?P<total>{_NUM})\s*(?P<tu>{_UNIT})?\s+(?P<name>CPU|GPU|memory|object_store_memory)$")
"""A resource's total alone (`` 2.0 GPU``), as a person shortens the usage block by hand."""
_COUNT_RE = re.compile(r"^(?P<count>\d+)\s+(?P<name>[A-Za-z][\w.:-]*)(?P<rest>(?:\s.*)?)$")
# Ray 1.x's node list: " 2 node(s) with resources: {'CPU': 80.0, 'node:10.0.0.5': 1.0, ...}"
_OLD_NODES_RE = re.compile(r"^(?P<count>\d+)\s+node\(s\) with resources:\s*(?P<res>\{.*\})\s*$")
_WRAPPED_TAILS = ("placement groups", "tasks/actors")
"""The last words of a demand line (``... : 1+ pending placement groups``) that a terminal can wrap onto a line."""
_DEMAND_RE = re.compile(r"^\{.*\}.*:\s*\d+\+?\s+(?:pending|from request_resources)")
_LAUNCHING_RE = re.compile(r"^(?P<name>[^,\s]+),\s*(?P<count>\d+)\s+launching\s*$")
_PENDING_IP_RE = re.compile(r"^(?P<ip>[^:\s]+):\s*(?P<name>[^,]+),\s*(?P<status>.+)$")
_FAILURE_RE = re.compile(r"^(?P<name>[^:\s]+):\s*(?P<what>[\w-]+)(?:\s+\((?P<detail>[^)]*)\))?(?P<rest>.*)$")
_IPV4_RE = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")
_NOT_RUNNING_RE = re.compile(
    r"Could not find any running Ray instance|Could not connect to (?:the )?Ray|Failed to connect to GCS"
    r"|ConnectionError:|Unable to connect to GCS", re.I)

_MEMORY_NAMES = ("memory", "object_store_memory")


@dataclass(frozen=True)
class RayNode:
    """One entry of the node lists.

    ``node_id`` as printed: a Ray node id (``node_<56 hex>``) on clusters started by hand, or a
    node type name (``ray.head.default``) on autoscaled clusters; for pending nodes the node
    type. ``ip`` when the line shows one (pending and failed entries, ``-v`` blocks), else None.
    ``count`` is how many nodes the line stands for (Ray groups active nodes by type: `` 2
    ray.worker.gpu`` is two nodes). ``status`` for pending (``launching``, ``setting-up``...) and
    failed (``NodeTerminated``, ``LaunchFailed``...) entries, else None.
    """

    node_id: str
    ip: str | None = None
    count: int = 1
    status: str | None = None


@dataclass(frozen=True)
class NodeUsage:
    """One ``Node:`` block of ``ray status -v``.

    ``node_id`` as printed after ``Node:`` (a node id, or an IP on older Ray); ``ip`` that IP
    when it is one, or the IP in the parenthesis; ``node_type`` the parenthesised node type
    name, if any; ``resources`` as in RayStatus.resources; ``activity`` the lines under
    ``Activity:``.
    """

    node_id: str
    ip: str | None
    node_type: str | None
    resources: dict[str, tuple[float, float]] = field(default_factory=dict)
    activity: tuple[str, ...] = ()


_BUNDLE_RE = re.compile(r"\{(?P<body>[^{}]{0,2000})\}(?:\s*\*\s*(?P<n>\d{1,9}))?")
_STRATEGY_RE = re.compile(r"\((?P<s>STRICT_PACK|STRICT_SPREAD|PACK|SPREAD)\)")
_WHAT_RE = re.compile(r":\s*(?P<count>\d+)\+?\s+(?P<what>pending placement groups|pending tasks/actors"
                      r"|from request_resources)")


@dataclass(frozen=True)
class Demand:
    """One ``Pending Demands:`` line, read.

    ``bundles``: ``(resources, count)`` per ``{...} * n`` group (count 1 when no ``* n``), the
    resources as printed (``{'GPU': 1.0, 'node:10.0.0.2': 0.001}``); ``strategy`` the placement
    group's (``PACK``, ``SPREAD``, ``STRICT_PACK``, ``STRICT_SPREAD``) or None; ``what``
    ``placement group``, ``task`` or ``request`` (``from request_resources``); ``text`` the line.
    A bundle whose braces do not read as a dict is left out (``complete`` False).
    """

    text: str
    bundles: tuple[tuple[dict[str, float], int], ...] = ()
    strategy: str | None = None
    what: str | None = None
    complete: bool = True

    def total(self, resource: str) -> float:
        """How much of ``resource`` the whole demand asks for (``GPU``: one per worker)."""
        return sum(float(b.get(resource, 0) or 0) * n for b, n in self.bundles)

    @property
    def node_anchors(self) -> tuple[str, ...]:
        """The ``node:<address>`` resources the demand pins bundles to (vLLM's driver node), as printed."""
        out = [k[len("node:"):] for b, _ in self.bundles for k in b
               if k.startswith("node:") and k != "node:__internal_head__"]
        return tuple(dict.fromkeys(out))


def parse_demand(text: str) -> Demand:
    """Read one pending-demand line (see :class:`Demand`); never raises."""
    bundles: list[tuple[dict[str, float], int]] = []
    complete = True
    for m in _BUNDLE_RE.finditer(text[:20000]):
        try:
            value = ast.literal_eval("{" + m.group("body") + "}")
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
            complete = False
            continue
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            complete = False
            continue
        res = {k: float(v) for k, v in value.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        bundles.append((res, int(m.group("n") or 1)))
    st = _STRATEGY_RE.search(text)
    w = _WHAT_RE.search(text)
    what = None
    if w:
        what = {"pending placement groups": "placement group", "pending tasks/actors": "task"}.get(
            w.group("what"), "request")
    elif st:
        what = "placement group"
    return Demand(text, tuple(bundles), st.group("s") if st else None, what, complete and bool(bundles))


@dataclass(frozen=True)
class RayStatus:
    """What ``ray status`` said.

    ``timestamp`` from the ``Autoscaler status:`` header (None in an excerpt).
    ``active_nodes`` (``Active:``, older ``Healthy:``), ``idle_nodes`` (``Idle:``, autoscaler
    v2), ``pending_nodes``, ``failed_nodes`` (``Recent failures:``).
    ``resources``: name -> (used, total) from the cluster usage block; CPU/GPU as counts,
    memory and object_store_memory in bytes. ``placement_groups``: name -> (used, reserved) from
    the ``(X used of Y reserved in placement groups)`` suffix (a serving vLLM holds its GPUs
    in a placement group: ``2.0/2.0 GPU (2.0 used of 2.0 reserved in placement groups)``).
    ``pending_demands``: the lines under ``Pending Demands:`` as printed (stripped), e.g.
    ``{'GPU': 1.0} * 2 (PACK): 1+ pending placement groups``; ``request_resources`` likewise
    for ``From request_resources:``. ``per_node``: the ``-v`` blocks. ``excerpt`` is True when
    the header or the node list is missing (a grep, or a cut paste); ``totals``: resources given as totals alone
    (`` 2.0 GPU``, a status shortened by hand), where no usage line is. ``unread`` holds the lines
    that were not part of any block (other output pasted along). ``sections``: the blocks whose header was read
    (``pending``, ``failures``, ``demands``, ...: grader's names), so an empty list is known from one not shown.
    """

    timestamp: str | None
    active_nodes: tuple[RayNode, ...] = ()
    idle_nodes: tuple[RayNode, ...] = ()
    pending_nodes: tuple[RayNode, ...] = ()
    failed_nodes: tuple[RayNode, ...] = ()
    resources: dict[str, tuple[float, float]] = field(default_factory=dict)
    placement_groups: dict[str, tuple[float, float]] = field(default_factory=dict)
    pending_demands: tuple[str, ...] = ()
    request_resources: tuple[str, ...] = ()
    per_node: tuple[NodeUsage, ...] = ()
    excerpt: bool = False
    unread: tuple[str, ...] = ()
    totals: dict[str, float] = field(default_factory=dict)
    sections: tuple[str, ...] = ()

    @property
    def node_count(self) -> int:
        """Nodes that are up (active plus idle), counting grouped entries by their count."""
        return sum(n.count for n in self.active_nodes + self.idle_nodes)

    @property
    def node_ips(self) -> tuple[str, ...]:
        """The distinct IPs shown for nodes that are up (``-v`` blocks, or active entries)."""
        ips = [n.ip for n in self.active_nodes + self.idle_nodes if n.ip]
        ips += [u.ip for u in self.per_node if u.ip]
        return tuple(dict.fromkeys(ips))

    @property
    def demands(self) -> tuple[Demand, ...]:
        """``pending_demands`` read (bundles, strategy): see :func:`parse_demand`."""
        return tuple(parse_demand(d) for d in self.pending_demands)

    @property
    def node_addresses(self) -> tuple[str, ...]:
        """Every address Ray shows a node by: the IPs of ``node_ips`` and the ``node:<address>`` resources
        of the usage blocks (``ray status -v``). Empty when the output shows none (plain ``ray status``
        lists node ids only)."""
        names = [k[len("node:"):] for k in self.resources if k.startswith("node:")]
        names += [k[len("node:"):] for u in self.per_node for k in u.resources if k.startswith("node:")]
        out = list(self.node_ips) + [n for n in names if n != "__internal_head__"]
        return tuple(dict.fromkeys(out))

    def used_total(self, name: str) -> tuple[float, float] | None:
        """``(used, total)`` of one resource (``"GPU"``, ``"CPU"``, ``"memory"`` in bytes)."""
        return self.resources.get(name)


def _to_value(number: str, unit: str | None, line: Line) -> float:
    try:
        value = float(number)
    except ValueError:
        raise fail_on_line(COMMAND, line, f"cannot read the number {number!r}") from None
    return value * BYTE_UNITS[unit] if unit else value


def _resource(line: Line) -> tuple[str, float, float, tuple[float, float] | None] | None:
    """``(name, used, total, pg)`` of a usage line, None if it is not one."""
    m = _RESOURCE_RE.match(line.text.strip())
    if not m:
        return None
    name = m.group("name")
    uu, tu = m.group("uu"), m.group("tu")
    if name in _MEMORY_NAMES or uu or tu:
        # "0.00/5.908 GiB memory" (old Ray): the total's unit applies to a bare used figure
        uu, tu = uu or tu or "B", tu or uu or "B"
    used, total = _to_value(m.group("used"), uu, line), _to_value(m.group("total"), tu, line)
    used = 0.0 if abs(used) < 1e-6 else used  # `-2.7755575615628914e-17/1.0 GPU`: Ray's float arithmetic's residue
    pg = None
    if m.group("pgused") is not None:
        pgu = m.group("pguu") or (uu if name in _MEMORY_NAMES else None)
        pgt = m.group("pgtu") or (tu if name in _MEMORY_NAMES else None)
        pg = (_to_value(m.group("pgused"), pgu, line), _to_value(m.group("pgtotal"), pgt, line))
    return name, used, total, pg


def _ip_in(text: str) -> str | None:
    for cand in _IPV4_RE.findall(text):
        try:
            ipaddress.IPv4Address(cand)
            return cand
        except ValueError:
            continue
    return None


def _node_entry(section: str, text: str) -> RayNode | None:
    """A node-list line, by section; None when it does not read as one."""
    if section in ("active", "idle"):
        m = _COUNT_RE.match(text)
        if not m:
            return None
        return RayNode(m.group("name"), _ip_in(m.group("rest")) or _ip_in(m.group("name")), int(m.group("count")))
    if section == "pending":
        m = _LAUNCHING_RE.match(text)
        if m:
            return RayNode(m.group("name"), None, int(m.group("count")), "launching")
        m = _PENDING_IP_RE.match(text)
        if m:
            return RayNode(m.group("name").strip(), _ip_in(m.group("ip")), 1, m.group("status").strip())
        return RayNode(text, _ip_in(text), 1, None)
    if section == "failures":
        m = _FAILURE_RE.match(text)
        if m:
            return RayNode(m.group("name"), _ip_in(m.group("detail") or "") or _ip_in(m.group("rest")), 1,
                           m.group("what"))
        return RayNode(text, _ip_in(text), 1, "failed")
    return None


_SECTION_KEYS = {
    "Healthy": "active", "Active": "active", "Idle": "idle", "Pending": "pending",
    "Recent failures": "failures", "Total Usage": "usage", "Usage": "usage",
    "From request_resources": "requests", "Total Constraints": "requests", "Constraints": "requests",
    "Pending Demands": "demands", "Total Demands": "demands", "Demands": "demands",
    "Node status": "nodes", "Resources": "resources", "Activity": "activity", "Is Idle": "idle-flag",
}


def _header_ts(line: str) -> str | None:
    r"""The timestamp of a ``======== Autoscaler status: 2025-... ========`` line ("" when it shows none),
    or None when the line is not that header. What ``status:?\s*(.*?)\s*=+$`` read, in linear time: the
    text before the closing run of ``=`` and the blanks before it (the lazy form rescanned that run)."""
    m = _HEADER_RE.match(line)
    if m is None:
        return None
    rest = m.group("rest")
    body = rest.rstrip("=")
    return body.rstrip() if len(body) < len(rest) else None


def parse_ray_status(text: str) -> RayStatus:
    """Parse ``ray status`` / ``ray status -v`` output (see the module docstring for shapes).

    Lines around the output that belong to no block (other commands pasted along, ``docker
    exec`` chatter) are kept in ``unread``. An excerpt of usage lines alone is accepted
    (``excerpt=True``).

    Raises ParseError when Ray is not running or cannot be reached (``Could not find any
    running Ray instance``), when Ray answered with no status yet (``No cluster status.``), when ``ray`` is not installed (``command
    not found``), for a usage line whose numbers cannot be read, or when nothing in the text
    reads as ``ray status`` output.
    """
    lines = content_lines(text)
    raise_if_shell_error(lines, COMMAND)
    start = 0
    while True:  # a paste of several statuses is read from the start of the last one (see _read_status)
        read = _read_status(lines, start)
        if isinstance(read, RayStatus):
            return read
        start = read


def _read_status(all_lines: list[Line], start: int) -> RayStatus | int:
    """Read the status in ``all_lines[start:]``; return it, or the index where a second status begins
    (read again from there: the newest snapshot). Lines after ``start > 0`` are numbered from 1 at
    ``start``, as in the text of that status alone. Linear in the lines read (parse_ray_status once
    called itself on the joined rest of the text at each status: quadratic, and deep recursion)."""
    def lines_from_start():  # each line as in the text of this status alone
        for i in range(start, len(all_lines)):
            x = all_lines[i]
            yield i - start, (Line(i - start + 1, x.text, None, 0) if start else x)

    timestamp: str | None = None
    section: str | None = None
    nodes: dict[str, list[RayNode]] = {"active": [], "idle": [], "pending": [], "failures": []}
    resources: dict[str, tuple[float, float]] = {}
    totals: dict[str, float] = {}
    pgs: dict[str, tuple[float, float]] = {}
    demands: list[str] = []
    requests: list[str] = []
    per_node: list[dict] = []
    unread: list[str] = []
    seen_structure = saw_node_list = False
    sections: set[str] = set()
    for index, line in lines_from_start():
        s = line.text.strip()
        if not s or set(s) <= {"-", "="}:
            continue
        ts = _header_ts(s)
        if ts is not None:
            if seen_structure and timestamp is not None:
                # a second status in one paste: keep reading into the same report would mix
                # two snapshots; keep the last one, which is the newest
                return start + index
            timestamp, section, seen_structure = ts or None, None, True
            continue
        if _TIMING_RE.match(s):
            continue
        block = _NODE_BLOCK_RE.match(s)
        if block:
            extra = block.group("extra")
            ip = _ip_in(block.group("id")) or (_ip_in(extra) if extra else None)
            node_type = extra if extra and not _ip_in(extra) else None
            per_node.append({"node_id": block.group("id"), "ip": ip, "node_type": node_type,
                             "resources": {}, "activity": []})
            section, seen_structure = "node-usage", True
            continue
        head = _SECTION_RE.match(s)
        if head:
            key = _SECTION_KEYS[head.group("name")]
            sections.add(key)
            if per_node and key in ("usage", "activity", "idle-flag"):  # inside a -v "Node:" block
                section = {"usage": "node-usage", "activity": "node-activity", "idle-flag": "node-idle"}[key]
            elif key in ("nodes", "resources"):
                section = None
            else:
                section = key
            saw_node_list = saw_node_list or key in ("active", "idle")
            seen_structure = True
            continue
        old = _OLD_NODES_RE.match(s)
        if old:  # Ray 1.x: the node list is its resources
            ip = next((k[len("node:"):] for k in re.findall(r"'(node:[^']+)'", old.group("res"))), None)
            nodes["active"].append(RayNode(f"node {ip}" if ip else "node", _ip_in(ip or ""), int(old.group("count"))))
            saw_node_list = seen_structure = True
            continue
        if "No cluster status" in s:  # Ray answered: its monitor has published nothing yet (a `> ` quote too)
            raise fail_on_line(COMMAND, line, "Ray answered, but its head has published no cluster status yet "
                               "(right after a start it takes a few seconds): run `ray status` again")
        if _NOT_RUNNING_RE.search(s):
            raise fail_on_line(COMMAND, line, "Ray is not running here, or this node cannot reach its head: "
                               "start it (`ray start --head --node-ip-address=<the address the nodes share>` on "
                               "the head) or point at it (RAY_ADDRESS=<head>:6379); right after a start, "
                               "wait a few seconds for the status to appear")
        if _NONE_RE.match(s):
            continue
        res = _resource(line)
        if res is not None and section in (None, "usage", "node-usage"):
            name, used, total, pg = res
            if section == "node-usage" and per_node:
                per_node[-1]["resources"][name] = (used, total)
            else:
                resources[name] = (used, total)
                if pg is not None:
                    pgs[name] = pg
            continue
        total = _TOTAL_RE.match(s) if section in (None, "usage") and not resources else None
        if total:
            unit = total.group("tu") or ("B" if total.group("name") in _MEMORY_NAMES else None)
            totals[total.group("name")] = _to_value(total.group("total"), unit, line)
            continue
        if section in nodes:
            entry = _node_entry(section, s)
            if entry is not None:
                nodes[section].append(entry)
                continue
        elif section == "demands" and _DEMAND_RE.match(s):
            demands.append(s)
            continue
        elif section == "demands" and demands and demands[-1].endswith(" pending") and s in _WRAPPED_TAILS:
            demands[-1] += " " + s  # a terminal wrapped the line before its last words
            continue
        elif section == "requests" and _DEMAND_RE.match(s):
            requests.append(s)
            continue
        elif section == "node-activity" and per_node and (line.text[:1].isspace() or _ACTIVITY_RE.match(s)):
            per_node[-1]["activity"].append(s)
            continue
        elif section == "node-idle" and per_node and s in ("True", "False"):  # Ray 2.5-2.7 "Is Idle:"
            per_node[-1]["activity"].append(f"Is Idle: {s}")
            continue
        section = None  # a line that fits no block ends the block it interrupts
        unread.append(s)
    if not (seen_structure or resources):
        first = next((x for _, x in lines_from_start() if x.text.strip()), None)
        if first is None:
            raise ParseError(COMMAND, "the output is empty")
        raise fail_on_line(COMMAND, first, "this does not look like `ray status` output (expected "
                           "`======== Autoscaler status`, `Node status` or lines like ` 0.0/2.0 GPU`)")
    excerpt = timestamp is None or not saw_node_list
    return RayStatus(
        timestamp=timestamp,
        active_nodes=tuple(nodes["active"]), idle_nodes=tuple(nodes["idle"]),
        pending_nodes=tuple(nodes["pending"]), failed_nodes=tuple(nodes["failures"]),
        resources=resources, placement_groups=pgs, pending_demands=tuple(demands),
        request_resources=tuple(requests),
        per_node=tuple(NodeUsage(p["node_id"], p["ip"], p["node_type"], p["resources"], tuple(p["activity"]))
                       for p in per_node),
        excerpt=excerpt, unread=tuple(unread), totals=totals, sections=tuple(sorted(sections)))


def gib(nbytes: float) -> float:
    """Bytes to GiB (2**30 bytes)."""
    return nbytes / 2 ** 30
