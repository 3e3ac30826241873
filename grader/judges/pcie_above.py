"""The PCIe port above a device, where the paste shows it: an ``lspci -vv`` block of a bridge (a root port, a switch's
downstream port) whose ``Bus: primary=.., secondary=..`` line names the device's bus. A link trains to the narrower of
its two ends, so a device that runs x8 of its x16 under a port that can do x8 at most (its own LnkCap) is at the
width of its slot, by design (a board wiring two slots x8/x8, a Kunpeng root port of x8), not a fault: the
reading of pending ws007 (magnate3's notes walking a Huawei Hi1822 NIC's path: card x16-capable at x8 under a root
port capable of x8). Source: PCI Express Base Specification (link training negotiates the widest width both ends
support); lspci(8) prints ``Bus: primary=00, secondary=03, subordinate=06`` for a bridge.
"""

from __future__ import annotations

import re

from .context import context

_DEVICE_RE = re.compile(r"^(?P<addr>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]) [^\n]{1,300}$", re.M)
_BUS_RE = re.compile(r"^[ \t]{1,40}Bus: primary=[0-9a-fA-F]{2}, secondary=(?P<sec>[0-9a-fA-F]{2})\b", re.M)
_CAP_RE = re.compile(r"^[ \t]{1,40}LnkCap:[^\n]{0,80}?Width x(?P<w>\d{1,2})\b", re.M)
MAX_BLOCKS = 256
"""At most this many device blocks are read (a machine's lspci has a few hundred functions at most)."""


def _split(address: str) -> tuple[str | None, str]:
    parts = address.lower().split(":")
    return (parts[0] if len(parts) == 3 else None), parts[-2]


def port_above(address: str) -> tuple[str, int] | None:
    """(the bridge's address, its LnkCap width) of the bridge in the paste whose secondary bus is ``address``'s bus
    (in the same PCI domain where both addresses name one), or None where the paste shows none."""
    paste = context().paste or ""
    if not address or "secondary=" not in paste:
        return None
    domain, bus = _split(address)
    starts = list(_DEVICE_RE.finditer(paste))[:MAX_BLOCKS]
    for m, nxt in zip(starts, starts[1:] + [None]):
        block = paste[m.end():nxt.start() if nxt else len(paste)]
        sec, cap = _BUS_RE.search(block), _CAP_RE.search(block)
        if not sec or not cap or m.group("addr").lower() == address.lower():
            continue
        their_domain, _ = _split(m.group("addr"))
        if sec.group("sec").lower() == bus and (domain is None or their_domain is None or domain == their_domain):
            return m.group("addr"), int(cap.group("w"))
    return None
