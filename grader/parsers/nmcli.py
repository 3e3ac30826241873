"""Parser of NetworkManager's tables as ``nmcli`` prints them: ``nmcli device [status]`` (columns DEVICE, TYPE, STATE,
CONNECTION) and ``nmcli connection [show]`` (NAME, UUID, TYPE, DEVICE), in the tabular mode (a header line, columns
padded with at least two spaces: nmcli(1), ``--mode tabular``) or, under a ``-t``/``--terse`` command, as
colon-separated rows in the default fields' order. ``--`` is nmcli's empty value: None here.

Shapes: :class:`NmcliTables` of :class:`NmDevice` and :class:`NmProfile` rows, in the order printed; a paste may hold
both tables (two commands) or either. ParseError when neither table is found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import ParseError, command_argv, content_lines, raise_if_shell_error


@dataclass(frozen=True)
class NmDevice:
    """One row of ``nmcli device``: the interface, its type (``ethernet``, ``wifi``, ``bridge``, ``loopback``...),
    NetworkManager's state of it (``connected``, ``connected (externally)``, ``connecting (getting IP
    configuration)``, ``disconnected``, ``unavailable``, ``unmanaged``...; as printed, lower case) and the profile
    active on it (None: ``--``)."""

    device: str
    type: str | None
    state: str
    connection: str | None


@dataclass(frozen=True)
class NmProfile:
    """One row of ``nmcli connection``: a profile's name, UUID, type, and the device it is active on (None: not
    active)."""

    name: str
    uuid: str | None
    type: str | None
    device: str | None


@dataclass(frozen=True)
class NmcliTables:
    devices: tuple[NmDevice, ...]
    profiles: tuple[NmProfile, ...]


_COLUMNS = {"DEVICE", "TYPE", "STATE", "CONNECTION", "NAME", "UUID", "TIMESTAMP", "TIMESTAMP-REAL", "AUTOCONNECT",
            "AUTOCONNECT-PRIORITY", "READONLY", "DBUS-PATH", "ACTIVE", "ACTIVE-PATH", "SLAVE", "FILENAME", "IP4-CONNECTIVITY",
            "IP6-CONNECTIVITY", "HWADDR", "MTU", "CON-UUID", "CON-PATH", "PORT", "CONTROLLER", "BUS-INFO"}
_HEADER_RE = re.compile(r"^[A-Z][A-Z0-9-]{1,24}(?: {2,40}[A-Z][A-Z0-9-]{1,24}){1,12} {0,40}$")
_GAP_RE = re.compile(r" {2,}|\t+")
_UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_TERSE_FIELDS = {"d": ("DEVICE", "TYPE", "STATE", "CONNECTION"), "c": ("NAME", "UUID", "TYPE", "DEVICE")}


def is_table_header(line: str) -> bool:
    """Whether ``line`` is the header of an nmcli device or connection table (``DEVICE  TYPE  STATE  CONNECTION``)."""
    s = line.strip()
    if not _HEADER_RE.match(s):
        return False
    cols = _GAP_RE.split(s)
    return set(cols) <= _COLUMNS and ({"DEVICE", "STATE"} <= set(cols) or {"NAME", "DEVICE"} <= set(cols))


def _cells(line: str, header: str, cols: list[str]) -> list[str]:
    """A row's cells: split at the two-space gaps nmcli pads with; where that gives another count (a value with two
    spaces in it, an empty cell), cut at the header's column starts."""
    cells = _GAP_RE.split(line.strip())
    if len(cells) == len(cols):
        return cells
    starts = [header.index(c) for c in cols]  # (header words are distinct)
    return [line[a:b].strip() for a, b in zip(starts, [*starts[1:], None])]


def _none(value: str | None) -> str | None:
    return None if value in (None, "", "--") else value


def _row(fields: dict[str, str]) -> NmDevice | NmProfile | None:
    if "STATE" in fields and "DEVICE" in fields:
        return NmDevice(fields["DEVICE"], _none(fields.get("TYPE")), fields["STATE"].lower(),
                        _none(fields.get("CONNECTION")))
    if "NAME" in fields and "DEVICE" in fields:
        uuid = _none(fields.get("UUID"))
        return NmProfile(fields["NAME"], uuid if uuid and _UUID_RE.match(uuid) else None, _none(fields.get("TYPE")),
                         _none(fields["DEVICE"]))
    return None


def _terse_fields(command: str | None) -> tuple[str, ...] | None:
    """The fields of ``nmcli -t device|connection`` rows (the defaults; ``-f A,B`` when given), else None."""
    argv = command_argv(command) or []
    if not argv or argv[0] != "nmcli" or not any(a in ("-t", "--terse") or re.match(r"^-[a-z]*t[a-z]*$", a)
                                                 for a in argv[1:]):
        return None
    words = [a for i, a in enumerate(argv[1:], 1) if not a.startswith("-") and argv[i - 1] not in ("-f", "--fields")]
    obj = next((w[0] for w in words if w[0] in "dc"), None)
    given = next((argv[i + 1] for i, a in enumerate(argv[:-1]) if a in ("-f", "--fields")), None)
    if given:
        return tuple(f.strip().upper() for f in given.split(","))
    return _TERSE_FIELDS.get(obj) if obj else None


def parse_nmcli(text: str) -> NmcliTables:
    lines = content_lines(text)
    raise_if_shell_error(lines, "nmcli")
    devices: list[NmDevice] = []
    profiles: list[NmProfile] = []
    header: str | None = None
    cols: list[str] = []
    terse: tuple[str, ...] | None = None
    group = -1
    for line in lines:
        raw = line.text.rstrip()
        if line.group != group:  # under another prompt: another command's rows
            group, header, terse = line.group, None, _terse_fields(line.command)
        if is_table_header(raw):
            header, cols, terse = raw, _GAP_RE.split(raw.strip()), None
            continue
        if not raw.strip():
            continue
        if terse:
            values = re.split(r"(?<!\\):", raw.strip())
            fields = dict(zip(terse, (v.replace("\\:", ":") for v in values))) if len(values) == len(terse) else {}
        elif header:
            fields = dict(zip(cols, _cells(raw, header, cols)))
        else:
            continue
        row = _row(fields)
        if isinstance(row, NmDevice):
            devices.append(row)
        elif isinstance(row, NmProfile):
            profiles.append(row)
    if not devices and not profiles:
        raise ParseError("nmcli", "no `nmcli device` (DEVICE TYPE STATE CONNECTION) or `nmcli connection` (NAME UUID "
                         "TYPE DEVICE) table found")
    return NmcliTables(tuple(devices), tuple(profiles))


# --------------------------------------------------------------------------- one profile's or device's properties

_PROPERTY_RE = re.compile(r"^\s{0,4}(?P<key>(?:[a-z0-9-]{2,40}|GENERAL|IP4|IP6|DHCP4|DHCP6|WIRED-PROPERTIES|CAPABILITIES|"
                          r"INTERFACE-FLAGS|CONNECTIONS|BOND|BRIDGE)\.[A-Za-z0-9-]{1,60}(?:\[\d{1,3}\])?):"
                          r"(?:\s{1,60}(?P<value>\S.{0,500}?))?\s{0,60}$")


def parse_nmcli_show(text: str) -> dict[str, str | None]:
    """``nmcli [-f FIELDS] [-p] connection show NAME`` or ``nmcli device show [IF]``: each property as printed, in
    order, ``--`` and empty values None; a value nmcli wrapped onto the next lines (``{ ip = ..., gw = ... }``) joined.
    A second device's block (``device show`` of all devices) starts again at its ``GENERAL.DEVICE``: only the first
    block is read here. ParseError when no property line is found."""
    lines = content_lines(text)
    raise_if_shell_error(lines, "nmcli")
    props: dict[str, str | None] = {}
    last: str | None = None
    for line in lines:
        m = _PROPERTY_RE.match(line.text)
        if m:
            key = m.group("key")
            if key in props and key in ("GENERAL.DEVICE", "connection.id"):
                break
            props[key], last = _none((m.group("value") or "").strip()), key
        elif last and line.text.startswith(" ") and line.text.strip() and not set(line.text.strip()) <= set("-="):
            props[last] = f"{props[last] or ''} {line.text.strip()}".strip()
    if not props:
        raise ParseError("nmcli", "no `key:  value` property lines (`nmcli connection show NAME`, `nmcli device show "
                         "IF`) found")
    return props
