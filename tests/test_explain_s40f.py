"""Session 40, fixer F (issue 27): the wrong readings break-it review 23 found in rules added that day, each on the
probe's lines (quoted: the probes are not in the repo) and on a neighbour that must keep its old reading."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import said_in_all

FIELD = Path(__file__).parent / "fixtures" / "field"


def paste(stem: str) -> str:
    return next(FIELD.glob(f"*/{stem}_*.txt")).read_text()


_STATS = ("INFO 06-12 11:02:{s} [loggers.py:118] Engine 000: Avg prompt throughput: 412.3 tokens/s, Avg generation "
          "throughput: 88.1 tokens/s, Running: {r} reqs, Waiting: 0 reqs, GPU KV cache usage: 3.1%, Prefix cache hit "
          "rate: 0.0%\n")
_CUT_TB = ('Traceback (most recent call last):\n  File "/usr/local/bin/vllm", line 8, in <module>\n    sys.exit(main())\n'
           "             ^^^^^^\n  File \"/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/cli/main.py\", line "
           "54, in main\n    args.dispatch_function(args)\n  File \"/usr/local/lib/python3.12/dist-packages/vllm/"
           'entrypoints/cli/serve.py", line 57, in cmd\n    uvloop.run(run_server(args))\n')


def test_a_cut_traceback_after_serving_and_ctrl_c_is_no_failed_launch():
    """Break-it 23 p12 (vLLM 0.10's engine stats and Uvicorn access line; Python's traceback format, which Ctrl-C
    prints through `<module>` before `KeyboardInterrupt`): the server served, its user pressed Ctrl-C, and the paste is
    cut inside the traceback: neither the entry-point fail nor "the launch most likely failed"."""
    text = (_STATS.format(s="31", r=4) + 'INFO:     127.0.0.1:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'
            + _STATS.format(s="41", r=0)
            + "^CINFO 06-12 11:05:02 [launcher.py:80] Shutting down FastAPI HTTP server.\n" + _CUT_TB)
    said = said_in_all(explain(text, host="spark", nodes=1))
    assert "launch failed" not in said and "launch most likely failed" not in said
    served_no_stop = text.replace("^CINFO 06-12 11:05:02 [launcher.py:80] Shutting down FastAPI HTTP server.\n", "")
    assert "launch failed there" not in said_in_all(explain(served_no_stop, host="spark", nodes=1))


def test_a_cut_entry_point_traceback_with_nothing_before_it_still_fails():
    """Neighbour: pending wx004 (https://github.com/MiaAI-Lab/DeepSeek-v4-Flash-One-DGX-Spark/issues/13, the
    APIServer's traceback from runpy cut before its exception, no serving before it) keeps its fail."""
    assert "launch failed there" in said_in_all(explain(paste("wx004"), host="spark", nodes=1), "fail")


def test_a_deployments_pod_completed_after_restarts_crash_loops():
    """Break-it 23 p02 (`kubectl get pods`; a Deployment's pod restarts its container whatever the exit code,
    https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#restart-policy): Completed with 6 restarts and
    a ReplicaSet hash in the name is a crash loop, not a one-shot; a Job-shaped one is a hedged warning."""
    text = ("$ kubectl get pods\nNAME                           READY   STATUS      RESTARTS      AGE\n"
            "vllm-server-7d9f8b6c5d-x2k4q   0/1     Completed   6 (2m ago)    14m\n")
    sections = explain(text, host="other", nodes=1)
    assert "one-shot" not in said_in_all(sections)
    assert "crash-loops" in said_in_all(sections, "fail") and "--previous" in said_in_all(sections, "fail")
    job = text.replace("vllm-server-7d9f8b6c5d-x2k4q", "bench-run-x7k2p             ")
    assert "restartPolicy OnFailure" in said_in_all(explain(job, host="other", nodes=1), "warn")


def test_a_completed_pod_with_no_restart_stays_a_one_shot():
    """Neighbour: blind batch wy007 (a MicroK8s GPU test pod on a DGX Spark, `gpu-test 0/1 Completed 0`) keeps its
    one-shot ok."""
    text = ("NAME       READY   STATUS      RESTARTS   AGE\n"
            "gpu-test   0/1     Completed   0          2m\n")
    assert "gpu-test Completed: a one-shot pod" in said_in_all(explain(text, host="spark", nodes=1), "ok")


def test_a_worker_joining_a_remote_head_on_loopback_is_a_fault():
    """Break-it 23 p19 (Ray 2.x `ray start` output, https://docs.ray.io/en/latest/cluster/cli.html#ray-start: a
    worker prints `Local node IP` and `Ray runtime started.`, never the head's join line): `ray start
    --address=192.168.100.10:6379` with `Local node IP: 127.0.0.1` advertises loopback to a head on another machine,
    even when told one machine: a warning, not a one-machine runtime."""
    text = ("$ ray start --address=192.168.100.10:6379 --num-gpus=1\nLocal node IP: 127.0.0.1\n\n--------------------\n"
            "Ray runtime started.\n--------------------\n\nTo terminate the Ray runtime, run\n  ray stop\n")
    sections = explain(text, host="spark", nodes=1)
    assert "a Ray runtime for this one machine" not in said_in_all(sections)
    assert "cannot reach its raylet or object store" in said_in_all(sections, "warn")


def test_a_head_on_loopback_told_one_machine_stays_a_note():
    """Neighbour: pending wv001 (a head on 127.0.0.1, told one machine) keeps its one-machine note."""
    said = said_in_all(explain(paste("wv001"), host="other", nodes=1), "info")
    assert "loopback address 127.0.0.1: a Ray runtime for this one machine" in said


_READY = ("INFO 06-12 10:20:11 [api_server.py:1880] Starting vLLM API server 0 on http://0.0.0.0:8000\n"
          "INFO:     Started server process [48211]\nINFO:     Waiting for application startup.\n"
          "INFO:     Application startup complete.\n")


def test_a_server_stopped_after_its_ready_line_is_not_said_to_be_up():
    """Break-it 23 p04 (Uvicorn's shutdown lines after Ctrl-C, as vLLM's API server prints them,
    https://www.uvicorn.org/deployment/): the server came up and was stopped; neither "is up" nor "the paste ends
    there"."""
    text = _READY + ("^CINFO:     Shutting down\nINFO:     Waiting for application shutdown.\n"
                     "INFO:     Application shutdown complete.\nINFO:     Finished server process [48211]\n")
    said = said_in_all(explain(text, kind="vllm-log", host="other", nodes=1))
    assert "The server is up" not in said and "ends there" not in said
    assert "was then stopped (`^CINFO: Shutting down`" in said


def test_a_hang_warning_or_a_crash_after_the_ready_line_gets_no_ends_there_clause():
    """Break-it 23 p13 (vLLM's shm_broadcast wait, 3 x 60 s after the server came up; its line as vLLM 0.11 logs it)
    and p14 (`Segmentation fault (core dumped)` after it): the clause would contradict the finding below it. The
    ready log that does end at its ready line keeps the clause (the neighbour)."""
    wait = ("(EngineCore_DP0 pid=311) INFO 11-02 14:3{m}:10 [shm_broadcast.py:466] No available shared memory broadcast "
            "block found in 60 seconds. This typically happens when some processes are hanging or doing some "
            "time-consuming work (e.g. compilation).\n")
    hang = _READY + "".join(wait.format(m=m) for m in (3, 4, 5))
    crash = _READY + "!!!!!!! Segfault encountered !!!!!!!\nSegmentation fault (core dumped)\n"
    for text in (hang, crash):
        assert "shows no request served" not in said_in_all(explain(text, kind="vllm-log", host="spark", nodes=1))
    assert "shows no request served" in said_in_all(explain(_READY, kind="vllm-log", host="spark", nodes=1), "ok")


_LOADING = ("INFO 06-12 10:14:02 [gpu_model_runner.py:1843] Starting to load model meta-llama/Llama-3.3-70B-Instruct...\n"
            "INFO 06-12 10:14:04 [weight_utils.py:296] Using model weights format ['*.safetensors']\n"
            "Loading safetensors checkpoint shards:   0% Completed | 0/30 [00:00<?, ?it/s]\n"
            "Loading safetensors checkpoint shards:   3% Completed | 1/30 [00:04<02:10,  4.51s/it]\n"
            "Loading safetensors checkpoint shards:   7% Completed | 2/30 [00:09<02:06,  4.52s/it]\n")


def test_killed_after_the_shard_bar_is_a_kill_not_a_log_that_stops():
    """Break-it 23 p03 (bash's `Killed` report of a SIGKILLed child, https://www.gnu.org/software/bash/manual/
    html_node/Job-Control-Basics.html; vLLM's shard bar): the shell's `Killed` after the bar is not glued onto the
    bar's line as a wrapped continuation: the kill is read, a fail, not "stops with no error"."""
    for end in ("Killed\n", "Segmentation fault (core dumped)\n"):
        sections = explain(_LOADING + end, host="spark", nodes=1)
        assert "with no error before it" not in said_in_all(sections), end
        assert said_in_all(sections, "fail"), end
    assert "OOM killer" in said_in_all(explain(_LOADING + "Killed\n", host="spark", nodes=1), "fail")


def test_a_log_that_stops_in_the_shard_bar_with_nothing_after_it_keeps_its_note():
    """Neighbour: the same lines with nothing after the bar (corpus zv005's reading): the info that the log stops
    while loading, no fail."""
    sections = explain(_LOADING, host="spark", nodes=1)
    assert "The log stops while vLLM loads the weights" in said_in_all(sections, "info")
    assert not said_in_all(sections, "fail")


def test_killed_after_a_workers_exception_is_not_read_as_an_oom_kill():
    """Neighbour of p03: pending wt010 (https://github.com/devopsrustem/slurmv4, SGLang PD with Mooncake: every
    scheduler raises `RuntimeError: open: Address family not supported by protocol`, the parent gets sigquit and ends
    its process tree, `Killed`): the kill follows the failure; no OOM reading. A `Killed` with no failure before it
    still fails (the OOM killer named)."""
    said = said_in_all(explain(paste("wt010"), host="other", nodes=4))
    assert "out of memory" not in said.lower() and "OOM killer" not in said
    assert "OOM killer" in said_in_all(explain("$ python train.py\nepoch 1/3\nKilled\n", host="other"), "fail")


def test_a_legacy_summary_whose_figures_disagree_with_num_prompts_is_not_said_of_them():
    """Break-it 23 p08 (vLLM 0.2's benchmark_serving.py, January 2024: `Namespace(...)` then its one-line summary,
    the shape of pending wx010, https://github.com/vllm-project/vllm/pull/2505): 0.34 req/s x 58.91 s is 20 requests,
    not the 1000 of `num_prompts=1000`: the summary is not said to be of the 1000 prompts."""
    text = ("Namespace(backend='vllm', protocol='http', host='localhost', port=8000, endpoint='/generate', model=None, "
            "dataset='ShareGPT_V3_unfiltered_cleaned_split.json', tokenizer='meta-llama/Llama-2-7b-hf', best_of=1, "
            "use_beam_search=False, num_prompts=1000, request_rate=inf, seed=0, trust_remote_code=False)\n"
            " 37%|###7      | 372/1000 [01:12<02:02,  5.13it/s]\n"
            "Total time: 58.91 s Throughput: 0.34 requests/s Average latency: 18.55 s Average latency per token: "
            "0.06 s Average latency per output token: 0.45 s\n")
    said = said_in_all(explain(text, host="other", nodes=1))
    assert "for the 1000 prompts sent" not in said and "count about 20 requests, not the 1000" in said


def test_legacy_summaries_whose_figures_agree_keep_their_reading():
    """Neighbours: corpus h020 (vllm#359: 1000 prompts, 5.99 req/s over 166.88 s) and pending wx010 (20 prompts,
    0.34 req/s over 58.91 s) are summaries of the prompts sent."""
    assert "for the 1000 prompts sent" in said_in_all(explain(paste("h020"), host="other", nodes=1), "info")
    assert "for the 20 prompts sent" in said_in_all(explain(paste("wx010"), host="other", nodes=1), "info")


def test_a_2013_process_table_in_mb_with_no_type_column_is_read():
    """Break-it 23 p15 (nvidia-smi 5.319.37, driver 319.37 of 2013: `Compute processes:`, memory in MB, no Type
    column; the GPU rows of that driver are blind batch wy005's shape): PID 31794 holding 5653 MB on GPU1 is read,
    not "the process table is not in the paste"."""
    from grader.parsers.nvidia_smi import parse_smi_table
    rows = ("+-----------------------------------------------------------------------------+\n"
            "| Compute processes:                                               GPU Memory |\n"
            "|  GPU       PID  Process name                                     Usage      |\n"
            "|=============================================================================|\n"
            "|    1     31794  /usr/bin/python                                     5653MB  |\n"
            "+-----------------------------------------------------------------------------+\n")
    procs = parse_smi_table(rows).processes
    assert [(p.gpu, p.pid, p.name, p.used_mib) for p in procs] == [(1, 31794, "/usr/bin/python", 5653)]
    table = ("| NVIDIA-SMI 5.319.37   Driver Version: 319.37         |\n"
             "|-------------------------------+----------------------+----------------------+\n"
             "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
             "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
             "|===============================+======================+======================|\n"
             "|   1  Tesla K20Xm         Off  | 0000:04:00.0     Off |                    0 |\n"
             "| N/A   35C    P0    98W / 235W |     5669MB /  5759MB |     99%   E. Process |\n"
             "+-------------------------------+----------------------+----------------------+\n\n")
    said = said_in_all(explain(table + rows, host="other", nodes=1))
    assert "process table is not in the paste" not in said and "/usr/bin/python" in said


def test_a_modern_process_row_keeps_its_type_and_mib():
    """Neighbour: the R450+ row (`|    0   N/A  N/A    6008      C   VLLM::EngineCore      56501MiB |`) keeps its type
    and memory."""
    from grader.parsers.nvidia_smi import parse_smi_table
    row = "|    0   N/A  N/A    6008      C   VLLM::EngineCore                      56501MiB |\n"
    (p,) = parse_smi_table(row).processes
    assert (p.gpu, p.pid, p.type, p.name, p.used_mib) == (0, 6008, "C", "VLLM::EngineCore", 56501)


_MLPERF = ("================================================\nMLPerf Results Summary\n"
           "================================================\nSUT name : PySUT\nScenario : Offline\n"
           "Mode     : PerformanceOnly\nSamples per second: 12.8745\nTokens per second: 3296.11\nResult is : VALID\n\n"
           "================================================\nAdditional Stats\n"
           "================================================\nMin latency (ns)                : 2712381193\n"
           "Max latency (ns)                : 1056781276563\nMean latency (ns)               : 532201413826\n"
           "50.00 percentile latency (ns)   : 535027436812\n")


def test_an_mlperf_loadgen_summary_is_not_read_as_a_vllm_benchmark_or_nvidia_smi():
    """Break-it 23 p21 (MLPerf loadgen's summary, https://github.com/mlcommons/inference/blob/master/loadgen/
    results.cc: 48-'=' rules, `Min latency (ns)  : N`): neither a vLLM benchmark that could not be read nor an
    `nvidia-smi -q` fragment."""
    from grader.parsers.bench_result import BENCH_LINE
    assert not BENCH_LINE.match("=" * 48)
    try:
        kinds = {s.kind for s in explain(_MLPERF, host="other", nodes=1)}
    except Exception as e:  # (an unknown output: the honest answer)
        assert "could not tell which command printed this" in str(e)
    else:
        assert not kinds & {"vllm-bench", "nvidia-smi-q"}, kinds


def test_vllms_own_50_rule_still_claims_a_benchmark():
    """Neighbour: vLLM's and SGLang's result block ends in 50 '=' (corpus b007, vllm#18566) and still reads."""
    from grader.parsers.bench_result import BENCH_LINE
    assert BENCH_LINE.match("=" * 50) and BENCH_LINE.match("=" * 59)
    assert "vllm-bench" in {s.kind for s in explain(paste("b007"), host="other", nodes=1)}


_IBSTATUS = ("Infiniband device 'rocep1s0f0' port 1 status:\n\tdefault gid:\t fe80:0000:0000:0000:4ebb:47ff:fe12:3456\n"
             "\tbase lid:\t 0x0\n\tsm lid:\t\t 0x0\n\tstate:\t\t 4: ACTIVE\n\tphys state:\t 5: LinkUp\n"
             "\trate:\t\t 200 Gb/sec (4X HDR)\n\tlink_layer:\t Ethernet\n")


def test_a_twin_not_shown_by_a_command_that_names_one_device_is_no_fault():
    """Break-it 23 p23 (`ibstatus <device>` prints that device only, infiniband-diags' ibstatus(8),
    https://github.com/linux-rdma/rdma-core/blob/master/infiniband-diags/scripts/ibstatus): the twin roceP2p1s0f0 is
    not in the output because the command named rocep1s0f0: no reseat/reboot warning."""
    said = said_in_all(explain("$ ibstatus rocep1s0f0\n" + _IBSTATUS, host="spark", nodes=2))
    assert "reseat" not in said and "its twin roceP2p1s0f0 is not shown" in said


def test_a_twin_missing_from_a_whole_listing_still_warns():
    """Neighbour: the same device from a bare `ibstatus` (every device listed) with its twin absent keeps the
    warning."""
    said = said_in_all(explain("$ ibstatus\n" + _IBSTATUS, host="spark", nodes=2), "warn")
    assert "its twin roceP2p1s0f0 is not listed" in said and "reseat" in said


_GROUP = ("INFO:     Started server process [21877]\nINFO:     Waiting for application startup.\n"
          "  + Exception Group Traceback (most recent call last):\n"
          '  |   File "/home/user/router/serve_router.py", line 88, in <module>\n  |     asyncio.run(main())\n'
          '  |   File "/usr/lib/python3.12/asyncio/taskgroups.py", line 145, in __aexit__\n  |     raise me from None\n'
          "  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n"
          "  +-+---------------- 1 ----------------\n    | Traceback (most recent call last):\n"
          '    |   File "/home/user/router/serve_router.py", line 61, in probe_backend\n'
          '    |     r = await client.get(f"http://{host}:8000/health")\n')
_SUB_EXC = "    | httpx.ConnectError: All connection attempts failed\n    +------------------------------------\n"


def test_an_exception_groups_sub_exception_is_its_exception_line():
    """Break-it 23 p11 (Python 3.11+'s ExceptionGroup traceback, every line under `  | ` / `    | `,
    https://docs.python.org/3/library/exceptions.html#exception-groups; httpx's ConnectError): the exception is there,
    so not "the exception it ends with is not in the text given"; it is named."""
    said = said_in_all(explain(_GROUP + _SUB_EXC, kind="vllm-log", host="other", nodes=1))
    assert "is not in the text given" not in said and "httpx.ConnectError: All connection attempts failed" in said


def test_an_exception_group_cut_before_its_sub_exception_is_still_cut():
    """Neighbour: the same traceback cut before `| httpx.ConnectError` keeps the cut-traceback warning."""
    said = said_in_all(explain(_GROUP, kind="vllm-log", host="other", nodes=1), "warn")
    assert "is not in the text given" in said


_SWEEP = ("$ python sweep.py --url http://spark-01:8000 --levels 1,4,16,64\n"
          "Concurrency | Requests | Failed | Output tok/s | Mean TTFT (ms) | P99 TTFT (ms)\n"
          "------------------------------------------------------------------------------\n"
          "1           | 32       | 0      | 41.8         | 112            | 140\n"
          "4           | 128      | 0      | 152.3        | 180            | 260\n"
          "16          | 512      | 0      | 498.7        | 420            | 910\n"
          "------------------------------------------------------------------------------\n"
          "64          | 2048     | {f}   | 611.2        | 2210           | 30012\n")


def test_a_results_tables_failed_column_is_read():
    """Break-it 23 p16 (a concurrency sweep's own table, the bare shape blind batch wx005 added; its Failed column
    counts what `vllm bench serve` prints as `Failed requests:`, https://docs.vllm.ai/en/latest/cli/bench/serve.html):
    1391 of 2048 failed at 64 is a broken run, and the growing rate there is not "the normal batching trade-off"."""
    sections = explain(_SWEEP.format(f="1391"), host="spark", nodes=1)
    assert "1391 of 2048" in said_in_all(sections, "fail")
    assert "normal batching trade-off" not in said_in_all(sections)


def test_a_results_table_with_no_failure_keeps_its_scaling_reading():
    """Neighbour: the same sweep with 0 failed everywhere: the batching reading, no failure finding."""
    sections = explain(_SWEEP.format(f="0   "), host="spark", nodes=1)
    assert "normal batching trade-off" in said_in_all(sections, "info")
    assert "counts failed requests" not in said_in_all(sections)
