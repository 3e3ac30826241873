"""Judge of the lab's load tests: ``vllm bench serve`` (its result JSON and the summary it prints) and NVIDIA AIPerf
(profile_export_aiperf.json, per-request profile_export.jsonl).

The metrics are recomputed from the per-request data (grader.metrics) whenever the file has it, and compared with
the file's own summary (within 0.5%); a file without per-request data is reported with its own numbers, said to be
unverified. Pitfalls in the findings are from docs/research/figures.md §5 and research/vllm_cpu.md (TPOT 0.00 ms on
a 2-core box); the graded TPOT figures are checks/ranges.toml's.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from typing import Any

from .. import metrics as M
from ..parsers import ParseError
from ..parsers.bench_result import BenchResult, parse_any
from ..parsers.common import as_float, as_int, command_argv, option_value
from ..parsers.common.spans import last_match, line_at
from ..ranges import load_ranges
from .bench_load import client_error_findings, client_errors, offered_findings, unfinished_findings
from .common import fail, info, ok, warn
from .context import context
from .model import Finding, Summary

_HALF_STEP = 0.005
"""Half the last printed digit of the legacy summary's figures (2 decimals): a request rate times a duration agrees
with the prompts sent within that much of each, plus one request."""


def _ms(x: float | None) -> str:
    return "?" if x is None else f"{x:.2f} ms"


def describe(result: BenchResult, sent: int | None = None, burst: bool = False, cap: int | None = None,
             model: str | None = None) -> Summary:
    """Facts and findings for one load-test result. ``sent``: how many requests the run sent when the output
    shows it (tqdm's ``N/N`` progress bar, ``--num-prompts``, the JSON's ``num_prompts``), so that a summary with
    fewer successful requests and no ``Failed requests`` line (older benchmark_serving.py) is still read as
    failures; ``burst``: every request arrived at once (``Traffic request rate: inf`` with no concurrency cap); ``cap``:
    the --max-concurrency of the command line, when the result does not give its own."""
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
    sent = sent or _requests(result.meta.get("num_prompts"))
    if failed is None and completed is not None and sent and sent > completed:
        failed = sent - completed  # no `Failed requests` line: what was sent and did not succeed failed
    if m is None:
        findings.append(info("No per-request data in this file: the numbers below are the tool's own summary, "
                              "not recomputed. Run `vllm bench serve` with `--save-result --save-detailed` (or keep "
                              "AIPerf's profile_export.jsonl) so they can be checked."))
    else:
        findings.append(ok(f"Recomputed from {len(result.requests)} requests (grader.metrics: TPOT = (E2EL − TTFT)"
                            " / (output tokens − 1), numpy-linear percentiles)."))
    total = (completed or 0) + (failed or 0)  # (what was sent, where the output shows no --num-prompts)
    if failed and failed_level(failed, total) == "warn":
        findings.append(warn(f"{failed:g} of {total:g} requests failed: a few, and the run "
                             f"stands on the {completed or 0:g} that succeeded (its numbers are theirs). Find why in the "
                             "tool's error lines and the server log: a reset or closed connection is the server or a proxy "
                             "dropping it; a timeout, a request waiting too long."))
    elif failed:
        of = f" of the {sent:g} sent" if sent and sent == total else ""
        findings.append(fail((f"Every request failed ({failed:g}{of}, 0 succeeded): nothing was measured, so its "
                              "zero latencies and rates are no measurement. " if not completed else
                              f"{failed:g} request(s){of} failed: only {completed:g} succeeded, and the numbers describe "
                              "only those. ") + "Look at the errors (and the server log): a refused connection or a "
                             "404 model name fails every request; timeouts mean the server is overloaded."))
    elif completed == 0:
        findings.append(fail("No request completed."))
    elif completed and (failed is not None or sent == completed):
        findings.append(ok(f"{completed:g} of {completed:g} requests completed, 0 failed: no failures."))
    elif completed:
        findings.append(info(f"{completed:g} requests succeeded; this output shows neither a count of failures "
                              "nor how many were sent (its progress bar or --num-prompts), so failures cannot be ruled "
                              "out."))
    elif completed is None and failed is None and sent and src.get("request_throughput") and src.get("duration"):
        rt, took = src["request_throughput"], src["duration"]
        if abs(rt * took - sent) <= _HALF_STEP * (rt + took) + 1:  # (break-it 23 p08: the figures must agree)
            findings.append(info(f"The run completed and printed its summary for the {sent:g} prompts sent "
                                 f"(`num_prompts={sent:g}`): {rt:.2f} req/s over {took:.2f} s. This format counts "
                                 "neither completed nor failed requests, so that every one succeeded is not shown."))
        else:
            findings.append(info(f"The summary's own figures ({rt:.2f} req/s over {took:.2f} s) count about "
                                 f"{rt * took:,.0f} requests, not the {sent:g} of `num_prompts={sent:g}`: this summary "
                                 "is not of those prompts (another run's, or a run stopped early and pasted beside "
                                 "another command), so how many of them were sent or succeeded is not shown."))
    thr, inp, rps = src.get("output_throughput"), src.get("input_throughput"), src.get("request_throughput")
    if rps is None and src.get("completed") and src.get("duration"):  # SGLang's JSONL prints none (tc009): said only
        rps = src["completed"] / src["duration"]
    if thr is not None:
        rate = f"{inp:,.0f}" if inp and inp >= 10 else f"{inp:.3g}" if inp else ""  # 1.61, not 2
        findings.append(info((f"Input {rate} tok/s (the prompts' prefill), output" if inp else "Output")
                             + f" {thr:.1f} tok/s" + (f", {rps:.2f} req/s" if rps is not None else "")
                             + (f" over {src['duration']:.2f} s" if src.get("duration") else "") + "."))
    peak, mean = src.get("max_output_tokens_per_s"), src.get("output_throughput")
    if peak and mean and peak < mean:
        findings.append(info(f"The peak output rate ({peak:g} tok/s) is below the run's mean ({mean:g} tok/s), which "
                             "cannot be of the same tokens: `vllm bench` takes the peak from the responses streamed "
                             "back each second, and with several tokens per streamed chunk (speculative decoding, "
                             "chunks the server groups) it counts fewer. Read the mean."))
    cap = result.concurrency or cap  # the result's own cap first, then the command line's
    findings += offered_findings(result, src, cap)
    lat = []
    for name, label in (("ttft", "TTFT"), ("tpot", "TPOT"), ("itl", "ITL"), ("e2el", "E2EL")):
        mean, med, p99 = src.get(f"mean_{name}_ms"), src.get(f"median_{name}_ms"), src.get(f"p99_{name}_ms")
        parts = [f"{k} {_ms(v)}" + (f" ({v / 1000:.2f} s)" if v is not None and v >= 1000 else "")
                 for k, v in (("median", med), ("p99", p99), ("mean", mean)) if v is not None]
        if parts:
            lat.append(f"{label} " + ", ".join(parts))
    if lat:
        findings.append(info("; ".join(lat) + "."))
    findings += _prefill(src, cap) + _itl_stall(src) + _second_token(src)
    zero = [label for name, label in (("ttft", "TTFT"), ("tpot", "TPOT")) if src.get(f"median_{name}_ms") == 0
            and (src.get(f"p99_{name}_ms") or src.get(f"mean_{name}_ms"))]
    none = [label for name, label in (("ttft", "TTFT"), ("itl", "ITL")) if src.get(f"mean_{name}_ms") == 0
            and not src.get(f"median_{name}_ms") and not src.get(f"p99_{name}_ms")]  # blind batch xg002
    untimed = len(none) == 2 and src.get("completed") and (src.get("total_output_tokens") or 0) > src["completed"]
    if untimed:
        findings.append(warn("TTFT and ITL are 0.00 ms in every statistic, though the requests generated tokens: no "
                             "token was timed (an answer that was not streamed, a server or proxy that sends it whole), "
                             "so the latencies of this run mean nothing and its throughput is all there is. Check that "
                             "the server streams (`stream: true` reaches it) and run again."))
    elif zero and src.get("completed"):
        findings.append(warn(f"Median {' and '.join(zero)} of 0.00 ms, beside nonzero means: no request gets its "
                             "first token (or its next) in no time, so at least half of them were timed without one "
                             "(an empty or non-streamed answer, or a client that measured nothing). These latency "
                             "figures are not to be trusted (an unreliable measurement): check the answers' lengths "
                             "and that the server streams."))
    findings += _untimed(src) + _decode_findings(result, src, burst, cap, model,
                                                    timed=not (untimed or ("TTFT" in zero and src.get("completed"))))
    if diffs:
        findings.append(warn("The file's summary and its per-request data disagree by more than 0.5%: "
                              + "; ".join(diffs[:4]) + ". Grade the recomputed values."))
    elif m is not None and result.summary:
        findings.append(ok("The file's own summary agrees with the per-request data (within 0.5%)."))
    ttft_med, e2el_med = src.get("median_ttft_ms"), src.get("median_e2el_ms")
    # (the two are rounded and measured a moment apart: TTFT above E2E by a hair is not impossible)
    if ttft_med is not None and e2el_med is not None and ttft_med > e2el_med * 1.001 + 1:
        findings.append(fail("Median TTFT is above median E2E latency: impossible for one run; the file mixes runs "
                              "or was edited."))
    out_tokens = src.get("total_output_tokens")
    if completed and out_tokens is not None and out_tokens <= 2 * completed:
        findings.append(info(f"{out_tokens:g} tokens generated for {completed:g} requests: one or two output tokens "
                              "each, so "
                              "TTFT is the whole request (prefill and queueing) and TPOT/ITL say nothing. That suits a "
                              "prefill or embedding test; to measure decode, set the output length (`--random-output-len`"
                              ", or the dataset's) above 1."))
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


def _prefill(src: dict[str, Any], cap: float | None) -> list[Finding]:
    """A TTFT of checks/specs/serving.toml [prefill] long_ttft_ms or more at one request at a time, for prompts of
    long_prompt_tokens or more (total input tokens over the requests), set against their length: the prefill's rate,
    so a long prompt's TTFT reads as prefill, not as a stall (blind batch zo008: 16,000-token prompts, TTFT 3.45 s on
    one A100)."""
    from ..calc.specs import row
    spec = row("serving.toml", "prefill")
    slow, long = spec.graded("long_ttft_ms"), spec.graded("long_prompt_tokens")
    ttft, prompt, done = src.get("median_ttft_ms"), src.get("total_input_tokens"), src.get("completed")
    if cap != 1 or not ttft or not prompt or not done or None in (slow, long) or ttft < slow or prompt / done < long:
        return []
    each = prompt / done
    return [info(f"TTFT is the prefill of each prompt of ~{each:,.0f} tokens, one request at a time: about "
                 f"{each / ttft * 1000:,.0f} prompt tokens/s. A first token waits for the whole prompt, so with prompts "
                 "this long a TTFT of seconds is prefill, not a stall.")]


def _second_token(src: dict[str, Any]) -> list[Finding]:
    """AIPerf's and GenAI-Perf's mean time to second token, set against the mean gap between later tokens (their inter
    token latency, vLLM's TPOT): checks/specs/serving.toml [load] slow_second_token_ratio times it or more is a second
    step that waited on other requests' prefills (evalscope#1101); below it, decode ran on at its own pace."""
    from ..calc.specs import row
    ttst, tpot, ratio = src.get("mean_ttst_ms"), src.get("mean_tpot_ms"), row("serving.toml", "load").graded(
        "slow_second_token_ratio")
    if ttst is None or not tpot or ratio is None:
        return []
    if ttst < ratio * tpot:
        return [info(f"Time to second token {ttst:.2f} ms on average, about the {tpot:.2f} ms between later tokens: "
                     "once a request has its first token, it decodes at a steady pace.")]
    return [info(f"Time to second token {ttst:.2f} ms on average, {ttst / tpot:.0f}x the {tpot:.2f} ms between later "
                 "tokens: a request's second step waited on other requests' prefills, which chunked prefill puts in the "
                 "same steps as decode, as concurrent requests with long prompts do. Not a fault; fewer requests at "
                 "once, or a smaller prefill chunk, trades it against throughput.")]


def _untimed(src: dict[str, Any]) -> list[Finding]:
    """Latencies the client could not have measured: SGLang's bench_serving re-tokenized no token of the answers it
    received (it read no text in them, so it timed none), or TTFT is the whole request (within 1%) though each
    request generated many tokens and no gap between tokens was timed (the answers came whole, not streamed:
    ``--disable-stream``; a long wait in a queue also brings TTFT near E2E, but then TPOT and ITL are timed)."""
    out = []
    gen, done = src.get("total_output_tokens"), src.get("completed") or 0
    if src.get("total_output_tokens_retokenized") == 0 and gen:
        out.append(warn(f"The client re-tokenized 0 of the {gen:,.0f} tokens the server counted: the answers it "
                        "received held no text it could read (an endpoint or output format it does not parse), so it "
                        "timed no token, and TTFT, ITL and TPOT were not measured. Only the request count, the server's "
                        "token count and the duration are real; check what the endpoint streams back (one request "
                        "with curl) and run again."))
    ttft, e2el = src.get("mean_ttft_ms"), src.get("mean_e2el_ms")
    timed = any(src.get(f"{stat}_{name}_ms") for stat in ("mean", "median") for name in ("tpot", "itl"))
    if ttft and e2el and abs(e2el - ttft) <= 0.01 * e2el and (gen or 0) > 2 * done > 0 and not timed:
        out.append(info(f"TTFT is the end-to-end latency ({ttft:,.0f} against {e2el:,.0f} ms, mean) though each "
                        "request generated many tokens: the answers came whole, not streamed (`--disable-stream`, or a "
                        "server that does not stream), so this TTFT is each request's whole time and TPOT and ITL say "
                        "nothing; read the throughput."))
    return out


def _itl_stall(src: dict[str, Any]) -> list[Finding]:
    """A longest gap between two tokens (``Max ITL``, SGLang's bench_serving) of checks/specs/serving.toml [load]
    stall_itl_ms or more: some stream's decode stopped that long (blind batch xg005, sglang#5571: 31 s)."""
    from ..calc.specs import row
    top, median = src.get("max_itl_ms"), src.get("median_itl_ms")
    stall = row("serving.toml", "load").graded("stall_itl_ms")
    if not top or top < stall:
        return []
    return [warn(f"The longest gap between two tokens of one request was {top / 1000:.1f} s (Max ITL)"
                 + (f", beside a median of {median:g} ms" if median else "") + f": at least once a stream's decode "
                 f"stopped for seconds (a stall of {stall / 1000:g} s or more, checks/specs/serving.toml [load]). Most "
                 "often it waited behind other requests' long prefills (large prompts at high concurrency: its TTFTs "
                 "say the same) or was preempted; a smaller prefill chunk (vLLM's --max-num-batched-tokens, SGLang's "
                 "--chunked-prefill-size) or fewer requests at once shortens it.")]


def _slowest_graded_tpot(model: str | None = None) -> tuple[float, str] | None:
    """The highest ceiling of ``lab_tpot_c1_ms`` in checks/ranges.toml over the graded hardware profiles (the
    sim's CPU figures left out), with its profile: the slowest decode the course accepts at concurrency 1. With
    ``model`` (the run's --model), only the profiles whose range holds for that model (its ``model`` key, matched
    without case in the name's last part), and None when none does."""
    from .context import context
    best: tuple[float, str] | None = None
    named = model.rsplit("/", 1)[-1].lower() if model else None
    host = context().host  # a Spark's ranges for a Spark, a desktop's for another machine, all where it is not said
    for profile, ranges in load_ranges().items():
        if host and (host == "spark") != ("spark" in profile):
            continue
        r = ranges.get("lab_tpot_c1_ms") if isinstance(ranges, dict) else None
        top = r.get("max") if isinstance(r, dict) else None
        if named and not (isinstance(r, dict) and str(r.get("model", "\0")).lower() in named):
            continue
        if profile != "sim" and isinstance(top, (int, float)) and (best is None or top > best[0]):
            best = (float(top), profile)
    return best


def failed_level(failed: float, total: float) -> str:
    """``"warn"`` where ``failed`` of ``total`` requests is at most checks/specs/serving.toml [load]
    failed_share_warn (one in a hundred: the run stands on the rest), else ``"fail"``. The one place a load test's
    failed requests are given their level: explain's reading of a result and the lab's LAB.sane both ask it."""
    from ..calc.specs import row
    share = row("serving.toml", "load").graded("failed_share_warn")
    return "warn" if failed > 0 and total > 0 and share and failed / total <= share else "fail"


def _arrived_at_once(result: BenchResult, src: dict[str, Any], requests: int | None) -> float | None:
    """The seconds over which a finite --request-rate offered all the requests, when that is within checks/specs/
    serving.toml [load] burst_window_share of the run (50 prompts at 10/s in a 1,620 s run: 5 s, a burst), else None."""
    from ..calc.specs import row
    rate = as_float(result.meta.get("request_rate"))
    rate = src.get("request_rate") if rate is None else rate
    share, duration = row("serving.toml", "load").graded("burst_window_share"), src.get("duration")
    if not (rate and math.isfinite(rate) and rate > 0 and requests and duration and share):
        return None
    return requests / rate if requests / rate <= share * duration else None


def _decode_findings(result: BenchResult, src: dict[str, Any], burst: bool = False,
                     cap: int | None = None, model: str | None = None, timed: bool = True) -> list[Finding]:
    """What TPOT means per request: one token every TPOT ms is 1000 / TPOT tok/s for each stream, at the load
    the run had. With one stream (or the load not shown), slower per token than the slowest setup the course grades
    at concurrency 1 is very slow decode. Under a load of several requests each step serves them all, and their
    prefills, which costs each stream TPOT: there a stream is very slow when it falls behind a person reading it
    (checks/specs/serving.toml [load]).
    Not when every request was sent at once with no cap (``burst``): then the requests queue and are batched
    as the server can, TTFT holds the wait and TPOT the batch, and neither says how fast one stream decodes.
    The load is the run's concurrency cap (``cap``) or its peak of concurrent requests, the smaller where both are
    printed (the peak vLLM prints can pass the cap: the corpus's n014). The sentence names only a load the output
    states (the cap or the peak; one request sent is one at a time): the count of requests bounds it, but a run of
    100 requests may have had one in flight at a time. Not judged where the run's latencies are not to be trusted
    (``timed`` False: a median TTFT of 0, untimed tokens; blind batch wn007): TPOT is (E2E - TTFT) over the tokens
    after the first, so a TTFT of 0 puts the prefill in it, and a slow decode read from it would be a cause the paste
    does not support. (A median TPOT of 0 alone only lowers the mean: the decode is still judged.)"""
    tpot = src.get("mean_tpot_ms")
    tpot = src.get("median_tpot_ms") if tpot is None else tpot
    if not tpot or tpot <= 0 or not (src.get("completed") or 0) > 0:
        return []
    requests = (src.get("completed") or 0) + (src.get("failed") or 0) or None  # no more at once than were sent
    load = min((x for x in (cap, src.get("max_concurrent_requests"), requests) if x), default=None)  # peak can pass cap
    stated = min((x for x in (cap, src.get("max_concurrent_requests")) if x), default=None) or (load if load == 1 else None)
    at = " with one request at a time" if stated == 1 else f" with up to {stated:g} requests at once" if stated else ""
    thr = src.get("output_throughput")
    said = (f"Decode: one token every {tpot:.0f} ms per request = ~{1000 / tpot:.1f} tok/s per stream{at}"
            + (f"; {thr:.1f} tok/s for the server in all" if thr is not None else "") + ".")
    if not timed:
        return [info(said + " Not judged: the latencies this is worked out from are not to be trusted (above).")]
    if not burst and not result.concurrency and not src.get("max_concurrent_requests") \
            and (arrived := _arrived_at_once(result, src, requests)):  # (a peak shown is a load: judged below)
        return [info(said + f" All {requests:g} requests were offered within the first {arrived:.3g} s of a "
                     f"{src['duration']:.0f} s run: in effect a burst, so they ran at once and were batched as the "
                     "server could; TPOT here is each stream's share of that batch, not how fast one stream decodes "
                     "(`--max-concurrency 1` gives that).")]
    if burst and not result.concurrency:
        return [info(said + " Every request was sent at once (request rate inf, no --max-concurrency): they queued "
                     "and were batched as the server could, so TTFT holds the wait in the queue and TPOT the batch; "
                     "run `--max-concurrency 1` for one stream's decode speed.")]
    few = _few_tokens(src, tpot, load)
    if few:
        return [few]
    model = result.meta.get("model_id") or model
    slowest = _slowest_graded_tpot(model)
    from ..calc.specs import row
    reading = row("serving.toml", "load").graded("reading_tpot_ms")
    if slowest is None and model and (not load or load == 1):  # another model: only a reader's pace judges it
        slowest = (reading, "")
    if slowest is None or tpot <= slowest[0]:
        return [info(said)]
    if load and load > 1:  # many streams share each step (and their prefills): judged by a reader's pace, not c1's
        if not cap and not src.get("max_concurrent_requests") and tpot > reading:  # the load is not shown
            return [info(said + f" Slower than a person reads (one token every {reading:g} ms, checks/specs/"
                         "serving.toml [load]) per stream, but the paste does not show the load that decides whether "
                         "that is slow: up to all the requests at once (a burst queues and batches them). The "
                         "benchmark's `Request rate` and `--max-concurrency` (or its `Peak concurrent requests` "
                         "line) would; `--max-concurrency 1` gives one stream's decode speed.")]
        if tpot <= reading:
            return [info(said + f" With {load:g} requests sharing each step, one stream decodes slower than alone; "
                         f"it still keeps ahead of a person reading it (one token every {reading:g} ms, checks/specs/"
                         "serving.toml [load]). Run at `--max-concurrency 1` for the TPOT the lab grades.")]
        return [warn(said + f" That is very slow decode under this load: each stream falls behind a person reading "
                     f"it (one token every {reading:g} ms, checks/specs/serving.toml [load]). Lower the concurrency, "
                     "or check preemptions (`vllm:num_preemptions_total` on /metrics), --enforce-eager" + _nodes_too()
                     + "; `--max-concurrency 1` gives the TPOT the lab grades.")]
    if not model and tpot <= reading:  # slower than the course's setups decode its model; another may be that slow
        return [info(said + f" Slower per token than the slowest setup this course grades decodes its model in one "
                     f"stream ({slowest[0]:g} ms, checks/ranges.toml [{slowest[1]}.lab_tpot_c1_ms]); for another "
                     "model that depends on its size: one stream's decode reads the active weights once a token, so "
                     "a larger (or less quantized) model is slower at the same memory bandwidth. The paste does not "
                     "name the model (the command's --model would); compare with a run of the same model on one "
                     "machine.")]
    bar = (f"slower per token than the slowest setup this course grades decodes {model or 'its model'} "
           f"({slowest[0]:g} ms, checks/ranges.toml [{slowest[1]}.lab_tpot_c1_ms])" if slowest[1] else
           f"one stream falls behind a person reading it (one token every {reading:g} ms, checks/specs/serving.toml "
           f"[load]), whatever the model")
    check = ("check --enforce-eager, the model's precision, preemptions (`vllm:num_preemptions_total` on /metrics)"
             + _nodes_too() + ".")
    lead = "" if load == 1 else "Run at `--max-concurrency 1` to see the TPOT the lab grades; if it stays high, "
    return [warn(said + f" That is very slow decode: {bar}. " + (lead + check if lead else check[0].upper() + check[1:]))]


def _nodes_too() -> str:
    """The check across machines a slow decode asks for, where `explain --nodes N` says the run spanned several (a
    benchmark's client output does not show how many machines served it: not said, no NCCL advice)."""
    from .context import context
    return " and, across nodes, that NCCL uses RDMA (NET/IB), not sockets" if (context().nodes or 1) > 1 else ""


def _few_tokens(src: dict[str, Any], tpot: float, load: float | None = None) -> Finding | None:
    """A run whose requests each generated fewer than checks/specs/serving.toml [load] few_output_tokens: its TPOT
    averages a few decode steps, stretched by other requests' prefills, and says little about decode. Where the mean
    TTFT is longer than the decode after it (output tokens x TPOT), the requests spent most of their time waiting for
    a prefill: the run is prefill-bound (a warning), unless one request ran at a time (``load`` 1: there the TTFT is
    the request's own prefill); else a note. None for a run of more tokens per request."""
    from ..calc.specs import row
    done, out = src.get("completed"), src.get("total_output_tokens")
    few = row("serving.toml", "load").graded("few_output_tokens")
    if not done or not out or not few or out / done >= few:
        return None
    per, ttft = out / done, src.get("mean_ttft_ms") or src.get("median_ttft_ms")
    said = (f"Each request generated only ~{per:.0f} output tokens ({out:g} in all): TPOT ({tpot:.0f} ms) averages a "
            f"few decode steps, stretched by other requests' prefills sharing them, so it says little about decode "
            f"speed (fewer than {few:g} tokens a request, checks/specs/serving.toml [load]).")
    if ttft and ttft > per * tpot and load != 1:
        return warn(said + f" The run is prefill-bound: the mean TTFT ({ttft / 1000:.1f} s) is longer than all the "
                    "decode after it, so requests spent most of their time queued behind other requests' prefills. "
                    "Fewer requests at once, shorter prompts, or more prefill capacity (fewer tensor-parallel ranks "
                    "per replica, a faster interconnect) shorten it.")
    return info(said)


@dataclass
class BenchRead:
    """What a pasted load test shows: its results, the requests its progress bar says were sent, and whether
    they were all sent at once (``Traffic request rate: inf``)."""

    results: list[BenchResult]
    sent: int | None
    burst: bool
    backend: str | None = None
    """The summary's ``Backend:`` line (``sglang``: SGLang's bench_serving, which prints vLLM's layout), else None."""
    max_concurrency: int | None = None
    """``Max request concurrency: N`` as SGLang's summary prints it (vLLM's ``Maximum ...`` is the parser's)."""
    client_errors: tuple[str, ...] = ()
    """The exception lines of ``Failed requests during benchmark run detected`` (``Error 0: Traceback ...``), each once."""
    unfinished: str | None = None
    """Where the last run that started (``Starting main benchmark run...``) and printed no result after it stopped:
    its progress bar's last ``done/total``, or ``""`` without a bar; None when every run that started has a result."""


def _requests(value: Any) -> int | None:
    """A number of requests above 0 from a JSON value or a command's word (grader.parsers.common.as_int), else None."""
    n = as_int(value)
    return n if n is not None and n > 0 else None


def _num_prompts(command: str | None) -> int | None:
    """``--num-prompts N`` (or ``--num-prompts=N``) of a vllm bench serve command line, else None."""
    return _requests(option_value(command_argv(command), "--num-prompts"))


def _burst_command(command: str | None) -> bool:
    """A ``vllm bench serve`` (or benchmark_serving.py) command line with neither --request-rate (its default is
    inf: every request sent at time 0, vLLM's benchmark docs) nor --max-concurrency, or with --request-rate inf."""
    argv = command_argv(command)
    if not (("bench" in argv and "serve" in argv) or any(a.endswith("benchmark_serving.py") for a in argv)):
        return False
    rate = option_value(argv, "--request-rate")
    return option_value(argv, "--max-concurrency") is None and (rate is None or rate.lower() == "inf")


def summarise_load_test(bench: BenchRead | list[BenchResult], command: str | None) -> Summary:
    if not isinstance(bench, BenchRead):  # the JSON kinds parse with parse_any itself
        bench = BenchRead(bench, None, False)
    if not bench.burst and _burst_command(command):
        bench = dataclasses.replace(bench, burst=True)
    sent = bench.sent or _num_prompts(command)
    results = bench.results
    said = []
    if bench.backend and bench.backend.lower() == "sglang":
        said.append(info("`Backend: sglang`: this is SGLang's bench_serving, which prints vLLM's summary layout (plus "
                         "its E2E and retokenized lines): read the same way."))
    if bench.max_concurrency and not any(r.concurrency for r in results):
        said.append(info(f"Max request concurrency {bench.max_concurrency}: at most {bench.max_concurrency} requests "
                         "in flight, so TPOT is up to that many streams' decode, not one's."))
        bench = dataclasses.replace(bench, burst=False)  # a cap: not a burst
    cap = _requests(option_value(command_argv(command), "--max-concurrency")) or bench.max_concurrency
    model = option_value(command_argv(command), "--model")
    asked = {k: v for k, v in (("request_rate", option_value(command_argv(command), "--request-rate")),
                               ("num_prompts", _num_prompts(command))) if v is not None}  # the command's, where unsaid
    results = [dataclasses.replace(r, meta={**asked, **r.meta}) if asked else r for r in results]
    if len(results) == 1 and results[0].tool == "trtllm-bench":
        return _trtllm_bench(results[0])
    said_after = client_error_findings(bench.client_errors) + unfinished_findings(bench.unfinished, bool(bench.results))
    if not results:
        return {"unfinished": bench.unfinished}, said + said_after
    if len(results) == 1:
        facts, findings = describe(results[0], None if bench.unfinished is not None else sent, bench.burst, cap, model)
        return facts, said + findings + said_after
    facts: dict[str, Any] = {"results": []}
    findings: list[Finding] = []
    for i, r in enumerate(results, start=1):
        f, fs = describe(r, None, bench.burst, cap, model)
        facts["results"].append(f)
        findings += [Finding(x.level, f"[{i}] {x.message}") for x in fs]
    return facts, findings + said_after


def _trtllm_bench(r: BenchResult) -> Summary:
    """trtllm-bench's report (grader.parsers.bench_result.parse_trtllm_bench): what ran, its throughput, whether the
    output rate is its request rate times the output length (within 2%), and what a run issued all at once measures."""
    x, m = r.summary, r.meta
    findings: list[Finding] = []
    layout = " x ".join(f"{k.upper()} {x[k]:g}" for k in ("tp", "pp", "ep") if x.get(k))
    what = [m.get("Model"), f"TensorRT-LLM {m['TensorRT-LLM Version']}" if m.get("TensorRT-LLM Version") else None,
            f"{m['backend']} backend" if m.get("backend") else None, layout or None,
            m.get("Quantization") and f"{m['Quantization']} weights"]
    findings.append(info("trtllm-bench: " + (", ".join(w for w in what if w) or "the report's header (model, layout) "
                                             "is not in the paste") + "."))
    if x.get("num_requests"):
        findings.append(info(f"{x['num_requests']:g} requests of {x.get('mean_input_len', 0):g} input and "
                             f"{x.get('mean_output_len', 0):g} output tokens on average"
                             + (f", about {x['concurrency']:.0f} at once" if x.get("concurrency") else "") + "."))
    out, req, length = x.get("output_throughput"), x.get("request_throughput"), x.get("mean_output_len")
    if out is not None:
        per_gpu = f" ({x['per_gpu']:g} tok/s per GPU)" if x.get("per_gpu") else ""
        findings.append(ok(f"Output {out:,.1f} tok/s{per_gpu}" + (f", {req:g} requests/s" if req else "") + "."))
        if req and length:
            agree = abs(out - req * length) <= 0.02 * out
            findings.append((ok if agree else info)(
                f"{req:g} requests/s x {length:g} output tokens = {req * length:,.0f} tok/s: "
                + ("the report's output rate, so its figures agree." if agree else
                   "not the report's output rate; requests of other lengths, or a cut report, explain it.")))
    if out and req and not length:  # (the report's header, with the dataset's lengths, cut off: pending xl006)
        total = x.get("total_token_throughput")
        findings.append(info(f"{out / req:,.0f} output tokens per request on average ({out:,.1f} tok/s / {req:g} "
                             "requests/s)" + (f", {(total - out) / req:,.0f} input" if total and total > out else "")
                             + ": the lengths the dataset asked for are not in the paste. If its outputs were longer, "
                             "requests stopped early (EOS honoured) and this output rate is not comparable to a run "
                             "of the full length."))
    for key, label in (("mean_ttft_ms", "TTFT"), ("mean_tpot_ms", "TPOT")):
        if x.get(key) is not None:
            findings.append(info(f"Average {label} {x[key]:g} ms."))
    if out and (two := m.get("second", {})).get("output_throughput"):  # a table of two runs side by side
        findings.append(info(f"A second run beside it: output {two['output_throughput']:,.1f} tok/s, "
                             f"{two['output_throughput'] / out:.2f}x the first's {out:,.1f}."))
    if x.get("issue_rate") and x.get("num_requests") and x["issue_rate"] > x["num_requests"]:
        findings.append(info("Every request was issued at once (its issue rate is far above the requests there are): "
                             "the figures are the engine's throughput at full batch, not its latency at a set load."))
    findings += [info(n[:1].upper() + n[1:] + ": its throughput is not in the paste.") for n in r.notes]
    return {"tool": r.tool, "summary": dict(x), "meta": dict(m), "truncated": r.truncated}, findings


_PROGRESS = re.compile(r"\|\s*(\d+)/(\d+)\s*\[")
"""tqdm's progress bar as vllm bench serve prints it: ``100%|█████| 4096/4096 [01:27<00:00, 46.6it/s]``."""
_RATE_INF = re.compile(r"^\s*Traffic request rate:\s*inf\b", re.M)
_BACKEND = re.compile(r"^\s*Backend:\s*(\S+)", re.M)
_MAX_CONC = re.compile(r"^\s*Max request concurrency:\s*(\d+)", re.M)


_START, _RESULT = "Starting main benchmark run", "Serving Benchmark Result"


def unfinished_run(text: str, paste: str) -> str | None:
    """Where the last run started in ``text`` (an output of ``paste``) that prints no result before the next run starts
    stopped: its progress bar's last ``done/total``, ``""`` with no bar; None when each has its result. A sweep's output
    is split where each result begins (a run's start and bar in one part, its result in the next), so the last run's
    result is looked up in the paste after its bar's line (tqdm's times make it unique), before the next run starts."""
    starts = [m.start() for m in re.finditer(_START, text)]
    for k in reversed(range(len(starts))):
        begin, end = starts[k], starts[k + 1] if k + 1 < len(starts) else len(text)
        if text.find(_RESULT, begin, end) >= 0:
            continue
        bar = last_match(_PROGRESS, text, begin, end)
        if bar is not None and end == len(text):
            line = line_at(text, bar.start(), bar.end())
            at = paste.find(line)
            after = paste.find(_START, at + len(line)) if at >= 0 else -1
            if at >= 0 and paste.find(_RESULT, at + len(line), after if after >= 0 else len(paste)) >= 0:
                continue
        return "/".join(bar.groups()) if bar else ""
    return None


def read_load_test(text: str) -> BenchRead:
    """:func:`grader.parsers.bench_result.parse_any` (raises ParseError as it does), plus the progress bar's total
    (its last ``done/total``) and the request rate the run printed before it started."""
    bar = last_match(_PROGRESS, text)  # the last one: the main run's, after a warm-up's
    backend, cap = _BACKEND.search(text), _MAX_CONC.search(text)
    unfinished = unfinished_run(text, context().paste or text)
    try:
        results = parse_any(text)
    except ParseError:
        if unfinished is None:
            raise
        results = []  # a run that started and printed nothing more: said, not an unread paste
    return BenchRead(results, int(bar.group(2)) if bar else None, bool(_RATE_INF.search(text)),
                     backend.group(1) if backend else None, int(cap.group(1)) if cap else None, client_errors(text),
                     unfinished)
