"""A paste split into chunks: at shell prompts, at command lines typed above an output (with their ``\\``
continuations), and at a line naming the machine of the output below it (``spark-b:``); and :class:`Segment`, one output
of a chunk, as explain's core splits a chunk further. Re-exported by grader.parsers.common (all but Segment, explain's).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Callable

from . import Prompt, clean_lines, is_noise_line, parse_prompt
from .commands import command_argv, silent_on_success
from .labelled import host_groups


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
    unasked: frozenset[str] = field(default=frozenset(), compare=False, repr=False)
    """Lines of the paste kept as output without being asked whether they are a prompt (a glued prompt's head, a
    prompt's output line): the others were, and are none."""

    @property
    def text(self) -> str:
        """The chunk as text, prompt line first (what a parser should be given)."""
        head = [self.prompt_line] if self.prompt_line is not None else []
        return "\n".join(head + list(self.lines))

    def has_content(self) -> bool:
        """True if any line is not noise (comments and blanks do not count)."""
        return any(not is_noise_line(line) for line in self.lines)


@dataclass
class Segment:
    """Lines of one output of a chunk, while explain's core splits the chunk where the kind of output changes
    (grader.explain.core._segments): ``lines`` as pasted, ``linenos`` the paste's line number of
    each, ``n_content`` how many of them are not noise (kept as lines are added, so asking whether a
    segment has content is O(1) and splitting stays linear in the paste)."""

    kind: str | None
    command: str | None
    host: str | None
    lines: list[str] = field(default_factory=list)
    linenos: list[int] = field(default_factory=list)  # paste line number of each line
    prompt_lineno: int | None = None
    n_content: int = -1  # -1: not counted yet (a segment built with its lines)
    n_rules: int = 0
    """How many of the content lines are rules (``-----``, ``=====``): a segment of only those has not begun
    its output yet (``iperf3 -s`` prints one above ``Server listening on``)."""
    started: bool = False  # holds a line its kind's ``starts`` matches (see KindSpec.prelude)
    opened: set[str] = field(default_factory=set)  # its ``starts`` lines (see KindSpec.starts_on_repeat)
    plain: set[str] = field(default_factory=set)  # lines added as content (add_line): no noise, and no prompt
    #   unless the chunk's ``unasked`` holds them (see grader.parsers.common.CleanLines)

    def __post_init__(self) -> None:
        if self.n_content < 0:
            self.n_content = sum(1 for x in self.lines if not is_noise_line(x))
            self.n_rules = sum(1 for x in self.lines if _is_rule(x))

    def add(self, lines: list[str], numbers: list[int], content: int | None = None) -> None:
        """Append ``lines`` (with their paste line ``numbers``); ``content``: how many are not noise, when
        the caller knows it already."""
        self.lines += lines
        self.linenos += numbers
        self.n_content += sum(1 for x in lines if not is_noise_line(x)) if content is None else content
        self.n_rules += sum(1 for x in lines if _is_rule(x))

    def add_line(self, line: str, number: int) -> None:
        """Append one content line (not noise): :meth:`add` without its lists, for the splitter's every line."""
        self.lines.append(line)
        self.linenos.append(number)
        self.plain.add(line)
        self.n_content += 1
        if line[:1] in _RULE_FIRST or line[:1].isspace():  # (most lines start otherwise: no rule)
            self.n_rules += _is_rule(line)

    def take_above(self, above: "Segment") -> None:
        """Put the lines of ``above`` (the segment just above this one, with its command) at the start of this one."""
        self.command, self.prompt_lineno = above.command, above.prompt_lineno
        self.lines, self.linenos = above.lines + self.lines, above.linenos + self.linenos
        self.n_content, self.n_rules, self.plain = self.n_content + above.n_content, self.n_rules + above.n_rules, self.plain | above.plain

    @property
    def begun(self) -> bool:
        """Whether the segment holds a content line other than a rule."""
        return self.n_content > self.n_rules


_RULE_RE = re.compile(r"[-=_]{8,}")


_RULE_FIRST = ("-", "=", "_")  # what a rule's first character is (asked before the pattern: most lines are no rule)


def _is_rule(line: str) -> bool:
    """A content line that is only a rule of 8 or more ``-``, ``=`` or ``_`` (bounded: long lines are not)."""
    if len(line) >= 400:
        return False
    s = line.strip()
    return s[:1] in _RULE_FIRST and _RULE_RE.fullmatch(s) is not None and not is_noise_line(line)


MAX_CONTINUATIONS = 64
"""At most this many ``\\``-continued lines are joined into one command line (a paste's command has a few)."""
_PS2_RE = re.compile(r"^\s*>\s?(?=\S)")  # bash's continuation prompt "> " in front of a continued line


def _continued(first: str, rows: list[tuple[int, str]], i: int) -> tuple[str, int]:
    """The command ``first`` joined with the lines after ``rows[i]`` that its ``\\`` continues, or that an argument's
    quote opened on it spans (``-d '{`` ... ``}'``: joined only where the quote closes, within MAX_CONTINUATIONS lines,
    at the end of a line, as a quoted argument ends; an output line that happens to hold a quote, ``I'm``, does not
    close it); bash's ``> `` prompt in front of them dropped. Returns the command and how many rows were used. Each
    line is scanned once for quotes (linear in the lines joined)."""
    command, used = first.rstrip(), 0
    quote = None if command.endswith("\\") else _quote_left_open(command)
    before = (command, used)  # the command where its open quote began: kept if that quote turns out not to span lines
    while (quote or command.endswith("\\")) and i + 1 + used < len(rows) and used < MAX_CONTINUATIONS:
        nxt = rows[i + 1 + used][1]
        if len(nxt) > 4096 or not (nxt.strip() or quote):
            break
        used += 1
        added = _PS2_RE.sub("", nxt).strip()
        command = (command if quote else command[:-1].rstrip()) + " " + added
        if quote:
            closed_at = _closing(quote, added)
            if closed_at is None:
                continue  # still inside the quoted argument
            if not added.rstrip("\\ ").endswith(("'", '"')):
                break  # closed inside a line: output that holds a quote (`I'm`), not the argument's end; quote stays
            quote = _quote_left_open(added[closed_at + 1:], prev=added[closed_at])
        else:
            quote = None if command.endswith("\\") else _quote_left_open(added)
        if quote:
            before = (command, used)
    if quote:  # the quote never closed where an argument ends: the lines after it are not part of the command
        command, used = before
    return command.rstrip("\\").rstrip(), used


_QUOTE_RE = re.compile(r"""\\.|'[^']*'?|"(?:[^"\\]|\\.)*"?""")
"""An escaped character, or a quoted span from its quote to the closing one (to the end where none closes)."""
_DOUBLE_CLOSE_RE = re.compile(r'(?:[^"\\]|\\.)*"')


def _quote_left_open(text: str, prev: str = " ") -> str | None:
    """The quote ``text`` ends inside (``'`` or ``"``), when it opened at the start of an argument (after a blank or
    ``=``, or ``prev`` for the first character), as ``curl -d '{`` does: bash reads on to the closing quote. None when
    every quote closes, or when one sits inside a word (``don't``: not read as shell quoting)."""
    if "'" not in text and '"' not in text:
        return None
    for m in _QUOTE_RE.finditer(text):
        span, at = m.group(), m.start()
        if span[0] == "\\":
            continue
        if (text[at - 1] if at else prev) not in " =\t":
            return None
        if len(span) == 1 or span[-1] != span[0]:
            return span[0]
    return None


def _closing(quote: str, text: str) -> int | None:
    """Where in ``text`` the open ``quote`` closes (single quotes: at the next one; double: past escapes), or None."""
    if quote == "'":
        at = text.find("'")
        return None if at < 0 else at
    m = _DOUBLE_CLOSE_RE.match(text)
    return None if m is None else m.end() - 1


def _glued_prompt(line: str, tags: list[str]) -> int:
    """Where a prompt seen before (``user@host:``) starts at the end of ``line`` (an output that did not end
    with a newline, so the next prompt followed it on the same line), or 0."""
    for tag in tags:
        k = line.rfind(tag)
        if k > 0 and line[:k].strip() and parse_prompt(line[k:]) is not None:
            return k
    return 0


_HOST_CAPTION_RE = re.compile(
    r"^(?:\*\*)?(?:(?:On|From|Host|Output (?:of|from|on))(?: the)? )?"
    r"(?P<host>(?i:(?:spark|gx10|dgx|ascent|node|host|head|worker|server)(?:(?:[-_.]?\d+|[-_.][a-z](?![a-z]))[\w.-]{0,30})?"
    r"|[\w.-]{1,40}(?:spark|gx10|dgx)[\w.-]{0,40}))"
    r"(?P<role> node| \((?:head|worker)(?: node)?\))?:(?:\*\*)?$")
"""A poster's line naming the machine of the output below it: ``spark-a:``, ``**On spark-b (worker):**``, ``Output of
gx10-01:``, ``node1 (head):``, ``Head node:``. Only names a Spark pair's owners give their machines (spark, gx10, dgx,
ascent, node, host, head, worker, server) count: ``Run1:``, ``Before-fix:``, ``Qwen3-8B:`` or ``enp1s0f1np1:`` are
captions or output, not machines."""


def host_caption(line: str) -> str | None:
    """The machine a caption line (:data:`_HOST_CAPTION_RE`) names (``Head node:`` -> ``head``), or None."""
    if not line or line[-1] not in ":*" and not line[-1].isspace() or line[0].isspace() or len(line) > 120 \
            or not line.rstrip().endswith((":", ":**")):  # (the last character first: most lines end otherwise)
        return None
    m = _HOST_CAPTION_RE.match(line.rstrip())
    return m.group("host") if m else None


MAX_TYPED_SECTIONS = 400
"""Past this many sections a paste is a file or a log, not commands a person typed: a ``sudo`` or a pipe in a line
right under an output no longer starts a section (a 5 MB file of piped commands stays linear)."""


def _shows_a_file(prompt: Prompt | None) -> bool:
    """Whether ``prompt``'s command prints a file (``cat setup.sh``, ``less``, ``head``): its lines are the file's, so a
    ``sudo`` or a pipe in them is a script's, not a command typed."""
    words = (prompt.command.split() if prompt and prompt.command else [])
    words = words[1:] if words[:1] == ["sudo"] else words
    return bool(words) and words[0].rsplit("/", 1)[-1] in ("cat", "less", "more", "head", "tail", "bat", "batcat", "nl")


_LABEL_RE = re.compile(r"^[A-Za-z][\w'() /.-]{0,60}:$")
"""A person's label above a command line (``Here's my command:``, ``command:``): a gap, as a blank line is."""
_TYPED_ANYWHERE = re.compile(r"^\s*(?:sudo\s+\S|\S+\s[^|\n]{0,200}\|\s*(?:grep|egrep|head|tail|awk|sed|cut|column)\b)")
"""A line only a person types, even right under another output with no blank between: ``sudo ...``, or a command
piped to a filter (``ethtool  ens14f0 | grep -i speed``)."""


_SILENT_BUILTIN_RE = re.compile(r"^(?:cd|export|unset|source|alias|set|(?:conda|mamba|micromamba)\s++activate)(?:\s|$)"
                                r"|^\.\s++\S")
"""A shell builtin that prints nothing when it works (``cd ~/nccl-tests``, ``export NCCL_DEBUG=INFO``, ``source
venv/bin/activate``), typed alone: the line under it is the next command, not its output."""


_HEADING_COMMAND_RE = re.compile(r"^#{2,6}\s++(?P<command>[`*]*[\w./-][^\s`*]*+\s++[^\n]{1,300})$")
"""A Markdown heading whose words are a command line with its arguments (``#### nvidia-smi topo -mp``): the output
under it is that command's, as under a prompt (only with ``##`` or more: nccl-tests prints ``# ...`` lines of its own;
a program's name alone, ``## free``, names the kind but not the flags the reading depends on, so it is left a label)."""


def _silent_builtin(command: str | None) -> bool:
    return bool(command) and not any(c in command for c in "&;|") and _SILENT_BUILTIN_RE.match(command) is not None


_FLAT_GREP_RE = re.compile(r"\|\s{0,4}grep(?:\s{1,4}-{1,2}\w{1,12}){0,4}\s{1,4}(['\"]?)(?P<pat>[\w.:-]{2,40})\1\s{1,4}"
                           r"(?=(?P=pat)\W)")
"""A prompt line with its grep's output run into it (``$ ibv_devinfo -v | grep GID GID[ 0]: fe80..., RoCE v1 GID[ 1]:
...``: a web page's copy that lost its line breaks): the text after the command starts with the grep's word."""


def _unflattened(rows: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """``rows`` with such a line split into its command and one output line per occurrence of the grep's word (grep
    prints only lines that hold it); every other row as it is."""
    out: list[tuple[int, str]] | None = None  # (a copy only once a row is split: most pastes have none)
    for i, (no, line) in enumerate(rows):
        m = _FLAT_GREP_RE.search(line) if "grep" in line and len(line) < 8192 and parse_prompt(line) else None
        if m is None:
            if out is not None:
                out.append((no, line))
            continue
        out = rows[:i] if out is None else out
        out += [(no, line[:m.end()].rstrip())] + [
            (no, x.strip()) for x in re.split(rf"\s(?={re.escape(m['pat'])}\W)", line[m.end():]) if x.strip()]
    return rows if out is None else out


def split_chunks(text: str | bytes, is_command: Callable[[str, bool], bool] | None = None,
                 is_output: Callable[[str], bool] | None = None) -> list[Chunk]:
    """Split a paste into Chunks at prompt lines (and command lines, and a line naming a host: ``spark-b:``).

    Text before the first prompt becomes a chunk with command None, unless it holds only
    noise (comments, blanks): then it is handed to the first prompt's chunk, so a
    ``# simulated`` comment above a prompt stays with that prompt's output. A prompt with
    nothing under it still gives a (contentless) chunk. A command continued with ``\\`` over
    several lines (bash's ``> `` in front of them or not) is joined into one command.

    ``is_command(command, continued)``, when given, says whether a line without a prompt, at the
    start of the paste, after a blank or comment line, or anywhere when it starts with ``sudo`` or pipes to a filter
    (``| grep``), is a command line a person typed above its
    output (``sudo ethtool enp1s0f1np1``): it labels the lines under it as a prompt would. It is
    asked with the command joined over its ``\\`` continuations, and ``continued`` true when there
    were some.
    ``is_output(text)``, when given, says whether what follows a prompt is output rather than a
    command (a prompt pasted in front of an output line): that line is kept as output, the prompt
    dropped. Never raises.
    """
    parts: list[tuple[Prompt | None, str | None, int, list[tuple[int, str]]]] = [(None, None, 1, [])]
    rows = _unflattened(list(enumerate(clean_lines(text), start=1)))
    after_gap = True  # at the start, or after a blank or comment line
    bare = False  # the line above is a command typed without a prompt
    headed: set[int] = set()  # the parts a Markdown heading named, not a prompt
    i = 0
    seen: list[str] = []  # "user@host:" of the prompts so far
    unasked: set[str] = set()  # lines kept as output that parse_prompt was not asked of (see Chunk.unasked)
    while i < len(rows):
        no, line = rows[i]
        prompt = parse_prompt(line)
        if prompt is not None and prompt.user and prompt.host and len(seen) < 8:
            tag = f"{prompt.user}@{prompt.host}:"
            if tag not in seen:
                seen.append(tag)
        elif prompt is None and seen and "@" in line and len(line) <= 4096:
            glued = _glued_prompt(line, seen)  # output without a final newline, then the next prompt
            if glued:
                rows[i:i + 1] = [(no, line[:glued]), (no, line[glued:])]
                line = line[:glued]
                unasked.add(line)
        if prompt is not None and is_output is not None and prompt.command and not prompt.command.endswith("\\") \
                and is_output(prompt.command):
            parts[-1][3].append((no, prompt.command))  # a prompt glued to an output line: the output stays
            unasked.add(prompt.command)
            after_gap, i = False, i + 1
            continue
        caption = host_caption(line) if prompt is None and (line[-1:] in ":*" or line[-1].isspace()) else None
        heading = _HEADING_COMMAND_RE.match(line) if prompt is None and not caption and is_command is not None \
            and line[:2] == "##" and len(parts) < MAX_TYPED_SECTIONS else None
        if caption:  # "spark-b:" above the output of that host: as a prompt on that host would say
            prompt = Prompt("", None, caption)
        elif heading and is_command(heading.group("command").strip("`* "), False):  # "#### nvidia-smi topo -mp"
            prompt = Prompt(heading.group("command").strip("`* "))
        elif prompt is None and is_command is not None and (after_gap or ("|" in line or "sudo" in line[:12])
                                                                  and len(parts) < MAX_TYPED_SECTIONS
                                                                  and _TYPED_ANYWHERE.match(line)
                                                                  and not _shows_a_file(parts[-1][0])) \
                and len(line) <= 4096 and line.strip() \
                and not line.lstrip().startswith("#") and not is_noise_line(line):  # "#": no prompt, so a comment
            command, used = _continued(line.strip(), rows, i)
            if is_command(command, used > 0):
                bare = True  # a command line typed without a prompt: another may follow it, as in a list of them
                prompt = Prompt(command)
                line = "\n".join(r[1] for r in rows[i:i + used + 1])
                i += used
        elif prompt is not None and prompt.command.endswith("\\"):
            command, used = _continued(prompt.command, rows, i)
            prompt = Prompt(command, prompt.user, prompt.host)
            line = "\n".join(r[1] for r in rows[i:i + used + 1])
            i += used
        if prompt is None:
            parts[-1][3].append((no, line))
            gap = line.lstrip()[:3]  # blank, a comment, a fence, "..." (cheaper than is_noise_line on every line)
            after_gap = not gap or gap[0] in "#`~" or gap in ("...", "…") or line[-1:] == ":" and _LABEL_RE.match(line) is not None
            i += 1
            continue
        last = parts[-1]
        if not caption and prompt.host is None and last[0] is not None and last[0].command == "" and last[0].host \
                and not any(not is_noise_line(x) for _, x in last[3]):  # "spark-a:", a fence, then "$ cmd"
            prompt = Prompt(prompt.command, prompt.user, last[0].host)
            parts[-1] = (None, None, last[2], last[3])  # the caption's own chunk keeps only its noise
        elif len(parts) - 1 in headed and not any(not is_noise_line(x) for _, x in last[3]):
            parts[-1] = (None, None, last[2], last[3])  # "### nvidia-smi", a fence, then the prompt: one command
        if heading and prompt.command == heading.group("command").strip("`* "):
            headed.add(len(parts))
        parts.append((prompt, line, no, []))
        # under a caption a bare command may follow, under a command that prints nothing when it succeeds (a
        # script's `ethtool -G ...` lines one after another, a `cd`), and under a command typed without a prompt (a
        # list of the commands run); under another prompt, its output
        after_gap = bool(caption) or silent_on_success(prompt.command) or _silent_builtin(prompt.command) or bare
        bare = False
        i += 1
    preamble = parts.pop(0)[3]
    if parts and not any(not is_noise_line(x) for _, x in preamble):
        prompt, line, no, lines = parts[0]
        parts[0] = (prompt, line, no, preamble + lines)
    elif preamble:
        parts.insert(0, (None, None, 1, preamble))
    unasked_lines = frozenset(unasked)
    return [chunk for p, line, no, lines in parts
            for chunk in _by_host(Chunk(p.command or None if p else None, p.host if p else None, line,
                                        tuple(map(itemgetter(1), lines)), no, tuple(map(itemgetter(0), lines)),
                                        unasked_lines))]


def _by_host(chunk: Chunk) -> list[Chunk]:
    """``chunk``, or one chunk per machine where each line starts with the machine's name (pdsh, clush, Terraform's
    provisioners: :func:`grader.parsers.common.labelled.host_groups`), each with that machine for its host."""
    groups = host_groups(chunk.lines)  # (a prompt's host is where pdsh ran; the labels name where each line came from)
    if not groups:
        return [chunk]
    numbers = chunk.linenos or range(chunk.first_lineno, chunk.first_lineno + len(chunk.lines))
    return [dataclasses.replace(chunk, host=host, lines=tuple(line for _, line in rows),
                                linenos=tuple(numbers[i] for i, _ in rows)) for host, rows in groups]


def split_sections(text: str | bytes) -> list[tuple[str | None, list[str]]]:
    """Split a paste at prompt lines into ``(command_or_None, lines)`` pairs.

    ``lines`` are the cleaned lines under that prompt (prompt line excluded). Text before
    the first prompt gets command None. See split_chunks for the richer form.
    """
    return [(c.command, list(c.lines)) for c in split_chunks(text)]


FOLD_MIN_CHARS = 1_000_000
"""An output at least this long (characters) is looked at for one block of its lines repeated (:func:`repeated_block`)."""


def repeated_block(lines: list[str], min_chars: int = FOLD_MIN_CHARS, tries: int = 8) -> tuple[int, int, bool] | None:
    """``(p, k, cut)`` when ``lines`` (blank lines at the end aside) is its first ``p`` lines said ``k`` >= 2 whole
    times over, ``cut``: and the start of one more copy after them (a copy cut short, its last line too); else None.
    Only outputs of ``min_chars`` characters or more are looked at: an excerpt pasted again and again to megabytes is
    read once, while an ordinary output that repeats lines (a link flapping down and up) is read whole. Each try is a
    comparison of the text with itself shifted by one block (done in C), at most ``tries`` of them (the periods where
    the first line comes again), its first 4,096 characters first (a log whose copies differ is told at once), so a
    long output costs a few passes over its characters."""
    n = len(lines)
    while n and not lines[n - 1].strip():
        n -= 1
    if n < 4:
        return None
    text = "\n".join(lines[:n])  # no newline after the last line: it may be cut short
    if len(text) < min_chars:
        return None
    start, chars = 1, 0
    for _ in range(tries):
        try:
            p = lines.index(lines[0], start, n // 2 + 1)
        except ValueError:
            return None
        chars += sum(len(x) + 1 for x in lines[start - 1:p])  # the block's characters, its newlines counted
        if text.startswith(text[chars:chars + 4096]) and text.startswith(text[chars:]):
            # the text is the block again and again (the last copy may be cut)
            k, rest = divmod(len(text) + 1, chars)
            return p, k, rest > 0
        start = p + 1
    return None


RESOLVED_RE = re.compile(r"(?<!not )(?<!n't )(?<!never )(?<!still )\b(?:(?:is|are|now|was|been|got) (?:gone|fixed|resolved|"
                         r"solved)|fixed (?:it|by|after|with|now)|went away|no longer (?:appears|happens|shows|occurs)|"
                         r"disappeared)\b", re.I)


RESOLVED_WORDS = ("gone", "fixed", "resolved", "solved", "went away", "no longer", "disappeared")
"""The words one of RESOLVED_RE's phrases holds (lower case; diagnoses._unresolved looks for these, capitalised, title
and upper case): a text with none of them says nothing is resolved."""
QUOTE_MARKS = ('"', "`", "\u201c")
"""The quote marks a caption quotes an error with (drop_resolved reads only a line with one)."""


def says_resolved(lines: list[str] | tuple[str, ...]) -> bool:
    """Whether a poster's caption says the error it quotes is gone (``the earlier "CUDA error: ..." is gone; full log
    below``, ``fixed by ...``): a caption to leave out, not an error report (``still not fixed`` is one)."""
    return any(RESOLVED_RE.search(line) for line in lines)


_CLAUSE_SPLIT_RE = re.compile(r"[;]|,? (?:but|yet|however|though|while) |, (?:and )?(?:now|then) |\.\s(?=[A-Z])", re.I)


def drop_resolved(line: str) -> str:
    """``line`` less its clauses that quote an error and say it is gone (``the "CUDA error: out of memory" is gone
    after lowering it, but now it dies with "...illegal memory access..."`` keeps the second): a caption's new error
    stays read, the old one does not."""
    if not any(q in line for q in QUOTE_MARKS) or not RESOLVED_RE.search(line):
        return line
    parts, at = [], 0
    for m in _CLAUSE_SPLIT_RE.finditer(line):
        parts.append(line[at:m.start()])
        at = m.start()
    parts.append(line[at:])
    out, gone = [], False
    for x in parts:
        if RESOLVED_RE.search(x):
            out.append(" " * len(x))
            gone = True
            continue
        lead = _CLAUSE_SPLIT_RE.match(x) if gone else None  # (the joint after a clause left out goes with it)
        out.append(" " * lead.end() + x[lead.end():] if lead else x)
        gone = False
    return "".join(out)


_LAUNCHER_RE = re.compile(r"(?:mpirun|mpiexec|srun|torchrun|deepspeed|accelerate|sky"
                          r"|python[\d.]{0,5}|[\w.-]{1,80}\.(?:sh|py)|[\w.-]{0,80}_perf|\.?/[^\s]{1,200})$")
"""A command that runs a program printing NCCL's lines (a launcher, a script, an MPI program): what it prints above them
is its own; a shell's builtin or a reading command (`ulimit -l`, also through `docker exec ... bash -c`: break-it 28
F11, 29 G17) is another output."""


def take_prints_above(segs: list[Segment], known: Callable[[str], list], logs: frozenset[str]) -> None:
    """Give a program's few prints (at most 3 lines no kind reads) to the output just below them, in place: to a
    Python traceback, or to an NCCL log or nccl-tests table under a command line (blind batch vt008: TensorRT-LLM's `MPI
    size: 1, rank: 0` above its traceback; vq005: an MPI program's `The local rank is: 0` above its NCCL lines; vx009:
    SkyPilot's `All nodes: ...` above the table). Not where ``known``
    (reported faults) finds one in them: those stand in a section of their own. And a traceback's frame or two the
    paste cut at its start, above a log whose reader reads its tracebacks (``logs``: vLLM's), to that log (vu005)."""
    for j in range(len(segs) - 2, -1, -1):
        above, below = segs[j], segs[j + 1]
        if above.kind is None and 0 < above.n_content <= 3 and not below.command and (
                below.kind == "python-traceback" or below.kind in ("nccl-log", "nccl-tests") and any(
                    _LAUNCHER_RE.match((command_argv(part) or [""])[0]) for part in re.split(r"[;&|]+", above.command or ""))) \
                and not known("\n".join(above.lines)) \
                or j == 0 and above.kind == "python-traceback" and above.n_content <= 2 and below.kind in logs:
            below.take_above(segs.pop(j))
