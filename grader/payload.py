"""The opening every JSON payload of the command line carries, and ``explain``'s payload, without the models that
describe them (grader.results, which re-exports these names): ``clusterlab explain --json`` prints its payload
without importing pydantic, about a tenth of a second of its start.
"""

from __future__ import annotations

from typing import Any

SCHEMA_VERSION = "1.1"
"""The version every payload carries as ``"schema_version"`` (grader.results' module doc says when it changes)."""


def stamp(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    """``{"schema_version": SCHEMA_VERSION, "kind": kind, **payload}``: a payload as the contract prints it."""
    return {"schema_version": SCHEMA_VERSION, "kind": kind, **payload}


def explain_payload(file: str, sections: Any) -> dict[str, Any]:
    """An ``ExplainReport`` payload (grader.results) for grader.explain Sections ``sections`` read from ``file``:
    ``{"schema_version", "kind": "explain", "file", "sections": [{"kind", "command", "host", "facts",
    "findings", "error"}]}``."""
    from grader.explain import to_jsonable

    return stamp("explain", {"file": file, "sections": to_jsonable(sections)})
