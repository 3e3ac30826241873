"""Where the field corpus's readers settled a level that explain had set otherwise (session 28, 2026-12-06), each on a
short sample in the shape of the real paste its comment names, with the values worked out by hand."""

from __future__ import annotations

from grader.explain import explain
from tests.conftest import messages


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
    assert "slowest requests (p99) waited 106.6 s before their first token" in said and "60 s" in said
    (s,) = explain(_bench((25747.35, 25224.20, 42164.54), (150.0, 140.0, 400.0)))
    assert "proxy_read_timeout" not in messages(s)


def test_decode_under_load_is_judged_by_the_mean_stream_not_the_median():
    """A review's sample (concurrency 4, mean TPOT 450 ms, median 185 ms): the median alone keeping ahead of a reader
    (190 ms a token) still leaves half the streams behind one, so the mean decides and it warns."""
    (s,) = explain(_bench((800.0, 700.0, 2000.0), (450.0, 185.0, 2900.0), done=200).replace(
        "Request rate configured (RPS):           10.00\n", "Maximum request concurrency:             4\n"))
    assert "very slow decode under this load" in messages(s, "warn")
