"""The sim lock (tests/conftest.py): a pytest run that will bring the live sim up waits while another process holds
it, and does not wait on a lock its own ancestor holds (``flock /tmp/clusterlab-sim.lock pytest ...``). Each test uses
a lock file of its own, never the machine's sim lock, which the sim's half of test.sh holds beside these tests."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import conftest

ROOT = Path(__file__).resolve().parents[1]


class _Config:
    class pluginmanager:  # noqa: N801 (the shape of pytest's config that _hold_sim_lock reads)
        @staticmethod
        def get_plugin(name):
            return None


def _probe(lock: Path, under_flock: bool) -> str:
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); from pathlib import Path; "
            f"from tests.conftest import _held_by_ancestor; print(_held_by_ancestor(Path({str(lock)!r})))")
    argv = [sys.executable, "-c", code]
    return subprocess.run((["flock", str(lock)] if under_flock else []) + argv, capture_output=True, text=True,
                          timeout=60).stdout.strip()


def test_a_lock_held_by_an_ancestor_is_told_from_none(tmp_path):
    lock = tmp_path / "sim.lock"
    lock.touch()
    assert _probe(lock, under_flock=True) == "True"
    assert _probe(lock, under_flock=False) == "False"


def test_a_run_waits_while_another_process_holds_the_lock(tmp_path, monkeypatch):
    lock = tmp_path / "sim.lock"
    lock.touch()
    monkeypatch.setattr(conftest, "SIM_LOCK", lock)
    monkeypatch.setattr(conftest, "_lock_file", [])
    holder = subprocess.Popen(["flock", str(lock), "sleep", "2"])
    try:
        deadline = time.monotonic() + 10
        while str(lock.stat().st_ino) not in Path("/proc/locks").read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        t0 = time.monotonic()
        conftest._hold_sim_lock(_Config())
        waited = time.monotonic() - t0
    finally:
        holder.wait(timeout=30)
    assert conftest._lock_file and waited >= 1.0, waited  # it took the lock only once the holder let it go
    conftest._lock_file.pop().close()


@pytest.mark.parametrize("script", ["run.sh"])
def test_run_sh_takes_the_same_lock(script):
    text = (ROOT / script).read_text()
    assert str(conftest.SIM_LOCK) in text and "flock" in text
