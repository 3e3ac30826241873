"""Parser for ``ibstat`` (infiniband-diags): each RDMA device (CA) and the state of its ports.

Shape (tab-indented)::

    CA 'rocep1s0f1'
            CA type: MT4129
            Number of ports: 1
            Firmware version: 28.45.4028
            Hardware version: 0
            Node GUID: 0x...
            System image GUID: 0x...
            Port 1:
                    State: Active
                    Physical state: LinkUp
                    Rate: 200
                    Base lid: 0
                    LMC: 0
                    SM lid: 0
                    Capability mask: 0x00010000
                    Port GUID: 0x...
                    Link layer: Ethernet

``Rate`` is in Gb/s (the port's signalling rate: 200 on a Spark's 200 GbE port; a Down port
shows a meaningless default such as 40). ``CA type: MT4129`` is a ConnectX-7; the Spark's ports
are Ethernet only (``Link layer: Ethernet``, i.e. RoCE). ``ibstat -l`` (names only) and
``ibstat <ca> <port>`` (one port block) are read too. Source: procedure.md §1.1, §2.2 [GEER92].

``ibstatus`` (the same package's script) prints one block per port, its state as a number and a word::

    Infiniband device 'mlx5_0' port 1 status:
            default gid:     fe80:0000:0000:0000:0200:00ff:fe00:0001
            state:           4: ACTIVE
            phys state:      5: LinkUp
            rate:            100 Gb/sec (4X EDR)
            link_layer:      Ethernet

read into the same fields (``Active``, ``LinkUp``, 100.0, ``Ethernet``). The rate's ``(4X EDR)`` is how the verbs
rate is encoded, not a sign of InfiniBand: ``link_layer`` says which.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import (Line, ParseError, command_argv, content_lines, fail_on_line, is_comment_line, key_value,
                     raise_if_shell_error)

CMD = "ibstat"

_CA_RE = re.compile(r"^CA\s*:?\s*'(?P<name>[^']*)'?\s*$")
_PORT_RE = re.compile(r"^Port\s+(?P<n>\d+)\s*:\s*$")
_IBSTATUS_RE = re.compile(r"^Infiniband device '(?P<name>[^']*)' port (?P<n>\d+) status:\s*$")
_IBSTATUS_STATE = {"ACTIVE": "Active", "DOWN": "Down", "INIT": "Initializing", "ARMED": "Armed", "NOP": "Down"}
_KEY_RE = re.compile(r"[A-Za-z][\w ./-]*+")  # a key: a letter, then letters, digits, blanks, ./- (common.key_value)
_NAME_RE = re.compile(r"^[A-Za-z][\w.-]*$")
_PANIC_RE = re.compile(r"^ibpanic:|^ibstat: |^ibwarn:.*(?:error|fail)", re.I)
_WARN_RE = re.compile(r"^ibwarn:", re.I)
_RATE_RE = re.compile(r"^(?P<n>\d+(?:\.\d+)?)")


_PORT_KEYS = {"state": "state", "physical state": "physical_state", "rate": "rate_gbps", "link layer": "link_layer",
              "sm lid": "sm_lid", "base lid": "base_lid", "port guid": "port_guid",
              "phys state": "physical_state", "link_layer": "link_layer"}  # the last two: ibstatus's
_CA_KEYS = {"ca type": "ca_type", "firmware version": "firmware", "node guid": "node_guid",
            "system image guid": "system_guid"}
CA_TYPES = {"MT4129": "ConnectX-7", "MT4131": "ConnectX-8", "MT4125": "ConnectX-6 Dx", "MT4123": "ConnectX-6",
            "MT4119": "ConnectX-5", "MT4121": "ConnectX-5 Ex", "MT4127": "ConnectX-6 Lx", "MT41692": "BlueField-3"}
"""PCI device ids of ConnectX generations as ibstat prints them (``CA type``)."""


@dataclass(frozen=True)
class IbPort:
    """One port block: ``port`` number, ``state`` (``Active``, ``Down``, ``Initializing``... as
    printed), ``physical_state`` (``LinkUp``, ``Disabled``, ``Polling``...), ``rate_gbps`` the
    ``Rate`` line in Gb/s (float; None if absent), ``link_layer`` (``Ethernet`` = RoCE,
    ``InfiniBand``). Any field is None when its line was not in the paste. ``ibv_devinfo``'s ports
    (:func:`parse_ibv_devinfo`) carry the same fields in ibstat's words, and its MTU and GIDs."""

    port: int
    state: str | None = None
    physical_state: str | None = None
    rate_gbps: float | None = None
    link_layer: str | None = None
    active_mtu: int | None = None
    """RoCE/IB MTU in bytes (``ibv_devinfo``'s ``active_mtu``; ibstat does not print it)."""
    gids: tuple[tuple[int, str, str | None], ...] = ()
    """``(index, GID, type)`` of ``ibv_devinfo -v``'s ``GID[ n]:`` lines; type ``RoCE v2``, ``RoCE v1`` or None
    (older rdma-core prints none)."""
    sm_lid: int | None = None
    """The subnet manager's LID the port knows (``SM lid: 1``, ``sm_lid: 0``): 0 on InfiniBand means no SM has
    reached it; RoCE ports print 0 (no SM on Ethernet)."""
    base_lid: int | None = None
    """The port's own LID (ibstat's ``Base lid: 868``, ibv_devinfo's ``port_lid: 15``), given by the subnet manager
    when the port came up and kept when it goes down: 0 (or 65535) means none was ever given."""
    port_guid: str | None = None
    """ibstat's ``Port GUID: 0x...`` as printed; on RoCE the interface part of GID[0], the netdev's IPv6 link-local
    address, so all zeros there means GID index 0 is empty."""

    @property
    def is_active(self) -> bool:
        return (self.state or "").lower() == "active"


@dataclass(frozen=True)
class CaInfo:
    """One ``CA '<name>'`` block: the RDMA device name (None when only a port block was pasted
    without its CA line), ``ca_type`` (``MT4129``), ``firmware`` (``28.45.4028``), its ports and ``node_guid`` as
    printed (ibstat's ``Node GUID: 0x...``, ibv_devinfo's ``node_guid: xxxx:xxxx:xxxx:xxxx``; None if absent)."""

    ca: str | None
    ca_type: str | None = None
    firmware: str | None = None
    ports: tuple[IbPort, ...] = ()
    node_guid: str | None = None
    system_guid: str | None = None  # ibstat's ``System image GUID``, ibv_devinfo's ``sys_image_guid``: one card's ports share it

    @property
    def guid_unset(self) -> bool:
        """The node GUID printed is all zeros (an SR-IOV VF whose GUID its PF never set) or a placeholder below 0x10000
        (``0000:0000:0000:0001``, ucx#3787: a vendor's GUID carries its OUI in the top bytes)."""
        digits = (self.node_guid or "").lower().removeprefix("0x").replace(":", "")
        return bool(self.node_guid) and bool(re.fullmatch(r"[0-9a-f]{1,16}", digits)) and int(digits, 16) < 0x10000

    @property
    def model(self) -> str | None:
        """The ConnectX generation of ``ca_type`` (``MT4129`` -> ``ConnectX-7``), or None."""
        return CA_TYPES.get(self.ca_type or "")


class CaList(list):
    """``list[CaInfo]`` in printed order, plus ``truncated`` (the last port block stops before its
    ``Link layer`` line, as a cut-off paste does), ``warnings`` (``ibwarn:`` lines), ``unopened`` (how many
    devices ``ibv_devinfo`` listed but could not open: ``Failed to open device``) and ``panic`` (an ``ibpanic:`` line
    after the devices read: ibstat stopped there, so the devices after it are missing)."""

    def __init__(self, cas=(), truncated: bool = False, warnings: tuple[str, ...] = (), unopened: int = 0,
                 panic: str | None = None):
        super().__init__(cas)
        self.truncated = truncated
        self.warnings = warnings
        self.unopened = unopened
        self.panic = panic

    @property
    def whole(self) -> bool:
        """The list looks like all of the machine's devices: not cut (every port's link layer read) and named with one
        prefix numbered from 0 without a gap (mlx5_0, mlx5_1), as ibstat and ibv_devinfo list them all unasked."""
        nums = [re.fullmatch(r"([^\n]{0,40}\D)(\d{1,4})", c.ca or "") for c in self]
        return not self.truncated and bool(self) and all(p.link_layer for c in self for p in c.ports) and all(nums) \
            and len({m.group(1) for m in nums}) == 1 and sorted(int(m.group(2)) for m in nums) == list(range(len(self)))


def _ibstatus_value(value: str) -> str:
    """``4: ACTIVE`` -> ``Active``, ``5: LinkUp`` -> ``LinkUp`` (ibstatus's number dropped, its word in ibstat's)."""
    word = value.split(":", 1)[1].strip() if value[:1].isdigit() and ":" in value else value
    return _IBSTATUS_STATE.get(word, word)


def _rate(value: str) -> float | None:
    m = _RATE_RE.match(value.strip())
    return float(m.group("n")) if m else None


def parse_ibstat(text: str) -> CaList:
    """Parse ``ibstat`` (also ``ibstat -l``, ``ibstat -s``, ``ibstat <ca> [port]``) into CaInfo.

    Lines other than ``CA '...'``, ``Port N:`` and ``Key: value`` are errors, except bare device
    names (``ibstat -l``) and a last word inside a port block (a paste cut within a key: ``truncated``). Keys it
    does not need (GUIDs, lids) are skipped.

    Raises ParseError for ``command not found``, ``ibpanic:`` (e.g. the ib_umad module is not
    loaded: ``sudo modprobe ib_umad``), a line of another shape, or no CA at all.
    """
    lines = content_lines(text, keep_comments=True)
    lines = [x for x in lines if not is_comment_line(x.text)]
    raise_if_shell_error([x for x in lines if not _PANIC_RE.match(x.text.strip())], CMD)
    warnings, panic = [], None
    for i, line in enumerate(lines):
        s = line.text.strip()
        if _PANIC_RE.match(s) and not (_WARN_RE.match(s) and "fail" not in s.lower()):
            if any(_CA_RE.match(x.text.strip()) for x in lines[:i]):  # the devices before it were printed: read them
                panic, lines = s[:300], lines[:i]
                break
            hint = (" (load the module: `sudo modprobe ib_umad`, or use `rdma link` / `ibv_devinfo`, which do "
                    "not need it)" if "umad" in s.lower() else "")
            raise fail_on_line(CMD, line, f"ibstat could not read the devices: {s}{hint}")
        if _WARN_RE.match(s):
            warnings.append(s)
    lines = [x for x in lines if not _WARN_RE.match(x.text.strip())]
    cas: list[dict] = []
    port: dict | None = None
    cut = False
    default_ca = _prompt_ca(lines)
    for line in lines:
        s = line.text.strip()
        m = _CA_RE.match(s)
        if m:
            cas.append({"ca": m.group("name"), "ports": []})
            port = None
            continue
        m = _IBSTATUS_RE.match(s)
        if m:
            if not cas or cas[-1]["ca"] != m.group("name"):
                cas.append({"ca": m.group("name"), "ports": []})
            port = {"port": int(m.group("n"))}
            cas[-1]["ports"].append(port)
            continue
        m = _PORT_RE.match(s)
        if m:
            if not cas:
                cas.append({"ca": default_ca, "ports": []})
            port = {"port": int(m.group("n"))}
            cas[-1]["ports"].append(port)
            continue
        kv = key_value(s, _KEY_RE)
        if kv:
            key, value = kv[0].strip().lower(), kv[1].strip()
            if not cas:
                cas.append({"ca": default_ca, "ports": []})
            if key in _PORT_KEYS:
                if port is None:  # a port's lines without their `Port N:` line (grep excerpt): port 1
                    port = {"port": 1}
                    cas[-1]["ports"].append(port)
                port[_PORT_KEYS[key]] = _rate(value) if key == "rate" else (int(value) if value.isdigit() else None) \
                    if key in ("sm lid", "base lid") else (_ibstatus_value(value) or None)
            elif key in _CA_KEYS and port is None:
                cas[-1][_CA_KEYS[key]] = value if value.strip(".… ") else None  # `...`: left out by the poster
            continue
        if _NAME_RE.match(s) and all(len(c) == 2 and not c["ports"] for c in cas):
            cas.append({"ca": s, "ports": []})  # ibstat -l
            continue
        if line is lines[-1] and port is not None and s.replace(" ", "").isalpha() and len(s) <= 40:  # a paste cut
            # within its last key (`Link l`, `Physical st`): read up to it
            cut = True
            break
        raise fail_on_line(CMD, line, "expected `CA '<name>'`, `Port <n>:` or `<key>: <value>`")
    if not cas:
        raise ParseError(CMD, "no CA found (no RDMA device, or the driver is not loaded)")
    out = [CaInfo(c["ca"], c.get("ca_type"), c.get("firmware"),
                  tuple(IbPort(p["port"], p.get("state"), p.get("physical_state"), p.get("rate_gbps"),
                               p.get("link_layer"), sm_lid=p.get("sm_lid"), base_lid=p.get("base_lid"),
                               port_guid=p.get("port_guid"))
                        for p in c["ports"]), c.get("node_guid"), c.get("system_guid")) for c in cas]
    last_ports = cas[-1]["ports"]
    truncated = cut or bool(last_ports) and "link_layer" not in last_ports[-1] and "ca_type" in cas[-1]
    return CaList(out, truncated, tuple(warnings), panic=panic)


def _prompt_ca(lines: list[Line]) -> str | None:
    """The CA named on an ``ibstat <ca> [port]`` prompt line, if any."""
    for line in lines:
        argv = command_argv(line.command)
        if argv and argv[0] == "ibstat":
            args = [a for a in argv[1:] if not a.startswith("-")]
            return args[0] if args else None
    return None


# --------------------------------------------------------------------------- ibv_devinfo

IBV_CMD = "ibv_devinfo"
_IBV_HCA_RE = re.compile(r"^hca_id:\s*(?P<name>\S+)")
_IBV_PORT_RE = re.compile(r"^port:\s*(?P<n>\d+)\s*$")
_IBV_GID_RE = re.compile(r"^\W{0,4}GID\[\s*(?P<i>\d+)\]:\s*(?P<gid>[0-9a-fA-F:.]+)(?:\s*,\s*(?P<type>RoCE v[12]|IB))?")
_IBV_STATE = {"PORT_ACTIVE": "Active", "PORT_DOWN": "Down", "PORT_INIT": "Initializing", "PORT_ARMED": "Armed",
              "PORT_ACTIVE_DEFER": "Active"}
_IBV_PHYS = {"LINK_UP": "LinkUp", "POLLING": "Polling", "DISABLED": "Disabled", "SLEEP": "Sleep",
             "PORT_CONFIGURATION_TRAINING": "PortConfigurationTraining", "LINK_ERROR_RECOVERY": "LinkErrorRecovery"}
_IBV_WIDTH_RE = re.compile(r"^(?P<n>\d+)X")
_IBV_SPEED_RE = re.compile(r"^(?P<n>\d+(?:\.\d+)?)\s*Gbps")


def _first_word(value: str) -> str:
    return value.split()[0] if value.split() else ""


def parse_ibv_devinfo(text: str) -> CaList:
    """Parse ``ibv_devinfo`` (rdma-core; ``-v`` too) into ibstat's shapes: one CaInfo per ``hca_id:`` block
    (``ca_type`` ``MT<vendor_part_id>``, ``firmware`` its ``fw_ver``), one IbPort per ``port:`` block with
    ``state`` and ``physical_state`` in ibstat's words (``PORT_ACTIVE`` -> ``Active``, ``LINK_UP`` ->
    ``LinkUp``), ``rate_gbps`` = ``active_speed`` x ``active_width`` (``25.0 Gbps`` x ``1X`` = 25.0),
    ``link_layer``, ``active_mtu`` and the ``GID[ n]:`` lines (``ibv_devinfo -v``). A paste that starts inside
    a port block (a grep excerpt) is one device without a name and port 1. Keys it does not need are
    skipped; a line that is not ``key: value`` is skipped too (``-v`` prints flag lists on their own lines).

    Raises ParseError for ``command not found``, ``No IB devices found`` (no RDMA device, or its driver not
    loaded), or no device or port line at all.
    """
    lines = [x for x in content_lines(text, keep_comments=True) if not is_comment_line(x.text)]
    raise_if_shell_error(lines, IBV_CMD)
    cas: list[dict] = []
    port: dict | None = None
    seen = False
    unopened = 0
    for line in lines:
        s = line.text.strip()
        if s == "Failed to open device":
            unopened += 1
            continue
        if re.match(r"^No IB devices found", s, re.I):
            raise fail_on_line(IBV_CMD, line, "no RDMA device libibverbs can open: the NIC's RDMA driver is not loaded "
                               "(mlx5_ib), its user-space provider (ibverbs-providers) is missing or does not match the "
                               "kernel, or there is none (`rdma link` lists what the kernel has)")
        m = _IBV_HCA_RE.match(s)
        if m:
            cas.append({"ca": m.group("name"), "ports": []})
            port, seen = None, True
            continue
        if not cas:
            cas.append({"ca": None, "ports": []})
        m = _IBV_PORT_RE.match(s)
        if m:
            port = {"port": int(m.group("n")), "gids": []}
            cas[-1]["ports"].append(port)
            seen = True
            continue
        g = _IBV_GID_RE.match(s)
        kv = None if g else key_value(s, _KEY_RE)
        if not g and not kv:
            continue
        if port is None and (g or (kv and kv[0].lower() in ("state", "phys_state", "link_layer", "active_mtu",
                                                              "active_speed", "active_width"))):
            port = {"port": 1, "gids": []}  # a port's lines without their `port:` line
            cas[-1]["ports"].append(port)
        if g and port["gids"] and int(g.group("i")) <= port["gids"][-1][0]:  # the index starts again: another table
            cas.append({"ca": None, "ports": []})
            port = {"port": 1, "gids": []}
            cas[-1]["ports"].append(port)
        if g:
            port["gids"].append((int(g.group("i")), g.group("gid"), g.group("type")))
            seen = True
            continue
        key, value = kv[0].lower(), kv[1].strip()
        if port is not None:
            if key == "state":
                port["state"] = _IBV_STATE.get(_first_word(value), _first_word(value) or None)
            elif key == "phys_state":
                port["physical_state"] = _IBV_PHYS.get(_first_word(value), _first_word(value) or None)
            elif key == "link_layer":
                port["link_layer"] = value or None
            elif key in ("sm_lid", "port_lid") and _first_word(value).isdigit():
                port["sm_lid" if key == "sm_lid" else "base_lid"] = int(_first_word(value))
            elif key == "active_mtu" and _first_word(value).isdigit():
                port["active_mtu"] = int(_first_word(value))
            elif key in ("active_speed", "active_width"):
                port[key] = value
            seen = seen or key in ("state", "phys_state", "link_layer")
        elif key == "fw_ver":
            cas[-1]["firmware"] = value or None
        elif key in ("node_guid", "sys_image_guid"):
            cas[-1]["node_guid" if key == "node_guid" else "system_guid"] = value or None
        elif key == "vendor_id":
            cas[-1]["vendor"] = value.lower()
        elif key == "vendor_part_id" and value.isdigit() and int(value):  # MT<part>: a Mellanox/NVIDIA part's name
            vendor = cas[-1].get("vendor", "0x02c9")
            cas[-1]["ca_type"] = f"MT{value}" if vendor in ("0x02c9", "0x15b3") else f"vendor {vendor}, part {value}"
    if not seen and unopened:
        raise ParseError(IBV_CMD, f"ibv_devinfo could not open any of the {unopened} RDMA devices it found (`Failed "
                         "to open device`): in a container, their device files (/dev/infiniband/uverbs*) are not "
                         "passed in; on a host, run it as a user who may open them or check `rdma link`")
    if not seen:
        raise ParseError(IBV_CMD, "no device found (expected `hca_id: <name>` and its `port:` blocks)")
    out = []
    for c in cas:
        ports = []
        for p in c["ports"]:
            width, speed = _IBV_WIDTH_RE.match(p.get("active_width", "")), _IBV_SPEED_RE.match(p.get("active_speed", ""))
            rate = float(speed.group("n")) * int(width.group("n")) if width and speed else None
            ports.append(IbPort(p["port"], p.get("state"), p.get("physical_state"), rate, p.get("link_layer"),
                                p.get("active_mtu"), tuple(p["gids"]), p.get("sm_lid"), p.get("base_lid")))
        out.append(CaInfo(c["ca"], c.get("ca_type"), c.get("firmware"), tuple(ports), c.get("node_guid"),
                          c.get("system_guid")))
    truncated = cas[0]["ca"] is None
    return CaList(out, truncated, unopened=unopened)
