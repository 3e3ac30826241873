"""Conditions of checks/diagnoses.toml entries on GPU memory and CUDA's errors that need the rest of the paste around
the matched line (an entry's ``detail``, beside grader.diagnosis_paste, whose PASTE_DETAILS holds these): PyTorch's
allocator warning read by what followed it, a CUDA error read by its own name, llama.cpp's retry without pipeline
parallelism. Each a function of the log (None for plain text), the values read so far and the whole text, returning
more values for the entry's texts, or None where the entry does not apply. Never words or figures: those are the
table's.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, Mapping

from grader.judges.context import context
from grader.parsers.common.spans import last_match, line_at
from grader.parsers.vllm_scan import SERVER_UP_RE

if TYPE_CHECKING:
    from grader.parsers.vllm_log import VllmLog


_ALLOC_OOM_RE = re.compile(r"memory (?:mapping|allocation) failed with OOM on device \d")
_KV_SIZED_RE = re.compile(r"GPU KV cache size: [\d,]+ tokens|# GPU blocks: \d|Available KV cache memory: [\d.]+ GiB")


_C10_WHEN_RE = re.compile(r"\[[WIE](\d\d)(\d\d) (\d\d:\d\d:\d\d)")
_VLLM_WHEN_RE = re.compile(r"\b(\d\d)-(\d\d) (\d\d:\d\d:\d\d)\b")


def _when(line: str, pattern: re.Pattern[str]) -> tuple[str, str, str] | None:
    return m.groups() if (m := pattern.search(line)) else None


def _sized_after_retry(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the allocator's last out-of-memory warning comes before vLLM sized its KV cache and the server came
    up (blind batch vf005: weight loading on two 24 GB cards, then 103,760 tokens of KV cache and the server up): before
    it in the paste, and by their time stamps where both print one (lines of several processes arrive out of order:
    break-it 26 F4)."""
    last = last_match(_ALLOC_OOM_RE, text)
    sized = _KV_SIZED_RE.search(text, last.end()) if last else None
    if not (sized and SERVER_UP_RE.search(text, last.end())) or _OOM_FAILED_RE.search(text, last.end(), sized.start()):
        return None  # (a start that failed on it, then a restart: not transient)
    oom, kv = _when(line_at(text, last.start()), _C10_WHEN_RE), _when(line_at(text, sized.start()), _VLLM_WHEN_RE)
    return None if oom and kv and oom > kv else {}


_OOM_FAILED_RE = re.compile(r"OutOfMemoryError|CUDA out of memory|Engine core initialization failed|EngineDeadError"
                            r"|^Traceback \(most recent call last\)", re.M)
_WENT_ON_RE = re.compile(r"Init COMPLETE|Avg bus bandwidth|\" 200 OK|Avg generation throughput: (?!0\.0 )\d")
_BENCH_SERVED_RE = re.compile(r"^Successful requests:\s+[1-9]", re.M)


def _oom_not_served(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies unless the run went on after the allocator's last out-of-memory warning: the server up, NCCL's init
    complete, a benchmark's bandwidth, requests served (``200 OK``, generation throughput) after it, or a load test's
    requests served anywhere in the paste, before any error that followed it (an out-of-memory error, the engine's
    start failing, a traceback) or after that error (a restart that came up). Break-it 26 F2, F5b; 27 F3, F4."""
    last = last_match(_ALLOC_OOM_RE, text)
    after = text[last.end():] if last else text
    failed = _OOM_FAILED_RE.search(after)
    went = [m.start() for m in (SERVER_UP_RE.search(after), _WENT_ON_RE.search(after)) if m]
    if went and (failed is None or min(went) < failed.start()):
        return None  # it went on before any error (a later traceback is something else)
    at = failed.end() if failed else 0
    went_on = SERVER_UP_RE.search(after, at) or _WENT_ON_RE.search(after, at) or not failed and _BENCH_SERVED_RE.search(
        context().paste or text)
    return None if went_on else {}


_CUDA_ERROR_CLASSES = (
    ("oom", re.compile(r"out of memory")),
    ("timeout", re.compile(r"launch timed out")),  # (cudaErrorLaunchTimeout: the display watchdog, break-it 28 F4c)
    ("kernel", re.compile(r"device-side assert|launch failure|misaligned address|illegal (?:memory access|instruction|address)"
                          r"|an illegal|unspecified launch|hardware stack error|exception on device")),
    ("image", re.compile(r"no kernel image|invalid device function|unsupported ptx|PTX JIT")),
    ("device", re.compile(r"initiali[sz]ation error|no CUDA-capable device|driver version is insufficient|system not yet "
                          r"initiali[sz]ed|forward compatibility|unknown error|invalid device ordinal|ECC|uncorrectable")),
    ("peers", re.compile(r"peer mapping resources exhausted")),
)
"""CUDA's error strings (cudaGetErrorString), by what they mean: the name that decides which of the entry's readings
the table gives as ``is_<kind>`` (``is_other``: a name none of these is)."""


def _cuda_error_class(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Always applies: which kind of CUDA error ``values["what"]`` names (:data:`_CUDA_ERROR_CLASSES`), so the entry
    says that kind's reading alone, not a list of every kind's (blind batch vt003: ten P40s out of peer mappings read
    beside `out of memory`)."""
    what = str(values.get("what") or "")
    return {"is_" + next((name for name, words in _CUDA_ERROR_CLASSES if words.search(what)), "other"): ""}


_GGML_OOM_RE = re.compile(r"allocating (?P<mib>[\d.]{1,12}) MiB on device (?P<dev>\d{1,3}): cudaMalloc failed")
_PP_RETRY_FAILED_RE = re.compile(r"failed to allocate compute buffers|cudaMalloc failed|failed to (?:create|initiali[sz]e) "
                                 r"(?:the )?context|failed to load model|error loading model")
_LLAMA_SERVING_RE = re.compile(r"\bmodel loaded\b|all slots are idle|starting the main loop")
"""What llama.cpp's server prints once the model loaded and it serves (an allocation after it is a request's); not
`HTTP server is listening`, which newer servers print before they load (break-it 29 G9)."""
_PP_RETRY = "retrying without pipeline parallelism"
"""llama.cpp's words when a compute buffer failed to allocate and it tries again on one GPU's scheduler."""
_LLAMA_LOAD_START_RE = re.compile(r"llama_model_load(?:er)?:|load_model: loading model|loading model from")
"""Where a llama.cpp run starts loading a model: a journal of two runs reads the later one's lines from here."""
_LLAMA_WENT_ON_RE = re.compile(r"load_model: initializing|model loaded|server is listening|llama_kv_cache|"
                               r"compute buffer size|starting the main loop|all slots are idle")


def _retry_went_on(paste: str, at: int) -> tuple[bool, re.Match[str] | None]:
    """Whether llama.cpp's retry without pipeline parallelism at ``at`` held (no allocation failed again before the load
    went on: a later failure is a request's, at run time: break-it 28 F3), and the line that shows the load going on."""
    went = _LLAMA_WENT_ON_RE.search(paste, at)
    return _PP_RETRY_FAILED_RE.search(paste, at, went.start() if went else len(paste)) is None, went


def _pp_retry_held(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies unless the allocation failed again after llama.cpp's retry without pipeline parallelism (then the load
    failed: the plain out-of-memory entry's); ``mib`` and ``dev`` of the allocation that failed before it, ``went_on``
    the first line after it that shows the load going on (blind batch vt010: the server initialising its slot)."""
    paste = context().paste or text
    at = paste.find(_PP_RETRY)
    held, went = _retry_went_on(paste, at) if at >= 0 else (False, None)
    if not held:
        return None
    oom = last_match(_GGML_OOM_RE, paste, 0, at)
    return {**({"mib": oom["mib"], "dev": oom["dev"]} if oom else {}),
            **({"went_on": line_at(paste, went.start()).strip()[:160]} if went else {})}


def _ggml_oom_unretried(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """The last of ggml's failed allocations that no held retry without pipeline parallelism covers (its ``mib``,
    ``dev`` and line), and ``after_load`` where the load had gone on before it (a request's buffer at run time); None
    where every one was retried and held (break-it 28 F3: the load's retried allocation, then a prompt's failing)."""
    paste = context().paste or text
    left = None
    for m in _GGML_OOM_RE.finditer(paste):
        retry = paste.find(_PP_RETRY, m.end(), m.end() + 600)
        if retry < 0 or not _retry_went_on(paste, retry)[0]:
            left = m
    if left is None:
        return None
    start = last_match(_LLAMA_LOAD_START_RE, paste, 0, left.start())  # (from this run's own load on: another run's
    loaded = _LLAMA_SERVING_RE.search(paste, start.start() if start else 0, left.start())  # `model loaded` is not its)
    return {"mib": left["mib"], "dev": left["dev"], "line": line_at(paste, left.start()).strip(),
            **({"after_load": ""} if loaded else {})}


MEMORY_DETAILS: dict[str, Callable[..., dict[str, Any] | None]] = {
    "sized_after_retry": _sized_after_retry,
    "oom_not_served": _oom_not_served,
    "cuda_error_class": _cuda_error_class,
    "pp_retry_held": _pp_retry_held,
    "ggml_oom_unretried": _ggml_oom_unretried,
}
"""The details of this module, by the names checks/diagnoses.toml gives them (merged into PASTE_DETAILS)."""
