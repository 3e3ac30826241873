"""Parser for perftest (``ib_write_bw``, ``ib_read_bw``, ``ib_send_bw``, ``ib_write_lat``,
``ib_read_lat``, ``ib_send_lat``...): the test header and the result rows, client or server side.

A run prints (client side of NVIDIA's DGX Spark performance guide, fixtures/real/spark/03_*)::

    ---------------------------------------------------------------------------------------
                        RDMA_Write BW Test
     Dual-port       : OFF            Device         : rocep1s0f0
     Number of qps   : 1              Transport type : IB
     ...
     Mtu             : 1024[B]
     Link type       : Ethernet
     GID index       : 3
    ---------------------------------------------------------------------------------------
     local address:  LID 0000 QPN 0x0129 PSN 0x57279d RKey 0x184300 VAddr 0x00ec99bedad000
     GID:            00:00:00:00:00:00:00:00:00:00:255:255:192:168:200:13
     remote address: LID 0000 QPN 0x0129 PSN 0x531b7  RKey 0x184300 VAddr 0x00ffeec955d000
     GID:            00:00:00:00:00:00:00:00:00:00:255:255:192:168:200:12
    ---------------------------------------------------------------------------------------
     #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]    MsgRate[Mpps]
     65536      882805           0.00               92.57                0.176554
    ---------------------------------------------------------------------------------------

Units. Bandwidth is returned in **Gb/s (10^9 bits per second)** whatever perftest printed:
with ``--report_gbits`` the columns say ``[Gb/sec]`` (perftest divides bytes/s by 125,000,000,
i.e. 10^9 bits); by default they say ``[MB/sec]``, which perftest computes with 2^20 bytes
(0x100000), so 1 MB/sec = 8 * 2^20 / 10^9 = 0.008388608 Gb/s (perftest_parameters.c,
``format_factor``). Message rate is in Mpps, latencies in microseconds (``[usec]``).

``Mtu : 1024[B]`` is the RDMA (InfiniBand transport) path MTU, not the Ethernet MTU of the
netdev: RoCE uses the largest IB MTU (256...4096 bytes) that fits in the Ethernet MTU, so 1024
with MTU 1500 and 4096 with MTU 9000 (procedure.md §1.4).

Columns are read from the ``#bytes`` header line, so other perftest versions (no MsgRate,
``CPU_Util[%]``, per-port and QoS columns, latency tests with t_avg/t_stdev/99%/99.9% or the
duration form with t_avg only) are understood. ``--run_infinitely`` prints rows until stopped:
``run_infinitely`` is set and the run is not "cut off" for lacking its closing line.

Sources: perftest (github.com/linux-rdma/perftest, src/perftest_parameters.h/.c);
NVIDIA connect-two-sparks performance_benchmarking_guide.md (procedure.md §1.5 b).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from .common import Line, ParseError, command_argv, content_lines, fail_on_line, is_comment_line, strip_log_prefix
from .common.commands import PERFTEST_PROGRAMS
from .ib_sysfs import ipv4_of_gid

CMD = "perftest"

MB_PER_SEC_IN_GBPS = 8 * 2**20 / 1e9
"""One perftest ``MB/sec`` (2^20 bytes per second) in Gb/s: 0.008388608."""

PROGRAMS = PERFTEST_PROGRAMS  # the programs whose output this reads (parsers.common.commands, where explain names them)

_TITLE_RE = re.compile(r"^(?P<title>[A-Za-z][\w ]*?\s(?P<kind>BW|Lat|Latency)\s+Test)$")
_DASH_RE = re.compile(r"^-{20,}$")
_RESULT_HEADER_RE = re.compile(r"^#\s?bytes\b")
_COMMENT_CMD_RE = re.compile(r"^#[\s-]*(?:\$\s*)?(?P<cmd>(?:sudo\s+)?(?:%s)\b.*)$" % "|".join(PROGRAMS))
_STARS_RE = re.compile(r"^\*{10,}$|^\*\s*Waiting for client to connect\.*\s*\*$", re.I)
_ADDR_RE = re.compile(r"^(?P<side>local|remote) address\s*:", re.I)
_GID_RE = re.compile(r"^GID\s*:\s*(?P<gid>[0-9A-Fa-f:]+)\s*$")
# Header pairs ("Number of qps   : 1    Transport type : IB") and result columns ("BW peak[Gb/sec]"):
# a key or column name is a *chain* of words joined by single spaces. Read with a backtracking
# pattern, a long chain that never reaches its ":" or "[" is rescanned from every position in it
# (quadratic: a 64k-character line took a minute). These forms are linear and read the same pairs
# and columns: every quantifier is possessive, and a search only starts where a chain starts (the
# look-behinds); ``_AFTER`` forms are tried once where the previous match ended, which may be inside
# a chain (see ``_findall_linear``).
_KV_CHAIN = (r"(?=[\w.*-])(?:(?![A-Za-z])[\w.*-]| (?=[\w.*-]))*+"  # the chain's lead before its first letter
             r"(?P<key>[A-Za-z][\w.*-]*+(?: [\w.*-]++)*+)\s*+:\s*+(?P<value>\S++)")
_KV_RE = re.compile(r"(?<![\w.*-])(?<![\w.*-] )" + _KV_CHAIN)
_KV_AFTER_RE = re.compile(r"\s?+" + _KV_CHAIN)
_COLUMN_CHAIN = r"(?:[\w.%]++\s)*+[\w.%]++\[[^\]]*+\]"
_COLUMN_RE = re.compile(r"#\w++|(?<![\w.%])(?<![\w.%]\s)" + _COLUMN_CHAIN)
_COLUMN_AFTER_RE = re.compile(r"\s?+" + _COLUMN_CHAIN)
_NUMBER_RE = re.compile(r"[-+]?(?:\d++(?:\.\d*+)?+|\.\d++)(?:[eE][-+]?\d++)?+")  # fullmatch
_WARNING_RE = re.compile(r"warning|conflicting cpu frequency|cpu_util is not supported", re.I)
_WARNING_ASCII_RE = re.compile(r"warning|conflicting cpu frequency|cpu_util is not supported")
_NOT_FOUND_RE = re.compile(r"(?:^|:\s)(?:ib_\w+|perftest): (?:command )?not found$|^Command 'ib_\w+' not found")
_ERROR_WORDS = ("couldn't", "could not", "unable to", "fail", "error", "not found", "no ib devices", "invalid",
                "refused", "timed out", "timeout", "problems", "cannot", "can't", "not supported", "mismatch", "aborted",
                "state is down")
# each word at its start (`Failed`, `failure`), not inside another (a pod spec's `restartPolicy: OnFailure`)
_ERROR_RE = re.compile(r"(?<![A-Za-z])(?:" + "|".join(map(re.escape, _ERROR_WORDS)) + ")", re.I)
_ERROR_ASCII_RE = re.compile(r"(?<![a-z])(?:" + "|".join(map(re.escape, _ERROR_WORDS)) + ")")  # on lower-cased ASCII text: 30x faster


def _says_error(s: str) -> bool:
    """True when the line holds one of perftest's error words, in any case (``_ERROR_RE``). An ASCII line is
    lower-cased and searched case-sensitively (the same answer; a case-insensitive alternation of 17 words
    costs about 0.2 s per MB)."""
    return bool(_ERROR_ASCII_RE.search(s.lower()) if s.isascii() else _ERROR_RE.search(s))

# options of the perftest programs that take a value (the peer is the positional argument)
_OPTS_WITH_VALUE = set("-d -i -p -q -D -s -n -m -x -c -t -r -u -U -I -S -Q -T -w -L -E -g -M -k -W -y -K -l -B -J -j -f -o -O -P -v -X -e -z".split())
_LONG_WITH_VALUE = {"--ib-dev", "--ib-port", "--port", "--qp", "--duration", "--size", "--iters", "--mtu",
                    "--gid-index", "--connection", "--tx-depth", "--rx-depth", "--inline_size", "--sl",
                    "--cq-mod", "--force-link", "--source_ip", "--dest_ip", "--tclass", "--flows",
                    "--out_json_file", "--use_cuda", "--use_rocm", "--margin", "--post_list", "--recv_post_list",
                    "--rate_limit", "--rate_units", "--burst_size", "--output", "--server_port", "--client_port",
                    "--source_mac", "--dest_mac", "--pkey_index", "--limit_bw", "--limit_msgrate", "--mmap",
                    "--mmap-offset", "--retry_count", "--dlid", "--cpu-freq", "--ib-dev2", "--ib-port2", "--atomic_type"}

_BW_COLUMNS = {"#bytes": "bytes", "#iterations": "iterations", "#sl": "sl", "BW peak": "bw_peak",
               "BW average": "bw_average", "MsgRate": "msg_rate", "CPU_Util": "cpu_util"}
_LAT_COLUMNS = {"t_min": "t_min", "t_max": "t_max", "t_typical": "t_typical", "t_avg": "t_avg",
                "t_stdev": "t_stdev", "99% percentile": "p99", "99.9% percentile": "p99_9"}


@dataclass(frozen=True)
class BwRow:
    """One bandwidth result row, in Gb/s (10^9 bit/s) whatever the tool printed.

    ``bytes`` message size, ``iterations``, ``bw_peak_gbps`` (0.00 when not measured, as with
    --run_infinitely), ``bw_average_gbps``, ``msg_rate_mpps`` (million messages/s; None if the
    version has no MsgRate column), ``cpu_util_percent`` (with --cpu_util, else None).
    """

    bytes: int
    iterations: int
    bw_peak_gbps: float | None
    bw_average_gbps: float | None
    msg_rate_mpps: float | None = None
    cpu_util_percent: float | None = None


@dataclass(frozen=True)
class LatRow:
    """One latency result row, in microseconds; a column the version did not print is None."""

    bytes: int
    iterations: int
    t_min_us: float | None = None
    t_max_us: float | None = None
    t_typical_us: float | None = None
    t_avg_us: float | None = None
    t_stdev_us: float | None = None
    p99_us: float | None = None
    p99_9_us: float | None = None


@dataclass(frozen=True)
class PerftestRun:
    """One perftest run as printed on one side.

    ``program`` from the prompt (``ib_write_bw``) if shown; ``test`` the title (``RDMA_Write BW
    Test``); ``kind`` ``"bw"`` or ``"lat"``; ``role`` ``"client"`` (the command names a peer),
    ``"server"`` (no peer, or the "Waiting for client" banner) or None when unknown; ``peer``
    the address the client connected to. Header: ``device``, ``ib_port`` (``-i`` on the command
    line), ``qps``, ``transport_type``, ``connection_type``, ``link_type`` (``Ethernet`` = RoCE),
    ``gid_index``, ``rdma_mtu_bytes`` (the RDMA path MTU, not the Ethernet MTU), ``rdma_cm``,
    ``data_exchange``; ``header`` every ``Key : value`` pair as printed. ``report_unit`` the
    bandwidth unit printed (``Gb/sec`` or ``MB/sec``); rows are converted to Gb/s anyway.
    ``local_gid_ipv4``/``remote_gid_ipv4`` the IPv4 addresses inside the GIDs (None for non-IPv4
    GIDs); ``zero_gids`` the sides (``local``, ``remote``) whose GID is all zeros, ``link_local_gids`` those whose GID is
    a link-local fe80 one (perftest prints a GID's bytes in decimal: ``254:128:...``). ``run_infinitely`` (the "BW peak won't be measured" warning or the option);
    ``complete`` a closing dashed line followed the rows; ``truncated`` the run stops before
    its result (no rows, or no closing line without --run_infinitely) or its last row is cut.
    ``warnings``/``errors`` lines perftest printed; ``other_lines`` lines not understood.
    """

    program: str | None = None
    test: str | None = None
    kind: str | None = None
    role: str | None = None
    peer: str | None = None
    device: str | None = None
    ib_port: int | None = None
    qps: int | None = None
    transport_type: str | None = None
    connection_type: str | None = None
    link_type: str | None = None
    gid_index: int | None = None
    rdma_mtu_bytes: int | None = None
    rdma_cm: bool | None = None
    data_exchange: str | None = None
    report_unit: str | None = None
    rows: tuple = ()
    local_gid_ipv4: str | None = None
    remote_gid_ipv4: str | None = None
    zero_gids: tuple[str, ...] = ()
    link_local_gids: tuple[str, ...] = ()  # the sides whose GID is a link-local IPv6 one (fe80::, `254:128:...`)
    same_gid: bool = False  # the local and the remote GID are one, not all zeros: a loopback on one port (blind vw010)
    run_infinitely: bool = False
    complete: bool = False
    truncated: bool = False
    header: dict = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    other_lines: tuple[str, ...] = ()
    cut_row: tuple[int, ...] = ()  # the last row cut before its figures: its #bytes and #iterations, as far as shown

    @property
    def bw_rows(self) -> tuple[BwRow, ...]:
        return tuple(r for r in self.rows if isinstance(r, BwRow))

    @property
    def lat_rows(self) -> tuple[LatRow, ...]:
        return tuple(r for r in self.rows if isinstance(r, LatRow))

    @property
    def bw_average_gbps(self) -> float | None:
        """BW average of the last row, in Gb/s: what NVIDIA's check-connectx-bandwidth reads
        (the last data row's 4th column); the largest size with ``-a``, the latest reading with
        --run_infinitely. None without a bandwidth row."""
        rows = [r for r in self.bw_rows if r.bw_average_gbps is not None]
        return rows[-1].bw_average_gbps if rows else None

    @property
    def bw_avg_gbps(self) -> float | None:
        """Alias of ``bw_average_gbps`` (Gb/s)."""
        return self.bw_average_gbps

    @property
    def max_bw_average_gbps(self) -> float | None:
        """The highest BW average over all rows, in Gb/s."""
        vals = [r.bw_average_gbps for r in self.bw_rows if r.bw_average_gbps is not None]
        return max(vals) if vals else None

    @property
    def t_typical_us(self) -> float | None:
        """t_typical of the first latency row (the smallest message), in µs; t_avg when the
        version printed no t_typical (duration mode)."""
        rows = self.lat_rows
        if not rows:
            return None
        r = rows[0]
        return r.t_typical_us if r.t_typical_us is not None else r.t_avg_us


class PerftestRuns(list):
    """``list[PerftestRun]`` in printed order. ``bw_avg_gbps``/``bw_average_gbps``: the BW average
    (Gb/s) of the last run that has bandwidth rows, for the usual one-run client output."""

    @property
    def bw_average_gbps(self) -> float | None:
        return next((r.bw_average_gbps for r in reversed(self) if r.bw_average_gbps is not None), None)

    bw_avg_gbps = bw_average_gbps


def _float(tok: str) -> float | None:
    """A finite number from a token, else None (``1e309`` overflows to inf: not a reading)."""
    if not _NUMBER_RE.fullmatch(tok):
        return None
    value = float(tok)
    return value if math.isfinite(value) else None


def _findall_linear(rx: re.Pattern[str], after: re.Pattern[str], text: str) -> list[re.Match[str]]:
    """The matches ``rx.finditer(text)`` gives for the backtracking pattern ``rx`` stands for, in O(len(text)).

    ``rx`` only starts a match where a chain starts (its look-behinds), so a chain that fails is tried
    once, not from each of its characters. Where a match ended is the one place a match may start inside
    a chain (the old pattern started there afresh): ``after`` (the same pattern, anchored, optional
    whitespace first) is tried there before searching on.
    """
    out: list[re.Match[str]] = []
    pos = 0
    while pos <= len(text):
        m = (after.match(text, pos) if out else None) or rx.search(text, pos)
        if m is None:
            break
        out.append(m)
        pos = m.end() if m.end() > m.start() else m.end() + 1
    return out


def _kv_pairs(line: str) -> list[tuple[str, str]]:
    """The ``Key : value`` pairs of a header line, in order (``Number of qps``, ``1``): a key is words
    joined by single spaces starting with a letter, the value the first word after the colon."""
    if ":" not in line:
        return []
    return [(m.group("key"), m.group("value")) for m in _findall_linear(_KV_RE, _KV_AFTER_RE, line)]


def _name_unit(tok: str) -> tuple[str, str | None]:
    """``BW peak[Gb/sec]`` -> (``BW peak``, ``Gb/sec``); a token without a final ``[unit]`` -> (token, None).

    The unit is the bracket that closes the token and holds no ``]``, opening as early as it can."""
    tok = tok.strip()
    if tok.endswith("]"):
        opening = tok.find("[", tok.rfind("]", 0, len(tok) - 1) + 1, len(tok) - 1)
        if opening >= 0:
            return tok[:opening], tok[opening + 1:-1]
    return tok, None


def _columns(header: str) -> list[tuple[str, str | None]]:
    """(name, unit) of each column of a ``#bytes ...`` header line; name normalised. A header whose ``iterations``
    lost its ``#`` (``#bytes     iterations    BW peak[MB/sec] ...``, as some versions and copies print it) reads the
    same."""
    if "#iterations" not in header:
        header = re.sub(r"(?<=\s)iterations\b", "#iterations", header, count=1)
    out = []
    for m in _findall_linear(_COLUMN_RE, _COLUMN_AFTER_RE, header):
        name, unit = _name_unit(m.group())
        raw = name.strip()
        name = _BW_COLUMNS.get(raw) or _LAT_COLUMNS.get(raw)
        if name is None:
            pm = re.match(r"^(BW|MsgRate) Port(\d)$", raw)
            name = f"{'bw' if pm.group(1) == 'BW' else 'msg_rate'}_port{pm.group(2)}" if pm else raw
        out.append((name, unit))
    return out


def _command_facts(command: str | None) -> dict:
    """program, peer (client), ib_port, report_gbits, run_infinitely from a perftest command line."""
    argv = command_argv(command)
    # behind a launcher (taskset, numactl, docker exec C ...): start at the perftest program
    start = next((i for i, a in enumerate(argv) if a.rsplit("/", 1)[-1] in PROGRAMS), None)
    if start is None:
        return {}
    argv = [argv[start].rsplit("/", 1)[-1]] + argv[start + 1:]
    facts: dict = {"program": argv[0], "peer": None, "report_gbits": False, "run_infinitely": False}
    args = iter(argv[1:])
    for arg in args:
        if arg in ("--report_gbits", "--report-gbits"):
            facts["report_gbits"] = True
        elif arg in ("--run_infinitely", "--run-infinitely"):
            facts["run_infinitely"] = True
        elif arg in ("-i", "--ib-port"):
            nxt = next(args, None)
            facts["ib_port"] = int(nxt) if nxt and nxt.isdigit() else None
        elif arg.startswith("--ib-port="):
            v = arg.split("=", 1)[1]
            facts["ib_port"] = int(v) if v.isdigit() else None
        elif arg in _OPTS_WITH_VALUE or arg in _LONG_WITH_VALUE:
            next(args, None)
        elif arg.startswith("-"):
            continue
        else:
            facts["peer"] = arg
    facts["role"] = "client" if facts["peer"] else "server"
    return facts


class _Run:
    """Mutable state while reading one run."""

    def __init__(self, cmd: dict) -> None:
        self.cmd = cmd
        self.test = self.kind = None
        self.header: dict[str, str] = {}
        self.columns: list[tuple[str, str | None]] | None = None
        self.rows: list = []
        self.side: str | None = None
        self.gids: dict[str, str] = {}
        self.banner = False
        self.run_inf = bool(cmd.get("run_infinitely"))
        self.dashes_after_rows = False
        self.truncated_row = False
        self.cut_row: tuple[int, ...] = ()
        self.warnings: list[str] = []
        self.errors: list[str] = []
        self.other: list[Line] = []

    def has_content(self) -> bool:  # (perftest's check of the CPU's clock, pasted alone, is its output too)
        return bool(self.test or self.header or self.rows or self.columns or self.errors or self.banner or len(self.gids) > 1
                    or any(w.startswith("Conflicting CPU frequency") for w in self.warnings))

    def build(self) -> PerftestRun:
        h = {k.lower(): v for k, v in self.header.items()}
        mtu = re.match(r"^(\d+)", h.get("mtu", ""))
        gid = h.get("gid index", "")
        qps = h.get("number of qps", "")
        unit = next((u for n, u in (self.columns or []) if n in ("bw_peak", "bw_average") and u), None)
        kind = self.kind or ("lat" if self.columns and any(n.startswith("t_") for n, _ in self.columns) else
                             "bw" if self.columns else None)
        role = "server" if self.banner else self.cmd.get("role")
        no_result = not self.rows and not self.errors
        truncated = self.truncated_row or (no_result and bool(self.test or self.header)) or (
            bool(self.rows) and not self.dashes_after_rows and not self.run_inf)
        rdma_cm = h.get("rdma_cm qps")
        return PerftestRun(
            program=self.cmd.get("program"), test=self.test, kind=kind, role=role, peer=self.cmd.get("peer"),
            device=h.get("device"), ib_port=self.cmd.get("ib_port"), qps=int(qps) if qps.isdigit() else None,
            transport_type=h.get("transport type"), connection_type=h.get("connection type"),
            link_type=h.get("link type"), gid_index=int(gid) if gid.isdigit() else None,
            rdma_mtu_bytes=int(mtu.group(1)) if mtu else None,
            rdma_cm=None if rdma_cm is None else rdma_cm.upper() == "ON", data_exchange=h.get("data ex. method"),
            report_unit=unit or (("Gb/sec" if self.cmd.get("report_gbits") else None) if self.rows else None),
            rows=tuple(self.rows), local_gid_ipv4=ipv4_of_gid(self.gids.get("local", "")),
            remote_gid_ipv4=ipv4_of_gid(self.gids.get("remote", "")), run_infinitely=self.run_inf,
            zero_gids=tuple(side for side, g in self.gids.items() if g.strip(":0") == ""),
            same_gid=len(self.gids) == 2 and len(set(self.gids.values())) == 1 and bool(self.gids["local"].strip(":0")),
            link_local_gids=tuple(side for side, g in self.gids.items() if g.lower().split(":")[:2] in (["254", "128"],
                                                                                                         ["fe", "80"])),
            complete=self.dashes_after_rows, truncated=truncated, header=dict(self.header),
            warnings=tuple(self.warnings), errors=tuple(self.errors),
            other_lines=tuple(x.text.strip() for x in self.other), cut_row=self.cut_row)


def _row(run: _Run, toks: list[str], line: Line, last: bool) -> None:
    nums = [_float(t) for t in toks]
    cols = run.columns
    if cols is None:  # rows without their header (cut above it): the usual layout of the test's kind
        program = run.cmd.get("program") or ""
        if run.kind == "lat" or (run.kind is None and program.endswith("_lat")):
            cols = [(n, "usec") for n in ("bytes", "iterations", "t_min", "t_max", "t_typical", "t_avg",
                                          "t_stdev", "p99", "p99_9")]
        else:
            unit = "Gb/sec" if run.cmd.get("report_gbits") else "MB/sec"
            cols = [(n, unit) for n in ("bytes", "iterations", "bw_peak", "bw_average", "msg_rate", "cpu_util")]
        if len(toks) >= 4:  # the version's own width (no MsgRate, no CPU_Util...)
            cols = cols[:len(toks)]
    if None in nums:  # a word among the figures (**23.38 Gb/sec** in bold): not a row to guess at
        raise fail_on_line(CMD, line, f"a result row with a value that is not a number ({toks[nums.index(None)]!r})")
    if last and len(nums) < len(cols) and len(nums) >= 5 and cols[4][0] == "t_typical":  # a latency row cut after
        run.truncated_row = True                                                         # t_typical: what it shows
        run.rows.append(LatRow(int(nums[0]), int(nums[1]), nums[2], nums[3], nums[4]))
        return
    if len(nums) > len(cols) or len(nums) < 3:
        if last and len(nums) < len(cols):  # the paste ends inside its last row
            run.truncated_row, run.cut_row = True, tuple(int(n) for n in nums[:2])
            return
        raise fail_on_line(CMD, line, f"a result row with {len(nums)} values under a header of {len(cols)} columns")
    if len(nums) < len(cols) and last:  # the paste ends inside its last row: its #bytes and #iterations kept
        run.truncated_row, run.cut_row = True, tuple(int(n) for n in nums[:2])
        return
    vals = {name: (v, unit) for (name, unit), v in zip(cols, nums)}
    size, iters = vals.get("bytes", (None, None))[0], vals.get("iterations", (None, None))[0]
    if size is None or iters is None:
        raise fail_on_line(CMD, line, "a result row without #bytes and #iterations")
    if any(n.startswith("t_") or n.startswith("p99") for n, _ in cols):
        run.rows.append(LatRow(int(size), int(iters), *(vals.get(k, (None, None))[0]
                               for k in ("t_min", "t_max", "t_typical", "t_avg", "t_stdev", "p99", "p99_9"))))
        return

    def gbps(key: str) -> float | None:
        v, unit = vals.get(key, (None, None))
        if v is None:
            return None
        u = (unit or "").lower()
        return v if u.startswith("gb") else round(v * MB_PER_SEC_IN_GBPS, 6)

    run.rows.append(BwRow(int(size), int(iters), gbps("bw_peak"), gbps("bw_average"),
                          vals.get("msg_rate", (None, None))[0], vals.get("cpu_util", (None, None))[0]))


def parse_perftest(text: str) -> PerftestRuns:
    """Parse one or more perftest runs (client or server side) into PerftestRuns (a list of
    PerftestRun, in order).

    A new run starts at each shell prompt, and at a test title or server banner after a run that
    already has one. Launcher prefixes and timestamps (see ``strip_log_prefix``) are removed.
    Lines perftest prints about problems become ``errors`` (``Couldn't connect to ...``,
    ``Unable to init the socket connection``, ``IB device ... not found``), warnings become
    ``warnings``; other lines are kept in ``other_lines``.

    Raises ParseError for ``command not found``, a result row that does not fit its header,
    or text with no perftest run in it.
    """
    lines = [x for x in content_lines(text, keep_comments=True)
             if not is_comment_line(x.text) or _RESULT_HEADER_RE.match(x.text.strip()) or _COMMENT_CMD_RE.match(x.text.strip())]
    runs: list[_Run] = []
    group = None
    cur: _Run | None = None
    for pos, line in enumerate(lines):
        s = strip_log_prefix(line.text).strip()
        last = pos == len(lines) - 1
        if not s:
            continue
        if cur is None or line.group != group:
            if cur is not None and cur.has_content():
                runs.append(cur)
            cur, group = _Run(_command_facts(line.command)), line.group
        c = _COMMENT_CMD_RE.match(s)
        if c:  # "# --- ib_write_bw -d rocep1s0f0 192.168.10.11": a command named in a comment
            facts = _command_facts(c.group("cmd"))
            if cur.has_content():
                runs.append(cur)
                cur = _Run(facts)
            elif not cur.cmd:
                cur.cmd = facts
            continue
        if "not found" in s and _NOT_FOUND_RE.search(s):
            raise fail_on_line(CMD, line, f"the shell says: {s}; install perftest (`sudo apt install perftest`)")
        t = _TITLE_RE.match(s)
        if t and not _kv_pairs(s):
            if cur.test or cur.rows:
                runs.append(cur)
                cur = _Run(cur.cmd)
            cur.test = t.group("title")
            cur.kind = "bw" if t.group("kind") == "BW" else "lat"
            continue
        if _STARS_RE.match(s):
            if cur.rows or cur.test:
                runs.append(cur)
                cur = _Run(cur.cmd)
            cur.banner = True
            continue
        if _DASH_RE.match(s):
            if cur.rows:
                cur.dashes_after_rows = True
            continue
        if s.startswith("#bytes") or s.startswith("# bytes"):
            if cur.rows:  # a second table with no banner (two runs pasted one after the other): a run of its own
                runs.append(cur)
                cur = _Run(cur.cmd)
            cur.columns = _columns(s)
            continue
        toks = s.split()
        if toks and _float(toks[0]) is not None and sum(_float(x) is not None for x in toks) >= max(2, len(toks) - 1):
            _row(cur, toks, line, last)
            continue
        if cur.columns and toks and _float(toks[0]) is not None and len(toks) >= 3:  # under a header: a row, unread
            raise fail_on_line(CMD, line, "a result row whose values are not all numbers (Markdown or a unit among "
                                          "them?): paste the rows as perftest printed them")
        m = _ADDR_RE.match(s)
        if m:
            cur.side = m.group("side").lower()
            if (g := re.search(r",\s*GID\s+(?P<gid>[0-9A-Fa-f:.]{2,45})\s*$", s)):  # ibv_*_pingpong: on the line
                cur.gids.setdefault(cur.side, g.group("gid"))
            continue
        m = _GID_RE.match(s)
        if m:
            cur.gids.setdefault(cur.side or "local", m.group("gid"))
            continue
        low = s.lower()
        if "won't be measured" in low or "run_infinitely" in low:
            cur.run_inf = True
            cur.warnings.append(s)
            continue
        if _WARNING_ASCII_RE.search(low) if s.isascii() else _WARNING_RE.search(s):
            cur.warnings.append(s.strip("`"))  # (quoted as inline code: `Conflicting CPU frequency ...`)
            continue
        if _says_error(s):
            cur.errors.append(s)
            continue
        pairs = _kv_pairs(s)
        if pairs and ":" in s:
            cur.header.update({k.strip(): v for k, v in pairs})
            continue
        cur.other.append(line)
    if cur is not None and cur.has_content():
        runs.append(cur)
    if not runs:
        first = next((x for x in lines if x.text.strip()), None)
        if first is not None:
            raise fail_on_line(CMD, first, "no perftest run found (expected a `RDMA_Write BW Test` header "
                                           "or `#bytes #iterations ...` result rows)")
        raise ParseError(CMD, "no perftest output (the text is empty)")
    for r in runs:
        if not (r.test or r.header or r.rows or r.columns) and r.other and not r.errors and len(r.gids) < 2:
            raise fail_on_line(CMD, r.other[0], "not perftest output")
    return PerftestRuns(r.build() for r in runs)
