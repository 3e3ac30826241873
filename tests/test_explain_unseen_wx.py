"""Shapes and judgments blind batches w, x and y (issue 27, session 30) found explain misreading: each on a short
sample cut from the real output named beside it (its URL), with the values worked out by hand."""

from __future__ import annotations

from grader.explain import explain
from grader.parsers.bench_result import parse_bench_text
from grader.parsers.iperf3 import parse_iperf3
from tests.conftest import levels, messages

# https://github.com/vllm-project/vllm/issues/9722: benchmark_serving's settings above its banner, ~6 tokens a request
PREFILL_BOUND = """Traffic request rate: inf
Maximum request concurrency: 30
============ Serving Benchmark Result ============
Successful requests:                     100
Benchmark duration (s):                  82.97
Total input tokens:                      77700
Total generated tokens:                  603
Request throughput (req/s):              1.21
Output token throughput (tok/s):         7.27
Total Token throughput (tok/s):          943.80
---------------Time to First Token----------------
Mean TTFT (ms):                          18854.01
Median TTFT (ms):                        19212.50
P99 TTFT (ms):                           23907.83
-----Time per Output Token (excl. 1st token)------
Mean TPOT (ms):                          875.24
Median TPOT (ms):                        582.24
P99 TPOT (ms):                           4836.03
==================================================
"""


def test_the_settings_printed_above_the_banner_are_read_and_few_tokens_make_tpot_noise():
    r = parse_bench_text(PREFILL_BOUND)
    assert r.meta["max_concurrency"] == 30 and r.meta["request_rate"] == float("inf")
    [s] = explain(PREFILL_BOUND)
    said = messages(s)
    assert "max concurrency 30" in said and "no --max-concurrency" not in said  # the paste shows the cap
    # 603 tokens / 100 requests = 6 a request, under 16: TPOT is noise; mean TTFT 18.85 s > 6.03 x 875 ms of decode
    assert "only ~6 output tokens" in messages(s, "warn") and "prefill-bound" in messages(s, "warn")
    assert "very slow decode" not in said
    # with 64 tokens a request the decode is judged as before (no prefill-bound note)
    [more] = explain(PREFILL_BOUND.replace("603", "6400"))
    assert "prefill-bound" not in messages(more)


def test_a_mark_after_a_summary_value_is_read_past():
    # https://github.com/vllm-project/vllm/pull/38476: a poster's emoji after the output throughput
    text = PREFILL_BOUND.replace("Output token throughput (tok/s):         7.27",
                                 "Output token throughput (tok/s):         251.82 \U0001F525")
    assert parse_bench_text(text).summary["output_throughput"] == 251.82


def test_vllms_own_local_ray_beside_a_whole_cluster_is_the_cause_of_too_few_gpus():
    # https://github.com/vllm-project/vllm/issues/11539: `ray status` whole (2 nodes, 16 GPUs), then vLLM's own Ray
    text = ("Started a local Ray instance. View the dashboard at 127.0.0.1:8266 \nWARNING 02-02 19:54:20 ray_utils.py:315]"
            " The number of required GPUs exceeds the total number of available GPUs in the placement group.\n")
    [s] = explain(text, nodes=2)
    assert s.kind == "vllm-log" and "started a Ray instance of its own" in messages(s, "fail")
    assert "add the missing node" not in messages(s) and "RAY_ADDRESS" in messages(s, "fail")


# https://github.com/ray-project/ray/issues/59778: one rank's lines of a 32-rank communicator, a channel inside a node
PARTIAL = ("(RayWorkerWrapper pid=581, ip=10.225.128.18) k8s17:581:581 [0] NCCL INFO Trees [0] 17/24/-1->16->0 "
           "[1] 17/-1/-1->16->9\n(RayWorkerWrapper pid=581, ip=10.225.128.18) k8s17:581:581 [0] NCCL INFO Channel "
           "00/0 : 16[17000] -> 18[21000] via P2P/IPC comm 0x5609976f9470 nRanks 32\n")


def test_p2p_channels_of_a_communicator_across_machines_say_nothing_of_its_network():
    [s] = explain(PARTIAL, host="other", nodes=4)
    assert s.facts["nranks"] == 32  # read from the channel line's `comm 0x.. nRanks 32`
    said = messages(s)
    assert "no network was used" not in said and "of 32 ranks spans 4 machines" in said
    [alone] = explain(PARTIAL, host="other", nodes=1)  # one machine: every channel P2P is the whole story
    assert "no network was used" in messages(alone)


def test_shm_channels_off_a_spark_are_not_told_to_run_across_sparks():
    # https://github.com/vllm-project/vllm/issues/9920: two RTX 6000 Ada, NCCL's channels through host memory
    text = ("HP-Z8:23541:23673 [1] NCCL INFO Channel 00 : 1[1] -> 0[0] via SHM/direct/direct\n"
            "HP-Z8:23541:23673 [1] NCCL INFO Channel 01 : 1[1] -> 0[0] via SHM/direct/direct\n")
    [s] = explain(text, host="other")
    assert "Sparks" not in messages(s) and "no peer-to-peer path" in messages(s)


def test_one_rank_of_reduce_is_no_measurement_and_gets_no_spark_advice():
    # https://github.com/Anthony-Hoo/Anthony-Hoo.github.io (AutoDL post): reduce_perf on one 2080 Ti, in-place 0.19 us
    text = ("root@autodl:~/nccl-tests# ./build/reduce_perf -b 8 -e 1024M -f 2\n"
            "# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
            "validation: 1 graph: 0\n#\n# Using devices\n#  Rank  0 Group  0 Pid  31816 on autodl device  0 [0000:b4:00] "
            "NVIDIA GeForce RTX 2080 Ti\n#\n#                                                              out-of-place"
            "                       in-place\n#       size         count      type   redop    root     time   algbw   "
            "busbw #wrong     time   algbw     busbw  #wrong\n#        (B)    (elements)                               "
            "(us)  (GB/s)  (GB/s)            (us)  (GB/s)    (GB/s)\n"
            "  1073741824     268435456     float     sum       0   4016.0  267.37  267.37      0     0.19   5706839.35  "
            "5706839.35   0\n# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 2853553\n#\n")
    [s] = explain(text, host="other")
    said = messages(s)
    assert "busbw 0" not in said and "its figure means nothing" in said and "measures no link" in said
    assert "Spark" not in said and "-g 2" in said


def test_a_spark_port_without_a_cable_is_named_beside_the_cabled_one():
    # ideo-plus/DGX-Spark-x2-GLM5.3-Flash-NVFP4-vLLM-Recipe, serving/tests/fixtures/spark/head/ip-br-link.txt
    text = ("enp1s0f0np0      UP             02:00:00:00:00:02 <BROADCAST,MULTICAST,UP,LOWER_UP> \n"
            "enp1s0f1np1      DOWN           02:00:00:00:00:03 <NO-CARRIER,BROADCAST,MULTICAST,UP> \n"
            "enP2p1s0f0np0    UP             02:00:00:00:00:04 <BROADCAST,MULTICAST,UP,LOWER_UP> \n"
            "enP2p1s0f1np1    DOWN           02:00:00:00:00:05 <NO-CARRIER,BROADCAST,MULTICAST,UP> \n")
    [s] = explain(text, host="spark")
    assert "QSFP port 1 (further from the RJ45) has no link" in messages(s, "info") and "fail" not in levels(s)


def test_ethtool_link_detected_with_its_reason_is_read():
    # ideo-plus/...-Recipe, serving/tests/fixtures/spark/head/ethtool-enp1s0f1np1.txt (ethtool 6.x's reason)
    text = ("Settings for enp1s0f1np1:\n\tSpeed: Unknown!\n\tDuplex: Unknown! (255)\n\tAuto-negotiation: on\n"
            "\tLink detected: no (No cable)\n")
    [s] = explain(text, host="spark")
    assert s.facts["reports"][0]["link_detected"] is False  # `no (No cable)` is no, its reason aside
    assert levels(s) == ["info"] and "Expected if the cable is in the other QSFP port" in messages(s)


def test_ports_of_two_link_layers_are_named_each():
    # https://github.com/NVIDIA/daqiri docs/tutorials/system_configuration.md: one ConnectX-7, a port of each layer
    text = ("hca_id: mlx5_0\n\ttransport:\t\t\tInfiniBand (0)\n\tvendor_part_id:\t\t\t4129\n\tport:\t1\n"
            "\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\tlink_layer:\t\tEthernet\n\nhca_id: mlx5_1\n"
            "\ttransport:\t\t\tInfiniBand (0)\n\tvendor_part_id:\t\t\t4129\n\tport:\t1\n"
            "\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\tlink_layer:\t\tInfiniBand\n")
    [s] = explain(text, host="other")
    said = messages(s, "info")
    assert "Ethernet, i.e. RoCE, on mlx5_0 port 1; InfiniBand on mlx5_1 port 1" in said and "LINK_TYPE_P" in said


# https://github.com/esnet/iperf/issues/1088: iperf 3.1.3 --debug, its control messages' JSON between the text lines
DEBUG = """iperf 3.1.3
Linux kube-master 4.15.0-122-generic #124-Ubuntu SMP Thu Oct 15 13:03:05 UTC 2020 x86_64
send_parameters:
{
	"tcp":	true,
	"parallel":	1,
	"client_version":	"3.1.3"
}
Time: Tue, 01 Dec 2020 08:00:02 GMT
Connecting to host 10.0.0.4, port 12345
[  4] local 10.0.0.38 port 56366 connected to 10.0.0.4 port 12345
Starting Test: protocol: TCP, 1 streams, 131072 byte blocks, omitting 0 seconds, 20 second test
send_results
{
	"cpu_util_total":	10.995312,
	"streams":	[{
			"id":	1,
			"retransmits":	114
		}]
}
[ ID] Interval           Transfer     Bandwidth       Retr  Cwnd
[  4]   0.00-20.00  sec  29.9 GBytes  12.8 Gbits/sec  114    949 KBytes
"""


def test_iperf3_debug_output_is_one_output_read_past_its_json():
    r = parse_iperf3(DEBUG)
    assert (r.streams, r.sent_bps) == (1, 12.8e9)  # `Starting Test: ... 1 streams`; the one row's rate
    sections = explain(DEBUG, host="other")
    assert [s.kind for s in sections] == ["iperf3"] and sections[0].error is None
    assert "12.80 Gbit/s over TCP" in messages(sections[0])


def test_llama_benchy_rows_are_read_with_their_concurrency():
    # https://github.com/eugr/spark-vllm-docker/issues/231: llama-benchy against vLLM on two ASUS GX10, the last row cut
    text = ("$ llama-benchy --base-url http://localhost:8081/v1   --pp 2048   --tg 32   --concurrency 1 2\n"
            "| model                 |        test |      t/s (total) |        t/s (req) |      peak t/s |   peak t/s (req)"
            " |         ttfr (ms) |      est_ppt (ms) |     e2e_ttft (ms) |\n"
            "|:----------------------|------------:|-----------------:|-----------------:|--------------:|-------------"
            "----:|------------------:|------------------:|------------------:|\n"
            "| google/gemma-4-31B-it | pp2048 (c1) | 2139.59 ± 136.65 | 2139.59 ± 136.65 |               |             "
            "     |    965.87 ± 64.00 |    961.59 ± 64.00 |    965.87 ± 64.00 |\n"
            "| google/gemma-4-31B-it |   tg32 (c2) |     24.91 ± 8.27 |    18.50 ± 11.70 |  55.00 ± 5.89 |     29.61 ± "
            "5.59 |                   |                   |\n")
    [s] = explain(text)
    assert s.kind == "llama-bench" and s.error is None
    rows = s.facts["rows"]
    assert [(r["test"], r["tps"], r["tps_req"], r["ttft_ms"], r["concurrency"]) for r in rows] == [
        ("pp2048 (c1)", 2139.59, 2139.59, 965.87, 1), ("tg32 (c2)", 24.91, 18.5, None, 2)]
    assert "24.91 ± 8.27 tok/s for 2 request(s) at once, 18.5 tok/s each" in messages(s, "ok")


def test_a_latency_row_cut_after_t_typical_is_read_and_cpu_scaling_is_said():
    # https://github.com/openucx/ucx/issues/6242: ib_send_lat on a bond, perftest's cpufreq warning, the row cut
    text = (" Link type       : Ethernet\n GID index       : 3\n"
            "---------------------------------------------------------------------------------------\n"
            " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   "
            "99% percentile[usec]   99.9% percentile[usec] \n"
            "Conflicting CPU frequency values detected: 2428.573000 != 3004.218000. CPU Frequency is not max.\n"
            " 2       1000          5.43           7.90         5.84\n")
    [s] = explain("$ ib_send_lat -d mlx5_bond_0 -x 3 192.0.2.1\n" + text, host="other")
    [run] = s.facts["runs"]
    assert run["t_typical_us"] == 5.84 and run["truncated"]
    assert "t_typical 5.84 us for 2-byte messages (t_min 5.43 us)" in messages(s, "info")
    assert "performance governor" in messages(s, "info")


def test_a_note_after_the_rows_naming_the_command_in_backticks_is_set_aside():
    # Avarok-Cybersecurity/atlas docs/k3/LAB.md: a Spark's ibdev2netdev in a fence, then the author's line about spark2
    text = ("`ibdev2netdev` (spark1), 2026-09-11:\n\n```\nrocep1s0f0 port 1 ==> enp1s0f0np0 (Down)\n"
            "rocep1s0f1 port 1 ==> enp1s0f1np1 (Up)\nroceP2p1s0f0 port 1 ==> enP2p1s0f0np0 (Down)\n"
            "roceP2p1s0f1 port 1 ==> enP2p1s0f1np1 (Up)\n```\n\n`ibdev2netdev` (spark2): identical Up/Down pattern.\n")
    [s] = explain(text, host="spark")
    assert s.error is None and "QSFP port 1 (further from the RJ45) is cabled" in messages(s, "ok")
    assert "Not output, so not read: '`ibdev2netdev` (spark2)" in messages(s, "info")


def test_one_roce_v2_gid_per_address_of_a_netdev_is_listed():
    # magnate3/linux-riscv-dev's notes: three IPv4 addresses on one port, their RoCE v2 GIDs at 3, 5 and 7
    rows = "".join(f"mlx5_1  1       {i}       0000:0000:0000:0000:0000:ffff:0a16:74{h} 10.22.116.{a}   v{v}      "
                   "enp61s0f1np1\n" for i, h, a, v in ((2, "dd", 221, 1), (3, "dd", 221, 2), (4, "de", 222, 1),
                                                        (5, "de", 222, 2), (6, "df", 223, 1), (7, "df", 223, 2)))
    text = ("DEV     PORT    INDEX   GID                                     IPv4            VER     DEV\n"
            "---     ----    -----   ---                                     ------------    ---     ---\n"
            + rows + "n_gids_found=6\n")
    [s] = explain(text, host="other")
    assert "indexes 3, 5 and 7 carry 10.22.116.221, 10.22.116.222 and 10.22.116.223" in messages(s, "ok")
    assert "use 3 (the same for every active device" not in messages(s)


def test_a_p2p_test_cut_before_its_matrices_measured_nothing():
    # cuda-samples p2pBandwidthLatencyTest on 4x V100-SXM2, the paste stopping in the first matrix's title
    text = ("[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n"
            "Device: 0, Tesla V100-SXM2-16GB, pciBusID: 15, pciDeviceID: 0, pciDomainID:0\n"
            "Device: 1, Tesla V100-SXM2-16GB, pciBusID: 16, pciDeviceID: 0, pciDomainID:0\n"
            "Device=0 CAN Access Peer Device=1\nDevice=1 CAN Access Peer Device=0\n"
            "P2P Connectivity Matrix\n     D\\D     0     1\n     0\t     1     1\n     1\t     1     1\n"
            "Unidirectional P2P=Disabled Ban\n")
    [s] = explain(text, host="other")
    assert "Every pair can access its peer" in messages(s) and "nothing can be said of speed" in messages(s)


def test_a_speed_no_advertised_mode_gives_is_no_negotiated_rate():
    # an OpenWrt RTL83xx switch's empty SFP cage: 10Mb/s Half on a port of 1000base modes only, Link detected cut
    text = ("root@OpenWrt:~# ethtool lan9\nSettings for lan9:\n\tSupported ports: [ MII ]\n"
            "\tAdvertised link modes:  1000baseT/Full\n\t                        1000baseX/Full\n"
            "\tAdvertised auto-negotiation: Yes\n\tSpeed: 10Mb/s\n\tDuplex: Half\n\tAuto-negotiation: on\n")
    [s] = explain(text, host="other")
    # (a warning since session 37, corpus y008's reading of the same paste: most likely no link; Link detected decides)
    assert "10Mb/s is none of the rates the port advertises" in messages(s, "warn") and "broken pair" not in messages(s)


def test_many_interfaces_in_one_subnet_are_said_once():
    # an OCI GPU node: four RDMA ports in 192.168.0.0/16, as its image sets them up
    text = "".join(f"{n}: {i}: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 4220 qdisc mq state UP group default qlen 1000\n"
                   f"    inet 192.168.{o}.157/16 brd 192.168.255.255 scope global {i}\n"
                   for n, i, o in ((4, "enp72s0f0np0", 0), (5, "enp72s0f1np1", 8), (6, "enp76s0f0np0", 1),
                                   (7, "enp76s0f1np1", 9)))
    [s] = explain(text, host="other")
    # all four are RDMA NIC ports (np0/np1): the cloud image's flat multi-rail design, a note (the corpus's y002)
    [w] = [f.message for f in s.findings if "share the subnet" in f.message]
    assert w.startswith("4 interfaces share the subnet 192.168.0.0/16") and "arp_ignore=1" in w
    assert "warn" not in levels(s)


def test_topo_p2p_status_names_the_mode_asked():
    # Anthony-Hoo's AutoDL post: `nvidia-smi topo -p2p p` (PCIe) on two 2080 Ti, NS both ways
    text = ("root@autodl:~# nvidia-smi topo -p2p p\n \tGPU0\tGPU1\t\n GPU0\tX\tNS\t\n GPU1\tNS\tX\t\n\nLegend:\n\n"
            "  X    = Self\n  OK   = Status Ok\n  NS   = Not supported\n")
    [s] = explain(text, host="other")
    # a note since the oracle's session-39 revision (corpus x002): NS is what GeForce cards on the stock driver print
    assert "P2P over PCIe not supported (NS, `nvidia-smi topo -p2p p`)" in messages(s, "info")


def test_an_all_zero_gid_in_perftest_is_no_address_to_connect_from():
    # Mellanox/k8s-rdma-shared-dev-plugin#112: two pods' ib_write_bw at GID index 0, both GIDs zero, RTR refused
    text = ("user@pod1:~$ ib_write_bw -d mlx5_0  -F --report_gbits 10.56.217.73\n"
            " Link type       : Ethernet\n GID index       : 0\n"
            " local address: LID 0000 QPN 0x00da PSN 0x3a7b2e RKey 0x1fcfcd VAddr 0x007f0e4b8d0000\n"
            " GID: 00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00\n"
            " remote address: LID 0000 QPN 0x00da PSN 0x8c1a2b RKey 0x1fcfcd VAddr 0x007f5d2c7a0000\n"
            " GID: 00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00\n"
            "Failed to modify QP 218 to RTR\n")
    [s] = explain(text, host="other")
    assert s.facts["runs"][0]["zero_gids"] == ["local", "remote"]
    assert "the local and remote GIDs are all zeros" in messages(s, "fail")


def test_a_python_warning_alone_under_a_command_is_not_its_output():
    # https://github.com/baidu/vLLM-Kunlun/pull/361: ray status on a P800 node, the paste stops in a UserWarning
    text = ("(py310) root@node:/workspace# ray status\n/root/miniconda/envs/py310/lib/python3.10/site-packages/"
            "xpytorch_import_hook.py:6: UserWarning: pkg_resources is deprecated as an API. See https://setuptools."
            "pypa.io/en/latest/pkg_resources.html.\n")
    [s] = explain(text)
    assert s.error is None and "Only a Python warning is here" in messages(s, "info")


def test_a_show_gids_row_without_a_netdev_beside_roce_ports_is_an_infiniband_port():
    # magnate3/linux-riscv-dev's notes: six HCAs, the last one GID and no DEV (an InfiniBand port)
    text = ("DEV     PORT    INDEX   GID                                     IPv4            VER     DEV\n"
            "---     ----    -----   ---                                     ------------    ---     ---\n"
            "mlx5_1  1       2       0000:0000:0000:0000:0000:ffff:0a10:f239 10.16.242.57    v1      ens4f1\n"
            "mlx5_1  1       3       0000:0000:0000:0000:0000:ffff:0a10:f239 10.16.242.57    v2      ens4f1\n"
            "mlx5_5  1       0       fe80:0000:0000:0000:02aa:bb03:0000:0030                 v1\n"
            "n_gids_found=3\n")
    [s] = explain(text, host="other")
    assert "mlx5_5 has no netdev in this table: an InfiniBand port" in messages(s, "info")
    assert "its netdev ? has no IPv4" not in messages(s)


def test_the_namespace_line_above_a_summary_says_how_many_were_sent():
    # https://github.com/vllm-project/vllm/issues/8104: benchmark_serving's arguments, then its summary (1000 of 1000)
    text = ("Namespace(backend='vllm', base_url=None, host='localhost', port=8000, num_prompts=1000, "
            "request_rate=inf, seed=0)\nStarting initial single prompt test run...\nTraffic request rate: inf\n"
            "============ Serving Benchmark Result ============\nSuccessful requests:                     1000\n"
            "Benchmark duration (s):                  12105.85\nInput token throughput (tok/s):          1.61\n"
            "Output token throughput (tok/s):         113.73\nRequest throughput (req/s):              0.08\n"
            "==================================================\n")
    r = parse_bench_text(text)
    assert (r.meta["num_prompts"], r.meta["backend"]) == (1000, "vllm")
    [s] = explain(text)
    assert "1000 of 1000 requests completed" in messages(s, "ok") and "Input 1.61 tok/s" in messages(s, "info")


# blind batch z (session 30)

def test_ip_addr_filtered_to_its_address_lines_is_read_by_label():
    # KoyoImai/dgx_spark_cluster: `ip a | grep "192.168.111"` on a Spark, the RJ45 port and Wi-Fi on one LAN
    text = ('user@spark-0001:~/Desktop$ ip a | grep "192.168.111"\n'
            "    inet 192.168.111.42/24 brd 192.168.111.255 scope global dynamic noprefixroute enP7s7\n"
            "    inet 192.168.111.133/24 brd 192.168.111.255 scope global dynamic noprefixroute wlP9s9\n")
    [s] = explain(text, host="spark")
    assert s.error is None and "warn" not in levels(s)  # a grep: no "no QSFP interface in this whole list"
    assert "enP7s7 (192.168.111.42/24) and wlP9s9 (192.168.111.133/24) are in the same subnet" in messages(s, "info")


def test_a_fence_glued_to_a_log_line_comes_off_it():
    # a vLLM TP=2 start pasted with its opening fence on the first line (```` ``` (EngineCore_0 pid=...) ````)
    text = ("``` (EngineCore_0 pid=1422484) INFO 08-07 19:06:21 [kv_cache_utils.py:833] Maximum concurrency for "
            "40,960 tokens per request: 11.46x\nCapturing CUDA graph shapes: 100%|█████| 67/67 [00:07<00:00,  "
            "8.75it/s]\n(VllmWorker TP0 pid=1422634) INFO 08-07 19:06:29 [custom_all_reduce.py:196] Registering "
            "8643 cuda graph addresses```\n")
    [s] = explain(text)
    assert s.kind == "vllm-log" and "maximum concurrency 11.46x for 40,960-token requests" in messages(s)


def test_a_prompt_at_the_end_of_a_paste_is_no_command_that_printed_nothing():
    # a desktop's `sudo ethtool enp4s0`, then the next prompt copied with it
    text = ("$ sudo ethtool enp4s0\nSettings for enp4s0:\n\tSpeed: Unknown!\n\tLink detected: no\n$ sudo ethtool\n")
    *_, last = explain(text, host="other")
    assert last.error is None and "The paste ends at `sudo ethtool`" in messages(last, "info")
    [alone] = explain("$ sudo ethtool\n")  # a paste of only the command: nothing to read, as before
    assert alone.error == "the command printed nothing"


def test_nvls_set_up_failing_is_named_beside_ncclls_own_failure():
    # https://github.com/pytorch/pytorch/issues/150852: NCCL 2.26 on a 12.2 driver
    text = ("[2025-04-08 08:39:46] devgpu000:589012:591652 [0] transport/nvls.cc:254 NCCL WARN Cuda failure 1 "
            "'invalid argument'\ndevgpu000:589012:591652 [0] NCCL INFO transport/nvls.cc:409 -> 1\n"
            "[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
            "NCCLUtils.cpp:77, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.26.2\n")
    said = " ".join(messages(s, "fail") for s in explain(text, host="other"))
    assert "NCCL_NVLS_ENABLE=0" in said and "GID_INDEX" not in said  # no RoCE hint for a CUDA error


# the break-it review of session 30's changes (helper reproducers in the shapes named)

def test_a_long_progress_bar_line_is_read_in_linear_time():
    # a stuck offline run saved with its `\r` updates on one line, then interrupted: no quadratic search
    import time
    text = ("INFO 11-01 23:16:33 distributed_gpu_executor.py:56] # GPU blocks: 185231, # CPU blocks: 18724\n"
            + "Processed prompts:   0%|          | 0/16 [00:00<?, ?it/s, est. speed input: 0.00 toks/s] " * 4000
            + "\nKeyboardInterrupt\n")
    start = time.process_time()
    explain(text)
    assert time.process_time() - start < 5


def test_vllms_local_ray_with_the_backend_unnamed_still_warns_across_machines():
    # TP=2 on a Spark with no backend flag (vLLM chose Ray itself) and a placement group that waits
    text = ("INFO 01-01 10:00:00 [arg_utils.py:1] non-default args: {'tensor_parallel_size': 2}\n"
            "2026-01-01 10:00:01,000\tINFO worker.py:1917 -- Started a local Ray instance.\n"
            "INFO 01-01 10:00:31 [ray_utils.py:212] Waiting for creating a placement group of specs for 30 seconds.\n")
    [s] = explain(text, host="spark", nodes=2)
    assert "started a new one-node Ray instance" in messages(s, "warn") and "waiting for a Ray placement" in messages(s, "warn")
    [one] = explain(text, host="spark", nodes=1)  # told one machine: Ray's own instance is how it runs; the wait stays
    assert "how its Ray executor runs" in messages(one, "info") and "waiting for a Ray placement" in messages(one, "warn")


def test_a_setting_ethtool_refused_without_root_is_a_refusal():
    [s] = explain("$ ethtool -G enp1s0f0np0 rx 8192 tx 8192\nnetlink error: Operation not permitted\n", host="spark")
    assert "refused the change" in messages(s, "warn") and "says nothing about the link" not in messages(s)


def test_nvbandwidth_on_one_gpu_is_not_a_pair_without_peer_access():
    text = ("nvbandwidth Version: v0.8\nDevice 0: NVIDIA GB10\n\nWaiving device_to_device_memcpy_write_ce.\n")
    assert "no peer-to-peer access" not in " ".join(messages(s) for s in explain(text, host="spark"))


def test_a_missing_compiled_extension_or_namespace_module_is_not_a_version_mismatch():
    for name in ("vllm._C", "google.protobuf"):
        said = " ".join(messages(s) for s in explain(f"ModuleNotFoundError: No module named '{name}'\n"))
        assert "another version than" not in said, name


def test_few_output_tokens_one_request_at_a_time_is_not_queued_behind_others():
    text = PREFILL_BOUND.replace("Maximum request concurrency: 30", "Maximum request concurrency: 1")
    [s] = explain(text)
    assert "only ~6 output tokens" in messages(s, "info") and "prefill-bound" not in messages(s)


def test_iperf3_debug_indented_as_a_whole_is_read():
    indented = "".join("    " + line + "\n" for line in DEBUG.splitlines())
    [s] = explain(indented, host="other")
    assert s.error is None and "12.80 Gbit/s over TCP" in messages(s)


def test_a_persons_table_below_llama_benchy_is_not_a_result():
    text = ("| model | test | t/s (total) | t/s (req) |\n|:--|--:|--:|--:|\n| m | tg32 (c1) | 29.00 ± 0.10 | 29.00 ± 0.10 |\n"
            "| Config | pp2048 (tok/s) | tg32 (tok/s) | Notes |\n| Marlin + FlashInfer | 4341 | 31.9 | dequant |\n")
    s, mine = explain("$ llama-benchy --base-url http://localhost:8000/v1\n" + text)  # the person's: a results table
    assert [r["test"] for r in s.facts["rows"]] == ["tg32 (c1)"] and mine.kind == "results-table" and mine.error is None


def test_an_infiniband_port_initializing_on_a_trained_link_wants_a_subnet_manager():
    text = ("CA 'mlx5_0'\n\tCA type: MT4123\n\tPort 1:\n\t\tState: Initializing\n\t\tPhysical state: LinkUp\n"
            "\t\tLink layer: InfiniBand\n")
    [s] = explain(text, host="other")
    assert "no subnet manager has configured it" in messages(s, "warn") and "needs a cable" not in messages(s)


def test_topo_p2p_n_without_nvlink_is_not_p2p_off():
    text = "$ nvidia-smi topo -p2p n\n \tGPU0\tGPU1\t\n GPU0\tX\tNS\t\n GPU1\tNS\tX\t\n"
    [s] = explain(text, host="other")
    assert "no NVLink joins these cards" in messages(s, "info") and "warn" not in levels(s)


def test_nvidia_smi_not_found_in_a_container_names_the_gpus_flag():
    [s] = explain("root@abc123:/# nvidia-smi\nbash: nvidia-smi: command not found\n")
    assert "--gpus all" in messages(s, "fail") and "apt-file" not in messages(s)
