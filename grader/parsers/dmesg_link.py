"""Parser for the kernel's link messages of ConnectX NICs (``dmesg``, ``dmesg -T``, ``journalctl -k``): which
netdev went up or down, which RDMA port went ACTIVE, which cable module was plugged.

Lines read (mlx5_core's own strings; the ``cx7-pcie-hotplug`` line is a DGX Spark's, as in NVIDIA/NemoClaw#8520)::

    [Fri Aug  7 03:13:00] cx7-pcie-hotplug MTKP0001:00: Cable plugin
    [   12.345678] mlx5_core 0000:01:00.0 enp1s0f0np0: Link down
    mlx5_core 0000:01:00.0: Port module event: module 0, Cable plugged        (or unplugged)
    mlx5_core 0000:01:00.0 enp1s0f0np0: Link up
    mlx5_core 0000:01:00.0 rocep1s0f0: Port: 1 Link ACTIVE                     (or DOWN, INIT, ARMED)
    Nov 29 10:00:00 spark-a kernel: mlx5_core 0002:01:00.0 enP2p1s0f0np0: Link up
    mlx5_core 0004:01:00.0: 63.008 Gb/s available PCIe bandwidth (8.0 GT/s PCIe x8 link)
    mlx5_core 0000:01:00.0: 126.016 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x16 link at
        0000:00:01.0 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)                  (one line)

The last two are the PCI core's report of a function's link at probe (drivers/pci/pci.c, ``__pcie_print_link_status``):
``limited by`` names the slower link on the way to the CPU and what the card could do.

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
_PCIE_RE = re.compile(r"^(?P<gbps>\d+(?:\.\d+)?) Gb/s available PCIe bandwidth(?:, limited by (?P<speed_at>[\d.]+) GT/s "
                      r"PCIe x(?P<width_at>\d+) link at (?P<at>\S+) \(capable of (?P<capable>\d+(?:\.\d+)?) Gb/s with "
                      r"(?P<speed_cap>[\d.]+) GT/s PCIe x(?P<width_cap>\d+) link\)| \((?P<speed>[\d.]+) GT/s PCIe "
                      r"x(?P<width>\d+) link\))")
_FIRMWARE_RE = re.compile(r"^firmware version: (?P<version>\d{1,4}\.\d{1,5}\.\d{1,6})\b")
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
class PcieBandwidth:
    """The PCI core's line on one function's PCIe link: ``pci`` the function, ``gbps`` the bandwidth available to it
    (Gbit/s, after encoding), ``gts`` and ``width`` its link (GT/s, lanes). ``limited_at`` is the bridge or port whose
    slower link limits it (None when the card runs at its best), ``capable_gbps`` and ``capable`` (GT/s, lanes) what
    the card could do there."""

    pci: str
    gbps: float
    gts: float
    width: int
    lineno: int
    limited_at: str | None = None
    capable_gbps: float | None = None
    capable: tuple[float, int] | None = None


@dataclass(frozen=True)
class DmesgLinks:
    """The link events in paste order, and ``final`` each device's last state (netdevs: ``up``/``down``; RDMA
    devices: ``active``/``down``...), in the order devices first appear; ``pcie`` the PCIe bandwidth lines, one per
    function (its last); ``firmware`` each ``firmware version: X`` line at a function's probe, (function, version) in
    paste order (a paste of two hosts' boot logs lists a function once per host)."""

    events: tuple[LinkEvent, ...]
    pcie: tuple[PcieBandwidth, ...] = ()
    firmware: tuple[tuple[str, str], ...] = ()

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
    pcie: dict[str, PcieBandwidth] = {}
    firmware: list[tuple[str, str]] = []
    for line in lines:
        s = line.text
        if "mlx5_core" in s:
            m = _MLX5_RE.search(s)
            if not m:
                continue
            msg, dev = m.group("msg").strip(), m.group("dev")
            link, port, module = _LINK_RE.match(msg), _PORT_RE.match(msg), _MODULE_RE.match(msg)
            bw = _PCIE_RE.match(msg) if "PCIe bandwidth" in msg else None
            fw = _FIRMWARE_RE.match(msg) if msg.startswith("firmware") else None
            if fw and len(firmware) < 256:
                firmware.append((m.group("pci").lower(), fw.group("version")))
            elif bw:
                pcie[m.group("pci").lower()] = _bandwidth(m.group("pci").lower(), bw, line.no)
            elif link and dev:
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
    if not events and not pcie and not firmware:
        raise_if_shell_error(lines, COMMAND)
        raise ParseError(COMMAND, "no ConnectX link message found (`mlx5_core ... Link up`, `Port module event`): run "
                                  "`sudo dmesg -T | grep -Ei 'mlx5|cable'` and paste what it prints")
    return DmesgLinks(tuple(events), tuple(pcie.values()), tuple(firmware))


def _bandwidth(pci: str, m: re.Match, lineno: int) -> PcieBandwidth:
    if m.group("at") is None:
        return PcieBandwidth(pci, float(m.group("gbps")), float(m.group("speed")), int(m.group("width")), lineno)
    return PcieBandwidth(pci, float(m.group("gbps")), float(m.group("speed_at")), int(m.group("width_at")), lineno,
                         m.group("at"), float(m.group("capable")), (float(m.group("speed_cap")), int(m.group("width_cap"))))
