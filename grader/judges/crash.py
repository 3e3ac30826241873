"""Judge of a Python traceback pasted on its own (grader.parsers.traceback): one through vLLM's own code is read as a
vLLM log's error is (grader.judges.vllm); any other by the reported faults of checks/diagnoses.toml in it, else as its
exception; one cut before its exception line asks for that line. A traceback inside a vLLM, NCCL or Ray log is that
log's reader's.
"""

from __future__ import annotations

import re
from typing import Any

from ..diagnoses import known_faults
from .common import fail, info, warn
from .model import Finding, Summary


def _where(tb: Any) -> str:
    inner = tb.innermost
    return (f" (raised in {inner.short}, line {inner.line}" + (f", in {inner.func}" if inner.func else "") + ")"
            if inner else "")


_ERROR_WORDS_RE = re.compile(r"\b(?:[Ee]rror|ERROR|[Ee]xception|[Ff]ailed|FAILED|out of memory)\b")


def _header_in_paste(tb: Any) -> tuple[str, str, int]:
    """The paste, the traceback's first 160 characters from its header on (a program's prints above it may be read
    with it: blind batch vt008), and where those start in the paste (-1: not found, or no text)."""
    from .context import context
    text = tb.text or ""
    paste, head = context().paste, text[max(0, text.find("Traceback (most recent call last)")):].lstrip()[:160]
    return paste, head, paste.find(head) if head else -1


def _error_above(tb: Any) -> str | None:
    """The line printed just above the traceback's header, in the paste, where it names an error (a program that
    logs what went wrong and then the traceback of the exception it caught), else None."""
    paste, _, at = _header_in_paste(tb)
    at = paste.rfind("\n", 0, at) + 1 if at > 0 else at  # (a caption on the header's own line is not above it)
    if at <= 0:
        return None
    before = [x.strip() for x in paste[max(0, at - 2000):at].splitlines() if x.strip()]
    last = before[-1] if before else ""
    if _ERROR_WORDS_RE.search(last):
        return last[:300] if not last.endswith(":") else None  # (not a caption)
    for i in (2, 3):  # blind batch xo013/xo014: exo's `Error processing tensor for shard ...`, wrapped over lines
        if len(before) >= i and _ERROR_FIRST_RE.match(before[-i]) \
                and not any(_RECORD_RE.match(x) for x in before[1 - i:]):  # (another record is no continuation)
            said = " ".join(before[-i:])
            return said[:300] if not said.endswith(":") else None
    return None


_RECORD_RE = re.compile(r"^(?:\[|\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}:\d{2}|[A-Z]{4,8}\b|\$ )")
"""A line that starts a log record of its own (a bracketed tag, a date or time, a level word, a prompt)."""
_ERROR_FIRST_RE = re.compile(r"^(?:[A-Z]\w{0,40})?(?:Error|ERROR|Exception)\b(?!:?\s{0,3}$)")
"""A line that starts with its error's name (``Error processing tensor ...``, ``RuntimeError ...``): a program's
message, which a terminal or a log viewer may wrap over the next lines (a person's caption starts otherwise)."""


_LOGGED_RE = re.compile(r"^(?P<caption>.{1,300}?)\s{0,5}Traceback \(most recent call last\):", re.M)
_LOG_RECORD_RE = re.compile(r"^\[|\d{1,2}:\d{2}:\d{2}|\b(?:ERROR|CRITICAL)\b")
"""A log record's marks before the header on its line: a bracketed tag or a timestamp first, or the level word."""


def _logged_as_error(tb: Any) -> str | None:
    """The caption a logger printed on the traceback header's own line (``[time] [TRT-LLM] Error details: %s
    Traceback (most recent call last):``), where it is a log record's and names an error, else None: the program
    caught the exception and logged it as an error."""
    from .context import context
    paste, head = context().paste, (tb.text or "").lstrip()[:160]
    at = paste.find(head) if head else -1
    above = paste[max(0, at - 2000):at].rstrip().rpartition("\n")[2] if at > 0 else ""
    m = _LOGGED_RE.search(tb.text or "") or _LOGGED_RE.search(above.strip())
    caption = m.group("caption").strip() if m else ""
    return caption if _ERROR_WORDS_RE.search(caption) and _LOG_RECORD_RE.search(caption) else None


_REQUEST_PATH_RE = re.compile(r"(?:^|/)(?:serve|entrypoints|openai)[/_]|openai_server|api_server")
"""A frame in a server's request handling: an OpenAI-compatible server's module."""


def _faults_it_completes(tb: Any) -> list[Finding]:
    """The reported faults of checks/diagnoses.toml that the lines above a cut traceback and its header make
    together, and the lines above alone do not (a warning that, followed by a traceback, means the program died
    of it: vLLM imported from an unbuilt source tree); [] when none (those above alone are their section's)."""
    paste, head, at = _header_in_paste(tb)
    if at <= 0:
        return []
    above = paste[max(0, at - 2000):at]
    alone = {message for _, message in known_faults(above)}
    return [Finding(level, message) for level, message in known_faults(above + head)
            if message not in alone]


def summarise_traceback(tb: Any, command: str | None) -> Summary:
    """Findings: with the paste cut before the exception line, a warning asking for it; stopped by Ctrl-C, a note;
    a traceback through vLLM's own code, the vLLM log reader's reading of its lines (what vLLM's exceptions mean is
    decided there); any other, the reported faults of checks/diagnoses.toml in it, else the exception as a
    failure."""
    inner = tb.innermost
    facts: dict[str, Any] = {"exception": tb.exception, "type": tb.type, "frames": len(tb.frames),
                             "chained": tb.chained, "repeated": tb.repeated, "innermost": f"{inner.short}:{inner.line}" if inner else None}
    chain = (f" It ended {tb.chained} traceback(s) before it (`During handling of the above exception`): the first "
             "one is the cause, the last one what stopped the program." if tb.chained else "") + (
        f" The paste holds {tb.repeated + 1} tracebacks not chained to one another (each rank, worker or run prints "
        "its own): the last whole one is read." if tb.repeated else "")
    if tb.ignored:  # Python printed it and went on (a destructor at exit): not what stopped the program (break-it 29 G10)
        return facts, [Finding("info" if level == "fail" else level, message) for level, message in known_faults(tb.text)
                       ] or [info(f"Python ignored this exception (`{tb.exception}`{_where(tb)}, under `Exception ignored "
                                  "in:`): raised in a destructor or at exit, it did not stop the program; what the "
                                  "program printed before it is what to read.")]
    above = _error_above(tb) if tb.cut else None
    if above:  # blind batch xo001: the program printed its error, then the traceback it caught
        return facts, [fail(f"The program printed an error just above its traceback: `{above}`{_where(tb)}. That "
                            "line is what went wrong; the traceback, cut before its exception line here, shows where "
                            f"it was raised.{chain}")] + [Finding(level, message) for level, message in known_faults(
                                above)]
    logged = _logged_as_error(tb) if tb.cut and not above else None
    if logged:  # field zr020: trtllm-serve logs a failed request's traceback under an `Error details` caption
        request = any(_REQUEST_PATH_RE.search(f.short) for f in tb.frames)
        return facts, _faults_it_completes(tb) + [fail(
            f"The program logged this traceback as an error (`{logged}`){_where(tb)}"
            + (": its frames run through a server's request handler, so a request failed there. " if request
               else ": it failed there. ")
            + "The exception line that says why is cut from this paste. Paste the traceback's last lines"
            + (", and the log of the engine, executor or worker around that time: the error it returned is the "
               "cause." if request else ": the `SomethingError: ...` line names what went wrong.")
            + chain)]
    if tb.cut:
        return facts, _faults_it_completes(tb) + [warn(
            f"A Python traceback cut before its exception line{_where(tb)}: the error itself is not in the paste. "
            "Paste the traceback's last lines, below its last `File ...` line: the `SomethingError: ...` line names "
            f"what went wrong.{chain}")]
    status = (tb.exception or "").partition(":")[2].strip()  # `SystemExit` alone: sys.exit() with no status
    if tb.type == "SystemExit" and status in ("", "0", "None"):
        return facts, [info(f"The program ended itself normally (`{tb.exception}`){_where(tb)}: exit status 0.")]
    if tb.type == "KeyboardInterrupt":
        return facts, [info(f"The program was stopped by Ctrl-C (KeyboardInterrupt){_where(tb)}: not a fault by "
                            "itself; what it printed before that is what to read.")]
    from ..parsers.common import ParseError
    findings: list[Finding] = []
    if any(f.short.startswith("vllm/") for f in tb.frames):  # vLLM's own traceback: read as its log's error
        from .vllm import read_vllm, summarise_vllm
        try:
            findings = summarise_vllm(read_vllm(tb.text), command)[1]
        except ParseError:
            findings = []
    if not any(f.level in ("warn", "fail") for f in findings):
        findings = [Finding(level, message) for level, message in known_faults(tb.text)]
    said = f"The program stopped on {'a Python exception' if not tb.recent_first else 'a fatal error'}: " \
        f"`{tb.exception}`{_where(tb)}.{chain}"
    if any(f.level in ("warn", "fail") for f in findings):
        return facts, ([info(said)] if tb.chained or tb.repeated or tb.recent_first else []) + findings
    return facts, findings + [fail(said)]
