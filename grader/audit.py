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

Grading is spread over processes (or a Ray cluster, grader.parallel): this process reads each notebook's
machine grade cells and the bytes of its evidence files into a :class:`Submission`, and
:func:`grade_submission`, a pure function of that payload, grades each evidence file once
(grader.checking.grade_file) and scores the cells from it. ``clusterlab class-report`` (grader.classreport)
reads the same results.
"""

from __future__ import annotations

import ast
import contextlib
import io
import tempfile
from dataclasses import asdict, dataclass, field
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


@dataclass(frozen=True)
class Submission:
    """One autograded submission as a grading worker gets it: everything grading reads, no file to open.

    ``folder``: ``<autograded>/<student>/<assignment>`` (named in messages). ``cells``: each machine grade
    cell as ``(grade_id, points, kernel score, calls)``, ``calls`` as :func:`grade_calls` gives them, points
    as nbgrader scores them (:func:`kernel_score`). ``evidence``: ``{"<lesson>.json": its bytes, or why it
    could not be read}`` for each lesson the cells grade (and the assignment's own). ``notebook_error``:
    why the notebook could not be read (then no cells). ``figures``: fact paths (grader.grading.lookup)
    whose numbers :func:`grade_submission` returns.
    """

    student: str
    assignment: str
    folder: str
    cells: tuple[tuple[str, float, float, tuple[tuple[str, tuple[str, ...], float], ...]], ...] = ()
    evidence: dict[str, bytes | str] = field(default_factory=dict)
    notebook_error: str | None = None
    figures: tuple[str, ...] = ()


@dataclass(frozen=True)
class LessonGrade:
    """One evidence file of a submission graded from its raw outputs (grader.checking.grade_file).

    ``profile``: the evidence's (None when it could not be graded). ``statuses``: ``((check id, status),
    ...)`` in catalogue order (grader.grading.STATUSES). ``figures``: ``((fact path, (number, ...)), ...)``
    for the asked paths that hold numbers, in their units (checks/ranges.toml). ``notes``: what grading
    noticed (stored facts that disagree with the raw outputs). ``unusable``: why the file earns nothing
    whatever its verdicts (missing, unreadable, edited, a replay, a profile its outputs do not show or the
    course does not accept), None when it may earn points.
    """

    lesson: str
    profile: str | None
    statuses: tuple[tuple[str, str], ...]
    figures: tuple[tuple[str, tuple[float, ...]], ...]
    notes: tuple[str, ...]
    unusable: str | None


@dataclass(frozen=True)
class GradedSubmission:
    """What :func:`grade_submission` returns: the submission's machine cells audited (:class:`CellAudit`,
    in notebook order) and each of its evidence files graded (:class:`LessonGrade`)."""

    student: str
    assignment: str
    cells: tuple[CellAudit, ...]
    lessons: tuple[LessonGrade, ...]


def read_submissions(autograded: str | Path, assignment: str | None = None,
                     figures: tuple[str, ...] = ()) -> list[Submission]:
    """Every ``<student>/<assignment>/<assignment>.ipynb`` under ``autograded`` (only ``assignment``'s when
    given), sorted by path, with its machine grade cells and evidence bytes (:class:`Submission`).

    Raises AuditError when there is none. A notebook that cannot be read is a submission with
    ``notebook_error`` set, not an error.
    """
    import nbformat

    from grader import lessons

    root = Path(autograded).expanduser()
    notebooks = sorted(p for p in root.glob("*/*/*.ipynb") if p.stem == p.parent.name
                       and (assignment is None or p.stem == assignment))
    if not notebooks:
        course = f" (this course's assignments: {', '.join(lessons.names())})" \
            if assignment is not None and assignment not in lessons.names() else ""
        raise AuditError(f"{root}: no <student>/<assignment>/<assignment>.ipynb here{course}; give nbgrader's "
                         "autograded folder ($CLUSTERLAB_COURSE_DIR/autograded after `nbgrader autograde`)")
    subs = []
    for nb_path in notebooks:
        student, name, folder = nb_path.parent.parent.name, nb_path.stem, nb_path.parent
        cells, error = [], None
        try:
            nb = nbformat.read(nb_path, as_version=4)
        except Exception as e:  # a broken notebook is a finding, not a crash
            nb, error = None, f"unreadable notebook: {e}"
        for cell in nb.cells if nb is not None else []:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            calls = grade_calls(cell.source) if cell.cell_type == "code" and meta.get("grade") else None
            if calls:
                points = float(meta.get("points", 0))
                cells.append((meta.get("grade_id", "?"), points, kernel_score(cell, points),
                              tuple((lesson, tuple(ids), pts) for lesson, ids, pts in calls)))
        graded = {lesson for c in cells for lesson, _, _ in c[3]}
        if name in lessons.recording():
            graded.add(name)
        evidence = {f"{lesson}.json": _evidence_bytes(folder / "evidence" / f"{lesson}.json") for lesson in sorted(graded)}
        subs.append(Submission(student, name, str(folder), tuple(cells), evidence, error, tuple(figures)))
    return subs


def _evidence_bytes(path: Path) -> bytes | str:
    """The file's bytes, or why grading would refuse it unread (missing, not a regular file, too large)."""
    from grader.evidence import MAX_BYTES, EvidenceError, read_evidence

    try:
        if path.is_file() and path.stat().st_size <= MAX_BYTES:
            return path.read_bytes()
        read_evidence(path)  # raises, saying which
        return f"{path}: cannot be read"
    except EvidenceError as e:
        return str(e)
    except OSError as e:
        return f"{path}: cannot read: {e.strerror or e}"


def grade_submission(sub: Submission) -> GradedSubmission:
    """Grade one submission: each evidence file once (grader.checking.grade_file, from its raw outputs),
    then each machine cell from it with :func:`grader.scoring.score_checks`' rules (its ``status`` against
    the kernel's score). A pure function of ``sub`` (it writes the bytes into a temporary folder of its own
    and names ``sub.folder`` in every message), so it may run in any process or on any machine."""
    from grader.checking import CheckError, grade_file
    from grader.scoring import score_checks

    with tempfile.TemporaryDirectory(prefix="clusterlab-grade-") as tmp:
        where = Path(tmp) / "evidence"
        where.mkdir()
        graded: dict[str, Any] = {}
        for fname, data in sub.evidence.items():
            lesson = fname.removesuffix(".json")
            if isinstance(data, str):
                graded[lesson] = CheckError(data)
                continue
            (where / fname).write_bytes(data)
            try:
                graded[lesson] = grade_file(where / fname)
            except CheckError as e:
                graded[lesson] = e
        cells = []
        for grade_id, points, got, calls in sub.cells:
            want, lines = 0.0, []
            for lesson, ids, pts in calls:
                with contextlib.redirect_stdout(io.StringIO()):
                    earned, why = score_checks(lesson, list(ids), pts, where, graded.get(lesson))
                want += earned
                lines += why
            want = min(points, round(want, 3))
            status = "ABOVE" if got > want + TOLERANCE else "below" if got < want - TOLERANCE else "agree"
            reason = next((ln for ln in lines if ln.startswith("0/")), lines[-1] if lines else "")
            cells.append(CellAudit(sub.student, sub.assignment, grade_id, got, want, status,
                                   reason.replace(str(where), f"{sub.folder}/evidence")))
        if sub.notebook_error:
            cells.append(CellAudit(sub.student, sub.assignment, "-", 0.0, 0.0, "below", sub.notebook_error))
        grades = tuple(_lesson_grade(lesson, graded[lesson], sub.figures, str(where), f"{sub.folder}/evidence")
                       for lesson in sorted(graded))
    return GradedSubmission(sub.student, sub.assignment, tuple(cells), grades)


def _lesson_grade(lesson: str, result: Any, figures: tuple[str, ...], tmp: str, real: str) -> LessonGrade:
    """A :class:`LessonGrade` from what grade_file gave (a LessonResult) or raised (a CheckError)."""
    from grader.grading import lookup
    from grader.scoring import accepted_profiles

    if isinstance(result, Exception):
        return LessonGrade(lesson, None, (), (), (), str(result).replace(tmp, real))
    found = []
    for path in figures:
        values = [v for _, x in lookup(result.evidence.facts, path) for v in (x if isinstance(x, list) else [x])]
        numbers = tuple(float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool))
        if numbers:
            found.append((path, numbers))
    allowed = accepted_profiles(lesson)
    why = list(result.unfit) + ([f"profile {result.profile}: this course grades {lesson} on {', '.join(allowed)}"]
                                if allowed and result.profile not in allowed else [])
    notes = tuple(n.replace(tmp, real) for n in result.notes if n not in result.unfit)
    return LessonGrade(lesson, result.profile, tuple((v.id, v.status) for v in result.verdicts), tuple(found), notes,
                       "; ".join(why).replace(tmp, real) or None)


def grade_all(autograded: str | Path, assignment: str | None = None, *, figures: tuple[str, ...] = (),
              workers: int | None = None, ray_address: str | None = None) -> list[GradedSubmission]:
    """:func:`grade_submission` over every submission :func:`read_submissions` finds, spread over ``workers``
    processes (default: one per CPU) or Ray tasks at ``ray_address`` (grader.parallel); in path order,
    the same whatever the workers. Raises AuditError (no submissions), grader.parallel.PoolError."""
    from grader.parallel import run_all

    subs = read_submissions(autograded, assignment, figures)
    _warm_up()
    return run_all(grade_submission, subs, workers=workers, ray_address=ray_address)


def _warm_up() -> None:
    """Import the grading code and read the catalogues here once, so forked workers start with them."""
    from grader import lessons
    from grader.facts import derivers
    from grader.grading import load_catalogue
    from grader.scoring import score_checks  # noqa: F401 - imported for the workers

    derivers()
    for lesson in lessons.checked():
        load_catalogue(lesson)


def audit(autograded: str | Path, assignment: str | None = None, *, workers: int | None = None,
          ray_address: str | None = None) -> list[CellAudit]:
    """Every machine grade cell of every submission under ``autograded``, recomputed from its evidence
    (one row per cell, submissions in path order; see :func:`grade_all` for ``workers`` and ``ray_address``).

    Raises AuditError when ``autograded`` holds no ``<student>/<assignment>/<assignment>.ipynb``.
    """
    return [row for g in grade_all(autograded, assignment, workers=workers, ray_address=ray_address)
            for row in g.cells]


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
