"""A cross-check of several perftest runs in one paste (each run, and two twins' total: grader.explain.lesson2_roce):
two or more single-size runs of the same test and message size whose BW averages disagree by more than
``[spark-pair.ib_write_bw_gbps] repeat_ratio_max`` (checks/ranges.toml) get a warning naming each figure as printed,
how long each run lasted (iterations / message rate, ms) and how to get a steady figure (``-D`` seconds, or more
``-n``); runs that agree get a line saying so.
"""

from __future__ import annotations

from typing import Any

from ..parsers.perftest import MB_PER_SEC_IN_GBPS
from .common import info, spark_figure, warn
from .core import Finding, Section, register_cross_check

REPEAT_RATIO_MAX = spark_figure("ib_write_bw_gbps", "repeat_ratio_max")
"""[spark-pair.ib_write_bw_gbps] repeat_ratio_max: the larger/smaller BW average of two runs of one size that agree."""


def _lasted_ms(row: Any) -> float | None:
    """How long a bandwidth row's run lasted, in ms: iterations / message rate (None without both)."""
    return row.iterations / (row.msg_rate_mpps * 1e3) if row.iterations and row.msg_rate_mpps else None


def _as_printed(run: Any, row: Any) -> str:
    """A row's BW average as perftest printed it (MB/sec unless --report_gbits), with Gb/s beside MB/sec."""
    gbps = row.bw_average_gbps
    if (run.report_unit or "").upper().startswith("MB"):
        return f"{gbps / MB_PER_SEC_IN_GBPS:.2f} MB/sec ({gbps:.2f} Gb/s)"
    return f"{gbps:.2f} Gb/s"


@register_cross_check
def _repeated_size(items: list[tuple[Section, Any]]) -> list[tuple[int, Finding]]:
    """Runs of one test at one message size, single-size runs (one row each, as a repeated experiment is pasted):
    whether their BW averages agree."""
    groups: dict[tuple, list[tuple[int, Any]]] = {}
    for index, r in ((i, r) for i, (s, parsed) in enumerate(items)
                     if s.kind == "perftest" and not s.error and parsed for r in parsed):
        rows = [x for x in r.bw_rows if x.bw_average_gbps is not None]
        if len(rows) == 1 and r.role != "server":
            groups.setdefault((r.test, r.device, rows[0].bytes), []).append((index, r, rows[0]))
    out: list[tuple[int, Finding]] = []
    for (_test, _dev, size), runs in groups.items():
        if len(runs) < 2:
            continue
        figures = [row.bw_average_gbps for _, _, row in runs]
        ratio = max(figures) / max(min(figures), 1e-9)
        said = ", ".join(_as_printed(r, row) for _, r, row in runs)
        if ratio <= REPEAT_RATIO_MAX:
            out.append((runs[-1][0], info(f"{len(runs)} runs at {size} B per message agree: {said}.")))
            continue
        times = "; ".join(f"{row.iterations} iterations in about {ms:.1f} ms" for _, _, row in runs
                          if (ms := _lasted_ms(row)) is not None)
        apart = f"{ratio:.0f} times" if ratio >= 3 else f"{ratio:.1f} times"
        out.append((runs[-1][0], warn(
            f"{len(runs)} runs at {size} B per message disagree: {said}, {apart} apart"
            + (f" ({times})" if times else "") + ". A run this short is dominated by its start (connection set-up, "
            "first touches of the buffers), so neither figure is the link's: run each for seconds (`-D 10`, or "
            "`-n` 100 times larger) and compare again; if they still differ, something changed between them "
            "(the other side busy, a link renegotiated).")))
    return out
