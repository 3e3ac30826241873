"""A Python traceback on its own (pasted without the log around it): its frames and the exception it ended with.

A pure parser: ``parse_traceback(text)`` -> :class:`PyTraceback`, or ParseError when the text shows neither
``Traceback (most recent call last):`` nor a ``File "...", line N`` frame. Launchers' prefixes (Ray's
``(RayWorkerWrapper pid=1)``, torchrun's ``[rank0]:``) are read through. What the exception means is judged in
grader.judges.crash, and the reported faults it names in checks/diagnoses.toml.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import ParseError, clean_lines, strip_log_prefix

HEADER = "Traceback (most recent call last):"
FRAME_RE = re.compile(r'^\s*File "(?P<file>[^"\n]{1,400})", line (?P<line>\d{1,7})(?:, in (?P<func>\S{1,200}))?')
CUT_FRAME_RE = re.compile(r'^(?P<file>[\w.+-]{1,100}(?:/[\w.+-]{1,100}){0,20}\.py)", line (?P<line>\d{1,7}), in (?P<func>\S{1,200})\s*$')
"""A frame whose start the paste cut off (``tensorrt_llm/runtime/model_runner.py", line 81, in read_config``): read as
the first frame of a paste that begins there (blind batch vt007)."""
# the exception line: a class name Python's own exceptions and libraries' end in, dotted or not, with its message
EXCEPTION_RE = re.compile(r"^(?P<type>(?:[A-Za-z_]\w*+\.){0,6}+(?:[A-Za-z_]\w*?(?:Error|Exception|Exit|Interrupt"
                           r"|Timeout|Failure|Warning|Fault)|Exception)(?:\([\w.]{1,80}\))?|StopIteration"
                           r"|KeyboardInterrupt)(?::\s*(?P<message>.*))?$")
"""A class name before ``Error`` (a bare ``Error: unknown`` is a command line tool's, nmcli's or ip's), or Python's
bare ``Exception``."""
_FATAL_RE = re.compile(r"^Fatal Python error: \S")  # faulthandler's dump: its frames listed most recent call first
_CHAINED = ("During handling of the above exception", "The above exception was the direct cause")
MAX_MESSAGE_CHARS = 400
"""An exception's message is kept to this many characters (a message may hold a whole tensor's repr)."""


@dataclass(frozen=True)
class Frame:
    """One ``File "path", line N, in func`` line: where the call was when the exception passed through it."""

    file: str
    line: int
    func: str | None

    @property
    def short(self) -> str:
        """The path from its package on (``vllm/engine/llm_engine.py``), not the site-packages above it."""
        ends = [self.file.rindex(m) + len(m) for m in ("site-packages/", "dist-packages/", ".egg/") if m in self.file]
        return self.file[max(ends):] if ends else self.file


@dataclass(frozen=True)
class PyTraceback:
    """The last traceback of the text, innermost frame last, and the exception that ended it.

    ``exception``: ``"ValueError: message"`` (None when the paste stops before it: ``cut``); ``exception_lines``: every
    exception line, chained ones first (what checks/diagnoses.toml is matched against); ``chained``: how many
    tracebacks came before the last, linked to it (``During handling of the above exception``); ``repeated``: how many
    came before it unlinked (several ranks' or restarts' own tracebacks: where the last is cut and one before it of the
    same frames is whole, that one is read, blind batch vt009); ``header``: whether
    ``Traceback (most recent call last):`` was seen (a paste may start at a frame); ``text``: what was read (the
    log reader reads an exception's words in it); ``recent_first``: faulthandler's dump (``Fatal Python error: ...``,
    its line the ``exception``), whose frames run from the innermost out.
    """

    frames: tuple[Frame, ...]
    exception: str | None
    exception_lines: tuple[str, ...]
    chained: int
    header: bool
    text: str = ""
    recent_first: bool = False
    repeated: int = 0
    ignored: bool = False  # the only traceback is under `Exception ignored in:`: Python went on (a destructor at exit)

    @property
    def cut(self) -> bool:
        return self.exception is None

    @property
    def innermost(self) -> Frame | None:
        return (self.frames[0] if self.recent_first else self.frames[-1]) if self.frames else None

    @property
    def type(self) -> str | None:
        m = EXCEPTION_RE.match(self.exception or "")
        return m.group("type") if m else None


def parse_traceback(text: str) -> PyTraceback:
    """Read ``text``; ParseError when it holds no traceback header and no frame."""
    frames: list[Frame] = []
    exceptions: list[str] = []
    exception: str | None = None
    chained = repeated = 0
    linked = header = False
    whole: tuple[list[Frame], str] | None = None  # the last unlinked traceback before this one that has its exception
    fatal: str | None = None
    ignoring = ignored = False  # under `Exception ignored in: ...`: a destructor's at exit, not what stopped the program

    def another() -> None:  # a second traceback begins: the one before it is chained to it, or another error
        nonlocal chained, repeated, whole, linked, frames, exception, ignored
        if linked:
            chained += 1
        elif not ignored:
            repeated += 1
            whole = (frames, exception) if exception is not None else whole
        frames, exception, linked, ignored = [], None, False, ignoring

    for raw in clean_lines(text):
        line = strip_log_prefix(raw).rstrip()
        s = line.strip()
        if not s:
            continue
        if s == HEADER:
            header = True
            if frames or exception:
                another()
            ignored, ignoring = ignoring, False
            continue
        if s.startswith(_CHAINED):
            linked = True
            continue
        if s.startswith("Exception ignored in"):  # (break-it 28 F12: LLM.__del__ after the KeyError that stopped it)
            ignoring = True
            continue
        if ignoring and not line[:1].isspace() and EXCEPTION_RE.match(s):  # its exception with no traceback of its own
            ignoring = False  # (stdout's BrokenPipeError at exit under `| head`: break-it 29 G11)
            continue
        if _FATAL_RE.match(s):
            fatal = fatal or s[:MAX_MESSAGE_CHARS]
            continue
        m = FRAME_RE.match(line) or (CUT_FRAME_RE.match(s) if not (frames or header or exceptions) else None)
        if m:
            if exception is not None:  # a frame after an exception line: another traceback, its header left out
                another()
            frames.append(Frame(m.group("file"), int(m.group("line")), m.group("func")))
            continue
        if line[:1].isspace():  # a frame's source line (indented), or a message's continuation
            continue
        m = EXCEPTION_RE.match(s)
        if m and (frames or header):
            exception = s[:MAX_MESSAGE_CHARS]
            exceptions.append(exception)
    if not frames and not header:
        raise ParseError("Python traceback", "no Python traceback here: neither 'Traceback (most recent call "
                         "last):' nor a 'File \"...\", line N' frame")
    if fatal and exception is None:
        return PyTraceback(tuple(frames), fatal, (fatal,), chained, header, text, recent_first=True)
    if exception is None and whole and frames and whole[0][:len(frames)] == frames or ignored and whole:
        frames, exception = whole  # the same one cut, or a destructor's at exit after it: the one before is read
        repeated -= ignored  # (that one is no other rank's)
        ignored = False
    return PyTraceback(tuple(frames), exception, tuple(exceptions), chained, header, text, repeated=repeated,
                       ignored=ignored)
