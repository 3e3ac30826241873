"""Reports: the same verdicts as a terminal table or as JSON (the notebook widget renders the JSON)."""

from __future__ import annotations

import json
import shutil
import textwrap
from typing import Any

from grader.grading import Verdict

_MARK = {"pass": "PASS", "warn": "WARN", "fail": "FAIL", "skip": "skip"}
_COLOUR = {"pass": "\033[32m", "warn": "\033[33m", "fail": "\033[31m", "skip": "\033[2m"}


def render_table(verdicts: list[Verdict], title: str, colour: bool = False, errors: dict[str, str] | None = None) -> str:
    """A plain-text table: one row per check, then what was measured and the hint for each non-pass."""
    width = max(60, min(shutil.get_terminal_size((100, 20)).columns, 120))
    lines = [title, "=" * len(title)]
    for node, why in (errors or {}).items():
        lines.append(f"UNREACHABLE {node}: {why}")
    idw = max([len(v.id) for v in verdicts] + [5])
    for v in verdicts:
        mark = _MARK[v.status]
        if colour:
            mark = f"{_COLOUR[v.status]}{mark}\033[0m"
        lines.append(f"{mark}  {v.id:<{idw}}  {v.earned:g}/{v.points:g}  {v.title}")
        if v.status in ("fail", "warn"):
            for d in v.details:
                lines += textwrap.wrap(d, width - 8, initial_indent="      - ", subsequent_indent="        ")
            lines += textwrap.wrap(f"hint: {v.hint}", width - 8, initial_indent="      ", subsequent_indent="        ")
    earned = sum(v.earned for v in verdicts)
    total = sum(v.points for v in verdicts if v.status != "skip")
    counts = {s: sum(v.status == s for v in verdicts) for s in _MARK}
    lines.append(f"score {earned:g}/{total:g}: {counts['pass']} pass, {counts['warn']} warn, "
                 f"{counts['fail']} fail, {counts['skip']} skipped")
    return "\n".join(lines)


def to_json(verdicts: list[Verdict], **extra: Any) -> str:
    """Machine output: ``{"verdicts": [...], "score": {"earned", "total"}, **extra}``."""
    earned = sum(v.earned for v in verdicts)
    total = sum(v.points for v in verdicts if v.status != "skip")
    return json.dumps({**extra, "verdicts": [v.to_json() for v in verdicts],
                       "score": {"earned": earned, "total": total}}, indent=1)
