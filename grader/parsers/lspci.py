"""Parser for ``lspci -vv`` (LnkCap / LnkSta of each device) and the sysfs PCI path listing.

``LnkCap`` is what the device and its slot can do (``Speed 32GT/s, Width x16``); ``LnkSta`` is
what the link trained to now. lspci marks a lower trained speed or width ``(downgraded)``. A
GPU also drops its link speed when idle to save power (LnkSta 2.5GT/s on an idle card is normal),
so a lower speed counts only under load; a lower width does not recover by itself.

Speeds map to generations by their GT/s (checks/specs/pcie.toml): 2.5 -> 1, 5 -> 2, 8 -> 3,
16 -> 4, 32 -> 5, 64 -> 6. Without root, lspci prints ``Capabilities: <access denied>`` and no
link lines: the parser says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from grader.calc.pcie import generation_from_rate

from .common import ParseError, content_lines, fail_on_line, raise_if_shell_error
from .lspci_tree import TREE_START_RE, parse_lspci_tree

CMD = "lspci"

# ``cls`` holds the blanks around the class name (callers strip it): one possessive run instead of
# blanks, a lazy name and optional blanks again, which backtracked cubically on a long run of blanks.
_DEV_RE = re.compile(r"^(?:[A-Z][a-z]{1,15}:\s{1,4})?(?P<addr>(?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])(?=\s)"
                     r"(?P<cls>[^:\[]{2,}+)(?:\[(?P<clsid>[0-9a-fA-F]{4})\])?:\s+(?P<desc>.*)$")
_LINK_RE = re.compile(r"^\s*(?P<kind>LnkCap|LnkSta):\s*(?P<body>.*)$")
# every LnkCap/LnkSta on a line (grep'd one-line forms: ``LnkCap: Port #0, Speed 16GT/s, Width x16 LnkSta: ...``);
# a segment runs to the next ``Lnk...:``/``Dev...:`` label
_LINK_ANY_RE = re.compile(r"\b(?P<kind>LnkCap|LnkSta):")
_NEXT_LABEL_RE = re.compile(r"\b(?:Lnk|Dev)\w*:")
_ADDR_LINK_RE = re.compile(r"^(?P<addr>(?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]):?\s+(?=\S)")
_SPEED_RE = re.compile(r"Speed\s+(?P<speed>\d+(?:\.\d+)?)GT/s(?P<down>\s*\(downgraded\))?(?:\s*\((?:ok)\))?", re.I)
_WIDTH_RE = re.compile(r"Width\s+x(?P<width>\d+)(?P<down>\s*\(downgraded\))?", re.I)
_IDS_RE = re.compile(r"\[(?P<vendor>[0-9a-fA-F]{4}):(?P<device>[0-9a-fA-F]{4})\]")
_NAME_WORD_RE = re.compile(r"GeForce|RTX|Quadro|Tesla|TITAN|[AHLB]\d{2,3}")


def _bracketed_name(desc: str) -> str | None:
    r"""The first ``[...]`` of ``desc`` naming a GPU (``[H200 NVL]``, ``[GeForce RTX 4090]``), or None.

    What the pattern ``\[([^\]]*(?:GeForce|...)[^\]]*)\]`` finds, in linear time: the text from a ``[`` to
    the next ``]`` (the first ``[`` after the previous ``]``: a later one opens a part of the same text)."""
    pos = 0
    while True:
        start = desc.find("[", pos)
        end = desc.find("]", start + 1) if start >= 0 else -1
        if end < 0:
            return None
        inner = desc[start + 1:end]
        if _NAME_WORD_RE.search(inner):
            return inner
        pos = end + 1

_CONNECTX_RE = re.compile(r"ConnectX-\d+(?:\s?(?:Dx|Lx|Ex|VPI))?", re.I)

DISPLAY_CLASSES = ("VGA compatible controller", "3D controller", "Display controller")
"""lspci's class names for display controllers (PCI class 0300, 0302, 0380)."""


@dataclass(frozen=True)
class PciLink:
    """One link line: speed in GT/s, its PCIe generation, width in lanes, and the downgraded marks."""

    speed_gt_s: float | None
    gen: int | None
    width: int | None
    speed_downgraded: bool = False
    width_downgraded: bool = False


@dataclass(frozen=True)
class PciDevice:
    """One device of ``lspci -vv``: its address, class, description, and link capability/status.

    ``address`` as printed (``01:00.0`` or ``0000:01:00.0``); ``class_name`` (``VGA compatible
    controller``); ``class_id`` (``0300``) and ``vendor_device`` (``10de:2684``) with ``-nn``;
    ``name`` the bracketed marketing name where lspci knows it (``GeForce RTX 4090``).
    ``access_denied`` when lspci could not read the capabilities (run it with sudo).
    """

    address: str
    class_name: str
    description: str
    class_id: str | None = None
    vendor_device: str | None = None
    name: str | None = None
    lnkcap: PciLink | None = None
    lnksta: PciLink | None = None
    access_denied: bool = False
    truncated: bool = False
    memory_off: bool = False
    """Its ``Control:`` line says ``Mem-`` (memory decoding off) and a ``Region`` is ``[disabled]``: enumerated, but
    nothing (no driver, no firmware) has enabled it."""
    acs_on: tuple[str, ...] | None = None
    """The controls its ``ACSCtl:`` line turns on (``ReqRedir``, ``CmpltRedir``...; () when every one is off), None
    without that line (a bridge or port with Access Control Services shows it)."""
    driver: str | None = None  # ``Kernel driver in use:`` (lspci -k, -v): the driver that has claimed the function
    modules: str | None = None  # ``Kernel modules:``: the modules that could drive it
    aspm: str | None = None  # ``LnkCtl: ASPM Disabled;``: the power-saving link states the OS enabled (a setting)
    target_gt_s: float | None = None  # ``LnkCtl2: Target Link Speed: 32GT/s``: the speed the link may train to
    port: str | None = None  # ``Express (v2) Root Port``: a port's role (Root, Downstream, Upstream Port); None: an endpoint
    corrected: tuple[str, ...] = ()  # AER ``CESta:`` bits set (``BadTLP``, ``RxErr``...): corrected errors latched
    uncorrected: tuple[str, ...] = ()  # AER ``UESta:`` bits set (``UnsupReq``, ``CmpltTO``...): uncorrected ones

    @property
    def is_display(self) -> bool:
        return self.class_name in DISPLAY_CLASSES or (self.class_id or "").startswith("03")

    @property
    def is_nvidia(self) -> bool:
        return (self.vendor_device or "").lower().startswith("10de:") or "NVIDIA" in self.description

    @property
    def is_connectx(self) -> bool:
        """A Mellanox/NVIDIA ConnectX function (``Mellanox Technologies MT2910 Family [ConnectX-7]``,
        vendor id 15b3). A DGX Spark shows four: 0000:01:00.0/.1 and 0002:01:00.0/.1 (procedure.md §1.1)."""
        return "connectx" in self.description.lower() or self.description.startswith("Mellanox") or (
            (self.vendor_device or "").lower().startswith("15b3:") and not self.is_display)

    @property
    def connectx_model(self) -> str | None:
        """``ConnectX-7`` from ``[ConnectX-7]`` in the description, or None."""
        m = _CONNECTX_RE.search(self.description)
        return m.group(0) if m else None

    @property
    def width_reduced(self) -> bool:
        """The trained width is below the capability (x8 in an x16 card), or lspci says downgraded."""
        cap, sta = self.lnkcap, self.lnksta
        if sta is not None and sta.width_downgraded:
            return True
        return bool(cap and sta and cap.width and sta.width and sta.width < cap.width)

    @property
    def speed_reduced(self) -> bool:
        """The trained speed is below the capability (may be idle power saving: check under load)."""
        cap, sta = self.lnkcap, self.lnksta
        if sta is not None and sta.speed_downgraded:
            return True
        return bool(cap and sta and cap.speed_gt_s and sta.speed_gt_s and sta.speed_gt_s < cap.speed_gt_s)


def _link(body: str, line, kind: str) -> PciLink:
    sp, wd = _SPEED_RE.search(body), _WIDTH_RE.search(body)
    if sp is None and wd is None:
        raise fail_on_line(CMD, line, f"cannot read {kind} (expected `Speed 16GT/s, Width x16`)")
    speed = float(sp.group("speed")) if sp else None
    try:
        gen = generation_from_rate(speed) if speed is not None else None
    except ValueError:
        gen = None
    return PciLink(speed, gen, int(wd.group("width")) if wd else None,
                   bool(sp and sp.group("down")), bool(wd and wd.group("down")))


def _link_segments(text: str) -> list[tuple[str, str]]:
    """``[(kind, body)]`` for every LnkCap/LnkSta label on one line, in order."""
    out = []
    marks = list(_LINK_ANY_RE.finditer(text))
    for m in marks:
        rest = text[m.end():]
        nxt = _NEXT_LABEL_RE.search(rest)
        out.append((m.group("kind"), rest[:nxt.start()] if nxt else rest))
    return out


def _unnamed(address: str = "") -> dict:
    """A device known only by its link lines (``lspci -vv`` blocks pasted without the device line, or grep'd)."""
    return {"address": address, "class_name": "", "description": "", "class_id": None, "vendor_device": None,
            "name": None}


def parse_lspci_vv(text: str) -> list[PciDevice]:
    """Parse ``lspci -vv`` (also ``-vvv``, ``-nn``, ``-s``, ``-d``) into devices in order.

    Lines lspci prints beside its output (``lspci: Unable to load libkmod resources``) are
    skipped. A device whose block ends before its link lines, in a paste that stops there, is
    marked ``truncated``. Raises ParseError for ``command not found`` / unreadable input, an
    indented line before any device, or no device at all.
    """
    lines = content_lines(text)
    raise_if_shell_error(lines, CMD)
    first = next((x.text for x in lines if x.text.strip()), "")
    if TREE_START_RE.match(first):  # `lspci -t`
        return parse_lspci_tree([x.text for x in lines])
    devices: list[dict] = []
    for line in lines:
        s = line.text.rstrip()
        if s.startswith("lspci:") or s.startswith("pcilib:"):
            continue
        segments = _link_segments(s) if "Lnk" in s else []
        addr = _ADDR_LINK_RE.match(s.strip())
        if segments and (len(segments) > 1 or addr or not devices or
                         any(k.lower() in devices[-1] for k, _ in segments)):
            # a grep'd line, or link lines with no device line above them (or a second set of them): one
            # device per LnkCap/LnkSta set, named by the address the line starts with, if any
            where = addr.group("addr") if addr and _LINK_ANY_RE.search(s[:addr.end() + 8]) else ""
            for kind, body in segments:
                key = kind.lower()
                if not devices or key in devices[-1] or (where and devices[-1]["address"] != where):
                    devices.append(_unnamed(where))
                devices[-1][key] = _link(body, line, kind)
            continue
        m = _DEV_RE.match(s)
        if m and not s[:1].isspace():
            desc = m.group("desc").strip()
            ids = _IDS_RE.search(desc)
            name = _bracketed_name(desc)
            devices.append({"address": m.group("addr"), "class_name": m.group("cls").strip(), "description": desc,
                            "class_id": m.group("clsid"),
                            "vendor_device": f"{ids.group('vendor')}:{ids.group('device')}".lower() if ids else None,
                            "name": name.strip() if name is not None else None})
            continue
        ctl = _LNKCTL_RE.match(s)
        if ctl:  # the link's settings (also grep'd alone: `| grep LnkCtl`): one device a LnkCtl line
            if not devices or (ctl.group("aspm") and "aspm" in devices[-1]):
                devices.append(_unnamed("" if devices else _address_asked(line.command)))
            if ctl.group("aspm"):
                devices[-1]["aspm"] = ctl.group("aspm").strip()
            elif ctl.group("target"):
                devices[-1]["target_gt_s"] = float(ctl.group("target"))
            continue
        if s.lstrip().startswith("ACSCtl:"):  # a bridge's Access Control Services (also grep'd alone: `| grep ACS`)
            if not devices or "acs_on" in devices[-1]:  # grep'd: one ACSCtl line a device
                devices.append(_unnamed("" if devices else _address_asked(line.command)))
            devices[-1]["acs_on"] = tuple(_FLAG_ON_RE.findall(s))
            continue
        if not devices:
            if s.lstrip().startswith(("-[", "+-", "\\-")):
                raise fail_on_line(CMD, line, "this is the `lspci -t` tree, which shows no link widths; run "
                                   "`sudo lspci -vv -d 10de:` for LnkCap/LnkSta")
            if s[:1].isspace() or s.strip() == "--" or s.strip().startswith(("Capabilities:", "Dev", "Lnk")) \
                    or _RULE_RE.fullmatch(s.strip()):  # (a script's rule between its blocks: vv004)
                continue  # a block pasted without its device line: its link lines open an unnamed device
            raise fail_on_line(CMD, line, "expected a device line like `01:00.0 VGA compatible controller: ...`")
        if "<access denied>" in s:
            devices[-1]["access_denied"] = True
            continue
        if s.lstrip().startswith("Control:") and " Mem-" in s:
            devices[-1]["control_mem_off"] = True
            continue
        if "[disabled]" in s and s.lstrip().startswith("Region ") and devices[-1].get("control_mem_off"):
            devices[-1]["memory_off"] = True
            continue
        if port := _PORT_RE.search(s):  # `Capabilities: [40] Express (v2) Root Port (Slot+)`: the function's role
            devices[-1]["port"] = port.group(1)
            continue
        kd = _KERNEL_RE.match(s)
        if kd:
            devices[-1]["driver" if kd.group("what") == "driver in use" else "modules"] = kd.group("name").strip()
            continue
        if s.lstrip().startswith(("CESta:", "UESta:")):  # AER's latched error bits (blind batch vv006: BadTLP+)
            devices[-1]["corrected" if s.lstrip().startswith("CE") else "uncorrected"] = tuple(_FLAG_ON_RE.findall(s))
            continue
        lk = _LINK_RE.match(s)
        if lk:
            key = lk.group("kind").lower()
            devices[-1][key] = _link(lk.group("body"), line, lk.group("kind"))
    if not devices:
        raise ParseError(CMD, "no PCI device found, and no LnkCap/LnkSta line (for NVIDIA cards run "
                              "`sudo lspci -vv -d 10de:`)")
    if devices and "lnksta" not in devices[-1] and not devices[-1].get("access_denied"):
        devices[-1]["truncated"] = "lnkcap" in devices[-1] or _looks_cut(lines)
    return [PciDevice(**{k: v for k, v in d.items() if k != "control_mem_off"}) for d in devices]


_FLAG_ON_RE = re.compile(r"\b([A-Za-z]++)\+")  # a flag lspci shows set (``ReqRedir+``, ``BadTLP+``)
_RULE_RE = re.compile(r"[=_-]{8,400}")
_PORT_RE = re.compile(r"^\s{0,40}Capabilities: \[[0-9a-f]{1,4}\] Express \(v\d\) (Root Port|Downstream Port|Upstream Port)\b")
_LNKCTL_RE = re.compile(r"^\s*+LnkCtl(?::\s*+ASPM (?P<aspm>[^;\n]{1,40})|2:\s*+Target Link Speed:\s*+(?P<target>[\d.]{1,6})GT/s"
                        r"|\d?:)")
_KERNEL_RE = re.compile(r"^\s++Kernel (?P<what>driver in use|modules):\s*+(?P<name>\S[^\n]{0,200})$")
_SLOT_ASKED_RE = re.compile(r"\s-s\s*+(?P<addr>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{1,2}:[0-9a-fA-F]{1,2}\.[0-7])\b")


def _address_asked(command: str | None) -> str:
    """The device ``lspci -s ADDR`` asked for (the one a grep'd output is about), or ""."""
    m = _SLOT_ASKED_RE.search(command or "")
    return m.group("addr") if m else ""


def _looks_cut(lines) -> bool:
    """A paste whose last device has capability lines but never reached Express/Kernel lines."""
    tail = [x.text for x in lines[-40:]]
    return any("Capabilities:" in t for t in tail) and not any("Kernel driver in use" in t or "Kernel modules" in t
                                                              for t in tail)


@dataclass(frozen=True)
class PciPath:
    """A device's sysfs path: the bridges between its PCIe root and itself.

    ``address`` ``0000:01:00.0``; ``chain`` the addresses from the root port down to the device
    (``0000:00:01.1``, ``0000:01:00.0``); ``bridges`` = len(chain) − 1, the PCIe bridges above
    it. A card straight on a CPU root port has 1; behind a chipset or a PCIe switch, 3 or more.
    """

    address: str
    chain: tuple[str, ...]

    @property
    def bridges(self) -> int:
        return len(self.chain) - 1


_BDF = r"[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"
_PATH_RE = re.compile(rf"^(?P<addr>{_BDF})\s+(?:\S+\s+)?(?P<path>/sys/devices/\S+)$")


def parse_pci_paths(text: str) -> list[PciPath]:
    """Parse ``<bdf> [class] /sys/devices/pci0000:00/...`` lines (the lesson-3 probe's listing).

    Raises ParseError for a line of another shape or no line at all.
    """
    lines = content_lines(text)
    raise_if_shell_error(lines, "sysfs")
    out: list[PciPath] = []
    for line in lines:
        m = _PATH_RE.match(line.text.strip())
        if not m:
            raise fail_on_line("sysfs", line, "expected `0000:01:00.0 /sys/devices/pci0000:00/...`")
        chain = tuple(re.findall(_BDF, m.group("path")))
        if not chain or chain[-1].lower() != m.group("addr").lower():
            raise fail_on_line("sysfs", line, "the path does not end at the device's own address")
        out.append(PciPath(m.group("addr").lower(), chain))
    if not out:
        raise ParseError("sysfs", "no PCI path listed")
    return out
