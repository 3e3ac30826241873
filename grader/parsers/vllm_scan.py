"""What one message of a ``vllm serve`` log matches: the patterns :mod:`.vllm_log`'s reader searches a message with,
and :class:`Scanner`, which searches each distinct message once.

A log says the same messages again and again (every worker prints its startup lines, a log pasted from several
runs or nodes repeats them, only their clock times and pids differ): what a message matches depends on its text
alone, so :class:`Scan` (every pattern's match, behind the gates below) is found once per distinct message of a
log, and the reader applies it to its state line by line, as it did searching each line.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from .common import gated_search, literal_gate
from .common.chunks import drop_resolved
from .vllm_cmdline import _API_SERVER_CMD_RE, _SERVE_IN_LOG_RE, _serve_in_log
from . import vllm_events
from .vllm_events import _match_event

# --------------------------------------------------------------------------- patterns

_VERSION = r"v?(?P<version>\d+\.\d+(?:\.\d+)?(?:[\w.+-]*[\w+])?)"
_BANNER_VERSION_RE = re.compile(r"(?:vLLM API server version|▀ █\s+version|█\s+version)\s+" + _VERSION)
_ENGINE_CONFIG_RE = re.compile(r"(?:Initializing an? (?:V1 )?|Dumping input data for V1 )LLM engine (?:\(" + _VERSION
                               + r"\) )?with config:(?P<cfg>.*)$")  # (the second: the dump a V1 engine writes as it fails)
_LAUNCH_VERSION_RE = re.compile(r"(?:Launching vLLM \(|\bvLLM [Vv]ersion:? )" + _VERSION)
_BANNER_MODEL_RE = re.compile(r"█\s+model\s+(?P<model>\S+)")
_PLATFORM_RE = re.compile(r"Automatically detected platform (?P<p>[\w-]+)")
_NONDEFAULT_RE = re.compile(r"non-default args: (?P<d>\{.*)$")
_NAMESPACE_RE = re.compile(r"\bargs: Namespace\((?P<d>.*)$")
_MAX_LEN_RE = re.compile(r"Using max model len (?P<n>\d+)")
_WEIGHTS_RE = re.compile(r"(?:Model loading took|Loading model weights took) (?P<gib>\d+(?:\.\d+)?) ?Gi?B")
_READY_RE = re.compile(r"Application startup complete")
_URL_RE = re.compile(r"(?:Uvicorn running on|Starting vLLM (?:API )?server(?: \d+)? on) (?P<url>https?://\S+)")
SERVER_UP_RE = re.compile(f"{_READY_RE.pattern}|{_URL_RE.pattern}")
"""A line a vLLM server prints once it is up (what makes a parsed log ``ready`` or gives its ``url``), for a reader
of the raw text."""
_RAY_CONNECT_RE = re.compile(r"Connecting to existing Ray cluster at address: (?P<addr>\S*[^\s.]|\.)\.*$"
                             r"|Using address (?P<addr2>\S+) set in the environment variable RAY_ADDRESS")

_KV_TOKENS_RE = re.compile(r"(?:(?P<dev>\b[A-Za-z]+(?: \+ host)?) )?KV cache size: (?P<tokens>[\d,]+) tokens")
_KV_CONC_RE = re.compile(r"Maximum concurrency for (?P<len>[\d,]+) tokens per request: (?P<x>\d+(?:\.\d+)?)x")
_KV_BLOCKS_RE = re.compile(r"# (?P<dev>\w+) blocks: (?P<n>\d+)(?:, # CPU blocks: (?P<cpu>\d+))?")
_KV_AVAIL_RE = re.compile(r"Available KV cache memory: (?P<gib>-?\d+(?:\.\d+)?) ?GiB")
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
# the startup memory check (vllm/v1/worker/gpu_worker.py): its INFO line after profiling, often wrapped after
# "on startup.", and its ValueError ("... on startup is less than desired GPU memory utilization (U, W GiB)")
_FREE_MEM_RE = re.compile(r"(?:Free|Available) memory on (?:device|node \d+)(?: [\w:]+)? \((?P<free>\d+(?:\.\d+)?)/"
                          r"(?P<total>\d+(?:\.\d+)?) ?GiB\) on startup(?P<less> is less than)?")
_DESIRED_MEM_RE = re.compile(r"[Dd]esired (?P<dev>GPU|CPU) memory utilization (?:is )?\((?P<util>\d+(?:\.\d+)?), ?"
                             r"(?P<wanted>\d+(?:\.\d+)?) ?GiB\)")
_CLIENT_RE = re.compile(r"Serving Benchmark Result|Starting main benchmark run|Namespace\(subparser='bench'"
                        r"|^Traffic request rate:|vllm bench serve")


# The texts each method of vllm_log._State needs one of before any of its patterns can match (parsers.common.literal_gate):
# a message without one is not searched with that method's patterns, one search instead of one per pattern. Each
# gate lists every pattern its method reads (_SERVE_IN_LOG_RE is answered for by _serve_in_log); _ANY_GATE every
# pattern _State.feed and its methods read (the exceptions' too), so most messages are asked one search, not one per
# method.
_STARTUP_PATTERNS = (_BANNER_VERSION_RE, _BANNER_MODEL_RE, _ENGINE_CONFIG_RE, _LAUNCH_VERSION_RE, _PLATFORM_RE,
                     _NONDEFAULT_RE, _NAMESPACE_RE, _MAX_LEN_RE, _API_SERVER_CMD_RE)
_KV_PATTERNS = (_KV_TOKENS_RE, _KV_CONC_RE, _KV_BLOCKS_RE, _KV_AVAIL_RE, _KV_V0_RE, _KV_CPU_RE, _AUTOFIT_RE)
_OTHER_PATTERNS = (_WEIGHTS_RE, _PROFILE_UTIL_RE, _PROFILE_WEIGHTS_RE, _READY_RE, _URL_RE, _RAY_CONNECT_RE, _STATS_RE,
                   _RANK_INIT_RE, _RANK_ASSIGN_RE, _DP_LEADER_RE, _MQ_IP_RE)
_STARTUP_GATE, _KV_GATE, _OTHER_GATE = map(literal_gate, (_STARTUP_PATTERNS + (_SERVE_IN_LOG_RE,), _KV_PATTERNS,
                                                          _OTHER_PATTERNS))
_ANY_GATE = literal_gate(_STARTUP_PATTERNS + _KV_PATTERNS + _OTHER_PATTERNS + (
    _SERVE_IN_LOG_RE, _CLIENT_RE, _FREE_MEM_RE, _DESIRED_MEM_RE, vllm_events._EXCEPTION_RE)
    + tuple(p for _, _, p in vllm_events._EVENT_PATTERNS))

# what Scan is searched with, each behind a search for the texts its matches hold
# (parsers.common.gated_search, the same answers): the patterns above, named without "_RE"
(_BANNER_VERSION, _BANNER_MODEL, _ENGINE_CONFIG, _LAUNCH_VERSION, _PLATFORM, _NONDEFAULT, _NAMESPACE,
 _MAX_LEN, _API_SERVER_CMD, _KV_TOKENS, _KV_CONC, _KV_BLOCKS, _FREE_MEM, _DESIRED_MEM, _CLIENT) = map(gated_search, (
    _BANNER_VERSION_RE, _BANNER_MODEL_RE, _ENGINE_CONFIG_RE, _LAUNCH_VERSION_RE, _PLATFORM_RE, _NONDEFAULT_RE,
    _NAMESPACE_RE, _MAX_LEN_RE, _API_SERVER_CMD_RE, _KV_TOKENS_RE, _KV_CONC_RE, _KV_BLOCKS_RE,
    _FREE_MEM_RE, _DESIRED_MEM_RE, _CLIENT_RE))


_KV_MEMORY = ((_KV_AVAIL_RE, "available"), (_KV_V0_RE, "reserved"), (_KV_CPU_RE, "explicit"), (_AUTOFIT_RE, "auto-fit"))
"""The KV-cache memory lines, in the order they are tried, each with the name it is kept under (KvMemory.kind)."""


class Scan(NamedTuple):
    """What one message matches (each field a match or None; a group of them None when its gate says none of its
    patterns can match). ``gated``: whether any pattern the reader asks can match (else only an event wrapped over
    lines may be read from it, which depends on the lines above, not on this message alone); ``startup``: the banner's
    version and model, the engine config, the launch version, the platform, the non-default args (or Namespace), the
    max model len, and whether it is a serve command line that is no client's; ``kv``: tokens, concurrency, blocks, and
    the first KV memory line with its kind (asked only where none of the three matched); ``other``: weights, profiled
    utilisation, profiled weights, ready, URL, Ray's address, stats, the two rank lines, the DP leader, the mq IP;
    ``memory``: the free-memory and desired-memory halves of the startup check; ``event``: vllm_events._match_event's."""

    gated: bool
    client: bool = False
    startup: tuple[Any, ...] | None = None
    kv: tuple[Any, ...] | None = None
    other: tuple[Any, ...] | None = None
    memory: tuple[Any, Any] = (None, None)
    event: tuple[str, str, dict[str, Any]] | None = None


_UNGATED = Scan(False)


def scan(msg: str) -> Scan:
    """Every pattern's match in ``msg`` (see :class:`Scan`): the searches the reader made of each line, made once."""
    if not _ANY_GATE(msg):
        return _UNGATED
    client = _CLIENT(msg) is not None
    startup = kv = other = None
    if _STARTUP_GATE(msg):
        startup = (_BANNER_VERSION(msg), _BANNER_MODEL(msg), _ENGINE_CONFIG(msg), _LAUNCH_VERSION(msg), _PLATFORM(msg),
                   _NONDEFAULT(msg) or _NAMESPACE(msg), _MAX_LEN(msg),
                   bool(_serve_in_log(msg) or _API_SERVER_CMD(msg)) and not client)
    if _KV_GATE(msg):
        tokens, conc, blocks = _KV_TOKENS(msg), _KV_CONC(msg), _KV_BLOCKS(msg)
        memory = None
        if not (tokens or blocks or conc):
            memory = next(((m, kind) for regex, kind in _KV_MEMORY if (m := regex.search(msg))), None)
        kv = (tokens, conc, blocks, memory)
    if _OTHER_GATE(msg):
        other = tuple(regex.search(msg) for regex in (_WEIGHTS_RE, _PROFILE_UTIL_RE, _PROFILE_WEIGHTS_RE, _READY_RE,
                                                      _URL_RE, _RAY_CONNECT_RE, _STATS_RE, _RANK_INIT_RE,
                                                      _RANK_ASSIGN_RE, _DP_LEADER_RE, _MQ_IP_RE))
    return Scan(True, client, startup, kv, other, (_FREE_MEM(msg), _DESIRED_MEM(msg)), _match_event(drop_resolved(msg)))


MAX_SCANS = 20_000
"""At most this many distinct messages' scans are kept while one log is read (a log of more distinct messages has
the rest scanned each time, as before: its memory stays bounded)."""


class Scanner:
    """:func:`scan`, each distinct message searched once while one log is read (its scans kept, at most MAX_SCANS).
    A scan's event numbers are a fresh dict each time asked, as :func:`vllm_events._match_event` makes one per call."""

    __slots__ = ("_scans",)

    def __init__(self) -> None:
        self._scans: dict[str, Scan] = {}

    def __call__(self, msg: str) -> Scan:
        found = self._scans.get(msg)
        if found is None:
            found = scan(msg)
            if len(self._scans) < MAX_SCANS:
                self._scans[msg] = found
        if found.event is not None:
            kind, severity, numbers = found.event
            return found._replace(event=(kind, severity, dict(numbers)))
        return found
