"""Every solutions notebook runs headless, top to bottom, against the simulated cluster, with no
error output and every grade cell at full points (nbgrader's rule: any stderr in a grade cell is 0),
except the machine cells whose checks do not apply to the sim (lesson 3's desktop checks, the lab's
ranges): those earn 0 and say where the checks apply.

One sim for the module: the finished pair (``grader.sim.up``). Lesson 2 is served as its notebook tells a sim
learner to serve it (its start cell takes the sim to lesson 2's start, so nothing ready-made may serve), so its
notebook runs where a scripted learner serves it (RUN_ELSEWHERE: tests/test_hands_on_sim.py, after typing the
notebook's sim path, the learner's ``inventory.toml`` beside the notebook); so does the lab, whose learner serves
the pair and the baseline in the nodes between its cells.
Without the serving stack (``grader.sim.serve.installed()`` is not None) the notebooks that need a server are
skipped, saying why. The sim is brought down at the end, pass or fail. Notebooks run in course order (lesson1,
lesson3, lesson4, then any others). Each runs in a scratch copy of its
folder (tests/helpers_notebooks.py), so evidence is written there, never under solutions/.

Needs root (network namespaces). Running it by hand, hold the sim lock:
``flock /tmp/clusterlab-sim.lock .venv/bin/python -m pytest tests/test_notebooks_execute.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers_notebooks import assert_full_marks, execute

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions"
ORDER = ["lesson1", "lesson2", "lesson3", "lesson4", "lab"]
RUN_ELSEWHERE = {"lesson2": "tests/test_hands_on_sim.py::test_a_learner_serves_lesson2_with_the_notebooks_commands runs it "
                            "on the scripted learner's own serving, as a sim learner meets it",
                 "lab": "tests/test_hands_on_sim.py::test_a_learner_serves_the_lab_with_the_notebooks_commands runs it "
                        "on what the scripted learner served, the pair and then the baseline, as the lab's sim path prints"}
"""Notebooks executed at full marks by another test, and where."""
NEEDS_SERVER = {"lesson2": "lesson 2b grades a running Ray + vLLM cluster",
                "lab": "the lab measures a running vLLM server with `clusterlab loadtest`"}
"""Notebooks whose grade cells need the sim's vLLM server, and why."""

pytest.importorskip("nbclient", reason="nbclient is in the notebook extra: pip install -e '.[notebook]'")
pytestmark = [pytest.mark.skipif(os.geteuid() != 0, reason="the simulated cluster needs root (network namespaces)"),
              # the sim here is the answer key's (sim.up without a start state): the instructor's switch lifts the
              # rule that lesson 1's points come from a sim the learner built up (tests/test_hands_on_sim.py holds it)
              pytest.mark.usefixtures("sim_own_work_off")]


def ordered_notebooks() -> list[str]:
    """The assignments in solutions/, in course order (unknown names last, sorted)."""
    names = {p.parent.name for p in SOLUTIONS.glob("*/*.ipynb") if p.stem == p.parent.name}
    return [n for n in ORDER if n in names] + sorted(names - set(ORDER))


@pytest.fixture(scope="module")
def cluster():
    """The sim, served when the serving stack is installed: ``{"serving": bool, "why": str}``; down at the end."""
    from grader import sim
    from grader.sim import serve

    why = serve.installed()
    try:
        sim.up([])
        yield {"serving": why is None, "why": why or ""}
    finally:
        sim.down()


@pytest.mark.parametrize("name", [n for n in ordered_notebooks() if n not in RUN_ELSEWHERE])
def test_solution_notebook_executes_at_full_marks(cluster, name, tmp_path):
    if name in NEEDS_SERVER and not cluster["serving"]:
        pytest.skip(f"{name}: {NEEDS_SERVER[name]}, and the serving stack is missing: {cluster['why']}")
    (tmp_path / name).mkdir()
    nb = execute(SOLUTIONS / name / f"{name}.ipynb", tmp_path / name, timeout=600)
    assert_full_marks(nb, name, tmp_path / name)
    assert not (SOLUTIONS / name / "evidence").exists(), f"{name} wrote evidence under solutions/"
