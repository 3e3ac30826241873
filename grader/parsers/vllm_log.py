"""Parser for ``vllm serve`` logs: startup facts, KV-cache capacity, launch errors, and what they mean.

A vLLM log arrives in many shapes: every version from 0.8 to 0.33 and NGC builds
(``0.17.1+a03ca76a.nv26.03``); logger headers old (``INFO 08-01 10:00:00 llm_engine.py:176]``)
and new (``INFO 11-29 14:02:11 [gpu_worker.py:298]``); process prefixes added by vLLM and Ray
(``(APIServer pid=1)``, ``(EngineCore_DP0 pid=123)``, ``(RayWorkerWrapper pid=77,
ip=192.168.100.11)``, ``(pid=21164)``), several of them on one line; docker-compose prefixes
(``vllm-head-1  | ``) and ``docker logs -t`` timestamps; ANSI colours; Ray's own lines
(``2026-11-29 13:55:51,726 INFO worker.py:1691 -- ...``); tracebacks; cut-off pastes. Every line
is stripped of those layers first (:func:`split_prefixes`), then the message is matched on its
text, never on the ``[file.py:NNN]`` tag, which changes between versions.

KV-cache capacity lines, by version (docs/research/procedure.md §4.1, from vLLM's sources):

========================  ==========================================================  ==============
form                      line(s)                                                     vLLM
========================  ==========================================================  ==============
``blocks``                ``# GPU blocks: N, # CPU blocks: M`` then                   V0 engine (to
                          ``Maximum concurrency for L tokens per request: X.XXx``     0.10; 0.11's
                          (device may read ``cuda``/``CPU``)                          executor_base)
``blocks``                ``# GPU blocks: N`` (no CPU blocks) then the concurrency    early V1
                          line                                                        (Jan-Feb 2025)
``two-lines``             ``GPU KV cache size: N tokens`` (N comma-grouped) then      PR 13596
                          ``Maximum concurrency for L tokens per request: X.XXx``     (2025-02-20)
                                                                                      to 0.27.x
``one-line``              ``GPU KV cache size: N tokens, Maximum concurrency for L    0.28 on; from
                          tokens per request: X.XXx``; device ``GPU`` on CUDA,        0.30 the device
                          upper-cased type otherwise (``CPU``), ``GPU + host`` with   word varies
                          hisparse offload (0.32+)
========================  ==========================================================  ==============

Related: ``Available KV cache memory: X GiB`` (V1 gpu_worker, 0.8 on), V0's ``the rest of the
memory reserved for KV Cache is X GiB``, the CPU backend's ``Explicitly set (X/Y) GiB for KV
cache on node N``. With TP/PP the engine prints the capacity once for the whole engine (the
minimum over workers); per-rank or per-DP-engine repetitions are each kept, with the process
prefix they came with (:class:`LogLine`).

Units: tokens; GiB = 2**30 bytes (vLLM's ``GiB`` is binary; V0's ``GB`` in "Loading model
weights took X GB" is also 2**30-based and is read as GiB); concurrency as vLLM prints it
(KV tokens / max model length for vLLM >= 0.24; older versions computed it per KV-cache group,
so for sliding-window or hybrid models it can differ from tokens / length: 37,392 tokens vs
1.53x at 262,144 in spark/16_*).

Errors and warnings (exact strings from procedure.md §3.4, research/vllm_cpu.md,
research/vllm_netns.md §5) become :class:`LogEvent` records with a named ``kind`` and the
numbers in them; :func:`diagnose` turns them into what the failure means and the fix.
"""

from __future__ import annotations

import ast
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from .common import Line, ParseError, content_lines, fail_on_line

COMMAND = "vllm serve"

# --------------------------------------------------------------------------- line layers

_COMPOSE_RE = re.compile(r"^[A-Za-z0-9][\w.-]*\s*\|\s?")          # "vllm-head-1  | "
_COLLECTOR_RE = re.compile(
    r"^\[pod/[^\]]+\]\s*"                                           # kubectl logs --prefix
    r"|^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ [\w.@-]+(?:\[\d+\])?:\s")  # journalctl / syslog
_DOCKER_TS_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)\s")
# "(APIServer pid=1)", "(RayWorkerWrapper pid=77, ip=10.0.0.2)", "(pid=5)", "(VllmWorker rank=0 pid=9)",
# "(VllmWorker TP0 pid=9)", "(autoscaler +1m2s)", "(raylet, ip=10.0.0.2)"
_PROC_RE = re.compile(
    r"^\((?P<name>(?![A-Za-z_]+=)[A-Za-z_][\w.:-]*)?(?P<rest>(?:[\s,]*(?:\+[\w.]+|[A-Za-z_]+=[^\s,)]+|[A-Z]{2}\d+))*)\s*\)\s?")
_PID_RE = re.compile(r"\bpid=(\d+)")
_IP_RE = re.compile(r"\bip=([0-9A-Fa-f.:]+)")
_RAY_PROCS = {"raylet", "autoscaler", "gcs_server", "monitor", "log_monitor", "dashboard", "dashboard_agent",
              "runtime_env_agent", "bash", "sh"}
_VLLM_PROCS_RE = re.compile(r"^(?:APIServer|EngineCore(?:_DP\d+)?|RayWorkerWrapper|RayWorkerProc|VllmWorker(?:-\d+)?"
                             r"|Worker(?:_\w+)?|MainProcess|VLLM::\w+)$")
_REPEATED_RE = re.compile(r"(?<!\s)\s*+\[repeated \d++x across cluster\]\s*+$")  # starts where blanks start: linear
_HEADER_RE = re.compile(
    r"^(?P<level>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s+(?P<date>(?:\d{4}-)?\d\d-\d\d)\s+"
    r"(?P<time>\d\d:\d\d:\d\d)(?:[.,]\d+)?\s+\[?(?P<src>[\w./<>-]+\.py:\d+)\]\s?(?P<msg>.*)$")
_RAY_HEADER_RE = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+\s+(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+"
    r"(?P<src>[\w.]+\.py:\d+)\s+--\s+(?P<msg>.*)$")
_UVICORN_RE = re.compile(r"^(?P<level>INFO|WARNING|ERROR):\s+(?P<msg>.*)$")


@dataclass(frozen=True)
class LogLine:
    """Where a record came from.

    ``lineno`` 1-based in the text given to the parser; ``text`` the line as pasted (cleaned of
    ANSI codes, stripped); ``prefix`` the process prefixes, joined as printed
    (``(EngineCore_DP0 pid=2301) (RayWorkerWrapper pid=2981, ip=169.254.28.198)``), None if
    none; ``process`` the innermost prefix's name (``RayWorkerWrapper``, ``Worker_PP1``,
    ``EngineCore_DP0``, ``APIServer``; None for a bare ``(pid=N)``); ``pid`` its pid; ``ip`` the
    ``ip=`` a Ray prefix shows (the remote node a worker ran on; Ray omits it for the local
    node); ``level`` and ``source`` from a logger header (``INFO``, ``kv_cache_utils.py:1319``);
    ``message`` the text after all of that.
    """

    lineno: int
    text: str
    prefix: str | None = None
    process: str | None = None
    pid: int | None = None
    ip: str | None = None
    level: str | None = None
    source: str | None = None
    message: str = ""


def split_prefixes(text: str, lineno: int = 0) -> LogLine:
    """Peel the layers off one log line (see the module docstring). Never raises."""
    s = text.strip()
    s = _COLLECTOR_RE.sub("", s, count=1)
    s = _DOCKER_TS_RE.sub("", s)
    if not s.startswith("(") and _COMPOSE_RE.match(s) and not _HEADER_RE.match(s):
        s = _COMPOSE_RE.sub("", s, count=1)
        s = _DOCKER_TS_RE.sub("", s)
    prefixes: list[str] = []
    process = ip = None
    pid = None
    while True:
        m = _PROC_RE.match(s)
        if not m:
            break
        name, rest = m.group("name") or "", m.group("rest")
        p, i = _PID_RE.search(rest), _IP_RE.search(rest)
        if not (p or i or name in _RAY_PROCS):
            break
        prefixes.append(m.group(0).strip())
        process = name or None
        pid = int(p.group(1)) if p else pid
        ip = i.group(1) if i else ip
        s = s[m.end():].lstrip()
    s = _REPEATED_RE.sub("", s)
    level = source = None
    m = _HEADER_RE.match(s) or _RAY_HEADER_RE.match(s)
    if m:
        level, source, s = m.group("level"), m.group("src"), m.group("msg")
    else:
        u = _UVICORN_RE.match(s)
        if u:
            level, s = u.group("level"), u.group("msg").strip()
    return LogLine(lineno, text.strip(), " ".join(prefixes) or None, process, pid, ip,
                   "WARNING" if level == "WARN" else level, source, s.strip())


# --------------------------------------------------------------------------- records

@dataclass(frozen=True)
class KvCapacity:
    """One KV-cache capacity statement.

    ``device`` as printed (``GPU``, ``CPU``, ``GPU + host``; ``cuda`` in some V0 logs);
    ``tokens`` the KV cache size in tokens (None for the ``blocks`` form, which counts blocks);
    ``max_model_len`` the L of ``Maximum concurrency for L tokens per request`` and
    ``concurrency`` its X (None when that line is missing, e.g. cut off); ``gpu_blocks`` and
    ``cpu_blocks`` for the ``blocks`` form (tokens = blocks x block size, 16 by default on GPU,
    which the log does not print); ``form`` is ``blocks``, ``two-lines`` or ``one-line`` (see the
    module docstring for the versions); ``source`` the first line, ``linenos`` every line used.
    """

    device: str | None
    tokens: int | None
    max_model_len: int | None
    concurrency: float | None
    gpu_blocks: int | None
    cpu_blocks: int | None
    form: str
    source: LogLine
    linenos: tuple[int, ...] = ()

    @property
    def tokens_per_length(self) -> float | None:
        """tokens / max_model_len, to compare with ``concurrency`` (equal by construction from
        vLLM 0.24; may differ before it for sliding-window or hybrid models)."""
        if self.tokens is None or not self.max_model_len:
            return None
        return self.tokens / self.max_model_len


@dataclass(frozen=True)
class KvMemory:
    """Memory given to the KV cache, in GiB (2**30 bytes).

    ``kind``: ``available`` (``Available KV cache memory: X GiB``, V1), ``reserved`` (V0's
    ``the rest of the memory reserved for KV Cache is X GiB``), ``explicit`` (the CPU backend's
    ``Explicitly set (X/Y) GiB for KV cache``, ``total_gib`` = Y, the NUMA node's memory),
    ``auto-fit`` (``Auto-fit max_model_len: ... (X GiB available for KV cache)``).
    """

    gib: float
    kind: str
    source: LogLine
    total_gib: float | None = None


@dataclass(frozen=True)
class LogEvent:
    """An error, warning or notable event, with the numbers it carries.

    ``kind`` names it (see EVENT_KINDS); ``severity`` is ``error``, ``warning`` or ``info``;
    ``message`` the line's message (prefixes and logger header removed); ``numbers`` what was
    extracted (e.g. ``{"world_size": 2, "gpus": 1}`` for ``world-size``); ``source`` the line;
    ``count`` how many times the same message was seen (tracebacks repeat it per process).
    """

    kind: str
    severity: str
    message: str
    numbers: dict[str, Any]
    source: LogLine
    count: int = 1


@dataclass(frozen=True)
class EngineStats:
    """One periodic engine line: ``Engine 000: Avg prompt throughput: 0.7 tokens/s, Avg generation
    throughput: 5.9 tokens/s, Running: 0 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.0%, Prefix
    cache hit rate: 0.0%`` (0.11-0.33; V0 says ``Pending`` and ``Swapped``). Throughputs in
    tokens/s, usage and hit rate in percent (0-100), as printed."""

    engine: int | None
    prompt_tokens_per_s: float
    generation_tokens_per_s: float
    running: int | None
    waiting: int | None
    kv_usage_percent: float | None
    prefix_hit_percent: float | None
    source: LogLine


@dataclass(frozen=True)
class WorkerRank:
    """A worker's place in the process group, from ``world_size=2 rank=1 local_rank=0
    distributed_init_method=tcp://192.168.100.10:45679 backend=gloo`` and ``rank 1 in world size
    2 is assigned as DP rank 0, PP rank 1, ... TP rank 0`` lines; ``ip`` from its Ray prefix
    (None on the node the engine runs on), ``pid`` from its prefix."""

    rank: int
    world_size: int | None
    pid: int | None
    ip: str | None
    tp_rank: int | None = None
    pp_rank: int | None = None
    dp_rank: int | None = None
    init_method: str | None = None
    backend: str | None = None


@dataclass(frozen=True)
class ParallelConfig:
    """The parallel layout vLLM was given.

    Sizes are None when the log does not say (vLLM's default is 1). Taken, in order of trust,
    from the engine's ``Initializing a V1 LLM engine (vX) with config: ...
    tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=1`` line, the
    ``non-default args: {...}`` dict (or V0's ``args: Namespace(...)``), and a ``vllm serve``
    command line in the paste; ``sources`` says which gave each field.
    ``world_size`` = TP x PP (vLLM's ParallelConfig.world_size; each DP rank is one such group);
    ``logged_world_size`` what a ``world_size=`` line printed, if any.
    """

    tensor_parallel_size: int | None = None
    pipeline_parallel_size: int | None = None
    data_parallel_size: int | None = None
    data_parallel_size_local: int | None = None
    expert_parallel: bool | None = None
    distributed_executor_backend: str | None = None
    nnodes: int | None = None
    node_rank: int | None = None
    headless: bool | None = None
    logged_world_size: int | None = None
    sources: dict[str, str] = field(default_factory=dict)

    @property
    def world_size(self) -> int:
        """TP x PP, with 1 for a size the log does not give."""
        return (self.tensor_parallel_size or 1) * (self.pipeline_parallel_size or 1)


@dataclass(frozen=True)
class VllmLog:
    """Everything read from one vLLM log.

    ``version`` (``0.32.0``, ``0.17.1+a03ca76a.nv26.03.46967107``) from the banner, the engine
    config line or ``vLLM API server version X``; ``platform`` from ``Automatically detected
    platform X``; ``model`` from the banner, the args or the config line; ``args`` the
    non-default args as a dict (values as Python literals; a value that is not one stays its
    source text), ``args_truncated`` when the dict was cut off; ``command_args`` the options of a
    ``vllm serve`` command line in the paste (``--tensor-parallel-size 2`` -> key
    ``tensor_parallel_size``, value as text); ``parallel``; ``max_model_len`` (tokens);
    ``gpu_memory_utilization``; ``kv`` and ``kv_memory``; ``weights_gib`` (each ``Model loading
    took X GiB``, per worker); ``events``; ``stats``; ``ranks``; ``worker_ips`` (distinct ``ip=``
    of Ray prefixes, i.e. remote nodes that ran vLLM processes); ``ray_address`` (``Connecting to
    existing Ray cluster at address: X``); ``ready`` when ``Application startup complete`` (or
    ``Uvicorn running on``/``Starting vLLM (API) server on``, printed once the engine is up) was seen, ``url`` the address printed;
    ``client_output`` when the text holds a client's output (``vllm bench serve``), which is not a
    server log.
    """

    version: str | None = None
    platform: str | None = None
    model: str | None = None
    args: dict[str, Any] | None = None
    args_truncated: bool = False
    command_args: dict[str, str] | None = None
    parallel: ParallelConfig = field(default_factory=ParallelConfig)
    max_model_len: int | None = None
    gpu_memory_utilization: float | None = None
    kv: tuple[KvCapacity, ...] = ()
    kv_memory: tuple[KvMemory, ...] = ()
    weights_gib: tuple[float, ...] = ()
    events: tuple[LogEvent, ...] = ()
    stats: tuple[EngineStats, ...] = ()
    ranks: tuple[WorkerRank, ...] = ()
    worker_ips: tuple[str, ...] = ()
    ray_address: str | None = None
    ready: bool = False
    url: str | None = None
    client_output: bool = False

    @property
    def has_startup(self) -> bool:
        """Whether the log shows the server starting (version, args, engine config, parallel sizes,
        KV cache, or readiness), as opposed to a fragment (NCCL lines, a client's output)."""
        return bool(self.version or self.args or self.parallel.sources or self.kv or self.kv_memory
                    or self.ready or self.max_model_len)

    @property
    def errors(self) -> tuple[LogEvent, ...]:
        """Events of severity ``error``."""
        return tuple(e for e in self.events if e.severity == "error")

    @property
    def warnings(self) -> tuple[LogEvent, ...]:
        """Events of severity ``warning``."""
        return tuple(e for e in self.events if e.severity == "warning")

    def events_of(self, *kinds: str) -> tuple[LogEvent, ...]:
        """Events whose kind is one of ``kinds``."""
        return tuple(e for e in self.events if e.kind in kinds)

    @property
    def kv_tokens(self) -> int | None:
        """The KV capacity in tokens: the first statement that gives tokens (the engine's; with
        several DP engines, each has its own: see ``kv``)."""
        return next((k.tokens for k in self.kv if k.tokens is not None), None)

    @property
    def concurrency(self) -> float | None:
        """The first ``Maximum concurrency`` figure (x), None if absent."""
        return next((k.concurrency for k in self.kv if k.concurrency is not None), None)


# --------------------------------------------------------------------------- patterns

_VERSION = r"v?(?P<version>\d+\.\d+(?:\.\d+)?(?:[\w.+-]*[\w+])?)"
_BANNER_VERSION_RE = re.compile(r"(?:vLLM API server version|▀ █\s+version|█\s+version)\s+" + _VERSION)
_ENGINE_CONFIG_RE = re.compile(r"Initializing an? (?:V1 )?LLM engine \(" + _VERSION + r"\) with config:(?P<cfg>.*)$")
_LAUNCH_VERSION_RE = re.compile(r"(?:Launching vLLM \(|\bvLLM [Vv]ersion:? )" + _VERSION)
_BANNER_MODEL_RE = re.compile(r"█\s+model\s+(?P<model>\S+)")
_PLATFORM_RE = re.compile(r"Automatically detected platform (?P<p>[\w-]+)")
_NONDEFAULT_RE = re.compile(r"non-default args: (?P<d>\{.*)$")
_NAMESPACE_RE = re.compile(r"\bargs: Namespace\((?P<d>.*)$")
_MAX_LEN_RE = re.compile(r"Using max model len (?P<n>\d+)")
_WEIGHTS_RE = re.compile(r"(?:Model loading took|Loading model weights took) (?P<gib>\d+(?:\.\d+)?) ?Gi?B")
_READY_RE = re.compile(r"Application startup complete")
_URL_RE = re.compile(r"(?:Uvicorn running on|Starting vLLM (?:API )?server(?: \d+)? on) (?P<url>https?://\S+)")
_RAY_CONNECT_RE = re.compile(r"Connecting to existing Ray cluster at address: (?P<addr>\S*[^\s.]|\.)\.*$"
                             r"|Using address (?P<addr2>\S+) set in the environment variable RAY_ADDRESS")
_CUDAGRAPH_UTIL_RE = re.compile(r"--gpu-memory-utilization=(?P<cur>\d+(?:\.\d+)?) is equivalent to "
                                r"--gpu-memory-utilization=(?P<eff>\d+(?:\.\d+)?)")

_KV_TOKENS_RE = re.compile(r"(?:(?P<dev>\b[A-Za-z]+(?: \+ host)?) )?KV cache size: (?P<tokens>[\d,]+) tokens")
_KV_CONC_RE = re.compile(r"Maximum concurrency for (?P<len>[\d,]+) tokens per request: (?P<x>\d+(?:\.\d+)?)x")
_KV_BLOCKS_RE = re.compile(r"# (?P<dev>\w+) blocks: (?P<n>\d+)(?:, # CPU blocks: (?P<cpu>\d+))?")
_KV_AVAIL_RE = re.compile(r"Available KV cache memory: (?P<gib>\d+(?:\.\d+)?) ?GiB")
_KV_V0_RE = re.compile(r"the rest of the memory reserved for KV Cache is (?P<gib>-?\d+(?:\.\d+)?) ?GiB"
                       r"|Memory profiling results:(?:(?!Memory profiling results:).)*\bkv_cache_size=(?P<gib2>-?\d+(?:\.\d+)?) ?GiB")
# the profiling summary of V0 and early V1 (0.6-0.9), on one line or wrapped over three
_PROFILE_UTIL_RE = re.compile(r"total_gpu_memory \((?P<total>\d+(?:\.\d+)?) ?GiB\) x gpu_memory_utilization \((?P<util>\d+(?:\.\d+)?)\)"
                              r"|Memory profiling results:(?:(?!Memory profiling results:).)*?\btotal_gpu_memory="
                              r"(?P<total2>\d+(?:\.\d+)?) ?GiB(?:(?!Memory profiling results:|\btotal_gpu_memory=).)*"
                              r"\bgpu_memory_utilization=(?P<util2>\d+(?:\.\d+)?)")
_PROFILE_WEIGHTS_RE = re.compile(r"\bmodel weights take (?P<gib>\d+(?:\.\d+)?) ?GiB")
_KV_CPU_RE = re.compile(r"Explicitly set \((?P<gib>\d+(?:\.\d+)?)/(?P<total>\d+(?:\.\d+)?)\) GiB for KV cache")
_AUTOFIT_RE = re.compile(r"Auto-fit max_model_len: reduced from (?P<from>\d+) to (?P<to>\d+)"
                         r"(?:(?!Auto-fit max_model_len: ).)*?\((?P<gib>\d+(?:\.\d+)?) GiB "
                         r"available for KV cache\)")
_STATS_RE = re.compile(r"(?:Engine (?P<engine>\d+): )?Avg prompt throughput: (?P<p>\d+(?:\.\d+)?) tokens/s, "
                       r"Avg generation throughput: (?P<g>\d+(?:\.\d+)?) tokens/s(?P<rest>.*)$")
_RANK_INIT_RE = re.compile(r"world_size=(?P<ws>\d+) rank=(?P<rank>\d+) local_rank=\d+ "
                           r"distributed_init_method=(?P<init>\S+) backend=(?P<backend>\w+)")
_RANK_ASSIGN_RE = re.compile(r"rank (?P<rank>\d+) in world size (?P<ws>\d+) is assigned as (?P<rest>.*)$")
_DP_LEADER_RE = re.compile(r"DP group leader:(?:(?!DP group leader:).)*?world_size=(?P<ws>\d+)"
                           r"(?:, local_world_size=(?P<lws>\d+))?")
_MQ_IP_RE = re.compile(r"mq_connect_ip=(?P<ip>[\d.]+)")
_EXCEPTION_RE = re.compile(r"^(?:[\w.]+\.)?(?P<exc>[A-Z]\w*(?:Error|Exception))(?::\s*(?P<msg>.*))?$")
_CLIENT_RE = re.compile(r"Serving Benchmark Result|Starting main benchmark run|Namespace\(subparser='bench'"
                        r"|^Traffic request rate:|vllm bench serve")
_SERVE_CMD_RE = re.compile(r"(?:^|[\s;&|/'\"])vllm\s+serve\s+(?P<rest>.*)$")
# in a log message, a command line only where one is shown (start of the message, after a colon
# or a prompt character), not in prose such as "Restart vllm serve with --enable-scale-out"
_SERVE_IN_LOG_RE = re.compile(r"(?:^|[:$#]\s*|\bexec\b.*\s)(?:\S*/)?vllm\s+serve\s+(?!with\b)\S")
"""The definition :func:`_serve_in_log` answers for, in linear time (searched as is, it tries every ``:`` and
``exec`` of a line against the rest of it: quadratic)."""
_SERVE_WORDS_RE = re.compile(r"vllm\s++serve\s++(?!with\b)\S")
_EXEC_WORD_RE = re.compile(r"\bexec\b")


def _serve_in_log(msg: str) -> bool:
    """Whether ``_SERVE_IN_LOG_RE.search(msg)`` would match: ``vllm serve X`` (X not ``with``), maybe behind a
    path (``/usr/bin/``), at the start of the message, after ``:``/``$``/``#`` and blanks, or after a blank
    that follows the word ``exec``."""
    if "\n" in msg:  # ``.`` stops at a newline; messages are single lines, so this is never hot
        return bool(_SERVE_IN_LOG_RE.search(msg))
    exec_word = _EXEC_WORD_RE.search(msg)
    exec_end = exec_word.end() if exec_word else None

    def shown_at(q: int) -> bool:  # does a command context end at q (where the path, or vllm, starts)?
        if q == 0:
            return True
        before = msg[q - 1]
        if before in ":$#":
            return True
        if not before.isspace():
            return False
        if exec_end is not None and exec_end <= q - 1:
            return True
        j = q - 1
        while j >= 0 and msg[j].isspace():
            j -= 1
        return j >= 0 and msg[j] in ":$#"

    pos = 0
    while True:
        m = _SERVE_WORDS_RE.search(msg, pos)
        if m is None:
            return False
        v = m.start()
        if shown_at(v):
            return True
        if v > 0 and msg[v - 1] == "/":  # behind a path: it may start anywhere in the word ending at v
            r = v - 1
            while r > 0 and not msg[r - 1].isspace():
                r -= 1
            word = msg[r:v - 1]  # the characters before each later start of the path
            if shown_at(r) or ":" in word or "$" in word or "#" in word:
                return True
        pos = v + 1
_API_SERVER_CMD_RE = re.compile(r"-m\s+vllm\.entrypoints\.openai\.api_server\s+(?P<rest>.*)$")


def _num(s: str) -> int:
    return int(s.replace(",", ""))


# kind, severity, pattern; the first that matches a line wins (specific before general)
_EVENT_PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("world-size", "error", re.compile(
        r"World size \((?P<world_size>\d+)\) is larger than the number of available GPUs \((?P<gpus>\d+)\)")),
    ("world-size", "error", re.compile(
        r"please set tensor_parallel_size \((?P<world_size>\d+)\) to less than max local gpu count "
        r"\((?P<gpus>\d+)\)")),
    ("kv-too-small", "error", re.compile(
        r"max seq len \((?P<max_model_len>\d+)\), \((?P<needed_gib>\d+(?:\.\d+)?) GiB KV cache is needed, which is larger "
        r"than the available KV cache memory \((?P<available_gib>\d+(?:\.\d+)?) GiB\)(?:\. Based on the available memory, "
        r"(?:the )?estimated maximum model length is (?P<estimated_max_len>\d+))?")),
    ("kv-too-small", "error", re.compile(
        r"The model's max seq len \((?P<max_model_len>\d+)\) is larger than the maximum number of tokens that can "
        r"be stored in KV cache \((?P<kv_tokens>\d+)\)")),
    ("no-kv-memory", "error", re.compile(r"No available memory for the cache blocks")),
    ("startup-memory", "error", re.compile(
        r"(?:Free|Available) memory on (?:device|node \d+) \((?P<free_gib>\d+(?:\.\d+)?)/(?P<total_gib>\d+(?:\.\d+)?) GiB\) on "
        r"startup is less than desired (?:GPU|CPU) memory utilization \((?P<utilization>\d+(?:\.\d+)?), "
        r"(?P<wanted_gib>\d+(?:\.\d+)?) GiB\)")),
    ("oom", "error", re.compile(r"CUDA out of memory|OutOfMemoryError|CUDA error: out of memory")),
    ("cpu-no-ray", "error", re.compile(r"current platform (?P<platform>\w+) does not support ray")),
    ("ray-missing", "error", re.compile(r"Failed to import Ray|No module named '?ray'?(?![\w.])|ray: command not found")),
    ("pg-timeout", "error", re.compile(
        r"Cannot provide a placement group (?:requiring (?P<gpus>\d+) \w+ )?"
        r"(?:(?!Cannot provide a placement group ).)*?within (?P<seconds>\d+) seconds")),
    ("pg-wait", "warning", re.compile(
        r"Waiting for creating a placement group of specs for (?P<seconds>\d+) seconds\.(?: specs=(?P<specs>\[.*?\]))?")),
    ("pg-not-enough-gpus", "error", re.compile(
        r"The number of required (?P<device>\w+?)s exceeds the total number of available \w+?s in the placement group")),
    ("no-gpu-resource", "warning", re.compile(
        r"No available node types can fulfill resource request (?P<request>\{(?:(?!No available node types )[^}\n])*+\})"
        r"|The following resource request cannot be scheduled right now: (?P<request2>\{(?:(?!The following resource request )[^}\n])*+\})")),
    ("no-gpu-on-node", "error", re.compile(r"Current node has no (?P<device>GPU|\w+) available")),
    ("no-gpu-on-driver", "error", re.compile(r"Ray does not allocate any GPUs on the driver node")),
    ("duplicate-node-ip", "error", re.compile(r"Every node should have a unique IP address")),
    ("gloo-connect", "error", re.compile(
        r"Gloo connectFullMesh failed(?:(?!Gloo connectFullMesh failed).)*?remote=\[(?P<remote>[^\]]+)\](?::(?P<port>\d+))?"
        r"|Gloo connectFullMesh failed")),
    ("gloo-retry", "warning", re.compile(
        r"failed to connect, willRetry=\d+, retry=\d+, retryLimit=\d+, rank=(?P<rank>\d+), size=(?P<size>\d+), "
        r"local=\[(?P<local>[^\]]+)\]")),
    ("gloo-iface", "error", re.compile(r"Unable to find address for:? (?P<iface>[\w.:-]+)")),
    ("shm-open", "error", re.compile(r"open shm in SHMManager failed")),
    ("nccl-error", "error", re.compile(
        r"NCCL error\b|nccl(?:SystemError|UnhandledCudaError|InternalError|RemoteError|InvalidUsage)"
        r"|NET/IB : Got completion (?:(?!NET/IB : Got completion ).)*?error|ibv_modify_qp failed")),
    ("device-type", "error", re.compile(r"Failed to infer device type")),
    ("cpu-thread-binding", "error", re.compile(r"Not enough allowed NUMA nodes to bind threads")),
    ("ray-node-timeout", "error", re.compile(
        r"The current node timed out during startup"
        r"|Failed to get node info (?:(?!Failed to get node info ).)*Deadline Exceeded")),
    ("no-host-ip", "warning", re.compile(r"Failed to get the IP address, using 0\.0\.0\.0 by default")),
    ("vllm-metadata", "error", re.compile(r"No package metadata was found for vllm")),
    ("vllm-missing", "error", re.compile(r"vllm: command not found|No module named '?vllm'?(?![\w.])")),
    ("ray-local-instance", "warning", re.compile(r"Started a local Ray instance")),
    ("tp-exceeds-local-gpus", "warning", re.compile(
        r"Tensor parallel size \((?P<tp>\d+)\) exceeds available GPUs \((?P<gpus>\d+)\)")),
    ("tp-spans-nodes", "info", re.compile(
        r"tensor_parallel_size=(?P<tp>\d+) is bigger than a reserved number of (?P<device>\w+?)s \((?P<gpus>\d+) "
        r"\w+\) in a node (?P<node>\w+)")),
    ("pg-created", "info", re.compile(r"No current placement group found\. Creating a new placement group")),
    ("ray-connected", "info", re.compile(r"Connected to Ray cluster")),
    ("engine-init-failed", "error", re.compile(
        r"Engine core initialization failed\.?(?: See root cause above\.)?(?: Failed core proc\(s\): (?P<procs>\{.*\}))?")),
    ("engine-dead", "error", re.compile(r"EngineDeadError|Engine core proc \S+ died unexpectedly")),
    ("cuda-graph-util", "info", _CUDAGRAPH_UTIL_RE),
)

EVENT_KINDS: tuple[str, ...] = tuple(dict.fromkeys(k for k, _, _ in _EVENT_PATTERNS)) + ("exception",)
"""Every event kind the parser can report; ``exception`` is any other ``XxxError: ...`` line."""

_IGNORED_EXCEPTIONS = {"DeprecationWarning", "FutureWarning", "UserWarning"}


def _numbers(m: re.Match[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in m.groupdict().items():
        if value is None:
            continue
        key = key.rstrip("2")
        if re.fullmatch(r"\d+", value):
            out[key] = int(value)
        elif re.fullmatch(r"\d+\.\d*", value):
            out[key] = float(value)
        else:
            out[key] = value
    return out


def _match_event(message: str) -> tuple[str, str, dict[str, Any]] | None:
    for kind, severity, pattern in _EVENT_PATTERNS:
        m = pattern.search(message)
        if m:
            numbers = _numbers(m)
            if kind == "pg-wait" and "specs" in numbers:
                numbers.update(_bundle_counts(numbers["specs"]))
            if kind == "gloo-connect" and str(numbers.get("remote", "")).startswith("127."):
                numbers["loopback"] = True
            return kind, severity, numbers
    m = _EXCEPTION_RE.match(message)
    if m and m.group("exc") not in _IGNORED_EXCEPTIONS:
        return "exception", "error", {"exception": m.group("exc")}
    return None


def _bundle_counts(specs: str) -> dict[str, Any]:
    """``{"bundles": 2, "gpus": 2.0}`` from a placement group spec list, as far as it reads."""
    try:
        value = ast.literal_eval(specs)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return {}
    if not isinstance(value, list) or not all(isinstance(b, dict) for b in value):
        return {}
    return {"bundles": len(value), "gpus": float(sum(b.get("GPU", 0) for b in value))}


# --------------------------------------------------------------------------- python literals

MAX_ARGS_CHARS = 256 * 1024
"""The most characters of a logged ``non-default args: {...}`` / ``Namespace(...)`` read (one is a few KB;
the reader steps through it character by character in Python). A longer one reads as cut off."""


def parse_python_mapping(text: str, opener: str = "{") -> tuple[dict[str, Any], bool]:
    """Read a printed Python dict (``{'a': 1, ...}``) or ``Namespace(a=1, ...)`` body leniently.

    ``text`` starts at the opening ``{`` (or just after ``Namespace(`` with ``opener="("``).
    Each top-level item is read with ``ast.literal_eval`` (never ``eval``); a value that is not a
    literal (``<CompilationMode.X: 2>``, ``CompilationConfig(...)``) is kept as its source text.
    A text cut off before the closing bracket gives the complete items read so far and
    ``truncated=True``. Returns ``(mapping, truncated)``. Never raises.
    """
    body = text[1:] if opener == "{" and text.startswith("{") else text
    closer = "}" if opener == "{" else ")"
    items: list[str] = []
    depth, quote, escaped, start = 0, "", False, 0
    end = None
    for i, ch in enumerate(body):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>" and depth > 0:
            depth -= 1
        elif ch == closer and depth == 0:
            end = i
            break
        elif ch == "," and depth == 0:
            items.append(body[start:i])
            start = i + 1
    truncated = end is None
    if not truncated:
        items.append(body[start:end])
    out: dict[str, Any] = {}
    sep = ":" if opener == "{" else "="
    for item in items:
        item = item.strip()
        if not item:
            continue
        key, value = _split_item(item, sep)
        if key is None:
            continue
        out[key] = _literal(value)
    return out, truncated


def _split_item(item: str, sep: str) -> tuple[str | None, str]:
    if sep == ":":
        m = re.match(r"""^(?P<q>['"])(?P<k>.*?)(?P=q)\s*:\s*(?P<v>.*)$""", item, re.S)
        if not m:
            return None, ""
        return m.group("k"), m.group("v")
    m = re.match(r"^(?P<k>[A-Za-z_]\w*)\s*=\s*(?P<v>.*)$", item, re.S)
    return (m.group("k"), m.group("v")) if m else (None, "")


def _literal(value: str) -> Any:
    value = value.strip()
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return value


_CONFIG_FIELD_RE = re.compile(r"(?:^|,\s*)(?P<k>[a-z_]+)=(?P<v>'(?:[^'\\]|\\.)*'|[^,]*)")


def _config_fields(cfg: str) -> dict[str, Any]:
    """The simple ``key=value`` fields of an engine config line (nested ones are skipped)."""
    out: dict[str, Any] = {}
    end = len(cfg.rstrip())
    for m in _CONFIG_FIELD_RE.finditer(cfg):
        if m.end() >= end:  # the last field may be cut off mid-value (pasted lines are cut): skip it
            break
        key, raw = m.group("k"), m.group("v").strip()
        if key in out:
            continue
        out[key] = _literal(raw) if raw[:1] == "'" or re.fullmatch(r"-?\d+(?:\.\d+)?|True|False|None", raw) else raw
    return out


# --------------------------------------------------------------------------- command lines

_FLAG_ALIASES = {"-tp": "tensor_parallel_size", "-pp": "pipeline_parallel_size", "-dp": "data_parallel_size",
                 "-dpl": "data_parallel_size_local", "-ep": "enable_expert_parallel", "-q": "quantization"}
_BOOL_FLAGS = {"headless", "enable_expert_parallel", "enforce_eager", "trust_remote_code",
               "enable_auto_tool_choice", "enable_prefix_caching", "disable_log_requests"}


def parse_serve_command(command: str) -> dict[str, str]:
    """The options of a ``vllm serve MODEL --flag value ...`` command line, keys as vLLM's
    argument names (``--tensor-parallel-size 2`` and ``-tp 2`` -> ``tensor_parallel_size: "2"``),
    values as text; the model under ``model``. Boolean flags give ``"True"``. Never raises."""
    m = _SERVE_CMD_RE.search(command) or _API_SERVER_CMD_RE.search(command)
    if not m:
        return {}
    try:
        tokens = shlex.split(m.group("rest"), comments=False)
    except ValueError:
        tokens = m.group("rest").split()
    out: dict[str, str] = {}
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in ("|", "&&", ";", "||", ">", "2>&1", "&"):
            break
        if tok.startswith("-"):
            name, eq, value = tok.partition("=")
            key = _FLAG_ALIASES.get(name, name.lstrip("-").replace("-", "_"))
            if eq:
                out[key] = value
            elif key in _BOOL_FLAGS or i + 1 >= len(tokens) or tokens[i + 1].startswith("--"):
                out[key] = "True"
            else:
                out[key] = tokens[i + 1]
                i += 1
        elif "model" not in out:
            out["model"] = tok
        i += 1
    return out


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    try:
        return int(str(value).replace(",", ""))
    except (TypeError, ValueError):
        return None


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return None


# --------------------------------------------------------------------------- the parser

def parse_vllm_log(text: str) -> VllmLog:
    """Parse a vLLM server log (startup, serving, or a failed launch) into a VllmLog.

    Reads every line it knows (see the module docstring) and skips the rest (progress bars,
    warnings of other libraries, tracebacks' frames). Pasted prompts are read for a ``vllm
    serve`` command line. The same error printed by several processes becomes one event with a
    ``count``; KV-capacity lines are all kept.

    Raises ParseError when nothing in the text is a vLLM log line (no logger header, no known
    message), e.g. another command's output, or an empty paste.
    """
    lines = content_lines(text, keep_comments=False)
    st = _State()
    for line in lines:
        if line.command:
            st.command(line.command)
        st.feed(line)
    if not st.recognised:
        first = next((x for x in lines if x.text.strip()), None)
        if first is None:
            raise ParseError(COMMAND, "the log is empty")
        raise fail_on_line(COMMAND, first, "no vLLM log line found (expected lines such as `(APIServer pid=1) INFO "
                           "MM-DD HH:MM:SS [file.py:N] ...`, the version banner, `non-default args:` or the "
                           "KV-cache lines); paste the output of `vllm serve`")
    return st.result()


class _State:
    """Accumulates what parse_vllm_log reads, line by line."""

    def __init__(self) -> None:
        self.recognised = False
        self.version: str | None = None
        self.platform: str | None = None
        self.model: str | None = None
        self.args: dict[str, Any] | None = None
        self.args_truncated = False
        self.command_args: dict[str, str] | None = None
        self.config: dict[str, Any] = {}
        self.max_len_logged: int | None = None
        self.kv: list[dict[str, Any]] = []
        self.kv_memory: list[KvMemory] = []
        self.weights: list[float] = []
        self.events: list[LogEvent] = []
        self.event_index: dict[tuple[str, str, str | None], int] = {}
        self.stats: list[EngineStats] = []
        self.ranks: dict[tuple[int, int | None], dict[str, Any]] = {}
        self.ips: list[str] = []
        self.ray_address: str | None = None
        self.ready = False
        self.url: str | None = None
        self.client = False
        self.logged_world_size: int | None = None
        self.effective_util: float | None = None
        self.profile_util: float | None = None
        self.profile_weights: list[float] = []
        self._last_command: str | None = None

    # ---------------------------------------------------------------- inputs

    def command(self, command: str) -> None:
        if command == self._last_command:
            return
        self._last_command = command
        args = parse_serve_command(command)
        if args:
            self.command_args = {**(self.command_args or {}), **args}

    def feed(self, line: Line) -> None:
        rec = split_prefixes(line.text, line.no)
        msg = rec.message
        if not msg:
            return
        known = (rec.source is not None and rec.level is not None) or bool(
            rec.process and _VLLM_PROCS_RE.match(rec.process))
        if _CLIENT_RE.search(msg):
            self.client = True
        if rec.ip and rec.ip not in self.ips:
            self.ips.append(rec.ip)
        if self._startup_facts(rec, msg) | self._kv(rec, msg) | self._other(rec, msg) | self._event(rec, msg):
            known = True
        if known:
            self.recognised = True

    def _startup_facts(self, rec: LogLine, msg: str) -> bool:
        hit = False
        m = _BANNER_VERSION_RE.search(msg)
        if m:
            self.version = self.version or m.group("version")
            hit = True
        m = _BANNER_MODEL_RE.search(msg)
        if m:
            self.model = self.model or m.group("model")
            hit = True
        m = _ENGINE_CONFIG_RE.search(msg)
        if m:
            self.version = self.version or m.group("version")
            for key, value in _config_fields(m.group("cfg")).items():
                self.config.setdefault(key, value)
            hit = True
        m = _LAUNCH_VERSION_RE.search(msg)
        if m:
            self.version = self.version or m.group("version")
            hit = True
        m = _PLATFORM_RE.search(msg)
        if m:
            self.platform = self.platform or m.group("p")
            hit = True
        m = _NONDEFAULT_RE.search(msg) or _NAMESPACE_RE.search(msg)
        if m and self.args is None:
            opener = "{" if "non-default" in m.re.pattern else "("
            self.args, self.args_truncated = parse_python_mapping(m.group("d")[:MAX_ARGS_CHARS], opener)
            hit = True
        m = _MAX_LEN_RE.search(msg)
        if m:
            self.max_len_logged = int(m.group("n"))
            hit = True
        if (_serve_in_log(msg) or _API_SERVER_CMD_RE.search(msg)) and not _CLIENT_RE.search(msg):
            self.command(msg)
            hit = True
        return hit

    def _kv(self, rec: LogLine, msg: str) -> bool:
        tokens = _KV_TOKENS_RE.search(msg)
        conc = _KV_CONC_RE.search(msg)
        blocks = _KV_BLOCKS_RE.search(msg)
        if tokens:
            self.kv.append({"device": tokens.group("dev"), "tokens": _num(tokens.group("tokens")),
                            "max_model_len": _num(conc.group("len")) if conc else None,
                            "concurrency": float(conc.group("x")) if conc else None,
                            "gpu_blocks": None, "cpu_blocks": None,
                            "form": "one-line" if conc else "two-lines", "source": rec, "linenos": [rec.lineno]})
            return True
        if blocks:
            self.kv.append({"device": blocks.group("dev"), "tokens": None, "max_model_len": None,
                            "concurrency": None, "gpu_blocks": int(blocks.group("n")),
                            "cpu_blocks": int(blocks.group("cpu")) if blocks.group("cpu") else None,
                            "form": "blocks", "source": rec, "linenos": [rec.lineno]})
            return True
        if conc:
            target = next((k for k in reversed(self.kv) if k["concurrency"] is None
                           and k["source"].prefix == rec.prefix), None)
            target = target or next((k for k in reversed(self.kv) if k["concurrency"] is None), None)
            if target is None:  # the size line was cut off: keep what this line says
                self.kv.append({"device": None, "tokens": None, "max_model_len": _num(conc.group("len")),
                                "concurrency": float(conc.group("x")), "gpu_blocks": None, "cpu_blocks": None,
                                "form": "two-lines", "source": rec, "linenos": [rec.lineno]})
            else:
                target["max_model_len"] = _num(conc.group("len"))
                target["concurrency"] = float(conc.group("x"))
                target["linenos"].append(rec.lineno)
            return True
        for regex, kind in ((_KV_AVAIL_RE, "available"), (_KV_V0_RE, "reserved"), (_KV_CPU_RE, "explicit"),
                            (_AUTOFIT_RE, "auto-fit")):
            m = regex.search(msg)
            if m:
                total = float(m.group("total")) if "total" in m.groupdict() and m.group("total") else None
                gib = m.group("gib") or m.groupdict().get("gib2")
                self.kv_memory.append(KvMemory(float(gib), kind, rec, total))
                if kind == "auto-fit":
                    self.max_len_logged = int(m.group("to"))
                return True
        return False

    def _other(self, rec: LogLine, msg: str) -> bool:
        hit = False
        m = _WEIGHTS_RE.search(msg)
        if m:
            self.weights.append(float(m.group("gib")))
            hit = True
        m = _PROFILE_UTIL_RE.search(msg)
        if m:
            self.profile_util = self.profile_util or _as_float(m.group("util") or m.group("util2"))
            hit = True
        m = _PROFILE_WEIGHTS_RE.search(msg)
        if m and not self.weights:  # "Model loading took X GiB" says the same, per worker
            self.profile_weights.append(float(m.group("gib")))
            hit = True
        if _READY_RE.search(msg):
            self.ready = hit = True
        m = _URL_RE.search(msg)
        if m:  # printed once the engine is up (uvicorn listening / vLLM's own "Starting ... server on")
            self.url = self.url or m.group("url").rstrip(".")
            self.ready = hit = True
        m = _RAY_CONNECT_RE.search(msg)
        if m:
            self.ray_address = (m.group("addr") or m.group("addr2") or "").rstrip(".") or self.ray_address
            hit = True
        m = _STATS_RE.search(msg)
        if m:
            rest = m.group("rest")
            run = re.search(r"Running: (\d+) reqs", rest)
            wait = re.search(r"(?:Waiting|Pending): (\d+) reqs", rest)
            usage = re.search(r"KV cache usage: ([\d.]+)%", rest)
            hit_rate = re.search(r"Prefix cache hit rate: ([\d.]+)%", rest)
            self.stats.append(EngineStats(
                int(m.group("engine")) if m.group("engine") else None, float(m.group("p")), float(m.group("g")),
                int(run.group(1)) if run else None, int(wait.group(1)) if wait else None,
                float(usage.group(1)) if usage else None, float(hit_rate.group(1)) if hit_rate else None, rec))
            hit = True
        m = _RANK_INIT_RE.search(msg)
        if m:
            r = self._rank(int(m.group("rank")), rec)
            r.update(world_size=int(m.group("ws")), init_method=m.group("init"), backend=m.group("backend"))
            self.logged_world_size = int(m.group("ws"))
            hit = True
        m = _RANK_ASSIGN_RE.search(msg)
        if m:
            r = self._rank(int(m.group("rank")), rec)
            r["world_size"] = int(m.group("ws"))
            for key, label in (("dp_rank", "DP"), ("pp_rank", "PP"), ("tp_rank", "TP")):
                x = re.search(rf"(?<![A-Z]){label} rank (\d+)", m.group("rest"))
                if x:
                    r[key] = int(x.group(1))
            hit = True
        m = _DP_LEADER_RE.search(msg)
        if m:
            self.logged_world_size = int(m.group("ws"))
            hit = True
        m = _MQ_IP_RE.search(msg)
        if m and m.group("ip") == "0.0.0.0":
            self._add_event("no-host-ip", "warning", msg, {"mq_connect_ip": "0.0.0.0"}, rec)
            hit = True
        return hit

    def _rank(self, rank: int, rec: LogLine) -> dict[str, Any]:
        # One worker prints both rank lines under one pid (Ray's prefix pid is the worker's);
        # key by (rank, pid) so that each worker is one record, also with several DP groups.
        key = (rank, rec.pid)
        if key not in self.ranks:
            self.ranks[key] = {"rank": rank, "world_size": None, "pid": rec.pid, "ip": rec.ip}
        self.ranks[key]["ip"] = self.ranks[key]["ip"] or rec.ip
        return self.ranks[key]

    def _event(self, rec: LogLine, msg: str) -> bool:
        found = _match_event(msg)
        if found is None:
            return False
        kind, severity, numbers = found
        if kind == "cuda-graph-util":
            self.effective_util = _as_float(numbers.get("eff"))
        self._add_event(kind, severity, msg, numbers, rec)
        return True

    def _add_event(self, kind: str, severity: str, msg: str, numbers: dict[str, Any], rec: LogLine) -> None:
        # the same message from several processes (and its re-raise in a traceback) is one event
        norm = re.sub(r"\d+", "N", msg) if kind in ("gloo-retry", "pg-wait") else msg
        key = (kind, norm, rec.ip if kind not in ("gloo-retry", "pg-wait") else None)
        if key in self.event_index:
            i = self.event_index[key]
            old = self.events[i]
            merged = {**old.numbers, **{k: v for k, v in numbers.items() if k not in old.numbers}}
            if kind == "pg-wait":
                merged["seconds"] = max(old.numbers.get("seconds", 0), numbers.get("seconds", 0))
            self.events[i] = LogEvent(old.kind, old.severity, old.message, merged, old.source, old.count + 1)
            return
        # a re-raised exception line repeating a known error adds nothing
        if kind == "exception" and any(e.message.endswith(msg.split(": ", 1)[-1]) or msg.endswith(e.message)
                                       for e in self.events if e.kind != "exception"):
            return
        self.event_index[key] = len(self.events)
        self.events.append(LogEvent(kind, severity, msg, numbers, rec))

    # ---------------------------------------------------------------- output

    def result(self) -> VllmLog:
        args = self.args or {}
        cmd = self.command_args or {}
        cfg = self.config
        sources: dict[str, str] = {}

        def pick(name: str, conv, *, cfg_key: str | None = None):
            for where, mapping, key in (("engine config", cfg, cfg_key or name), ("non-default args", args, name),
                                        ("command line", cmd, name)):
                if key in mapping:
                    value = conv(mapping[key])
                    if value is not None:
                        sources[name] = where
                        return value
            return None

        parallel = ParallelConfig(
            tensor_parallel_size=pick("tensor_parallel_size", _as_int),
            pipeline_parallel_size=pick("pipeline_parallel_size", _as_int),
            data_parallel_size=pick("data_parallel_size", _as_int),
            data_parallel_size_local=pick("data_parallel_size_local", _as_int),
            expert_parallel=pick("enable_expert_parallel", _as_bool),
            distributed_executor_backend=pick("distributed_executor_backend",
                                              lambda v: str(v) if v not in (None, "None") else None),
            nnodes=pick("nnodes", _as_int),
            node_rank=pick("node_rank", _as_int),
            headless=pick("headless", _as_bool),
            logged_world_size=self.logged_world_size,
            sources=sources,
        )
        model = (self.model or _str_or_none(args.get("model")) or _str_or_none(args.get("model_tag"))
                 or _str_or_none(cfg.get("model")) or _str_or_none(cmd.get("model")))
        max_len = (self.max_len_logged or _as_int(args.get("max_model_len")) or _as_int(cfg.get("max_seq_len"))
                   or _as_int(cmd.get("max_model_len")))
        if max_len is None:
            max_len = next((k["max_model_len"] for k in self.kv if k["max_model_len"]), None)
        util = _as_float(args.get("gpu_memory_utilization")) or _as_float(cmd.get("gpu_memory_utilization"))
        util = util if util is not None else self.profile_util if self.profile_util is not None else self.effective_util
        ranks = tuple(WorkerRank(r["rank"], r.get("world_size"), r.get("pid"), r.get("ip"), r.get("tp_rank"),
                                 r.get("pp_rank"), r.get("dp_rank"), r.get("init_method"), r.get("backend"))
                      for r in sorted(self.ranks.values(), key=lambda r: (r["rank"], r["pid"] or 0)))
        return VllmLog(
            version=self.version, platform=self.platform, model=model, args=self.args,
            args_truncated=self.args_truncated, command_args=self.command_args, parallel=parallel,
            max_model_len=max_len, gpu_memory_utilization=util,
            kv=tuple(KvCapacity(k["device"], k["tokens"], k["max_model_len"], k["concurrency"], k["gpu_blocks"],
                                k["cpu_blocks"], k["form"], k["source"], tuple(k["linenos"])) for k in self.kv),
            kv_memory=tuple(self.kv_memory), weights_gib=tuple(self.weights or self.profile_weights),
            events=tuple(self.events),
            stats=tuple(self.stats), ranks=ranks, worker_ips=tuple(self.ips), ray_address=self.ray_address,
            ready=self.ready, url=self.url, client_output=self.client)


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


# --------------------------------------------------------------------------- diagnosis

@dataclass(frozen=True)
class Diagnosis:
    """What a log means: ``kind`` (an event kind, or ``not-ready``/``local-ray``...), ``message``
    (what happened, with the log's numbers), ``fix`` (what to do), ``severity`` (``fail``,
    ``warn``, ``info``: how the explain finding is levelled)."""

    kind: str
    message: str
    fix: str
    severity: str = "fail"


def diagnose(log: VllmLog) -> list[Diagnosis]:
    """Say what a launch's errors and warnings mean, most decisive first.

    Sources: procedure.md §3.4 (error strings, fixes), §4.2 (memory on a Spark), research
    vllm_cpu.md §6 and vllm_netns.md §4-6 (CPU platform and Ray, Gloo, /dev/shm, the silent
    hang). Returns [] for a clean log. Never raises.
    """
    out: list[Diagnosis] = []
    kinds = {e.kind for e in log.events}
    ev = {e.kind: e for e in reversed(log.events)}  # first occurrence wins
    for kind in _DIAG_ORDER:
        if kind in ev:
            d = _DIAGNOSERS[kind](ev[kind], log, kinds)
            if d is not None:
                out.append(d)
    if "exception" in ev and not any(d.severity == "fail" for d in out):
        e = ev["exception"]
        if log.ready:
            out.append(Diagnosis("exception", f"An exception was logged (`{e.message[:300]}`), but the server came "
                                 "up.", "If requests fail, read the traceback around it.", "warn"))
        else:
            out.append(Diagnosis("exception", f"The launch failed with `{e.message[:300]}`.",
                                 "Read the first traceback above it; paste the whole log from the start if the cause "
                                 "is not shown."))
    if "engine-init-failed" in kinds and not any(d.severity == "fail" and d.kind != "engine-init-failed" for d in out):
        procs = ev["engine-init-failed"].numbers.get("procs")
        out.append(Diagnosis("engine-init-failed", "The engine core failed to start"
                             + (f" (failed processes {procs})" if procs else "") + "; the root cause is printed above "
                             "this line and is not in the text given.",
                             "Paste the log from the start of `vllm serve`: the first ERROR or Traceback names the cause."))
    if not log.ready and log.has_startup and not any(d.severity == "fail" for d in out):
        hang = {"pg-wait", "no-gpu-resource", "no-host-ip"} & kinds
        if not hang:
            if log.kv:
                out.append(Diagnosis("not-ready", "The log stops after the KV cache was sized but before "
                                     "`Application startup complete`: the server was still starting (warm-up, "
                                     "graph capture) or the paste is cut.",
                                     "Wait for `Application startup complete`, then `curl http://<host>:8000/health`.",
                                     "info"))
            else:
                out.append(Diagnosis("not-ready", "No error in this log, and no `Application startup complete` either: "
                                     "the server was still starting, hung without an error (see `ray status`; in "
                                     "--nnodes mode a missing VLLM_HOST_IP hangs silently), or the paste is cut.",
                                     "Paste the whole log; if nothing new appears for minutes, check `ray status` "
                                     "for pending demands, and VLLM_HOST_IP on every node.", "info"))
    return out


def _d_world_size(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    ws, gpus = e.numbers.get("world_size"), e.numbers.get("gpus")
    return Diagnosis(
        "world-size",
        f"vLLM needs world size {ws} (TP x PP) but this node has {gpus} GPU(s), and no multi-node backend was "
        "given: since vLLM 0.13 it refuses rather than guess (0.12 switched to Ray silently).",
        "Add `--distributed-executor-backend ray` (with a Ray cluster that spans both nodes: `ray status` shows 2 "
        "nodes and 0.0/2.0 GPU), or use vLLM's own multi-node mode: `--nnodes 2 --node-rank 0 --master-addr "
        "<head QSFP address>` on the head and the same with `--node-rank 1 --headless` on the other node.")


def _d_kv_too_small(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    n = e.numbers
    est = n.get("estimated_max_len")
    if "needed_gib" in n and not float(n["needed_gib"]) and not float(n.get("available_gib") or 0):
        what = (f"A request of the full max model length ({n.get('max_model_len')} tokens) needs more KV cache than "
                "is left (vLLM prints both as 0.0 GiB: a cache of well under 0.05 GiB)")
    elif "needed_gib" in n:
        what = (f"A request of the full max model length ({n.get('max_model_len')} tokens) needs {n['needed_gib']} GiB "
                f"of KV cache but only {n['available_gib']} GiB is left after the weights and activations")
    else:
        what = (f"The max model length ({n.get('max_model_len')} tokens) does not fit the KV cache "
                f"({n.get('kv_tokens')} tokens)")
    est_words = f"; vLLM estimates the longest that fits at {est} tokens" if est else ""
    limit = f"--max-model-len {est}" if est else "a smaller --max-model-len"
    return Diagnosis("kv-too-small", what + est_words + ".",
                     f"Lower the context: {limit} (or less), or give the KV cache more memory: raise "
                     "--gpu-memory-utilization (on a DGX Spark stay near 0.8-0.85: unified memory also holds the OS), "
                     "spread the model over more GPUs (TP/PP), or use a quantized model or an fp8 KV cache "
                     "(--kv-cache-dtype fp8).")


def _d_no_kv_memory(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    return Diagnosis("no-kv-memory", "Nothing is left for the KV cache once the weights and activations are loaded.",
                     "Raise --gpu-memory-utilization, or use more GPUs (TP/PP) or a smaller (quantized) model.")


def _d_startup_memory(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    n = e.numbers
    return Diagnosis("startup-memory",
                     f"At startup only {n.get('free_gib')} of {n.get('total_gib')} GiB were free, less than the "
                     f"{n.get('wanted_gib')} GiB that --gpu-memory-utilization {n.get('utilization')} asks for.",
                     "Lower --gpu-memory-utilization below the free fraction, or free memory: stop other processes; "
                     "on a DGX Spark drop the page cache (`sudo sh -c 'sync; echo 3 > /proc/sys/vm/drop_caches'`) "
                     "and keep ~0.8-0.85 for the OS's share of unified memory. On the CPU backend set an explicit "
                     "KV size (VLLM_CPU_KVCACHE_SPACE=1 or --kv-cache-memory-bytes).")


def _d_oom(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    return Diagnosis("oom", "The GPU ran out of memory while loading or warming up.",
                     "Lower --max-model-len and --max-num-seqs, or --gpu-memory-utilization if another process holds "
                     "memory; spread the model over more GPUs; on a Spark drop the page cache first.")


def _d_cpu_no_ray(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    plat = e.numbers.get("platform", "cpu")
    return Diagnosis("cpu-no-ray",
                     f"vLLM's {plat} platform has no Ray device key, so `--distributed-executor-backend ray` is refused "
                     "before any worker starts (stock vllm-cpu; the GPU-style World-size error never appears).",
                     "Use the project's opt-in platform plugin (a CpuPlatform subclass with ray_device_key = \"GPU\"; "
                     "Ray nodes started with --num-gpus=1) with VLLM_CPU_RAY=1 set for both `ray start` commands and "
                     "for `vllm serve`; or run without Ray: `--nnodes 2 --node-rank 0|1 --master-addr <head>` "
                     "(--headless on the other node).")


def _d_ray_missing(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    return Diagnosis("ray-missing", "Ray is not installed where vLLM runs (vLLM >= 0.18 no longer depends on it; "
                     "NGC 26.05 and some vllm-openai images ship without it).",
                     "`pip install 'ray[default]'` in the container or venv on every node (NVIDIA's playbook patches "
                     "run_cluster.sh to do so), then start the Ray head and worker again.")


def _pg_words(log: VllmLog) -> str:
    need = log.parallel.world_size
    return (f"vLLM's Ray executor reserves one GPU per worker ({need} for TP x PP = "
            f"{log.parallel.tensor_parallel_size or 1} x {log.parallel.pipeline_parallel_size or 1})")


def _d_pg(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    waited = e.numbers.get("seconds")
    if e.kind == "pg-wait" and log.ready:
        return Diagnosis("pg-wait", f"vLLM waited for its Ray placement group ({waited} s or more), then got it and "
                         "started.", "Nothing to do; if it recurs, check `ray status` before launching.", "info")
    if e.kind == "pg-timeout":
        what = f"Ray could not place vLLM's workers within {waited} seconds and vLLM gave up. "
    else:
        what = (f"vLLM is waiting for a Ray placement group (still waiting after {waited} s): it does not fail, it "
                "hangs, for up to 1800 s (PG_WAIT_TIMEOUT). ")
    what += _pg_words(log) + ", and the Ray cluster cannot offer them."
    return Diagnosis(e.kind, what,
                     "Run `ray status`: it must show 2 active nodes and 0.0/2.0 GPU before launching. Usual causes: the "
                     "worker node has not joined; a node started without GPUs (on the sim cluster `ray start "
                     "--num-gpus=1`, in Docker `--gpus all`); another model already holds the GPUs (one TP=2 model "
                     "per Ray cluster); or Ray registered a node under another IP than vLLM uses (make VLLM_HOST_IP "
                     "and `--node-ip-address` the node's QSFP address).",
                     "fail" if e.kind == "pg-timeout" else "warn")


def _d_no_gpu_resource(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis | None:
    if "pg-wait" in kinds or "pg-timeout" in kinds or log.ready:
        return None
    req = e.numbers.get("request")
    return Diagnosis("no-gpu-resource",
                     f"Ray has no node that can give {req or 'the requested resources'}: the launch hangs rather than "
                     "failing, because the placement group waits (up to 1800 s) for resources that never come.",
                     "Check `ray status`: Ray must count a GPU on each node (on the sim cluster start Ray with "
                     "`--num-gpus=1`, a fake resource; in Docker pass `--gpus all`). Stop the launch (Ctrl-C), fix "
                     "Ray, launch again.", "warn")


def _d_pg_not_enough(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    return Diagnosis("pg-not-enough-gpus", "The placement group holds fewer GPUs than TP x PP needs. " + _pg_words(log) + ".",
                     "Make TP x PP equal the GPUs Ray reports (`ray status`), or add the missing node.")


def _d_no_gpu_on_node(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    return Diagnosis("no-gpu-on-node", "The node the engine runs on has no free GPU in Ray: another model on this "
                     "Ray cluster already reserved them, or the driver runs on a node without GPUs.",
                     "Serve one TP=2 model per Ray cluster (stop the other one, or start a second Ray cluster), and run "
                     "`vllm serve` on the head node, inside its container.")


def _d_no_gpu_driver(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    return Diagnosis("no-gpu-on-driver", "Ray gives no GPU to the node where `vllm serve` runs.",
                     "Run `vllm serve` on a node of the Ray cluster that has a GPU (the head, inside its container).")


def _d_dup_ip(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    return Diagnosis("duplicate-node-ip", "Two Ray nodes report the same IP address (vLLM needs one per node).",
                     "Start each node with its own `--node-ip-address` (its QSFP address) and set VLLM_HOST_IP to the "
                     "same address on each node.")


def _d_gloo_connect(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    remote = e.numbers.get("remote")
    if e.numbers.get("loopback") or (remote and str(remote).startswith("127.")):
        what = (f"Gloo tried to reach a peer at {remote}, a loopback address: without GLOO_SOCKET_IFNAME Gloo binds "
                "to the address the hostname resolves to (127.0.x.1 in /etc/hosts), which the other node cannot reach.")
    else:
        what = f"Gloo could not connect its process group{f' (remote {remote})' if remote else ''}."
    return Diagnosis("gloo-connect", what,
                     "Set GLOO_SOCKET_IFNAME to the QSFP interface (e.g. enp1s0f1np1) in the environment of `vllm "
                     "serve` (Ray's V2 executor copies it to the workers) and of `ray start` on each node; check the "
                     "peer's address is reachable (`ping`).")


def _d_gloo_iface(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    iface = e.numbers.get("iface", "?")
    where = f" on the node at {e.source.ip}" if e.source.ip else ""
    return Diagnosis("gloo-iface", f"GLOO_SOCKET_IFNAME names {iface}, which has no address{where}: no such "
                     "interface there, or it is down.",
                     f"Set GLOO_SOCKET_IFNAME to an interface that exists and carries the node's QSFP address on that "
                     f"node (`ip -br addr`). A value in a raylet's environment (set at `ray start`) beats the driver's: "
                     f"restart Ray on that node with the right value.")


def _d_shm(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    return Diagnosis("shm-open", "A worker could not open the shared-memory segment of its peer: the ranks are on "
                     "different machines (or namespaces with their own /dev/shm), but vLLM's CPU communicator thought "
                     "they shared one.",
                     "Use the node-aware communicator of the project's platform plugin (it falls back to "
                     "torch.distributed across nodes), or the --nnodes mode, which does so by itself.")


def _d_ray_node_timeout(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    return Diagnosis("ray-node-timeout", "`ray start` timed out registering this node: usually its "
                     "`--node-ip-address` is not an address of this machine (or the head is unreachable).",
                     "Give `ray start --node-ip-address` this node's own QSFP address (`ip -br addr`), and the worker "
                     "`--address=<head QSFP address>:6379`.")


def _d_no_host_ip(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    native = log.parallel.nnodes and log.parallel.nnodes > 1
    if native or "mq_connect_ip" in e.numbers:
        return Diagnosis("no-host-ip", "vLLM could not find its own address and advertises 0.0.0.0: in multi-node "
                         "mode (--nnodes) the other node dials 0.0.0.0, i.e. itself, and both sides wait with no "
                         "error (until VLLM_ENGINE_READY_TIMEOUT_S, 600 s).",
                         "Set VLLM_HOST_IP to the node's QSFP address on every node (head and headless worker), "
                         "then launch again.", "fail")
    return Diagnosis("no-host-ip", "vLLM could not find its own IP address (no default route) and used 0.0.0.0. "
                     "With Ray's V2 executor the addresses come from Ray, so this is only a warning.",
                     "Set VLLM_HOST_IP to the node's QSFP address to silence it; it is required in --nnodes mode.",
                     "info")


def _d_metadata(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    return Diagnosis("vllm-metadata", "The `vllm` command cannot find the distribution named `vllm` (the CPU "
                     "build is published as `vllm-cpu`).",
                     "Add the metadata alias (a `vllm-<version>+cpu.dist-info` with Name: vllm; the version must "
                     "contain `cpu`), or run `python -m vllm.entrypoints.openai.api_server`.")


def _d_vllm_missing(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    return Diagnosis("vllm-missing", "vLLM is not installed where this ran.",
                     "Run it inside the vLLM container (`docker exec -it <container> ...`) or the venv that has vLLM.")


def _d_local_ray(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    return Diagnosis("ray-local-instance", "vLLM found no running Ray cluster and started a new one-node Ray "
                     "instance: the other node is not part of it.",
                     "Run `vllm serve` where the Ray head runs (inside the head's container) or set "
                     "RAY_ADDRESS=<head QSFP address>:6379; `ray status` there must list both nodes.", "warn")


def _d_tp_local(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    return Diagnosis("tp-exceeds-local-gpus", f"vLLM warns that TP {e.numbers.get('tp')} exceeds this node's "
                     f"{e.numbers.get('gpus')} GPU(s). On two Sparks (one GPU each) it always prints this and it is "
                     "harmless when Ray counts the GPUs of both nodes.",
                     "Nothing to do if `ray status` shows 2.0 GPUs in total.", "info")


def _d_tp_spans(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    return Diagnosis("tp-spans-nodes", f"Tensor-parallel workers are spread over several nodes (TP "
                     f"{e.numbers.get('tp')}, {e.numbers.get('gpus')} GPU per node): expected on a Spark pair; every "
                     "layer's all-reduce crosses the QSFP link, so it must be the fast one.",
                     "Nothing to do; keep NCCL on the QSFP link (NCCL_SOCKET_IFNAME / NCCL_IB_HCA).", "info")


def _d_engine_dead(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis | None:
    if log.ready:
        return Diagnosis("engine-dead", "The engine died after the server came up (a request crashed it).",
                         "Read the traceback before `EngineDeadError`; with PP and --enforce-eager on the CPU build "
                         "this is a known bug: drop --enforce-eager.")
    return None


def _d_nccl(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    return Diagnosis("nccl-error", "NCCL failed between the workers" + (f" (on {e.source.ip})" if e.source.ip else "")
                     + ": the GPUs could not set up or use their connection over the network.",
                     "Check that NCCL_SOCKET_IFNAME and NCCL_IB_HCA name the QSFP twins that are Up (`ibdev2netdev`), "
                     "NCCL_IB_GID_INDEX=3 on RoCE, and that the containers see /dev/infiniband (--device or "
                     "--privileged, IPC_LOCK, memlock); rerun with NCCL_DEBUG=INFO and explain that log.")


def _d_device_type(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    return Diagnosis("device-type", "vLLM found no platform to run on.",
                     "On a GPU machine the container does not see the GPU (`docker run --gpus all`, `nvidia-smi` "
                     "inside it); on the CPU build the `vllm` metadata version must contain `cpu` (e.g. 0.32.0+cpu).")


def _d_cpu_binding(e: LogEvent, log: VllmLog, kinds: set[str]) -> Diagnosis:
    par = log.parallel
    if par.world_size > 1 and par.distributed_executor_backend != "ray" and not (par.nnodes or 0) > 1:
        # vLLM raises its World size error on CUDA only; the CPU build instead starts every rank on
        # this node and fails binding their threads (seen on the sim: fault serve-no-ray-backend)
        return Diagnosis("cpu-thread-binding", f"World size {par.world_size} (TP x PP) was started on this one node: "
                         "without a multi-node backend vLLM's CPU build runs every rank locally and cannot bind their "
                         "threads (on GPUs vLLM refuses with `World size (2) is larger than the number of available "
                         "GPUs (1) in this node`).",
                         "Add `--distributed-executor-backend ray` (with a Ray cluster spanning both nodes), or use "
                         "vLLM's own multi-node mode (`--nnodes 2 --node-rank 0|1 --master-addr <head QSFP "
                         "address>`, `--headless` on the other node).")
    return Diagnosis("cpu-thread-binding", "The CPU backend cannot bind each rank's threads to its own NUMA node "
                     "(one NUMA node, several ranks).",
                     "Bind by hand, one core list per rank: VLLM_CPU_OMP_THREADS_BIND='0|1' (two ranks on a 2-core "
                     "machine).")


_DIAGNOSERS = {
    "world-size": _d_world_size, "kv-too-small": _d_kv_too_small, "no-kv-memory": _d_no_kv_memory,
    "startup-memory": _d_startup_memory, "oom": _d_oom, "cpu-no-ray": _d_cpu_no_ray, "ray-missing": _d_ray_missing,
    "pg-timeout": _d_pg, "pg-wait": _d_pg, "pg-not-enough-gpus": _d_pg_not_enough,
    "no-gpu-resource": _d_no_gpu_resource, "no-gpu-on-node": _d_no_gpu_on_node, "no-gpu-on-driver": _d_no_gpu_driver,
    "duplicate-node-ip": _d_dup_ip, "gloo-connect": _d_gloo_connect, "gloo-iface": _d_gloo_iface,
    "shm-open": _d_shm, "nccl-error": _d_nccl, "device-type": _d_device_type,
    "cpu-thread-binding": _d_cpu_binding, "ray-node-timeout": _d_ray_node_timeout, "no-host-ip": _d_no_host_ip,
    "vllm-metadata": _d_metadata, "vllm-missing": _d_vllm_missing, "ray-local-instance": _d_local_ray,
    "tp-exceeds-local-gpus": _d_tp_local, "tp-spans-nodes": _d_tp_spans, "engine-dead": _d_engine_dead,
}
_DIAG_ORDER = tuple(_DIAGNOSERS)
