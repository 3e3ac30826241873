"""Parser for ``df`` (coreutils): one row per mounted file system, sizes as bytes.

Shape (``df -h`` inside a container; tests/fixtures/field/corpus/zg017, NVIDIA/nccl#606)::

    Filesystem      Size  Used Avail Use% Mounted on
    overlay         1.8T   96G  1.6T   6% /
    shm             1.0G     0  1.0G   0% /dev/shm

``-h`` writes sizes with binary suffixes (``64M`` = 64 MiB, ``1.8T``; ``-H``/``--si`` powers of 1000); without it
the sizes are 1K-blocks (``1K-blocks`` in the header; ``-k``), or the header names the block size
(``1M-blocks``). ``-T`` adds a ``Type`` column. A device name too long for its column makes ``df`` put the numbers
on the next line; that is read as one row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import ParseError, command_argv, content_lines, raise_if_shell_error

CMD = "df"

_HEADER_RE = re.compile(r"^Filesystem\s+(?:Type\s+)?(?P<unit>Size|\d+[KMG]?-blocks|1K-blocks)\s+Used\s+Avail(?:able)?\s+"
                        r"(?:Use|Capacity)%\s+Mounted on\s*$")
_SIZE_RE = re.compile(r"^(?P<num>\d+(?:[.,]\d+)?)(?P<suffix>[KMGTPE]?)$")
_POWERS = "KMGTPE"


@dataclass(frozen=True)
class Mount:
    """One row: ``filesystem`` (``overlay``, ``shm``, ``/dev/nvme0n1p2``), its ``type`` when ``-T`` printed it,
    ``size``/``used``/``avail`` in bytes (approximate under ``-h``: what the suffix rounds to), ``mount`` (where)."""

    filesystem: str
    size: int
    used: int
    avail: int
    mount: str
    type: str | None = None


_INODES = "`df -i` counts inodes, not bytes: paste `df -h` for the sizes"

def _bytes(value: str, block: int, base: int) -> int | None:
    m = _SIZE_RE.match(value) if len(value) <= 40 else None  # (no file system holds a size of 40 digits)
    if not m:
        return None
    num = float(m.group("num").replace(",", "."))
    return int(num * base ** (_POWERS.index(m.group("suffix")) + 1)) if m.group("suffix") else int(num * block)


def parse_df(text: str) -> tuple[Mount, ...]:
    """The rows of ``df`` (see the module docstring). ParseError when there is no header and no row."""
    lines = content_lines(text)
    raise_if_shell_error(lines, CMD)
    argv = command_argv(lines[0].command) if lines else []
    si = any(a in ("-H", "--si") for a in argv)
    if any(a in ("-i", "--inodes") or a.startswith("-") and not a.startswith("--") and "i" in a for a in argv):
        raise ParseError(CMD, _INODES)
    block, typed, pending = 1024, False, None
    rows: list[Mount] = []
    for line in lines:
        s = line.text.strip()
        head = _HEADER_RE.match(s)
        if s.startswith("Filesystem") and ("Inodes" in s or "IUsed" in s):
            raise ParseError(CMD, _INODES, s, line.no)
        if head:
            unit, typed = head.group("unit"), " Type " in f" {s} "
            m = re.match(r"(\d+)([KMG]?)-blocks", unit)
            block = int(m.group(1)) * (1024 ** ("KMG".index(m.group(2)) + 1) if m.group(2) else 1) if m else 1
            # (`Size`: -h's values carry their suffix; a bare one is bytes)
            continue
        cells = s.split()
        if len(cells) == 1:  # a device name too long for its column: its numbers are on the next line
            pending = cells[0]
            continue
        if pending is not None and len(cells) == 5 + typed:
            cells = [pending] + cells
        pending = None
        if len(cells) < 6 + typed:
            continue
        name, kind = cells[0], cells[1] if typed else None
        size, used, avail = (_bytes(x, block, 1000 if si else 1024) for x in cells[1 + typed:4 + typed])
        if size is None or used is None or avail is None or not cells[4 + typed].rstrip("%").isdigit() and \
                cells[4 + typed] != "-":
            continue
        rows.append(Mount(name, size, used, avail, " ".join(cells[5 + typed:]), kind))
    if not rows:
        raise ParseError(CMD, "no file system row (`Filesystem  Size  Used Avail Use% Mounted on` and the rows under it)")
    return tuple(rows)
