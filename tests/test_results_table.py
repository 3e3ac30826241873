"""Results tables people paste (Markdown summaries of their benchmark runs) and vllm bench serve runs whose requests
all arrive at once at a finite --request-rate: read for what they show (issue 27)."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain

FIELD = Path(__file__).resolve().parent / "fixtures" / "field"


def _read(text: str, host: str | None = "spark", nodes: int | None = None) -> list[tuple[str, str]]:
    return [(f.level, f.message) for s in explain(text, host=host, nodes=nodes) for f in s.findings]


def _worst(found: list[tuple[str, str]]) -> str:
    order = {"ok": 0, "info": 0, "warn": 1, "fail": 2}
    return max(found, key=lambda x: order[x[0]])[0] if found else "ok"


def test_flat_aggregate_over_concurrency_is_saturation_not_a_fault():
    """https://github.com/eugr/spark-vllm-docker/pull/123 (pending wa014): one Spark, llama-benchy at d32768,
    aggregate 237 -> 235 t/s from c1 to c10 while TTFT grows 8.6 -> 48.2 s."""
    text = (FIELD / "pending" / "wa014_other_eugrpr123-spark-llama-benchy-nemotron-cascade-c10-ttft.txt").read_text()
    found = _read(text, nodes=1)
    said = " ".join(m for _, m in found)
    assert _worst(found) in ("ok", "info")
    assert "saturated" in said and "237 -> 235" in said and "48.2 s" in said


def test_first_token_after_a_minute_under_concurrency_warns():
    """https://github.com/sgl-project/sglang/pull/36364 (pending wk014): GB10 cookbook cells, DSPARK at c=16 waits
    71 s for the first token; without it 21.7 s (no warning for that group)."""
    text = (FIELD / "pending" / "wk014_other_sglang36364-gb10-ling3-dspark-c16-ttft-71s-table.txt").read_text()
    found = _read(text, nodes=1)
    warns = [m for lv, m in found if lv == "warn"]
    assert len(warns) == 1 and warns[0].startswith("dspark:") and "71.3 s at 16" in warns[0]


def test_two_setups_within_noise_and_success_column():
    """https://forums.developer.nvidia.com/t/8x-dgx-spark-cluster-build-report-crs812-400dd-4x100g-breakouts-nemotron-3-ultra-at-tp-8/373146 (corpus zf017): 200G vs 100G per-stream decode, deltas within
    3.1%; https://github.com/0xBakeer/inference-atlas/pull/112 (pending wb012): a success column of 1.00 and 6/6 needles."""
    text = (FIELD / "corpus" / "zf017_vllm-bench_forum373146-8x-spark-200g-vs-100g-per-stream-decode-table.txt").read_text()
    said = " ".join(m for _, m in _read(text, nodes=4))
    assert "at most 3.1%" in said and "noise" in said
    text = (FIELD / "pending" / "wb012_vllm-bench_atlas112-2xspark-tp2-fp8-qwen-results-table.txt").read_text()
    found = _read(text, nodes=2)
    assert ("ok", next(m for _, m in found if m.startswith("Every row completed"))) in found
    failed = text.replace("| 1.00 |\n| `prefill-8k", "| 0.90 |\n| `prefill-8k", 1)
    assert failed != text and any(lv == "warn" and "0.90" in m for lv, m in _read(failed, nodes=2))


def test_single_stream_half_of_a_reference_that_load_nearly_matches_is_per_step_latency():
    """https://github.com/MiaAI-Lab/Qwen3.8-Flash-Next-Dual-DGX-Sparks/issues/22 (pending wk012): two Sparks, x1 32.0 tok/s against the README's 64.4, x4 84.6
    against 114.1: a longer step, not less capacity. The same table within noise says so instead."""
    text = (FIELD / "pending" / "wk012_other_miaai-qwen38-dual-22-2xspark-sglang-bench-x1-32-vs-64.txt").read_text()
    found = _read(text, nodes=2)
    assert any(lv == "warn" and "per-step latency" in m and "-50%" in m for lv, m in found)
    same = ("| Concurrency | This cluster | README |\n|---|---|---|\n| x1 | 63.0 tok/s | 64.4 |\n"
            "| x2 | 115.0 | 116.8 |\n| x4 | 113.0 | 114.1 |\n")
    found = _read(same, nodes=2)
    assert _worst(found) in ("ok", "info") and any("within run-to-run noise" in m for _, m in found)


def test_llama_bench_compare_table_stays_llama_bench():
    """https://github.com/ggml-org/llama.cpp/pull/19142 (corpus zg006): compare-commits' table is llama-bench's."""
    text = (FIELD / "corpus" / "zg006_other_llamacpp19142-dgx-spark-glm47-flash-fa-tune-compare.txt").read_text()
    assert [s.kind for s in explain(text, host="spark", nodes=1)] == ["llama-bench"]


def test_requests_offered_within_a_sliver_of_the_run_are_a_burst():
    """https://github.com/eugr/spark-vllm-docker/pull/271 (corpus h011, the shared field paste 26): 50 prompts at 10
    req/s sent within 5 s of a 1,620 s run. Its `Peak concurrent requests: 50` states the load, so TPOT 762 ms is
    judged under it: very slow decode under a 50-way load (the shared README's reading). Without that line the load
    is not shown: the burst is said and TPOT is each stream's share of the batch (info). A sustained overload (corpus
    z007: 300 at 1.5/s over 1,422 s, capped at 25) keeps its warning."""
    text = (FIELD / "corpus" / "h011_vllm-bench_eugr271-spark-tp2-command-a-50-reqs-tpot-762ms.txt").read_text()
    found = _read(text, nodes=2)
    assert any(lv == "warn" and "very slow decode under this load" in m for lv, m in found)
    assert not any("in effect a burst" in m for _, m in found)
    unpeaked = "".join(ln for ln in text.splitlines(keepends=True) if not ln.startswith("Peak concurrent requests"))
    found = _read(unpeaked, nodes=2)
    assert _worst(found) in ("ok", "info") and any("in effect a burst" in m for _, m in found)
    text = (FIELD / "corpus" / "z007_vllm-bench_djangodevreng-spark-mistral-small-4-119b-nvfp4-rate-1.5-c25.txt").read_text()
    found = _read(text, nodes=1)
    assert _worst(found) == "warn" and not any("in effect a burst" in m for _, m in found)


def test_two_load_tests_of_one_workload_are_compared():
    """https://github.com/sgl-project/sglang/issues/5980 (corpus zp005): the same 10-request bench_serving run with
    NCCL 2.21.5 then 2.26.2: 103.28 then 56.22 output tok/s, a regression; in the other order an improvement (info);
    a different workload is not compared."""
    text = (FIELD / "corpus" / "zp005_vllm-bench_sglang-deepseek-v3-2x8-h100-nccl-2.26-halves-decode.txt").read_text()
    found = _read(text, host="other", nodes=2)
    assert [m for lv, m in found if lv == "warn" and "regression of 46%" in m and "17.59 ms against 9.55" in m]
    first, second = text.split("With nccl 2.26.2.post1:")
    found = _read(second + "\n" + first, host="other", nodes=2)
    assert _worst(found) in ("ok", "info") and any("84% faster than the run above" in m for _, m in found)
    other = second.replace("Successful requests:                     10 ", "Successful requests:                     12 ")
    assert other != second
    assert not any("same workload" in m.lower() for _, m in _read(first + other, host="other", nodes=2))


def test_load_test_lines_single_stream_baseline():
    """https://github.com/sfxnz/DeepSeek-V4.1-Flash-EXL3-vLLM-2x-DGX-Spark/blob/c9fb59e63bcf961280346992ee1a92800a429f2e/evidence/baseline-main-defaults/bench.txt (pending we008): a custom harness's lines, three runs at c=1, 11.25-13.05 tok/s, all completed: a
    single-stream baseline, nothing wrong."""
    text = (FIELD / "pending" / "we008_other_sfxnz-2xspark-dsv41-baseline-bench-12tps-single-stream.txt").read_text()
    found = _read(text, nodes=2)
    assert _worst(found) in ("ok", "info")
    assert any(lv == "ok" and "All 3 runs ran at a single stream" in m and "11.25-13.05" in m for lv, m in found)


def test_load_test_lines_over_concurrency_and_content_dependent_speed():
    """https://github.com/NestuFNG/DeepSeek-V4.1-Flash-DGX-Spark-Ring/blob/ca662ac35193c69ace9cee37f13a94abf2eff0fc/results/boot10/bench.txt (pending wf014): C1..C6 per prompt category; aggregate grows in every series, and at C1 the per-stream
    rate is 3x faster on code than on prose: speculative decoding's mark. The same lines with one speed for every
    prompt say nothing of it."""
    text = (FIELD / "pending" / "wf014_other_nestufng-4spark-ring-dsv41-concurrency-bench-spec-decode.txt").read_text()
    found = _read(text, nodes=4)
    said = " ".join(m for _, m in found)
    assert _worst(found) in ("ok", "info") and "In 9 of the 9 series the aggregate rate grows" in said
    assert "varies 3.0x with the prompt" in said and "speculative decoding" in said
    flat = "\n".join(f"  C1 {c:<8} agg   30.00 tok/s  per-stream 31.0  ttft 0.3s" for c in ("coding", "prose", "math"))
    assert "speculative" not in " ".join(m for _, m in _read(flat, nodes=1))


def test_two_machines_not_faster_than_one_is_said_as_expected_for_one_stream():
    """https://github.com/defilantech/LLMKube/issues/1423 (pending xa012): llama.cpp RPC over two Sparks against one, the last cell cut: decode 12.42 against
    12.83, prefill 73.4 against 106: a layer split, not a fault. Two machines that are faster say so, no verdict."""
    text = (FIELD / "pending" / "xa012_other_llmkube1423-two-sparks-rpc-vs-one-decode-flat.txt").read_text()
    found = _read(text, nodes=2)
    assert _worst(found) in ("ok", "info")
    assert any("2 machines are not faster than 1" in m and "decode 12.42 against 12.83" in m and "layer split" in m
               for _, m in found)
    faster = "| | prefill | decode |\n|---|---|---|\n| two Sparks | 190.0 tok/s | 21.0 tok/s |\n| one Spark | 106.0 tok/s | 12.8 tok/s |\n"
    said = " ".join(m for _, m in _read(faster, nodes=2))
    assert "2 machines against 1" in said and "not faster" not in said


def test_a_difference_column_all_one_way_is_a_drop_for_a_rate_and_a_gain_for_a_time():
    """https://github.com/eugr/spark-vllm-docker/issues/112 (pending xa010; the same table with its outer pipes): llama-benchy, two vLLM builds, prompt processing
    (t/s) lower in every row by 2.4-18.5%: a drop (warn). The same differences under a time (ms/step) are a gain."""
    text = (FIELD / "pending" / "xa010_llama-bench_eugr112-spark-llama-benchy-short-prefill-regression.txt").read_text()
    piped = "\n".join(f"| {x} |" if "|" in x and not x.startswith("|") else x for x in text.splitlines())
    found = _read(piped, nodes=1)
    assert [m for lv, m in found if lv == "warn" and "consistent drop" in m and "pp128 tg32" in m]
    timed = piped.replace("### Prompt Processing (t/s)", "### Step time").replace("| test ", "| ms/step ")
    found = _read(timed, nodes=1)
    assert _worst(found) in ("ok", "info") and any("consistent gain" in m for _, m in found)


def test_a_one_row_table_says_its_figures():
    """https://github.com/AlexsJones/llmfit/pull/917 (pending xm007): llmfit's one-row table, gpt-oss:120b on Ollama, 43.9 TPS: said, nothing graded."""
    text = (FIELD / "pending" / "xm007_other_llmfit917-gb10-ollama-gptoss120b-43.9tps.txt").read_text()
    found = _read(text, nodes=1)
    assert _worst(found) in ("ok", "info") and any("Avg TPS 43.9" in m for _, m in found)


def test_a_ttft_without_a_unit_is_not_read_as_seconds():
    """The pending wk014 table (https://github.com/sgl-project/sglang/pull/36364) with its TTFT header's unit left
    out: 71292 and 2172 could be ms or s, so no minute-long wait is claimed; the values are said as written."""
    text = (FIELD / "pending" / "wk014_other_sglang36364-gb10-ling3-dspark-c16-ttft-71s-table.txt").read_text()
    small = text.replace("TTFT ms", "TTFT").replace("71292", "75").replace("2172", "20")
    found = _read(small, nodes=1)
    assert _worst(found) in ("ok", "info") and any("from 20 at concurrency 1 to 75 at 16 (the table names no unit)" in m
                                                   for _, m in found)


def test_a_size_column_of_bare_numbers_is_not_a_concurrency():
    """https://github.com/autoscriptlabs/nccl-mesh-plugin/blob/dd17ad0b0d647827a0f168314dc6ad461ad079ee/BENCHMARKS.md (pending xc019): collective tables by message size (MB): the sizes are not a
    concurrency, and nothing about requests or batching is said of them."""
    text = (FIELD / "pending" / "xc019_other_mesh-plugin-3spark-triangle-collective-tables.txt").read_text()
    said = " ".join(m for s in explain(text, host="other", nodes=3) if s.kind == "results-table" for m in
                    (f.message for f in s.findings))
    assert "Size (MB)" in said and "concurrency" not in said and "batching" not in said


def test_an_aggregate_that_falls_with_concurrency_warns_and_an_unnamed_rate_is_not_read_as_one():
    """The pending wa014 table (https://github.com/eugr/spark-vllm-docker/pull/123) with its aggregate at c10 halved:
    the server is slower in all under load (warn). A rate column not named aggregate (each stream's, perhaps) that
    falls is not read as the server slowing down."""
    text = (FIELD / "pending" / "wa014_other_eugrpr123-spark-llama-benchy-nemotron-cascade-c10-ttft.txt").read_text()
    fell = text.replace("| 10 | 235 |", "| 10 | 118 |")
    assert fell != text
    assert any(lv == "warn" and "aggregate rate falls from 237" in m for lv, m in _read(fell, nodes=1))
    plain = "| c | TTFT ms | tok/s |\n|---|---|---|\n| 1 | 200 | 40 |\n| 16 | 900 | 12 |\n"
    found = _read(plain, nodes=1)
    assert _worst(found) in ("ok", "info") and not any("aggregate" in m for _, m in found)


def test_a_difference_column_in_the_measures_unit_small_beside_the_values_is_agreement():
    """https://github.com/Syllo/nvtop/issues/449 (pending wb014): nvtop's used memory against MemTotal - MemAvailable on a GB10, differences
    0.01-0.04 GiB beside ~46 GiB: the two agree. Differences of a tenth of the values are not called agreement."""
    text = (FIELD / "pending" / "wb014_other_nvtop449-spark-gb10-uma-memory-vs-meminfo-under-load.txt").read_text()
    assert any("agree within 0.04 in every row" in m for _, m in _read(text, nodes=1))
    off = text.replace("| 0.02 |", "| 4.02 |")
    assert off != text and not any("agree" in m for _, m in _read(off, nodes=1))


def test_a_table_without_its_outer_pipes_is_read():
    """https://github.com/eugr/spark-vllm-docker/issues/112 (pending xa010): the poster's table has no outer pipes (Markdown allows it); read the
    same as with them: a consistent drop of the newer build, most at pp128 tg32."""
    text = (FIELD / "pending" / "xa010_llama-bench_eugr112-spark-llama-benchy-short-prefill-regression.txt").read_text()
    sections = explain(text, host="spark", nodes=1)
    assert [s.kind for s in sections] == ["results-table"]
    assert any(f.level == "warn" and "consistent drop" in f.message and "pp128 tg32" in f.message
               for f in sections[0].findings)
    assert not any("Prompt Processing" in f.message for f in sections[0].findings)  # its caption is not said back
