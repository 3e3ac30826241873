"""Lines a program, or a library it loads, prints on stderr above its own output: Python's warnings, PyTorch's C++
log, vLLM's import lines, docker compose's ``Attaching to``. Above the first output of a paste they belong to the
output below them (grader.explain.core's splitter holds them for it); alone, they are what the paste holds. And Ray's
own log lines, which stand under its `ray status` (:data:`RAY_LOG_RE`). Light: explain imports it at start."""

from __future__ import annotations

import re

PY_WARNING_RE = re.compile(r"^(?:\S+\.py|<[\w. ]{1,60}>):\d+: \w*Warning: |^\s*(?:warnings\.)?warn\(")
"""A line Python's warnings module prints on stderr (``file.py:6: UserWarning: ...``, then the source line; a frozen
module's ``<frozen importlib._bootstrap_external>:1297: FutureWarning: ...``)."""

_TORCH_LOG_RE = re.compile(r"^(?:\[rank\d{1,5}\]:)?\[?[WI]\d{3,4} [\d:.]{8,21}(?: {1,3}\d{1,9})? [\w.-]{1,60}\.(?:cpp|cc|cu|h):\d{1,6}\] ")
"""A line of PyTorch's C++ log (c10's ``[rank0]:[W1003 19:36:19.077712446 CUDACachingAllocator.cpp:3933] ...``, glog's
``W1003 19:36:19.077712 4242 ProcessGroupNCCL.cpp:1107] ...``): a library's warning or note on stderr. Its error
lines (``E1003``: a watchdog's timeout) are an output of their own (break-it 26 F10)."""


_RAY_CPP_LOG_RE = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [IW] \d{1,9} \d{1,9}\] \w{1,60}\.(?:cc|h):\d{1,6}: ")
"""A line of Ray's C++ log (``[2022-09-08 17:15:31,308 I 46829 46829] config_internal.cc:188: ...``): its core worker's or
driver's note on stderr (blind batch vt006). Its error lines are read by the output they belong to."""

_VLLM_IMPORT_RE = re.compile(r"\[__init__\.py:\d{1,5}\] Automatically detected platform \w{1,12}\.$|Triton is installed, but "
                             r"doesn't include CPU backend|No platform detected, vLLM is running on")
"""What vLLM prints as it is imported, whichever of its commands runs (``vllm serve``, ``vllm bench serve``)."""


_ATTACHING_RE = re.compile(r"^Attaching to [\w.-]{1,80}(?:, [\w.-]{1,80}){0,20}$")
"""docker compose's first line of ``up`` or ``logs``, above the containers' own lines."""


def is_preamble(line: str, above: str | None = None) -> bool:
    """Whether ``line`` is a library's message that a program printed on stderr above its own output (a Python
    warning, PyTorch's C++ log, vLLM's import) or docker compose's ``Attaching to ...``: above the first output of a
    paste, it belongs to the output below. ``above``: the line held before it, when one was: the indented source line
    Python prints under a warning (``  import pynvml  # type: ignore[import]``) is held with it."""
    s = line.strip()
    if above is not None and line[:1].isspace() and s and PY_WARNING_RE.match(above.strip()):
        return True
    return bool(PY_WARNING_RE.match(s) or _TORCH_LOG_RE.match(s) or _ATTACHING_RE.match(s) or _RAY_CPP_LOG_RE.match(s)
                or len(s) < 300 and _VLLM_IMPORT_RE.search(s))

RAY_LOG_RE = re.compile(r"^\s*\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\s+(?:INFO|WARNING|ERROR) \w{1,60}\.py:\d{1,5} -- ")
"""A line of Ray's own log (the autoscaler's, in `monitor.log` or under `ray status`): ``2022-12-22 00:26:46,855 WARNING
resource_demand_scheduler.py:783 -- ...``."""
