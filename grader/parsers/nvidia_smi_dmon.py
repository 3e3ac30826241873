"""``nvidia-smi dmon``: the device monitor's rows, one per GPU per interval, under its ``# gpu ...`` header and the
``# Idx ...`` units line below it: ``-s u`` gives sm, mem, enc, dec (utilisation, %), the default adds power,
temperatures and clocks; ``-o DT`` puts a date and time before the GPU index; a cell nvidia-smi cannot read is ``-``
(https://docs.nvidia.com/deploy/nvidia-smi/index.html, dmon)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .common import ParseError, content_lines

HEADER_RE = re.compile(r"^#\s{0,8}(?:Date\s{1,24})?(?:Time\s{1,24})?gpu(?:\s{1,40}[a-z][a-z0-9]{1,7}){1,30}\s{0,40}$",
                       re.I)
"""dmon's column header: ``# gpu   pwr gtemp mtemp    sm   mem ...`` (``#Date Time gpu ...`` with ``-o DT``, ``#Time
gpu ...`` with ``-o T``, ``#Date gpu ...`` with ``-o D``; the date and time columns are padded to their width: a real
``-o T`` header has nine blanks between ``#Time`` and ``gpu``, tests/fixtures/real/h100/nvidia-smi-dmon-time.txt)."""


@dataclass(frozen=True)
class Dmon:
    """The columns (lower-case, ``gpu`` first unless ``-o DT`` put date and time before it) and each data row's cells
    by column name: a number, or None where the row reads ``-``."""

    columns: tuple[str, ...]
    rows: tuple[dict[str, float | str | None], ...] = field(default_factory=tuple)

    def series(self, column: str) -> dict[str, list[float]]:
        """``{gpu index: [the column's numbers, in order]}``, cells of ``-`` left out."""
        out: dict[str, list[float]] = {}
        for r in self.rows:
            v = r.get(column)
            if isinstance(v, float):
                out.setdefault(str(r.get("gpu")), []).append(v)
        return out


def is_dmon(text: str) -> bool:
    """The text holds dmon's column header."""
    return any(HEADER_RE.match(line.text.strip()) for line in content_lines(text, keep_comments=True))


def _cell(word: str) -> float | str | None:
    if word == "-":
        return None
    try:
        return float(word)
    except ValueError:
        return word


def parse_dmon(text: str) -> Dmon:
    """Parse ``nvidia-smi dmon``; ParseError without its header or without a data row under it."""
    columns: tuple[str, ...] = ()
    rows = []
    for line in content_lines(text, keep_comments=True):
        s = line.text.strip()
        if HEADER_RE.match(s):
            columns = tuple(w.lower() for w in s.lstrip("#").split())
            continue
        words = s.split()
        if not columns or s.startswith("#") or len(words) != len(columns):
            continue
        row = {c: (w if c in ("date", "time") else _cell(w)) for c, w in zip(columns, words)}
        if isinstance(row.get("gpu"), float):
            row["gpu"] = f"{row['gpu']:g}"
            rows.append(row)
    if not columns:
        raise ParseError("nvidia-smi dmon", "not `nvidia-smi dmon` output: no `# gpu ...` column header")
    if not rows:
        raise ParseError("nvidia-smi dmon", "`nvidia-smi dmon` output without a row of figures under its header")
    return Dmon(columns, tuple(rows))
