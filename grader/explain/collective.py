"""Explain kind ``collective-bench``: the size/time/algbw/busbw tables of collective benchmarks other than nccl-tests
(``size(MiB)  time(us)  algbw(GB/s)  busbw(GB/s)``), judged with the Spark pair's busbw figures of
:mod:`grader.explain.common` (checks/ranges.toml [spark-pair.allgather_busbw_gbs]; ~12 GB/s = one twin and ~23-24 GB/s
the target: oshlabs dgx-spark-cluster VLLM.md). Registered after lesson 2a's NCCL kinds.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from .common import (BUSBW_BROKEN_GBS, BUSBW_LINE_GBS, BUSBW_ONE_TWIN_GBS, BUSBW_WARN_GBS, JUMBO_MTU, LINE_GBPS,
                     STALE_CX7, fail, info, ok, warn)
from .core import Finding, KindSpec, Summary, register
from .readers import parse_bench_table

if TYPE_CHECKING:
    from ..parsers.nccl_tests import BenchTable


def _summarise_bench(t: BenchTable, command: str | None) -> Summary:
    facts = {"columns": list(t.columns), "form": t.form, "rows": [dataclasses.asdict(r) for r in t.rows],
             "busbw_unit": "GB/s", "time_unit": "us"}
    row = t.largest
    findings: list[Finding] = []
    if row is None or row.busbw_gbs is None:
        return facts, [info("No busbw column in this table.")]
    bw, size = row.busbw_gbs, f"{row.size:g} {row.size_unit}"
    facts["busbw_at_largest_gbs"] = bw
    src = "oshlabs dgx-spark-cluster: ~23-24 GB/s is the target between two Sparks"
    if bw > BUSBW_LINE_GBS:
        findings.append(info(f"busbw {bw:g} GB/s at {size}: more than a {LINE_GBPS} Gb/s cable can carry "
                             f"({BUSBW_LINE_GBS:g} GB/s), so the "
                             "ranks shared one machine (NVLink/PCIe): this does not measure the Spark link."))
    elif bw >= BUSBW_WARN_GBS:
        findings.append(ok(f"busbw {bw:g} GB/s at {size}: what two Sparks reach with both twins ({src})."))
    elif bw > BUSBW_ONE_TWIN_GBS:
        findings.append(warn(f"busbw {bw:g} GB/s at {size}: a little below the ~23-24 GB/s two Sparks reach ({src}); "
                             f"check MTU {JUMBO_MTU} and that NCCL_IB_HCA lists both twins."))
    elif bw > BUSBW_BROKEN_GBS:
        findings.append(fail(f"busbw {bw:g} GB/s at {size}: about half of a Spark pair's ~23 GB/s: NCCL drives only one "
                             "twin (oshlabs dgx-spark-cluster: ~12 GB/s = one twin). List both in NCCL_IB_HCA."))
    else:
        findings.append(fail(f"busbw {bw:g} GB/s at {size}: single digits between two Sparks. Causes seen: NCCL fell back "
                             "to TCP sockets (oshlabs dgx-spark-cluster; run with NCCL_DEBUG=INFO: `NET/Socket` means "
                             f"sockets, `NET/IB` rules them out), or {STALE_CX7}."))
    if row.size_unit.upper().startswith("M") and row.size < 256:
        findings.append(info("The largest message is small: latency dominates; measure up to 1-2 GB for the link's "
                             "bandwidth."))
    return facts, findings


register(KindSpec(
    name="collective-bench", parse=parse_bench_table, summarise=_summarise_bench,
    # the table header only: `size_MiB=... busbw_GBps=...` lines sit inside NCCL logs, which read them
    # (name the kind with --kind collective-bench for such lines alone)
    line=re.compile(r"^size\([^)]*\)\s+time\([^)]*\)\s+algbw\([^)]*\)\s+busbw\([^)]*\)"),
))
