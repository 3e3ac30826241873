"""Shapes and judgments the field corpus's misreadings and blind batches of session 31 (issue 27) found explain
getting wrong: each on a short sample cut from the real output named beside it (its URL), with the values worked out
by hand."""

from __future__ import annotations

from grader.explain import explain
from grader.parsers.ping import parse_ping
from tests.conftest import levels, messages

# https://github.com/vllm-project/vllm/issues/18814 (corpus z013): a worker's traceback logged line by line, cut
COMPILE = """(VllmWorker rank=0 pid=492198) ERROR 05-27 23:16:12 [multiproc_executor.py:522]     raise BackendCompilerFailed(
(VllmWorker rank=0 pid=492198) ERROR 05-27 23:16:12 [multiproc_executor.py:522]   File "/home/ubuntu/anaconda3/envs/vllm/lib/python3.12/site-packages/torch/_dynamo/output_graph.py", line 1519, in _call_user_compiler
(VllmWorker rank=0 pid=492198) ERROR 05-27 23:16:12 [multiproc_executor.py:522]     compiled_fn = compiler_fn(gm, self.example_inputs())
"""


def test_a_torch_compile_failure_cut_mid_traceback_is_named_with_its_workaround():
    [s] = explain(COMPILE, host="other", nodes=1)
    assert "fail" in levels(s)
    said = messages(s, "fail")
    assert "torch.compile" in said and "--enforce-eager" in said and "version mismatch of torch, Triton and vLLM" in said


# https://github.com/vllm-project/vllm/issues/22479 (corpus z014): a TP=2 start cut after the engine's ready line
ENGINE_UP = """(EngineCore_0 pid=1422484) INFO 08-07 19:06:21 [kv_cache_utils.py:833] Maximum concurrency for 40,960 tokens per request: 11.46x
(VllmWorker TP0 pid=1422634) INFO 08-07 19:06:29 [custom_all_reduce.py:196] Registering 8643 cuda graph addresses
(VllmWorker TP1 pid=1422635) INFO 08-07 19:06:30 [custom_all_reduce.py:196] Registering 8643 cuda graph addresses
(VllmWorker TP1 pid=1422635) INFO 08-07 19:06:31 [gpu_model_runner.py:2537] Graph capturing finished in 9 secs, took 1.21 GiB
(EngineCore_0 pid=1422484) INFO 08-07 19:06:31 [core.py:198] init engine (profile, create kv cache, warmup model) took 114.28 seconds
"""


def test_an_engine_that_initialised_is_not_still_starting_and_its_workers_show_tp():
    [s] = explain(ENGINE_UP, host="other", nodes=1)
    said = messages(s)
    assert "initialised in 114.28 s" in said and "still starting" not in said
    assert "at least TP 2 (ranks TP0 to TP1)" in said
    # without the engine's line the start may still be going on; one worker's prefix is no TP
    [cut] = explain(ENGINE_UP.rsplit("(EngineCore_0", 1)[0].replace("TP1", "TP0"), host="other", nodes=1)
    assert "still starting" in messages(cut) and "at least TP" not in messages(cut)
    # 0.2x's form of the line: "took 73.48 s (compilation: 21.80 s)" (djangodevreng/dgx-spark-benchmarks, corpus z009)
    [newer] = explain(ENGINE_UP.replace("took 114.28 seconds", "took 73.48 s (compilation: 21.80 s)"))
    assert "initialised in 73.48 s" in messages(newer)


# https://github.com/vllm-project/vllm/issues/25760 (corpus b033): four workers each print the same KV memory
KV_EACH = "".join(f"(Worker_TP{i}_EP{i} pid={90 + i}) INFO 09-26 10:00:0{i} [gpu_worker.py:298] Available KV cache memory: "
                  "1.53 GiB\n" for i in range(4)) + ("(EngineCore_DP0 pid=80) INFO 09-26 10:00:05 [kv_cache_utils.py:"
                                                     "1087] GPU KV cache size: 61,600 tokens\n")


def test_the_same_kv_memory_from_every_worker_is_said_once():
    [s] = explain(KV_EACH, host="other", nodes=1)
    said = [f.message for f in s.findings if "available for the KV cache" in f.message]
    [one] = said  # (a pool this small is a warn of its own words too: corpus b033's reading, tests/test_explain_s39b.py)
    assert one.startswith("1.53 GiB available for the KV cache on each of 4 workers (Worker_TP0_EP0, Worker_TP1_EP1, "
                          "Worker_TP2_EP2, Worker_TP3_EP3).")


# KoyoImai's two-Spark walkthrough (corpus j015): a prompt for `cd`, then an mpirun typed below it with no prompt
CD_THEN_MPIRUN = """user@spark-c3d7:~/nccl-tests$ cd ~/nccl-tests
mpirun -np 2 \\
  -H 10.0.1.1:1,10.0.1.2:1 \\
  -x NCCL_SOCKET_IFNAME=enp1s0f0np0 \\
  ./build/all_gather_perf -b 1G -e 4G -f 2 -n 50 -w 10 -g 1
# nccl-tests version 2.18.3 nccl-headers=22809 nccl-library=22809
#  Rank  0 Group  0 Pid  11111 on spark-c3d7 device  0 [000f:01:00] NVIDIA GB10
#  Rank  1 Group  0 Pid  22222 on spark-e5f0 device  0 [000f:01:00] NVIDIA GB10
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
  1073741824     134217728     float    none      -1   190000    5.65    2.83      0   190100    5.65    2.82      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 2.825
"""


def test_a_command_typed_under_a_silent_cd_starts_its_own_section():
    sections = explain(CD_THEN_MPIRUN, host="spark", nodes=2)
    assert not any(s.error for s in sections)
    [bench] = [s for s in sections if s.kind == "nccl-tests"]
    assert bench.command.startswith("mpirun -np 2 -H 10.0.1.1:1,10.0.1.2:1") and "2.8" in messages(bench)
    # an `export` alone prints nothing either; `cd x && make` prints, so the line under it stays its output
    assert [s.kind for s in explain(CD_THEN_MPIRUN.replace("cd ~/nccl-tests", "export NCCL_DEBUG=WARN"),
                                    host="spark", nodes=2) if not s.error] == ["nccl-tests"]


# NVIDIA's connect-to-your-spark playbook (corpus z001): a laptop's ping of a Spark over Wi-Fi, no statistics
JITTER = """$ ping -c 3 spark-abcd.local
PING spark-abcd.local (10.9.1.9): 56 data bytes
64 bytes from 10.9.1.9: icmp_seq=0 ttl=64 time=6.902 ms
64 bytes from 10.9.1.9: icmp_seq=1 ttl=64 time=116.335 ms
64 bytes from 10.9.1.9: icmp_seq=2 ttl=64 time=33.301 ms
"""


def test_ping_round_trips_that_vary_widely_are_called_jitter():
    r = parse_ping(JITTER.split("\n", 1)[1])
    assert (r.rtt_min_ms, r.rtt_max_ms) == (6.902, 116.335)
    [s] = explain(JITTER)
    assert "vary widely (6.902 to 116.335 ms)" in messages(s, "info") and set(levels(s)) <= {"ok", "info"}
    # the statistics line's min/max win; a QSFP link's 0.05 to 0.4 ms is a spread under 10 ms: nothing said
    steady = (JITTER + "--- 10.9.1.9 ping statistics ---\n3 packets transmitted, 3 received, 0% packet loss\n"
              "rtt min/avg/max/mdev = 0.051/0.2/0.412/0.1 ms\n")
    assert (parse_ping(steady.split("\n", 1)[1]).rtt_max_ms) == 0.412
    assert "vary widely" not in messages(explain(steady)[0])


# https://github.com/esnet/iperf/issues/828 (corpus z019): UDP at 10 Gbit/s, reversed, cut before the summary
UDP_ROWS = """$ src/iperf3 --client 192.168.25.5 --udp -b10g -w2m -l9k --reverse
Connecting to host 192.168.25.5, port 5201
Reverse mode, remote host 192.168.25.5 is sending
[  5] local 192.168.25.4 port 60741 connected to 192.168.25.5 port 5201
[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams
[  5]   0.00-1.00   sec  1.18 GBytes  10.1 Gbits/sec  0.014 ms  2875/140376 (2%)
[  5]   1.00-2.00   sec  1.17 GBytes  10.0 Gbits/sec  0.026 ms  0/136289 (0%)
[  5]   2.00-3.00   sec  1.22 GBytes  10.5 Gbits/sec  0.028 ms  13/141970 (0.0092%)
[  5]   3.00-4.00   sec  1.16 GBytes  10.0 Gbits/sec  0.012 ms  53/135631 (0.039%)
"""


def test_udp_loss_is_counted_with_the_first_second_apart():
    [s] = explain(UDP_ROWS, host="other", nodes=2)
    # 2875 + 0 + 13 + 53 = 2941 of 140376 + 136289 + 141970 + 135631 = 554266 (0.53%); after the first second at most
    # 53 / 135631 = 0.039% a second
    assert ("UDP: 2,941 of 554,266 datagrams lost (0.53%), 2,875 of them in the first second" in messages(s, "info")
            and "at most 0.039% a second" in messages(s, "info") and "warn" not in levels(s))
    # 5% lost in every second: the path drops them (over checks/specs/ethernet.toml [udp] loss_warn_percent, 1%)
    lossy = UDP_ROWS.replace(" 0/136289 (0%)", " 6814/136289 (5%)")
    assert "drops datagrams" in messages(explain(lossy, host="other", nodes=2)[0], "warn")


def _spark_ip_a(host: str, cidr: str, mtu: int = 1500) -> str:
    return (f"user@{host}:~$ ip a show enp1s0f0np0\n3: enp1s0f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu {mtu} qdisc "
            "mq state UP group default qlen 1000\n    link/ether 02:00:5e:00:53:01 brd ff:ff:ff:ff:ff:ff\n"
            f"    inet {cidr} brd 10.0.1.255 scope global noprefixroute enp1s0f0np0\n"
            "       valid_lft forever preferred_lft forever\n")


def test_four_sparks_in_two_pairs_are_grouped_by_subnet_not_paired_in_paste_order():
    """KoyoImai/dgx_spark_cluster2 Step004 (blind batch zc007): four Sparks cabled as two pairs, 10.0.1.0/24 and
    10.0.2.0/24; the second and third host in the paste are not one cable's ends."""
    paste = "".join(_spark_ip_a(h, c) for h, c in (("spark-aaaa", "10.0.1.1/24"), ("spark-bbbb", "10.0.1.2/24"),
                                                    ("spark-cccc", "10.0.2.1/24"), ("spark-dddd", "10.0.2.2/24")))
    sections = explain(paste, host="spark")
    said = " ".join(messages(s) for s in sections)
    assert not any("fail" in levels(s) for s in sections)
    assert "10.0.1.1/24 on spark-aaaa, 10.0.1.2/24 on spark-bbbb share 10.0.1.0/24" in said
    assert "10.0.2.1/24 on spark-cccc, 10.0.2.2/24 on spark-dddd share 10.0.2.0/24" in said
    # a host alone in its subnet is said, not failed (its peer may not be pasted); one address twice is a conflict
    odd = paste.replace("10.0.2.2/24", "10.0.3.2/24")
    assert "no other host in the paste has an address in 10.0.3.0/24" in " ".join(messages(s) for s in explain(odd, host="spark"))
    clash = paste.replace("10.0.2.2/24", "10.0.2.1/24")
    assert "10.0.2.1 on spark-cccc and spark-dddd: an address conflict" in " ".join(
        messages(s, "fail") for s in explain(clash, host="spark"))
    # two hosts keep the pairwise reading: different /24s on one cable's two ends fail
    two = _spark_ip_a("spark-aaaa", "10.0.1.1/24") + _spark_ip_a("spark-bbbb", "10.0.2.2/24")
    assert "not one subnet" in " ".join(messages(s, "fail") for s in explain(two, host="spark"))


# https://github.com/perfsonar/project/issues/1094 (blind batch zc015): TCP at MTU 9000, 87 KB, then nothing
STALL = """Connecting to host 10.10.10.2, port 5565
[ 15] local 10.10.20.2 port 33056 connected to 10.10.10.2 port 5565
[ ID] Interval           Transfer     Bandwidth       Retr  Cwnd
[ 15]   0.00-1.00   sec  87.4 KBytes  0.00 Gbits/sec    2   23.8 KBytes
[ 15]   1.00-2.00   sec  0.00 Bytes  0.00 Gbits/sec    1   23.8 KBytes
[ 15]   2.00-3.00   sec  0.00 Bytes  0.00 Gbits/sec    0   23.8 KBytes
[ 15]   3.00-4.00   sec  0.00 Bytes  0.00 Gbits/sec    1   23.8 KBytes
"""


def test_a_transfer_that_stops_after_its_first_second_is_a_stall():
    [s] = explain(STALL, host="other", nodes=2)
    # 87.4 KBytes is data though -f g prints 0.00 Gbits/sec; 1 + 0 + 1 retransmits after it
    assert "stalled: data moved in interval 1 only, then 0 bytes in each of the 3 intervals" in messages(s, "fail")
    assert "retransmitted 2 time(s)" in messages(s, "fail") and "MTU black hole" in messages(s, "fail")
    # data in every second is no stall
    steady = STALL.replace("0.00 Bytes", "1.10 GBytes")
    assert "stalled" not in messages(explain(steady, host="other", nodes=2)[0])


# https://github.com/pytorch/pytorch/issues/81628 (blind batch zb008): an Intel iWARP port in NCCL's IB list
MIXED_HCAS = """tf144:143468:143468 [1] NCCL INFO Bootstrap : Using enp88s0:192.168.17.144<0>
tf144:143468:143468 [1] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [2]i40iw0:1/RoCE ; OOB enp88s0:192.168.17.144<0>
tf144:143468:143468 [1] NCCL INFO Using network IB
tf144:143468:143535 [1] NCCL INFO Channel 00 : 0[2f000] -> 1[86000] [receive] via NET/IB/1
"""


def test_an_rdma_device_of_another_driver_in_nccls_list_is_named():
    [s] = explain(MIXED_HCAS, host="other", nodes=2)
    assert "mix drivers: i40iw0 beside mlx5_0, mlx5_1" in messages(s, "warn") and "NCCL_IB_HCA=mlx5." in messages(s)
    # ConnectX ports alone (a Spark's four, by their udev names) are one driver's
    spark = MIXED_HCAS.replace("[0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [2]i40iw0:1/RoCE", "[0]rocep1s0f1:1/RoCE "
                               "[1]roceP2p1s0f1:1/RoCE")
    assert "mix drivers" not in messages(explain(spark, host="spark", nodes=2)[0])


# https://github.com/NVIDIA/nccl/issues/857 (blind batch zb014): one host, NCCL 2.10.3 without libibverbs
NO_VERBS = """ai:480850:480850 [0] NCCL INFO Bootstrap : Using eno1:10.0.0.5<0>
ai:480850:480850 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]
ai:480850:480850 [0] NCCL INFO NET/Socket : Using [0]eno1:10.0.0.5<0>
ai:480850:480850 [0] NCCL INFO Using network Socket
ai:480852:480852 [2] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]
"""


def test_no_libibverbs_on_one_machine_is_a_note_not_a_warning():
    [s] = explain(NO_VERBS, host="other", nodes=1)
    assert "warn" not in levels(s) and "could not load libibverbs" in messages(s, "info")
    assert "NCCL WARN: Failed to open" not in messages(s)  # the table's reading, not the line repeated


# kazamori/dgx-spark-deepseek-v4-flash docs/06-troubleshooting.md (blind batch zb020): a Spark's boot lines, grep'd
SPARK_DMESG = """$ sudo dmesg | grep -iE 'insufficient power|PCIe bandwidth|cx7-pcie-hotplug'
[    0.103426] pci 000f:01:00.0: 0.000 Gb/s available PCIe bandwidth, limited by Unknown x0 link at 000f:00:00.0 (capable of 32.000 Gb/s with 2.5 GT/s PCIe x16 link)
[    1.150104] mlx5_core 0000:01:00.0: 126.028 Gb/s available PCIe bandwidth (32.0 GT/s PCIe x4 link)
[    1.533198] mlx5_core 0000:01:00.0: mlx5_pcie_event:326:(pid 12): Detected insufficient power on the PCIe slot (27W).
"""


def test_a_sparks_boot_lines_are_its_normal_ones_and_elsewhere_the_power_line_warns():
    [s] = explain(SPARK_DMESG, host="spark")
    assert set(levels(s)) <= {"ok", "info"}
    assert "GB10's GPU" in messages(s) and "there is no slot to change" in messages(s)
    [other] = explain(SPARK_DMESG, host="other")
    assert "Move the card to a slot rated for its power" in messages(other, "warn") and "GB10" not in messages(other)


# https://github.com/Azure/azhpc-diagnostics/issues/59 (blind batch zc009): ibstat pasted without its indentation; an
# InfiniBand port that a subnet manager (SM lid 361) has not activated
UNINDENTED_IBSTAT = """~$ ibstat mlx5_ib0
CA 'mlx5_ib0'
CA type: MT4124
Number of ports: 1
Firmware version: 20.28.4000
Port 1:
State: Initializing
Physical state: LinkUp
Rate: 200
Base lid: 65535
SM lid: 361
Link layer: InfiniBand
"""


def test_an_unindented_ibstat_is_one_output_and_a_known_subnet_manager_is_not_told_to_start():
    [s] = explain(UNINDENTED_IBSTAT, host="other")
    said = messages(s, "fail")
    assert "mlx5_ib0 port 1: Initializing/LinkUp" in said and "SM lid 361" in said and "start one" not in messages(s)
    # no SM on the fabric (SM lid 0): the port waits for one, a warning that says to start it
    [none] = explain(UNINDENTED_IBSTAT.replace("SM lid: 361", "SM lid: 0"), host="other")
    assert "start one (opensm" in messages(none, "warn")


# https://github.com/kubeovn/kube-ovn/issues/4254 (blind batch zc012): `ip link | grep mtu`, one bond member at 1500
ODD_MTU = """ip link | grep mtu
1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000
2: eno8303: <NO-CARRIER,BROADCAST,MULTICAST,UP> mtu 9000 qdisc mq state DOWN mode DEFAULT group default qlen 1000
3: eno8403: <NO-CARRIER,BROADCAST,MULTICAST,UP> mtu 9000 qdisc mq state DOWN mode DEFAULT group default qlen 1000
6: ens3f0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT group default qlen 1000
9: ens6f1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT group default qlen 1000
10: ens5f0: <BROADCAST,MULTICAST,SLAVE,UP,LOWER_UP> mtu 1500 qdisc mq master bond1 state UP mode DEFAULT group default qlen 1000
11: ens5f1: <BROADCAST,MULTICAST,SLAVE,UP,LOWER_UP> mtu 9000 qdisc mq master bond0 state UP mode DEFAULT group default qlen 1000
"""


def test_a_wired_interface_at_1500_among_jumbo_ones_is_a_mismatch_and_unplugged_ports_are_said_once():
    [s] = explain(ODD_MTU, host="other")
    # ens3f0, ens6f1, ens5f1 have link at 9000; ens5f0 at 1500; eno8303/eno8403 have none (their MTU is not judged)
    assert "ens5f0 at 1500 among 3 wired interfaces with link at MTU 9000" in messages(s, "warn")
    assert [f.message for f in s.findings if "NO-CARRIER: no link" in f.message][0].startswith(
        "eno8303, eno8403 are enabled but NO-CARRIER")
    # the 1500 ones the majority: no odd one out is named (a host whose jumbo ports are the exception)
    mostly_1500 = ODD_MTU.replace("mtu 9000 qdisc mq state UP", "mtu 1500 qdisc mq state UP")
    assert "MTU mismatch" not in messages(explain(mostly_1500, host="other")[0])
    # IPoIB's 65520 is another medium's MTU: a 1500 Ethernet port beside two ib ports is no mismatch (break-it review)
    ipoib = ("5: ib0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 65520 qdisc mq state UP mode DEFAULT group default qlen 256\n"
             "6: ib1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 65520 qdisc mq state UP mode DEFAULT group default qlen 256\n"
             "2: eno1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP mode DEFAULT group default qlen 1000\n")
    assert "MTU mismatch" not in messages(explain(ipoib, host="other")[0])


# https://github.com/NVIDIA/nccl/issues/380 (blind batch zd010: XGBoost on Apache Spark, NCCL 2.7.8): creating a
# completion queue failed on this node's HCA
CREATE_CQ = """spark01:2683:2780 [0] NCCL INFO NET/IB : Using [0]mlx5_1:1/RoCE ; OOB ens192f1:10.150.178.134<0>
spark01:2683:2826 [0] NCCL INFO Channel 00 : 1[3000] -> 0[3000] [receive] via NET/IB/0
spark01:2683:2826 [0] misc/ibvwrap.cc:268 NCCL WARN Call to ibv_create_cq failed
"""


def test_a_failed_create_or_register_verb_is_this_nodes_resources_not_the_path():
    [s] = explain(CREATE_CQ, host="other", nodes=2)
    said = messages(s, "fail")
    assert "before any packet went to the peer" in said and "ulimit -l" in said and "NCCL_IB_GID_INDEX" not in said
    # a verb that talks to the peer keeps the path's reading
    [peer] = explain(CREATE_CQ.replace("ibv_create_cq failed", "ibv_modify_qp failed"), host="other", nodes=2)
    assert "reach the peer" in messages(peer, "fail")


# https://github.com/espnet/espnet/issues/1940 (blind batch zd012): the root's bootstrap address refused, then the error chain
REFUSED = """tj1-asr-train-v100-13:941227:943077 [0] NCCL INFO Call to connect returned Connection refused, retrying
tj1-asr-train-v100-13:941227:943077 [0] include/socket.h:390 NCCL WARN Connect to 10.38.10.112<21724> failed : Connection refused
tj1-asr-train-v100-13:941227:943077 [0] NCCL INFO bootstrap.cc:100 -> 2
"""


def test_an_older_nccls_refused_connect_is_read_as_its_newer_form_is():
    [s] = explain(REFUSED, host="other", nodes=2)
    assert "could not open a TCP connection to 10.38.10.112<21724> (Connection refused)" in messages(s, "fail")
    assert "nothing listens there" in messages(s, "fail")


# https://github.com/esnet/iperf/issues/479 (blind batch ze010): two commands listed, then the server's side of a UDP
# test stopped with Ctrl-C, an older iperf3 whose summary row has no role word and reads 0 bytes
STOPPED = """iperf3 -s -p 44406
iperf3 -c 192.168.2.1 -p 44406 -i 1 -t 100 -u -b 0
after using SIGINT I get:
**server:**
[  5] local 192.168.2.1 port 44406 connected to 192.168.2.2 port 43406
[ ID] Interval           Transfer     Bandwidth       Jitter    Lost/Total Datagrams
[  5]   0.00-1.00   sec  8.11 MBytes  68.0 Mbits/sec  1.604 ms  14/1052 (1.3%)
[  5]   1.00-2.00   sec  9.51 MBytes  79.8 Mbits/sec  1.338 ms  0/1217 (0%)
[  5]   2.00-3.00   sec  9.38 MBytes  78.6 Mbits/sec  1.091 ms  0/1200 (0%)
[  5]   2.00-3.00   sec  9.38 MBytes  78.6 Mbits/sec  1.091 ms  0/1200 (0%)
[ ID] Interval           Transfer     Bandwidth       Jitter    Lost/Total Datagrams
[  5]   0.00-3.00   sec  0.00 Bytes  0.00 bits/sec  1.076 ms  14/3469 (0.4%)
iperf3: the client has terminated
"""


def test_a_test_ended_early_is_said_and_its_unlabelled_summary_is_not_an_interval():
    sections = explain(STOPPED, host="other", nodes=2)
    assert [s.command for s in sections[:2]] == ["iperf3 -s -p 44406", "iperf3 -c 192.168.2.1 -p 44406 -i 1 -t 100 -u "
                                                                       "-b 0"]  # two commands listed, two sections
    [server] = [s for s in sections if s.host == "server"]
    said = messages(server)
    assert "ended early (`iperf3: the client has terminated`" in said and "stalled" not in said
    # the summary row's 14 of 3469 (0.4%), not the intervals added up with the duplicate row and the summary row
    assert "UDP: 14 of 3,469 datagrams lost (0.4%)" in messages(server, "info")


# https://github.com/ikawrakow/ik_llama.cpp/pull/1388 (blind batch ze016): llama-sweep-bench on two RTX A6000s
SWEEP = """$ ./build/bin/llama-sweep-bench --model "$model" -c 135168 -sm graph -ngl 999 -ub 4096 -b 4096 -n 128
|    PP |     TG |   N_KV |   T_PP s | S_PP t/s |   T_TG s | S_TG t/s |
|-------|--------|--------|----------|----------|----------|----------|
|  4096 |    128 |      0 |    1.995 |  2052.91 |    2.405 |    53.21 |
|  4096 |    128 |   4096 |    2.038 |  2010.06 |    2.366 |    54.10 |
|  4096 |    128 |   8192 |    2.093 |  1957.31 |    2.381 |    53.75 |
"""


def test_llama_sweep_bench_is_read_from_its_first_depth_to_its_last():
    [s] = explain(SWEEP, host="other", nodes=1)
    assert s.kind == "llama-bench" and not s.error
    assert ("llama-sweep-bench pp4096 (prompt processing): 2052.91 tok/s at context depth 0, 1957.31 tok/s at depth "
            "8,192 (3 depths)") in messages(s, "ok")
    assert "tg128 (decode): 53.21 tok/s at context depth 0, 53.75 tok/s at depth 8,192" in messages(s, "ok")


# https://github.com/colonel-otto/3x-dgx-spark-mesh-deepseek-v4-0731-flash results/20260825-upper-mesh/rdma-pre-spark1.txt
# (blind batch zc006): `grep "" .../hw_counters/*` of one Spark, a time stamp above it
HW_COUNTERS = """### spark1
2026-08-26T00:13:30Z
/sys/class/infiniband/rocep1s0f0/ports/1/hw_counters/
/sys/class/infiniband/rocep1s0f0/ports/1/hw_counters//local_ack_timeout_err:0
/sys/class/infiniband/rocep1s0f0/ports/1/hw_counters//req_cqe_error:0
/sys/class/infiniband/roceP2p1s0f0/ports/1/hw_counters/
/sys/class/infiniband/roceP2p1s0f0/ports/1/hw_counters//local_ack_timeout_err:192
/sys/class/infiniband/roceP2p1s0f0/ports/1/hw_counters//req_cqe_error:64
/sys/class/infiniband/roceP2p1s0f0/ports/1/hw_counters//req_cqe_flush_error:32
/sys/class/infiniband/roceP2p1s0f0/ports/1/hw_counters//np_cnp_sent:5
"""


def test_the_drivers_hw_counters_are_read_with_what_each_count_means():
    [s] = explain(HW_COUNTERS, host="spark")
    assert s.kind == "ib-counters" and not s.error
    said = messages(s, "warn")
    assert said.startswith("roceP2p1s0f0/1: local_ack_timeout_err 192: this side's retransmission timer")
    assert "req_cqe_error 64: RDMA operations that completed in error" in said and "np_cnp_sent 5: congestion" in said
    assert "No error counter above 0 on rocep1s0f0/1." in messages(s, "ok")
    # congestion notifications alone are the control at work: a note
    calm = "\\n".join(x for x in HW_COUNTERS.splitlines() if "err" not in x) + "\\n"
    assert "warn" not in levels(explain(calm, host="spark")[0])


# https://github.com/vllm-project/vllm-omni/issues/262 (blind batch zd005): two TP workers, one left below zero
UNEVEN_KV = """(Worker_TP1 pid=104299) INFO 12-10 03:24:48 [gpu_worker.py:298] Available KV cache memory: -3.86 GiB
(Worker_TP0 pid=104298) INFO 12-10 03:24:48 [gpu_worker.py:298] Available KV cache memory: 9.90 GiB
"""


def test_a_negative_kv_memory_is_read_and_uneven_ranks_point_at_another_process():
    [s] = explain(UNEVEN_KV, host="other", nodes=1)
    assert "-3.86 GiB left for the KV cache (Worker_TP1)" in messages(s, "fail")
    assert "Worker_TP1 -3.86 GiB, Worker_TP0 9.9 GiB" in messages(s, "warn") and "another process" in messages(s, "warn")
    # pipeline stages hold different layers: their room differs by design
    staged = UNEVEN_KV.replace("Worker_TP1", "Worker_PP1").replace("Worker_TP0", "Worker_PP0").replace("-3.86", "3.1")
    assert "very different room" not in messages(explain(staged, host="other", nodes=1)[0])


def test_an_nccl_excerpt_that_ends_during_init_says_it_cannot_decide():
    """https://github.com/pytorch/pytorch/issues/99669 (blind batch zb012): one host, an MSCCL build, cut mid-init."""
    text = ("3ccc2fa29ce8:192:192 [0] NCCL INFO Using network Socket\nNCCL version 2.12.12.MSCCL.0.7.3+cuda11.7\n"
            "3ccc2fa29ce8:192:224 [0] NCCL INFO Setting affinity for GPU 0 to fff000\n")
    [s] = explain(text, host="other", nodes=1)
    assert "No error in these lines, and no `Init COMPLETE`" in messages(s, "info")
    # NCCL 2.19's line, as nccl#1706 posted it
    [done] = explain(text + "3ccc2fa29ce8:192:224 [0] NCCL INFO ncclCommInitAll comm 0x55f68495f4f0 rank 1 nranks 2 "
                            "cudaDev 1 nvmlDev 1 busId 34000 commId 0x76b3b6be637caf1c - Init COMPLETE\n", host="other",
                     nodes=1)
    assert "No error in these lines" not in messages(done)


# https://github.com/vllm-project/vllm/issues/5895 (blind batch za001): benchmark_serving with a median TTFT of 0.00 ms
ZERO_TTFT = """============ Serving Benchmark Result ============
Successful requests:                     1000
Benchmark duration (s):                  339.37
Total input tokens:                      217393
Total generated tokens:                  81299
Request throughput (req/s):              2.95
Output token throughput (tok/s):         239.56
---------------Time to First Token----------------
Mean TTFT (ms):                          26.56
Median TTFT (ms):                        0.00
P99 TTFT (ms):                           132.56
-----Time per Output Token (excl. 1st token)------
Mean TPOT (ms):                          31.55
Median TPOT (ms):                        28.21
P99 TPOT (ms):                           53.48
==================================================
"""


def test_a_median_ttft_of_zero_beside_a_nonzero_mean_is_no_measurement():
    [s] = explain(ZERO_TTFT, host="other", nodes=1)
    assert "Median TTFT of 0.00 ms" in messages(s, "warn") and "not to be trusted" in messages(s, "warn")
    assert "Median TTFT of 0.00" not in messages(explain(ZERO_TTFT.replace("0.00\n", "21.30\n"), host="other")[0])


# https://github.com/NVIDIA/nccl/issues/442 (blind batch zg016): one TITAN RTX under WSL2, the test's failure line
def test_a_one_machine_nccl_tests_failure_gets_no_network_hint():
    text = ("# nccl-tests version 2.0.0\n#  Rank  0 Group  0 Pid  36629 on    DESKTOP device  0 [0x21] TITAN RTX\n"
            "DESKTOP: Test NCCL failure common.cu:777 'unhandled system error'\n")
    [one] = explain(text, host="other", nodes=1)
    assert "NCCL_IB_GID_INDEX" not in messages(one) and "on one machine NCCL's WARN line" in messages(one, "fail")
    [two] = explain(text, host="other", nodes=2)
    assert "NCCL_IB_GID_INDEX" in messages(two, "fail")


# https://github.com/huggingface/transformers/issues/15618 (blind batch zg018): NCCL 2.7's in-process fallback
def test_nccls_direct_shared_memory_is_its_shm_transport():
    text = ("srv-s0:537558:537635 [5] NCCL INFO Could not enable P2P between dev 5(=89000) and dev 4(=88000)\n"
            "srv-s0:537558:537635 [5] NCCL INFO Channel 00 : 5[89000] -> 4[88000] via direct shared memory\n")
    [s] = explain(text, host="other", nodes=1)
    assert "NCCL used direct." not in messages(s) and "host shared memory" in messages(s)
    # on one machine GPU to GPU is the collectives' only path: a warning (corpus zg018, this paste, reads it so)
    assert "could not enable CUDA peer-to-peer between GPUs 5 and 4" in messages(s, "warn")
    [two] = explain(text, host="other", nodes=2)
    assert "could not enable CUDA peer-to-peer between GPUs 5 and 4" in messages(two, "info")


# https://github.com/deepseek-ai/DeepEP/issues/202 (blind batch zf020): `nvidia-smi topo -mp` named by a Markdown
# heading above its matrix
TOPO_MP = """#### nvidia-smi topo -mp
```
        GPU0    GPU1    CPU Affinity    NUMA Affinity   GPU NUMA ID
GPU0     X      SYS     0-47,96-143     0               N/A
GPU1    SYS      X      48-95,144-191   1               N/A
```
"""


def test_a_heading_that_names_the_command_is_its_command_and_topo_mp_says_nothing_of_nvlink():
    [s] = explain(TOPO_MP, host="other")
    assert s.command == "nvidia-smi topo -mp"
    assert "PCIe-only view" in messages(s) and "No NVLink between the cards" not in messages(s)
    # the same matrix under `topo -m`: no NV# there is no NVLink
    [m] = explain(TOPO_MP.replace("topo -mp", "topo -m"), host="other")
    assert "No NVLink between the cards" in messages(m)


# https://linuxer.name/2021/07/ping-mtu-test/ (blind batch zf018): a path-MTU probe, 1472 answered and 1473
# refused
PROBE = """ping -M do -s 1472 google.com
PING google.com (203.0.113.110) 1472(1500) bytes of data.
76 bytes from nrt20s21-in-f14.1e100.net (203.0.113.110): icmp_seq=1 ttl=114 (truncated)

ping -M do -s 1473 google.com
PING google.com (203.0.113.110) 1473(1501) bytes of data.
^C
--- google.com ping statistics ---
45 packets transmitted, 0 received, 100% packet loss, time 43999ms
"""


def test_a_path_mtu_probe_is_read_as_one():
    answered, refused = explain(PROBE, host="other")
    assert "answers 1500-byte packets with fragmenting forbidden" in messages(answered, "ok")
    assert "reachability only" not in messages(answered)
    assert set(levels(refused)) == {"info"} and "one byte over an MTU of 1500" in messages(refused)
    # 1600 bytes refused is no probe of a usual MTU: a hop's MTU is smaller than what was sent
    [big] = explain(PROBE.split("\n\n")[1].replace("1473", "1572").replace("1501", "1600"), host="other")
    assert "fail" in levels(big)


def test_nvidia_smi_list_says_which_gpu_is_split_into_mig_instances():
    """https://github.com/influxdata/telegraf/issues/5812 (blind batch zf005): four A100s, the first in MIG mode."""
    from tests.test_fuzz_parsers import GPU_LIST
    [s] = explain(GPU_LIST, host="other")
    assert s.kind == "nvidia-smi-list" and "2 GPU(s): 2 x NVIDIA A100-SXM4-80GB." in messages(s, "info")
    assert "GPU0 is split into 2 MIG instance(s) (2 x 1g.20gb)" in messages(s) and "GPU1 is split" not in messages(s)


def test_a_rig_report_names_the_narrow_slot_and_the_power_cap():
    """club-3090's rig report (blind batch zg010; the corpus's i021 and u016 have the same shape)."""
    from tests.test_fuzz_parsers import RIG_REPORT
    [s] = explain(RIG_REPORT, host="other")
    assert s.kind == "rig-report"
    assert "GPU0 (NVIDIA GeForce RTX 3090) runs on PCIe x4 of its x16 (Gen up to 4)" in messages(s, "warn")
    assert "GPU1: PCIe x16, the card's full width." in messages(s, "ok")
    assert "GPU0: power limit 250 W, under its default 370 W" in messages(s, "info") and "GPU1: power" not in messages(s)


# https://github.com/iovisor/bcc/issues/3948 (blind batch zf004): net-tools 2.x ifconfig, one port receiving garbage
RX_ERRORS = """eth0: flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 1500
        inet 192.168.1.20  netmask 255.255.255.0  broadcast 192.168.1.255
        RX packets 878595  bytes 427573799 (407.7 MiB)
        RX errors 0  dropped 0  overruns 0  frame 0
eth1: flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 1500
        inet 192.168.4.1  netmask 255.255.255.0  broadcast 192.168.4.255
        ether 00:0e:c6:12:34:57  txqueuelen 1000  (Ethernet)
        RX packets 66972  bytes 7047196 (6.7 MiB)
        RX errors 32525  dropped 0  overruns 0  frame 0
        TX packets 146407  bytes 191270279 (182.4 MiB)
"""


def test_receive_errors_a_real_share_of_the_packets_warn():
    [s] = explain(RX_ERRORS, host="other")
    # 32525 / 66972 = 48.6%, over checks/specs/ethernet.toml [rx_errors] warn_fraction (0.1%); eth0's 0 of 878,595 not
    assert "eth1 counted 32,525 receive errors in 66,972 packets (49%)" in messages(s, "warn")
    assert "eth0 counted" not in messages(s)
    # 5 in 66,972 (0.007%) is under the threshold
    assert "receive errors" not in messages(explain(RX_ERRORS.replace("errors 32525", "errors 5"), host="other")[0])


def test_windows_ping_is_read_with_its_own_flags():
    """https://github.com/markondej/cpp-icmplib/issues/7 (blind batch zf007): Windows' ping with -f (no fragmenting)."""
    answered, refused = explain("ping -f -l 1000 -n 1 203.0.113.1\n\nPinging 203.0.113.1 with 1000 bytes of data:\n"
                                "Reply from 203.0.113.1: bytes=1000 time=2ms TTL=57\n\n"
                                "ping -f -l 1500 -n 1 203.0.113.1\n\nPinging 203.0.113.1 with 1500 bytes of data:\n"
                                "Packet needs to be fragmented but DF set.\n", host="other")
    # 1000 + 28 = 1028 bytes pass; 1500 + 28 = 1528 do not, and -l 1472 is the largest a 1500 MTU carries
    assert "answers 1028-byte packets with fragmenting forbidden" in messages(answered, "ok")
    # (the payload is the MTU itself: refused as it should be, an info since session 37; corpus zf007's reading)
    assert "The 1528-byte packet was refused as it should be" in messages(refused, "info")
    assert "-f forbids fragmenting" in messages(refused) and "`-l 1472`" in messages(refused)
    stats = parse_ping("Pinging 10.0.0.2 with 32 bytes of data:\nReply from 10.0.0.2: bytes=32 time<1ms TTL=64\n\n"
                       "Ping statistics for 10.0.0.2:\n    Packets: Sent = 4, Received = 3, Lost = 1 (25% loss),\n")
    assert (stats.transmitted, stats.received, stats.loss_percent, stats.windows) == (4, 3, 25.0, True)


def test_traffic_on_priority_zero_only_is_said_and_lifespan_is_no_counter():
    """https://github.com/bytedance/byteps/issues/179 (blind batch ze012): ethtool -S prio counters, then hw_counters."""
    prio = ("$ ethtool -S enp178s0f0 |grep prio\n     rx_prio0_bytes: 88178050405854\n     tx_prio0_bytes: 14056302074308\n"
            "     rx_prio1_bytes: 0\n     tx_prio1_bytes: 0\n     rx_prio3_bytes: 0\n")
    [s] = explain(prio, host="other")
    assert "all traffic is on priority 0" in messages(s, "info") and "priorities 1, 3 carry none" in messages(s)
    # priority 1's traffic sent (tx) but none received (rx, listed after it): it carries some, nothing to say
    sent = prio.replace("tx_prio1_bytes: 0", "tx_prio1_bytes: 5").replace("rx_prio3_bytes: 0", "rx_prio1_packets: 0")
    assert "all traffic is on priority 0" not in messages(explain(sent, host="other")[0])
    hw = ("$ grep \"\" /sys/class/infiniband/mlx5_0/ports/1/hw_counters/*\n"
          "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/lifespan:12\n"
          "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence:0\n")
    [c] = explain(hw, host="other")
    assert "lifespan" not in messages(c) and "No error counter above 0 on mlx5_0/1." in messages(c, "ok")


def test_driver_prefixed_counter_names_are_read_and_all_zero_faults_said():
    """https://github.com/isc-projects/ethq/issues/29 (blind batch zf019): NXP DPAA2's `ethtool -S`, names with spaces
    and a `[hw]` tag."""
    text = "NIC statistics:\n" + "".join(f"     [hw] {n}: {v}\n" for n, v in (
        ("rx frames", 92343581), ("rx bytes", 48809586696), ("tx frames", 331202545), ("tx bytes", 383050568929),
        ("rx filtered frames", 0), ("rx discarded frames", 0), ("rx nobuffer discards", 0), ("tx discarded frames", 0),
        ("tx confirmed frames", 0)))
    [s] = explain("$ ethtool -S eth0\n" + text, host="other")
    assert "counters shown are all 0 (3 of them): no error or drop" in messages(s, "info")
    [bad] = explain("$ ethtool -S eth0\n" + text.replace("rx discarded frames: 0", "rx discarded frames: 7"),
                    host="other")
    assert "are all 0" not in messages(bad)


def test_a_peak_output_rate_below_the_mean_is_said_as_a_counting_artefact():
    """https://github.com/vllm-project/vllm/issues/35777 (blind batch za018): 1,202.86 tok/s mean, a 506 tok/s peak."""
    text = ZERO_TTFT.replace("Median TTFT (ms):                        0.00", "Median TTFT (ms):                        150.55")
    text = text.replace("Output token throughput (tok/s):         239.56\n", "Output token throughput (tok/s):         "
                        "1202.86\nPeak output token throughput (tok/s):    506.00\n")
    [s] = explain(text, host="other", nodes=1)
    assert "peak output rate (506 tok/s) is below the run's mean (1202.86 tok/s)" in messages(s, "info")
    assert "peak output rate" not in messages(explain(text.replace("506.00", "1900.00"), host="other", nodes=1)[0])


def test_iperf3s_end_block_alone_is_read_and_udp_loss_taken_from_it():
    """https://github.com/esnet/iperf/issues/1784 (blind batch zf002): --json-stream's end event through jq."""
    text = ("$ src/iperf3 -c srv1 -R -t1 -u -b 2G --json-stream | jq 'select(.event==\"end\") | .data'\n"
            '{\n  "sum_received": {"sender": false, "bits_per_second": 1581105997.3387783},\n'
            '  "sum_sent": {"sender": false, "bits_per_second": 1999334473.4556847}\n}\n')
    [s] = explain(text, host="other", nodes=2)
    # 1 - 1.5811 / 1.9993 = 20.9% lost, over the 1% of checks/specs/ethernet.toml [udp]
    assert "the receiver got 1.58 of the 2.00 Gbit/s sent, 21% lost" in messages(s, "warn")
    tcp = text.replace(" -u", "")
    assert "% lost" not in messages(explain(tcp, host="other", nodes=2)[0])  # TCP: no datagrams to lose


def test_a_perftest_server_cut_inside_its_row_says_the_size_it_shows():
    """https://github.com/linux-rdma/perftest/issues/234 (the corpus's o006): the server's side of ib_write_bw -D 10."""
    text = (" local address: LID 0000 QPN 0x0108 PSN 0x63ad7d RKey 0x17eedf VAddr 0x007f760c947000\n"
            "---------------------------------------------------------------------------------------\n"
            " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n 65536      664644\n")
    [s] = explain("************************************\n* Waiting for client to connect... *\n"
                  "************************************\n" + text, host="other", nodes=2)
    assert "cut after its message size (65536 bytes, 664,644 iterations)" in messages(s, "info")


def test_nvidia_smi_q_xml_clock_event_reasons_are_read_as_the_text_forms():
    """https://github.com/1Panel-dev/1Panel/issues/10990 (the corpus's h021): `nvidia-smi -q -x`'s reasons, GPU idle."""
    xml = ("\t\t<clocks_event_reasons>\n\t\t\t<clocks_event_reason_gpu_idle>Active</clocks_event_reason_gpu_idle>\n"
           "\t\t\t<clocks_event_reason_sw_power_cap>Not Active</clocks_event_reason_sw_power_cap>\n"
           "\t\t\t<clocks_event_reason_hw_slowdown>Not Active</clocks_event_reason_hw_slowdown>\n"
           "\t\t</clocks_event_reasons>\n")
    [s] = explain(xml, host="other")
    assert "not throttled" in messages(s, "ok") and "`Idle` is Active" in messages(s, "ok")
    [hot] = explain(xml.replace("<clocks_event_reason_hw_slowdown>Not Active", "<clocks_event_reason_hw_slowdown>Active"),
                    host="other")
    assert "HW Slowdown is Active" in messages(hot, "warn")


def test_break_it_review_shapes():
    """Shapes the session's break-it review (helper-52) found read wrongly, each worked out by hand."""
    # a heading, a fence, then the prompt: one command, not a heading that "printed nothing"
    sections = explain("### ibdev2netdev\n```\n$ ibdev2netdev\nrocep1s0f1 port 1 ==> enp1s0f1np1 (Up)\n```\n",
                       host="spark")
    assert [s.command for s in sections] == ["ibdev2netdev"] and not any(s.error for s in sections)
    # a lone slow first reply (the neighbour's address resolved), then 0.4 ms steadily: no jitter
    ping = ("PING 192.168.100.11 (192.168.100.11) 56(84) bytes of data.\n" + "".join(
        f"64 bytes from 192.168.100.11: icmp_seq={i} ttl=64 time={t} ms\n" for i, t in enumerate(
            ("1020", "0.412", "0.398", "0.401"), start=1)))
    assert "vary widely" not in messages(explain(ping, host="spark")[0])
    # the traffic counters are not trouble; out_of_buffer is
    clean = ("$ grep . /sys/class/infiniband/rocep1s0f1/ports/1/counters/*\n"
             "/sys/class/infiniband/rocep1s0f1/ports/1/counters/port_rcv_data:2286117120\n"
             "/sys/class/infiniband/rocep1s0f1/ports/1/counters/symbol_error:0\n")
    assert "No error counter above 0 on rocep1s0f1/1 (traffic counters aside)." in messages(explain(clean)[0], "ok")
