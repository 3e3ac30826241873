"""Session 40, builder D (issue 27): the blind batches' serving and GPU misses (wv001, wx004, wx009, wv009, wy005),
each read from the pending corpus file or a few real lines, with a neighbouring output the rule must leave alone."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import levels, messages, said_in_all

PENDING = Path(__file__).parent / "fixtures" / "field" / "pending"
CORPUS = Path(__file__).parent / "fixtures" / "field" / "corpus"


def _paste(folder: Path, prefix: str) -> str:
    [path] = folder.glob(prefix + "_*.txt")
    return path.read_text()


def _section(sections, kind):
    return next(s for s in sections if s.kind == kind)


def test_a_loopback_head_that_offers_no_join_line_is_a_one_machine_runtime():
    """https://github.com/ray-project/ray/pull/34081: `ray start --head` on macOS binds 127.0.0.1 and prints no
    `ray start --address` line (multi-node is opt-in there): a healthy runtime for this machine, an info. The head
    of ray#24130 (corpus v009) prints a join line with 127.0.0.1 that no other machine can use: still a warn, and
    a loopback head for a run told to span two machines, or not told how many, is a warn too."""
    s = _section(explain(_paste(PENDING, "wv001"), host="other", nodes=1), "ray-start")
    assert "warn" not in levels(s) and "fail" not in levels(s)
    assert "loopback address 127.0.0.1: a Ray runtime for this one machine" in messages(s, "info")
    assert "no other machine can join it" in messages(s, "info")
    two = _section(explain(_paste(PENDING, "wv001"), host="other", nodes=2), "ray-start")
    assert "loopback address 127.0.0.1: no other node can reach it" in messages(two, "warn")
    untold = _section(explain(_paste(PENDING, "wv001"), host="other"), "ray-start")
    assert "loopback address 127.0.0.1: no other node can reach it" in messages(untold, "warn")
    v009 = _section(explain(_paste(CORPUS, "v009"), host="other", nodes=1), "ray-start")
    assert "loopback address 127.0.0.1: no other node can reach it" in messages(v009, "warn")


TOP = ("(APIServer pid=1) INFO 09-14 08:11:40 [kv_cache_utils.py:2459] GPU KV cache size: 443,242 tokens\n"
       "(APIServer pid=1) Traceback (most recent call last):\n"
       "(APIServer pid=1)   File \"<frozen runpy>\", line 198, in _run_module_as_main\n"
       "(APIServer pid=1)   File \"/opt/vllm/vllm/entrypoints/cli/serve.py\", line 148, in cmd\n"
       "(APIServer pid=1)     uvloop.run(run_server(args))\n"
       "(APIServer pid=1)            ^^^^^^^^^^^^^^\n")


def test_a_traceback_from_the_entry_point_cut_inside_is_a_failed_launch():
    """https://github.com/MiaAI-Lab/DeepSeek-v4-Flash-One-DGX-Spark/issues/13 (blind batch wx004): the APIServer's
    traceback from runpy's `_run_module_as_main`, the paste ending inside it: an uncaught exception, the process
    ended: a fail that says the exception is not shown. A traceback from a worker's frame (caught and logged, the
    process may go on) stays a warn, and one that ends with its exception line (KeyboardInterrupt) is not this."""
    s = _section(explain(_paste(PENDING, "wx004"), host="spark", nodes=1), "vllm-log")
    assert "entry point" in messages(s, "fail") and "cut before the exception line" in messages(s, "fail")
    s = _section(explain(TOP, kind="vllm-log", host="other", nodes=1), "vllm-log")
    assert "entry point (its first frame is `_run_module_as_main`" in messages(s, "fail")
    inner = TOP.replace("<frozen runpy>\", line 198, in _run_module_as_main",
                        "/opt/vllm/vllm/v1/engine/core.py\", line 700, in run_engine_core")
    s = _section(explain(inner, kind="vllm-log", host="other", nodes=1), "vllm-log")
    assert "fail" not in levels(s) and "exception it ends with is not in the text" in messages(s, "warn")
    ended = TOP + "(APIServer pid=1) KeyboardInterrupt\n"
    s = _section(explain(ended, kind="vllm-log", host="other", nodes=1), "vllm-log")
    assert "entry point" not in messages(s)


def test_a_log_that_stops_after_the_weights_download_cannot_tell_how_start_up_went():
    """https://github.com/vllm-project/vllm/issues/28658 (blind batch wx009): seven lines of a two-node PP=2 start
    ending after `Time spent downloading weights`: no error in them, and whether loading finished cannot be told."""
    s = _section(explain(_paste(PENDING, "wx009"), host="other", nodes=2), "vllm-log")
    assert "warn" not in levels(s) and "fail" not in levels(s)
    assert "with no error before it" in messages(s, "info") and "cannot tell whether loading finished" in messages(s)


def test_a_log_ending_at_the_ready_line_says_it_shows_no_request():
    """https://github.com/sgl-project/sglang/issues/16920 (blind batch wv009): SGLang TP=2 up (`Application startup
    complete`, Uvicorn running), nothing after it: the start is healthy and serving is not in the paste. A log
    with requests after its ready line (vLLM's stats lines) does not get the clause."""
    s = _section(explain(_paste(PENDING, "wv009"), host="other", nodes=1), "sglang-log")
    assert "The server came up" in messages(s, "ok") and "shows no request served" in messages(s, "ok")
    up = ("INFO 11-29 14:02:11 [api_server.py:1] vLLM API server version 0.11.0\n"
          "INFO:     Application startup complete.\n")
    s = _section(explain(up, kind="vllm-log", host="other", nodes=1), "vllm-log")
    assert "shows no request served" in messages(s, "ok")
    served = up + ('INFO:     127.0.0.1:50000 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'
                   "INFO 11-29 14:03:11 [loggers.py:123] Engine 000: Avg prompt throughput: 12.0 tokens/s, "
                   "Avg generation throughput: 40.1 tokens/s, Running: 1 reqs, Waiting: 0 reqs\n")
    s = _section(explain(served, kind="vllm-log", host="other", nodes=1), "vllm-log")
    assert "The server is up" in messages(s, "ok") and "shows no request served" not in messages(s)


def test_an_old_nvidia_smi_table_is_read_as_one_driver_and_its_rows_whole():
    """https://github.com/cBio/cbio-cluster/issues/39 (blind batch wy005): drivers of 2013-14 print `NVIDIA-SMI
    5.325.15  Driver Version: 325.15`, one driver; a WSL2 table (`NVIDIA-SMI 545.29.04  Driver Version: 546.17`)
    still reads as a Linux nvidia-smi on a Windows driver."""
    text = _paste(PENDING, "wy005")
    assert "WSL2" not in said_in_all(explain(text, host="other", nodes=1))
    s = _section(explain(text, host="other", nodes=1), "nvidia-smi")  # (its `14MB /  6143MB` read as MiB)
    assert "GPU2 (GeForce GTX TITAN): 14 of 6143 MiB used" in messages(s, "info") and "cut off" not in messages(s)
    wsl = text.replace("NVIDIA-SMI 5.325.15   Driver Version: 325.15 ", "NVIDIA-SMI 545.29.04 Driver Version: 546.17")
    assert "WSL2" in said_in_all(explain(wsl, host="other", nodes=1))


def test_the_first_benchmark_serving_summary_with_its_line_breaks_lost_is_read():
    """https://github.com/vllm-project/vllm/pull/2505 (blind batch wx010): the January 2024 benchmark_serving.py
    summary pasted on one line (`Total time: 58.91 s Throughput: 0.34 requests/s Average latency: 18.55 s ...`), its
    Namespace line saying num_prompts=20: read, the run said completed for the 20 prompts sent, failures not shown.
    The one-row-a-line form (as it printed) reads the same."""
    text = _paste(PENDING, "wx010")
    s = _section(explain(text, host="other", nodes=1), "vllm-bench")
    assert "summary for the 20 prompts sent (`num_prompts=20`): 0.34 req/s over 58.91 s" in messages(s, "info")
    assert "warn" not in levels(s) and "fail" not in levels(s)
    rows = text.replace(" Throughput:", "\nThroughput:").replace(" Average latency", "\nAverage latency")
    s = _section(explain(rows, host="other", nodes=1), "vllm-bench")
    assert "summary for the 20 prompts sent" in messages(s, "info") and "E2EL mean 18550.00 ms" in messages(s)


def test_a_trtllm_bench_report_cut_above_its_header_is_read_with_its_lengths_worked_out():
    """https://github.com/NVIDIA/TensorRT-LLM/issues/6294 (pending xl006): a report from its `Issue Rate` line, the
    header (model, lengths) cut off, its sections PERFORMANCE OVERVIEW and DATASET DETAILS: read as trtllm-bench, and
    the output per request worked out (6957.3 / 248.4751 = 28, input (38762.1 - 6957.3) / 248.4751 = 128), the
    dataset's own lengths said not shown. A report with its lengths (corpus trtllm-bench entries) checks them instead."""
    s = _section(explain(_paste(PENDING, "xl006"), host="other", nodes=1), "vllm-bench")
    assert "header (model, layout) is not in the paste" in messages(s, "info")
    assert "28 output tokens per request on average" in messages(s, "info") and "128 input" in messages(s, "info")
    full = ("= REQUEST DETAILS\nNumber of requests: 100\nAverage Input Length (tokens): 128.0\n"
            "Average Output Length (tokens): 128.0\n= PERFORMANCE OVERVIEW\nRequest Throughput (req/sec): 10.0\n"
            "Total Output Throughput (tokens/sec): 1280.0\n")
    s = _section(explain(full, kind="vllm-bench", host="other", nodes=1), "vllm-bench")
    assert "tokens per request on average" not in messages(s) and "its figures agree" in messages(s, "ok")


def test_a_completed_pod_is_said_completed_not_running():
    """Blind batch wy007 (a MicroK8s GPU test pod on a DGX Spark, `kubectl get pod -o wide`: `gpu-test 0/1 Completed
    0 15s ... spark-02`, then its log, an nvidia-smi table): the pod ran to its end, said so, not `Running with every
    container ready`; a listing of running pods keeps its sentence."""
    s = _section(explain(_paste(PENDING, "wy007"), host="spark", nodes=1), "kubectl-pods")
    assert "gpu-test Completed: a one-shot pod that ran to its end" in messages(s, "ok")
    assert "Running" not in messages(s)
    running = ("NAME       READY   STATUS    RESTARTS   AGE\n"
               "vllm-0     1/1     Running   0          5m\n")
    s = _section(explain(running, kind="kubectl-pods", host="other", nodes=1), "kubectl-pods")
    assert "All 1 pod(s) are Running with every container ready." in messages(s, "ok")


WX005_TABLE = """================================================================================
Category | Concurrency | Wall Time | Total Tok | Server Tok/s | Avg Latency | Avg Stream
--------------------------------------------------------------------------------
Prose    | 1           |    6.39s  |      1024 |    160.34 tok/s |      6.39s |   160.35 tok/s
Code     | 1           |    5.86s  |      1024 |    174.63 tok/s |      5.86s |   174.64 tok/s
--------------------------------------------------------------------------------
Prose    | 4           |   10.53s  |      4096 |    388.96 tok/s |      9.95s |   103.11 tok/s
Code     | 4           |    8.54s  |      4096 |    479.73 tok/s |      8.15s |   125.98 tok/s
--------------------------------------------------------------------------------
Prose    | 8           |   17.93s  |      8192 |    456.96 tok/s |     17.25s |    59.41 tok/s
Code     | 8           |   15.51s  |      8192 |    528.07 tok/s |     14.43s |    71.38 tok/s
"""


def test_a_scripts_own_concurrency_table_without_outer_pipes_is_a_results_table():
    """Blind batch wx005 (a repo's concurrency benchmark on two RTX 3090s, its table without outer pipes, its groups
    parted by rules of dashes under an 80-character rule of `=`): read as a results table, the aggregate rising with
    concurrency per category; not a `vllm bench serve` output it cannot read. vLLM's own result block (its 50-`=`
    end line) is still the bench's."""
    sections = explain(WX005_TABLE, host="other", nodes=1)
    assert [s.kind for s in sections] == ["results-table"]
    said = messages(sections[0], "info")
    assert "Prose: the aggregate rate grows from 160.34 at concurrency 1 to 456.96 at 8" in said
    assert "Code: the aggregate rate grows from 174.63 at concurrency 1 to 528.07 at 8" in said
    bench = ("============ Serving Benchmark Result ============\nSuccessful requests:                     100\n"
             "Benchmark duration (s):                  10.00\nRequest throughput (req/s):              10.00\n"
             "Output token throughput (tok/s):         1280.00\n==================================================\n")
    assert [s.kind for s in explain(bench, host="other", nodes=1)] == ["vllm-bench"]


def test_a_healthy_status_with_every_gpu_held_says_ray_is_not_what_holds_a_job_back():
    """rLLM#95 (blind batch wv003): one node, `8.0/8.0 GPU (8.0 used of 8.0 reserved in placement groups)`, no pending
    nodes, no demands, a training job said to hang: healthy, every GPU held, and why a job stops is not in a `ray
    status`. A healthy idle status (GPUs free) gets no such clause."""
    s = _section(explain(_paste(PENDING, "wv003"), host="other", nodes=1), "ray-status")
    said = messages(s, "ok")
    assert "Every GPU is held (8/8) and nothing waits for more" in said and "this output cannot tell why" in said
    idle = _paste(PENDING, "wv003").replace("9.0/192.0 CPU (8.0 used of 8.0 reserved in placement groups)",
                                            "0.0/192.0 CPU").replace("8.0/8.0 GPU (8.0 used of 8.0 reserved in "
                                                                     "placement groups)", "0.0/8.0 GPU")
    s = _section(explain(idle, host="other", nodes=1), "ray-status")
    assert "Healthy" in messages(s, "ok") and "Every GPU is held" not in messages(s)


def test_a_pending_uninitialized_worker_names_the_set_up_and_the_log_that_decides():
    """ray#29127 (blind batch wm011): the head healthy, a worker `Pending: <IP>: ray.worker.default, uninitialized`:
    a warn (a snapshot cannot tell it stays), naming the instance's set-up (SSH, setup commands) and the monitor log."""
    s = _section(explain(_paste(PENDING, "wm011"), host="other", nodes=2), "ray-status")
    said = messages(s, "warn")
    assert "set-up of the instance (SSH, setup commands)" in said and "this status cannot tell which" in said


def test_a_log_with_an_error_after_its_ready_line_does_not_say_it_ends_there():
    """The ready line's clause is for a log that ends there: an engine that died after coming up (the shape of
    https://github.com/eugr/spark-vllm-docker/issues/237: the server up, then `EngineDeadError`) does not get it."""
    text = ("INFO 11-29 14:02:11 [api_server.py:1] vLLM API server version 0.11.0\n"
            "INFO:     Application startup complete.\n"
            "ERROR 11-29 14:05:11 [core.py:1] EngineCore encountered a fatal error.\n"
            "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.\n")
    s = _section(explain(text, kind="vllm-log", host="other", nodes=1), "vllm-log")
    assert "shows no request served" not in messages(s)
