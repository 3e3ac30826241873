"""What is known of the host an output came from that the output itself may not show (``explain --host --nodes``).

:func:`grader.explain.core.explain` sets it for the paste it reads; a judge reads it with :func:`context` (through
:func:`grader.judges.common.on_spark` and ``machines_spanned`` where it can).
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass


@dataclass(frozen=True)
class Context:
    """What is known of where a paste came from that the paste itself may not show (``explain --host --nodes``).

    ``host``: ``"spark"`` (a DGX Spark / GB10), ``"other"`` (any other machine) or None (not said); ``nodes``: how
    many hosts the run spanned (1: one machine, so no network carried its data), or None (not said). A judge
    that needs one of these reads :func:`context` and, where it is None, says which output would decide."""

    host: str | None = None
    nodes: int | None = None


_CONTEXT: contextvars.ContextVar[Context] = contextvars.ContextVar("explain_context", default=Context())


def context() -> Context:
    """The context of the paste being explained (:class:`Context`; all None outside ``explain``)."""
    return _CONTEXT.get()
