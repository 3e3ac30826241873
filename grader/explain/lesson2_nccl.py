"""Lesson 2a's NCCL kinds for ``explain``: ``nccl-log`` (NCCL_DEBUG=INFO logs; grader.judges.nccl), ``nccl-tests``
(all_reduce_perf, all_gather_perf ...; grader.judges.busbw) and ``collective-bench``, the size/time/algbw/busbw tables
of other collective benchmarks (``size(MiB)  time(us)  algbw(GB/s)  busbw(GB/s)``; grader.judges.busbw).

Detection keys on ``NCCL INFO`` lines and nccl-tests' data rows and ``#`` header, which no other kind prints.
"""

from __future__ import annotations

import re

from .core import KindSpec, register, register_cross_check
from .readers import judge, parse_bench_table, parse_nccl_log, parse_nccl_tests


_NCCL_LINE = (r"\bNCCL (?:INFO|WARN|TRACE|ABORT)\b|^NET/(?:IB\w*|Socket|Plugin)\s*:|^Channel \d+/\d+\s*:\s*\d+\[\w+\]\s*->"
              r"|^Using network \w|^NCCL version \d|^NCCL_[A-Z0-9_]+ set (?:by environment )?to |\blibfabric:\d+:\d+::|\] [\w./-]"
              r"{1,80}\.(?:cc|cu|h):\d{1,5} WARN |^[\w./-]{1,80}\.(?:cc|cu):\d{1,5} -> [1-9](?: \[[\w ]{1,30}\])?$")

register(KindSpec(
    name="nccl-log", parse=parse_nccl_log, summarise=judge("nccl", "summarise_nccl_log"),
    line=re.compile(_NCCL_LINE + r"|^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ \S*torch/(?:distributed|csrc/distributed)/")
))


_DTYPES = r"(?:float|double|half|bfloat16|int8|uint8|int32|uint32|int64|uint64|f8e4m3|f8e5m2|fp8_e4m3|fp8_e5m2|int|float16|float32|float64)"

register(KindSpec(
    name="nccl-tests", header=re.compile(r"^#\s*(?:nccl-tests version|Collective test starting|nThread \d|Using devices"
                                        r"|Rank\s+\d+ (?:Group|Pid)|Avg bus bandwidth\s*:)"),  # (or its summary alone)
    parse=parse_nccl_tests, summarise=judge("busbw", "summarise_nccl_tests"), programs=("all_reduce_perf",
                                                                                      "all_gather_perf", "mpirun"),
    matches_command=lambda argv: any(re.search(r"_perf(?:_mpi)?$", a.rsplit("/", 1)[-1]) for a in argv),
    line=re.compile(r"^(?:\S*?<std(?:out|err)>:\s*)?\d++\s++\d++\s++" + _DTYPES + r"\s+"
                    r"|<std(?:out|err)>:\s*#\s*(?:nccl-tests version|Collective test|nThread|Using devices|Rank\s|"
                    r"Avg bus|Out of bounds|\s*size\s+count)"
                    r"|Test (?:NCCL |CUDA )?failure|^Invalid number of GPUs:|^Please check the number of processes and GPUs"
                    # its header lines with the `#` a forum's Markdown took off
                    r"|^\s*nThread \d+ nGpus \d+ minBytes |^\s*size\s+count\s+type\s+redop\b"
                    r"|^\s*Rank\s+\d+\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s"
                    r"|" + _NCCL_LINE
                    # its summary lines (comments: they stay with the rows above them)
                    + r"|^#\s*$|^#\s*(?:Out of bounds values|Avg bus bandwidth|Collective test concluded|error:"
                      r"|GPU memory usage)\b"),
))

register_cross_check(judge("busbw", "rdma_in_the_log_beside"), kinds=("nccl-tests",))


register(KindSpec(
    name="collective-bench", parse=parse_bench_table, summarise=judge("busbw", "summarise_bench"),
    # the table header only: `size_MiB=... busbw_GBps=...` lines sit inside NCCL logs, which read them
    # (name the kind with --kind collective-bench for such lines alone)
    line=re.compile(r"^size\([^)]*\)\s+time\([^)]*\)\s+algbw\([^)]*\)\s+busbw\([^)]*\)"),
))
