"""Helpers shared by the parsers: cleaning pasted text, shell prompts, errors; by topic in submodules, re-exported
here: the command a command line runs (``commands``), lenient JSON (``jsonish``), many regexes asked at once
(``anyof``), a paste split at its prompts (``chunks``).

Pasted command output arrives in many shapes: CRLF line ends, ANSI colour codes, markdown
indentation, shell prompts (``nvidia@spark-a:~$ cmd``), ``[sudo] password for x:`` lines,
``#`` comments, blank lines, cut-off JSON. The parsers call these helpers so that each one
only has to know its own command's output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, NamedTuple

from .anyof import LazyAnySearch, LazySearch, any_search, gated_search, literal_gate  # noqa: F401  (one test for many regexes: re-exported)
from .commands import command_argv, option_value  # noqa: F401  (re-exported)
from .units import BYTE_UNITS  # noqa: F401  (re-exported)
from .pasted import unnumbered, unquoted


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
# the same written out, as some terminals and web pages copy them: ^[[0;36m ... ^[[0m, ^[]0;title^G
_CARET_ANSI_RE = re.compile(r"\^\[(?:\[[0-?]{0,32}[ -/]{0,4}[@-~]|\][^\n^]{0,512}(?:\^G|\^\[\\))")
# the same with ESC spelled out, as some issue pages and log viewers render it: "ESC[36m(RayWorker pid=1)ESC[0m"
_WORD_ANSI_RE = re.compile(r"(?:ESC|\\033|\\x1[bB]|\\u001[bB]|\\e)\[[0-?]{0,32}[ -/]{0,4}[@-~]")
_WORD_ESCAPE_RE = re.compile(r"\\(?:033|x1[bB]|u001[bB]|e)\[")
"""What every match of _WORD_ANSI_RE without ``ESC[`` holds (a backslash first: found by a fast scan): a text with
neither has none to remove, told in a fraction of that pattern's search."""
# a colour code whose ESC was lost on the way (GitHub issues: "[1;36m(EngineCore_DP0 pid=1)[0;0m INFO")
_LOST_ESC_RE = re.compile(r"\[(?<!\[\[)\d{1,3}(?:;\d{1,3}){0,4}m(?!\])")  # "[" first: found by a fast scan
_CTRL_BYTES = bytes([*range(0x00, 0x09), *range(0x0b, 0x20), 0x7f])  # the control characters but tab and line feed
# a sudo password prompt in any language ([sudo] password for x:, [sudo] Passwort für x:, [sudo] mot de passe de
# x :, [sudo] x のパスワード:), with whatever the command printed after it on the same line
_SUDO_PREFIX_RE = re.compile(r"^\s*\[sudo\][^\n]{0,200}?[:：]\s*")
# a run of digits no command prints (Python's int() refuses 4,300 and more, and is quadratic in them)
HUGE_NUMBER_DIGITS = 1000
_HUGE_NUMBER_RE = re.compile(r"\d{%d,}" % HUGE_NUMBER_DIGITS)
_MD_BOLD_NUMBER_RE = re.compile(r"\*\*([-+]?\d[\d.,:]{0,40}(?:/\d{1,3})?)\*\*")
"""A figure or an address a poster made bold in Markdown (``**5544.28**``, ``**192.168.100.10/24**``): as printed.
Bold around more than that (``**23.38 Gb/sec**``, a whole row) stays, so the reader says it cannot read it."""
_MD_BOLD_LINE_RE = re.compile(r"^([ \t]*)\*\*([^*\n]{1,4000})\*\*[ \t]*$", re.M)
"""A whole line a poster made bold (``**65536  5000  23.40  23.38  0.044**``): the line, as printed."""
_BOLD_LINE_START_RE = re.compile(r"\n[ \t]*+\*\*")
"""A line (but the first) that starts as _MD_BOLD_LINE_RE's lines do: searched from its newline (found by a fast scan),
where that pattern is tried at every character."""
_HTML_EDGE_RE = re.compile(r"^(?:<(?:pre|code)>)+|(?:</(?:pre|code)>)+$")
"""``<pre>``/``<code>`` glued to an output's first or last line (a forum's markup): the line is the output's."""
_HALF_HUGE_RE = re.compile(r"\d{%d}" % (HUGE_NUMBER_DIGITS // 2 + 1))


def _may_hold_huge_number(text: str) -> bool:
    """Whether ``text`` may hold a run of HUGE_NUMBER_DIGITS digits, asked at every h-th character (h: half that
    many) instead of at every digit: such a run covers two consecutive multiples of h and every character between
    them, so h + 1 digits start at one of those multiples."""
    half = HUGE_NUMBER_DIGITS // 2
    return any(_HALF_HUGE_RE.match(text, at) for at in range(0, len(text) - half, half))


class CleanText(str):
    """Text made of lines :func:`clean_lines` returned (explain's core hands each output to its parser so, after
    cleaning the whole paste once): cleaned again, it is only split into its lines, since the rest of the cleaning
    would find nothing left to do (5 MB of a vLLM log: 40 ms saved). Its lines are still asked whether they are
    prompts (:func:`content_lines`): split_chunks keeps a few as output (the head of a line a prompt was glued to,
    a prompt in front of an output line), which read as prompts there."""

    __slots__ = ()


class CleanLines(CleanText):
    """A CleanText whose lines explain's core has in hand (``lines``: ``text.split("\\n")``), with those the split
    found neither prompt nor noise (``plain``): clean_lines gives the lines without splitting the text again, and
    content_lines keeps a plain one without asking again (the same answers: both tests are functions of the line)."""

    def __new__(cls, text: str, lines: list[str], plain: set[str] | frozenset[str]) -> CleanLines:
        made = super().__new__(cls, text)
        made.lines, made.plain = lines, plain
        return made


_TYPOGRAPHIC_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\uff1a": ":"})
_BULLET_RE = re.compile(r"^[ \t]*+\u2022[ \t]++", re.M)
_ARROW_NOTE_RE = re.compile(r"(?:<-{1,2}|\u2190)[ \t]++\S")


def _without_arrow_note(line: str) -> str:
    """``line`` without a note a person wrote after it, two blanks or more away (``(Up)     <- cabled port``, at most
    200 characters): the last arrow of the line only, so a line of many arrows costs one pass."""
    at = max(line.rfind("<-"), line.rfind("\u2190"))
    if at < 2 or line[at - 2:at].strip(" \t") or len(line) - at > 200 or not _ARROW_NOTE_RE.match(line, at):
        return line
    return line[:at].rstrip(" \t")
_ONE_LETTER_LOGGER_RE = re.compile(r"^[IWEFD] \d\d-\d\d \d\d:\d\d:\d\d [\w.-]{1,60}:\d{1,6}\] ", re.M)
"""A Python logger's prefix of one letter, date and file:line (``I 03-15 02:13:41 backend_utils.py:521] ``, as SkyPilot
prints another tool's output through it): the tool's own line follows. vLLM's ``INFO 03-15 ...`` is its log's own
shape and stays."""


def clean_lines(text: str | bytes) -> list[str]:
    """Split pasted text into lines with the transport noise removed.

    Normalises CRLF and lone CR to LF, removes ANSI escape sequences (real ones, the literal
    ``^[[0;36m`` some terminals copy, ``ESC[36m`` or ``\033[36m`` spelled out, and ``[0;36m`` whose ESC was lost), other control
    characters (tabs are kept), byte-order marks and non-breaking spaces, a forum's typographic quotes (‘’ “” become
    ' and "; a full-width colon ``：`` a colon) and list bullets (``• `` at a line's start), Markdown bold around a figure, an
    address or a whole line (``**5544.28**`` is ``5544.28``), ``<pre>``/``<code>`` at a line's ends, trailing blanks,
    a one-letter logger's prefix (``I 03-15 02:13:41 backend_utils.py:521] ``, :data:`_ONE_LETTER_LOGGER_RE`), a note
    a person wrote after a line (``(Up)     <- cabled port``),
    and sudo password prompts in any language (``[sudo] Passwort für x:``; a line holding only
    the prompt becomes blank, output after it on the same line is kept). A run of 1,000 digits or more
    (:data:`HUGE_NUMBER_DIGITS`: no command prints one) becomes ``<a N-digit number>``, which no reader takes
    for a value. Every line is kept (so line numbers still match the paste); a final empty
    line caused by a trailing newline is dropped. Bytes are decoded as UTF-8 with
    replacement. Never raises for str or bytes input.
    """
    if type(text) is CleanText or type(text) is CleanLines:
        lines = list(text.lines) if type(text) is CleanLines else text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return lines
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    # one pattern per form of colour code, each searched by its first character (fast), or not at all
    if "\x1b" in text:
        text = _ANSI_RE.sub("", text)
    if not text.isascii():  # (told without reading it)
        text = text.replace("\ufeff", "").replace("\xa0", " ")
        if "\u2018" in text or "\u2019" in text or "\u201c" in text or "\u201d" in text or "\uff1a" in text:
            text = text.translate(_TYPOGRAPHIC_QUOTES)  # a forum's typography: ‘rocep1s0f0’ is 'rocep1s0f0'
        if "\u2022" in text:
            text = _BULLET_RE.sub("", text)  # a forum's list made of pasted lines: "  • NET/IB : ..."
    if "^" in text and "^[" in text:  # (one character first: found by memchr, a pair is not)
        text = _CARET_ANSI_RE.sub("", text)
    if "[" in text and ("ESC[" in text or "\\" in text and _WORD_ESCAPE_RE.search(text) is not None):
        text = _WORD_ANSI_RE.sub("", text)
    text = _LOST_ESC_RE.sub("", text)
    if "<" in text and "<-" in text or "\u2190" in text:
        text = "\n".join(_without_arrow_note(x) if "<-" in x or "\u2190" in x else x for x in text.split("\n"))
    if "] " in text and _ONE_LETTER_LOGGER_RE.search(text, 0, 4096):
        text = _ONE_LETTER_LOGGER_RE.sub("", text)
    if "*" in text and "**" in text:
        text = _MD_BOLD_NUMBER_RE.sub(r"\1", text)
        if text.lstrip(" \t").startswith("**") or _BOLD_LINE_START_RE.search(text):  # (a line starting so: few)
            text = _MD_BOLD_LINE_RE.sub(r"\1\2", text)
    if "<" in text and ("pre>" in text or "code>" in text) and ("<pre>" in text or "<code>" in text or "</pre>" in text
                                                             or "</code>" in text):
        text = "\n".join(_HTML_EDGE_RE.sub("", line) for line in text.split("\n"))
    if _may_hold_huge_number(text):
        text = _HUGE_NUMBER_RE.sub(lambda m: f"<a {len(m.group()):,}-digit number>", text)
    sudo = "[sudo]" in text
    # control characters out of the whole text at once (no line break is one): as bytes, where every byte of a
    # character that is not ASCII is 0x80 or more
    text = text.encode("utf-8", "surrogatepass").translate(None, _CTRL_BYTES).decode("utf-8", "surrogatepass")
    lines = [line.rstrip() for line in text.split("\n")]
    if sudo:  # the prompt goes; output after it on the same line stays
        lines = [_SUDO_PREFIX_RE.sub("", line, count=1) if "[sudo]" in line[:64] else line for line in lines]
    if lines and lines[-1] == "":
        lines.pop()
    lines = unnumbered(unquoted(lines))
    if "`" in text:  # a Markdown code span around a line, or opened on one line and closed lines below
        lines = [_without_code_span(x) if x[-1:] == "`" or x.lstrip()[:1] == "`" else x for x in lines]
    return lines


_GLUED_FENCE_RE = re.compile(r"^(?:```[^\S\n]++(?P<first>\S.*)|(?P<last>[^`].*?)```)$")
"""A Markdown fence on an output line's start (then a space) or end: the line without it is the output's."""


def _without_code_span(line: str) -> str:
    """``line`` without the backticks of a Markdown code span that wraps it (`` `mpirun -np 2 ...` ``) or that opens
    or closes on it (`` `# Out of bounds values : 0 OK``, ``# Avg bus bandwidth : 3.94 ` ``: an odd backtick at an
    end); a fence (```` ``` ````) and a line with spans inside it (``use `--flag` here``) stay as they are, but a fence
    glued to an output line (```` ``` (EngineCore pid=1) INFO ...````, ``... 11.46x```` ``) comes off it."""
    s = line.strip()
    if s.startswith("``") or s.endswith("``"):
        glued = _GLUED_FENCE_RE.match(s)
        return line[:len(line) - len(line.lstrip())] + (glued.group("first") or glued.group("last")) if glued else line
    n = s.count("`")
    indent = line[:len(line) - len(line.lstrip())]
    if n == 2 and len(s) > 2 and s[0] == s[-1] == "`":
        return indent + s[1:-1].strip()
    if n % 2:
        return indent + (s[1:].lstrip() if s[0] == "`" else s[:-1].rstrip())
    return line


# --------------------------------------------------------------------------- prompts

# Commands a bare "# cmd" line may run as root; anything else after "#" is a comment.
PROMPT_PROGRAMS = frozenset({
    "ip", "ibdev2netdev", "ethtool", "ping", "ping4", "ping6", "iperf3", "iperf", "cat", "sudo", "netplan", "rdma",
    "ibstat", "ibv_devinfo", "nvidia-smi", "ssh", "ib_write_bw", "mpirun", "ray", "vllm", "docker", "lspci", "ls",
    "grep", "head", "tail", "less", "lsmod", "ifconfig", "lsb_release", "dmesg", "ibstatus", "show_gids", "ib_read_bw", "kubectl",
})

_PROMPT_RES = (
    # nvidia@spark-a:~$ cmd   root@spark-a:/etc# cmd   (venv) user@host:~/x$ cmd   (env) (base) [u@h d]$ cmd
    re.compile(r"^(?:\([^)]*+\)\s*+)*+(?P<user>[\w.-]++)@(?P<host>[\w.-]++):[^\s$#]*\s?[$#](?:\s+(?P<cmd>.*))?$"),
    # [user@host dir]$ cmd   (Red Hat style; glued to its command: "[root@cn3 ~]#ib_read_bw cn2"; a PS1 without the user: [gpu6000 ~]#)
    re.compile(r"^(?:\([^)]*+\)\s*+)*+\[(?:(?P<user>[\w.-]+)@(?P<host>[\w.-]+)(?:\s[^\]]*)?|[\w.-]{1,64} [~/][^\]\s]{0,120})\][$#](?:\s*+(?P<cmd>\S.*))?$"),
    # user@host ~ % cmd   (zsh, macOS default; (base) user@host dir % cmd with a conda env)
    re.compile(r"^(?:\([^)]*+\)\s*+)*+(?P<user>[\w.-]++)@(?P<host>[\w.-]++)\s+\S+\s+%(?:\s+(?P<cmd>.*))?$"),
    # user@host$ cmd   root@node2# cmd   (a prompt without the working directory)
    re.compile(r"^(?:\([^)]*+\)\s*+)*+(?P<user>[\w.-]++)@(?P<host>[\w.-]++)[$#](?:\s+(?P<cmd>.*))?$"),
    # $ cmd   % cmd   (venv) $ cmd   ~ $ cmd   ~/src $ cmd   ~$ cmd   ~ # cmd   bash-4.2# cmd (busybox's, some distributions'
    # and a shell's own short prompts; root's `~ #`)
    re.compile(r"^(?:\([^)]*+\)\s*+)*+(?:~[\w./-]*+\s*+[$%#]|[$%]|(?:ba|z|k|da)?sh-\d[\d.]{0,8}[$#])(?:\s+(?P<cmd>.*))?$"),
    # a notebook shell escape: !ibdev2netdev   In [3]: !ip -br addr
    re.compile(r"^(?:In \[\d*\]:\s*)?!(?P<cmd>[A-Za-z/.].*)$"),
    # Python's REPL (>>> subprocess.run(...)) and PowerShell (PS C:\Users\x> ssh spark-a ...)
    re.compile(r"^>>>(?:\s+(?P<cmd>.*))?$"),
    re.compile(r"^PS [A-Za-z]:\\[^>]*>(?:\s+(?P<cmd>.*))?$"),
    # Windows' cmd.exe (C:\> iperf3 -s), and a Red Hat prompt whose `[user@host` was cut off (`~]# cmd`)
    re.compile(r"^(?:\([^)]*+\)\s*+)*+[A-Za-z]:\\[^>]*>\s*(?P<cmd>[A-Za-z].*)$"),
    re.compile(r"^[\w~./-]*\][$#]\s+(?P<cmd>[A-Za-z/.].*)$"),
    # a container shell's own prompt (Singularity> ray status, Apptainer> ...), and host:path$ without a user
    # (ubuntu:/home/ubuntu:~$ ibdev2netdev -v)
    re.compile(r"^(?:Singularity|Apptainer)>\s++(?P<cmd>\S.*)$"),
    re.compile(r"^(?P<host>[\w.-]++):[~/][^\s$#]*+[$#](?:\s++(?P<cmd>\S.*))?$"),
    # oh-my-zsh's default theme: ➜  ~ cmd   (base) ➜  repo git:(main) ✗ cmd
    re.compile(r"^(?:\([^)]*+\)\s*+)*+\u279c\s++\S++(?:\s++git:\([^)]{0,80}\)(?:\s++\u2717)?)?(?:\s++(?P<cmd>.*))?$"),
    # the one-character prompts of other themes: starship's and pure's ❯, ᐅ
    re.compile(r"^[\u276f\u1405]\s++(?P<cmd>\S.*)$"),
)
_ANY_PROMPT = any_search(_PROMPT_RES)  # all start with "^": a search finds one exactly where one matches
_PROMPT_START = {"I": "In [", "P": "PS ", "S": "Singularity> ", "A": "Apptainer> ", "b": "bash-", "s": "sh-", "z": "zsh-",
                 "k": "ksh-", "d": "dash-"}  # how a prompt of that first letter goes on: no other line of it is one
_PROMPT_FIRST = frozenset("($%I!>P#~]\u279cSA+\u276f\u1405bszkd")
"""The first characters of a prompt that shows no ``user@host`` (``$ cmd``, ``(venv) $``, ``!cmd``, ``In [3]:``,
``>>>``, ``PS C:\\>``, ``# cmd``, ``~]# cmd``, oh-my-zsh's ``➜  ~ cmd``): a line with neither one nor an ``@`` (nor cmd.exe's ``C:\\>``, nor a
cut ``dir]# ``) is no prompt."""
_ROOT_PROMPT_RE = re.compile(r"^#\s+(?P<cmd>(?P<prog>[\w./-]+)(?:\s.*)?)$")
_BARE_PROMPT_RE = re.compile(r"^[>+]\s+(?P<cmd>(?P<prog>[\w./-]+)(?:\s.*)?)$")
"""``> ip link``: a prompt of ``>`` alone (PS1='> ', or a command quoted in a forum post), taken for one only before a
program of PROMPT_PROGRAMS, as ``# cmd`` is (a shell's continuation lines, ``> --name x``, are not); and a script's
trace of the command it runs (``set -x``: ``+ mpirun -np 16 ...``), on the same terms."""
_NAME_PROMPT_RE = re.compile(r"^[\w.-]+[$#]\s+(?P<cmd>(?P<prog>[\w./-]+)(?:\s.*)?)$")
"""A prompt of a name alone (``root# nvidia-smi`` in a snap's shell, ``spark$ ibdev2netdev``), taken for one only before
a program of PROMPT_PROGRAMS, as ``# cmd`` is."""
_WORDS = frozenset({"ip", "ping", "ssh", "cat", "ls", "head", "tail", "less", "grep", "sudo"})
"""Programs whose names are also words: a Markdown ``+`` bullet before one (``+ ping between them works``) is no
script's trace."""
_PATH_PROMPT_RE = re.compile(r"^[~/][\w./~-]*[$#]\s+(?P<cmd>(?P<prog>[\w./-]+)(?:\s.*)?)$")
"""A prompt that is only the working directory (``/workspace# ray status``: a container's shell with ``PS1='\\w# '``),
taken for one only before a program of PROMPT_PROGRAMS, as ``# cmd`` is."""
# "# command: ip -j addr" headers, as the fixture files and capture scripts write them.
_COMMAND_HEADER_RE = re.compile(r"^#\s*command(?:\s*\([^)]*\))?:\s*(?P<cmd>\S.*)$", re.I)
_SUDO_RE = re.compile(r"^(?:\[sudo\][^\n]{0,200}?[:：]|Password:|Passwort:|Mot de passe\s?:|Contraseña:"
                      r"|Senha:|Пароль:|パスワード[:：]|密码[:：])\s*$", re.I)
_FENCE_RE = re.compile(r"^(?:```|~~~)")
# warnings other programs print between a command and its output
_CHATTER_RE = re.compile(r"^(?:sudo: unable to resolve host .*|Warning: Permanently added .*"
                         r"|Failed to add the host to the list of known hosts \(.*\)\.?"  # a read-only ~/.ssh: it connects
                         r"|Authorization required, but no authorization protocol specified"  # X11 noise (mpirun/ssh)
                         r"|No protocol specified|Invalid MIT-MAGIC-COOKIE-1 key"  # then Ray's worker log's header:
                         r"|:(?:job_id|actor_name|task_name|task_attempt_start):\S*"  # bash's `[1] 48211`, Done, Stopped:
                         r"|\[\d{1,3}\][+-]? {1,12}(?:\d{1,8}|(?:Done|Stopped)(?: {1,40}[^\n]{1,400})?))$")  # (Killed, Exit N: read)
# the HTML a forum or GitHub issue wraps a paste in: a collapsible block's <details>/<summary> (with what the
# summary says, <code> in it too), <br>, <p>, <div>, <blockquote>
_HTML_RE = re.compile(r"^(?:</?(?:details|summary|br|p|div|blockquote|kbd|code|b|strong|em)\b[^<>]{0,200}>[^<>]{0,300}){1,8}$"
                      r"(?<=>)|^<(?:details|summary)\b.{0,500}$", re.I)
_NOISE_FIRST = frozenset("[PpMmCcSsПпパ密`~.…WwAaNnIiFf<:")
"""The first characters of a sudo prompt, a fence, an ellipsis, chatter or markup (the patterns above and below)."""
# `..` too: a poster's elision; and one with a note in it (`... <normal startup ...> ...`, `[... 200 lines ...]`,
# `<snip>`, `(...)`)
_ELLIPSIS_RE = re.compile(r"^(?:\.{2,6}|…|\[\.\.\.\]|\[…\]|\(\.\.\.\)|[<\[]snip(?:ped)?[>\]]"
                          r"|(?:\.{3}|…) ?[<(\[][^\n<>()\[\]]{1,160}[>)\]] ?(?:\.{3}|…)|\[(?:\.{3}|…)[^\n\]]{1,80}\])$")
_NOISE_RE = re.compile(f"(?i:{_SUDO_RE.pattern})|"
                       + "|".join(f"(?:{r.pattern})" for r in (_FENCE_RE, _ELLIPSIS_RE, _CHATTER_RE, _HTML_RE)))
"""A sudo prompt (any case, as is_sudo_line), a fence, an ellipsis, chatter or markup: the five asked with one match."""


@dataclass(frozen=True)
class Prompt:
    """A shell prompt line: the command typed (may be ""), and user/host when shown."""

    command: str
    user: str | None = None
    host: str | None = None


def parse_prompt(line: str) -> Prompt | None:
    """Return the Prompt on this line, or None if it is not a prompt line.

    Recognised: ``user@host:path$ cmd`` (also ``#`` for root, a ``(venv)`` prefix, a ``$ `` before it),
    ``[user@host dir]$ cmd``, zsh ``user@host ~ % cmd``, ``$ cmd``, notebook ``!cmd``, ``# cmd``, ``/dir# cmd`` and
    ``> cmd`` only when cmd starts with a known program (PROMPT_PROGRAMS), and ``# command: cmd`` headers.
    """
    s = line.strip()
    if not s:
        return None
    c = s[0]
    if c == "(" and "@" not in s and "$" not in s and "%" not in s and "\u279c" not in s[:60] and ":\\" not in s[:80] \
            and "sh-" not in s[:40]:
        return None  # a log line behind a process prefix: "(EngineCore_DP0 pid=1) ...", the most common line
    if c in "/~" and (m := _PATH_PROMPT_RE.match(s)) and m.group("prog").rsplit("/", 1)[-1] in PROMPT_PROGRAMS:
        return Prompt(m.group("cmd").strip())
    if "@" not in s and (c not in _PROMPT_FIRST or c in _PROMPT_START and not s.startswith(_PROMPT_START[c])
                         or c in "bszkd" and len(s) > 2000) \
            and s[1:3] != ":\\" and s.find("]# ", 0, 80) < 0 and s.find("$ ", 0, 300) < 0 \
            and s[-1] not in "$#" and not (c == "r" and s.startswith("root# ")):  # most lines
        return None
    if (s.startswith("root# ") or s.find("$ ", 0, 40) > 0 and "@" not in s) and (m := _NAME_PROMPT_RE.match(s)):
        return Prompt(m.group("cmd").strip()) if m.group("prog").rsplit("/", 1)[-1] in PROMPT_PROGRAMS else None
    if s[0] in ">+" and s[1:2] == " " and (m := _BARE_PROMPT_RE.match(s)):
        prog = m.group("prog").rsplit("/", 1)[-1]
        return Prompt(m.group("cmd").strip()) if prog in PROMPT_PROGRAMS and not (s[0] == "+" and prog in _WORDS) \
            else None
    if s[0] != "#":  # only the two "#" forms below start with "#", and none of _PROMPT_RES does
        for regex in _PROMPT_RES if _ANY_PROMPT(s) else ():  # one search says whether one of them matches
            m = regex.match(s)
            if m:  # ("$ user@host:~$ cmd": a "$ " put before a whole prompt, as a README's code block shows it)
                groups = m.groupdict()
                return regex is _PROMPT_RES[4] and "@" in s[:80] and parse_prompt(groups.get("cmd") or "") or Prompt(
                    (groups.get("cmd") or "").strip(), groups.get("user"), groups.get("host"))
        return None
    m = _COMMAND_HEADER_RE.match(s)
    if m:
        return Prompt(m.group("cmd").strip())
    m = _ROOT_PROMPT_RE.match(s)
    if m and m.group("prog").rsplit("/", 1)[-1] in PROMPT_PROGRAMS:  # its basename
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
    """True for lines no parser needs: blank, comment, sudo prompt, markdown fence, '...', a forum's HTML
    (``<details>``, ``<summary>...</summary>``, ``<pre>``), and chatter such as ``sudo: unable to resolve host x``, ssh's ``Warning: Permanently added``
    or X11's ``Authorization required, but no authorization protocol specified``."""
    s = line.strip()
    if not s:
        return True
    c = s[0]
    return (c == "#" and is_comment_line(s)) or (c in _NOISE_FIRST and _NOISE_RE.match(s) is not None)


class Line(NamedTuple):
    """One content line: its 1-based number in the input, its text, and the prompt above it.

    ``command`` is the command of the nearest prompt line above (None if none), ``group``
    counts prompt lines seen so far (0 before the first), so lines under one prompt share it.
    Immutable; a named tuple rather than a frozen dataclass because a parser makes one per line
    (a multi-megabyte log: tens of thousands), and a tuple is made in a third of the time.
    """

    no: int
    text: str
    command: str | None
    group: int


_tuple_new = tuple.__new__


def content_lines(text: str | bytes, keep_comments: bool = False) -> list[Line]:
    """The lines a parser should read: prompts, sudo prompts, blanks, fences dropped.

    Comment lines are dropped too unless ``keep_comments`` is true. Indentation is kept.
    """
    out: list[Line] = []
    command: str | None = None
    group = 0
    plain = text.plain if type(text) is CleanLines else ()
    for no, raw in enumerate(clean_lines(text), start=1):
        if raw in plain:  # neither a prompt nor noise, as explain's split found: kept (made as Line's __new__ does)
            out.append(_tuple_new(Line, (no, raw, command, group)))
            continue
        prompt = parse_prompt(raw)
        if prompt is not None:
            command, group = prompt.command or None, group + 1
            continue
        if raw.lstrip().startswith("#"):  # a comment (parse_prompt said it is no root prompt), noise unless kept
            if keep_comments:
                out.append(Line(no, raw, command, group))
        elif not is_noise_line(raw):
            out.append(_tuple_new(Line, (no, raw, command, group)))
    return out


# --------------------------------------------------------------------------- log prefixes

LOG_TAG = r"\[[A-Za-z][\w.-]*+(?:/[\w.-]++){0,2}\]:\s"
"""A log viewer's tag of the program a line came from: ``[vllm]: `` (vllm_lines' reader strips it too)."""
LAUNCHER_LEVEL = r"\[(?i:error|info|warning|warn|debug|trace)\]\s+"
"""A launcher's level in brackets after its timestamp: ``[Error] `` (lemonade-sdk's vLLM server, then ``(Process) ``)."""

# What launchers and log collectors put in front of a program's own line, in the order they are tried. Each is
# removed from the start of the line, repeatedly (a Ray prefix inside a docker-logs timestamp...).
_LOG_PREFIXES = (
    # Open MPI --tag-output: [1,0]<stdout>:   (Open MPI 5 adds a space)
    r"\[\d+,\d+\]<(?:stdout|stderr|stddiag)>:\s?",
    # MPICH/Hydra -prepend-rank "[0] ", torchrun --tee "[default0]:" / "[rank0]:"
    r"\[(?:default|rank)?\d+\]:\s?|\[\d+\]\s+(?=\S)",
    # Ray worker prefixes: (RayWorkerWrapper pid=123, ip=10.0.0.2) (EngineCore_DP0 pid=9); SkyPilot's (head, rank=0, pid=3808)
    r"\([\w.:-]+ pid=\d+(?:, ip=[0-9A-Fa-f.:]+)?\)\s*|\([\w.-]{1,40}, rank=\d{1,5}, pid=\d{1,9}(?:, ip=[0-9A-Fa-f.:]{2,45})?\)\s*",
    # timestamps: 2025-11-19T10:00:00.123456789Z, [2025-11-19 10:00:00,123], docker/kubectl logs
    r"\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?\s+",
    # docker compose: "vllm-head-1  | "; journalctl: "Feb 10 14:39:57 debian ollama[1538]: " (a program with its pid)
    r"[\w.-]++\s+\|\s|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [\w.-]{1,64} [\w.-]{1,64}\[\d{1,10}\]:\s",
    # a launcher's level and source after its timestamp: "[Error] (Process) " (lemonade-sdk's vLLM server)
    LAUNCHER_LEVEL + r"\(\w+\)\s+",
    # kubectl logs --prefix "[pod/vllm-0/vllm] ", and a container's tag as log viewers add it: "[vllm]: "
    r"\[pod/[\w.-]++(?:/[\w.-]++)?\]\s|" + LOG_TAG,
)
_LOG_PREFIXES_RE = re.compile("(?:" + "".join(rf"(?:\s*+(?:{p}))?" for p in _LOG_PREFIXES) + "){0,8}")
"""What strip_log_prefix removes, in one match: up to 8 passes over the line's start, each trying every prefix in
turn, at most once, where the one before ended (blanks before it skipped); a pass that finds none ends it."""
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
    end = _LOG_PREFIXES_RE.match(out).end()
    return out[end:] if end else out


_LOG_START_RE = re.compile(
    r"^(?:\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d"                       # ISO timestamp (Python logging, docker)
    r"|[IWEF]\d{4} \d\d:\d\d:\d\d"                               # glog / torch: W1129 13:41:56.084000
    r"|(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL|TRACE)\b"   # a level first (vLLM, uvicorn)
    r"|[\w.-]+:\d+:\d+ \[\d+\] "                                   # NCCL: host:pid:tid [dev]
    r"|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d "                       # syslog: Nov 29 10:00:00
    r"|\[\s*\d+\.\d+\] )"                                          # dmesg: [  12.345678]
)
WRAP_MIN_CHARS = 60  # a shorter line was not wrapped by a terminal (they wrap at 72 to 80 columns or more)
_NOT_CONTINUATION_FIRST = "-=+#|*>`[{("  # a line starting so is one _NOT_CONTINUATION_RE matches (told without it)
_NOT_CONTINUATION_RE = re.compile(r"^(?:Traceback \(|During handling|The above exception|[\w.]*(?:Error|Exception|"
                                  r"Warning|Interrupt|Exit)\b|[-=+#|*>`]|\[|\{|\(|(?:slurmstepd|srun|sbatch|salloc):"
                                  r"|(?:Killed|Aborted|Segmentation fault|Bus error|Illegal instruction)\b)")


def is_log_line(line: str) -> bool:
    """True for a line that starts as a log line does: a launcher's or logger's prefix (see
    strip_log_prefix), a timestamp, a level (``INFO``, ``WARNING``...), glog's ``W1129 13:41:56``,
    NCCL's ``host:pid:tid [dev]``, syslog's or dmesg's time."""
    s = line.strip()
    if not s or len(s) > MAX_LOG_LINE:
        return False
    rest = strip_log_prefix(s)
    return rest != s or bool(_LOG_START_RE.match(s))


MAX_LOG_LINE = 1 << 16
"""A line longer than this is not looked at to tell whether it is a log line or continues one."""


def join_wrapped(lines: list[str], numbers: list[int] | None = None,
                 claimed: Callable[[str], bool] | None = None) -> tuple[list[str], list[int]]:
    """Rejoin the log lines a terminal or an editor wrapped over several lines.

    A line that does not start like a log line (see is_log_line), is not blank, indented, a prompt,
    a comment, a traceback's or a table's line, and is not ``claimed`` (some reader knows it as a
    line of its own), continues the log line above it when that one (or the part of it on the line
    above) is at least WRAP_MIN_CHARS long: it is appended to it (without a space when the line
    above is exactly 80, 100, 120... characters: a hard wrap cuts inside a word). Returns the lines
    and, for each, the line number (from ``numbers``, 1-based positions by default) where it starts.
    Linear in the text; never raises.
    """
    numbers = list(numbers) if numbers is not None else list(range(1, len(lines) + 1))
    out: list[str] = []
    out_no: list[int] = []
    last_len = 0  # length of the physical line above
    head_log: bool | None = None  # whether out[-1] starts as a log line (None: not asked yet)
    for line, no in zip(lines, numbers):
        s = line.rstrip()
        cont = (last_len >= WRAP_MIN_CHARS and bool(s) and s[0] not in _NOT_CONTINUATION_FIRST and not s[0].isspace()
                and bool(out) and not _LOG_START_RE.match(s) and len(s) <= MAX_LOG_LINE and not _NOT_CONTINUATION_RE.match(s)
                and not is_noise_line(s) and not is_log_line(s) and not is_prompt_line(s))
        if cont and head_log is None:
            head_log = is_log_line(out[-1])
        cont = cont and bool(head_log) and (claimed is None or not claimed(s))
        if cont:
            glue = "" if last_len % 20 == 0 and last_len >= 80 else " "
            out[-1] = out[-1].rstrip() + glue + s
        else:
            out.append(line)
            out_no.append(no)
            head_log = None
        last_len = len(s)
    return out, out_no


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
        m = _NOT_FOUND_RE.search(text) if "not found" in text else None  # the words each form holds
        if m:
            prog = m.group("prog") or m.group("prog2")
            msg = (f"the shell says `{prog}`: command not found; install it or run the "
                   "command on the machine that has it")
            raise ParseError(command, msg, text, line.no)
        if ("No such file" in text or "Permission denied" in text) and _FILE_ERROR_RE.search(text):
            raise ParseError(command, f"the command could not run: {text}", text, line.no)


def key_value(text: str, key_re: re.Pattern[str]) -> tuple[str, str] | None:
    """``Key: value`` (or ``Key : value``) split at the first colon, both sides stripped; None when there is no colon
    or what comes before it is not a key by ``key_re`` (fullmatched). Linear: str.partition, not a lazy key before
    optional blanks (ibstat's ``State: Active``, ethtool -m's ``Identifier : 0x11 (QSFP28)``)."""
    key, colon, value = text.partition(":")
    key = key.strip()
    return (key, value.strip()) if colon and key_re.fullmatch(key) else None


def fail_on_line(command: str, line: Line, message: str) -> ParseError:
    """Build the ParseError for a line a parser cannot read."""
    return ParseError(command, message, line.text.strip(), line.no)


# the JSON helpers (opens_json, load_json_lenient, json_dig, as_int...) live in .jsonish, by topic
from .jsonish import (_close_truncated_json, as_float, as_int, find_json_start, json_dig,  # noqa: E402,F401
                      load_json_lenient, opens_json)
# a paste split at its prompts, command lines and host captions (split_chunks, Chunk, host_caption) lives in .chunks
from .chunks import Chunk, host_caption, repeated_block, split_chunks, split_sections  # noqa: E402,F401

