"""Kind ``collective-bench`` for ``explain``: the size/time/algbw/busbw tables of collective benchmarks other than
nccl-tests (``size(MiB)  time(us)  algbw(GB/s)  busbw(GB/s)``), judged by grader.judges.busbw. Registered after
lesson 2a's NCCL kinds.
"""

from __future__ import annotations

import re

from .core import KindSpec, register
from .readers import judge, parse_bench_table


register(KindSpec(
    name="collective-bench", parse=parse_bench_table, summarise=judge("busbw", "summarise_bench"),
    # the table header only: `size_MiB=... busbw_GBps=...` lines sit inside NCCL logs, which read them
    # (name the kind with --kind collective-bench for such lines alone)
    line=re.compile(r"^size\([^)]*\)\s+time\([^)]*\)\s+algbw\([^)]*\)\s+busbw\([^)]*\)"),
))
