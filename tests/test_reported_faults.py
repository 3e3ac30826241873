"""checks/reported_faults.toml, the 40 failures DGX Spark owners reported in public, holds true of the course:
each is taught where its phrase says (in that notebook's markdown), and each check or diagnosis it names
exists. Pure: reads files only (no sim, no SSH).
"""

from __future__ import annotations

import json
import re
import tomllib
from functools import lru_cache
from pathlib import Path

import pytest

from grader import diagnoses, lessons
from grader.grading import load_catalogue

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = ROOT / "checks" / "reported_faults.toml"
FAULTS: list[dict] = tomllib.loads(CATALOGUE.read_text(encoding="utf-8"))["fault"]
KEYS = {"n", "title", "source", "source_note", "taught", "checks", "diagnoses", "gap", "why_no_check"}


def _collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@lru_cache(maxsize=None)
def markdown_cells(notebook: str) -> tuple[str, ...]:
    """The markdown cells of a released learner notebook (solutions/<name>/<name>.ipynb), each cell's source
    joined and its whitespace runs collapsed to one space."""
    path = ROOT / lessons.REGISTRY[notebook].notebook
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    out = []
    for c in cells:
        if c.get("cell_type") == "markdown":
            src = c.get("source", "")
            out.append(_collapse("".join(src) if isinstance(src, list) else src))
    return tuple(out)


def taught_in(notebook: str, phrase: str) -> bool:
    wanted = _collapse(phrase)
    return any(wanted in cell for cell in markdown_cells(notebook))


@lru_cache(maxsize=None)
def check_ids() -> frozenset[str]:
    """Every check id of the lesson catalogues (grader.grading.load_catalogue, as the grader reads them)."""
    return frozenset(c["id"] for lesson in lessons.checked() for c in load_catalogue(lesson))


@lru_cache(maxsize=None)
def diagnosis_ids() -> frozenset[str]:
    """Every [[diagnosis]] id of checks/diagnoses.toml (grader.diagnoses.load_table)."""
    return frozenset(e.id for e in diagnoses.load_table())


def _label(fault: dict) -> str:
    return f"#{fault.get('n', '?')} {fault.get('title', '?')}"


def test_forty_faults_numbered_in_order():
    assert [f.get("n") for f in FAULTS] == list(range(1, 41))


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f"n{f.get('n')}")
def test_fault_entry(fault):
    label = _label(fault)
    assert set(fault) <= KEYS, f"{label}: unknown keys {sorted(set(fault) - KEYS)}"
    assert isinstance(fault.get("title"), str) and fault["title"].strip(), f"{label}: no title"
    source = fault.get("source", [])
    assert isinstance(source, list) and all(isinstance(s, str) and s.startswith("https://") for s in source), \
        f"{label}: `source` must be a list of URLs"
    assert source or fault.get("source_note"), f"{label}: no source, and no source_note saying why"

    for key in ("gap", "why_no_check", "source_note"):
        if key in fault:
            assert isinstance(fault[key], str) and fault[key].strip(), f"{label}: empty `{key}`"

    taught = fault.get("taught", [])
    assert isinstance(taught, list)
    assert taught or fault.get("gap"), f"{label}: not taught, and no `gap` saying so"
    for t in taught:
        assert set(t) == {"notebook", "phrase"}, f"{label}: a taught entry needs notebook and phrase only: {t}"
        assert t["notebook"] in lessons.REGISTRY, f"{label}: no notebook {t['notebook']!r}"
        assert 10 <= len(t["phrase"]) <= 80, f"{label}: phrase of {len(t['phrase'])} characters: {t['phrase']!r}"
        assert taught_in(t["notebook"], t["phrase"]), \
            f"{label}: {t['phrase']!r} is not in the markdown of {lessons.REGISTRY[t['notebook']].notebook}"

    checks, diags = fault.get("checks", []), fault.get("diagnoses", [])
    unknown = sorted(set(checks) - check_ids())
    assert not unknown, f"{label}: no such check {unknown} in checks/*.toml"
    unknown = sorted(set(diags) - diagnosis_ids())
    assert not unknown, f"{label}: no such diagnosis {unknown} in checks/diagnoses.toml"
    assert len(set(checks)) == len(checks) and len(set(diags)) == len(diags), f"{label}: an id listed twice"
    if not checks and not diags:
        assert fault.get("why_no_check") or fault.get("gap"), \
            f"{label}: no check and no diagnosis, and neither `why_no_check` nor `gap` says why"


def test_a_wrong_phrase_is_caught():
    """The phrase test can fail: a phrase no notebook holds is not found, nor is one only in a code cell."""
    assert taught_in("lesson1", "Passwordless SSH, both ways")
    assert not taught_in("lesson1", "Passwordless SSH, all three ways")
    assert not taught_in("lesson2", "### BEGIN SOLUTION")
