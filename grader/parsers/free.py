"""Parser for ``free`` (procps): the ``Mem:`` and ``Swap:`` rows, as bytes.

Shapes: procps 3.3+ prints ``total used free shared buff/cache available`` (``available`` is the kernel's
MemAvailable: what can be given to a new program without swapping); older procps prints ``buffers`` and
``cached`` and a ``-/+ buffers/cache:`` row instead. ``-h`` writes each value with a binary suffix (``121Gi``,
``767Mi``, ``0B``; ``--si`` writes ``G``, ``M``: powers of 1000); without ``-h`` the unit is the flag's (``-b``
bytes, ``-k`` KiB (the default), ``-m`` MiB, ``-g`` GiB, ``--mega``/``--giga`` powers of 1000), read from the
command line when the paste shows it, else KiB (``unit_known`` False).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import ParseError, command_argv, content_lines, raise_if_shell_error

CMD = "free"

_FLAG_UNIT = {"-b": 1, "--bytes": 1, "-k": 1024, "--kibi": 1024, "-m": 1024 ** 2, "--mebi": 1024 ** 2,
              "-g": 1024 ** 3, "--gibi": 1024 ** 3, "--tebi": 1024 ** 4, "--kilo": 1000, "--mega": 1000 ** 2,
              "--giga": 1000 ** 3, "--tera": 1000 ** 4}
_VALUE_RE = re.compile(r"^(?P<num>\d+(?:[.,]\d+)?)(?P<suffix>[BKMGTP]?)(?P<i>i?)$")
_HEADER_RE = re.compile(r"^\s*total\s+used\s+free\b")
_ROW_RE = re.compile(r"^(?P<row>Mem|Swap|Low|High|Total):\s+(?P<values>.*)$")


@dataclass(frozen=True)
class MemoryRow:
    """One row of ``free``, in bytes (None where the row has no such column)."""

    total: int
    used: int | None
    free: int | None
    available: int | None = None
    shared: int | None = None
    cache: int | None = None
    """``shared`` (tmpfs and shared memory, which dropping caches cannot free) and ``cache`` (``buff/cache``, or old
    procps's ``buffers`` plus ``cached``)."""

    @property
    def estimated_available(self) -> int | None:
        """Old procps's rows (no ``available``) give an upper estimate of what a new program can take: free plus the
        caches, less the shared memory they include (MemAvailable also keeps part of the cache back). None when a
        column is missing or ``available`` is shown."""
        if self.available is not None or None in (self.free, self.cache, self.shared):
            return None
        return max(self.free, self.free + self.cache - self.shared)


@dataclass(frozen=True)
class FreeOutput:
    """``free``'s Mem and Swap rows (Swap None when not shown); ``unit_known`` False when plain numbers were read
    as KiB without a command line to say so; ``buffers_line`` whether old procps's ``-/+ buffers/cache:`` row is
    shown (``free -o`` leaves it out)."""

    mem: MemoryRow
    swap: MemoryRow | None
    unit_known: bool = True
    buffers_line: bool = False


def _bytes(cell: str, unit: int, si: bool) -> int | None:
    m = _VALUE_RE.match(cell)
    if m is None:
        return None
    num = float(m.group("num").replace(",", "."))
    if not m.group("suffix"):
        return int(num * unit)
    base = 1000 if si and not m.group("i") else 1024
    return int(num * base ** "BKMGTP".index(m.group("suffix")))


def parse_free(text: str) -> FreeOutput:
    """Parse ``free`` in any of its unit forms. Raises ParseError when no ``Mem:`` row follows the header."""
    lines = content_lines(text)
    raise_if_shell_error(lines, CMD)
    line = next((x.command for x in lines if x.command), "")
    argv = next((a for a in map(command_argv, re.split(r";|&&|\|\|", line)) if a[:1] == ["free"]), command_argv(line))
    # (`sleep 60; free -g`: the flags of the `free` in a compound line)
    flags = [a for a in argv[1:] if a.startswith("-")]
    short = "".join(f[1:] for f in flags if not f.startswith("--"))
    unit = next((u for f, u in _FLAG_UNIT.items() if f in flags or (len(f) == 2 and f[1] in short)), 1024)
    si = "--si" in flags
    header = columns = None
    suffixed = False  # a value carried its unit (`121Gi`): the unit is known without the command line
    rows: dict[str, MemoryRow] = {}
    for line in lines:
        if _HEADER_RE.match(line.text):
            header, columns = line, line.text.split()
            continue
        m = _ROW_RE.match(line.text.strip())
        if m is None or columns is None:
            continue
        raw = m.group("values").split()
        suffixed = suffixed or any(c[-1:].isalpha() for c in raw)
        cells = [_bytes(c, unit, si) for c in raw]
        named = dict(zip(columns, cells))
        if named.get("total") is None:
            continue
        cache = named.get("buff/cache")
        if cache is None and named.get("cached") is not None:
            cache = named["cached"] + (named.get("buffers") or 0)
        rows[m.group("row")] = MemoryRow(named["total"], named.get("used"), named.get("free"), named.get("available"),
                                         named.get("shared"), cache)
    if "Mem" not in rows:
        raise ParseError(CMD, "no `Mem:` row under a `total used free ...` header" if header else
                         "no `total used free ...` header (paste the whole output of `free -h`)")
    return FreeOutput(rows["Mem"], rows.get("Swap"), bool(argv) or suffixed,
                      any(x.text.lstrip().startswith("-/+ buffers/cache") for x in lines))
