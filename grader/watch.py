"""``clusterlab check --watch``: check again every interval until every check passes.

    watch(inventory, ["lesson1"], ...)   # rounds of run_lesson over one SSH connection per node
    change_lines(round)                  # "L1.mtu: FAIL -> PASS (...)" for each change of a round

The command line (``clusterlab check --watch``) and the notebooks' watch toggle (:mod:`grader.notebook`) call
these. A round never changes a learner's machine beyond what ``check`` does.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from grader.checking import LessonResult, connect_nodes, run_lesson
from grader.lifecycle import BLOCKING, _inventory, _known

@dataclass
class Round:
    """One round of :func:`watch`: its results, wall seconds, and the changes since the round before
    (``(what, before, now)``: a check id or ``node <name>``, statuses; the first round has none)."""

    number: int
    results: list[LessonResult]
    seconds: float
    changes: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return max(r.exit_code for r in self.results)


def _states(results: list[LessonResult]) -> dict[str, str]:
    out = {v.id: v.status for r in results for v in r.verdicts}
    for r in results:
        for node in r.errors:
            out[f"node {node}"] = "unreachable"
    return out


def _state(states: dict[str, str], key: str) -> str:
    """A check's status, or a node's reachability (``node <name>``: reachable unless said otherwise)."""
    return states.get(key, "reachable" if key.startswith("node ") else "-")


def watch(inventory: str | Path, lessons: list[str], *, timeout_s: float = 300.0, interval_s: float = 10.0,
          evidence_dir: str | Path | None = "evidence", on_round: Callable[[Round], None] = lambda r: None,
          stop: threading.Event | None = None) -> Round:
    """Check ``lessons`` again every ``interval_s`` (start to start) until every check passes (exit 0),
    ``timeout_s`` has passed, or ``stop`` is set; return the last round (its exit code is the verdict).

    One SSH connection per node for the whole watch; a node whose connection dropped (a netplan apply,
    a reboot) is connected again at the next round, and is reported unreachable until it answers.
    ``on_round`` is called after each round. Evidence is saved each round (the last one stays).
    Raises LifecycleError / CheckError as ``check`` does (bad inventory, sim down, unknown lesson)."""
    from grader.transport import reconnect

    for lesson in lessons:
        _known(lesson)
    inv = _inventory(inventory)
    stop = stop or threading.Event()
    conns, errors = connect_nodes(inv, lessons)
    t_end = time.monotonic() + timeout_s
    before: dict[str, str] | None = None
    number = 0
    try:
        while True:
            number += 1
            t0 = time.monotonic()
            if number > 1:
                errors = reconnect(inv, conns)
            results = [run_lesson(lesson, inv, conns, errors, evidence_dir=evidence_dir) for lesson in lessons]
            now = _states(results)
            changes = [] if before is None else [(k, _state(before, k), _state(now, k))
                                                 for k in sorted(set(before) | set(now))
                                                 if _state(before, k) != _state(now, k)]
            rnd = Round(number, results, round(time.monotonic() - t0, 3), changes)
            on_round(rnd)
            before = now
            if rnd.exit_code == 0 or stop.is_set():
                return rnd
            wait = max(0.0, t0 + interval_s - time.monotonic())
            if time.monotonic() + wait >= t_end or stop.wait(wait):
                return rnd
    finally:
        for c in conns.values():
            c.close()


def change_lines(rnd: Round) -> list[str]:
    """One line per change of a round: ``L1.mtu: FAIL -> PASS`` (with the first detail of a new failure)."""
    from grader.grading import LABELS

    details = {v.id: v for r in rnd.results for v in r.verdicts}
    lines = []
    for what, was, now in rnd.changes:
        line = f"{what}: {LABELS.get(was, was)} -> {LABELS.get(now, now)}"
        v = details.get(what)
        if v is not None and v.status in BLOCKING and v.details:
            line += f" ({v.details[0]})"
        lines.append(line)
    return lines
