"""One lesson's check, start to end: connect, probe, derive facts, save evidence, grade.

The command line (``clusterlab check`` / ``grade``) and the notebooks (:mod:`grader.notebook`)
both call these functions, so a learner sees the same verdicts in a shell and in JupyterLab.
:func:`run_lesson` is the one pipeline connect -> collect -> derive -> save -> grade: ``check``,
``clusterlab loadtest`` (grader.loadtest) and ``clusterlab verify`` (grader.verify) all run it; what
each lesson probes, derives and grades comes from the registry (grader.lessons).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from grader import lessons as registry
from grader.evidence import Evidence, EvidenceError, load_evidence
from grader.grading import Verdict, exit_code, grade, score

PROBED_LESSONS = registry.probed()
"""Lessons whose evidence comes from probing the nodes (the lab's comes from ``clusterlab loadtest``)."""


class CheckError(Exception):
    """The check could not run at all: bad inventory, sim down, no node reachable, unreadable evidence.

    The message names the problem and the fix; nothing measured is lost (a partial run still saves).
    """


@dataclass
class LessonResult:
    """The outcome of one lesson: its verdicts, the evidence they were graded from, and where it lies.

    ``saved`` is the evidence file written (None when the caller asked not to write one);
    ``errors`` is ``{node: why it could not be reached}``.
    """

    lesson: str
    profile: str
    verdicts: list[Verdict]
    evidence: Evidence
    saved: Path | None = None
    errors: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    inflated: set[str] = field(default_factory=set)
    unfit: list[str] = field(default_factory=list)
    """Why this evidence earns no points whatever its verdicts: its outputs do not show its profile, or
    it is a replay (:func:`evidence_unfit`). Also in ``notes``."""
    not_earned: list[str] = field(default_factory=list)
    """``check`` only: why the grade cells will give this evidence 0 though it describes its machines truly
    (sim evidence of a sim the answer key or a ready-made build finished: grader.provenance.sim_work_problem).
    Also in ``notes``; unlike ``unfit`` it leaves the exit status to the verdicts, as ``check`` is the learner's
    self-check. Grading the file (:func:`grade_file`) puts the same sentence in ``unfit``."""

    @property
    def exit_code(self) -> int:
        """0 every applicable check passed (or warned), 1 something failed or was not measured, or the
        evidence earns nothing whatever its verdicts (``unfit``: a replay, a profile its outputs do not show)."""
        return 1 if self.unfit else exit_code(self.verdicts)

    @property
    def score(self) -> tuple[float, float]:
        """(points earned, points possible): n.a. checks not counted, not measured ones earn 0."""
        return score(self.verdicts)


def evidence_not_earned(ev: Evidence) -> list[str]:
    """:attr:`LessonResult.not_earned` for ``ev`` (grader.provenance.sim_work_problem); empty when it may earn."""
    from grader.provenance import sim_work_problem

    why = sim_work_problem(ev)
    return [why] if why else []


def sim_record(profile: str) -> dict[str, Any] | None:
    """The sim's record of how it was built (grader.sim.cluster.work_record) for evidence of ``profile``
    ``sim``, else None; ``{"unreadable": why}`` when the sim's state cannot be read (not root)."""
    if profile != "sim":
        return None
    try:
        from grader.sim.cluster import work_record

        return work_record()
    except Exception as e:  # a record that cannot be read earns nothing; the measurement is kept
        return {"unreadable": f"{type(e).__name__}: {e}"}


def evidence_unfit(ev: Evidence) -> list[str]:
    """Sentences saying why ``ev`` cannot earn points, whatever its verdicts: it is a replay shipped with
    the labs (or recorded on the same machines as one), or its own outputs do not show the profile it
    claims (grader.provenance). Empty when it may earn points."""
    from grader.provenance import profile_problem, replay_problem

    return [why for why in (replay_problem(ev), profile_problem(ev)) if why]


def sim_is_down(profile: str) -> bool:
    """A sim inventory is only probed while the sim's bridge exists, so no packet leaves the machine."""
    return profile == "sim" and not Path("/sys/class/net/clsim-br0").exists()


N_NODE_LESSONS = tuple(lesson.name for lesson in registry.REGISTRY.values() if lesson.any_nodes)
"""The lessons probed on a ring or a switch of more than two nodes (``Lesson.any_nodes`` in grader.lessons)."""


def two_nodes_at_most(inv: Any, lessons: tuple[str, ...] | list[str] = ()) -> None:
    """Raise CheckError, saying what to do, for an inventory of more than two nodes (a ring or a switch,
    ``topology`` in the inventory) unless every lesson in ``lessons`` is one of :data:`N_NODE_LESSONS`
    (no lessons: whatever the caller does next needs a pair)."""
    if len(getattr(inv, "nodes", ())) > 2 and (not lessons or any(x not in N_NODE_LESSONS for x in lessons)):
        other = [x for x in lessons if x not in N_NODE_LESSONS] or ["this command"]
        raise CheckError(f"this inventory is a {inv.topology} of {len(inv.nodes)} nodes: {', '.join(other)} probes "
                         f"two nodes for now ({' and '.join(N_NODE_LESSONS)} probe any number). To check one "
                         "link, write an inventory with topology = \"pair\" and the two nodes at its ends.")


def connect_nodes(inv: Any, lessons: tuple[str, ...] | list[str] = ()) -> tuple[dict[str, Any], dict[str, str]]:
    """Connect to every node of a loaded inventory: ``(conns, {node: why it was not reached})``.

    Raises CheckError for an inventory of more than two nodes unless ``lessons`` all probe N nodes
    (:func:`two_nodes_at_most`), when the
    inventory is the sim's and the sim is down, or when no node could be reached. The caller closes the
    connections."""
    from grader.transport import connect_all

    two_nodes_at_most(inv, lessons)
    if sim_is_down(inv.profile):
        raise CheckError("the simulated cluster is not up (no clsim-br0 bridge): run `clusterlab sim up` as root first")
    conns, errors = connect_all(inv)
    if not conns:
        raise CheckError("no node could be reached: " + " | ".join(errors.values()))
    return conns, errors


def remeasure_flagged(inv: Any, conns: dict[str, Any], ev: Evidence) -> None:
    """The pairwise rule on a switch or ring (checks/pairwise.toml): measure every pair flagged below the
    best pair's bar once more before it is judged; the new outputs go into ``ev``."""
    from grader.facts.lesson1_multi import flagged_pairs
    from grader.probes.lesson1_multi import remeasure

    flagged = flagged_pairs(ev)
    if flagged:
        remeasure(inv, conns, ev, flagged)


def run_lesson(lesson: str, inv: Any, conns: dict[str, Any] | None = None, errors: dict[str, str] | None = None, *,
               collect: Callable[[Any, dict[str, Any], dict[str, str]], Evidence] | None = None,
               evidence_dir: str | Path | None = None, must_save: bool = False) -> LessonResult:
    """One lesson, connect -> collect -> derive -> save -> grade: the pipeline of ``clusterlab check``,
    ``loadtest`` and ``verify``.

    ``inv``: a loaded inventory. ``conns``/``errors``: open connections and the nodes not reached
    (:func:`connect_nodes`); when ``conns`` is None they are opened here (CheckError as there) and closed
    before deriving. ``collect(inv, conns, errors) -> Evidence`` gathers the raw outputs (it gets a copy
    of ``errors``); by default the lesson's collector in the registry (grader.lessons), so a lesson that
    is not probed needs one given (the lab's load test). The facts come from the lesson's deriver
    (grader.facts.derivers) and the verdicts from its catalogue for the inventory's profile.

    ``evidence_dir``: where ``<lesson>.json`` is saved (None: nothing written). A folder that cannot be
    written is a note in the result (graded, not saved) unless ``must_save``, where the OSError is raised.
    Raises grader.lessons.UnknownLesson for a lesson the registry does not hold, and CheckError for an
    inventory of more than two nodes with a lesson that probes a pair only (:data:`N_NODE_LESSONS`).
    """
    from grader.facts import derivers

    entry = registry.get(lesson)
    two_nodes_at_most(inv, (lesson,))
    collect = collect or entry.collector()
    own = conns is None
    if own:
        conns, errors = connect_nodes(inv, (lesson,))
    try:
        ev = collect(inv, conns, dict(errors or {}))
        if lesson == "lesson1" and inv.topology != "pair":
            remeasure_flagged(inv, conns, ev)
    finally:
        if own:
            for c in conns.values():
                c.close()
    record = sim_record(inv.profile)
    if record is not None:
        ev.provenance["sim"] = record
    ev.facts = derivers()[lesson](ev)
    saved, notes = None, []
    if evidence_dir is not None:
        try:
            saved = ev.save(evidence_dir)
        except OSError as e:
            if must_save:
                raise
            notes.append(f"the evidence could not be written to {evidence_dir}/ ({e.strerror or e}): "
                         "graded here but not saved; make that folder writable and check again")
    unfit, not_earned = evidence_unfit(ev), evidence_not_earned(ev)
    return LessonResult(lesson, inv.profile, grade(ev.facts, lesson, inv.profile), ev, saved, dict(ev.errors),
                        notes + unfit + not_earned, unfit=unfit, not_earned=not_earned)


def check(inventory: str | Path, lessons: list[str] | tuple[str, ...], evidence_dir: str | Path | None = "evidence",
          progress: Callable[[str, int, int], None] | None = None) -> list[LessonResult]:
    """Probe the inventory's nodes for each lesson, save ``<evidence_dir>/<lesson>.json``, grade.

    ``progress(label, done, total)`` is called from the calling thread as probes finish
    (``label`` like ``"lesson1 spark-a ip_addr"``). ``evidence_dir=None`` saves nothing.
    Raises CheckError (bad inventory, sim down, no node reachable, unknown lesson).
    """
    from grader import probes
    from grader.inventory import InventoryError, load_inventory

    unknown = [x for x in lessons if x not in PROBED_LESSONS]
    if unknown:
        raise CheckError(f"cannot probe {', '.join(unknown)}: probed lessons are {', '.join(PROBED_LESSONS)} "
                         "(the lab's evidence comes from `clusterlab loadtest`)")
    try:
        inv = load_inventory(inventory)
    except InventoryError as e:
        raise CheckError(str(e)) from None
    conns, errors = connect_nodes(inv, lessons)
    token = probes.PROGRESS.set(progress)
    try:
        return [run_lesson(lesson, inv, conns, errors, evidence_dir=evidence_dir) for lesson in lessons]
    finally:
        probes.PROGRESS.reset(token)
        for c in conns.values():
            c.close()


def grade_file(path: str | Path, profile: str | None = None) -> LessonResult:
    """Grade a recorded evidence file again, no cluster needed: every fact re-derived from its raw outputs.

    ``profile`` overrides the one recorded. Raises CheckError for a missing, unreadable, foreign,
    malformed or edited file (an output that no longer matches its sha256). The verdicts always come
    from the raw outputs. When the file's stored facts were derived by the same code
    (:func:`grader.evidence.facts_code`) and disagree with the re-derived ones, ``notes`` says which,
    and ``inflated`` lists the checks the stored facts would have passed that the raw outputs do not
    (a summary edited to claim more than was measured). ``unfit`` says why the file earns nothing
    whatever its verdicts (a replay; outputs that do not show its profile).

    Re-deriving the facts has a wall-clock budget (CLUSTERLAB_GRADE_DEADLINE_S, default 20 s; see
    :mod:`grader.deadline`): an output no reader gets through in time raises CheckError saying so, so a
    grade cell earns 0 with that reason instead of stalling an autograde.
    """
    from grader.deadline import DeadlineExceeded, deadline, grade_deadline_s
    from grader.evidence import stored_facts_differ
    from grader.facts import derivers

    try:
        ev = load_evidence(path)
    except EvidenceError as e:
        raise CheckError(str(e)) from None
    derive = derivers().get(ev.lesson)
    if derive is None:
        raise CheckError(f"{path}: this grader does not know lesson {ev.lesson!r}")
    limit = grade_deadline_s()
    try:
        with deadline(limit):
            facts = derive(ev)
    except DeadlineExceeded:
        raise CheckError(f"{path}: deriving the facts from its raw outputs took longer than {limit:g} s "
                         "(CLUSTERLAB_GRADE_DEADLINE_S): an output too large or malformed; record it again "
                         "with `clusterlab check`.") from None
    except Exception as e:  # a raw output no parser shape expected: say so, never a traceback
        raise CheckError(f"{path}: its raw outputs cannot be read ({type(e).__name__}: {e}). "
                         "Record it again with `clusterlab check`.") from None
    prof = profile or ev.profile
    verdicts = grade(facts, ev.lesson, prof)
    notes, inflated = [], set()
    keys = stored_facts_differ(ev, facts)
    if keys:
        try:
            claimed = {v.id: v.earned for v in grade(ev.facts, ev.lesson, prof)}
        except Exception:  # stored facts of any shape: what they claim is unknown, take it as all
            claimed = {v.id: float("inf") for v in verdicts}
        inflated = {v.id for v in verdicts if claimed.get(v.id, 0) > v.earned}
        notes.append(f"{path}: the facts stored in the file disagree with its raw outputs ({', '.join(keys)})"
                     + (f" and would pass {', '.join(sorted(inflated))}, which the raw outputs do not" if inflated
                        else "") + "; graded from the raw outputs")
    unfit = evidence_unfit(ev) + evidence_not_earned(ev)  # grading: what the file earns
    ev.facts = facts
    return LessonResult(ev.lesson, prof, verdicts, ev, Path(path), dict(ev.errors), notes + unfit, inflated, unfit)
