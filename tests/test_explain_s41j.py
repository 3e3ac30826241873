"""Session 41, fixer J (issue 27): the confident-wrong readings break-it review 24 found in session 41g's rules,
each mended on the probe's shape (a variation of the named real output) with the real output still read as before."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import said_in_all, worst_level

FIELD = Path(__file__).resolve().parent / "fixtures" / "field"


def _read(stem: str, folder: str = "corpus") -> str:
    return next((FIELD / folder).glob(stem + "*.txt")).read_text(encoding="utf-8", errors="replace")


GPUD_TWO = """$ gpud status --json
[
  {
    "component": "accelerator-nvidia-remapped-rows",
    "states": [
      {
        "time": "2025-12-05T04:46:00Z",
        "component": "accelerator-nvidia-remapped-rows",
        "name": "accelerator-nvidia-remapped-rows",
        "health": "Unhealthy",
        "reason": "GPU 0 has pending row remapping; reset required"
      }
    ]
  },
  {
    "component": "accelerator-nvidia-memory",
    "states": [
      {
        "time": "2025-12-05T04:46:00Z",
        "component": "accelerator-nvidia-memory",
        "health": "Healthy",
        "reason": "all 8 GPU(s) were checked, no memory issue found"
      }
    ]
  }
]
"""


def test_gpud_unhealthy_component_is_not_read_as_the_next_ones_healthy():
    """A variation of corpus m025 (leptonai/gpud#1170, https://github.com/leptonai/gpud/issues/1170): gpud's states
    output with two components, remapped-rows Unhealthy (a pending row remap) before memory Healthy (break-it 24 p18).
    The Healthy reading stays inside its own component's block, and the Unhealthy one is a fault."""
    sections = explain(GPUD_TWO, host="other")
    assert worst_level(sections) == "fail"
    assert "accelerator-nvidia-remapped-rows check reports Unhealthy" in said_in_all(sections, "fail")
    said = said_in_all(sections)
    assert "remapped-rows check reports Healthy" not in said
    assert "accelerator-nvidia-memory check reports Healthy" in said
    degraded = GPUD_TWO.replace('"Unhealthy"', '"Degraded"')
    assert worst_level(explain(degraded, host="other")) == "warn"
    # the real output (one Healthy component after the NVML fallback) keeps its notes
    real = explain(_read("m025_"), host="spark", nodes=1)
    assert worst_level(real) == "info" and "accelerator-nvidia-memory check reports Healthy" in said_in_all(real)


_V1 = ("INFO 07-28 {t} [loggers.py:118] Engine 000: Avg prompt throughput: 600.0 tokens/s, Avg generation throughput: "
       "1700.0 tokens/s, Running: {r} reqs, Waiting: 0 reqs, GPU KV cache usage: {kv}%, Prefix cache hit rate: 0.0%\n")


def test_kv_cache_rising_fast_after_an_idle_line_is_a_warning():
    """A variation of vllm-project/vllm#18115's V1 stats lines (https://github.com/vllm-project/vllm/issues/18115,
    break-it 24 p26): an earlier run ends at 95.8%, an idle line (Running 0, 0.0%), then a new run climbs 22.5% ->
    94.6% in 30 s: the trend is the new run's, full within seconds, not flat for the earlier high."""
    text = "".join(_V1.format(t=t, r=r, kv=kv) for t, r, kv in (
        ("06:40:00", 48, 95.8), ("06:40:10", 21, 61.2), ("06:40:20", 0, 0.0), ("06:55:00", 48, 22.5),
        ("06:55:10", 48, 54.9), ("06:55:20", 48, 78.1), ("06:55:30", 48, 94.6)))
    sections = explain(text)
    assert worst_level(sections) == "warn"
    assert "nearly full and rising" in said_in_all(sections, "warn")
    assert "does not rise" not in said_in_all(sections)


def test_kv_cache_plateau_after_its_ramp_up_is_a_note():
    """A variation of vllm-project/vllm#18115's V1 stats lines (break-it 24 p03): 0% -> 92.4% in the first 30 s, then
    four minutes flat between 91.8% and 92.6% with the same 32 running: steady, not about to fill (a note); the real
    output (corpus b025, a slow rise) and tenstorrent/vllm#55's fast rise (corpus b026) keep their readings."""
    ramp = [("06:40:00", 0, 0.0), ("06:40:10", 32, 41.3), ("06:40:20", 32, 78.6), ("06:40:30", 32, 92.4)]
    flat = [(f"06:{40 + (40 + 10 * i) // 60}:{(40 + 10 * i) % 60:02d}", 32, (92.1, 92.6, 91.8, 92.3, 92.0, 92.5)[i % 6])
            for i in range(24)]
    sections = explain("".join(_V1.format(t=t, r=r, kv=kv) for t, r, kv in ramp + flat))
    assert worst_level(sections) == "info"
    assert "nearly full but none waits" in said_in_all(sections, "info")
    assert worst_level(explain(_read("b025_"))) == "info"
    assert "nearly full and rising" in said_in_all(explain(_read("b026_"), host="other"), "warn")
