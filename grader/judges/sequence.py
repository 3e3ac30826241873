"""The order of a paste's outputs: a command that changes what an output shows, then the same command run again.

A person debugging pastes the session as it went: ``rdma link`` (ports DOWN), ``ip link set enp65s0f0np0 up``, then
``rdma link`` again (ACTIVE). The later output is the state now; the earlier one's warnings and failures describe
what the change mended (or did not: then the later output says so itself). Judging the earlier output as a fault of
now is a confident wrong reading (the field corpus's k004, a CloudLab node: linux-rdma thread in its entry).

Ray's state is the cluster's: ``ray start``/``ray stop`` on any node changes what ``ray status`` shows on another
(a worker joining), so for ``ray status`` those count whichever host ran them.
"""

from __future__ import annotations

import bisect
import dataclasses
import re

from ..parsers.common.commands import changes_state, ray_lifecycle, silent_on_success
from .model import Finding, Section


def silent_change(command: str | None) -> str | None:
    """What it means that ``command`` printed nothing, when it is one that prints nothing when it succeeds (``ip link
    set X up``: grader.parsers.common.commands.silent_on_success), else None."""
    if silent_on_success(command):
        return (f"`{shown_command(command)}` prints nothing when it succeeds: it alters the machine's state; nothing "
                "to read.")
    to = _REDIRECT_RE.search(command or "")
    if to and to["file"] == "/dev/null":
        return f"`{shown_command(command)}` discards its output (`> /dev/null`): nothing to read."
    if to:  # `vllm serve ... > vllm.log 2>&1 &`: its output went to the file, not to this terminal
        return (f"`{shown_command(command)}` sends its output to {to['file']} (redirected), so none shows here: "
                f"`tail -n 100 {to['file']}` shows it, to paste.")
    return None


_REDIRECT_RE = re.compile(r"(?:^|\s)(?:1|&)?>>?\s{0,4}(?P<file>[^\s&|;<>]{1,200})(?:\s{1,4}2>&1)?\s{0,4}&?\s{0,4}$")
"""A command line whose standard output goes to a file (``> log``, ``>> log``, ``&> log``, ``> log 2>&1 &``)."""


def shown_command(command: str) -> str:
    """``command`` as a finding quotes it: its first 80 characters."""
    return command if len(command) <= 80 else command[:80] + "..."


def _same_command(command: str) -> str:
    """A command as it reads the state: without ``sudo`` and with its blanks folded."""
    words = command.split()
    while words and words[0] in ("sudo", "doas"):
        words = words[1:]
    return " ".join(words)


def earlier_states(sections: list[Section], read_more_than_once: frozenset[int] = frozenset()) -> list[Section]:
    """``sections`` (a paste's outputs in order), each output followed later by a state-changing command and then by
    the same command's output on the same host (read, not an error) said as the state before that change: its warn
    and fail findings become info, prefixed with the change, and a note says which output shows the state after.
    ``read_more_than_once``: indexes of outputs the paste holds several times, read once (grader.explain.core): the
    last copy may be the state now, so they are never said to be the past. O(n log n) in the sections."""
    changes: dict[str | None, list[int]] = {}
    ray_changes: list[int] = []  # ray start/stop on any host: the cluster's state, which `ray status` shows anywhere
    runs: dict[tuple[str | None, str], list[int]] = {}
    for i, s in enumerate(sections):
        if not s.command:
            continue
        if changes_state(s.command):
            changes.setdefault(s.host, []).append(i)
            if ray_lifecycle(s.command):
                ray_changes.append(i)
        elif s.error is None and s.kind is not None:  # a later output that was read: the state it shows
            runs.setdefault((s.host, _same_command(s.command)), []).append(i)
    out = list(sections)
    with_ray: dict[str | None, list[int]] = {}  # a host's changes and every host's ray start/stop, merged once
    for i, s in enumerate(sections):
        if not s.command or i in read_more_than_once or not any(f.level in ("warn", "fail") for f in s.findings):
            continue
        if s.kind == "ray-status":
            if s.host not in with_ray:
                with_ray[s.host] = sorted(set(changes.get(s.host, [])) | set(ray_changes))
            at = with_ray[s.host]
        else:
            at = changes.get(s.host, [])
        c = bisect.bisect_right(at, i)
        same = runs.get((s.host, _same_command(s.command)), [])
        if c == len(at):
            continue
        j = bisect.bisect_right(same, at[c])
        if j == len(same):
            continue
        before = f"Before `{shown_command(sections[at[c]].command or '')}`"
        out[i] = dataclasses.replace(s, findings=tuple(
            Finding("info", f"{before}: {f.message}") if f.level in ("warn", "fail") else f for f in s.findings)
            + (Finding("info", f"{before}, which changed what this output shows: the same "
                               f"`{shown_command(sections[same[j]].command or '')}` run after it, below, shows the "
                               "state now and is judged as such."),))
    return out
