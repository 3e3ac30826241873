"""Parser for the RDMA sysfs tree as clusterlab's probe prints it.

The probe (fixed, read-only) is::

    for d in /sys/class/infiniband/*; do echo "device $(basename $d) $(basename $(readlink -f $d/device))"; done;
    grep -H . /sys/class/infiniband/*/ports/*/state /sys/class/infiniband/*/ports/*/phys_state \
        /sys/class/infiniband/*/ports/*/gid_attrs/ndevs/* /sys/class/infiniband/*/ports/*/gid_attrs/types/* \
        /sys/class/infiniband/*/ports/*/gids/* 2>/dev/null

so its lines look like::

    device rocep1s0f1 0000:01:00.1
    /sys/class/infiniband/rocep1s0f1/ports/1/state:4: ACTIVE
    /sys/class/infiniband/rocep1s0f1/ports/1/phys_state:5: LinkUp
    /sys/class/infiniband/rocep1s0f1/ports/1/gid_attrs/types/3:RoCE v2
    /sys/class/infiniband/rocep1s0f1/ports/1/gid_attrs/ndevs/3:enp1s0f1np1
    /sys/class/infiniband/rocep1s0f1/ports/1/gids/3:0000:0000:0000:0000:0000:ffff:c0a8:640a

Each port has a GID table. A RoCE device lists, per netdev address, one GID per RoCE version:
the fe80 link-local GIDs first, then one pair per IPv4 address (an IPv4-mapped IPv6 address,
``::ffff:192.168.100.10``). NCCL (``NCCL_IB_GID_INDEX``) and perftest (``-x``, printed as
``GID index : 3``) name the entry to use by its index: on most Sparks index 3 is the RoCE v2
GID carrying the twin's IPv4 address, but kits with other address layouts use other indices
(procedure.md §2.2). Unused entries read as all zeros and are left out.

Lines from ``grep`` itself (``grep: ...: Invalid argument`` when run without ``2>/dev/null``),
other files under ``/sys/class/infiniband`` and a ``device * `` line (no RDMA device at all)
are skipped. Source: Linux ABI sysfs-class-infiniband; procedure.md §2.2.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field, replace

from .common import ParseError, command_argv, content_lines, fail_on_line, is_comment_line, raise_if_shell_error

CMD = "sysfs /sys/class/infiniband"

_DEVICE_RE = re.compile(r"^device\s+(?P<name>\S+)(?:\s+(?P<pci>\S+))?\s*$")
_PATH_RE = re.compile(r"^(?P<path>/\S*?/infiniband/(?P<dev>[^/\s:]+)/(?P<rest>[^:]*))(?::(?P<value>.*))?$")
"""Any tree named ``.../infiniband/<dev>/...``: /sys/class/infiniband, or the sim's copy of its layout."""
_PORT_FILE_RE = re.compile(r"^ports/(?P<port>\d{1,9})/(?P<file>state|phys_state|link_layer|rate"
                           r"|gids/(?P<gid>\d{1,9})|gid_attrs/types/(?P<type>\d{1,9})|gid_attrs/ndevs/(?P<ndev>\d{1,9}))$")
_BDF_RE = re.compile(r"^[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$")
_TOOL_NOISE_RE = re.compile(r"^(?:grep|readlink|basename|ls|cat): ")
_STATE_RE = re.compile(r"^\s*+(?P<code>\d++)\s*+:\s*+(?P<word>\S(?:.*\S)?)\s*$")  # word: first to last non-blank


@dataclass(frozen=True)
class Gid:
    """One entry of a port's GID table.

    ``index`` the table index (what NCCL_IB_GID_INDEX and ``ib_write_bw -x`` name); ``gid`` the
    GID as printed (None if only its attributes were shown); ``type`` ``"RoCE v1"`` (the kernel
    prints ``IB/RoCE v1``), ``"RoCE v2"``, or as printed; ``ndev`` the netdev it belongs to;
    ``ipv4`` the IPv4 address of an IPv4-mapped GID (``::ffff:c0a8:640a`` -> ``192.168.100.10``),
    else None.
    """

    index: int
    gid: str | None = None
    type: str | None = None
    ndev: str | None = None
    ipv4: str | None = None

    @property
    def is_roce_v2(self) -> bool:
        return self.type == "RoCE v2"


@dataclass(frozen=True)
class RocePort:
    """One port of an RDMA device: ``state`` (``ACTIVE``, ``DOWN``, ``INIT``... the word after
    the kernel's code, ``4: ACTIVE``), ``phys_state`` (``LinkUp``, ``Disabled``, ``Polling``...),
    ``gids`` by index; ``link_layer`` and ``rate`` when those files were printed too."""

    state: str | None = None
    phys_state: str | None = None
    gids: dict[int, Gid] = field(default_factory=dict)
    link_layer: str | None = None
    rate: str | None = None

    @property
    def is_active(self) -> bool:
        return (self.state or "").upper() == "ACTIVE"

    @property
    def netdev(self) -> str | None:
        """The netdev the port's GIDs name (the first seen), or None."""
        return next((g.ndev for g in self.gids.values() if g.ndev), None)


@dataclass(frozen=True)
class RoceDevice:
    """One RDMA device: its name, the PCI function it sits on (``0000:01:00.1``; None when the
    ``device`` link does not lead to a PCI address, e.g. soft RoCE), and its ports by number."""

    name: str
    pci_bdf: str | None = None
    ports: dict[int, RocePort] = field(default_factory=dict)

    @property
    def pci_domain(self) -> str | None:
        """``"0000"``, ``"0002"``... from the PCI address, or None."""
        return self.pci_bdf.split(":")[0] if self.pci_bdf and self.pci_bdf.count(":") == 2 else None


class IbSysfs(dict):
    """``dict[str, RoceDevice]`` by device name, in the order first seen, plus ``simulated``
    (a line said so: clusterlab's sim) and ``truncated`` (the last line was cut off and left out)."""

    def __init__(self, devices=(), simulated: bool = False, truncated: bool = False):
        super().__init__(devices)
        self.simulated = simulated
        self.truncated = truncated


def ipv4_of_gid(gid: str) -> str | None:
    """The IPv4 address inside an IPv4-mapped GID (``0000:...:ffff:c0a8:640a`` -> ``192.168.100.10``).

    Also reads perftest's decimal form (``00:00:...:255:255:192:168:200:13``). None for other
    GIDs and for text that is not a GID. Never raises.
    """
    s = gid.strip()
    parts = s.split(":")
    if len(parts) == 16 and all(p.isdigit() for p in parts):
        nums = [int(p) for p in parts]
        if all(0 <= n <= 255 for n in nums) and nums[:10] == [0] * 10 and nums[10:12] == [255, 255]:
            return ".".join(str(n) for n in nums[12:])
        return None
    try:
        mapped = ipaddress.IPv6Address(s).ipv4_mapped
    except ValueError:
        return None
    return str(mapped) if mapped is not None else None


def _is_zero_gid(gid: str | None) -> bool:
    try:
        return gid is not None and int(ipaddress.IPv6Address(gid.strip())) == 0
    except ValueError:
        return False


def _gid_type(value: str) -> str:
    v = value.strip()
    return "RoCE v1" if v in ("IB/RoCE v1", "RoCE v1") else v


def _state_word(value: str) -> str | None:
    m = _STATE_RE.match(value)
    word = m.group("word") if m else value.strip()
    return word or None


def parse_ib_sysfs(text: str) -> IbSysfs:
    """Parse the sysfs probe's output (see the module doc) into ``{name: RoceDevice}``.

    Lines may come in any order. A comment or line containing "simulated" sets ``simulated``.
    A last line cut off before its value (or inside a GID) is left out and sets ``truncated``.

    Raises ParseError for ``command not found``/``No such file`` errors, a line of another
    shape, or no RDMA device at all (``/sys/class/infiniband`` is empty: the mlx5_ib driver is
    not loaded, or a container was started without the RDMA devices).
    """
    lines = content_lines(text, keep_comments=True)
    simulated = any("simulated" in x.text.lower() for x in lines)
    lines = [x for x in lines if not is_comment_line(x.text) and "simulated" not in x.text.lower()]
    lines = [x for x in lines if not _TOOL_NOISE_RE.match(x.text.strip())]
    raise_if_shell_error(lines, CMD)
    bdf: dict[str, str | None] = {}
    ports: dict[str, dict[int, dict]] = {}
    order: list[str] = []
    truncated = False

    def seen(dev: str) -> None:
        if dev not in order:
            order.append(dev)

    bare = _bare_gids(lines)
    for pos, line in enumerate(lines):
        s = line.text.strip()
        last = pos == len(lines) - 1
        if pos in bare:
            if not bare[pos]:
                continue  # an empty GID after the first two: nothing
            s = bare[pos]
        single = _single_file(line.command)
        if single is not None and not s.startswith(("/", "device ")):
            if single.endswith("/infiniband"):  # `ls /sys/class/infiniband`: device names
                for name in s.split():
                    seen(name)
                    bdf.setdefault(name, None)
                continue
            s = f"{single}:{s}"  # `cat <one file>` prints only the value
        m = _DEVICE_RE.match(s)
        if m:
            name, pci = m.group("name"), m.group("pci")
            if name == "*":
                continue  # the glob matched nothing: no RDMA device
            seen(name)
            bdf[name] = pci if pci and _BDF_RE.match(pci) else bdf.get(name)
            continue
        m = _PATH_RE.match(s)
        if not m:
            if last and (s.startswith("/sys/") or s.startswith("device")):
                truncated = True
                continue
            raise fail_on_line(CMD, line, "expected `device <rdma device> <pci address>` or "
                                          "`/sys/class/infiniband/<dev>/ports/<n>/<file>:<value>`")
        dev, value = m.group("dev"), m.group("value")
        pf = _PORT_FILE_RE.match(m.group("rest"))
        if value is None:
            if last:
                truncated = True
                continue
            raise fail_on_line(CMD, line, "no `:<value>` after the path (was it printed with `grep -H .`?)")
        seen(dev)
        if pf is None:
            continue  # another file under the device (fw_ver, node_type...): not needed
        port = ports.setdefault(dev, {}).setdefault(int(pf.group("port")), {"gids": {}})
        f = pf.group("file")
        if f == "state":
            port["state"] = _state_word(value)
        elif f == "phys_state":
            port["phys_state"] = _state_word(value)
        elif f in ("link_layer", "rate"):
            port[f] = value.strip() or None
        else:
            idx = int(pf.group("gid") or pf.group("type") or pf.group("ndev"))
            gid = port["gids"].setdefault(idx, {})
            if pf.group("gid") is not None:
                g = value.strip()
                if last and not _looks_like_gid(g):
                    truncated = True
                    continue
                gid["gid"] = g
            elif pf.group("type") is not None:
                gid["type"] = _gid_type(value)
            else:
                gid["ndev"] = value.strip() or None
    devices = {}
    for name in order:
        built = {}
        for num, p in ports.get(name, {}).items():
            gids = {}
            for idx, g in sorted(p["gids"].items()):
                if _is_zero_gid(g.get("gid")) and not g.get("type"):
                    continue
                gg = Gid(idx, g.get("gid"), g.get("type"), g.get("ndev"))
                gids[idx] = replace(gg, ipv4=ipv4_of_gid(gg.gid)) if gg.gid else gg
            built[num] = RocePort(p.get("state"), p.get("phys_state"), gids, p.get("link_layer"), p.get("rate"))
        devices[name] = RoceDevice(name, bdf.get(name), dict(sorted(built.items())))
    if not devices:
        raise ParseError(CMD, "no RDMA device under /sys/class/infiniband (the mlx5_ib driver is not "
                              "loaded, or a container was started without --device=/dev/infiniband)")
    return IbSysfs(devices, simulated, truncated)


_GIDS_GLOB_RE = re.compile(r"\bcat\s{1,4}/\S{0,40}/infiniband/(?P<dev>[^/\s]{1,64})/ports/(?P<port>\d{1,3})/gids/\*(?:\s|$)")


def _bare_gids(lines: list) -> dict[int, str]:
    """``cat /sys/class/infiniband/<dev>/ports/<n>/gids/*`` prints each GID bare, in the glob's order, which is the
    names' text order (0, 1, 10, 100, ...): only the first two lines are indices 0 and 1 for sure. Those two as the
    path form (``.../gids/1:<gid>``), when every later line is an empty (zero) GID; else nothing (the index of a
    later GID is not known); the later, empty lines map to "" (skipped)."""
    at = [(i, x) for i, x in enumerate(lines) if _GIDS_GLOB_RE.search(x.command or "") and _looks_like_gid(x.text.strip())]
    if not at or len(at) != len(lines):
        return {}
    if not all(_is_zero_gid(x.text.strip()) for _, x in at[2:]):
        raise ParseError(CMD, "bare GIDs of a glob come in the files' text order (0, 1, 10, 100...), so past the "
                              "first two their indices are not known: print them with their paths (`grep -H . "
                              "/sys/class/infiniband/<dev>/ports/1/gids/*`) or run `show_gids`")
    m = _GIDS_GLOB_RE.search(at[0][1].command)
    dev = m["dev"] if m["dev"] != "*" else "(device)"
    return {i: f"/sys/class/infiniband/{dev}/ports/{m['port']}/gids/{n}:{x.text.strip()}" if n < 2 else "" for n, (i, x)
            in enumerate(at)}


_ONE_FILE_RE = re.compile(r"^/\S*/infiniband(?:/[^/\s*?\[]+/ports/\d+/[\w/]+)?/?$")


def _single_file(command: str | None) -> str | None:
    """The one sysfs path a ``cat``/``head``/``grep PATTERN`` (or ``ls``) prompt reads, else None.

    ``cat /sys/class/infiniband/rocep1s0f1/ports/1/gid_attrs/types/3`` prints just ``RoCE v2``:
    the path on the prompt says what the value is. Globs and several files give None (grep -H
    prints the paths itself then).
    """
    argv = command_argv(command)
    if not argv or argv[0] not in ("cat", "head", "tail", "grep", "ls", "more", "less"):
        return None
    args = [a for a in argv[1:] if not a.startswith("-")]
    if argv[0] == "grep" and args:
        args = args[1:]  # the pattern
    if len(args) != 1 or not _ONE_FILE_RE.match(args[0]):
        return None
    path = args[0].rstrip("/")
    if argv[0] == "ls":
        return path if path.endswith("/infiniband") else None
    return None if path.endswith("/infiniband") else path


def _looks_like_gid(g: str) -> bool:
    try:
        ipaddress.IPv6Address(g)
        return True
    except ValueError:
        return False


def roce_v2_ipv4_gid_index(device: RoceDevice, port: int = 1, ipv4: str | None = None) -> int | None:
    """The lowest GID index of ``device``'s ``port`` that is RoCE v2 and carries ``ipv4``.

    With ``ipv4`` None, any IPv4-mapped RoCE v2 GID counts. None when the port or such a GID is
    missing (the netdev has no IPv4 address, or only RoCE v1 GIDs exist). This is the value
    NCCL_IB_GID_INDEX should hold for that device.
    """
    p = device.ports.get(port)
    if p is None:
        return None
    for idx in sorted(p.gids):
        g = p.gids[idx]
        if g.is_roce_v2 and g.ipv4 is not None and (ipv4 is None or g.ipv4 == ipv4):
            return idx
    return None
