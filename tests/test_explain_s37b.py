"""Collective and network measurements the field corpus's misreadings of session 37 (issue 27) found explain reading
wrong: iperf3's shapes (UDP loss the same at every rate, a flow that stalls again and again, a --bidir test whose slow
direction retransmits) and NCCL's init facts. Each on real lines (the URL beside it), with a neighbouring healthy
output on which the rule stays silent."""

from __future__ import annotations


from grader.explain import explain
from tests.conftest import field_entry as _field, levels, messages


# https://github.com/esnet/iperf/issues/114 (pending xj009): three UDP tests, 84-85% lost at 0.1, 1 and 21 Gbit/s
UDP_THREE_RATES = """Test Complete. Summary Results:
[ ID] Interval           Transfer     Bandwidth       Jitter    Lost/Total Datagrams
[  4]   0.00-10.00  sec  1.24 GBytes  1.06 Gbits/sec  0.001 ms  135795/162217 (84%)
[  4] Sent 162217 datagrams
Test Complete. Summary Results:
[ ID] Interval           Transfer     Bandwidth       Jitter    Lost/Total Datagrams
[  4]   0.00-10.00  sec  24.8 GBytes  21.3 Gbits/sec  0.002 ms  2723914/3250236 (84%)
[  4] Sent 3250236 datagrams
Test Complete. Summary Results:
[ ID] Interval           Transfer     Bandwidth       Jitter    Lost/Total Datagrams
[  4]   0.00-10.00  sec   124 MBytes   104 Mbits/sec  0.038 ms  13456/15827 (85%)
"""


def test_udp_loss_the_same_at_every_rate_is_the_measurement_not_the_path():
    [s] = explain(UDP_THREE_RATES, host="other", nodes=2)
    said = messages(s, "warn")
    assert "84-85% of the datagrams lost in each of 3 tests" in said and "the same share at every rate" in said
    assert "it is the measurement or the receiver" in said and "the path drops datagrams" not in said
    assert "or a fixed share of frames dropped on the link" in said and "The NIC's error counters decide" in said
    # loss that grows with the rate is the path's: 0.5% at 0.1 Gbit/s, 40% at 21 Gbit/s
    growing = UDP_THREE_RATES.replace("2723914/3250236 (84%)", "1300094/3250236 (40%)").replace(
        "135795/162217 (84%)", "8110/162217 (5%)").replace("13456/15827 (85%)", "79/15827 (0.5%)")
    [g] = explain(growing, host="other", nodes=2)
    assert "the same share at every rate" not in messages(g)
    # one test alone says nothing of the rate: the loss warning as before
    [one] = explain(UDP_THREE_RATES.split("[  4] Sent 162217")[0], host="other", nodes=2)
    assert "the same share" not in messages(one) and "warn" in levels(one)


# https://github.com/esnet/iperf/issues/72 (pending xj019): iperf3 3.0's rows (a Retransmits column, no Cwnd)
WAN_STALLS = """./iperf3 -w64M -t20 -i1 -c newy-pt1
Connecting to host newy-pt1, port 5201
[  4] local 203.0.113.150 port 34137 connected to 203.0.113.54 port 5201
[ ID] Interval           Transfer     Bandwidth       Retransmits
[  4]   0.00-1.00   sec  76.2 MBytes   640 Mbits/sec  4
[  4]   1.00-2.00   sec  0.00 Bytes  0.00 bits/sec  2
iperf3: error: bytes <= 0!
[  4]   2.00-3.00   sec  1.25 MBytes  10.5 Mbits/sec  2
[  4]   3.00-4.00   sec  0.00 Bytes  0.00 bits/sec  2
iperf3: error: bytes <= 0!
[  4]   4.00-5.00   sec  1.25 MBytes  10.5 Mbits/sec  0
[  4]   5.00-6.00   sec  1.25 MBytes  10.5 Mbits/sec  2
[  4]   6.00-7.00   sec  1.25 MBytes  10.5 Mbits/sec  1
[  4]   7.00-8.00   sec  1.25 MBytes  10.5 Mbits/sec  1
"""


def test_a_flow_that_stalls_again_and_again_while_retransmitting_is_a_lossy_path():
    [s] = explain(WAN_STALLS, host="other", nodes=2)
    said = messages(s, "warn")
    assert "stalled again and again: 2 of the 7 seconds after the first moved 0 bytes" in said
    assert "7 of 8 seconds retransmitted (14 in all)" in said and "10.5 Mbit/s" in said
    # the same rows without a retransmission: no loss is shown, so no lossy path is said
    quiet = "\n".join(line[:-1] + "0" if line.startswith("[  4]   ") else line for line in WAN_STALLS.splitlines())
    [q] = explain(quiet, host="other", nodes=2)
    assert "stalled again and again" not in messages(q)


# https://github.com/opnsense/src/issues/277 (pending zy004): --bidir on 1 GbE, TX ~300 Mbit/s retransmitting
BIDIR = _field("zy004_iperf3_opnsense277")


def test_the_slow_direction_of_a_bidir_test_that_retransmits_is_a_warning():
    [s] = explain(BIDIR, host="other", nodes=2)
    said = messages(s, "warn")
    assert "asymmetric: TX 0.31 against RX 0.94 Gbit/s" in said and "retransmitted in 7 of its 7 seconds" in said
    # the same test with no retransmission in the slow direction: the asymmetry is said, as info
    clean = "\n".join(line.replace("   38   ", "    0   ").replace("   25   ", "    0   ").replace("   22   ", "    0   ")
                      .replace("   26   ", "    0   ").replace("   37   ", "    0   ").replace("   28   ", "    0   ")
                      for line in BIDIR.splitlines())
    [c] = explain(clean, host="other", nodes=2)
    assert "retransmitted in" not in messages(c) and "asymmetric" in messages(c, "info")


# https://github.com/NVIDIA/TensorRT-LLM/issues/9263 (pending zr009): a TP2 prefill worker's two ranks, one commId, one busId
SAME_GPU = """test-trt-prefill-worker-0-0:42:982 [0] NCCL INFO Using network Socket
test-trt-prefill-worker-0-0:42:982 [0] NCCL INFO ncclCommInitRank comm 0x7a12257c8780 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 100000 commId 0xaa9becea043c4e6c - Init START
test-trt-prefill-worker-0-0:43:43 [0] NCCL INFO NET/IB : No device found.
test-trt-prefill-worker-0-0:43:43 [0] NCCL INFO Using network Socket
test-trt-prefill-worker-0-0:43:43 [0] NCCL INFO ncclCommInitRank comm 0x397e3800 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 100000 commId 0xaa9becea043c4e6c - Init START
"""


def test_two_ranks_of_one_communicator_on_one_gpu_fail():
    [s] = explain(SAME_GPU, host="other", nodes=1)
    said = messages(s, "fail")
    assert "Ranks 0 and 1 of one communicator start on the same GPU (busId 100000" in said
    assert "Duplicate GPU detected" in said
    # each rank on its own GPU (the second on busId 200000), or the same GPU in two communicators: nothing said
    for other in (SAME_GPU.replace("rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 100000",
                                   "rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 200000"),
                  SAME_GPU.replace("rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 100000 commId 0xaa9becea043c4e6c",
                                   "rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 100000 commId 0x1111111111111111")):
        [o] = explain(other, host="other", nodes=1)
        assert "same GPU" not in messages(o) and "fail" not in levels(o)


def test_an_rdma_device_list_of_every_port_and_vf_is_a_warning():
    """https://github.com/NVIDIA/nccl/issues/224 (pending zl009): 34 RoCE devices on one host."""
    [s] = explain(_field("zl009_nccl-log_nccl224"), host="other")
    said = messages(s, "warn")
    assert "NCCL lists 34 RDMA devices on gpu6 (mlx5_18, mlx5_6" in said and "NCCL_IB_HCA" in said
    # ten devices on a host (corpus zb018: 8 GPUs' NICs and two more) are a server's own: not said
    [ten] = explain(_field("zb018_nccl-log_nccl1713"), host="other", nodes=2)
    assert "RDMA devices on" not in messages(ten)


def test_a_second_socket_interface_no_channel_uses_is_named():
    """https://github.com/NVIDIA/nccl/issues/278 (pending xo020): two ports a host, every ring on NET/Socket/0."""
    text = _field("xo020_nccl-log_nccl278")
    [s] = [x for x in explain(text, host="other", nodes=2) if x.findings]
    said = messages(s, "warn")
    assert "NCCL lists 2 socket interfaces (enP1p1s0f0, enP1p1s0f1)" in said and "`NET/Socket/0` (enP1p1s0f0)" in said
    # a ring on the second interface too: both carry channels, nothing said
    [b] = [x for x in explain(text.replace("[receive] via NET/Socket/0", "[receive] via NET/Socket/1"), host="other",
                              nodes=2) if x.findings]
    assert "socket interfaces" not in messages(b)
    # a docker veth beside the NIC is no second NIC (corpus zd016): not said
    [v] = [x for x in explain(_field("zd016_nccl-log_pytorch68893"), host="other", nodes=2) if x.findings][-1:]
    assert "socket interfaces" not in messages(v)


def test_p2p_that_could_not_be_enabled_warns_on_one_machine_only():
    """https://github.com/huggingface/transformers/issues/15618 (corpus zg018): an 8-GPU host's pairs without P2P,
    their channels through shared memory. On one machine that is the collectives' only path (warn); across machines
    (corpus z020, NCCL#1516: two nodes, init complete over NET/IB) the network is, and it stays a note."""
    [s] = explain(_field("zg018_nccl-log_transformers15618"), host="other", nodes=1)
    assert "could not enable CUDA peer-to-peer between GPUs 1 and 0" in messages(s, "warn")
    assert "on one machine" in messages(s, "warn")
    [two] = explain(_field("z020_nccl-log_nccl1516"), host="other", nodes=2)
    said = messages(two)
    assert "could not enable CUDA peer-to-peer" in messages(two, "info") and "on one machine" not in said
    # NCCL's own `nNodes 1` says one machine where explain is not told
    one = "srv:1:2 [0] NCCL INFO comm 0x5 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n" + \
        "srv:1:2 [1] NCCL INFO Could not enable P2P between dev 1(=1b000) and dev 0(=1a000)\n"
    [n] = explain(one, host="other")
    assert "could not enable CUDA peer-to-peer between GPUs 1 and 0" in messages(n, "warn")


def test_nccls_topology_dump_with_gpus_across_sockets_warns_and_an_nvswitch_is_named():
    """https://github.com/NVIDIA/nccl-tests/issues/307 (corpus f030): eight RTX 4090, PHB within each four, SYS
    between; https://github.com/NVIDIA/nccl/issues/901 (pending xk014): `+ NVL[160.0] - NVS/0` under each GPU."""
    [s] = explain(_field("f030_nccl-log_ncclt307"), host="other", nodes=1)
    said = messages(s, "warn")
    assert "4 GPU pair(s) joined through SYS at 10 GB/s (e.g. 50000-ce000)" in said and "4 through PHB (24 GB/s)" in said
    # the same GPU's paths inside one socket only: named, no warning
    one_socket = "node031:1:2 [7] NCCL INFO GPU/50000 :GPU/0-4e000 (4/24.0/PHB) GPU/0-4f000 (4/24.0/PHB) " \
                 "GPU/0-50000 (0/5000.0/LOC) GPU/0-51000 (4/24.0/PHB)\n"
    [o] = explain(one_socket, host="other", nodes=1)
    assert "3 through PHB (24 GB/s)" in messages(o, "info") and "warn" not in levels(o)
    [n] = explain(_field("xk014_nccl-log_nccl901"), host="other", nodes=1)
    assert "NVLink to an NVSwitch (`NVL[160] - NVS`)" in messages(n, "info") and "warn" not in levels(n)


def test_nccls_cpu_affinity_lines_are_grouped_by_mask():
    """https://github.com/NVIDIA/nccl/issues/1017 (pending xk015): two H100 VMs, GPUs 0-3 on one CPU set, 4-7 on the
    other; the paste's last line is cut inside its mask (the longer one of GPU 6 is kept)."""
    [s] = explain(_field("xk015_nccl-log_nccl1017"), host="other", nodes=2)
    said = messages(s, "info")
    assert "GPU 0, 1, 2, 3: ffffff,ffffffff,ffffffff; GPU 4, 5, 6, 7: ffff,ffffffff,ffffffff,ff000000" in said
    assert "2 different CPU sets" in said and "warn" not in levels(s)


def test_sockets_in_an_excerpt_that_does_not_say_how_many_machines_are_a_note_off_a_spark():
    """LLaMA-Factory's 8-GPU job (corpus zq015): no RDMA device, NET/Socket on eth1, no channel line and no nNodes.
    On a host told not a Spark TCP may be all there is and carried nothing here: a note naming what decides it; on a
    Spark (or unknown host) the same lines stay a warning (sockets there mean the QSFP link went unused)."""
    text = _field("zq015_nccl-log_llamafactory")
    [s] = explain(text, host="other")
    assert "This excerpt does not say which" in messages(s, "info") and "warn" not in levels(s)
    [u] = explain(text)
    assert "This excerpt does not say which" in messages(u, "warn")


def test_nccl_tests_invalid_device_ordinal_is_a_placement_fault():
    """https://github.com/NVIDIA/nccl-tests/issues/132 (pending xp003): mpirun -np 2 over a machinefile, each host one
    GPU; the rank on labnodedevai fails in cudaSetDevice."""
    [s] = [x for x in explain(_field("xp003_mixed_nccltests132"), host="other", nodes=2) if x.kind == "nccl-tests"]
    said = messages(s, "fail")
    assert "asked for a GPU index its host does not have" in said and "slots=1" in said and "--map-by node" in said
    [ordinal] = [f.message for f in s.findings if "GPU index" in f.message]
    assert "NCCL_IB_GID_INDEX" not in ordinal  # the generic advice is not given for the known line


# https://github.com/AdrielEP/test (ReadMe.md, pending xj013): two 10 GbE links; iperf2's server, a summary row per
# client, then a client with -w 8k
IPERF2_SERVER = """$ iperf -s
------------------------------------------------------------
Server listening on TCP port 5001
TCP window size:  128 KByte (default)
------------------------------------------------------------
[  1] local 10.2.10.48 port 5001 connected with 10.2.10.70 port 52334
[ ID] Interval       Transfer     Bandwidth
[  1] 0.0000-10.0022 sec  11.5 GBytes  9.90 Gbits/sec
[  2] local 10.2.11.49 port 5001 connected with 10.2.11.72 port 32784
[ ID] Interval       Transfer     Bandwidth
[  2] 0.0000-10.0029 sec  11.5 GBytes  9.90 Gbits/sec
[  5] local 10.2.11.49 port 5001 connected with 10.2.11.72 port 44918
[ ID] Interval       Transfer     Bandwidth
[  5] 0.0000-10.0004 sec  3.12 GBytes  2.68 Gbits/sec
"""
IPERF2_SMALL_WINDOW = """$ iperf -c 10.2.11.49 --window 8k
------------------------------------------------------------
Client connecting to 10.2.11.49, TCP port 5001
TCP window size: 15.6 KByte (WARNING: requested 7.81 KByte)
------------------------------------------------------------
[  1] local 10.2.11.72 port 44918 connected with 10.2.11.49 port 5001
[ ID] Interval       Transfer     Bandwidth
[  1] 0.0000-10.0045 sec  3.12 GBytes  2.68 Gbits/sec
"""


def test_iperf2_server_rows_of_separate_clients_are_separate_tests():
    [s] = explain(IPERF2_SERVER, host="other", nodes=2)
    said = messages(s)
    assert "3 tests one after the other" in said and "9.9, 9.9, 2.68 Gbit/s" in said
    assert "9.90 Gbit/s over TCP" in said and "warn" not in levels(s)
    # one iperf3 test of two streams (two connections, then rows of one interval): one test, added up
    p2 = ("[  5] local 10.0.0.1 port 1 connected to 10.0.0.2 port 5201\n[  7] local 10.0.0.1 port 2 connected to "
          "10.0.0.2 port 5201\n[ ID] Interval           Transfer     Bitrate         Retr  Cwnd\n"
          "[  5]   0.00-1.00   sec   560 MBytes  4.70 Gbits/sec    0   1.2 MBytes\n"
          "[  7]   0.00-1.00   sec   560 MBytes  4.70 Gbits/sec    0   1.2 MBytes\n")
    [p] = explain(p2, host="other", nodes=2)
    assert "tests one after the other" not in messages(p) and "9.40" in messages(p)


def test_a_small_tcp_window_asked_is_the_rates_limit_not_the_link():
    [s] = explain(IPERF2_SMALL_WINDOW, host="other", nodes=2)
    assert "TCP window of 8k asked" in messages(s, "info") and "warn" not in levels(s)
    # the same rate without -w: the link comparison (a warning) as before; a large window is no limit either
    for command in ("$ iperf -c 10.2.11.49", "$ iperf -c 10.2.11.49 -w 4M"):
        [o] = explain(IPERF2_SMALL_WINDOW.replace("$ iperf -c 10.2.11.49 --window 8k", command), host="other", nodes=2)
        assert "window of" not in messages(o) and "warn" in levels(o)


# https://github.com/esnet/iperf/issues/198 (pending xj012): iperf3 through bwctl, -w 32m asked
WINDOW_FLAT = """Connecting to host 203.0.113.4, port 5019
[ 15] local 203.0.113.121 port 42668 connected to 203.0.113.4 port 5019
[ ID] Interval           Transfer     Bandwidth       Retr  Cwnd
[ 15]   0.00-1.00   sec  47.5 MBytes   398 Mbits/sec    0    822 KBytes
[ 15]   1.00-2.00   sec  11.2 MBytes  94.4 Mbits/sec    0    822 KBytes
[ 15]   2.00-3.00   sec  11.2 MBytes  94.4 Mbits/sec    0    822 KBytes
[ 15]   3.00-4.00   sec  12.5 MBytes   105 Mbits/sec    0    822 KBytes
[ 15]   4.00-5.00   sec  11.2 MBytes  94.4 Mbits/sec    0    822 KBytes
[ 15]   5.00-6.00   sec  10.0 MBytes  83.9 Mbits/sec    0    822 KBytes
"""


def test_a_flow_with_a_fixed_window_and_no_loss_is_window_bound():
    [s] = explain(WINDOW_FLAT, host="other", nodes=2)
    said = messages(s, "warn")
    assert "congestion window fixed at 822 KBytes" in said and "a round trip of about" in said
    # a 10 GbE link full at its TCP ceiling with a fixed window: the link is the limit, nothing said
    full = WINDOW_FLAT.replace("94.4 Mbits/sec", "9.41 Gbits/sec").replace("105 Mbits/sec", "9.42 Gbits/sec").replace(
        "83.9 Mbits/sec", "9.40 Gbits/sec")
    [f] = explain(full, host="other", nodes=2)
    assert "window fixed" not in messages(f)
    # a window that grows, or a retransmission: no cap by a window is shown
    [g] = explain(WINDOW_FLAT.replace("4.00-5.00   sec  11.2 MBytes  94.4 Mbits/sec    0    822",
                                      "4.00-5.00   sec  11.2 MBytes  94.4 Mbits/sec    3    411"), host="other", nodes=2)
    assert "window fixed" not in messages(g)
