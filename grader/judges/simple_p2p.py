"""Judge of CUDA samples' ``simpleP2P`` (grader.parsers.simple_p2p): whether the GPUs of one machine really use peer
to peer (P2P), which a driver may report and then fail to set up, or set up and corrupt.

The same level as the other P2P outputs where they say the same: no pair with P2P reads as
``p2pBandwidthLatencyTest``'s (grader.judges.gpu_notes.no_p2p_level: a note on GeForce cards, which offer none on the
stock driver, a warning on others), a P2P path that fails or corrupts data a failure.
"""

from __future__ import annotations

from typing import Any

from .common import fail, info, ok, warn
from .gpu_notes import no_p2p_level
from .model import Finding, Summary

_WORKAROUND = ("Until it is fixed, keep the GPUs off P2P: NCCL_P2P_DISABLE=1 for NCCL (and vLLM's "
               "--disable-custom-all-reduce); their traffic then goes through host memory, slower but right.")


def _error_cause(t: Any, call: str, pairs: str) -> str:
    """What simpleP2P's CUDA error in ``call`` says, by where it came: enabling the peer access the driver reported
    (``pairs``), after the copy between the cards ran, or before any copy."""
    enable = "EnablePeerAccess" in call
    if enable and pairs:
        return (f", though the driver reported peer access ({pairs}): it could not set P2P up, so P2P does not work on "
                "this pair. A P2P-patched GeForce driver on a card or platform it does not support, the IOMMU (set it "
                "to pass-through, `iommu=pt`, or off), or a BAR too small for the peer's memory (Resizable BAR and "
                "Above 4G decoding on in the BIOS) cause it. " + _WORKAROUND)
    if t.rate_gbs is not None:
        return (f", after the copy between the cards ({t.rate_gbs:g} GB/s) ran: a kernel reading the other card's "
                "memory over P2P failed, the mark of a P2P path that moves data wrongly (the IOMMU, PCIe ACS, a "
                "patched driver on a platform it does not support). " + _WORKAROUND)
    return ": the test stopped there, before any copy." + (" " + _WORKAROUND if enable else "")


def _slow(t: Any) -> float | None:
    """The Gen3 x8 floor (grader.calc.pcie.p2p_floor_gbs) where simpleP2P's one copy fell below it between cards known
    to have at least that link (grader.judges.gpu_notes.links_not_known: an older card's own link may be that slow),
    else None."""
    from ..calc.pcie import p2p_floor_gbs
    from .gpu_notes import links_not_known
    floor = p2p_floor_gbs()
    names = list(t.names.values())
    return floor if floor and t.rate_gbs < floor and names and not links_not_known(names) else None


def no_peer_finding(names: list[str], how: str) -> Finding:
    """No GPU pair reports peer access (``how``: what says so), at p2pBandwidthLatencyTest's level for the same fact
    (grader.judges.gpu_notes.no_p2p_level, for the cards ``names``): deviceQuery's reading too."""
    level, tail = no_p2p_level(names, {})
    return level(f"No GPU pair reports peer access ({how}): copies between the cards go through host memory. GeForce "
                 "drivers do not enable P2P over PCIe on recent cards, nor across different GPU generations; NCCL then "
                 "moves data through shared host memory" + tail)


def summarise_simple_p2p(t: Any, command: str | None) -> Summary:
    facts = {"peer": [[a, b, yes] for (a, b), yes in t.peer.items()], "names": t.names, "rate_gbs": t.rate_gbs,
             "rate_unit": "GB/s", "error": list(t.error) if t.error else None, "verify_errors": t.verify_errors,
             "passed": t.passed, "waived": t.waived}
    findings: list[Finding] = []
    if t.names:
        findings.append(info("simpleP2P on " + ", ".join(f"GPU{i} ({n})" for i, n in sorted(t.names.items())) + "."))
    yes = sorted(k for k, v in t.peer.items() if v)
    pairs = ", ".join(f"GPU{a}->GPU{b}" for a, b in yes)
    if t.error:
        code, name, call = t.error
        findings.append(fail(f"`{call}` failed with CUDA error {code} ({name})" + _error_cause(t, call, pairs)))
    elif t.verify_errors or t.passed is False:
        findings.append(fail(f"The data copied over P2P came back wrong ({t.verify_errors} verification error(s), "
                             "`Test failed`): the path reports P2P and moves data, but what arrives is corrupted. The "
                             "IOMMU or PCIe ACS redirecting peer traffic, or a P2P-patched driver on a platform it does "
                             "not support, do this. " + _WORKAROUND))
    elif t.waived or t.peer and not yes:
        findings.append(no_peer_finding(list(t.names.values()), "the test is waived"))
    elif t.passed and t.rate_gbs is not None and _slow(t):
        findings.append(warn(f"P2P works (peer access {pairs}, the data verified: `Test passed`), but the copy between "
                             f"the cards ran at {t.rate_gbs:g} GB/s, below what even a Gen3 x8 link carries "
                             f"({_slow(t):.1f} GB/s): the path between them holds P2P back (across the CPU-to-CPU link "
                             "between sockets, SYS in `nvidia-smi topo -m`, where NCCL keeps P2P off by default; a "
                             "host bridge that relays peer traffic slowly, ACS or the IOMMU), or a card sits in a "
                             "narrow slot (`sudo lspci -vv -d 10de: | grep LnkSta`). Copies through host memory may be "
                             "faster: p2pBandwidthLatencyTest's P2P=Disabled matrices say."))
    elif t.passed and t.rate_gbs is not None:
        findings.append(ok(f"P2P works: peer access {pairs}, a copy between the cards at {t.rate_gbs:g} GB/s (one "
                           "64 MB copy: a PCIe figure, not through host memory), and the data verified (`Test "
                           "passed`)."))
    elif yes:
        findings.append(info(f"The driver reports peer access ({pairs}); the paste stops before the test's copy and "
                             "result (`Test passed`), which say whether P2P works."))
    elif not t.peer and t.passed is None:
        findings.append(info("The paste stops after simpleP2P started: its peer-access lines (`> Peer access from ... "
                             ": Yes`) and its result (`Test passed`) are not in it."))
    no = sorted(k for k, v in t.peer.items() if not v)
    if yes and no:
        findings.append(info("Some pairs report no peer access (" + ", ".join(f"GPU{a}->GPU{b}" for a, b in no) + "): "
                             "between those the copies go through host memory."))
    return facts, findings
