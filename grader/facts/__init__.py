"""Facts: typed, JSON-able values derived from the raw outputs in evidence, one module per lesson."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # annotations only: `explain` reads facts without loading the evidence module
    from grader.evidence import Evidence


def derivers() -> dict[str, Callable[[Evidence], dict[str, Any]]]:
    """{lesson: derive(evidence) -> facts} for every lesson that records evidence (grader.lessons)."""
    from grader import lessons

    return {name: lessons.get(name).deriver() for name in lessons.recording()}
