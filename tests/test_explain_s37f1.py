"""Readings a break-it review (session 37) found confidently wrong in rules added that day, each fed the review's
reproducer (its lines copied below) and asserted gone, with the field entry the rule was built for still read (the URL
beside it)."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import levels, messages

FIELD = Path(__file__).resolve().parent / "fixtures" / "field"


def _field(stem: str) -> str:
    [path] = [p for d in ("corpus", "pending") for p in (FIELD / d).glob(f"{stem}*.txt")]
    return path.read_text()


# Two machines cloned from one image (hostname `ubuntu` on both), one GPU each: NCCL's own lines say two nodes, one
# local rank each, different bootstrap addresses, and both ranks complete init.
TWO_NODES_ONE_NAME = """\
ubuntu:2101:2101 [0] NCCL INFO Bootstrap : Using enp1s0:10.0.0.11<0>
ubuntu:2101:2101 [0] NCCL INFO NCCL version 2.21.5+cuda12.4
ubuntu:1877:1877 [0] NCCL INFO Bootstrap : Using enp1s0:10.0.0.12<0>
ubuntu:2101:2130 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB enp1s0:10.0.0.11<0>
ubuntu:1877:1905 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB enp1s0:10.0.0.12<0>
ubuntu:2101:2130 [0] NCCL INFO ncclCommInitRank comm 0x55e1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0x3b5c7e9a1d2f4e60 - Init START
ubuntu:1877:1905 [0] NCCL INFO ncclCommInitRank comm 0x5612 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0x3b5c7e9a1d2f4e60 - Init START
ubuntu:2101:2130 [0] NCCL INFO comm 0x55e1 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0
ubuntu:1877:1905 [0] NCCL INFO comm 0x5612 rank 1 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0
ubuntu:2101:2130 [0] NCCL INFO Channel 00/02 :    0   1
ubuntu:2101:2130 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0
ubuntu:2101:2130 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0
ubuntu:1877:1905 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/IB/0
ubuntu:1877:1905 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [send] via NET/IB/0
ubuntu:2101:2130 [0] NCCL INFO Connected all rings
ubuntu:2101:2130 [0] NCCL INFO ncclCommInitRank comm 0x55e1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0x3b5c7e9a1d2f4e60 - Init COMPLETE
ubuntu:1877:1905 [0] NCCL INFO ncclCommInitRank comm 0x5612 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0x3b5c7e9a1d2f4e60 - Init COMPLETE
"""


def test_two_nodes_of_one_hostname_are_not_two_ranks_on_one_gpu():
    """NCCL's init.cc refuses a GPU twice before Init COMPLETE; `nNodes 2 localRanks 1` puts each rank on its own node.
    The rule's own case, https://github.com/NVIDIA/TensorRT-LLM/issues/9263 (pending zr009), still fails."""
    [s] = explain(TWO_NODES_ONE_NAME, host="other")
    said = messages(s)
    assert "same GPU" not in said and "fail" not in levels(s)
    assert "GPUs of the same machine go over the network" not in said  # (two machines, not one)
    # either sign alone is enough: no localRanks line, or init never completed
    no_layout = "\n".join(x for x in TWO_NODES_ONE_NAME.splitlines() if "localRanks" not in x)
    no_done = "\n".join(x for x in TWO_NODES_ONE_NAME.splitlines() if "Init COMPLETE" not in x)
    assert "same GPU" not in messages(explain(no_layout, host="other")[0])
    assert "same GPU" not in messages(explain(no_done, host="other")[0])
    [z] = explain(_field("zr009_nccl-log_trtllm"), host="other")
    assert "Ranks 0 and 1 of one communicator start on the same GPU (busId 100000" in messages(z, "fail")


# One process (global rank 0) timing out in two process groups, each at its own sequence 1.
ONE_RANK_TWO_GROUPS = """\
[rank0]:[E ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.
[rank0]:[E ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=BROADCAST, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) ran for 600047 milliseconds before timing out.
[rank0]:[E ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank 0] Exception (either an error or timeout) detected by watchdog at work: 1, last enqueued NCCL work: 1, last completed NCCL work: 0.
[rank0]:[E ProcessGroupNCCL.cpp:1664] [PG 2 Rank 0] Exception (either an error or timeout) detected by watchdog at work: 1, last enqueued NCCL work: 1, last completed NCCL work: 0.
[rank0]:[E ProcessGroupNCCL.cpp:621] [Rank 0] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.
[rank0]:[E ProcessGroupNCCL.cpp:627] [Rank 0] To avoid data inconsistency, we are taking the entire process down.
"""


def test_one_rank_in_two_process_groups_is_no_desync():
    """Sequence numbers count per process group (PyTorch's ProcessGroupNCCL.cpp): one rank's two groups at seq 1 say
    nothing of an order. https://github.com/NVIDIA/nccl/issues/1409 (pending xn001: ranks 7 and 3 of the default
    group at 80078, BROADCAST against ALLREDUCE) is still a desync."""
    [s] = explain(ONE_RANK_TWO_GROUPS, host="other")
    said = messages(s)
    assert "different collectives at the same step" not in said and "desync" not in said
    assert "watchdog gave up on `ALLREDUCE` (sequence 1)" in messages(s, "fail")
    # two ranks, each line naming its group: different groups say nothing; one group is a desync
    two = ("[rank0]:[E ProcessGroupNCCL.cpp:607] [PG 0 (default_pg) Rank 0] Watchdog caught collective operation "
           "timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600012 ms\n"
           "[rank1]:[E ProcessGroupNCCL.cpp:607] [PG {g} Rank 1] Watchdog caught collective operation timeout: "
           "WorkNCCL(SeqNum=5, OpType=BROADCAST, NumelIn=8, NumelOut=8, Timeout(ms)=600000) ran for 600047 ms\n")
    assert "different collectives at the same step" not in messages(explain(two.format(g=2), host="other")[0])
    assert "different collectives at the same step" in messages(explain(two.format(g="0 (default_pg)"),
                                                                        host="other")[0], "fail")
    [x] = explain(_field("xn001_other_nccl1409"), host="other", nodes=1)
    assert "different collectives at the same step: at sequence 80078" in messages(x, "fail")


# NCCL's rank 1 of a two-rank communicator aborts; PyTorch's rank 3 (of a larger group) times out in another.
ABORT_AND_OTHER_GROUP = """\
node2:8812:8990 [1] NCCL INFO comm 0x7f3a1c00 rank 1 nranks 2 cudaDev 1 busId 41000 - Abort COMPLETE
[rank3]:[E1106 04:43:01.018941581 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=48, OpType=ALLREDUCE, NumelIn=8388608, NumelOut=8388608, Timeout(ms)=600000) ran for 600070 milliseconds before timing out.
[rank3]:[E1106 04:43:01.019012331 ProcessGroupNCCL.cpp:1785] [PG 1 Rank 3] Exception (either an error or timeout) detected by watchdog at work: 48, last enqueued NCCL work: 48, last completed NCCL work: 47.
"""


def test_an_abort_and_a_timeout_of_ranks_no_communicator_holds_are_not_tied():
    """Rank 3 cannot be of a two-rank communicator. https://github.com/NVIDIA/nccl/issues/1504 (pending xn006: rank 0
    of 4 aborts, rank 1 times out) is still read as the rank that left."""
    [s] = explain(ABORT_AND_OTHER_GROUP, host="other")
    said = messages(s)
    assert "aborted its communicator" not in said and "was still waiting" not in said
    assert "watchdog gave up on `ALLREDUCE` (sequence 48)" in messages(s, "fail")
    [x] = explain(_field("xn006_nccl-log_nccl1504"), host="other", nodes=1)
    assert "Rank 0 of 4 aborted its communicator" in messages(x, "fail") and "rank 1's watchdog" in messages(x)


# iperf3 paced to 500 Mbit/s (-b): the window stays where the pacing left it.
PACED = """$ iperf3 -c 10.0.0.2 -b 500M -t 10
Connecting to host 10.0.0.2, port 5201
[  5] local 10.0.0.1 port 43210 connected to 10.0.0.2 port 5201
[ ID] Interval           Transfer     Bitrate         Retr  Cwnd
""" + "".join(f"[  5]   {i}.00-{i + 1}.00   sec  59.6 MBytes   500 Mbits/sec    0    372 KBytes\n" for i in range(10)) + """\
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate         Retr
[  5]   0.00-10.00  sec   596 MBytes   500 Mbits/sec    0             sender
[  5]   0.00-10.00  sec   596 MBytes   500 Mbits/sec                  receiver

iperf Done.
"""

# A host to its VM over a virtio bridge: 17.8 Gbit/s flat, Cwnd 3.07 MBytes, no loss (one CPU core's rate).
VM_FLAT = PACED.replace("$ iperf3 -c 10.0.0.2 -b 500M -t 10", "$ iperf3 -c 192.168.122.12").replace(
    "10.0.0.1 port 43210 connected to 10.0.0.2", "192.168.122.1 port 51234 connected to 192.168.122.12").replace(
    "Connecting to host 10.0.0.2", "Connecting to host 192.168.122.12").replace(
    "59.6 MBytes   500 Mbits/sec    0    372 KBytes", "2.07 GBytes  17.8 Gbits/sec    0   3.07 MBytes").replace(
    "596 MBytes   500 Mbits/sec", "20.7 GBytes  17.8 Gbits/sec")


def test_a_flat_window_is_a_cap_only_on_a_long_path_and_never_in_a_paced_test():
    """Linux's tcp_cong_avoid grows cwnd only while the flow is window-limited (tcp_is_cwnd_limited), so a paced or
    CPU-bound flow keeps it flat too. https://github.com/esnet/iperf/issues/198 (pending xj012: 822 KBytes at 94 Mbit/s,
    a 71 ms round trip across a WAN) stays a warning."""
    [p] = explain(PACED, host="other")
    assert "window" not in messages(p) and "warn" not in levels(p) and "paced to" in messages(p, "info")
    [v] = explain(VM_FLAT, host="other")
    said = messages(v, "info")
    assert "window caps the flow" not in messages(v, "warn") and "congestion window fixed at 3144 KBytes" in said
    assert "Either a window caps it" in said and "about 1.4 ms" in said and "`ping`" in said and "CPU" in said
    said = " ".join(messages(x, "warn") for x in explain(_field("xj012_other_bwctl198"), host="other", nodes=2))
    assert "congestion window fixed at 822 KBytes" in said and "a window caps the flow" in said and "71 ms" in said


# One UDP test seen from the server: ten interval rows, a last stub interval of 0.04 s, one receiver summary.
UDP_SERVER_ONE_TEST = """$ iperf3 -s
-----------------------------------------------------------
Server listening on 5201
-----------------------------------------------------------
Accepted connection from 10.0.0.1, port 40412
[  5] local 10.0.0.2 port 5201 connected to 10.0.0.1 port 52110
[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams
[  5]   0.00-1.00   sec   114 MBytes   953 Mbits/sec  0.027 ms  4028/86330 (4.7%)
[  5]   1.00-2.00   sec   114 MBytes   954 Mbits/sec  0.039 ms  3963/86330 (4.6%)
[  5]   2.00-3.00   sec   113 MBytes   951 Mbits/sec  0.030 ms  4249/86330 (4.9%)
[  5]   3.00-4.00   sec   113 MBytes   951 Mbits/sec  0.029 ms  4235/86330 (4.9%)
[  5]   4.00-5.00   sec   114 MBytes   955 Mbits/sec  0.036 ms  3892/86330 (4.5%)
[  5]   5.00-6.00   sec   113 MBytes   952 Mbits/sec  0.027 ms  4168/86330 (4.8%)
[  5]   6.00-7.00   sec   114 MBytes   953 Mbits/sec  0.032 ms  4026/86330 (4.7%)
[  5]   7.00-8.00   sec   113 MBytes   952 Mbits/sec  0.036 ms  4169/86330 (4.8%)
[  5]   8.00-9.00   sec   113 MBytes   951 Mbits/sec  0.022 ms  4216/86330 (4.9%)
[  5]   9.00-10.00  sec   113 MBytes   951 Mbits/sec  0.014 ms  4271/86330 (4.9%)
[  5]  10.00-10.04  sec   464 KBytes  95.0 Mbits/sec  0.021 ms  17/345 (4.9%)
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams
[  5]   0.00-10.04  sec  1.11 GBytes   949 Mbits/sec  0.021 ms  41234/863645 (4.8%)  receiver
"""

# Three iperf3 UDP tests (its old `Test Complete` summaries) losing 3% at 50, 500 and 950 Mbit/s alike.
UDP_THREE_FIXED_DROP = """Three UDP tests over the same 1 GbE link (ethtool -S shows rx_crc_errors climbing on the far end):

50M test:
Test Complete. Summary Results:
[ ID] Interval           Transfer     Bandwidth       Jitter    Lost/Total Datagrams
[  4]   0.00-10.00  sec  57.8 MBytes  48.5 Mbits/sec  0.021 ms  1302/43165 (3%)
[  4] Sent 43165 datagrams

500M test:
Test Complete. Summary Results:
[ ID] Interval           Transfer     Bandwidth       Jitter    Lost/Total Datagrams
[  4]   0.00-10.00  sec   578 MBytes   485 Mbits/sec  0.012 ms  13390/431630 (3.1%)
[  4] Sent 431630 datagrams

950M test:
Test Complete. Summary Results:
[ ID] Interval           Transfer     Bandwidth       Jitter    Lost/Total Datagrams
[  4]   0.00-10.00  sec  1.07 GBytes   920 Mbits/sec  0.010 ms  26210/820100 (3.2%)
[  4] Sent 820100 datagrams
"""


def test_udp_tests_are_counted_by_their_summaries_and_a_fixed_loss_is_hedged():
    """A test's interval rows (the stub last one too) are one test, not eleven. Loss the same at every rate is the
    measurement or a fixed drop on the link (CRC errors drop a share of frames whatever the rate): the NIC's counters
    decide. https://github.com/esnet/iperf/issues/114 (pending xj009: 84-85% at 0.1, 1 and 21 Gbit/s) still warns."""
    from grader.parsers.iperf3 import parse_iperf3_intervals
    assert parse_iperf3_intervals(UDP_SERVER_ONE_TEST).udp_runs == ((0.949, 41234, 863645),)
    [s] = explain(UDP_SERVER_ONE_TEST, host="other")
    assert "same share at every rate" not in messages(s) and "tests" not in messages(s, "warn")
    assert "41,234 of 863,645 datagrams lost (4.8%)" in messages(s, "warn")
    [c] = explain(UDP_THREE_FIXED_DROP, host="other")
    said = messages(c, "warn")
    assert "3% of the datagrams lost in each of 3 tests" in said and "the measurement or the receiver" in said
    assert "a fixed share of frames dropped on the link" in said and "The NIC's error counters decide" in said
    [x] = explain(_field("xj009_iperf3_iperf114"), host="other", nodes=2)
    assert "84-85% of the datagrams lost in each of 3 tests" in messages(x, "warn")


# Two (then three) Ray workers logging the same 60 s wait at the same second: one minute, not two or three.
WAIT_ONE_MINUTE = """\
INFO 03-12 10:02:11 [core.py:58] Initializing a V1 LLM engine (v0.8.4) with config: model='Qwen/Qwen3-235B-A22B-FP8', tensor_parallel_size=2, pipeline_parallel_size=2
INFO 03-12 10:02:40 [gpu_model_runner.py:1174] Loading model weights took 60.1 GB
INFO 03-12 10:03:15 [backends.py:409] Using cache directory: /root/.cache/vllm/torch_compile_cache/5d3b1f/rank_0_0 for vLLM's torch.compile
(RayWorkerWrapper pid=412) INFO 03-12 10:04:20 [shm_broadcast.py:466] No available shared memory broadcast block found in 60 seconds. This typically happens when some processes are hanging or doing some time-consuming work (e.g. compilation).
(RayWorkerWrapper pid=1188, ip=10.0.0.12) INFO 03-12 10:04:20 [shm_broadcast.py:466] No available shared memory broadcast block found in 60 seconds. This typically happens when some processes are hanging or doing some time-consuming work (e.g. compilation).
"""
THIRD = ("(RayWorkerWrapper pid=1190, ip=10.0.0.13) INFO 03-12 10:04:20 [shm_broadcast.py:466] No available shared "
         "memory broadcast block found in 60 seconds. This typically happens when some processes are hanging or doing "
         "some time-consuming work (e.g. compilation).\n")


def test_several_processes_logging_one_wait_are_one_minute():
    """vLLM's shm_broadcast.py logs the wait once a minute in each process that waits. The rule's own case,
    https://github.com/vllm-project/vllm/issues/51986 (pending xe003: five minutes of one process), still warns."""
    for text in (WAIT_ONE_MINUTE, WAIT_ONE_MINUTE + THIRD):
        [s] = explain(text, host="other")
        said = messages(s)
        assert "times in a row that it waited" not in said and "minutes with nothing else logged" not in said
    # one process logging it minute after minute is a run
    later = WAIT_ONE_MINUTE.replace("pid=1188, ip=10.0.0.12) INFO 03-12 10:04:20", "pid=412) INFO 03-12 10:05:20")
    assert "logged 2 times in a row that it waited 60 s" in messages(explain(later, host="other")[0], "warn")
    [x] = explain(_field("xe003_vllm-log_vllm51986"), host="other", nodes=2)
    assert "logged 5 times in a row that it waited 60 s" in messages(x, "warn")


# NCCL over sockets listing a data port and a management port of another network; every channel on the first.
SOCKET_DATA_AND_MGMT = """\
node1:3301:3301 [0] NCCL INFO Bootstrap : Using ens1f0:10.10.0.1<0>
node1:3301:3301 [0] NCCL INFO NCCL version 2.20.5+cuda12.4
node1:3301:3340 [0] NCCL INFO NET/IB : No device found.
node1:3301:3340 [0] NCCL INFO NET/Socket : Using [0]ens1f0:10.10.0.1<0> [1]eno1:192.168.1.21<0>
node1:3301:3340 [0] NCCL INFO Using network Socket
node1:3301:3340 [0] NCCL INFO comm 0x55a0 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0
node1:3301:3340 [0] NCCL INFO Channel 00/02 :    0   1
node1:3301:3340 [0] NCCL INFO Channel 01/02 :    0   1
node1:3301:3340 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/Socket/0
node1:3301:3340 [0] NCCL INFO Channel 01/0 : 1[0] -> 0[0] [receive] via NET/Socket/0
node1:3301:3340 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0
node1:3301:3340 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] [send] via NET/Socket/0
node1:3301:3340 [0] NCCL INFO Connected all rings
node1:3301:3340 [0] NCCL INFO ncclCommInitRank comm 0x55a0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0x1a2b3c4d5e6f7081 - Init COMPLETE
"""


def test_an_idle_management_port_is_no_second_data_port():
    """NCCL's NET/Socket lists every interface it may use; one on another network (192.168.1.x beside 10.10.0.x) carries
    no channel rightly. https://github.com/NVIDIA/nccl/issues/278 (pending xo020: two ports of one /24, every ring on
    NET/Socket/0) still warns."""
    [s] = explain(SOCKET_DATA_AND_MGMT, host="other", nodes=2)
    assert "bonding the ports gives NCCL one interface" not in messages(s, "warn")
    said = messages(s, "info")
    assert "eno1 (192.168.1.21) carries none of them" in said and "likely another network" in said
    said = " ".join(messages(x, "warn") for x in explain(_field("xo020_nccl-log_nccl278"), host="other", nodes=2))
    assert "enP1p1s0f1 on the same subnet carries none of them" in said and "bonding the ports" in said


# A --bidir test: TX 4.03 Gbit/s with 1-3 retransmissions a second (20 in 4.69 GBytes), RX 9.41 Gbit/s.
BIDIR_FEW_RETR = """$ iperf3 -c 10.0.0.2 --bidir -t 10
Connecting to host 10.0.0.2, port 5201
[  5] local 10.0.0.1 port 43110 connected to 10.0.0.2 port 5201
[  7] local 10.0.0.1 port 43112 connected to 10.0.0.2 port 5201
[ ID][Role] Interval           Transfer     Bitrate         Retr  Cwnd
""" + "".join(f"[  5][TX-C]   {i}.00-{i + 1}.00   sec   480 MBytes  4.03 Gbits/sec    {n}   1.41 MBytes\n"
              f"[  7][RX-C]   {i}.00-{i + 1}.00   sec  1.10 GBytes  9.41 Gbits/sec\n"
              for i, n in enumerate((3, 3, 1, 2, 2, 1, 2, 1, 3, 2))) + """\
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID][Role] Interval           Transfer     Bitrate         Retr
[  5][TX-C]   0.00-10.00  sec  4.69 GBytes  4.03 Gbits/sec   21             sender
[  5][TX-C]   0.00-10.00  sec  4.69 GBytes  4.03 Gbits/sec                  receiver
[  7][RX-C]   0.00-10.00  sec  11.0 GBytes  9.41 Gbits/sec  104             sender
[  7][RX-C]   0.00-10.00  sec  11.0 GBytes  9.41 Gbits/sec                  receiver

iperf Done.
"""


def test_a_slow_direction_losing_a_negligible_share_is_not_said_to_lose_packets():
    """20 retransmissions in ~3.2 million segments is under checks/specs/ethernet.toml [tcp]
    negligible_retransmit_share; the TX direction's figures are its own (104 is the RX direction's sender's).
    https://github.com/opnsense/src/issues/277 (pending zy004: TX ~300 Mbit/s with 20-40 retransmissions a second)
    still warns."""
    [s] = explain(BIDIR_FEW_RETR, host="other")
    said = messages(s)
    assert "loses packets on its way" not in said and "segments were lost on the way" not in said
    assert "104 retransmissions" not in said and "20 retransmissions, a negligible share" in said
    assert "asymmetric" in messages(s, "info")
    [x] = explain(_field("zy004_iperf3_opnsense277"), host="other", nodes=2)
    assert "The two directions are asymmetric: TX" in messages(x, "warn") and "loses packets" in messages(x, "warn")


# iperf3 asked for a 64 KByte window (-w 64K) and reaching 1 GbE's TCP ceiling all the same.
SMALL_WINDOW_LINE_RATE = """$ iperf3 -c 10.0.0.2 -w 64K
Connecting to host 10.0.0.2, port 5201
[  5] local 10.0.0.1 port 50112 connected to 10.0.0.2 port 5201
[ ID] Interval           Transfer     Bitrate         Retr  Cwnd
[  5]   0.00-1.00   sec   112 MBytes   940 Mbits/sec    0    127 KBytes
[  5]   1.00-2.00   sec   112 MBytes   941 Mbits/sec    0    127 KBytes
[  5]   2.00-3.00   sec   112 MBytes   941 Mbits/sec    0    127 KBytes
[  5]   3.00-4.00   sec   112 MBytes   941 Mbits/sec    0    127 KBytes
[  5]   4.00-5.00   sec   112 MBytes   941 Mbits/sec    0    127 KBytes
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate         Retr
[  5]   0.00-5.00   sec   561 MBytes   941 Mbits/sec    0             sender
[  5]   0.00-5.00   sec   560 MBytes   940 Mbits/sec                  receiver

iperf Done.
"""


def test_a_small_window_that_reached_the_links_ceiling_measured_the_link():
    """One flow moves at most a window per round trip; at 1 GbE's TCP ceiling the window sufficed. The rule's own
    case (pending xj013, AdrielEP/test: --window 8k, 2.68 Gbit/s on 10 GbE) still says the window is the limit."""
    [s] = explain(SMALL_WINDOW_LINE_RATE, host="other")
    said = messages(s, "info")
    assert "measures the window, not the link" not in said and "the TCP ceiling of a 1 GbE link" in said
    said = " ".join(messages(x) for x in explain(_field("xj013_other_adrielep"), host="other", nodes=2))
    assert "TCP window of 8k asked" in said


# `ulimit -a` typed at a root prompt: 8192 KiB locked memory.
ULIMIT_ROOT = """root@gpu-node-3:~# ulimit -a
real-time non-blocking time  (microseconds, -R) unlimited
core file size              (blocks, -c) 0
data seg size               (kbytes, -d) unlimited
scheduling priority                 (-e) 0
file size                   (blocks, -f) unlimited
pending signals                     (-i) 2061432
max locked memory           (kbytes, -l) 8192
max memory size             (kbytes, -m) unlimited
open files                          (-n) 1024
pipe size                (512 bytes, -p) 8
POSIX message queues         (bytes, -q) 819200
real-time priority                  (-r) 0
stack size                  (kbytes, -s) 8192
cpu time                   (seconds, -t) unlimited
max user processes                  (-u) 2061432
virtual memory              (kbytes, -v) unlimited
file locks                          (-x) unlimited
"""


def test_a_low_memlock_limit_says_cap_ipc_lock_escapes_it_and_hedges_at_a_root_prompt():
    """The kernel's mlock and RDMA pinning skip RLIMIT_MEMLOCK for a process with CAP_IPC_LOCK (capabilities(7)):
    root on a host; Docker's default capabilities leave it out, so a container needs --cap-add=IPC_LOCK.
    https://github.com/openucx/ucx/issues/8229 (pending xb009: 64 KiB, no prompt shown) still warns, unhedged."""
    said = messages(explain(ULIMIT_ROOT, host="other")[0], "warn")
    assert "8192 KiB" in said and "A process with CAP_IPC_LOCK is not held by it" in said
    assert "This shell is root's (`root@gpu-node-3:~#`)" in said and "the limit does not bind it" in said
    plain = ULIMIT_ROOT.replace("root@gpu-node-3:~# ", "$ ")
    said = messages(explain(plain, host="other")[0], "warn")
    assert "8192 KiB" in said and "root's" not in said and "as a user without that capability needs it unlimited" in said
    said = " ".join(messages(x, "warn") for x in explain(_field("xb009_other_ucx8229"), host="other"))
    assert "The locked-memory limit is 64 KiB" in said and "This shell is root's" not in said


# The init script's polls at 1 of 2, then `ray status` showing both nodes up.
POLLS_THEN_STATUS = """Wait for all ray workers to be active. 1/2 is active
Wait for all ray workers to be active. 1/2 is active
Wait for all ray workers to be active. 1/2 is active
======== Autoscaler status: 2025-06-01 10:12:41.331200 ========
Node status
---------------------------------------------------------------
Active:
 1 node_3c7f...
 1 node_81aa...
Pending:
 (no pending nodes)
Recent failures:
 (no failures)

Resources
---------------------------------------------------------------
Usage:
 0.0/40.0 CPU
 0.0/2.0 GPU
"""


def test_polls_below_the_size_are_settled_by_a_later_ray_status_of_every_node():
    """vLLM's multi-node-serving.sh polls `ray status`'s count each 5 s; a status after the polls with both nodes up
    shows they joined. https://github.com/foundation-model-stack/fastsafetensors/issues/14 (pending xg013: `1/2 is
    active` at each poll, no status) still warns."""
    said = " ".join(messages(x) for x in explain(POLLS_THEN_STATUS, host="other", nodes=2))
    assert "1 of 2 Ray nodes alive" not in said and "Ray sees 2 nodes" in said
    one = POLLS_THEN_STATUS.replace(" 1 node_81aa...\n", "")  # the status shows one node: still joining
    said = " ".join(messages(x, "warn") for x in explain(one, host="other", nodes=2))
    assert "1 of 2 Ray nodes alive" in said
    said = " ".join(messages(x, "warn") for x in explain(_field("xg013_ray-start_fastsafetensors14"), host="other"))
    assert "1 of 2 Ray nodes alive" in said


# AIPerf's console table of a run of 100 requests, 0.59 req/s x 1.70 s latency: about one in flight at a time.
AIPERF_C1 = """                                            NVIDIA AIPerf | LLM Metrics
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━┓
┃                               Metric ┃      avg ┃      min ┃      max ┃      p99 ┃      p90 ┃      p50 ┃    std ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━┩
│             Time to First Token (ms) │    48.12 │    45.90 │    61.33 │    60.02 │    50.11 │    47.80 │   2.41 │
│            Time to Second Token (ms) │    13.02 │    12.11 │    15.40 │    15.21 │    13.80 │    12.95 │   0.51 │
│                 Request Latency (ms) │ 1,702.55 │ 1,690.10 │ 1,731.20 │ 1,730.00 │ 1,712.40 │ 1,701.90 │   8.30 │
│             Inter Token Latency (ms) │    12.98 │    12.85 │    13.20 │    13.19 │    13.08 │    12.97 │   0.07 │
│     Output Token Throughput Per User │    77.04 │    75.76 │    77.82 │    77.80 │    77.50 │    77.10 │   0.41 │
│                    (tokens/sec/user) │          │          │          │          │          │          │        │
│      Output Sequence Length (tokens) │   128.00 │   128.00 │   128.00 │   128.00 │   128.00 │   128.00 │   0.00 │
│       Input Sequence Length (tokens) │   512.00 │   512.00 │   512.00 │   512.00 │   512.00 │   512.00 │   0.00 │
│ Output Token Throughput (tokens/sec) │    75.10 │      N/A │      N/A │      N/A │      N/A │      N/A │    N/A │
│    Request Throughput (requests/sec) │     0.59 │      N/A │      N/A │      N/A │      N/A │      N/A │    N/A │
│             Request Count (requests) │   100.00 │      N/A │      N/A │      N/A │      N/A │      N/A │    N/A │
└──────────────────────────────────────┴──────────┴──────────┴──────────┴──────────┴──────────┴──────────┴────────┘
"""


def test_a_request_count_is_not_said_as_the_requests_at_once():
    """AIPerf's table states no concurrency; its Request Count is how many were sent in all. The decode sentence
    names no load then (corpus xa009, AIPerf's table, still reads its decode)."""
    said = " ".join(messages(x, "info") for x in explain(AIPERF_C1, host="other"))
    assert "Decode: one token every 13 ms per request = ~77.0 tok/s per stream;" in said
    assert "100 requests at once" not in said


# llama-bench: one table of a CUDA build and a Vulkan build, fa differing too.
LLAMA_TWO_BACKENDS = """CUDA build vs Vulkan build, same GGUF, same GPU (RTX 4090):
| model                          |       size |     params | backend    | ngl | fa |            test |                  t/s |
| ------------------------------ | ---------: | ---------: | ---------- | --: | -: | --------------: | -------------------: |
| llama 8B Q4_K - Medium         |   4.58 GiB |     8.03 B | CUDA       |  99 |  0 |           pp512 |     11232.51 ± 45.10 |
| llama 8B Q4_K - Medium         |   4.58 GiB |     8.03 B | CUDA       |  99 |  0 |           tg128 |        178.32 ± 0.41 |
| llama 8B Q4_K - Medium         |   4.58 GiB |     8.03 B | Vulkan     |  99 |  1 |           pp512 |      4120.77 ± 12.30 |
| llama 8B Q4_K - Medium         |   4.58 GiB |     8.03 B | Vulkan     |  99 |  1 |           tg128 |        141.05 ± 0.33 |
"""


def test_llama_bench_rows_of_two_backends_are_not_one_settings_cost():
    """Rows are compared only where every column but one setting is equal, the backend included. The rule's own case,
    https://github.com/ggml-org/llama.cpp/issues/4812 (pending xf019: -nkvo 0,1 on one CUDA build), still compares."""
    said = " ".join(messages(x) for x in explain(LLAMA_TWO_BACKENDS, host="other"))
    assert "with fa 0" not in said and "apart" not in said and "(4.58 GiB, Vulkan): pp512 4120.77" in said
    one = LLAMA_TWO_BACKENDS.replace("Vulkan    ", "CUDA      ")  # one build: fa's cost
    said = " ".join(messages(x, "info") for x in explain(one, host="other"))
    assert "11232.5 tok/s with fa 0, 4120.77 tok/s with fa 1: 2.73x apart" in said
    said = " ".join(messages(x, "info") for x in explain(_field("xf019_llama-bench_llamacpp4812"), host="other", nodes=1))
    assert "16.97x apart, the slower with nkvo 1" in said


# NCCL in a VM: every GPU's affinity is the same mask of all ones (96 CPUs).
AFFINITY_ALL_ONES = """\
vm-a100:901:901 [0] NCCL INFO NCCL version 2.19.3+cuda12.3
vm-a100:901:900 [0] NCCL INFO Setting affinity for GPU 0 to ffffffff,ffffffff,ffffffff
vm-a100:901:910 [1] NCCL INFO Setting affinity for GPU 1 to ffffffff,ffffffff,ffffffff
vm-a100:901:920 [2] NCCL INFO Setting affinity for GPU 2 to ffffffff,ffffffff,ffffffff
vm-a100:901:930 [3] NCCL INFO Setting affinity for GPU 3 to ffffffff,ffffffff,ffffffff
vm-a100:901:930 [0] NCCL INFO comm 0x55 rank 0 nRanks 4 nNodes 1 localRanks 4 localRank 0 MNNVL 0
vm-a100:901:930 [0] NCCL INFO Channel 00/24 :    0   1   2   3
vm-a100:901:930 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read
vm-a100:901:930 [0] NCCL INFO Connected all rings
vm-a100:901:930 [0] NCCL INFO ncclCommInitRank comm 0x55 rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId 100000 commId 0x1111 - Init COMPLETE
"""


def test_an_affinity_mask_of_all_ones_is_not_called_one_numa_nodes():
    """NCCL's ncclCpusetToStr prints the mask from its highest non-zero byte: all ones is CPUs 0..N-1, every CPU or the
    first node's. https://github.com/NVIDIA/nccl/issues/1017 (pending xk015: two CPU sets) is still grouped."""
    [s] = explain(AFFINITY_ALL_ONES, host="other", nodes=1)
    said = messages(s, "info")
    assert "one NUMA node's." not in said and "CPUs 0-95: either every CPU of the machine" in said and "`lscpu`" in said
    [x] = explain(_field("xk015_nccl-log_nccl1017"), host="other", nodes=2)
    assert "2 different CPU sets" in messages(x, "info")


def test_several_udp_tests_are_each_said_not_added_up():
    """Three tests' summary rows (each from 0 s) are no three streams of one test: their rates are said one by one."""
    [c] = explain(UDP_THREE_FIXED_DROP, host="other")
    said = messages(c, "info")
    assert "3 UDP tests: 0.0485, 0.485, 0.92 Gbit/s" in said and "1.5 Gbit/s" not in said
    [s] = explain(UDP_SERVER_ONE_TEST, host="other")
    assert "UDP test: 0.9 Gbit/s" in messages(s, "info")
