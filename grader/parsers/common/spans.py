"""Where things are in a text: a pattern's last match, and the line around a position. Pure; positions are ``str``
indexes."""

from __future__ import annotations

import re
import sys


def last_match(pattern: re.Pattern[str], text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
    """The last non-overlapping match of ``pattern`` in ``text[pos:endpos]`` (as ``finditer`` finds them), or None."""
    last = None
    for last in pattern.finditer(text, pos, endpos):
        pass
    return last


def line_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The (start, end) of the line that holds ``text[start:end]``, without its line end."""
    return text.rfind("\n", 0, start) + 1, (text.find("\n", end) + 1 or len(text) + 1) - 1


def line_at(text: str, start: int, end: int | None = None) -> str:
    """The line that holds ``text[start:end]`` (``end``: ``start``), without its line end."""
    a, b = line_span(text, start, start if end is None else end)
    return text[a:b]
