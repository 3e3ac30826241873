"""Parser for ``docker ps`` (and ``docker ps -a``, podman's alike): one row per container under the header
``CONTAINER ID   IMAGE   COMMAND   CREATED   STATUS   PORTS   NAMES``, its columns aligned to the header's words.
A row is read by the header's column starts; a row a terminal shifted is read by its runs of blanks instead."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import ParseError, content_lines

COMMAND = "docker ps"
HEADER_RE = re.compile(r"^CONTAINER ID\s{2,}IMAGE\s{2,}COMMAND\s{2,}CREATED\s{2,}STATUS\s{2,}PORTS\s{2,}NAMES\s*$")
_COLUMNS = ("CONTAINER ID", "IMAGE", "COMMAND", "CREATED", "STATUS", "PORTS", "NAMES")
_ID_RE = re.compile(r"^[0-9a-f]{12}\b")
_STATUS_RE = re.compile(r"^(?:Up\b|Exited \(-?\d{1,4}\)|Created$|Restarting \(-?\d{1,4}\)|Paused$|Dead$|Removal In Progress)")


@dataclass(frozen=True)
class Container:
    """One row: ``id`` (12 hex digits), ``image``, ``status`` as printed (``Up 23 seconds``, ``Exited (139) 2 minutes
    ago``, ``Restarting (1) 5 seconds ago``), ``name``; ``exit_code`` of an Exited or Restarting container, else None."""

    id: str
    image: str
    status: str
    name: str
    exit_code: int | None


def parse_docker_ps(text: str) -> list[Container]:
    """Read ``docker ps``'s table (module docstring). Raises ParseError when there is no header and no row; never
    otherwise (a row that cannot be read is left out)."""
    lines = content_lines(text)
    starts: list[int] | None = None
    out: list[Container] = []
    seen_header = False
    for line in lines:
        raw = line.text.rstrip()
        if HEADER_RE.match(raw.strip()):
            head = raw.strip()
            starts = [head.index(c) for c in _COLUMNS]
            seen_header = True
            continue
        s = raw.strip()
        if not _ID_RE.match(s):
            continue
        cells = [s[a:b].strip() for a, b in zip(starts, starts[1:] + [len(s)])] if starts else []
        if len(cells) != 7 or not _STATUS_RE.match(cells[4]):  # shifted: read by runs of two blanks or more
            parts = re.split(r"\s{2,}", s)
            status = next((p for p in parts[3:] if _STATUS_RE.match(p)), None)
            if status is None or len(parts) < 5:
                continue
            cells = [parts[0], parts[1], "", "", status, "", parts[-1]]
        code = re.search(r"\((-?\d{1,4})\)", cells[4]) if cells[4].startswith(("Exited", "Restarting")) else None
        out.append(Container(cells[0], cells[1], cells[4], cells[6], int(code.group(1)) if code else None))
    if not seen_header and not out:
        raise ParseError(COMMAND, "no `CONTAINER ID   IMAGE   COMMAND ...` table found")
    return out
