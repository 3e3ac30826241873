"""``nvidia-smi dmon`` read as a careful reader does (grader.judges.gpu's summarise_table hands it over): each GPU's
utilisation over the samples, a GPU idle throughout, and a kernel running the whole time with almost no memory
traffic: the pattern of a kernel polling (an NCCL collective waiting for its peer) rather than computing, which a
few samples cannot prove a hang (https://docs.nvidia.com/deploy/nvidia-smi/index.html: dmon's sm is the share of
the interval a kernel ran, mem the share the memory was read or written)."""

from __future__ import annotations

import re
from typing import Any

from .common import info, on_spark, warn
from .model import Finding, Summary


def _bar(key: str) -> float | None:
    """checks/specs/serving.toml [dmon]'s ``key``, None where unverified."""
    from ..calc.specs import row
    return row("serving.toml", "dmon").graded(key)


def _span(values: list[float], unit: str) -> str:
    lo, hi = min(values), max(values)
    return f"{lo:g}{unit}" if lo == hi else f"{lo:g}-{hi:g}{unit}"


_CAP_RE = re.compile(r"\b\d{1,4}(?:\.\d{1,2})? ?W {0,4}/ {0,4}(?P<a>\d{2,4}(?:\.\d{1,2})?) ?W\b"
                     r"|(?:Current|Enforced|Default|Max) Power Limit {0,40}: {0,4}(?P<b>\d{2,4}(?:\.\d{1,2})?) ?W\b")
"""A card's power cap where the paste shows it: nvidia-smi's table (``69W / 700W``), ``nvidia-smi -q``'s limits."""


def _power_cap() -> float | None:
    """The smallest power cap the paste shows (nvidia-smi's table or -q beside the dmon samples), None where none."""
    from .context import context
    caps = [float(m["a"] or m["b"]) for m in _CAP_RE.finditer(context().paste or "")]
    return min(caps) if caps else None


def summarise_dmon(d: Any, command: str | None) -> Summary:
    sm, mem = d.series("sm"), d.series("mem")
    gpus = sorted({str(r["gpu"]) for r in d.rows}, key=lambda g: (len(g), g))
    said = []
    for g in gpus:
        n = sum(1 for r in d.rows if str(r["gpu"]) == g)
        parts = [f"SM {_span(sm[g], '%')}" if g in sm else "", f"memory {_span(mem[g], '%')}" if g in mem else ""]
        for col, unit in (("pwr", " W"), ("pclk", " MHz")):
            vals = d.series(col).get(g)
            parts.append(f"{'power' if col == 'pwr' else 'SM clock'} {_span(vals, unit)}" if vals else "")
        said.append(f"GPU{g} ({n} sample{'s' if n != 1 else ''}): {', '.join(p for p in parts if p) or 'no figure'}")
    findings: list[Finding] = [info("nvidia-smi dmon: " + "; ".join(said) + ".")]
    busy, quiet = _bar("busy_sm_percent"), _bar("quiet_mem_percent")
    spin = [g for g in gpus if busy is not None and quiet is not None and len(sm.get(g, [])) >= 2
            and len(mem.get(g, [])) >= 2 and min(sm[g]) >= busy and max(mem[g]) <= quiet]
    pwr, cap, share = d.series("pwr"), _power_cap(), _bar("polling_power_share")
    hot = [g for g in spin if pwr.get(g) and (cap is None or share is None or max(pwr[g]) >= cap * share / 100)]
    if hot:
        g = hot[0]
        findings.append(info(
            f"{', '.join('GPU' + x for x in hot)}: a kernel ran almost the whole time (SM {_span(sm[g], '%')}) with the "
            f"memory hardly read or written (memory {_span(mem[g], '%')}), at {_span(pwr[g], ' W')}"
            + (f", near the card's {cap:g} W power cap: a kernel computing flat out on data held in its caches (a GEMM, "
               "a burn test), not one polling (a polling kernel draws a small part of the cap)." if cap else
               ": either a kernel polling (an NCCL collective waiting for its peer, which draws a small part of the "
               "card's power cap) or one computing flat out on data held in its caches (near the cap). The card's "
               "power limit decides: `nvidia-smi -q -d POWER` (Current Power Limit) beside these samples.")))
    spin = [g for g in spin if g not in hot]
    if spin:
        findings.append(warn(f"{', '.join('GPU' + g for g in spin)}: a kernel ran almost the whole time (SM "
                             f"{_span(sm[spin[0]], '%')}) while the memory was hardly read or written (memory "
                             f"{_span(mem[spin[0]], '%')}"
                             + (f", power {_span(pwr[spin[0]], ' W')} of a {cap:g} W cap" if pwr.get(spin[0]) else "")
                             + "): a kernel that does no work on data, most often one "
                             "polling, as an NCCL collective waiting for its peer (a rank that is late, stuck or "
                             "gone), rather than computing, which reads memory. A few samples cannot prove a hang: "
                             "the job's log making no progress over minutes, and `py-spy dump --pid <pid>` of each "
                             "rank (where it waits), decide."
                             + ("" if pwr.get(spin[0]) else " The power (`nvidia-smi dmon -s pu`) tells it from a "
                                "kernel computing on data held in its caches: polling draws a small part of the "
                                "card's power cap, such computing nears it.")
                             + (" On a GB10 (unified memory), compare with a sample under a load that works: if its "
                                "memory column stays 0 there too, this column says nothing on it." if on_spark(None)
                                else "")))
    idle = [g for g in gpus if g in sm and max(sm[g]) == 0 and max(mem.get(g, [0])) == 0]
    if idle and len(idle) < len(gpus):
        findings.append(info(f"{', '.join('GPU' + g for g in idle)} idle in every sample (SM and memory 0%) while "
                             "the others work: it takes no part in what runs."))
    elif idle and len(idle) == len(gpus):
        findings.append(info("Every GPU idle in every sample (SM and memory 0%): nothing ran on them meanwhile."))
    facts = {"columns": list(d.columns), "rows": [dict(r) for r in d.rows]}
    return facts, findings
