"""Fuzzing the evidence reader and the grading path with hypothesis: mutated copies of real evidence.

The seeds are the golden evidence files (tests/fixtures/golden: recorded on the sim, and lesson 3 from
captured H200 outputs). Hypothesis draws a chain of edits of the record's tree (tests/fuzzing.py:
keys deleted, nulls, NaN, Infinity, huge integers, deep nesting, other types, empty containers, lone
surrogates, raw outputs' texts mangled as pastes are) and writes the file. Each is graded as
``clusterlab grade`` and an nbgrader grade cell do it, in two variants:

- *as edited*: the manifest is left as the grader wrote it. Whatever the edit, grading either refuses
  the file with a one-line reason or grades it, and the grade cells never earn more than the unedited
  file earns (an edit without the grader's seal never raises a grade).
- *sealed again*: each output's sha256 and the manifest recomputed after the edit (anyone can; they
  are hashes, not a signature),
  so the edit reaches the readers and the checks. Grading gives verdicts or a one-line refusal; no
  reader crashes on what it reads ("its raw outputs cannot be read (SomeError" is a reader bug).

In both, the report renders as a table and as strict JSON (no NaN/Infinity). Examples per seed and
variant: CLUSTERLAB_FUZZ_EVIDENCE_EXAMPLES (default 40); derandomised unless CLUSTERLAB_FUZZ_RANDOM=1.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from grader.checking import CheckError, grade_file  # noqa: E402
from grader.grading import load_catalogue  # noqa: E402
from grader.scoring import score_checks  # noqa: E402
from grader.report import render_table, to_json  # noqa: E402
from tests import fuzzing  # noqa: E402
from tests.fuzzing import CASES, DrawChooser, dump_evidence, mutate_evidence  # noqa: E402
from tests.test_robust import strict  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "fixtures" / "golden"
SEEDS = sorted(GOLDEN.glob("*.json"))
EXAMPLES = int(os.environ.get("CLUSTERLAB_FUZZ_EVIDENCE_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                derandomize=not os.environ.get("CLUSTERLAB_FUZZ_RANDOM"),
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])


def _grade(path: Path) -> tuple[float, str]:
    """Grade ``path`` the ways the CLI and a grade cell do; the points the cells would give, and the
    refusal (empty when graded). Fails the test on any exception but CheckError."""
    lesson = path.stem
    try:
        result = grade_file(path)
    except CheckError as e:
        why = str(e)
        assert why.strip(), "a refusal with no reason"
        assert "Traceback" not in why
        return 0.0, why
    render_table(result.verdicts, f"{result.lesson} on {result.profile}", errors=result.errors)
    strict(to_json(result.verdicts, lesson=result.lesson, profile=result.profile, evidence=str(path),
                         unreachable=result.errors, notes=result.notes, unfit=result.unfit))
    ids = [c["id"] for c in load_catalogue(lesson)]
    earned, lines = score_checks(lesson, ids, float(len(ids)), path.parent)
    assert all(isinstance(x, str) for x in lines)
    return earned, ""


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> dict[str, float]:
    """What each unedited seed earns in the grade cells (all its lesson's checks, 1 point each)."""
    out = {}
    for seed in SEEDS:
        data = json.loads(seed.read_text())
        d = tmp_path_factory.mktemp(seed.stem)
        path = d / f"{data['lesson']}.json"
        path.write_text(seed.read_text())
        out[seed.name], why = _grade(path)
        assert not why, f"the unedited seed {seed.name} is refused: {why}"
    return out


@pytest.mark.parametrize("reseal", [False, True], ids=["as-edited", "sealed-again"])
@pytest.mark.parametrize("seed", SEEDS, ids=[s.stem for s in SEEDS])
def test_fuzz_evidence(seed: Path, reseal: bool, baseline: dict[str, float], tmp_path: Path,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLUSTERLAB_PROFILES", "sim,spark-pair,single-spark,dual-gpu-desktop")
    original = json.loads(seed.read_text())
    path = tmp_path / f"{original['lesson']}.json"
    family = f"evidence {seed.stem} {'sealed again' if reseal else 'as edited'}"

    @FUZZ
    @given(st.data())
    def run(data: st.DataObject) -> None:
        CASES[family] += 1
        record = mutate_evidence(original, DrawChooser(data.draw))
        if reseal:
            record = fuzzing.reseal(record)
        path.write_text(dump_evidence(record))
        earned, why = _grade(path)
        if reseal:
            assert "its raw outputs cannot be read (" not in why, why
        else:
            assert earned <= baseline[seed.name], (
                f"an edit without the seal raised the grade from {baseline[seed.name]} to {earned}")

    run()


@pytest.mark.parametrize("value", ["delete", None, "600", float("nan"), -1, True, 10 ** 400])
def test_a_desktop_budget_without_a_usable_psu_figure_is_not_measured(value, tmp_path: Path) -> None:
    """Found by the fuzzer: an inventory [desktop] table without psu_watts crashed lesson 3's facts
    (KeyError). Whatever psu_watts holds that is not a number of watts, the power budget and the circuit
    are not measured, and the reason names the key."""
    data = json.loads((GOLDEN / "lesson3-desktop-healthy.json").read_text())
    if value == "delete":
        del data["inventory"]["desktop"]["psu_watts"]
    else:
        data["inventory"]["desktop"]["psu_watts"] = value
    path = tmp_path / "lesson3.json"
    path.write_text(dump_evidence(fuzzing.reseal(data)))
    result = grade_file(path)
    budget = {v.id: v for v in result.verdicts}["L3.power_budget"]
    assert budget.status == "unmeasured", budget
    assert "psu_watts" in " ".join(budget.details), budget.details


@pytest.mark.parametrize("value", [7, "x", [], None])
def test_provenance_nodes_of_any_type_is_graded(value, tmp_path: Path) -> None:
    """Found by benchmarks/fuzz.py: ``provenance.nodes`` edited to a number made the provenance reader raise
    AttributeError (a traceback from `clusterlab grade`). Whatever it holds, the file is graded or refused
    with a reason."""
    data = json.loads((GOLDEN / "lab-sim-healthy.json").read_text())
    data["provenance"]["nodes"] = value
    path = tmp_path / "lab.json"
    path.write_text(dump_evidence(fuzzing.reseal(data)))
    try:
        grade_file(path)
    except CheckError as e:
        assert str(e).strip()
