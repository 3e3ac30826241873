"""Parser for the kernel's link messages of ConnectX NICs (``dmesg``, ``dmesg -T``, ``journalctl -k``): which
netdev went up or down, which RDMA port went ACTIVE, which cable module was plugged.

Lines read (mlx5_core's own strings; the ``cx7-pcie-hotplug`` line is a DGX Spark's, as in NVIDIA/NemoClaw#8520)::

    [Fri Aug  7 03:13:00] cx7-pcie-hotplug MTKP0001:00: Cable plugin
    [   12.345678] mlx5_core 0000:01:00.0 enp1s0f0np0: Link down
    mlx5_core 0000:01:00.0: Port module event: module 0, Cable plugged        (or unplugged)
    mlx5_core 0000:01:00.0 enp1s0f0np0: Link up
    mlx5_core 0000:01:00.0 rocep1s0f0: Port: 1 Link ACTIVE                     (or DOWN, INIT, ARMED)
    Nov 29 10:00:00 spark-a kernel: mlx5_core 0002:01:00.0 enP2p1s0f0np0: Link up

Any prefix before ``mlx5_core`` (a dmesg time, ``-T``'s date, journalctl's host and ``kernel:``) is skipped, and
every other line is ignored. Order matters: the last event of a device is its state at the end of the paste.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import ParseError, content_lines, raise_if_shell_error

COMMAND = "dmesg"

_MLX5_RE = re.compile(r"\bmlx5_core (?P<pci>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d)(?: (?P<dev>[\w.-]+))?:"
                      r"\s*(?P<msg>.*)$")
_LINK_RE = re.compile(r"^Link (?P<state>up|down)\b", re.I)
_PORT_RE = re.compile(r"^Port: (?P<port>\d+) Link (?P<state>ACTIVE|DOWN|INIT|ARMED)\b")
_MODULE_RE = re.compile(r"^Port module event(?:\[error\])?: module (?P<module>\d+), Cable (?P<state>plugged|unplugged)",
                        re.I)
_HOTPLUG_RE = re.compile(r"\bcx7-pcie-hotplug\b.*?:\s*Cable (?P<state>plugin|plugout|plugged|unplugged)", re.I)


@dataclass(frozen=True)
class LinkEvent:
    """One message: ``pci`` the function (``0000:01:00.0``; None for the hotplug driver's line), ``device`` the netdev
    or RDMA device named (None for module events), ``what`` ``link`` (a netdev), ``port`` (an RDMA port), ``module``
    (a cable's module, ``module`` its number) or ``hotplug``; ``state`` as printed, lower case (``up``, ``active``,
    ``plugged``, ``plugin``...); ``lineno`` its line in the paste."""

    pci: str | None
    device: str | None
    what: str
    state: str
    lineno: int
    module: int | None = None


@dataclass(frozen=True)
class DmesgLinks:
    """The link events in paste order, and ``final`` each device's last state (netdevs: ``up``/``down``; RDMA
    devices: ``active``/``down``...), in the order devices first appear."""

    events: tuple[LinkEvent, ...]

    @property
    def final(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for e in self.events:
            if e.device and e.what in ("link", "port"):
                out[e.device] = e.state
        return out

    def downs(self, device: str) -> int:
        """How many times ``device`` went down in the paste."""
        return sum(1 for e in self.events if e.device == device and e.state == "down")


def parse_dmesg_links(text: str) -> DmesgLinks:
    """Read ConnectX link messages out of kernel log text (see the module docstring). ParseError when no line is one
    (with what to run), or when the paste is a shell error."""
    lines = content_lines(text)
    events: list[LinkEvent] = []
    for line in lines:
        s = line.text
        if "mlx5_core" in s:
            m = _MLX5_RE.search(s)
            if not m:
                continue
            msg, dev = m.group("msg").strip(), m.group("dev")
            link, port, module = _LINK_RE.match(msg), _PORT_RE.match(msg), _MODULE_RE.match(msg)
            if link and dev:
                events.append(LinkEvent(m.group("pci").lower(), dev, "link", link.group("state").lower(), line.no))
            elif port and dev:
                events.append(LinkEvent(m.group("pci").lower(), dev, "port", port.group("state").lower(), line.no))
            elif module:
                events.append(LinkEvent(m.group("pci").lower(), dev, "module", module.group("state").lower(), line.no,
                                        int(module.group("module"))))
        elif "cable" in s.lower():
            h = _HOTPLUG_RE.search(s)
            if h:
                events.append(LinkEvent(None, None, "hotplug", h.group("state").lower(), line.no))
    if not events:
        raise_if_shell_error(lines, COMMAND)
        raise ParseError(COMMAND, "no ConnectX link message found (`mlx5_core ... Link up`, `Port module event`): run "
                                  "`sudo dmesg -T | grep -Ei 'mlx5|cable'` and paste what it prints")
    return DmesgLinks(tuple(events))
