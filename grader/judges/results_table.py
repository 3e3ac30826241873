"""A results table a person made from their benchmark runs (grader.parsers.results_table), read as a careful engineer
reads one: what it compares (its columns and rows), whether every run completed (a success column), how the rates move
with concurrency (aggregate up while each request slows: batching; aggregate flat: the machine is saturated and the
requests share it), how long the first token waits, and, where two columns measure the same thing under two setups,
whether they differ by more than run-to-run noise (checks/specs/serving.toml [bench] steady_share). A first token after
more than a proxy's read timeout under concurrency warns ([load] proxy_read_timeout_ms); a single stream far behind a
reference that the same setup nearly matches under load warns as a per-step latency ([bench] reference_gap_share).
Nothing else is graded: the command, model and settings behind the numbers are not in the table."""

from __future__ import annotations

import re
from typing import Any

from ..calc.specs import row
from ..parsers.results_table import Table, number
from .common import fail, info, ok, warn
from .model import Finding, Summary

_CONC_RE = re.compile(r"^(?:max(?:imum)?\.? )?(?:c|conc\.?|concurrency|concurrent(?: requests)?|users|clients|parallel|streams|batch|bs)$",
                      re.I)
_CONC_CELL_RE = re.compile(r"^[xXcC]=?\d{1,4}$")  # x1, C2, c=4: a bare number is a concurrency only under its header
_TTFT_RE = re.compile(r"\bttf[tr]\b|time to first", re.I)
_SUCCESS_RE = re.compile(r"\bsuccess|\bcompleted\b|\bok\b", re.I)
_AGG_RE = re.compile(r"\bagg|aggregate|\btotal\b|throughput|\bout tok/s|output tok/s", re.I)
_PER_RE = re.compile(r"per[- ]?(?:req|request|stream|user|seq)|\beach\b|\btg per|/\s{0,2}(?:user|req|request|stream)\b", re.I)
_DELTA_RE = re.compile(r"^(?:Δ|delta|diff|change|speedup|gain)\b", re.I)
_MEASURE_RE = re.compile(r"prefill|decode|ttf[tr]|tpot|itl|latency|throughput|agg\w{0,7}|per[- ]?\w{1,7}|p\d{2}", re.I)
_RATE_RE = re.compile(r"tok/s|t/s\b|\btps\b|tokens?/s", re.I)
_TIME_RE = re.compile(r"\btime\b|\(m?s\)|(?<![/\w])m?s\b|\bsecs?\b|seconds|\bmin\b|duration|latency|\bttf[tr]\b|\btpot\b|\bitl\b|\be2e", re.I)
_PARAM_RE = re.compile(r"\brun\b|tok|t/s|\btps\b|throughput|\bagg|total|time|\(m?s\)|\bm?s\b|sec|duration|latency|"
                       r"ttf[tr]|tpot|itl|e2e|prefill|decode|requests?|prompts|success|complet|error|fail|%|/s\b|bw\b|"
                       r"bandwidth|speedup|gain|Δ|delta|diff|change|p\d{2}|mean|median|avg|per[- ]", re.I)
"""What a column of measures (or counts, or repeats) is named: any other column (a machine, a prompt length) keys a series."""


def _is_rate(h: str) -> bool:
    """A header that names a rate (tok/s, throughput) and no time (``Total time (s)``) or count."""
    return bool(_RATE_RE.search(h) or re.search(r"throughput", h, re.I)) and not re.search(r"\btime\b|duration", h, re.I)


def _col(table: Table, pattern: re.Pattern[str], skip: tuple[int, ...] = (), rate: bool = False) -> int | None:
    return next((i for i, h in enumerate(table.header) if i not in skip and pattern.search(h)
                 and (not rate or _is_rate(h) and not _PER_RE.search(h))), None)


def _cell(r: list[str], i: int | None) -> str:
    return r[i] if i is not None and i < len(r) else ""


def _conc_col(t: Table) -> int | None:
    i = _col(t, _CONC_RE)
    if i is None and t.rows and all(_CONC_CELL_RE.match(_cell(r, 0)) for r in t.rows) and len(t.rows) > 1:
        i = 0 if not _CONC_CELL_RE.match(t.header[0]) else None
    return i


def _seconds(cell: str, header: str) -> float | None:
    v = number(cell)
    if v is None:
        return None
    c, h = cell.replace("*", "").strip().lower(), header.lower()
    if (m := re.fullmatch(r"(\d{1,4})\s{0,2}(?:m|min)\s{0,2}(\d{1,2}(?:\.\d+)?)\s{0,2}s", c)):  # 1m 14s
        return int(m.group(1)) * 60 + float(m.group(2))
    if c.endswith("ms") or "ms" in h and not c.endswith("s"):
        return v / 1000
    if c.endswith("s") or "(s)" in h or h.endswith(" s") or re.search(r"\bsecs?\b|seconds", h):
        return v
    return v / 1000 if v >= 100 else v  # no unit: a TTFT of 100 or more is in ms


def _groups(t: Table, conc: int) -> dict[str, list[tuple[int, list[str]]]]:
    """Rows grouped by their cells other than the concurrency and the measures (``dspark``/``off``, ``1x Spark``, an
    input length), each with its concurrency."""
    out: dict[str, list[tuple[int, list[str]]]] = {}
    keys = [i for i, h in enumerate(t.header) if i != conc and not _PARAM_RE.search(h)]
    for r in t.rows:
        c = number(_cell(r, conc))
        if c is None:
            continue
        key = " ".join(f"{t.header[i]} {x}" if not re.search(r"[A-Za-z]", x) and t.header[i] else x
                       for i in keys if (x := _cell(r, i)))
        out.setdefault(key, []).append((int(c), r))
    return {k: sorted(v, key=lambda x: x[0]) for k, v in out.items() if len({c for c, _ in v}) > 1}


def _success(t: Table) -> list[Finding]:
    i = _col(t, _SUCCESS_RE)
    if i is None:
        return []
    cells = [_cell(r, i) for r in t.rows if _cell(r, i)]
    share = re.search(r"%|rate|share|ratio|pct", t.header[i], re.I)
    sent = re.search(r"(\d[\d,]{0,9})\s{0,3}(?:prompts|requests)\b", t.caption, re.I)
    bad, counts = [], []
    for c in cells:
        frac = re.search(r"(\d+)\s{0,2}/\s{0,2}(\d+)", c)
        v = number(c)
        if frac:
            bad += [c] if frac.group(1) != frac.group(2) else []
        elif v is not None and ("%" in c or share and v > 1):
            bad += [c] if v < 100 else []
        elif v is not None and v <= 1:
            bad += [c] if v < 1 else []
        elif v is not None:  # a count of requests that succeeded: a failure only against how many were sent
            counts.append(c)
            bad += [c] if sent and v < float(sent.group(1).replace(",", "")) else []
    if counts and not bad:
        return [(ok if sent else info)(f"The '{t.header[i]}' column counts {', '.join(dict.fromkeys(counts))} "
                                       + (f"requests of the {sent.group(1)} sent in each run: none failed." if sent
                                          else "requests: how many each run sent (its --num-prompts, or the "
                                          "benchmark's `Failed requests:` line) the table does not say, so whether "
                                          "any failed it does not show."))]
    if bad:
        return [warn(f"The '{t.header[i]}' column reads {', '.join(bad)} in some rows: not every request of those "
                     "runs completed, and their rates describe only those that did; the benchmark's error lines say "
                     "why the others failed.")]
    return [ok(f"Every row completed: the '{t.header[i]}' column reads {', '.join(dict.fromkeys(cells))} throughout "
               "(no failed request shown).")] if cells else []


_FAILED_RE = re.compile(r"^(?:Failed|Failures?|Errors?|Error count)\b(?![^%]{0,30}(?:%|rate|ratio|share|pct))", re.I)
_SENT_RE = re.compile(r"^(?:Requests|Total requests|Num(?:ber of)? (?:requests|prompts)|Prompts|Sent)\b", re.I)


def _failed_in(t: Table, r: list[str]) -> float:
    """The failed requests a row's Failed/Errors count column reads (0 where none or no such column)."""
    return number(_cell(r, _col(t, _FAILED_RE))) or 0


def _failures(t: Table, conc: int | None) -> list[Finding]:
    """Rows whose Failed (Errors) count is not 0 (break-it 23 p16: 1391 of 2048 failed at concurrency 64): those rows'
    rates and latencies are the survivors'; a share past serving.toml's failed_share_warn is a fail, as for the
    benchmark's own count."""
    from .bench import failed_level
    i, n = _col(t, _FAILED_RE), _col(t, _SENT_RE)
    bad = [(r, _failed_in(t, r), number(_cell(r, n))) for r in t.rows] if i is not None else []
    bad = [(r, f, sent) for r, f, sent in bad if f]
    if not bad:
        return []
    said = "; ".join((f"{t.header[conc]} {_cell(r, conc)}: " if conc is not None else f"{r[0]}: ") + f"{f:g}"
                     + (f" of {sent:g}" if sent else "") for r, f, sent in bad[:4])
    worst = "fail" if any(sent and failed_level(f, sent) == "fail" for _, f, sent in bad) else "warn"
    return [(fail if worst == "fail" else warn)(
        f"The '{t.header[i]}' column counts failed requests ({said}): those runs did not complete, and their rates and "
        "latencies describe only the requests that did (a rate that still grows there is the survivors'). The "
        "benchmark's error lines say why (timeouts at a high load: the server is past its capacity there).")]


def _scaling(t: Table, conc: int) -> list[Finding]:
    out: list[Finding] = []
    agg, per = _col(t, _AGG_RE, (conc,), rate=True), _col(t, _PER_RE, (conc,))
    ttft = _col(t, _TTFT_RE, (conc,))
    named = agg is not None  # a rate column not named aggregate may be each stream's: only its growth is read
    if agg is None:
        agg = next((i for i, h in enumerate(t.header) if i not in (conc, per) and _is_rate(h)
                    and not _PER_RE.search(h)), None)
    if agg is not None and per is not None and agg == per:
        per = None
    proxy = row("serving.toml", "load").graded("proxy_read_timeout_ms")
    gap = row("serving.toml", "bench").graded("reference_gap_share")
    for name, rows in _groups(t, conc).items():
        (c0, r0), (c1, r1) = rows[0], rows[-1]
        at = f"{name}: " if name else ""
        a0, a1 = number(_cell(r0, agg)), number(_cell(r1, agg))
        p0, p1 = number(_cell(r0, per)), number(_cell(r1, per))
        each = f"; each request's rate falls from {p0:g} to {p1:g}" if p0 and p1 is not None and p1 < p0 else ""
        if a0 and a1 is not None and gap is not None:
            if a1 < a0 * (1 - gap) and c1 > c0 and named:
                out.append(warn(f"{at}the aggregate rate falls from {a0:g} at concurrency {c0} to {a1:g} at {c1}"
                                f"{each}: more requests make the server slower in all, not just each stream. A "
                                "server that batches keeps its total rate as the load grows; one that falls is "
                                "thrashing (preemptions when the KV cache runs out, swapping, memory pressure on "
                                "unified memory) or serving them one after another. Its log (preemptions, `Running:`/"
                                "`Waiting:` counts) at that load says which."))
            elif a1 <= a0 * (1 + gap) and c1 >= 2 * c0 and named:
                out.append(info(f"{at}the aggregate rate stays about flat from concurrency {c0} to {c1} ({a0:g} -> "
                                f"{a1:g}){each}: the machine is already saturated at {c0} request(s), so more requests "
                                "only share the same capacity (each waits longer, in the queue or the batch). A "
                                "capacity limit of this setup and workload, not a fault."))
            elif a1 > a0 * (1 + gap) and not _failed_in(t, r1):
                out.append(info(f"{at}the aggregate rate grows from {a0:g} at concurrency {c0} to {a1:g} at {c1}{each}: "
                                "the normal batching trade-off (more requests share each decode step)."))
        t0, t1 = _seconds(_cell(r0, ttft), _cell(t.header, ttft)), _seconds(_cell(r1, ttft), _cell(t.header, ttft))
        if t0 is not None and t1 is not None and t1 > t0:
            unit = re.search(r"\d\s{0,2}m?s\b", _cell(r1, ttft)) or re.search(r"\bm?s\b|\(m?s\)|\bsec",
                                                                            _cell(t.header, ttft))
            grew = (f"from {t0:.3g} s at concurrency {c0} to {t1:.3g} s at {c1}" if unit else f"from "
                    f"{_cell(r0, ttft)} at concurrency {c0} to {_cell(r1, ttft)} at {c1} (the table names no unit)")
            said = f"{at}time to first token grows {grew}: new requests wait for the others' prefill and decode steps"
            if proxy is not None and t1 * 1000 >= proxy and c1 > 1 and unit:  # (a bare number: ms or s, unsaid)
                out.append(warn(said + f"; over a minute at {c1} requests at once is past interactive use, and behind "
                                "a proxy's 60 s read timeout such requests fail: cap the concurrency for this setup."))
            else:
                out.append(info(said + "."))
    return out


def _failed_streams(t: Table) -> list[Finding]:
    """A load test's lines that show failed streams: ``errors=2``, a stream's rate of 0.0 or a TTFT of None."""
    if not t.lines:
        return []
    bad = []
    for r in t.rows:
        per, ttft, err = _cell(r, 4).split(","), _cell(r, 5).split(","), number(_cell(r, 6)) or 0
        dead = max(sum(number(x) == 0 for x in per), sum(x.strip() == "None" for x in ttft))
        if err or dead:
            bad.append(f"{r[1] + ' ' if r[1] else ''}c={r[0]}{' run ' + r[2] if r[2] else ''}: "
                       + (f"errors={err:g}" if err else f"{dead} of {len(per)} streams without output"))
    return [warn(f"{len(bad)} of {len(t.rows)} runs show failed streams ({'; '.join(bad[:4])}): those requests did not "
                 "complete, and the rates describe only the streams that did; the load test's error output (the "
                 "server's reply or its log) says why.")] if bad else []


def _one_load(t: Table, conc: int) -> list[Finding]:
    """Every row at one concurrency and of one setting (repeated runs): the rate over them, steady or not
    (steady_share). Rows of different models or settings at one concurrency are not repeats: nothing said."""
    levels = {number(_cell(r, conc)) for r in t.rows}
    rate = _col(t, _PER_RE, (conc,))
    rate = rate if rate is not None else _col(t, _RATE_RE, (conc,))
    keys = [i for i, h in enumerate(t.header) if i != conc and not _PARAM_RE.search(h)]
    if len(levels) != 1 or None in levels or rate is None or len({tuple(_cell(r, i) for i in keys) for r in t.rows}) > 1:
        return []
    vals = [v for r in t.rows if (v := number(_cell(r, rate))) is not None]
    if len(vals) < 2:
        return []
    c = int(next(iter(levels)))  # type: ignore[arg-type]
    avg = sum(vals) / len(vals)
    cv = (sum((v - avg) ** 2 for v in vals) / (len(vals) - 1)) ** 0.5 / avg if avg else 0.0
    steady = row("serving.toml", "bench").graded("steady_share")
    how = ("consistent: they differ by {:.1%} of their mean".format(cv) if steady is not None and cv <= steady else
           "they differ by {:.1%} of their mean (a first, warm-up run slower than the rest is common)".format(cv))
    who = "a single stream (concurrency 1)" if c == 1 else f"{c} requests at once"
    runs = "runs" if "run" in t.header else "rows"
    done = "completed" if t.lines and all(_cell(r, 6) and not number(_cell(r, 6)) for r in t.rows) else "ran"
    return [ok(f"All {len(vals)} {runs} {done} at {who}: {min(vals):g}-{max(vals):g} tok/s ('{t.header[rate]}'); "
               f"{how}. A baseline at one load only: it shows nothing about throughput under more requests.")]


def _content(t: Table, conc: int) -> list[Finding]:
    """At the lowest concurrency, rows of different prompts whose per-stream rate differs by checks/specs/serving.toml
    [bench] content_speed_ratio or more: decode speed that depends on the content (speculative decoding's mark)."""
    ratio = row("serving.toml", "bench").graded("content_speed_ratio")
    rate = _col(t, _PER_RE, (conc,))
    lows = [r for r in t.rows if number(_cell(r, conc)) == min(number(_cell(x, conc)) or 0 for x in t.rows)]
    ttft = _col(t, _TTFT_RE, (conc,))
    firsts = [v for r in lows if (v := _seconds(_cell(r, ttft), _cell(t.header, ttft)))]
    if ratio is not None and firsts:  # a first token far later than the quickest: a long prompt, whose decode is slower
        lows = [r for r in lows if (_seconds(_cell(r, ttft), _cell(t.header, ttft)) or 0) <= min(firsts) * ratio]
    labels = {" ".join(x for i, x in enumerate(r) if i != conc and number(x) is None and x) for r in lows}
    if ratio is None or rate is None or len(labels) < 3:
        return []
    vals = [(v, r) for r in lows if (v := number(_cell(r, rate)))]
    lo, hi = min(vals, key=lambda x: x[0]), max(vals, key=lambda x: x[0])
    if hi[0] < lo[0] * ratio:
        return []
    name = lambda r: " ".join(x for i, x in enumerate(r) if i != conc and number(x) is None and x)  # noqa: E731
    return [info(f"At the same concurrency ({_cell(lows[0], conc)}) the per-stream rate varies {hi[0] / lo[0]:.1f}x "
                 f"with the prompt ({name(lo[1])} {lo[0]:g}, {name(hi[1])} {hi[0]:g} tok/s): decode speed that "
                 "depends on the content is the mark of speculative decoding (MTP or a draft model: its acceptance "
                 "is high on predictable text such as code or counting, low on free prose), not a fault; the output "
                 "does not name the decoder.")]


_MACHINES_RE = re.compile(r"\b(one|single|two|dual|three|four|eight|[1-8])\s{0,3}(?:x\s{0,2})?(?:dgx\s)?"
                          r"(spark|node|machine|host|box|gx10|computer|server)s?\b", re.I)
_COUNT = {"one": 1, "single": 1, "two": 2, "dual": 2, "three": 3, "four": 4, "eight": 8}


def _machines(t: Table, conc: int | None) -> list[Finding]:
    """Rows that name how many machines ran them (``two Sparks over the cable`` against ``one Spark``), otherwise alike
    (no other model size named) and at one concurrency: each measure of the most machines against the fewest, a time
    (TPOT, latency) faster when lower. Not faster for one stream is what splitting a model does (a layer split runs one
    machine at a time for a request; tensor parallel pays an all-reduce per layer over the link): said so, an info;
    under many requests (the caption's or the column's concurrency) that reason does not hold and is not given."""
    noise = row("serving.toml", "bench").graded("steady_share")
    named = []
    for r in t.rows:
        m = _MACHINES_RE.search(r[0] if r else "")
        if m:
            named.append((_COUNT.get(m.group(1).lower()) or int(m.group(1)), r))
    if conc is not None:  # compare rows at one concurrency: the lowest that both the fewest and the most ran
        levels = sorted({number(_cell(r, conc)) or 0 for _, r in named})
        named = next(([x for x in named if number(_cell(x[1], conc)) == c] for c in levels if len(
            {n for n, r in named if number(_cell(r, conc)) == c}) > 1), [])
    if noise is None or len({n for n, _ in named}) < 2:
        return []
    (n0, few), (n1, many) = min(named, key=lambda x: x[0]), max(named, key=lambda x: x[0])
    size = re.compile(r"(?<![\d.])\d{1,4}(?:\.\d{1,2})?B\b")
    if set(size.findall(many[0])) != set(size.findall(few[0])):
        return []  # two models, not one model on more machines
    rates = [(t.header[i] or "rate", x, y, bool(_TIME_RE.search(t.header[i])) and not _is_rate(t.header[i])) for i in range(1, len(t.header))
             if i != conc and (x := number(_cell(many, i))) and (y := number(_cell(few, i)))
             and not _TTFT_RE.search(t.header[i])]
    if not rates:
        return []
    said = ", ".join(f"{h} {x:g} against {y:g} ({x / y - 1:+.0%})" for h, x, y, _ in rates)
    if any(x < y * (1 - noise) if slow else x > y * (1 + noise) for _, x, y, slow in rates):
        return [info(f"{n1} machines against {n0} ('{many[0]}' against '{few[0]}'): {said}.")]
    m = re.search(r"(?:concurren\w{1,4}|\bc=?)\s{0,3}(\d{1,4})", t.caption, re.I)
    load = int(number(_cell(many, conc)) or 1) if conc is not None else int(m.group(1)) if m else None
    if load and load > 1:
        return [info(f"{n1} machines are not faster than {n0} here ('{many[0]}' against '{few[0]}': {said}) at "
                     f"{load} requests at once, where more machines usually add throughput (or room for the KV "
                     "cache): the split's per-step cost over the link (tensor parallel's all-reduce, NCCL's "
                     "transport: NCCL_DEBUG=INFO says which) may take the gain; the table does not show why.")]
    return [info(f"{n1} machines are not faster than {n0} here ('{many[0]}' against '{few[0]}': {said}). For one "
                 "stream that is expected" + ("" if load else " (whether these ran one the table does not say)") +
                 ": a layer split (pipeline stages, llama.cpp RPC) runs one machine at a time "
                 "for a request and adds a hand-off over the link per step, and tensor parallel adds an all-reduce "
                 "per layer; more machines give room for a model too big for one and throughput under many requests, "
                 "not one stream's speed. Not a fault by itself.")]


_FASTER_RE = re.compile(r"tok/s|t/s\b|\btps\b|tokens?/s|throughput|GB/s|Gbps|busbw|algbw|bandwidth", re.I)
_SLOWER_RE = re.compile(r"\bms\b|latency|\bttf[tr]\b|\btpot\b|\bitl\b|ms/step|\bsec\b|\(s\)", re.I)


_NUMERIC_CELL_RE = re.compile(r"[*+\-\s]{0,4}\d[\d.,]{0,14}\s{0,2}(?:%|[a-zA-Z/]{0,6})?[*\s]{0,4}(?:±\s{0,3}[\d.,]{1,14})?")


def _pair(t: Table, d: int) -> tuple[int, int] | None:
    """The two columns a difference compares: the last two left of it whose cells are all numbers (``t/s master``,
    ``t/s branch``; never a name such as ``llama 7B F16``), of one unit."""
    nums = [i for i in range(1, d) if all(_NUMERIC_CELL_RE.fullmatch(_cell(r, i)) for r in t.rows if _cell(r, i))
            and any(_cell(r, i) for r in t.rows)]
    return (nums[-2], nums[-1]) if len(nums) >= 2 and _unit(t.header[nums[-2]]) == _unit(t.header[nums[-1]]) else None


def _drop(t: Table, d: int, deltas: list[float], cols: list[str], noise: float) -> list[Finding]:
    """A difference column whose every row moves one way, beyond noise on average. Which way is better comes from the
    compared columns' unit (a rate, a bandwidth: higher; a time: lower) and their own values, whatever the
    difference's sign convention; a speedup or gain column is better when positive. All worse is a drop (warn), all
    better a gain; a measure the table does not name, or rows that move both ways, are said without a verdict."""
    if len(deltas) < 2 or len(deltas) != len([r for r in t.rows if _cell(r, d)]) or \
            sum(abs(v) for v in deltas) / len(deltas) <= noise * 100:
        return []
    pair = _pair(t, d)
    unit = _unit(t.header[pair[0]]) if pair else ""
    named = " ".join(t.header) + " " + t.caption
    up = unit in ("rate", "bw") or not unit and bool(_FASTER_RE.search(named)) and not _SLOWER_RE.search(named)
    down = unit == "time" or not unit and bool(_SLOWER_RE.search(named)) and not _FASTER_RE.search(named)
    if pair:
        moves = [(y or 0) - (x or 0) for r in t.rows if _cell(r, d)
                 for x, y in [(number(_cell(r, pair[0])), number(_cell(r, pair[1])))]]
        cols = [t.header[pair[0]], t.header[pair[1]]]
    elif re.match(r"speedup|gain", t.header[d], re.I):
        moves, up, down = deltas, True, False  # a speedup: positive is faster, whatever it measures
    else:
        moves = deltas
    worst = max(t.rows, key=lambda r: abs(number(_cell(r, d)) or 0))
    pair_s = f"'{cols[1]}' against '{cols[0]}'" if len(cols) >= 2 else "the compared columns"
    ways = [1 if _unit(r[0]) in ("rate", "bw") else -1 if _unit(r[0]) == "time" else 0 for r in t.rows if _cell(r, d)]
    rowwise = not unit and any(ways) and len(ways) == len(moves)
    if rowwise:  # a measure per row (``| Metric | 0.10.2 | 0.11.0 | Δ |``)
        moves, up, down = [v * w for v, w in zip(moves, ways)], 0 not in ways, False  # each row: positive is better
    if not (all(v < 0 for v in moves) or all(v > 0 for v in moves)):
        return [info(f"{pair_s}: '{t.header[d]}' runs from {min(deltas):+g}% to {max(deltas):+g}% across the rows "
                     "(better in some, worse in others): no one-way change.")]
    said = (f"{pair_s}: {('worse' if moves[0] < 0 else 'better') if rowwise else 'below' if moves[0] < 0 else 'above'} in every row, by {min(abs(v) for v in deltas):g}% to "
            f"{max(abs(v) for v in deltas):g}% (the most at {worst[0]}: {_cell(worst, d)})")
    if up and moves[0] < 0 or down and moves[0] > 0:
        return [warn(said + ": a consistent drop, beyond run-to-run noise, so whatever differs between the two "
                     "(a version, a build, a setting) costs it; where the gap is largest (short prompts, one "
                     "stream) points to a fixed per-request or per-step overhead, where it grows with size to compute.")]
    if up or down:
        return [info(said + ": a consistent gain of the second over the first, beyond run-to-run noise.")]
    return [info(said + ": a consistent difference; whether higher is better the table does not say.")]


def _agree(t: Table, d: int, cols: list[str], noise: float) -> list[Finding]:
    """A difference column in the measure's own unit (``0.02`` beside ``42.766 GiB``): every row's difference within
    steady_share of the two values compared is two measures that agree."""
    pair = _pair(t, d)
    shares = []
    for r in t.rows:
        diff, vals = number(_cell(r, d)), [v for i in pair or () if (v := number(_cell(r, i)))]
        if diff is None or not vals:
            return []
        shares.append(abs(diff) / max(abs(v) for v in vals))
    if len(shares) < 2 or max(shares) > noise or not pair:
        return []
    worst = max(abs(number(_cell(r, d)) or 0) for r in t.rows)
    return [info(f"'{t.header[pair[0]]}' and '{t.header[pair[1]]}' agree within {worst:g} in every row "
                 f"({max(shares):.1%} of the values at most): the two measures match.")]


def _unit(h: str) -> str:
    """The unit a header names, '' for none: a rate, a time, a bandwidth, or the header's own parenthesised unit."""
    m = re.search(r"\(([^)]{1,12})\)", h)
    return ("rate" if _is_rate(h) else "bw" if re.search(r"[GM]B/s|Gb(?:it)?/s|Gbps|busbw|algbw|bandwidth", h, re.I) else
            "time" if _TIME_RE.search(h) else m.group(1).lower() if m else "")


def _compare(t: Table, conc: int | None) -> list[Finding]:
    """Two columns of the same measure under two setups (``All 200G | All 100G``, ``This cluster | README``)."""
    noise = row("serving.toml", "bench").graded("steady_share")
    gap = row("serving.toml", "bench").graded("reference_gap_share")
    d = _col(t, _DELTA_RE)
    if d is not None and noise is not None:
        deltas = [v for r in t.rows if (v := number(_cell(r, d))) is not None and "%" in _cell(r, d)]
        ratios = [v for r in t.rows if (v := number(_cell(r, d))) is not None and "%" not in _cell(r, d)]
        if not deltas and ratios and re.search(r"speedup|ratio|\bx\b", t.header[d], re.I) and all(
                0 < v < 20 for v in ratios):  # a ratio (1.11, 0.91x): as a share
            deltas = [round((v - 1) * 100, 1) for v in ratios]
        cols = [h for i, h in enumerate(t.header) if i not in (0, d)]
        if deltas and max(abs(v) for v in deltas) <= noise * 100:
            return [info(f"{' and '.join(cols[:2]) or 'The compared columns'} differ by at most "
                         f"{max(abs(v) for v in deltas):g}% in every row: within run-to-run noise, so what differs "
                         "between them does not change this measure here.")]
        return _drop(t, d, deltas, cols, noise) if deltas else _agree(t, d, cols, noise)
    nums = [i for i in range(1, len(t.header)) if i != conc and sum(number(_cell(r, i)) is not None for r in t.rows) >= 2
            and not _TTFT_RE.search(t.header[i])]
    if len(nums) != 2 or len(t.header) > 4 or noise is None:
        return []
    a, b = nums
    if {m.lower() for m in _MEASURE_RE.findall(t.header[a])} != {m.lower() for m in _MEASURE_RE.findall(t.header[b])}:
        return []  # two measures (prefill, decode), not one measure under two setups
    if _unit(t.header[a]) != _unit(t.header[b]) or not (_unit(t.header[a]) or any(
            _RATE_RE.search(_cell(r, i)) for r in t.rows for i in nums) and not _PARAM_RE.search(" ".join(t.header))):
        return []  # a time beside a rate, a count beside a rate: one measure under two setups only in one unit
    pairs = [(r, number(_cell(r, a)), number(_cell(r, b))) for r in t.rows]
    pairs = [(r, x, y) for r, x, y in pairs if x and y]
    if len(pairs) < 2:
        return []
    ratios = [x / y for _, x, y in pairs]
    ha, hb = t.header[a], t.header[b]
    if all(abs(q - 1) <= noise for q in ratios):
        return [info(f"'{ha}' and '{hb}' differ by at most {max(abs(q - 1) for q in ratios):.0%} in every row: within "
                     "run-to-run noise.")]
    if conc is None or gap is None or not (abs(ratios[0] - 1) >= gap and abs(ratios[0] - 1) - abs(ratios[-1] - 1) >= gap / 2):
        return []
    (r0, x0, y0), (r1, x1, y1) = pairs[0], pairs[-1]
    net = re.search(r"node|machine|spark|cluster|host|nccl|rdma|roce|\bib\b|link|\btp\b|socket|readme|\d\s{0,2}x\b",
                    " ".join(t.header) + " " + t.caption, re.I)  # machines or links named: NCCL is a candidate
    return [warn(f"At the lowest concurrency ({_cell(r0, conc)}, a single stream when 1) '{ha}' gives {x0:g} against "
                 f"'{hb}''s {y0:g} ({ratios[0] - 1:+.0%}), but at {_cell(r1, conc)} the gap narrows to {x1:g} against "
                 f"{y1:g} ({ratios[-1] - 1:+.0%}): the slower setup still has the aggregate throughput, so each decode "
                 "step takes longer (a fixed per-step latency: " + ("across machines the all-reduce transport, NCCL "
                 "over sockets or one rail instead of RDMA; " if net else "the engine's own per-step overhead, its "
                 "scheduler; ") + "CUDA graphs off; clocks held low; speculative decoding not engaged), not less "
                 "compute. Compare the step time (TPOT) at concurrency 1" + (" and NCCL's transport lines "
                 "(NCCL_DEBUG=INFO)" if net else "") + " of both setups.")]


def summarise_results_table(tables: list[Table], command: str | None) -> Summary:
    """Each table read in turn. Its caption stays in the facts, not the findings: a poster's title said back would
    read as a diagnosis (``NCCL regression?``)."""
    findings: list[Finding] = []
    for t in tables:
        conc = _conc_col(t)
        before = len(findings) + 1
        findings.append(info((f"A home-made load test's {len(t.rows)} result line(s), read as its rows: " if t.lines
                              else f"A results table of {len(t.rows)} row(s) (columns: {', '.join(t.header)}): a "
                              "summary someone made, read as written; ") + "the command and settings behind each "
                             "number are not shown." + (f" It varies the concurrency ('{t.header[conc]}')." if conc is not None
                                             else "")))
        findings += _success(t) + _failures(t, conc)
        if conc is not None:
            scaled = _scaling(t, conc)
            if len(scaled) > 4:  # one series per prompt or setting: what they share
                grow = sum("grows from" in f.message and "aggregate" in f.message for f in scaled)
                findings.append(info(f"In {grow} of the {len(_groups(t, conc))} series the aggregate rate grows with "
                                     "the concurrency while each request's rate falls: the normal batching trade-off "
                                     "(more requests share each decode step)."))
                scaled = [f for f in scaled if f.level != "info"]
            failed = _failed_streams(t)
            findings += failed + scaled + ([] if failed else _one_load(t, conc)) + _content(t, conc)
        elif (i := _col(t, _TTFT_RE)) is not None:
            vals = [(v, r) for r in t.rows if (v := _seconds(_cell(r, i), t.header[i])) is not None]
            if len(vals) > 1:
                lo, hi = min(vals, key=lambda x: x[0]), max(vals, key=lambda x: x[0])
                gap = row("serving.toml", "bench").graded("reference_gap_share")
                lengths = re.search(r"depth|context|prompt|len|size|\bisl\b|input|\bpp|\btest\b|\bc\d", t.header[0] + " "
                                    + " ".join(r[0] for r in t.rows), re.I)
                why = (": about the same in every row" if gap is not None and hi[0] <= lo[0] * (1 + gap) else
                       ": a row with a longer prompt or context to prefill, or more requests at once, waits longer "
                       "for its first token" if lengths else f": the rows differ in '{t.header[0] or 'their label'}'; "
                       "what lengthens the wait the table does not say")
                findings.append(info(f"Time to first token ('{t.header[i]}') runs from {_cell(lo[1], i)} ({lo[1][0]}) "
                                     f"to {_cell(hi[1], i)} ({hi[1][0]}){why}."))
        findings += _compare(t, conc) + _machines(t, conc)
        if len(t.rows) <= 3 and len(findings) == before:  # a row or three and nothing compared: their figures
            findings += [info("; ".join(f"{h or '-'} {c}" for h, c in zip(t.header, r) if c) + ".") for r in t.rows]
    facts: dict[str, Any] = {"tables": [{"header": t.header, "rows": t.rows, "caption": t.caption} for t in tables]}
    return facts, findings


def read_results_table(text: str) -> list[Table]:
    """grader.parsers.results_table's reading (the kind's parser, named here so explain imports it lazily)."""
    from ..parsers.results_table import parse_results_table
    return parse_results_table(text)
