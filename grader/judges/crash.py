"""Judge of a Python traceback pasted on its own (grader.parsers.traceback). One that ends in its exception line is
read as a vLLM log's error is (grader.judges.vllm: the exception, and the reported fault of checks/diagnoses.toml it
is); one cut before that line asks for it. A traceback inside a vLLM, NCCL or Ray log is that log's reader's.
"""

from __future__ import annotations

from typing import Any

from .common import fail, info, warn
from .model import Finding, Summary


def _where(tb: Any) -> str:
    inner = tb.frames[-1] if tb.frames else None
    return (f" (raised in {inner.short}, line {inner.line}" + (f", in {inner.func}" if inner.func else "") + ")"
            if inner else "")


def summarise_traceback(tb: Any, command: str | None) -> Summary:
    """Findings: with the paste cut before the exception line, a warning asking for it; stopped by Ctrl-C, a note;
    else the vLLM log reader's reading of the traceback's lines (what an exception line means is decided there), or
    where it reads none, the reported faults of checks/diagnoses.toml in them; the exception as a failure where
    neither finds anything wrong."""
    facts: dict[str, Any] = {"exception": tb.exception, "type": tb.type, "frames": len(tb.frames),
                             "chained": tb.chained,
                             "innermost": f"{tb.frames[-1].short}:{tb.frames[-1].line}" if tb.frames else None}
    chain = (f" It ended {tb.chained} traceback(s) before it (`During handling of the above exception`): the first "
             "one is the cause, the last one what stopped the program." if tb.chained else "")
    if tb.cut:
        return facts, [warn(f"A Python traceback cut before its exception line{_where(tb)}: the error itself is not "
                            "in the paste. Paste the traceback's last lines, below its last `File ...` line: the "
                            f"`SomethingError: ...` line names what went wrong.{chain}")]
    if tb.type == "KeyboardInterrupt":
        return facts, [info(f"The program was stopped by Ctrl-C (KeyboardInterrupt){_where(tb)}: not a fault by "
                            "itself; what it printed before that is what to read.")]
    from ..diagnoses import known_faults
    from ..parsers.common import ParseError
    from .vllm import read_vllm, summarise_vllm
    try:
        _, findings = summarise_vllm(read_vllm(tb.text), command)
    except ParseError:  # no line the vLLM log reader knows: the reported faults the text holds, if any
        findings = [Finding(level, message) for level, message in known_faults(tb.text)]
    if any(f.level in ("warn", "fail") for f in findings):
        return facts, findings
    return facts, findings + [fail(f"The program stopped on a Python exception: `{tb.exception}`{_where(tb)}.{chain}")]
