"""The core of ``explain`` (the package's docstring says what it does and how it is laid out): the registry, a paste
split into sections (at shell prompts, and where the shape of the output changes), each one's kind recognised, and
``explain``. It knows no lesson and no command: each kind of output is one ``KindSpec`` a lesson module registers
(``register``): how to recognise it (by the prompt's command, by its lines, by its JSON), how to parse it, and which
judge (grader.judges, one per topic) summarises it; the judges' paste-wide comparisons come with
``register_cross_check``. A judge's findings name the problem and the fix; those the core makes are the paste's own
(lines left out, a program not installed, a known error line).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

from ..failures import describe_failure
from ..diagnoses import known_faults, one_text_gated
from ..parsers import ParseError
from ..parsers.common.commands import changes_state, silent_on_success  # (a setter's refusal: tolerant.unread_reply)
from ..parsers.common import (PROMPT_PROGRAMS, Chunk, CleanLines, CleanText, LazyAnySearch, LazySearch, command_argv,
                              is_comment_line, is_noise_line, join_wrapped, load_json_lenient, opens_json,
                              repeated_block, split_chunks as _split_lines, strip_log_prefix)
from ..parsers.common.chunks import Segment as _Segment, says_resolved, take_prints_above
from ..parsers.common.stderr import is_preamble
from ..judges.context import _CONTEXT, HEAD_CHARS, Context, context  # noqa: F401  (re-exported)
from ..judges.model import ALL_WELL, LEVELS, NO_ERROR_SEEN, Finding, Section, Summary  # noqa: F401  (re-exported: the API)
from ..judges.programs import not_found_program
from .tolerant import (KNOWN_ERROR, TROUBLE_RE, caption_between, ends_at_prompt, grader_bug, is_caption, is_sentence,  # noqa: F401
                       is_label_only, is_words, left_out, listed_above, paste_next, unread_reply, unread_section,
                       without_trailing_prose)
from .output import (MAX_SHOWN_CHARS, _plain, _shown, block_repeated, fold_repeats, redacted, render, said_again,
                     to_jsonable)  # noqa: F401  (render and to_jsonable re-exported)

# --------------------------------------------------------------------------- registry

@dataclass(frozen=True)
class KindSpec:
    """How to recognise, parse and summarise one kind of command output.

    ``parse(text)`` returns the parsed value or raises ParseError; ``summarise(parsed, command)`` returns ``(facts,
    findings)``. ``programs`` are the program names that print it (``ip``); ``matches_command(argv)`` says whether a
    prompt's command prints it (argv: parsers.common.command_argv's; by default, whether argv[0] is one of
    ``programs``); ``line`` matches lines that clearly belong to it; ``starts`` matches a line that begins a new output
    of it (``PING ...``); ``matches_json(value)`` recognises its JSON; ``block_start`` matches the first line of a block
    format (YAML) that runs to the end; ``header`` matches comment lines that open its output (nccl-tests prints its
    whole header as ``#`` lines): such lines just before an output make this kind the preferred one for it; ``prelude``:
    its lines before its first ``starts`` line stay with the output they open (vllm bench serve's settings and progress
    bar); ``when_empty``: what it means that the command printed nothing (an info finding; without it, an empty output
    is an error); ``counts_repeats``: its judge counts repeated lines or reads the last one (the kernel's link events),
    so an output of one excerpt repeated is never read once; ``starts_on_repeat``: a ``starts`` line begins another
    output only when the output holds it already (ibv_devinfo's ``hca_id:`` opens each device of one output; the same
    device again is another host's); ``joins``: the kinds whose output its lines continue instead of beginning its own
    (a Python traceback inside a vLLM log); ``inner``: lines it claims only inside its own output (a traceback's
    exception line); ``inner_json``: a JSON value no kind reads stays inside its output (iperf3 --debug prints its
    messages so); ``reads_command``: its judge reads the command line alone too (``summarise(None, command)``: docker
    run -d's options), when its output is not pasted.
    """

    name: str
    parse: Callable[[str], Any]
    summarise: Callable[[Any, str | None], Summary]
    programs: tuple[str, ...] = ()
    matches_command: Callable[[list[str]], bool] | None = None
    line: re.Pattern[str] | None = None
    starts: re.Pattern[str] | None = None
    matches_json: Callable[[Any], bool] | None = None
    block_start: re.Pattern[str] | None = None
    header: re.Pattern[str] | None = None
    prelude: bool = False
    when_empty: str | None = None
    counts_repeats: bool = False
    starts_on_repeat: bool = False
    joins: frozenset[str] = frozenset()
    inner: re.Pattern[str] | None = None
    inner_json: bool = False
    reads_command: bool = False

    def __post_init__(self) -> None:
        if self.matches_command is None:
            object.__setattr__(self, "matches_command", lambda argv: bool(argv) and argv[0] in self.programs)


# A cross check reads every (Section, parsed value) of a paste and returns (section index, Finding) pairs.
CrossCheck = Callable[[list[tuple[Section, Any]]], list[tuple[int, Finding]]]

_REGISTRY: dict[str, KindSpec] = {}
_REGISTRY_VERSION = 0  # bumped by register(): what is derived from the registry is rebuilt
_CROSS_CHECKS: list[tuple[CrossCheck, frozenset[str]]] = []  # each check, and the kinds it reads (empty: any)
KINDS: tuple[str, ...] = ()


def register(spec: KindSpec) -> KindSpec:
    """Add (or replace) a kind; detection tries kinds in registration order."""
    global KINDS, _REGISTRY_VERSION
    _REGISTRY[spec.name] = spec
    KINDS = tuple(_REGISTRY)
    _REGISTRY_VERSION += 1
    return spec


def register_cross_check(check: CrossCheck, kinds: tuple[str, ...] = ()) -> CrossCheck:
    """Add a check that compares sections of one paste (e.g. the two Sparks' outputs). ``kinds``: the kinds it needs
    one of to say anything; a paste with none of them does not call it (so its judge is not even imported)."""
    _CROSS_CHECKS.append((check, frozenset((kinds,) if isinstance(kinds, str) else kinds)))
    return check


def registered_kinds() -> tuple[str, ...]:
    """The kind names known now (KINDS, plus any registered after import)."""
    return tuple(_REGISTRY)


# --------------------------------------------------------------------------- splitting

def _kind_of_command(argv: list[str]) -> str | None:
    return next((s.name for s in _REGISTRY.values() if argv and s.matches_command(argv)), None)


MAX_KIND_LINE = 64 * 1024
"""A line longer than this (in characters) is not used to tell which command printed it: it continues the
output before it. No command's output line that names its kind is that long (JSON is read as JSON), and
trying every kind's pattern on a multi-megabyte line costs seconds."""


def _state() -> tuple[int, int]:  # the key of what is derived from the registry: which one (a test may swap it), version
    return id(_REGISTRY), _REGISTRY_VERSION


class _Views(NamedTuple):  # what is derived from the registry, built once per state of it (see _views)
    any_kind: Callable[[str], bool]  # whether some kind's ``line`` pattern finds a match in a line
    lined: dict[str, LazySearch]  # each kind with a ``line`` pattern, in registration order: whether it
    #   finds a match in a line (any_search of that pattern, built when first asked)
    blocks: tuple[KindSpec, ...]  # the kinds with a ``block_start``
    headers: tuple[KindSpec, ...]  # the kinds with a ``header``
    programs: frozenset[str]  # every program some kind names, and those a root prompt may run


@functools.lru_cache(maxsize=1)
def _views(state: tuple[int, int]) -> _Views:
    """The registry's _Views; a line is asked with a few searches at most (parsers.common.any_search, built after a few
    calls: the patterns' alternatives anchored at the line's start are tried there once, the others by their shape)."""
    kinds = list(_REGISTRY.values())
    return _Views(LazyAnySearch(k.line for k in kinds if k.line is not None),
                  {k.name: LazySearch(k.line) for k in kinds if k.line is not None},
                  tuple(k for k in kinds if k.block_start is not None), tuple(k for k in kinds if k.header is not None),
                  frozenset(p for k in kinds for p in k.programs) | PROMPT_PROGRAMS | _WRAPPERS)


@functools.lru_cache(maxsize=256)  # a paste runs a few commands, often again and again
def _kind_of_command_line(command: str | None, state: tuple[int, int]) -> str | None:
    return _kind_of_command(command_argv(command))


def _kind_of_line(line: str, prefer: str | None, views: _Views | None = None) -> str | None:
    """The kind claiming ``line``, ``prefer`` asked first (``views``: the registry's, from a caller asking each line)."""
    s = line.strip()
    if len(s) > MAX_KIND_LINE:
        return None
    prog = not_found_program(s) if "not found" in s else None  # (the words first: most lines hold none)
    if prog:
        return prefer if prefer in _REGISTRY and prog in _REGISTRY[prefer].programs else \
            next((k.name for k in _REGISTRY.values() if prog in k.programs), prefer)
    views = views or _views(_state())
    claims, inner = views.lined.get(prefer), _REGISTRY[prefer].inner if prefer in _REGISTRY else None  # type: ignore
    if claims is not None and claims.search(s) or inner is not None and inner.search(s):  # the kind around it first
        return prefer
    if not views.any_kind(s):  # no kind claims it: a few searches, not some per kind
        if (bare := strip_log_prefix(s).strip()) == s or not views.any_kind(bare):  # behind a tag ("[vllm]: ")?
            return None
        s = bare
        if claims is not None and claims.search(s):  # the kind around it first, behind a journal's prefix too
            return prefer
    return next((name for name, claims in views.lined.items() if claims.once(s)), None)  # (most asked once a paste)


_COMMAND_WORD_RE = re.compile(r"^(?:[A-Za-z_]\w*=\S*\s+)*(?:(?:sudo|time|env|nohup|doas|uvx)\s+(?:-\S+\s+)*)*"
                              r"(?P<prog>[\w.~/-]*[A-Za-z][\w.~/-]*)(?:\s|$)")
_WRAPPERS = frozenset({"sudo", "env", "time", "nice", "command", "exec", "stdbuf", "nohup", "doas", "uvx", "ssh", "docker",
                       "mpirun", "srun", "torchrun", "kubectl", "podman", "bash", "sh"})
_TYPED_RE = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+[\w./~-]|^sudo\s+(?:-\S+\s+)*[\w./~-]|^\./[\w.-]+(?:\s|$)")
"""What only a typed command line starts with: environment assignments (``NCCL_DEBUG=INFO mpirun ...``), sudo, or a
program run from the working directory (``./simpleP2P``)."""
MAX_COMMAND_LINE = 4096
"""A line longer than this is never taken for a command line a person typed."""


def _is_output(text: str) -> bool:
    """Whether ``text`` (what follows a prompt) is an output line some kind knows rather than a command."""
    s = text.strip()
    if len(s) > MAX_KIND_LINE or not s:
        return False
    m = _COMMAND_WORD_RE.match(s)
    if m and m.group("prog").rsplit("/", 1)[-1] in _views(_state()).programs:
        return False  # `ip addr`, `ray status`: a command, even when a kind's line pattern would claim it
    return _kind_of_line(s, None) is not None or opens_json(s)


def _is_command(command: str, continued: bool = False) -> bool:
    """Whether a line a person pasted without a prompt is the command line of the output under it: a program
    some kind reads (``sudo ethtool enp1s0f1np1``, ``docker exec c ray status``), or any program when the person
    continued the line with ``\\`` or started it with ``VAR=value`` or ``sudo`` (only a typed command does), and no
    kind claims the line as output."""
    s = command.strip()
    if not s or len(s) > MAX_COMMAND_LINE or opens_json(s):
        return False
    m = _COMMAND_WORD_RE.match(s)
    if not m or _kind_of_line(s, None) is not None or is_sentence(s) or s[m.end("prog"):m.end("prog") + 3] == " : ":
        return False  # (`simpleP2P : Failed (code 1)`, a test runner's report on a program: no command line)
    prog, argv = m.group("prog").rsplit("/", 1)[-1], command_argv(s)  # python3 -m sglang.bench_serving: its matcher
    return bool(continued or _TYPED_RE.match(s)) or prog in ("echo", "printf") and "\"" in s or (  # (numactl, taskset)
        {prog, argv[0] if argv else prog} & _views(_state()).programs or prog.startswith("python")) \
        and _kind_of_command(argv) is not None


def split_chunks(text: str) -> list[Chunk]:
    """The paste split at prompts and at command lines (with ``\\`` continuations) typed above an output; a
    prompt glued to an output line some kind knows is dropped (see parsers.common.split_chunks)."""
    return _split_lines(text, _is_command, _is_output)


class _Joined:
    """A chunk's lines joined once (``text``), with the offset where each line starts (``starts``), so
    a JSON value opening at any line is decoded in place: no copy of the rest of the chunk per line."""

    def __init__(self, lines: list[str]) -> None:
        self.text, self.starts, pos = "\n".join(lines), [], 0
        for line in lines:
            self.starts.append(pos)
            pos += len(line) + 1


_WS_RE = re.compile(r"\s*+")  # what str.lstrip() removes (newlines included)
_LINE_WS_RE = re.compile(r"[^\S\n]*+")  # the same within one line


def _kind_of_json(joined: _Joined, i: int, prefer: str | None) -> tuple[str | None, int]:
    """The kind of the JSON value starting at line ``i`` of the chunk, and how many lines it spans."""
    text, n_lines = joined.text, len(joined.starts)
    start = _WS_RE.match(text, joined.starts[i]).end()
    try:
        value, end = json.JSONDecoder().raw_decode(text, start)
        used = text.count("\n", joined.starts[i], end) + 1
    except ValueError:
        try:
            value, _ = load_json_lenient(text[start:], "json")
        except ParseError:
            return prefer, n_lines - i
        used = n_lines - i
    kind = next((k.name for k in _REGISTRY.values()
                 if k.matches_json is not None and k.matches_json(value)), prefer)
    if isinstance(value, dict) and ("event" in value or {"metadata", "metrics"} <= value.keys()):
        # iperf3 --json-stream and AIPerf's profile_export.jsonl: one JSON value per line, one output
        while i + used < n_lines and text.startswith("{", _LINE_WS_RE.match(text, joined.starts[i + used]).end()):
            used += 1
    return kind, used


def _trailing_claimed(kind: str | None, noise: list[str]) -> int:
    """How many of the noise lines after a segment of ``kind`` stay with it: those its ``line``
    pattern claims (nccl-tests ends with ``# Avg bus bandwidth`` comment lines), with blank lines
    and chatter between them, up to the first comment it does not claim. Other noise goes to the
    next output."""
    claims = _views(_state()).lined.get(kind)  # type: ignore[arg-type]
    if claims is None:
        return 0
    keep = count = 0
    for line in noise:
        s = line.strip()
        claimed = bool(s) and len(s) <= MAX_KIND_LINE and claims(s)
        if s and not claimed and is_comment_line(s):
            break
        count += 1  # blanks and chatter (X11 noise, fences) are neutral
        if claimed:
            keep = count
    return keep


def _segments(chunk: Chunk) -> list[_Segment]:
    """Split one prompt's output where the kind of output changes.

    One pass over the chunk's lines: each line is looked at a bounded number of times (a JSON value or
    YAML block is decoded once, in place), so the work is linear in the size of the chunk.
    """
    views = _views(_state())
    cmd_kind = _kind_of_command_line(chunk.command, _state())
    segs = [_Segment(None, chunk.command, chunk.host,
                     prompt_lineno=chunk.first_lineno if chunk.prompt_line is not None else None)]
    pending: list[int] = []  # indexes of noise lines waiting for the next content line
    lines = list(chunk.lines)
    numbers = list(chunk.linenos) or list(range(1, len(lines) + 1))
    joined: _Joined | None = None  # built at the first line that opens JSON
    plain: str | None = None  # the last line, when it just continued the current output (see the end)
    held: str | None = None  # the last stderr line held above the first output (is_preamble)
    i = 0
    while i < len(lines):
        line = lines[i]
        cur = segs[-1]
        if line == plain and not pending:  # the same line again, with nothing between: the same decision
            cur.add_line(line, numbers[i])
            i += 1
            continue
        if is_noise_line(line) or cur.kind is None and not cur.begun and is_preamble(line, held) and not (
                line[:1] == "[" and _kind_of_line(line, None)):  # (stderr above it, unless a kind's own: Ray's C++ log)
            held = held if is_noise_line(line) else line
            pending.append(i)
            i += 1
            continue
        block = None
        for k in views.blocks:  # a loop, not a generator: asked for every line
            if k.block_start.match(line):
                block = k
                break
        whole = True  # a JSON value or a YAML file is one output on its own
        if block is not None or (cmd_kind and _REGISTRY[cmd_kind].block_start and not cur.n_content):
            kind, used = (block.name if block else cmd_kind), len(lines) - i
        elif (line[:1] in "{[" or line[:1].isspace()) and opens_json(line):  # (JSON opens so, after blanks)
            joined = joined or _Joined(lines)
            kind, used = _kind_of_json(joined, i, cmd_kind if not cur.n_content else None)
            inside = kind is None and cur.kind in _REGISTRY and _REGISTRY[cur.kind].inner_json  # iperf3 --debug's
            by_line = cur.kind if inside else _kind_of_line(line, cur.kind or cmd_kind) if kind is None else None
            if by_line is not None:  # no JSON any kind reads, but a line one claims (`ray status`'s {'GPU': 1.0} ...)
                whole, used, kind = False, used if inside else 1, by_line
        else:
            whole, used = False, 1  # unclaimed lines continue the current output (the command's, first)
            hint = next((k.name for j in pending for k in views.headers
                         if len(lines[j]) <= MAX_KIND_LINE and k.header.search(lines[j].strip())),
                        None) if pending and not cur.kind else None  # (within an output of a kind: never used)
            # last: a kind's header just above a line no kind claims (a table pasted without its banner)
            kind = _kind_of_line(line, cur.kind or cmd_kind or hint, views)
            if kind is None and cur.begun and caption_between(lines, i, lambda x: _begins(x, cur.kind)):  # "Output:"
                whole = True  # ends the output above; the caption stands alone (and is dropped), the next begins
            else:
                kind = kind or cur.kind or (cmd_kind if cur is segs[0] else None) or hint
        spec = _REGISTRY.get(kind) if kind else None
        if spec is not None and cur.kind in spec.joins:  # its lines are the log's around them
            kind, spec = cur.kind, _REGISTRY[cur.kind]
        opens = spec is not None and spec.starts is not None and len(line) <= MAX_KIND_LINE \
            and bool(spec.starts.search(line.strip()))  # the line begins an output of its kind
        starts = opens and not (spec.starts_on_repeat and line.strip() not in cur.opened)
        if cur.begun and kind != cur.kind and not cur.started and not whole and spec is not None and spec.line \
                and cur.kind in _REGISTRY and _REGISTRY[cur.kind].prelude and spec.prelude \
                and spec.line.search(next((x.strip() for x in cur.lines if x.strip()), "")):
            cur.kind = kind  # only a prelude so far (llama.cpp's device list), which this kind claims too: its output
        if cur.begun and (kind != cur.kind or (starts and kind == cur.kind and (cur.started or not spec.prelude))
                          or whole):
            keep = _trailing_claimed(cur.kind, [lines[j] for j in pending])
            cur.add([lines[j] for j in pending[:keep]], [numbers[j] for j in pending[:keep]], 0)
            pending = pending[keep:]
            segs.append(cur := _Segment(kind, None, chunk.host))
        cur.kind = cur.kind or kind
        if pending:  # the noise lines before it go with it
            cur.add([lines[j] for j in pending], [numbers[j] for j in pending], 0)
            pending = []
        if used == 1:  # line i is not noise
            cur.add_line(line, numbers[i])
        else:
            cur.add(lines[i:i + used], numbers[i:i + used])
        cur.started = cur.started or opens
        if opens and spec.starts_on_repeat:
            cur.opened.add(line.strip())
        i += used
        # a line that continued (or began) an output without restarting it decides the same way when repeated
        plain = line if used == 1 and not whole and not opens else None
    segs[-1].add([lines[j] for j in pending], [numbers[j] for j in pending], None)  # (stderr alone: content)
    for seg in segs if chunk.unasked else ():
        seg.plain -= chunk.unasked  # kept as output unasked whether a prompt (see Chunk.unasked)
    if segs[0].kind is None and cmd_kind:
        segs[0].kind = cmd_kind
    take_prints_above(segs, _known_faults, _REGISTRY["python-traceback"].joins)
    return [s for s in segs if s.lines or s.command]


def _segments_once(chunk: Chunk, split: dict[tuple, list[_Segment]]) -> list[_Segment]:
    """:func:`_segments` of ``chunk``; one that ``split`` holds already (the same command, host, prompt and lines: split
    alike, only the line numbers differ) is copied from it with this chunk's line numbers."""
    key = (chunk.command, chunk.host, chunk.prompt_line is None, chunk.lines)
    if key not in split:  # split with each line's index for its number, so a copy maps them to its own
        split[key] = _segments(dataclasses.replace(chunk, linenos=tuple(range(len(chunk.lines))), first_lineno=0))
    numbers = chunk.linenos or range(1, len(chunk.lines) + 1)
    return [dataclasses.replace(s, lines=list(s.lines), linenos=[numbers[k] for k in s.linenos], opened=set(s.opened),
                                prompt_lineno=None if s.prompt_lineno is None else chunk.first_lineno) for s in split[key]]


# --------------------------------------------------------------------------- explain

def detect_kind(text: str) -> str | None:
    """The kind of the first recognised output in ``text``, or None. Never raises."""
    try:
        for chunk in split_chunks(text):
            for seg in _segments(chunk):
                if seg.kind and seg.n_content:
                    return seg.kind
    except Exception:  # detection must not fail on odd input
        return None
    return None


def explain(text: str, kind: str | None = None, host: str | None = None, nodes: int | None = None) -> list[Section]:
    """Explain a paste of one or more command outputs; one Section per output found.

    ``kind`` forces one kind for the whole text (one Section). ``host`` (``"spark"``/``"other"``) and ``nodes``
    say what the paste may not show (:class:`Context`). Unknown text gives a Section with kind None and an
    error saying how to name its kind. Never raises for bad input: unreadable output becomes a Section with
    ``error`` set.
    """
    token = _CONTEXT.set(Context(host, nodes, text[:HEAD_CHARS] if isinstance(text, str) else ""))
    try:
        return redacted(_explain(text, kind))  # no secret of a pasted command line is said back
    finally:
        _CONTEXT.reset(token)


def _explain(text: str, kind: str | None) -> list[Section]:
    try:
        if not isinstance(text, str) or not text.strip():
            return [Section(None, None, {}, (), "nothing to explain: the text is empty")]
        if kind is not None:
            return _explain_as(text, kind)
        items: list[tuple[Section, Any]] = []
        seen: dict[tuple, int] = {}  # an output pasted again (the same kind, command, host and lines): read once
        times: list[int] = []
        split: dict[tuple, list[_Segment]] = {}  # a chunk pasted again (the same command, host and lines): split once
        for ci, chunk in enumerate(chunks := split_chunks(text)):
            segs = _captioned(_segments_once(chunk, split))
            for seg in segs:
                if not seg.n_content and not seg.kind and not changes_state(seg.command) \
                        or _caption(seg) and (len(segs) > 1 or len(chunks) > 1):
                    continue  # nothing, or a caption above an output ("Case1 performance data:")
                spec = _REGISTRY.get(seg.kind) if seg.kind else None
                fold = repeated_block(seg.lines) if spec and not spec.counts_repeats else None  # megabytes of one excerpt
                if fold:
                    seg = dataclasses.replace(seg, lines=seg.lines[:fold[0]], linenos=seg.linenos[:fold[0]], n_content=-1)
                key = (seg.kind, seg.command, seg.host, tuple(seg.lines))
                if key in seen:
                    times[seen[key]] += 1
                    continue
                seen[key] = len(items)
                times.append(1)
                with one_text_gated():  # the reader's diagnoses and _known_faults ask the same gates of one text
                    run = listed_above(_run(seg), chunk, chunks[ci + 1] if ci + 1 < len(chunks) else None)
                items.append((block_repeated(run[0], *fold), run[1]) if fold else run)
        if not items:  # only comments: a kind whose header they are (nccl-tests' `# nThread ...`) reads them
            headers = _views(_state()).headers
            kind = next((k.name for x in text.splitlines()[:200] for k in headers
                         if len(x) <= MAX_KIND_LINE and k.header.search(x.strip())), None)
            return _explain_as(text, kind) if kind else [Section(None, None, {}, (), "nothing to explain: only "
                                                                  "prompts and comments")]
        items = [(said_again(s, n), parsed) if n > 1 else (s, parsed) for (s, parsed), n in zip(items, times)]
        items[-1] = ends_at_prompt(items[-1], len(items), chunks[-1].lines)
        return _cross_check(items, frozenset(i for i, n in enumerate(times) if n > 1))
    except (RecursionError, MemoryError, ValueError) as err:  # too deep or too large for any reader
        if isinstance(err, ValueError) and "integer string conversion" not in str(err):
            return grader_bug(err)
        return [Section(None, None, {}, (), f"cannot read this paste: {describe_failure(err)}")]
    except Exception as err:  # a bug must not hide the learner's output
        return grader_bug(err)


def _captioned(segs: list[_Segment]) -> list[_Segment]:  # a line or three of words just above a results table: its
    # caption (`Sweep on one Spark, 256 requests each`), which the table's reader keeps (the load, the prompts sent)
    out: list[_Segment] = []
    for seg in segs:
        if out and seg.kind == "results-table" and out[-1].kind is None and not out[-1].command \
                and 0 < out[-1].n_content <= 3 and not TROUBLE_RE.search("\n".join(out[-1].lines)):
            above = out.pop()
            seg = dataclasses.replace(seg, lines=above.lines + seg.lines, linenos=above.linenos + seg.linenos)
        out.append(seg)
    return out


def _caption(seg: _Segment) -> bool:  # no kind, no command: a poster's caption or words (tolerant.is_caption, is_words)
    return seg.kind is None and not seg.command and (is_caption(seg.lines) or is_words(seg.lines)) and (says_resolved(
        seg.lines) or not _known_faults("\n".join(seg.lines)))  # (one quoting a known error it says is not gone is read)


def _explain_as(text: str, kind: str) -> list[Section]:
    if kind not in _REGISTRY:
        return [Section(None, None, {}, (), f"unknown kind {kind!r}; known kinds: {', '.join(_REGISTRY)}")]
    chunks = [c for c in split_chunks(text) if c.command or c.has_content()]
    first = chunks[0] if chunks else None
    lines = text.splitlines()
    fold = None if _REGISTRY[kind].counts_repeats else repeated_block(lines)  # megabytes of one excerpt: read once
    seg = _Segment(kind, first.command if first else None, first.host if first else None, lines[:fold[0]] if fold
                   else lines)
    run = _run(seg, whole=True)
    return _cross_check([(block_repeated(run[0], *fold), run[1]) if fold else run])


def _run(seg: _Segment, whole: bool = False) -> tuple[Section, Any]:
    if seg.kind is None and not seg.n_content:  # a state change (kept by _explain) whose output is not in the paste
        from ..judges.sequence import silent_change
        said = silent_change(seg.command) or f"`{seg.command}` alters the machine's state; its output is not here."
        return Section(None, seg.command, {}, (Finding("info", said),), None, seg.host), None
    if seg.kind is None:  # no reader knows it: a reported fault in it, a program not installed, or which to paste
        return unread_section(seg, _known_faults("\n".join([f"$ {seg.command}"][:bool(seg.command)] + seg.lines))), None
    spec = _REGISTRY[seg.kind]
    lines, numbers = join_wrapped(seg.lines, seg.linenos or None, _claimed)  # a wrapped log line read as one
    text = "\n".join(lines)
    if not whole and seg.command is not None:
        text = f"$ {seg.command}\n{text}"
        numbers.insert(0, seg.prompt_lineno or 0)
        lines = [f"$ {seg.command}", *lines]
    # its lines come from the paste's clean_lines (--kind's: as given); no line holds a line break, so a segment's are
    # the text's, and those the split found plain need not be asked again (CleanLines)
    text = text if whole else CleanLines(text, lines, seg.plain) if len(lines) > 1 and "\n" not in lines[0] \
        else CleanText(text)
    if not seg.n_content and not whole and not (spec.header and any(map(spec.header.match, seg.lines))):  # all '#'
        return (_command_alone(spec, seg) if spec.reads_command and seg.command else _printed_nothing(spec, seg)), None
    set_aside: list[str] = []
    try:
        try:
            parsed = spec.parse(text)
        except ParseError as err:  # a poster's question below the output: the output read without it
            retry = without_trailing_prose(spec.parse, text, err, _claimed)
            if retry is None:
                raise
            parsed, set_aside = retry
    except ParseError as err:
        if not whole and err.lineno is not None and 0 < err.lineno <= len(numbers):
            err = ParseError(err.command, err.message, err.line, numbers[err.lineno - 1] or None)
        said = () if whole else unread_reply(seg)  # a setting refused; a version query answered...
        known = [] if said and silent_on_success(seg.command) else _known_faults(text)  # (a refusal says it better)
        if known:  # not read, but a reported fault in it is: a finding; a failure also says why the reader found nothing
            unread = [] if any(f.level == "fail" for f in known) else [Finding("info", str(err))]
            return Section(spec.name, seg.command, {}, tuple(known + unread), None, seg.host), None
        if not whole and seg.command and is_label_only(seg.lines):  # a command quoted inline, the next step's label under
            return _printed_nothing(spec, seg, words=True), None
        if not whole and seg.command and spec.reads_command and is_words(seg.lines):  # the command, then words
            return _command_alone(spec, seg), None
        if said:
            return Section(spec.name, seg.command, {}, said, None, seg.host), None
        return Section(spec.name, seg.command, {}, (), str(err) + paste_next(spec, seg, str(err)), seg.host), None
    except Exception as err:  # a parser bug: report it in this section only
        return Section(spec.name, seg.command, {}, (),
                       f"internal error while reading `{spec.name}` output ({type(err).__name__}: {err})",
                       seg.host), None
    facts, findings = spec.summarise(parsed, seg.command)
    findings = fold_repeats([f if len(f.message) <= MAX_SHOWN_CHARS else Finding(f.level, _shown(f.message))
                             for f in findings])
    known = _known_faults(text, [f.message for f in findings], any(f.level == "fail" for f in findings))
    if any(f.level in ("warn", "fail") for f in known):  # a fault the reader's patterns did not know: it saw one
        findings = [f for f in findings if not f.message.startswith(ALL_WELL)]
    findings += known
    findings += left_out(spec, seg) + [Finding("info", f"Not output, so not read: {x[:160]!r}") for x in set_aside]
    return Section(spec.name, seg.command, _plain(facts), tuple(findings), None, seg.host), parsed


def _command_alone(spec: KindSpec, seg: _Segment) -> Section:
    """A command whose output is not in the paste, of a kind whose judge reads its options (``reads_command``)."""
    facts, findings = spec.summarise(None, seg.command)
    return Section(spec.name, seg.command, _plain(facts), tuple(findings), None, seg.host)


def _printed_nothing(spec: KindSpec, seg: _Segment, words: bool = False) -> Section:
    """A command whose output is not in the paste: what that means for its kind, or for a command that changes state;
    ``words``: only a person's words follow it (a command quoted in a sentence), so its output was not pasted."""
    from ..judges.sequence import silent_change
    said = tuple(Finding("info", x) for x in ((
        "Its output is not in the paste (only words follow the command): paste what it printed to have it read."
        if words else spec.when_empty or silent_change(seg.command)),) if x)
    return Section(spec.name, seg.command, {}, said, None if said else "the command printed nothing", seg.host)


def _known_faults(text: str, shown: list[str] | None = None, reader_failed: bool = False) -> list[Finding]:
    """The reported faults of checks/diagnoses.toml in ``text``, less those a section's reader gave (``shown``); after
    a failure the reader found (which explains it best), only those said beside one (a crash after its cause)."""
    return [Finding(level, message) for level, message in known_faults(text, shown or (), reader_failed)]


def _begins(line: str, current: str | None) -> bool:
    """Whether ``line`` begins an output: of another kind than ``current``, or its kind's first line (any line, for a
    kind with none: ``ibdev2netdev``)."""
    kind = _kind_of_line(line, None) if len(line) <= MAX_KIND_LINE else None
    spec = _REGISTRY.get(kind) if kind else None
    return spec is not None and current not in spec.joins and (kind != current or spec.starts is None
                                                               or bool(spec.starts.search(line.strip())))


def _claimed(line: str) -> bool:
    """Whether some kind knows ``line`` as a line of its own (so it does not continue a wrapped line)."""
    return len(line) <= MAX_KIND_LINE and _kind_of_line(line, None) is not None


def _cross_check(items: list[tuple[Section, Any]], repeated: frozenset[int] = frozenset()) -> list[Section]:
    extra: dict[int, list[Finding]] = {}
    present = {s.kind for s, _ in items}
    for index, finding in (x for check, kinds in _CROSS_CHECKS if not kinds or kinds & present for x in check(items)):
        extra.setdefault(index, []).append(finding)
    out = [dataclasses.replace(s, findings=s.findings + tuple(extra[i])) if i in extra else s
           for i, (s, _) in enumerate(items)]
    if len(out) < 3:  # nothing to order: an output, a change, the output again
        return out
    from ..judges.sequence import earlier_states  # imported for a paste of several outputs only
    return earlier_states(out, repeated)
