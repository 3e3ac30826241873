"""The lab's kinds for ``explain``: ``vllm-bench`` (``vllm bench serve``'s result JSON and the summary it prints),
``aiperf`` (AIPerf's exports), ``llama-bench`` (grader.judges.bench) and llama.cpp's log (grader.judges.llama)."""

from __future__ import annotations

import re

from ..judges.common import runs_program
from ..parsers.bench_result import BANNER_RE, BENCH_LINE, is_aiperf_json, is_aiperf_record, is_bench_json, parse_any, TITLE_RE
from ..parsers.traceback import EXCEPTION_RE, FRAME_RE
from .core import KindSpec, register, register_cross_check
from ..parsers.llama_log import LINE_RE as LLAMA_LOG_LINE
from .readers import judge, parse_llama_bench, parse_llama_log
from ..parsers.results_table import (BARE_HEADER_RE, BARE_ROW_RE, HEADER_RE as RESULTS_HEADER, LOAD_LINE_RE,
                                     ROW_RE as RESULTS_ROW)


register(KindSpec(
    name="vllm-bench", parse=judge("bench", "read_load_test"), summarise=judge("bench", "summarise_load_test"), programs=("vllm",),
    # vllm bench serve, its older script, and SGLang's copy of it
    matches_command=lambda argv: runs_program(argv, "vllm", "bench") or any(a.endswith("benchmark_serving.py") or a in (
        "sglang.bench_serving", "benchmarks.benchmark_serving") for a in argv),
    line=BENCH_LINE, starts=BANNER_RE, matches_json=is_bench_json, prelude=True,
    inner=re.compile(f"{FRAME_RE.pattern}|{EXCEPTION_RE.pattern}"  # a failed request's traceback (`Error 0: ...`); the
                     r"|\] (?:Sampling input_len from|Inferred from consolidated)|\[datasets\.py:\d+\] |^WARNING: (?:/tokenize "
                     r"unavailable|vllm bench serve )"),  # the client's own log lines (its dataset, its tokenizer)
))
register_cross_check(judge("bench_server", "batch_cap_beside"), kinds=("vllm-bench",))  # --max-num-seqs beside a test
register_cross_check(judge("bench_server", "same_workload_compared"), kinds=("vllm-bench",))  # an A/B of one workload

register(KindSpec(
    name="aiperf", parse=parse_any, summarise=judge("bench", "summarise_load_test"), programs=("aiperf",),
    matches_command=lambda argv: runs_program(argv, "aiperf") or runs_program(argv, "genai-perf"), starts=TITLE_RE, line=TITLE_RE,
    matches_json=lambda v: is_aiperf_json(v) or is_aiperf_record(v),
))


register(KindSpec(
    name="llama-bench", parse=parse_llama_bench, summarise=judge("llama", "summarise_llama_bench"),
    programs=("llama-bench", "llama-benchy", "llama-sweep-bench"),
    matches_command=lambda argv: any(a.rsplit("/", 1)[-1] in ("llama-bench", "llama-benchy", "llama-sweep-bench")
                                     for a in argv),
    line=re.compile(r"^\| model\s+\|\s+size\s+\|.*\|\s+test\s+\|\s+t/s\s+\|$|^ggml_cuda_init: (?:found \d+ (?:CUDA|ROCm) devices|GGML_CUDA_)"
                    r"|^build_commit,build_number,"  # `-o csv`'s header
                    r"|^main: n_kv_max = \d+, n_batch = \d+, n_ubatch = \d+, flash_attn = -?\d+, n_gpu_layers = "
                    r"|^\| model\s+\|\s+test\s+\|\s+t/s(?: \(total\))?\s+\|"  # llama-benchy's
                    r"|^\|\s+PP\s+\|\s+TG\s+\|\s+N_KV\s+\||^\|(?:\s+\d+\s+\|){3}(?:\s+[\d.]+\s+\|){4}$|^\|(?:-{5,}\|){7}$"  # llama-sweep-bench's
                    r"|^\|[^|]+\|\s+[\d.]+ [GM]iB\s+\|.*\|\s+(?:pp|tg)\d+(?:\+tg\d+)?\s+\|\s+[\d.]+(?:\s+±\s+[\d.]+)?\s+\|$"),
    starts=re.compile(r"^\| model\s+\||^\|\s+PP\s+\|\s+TG\s+\|"),
    prelude=True,  # llama.cpp's lines about the GPUs it found (what its every program prints first), above the table
))
register(KindSpec(  # the load log of llama-server/llama-cli (and Ollama's offload line), with the GPUs it found above
    name="llama-log", parse=parse_llama_log, summarise=judge("llama", "summarise_llama_log"),
    programs=("llama-server", "llama-cli", "ollama", "rpc-server"), line=LLAMA_LOG_LINE, prelude=True,
    matches_command=lambda argv: bool(argv) and argv[0].rsplit("/", 1)[-1] in ("llama-server", "llama-cli", "rpc-server"),
))
register(KindSpec(  # a results table a person made from their runs (Markdown), after the tools' own tables
    name="results-table", parse=judge("results_table", "read_results_table"),
    summarise=judge("results_table", "summarise_results_table"), starts=RESULTS_HEADER,
    line=re.compile(f"{RESULTS_HEADER.pattern}|{LOAD_LINE_RE.pattern}|{BARE_HEADER_RE.pattern}"),
    inner=re.compile(f"{RESULTS_ROW.pattern}|{BARE_ROW_RE.pattern}"), prelude=True,  # its rows, the caption above
))
