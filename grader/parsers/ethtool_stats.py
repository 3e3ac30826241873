"""Parsers for ``ethtool -S IF`` (the NIC's counters, often filtered with ``| grep``) and ``ethtool -a IF`` (its pause
frame settings)::

    NIC statistics:                         Pause parameters for eth11:
         rx_packets: 1543                   Autonegotiate:  off
         link_down_events_phy: 3            RX:    on
         rx_discards_phy: 0                 TX:    off

Counters are kept as printed (``name -> int``); the interface is the command's when the paste shows it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .common import ParseError, command_argv, content_lines

COMMAND = "ethtool -S"
PAUSE_COMMAND = "ethtool -a"
STATS_FLAGS = ("-S", "--statistics", "-a", "--show-pause")
# DPAA2's `[hw] rx frames`; be2net's and others' per-queue `rxq0: rx_pkts` (the queue kept in the name)
_COUNTER_RE = re.compile(r"^\s*(?P<name>(?:\[\w{1,8}\] |[rt]xq\d{1,3}: )?[A-Za-z][\w.\[\] -]{0,80}?):\s+(?P<n>-?\d{1,20})\s*$")
_PAUSE_HEAD_RE = re.compile(r"^Pause parameters for (?P<iface>\S{1,40}):$")
_PAUSE_ROW_RE = re.compile(r"^(?P<key>Autonegotiate|RX|TX|RX negotiated|TX negotiated):\s+(?P<v>on|off)$")


@dataclass
class NicStats:
    """``counters``: interface (or None when not shown) -> {counter: value}; ``pause``: interface -> {Autonegotiate,
    RX, TX: True for on}."""

    counters: dict[str | None, dict[str, int]] = field(default_factory=dict)
    pause: dict[str, dict[str, bool]] = field(default_factory=dict)


def parse_ethtool_stats(text: str) -> NicStats:
    """Read ``ethtool -S`` counters and ``ethtool -a`` pause settings, each block under its command line when the paste
    shows one. Raises ParseError when neither a counter nor a pause block is found; never otherwise."""
    out = NicStats()
    iface: str | None = None
    pause_of: str | None = None
    command: str | None = None
    for line in content_lines(text):
        if line.command is not None and line.command != command:  # each line under a prompt carries its command
            command = line.command
            argv = command_argv(line.command)
            names = [a for a in argv[1:] if not a.startswith("-")]
            iface, pause_of = (names[0] if names else None), None
        s = line.text.strip().strip("*")  # a forum's bold around a row
        if m := _PAUSE_HEAD_RE.match(s):
            pause_of = m.group("iface").rstrip(":")
            out.pause.setdefault(pause_of, {})
        elif pause_of and (m := _PAUSE_ROW_RE.match(s)):
            out.pause[pause_of][m.group("key")] = m.group("v") == "on"
        elif m := _COUNTER_RE.match(line.text.strip("*")):
            out.counters.setdefault(iface, {})[m.group("name")] = int(m.group("n"))
    if not out.counters and not out.pause:
        raise ParseError(COMMAND, "no counter (`name: value` under `NIC statistics:`) and no `Pause parameters for "
                                  "IF:` block found")
    return out
