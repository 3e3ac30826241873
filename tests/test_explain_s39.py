"""Session 39's readings, each on the real output that prompted it and a neighbour where it must stay silent."""

from __future__ import annotations

from grader.explain import explain
from tests.conftest import field_entry, levels, messages


def test_a_slow_decode_is_not_diagnosed_from_latencies_already_called_untrustworthy():
    """https://github.com/tomdoerr/llm (blind batch wn007): `vllm bench serve --save-result` JSON of five multimodal
    requests, median TTFT 0.0 ms and median E2E 27 ms beside a mean TPOT of 1,320 ms: the latencies are not a
    measurement, so the 0.8 tok/s they give is said, not blamed on decode (or NCCL across the nodes)."""
    [s] = explain(field_entry("wn007"), host="spark", nodes=2)
    assert "not to be trusted" in messages(s, "warn")
    assert "very slow decode" not in messages(s) and "NCCL" not in messages(s, "warn")
    assert "one token every 1320 ms" in messages(s, "info") and "Not judged" in messages(s, "info")
    # the same file with real latencies (median TTFT and E2E like their means): the slow decode is judged again
    text = field_entry("wn007").replace('"median_ttft_ms": 0.0,', '"median_ttft_ms": 35.0,') \
                               .replace('"p50_ttft_ms": 0.0,', '"p50_ttft_ms": 35.0,')
    [again] = explain(text, host="spark", nodes=2)
    assert "not to be trusted" not in messages(again) and "very slow decode" in messages(again, "warn")
    assert "warn" in levels(again)
