"""The scoring rule of a machine grade cell: the points ``check_ids`` earn from a lesson's evidence, and why.

One rule, called by every use that scores: the notebooks' grade cells (:mod:`grader.notebook`),
``clusterlab audit`` (:mod:`grader.audit`, re-scoring a submission) and what builds on it
(``class-report``), and the ceiling a notebook states per profile (:mod:`grader.ceiling`). The instructor's
per-lesson profile setting (:func:`accepted_profiles`) is read here too.
"""

from __future__ import annotations

import os
from pathlib import Path

from grader.checking import PROBED_LESSONS, CheckError, LessonResult, grade_file
from grader.grading import LABELS, Verdict, load_catalogue
from grader.report import EXPLAINED


def accepted_profiles(lesson: str) -> list[str]:
    """The profiles whose evidence earns points for ``lesson``: the instructor's setting (nbgrader_config.py
    exports it to the kernels). ``$CLUSTERLAB_PROFILES_<LESSON>`` (e.g. ``CLUSTERLAB_PROFILES_LESSON3``),
    else ``$CLUSTERLAB_PROFILES``, comma-separated; ``[]`` when neither is set (every profile)."""
    raw = os.environ.get(f"CLUSTERLAB_PROFILES_{lesson.upper()}", os.environ.get("CLUSTERLAB_PROFILES", ""))
    return [p.strip() for p in raw.split(",") if p.strip()]


def score_checks(lesson: str, check_ids: list[str], points: float, evidence_dir: Path,
                 graded: LessonResult | CheckError | None = None, replay: bool = False) -> tuple[float, list[str]]:
    """The points a machine grade cell earns for ``check_ids`` (of ``points``) from
    ``<evidence_dir>/<lesson>.json``, and the lines that say why: what a notebook's grade cell prints
    (:func:`grader.notebook.grade_checks`), ``clusterlab audit`` re-scores and ``class-report`` shows.
    ``graded``: what :func:`grade_file` gave (or raised) for that file when the caller has it already, so
    that a submission's cells grade its evidence once; ``replay``: the notebook found no inventory (its
    missing evidence then says why). The rule, case by case, is :func:`grader.notebook.grade_checks`'
    docstring. Raises only on a grader bug; grade_checks turns that into 0."""
    zero = f"0/{points:g}:"
    allowed = accepted_profiles(lesson)
    course = f"this course grades {lesson} on profile {', '.join(allowed)}" if allowed else ""
    try:
        if isinstance(graded, CheckError):
            raise graded
        result = graded or grade_file(evidence_dir / f"{lesson}.json")
    except CheckError as e:
        why = [f"{zero} {e}"]
        if replay and not (evidence_dir / f"{lesson}.json").exists():
            why.append("(no cluster inventory was found here, so nothing was recorded: these cells grade your own "
                       "evidence, which the Check my cluster cell writes once it can reach your machines or the sim)")
        return 0.0, why + ([f"({course})"] if course else [])
    if result.lesson != lesson:
        return 0.0, [f"{zero} {evidence_dir}/{lesson}.json holds evidence of {result.lesson}, not {lesson}"]
    if allowed and result.profile not in allowed:
        return 0.0, [f"{zero} the evidence was recorded on profile {result.profile}; {course} "
                     f"(CLUSTERLAB_PROFILES_{lesson.upper()} or CLUSTERLAB_PROFILES): record it there"]
    lines = [n for n in result.notes if n not in result.unfit + result.not_earned] + ([f"({course})"] if course else [])
    disputed = sorted(result.inflated & set(check_ids))
    if disputed:
        return 0.0, lines + [f"{zero} the file's summary claims {', '.join(disputed)}, which its raw outputs do not show"]
    silent = _silent_nodes(result)
    if silent:
        return 0.0, lines + [f"{zero} {', '.join(silent)} answered no probe when this was recorded "
                             f"({'; '.join(result.errors.get(n, 'no output') for n in silent)}): check again "
                             "with every node reachable"]
    if result.unfit or result.not_earned:
        return 0.0, lines + [f"{zero} {why}" for why in result.unfit + result.not_earned]
    chosen = {v.id: v for v in result.verdicts if v.id in check_ids}
    missing = [c for c in check_ids if c not in chosen]
    if missing:
        return 0.0, lines + [f"{zero} the grader has no checks {', '.join(missing)} for {lesson}"]
    counted = [v for v in chosen.values() if v.status != "skip"]
    lines += [_verdict_line(v) for v in chosen.values()]
    if not counted:
        where = sorted({p for c in load_catalogue(lesson) if c["id"] in check_ids for p in c["profiles"]})
        return 0.0, lines + [f"{zero} none of these checks applies to profile {result.profile}, so nothing here was "
                             f"measured: they are measured on {', '.join(where)}; record {lesson} there"
                             + (" (the sim cluster counts if this course accepts it)" if "sim" in where else "")]
    if not sum(v.points for v in counted):
        return 0.0, lines + [f"{zero} on profile {result.profile} these checks are given, not the learner's work "
                             "(each row above says why), so they earn nothing here"]
    earned = round(points * sum(v.earned for v in counted) / sum(v.points for v in counted), 3)
    if all(v.status == "unmeasured" for v in counted):
        return 0.0, lines + [f"{zero} nothing of this was measured on profile {result.profile}: each NOT MEASURED "
                             "row above says what to start, name or run, then check again"]
    return earned, lines + [f"{earned:g}/{points:g} on profile {result.profile}"]


def _silent_nodes(result: LessonResult) -> list[str]:
    """Nodes of a probed lesson's evidence without one probe that exited 0 (none for the lab)."""
    if result.lesson not in PROBED_LESSONS:
        return []
    answered = {r.node for r in result.evidence.raw if r.exit_status == 0}
    return [n["name"] for n in result.evidence.inventory.get("nodes", []) if n["name"] not in answered]


def _verdict_line(v: Verdict) -> str:
    line = f"{LABELS[v.status]} {v.id} {v.earned:g}/{v.points:g}: {v.title}"
    if v.status in EXPLAINED:
        line += "".join(f"\n       - {d}" for d in v.details) + f"\n       hint: {v.hint}"
    return line
