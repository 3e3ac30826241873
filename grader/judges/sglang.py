"""Judge of an SGLang server's start-up log (grader.parsers.sglang_log): the memory free when its weights began to
load (against checks/specs/memory.toml [preload] free_share_low of the GPU's total), its KV pool against the context
it serves, and whether it came up. SGLang's ``GB`` are GiB."""

from __future__ import annotations

from typing import Any

from .common import info, ok, warn
from .model import NO_ERROR_SEEN, Finding, Summary


def summarise_sglang(log: Any, command: str | None) -> Summary:
    from ..calc.specs import row
    args = dict(log.args)
    facts = {"total_mib": log.total_mib, "free_at_load_gib": log.free_at_load_gib, "weights_gib": log.weights_gib,
             "kv_tokens": log.kv_tokens, "context_len": log.context_len, "args": args, "ready": log.ready,
             "memory_unit": "GiB"}
    findings: list[Finding] = []
    said = [f"model {args['model_path']}" if "model_path" in args else "",
            f"TP {args['tp_size']}" if "tp_size" in args else "",
            f"mem_fraction_static {args['mem_fraction_static']}" if "mem_fraction_static" in args else ""]
    if any(said):
        findings.append(info("SGLang: " + ", ".join(x for x in said if x) + "."))
    low = row("memory.toml", "preload").graded("free_share_low")
    total = log.total_mib / 1024 if log.total_mib else None
    if total and log.free_at_load_gib is not None and low is not None and log.free_at_load_gib < low * total:
        findings.append(warn(
            f"Only {log.free_at_load_gib:g} of {total:.1f} GiB were free when the weights began to load (`Load weight "
            f"begin. avail mem=...`): about {total - log.free_at_load_gib:.0f} GiB was already in use by another "
            "process (a second server, a container left running) or, on a DGX Spark whose GPU memory is the system's, "
            "by the system and its page cache, which CUDA may count as used there. SGLang sized its weights and KV "
            "pool from what was left: stop the other process (`nvidia-smi`, `docker ps`; `free -h` shows the cache; "
            "`sudo sh -c 'sync; echo 3 > /proc/sys/vm/drop_caches'` returns it) and start it again."))
    elif log.free_at_load_gib is not None:
        findings.append(info(f"{log.free_at_load_gib:g} GiB free when the weights began to load"
                             + (f", of {total:.1f} GiB." if total else ".")
                             + (f" The weights took {log.weights_gib:g} GiB." if log.weights_gib is not None else "")))
    elif log.weights_gib is not None:  # (the weights' end line without its begin: blind batch vu004)
        findings.append(info(f"The weights loaded, {log.weights_gib:g} GB on each GPU (`Load weight end`)"
                             + (f"; {log.free_after_pool_gib:g} GB were left after its memory pool." if
                                log.free_after_pool_gib is not None else ".")))
    if log.kv_tokens is not None and log.context_len and log.kv_tokens < log.context_len:
        findings.append(warn(f"The KV pool holds {log.kv_tokens:,} tokens, fewer than one request of the "
                             f"{log.context_len:,}-token context it serves: a long request cannot run, and a "
                             "few short ones fill it. Give the pool more memory (free the GPU, raise "
                             "--mem-fraction-static" + (f", {args['mem_fraction_static']} here" if "mem_fraction_static"
                                                        in args else "") + ") or lower --context-length."))
    elif log.kv_tokens is not None:
        findings.append(ok(f"The KV pool holds {log.kv_tokens:,} tokens"
                           + (f": {log.kv_tokens / log.context_len:.1f} requests of the full {log.context_len:,}"
                              "-token context." if log.context_len else ".")))
    findings += running_limit(log)
    from .context import context as _ctx
    from .sglang_requests import refused_for_length, stopped_by_sigterm
    findings += refused_for_length(log, _ctx().paste) + stopped_by_sigterm(_ctx().paste)
    from .launch_args import rendezvous_mismatch
    findings += rendezvous_mismatch(("--dist-init-addr",))
    if not log.ready and log.kv_tokens is None and log.weights_gib is None and log.free_at_load_gib is None \
            and log.capped is None:
        from .context import context
        from .stops_at import ends_at_setup
        findings += ends_at_setup(context().paste, "SGLang")
    elif not log.ready and not any(f.level in ("warn", "fail") for f in findings):
        findings.append(info(f"{NO_ERROR_SEEN}, and SGLang's `The server is fired up and ready to roll!` is not "
                             "among them: they do not say whether the server came up; its lines after these do."))
    if log.ready:
        from .context import context
        from .stops_at import ready_tail
        findings.append(ok("The server came up (`The server is fired up and ready to roll!` or `Application startup "
                           "complete`)." + ready_tail(context().paste)))
    return facts, findings


def running_limit(log: Any) -> list[Finding]:
    """How many requests SGLang runs at once: its start-up cap by a hybrid model's state cache (``max_running_requests
    is capped to 12 by the mamba state cache (max_mamba_cache_size=64, 5 state slots per request)``: a warn, since more
    offered requests only queue, whatever --max-running-requests asked; the line names SGLang's own remedies), else the
    scheduler's ``max_running_requests=`` of its budget line (an info)."""
    if log.capped:
        cap, by, size, per = log.capped
        slots = (f" ({size} slots, {per} per request: {size} // {per} = {size // per})" if size and per else "")
        return [warn(f"SGLang caps max_running_requests at {cap} by its {by} state cache{slots}: at most {cap} "
                     f"request{'s' if cap != 1 else ''} run at once and the rest queue, whatever --max-running-requests "
                     "asked for, so throughput flattens there (not a hardware or network ceiling). A hybrid model keeps a "
                     "fixed-size state per running request in this cache, which holds only so many: a sizing limit set "
                     "at start-up, and nothing failed. SGLang's remedies: a larger "
                     "--mamba-full-memory-ratio or --max-mamba-cache-size, or --mamba-ssm-dtype bfloat16 (half the "
                     "slot size).")]
    if log.max_running is not None:
        return [info(f"At most {log.max_running} request{'s' if log.max_running != 1 else ''} run at once "
                     f"(max_running_requests={log.max_running}, the scheduler's limit once memory is sized): more "
                     "concurrent requests queue.")]
    return []
