"""Parsers for a vLLM server's HTTP answers: ``GET /v1/models``, ``GET /metrics`` and an answer of
``POST /v1/chat/completions`` or ``/v1/completions``.

``/v1/models`` (OpenAI-compatible list, vLLM adds ``root`` and ``max_model_len``; the real
answer is in shared/fixtures/real/vllm-cpu/08_*)::

    {"object":"list","data":[{"id":"/models/tiny-llama","object":"model","created":1795959961,
     "owned_by":"vllm","root":"/models/tiny-llama","parent":null,"max_model_len":512,"permission":[...]}]}

``/metrics`` is the Prometheus text format, read with ``prometheus_client``'s own parser
(``prometheus_client.parser.text_string_to_metric_families``), sample by sample, so that it works
whether or not the ``# TYPE`` lines were pasted. vLLM names, current (V1, 0.8-0.33; the real
answer in vllm-cpu/09_*) and older (V0, up to 0.10) side by side:

=========================  =============================================  =========================================
field                      current name                                   older / other names
=========================  =============================================  =========================================
requests_running           ``vllm:num_requests_running`` (gauge)          same
requests_waiting           ``vllm:num_requests_waiting`` (gauge)          same
kv_cache_usage             ``vllm:kv_cache_usage_perc`` (0-1)             ``vllm:gpu_cache_usage_perc`` (V0, early V1)
prompt_tokens              ``vllm:prompt_tokens_total`` (counter)         same
generation_tokens          ``vllm:generation_tokens_total`` (counter)     same
ttft                       ``vllm:time_to_first_token_seconds``           same
tpot                       ``vllm:request_time_per_output_token_seconds`` ``vllm:time_per_output_token_seconds`` (V0)
itl                        ``vllm:inter_token_latency_seconds``           ``vllm:time_per_output_token_seconds`` (V0,
                                                                          which was per token, i.e. an ITL)
e2e                        ``vllm:e2e_request_latency_seconds``           same
=========================  =============================================  =========================================

``vllm_`` in place of ``vllm:`` (exporters that rewrite colons) is read too. Samples of several
engines (DP) or models are summed (counters, histograms, running/waiting) or maxed (KV usage).
Units: seconds for latencies, tokens for token counts, a fraction (0-1; 1 = 100 %) for KV usage.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .common import (ParseError, as_int, content_lines, fail_on_line, find_json_start, json_dig,
                     load_json_lenient, raise_if_shell_error)

MODELS_COMMAND = "curl /v1/models"
METRICS_COMMAND = "curl /metrics"

_CURL_ERROR_RE = re.compile(r"^curl: \(\d+\)\s*(?P<msg>.*)$")
_PLACEHOLDER_RE = re.compile(r"\{\s*(?:\.\.\.|…)\s*\}|\[\s*(?:\.\.\.|…)\s*\]")


def _curl_error(lines: list, command: str) -> None:
    for line in lines:
        m = _CURL_ERROR_RE.match(line.text.strip())
        if m:
            raise fail_on_line(command, line, f"curl could not reach the server ({m.group('msg')}): vLLM is not "
                               "running on that host and port, is still loading (wait for `Application startup "
                               "complete`), or listens on another address (--host 0.0.0.0 to be reachable from "
                               "the other node)")


# --------------------------------------------------------------------------- /v1/models

@dataclass(frozen=True)
class ServedModel:
    """One entry of ``/v1/models``: ``id`` (the name requests must use: the model path, or
    ``--served-model-name``), ``root`` (the model it was loaded from), ``max_model_len`` in
    tokens (None when the server does not say), ``owned_by``, ``parent`` (the base model of a
    LoRA adapter, else None)."""

    id: str
    root: str | None = None
    max_model_len: int | None = None
    owned_by: str | None = None
    parent: str | None = None


def parse_models(text: str) -> list[ServedModel]:
    """Parse the JSON of ``GET /v1/models`` into the served models, in order.

    Accepts pretty-printed JSON (``| jq``), a cut-off paste (the complete entries are read),
    and placeholders an author put in (``"permission":[{...}]``). Raises ParseError for a
    curl error (server unreachable), an error answer (``{"object":"error",...}``,
    ``{"detail":"Not Found"}``), JSON without a ``data`` list, or no JSON at all.
    """
    lines = content_lines(text)
    raise_if_shell_error(lines, MODELS_COMMAND)
    _curl_error(lines, MODELS_COMMAND)
    start = find_json_start(lines)
    if start is None:
        first = lines[0] if lines else None
        if first is None:
            raise ParseError(MODELS_COMMAND, "the output is empty")
        raise fail_on_line(MODELS_COMMAND, first, "no JSON found (expected {\"object\":\"list\",\"data\":[...]})")
    body = "\n".join(x.text for x in lines[start:])
    body = _PLACEHOLDER_RE.sub(lambda m: "{}" if m.group(0).startswith("{") else "[]", body)
    value, _ = load_json_lenient(body, MODELS_COMMAND, lines[start].no)
    if isinstance(value, dict) and (value.get("object") == "error" or "detail" in value or "error" in value):
        msg = value.get("message") or value.get("detail") or json_dig(value, "error", "message") or value
        raise fail_on_line(MODELS_COMMAND, lines[start], f"the server answered with an error: {msg} (is this the "
                           "vLLM port, and the path /v1/models?)")
    data = value.get("data") if isinstance(value, dict) else value if isinstance(value, list) else None
    if not isinstance(data, list):
        raise fail_on_line(MODELS_COMMAND, lines[start], "the JSON has no `data` list of models")
    models = []
    for entry in data:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            continue
        models.append(ServedModel(entry["id"], _str(entry.get("root")), as_int(entry.get("max_model_len")),
                                  _str(entry.get("owned_by")), _str(entry.get("parent"))))
    return models


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def is_models_json(value: Any) -> bool:
    """True for the JSON of ``/v1/models`` (an OpenAI-style list of ``object: model`` entries)."""
    if not isinstance(value, dict) or not isinstance(value.get("data"), list):
        return False
    data = value["data"]
    return value.get("object") == "list" and (not data or all(
        isinstance(x, dict) and "id" in x and (x.get("object") == "model" or "max_model_len" in x) for x in data))


# --------------------------------------------------------------------------- /v1/chat/completions

COMPLETION_COMMAND = "curl /v1/chat/completions"
_HALF_ESCAPE_RE = re.compile(r"(?<!\\)\\(?:u[0-9a-fA-F]{0,3})?$")
_CUT_TEXT_RE = re.compile(r'"(?:content|text)"\s*:\s*"(?P<text>(?:[^"\\]|\\.)*)\\?$', re.S)


@dataclass(frozen=True)
class Completion:
    """One OpenAI-style answer: ``texts`` the choices' text (a chat answer's ``message.content``, else its
    ``reasoning_content``; a completion's ``text``), ``finish_reasons`` (``stop``, ``length``; None where not shown),
    ``prompt_tokens`` and ``completion_tokens`` from ``usage`` (None where not shown), ``model``, ``error`` the
    server's message when it answered with an error instead, ``truncated`` when the paste ends inside the JSON (a
    text cut with it is read up to the cut)."""

    model: str | None
    texts: tuple[str, ...]
    finish_reasons: tuple[str | None, ...]
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    error: str | None = None
    truncated: bool = False


def is_completion_json(value: Any) -> bool:
    """True for the JSON of an answer of ``/v1/chat/completions`` or ``/v1/completions``, or of vLLM's error answer
    (``{"object": "error", "message": ...}``), which a request gets back in its place."""
    return isinstance(value, dict) and (value.get("object") in ("chat.completion", "text_completion") or (
        value.get("object") == "error" and isinstance(value.get("message"), str)))


def parse_completion(text: str) -> Completion:
    """Parse the JSON a server answered a completion request with (pretty-printed or one line, cut off or whole).
    Raises ParseError for a curl error (server unreachable) or no JSON."""
    lines = content_lines(text)
    raise_if_shell_error(lines, COMPLETION_COMMAND)
    _curl_error(lines, COMPLETION_COMMAND)
    start = find_json_start(lines)
    if start is None and any(x.text.startswith("data: {") for x in lines):
        return _from_stream(lines)
    if start is None:
        raise ParseError(COMPLETION_COMMAND, "no JSON found (expected the server's answer, {\"id\": ...})")
    body = _HALF_ESCAPE_RE.sub("", "\n".join(x.text for x in lines[start:]))  # a paste cut inside an escape
    value, truncated = load_json_lenient(body, COMPLETION_COMMAND, lines[start].no)
    if not isinstance(value, dict):
        raise fail_on_line(COMPLETION_COMMAND, lines[start], "the JSON is not an object")
    error = value.get("message") if value.get("object") == "error" else json_dig(value, "error", "message") \
        or (value["error"] if isinstance(value.get("error"), str) else None) or value.get("detail")
    listed = value.get("choices")
    choices = [c for c in listed if isinstance(c, dict)] if isinstance(listed, list) else []
    texts = [_choice_text(c) for c in choices]
    if truncated and (cut := _CUT_TEXT_RE.search(body)):  # the paste ends inside a text: read it up to the cut
        texts = texts[:-1] if texts and texts[-1] == "" else texts
        texts.append(_unescape(cut.group("text")))
    usage = value.get("usage") if isinstance(value.get("usage"), dict) else {}
    return Completion(_str(value.get("model")), tuple(texts), tuple(_str(c.get("finish_reason")) for c in choices),
                      as_int(usage.get("prompt_tokens")), as_int(usage.get("completion_tokens")),
                      str(error) if error else None, truncated)


def _from_stream(lines: list) -> Completion:
    """A streamed answer (``"stream": true``): server-sent events, ``data: {...chat.completion.chunk...}`` lines, each
    adding a piece of text (``choices[0].delta.content``, or ``text``) until ``data: [DONE]``; ``truncated`` without it."""
    pieces: dict[int, list[str]] = {}
    reasons: dict[int, str | None] = {}
    model, usage, done = None, {}, False
    for line in lines:
        body = line.text[len("data: "):].strip() if line.text.startswith("data: ") else None
        if body == "[DONE]":
            done = True
        if not body or not body.startswith("{"):
            continue
        try:
            chunk = json.loads(body)
        except ValueError:
            continue
        if not isinstance(chunk, dict):
            continue
        model = model or _str(chunk.get("model"))
        usage = chunk["usage"] if isinstance(chunk.get("usage"), dict) else usage
        for c in chunk.get("choices") if isinstance(chunk.get("choices"), list) else []:
            if not isinstance(c, dict):
                continue
            i = c.get("index") if isinstance(c.get("index"), int) else 0
            delta = c.get("delta") if isinstance(c.get("delta"), dict) else {}
            piece = delta.get("content") if isinstance(delta.get("content"), str) else c.get("text")
            pieces.setdefault(i, []).append(piece if isinstance(piece, str) else "")
            reasons[i] = _str(c.get("finish_reason")) or reasons.get(i)
    if not pieces:
        raise ParseError(COMPLETION_COMMAND, "a stream of `data:` lines with no completion chunk in it")
    order = sorted(pieces)
    return Completion(model, tuple("".join(pieces[i]) for i in order), tuple(reasons.get(i) for i in order),
                      as_int(usage.get("prompt_tokens")), as_int(usage.get("completion_tokens")), None, not done)


def _choice_text(choice: dict) -> str:
    message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
    for x in (message.get("content"), message.get("reasoning_content"), choice.get("text")):
        if isinstance(x, str) and x:
            return x
    return ""


def _unescape(raw: str) -> str:
    """A JSON string's body cut anywhere, decoded (an escape cut in half is dropped)."""
    for end in range(len(raw), max(len(raw) - 6, -1), -1):
        try:
            return json.loads(f'"{raw[:end]}"')
        except ValueError:
            continue
    return raw


# --------------------------------------------------------------------------- /metrics

@dataclass(frozen=True)
class Histogram:
    """A Prometheus histogram's ``_sum`` (seconds, or tokens) and ``_count``; ``mean`` = sum / count
    (None when count is 0). ``name`` is the metric it came from."""

    name: str
    sum: float
    count: float

    @property
    def mean(self) -> float | None:
        return self.sum / self.count if self.count else None


@dataclass(frozen=True)
class VllmMetrics:
    """The vLLM metrics that matter, from one ``/metrics`` answer (see the module docstring for
    the names read). Each is None when the answer does not have it.

    ``kv_cache_usage`` is a fraction (0-1). ``request_success`` maps ``finished_reason`` (stop,
    length, abort, error, repetition) to a count. ``cache_config`` the labels of
    ``vllm:cache_config_info`` (block_size, gpu_memory_utilization, num_gpu_blocks or
    kv_cache_size_tokens, ... as strings). ``models`` the ``model_name`` labels seen,
    ``engines`` the ``engine`` labels. ``names`` every vLLM metric name seen (samples and
    ``# TYPE`` lines). ``truncated`` when the last line was cut off (its complete labels are
    still read for ``cache_config``); ``skipped`` lines that are not Prometheus text.
    """

    requests_running: float | None = None
    requests_waiting: float | None = None
    kv_cache_usage: float | None = None
    prompt_tokens: float | None = None
    generation_tokens: float | None = None
    preemptions: float | None = None
    ttft: Histogram | None = None
    tpot: Histogram | None = None
    itl: Histogram | None = None
    e2e: Histogram | None = None
    request_success: dict[str, float] = field(default_factory=dict)
    cache_config: dict[str, str] = field(default_factory=dict)
    models: tuple[str, ...] = ()
    engines: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    truncated: bool = False
    skipped: tuple[int, ...] = ()

    @property
    def requests_finished(self) -> float | None:
        """All finished requests (sum over finished_reason), None when not reported."""
        return sum(self.request_success.values()) if self.request_success else None


_SAMPLE_START_RE = re.compile(r"^[A-Za-z_:][\w:]*(?:\{|\s+[-+\dNI])")
_META_RE = re.compile(r"^#\s*(?:HELP|TYPE)\s+(?P<name>[A-Za-z_:][\w:]*)")
# A label key starts at the first letter or _ of a word (the look-behind and the skipped lead keep a search
# from starting again at each character of a long word: quadratic); the value gives nothing back.
_LABEL_RE = re.compile(r'(?<!\w)(?:(?![A-Za-z_])\w)*+(?P<k>[A-Za-z_]\w*+)="(?P<v>(?:[^"\\]++|\\.)*+)"')


def _canonical(name: str) -> str:
    """``vllm_x`` -> ``vllm:x``; other names unchanged."""
    return "vllm:" + name[5:] if name.startswith("vllm_") else name


def parse_metrics(text: str) -> VllmMetrics:
    """Parse a ``/metrics`` answer (Prometheus text format) into VllmMetrics.

    Lines that are not Prometheus text (a ``--- samples`` note, shell chatter) are skipped and
    listed in ``skipped``; a last line cut off mid-sample is dropped (``truncated``), its
    complete labels kept when it is ``cache_config_info``. Raises ParseError for curl errors,
    a sample line in the middle that prometheus_client cannot read, or an answer with no
    ``vllm:`` metric at all (the wrong port, or not a vLLM server).
    """
    from prometheus_client.parser import text_string_to_metric_families

    lines = content_lines(text, keep_comments=True)
    raise_if_shell_error([x for x in lines if not x.text.lstrip().startswith("#")], METRICS_COMMAND)
    _curl_error(lines, METRICS_COMMAND)
    skipped: list[int] = []
    names: list[str] = []
    truncated = False
    cut_labels: dict[str, str] = {}
    samples: dict[str, list[tuple[dict[str, str], float]]] = {}
    sample_lines = [x for x in lines if _SAMPLE_START_RE.match(x.text.strip())]
    last = sample_lines[-1] if sample_lines else None
    for line in lines:
        s = line.text.strip()
        meta = _META_RE.match(s)
        if meta:
            names.append(_canonical(meta.group("name")))
            continue
        if s.startswith("#") or not s:
            continue
        if not _SAMPLE_START_RE.match(s):
            skipped.append(line.no)
            continue
        try:
            parsed = list(text_string_to_metric_families(s + "\n"))
        except (ValueError, IndexError, KeyError, TypeError) as err:
            if line is last:
                truncated = True
                if "cache_config_info" in s:
                    cut_labels = {m.group("k"): m.group("v") for m in _LABEL_RE.finditer(s)}
                continue
            raise fail_on_line(METRICS_COMMAND, line, f"not a Prometheus sample ({err})") from None
        for fam in parsed:
            for sample in fam.samples:
                samples.setdefault(_canonical(sample.name), []).append((dict(sample.labels), float(sample.value)))
    vllm_names = sorted({n for n in list(samples) + names if n.startswith("vllm:")})
    if not vllm_names:
        first = next((x for x in lines if x.text.strip()), None)
        if first is None:
            raise ParseError(METRICS_COMMAND, "the output is empty")
        raise fail_on_line(METRICS_COMMAND, first, "no vLLM metric (vllm:*) in this output: is this the vLLM "
                           "server's port?")
    return _metrics(samples, vllm_names, truncated, tuple(skipped), cut_labels)


def _total(samples: dict, *names: str) -> float | None:
    for name in names:
        if name in samples:
            return sum(v for _, v in samples[name])
    return None


def _maximum(samples: dict, *names: str) -> float | None:
    for name in names:
        if name in samples:
            return max(v for _, v in samples[name])
    return None


def _histogram(samples: dict, *bases: str) -> Histogram | None:
    for base in bases:
        if base + "_count" in samples or base + "_sum" in samples:
            return Histogram(base, _total(samples, base + "_sum") or 0.0, _total(samples, base + "_count") or 0.0)
    return None


def _metrics(samples: dict, names: list[str], truncated: bool, skipped: tuple[int, ...],
             cut_labels: dict[str, str]) -> VllmMetrics:
    success: dict[str, float] = {}
    for labels, value in samples.get("vllm:request_success_total", []):
        reason = labels.get("finished_reason", "")
        success[reason] = success.get(reason, 0.0) + value
    cache = {}
    for labels, _ in samples.get("vllm:cache_config_info", []):
        cache.update(labels)
    if not cache and cut_labels:
        cache = cut_labels
    models, engines = [], []
    for entries in samples.values():
        for labels, _ in entries:
            if "model_name" in labels:
                models.append(labels["model_name"])
            if "engine" in labels:
                engines.append(labels["engine"])
    return VllmMetrics(
        requests_running=_total(samples, "vllm:num_requests_running"),
        requests_waiting=_total(samples, "vllm:num_requests_waiting"),
        kv_cache_usage=_maximum(samples, "vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"),
        prompt_tokens=_total(samples, "vllm:prompt_tokens_total"),
        generation_tokens=_total(samples, "vllm:generation_tokens_total"),
        preemptions=_total(samples, "vllm:num_preemptions_total"),
        ttft=_histogram(samples, "vllm:time_to_first_token_seconds"),
        tpot=_histogram(samples, "vllm:request_time_per_output_token_seconds", "vllm:time_per_output_token_seconds"),
        itl=_histogram(samples, "vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds"),
        e2e=_histogram(samples, "vllm:e2e_request_latency_seconds"),
        request_success=success, cache_config=cache,
        models=tuple(dict.fromkeys(models)), engines=tuple(dict.fromkeys(engines)),
        names=tuple(names), truncated=truncated, skipped=skipped)
