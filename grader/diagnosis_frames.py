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
