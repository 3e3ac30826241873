"""Parser for a PCIe link as sysfs shows it: ``grep -H . /sys/class/net/IF/device/{current,max}_link_{speed,width}``
(what lesson 1's ``nic_pcie`` probe runs for each QSFP twin), also read from ``tail -v -n +1`` of the same files
(``==> PATH <==`` above each value) and from the same files reached by an RDMA device
(``/sys/class/infiniband/DEV/device/...``) or a PCI address (``/sys/bus/pci/devices/BDF/...``,
``/sys/devices/pci0000:00/.../BDF/...``).

The kernel writes each file as one line (drivers/pci/pci-sysfs.c): a speed as ``32.0 GT/s PCIe`` (``Unknown``
when the link never trained), a width as the lane count (``4``). Real lines, from a desktop's card
(https://github.com/nokyan/resources/issues/512): ``/sys/bus/pci/devices/0000:01:00.0/current_link_speed`` ->
``16.0 GT/s PCIe``, ``current_link_width`` -> ``8``, ``max_link_speed`` -> ``32.0 GT/s PCIe``,
``max_link_width`` -> ``16``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import clean_lines

ATTRS = ("current_link_speed", "current_link_width", "max_link_speed", "max_link_width")

_BDF = r"[0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]"
_PATH = (r"/sys/(?:class/net/(?P<iface>[^/\s:]+)/device|class/infiniband/(?P<rdma>[^/\s:]+)/device"
         r"|bus/pci/devices/(?P<bdf>[0-9A-Fa-f:.]+)|devices/pci[0-9A-Fa-f:]+(?:/" + _BDF + r")*?/(?P<dev>" + _BDF + r"))"
         r"/(?P<attr>" + "|".join(ATTRS) + r")")
_GREP_RE = re.compile(r"^\s*" + _PATH + r":(?P<value>.*)$")
_TAIL_HEAD_RE = re.compile(r"^\s*==>\s*" + _PATH + r"\s*<==\s*$")
_MISSING_RE = re.compile(r"/sys/class/net/(?P<iface>[^/\s:]+)(?:/device\S*)?: No such file or directory")
_SPEED_RE = re.compile(r"^(?P<gts>\d{1,3}(?:\.\d{1,3})?)\s*GT/s\b")
_WIDTH_RE = re.compile(r"^x?(?P<n>\d{1,2})$")


@dataclass(frozen=True)
class PcieLink:
    """One PCIe function's link: speeds in GT/s per lane (32.0 = PCIe Gen5, 16.0 = Gen4), widths in lanes. A value
    is None where its file was not shown or read ``Unknown`` (a link that never trained)."""

    current_speed_gts: float | None = None
    current_width: int | None = None
    max_speed_gts: float | None = None
    max_width: int | None = None

    @property
    def narrower(self) -> bool:
        """It trained fewer lanes than the function can use (``Width x2 (downgraded)`` in lspci)."""
        return None not in (self.current_width, self.max_width) and self.current_width < self.max_width

    @property
    def slower(self) -> bool:
        """It trained at a lower rate per lane than the function can use."""
        return None not in (self.current_speed_gts, self.max_speed_gts) and self.current_speed_gts < self.max_speed_gts


@dataclass(frozen=True)
class PcieSysfs:
    """``links``: {interface or PCI address: its link}, a second output of the same device (another host's, in one
    paste) as ``NAME (#2)``; ``no_device``: interfaces with no PCIe device behind them in sysfs (a veth, a bridge,
    or no interface of that name: ``No such file or directory``)."""

    links: dict[str, PcieLink]
    no_device: tuple[str, ...] = ()


def _value(attr: str, text: str) -> float | int | None:
    """A speed in GT/s or a width in lanes; None for ``Unknown`` and for what no link has (a maximum of 0 lanes or
    0 GT/s; 255, which some kernels print for a width they cannot read). A current width of 0 stays 0: the link
    did not train."""
    text = text.strip()
    m = (_SPEED_RE if attr.endswith("speed") else _WIDTH_RE).match(text)
    if not m:
        return None
    value = float(m.group("gts")) if attr.endswith("speed") else int(m.group("n"))
    return None if value == 0 and attr.startswith("max") else value


def _name(m: re.Match[str]) -> str:
    """The device a path names: its interface, its RDMA device, or its PCI address."""
    return m["iface"] or m["rdma"] or m["bdf"] or m["dev"]


_FIELD = dict(zip(ATTRS, ("current_speed_gts", "current_width", "max_speed_gts", "max_width")))


def parse_pcie_sysfs(text: str) -> PcieSysfs:
    """The links the text shows, by interface (``/sys/class/net/IF/device/...``), RDMA device
    (``/sys/class/infiniband/DEV/device/...``) or PCI address (``/sys/bus/pci/devices/BDF/...``, the last address
    of a ``/sys/devices/pci...`` path). Never raises: lines of other shapes (prompts, noise) are skipped, and a
    text that shows no link gives empty ``links``."""
    found: dict[str, dict[str, float | int | None]] = {}
    missing: list[str] = []
    pending: tuple[str, str] | None = None  # (device, attr) of a tail -v header waiting for its value

    def put(dev: str, attr: str, value: str) -> None:
        n, key = 1, dev
        while attr in found.get(key, {}):  # the same file again: another host's output, kept apart
            n += 1
            key = f"{dev} (#{n})"
        found.setdefault(key, {})[attr] = _value(attr, value)

    for line in clean_lines(text):
        m = _GREP_RE.match(line)
        if m:
            put(_name(m), m["attr"], m["value"])
            pending = None
            continue
        m = _TAIL_HEAD_RE.match(line)
        if m:
            pending = (_name(m), m["attr"])
            continue
        m = _MISSING_RE.search(line)
        if m:
            missing.append(m["iface"])
            continue
        if pending and line.strip():
            put(*pending, line)
            pending = None
    links = {dev: PcieLink(**{_FIELD[a]: v for a, v in vals.items()}) for dev, vals in found.items()}
    return PcieSysfs(links, tuple(dict.fromkeys(i for i in missing if i not in links)))
