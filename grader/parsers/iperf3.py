"""Parser for ``iperf3`` client (or server) results: JSON (``-J``) and plain text."""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from typing import Any

from .common import (Line, ParseError, as_float, as_int, command_argv, content_lines, fail_on_line, option_value,
                     find_json_start, json_dig, load_json_lenient, raise_if_shell_error)

_UNITS = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
# [SUM]   0.00-10.00  sec   112 GBytes  96.2 Gbits/sec  1234             sender
# [  5]   0.00-1.00   sec   119 MBytes  1000 Mbits/sec  0.004 ms  0/13958 (0%)  receiver
_ROW_RE = re.compile(
    r"^\[\s*(?P<id>SUM|\d+)\](?:\[[A-Z]{2}-[CS]\])?\s+(?P<start>[\d.]+)-\s*(?P<end>[\d.]+)\s+sec\s+"
    r"(?P<moved>[\d.]+)\s+\w?Bytes\s+(?P<rate>[\d.]+)\s+(?P<unit>[KMGT]?)bits/sec(?P<rest>.*)$")
_ERROR_RE = re.compile(r"^iperf3?: (?P<kind>error|interrupt) - (?P<msg>.+)$")
_STOPPED_RE = re.compile(r"^iperf3?: (?:interrupt - )?(?P<msg>the (?:client|server) has terminated)\s*$")
_UDP_LOST_RE = re.compile(r"\bms\s++(?P<lost>\d++)/(?P<total>\d++)\b")  # a UDP row's jitter, then Lost/Total
_SELF_RE = re.compile(r"^\[\s{0,3}\d{1,4}\]\s{1,8}local (?P<a>[0-9A-Fa-f.:]{2,45}) port \d{1,5} connected (?:to|with) "
                      r"(?P<b>[0-9A-Fa-f.:]{2,45}) port \d{1,5}")
_CONNECTED_RE = re.compile(r"^\[\s{0,3}\d{1,4}\]\s{1,8}local \S{1,64} port \d{1,5} connected with ")  # iperf2's
_HOST_RE = re.compile(r"^(?:Connecting to host|Accepted connection from) (?P<host>[^,\s]+)")
_START_RE = re.compile(r"^Starting Test: protocol: (?P<proto>\w+), (?P<n>\d+) streams")
_LISTEN_RE = re.compile(r"^Server listening on (?P<port>\d+)")


@dataclass(frozen=True)
class Iperf3Result:
    """The summary of one iperf3 test.

    Rates are in bits per second (``sent_bps`` as the sender counted, ``received_bps`` as
    the receiver counted); ``duration_s`` the measured seconds; ``retransmits`` TCP
    retransmissions (None when not reported); ``error`` iperf3's own error message (a
    result may carry both an error and partial numbers); ``remote_host`` the peer.
    ``truncated`` is True when the output ends before iperf3's end summary; then the rates
    are averaged over the intervals seen.
    """

    protocol: str
    streams: int | None
    duration_s: float | None
    sent_bps: float | None
    received_bps: float | None
    retransmits: int | None
    error: str | None
    remote_host: str | None
    truncated: bool = False
    listening_port: int | None = None
    """The port of ``Server listening on N`` (the server's side of a paste), else None."""
    intervals_only: int | None = None
    """A piece of ``-J`` output with no end summary: how many intervals it showed (its rate is their mean)."""
    stopped: str | None = None
    target_bps: float | None = None
    """The rate the test was paced to (``-b``/``--bitrate``, or ``-J``'s ``target_bitrate``), None when unlimited."""
    """``the client has terminated`` (or the server): the test was ended early, by Ctrl-C or by the other side; its
    summary rows cover only the seconds it ran (the ``error`` stays None: the rows are a result)."""
    self_connected: str | None = None
    """The address of a connection from an address to itself (``local A port N connected to A port M``): the test
    crossed no link."""
    separate_tests: tuple[float, ...] = ()
    """Tests run one after the other in one output, each its own connection and one row from 0 s (iperf2's server:
    a summary row per client): each one's rate in bits per second, in order; ``sent_bps`` is then the best."""
    iperf2: bool = False
    """Read as iperf2's client (``connected with`` lines, its result the rows from 0 s to the end): iperf2 runs each
    -P stream in a thread of its own, so iperf3's one-thread advice does not apply."""
    server_sender_zero: bool = False
    """The server's own summary after the client's (``--get-server-output``: ``Server output:``) reads ``sender 0.00
    Bytes``: the server only received (iperf3 3.1.x printed it before the statistics exchange, esnet/iperf#293)."""
    streams_asked: int | None = None
    """The streams -P asked for on the command line where the output shows fewer (``streams``: those shown): the
    others did not connect, or were not pasted (blind batch vs006: -P 8, one stream's row, no [SUM])."""

    @property
    def sent_gbps(self) -> float | None:
        """``sent_bps`` in Gbit/s (bits / 1e9, decimal, as iperf3 prints Gbits/sec)."""
        return None if self.sent_bps is None else self.sent_bps / 1e9

    @property
    def received_gbps(self) -> float | None:
        """``received_bps`` in Gbit/s (bits / 1e9, decimal, as iperf3 prints Gbits/sec)."""
        return None if self.received_bps is None else self.received_bps / 1e9


def parse_iperf3(text: str) -> Iperf3Result:
    """Parse iperf3 output: ``-J`` JSON (also ``--json-stream``) or plain text.

    JSON: ``end.sum_sent`` / ``end.sum_received`` (TCP; UDP too in iperf3 >= 3.10),
    ``end.sum`` for older UDP; an ``error`` key is kept next to any partial data; cut-off
    JSON is closed and read (``truncated``). Prompt and other lines before the JSON are
    skipped. Text: the ``sender``/``receiver`` summary rows (``[SUM]`` when several
    streams), units bits/Kbits/Mbits/Gbits/sec, and ``iperf3: error - ...`` lines.

    Raises ParseError for ``command not found``, JSON that is not an iperf3 result, or
    text with no iperf3 result row and no iperf3 error.
    """
    lines = content_lines(text)
    raise_if_shell_error(lines, "iperf3")
    lines = _without_debug_json(lines)
    start = find_json_start(lines)
    if start is not None:
        result = _from_json(lines[start:])
    elif any(_FRAGMENT_KEY_RE.match(x.text) for x in lines[:3]):
        result = _from_fragment("\n".join(x.text for x in lines))
    else:
        result = _from_text(lines)
    argv = command_argv(lines[0].command) if lines else []
    asked = _parallel_asked(argv)
    target, streams = result.target_bps or _bitrate_asked(argv), result.streams or asked
    fewer = asked if asked and streams and streams < asked else None
    return dataclasses.replace(result, target_bps=target, streams=streams, streams_asked=fewer) \
        if (target, streams, fewer) != (result.target_bps, result.streams, None) else result


def _parallel_asked(argv: list[str]) -> int | None:
    """The streams ``-P``/``--parallel`` asked for on the command line (a paste of [SUM] rows alone does not count
    them), None when not asked."""
    value = option_value(argv, "-P", "--parallel")
    return int(value) if value and value.isdigit() and 0 < int(value) <= 1024 else None


def _bitrate_asked(argv: list[str]) -> float | None:
    """The bits per second ``-b``/``--bitrate`` (``--bandwidth`` before 3.7; ``-b170M`` glued) asked for on the command
    line, with iperf3's decimal suffixes (``170M`` = 170,000,000; a ``/burst`` part ignored); None when not asked or 0
    (unlimited)."""
    value = option_value(argv, "-b", "--bitrate", "--bandwidth")
    if value is None:
        value = next((a[2:] for a in argv if a.startswith("-b") and len(a) > 2 and a[2] != "-"), None)
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmMgGtT]?)(?:/\d+)?", value or "")
    return (float(m.group(1)) * _UNITS[m.group(2).upper()] or None) if m else None


_DEBUG_MESSAGE_RE = re.compile(r"^(?:send_parameters:|get_parameters:|send_results|get_results)\s*$")
"""The control messages ``iperf3 --debug`` (3.1-3.9) names before printing each as a JSON block."""


def _without_debug_json(lines: list[Line]) -> list[Line]:
    """``lines`` without the JSON blocks ``--debug`` prints under its :data:`_DEBUG_MESSAGE_RE` lines (from the ``{``
    after one to the ``}`` at its indent that closes it): the text results around them are read as usual."""
    out: list[Line] = []
    opened: str | None = None  # the indent of the `{` that opened the block being skipped
    for pos, line in enumerate(lines):
        s = line.text.strip()
        if opened is not None:
            opened = None if s == "}" and line.text[:len(line.text) - len(line.text.lstrip())] == opened else opened
        elif s == "{" and pos and _DEBUG_MESSAGE_RE.match(lines[pos - 1].text.strip()):
            opened = line.text[:len(line.text) - len(line.text.lstrip())]  # (a paste indented as a whole keeps it)
        else:
            out.append(line)
    return out


# --------------------------------------------------------------------------- a fragment of -J

_FRAGMENT_KEY_RE = re.compile(r'^\s*"(?:start|end|seconds|bytes|bits_per_second|retransmits|snd_cwnd|rtt|omitted|sender|'
                              r'streams|sum|socket)"\s*:')
_SUM_RE = re.compile(r'"sum"\s*:\s*\{(?P<body>[^{}]*)\}')
_NUMBER_RE = re.compile(r'"(?P<key>bits_per_second|retransmits|seconds)"\s*:\s*(?P<value>-?[\d.]+(?:[eE][-+]?\d+)?)')


def _from_fragment(text: str) -> Iperf3Result:
    """A piece of ``-J`` output that starts inside the JSON (a paste of some intervals): the rate of the ``sum`` of
    each interval shown (of its streams where no ``sum`` is), averaged, and their retransmits added; ``truncated``
    (the end summary is not in it). ParseError when it shows no rate."""
    bodies = [m.group("body") for m in _SUM_RE.finditer(text)] or [text]
    rates, retransmits = [], []
    for body in bodies:
        values: dict[str, float] = {}
        for m in _NUMBER_RE.finditer(body):
            values.setdefault(m.group("key"), float(m.group("value")))
        if "bits_per_second" in values:
            rates.append(values["bits_per_second"])
            if "retransmits" in values:
                retransmits.append(int(values["retransmits"]))
    if not rates:
        raise ParseError("iperf3 -J", "a piece of iperf3's JSON with no `bits_per_second`: paste the whole JSON")
    rate = sum(rates) / len(rates)
    return Iperf3Result("TCP", None, None, rate, None, sum(retransmits) if retransmits else None, None, None,
                        truncated=True, intervals_only=len(rates))


# --------------------------------------------------------------------------- JSON

def _from_json(lines: list[Line]) -> Iperf3Result:
    body = "\n".join(x.text for x in lines)
    stream = _json_stream(lines)
    if stream is not None:
        data, truncated = stream, "end" not in stream
    else:
        data, truncated = load_json_lenient(body, "iperf3 -J", lines[0].no)
    if isinstance(data, dict) and {"sum_sent", "sum_received"} & data.keys() and "end" not in data:
        data = {"end": data}  # the `end` block alone (a jq projection of -J or --json-stream's end event)
    if not isinstance(data, dict) or not ({"start", "end", "error", "intervals"} & data.keys()):
        raise ParseError("iperf3 -J", "JSON is not an iperf3 result (no start/end/error keys)",
                         lines[0].text.strip(), lines[0].no)
    end = data.get("end") if isinstance(data.get("end"), dict) else {}
    udp = any(a in ("-u", "--udp") for a in command_argv(lines[0].command))  # without its start: the command says
    proto = str(json_dig(data, "start", "test_start", "protocol", default="UDP" if udp else "TCP")).upper()
    sent = end.get("sum_sent") or (end.get("sum") if proto == "UDP" else None)
    recv = end.get("sum_received")
    received = as_float(json_dig(recv, "bits_per_second"))
    if received is None and proto == "UDP" and isinstance(end.get("sum"), dict):
        lost = as_float(end["sum"].get("lost_percent")) or 0.0  # old UDP: only "sum"
        bps = as_float(end["sum"].get("bits_per_second"))
        received = None if bps is None else bps * (1 - lost / 100)
    sent_bps = as_float(json_dig(sent, "bits_per_second"))
    duration = as_float(json_dig(sent, "seconds")) or as_float(json_dig(data, "start", "test_start", "duration"))
    if sent_bps is None:  # no end summary: average the intervals seen
        rates = [r for r in map(_interval_rate, data.get("intervals") or []) if r is not None]
        sent_bps = sum(rates) / len(rates) if rates else None
        truncated = truncated or bool(rates)
    remote = (json_dig(data, "start", "connecting_to", "host")
              or json_dig(data, "start", "connected", 0, "remote_host")
              or json_dig(data, "start", "accepted_connection", "host"))
    error = data.get("error")
    target = as_float(json_dig(data, "start", "target_bitrate")) or as_float(
        json_dig(data, "start", "test_start", "target_bitrate"))
    return Iperf3Result(proto, as_int(json_dig(data, "start", "test_start", "num_streams")), duration,
                        sent_bps, received, as_int(json_dig(sent, "retransmits")),
                        str(error) if error else None, remote, truncated, target_bps=target or None)


def _interval_rate(interval: Any) -> float | None:
    """One JSON interval's total rate: its ``sum``, else its streams added up."""
    total = as_float(json_dig(interval, "sum", "bits_per_second"))
    if total is None:
        rates = [as_float(json_dig(s, "bits_per_second")) for s in json_dig(interval, "streams", default=[])]
        total = sum(r for r in rates if r is not None) if any(r is not None for r in rates) else None
    return total


def _json_stream(lines: list[Line]) -> dict[str, Any] | None:
    """Assemble ``--json-stream`` output (one ``{"event": ..., "data": ...}`` per line)."""
    events = []
    for line in lines:
        try:
            obj = json.loads(line.text)
        except (ValueError, RecursionError):
            return None
        if not isinstance(obj, dict) or "event" not in obj:
            return None
        events.append(obj)
    out: dict[str, Any] = {"intervals": []}
    for ev in events:
        name, payload = ev.get("event"), ev.get("data")
        if name == "interval":
            out["intervals"].append(payload)
        elif name in ("start", "end"):
            out[name] = payload
        elif name == "error":
            out["error"] = payload
    return out if events else None


# --------------------------------------------------------------------------- text

def _from_text(lines: list[Line]) -> Iperf3Result:
    summary: dict[str, re.Match[str]] = {}
    intervals: list[re.Match[str]] = []
    ids: set[str] = set()
    error = remote = port = stopped = loop = None
    proto, streams = "TCP", None
    heads: list[re.Match[str]] = []  # rows from 0 s each after its own connection's `local ... connected` line
    connected = server = zero = iperf2 = False
    for line in lines:
        s = line.text.strip()
        server = server or (s == "Server output:" and bool(summary))  # the server's copy of a test summed above
        listen = _LISTEN_RE.match(s) if port is None else None
        if listen:
            port = int(listen.group("port"))
            continue
        row = _ROW_RE.match(s)
        if row:
            role = row.group("rest").split()[-1] if row.group("rest").split() else ""
            if server:  # its rows repeat the client's test from the other end: the client's summary stands
                zero = zero or (role.strip("*") == "sender" and not _rate(row))
                continue
            if row.group("id") != "SUM":
                ids.add(row.group("id"))
            if re.search(r"\bms\s+\d+/\d+", row.group("rest")):
                proto = "UDP"
            if connected and not role and float(row.group("start")) == 0:
                heads.append(row)
            connected = False
            if role in ("sender", "receiver"):
                # [SUM] rows win over per-stream rows; with one stream the stream row is the sum
                if row.group("id") == "SUM" or role not in summary or summary[role].group("id") != "SUM":
                    summary[role] = row
            else:
                intervals.append(row)
            continue
        if s.startswith("iperf") and stopped is None:
            cut = _STOPPED_RE.match(s)
            if cut:
                stopped = cut.group("msg")
                continue
        same = _SELF_RE.match(s)
        connected = connected or bool(same) or bool(_CONNECTED_RE.match(s))
        iperf2 = iperf2 or bool(_CONNECTED_RE.match(s))
        if same and same["a"] == same["b"]:
            loop = same["a"]
        for regex in (_ERROR_RE, _HOST_RE, _START_RE):
            m = regex.match(s)
            if m and regex is _ERROR_RE and error is None:
                error = m.group("msg").strip()
            elif m and regex is _HOST_RE and remote is None:
                remote = m.group("host")
            elif m and regex is _START_RE:
                proto, streams = m.group("proto").upper(), int(m.group("n"))
    if not summary and not intervals and error is None and port is not None:  # a server waiting for its client
        return Iperf3Result(proto, None, None, None, None, None, None, remote, False, port, stopped=stopped)
    if not summary and not intervals and error is None:
        first = lines[0] if lines else None
        if first is None:
            raise ParseError("iperf3", "no output to read (empty paste?)")
        raise fail_on_line("iperf3", first, "no iperf3 result row (`[SUM] ... Gbits/sec ... sender`) "
                           "and no `iperf3: error - ...` line found")
    if not summary and len(heads) >= 2 and len(heads) == len(intervals):  # one row per connection: several tests
        rates = tuple(_rate(h) for h in heads)
        return Iperf3Result(proto, 1, None, max(rates), None, None, error, remote, False, port, stopped=stopped,
                            self_connected=loop, separate_tests=rates)
    whole = _iperf2_whole_run(intervals) if not summary and iperf2 else None
    if whole is not None:  # iperf2's client: its last rows, from 0 s to the end, are the test's result
        return Iperf3Result(proto, streams or (len(ids) or None), whole[0], whole[1], None, None, error, remote, False,
                            port, stopped=stopped, self_connected=loop, iperf2=True)
    sent, recv = summary.get("sender"), summary.get("receiver")
    truncated = sent is None and recv is None and bool(intervals)
    if sent is not None and recv is None and not _rate(sent) and intervals:
        # the server's side of a test cut after its `sender 0.00 Bytes` row (the server only received): its
        # intervals are what it received, the receiver row that follows is not in the paste
        return Iperf3Result(proto, streams or (len(ids) or None), None, None, _mean_rate(intervals), None, error,
                            remote, True, port, stopped=stopped)
    sent_bps = _rate(sent) if sent else _mean_rate(intervals) if truncated else None
    duration = float(sent.group("end")) - float(sent.group("start")) if sent else None
    retr = re.match(r"\s*(\d+)\s+sender", sent.group("rest")) if sent and proto == "TCP" else None
    return Iperf3Result(proto, streams or (len(ids) or None), duration, sent_bps,
                        _rate(recv) if recv else None, int(retr.group(1)) if retr else None,
                        error, remote, truncated, port, stopped=stopped, self_connected=loop,
                        server_sender_zero=zero)


def _iperf2_whole_run(rows: list[re.Match[str]]) -> tuple[float, float] | None:
    """iperf2's client prints no ``sender``/``receiver`` rows: its result is the rows from 0 s to the test's end (per
    stream, and ``[SUM]`` with -P, ending within a twentieth of the run or half a second of the last: each stream's
    clock stops on its own), after any interval rows (-i). (seconds, bits per second) of those rows, or None
    where they cannot be told from an interval's: no rows, or only rows of one span of a second or less (the first
    interval of a longer run, the rest cut)."""
    if not rows:
        return None
    end = max(float(r.group("end")) for r in rows)  # (streams end a few ms apart, the [SUM] row first: blind vs005)
    whole = [r for r in rows if float(r.group("start")) == 0 and float(r.group("end")) >= end - min(0.5, end / 20)]
    if not whole or (len(whole) == len(rows) and end <= 1.0):
        return None
    sums = [r for r in whole if r.group("id") == "SUM"]
    return end, (_rate(sums[-1]) if sums else sum(_rate(r) for r in whole))


def _rate(row: re.Match[str]) -> float:
    return float(row.group("rate")) * _UNITS[row.group("unit")]


def _mean_rate(rows: list[re.Match[str]]) -> float | None:
    """Mean over intervals of the total rate ([SUM] rows, else the streams added up)."""
    totals: dict[tuple[str, str], float] = {}
    sums = [r for r in rows if r.group("id") == "SUM"] or rows
    for r in sums:
        key = (r.group("start"), r.group("end"))
        totals[key] = totals.get(key, 0.0) + _rate(r)
    return sum(totals.values()) / len(totals) if totals else None


@dataclass(frozen=True)
class Iperf3Intervals:
    """The per-interval rows of a plain-text iperf3 output, beside its summary (:func:`parse_iperf3`).

    ``rates_gbps``: each direction's interval totals in Gbit/s, in order (``"TX"``/``"RX"`` of a ``--bidir`` test,
    else ``""``): the [SUM] rows where a direction has them, else its streams added up; an interval under half the
    longest (the last, cut short) is left out, and so are the rows of a second test in the same paste.
    ``retransmits``: the Retr column of each interval row that has one (the sender's side). ``moved``: for each
    direction's intervals, whether any bytes moved (its Transfer column: ``87.4 KBytes`` moved, though ``-f g`` prints
    its rate as ``0.00 Gbits/sec``). ``udp_lost``: a UDP
    test's ``Lost/Total Datagrams`` of each interval, in order, as ``(lost, total)`` (the [SUM] rows where there are
    some, else each stream's); ``udp_summary`` the receiver's summary row's ``(lost, total)``, None when not pasted;
    ``seconds`` the time the kept rows cover (a direction's intervals added up; 0.0 when there are none)."""

    rates_gbps: dict[str, tuple[float, ...]]
    retransmits: tuple[int, ...]
    moved: dict[str, tuple[bool, ...]] = field(default_factory=dict)
    udp_lost: tuple[tuple[int, int], ...] = ()
    udp_summary: tuple[int, int] | None = None
    seconds: float = 0.0  # the time the kept interval rows cover (the longest direction's), in seconds
    retransmits_by_role: dict[str, tuple[int, ...]] = field(default_factory=dict)  # each direction's Retr column
    udp_runs: tuple[tuple[float, int, int], ...] = ()  # each UDP test's summary row: (Gbit/s, lost, total), in order
    cwnd_bytes: dict[str, tuple[float, ...]] = field(default_factory=dict)  # each direction's Cwnd column, in bytes


_RETR_HEADER_RE = re.compile(r"^\W{0,4}\[\s*ID\][^\n]{0,120}\bRetr", re.M)
"""A header whose rows carry a Retr column: there a bare integer after the rate is it (iperf3 before 3.1 printed no
Cwnd; a UDP client's rows end in a bare integer too, its datagrams, under no such header)."""


_TEST_HEAD_RE = re.compile(r"^\W{0,4}(?:Connecting to host|Accepted connection from|Test Complete|Server listening on)\b",
                           re.M)
"""A line that opens a test's part of an output (the client's, the server's, iperf3's old `Test Complete. Summary
Results:`): rows after it belong to that test."""


def _udp_tests(text: str) -> tuple[tuple[float, int, int], ...]:
    """Each UDP test of ``text``, once (the same figures twice are one test, seen from both ends): (Gbit/s, lost,
    total) of its summary row. The text is cut at each test's
    opening line (:data:`_TEST_HEAD_RE`); in each part the summary is the receiver's row ([SUM] first), else the
    sender's, else a row from 0 over two intervals' time or more (older servers print no role word), else the part's
    only row, or its rows when all start at 0 (summaries pasted alone). A part of interval rows only is no test read
    (its intervals, the short last one too, are seconds of one test, not tests)."""
    starts = [m.start() for m in _TEST_HEAD_RE.finditer(text)]
    bounds = [0, *starts, len(text)] if starts and starts[0] > 0 else [*(starts or [0]), len(text)]
    out: list[tuple[float, int, int]] = []
    for a, b in zip(bounds, bounds[1:]):
        udp = [(m, x, m.group("rest").split()[-1:]) for line in text[a:b].splitlines()
               if (m := _ROW_RE.match(line.strip())) and (x := _UDP_LOST_RE.search(m.group("rest")))]
        spans = sorted(float(m["end"]) - float(m["start"]) for m, _, _ in udp)
        typical = spans[len(spans) // 2] if spans else 0.0
        picks = ([(m, x) for m, x, last in udp if last == [role]] for role in ("receiver", "sender"))
        summary = next((p for p in picks if p), None) or [
            (m, x) for m, x, last in udp if float(m["start"]) == 0 and float(m["end"]) >= 2 * typical > 0]
        if not summary and udp and all(float(m["start"]) == 0 for m, _, _ in udp):
            summary = [(m, x) for m, x, _ in udp]
        for m, x in [(m, x) for m, x in summary if m["id"] == "SUM"] or summary:  # a test of several streams: its sum
            out.append((_rate(m) / 1e9, int(x["lost"]), int(x["total"])))
    return tuple(dict.fromkeys(out))  # (a test's client and server pasted together print its figures twice)


def parse_iperf3_intervals(text: str) -> Iperf3Intervals:
    """The interval rows of ``text`` (see :class:`Iperf3Intervals`); never raises: a text with none gives empty ones."""
    every = [(m, (re.search(r"\]\[([A-Z]{2})-", line) or [None, ""])[1], m.group("rest").split()[-1:])
             for line in text.splitlines() if (m := _ROW_RE.match(line.strip()))]  # each line matched once
    rows = [(m, role) for m, role, last in every if last not in (["sender"], ["receiver"])]
    # an older server's summary row has no role word: a row from 0 over several intervals' time is the summary
    spans = sorted(float(m.group("end")) - float(m.group("start")) for m, _ in rows)
    typical = spans[len(spans) // 2] if spans else 0.0
    whole = [m for m, _ in rows if float(m.group("start")) == 0 and typical
             and float(m.group("end")) - float(m.group("start")) >= 2 * typical]
    skip = {id(m) for m in whole}
    rows = [(m, role) for m, role in rows if id(m) not in skip] if len(rows) - len(whole) >= 2 else rows
    unnamed = next((x for m in whole if (x := _UDP_LOST_RE.search(m.group("rest")))), None)
    longest = max((float(m.group("end")) - float(m.group("start")) for m, _ in rows), default=0.0)
    rates: dict[str, dict[str, float]] = {}
    moved: dict[str, dict[str, bool]] = {}
    spans: dict[str, dict[str, float]] = {}
    summed, seen = {role for m, role in rows if m.group("id") == "SUM"}, set()
    for m, role in rows:
        key = (m.group("id"), role, m.group("start"))  # a row seen already: a second test in the paste
        if (m.group("id") == "SUM") == (role in summed) and key not in seen \
                and float(m.group("end")) - float(m.group("start")) >= longest / 2:
            seen.add(key)
            per = rates.setdefault(role, {})
            per[m.group("start")] = per.get(m.group("start"), 0.0) + _rate(m) / 1e9
            some = moved.setdefault(role, {})
            some[m.group("start")] = some.get(m.group("start"), False) or float(m.group("moved")) > 0
            spans.setdefault(role, {})[m.group("start")] = float(m.group("end")) - float(m.group("start"))
    bare = bool(_RETR_HEADER_RE.search(text))
    by_role: dict[str, list[int]] = {}
    cwnd: dict[str, list[float]] = {}
    for m, role in rows:  # a [SUM] row's bare count adds its streams' up: not counted twice
        if w := re.match(r"\s*\d+\s+(?P<n>[\d.]+)\s+(?P<u>[KMG]?)Bytes", m.group("rest")):
            cwnd.setdefault(role, []).append(float(w["n"]) * {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}[w["u"]])
        if x := re.match(r"\s*(\d+)(?:\s+[\d.]+\s+\w?Bytes|\s*$)" if bare and m.group("id") != "SUM"
                         else r"\s*(\d+)\s+[\d.]+\s+\w?Bytes", m.group("rest")):
            by_role.setdefault(role, []).append(int(x.group(1)))
    retr = tuple(n for per in by_role.values() for n in per)
    runs = _udp_tests(text)
    udp = list({(m.group("id"), role, m.group("start")): (m.group("id"), x) for m, role in rows
                if (x := _UDP_LOST_RE.search(m.group("rest")))}.values())  # a row printed twice counts once
    summed_udp = any(i == "SUM" for i, _ in udp)
    lost = tuple((int(x.group("lost")), int(x.group("total"))) for i, x in udp if (i == "SUM") == summed_udp)
    received = [(m.group("id"), x) for m, _, last in every
                if last == ["receiver"] and (x := _UDP_LOST_RE.search(m.group("rest")))]
    best = next((x for i, x in received if i == "SUM"), received[0][1] if received else None)  # [SUM] first
    summary = (int(unnamed.group("lost")), int(unnamed.group("total"))) if unnamed else (
        (int(best.group("lost")), int(best.group("total"))) if best else None)
    return Iperf3Intervals({role: tuple(per.values()) for role, per in rates.items()}, retr,
                           {role: tuple(per.values()) for role, per in moved.items()}, lost, summary,
                           max((sum(per.values()) for per in spans.values()), default=0.0),
                           {role: tuple(per) for role, per in by_role.items()}, runs,
                           {role: tuple(per) for role, per in cwnd.items()})
