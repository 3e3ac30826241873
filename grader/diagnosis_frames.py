"""Where a killed program was when it died (an entry's ``detail`` for checks/diagnoses.toml, beside
grader.diagnosis_details and grader.diagnosis_runs, which are full): the innermost Python frame printed just above a
shell's ``Killed``. A process killed inside NCCL's first collective (PyTorch's or vLLM's communicator set-up) is NCCL's
to explain before it is memory's: vllm-project/vllm#14628 (TP=2 on two RTX 5090s killed in PyNcclCommunicator's
warm-up all_reduce: an NCCL too old for the cards; NCCL 2.26 fixed it)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Mapping

from grader.diagnosis_runs import _killed_by_timeout
from grader.judges.context import context

if TYPE_CHECKING:
    from grader.parsers.vllm_log import VllmLog

_PY_FRAME_RE = re.compile(r'File "(?P<file>[^"\n]{1,300})", line (?P<line>\d{1,7}), in (?P<func>[\w.<>]{1,100})')
_NCCL_FRAME_RE = re.compile(r"(?i)nccl|device_communicators|distributed_c10d")
_RAISED_RE = re.compile(r"(?m)^(?:\[[^\]\n]{1,80}\] {0,4})?[\w.]{0,100}(?:Error|Exception): \S|Received sigquit from a child")
"""A program that failed before the ``Killed``: an exception's line (a traceback's last), or SGLang's parent told a
child failed. A launcher ends its process tree with SIGKILL after such a failure (SGLang's kill_process_tree, pending
wt010: a Mooncake EAFNOSUPPORT in every scheduler, then `Killed`): the kill follows the failure, it is no OOM kill's
sign."""

MAX_LINES_ABOVE = 6
"""A frame counts as where the program was only if at most this many lines part it from ``Killed`` (its source line
and a caret line between; a paste whose traceback ended earlier says nothing of where the kill came)."""


def _killed_where(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """None where the command ran under ``timeout -s KILL`` (the other entry's); else ``where`` (the innermost
    Python frame just above the ``Killed`` line: function, file and line) and ``in_nccl`` where it or one of the
    three frames above it is NCCL's (PyNcclCommunicator, torch.distributed's c10d), or {} where no frame is there."""
    if _killed_by_timeout(log, values, text) is not None:
        return None
    paste = context().paste or text
    at = paste.find(str(values.get("line") or "Killed"))
    head = paste[max(0, at - 8000):at] if at >= 0 else ""
    if _RAISED_RE.search(paste[:at] if at >= 0 else ""):
        return None
    frames = list(_PY_FRAME_RE.finditer(head))
    if not frames or head.count("\n", frames[-1].end()) > MAX_LINES_ABOVE:
        return {}
    last = frames[-1]
    out: dict[str, Any] = {"where": f"`{last['func']}` ({last['file'].rsplit('/', 1)[-1]}, line {last['line']})"}
    if any(_NCCL_FRAME_RE.search(f["file"]) for f in frames[-4:]):
        out["in_nccl"] = ""  # (present and empty: a flag the texts test, as on_spark)
    return out


TOPO_SYSTEM_SHIFT = 56
"""NCCL's topology id of a device (graph/topo.h NCCL_TOPO_ID): its system (host) number shifted left by this many
bits, plus its number on that system; a graph file of several systems names devices by it (nccl-graph-import-dev)."""


def _graph_dev(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """``gpu``: the device NCCL's `XML Import Channel : dev N not found` names, in words: N itself, or where N is a
    topology id of another system (N >> 56 nonzero) GPU ``N & (2**56 - 1)`` of system ``N >> 56``."""
    dev = str(values.get("dev") or "")
    n = int(dev) if dev.isdigit() else 0
    system, local = n >> TOPO_SYSTEM_SHIFT, n & ((1 << TOPO_SYSTEM_SHIFT) - 1)
    if not system:
        return {"gpu": dev}
    return {"gpu": f"{local} of system {system} (NCCL's topology id {dev} is system {system} shifted left by "
                   f"{TOPO_SYSTEM_SHIFT} bits plus device {local}: a GPU of another host in a graph file of several)"}


_ASSERT_SRC_RE = re.compile(r"^[ \t]{0,40}assert (?P<expr>[^\n]{1,200}?)(?:,[^\n]{0,200})?$", re.M)
_FRAME_AT_RE = re.compile(r'File "(?P<file>[^"\n]{1,300})", line (?P<line>\d{1,7}), in (?P<func>[\w.<>]{1,100})'
                          r"|^[ \t]{0,40}(?P<file2>[\w./-]{1,300}\.py):(?P<line2>\d{1,7}) in (?P<func2>[\w.<>]{1,100})", re.M)
_STARTUP_STEPS = ((re.compile(r"(?i)cudagraph|cuda_graph|capture_model|\bcapture\("), "capturing CUDA graphs"),
                  (re.compile(r"profile_run|determine_available_memory"), "profiling memory"),
                  (re.compile(r"(?i)warm_?up|_dummy_run|compile_or_warm_up"), "warming up"))
_STARTED_FAILED_RE = re.compile(r"EngineCore failed to start|Engine core initialization failed|WorkerProc hit an exception"
                                r"|WorkerProc failed to start")


def _assert_at_startup(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies to a bare ``AssertionError`` (a Python ``assert`` that failed, no message of its own) in a vLLM engine
    that failed to start (``EngineCore failed to start``, ``WorkerProc hit an exception``): ``expr`` (the ``assert``
    source line of its traceback, the last one above it), ``where`` (the innermost frame: file, line, function) and
    ``step`` (capturing CUDA graphs, profiling memory, warming up, as the traceback's frames name it)."""
    message = str(values.get("message") or values.get("exception") or "")
    if not message.startswith("AssertionError") or message.strip() != "AssertionError" \
            or not _STARTED_FAILED_RE.search(text):
        return None
    at = text.find("AssertionError")
    head = text[max(0, at - 8000):at]
    out: dict[str, Any] = {}
    if srcs := list(_ASSERT_SRC_RE.finditer(head)):
        out["expr"] = srcs[-1]["expr"].strip()
    if frames := list(_FRAME_AT_RE.finditer(head)):
        f = frames[-1]
        out["where"] = f"{f['func'] or f['func2']} ({(f['file'] or f['file2']).rsplit('/', 1)[-1]}, line {f['line'] or f['line2']})"
    step = next((said for r, said in _STARTUP_STEPS if r.search(head)), None)
    if step:
        out["step"] = step
    return out if out.get("expr") or step else None
