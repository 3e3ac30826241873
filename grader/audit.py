"""``clusterlab audit``: after ``nbgrader autograde``, grade each submission's evidence again outside
the learner's kernel and compare with what its machine grade cells scored there.

Why: nbgrader runs the learner's cells and the grade cells in one kernel, so an answer cell can
replace ``cl.grade_checks`` (or anything it calls) and every machine grade cell then scores full
points without evidence. The audit reads nbgrader's autograded notebooks (outputs kept) and the
evidence beside them, recomputes each ``cl.grade_checks(lesson, [ids], points=N)`` cell in this
process with :func:`grader.notebook.grade_checks`' own rules, and reports each cell where the
kernel's score is above the evidence's (a grade the evidence does not support).

It also flags shared recordings (:func:`shared_evidence`): two or more students whose evidence of one
assignment has the same :func:`grader.provenance.identity` (the same machines' host keys and
machine-id hashes) handed in one recording between them. Each such submission is a ``SHARED`` row.
``clusterlab audit`` exits 1 when any row is ``ABOVE`` or ``SHARED`` (:func:`flagged`).

Layout read: ``<autograded>/<student>/<assignment>/<assignment>.ipynb`` and
``<autograded>/<student>/<assignment>/evidence/<lesson>.json`` (nbgrader's ``autograded`` folder,
``$CLUSTERLAB_COURSE_DIR/autograded`` with this course's nbgrader_config.py).
"""

from __future__ import annotations

import ast
import contextlib
import io
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

TOLERANCE = 1e-6
"""Points: a kernel score above the recomputed one by more than this is reported."""


class AuditError(Exception):
    """The folder is not an nbgrader autograded folder (the message names what was expected)."""


@dataclass(frozen=True)
class CellAudit:
    """One machine grade cell of one submission: what the kernel scored and what the evidence gives.

    ``kernel`` is nbgrader's score for the cell (0 on an error or stderr output; a float last
    expression is partial credit), ``evidence`` the score recomputed here; both in points.
    ``status``: ``"agree"``, ``"ABOVE"`` (the kernel scored more than the evidence supports),
    ``"below"`` (less, e.g. a cell that errored in the kernel) or ``"SHARED"`` (not a cell: the
    submission's ``evidence/<lesson>.json`` has the identity of another student's; ``cell`` names the
    file, ``kernel`` and ``evidence`` are 0, ``why`` names the other students and the identity).
    """

    student: str
    assignment: str
    cell: str
    kernel: float
    evidence: float
    status: str
    why: str


def grade_calls(source: str) -> list[tuple[str, list[str], float]] | None:
    """The ``grade_checks(lesson, [ids], points=N)`` calls of a grade cell's source, literal arguments
    only, or None when the cell has none (or one with non-literal arguments)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (getattr(node.func, "attr", None) == "grade_checks"
                                           or getattr(node.func, "id", None) == "grade_checks"):
            try:
                args = [ast.literal_eval(a) for a in node.args]
                kw = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
            except ValueError:
                return None
            vals = {**dict(zip(("lesson", "check_ids", "points"), args)), **kw}
            lesson, ids, points = vals.get("lesson"), vals.get("check_ids"), vals.get("points")
            if not isinstance(lesson, str) or not isinstance(ids, (list, tuple)) or not isinstance(points, (int, float)):
                return None
            calls.append((lesson, list(ids), float(points)))
    return calls or None


def kernel_score(cell: Any, points: float) -> float:
    """nbgrader's score of an executed grade cell (docs/research/grading.md §2.8)."""
    outs = cell.get("outputs", [])
    if any(o.get("output_type") == "error" or (o.get("output_type") == "stream" and o.get("name") == "stderr")
           for o in outs):
        return 0.0
    for o in outs:
        if o.get("output_type") == "execute_result":
            try:
                return min(points, float(o["data"]["text/plain"]))
            except (KeyError, ValueError, TypeError):
                pass
    return points


def audit(autograded: str | Path, assignment: str | None = None) -> list[CellAudit]:
    """Every machine grade cell of every submission under ``autograded``, recomputed from its evidence.

    Raises AuditError when ``autograded`` holds no ``<student>/<assignment>/<assignment>.ipynb``.
    """
    import nbformat

    from grader import lessons
    from grader.notebook import score_checks

    root = Path(autograded).expanduser()
    notebooks = sorted(p for p in root.glob("*/*/*.ipynb") if p.stem == p.parent.name
                       and (assignment is None or p.stem == assignment))
    if not notebooks:
        course = f" (this course's assignments: {', '.join(lessons.names())})" \
            if assignment is not None and assignment not in lessons.names() else ""
        raise AuditError(f"{root}: no <student>/<assignment>/<assignment>.ipynb here{course}; give nbgrader's "
                         "autograded folder ($CLUSTERLAB_COURSE_DIR/autograded after `nbgrader autograde`)")
    rows = []
    for nb_path in notebooks:
        student, name = nb_path.parent.parent.name, nb_path.stem
        try:
            nb = nbformat.read(nb_path, as_version=4)
        except Exception as e:  # a broken notebook is a finding, not a crash
            rows.append(CellAudit(student, name, "-", 0.0, 0.0, "below", f"unreadable notebook: {e}"))
            continue
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            calls = grade_calls(cell.source) if cell.cell_type == "code" and meta.get("grade") else None
            if not calls:
                continue
            points = float(meta.get("points", 0))
            got = kernel_score(cell, points)
            want, lines = 0.0, []
            for lesson, ids, pts in calls:
                with contextlib.redirect_stdout(io.StringIO()):
                    earned, why = score_checks(lesson, ids, pts, nb_path.parent / "evidence")
                want += earned
                lines += why
            want = min(points, round(want, 3))
            status = "ABOVE" if got > want + TOLERANCE else "below" if got < want - TOLERANCE else "agree"
            reason = next((ln for ln in lines if ln.startswith("0/")), lines[-1] if lines else "")
            rows.append(CellAudit(student, name, meta.get("grade_id", "?"), got, want, status, reason))
    return rows


def shared_evidence(autograded: str | Path, assignment: str | None = None) -> list[CellAudit]:
    """One ``SHARED`` row per submission whose evidence has the same identity as the evidence of another
    student for the same assignment (grader.provenance.identity): one recording handed in twice.

    Reads every ``<student>/<assignment>/evidence/*.json`` under ``autograded`` (only ``assignment``'s
    when given); evidence that cannot be read, or records no identity, is left out (the cells' audit
    says why it earns nothing). Rows sorted by assignment, file, student.
    """
    from grader.evidence import EvidenceError, load_evidence
    from grader.provenance import identity

    root = Path(autograded).expanduser()
    seen: dict[tuple[str, str, str], dict[str, str]] = {}  # (assignment, file, identity) -> {student: path}
    for path in sorted(root.glob("*/*/evidence/*.json")):
        student, name = path.parents[2].name, path.parents[1].name
        if assignment is not None and name != assignment:
            continue
        try:
            ident = identity(load_evidence(path))
        except (EvidenceError, OSError, ValueError):
            continue
        if ident:
            seen.setdefault((name, path.name, ident), {})[student] = str(path)
    rows = []
    for (name, fname, ident), students in sorted(seen.items()):
        if len(students) < 2:
            continue
        for student in sorted(students):
            others = ", ".join(s for s in sorted(students) if s != student)
            rows.append(CellAudit(student, name, f"evidence/{fname}", 0.0, 0.0, "SHARED",
                                  f"the same machines as {others}'s evidence (identity {ident[:12]}): one recording "
                                  "handed in by several students"))
    return rows


def flagged(rows: list[CellAudit]) -> bool:
    """True when a row needs the instructor: a cell scored ABOVE its evidence, or a SHARED recording
    (``clusterlab audit`` then exits 1)."""
    return any(r.status in ("ABOVE", "SHARED") for r in rows)


def render(rows: list[CellAudit]) -> str:
    """A plain-text table, ABOVE rows first, then SHARED, then a count of each."""
    order = {"ABOVE": 0, "SHARED": 1, "below": 2, "agree": 3}
    lines = [f"{'status':6}  {'student':14} {'assignment':10} {'cell':24} kernel  evidence  why"]
    for r in sorted(rows, key=lambda r: (order[r.status], r.student, r.assignment, r.cell)):
        lines.append(f"{r.status:6}  {r.student:14} {r.assignment:10} {r.cell:24} {r.kernel:6g}  {r.evidence:8g}  "
                     f"{r.why[:90] if r.status != 'agree' else ''}")
    cells = [r for r in rows if r.status != "SHARED"]
    above = sum(r.status == "ABOVE" for r in cells)
    lines.append(f"{len(cells)} machine grade cells: {above} scored above what their evidence supports")
    shared = [r for r in rows if r.status == "SHARED"]
    if shared:
        lines.append(f"{len(shared)} submissions share a recording with another student's (same machines)")
    return "\n".join(lines)


def to_jsonable(rows: list[CellAudit]) -> list[dict[str, Any]]:
    """The rows as dicts (CellAudit's fields)."""
    return [asdict(r) for r in rows]


def payload(rows: list[CellAudit], autograded: str | Path, assignment: str | None) -> dict[str, Any]:
    """``{"schema_version", "kind": "audit", "autograded", "assignment", "rows": [CellAudit as dict]}``
    (grader.results.AuditReport): what ``clusterlab audit --format json`` prints."""
    from grader.results import stamp

    return stamp("audit", {"autograded": str(autograded), "assignment": assignment, "rows": to_jsonable(rows)})
