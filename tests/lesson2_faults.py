"""Lesson 2's faults for the tests (not a test module): each fault with the function that brings the live sim
to its failing state and asserts what ``check lesson2`` says there (FAILING_STATE), and the function that
judges that check's exit status and JSON (JUDGED), which also judges ``grade --json`` of the fault's recording.

Most lesson-2 faults are judged from their recordings (tests/fixtures/faults, made on the sim by
tests/fixtures/faults/record.py with the same FAILING_STATE functions); the faults in :data:`LIVE` also run
their whole track on the live sim (tests/test_track.py: fault -> failing state -> solve -> every check passes
-> finish), one of each kind: a lesson-2a fault read with Ray up (the simulated RDMA layer), a launch that
fails with Gloo's error, a worker that cannot join Ray, and a container whose image has no Ray. Judging the
other eleven from recordings saves ~20 minutes of vLLM starts per test run (issue 29); the recordings are
taken again when a fault's behaviour or lesson 2's probes change (tests/fixtures/faults/README.md)."""

from __future__ import annotations

from pathlib import Path

from tests.sim_container_faults import FAILS_EXACTLY as CONTAINER_FAILS
from tests.sim_container_faults import JUDGED as CONTAINER_JUDGED
from tests.sim_lesson2b_faults import FAILS_EXACTLY as LESSON2B_FAILS
from tests.sim_lesson2b_faults import JUDGED as LESSON2B_JUDGED
from tests.test_lesson2_sim import FAULTS as LESSON2A
from tests.test_lesson2_sim import JUDGED as LESSON2A_JUDGED
from tests.test_lesson2_sim import fails_exactly_its_check as lesson2a_fails

FAILING_STATE = {**{f: lesson2a_fails for f in LESSON2A}, **LESSON2B_FAILS, **CONTAINER_FAILS}
"""Each lesson-2 fault with the function that brings the sim up with it, to its failing state, and asserts
``check lesson2`` fails exactly its check (the sim is left up: the caller solves it or takes it down)."""
JUDGED = {**LESSON2A_JUDGED, **LESSON2B_JUDGED, **CONTAINER_JUDGED}
"""Each lesson-2 fault with ``judge(fault, exit_code, report_json)``."""
LIVE = frozenset({"wrong-gid-index", "gloo-wrong-iface", "ray-wrong-node-ip", "image-without-ray"})
"""The lesson-2 faults whose whole track runs live in every full test run (the others: from recordings)."""
RECORDINGS = Path(__file__).resolve().parent / "fixtures" / "faults"


def recording(fault: str) -> Path:
    """Where ``fault``'s recorded lesson-2 evidence lies (in its failing state)."""
    return RECORDINGS / f"lesson2-{fault}.json"
