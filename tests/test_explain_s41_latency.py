"""Session 41: copies staged through host memory that take long to start (p2pBandwidthLatencyTest's P2P=Disabled
Latency Matrix above checks/specs/pcie.toml [p2p_staged_latency] high_us)."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from grader.calc.pcie import p2p_staged_latency_high_us
from tests.conftest import levels, messages

PENDING = Path(__file__).parent / "fixtures" / "field" / "pending"


def _paste(prefix: str) -> str:
    [path] = PENDING.glob(prefix + "_*.txt")
    return path.read_text()


def test_staged_copies_slow_to_start_under_windows_warn():
    """https://github.com/ikawrakow/ik_llama.cpp/issues/629 (blind batch vg008): a 4090 beside a 5090 under Windows,
    no P2P, staged copies starting in 38.57 and 46.09 µs: a warning naming the host's share and what pays it."""
    [s] = explain(_paste("vg008"))
    said = messages(s, "warn")
    assert "38.6-46.1 µs to start" in said and "GPU0-GPU1" in said and "tensor parallel" in said


def test_staged_copies_at_the_usual_latency_stay_a_fact():
    """Blind batch vg007 (two RTX 4090 on vast.ai, 11.44-12.84 µs staged): under the bar, no warning."""
    [s] = explain(_paste("vg007"))
    assert "warn" not in levels(s) and "to start" not in messages(s)
    assert 12.84 < p2p_staged_latency_high_us() < 38.57  # the figure sits between the two real machines
