"""Requests an SGLang server refused, read from its log: ``Input length (N tokens) exceeds the maximum allowed length
(M tokens). Use a shorter input or enable --allow-auto-truncate.`` (sglang/srt/managers/utils.py,
validate_input_length). SGLang's longest input is the lower of its context length and its KV pool (less a few
tokens): where the pool is the bound, every prompt longer than it is refused, so the server cannot do its work (a
fail); at the context length it is the client's prompt that is too long (a warn: that request failed). And a stop from
outside: ``SIGTERM received. ... Draining requests and shutting down...`` (its SignalHandler), after which a child's
``exit code -15`` and the SIGQUIT lines follow from that signal."""

from __future__ import annotations

import re
from typing import Any

from .common import fail, info, warn
from .model import Finding

_REFUSED_RE = re.compile(r"Input length \((?P<n>\d{1,9}) tokens\) exceeds the maximum allowed length "
                         r"\((?P<m>\d{1,9}) tokens\)")

_SIGTERM_RE = re.compile(r"\bSIGTERM received\b[^\n]{0,120}?\bshutting down", re.IGNORECASE)


def stopped_by_sigterm(text: str) -> list[Finding]:
    """A note where ``text`` (the SGLang log) shows the server told to stop by SIGTERM, else none (also none where an
    exception came before it: then the stop may be a launcher's answer to that failure, which its own finding reads)."""
    if not (m := _SIGTERM_RE.search(text)) or "Traceback (most recent call last)" in text[:m.start()]:
        return []
    return [info("The server was stopped from outside: `SIGTERM received ... Draining requests and shutting down` "
                 "(`docker stop`, Ctrl-C to its launcher, a job scheduler or a service manager sends it). An orderly "
                 "shutdown: a child's `exit code -15` (-15 is SIGTERM) and the SIGQUIT lines after it follow from that "
                 "signal, not a crash of their own.")]


def refused_for_length(log: Any, text: str) -> list[Finding]:
    """One finding for the requests ``text`` (the SGLang log) shows refused for their length, else none."""
    found = [(int(m.group("n")), int(m.group("m"))) for m in _REFUSED_RE.finditer(text)]
    if not found:
        return []
    longest, limit = max(found)
    times = f"{len(found)} requests were" if len(found) > 1 else "A request was"
    said = (f"{times} refused for length (`Input length ({longest} tokens) exceeds the maximum allowed length "
            f"({limit} tokens)`): ")
    kv, ctx = log.kv_tokens, log.context_len
    if kv is not None and ctx and kv < ctx and limit <= kv:
        return [fail(said + f"the longest input this server takes is {limit:,} tokens, set by its KV pool of "
                     f"{kv:,} tokens, not by the {ctx:,}-token context it serves, so any longer prompt fails. Give "
                     "the KV pool more memory (free the GPU, raise --mem-fraction-static) and start it again.")]
    if kv is None or not ctx:
        return [warn(said + f"this server takes at most {limit:,} tokens of input. Its start-up lines (`KV Cache is "
                     "allocated. #tokens:` and `max_total_num_tokens=..., context_len=`) say which sets that: a KV "
                     "pool smaller than the context (raise --mem-fraction-static) or the context length itself (the "
                     "prompt is too long: shorten it or start with --allow-auto-truncate).")]
    return [warn(said + f"the prompt was longer than the {limit:,} tokens this server takes (its context length, "
                 "less the tokens it keeps for the answer). The client sent too long a prompt: shorten it, raise "
                 "--context-length (up to what the model supports) or start with --allow-auto-truncate.")]
