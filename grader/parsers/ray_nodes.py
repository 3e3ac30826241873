"""``ray.nodes()`` printed (a Python list of dicts, or its JSON), ``ray list nodes``' table, and the State API's YAML
(``ray get nodes <id>``, ``ray list nodes --detail``): each node's ID, whether it is alive, its address and
host name, and the resources it registered (``GPU``, ``CPU``, ``accelerator_type:A100``).

A pure parser: ``parse_ray_nodes(text)`` -> list of :class:`RayNode`, or ParseError when no ``'NodeID'`` entry is
found. Read field by field, so a list the paste cut off gives the nodes shown (the last one marked ``cut``), and
a prefix in front (``(print_hostname pid=1) ``) does not matter. Judged in grader.judges.ray.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .common import ParseError

_NODE_RE = re.compile(r"""\{\s*+['"]NodeID['"]:\s*+['"](?P<id>[0-9a-f]{8,64})['"]""")
_FIELD_RE = re.compile(r"""['"](?P<key>Alive|NodeManagerAddress|NodeManagerHostname)['"]:\s*+"""
                       r"""(?:['"](?P<text>[^'"\n]{0,255})['"]|(?P<flag>True|False|true|false))""")
_RESOURCES_RE = re.compile(r"""['"]Resources['"]:\s*+\{(?P<body>[^{}]{0,4000})\}""")
_RESOURCE_RE = re.compile(r"""['"](?P<name>[^'"\n]{1,120})['"]:\s*+(?P<value>-?\d{1,20}(?:\.\d{1,12})?(?:e[+-]?\d{1,3})?)""")
MAX_NODES = 1024


@dataclass(frozen=True)
class RayNode:
    """One node of ``ray.nodes()``. ``alive`` None when the paste cut it before ``Alive``; ``resources``: name ->
    amount as registered (``GPU`` 4.0; memory in bytes); ``cut``: the paste ends inside this node's entry."""

    node_id: str
    alive: bool | None
    address: str | None
    hostname: str | None
    resources: dict[str, float] = field(default_factory=dict)
    cut: bool = False
    state_message: str | None = None
    """``ray list nodes``' STATE_MESSAGE of a dead node (``Terminated due to idle``...), None where none is shown."""

    @property
    def accelerator(self) -> str | None:
        """``A100`` from ``accelerator_type:A100``."""
        return next((k.split(":", 1)[1] for k in self.resources if k.startswith("accelerator_type:")), None)


class RayNodes(list):
    """``list[RayNode]`` in order, plus ``total``: how many nodes ``ray list nodes`` counts (its ``Total: N``), or None
    (``ray.nodes()`` prints no count)."""

    def __init__(self, nodes=(), total: int | None = None):
        super().__init__(nodes)
        self.total = total


_TOTAL_RE = re.compile(r"^Total: (?P<n>\d{1,6})\s*$", re.M)
_TABLE_HEAD_RE = re.compile(r"^\s*NODE_ID\s++NODE_IP\s++IS_HEAD_NODE\s++STATE\b", re.M)
_ROW_RE = re.compile(r"^\s*\d{1,6}\s++(?P<id>[0-9a-f]{8,64})\s++(?P<ip>[\w.:-]{1,64})\s++(?:True|False)\s++"
                     r"(?P<state>ALIVE|DEAD)\b(?P<rest>.*)$")
_TABLE_RESOURCE_RE = re.compile(r"(?<!\S)(?P<name>CPU|GPU|TPU|NPU|HPU|neuron_cores|memory|object_store_memory|accelerator_type:\S{1,40}): "
                                r"(?P<value>\d{1,20}(?:\.\d{1,12})?)")


def _parse_list_nodes(text: str) -> RayNodes:
    """``ray list nodes``' table: a row per node (its ID, NODE_IP, STATE, the resources of RESOURCES_TOTAL, which
    go on below the row on lines of their own); its ``Total: N``."""
    nodes: list[RayNode] = []
    got: dict | None = None
    for line in text[_TABLE_HEAD_RE.search(text).end():].splitlines()[1:]:
        m = _ROW_RE.match(line)
        if m:
            said = re.split(r"\s{2,}", m.group("rest").strip(), maxsplit=1)[0] if m.group("state") == "DEAD" else ""
            words = said.rsplit(None, 1)  # (NODE_NAME one blank after it: the node's address)
            said = words[0] if len(words) == 2 and re.fullmatch(r"[\d.]{7,15}", words[1]) else said
            got = {"id": m.group("id"), "ip": m.group("ip"), "alive": m.group("state") == "ALIVE", "res": {},
                   "said": said if said and not _TABLE_RESOURCE_RE.match(said) else None}
            nodes.append(got)  # type: ignore[arg-type]
        if got is not None and len(nodes) <= MAX_NODES:
            got["res"].update((r.group("name"), float(r.group("value")))
                              for r in _TABLE_RESOURCE_RE.finditer(m.group("rest") if m else line))
    total = _TOTAL_RE.search(text)
    return RayNodes([RayNode(n["id"], n["alive"], n["ip"], None, n["res"], state_message=n["said"])
                     for n in nodes[:MAX_NODES]],
                    int(total.group("n")) if total else None)


_YAML_ID_RE = re.compile(r"^(?:-\s{1,8})?node_id: ['\"]?[0-9a-f]{8,64}['\"]?\s*$", re.M)
_YAML_KEY_RE = re.compile(r"^(?P<ind>(?:-\s{1,8}| {0,40}))(?P<key>node_id|node_ip|node_name|state|state_message"
                          r"|resources_total):(?: (?P<val>[^\n]{0,300}))?$")
_YAML_RES_RE = re.compile(r"^(?P<ind> {1,40})(?P<name>[^\s:][^\n]{0,120}?): (?P<value>-?\d{1,20}(?:\.\d{1,12})?"
                          r"(?:e[+-]?\d{1,3})?)\s*$")


def _parse_yaml_nodes(text: str) -> RayNodes:
    """The Ray State API's YAML of nodes: ``ray get nodes <id>`` (one mapping after ``---``) and ``ray list nodes
    --detail`` (a list of them, ``-   node_id: ...``): each node's ``node_id``, ``node_ip``, ``node_name``, ``state``
    (ALIVE, DEAD), ``state_message`` and the ``resources_total`` block under it (``CPU: 8.0``, ``GPU: 1.0``)."""
    nodes: list[dict] = []
    got: dict | None = None
    res_ind = -1  # the indentation of the resources_total key while its block is read
    for line in text.splitlines()[:20000]:
        r = _YAML_RES_RE.match(line) if res_ind >= 0 and got is not None else None
        if r and len(r.group("ind")) > res_ind:
            got["res"][r.group("name").strip("'\"")] = float(r.group("value"))
            continue
        res_ind = -1
        k = _YAML_KEY_RE.match(line)
        if not k:
            continue
        key, val = k.group("key"), (k.group("val") or "").strip().strip("'\"")
        if key == "node_id" and (got is None or "id" in got or k.group("ind").startswith("-")) and len(nodes) < MAX_NODES:
            got = {"res": {}}
            nodes.append(got)
        if got is None:
            continue
        if key == "resources_total" and not val:
            res_ind = len(k.group("ind"))
        elif key != "resources_total":
            got[{"node_id": "id", "node_ip": "ip", "node_name": "name", "state": "state",
                 "state_message": "said"}[key]] = val
    return RayNodes([RayNode(n.get("id", ""), {"ALIVE": True, "DEAD": False}.get(n.get("state", "")), n.get("ip"),
                             n.get("name"), n["res"],
                             state_message=n.get("said") if n.get("said") not in (None, "", "null") else None)
                     for n in nodes if n.get("id")])


def parse_ray_nodes(text: str) -> RayNodes:
    """The nodes ``text`` lists, in order: ``ray.nodes()`` printed (or its JSON), or ``ray list nodes``' table;
    ParseError when it holds neither a ``'NodeID': '<hex>'`` entry nor a row of that table."""
    starts = [m for _, m in zip(range(MAX_NODES), _NODE_RE.finditer(text))]
    if not starts and _TABLE_HEAD_RE.search(text) and (table := _parse_list_nodes(text)):
        return table
    if not starts and _YAML_ID_RE.search(text) and (listed := _parse_yaml_nodes(text)):
        return listed  # `ray get nodes <id>`, `ray list nodes --detail`
    if not starts:
        raise ParseError("ray.nodes()", "no node entry found (expected `[{'NodeID': '...', 'Alive': True, ...}]`, "
                                        "what `print(ray.nodes())` prints, or `ray list nodes`' table)")
    nodes = []
    for i, m in enumerate(starts):
        body = text[m.end():starts[i + 1].start() if i + 1 < len(starts) else len(text)]
        got: dict[str, str | bool] = {}
        for f in _FIELD_RE.finditer(body):
            got.setdefault(f.group("key"), f.group("text") if f.group("flag") is None
                           else f.group("flag").lower() == "true")
        res = _RESOURCES_RE.search(body)
        resources = {r.group("name"): float(r.group("value")) for r in _RESOURCE_RE.finditer(res.group("body"))} \
            if res else {}
        alive = got.get("Alive")
        nodes.append(RayNode(m.group("id"), alive if isinstance(alive, bool) else None,
                             str(got["NodeManagerAddress"]) if "NodeManagerAddress" in got else None,
                             str(got["NodeManagerHostname"]) if "NodeManagerHostname" in got else None,
                             resources, cut=res is None))
    return RayNodes(nodes)
