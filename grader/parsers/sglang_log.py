"""Parser for an SGLang server's start-up log (``python -m sglang.launch_server``, ``sglang serve``): the memory it
found, what its weights and KV pool took, and whether it came up.

Shape (SGLang 0.4-0.5; blind batch zm012, jethac/dgx-spark-llm-bench on a GB10; each line after a ``[date time]`` or
``[date time TPn]`` tag)::

    [2026-06-07 11:57:01] ... Reported total GPU memory per device (MiB): [122501], using min: 122501 MiB.
    [2026-06-07 11:57:02] server_args=ServerArgs(model_path='Qwen/Qwen2.5-1.5B-Instruct', ..., mem_fraction_static=0.8, ...)
    [2026-06-07 11:57:10] Load weight begin. avail mem=16.48 GB
    [2026-06-07 11:57:43] Load weight end. elapsed=33.49 s, type=Qwen2ForCausalLM, avail mem=13.46 GB, mem usage=3.01 GB.
    [2026-06-07 11:57:43] KV Cache is allocated. #tokens: 6827, K size: 0.09 GB, V size: 0.09 GB
    [2026-06-07 11:58:16] max_total_num_tokens=6827, chunked_prefill_size=8192, ..., context_len=32768, available_gpu_mem=8.34 GB
    [2026-06-07 11:58:16] The server is fired up and ready to roll!

SGLang's ``GB`` are GiB (its memory figures are bytes / 2**30). Lines of other programs around it are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import ParseError, content_lines

CMD = "sglang"

TAG_RE = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?: (?:TP|DP|PP|EP)\d{1,3})*\] ")
"""SGLang's line tag: ``[2026-06-07 11:57:08]``, a worker's ``[2026-06-07 11:57:08 TP0]``."""
_TOTAL_RE = re.compile(r"total GPU memory per device \(MiB\): \[(?P<mib>\d+)")
_LOAD_BEGIN_RE = re.compile(r"^Load weight begin\. avail mem=(?P<gib>\d+(?:\.\d+)?) GB")
_LOAD_END_RE = re.compile(r"^Load weight end\.[^\n]{0,200}?mem usage=(?P<gib>\d+(?:\.\d+)?) GB")
_POOL_END_RE = re.compile(r"^Memory pool end\. avail mem=(?P<gib>\d+(?:\.\d+)?) GB")
_KV_RE = re.compile(r"^KV Cache is allocated\. #tokens: (?P<tokens>\d+)")
_BUDGET_RE = re.compile(r"^max_total_num_tokens=(?P<tokens>\d+),[^\n]{0,300}?\bcontext_len=(?P<context>\d+)")
_RUNNING_RE = re.compile(r"\bmax_running_requests=(?P<n>\d+)")
_CAPPED_RE = re.compile(r"^max_running_requests is capped to (?P<cap>\d+) by the (?P<by>[\w ]{1,40}?) state cache"
                        r"(?: \((?P<what>\w{1,40})=(?P<size>\d+), (?P<per>\d+) state slots? per request\))?")
"""SGLang's start-up cap of a hybrid (mamba/linear-attention) model's concurrency: ``max_running_requests is capped to 12
by the mamba state cache (max_mamba_cache_size=64, 5 state slots per request). To raise it: ...`` (blind batch wp008,
wp009: read tagged, and untagged as posters quote it)."""
_UNTAGGED = (re.compile(r"^max_total_num_tokens=\d+, "), _CAPPED_RE)
"""SGLang's messages read without the ``[date time]`` tag too (a poster quotes the one line): each is SGLang's own."""
_ARG_RE = re.compile(r"\b(?P<name>model_path|mem_fraction_static|tp_size|context_length)=(?P<value>'[^']{0,300}'|[\w.]+)")
_READY = ("The server is fired up and ready to roll!", "Application startup complete")


@dataclass(frozen=True)
class SglangLog:
    """What an SGLang start-up log says: ``total_mib`` (CUDA's total per GPU), ``free_at_load_gib`` (``avail mem`` when
    the weights began to load), ``weights_gib`` (their ``mem usage``), ``kv_tokens`` (the KV pool, ``#tokens`` or
    ``max_total_num_tokens``), ``context_len`` (the model's context it serves), ``args`` (model_path, tp_size,
    mem_fraction_static, context_length as given), ``ready`` (it came up), ``tagged`` (how many tagged lines)."""

    total_mib: int | None = None
    free_at_load_gib: float | None = None
    weights_gib: float | None = None
    free_after_pool_gib: float | None = None  # ``Memory pool end. avail mem=16.08 GB``: left after the KV pool
    kv_tokens: int | None = None
    context_len: int | None = None
    args: tuple[tuple[str, str], ...] = ()
    ready: bool = False
    tagged: int = 0
    max_running: int | None = None
    """``max_running_requests`` of the scheduler's budget line: the most requests it runs at once."""
    capped: tuple[int, str, int | None, int | None] | None = None
    """A cap on that by a state cache: (the cap, the cache (``mamba``), its slots, the slots each request takes)."""


def parse_sglang_log(text: str) -> SglangLog:
    """Read an SGLang server's log (module docstring). Raises ParseError when no line has SGLang's tag."""
    found: dict = {"args": {}}
    tagged = 0
    lines = content_lines(text)
    for i, line in enumerate(lines):
        s = line.text.strip()
        tag = TAG_RE.match(s)
        if tag is None and not any(r.match(s) for r in _UNTAGGED):
            continue
        tagged += 1
        msg = s[tag.end():] if tag else s
        wrapped = msg.startswith("max_total_num_tokens=") and "context_len=" not in msg or msg.startswith(
            "max_running_requests is capped") and "(" not in msg  # (a poster's wrap of the line: its rest below)
        if wrapped and i + 1 < len(lines) and not TAG_RE.match(lines[i + 1].text.strip()):
            msg += " " + lines[i + 1].text.strip()[:400]
        if m := _RUNNING_RE.search(msg) if msg.startswith("max_total_num_tokens=") else None:
            found["max_running"] = int(m.group("n"))
        if m := _CAPPED_RE.match(msg):
            found["capped"] = (int(m.group("cap")), m.group("by"), int(m.group("size")) if m.group("size") else None,
                               int(m.group("per")) if m.group("per") else None)
        if m := _TOTAL_RE.search(msg):
            found.setdefault("total_mib", int(m.group("mib")))
        elif m := _LOAD_BEGIN_RE.match(msg):
            found.setdefault("free_at_load_gib", float(m.group("gib")))
        elif m := _LOAD_END_RE.match(msg):
            found.setdefault("weights_gib", float(m.group("gib")))
        elif m := _KV_RE.match(msg):
            found.setdefault("kv_tokens", int(m.group("tokens")))
        elif m := _POOL_END_RE.match(msg):
            found.setdefault("free_after_pool_gib", float(m.group("gib")))
        elif m := _BUDGET_RE.match(msg):
            found["kv_tokens"] = int(m.group("tokens"))
            found["context_len"] = int(m.group("context"))
        elif msg.startswith("server_args=ServerArgs("):
            found["args"] = {m.group("name"): m.group("value").strip("'") for m in _ARG_RE.finditer(msg[:20000])}
        elif any(r in msg for r in _READY):
            found["ready"] = True
    if not tagged:
        raise ParseError(CMD, "no SGLang log line found (`[YYYY-MM-DD HH:MM:SS] ...`, a worker's with `TP0`): paste "
                              "the server's log from its start")
    args = found.pop("args")
    return SglangLog(**found, args=tuple(args.items()), tagged=tagged)
