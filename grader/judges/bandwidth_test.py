"""Judge of CUDA samples' ``bandwidthTest`` (grader.parsers.bandwidth_test): whether copies between host memory and
the GPU reach what the card's own PCIe link carries.

A pinned copy each way (host to device, device to host) runs at the PCIe link's practical rate
(grader.calc.pcie.practical_bandwidth): where checks/specs/gpus.toml knows the card, its pcie_gen and pcie_lanes
decide what it should reach; below that, the card trained fewer lanes or a lower generation (a narrower slot, a riser,
lanes shared with the chipset). Copies under a few MB, pageable ones (a bounce buffer) and a GB10's (no PCIe: its CPU and
GPU share memory over NVLink-C2C) say nothing of a link; ``--device=all`` sums the devices; device to device is the
GPU's own memory. ``Result = FAIL`` fails.
"""

from __future__ import annotations

from typing import Any

from ..calc.pcie import links_carrying, practical_bandwidth
from ..calc.specs import match_gpu
from .common import fail, info, ok, warn
from .model import Finding, Summary

_LINK_WAYS = ("Host to Device", "Device to Host")
_LINK_SIZE_BYTES = 4_000_000
"""The smallest copy read against a link: below a few MB each cudaMemcpy's fixed cost (microseconds) holds the rate
down whatever the link (Quick mode copies 32 MB; break-it 28 p23: a range of 1-81 KB copies still climbing)."""


def summarise_bandwidth_test(t: Any, command: str | None) -> Summary:
    facts = {"devices": [list(d) for d in t.devices], "mode": t.mode, "passed": t.passed, "unit": "GB/s",
             "transfers": [{"way": x.way, "memory": x.memory, "size_bytes": x.size_bytes, "gbs": round(x.gbs, 3),
                            "devices": x.devices} for x in t.transfers]}
    findings: list[Finding] = []
    names = [name for _, name in t.devices]
    if t.passed is False:
        findings.append(fail("`Result = FAIL`: a copy failed or the test could not run on this GPU; the lines above it "
                             "name the CUDA error (`nvidia-smi` and `dmesg` for an Xid on this machine)."))
    pinned = [x for x in t.transfers if x.memory == "PINNED"]
    big = [x for x in pinned if x.size_bytes >= _LINK_SIZE_BYTES]
    best = {way: max((x.gbs for x in big if x.way == way), default=None) for way in (*_LINK_WAYS, "Device to Device")}
    shown = {way: rate for way, rate in best.items() if rate is not None and way in _LINK_WAYS}
    summed = max((x.devices for x in t.transfers), default=1)
    spec = match_gpu(names[0]) if len(set(names)) == 1 else None
    gen, lanes = (spec.graded("pcie_gen"), spec.graded("pcie_lanes")) if spec else (None, None)
    low, high = practical_bandwidth(int(gen), int(lanes)) if gen and lanes else (None, None)
    said = ", ".join(f"{way.lower()} {rate:.1f} GB/s" for way, rate in shown.items())
    on = f" on {', '.join(dict.fromkeys(names))}" if names else ""
    if shown and spec is not None and spec.graded("nvlink_c2c_gbs"):  # a GB10: no PCIe between its CPU and GPU
        findings.append(info(f"Copies{on}: {said}. The GB10's CPU and GPU share one memory over NVLink-C2C, with no "
                             "PCIe link between them: these copies measure that memory, not a link; no PCIe figure "
                             "applies."))
    elif shown and summed > 1:  # --device=all: each figure is the sum over the devices
        per = min(shown.values()) / summed
        findings.append((warn if low is not None and per < low else info)(
            f"Pinned copies summed over {summed} devices (`--device=all`: its cumulative bandwidth){on}: {said} in "
            f"all, {per:.1f} GB/s a card if they share it evenly" + (
                f": below what each card's own Gen{gen:g} x{lanes:g} link carries ({low:.1f}-{high:.1f} GB/s), so "
                "at least one card runs on a narrower or slower link" if low is not None and per < low else
                ": a sum hides one slow card") + ". `bandwidthTest --device=0`, then `--device=1`, measures each link."))
    elif shown and low is not None:
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
    elif pinned:
        findings.append(info(f"Every copy here is under {_LINK_SIZE_BYTES:,} bytes (at most "
                             f"{max(x.size_bytes for x in pinned):,}): each copy's fixed cost holds such rates down "
                             "whatever the link, so they say nothing of its width or generation. The default Quick mode "
                             "(32 MB copies) measures the link."))
    elif t.transfers:
        findings.append(info("Only pageable copies were measured: they pass through a bounce buffer in host memory, so "
                             "they say little of the PCIe link. `bandwidthTest --memory=pinned` measures it."))
    if best["Device to Device"] is not None:
        findings.append(info(f"Device to device {best['Device to Device']:.1f} GB/s: a copy inside the GPU's own "
                             "memory, not a measure of any link."))
    if len(t.devices) == 1 and summed == 1 and not (spec and spec.graded("nvlink_c2c_gbs")):
        findings.append(info(f"bandwidthTest measured device {t.devices[0][0]} only (its default): `--device=N` "
                             "measures another card's link, one at a time."))
    if t.passed is None:
        findings.append(info("The paste stops before bandwidthTest's result (`Result = PASS` or `FAIL`)."))
    elif t.passed and not any(f.level in ("warn", "fail") for f in findings):
        findings.append(ok("`Result = PASS`."))
    return facts, findings
