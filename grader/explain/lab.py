"""The lab's kinds for ``explain``: ``vllm-bench`` (``vllm bench serve``'s result JSON and the summary it prints) and
``aiperf`` (NVIDIA AIPerf's exports), judged by grader.judges.bench. Registered on import by the package.
"""

from __future__ import annotations

import re

from ..judges.common import runs_program
from ..parsers.bench_result import (BANNER_RE, LEGACY_ROW_RE, TEXT_KEYS, TEXT_METRICS, is_aiperf_json, is_aiperf_record,
                                    is_bench_json, parse_any)
from .core import KindSpec, register
from .readers import judge, parse_llama_bench


def _is_bench(argv: list[str]) -> bool:  # vllm bench serve, its older script, and SGLang's copy of it
    return runs_program(argv, "vllm", "bench") or any(a.endswith("benchmark_serving.py") or a in (
        "sglang.bench_serving", "benchmarks.benchmark_serving") for a in argv)


# "Maximum request concurrency: 8" is also printed before the run starts, with the rate above it: a prelude of the
# result block (KindSpec.prelude), as "Traffic request rate:" is
_TEXT_LABELS = "|".join(re.escape(k) for k in TEXT_KEYS if k != "Request rate configured (RPS)")
_METRIC_NAMES = "|".join(re.escape(k) for k in sorted(TEXT_METRICS, key=len, reverse=True))
_BENCH_LINE = re.compile(
    r"^=+ Serving Benchmark Result =+$|^={40,}$"  # (collect_env's banners are 30: not a benchmark's)
    r"|^(?:Initial test run completed|Starting main benchmark run|Traffic request rate:|Burstiness factor:)"
    r"|^(?:batch size|inp len|out len):\s+\d+$"  # the settings SGLang's runs print above their result
    r"|^\d+%\|.*\|\s*\d+/\d+\s*\["
    + r"|^-{3,}(?:Time to First Token|Time per Output Token \(excl\. 1st token\)|Inter-token Latency"
    r"|End-to-end Latency|Client-side Queueing|Queue-inclusive End-to-end Latency)-{3,}$"
    + rf"|^(?:{_TEXT_LABELS}):\s+[-\d.]" + rf"|^(?:Mean|Median|Std|P\d+(?:\.\d+)?) (?:{_METRIC_NAMES}) \(ms\):\s+[-\d.]"
    + r"|^Namespace\(backend=" + "|" + LEGACY_ROW_RE.pattern  # vLLM 0.1-0.2's benchmark_serving.py
    + r"|^=? ?(?:PERFORMANCE OVERVIEW|REQUEST DETAILS|WORLD \+ RUNTIME INFORMATION|PYTORCH BACKEND|TENSORRT BACKEND)\s*$"
    + r"|^Request Throughput \(req/sec\):")  # trtllm-bench's report

register(KindSpec(
    name="vllm-bench", parse=judge("bench", "read_load_test"), summarise=judge("bench", "summarise_load_test"), programs=("vllm",),
    matches_command=_is_bench, line=_BENCH_LINE, starts=BANNER_RE, matches_json=is_bench_json, prelude=True,
))

register(KindSpec(
    name="aiperf", parse=parse_any, summarise=judge("bench", "summarise_load_test"), programs=("aiperf",),
    matches_command=lambda argv: runs_program(argv, "aiperf"),
    matches_json=lambda v: is_aiperf_json(v) or is_aiperf_record(v),
))


register(KindSpec(
    name="llama-bench", parse=parse_llama_bench, summarise=judge("bench", "summarise_llama_bench"),
    programs=("llama-bench", "llama-benchy", "llama-sweep-bench"),
    matches_command=lambda argv: any(a.rsplit("/", 1)[-1] in ("llama-bench", "llama-benchy", "llama-sweep-bench")
                                     for a in argv),
    line=re.compile(r"^\| model\s+\|\s+size\s+\|.*\|\s+test\s+\|\s+t/s\s+\|$|^ggml_cuda_init: (?:found \d+ CUDA devices|GGML_CUDA_)"
                    r"|^main: n_kv_max = \d+, n_batch = \d+, n_ubatch = \d+, flash_attn = -?\d+, n_gpu_layers = "
                    r"|^\| model\s+\|\s+test\s+\|\s+t/s(?: \(total\))?\s+\|"  # llama-benchy's
                    r"|^\|\s+PP\s+\|\s+TG\s+\|\s+N_KV\s+\||^\|(?:\s+\d+\s+\|){3}(?:\s+[\d.]+\s+\|){4}$|^\|(?:-{5,}\|){7}$"  # llama-sweep-bench's
                    r"|^\|[^|]+\|\s+[\d.]+ [GM]iB\s+\|.*\|\s+(?:pp|tg)\d+(?:\+tg\d+)?\s+\|\s+[\d.]+(?:\s+±\s+[\d.]+)?\s+\|$"),
    starts=re.compile(r"^\| model\s+\||^\|\s+PP\s+\|\s+TG\s+\|"),
    prelude=True,  # llama.cpp's lines about the GPUs it found, above the table
))
