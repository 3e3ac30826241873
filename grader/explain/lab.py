"""The lab's kinds for ``explain``: ``vllm-bench`` (``vllm bench serve``'s result JSON and the summary it prints) and
``aiperf`` (NVIDIA AIPerf's exports), judged by grader.judges.bench. Registered on import by the package.
"""

from __future__ import annotations

import re

from ..judges.bench import BenchRead, summarise_load_test
from ..judges.common import runs_program
from ..parsers.bench_result import (BANNER_RE, TEXT_KEYS, TEXT_METRICS, is_aiperf_json, is_aiperf_record, is_bench_json,
                                    parse_any)
from .core import KindSpec, register


_PROGRESS = re.compile(r"\|\s*(\d+)/(\d+)\s*\[")
"""tqdm's progress bar as vllm bench serve prints it: ``100%|█████| 4096/4096 [01:27<00:00, 46.6it/s]``."""
_RATE_INF = re.compile(r"^\s*Traffic request rate:\s*inf\b", re.M)
_BACKEND = re.compile(r"^\s*Backend:\s*(\S+)", re.M)
_MAX_CONC = re.compile(r"^\s*Max request concurrency:\s*(\d+)", re.M)


def _parse_bench(text: str) -> BenchRead:
    """:func:`grader.parsers.bench_result.parse_any` (raises ParseError as it does), plus the progress bar's total
    (its last ``done/total``) and the request rate the run printed before it started."""
    bar = None
    for bar in _PROGRESS.finditer(text):  # the last one: the main run's, after a warm-up's
        pass
    backend, cap = _BACKEND.search(text), _MAX_CONC.search(text)
    return BenchRead(parse_any(text), int(bar.group(2)) if bar else None, bool(_RATE_INF.search(text)),
                  backend.group(1) if backend else None, int(cap.group(1)) if cap else None)


def _is_bench(argv: list[str]) -> bool:
    return runs_program(argv, "vllm", "bench") or any(a.endswith("benchmark_serving.py") for a in argv)


# "Maximum request concurrency: 8" is also printed before the run starts: not a claim on its own
_TEXT_LABELS = "|".join(re.escape(k) for k in TEXT_KEYS if k not in ("Maximum request concurrency",
                                                                       "Request rate configured (RPS)"))
_METRIC_NAMES = "|".join(re.escape(k) for k in sorted(TEXT_METRICS, key=len, reverse=True))
_BENCH_LINE = re.compile(
    r"^=+ Serving Benchmark Result =+$|^={10,}$"
    r"|^(?:Initial test run completed|Starting main benchmark run|Traffic request rate:|Burstiness factor:)"
    r"|^\d+%\|.*\|\s*\d+/\d+\s*\["
    + r"|^-{3,}(?:Time to First Token|Time per Output Token \(excl\. 1st token\)|Inter-token Latency"
    r"|End-to-end Latency|Client-side Queueing|Queue-inclusive End-to-end Latency)-{3,}$"
    + rf"|^(?:{_TEXT_LABELS}):\s+[-\d.]" + rf"|^(?:Mean|Median|Std|P\d+(?:\.\d+)?) (?:{_METRIC_NAMES}) \(ms\):\s+[-\d.]")

register(KindSpec(
    name="vllm-bench", parse=_parse_bench, summarise=summarise_load_test, programs=("vllm",),
    matches_command=_is_bench, line=_BENCH_LINE, starts=BANNER_RE, matches_json=is_bench_json, prelude=True,
))

register(KindSpec(
    name="aiperf", parse=parse_any, summarise=summarise_load_test, programs=("aiperf",),
    matches_command=lambda argv: runs_program(argv, "aiperf"),
    matches_json=lambda v: is_aiperf_json(v) or is_aiperf_record(v),
))
