"""Every load-test metric of the lab and its formula, in one place (as ``vllm bench serve`` has).

The metrics are recomputed from per-request data (a :class:`Request` per request sent), never
taken from a tool's summary; :func:`compute` returns what ``vllm bench serve`` prints, and agrees
with it within 0.5% on the same data (tests/test_metrics.py checks every real result file).

Per request (seconds):

- **TTFT**: time to first token = first streamed chunk carrying ``choices`` − request start
  (vLLM stamps it even when the chunk's text is empty);
- **E2EL**: end-to-end latency = last token chunk − request start (vLLM's ``latency``; when a
  file lacks ``latencies``, E2EL = TTFT + Σ ITL, which is how vLLM's client builds it);
- **TPOT**: time per output token, first token excluded (vLLM's definition) =
  ``(E2EL − TTFT) / (output_tokens − 1)``; requests with fewer than 2 output tokens have none;
- **ITL**: the gaps between successive streamed chunks (per *chunk*, not per token: a chunk may
  carry several tokens); all requests' gaps pooled into one list.

Per run (over the successful requests; ``duration`` is the benchmark's wall time in seconds):

- request throughput = completed / duration;
- output token throughput = Σ output tokens / duration;
- total token throughput = (Σ input tokens + Σ output tokens) / duration.

Statistics: mean, median, std (population, numpy's default ``ddof=0``), and percentiles with
numpy's default ``linear`` method (Hyndman & Fan type 7): the value at rank ``p/100 · (n − 1)``
of the sorted list, interpolated linearly between neighbours. That is what ``vllm bench serve``
uses (``np.percentile(values, p)``); like it, an empty list gives 0 (``np.mean(x or 0)``).

The naming crosswalk between vLLM, NVIDIA AIPerf, guidellm and llmperf is :data:`CROSSWALK`
(source: docs/research/figures.md §5.1, read from each tool's source code).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

DEFAULT_PERCENTILES = (50.0, 90.0, 99.0)
LATENCY_METRICS = ("ttft", "tpot", "itl", "e2el")
AGREEMENT = 0.005
"""Recomputed metrics must equal the tool's own summary within this relative tolerance."""


@dataclass(frozen=True)
class Request:
    """One request of a load test, times in seconds.

    ``ttft`` and ``latency`` (E2EL) are from the request's start; ``itl`` the gaps between its
    streamed chunks; ``output_tokens`` the server's ``usage.completion_tokens`` (or the tool's
    count); ``start_time`` a clock reading (only differences matter); ``error`` empty when it
    succeeded. ``output_tokens_estimated`` is True when the count was inferred from chunks.
    """

    ttft: float | None
    latency: float | None
    itl: tuple[float, ...] = ()
    input_tokens: int | None = None
    output_tokens: int | None = None
    start_time: float | None = None
    error: str = ""
    output_tokens_estimated: bool = False

    @property
    def success(self) -> bool:
        return not self.error

    @property
    def e2el(self) -> float | None:
        """E2E latency: ``latency``, or TTFT + Σ ITL when the file did not record it."""
        if self.latency is not None:
            return self.latency
        if self.ttft is not None and self.itl:
            return self.ttft + sum(self.itl)
        return self.ttft

    @property
    def tpot(self) -> float | None:
        """vLLM's TPOT: (E2EL − TTFT) / (output tokens − 1); None below 2 output tokens."""
        return tpot(self.e2el, self.ttft, self.output_tokens)


def tpot(latency: float | None, ttft: float | None, output_tokens: int | None) -> float | None:
    """Time per output token excluding the first: ``(latency − ttft) / (output_tokens − 1)``.

    None when a value is missing or there are fewer than 2 output tokens (vLLM leaves such
    requests out of TPOT's statistics).
    """
    if latency is None or ttft is None or output_tokens is None or output_tokens < 2:
        return None
    return (latency - ttft) / (output_tokens - 1)


def guidellm_tpot(latency: float, output_tokens: int) -> float:
    """guidellm's TPOT, which *includes* the first token: latency / output tokens (figures.md §5.1).
    Shown only to explain why its numbers differ; the lab grades vLLM's TPOT."""
    return latency / output_tokens


# --------------------------------------------------------------------------- statistics

def percentile(values: Sequence[float], p: float) -> float:
    """numpy's default ``np.percentile(values, p)`` (linear, type 7); 0 for an empty list."""
    if not values:
        return 0.0
    xs = sorted(values)
    rank = (len(xs) - 1) * p / 100.0
    lo = math.floor(rank)
    hi = min(lo + 1, len(xs) - 1)
    frac = rank - lo
    return xs[lo] + (xs[hi] - xs[lo]) * frac


def mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else 0.0


def std(values: Sequence[float]) -> float:
    """Population standard deviation (numpy's ``np.std``, ddof=0); 0 for an empty list."""
    if not values:
        return 0.0
    m = mean(values)
    return math.sqrt(math.fsum((x - m) ** 2 for x in values) / len(values))


def stats_ms(values: Sequence[float], percentiles: Iterable[float] = DEFAULT_PERCENTILES) -> dict[str, float]:
    """{mean, median, std, p50, p90, p99...} of values in seconds, reported in milliseconds."""
    out = {"mean": mean(values) * 1000, "median": percentile(values, 50) * 1000, "std": std(values) * 1000}
    for p in percentiles:
        out[pkey(p)] = percentile(values, p) * 1000
    out["count"] = len(values)
    return out


def pkey(p: float) -> str:
    """vLLM's spelling of a percentile key: 99 -> "p99", 99.9 -> "p99.9"."""
    return f"p{int(p)}" if int(p) == p else f"p{p}"


# --------------------------------------------------------------------------- a run

@dataclass
class RunMetrics:
    """What ``vllm bench serve`` reports, recomputed. Latency stats in ms (see :func:`stats_ms`)."""

    completed: int
    failed: int
    duration_s: float | None
    duration_derived: bool
    total_input_tokens: int
    total_output_tokens: int
    request_throughput: float | None
    output_throughput: float | None
    total_token_throughput: float | None
    ttft: dict[str, float]
    tpot: dict[str, float]
    itl: dict[str, float]
    e2el: dict[str, float]
    notes: list[str] = field(default_factory=list)

    def flat(self) -> dict[str, Any]:
        """vLLM's JSON key names: ``completed``, ``output_throughput``, ``median_ttft_ms``, ``p99_itl_ms``..."""
        out: dict[str, Any] = {
            "completed": self.completed, "failed": self.failed, "duration": self.duration_s,
            "total_input_tokens": self.total_input_tokens, "total_output_tokens": self.total_output_tokens,
            "request_throughput": self.request_throughput, "output_throughput": self.output_throughput,
            "total_token_throughput": self.total_token_throughput,
        }
        for name in LATENCY_METRICS:
            for stat, value in getattr(self, name).items():
                if stat != "count":
                    out[f"{stat}_{name}_ms"] = value
        return out


def derived_duration(requests: Sequence[Request]) -> float | None:
    """The span of the successful requests: last end − first start (vLLM's own duration also
    counts the client's start-up to the first request, so this is slightly shorter)."""
    spans = [(r.start_time, r.start_time + r.e2el) for r in requests
             if r.success and r.start_time is not None and r.e2el is not None]
    if not spans:
        return None
    return max(e for _, e in spans) - min(s for s, _ in spans)


def compute(requests: Sequence[Request], duration_s: float | None = None,
            percentiles: Iterable[float] = DEFAULT_PERCENTILES) -> RunMetrics:
    """Recompute a run's metrics from its per-request data, as ``vllm bench serve`` does.

    ``duration_s`` is the benchmark's wall time; without it the span of the requests
    (:func:`derived_duration`) is used and ``duration_derived`` says so.
    """
    percentiles = tuple(percentiles)
    ok = [r for r in requests if r.success]
    notes: list[str] = []
    ttfts = [r.ttft for r in ok if r.ttft is not None]
    e2els = [r.e2el for r in ok if r.e2el is not None]
    tpots = [t for t in (r.tpot for r in ok) if t is not None]
    itls = [g for r in ok for g in r.itl]
    out_tokens = sum(r.output_tokens or 0 for r in ok)
    in_tokens = sum(r.input_tokens or 0 for r in ok)
    if any(r.output_tokens_estimated for r in ok):
        notes.append("output token counts were estimated from streamed chunks (the file has no output_lens)")
    derived = False
    if duration_s is None or duration_s <= 0:
        duration_s, derived = derived_duration(requests), True
        if duration_s is not None:
            notes.append("benchmark duration derived from the requests' start times and latencies")

    def rate(x: float) -> float | None:
        return x / duration_s if duration_s else None

    return RunMetrics(
        completed=len(ok), failed=len(requests) - len(ok), duration_s=duration_s, duration_derived=derived,
        total_input_tokens=in_tokens, total_output_tokens=out_tokens,
        request_throughput=rate(len(ok)), output_throughput=rate(out_tokens),
        total_token_throughput=rate(in_tokens + out_tokens),
        ttft=stats_ms(ttfts, percentiles), tpot=stats_ms(tpots, percentiles),
        itl=stats_ms(itls, percentiles), e2el=stats_ms(e2els, percentiles), notes=notes)


def disagreements(recomputed: dict[str, Any], summary: dict[str, Any], rel: float = AGREEMENT,
                  abs_tol: float = 0.0) -> list[str]:
    """Keys where the tool's summary and the recomputed value differ by more than ``rel``
    (relative) and ``abs_tol`` (absolute: use 0.005 + a little for a text summary rounded to 2
    decimals). Keys missing on either side are not compared."""
    out = []
    for key, want in summary.items():
        got = recomputed.get(key)
        if not isinstance(want, (int, float)) or isinstance(want, bool) or not isinstance(got, (int, float)):
            continue
        if abs(got - want) > max(rel * abs(want), abs_tol):
            out.append(f"{key}: file says {want:g}, per-request data give {got:g}")
    return out


# --------------------------------------------------------------------------- names

@dataclass(frozen=True)
class Name:
    """One quantity under each tool's name; None where the tool has no such metric."""

    concept: str
    formula: str
    vllm: str | None
    aiperf: str | None
    guidellm: str | None
    llmperf: str | None
    note: str = ""


CROSSWALK: tuple[Name, ...] = (
    Name("time to first token", "first streamed chunk − request start",
         "ttft (TTFT)", "time_to_first_token (TTFT)", "time_to_first_token_ms", "ttft_s",
         "vLLM stamps the first chunk with `choices` even if empty; AIPerf the first non-empty content "
         "(reasoning included; TTFO excludes it); llmperf the first non-empty delta.content"),
    Name("decode time per token, first token excluded", "(E2EL − TTFT) / (output tokens − 1)",
         "tpot (TPOT)", "inter_token_latency (ITL)", "inter_token_latency_ms (ITL)", None,
         "the same quantity: vLLM's TPOT = AIPerf's ITL = guidellm's ITL"),
    Name("gaps between streamed chunks", "list of successive chunk arrival gaps",
         "itl (ITL)", "inter_chunk_latency (ICL)", None, None,
         "per chunk, not per token: vLLM's ITL is AIPerf's ICL, not AIPerf's ITL"),
    Name("time per token, first token included", "latency / output tokens",
         None, None, "time_per_output_token_ms (TPOT)", "inter_token_latency_s",
         "guidellm's TPOT and llmperf's inter_token_latency include TTFT: larger than vLLM's TPOT"),
    Name("end-to-end latency", "last token − request start",
         "e2el (E2EL)", "request_latency", "request_latency", "end_to_end_latency_s"),
    Name("per-user decode rate", "1 / TPOT",
         None, "output_token_throughput_per_user", None, "request_output_throughput_token_per_s",
         "llmperf's is tokens / E2EL, TTFT included"),
    Name("output token throughput", "Σ output tokens / benchmark duration",
         "output_throughput", "output_token_throughput", "output_tokens_per_second", "overall_output_throughput",
         "AIPerf's duration is last response − first request"),
    Name("request throughput", "completed requests / benchmark duration",
         "request_throughput", "request_throughput", "requests_per_second", "num_completed_requests_per_min (/60)"),
    Name("total token throughput", "(Σ input + Σ output tokens) / benchmark duration",
         "total_token_throughput", "total_token_throughput", None, None),
)
"""Source: docs/research/figures.md §5.1 (vllm/benchmarks/serve.py calculate_metrics;
ai-dynamo/aiperf docs/metrics-reference.md; guidellm request_stats.py; llmperf). Graders pin the
formula, not the name."""


def crosswalk_table() -> list[dict[str, str | None]]:
    """CROSSWALK as plain rows, for the notebook and ``explain --json``."""
    return [dict(n.__dict__) for n in CROSSWALK]
