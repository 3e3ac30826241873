"""Run one pure function over many items: in this process, in a pool of local processes, or on a Ray cluster.

``clusterlab audit`` and ``clusterlab class-report`` grade each submission with a function of its payload
alone (:func:`grader.audit.grade_submission`: the notebook's grade calls and the evidence files' bytes,
no path it must open), so where it runs does not change what it returns: :func:`run_all` gives the
results in the items' order whatever the number of workers, and the same on a Ray cluster.

- ``workers=1``: in this process, one item after another (nothing forked; what ``--workers 1`` does).
- ``workers=N``: a :class:`concurrent.futures.ProcessPoolExecutor` of N processes (at most one per item).
- ``ray_address``: Ray tasks on the cluster at that address (``ray.init(address=...)``: ``auto``, a head's
  ``host:6379``, ``ray://host:10001``, or ``local`` for a new one-machine cluster). Ray is imported only
  then and is not a dependency of clusterlab; the grader's code (``grader`` and ``checks``) travels to the
  workers with the job (Ray's ``runtime_env`` ``py_modules``), with the ``CLUSTERLAB_*`` variables of this
  process (the profiles a course accepts, the grading deadline); the nodes' Python needs clusterlab's
  dependencies (``pip install clusterlab`` there, or the packages of its pyproject.toml).

A progress bar (tqdm) goes to stderr when stderr is a terminal and the run lasts over a second.
"""

from __future__ import annotations

import os
import signal
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Callable, Iterable, TypeVar

T = TypeVar("T")
R = TypeVar("R")

BAR_DELAY_S = 1.0
"""Seconds a run lasts before its progress bar shows (a short run prints nothing)."""


class PoolError(Exception):
    """The work could not be spread as asked (bad worker count, no Ray, a cluster that does not answer, a
    worker process that died); the message is one line naming the fix."""


def default_workers() -> int:
    """The number of worker processes when none is given: this machine's CPUs (``os.cpu_count()``), at least 1."""
    return os.cpu_count() or 1


def run_all(fn: Callable[[T], R], items: Iterable[T], *, workers: int | None = None, ray_address: str | None = None,
            desc: str = "grading") -> list[R]:
    """``[fn(item) for item in items]``, computed by ``workers`` local processes (default
    :func:`default_workers`) or by Ray tasks at ``ray_address``; results in the items' order.

    ``fn`` must be a module-level function and the items picklable. An exception ``fn`` raises is raised
    here. Raises PoolError for a worker count below 1, Ray missing or unreachable, or a worker that died.
    """
    items = list(items)
    if ray_address:
        return _on_ray(fn, items, ray_address, desc)
    n = default_workers() if workers is None else workers
    if n < 1:
        raise PoolError(f"--workers must be 1 or more (got {n})")
    if n == 1 or len(items) < 2:
        with _bar(len(items), desc) as bar:
            out = []
            for item in items:
                out.append(fn(item))
                bar.update()
            return out
    results: list[Any] = [None] * len(items)
    try:
        with ProcessPoolExecutor(max_workers=min(n, len(items)), initializer=_ignore_interrupt) as pool:  # before the bar
            futures = {pool.submit(fn, item): i for i, item in enumerate(items)}
            with _bar(len(items), desc) as bar:
                for f in as_completed(futures):
                    results[futures[f]] = f.result()
                    bar.update()
    except BrokenProcessPool as e:
        raise PoolError(f"a worker process died ({e or 'killed'}): run again with --workers 1 "
                        "to grade in this process") from None
    return results


def _ignore_interrupt() -> None:
    """In a worker: leave Ctrl-C to the parent (which stops and says so), so no worker prints a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _bar(total: int, desc: str) -> Any:
    """A tqdm bar on stderr, shown only when stderr is a terminal (a no-op bar otherwise)."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="submission", file=sys.stderr, delay=BAR_DELAY_S,
                disable=not sys.stderr.isatty(), leave=False)


def _on_ray(fn: Callable[[T], R], items: list[T], address: str, desc: str) -> list[R]:
    """:func:`run_all` on a Ray cluster: one task per item, the grader's code shipped with the job."""
    try:
        import ray
    except ImportError:
        raise PoolError("--ray needs Ray, which is not installed in this Python: pip install ray "
                        "(and clusterlab's dependencies on the cluster's nodes)") from None
    import checks
    import grader

    env = {k: v for k, v in os.environ.items() if k.startswith("CLUSTERLAB_")}
    code = [str(Path(grader.__file__).parent), str(Path(checks.__file__).parent)]
    try:
        extra = {"include_dashboard": False} if address == "local" else {}  # a cluster of our own: no web UI
        ray.init(address=address, runtime_env={"py_modules": code, "env_vars": env}, logging_level="ERROR",
                 log_to_driver=False, **extra)
    except Exception as e:  # ConnectionError, ValueError, RuntimeError...: Ray's own words, one line
        raise PoolError(f"--ray {address}: Ray could not start or reach the cluster "
                        f"({type(e).__name__}: {' '.join(str(e).split())[:200]})") from None
    try:
        task = ray.remote(fn)
        refs = [task.remote(item) for item in items]
        where = {ref: i for i, ref in enumerate(refs)}
        results: list[Any] = [None] * len(items)
        pending = list(refs)
        with _bar(len(items), desc) as bar:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    results[where[ref]] = ray.get(ref)
                    bar.update()
        return results
    finally:
        ray.shutdown()
