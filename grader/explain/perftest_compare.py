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
SHORT_RUN_S = spark_figure("ib_write_bw_gbps", "repeat_short_run_s")
"""[spark-pair.ib_write_bw_gbps] repeat_short_run_s: a run shorter than this (s) is dominated by its start."""
MAX_LISTED = 6
"""At most this many runs are quoted in a finding; more are summed up by their range."""


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
        shown = runs if len(runs) <= MAX_LISTED else [min(runs, key=lambda x: x[2].bw_average_gbps),
                                                      max(runs, key=lambda x: x[2].bw_average_gbps)]
        said = (", " if len(runs) <= MAX_LISTED else " to ").join(_as_printed(r, row) for _, r, row in shown)
        if ratio <= REPEAT_RATIO_MAX:
            out.append((runs[-1][0], info(f"{len(runs)} runs at {size} B per message agree: {said}.")))
            continue
        lasted = [_lasted_ms(row) for _, _, row in runs]
        short = [ms for ms in lasted if ms is not None and ms < SHORT_RUN_S * 1e3]
        times = "; ".join(f"{row.iterations} iterations in about {ms:.1f} ms" for (_, _, row), ms in zip(runs, lasted)
                          if ms is not None) if len(runs) <= MAX_LISTED else ""
        apart = f"{ratio:.0f} times" if ratio >= 3 else f"{ratio:.1f} times"
        why = ("A run this short is dominated by its start (connection set-up, first touches of the buffers), so "
               "neither figure is the link's: run each for seconds (`-D 10`, or `-n` 100 times larger) and compare "
               "again; if they still differ, something changed between them (the other side busy, a link "
               "renegotiated)." if short else
               "Each ran long enough to be steady, so something changed between them: a setting (MTU, the device or "
               "GID index, the number of QPs), the other side's load, or the link itself (`ethtool` speed, "
               "`ibdev2netdev`).")
        out.append((runs[-1][0], warn(f"{len(runs)} runs at {size} B per message disagree: {said}, {apart} apart"
                                      + (f" ({times})" if times else "") + ". " + why)))
    return out
