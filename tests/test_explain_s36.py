"""Session 36: readings of real outputs mended as general rules, each test naming the output it comes from."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.explain import explain
from grader.parsers.common import clean_lines
from grader.parsers.common.labelled import host_groups
from tests.conftest import field_entry as corpus, levels, messages

REAL = Path(__file__).parent / "fixtures" / "real" / "spark"


def _real_lines(name: str) -> list[str]:
    return [x for x in (REAL / name).read_text().splitlines() if not x.startswith("#")]


def test_lines_labelled_by_machine_are_read_as_each_machines_output():
    """pdsh prints every line behind the name of the machine that printed it. The oshlabs guide's `ip -br addr` of a
    Spark (tests/fixtures/real/spark/11), run with pdsh on two Sparks (the second's addresses moved on by one), is two
    outputs, one per machine, compared as two machines' are; the lines of each machine, interleaved as pdsh prints
    them, are put back together."""
    a = [x for x in _real_lines("11_ip_br_addr_ibdev2netdev_jumbo_ping_oshlabs.txt")[:5]]
    b = [x.replace("172.31.5.1/", "172.31.5.2/").replace("172.31.5.9/", "172.31.5.10/") for x in a]
    lines = ["$ pdsh -w spark-a,spark-b ip -br addr"]
    for x, y in zip(a, b):  # interleaved
        lines += [f"spark-a: {x}", f"spark-b: {y}"]
    sections = explain("\n".join(lines) + "\n", host="spark")
    assert [(s.kind, s.host) for s in sections] == [("ip-addr", "spark-a"), ("ip-addr", "spark-b")]
    assert "enp1s0f0np0 has 172.31.5.1/29." in messages(sections[0])
    assert "enp1s0f0np0 has 172.31.5.2/29." in messages(sections[1])
    assert "172.31.5.1/29 on spark-a and 172.31.5.2/29 on spark-b share a subnet" in messages(sections[1])


def test_a_pdsh_nccl_log_and_a_terraform_provisioner_are_split_by_machine():
    """Pending xp001 (NVIDIA/nccl#1029: pdsh over two pods, worker-1's CUDA initialisation error) is two machines'
    outputs; pending xp004 (ray-project/ray#8472: `ray start --head` run by Terraform's remote-exec, every line behind
    `null_resource.head_node (remote-exec): `) is Ray's start read as it is, Terraform's own progress line dropped."""
    groups = host_groups(clean_lines(corpus("xp001")))
    assert [(host, len(rows)) for host, rows in groups] == [("rdma-test-gpu-worker-0", 9), ("rdma-test-gpu-worker-1", 19)]
    [s] = explain(corpus("xp004"), host="other")  # Ray 0.8's words: `Using IP address`, `Started Ray on this node.`
    assert (s.kind, s.host, s.error) == ("ray-start", "null_resource.head_node", None)
    assert "Ray runtime started (head) on node IP 203.0.113.65" in messages(s, "ok") and "fail" not in levels(s)


@pytest.mark.parametrize("prefix", ["zu015", "yz009", "zn007", "xj006", "zt007", "zc012", "xk012", "zs001", "zh010",
                                    "xh011", "zk008", "o010"])
def test_a_programs_own_name_in_front_of_its_lines_is_no_machine(prefix):
    """Real pastes whose lines start with a word and `: ` that is no machine's name: llama.cpp's function names
    (zu015, yz009), ping's and sockperf's own (zn007, xj006), libibverbs' warnings (zt007), `ip -o link`'s indexes
    (zc012), the kernel's and NVRM's tags (xk012, zs001), an environment report's keys (zh010), nmcli's terse `E:`
    (xh011), slurmstepd's (zk008), `ethtool -i`'s keys (o010)."""
    assert host_groups(clean_lines(corpus(prefix))) is None


def test_gloos_loopback_in_groups_of_one_rank_is_harmless():
    """Pending xn019 (vllm-project/vllm#25771): Gloo fell back to the loopback, and every Gloo group it then formed
    expected 0 peers (`Expected number of connected peer ranks is : 0`): groups of one rank, which the loopback serves;
    a note, not the warning it is where ranks of other machines must connect."""
    [s] = explain(corpus("xn019"))
    assert set(levels(s)) == {"info"} and "each Gloo group has one rank" in messages(s, "info")
    several = corpus("xn019").replace("is : 0", "is : 1").replace("connected to 0 peer", "connected to 1 peer")
    assert "warn" in levels(explain(several)[0])


def test_a_known_fault_the_nccl_reader_did_not_know_is_not_told_no_error():
    """Corpus zb004 (NVIDIA/nccl#2334, four GB10 over two RoCE rails): NCCL's IB transport got a completion for a CTS
    with no request in use, an NCCL bug that hangs the ranks. The line is no `NCCL WARN`, so the NCCL log's reader saw
    no error; the catalogue does, and the reader's `No error in these lines` is not said beside it. NCCL logs the line
    at INFO and goes on, so it is a warning: the hang is the issue's, not this paste's."""
    [s] = explain(corpus("zb004"), host="spark", nodes=4)
    assert "a fault in NCCL's own bookkeeping, not in the link" in messages(s, "warn")
    assert "No error in these lines" not in messages(s)


def test_status_12_says_lost_packets_where_data_had_moved_and_the_mtu_mismatch_is_named():
    """Pending xd015 (NVIDIA/nccl#1698: status 12 now and then in runs that had worked) and xh018 (NVIDIA/nccl#1524:
    a local access violation, the two servers' MTUs differing): status 12 names lost packets beside set-up causes; the
    local access violation names the MTU the two ends must share."""
    [s] = explain(corpus("xd015"), host="other", nodes=2)
    assert "packets were lost on the way instead" in messages(s, "fail")
    [s, *_] = explain(corpus("xh018"), host="other", nodes=2)
    assert "an MTU that differs between them" in messages(s, "fail")


def test_perftest_errors_after_the_first_follow_from_it():
    """Pending xj002 (linux-rdma/perftest#139, irdma) and zt011 (ibv_query_device failing on a new kernel): the first
    error line gets its cause (the queue pair's capabilities; user space against the kernel's driver), the lines under
    it are what followed; pending xj015: perftest's CPU clock check pasted alone is read, bandwidth unaffected."""
    [s] = explain(corpus("xj002"), host="other", nodes=1)
    assert messages(s, "fail").count("perftest reported") == 1 and "the inline size (-I" in messages(s, "fail")
    assert "Then, following from it: `Failed to create QP.`, `Couldn't create IB resources`." in messages(s, "info")
    s = explain(corpus("zt011"), host="other", nodes=1)[0]
    assert "does not match the kernel's RDMA driver" in messages(s, "fail")
    [s] = explain(corpus("xj015"))
    assert set(levels(s)) == {"info"} and "bandwidth figures are unaffected" in messages(s)


def test_a_load_tests_failed_request_is_the_clients_error_not_a_launch_failure():
    """Pending xm016 (one Spark, vllm bench serve of 250 ShareGPT requests): the client printed the failed request's
    traceback under `Failed requests during benchmark run detected`, ending in aiohttp's ServerDisconnectedError. It is
    the load test's own output (no `launch failed` section), and its error is said with what it means."""
    sections = explain(corpus("xm016"), host="spark", nodes=1)
    assert [s.kind for s in sections if s.kind] == ["vllm-bench"]
    [bench] = [s for s in sections if s.kind == "vllm-bench"]
    assert "1 of 250 requests failed" in messages(bench, "warn")  # a few: the run stands (serving.toml failed_share_warn)
    assert "`aiohttp.client_exceptions.ServerDisconnectedError: Server disconnected`: the server closed the " \
           "connection during the request" in messages(bench, "info")
    assert "launch failed" not in " ".join(messages(s) for s in sections)


def test_load_test_latencies_the_client_could_not_have_measured():
    """SGLang's bench_serving summaries (pending xa008, sgl-project/sglang#6525: 0 tokens re-tokenized of 51,200 the
    server counted, so no token was timed; xa004, #7979: `--disable-stream`, TTFT 37,300.18 ms against E2E 37,300.16 ms,
    the answers whole; xg003, #7762: `Concurrency: 5.16` against a cap of 64 with 256 requests offered at 64/s, so the
    requests ran a few at a time). TTFT a hair above E2E there is rounding, not an impossible file."""
    [s] = explain(corpus("xa008"), host="other", nodes=1)
    assert "re-tokenized 0 of the 51,200 tokens the server counted" in messages(s, "warn")
    [s] = explain(corpus("xa004"))
    assert "TTFT is the end-to-end latency (37,300 against 37,300 ms, mean)" in messages(s, "info")
    assert "fail" not in levels(s)
    [s] = explain(corpus("xg003"), host="other", nodes=1)
    assert "On average 5.16 requests were in flight, though up to 64 were allowed" in messages(s, "warn")


def test_an_nccl_error_chain_names_where_it_failed():
    """Pending xc015 (four Sparks through a mesh plugin: `transport/net.cc:1538 -> 3`, `proxy.cc:974 -> 3 [Progress
    Thread]`, pasted without NCCL's prefixes) and xp015 (NVIDIA/nccl-tests#231: every rank's chain through socket.cc
    and bootstrap.cc): read as NCCL's, the first failed in the proxy's progress thread, the second in the bootstrap."""
    [s] = explain(corpus("xc015"), host="spark", nodes=4)
    assert s.kind == "nccl-log" and "it failed in the proxy's progress thread" in messages(s, "fail")
    [s] = explain(corpus("xp015"), host="other")
    assert "bootstrap.cc is in the chain: NCCL's bootstrap failed" in messages(s, "fail")


def test_a_topology_matrix_with_an_older_nics_own_name_reads_its_cpu_affinity():
    """Pending xk007 (kubernetes/kubernetes#53497: eight GPUs and one `mlx4_0`, the matrix cut after GPU4's row): the
    ConnectX-3's column is a device, so each GPU's CPU Affinity is `0-9,20-29` or `10-19,30-39` (it was read as the
    NIC's `PHB`), and the two CPU sets make SYS between the halves a two-socket server's layout, not a warning."""
    from grader.parsers.nvidia_smi_topo import parse_topo_matrix
    t = parse_topo_matrix(corpus("xk007"))
    assert t.devices[-1] == "mlx4_0" and t.cpu_affinity["GPU0"] == "0-9,20-29" and t.cpu_affinity["GPU4"] == "10-19,30-39"
    [s] = explain(corpus("xk007"), host="other")
    assert "warn" not in levels(s) and "GPU0 mlx4_0 (PHB)" in messages(s, "info")


def test_an_address_duplicate_address_detection_refused_fails():
    """Pending xh010 (openwrt/odhcp6c#55): eth0.2's only IPv6 address is `tentative dadfailed`: another machine on the
    link has it, so it is never used."""
    [s] = explain(corpus("xh010"))
    assert "eth0.2's fe80::5dcf:9ec5:4c4c:083e/64 is marked dadfailed" in messages(s, "fail")


def test_the_break_it_review_of_session_36():
    """Inputs made to break this session's rules (helper review; each a real paste edited, named where it comes from)."""
    # pending xp001 under the prompt of the machine pdsh ran on: still one output per labelled machine
    prompted = "root@login:~# pdsh -w rdma-test-gpu-worker-[0-1] ./all_reduce_perf -b 8 -e 1G\n" + corpus("xp001")
    hosts = [s.host for s in explain(prompted, host="other", nodes=2) if s.kind]
    assert set(hosts) == {"rdma-test-gpu-worker-0", "rdma-test-gpu-worker-1"}
    # node1/node2 are host names; a list of keys named once or twice each (two /proc/meminfo) is no machine's
    node = "\n".join(f"node{n}: {x}" for n in (1, 2) for x in _real_lines("11_ip_br_addr_ibdev2netdev_jumbo_ping_oshlabs.txt")[:5])
    assert [s.host for s in explain(node, host="spark")] == ["node1", "node2"]
    meminfo = "MemTotal:       128452736 kB\nMemFree:        101234560 kB\nSwapTotal:       8388604 kB\n" * 2
    assert host_groups(meminfo.splitlines()) is None
    # corpus xb012 (TP 16 over Ray, Gloo's full mesh failing) with one group of one rank: not one machine's
    many = corpus("xb012") + "[Gloo] Rank 0 is connected to 0 peer ranks. Expected number of connected peer ranks is : 0\n"
    assert "each Gloo group has one rank" not in " ".join(messages(s) for s in explain(many))
    # pending xd015's chain where a peer went away (code 6 at socket.cc under bootstrap.cc): no interface or firewall
    gone = ("host:353236:353423 [6] NCCL INFO misc/socket.cc:58 -> 6\nhost:353236:353423 [6] NCCL INFO "
            "bootstrap.cc:90 -> 6\nhost:353236:353423 [6] NCCL INFO init.cc:1393 -> 6\n")
    assert "firewall" not in messages(explain(gone, host="other", nodes=2)[0])


def test_a_load_test_of_fewer_prompts_than_its_cap_is_not_held_back():
    """A vllm bench serve summary of 100 prompts under --max-concurrency 256 (Peak concurrent requests 100): the mean in
    flight (23.6 by Little's law) is low because answers of different lengths end at different times, not because the
    server held them back; only several waves of the cap, none run full, say so (pending xg003 still does)."""
    text = ("$ vllm bench serve --model Qwen/Qwen3-30B-A3B --num-prompts 100 --max-concurrency 256 --request-rate inf\n"
            "============ Serving Benchmark Result ============\nSuccessful requests:                     100\n"
            "Maximum request concurrency:             256\nBenchmark duration (s):                  60.21\n"
            "Total input tokens:                      22946\nTotal generated tokens:                  21577\n"
            "Request throughput (req/s):              1.66\nOutput token throughput (tok/s):         358.36\n"
            "Peak concurrent requests:                100.00\n---------------Time to First Token----------------\n"
            "Mean TTFT (ms):                          612.33\nMedian TTFT (ms):                        598.10\n"
            "-----Time per Output Token (excl. 1st token)------\nMean TPOT (ms):                          49.02\n"
            "Median TPOT (ms):                        47.90\n----------------End-to-end Latency----------------\n"
            "Mean E2EL (ms):                          14210.40\nMedian E2EL (ms):                        11050.12\n"
            "==================================================\n")
    [s] = explain(text)
    assert "requests were in flight" not in messages(s)


def test_a_traceback_says_what_a_reader_needs_of_it():
    """Pending xm011 (one Spark: `ValueError: ... Reasons:` and the reason on the next line: set
    VLLM_TEST_FORCE_FP8_MARLIN=1), xn007 (vllm-project/vllm#4114: NCCLCommunicator.__del__'s ignored AttributeError
    under a worker whose init_device failed) and xn010 (vllm#39774: a traceback cut inside PyNcclCommunicator)."""
    [s] = explain(corpus("xm011"), host="spark", nodes=1)
    assert "Reasons:`, which goes on: `MarlinFP8ScaledMMLinearKernel To apply FP8 Marlin on high-capability GPUs, " \
           "please set VLLM_TEST_FORCE_FP8_MARLIN=1.`" in messages(s, "fail")
    [s] = explain(corpus("xn007"), host="other", nodes=2)
    assert "a side effect of an earlier failure, not its cause" in messages(s, "info")
    [s] = explain(corpus("xn010"), host="other", nodes=1)
    assert "the creation of the NCCL communicator between the GPUs (NCCL_DEBUG=INFO says why it failed)" in messages(s)


def test_nccl_tests_headers_alone_are_read_and_a_header_again_is_another_process():
    """Corpus zk010 (NVIDIA/nccl-tests#213, two H800 nodes): only nccl-tests' `#` lines, its `# nThread` header twice
    before any result: read as nccl-tests (not 'only comments'), and two processes each running a job of its own."""
    [s] = explain(corpus("zk010"), host="other", nodes=2)
    assert s.kind == "nccl-tests" and "each a job of its own: its header printed again" in messages(s, "fail")


def test_independent_nccl_tests_copies_still_say_the_transport_they_would_use():
    """Pending xd020 (NVIDIA/nccl-tests#136: two A100 nodes, each a 1-rank job; NCCL found no RDMA device and chose
    sockets over bond0): beside the independent copies, the sockets they would use once they are one job."""
    [s] = explain(corpus("xd020"), host="other", nodes=2)
    assert "found no RDMA device (`NET/IB : No device found`) and chose TCP sockets over bond0" in messages(s, "warn")


def test_a_vllm_excerpt_says_the_ray_cluster_it_joined():
    """Pending xo017 (ROCm/ROCm#5656: vLLM's engine core `Connecting to existing Ray cluster at address:
    10.20.1.126:6379...`, then `Connected to Ray cluster.`, no layout in the excerpt): the cluster it joined is said."""
    sections = [s for s in explain(corpus("xo017"), host="other", nodes=2) if s.kind == "vllm-log"]
    assert "vLLM joined the existing Ray cluster at 10.20.1.126:6379" in messages(sections[0], "info")


def test_one_request_decoding_slower_than_a_person_reads_is_said():
    """Corpus zp014 (DeepSeek-V3, TP 8 x PP 2 over two nodes: the engine's stats with 1 running, none waiting and no
    prompt show 2.9 tok/s, one token every 345 ms, slower than the 190 ms a token of checks/specs/serving.toml): said,
    as a note (a dense 128B model on two Sparks, corpus m011, is that slow by memory bandwidth); the vLLM CPU sim's
    18.1 tok/s windows (tests/fixtures/real/vllm-cpu/17) are not."""
    [s] = [x for x in explain(corpus("zp014"), host="other", nodes=2) if x.kind == "vllm-log"]
    assert "One request decoded alone at 2.9 tok/s at best" in messages(s, "info")
    sim = (Path(__file__).parent / "fixtures" / "real" / "vllm-cpu" / "17_serve_pp2_ray_plugin_ok.txt").read_text()
    assert "decoded alone" not in " ".join(messages(x) for x in explain(sim))


def test_the_config_a_failing_v1_engine_dumps_gives_the_layout():
    """Pending xe010 (vllm-project/vllm#26318, Slurm: `Dumping input data for V1 LLM engine (...) with config: ...
    tensor_parallel_size=4, pipeline_parallel_size=2`): the layout is read from the dump as from the start's config."""
    [s] = [x for x in explain(corpus("xe010"), host="other", nodes=2) if x.kind == "vllm-log"]
    assert "Parallel layout: TP 4 x PP 2 = world size 8" in messages(s, "info")
