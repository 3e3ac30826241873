import pytest
from grader import sim
from tests import sim_container_faults as F

@pytest.mark.parametrize("fault", sorted(F.FAILS_EXACTLY))
def test_f(fault, tmp_path):
    try:
        F.FAILS_EXACTLY[fault](fault, tmp_path)
    finally:
        sim.down()
