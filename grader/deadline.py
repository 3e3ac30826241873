"""A wall-clock deadline for work on text a learner supplied (re-deriving an evidence file's facts).

Every reader is meant to be bounded on its own (linear patterns, size caps: issue 12), so that no input
stalls ``clusterlab grade``, ``audit`` or nbgrader's autograde. The deadline is the backstop for the
reader nobody thought of: past it, the work stops and the caller reports why, one line, instead of
hanging a grade cell.

How it stops the work: in the main thread of a POSIX process (the CLI, a Jupyter kernel, nbgrader's
kernel) a ``SIGALRM`` timer raises :class:`DeadlineExceeded` in the guarded block, even inside a regular
expression match (``re`` checks for signals while it backtracks). Where no signal can be used (another
thread, Windows, or an interval timer already running, such as pytest-timeout's) the block runs to its
end and :class:`DeadlineExceeded` is raised after it if it overran: the same verdict, only later. A
worker thread with a join timeout would return on time but leave the work burning a CPU, so it is not
used.
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

GRADE_DEADLINE_S = 20.0
"""Seconds one evidence file's facts may take to re-derive, unless CLUSTERLAB_GRADE_DEADLINE_S says
otherwise. A real file takes well under a second."""


class DeadlineExceeded(BaseException):
    """The guarded block ran past its deadline; ``seconds`` is the limit.

    A BaseException, like KeyboardInterrupt, so that a reader's ``except Exception`` (which turns an odd
    output into a fact saying it could not be read) does not swallow it and carry on."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"took longer than {seconds:g} s")
        self.seconds = seconds


def grade_deadline_s() -> float:
    """The per-file deadline in seconds: CLUSTERLAB_GRADE_DEADLINE_S when it is a positive number (``inf``
    turns the deadline off), else :data:`GRADE_DEADLINE_S`."""
    try:
        value = float(os.environ.get("CLUSTERLAB_GRADE_DEADLINE_S", GRADE_DEADLINE_S))
    except ValueError:
        return GRADE_DEADLINE_S
    return value if value > 0 else GRADE_DEADLINE_S  # NaN compares False: the default


def _arm(seconds: float) -> Callable[[], None] | None:
    """Start a SIGALRM timer that raises DeadlineExceeded after ``seconds``; return the function that
    stops it and puts the previous handler back, or None where no signal can be used."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return None
    try:
        if signal.getitimer(signal.ITIMER_REAL)[0] > 0:  # someone else's timer (pytest-timeout...): leave it
            return None
        armed = [True]

        def on_alarm(signum: int, frame: object) -> None:
            if armed[0]:
                raise DeadlineExceeded(seconds)

        previous = signal.signal(signal.SIGALRM, on_alarm)
    except (ValueError, OSError):  # not the main interpreter, or no signals here
        return None
    signal.setitimer(signal.ITIMER_REAL, seconds)

    def disarm() -> None:
        armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)

    return disarm


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Run the ``with`` block under a wall-clock limit of ``seconds``; raise DeadlineExceeded past it.

    Interrupts the block where a signal can (see the module docstring), else checks once it ends. An
    infinite or non-positive ``seconds`` sets no limit. Exceptions of the block pass through unchanged.
    """
    if not seconds > 0 or math.isinf(seconds):
        yield
        return
    start = time.monotonic()
    disarm = _arm(seconds)
    try:
        yield
    finally:
        if disarm is not None:
            disarm()
    if time.monotonic() - start > seconds:
        raise DeadlineExceeded(seconds)
