"""What ``explain`` prints: its sections as terminal text (``render``) or as plain JSON values (``to_jsonable``),
every text bounded (``MAX_SHOWN_CHARS``) and without secrets (``redacted``, grader.redact: a token in a pasted
command line, ``-e HF_TOKEN=...``, is never said back). The core re-exports these; the lesson modules never need them. The
sections are :class:`grader.explain.core.Section` values (not imported here: the core imports this module).
"""

from __future__ import annotations

import dataclasses
import functools
import textwrap
from typing import Any, Iterable

from ..judges.model import Finding
from ..redact import REDACTED, is_secret_name, redact


MAX_SHOWN_CHARS = 8192
"""The longest text a fact or finding shows; a longer one (a multi-megabyte line a parser kept as it was)
is cut, saying how long it was, so what explain prints stays bounded however long a pasted line is."""


_redact = functools.lru_cache(maxsize=1024)(redact)  # a log's facts say few texts many times (4,009 calls, 11 texts)
_secret_key = functools.lru_cache(maxsize=4096)(is_secret_name)  # the facts' keys: a few names, asked many times


def _shown(text: str) -> str:
    """``text`` without its secrets, or its first MAX_SHOWN_CHARS characters and how long it was."""
    return _redact(text) if len(text) <= MAX_SHOWN_CHARS else \
        f"{_redact(text[:MAX_SHOWN_CHARS])}... [cut: {len(text):,} characters]"


def redacted(sections: list[Any]) -> list[Any]:
    """``sections`` with their command lines, findings and errors said without secrets (grader.redact); a section or
    finding with none is kept as it is (no copy)."""
    out = []
    for s in sections:
        findings = tuple(f if (m := _redact(f.message)) == f.message else dataclasses.replace(f, message=m)
                         for f in s.findings)
        command, error = _redact(s.command) if s.command else s.command, _redact(s.error) if s.error else s.error
        same = command == s.command and error == s.error and all(a is b for a, b in zip(findings, s.findings))
        out.append(s if same else dataclasses.replace(s, command=command, error=error, findings=findings))
    return out


MAX_SHOWN_ITEMS = 500
"""The most items a list of facts shows (the rows of a 5 MB nccl-tests paste, one KV line per startup of a log
that repeats): the rest is cut, saying how many there were, so explain --json stays bounded (issue 27: under 2 MB
for a 5 MB paste). The findings are worked out from every item, before the cut."""

_SCALARS = (int, float, bool, type(None))


def fold_repeats(findings: list[Any]) -> list[Any]:
    """``findings`` (core Finding values) with each (level, message) given once, in the order first said; one
    said N times ends with how often (an output that repeats its lines, e.g. one startup logged again and again,
    would otherwise say it N times: issue 27, a paste of one excerpt repeated gets a bounded answer)."""
    count: dict[tuple[str, str], list[Any]] = {}
    for f in findings:
        count.setdefault((f.level, f.message), []).append(f)
    if len(count) == len(findings):
        return findings
    return [same[0] if len(same) == 1 else
            dataclasses.replace(same[0], message=f"{same[0].message} (said {len(same):,} times: these lines are repeated "
                                                 "in the output)") for same in count.values()]


def _plain(value: Any) -> Any:
    """Dataclasses, tuples and sets to plain JSON types (text longer than MAX_SHOWN_CHARS cut, see _shown)."""
    if type(value) in _SCALARS:  # most values: kept as they are
        return value
    if isinstance(value, str):
        return _shown(value)
    if hasattr(type(value), "__dataclass_fields__") and not isinstance(value, type):  # a dataclass: as asdict, no copies
        return {name: _plain(getattr(value, name)) for name in _field_names(type(value))}
    if isinstance(value, dict):  # a value under a secret's name (vLLM's `api_key`, `hf_token` args) is not shown
        return {str(k): REDACTED if type(v) is str and v and _secret_key(str(k)) else _plain(v)
                for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        items = list(value)
        if len(items) <= MAX_SHOWN_ITEMS:
            return [_plain(v) for v in items]
        return [_plain(v) for v in items[:MAX_SHOWN_ITEMS]] + [f"... [cut: {len(items):,} items]"]
    return value


@functools.lru_cache(maxsize=None)
def _field_names(cls: type) -> tuple[str, ...]:
    """The names of a dataclass's fields, in order (dataclasses.fields, asked once per class)."""
    return tuple(f.name for f in dataclasses.fields(cls))


def to_jsonable(sections: Iterable[Any]) -> list[dict[str, Any]]:
    """Sections as plain dicts/lists/str/numbers/None, for ``explain --json``."""
    return [{"kind": s.kind, "command": s.command, "host": s.host, "facts": _plain(s.facts),
             "findings": [{"level": f.level, "message": f.message} for f in s.findings],
             "error": s.error} for s in sections]


_MARKS = {"ok": ("ok", "32"), "warn": ("warn", "33"), "fail": ("FAIL", "31"), "info": ("info", "36"),
          "error": ("ERROR", "31")}


def render(sections: Iterable[Any], colour: bool = False, width: int = 100) -> str:
    """Sections as terminal text: a header per section, then one wrapped line per finding.

    ``colour`` adds ANSI colours to the level marks. Returns the text (no trailing newline).
    """
    def mark(level: str) -> str:
        word, code = _MARKS.get(level, (level, "0"))
        padded = f"{word:<5}"
        return f"\x1b[{code}m{padded}\x1b[0m" if colour else padded

    wrapped: dict[str, list[str]] = {}  # a message said again (the same output pasted twice) is wrapped once
    out: list[str] = []
    for s in sections:
        head = f"[{s.kind or 'unknown'}]"
        if s.command:
            head += f" $ {s.command}"
        if s.host:
            head += f"   (on {s.host})"
        out.append(head)
        rows = [("error", s.error)] * bool(s.error) + [(f.level, f.message) for f in s.findings]
        for level, message in rows:
            lines = wrapped.get(message) or wrapped.setdefault(message, textwrap.wrap(message, width=max(40, width - 8))
                                                               or [""])
            out.append(f"  {mark(level)} {lines[0]}")
            out += [f"        {line}" for line in lines[1:]]
        if not rows:
            out.append("  (nothing to remark)")
        out.append("")
    return "\n".join(out).rstrip("\n")


def _noted(section: Any, message: str) -> Any:
    """``section`` with one more info finding, ``message``."""
    return dataclasses.replace(section, findings=section.findings + (Finding("info", message),))


def said_again(section: Any, times: int) -> Any:
    """``section``, read once for an output the paste holds ``times`` times, saying so (repeats folded)."""
    return _noted(section, f"The same output appears {times:,} times in this paste: it was read once, and what is said "
                           "here holds for every copy.")


def block_repeated(section: Any, lines: int, copies: int, cut: bool) -> Any:
    """``section``, read from the first ``lines`` lines of an output that is those lines ``copies`` times over (and
    ``cut``: the start of one more), saying so (grader.parsers.common.repeated_block)."""
    more = " and the start of one more" if cut else ""
    return _noted(section, f"These {lines:,} lines repeat {copies:,} times over in this output{more}: they were read "
                           "once, and what is said here holds for every copy.")
