"""Session 34: readings of real outputs mended as general rules, each test naming the output it comes from."""

from __future__ import annotations

from grader.explain import explain
from grader.facts.lesson1 import _addressing, _half_addressed
from grader.parsers import parse_ip_addr
from tests.conftest import levels, messages

# corpus q004 (oshlabs' Spark, one cable in port 0): enp1s0f0np0 addressed, its twin Up without IPv4 (shape kept,
# lines shortened)
HALF = ("3: enp1s0f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP group default qlen 1000\n"
        "    link/ether 4c:bb:47:00:00:01 brd ff:ff:ff:ff:ff:ff\n"
        "    inet 172.31.5.3/28 brd 172.31.5.15 scope global noprefixroute enp1s0f0np0\n"
        "       valid_lft forever preferred_lft forever\n"
        "5: enP2p1s0f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP group default qlen 1000\n"
        "    link/ether 4c:bb:47:00:00:03 brd ff:ff:ff:ff:ff:ff\n")


def test_an_up_twin_without_ipv4_beside_an_addressed_twin_is_a_warning_in_explain_and_the_check():
    """Corpus q004, z004 and zc007: owners address one twin of the cabled port and leave the other Up without IPv4.
    RoCE and NCCL then run over the addressed twin alone, at about half the port's rate: a warning, in explain and
    in L1.addressing's facts alike; with neither twin addressed it stays a failure."""
    [s] = explain(HALF, host="spark")
    warned = messages(s, "warn")
    assert "enP2p1s0f0np0 is UP but has no IPv4 address, while its twin enp1s0f0np0 has one" in warned
    assert "about half of the port's 200 Gb/s" in warned and "has no IPv4" not in messages(s, "fail")
    ifaces = {i.name: i for i in parse_ip_addr(HALF)}
    up = ["enp1s0f0np0", "enP2p1s0f0np0"]
    assert _addressing(ifaces, up) == [] and [p.split(" has")[0] for p in _half_addressed(ifaces, up)] == [
        "enP2p1s0f0np0"]
    bare = HALF.replace("    inet 172.31.5.3/28 brd 172.31.5.15 scope global noprefixroute enp1s0f0np0\n", "")
    [s] = explain(bare, host="spark")
    failed = messages(s, "fail")
    assert "enp1s0f0np0 is UP but has no IPv4 address" in failed and "enP2p1s0f0np0 is UP but has no IPv4" in failed
    ifaces = {i.name: i for i in parse_ip_addr(bare)}
    assert len(_addressing(ifaces, up)) == 2 and _half_addressed(ifaces, up) == []


def test_a_node_guid_of_zeros_is_an_unset_vf_guid_for_ibstat_and_ibv_devinfo():
    """Pending zt014 (linux-rdma/rdma-core PR 1547: ibv_devinfo of a ConnectX VF with `node_guid: 0000:...`) and
    zt001 (sriov-network-operator#267: ibstat's `Node GUID: 0x0000000000000000`, `ib_write_bw -R` segfaults)."""
    devinfo = ("hca_id: mlx5_0\n        transport:                      InfiniBand (0)\n"
               "        fw_ver:                         22.41.1000\n"
               "        node_guid:                      0000:0000:0000:0000\n"
               "        sys_image_guid:                 b8ce:f603:00e9:d18e\n        vendor_id:                      0x02c9\n"
               "        vendor_part_id:                 4126\n        phys_port_cnt:                  1\n"
               "                port:   1\n                        state:                  PORT_ACTIVE (4)\n"
               "                        link_layer:             Ethernet\n")
    [s] = explain(devinfo, host="other")
    assert "mlx5_0: node GUID all zeros" in messages(s, "warn")
    [s] = explain(devinfo.replace("0000:0000:0000:0000", "b8ce:f603:00e9:d18e"), host="other")
    assert "node GUID" not in messages(s)
    ibstat = ("CA 'mlx5_8'\n        CA type: MT4126\n        Number of ports: 1\n        Node GUID: 0x0000000000000000\n"
              "        System image GUID: 0x0c42a10300c6cf52\n        Port 1:\n                State: Active\n"
              "                Physical state: LinkUp\n                Rate: 25\n                Link layer: Ethernet\n")
    [s] = explain(ibstat, host="other")
    assert "mlx5_8: node GUID all zeros" in messages(s, "warn")
    assert "node GUID" not in messages(explain(ibstat.replace("0x0000000000000000", "0x0c42a10300c6cf52"))[0])


def test_a_pod_spec_beside_perftest_is_not_read_as_its_error():
    """Pending zt010 (a pod spec pasted after ib_write_bw's error): `restartPolicy: OnFailure` holds `Failure` inside
    a word, which is no error perftest printed."""
    text = ("ib_write_bw \n Did not detect devices \n If device exists, check if driver is up\n"
            " Unable to find the Infiniband/RoCE device\n\nspec:\n  restartPolicy: OnFailure\n")
    [s] = explain(text)
    assert "Unable to find the Infiniband/RoCE device" in messages(s, "fail") and "OnFailure" not in messages(s)


LO = ("GPU9:10330:10330 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to lo\n"
      "GPU9:10330:10330 [0] NCCL INFO Bootstrap : Using [0]lo:127.0.0.1<0>\n"
      "GPU9:10330:10330 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\n"
      "GPU9:10330:10330 [0] NCCL INFO Using network Socket\n")
RETRY = "GPU9:10330:10399 [0] NCCL INFO Call to connect returned Connection refused, retrying\n"


def test_nccl_sockets_on_the_loopback_fail_across_machines_and_stay_a_note_on_one():
    """Blind batch zw004 (NVIDIA/nccl: NCCL_SOCKET_IFNAME=lo on rank 1 of a two-node launch, connections refused and
    retried) and zw019 (two hosts' logs, one advertising lo): loopback reaches only its own machine."""
    [s] = explain(LO + RETRY * 3, nodes=2)
    assert "but the ranks are on 2 machines: loopback reaches only this machine" in messages(s, "fail")
    assert "both ranks were on one machine" not in messages(s)
    [s] = explain(LO + RETRY * 3)  # the node count unknown: refused and retried on lo is a warning
    assert "and its connections are refused or retried" in messages(s, "warn")
    [s] = explain(LO + "GPU9:10330:10330 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n")
    assert "both ranks were on one machine" in messages(s, "info") and "loopback reaches" not in messages(s)
    [s] = explain(LO + RETRY, nodes=1)
    assert "loopback reaches" not in messages(s)


def test_an_nccl_error_is_read_with_its_last_error_line():
    """Blind batch zw010 (DeepSpeedExamples#310: `ncclInternalError: Internal check failed.`, then `Last error:` and
    the socket's unset address family on the next line): the detail names the cause, in the table's words."""
    text = ("[trainer3]:h:1958:1958 [3] NCCL INFO NCCL_SOCKET_IFNAME set to eth2\n"
            "[trainer0|0]:ncclInternalError: Internal check failed.\n[trainer0|0]:Last error:\n"
            "[trainer0|0]:ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) nor "
            "AF_INET6(10)\n")
    [s] = explain(text)
    failed = messages(s, "fail")
    assert "an address that was never filled in" in failed and "Internal check failed. Last error: ncclSocketInit" in failed
    assert "The WARN lines above it say which call failed" not in failed


def test_a_ray_head_on_dockers_default_bridge_cannot_be_joined_from_another_machine():
    """Blind batch zv007 (ray#11211: `ray start --head` in a container, `Local node IP: 172.17.0.3`, the prompt a
    shell's own `(app-root) bash-4.2#`): a container's bridge address no other machine reaches."""
    text = ("(app-root) bash-4.2# ray start --head --dashboard-host 0.0.0.0 --gcs-server-port 4003\n"
            "Local node IP: 172.17.0.3\n"
            "2020-10-14 05:47:50,218\tINFO services.py:1166 -- View the Ray dashboard at http://172.17.0.3:8265\n")
    [s] = explain(text, nodes=2)
    assert s.kind == "ray-start" and s.command.startswith("ray start --head")
    assert "an address of Docker's default bridge (172.17.0.0/16)" in messages(s, "fail")
    assert "Docker's default bridge" in messages(explain(text)[0], "warn")
    [s] = explain(text, nodes=1)
    assert "Docker's default bridge" not in messages(s) and "Ray's node IP is 172.17.0.3" in messages(s, "info")


def test_older_rays_raylet_address_line_and_grpcs_bind_failure_are_read_alone():
    """Blind batch zv017 (ray#31264: Ray 2.x's `while we can not find the matched Raylet address`, the line alone) and
    zv018 (ray#14098: raylet.err's gRPC JSON, `"description":"Address already in use","errno":98`)."""
    line = ("[2022-12-20 03:13:08,669 I 25449 25449] global_state_accessor.cc:357: This node has an IP address of "
            "203.0.113.44, while we can not find the matched Raylet address. This maybe come from when you connect the "
            "Ray cluster with a different IP address or connect a container.\n")
    [s] = explain(line)
    assert s.kind == "ray-start" and "Ray had not yet found a raylet at this node's address 203.0.113.44" in messages(s, "warn")
    grpc = ('E0215 01:53:44.582325479    2825 server_chttp2.cc:40]        {"created":"@1613354024.582257191",'
            '"description":"Unable to configure socket","fd":32,"referenced_errors":[{"created":"@1613354024.582234203",'
            '"description":"Address already in use","errno":98}]}\n')
    assert "because another process already holds it" in messages(explain(grpc)[0], "fail")


def test_a_loopback_master_is_a_fault_only_where_several_nodes_are_asked_for():
    """Blind batch zz003 (DeepSeek-V3#487: torchrun --nnodes 2 ... --master-addr 127.0.0.1): on one node, loopback is
    the right master address."""
    launch = "torchrun --nnodes 2 --nproc-per-node 8 --node-rank 1 --master-addr 127.0.0.1 generate.py\n"
    assert "The launch asks for 2 nodes with the master address 127.0.0.1" in messages(explain(launch)[0], "fail")
    one = launch.replace("--nnodes 2", "--nnodes 1")
    assert "fail" not in levels(explain(one)[0]) and "fail" not in levels(explain(launch, nodes=1)[0])
    old = "[E socket.cpp:793] [c10d] The client socket has timed out after 60s while trying to connect to (IP1, 2222).\n"
    assert "at IP1:2222 within 60 s" in messages(explain(old)[0], "fail")  # (pytorch#79388: torch 1.12's seconds)


def test_loss_counters_of_any_driver_are_weighed_against_the_packets_received():
    """Blind batch zy010 (strizhechenko/netutils-linux#208: be2net's `ethtool -S`, per-queue `rxq0: ...` counters):
    drops and checksum errors of a thousandth or more of the packets received (ethernet.toml [rx_errors])."""
    text = ("NIC statistics:\n     rx_crc_errors: 0\n     rx_in_range_errors: 1430\n"
            "     rx_dropped_tcp_length: 1772495\n     rx_tcp_checksum_errs: 1167057456\n"
            "     rxq0: rx_pkts: 388869057759\n     rxq0: rx_drops_no_frags: 3885606854\n")
    [s] = explain(text)
    warned = messages(s, "warn")
    assert "rxq0: rx_drops_no_frags 3,885,606,854 (1.00%)" in warned and "rx_tcp_checksum_errs" in warned
    assert "rx_dropped_tcp_length" not in warned and "rx_in_range_errors" not in warned  # (under a thousandth)
    assert "losses large" not in messages(explain(text.replace("rxq0: rx_pkts", "rxq0: rx_bytes"))[0])


def test_a_router_pings_do_not_fragment_in_words():
    """Blind batch zy015 (VyOS: `ping 10.0.0.65 do-not-fragment size 1472`): its words say -M do and -s."""
    text = ("vyos@vyos:~$ ping 10.0.0.65 do-not-fragment size 1472\nPING 10.0.0.65 (10.0.0.65) 1472(1500) bytes of "
            "data.\n1480 bytes from 10.0.0.65: icmp_seq=1 ttl=64 time=0.143 ms\n")
    assert "answers 1500-byte packets with fragmenting forbidden" in messages(explain(text)[0], "ok")


def test_every_rank_of_a_communicator_under_one_host_is_one_machine():
    """Blind batch xb008 (bytedance/byteps#61: NCCL 2.3.7 prints no nNodes; four ranks, all under worker-pytorch-0):
    sockets between ranks of one machine carry nothing between machines."""
    ranks = "".join(f"worker-pytorch-0:2{r}:2{r} [{r}] NCCL INFO comm 0x9{r} rank {r} nranks 4\n" for r in range(4))
    text = ("worker-pytorch-0:27:27 [0] NCCL INFO NET/Socket : Using [0]eth0:203.0.113.228<0>\n"
            "worker-pytorch-0:27:27 [0] NCCL INFO Using network Socket\n" + ranks)
    [s] = explain(text)
    assert "warn" not in levels(s) and "4 ranks on one node" in messages(s, "info")
    [s] = explain(text.replace("[3] NCCL INFO comm 0x93 rank 3", "[3] NCCL INFO comm 0x93 rank 2"))
    assert "4 ranks on one node" not in messages(s)  # rank 3 not shown: the machines are not known


def test_vllm_0_3s_benchmark_summary_quoted_in_a_reply_is_read():
    """Blind batch xa003 (vllm-project/vllm#3297: benchmark_serving.py of vLLM 0.3, its unit after each value, every row
    quoted with `> ` below prose): the rows are the summary's."""
    text = ("hardware: L40  * 8\nclient side:\n`python benchmark_serving.py --backend vllm --request-rate 10 "
            "--num-prompts 100`\nresult:\n\n> Successful requests: 100\n> Benchmark duration: 29.521190 s\n"
            "> Total input tokens: 25900\n> Total generated tokens: 22632\n> Request throughput: 3.39 requests/s\n"
            "> Output token throughput: 766.64 tokens/s\n> Mean TTFT: 119.86 ms\n> Median TTFT: 96.76 ms\n"
            "> Mean TPOT: 49.34 ms\n")
    bench = [s for s in explain(text) if s.kind == "vllm-bench"]
    assert bench and "100 of 100 requests completed, 0 failed: no failures." in messages(bench[0], "ok")
    said = messages(bench[0])
    assert "3.39 req/s over 29.52 s" in said and "TTFT median 96.76 ms" in said and "mean 49.34 ms" in said


def test_off_a_spark_no_catalogue_advice_names_qsfp_twins_outside_a_sentence_about_sparks():
    """Break-it review of session 34 (20): with `--host other` (or a paste that shows another machine: an mlx5_N HCA, an
    H100), the catalogue's advice says the interface between the nodes, not a Spark's QSFP twins."""
    import re

    from grader.diagnoses import known_faults
    from grader.judges.context import _CONTEXT, Context
    from tests.test_diagnoses import EXAMPLES
    token = _CONTEXT.set(Context("other", None))
    try:
        said = {name: " ".join(m for _, m in known_faults(text)) for name, text in EXAMPLES.items()}
    finally:
        _CONTEXT.reset(token)
    wrong = {name: s for name, text in said.items()
             for s in re.split(r"(?<=[.;])\s", text) if re.search(r"QSFP|\btwins?\b", s) and "Spark" not in s}
    assert wrong == {}
    hgx = ("h1:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB ; OOB ib0:10.10.3.13<0>\n"
           "torch.distributed.DistBackendError: NCCL error in: NCCLUtils.hpp:317, unhandled system error\n")
    assert "QSFP" not in " ".join(messages(s) for s in explain(hgx))  # (seen: an HGX's HCAs, no --host)


def test_the_break_it_review_of_session_34():
    """helper-80's reproducers (/tmp/breakit12), each as a short sample: this session's rules that said too much."""
    import time
    # a benign InfiniBand port event beside the proxy's failed Connect: the failure stays the run's
    ib = ("h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>\n"
          "h:1:9 [0] NCCL WARN NET/IB : Got async event : client reregistration\n"
          "h:1:7 [0] proxy.cc:1 NCCL WARN [Service thread] Error encountered progressing operation=Connect, res=3, "
          "closing connection\n")
    [s] = explain(ib)
    assert "Error encountered progressing operation=Connect" in messages(s, "fail")
    # torchrun: a random run id on one node, a loopback master on node 0: nothing wrong
    one = ("INFO:torch.distributed.launcher.api:Starting elastic_operator with launch configs:\n  min_nodes        : 1\n"
           "  rdzv_backend     : c10d\nWARNING:torch.distributed.launcher.api:config has no run_id, generated a random "
           "run_id: 1745\n")
    assert all("fail" not in levels(s) for s in explain(one))
    rank0 = "torchrun --nnodes 2 --node-rank 0 --master-addr localhost --nproc-per-node 8 train.py\n"
    assert all("fail" not in levels(s) for s in explain(rank0))
    # Ray: the dashboard's port after `&&` is a job submission's; an address given on purpose in 172.17.x is no bridge
    submit = "ray start --head --port 6379 && ray job submit --address=http://10.0.0.1:8265 -- python job.py\n"
    assert not any("dashboard's port" in messages(s) for s in explain(submit))
    lan = ("[ops@gpu-node2 ~]$ ray start --address=172.17.8.10:6379 --node-ip-address=172.17.8.11 --num-gpus=8\n"
           "Local node IP: 172.17.8.11\n")
    assert not any("Docker's default bridge" in messages(s) for s in explain(lan, nodes=2))
    # an ABI refusal beside devices that opened is that device's
    abi = ("libibverbs: Warning: Driver irdma does not support the kernel ABI of 6 (supports 4 to 5) for device "
           "/sys/class/infiniband/irdma0\n2 HCAs found:\n")
    assert "libibverbs refused one device" in messages(explain(abi)[0], "warn")
    # ethtool -S: FEC's corrected bits and flow steering's misses are no losses
    stats = ("NIC statistics:\n     rx_packets_phy: 212848102\n     rx_err_lane_2_phy: 640113\n     fdir_miss: 194018221\n")
    assert "losses large" not in messages(explain(stats)[0])
    # AWS EFA prints a zero node GUID always; a port without module data is no fault
    efa = ("hca_id:\tefa_0\n\ttransport:\t\t\tunspecified (4)\n\tnode_guid:\t\t\t0000:0000:0000:0000\n"
           "\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n")
    assert "node GUID" not in messages(explain(efa)[0])
    assert "warn" not in levels(explain("$ ethtool -m enP7s7\nCannot get module EEPROM information: Operation not "
                                        "supported\n")[0])
    # llama.cpp: every layer assigned to the GPU while a MoE's experts stay on the CPU is said so
    moe = ("load_tensors: offloaded 95/95 layers to GPU\nload_tensors:        CUDA0 model buffer size =  9216.00 MiB\n"
           "load_tensors:   CPU_Mapped model buffer size = 135372.00 MiB\n")
    [s] = explain(moe)
    assert "ok" not in levels(s) and "stay in host memory" in messages(s, "info")
    # the watchdog's pattern is bounded: a long line costs no quadratic search
    long = "[E ProcessGroupNCCL.cpp:1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=" \
        + "X" * 200_000 + "\n"
    start = time.process_time()
    explain(long)
    assert time.process_time() - start < 3


def test_an_error_chain_through_bootstrap_says_where_it_failed():
    """Corpus a011 (NVIDIA/nccl#1612): a peer's socket closed, the chain of `-> 6` lines through bootstrap.cc."""
    text = ("[0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.10.1.3<36138>\n"
            "[0] NCCL INFO misc/socket.cc:80 -> 6\n[0] NCCL INFO bootstrap.cc:701 -> 6\n[0] NCCL INFO init.cc:1402 -> 6\n")
    [s] = explain(text)
    assert "through its bootstrap" in messages(s, "info") and "A peer closed its connection" in messages(s, "fail")
    assert "through its bootstrap" not in messages(explain(text.replace("bootstrap.cc:701", "proxy.cc:701"))[0])
