"""Parser for ``ping`` (iputils on Debian/Ubuntu; busybox, macOS and Windows shapes too)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import ParseError, content_lines, fail_on_line, raise_if_shell_error

# PING 192.168.100.11 (192.168.100.11) 8972(9000) bytes of data.
# PING 10.0.0.2 (10.0.0.2) from 10.0.0.1 enp1s0f1np1: 8972(9000) bytes of data.
# PING 10.0.0.2 (10.0.0.2): 56 data bytes                        (busybox, macOS)
# Possessive runs of blanks and words (the pattern this replaces, with ``\s*`` and ``[^:]*`` next to ``\s+``,
# rescanned a run of blanks once per blank): the ``from`` part is whole words, given back one at a time.
_HEADER_RE = re.compile(r"^PING\s++(?P<name>[^\s(]++)(?:\s*+\((?P<addr>[^)]++)\))?(?:\s++from\s(?:\s*+[^:\s]++)*)?"
                        r"(?:\s*+:)?\s++(?P<payload>\d++)(?:\((?P<total>\d++)\))?\s++(?:data\s++)?bytes")
_ICMP_SEQ_RE = re.compile(r"(?<!\s)\s*+\bicmp_seq=\d++")  # starts where a run of blanks starts: linear
_REPLY_RE = re.compile(r"^\d+ bytes from \S+.*\b(?:icmp_seq|seq)=\d+")
_FROM_RE = re.compile(r"^From (?P<host>\S+?)(?: \([^)]*\))?:? (?:icmp_seq=\d+ )?(?P<msg>.+)$")
_STATS_RE = re.compile(r"^(?P<tx>\d+) packets transmitted, (?P<rx>\d+) (?:packets )?received"
                       r"(?:, \+\d+ \w+)*, (?P<loss>[\d.]+)% packet loss")  # +N duplicates/errors
_RTT_RE = re.compile(r"^(?:rtt|round-trip) min/avg/max(?:/\w+)? = (?P<min>[\d.]+)/(?P<avg>[\d.]+)/(?P<max>[\d.]+)")
_TIME_RE = re.compile(r"\btime[=<](?P<ms>\d+(?:\.\d+)?) ?ms\b")
_ERROR_RE = re.compile(r"^(?:ping\d?: (?!Warning)|connect: )", re.I)
_IGNORED_RE = re.compile(r"^(?:--- .* ping statistics ---|Request timeout for icmp_seq.*"
                         r"|no answer yet for icmp_seq=\d+|ping: Warning: .*|WARNING: .*|PING .*"
                         r"|pipe \d+|\^C)$", re.I)  # ^C: where the person stopped it (the statistics follow)
_TIMESTAMP_RE = re.compile(r"^\[\d+(?:\.\d+)?\]\s*")  # ping -D
_MTU_RE = re.compile(r"mtu\s*=\s*(\d+)", re.I)
_FRAG_WORDS = ("message too long", "frag needed", "fragmentation needed", "packet too big", "needs to be fragmented")
# Windows' ping: `Pinging 10.0.0.2 with 32 bytes of data:`, `Reply from 10.0.0.2: bytes=32 time<1ms TTL=64`, its own
# errors (`Packet needs to be fragmented but DF set.`, `Request timed out.`) and `Packets: Sent = 4, Received = 4, ...`
_WIN_HEADER_RE = re.compile(r"^Pinging (?P<name>\S+)(?: \[(?P<addr>[^\]\s]+)\])? with (?P<payload>\d+) bytes of data:$")
_WIN_REPLY_RE = re.compile(r"^Reply from \S+: bytes=\d+ ")
_WIN_STATS_RE = re.compile(r"^Packets: Sent = (?P<tx>\d+), Received = (?P<rx>\d+), Lost = \d+ \((?P<loss>\d+)% loss\)")
_WIN_RTT_RE = re.compile(r"^Minimum = (?P<min>\d+)ms, Maximum = (?P<max>\d+)ms, Average = (?P<avg>\d+)ms")
_WIN_ERROR_RE = re.compile(r"^(?:Packet needs to be fragmented but DF set\.|Reply from \S+: Destination (?:host|net) "
                           r"unreachable\.|General failure\.|Ping request could not find host .*)$")
_WIN_IGNORED_RE = re.compile(r"^(?:Request timed out\.|Ping statistics for \S+:|Approximate round trip times in "
                             r"milli-seconds:|Control-C|\^C)$")


@dataclass(frozen=True)
class PingResult:
    """One ping run.

    ``destination`` is the address in parentheses of the ``PING`` line (the name typed
    when there is none); ``payload_bytes`` the ICMP payload (``-s``; 8972 + 28 header bytes
    = a 9000-byte packet). ``transmitted``/``received``/``loss_percent`` come from the
    statistics line; when it is missing, ``received`` counts the reply lines seen and the
    others are None. ``truncated`` is True when the paste lacks the start (``PING`` line)
    or the end (statistics) of a run. ``rtt_avg_ms``, ``rtt_min_ms`` and ``rtt_max_ms`` in milliseconds (the
    ``rtt`` line's, else the replies' ``time=`` figures; None when neither is shown); ``rtt_times`` each reply's
    ``time=``, in order. ``errors`` are
    the error lines in order of first appearance (``ping: local error: message too long,
    mtu=1500``, ``From 10.0.0.1 Frag needed and DF set (mtu = 1500)``...), as printed
    but without ``icmp_seq=N``.
    """

    destination: str | None
    payload_bytes: int | None
    transmitted: int | None
    received: int | None
    loss_percent: float | None
    rtt_avg_ms: float | None
    errors: tuple[str, ...]
    truncated: bool
    rtt_min_ms: float | None = None
    rtt_max_ms: float | None = None
    rtt_times: tuple[float, ...] = ()
    windows: bool = False  # Windows' ping (`Pinging ... with N bytes of data:`): -l is its payload, -f forbids fragmenting

    @property
    def mtu_error(self) -> bool:
        """True when an error says the packet was too big for a link (MTU problem)."""
        return any(w in e.lower() for e in self.errors for w in _FRAG_WORDS)

    @property
    def path_mtu(self) -> int | None:
        """The MTU an error reported (``mtu=1500`` / ``mtu = 1500``), else None."""
        for e in self.errors:
            m = _MTU_RE.search(e)
            if m:
                return int(m.group(1))
        return None

    @property
    def ok(self) -> bool:
        """At least one reply came back and no error says the packet was too big."""
        return bool(self.received) and not self.mtu_error


def parse_ping(text: str) -> PingResult:
    """Parse the output of one ping run.

    Accepts iputils-ping (``PING x (x) 8972(9000) bytes of data.``, replies,
    ``ping: local error: message too long, mtu=1500``, ``From x icmp_seq=1 Frag needed
    and DF set (mtu = 1500)``, ``ping: sendmsg: Message too long``, the statistics and
    ``rtt`` lines), busybox and macOS shapes. Output that ends early (no statistics line)
    gives ``truncated=True``. Errors ping itself printed (``ping: connect: Network is
    unreachable``) are results, not parse failures.

    Raises ParseError for ``command not found``, a second ping run in the same text, a
    line it cannot read, or no ping output at all.
    """
    lines = content_lines(text)
    raise_if_shell_error(lines, "ping")
    dest = payload = tx = rx = loss = avg = low = high = None
    replies, errors, header_seen, stats_seen = 0, [], False, False
    times: list[float] = []
    windows = False
    for pos, line in enumerate(lines):
        s = _TIMESTAMP_RE.sub("", line.text.strip())
        if s[:1] in "PRMCGA^" and (win := _windows_line(s)) is not None:
            kind, m = win
            windows = True
            if kind == "header":
                if header_seen:
                    raise fail_on_line("ping", line, "a second ping run starts here; give one run at a time")
                header_seen, dest, payload = True, m.group("addr") or m.group("name"), int(m.group("payload"))
            elif kind == "reply":
                replies += 1
                t = _TIME_RE.search(s)
                times += [float(t.group("ms"))] if t else []
            elif kind == "stats":
                stats_seen, tx, rx, loss = True, int(m.group("tx")), int(m.group("rx")), float(m.group("loss"))
            elif kind == "rtt":
                low, avg, high = float(m.group("min")), float(m.group("avg")), float(m.group("max"))
            elif kind == "error" and s not in errors:
                errors.append(s)
            continue
        header = _HEADER_RE.match(s)
        stats = _STATS_RE.match(s)
        rtt = _RTT_RE.match(s)
        err = _ERROR_RE.match(s)
        frm = _FROM_RE.match(s)
        if header:
            if header_seen:
                raise fail_on_line("ping", line, "a second ping run starts here; give one run at a time")
            header_seen = True
            dest = header.group("addr") or header.group("name")
            payload = int(header.group("payload"))
        elif _REPLY_RE.match(s):
            replies += 1
            t = _TIME_RE.search(s)
            if t:
                times.append(float(t.group("ms")))
        elif stats:
            stats_seen = True
            tx, rx, loss = int(stats.group("tx")), int(stats.group("rx")), float(stats.group("loss"))
        elif rtt:
            low, avg, high = float(rtt.group("min")), float(rtt.group("avg")), float(rtt.group("max"))
        elif err or frm:
            msg = _ICMP_SEQ_RE.sub("", s)  # one entry per distinct error
            if msg not in errors:
                errors.append(msg)
        elif _IGNORED_RE.match(s):
            continue
        elif pos == len(lines) - 1 and (header_seen or replies):
            break  # a cut-off last line
        else:
            raise fail_on_line("ping", line, "not a line ping prints")
    if not (header_seen or stats_seen or errors or replies):
        raise ParseError("ping", "no ping output found (no `PING ...` line)")
    # cut at the end (header or replies but no statistics) or at the start (no header)
    truncated = (not stats_seen and (header_seen or replies > 0)) or (stats_seen and not header_seen)
    if low is None and times:
        low, high = min(times), max(times)
    return PingResult(dest, payload, tx, rx if stats_seen else replies, loss, avg, tuple(errors),
                      truncated, low, high, tuple(times), windows)


def _windows_line(s: str) -> tuple[str, re.Match[str]] | None:
    """What a line of Windows' ping is (``header``, ``reply``, ``stats``, ``rtt``, ``error``, ``ignored``), with its
    match, or None for a line of another shape."""
    for kind, regex in (("header", _WIN_HEADER_RE), ("error", _WIN_ERROR_RE), ("reply", _WIN_REPLY_RE),
                        ("stats", _WIN_STATS_RE), ("rtt", _WIN_RTT_RE), ("ignored", _WIN_IGNORED_RE)):
        m = regex.match(s)
        if m:
            return kind, m
    return None
