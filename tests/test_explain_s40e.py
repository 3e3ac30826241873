"""Session 40, fixer E (issue 27): the wrong readings break-it review 22 found in rules added that day, each on the
probe's lines (quoted: the probes are not in the repo) and on a neighbour that must keep its old reading."""

from __future__ import annotations

from grader.explain import explain
from tests.conftest import said_in_all

_C10D_FAIL = ("[W427 01:04:{s}.149509694 socket.cpp:752] [c10d] The client socket has failed to connect to "
              "[{a}]:29500 (errno: 110 - Connection timed out).\n")


def test_c10d_timeouts_then_nccl_initialised_and_steps_are_a_passing_delay():
    """Break-it p03 (failed-attempt lines' real shape: gensyn-ai/rl-swarm#197; PyTorch's socket.cpp logs the success
    line with C10D_INFO, hidden at the default log level): two timed-out attempts at spark1:29500, then NCCL `Init
    COMPLETE` and the training steps, which need the store: a note, not `could not reach`."""
    text = ("$ torchrun --nnodes 2 --nproc_per_node 1 --node_rank 1 --master_addr spark1 --master_port 29500 train.py\n"
            + _C10D_FAIL.format(s="16", a="spark1") + _C10D_FAIL.format(s="36", a="spark1")
            + "spark2:2211:2211 [0] NCCL INFO Bootstrap : Using enp1s0f0np0:192.168.100.12<0>\n"
            "spark2:2211:2211 [0] NCCL INFO ncclCommInitRankConfig comm 0xaaab1e2c4d50 rank 1 nranks 2 cudaDev 0 "
            "nvmlDev 0 busId f01000 commId 0x5d3b2c1e4f9a8b7c - Init COMPLETE\n"
            "[rank1]: step 1/1000 loss 2.3021\n[rank1]: step 2/1000 loss 2.2874\n")
    sections = explain(text, host="other")
    assert "rendezvous store" not in said_in_all(sections, "warn")
    assert "One attempt of this process" in said_in_all(sections, "info")
    steps_only = text.replace(text[text.index("spark2:2211"):text.index("[rank1]")], "")
    assert "rendezvous store" not in said_in_all(explain(steps_only, host="other"), "warn")


def test_c10d_timeouts_in_one_nodes_log_are_not_undone_by_another_nodes_connection():
    """Break-it p26 (tail's `==> file <==` headers): node1 connected to 10.0.0.1:29500, node2 timed out three times
    on 172.17.0.1:29500 (docker's bridge) and shows nothing after: node2 never reached the store, the warning."""
    text = ("==> node1.log <==\n[I1007 10:00:01.201345 socket.cpp:944] [c10d] The client socket has connected to "
            "[10.0.0.1]:29500 on [10.0.0.2]:51872.\nnode1:4410:4410 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>\n"
            "\n==> node2.log <==\n" + "".join(_C10D_FAIL.format(s=s, a="172.17.0.1") for s in ("21", "41", "59")))
    said = said_in_all(explain(text, host="other"), "warn")
    assert "could not reach the rendezvous store" in said and "nc -zv 172.17.0.1 29500" in said
    # the neighbour: node2's own log going on to NCCL's Init COMPLETE after its attempts reads as the delay
    later = text + ("node2:5120:5120 [0] NCCL INFO ncclCommInitRank comm 0x55d1 rank 1 nranks 2 cudaDev 0 busId 1000 "
                    "commId 0x1 - Init COMPLETE\n")
    assert "rendezvous store" not in said_in_all(explain(later, host="other"), "warn")
    # a connection to another address after the failures is not this one reached
    other = "".join(_C10D_FAIL.format(s=s, a="172.17.0.1") for s in ("21", "41")) + (
        "[I1007 10:00:01.201345 socket.cpp:944] [c10d] The client socket has connected to [10.0.0.1]:29500 on "
        "[10.0.0.2]:51872.\n")
    assert "could not reach the rendezvous store" in said_in_all(explain(other, host="other"), "warn")


def test_a_dockerfiles_backslash_with_blanks_after_it_is_no_warning():
    """Break-it p04: `cat Dockerfile` with `ENV NCCL_DEBUG=INFO \\ ` (a blank after the backslash). Docker's parser
    takes a backslash followed by blanks as a continuation (https://github.com/moby/buildkit
    frontend/dockerfile/parser: lineContinuationRegex `\\\\[ \\t]*$`), and `docker run ... env` shows the variables set."""
    text = ("$ cat Dockerfile\nFROM nvcr.io/nvidia/vllm:25.09-py3\nENV NCCL_DEBUG=INFO \\ \n"
            "    NCCL_SOCKET_IFNAME=enp1s0f0np0 \\\n    NCCL_IB_HCA=rocep1s0f0,roceP2p1s0f0 \\\n"
            "    VLLM_HOST_IP=192.168.100.11\nRUN pip install --no-cache-dir \\ \n    ray[default]==2.49.1\n")
    assert "after its backslash" not in said_in_all(explain(text, host="spark"))
    # the neighbour: the same variables on a shell's `docker run` line still break there
    shell = ("$ docker run --gpus all -e NCCL_DEBUG=INFO \\ \n    -e NCCL_SOCKET_IFNAME=enp1s0f0np0 \\\n"
             "    vllm-spark vllm serve Qwen/Qwen3-8B\n" + _P05[_P05.index("INFO 09-12"):])
    assert "`$ docker run --gpus all -e NCCL_DEBUG=INFO \\ ` has a space" in said_in_all(explain(shell, host="spark"))


_P05 = ("$ vllm serve Qwen/Qwen3-8B \\\n    --tensor-parallel-size 1 \\ \n    --max-model-len 32768 \\\n"
        "    --gpu-memory-utilization 0.85 \\\n    --port 8000\n"
        "INFO 09-12 10:01:02 [__init__.py:216] Automatically detected platform cuda.\n"
        "(APIServer pid=4121) INFO 09-12 10:01:05 [api_server.py:1896] vLLM API server version 0.10.2\n"
        "(APIServer pid=4121) INFO 09-12 10:01:05 [utils.py:328] non-default args: {'model_tag': 'Qwen/Qwen3-8B', "
        "'model': 'Qwen/Qwen3-8B', 'max_model_len': 32768, 'gpu_memory_utilization': 0.85}\n"
        "(APIServer pid=4121) INFO 09-12 10:02:41 [api_server.py:1971] Starting vLLM API server 0 on "
        "http://0.0.0.0:8000\n(APIServer pid=4121) INFO:     Application startup complete.\n")


def test_a_trailing_space_after_a_backslash_is_no_warning_where_the_program_echoes_the_options_below():
    """Break-it p05 (vLLM 0.10.2's `non-default args:` line, as printed by vllm/entrypoints/utils.py): the line
    `--tensor-parallel-size 1 \\ ` has a space after its backslash, yet vLLM's own echo holds `'max_model_len': 32768`
    and `'gpu_memory_utilization': 0.85`, the options below it: they arrived, the space is the copy's."""
    assert "after its backslash" not in said_in_all(explain(_P05, host="spark"))
    # the neighbour: an echo with other values than the lines below (the options did not arrive) keeps the warning
    lost = _P05.replace("'max_model_len': 32768, 'gpu_memory_utilization': 0.85", "'enforce_eager': True")
    assert "`--tensor-parallel-size 1 \\ ` has a space after its backslash" in said_in_all(explain(lost, host="spark"),
                                                                                          "warn")


_NT_ROW = ("   134217728      33554432     float     sum      -1    673.4  199.31  348.80      0    672.8  199.49  "
           "349.11      0\n# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 309.56 \n")


def test_nccl_tests_aggregated_and_graph_launched_operations_count_as_iterations():
    """Break-it p09 (`-n 1 -m 50`, header `iters: 1 agg iters: 50`) and p20 (header `iters: 1 agg iters: 1 ...
    graph: 100`): nccl-tests (https://github.com/NVIDIA/nccl-tests, src/common.cu) times iters x agg_iters operations,
    x the graph launches with -G, and divides: 50 and 100 samples per row, not one."""
    head = "# nThread 1 nGpus 8 minBytes 8388608 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 1 "
    agg = ("$ ./build/all_reduce_perf -b 8M -e 1G -f 2 -g 8 -n 1 -m 50\n" + head
           + "agg iters: 50 validation: 1 graph: 0\n#\n" + _NT_ROW)
    graph = head + "agg iters: 1 validation: 1 graph: 100\n#\n" + _NT_ROW
    for text in (agg, graph):
        assert "timed each size over" not in said_in_all(explain(text, host="other"))
    # the neighbour: `-n 1 -m 1` (and its header) is still one sample
    one = agg.replace("-m 50", "-m 1").replace("agg iters: 50", "agg iters: 1")
    assert "timed each size over 1 iteration (`-n 1`" in said_in_all(explain(one, host="other"), "info")


def test_ucc_perftest_is_not_nccl_tests():
    """Break-it p24 (UCC's perftest, https://github.com/openucx/ucc tools/perf: `-n` its iterations, default 100):
    `ucc_perftest ... -n 4` is not an nccl-tests run; `all_reduce_perf -n 4` is."""
    cmd = "$ mpirun -np 2 -H spark1,spark2 /opt/hpcx/ucc/bin/ucc_perftest -c allreduce -b 1M -e 64M -m cuda -n 4 -w 2\n"
    out = ("Collective:             Allreduce\nMemory type:            cuda\nIterations:\n  small                 4\n"
           "  large                 4\n")
    assert "nccl-tests timed" not in said_in_all(explain(cmd + out, host="spark", nodes=2))
    nccl = "$ mpirun -np 2 -H spark1,spark2 ./build/all_reduce_perf -b 1M -e 64M -n 4\n" + _NT_ROW
    assert "timed each size over 4 iterations" in said_in_all(explain(nccl, host="spark", nodes=2), "info")


_SGL_DECODE = ("[2025-10-21 09:14:5{s} DP0 TP0] Decode batch. #running-req: {n}, #token: 41872, token usage: 0.09, "
               "pre-allocated usage: 0.00, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 612.44, "
               "#queue-req: 0, \n")
_SGL_FAILED = ("[2025-10-21 09:14:56 DP0 TP0] Decode transfer failed for request rank=0 decode_req.req.rid='5f2d0a8c41b94c3"
               "b9e7d0d3a6f1e2c44' decode_req.req.bootstrap_room=4471929934409128371 with exception KVTransferError("
               "bootstrap_room=4471929934409128371): {why}\n")


def test_sglang_kv_transfer_aborted_by_abortreq_is_the_request_cancelled_not_a_failed_transfer():
    """Break-it p28 (SGLang's decode log; https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/
    disaggregation/mooncake/conn.py: the receiver's abort() records `Aborted by AbortReq.`): the request was cancelled
    while its KV was in flight, and the decode batches go on: a note, not a failed transfer."""
    text = (_SGL_DECODE.format(s="5", n=12) + _SGL_FAILED.format(why="Aborted by AbortReq.")
            + _SGL_DECODE.format(s="7", n=11))
    sections = explain(text, host="other")
    assert "could not move a request's KV cache" not in said_in_all(sections)
    assert not said_in_all(sections, "fail") and not said_in_all(sections, "warn")
    assert "`Aborted by AbortReq` is SGLang's reason when the request is cancelled" in said_in_all(sections, "info")
    # the neighbour: sglang#37022's decode side, `it might be dead`, is still the failed transfer
    dead = text.replace("Aborted by AbortReq.", "Failed to get kvcache from prefill instance, it might be dead")
    assert "could not move a request's KV cache" in said_in_all(explain(dead, host="other"), "fail")


_DMON = ("$ nvidia-smi dmon -c 5\n# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk \n"
         "# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz \n"
         "    0    689     74     79    100      1      0      0      0      0   2619   1755 \n"
         "    0    695     75     80    100      1      0      0      0      0   2619   1740 \n"
         "    0    700     76     81    100      0      0      0      0      0   2619   1710 \n")
_SMI_CAP = ("$ nvidia-smi\n| N/A   74C    P0   689W / 700W |  79000MiB / 81559MiB |    100%      Default |\n")


def _dmon_said(text: str, level: str | None = None) -> str:
    return said_in_all([s for s in explain(text, host="other") if s.kind == "nvidia-smi"], level).strip()


def test_dmon_busy_sms_near_the_power_cap_are_computing_not_polling():
    """Break-it p07 (dmon's default columns; https://docs.nvidia.com/deploy/nvidia-smi/index.html): SM 100%, memory
    0-1%, 689-700 W: on a 700 W H100 SXM that is the SMs computing flat out on cached data, not an NCCL kernel
    polling (cupy#3557, nccl#968: blocked GPUs read 100% busy at low power). Without the cap in the paste: no warn,
    the power limit named as what decides; with it (nvidia-smi's `689W / 700W`): said computing."""
    assert not _dmon_said(_DMON, "warn") and "The card's power limit decides" in _dmon_said(_DMON, "info")
    capped = _DMON + _SMI_CAP
    assert not _dmon_said(capped, "warn") and "near the card's 700 W power cap" in _dmon_said(capped, "info")
    # the neighbour: the same rows at 120-130 W of that 700 W cap are the polling warning
    low = capped.replace("    689 ", "    120 ").replace("    695 ", "    125 ").replace("    700 ", "    130 ")
    said = _dmon_said(low, "warn")
    assert "polling" in said and "power 120-130 W of a 700 W cap" in said


_P16 = ("$ vllm bench serve --model Qwen/Qwen3-8B --dataset-name random --random-input-len 1024 --random-output-len 2048 "
        "--num-prompts 100 --request-rate 10 --ignore-eos\nTraffic request rate: 10.0\nMaximum request concurrency: None\n"
        "============ Serving Benchmark Result ============\nSuccessful requests:                     100       \n"
        "Failed requests:                         0         \nRequest rate configured (RPS):           10.00     \n"
        "Benchmark duration (s):                  72.31     \nTotal input tokens:                      102400    \n"
        "Total generated tokens:                  204800    \nRequest throughput (req/s):              1.38      \n"
        "Output token throughput (tok/s):         2832.23   \nPeak output token throughput (tok/s):    3300.00   \n"
        "Peak concurrent requests:                100.00    \nTotal Token throughput (tok/s):          4248.35   \n"
        "---------------Time to First Token----------------\nMean TTFT (ms):                          182.44    \n"
        "Median TTFT (ms):                        160.12    \nP99 TTFT (ms):                           402.55    \n"
        "-----Time per Output Token (excl. 1st token)------\nMean TPOT (ms):                          30.12     \n"
        "Median TPOT (ms):                        30.05     \nP99 TPOT (ms):                           33.90     \n"
        "==================================================\n")


def test_arrivals_that_ended_early_are_no_light_load_where_all_the_requests_were_in_flight_at_once():
    """Break-it p16 (`vllm bench serve` 0.10's summary, vllm/benchmarks/serve.py: `Peak concurrent requests`): 100
    prompts at 10/s, each 2,048 tokens x 30 ms long, all 100 in flight together: the arrivals ended early and the run
    is the tail of long requests, a heavy batch, not a light load. Without the peak line, Little's law (1.38/s x ~62 s
    a request) says the same."""
    said = said_in_all(explain(_P16, host="other"), "info")
    assert "offered at 10/s and completed at 1.38/s" in said and "up to 100 at once (`Peak concurrent requests`)" in said
    assert "light load," not in said and "not of a light load" in said
    no_peak = _P16.replace("Peak concurrent requests:                100.00    \n", "")
    assert "about 85.3 at once on average" in said_in_all(explain(no_peak, host="other"), "info")
    # the neighbour: a few requests at once (a long one stretching the run) is still the light load
    few = _P16.replace("Peak concurrent requests:                100.00", "Peak concurrent requests:                5.00")
    assert "a light load, where two setups" in said_in_all(explain(few, host="other"), "info")


def test_glued_vllm_stats_records_with_their_process_prefix_are_split():
    """Break-it p18 (vLLM 0.10.2's `(APIServer pid=1) ` prefix before each record, vllm/v1/metrics/loggers.py's stats
    line; vllm-project/vllm#18115 shows such records run together on one line): three records glued, the last one
    idle (Running: 0 reqs, 0.0 tokens/s): the last engine stats are the last record's."""
    rec = ("(APIServer pid=1) INFO 09-12 10:05:{s} [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg "
           "generation throughput: {g} tokens/s, Running: {r} reqs, Waiting: 0 reqs, GPU KV cache usage: {k}%, Prefix "
           "cache hit rate: 0.0%")
    head = ("(APIServer pid=1) INFO 09-12 10:02:41 [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8000\n"
            "(APIServer pid=1) INFO:     Application startup complete.\n")
    glued = head + rec.format(s="01", g="38.1", r=1, k="0.4") + rec.format(s="11", g="38.0", r=1, k="0.5") + rec.format(
        s="21", g="0.0", r=0, k="0.0") + "\n"
    said = said_in_all(explain(glued, host="other"), "info")
    assert "Last engine stats: 0 running, 0 waiting" in said and "generation 38.1" not in said
    # the neighbour: the same records on lines of their own read the same; one record alone is its own figures
    apart = glued.replace("%(APIServer", "%\n(APIServer")
    assert "Last engine stats: 0 running, 0 waiting" in said_in_all(explain(apart, host="other"), "info")
    one = head + rec.format(s="01", g="38.1", r=1, k="0.4") + "\n"
    assert "Last engine stats: 1 running, 0 waiting" in said_in_all(explain(one, host="other"), "info")


def test_dmon_with_only_a_time_or_a_date_column_is_read():
    """Break-it p08 (`nvidia-smi dmon -s pu -o T`: a `#Time` column alone before gpu; `-o D` a `#Date` one;
    https://docs.nvidia.com/deploy/nvidia-smi/index.html, dmon's -o D|T): the rows are read, not an error."""
    text = ("$ nvidia-smi dmon -s pu -o T -c 3\n#Time        gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    "
            "ofa \n#HH:MM:SS    Idx      W      C      C      %      %      %      %      %      % \n"
            " 10:31:42      0    121     45     52     99      0      0      0      0      0 \n"
            " 10:31:43      0    121     45     52     99      0      0      0      0      0 \n"
            " 10:31:44      0    122     45     52    100      0      0      0      0      0 \n")
    for t in (text, text.replace("-o T", "-o D").replace("#Time    ", "#Date    ").replace("#HH:MM:SS", "#YYYYMMDD")
              .replace(" 10:31:4", " 2025101")):
        [s] = [x for x in explain(t, host="other") if x.kind == "nvidia-smi"]
        assert not s.error and "nvidia-smi dmon: GPU0 (3 samples): SM 99-100%, memory 0%, power 121-122 W" in said_in_all([s])
    # the neighbour: `-o DT` (date and time) is read as before
    dt = text.replace("-o T", "-o DT").replace("#Time       ", "#Date       Time").replace(" 10:31:4", " 20251007 10:31:4")
    [s] = [x for x in explain(dt, host="other") if x.kind == "nvidia-smi"]
    assert "GPU0 (3 samples): SM 99-100%" in said_in_all([s])


def test_sglangs_own_mean_concurrency_counts_as_requests_in_flight():
    """SGLang's bench_serving prints `Concurrency:` (the mean number of requests in flight, python/sglang/bench_serving.py)
    beside `Traffic request rate`: 38.5 at once on average is no light load, and is named as the tool's figure."""
    sgl = (_P16.replace("Peak concurrent requests:                100.00    \n", "Concurrency:                             38.50"
                        "     \n").replace("Request rate configured (RPS):           10.00     \n", ""))
    said = said_in_all(explain(sgl, host="other"), "info")
    assert "about 38.5 at once on average (the tool's `Concurrency`)" in said and "a light load, where" not in said
