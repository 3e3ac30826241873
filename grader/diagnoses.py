"""What an error in a vLLM, Ray or NCCL log means, and its fix: the judgment, read from a table.

The parser (:mod:`grader.parsers.vllm_log`) only names what a log says: events with a kind and
their numbers. What each one means, its fix and its source are data in ``checks/diagnoses.toml``
(its header documents the fields); :func:`diagnose` reads that table, the one place both
``clusterlab explain`` and lesson 2b's launch checks take a log's meaning from. Adding a fault is
one entry there and one test input (tests/test_diagnoses.py); Python only holds the few conditions a
table cannot say (:data:`LOG_FLAGS`, :data:`DETAILS`, in :mod:`grader.diagnosis_details`), never words or figures.
"""

from __future__ import annotations

import contextlib
import contextvars
import marshal
import os
import re
import string
import sys
import zlib
from dataclasses import dataclass, fields
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from grader.parsers.common.anyof import ONE_PASS_CHARS, required_texts, texts_in
from grader.parsers.common.chunks import QUOTE_MARKS, RESOLVED_WORDS, drop_resolved
from grader.ranges import CatalogueError
from grader.diagnosis_details import DETAILS, LOG_FLAGS  # what the table cannot say (re-exported)
from grader.judges.context import spark_wording

if TYPE_CHECKING:
    from grader.parsers.vllm_log import LogEvent, VllmLog

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

__all__ = ["DETAILS", "LOG_FLAGS", "Diagnosis", "Entry", "diagnose", "diagnose_entries", "diagnose_text", "known_faults",
           "load_table", "parse_table"]

TABLE = "diagnoses.toml"
"""The table's file name in ``checks/``."""
SEVERITIES = ("fail", "warn", "info")
MAX_QUOTED = 320
"""The most characters of a log line a text quotes (``{message}``, ``{line}``)."""


@dataclass(frozen=True)
class Diagnosis:
    """What a log means: ``kind`` (an event kind, or ``not-ready``...), ``message`` (what happened,
    with the log's numbers), ``fix`` (what to do), ``severity`` (``fail``, ``warn``, ``info``: how
    the explain finding is levelled). ``source`` is the table's source for the kind."""

    kind: str
    message: str
    fix: str
    severity: str = "fail"

    @property
    def source(self) -> str:
        """Where the diagnosis comes from (the first table entry of this kind), "" if none."""
        return next((e.source for e in load_table() if e.kind == self.kind), "")




# --------------------------------------------------------------------------- the table

_SECTION_RE = re.compile(r"\[\?([^\]]*)\]")
_FIELDS = frozenset({"id", "kind", "event", "pattern", "requires", "when", "unless_events", "with_events",
                     "unless_failed", "detail", "severity", "meaning", "fix", "source", "like", "beside_failure"})
_TEXTS = ("meaning", "fix", "source")
"""What an entry with ``like = "<id>"`` takes from that entry when it does not give them itself."""
_FORMATTER = string.Formatter()


class _Asked:
    """Within :func:`one_text_gated`: the text gates were last asked about (``text``), what each gate said of it
    (``said``), the one pass's answer (``found``: the texts asked, those found; see Entry.may_match) and the text as
    case-blind gates read it (``folded``, _ascii_folded)."""

    def __init__(self) -> None:
        self.begin(None)

    def begin(self, text: str | None) -> None:
        """Forget what was learnt of the text before: ``text`` is asked about now."""
        self.text, self.said, self.found, self.folded = text, {}, None, None


_SEEN: contextvars.ContextVar[_Asked | None] = contextvars.ContextVar("diagnoses_seen", default=None)


@contextlib.contextmanager
def one_text_gated() -> Iterator[None]:
    """Within it, each gate (:meth:`Entry.may_match`) is asked once about a text: explain reads one output's text
    with a reader's diagnoses (a vLLM log's) and then with :func:`known_faults`, each asking every entry's gate.
    Nothing is kept after it."""
    token = _SEEN.set(_Asked())
    try:
        yield
    finally:
        _SEEN.reset(token)


@lru_cache(maxsize=1)
def _gate_texts() -> frozenset[str]:
    """The texts of the table's gates searched as they are (those of a pattern that ignores case are not)."""
    return frozenset(t for e in load_table() if not e.gate_blind for t in e.gate)


def _texts_in(text: str, texts: frozenset[str]) -> frozenset[str]:
    """Which of ``texts`` are in ``text`` (anyof.texts_in: one pass over it). A text whose lines mostly repeat but for
    their digits (a log's clock times, ids, counters) is passed over as its distinct lines with every digit read as 0
    (:func:`_line_shapes`), a fraction of it: a text without a line break is in ``text`` only where its shape is in one
    of those, and is exactly then when it holds no digit (its characters are then the line's own); one that holds a
    digit or a line break is looked for in ``text`` itself."""
    shapes = _line_shapes(text)
    if shapes is None:
        return texts_in(text, texts)
    shape = {t: t.translate(_ZERO_DIGITS) for t in texts if "\n" not in t}
    found = texts_in(shapes, frozenset(shape.values()))

    def holds(t: str) -> bool:
        if t not in shape:  # a line break in it: looked for as it is
            return t in text
        return shape[t] in found and ("0" not in shape[t] or t in text)  # (a 0 in it: a digit of the text)

    return frozenset(filter(holds, texts))


_ZERO_DIGITS = str.maketrans("123456789", "000000000")
_ZERO_DIGIT_BYTES = bytes.maketrans(b"123456789", b"000000000")


def _line_shapes(text: str) -> str | None:
    """The distinct lines of ``text``, every ASCII digit read as 0, joined by line breaks (in no order), when they are
    at most half its lines; else None. (As UTF-8 bytes: 5 MB and its lines are read so in a few milliseconds.)"""
    lines = text.encode("utf-8", "surrogatepass").translate(_ZERO_DIGIT_BYTES).split(b"\n")
    distinct = set(lines)
    return b"\n".join(distinct).decode("utf-8", "surrogatepass") if len(distinct) * 2 <= len(lines) else None


_FOLDED_TO_ASCII = {"\u0130": "i", "\u0131": "i", "\u212a": "k", "\u017f": "s"}
"""The characters beyond ASCII that re's case-blind matching finds for an ASCII one (İ and ı for i, the Kelvin sign for
k, ſ for s); it finds none for any other ASCII character (every code point checked)."""


def _ascii_folded(text: str) -> bytes:
    """``text`` as re's case-blind matching sees it for ASCII texts: the characters of _FOLDED_TO_ASCII as their ASCII
    letter, the others beyond ASCII dropped, lowered (a few copies of the text, each a few milliseconds for 5 MB)."""
    for char, letter in _FOLDED_TO_ASCII.items():
        if char in text:
            text = text.replace(char, letter)
    return text.encode("ascii", "ignore").lower()


@dataclass(frozen=True)
class Entry:
    """One ``[[diagnosis]]`` of the table (fields as in its header)."""

    id: str
    kind: str
    events: tuple[str, ...]
    regex: str | None  # the pattern's text (:attr:`pattern` compiles it)
    requires: tuple[str, ...]
    when: tuple[tuple[str, bool], ...]
    unless_events: tuple[str, ...]
    unless_failed: bool
    detail: str | None
    severity: str
    meaning: str
    fix: str
    source: str
    gate: tuple[str, ...] = ()  # texts one of which every match of ``pattern`` holds (see _gate); () when none told
    beside_failure: bool = False  # said even where a section's own reader found a failure (a crash beside its cause)
    gate_blind: bool = False  # the pattern ignores case and has a gate: its texts are looked for ignoring case too
    with_events: tuple[str, ...] = ()  # event kinds that must all be in the log for the entry to apply

    @cached_property
    def pattern(self) -> re.Pattern[str] | None:
        """The entry's pattern, compiled when first used (most entries' gates rule most texts out)."""
        return None if self.regex is None else re.compile(self.regex, re.MULTILINE)

    @cached_property
    def gate_re(self) -> re.Pattern[str] | None:
        """For a pattern that ignores case, its gate's texts as one search that ignores case the same way (re's own
        case folding: see _may_match for texts of ASCII characters); else None."""
        return re.compile("|".join(map(re.escape, self.gate)), re.IGNORECASE) if self.gate_blind else None

    def may_match(self, text: str) -> bool:
        """False only when ``pattern`` cannot find a match in ``text``: none of :attr:`gate`'s texts is in it (a
        few substring tests, a fraction of one search of the pattern over a multi-megabyte log; asked once per text
        and gate within :func:`one_text_gated`)."""
        seen = _SEEN.get()
        if seen is None:
            return self._may_match(text)
        if seen.text is not text:
            seen.begin(text)
        key = (self.gate, self.gate_blind)
        if key not in seen.said:
            if self.gate and not self.gate_blind and len(text) >= ONE_PASS_CHARS:  # all the table's texts at once
                seen.found = seen.found or (texts := _gate_texts(), _texts_in(text, texts))
                asked, found = seen.found
                seen.said[key] = not found.isdisjoint(self.gate) if asked.issuperset(self.gate) else self._may_match(text)
            else:
                seen.said[key] = self._may_match(text, seen)
        return seen.said[key]

    def _may_match(self, text: str, seen: _Asked | None = None) -> bool:
        if not self.gate_blind:
            return not self.gate or any(t in text for t in self.gate)
        if not all(t.isascii() for t in self.gate):
            return self.gate_re.search(text) is not None
        # an ASCII text is matched ignoring case by the same characters in either case and those of _FOLDED_TO_ASCII
        # only, so the texts are looked for in the text so folded (once per text within one_text_gated): a fraction of
        # the case-blind search's cost (characters around one dropped may join: a yes may be wrong, as a gate's may)
        if seen is None:
            folded = _ascii_folded(text)
        else:
            folded = seen.folded = _ascii_folded(text) if seen.folded is None else seen.folded
        return any(t.lower().encode() in folded for t in self.gate)

    @property
    def reads_text(self) -> bool:
        """A known error line: a pattern over the text, needing no parsed event and nothing of a vLLM log
        (no ``event``, ``when`` or ``unless_events``). :func:`diagnose_text` reads any paste with these."""
        return self.regex is not None and not self.events and not self.when and not self.unless_events \
            and not self.with_events


def _names(template: str) -> list[str]:
    """The value names in a text without sections; raises ValueError on a malformed one."""
    names = []
    for _, name, spec, conv in _FORMATTER.parse(template):
        if name is None:
            continue
        if not name.isidentifier() or spec or conv:
            raise ValueError(f"{{{name}}}: a value is written {{name}}, with no format or attribute")
        names.append(name)
    return names


def _check_text(template: str) -> None:
    rest = _SECTION_RE.sub("", template)
    if "[?" in rest:
        raise ValueError("a [?...] section is not closed, or holds a `]`")
    _names(rest)
    for m in _SECTION_RE.finditer(template):
        for alt in m.group(1).split("||"):
            _names(alt)


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise CatalogueError(f"{where}: expected a string or a list of strings, got {value!r}")


def parse_table(text: str, name: str = f"checks/{TABLE}") -> tuple[Entry, ...]:
    """The entries of a diagnosis table given as TOML text, validated. Raises CatalogueError naming
    the entry and what is wrong (a missing meaning, fix or source, an unknown event kind, flag,
    detail or field, a duplicate id, a pattern that does not compile, a malformed text)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise CatalogueError(f"{name}: not valid TOML: {e}") from None
    extra = set(data) - {"diagnosis"}
    if extra:
        raise CatalogueError(f"{name}: only [[diagnosis]] entries belong here, not {sorted(extra)}")
    entries: list[Entry] = []
    seen: set[str] = set()
    from grader.parsers.vllm_events import EVENT_KINDS  # the event names alone (the log's parser: its reader's)

    rows = data.get("diagnosis", [])
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise CatalogueError(f"{name}: each diagnosis is a [[diagnosis]] table")
    by_id = {r.get("id"): r for r in rows}
    for i, raw in enumerate(rows):
        where = f"{name}: [[diagnosis]] #{i + 1} ({raw.get('id', 'no id')})"
        unknown = set(raw) - _FIELDS
        if unknown:
            raise CatalogueError(f"{where}: unknown field(s) {sorted(unknown)}; the fields are listed at the top "
                                 "of the file")
        if "like" in raw:
            model = by_id.get(raw["like"]) if isinstance(raw["like"], str) else None
            if model is None or "like" in model:
                raise CatalogueError(f"{where}: `like = {raw['like']!r}` names no entry that gives its texts itself")
            raw = {**{k: model[k] for k in _TEXTS if k in model}, **raw}
        for key in ("id", "meaning", "fix", "source"):
            if not isinstance(raw.get(key), str) or not raw[key].strip():
                raise CatalogueError(f"{where}: needs a non-empty `{key}`: every diagnosis says what it means, "
                                     "its fix and its source")
        if raw["id"] in seen:
            raise CatalogueError(f"{where}: the id is used twice")
        seen.add(raw["id"])
        events = _strings(raw["event"], where) if "event" in raw else ()
        unless, also = _strings(raw.get("unless_events", []), where), _strings(raw.get("with_events", []), where)
        for kind in events + unless + also:
            if kind not in EVENT_KINDS:
                raise CatalogueError(f"{where}: {kind!r} is not an event kind the parser reports "
                                     f"(grader.parsers.vllm_log.EVENT_KINDS)")
        when = raw.get("when", {})
        if not isinstance(when, dict) or any(k not in LOG_FLAGS or not isinstance(v, bool) for k, v in when.items()):
            raise CatalogueError(f"{where}: `when` takes true/false for {sorted(LOG_FLAGS)}, got {when!r}")
        detail = raw.get("detail")
        if detail is not None and detail not in DETAILS:
            raise CatalogueError(f"{where}: no detail function {detail!r} (known: {sorted(DETAILS)})")
        severity = raw.get("severity", "fail")
        if severity not in SEVERITIES:
            raise CatalogueError(f"{where}: severity {severity!r} is not one of {SEVERITIES}")
        try:
            pattern = re.compile(raw["pattern"], re.MULTILINE) if "pattern" in raw else None
        except (re.error, TypeError) as e:
            raise CatalogueError(f"{where}: the pattern does not compile: {e}") from None
        for key in ("meaning", "fix"):
            try:
                _check_text(raw[key])
            except ValueError as e:
                raise CatalogueError(f"{where}: `{key}`: {e}") from None
        for flag in ("unless_failed", "beside_failure"):
            if not isinstance(raw.get(flag, False), bool):
                raise CatalogueError(f"{where}: `{flag}` is true or false")
        entries.append(Entry(
            id=raw["id"], kind=raw.get("kind", raw["id"]), events=events, regex=raw.get("pattern"),
            requires=_strings(raw.get("requires", []), where), when=tuple(when.items()), unless_events=unless,
            unless_failed=raw.get("unless_failed", False), detail=detail, severity=severity,
            meaning=raw["meaning"].strip(), fix=raw["fix"].strip(), source=raw["source"].strip(),
            gate=(gate := _gate(pattern)), gate_blind=bool(gate) and bool(pattern.flags & re.IGNORECASE),
            beside_failure=raw.get("beside_failure", False), with_events=also))
    if not entries:
        raise CatalogueError(f"{name}: no [[diagnosis]] entry")
    return tuple(entries)


def _gate(pattern: re.Pattern[str] | None) -> tuple[str, ...]:
    """The texts one of which every match of ``pattern`` holds (:func:`grader.parsers.common.anyof.required_texts`),
    so an entry is searched only in a text holding one; () when none can be told, or when a flag other than
    MULTILINE and IGNORECASE changes what the pattern's literal characters match (VERBOSE...)."""
    if pattern is None or pattern.flags & ~(re.MULTILINE | re.UNICODE | re.IGNORECASE):
        return ()
    return tuple(sorted(required_texts(pattern.pattern) or ()))


_MADE_BY = ("diagnoses.py", "diagnosis_details.py", "diagnosis_runs.py", "parsers/vllm_events.py",
            "parsers/common/anyof.py")
"""The code (in grader/) that reads the table into entries: checks each and finds its gate."""


@lru_cache(maxsize=None)
def load_table() -> tuple[Entry, ...]:
    """The entries of ``checks/diagnoses.toml``, in order. Raises CatalogueError.

    Reading the table (its TOML, each entry checked, its pattern compiled, its gate found) costs about as much as
    explaining a short paste, so the entries are kept in ``checks/__pycache__``, as Python keeps a module's bytecode,
    and read from there while the table's text and the code that reads it (:data:`_MADE_BY`) are those they were read
    with; a pattern is then compiled when first used. Where the cache cannot be kept, the table is read each time.
    """
    return _read_kept(resources.files("checks").joinpath(TABLE))


def _read_kept(table: Any) -> tuple[Entry, ...]:
    """The entries of ``table`` (a file, or importlib.resources' Traversable), read from their cache (see load_table)
    where it holds, else read and kept there."""
    text = table.read_text(encoding="utf-8")
    cache, made_from = _cache(table, text)
    if cache is not None:
        with contextlib.suppress(OSError, ValueError, EOFError, TypeError):  # none yet, or not one this code wrote
            made, rows = marshal.loads(cache.read_bytes())
            if made == made_from:
                return tuple(Entry(*row) for row in rows)
    entries = parse_table(text)
    if cache is not None:
        with contextlib.suppress(OSError):
            cache.parent.mkdir(exist_ok=True)
            part = cache.with_name(f"{cache.name}.{os.getpid()}")
            part.write_bytes(marshal.dumps((made_from, [tuple(getattr(e, f.name) for f in fields(Entry))
                                                        for e in entries])))
            os.replace(part, cache)  # whole or not at all: another process may be reading it
    return entries


def _cache(table: Any, text: str) -> tuple[Path | None, tuple]:
    """Where load_table keeps the entries of ``table`` (None where it is no file, in a zip), and what they are made
    from: the Python, the table's text (its length and CRC-32), and the time and size of each file of _MADE_BY."""
    try:
        code = tuple((s.st_mtime_ns, s.st_size) for s in (os.stat(Path(__file__).parent / n) for n in _MADE_BY))
    except OSError:
        return None, ()
    data = text.encode("utf-8", "surrogatepass")
    where = Path(str(table)).parent / "__pycache__" / f"{TABLE}.{sys.implementation.cache_tag}.entries"
    return (where if isinstance(table, Path) else None), (sys.version, len(data), zlib.crc32(data), code)


# --------------------------------------------------------------------------- reading a log with it

class _Values(dict):
    """The values of a text; a missing one reads ``?`` (an optional one is in a [?...] section)."""

    def __missing__(self, key: str) -> str:
        return "?"


def _fill(template: str, values: _Values) -> str:
    return _FORMATTER.vformat(template, (), values)


def _render(template: str, values: _Values) -> str:
    """A text with its values: each [?A||B] section becomes its first alternative whose values are
    all present, or nothing. Each part is filled once, so braces in a value stay as they are."""
    out, at = [], 0
    for m in _SECTION_RE.finditer(template):
        out.append(_fill(template[at:m.start()], values))
        for alt in m.group(1).split("||"):
            if all(name in values for name in _names(alt)):
                out.append(_fill(alt, values))
                break
        at = m.end()
    out.append(_fill(template[at:], values))
    return "".join(out)


def _line_around(text: str, start: int, end: int) -> str:
    a = text.rfind("\n", 0, start) + 1
    b = text.find("\n", end)
    return text[a:b if b >= 0 else len(text)].strip()[:MAX_QUOTED]


def _event_for(entry: Entry, log: VllmLog) -> tuple[LogEvent, re.Match[str] | None] | None:
    for event in log.events:
        if event.kind in entry.events:
            if entry.regex is None:
                return event, None
            m = entry.pattern.search(event.message)
            if m:
                return event, m
    return None


_SPECS_RE = re.compile(r"specs=\[(?P<specs>[^\]]*)\]")
_REQUIRING_RE = re.compile(r"requiring (?P<gpus>\d+(?:\.\d+)?) GPUs")


def _bundles(message: str) -> dict[str, Any]:
    """How many GPUs a placement-group line asks for: ``requiring 4.0 GPUs``, else the bundles of its
    ``specs=[{...}, {...}]`` (one GPU each, as vLLM's Ray executor asks)."""
    m = _REQUIRING_RE.search(message)
    if m:
        return {"gpus_asked": f"{float(m.group('gpus')):g}"}
    m = _SPECS_RE.search(message)
    return {"gpus_asked": str(m.group("specs").count("{"))} if m and "{" in m.group("specs") else {}


def _values(entry: Entry, log: VllmLog | None, text: str) -> _Values | None:
    """What the entry's texts may say about this log (or, with ``log`` None, this plain text), or None
    when the entry does not match it."""
    values: dict[str, Any] = {}
    if spark_wording():  # texts word their advice for a Spark pair unless the host is said or seen to be another
        values["on_spark"] = ""
    if log is not None and log.parallel.sources:  # the layout only where the log states it (not a default of 1)
        par = log.parallel
        values.update(world_size=par.world_size, tp_size=par.tensor_parallel_size or 1,
                      pp_size=par.pipeline_parallel_size or 1)
    match = None
    if entry.events:
        if log is None:
            return None
        found = _event_for(entry, log)
        if found is None:
            return None
        event, match = found
        values.update(message=event.message[:MAX_QUOTED], ip=event.source.ip, count=event.count)
        values.update(_bundles(event.message))
        values.update(event.numbers)
    elif entry.regex is not None:
        match = entry.pattern.search(text) if entry.may_match(text) else None
        if match is None:
            return None
        values["line"] = _line_around(text, match.start(), match.end())
    if match is not None:
        values.update(match.groupdict())
    values = {k: v for k, v in values.items() if v is not None}
    if entry.detail is not None:
        more = DETAILS[entry.detail](log, values, text)
        if more is None:
            return None
        values.update((k, v) for k, v in more.items() if v is not None)
        if isinstance(more.get("line"), str):  # (a detail that quotes another line than the match's)
            values["line"] = more["line"][:MAX_QUOTED]
    if any(name not in values for name in entry.requires):
        return None
    return _Values(values)


def _unresolved(text: str) -> str:
    """``text`` less a poster's caption that quotes an error it says is gone (`the earlier "CUDA error: ..." is gone;
    full log below`): the clause of a line with a quote mark that says fixed, gone or resolved (chunks.drop_resolved:
    a new error in the same line stays)."""
    if not any(q in text for q in QUOTE_MARKS):
        return text
    spans: set[tuple[int, int]] = set()  # (a 5 MB log: the lines holding one of the words, found without the pattern
    #   over it all, nor a lower-case copy of it, 10 MB or more where it holds a character beyond Latin-1)
    for word in {v for w in RESOLVED_WORDS for v in (w, w.capitalize(), w.title(), w.upper())}:
        at = text.find(word)
        while at >= 0 and len(spans) <= _RESOLVED_LINES:
            start, end = text.rfind("\n", 0, at) + 1, text.find("\n", at)
            spans.add((start, len(text) if end < 0 else end))
            at = text.find(word, len(text) if end < 0 else end)
    if len(spans) <= _RESOLVED_LINES and all(drop_resolved(text[a:b]) == text[a:b] for a, b in spans):
        return text  # (no line says so: the text as it is, not split and joined again)
    return "\n".join(drop_resolved(x) for x in text.split("\n"))


_RESOLVED_LINES = 2000
"""Lines holding one of RESOLVED_WORDS that :func:`_unresolved` asks one by one; beyond, it reads every line."""


def diagnose_entries(log: VllmLog, table: tuple[Entry, ...] | None = None) -> list[tuple[Entry, Diagnosis]]:
    """:func:`diagnose`, with the table entry each diagnosis came from."""
    entries = load_table() if table is None else table
    kinds = {e.kind for e in log.events}
    flags: dict[str, bool] = {}
    out: list[tuple[Entry, Diagnosis]] = []
    given: set[str] = set()
    text = _unresolved(log.text)
    for entry in entries:
        if entry.kind in given or any(k in kinds for k in entry.unless_events) \
                or not all(k in kinds for k in entry.with_events):
            continue
        if entry.unless_failed and any(d.severity == "fail" for _, d in out):
            continue
        if any(flags.setdefault(name, LOG_FLAGS[name](log)) != want for name, want in entry.when):
            continue
        values = _values(entry, log, text)
        if values is None:
            continue
        out.append((entry, Diagnosis(entry.kind, _render(entry.meaning, values), _render(entry.fix, values),
                                     entry.severity)))
        given.add(entry.kind)
    return out


def diagnose(log: VllmLog, table: tuple[Entry, ...] | None = None) -> list[Diagnosis]:
    """Say what a launch's errors and warnings mean, most decisive first, by the table in
    ``checks/diagnoses.toml`` (or ``table``, e.g. from :func:`parse_table`): one diagnosis per kind,
    from the first entry of that kind that applies. Returns [] for a clean log. Raises only
    CatalogueError, for a malformed table."""
    return [d for _, d in diagnose_entries(log, table)]


def diagnose_text(text: str, skip: Iterable[str] = (), table: tuple[Entry, ...] | None = None,
                  beside_failure: bool = False) -> list[Diagnosis]:
    """The known error lines in any text (a dmesg, an ssh error, a netplan file, a traceback's tail, a
    ``ray status``), not only a vLLM log: the table's entries that read the text itself
    (:attr:`Entry.reads_text`), one diagnosis per kind, in the table's order. A diagnosis whose
    message is already part of one of ``skip`` (findings shown already) is left out; ``beside_failure``: only the
    entries said beside a failure a section's reader found (``beside_failure = true``). Returns [] when
    the text holds none. Linear in the text (per entry, a few substring tests for the texts its pattern
    needs, :attr:`Entry.gate`, and one search where one is there); raises only CatalogueError."""
    if not isinstance(text, str) or not text:
        return []
    entries = _text_entries() if table is None else tuple(e for e in table if e.reads_text)
    text = _unresolved(text)
    shown = [s for s in skip if isinstance(s, str)]
    out: list[Diagnosis] = []
    given: set[str] = set()
    failed = False
    for entry in entries:
        if entry.kind in given or (entry.unless_failed and failed) or (beside_failure and not entry.beside_failure) \
                or not entry.may_match(text):
            continue
        values = _values(entry, None, text)
        if values is None:
            continue
        given.add(entry.kind)
        failed = failed or entry.severity == "fail"
        d = Diagnosis(entry.kind, _render(entry.meaning, values), _render(entry.fix, values), entry.severity)
        if not any(d.message in s for s in shown):
            out.append(d)
    return out


@lru_cache(maxsize=None)
def _text_entries() -> tuple[Entry, ...]:
    """The entries of ``checks/diagnoses.toml`` that :func:`diagnose_text` reads (:attr:`Entry.reads_text`), in order."""
    return tuple(e for e in load_table() if e.reads_text)


def known_faults(text: str, shown: Iterable[str] = (), beside_failure: bool = False) -> list[tuple[str, str]]:
    """:func:`diagnose_text` as explain shows it: ``(level, "<meaning> Fix: <fix>")`` per fault found,
    the level being the entry's severity (``fail``, ``warn`` or ``info``); ``shown``: the messages of
    the findings a section has already, so a fault its own reader named is not said twice."""
    return [(d.severity, f"{d.message} Fix: {d.fix}") for d in diagnose_text(text, shown, beside_failure=beside_failure)]
