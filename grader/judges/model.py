"""What a judge says: a :class:`Finding` (one level, one sentence), a :class:`Section` (one output of a paste, read,
as ``explain`` returns it) and :data:`Summary` (what a judge returns for one output). grader.explain.core re-exports
them; grader.explain.output renders them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


LEVELS = ("ok", "warn", "fail", "info")
NO_ERROR_SEEN = "No error in these lines"
"""How a reader's note that it saw no error begins: dropped where a known fault (checks/diagnoses.toml) in the same
lines is a warning or a failure, which the reader's own patterns did not know."""
HEALTHY_RUN = "A healthy run"
"""How a benchmark reader's verdict that all went well begins (llama-bench's): dropped the same way."""
ALL_WELL = (NO_ERROR_SEEN, HEALTHY_RUN)


@dataclass(frozen=True)
class Finding:
    """One conclusion: ``level`` is ``ok``, ``warn``, ``fail`` or ``info``."""

    level: str
    message: str


@dataclass(frozen=True)
class Section:
    """One command's output in a paste, explained.

    ``kind`` is a registered kind name (None when not recognised); ``command`` the command
    from the prompt line, if any; ``facts`` what the parser read (JSON-serialisable);
    ``findings`` what it means; ``error`` why the output could not be read (then facts
    and findings are empty); ``host`` the host named in the prompt, if any.
    """

    kind: str | None
    command: str | None
    facts: dict[str, Any]
    findings: tuple[Finding, ...]
    error: str | None
    host: str | None = None


Summary = tuple[dict[str, Any], list[Finding]]
"""What a judge returns for one output: its facts (JSON-serialisable, what the parser read that matters) and its
findings."""
