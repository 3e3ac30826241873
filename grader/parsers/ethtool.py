"""Parser for ``ethtool IF``: negotiated speed, duplex, auto-negotiation, link state; and ``ethtool --show-fec IF``
(``FEC parameters for IF:``, ``Supported/Configured FEC encodings: Auto``, ``Active FEC encoding: RS``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .common import Line, ParseError, command_argv, content_lines, fail_on_line, key_value, raise_if_shell_error

_SETTINGS_RE = re.compile(r"^\s*(?:Settings|FEC parameters) for (?P<iface>\S+?):\s*$")
_KEY_RE = re.compile(r"^\s*(?P<key>[A-Za-z][\w /()-]*?):\s*(?P<value>.*)$")
_FATAL_RE = re.compile(r"No such device|Cannot get device settings|no device matches name"
                       r"|Operation not supported|ethtool: bad command line", re.I)
# messages ethtool prints beside good output when not run as root, or for missing features
_HARMLESS_RE = re.compile(r"^\s*(?:Cannot get (?!device settings).*|No data available"
                          r"|netlink error: Operation not permitted"
                          r"|\[sudo\] [^\n]{0,80}:)\s*$", re.I)  # a sudo prompt in any language
_SPEED_RE = re.compile(r"^(?P<n>\d+)\s*Mb/s$")


@dataclass(frozen=True)
class EthtoolReport:
    """One interface's settings as ethtool printed them.

    ``interface`` from the ``Settings for IF:`` line, else from the ``ethtool IF`` prompt
    above a grep excerpt, else None. ``speed_mbps`` in Mb/s (200000 = 200 GbE; None for
    ``Unknown!``, i.e. no link). ``duplex`` as printed (``Full``, ``Half``; None if
    ``Unknown!`` or absent). ``auto_negotiation`` and ``link_detected`` None when absent.
    ``port`` as printed (``Direct Attach Copper``, ``FIBRE``, ``Twisted Pair``...). ``speed_shown``: a
    ``Speed:`` line was read. ``fec_configured``/``fec_active`` from ``--show-fec`` (``Auto``, ``RS``, ``Off``...).
    ``driver``, ``bus_info`` and ``firmware`` from ``ethtool -i`` (``mlx5_core``, ``0000:01:00.0``; ``veth`` and a
    blank bus: a virtual interface).
    """

    interface: str | None
    speed_mbps: int | None = None
    duplex: str | None = None
    auto_negotiation: bool | None = None
    link_detected: bool | None = None
    port: str | None = None
    speed_shown: bool = False
    fec_configured: str | None = None
    fec_active: str | None = None
    advertised_modes: tuple[str, ...] = ()
    partner_modes: tuple[str, ...] = ()
    supported_modes: tuple[str, ...] = ()  # ``Supported link modes``: what this port can run
    driver: str | None = None
    bus_info: str | None = None
    firmware: str | None = None
    modes_not_reported: bool = False  # ``Advertised link modes: Not reported``: a driver without physical modes
    """``Advertised link modes`` and ``Link partner advertised link modes`` (``10000baseT/Full`` ...), as printed
    over their continuation lines: what auto-negotiation chooses from when the link comes up."""

    @property
    def common_top_mode_mbps(self) -> int | None:
        """The fastest mode both ends advertise, in Mb/s (``10000baseT/Full`` -> 10000), or None."""
        both = set(self.advertised_modes) & set(self.partner_modes)
        speeds = [int(m.group(1)) for m in map(_MODE_RE.match, both) if m]
        return max(speeds) if speeds else None


def _yes(value: str) -> bool | None:
    """``yes``/``on`` True, ``no``/``off`` False, else None; ethtool 5.x+'s reason after it is left
    (``Link detected: no (No cable)``), as is a person's note (``yes   <====``)."""
    v = (value.strip().lower().split(" (", 1)[0].split() or [""])[0]
    return True if v in ("yes", "on") else False if v in ("no", "off") else None


_DRIVER_KEYS = {"driver": "driver", "bus-info": "bus_info", "firmware-version": "firmware"}
_MODE_RE = re.compile(r"^(\d+)base[\w-]*/(?:Full|Half)$")
_MODE_LISTS = {"Advertised link modes": "advertised_modes", "Link partner advertised link modes": "partner_modes",
               "Supported link modes": "supported_modes"}


def _modes(value: str) -> tuple[str, ...]:
    return tuple(w for w in value.split() if _MODE_RE.match(w))


def _field(key: str, value: str, line: Line) -> tuple[str, object] | None:
    """Map one ``Key: value`` line to a report field, None for keys we do not keep."""
    value = value.strip()
    if key == "Speed":
        m = _SPEED_RE.match(value)
        if m:
            return "speed_mbps", int(m.group("n"))
        if value.lower().startswith("unknown") or not value:
            return "speed_mbps", None
        raise fail_on_line("ethtool", line, f"cannot read speed {value!r} (expected e.g. 200000Mb/s)")
    if key == "Duplex":
        return "duplex", None if value.lower().startswith("unknown") else value
    if key == "Auto-negotiation":
        return "auto_negotiation", _yes(value)
    if key == "Link detected":
        return "link_detected", _yes(value)
    if key == "Port":
        return "port", value or None
    if key in ("Supported/Configured FEC encodings", "Configured FEC encodings"):
        return "fec_configured", value or None
    if key == "Active FEC encoding":
        return "fec_active", value or None
    if key == "Advertised link modes" and value.strip() == "Not reported":
        return "modes_not_reported", True  # (what a virtual NIC's driver prints: it has no physical modes)
    if key in _MODE_LISTS:
        return _MODE_LISTS[key], _modes(value)
    if key in _DRIVER_KEYS:  # ethtool -i
        return _DRIVER_KEYS[key], value or None
    return None


def parse_ethtool(text: str) -> list[EthtoolReport]:
    """Parse ``ethtool IF`` output, full or as grep excerpts, into reports in order.

    Full output has one ``Settings for IF:`` block per interface (several may be pasted
    together). Excerpts such as ``sudo ethtool IF | grep Speed`` have only ``Speed:`` lines;
    their interface comes from the prompt line when present, else None. A key seen again
    without a new header (two ``Speed:`` lines under one prompt) starts a new report.

    Raises ParseError for ``No such device`` / ``Cannot get device settings`` and similar
    fatal errors, ``command not found``, a line it cannot read, or no data at all.
    """
    lines = content_lines(text)
    raise_if_shell_error(lines, "ethtool")
    reports: list[EthtoolReport] = []
    current: EthtoolReport | None = None
    seen: set[str] = set()
    group = -1
    fatal = [x for x in lines if _FATAL_RE.search(x.text) and not _HARMLESS_RE.match(x.text)]
    if fatal:
        worst = next((x for x in fatal if "no such device" in x.text.lower()), fatal[0])
        raise fail_on_line("ethtool", worst, "ethtool could not read the interface (wrong name, "
                           f"or not on this machine): {worst.text.strip()}")
    listing: str | None = None  # the link-mode list whose continuation lines may follow
    for line in lines:
        s = line.text.strip()
        header = _SETTINGS_RE.match(line.text)
        if header or line.group != group:
            if current is not None:
                reports.append(current)
            group = line.group
            current, seen = EthtoolReport(header.group("iface") if header else _prompt_iface(line)), set()
            if header:
                continue
        kv = _KEY_RE.match(line.text)
        if kv:
            field = _field(kv.group("key").strip(), kv.group("value"), line)
            listing = field[0] if field is not None and field[0] in _MODE_LISTS.values() else None
            if field is None:
                continue
            if field[0] in seen:  # a second excerpt under one prompt: interface unknown
                reports.append(current)
                current, seen = EthtoolReport(None), set()
            seen.add(field[0])
            current = replace(current, **{field[0]: field[1]})
            if field[0] == "speed_mbps":
                current = replace(current, speed_shown=True)
        elif listing and current is not None and _modes(s) and len(_modes(s)) == len(s.split()):
            current = replace(current, **{listing: getattr(current, listing) + _modes(s)})  # its continuation line
        elif not (_is_continuation(line.text) or _HARMLESS_RE.match(s)):
            raise fail_on_line("ethtool", line, "expected `Settings for IF:` or `Key: value`")
    if current is not None:
        reports.append(current)
    reports = [r for r in reports if r != EthtoolReport(r.interface)]
    if not reports:
        raise ParseError("ethtool", "no settings found (expected `Settings for IF:` or a `Speed:` line)")
    return reports


def _is_continuation(text: str) -> bool:
    """Indented lines without a colon continue a list (``Supported link modes:``)."""
    return text[:1].isspace() and ":" not in text


def _prompt_iface(line: Line) -> str | None:
    """The interface named in ``ethtool [opts] IF`` on the prompt above this line."""
    argv = command_argv(line.command)
    if not argv or argv[0] != "ethtool":
        return None
    args = [a for a in argv[1:] if not a.startswith("-")]
    return args[0] if args else None


# --------------------------------------------------------------------------- ethtool -m

MODULE_COMMAND = "ethtool -m"
_MODULE_KEY_RE = re.compile(r"[A-Za-z][\w ,./()+-]*+")  # a module EEPROM's key (common.key_value)
_FLAG_RE = re.compile(r"\b(?:alarm|warning)(?:\s*\(Chan(?:nel)? \d+\))?$", re.I)  # `... high alarm : On`, a lane's
# `Rcvr signal avg optical power low alarm    (Chan 1) : On` (ethtool prints lane flags so, SFF-8636 and CMIS alike)
_DEGREES_RE = re.compile(r"^(?P<c>-?\d+(?:\.\d+)?) degrees C")


@dataclass(frozen=True)
class ModuleInfo:
    """``ethtool -m IF`` (``--module-info``): a pluggable module's EEPROM and, where it has them, its readings
    (DOM). ``fields`` every ``Key : value`` as printed, the first of a repeated key; ``flags_on`` the alarm and
    warning flags that read ``On``, ``flags`` how many flags were shown; ``temperature_c`` the module's temperature
    (°C) and ``temperature_warn_c``/``temperature_alarm_c`` its own high thresholds, None where not shown."""

    interface: str | None
    fields: dict[str, str]
    flags_on: tuple[str, ...] = ()
    flags: int = 0
    temperature_c: float | None = None
    temperature_warn_c: float | None = None
    temperature_alarm_c: float | None = None
    transceiver_types: tuple[str, ...] = ()  # every ``Transceiver type`` line (a module lists one per standard it meets)

    def get(self, key: str) -> str | None:
        return self.fields.get(key)


def parse_module_info(text: str) -> ModuleInfo:
    """Parse ``ethtool -m`` (whole, or a ``grep`` of it). ParseError for ethtool's errors (a port with no module:
    ``Cannot get module EEPROM information``) or no ``Key : value`` line."""
    lines = content_lines(text)
    raise_if_shell_error(lines, MODULE_COMMAND)
    for line in lines:
        if re.search(r"Cannot get Module EEPROM|Operation not supported|No such device", line.text, re.I):
            raise fail_on_line(MODULE_COMMAND, line, f"ethtool could not read the module: {line.text.strip()} (no "
                               "module in the port, or a driver that does not expose its EEPROM)")
    argv = next((command_argv(x.command) for x in lines if x.command), [])
    iface = next((a for a in argv[1:] if not a.startswith("-")), None)
    fields: dict[str, str] = {}
    on: list[str] = []
    flags, types = 0, []
    for line in lines:
        kv = key_value(line.text, _MODULE_KEY_RE)
        if kv is None:
            continue
        key, value = kv
        fields.setdefault(key, value)
        types += [value] if key == "Transceiver type" else []
        if _FLAG_RE.search(key) and value in ("On", "Off"):
            flags += 1
            if value == "On":
                on.append(key)
    if not fields:
        raise ParseError(MODULE_COMMAND, "no `Key : value` line of a module's EEPROM (`Identifier : 0x11 (QSFP28)`)")

    def degrees(key: str) -> float | None:
        d = _DEGREES_RE.match(fields.get(key, ""))
        return float(d.group("c")) if d else None
    return ModuleInfo(iface, fields, tuple(on), flags, degrees("Module temperature"),
                      degrees("Module temperature high warning threshold"),
                      degrees("Module temperature high alarm threshold"), tuple(types))
