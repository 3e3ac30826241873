"""The load a load test offered against the load it served (grader.judges.bench calls it): a server that could not
keep up (requests waiting in its queue), a cap that held the requests back, a light load whose arrivals ended early,
and a first token later than a reverse proxy waits; what the client said of its requests (its ``Error N:`` lines, a run that
printed no result). The figures are checks/specs/serving.toml [load]'s."""

from __future__ import annotations

import math
import re
from typing import Any

from ..parsers.bench_result import BenchResult
from ..parsers.common import as_float
from ..parsers.traceback import EXCEPTION_RE
from .common import info, warn
from .model import Finding

OVERLOAD_MIN_REQUESTS = 20
"""Fewer requests than this are too few to say a run overloaded the server: their rate says little."""



def offered_findings(result: BenchResult, src: dict[str, Any], cap: int | None = None) -> list[Finding]:
    """The load offered (``--request-rate``, req/s; the JSON's or Namespace's ``request_rate``, the summary's ``Request
    rate configured (RPS)``) against the load served (``request_throughput``, req/s): served at under half the
    offered rate, the server was saturated and requests waited in its queue, so latency is mostly that wait: said of
    a run of OVERLOAD_MIN_REQUESTS or more, with no concurrency cap (which holds the load itself), whose TTFT shows
    the wait (over 1 s) or is not printed. A TTFT (p99 where printed) past a reverse proxy's default read timeout
    (checks/specs/serving.toml [load] proxy_read_timeout_ms) warns: behind one, those requests would fail. And
    benchmark_serving.py 0.1-0.2's per-token latency, which is not TPOT."""
    from ..calc.specs import row
    out = []
    rate, served = as_float(result.meta.get("request_rate")), src.get("request_throughput")
    rate = src.get("request_rate") if rate is None else rate
    ttft = src.get("median_ttft_ms") or src.get("mean_ttft_ms")
    many = (src.get("completed") or as_float(result.meta.get("num_prompts")) or 0) >= OVERLOAD_MIN_REQUESTS
    queued = ttft is None or ttft > 1000  # requests that waited show it in TTFT; unknown in the oldest summary
    behind = bool(rate and served and math.isfinite(rate) and served < rate / 2 and many)  # served under half of it
    inflight = src.get("mean_concurrency") or (served * src["mean_e2el_ms"] / 1000 if served and src.get("mean_e2el_ms")
                                               else None)  # Little's law: arrivals x time in the system
    n, peak = src.get("completed") or 0, src.get("max_concurrent_requests")
    if cap and cap >= 8 and inflight is not None and inflight < cap / 4 and (behind or rate == math.inf) and many \
            and n >= 2 * cap and (peak is None or peak < cap / 2):  # several waves of the cap, and none ran full
        out.append(warn(f"On average {inflight:.3g} requests were in flight, though up to {cap:g} were allowed and more "
                        "were waiting: they ran a few at a time, held back by the server (its limit on running "
                        "requests, --max-running-requests or --max-num-seqs, or too little KV cache) or by the client, "
                        f"so {src.get('output_throughput') or 0:g} tok/s is not the server's throughput at {cap:g} "
                        "streams. The server's log (`#running-req`, `Running: N reqs`) shows how many it ran at once."))
    elif behind and cap:
        out.append(info(f"Requests were offered at {rate:g}/s and completed at {served:g}/s: the server could not keep "
                        f"up with that rate. With --max-concurrency {cap:g} the rest waited in the benchmark's own queue "
                        f"(a wait TTFT does not hold), so the latencies are those of {cap:g} requests at once, not of "
                        f"{rate:g} a second."))
    elif behind and queued:
        out.append(info(f"Requests were offered at {rate:g}/s and completed at {served:g}/s: far faster than the "
                        "server completes them, so they piled up, each waiting in the queue or sharing the batch with "
                        "all the others. The latencies say how the server copes with that overload, not how fast it "
                        "serves one request: lower --request-rate (or cap --max-concurrency) to measure them at a load "
                        "it sustains."))
    elif behind and ttft is not None and not cap and n and src.get("duration"):  # no queue: arrivals that ended early (vllm#3297)
        busy = peak or inflight or _in_flight(src, served)
        light = row("serving.toml", "load").graded("light_load_in_flight")
        heavy = bool(busy and light and busy >= light)  # breakit p16: all 100 in flight at once is no light load
        out.append(info(f"Requests were offered at {rate:g}/s and completed at {served:g}/s, yet TTFT ({ttft:g} ms) "
                        f"shows no queue: the server kept up. The {n:,.0f} prompts' arrivals ended after about {n / rate:.3g} "
                        f"s and the run lasted {src.get('duration') or 0:.3g} s, until its longest requests ended, so {served:g} "
                        "req/s is the offered load stretched by those, not the server's capacity"
                        + (": the run is the tail of long requests, "
                           + (f"up to {busy:.3g} at once (`Peak concurrent requests`)" if peak else
                              f"about {busy:.3g} at once on average ("
                              + ("the tool's `Concurrency`" if src.get("mean_concurrency") else
                                 "requests a second x their time in the system") + ")")
                           + ", so these latencies are those of a batch that large, not of a light load. To measure "
                           "capacity, raise --request-rate (inf) and --num-prompts." if heavy else
                           ": a light load, where two setups (more GPUs, another TP) look alike. To measure capacity, "
                           "raise --request-rate (inf) and --num-prompts; these latencies are those of this light load.")))
    proxy = row("serving.toml", "load").graded("proxy_read_timeout_ms")
    slow = src.get("p99_ttft_ms") or src.get("median_ttft_ms") or src.get("mean_ttft_ms")
    if proxy and slow and slow > proxy:
        which = "slowest requests (p99)" if src.get("p99_ttft_ms") else "requests"
        out.append(warn(f"The {which} waited {slow / 1000:.1f} s before their first token, longer than a reverse "
                        f"proxy waits for an answer by default (nginx's proxy_read_timeout, {proxy / 1000:g} s, "
                        "checks/specs/serving.toml [load]), so behind one they would have failed. "
                        + (f"Half of all the requests had it within {median / 1000:.2f} s (the median TTFT), so "
                           "there was no standing queue: a few requests stalled (preempted when the KV cache filled, retried, a "
                           "connection that hung), and the server's log around their time (`Waiting`, preemption "
                           "warnings) shows which." if _tail_only(src) and (median := src["median_ttft_ms"]) else
                           "The server was saturated and TTFT measures its queue: lower --request-rate or cap "
                           "--max-concurrency to measure it at a load the server sustains.")))
    out += _queued_in_server(src, cap)
    per_token = src.get("mean_latency_per_output_token_ms")
    if per_token is not None:
        out.append(info(f"`Average latency per output token` ({per_token / 1000:g} s) is each request's whole latency "
                        "over its output tokens, queueing and prefill included: not TPOT (the time between tokens)."))
    return out


def _in_flight(src: dict[str, Any], served: float | None) -> float | None:
    """Little's law where the summary prints neither the peak nor the mean in flight nor E2EL: requests a second times
    each one's time in the system, its TTFT plus TPOT for each later token (the mean output a request)."""
    ttft, tpot, n = src.get("mean_ttft_ms"), src.get("mean_tpot_ms"), src.get("completed")
    out = src.get("total_output_tokens")
    if not (served and ttft and tpot and n and out):
        return None
    return served * (ttft + tpot * max(out / n - 1, 0)) / 1000


def _tail_only(src: dict[str, Any]) -> bool:
    """The median TTFT printed and under checks/specs/serving.toml [load] queued_ttft_ms: most requests started at
    once, so a long mean or p99 TTFT is a few stalled requests' (break-it 24 p04: median 0.18 s, mean 11 s, p99 95 s),
    not a queue every request waited in."""
    from ..calc.specs import row
    wait, median, mean = row("serving.toml", "load").graded("queued_ttft_ms"), src.get("median_ttft_ms"), src.get("mean_ttft_ms")
    return wait is not None and median is not None and median < wait and bool(mean) and median < mean / 2  # (a skew:
    # most far below the mean; a median near the mean is every request's wait, break-it 25 F5)


def _queued_in_server(src: dict[str, Any], cap: int | None) -> list[Finding]:
    """A closed-loop run (``cap``: --max-concurrency, 2 or more, several waves of it) whose short prompts (at most
    checks/specs/serving.toml [load] queued_prompt_tokens each) waited queued_ttft_ms or more on average for their first
    token, each request generating few_output_tokens or more (fewer: the prefill-bound reading of judges/bench.py): the
    server started fewer requests than the client sent and the others waited in its queue (a warning), where Little's
    law (requests a second x their time after the first token) puts at least one waiting on average; [] otherwise, and
    where the median TTFT is short (_tail_only: a few stalled requests drive the mean)."""
    from ..calc.specs import row
    load = row("serving.toml", "load")
    wait, short, few = load.graded("queued_ttft_ms"), load.graded("queued_prompt_tokens"), load.graded("few_output_tokens")
    ttft, e2el, n = src.get("mean_ttft_ms"), src.get("mean_e2el_ms"), src.get("completed") or 0
    prompt, made, served = src.get("total_input_tokens"), src.get("total_output_tokens"), src.get("request_throughput")
    if None in (wait, short, few) or not cap or cap < 2 or n < 2 * cap or not ttft or ttft < wait or not prompt \
            or prompt / n > short or not made or made / n < few or _tail_only(src):
        return []
    running = served * (e2el - ttft) / 1000 if served and e2el and e2el > ttft else None
    if running is None or running > cap - 1:  # not one request waiting on average: the TTFT is not a queue's
        return []
    return [warn(f"The requests waited {ttft / 1000:.1f} s on average for their first token, though their prompts are "
                 f"short (~{prompt / n:,.0f} tokens, about a second of prefill on a GPU) and at most {cap:g} were sent "
                 f"at once: by the run's own figures ({served:g} req/s x {(e2el - ttft) / 1000:.1f} s each after the "
                 f"first token) the server ran about {running:.1f} at once of the {cap:g} the client kept sending, so "
                 "the others waited in its queue for a slot (unless its prefill is that slow: a CPU backend, a model "
                 "far too large for its GPUs). Its limit on running requests (--max-num-seqs, SGLang's "
                 "--max-running-requests) or a KV cache too small for them all holds them back: the server's log "
                 "(`Running: N reqs, Waiting: M reqs` and its KV cache usage) shows which. TPOT and throughput are "
                 "those of the requests it ran, not of the concurrency asked for.")]


def unfinished_findings(unfinished: str | None, results: bool) -> list[Finding]:
    """What a run that started and printed no result means (``unfinished``: its bar's ``done/total``, ``""`` without a
    bar, None for none; ``results``: other runs of the paste printed theirs): the paste ends inside it, or the client
    stopped there."""
    if unfinished is None:
        return []
    done, _, total = unfinished.partition("/")
    where = f" (its progress bar reached {done} of {total} requests)" if total else ""
    return [info(("A" if results else "The") + f" run started{where} and printed no result after it: the client "
                 "was stopped, or still ran when this was copied, or the paste ends there. The lines after its bar "
                 "say which (an error from the client or the server, a container that stopped); the result block is "
                 "only printed once every request has ended.")]


def client_errors(text: str) -> tuple[str, ...]:
    """The exception line (not indented, after its frames) of each ``Error N:`` the client printed, each once."""
    if "Failed requests during benchmark run detected" not in text:
        return ()
    found: dict[str, None] = {}
    inside = False
    for line in text.splitlines():
        if _ERROR_N.match(line):
            inside = True
        elif inside and EXCEPTION_RE.match(line.rstrip()):
            found[line.rstrip()[:300]] = None
            inside = False
    return tuple(found)[:3]


_ERROR_N = re.compile(r"^Error \d{1,3}: ")
_CLIENT_ERROR_MEANINGS = (
    ("ServerDisconnected", "the server closed the connection during the request: it restarted or crashed, or a proxy or "
                           "a timeout cut it; the server's log at that moment says which"),
    ("ClientConnectorError|Connection refused|Cannot connect to host",
     "nothing answered at the server's address and port: the server was down, not up yet, or at another address"),
    ("Timeout", "the request took longer than the client waits: the server was overloaded or stalled"),
    (r"\b500\b|Internal Server Error", "the server failed the request (500: an error inside the server; its log "
                                        "at that moment has the traceback)"),
    ("ClientResponseError|Bad Request|Not Found",
     "the server refused the request: its status says why (404 a model name it does not serve, 400 a prompt longer "
     "than --max-model-len)"),
)


def client_error_findings(errors: tuple[str, ...]) -> list[Finding]:
    """What the client's own error lines say of its failed requests (see :func:`client_errors`)."""
    return [info(f"The client's error for a failed request: `{e}`: " + next(
        (said for words, said in _CLIENT_ERROR_MEANINGS if re.search(words, e)),
        "the server's log at that moment says why") + ".") for e in errors]
