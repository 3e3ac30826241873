"""Helpers shared by the parsers: cleaning pasted text, shell prompts, errors, lenient JSON.

Pasted command output arrives in many shapes: CRLF line ends, ANSI colour codes, markdown
indentation, shell prompts (``nvidia@spark-a:~$ cmd``), ``[sudo] password for x:`` lines,
``#`` comments, blank lines, cut-off JSON. The parsers call these helpers so that each one
only has to know its own command's output.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections import deque
from dataclasses import dataclass
from typing import Any, Iterable


class ParseError(ValueError):
    """A parser could not read its input.

    Args:
        command: the command whose output was being read, e.g. ``"ethtool"``.
        message: what was wrong, in words a learner can act on.
        line: the offending line as it appeared (after cleaning), or None.
        lineno: its 1-based line number in the text given to the parser, or None.

    ``str(err)`` reads like
    ``could not read `ethtool` output at line 3 ('xyz'): <message>``.
    """

    def __init__(self, command: str, message: str, line: str | None = None,
                 lineno: int | None = None) -> None:
        self.command = command
        self.message = message
        self.line = line
        self.lineno = lineno
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f" at line {self.lineno}" if self.lineno is not None else ""
        if self.line is not None:
            if len(self.line) <= MAX_QUOTED_LINE:
                where += f" ({self.line!r})"
            else:  # a multi-megabyte line is named by its start, so the message stays one readable line
                where += f" ({self.line[:MAX_QUOTED_LINE]!r}... {len(self.line):,} characters)"
        return f"could not read `{self.command}` output{where}: {self.message}"


MAX_QUOTED_LINE = 200
"""The most characters of the offending line a ParseError quotes (a reason stays one readable line)."""


# --------------------------------------------------------------------------- cleaning

_ANSI_RE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"          # CSI: colours, cursor moves, bracketed paste
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: terminal title set by many prompts
    r"|\x1b[@-Z\\-_]"                    # other two-byte escapes
)
_CTRL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def clean_lines(text: str | bytes) -> list[str]:
    """Split pasted text into lines with the transport noise removed.

    Normalises CRLF and lone CR to LF, removes ANSI escape sequences, other control
    characters (tabs are kept), byte-order marks and non-breaking spaces, and trailing
    blanks. Every line is kept (so line numbers still match the paste); a final empty
    line caused by a trailing newline is dropped. Bytes are decoded as UTF-8 with
    replacement. Never raises for str or bytes input.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _ANSI_RE.sub("", text).replace("\ufeff", "").replace("\xa0", " ")
    lines = [_CTRL_RE.sub("", line).rstrip() for line in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    return lines


# --------------------------------------------------------------------------- prompts

# Commands a bare "# cmd" line may run as root; anything else after "#" is a comment.
PROMPT_PROGRAMS = frozenset({
    "ip", "ibdev2netdev", "ethtool", "ping", "ping4", "ping6", "iperf3", "iperf", "cat",
    "sudo", "netplan", "rdma", "ibstat", "ibv_devinfo", "nvidia-smi", "ssh", "ib_write_bw",
    "mpirun", "ray", "vllm", "docker", "lspci", "ls", "grep", "head", "tail", "less",
})

_PROMPT_RES = (
    # nvidia@spark-a:~$ cmd   root@spark-a:/etc# cmd   (venv) user@host:~/x$ cmd
    re.compile(r"^(?:\([^)]*\)\s*)?(?P<user>[\w.-]++)@(?P<host>[\w.-]++):[^\s$#]*\s?[$#](?:\s+(?P<cmd>.*))?$"),
    # [user@host dir]$ cmd   (Red Hat style)
    re.compile(r"^(?:\([^)]*\)\s*)?\[(?P<user>[\w.-]+)@(?P<host>[\w.-]+)(?:\s[^\]]*)?\][$#](?:\s+(?P<cmd>.*))?$"),
    # user@host ~ % cmd   (zsh, macOS default)
    re.compile(r"^(?P<user>[\w.-]++)@(?P<host>[\w.-]++)\s+\S+\s+%(?:\s+(?P<cmd>.*))?$"),
    # $ cmd   % cmd
    re.compile(r"^[$%](?:\s+(?P<cmd>.*))?$"),
    # a notebook shell escape: !ibdev2netdev   In [3]: !ip -br addr
    re.compile(r"^(?:In \[\d*\]:\s*)?!(?P<cmd>[A-Za-z/.].*)$"),
)
_ROOT_PROMPT_RE = re.compile(r"^#\s+(?P<cmd>(?P<prog>[\w./-]+)(?:\s.*)?)$")
# "# command: ip -j addr" headers, as the fixture files and capture scripts write them.
_COMMAND_HEADER_RE = re.compile(r"^#\s*command(?:\s*\([^)]*\))?:\s*(?P<cmd>\S.*)$", re.I)
_SUDO_RE = re.compile(r"^(?:\[sudo\] password for [^:]*:|Password:)\s*$", re.I)
_FENCE_RE = re.compile(r"^(?:```|~~~)")
# warnings other programs print between a command and its output
_CHATTER_RE = re.compile(r"^(?:sudo: unable to resolve host .*|Warning: Permanently added .*"
                         # X11 forwarding noise that mpirun/ssh print between output lines
                         r"|Authorization required, but no authorization protocol specified"
                         r"|No protocol specified|Invalid MIT-MAGIC-COOKIE-1 key)$")
_ELLIPSIS_RE = re.compile(r"^(?:\.\.\.|…|\[\.\.\.\]|\[…\])$")


@dataclass(frozen=True)
class Prompt:
    """A shell prompt line: the command typed (may be ""), and user/host when shown."""

    command: str
    user: str | None = None
    host: str | None = None


def parse_prompt(line: str) -> Prompt | None:
    """Return the Prompt on this line, or None if it is not a prompt line.

    Recognised: ``user@host:path$ cmd`` (also ``#`` for root, a ``(venv)`` prefix),
    ``[user@host dir]$ cmd``, zsh ``user@host ~ % cmd``, ``$ cmd``, notebook ``!cmd``,
    ``# cmd`` only when cmd starts with a known program (PROMPT_PROGRAMS), and
    ``# command: cmd`` headers.
    """
    s = line.strip()
    if not s:
        return None
    for regex in _PROMPT_RES:
        m = regex.match(s)
        if m:
            groups = m.groupdict()
            return Prompt((groups.get("cmd") or "").strip(), groups.get("user"), groups.get("host"))
    m = _COMMAND_HEADER_RE.match(s)
    if m:
        return Prompt(m.group("cmd").strip())
    m = _ROOT_PROMPT_RE.match(s)
    if m and os.path.basename(m.group("prog")) in PROMPT_PROGRAMS:
        return Prompt(m.group("cmd").strip())
    return None


def is_prompt_line(line: str) -> bool:
    """True for a shell prompt line (see parse_prompt)."""
    return parse_prompt(line) is not None


def is_sudo_line(line: str) -> bool:
    """True for ``[sudo] password for user:`` and bare ``Password:`` lines."""
    return bool(_SUDO_RE.match(line.strip()))


def is_comment_line(line: str) -> bool:
    """True for a ``#`` comment that is not a root prompt."""
    s = line.strip()
    return s.startswith("#") and not is_prompt_line(s)


def is_noise_line(line: str) -> bool:
    """True for lines no parser needs: blank, comment, sudo prompt, markdown fence, '...',
    and chatter such as ``sudo: unable to resolve host x``, ssh's ``Warning: Permanently added``
    or X11's ``Authorization required, but no authorization protocol specified``."""
    s = line.strip()
    return (not s or is_comment_line(s) or is_sudo_line(s) or bool(_FENCE_RE.match(s))
            or bool(_ELLIPSIS_RE.match(s)) or bool(_CHATTER_RE.match(s)))


@dataclass(frozen=True)
class Line:
    """One content line: its 1-based number in the input, its text, and the prompt above it.

    ``command`` is the command of the nearest prompt line above (None if none), ``group``
    counts prompt lines seen so far (0 before the first), so lines under one prompt share it.
    """

    no: int
    text: str
    command: str | None
    group: int


def content_lines(text: str | bytes, keep_comments: bool = False) -> list[Line]:
    """The lines a parser should read: prompts, sudo prompts, blanks, fences dropped.

    Comment lines are dropped too unless ``keep_comments`` is true. Indentation is kept.
    """
    out: list[Line] = []
    command: str | None = None
    group = 0
    for no, raw in enumerate(clean_lines(text), start=1):
        prompt = parse_prompt(raw)
        if prompt is not None:
            command, group = prompt.command or None, group + 1
            continue
        if keep_comments and is_comment_line(raw):
            out.append(Line(no, raw, command, group))
        elif not is_noise_line(raw):
            out.append(Line(no, raw, command, group))
    return out


@dataclass(frozen=True)
class Chunk:
    """A part of a paste: one prompt's command and the lines printed under it.

    ``lines`` excludes the prompt line but keeps comments and blanks; ``prompt_line`` is
    the prompt as pasted (None for text before any prompt); ``first_lineno`` is the
    1-based number of the prompt line (or of the first line) in the whole paste.
    """

    command: str | None
    host: str | None
    prompt_line: str | None
    lines: tuple[str, ...]
    first_lineno: int
    linenos: tuple[int, ...] = ()  # the paste's line number of each of ``lines``

    @property
    def text(self) -> str:
        """The chunk as text, prompt line first (what a parser should be given)."""
        head = [self.prompt_line] if self.prompt_line is not None else []
        return "\n".join(head + list(self.lines))

    def has_content(self) -> bool:
        """True if any line is not noise (comments and blanks do not count)."""
        return any(not is_noise_line(line) for line in self.lines)


def split_chunks(text: str | bytes) -> list[Chunk]:
    """Split a paste into Chunks at prompt lines.

    Text before the first prompt becomes a chunk with command None, unless it holds only
    noise (comments, blanks): then it is handed to the first prompt's chunk, so a
    ``# simulated`` comment above a prompt stays with that prompt's output. A prompt with
    nothing under it still gives a (contentless) chunk. Never raises.
    """
    parts: list[tuple[Prompt | None, str | None, int, list[tuple[int, str]]]] = [(None, None, 1, [])]
    for no, line in enumerate(clean_lines(text), start=1):
        prompt = parse_prompt(line)
        if prompt is None:
            parts[-1][3].append((no, line))
        else:
            parts.append((prompt, line, no, []))
    preamble = parts.pop(0)[3]
    if parts and not any(not is_noise_line(x) for _, x in preamble):
        prompt, line, no, lines = parts[0]
        parts[0] = (prompt, line, no, preamble + lines)
    elif preamble:
        parts.insert(0, (None, None, 1, preamble))
    return [Chunk(p.command or None if p else None, p.host if p else None, line,
                  tuple(x for _, x in lines), no, tuple(n for n, _ in lines))
            for p, line, no, lines in parts]


def split_sections(text: str | bytes) -> list[tuple[str | None, list[str]]]:
    """Split a paste at prompt lines into ``(command_or_None, lines)`` pairs.

    ``lines`` are the cleaned lines under that prompt (prompt line excluded). Text before
    the first prompt gets command None. See split_chunks for the richer form.
    """
    return [(c.command, list(c.lines)) for c in split_chunks(text)]


# --------------------------------------------------------------------------- log prefixes

# What launchers and log collectors put in front of a program's own line. Each is removed
# from the start of the line, repeatedly (a Ray prefix inside a docker-logs timestamp...).
_LOG_PREFIX_RES = (
    # Open MPI --tag-output: [1,0]<stdout>:   (Open MPI 5 adds a space)
    re.compile(r"^\[\d+,\d+\]<(?:stdout|stderr|stddiag)>:\s?"),
    # MPICH/Hydra -prepend-rank "[0] ", torchrun --tee "[default0]:" / "[rank0]:"
    re.compile(r"^\[(?:default|rank)?\d+\]:\s?|^\[\d+\]\s+(?=\S)"),
    # Ray worker prefixes: (RayWorkerWrapper pid=123, ip=10.0.0.2) (EngineCore_DP0 pid=9)
    re.compile(r"^\([\w.:-]+ pid=\d+(?:, ip=[0-9A-Fa-f.:]+)?\)\s*"),
    # timestamps: 2025-11-19T10:00:00.123456789Z, [2025-11-19 10:00:00,123], docker/kubectl logs
    re.compile(r"^\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?\s+"),
    # docker compose: "vllm-head-1  | "
    re.compile(r"^[\w.-]++\s+\|\s"),
)
# Starts only where a run of blanks starts (the look-behind), so a long run of blanks is scanned once,
# not once per blank (quadratic); possessive, as nothing after a blank or digit run gives any back.
_RAY_REPEAT_RE = re.compile(r"(?<!\s)\s*+\[repeated \d++x across cluster\]\s*+$")


def strip_log_prefix(line: str) -> str:
    """The line without the prefixes launchers add in front of a program's output.

    Removes, repeatedly and only at the start: Open MPI ``--tag-output`` tags
    (``[1,0]<stdout>:``), MPICH ``[0] `` and torchrun ``[default0]:``/``[rank0]:`` tags, Ray's
    ``(RayWorkerWrapper pid=123, ip=10.0.0.2)`` prefixes, ISO timestamps (docker/kubectl
    ``--timestamps``) and docker compose ``service  | ``; and at the end, Ray's
    ``[repeated 3x across cluster]``. Leading blanks are kept when nothing is removed, so
    indented output stays indented. Never raises.
    """
    out = _RAY_REPEAT_RE.sub("", line) if "across cluster]" in line else line
    for _ in range(8):
        before = out
        for regex in _LOG_PREFIX_RES:
            stripped = out.lstrip()
            m = regex.match(stripped)
            if m and m.end() > 0:
                out = stripped[m.end():]
        if out == before:
            break
    return out


# --------------------------------------------------------------------------- commands

_WRAPPERS = {"sudo", "env", "time", "nice", "command", "exec", "stdbuf", "nohup", "doas"}
_SSH_ARG_OPTS = set("bcDEeFIiJLlmOopQRSWw")


def command_argv(command: str | None) -> list[str]:
    """The argv of the program a command line really runs, first pipeline stage only.

    ``"sudo ethtool enp1s0f1np1 | grep Speed"`` -> ``["ethtool", "enp1s0f1np1"]``.
    Unwraps sudo (and its options), env, ``VAR=x`` assignments, time, ``ip netns exec NS``
    and ``ssh [opts] host``; the program is reduced to its basename. Returns [] for None
    or an empty command. Never raises.
    """
    if not command:
        return []
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes in a pasted prompt
        tokens = command.split()
    argv: list[str] = []
    for tok in tokens:
        if tok and all(ch in "|;&<>()" for ch in tok):
            if tok[0] in "<>" and argv and argv[-1].isdigit():
                argv.pop()  # the "2" of "2>&1"
            break
        argv.append(tok)
    while argv:
        prog = os.path.basename(argv[0])
        if prog in _WRAPPERS:
            argv = argv[1:]
            while argv and (argv[0].startswith("-") or re.match(r"^\w+=", argv[0])):
                takes_value = prog == "sudo" and argv[0] in ("-u", "-g", "-h", "-p", "-C")
                argv = argv[2:] if takes_value else argv[1:]
        elif re.match(r"^[A-Za-z_]\w*=", argv[0]):
            argv = argv[1:]
        elif prog == "ip" and argv[1:3] == ["netns", "exec"] and len(argv) > 4:
            argv = argv[4:]
        elif prog == "ssh":
            rest = argv[1:]
            while rest and rest[0].startswith("-"):
                opt = rest.pop(0)
                if len(opt) == 2 and opt[1] in _SSH_ARG_OPTS and rest:
                    rest.pop(0)
            argv = rest[1:]  # drop the host
        else:
            break
    if argv:
        argv[0] = os.path.basename(argv[0])
    return argv


# --------------------------------------------------------------------------- errors

_NOT_FOUND_RE = re.compile(
    r"(?:^|:\s)(?P<prog>[\w.+-]+): (?:command not found|not found)\s*$"
    r"|^Command '(?P<prog2>[\w.+-]+)' not found")
_FILE_ERROR_RE = re.compile(r":\s*(?:No such file or directory|Permission denied)\s*$")


def raise_if_shell_error(lines: Iterable[Line], command: str) -> None:
    """Raise ParseError if a line says the shell could not run the program or read a file.

    Matches ``bash: ip: command not found``, dash's ``sh: 1: ip: not found``, Ubuntu's
    ``Command 'ibdev2netdev' not found``, and ``...: No such file or directory`` /
    ``Permission denied``. The message names the line and says what to do.
    """
    for line in lines:
        text = line.text.strip()
        m = _NOT_FOUND_RE.search(text)
        if m:
            prog = m.group("prog") or m.group("prog2")
            msg = (f"the shell says `{prog}`: command not found; install it or run the "
                   "command on the machine that has it")
            raise ParseError(command, msg, text, line.no)
        if _FILE_ERROR_RE.search(text):
            raise ParseError(command, f"the command could not run: {text}", text, line.no)


def fail_on_line(command: str, line: Line, message: str) -> ParseError:
    """Build the ParseError for a line a parser cannot read."""
    return ParseError(command, message, line.text.strip(), line.no)


# --------------------------------------------------------------------------- JSON

_JSON_START_RE = re.compile(r'^\s*(?:\{|\[\s*(?:[\[{"\]]|$))')


def opens_json(line: str) -> bool:
    """True if the line opens a JSON value: ``{``, or ``[`` then ``{``, ``[``, ``"``, ``]`` or end.

    ``[  5]`` (iperf3 text) and ``[sudo]`` do not count.
    """
    return bool(_JSON_START_RE.match(line))


def find_json_start(lines: list[Line]) -> int | None:
    """Index of the first line that opens a JSON value (see opens_json), or None."""
    return next((i for i, line in enumerate(lines) if opens_json(line.text)), None)


def load_json_lenient(text: str, command: str, first_lineno: int = 1) -> tuple[Any, bool]:
    """Parse JSON that may be cut off; return ``(value, truncated)``.

    A complete value parses as usual (text after it is ignored). When the text ends inside
    the value, the longest prefix that ends after a complete member or item is closed and
    parsed, and ``truncated`` is True. A syntax error before the end raises ParseError
    with the line number (counted from ``first_lineno``), as does a value cut off before
    its first complete item.
    """
    body = text.strip()
    decoder = json.JSONDecoder()
    try:
        value, _ = decoder.raw_decode(body)
        return value, False
    except json.JSONDecodeError as err:
        at_end = err.pos >= len(body) - 1 or err.msg.startswith("Unterminated string")
        if not at_end:
            bad = body.splitlines()[err.lineno - 1] if body else ""
            raise ParseError(command, f"invalid JSON: {err.msg} (column {err.colno})",
                             bad.strip(), first_lineno + err.lineno - 1) from None
    value = _close_truncated_json(body)
    if value is None:
        raise ParseError(command, "the JSON output is cut off before its first complete item",
                         body.splitlines()[-1].strip() if body else "",
                         first_lineno + body.count("\n"))
    return value, True


# a string (or a lone quote: the text is cut inside one), or a bracket
_JSON_TOKEN_RE = re.compile(r'"(?:[^"\\]++|\\.)*+"|[{}\[\]]|"', re.S)


def _close_truncated_json(body: str) -> Any:
    """Close a cut-off JSON text at its last complete member; None if nothing is complete.

    A cut is possible after each closed value inside the outer one and before each comma; the last 400
    are tried, latest first. Strings are skipped by a pattern, and a run between brackets is searched for
    commas by str.find/rfind only when needed, so Python steps once per bracket or string, not once per
    character; the open brackets are a linked stack, so each cut keeps its own in O(1).
    """
    # events, latest last: (position, stack) a cut after a closed value; (start, end, stack) a run with commas
    events: deque[tuple] = deque(maxlen=400)
    stack: tuple | None = None  # (closer, rest of the stack) cells; None when empty
    prev = 0
    find = body.find
    for m in _JSON_TOKEN_RE.finditer(body):
        start = m.start()
        if stack is not None and start > prev and find(",", prev, start) >= 0:
            events.append((prev, start, stack))
        prev = m.end()
        c = body[start]
        if c == '"':
            if prev - start == 1:  # a lone quote: the text ends inside a string
                break
        elif c == "{" or c == "[":
            stack = ("}" if c == "{" else "]", stack)
        elif stack is not None:  # } or ]
            stack = stack[1]
            if stack is not None:
                events.append((prev, stack))
    else:
        if stack is not None and find(",", prev) >= 0:
            events.append((prev, len(body), stack))
    cuts: list[tuple[int, tuple]] = []  # latest first
    for event in reversed(events):
        if len(event) == 2:
            cuts.append(event)
        else:
            start, end, cell = event
            while len(cuts) < 400:
                k = body.rfind(",", start, end)
                if k < 0:
                    break
                cuts.append((k, cell))
                end = k
        if len(cuts) >= 400:
            break
    for pos, cell in cuts[:400]:
        closers = []
        while cell is not None:
            closers.append(cell[0])
            cell = cell[1]
        try:
            return json.loads(body[:pos] + "".join(closers))
        except ValueError:
            continue
    return None


def json_dig(obj: Any, *path: str | int, default: Any = None) -> Any:
    """``obj[path[0]][path[1]]...`` or ``default`` when any step is missing or mistyped."""
    for key in path:
        if isinstance(key, int) and isinstance(obj, list) and -len(obj) <= key < len(obj):
            obj = obj[key]
        elif isinstance(key, str) and isinstance(obj, dict) and key in obj:
            obj = obj[key]
        else:
            return default
    return obj


def as_int(value: Any) -> int | None:
    """An int from an int/float/numeric string, else None (bools are not numbers)."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: JSON 1e999 is inf
        return None


def as_float(value: Any) -> float | None:
    """A float from an int/float/numeric string, else None (bools are not numbers)."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
