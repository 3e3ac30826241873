"""Load-test results: ``vllm bench serve`` result JSON and text summary, NVIDIA AIPerf exports.

Every reader returns a :class:`BenchResult`: the file's own summary under vLLM's key names
(``completed``, ``output_throughput``, ``median_tpot_ms``, ``p99_ttft_ms``...), the per-request
data as :class:`grader.metrics.Request` when the file has it, and what else it says (model,
concurrency). :meth:`BenchResult.metrics` recomputes the metrics from the requests: the summary
is only compared with them, never trusted.

Shapes read (field names changed over versions):

``vllm bench serve --save-result [--save-detailed]`` (vLLM >= 0.10, ``vllm/benchmarks/serve.py``;
the 0.32 CPU build on the sim writes this):
    summary ``duration, completed, failed, total_input_tokens, total_output_tokens,
    request_throughput, request_goodput, output_throughput, total_token_throughput,
    max_output_tokens_per_s, max_concurrent_requests, {mean,median,std,max,pNN}_{ttft,tpot,itl,e2el}_ms``
    (also ``..._client_queue_time_ms``); run ``date, backend, endpoint_type, label, model_id,
    tokenizer_id, num_prompts, request_rate, burstiness, max_concurrency``; always
    ``latencies`` and ``queue_times`` (0.2x+); with ``--save-detailed`` also ``input_lens,
    output_lens, ttfts, itls, start_times, generated_texts, errors`` (one entry per request,
    failed ones included with ``ttft`` 0 and a non-empty error).
``benchmarks/benchmark_serving.py --save-result`` (vLLM 0.4-0.9): the per-request arrays
    ``input_lens, output_lens, ttfts, itls, generated_texts, errors`` are always written, but no
    ``latencies`` or ``start_times``: E2EL is then TTFT + Σ ITL (how the client builds it) and
    the benchmark's ``duration`` must come from the summary. 0.5-0.8 spell the goodput key
    ``request_goodput:`` (with the colon); 0.4 has ``input_throughput`` and only mean, median
    and p99 per latency, no ``failed``.
``--append-result``: several results, one JSON object per line; each is read.
Cut-off files: the complete members are read (common.load_json_lenient); per-request arrays are
    cut to the shortest and the result says ``truncated``.
The printed summary (``============ Serving Benchmark Result ============`` ... ``=====``):
    every ``Label: value`` line, mapped to the JSON key names; no per-request data.
The summary vLLM's first ``benchmarks/benchmark_serving.py`` printed (0.1-0.2, 2023), after its ``Namespace(backend=...,
    num_prompts=1000, request_rate=200.0, ...)`` line: ``Total time: 166.88 s``, ``Throughput: 5.99 requests/s``,
    ``Average latency: 67.59 s``, ``Average latency per token: 0.21 s``, ``Average latency per output token: 1.10 s``
    (each request's whole latency over its tokens, queueing and prefill included: not TPOT), read as ``duration``,
    ``request_throughput``, ``mean_e2el_ms``, ``mean_latency_per_token_ms`` and ``mean_latency_per_output_token_ms``.
AIPerf ``profile_export_aiperf.json`` (ai-dynamo/aiperf docs/tutorials/working-with-profile-exports.md):
    one object per metric ``{"unit", "avg", "p50", "p90", "p99", "min", "max", "std"}``, at top
    level (>= 0.2) or under ``"records"`` (0.1.x); ``benchmark_duration`` in s, ``request_count``,
    ``total_isl``, ``total_osl``. Note the names: AIPerf's ``inter_token_latency`` is vLLM's TPOT,
    its ``inter_chunk_latency`` is vLLM's ITL (grader.metrics.CROSSWALK).
AIPerf ``profile_export.jsonl``: one record per request, ``metadata.request_start_ns/request_end_ns,
    benchmark_phase`` and ``metrics.{time_to_first_token, request_latency, inter_chunk_latency,
    input_sequence_length, output_sequence_length}`` as ``{"value", "unit"}``; ``error`` null or
    ``{code, type, message}``. Only ``profiling`` records count (warm-up excluded).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from grader.metrics import Request, RunMetrics, compute
from grader.parsers.common import ParseError, as_float, as_int, clean_lines, json_dig, load_json_lenient
from grader.parsers.perf_table import TITLE_RE, parse_perf_table  # (TITLE_RE: explain's aiperf kind)

COMMAND = "vllm bench serve"
AIPERF = "aiperf"

BANNER_RE = re.compile(r"^=+ Serving Benchmark Result =+\s*$")
_END_RE = re.compile(r"^={10,}\s*$")
_SUB_RE = re.compile(r"^-{3,}.*-{3,}\s*$")
# the number: digits and commas, then an optional fraction, possessive (``[\d,]*\.?\d*`` read a long run of
# digits quadratically: both parts take digits)
_ROW_RE = re.compile(r"^(?P<label>[A-Za-z][^:]*?):\s+"
                     r"(?P<value>[-+]?(?:\d[\d,]*+(?:\.\d*+)?+(?:[eE][-+]?\d++)?+|nan|inf))"
                     r"(?:\s(?P<unit>s|ms|requests/s|tokens/s))?"  # vLLM 0.3-0.4 printed the unit after the value
                     r"(?:\s++[^\w\s].*+)?\s*+$", re.I)  # a person's mark after the value (`251.82 🔥`, `<-- this`)
_STAT_RE = re.compile(r"^(?P<stat>Mean|Median|Std|Max|P(?P<p>\d+(?:\.\d+)?)) (?P<name>.+?)(?P<ms> \(ms\))?$")
_UNIT_AFTER = {"Benchmark duration": "Benchmark duration (s)", "Request throughput": "Request throughput (req/s)",
               "Input token throughput": "Input token throughput (tok/s)",
               "Output token throughput": "Output token throughput (tok/s)"}
"""vLLM 0.3-0.4's labels, whose unit followed the value (``Benchmark duration: 29.5 s``), as the later ones name them."""

TEXT_KEYS = {
    "Successful requests": "completed", "Failed requests": "failed",
    "Maximum request concurrency": "max_concurrency", "Request rate configured (RPS)": "request_rate",
    "Traffic request rate": "request_rate",
    "Benchmark duration (s)": "duration", "Total input tokens": "total_input_tokens",
    "Total generated tokens": "total_output_tokens", "Request throughput (req/s)": "request_throughput",
    "Request goodput (req/s)": "request_goodput", "Output token throughput (tok/s)": "output_throughput",
    "Peak output token throughput (tok/s)": "max_output_tokens_per_s",
    "Peak concurrent requests": "max_concurrent_requests", "Total token throughput (tok/s)": "total_token_throughput",
    "Input token throughput (tok/s)": "input_throughput",
    "Total generated tokens (retokenized)": "total_output_tokens_retokenized", "Concurrency": "mean_concurrency",
}
"""The printed labels and their JSON keys (vLLM 0.4 ... 0.32; SGLang's bench_serving prints ``Traffic request rate``, the
tokens it re-tokenized from the answers it received, and ``Concurrency``: the mean number of requests in flight)."""
TEXT_METRICS = {"TTFT": "ttft", "TPOT": "tpot", "ITL": "itl", "E2EL": "e2el", "E2E Latency": "e2el",
                "Client Queue Time": "client_queue_time", "E2EL incl. Client Queue": "e2el_including_client_queue"}

_META_KEYS = ("date", "backend", "endpoint_type", "label", "model_id", "tokenizer_id", "num_prompts",
              "request_rate", "burstiness", "max_concurrency")
_RENAMED = {"request_goodput:": "request_goodput"}  # vLLM 0.5-0.8 wrote the key with its colon
_DETAIL = ("input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times", "errors")


@dataclass
class BenchResult:
    """One load-test result. ``summary`` uses vLLM's JSON key names; ``requests`` is None when
    the file has no per-request data; ``shape`` names the version family read (see module doc)."""

    tool: str
    shape: str
    summary: dict[str, float] = field(default_factory=dict)
    requests: list[Request] | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    truncated: bool = False
    notes: list[str] = field(default_factory=list)

    def metrics(self) -> RunMetrics | None:
        """The metrics recomputed from the per-request data (None without it)."""
        if not self.requests:
            return None
        duration = self.summary.get("duration") if self.tool == COMMAND else self.meta.get("span_s")
        return compute(self.requests, duration, percentiles_of(self.summary))

    @property
    def concurrency(self) -> int | None:
        return as_int(self.meta.get("max_concurrency"))


def percentiles_of(summary: dict[str, Any]) -> tuple[float, ...]:
    """The percentiles a summary reports (p50/p90/p99 by default), so recomputation matches."""
    ps = set()
    for key in summary:
        m = re.match(r"^p(\d+(?:\.\d+)?)_", key)
        if m:
            ps.add(float(m.group(1)))
    return tuple(sorted(ps | {50.0, 90.0, 99.0}))


# --------------------------------------------------------------------------- vLLM JSON

def is_bench_json(value: Any) -> bool:
    """A ``vllm bench serve`` result object (any version)."""
    return isinstance(value, dict) and ("completed" in value or "ttfts" in value) and any(
        k in value for k in ("duration", "request_throughput", "ttfts", "mean_ttft_ms", "output_throughput"))


def from_bench_json(data: dict[str, Any], truncated: bool = False) -> BenchResult:
    """A BenchResult from one parsed ``vllm bench serve`` result object."""
    data = {_RENAMED.get(k, k): v for k, v in data.items()}
    summary = {k: as_float(v) for k, v in data.items()
               if k not in _DETAIL and k not in _META_KEYS and as_float(v) is not None
               and not isinstance(v, (list, dict, str))}
    meta = {k: data[k] for k in _META_KEYS if k in data}
    notes: list[str] = []
    has_latencies = isinstance(data.get("latencies"), list)
    if "start_times" in data or "endpoint_type" in data:
        shape = "vllm bench serve (vLLM >= 0.10)"
    elif "ttfts" in data and not has_latencies:
        shape = "benchmark_serving.py (vLLM 0.4-0.9)"
    else:
        shape = "vllm bench serve summary (no per-request detail)"
    requests = None
    if isinstance(data.get("ttfts"), list):
        arrays = {k: data[k] for k in _DETAIL if isinstance(data.get(k), list)}
        lengths = {k: len(v) for k, v in arrays.items()}
        n = min(lengths.values())
        if len(set(lengths.values())) > 1:
            truncated = True
            notes.append("per-request arrays have different lengths (" + ", ".join(f"{k} {v}" for k, v in
                                                                                  lengths.items()) + f"): read {n}")
        requests = []
        for i in range(n):
            err = arrays.get("errors", [""] * n)[i]
            itl = arrays.get("itls", [[]] * n)[i]
            itl = tuple(x for x in (as_float(g) for g in (itl if isinstance(itl, list) else [])) if x is not None)
            out = as_int(arrays["output_lens"][i]) if "output_lens" in arrays else None
            ttft = as_float(arrays["ttfts"][i])
            lat = as_float(arrays["latencies"][i]) if "latencies" in arrays else None
            estimated = False
            if out is None and "output_lens" not in arrays:
                out, estimated = len(itl) + 1, True
            if not err and "errors" not in arrays and (ttft or 0) == 0 and (lat or 0) == 0 and not out:
                err = "no response (no errors array; ttft and latency are 0)"
            requests.append(Request(
                ttft=ttft, latency=lat, itl=itl,
                input_tokens=as_int(arrays["input_lens"][i]) if "input_lens" in arrays else None,
                output_tokens=out,
                start_time=as_float(arrays["start_times"][i]) if "start_times" in arrays else None,
                error=str(err) if err else "", output_tokens_estimated=estimated))
        if not has_latencies:
            notes.append("no `latencies` in the file: E2EL = TTFT + sum of ITL gaps")
    return BenchResult(COMMAND, shape, summary, requests, meta, truncated, notes)


def parse_bench_json(text: str) -> list[BenchResult]:
    """Every ``vllm bench serve`` result in ``text`` (one object, or one per line with
    ``--append-result``). Raises ParseError when there is none."""
    body = "\n".join(clean_lines(text))
    start = body.find("{")
    if start < 0:
        raise ParseError(COMMAND, "no JSON object found: give the file --save-result wrote")
    decoder = json.JSONDecoder()
    results: list[BenchResult] = []
    pos = start
    while pos < len(body):
        try:
            value, end = decoder.raw_decode(body, pos)
            truncated = False
        except json.JSONDecodeError:
            value, truncated = load_json_lenient(body[pos:], COMMAND, body[:pos].count("\n") + 1)
            end = len(body)
        if not is_bench_json(value):
            raise ParseError(COMMAND, "this JSON is not a `vllm bench serve` result (no completed/duration/ttfts keys)")
        results.append(from_bench_json(value, truncated))
        nxt = body.find("{", end)
        if nxt < 0:
            break
        pos = nxt
    return results


# --------------------------------------------------------------------------- printed summary

def _row_key(s: str) -> tuple[str, float] | None:
    """``(json key, value)`` of one known ``Label: value`` row of the printed summary, None for any other line."""
    m = _ROW_RE.match(s)
    if not m:
        return None
    label, value = m.group("label").strip(), float(m.group("value").replace(",", ""))
    if m.group("unit"):
        label = _UNIT_AFTER.get(label, label)
    key = TEXT_KEYS.get(label)
    st = _STAT_RE.match(label)
    if key is None and st and st.group("name") in TEXT_METRICS and (st.group("ms") or m.group("unit") == "ms"):
        stat = st.group("stat").lower() if not st.group("p") else f"p{st.group('p')}"
        key = f"{stat}_{TEXT_METRICS[st.group('name')]}_ms"
    return (key, value) if key is not None else None


BANNERLESS_MIN_ROWS = 3
"""Known ``Label: value`` rows a printed summary without its banner must show to be read as one (a single
``Maximum request concurrency: 8`` is also printed before a run starts)."""


def _first_row(lines: list[str]) -> int | None:
    """Where a printed summary without its banner starts: the first known row of the first run of rows
    (blank and ``---name---`` lines between them) holding BANNERLESS_MIN_ROWS or more."""
    start, count = None, 0
    for i, line in enumerate(lines):
        s = line.strip()
        if _row_key(s) is not None:
            start = i if start is None else start
            count += 1
            if count >= BANNERLESS_MIN_ROWS:
                return start
        elif s and not _SUB_RE.match(s):
            start, count = None, 0
    return None


def _cut_last_metric(summary: dict[str, float]) -> str | None:
    """The latency block a cut paste stops inside: the last metric read shows fewer statistics than the
    metric before it (``Mean ITL`` alone after TTFT and TPOT with mean, median and P99), else None."""
    stats: dict[str, set[str]] = {}
    for key in summary:  # insertion order: the order printed
        m = re.match(r"^(mean|median|std|p\d+(?:\.\d+)?)_(.+)_ms$", key)
        if m:
            stats.setdefault(m.group(2), set()).add(m.group(1))
    names = list(stats)
    if len(names) >= 2 and len(stats[names[-1]]) < len(stats[names[-2]]):
        return names[-1]
    return None


_ABOVE = ("max_concurrency", "request_rate")
"""The rows older ``benchmark_serving.py`` (and SGLang's bench_serving) print just above the banner: ``Traffic request
rate: inf``, ``Maximum request concurrency: 30``."""


def _rows_above(lines: list[str], banner: int) -> dict[str, float]:
    """The :data:`_ABOVE` rows on the lines right above the banner at ``banner`` (up to 3, no other line between)."""
    meta: dict[str, float] = {}
    for line in reversed(lines[max(0, banner - 3):banner]):
        row = _row_key(line.strip())
        if row is None or row[0] not in _ABOVE:
            break
        meta.setdefault(row[0], row[1])
    return meta


def parse_bench_text(text: str) -> BenchResult:
    """The ``============ Serving Benchmark Result ============`` block ``vllm bench serve`` prints.

    Reads every ``Label: value`` row up to the closing ``=====`` line (or the end, if cut off). Without
    the banner (pasted from the first row on), the first run of BANNERLESS_MIN_ROWS or more known rows
    starts the block; with it, the request rate and concurrency rows printed just above it are read too. A block that stops inside a latency block (``Mean ITL`` and nothing after) is
    ``truncated``. Raises ParseError when there is no such block or no row in it.
    """
    lines = clean_lines(text)
    start = next((i for i, line in enumerate(lines) if BANNER_RE.match(line.strip())), None)
    bannerless = start is None
    if bannerless:
        first = _first_row(lines)
        if first is None:
            raise ParseError(COMMAND, "no '============ Serving Benchmark Result ============' block found")
        start = first - 1
    summary: dict[str, float] = {}
    truncated, unknown = True, []
    for no in range(start + 1, len(lines)):
        s = lines[no].strip()
        if _END_RE.match(s):
            truncated = False
            break
        if not s or _SUB_RE.match(s):
            continue
        row = _row_key(s)
        if row is None:
            if BANNER_RE.match(s):
                break
            unknown.append(s)
            continue
        summary[row[0]] = row[1]
    if not summary:
        raise ParseError(COMMAND, "the result block has no 'Label: value' rows", lines[start].strip(), start + 1)
    meta = {"max_concurrency": summary.pop("max_concurrency")} if "max_concurrency" in summary else {}
    meta = {**_namespace_meta(lines[:start]), **_rows_above(lines, start), **meta} if not bannerless else meta
    notes = [f"row not read: {u!r}" for u in unknown[:5]]
    if bannerless:
        notes.append("the '=== Serving Benchmark Result ===' banner is not in the paste: read from its first row")
    cut = _cut_last_metric(summary) if truncated else None
    if cut:
        notes.append(f"the paste stops inside the {cut.upper()} block: the rows after it are missing")
    elif truncated and bannerless:
        truncated = False  # rows pasted without the banner or the closing line: nothing says it was cut
    elif truncated:
        notes.append("the block is cut off before its closing ===== line")
    shape = "vllm bench serve printed summary" + (" (no banner)" if bannerless else "")
    return BenchResult(COMMAND, shape, summary, None, meta, truncated, notes)


# --------------------------------------------------------------------------- vLLM 0.1-0.2's benchmark_serving.py

LEGACY = "benchmark_serving.py summary (vLLM 0.1-0.2)"
_LEGACY_ROWS = {"Total time": ("duration", 1.0), "Throughput": ("request_throughput", 1.0),
                "Average latency": ("mean_e2el_ms", 1000.0),
                "Average latency per token": ("mean_latency_per_token_ms", 1000.0),
                "Average latency per output token": ("mean_latency_per_output_token_ms", 1000.0)}
LEGACY_ROW_RE = re.compile(r"^(?P<label>Total time|Throughput|Average latency(?: per (?:output )?token)?):\s+"
                           r"(?P<value>\d{1,12}(?:\.\d{1,12})?) (?:s|requests/s)$")
_NAMESPACE_RE = re.compile(r"^Namespace\((?P<args>.{0,2000})\)$")
_NS_ARG_RE = re.compile(r"\b(?P<key>backend|num_prompts|request_rate)=(?P<value>'[^']{0,80}'|[\w.+-]{1,40})")


_LEGACY_SPLIT_RE = re.compile(r"\s{1,8}(?=(?:Total time|Throughput|Average latency(?: per (?:output )?token)?):\s)")


def _legacy_lines(lines: list[str]) -> list[str]:
    """``lines`` with a line holding several summary rows (a paste whose line breaks were lost: ``Total time: 58.91 s
    Throughput: 0.34 requests/s Average latency: 18.55 s ...``, blind batch wx010) split into one row each."""
    return [part.strip() for line in lines for part in _LEGACY_SPLIT_RE.split(line)]


def is_legacy_summary(lines: list[str]) -> bool:
    """Whether ``lines`` (stripped) hold the 2023 benchmark_serving.py summary: its throughput and latency rows."""
    labels = {m.group("label") for m in map(LEGACY_ROW_RE.match, _legacy_lines(lines)) if m}
    return {"Throughput", "Average latency"} <= labels


def parse_bench_legacy(text: str) -> BenchResult:
    """The summary vLLM's first benchmark_serving.py printed (module docstring), with the offered load of its
    ``Namespace(...)`` line (``request_rate``, ``num_prompts``, ``backend``) as ``meta`` when the paste has it.
    Raises ParseError when neither its throughput nor its latency row is there."""
    lines = _legacy_lines([line.strip() for line in clean_lines(text)])
    if not is_legacy_summary(lines):
        raise ParseError(COMMAND, "no `Throughput: N requests/s` and `Average latency: N s` rows of benchmark_serving.py")
    summary: dict[str, float] = {}
    for line in lines:
        if m := LEGACY_ROW_RE.match(line):
            key, scale = _LEGACY_ROWS[m.group("label")]
            summary[key] = float(m.group("value")) * scale
    return BenchResult(COMMAND, LEGACY, summary, None, _namespace_meta(lines))


def _namespace_meta(lines: list[str]) -> dict[str, Any]:
    """The offered load of the first ``Namespace(...)`` line among ``lines`` (benchmark_serving.py prints its
    arguments so): ``backend``, ``num_prompts`` and ``request_rate``; {} without one."""
    for line in lines:
        if m := _NAMESPACE_RE.match(line.strip()):
            return {a.group("key"): a.group("value").strip("'") if a.group("key") == "backend" else
                    as_float(a.group("value").strip("'")) for a in _NS_ARG_RE.finditer(m.group("args"))}
    return {}


# --------------------------------------------------------------------------- AIPerf

_AIPERF_STATS = {"avg": "mean", "p50": "median", "std": "std"}
_AIPERF_LAT = {"time_to_first_token": "ttft", "inter_token_latency": "tpot", "inter_chunk_latency": "itl",
               "request_latency": "e2el", "time_to_second_token": "ttst"}
_AIPERF_RATES = {"request_throughput": "request_throughput", "output_token_throughput": "output_throughput",
                 "total_token_throughput": "total_token_throughput", "benchmark_duration": "duration",
                 "request_count": "completed", "total_osl": "total_output_tokens", "total_isl": "total_input_tokens",
                 "error_request_count": "failed"}


def is_aiperf_json(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    body = value.get("records") if isinstance(value.get("records"), dict) else value
    return isinstance(body, dict) and any(isinstance(body.get(k), dict) and "unit" in body[k]
                                          for k in ("time_to_first_token", "request_latency", "request_throughput"))


def is_aiperf_record(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("metadata"), dict) and "metrics" in value


def parse_aiperf_json(text: str) -> BenchResult:
    """AIPerf's ``profile_export_aiperf.json`` (aggregate statistics only)."""
    value, truncated = load_json_lenient(text[text.find("{"):] if "{" in text else text, AIPERF)
    if not is_aiperf_json(value):
        raise ParseError(AIPERF, "not an AIPerf profile_export_aiperf.json (no time_to_first_token/request_latency)")
    body = value["records"] if isinstance(value.get("records"), dict) else value
    summary: dict[str, float] = {}
    for name, ours in _AIPERF_LAT.items():
        m = body.get(name)
        if not isinstance(m, dict):
            continue
        for k, v in m.items():
            x = as_float(v)
            if x is None or k in ("unit", "min", "max"):
                continue
            stat = _AIPERF_STATS.get(k, k if re.match(r"^p\d+(?:\.\d+)?$", k) else None)
            if stat:
                summary[f"{stat}_{ours}_ms"] = x
    for name, ours in _AIPERF_RATES.items():
        m = body.get(name)
        x = as_float(m.get("avg")) if isinstance(m, dict) else as_float(m)
        if x is not None:
            summary[ours] = x
    cfg = value.get("input_config") if isinstance(value.get("input_config"), dict) else {}
    names = json_dig(cfg, "endpoint", "model_names", default=[])
    meta = {"model_id": ", ".join(str(n) for n in names) if isinstance(names, list) and names else None,
            "max_concurrency": as_int(json_dig(cfg, "loadgen", "concurrency"))}
    shape = "aiperf profile_export_aiperf.json" + (" (0.1.x records)" if "records" in value else "")
    return BenchResult(AIPERF, shape, summary, None, {k: v for k, v in meta.items() if v is not None}, truncated,
                       ["AIPerf's inter_token_latency is vLLM's TPOT; its inter_chunk_latency is vLLM's ITL"])


def _mv(metrics: dict[str, Any], name: str, scale: float = 1.0) -> Any:
    m = metrics.get(name)
    v = m.get("value") if isinstance(m, dict) else m
    if isinstance(v, list):
        return tuple(x * scale for x in (as_float(y) for y in v) if x is not None)
    x = as_float(v)
    return None if x is None else x * scale


def _unit_scale(metrics: dict[str, Any], name: str) -> float:
    unit = (metrics.get(name) or {}).get("unit", "ms") if isinstance(metrics.get(name), dict) else "ms"
    return {"ms": 1e-3, "s": 1.0, "sec": 1.0, "us": 1e-6, "ns": 1e-9}.get(str(unit), 1e-3)


def parse_aiperf_jsonl(text: str) -> BenchResult:
    """AIPerf's per-request ``profile_export.jsonl``: one record per line; warm-up records skipped."""
    requests: list[Request] = []
    starts, ends, bad, skipped = [], [], 0, 0
    for no, line in enumerate(clean_lines(text), start=1):
        s = line.strip()
        if not s.startswith("{"):
            continue
        try:
            rec = json.loads(s)
        except ValueError:
            bad += 1  # a cut-off last line
            continue
        if not is_aiperf_record(rec):
            continue
        md, m = rec["metadata"], rec.get("metrics")
        m = m if isinstance(m, dict) else {}
        if md.get("benchmark_phase") not in (None, "profiling"):
            skipped += 1
            continue
        err = rec.get("error")
        start, end = as_int(md.get("request_start_ns")), as_int(md.get("request_end_ns"))
        if start is not None:
            starts.append(start)
        if end is not None:
            ends.append(end)
        out = _mv(m, "output_sequence_length")
        if out is None:
            out = _mv(m, "output_token_count")
        requests.append(Request(
            ttft=_mv(m, "time_to_first_token", _unit_scale(m, "time_to_first_token")),
            latency=_mv(m, "request_latency", _unit_scale(m, "request_latency")),
            itl=_mv(m, "inter_chunk_latency", _unit_scale(m, "inter_chunk_latency")) or (),
            input_tokens=as_int(_mv(m, "input_sequence_length")), output_tokens=as_int(out),
            start_time=start / 1e9 if start is not None else None,
            error=(f"{err.get('type', 'error')}: {err.get('message', '')}" if isinstance(err, dict) else str(err))
            if err else ""))
    if not requests:
        raise ParseError(AIPERF, "no AIPerf per-request records (lines with metadata and metrics) found")
    notes = []
    if bad:
        notes.append(f"{bad} line(s) not valid JSON (a cut-off file?) skipped")
    if skipped:
        notes.append(f"{skipped} warm-up record(s) excluded")
    meta: dict[str, Any] = {}
    if starts and ends:
        meta["span_s"] = (max(ends) - min(starts)) / 1e9
    return BenchResult(AIPERF, "aiperf profile_export.jsonl", {}, requests, meta, bool(bad), notes)


# --------------------------------------------------------------------------- any

TRTLLM_SECTION_RE = re.compile(r"^=?\s?(?:PYTORCH BACKEND|TENSORRT BACKEND|REQUEST DETAILS|WORLD \+ RUNTIME INFORMATION"
                               r"|PERFORMANCE OVERVIEW|ENGINE DETAILS|DATASET DETAILS)\s*$")
"""A section heading of trtllm-bench's report (``= PERFORMANCE OVERVIEW``, between lines of ``=``)."""
_TRTLLM_KEYS = {"Number of requests": "num_requests", "Number of concurrent requests": "concurrency",
                "Average Input Length (tokens)": "mean_input_len", "Average Output Length (tokens)": "mean_output_len",
                "TP Size": "tp", "PP Size": "pp", "EP Size": "ep", "Max Runtime Batch Size": "max_batch",
                "Issue Rate (req/sec)": "issue_rate", "Request Throughput (req/sec)": "request_throughput",
                "Total Output Throughput (tokens/sec)": "output_throughput",
                "Total Token Throughput (tokens/sec)": "total_token_throughput", "Total Latency (ms)": "total_ms",
                "Average request latency (ms)": "mean_e2el_ms", "Per GPU Output Throughput (tps/gpu)": "per_gpu",
                "Average time-to-first-token [TTFT] (ms)": "mean_ttft_ms",
                "Average time-per-output-token [TPOT] (ms)": "mean_tpot_ms"}
_TRTLLM_TEXT = ("Model", "TensorRT-LLM Version", "TensorRT LLM Version", "Quantization", "KV Cache Dtype")


def parse_trtllm_bench(lines: list[str]) -> BenchResult:
    """trtllm-bench's throughput report (TensorRT-LLM's benchmark, its sections ``REQUEST DETAILS``, ``WORLD + RUNTIME
    INFORMATION`` and ``PERFORMANCE OVERVIEW``, each key ``Name:   value``): the figures by their vLLM names where they
    are the same (request_throughput, output_throughput in tokens/s, mean_ttft_ms...), the rest in ``meta`` (the
    backend from its ``= PYTORCH BACKEND`` heading). A report cut before its overview is ``truncated``."""
    summary: dict[str, float] = {}
    meta: dict[str, Any] = {}
    for line in lines:
        name, sep, value = line.partition(":")
        name, value = " ".join(name.split()), value.strip()
        cells = [c.strip() for c in value.strip("|").split("|")]  # a person's table of two runs: `name: | a | b`
        if sep and name in _TRTLLM_KEYS:
            number = as_float(cells[0].rstrip("%"))
            if number is not None:
                summary[_TRTLLM_KEYS[name]] = number
            if len(cells) == 2 and number is not None and as_float(cells[1]) is not None:
                meta.setdefault("second", {})[_TRTLLM_KEYS[name]] = as_float(cells[1])
        elif sep and name in _TRTLLM_TEXT and value:
            meta[name.replace("TensorRT LLM", "TensorRT-LLM")] = value
        elif line.endswith("BACKEND") and TRTLLM_SECTION_RE.match(line):
            meta["backend"] = line.strip("= ").split()[0].lower()
    notes = [] if "output_throughput" in summary else ["the paste stops before the PERFORMANCE OVERVIEW"]
    return BenchResult("trtllm-bench", "trtllm-bench", summary, None, meta, bool(notes), notes)


def parse_any(text: str) -> list[BenchResult]:
    """Whichever of the shapes above ``text`` is. Raises ParseError naming what it expected."""
    lines = [line.strip() for line in clean_lines(text)]
    if sum(1 for line in lines if TRTLLM_SECTION_RE.match(line)) >= 2:
        return [parse_trtllm_bench(lines)]
    if (table := parse_perf_table(lines)) is not None:  # AIPerf's or GenAI-Perf's console table
        return [BenchResult(AIPERF, f"{table[0]} console table", table[1])]
    if any(BANNER_RE.match(line) for line in lines) and not any(line.startswith('"ttfts"') for line in lines):
        return [parse_bench_text(text)]
    first = next((line for line in lines if line.startswith("{")), None)
    if first is None and is_legacy_summary(lines):
        return [parse_bench_legacy(text)]
    if first is None and _first_row(lines) is not None:
        return [parse_bench_text(text)]
    if first is None:
        raise ParseError(COMMAND, "neither a result JSON nor a 'Serving Benchmark Result' block")
    try:
        one = json.loads(first)
    except ValueError:
        one = None
    if is_aiperf_record(one):
        return [parse_aiperf_jsonl(text)]
    if '"time_to_first_token"' in text and '"ttfts"' not in text:
        return [parse_aiperf_json(text)]
    return parse_bench_json(text)


# "Maximum request concurrency: 8" is also printed before the run starts, with the rate above it: a prelude of the
# result block (KindSpec.prelude), as "Traffic request rate:" is
_TEXT_LABELS = "|".join(re.escape(k) for k in TEXT_KEYS if k != "Request rate configured (RPS)")
_METRIC_NAMES = "|".join(re.escape(k) for k in sorted(TEXT_METRICS, key=len, reverse=True))
BENCH_LINE = re.compile(
    r"^=+ Serving Benchmark Result =+$|^={50}$|^={59}$"  # (vLLM's and SGLang's end line is 50, trtllm-bench's 59; MLPerf
    # loadgen's summary rules are 48, p21; collect_env's 30, torchrun's failure summary's 60, a script's own table rule 80,
    # blind batch wx005, a launch script's banner 46, vz010)
    r"|^(?:Initial test run completed|Starting main benchmark run|Traffic request rate:|Burstiness factor:)"
    r"|^Failed requests during benchmark run detected\b|^Error \d{1,3}: Traceback \(most recent call last\):$"
    r"|^(?:batch size|inp len|out len):\s+\d+$"  # the settings SGLang's runs print above their result
    r"|^\d+%\|.*\|\s*\d+/\d+\s*\["
    + r"|^-{3,}(?:Time to First Token|Time per Output Token \(excl\. 1st token\)|Inter-token Latency"
    r"|End-to-end Latency|Client-side Queueing|Queue-inclusive End-to-end Latency)-{3,}$"
    + rf"|^(?:{_TEXT_LABELS}):\s+[-\d.]" + rf"|^(?:Mean|Median|Std|Max|P\d+(?:\.\d+)?) (?:{_METRIC_NAMES}) \(ms\):\s+[-\d.]"
    + r"|^Namespace\((?:backend=|subparser='bench', bench_type='serve')" + "|" + LEGACY_ROW_RE.pattern  # vLLM 0.1-0.2's
    # benchmark_serving.py, or `vllm bench serve`'s arguments, printed first
    + r"|^=? ?(?:PERFORMANCE OVERVIEW|REQUEST DETAILS|WORLD \+ RUNTIME INFORMATION|PYTORCH BACKEND|TENSORRT BACKEND)\s*$"
    + r"|^Request Throughput \(req/sec\):")  # trtllm-bench's report
"""The lines of a load test's output (explain's vllm-bench kind keys on them)."""
