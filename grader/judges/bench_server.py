"""Cross-check of a load test against the server it ran on, when one paste holds both: the ``vllm serve`` command (or
log) with ``--max-num-seqs N``, and a ``vllm bench serve`` that offered more requests at once than N (a burst, or a
larger --max-concurrency). vLLM's scheduler runs at most N sequences per step and queues the rest, so the test's TTFT
is mostly that queue and its throughput a batch of N (vLLM docs, Optimization and Tuning: max_num_seqs; blind batch
xa005, vllm-project/vllm#17788: --max-num-seqs 32 and 1000 prompts at once, TTFT 147 s)."""

from __future__ import annotations

from typing import Any

from ..parsers.common import command_argv, option_value
from .common import info, warn
from .model import Finding


def _cap(section: Any, parsed: Any) -> int | None:
    """``--max-num-seqs`` of a vllm-log section: its reading's command line or args, else its prompt's command
    (``$ vllm serve ... --max-num-seqs 32`` that printed nothing here); None when not given."""
    log = getattr(parsed, "log", None)
    args = {**(getattr(log, "args", None) or {}), **(getattr(log, "command_args", None) or {})} if log else {}
    raw = args.get("max_num_seqs", args.get("max-num-seqs")) or option_value(command_argv(section.command),
                                                                          "--max-num-seqs")
    try:
        n = int(str(raw))
    except (TypeError, ValueError):
        return None
    return n if n > 0 else None


def _offered(section: Any, parsed: Any) -> int | None:
    """How many requests the load test had in flight at most: its --max-concurrency (or the summary's), else, for a
    burst (no rate, no cap: every request sent at once), the requests it completed or sent; None when unknown."""
    from .bench import _burst_command, _num_prompts, _requests
    argv = command_argv(section.command)
    cap = _requests(option_value(argv, "--max-concurrency")) or getattr(parsed, "max_concurrency", None)
    if cap:
        return cap
    if not (getattr(parsed, "burst", False) or _burst_command(section.command)):
        return None
    done = [r.summary.get("completed") for r in getattr(parsed, "results", []) if r.summary.get("completed")]
    n = getattr(parsed, "sent", None) or _num_prompts(section.command) or (max(done) if done else None)
    return int(n) if n else None


def batch_cap_beside(items: list[tuple[Any, Any]]) -> list[tuple[int, Finding]]:
    """A load test offering more requests at once than the server's ``--max-num-seqs`` in the same paste: a note on
    the load test that the rest queued (its TTFT is that queue, its throughput a batch of that size)."""
    caps = [c for s, parsed in items if s.kind == "vllm-log" for c in [_cap(s, parsed)] if c]
    if len(set(caps)) != 1:  # none, or two servers of different caps: which ran this test is not said
        return []
    cap, out = caps[0], []
    for i, (s, parsed) in enumerate(items):
        offered = _offered(s, parsed) if s.kind == "vllm-bench" and parsed is not None else None
        if offered and offered > cap:
            out.append((i, info(f"The server admits at most {cap} sequences at once (`--max-num-seqs {cap}` in its "
                                f"command in this paste), and this test offered up to {offered:,} requests at once: "
                                "the rest waited in the server's queue, so its TTFT is mostly queue time and its "
                                f"throughput that of a {cap}-sequence batch, not the GPU's capacity. Raise "
                                "--max-num-seqs where the KV cache has room, or test with --max-concurrency at or "
                                "under it.")))
    return out


def same_workload_compared(items: list[tuple[Any, Any]]) -> list[tuple[int, Finding]]:
    """Two load tests of the same workload in one paste (the same requests, input and output tokens: an A/B of a
    version or a setting): the later one against the one above it. Slower by checks/specs/serving.toml [bench]
    reference_gap_share or more warns (a regression the change between them brings; nothing else differs in the
    test), faster says so; within steady_share they match (corpus zp005, sgl-project/sglang: NCCL 2.21.5 against
    2.26.2, 103.28 against 56.22 output tok/s over the same 10 requests)."""
    from ..calc.specs import row
    spec = row("serving.toml", "bench")
    gap, noise = spec.graded("reference_gap_share"), spec.graded("steady_share")
    runs = [(i, s.facts.get("summary") or {}) for i, (s, _) in enumerate(items) if s.kind == "vllm-bench" and s.facts]
    runs = [(i, r) for i, r in runs if r.get("completed") and r.get("total_input_tokens") and r.get("output_throughput")]
    out: list[tuple[int, Finding]] = []
    for (_, a), (j, b) in zip(runs, runs[1:]):
        key = ("completed", "total_input_tokens", "max_concurrency", "request_rate")
        if any(a.get(k) != b.get(k) for k in key) or not b.get("total_output_tokens") or gap is None or noise is None \
                or abs(b["total_output_tokens"] / (a.get("total_output_tokens") or 1) - 1) > noise:
            continue
        q = b["output_throughput"] / a["output_throughput"] - 1
        step = next((k for k in ("mean_tpot_ms", "mean_itl_ms") if a.get(k) and b.get(k)), None)
        steps = (f", mean {'TPOT' if step == 'mean_tpot_ms' else 'ITL'} {b[step]:g} ms against {a[step]:g} ms"
                 if step else "")
        said = (f"The same workload as the run above it ({a['completed']:g} requests, {a['total_input_tokens']:,.0f} "
                f"input tokens, about the same output) gives {b['output_throughput']:g} output tok/s against "
                f"{a['output_throughput']:g} ({q:+.0%}){steps}")
        if q <= -gap:
            out.append((j, warn(said + f": a regression of {-q:.0%} between the two runs. The load and the requests "
                                "are the same, so whatever differs between them (a version, a setting: the paste's "
                                "captions say which) costs it; nothing here failed.")))
        elif q >= gap:
            out.append((j, info(said + f": {q:.0%} faster than the run above, with the same load and requests.")))
        elif abs(q) <= noise:
            out.append((j, info(said + ": the same within run-to-run noise.")))
    return out
