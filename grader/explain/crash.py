"""Kind ``python-traceback`` for ``explain``: a Python traceback pasted on its own, judged by grader.judges.crash.
Registered last: every other kind claims its lines first. Inside a log whose reader reads its tracebacks (vLLM,
NCCL, Ray, a launcher's, a container's) its lines stay with that log (``joins``).
"""

from __future__ import annotations

import re

from ..parsers.traceback import CUT_FRAME_RE, EXCEPTION_RE, FRAME_RE, HEADER
from .core import KindSpec, register
from .readers import judge, parse_traceback

register(KindSpec(
    name="python-traceback", parse=parse_traceback, summarise=judge("crash", "summarise_traceback"),
    # its header and a frame; inside it, the exception line too; a chained traceback's second header continues it,
    # so no ``starts``
    line=re.compile(f"^{re.escape(HEADER)}$|{FRAME_RE.pattern}|{CUT_FRAME_RE.pattern.replace('?P<', '?P<cut_')}"
                    r"|^Exception ignored in: "),  # (the line above a destructor's traceback at exit: break-it 29 G10)
    inner=EXCEPTION_RE,
    joins=frozenset({"vllm-log", "nccl-log", "ray-start", "ray-status", "launcher", "docker-run", "vllm-bench",
                     "aiperf", "vllm-completion", "kubectl-pods"}),
))
