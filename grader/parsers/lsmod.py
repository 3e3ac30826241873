"""Parser for ``lsmod`` (kmod): the loaded kernel modules, often filtered (``lsmod | grep nvidia``).

Each line is ``name size use-count [used-by,...]`` under an optional ``Module  Size  Used by`` header; the
used-by list may end with ``[permanent]``. A line of another shape in the middle of the output is an error; a cut
last line is left out (``truncated``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import ParseError, content_lines, fail_on_line, raise_if_shell_error

CMD = "lsmod"

_HEADER_RE = re.compile(r"^\s*Module\s+Size\s+Used\s+by\s*$")
_ROW_RE = re.compile(r"^\s*(?P<name>[A-Za-z0-9_]{1,64})\s+(?P<size>\d{1,12})\s+(?P<count>-?\d{1,9}|-)"
                     r"(?:\s+(?P<by>\S{1,4096}))?(?:\s+\[permanent\])?\s*$")


@dataclass(frozen=True)
class Module:
    """One loaded module: its ``name``, ``size`` in bytes, how many users hold it (``count``; None for ``-``), and
    the modules that use it (``used_by``, as listed)."""

    name: str
    size: int
    count: int | None
    used_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class Lsmod:
    """The modules of an ``lsmod`` output, in the order printed; ``truncated`` when its last line was cut."""

    modules: tuple[Module, ...]
    truncated: bool = False

    def has(self, name: str) -> bool:
        return any(m.name == name for m in self.modules)


def parse_lsmod(text: str) -> Lsmod:
    """Parse ``lsmod`` output (whole, or its lines a grep kept). Raises ParseError for shell errors, an empty paste
    and lines of another shape."""
    lines = content_lines(text)
    raise_if_shell_error(lines, CMD)
    modules: list[Module] = []
    truncated = False
    for pos, line in enumerate(lines):
        if _HEADER_RE.match(line.text):
            continue
        m = _ROW_RE.match(line.text)
        if m is None:
            if pos == len(lines) - 1 and modules:
                truncated = True
                break
            raise fail_on_line(CMD, line, "expected `name size count [used-by,...]` (an lsmod line)")
        count = m.group("count")
        modules.append(Module(m.group("name"), int(m.group("size")), None if count == "-" else int(count),
                              tuple(x for x in (m.group("by") or "").split(",") if x)))
    if not modules:
        raise ParseError(CMD, "no module line (`name size count [used-by]`) to read")
    return Lsmod(tuple(modules), truncated)
