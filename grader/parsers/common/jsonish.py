"""Lenient JSON for the parsers: where a JSON value opens in a paste, JSON cut off at its end closed at its
last complete member, and safe digging and number conversion (re-exported by ``grader.parsers.common``)."""

from __future__ import annotations

import json
import re
from collections import deque
from typing import TYPE_CHECKING, Any

from . import ParseError

if TYPE_CHECKING:
    from . import Line


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
    try:
        return _load_json_lenient(text, command, first_lineno)
    except ParseError:
        raise
    except RecursionError:
        raise ParseError(command, "the JSON is nested too deeply to read (thousands of levels of brackets)") from None
    except ValueError as err:  # not a JSONDecodeError (those are handled): an integer past Python's digit limit
        raise ParseError(command, f"the JSON holds a value no command prints ({' '.join(str(err).split())[:120]})") \
            from None


def _load_json_lenient(text: str, command: str, first_lineno: int) -> tuple[Any, bool]:
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
