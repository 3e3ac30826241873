"""The conditions of checks/diagnoses.toml that a pattern cannot say (an entry's ``detail``): each a function of the log
(None when :func:`grader.diagnoses.diagnose_text` reads plain text), the values read so far and the whole text, that
returns more values for the entry's texts, or None when the entry does not apply. Never words or figures: those are
the table's."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, Mapping

from grader.judges.context import context  # what `explain --host/--nodes` says of the paste
from grader.parsers.common import BYTE_UNITS
from grader.parsers.common.spans import last_match
from grader.diagnosis_frames import _assert_at_startup, _graph_dev, _killed_where
from grader.diagnosis_paste import PASTE_DETAILS  # what the rest of the paste decides (a module of its own, by size)
from grader.diagnosis_runs import (  # the details of how a run went, a module of their own (by size)
    _OUTPUT_END_RE, _batch_serial, _batch_together, _crash_frame, _killed_by_timeout, _mismatch_rebooted, _pod_running_now,
    _ssh_failed, _ssh_retried_ok, _driver_came_up, _driver_gave_up, _driver_still_waiting, _exit_code_words, _loopback_rendezvous, _memlock_below_rdma, _multi_machine, _no_exception_shown,
    _no_rdma_use_one_machine, _nodes_still_missing, _not_served, _old_nccl, _on_a_spark, _one_machine_nccl, _one_machine_told,
    _socket_run_no_rdma, _other_devices_open, _other_op_same_seq, _other_rank_timed_out, _rendezvous_across_nodes, _rpc_endpoint,
    _several_nodes_asked, _stall_open, _stall_repeats, _store_retries, _told_hang)

if TYPE_CHECKING:
    from grader.parsers.vllm_log import VllmLog

LOG_FLAGS: dict[str, Callable[[VllmLog], bool]] = {
    "ready": lambda log: log.ready,
    "served": lambda log: log.ready or bool(log.stats),  # started, or its engine's stats lines show it serving
    "has_startup": lambda log: log.has_startup,
    "has_kv": lambda log: bool(log.kv),
    "multi_node": lambda log: (log.parallel.nnodes or 0) > 1,
    # every rank started on this node: several ranks, neither Ray nor vLLM's --nnodes mode; or V0's mp workers, no Ray's
    "single_node_ranks": lambda log: (log.parallel.world_size > 1 and log.parallel.distributed_executor_backend != "ray"
                                      and not (log.parallel.nnodes or 0) > 1) or ("(VllmWorkerProcess pid=" in (
                                          log.text or "") and not log.worker_ips),
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
    nodes is a choice, and TP within a node with PP across is the usual layout; not where `explain --nodes` says the
    run spans the nodes whose GPUs make up the TP (TP 16 on two 8-GPU nodes, corpus zk020: the layout meant)."""
    try:
        gpus, tp, nodes = int(values.get("gpus") or 0), int(values.get("tp") or 0), context().nodes or 0
    except (TypeError, ValueError):
        return None
    return {} if gpus > 1 and not (nodes > 1 and nodes * gpus == tp) else None


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
    last = last_match(_LOGGED_FRAME_RE, text)
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


def _unless(detail: Callable[..., dict[str, Any] | None]) -> Callable[..., dict[str, Any] | None]:
    """The detail that applies exactly where ``detail`` does not (an entry's twin of the other level)."""
    return lambda log, values, text: None if detail(log, values, text) is not None else {}


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
    if not narrower or f"mlx5_core {values.get('dev')}" in text:
        return None
    behind: dict[str, None] = {}  # other devices limited by the same link (the port's): they share it
    others: dict[str, str] = {}  # devices limited elsewhere, by their address (a boot lists each once)
    for m in _LIMITED_RE.finditer(text):
        if m["dev"] != values.get("dev") and m["port"] == values.get("port"):
            behind[m["dev"]] = None
        elif m["dev"] != values.get("dev"):
            others.setdefault(m["dev"], f"{m['dev']} ({m['speed']} {m['width']} at {m['port']}, capable of "
                                        f"{m['cspeed']} {m['cwidth']})")
    listed = ([f"{', '.join(list(behind)[:6])}{' ...' if len(behind) > 6 else ''} behind the same link at "
               f"{values.get('port')}, which they share"] if behind else []) + list(others.values())[:4]
    more = len(others) - 4
    return {"others": "; ".join(listed) + (f"; and {more} more" if more > 0 else "")} if listed else {}


_LIMITED_RE = re.compile(r"(?<!mlx5_core )\b(?P<dev>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d): [\d.]{1,12} Gb/s "
                         r"available PCIe bandwidth, limited by (?P<speed>[\d.]{1,6} GT/s) PCIe (?P<width>x\d{1,2}) link "
                         r"at (?P<port>[0-9a-fA-F:.]{7,16}) \(capable of [\d.]{1,12} Gb/s with (?P<cspeed>[\d.]{1,6} GT/s) "
                         r"PCIe (?P<cwidth>x\d{1,2}) link\)")
"""The kernel's line for a PCIe link below what its device can run (drivers/pci/pci.c, pcie_print_link_status), of any
device but a ConnectX (``mlx5_core <dev>``: the dmesg-link reader's)."""


def _fd_limit_low_or_hit(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies to an open-files limit below 10,000, or any limit where the text shows it was reached (``Too many open
    files``: ``emfile``)."""
    if "Too many open files" in text and any("Too many open files" in x and "Found ulimit" not in x
                                              for x in text.splitlines()):  # (the warning itself names the error)
        return {"emfile": ""}
    return {} if int(values.get("limit", "0")) < 10_000 else None


_FRAME_RE = re.compile(r'File "(?P<file>[^"\n]{1,300})", line \d{1,7}, in (?P<function>\w{1,100})')
"""Every frame of a traceback, logged or not (:data:`_LOGGED_FRAME_RE` takes the lines under each, skipping those)."""
_STEPS = (  # (what a frame's file or function holds, the step it is), the frames searched innermost last
    (("compile_or_warm_up_model", "kernel_warmup"), "the engine's warm-up after the KV cache was sized (kernels, CUDA "
                                                    "graphs), before the server starts"),
    (("init_device", "init_worker_distributed_environment", "init_distributed_environment", "initialize_model_parallel",
      "ensure_model_parallel_initialized", "init_model_parallel_group"),
     "the set-up of the process group between the GPUs"),
    (("PyNcclCommunicator", "pynccl.py", "pynccl_wrapper.py", "cuda_communicator.py"),
     "the creation of the NCCL communicator between the GPUs (NCCL_DEBUG=INFO says why it failed)"),
    (("all_reduce",), "the first collective between the GPUs (`all_reduce`)"),
    (("spec_decode/", "load_draft_model"), "loading the speculative-decoding draft model"),
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


_DLLAMA_WORKER_RE = re.compile(r"[\w.\[\]:-]{1,200}:\d{1,5}")
_DLLAMA_NNODES_RE = re.compile(r"\bNNodes: (\d{1,4})\b")


def _dllama_nodes(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies when distributed-llama's root names a count of workers that, with the root, is not a power of two:
    ``workers`` and ``nodes`` (the addresses, host:port, after ``--workers``, a line continued by ``\\`` followed, up to
    the next option or shell token: ``|``, ``>``, ``2>&1``). None where the root's own ``NNodes: N`` line or a
    generated token line shows the run went on."""
    if _DLLAMA_TOKEN_RE.search(text):
        return None
    given = str(values.get("workers_given", ""))
    at = text.find(given) if given else -1
    if at >= 0:
        given = text[at:at + 4000].replace("\\\n", " ").split("\n", 1)[0]
    tokens = given.split()
    workers = next((i for i, w in enumerate(tokens) if not _DLLAMA_WORKER_RE.fullmatch(w)), len(tokens))
    nodes = workers + 1
    if m := _DLLAMA_NNODES_RE.search(text):
        nodes = int(m.group(1))
        workers = nodes - 1
    return None if workers <= 0 or nodes & (nodes - 1) == 0 else {"workers": workers, "nodes": nodes}


_DLLAMA_TOKEN_RE = re.compile(r"^\W{0,4}G\s{1,8}(?P<g>\d{1,7}) ms\s{1,8}I\s{1,8}(?P<i>\d{1,7}) ms\s{1,8}T\s{1,8}(?P<t>\d{1,7}) ms",
                              re.M)
_DLLAMA_AVG_RE = re.compile(r"^Avg generation time:\s{0,12}(?P<g>\d{1,7}(?:\.\d{1,4})?) ms\s{0,4}\n"
                            r"Avg inference time:\s{0,12}(?P<i>\d{1,7}(?:\.\d{1,4})?) ms\s{0,4}\n"
                            r"Avg transfer time:\s{0,12}(?P<t>\d{1,7}(?:\.\d{1,4})?) ms", re.M)


def _dllama_times(text: str) -> dict[str, Any] | None:
    """distributed-llama's time per token: its ``Avg`` summary where printed (the first), else the mean of its token
    lines (``🔶 G 559 ms I 499 ms T 60 ms``: G the token's time, I inference, T transfer); None when neither is
    there."""
    if m := _DLLAMA_AVG_RE.search(text):
        g, i, t = (float(m.group(k)) for k in "git")
        over = " (its `Avg` summary)"
    else:
        rows = [(int(m.group("g")), int(m.group("i")), int(m.group("t"))) for m in _DLLAMA_TOKEN_RE.finditer(text)]
        if not rows:
            return None
        g, i, t = (sum(r[k] for r in rows) / len(rows) for k in range(3))
        over = f" (the mean of {len(rows)} token line(s))"
    return {"generation": f"{g:.0f}", "inference": f"{i:.0f}", "transfer": f"{t:.0f}", "over": over,
            "transfer_bound": t > i}


def _dllama_transfer_bound(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies when distributed-llama's tokens spend more time in transfer (T) than in inference (I)."""
    got = _dllama_times(text)
    return got if got and got["transfer_bound"] else None


def _dllama_compute_bound(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies when distributed-llama's tokens spend no more time in transfer than in inference."""
    got = _dllama_times(text)
    return got if got and not got["transfer_bound"] else None


_GPU_IDS_CALL_RE = re.compile(r"\bray\.get_gpu_ids\(\)(?P<rest>[^\n]{0,200})")
_LOG_RECORD_RE = re.compile(r"^\s{0,8}(?:\(\w{1,60} pid=\d{1,9}\) )?(?:\d{4}-\d\d-\d\d[ T]|[IWEF]\d{4} |\[\d{4}-|"
                            r"(?:INFO|WARNING|ERROR|DEBUG)\b)")


def _gpu_ids_empty(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies when a ``ray.get_gpu_ids()`` call's own output is ``[]``: on its line after it (``ray.get_gpu_ids():
    []``, ``print(ray.get_gpu_ids())  # []``), or the next line that is no log record (a REPL's echo; Ray's `Connected
    to Ray cluster` between is skipped), in the whole paste; not where a call printed GPUs (``[0]``) and the ``[]`` is
    another print's."""
    whole = context().paste or text  # (its value may be read as another section)
    lines = whole.split("\n")
    for i, line in enumerate(lines):
        m = _GPU_IDS_CALL_RE.search(line)
        if not m:
            continue
        rest = m.group("rest")
        if re.search(r"\[\s{0,4}\]", rest):
            return {}
        if re.search(r"\[\s{0,4}\d", rest):  # this call printed its GPUs
            continue
        after = next((x for x in lines[i + 1:i + 6] if x.strip() and not _LOG_RECORD_RE.match(x)), "")
        if after.strip() == "[]":
            return {}
    return None


_NVCC_ERROR_RE = re.compile(r"^[^\n]{0,300}?\.(?:cu|cuh|h|hpp|cpp|cc)\(\d{1,6}\): (?:catastrophic )?error: [^\n]{1,200}", re.M)
_BUILD_FAILED_RE = re.compile(r"^FAILED: |Ninja build failed|^\d{1,4} errors? detected in the compilation", re.M)
_BUILD_DONE_RE = re.compile(r"^\[(\d{1,5})/(\d{1,5})\] [^\n]{0,2000}\.so\s{0,4}$", re.M)


def _jit_build_failed(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies when the text shows the build failing (ninja's ``FAILED:``, ``Ninja build failed``, nvcc's
    ``file.cu(N): error:`` or ``N error detected in the compilation``; a later ``error:`` of the server is no build's)
    and not finished (no ninja step ``[N/N] ... .so`` linking the kernel without a ``FAILED:``), and the kernel's
    KV-cache dtype differs from its query's; ``first_error``: nvcc's first error line, cut."""
    if values.get("kv") == values.get("q"):
        return None
    failed = _BUILD_FAILED_RE.search(text) or _NVCC_ERROR_RE.search(text)
    done = any(m.group(1) == m.group(2) for m in _BUILD_DONE_RE.finditer(text))
    if not failed or (done and not re.search(r"^FAILED: |Ninja build failed", text, re.M)):
        return None
    first = _NVCC_ERROR_RE.search(text)
    return {"first_error": " ".join(first.group(0).split())[-300:]} if first else {}


_PORT_STATE_RE = re.compile(r"^LinkState:\.{0,60}(?P<state>\w{1,20})", re.M)
_PHYS_STATE_RE = re.compile(r"^PhysLinkState:\.{0,60}(?P<phys>\w{1,20})", re.M)
_EXT_SPEED_RE = re.compile(r"^LinkSpeedExtActive:\.{0,60}(?P<ext>\d{1,3}(?:\.\d{1,6})?) Gbps", re.M)


def _first_port(text: str) -> str:
    """The PortInfo block the entry's pattern reads (the first ``LinkWidthActive`` line's): from the ``LinkState`` line
    above it to the next port's."""
    at = text.find("\nLinkWidthActive:") + 1
    start = max(text.rfind("\nLinkState:", 0, at) + 1, 0)
    end = text.find("\nLinkState:", at)
    return text[start:end if end >= 0 else len(text)]


def _portinfo_not_active(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where an InfiniBand PortInfo's LinkState is shown and is not Active: ``state`` and ``phys`` (the
    PhysLinkState), ``why`` what it means, ``trained`` where the physical link is up (Initialize/Armed: no subnet
    manager has activated the port) rather than down (Down, PhysLinkState Polling or Disabled: no link)."""
    text = _first_port(text)
    state = _PORT_STATE_RE.search(text)
    if state is None or state["state"].lower() == "active":
        return None
    phys = _PHYS_STATE_RE.search(text)
    up = (phys["phys"] if phys else "").lower() == "linkup" or state["state"].lower() in ("init", "initialize", "armed")
    why = ("the physical link is up, but the port is not Active: no subnet manager has activated it yet (an InfiniBand "
           "port moves to Active only when one does), so nothing can be sent over it." if up else
           "the port has no link" + (": it is polling for a peer (no cable, a cable that does not train, or the peer "
                                     "port down)" if phys and phys["phys"].lower() == "polling" else
                                     ": the port is disabled" if phys and phys["phys"].lower() == "disabled" else "")
           + ".")
    return {"state": state["state"], "phys": phys["phys"] if phys else None, "why": why, "trained": "" if up else None,
            "line": state.group(0)}


def _portinfo_ext_speed(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where an InfiniBand PortInfo's LinkSpeedExtActive names a speed (not 0, not ``No Extended Speed``):
    ``ext``, the lane speed that overrides LinkSpeedActive's (FDR and above)."""
    ext = _EXT_SPEED_RE.search(_first_port(text))
    return {"ext": ext["ext"]} if ext and float(ext["ext"]) > 0 else None


_NCCL_WARN_RE = re.compile(r"NCCL WARN ([^\n]{1,300})")


def _earlier_nccl_warn(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Always applies; ``earlier``: the first NCCL WARN of the paste before the matched line that is another message
    (the failure the matched line follows from), when the paste shows one."""
    line, whole = str(values.get("line", "")), context().paste or text
    at = whole.find(line) if line else -1
    head = whole[:at] if at >= 0 else ""
    prompts = list(_OUTPUT_END_RE.finditer(head))  # (this command's output only: a WARN under an earlier prompt is
    head = head[prompts[-1].end():] if prompts else head  # another run's)
    pid = re.match(r"\s{0,8}[\w.-]{1,64}:(\d{1,9}):", line)
    before = [m.group(1).strip() for m in _NCCL_WARN_RE.finditer(head)
              if not pid or re.search(rf"[\w.-]:{pid[1]}:\d{{1,9}} ", head[max(0, head.rfind("\n", 0, m.start())):m.start()])]
    first = next((w for w in before if "before the previous operation" not in w), None)
    return {"earlier": first[:200]} if first else {}


def _gpus_hidden(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the paste shows the machine has more GPUs than vLLM saw (`nvidia-smi -L` lines: ``shown``) or
    the launch's CUDA_VISIBLE_DEVICES lists the GPUs it saw (``cvd``): visibility, not a one-node launch, decides."""
    paste, gpus = context().paste or text, int(values.get("gpus") or 0)
    shown = len(set(re.findall(r"(?m)^GPU (\d{1,3}): [^\n]{1,120}\(UUID: GPU-", paste)))
    cvd = re.search(r"\bCUDA_VISIBLE_DEVICES=[\"']?(?P<v>[\w,-]{1,80})", paste)
    if shown > gpus:
        return {"shown": str(shown)}
    if cvd and len(cvd["v"].split(",")) == gpus:
        return {"cvd": cvd["v"]}
    return None


def _not_at_teardown(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies unless the CUDA error the note follows is `driver shutting down` (cudaErrorCudartUnloading: a call at
    exit, which the teardown entry reads, note and all)."""
    return None if re.search(r"CUDA error: driver shutting down", text) else {}


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
    "exception_context": lambda log, values, text: {**_continued_message(log, values, text),
                                                    **_frame_step(log, values, text)},
    "frame_step": _frame_step,
    "assert_at_startup": _assert_at_startup,
    "one_machine_told": _one_machine_told,
    "one_machine_nccl": _one_machine_nccl,
    "other_op_same_seq": _other_op_same_seq,
    "other_rank_timed_out": _other_rank_timed_out,
    "memlock_below_rdma": _memlock_below_rdma,
    "told_one_machine": _unless(_multi_machine),  # `explain --nodes 1` says one machine
    "rpc_endpoint": _rpc_endpoint,
    "other_devices_open": _other_devices_open,
    "no_rdma_use_one_machine": _no_rdma_use_one_machine,
    "socket_run_no_rdma": _socket_run_no_rdma,
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
    "dllama_nodes": _dllama_nodes,
    "dllama_transfer_bound": _dllama_transfer_bound,
    "dllama_compute_bound": _dllama_compute_bound,
    "gpu_ids_empty": _gpu_ids_empty,
    "jit_build_failed": _jit_build_failed,
    "portinfo_not_active": _portinfo_not_active,
    "portinfo_ext_speed": _portinfo_ext_speed,
    "earlier_nccl_warn": _earlier_nccl_warn,
    "driver_gave_up": _driver_gave_up,
    "driver_still_waiting": _driver_still_waiting,
    "driver_came_up": _driver_came_up,
    "gpus_hidden": _gpus_hidden,
    "gpus_not_hidden": lambda log, values, text: None if _gpus_hidden(log, values, text) is not None else {},
    "not_at_teardown": _not_at_teardown,
    "pod_running_now": _pod_running_now,
    "pod_not_running": _unless(_pod_running_now),
    "mismatch_rebooted": _mismatch_rebooted,
    "mismatch_standing": _unless(_mismatch_rebooted),
    "killed_by_timeout": _killed_by_timeout,
    "killed_not_by_timeout": _killed_where,
    "ssh_retried_ok": _ssh_retried_ok,
    "ssh_failed": _ssh_failed,
    "batch_serial": _batch_serial,
    "batch_together": _batch_together,
    "graph_dev": _graph_dev,
    **PASTE_DETAILS,
}
"""An entry's ``detail``: a function of the log (None when :func:`diagnose_text` reads plain text), the
values read so far and the whole text, that returns more values for the texts, or None when the entry
does not apply."""

