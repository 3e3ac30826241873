"""Where the field corpus's readers settled a level that explain had set otherwise (session 28, 2026-12-06), each on a
short sample in the shape of the real paste its comment names, with the values worked out by hand."""

from __future__ import annotations

from grader.explain import explain
from tests.conftest import levels, messages


def _bench(ttft_ms: tuple[float, float, float], tpot_ms: tuple[float, float, float], done: int = 1000) -> str:
    """A `vllm bench serve` summary with TTFT and TPOT (mean, median, p99), every request sent at rate 10/s."""
    (tm, td, tp), (pm, pd, pp) = ttft_ms, tpot_ms
    return (f"============ Serving Benchmark Result ============\nSuccessful requests:                     {done}\n"
            "Failed requests:                         0\nRequest rate configured (RPS):           10.00\n"
            "Benchmark duration (s):                  216.71\nRequest throughput (req/s):              4.61\n"
            "Output token throughput (tok/s):         568.73\n"
            "---------------Time to First Token----------------\n"
            f"Mean TTFT (ms):                          {tm}\nMedian TTFT (ms):                        {td}\n"
            f"P99 TTFT (ms):                           {tp}\n"
            "-----Time per Output Token (excl. 1st token)------\n"
            f"Mean TPOT (ms):                          {pm}\nMedian TPOT (ms):                        {pd}\n"
            f"P99 TPOT (ms):                           {pp}\n==================================================\n")


def test_requests_that_waited_past_a_proxys_read_timeout_for_their_first_token_warn():
    """ROCm/vllm#375 (corpus k025): p99 TTFT 106,623 ms = 107 s, past nginx's default 60 s read timeout, so behind a
    proxy those requests would have failed; SGLang#9812 (g016): p99 42,165 ms = 42 s stays under it (busy, not
    failing anyone)."""
    (s,) = explain(_bench((55433.10, 56938.99, 106623.27), (150.0, 140.0, 400.0)))
    said = messages(s, "warn")
    assert "slowest requests (p99) waited 107 s for their first token" in said and "60 s" in said
    (s,) = explain(_bench((25747.35, 25224.20, 42164.54), (150.0, 140.0, 400.0)))
    assert "proxy_read_timeout" not in messages(s)


def test_the_median_stream_decides_whether_decode_falls_behind_a_reader():
    """SGLang#1639 (corpus p008): mean TPOT 194.03 ms is above the 190 ms a reader takes a token, pulled up by a tail
    (p99 1,647 ms); the median stream takes 74.07 ms a token, ahead of a reader, so the load is not very slow decode.
    With the median above 190 ms too, it is."""
    (s,) = explain(_bench((4878.89, 4804.10, 8589.78), (194.03, 74.07, 1647.41), done=2000))
    assert "warn" not in levels(s) and "the median stream (74 ms a token) still keeps ahead" in messages(s, "info")
    (s,) = explain(_bench((4878.89, 4804.10, 8589.78), (194.03, 191.0, 1647.41), done=2000))
    assert "very slow decode under this load" in messages(s, "warn")
