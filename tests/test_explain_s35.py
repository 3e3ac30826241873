"""Session 35: readings of real outputs mended as general rules, each test naming the output it comes from."""

from __future__ import annotations


from grader.explain import explain
from tests.conftest import field_entry as corpus, levels, messages


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
    assert "4 times in a row" not in messages(s) and "waited 60 s for a worker" not in messages(s, "info")
    # (the two after the step end the paste: the hedged warning of checks/specs/serving.toml [engine] stall_open)
    assert "logged 2 times in a row" in messages(s, "warn") and "the paste ends there" in messages(s, "warn")
    [s] = explain(broken + "(EngineCore pid=2025) INFO 08-13 11:25:30 [core.py:1] step\n", host="other")
    assert "times in a row" not in messages(s) and "waited 60 s for a worker" in messages(s, "info")


# NVIDIA/nccl#676 (blind batch xd011), as posted: the HPC-X plugin turned off, then NCCL's own IB
PLUGIN_OFF = """Rank 0: Completed store-based barrier for key:store_based_barrier_key:1 with 2 nodes.

----------------------------------------------------------------------------------------------------
distributed_backend=nccl
All distributed processes registered. Starting with 2 processes
----------------------------------------------------------------------------------------------------

gpu01:351578:351578 [0] NCCL INFO Bootstrap : Using enp225s0f1:10.10.10.2<0>
gpu01:351578:351578 [0] NCCL INFO Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so
gpu01:351578:351578 [0] NCCL INFO P2P plugin IBext
gpu01:351578:351578 [0] NCCL INFO NCCL_IBEXT_DISABLE set by environment to 1.
gpu01:351578:351578 [0] NCCL INFO net.cc:55 -> 3
gpu01:351578:351578 [0] NCCL INFO NET/IB : Using [0]mlx5_9:1/RoCE [RO]; OOB enp225s0f1:10.10.10.2<0>
"""


def test_a_network_plugin_that_declines_at_load_is_no_failure_and_a_banner_of_dashes_is_no_perftest():
    """NVIDIA/nccl#676: `net.cc:55 -> 3` is NCCL's plugin loading (src/net.cc) returning the error of a plugin turned
    off (NCCL_IBEXT_DISABLE=1); NCCL then uses its own IB, as the next line says. PyTorch Lightning's banner of 100
    dashes is not perftest's (87)."""
    sections = explain(PLUGIN_OFF, host="other", nodes=2)
    assert "perftest" not in [s.kind for s in sections]
    [s] = [s for s in sections if s.kind == "nccl-log"]
    assert "`net.cc:55 -> 3` is NCCL's network-plugin loading" in messages(s, "info") and not messages(s, "fail")
    # the same chain from the net transport (transport/net.cc), with no network chosen after it, stays a failure
    failed = PLUGIN_OFF.replace("net.cc:55 -> 3", "transport/net.cc:1538 -> 3").rsplit("gpu01", 1)[0]
    [s] = [s for s in explain(failed, host="other", nodes=2) if s.kind == "nccl-log"]
    assert "transport/net.cc:1538 returned 3, internal error" in messages(s, "fail")


def test_an_nccl_ib_hca_name_nccl_did_not_use_warns():
    """NVIDIA/nccl-tests#133 (blind batch xd016): `-x NCCL_IB_HCA=mlx5_6,mlx_8` (a typo for mlx5_8), and both nodes'
    `NET/IB : Using [0]mlx5_6:1/RoCE`: one NIC where two were asked for."""
    log = ("nodea:26799:26799 [0] NCCL INFO NET/IB : Using [0]mlx5_6:1/RoCE ; OOB xgbe4:10.0.0.1<0>\n"
           "nodea:26799:26799 [0] NCCL INFO Using network IB\n")
    for text in (f"$ mpirun -np 16 -x NCCL_IB_HCA=mlx5_6,mlx_8 ./build/all_reduce_perf -b 1024 -e 1024M\n{log}",
                 "nodea:26799:26799 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_6,mlx_8\n" + log):
        warned = " ".join(messages(s, "warn") for s in explain(text, host="other", nodes=2))
        assert "NCCL_IB_HCA=mlx5_6,mlx_8 names mlx_8, which NCCL did not use" in warned, text
    for asked in ("mlx5", "mlx5_6", "^mlx5_8", "=mlx5_6:1"):  # prefixes, an exclusion, an exact name with its port
        text = f"nodea:26799:26799 [0] NCCL INFO NCCL_IB_HCA set by environment to {asked}\n" + log
        assert "did not use" not in " ".join(messages(s) for s in explain(text, host="other", nodes=2)), asked


def test_ip_o_addr_one_line_form_is_read_and_says_nothing_of_state():
    """kreuzhofer/dgx-manager's plan (blind batch xc016): `ip -o -4 addr show` on a GB10, each address on one line
    behind its interface, `\\` where `ip addr` would break the line; both twins of cage 0 in one /24. The lines show
    no state, so nothing is said to be down."""
    text = ("2: enP7s7    inet 192.168.44.36/24 brd 192.168.44.255 scope global dynamic noprefixroute enP7s7\\       "
            "valid_lft 6132sec preferred_lft 6132sec\n"
            "3: enp1s0f0np0    inet 192.168.100.10/24 brd 192.168.100.255 scope global noprefixroute enp1s0f0np0\\"
            "       valid_lft forever preferred_lft forever\n"
            "5: enP2p1s0f0np0    inet 192.168.100.30/24 brd 192.168.100.255 scope global noprefixroute "
            "enP2p1s0f0np0\\       valid_lft forever preferred_lft forever\n")
    [s] = explain(text, host="spark")
    assert s.kind == "ip-addr"
    assert "enp1s0f0np0 (192.168.100.10/24) and enP2p1s0f0np0 (192.168.100.30/24) are in the same subnet" in messages(
        s, "fail")
    assert "not their state" in messages(s, "info") and "No QSFP interface is UP" not in messages(s)


def test_no_cluster_status_is_ray_answering_before_its_monitor_published():
    """ray-project/ray#35017 (blind batch xg011): `ray status` right after `Ray runtime started.` on the head prints
    `No cluster status.`: Ray answered (it is not 'not running'); which nodes joined is not known yet, a warning."""
    text = ("$ ray start --head --port=6379\nLocal node IP: 172.31.62.187\n\n--------------------\nRay runtime "
            "started.\n--------------------\n$ ray status\nNo cluster status.\n")
    [_, s] = explain(text, host="other")
    assert s.kind == "ray-status" and "printed `No cluster status.`" in messages(s, "warn")
    assert "not running" not in messages(s)


def test_the_raylet_address_line_is_a_hedged_warning_whatever_came_after():
    """ray-project/ray#30292 (corpus zk005) and #30291 (blind batch xg012): Ray logs `... while we can not find the
    matched Raylet address` at INFO level while the node's raylet registers; readers split between a note and a
    warning (corpus l008, zv017), none called it a failure: a warning that says the paste cannot decide and what
    does (`ray status` on the head)."""
    line = ("[2022-11-15 07:03:38,731 I 28432 28432] global_state_accessor.cc:357: This node has an IP address of "
            "172.16.0.31, while we can not find the matched Raylet address. This maybe come from when you connect the "
            "Ray cluster with a different IP address or connect a container.\n")
    [s] = explain("Local node IP: 172.16.0.31\n" + line, host="other")
    assert "cannot decide" in messages(s, "warn") and "`ray status`" in messages(s, "warn") and not messages(s, "fail")


def test_gpudirect_rdma_disabled_for_a_socket_transports_interfaces_is_expected():
    """NVIDIA/nccl#1519 and #901 (blind batch xk013, xk014): `NET/FastSocket : GPU Direct RDMA Disabled for HCA 0
    'eth0'` and NET/Socket's for `lan3`: a socket transport never does GPUDirect RDMA, so no warning about
    nvidia-peermem or DMA-BUF; for an RDMA device's name it stays a warning off a Spark."""
    sock = "".join(f"node-h100-1:13878:13953 [0] NCCL INFO NET/FastSocket : GPU Direct RDMA Disabled for HCA {i} "
                   f"'eth{i}'\n" for i in range(2))
    [s] = explain(sock, host="other")
    assert "socket transport" in messages(s, "info") and "peermem" not in messages(s)
    ib = "gpu01:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'\n"
    [s] = explain(ib, host="other")
    assert "GPU Direct RDMA is disabled for mlx5_0" in messages(s, "warn")


# sgl-project/sglang PR 5571 (blind batch xg005), as posted: bench_serving's summary, 30,000-token prompts at 10 req/s
ITL_STALL = """Request throughput (req/s):              0.85
Input token throughput (tok/s):          8526.46
Output token throughput (tok/s):         426.32
Concurrency:                             48.06
---------------Time to First Token----------------
Mean TTFT (ms):                          19303.59
Median TTFT (ms):                        20385.84
P99 TTFT (ms):                           34325.18
---------------Inter-Token Latency----------------
Mean ITL (ms):                           74.63
Median ITL (ms):                         44.12
P95 ITL (ms):                            45.90
P99 ITL (ms):                            329.94
Max ITL (ms):                            31297.97
==================================================
"""


def test_a_max_itl_of_seconds_is_a_decode_stall():
    """SGLang prints `Max ITL (ms)`: 31,298 ms beside a median of 44 ms is a stream whose decode stopped for 31 s
    (checks/specs/serving.toml [load] stall_itl_ms, 10,000 ms); a max below that says nothing."""
    [s] = explain(ITL_STALL, host="other")
    assert "The longest gap between two tokens of one request was 31.3 s (Max ITL), beside a median of 44.12 ms" in \
        messages(s, "warn")
    [s] = explain(ITL_STALL.replace("31297.97", "9200.00"), host="other")
    assert "longest gap" not in messages(s)


def test_ttft_and_itl_of_zero_in_every_statistic_mean_no_token_was_timed():
    """sgl-project/sglang#9585 (blind batch xg002): bench_serving's JSON with 300 requests of 1,000 output tokens each
    and mean, median and p99 TTFT and ITL all 0.0: the client timed no token, so its latencies mean nothing."""
    result = ('{"backend": "sglang", "dataset_name": "random", "request_rate": Infinity, "max_concurrency": 16, '
              '"duration": 91.82, "completed": 300, "total_input_tokens": 75000000, "total_output_tokens": 300000, '
              '"request_throughput": 3.267, "output_throughput": 3267.09, "mean_e2e_latency_ms": 4760.2, '
              '"median_e2e_latency_ms": 4825.55, "mean_ttft_ms": 0.0, "median_ttft_ms": 0.0, "p99_ttft_ms": 0.0, '
              '"mean_tpot_ms": 4.76, "median_tpot_ms": 4.83, "p99_tpot_ms": 5.82, "mean_itl_ms": 0.0, '
              '"median_itl_ms": 0.0, "p99_itl_ms": 0.0}\n')
    [s] = explain(result, host="other")
    assert "TTFT and ITL are 0.00 ms in every statistic" in messages(s, "warn")
    timed = result.replace('"mean_itl_ms": 0.0', '"mean_itl_ms": 4.7').replace('"median_itl_ms": 0.0',
                                                                              '"median_itl_ms": 4.8')
    assert "every statistic" not in messages(explain(timed, host="other")[0])


def test_the_break_it_review_of_session_35():
    """Session 35's break-it review (helper-91; its reproducers' shapes, from the threads each names)."""
    # NVIDIA/nccl#1882: a bind failure in socket.cc (ports exhausted) ended the run; only RAS's own bind is harmless
    sock = ("gpu-node17:88213:88371 [3] misc/socket.cc:409 NCCL WARN Call to bind failed: Address already in use\n"
            "gpu-node17:88213:88371 [3] proxy.cc:1519 NCCL WARN [Proxy Service 131] Failed to execute operation "
            "Connect from rank 131, retcode 2\n")
    [s] = explain(sock, host="other", nodes=256)
    assert "RAS" not in messages(s) and "NCCL WARN: Call to bind failed" in messages(s, "fail")
    # ray-project/ray PR 19695: a check on an I/O status after a node died is not Ray's own bug
    fatal = ("(raylet) [2021-10-25 05:34:10,286 C 43098 1729504] plasma_store_provider.cc:73:  Check failed: _s.ok() "
             "Bad status: IOError: Broken pipe\n")
    said = " ".join(messages(s) for s in explain(fatal, host="other"))
    assert "aborted on a fatal check in plasma_store_provider.cc" in said and "bug in Ray" not in said
    # vllm#46367: four wait lines during a warm-up, then the server started: not a stuck worker
    wait = ("(EngineCore pid=1240) INFO 06-22 11:{}:34 [shm_broadcast.py:705] No available shared memory broadcast "
            "block found in 60 seconds.\n")
    started = "".join(wait.format(19 + i) for i in range(4)) + "(APIServer pid=1) INFO:     Application startup complete.\n"
    assert "in a row" not in " ".join(messages(s) for s in explain(started, host="other", nodes=1))
    # vllm-omni#2928's shape: the wait lines between engine stats of no tokens are one stall
    stats = ("(APIServer pid=1) INFO 06-22 11:{}:40 [loggers.py:1] Engine 000: Avg prompt throughput: 0.0 tokens/s, "
             "Avg generation throughput: 0.0 tokens/s, Running: 4 reqs, Waiting: 0 reqs\n")
    hung = "".join(wait.format(19 + i) + stats.format(19 + i) for i in range(4))
    assert "logged 4 times in a row" in " ".join(messages(s, "warn") for s in explain(hung, host="other"))
    # a sweep that starts over (`-o all`), and one side's outlier, are no dip
    row = "{:>12} {:>12}     float     sum      -1    1000.0  {a:6.2f}  {b:6.2f}      0    1000.0  {a:6.2f}  {c:6.2f}      0\n"
    sizes = [2**k for k in range(23, 30)]
    table = "".join(row.format(n, n // 4, a=bw / 2, b=bw, c=bw) for n, bw in zip(sizes, (150, 200, 250, 300, 330, 360,
                                                                                         385)))
    assert "dips" not in messages(explain(table + table, host="other", nodes=2)[0])
    odd = table.replace(row.format(2**26, 2**24, a=150.0, b=300, c=300), row.format(2**26, 2**24, a=150.0, b=100, c=300))
    assert odd != table and "dips" not in messages(explain(odd, host="other", nodes=2)[0])
    # a Spark's run of another model than the desktop range's (FP8, not AWQ) is not held to that range
    bench = ("============ Serving Benchmark Result ============\nSuccessful requests:                     10\n"
             "Benchmark duration (s):                  200.0\nTotal input tokens:                      10240\n"
             "Total generated tokens:                  1280\nOutput token throughput (tok/s):         7.4\n"
             "Mean TTFT (ms):                          900.0\nMedian TTFT (ms):                        900.0\n"
             "P99 TTFT (ms):                           950.0\nMean TPOT (ms):                          135.0\n"
             "Median TPOT (ms):                        135.0\nP99 TPOT (ms):                           140.0\n"
             "==================================================\n")
    cmd = "$ vllm bench serve --model meta-llama/Meta-Llama-3-70B-Instruct-FP8 --max-concurrency 1\n"
    [s] = explain(cmd + bench, host="spark", nodes=2)
    assert "very slow" not in messages(s) and "dual-gpu-desktop" not in messages(s)
    # a device NCCL_IB uses under another name is RDMA, whatever its name; an unexpanded NCCL_IB_HCA names nothing
    gdr = ("n1:1:1 [0] NCCL INFO NET/IB : Using [0]roces2f0:1/RoCE ; OOB eth0:10.0.0.1<0>\n"
           "n1:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'roces2f0'\n")
    [s] = explain(gdr, host="other", nodes=2)
    assert "GPU Direct RDMA is disabled for roces2f0" in messages(s, "warn") and "socket transport" not in messages(s)
    [s] = explain("$ mpirun -np 2 -x NCCL_IB_HCA=$NCCL_HCAS ./all_reduce_perf\n" + gdr, host="other", nodes=2)
    assert "did not use" not in messages(s)
    # `ray status` quoted, and in current Ray's words: still Ray answering before its status is published
    for text in ("$ ray status\n> No cluster status.\n", "$ ray status\nNo cluster status. It may take a few seconds "
                 "for the Ray internal services to start up.\n"):
        [s] = explain(text, host="spark")
        assert "printed `No cluster status.`" in messages(s, "warn") and "not running" not in messages(s), text
    # what `vllm bench serve` itself prints when its first request fails
    failed = ("Starting initial single prompt test run...\nValueError: Initial test run failed - Please make sure "
              "benchmark arguments are correctly specified. Error: Not Found\n")
    said = " ".join(messages(s, "fail") for s in explain(failed, host="other"))
    assert "The benchmark's first request failed (error Not Found)" in said


def test_more_of_session_35s_blind_batches():
    """esnet/iperf#781 (blind batch xo015): the server's `local A port 50000 connected to A port 47408`: the client
    ran on the same machine, so 48 Gbit/s on a gigabit NIC measured no link. ray-project/ray on a Mac pair (xp019):
    `ray status` cut inside its node list cannot say a node is missing. vllm#16011's shape (xo011): TP beyond a
    node's GPUs is not called harmless 'on two Sparks' off a Spark."""
    iperf = ("$ iperf3 -s -p 50000\n-----------------------------------------------------------\nServer listening on "
             "50000\n-----------------------------------------------------------\nAccepted connection from "
             "192.168.110.146, port 47406\n[  5] local 192.168.110.146 port 50000 connected to 192.168.110.146 port "
             "47408\n[ ID] Interval           Transfer     Bitrate\n[  5]   0.00-10.00  sec  56.0 GBytes  48.1 "
             "Gbits/sec                  receiver\n")
    [s] = explain(iperf, host="other")
    assert "connected 192.168.110.146 to itself" in messages(s, "warn")
    assert "to itself" not in messages(explain(iperf.replace("connected to 192.168.110.146", "connected to "
                                                             "192.168.110.147"), host="other")[0])
    cut = ("$ ray status\n======== Autoscaler status: 2026-01-10 19:07:50.741894 ========\nNode status\n"
           "---------------------------------------------------------------\nActive:\n 1 node_26f405e3590d4f0b3ddfda2a2\n")
    [s] = explain(cut, host="other", nodes=2)
    assert "stops inside its node list" in messages(s, "info") and not messages(s, "fail")
    tp = ("(EngineCore_DP0 pid=148) WARNING 01-15 16:55:27 [ray_utils.py:331] Tensor parallel size (2) exceeds "
          "available GPUs (1). This may result in Ray placement group allocation failures.\n")
    assert "Sparks" not in " ".join(messages(s) for s in explain(tp, host="other", nodes=2))
    assert "On two Sparks" in " ".join(messages(s) for s in explain(tp, host="spark", nodes=2))


def test_an_error_printed_just_above_a_cut_traceback_is_the_error():
    """exo-explore/exo (blind batch xo001): exo logs `Error processing tensor ... CUDA Error 2, out of memory`, then
    the traceback it caught, cut before its exception line: that line is the error (a failure), not a missing one.
    A caption above it (`Full exception:`, corpus t006) is no error line."""
    tb = ("Traceback (most recent call last):\n  File \"/home/x/penv/lib/python3.12/site-packages/tinygrad/device.py\", "
          "line 152, in alloc\n    try: return super().alloc(size, options)\n")
    above = ("Error processing tensor for shard Shard(model_id='m', start_layer=0, end_layer=31, n_layers=32): CUDA "
             "Error 2, out of memory\n")
    said = " ".join(messages(s, "fail") for s in explain(above + tb, host="other"))
    assert "printed an error just above its traceback: `Error processing tensor" in said
    said = " ".join(messages(s) for s in explain("Full exception:\n" + tb, host="other"))
    assert "just above" not in said and "cut before its exception line" in said
