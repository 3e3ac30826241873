"""Explain pasted command output: what it says about connecting two DGX Sparks.

``explain(text)`` splits a paste into sections (at shell prompts, and where the shape of
the output changes), recognises which command printed each one, parses it, and turns the
facts into findings a learner can act on: each names the problem and the fix.

The core (registry, splitting, ``explain``, ``to_jsonable``) knows no command. Each kind
of output is one ``KindSpec`` registered with ``register``: how to recognise it (by the
prompt's command, by its lines, by its JSON), how to parse it, and how to summarise it.
Later lessons add kinds (``rdma link``, nccl-tests, vLLM logs...) by registering more
specs, and paste-wide comparisons with ``register_cross_check``.

Sources quoted in messages are those of docs/research/procedure.md (§1, §2, §9) and
docs/research/figures.md §2.4.
"""

from __future__ import annotations

import dataclasses
import json
import re
import textwrap
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from .parsers import ParseError
from .parsers.common import (Chunk, command_argv, is_comment_line, is_noise_line, load_json_lenient, opens_json,
                             split_chunks)

LEVELS = ("ok", "warn", "fail", "info")


@dataclass(frozen=True)
class Finding:
    """One conclusion: ``level`` is ``ok``, ``warn``, ``fail`` or ``info``."""

    level: str
    message: str


@dataclass(frozen=True)
class Section:
    """One command's output in a paste, explained.

    ``kind`` is a registered kind name (None when not recognised); ``command`` the command
    from the prompt line, if any; ``facts`` what the parser read (JSON-serialisable);
    ``findings`` what it means; ``error`` why the output could not be read (then facts
    and findings are empty); ``host`` the host named in the prompt, if any.
    """

    kind: str | None
    command: str | None
    facts: dict[str, Any]
    findings: tuple[Finding, ...]
    error: str | None
    host: str | None = None


# --------------------------------------------------------------------------- registry

Summary = tuple[dict[str, Any], list[Finding]]


@dataclass(frozen=True)
class KindSpec:
    """How to recognise, parse and summarise one kind of command output.

    ``parse(text)`` returns the parsed value or raises ParseError; ``summarise(parsed,
    command)`` returns ``(facts, findings)``. ``programs`` are the program names that
    print it (``ip``); ``matches_command(argv)`` says whether a prompt's command prints
    it; ``line`` matches lines that clearly belong to it; ``starts`` matches a line that
    begins a new output of it (``PING ...``); ``matches_json(value)`` recognises its JSON;
    ``block_start`` matches the first line of a block format (YAML) that runs to the end;
    ``header`` matches comment lines that open its output (nccl-tests prints its whole header
    as ``#`` lines): such lines just before an output make this kind the preferred one for it.
    """

    name: str
    parse: Callable[[str], Any]
    summarise: Callable[[Any, str | None], Summary]
    programs: tuple[str, ...] = ()
    matches_command: Callable[[list[str]], bool] = lambda argv: False
    line: re.Pattern[str] | None = None
    starts: re.Pattern[str] | None = None
    matches_json: Callable[[Any], bool] | None = None
    block_start: re.Pattern[str] | None = None
    header: re.Pattern[str] | None = None


# A cross check reads every (Section, parsed value) of a paste and returns
# (index of the section to attach to, Finding) pairs.
CrossCheck = Callable[[list[tuple[Section, Any]]], list[tuple[int, Finding]]]

_REGISTRY: dict[str, KindSpec] = {}
_CROSS_CHECKS: list[CrossCheck] = []
KINDS: tuple[str, ...] = ()


def register(spec: KindSpec) -> KindSpec:
    """Add (or replace) a kind; detection tries kinds in registration order."""
    global KINDS
    _REGISTRY[spec.name] = spec
    KINDS = tuple(_REGISTRY)
    return spec


def register_cross_check(check: CrossCheck) -> CrossCheck:
    """Add a check that compares sections of one paste (e.g. the two Sparks' outputs)."""
    _CROSS_CHECKS.append(check)
    return check


def registered_kinds() -> tuple[str, ...]:
    """The kind names known now (KINDS, plus any registered after import)."""
    return tuple(_REGISTRY)


# --------------------------------------------------------------------------- splitting

@dataclass
class _Segment:
    kind: str | None
    command: str | None
    host: str | None
    lines: list[str] = field(default_factory=list)
    linenos: list[int] = field(default_factory=list)  # paste line number of each line
    prompt_lineno: int | None = None

    def content(self) -> list[str]:
        return [x for x in self.lines if not is_noise_line(x)]


_NOT_FOUND_RE = re.compile(r"(?:^|:\s)([\w.+-]+): (?:command )?not found\s*$|^Command '([\w.+-]+)' not found")


def _kind_of_command(argv: list[str]) -> str | None:
    return next((s.name for s in _REGISTRY.values() if argv and s.matches_command(argv)), None)


def _kind_of_line(line: str, prefer: str | None) -> str | None:
    s = line.strip()
    m = _NOT_FOUND_RE.search(s)
    if m:
        prog = m.group(1) or m.group(2)
        return next((k.name for k in _REGISTRY.values() if prog in k.programs), prefer)
    specs = list(_REGISTRY.values())
    if prefer in _REGISTRY:
        specs.insert(0, _REGISTRY[prefer])
    return next((k.name for k in specs if k.line is not None and k.line.search(s)), None)


def _kind_of_json(lines: list[str], prefer: str | None) -> tuple[str | None, int]:
    """The kind of the JSON value starting at lines[0], and how many lines it spans."""
    text = "\n".join(lines)
    body = text.lstrip()
    offset = len(text) - len(body)
    try:
        value, end = json.JSONDecoder().raw_decode(body)
        used = text[: offset + end].count("\n") + 1
    except ValueError:
        try:
            value, _ = load_json_lenient(body, "json")
        except ParseError:
            return prefer, len(lines)
        used = len(lines)
    kind = next((k.name for k in _REGISTRY.values()
                 if k.matches_json is not None and k.matches_json(value)), prefer)
    if isinstance(value, dict) and ("event" in value or {"metadata", "metrics"} <= value.keys()):
        # iperf3 --json-stream and AIPerf's profile_export.jsonl: one JSON value per line, one output
        while used < len(lines) and lines[used].lstrip().startswith("{"):
            used += 1
    return kind, used


def _trailing_claimed(kind: str | None, noise: list[str]) -> int:
    """How many of the noise lines after a segment of ``kind`` stay with it: those its ``line``
    pattern claims (nccl-tests ends with ``# Avg bus bandwidth`` comment lines), with blank lines
    and chatter between them, up to the first comment it does not claim. Other noise goes to the
    next output."""
    spec = _REGISTRY.get(kind) if kind else None
    if spec is None or spec.line is None:
        return 0
    keep = count = 0
    for line in noise:
        s = line.strip()
        claimed = bool(s) and bool(spec.line.search(s))
        if s and not claimed and is_comment_line(s):
            break
        count += 1  # blanks and chatter (X11 noise, fences) are neutral
        if claimed:
            keep = count
    return keep


def _segments(chunk: Chunk) -> list[_Segment]:
    """Split one prompt's output where the kind of output changes."""
    cmd_kind = _kind_of_command(command_argv(chunk.command))
    segs = [_Segment(None, chunk.command, chunk.host,
                     prompt_lineno=chunk.first_lineno if chunk.prompt_line is not None else None)]
    pending: list[int] = []  # indexes of noise lines waiting for the next content line
    lines = list(chunk.lines)
    numbers = list(chunk.linenos) or list(range(1, len(lines) + 1))
    i = 0
    while i < len(lines):
        line = lines[i]
        cur = segs[-1]
        if is_noise_line(line):
            pending.append(i)
            i += 1
            continue
        block = next((k for k in _REGISTRY.values() if k.block_start and k.block_start.match(line)), None)
        whole = True  # a JSON value or a YAML file is one output on its own
        if block is not None or (cmd_kind and _REGISTRY[cmd_kind].block_start and not cur.content()):
            kind, used = (block.name if block else cmd_kind), len(lines) - i
        elif opens_json(line):
            kind, used = _kind_of_json(lines[i:], cmd_kind if not cur.content() else None)
            by_line = _kind_of_line(line, cur.kind or cmd_kind) if kind is None else None
            if by_line is not None:  # no JSON any kind reads, but a line one claims (`ray status`'s {'GPU': 1.0} ...)
                whole, used, kind = False, 1, by_line
        else:
            whole, used = False, 1
            hint = next((k.name for j in pending for k in _REGISTRY.values()
                         if k.header is not None and k.header.search(lines[j].strip())), None)
            kind = _kind_of_line(line, cur.kind or cmd_kind or hint) or cur.kind  # unclaimed lines continue
        spec = _REGISTRY.get(kind) if kind else None
        restarts = kind == cur.kind and spec is not None and spec.starts is not None \
            and bool(spec.starts.search(line.strip()))
        if cur.content() and (kind != cur.kind or restarts or whole):
            keep = _trailing_claimed(cur.kind, [lines[j] for j in pending])
            cur.lines += [lines[j] for j in pending[:keep]]
            cur.linenos += [numbers[j] for j in pending[:keep]]
            pending = pending[keep:]
            cur = _Segment(kind, None, chunk.host)
            segs.append(cur)
        cur.kind = cur.kind or kind
        take = pending + list(range(i, i + used))
        cur.lines += [lines[j] for j in take]
        cur.linenos += [numbers[j] for j in take]
        pending = []
        i += used
    segs[-1].lines += [lines[j] for j in pending]
    segs[-1].linenos += [numbers[j] for j in pending]
    if segs[0].kind is None and cmd_kind:
        segs[0].kind = cmd_kind
    return [s for s in segs if s.lines or s.command]


# --------------------------------------------------------------------------- explain

def detect_kind(text: str) -> str | None:
    """The kind of the first recognised output in ``text``, or None. Never raises."""
    try:
        for chunk in split_chunks(text):
            for seg in _segments(chunk):
                if seg.kind and seg.content():
                    return seg.kind
    except Exception:  # detection must not fail on odd input
        return None
    return None


def explain(text: str, kind: str | None = None) -> list[Section]:
    """Explain a paste of one or more command outputs; one Section per output found.

    ``kind`` forces one kind for the whole text (one Section). Unknown text gives a
    Section with kind None and an error listing the known kinds. Never raises for bad
    input: unreadable output becomes a Section with ``error`` set.
    """
    try:
        if not isinstance(text, str) or not text.strip():
            return [Section(None, None, {}, (), "nothing to explain: the text is empty")]
        if kind is not None:
            return _explain_as(text, kind)
        items: list[tuple[Section, Any]] = []
        for chunk in split_chunks(text):
            for seg in _segments(chunk):
                if not seg.content() and not seg.kind:
                    continue
                items.append(_run(seg))
        if not items:
            return [Section(None, None, {}, (), "nothing to explain: only prompts and comments")]
        return _cross_check(items)
    except Exception as err:  # a bug must not hide the learner's output
        return [Section(None, None, {}, (), f"explain failed unexpectedly ({type(err).__name__}: "
                        f"{err}); this is a grader bug, please report it with the pasted text")]


def _explain_as(text: str, kind: str) -> list[Section]:
    if kind not in _REGISTRY:
        return [Section(None, None, {}, (), f"unknown kind {kind!r}; known kinds: {', '.join(_REGISTRY)}")]
    chunks = [c for c in split_chunks(text) if c.command or c.has_content()]
    first = chunks[0] if chunks else None
    seg = _Segment(kind, first.command if first else None, first.host if first else None,
                   text.splitlines())
    return _cross_check([_run(seg, whole=True)])


def _run(seg: _Segment, whole: bool = False) -> tuple[Section, Any]:
    if seg.kind is None:
        first = seg.content()[0].strip() if seg.content() else ""
        return Section(None, seg.command, {}, (),
                       f"could not tell which command printed this (first line {first[:80]!r}); "
                       f"known kinds: {', '.join(_REGISTRY)}; name one with --kind", seg.host), None
    spec = _REGISTRY[seg.kind]
    text = "\n".join(seg.lines)
    numbers = list(seg.linenos)
    if not whole and seg.command is not None:
        text = f"$ {seg.command}\n{text}"
        numbers.insert(0, seg.prompt_lineno or 0)
    if not seg.content() and not whole:
        return Section(spec.name, seg.command, {}, (), "the command printed nothing", seg.host), None
    try:
        parsed = spec.parse(text)
    except ParseError as err:
        if not whole and err.lineno is not None and 0 < err.lineno <= len(numbers):
            err = ParseError(err.command, err.message, err.line, numbers[err.lineno - 1] or None)
        return Section(spec.name, seg.command, {}, (), str(err), seg.host), None
    except Exception as err:  # a parser bug: report it in this section only
        return Section(spec.name, seg.command, {}, (),
                       f"internal error while reading `{spec.name}` output ({type(err).__name__}: {err})",
                       seg.host), None
    facts, findings = spec.summarise(parsed, seg.command)
    return Section(spec.name, seg.command, _plain(facts), tuple(findings), None, seg.host), parsed


def _cross_check(items: list[tuple[Section, Any]]) -> list[Section]:
    extra: dict[int, list[Finding]] = {}
    for check in _CROSS_CHECKS:
        for index, finding in check(items):
            extra.setdefault(index, []).append(finding)
    return [dataclasses.replace(s, findings=s.findings + tuple(extra.get(i, ())))
            for i, (s, _) in enumerate(items)]


def _plain(value: Any) -> Any:
    """Dataclasses, tuples and sets to plain JSON types."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_plain(v) for v in value]
    return value


def to_jsonable(sections: Iterable[Section]) -> list[dict[str, Any]]:
    """Sections as plain dicts/lists/str/numbers/None, for ``explain --json``."""
    return [{"kind": s.kind, "command": s.command, "host": s.host, "facts": _plain(s.facts),
             "findings": [{"level": f.level, "message": f.message} for f in s.findings],
             "error": s.error} for s in sections]


_MARKS = {"ok": ("ok", "32"), "warn": ("warn", "33"), "fail": ("FAIL", "31"), "info": ("info", "36"),
          "error": ("ERROR", "31")}


def render(sections: Iterable[Section], colour: bool = False, width: int = 100) -> str:
    """Sections as terminal text: a header per section, then one wrapped line per finding.

    ``colour`` adds ANSI colours to the level marks. Returns the text (no trailing newline).
    """
    def mark(level: str) -> str:
        word, code = _MARKS.get(level, (level, "0"))
        padded = f"{word:<5}"
        return f"\x1b[{code}m{padded}\x1b[0m" if colour else padded

    out: list[str] = []
    for s in sections:
        head = f"[{s.kind or 'unknown'}]"
        if s.command:
            head += f" $ {s.command}"
        if s.host:
            head += f"   (on {s.host})"
        out.append(head)
        rows = [("error", s.error)] if s.error else [(f.level, f.message) for f in s.findings]
        for level, message in rows:
            lines = textwrap.wrap(message, width=max(40, width - 8)) or [""]
            out.append(f"  {mark(level)} {lines[0]}")
            out += [f"        {line}" for line in lines[1:]]
        if not rows:
            out.append("  (nothing to remark)")
        out.append("")
    return "\n".join(out).rstrip("\n")


# The lesson-1 kinds register themselves on import; later lessons add modules like it.
from . import explain_lesson1  # noqa: E402,F401  (import for its registrations)
from . import explain_lesson3  # noqa: E402,F401  (lesson 3: nvidia-smi, lspci)
from . import explain_lesson2  # noqa: E402,F401  (lesson 2a: RoCE, NCCL)
from . import explain_serving  # noqa: E402,F401  (lesson 2b: Ray, vLLM)
from . import explain_lab  # noqa: E402,F401  (the lab: vllm bench serve, AIPerf)
