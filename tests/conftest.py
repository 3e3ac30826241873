"""Shared test helpers: where the real command outputs are.

Real outputs live in ../shared/fixtures/real (beside the checkout, as CI lays it out); a copy
ships in tests/fixtures/real so a clone elsewhere runs the same tests. $CLUSTERLAB_FIXTURES
overrides both.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

SIM_GROUP = "sim"
"""The xdist group of every test module that brings the simulated cluster up (``test.sh`` runs the suite
on two workers with ``--dist loadgroup``): there is one sim per machine (the namespaces spark-a and
spark-b, /var/lib/clusterlab/sim), so these modules run one after another on one worker, while the
other worker runs everything else."""
_LIVE_SIM = re.compile(r"\bsim\.(up|down)\(|\bserve\.start\(")
"""What marks a module as a user of the live sim: it calls ``sim.up``/``sim.down`` or ``serve.start``."""


def real_fixtures_root() -> Path:
    """The folder of real outputs: $CLUSTERLAB_FIXTURES, else ../shared/fixtures/real, else the shipped copy."""
    env = os.environ.get("CLUSTERLAB_FIXTURES")
    if env:
        return Path(env)
    shared = HERE.parents[1] / "shared" / "fixtures" / "real"
    return shared if shared.is_dir() else HERE / "fixtures" / "real"


def field_fixtures_root() -> Path:
    """The folder of real pastes from the field (with what a careful reader concludes, in its README.md):
    ../shared/fixtures/field beside the checkout, else the shipped copy tests/fixtures/field."""
    shared = HERE.parents[1] / "shared" / "fixtures" / "field"
    return shared if shared.is_dir() else HERE / "fixtures" / "field"


def field_text(name_prefix: str) -> str:
    """The text of the field paste whose file name starts with ``name_prefix`` (e.g. ``"14_"``); skips if absent."""
    hits = sorted(field_fixtures_root().glob(f"{name_prefix}*"))
    if not hits:
        pytest.skip(f"field paste {name_prefix}* not found under {field_fixtures_root()}")
    return hits[0].read_text(encoding="utf-8", errors="replace")


def real_fixture(pattern: str) -> Path:
    """The one real fixture matching ``pattern`` (a glob under the root, e.g. ``spark/01_*``); skips if absent."""
    hits = sorted(real_fixtures_root().glob(pattern))
    if not hits:
        pytest.skip(f"real fixture {pattern} not found under {real_fixtures_root()} (set CLUSTERLAB_FIXTURES)")
    return hits[0]


def real_text(pattern: str) -> str:
    """The text of the one real fixture matching ``pattern`` (see :func:`real_fixture`)."""
    return real_fixture(pattern).read_text()


def levels(section) -> list[str]:
    """The levels of an explain Section's findings, in order."""
    return [f.level for f in section.findings]


def messages(section, level: str | None = None) -> str:
    """An explain Section's finding messages (of one level, or all), one per line."""
    return "\n".join(f.message for f in section.findings if level in (None, f.level))


_live_sim_modules: dict[Path, bool] = {}


def _uses_live_sim(path: Path) -> bool:
    if path not in _live_sim_modules:
        _live_sim_modules[path] = bool(_LIVE_SIM.search(path.read_text(encoding="utf-8")))
    return _live_sim_modules[path]


def pytest_collection_modifyitems(session, config, items):
    """Put every test of a module that uses the live sim in the xdist group :data:`SIM_GROUP`, and move
    those tests first: they are the suite's longest chain, so they start at once while the other worker
    takes the rest. Within the group, the tests marked ``busy_ok`` (they judge nothing timed) come
    first, so the group's measured figures (TCP, TTFT, throughput, a baseline's spread) are taken after
    the other worker is done, on a quiet machine. Without xdist the mark does nothing; the order holds."""
    sim_items = [it for it in items if _uses_live_sim(Path(str(it.fspath)))]
    for it in sim_items:
        it.add_marker(pytest.mark.xdist_group(SIM_GROUP))
    sim_items.sort(key=lambda it: it.get_closest_marker("busy_ok") is None)  # stable: each part keeps its order
    chosen = {id(it) for it in sim_items}
    items[:] = sim_items + [it for it in items if id(it) not in chosen]


_fuzz_cases: Counter[str] = Counter()
"""The fuzz counts the xdist workers sent back (:func:`pytest_testnodedown`)."""


def pytest_sessionfinish(session, exitstatus):
    """On an xdist worker, hand this worker's fuzz counts to the controller."""
    from tests.fuzzing import CASES
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["fuzz_cases"] = dict(CASES)


@pytest.hookimpl(optionalhook=True)  # an xdist hook: unknown when xdist is not installed
def pytest_testnodedown(node, error):
    """On the xdist controller, add up a finished worker's fuzz counts."""
    _fuzz_cases.update(getattr(node, "workeroutput", {}).get("fuzz_cases", {}))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Print how many cases each fuzz test ran (tests/fuzzing.py counts them, on whichever worker ran
    them), so a CI log shows the fuzzing was done and how much of it."""
    from tests.fuzzing import CASES
    CASES = CASES + _fuzz_cases
    if not CASES:
        return
    terminalreporter.section("fuzz cases")
    for name, n in sorted(CASES.items()):
        terminalreporter.write_line(f"{n:>7,}  {name}")
    terminalreporter.write_line(f"{sum(CASES.values()):>7,}  in all, {len(CASES)} families")
