"""The errors, warnings and notable events of a vLLM log, by name: each line's message to a kind and its numbers.

The exact strings come from vLLM's sources and real launches (shared/research/procedure.md §3.4,
research/vllm_cpu.md, research/vllm_netns.md §5). What each kind means, and its fix, is not decided
here: that is the diagnosis table (checks/diagnoses.toml, read by grader.diagnoses).
"""

from __future__ import annotations

import ast
import re
from typing import Any

from .common import literal_gate

_EXCEPTION_RE = re.compile(r"^(?:\|[ \t]{1,4})?(?:[\w.]+\.)?(?P<exc>[A-Z]\w*(?:Error|Exception))(?::\s*(?P<msg>.*))?$")
_CUDAGRAPH_UTIL_RE = re.compile(r"--gpu-memory-utilization=(?P<cur>\d+(?:\.\d+)?) is equivalent to "
                                r"--gpu-memory-utilization=(?P<eff>\d+(?:\.\d+)?)")

# kind, severity, pattern; the first that matches a line wins (specific before general)
_EVENT_PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("world-size", "error", re.compile(
        r"World size \((?P<world_size>\d+)\) is larger than the number of available GPUs \((?P<gpus>\d+)\)")),
    ("world-size", "error", re.compile(
        r"please set tensor_parallel_size \((?P<world_size>\d+)\) to less than max local gpu count "
        r"\((?P<gpus>\d+)\)")),
    ("kv-too-small", "error", re.compile(
        r"max seq len \((?P<max_model_len>\d+)\),\s*\(?(?P<needed_gib>\d+(?:\.\d+)?) GiB KV cache is needed, which is larger "
        r"than the available KV cache memory \((?P<available_gib>\d+(?:\.\d+)?) GiB\)(?:\. Based on the available memory, "
        r"(?:the )?estimated maximum model length is (?P<estimated_max_len>\d+))?")),
    ("kv-too-small", "error", re.compile(
        r"The model's max seq len \((?P<max_model_len>\d+)\) is larger than the maximum number of tokens that can "
        r"be stored in KV cache \((?P<kv_tokens>\d+)\)")),
    ("no-kv-memory", "error", re.compile(r"No available memory for the cache blocks")),
    ("startup-memory", "error", re.compile(
        r"(?:Free|Available) memory on (?:device|node \d+)(?: [\w:]+)? \((?P<free_gib>\d+(?:\.\d+)?)/(?P<total_gib>\d+(?:\.\d+)?) GiB\) on "
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
        r"No available node types can fulfill resource request (?:defaultdict\(<class 'float'>, )?"  # (Ray 1's form)
        r"(?P<request>\{(?:(?!No available node types )[^}\n])*+\})"
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
        r"NCCL error\b(?!: \{)|nccl(?:SystemError|UnhandledCudaError|InternalError|RemoteError|InvalidUsage)"
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
        r"\w+\) in a node(?: (?P<node>\w+))?")),  # (a poster's `in a node ...`: the node's id left out)
    ("pg-created", "info", re.compile(r"No current placement group found\. Creating a new placement group")),
    ("ray-connected", "info", re.compile(r"Connected to Ray cluster")),
    ("engine-init-failed", "error", re.compile(
        r"Engine core initialization failed\.?(?: See root cause above\.)?(?: Failed core proc\(s\): (?P<procs>\{.*\}))?")),
    ("engine-dead", "error", re.compile(r"EngineDeadError|Engine core proc \S+ died unexpectedly")),
    ("engine-start-failed", "error", re.compile(r"\bEngineCore failed to start\b")),
    # a traceback's first line: the launch raised; its exception line may be cut off below (or not pasted)
    ("traceback", "warning", re.compile(r"\bTraceback \(most recent call last\):")),
    ("cuda-graph-util", "info", _CUDAGRAPH_UTIL_RE),
)

_ANY_EVENT = literal_gate(pattern for _, _, pattern in _EVENT_PATTERNS)
"""False for a message none of the patterns above can match (one search for the texts each needs, not one per pattern)."""

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
    for kind, severity, pattern in _EVENT_PATTERNS if _ANY_EVENT(message) else ():
        m = pattern.search(message)
        if m:
            numbers = _numbers(m)
            if kind == "pg-wait" and "specs" in numbers:
                numbers.update(_bundle_counts(numbers["specs"]))
            if kind == "gloo-connect" and str(numbers.get("remote", "")).startswith("127."):
                numbers["loopback"] = True
            if kind == "gloo-connect" and "Connection refused" in message:
                numbers["refused"] = "refused"
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
