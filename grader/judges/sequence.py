"""The order of a paste's outputs: a command that changes what an output shows, then the same command run again.

A person debugging pastes the session as it went: ``rdma link`` (ports DOWN), ``ip link set enp65s0f0np0 up``, then
``rdma link`` again (ACTIVE). The later output is the state now; the earlier one's warnings and failures describe
what the change mended (or did not: then the later output says so itself). Judging the earlier output as a fault of
now is a confident wrong reading (the field corpus's k004, a CloudLab node: linux-rdma thread in its entry).
"""

from __future__ import annotations

import bisect
import dataclasses
import re

from .model import Finding, Section

CHANGES_STATE = re.compile(
    r"(?:^|[\s;&|(])(?:ip\s+(?:-\d\s+)?(?:link\s+set|(?:addr|address|a|route|r)\s+(?:add|del|delete|replace|flush|"
    r"change))\b|netplan\s+(?:apply|try)\b|nmcli\s.*\b(?:up|down|modify|mod|add|reload)\b|"
    r"systemctl\s+(?:start|restart|stop|reload)\b|ethtool\s+(?:-[sAKGL]\b|--set-|--change)|modprobe\b|rmmod\b|"
    r"ray\s+(?:start|stop)\b|mlxconfig\b|sysctl\s+-w\b|ifconfig\s+\S+\s+(?:up|down|mtu)\b|ifup\b|ifdown\b|"
    r"reboot\b|rdma\s+link\s+(?:add|delete)\b|devlink\s+dev\s+(?:param\s+set|reload)\b|cma_roce_mode\b|"
    r"echo\s[^\n>]*+>+\s*/(?:sys|proc)/)")
"""A command line that changes the machine's network, driver or cluster state (what a later output of the same
command may show differently). Read-only commands (``ip a``, ``ethtool IF``, ``rdma link``) never match. Searched in
a command's first ``MAX_COMMAND`` characters only (a command line is short; a flood of ``nmcli`` words stays linear)."""
MAX_COMMAND = 2000


def silent_change(command: str | None) -> str | None:
    """What it means that ``command`` printed nothing, when it is one that changes state (``ip link set X up``
    prints nothing when it succeeds), else None."""
    if command and CHANGES_STATE.search(command[:MAX_COMMAND]):
        return f"`{command[:120]}` prints nothing when it succeeds: it changes the machine's state; nothing to read."
    return None


def _same_command(command: str) -> str:
    """A command as it reads the state: without ``sudo`` and with its blanks folded."""
    words = command.split()
    while words and words[0] in ("sudo", "doas"):
        words = words[1:]
    return " ".join(words)


def earlier_states(sections: list[Section]) -> list[Section]:
    """``sections`` (a paste's outputs in order), each output followed later by a state-changing command and then by
    the same command's output on the same host said as the state before that change: its warn and fail findings
    become info, prefixed with the change, and a note says which output shows the state after. Others unchanged.
    O(n log n) in the sections (positions looked up by bisection)."""
    changes: dict[str | None, list[int]] = {}
    runs: dict[tuple[str | None, str], list[int]] = {}
    for i, s in enumerate(sections):
        if s.command:
            if CHANGES_STATE.search(s.command[:MAX_COMMAND]):
                changes.setdefault(s.host, []).append(i)
            runs.setdefault((s.host, _same_command(s.command)), []).append(i)
    out = list(sections)
    for i, s in enumerate(sections):
        if not s.command or s.host not in changes or not any(f.level in ("warn", "fail") for f in s.findings):
            continue
        at = changes[s.host]
        c = bisect.bisect_right(at, i)
        same = runs[(s.host, _same_command(s.command))]
        if c == len(at):
            continue
        j = bisect.bisect_right(same, at[c])
        if j == len(same):
            continue
        before = f"Before `{sections[at[c]].command}`"
        out[i] = dataclasses.replace(s, findings=tuple(
            Finding("info", f"{before}: {f.message}") if f.level in ("warn", "fail") else f for f in s.findings)
            + (Finding("info", f"{before}, which changed what this output shows: the same "
                               f"`{sections[same[j]].command}` run after it, below, shows the state now and is judged "
                               "as such."),))
    return out
