"""What a vLLM log is read into: the typed records of :func:`grader.parsers.vllm_log.parse_vllm_log`.

Units and the versions that print each line are in the docstring of :mod:`grader.parsers.vllm_log`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .vllm_lines import LogLine

# a worker process's prefix with its place in the layout: "(VllmWorker TP1 pid=9)", "(Worker_PP1 pid=9)",
# "(Worker_TP0_EP0 pid=9)", "(Worker_PP0_TP1 pid=9)"
_WORKER_TAG_RE = re.compile(r"\((?:VllmWorker |Worker_)(?P<tags>(?:(?:DP|PP|TP|EP)\d{1,4}_?){1,4}) pid=")
_TAG_RE = re.compile(r"(DP|PP|TP|EP)(\d+)")

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
class MemoryCheck:
    """vLLM's startup memory check: ``Free memory on device (F/T GiB) on startup`` and ``Desired GPU memory
    utilization is (U, W GiB)`` (the INFO line after profiling, 0.11 on, one line or wrapped), or its
    ValueError form (``... on startup is less than desired GPU memory utilization (U, W GiB)``).

    ``free_gib`` / ``total_gib`` what the device had free at startup; ``utilization`` and ``wanted_gib``
    (U x T) what --gpu-memory-utilization asks for (None when that half is not in the paste); ``failed``
    when the log says the check failed (``is less than``) or the figures show it (F < W); ``device`` ``GPU``
    or ``CPU``; ``source`` the free-memory line.
    """

    free_gib: float
    total_gib: float
    utilization: float | None
    wanted_gib: float | None
    failed: bool
    source: LogLine
    device: str = "GPU"

    @property
    def margin_gib(self) -> float | None:
        """Free minus wanted (GiB): what the check passed by (negative: failed by), None without the wanted half."""
        return None if self.wanted_gib is None else self.free_gib - self.wanted_gib


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
    ``memory_check`` the startup memory check (:class:`MemoryCheck`), None when not in the log;
    ``client_output`` when the text holds a client's output (``vllm bench serve``), which is not a
    server log; ``text`` the text that was read, as given (for what no event names: a table of
    diagnoses may match it line by line; left out of ``repr`` and ``==``).
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
    memory_check: MemoryCheck | None = None
    text: str = field(default="", repr=False, compare=False)

    @property
    def has_startup(self) -> bool:
        """Whether the log shows the server starting (version, args, engine config, parallel sizes,
        KV cache, or readiness), as opposed to a fragment (NCCL lines, a client's output)."""
        return bool(self.version or self.args or self.parallel.sources or self.kv or self.kv_memory
                    or self.ready or self.max_model_len)

    @property
    def command_only(self) -> bool:
        """Whether the text holds a ``vllm serve`` command line and nothing the server printed (a launch
        configuration pasted without its log)."""
        return bool(self.command_args) and not (self.version or self.args or self.kv or self.kv_memory or self.events
                                                or self.stats or self.ready or self.ranks or self.weights_gib
                                                or self.worker_ips or self.platform)

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

    def worker_sizes(self) -> dict[str, int]:
        """The parallel sizes the workers' process prefixes show at least (``(VllmWorker TP1 pid=9)``,
        ``(Worker_PP1_TP0 pid=9)``): ``{"TP": 2, "PP": 2}`` = the highest rank of each seen, plus one; {} when the log
        names no such worker. A lower bound: a paste may show only some workers."""
        seen: dict[str, int] = {}
        for m in _WORKER_TAG_RE.finditer(self.text) if "Worker" in self.text else ():
            for dim, rank in _TAG_RE.findall(m.group("tags")):
                seen[dim] = max(seen.get(dim, 0), int(rank) + 1)
        return seen
