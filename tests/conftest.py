"""Shared test helpers: where the real command outputs are.

Real outputs live in ../shared/fixtures/real (beside the checkout, as CI lays it out); a copy
ships in tests/fixtures/real so a clone elsewhere runs the same tests. $CLUSTERLAB_FIXTURES
overrides both.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

LIVE_SIM = re.compile(r"\bsim\.(up|down)\(|\bserve\.start\(")
"""What marks a test module as a user of the live sim: it calls ``sim.up``/``sim.down`` or ``serve.start``.
A machine has one sim (the namespaces spark-a and spark-b, /var/lib/clusterlab/sim), so those modules run
one after another in one pytest process; ``bash test.sh`` runs the other modules
beside them in a second one (``--part sim`` and ``--part rest``)."""


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


def field_entry(prefix: str) -> str:
    """The text of the field corpus entry, or pending one, whose stem starts with ``prefix`` (``"zb005"``): the
    issue-27 corpus in tests/fixtures/field/{corpus,pending}. One entry must match."""
    root = HERE / "fixtures" / "field"
    [path] = [p for d in ("corpus", "pending") for p in sorted((root / d).glob(f"{prefix}*.txt"))]
    return path.read_text(encoding="utf-8")


def real_paths(pattern: str) -> list[Path]:
    """The real fixtures matching ``pattern`` (a glob, e.g. ``spark/01_*``) under the root, else under the shipped
    copy (an output captured here and not yet in ../shared)."""
    return sorted(real_fixtures_root().glob(pattern)) or sorted((HERE / "fixtures" / "real").glob(pattern))


def real_fixture(pattern: str) -> Path:
    """The one real fixture matching ``pattern`` (see :func:`real_paths`); skips if absent."""
    hits = real_paths(pattern)
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


def said_in_all(sections, level: str | None = None) -> str:
    """The finding messages of every Section of an explain answer (of one level, or all), one per line."""
    return "\n".join(messages(s, level) for s in sections)


def worst_level(sections) -> str:
    """The worst level of an explain answer's findings, ``ok`` counted as ``info`` (the corpus's reading)."""
    order = {"ok": 0, "info": 0, "warn": 1, "fail": 2}
    worst = max((lv for s in sections for lv in levels(s)), key=order.get, default="info")
    return "info" if worst == "ok" else worst


def pytest_addoption(parser):
    parser.addoption("--part", choices=("all", "sim", "rest"), default="all",
                     help="sim: only the modules that bring the live sim up (the tests marked busy_ok first); "
                          "rest: every other module; all (default): everything, in file order")
    parser.addoption("--fast", action="store_true",
                     help="the tier for the loop while you work (`bash test.sh --fast`, at most 5 minutes on 2 cores): "
                          "--part rest without the tests marked slow (nbgrader's whole pipeline, regenerating labs/)")


_live_sim_modules: dict[Path, bool] = {}


def uses_live_sim(path: Path) -> bool:
    """Whether the test module at ``path`` brings the live sim up (:data:`LIVE_SIM`)."""
    if path not in _live_sim_modules:
        _live_sim_modules[path] = bool(LIVE_SIM.search(path.read_text(encoding="utf-8")))
    return _live_sim_modules[path]


def pytest_collection_modifyitems(session, config, items):
    """``--part sim`` keeps the tests of the modules that use the live sim, the ones marked ``busy_ok`` (they
    judge what fails, not a timed figure) first, so that TCP, TTFT, throughput and a baseline's spread are
    measured after the other process is done; ``--part rest`` keeps every other test."""
    fast = config.getoption("--fast")
    part = "rest" if fast else config.getoption("--part")
    if part == "all":
        return
    keep, drop = [], []
    for it in items:
        wanted = uses_live_sim(Path(str(it.fspath))) == (part == "sim")
        if fast and it.get_closest_marker("slow") is not None:
            wanted = False
        (keep if wanted else drop).append(it)
    if part == "sim":
        keep.sort(key=lambda it: it.get_closest_marker("busy_ok") is None)  # stable: each part keeps its order
    if drop:
        config.hook.pytest_deselected(items=drop)
    items[:] = keep


def pytest_collection_finish(session):
    """A run that will bring the live sim up holds the sim lock (:func:`_hold_sim_lock`) from here to its exit."""
    if not session.config.option.collectonly and any(uses_live_sim(Path(str(it.fspath))) for it in session.items):
        _hold_sim_lock(session.config)


SIM_LOCK = Path("/tmp/clusterlab-sim.lock")
"""The sim lock: one sim per machine. A pytest run that will bring the live sim up holds it from collection to
exit (:func:`_hold_sim_lock`); the recording scripts and benchmarks that use the sim run under
``flock /tmp/clusterlab-sim.lock ...``, and run.sh takes it too, so each waits for the other."""
_lock_file: list = []  # the open lock file, held until the process ends


def _hold_sim_lock(config) -> None:
    """Take :data:`SIM_LOCK` (exclusive), waiting while another process holds it, and say so. Not when an ancestor
    holds it already (``flock /tmp/clusterlab-sim.lock pytest ...``, as older docstrings and scripts run it): this run
    is then under that lock."""
    import fcntl
    if _lock_file or _held_by_ancestor(SIM_LOCK):
        return
    f = open(SIM_LOCK, "a")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        tr = config.pluginmanager.get_plugin("terminalreporter")
        if tr is not None:
            tr.write_line(f"[waiting for {SIM_LOCK}: another test run, recording or run.sh uses the sim]")
        fcntl.flock(f, fcntl.LOCK_EX)
    _lock_file.append(f)


def _held_by_ancestor(path: Path) -> bool:
    """Whether a process this one descends from holds a lock on ``path`` (from /proc/locks: its holder's pid and the
    file's inode)."""
    try:
        inode = path.stat().st_ino
        rows = (line.split() for line in Path("/proc/locks").read_text().splitlines() if "->" not in line)  # (waiters)
        holders = {int(f[4]) for f in rows if len(f) > 5 and f[5].rsplit(":", 1)[-1] == str(inode)}
    except (OSError, ValueError):
        return False
    pid = os.getppid()
    while pid > 1:
        if pid in holders:
            return True
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
    return False


WAIT_FOR_PID = "CLUSTERLAB_TEST_WAIT_FOR_PID"
"""test.sh sets it for ``--part sim`` to the pid of ``--part rest`` running beside it."""

WAIT_MAX_S = 1800.0
"""The longest the sim's timed tests wait for the other half (its whole run is ~9 min on 2 cores, 5 Dec 2026)."""

_waited: dict[str, float] = {}


def _running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie has ended: test.sh reaps the other half only after the sim's part)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] not in ("Z", "X")


def pytest_runtest_setup(item):
    """In ``--part sim`` under test.sh, the first test not marked ``busy_ok`` waits until the other half has ended, so
    that TCP, TTFT, throughput, a recording and its verify are measured on a machine running nothing else of the
    suite (on CI, 5 Dec 2026, a lab recorded beside it read 40.8 output tok/s and its re-runs 98.9-116.6)."""
    pid = os.environ.get(WAIT_FOR_PID, "")
    if not pid.isdigit() or _waited or item.get_closest_marker("busy_ok") is not None:
        return
    import time
    t0 = time.monotonic()
    tr = item.config.pluginmanager.get_plugin("terminalreporter")
    if _running(int(pid)) and tr is not None:
        tr.write_line(f"\n[waiting for the other half (pid {pid}) to end before the timed tests]")
    while _running(int(pid)) and time.monotonic() - t0 < WAIT_MAX_S:
        time.sleep(1.0)
    _waited["s"] = time.monotonic() - t0


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Print how many cases each fuzz test ran (tests/fuzzing.py counts them), so a CI log shows the
    fuzzing was done and how much of it."""
    from tests.fuzzing import CASES
    if "s" in _waited:
        terminalreporter.write_line(f"the timed tests waited {_waited['s']:.0f} s for the other half to end")
    if not CASES:
        return
    terminalreporter.section("fuzz cases")
    for name, n in sorted(CASES.items()):
        terminalreporter.write_line(f"{n:>7,}  {name}")
    terminalreporter.write_line(f"{sum(CASES.values()):>7,}  in all, {len(CASES)} families")


@pytest.fixture(autouse=True)
def _away_from_the_live_sim(request, monkeypatch):
    """A test of a module that does not bring the sim up (not :data:`LIVE_SIM`) never finds the machine's running
    sim as its default inventory (grader.notebook.find_inventory): a notebook's `start lesson2` or `finish` cell run
    in such a test once stopped the sim's vLLM under a sim test running beside it (``--part rest`` runs next to
    ``--part sim``), which then failed as `vllm serve exited (rc -15)`. Subprocesses and kernels inherit it."""
    if not uses_live_sim(Path(str(request.node.fspath))):
        monkeypatch.setenv("CLUSTERLAB_SIM_INVENTORY", "/nonexistent/clusterlab-sim/inventory.toml")


@pytest.fixture(scope="module")
def sim_own_work_off():
    """For a module that grades the sim evidence the project ships (tests/fixtures/golden, the replays) to test
    grading itself (cells, audit, class report, nbgrader): the instructor's switch CLUSTERLAB_SIM_OWN_WORK=off
    lifts the rule that sim evidence of lesson 1 earns points only from a sim built at its start
    (grader.provenance.sim_work_problem), as a course may. Subprocesses inherit it. tests/test_hands_on_sim.py
    holds the rule itself. Use: ``pytestmark = pytest.mark.usefixtures("sim_own_work_off")``."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CLUSTERLAB_SIM_OWN_WORK", "off")
        yield
