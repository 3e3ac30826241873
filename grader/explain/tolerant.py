"""What ``explain`` does with text around an output that is not the output: a shell saying it found no program
(:func:`not_installed`), a poster's words after an output (:func:`without_trailing_prose`), captions and words above
or between outputs (:func:`is_caption`, :func:`caption_between`), lines a person left out (:func:`left_out`) and what
to paste when an output could not be read (:func:`paste_next`). Pure: no registry (what a kind claims is passed in).
"""

from __future__ import annotations

import re
from typing import Any, Callable

from ..judges.model import Finding, Section
from ..parsers import ParseError
from ..parsers.common import command_argv, is_noise_line
from ..parsers.common.stderr import PY_WARNING_RE
from ..parsers.traceback import EXCEPTION_RE
from ..judges.programs import not_installed

_PROSE_RE = re.compile(r"^(?:EDIT: |Edit: |Update: )?[A-Za-z\"'(`][^<>|{}\[\]\t]{0,300}[?.!):;]$")
"""A sentence a person wrote: a letter, a quote or a backtick (a command named in markdown) first, no table or markup
characters, ending in ``?``, ``.``, ``!``, ``)`` or ``;``; with two words or more unless it ends in ``?`` or ``!`` (``Thanks!``); or one of four words or more ending in
``:``, introducing the next block (``Then I try again with that MTU:``)."""


_CJK_WORDS_RE = re.compile(r"^[^<>|{}\[\]\t]{0,200}[\u3400-\u9fff][^<>|{}\[\]\t]{0,200}[\uff0c\u3002\uff1a\uff01\uff1f\uff1b]$")
"""A sentence or label in Chinese or Japanese: a CJK character in it, no table or markup characters, ending in a
full-width comma, full stop, colon, ``！``, ``？`` or ``；`` (a localised program's output lines end otherwise)."""


def is_prose(line: str) -> bool:
    """Whether ``line`` reads as a person's sentence (:data:`_PROSE_RE`, :data:`_CJK_WORDS_RE`), not as a command's
    output."""
    s = line.strip()
    return bool(_CJK_WORDS_RE.match(s)) or bool(_PROSE_RE.match(s)) and (" " in s or s[-1] in "?!") and not s.startswith(("ERROR", "WARN", "INFO")) \
        and (s[-1] != ":" or len(s.split()) >= 4)


def is_sentence(line: str) -> bool:
    """Whether ``line``, though it starts with a program's name, is a person's sentence about it (``all_reduce_perf
    works fine only with those linked through SYS.``): prose of six words or more with no option, path or setting."""
    words = line.split()
    return len(words) >= 6 and is_prose(line) and not any(w[:1] == "-" or "/" in w and not re.fullmatch(r"[\d.]{1,9}[kKMGT]?(?:i?B|b|bit)?/s[.,;:)]?", w) or "=" in w for w in words[1:])


MAX_TRAILING_PROSE = 3
"""At most this many sentences after an output are set aside; more is not a paste's tail."""


MAX_LABEL_CHARS = 40
"""A line after a closing fence this long or shorter is a label of what follows (``pod2``, ``on the worker``)."""


def without_trailing_prose(parse: Callable[[str], Any], text: str, err: ParseError,
                           claimed: Callable[[str], bool]) -> tuple[Any, list[str]] | None:
    """When ``parse`` failed (``err``) at a line after which only a few sentences follow (a poster's question
    below the output), a few short labels after the Markdown fence that closed it, or the next machine's label (``pod2``,
    ``node 2``), the output read without them and
    those lines; None when that is not the case or the output still does not read."""
    lines = text.split("\n")
    if err.lineno is None or not 1 < err.lineno <= len(lines):
        return None
    tail = [x.strip() for x in lines[err.lineno - 1:] if x.strip() and not is_noise_line(x)]  # fences aside
    above = next((x.strip() for x in reversed(lines[:err.lineno - 1]) if x.strip()), "")
    fenced = above.startswith(("```", "~~~"))  # a Markdown fence closed the output: a label may follow (`pod2`)
    if not tail or len(tail) > MAX_TRAILING_PROSE or not all(
            (is_prose(x) or fenced and len(x) <= MAX_LABEL_CHARS or _ROLE_LABEL_RE.match(x)) and not claimed(x)
            for x in tail):
        return None
    try:
        return parse("\n".join(lines[:err.lineno - 1])), tail
    except ParseError:
        return None


_EXCEPTION_LINES = ("Traceback (most recent call last):", "During handling of the above exception",
                    "The above exception was the direct cause")
"""Python's lines that end in ':' inside a log: never a caption."""


_ROLE_LABEL_RE = re.compile(r"^(?:on\s+)?(?:the\s+)?(?:client|server|head|worker|master|node|host|machine|spark|pod|container|vm|sender"
                            r"|receiver)(?:[\s_-]?\w{1,12})?(?:\s+side)?$", re.I)
"""A label naming the machine an output comes from (``client``, ``server side``, ``node 2``, ``on spark-b``)."""


_HEADING_RE = re.compile(r"^(?P<mark>[=~-]{2,}+)[ |]*+[^=|]{1,80}?[ |]*(?P=mark)$")
"""A heading a person or a script wrote between outputs: ``=== RDMA Devices ===``, ``==========| node1 |==========``."""


_WHEN_RE = re.compile(r"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?\s?(?:Z|UTC|[+-]\d\d:?\d\d)?$"
                      r"|^[A-Z][a-z]{2} +[A-Z][a-z]{2} +\d{1,2} \d\d:\d\d:\d\d(?: [A-Z]{2,5})? \d{4}$")
"""A time stamp alone on its line (``2026-08-26T00:13:30Z``, ``date``'s ``Tue Aug 26 00:13:30 UTC 2026``): when an
output was taken, a label."""


def is_caption(lines: list[str] | tuple[str, ...]) -> bool:
    """Whether ``lines`` (a part of a paste no kind reads) are one to three short lines each ending in ':' (``Case1
    performance data:``, ``**Output:**``), a person's sentence, a machine's label (``client``), a heading (``=== RDMA
    Devices ===``) or a time stamp: words around an output, to leave out."""
    said = [x.strip().strip("*_ ") for x in lines if x.strip() and not is_noise_line(x)]
    return 0 < len(said) <= 3 and all(0 < len(x) <= 80 and x[-1] == ":" or is_prose(x) or _ROLE_LABEL_RE.match(x)
                                      or len(x) <= 100 and (_HEADING_RE.match(x) or _WHEN_RE.match(x)) for x in said)


_WORD_RE = re.compile(r"^[(\"']?[A-Za-z][A-Za-z'-]*+[,.;:!?)\"']*$")
_LIST_MARK_RE = re.compile(r"^(?:[-*+>]|\d{1,2}[.)])\s+")
MAX_WORDS_LINES = 40
"""At most this many lines are taken for a person's words around the outputs; more is text to read."""


def _wordy(line: str) -> bool:
    """A person's sentence, even without its full stop: five tokens or more, three in four of them plain words
    (``Running with NCCL_IB_DISABLE=1 works but the throughput is terrible``; a log line's figures and tags fail it)."""
    tokens = _LIST_MARK_RE.sub("", line.strip().strip("*_ ")).split()
    return len(tokens) >= 5 and sum(1 for t in tokens if _WORD_RE.match(t)) >= 0.75 * len(tokens)


TROUBLE_RE = re.compile(r"error|fail|cannot|can't|unable|denied|refused|exception|traceback|warn|time[ds]? ?out"
                         r"|killed|abort|not found|no such|invalid|divide", re.I)
"""Words of a program's complaint: a part of a paste that holds one is not left out as a person's words."""


def is_words(lines: list[str] | tuple[str, ...]) -> bool:
    """Whether ``lines`` (a part of a paste no kind reads) are only a person's words: sentences (with or without their
    full stop, as list items too), labels ending in ':' and headings, up to :data:`MAX_WORDS_LINES` lines, none of
    them with a complaint's words (:data:`TROUBLE_RE`: an error message reads like a sentence too); the question or
    story above a paste's first output, to leave out."""
    said = [x for x in lines if x.strip() and not is_noise_line(x)]
    return 0 < len(said) <= MAX_WORDS_LINES and any(_wordy(x) or is_prose(x.strip()) for x in said) and all(
        (_wordy(x) or is_caption((x,))) and not TROUBLE_RE.search(x) for x in said)


def is_label_only(lines: list[str] | tuple[str, ...]) -> bool:
    """Whether ``lines`` are one to three short labels ending in ':' with no complaint's words (``switch to second
    node:``): what follows a command a person quoted in a sentence, not its output (an error ends otherwise)."""
    said = [x.strip() for x in lines if x.strip() and not is_noise_line(x)]
    return 0 < len(said) <= 3 and all(len(x) <= 80 and x[-1] == ":" and not TROUBLE_RE.search(x) for x in said)


_NUMBERED_ITEM_RE = re.compile(r"^(?:Port|GPU|Device|Link|Lane|Channel|Queue) \d{1,3}:$")  # (not `Node 2:`, a host's label)
"""An output's own numbered item (``Port 1:`` of ibstat pasted unindented, ``GPU 0:``): not a caption between two."""


def caption_between(lines: list[str], i: int, begins: Callable[[str], bool]) -> bool:
    """Whether ``lines[i]`` is a caption (unindented, short, ending in ':', not Python's exception lines) whose next
    line that is neither noise nor another caption begins an output (``begins``: of another kind than the one above,
    or its kind's first line): a label between two outputs, not one of an output's own (``ray status``'s
    ``Pending:``, ``topo -m``'s ``Legend:``, an unindented ibstat's ``Port 1:``)."""
    s = lines[i].strip().strip("*_ ")
    if lines[i][:1].isspace() or not s[:1].isalpha() or not (s.endswith(":") or _CJK_WORDS_RE.match(s)) or len(s) > 80 or len(s.split()) > 8 \
            or s.startswith(_EXCEPTION_LINES) or any(c in s for c in "<>[]{}|=\t") \
            or _NUMBERED_ITEM_RE.match(s):  # words, not a tagged line, nor an output's own item (ibstat's `Port 1:`)
        return False
    following = next((x for x in lines[i + 1:i + 6] if not is_noise_line(x) and not x.strip().endswith(":")), None)
    return following is not None and begins(following)


def _what_ran(spec: Any, seg: Any) -> str:
    """The command that printed an output, as a person would name it (a KindSpec ``spec``, a segment ``seg``)."""
    return (f"`{seg.command if len(seg.command) <= 120 else seg.command[:120] + '...'}`" if seg.command else
            f"`{spec.programs[0]}`" if spec.programs else f"the command that printed this {spec.name} output")


def paste_next(spec: Any, seg: Any, message: str) -> str:
    """What to paste next when an output of a known kind could not be read (said once, unless the reader did)."""
    if "paste" in message.lower():
        return ""
    return (f". If the paste cut the output of {_what_ran(spec, seg)} short, paste all of it, from the command line "
            "to its last line; if it is all there, this form of it is not read yet")


_ELLIPSIS_LINE_RE = re.compile(r"^\s*(?:\.\.\.|…|\[\.\.\.\]|\[…\])\s*$")


_HANG_NOTE_RE = re.compile(r"^\s*[<\[(](?=[^\n]{0,200}?\b(?:hangs?|hung|hanging|stuck|freez\w*|frozen|silen(?:ce|t)|no "
                           r"(?:further|more) (?:output|lines?|logs?)|nothing (?:more|else|further)|never (?:returns|"
                           r"completes|finishes))\b)[^\n<>\[\]()]{3,200}[>\])]\s*$", re.I)
"""A poster's note on a line of its own, in ``<>``, ``[]`` or ``()``, saying the program hung there (``<HANG — no
further output for 6+ minutes>``, ``[stuck here]``, ``(silence for 7 hours)``)."""


_WENT_ON_RE = re.compile(r"\b(?:then|continu\w*|resum\w*|recover\w*|finish\w*|no longer|not (?:stuck|hung|hanging|frozen))\b",
                         re.I)
"""Words in a poster's note that say the program went on after the pause it notes."""


def left_out(spec: Any, seg: Any) -> list[Finding]:
    """What the person's own marks in an output say (``seg``: its lines and their paste line numbers; ``spec``: its
    kind, for what to paste): lines left out (a ``...`` line between its lines: info), and a note that the program
    hung (:data:`_HANG_NOTE_RE`, with nothing after it and no word of it going on: a fail naming the last line
    before it)."""
    cut = [no for line, no in zip(seg.lines, seg.linenos) if len(line) < 16 and _ELLIPSIS_LINE_RE.match(line)]
    where = ", ".join(str(n) for n in cut[:5]) + (" ..." if len(cut) > 5 else "")
    said = [Finding("info", f"Lines were left out of this output (`...` at line {where}): what is said here is about "
                            f"the lines shown only. Paste the whole output of {_what_ran(spec, seg)} to have the rest "
                            "read.")] if cut else []
    at = next((i for i in range(len(seg.lines) - 1, -1, -1) if seg.lines[i].strip() and not is_noise_line(
        seg.lines[i])), None)  # the output's last line: a note there, with nothing after it
    if at is not None and (not _HANG_NOTE_RE.match(seg.lines[at]) or _WENT_ON_RE.search(seg.lines[at])):
        at = None  # no note, or a pause it came out of (`... then it continues`)
    last = next((x.strip() for x in reversed(seg.lines[:at]) if x.strip() and not is_noise_line(x)), None) \
        if at is not None else None
    if last is not None:
        said.append(Finding("fail", f"The paste notes that the program hung (`{seg.lines[at].strip()[:120]}`): it "
                                    f"stopped after `{last[:160]}`, so the step after that line is where it waits. "
                                    "Find what it waits on (a stack dump with `py-spy dump --pid <pid>`, the other "
                                    "node's log at that moment) before changing settings."))
    return said


KNOWN_ERROR = "known-error"
"""The kind of a section no reader knows whose text holds a fault of checks/diagnoses.toml."""
_HUGE_NUMBER_MARK = re.compile(r"<a ([\d,]+)-digit number>")  # what parsers.common.clean_lines writes
_VERSION_FLAGS = frozenset({"-V", "--version", "-version", "version"})
"""A command line of a program and one of these asks for its version: a line to note, not a paste to refuse."""


_REFUSAL_RE = re.compile(r"cannot|can't|could not|couldn't|error|fail|invalid|not permitted|denied|no such|unknown"
                         r"|not supported|refused|answers:|usage:|not found", re.I)
"""Words of a command's complaint (``Cannot advertise speed 5000``, ``RTNETLINK answers: Operation not
permitted``); a warning printed on success (netplan's ``WARNING **: Permissions ... too open``) has none."""
MAX_REFUSAL_LINES = 8


def unread_reply(seg: Any) -> tuple[Finding, ...]:
    """What a part its kind's reader could not read says all the same (``seg``: its command and lines; empty: nothing):
    a shell that found no such program (:func:`not_installed`); a Python warning alone (the output cut after it);
    under a command that prints nothing when it works, a complaint of a few lines, which means it refused the change;
    under a version query (``ethtool --version``), the version."""
    from ..judges.sequence import shown_command
    from ..parsers.common.commands import silent_on_success
    said = [x.strip() for x in seg.lines if x.strip() and not is_noise_line(x)]
    if not said:
        return ()
    gone = not_installed(said[0])  # `bash: ifconfig: command not found` under the command: its package, as a fail
    if gone:
        return (gone,)
    if all(PY_WARNING_RE.match(x) for x in said):  # a library's warning on stderr, and the paste ends there
        return (Finding("info", f"Only a Python warning is here (`{said[0][:160]}`): it is not the command's output, "
                                "which the paste does not hold (cut off, or the command still running); paste what "
                                "came after it."),)
    version = _version(seg.command, said)
    if version:
        return version
    alone = not any(x in (seg.command or "") for x in ("&&", "||", ";", "|", "&"))  # the output is this command's
    if len(said) <= MAX_REFUSAL_LINES and alone and silent_on_success(seg.command) and _REFUSAL_RE.search(said[0]):
        return (Finding("info" if "File exists" in said[0] else "warn",
                        f"`{shown_command(seg.command)}` refused the change: `{said[0][:160]}`. It is silent when "
                        "it works, so the setting is as it was before (read it again to see it). The message says "
                        "why: `File exists`, it is there already (often the state wanted); `Operation not "
                        "permitted`, run it with sudo; `Invalid argument` or `not supported`, a value the driver or "
                        "device does not take."),)
    return ()


def _version(command: str | None, said: list[str]) -> tuple[Finding, ...]:
    """A version query's answer (``ip -V``, ``ethtool --version``: its first lines), or nothing."""
    argv = command_argv(command)
    if len(argv) == 2 and argv[1] in _VERSION_FLAGS and said:
        return (Finding("info", f"{argv[0]}'s version: {'; '.join(x[:120] for x in said[:3])}. Nothing to judge "
                        "here; it tells which build printed the rest."),)
    return ()


_CUT_PREFIX_RE = re.compile(r"[A-Za-z][\w.-]{1,40}:")
"""A last line that is only a name and a colon (``libibverbs:``): a library's or program's message prefix, its text
cut off."""


def unread_section(seg: Any, known: list[Finding]) -> Section:
    """The section of a part of a paste no kind reads (``seg``: its command, host and lines): the reported faults in
    it (``known``, from checks/diagnoses.toml), a program the shell did not find, a version query, or an error saying
    how to name its kind."""
    if known:  # no reader knows the output, but a line in it is a reported fault: say that
        return Section(KNOWN_ERROR, seg.command, {}, tuple(known), None, seg.host)
    huge = next((m for m in map(_HUGE_NUMBER_MARK.search, seg.lines) if m), None)
    if huge:  # the shared cleaning replaced a number no command prints (grader.parsers.common.clean_lines)
        return Section(None, seg.command, {}, (),
                       f"this paste holds a number of {huge.group(1)} digits, which no command's output prints "
                       "(Python reads integers of at most 4,300 digits); paste the output as the command "
                       "printed it", seg.host)
    first = next((x.strip() for x in seg.lines if not is_noise_line(x)), "")
    raised = EXCEPTION_RE.match(first) if len(first) < 1000 else None
    if raised and not raised.group("type").endswith("Warning"):  # a traceback's end, its frames left out
        return Section(None, seg.command, {}, (Finding("warn", f"An exception line without its traceback: "
                                                       f"`{first[:200]}`. Something stopped on it; paste the whole "
                                                       "traceback and the log lines above it to see where and why."),),
                       None, seg.host)
    if seg.command and seg.command.split(maxsplit=1)[0] in ("echo", "printf"):  # a script's heading, its words back
        return Section(None, seg.command, {}, (Finding("info", f"`{seg.command[:80]}` prints its own words" + (
            f" (`{first[:120]}`)" if first else "") + ": a script's heading or note, nothing to judge."),), None, seg.host)
    shown = [x.strip() for x in seg.lines if x.strip() and not is_noise_line(x)]
    if seg.command and len(shown) > 1 and _CUT_PREFIX_RE.fullmatch(shown[-1]):  # `libibverbs:` and no more: a message cut at its start
        return Section(None, seg.command, {}, (Finding("info", f"This output (from `{first[:80]}`) ends at `{shown[-1]}`, "
                                                       "the start of a message whose text is cut off: what it reported "
                                                       "is not shown; the lines after it would say."),), None, seg.host)
    gone = not_installed(first)  # a program no kind reads is not installed: say so, not "which command ..."
    if gone:
        return Section(None, seg.command, {}, (gone,), None, seg.host)
    version = _version(seg.command, [x.strip() for x in seg.lines if x.strip() and not is_noise_line(x)])
    if version:  # `ip -V`, `iperf3 --version`: nothing to judge
        return Section(None, seg.command, {}, version, None, seg.host)
    return Section(None, seg.command, {}, (),
                   f"could not tell which command printed this (first line {first[:80]!r}): paste it with its "
                   "command line, or name its kind with --kind (`--kind list` shows the known kinds)", seg.host)


def grader_bug(err: BaseException) -> list[Section]:
    """What explain says when one of its readers raised where it should not: a grader bug, named as such."""
    return [Section(None, None, {}, (), f"explain failed unexpectedly ({type(err).__name__}: "
                    f"{err}); this is a grader bug, please report it with the pasted text")]


def listed_above(item: tuple[Section, Any], chunk: Any, after: Any) -> tuple[Section, Any]:
    """A command that printed nothing because it is one of a list of commands typed without prompts, the next right
    under it (``after``: the next chunk), their output further down: a note, not an error."""
    section, parsed = item
    if section.error != "the command printed nothing" or after is None or chunk.lines or after.prompt_line is None \
            or after.first_lineno != chunk.first_lineno + 1 or not after.command \
            or after.prompt_line.strip() != after.command.strip():
        return item
    return Section(section.kind, section.command, {}, (Finding(
        "info", f"Listed above `{after.command[:80]}` with nothing under it: its output is not beside it (output "
                "further down is read on its own)."),), None, section.host), parsed


def ends_at_prompt(item: tuple[Section, Any], count: int, last_lines: list[str]) -> tuple[Section, Any]:
    """The last of ``count`` sections, when it is a command that printed nothing at the very end of the paste (its
    chunk holds no line after the command: ``last_lines``), after other outputs: a prompt copied with the rest, so its
    output is not in the paste (a note), not a command that printed nothing (an error)."""
    section, parsed = item
    if count < 2 or section.error != "the command printed nothing" or any(x.strip() for x in last_lines):
        return item
    return Section(section.kind, section.command, {}, (Finding(
        "info", f"The paste ends at `{section.command}`, with nothing after it: its output is not in the paste."),),
        None, section.host), parsed
