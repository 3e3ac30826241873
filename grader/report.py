"""Reports: the same verdicts as a terminal table or as JSON (the notebook widget renders the JSON)."""

from __future__ import annotations

import shutil
import textwrap
from typing import Any

from grader import strictjson
from grader.grading import LABELS, Verdict, counts, score, summary_line
from grader.ranges import ranges_file, ranges_used

_COLOUR = {"pass": "\033[32m", "warn": "\033[33m", "fail": "\033[31m", "unmeasured": "\033[90m", "skip": "\033[2m"}
EXPLAINED = ("fail", "warn", "unmeasured")
"""Statuses whose details and hint every report shows (a pass needs none; n.a. says why in one line)."""


def render_table(verdicts: list[Verdict], title: str, colour: bool = False, errors: dict[str, str] | None = None) -> str:
    """A plain-text table: one row per check (PASS, WARN, FAIL, NOT MEASURED, n.a.), with the details
    and the hint under each fail, warn and not measured row, then the summary line
    (:func:`grader.grading.summary_line`)."""
    width = max(60, min(shutil.get_terminal_size((100, 20)).columns, 120))
    lines = [title, "=" * len(title)]
    for node, why in (errors or {}).items():
        lines.append(f"UNREACHABLE {node}: {why}")
    idw = max([len(v.id) for v in verdicts] + [5])
    mw = max([len(LABELS[v.status]) for v in verdicts] + [4])
    for v in verdicts:
        mark = f"{LABELS[v.status]:<{mw}}"
        if colour:
            mark = f"{_COLOUR[v.status]}{mark}\033[0m"
        lines.append(f"{mark}  {v.id:<{idw}}  {v.earned:g}/{v.points:g}  {v.title}")
        if v.status in EXPLAINED:
            for d in v.details:
                lines += textwrap.wrap(d, width - 8, initial_indent="      - ", subsequent_indent="        ")
            lines += textwrap.wrap(f"hint: {v.hint}", width - 8, initial_indent="      ", subsequent_indent="        ")
    lines.append(summary_line(verdicts))
    if ranges_file():  # an instructor's ranges (clusterlab baseline): say which file judged these verdicts
        lines.append(f"ranges: {ranges_used()}")
    return "\n".join(lines)


def payload(verdicts: list[Verdict], **extra: Any) -> dict[str, Any]:
    """``{**extra, "verdicts": [Verdict.to_json()], "score": {"earned", "total"}, "counts": {status: n}}``
    (statuses: grader.grading.STATUSES; ``unmeasured`` is "not measured", ``skip`` is n.a.)."""
    earned, total = score(verdicts)
    return {**extra, "ranges": ranges_used(), "verdicts": [v.to_json() for v in verdicts], "score": {"earned": earned, "total": total},
            "counts": counts(verdicts)}


def to_json(verdicts: list[Verdict], **extra: Any) -> str:
    """Machine output: :func:`payload` as strict JSON (:func:`grader.strictjson.dumps`): a non-finite
    figure is ``null`` with a ``"<key>_reason"`` beside it, never ``NaN`` or ``Infinity``."""
    return strictjson.dumps(payload(verdicts, **extra), indent=1)
