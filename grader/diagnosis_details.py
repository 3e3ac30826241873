"""The conditions of checks/diagnoses.toml that a pattern cannot say (an entry's ``detail``): each a function of the log
(None when :func:`grader.diagnoses.diagnose_text` reads plain text), the values read so far and the whole text, that
returns more values for the entry's texts, or None when the entry does not apply. Never words or figures: those are
the table's."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, Mapping

from grader.judges.context import context  # what `explain --host/--nodes` says of the paste
from grader.parsers.common import BYTE_UNITS

if TYPE_CHECKING:
    from grader.parsers.vllm_log import VllmLog

LOG_FLAGS: dict[str, Callable[[VllmLog], bool]] = {
    "ready": lambda log: log.ready,
    "served": lambda log: log.ready or bool(log.stats),  # started, or its engine's stats lines show it serving
    "has_startup": lambda log: log.has_startup,
    "has_kv": lambda log: bool(log.kv),
    "multi_node": lambda log: (log.parallel.nnodes or 0) > 1,
    # every rank started on this node: several ranks, neither Ray nor vLLM's --nnodes mode
    "single_node_ranks": lambda log: (log.parallel.world_size > 1 and log.parallel.distributed_executor_backend != "ray"
                                      and not (log.parallel.nnodes or 0) > 1),
    # ... or one machine as `explain --nodes 1` says (what the log's layout cannot show)
    "one_machine": lambda log: LOG_FLAGS["single_node_ranks"](log) or context().nodes == 1,
    # ... only as `explain --nodes 1` says (a log whose backend is not named may still be Ray's, across machines)
    "told_one_machine": lambda log: context().nodes == 1,
    "command_only": lambda log: log.command_only,  # the `vllm serve` command and nothing it printed
    "several_ranks": lambda log: log.parallel.world_size > 1,  # TP x PP over more than one GPU
}
"""What an entry's ``when`` may ask of the whole log (``when = { ready = false }``)."""


def _kv_rounds_to_zero(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies when vLLM printed both the needed and the available KV cache as zero GiB."""
    try:
        zero = not float(values["needed_gib"]) and not float(values.get("available_gib") or 0)
    except (KeyError, TypeError, ValueError):
        return None
    return {} if zero else None


def _advertises_nothing(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies when the 0.0.0.0 address is what the other node dials: vLLM's --nnodes mode (the
    DP leader's ``mq_connect_ip=0.0.0.0``, or ``--nnodes`` over one)."""
    return {} if "mq_connect_ip" in values or (log is not None and LOG_FLAGS["multi_node"](log)) else None


_RAY_ACTIVE_RE = re.compile(r"^[ \t]*Active:[ \t\r]*\n((?:[ \t]+\d+[ \t]+node_\w+[^\n]*(?:\n|\Z))+)", re.MULTILINE)
_RAY_GPUS_RE = re.compile(r"^[ \t]*\d+(?:\.\d+)?/(?P<total>\d+(?:\.\d+)?)[ \t]+GPU\b", re.MULTILINE)


def _one_gpu_nodes(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies when a ``ray status`` in the text counts exactly one GPU per active node (two Sparks: 2 nodes, 0.0/2.0
    GPU): PACK on such nodes is the reported fault; on multi-GPU nodes a pending PACK group has another cause (the
    driver's ``node:<IP>`` is not a Ray node's), which this entry must not claim."""
    active = _RAY_ACTIVE_RE.search(text)
    gpus = _RAY_GPUS_RE.search(text)
    if active is None or gpus is None:
        return None
    nodes = sum(int(n) for n in re.findall(r"^[ \t]+(\d+)[ \t]+node_", active.group(1), re.MULTILINE))
    return {"nodes": nodes} if nodes >= 2 and float(gpus.group("total")) == nodes else None


_CX7_IFACE_RE = re.compile(r"\ben(?:P\d+)?p\d+s\d+f\dnp\d\b")
_NETWORKD_RE = re.compile(r"^[ \t]*renderer:[ \t]*[\"']?networkd\b", re.MULTILINE)


def _cx7_under_networkmanager(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies when the netplan text that names NetworkManager as renderer also defines a ConnectX-7
    port (enp1s0f1np1, enP2p1s0f1np1 ...) and no file in it hands the ports to networkd."""
    iface = _CX7_IFACE_RE.search(text)
    return None if iface is None or _NETWORKD_RE.search(text) else {"iface": iface.group(0)}


def _on_a_spark(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies on a DGX Spark (or another GB10 machine): `explain --host spark`, or, with the host not said, a line
    only a Spark prints (its ConnectX-7 hotplug driver, the GB10's name)."""
    host = context().host
    return {} if host == "spark" or host is None and any(m in text for m in ("cx7-pcie-hotplug", "GB10")) else None


def _local_peers(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies unless NCCL says each node has one rank (`localRanks 1`): then no GPU of this machine has a peer."""
    return None if re.search(r"\blocalRanks 1\b", text) and not re.search(r"\blocalRanks [2-9]", text) else {}


def _fastsafetensors_across_nodes(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies when the log's arguments (``non-default args`` or a ``vllm serve`` command line in the paste) load the
    weights with fastsafetensors and the log shows more than one node: ``--nnodes`` above 1, or vLLM processes
    that Ray ran on other nodes (``ip=`` prefixes). A Ray backend alone does not say (one machine with several
    GPUs uses it too). ``across``: how the log shows the nodes."""
    if log is None:
        return None
    fmt = (log.args or {}).get("load_format") or (log.command_args or {}).get("load_format")
    if str(fmt).strip("'\"").lower() != "fastsafetensors":
        return None
    if (log.parallel.nnodes or 0) > 1:
        return {"across": f"across {log.parallel.nnodes} nodes (--nnodes)"}
    if log.worker_ips:
        return {"across": f"with Ray workers on other nodes ({', '.join(log.worker_ips)})"}
    return None


_CGRAPH_SET_RE = re.compile(r"(?P<day>\d\d-\d\d) (?P<time>\d\d:\d\d:\d\d)\b[^\n]*RAY_CGRAPH_get_timeout is set to "
                            r"(?P<timeout>\d+)")
_STAMP_RE = re.compile(r"\b(?P<day>\d\d-\d\d) (?P<time>\d\d:\d\d:\d\d)\b")


def _timeout_not_applied(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies when vLLM logged the compiled-graph timeout it set (``RAY_CGRAPH_get_timeout is set to N``) and the
    failed read's line is stamped the same day less than N seconds later: every read began after the setting, so
    one that failed sooner did not wait N seconds. ``timed_out``: the text names the timeout itself."""
    set_at = _CGRAPH_SET_RE.search(text)
    failed = _STAMP_RE.search(str(values.get("line", "")))
    if set_at is None or failed is None or failed.group("day") != set_at.group("day"):
        return None
    seconds = [sum(int(x) * 60 ** i for i, x in enumerate(reversed(m.group("time").split(":")))) for m in (set_at, failed)]
    after, timeout = seconds[1] - seconds[0], int(set_at.group("timeout"))
    if not 0 <= after < timeout:
        return None
    return {"after": after, "timeout": timeout, "set_at": set_at.group("time"),
            "timed_out": "RayChannelTimeoutError" if "RayChannelTimeoutError" in text else None}


def _several_local_gpus(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies when the node that warned has more than one GPU (``GPUs (8)``): unlike a Spark's one, TP across its
    nodes is a choice, and TP within a node with PP across is the usual layout."""
    try:
        return {} if int(values.get("gpus") or 0) > 1 else None
    except (TypeError, ValueError):
        return None


def _aer_recovered(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies when the kernel recovered every device it tried to: no ``recovery failed`` and no ``can't recover``
    anywhere in the text (those are the failure the next entries say)."""
    return None if "recovery failed" in text or "can't recover" in text else {}


_SGLANG_STEP_RE = re.compile(r"^\[[^\]\n]{0,60}\] (?P<step>(?:Init torch distributed|Load weight|"
                             r"Memory pool|Capture cuda graph|Init attention backend)[^\n]{0,120})$", re.MULTILINE)


_FINAL_EXCEPTION_RE = re.compile(r"^(?P<exc>[A-Z]\w{0,60}(?:Error|Exception|Exit)): (?P<msg>[^\n]{1,200})$", re.MULTILINE)


def _sglang_step(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """The last start-up step an SGLang worker logged before the matched line (``Capture cuda graph begin. ...``), as
    ``step``, and the exception line its traceback ends in when the paste shows it (``raised``); always applies."""
    at = text.find(values.get("line", "\0"))
    steps = [m.group("step").strip() for m in _SGLANG_STEP_RE.finditer(text, 0, at if at >= 0 else len(text))]
    raised = _FINAL_EXCEPTION_RE.search(text, at if at >= 0 else 0)
    return {"step": steps[-1] if steps else None, "raised": raised.group(0) if raised else None}


_LOGGED_FRAME_RE = re.compile(r'\bERROR\b[^\n]{0,80}?\]\s{1,12}File "(?P<file>[^"\n]{1,300})", line \d{1,7}, in '
                              r'(?P<function>\w{1,100})(?P<rest>(?:\n[^\n]{0,400}){0,3})')
_RAISE_RE = re.compile(r"\]\s{1,16}raise (?P<raised>[A-Z]\w{0,60})\b")


def _logged_frames(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies when the text holds a traceback logged at ERROR (vLLM's engine core): its last frame's ``file`` and
    ``function``, and the exception its next lines ``raise`` (``raised``) when they show it."""
    last = None
    for last in _LOGGED_FRAME_RE.finditer(text):
        pass
    if last is None:
        return None
    raised = _RAISE_RE.search(last.group("rest"))
    return {"file": last.group("file").rsplit("/", 1)[-1], "function": last.group("function"),
            "raised": raised.group("raised") if raised else None, "step": _FRAME_STEPS.get(last.group("function"))}


_KV_CHECK = ("vLLM's check that the KV cache holds one request of the maximum model length (its message names the "
             "length and the tokens the cache holds): lower --max-model-len or give the cache more memory")
_FRAME_STEPS = {
    "track_weights_loading": "vLLM's check that every weight of the model class was loaded from the checkpoint (its "
                             "message: `Following weights were not initialized from checkpoint`): the checkpoint lacks "
                             "tensors the architecture vLLM resolved expects, such as the vision tower of a multimodal "
                             "class given a text-only checkpoint, or a quantization's scales",
    "_check_enough_kv_cache_memory": _KV_CHECK,
    "check_enough_kv_cache_memory": _KV_CHECK,
}
"""What vLLM checks in the functions whose ``raise`` ends an engine core's traceback (vllm/model_executor/model_loader/
default_loader.py ``track_weights_loading``; vllm/v1/core/kv_cache_utils.py ``check_enough_kv_cache_memory``), for a
paste cut before the exception's message."""


_CORRECTED_RE = re.compile(r"PCIe Bus Error: severity=Correct(?:ed|able)")


def _corrected_burst(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the text holds checks/specs/pcie.toml [aer_corrected] burst corrected PCIe errors or more (one
    now and then is the link's retry at work): their ``count``."""
    from grader.calc.pcie import aer_corrected_burst
    burst, count = aer_corrected_burst(), len(_CORRECTED_RE.findall(text))
    return {"count": count} if burst is not None and count >= burst else None


_STALL_RE = re.compile(r"No available shared memory broadcast block found in (?P<seconds>\d{1,5}) seconds")


_STORE_RETRY_RE = re.compile(r"The server socket on [^\n]{1,120}? has timed out, will retry")
_FORMED_RE = re.compile(r"Init COMPLETE|Rendezvous complete|Application startup complete|[Cc]onnected all rings")


def _repeats() -> int:
    """How many lines of a wait in a row mean no progress (checks/specs/serving.toml [engine] stall_repeats)."""
    from grader.calc.specs import row
    return row("serving.toml", "engine").graded("stall_repeats")


def _unless(detail: Callable[..., dict[str, Any] | None]) -> Callable[..., dict[str, Any] | None]:
    """The detail that applies exactly where ``detail`` does not (an entry's twin of the other level)."""
    return lambda log, values, text: None if detail(log, values, text) is not None else {}


def _store_retries(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where c10d's `has timed out, will retry` comes checks/specs/serving.toml [engine] stall_repeats times or
    more, with no sign after the last of them that the group formed (NCCL's Init COMPLETE, a rendezvous complete):
    their ``count``."""
    hits = list(_STORE_RETRY_RE.finditer(text))
    if len(hits) < _repeats() or _FORMED_RE.search(text, hits[-1].end()):
        return None
    return {"count": len(hits)}


_IDLE_RE = re.compile(r"\[repeated|throughput: 0\.0 tokens/s, Avg generation throughput: 0\.0 tokens/s|\"GET /")
"""Lines that show no progress between the wait lines: Ray's dedup notes, engine stats of no tokens, health checks."""
_PROGRESS_RE = re.compile(r"Application startup complete|Avg generation throughput: (?!0\.0 )\d")


_LOCATION_RE = re.compile(r"\[(?P<at>shm_broadcast\.py:\d{1,5})\](?P<rest>[^\n]{0,400})")
"""The logger's location on a wait line; a line cut right after it (no ``rest``) at a wait line's location is that
line again, its text lost."""


def _stall_run(text: str, *, ending: bool = False) -> tuple[int, int]:
    """The longest run of vLLM's `No available shared memory broadcast block` lines with no other vLLM line between
    (blank lines and _IDLE_RE's aside), and not followed by progress (`Application startup complete`, tokens
    generated): (lines, seconds they span). A line cut after the logger's location of a wait line read before it
    (`[shm_broadcast.py:801]` and no more) is that line once more. ``ending``: the run that ends the text, (0, 0) when
    another line comes after it."""
    best = run = seconds = span = last = 0
    waits: set[str] = set()
    for line in text.splitlines():
        m, at = _STALL_RE.search(line), _LOCATION_RE.search(line)
        if m and at:
            waits.add(at["at"])
        if m or at and not at["rest"].strip() and at["at"] in waits:
            last = int(m["seconds"]) if m else last
            run, seconds = run + 1, seconds + last
        elif _PROGRESS_RE.search(line):  # it went on: the run was a long step, not a stuck worker
            best = span = run = seconds = 0
        elif line.strip() and not _IDLE_RE.search(line):
            run = seconds = 0
        if run > best:
            best, span = run, seconds
    return (run, seconds) if ending else (best, span)


def _stall_repeats(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where checks/specs/serving.toml [engine] stall_repeats of those lines or more come in a row: their
    ``count`` and the ``minutes`` they span."""
    count, seconds = _stall_run(text)
    return {"count": count, "minutes": f"{seconds / 60:g}"} if count >= _repeats() else None


def _stall_open(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the paste ends on a run of those lines shorter than stall_repeats yet of checks/specs/serving.toml
    [engine] stall_open or more: the wait repeated and nothing after it shows whether it went on. Its ``count``."""
    from grader.calc.specs import row
    count, _ = _stall_run(text, ending=True)
    opened = row("serving.toml", "engine").graded("stall_open")
    return {"count": count} if opened <= count < _repeats() and _stall_repeats(log, values, text) is None else None


_ACTIVE_RE = re.compile(r"Wait for all ray workers to be active\. (?P<n>\d{1,4})/(?P<m>\d{1,4}) is active")


def _nodes_still_missing(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the text's last `Wait for all ray workers to be active. N/M is active` has N below M and no `All
    ray workers are active` follows it: its ``n`` and ``m``, and the ``polls`` printed."""
    polls = list(_ACTIVE_RE.finditer(text))
    if not polls or int(polls[-1]["n"]) >= int(polls[-1]["m"]) or "All ray workers are active" in text[polls[-1].end():]:
        return None
    return {"n": polls[-1]["n"], "m": polls[-1]["m"], "polls": len(polls)}


_PREFIX_RE = re.compile(r"^(?:\([\w ]{1,40}pid=\d{1,8}(?:, ip=[\d.]{7,15})?\)\s)?"
                        r"(?:(?:ERROR|WARNING|INFO|CRITICAL|DEBUG) [\d-]{5} [\d:]{8}(?:\.\d{1,6})? \[[^\]\n]{1,80}\]\s)?")
"""A vLLM line's process prefix and logger head, before the text it logged."""


def _no_exception_shown(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where no exception line (`XxxError: ...`, after a process's log prefix) is in the text: the traceback
    of the process that died is not in the paste."""
    from grader.parsers.traceback import EXCEPTION_RE
    for line in text.splitlines():
        if EXCEPTION_RE.match(_PREFIX_RE.sub("", line.strip(), count=1)[:400]):
            return None
    return {}


def _crash_frame(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Always applies; ``frame``: the innermost named frame of the native backtrace under the line, past the signal
    handler's (grader.parsers.native_backtrace), where one is printed."""
    from grader.parsers.native_backtrace import crash_frame
    found = crash_frame(text)
    return {"frame": f"`{found[0]}` ({found[1]}" + (f", {found[2]})" if found[2] else ")")} if found else {}


_HANG_RE = re.compile(r"(?i)\b(?:hangs?|hanging|hung|stuck|freez(?:es|ing)?|froze)\b")


_SPARK_WORDS_RE = re.compile(r"\b(?:DGX )?Sparks?\b")


_P2P_OFF_RE = re.compile(r"NCCL_P2P_DISABLE\s*=\s*1\b")
_WORKED_RE = re.compile(r"(?P<gap>[^\n;.!?]{0,80}?)(?<![/\w-])(?:[Ww]orks|[Ww]orked|[Ff]ix(?:es|ed)|[Ss]olve[sd]|"
                        r"[Rr]esolve[sd]|[Hh]elps|[Hh]elped|[Ww]orkaround|[Ww]ork around)(?![/\w-])")
_NOT_SO_RE = re.compile(r"NCCL_|\b(?:not|never|didn'?t|doesn'?t|don'?t|dont|still|neither|nor|no)\b", re.I)
MAX_P2P_MENTIONS = 64
"""At most this many mentions of NCCL_P2P_DISABLE=1 are read for a sentence saying it worked (a bounded cost)."""


def _told_hang(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where a sentence says NCCL_P2P_DISABLE=1 worked (works, fixed, helped, a workaround; not "did not
    help", "still hangs", another variable's fix, a path such as /work) and the text says the run hangs, is stuck or
    freezes otherwise, on a machine of several GPUs: not a DGX Spark (`explain --host spark`, or the text naming one),
    whose one GPU has no peer to reach over PCIe. Its ``line`` is that sentence's line."""
    if _on_a_spark(log, values, text) is not None or context().host is None and _SPARK_WORDS_RE.search(text) \
            or not _HANG_RE.search(text):  # (a Spark by --host or by its own lines, or named in the text)
        return None
    for i, mention in enumerate(_P2P_OFF_RE.finditer(text)):
        if i >= MAX_P2P_MENTIONS:
            break
        said = _WORKED_RE.match(text, mention.end(), mention.end() + 200)
        if said is not None and not _NOT_SO_RE.search(said.group("gap")):
            start, end = text.rfind("\n", 0, mention.start()) + 1, text.find("\n", mention.end())
            return {"line": text[start:end if end >= 0 else len(text)].strip()[:300]}
    return None


def _bytes_of(size: Any) -> float | None:
    """``78.96 GiB`` -> bytes (PyTorch's sizes), None when it does not read."""
    num, _, unit = str(size).partition(" ")
    try:
        return float(num) * BYTE_UNITS[unit]
    except (KeyError, ValueError):
        return None


def _process_holds_the_rest(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies when the one process a torch OOM lists holds, with what is free, at least checks/specs/memory.toml
    [oom] accounted_share of the GPU: then no one else holds much (else another process, unlisted, does)."""
    from grader.calc.specs import row
    inuse, free, total = (_bytes_of(values.get(k)) for k in ("inuse", "free", "total"))
    share = row("memory.toml", "oom").graded("accounted_share")
    if None in (inuse, free, total, share) or not total:
        return None
    return {} if (inuse + free) / total >= share else None


def _narrower_link(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies when the kernel's link line gives fewer lanes than the device can use (``x4`` against ``x16``; a
    wider link upstream limits only the speed), for a device that is not a ConnectX the dmesg reader names (its
    ``mlx5_core <dev>`` line in the text)."""
    try:
        narrower = int(str(values["width"]).lstrip("x")) < int(str(values["cwidth"]).lstrip("x"))
    except (KeyError, ValueError):
        return None
    return {} if narrower and f"mlx5_core {values.get('dev')}" not in text else None


_GLOO_PEERS_RE = re.compile(r"\[Gloo\] Rank \d{1,6} is connected to \d{1,6} peer ranks?\. Expected number of connected peer "
                            r"ranks is : (?P<n>\d{1,6})")


def _fd_limit_low_or_hit(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies to an open-files limit below 10,000, or any limit where the text shows it was reached (``Too many open
    files``: ``emfile``)."""
    if "Too many open files" in text and any("Too many open files" in x and "Found ulimit" not in x
                                              for x in text.splitlines()):  # (the warning itself names the error)
        return {"emfile": ""}
    return {} if int(values.get("limit", "0")) < 10_000 else None


_FRAME_RE = re.compile(r'File "(?P<file>[^"\n]{1,300})", line \d{1,7}, in (?P<function>\w{1,100})')
"""Every frame of a traceback, logged or not (:data:`_LOGGED_FRAME_RE` takes the lines under each frame with it, so
it skips the frames among them)."""
_STEPS = (  # (what a frame's file or function holds, the step it is), the frames searched innermost last
    (("init_device", "init_worker_distributed_environment", "init_distributed_environment", "initialize_model_parallel",
      "ensure_model_parallel_initialized", "init_model_parallel_group"),
     "the set-up of the process group between the GPUs"),
    (("PyNcclCommunicator", "pynccl.py", "pynccl_wrapper.py", "cuda_communicator.py"),
     "the creation of the NCCL communicator between the GPUs (NCCL_DEBUG=INFO says why it failed)"),
    (("all_reduce",), "the first collective between the GPUs (`all_reduce`)"),
    (("load_model", "load_weights"), "loading the model's weights"),
    (("determine_available_memory", "profile_run"), "the memory profile"),
    (("capture_model", "cuda_graph"), "the CUDA graph capture"),
    (("_call_user_compiler", "compile_fx"), "torch.compile compiling the model (Inductor)"),
    (("output_code.py", "inductor_cache", "compiled_graph"), "running the model's compiled graph (a warm-up or a step)"),
    (("execute_model",), "a request's step"),
)
_LOGGED_PREFIX_RE = re.compile(r"^[^\n]{0,200}?\bERROR\b[^\n]{0,80}?\]\s{1,12}")
_ALLOCATES_RE = re.compile(r"\bempty_strided\w*\(|\btorch\.(?:empty|zeros|ones)\(")


def _frame_step(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies always; ``step``: the steps of vLLM's start (or run) the traceback's frames are in, outermost first (a
    frame's function or file: ``init_device``, ``pynccl.py``, ``profile_run``, ...), and an allocation where the
    innermost frame's line of code allocates, when the traceback shows any."""
    steps: dict[str, str] = {}  # each step once, with the first frame that showed it
    last = None
    for last in _FRAME_RE.finditer(text):
        name = last.group("file") + " " + last.group("function")
        step, mark = next(((said, x) for marks, said in _STEPS for x in marks if x in name), (None, None))
        if step is not None:
            steps.setdefault(step, f"{step} (`{mark}`)")
    said = list(steps.values())
    code = text[last.end():last.end() + 400].split("\n")[1:2] if last else []  # the innermost frame's line of code
    code = [_LOGGED_PREFIX_RE.sub("", x, count=1) for x in code]  # without the log record's prefix
    if code and _ALLOCATES_RE.search(code[0]):
        said.append("an allocation of GPU memory (`" + code[0].strip()[:80] + "`: memory running out is the usual "
                    "cause there)")
    return {"step": ", in it ".join(said)} if said else {}


_PROCESS_TAG_RE = re.compile(r"^\([\w .:=,/-]{1,100}\)\s?")  # `(EngineCore pid=277) `, Ray's `(pid=1, ip=...)`
_RECORD_START_RE = re.compile(r"^(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\b|^\[?\d{4}-\d\d-\d\d|^[IWEF]\d{4} |^Traceback |"
                              r"^File \"|^\[rank\d|^\[\w[^\]]{0,60}\] ")


def _continued_message(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies always; ``continued``: the lines under an exception whose message ends in ``:`` (``... Reasons:``,
    then a line per reason), up to three, each without its process tag, until a new log record, frame or blank."""
    message = str(values.get("message", "")).rstrip()
    at = text.find(message) if message.endswith(":") and len(message) > 1 else -1
    if at < 0:
        return {}
    out = []
    for line in text[at + len(message):at + len(message) + 2000].split("\n")[1:4]:
        body = _PROCESS_TAG_RE.sub("", line.strip(), count=1).strip()
        if not body or _RECORD_START_RE.match(body):
            break
        out.append(body)
    return {"continued": " ".join(out)[:300]} if out else {}


_ELSEWHERE_RE = re.compile(r"connectFullMesh|Connection refused|Connection reset|timed out|, ip=\d|--nnodes[= ]?[2-9]")
"""Signs in a paste that ranks of another machine took part or failed to (Ray's ``ip=`` of a remote worker, Gloo's
failed full mesh, a refused or timed-out connection, torchrun's nodes)."""


def _multi_machine(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies unless `explain --nodes 1` says the paste is of one machine (there loopback is the right address), or
    every Gloo group the paste shows has one rank (``Expected number of connected peer ranks is : 0``): no other
    process, on this machine or another, connects to it."""
    peers = {m.group("n") for m in _GLOO_PEERS_RE.finditer(text)} if "[Gloo] Rank" in text else set()
    alone = peers == {"0"} and not _ELSEWHERE_RE.search(text)  # (a group that failed to connect prints no such line)
    return None if context().nodes == 1 or alone else {}


def _one_machine_told(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where `explain --nodes 1` says the paste is of one machine (no network carried its collectives), of the
    first process group (``PG 0``, or none named: a later group's first collective comes after the run's others)."""
    return {} if context().nodes == 1 and not re.search(r"\[PG (?:ID )?[1-9]", text) else None


def _one_machine_nccl(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where `explain --nodes 1` says one machine, or NCCL's own communicator line says one node (``nRanks N
    nNodes 1``): no network, so GPU to GPU inside it is the collectives' only path."""
    return {} if context().nodes == 1 or re.search(r"\bnNodes 1\b", text) else None


_WATCHDOG_OP_RE = re.compile(r"WorkNCCL\(SeqNum=(?P<seq>\d{1,12}), OpType=(?P<op>\w{1,40})")


def _other_op_same_seq(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where another watchdog line of the text timed out at the same sequence number in another collective
    (``OpType``): the ranks called different collectives at one step (NVIDIA/nccl#1409)."""
    other = next((m["op"] for m in _WATCHDOG_OP_RE.finditer(text) if m["seq"] == values.get("seq")
                  and m["op"] != values.get("op")), None)
    return {"other": other} if other else None


_WATCHDOG_RANK_RE = re.compile(r"\[Rank (?P<rank>\d{1,6})\] Watchdog caught collective operation timeout")


def _other_rank_timed_out(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where another rank's watchdog timed out on a collective in the text (``[Rank 1] Watchdog caught
    collective operation timeout``) beside this rank's communicator abort: that rank waited for this one."""
    waiter = next((m["rank"] for m in _WATCHDOG_RANK_RE.finditer(text) if m["rank"] != values.get("rank")), None)
    return {"waiter": waiter} if waiter else None


def _memlock_below_rdma(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the locked-memory limit read (KiB) is under checks/specs/memory.toml [memlock] rdma_floor_kib."""
    from grader.calc.specs import row
    try:
        kib = int(values["kib"])
    except (KeyError, TypeError, ValueError):
        return None
    return {} if kib < row("memory.toml", "memlock").graded("rdma_floor_kib") else None


def _other_devices_open(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the text lists RDMA devices that opened (``N HCAs found``, ibv_devinfo's ``hca_id:``)."""
    return {} if re.search(r"\b[1-9]\d{0,2} HCAs? found\b|^hca_id:", text, re.M) else None


def _rpc_endpoint(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the text is llama.cpp's (its RPC backend: ``RPC[``, ``rpc-server``, ``--rpc``, ``ggml``); ``empty``
    says so when the endpoint has no host (``:50052``: the --rpc list lost its addresses)."""
    if not any(x in text for x in ("RPC[", "rpc-server", "--rpc", "ggml")):
        return None
    return {"empty": "the endpoint has no host, so the --rpc list lost its addresses (a variable left unset)"} \
        if values.get("endpoint", "").startswith(":") else {}


_NNODES_RE = re.compile(r"--nnodes[= ](?:\d{1,4}:)?(?P<n>\d{1,4})\b|\b(?:nnodes|min_nodes)\s{0,20}[:=]\s{0,4}(?P<m>\d{1,4})\b")
_RDZV_C10D_RE = re.compile(r"rdzv[-_]backend\s{0,20}[:= ]\s{0,20}c10d\b|master_addr is only used for static rdzv_backend")
_FINISHED_RE = re.compile(r"\bLocal worker group finished\b|\(SUCCEEDED\)")  # torchrun's workers ended well
_WENT_ON_RE = re.compile(_FINISHED_RE.pattern + r"|\bRendezvous complete for workers\b")
_NODE_RANK_RE = re.compile(r"--node[-_]rank[= ](?P<r>\d{1,4})\b")


def _nodes_asked(text: str) -> int | None:
    """How many nodes the launch in ``text`` asks for (``--nnodes 2``, ``--nnodes=1:2``, a config's ``nnodes: 2``),
    or `explain --nodes`; None when neither says."""
    m = _NNODES_RE.search(text)
    return context().nodes or (int(m.group("n") or m.group("m")) if m else None)


def _several_nodes_asked(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the launch line asks for more than one node (its ``--nnodes``, or `explain --nodes`) and is of a
    node other than the first (``--node-rank`` 1 or more: node 0's store listens on every interface, so loopback
    reaches it there), is no comment (``# torchrun ...`` in a script), and the run did not go on: ``nodes``."""
    line = str(values.get("line", ""))
    rank = _NODE_RANK_RE.search(line)
    n = _nodes_asked(line)
    if line.lstrip("`").startswith("#") or not rank or int(rank.group("r")) < 1 or _WENT_ON_RE.search(text):
        return None
    return {"nodes": n} if n and n > 1 else None


def _loopback_rendezvous(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies unless `explain --nodes 1` says one machine (agents of a two-node launch tried on one box reach each
    other on loopback) or the run went on (its worker group finished)."""
    return None if context().nodes == 1 or _FINISHED_RE.search(text) else {}


def _rendezvous_across_nodes(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where torchrun's rendezvous is c10d's (a random run id matters to no other), the launch is not said to
    be of one node (``--nnodes 1``, ``min_nodes: 1``, `explain --nodes 1`), and the run did not go on."""
    if not _RDZV_C10D_RE.search(text) or _FINISHED_RE.search(text):
        return None
    return {} if (_nodes_asked(text) or 2) > 1 else None  # (the node count not shown: as a multi-node launch)


_EXIT_WORDS = {"-9": " (killed: SIGKILL, as the kernel's OOM killer sends)", "-6": " (aborted: SIGABRT)",
               "-11": " (a segmentation fault: SIGSEGV)", "-15": " (terminated: SIGTERM, often by the launcher after "
               "another rank failed)"}


def _exit_code_words(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """What the exit code means (``words``), and ``no_file`` where the summary's error_file is `<N/A>`."""
    return {"words": _EXIT_WORDS.get(str(values.get("code")), ""),
            "no_file": "error_file <N/A>" if "error_file: <N/A>" in text else None}


def _not_served(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies unless the text shows the server up (``Application startup complete``) or a run that went on (NCCL's
    ``Init COMPLETE``, a benchmark's ``Avg bus bandwidth``, an NCCL WARN of its own to follow instead)."""
    return None if any(x in text for x in ("Application startup complete", "Init COMPLETE", "Avg bus bandwidth",
                                           "NCCL WARN")) else {}


_NCCL_VERSION_RE = re.compile(r"NCCL version (\d+)\.(\d+)")


def _old_nccl(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies unless every ``NCCL version X.Y`` the text prints is 2.26 or later (the shared-memory limit was
    mended there: an older log's line pasted beside a newer run says nothing of it)."""
    seen = [(int(a), int(b)) for a, b in _NCCL_VERSION_RE.findall(text)]
    return None if seen and all(v >= (2, 26) for v in seen) else {}


DETAILS: dict[str, Callable[[VllmLog, Mapping[str, Any]], dict[str, Any] | None]] = {
    "timeout_not_applied": _timeout_not_applied,
    "fastsafetensors_across_nodes": _fastsafetensors_across_nodes,
    "kv_rounds_to_zero": _kv_rounds_to_zero,
    "advertises_nothing": _advertises_nothing,
    "one_gpu_nodes": _one_gpu_nodes,
    "several_local_gpus": _several_local_gpus,
    "aer_recovered": _aer_recovered,
    "cx7_under_networkmanager": _cx7_under_networkmanager,
    "on_a_spark": _on_a_spark,
    "local_peers": _local_peers,
    "sglang_step": _sglang_step,
    "logged_frames": _logged_frames,
    "process_holds_the_rest": _process_holds_the_rest,
    "narrower_link": _narrower_link,
    "multi_machine": _multi_machine,
    "fd_limit_low_or_hit": _fd_limit_low_or_hit,
    "continued_message": _continued_message,
    "frame_step": _frame_step,
    "one_machine_told": _one_machine_told,
    "one_machine_nccl": _one_machine_nccl,
    "other_op_same_seq": _other_op_same_seq,
    "other_rank_timed_out": _other_rank_timed_out,
    "memlock_below_rdma": _memlock_below_rdma,
    "told_one_machine": _unless(_multi_machine),  # `explain --nodes 1` says one machine
    "rpc_endpoint": _rpc_endpoint,
    "other_devices_open": _other_devices_open,
    "several_nodes_asked": _several_nodes_asked,
    "rendezvous_across_nodes": _rendezvous_across_nodes,
    "loopback_rendezvous": _loopback_rendezvous,
    "exit_code_words": _exit_code_words,
    "not_served": _not_served,
    "old_nccl": _old_nccl,
    "told_hang": _told_hang,
    "corrected_burst": _corrected_burst,
    "stall_repeats": _stall_repeats,
    "stall_open": _stall_open,
    "stall_once": _unless(lambda log, values, text: _stall_repeats(log, values, text) or _stall_open(log, values, text)),
    "nodes_still_missing": _nodes_still_missing,
    "store_retries": _store_retries,
    "crash_frame": _crash_frame,
    "no_exception_shown": _no_exception_shown,
    "store_retry_once": _unless(_store_retries),
}
"""An entry's ``detail``: a function of the log (None when :func:`diagnose_text` reads plain text), the
values read so far and the whole text, that returns more values for the texts, or None when the entry
does not apply."""
