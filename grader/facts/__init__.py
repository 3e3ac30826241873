"""Facts: typed, JSON-able values derived from the raw outputs in evidence, one module per lesson."""

from __future__ import annotations

from typing import Any, Callable

from grader.evidence import Evidence


def derivers() -> dict[str, Callable[[Evidence], dict[str, Any]]]:
    """{lesson: derive(evidence) -> facts} for every lesson the grader knows."""
    from grader.facts import lab, lesson1, lesson2, lesson3

    return {"lesson1": lesson1.derive, "lesson2": lesson2.derive, "lesson3": lesson3.derive,
            "lab": lab.derive}
