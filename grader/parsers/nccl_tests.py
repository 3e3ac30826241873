"""Parser for nccl-tests (``all_reduce_perf``, ``all_gather_perf``, ``reduce_scatter_perf``,
``broadcast_perf``, ``reduce_perf``, ``alltoall_perf``, ``sendrecv_perf``...).

Output (nccl-tests 2.17/2.18, fixtures/real/spark/07_* and 08_*)::

    # nccl-tests version 2.18.5 nccl-headers=22809 nccl-library=22809
    # Collective test starting: all_gather_perf
    # nThread 1 nGpus 1 minBytes 17179869184 maxBytes 17179869184 step: 2(factor) warmup iters: 1 iters: 20 ...
    #
    # Using devices
    #  Rank  0 Group  0 Pid  37755 on gb10-node-a device  0 [000f:01:00] NVIDIA GB10
    #  Rank  1 Group  0 Pid  30808 on gb10-node-b device  0 [000f:01:00] NVIDIA GB10
    #
    #                                                              out-of-place                       in-place
    #       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
    #        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)
     17179869184    2147483648     float    none      -1   374425   45.88   22.94       0   373792   45.96   22.98       0
    # Out of bounds values : 0 OK
    # Avg bus bandwidth    : 22.9611
    #
    # Collective test concluded: all_gather_perf

Columns are read from the ``size count type ...`` header line, because versions differ: old
ones have no ``root`` (or no ``redop``) column and an ``error`` column instead of ``#wrong``;
``-C`` prints ``cputime`` for ``time``; per-iteration timing adds ``i_min i_max i_p99 i_cv%``
after each ``#wrong``; ``-T`` adds a ``timestamp`` (date and time) at the end; ``#wrong`` is
``N/A`` without data checking. Rows without their header (a paste cut above it) are read by
the usual layouts (13, 12 or 11 values).

Units: ``size`` in bytes, ``time`` in microseconds, ``algbw`` and ``busbw`` in **GB/s = 10^9
bytes per second** (multiply by 8 for Gb/s: NVIDIA's 21.875 GB/s bar = 175 Gb/s). busbw is algbw
times (n-1)/n for all_gather and reduce_scatter, 2(n-1)/n for all_reduce, 1 for broadcast and
reduce, n ranks (nccl-tests doc/PERFORMANCE.md). ``# Avg bus bandwidth`` averages busbw over every
row and both columns (out-of-place and in-place); ``avg_busbw_recomputed`` recomputes it from the
rows, so a file cut before that line still gives it. Lines launchers add (``[1,0]<stdout>:``,
timestamps), X11 noise and NCCL_DEBUG lines may be mixed in; NCCL lines are read into ``nccl_log``.

Sources: NVIDIA/nccl-tests src/util.cu (writeResultHeader, writeDeviceReport, writeResultFooter);
procedure.md §1.5 d-e and §6.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .common import Line, ParseError, content_lines, fail_on_line, raise_if_shell_error, strip_log_prefix
from .nccl_log import NcclLog, parse_nccl_log

CMD = "nccl-tests"
MAX_GPUS_PER_PROCESS = 1024
"""More ranks than this in one process (nThread x nGpus) is no header a run printed (a node has a handful of GPUs)."""

_VERSION_RE = re.compile(r"^#\s*nccl-tests version (?P<v>\S+)(?:\s+nccl-headers=(?P<h>\d+))?(?:\s+nccl-library=(?P<l>\d+))?")
_START_RE = re.compile(r"^#\s*Collective test starting:\s*(?P<name>\S+)")
_END_RE = re.compile(r"^#\s*Collective test concluded:\s*(?P<name>\S+)")
_NTHREAD_RE = re.compile(r"^#\s*nThread\s+(?P<nt>\d+)\s+nGpus\s+(?P<ng>\d+)\s+minBytes\s+(?P<min>\d+)\s+maxBytes\s+(?P<max>\d+)")
_ITERS_RE = re.compile(r"(?<!agg )(?<!warmup )iters:\s*(?P<n>\d+)")
_RANK_RE = re.compile(r"^#\s*Rank\s+(?P<rank>\d+)(?:\s+Group\s+(?P<group>\d+))?\s+Pid\s+(?P<pid>\d+)\s+on\s+(?P<host>\S+)"
                      r"\s+device\s+(?P<dev>\d+)\s+\[(?P<bus>[^\]]*)\]\s*(?P<gpu>.*)$")
_OOB_RE = re.compile(r"^#\s*Out of bounds values\s*:\s*(?P<n>\d+)\s*(?P<ok>OK|FAILED)?")
_AVG_RE = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*(?P<v>[-+\d.eE]+|nan|inf)\s*(?P<ok>OK|FAILED)?", re.I)
_ERRLINE_RE = re.compile(r"^#\s*error:\s*(?P<msg>.*)$")
_ROW_START_RE = re.compile(r"^\d+\s+\d+\s+[A-Za-z]\w*\s")
_BARE_ROW_RE = re.compile(r"^\d+(?:\s+[\d.]+|\s+N/A){2,}$")  # a row under a header cut to `size time algbw busbw`
_NCCL_LINE_RE = re.compile(r"\bNCCL (?:INFO|WARN|TRACE|ABORT)\b|^NCCL version \d")
_FAILURE_RE = re.compile(r"Test (?:NCCL |CUDA )?failure|NCCL failure|NCCL error|CUDA failure|failed|Abort|"
                         r"exited on signal|non-zero exit|unable to|Connection refused|Host key verification|"
                         r"Permission denied|Could not|couldn't|Segmentation fault|Invalid number of GPUs", re.I)
_DIED_RE = re.compile(r"Test (?:NCCL |CUDA )?failure \S{1,80}:\d{1,6}")  # (common.cu: the test exits after it)
_TIME_COLS = ("time", "cputime")
_WRONG_COLS = ("#wrong", "error", "errors")

#: busbw/algbw for each collective with n ranks (nccl-tests doc/PERFORMANCE.md)
BUSBW_FACTORS = {
    "all_reduce": lambda n: 2 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n, "alltoall": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0, "reduce": lambda n: 1.0, "sendrecv": lambda n: 1.0,
}


@dataclass(frozen=True)
class NcclTestsRank:
    """A ``# Rank N Group G Pid P on HOST device D [BUS] NAME`` line (Group absent in old versions)."""

    rank: int
    group: int | None
    pid: int
    host: str
    device: int
    bus_id: str
    gpu: str


@dataclass(frozen=True)
class NcclTestsMeasure:
    """One side of a row: ``time_us`` (µs; CPU time with -C), ``algbw_gbs`` and ``busbw_gbs`` in
    GB/s (10^9 bytes/s), ``wrong`` the #wrong (or old ``error``) count, None for ``N/A``."""

    time_us: float
    algbw_gbs: float
    busbw_gbs: float
    wrong: int | None
    rel_error: float | None = None  # the old ``error`` column: the largest relative error of the results


@dataclass(frozen=True)
class NcclTestsRow:
    """One data row: ``size_bytes``, ``count`` (elements; 0 under a header a person cut to ``size time algbw busbw``),
    ``dtype``, ``redop`` and ``root`` (None
    when the version has no such column), ``out_of_place`` and ``in_place`` measures (either may
    be None: trace replays print in-place only), ``timestamp`` with -T."""

    size_bytes: int
    count: int
    dtype: str
    redop: str | None
    root: int | None
    out_of_place: NcclTestsMeasure | None
    in_place: NcclTestsMeasure | None
    timestamp: str | None = None

    @property
    def busbw_gbs(self) -> float | None:
        """The mean busbw of the row's two sides (GB/s), or the one present."""
        vals = [m.busbw_gbs for m in (self.out_of_place, self.in_place) if m is not None]
        return sum(vals) / len(vals) if vals else None


@dataclass(frozen=True)
class NcclTestsResult:
    """One nccl-tests run.

    ``collective`` the test program (``all_gather_perf``) from ``# Collective test starting``
    or the command line; ``tests_version`` (``2.18.5``), ``nccl_headers``/``nccl_library``
    version codes (22809 = 2.28.9); ``nthreads``, ``ngpus``, ``min_bytes``, ``max_bytes``,
    ``iters`` from the ``# nThread`` line; ``ranks`` the ``# Rank`` lines; ``columns`` the header
    as read; ``rows`` in order; ``out_of_bounds`` and ``out_of_bounds_ok``; ``avg_busbw_reported``
    the ``# Avg bus bandwidth`` value (GB/s; None when cut off); ``concluded`` the ``Collective
    test concluded`` line was seen; ``truncated`` the run stops before ``# Avg bus bandwidth``
    (or its last row is cut); ``errors`` failure lines (``Test NCCL failure ...``, ``# error:``,
    mpirun's); ``nccl_log`` the NCCL_DEBUG lines mixed in, parsed (None without any); ``starts``
    how many ``# Collective test starting`` lines were seen (see ``independent_runs``); ``averages`` every
    ``# Avg bus bandwidth`` value, in order (GB/s; two or more: several runs' summaries in one output).
    """

    collective: str | None = None
    tests_version: str | None = None
    nccl_headers: int | None = None
    nccl_library: int | None = None
    nthreads: int | None = None
    ngpus: int | None = None
    min_bytes: int | None = None
    max_bytes: int | None = None
    iters: int | None = None
    ranks: tuple[NcclTestsRank, ...] = ()
    columns: tuple[str, ...] = ()
    rows: tuple[NcclTestsRow, ...] = ()
    out_of_bounds: int | None = None
    out_of_bounds_ok: bool | None = None
    avg_busbw_reported: float | None = None
    concluded: bool = False
    truncated: bool = False
    errors: tuple[str, ...] = ()
    died_before: tuple[str, ...] = ()  # nccl-tests' own `Test ... failure` lines before any header or row: a run that died
    nccl_log: NcclLog | None = None
    starts: int = 0
    averages: tuple[float | None, ...] = ()

    @property
    def independent_runs(self) -> bool:
        """True when several processes each printed their own run (two ``Collective test starting``
        lines, a ``# nThread`` header again before the first run's average, or one rank number with two pids):
        mpirun started copies of a binary built without
        MPI=1, each a job of its own, so nothing moved between them."""
        pids: dict[int, set[int]] = {}
        for r in self.ranks:
            pids.setdefault(r.rank, set()).add(r.pid)
        return self.starts > 1 or any(len(p) > 1 for p in pids.values())

    @property
    def sizes_restart(self) -> bool:
        """True when a row's size is below the row before it of the same type and op: one run prints its sizes rising
        (``-d all`` and ``-o all`` start again for each type and op), so these rows are two runs' tables interleaved
        (two processes printing at once) or pasted one after the other."""
        return any(b.size_bytes < a.size_bytes and (a.dtype, a.redop) == (b.dtype, b.redop)
                   for a, b in zip(self.rows, self.rows[1:]))

    @property
    def nranks(self) -> int | None:
        """How many ranks took part: the ``# Rank`` lines (at least the highest rank shown plus one: a paste may cut
        the first lines of a long list, and at least the header's nThread x nGpus: one process's ranks, listed
        whole unless the list is cut), else the NCCL log's nRanks, else None."""
        if self.ranks:
            return max(len({r.rank for r in self.ranks}), 1 + max(r.rank for r in self.ranks), self._per_process)
        return self.nccl_log.nranks if self.nccl_log else None

    @property
    def _per_process(self) -> int:  # the ranks one process runs (its threads' GPUs), 1 when the header is not shown
        n = (self.nthreads or 1) * (self.ngpus or 1)
        return n if n <= MAX_GPUS_PER_PROCESS else 1  # (a header no run printed: not a count to trust)

    @property
    def ranks_cut(self) -> bool:
        """True when ``# Rank`` lines are missing from the paste (rank numbers up to N shown, fewer than N + 1 lines, or
        fewer than the header's nThread x nGpus): the hosts and GPUs listed are then some of the run's, not all."""
        return bool(self.ranks) and len({r.rank for r in self.ranks}) < max(1 + max(r.rank for r in self.ranks),
                                                                           self._per_process)

    @property
    def hosts(self) -> tuple[str, ...]:
        """The distinct hosts of the ranks, in rank order."""
        return tuple(dict.fromkeys(r.host for r in self.ranks))

    @property
    def nccl_version(self) -> str | None:
        """``2.28.9`` from the library code 22809 (headers when the library is not printed), else from NCCL's own
        ``NCCL version 2.21.5+cuda12.4`` line among the NCCL_DEBUG lines."""
        code = self.nccl_library or self.nccl_headers
        if not code:
            return self.nccl_log.version.split("+")[0] if self.nccl_log and self.nccl_log.version else None
        major, rest = divmod(code, 10000)
        minor, patch = divmod(rest, 100)
        return f"{major}.{minor}.{patch}"

    @property
    def avg_busbw_recomputed(self) -> float | None:
        """The mean busbw over all rows and both sides (out-of-place and in-place), GB/s: how
        nccl-tests computes ``# Avg bus bandwidth``. None without a row."""
        vals = [m.busbw_gbs for r in self.rows for m in (r.out_of_place, r.in_place) if m is not None]
        return sum(vals) / len(vals) if vals else None

    @property
    def largest(self) -> NcclTestsRow | None:
        """The row with the largest size (the last one of that size), or None."""
        return max(reversed(self.rows), key=lambda r: r.size_bytes) if self.rows else None

    @property
    def busbw_at_largest_gbs(self) -> float | None:
        """busbw at the largest message size, mean of both sides (GB/s): the figure that shows what
        the link can carry, since small messages are latency-bound."""
        row = self.largest
        return row.busbw_gbs if row else None

    @property
    def wrong_total(self) -> int:
        """The sum of #wrong over all rows and sides (N/A counts 0)."""
        return sum(m.wrong or 0 for r in self.rows for m in (r.out_of_place, r.in_place) if m is not None)


def _num(tok: str) -> float | None:
    """A finite float from a token, else None (``nan``, ``inf``, words)."""
    try:
        value = float(tok)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _measure(toks: list[str], cols: list[str], line: Line) -> NcclTestsMeasure:
    vals = dict(zip(cols, toks))
    t = _num(vals.get("time", vals.get("cputime", "")))
    alg, bus = _num(vals.get("algbw", "")), _num(vals.get("busbw", ""))
    if t is None or alg is None or bus is None:
        raise fail_on_line(CMD, line, "cannot read time/algbw/busbw in this row")
    wtok = next((vals[c] for c in _WRONG_COLS if c in vals), None)
    wrong = None
    if wtok is not None and wtok.upper() != "N/A":
        w = _num(wtok)
        if w is None:
            raise fail_on_line(CMD, line, f"cannot read #wrong {wtok!r}")
        wrong = int(w)
    return NcclTestsMeasure(t, alg, bus, wrong, w if "error" in vals and wtok is not None and wrong is not None else None)


class _Layout:
    """Where the prefix, out-of-place and in-place columns are in a header."""

    def __init__(self, cols: list[str]) -> None:
        self.cols = cols
        times = [i for i, c in enumerate(cols) if c in _TIME_COLS]
        self.timestamp = cols[-1] == "timestamp"
        end = len(cols) - (1 if self.timestamp else 0)
        self.prefix = cols[:times[0]]
        if len(times) >= 2:
            self.oop, self.ip = cols[times[0]:times[1]], cols[times[1]:end]
        else:
            self.oop, self.ip = [], cols[times[0]:end]

    @classmethod
    def from_header(cls, header: str) -> "_Layout | None":
        cols = header.lstrip("#").split()
        if len(cols) < 4 or cols[0] != "size" or len(cols) < 6 and cols[1] == "count" \
                or not any(c in _TIME_COLS for c in cols) or "busbw" not in cols:  # (a person may cut columns out)
            return None
        return cls(cols)

    @classmethod
    def default(cls, toks: list[str]) -> "_Layout | None":  # a last value in float form (0e+00): the old `error`
        side = ["time", "algbw", "busbw", "error" if re.fullmatch(r"\d(?:\.\d{1,9})?e[+-]\d{2,3}", toks[-1]) else "#wrong"]
        prefix = {13: ["size", "count", "type", "redop", "root"], 12: ["size", "count", "type", "redop"],
                  11: ["size", "count", "type"]}.get(len(toks))
        return cls(prefix + side + side) if prefix else None


def _row(toks: list[str], layout: _Layout, line: Line) -> NcclTestsRow:
    ts = None
    if layout.timestamp and len(toks) >= 2 and re.match(r"^\d{4}-\d\d-\d\d$", toks[-2]):
        ts, toks = f"{toks[-2]} {toks[-1]}", toks[:-2]
    np_, no, ni = len(layout.prefix), len(layout.oop), len(layout.ip)
    if len(toks) == np_ + no + ni and no:
        oop = _measure(toks[np_:np_ + no], layout.oop, line)
        ip = _measure(toks[np_ + no:], layout.ip, line)
    elif len(toks) == np_ + ni:
        oop, ip = None, _measure(toks[np_:], layout.ip, line)
    else:
        raise fail_on_line(CMD, line, f"{len(toks)} values in a row under a header of "
                                      f"{np_ + no + ni} columns ({' '.join(layout.cols)})")
    pre = dict(zip(layout.prefix, toks[:np_]))
    size, count = _num(pre.get("size", "")), _num(pre.get("count", "")) if "count" in pre else 0  # cut out: 0
    if size is None or count is None:
        raise fail_on_line(CMD, line, "cannot read size/count in this row")
    root = _num(pre["root"]) if "root" in pre else None
    return NcclTestsRow(int(size), int(count), pre.get("type", "?"), pre.get("redop"),
                        int(root) if root is not None else None, oop, ip, ts)


def _cut_wrong_column(toks: list[str], layout: _Layout | None, line: Line) -> NcclTestsRow | None:
    """A last row that stops before its last ``#wrong`` value (a paste cut there), read with that value unknown; None
    when more than that is missing."""
    if layout is None or not layout.cols or layout.cols[-1] != "#wrong":
        return None
    try:
        return _row([*toks, "N/A"], layout, line)
    except ParseError:
        return None


def _collective_from_command(lines: list[Line]) -> str | None:
    for line in lines:
        if line.command:
            for tok in line.command.split():
                base = tok.rsplit("/", 1)[-1]
                if base.endswith("_perf") or base.endswith("_perf_mpi"):
                    return base
    return None


_SRUN_LABEL_RE = re.compile(r"^\s*\d+: ")
"""Slurm's ``srun --label``: each line of a task's output after its task number (`` 0: #  size ...``); taken off only
where most lines carry one."""


_HASHLESS_RE = re.compile(r"^(?:nThread \d+ nGpus \d|Using devices$|Rank\s+\d+\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s"
                          r"|size\s+count\s+type\s|\(B\)\s+\(elements\)|out-of-place\s+in-place$"
                          r"|(?:Avg bus bandwidth|Out of bounds values)\s*:|nccl-tests version |Collective test )")
"""nccl-tests' header lines with their leading ``#`` lost (a forum's Markdown read ``# nThread ...`` as a heading)."""
_RANK_TAG_RE = re.compile(r"^\[\d+\]\s")
_GLUED_TAG_RE = re.compile(r"(?<=[\d.])\[\d+\](?=\s)")
"""``-1[0]    1626.5``: a rank's tag where a row's next part was written."""


def parse_nccl_tests(text: str) -> NcclTestsResult:
    """Parse one nccl-tests run (prompts, launcher prefixes, NCCL_DEBUG lines and X11 noise mixed
    in) into NcclTestsResult. See the module doc for the shapes and units.

    A last row cut short is left out (``truncated``). Raises ParseError for ``command not
    found``, a row that does not fit the header, or no nccl-tests line at all.
    """
    lines = content_lines(text, keep_comments=True)
    facts: dict = {"ranks": [], "rows": [], "errors": []}
    nccl_lines: list[str] = []
    layout: _Layout | None = None
    seen = 0
    truncated_row = False
    labelled = sum(1 for x in lines if _SRUN_LABEL_RE.match(x.text)) > len(lines) // 2  # `srun --label` on each line
    for pos, line in enumerate(lines):
        s = strip_log_prefix(_SRUN_LABEL_RE.sub("", line.text, count=1) if labelled else line.text).strip()
        if not s:
            continue
        if _RANK_TAG_RE.match(line.text):  # MPICH's -prepend-rank tags each write: nccl-tests writes a row in parts
            s = _GLUED_TAG_RE.sub(" ", s)
        if _NCCL_LINE_RE.search(s):
            nccl_lines.append(s)
            continue
        last = pos == len(lines) - 1
        if s[:1] != "#" and _HASHLESS_RE.match(s):  # Markdown took the `#` off the header's lines
            s = "# " + s
        if s.startswith("#"):
            seen += _header_line(s, facts)
            lay = _Layout.from_header(s)
            if lay is not None:
                layout, seen = lay, seen + 1
            continue
        if _ROW_START_RE.match(s + " ") or layout is not None and layout.prefix == ["size"] and _BARE_ROW_RE.match(s):
            toks = s.split()
            lay = layout or _Layout.default(toks)
            if layout is not None and lay is layout and layout.prefix == ["size"]:
                lay = _Layout.default(toks) or layout  # a header a person cut short, over rows printed whole
            try:
                if lay is None:
                    raise fail_on_line(CMD, line, f"a data row of {len(toks)} values without its column header")
                facts["rows"].append(_row(toks, lay, line))
                seen += 1
            except ParseError:
                if last:
                    truncated_row = True
                    whole = _cut_wrong_column(toks, lay, line)  # cut only in its last `#wrong` column: its figures stand
                    if whole is not None:
                        facts["rows"].append(whole)
                        seen += 1
                    continue
                raise
            continue
        if re.search(r"(?:^|:\s)\S*_perf\w*: (?:command )?not found$|No such file or directory$", s):
            raise fail_on_line(CMD, line, f"the command could not run: {s}")
        if _FAILURE_RE.search(s):
            facts["errors"].append(s)
            facts["dead"] = facts.get("dead", ()) + ((s,) if not seen and _DIED_RE.search(s) else ())
    if not seen and not facts["errors"] and not nccl_lines:  # (NCCL's lines alone: a run cut before its table)
        raise_if_shell_error(lines, CMD)
        first = next((x for x in lines if x.text.strip()), None)
        raise ParseError(CMD, "no nccl-tests output found (expected `# nThread ...`, the `size count type ...` "
                              "header or data rows)", first.text.strip() if first else None,
                         first.no if first else None)
    log = None
    if nccl_lines:
        try:
            log = parse_nccl_log("\n".join(nccl_lines))
        except ParseError:
            log = None
    collective = facts.get("collective") or _collective_from_command(lines)
    averages = facts.get("averages", ())
    truncated = truncated_row or not averages
    return NcclTestsResult(
        collective=collective, tests_version=facts.get("version"), nccl_headers=facts.get("headers"),
        nccl_library=facts.get("library"), nthreads=facts.get("nthreads"), ngpus=facts.get("ngpus"),
        min_bytes=facts.get("min"), max_bytes=facts.get("max"), iters=facts.get("iters"),
        ranks=tuple(facts["ranks"]), columns=tuple(layout.cols) if layout else (), rows=tuple(facts["rows"]),
        out_of_bounds=facts.get("oob"), out_of_bounds_ok=facts.get("oob_ok"),
        avg_busbw_reported=averages[-1] if averages else None, concluded=bool(facts.get("concluded")), truncated=truncated,
        errors=tuple(facts["errors"]), nccl_log=log, died_before=facts.get("dead", ()),
        starts=max(facts.get("starts", 0), early if (early := facts.get("early_headers", 0)) > 1 else 0), averages=averages)


def _header_line(s: str, facts: dict) -> int:
    """Read one ``#`` line into facts; 1 if it was an nccl-tests line, else 0."""
    m = _VERSION_RE.match(s)
    if m:
        facts["version"] = m.group("v")
        facts["headers"] = int(m.group("h")) if m.group("h") else None
        facts["library"] = int(m.group("l")) if m.group("l") else None
        return 1
    m = _START_RE.match(s)
    if m:
        facts.setdefault("collective", m.group("name"))
        facts["starts"] = facts.get("starts", 0) + 1
        return 1
    m = _END_RE.match(s)
    if m:
        facts["concluded"] = True
        facts.setdefault("collective", m.group("name"))
        return 1
    m = _NTHREAD_RE.match(s)
    if m:
        if not facts.get("averages"):  # headers before any run ended: one per process (several: no MPI)
            facts["early_headers"] = facts.get("early_headers", 0) + 1
        facts.update(nthreads=int(m.group("nt")), ngpus=int(m.group("ng")), min=int(m.group("min")),
                     max=int(m.group("max")))
        it = _ITERS_RE.search(s)
        if it:
            facts["iters"] = int(it.group("n"))
        return 1
    m = _RANK_RE.match(s)
    if m:
        facts["ranks"].append(NcclTestsRank(int(m.group("rank")), int(m.group("group")) if m.group("group") else None,
                                            int(m.group("pid")), m.group("host"), int(m.group("dev")),
                                            m.group("bus"), m.group("gpu").strip()))
        return 1
    m = _OOB_RE.match(s)
    if m:
        facts["oob"] = int(m.group("n"))
        facts["oob_ok"] = (m.group("ok") == "OK") if m.group("ok") else facts["oob"] == 0
        return 1
    m = _AVG_RE.match(s)
    if m:
        v = _num(m.group("v"))
        facts["averages"] = facts.get("averages", ()) + (v,)
        return 1
    m = _ERRLINE_RE.match(s)
    if m:
        facts["errors"].append(m.group("msg").strip())
        return 1
    return 0


def busbw_factor(collective: str | None, nranks: int | None) -> float | None:
    """busbw/algbw for a collective (``all_gather_perf`` or ``all_gather``) and n ranks, or None."""
    if not collective or not nranks:
        return None
    name = re.sub(r"_perf(?:_mpi)?$", "", collective)
    f = BUSBW_FACTORS.get(name)
    return f(nranks) if f else None


# --------------------------------------------------------------------------- benchmark tables

_BENCH_HEAD_RE = re.compile(r"^(?P<name>[A-Za-z_]+)\((?P<unit>[^)]*)\)$")
_BENCH_KV_RE = re.compile(r"^(?P<name>[A-Za-z]+)_(?P<unit>[A-Za-z/]+)=(?P<value>[-+\d.eE]+)$")
_TIME_TO_US = {"us": 1.0, "usec": 1.0, "ms": 1000.0, "s": 1e6, "sec": 1e6}
_BW_TO_GBS = {"GB/s": 1.0, "GBps": 1.0, "GBytes/s": 1.0, "MB/s": 1e-3, "MBps": 1e-3,
              "Gb/s": 1 / 8, "Gbps": 1 / 8, "Gbit/s": 1 / 8}


@dataclass(frozen=True)
class BenchRow:
    """One row of a collective benchmark script's table: ``size`` in ``size_unit`` as printed (MB,
    MiB, B...), ``time_us`` (µs), ``algbw_gbs`` and ``busbw_gbs`` in GB/s (10^9 bytes/s)."""

    size: float
    size_unit: str
    time_us: float | None
    algbw_gbs: float | None
    busbw_gbs: float | None


@dataclass(frozen=True)
class BenchTable:
    """A torch.distributed collective benchmark's output: ``columns`` as printed, ``rows`` in order,
    ``form`` ``"table"`` (a ``size(MB) time(ms) algbw(GB/s) busbw(GB/s)`` header over rows) or
    ``"key=value"`` (``size_MiB=1 time_us=56.4 algbw_GBps=18.58 busbw_GBps=18.58`` lines)."""

    columns: tuple[str, ...]
    rows: tuple[BenchRow, ...]
    form: str

    @property
    def largest(self) -> BenchRow | None:
        return max(reversed(self.rows), key=lambda r: r.size) if self.rows else None


def _bench_row(vals: dict[str, tuple[float, str]]) -> BenchRow | None:
    """A BenchRow from {column: (value, unit)}; bandwidth units are case-sensitive (GB/s vs Gb/s)."""
    if "size" not in vals:
        return None
    size, size_unit = vals["size"]

    def conv(name: str, table: dict[str, float]) -> float | None:
        if name not in vals:
            return None
        v, unit = vals[name]
        factor = table.get(unit.replace(" ", ""))
        return v * factor if factor is not None else None

    return BenchRow(size, size_unit, conv("time", _TIME_TO_US), conv("algbw", _BW_TO_GBS), conv("busbw", _BW_TO_GBS))


def parse_bench_table(text: str) -> BenchTable:
    """Parse a collective benchmark script's table (as in oshlabs' nccl_bench.py, fixtures/real/
    spark/12_*) or its ``key_unit=value`` lines. Other lines are skipped.

    Raises ParseError when there is no such table or a row does not fit its header.
    """
    lines = content_lines(text)
    cols: list[tuple[str, str]] | None = None
    rows: list[BenchRow] = []
    form = "table"
    names: tuple[str, ...] = ()
    for pos, line in enumerate(lines):
        s = strip_log_prefix(line.text).strip()
        toks = s.split()
        heads = [_BENCH_HEAD_RE.match(t) for t in toks]
        if toks and all(heads) and any(h.group("name") == "size" for h in heads):
            cols = [(h.group("name"), h.group("unit")) for h in heads]
            names = tuple(toks)
            continue
        kvs = [_BENCH_KV_RE.match(t) for t in toks]
        if toks and all(kvs) and any(k.group("name") == "size" for k in kvs) \
                and all(_num(k.group("value")) is not None for k in kvs):
            row = _bench_row({k.group("name"): (float(k.group("value")), k.group("unit")) for k in kvs})
            if row is not None:
                rows.append(row)
                form, names = "key=value", tuple(f"{k.group('name')}_{k.group('unit')}" for k in kvs)
            continue
        if cols is not None and toks and all(_num(t) is not None for t in toks):
            if len(toks) != len(cols):
                if pos == len(lines) - 1:
                    continue  # a last row cut short
                raise fail_on_line("benchmark table", line, f"{len(toks)} values under a header of {len(cols)} columns")
            row = _bench_row({n: (float(t), u) for (n, u), t in zip(cols, toks)})
            if row is not None:
                rows.append(row)
    if not rows:
        raise ParseError("benchmark table", "no `size(MB) time(ms) algbw(GB/s) busbw(GB/s)` table or "
                                            "`size_MiB=... busbw_GBps=...` line found")
    return BenchTable(names, tuple(rows), form)
