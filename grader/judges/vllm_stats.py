"""vLLM's periodic engine stats line read as a careful reader does (judges/vllm.py, near its size limit, calls this):
the last line's figures, and what they mean together: a KV cache nearly full (requests wait or are preempted), requests
waiting while the cache is almost empty and no prompt was taken in (something other than memory holds them: with
LoRA enabled, the one-adapter-per-batch default), none waiting with room left (a healthy, lightly loaded server)."""

from __future__ import annotations

import re
from typing import Any

from .common import fmt_count, info, warn
from .model import Finding


def _usage_bar(key: str) -> float | None:
    """checks/specs/memory.toml [kv_cache]'s ``key`` (high_usage_percent, low_usage_percent), None where unverified."""
    from ..calc.specs import row
    return row("memory.toml", "kv_cache").graded(key)


def kv_nearly_full(stats: Any) -> bool:
    """Requests running and the KV cache at or above checks/specs/memory.toml's high_usage_percent."""
    high = _usage_bar("high_usage_percent")
    return bool(stats.running) and stats.kv_usage_percent is not None and high is not None \
        and stats.kv_usage_percent >= high


def _last_per_engine(log: Any) -> list[Any]:
    """The last stats line of each engine (a data-parallel server prints one per engine, `Engine 000`, `Engine 001`),
    of the last engines' round: the engines' lines in the order they came."""
    last: dict[Any, Any] = {}
    for s in log.stats:
        last[s.engine] = s
    return sorted(last.values(), key=lambda s: log.stats.index(s)) if len(last) > 1 else [log.stats[-1]]


_CLOCK_RE = re.compile(r"\b(?P<h>\d{2}):(?P<m>\d{2}):(?P<s>\d{2})\b")
_PID_RE = re.compile(r"pid=(\d{1,9})\)")


def _clock_s(stats: Any) -> int | None:
    """The seconds of the day a stats line was logged at (its ``HH:MM:SS``), None where it prints none."""
    m = _CLOCK_RE.search(stats.source.text[:100])
    return int(m["h"]) * 3600 + int(m["m"]) * 60 + int(m["s"]) if m else None


def _seconds_to_full(log: Any, last: Any) -> float | None:
    """Seconds until the KV cache of ``last``'s engine reaches 100% at the trend of its recent stats lines: those of
    the current run (after the last idle line, Running 0, or a clock that went back: a restart) within
    checks/specs/memory.toml's trend_window_s of the last one (at least the line before it), their least-squares
    slope, so a fast rise is not averaged with an earlier run and a plateau is not a rise for its ramp-up; inf where
    they do not rise, or the last passes the run's earlier high by no more than the run fell after it (a swing); None
    with fewer than two."""
    timed: list[tuple[int, float]] = []
    for s in log.stats:
        t = _clock_s(s) if s.engine == last.engine else None
        if t is None or s.kv_usage_percent is None:
            continue
        if s.running == 0 or (timed and t < timed[-1][0]):  # idle, or a restart: a new run starts after it
            timed = [] if s.running == 0 else [(t, s.kv_usage_percent)]
            continue
        timed.append((t, s.kv_usage_percent))
    window = _usage_bar("trend_window_s")
    if len(timed) < 2 or window is None:
        return None
    recent = ([p for p in timed[:-1] if p[0] >= timed[-1][0] - window] or timed[-2:-1]) + [timed[-1]]
    if recent[-1][0] <= recent[0][0]:
        return None
    hist = [p[1] for p in timed[:-1]]
    high = max(range(len(hist)), key=hist.__getitem__)
    if timed[-1][1] - hist[high] <= hist[high] - min(hist[high:]):  # above the run's earlier high by no more than it
        return float("inf")  # fell after it: a swing, not a rise (break-it 25 F7: 88-93% back and forth for 150 s)
    mt = sum(p[0] for p in recent) / len(recent)
    mk = sum(p[1] for p in recent) / len(recent)
    rise = (sum((p[0] - mt) * (p[1] - mk) for p in recent) / sum((p[0] - mt) ** 2 for p in recent))
    return (100 - timed[-1][1]) / rise if rise > 0 else float("inf")


def _max_num_seqs(log: Any) -> int | None:
    """--max-num-seqs as the command or the engine's args give it; None when not given."""
    args = {**(log.command_args or {}), **(log.args or {})}
    try:
        return int(str(args.get("max_num_seqs", args.get("max-num-seqs", ""))).strip() or "x")
    except ValueError:
        return None


def _said(s: Any, engines: int) -> str:
    return ((f"Engine {s.engine}: " if engines > 1 else "Last engine stats: ")
            + f"{s.running if s.running is not None else '?'} running, "
            f"{s.waiting if s.waiting is not None else '?'} waiting, KV cache {fmt_count(s.kv_usage_percent)}% used, "
            f"prompt {s.prompt_tokens_per_s:g} tok/s, generation {s.generation_tokens_per_s:g} tok/s.")


def stats_findings(log: Any) -> list[Finding]:
    """The last engine stats line of ``log`` (a VllmLog) said, with its reading (each engine's, for data-parallel
    engines: the warns only where every engine agrees); [] without one."""
    if not log.stats:
        return []
    lines = _last_per_engine(log)
    if len(lines) == 1:
        return _one_engine(log, lines[0], _said(lines[0], 1)) + _busiest(log, lines[0])
    said = f"Last engine stats of {len(lines)} engines (data parallel): " + " ".join(_said(s, 2) for s in lines)
    readings = [_one_engine(log, s, "")[0] for s in lines]
    if all(r.level == "warn" for r in readings):
        return [warn(said + readings[0].message)]
    return [info(said)]


def _busiest(log: Any, last: Any) -> list[Finding]:
    """An earlier stats line of ``last``'s engine whose KV cache was nearly full with requests waiting, where the last
    line is not (a load that has passed): at that load the pool was the limit (blind batch vp004: 100% with 27 waiting
    on an L4 at 32K context, the server idle by the end of the paste)."""
    if kv_nearly_full(last) or not any(x.waiting and kv_nearly_full(x) for x in log.stats):
        return []
    run, before, server = [], -1, None  # this engine's stats since the server last restarted (its clock went back,
    for x in (x for x in log.stats if x.engine == last.engine):  # or another process logs them: break-it 27 F13)
        t, pid = _clock_s(x), _PID_RE.search(x.source.text[:60])
        t = before if t is None else t
        run = [x] if t < before or pid and server and pid[1] != server else run + [x]
        before, server = t, pid[1] if pid else server
    full = [x for x in run if x.waiting and kv_nearly_full(x)]
    if not full:
        return []
    top = max(full, key=lambda x: (x.kv_usage_percent, x.waiting))
    when = f" (at {m.group()})" if (m := _CLOCK_RE.search(top.source.text[:100])) else ""
    return [warn(f"At its busiest{when} the KV cache was {fmt_count(top.kv_usage_percent)}% used with {top.running} "
                 f"running and {top.waiting} waiting: at that load the cache was the limit, so requests queued (or were "
                 "preempted) until it freed, and their time to first token includes that wait. Under a load test on "
                 "purpose that is the server's capacity; otherwise give the cache more memory or a shorter "
                 "--max-model-len, or lower --max-num-seqs.")]


def _one_engine(log: Any, s: Any, said: str) -> list[Finding]:
    """One engine's last stats line ``s`` read; ``said``: its figures as said."""
    limit = _max_num_seqs(log)
    if limit and s.running is not None and s.running >= limit and s.waiting:
        return [info(said + f" {s.running} running is the --max-num-seqs {limit} the command sets: the engine runs "
                     f"at most that many at once, so the {s.waiting} others wait by this setting, not for a fault; "
                     "raise --max-num-seqs if the KV cache has room and more at once is wanted.")]
    if kv_nearly_full(s) and s.waiting == 0 and (secs := _seconds_to_full(log, s)) is not None:
        if secs > 60 * (_usage_bar("full_within_min") or 0):
            pace = (f"at the rise of its last lines it is full in about {secs / 60:.0f} min" if secs != float("inf")
                    else "it does not rise over its last lines")
            return [info(said + f" The KV cache is nearly full but none waits: {pace}, so the running requests still fit; once it is full, new ones "
                         "wait and running ones are preempted (later stats lines with Waiting above 0 show it).")]
        return [warn(said + f" The KV cache is nearly full and rising: at the rise of its last lines it is full in "
                     f"about {secs:.0f} s, then the next requests wait and running ones are preempted; lower "
                     "--max-num-seqs or give the cache more memory if that is not the load test's aim.")]
    if kv_nearly_full(s):
        return [warn(said + " The KV cache is nearly full: the next requests wait, or running ones are preempted, "
                     "until it frees; under a load test on purpose that is the server's limit, otherwise lower "
                     "--max-num-seqs or give the cache more memory.")]
    low = _usage_bar("low_usage_percent")
    roomy = low is not None and s.kv_usage_percent is not None and s.kv_usage_percent < low
    if roomy and s.waiting and not s.prompt_tokens_per_s:
        args = {**(log.command_args or {}), **(log.args or {})}
        lora = "enable_lora" in args and "max_loras" not in args
        if not s.running:  # nothing runs either: the engine takes nothing in
            return [warn(said + f" {s.waiting} request(s) wait, none runs, and no prompt was taken in over the "
                         "interval with the cache almost empty: the engine is not taking work in (a step that hangs, a "
                         "worker stopped); its log after this line, or `py-spy dump` of the engine, shows where.")]
        return [warn(said + f" {s.waiting} request(s) wait while the cache is only {fmt_count(s.kv_usage_percent)}% "
                     "used and no prompt was taken in over the interval (prompt 0 tok/s): not memory holds them "
                     "back, the scheduler keeps them out for another reason"
                     + (": with --enable-lora and no --max-loras, one LoRA adapter at a time goes into a batch (its "
                        "default, 1), so requests for another adapter wait until the running ones end. Raise "
                        "--max-loras (and --max-cpu-loras), or send requests for one adapter" if lora else
                        " (--max-num-seqs reached, a LoRA adapter limit, --max-loras, a request it cannot admit)")
                     + ". One stats line cannot prove which: the requests' log (their model or adapter) would.")]
    if roomy and s.waiting == 0 and s.running:
        return [info(said + " None waiting: the server keeps up with what it is sent, and the cache has room. A "
                     "healthy, lightly loaded server: the KV cache is sized at startup for the most it may hold, so "
                     "a low share in use is not a fault.")]
    return [info(said)]


def small_kv(gib: float, tokens: int | None, concurrency: float | None = None) -> str:
    """What a KV pool of ``gib`` GiB per GPU (``tokens`` in all, None where the log does not say) means where it is
    below checks/specs/memory.toml [kv_cache] small_gib and holds fewer than small_tokens: few requests fit at once
    (said as a warn's words, with a leading blank); "" where it is not small, or its bars are unverified, or where the
    log's own ``Maximum concurrency`` (``concurrency``: requests of the full --max-model-len at once) is small_concurrency
    or more (break-it 19 p21: 35.11x at 2,048 tokens is an ample pool for that length)."""
    small, enough = _usage_bar("small_gib"), _usage_bar("small_tokens")
    many = _usage_bar("small_concurrency")
    if small is None or enough is None or not 0 < gib < small or (tokens is not None and tokens >= enough) \
            or (concurrency is not None and many is not None and concurrency >= many):
        return ""
    return (f" A small KV cache (under {small:g} GiB per GPU{f', {tokens:,} tokens in all' if tokens else ''}): "
            "the weights leave little room, so few requests fit at once and long contexts are tight, before any "
            "load. Enough for a test; to serve, give it room: a lower --max-model-len, more GPUs (tensor parallel), "
            "a smaller (quantized) model or an fp8 KV cache (--kv-cache-dtype fp8), or a higher "
            "--gpu-memory-utilization only where the GPU keeps headroom for CUDA graphs and communication buffers.")
