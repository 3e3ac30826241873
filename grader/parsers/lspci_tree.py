"""``lspci -t`` (and ``-tv``): the PCI tree, read into root buses, bridges and the functions below each bridge.

The tree draws each root bus as ``[domain:bus]`` and each bridge's secondary bus as ``DD.F-[BB]--`` followed by the
functions on that bus (pciutils' lspci(8), ``-t``: "Show a tree-like diagram containing all buses, bridges, devices
and connections between them"). A function's place in the tree is its column: the functions of one bus start in the
same column, so a line's first function belongs to the nearest bus above that opened that column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ROOT_RE = re.compile(r"\[(?P<dom>[0-9a-fA-F]{4}):(?P<bus>[0-9a-fA-F]{2})\]")
_FUNC_RE = re.compile(r"(?<![\w\[:.])(?P<dev>[0-9a-fA-F]{2}\.[0-7])(?:-\[(?P<bus>[0-9a-fA-F]{2})(?:-[0-9a-fA-F]{2})?\])?"
                      r"(?P<name>[ \t]{2,4}[^\n]{1,200})?")
TREE_START_RE = re.compile(r"^\s{0,4}[-+\\|]{1,3}[-+]?\[[0-9a-fA-F]{4}:[0-9a-fA-F]{2}\]")
"""The first line of ``lspci -t``: ``-+-[0000:00]-+-00.0`` or ``-[0000:00]-+-00.0``."""


@dataclass
class TreeBus:
    """One bus: ``bus`` its number, ``parent`` the bridge above it (``20:01.1``; None for a root bus), ``functions``
    its functions as ``(address, name or None)`` and ``bridges`` the buses its functions lead to."""

    bus: str
    parent: str | None
    functions: list[tuple[str, str | None]] = field(default_factory=list)
    bridges: list[str] = field(default_factory=list)


class PciTree(list):
    """An empty device list (there are no link lines in a tree) with ``buses`` (``domain:bus`` -> TreeBus, in order)
    and ``roots`` (``0000:20``...), so the lspci judge can tell the tree from ``lspci -vv``."""

    def __init__(self, buses: dict[str, TreeBus], roots: list[str]):
        super().__init__()
        self.buses, self.roots = buses, roots


def parse_lspci_tree(lines: list[str]) -> PciTree:
    buses: dict[str, TreeBus] = {}
    roots: list[str] = []
    columns: list[tuple[int, str]] = []  # (the column a bus's functions start in, that bus), newest last
    dom = "0000"
    for text in lines:
        root = _ROOT_RE.search(text)
        if root:
            dom = root.group("dom")
            roots.append(f"{dom}:{root.group('bus')}")
            buses[roots[-1]] = TreeBus(root.group("bus"), None)
        opened: str | None = roots[-1] if root else None
        for m in _FUNC_RE.finditer(text, root.end() if root else 0):
            col = m.start()
            if opened is not None:  # the first function after a root or a bridge: that bus's column
                columns.append((col, opened))
                key = opened
            else:
                key = next((b for c, b in reversed(columns) if c == col), None)
                if key is None:
                    continue
            at = f"{buses[key].bus}:{m.group('dev')}"
            buses[key].functions.append((at, (m.group("name") or "").strip() or None))
            opened = None
            if m.group("bus"):
                opened = f"{key.split(':')[0]}:{m.group('bus')}"
                buses[opened] = TreeBus(m.group("bus"), at)
                buses[key].bridges.append(opened)
    return PciTree(buses, roots)
