#!/usr/bin/env python3
"""Benchmark: grading a class, and what grading adds to one nbgrader autograde.

1. A generated class of 200 submissions (tests/classgen.py: golden evidence, faults, replays, doctored
   and missing files) graded from its evidence (grader.audit.grade_all, what ``clusterlab audit`` and
   ``clusterlab class-report`` run) with 1 worker and with one per CPU: submissions per second each,
   and the whole ``class-report`` (grading, audit, plots, page). The two gradings must be identical.
2. ``nbgrader autograde lesson1`` of one submission (the correct answers, the golden healthy evidence)
   through the real nbgrader command line in a scratch course (as tests/test_course.py drives it),
   against the floor: the same notebook with every grade cell's body replaced by ``pass``.
   Target: within 1.5x of the floor (the ratio of the medians).

    .venv/bin/python benchmarks/class_report.py [--submissions 200] [--runs 3]

Prints the figures; exits 1 when a target is missed (or 1 and N workers disagree), 2 when it cannot
run (no nbgrader). Timings on a shared machine are noisy: read several runs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

AUTOGRADE_TARGET = 1.5
"""nbgrader autograde of a lesson-1 submission: at most this many times the floor (grade cells of `pass`)."""


def make_class_of(root: Path, submissions: int) -> int:
    """A generated class with exactly ``submissions`` submission folders under ``root`` (the last ones of
    a slightly larger class left out); returns how many learners it has."""
    from tests.classgen import learner_names, make_class, plan_class

    k = 1
    while sum(c.how != "missing" for c in plan_class(learner_names(k)).values()) < submissions:
        k += 1
    make_class(root, k)
    folders = sorted(p.parent for p in root.glob("*/*/*.ipynb"))
    for extra in folders[submissions:]:
        shutil.rmtree(extra)
    return k


def grading(submissions: int, runs: int) -> bool:
    """Part 1; True when 1 worker and all cores give the same results."""
    from grader.audit import grade_all
    from grader.classreport import build, write
    from grader.parallel import default_workers

    cores = default_workers()
    with tempfile.TemporaryDirectory(prefix="clusterlab-class-") as tmp:
        root = Path(tmp) / "autograded"
        learners = make_class_of(root, submissions)
        print(f"generated class: {submissions} submissions from {learners} learners ({root})")
        results, rates = {}, {}
        for workers in (1, cores):
            times = []
            for _ in range(runs):
                t0 = time.perf_counter()
                results[workers] = grade_all(root, workers=workers)
                times.append(time.perf_counter() - t0)
            rates[workers] = submissions / min(times)
            print(f"  grade from evidence, {workers} worker(s): " + ", ".join(f"{t:.2f} s" for t in times)
                  + f"; best {rates[workers]:.1f} submissions/s")
        print(f"  speed-up with {cores} workers: {rates[cores] / rates[1]:.2f}x on {cores} CPUs")
        t0 = time.perf_counter()
        report = build(root, workers=cores)
        page, _ = write(report, Path(tmp) / "report.html")
        print(f"  class-report ({cores} workers, plots and page included): {time.perf_counter() - t0:.2f} s, "
              f"{page.stat().st_size / 1024:.0f} KiB page, {len(report.flagged)} rows flagged")
        same = results[1] == results[cores]
        print(f"  1 worker and {cores} workers give the same results: {'yes' if same else 'NO'}")
        return same


def _pass_source(tmp: Path) -> Path:
    """A copy of solutions/ whose lesson1 grade cells' bodies are ``pass`` (the floor's source folder)."""
    import nbformat

    src = tmp / "floor-src"
    shutil.copytree(ROOT / "solutions" / "lesson1", src / "lesson1", ignore=shutil.ignore_patterns("evidence"))
    nb = nbformat.read(src / "lesson1" / "lesson1.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.get("metadata", {}).get("nbgrader", {}).get("grade"):
            cell.source = "pass"
    nbformat.write(nb, src / "lesson1" / "lesson1.ipynb")
    return src


def _course(tmp: Path, name: str, source: Path | None) -> tuple[dict[str, str], list[str]]:
    """A scratch course with one lesson1 submission; returns (environment, the autograde command)."""
    import nbformat

    from tests.test_course import GOLDEN, NBGRADER, course_env, fill_answers, run_nbgrader

    env = course_env(tmp / name)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))  # the kernel grades with this checkout
    release = tmp / name / "release"
    extra = [f"--CourseDirectory.source_directory={source}"] if source else []
    run_nbgrader(["generate_assignment", "lesson1", "--force", f"--CourseDirectory.release_directory={release}",
                  *extra], env)
    solution = nbformat.read((source or ROOT / "solutions") / "lesson1" / "lesson1.ipynb", as_version=4)
    released = nbformat.read(release / "lesson1" / "lesson1.ipynb", as_version=4)
    d = Path(env["CLUSTERLAB_COURSE_DIR"]) / "submitted" / "learner" / "lesson1"
    shutil.copytree(release / "lesson1", d)
    nbformat.write(fill_answers(released, solution, lambda code: code), d / "lesson1.ipynb")
    (d / "timestamp.txt").write_text("2026-11-29 18:00:00.000000 UTC")
    (d / "evidence").mkdir()
    shutil.copy(GOLDEN / "lesson1-sim-healthy.json", d / "evidence" / "lesson1.json")
    return env, [str(NBGRADER), "autograde", "lesson1", "--force", *extra]


def autograde(runs: int) -> bool:
    """Part 2; True when the target is met."""
    from tests.test_course import NBGRADER

    if not NBGRADER.exists():
        print(f"clusterlab: {NBGRADER} not found: install the notebook extra (`bash scripts/install.sh`)", file=sys.stderr)
        sys.exit(2)
    with tempfile.TemporaryDirectory(prefix="clusterlab-autograde-") as tmp_:
        tmp = Path(tmp_)
        setups = {"real": _course(tmp, "real", None), "floor": _course(tmp, "floor", _pass_source(tmp))}
        times: dict[str, list[float]] = {"real": [], "floor": []}
        for _ in range(runs):
            for name, (env, cmd) in setups.items():  # interleaved: the machine's load hits both alike
                t0 = time.perf_counter()
                proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
                times[name].append(time.perf_counter() - t0)
                if proc.returncode != 0:
                    print(f"nbgrader autograde ({name}) exited {proc.returncode}:\n{(proc.stdout + proc.stderr)[-2000:]}")
                    sys.exit(2)
        score = _scores(setups["real"][0])
    real, floor = statistics.median(times["real"]), statistics.median(times["floor"])
    print("nbgrader autograde lesson1, one submission (correct answers, golden healthy evidence)")
    for name in ("real", "floor"):
        label = "the lesson's grade cells" if name == "real" else "grade cells of `pass` (floor)"
        print(f"  {label:32} " + ", ".join(f"{t:.2f} s" for t in times[name]) + f"; median {statistics.median(times[name]):.2f} s")
    ratio = real / floor
    print(f"  ratio {ratio:.2f}x (target <= {AUTOGRADE_TARGET}x); the submission scored {score}")
    return ratio <= AUTOGRADE_TARGET


def _scores(env: dict[str, str]) -> str:
    """The autograded submission's total score over the total possible, from nbgrader's gradebook."""
    from nbgrader.api import Gradebook

    db = Path(env["CLUSTERLAB_COURSE_DIR"]) / "gradebook.db"
    with Gradebook(f"sqlite:///{db}", "clusterlab") as gb:
        sub = gb.find_submission_notebook("lesson1", "lesson1", "learner")
        return f"{sub.score:g}/{sub.max_score:g}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--submissions", type=int, default=200)
    ap.add_argument("--runs", type=int, default=3, help="timed runs of each (default 3)")
    args = ap.parse_args()
    os.environ.pop("NBGRADER_EXECUTION", None)
    print(f"clusterlab benchmark on {os.cpu_count()} CPUs (shared: timings are noisy)")
    same = grading(args.submissions, args.runs)
    fast = autograde(args.runs)
    missed = ([] if same else ["1 worker and N workers disagree"]) + \
             ([] if fast else [f"autograde above {AUTOGRADE_TARGET}x its floor"])
    print("targets: " + ("all met" if not missed else "MISSED: " + "; ".join(missed)))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
