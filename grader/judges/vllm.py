"""Judge of lesson 2b's vLLM outputs: startup logs (the KV-cache lines of every version, the memory check, failed
launches through grader.diagnoses, NCCL lines inside them judged by :mod:`.nccl`), ``/v1/models`` and ``/metrics``.

Sources of the figures in the messages: docs/research/procedure.md §3-4 (Ray and vLLM on two Sparks, error strings,
KV-cache lines), research/vllm_cpu.md and vllm_netns.md (the CPU build and Ray on the simulated cluster).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..diagnoses import diagnose
from ..parsers import ParseError
from ..parsers.vllm_log import parse_vllm_log, VllmLog
from ..calc.specs import row
from .common import fail, fmt_count, info, ok, on_spark, warn
from .context import context
from .model import Finding, Summary
from .stops_at import crashed_after_ready, ready_tail, stopped_after_ready
from .vllm_stats import small_kv, stats_findings

if TYPE_CHECKING:  # imported by their readers: NCCL's where a log holds NCCL lines (most hold none), the API's for it
    from ..parsers.nccl_log import NcclLog
    from ..parsers.vllm_api import VllmMetrics


# --------------------------------------------------------------------------- vLLM log

_DIAG_LEVEL = {"fail": "fail", "warn": "warn", "info": "info"}


def _jsonable(value: Any) -> Any:
    """Literal values read from a log (tuples, sets, bytes, complex...) as JSON types; others as text."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def _kv_facts(log: VllmLog) -> list[dict[str, Any]]:
    return [{"device": k.device, "tokens": k.tokens, "max_model_len": k.max_model_len,
             "concurrency": k.concurrency, "gpu_blocks": k.gpu_blocks, "cpu_blocks": k.cpu_blocks,
             "form": k.form, "prefix": k.source.prefix, "process": k.source.process, "ip": k.source.ip,
             "lineno": k.source.lineno} for k in log.kv]


@dataclass(frozen=True)
class VllmLogReading:
    """What the vllm-log kind reads: the log, and its NCCL_DEBUG=INFO lines parsed (grader.parsers.nccl_log, lesson
    2a) when it carries some, else None."""

    log: VllmLog
    nccl: NcclLog | None = None
    loading: bool = False  # the text has vLLM's `Starting to load model` (or a shard-loading bar)
    shard_bar: dict | None = None  # the last `Loading safetensors checkpoint shards` bar's fields (_SHARD_BAR_RE)

    @property
    def nccl_transport(self) -> str | None:
        if not self.nccl:
            return None
        from ..parsers.nccl_log import transport_verdict

        return transport_verdict(self.nccl)


_NCCL_MARK = re.compile(r"\bNCCL (?:INFO|WARN)\b")


_SHARD_BAR_RE = re.compile(r"Loading safetensors checkpoint shards: {0,3}(?P<pct>\d{1,3})% Completed \| (?P<k>\d+)/(?P<n>\d+) "
                           r"\[(?P<elapsed>[\d:]{1,12})<(?P<left>[\d:?]{1,12}), {0,2}(?P<rate>\d+(?:\.\d+)?)(?P<unit>s/it|it/s)\]")
_LOADING_MARKS = ("Starting to load model", "Loading safetensors checkpoint shards", "Time spent downloading weights")


def read_vllm(text: str) -> VllmLogReading:
    log = parse_vllm_log(text)
    bars = list(_SHARD_BAR_RE.finditer(text)) if "checkpoint shards" in text else []
    seen = dict(loading=any(m in text for m in _LOADING_MARKS), shard_bar=bars[-1].groupdict() if bars else None)
    if "NCCL " not in text or not _NCCL_MARK.search(text):  # the words first: found faster than the pattern
        return VllmLogReading(log, **seen)
    from ..parsers.nccl_log import parse_nccl_log

    try:
        return VllmLogReading(log, parse_nccl_log(text), **seen)
    except ParseError:
        return VllmLogReading(log, **seen)


def _shards(reading: VllmLogReading) -> list[Finding]:
    """The last progress bar of vLLM's shard loading: a rate of checks/specs/serving.toml [weights] slow_shard_s or
    more a shard warns (corpus zv006, vllm#6938: 83-131 s a shard from a network filesystem)."""
    bar = reading.shard_bar
    if not bar:
        return []
    spec = row("serving.toml", "weights")
    slow, shard_mb = spec.graded("slow_shard_s"), spec.graded("max_shard_gb") * 1000
    per = float(bar["rate"]) if bar["unit"] == "s/it" else 1 / float(bar["rate"]) if float(bar["rate"]) else 0.0
    if per < slow or bar["pct"] == "100":  # (a load that finished: its time is said by `Model loading took`)
        return []
    return [warn(f"Loading the weights is slow: shard {bar['k']} of {bar['n']} after {bar['elapsed']}, {per:.4g} s a "
                 f"shard (the bar's rate), {bar['left']} to go at that pace (a shard a minute or more, "
                 f"checks/specs/serving.toml [weights]). With shards of the usual {shard_mb / 1000:g} GB or less that "
                 f"is under {shard_mb / per:.0f} MB/s. The paste does not say why: storage is the usual cause (a "
                 "network filesystem, a FUSE mount, a busy disk, on every node that loads the model), memory "
                 "pressure while loading another. Time one read of the files (`cat <model dir>/*.safetensors > "
                 "/dev/null`): if that is slow too, copy the model to local NVMe on each node and start again.")]


def _stops_loading(reading: VllmLogReading, diagnoses: list) -> list[Finding]:
    """A log that reached the weights' loading and shows nothing after it (no weights' size, KV cache, stats or
    ready line) and no fault: it cannot say whether the start-up went on (corpus zv005, two nodes through Ray)."""
    log = reading.log
    bar = reading.shard_bar
    if (not reading.loading or log.weights_gib or log.kv or log.kv_memory or log.kv_tokens or log.stats or log.ready
            or any(d.severity in ("warn", "fail") for d in diagnoses) or bar and bar["pct"] == "100"):
        return []
    return [info("The log stops while vLLM loads the weights (`Starting to load model`, their download, or the shards' "
                 "progress bar), with no error before it: no `Model loading took` and no KV-cache line after it, so it cannot tell whether loading "
                 "finished or the start-up went on. The lines after it decide: `Model loading took X GiB`, then the "
                 "KV cache's size; a hang there shows as no new line for many minutes.")]


def _stops_at_nccl(reading: VllmLogReading, diagnoses: list) -> list[Finding]:
    """A log whose last line is a step of the distributed set-up (judges/stops_at.py: the PyNCCL version line, the
    custom all-reduce left out across nodes), with no fault, weights or KV cache after it: start-up stopped there."""
    from .stops_at import ends_at_setup
    log = reading.log
    if (log.ready or log.kv or log.kv_tokens or log.weights_gib or log.stats or reading.loading
            or any(d.severity in ("warn", "fail") for d in diagnoses)):
        return []
    return ends_at_setup(log.text, "vLLM")


def _nccl_findings(r: VllmLogReading) -> list[Finding]:
    """The NCCL lines of the log, judged by the nccl-log kind's judge (all its findings but the version line)."""
    if r.nccl is None or not r.nccl.nccl_lines:
        return []
    from .nccl import summarise_nccl_log

    version = f"NCCL {r.nccl.version}."
    return [Finding(f.level, f"NCCL lines in this log: {f.message}") for f in summarise_nccl_log(r.nccl, None)[1]
            if f.message != version]


_ULIMIT_RE = re.compile(r"Found ulimit of (?P<limit>\d{1,9}) and failed to automatically increase")


def _fd_limit_note(text: str, diagnoses: list[Any]) -> list[Finding]:
    """vLLM's line that it could not raise the open-files limit, where the table's warning (vllm-fd-ulimit: a limit of
    a few thousand, or `Too many open files` after it) does not apply: the high limit said as a note, here in explain
    only, not among a launch's diagnoses (vllm#29670: 65530 under a data-parallel start)."""
    m = _ULIMIT_RE.search(text)
    if m is None or any(d.kind == "vllm-fd-ulimit" for d in diagnoses):
        return []
    return [info(f"vLLM could not raise the open-files limit (ulimit -n) above {int(m['limit']):,}, the hard limit of "
                 "this shell or container: at that many file descriptors a server rarely runs out, so this is a note, "
                 "not a cause; it matters only if `OSError: [Errno 24] Too many open files` follows.")]


_UP_LINES = ("Application startup complete", "Uvicorn running on", "Starting vLLM API server", "Starting vLLM server")
"""The lines a vLLM server prints once it is ready, the last one first (a paste may stop at an earlier one)."""


def summarise_vllm(reading: VllmLogReading, command: str | None) -> Summary:
    from .launch_args import rendezvous_mismatch
    log = reading.log
    p = log.parallel
    diagnoses = diagnose(log)
    facts: dict[str, Any] = {
        "version": log.version, "platform": log.platform, "model": log.model, "max_model_len": log.max_model_len,
        "gpu_memory_utilization": log.gpu_memory_utilization,
        "parallel": {"tensor_parallel_size": p.tensor_parallel_size, "pipeline_parallel_size": p.pipeline_parallel_size,
                     "data_parallel_size": p.data_parallel_size, "expert_parallel": p.expert_parallel,
                     "distributed_executor_backend": p.distributed_executor_backend, "nnodes": p.nnodes,
                     "node_rank": p.node_rank, "headless": p.headless, "world_size": p.world_size,
                     "logged_world_size": p.logged_world_size, "sources": p.sources},
        "kv": _kv_facts(log), "kv_tokens": log.kv_tokens, "concurrency": log.concurrency,
        "kv_memory": [{"gib": m.gib, "kind": m.kind, "total_gib": m.total_gib, "prefix": m.source.prefix}
                      for m in log.kv_memory],
        "weights_gib": list(log.weights_gib),
        "events": [{"kind": e.kind, "severity": e.severity, "message": e.message, "numbers": e.numbers,
                    "count": e.count, "ip": e.source.ip, "lineno": e.source.lineno} for e in log.events],
        "diagnoses": [{"kind": d.kind, "severity": d.severity, "message": d.message, "fix": d.fix}
                      for d in diagnoses],
        "ranks": [r.__dict__ for r in log.ranks], "worker_ips": list(log.worker_ips),
        "ray_address": log.ray_address, "ready": log.ready, "url": log.url,
        "args": _jsonable(log.args), "args_truncated": log.args_truncated, "command_args": log.command_args,
        "nccl_transport": reading.nccl_transport,
        "memory_check": None if log.memory_check is None else {
            "free_gib": log.memory_check.free_gib, "total_gib": log.memory_check.total_gib,
            "utilization": log.memory_check.utilization, "wanted_gib": log.memory_check.wanted_gib,
            "margin_gib": log.memory_check.margin_gib, "failed": log.memory_check.failed},
    }
    findings: list[Finding] = []
    head = []
    if log.version:
        head.append(f"vLLM {log.version}")
    if log.platform:
        head.append(f"platform {log.platform}")
    if log.model:
        head.append(f"model {log.model}")
    if log.max_model_len:
        head.append(f"max model len {log.max_model_len:,} tokens")
    if log.gpu_memory_utilization is not None:
        head.append(f"gpu-memory-utilization {log.gpu_memory_utilization:g}")
    if head:
        findings.append(info(", ".join(head) + "."))
    findings += _unified_share(None if "as specified by kv_cache_memory_bytes" in log.text  # (utilisation unused then:
                               else log.gpu_memory_utilization)  # break-it 25 F8)
    if p.sources:
        backend = p.distributed_executor_backend or ("--nnodes (mp)" if p.nnodes else
                                                     "not given (Ray workers seen on other nodes)" if log.worker_ips
                                                     else f"Ray (it joined the cluster at {log.ray_address})"
                                                     if log.ray_address else "not given (vLLM's default: mp within one node)")
        findings.append(info(
            f"Parallel layout: TP {p.tensor_parallel_size or 1} x PP {p.pipeline_parallel_size or 1} = world size "
            f"{p.world_size}" + (f", DP {p.data_parallel_size}" if (p.data_parallel_size or 1) > 1 else "")
            + (", expert parallel" if p.expert_parallel else "") + f"; backend {backend}"
            + (f"; node rank {p.node_rank} of {p.nnodes}" if p.nnodes else "") + "."))
    elif log.ray_address:  # no layout in the excerpt, but where its workers go
        ray_only = bool(command) and "vllm" not in command.lower()  # `ray.init(address=...)` typed: another driver
        findings.append(info(("This Ray driver asked to join" if ray_only else "vLLM joined") + " the existing Ray "
                             f"cluster at {log.ray_address}: its workers are placed on that cluster's nodes (`ray "
                             "status` on the head lists the nodes that joined)."))
    sizes = log.worker_sizes() if not (p.sources.get("tensor_parallel_size")
                                       or p.sources.get("pipeline_parallel_size")) else {}
    split = [(dim, n) for dim, n in sizes.items() if dim in ("TP", "PP") and n > 1]
    if split:
        shown = " x ".join(f"{dim} {n}" for dim, n in split)
        ranks = ", ".join(f"{dim}0 to {dim}{n - 1}" for dim, n in split)
        findings.append(info(f"Workers' prefixes show at least {shown} (ranks {ranks}): "
                             f"{'tensor' if sizes.get('TP', 1) > 1 else 'pipeline'} parallel over "
                             f"{sizes.get('TP', 1) * sizes.get('PP', 1)} or more GPUs; the start-up lines with the "
                             "sizes are not in the paste."))
    remote = [r for r in log.ranks if r.ip]
    if remote:
        where = "; ".join(f"rank {r.rank}" + (f" (PP rank {r.pp_rank}, TP rank {r.tp_rank})"
                                              if r.pp_rank is not None else "") + f" on {r.ip}" for r in remote)
        findings.append(ok(f"Workers ran on another node: {where}. The model really spans the nodes."))
    elif log.worker_ips:
        findings.append(ok(f"vLLM processes ran on other node(s): {', '.join(log.worker_ips)} (Ray's ip= prefixes)."))
    findings += _nccl_findings(reading)
    findings += _kv_findings(log)
    alike: dict[tuple, list[Any]] = {}  # the same figure from several workers, said once
    for m in log.kv_memory:
        alike.setdefault((m.gib, m.kind), []).append(m)
    for m in log.kv_memory:
        who = f" ({m.source.process})" if m.source.process else ""
        if m.gib <= 0:
            findings.append(fail(f"{m.gib:g} GiB left for the KV cache{who}: the weights and activations take more "
                                 "than memory x --gpu-memory-utilization. Raise the utilization, or use more GPUs "
                                 "or a smaller (quantized) model."))
        elif m.kind == "explicit":
            findings.append(info(f"KV cache memory set explicitly: {m.gib:g} GiB of {m.total_gib:g} GiB{who} "
                                 "(the CPU backend's VLLM_CPU_KVCACHE_SPACE, per rank)."))
        else:
            words = {"available": "available for the KV cache", "reserved": "reserved for the KV cache",
                     "auto-fit": "available for the KV cache (auto-fit)"}[m.kind]
            said = f"{m.gib:g} GiB {words}"
            small = small_kv(m.gib, log.kv_tokens, log.concurrency)
            group = alike[(m.gib, m.kind)]
            same = [o.source.process for o in group]
            if len(same) > 1:  # every worker printing the same figure: said once, for each of them
                if m is group[0]:
                    named = sorted({w for w in same if w})
                    findings.append((warn if small else info)(
                        (f"{said} ({named[0]}, printed {len(same)} times)." if len(named) == 1 else
                         f"{said} on each of {len(same)} workers" + (f" ({', '.join(named)})" if named else "") + ".")
                        + small))
            else:
                findings.append((warn if small else info)(f"{said}{who}.{small}"))
    avail = {m.source.process: m.gib for m in log.kv_memory if m.kind == "available" and m.source.process}
    staged = (p.pipeline_parallel_size or 1) > 1 or any("PP" in w for w in avail)  # pipeline stages differ anyway
    if len(avail) > 1 and not staged and max(avail.values()) > 0 and min(avail.values()) < max(avail.values()) / 2:
        low, high = min(avail, key=avail.get), max(avail, key=avail.get)
        findings.append(warn(f"The workers were left very different room for the KV cache ({low} {avail[low]:g} GiB, "
                             f"{high} {avail[high]:g} GiB), though tensor-parallel ranks hold equal shares of the "
                             f"model: {low}'s GPU has less free memory, so another process (or another stage of the "
                             "same deployment) holds memory on it. `nvidia-smi` lists the processes on each GPU."))
    findings += _memory_check_findings(log) + _shards(reading) + _stops_loading(reading, diagnoses) + _stops_at_nccl(reading, diagnoses)
    if log.weights_gib:
        findings.append(info("Model weights: " + ", ".join(f"{w:g} GiB" for w in log.weights_gib)
                             + " per worker, as loaded."))
    ready_at = len(findings) if log.ready else None
    said = next((x for x in _UP_LINES if x in log.text), _UP_LINES[0])  # the ready line as this log printed it
    came = f"The server came up ({said})" + (f" at {log.url}" if log.url else "")
    if log.ready and (stop := stopped_after_ready(log.text)):  # break-it 23 p04: then Ctrl-C, Uvicorn's shutdown
        findings.append(info(came + f" and was then stopped (`{' '.join(stop.split())[:80]}` after it: Ctrl-C or a stop sent to it): it is "
                             "not serving now; start it again and check it with `curl <host>:8000/health`."))
    elif log.ready and (crash := crashed_after_ready(log.text)):  # break-it 23 p14: then a segfault, the engine dead
        findings.append(info(came + f", and then its process ended (`{' '.join(crash.split())[:80]}` after it; below): it is "
                             "not serving now."))
    elif log.ready:
        findings.append(ok(f"The server is up ({said})"
                           + (f" at {log.url}" if log.url else "") + ": check it with `curl <host>:8000/health`."
                           + ready_tail(log.text, any(d.severity in ("warn", "fail") for d in diagnoses))))
    for d in diagnoses:
        findings.append(Finding(_DIAG_LEVEL.get(d.severity, "fail"), f"{d.message} Fix: {d.fix}"))
    findings += _fd_limit_note(log.text, diagnoses)
    findings += stats_findings(log)
    findings += _one_stream_pace(log)
    findings += rendezvous_mismatch(("--master-addr",))  # vLLM's --nnodes mode: one --master-addr on every node
    if log.client_output and not log.has_startup:
        findings.append(info("This is a client's output (`vllm bench serve`), not the server's log: the server's "
                             "startup lines (version, parallel layout, KV cache) are in the `vllm serve` output."))
    elif not log.has_startup and not diagnoses:
        findings.append(info("An excerpt without the startup lines (version, args, KV cache): only what it shows "
                             "was read."))
    if log.args_truncated:
        findings.append(info("The `non-default args` line is cut off: the arguments before the cut were read."))
    if ready_at is not None and not any(f.level in ("warn", "fail") for f in findings):  # blind batch wa: said so
        findings[ready_at] = ok(findings[ready_at].message[:-1] + "; a healthy start: nothing wrong in what the log "
                                "shows.")
    return facts, findings


THIN_MARGIN = 0.1
"""A startup memory margin below this share of the device's total is called thin (a wording threshold, not a
catalogue figure: it only adds the advice to keep headroom)."""


def _memory_check_findings(log: VllmLog) -> list[Finding]:
    """vLLM's startup memory check (free at startup >= utilization x total). A failed check is the
    ``startup-memory`` diagnosis (the table gives its meaning and fix); a passed one is said with its margin."""
    m = log.memory_check
    if m is None or m.failed:
        return []
    dev = "device" if m.device == "GPU" else "node"
    if m.wanted_gib is None or m.margin_gib is None:
        return [info(f"Free memory on the {dev} at startup: {m.free_gib:g} of {m.total_gib:g} GiB (the `Desired "
                     f"{m.device} memory utilization` half of vLLM's check is not in the paste).")]
    util = f" --gpu-memory-utilization {m.utilization:g} x {m.total_gib:g} GiB =" if m.utilization is not None else ""
    said = (f"vLLM's startup memory check passes: {m.free_gib:g} of {m.total_gib:g} GiB free at startup, at least "
            f"the{util} {m.wanted_gib:g} GiB asked for; margin {m.margin_gib:.1f} GiB.")
    if m.margin_gib < THIN_MARGIN * m.total_gib:
        said += (" A thin margin: what is free at startup moves with other processes (and, on unified memory such "
                 "as a DGX Spark's GB10, with the OS's page cache), so a later start can fail this check; keep "
                 "--gpu-memory-utilization a little lower or free memory first.")
    return [ok(said)]


def _launch_failed(log: VllmLog) -> bool:
    """The log shows the launch raising: an error event, or a traceback."""
    return any(e.severity == "error" or e.kind == "traceback" for e in log.events)


def _kv_short(k: Any, log: VllmLog) -> str | None:
    """What is wrong when the KV cache cannot hold one request of the max model len (or nothing at all), else None.
    Blocks alone (vLLM before 0.6 prints ``# GPU blocks: N``) count 16 tokens each, the GPU's default block size."""
    tokens = k.tokens if k.tokens is not None else None if k.gpu_blocks is None else k.gpu_blocks * 16
    if tokens == 0:
        return ("No memory is left for the KV cache after the weights: vLLM stops with 'No available memory for the "
                "cache blocks'. Raise --gpu-memory-utilization (if no other process holds the GPU's memory), or use a "
                "smaller or quantized model, or more GPUs.")
    length = k.max_model_len or log.max_model_len
    if tokens is None or not length or tokens >= length or k.concurrency is not None:
        return None
    counted = "" if k.tokens is not None else " at the default 16 tokens a block"
    return (f"That is fewer tokens{counted} than one request of the max model len ({length:,}): vLLM refuses to start "
            f"('The model's max seq len ({length}) is larger than the maximum number of tokens that can be stored in "
            f"KV cache'). Lower --max-model-len to {tokens:,} or less, or give the KV cache more memory "
            "(--gpu-memory-utilization).")


def _kv_findings(log: VllmLog) -> list[Finding]:
    out: list[Finding] = []
    several = len(log.kv) > 1
    for k in log.kv:
        who = f" [{k.source.prefix}]" if several and k.source.prefix else ""
        dev = f"{k.device} " if k.device else ""
        if k.tokens is not None:
            msg = f"{dev}KV cache: {k.tokens:,} tokens{who}"
        elif k.gpu_blocks is not None:
            msg = (f"{dev}KV cache: {k.gpu_blocks:,} blocks{who} (x the block size, 16 tokens by default on GPU = "
                   f"{k.gpu_blocks * 16:,} tokens)")
            if k.cpu_blocks is not None:
                msg += f"; {k.cpu_blocks:,} CPU blocks of swap space"
        else:
            msg = f"KV cache{who}: the size line is missing (cut off?)"
        if k.concurrency is not None:
            msg += f"; maximum concurrency {k.concurrency:g}x for {k.max_model_len:,}-token requests" + (
                f" (the pool fits {int(k.concurrency):,} of that full length at once)" if k.concurrency >= 1 else "")
        short = _kv_short(k, log)
        if short is None:
            out.append(ok(msg + "."))
        else:  # no block at all, or a launch that failed: a failure; else a warning
            out.append((fail if k.gpu_blocks == 0 or _launch_failed(log) else warn)(f"{msg}. {short}"))
        ratio = k.tokens_per_length
        if ratio is not None and k.concurrency and abs(ratio - k.concurrency) > 0.02 * k.concurrency + 0.01:
            out.append(info(f"KV tokens / max model len = {ratio:.2f}, but vLLM reports {k.concurrency:g}x: before "
                            "vLLM 0.24 the concurrency is computed per KV-cache group, and for models with "
                            "sliding-window or hybrid layers the two differ. Trust the printed concurrency; do not "
                            "expect tokens = concurrency x length for this model."))
        if k.concurrency is not None and k.concurrency < 1:  # a failed launch (vLLM refuses it) fails; else a limit
            why = (", as the block count was overridden (--num-gpu-blocks-override)"
                   if "num_gpu_blocks_override" in (context().paste or "") else "")  # (a line the log reader skips)
            out.append((fail if not k.concurrency or _launch_failed(log) else warn)(
                f"Maximum concurrency {k.concurrency:g}x is below 1: not even one request of the full max model len "
                f"fits{why}. Lower --max-model-len or give the KV cache more memory."))
    if not log.kv and log.ready:
        out.append(info("No KV-cache capacity line in this log (it is printed once by the engine core, "
                        "`KV cache size: N tokens`): paste the log from the start to see it."))
    return out


def summarise_models(models: list, command: str | None) -> Summary:
    facts = {"models": [m.__dict__ for m in models]}
    if not models:
        return facts, [fail("The server lists no model: it is not serving yet, or this is not a vLLM server.")]
    findings = []
    for m in models:
        root = f" (loaded from {m.root})" if m.root and m.root != m.id else ""
        length = f", max model len {m.max_model_len:,} tokens" if m.max_model_len else ""
        findings.append(ok(f"Serving `{m.id}`{root}{length}: requests must name it as \"model\": \"{m.id}\"."))
    return facts, findings


# --------------------------------------------------------------------------- an answer

def distinct_share(text: str, n: int = 6) -> float:
    """The share of distinct ``n``-character pieces among all of ``text``'s (1.0: no piece repeats)."""
    pieces = [text[i:i + n] for i in range(len(text) - n + 1)]
    return len(set(pieces)) / len(pieces) if pieces else 1.0


MAX_CHOICES_SAID = 8
"""An answer with more choices (``n`` > 8) has the first said, and the count: the output stays bounded."""


def summarise_completion(c: Any, command: str | None) -> Summary:
    """The server's answer to one request: an error, an empty answer, or an answer that mostly repeats pieces of
    itself glued into long runs without blanks (checks/specs/serving.toml [answer], both figures: a list, code or a
    table repeats itself too, in words): the model's output is broken though the server and API work."""
    from ..calc.specs import row
    figures = row("serving.toml", "answer")
    shortest, floor = figures.graded("min_text_chars"), figures.graded("min_distinct_6gram_share")
    long_word, glued = figures.graded("long_word_chars"), figures.graded("min_long_word_share")
    facts = {"model": c.model, "finish_reasons": list(c.finish_reasons), "prompt_tokens": c.prompt_tokens,
             "completion_tokens": c.completion_tokens, "error": c.error, "truncated": c.truncated,
             "chars": [len(t) for t in c.texts]}
    if c.error:
        return facts, [fail(f"The server answered with an error, not a completion: {c.error[:300]}")]
    if not c.texts:
        return facts, [warn("The answer holds no choice: no text came back. Paste the whole answer.")]
    findings: list[Finding] = []
    tokens = f", {c.completion_tokens} tokens generated" if c.completion_tokens is not None else ""
    for i, text in enumerate(c.texts[:MAX_CHOICES_SAID]):
        which = f"Choice {i}" if len(c.texts) > 1 else "The answer"
        share = distinct_share(text)
        if None not in (shortest, floor, long_word, glued) and len(text) >= shortest and share < floor \
                and sum(len(w) for w in text.split() if len(w) >= long_word) >= glued * len(text):
            findings.append(fail(
                f"{which} is degenerate: it mostly repeats pieces of itself, glued into long runs without blanks "
                f"(only {share:.0%} of its 6-character pieces are distinct): `{' '.join(text[:80].split())}...`. The "
                "server took the request and answered, so the network, the port and the model name are fine; the "
                "model's output is broken. A quantized kernel this GPU or engine build does not run right (NVFP4 or "
                "FP8 on a new GPU such as the GB10), a wrong chat template, or a checkpoint the engine does not "
                "support makes this: try the model's other quantization or a model known to work, and a vLLM "
                "release that lists the model."))
        elif not text.strip():
            findings.append(warn(f"{which} is empty: the model stopped at once (a chat template that ends the turn, "
                                 "or a reasoning model whose text went to `reasoning_content`)."))
        else:
            findings.append(ok(f"{which}: `{' '.join(text[:80].split())}`{'...' if len(text) > 80 else ''} "
                               f"({len(text)} characters{tokens})."))
    if len(c.texts) > MAX_CHOICES_SAID:
        findings.append(info(f"{len(c.texts)} choices in all: the first {MAX_CHOICES_SAID} are said."))
    if "length" in c.finish_reasons:
        findings.append(info("finish_reason `length`: the answer stopped at max_tokens (or the context's end), "
                             "not where the model meant to."))
    if c.truncated:
        findings.append(info("The answer is cut off in this paste: the text shown was read."))
    return facts, findings


# --------------------------------------------------------------------------- /metrics

def _ms(x: float | None) -> str:
    return "?" if x is None else f"{x * 1000:.1f} ms"


def summarise_metrics(m: VllmMetrics, command: str | None) -> Summary:
    def hist(h: Any) -> dict[str, Any] | None:
        return None if h is None else {"name": h.name, "sum": h.sum, "count": h.count, "mean": h.mean}

    facts = {"requests_running": m.requests_running, "requests_waiting": m.requests_waiting,
             "kv_cache_usage": m.kv_cache_usage, "prompt_tokens": m.prompt_tokens,
             "generation_tokens": m.generation_tokens, "preemptions": m.preemptions,
             "ttft": hist(m.ttft), "tpot": hist(m.tpot), "itl": hist(m.itl), "e2e": hist(m.e2e),
             "request_success": m.request_success, "requests_finished": m.requests_finished,
             "cache_config": m.cache_config, "models": list(m.models), "engines": list(m.engines),
             "truncated": m.truncated}
    findings: list[Finding] = []
    if m.models:
        findings.append(info(f"Metrics of {', '.join(m.models)}" + (f" ({len(m.engines)} engines)"
                                                                    if len(m.engines) > 1 else "") + "."))
    if m.requests_running is not None or m.requests_waiting is not None:
        findings.append(info(f"Requests now: {fmt_count(m.requests_running)} running, {fmt_count(m.requests_waiting)} waiting."))
        if (m.requests_waiting or 0) > 0:
            findings.append(warn(f"{fmt_count(m.requests_waiting)} request(s) wait for a slot: the batch is full (KV "
                                 "cache or --max-num-seqs); TTFT grows with the queue."))
    if m.kv_cache_usage is not None:
        pct = m.kv_cache_usage * 100
        findings.append((warn if pct >= 90 else info)(f"KV cache usage {pct:.1f}%" + (
            ": near full, new requests wait or running ones are preempted." if pct >= 90 else ".")))
    if m.prompt_tokens is not None or m.generation_tokens is not None:
        findings.append(info(f"Tokens so far: {fmt_count(m.prompt_tokens)} prompt, {fmt_count(m.generation_tokens)} generated."))
    if m.request_success:
        parts = ", ".join(f"{k} {fmt_count(v)}" for k, v in m.request_success.items() if v)
        findings.append(info(f"Finished requests: {fmt_count(m.requests_finished)}" + (f" ({parts})" if parts else "") + "."))
        if m.request_success.get("error") or m.request_success.get("abort"):
            findings.append(warn("Some requests ended with error or abort: see the server log."))
    lat = []
    for label, h in (("TTFT", m.ttft), ("TPOT", m.tpot), ("ITL", m.itl), ("end-to-end", m.e2e)):
        if h is not None and h.mean is not None:
            lat.append(f"{label} {_ms(h.mean)} (over {fmt_count(h.count)})")
    if lat:
        findings.append(info("Mean latencies since start (histogram sum / count): " + ", ".join(lat) + "."))
    if m.preemptions:
        findings.append(warn(f"{fmt_count(m.preemptions)} preemption(s): the KV cache ran out under load and requests "
                             "were recomputed; lower --max-num-seqs or give the KV cache more memory."))
    cc = m.cache_config
    if cc:
        bits = [f"{k}={cc[k]}" for k in ("block_size", "gpu_memory_utilization", "num_gpu_blocks",
                                         "kv_cache_size_tokens", "kv_cache_memory_bytes", "cache_dtype") if k in cc]
        if bits:
            findings.append(info("Cache config: " + ", ".join(bits) + "."))
    if m.truncated:
        findings.append(info("The output is cut off at the end: the complete lines were read."))
    return facts, findings


def _unified_share(utilization: float | None) -> list[Finding]:
    """On a DGX Spark (``explain --host spark``), a --gpu-memory-utilization above the share vLLM's GB10 recipe gives
    vLLM (checks/specs/gpus.toml [dgx_spark] vllm_gpu_memory_utilization): the GPU's memory is the system's, so what
    vLLM takes the OS, its page cache and every other process lose: a note up to vllm_gpu_memory_utilization_risky,
    a warning above it."""
    from ..calc.specs import match_gpu
    spec = match_gpu("GB10") if utilization is not None and on_spark(None) else None
    share = spec.graded("vllm_gpu_memory_utilization") if spec is not None else None
    if share is None or utilization <= share:
        return []
    total, risky = spec.graded("cuda_memory_gib"), spec.graded("vllm_gpu_memory_utilization_risky")
    left = f", leaving about {total * (1 - utilization):.0f} of {total:g} GiB" if total else ""
    return [(info if risky is not None and utilization <= risky else warn)(
        f"--gpu-memory-utilization {utilization:g} on a DGX Spark: above the {share:g} vLLM's GB10 recipe "
                 f"gives vLLM{left} for the OS, its page cache and every other process, since the GPU's memory is the "
                 "system's (checks/specs/gpus.toml [dgx_spark]). A longer context, a second process or a cached file "
                 f"then starves the host (owners report freezes and resets): keep it at {share:g} or lower.")]


def _one_stream_pace(log: VllmLog) -> list[Finding]:
    """The engine's own stats of one request decoding alone (1 running, none waiting, no prompt tokens in the window):
    a note when even the best such window decodes slower than a person reads (checks/specs/serving.toml [load]
    reading_tpot_ms): one step of the whole model takes that long, which a large dense model on few GPUs may by
    memory bandwidth alone (the corpus's m011: 128B dense on two Sparks at 2-3 tok/s), so no fault is told."""
    alone = [s.generation_tokens_per_s for s in log.stats if s.running == 1 and not s.waiting
             and s.prompt_tokens_per_s == 0 and s.generation_tokens_per_s > 0]
    reading = row("serving.toml", "load").graded("reading_tpot_ms")
    if not alone or not reading or max(alone) * reading >= 1000:
        return []
    best = max(alone)
    return [info(f"One request decoded alone at {best:g} tok/s at best (the engine's stats with 1 running, none "
                 f"waiting and no prompt in the window): one token every {1000 / best:.0f} ms, slower than a person "
                 f"reads ({reading:g} ms a token, checks/specs/serving.toml [load]). For one stream that is one step "
                 "of the whole model: its weights read once from memory per token (a large dense model on a few GPUs "
                 "is that slow by the memory's bandwidth alone), pipeline stages taking their turns, and across "
                 "machines the link's waits (NCCL over TCP sockets or the house network make it slower still).")]
