"""Judge of CUDA samples' ``bandwidthTest`` (grader.parsers.bandwidth_test): whether copies between host memory and
the GPU reach what the card's own PCIe link carries.

A pinned copy each way (host to device, device to host) runs at the PCIe link's practical rate
(grader.calc.pcie.practical_bandwidth): where checks/specs/gpus.toml knows the card, its pcie_gen and pcie_lanes
decide what it should reach; below that, the card trained fewer lanes or a lower generation (a narrower slot, a riser,
lanes shared with the chipset). Pageable copies go through a bounce buffer and say little of the link; device to device
is the GPU's own memory. ``Result = FAIL`` fails.
"""

from __future__ import annotations

from typing import Any

from ..calc.pcie import links_carrying, practical_bandwidth
from ..calc.specs import match_gpu
from .common import fail, info, ok, warn
from .model import Finding, Summary

_LINK_WAYS = ("Host to Device", "Device to Host")


def summarise_bandwidth_test(t: Any, command: str | None) -> Summary:
    facts = {"devices": [list(d) for d in t.devices], "mode": t.mode, "passed": t.passed, "unit": "GB/s",
             "transfers": [{"way": x.way, "memory": x.memory, "size_bytes": x.size_bytes, "gbs": round(x.gbs, 3)}
                           for x in t.transfers]}
    findings: list[Finding] = []
    names = [name for _, name in t.devices]
    if t.passed is False:
        findings.append(fail("`Result = FAIL`: a copy failed or the test could not run on this GPU; the lines above it "
                             "name the CUDA error (`nvidia-smi` and `dmesg` for an Xid on this machine)."))
    best = {way: max((x.gbs for x in t.transfers if x.way == way and x.memory == "PINNED"), default=None)
            for way in (*_LINK_WAYS, "Device to Device")}
    shown = {way: rate for way, rate in best.items() if rate is not None and way in _LINK_WAYS}
    spec = match_gpu(names[0]) if len(set(names)) == 1 else None
    gen, lanes = (spec.graded("pcie_gen"), spec.graded("pcie_lanes")) if spec else (None, None)
    low, high = practical_bandwidth(int(gen), int(lanes)) if gen and lanes else (None, None)
    said = ", ".join(f"{way.lower()} {rate:.1f} GB/s" for way, rate in shown.items())
    on = f" on {', '.join(dict.fromkeys(names))}" if names else ""
    if shown and low is not None:
        slow = {way: rate for way, rate in shown.items() if rate < low}
        if slow:
            fit = links_carrying(min(slow.values()))
            findings.append(warn(f"Pinned copies{on}: {said}, below what the card's own Gen{gen:g} x{lanes:g} link "
                                 f"carries ({low:.1f}-{high:.1f} GB/s)" + (f": about what a {fit} link carries" if fit
                                                                           else "")
                                 + ". The card trained fewer lanes or a lower generation: a narrower slot, a riser, "
                                 "lanes shared with the chipset or another card. `sudo lspci -vv -d 10de: | grep "
                                 "LnkSta` (or nvidia-smi's pcie.link.gen.current and width.current under load) says "
                                 "which."))
        else:
            findings.append(ok(f"Pinned copies{on}: {said}: the full rate of the card's own Gen{gen:g} x{lanes:g} "
                               f"link ({low:.1f}-{high:.1f} GB/s)."))
    elif shown:
        fit = links_carrying(max(shown.values()))
        findings.append(info(f"Pinned copies{on}: {said}" + (f", about what a {fit} link carries" if fit else "")
                             + ". Whether that is this card's full link, its generation and width say (`nvidia-smi "
                             "--query-gpu=pcie.link.gen.max,pcie.link.width.max --format=csv`)."))
    elif t.transfers:
        findings.append(info("Only pageable copies were measured: they pass through a bounce buffer in host memory, so "
                             "they say little of the PCIe link. `bandwidthTest --memory=pinned` measures it."))
    if best["Device to Device"] is not None:
        findings.append(info(f"Device to device {best['Device to Device']:.1f} GB/s: a copy inside the GPU's own "
                             "memory, not a measure of any link."))
    if len(t.devices) == 1:
        findings.append(info(f"bandwidthTest measured device {t.devices[0][0]} only (its default): "
                             "`bandwidthTest --device=all` measures every card, one link each."))
    if t.passed is None:
        findings.append(info("The paste stops before bandwidthTest's result (`Result = PASS` or `FAIL`)."))
    elif t.passed and not any(f.level in ("warn", "fail") for f in findings):
        findings.append(ok("`Result = PASS`."))
    return facts, findings
