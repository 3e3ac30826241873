"""Validate catches the classic wrong answers without holding the answers (issue 28).

nbgrader's Validate runs a notebook's visible tests; they checked types only, so `payload_bytes = 9000 - 20`
(the ICMP header forgotten) read "Success!", and the lab's visible tests held the answers (117.5, 6.72, 20.0).
Here: the real `nbgrader validate` on a learner's copy of the released notebook with every answer filled in
from solutions/, once as is (Success) and once per classic mistake (fails, naming the mistake); no visible test
holds a literal within 1 % of its exercise's answer; grader.answers' mistakes are each a wrong answer."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.answers import MISTAKES_OF, check_answer

ROOT = Path(__file__).resolve().parents[1]
NBGRADER = Path(sys.executable).parent / "nbgrader"
HIDDEN = "### BEGIN HIDDEN TESTS"


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


def _grade_id(cell: dict) -> str:
    return ((cell.get("metadata") or {}).get("nbgrader") or {}).get("grade_id", "")


def _solution_answers(name: str) -> dict[str, str]:
    """grade_id -> the solution's answer cell source, markers removed (what a learner who got it right types)."""
    out = {}
    for c in _cells(ROOT / "solutions" / name / f"{name}.ipynb"):
        meta = (c.get("metadata") or {}).get("nbgrader") or {}
        if c["cell_type"] == "code" and meta.get("solution") and not meta.get("grade"):
            src = "".join(c["source"])
            out[meta["grade_id"]] = re.sub(r"^\s*### (BEGIN|END) SOLUTION\s*$\n?", "", src, flags=re.M)
    return out


def learner_copy(name: str, tmp: Path, override: tuple[str, str] | None = None) -> Path:
    """The released notebook with every answer cell filled in from solutions/; ``override``: (grade id of an
    answer cell, a line appended to it) to plant one mistake."""
    folder = tmp / name
    shutil.copytree(ROOT / "labs" / name, folder)
    path = folder / f"{name}.ipynb"
    nb = json.loads(path.read_text())
    answers = _solution_answers(name)
    for c in nb["cells"]:
        gid = _grade_id(c)
        if gid in answers:
            src = answers[gid] + (f"\n{override[1]}\n" if override and override[0] == gid else "")
            c["source"] = src.splitlines(True)
    path.write_text(json.dumps(nb, indent=1))
    return path


def validate(path: Path) -> tuple[bool, str]:
    """(whether every answer test passed, nbgrader's report). The machine grade cells (``cl.grade_checks``) are
    left out: with no evidence recorded they earn 0 and Validate lists them, as it would for the learner."""
    p = subprocess.run([str(NBGRADER), "validate", str(path)], cwd=path.parent, capture_output=True, text=True,
                       timeout=600, env={"PATH": f"{NBGRADER.parent}:/usr/bin:/bin", "HOME": str(path.parent)})
    out = p.stdout + p.stderr
    failed = [b for b in out.split("The following cell failed:")[1:] if "cl.grade_checks(" not in b.split("The error was:")[0]]
    assert "Success!" in out or "VALIDATION FAILED" in out, out[-2000:]
    return not failed, "\n".join(failed) or out


CASES = [  # (notebook, answer cell, the mistake a learner makes, words its message must hold)
    ("lesson1", "l1_ex3_answer", "payload_bytes = 9000 - 20", "ICMP echo header (8 B)"),
    ("lesson1", "l1_ex4_answer", "line_rate_gbyte_s = 200.0", "Gbit/s"),
    ("lab", "lab-ex1-answer", "weights_gb = 235e9 * 4 / 8 / 2**30", "GiB"),
    ("lab", "lab-ex3-answer", "tpot_ms = (1.440 - 0.180) / 64 * 1000", "output tokens - 1"),
    ("lesson3", "l3_ex6_answer", "case_cfm = 1053 * 3.412 / (1.08 * 10)", "1.8 times as many °F"),
]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["lesson1", "lab"])
def test_validate_passes_the_right_answers(name, tmp_path):
    if not NBGRADER.exists():
        pytest.skip("nbgrader is not installed (bash scripts/install.sh)")
    ok, out = validate(learner_copy(name, tmp_path))
    assert ok, out[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("name,cell,mistake,words", CASES, ids=[c[2] for c in CASES])
def test_validate_fails_a_classic_mistake_and_names_it(name, cell, mistake, words, tmp_path):
    if not NBGRADER.exists():
        pytest.skip("nbgrader is not installed (bash scripts/install.sh)")
    ok, out = validate(learner_copy(name, tmp_path, (cell, mistake)))
    assert not ok and words in out, out[-3000:]


def _literals(source: str) -> list[float]:
    return [float(x) for x in re.findall(r"(?<![\w.])\d+\.\d+(?:e-?\d+)?|(?<![\w.])\d+(?![\w.])", source)]


@pytest.mark.parametrize("name", ["lesson1", "lesson2", "lesson3", "lesson4", "lab"])
def test_no_visible_test_holds_its_answer(name):
    """The lab's exercise answers as the solutions compute them (worked out by hand: 235e9 x 4 / 8 = 117.5 GB;
    273 / 40.61 = 6.72 tok/s; (1.440 - 0.180) / 63 = 20.0 ms), and lesson 1's (8972 bytes, 25 GB/s), never stand
    in a visible test."""
    answers = [117.5, 58.75, 6.72, 13.44, 20.0, 50.0, 8972, 25.0]
    for c in _cells(ROOT / "labs" / name / f"{name}.ipynb"):
        meta = (c.get("metadata") or {}).get("nbgrader") or {}
        if c["cell_type"] == "code" and meta.get("grade") and "grade_checks" not in "".join(c["source"]):
            visible = "".join(c["source"]).split(HIDDEN)[0]
            held = [x for x in _literals(visible) for a in answers  # a count of bytes: exactly; the rest: within 1 %
                    if (x == a if isinstance(a, int) else abs(x - a) <= 0.01 * a)]
            assert not held, f"{meta['grade_id']}'s visible test holds {held}"


def test_each_mistake_is_wrong_and_each_right_answer_passes():
    right = {"l1_ex3": ({}, {"payload_bytes": 9000 - 20 - 8}), "l1_ex4": ({}, {"line_rate_gbyte_s": 25.0}),
             # a Spark's vLLM budget: CUDA's 121.69 GiB x 0.85 = 111.0641 GB (checks/specs/gpus.toml), less the weights
             "lab_ex1": ({"params_b": 235, "bits": 4}, {"weights_gb": 117.5, "per_node_gb": 58.75,
                                                        "left_one_gb": -6.4359, "left_each_gb": 52.3141}),
             "lab_ex2": ({"bytes_per_token": 40.61e9}, {"ceiling_one": 273 / 40.61, "ceiling_pair": 2 * 273 / 40.61}),
             "lab_ex3": ({"e2el_s": 1.44, "ttft_s": 0.18, "tokens": 64}, {"tpot_ms": 1260 / 63})}
    for exercise, (given, values) in right.items():
        check_answer(exercise, given=given, **values)  # the right answers pass
        for name, mistakes in MISTAKES_OF[exercise](**given).items():
            for m in mistakes:
                if isinstance(values[name], int):  # bytes: any other count is wrong
                    assert m.value != values[name], (exercise, name, m)
                else:  # outside the hidden tests' 1 %
                    assert abs(m.value - values[name]) > 0.01 * abs(values[name]), (exercise, name, m)
                with pytest.raises(AssertionError, match=re.escape(m.why[:20])):
                    check_answer(exercise, given=given, **{name: int(m.value) if float(m.value).is_integer()
                                                           and isinstance(values[name], int) else m.value})
