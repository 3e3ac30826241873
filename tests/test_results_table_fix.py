"""Break-it review 19 of the results-table kind (issue 27): a table reader gives a verdict only where the table's own
header words and units decide it (a time vs a rate, per-user vs aggregate, a speedup vs a difference, a count of
successful requests vs a success rate); elsewhere it says what the table shows. Tables in the shapes of `vllm bench
serve` sweeps (https://docs.vllm.ai/en/latest/cli/bench/serve.html), home-made load tests, and llama.cpp's
scripts/compare-llama-bench.py (verbatim rows of ggml-org/llama.cpp PRs #4844 and #17505)."""

from __future__ import annotations

from grader.explain import explain
from grader.judges.results_table import summarise_results_table
from grader.parsers.results_table import parse_results_table


def _read(text: str, host: str | None = "other", nodes: int | None = None) -> list[tuple[str, str]]:
    return [(f.level, f.message) for s in explain(text, host=host, nodes=nodes) if s.kind == "results-table"
            for f in s.findings]


def _worst(found: list[tuple[str, str]]) -> str:
    return max((lv for lv, _ in found), key=lambda lv: {"ok": 0, "info": 0, "warn": 1, "fail": 2}[lv], default="ok")


def _said(found: list[tuple[str, str]]) -> str:
    return " ".join(m for _, m in found)


def test_a_total_time_column_is_not_the_aggregate_rate_nor_a_second_setup():
    """https://docs.vllm.ai/en/latest/cli/bench/serve.html (break-it p01): a sweep's 'Total time (s)' falls as the
    concurrency grows while 'Output tok/s' grows 15x: batching, not thrashing, and a time is not compared with a rate.
    A real fall of the output rate still warns."""
    text = ("| Concurrency | Total time (s) | Output tok/s | Mean TTFT (ms) |\n|---|---|---|---|\n"
            "| 1 | 1498.2 | 43.7 | 88 |\n| 4 | 452.6 | 144.8 | 131 |\n| 16 | 168.3 | 389.4 | 402 |\n"
            "| 64 | 97.5 | 672.1 | 1210 |\n")
    found = _read(text)
    assert _worst(found) in ("ok", "info")
    assert "grows from 43.7 at concurrency 1 to 672.1 at 64" in _said(found) and "NCCL" not in _said(found)
    fell = text.replace("| 672.1 |", "| 21.0 |")
    assert any(lv == "warn" and "falls from 43.7" in m for lv, m in _read(fell))


def test_a_per_user_throughput_is_not_the_aggregate():
    """https://docs.vllm.ai/en/latest/cli/bench/serve.html (break-it p02): per-user throughput falls, system
    throughput grows 52 -> 954: the batching trade-off."""
    text = ("| Concurrency | Per-user throughput (tok/s) | System throughput (tok/s) | TTFT p50 (ms) |\n"
            "|---|---|---|---|\n| 1 | 52.3 | 52.3 | 95 |\n| 8 | 38.1 | 304.8 | 180 |\n| 64 | 14.9 | 953.6 | 1130 |\n")
    found = _read(text)
    assert _worst(found) in ("ok", "info")
    assert "grows from 52.3 at concurrency 1 to 953.6 at 64; each request's rate falls from 52.3 to 14.9" in _said(found)


def test_a_count_of_successful_requests_is_not_a_failure():
    """`vllm bench serve` prints 'Successful requests: 1000' of --num-prompts 1000 (break-it p03): a count, read
    against the prompts the caption says were sent; without them no verdict; a count short of them warns."""
    table = ("| Max concurrency | Successful requests | Output tok/s | Mean TTFT (ms) |\n|---|---|---|---|\n"
             "| 16 | 1000 | 1321.55 | 201.4 |\n| 64 | 1000 | 3012.80 | 688.9 |\n| 128 | 1000 | 3540.12 | 1490.3 |\n")
    caption = "vllm bench serve, random dataset, 1000 prompts per run\n\n"
    found = _read(caption + table)
    assert _worst(found) in ("ok", "info") and any(lv == "ok" and "none failed" in m for lv, m in found)
    found = _read(table)
    assert _worst(found) in ("ok", "info") and "does not say" in _said(found)
    short = caption + table.replace("| 128 | 1000 |", "| 128 | 962 |")
    assert any(lv == "warn" and "962" in m for lv, m in _read(short))
    rate = table.replace("Successful requests", "Success rate").replace("| 1000 |", "| 100% |")
    assert any(lv == "ok" and "Every row completed" in m for lv, m in _read(rate))


def test_a_speedup_column_on_a_time_is_a_gain():
    """A before/after table of TPOT with CUDA graphs (break-it p04): the times fall 41 -> 28 ms and the Speedup column
    is positive: a gain, whatever the column's sign convention. The same times rising warn."""
    text = ("| Prompt | Eager TPOT (ms) | CUDA graphs TPOT (ms) | Speedup |\n|---|---|---|---|\n"
            "| short (128) | 41.2 | 27.9 | +47.7% |\n| medium (2k) | 43.0 | 30.1 | +42.9% |\n"
            "| long (16k) | 51.8 | 39.6 | +30.8% |\n")
    found = _read(text)
    assert _worst(found) in ("ok", "info") and "consistent gain" in _said(found)
    worse = text.replace("| 27.9 |", "| 60.9 |").replace("| 30.1 |", "| 61.4 |").replace("| 39.6 |", "| 74.0 |")
    assert any(lv == "warn" and "consistent drop" in m for lv, m in _read(worse))


def test_a_request_count_column_is_not_a_setup():
    """A sweep with a 'Requests' column of 100 in each row (break-it p06): a count beside a rate is not one measure
    under two setups: no per-step-latency verdict, no NCCL."""
    text = ("| Concurrency | Requests | Output tok/s |\n|---|---|---|\n| 1 | 100 | 48.2 |\n| 4 | 100 | 71.5 |\n"
            "| 16 | 100 | 96.0 |\n")
    found = _read(text)
    assert _worst(found) in ("ok", "info") and "NCCL" not in _said(found) and "Requests' gives" not in _said(found)


def test_load_test_lines_with_failed_streams_warn():
    """A home-made load test's lines (the shape of pending we008, sfxnz/DeepSeek-V4.1-Flash-EXL3-vLLM-2x-DGX-Spark
    bench.txt) with errors=2 and two streams of 0.0 in each run (break-it p23): not completed."""
    text = "\n".join(f"phase=prose c=4 run={n} wall=31.02s agg=44.12 tok/s per_stream=[11.03, 0.0, 0.0, 11.10] "
                     "ttft=[0.241, None, None, 0.255] errors=2" for n in (1, 2, 3)) + "\n"
    found = _read(text)
    assert any(lv == "warn" and "3 of 3 runs show failed streams" in m for lv, m in found)
    assert not any("completed at" in m for _, m in found)
    fine = text.replace("0.0, 0.0", "11.0, 11.2").replace("None, None", "0.25, 0.26").replace("errors=2", "errors=0")
    found = _read(fine)
    assert _worst(found) in ("ok", "info") and "All 3 runs completed at 4 requests at once" in _said(found)


def test_series_are_keyed_by_their_machine_and_their_prompt_length():
    """Rows of two machines (break-it p63, '1x Spark'/'2x Spark (RPC)') or two input lengths (p07) at each
    concurrency are separate series: both grow, nothing thrashes; the machines are compared at one concurrency."""
    text = ("| Machine | Concurrency | Output tok/s | TTFT (ms) |\n|---|---|---|---|\n| 1x Spark | 1 | 61.8 | 95 |\n"
            "| 1x Spark | 8 | 302.4 | 260 |\n| 2x Spark (RPC) | 1 | 21.3 | 310 |\n| 2x Spark (RPC) | 8 | 40.2 | 1450 |\n")
    found = _read(text, host="spark")
    assert _worst(found) in ("ok", "info") and "falls" not in _said(found)
    assert "2x Spark (RPC): the aggregate rate grows from 21.3" in _said(found) and "Concurrency 1 against" not in _said(found)
    text = ("| Concurrency | Input len | Output tok/s | TTFT (ms) |\n|---|---|---|---|\n| 1 | 128 | 61.2 | 45 |\n"
            "| 4 | 128 | 221.7 | 60 |\n| 1 | 32768 | 22.4 | 4210 |\n| 4 | 32768 | 47.9 | 9630 |\n")
    said = _said(_read(text))
    assert "Input len 32768: the aggregate rate grows from 22.4" in said and "saturated" not in said


def test_ttft_in_seconds_and_minutes_is_read():
    """'TTFT (sec)' (break-it p08) and cells of '1m 14s' (p15): over a minute at high concurrency warns."""
    text = ("| Concurrency | Output tok/s | TTFT (sec) |\n|---|---|---|\n| 1 | 45.1 | 0.4 |\n| 32 | 410.6 | 12.8 |\n"
            "| 256 | 512.3 | 148.2 |\n")
    assert any(lv == "warn" and "148 s at 256" in m for lv, m in _read(text))
    text = ("| Concurrency | Aggregate tok/s | Per-req tok/s | TTFT |\n|:-:|--:|--:|--:|\n| 1 | 48 | 48 | 850ms |\n"
            "| 8 | 290 | 36 | 2.1s |\n| 32 | 610 | 19 | 1m 14s |\n")
    assert any(lv == "warn" and "74 s at 32" in m for lv, m in _read(text))


def test_machines_compared_for_what_the_table_decides():
    """Two Sparks with a lower TPOT are faster (break-it p09); two different models on 1 and 2 Sparks are not
    compared (p31); at a caption's concurrency of 64 (p32) the one-stream explanation is not given."""
    text = ("| Setup | TPOT (ms) | E2E latency (s) |\n|---|---|---|\n| 1 Spark | 212.4 | 54.3 |\n"
            "| 2 Sparks | 118.9 | 30.6 |\n")
    said = _said(_read(text))
    assert "2 machines against 1" in said and "not faster" not in said
    text = ("| Setup | Decode tok/s | Prefill tok/s |\n|---|---|---|\n| Qwen3-30B-A3B on one Spark | 61.8 | 3950 |\n"
            "| Qwen3-235B-A22B on two Sparks | 18.9 | 1210 |\n")
    assert "machines" not in _said(_read(text))
    text = ("Qwen3-32B FP8, vllm bench serve, max concurrency 64\n\n| Setup | Output tok/s | Mean TPOT (ms) |\n"
            "|---|---|---|\n| TP=1, 1 node | 642.3 | 92.1 |\n| TP=2, 2 nodes (RoCE) | 655.8 | 90.4 |\n")
    _, findings = summarise_results_table(parse_results_table(text), None)
    said = " ".join(f.message for f in findings)
    assert "not faster than 1 here" in said and "at 64 requests at once" in said and "one stream" not in said


def test_two_engines_are_not_blamed_on_nccl():
    """vLLM against SGLang on one box (break-it p16): the per-step gap warns, but NCCL is named only where the table
    names machines or links (pending wk012's 'This cluster | README' keeps it)."""
    text = ("| Concurrency | vLLM tok/s | SGLang tok/s |\n|---|---|---|\n| 1 | 33.1 | 52.0 |\n| 4 | 104.2 | 118.9 |\n"
            "| 16 | 301.5 | 312.8 |\n")
    found = _read(text)
    assert any(lv == "warn" and "per-step latency" in m and "engine's own" in m and "NCCL" not in m for lv, m in found)


def test_rows_of_different_models_are_not_repeated_runs():
    """Three models at concurrency 1 (break-it p30): their spread is the models', not run-to-run noise."""
    text = ("| Model | Concurrency | tok/s |\n|---|---|---|\n| Qwen3-30B-A3B FP8 | 1 | 61.8 |\n"
            "| gpt-oss-120b MXFP4 | 1 | 41.2 |\n| Llama-3.3-70B FP8 | 1 | 4.6 |\n")
    said = _said(_read(text))
    assert "completed" not in said and "warm-up" not in said and "Qwen3-30B-A3B FP8" in said


def test_a_long_prompt_row_is_not_speculative_decoding():
    """A load test's C1 rows where only the long-context one decodes slower, its first token 7.4 s late (break-it
    p22): no content-dependent speed. pending wf014's like-TTFT rows keep it (tests/test_results_table.py)."""
    text = ("C1 chat      agg 51.20 tok/s  per-stream 51.20  ttft 0.092s\n"
            "C1 code      agg 52.75 tok/s  per-stream 52.75  ttft 0.101s\n"
            "C1 longctx   agg 19.84 tok/s  per-stream 19.84  ttft 7.412s\n"
            "C4 chat      agg 178.31 tok/s  per-stream 44.58  ttft 0.140s\n"
            "C4 code      agg 180.02 tok/s  per-stream 45.01  ttft 0.151s\n"
            "C4 longctx   agg 41.66 tok/s  per-stream 10.42  ttft 21.930s\n")
    assert "speculative" not in _said(_read(text))


def test_a_bandwidth_difference_is_higher_better():
    """all_reduce_perf busbw (GB/s) of two NCCL versions, 5-8% lower in every row (break-it p11): a drop."""
    text = ("all_reduce_perf busbw (GB/s), 2 nodes, NCCL 2.27 vs 2.28\n\n| Size | NCCL 2.27 | NCCL 2.28 | Δ |\n"
            "|---|---|---|---|\n| 1M | 3.41 | 3.12 | -8.5% |\n| 16M | 18.90 | 17.65 | -6.6% |\n"
            "| 256M | 22.10 | 21.02 | -4.9% |\n| 4G | 23.60 | 22.41 | -5.0% |\n")
    _, findings = summarise_results_table(parse_results_table(text), None)
    assert any(f.level == "warn" and "consistent drop" in f.message for f in findings)


def test_compare_llama_bench_speedup_ratios_are_read_as_ratios():
    """https://github.com/ggml-org/llama.cpp/pull/4844 (break-it p50, verbatim rows): a Speedup of 0.91-1.11 is a ratio
    of the two t/s columns, mixed; 'Model' is a name, never a measure that 'matches'. All above 1 is a gain; all below
    1 a drop (https://github.com/ggml-org/llama.cpp/pull/17505's shape)."""
    head = ("| GPU         | Model         |   Model Size [GiB] | Test   |   t/s master |   t/s sl/backend-sched |   Speedup |\n"
            "|:------------|:--------------|-------------------:|:-------|-------------:|-----------------------:|----------:|\n")
    rows = ("| RTX 3090 Ti | llama 7B F16  |              12.55 | pp512  |      4875.12 |                5394.60 |      1.11 |\n"
            "| RTX 3090 Ti | llama 7B F16  |              12.55 | tg128  |        55.19 |                  50.37 |      0.91 |\n"
            "| RTX 3090 Ti | llama 7B Q4_0 |               3.56 | pp512  |      4048.87 |                4369.56 |      1.08 |\n")
    found = _read(head + rows)
    assert _worst(found) in ("ok", "info") and "match" not in _said(found) and "-9% to +11%" in _said(found)
    up = rows.replace("50.37 |      0.91", "60.37 |      1.09")
    assert any("consistent gain" in m for _, m in _read(head + up))
    down = ("| RTX 3090 Ti | llama 7B F16  |              12.55 | pp512  |      4875.12 |                4394.60 |      0.90 |\n"
            "| RTX 3090 Ti | llama 7B F16  |              12.55 | tg128  |        55.19 |                  50.37 |      0.91 |\n")
    assert any(lv == "warn" and "consistent drop" in m for lv, m in _read(head + down))


def test_a_healthy_sweep_stays_quiet():
    """A vllm bench serve sweep whose aggregate grows and TTFT stays short: infos only, no verdict (the neighbour of
    every table above)."""
    text = ("| Concurrency | Output tok/s | Mean TTFT (ms) | Mean TPOT (ms) |\n|---|---|---|---|\n"
            "| 1 | 45.0 | 80 | 21.5 |\n| 8 | 280.4 | 150 | 27.1 |\n| 32 | 690.2 | 420 | 44.0 |\n")
    found = _read(text)
    assert _worst(found) in ("ok", "info") and "grows from 45 at concurrency 1 to 690.2 at 32" in _said(found)


def test_a_table_of_one_measure_per_row_reads_each_rows_direction():
    """A transposed comparison of two vLLM versions (break-it p60/p61: `| Metric | 0.10.2 | 0.11.0 | Δ |`, rows of
    throughput (tok/s) and TTFT (ms)): each row's own unit says which way is better, not a caption's word
    ('Latency test'); throughput up and TTFT down is a gain, TTFT up beside it is mixed. A '| Metric | Mean | Median |'
    table is a results table, not an nvidia-smi table without its GPU rows."""
    text = ("### Latency test: vLLM 0.10.2 vs 0.11.0 (same model, same flags)\n\n| Metric | 0.10.2 | 0.11.0 | Δ |\n"
            "|---|---|---|---|\n| Output token throughput (tok/s) | 981.3 | 1076.0 | +9.7% |\n"
            "| Total token throughput (tok/s) | 3905.6 | 4288.1 | +9.8% |\n| Mean TTFT (ms) | 210 | 180 | -14.3% |\n")
    _, findings = summarise_results_table(parse_results_table(text), None)
    assert any(f.level == "info" and "better in every row" in f.message and "consistent gain" in f.message
               for f in findings) and not any(f.level == "warn" for f in findings)
    _, findings = summarise_results_table(parse_results_table(text.replace("| 180 | -14.3% |", "| 250 | +19.0% |")), None)
    assert not any(f.level == "warn" for f in findings) and any("no one-way change" in f.message for f in findings)
    text = ("| Metric | Mean | Median |\n|---|---|---|\n| TTFT (ms) | 231.4 | 198.7 |\n| TPOT (ms) | 14.2 | 13.9 |\n"
            "| ITL (ms) | 14.0 | 12.1 |\n")
    assert [s.kind for s in explain(text, host="spark")] == ["results-table"]


def test_a_version_comparison_by_metric_rows_is_detected_and_a_ttft_spread_names_only_what_the_rows_vary():
    """break-it p60: `| Metric | 0.10.2 | 0.11.0 | Δ |` (version numbers in its header) opens a results table; p72
    (verbatim, a llama-benchy table of MTP off/2/3 from a public Spark README): TTFT 204 -> 259 ms across rows that
    differ in MTP is not put down to a longer prompt. p71's depth rows keep that cause."""
    text = ("| Metric | 0.10.2 | 0.11.0 | Δ |\n|---|---|---|---|\n| Request throughput (req/s) | 4.12 | 4.52 | +9.7% |\n"
            "| Output token throughput (tok/s) | 981.3 | 1076.0 | +9.7% |\n")
    assert [s.kind for s in explain(text, host="spark")] == ["results-table"]
    text = ("| MTP | pp2048 (t/s) | ttfr (ms) | tg32 (t/s) | acceptance |\n|:----|-------------:|----------:|-----------:|"
            "-----------:|\n| off |        10075 |       204 |       82.9 |         -  |\n"
            "| 2   |   8000 ± 527 |       259 |  145.54 ± 6.51 | 59.8% |\n| 3   | 9354 ± 171.64 |       220 |  143.80 ± 6.85 | **72.3%** |\n")
    said = _said(_read(text, host="spark"))
    assert "differ in 'MTP'" in said and "longer prompt" not in said
    depth = ("| Depth | Prefill (t/s) | TTFR (ms) |\n|-------|--------------:|----------:|\n| 0 | 1,211 ± 0.9 | 1,693 |\n"
             "| 32k | 1,176 ± 4.7 | 28,963 |\n")
    assert "longer prompt or context" in _said(_read(depth, host="spark"))


def test_a_bandwidth_unit_in_the_compared_columns_is_higher_better_not_a_time():
    """An nccl-tests busbw comparison with the unit in each column's header ('(GB/s)': the '/s' is not seconds):
    lower in every row is a drop; a time column (ms/tok) lower is a gain."""
    text = ("| Size | NCCL 2.27 busbw (GB/s) | NCCL 2.28 busbw (GB/s) | Δ |\n|---|---|---|---|\n"
            "| 16M | 18.90 | 17.65 | -6.6% |\n| 256M | 22.10 | 21.02 | -4.9% |\n| 4G | 23.60 | 22.41 | -5.0% |\n")
    assert any(lv == "warn" and "consistent drop" in m for lv, m in _read(text))
    timed = text.replace("busbw (GB/s)", "(ms/tok)")
    found = _read(timed)
    assert _worst(found) in ("ok", "info") and "consistent gain" in _said(found)
