"""A generated class: an nbgrader-style autograded folder of K learners, built from the golden evidence.

``<root>/<student>/<assignment>/<assignment>.ipynb`` with ``evidence/<assignment>.json`` beside it, as
``nbgrader autograde`` leaves them (tests/test_course.py runs the real thing on a handful of submissions;
running it for hundreds takes hours, so this writes what it would write). Each learner gets, per
assignment, one case of :data:`CASES` in turn (learner i takes case ``i + offset`` of the assignment's
list), so a class of a dozen sees every case:

- recorded evidence chosen among the golden files (tests/fixtures/golden/, recorded by the grader; see
  its README) and the replays shipped with the labs (solutions/<lesson>/recorded/): healthy, a fault, a
  learner who started nothing, another profile (lesson 3's desktop), one card where two are expected;
- each learner's copy is made on "their own machines": the nodes' SSH host-key fingerprints in its
  provenance are derived from the learner's name and the file sealed again (grader.evidence.seal), so no
  two learners share a recording (grader.audit.shared_evidence) unless a case says so. Nothing graded
  changes: identity is not a fact, and every raw output and its sha256 stay as recorded;
- ``shared``: two or more learners hand in one recording (same host keys): SHARED;
- ``replay``: the replay shipped with the labs, unchanged (earns nothing; several copies are SHARED too);
- ``tampered``: healthy evidence with a raw output edited by hand, and a notebook whose machine grade cells
  scored full points (a learner who replaced ``cl.grade_checks``): ABOVE;
- ``inflated`` (lesson 1): MTU 1500 measured with a healthy run's facts pasted in, and full points claimed:
  the cell grading L1.mtu is ABOVE;
- ``broken``: an evidence file that is not JSON; ``noevidence``: the notebook alone; ``missing``: no
  submission at all.

Honest notebooks carry what their grade cells printed and returned in the kernel
(grader.scoring.score_checks on the learner's own evidence, as ``cl.grade_checks`` runs it).

As a script: ``python -m tests.classgen DIR [--learners K]`` writes a class into DIR and prints its plan.
"""

from __future__ import annotations

import argparse
import base64
import copy
import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "fixtures" / "golden"


@dataclass(frozen=True)
class Case:
    """How one submission is made: ``source`` the recorded evidence it starts from (None: no evidence),
    ``how`` one of honest, shared, replay, tampered, inflated, broken, noevidence, missing."""

    name: str
    source: Path | None
    how: str = "honest"


def _golden(name: str) -> Path:
    return GOLDEN / name


def _replay(lesson: str) -> Path:
    return ROOT / "solutions" / lesson / "recorded" / f"{lesson}.json"


CASES: dict[str, tuple[Case, ...]] = {
    "lesson1": (
        Case("healthy", _golden("lesson1-sim-healthy.json")),
        Case("mtu1500", _golden("lesson1-sim-mtu-1500.json")),
        Case("shared", _golden("lesson1-sim-healthy.json"), "shared"),
        Case("shared", _golden("lesson1-sim-healthy.json"), "shared"),
        Case("replay", _replay("lesson1"), "replay"),
        Case("tampered", _golden("lesson1-sim-healthy.json"), "tampered"),
        Case("inflated", _golden("lesson1-sim-mtu-1500.json"), "inflated"),
        Case("mtu1500", _golden("lesson1-sim-mtu-1500.json")),
        Case("broken", None, "broken"),
        Case("noevidence", None, "noevidence"),
        Case("missing", None, "missing"),
    ),
    "lesson2": (
        Case("healthy", _golden("lesson2-sim-healthy.json")),
        Case("nothing", _golden("lesson2-sim-nothing-started.json")),
        Case("replay", _replay("lesson2"), "replay"),
        Case("tampered", _golden("lesson2-sim-healthy.json"), "tampered"),
        Case("healthy", _golden("lesson2-sim-healthy.json")),
        Case("noevidence", None, "noevidence"),
        Case("missing", None, "missing"),
    ),
    "lesson3": (
        Case("healthy", _golden("lesson3-desktop-healthy.json")),
        Case("onecard", _golden("lesson3-desktop-one-card.json")),
        Case("replay", _replay("lesson3"), "replay"),
        Case("noevidence", None, "noevidence"),
        Case("healthy", _golden("lesson3-desktop-healthy.json")),
    ),
    "lab": (
        Case("healthy", _golden("lab-sim-healthy.json")),
        Case("replay", _replay("lab"), "replay"),
        Case("tampered", _golden("lab-sim-healthy.json"), "tampered"),
        Case("noevidence", None, "noevidence"),
        Case("healthy", _golden("lab-sim-healthy.json")),
        Case("missing", None, "missing"),
    ),
}
"""The cases of each assignment, in the order learners take them."""

OFFSETS = {"lesson1": 0, "lesson2": 3, "lesson3": 1, "lab": 2}
"""Where each assignment's cycle starts, so one learner's cases differ across assignments."""


def learner_names(k: int) -> list[str]:
    """``learner000`` ... for a class of ``k``."""
    return [f"learner{i:03d}" for i in range(k)]


def plan_class(names: list[str]) -> dict[tuple[str, str], Case]:
    """``{(student, assignment): case}`` for every learner and assignment (``missing`` ones included)."""
    return {(s, a): cases[(i + OFFSETS[a]) % len(cases)] for i, s in enumerate(names) for a, cases in CASES.items()}


def _host_key(seed: str) -> str:
    """An OpenSSH-style ``SHA256:`` fingerprint derived from ``seed`` (a machine of the learner's own)."""
    return "SHA256:" + base64.b64encode(hashlib.sha256(seed.encode()).digest()).decode().rstrip("=")


def _own_machines(ev: dict, owner: str) -> dict:
    """``ev`` recorded on ``owner``'s machines: its nodes' host keys derived from ``owner``, sealed again."""
    from grader.evidence import seal

    ev = copy.deepcopy(ev)
    for node, entry in (ev.get("provenance", {}).get("nodes") or {}).items():
        if isinstance(entry, dict) and entry.get("host_key"):
            entry["host_key"] = _host_key(f"{owner}/{node}")
    return seal(ev)


def evidence_for(case: Case, student: str, assignment: str) -> bytes | None:
    """The bytes of ``student``'s evidence file for ``case`` (None: the submission has none)."""
    from tests.test_course import inflate_facts, tamper_raw

    if case.how == "broken":
        return b'{"schema": "clusterlab.evidence/1", this is not JSON'
    if case.source is None:
        return None
    ev = json.loads(case.source.read_text())
    if case.how == "replay":
        return case.source.read_bytes()
    ev = _own_machines(ev, f"shared-{assignment}" if case.how == "shared" else student)
    if case.how == "tampered":
        ev = tamper_raw(ev)
    elif case.how == "inflated":
        ev = inflate_facts(ev, json.loads(_golden(f"{assignment}-sim-healthy.json").read_text()))
    return json.dumps(ev, indent=1).encode()


def _notebook(template, folder: Path, assignment: str, case: Case):
    """The autograded notebook: the source notebook with each machine grade cell's kernel output (what
    ``cl.grade_checks`` printed and returned; full points claimed for a tampered or inflated case)."""
    import nbformat

    from grader.audit import grade_calls
    from grader.checking import CheckError, grade_file
    from grader.scoring import score_checks

    nb = copy.deepcopy(template)
    graded: dict[str, object] = {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        cell.outputs, cell.execution_count = [], 1
        meta = cell.get("metadata", {}).get("nbgrader", {})
        calls = grade_calls(cell.source) if meta.get("grade") else None
        if not calls:
            continue
        points = float(meta["points"])
        if case.how in ("tampered", "inflated"):  # cl.grade_checks replaced in the kernel: full points
            earned, lines = points, [f"{points:g}/{points:g}"]
        else:
            earned, lines = 0.0, []
            for lesson, ids, pts in calls:
                if lesson not in graded:
                    try:
                        graded[lesson] = grade_file(folder / "evidence" / f"{lesson}.json")
                    except CheckError as e:
                        graded[lesson] = e
                got, why = score_checks(lesson, ids, pts, folder / "evidence", graded[lesson])
                earned, lines = earned + got, lines + why
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="\n".join(lines) + "\n"),
                        nbformat.v4.new_output("execute_result", data={"text/plain": repr(round(earned, 3))},
                                               execution_count=1)]
    return nb


def make_class(root: str | Path, names: list[str] | int) -> dict[tuple[str, str], Case]:
    """Write a generated class under ``root`` (``names``: the learners, or how many); return its plan
    (:func:`plan_class`: ``missing`` cases have no folder)."""
    import nbformat

    names = learner_names(names) if isinstance(names, int) else list(names)
    root = Path(root)
    plan = plan_class(names)
    templates = {a: nbformat.read(ROOT / "solutions" / a / f"{a}.ipynb", as_version=4) for a in CASES}
    for (student, assignment), case in plan.items():
        if case.how == "missing":
            continue
        folder = root / student / assignment
        (folder / "evidence").mkdir(parents=True, exist_ok=True)
        data = evidence_for(case, student, assignment)
        if data is not None:
            (folder / "evidence" / f"{assignment}.json").write_bytes(data)
        nbformat.write(_notebook(templates[assignment], folder, assignment, case), folder / f"{assignment}.ipynb")
    return plan


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", help="the folder to write (an autograded folder)")
    ap.add_argument("--learners", type=int, default=12)
    args = ap.parse_args(argv)
    plan = make_class(args.root, args.learners)
    for (student, assignment), case in sorted(plan.items()):
        print(f"{student:12} {assignment:8} {case.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
