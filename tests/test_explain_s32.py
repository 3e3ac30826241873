"""Session 32 (issue 27): what the break-it review of session 31 left, and what the corpus and blind batches of this
session found explain getting wrong; each on a short sample (a real output's shape, its source named), the values
worked out by hand."""

from __future__ import annotations

from grader.explain import explain
from grader.parsers.df import parse_df
from grader.parsers.llama_bench import parse_llama_bench
from tests.conftest import levels, messages

# ik_llama.cpp's llama-sweep-bench (https://github.com/ikawrakow/ik_llama.cpp/pull/1388 prints this shape), its own
# `main:` settings line above the table, then llama-bench's table under it
SWEEP = """main: n_kv_max = 32768, n_batch = 2048, n_ubatch = 512, flash_attn = 1, n_gpu_layers = 99, n_threads = 16, n_threads_batch = 16

|    PP |     TG |   N_KV |   T_PP s | S_PP t/s |   T_TG s | S_TG t/s |
|-------|--------|--------|----------|----------|----------|----------|
|   512 |    128 |      0 |    0.291 |  1759.45 |    1.012 |   126.48 |
|   512 |    128 |    2¹⁰ |    0.298 |  1718.12 |    1.035 |   123.67 |
|   512 |    128 |  31744 |    0.905 |   565.75 |    2.412 |    53.07 |
| model                          |       size |     params | backend    | ngl | fa |          test |                  t/s |
| ------------------------------ | ---------: | ---------: | ---------- | --: | -: | ------------: | -------------------: |
| qwen3moe 30B.A3B Q4_K - Medium |  17.28 GiB |    30.53 B | CUDA       |  99 |  1 |         tg128 |        131.20 ± 0.41 |
"""


def test_a_sweep_row_whose_depth_does_not_read_is_skipped_and_a_table_after_the_sweep_is_kept():
    b = parse_llama_bench(SWEEP)
    assert [(r.test, r.tps, r.depth) for r in b.rows] == [
        ("pp512", 1759.45, 0), ("tg128", 126.48, 0), ("pp512", 565.75, 31744), ("tg128", 53.07, 31744),
        ("tg128", 131.2, None)]
    said = messages(explain(SWEEP, kind="llama-bench")[0])
    assert "? (?" not in said and "1759.45 tok/s at context depth 0, 565.75 tok/s at depth 31,744 (2 depths)" in said
    assert "tg128 131.2 ± 0.41 tok/s" in said


def test_ik_llamas_settings_line_above_a_sweep_is_its_output_not_an_unknown_part():
    sections = explain(SWEEP.split("| model")[0])
    assert [s.kind for s in sections] == ["llama-bench"] and not any(s.error for s in sections)


def test_llama_batched_bench_is_not_read_as_a_sweep_over_context_depths():
    # llama.cpp's llama-batched-bench: B sequences at once, N_KV their tokens together (not a depth already cached)
    batched = """|    PP |     TG |    B |   N_KV |   T_PP s | S_PP t/s |   T_TG s | S_TG t/s |      T s |    S t/s |
|-------|--------|------|--------|----------|----------|----------|----------|----------|----------|
|   512 |    128 |    4 |   2560 |    1.101 |  1860.12 |    2.210 |   231.67 |    3.311 |   773.18 |
"""
    said = messages(explain(batched, kind="llama-bench")[0])
    assert "context depth" not in said


# a list of commands typed without prompts, their output under them (break-it review of session 31, item 23b)
LISTED = """I ran these on the two Sparks:
ibdev2netdev
ip -br addr show enp1s0f1np1
and got:
rocep1s0f0 port 1 ==> enp1s0f0np0 (Down)
rocep1s0f1 port 1 ==> enp1s0f1np1 (Up)
roceP2p1s0f0 port 1 ==> enP2p1s0f0np0 (Down)
roceP2p1s0f1 port 1 ==> enP2p1s0f1np1 (Up)
"""


def test_the_first_of_a_list_of_bare_commands_did_not_print_nothing():
    sections = explain(LISTED, host="spark")
    assert not any(s.error for s in sections)
    first = sections[0]
    assert first.command == "ibdev2netdev" and levels(first) == ["info"]
    assert "Listed above `ip -br addr show enp1s0f1np1`" in messages(first)
    # a command alone with nothing under it, at the end of a paste of one, still printed nothing
    [alone] = explain("$ ibdev2netdev\n")
    assert alone.error == "the command printed nothing"


# https://github.com/sgl-project/sglang/issues/1639 (corpus p008): a benchmark_serving summary of 2,000 requests
# that does not show its request rate or concurrency (all were sent at once, the thread says)
UNKNOWN_LOAD = """============ Serving Benchmark Result ============
Successful requests:                     2000
Benchmark duration (s):                  34.55
Total input tokens:                      453502
Total generated tokens:                  376493
Request throughput (req/s):              57.89
Output token throughput (tok/s):         10896.87
Total Token throughput (tok/s):          24022.63
---------------Time to First Token----------------
Mean TTFT (ms):                          4878.89
Median TTFT (ms):                        4804.10
P99 TTFT (ms):                           8589.78
-----Time per Output Token (excl. 1st token)------
Mean TPOT (ms):                          194.03
Median TPOT (ms):                        74.07
P99 TPOT (ms):                           1647.41
==================================================
"""


def test_slow_tpot_of_many_requests_with_the_load_not_shown_cannot_be_called_slow():
    [s] = explain(UNKNOWN_LOAD, host="other", nodes=1)
    assert "warn" not in levels(s) and "does not show the load" in messages(s, "info")
    # the same run with its cap printed: 256 streams at once each decoding one token every 194 ms is slow
    capped = UNKNOWN_LOAD.replace("Successful requests:", "Maximum request concurrency:             256\n"
                                  "Successful requests:", 1)
    [c] = explain(capped, host="other", nodes=1)
    assert "very slow decode under this load" in messages(c, "warn")


# https://github.com/esnet/iperf/issues/1088 (corpus w016): one TCP stream for 20 s, 114 retransmissions in 29.9 GB
ONE_STREAM = """Connecting to host 10.0.0.4, port 12345
[  4] local 10.0.0.3 port 50040 connected to 10.0.0.4 port 12345
[ ID] Interval           Transfer     Bandwidth       Retr  Cwnd
[  4]   0.00-20.00  sec  29.9 GBytes  12.8 Gbits/sec  114    949 KBytes
"""


def test_one_tcp_stream_that_lost_next_to_nothing_below_a_fast_links_rate_is_the_host_not_a_fault():
    [s] = explain(ONE_STREAM, host="other", nodes=2)
    # 12.8 Gbit/s x 20 s / 8 / 1,448 B = 22.1 million segments; 114 of them is 5 in a million (under 1 in 100,000)
    assert "warn" not in levels(s) and "with one TCP stream and next to no retransmission" in messages(s, "info")
    # 400 retransmissions (18 in a million) are more than a busy flow's few: something drops segments
    [lossy] = explain(ONE_STREAM.replace("  114  ", "  400  "), host="other", nodes=2)
    assert "400 retransmissions: segments were lost on the way" in messages(lossy, "warn")
    # at 6 Gbit/s the link may be 10 GbE, which one core fills: a single stream that short of it is a host's limit
    [ten] = explain(ONE_STREAM.replace("29.9 GBytes  12.8", "14.0 GBytes  6.00"), host="other", nodes=2)
    assert "warn" in levels(ten)


# blind batch zi009 (a Proxmox VM's virtio NIC; the paste ends at its Speed line), and corpus o011 (an Intel X553 SFP+
# port, cut before `Link detected`)
VIRTIO = """root@host01:/tmp# ethtool eth0
Settings for eth0:
        Supported ports: [ ]
        Supported link modes:   Not reported
        Supported pause frame use: No
        Supports auto-negotiation: No
        Advertised link modes:  Not reported
        Advertised auto-negotiation: No
        Speed: Unknown!
"""


def test_speed_unknown_without_link_detected_is_no_verdict_and_on_a_virtual_nic_is_normal():
    [s] = explain(VIRTIO, host="other")
    assert levels(s) == ["info"] and "virtual NIC" in messages(s) and "cable" not in messages(s)
    physical = VIRTIO.replace("Supported ports: [ ]", "Supported ports: [ FIBRE ]").replace(
        "Advertised link modes:  Not reported", "Advertised link modes:  10000baseT/Full")
    [p] = explain(physical, host="other")
    assert levels(p) == ["warn"] and "ends before `Link detected`" in messages(p, "warn")
    [down] = explain(physical + "        Link detected: no\n", host="other")
    assert "fail" in levels(down)


def test_an_hcas_device_fatal_event_is_the_adapter_not_a_set_up_fault():
    # https://github.com/NVIDIA/nccl/issues/230 (blind batch zi010): the event, then the async thread's failed call
    log = ("host:815:864 [0] transport/net_ib.cu:80 NCCL WARN NET/IB : Got async event : local catastrophic error\n"
           "host:815:864 [0] misc/ibvwrap.cu:220 NCCL WARN Call to ibv_get_async_event failed\n")
    [s] = explain(log, host="other", nodes=2)
    said = messages(s, "fail")
    assert "device-fatal event" in said and "NCCL_IB_GID_INDEX" not in said and "could not connect" not in said


# blind batch zh013 (kreuzhofer/dgx-manager: a TP=4 worker on four Sparks) and zh004 (getainode/ainode: NCCL 2.28 init
# between two Sparks): the poster's own note that nothing came after the last line
LOADED = """(EngineCore pid=947) (RayWorkerWrapper pid=1206) INFO 16:30:09 [__init__.py:261] Selected CutlassFP8ScaledMMLinearKernel for Fp8LinearMethod
Loading safetensors checkpoint shards: 100% Completed | 66/66 [00:43<00:00,  1.52it/s]
<silence — no further log output for 7+ hours>
"""
NCCL_INIT = """Spark-1:895:895 [0] NCCL INFO NET/IB : Using [0]mlx5_1:1/RoCE [1]mlx5_3:1/RoCE [RO]; OOB enP2p1s0f1np1:192.168.0.63<0>
Spark-1:895:895 [0] NCCL INFO Using network IB
Spark-1:895:895 [0] NCCL INFO ncclCommInitRank comm 0x4c209030 rank 0 nranks 2 cudaDev 0 busId f01000 commId 0xb523fd91f1aaaef - Init START
Spark-1:895:895 [0] NCCL INFO ncclTopoGetCpuAffinity: Affinity for GPU 0 is empty, ignoring.
<HANG — no further output for 6+ minutes>
"""


def test_a_posters_note_that_the_program_hung_is_a_failure_after_the_last_line_before_it():
    [s] = explain(LOADED, host="spark", nodes=4)
    assert "The paste notes that the program hung" in messages(s, "fail")
    assert "stopped after `Loading safetensors checkpoint shards: 100% Completed | 66/66" in messages(s, "fail")
    [n] = explain(NCCL_INIT, host="spark", nodes=2)
    assert "after `Spark-1:895:895 [0] NCCL INFO ncclTopoGetCpuAffinity" in messages(n, "fail")
    # the transport was chosen, not used: no connection came up before the hang
    assert "NCCL chose RDMA" in messages(n, "ok") and "moved data" not in messages(n)
    # a note that only says lines were cut is no hang
    [cut] = explain(LOADED.replace("<silence — no further log output for 7+ hours>", "<output trimmed>"),
                    host="spark", nodes=4)
    assert "fail" not in levels(cut)


def test_an_rdma_plugins_channels_are_rdma_and_one_spark_twin_in_them_is_half_the_cable():
    # blind batch zh002 (kreuzhofer/dgx-manager): NCCL's channels through the NCCL RDMA Plugin, one twin in use
    log = ("NET/IB : Made virtual device [0] name=rocep1s0f0 speed=200000 ndevs=1\n"
           "NET/IB : Using [0]rocep1s0f0:1/RoCE [RO]; OOB enp1s0f0np0:192.168.100.12<0>\n"
           "Channel 00/0 : 1[0] -> 0[0] [receive] via NET/NCCL RDMA Plugin v10/0\n")
    [s] = explain(log, host="spark", nodes=2)
    assert "NCCL moved data with RDMA" in messages(s, "ok")
    assert "NCCL uses only one HCA (rocep1s0f0)" in messages(s, "warn") and "roceP2p1s0f0" in messages(s, "warn")


# blind batch zh003 (getainode/ainode: one ib_write_bw per twin between two Sparks, the second twin at MTU 1500 with
# no IPv4 address): two runs in one paste, compared
def _write_bw(dev: str, mtu: int, gid: str) -> str:
    return f"""---------------------------------------------------------------------------------------
                    RDMA_Write BW Test
 Dual-port       : OFF          Device         : {dev}
 Number of qps   : 1            Transport type : IB
 Connection type : RC           Using SRQ      : OFF
 TX depth        : 128
 CQ Moderation   : 1
 Mtu             : {mtu}[B]
 Link type       : Ethernet
 GID index       : 3
 Max inline data : 0[B]
 rdma_cm QPs     : OFF
 Data ex. method : Ethernet
---------------------------------------------------------------------------------------
 local address: LID 0000 QPN 0x0127 PSN 0x3c4f6a RKey 0x1fff00 VAddr 0x00ffff9a200000
 GID: {gid}
 remote address: LID 0000 QPN 0x0127 PSN 0x9e2b41 RKey 0x1fff00 VAddr 0x00ffffb2c00000
 GID: {gid.rsplit(':', 1)[0] + ':220'}
---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 65536      5000             12440.21            12432.55                   0.198921
---------------------------------------------------------------------------------------
"""


def test_two_perftest_runs_that_differ_in_rdma_mtu_or_gid_kind_are_a_warning():
    v4 = "00:00:00:00:00:00:00:00:00:00:255:255:192:168:00:219"
    fe80 = "254:128:00:00:00:00:00:00:081:037:094:172:08:116:133:022"
    [s] = explain(_write_bw("mlx5_1", 4096, v4) + _write_bw("mlx5_3", 1024, fe80), host="spark", nodes=2)
    said = messages(s, "warn")
    assert "The runs' RDMA MTUs differ (mlx5_1 4096, mlx5_3 1024 bytes)" in said
    assert "mlx5_3: GID index 3 holds a link-local (fe80) GID" in said
    assert "no Spark figure applies" not in messages(s)  # `--host spark`: mlx5_* are its ConnectX-7's, kernel-named
    [same] = explain(_write_bw("mlx5_1", 4096, v4) + _write_bw("mlx5_3", 4096, v4), host="spark", nodes=2)
    assert "warn" not in levels(same)


def test_an_iperf3_test_paced_by_b_measures_its_setting_not_the_link():
    # esnet/iperf#1908 (blind batch zi008) asked 170 Mbit/s with -J; the same as text with `-b 5G` on a 10 GbE path
    text = """$ iperf3 -c 10.0.0.2 -b 7G -t 10
[ ID] Interval           Transfer     Bitrate         Retr
[  5]   0.00-10.00  sec  8.15 GBytes  7.00 Gbits/sec    0             sender
[  5]   0.00-10.00  sec  8.15 GBytes  7.00 Gbits/sec                  receiver
"""
    [s] = explain(text, host="other", nodes=2)
    assert levels(s) == ["info"] and "the 7 Gbit/s the test was paced to" in messages(s)
    # without -b, 7 Gbit/s (over 5 GbE's line rate, under 90% of 10 GbE's TCP ceiling) is short of any link: a warning
    [free] = explain(text.replace(" -b 7G", ""), host="other", nodes=2)
    assert "paced" not in messages(free) and "warn" in levels(free)


# NVIDIA/nccl#606 (corpus zg017): `df -h` inside a container whose /dev/shm was raised to 1.0G; the default 64M
DF_CONTAINER = """$ df -h

Filesystem      Size  Used Avail Use% Mounted on
overlay         1.8T   96G  1.6T   6% /
tmpfs            64M     0   64M   0% /dev
shm             1.0G     0  1.0G   0% /dev/shm
/dev/nvme0n1p2  1.8T   96G  1.6T   6% /etc/hosts
"""


def test_df_reads_a_containers_shared_memory_against_what_nccl_asks():
    mounts = parse_df(DF_CONTAINER)
    assert [(m.filesystem, m.mount, m.size) for m in mounts][2] == ("shm", "/dev/shm", 1024 ** 3)
    [s] = explain(DF_CONTAINER)
    assert s.kind == "df" and "warn" not in levels(s) and "a container's root (overlay)" in messages(s)
    [low] = explain(DF_CONTAINER.replace("shm             1.0G     0  1.0G", "shm              64M     0   64M"))
    assert "/dev/shm is 64 MiB (Docker gives a container 64 MiB)" in messages(low, "warn")
    # 1K-blocks (df without -h) and a device name on a line of its own
    plain = ("$ df\nFilesystem     1K-blocks    Used Available Use% Mounted on\n/dev/mapper/ubuntu--vg-ubuntu--lv\n"
             "               102626232 9845432  87521536  11% /\nshm                65536       0     65536   0% /dev/shm\n")
    assert [(m.filesystem, m.size) for m in parse_df(plain)] == [("/dev/mapper/ubuntu--vg-ubuntu--lv", 102626232 * 1024),
                                                                ("shm", 64 * 1024 ** 2)]


def test_nccl_tests_header_counts_its_ranks_and_p2p_disabled_on_the_command_is_a_warning():
    # corpus zg017 (NVIDIA/nccl#606): -g 2 under NCCL_P2P_DISABLE=1, the paste cut after the first `# Rank` line
    text = ("$ CUDA_VISIBLE_DEVICES=2,3 NCCL_P2P_DISABLE=1 NCCL_DEBUG=INFO ./all_reduce_perf -b 8 -e 16M -f 2 -g 2\n\n"
            "# nThread 1 nGpus 2 minBytes 8 maxBytes 16777216 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
            "#\n# Using devices\n#   Rank  0 Pid    233 on nccl-tests device  0 [0xc1] NVIDIA A100-SXM4-80GB\n")
    [s] = explain(text, host="other", nodes=1)
    assert "2 ranks (some `# Rank` lines are not in the paste)" in messages(s) and "One rank" not in messages(s)
    assert "NCCL_P2P_DISABLE=1 for a process that drives several GPUs" in messages(s, "warn")


def test_an_sglang_workers_exception_names_the_step_it_died_in():
    from tests.test_field_faults import SGLANG_TP
    [s] = [x for x in explain(SGLANG_TP + "Traceback (most recent call last):\n") if x.kind == "known-error"]
    said = messages(s, "fail")
    assert "SGLang's worker TP4 raised an exception" in said and "after `Capture cuda graph begin." in said


# CUDA samples' simpleP2P: NVIDIA/cuda-samples#284 (two L4s, corpus h019), tinygrad/open-gpu-kernel-modules#29 and
# aikitoria/open-gpu-kernel-modules#11 (two RTX 5090s on a P2P-patched driver, blind batch zj001, zj002)
SIMPLE_P2P = """$ ./simpleP2P
[./simpleP2P] - Starting...
Checking for multiple GPUs...
CUDA-capable device count: 2

Checking GPU(s) for support of peer to peer memory access...
> Peer access from NVIDIA GeForce RTX 5090 (GPU0) -> NVIDIA GeForce RTX 5090 (GPU1) : Yes
> Peer access from NVIDIA GeForce RTX 5090 (GPU1) -> NVIDIA GeForce RTX 5090 (GPU0) : Yes
Enabling peer access between GPU0 and GPU1...
Allocating buffers (64MB on GPU0, GPU1 and CPU Host)...
Creating event handles...
cudaMemcpyPeer / cudaMemcpy between GPU0 and GPU1: 26.51GB/s
Preparing host buffer and memcpy to GPU0...
Copy data back to host from GPU0 and verify results...
Disabling peer access...
Shutting down...
Test passed
"""


def test_simple_p2p_passed_failed_to_enable_corrupted_or_waived():
    [s] = explain(SIMPLE_P2P, host="other", nodes=1)
    assert s.kind == "simple-p2p" and "P2P works" in messages(s, "ok") and "26.51 GB/s" in messages(s, "ok")
    enable = SIMPLE_P2P.split("Allocating")[0] + ('CUDA error at /home/u/cuda-samples/Samples/0_Introduction/simpleP2P/'
                                                  'simpleP2P.cu:130 code=205(cudaErrorMapBufferObjectFailed) '
                                                  '"cudaDeviceEnablePeerAccess(gpuid[1], 0)"\n')
    [e] = explain(enable, host="other", nodes=1)
    assert "though the driver reported peer access" in messages(e, "fail") and "NCCL_P2P_DISABLE=1" in messages(e)
    bad = SIMPLE_P2P.replace("Disabling peer access...", "Verification error @ element 1: val = 0.000000, ref = "
                             "4.000000\nVerification error @ element 2: val = 0.000000, ref = 8.000000\nDisabling peer "
                             "access...").replace("Test passed", "Test failed!")
    [b] = explain(bad, host="other", nodes=1)
    assert "(2 verification error(s)" in messages(b, "fail")
    waived = SIMPLE_P2P.split("Enabling")[0].replace(": Yes", ": No") + (
        "Two or more GPUs with Peer-to-Peer access capability are required for ./simpleP2P.\nPeer to Peer access is not "
        "available amongst GPUs in the system, waiving test.\n")
    [w] = explain(waived, host="other", nodes=1)  # GeForce cards on the stock driver offer no P2P: a note (session
    # 42: read as p2pBandwidthLatencyTest reads it, gpu_notes.no_p2p_level; corpus zj013, zg009, zc020)
    assert levels(w) == ["info", "info"] and "expected of these cards, not a fault" in messages(w, "info")
    [d] = explain(waived.replace("GeForce RTX 5090", "L4"), host="other", nodes=1)  # data-centre cards offer P2P
    assert levels(d) == ["info", "warn"] and "No GPU pair reports peer access" in messages(d, "warn")


def test_a_pastes_line_numbers_under_a_caption_come_off_though_some_lines_start_with_a_figure():
    # deepeyes#72 (blind batch zk019): `ray status` copied from an editor with its line numbers, a caption above
    # (with a full-width colon) and a quote mark on the first numbered line
    from grader.parsers.common import clean_lines
    text = ("  Print  Ray status\uff1a\n\n>   92  ======== Autoscaler status: 2025-06-27 17:01:30.733898 ========\n"
            "  93  Node status\n  94  ------------------------------------------------\n  95  Active:\n"
            "  96   1 node_c283e8e5d1fedad166b1a670870a4f4f5551741013e54c22f48a7e85\n"
            "  97   1 node_2ed969ce5428963ceabad8f5228e8f8c97cbc4a292250f7abc6b3778\n  98  Pending:\n"
            "  99   (no pending nodes)\n")
    lines = clean_lines(text)
    assert lines[0] == "  Print  Ray status:" and lines[3] == " Node status" and lines[6].startswith("  1 node_c283")
    # a matrix's row indexes (a figure after each) are no line numbers
    matrix = "   D\\D     0      1\n     0 1008.06   6.34\n     1   6.34 926.75\n     2   6.30   6.31\n     3   6.29   6.33\n"
    assert clean_lines(matrix) == matrix.rstrip("\n").split("\n")


def test_p2p_whose_latency_fell_but_bandwidth_did_not_is_capped_by_the_link_not_broken():
    # blind batch zj006 (two RTX 5060 Ti on Gen3 x4 links): P2P latency 0.42 µs against 18.08, bandwidth alike
    text = """[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]
Device: 0, NVIDIA GeForce RTX 5060 Ti, pciBusID: 9, pciDeviceID: 0, pciDomainID:0
Device: 1, NVIDIA GeForce RTX 5060 Ti, pciBusID: a, pciDeviceID: 0, pciDomainID:0
Device=0 CAN Access Peer Device=1
Device=1 CAN Access Peer Device=0
Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)
   D\\D     0      1
     0 421.43   3.50
     1   3.59 423.02
Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)
   D\\D     0      1
     0 421.03   3.58
     1   3.58 423.41
P2P=Disabled Latency Matrix (us)
   GPU     0      1
     0   1.10  18.08
     1  18.22   1.07
P2P=Enabled Latency (P2P Writes) Matrix (us)
   GPU     0      1
     0   1.01   0.42
     1   0.42   1.06
"""
    [s] = explain(text, host="other", nodes=1)
    said = messages(s, "warn")
    assert "P2P is in use (its latency 0.42 µs against 18.08 µs" in said and "keep it on" in said
    assert "NCCL_P2P_DISABLE" not in messages(s)
    # the same bandwidth with no fall in latency: P2P gains nothing, the old warning
    [flat] = explain(text.replace("1.01   0.42", "1.01  17.90").replace("0.42   1.06", "17.95   1.06"), host="other")
    assert "P2P gains nothing over copies through host memory" in messages(flat, "warn")


def test_llama_cpps_device_list_alone_is_read_and_mixed_cards_are_named():
    # ggml-org/llama.cpp#11864 (blind batch zj020): the lines every llama.cpp program prints as it starts
    text = ("ggml_cuda_init: GGML_CUDA_FORCE_MMQ:    no\nggml_cuda_init: GGML_CUDA_FORCE_CUBLAS: no\n"
            "ggml_cuda_init: found 2 CUDA devices:\n  Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes\n"
            "  Device 1: NVIDIA GeForce RTX 4070 Ti SUPER, compute capability 8.9, VMM: yes\nversion: 4710 (8a8c4ceb)\n")
    [s] = explain(text)
    assert s.kind == "llama-bench" and not s.error and "llama.cpp found 2 GPUs" in messages(s)
    assert "Different GPUs (NVIDIA GeForce RTX 4070 Ti SUPER, NVIDIA GeForce RTX 4090)" in messages(s)
    assert parse_llama_bench(text).build == "4710 (8a8c4ceb)"


def test_a_power_limit_enforced_below_the_requested_one_is_held_by_something_else():
    # stackhpc/ansible-slurm-appliance#975 (blind batch zj018): nvidia-smi -q -d power of a 700 W GPU held at 500 W
    q = ("# nvidia-smi -q -d power\n==============NVSMI LOG==============\n\nDriver Version                 : 595.71.05\n\n"
         "Attached GPUs                  : 1\nGPU 00000000:06:00.0\n    GPU Power Readings\n"
         "        Average Power Draw     : 78.83 W\n        Current Power Limit    : 500.00 W\n"
         "        Requested Power Limit  : 700.00 W\n        Default Power Limit    : 700.00 W\n"
         "        Min Power Limit        : 200.00 W\n        Max Power Limit        : 700.00 W\n")
    [s] = explain(q, host="other")
    assert "GPU0 enforces 500 W though 700 W is requested" in messages(s, "warn")
    [lowered] = explain(q.replace("Requested Power Limit  : 700.00 W", "Requested Power Limit  : 500.00 W"), host="other")
    assert "warn" not in levels(lowered) and "capped below its default (500 < 700 W)" in messages(lowered)


def test_a_traced_engine_failure_names_its_last_frame_and_a_one_node_slow_decode_asks_nothing_of_nccl():
    from tests.test_diagnoses import EXAMPLES
    [s] = [x for x in explain(EXAMPLES["engine-init-failed-traced"], host="spark", nodes=1) if x.kind == "vllm-log"]
    said = messages(s, "fail")
    assert "ends in `track_weights_loading` (default_loader.py), which raised ValueError" in said
    assert "not in the text given" not in said
    capped = UNKNOWN_LOAD.replace("Successful requests:", "Maximum request concurrency:             256\n"
                                  "Successful requests:", 1)
    [one] = explain(capped, host="other", nodes=1)
    assert "very slow decode" in messages(one, "warn") and "NCCL" not in messages(one)
    [two] = explain(capped, host="other", nodes=2)
    assert "across nodes, that NCCL uses RDMA" in messages(two, "warn")


def test_gpu_memory_utilization_above_the_gb10_share_warns_on_a_spark_only():
    # djangodevreng/dgx-spark-benchmarks (blind batch zm005): 0.95 on a Spark's unified memory
    log = ("(APIServer pid=1) INFO 05-01 10:00:00 [utils.py:253] non-default args: {'model': 'Qwen/Qwen3.6-35B-A3B', "
           "'gpu_memory_utilization': 0.95}\n")
    [s] = explain(log, host="spark", nodes=1)
    # checks/specs/gpus.toml [dgx_spark]: 0.85 of 121.69 GiB; 0.95 leaves 121.69 x 0.05 = 6.1 GiB
    assert "above the 0.85 vLLM's GB10 recipe gives vLLM, leaving about 6 of 121.69 GiB" in messages(s, "warn")
    [other] = explain(log, host="other", nodes=1)
    assert "GB10 recipe" not in messages(other)
    [ok_share] = explain(log.replace("0.95", "0.85"), host="spark", nodes=1)
    assert "GB10 recipe" not in messages(ok_share)


def test_a_short_label_after_the_fence_that_closed_an_output_is_set_aside():
    # NVIDIA/nccl#719 (blind batch zl002): `pod1`, a fenced topo matrix, then `pod2` above the next fence
    text = ("pod1\n```\nroot@8pxb:~# nvidia-smi topo -m\n\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
            "GPU0\t X \tNV12\t64-127\t1\nGPU1\tNV12\t X \t64-127\t1\n```\n\npod2\n```\n")
    [s] = [x for x in explain(text, host="other", nodes=2) if x.kind == "nvidia-smi-topo"]
    assert not s.error and "Not output, so not read: 'pod2'" in messages(s)


# helper-60's break-it review of this session (reproducers kept in /tmp/breakit10), each on a short input
def test_break_it_review_of_session_32():
    # a note of a pause the program came out of is no hang
    note = LOADED.replace("<silence — no further log output for 7+ hours>", "(silence for 2 minutes, then it continues)")
    assert "fail" not in levels(explain(note, host="spark", nodes=4)[0])
    # one process listed that holds little, with little free: someone unlisted holds the rest (oom-torch-2's reading)
    small = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
             "79.11 GiB of which 300.00 MiB is free. Process 4242 has 1.20 GiB memory in use. Of the allocated memory "
             "512.00 MiB is allocated by PyTorch, and 8.00 MiB is reserved by PyTorch but unallocated.\n")
    said = messages(explain(small)[0], "fail")
    assert "no other process is to blame" not in said and "held by another process" in said
    # a link wider than the device's own width limits only the speed
    wider = ("pci 0000:01:00.0: 4.000 Gb/s available PCIe bandwidth, limited by 2.5 GT/s PCIe x16 link at 0000:00:01.0 "
             "(capable of 126.024 Gb/s with 16.0 GT/s PCIe x8 link)\n")
    assert "fewer PCIe lanes" not in messages(explain(wider)[0])
    # one machine: Gloo at 127.0.0.1 is the right address
    gloo = "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:799] connect [127.0.0.1]:14221: Connection refused\n"
    assert "loopback address" not in messages(explain(gloo, nodes=1)[0])
    assert "loopback address" in messages(explain(gloo, nodes=2)[0], "fail")
    # -b paces each stream: 4 x 2.5G asked, 2.48 Gbit/s in all is the link's, not the setting's
    paced = ("$ iperf3 -c 10.0.0.2 -P 4 -b 2.5G\n[SUM]   0.00-10.00  sec  2.89 GBytes  2.48 Gbits/sec    0             "
             "sender\n[SUM]   0.00-10.00  sec  2.88 GBytes  2.48 Gbits/sec                  receiver\n")
    assert "paced to" not in messages(explain(paced, host="other")[0])
    # df -i counts inodes; a size of hundreds of digits is no row
    [inodes] = explain("$ df -i\nFilesystem      Inodes  IUsed   IFree IUse% Mounted on\nshm            4096     1    4095    1% /dev/shm\n")
    assert inodes.error and "inodes" in inodes.error
    huge = "$ df -h\nFilesystem      Size  Used Avail Use% Mounted on\nshm  " + "9" * 400 + "G 0 1G 0% /dev/shm\n"
    assert "internal error" not in (explain(huge)[0].error or "")


def test_an_sglang_worker_without_a_tp_tag_and_its_final_exception():
    # jethac's GB10 notes (blind batch zm019): one GPU, so no TP tag; the traceback's last line is in the paste
    log = ("[2026-06-07 12:16:01] Scheduler hit an exception: Traceback (most recent call last):\n"
           '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2546, in run_scheduler_process\n'
           "    raise AttributeError(\nAttributeError: 'MergedColumnParallelLinear' object has no attribute 'weight'\n")
    said = " ".join(messages(s, "fail") for s in explain(log, host="spark", nodes=1))
    assert "SGLang's worker raised an exception" in said
    assert "AttributeError: 'MergedColumnParallelLinear' object has no attribute 'weight'" in said
    # with the exception in the same part of the paste, the worker's finding quotes it and gives no memory advice
    from grader.diagnoses import known_faults
    [(level, one)] = [k for k in known_faults(log) if "SGLang" in k[1]]
    assert level == "fail" and "The traceback ends in `AttributeError:" in one and "mem-fraction" not in one


def test_nccl_sockets_over_a_tunnel_or_a_link_local_address_are_named():
    # blind batch zl006 (kept in tests/fixtures/field/pending): a container whose first interface is an IPv6 tunnel
    log = ("host:3795:3795 [0] NCCL INFO NET/IB : No device found.\n"
           "host:3795:3795 [0] NCCL INFO NET/Socket : Using [0]ip6tnl0:fe80::745d:60ff:fe00:1a2b%ip6tnl0<0> "
           "[1]veth0:2001:db8:fc17:3faa:0:4457:d87b:6007<0>\nhost:3795:3795 [0] NCCL INFO Using network Socket\n")
    [s] = explain(log, host="other", nodes=2)
    assert "NCCL's sockets use ip6tnl0 (fe80::745d:60ff:fe00:1a2b%ip6tnl0) first: a link-local address" in messages(s)
    [one] = explain(log.replace("[0]ip6tnl0:fe80::745d:60ff:fe00:1a2b%ip6tnl0<0> ", "[0]eth0:10.0.0.1<0> "),
                    host="other", nodes=2)
    assert "first:" not in messages(one)


def test_an_nccl_excerpt_of_channels_without_an_end_says_it_cannot_decide():
    # NVIDIA/nccl#733 (blind batch zl003, in tests/fixtures/field/pending): channels, rings connected, no end state
    log = ("gpu-0:41:126 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
           "gpu-0:41:126 [0] NCCL INFO Channel 00/0 : 3[1] -> 0[0] [receive] via NET/IB/0/GDRDMA\n"
           "gpu-0:41:126 [0] NCCL INFO Connected all rings\n")
    [s] = explain(log, host="other", nodes=2)
    assert "cannot decide a hang or a failure after them" in messages(s, "info")
    [done] = explain(log + "gpu-0:41:41 [0] NCCL INFO comm 0x55d0 rank 0 nranks 4 cudaDev 0 busId 1000 - Init COMPLETE\n",
                     host="other", nodes=2)
    assert "cannot decide" not in messages(done)
