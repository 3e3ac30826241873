"""Strict JSON for every ``--json`` printer: what RFC 8259 allows, never ``NaN`` or ``Infinity``.

Python's :func:`json.dumps` writes ``NaN``, ``Infinity`` and ``-Infinity`` for non-finite floats, which
no strict JSON reader accepts (``jq``, JavaScript's ``JSON.parse``, Go, Rust...), and raises for an
integer over Python's 4,300-digit ``str`` limit. :func:`dumps` first replaces what JSON cannot carry,
then writes with ``allow_nan=False``:

- a non-finite float becomes ``null``, and the object holding it gets ``"<key>_reason"`` saying what it
  was (``"NaN: not a finite number, written as null"``; for an item of a list, the list's key names the
  item's index);
- an integer of more than :data:`MAX_INT_DIGITS` digits becomes ``null`` with a reason the same way;
- a string with a lone UTF-16 surrogate (``\\ud800``: not Unicode) gets U+FFFD in its place;
- anything nested deeper than :data:`MAX_DEPTH` levels becomes ``null`` with a reason;
- an object JSON has no form for is written as its ``str()`` (as ``default=str`` does).
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_DEPTH = 200
"""Deeper than any report the grader writes (a verdict is 4 levels, explain's facts under 10)."""

MAX_INT_DIGITS = 4000
"""Below Python's default ``sys.get_int_max_str_digits()`` (4,300), so writing the digits never raises."""

_MAX_INT_BITS = int(MAX_INT_DIGITS * math.log2(10))


def _why_float(x: float) -> str:
    return f"{'NaN' if math.isnan(x) else 'Infinity' if x > 0 else '-Infinity'}: not a finite number, written as null"


def _clean_str(s: str) -> str:
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:  # lone surrogates: pairs become their character, the rest U+FFFD
        return s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _clean(value: Any, depth: int) -> tuple[Any, str | None]:
    """(value JSON can carry, why it was changed or None)."""
    if isinstance(value, bool) or value is None:
        return value, None
    if isinstance(value, float):
        return (value, None) if math.isfinite(value) else (None, _why_float(value))
    if isinstance(value, int):
        if value.bit_length() > _MAX_INT_BITS:
            return None, f"an integer of over {MAX_INT_DIGITS} digits, written as null"
        return value, None
    if isinstance(value, str):
        return _clean_str(value), None
    if depth > MAX_DEPTH:
        return None, f"nested deeper than {MAX_DEPTH} levels, written as null"
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        reasons: dict[str, str] = {}
        for k, v in value.items():
            key = _clean_str(k) if isinstance(k, str) else k if isinstance(k, (int, float, bool)) or k is None else str(k)
            if isinstance(key, float) and not math.isfinite(key):
                key = str(key)
            out[key], why = _clean(v, depth + 1)
            if why is not None:
                reasons[f"{key}_reason"] = why
        for rk, why in reasons.items():
            out.setdefault(rk, why)
        return out, None
    if isinstance(value, (list, tuple)):
        items, whys = [], []
        for i, v in enumerate(value):
            c, why = _clean(v, depth + 1)
            items.append(c)
            if why is not None:
                whys.append(f"item {i}: {why}")
        return items, ("; ".join(whys[:5]) + (f"; and {len(whys) - 5} more" if len(whys) > 5 else "")) if whys else None
    return _clean_str(str(value)), None


def sanitise(value: Any) -> Any:
    """``value`` with what JSON cannot carry replaced (see the module docstring); the input is not changed."""
    return _clean(value, 0)[0]


def dumps(value: Any, indent: int | None = 1, **kw: Any) -> str:
    """``json.dumps(sanitise(value), allow_nan=False)``: strict JSON whatever ``value`` holds."""
    return json.dumps(sanitise(value), indent=indent, allow_nan=False, default=str, **kw)
