"""Parser for Mellanox/NVIDIA OFED's ``show_gids`` table.

Shape (columns separated by tabs; the IPv4 column is empty for non-IPv4 GIDs)::

    DEV     PORT    INDEX   GID                                     IPv4            VER     DEV
    ---     ----    -----   ---                                     ------------    ---     ---
    rocep1s0f1      1       0       fe80:0000:0000:0000:0e42:a1ff:fe2c:1234                 v1      enp1s0f1np1
    rocep1s0f1      1       3       0000:0000:0000:0000:0000:ffff:c0a8:640a 192.168.100.10  v2      enp1s0f1np1
    n_gids_found=4

The last DEV column is the netdev. ``VER`` v2 = RoCE v2 (routable, UDP); the row with v2 and an
IPv4 address gives the index for NCCL_IB_GID_INDEX and ``ib_write_bw -x`` (perftest prints it
as ``GID index : 3``). Source: procedure.md §2.2 [14-article] [MIA47].
"""

from __future__ import annotations

import dataclasses

import re
from dataclasses import dataclass

from .common import ParseError, content_lines, fail_on_line, is_comment_line, raise_if_shell_error
from .ib_sysfs import ipv4_of_gid

CMD = "show_gids"

_HEADER_RE = re.compile(r"^DEV\s+PORT\s+INDEX\s+GID\b", re.I)
_RULE_RE = re.compile(r"^-{2,}(?:\s+-+)*$")
# a GID may be redacted in a paste (`xxxx:xxxx:...`, `****`, `<redacted>`), and so may its IPv4 (`x.x.x.x`)
_REDACTED = r"(?:<[\w -]{1,20}>|\[[\w -]{1,20}\]|(?i:redacted|hidden|removed))"
# a GID as show_gids prints it (eight groups of four), or shortened by hand (`fe80::4ebb:...`, `::ffff:10.0.0.2`); a
# note a person wrote after the netdev (`<- MAC-derived link-local`), two blanks or more away, is left out
_ROW_RE = re.compile(r"^(?P<dev>\S+)\s+(?P<port>\d+)\s+(?P<index>\d+)\s+"
                     r"(?P<gid>[0-9a-fA-FxX*:]{2,}(?:\d{1,3}(?:\.\d{1,3}){3})?|" + _REDACTED + r")"
                     r"(?:\s+(?P<ipv4>[\dxX*]{1,3}(?:\.[\dxX*]{1,3}){3}|" + _REDACTED + r"))?"
                     r"\s+(?P<ver>v\d)(?:\s+(?P<ndev>[^\s<]\S*))?(?:\s{2,}\S.*)?\s*$")
_IPV4_MAPPED_RE = re.compile(r"^0{1,4}(?::0{1,4}){4}:ffff:", re.I)
_COUNT_RE = re.compile(r"^n_gids_found\s*=\s*(?P<n>\d+)\s*$")
_PARTIAL_RE = re.compile(r"^\S+\s+\d+(?:\s+\d+(?:\s+[0-9a-fA-F:]*)?)?.*$")


@dataclass(frozen=True)
class GidRow:
    """One ``show_gids`` row: RDMA device, port, GID index, GID, its IPv4 (None when the column
    is empty or redacted), RoCE version (``v1``/``v2`` as printed) and the netdev (None if not shown).
    ``redacted``: the GID or its IPv4 was masked in the paste (``xxxx``); ``ipv4_gid``: the GID is an
    IPv4-mapped one (from the IPv4 column, even redacted, or the ``::ffff:`` prefix), None when the
    redaction hides it."""

    device: str
    port: int
    index: int
    gid: str
    ipv4: str | None
    version: str
    netdev: str | None
    redacted: bool = False
    ipv4_gid: bool | None = None

    @property
    def is_roce_v2(self) -> bool:
        return self.version.lower() == "v2"

    @property
    def carries_ipv4(self) -> bool:
        """Whether this GID carries an IPv4 address (known, or shown redacted)."""
        return bool(self.ipv4) or bool(self.ipv4_gid)


class GidTable(list):
    """``list[GidRow]`` in printed order, plus ``n_gids_found`` (the count line, None if cut off),
    ``truncated`` (the last row was cut off and left out, or the count line is missing after a
    header) and ``simulated``."""

    def __init__(self, rows=(), n_gids_found: int | None = None, truncated: bool = False,
                 simulated: bool = False):
        super().__init__(rows)
        self.n_gids_found = n_gids_found
        self.truncated = truncated
        self.simulated = simulated

    def roce_v2_ipv4(self, device: str | None = None) -> list[GidRow]:
        """Rows that are RoCE v2 and carry an IPv4 address (of one device, or all)."""
        return [r for r in self if r.is_roce_v2 and r.carries_ipv4 and (device is None or r.device == device)]

    @property
    def redacted(self) -> bool:
        """Some GID or address was masked in the paste (``xxxx``)."""
        return any(r.redacted for r in self)


def parse_show_gids(text: str) -> GidTable:
    """Parse ``show_gids`` output into a GidTable (a list of GidRow).

    The header and its ``---`` rule are optional (a grep excerpt has only rows). The IPv4 column
    is read from the table, or decoded from an IPv4-mapped GID when the column is missing.
    A cut-off last row is left out and sets ``truncated``.

    ``n_gids_found=0`` gives an empty table (show_gids found no GID: a fact, not a misreading), and so does a header
    followed only by its count line cut off (with no ``...`` where a person left rows out); lines after the ``n_gids_found=`` line are not read (another command's
    output pasted along).

    Raises ParseError for ``command not found``, a line of another shape, or no row at all without that count.
    """
    lines = content_lines(text, keep_comments=True)
    simulated = any("simulated" in x.text.lower() for x in lines)
    lines = [x for x in lines if not is_comment_line(x.text) and "simulated" not in x.text.lower()]
    raise_if_shell_error(lines, CMD)
    rows: list[GidRow] = []
    count: int | None = None
    truncated = False
    header = False
    for pos, line in enumerate(lines):
        s = line.text.strip()
        if _HEADER_RE.match(s):
            header = True
            continue
        if _RULE_RE.match(s):
            continue
        m = _COUNT_RE.match(s)
        if m:
            count = int(m.group("n"))
            break  # show_gids' last line: what follows is something else pasted along
        m = _ROW_RE.match(s)
        if m:
            rows.append(_row(m))
            continue
        if pos == len(lines) - 1 and (rows or header) and (_PARTIAL_RE.match(s) or s.startswith("n_gids")):
            truncated = True  # a row, or the count line, cut off
            continue
        raise fail_on_line(CMD, line, "expected a row `<dev> <port> <index> <gid> [<ipv4>] v1|v2 <netdev>`")
    elided = any(x.strip() in ("...", "\u2026", "[...]") for x in text.splitlines())  # rows a person left out
    if not rows and count != 0 and not (header and truncated and lines[-1].text.strip().startswith("n_gids")
                                        and not elided):
        raise ParseError(CMD, "no GID row found (no RDMA device, or no GID configured)")
    if header and count is None:
        truncated = True
    return GidTable(_whole_names(rows), count, truncated, simulated)


def _whole_names(rows: list[GidRow]) -> list[GidRow]:
    """Rows whose device name is the end of another row's name on the same netdev (``ocep1s0f0`` beside
    ``rocep1s0f0``, both of ``enp1s0f0np0``: a paste that lost the line's first characters) given that whole name."""
    by_netdev: dict[str, set[str]] = {}
    for r in rows:
        if r.netdev:
            by_netdev.setdefault(r.netdev, set()).add(r.device)
    whole = {(d, n): w for n, devs in by_netdev.items() if len(devs) > 1 for d in devs for w in devs
             if len(w) > len(d) and w.endswith(d)}  # (a netdev has a device or two: linear in the rows)
    return [dataclasses.replace(r, device=whole[(r.device, r.netdev)]) if (r.device, r.netdev) in whole else r
            for r in rows]


def _is_masked(value: str | None) -> bool:
    return bool(value) and not re.fullmatch(r"[0-9a-fA-F:.]+", value or "")


def _row(m: re.Match) -> GidRow:
    gid, col = m.group("gid"), m.group("ipv4")
    gid_masked, ip_masked = _is_masked(gid), _is_masked(col)
    ipv4 = None if ip_masked else col
    if ipv4 is None and not gid_masked:
        ipv4 = ipv4_of_gid(gid)
    if col or ipv4:
        mapped: bool | None = True
    elif _IPV4_MAPPED_RE.match(gid) or gid.lower().startswith("::ffff:"):
        mapped = True  # `0000:...:ffff:xxxx:xxxx`: an IPv4 GID with its address masked
    elif gid_masked and not re.match(r"^fe80:", gid, re.I):
        mapped = None  # masked beyond telling
    else:
        mapped = False
    netdev = m.group("ndev")  # no interface name ends in a dot: one there ends the poster's sentence ("... net1.")
    return GidRow(m.group("dev"), int(m.group("port")), int(m.group("index")), gid, ipv4, m.group("ver"),
                  netdev.rstrip(".") or netdev if netdev else netdev, redacted=gid_masked or ip_masked, ipv4_gid=mapped)
