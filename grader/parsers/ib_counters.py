"""Parser for RDMA port counters read from sysfs, as ``grep`` prints them.

The reading (one counter, every device and port; or several counters; or one port's whole folder)::

    grep . /sys/class/infiniband/*/ports/*/counters/port_rcv_errors
    grep -H . /sys/class/infiniband/*/ports/*/counters/{port_rcv_errors,symbol_error,link_downed}
    grep -r . /sys/class/infiniband/rocep1s0f1/ports/1/counters/
    grep "" /sys/class/infiniband/*/ports/1/hw_counters/*      (the driver's own counters: mlx5's retransmissions,
                                                              sequence errors, congestion notifications)

prints one ``path:value`` line per file::

    /sys/class/infiniband/rocep1s0f1/ports/1/counters/port_rcv_errors:0
    /sys/class/infiniband/roceP2p1s0f1/ports/1/counters/port_rcv_errors:3

``cat <one counter file>`` (or ``grep . <one file>``) prints only the value; the path on the prompt
above says which counter it is. Each file holds one decimal count (Linux
Documentation/ABI/stable/sysfs-class-infiniband; NVIDIA MLNX_OFED: RDMA counters are read only
through sysfs, ``/sys/class/infiniband/<device>/ports/*/counters/``).

Read tolerantly (a person may paste it): prompts, colour codes, CRLF, ``[sudo]`` prompts and
chatter are dropped (:func:`~grader.parsers.common.content_lines`); lines that are neither a
counter nor a value under a one-file prompt (``grep: ...: Permission denied``, banners, ``...``)
are kept aside as ``ignored``; a last line cut off before its value is left out and sets
``truncated``. What the reading lacks is said by :meth:`IbCounters.missing`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .common import ParseError, command_argv, content_lines, fail_on_line

CMD = "grep . /sys/class/infiniband/*/ports/*/counters/*"

_COUNTER_RE = re.compile(r"^(?P<path>/\S*?/infiniband/(?P<dev>[^/\s:]+)/ports/(?P<port>\d{1,9})/(?:hw_)?counters/+"
                         r"(?P<name>[A-Za-z0-9_]+))(?::(?P<value>.*))?$")
"""``/sys/class/infiniband/<dev>/ports/<n>/counters/<name>[:<value>]`` (or the same tree under /sys/devices), and the
driver's own ``hw_counters/`` beside it (``local_ack_timeout_err``, ``out_of_sequence``, ``np_cnp_sent``...), with the
``//`` a glob on ``hw_counters/`` prints."""
_VALUE_RE = re.compile(r"^\s*(?P<n>\d{1,24})\s*$")  # a 64-bit count has at most 20 digits; more is not a count
_PATHISH_RE = re.compile(r"^/(?:sys/|\S*infiniband)")  # a line that starts like a counter path, whole or cut off
_SYSFS_ROOT = "/sys/class/infiniband/"


@dataclass(frozen=True)
class PortCounters:
    """The counters read for one RDMA device port: ``device`` (``rocep1s0f1``), ``port`` (1) and
    ``values`` by counter name (``{"port_rcv_errors": 0, ...}``), each a count as the kernel printed it."""

    device: str
    port: int
    values: dict[str, int] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """``"<device>/<port>"``, e.g. ``"rocep1s0f1/1"``: how a reading names its port."""
        return f"{self.device}/{self.port}"


@dataclass(frozen=True)
class IbCounters:
    """One reading of the counters: ``ports`` by ``"<device>/<port>"`` in the order first seen;
    ``ignored``: the line numbers of lines that were no counter (tool errors, banners); ``truncated``:
    the last line was cut off and left out."""

    ports: dict[str, PortCounters]
    ignored: tuple[int, ...] = ()
    truncated: bool = False

    def values(self) -> dict[str, dict[str, int]]:
        """``{"<device>/<port>": {counter: count}}``: the shape :func:`grader.facts.pairwise.judge_counters` reads."""
        return {k: dict(p.values) for k, p in self.ports.items()}

    def missing(self, names: tuple[str, ...] | list[str], ports: list[str] | None = None) -> list[str]:
        """What this reading lacks, one sentence per port: the counters of ``names`` not read for each of
        ``ports`` (default: every port seen), or the port not read at all. [] when nothing is missing."""
        out = []
        for key in (ports if ports is not None else list(self.ports)):
            p = self.ports.get(key)
            if p is None:
                out.append(f"{key}: no counter was read for this port")
                continue
            lack = [n for n in names if n not in p.values]
            if lack:
                out.append(f"{key}: {', '.join(lack)} not read")
        if self.truncated and out:
            out.append("the reading was cut off at its end: read it again whole")
        return out


def _one_file(command: str | None) -> tuple[str, int, str] | None:
    """(device, port, counter) of the one counter file a ``cat``/``grep PATTERN``/``head`` prompt reads,
    else None (a glob or several files: grep then prints the paths itself)."""
    argv = command_argv(command)
    if not argv or argv[0] not in ("cat", "head", "tail", "grep", "more", "less"):
        return None
    args = [a for a in argv[1:] if not a.startswith("-")]
    if argv[0] == "grep" and args:
        args = args[1:]  # the pattern
    if len(args) != 1 or any(c in args[0] for c in "*?[{"):
        return None
    m = _COUNTER_RE.match(args[0])
    return (m.group("dev"), int(m.group("port")), m.group("name")) if m and m.group("value") is None else None


def parse_ib_counters(text: str) -> IbCounters:
    """Parse a reading of ``/sys/class/infiniband/<dev>/ports/<n>/counters/<name>`` files (see the module doc)
    into :class:`IbCounters`: per ``"<device>/<port>"``, ``{counter name: count}``.

    The same counter of the same port twice with the same value is read once; with two different
    values it is two readings pasted together, and raises. Raises ParseError (naming the command and
    the line) for a counter line whose value is not a count (unless it is the last line, cut off: then
    ``truncated``), for two different values of one counter, and when no counter at all was read
    (saying what to run).
    """
    lines = content_lines(text)
    got: dict[str, dict] = {}
    ignored: list[int] = []
    truncated = False
    for pos, line in enumerate(lines):
        s = line.text.strip()
        last = pos == len(lines) - 1
        m = _COUNTER_RE.match(s)
        if m is None:
            one = _one_file(line.command)
            v = _VALUE_RE.match(s)
            if one is not None and v is not None:
                dev, port, name = one
                _put(got, dev, port, name, int(v.group("n")), line)
            elif last and (_PATHISH_RE.match(s) or _SYSFS_ROOT.startswith(s)):
                truncated = True  # cut off inside the path
            else:
                ignored.append(line.no)
            continue
        value = m.group("value")
        v = _VALUE_RE.match(value) if value is not None else None
        if v is None:
            if last:
                truncated = True
                continue
            raise fail_on_line(CMD, line, "expected `<path>:<count>` (a whole number after the colon); "
                                          "print the files with `grep -H . <files>`")
        _put(got, m.group("dev"), int(m.group("port")), m.group("name"), int(v.group("n")), line)
    if not got:
        raise ParseError(CMD, "no RDMA counter was read: run `grep -H . /sys/class/infiniband/*/ports/*/counters/"
                              "port_rcv_errors` (and the other counters) on the node; no file at all means the "
                              "mlx5_ib driver is not loaded or the container has no /sys/class/infiniband")
    ports = {k: PortCounters(d["device"], d["port"], d["values"]) for k, d in got.items()}
    return IbCounters(ports, tuple(ignored), truncated)


def _put(got: dict[str, dict], dev: str, port: int, name: str, value: int, line) -> None:
    entry = got.setdefault(f"{dev}/{port}", {"device": dev, "port": port, "values": {}})
    seen = entry["values"].get(name)
    if seen is not None and seen != value:
        raise fail_on_line(CMD, line, f"{dev}/{port} {name} was read twice, {seen} and {value}: these are two "
                                      "readings pasted together; give the reading before and the one after apart")
    entry["values"][name] = value
