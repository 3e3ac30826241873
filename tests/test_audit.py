"""grader.audit's pure parts: reading grade cells' grade_checks calls and nbgrader's score of a cell.
(The audit of a real nbgrader run is tested in tests/test_course.py with the golden pipeline.)"""

from __future__ import annotations

import pytest

from grader.audit import AuditError, audit, grade_calls, kernel_score


@pytest.mark.parametrize("source, want", [
    ('cl.grade_checks("lesson1", ["L1.port", "L1.mtu"], points=6)', [("lesson1", ["L1.port", "L1.mtu"], 6.0)]),
    ('grade_checks("lab", ("LAB.sane",), 2)', [("lab", ["LAB.sane"], 2.0)]),
    ('x = 1\ncl.grade_checks(lesson="lesson2", check_ids=["L2.launch"], points=2.5)', [("lesson2", ["L2.launch"], 2.5)]),
    ('cl.expect_close("a", a, 1.0)', None),
    ('cl.grade_checks(LESSON, ["L1.port"], points=2)', None),  # not literal: not audited
    ('cl.grade_checks("lesson1", ["L1.port"]', None),          # not Python
])
def test_grade_calls(source, want):
    assert grade_calls(source) == want


@pytest.mark.parametrize("outputs, want", [
    ([], 4.0),
    ([{"output_type": "execute_result", "data": {"text/plain": "1.5"}}], 1.5),
    ([{"output_type": "execute_result", "data": {"text/plain": "9"}}], 4.0),          # capped at the points
    ([{"output_type": "stream", "name": "stderr", "text": "warning"},
      {"output_type": "execute_result", "data": {"text/plain": "4.0"}}], 0.0),        # any stderr: 0
    ([{"output_type": "error", "ename": "AssertionError", "evalue": ""}], 0.0),
    ([{"output_type": "execute_result", "data": {"text/plain": "'all good'"}}], 4.0),  # not a number: full
])
def test_kernel_score_follows_nbgrader(outputs, want):
    assert kernel_score({"outputs": outputs}, 4.0) == want


def test_audit_of_a_folder_that_is_not_autograded(tmp_path):
    with pytest.raises(AuditError, match="autograded"):
        audit(tmp_path)
