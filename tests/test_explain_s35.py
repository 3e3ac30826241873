"""Session 35: readings of real outputs mended as general rules, each test naming the output it comes from."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import levels, messages

CORPUS = Path(__file__).parent / "fixtures" / "field" / "corpus"


def corpus(prefix: str) -> str:
    """The text of the field corpus entry (or pending one) whose file name starts with ``prefix``."""
    [path] = list(CORPUS.glob(f"{prefix}_*.txt")) + list((CORPUS.parent / "pending").glob(f"{prefix}_*.txt"))
    return path.read_text()


def test_busbw_that_dips_at_one_size_and_rises_again_is_a_warning():
    """Corpus zf009 (aws/aws-ofi-nccl#65, two p4d nodes: 32.6 GB/s at 32 MB, 19.1 at 64 MB, 42.6 at 256 MB) and zq020
    (NVIDIA/nccl#1244, 2 x 8 H20: 269 GB/s at 64 MB, 227 at 128 MB, 313 at 512 MB): a dip deeper than
    checks/ranges.toml's dip_ratio (1.15) from 8 MB on is a size where NCCL moves data a slower way."""
    [_, s] = explain(corpus("zf009"), host="other", nodes=2)
    warned = messages(s, "warn")
    assert "dips from 32.57 / 32.04 GB/s at 33,554,432 B to 19.1 / 19.09 GB/s at 67,108,864 B" in warned
    assert "rises again (42.61 / 42.23 GB/s at 268,435,456 B)" in warned
    [s] = explain(corpus("zq020"), host="other", nodes=2)
    assert "to 227.14 / 226.48 GB/s at 134,217,728 B" in messages(s, "warn")
    # the same rows with the 128 MB one at 240 GB/s (1.12x below 64 MB's 269): within the ratio, no dip
    mild = corpus("zq020").replace("227.14", "240.00").replace("226.48", "241.00")
    assert "dips" not in messages(explain(mild, host="other", nodes=2)[0])
    # a dip that does not rise again is the end of the table, judged by the collapse ratio instead
    cut = "\n".join(line for line in corpus("zq020").splitlines()
                    if not line.lstrip().startswith(("268435456", "536870912", "1073741824", "2147483648")))
    assert "dips" not in messages(explain(cut, host="other", nodes=2)[0])


def test_a_vllm_log_that_stops_while_loading_the_weights_cannot_tell_whether_start_up_went_on():
    """Corpus zv005 (DeepSeek-V2 over Ray on two nodes): the excerpt ends at `Starting to load model` with no fault:
    explain says it cannot tell whether loading finished; with the shards' bar at 100% it does not say so (corpus
    zh013: 66/66 shards loaded, then silence)."""
    [s] = explain(corpus("zv005"), host="other", nodes=2)
    assert "The log stops while vLLM loads the weights" in messages(s, "info") and set(levels(s)) <= {"ok", "info"}
    done = corpus("zv005") + ("INFO 07-28 13:56:40 model_runner.py:692] Loading model weights took 54.2 GB\n")
    assert "stops while" not in messages(explain(done, host="other", nodes=2)[0])
    [s] = explain(corpus("zh013"), host="spark", nodes=4)
    assert "stops while" not in messages(s)


def test_shards_that_load_a_minute_each_or_slower_while_the_load_goes_on_warn():
    """Corpus zv006 (vllm#6938: a 405B FP8 checkpoint on /dbfs, 83-131 s a shard from shard 8 on): the last bar's
    rate is at or above checks/specs/serving.toml [weights] slow_shard_s (60 s); a load that reached 100% is not
    judged by its rate (corpus x003, zm004: healthy starts whose bars averaged 81-186 s a shard)."""
    [s] = explain(corpus("zv006"), host="other")
    assert "Loading the weights is slow: shard 11 of 86 after 14:11, 131.2 s a shard" in messages(s, "warn")
    assert "under 38 MB/s" in messages(s, "warn")  # 5,000 MB / 131.15 s
    quick = corpus("zv006").replace("131.15s/it", "59.00s/it")
    assert "slow" not in messages(explain(quick, host="other")[0], "warn")
    for prefix in ("x003", "zm004"):
        assert "Loading the weights is slow" not in messages(explain(corpus(prefix), host="other")[0])


def test_one_streams_tpot_of_another_model_is_judged_by_a_readers_pace_not_the_courses_ranges():
    """Pending xa006 (NVIDIA forum: Qwen3-VL-32B FP8 at TP=4 over four Sparks, one request, TPOT 51.95 ms): the
    course's ceilings (checks/ranges.toml lab_tpot_c1_ms) hold for the models they name (their `model` key), so
    another model's 52 ms is no warning; past a reader's pace (checks/specs/serving.toml [load], 190 ms) any model's
    one stream is very slow, and the course's own model is judged by its range."""
    [_, s, _] = explain(corpus("xa006"), host="spark", nodes=4)
    decode = [f for f in s.findings if f.message.startswith("Decode:")]
    assert [f.level for f in decode] == ["info"] and "does not name the model" in decode[0].message
    text = corpus("xa006")
    start = text.index("============ Serving")
    summary = text[start:text.index("============ Serving", start + 1)]  # the one request's summary
    [s] = explain("$ vllm bench serve --model Qwen/Qwen3-VL-32B-Instruct-FP8 --max-concurrency 1\n" + summary,
                  host="spark")
    assert "very slow" not in messages(s)
    [s] = explain("$ vllm bench serve --model openai/gpt-oss-120b --max-concurrency 1\n" + summary, host="spark")
    assert ("slowest setup this course grades decodes openai/gpt-oss-120b (25 ms, checks/ranges.toml "
            "[spark-pair.lab_tpot_c1_ms])") in messages(s, "warn")
    slow = summary.replace("51.95", "250.00")
    [s] = explain("$ vllm bench serve --model Qwen/Qwen3-VL-32B-Instruct-FP8 --max-concurrency 1\n" + slow)
    assert "falls behind a person reading it (one token every 190 ms" in messages(s, "warn")


STALL = ("(EngineCore pid=2025) INFO 08-13 11:2{}:02 [shm_broadcast.py:802] No available shared memory broadcast block "
         "found in 60 seconds. This typically happens when some processes are hanging or doing some time-consuming "
         "work (e.g. compilation, weight/kv cache quantization).\n")  # vllm#51986, as posted (five in a row there)


def test_the_engines_wait_line_three_times_in_a_row_is_a_stuck_worker():
    """vllm#51986 (blind batch xe003: the line five times over five minutes, nothing else): three or more in a row
    (checks/specs/serving.toml [engine] stall_repeats) warn with their count and minutes; fewer, or broken by another
    line of the log, stay the note that a worker is busy or stuck (corpus zb005: one line after an autotune)."""
    [s] = explain("".join(STALL.format(i) for i in range(5)), host="other")
    assert "logged 5 times in a row that it waited 60 s" in messages(s, "warn") and "5 minutes" in messages(s, "warn")
    broken = STALL.format(0) + STALL.format(1) + "(EngineCore pid=2025) INFO 08-13 11:22:30 [core.py:1] step\n" + \
        STALL.format(3) + STALL.format(4)
    [s] = explain(broken, host="other")
    assert "times in a row" not in messages(s) and "waited 60 s for a worker" in messages(s, "info")
