"""Shapes the blind corpus batches o and p (tests/fixtures/field/corpus, 2026-12-05) found explain misreading, each
on a short sample in the shape of the real output its comment names, with the values worked out by hand."""

from __future__ import annotations

from grader.explain import explain
from grader.parsers.ibstat import parse_ibstat
from grader.parsers.iproute import parse_ip_addr
from tests.conftest import levels, messages

# ifupdown2#319 (corpus o017): an SR-IOV PF nobody enabled, `ip link` behind a bare `> ` prompt
PF_DOWN = """> ip link
1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000
    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00
2: enp1s0f0np0: <BROADCAST,MULTICAST> mtu 1500 qdisc noop state DOWN mode DEFAULT group default qlen 1000
    link/ether 68:05:ca:00:00:84 brd ff:ff:ff:ff:ff:ff
    vf 0     link/ether ba:4e:ac:00:00:ef brd ff:ff:ff:ff:ff:ff, spoof checking on, link-state auto, trust off
    vf 1     link/ether ba:4e:ac:00:00:f0 brd ff:ff:ff:ff:ff:ff, spoof checking on, link-state auto, trust off
"""


def test_an_interface_nobody_enabled_is_not_a_cable_fault():
    """No UP flag (qdisc noop) is administratively down: `ip link set ... up`, whatever the cable. With SR-IOV VFs on
    it the PF is meant to work (a fail); on another host than a Spark, a Spark's twin name means nothing (no playbook
    advice); a bare `> ` prompt before a known program is a prompt."""
    assert [i.vfs for i in parse_ip_addr(PF_DOWN.split("\n", 1)[1])] == [0, 2]
    (s,) = explain(PF_DOWN, host="other")
    assert s.command == "ip link" and levels(s).count("fail") == 1
    said = messages(s)
    assert "administratively down" in said and "2 shown" in said and "sudo ip link set enp1s0f0np0 up" in said
    assert "cable" not in said.lower() and "playbook" not in said
    (s,) = explain("\n".join(x for x in PF_DOWN.splitlines() if " vf " not in x) + "\n", host="spark")
    assert levels(s).count("fail") == 1 and "Administratively down (no UP flag: enp1s0f0np0)" in messages(s, "fail")


# Mooncake#1617 (corpus o014): AMD AI NICs whose only RoCE v2 GID beyond fe80 is a ULA IPv6 one
ULA = """DEV     PORT    INDEX   GID                                     IPv4            VER     DEV
---     ----    -----   ---                                     ------------    ---     ---
rocep105s0      1       0       fe80:0000:0000:0000:0690:81ff:fe00:0101                 v2      enp105s0
rocep105s0      1       1       fd93:16d3:59b6:010d:0690:81ff:fe00:0101                 v2      enp105s0
rocep193s0f0    1       0       fe80:0000:0000:0000:7ec2:55ff:fe00:0201                 v1      enp193s0f0np0
rocep193s0f0    1       1       fe80:0000:0000:0000:7ec2:55ff:fe00:0201                 v2      enp193s0f0np0
n_gids_found=4
"""


def test_a_routable_ipv6_gid_is_not_called_link_local():
    (s,) = explain(ULA, host="other")
    warned = messages(s, "warn")
    assert "rocep105s0 has no IPv4 RoCE v2 GID, but RoCE v2 GID index 1 carries the IPv6 address fd93:" in warned
    assert "NCCL_IB_ADDR_FAMILY=AF_INET6" in warned and "rocep105s0 has only link-local" not in messages(s)
    assert "fail" not in levels(s)  # the fe80-only device beside it is one without an address: a note


# gpud#482 and gpud#752 (corpus o002, o003): an InfiniBand port that lost its link, and ibstat stopped by ibpanic
LOST = """CA 'mlx5_10'
\tCA type: MT4129
\tNumber of ports: 1
\tFirmware version: 28.39.1002
\tPort 1:
\t\tState: Down
\t\tPhysical state: Polling
\t\tRate: 10
\t\tBase lid: 868
\t\tLMC: 0
\t\tSM lid: 334
\t\tLink layer: InfiniBand
"""


def test_an_infiniband_port_that_keeps_its_lid_lost_its_link():
    [ca] = parse_ibstat(LOST)
    assert (ca.ports[0].base_lid, ca.ports[0].sm_lid) == (868, 334)
    (s,) = explain(LOST)
    assert "mlx5_10 port 1 is Down/Polling, yet it keeps the LID 868" in messages(s, "fail")
    never = LOST.replace("Base lid: 868", "Base lid: 0").replace("SM lid: 334", "SM lid: 0")
    (s,) = explain(never)
    assert "fail" not in levels(s)  # never given a LID: an unused port, as before
    cut = LOST + "ibpanic: [1323906] main: stat of IB device 'mlx5_8' failed: No such file or directory\n"
    cas = parse_ibstat(cut)
    assert [c.ca for c in cas] == ["mlx5_10"] and cas.panic.startswith("ibpanic: [1323906]")
    (s,) = explain(cut)
    assert s.error is None and "the devices after mlx5_10 are missing" in messages(s, "warn")


# skypilot#573 (corpus o009): ray status printed through a one-letter logger, cut before its Resources section
PREFIXED = "".join(f"I 03-15 02:13:41 backend_utils.py:521] {x}\n" for x in (
    "======== Autoscaler status: 2022-03-15 02:13:39.085605 ========", "Node status",
    "---------------------------------------------------------------", "Healthy:", " 1 ray_head_default",
    "Pending:", " 10.138.0.63: ray_worker_default, setting-up", "Recent failures:"))


def test_a_logger_prefix_is_read_through_and_a_cut_status_claims_no_gpu_count():
    (s,) = explain(PREFIXED)
    assert s.kind == "ray-status" and "10.138.0.63" in messages(s) and "setting-up" in messages(s)
    assert "no GPU" not in messages(s)  # the paste stops before the Resources section


def test_a_ping_cut_after_its_first_line_is_not_a_proven_loss():
    """multizone#20 (corpus o016): 1473 bytes of payload is a 1501-byte packet; the paste stops at the PING line."""
    (s,) = explain("$ ping -s 1473 192.168.0.1\nPING 192.168.0.1 (192.168.0.1) 1473(1501) bytes of data.\n",
                   host="other")
    assert levels(s)[0] == "warn" and "No reply shown" in messages(s) and "1501-byte" in messages(s)
    assert "Spark" not in messages(s) and "-s 1472" in messages(s)


def test_iperf3_reads_a_port_range_as_its_first_port():
    """esnet iperf#1751 (corpus c024): `-p 5201-5203` is atoi'd to 5201."""
    (s,) = explain("$ iperf3 -c server.example -p 5201-5203\niperf3: error - unable to connect to server - server may "
                   "have stopped running or use a different port, firewall issue, etc.: Connection refused\n")
    assert "iperf3 read `5201-5203` as 5201" in messages(s, "fail")


def test_nccl_tests_of_header_lines_alone_is_read():
    """nccl-tests#107 (corpus p015): mpirun of a build without MPI; two `# Rank 0` lines and no data row, every line
    a `#` one."""
    text = ("$ mpirun -host localhost,172.31.20.228 -np 2 ./build/all_reduce_perf -b 1250M -e 1250M -g 1\n"
            "# nThread 1 nGpus 1 minBytes 1310720000 maxBytes 1310720000 step: 1048576(bytes) warmup iters: 5 iters: 20 "
            "validation: 1\n#\n# Using devices\n"
            "#   Rank  0 Pid   1320 on ip-172-31-20-228 device  0 [0x00] Tesla V100-SXM2-16GB\n"
            "#   Rank  0 Pid   2066 on ip-172-31-22-230 device  0 [0x00] Tesla V100-SXM2-16GB\n")
    (s,) = explain(text)
    assert s.error is None and "built without MPI" in messages(s, "fail")


def test_an_average_over_rows_cut_above_is_a_note():
    """nccl-tests#119 (corpus p014): the tail of a table, no header: the average covers rows not pasted."""
    row = "   {0}   {1}     float     sum      -1   2560.7   49.96   95.75      0   2556.2   50.05   95.92      0\n"
    text = row.format(127926280, 31981570) + row.format(133169160, 33292290) + "# Out of bounds values : 0 OK\n" \
        "# Avg bus bandwidth    : 84.8558\n"
    (s,) = explain(text, host="other")
    assert "warn" not in levels(s) and "The paste starts inside the table" in messages(s, "info")
    assert "several NICs" in messages(s)  # 95.8 GB/s over machines: NICs on their own PCIe links, not NVLink alone


def test_gdrdma_in_a_piece_of_a_line_is_not_gpudirect_off():
    """vllm#15100 (corpus p010): Ray's forwarding cut a channel line; `/GDRDMA` is in a piece of it."""
    text = ("(RayWorkerWrapper pid=637, ip=10.244.1.196) host-1:637:15023 [4] NCCL INFO Channel 12/0 : 5[5] -> 12[4] "
            "[receive] via NET/IB/0\n(RayWorkerWrapper pid=636, ip=10.244.1.196) T/IB/7/GDRDMA\n"
            "(RayWorkerWrapper pid=636, ip=10.244.1.196) host-1:636:15017 [3] NCCL INFO Connected all rings\n")
    (s,) = explain(text, kind="nccl-log", host="other")
    assert "GPUDirect RDMA is off" not in messages(s) and "GPUDirect RDMA is on" in messages(s)
    (s,) = explain(text.replace("T/IB/7/GDRDMA", "T/IB/7"), kind="nccl-log", host="other")
    assert "GPUDirect RDMA is off" in messages(s, "warn")


def test_a_topology_with_glued_columns_behind_an_oh_my_zsh_prompt():
    """vllm#13855 (corpus p004): tab stops lost (`NODENODE`, `NIC8NIC9`), the prompt oh-my-zsh's `➜  ~`; eight GPUs
    all joined by NV18 are said once (28 pairs = 8 x 7 / 2), not pair by pair."""
    rows = []
    for i in range(8):
        cells = ["NV18"] * 8
        cells[i] = " X "
        nic = "PXB\tNODENODE" if i < 4 else "NODE\tNODEPXB"
        rows.append(f"GPU{i}\t" + "\t".join(cells) + f"\t{nic}\t0-55\t0\t\tN/A")
    text = ("(base) \u279c  ~ nvidia-smi topo -m\n\n\tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tNIC0\tNIC1NIC2"
            "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n" + "\n".join(rows) + "\n")
    (s,) = explain(text)
    assert s.command == "nvidia-smi topo -m" and s.error is None
    nv = [m for m in messages(s).split("\n") if "NV18" in m]
    assert "NV18 between every pair of the 8 GPUs (28 pairs)" in messages(s, "ok") and len(nv) == 1


def test_nvidia_smi_q_names_the_gpus_and_a_unified_memorys_na():
    """nomad-device-nvidia#87 (corpus p002): a GB10's `-q` cut with a poster's `..`: its BAR1 N/A is expected."""
    text = ("$ nvidia-smi -q\n\n==============NVSMI LOG==============\n\nDriver Version                            : "
            "580.95.05\n\nAttached GPUs                             : 1\nGPU 0000000F:01:00.0\n    Product Name      "
            "                    : NVIDIA GB10\n..\n    BAR1 Memory Usage\n        Total                             : "
            "N/A\n        Used                              : N/A\n")
    (s,) = explain(text)
    said = messages(s)
    assert "1 GPU: NVIDIA GB10 (0000000F:01:00.0); driver 580.95.05." in said and "BAR1 memory N/A, as expected" in said
    assert set(levels(s)) == {"info"}


def test_the_cpu_backend_is_named_from_its_own_files():
    """vllm#39910 (corpus p013): no `detected platform` line, but `cpu_model_runner.py` logs only on the CPU."""
    text = ("(EngineCore pid=127) INFO 04-15 13:41:18 [kv_cache_utils.py:1319] GPU KV cache size: 1,126,400 tokens\n"
            "(Worker pid=185) INFO 04-15 13:41:24 [cpu_model_runner.py:116] Warming up model for the compilation...\n")
    (s,) = explain(text)
    assert s.facts["platform"] == "cpu" and "platform cpu" in messages(s)


def test_cpus_held_in_placement_groups_are_said():
    """mars#2768 (corpus o007): `4.0/8.0 CPU (4.0 used of 4.0 reserved in placement groups)`."""
    text = ("======== Autoscaler status: 2022-03-01 14:54:03.979654 ========\nNode status\n"
            "---------------------------------------------------------------\nHealthy:\n 2 local.cluster.node\n"
            "Pending:\n (no pending nodes)\nRecent failures:\n (no failures)\n\nResources\n"
            "---------------------------------------------------------------\nUsage:\n"
            " 4.0/8.0 CPU (4.0 used of 4.0 reserved in placement groups)\n 0.00/13.457 GiB memory\n"
            " 0.97/6.204 GiB object_store_memory\n\nDemands:\n (no resource demands)\n")
    (s,) = explain(text)
    assert "CPUs 4/8 in use (4 used of 4 reserved in placement groups" in messages(s)


# --------------------------------------------------------------------------- classes q and r

def test_a_persons_arrow_notes_and_a_machines_label_are_left_out():
    """gx10-cluster's runbook (corpus q003, q008): `<- want BOTH` after rows; ucx#10420 (q021): `client` above the
    prompt."""
    text = ("rocep1s0f0   port 1 ==> enp1s0f0np0   (Up)     <- cabled port, partition 0\n"
            "rocep1s0f1   port 1 ==> enp1s0f1np1   (Down)   <- empty QSFP port\n"
            "roceP2p1s0f0 port 1 ==> enP2p1s0f0np0 (Up)     <- cabled port, partition 1\n"
            "roceP2p1s0f1 port 1 ==> enP2p1s0f1np1 (Down)   <- empty QSFP port\n")
    (s,) = explain(text)
    assert s.kind == "ibdev2netdev" and s.error is None and "both twins are Up" in messages(s, "ok")
    sections = explain("client\n$ ibdev2netdev\n" + text)
    assert [x.kind for x in sections] == ["ibdev2netdev"]


def test_show_gids_a_v2_row_cut_off_and_an_infiniband_port():
    """ucx#10420 (q021): the IPv4 shows on the v1 row, its v2 row is cut; rdma_test (q019): a row with no netdev is
    an InfiniBand port, not a RoCE one without an address."""
    head = "DEV     PORT    INDEX   GID                                     IPv4            VER     DEV\n"
    cut = head + ("mlx5_bond_1     1       0       fe80:0000:0000:0000:a288:c2ff:fe0c:1d02                 v1      bond1\n"
                  "mlx5_bond_1     1       2       0000:0000:0000:0000:0000:ffff:0a10:270d 10.16.39.13     v1      bond1\n"
                  "mlx5_bond_1     1       3\n")
    (s,) = explain(cut, host="other")
    assert "10.16.39.13 is on its netdev bond1 (RoCE v1 GID index 2); its RoCE v2 row, index 3" in messages(s, "info")
    assert "has no IPv4" not in messages(s)
    ib = head + ("mlx5_0  1       0       fe80:0000:0000:0000:268a:07ff:fe0a:1c04                 v2      ens11f0\n"
                 "mlx5_1  1       0       fe80:0000:0000:0000:248a:0703:000a:1c05                 v1\nn_gids_found=2\n")
    (s,) = explain(ib, host="other")
    assert "mlx5_1 has no netdev in this table: an InfiniBand port" in messages(s, "info")
    assert levels(s).count("warn") == 1 and "fail" not in levels(s)  # mlx5_0, in use or not: show_gids cannot say


def test_a_bond_at_200g_on_another_host_is_not_a_spark_port():
    """ucx#10430 (q015): `ethtool bond0` at 200000Mb/s with --host other."""
    (s,) = explain("$ ethtool bond0\nSettings for bond0:\n\tSpeed: 200000Mb/s\n\tDuplex: Full\n", host="other")
    assert "Spark" not in messages(s).replace("not a Spark QSFP", "")


def test_a_topology_cut_in_its_rows_says_no_path_is_missing():
    """nccl#1505 (r004): rows after GPU4 cut: their pairs are not warned about, and NVLink between every pair shown
    keeps the cards' NUMA spread a note."""
    cells = lambda i: "\t".join(" X " if j == i else "NV12" for j in range(4))
    text = ("\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity\n"
            + "".join(f"GPU{i}\t{cells(i)}\t0-7\t{3 if i < 2 else 1}\n" for i in range(2)))
    (s,) = explain(text, host="other")
    assert "warn" not in levels(s) and "NV12" in messages(s, "ok") and "rows GPU2, GPU3 are missing" in messages(s)


def test_sglangs_input_throughput_and_a_prefill_test():
    """sglang#9428 (r011): 64 prompts of 32k, 2 tokens out: input tok/s is the figure; ITL says nothing."""
    text = ("============ Serving Benchmark Result ============\nBackend:                                 sglang\n"
            "Traffic request rate:                    inf\nSuccessful requests:                     64\n"
            "Benchmark duration (s):                  15.30\nTotal input tokens:                      2097122\n"
            "Total generated tokens:                  101\nRequest throughput (req/s):              4.18\n"
            "Input token throughput (tok/s):          137022.74\nOutput token throughput (tok/s):         6.60\n"
            "==================================================\n")
    (s,) = explain(text)
    assert "Input 137,023 tok/s (the prompts' prefill), output 6.6 tok/s" in messages(s)
    assert "one or two output tokens each" in messages(s)


def test_a_command_typed_right_under_another_output():
    """linux-riscv-dev's notes (q016): `ethtool  ens14f0 | grep -i speed` right under `ethtool -i`'s output."""
    text = ("ethtool -i ens14f0\ndriver: mlx5_core\nfirmware-version: 14.27.1016 (MT_2420110004)\n"
            "bus-info: 0000:98:00.0\nethtool  ens14f0 | grep -i speed\n        Speed: 10000Mb/s\n")
    sections = explain(text, host="other")
    assert [x.command for x in sections] == ["ethtool -i ens14f0", "ethtool  ens14f0 | grep -i speed"]
    assert "10000Mb/s" in messages(sections[1])


def test_rdma_link_add_prints_nothing_and_container_and_hostpath_prompts():
    """linux-riscv-dev (q012): `rdma link add` succeeds silently; vllm#15217 (r002) `Singularity> ray status`;
    (q009) `ubuntu:/home/ubuntu:~$ ibdev2netdev`."""
    sections = explain("$ rdma link add rxe_eth0 type rxe netdev ens4\n$ rdma link show\n"
                       "link rxe_eth0/1 state ACTIVE physical_state LINK_UP netdev ens4\n", host="other")
    assert sections[0].error is None and "prints nothing when it succeeds" in messages(sections[0])
    (s,) = explain("Singularity> ray status\n======== Autoscaler status: 2025-03-20 20:40:48.252496 ========\n"
                   "Node status\n---------------------------------------------------------------\nActive:\n"
                   " 1 node_4c9baf725a0e654\n 1 node_e6107ebf05bbc00\n")
    assert s.kind == "ray-status" and s.command == "ray status"
    (s,) = explain("ubuntu:/home/ubuntu:~$ ibdev2netdev\nmlx5_0 port 1 ==> ens4f0 (Down)\n")
    assert s.kind == "ibdev2netdev" and s.host == "ubuntu"


def test_ibv_devices_lists_the_devices_and_an_empty_list_fails():
    """myers-dev's GX10 notes (q010): `ibv_devices` after `rdma link`; with no device (a container without
    /dev/infiniband) the list is empty."""
    from tests.test_fuzz_parsers import IBV_DEVICES
    (s,) = explain("$ ibv_devices\n" + IBV_DEVICES)
    assert s.kind == "ibv-devices" and "rocep1s0f0, roceP2p1s0f0" in messages(s, "info")
    (s,) = explain("$ ibv_devices\n    device                 node GUID\n    ------              ----------------\n")
    assert "lists no RDMA device" in messages(s, "fail")


def test_docker_ps_says_each_containers_state():
    """KoyoImai's two Sparks (j009, r001): the node's container Up; serverlessllm#242 (l021): a worker Exited (139),
    which the diagnosis of a crash by signal says beside (checks/diagnoses.toml)."""
    from tests.test_fuzz_parsers import DOCKER_PS
    up = ("$ docker ps\nCONTAINER ID   IMAGE                           COMMAND                   CREATED          STATUS  "
          "        PORTS     NAMES\n0531c5c2f60e   nvcr.io/nvidia/vllm:25.11-py3   \"/bin/bash -c 'ray s…\"   23 seconds "
          "ago   Up 23 seconds             node-26018\n")
    (s,) = explain(up)
    assert s.kind == "docker-ps" and "node-26018 (nvcr.io/nvidia/vllm:25.11-py3), Up 23 seconds" in messages(s)
    (s,) = explain("$ docker ps -a\n" + DOCKER_PS)
    assert "sllm_worker_0" in messages(s, "info") and "crashed" in messages(s, "fail")
    restarting = DOCKER_PS.replace("Exited (139) 2 minutes ago", "Restarting (1) 5 seconds ago")
    (s,) = explain("$ docker ps\n" + restarting)
    assert "restarting again and again" in messages(s, "warn")


def test_nic_counters_and_pause_settings():
    """PF_RING#293 (o012): `ethtool -a` of four ports, one sending no pause frames, and `ethtool -S | grep lsc_int`,
    one port's link having changed state 115 times; mlx5's link_down_events_phy and CRC errors alike."""
    pauses = "".join(f"Pause parameters for eth{i}:\nAutonegotiate:  off\nRX:    on\nTX:    {'off' if i == 11 else 'on'}\n"
                     for i in (8, 9, 10, 11))
    (s,) = explain("$ ethtool -a eth8\n" + pauses, kind="ethtool-stats")
    assert "eth11 unlike the others" in messages(s, "warn")
    (s,) = explain("$ sudo ethtool -S eth11 | grep lsc_int\n     lsc_int: 115\n")
    assert s.kind == "ethtool-stats" and "lsc_int is 115" in messages(s, "warn")
    (s,) = explain("$ ethtool -S enp1s0f1np1\nNIC statistics:\n     rx_packets: 1000000\n     link_down_events_phy: 0\n"
                   "     rx_crc_errors_phy: 12\n")
    assert "frames damaged on the wire (rx_crc_errors_phy 12)" in messages(s, "warn") and "link_down" not in \
        messages(s, "warn")


def test_what_the_review_of_this_sessions_change_found_stays_mended():
    """helper-32's reproducers (2026-12-05), each on the shape it found."""
    cid = "3f4e9c1d2b7a8e6f5d4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a291807f6e"
    run = "$ docker run -d --gpus all --network host --name node img bash -c \"ray start --head --block\"\n"
    # 1. the ID, then docker's error: created, not started
    (s,) = explain(run + cid + "\ndocker: Error response from daemon: could not select device driver \"\" with "
                   "capabilities: [[gpu]].\n")
    assert "docker did not start the container node" in messages(s, "fail") and "started in the background" not in \
        messages(s)
    # 2. a warning line above the ID (join_wrapped glues them): the ID still read
    (s,) = explain(run + "WARNING: Published ports are discarded when using host network mode\n" + cid + "\n")
    assert s.error is None and "3f4e9c1d2b7a" in messages(s) and "docker warned: `Published ports" in messages(s)
    # 3. a secret in a dict of facts (vLLM's non-default args) and 4. in a command line
    from grader.explain import to_jsonable
    import json
    log = ("INFO 05-01 10:00:00 [utils.py:233] non-default args: {'model_tag': 'm', 'api_key': "
           "'sk-proj-SECRETSECRET1234567890', 'hf_token': 'SECRETHFTOKEN0987654321'}\n")
    said = json.dumps(to_jsonable(explain(log)))
    assert "SECRETSECRET" not in said and "SECRETHFTOKEN" not in said
    (s,) = explain("$ docker login nvcr.io -u '$oauthtoken' -p nvapi-Q3xV9kABCDEFGHIJKLMNOPQRSTUV\nLogin Succeeded\n")
    assert "nvapi-Q3xV9k" not in (s.command or "") + messages(s)
    # 5. Ctrl-C on `ray start --block` after it started is no failure
    head = ("$ ray start --head --block\nLocal node IP: 192.168.100.10\n\n--------------------\nRay runtime started.\n"
            "--------------------\n^CTraceback (most recent call last):\n  File \"/usr/lib/python3/dist-packages/ray/"
            "scripts/scripts.py\", line 900, in start\n    time.sleep(1)\nKeyboardInterrupt\n")
    (s,) = explain(head)
    assert "fail" not in levels(s) and "Ctrl-C" in messages(s)
    # 6. the arrow note is linear: 80 KB of blanks before an arrow
    import time
    t = time.monotonic()
    explain("x" + " " * 80000 + "<- note\n")
    assert time.monotonic() - t < 5
    # 8. a `-d` of the container's own command is not docker's
    from grader.judges.container import detached
    assert not detached(["docker", "run", "--rm", "-it", "img", "--model", "m", "-dp", "2"])
    assert detached(["docker", "run", "-dit", "--name", "x", "img"]) and detached(["docker", "run", "--detach=true", "i"])
    # 12. a GH200's FB memory N/A is not called expected (it has HBM of its own)
    (s,) = explain("$ nvidia-smi -q -d MEMORY\nGPU 00000009:01:00.0\n    Product Name      : NVIDIA GH200 480GB\n"
                   "    FB Memory Usage\n        Total    : N/A\n    BAR1 Memory Usage\n        Total    : N/A\n")
    assert "BAR1 memory N/A, as expected" in messages(s) and "FB memory N/A: this card or driver" in messages(s)


def test_nccl_tests_whose_header_lost_its_hash_marks():
    """nccl-tests#249 (s008): Markdown read `# nThread ...` as a heading, so the paste has the header without `#`."""
    text = ("$ mpirun -n 1 ./build/all_reduce_perf -b 8 -e 16M -f 2 -g 1\n"
            " nThread 1 nGpus 1 minBytes 8 maxBytes 16777216 step: 2(factor) warmup iters: 5 iters: 5 agg iters: 1 "
            "validation: 1 graph: 0\n\n Using devices\n  Rank  0 Group  0 Pid    127 on worker-0 device  0 [0x00] "
            "NVIDIA A10G\n\n       size         count      type   redop    root     time   algbw   busbw #wrong     "
            "time   algbw   busbw #wrong\n")
    (s,) = explain(text, host="other")
    assert s.kind == "nccl-tests" and s.error is None and "One rank" in messages(s)


def test_ibdev2netdev_v_with_a_padded_state_and_another_hosts_names():
    """nccl-tests#36 (s005): `ibdev2netdev -v` rows; a port state padded as `(DOWN  )`; with --host other, a CX-7 on
    PCI bus 1 of another machine is named enp1s0f0np0 too, and no Spark rule applies."""
    text = ("$ ibdev2netdev -v\n0000:03:00.0 mlx5_0 (MT4129 - MCX75310AAS-NEAT) ConnectX-7 fw 28.39.1002 port 1 "
            "(ACTIVE) ==> enp1s0f0np0 (Up)\n0000:03:00.1 mlx5_1 (MT4129 - MCX75310AAS-NEAT) ConnectX-7 fw 28.39.1002 "
            "port 1 (DOWN  ) ==> enp1s0f1np1 (Down)\n")
    (s,) = explain(text, host="other")
    assert s.error is None and levels(s) == ["info"] and "mlx5_1 port 1 DOWN ==> enp1s0f1np1 Down" in messages(s)
    (s,) = explain(text)  # not said: the netdev names are a Spark's, so its rules apply: mlx5_* is not a Spark's
    assert "check this is a DGX Spark" in messages(s, "warn") and "fail" not in levels(s)  # its P2 twins not pasted
