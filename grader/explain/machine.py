"""Explain kinds for a machine's state beyond lesson 3's tables: ``nvidia-smi nvlink -s`` (which NVLink links are
up) and ``free`` (the memory a Spark's GPU shares with its OS). Registered on import by the package, after
:mod:`.lesson3`.

Figures: checks/specs/memory.toml (the share of memory a running machine should keep available).
"""

from __future__ import annotations

import re
from typing import Any

from .common import fail, info, nvidia_smi_with, ok, warn
from .core import Finding, KindSpec, Summary, register
from .readers import parse_free, parse_nvlink_status


# --------------------------------------------------------------------------- nvlink -s

def _summarise_nvlink(st: Any, command: str | None) -> Summary:
    findings: list[Finding] = []
    if st.none_active and not any(g.active for g in st.gpus):
        findings.append(info("No NVLink link is active: PCIe cards without an NVLink bridge (or a bridge not seated) "
                             "say this; the cards then talk over PCIe (`nvidia-smi topo -m` shows the path)."))
    for g in st.gpus:
        if not g.links:
            continue
        speeds = sorted({gbs for _, gbs in g.links if gbs is not None})
        each = f" at {', '.join(f'{x:g}' for x in speeds)} GB/s each" if speeds else ""
        if g.inactive and g.active:
            findings.append(fail(f"GPU {g.index} ({g.name}): link(s) {', '.join(map(str, g.inactive))} <inactive>, "
                                 f"{len(g.active)} of {len(g.links)} active{each}: the NVLink bandwidth of the "
                                 "inactive links is lost (or their traffic rerouted). On a board whose GPUs are all "
                                 "wired by NVLink every link should be up: reset the GPU (or reboot), and if a link "
                                 "stays inactive it is a hardware fault (bridge, baseboard or GPU) to report."))
        elif g.inactive:
            findings.append(info(f"GPU {g.index} ({g.name}): none of its {len(g.links)} NVLink links is active: "
                                 "no bridge (or it is not seated); the card talks over PCIe."))
        else:
            total = sum(gbs for _, gbs in g.links if gbs is not None)
            findings.append(ok(f"GPU {g.index} ({g.name}): all {len(g.links)} NVLink links active{each} "
                               f"({total:g} GB/s per direction in all, as nvidia-smi counts it)."))
    if not findings:
        findings.append(info("No link lines under the GPUs: this GPU has no NVLink."))
    facts = {"none_active": st.none_active, "gpus": [{"index": g.index, "name": g.name, "links": list(g.links)}
                                                     for g in st.gpus]}
    return facts, findings


register(KindSpec(
    name="nvidia-smi-nvlink", parse=parse_nvlink_status, summarise=_summarise_nvlink, programs=("nvidia-smi",),
    matches_command=lambda argv: nvidia_smi_with(argv, want=lambda a: "nvlink" in a and any(x in ("-s", "--status")
                                                                                 for x in a)),
    line=re.compile(r"^Link \d+: (?:\d+(?:\.\d+)? GB/s|<inactive>)$|NVLink information as all links are inActive"),
    # a GPU without NVLink (a PCIe H200 passed to a VM, tests/fixtures/captured/gpu-processes): no output, exit 0
    when_empty="`nvidia-smi nvlink -s` printed nothing (if the paste left nothing out): this GPU has no NVLink (a PCIe card with no bridge), so GPUs "
               "here talk over PCIe (`nvidia-smi topo -m` shows the path).",
))


# --------------------------------------------------------------------------- free

def _summarise_free(f: Any, command: str | None) -> Summary:
    from ..calc.specs import row
    from .core import context
    low = row("memory.toml", "headroom").graded("low_available_fraction")
    gib = 1024 ** 3
    mem, swap = f.mem, f.swap
    findings: list[Finding] = []
    swapped = swap.used if swap is not None and swap.used else 0
    in_swap = f", and {swapped / gib:.1f} GiB already swapped out" if swapped else ""
    unit = "" if f.unit_known else " (plain numbers read as KiB, free's default: paste the command line too)"
    if mem.available is None:
        findings.append(info(f"Memory: {mem.total / gib:.1f} GiB in all, {(mem.used or 0) / gib:.1f} GiB used{unit}; "
                             "this free has no `available` column (procps before 3.3.10), so what a new program "
                             "can take is not shown."))
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
                                    else "")))
    if context().host == "spark" and mem.total and mem.available is not None:
        findings.append(info("A Spark's GPU has no memory of its own: this is the pool vLLM's "
                             "--gpu-memory-utilization takes its share of."))
    facts = {"mem": f.mem.__dict__, "swap": f.swap.__dict__ if f.swap else None, "unit_known": f.unit_known}
    return facts, findings


register(KindSpec(
    name="free", parse=parse_free, summarise=_summarise_free, programs=("free",),
    matches_command=lambda argv: bool(argv) and argv[0] == "free",
    line=re.compile(r"^\s*total\s+used\s+free\s+shared\s+(?:buff/cache|buffers)|^(?:Mem|Swap):\s+\d"),
    starts=re.compile(r"^\s*total\s+used\s+free\s+shared"),
))
