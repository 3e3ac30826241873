"""Parser for a results table a person made from their benchmark runs and pasted as Markdown: a header row that names
what was measured (tok/s, TTFT, TPOT, ITL, ms/step, throughput, latency, success), a separator row, and a row per run,
setting or workload, often with a caption line above it. Shapes from the field (issue 27)::

    #### Scaling Behavior (d32768)
    | Concurrency | Aggregate t/s | Per-req t/s | TG per-req | TTFT |
    |:-:|--:|--:|--:|--:|
    | 1 | 237 | 237 | 30.2 | 8.6s |
    | 10 | 235 | 68 | 4.7 | 48.2s |

    | Size | All 200G | All 100G | Δ |
    |---|---|---|---|
    | 8K | 25.21 | 24.78 | -1.7% |

Cells are kept as written (``**30.17**``, ``4,721 ms``, ``6392.36 ± 49.21``); :func:`number` reads one. A table is
what it compares: the judge (grader.judges.results_table) names its columns' roles by their headers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .common import ParseError

CMD = "a results table"

METRIC_RE = re.compile(r"tok/s|t/s\b|\btps\b|tokens?/s|\bttf[tr]\b|\btpot\b|\bitl\b|ms/step|throughput|latency|prefill|decode|"
                       r"\bsuccess\b|time to first token", re.I)
"""What a results table's header names that other Markdown tables (an inventory, a to-do list) do not."""
HEADER_RE = re.compile(r"^(?!\|\s{0,80}[Mm]odel\s{0,80}(?:\|[^\n]{0,400})?\|\s{0,80}[Tt]est\s{0,80}\|)\|(?!(?!\s{0,80}[Mm]etric\s{0,80}\|)[^\n]{0,400}\|\s{0,80}\**[-+~]?\d[\d.,]{0,12}(?:\**\s{0,80}[a-zA-Z/%]{0,8}\s{0,80}\|"
                       r"|[^|\n]{0,200}?(?:tok/s|t/s|\dm?s\b|\d\sm?s\b)))"
                       r"(?=[^\n]{0,400}(?:tok/s|t/s\b|\b[Tt][Pp][Ss]\b|tokens?/s|\bTTF[TR]\b|\bTPOT\b|\bITL\b|ms/step|[Tt]hroughput"
                       r"|[Ll]atency|\|\s{0,80}(?:[Pp]refill|[Dd]ecode)\b)|\s{0,80}(?:[Cc]oncurrency|[Cc]onc\.?|[Uu]sers|[Mm]etric)\s{0,80}\||[^\n]{0,400}\|\s{0,80}(?:Δ|[Dd]elta)\s{0,80}\|$)"
                       r"[^\n]{0,400}\|$")
"""A header row (no cell a number, not llama-bench's ``| model | ... | test |``: its own kind) that names a measure, opens with the concurrency, or ends with a difference."""
ROW_RE = re.compile(r"^\|[^\n]{0,600}\|$")
SEP_RE = re.compile(r"^\|(?:\s{0,4}:?-{1,80}:?\s{0,4}\|){1,30}$")
_NUM_RE = re.compile(r"[-+]?\d[\d,]{0,12}(?:\.\d+)?")
_SD_RE = re.compile(r"±\s{0,3}(\d[\d,]{0,12}(?:\.\d+)?)")


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)
    caption: str = ""
    lines: bool = False  # read from a load test's own lines (LOAD_LINE_RE), not a Markdown table


def cells(line: str) -> list[str]:
    return [c.replace("`", "").strip().strip("*").strip() for c in line.strip()[1:-1].split("|")]


def number(cell: str) -> float | None:
    """The first number a cell holds (``**2,090**`` 2090.0, ``8.6s`` 8.6, ``-1.7%`` -1.7), None for none; a time in
    seconds and one in milliseconds are told apart by the judge from the header and the unit."""
    m = _NUM_RE.search(cell.replace("**", ""))
    return float(m.group().replace(",", "")) if m else None


def spread(cell: str) -> float | None:
    """The ``± sd`` of a cell, None without one."""
    m = _SD_RE.search(cell)
    return float(m.group(1).replace(",", "")) if m else None


LOAD_LINE_RE = re.compile(r"^\s{0,8}(?:\w+=\S{1,80}\s{1,8}){0,3}(?:[Cc]=?\d{1,4}\b)[^\n]{0,200}?\bagg[= ]\s{0,8}[\d.]+"
                          r"\s{0,2}tok/s[^\n]{0,100}?\bper[-_]stream\b")
"""A home-made load test's line: the concurrency, the aggregate and each stream's rate, often the TTFT (``C2 math  agg
105.47 tok/s  per-stream 59.29  ttft 0.355s``; ``phase=prose c=1 run=1 wall=17.93s agg=11.25 tok/s
per_stream=[11.25] ttft=[0.238]``)."""
_LOAD_FIELDS = (("c", r"(?:^|\s)[Cc]=?(\d{1,4})\b"), ("label", r"(?:^|\s)[Cc]\d{1,4}\s{1,8}([A-Za-z]\w{0,40})\b|\bphase=(\S{1,40})"),
                ("run", r"\brun=(\d{1,4})\b"), ("agg", r"\bagg[= ]\s{0,8}([\d.]+)"),
                ("per", r"\bper[-_]stream[= ]\s{0,8}\[?([\d.]+(?:,\s{0,3}(?:[\d.]{1,12}|None)){0,63})"),
                ("ttft", r"\bttft[= ]\s{0,8}\[?((?:[\d.]+\s{0,2}(?:ms|s)?|None)(?:,\s{0,3}(?:[\d.]{1,12}|None)){0,63})"),
                ("errors", r"\b(?:errors?|failed|failures)[=:]\s{0,3}(\d{1,6})\b"))
"""Each field's first value, or a list's every value (``per_stream=[11.03, 0.0]``: a stream that failed reads 0.0)."""


def _load_lines(lines: list[str]) -> Table | None:
    """A home-made load test's lines (LOAD_LINE_RE) as a table: concurrency, label, run, aggregate, per stream, TTFT."""
    rows = []
    for line in lines:
        if not LOAD_LINE_RE.match(line):
            continue
        row = []
        for _, pattern in _LOAD_FIELDS:
            m = re.search(pattern, line)
            row.append(next((g for g in m.groups() if g), "") if m else "")
        rows.append(row)
    return Table(["c", "label", "run", "agg tok/s", "per-stream tok/s", "ttft s", "errors"], rows, lines=True) if rows else None


BARE_HEADER_RE = re.compile(r"^[^|\n]{1,80}(?:\|[^|\n]{1,80}){1,20}\|\s{0,80}(?:Δ|[Dd]elta)\s{0,80}$"
                            r"|^(?=[^\n]{0,400}\b(?:[Cc]oncurrency|CONCURRENCY)\b)(?=[^\n]{0,400}(?:[Tt]ok/s|t/s\b|TPS\b))"
                            r"[^|\n]{1,80}(?:\|[^|\n]{1,80}){2,20}$")
"""A header written without its outer pipes (Markdown allows it) that ends with a difference column, or that names a
concurrency and a rate (a script's own table, its groups parted by a rule of dashes: blind batch wx005)."""
_RULE_RE = re.compile(r"^\s{0,8}-{3,200}\s{0,8}$")
BARE_ROW_RE = re.compile(r"^[^|\n]{1,200}(?:\|[^|\n]{0,200}){2,30}$")


def _piped(line: str) -> str:
    """A row written without its outer pipes (``pp128 tg32 | 314.32 | 256.11 | (-18.5%)``) with them."""
    s = line.strip()
    return f"| {s} |" if not s.startswith("|") and BARE_ROW_RE.match(s) else line


def parse_results_table(text: str) -> list[Table]:
    """Every Markdown table of ``text`` whose header names a measure (METRIC_RE), with its data rows and the last
    non-empty line above it; ParseError when there is none."""
    tables: list[Table] = []
    lines = [_piped(x) for x in text.splitlines() if not _RULE_RE.match(x)]  # (a rule of dashes parts groups of rows)
    above = ""
    i = 0
    while i < len(lines):
        s = lines[i].strip()
        sep = i + 1 < len(lines) and bool(SEP_RE.match(lines[i + 1].strip()))
        if ROW_RE.match(s) and i + 1 < len(lines) and ROW_RE.match(lines[i + 1].strip()) and (
                HEADER_RE.match(s) or sep and (METRIC_RE.search(above) or any(
                    METRIC_RE.search(x) for x in lines[i + 2:i + 6]))):  # (a separator row left out: a header's)
            table = Table(cells(s), caption=above)
            i += 2 if sep else 1
            while i < len(lines) and ROW_RE.match(lines[i].strip()):
                table.rows.append(cells(lines[i].strip()))
                i += 1
            cut = lines[i].strip() if i < len(lines) else ""
            if cut.startswith("|") and cut.count("|") >= 2 and (i + 1 == len(lines) or not lines[i + 1].strip()):
                table.rows.append(cells(cut + "|"))  # the paste's last row, cut short: the cells it has
                i += 1
            if table.rows:
                tables.append(table)
            continue
        if s and not ROW_RE.match(s):
            above = s.strip("#* ").strip()
        i += 1
    loads = _load_lines(lines)
    tables += [loads] if loads else []
    if not tables:
        raise ParseError(CMD, "no Markdown table whose header names a measure (tok/s, TTFT, TPOT, ITL, throughput, "
                         "latency) found")
    return tables
