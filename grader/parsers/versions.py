"""Parser for the lesson-2 ``serving_versions`` probe: the versions of the serving stack each node runs.

The probe (grader/probes/lesson2.py ``SERVING_VERSIONS``) prints one block per Python environment that a Ray or
vLLM process of the node loads (its ``site-packages`` or ``dist-packages`` folder, read from the process's
memory map), per running container (``=== docker <id>``), and per process it may not read::

    === /opt/venv/lib/python3.12/site-packages/
    vllm 0.11.0
    torch 2.8.0+cu128
    ray 2.49.1
    nccl 2.27.3
    python 3.12.3
    === 4711 unreadable

A header seen twice is one block (the probe names a folder again to add the Python version of a process that
loads it). Names are the distributions' (``nccl`` is nvidia-nccl-cu12/cu13's wheel, or the ``libnccl.so.2.x.y``
the process mapped); versions as their metadata writes them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from grader.parsers.common import clean_lines

PACKAGES = {"vllm": "vLLM", "torch": "PyTorch", "ray": "Ray", "nccl": "NCCL", "python": "Python"}
"""What the probe reports (name: how a sentence writes it), in the order a reader compares them."""

_VERSION_RE = re.compile(r"^(vllm|torch|ray|nccl|python)[ \t]+([0-9][\w.+!-]{0,40})[ \t]*$")


@dataclass(frozen=True)
class Environment:
    """One block: ``source`` is the packages folder, ``docker <id>`` or a pid; ``readable`` False for a
    process of another user (its memory map is not readable); ``versions`` {name: [versions seen]}."""

    source: str
    readable: bool = True
    versions: dict[str, list[str]] = field(default_factory=dict)


def parse_serving_versions(text: str) -> list[Environment]:
    """[Environment] in the order of their first header. Lines before any header and unknown lines are ignored;
    a name seen twice in one block keeps both versions (a container with two Pythons). Never raises."""
    blocks: dict[str, dict] = {}
    current: dict | None = None
    for line in clean_lines(text):
        line = line.strip()
        head = re.match(r"^=== (\S(?:.*\S)?)$", line)
        if head:
            source, readable = head.group(1), True
            m = re.match(r"^(\d+) unreadable\b", source)
            if m:
                source, readable = m.group(1), False
            current = blocks.setdefault(source, {"source": source, "readable": readable, "versions": {}})
            continue
        m = _VERSION_RE.match(line)
        if m and current is not None:
            seen = current["versions"].setdefault(m.group(1), [])
            if m.group(2) not in seen:
                seen.append(m.group(2))
    return [Environment(**b) for b in blocks.values()]
