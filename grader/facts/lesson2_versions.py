"""Lesson 2b facts: the serving stack's versions on every node (L2.versions_same).

Read from each node's ``serving_versions`` probe (grader/parsers/versions.py): the vLLM, PyTorch, Ray, NCCL and
Python that its Ray and vLLM processes (or the containers that run them) load. Ray refuses a node whose Ray or
Python differs from the head's, to the Python patch release (``Version mismatch: The cluster was started
with``, checks/diagnoses.toml ray-version-mismatch); vLLM's docs ask for the same environment on every node, and
NCCL's ranks must speak one protocol. Pure.

Shape (added to ``pair``)::

    {"versions": {node: {name: "version" or "v1, v2"}}, "version_problems": [str], "version_unmeasured": [str]}

A name compares across the nodes where at least two of them report it; a node that reports two versions of one
name (two environments) differs from a node that reports one.
"""

from __future__ import annotations

from typing import Any

from grader.evidence import Evidence
from grader.facts.lesson2_serve import NO_SERVE_TABLE
from grader.parsers.versions import PACKAGES, parse_serving_versions

def _node_versions(ev: Evidence, node: str) -> tuple[dict[str, str] | None, str | None]:
    """(versions, None), or (None, why not measured) for one node."""
    raw = ev.outputs(node, "serving_versions")
    if raw is None:
        return None, f"{node}: the serving stack's versions were not read (the node was not reached, or the " \
                     "evidence is older than this check): check again while Ray and vLLM run"
    envs = parse_serving_versions(raw.stdout)
    seen: dict[str, list[str]] = {}
    for env in envs:
        for name, values in env.versions.items():
            seen.setdefault(name, [])
            seen[name] += [v for v in values if v not in seen[name]]
    if not any(name in seen for name in ("vllm", "ray")):
        other = any(not e.readable for e in envs)
        return None, (f"{node}: no Ray or vLLM process whose Python packages could be read"
                      + (" (processes of another user: run the check as the user who started Ray and vLLM)" if other
                         else ": start Ray and vLLM (lesson 2), then check again"))
    return {name: ", ".join(sorted(seen[name])) for name in PACKAGES if name in seen}, None


def version_facts(ev: Evidence, nodes: dict[str, dict]) -> dict[str, Any]:
    """The ``versions``, ``version_problems`` and ``version_unmeasured`` facts (see the module docstring)."""
    out: dict[str, Any] = {"versions": {}, "version_problems": [], "version_unmeasured": []}
    if not ev.inventory.get("serve"):
        out["version_unmeasured"].append(NO_SERVE_TABLE)
        return out
    for node in nodes:
        versions, why = _node_versions(ev, node)
        if versions is None:
            out["version_unmeasured"].append(why)
        else:
            out["versions"][node] = versions
    for name in PACKAGES:
        have = {n: v[name] for n, v in out["versions"].items() if name in v}
        if len(have) >= 2 and len(set(have.values())) > 1:
            out["version_problems"].append(f"{PACKAGES[name]} differs between the nodes: "
                                           + ", ".join(f"{n} {v}" for n, v in have.items()))
    return out
