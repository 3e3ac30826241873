"""A serving engine's start-up log (vLLM, SGLang) whose last line is a step of its distributed set-up, with nothing
after it: the engine stopped there (a log cut by its poster at that line is the usual way a hang is reported). Two
such lines are read, each the moment just before a cross-rank handshake:

- the PyNCCL wrapper's version line (``vLLM is using nccl==2.28.9``, ``sglang is using nccl==2.30.7``): the NCCL
  communicator of a parallel group is created next (ncclCommInitRank); HAMi#2641 (corpus wj003);
- ``Custom allreduce is disabled because this process group spans across nodes``: the NCCL groups exist; next each
  rank opens the cross-node message queue (ZMQ) at the address it advertises, which on a machine of several
  interfaces may be one the peer cannot reach (corpus wj014, two Sparks under SGLang TP=2: the queue bound to the
  Wi-Fi address; vLLM's VLLM_HOST_IP, SGLang's SGLANG_HOST_IP set it, sgl-project/sglang
  docs/references/environment_variables.md). vLLM's GroupCoordinator makes them in that order: PyNCCL, the custom
  all-reduce, then the message-queue broadcaster; SGLang's copy of it too.

A log that ends as the server comes up (its ready line, with no request, engine statistics or batch line after it)
shows a healthy start and nothing of serving: a fault reported of serving (blind batch wv009, SGLang TP=2 with an
illegal memory access under load) is after it, so the clause :func:`ready_tail` says so.

The log cannot tell why, nor whether it stopped there or its poster cut it there: a warning, worded on that
condition, that says which output decides (NCCL_DEBUG=INFO, a stack dump of each rank)."""

from __future__ import annotations

import re

from .common import warn
from .model import Finding

_NCCL_VERSION_RE = re.compile(r"\b(?:vLLM|sglang|SGLang) is using nccl==[0-9][0-9A-Za-z.+]{0,30}\s{0,20}$")
_SPANS_NODES_RE = re.compile(r"\bCustom ?allreduce is disabled because this process group spans across nodes\.?"
                             r"\s{0,20}$", re.IGNORECASE)


def ends_at_setup(text: str, engine: str) -> list[Finding]:
    """The warning for a log whose last non-blank line is one of the set-up lines above; [] otherwise. ``engine`` is
    ``vLLM`` or ``SGLang`` (the variable that sets its advertised address is named after it)."""
    end = len(text.rstrip())  # (the last line found without copying a 5 MB log)
    last = text[text.rfind("\n", 0, end) + 1:end]
    if _NCCL_VERSION_RE.search(last):
        return [warn("The log ends at NCCL set-up: its last line is the PyNCCL wrapper naming its NCCL version, "
                     "printed just before the NCCL communicator of the parallel group is created (ncclCommInitRank). "
                     "If the process stopped there (nothing more for minutes), start-up hangs in NCCL communicator "
                     "init; if the paste was only cut there, the rest of the log decides. These lines cannot tell why (a "
                     "rank that never arrived, the interface NCCL picked, P2P or IOMMU trouble, a GPU-sharing library "
                     "LD_PRELOADed into the process): run again with NCCL_DEBUG=INFO to see how far init got, and "
                     "`py-spy dump --pid <worker pid>` on each rank to see where it waits.")]
    if _SPANS_NODES_RE.search(last):
        var = "SGLANG_HOST_IP" if engine == "SGLang" else "VLLM_HOST_IP"
        return [warn("The log ends just after the NCCL groups were made (`Custom allreduce is disabled because this "
                     "process group spans across nodes`, expected across machines). If the process stopped there "
                     "(nothing more for minutes), start-up hangs at the next cross-node step, before the weights load. Next, as a rule, the ranks open a "
                     "message queue (ZMQ) to each other at the address each advertises; on machines with several interfaces (Wi-Fi, "
                     "a LAN port, the fast link's ports) an address picked automatically can be one the peer cannot "
                     f"reach. These lines cannot tell which: set {var} on each node to its address on the link the "
                     "nodes share, and a stack dump of each rank (`py-spy dump --pid <pid>`) shows where it waits.")]
    return []


_READY_MARKS = ("Application startup complete", "The server is fired up and ready to roll", "Uvicorn running on")
_SERVING_RE = re.compile(r'"(?:POST|GET) /(?:v1|generate)|Avg prompt throughput|Prefill batch|Decode batch'
                         r"|Engine \d{1,4}: |[Gg]eneration throughput|Processed prompts")


_READY_TAIL_LINES = 4
"""Lines after the ready line that still end the log there (Uvicorn's `running on`, a sampling-params note)."""


STOP_RE = re.compile(r"\^C|KeyboardInterrupt|Shutting down|shutdown complete|Finished server process"
                     r"|Waiting for application shutdown|received signal=SIG(?:TERM|INT)\b|Received SIG(?:TERM|INT)\b"
                     r"|\[shutdown\] ")
"""A server told to stop: Ctrl-C, Uvicorn's shutdown lines (break-it 23 p04), a received SIGTERM or SIGINT, vLLM's
`[shutdown]` lines (from `[shutdown] EngineCore: trigger received signal=SIGTERM`, blind batch vd007). The one
definition: the ready finding here and the catalogue's details (grader.diagnosis_paste) read it."""


def came_up(text: str) -> bool:
    """Whether ``text`` shows a server up: its ready line (vLLM's or SGLang's) or a line of serving (an answered
    route, the engine's throughput log)."""
    return any(m in text for m in _READY_MARKS) or bool(_SERVING_RE.search(text))


_TROUBLE_RE = re.compile(r"rror|Traceback|Exception|Killed|[Ss]egmentation fault|[Ss]egfault|core dumped|Aborted"
                         r"|[Ff]atal|\b(?:died|dead|hang(?:s|ing)?|hung|timed out|[Tt]imeout)\b|signal \d|SIG[A-Z]{3,4}"
                         r"|No available shared memory broadcast block|WARN")
"""A line after the ready line that tells of trouble: an error, a crash or kill, a hang warning (break-it 23 p13, p14)."""


def _after_ready(text: str) -> tuple[int, list[str]]:
    """Where the last ready line is (-1: none) and the non-blank lines after it."""
    at = max(text.rfind(m) for m in _READY_MARKS)
    return at, [x for x in text[at:].split("\n")[1:] if x.strip()] if at >= 0 else []


def stopped_after_ready(text: str) -> str:
    """The first line after the last ready line that shows the server stopped (Ctrl-C, a shutdown), or ""."""
    return next((x.strip() for x in _after_ready(text)[1] if STOP_RE.search(x)), "")


_CRASH_RE = re.compile(r"[Ss]egmentation fault|core dumped|^Killed\b|\bKilled$|^Aborted\b|EngineDeadError"
                       r"|EngineCore encountered a fatal error|died unexpectedly")
"""A line that tells the server's own process ended: a crash, a kill, the engine dead (break-it 23 p14); a request's
traceback is not one (the server answers the next request)."""


def crashed_after_ready(text: str) -> str:
    """The first line after the last ready line that shows the server's process crashed or was killed, or "" (also
    where a request was answered after it: then the crash was another process's, break-it 25 F4)."""
    after = _after_ready(text)[1]
    at = next((i for i, x in enumerate(after) if _CRASH_RE.search(x.strip())), None)
    return "" if at is None or any(_SERVING_RE.search(x) for x in after[at + 1:]) else after[at].strip()


def ready_tail(text: str, trouble: bool = False) -> str:
    """A clause for the ready finding of a log that ends at its last ready line (at most a few lines after it, none
    of serving, an error, a crash, a hang warning or a stop), else "". ``trouble``: a warning or failure of the
    catalogue was read in the log, which may be of a line after it: no clause."""
    at, after = _after_ready(text)
    if at < 0 or trouble or _SERVING_RE.search(text, at) or len(after) > _READY_TAIL_LINES \
            or any(_TROUBLE_RE.search(x) or STOP_RE.search(x) for x in after):
        return ""
    return (" The paste ends there: it shows no request served, so how serving went (its speed, a fault under load) "
            "is not in this output.")
