"""Explain kinds for the lab (load tests): ``vllm-bench`` (``vllm bench serve`` result JSON and the
summary it prints) and ``aiperf`` (NVIDIA AIPerf's profile_export_aiperf.json and per-request
profile_export.jsonl). Registered on import by grader.explain (the package).

The metrics are recomputed from the per-request data (grader.metrics) whenever the file has it,
and compared with the file's own summary (within 0.5%); a file without per-request data is
reported with its own numbers, said to be unverified. Pitfalls in the findings are from
docs/research/figures.md §5 and research/vllm_cpu.md (TPOT 0.00 ms on a 2-core box).
"""

from __future__ import annotations

import re
from typing import Any

from .. import metrics as M
from ..ranges import load_ranges
from ..parsers.bench_result import (BANNER_RE, TEXT_KEYS, TEXT_METRICS, BenchResult, is_aiperf_json,
                                         is_aiperf_record, is_bench_json, parse_any)
from .common import fail, info, ok, runs_program, warn
from .core import Finding, KindSpec, Summary, register


def _ms(x: float | None) -> str:
    return "?" if x is None else f"{x:.2f} ms"


def describe(result: BenchResult) -> Summary:
    """Facts and findings for one load-test result (also used by the lab's facts)."""
    m = result.metrics()
    recomputed = m.flat() if m else None
    diffs = M.disagreements(recomputed, result.summary, abs_tol=1e-3) if recomputed else []
    facts: dict[str, Any] = {"tool": result.tool, "shape": result.shape, "meta": result.meta,
                             "summary": result.summary, "recomputed": recomputed, "disagreements": diffs,
                             "truncated": result.truncated, "notes": result.notes,
                             "requests": len(result.requests) if result.requests is not None else None}
    findings: list[Finding] = []
    what = f"{result.shape}"
    if result.meta.get("model_id"):
        what += f", model {result.meta['model_id']}"
    if result.concurrency:
        what += f", max concurrency {result.concurrency}"
    findings.append(info(what + "."))
    src = recomputed if recomputed else result.summary
    completed, failed = src.get("completed"), src.get("failed")
    if m is None:
        findings.append(info("No per-request data in this file: the numbers below are the tool's own summary, "
                              "not recomputed. Run `vllm bench serve` with `--save-result --save-detailed` (or keep "
                              "AIPerf's profile_export.jsonl) so they can be checked."))
    else:
        findings.append(ok(f"Recomputed from {len(result.requests)} requests (grader.metrics: TPOT = (E2EL − TTFT)"
                            " / (output tokens − 1), numpy-linear percentiles)."))
    if failed:
        findings.append(fail(f"{failed:g} request(s) failed: the numbers describe only the {completed or 0:g} that "
                              "completed. Look at the errors (and the server log): a refused connection or a 404 "
                              "model name fails every request; timeouts mean the server is overloaded."))
    elif completed == 0:
        findings.append(fail("No request completed."))
    elif completed and failed is not None:
        findings.append(ok(f"{completed:g} of {completed:g} requests completed, 0 failed."))
    thr = src.get("output_throughput")
    if thr is not None:
        findings.append(info(f"Output {thr:.1f} tok/s, {src.get('request_throughput') or 0:.2f} req/s"
                              + (f" over {src['duration']:.2f} s" if src.get("duration") else "") + "."))
    lat = []
    for name, label in (("ttft", "TTFT"), ("tpot", "TPOT"), ("itl", "ITL"), ("e2el", "E2EL")):
        mean, med, p99 = src.get(f"mean_{name}_ms"), src.get(f"median_{name}_ms"), src.get(f"p99_{name}_ms")
        parts = [f"{k} {_ms(v)}" + (f" ({v / 1000:.2f} s)" if v is not None and v >= 1000 else "")
                 for k, v in (("median", med), ("p99", p99), ("mean", mean)) if v is not None]
        if parts:
            lat.append(f"{label} " + ", ".join(parts))
    if lat:
        findings.append(info("; ".join(lat) + "."))
    findings += _decode_findings(result, src)
    if diffs:
        findings.append(warn("The file's summary and its per-request data disagree by more than 0.5%: "
                              + "; ".join(diffs[:4]) + ". Grade the recomputed values."))
    elif m is not None and result.summary:
        findings.append(ok("The file's own summary agrees with the per-request data (within 0.5%)."))
    ttft_med, e2el_med = src.get("median_ttft_ms"), src.get("median_e2el_ms")
    if ttft_med is not None and e2el_med is not None and ttft_med > e2el_med + 1e-9:
        findings.append(fail("Median TTFT is above median E2E latency: impossible for one run; the file mixes runs "
                              "or was edited."))
    tpot_med = src.get("median_tpot_ms")
    if tpot_med == 0 and (completed or 0) > 0:
        findings.append(warn("Median TPOT is 0.00 ms: the client received whole requests in one read and "
                              "stamped every token with the same time (seen on a busy 2-core machine, "
                              "research/vllm_cpu.md). Latency figures from this run are not meaningful; "
                              "throughput still is."))
    if result.tool == "aiperf":
        findings.append(info("AIPerf's names: its inter_token_latency is vLLM's TPOT (first token excluded), its "
                              "inter_chunk_latency is vLLM's ITL; guidellm's TPOT includes the first token."))
    told = [n for n in result.notes if "banner" in n or "stops inside" in n]
    findings += [info(n[:1].upper() + n[1:] + ".") for n in told]
    if result.truncated and not any("stops inside" in n for n in told):
        findings.append(info("The file is cut off: what was complete was read."))
    return facts, findings


def _slowest_graded_tpot() -> tuple[float, str] | None:
    """The highest ceiling of ``lab_tpot_c1_ms`` in checks/ranges.toml over the graded hardware profiles (the
    sim's CPU figures left out), with its profile: the slowest decode the course accepts at concurrency 1."""
    best: tuple[float, str] | None = None
    for profile, ranges in load_ranges().items():
        r = ranges.get("lab_tpot_c1_ms") if isinstance(ranges, dict) else None
        top = r.get("max") if isinstance(r, dict) else None
        if profile != "sim" and isinstance(top, (int, float)) and (best is None or top > best[0]):
            best = (float(top), profile)
    return best


def _decode_findings(result: BenchResult, src: dict[str, Any]) -> list[Finding]:
    """What TPOT means per request: one token every TPOT ms is 1000 / TPOT tok/s for each stream, at the load
    the run had. Slower per token than the slowest setup the course grades at concurrency 1 is very slow decode
    (whatever the model: under load each step serves many requests, but that costs some TPOT, not all of it)."""
    tpot = src.get("mean_tpot_ms")
    tpot = src.get("median_tpot_ms") if tpot is None else tpot
    if not tpot or tpot <= 0 or not (src.get("completed") or 0) > 0:
        return []
    load = result.concurrency or src.get("max_concurrent_requests")
    at = f" with up to {load:g} requests at once" if load else ""
    thr = src.get("output_throughput")
    said = (f"Decode: one token every {tpot:.0f} ms per request = ~{1000 / tpot:.1f} tok/s per stream{at}"
            + (f"; {thr:.1f} tok/s for the server in all" if thr is not None else "") + ".")
    slowest = _slowest_graded_tpot()
    if slowest is None or tpot <= slowest[0]:
        return [info(said)]
    return [warn(said + f" That is very slow decode: slower per token than the slowest setup this course grades "
                 f"decodes one stream ({slowest[0]:g} ms, checks/ranges.toml [{slowest[1]}.lab_tpot_c1_ms], for its "
                 "model). Run at `--max-concurrency 1` to see the TPOT the lab grades; if it stays high, check "
                 "--enforce-eager, the model's precision, preemptions (`vllm:num_preemptions_total` on /metrics) "
                 "and, across nodes, that NCCL uses RDMA (NET/IB), not sockets.")]


def _summarise(results: list[BenchResult], command: str | None) -> Summary:
    if len(results) == 1:
        return describe(results[0])
    facts: dict[str, Any] = {"results": []}
    findings: list[Finding] = []
    for i, r in enumerate(results, start=1):
        f, fs = describe(r)
        facts["results"].append(f)
        findings += [Finding(x.level, f"[{i}] {x.message}") for x in fs]
    return facts, findings


def _is_bench(argv: list[str]) -> bool:
    return runs_program(argv, "vllm", "bench") or any(a.endswith("benchmark_serving.py") for a in argv)


# "Maximum request concurrency: 8" is also printed before the run starts: not a claim on its own
_TEXT_LABELS = "|".join(re.escape(k) for k in TEXT_KEYS if k not in ("Maximum request concurrency",
                                                                       "Request rate configured (RPS)"))
_METRIC_NAMES = "|".join(re.escape(k) for k in sorted(TEXT_METRICS, key=len, reverse=True))
_BENCH_LINE = re.compile(
    r"^=+ Serving Benchmark Result =+$|^={10,}$"
    + r"|^-{3,}(?:Time to First Token|Time per Output Token \(excl\. 1st token\)|Inter-token Latency"
    r"|End-to-end Latency|Client-side Queueing|Queue-inclusive End-to-end Latency)-{3,}$"
    + rf"|^(?:{_TEXT_LABELS}):\s+[-\d.]" + rf"|^(?:Mean|Median|Std|P\d+(?:\.\d+)?) (?:{_METRIC_NAMES}) \(ms\):\s+[-\d.]")

register(KindSpec(
    name="vllm-bench", parse=parse_any, summarise=_summarise, programs=("vllm",),
    matches_command=_is_bench, line=_BENCH_LINE, starts=BANNER_RE, matches_json=is_bench_json,
))

register(KindSpec(
    name="aiperf", parse=parse_any, summarise=_summarise, programs=("aiperf",),
    matches_command=lambda argv: runs_program(argv, "aiperf"),
    matches_json=lambda v: is_aiperf_json(v) or is_aiperf_record(v),
))
