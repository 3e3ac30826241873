"""What each notebook can earn per profile (issue 28: lesson 2 promised one-Spark and desktop learners "full
points" for checks that earn them 0). grader.ceiling reads the grade cells and the catalogue; here the same
figures are worked out another way: the total of a notebook's grade cells less the cells none of whose checks
applies to the profile (tests/helpers_notebooks.not_applicable_cells), and the course's figures as the issue
measured them by grading (a sim learner's ceiling 92 of 106; one Spark 0 of lesson 2's 26 machine points)."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from grader import notebook as cl
from grader.ceiling import ceilings
from grader.inventory import PROFILES
from tests.helpers_notebooks import meta, not_applicable_cells

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "labs").glob("*/*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_ceiling_is_the_total_less_the_cells_that_do_not_apply(path):
    nb = nbformat.read(path, as_version=4)
    points = {meta(c)["grade_id"]: float(meta(c).get("points") or 0) for c in nb.cells if meta(c).get("grade")}
    got = ceilings(path)
    assert set(got) == set(PROFILES)
    for profile in PROFILES:
        none_here = not_applicable_cells(nb, profile)
        assert got[profile].total == sum(points.values())
        assert got[profile].earnable == sum(points.values()) - sum(points[g] for g in none_here), profile
        assert set(got[profile].nothing_here) == none_here, profile


def test_the_courses_figures_as_graded():
    by = {p.stem: ceilings(p) for p in NOTEBOOKS}
    assert sum(c["sim"].earnable for c in by.values()) == 96 and sum(c["sim"].total for c in by.values()) == 110
    for profile in ("single-spark", "dual-gpu-desktop"):
        assert (by["lesson2"][profile].machine_earnable, by["lesson2"][profile].machine_total) == (0, 27)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_says_what_it_can_earn_and_promises_no_free_points(path, tmp_path, monkeypatch, capsys):
    nb = nbformat.read(path, as_version=4)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert not re.search(r"full points|do not count|count as full", text.replace("never counted as full points", "")), \
        "a notebook promises points for checks that do not apply"
    assert any(f'cl.what_can_be_earned("{path.stem}")' in c.source for c in nb.cells if c.cell_type == "code")
    monkeypatch.chdir(path.parent)
    cl.what_can_be_earned(path.stem)
    out = capsys.readouterr()
    assert out.err == "" and all(p in out.out for p in PROFILES)


def test_an_unreadable_notebook_is_said_not_raised(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    cl.what_can_be_earned("lesson1")
    assert "cannot read lesson1.ipynb" in capsys.readouterr().out
