"""Lesson 2's faults judged from their recordings: each fault's failing state, recorded on the sim
(tests/fixtures/faults/record.py), graded again with ``grade --json`` (every fact re-derived from the raw
outputs by this grader) fails exactly the fault's check, with the cause and the fix, as the live check did
(tests/lesson2_faults.py: the same judge). No sim needed: these run in the fast tier, and they are how most
lesson-2 faults are tested (the live fault track runs a few: tests.lesson2_faults.LIVE)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from grader.sim.faults import REGISTRY
from tests.lesson2_faults import FAILING_STATE, JUDGED, recording

LESSON2 = sorted(n for n, f in REGISTRY.items() if f.lesson == "lesson2")


def test_every_lesson2_fault_has_a_judge_and_a_recording():
    assert set(JUDGED) == set(FAILING_STATE) == set(LESSON2)
    missing = [f for f in LESSON2 if not recording(f).is_file()]
    assert not missing, f"not recorded: {missing}; run tests/fixtures/faults/record.py {' '.join(missing)}"


@pytest.mark.parametrize("fault", LESSON2)
def test_recorded_failing_state_fails_exactly_its_check(fault):
    path = recording(fault)
    if not path.is_file():
        pytest.fail(f"{path} is missing: run tests/fixtures/faults/record.py {fault} (root, the sim free)")
    p = subprocess.run([sys.executable, "-m", "grader.cli", "grade", str(path), "--json"],
                       capture_output=True, text=True, timeout=120)
    assert "Traceback" not in p.stderr and p.stdout.startswith("{"), p.stderr
    report = json.loads(p.stdout)
    assert report["profile"] == "sim" and report["lesson"] == "lesson2", {k: report.get(k) for k in ("profile", "lesson")}
    JUDGED[fault](fault, p.returncode, report)


def test_each_judge_rejects_the_healthy_served_sim():
    """The judges can fail: the healthy served sim's evidence (tests/fixtures/golden) passes every lesson-2
    check, which no fault's judge accepts."""
    from tests.conftest import HERE

    healthy = HERE / "fixtures" / "golden" / "lesson2-sim-healthy.json"
    p = subprocess.run([sys.executable, "-m", "grader.cli", "grade", str(healthy), "--json"],
                       capture_output=True, text=True, timeout=120)
    report = json.loads(p.stdout)
    for fault in LESSON2:
        with pytest.raises(AssertionError):
            JUDGED[fault](fault, p.returncode, report)
