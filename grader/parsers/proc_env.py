"""Parser for the lesson-2 ``serving_env`` probe: interface variables of Ray/vLLM processes and containers."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from grader.parsers.common import clean_lines


@dataclass(frozen=True)
class ProcessEnv:
    """One process (``source`` = its pid) or container (``docker <id>``) and its interface variables."""

    source: str
    description: str
    readable: bool
    env: dict[str, str] = field(default_factory=dict)


def parse_serving_env(text: str) -> list[ProcessEnv]:
    """[ProcessEnv] from ``=== <pid> <cmdline>`` / ``=== <pid> unreadable <comm>`` / ``=== docker <id> <name>``
    headers, each followed by ``NAME=value`` lines, and ``=== docker-denied <user>`` (source ``docker-denied``,
    unreadable: the Docker CLI was refused the engine's socket). Unknown lines are ignored; never raises."""
    out: list[dict] = []
    for line in clean_lines(text):
        denied = re.match(r"^=== docker-denied ?(.*)$", line)
        if denied:  # the Docker CLI was refused the engine's socket: no container could be read
            out.append({"source": "docker-denied", "description": denied.group(1).strip(), "readable": False, "env": {}})
            continue
        m = re.match(r"^=== (docker \S+|\d+) ?(.*)$", line)
        if m:
            unreadable = m.group(2).startswith("unreadable")
            out.append({"source": m.group(1), "description": m.group(2).removeprefix("unreadable").strip(),
                        "readable": not unreadable, "env": {}})
            continue
        kv = re.match(r"^([A-Z][A-Z0-9_]*)=(.*)$", line)
        if kv and out:
            out[-1]["env"][kv.group(1)] = kv.group(2)
    return [ProcessEnv(**d) for d in out]
