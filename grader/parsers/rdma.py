"""Parser for iproute2's ``rdma link`` (``rdma link show``, ``rdma -d link``, ``rdma -j link``).

Text shapes, one port per line (procedure.md §2.2):

    link rocep1s0f1/1 state ACTIVE physical_state LINK_UP netdev enp1s0f1np1
    link rocep1s0f0/1 state DOWN physical_state DISABLED netdev enp1s0f0np0
    1/1: mlx5_0/1: state ACTIVE physical_state LINK_UP netdev ens1f0      (iproute2 4.x)
    link mlx5_0/1 subnet_prefix fe80:0000:0000:0000 lid 1 sm_lid 1 lmc 0 state ACTIVE physical_state LINK_UP
        caps: <AUTO_MIGR, ...>                                            (rdma -d: skipped)

JSON (``rdma -j link``, ``-p`` pretty): a list of objects with ``ifname``, ``port``, ``state``,
``physical_state``, ``netdev``. The ``state`` field (ACTIVE, DOWN, INIT, ARMED, POLLING) says
whether RDMA traffic can flow; ``physical_state`` (LINK_UP, DISABLED, POLLING...) only says the
cable trained. The two can disagree, so verdicts read ``state``.

Source: iproute2 rdma(8); the Spark shapes from procedure.md §2.2 [14-article].
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import (Line, ParseError, as_int, content_lines, fail_on_line, find_json_start,
                     is_comment_line, load_json_lenient, raise_if_shell_error)

CMD = "rdma link"

#: port states the kernel reports (ib_port_state names as rdma prints them)
PORT_STATES = ("NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER")

_LINK_RE = re.compile(r"^\s*(?:\d+/\d+:\s+)?(?:link\s+)?(?P<dev>[^\s/]+)/(?P<port>\d+):?(?:\s+(?P<rest>.*))?$")
_STATE_RE = re.compile(r"(?<![\w])state\s+(?P<v>\S+)")
_PHYS_RE = re.compile(r"(?<![\w])physical_state\s+(?P<v>\S+)")
_NETDEV_RE = re.compile(r"(?<![\w])netdev\s+(?P<v>\S+)")
_LID_RE = re.compile(r"(?<![\w])lid\s+(?P<lid>\d{1,5})\s+sm_lid\s+(?P<sm>\d{1,5})\b")
_CAPS_RE = re.compile(r"^\s*caps:")
_ERROR_RE = re.compile(r"^(?:Error|error):|^rdma: |Unknown device|Wrong device name|Object \".*\" is unknown", re.I)


@dataclass(frozen=True)
class RdmaLink:
    """One RDMA port as ``rdma link`` shows it.

    ``device`` the RDMA device (``rocep1s0f1``), ``port`` its port number (1 on a Spark),
    ``state`` the logical port state as printed (``ACTIVE``, ``DOWN``, ``INIT``...; None if the
    line was cut before it), ``physical_state`` (``LINK_UP``, ``DISABLED``, ``POLLING``...;
    None when absent), ``netdev`` the Ethernet interface it rides on (None for InfiniBand
    ports or when not shown). ``truncated`` marks the last line of a cut-off paste. ``lid``: the port's InfiniBand LID
    and ``sm_lid`` its subnet manager's (``lid 12 sm_lid 4``: an InfiniBand port), None on RoCE or when not shown.
    """

    device: str
    port: int
    state: str | None
    physical_state: str | None
    netdev: str | None
    truncated: bool = False
    lid: int | None = None
    sm_lid: int | None = None

    @property
    def is_active(self) -> bool:
        """True when the port state is ACTIVE (traffic can flow). Reads ``state`` only."""
        return (self.state or "").upper() == "ACTIVE"


class RdmaLinks(list):
    """A ``list[RdmaLink]`` in printed order, plus what the paste said about itself.

    ``simulated``: a line said the output is simulated (clusterlab's sim). ``truncated``: the
    last line was cut off (that link is kept with ``truncated=True``). ``json``: read from
    ``rdma -j``.
    """

    def __init__(self, links=(), simulated: bool = False, truncated: bool = False, json: bool = False):
        super().__init__(links)
        self.simulated = simulated
        self.truncated = truncated
        self.json = json

    def by_device(self, device: str) -> RdmaLink | None:
        """The first link of an RDMA device, or None."""
        return next((x for x in self if x.device == device), None)


_DEV_RE = re.compile(r"^(?:rdma(?:\s++-\S++){0,3}\s++dev(?:\s++show)?|\d{1,4}: [\w.-]{1,64}: node_type \S[^\n]{0,400})$")
"""``rdma dev`` typed bare beside ``rdma link``, and its lines (``0: bnxt_re0: node_type ca protocol roce fw ...``):
another command's output in the same block, set aside."""


def parse_rdma_link(text: str) -> RdmaLinks:
    """Parse ``rdma link`` text or ``rdma -j link`` JSON into RdmaLinks (a list of RdmaLink).

    Lines may come in any order; prompts, comments, blanks and ``caps:`` lines are skipped;
    a comment or line containing "simulated" sets ``simulated``. A last line cut off before
    ``physical_state`` is kept with ``truncated=True`` (its ``state`` None if not a full word).

    Lines of another shape after the last link line end it (another output pasted below it). Raises ParseError for
    ``command not found``, ``rdma``'s own error lines, a line of another shape before a link line, invalid JSON, or no
    link at all (no RDMA device, or the driver is not loaded).
    """
    lines = content_lines(text, keep_comments=True)
    simulated = any("simulated" in x.text.lower() for x in lines)
    lines = [x for x in lines if not is_comment_line(x.text) and "simulated" not in x.text.lower()]
    raise_if_shell_error(lines, CMD)
    start = find_json_start(lines)
    if start is not None:
        return _parse_json(lines[start:], simulated)
    links: list[RdmaLink] = []
    truncated = False
    for pos, line in enumerate(lines):
        s = line.text.strip()
        if _CAPS_RE.match(s) or _DEV_RE.match(s):
            continue
        if _ERROR_RE.search(s):
            raise fail_on_line(CMD, line, f"rdma reported an error: {s}")
        m = _LINK_RE.match(s)
        if not m and links and not any(_LINK_RE.match(x.text.strip()) for x in lines[pos:]):
            break  # another program's output pasted after the links, with no command line between (blind batch wi013)
        if not m:
            raise fail_on_line(CMD, line, "expected `link <device>/<port> state <STATE> physical_state "
                                          "<PHYS> netdev <netdev>`")
        link = _link_from_text(m, line, last=pos == len(lines) - 1)
        truncated = truncated or link.truncated
        links.append(link)
    if not links:
        raise ParseError(CMD, "no `link <device>/<port> state ...` line found (no RDMA device, or the "
                              "mlx5_ib/rdma driver is not loaded)")
    return RdmaLinks(links, simulated, truncated)


def _link_from_text(m: re.Match, line: Line, last: bool) -> RdmaLink:
    rest = m.group("rest") or ""
    st, ph, nd = _STATE_RE.search(rest), _PHYS_RE.search(rest), _NETDEV_RE.search(rest)
    state = st.group("v") if st else None
    if last and ph is None and nd is None:  # a paste cut inside its last line
        if state is not None and state.upper() not in PORT_STATES:
            state = None  # "state ACTI": the word itself was cut
        return RdmaLink(m.group("dev"), int(m.group("port")), state, None, None, truncated=True)
    if state is None:
        raise fail_on_line(CMD, line, "no `state <STATE>` on this link line")
    lid = _LID_RE.search(rest)
    return RdmaLink(m.group("dev"), int(m.group("port")), state, ph.group("v") if ph else None,
                    nd.group("v") if nd else None, lid=int(lid.group("lid")) if lid else None,
                    sm_lid=int(lid.group("sm")) if lid else None)


def _parse_json(lines: list[Line], simulated: bool) -> RdmaLinks:
    body = "\n".join(x.text for x in lines)
    value, truncated = load_json_lenient(body, CMD, lines[0].no)
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        raise ParseError(CMD, "the JSON is not a list of links", lines[0].text.strip(), lines[0].no)
    links = []
    for pos, item in enumerate(value):
        if truncated and pos == len(value) - 1 and not (isinstance(item, dict) and "ifname" in item and "port" in item):
            continue  # the object the paste was cut inside
        if not isinstance(item, dict):
            raise ParseError(CMD, f"a JSON item is not an object: {item!r:.60}", lines[0].text.strip(), lines[0].no)
        dev = item.get("ifname") or item.get("dev")
        port = as_int(item.get("port"))
        if not isinstance(dev, str) or port is None:
            raise ParseError(CMD, "a JSON link has no `ifname`/`port`", lines[0].text.strip(), lines[0].no)
        state, phys, netdev = item.get("state"), item.get("physical_state"), item.get("netdev")
        links.append(RdmaLink(dev, port, state if isinstance(state, str) else None,
                              phys if isinstance(phys, str) else None,
                              netdev if isinstance(netdev, str) else None,  # an InfiniBand port's "lid", "sm_lid"
                              lid=as_int(item.get("lid")), sm_lid=as_int(item.get("sm_lid"))))
    if not links:
        raise ParseError(CMD, "the JSON lists no link (no RDMA device, or the driver is not loaded)")
    return RdmaLinks(links, simulated, truncated, json=True)


# --------------------------------------------------------------------------- ibv_devices

IBV_DEVICES = "ibv_devices"
_DEVICES_HEADER_RE = re.compile(r"^\s*device\s+node GUID\s*$")
_DEVICES_ROW_RE = re.compile(r"^\s*(?P<dev>[A-Za-z][\w.-]{0,63})\s+(?P<guid>[0-9a-fA-F]{16}|[0-9a-fA-F:x.*]{4,39})\s*$")


class DeviceList(list):
    """``list[str]``: the device names in printed order, plus ``zero_guid``: those whose node GUID reads all zeros
    (``0000000000000000``: no GUID was ever given to it, as an SR-IOV virtual function left unconfigured shows)."""

    def __init__(self, devices=(), zero_guid: tuple[str, ...] = (), unclaimed: tuple[str, ...] = ()):
        super().__init__(devices)
        self.zero_guid = zero_guid
        self.unclaimed = unclaimed  # libibverbs' `no userspace device-specific driver found for .../uverbsN` paths


def parse_ibv_devices(text: str) -> list[str]:
    """The RDMA device names ``ibv_devices`` lists (rdma-core's libibverbs/examples/devices.c)::

            device                 node GUID
            ------              ----------------
            rocep1s0f0          30c59903001b7c62

    Raises ParseError when neither its header nor a row is found; never otherwise."""
    lines = content_lines(text)
    header = any(_DEVICES_HEADER_RE.match(x.text) for x in lines)
    rows = [m for x in lines if (m := _DEVICES_ROW_RE.match(x.text)) and m.group("dev") != "device"]
    if not header and not rows:
        raise ParseError(IBV_DEVICES, "no `device  node GUID` table found")
    unclaimed = tuple(m.group(1) for x in lines if (m := re.search(r"no userspace device-specific driver found for "
                                                                  r"(\S{1,200})", x.text)))
    return DeviceList([m.group("dev") for m in rows], tuple(dict.fromkeys(
        m.group("dev") for m in rows if re.fullmatch(r"0{16}", m.group("guid")))), unclaimed)
