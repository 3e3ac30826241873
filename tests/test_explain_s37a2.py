"""Session 37 (helper A2, serving): readings of real outputs mended as general rules, each test naming the output it
comes from and checking that the rule stays silent on a neighbouring output."""

from __future__ import annotations


from grader.explain import explain
from tests.conftest import field_entry as corpus, messages


def said(sections, level: str | None = None) -> str:
    return " ".join(messages(s, level) if level else messages(s) for s in sections).strip()


def worst(sections) -> str:
    rank = {"ok": 0, "info": 0, "warn": 1, "fail": 2}
    return max((f.level for s in sections for f in s.findings), key=lambda x: rank.get(x, 0), default="ok")


RAY_TPU_IDLE = """======== Autoscaler status: 2022-06-24 04:18:12.271411 ========
Node status
---------------------------------------------------------------
Healthy:
 1 ray_head_default
 4 ray_tpu-chip
Pending:
 (no pending nodes)
Recent failures:
 (no failures)

Resources
---------------------------------------------------------------
Usage:
 0.0/386.0 CPU
 0.0/4.0 TPU
 0.00/936.219 GiB memory
 0.00/401.547 GiB object_store_memory

Demands:
 (no resource demands)
"""


def test_an_idle_tpu_ray_cluster_is_said_healthy_and_not_cpu_only():
    """https://github.com/ray-project/ray/issues/26066 (blind batch wa017): the autoscaler's status of a TPU pod, five
    nodes healthy, nothing pending, no demands: healthy and idle in those words, its TPUs said (not 'CPU-only')."""
    sections = explain(RAY_TPU_IDLE, host="other", nodes=5)
    text = said(sections)
    assert worst(sections) in ("ok", "info")
    assert "Healthy: all 5 node(s) up, nothing pending" in said(sections, "ok") and "idle" in text
    assert "4 TPU" in text and "CPU-only" not in text


def test_the_healthy_summary_needs_the_blocks_read_and_nothing_waiting():
    """The same status cut before its Demands block is not said healthy (the demands were not read); with a demand
    pending (corpus b001, gpustack#5509: a PACK group waiting), or a failure, it is not either."""
    cut = RAY_TPU_IDLE.split("\nDemands:")[0] + "\n"
    assert "Healthy:" not in said(explain(cut, host="other", nodes=5))
    assert "Healthy:" not in said(explain(corpus("b001"), host="other", nodes=2))
    failed = RAY_TPU_IDLE.replace(" (no failures)", " ray_tpu-chip: NodeTerminated (ip: 10.0.0.9)")
    assert "Healthy:" not in said(explain(failed, host="other", nodes=5))
    busy = RAY_TPU_IDLE.replace(" 0.0/386.0 CPU", " 12.0/386.0 CPU")
    text = said(explain(busy, host="other", nodes=5))
    assert "Healthy:" in text and "idle" not in text


def test_a_worker_that_cannot_reconnect_to_the_gcs_fails_naming_the_address_and_latency():
    """https://github.com/ray-project/ray/issues/15389 (blind batch wa002): Ray 1's fatal log of a worker whose GCS
    client gave up; the head 260 ms away. A fail naming the GCS address, the checks, and a far head's timeout."""
    text = ("Local node IP: 10.42.1.24\n[2021-04-18 06:54:54,934 C 756 756] service_based_gcs_client.cc:229: Couldn't "
            "reconnect to GCS server. The last attempted GCS server address was 10.42.0.44:43507\n"
            "*** StackTrace Information ***\n")
    sections = explain("$ ray start --address=$HEAD:6379 --block\n" + text, host="other", nodes=2)
    failed = said(sections, "fail")
    assert "could not reach the head's GCS at 10.42.0.44:43507" in failed and "round-trip time" in failed
    # a start that worked says nothing of the GCS
    ok = said(explain("$ ray start --address=10.0.0.1:6379\nLocal node IP: 10.0.0.2\n\n--------------------\n"
                      "Ray runtime started.\n--------------------\n", host="other", nodes=2))
    assert "GCS at" not in ok


def test_an_unknown_attention_backend_is_a_version_mismatch():
    """https://github.com/spark-arena/recipe-registry/issues/23 (blind batch wa006): vLLM refuses a backend name its
    build does not know: a fail naming the backend and the recipe/image mismatch."""
    line = ("(APIServer pid=74)   Value error, Unknown attention backend: 'B12X_MLA_SPARSE'. Valid options are: "
            "FLASH_ATTN, TRITON_ATTN, B12X, CUSTOM [type=value_error, input_value='B12X_MLA_SPARSE', input_type=str]\n")
    sections = explain(line, host="spark", nodes=2)
    failed = said(sections, "fail")
    assert "(B12X_MLA_SPARSE)" in failed and "another vLLM version" in failed
    # a log that names its backend as selected is no such error
    fine = "(EngineCore pid=1) INFO 05-01 10:00:00 [cuda.py:290] Using FLASHINFER attention backend.\n"
    assert "Unknown attention backend" not in said(explain(fine, host="spark", nodes=2))


def test_llama_server_refusing_an_argument_is_said_with_the_option():
    """https://github.com/oobabooga/textgen/issues/7357 (blind batch wa004): llama.cpp's `error: invalid argument: -rpc`
    after its GPU listing: a fail about the option (spelling, or a build without RPC), not a GPU or network fault."""
    text = ("ggml_cuda_init: found 2 CUDA devices:\n  Device 0: NVIDIA GeForce RTX 5090, compute capability 12.0, VMM: "
            "yes\n  Device 1: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes\nerror: invalid argument: -rpc\n")
    sections = explain(text, host="other", nodes=1)
    failed = said(sections, "fail")
    assert "does not accept the option -rpc" in failed and "GGML_RPC=ON" in failed
    # a CUDA `invalid argument` is not an option llama.cpp refused
    assert "argument parser" not in said(explain("CUDA error: invalid argument\n  current device: 0\n"))


def test_ptxas_line_without_its_prefix_is_the_toolchain_too_old_for_the_gpu():
    """https://github.com/nvidia-cosmos/cosmos-reason2/issues/30 (blind batch wa010): `vllm serve` and ptxas's line
    alone (no `ptxas fatal :` before it): ptxas too old for sm_121a, a fail; the 'only the command' note goes."""
    text = ("vllm serve nvidia/Cosmos-Reason2-2B \\\n  --max-model-len 16384 \\\n  --port 8000\n\nthis error appears:\n\n"
            "Value 'sm_121a' is not defined for option 'gpu-name'\n")
    sections = explain(text, host="spark", nodes=1)
    failed = said(sections, "fail")
    assert "ptxas" in failed and "sm_121a" in failed
    assert "Only the `vllm serve` command" not in said(sections)
    # the command alone keeps its note
    alone = said(explain("vllm serve nvidia/Cosmos-Reason2-2B --max-model-len 16384\n", host="spark", nodes=1))
    assert "Only the `vllm serve` command" in alone


def test_vllm_imported_from_an_unbuilt_source_tree():
    """https://github.com/vllm-project/vllm/issues/53836 (blind batch wa011): collect_env.py run inside a vLLM checkout:
    `No module named 'vllm._version'`, then a traceback cut before its exception: a fail (the import died in an
    unbuilt tree) beside the note that the exception line is cut; the warning alone is a warn."""
    warning = ("/home/u/spark_serving/vllm/vllm/__init__.py:7: RuntimeWarning: Failed to read commit hash:\n"
               "No module named 'vllm._version'\n  from .version import __version__, __version_tuple__  # isort:skip\n")
    tb = ('Traceback (most recent call last):\n  File "/home/u/spark_serving/vllm/collect_env.py", line 20, in '
          '<module>\n    from vllm.envs import environment_variables\n  File "/home/u/spark_serving/vllm/vllm/'
          '__init__.py", line 14, in <module>\n    import vllm.env_override  # noqa: F401\n')
    sections = explain("$ python collect_env.py\n" + warning + tb, host="spark", nodes=1)
    text = said(sections)
    assert "never built or installed" in said(sections, "fail") and "cut before its exception line" in text
    alone = explain(warning, host="spark", nodes=1)
    assert worst(alone) == "warn" and "never built or installed" in said(alone, "warn")
    # a cut traceback with no such warning above it gains no fault
    assert "never built" not in said(explain(tb, host="spark", nodes=1))


def test_a_clean_vllm_start_is_said_healthy_and_one_with_a_fault_is_not():
    """Corpus zm004 (jethac/dgx-spark-llm-bench, a Gemma 4 start on a GB10 up to `Application startup complete`):
    the ready finding says a healthy start; corpus za005 (eugr/spark-vllm-docker#184, a fatal error after the
    startup completed) is not called healthy."""
    ready = said(explain(corpus("zm004"), host="spark", nodes=1), "ok")
    assert "a healthy start: nothing wrong in what the log shows" in ready
    assert "healthy start" not in said(explain(corpus("za005"), host="spark", nodes=2))


def test_a_clean_llama_bench_is_said_healthy_and_ngl_0_is_not():
    """Corpus zo007 (ggml-org/llama.cpp#4766, llama-bench of a 7B on an RTX 4090, F16/Q8/Q4): a healthy run, its rates
    said and not graded; the same table with ngl 0 (no layer on the GPU) is not called healthy."""
    text = corpus("zo007")
    assert "A healthy run: all" in said(explain(text, host="other", nodes=1), "ok")
    assert "| CUDA       |  99 |" in text
    cpu = explain(text.replace("| CUDA       |  99 |", "| CUDA       |   0 |"), host="other", nodes=1)
    assert "ngl 0" in said(cpu, "warn") and "A healthy run" not in said(cpu)


def test_a_load_test_with_every_request_done_says_no_failures():
    """Corpus zo008 (vllm-project/vllm#20469, 30 of 30 requests at concurrency 1): `no failures` in words; a load test
    with a failed request (corpus n014, tenstorrent: 999 of 1000) does not say it."""
    assert "30 of 30 requests completed, 0 failed: no failures." in said(explain(corpus("zo008"), host="other",
                                                                                    nodes=1), "ok")
    failed = explain(corpus("n014"), host="other", nodes=1)
    assert "999" in said(failed) and "no failures" not in said(failed)


FREE_M = ("               total        used        free      shared  buff/cache   available\n"
          "Mem:          124546      117684        1114         107        7218        6861\n"
          "Swap:              0           0           0\n")


def test_a_sparks_free_m_without_its_command_is_read_as_mib_and_its_thin_headroom_warned():
    """https://github.com/NVIDIA/NemoClaw/issues/4886 (blind batch wa009): `free -m` of a GB10 pasted without its
    command line, 6,861 of 124,546 MiB available and no swap while a vLLM engine runs: read as MiB (the Spark's
    121.6 GiB, not 0.1 GiB of KiB) and warned as thin headroom (checks/specs/memory.toml [headroom])."""
    sections = explain(FREE_M + "  83408   82664 VLLM::EngineCore             2.6 54.7\n", host="spark", nodes=1)
    warned = said(sections, "warn")
    assert "6.7 GiB of 121.6 GiB (6%)" in warned and "thin headroom" in warned and "read as MiB" in warned
    assert "A vLLM process is in the process list" in said(sections, "info")
    # with swap, or on another host (the unit unknown: KiB, no Spark to match), no such warning
    assert "thin headroom" not in said(explain(FREE_M.replace("Swap:              0           0           0",
                                                              "Swap:          16383           0       16383"),
                                               host="spark", nodes=1))
    other = said(explain(FREE_M, host="other", nodes=1))
    assert "thin headroom" not in other and "read as KiB" in other
    # 15% available on a Spark: no warning
    roomy = FREE_M.replace("117684        1114         107        7218        6861",
                           "100000        1114         107        7218       18682")
    assert not said(explain(roomy, host="spark", nodes=1), "warn")


def test_a_ray_cluster_of_cpus_only_is_not_said_healthy():
    """Corpus zo006 (vllm-project/vllm#15266: two nodes joined, no GPU resource at all, nothing in use): Ray's own
    state is clean, but a cluster without an accelerator is no place for a model: no `Healthy` summary."""
    text = said(explain(corpus("zo006"), host="other", nodes=2))
    assert "Ray reports no GPU" in text and "Healthy:" not in text


def test_a_ray_start_cut_before_its_last_line_with_nothing_wrong_says_so():
    """Corpus zv001 (ray-project/ray#4818, Ray 0.7's head start cut at its dashboard line): no `started` line, but
    nothing wrong up to the cut, said in those words; a start whose head is unreachable is not."""
    text = said(explain(corpus("zv001"), host="other", nodes=2))
    assert "nothing wrong in what it printed up to there" in text and "10.0.0.4" in text
    gcs = ("$ ray start --address=10.0.0.1:6379\nLocal node IP: 10.0.0.2\nUnable to connect to GCS (ray head) at "
           "10.0.0.1:6379.\n")
    assert "nothing wrong" not in said(explain(gcs, host="other", nodes=2))


SERVE_32 = ("$ vllm serve Qwen/Qwen3-32B --max-model-len 32000 --max-num-seqs 32\n\n")
BENCH_1000 = ("$ python3 benchmark_serving.py --model Qwen/Qwen3-32B --dataset-name sharegpt {more}\n"
              "============ Serving Benchmark Result ============\nSuccessful requests:                     1000\n"
              "Benchmark duration (s):                  306.78\nTotal input tokens:                      217393\n"
              "Total generated tokens:                  200516\nRequest throughput (req/s):              3.26\n"
              "Output token throughput (tok/s):         653.61\n---------------Time to First Token----------------\n"
              "Mean TTFT (ms):                          146809.12\nMedian TTFT (ms):                        148069.33\n"
              "P99 TTFT (ms):                           286485.34\n==================================================\n")


def test_a_burst_beyond_the_servers_max_num_seqs_is_said_to_queue():
    """https://github.com/vllm-project/vllm/issues/17788 (blind batch xa005): `vllm serve --max-num-seqs 32`, then
    benchmark_serving.py sending its 1000 prompts at once, TTFT ~147 s: the note that the server ran 32 at a time and
    the rest queued; a test capped at 16 at once under the same server, or without the server's command, has none."""
    text = said(explain(SERVE_32 + BENCH_1000.format(more=""), host="other", nodes=1))
    assert "`--max-num-seqs 32`" in text and "up to 1,000 requests at once" in text and "queue" in text
    capped = said(explain(SERVE_32 + BENCH_1000.format(more="--max-concurrency 16"), host="other", nodes=1))
    assert "--max-num-seqs 32`" not in capped
    alone = said(explain(BENCH_1000.format(more=""), host="other", nodes=1))
    assert "--max-num-seqs" not in alone
