"""Judge of a machine's memory: ``free`` (``-h``, ``-m``, ``-g``, and the old format without ``available``), read for what
a new program can still take, and on a Spark for what vLLM's --gpu-memory-utilization takes its share of (the GPU has no
memory of its own). Its figure: checks/specs/memory.toml (the share of memory a running machine should keep
available).
"""

from __future__ import annotations

from typing import Any

from .common import info, warn
from .model import Finding, Summary


def summarise_free(f: Any, command: str | None) -> Summary:
    from ..calc.specs import row
    from .context import context
    low = row("memory.toml", "headroom").graded("low_available_fraction")
    gib = 1024 ** 3
    mem, swap = f.mem, f.swap
    findings: list[Finding] = []
    swapped = swap.used if swap is not None and swap.used else 0
    in_swap = f", and {swapped / gib:.1f} GiB already swapped out" if swapped else ""
    unit = "" if f.unit_known else " (plain numbers read as KiB, free's default: paste the command line too)"
    no_swap = " There is no swap: when memory runs out, the kernel's OOM killer ends a process." \
        if swap is not None and swap.total == 0 else ""
    if mem.available is None:
        guess = mem.estimated_available
        said = (f"about {guess / gib:.1f} GiB at most is available (free + buffers + cached - shared"
                + (f": the {mem.shared / gib:.1f} GiB shared, tmpfs and shared memory, cannot be dropped like "
                   "cache" if mem.shared and 4 * mem.shared >= (mem.cache or 0) else "")
                + "; /proc/meminfo's MemAvailable is the kernel's own figure)") if guess is not None else \
            "what a new program can take is not shown"
        low_now = guess is not None and low is not None and guess / mem.total < low
        findings.append((warn if low_now else info)(
            f"Memory: {mem.total / gib:.1f} GiB in all, {(mem.used or 0) / gib:.1f} GiB used{unit}; this free has no "
            f"`available` column (procps before 3.3.10): {said}.{no_swap}"))
    else:
        share = mem.available / mem.total if mem.total else 0.0
        said = (f"{mem.available / gib:.1f} GiB of {mem.total / gib:.1f} GiB ({share:.0%}) is available{in_swap}"
                + unit)
        spark = " On a Spark that pool is also the GPU's memory: lower --gpu-memory-utilization or stop a server."
        if low is not None and share < low:
            findings.append(warn(f"Only {said}: the next allocation (a model load, a longer context, another "
                                 "process) makes the kernel reclaim and swap, or OOM-kills a process." + spark))
        else:
            findings.append(info(f"Memory: {said}."
                                 + (" Something was short of memory at some point, or swap is eager." if swapped
                                    else "") + no_swap))
    if context().host == "spark" and mem.total and mem.available is not None:
        findings.append(info("A Spark's GPU has no memory of its own: this is the pool vLLM's "
                             "--gpu-memory-utilization takes its share of."))
    facts = {"mem": f.mem.__dict__, "swap": f.swap.__dict__ if f.swap else None, "unit_known": f.unit_known}
    return facts, findings
