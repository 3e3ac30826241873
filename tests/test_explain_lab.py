"""explain kinds of the lab: vllm-bench (result JSON, printed summary) and aiperf."""

from __future__ import annotations

import json
from pathlib import Path

from grader.explain import KINDS, detect_kind, explain, to_jsonable
from tests.conftest import levels, messages, real_text
from tests.test_parsers_bench import AIPERF_AGG, _new_result, _record


def _one(sections, kind):
    found = [s for s in sections if s.kind == kind]
    assert len(found) == 1, [(s.kind, s.error) for s in sections]
    return found[0]


def test_kinds_registered():
    assert {"vllm-bench", "aiperf"} <= set(KINDS)


def test_real_printout_is_one_bench_section_with_the_tpot_pitfall():
    sections = explain(real_text("vllm-cpu/10_bench_serve_single.txt"))
    s = _one(sections, "vllm-bench")
    assert s.error is None and s.facts["summary"]["completed"] == 50 and s.facts["recomputed"] is None
    assert "not recomputed" in messages(s, "info") and "0.00 ms" in messages(s, "warn")
    assert all(x.error is None for x in sections)


def test_result_json_recomputed_and_agreeing():
    text = "$ cat bench.json\n" + json.dumps(_new_result(), indent=2)
    s = _one(explain(text), "vllm-bench")
    assert s.facts["recomputed"]["median_tpot_ms"] == 25.0 and s.facts["disagreements"] == []
    assert "agrees" in messages(s, "ok") and "fail" not in levels(s)
    assert detect_kind(json.dumps(_new_result())) == "vllm-bench"


def test_summary_fields_missing_still_recomputed():
    d = _new_result()
    for k in [k for k in d if k.endswith("_ms")]:
        del d[k]
    s = _one(explain(json.dumps(d)), "vllm-bench")
    assert s.facts["recomputed"]["p99_ttft_ms"] > 0
    assert "TTFT median 115.00 ms" in messages(s, "info")


def test_edited_summary_disagrees_and_failures_fail():
    d = _new_result()
    d["output_throughput"] = 99.0
    d["errors"][0] = "TimeoutError"
    s = _one(explain(json.dumps(d)), "vllm-bench")
    assert "disagree" in messages(s, "warn") and "failed" in messages(s, "fail")


def test_aiperf_both_exports():
    s = _one(explain(json.dumps(AIPERF_AGG, indent=1)), "aiperf")
    assert s.facts["summary"]["median_tpot_ms"] == 51.98 and "inter_token_latency is vLLM's TPOT" in messages(s)
    jsonl = "\n".join(_record(i) for i in range(3))
    [s] = explain(jsonl)
    assert s.kind == "aiperf" and s.facts["requests"] == 3 and abs(s.facts["recomputed"]["mean_tpot_ms"] - 40.0) < 1e-9


def test_forced_kind_and_garbage():
    [s] = explain("hello", kind="vllm-bench")
    assert s.error and "neither" in s.error
    assert to_jsonable(explain(json.dumps(_new_result()), kind="vllm-bench"))[0]["error"] is None


# --- the console output around the summary (issue 27): vLLM 0.32's own run, tests/fixtures/real/vllm-cpu ---

_RUN = (Path(__file__).resolve().parent / "fixtures" / "real" / "vllm-cpu" / "10_bench_serve_single.txt").read_text()
_CONSOLE = _RUN[_RUN.index("Starting main benchmark run..."):]  # settings, then the result, as the console shows it
_BAR = "100%|██████████| 50/50 [00:01<00:00, 35.19it/s]\n"


def _bench(text: str):
    sections = explain(text)
    assert [s.kind for s in sections] == ["vllm-bench"], [(s.kind, s.error) for s in sections]
    return sections[0].findings


def test_the_settings_above_the_result_are_read_with_it():
    findings = _bench(_CONSOLE)
    assert any(f.level == "ok" and "50 of 50 requests completed, 0 failed" in f.message for f in findings)


def test_fewer_successful_than_sent_is_a_failure_without_a_failed_line():
    # the older summary (benchmark_serving.py) has no `Failed requests` line: the progress bar says 50 were sent
    older = _CONSOLE.replace("Failed requests:                         0         \n", "")
    older = older.replace("Successful requests:                     50", "Successful requests:                     37")
    older = older.replace("Maximum request concurrency: 8\n", "Maximum request concurrency: 8\n" + _BAR, 1)
    failed = [f.message for f in _bench(older) if f.level == "fail"]
    assert failed and "13 request(s) of the 50 sent failed: only 37 succeeded" in failed[0], failed


def test_a_count_that_cannot_be_checked_is_said_so():
    older = _CONSOLE.replace("Failed requests:                         0         \n", "")
    findings = _bench(older)
    assert not any(f.level == "fail" for f in findings)
    assert any("50 requests succeeded" in f.message and "cannot be ruled out" in f.message for f in findings)


def test_every_request_at_once_is_not_judged_as_one_streams_decode():
    slow = _CONSOLE.replace("Mean TPOT (ms):                          1.13", "Mean TPOT (ms):                          180.00")
    capped_at_one = slow.replace("Maximum request concurrency: 8", "Maximum request concurrency: 1").replace(
        "Maximum request concurrency:             8", "Maximum request concurrency:             1")
    # one stream at 180 ms: slower than the course's setups decode their model, but the model is not named
    assert not any(f.level == "warn" and "very slow decode" in f.message for f in _bench(capped_at_one))
    behind_a_reader = capped_at_one.replace("180.00", "250.00")  # slower than serving.toml [load]'s 190 ms
    assert any(f.level == "warn" and "very slow decode" in f.message for f in _bench(behind_a_reader))
    uncapped = slow.replace("Maximum request concurrency: 8\n", "").replace(
        "Maximum request concurrency:             8         \n", "")
    decode = [f for f in _bench(uncapped) if f.message.startswith("Decode:")]
    assert [f.level for f in decode] == ["info"] and "sent at once" in decode[0].message


def test_the_command_line_says_how_many_were_sent():
    summary = _CONSOLE[_CONSOLE.index("============ Serving"):].replace("Failed requests:                         0         \n", "")
    summary = summary.replace("Successful requests:                     50", "Successful requests:                     37")
    for flag in ("--num-prompts 50", "--num-prompts=50"):
        [s] = explain(f"$ vllm bench serve --model tiny-llama {flag} --max-concurrency 8\n{summary}")
        failed = [f.message for f in s.findings if f.level == "fail"]
        assert failed and "13 request(s) of the 50 sent failed" in failed[0], (flag, failed)


def test_a_command_without_request_rate_sent_every_request_at_once():
    # vllm-project/vllm#18566: `vllm bench serve` with neither --request-rate (default inf) nor --max-concurrency
    summary = _CONSOLE[_CONSOLE.index("============ Serving"):].replace(
        "Mean TPOT (ms):                          1.13", "Mean TPOT (ms):                          180.00").replace(
        "Maximum request concurrency:             8         \n", "")
    for command, level in (("vllm bench serve --model m --dataset-name random", "info"),
                           ("vllm bench serve --model m --request-rate inf", "info"),
                           # 49 requests at the peak: 180 ms keeps ahead of a reader (190 ms, serving.toml [load])
                           ("vllm bench serve --model m --request-rate 4", "info"),
                           # another model than the course's, one stream at 180 ms: ahead of a reader
                           ("vllm bench serve --model m --max-concurrency 1", "info"),
                           ("vllm bench serve --model openai/gpt-oss-120b --max-concurrency 1", "warn")):
        [s] = explain(f"$ {command}\n{summary}")
        decode = [f for f in s.findings if f.message.startswith("Decode:")]
        assert [f.level for f in decode] == [level], (command, [f.message for f in decode])


def test_sglang_bench_serving_is_said_with_its_concurrency_cap():
    # sgl-project/sglang#33108: SGLang's bench_serving on one Spark (vLLM's layout, its own labels)
    text = ("============ Serving Benchmark Result ============\nBackend:                                 sglang    \n"
            "Traffic request rate:                    inf       \nMax request concurrency:                 4         \n"
            "Successful requests:                     32        \nBenchmark duration (s):                  289.93    \n"
            "Output token throughput (tok/s):         62.86     \n==================================================\n")
    [s] = explain(text)
    said = [f.message for f in s.findings if f.level == "info"]
    assert any("SGLang's bench_serving" in m for m in said) and any("Max request concurrency 4" in m for m in said)
    assert not any("SGLang" in f.message for f in explain(text.replace("sglang", "vllm"))[0].findings)


def test_the_first_benchmark_serving_summary_is_read_with_its_offered_load():
    """vLLM 0.1-0.2's benchmark_serving.py (vllm#359, the corpus's h020): its Namespace line gives the offered rate
    (200/s), its rows the served one (5.99/s) and the mean latency; 'latency per output token' is said not to be
    TPOT, and nothing is said failed."""
    text = ("Namespace(backend='vllm', dataset='ShareGPT.json', num_prompts=1000, request_rate=200.0, seed=0)\n"
            "Total time: 166.88 s\nThroughput: 5.99 requests/s\nAverage latency: 67.59 s\n"
            "Average latency per token: 0.21 s\nAverage latency per output token: 1.10 s\n")
    [s] = explain(text)
    said = " ".join(f.message for f in s.findings)
    assert s.kind == "vllm-bench" and {f.level for f in s.findings} == {"info"}
    assert "offered at 200/s and completed at 5.99/s" in said and "67.59 s" in said and "not TPOT" in said


def test_under_load_a_stream_is_judged_by_a_readers_pace():
    """With several requests at once a stream is very slow only when it falls behind a person reading it
    (checks/specs/serving.toml [load], 190 ms a token): 180 ms at a cap of 8 is a note, 300 ms a warning; the field's
    26_ (762 ms at 50) warns, vllm#25135 (the corpus's r010: 75.6 ms at 64, a 405B model) is a note."""
    from grader.calc.specs import row
    assert row("serving.toml", "load").graded("reading_tpot_ms") == 190
    slow = _CONSOLE.replace("Mean TPOT (ms):                          1.13", "Mean TPOT (ms):                          180.00")
    decode = [f for f in _bench(slow) if f.message.startswith("Decode:")]
    assert [f.level for f in decode] == ["info"] and "keeps ahead of a person reading it" in decode[0].message
    slower = slow.replace("180.00", "300.00")
    assert any(f.level == "warn" and "falls behind a person reading it" in f.message for f in _bench(slower))
