"""Probes: fixed, read-only commands run on the nodes over SSH, and the runner that runs them.

Nothing a learner typed reaches a shell unquoted: commands are constants, or built from names the
machine itself listed (interfaces) and addresses parsed by :mod:`ipaddress`, passed through
:func:`shlex.quote`.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timezone

from grader.evidence import RawOutput
from grader.transport import Connection, NodeUnreachable

MAX_CHANNELS_PER_NODE = 6
"""Concurrent SSH channels per connection; OpenSSH's default MaxSessions is 10."""

PROGRESS: ContextVar = ContextVar("clusterlab_probe_progress", default=None)
"""``progress(label, done, total)`` called in the caller's thread as each probe finishes (the notebook's bar)."""


@dataclass(frozen=True)
class Probe:
    """One fixed command. ``id`` names it in evidence (e.g. ``ip_addr``, ``ping:enp1s0f1np1``)."""

    id: str
    command: str
    timeout_s: float | None = None


def run_plan(conns: dict[str, Connection], plan: dict[str, list[Probe]],
             errors: dict[str, str]) -> list[RawOutput]:
    """Run every node's probes, nodes in parallel and up to MAX_CHANNELS_PER_NODE per node at once.

    Returns the outputs in plan order. A node whose connection fails mid-run gets its reason in
    ``errors`` (mutated) and its remaining probes are skipped; the other nodes go on.
    """
    jobs = [(node, p) for node, probes in plan.items() if node in conns for p in probes]

    def one(job: tuple[str, Probe]) -> RawOutput | None:
        node, probe = job
        if node in errors:
            return None
        started = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        try:
            res = conns[node].run(probe.command, probe.timeout_s)
        except NodeUnreachable as e:
            errors.setdefault(node, str(e))
            return None
        return RawOutput(node=node, probe=probe.id, command=probe.command, stdout=res.stdout, stderr=res.stderr,
                         exit_status=res.exit_status, timed_out=res.timed_out, duration_s=res.duration_s,
                         started_at=started)

    workers = max(1, min(len(jobs), MAX_CHANNELS_PER_NODE * max(1, len(conns))))
    progress = PROGRESS.get()
    out: list[RawOutput] = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for i, ((node, probe), r) in enumerate(zip(jobs, pool.map(one, jobs)), 1):
            if progress is not None:
                progress(f"{node} {probe.id}", i, len(jobs))
            if r is not None:
                out.append(r)
    return out
