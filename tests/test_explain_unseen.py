"""Shapes and judgments the blind corpus batches found explain misreading (issue 27, classes g and h of
tests/fixtures/field/corpus): each on a short sample in the shape of the real output named beside it, with the
values worked out by hand."""

from __future__ import annotations

import pytest

from grader.explain import explain
from grader.parsers.common import ParseError
from grader.parsers.dmesg_link import parse_dmesg_links
from grader.parsers.free import parse_free
from grader.parsers.ibstat import parse_ibstat
from tests.conftest import levels, messages

GIB, MIB = 1024 ** 3, 1024 ** 2

# the PCI core's line at probe (drivers/pci/pci.c __pcie_print_link_status): a card at its best, and one limited
# by a slower link above it (the GX10's second function at x2 is the Spark-family case, procedure.md §2.2)
BEST = "[   10.643346] mlx5_core 0004:01:00.0: 63.008 Gb/s available PCIe bandwidth (8.0 GT/s PCIe x8 link)\n"
LIMITED = ("[    2.0] mlx5_core 0002:01:00.0: 63.014 Gb/s available PCIe bandwidth, limited by 32.0 GT/s PCIe x2 link "
           "at 0002:00:00.0 (capable of 126.028 Gb/s with 32.0 GT/s PCIe x4 link)\n")


def test_the_kernels_pcie_bandwidth_line_is_read():
    [b] = parse_dmesg_links(BEST).pcie
    assert (b.pci, b.gbps, b.gts, b.width, b.limited_at) == ("0004:01:00.0", 63.008, 8.0, 8, None)
    [b] = parse_dmesg_links(LIMITED).pcie
    assert (b.gts, b.width, b.limited_at, b.capable_gbps, b.capable) == (32.0, 2, "0002:00:00.0", 126.028, (32.0, 4))
    [s] = explain(BEST, host="other")
    assert s.kind == "dmesg-link" and levels(s) == ["info"] and "8 GT/s x8, 63.008 Gb/s" in messages(s)
    [s] = explain(LIMITED, host="other")
    assert levels(s) == ["warn"] and "limited by the 32 GT/s x2 link at 0002:00:00.0" in messages(s)
    [s] = explain(LIMITED, host="spark")  # a Spark-family box: the words the L1 check gives a twin's link
    assert levels(s) == ["warn"] and "trained at 32 GT/s x2, not the 32 GT/s x4" in messages(s)
    assert "about 50%" in messages(s) and "GX10" in messages(s)  # x2 of x4 lanes at one speed: half


def test_a_driver_failure_is_not_followed_by_a_request_for_link_lines():
    # g007's shape (a ConnectX-4 Lx whose probe fails with -22): the failure says why no link line follows
    text = ("$ dmesg | grep mlx5\n[   13.672173] mlx5_core 0000:03:00.0: handle_hca_cap failed\n"
            "[   14.059052] mlx5_core 0000:03:00.0: mlx5_load_one failed with error code -22\n"
            "[   14.059582] mlx5_core: probe of 0000:03:00.0 failed with error -22\n")
    [s] = explain(text, host="other")
    assert "fail" in levels(s) and "info" not in levels(s) and "cable" not in messages(s).lower()


IBSTATUS = """Infiniband device 'mlx5_0' port 1 status:
        default gid:     fe80:0000:0000:0000:0200:00ff:fe00:0001
        base lid:        0x0
        sm lid:          0x0
        state:           4: ACTIVE
        phys state:      5: LinkUp
        rate:            100 Gb/sec (4X EDR)
        link_layer:      Ethernet

Infiniband device 'mlx5_1' port 1 status:
        default gid:     fe80:0000:0000:0000:0200:00ff:fe00:0002
        state:           1: DOWN
        phys state:      3: Disabled
        bas"""


def test_ibstatus_is_read_as_ibstat_and_a_last_word_cut_off_is_the_cut():
    cas = parse_ibstat(IBSTATUS)
    assert [c.ca for c in cas] == ["mlx5_0", "mlx5_1"] and cas.truncated
    p0, p1 = cas[0].ports[0], cas[1].ports[0]
    assert (p0.state, p0.physical_state, p0.rate_gbps, p0.link_layer) == ("Active", "LinkUp", 100.0, "Ethernet")
    assert (p1.state, p1.physical_state) == ("Down", "Disabled")
    with pytest.raises(ParseError):  # a word of no key before the last line is not a cut
        parse_ibstat(IBSTATUS.replace("        base lid:", "        bas\n        base lid:", 1))
    [s] = explain("$ ibstatus\n" + IBSTATUS, host="other")
    assert s.kind == "ibstat" and "mlx5_0 port 1: Active/LinkUp at 100 Gb/s" in messages(s, "ok")
    assert "Spark" not in messages(s, "info").split("classic names")[0]  # no Spark words for another host's RoCE


NETPLAN = """$ cat /etc/netplan/50-cloud-init.yaml
network:
    ethernets:
        eno1:
            dhcp4: true
        enp94s0f0:
            addresses:
                - 10.5.0.12/24
            mtu: 9000
    version: 2
"""


def test_netplan_of_another_host_is_judged_as_that_host():
    [s] = explain(NETPLAN, host="other")
    assert levels(s) == ["info", "ok", "ok"] and "QSFP twin" not in messages(s)
    assert "both ends of the link must use 9000" in messages(s, "ok") and "`ip link show enp94s0f0`" in messages(s)
    twin = NETPLAN.replace("eno1", "enp1s0f1np1")  # DHCP on a Spark's twin: nothing hands out addresses there
    assert "warn" in levels(explain(twin)[0])


def test_a_refusal_on_the_way_to_an_internet_address_is_path_mtu_discovery():
    text = ("$ ping 1.1.1.1 -M do -s 1472\nPING 1.1.1.1 (1.1.1.1) 1472(1500) bytes of data.\n"
            "From 203.0.113.251 icmp_seq=1 Frag needed and DF set (mtu = 1440)\n"
            "--- 1.1.1.1 ping statistics ---\n1 packets transmitted, 0 received, +1 errors, 100% packet loss\n")
    [s] = explain(text, host="other")
    assert levels(s) == ["info"] and "`-s 1412`" in messages(s)  # 1440 - 28 bytes of IP and ICMP headers
    [s] = explain(text.replace("1.1.1.1", "192.168.100.11"), host="other")  # a private address: the cable's
    assert levels(s) == ["warn"]


SHOW_GIDS_TWO_NETDEVS = """DEV     PORT    INDEX   GID                                     IPv4            VER     DEV
---     ----    -----   ---                                     ------------    ---     ---
mlx5_bond_0     1       0       fe80:0000:0000:0000:0ac0:ebff:fe12:3456                 v1      bond1
mlx5_bond_0     1       1       fe80:0000:0000:0000:0ac0:ebff:fe12:3456                 v2      bond1
mlx5_bond_0     1       2       0000:0000:0000:0000:0000:ffff:cb00:71af 203.0.113.175   v1      b3.vxlan.30100
mlx5_bond_0     1       3       0000:0000:0000:0000:0000:ffff:cb00:71af 203.0.113.175   v2      b3.vxlan.30100
mlx5_bond_0     1       4       0000:0000:0000:0000:0000:ffff:cb00:71af 203.0.113.175   v1      bond1
mlx5_bond_0     1       5       0000:0000:0000:0000:0000:ffff:cb00:71af 203.0.113.175   v2      bond1
n_gids_found=6
"""


def test_one_address_on_two_netdevs_names_the_index_of_the_devices_own():
    # h006 (UCX #9484): index 3 is the VXLAN's; bond1, which holds the link-local GIDs 0-1, has its RoCE v2 at 5
    [s] = explain(SHOW_GIDS_TWO_NETDEVS, host="other")
    assert "NCCL_IB_GID_INDEX=5" in messages(s, "warn") and "index 3 on b3.vxlan.30100" in messages(s, "warn")
    assert "RoCE v2 GID index 5 carries 203.0.113.175 (bond1)" in messages(s, "ok")
    assert "use 3" not in messages(s)


def test_gpus_fewer_than_nodes_on_another_host_may_be_cpu_only_nodes():
    text = ("======== Autoscaler status: 2024-01-01 00:00:00 ========\nNode status\n----\nActive:\n"
            " 1 node_aaaaaaaaaaaaaaaa\n 3 node_bbbbbbbbbbbbbbbb\nPending:\n (no pending nodes)\nRecent failures:\n"
            " (no failures)\n\nResources\n----\nUsage:\n 0.0/64.0 CPU\n 0.0/1.0 GPU\n\nDemands:\n"
            " (no resource demands)\n")
    [s] = explain(text, host="other")
    assert "1 GPU(s) across 4 nodes" in messages(s, "info") and "warn" not in levels(s)
    assert "joined without its GPU" in messages(explain(text, host="spark")[0], "warn")


def test_old_free_gives_an_estimate_of_what_is_available():
    # g021 (procps before 3.3.10): free 3.6G + buffers 228M + cached 15G - shared 13G = 5.82 GiB; no swap
    text = ("$ free -h\n             total       used       free     shared    buffers     cached\n"
            "Mem:           30G        27G       3.6G        13G       228M        15G\n"
            "-/+ buffers/cache:        11G        19G\nSwap:           0B         0B         0B\n")
    f = parse_free(text)
    assert f.mem.estimated_available == pytest.approx(3.6 * GIB + 228 * MIB + 15 * GIB - 13 * GIB, abs=1)
    [s] = explain(text, host="other")
    assert "about 5.8 GiB at most is available" in messages(s) and "no swap" in messages(s)


MODULE = """$ ethtool -m enp3s0f0np0
\tIdentifier                                : 0x11 (QSFP28)
\tConnector                                 : 0x0c (MPO Parallel Optic)
\tTransceiver type                          : 100G Ethernet: 100G Base-SR4 or 25GBase-SR
\tEncoding                                  : 0x05 (64B/66B)
\tVendor name                               : FS
\tModule temperature                        : 57.09 degrees C / 134.76 degrees F
\tModule temperature high alarm             : Off
\tModule temperature high warning           : Off
\tLaser rx power low alarm                  : On
\tModule temperature high alarm threshold   : 80.00 degrees C / 176.00 degrees F
\tModule temperature high warning threshold : 70.00 degrees C / 158.00 degrees F
"""


def test_ethtool_m_is_a_modules_eeprom_judged_by_its_own_flags():
    # beszel #554 and lldpd #477's shapes (h007, h008): the module's keys are padded to 41 characters, as
    # nvidia-smi -q's are to its own column, and are read as ethtool's, not as nvidia-smi's
    [s] = explain(MODULE)
    assert s.kind == "ethtool-module" and levels(s) == ["info", "fail", "ok"]  # an alarm: past the alarm threshold
    assert "module QSFP28, 100G Ethernet: 100G Base-SR4 or 25GBase-SR, MPO Parallel Optic, FS" in messages(s, "info")
    assert "alarm flags On: Laser rx power low (alarm)" in messages(s, "fail")
    [w] = explain(MODULE.replace("Laser rx power low alarm     ", "Laser rx power low warning   "))  # a warning alone
    assert levels(w) == ["info", "warn", "ok"] and "warning flags On: Laser rx power low (warning)" in messages(w, "warn")
    assert "57.09 C, below its own thresholds (warning 70 C, alarm 80 C)" in messages(s, "ok")
    [s] = explain(MODULE.replace("On\n", "Off\n"))
    assert levels(s) == ["info", "ok", "ok"] and "all 3 alarm and warning flags shown are Off" in messages(s, "ok")
    [s] = explain(MODULE.split("\n", 1)[1])  # without its command line
    assert s.kind == "ethtool-module"


def test_a_fragment_of_nvidia_smi_q_is_one_gpus_sections():
    # gpustat #135 and kubeflow #68 (h022, h030): sections pasted without their `GPU 00000000:...` line
    text = ("    Clocks\n        Graphics                          : 2025 MHz\n"
            "        Memory                            : 10251 MHz\n    Max Clocks\n"
            "        Graphics                          : 2100 MHz\n        Memory                            : 10501 MHz\n")
    [s] = explain(text)
    assert s.kind == "nvidia-smi-q" and levels(s) == ["info", "info"] and "A fragment of `nvidia-smi -q`" in messages(s)
    assert "Graphics 2025 of 2100 MHz (96%), Memory 10251 of 10501 MHz (98%)" in messages(s)  # 0.964, 0.976


def test_an_infiniband_port_down_with_its_physical_link_up_is_unusable_and_names_its_subnet_manager():
    # network-operator #249 (h001): an SR-IOV VF, LinkUp, Down, Base lid 65535
    text = ("$ ibstat mlx5_7\nCA 'mlx5_7'\n\tCA type: MT4124\n\tPort 1:\n\t\tState: Down\n\t\tPhysical state: LinkUp\n"
            "\t\tRate: 200\n\t\tBase lid: 65535\n\t\tSM lid: 1\n\t\tLink layer: InfiniBand\n")
    [s] = explain(text, host="other")
    # cabled (LinkUp) yet Down: nothing can use it (fail); an SM is there (SM lid 1), so it is not "no SM"
    assert "a subnet manager is on the fabric (SM lid 1) but has not brought this port up" in messages(s, "fail")
    assert "no subnet manager" not in messages(s)
    [none] = explain(text.replace("SM lid: 1", "SM lid: 0"), host="other")
    assert "no subnet manager has brought the port up" in messages(none, "fail")
    # turned off (Disabled): no fault of the fabric; but no port of the output is Active, so none carries RDMA (w017)
    off = explain(text.replace("LinkUp", "Disabled"), host="other")[0]
    assert "fail" not in levels(off) and "no port in this output is Active" in messages(off, "warn")


def test_devices_ibv_devinfo_could_not_open_are_counted():
    # hustcat/k8s-rdma-device-plugin #8 (h003): a container given one VF of nine
    text = ("Failed to open device\nFailed to open device\nhca_id: mlx4_2\n\ttransport:\t\t\tInfiniBand (0)\n"
            "\tphys_port_cnt:\t\t\t1\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tlink_layer:\t\tInfiniBand\n\n"
            "Failed to open device\n")
    [s] = explain(text, host="other")
    assert s.kind == "ibv-devinfo" and "3 RDMA device(s) could not be opened" in messages(s, "warn")
    assert "NCCL_IB_HCA=mlx4_2" in messages(s, "warn")


def test_commands_pasted_without_a_prompt_that_only_a_person_types():
    # SGLang's copy of vllm bench serve (h012): the command line says 3000 were sent, 1648 succeeded
    text = ("python3 -m sglang.bench_serving --backend sglang --num-prompts 3000\n"
            "============ Serving Benchmark Result ============\nBackend:                                 sglang    \n"
            "Successful requests:                     1648      \nBenchmark duration (s):                  170.41    \n")
    [s] = explain(text)
    assert s.kind == "vllm-bench" and "1352 request(s) of the 3000 sent failed" in messages(s, "fail")  # 3000 - 1648
    # a program run from the working directory (cuda-samples #284, h019): the matrix above it ends there
    topo = ("\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tSYS\t0-7\t0\nGPU1\tSYS\t X \t16-23\t2\n\n"
            "./simpleP2P\n[./simpleP2P] - Starting...\n")
    sections = explain(topo)
    assert [x.kind for x in sections] == ["nvidia-smi-topo", "simple-p2p"] and sections[1].command == "./simpleP2P"


def test_a_piece_of_iperf3_json_is_an_interval_not_a_result():
    # perfsonar/pscheduler #928 (g023): one interval, starting inside its object; its sum holds the rate
    text = ('\t\t\t"end":\t4.000226,\n\t\t\t"seconds":\t0.999675989151001,\n\t\t\t"bits_per_second":\t3744629620.62,\n'
            '\t\t\t"retransmits":\t42,\n\t\t}],\n\t\t"sum":\t{\n\t\t\t"start":\t3.00055,\n\t\t\t"end":\t4.000226,\n'
            '\t\t\t"bits_per_second":\t3744629620.62,\n\t\t\t"retransmits":\t42,\n\t\t\t"sender":\ttrue\n\t\t}\n\t}, {\n')
    [s] = explain(text, host="other")
    assert s.kind == "iperf3" and levels(s) == ["info"]
    assert "1 interval(s) shown, 3.74 Gbit/s, 42 retransmits" in messages(s)  # the sum's, counted once


P2P_TEST = """$ ./p2pBandwidthLatencyTest
[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]
Device: 0, NVIDIA GeForce RTX 4090, pciBusID: 2, pciDeviceID: 0, pciDomainID:0
Device: 1, NVIDIA GeForce RTX 4090, pciBusID: 17, pciDeviceID: 0, pciDomainID:0
Device=0 CAN Access Peer Device=1
Device=1 CAN Access Peer Device=0
P2P Connectivity Matrix
     D\\D     0     1
     0       1     1
     1       1     1
Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)
   D\\D     0      1
     0 1008.06   6.34
     1   6.34 926.75
Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)
   D\\D     0      1
     0 1015.27   6.60
     1   6.60 945.63
"""


def test_p2p_bandwidth_that_gains_nothing_and_fits_a_narrow_link():
    # tinygrad/open-gpu-kernel-modules #44 (i017): two 4090s, P2P on at 6.60 GB/s against 6.34 through the host
    [s] = explain(P2P_TEST)
    assert s.kind == "p2p-bandwidth" and levels(s) == ["info", "info", "warn", "warn"]
    assert "less than 1.2x on GPU0-GPU1)" in messages(s, "warn")  # 6.60 / 6.34 = 1.04, one pair said once
    # Gen4 x16 = 31.51 GB/s x 0.75-0.86 = 23.6-27.1; Gen4 x4 = 7.88 x 0.75-0.86 = 5.9-6.8, which 6.60 fits
    assert "Gen4 x16 link carries (23.6-27.1 GB/s): it is what a Gen4 x4 or Gen3 x8 link carries" in messages(s)
    works = P2P_TEST.replace("   6.60 945.63", "  25.12 945.63").replace("1015.27   6.60", "1015.27  25.12")
    [s] = explain(works)
    assert "P2P copies beat the path through host memory: 25.12 GB/s one way with P2P, 6.34 GB/s through host memory." in messages(s, "ok")
    assert "warn" not in levels(s)  # 25.12 is within Gen4 x16's practical 23.6-27.1


QP_LINES = ("spark-b:24302:24310 [0] NCCL INFO NET/IB: NCCL Dev 1 IbDev 1 Port 1 qpn 719 mtu 3 GID 0 "
            "(80FE/F6E50BFEFF47BB4E) fifoRkey=0x1d7577 fifoLkey=0x1d7577\n"
            "spark-b:24302:24310 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 594 mtu 3 GID 3 "
            "(0/1064A8C0FFFF0000) fifoRkey=0x1b2d2a fifoLkey=0x1b2d2a\n")
TABLE = ("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
         "#wrong\n"
         "  4294967296    536870912     float    none      -1  1519112    2.83    2.83      0  1517123    2.83    2.84      0\n")


def test_an_rdma_log_beside_a_slow_table_rules_sockets_out():
    # KoyoImai/dgx_spark_cluster2 Step011 (j017, j018): a link-local GID for the twin without IPv4, and the table's
    # ~2.8 GB/s beside a log that shows NET/IB
    log, tests = explain(QP_LINES + "\n$ ./build/all_gather_perf -b 1G -e 4G -f 2 -g 1\n" + TABLE, host="spark")
    assert log.kind == "nccl-log" and "warn" not in levels(log)
    assert "GID index 0 is a link-local (fe80) GID" in messages(log, "info")
    assert "NCCL moved data with RDMA (NET/IB" in messages(log, "ok")
    assert messages(log, "ok").endswith("; this excerpt does not list its devices.")
    assert tests.kind == "nccl-tests" and "fell back to sockets" in messages(tests, "fail")
    assert "The NCCL log in this paste shows NET/IB (RDMA)" in messages(tests, "info")
    [alone] = explain("$ ./build/all_gather_perf -b 1G -e 4G -f 2 -g 1\n" + TABLE, host="spark")
    assert "The NCCL log in this paste" not in messages(alone)


def test_fec_none_on_a_spark_twin_means_no_200g_link():
    text = ("$ sudo ethtool --show-fec enp1s0f0np0\nFEC parameters for enp1s0f0np0:\n"
            "Supported/Configured FEC encodings: Auto\nActive FEC encoding: None\n")
    [s] = explain(text, host="spark")
    assert levels(s) == ["warn"] and "no FEC means this port is down (an unused" in messages(s) and "lower speed" in messages(s)
    [s] = explain(text.replace("enp1s0f0np0", "eth2"), host="other")
    assert levels(s) == ["info"]


def test_house_network_interfaces_in_one_subnet_and_a_spark_without_its_connectx7():
    # KoyoImai/dgx_spark_cluster (j019): the management port and Wi-Fi on one home network, no QSFP interface at all
    text = ("$ ip a\n2: enP7s7: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default qlen 1000\n"
            "    link/ether 4c:bb:47:0e:a1:b4 brd ff:ff:ff:ff:ff:ff\n    inet 192.168.111.42/24 brd 192.168.111.255 scope "
            "global dynamic noprefixroute enP7s7\n7: wlP9s9: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue "
            "state UP group default qlen 1000\n    link/ether 58:02:05:00:00:04 brd ff:ff:ff:ff:ff:ff\n"
            "    inet 192.168.111.133/24 brd 192.168.111.255 scope global dynamic noprefixroute wlP9s9\n")
    [s] = explain(text, host="spark")
    assert "fail" not in levels(s) and "twin" not in messages(s, "info").split("same subnet")[1].split(".")[0]
    assert "both on one house network" in messages(s, "info") and "the mlx5 driver made none" in messages(s, "warn")
    [s] = explain(text.replace("$ ip a\n", "$ ip a show enP7s7\n"), host="spark")  # one named: the rest not shown
    assert "the mlx5 driver made none" not in messages(s)


LLAMA_BENCH = """$ ./llama-bench -m qwen3-235b-q2_k.gguf -ngl 99 -p 128 -n 256 --rpc 192.168.100.11:50052
ggml_cuda_init: found 1 CUDA devices (Total VRAM: 122572 MiB):
  Device 0: NVIDIA GB10, compute capability 12.1, VMM: yes, VRAM: 122572 MiB
| model                          |       size |     params | backend    | ngl |            test |                  t/s |
| ------------------------------ | ---------: | ---------: | ---------- | --: | --------------: | -------------------: |
| qwen3moe 235B.A22B Q2_K - Medium |  79.80 GiB |   235.09 B | CUDA,RPC   |  99 |           pp128 |        110.26 ± 5.50 |
| qwen3moe 235B.A22B Q2_K - Medium |  79.80 GiB |   235.09 B | CUDA,RPC   |  99 |           tg256 |         16.50 ± 0.18 |
Client connection closed

build: 25eec6f32 (8672)
"""


def test_llama_bench_rates_and_its_rpc_split():
    # KoyoImai/dgx_spark_cluster (j007, j008): one Spark, then two over llama.cpp's RPC backend
    [s] = explain(LLAMA_BENCH, host="spark")
    assert s.kind == "llama-bench" and levels(s) == ["info", "info", "ok", "ok", "info", "ok"]  # (+ GB10's unified VRAM)
    assert "NVIDIA GB10 (compute capability 12.1, VRAM 122572 MiB)" in messages(s, "info")
    assert "tg256 16.5 ± 0.18 tok/s (decode" in messages(s, "ok") and "pp128 110.26 ± 5.5 tok/s" in messages(s, "ok")
    assert "Client connection closed` at the end is the RPC session ending" in messages(s, "info")
    [s] = explain(LLAMA_BENCH.replace("CUDA,RPC   |  99", "CPU        |   0"))
    assert "ngl 0, so no layer ran on the GPU" in messages(s, "warn") and "RPC" not in messages(s)


def test_show_gids_shortened_by_hand_with_notes():
    # MiaAI-Lab GLM-5.3 docs (j021): GIDs shortened, notes after the netdev, a second link-local pushing the IPv4 up
    text = ("rocep1s0f0 1 0 fe80::4ebb:47ff:fe0f:1a55  v1  enp1s0f0np0    <- MAC-derived link-local\n"
            "rocep1s0f0 1 1 fe80::4ebb:47ff:fe0f:1a55  v2  enp1s0f0np0\n"
            "rocep1s0f0 1 2 fe80::d4d1:b2a1:94ce:6b30  v1  enp1s0f0np0    <- NetworkManager stable-privacy\n"
            "rocep1s0f0 1 4 fe80::d4d1:b2a1:94ce:6b30  v2  enp1s0f0np0       link-local (extra pair!)\n"
            "rocep1s0f0 1 5 ::ffff:10.0.0.2            v1  enp1s0f0np0    <- IPv4 pushed to 5/6\n"
            "rocep1s0f0 1 6 ::ffff:10.0.0.2            v2  enp1s0f0np0\n")
    [s] = explain(text, host="spark")
    assert s.kind == "show-gids" and "RoCE v2 GID index 6 carries 10.0.0.2 (enp1s0f0np0)" in messages(s, "warn")
    assert "Below it are 4 link-local" in messages(s, "warn")  # indices 0, 1, 2, 4
    [s] = explain(text, host="other")  # elsewhere no playbook pins the usual index: said, not warned
    assert "warn" not in levels(s) and "Below it are 4 link-local" in messages(s, "ok")


def test_a_demand_wrapped_by_the_terminal_is_one_demand():
    # STRICT_PACK asks two GPUs of a one-GPU cluster, its line wrapped before its last words (a KubeRay deployment)
    text = ("Usage:\n 2.0/3.0 CPU\n 0.0/1.0 GPU\nDemands:\n {'CPU': 1.0, 'GPU': 1.0} * 1, {'GPU': 1.0} * 1 (STRICT_PACK): "
            "1+ pending\n placement groups\n")
    [s] = explain(text, host="other")
    assert s.kind == "ray-status" and "The cluster has only 1 GPU(s)" in messages(s, "fail")  # 2 asked of 1


SHOW_GIDS_SPARK = """DEV     PORT    INDEX   GID                                     IPv4            VER     DEV
rocep1s0f0      1       2       0000:0000:0000:0000:0000:ffff:c0a8:640a 192.168.100.10          v1      enp1s0f0np0
rocep1s0f0      1       3       0000:0000:0000:0000:0000:ffff:c0a8:640a 192.168.100.10          v2      enp1s0f0np0
rocep1s0f1      1       1       fe80:0000:0000:0000:4ebb:47ff:fe0a:c3d9                 v2      enp1s0f1np1
roceP2p1s0f0    1       1       fe80:0000:0000:0000:4ebb:47ff:fe0a:c3da                 v2      enP2p1s0f0np0
n_gids_found=4
"""


def test_show_gids_shows_no_port_state():
    # two GB10s back to back: the uncabled port's halves have no IPv4; show_gids cannot say they are ACTIVE
    [s] = explain(SHOW_GIDS_SPARK, host="spark")
    assert "is ACTIVE" not in messages(s) and "fail" not in levels(s)
    assert "rocep1s0f1 has only link-local (fe80) RoCE v2 GIDs" in messages(s, "info")
    # the other half of the cabled port without its address: the course's setup gives both halves one
    assert "roceP2p1s0f0 has only link-local" in messages(s, "warn") and "its twin enp1s0f0np0" in messages(s, "warn")
    [s] = explain("\n".join(x for x in SHOW_GIDS_SPARK.splitlines() if "c0a8" not in x) + "\n", host="spark")
    assert "fail" in levels(s)  # no device has an IPv4 GID: RoCE v2 cannot reach the other Spark at all


def test_nccl_24s_ring_lines_say_the_transport():
    # NVIDIA/nccl #398 (i030): two AWS hosts, rings inside each over P2P/IPC, between them over NET/Socket
    text = ("ip-172-31-0-112:8162:8221 [3] NCCL INFO Ring 00 : 3[3] -> 2[2] via P2P/IPC\n"
            "ip-172-31-13-129:8544:8601 [7] NCCL INFO Ring 00 : 15 -> 0 [send] via NET/Socket/0\n"
            "ip-172-31-0-112:8166:8224 [7] NCCL INFO Ring 00 : 7 -> 8 [send] via NET/Socket/0\n")
    [s] = explain(text, host="other", nodes=2)
    assert s.kind == "nccl-log" and "NET/Socket+P2P" in messages(s, "warn") and "TCP" in messages(s, "warn")


def test_rank_tags_glued_inside_nccl_tests_rows_and_a_collapse():
    # NVIDIA/nccl #1453 (i014): MPICH's -prepend-rank tags each part nccl-tests writes; busbw falls 5.6x at 64 MB
    rows = [(16777216, 24.09), (33554432, 29.50), (67108864, 5.27), (134217728, 5.22)]
    text = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   " \
           "busbw #wrong\n" + "".join(
               f"[0] {n:12d} {n // 4:12d}     float     sum      -1[0]    1000.0    1.00  {b:6.2f}      0[0]    "
               f"1000.0    1.00  {b:6.2f}      0\n" for n, b in rows)
    [s] = explain(text, host="other")
    assert s.kind == "nccl-tests" and s.facts["rows"][-1]["out_of_place"]["busbw_gbs"] == 5.22  # the tags read away
    assert "busbw falls from 29.5 / 29.5 GB/s at 33,554,432 B to 5.22 / 5.22 GB/s at 134,217,728 B" in messages(s, "warn")


def test_what_a_review_broke_stays_mended():
    # AER: corrected errors alone are no fault; an uncorrectable error the kernel recovered from is a warning
    corrected = ("$ sudo dmesg | grep -i aer\n[  1.0] pcieport 0000:00:1c.0: AER: Corrected error received: 0000:00:1c.0\n"
                 "[  1.0] pcieport 0000:00:1c.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)\n"
                 "[  1.0] pcieport 0000:00:1c.0:    [ 0] RxErr                  (First)\n")
    assert "fail" not in [lv for s in explain(corrected) for lv in levels(s)]
    recovered = ("[ 812.2] pcieport 0000:00:01.1: AER: Uncorrected (Non-Fatal) error received: 0000:01:00.0\n"
                 "[ 812.2] nvidia 0000:01:00.0:    [14] CmpltTO                (First)\n"
                 "[ 812.3] pcieport 0000:00:01.1: AER: device recovery successful\n")
    assert [lv for s in explain(recovered) for lv in levels(s)] == ["warn"]
    # a container's memory limit, not the machine's
    [s] = explain("[ 99.1] Memory cgroup out of memory: Killed process 4242 (python3) total-vm:9000000kB\n")
    assert "inside a memory cgroup" in messages(s, "fail") and "python3 (pid 4242) was killed" in messages(s, "fail")
    # ethtool -m: a module above its own alarm threshold, and a passive DAC that reports nothing
    hot = MODULE.replace("57.09 degrees C / 134.76", "86.20 degrees C / 187.16").replace("(Chan", "")
    assert "at or above its own alarm threshold" in messages(explain(hot)[0], "fail")
    dac = ("$ ethtool -m enp1s0f0np0\n\tIdentifier                                : 0x11 (QSFP28)\n"
           "\tModule temperature                        : 0.00 degrees C / 32.00 degrees F\n"
           "\tModule temperature high alarm threshold   : 0.00 degrees C / 32.00 degrees F\n")
    assert "a passive copper cable (DAC) has no monitoring" in messages(explain(dac)[0], "info")
    lane = MODULE.replace("\tLaser rx power low alarm                  : On\n",
                          "\tRcvr signal avg optical power low alarm    (Chan 1) : On\n")
    assert "Rcvr signal avg optical power low (alarm, lane 1)" in messages(explain(lane)[0], "fail")  # (session 42:
    # an alarm flag fails, the flags grouped by reading with their lanes)
    # a container bridge over a LAN's subnet is no house-network pair
    ip = ("$ ip a\n2: eno1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 state UP\n    inet 172.17.5.20/16 scope global eno1\n"
          "3: docker0: <NO-CARRIER,BROADCAST,MULTICAST,UP> mtu 1500 state DOWN\n    inet 172.17.0.1/16 scope global docker0\n")
    assert "eno1 (172.17.5.20/16) and docker0 (172.17.0.1/16) are in the same subnet" in messages(explain(ip)[0], "warn")
    # an output line's apostrophe does not close a shortened quote: the answer below stays an answer
    text = ("$ curl -s localhost:8000/v1/completions -H \"Content-Type: application/json\" \\\n"
            "    -d '{\"model\": \"m\", \"prompt\": \"Say hi\", ...\n"
            '{"id":"cmpl-1","object":"text_completion","model":"m","choices":[{"index":0,"text":" Hi! I\'m here.",'
            '"finish_reason":"stop"}]}\n')
    [s] = explain(text)
    assert s.kind == "vllm-completion" and s.command.endswith("\"Say hi\", ...") and "Hi! I'm here." in messages(s, "ok")
    # a streamed answer, an error given as a string, choices that are no list
    stream = ('data: {"object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"Hel"}}]}\n'
              'data: {"object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"lo"},'
              '"finish_reason":"stop"}]}\ndata: [DONE]\n')
    assert "`Hello`" in messages(explain("$ curl -N localhost:8000/v1/chat/completions -d @r.json\n" + stream)[0], "ok")
    said = explain('$ curl localhost:8000/v1/chat/completions -d @r.json\n{"error": "model not found"}\n')[0]
    assert "model not found" in messages(said, "fail")
    assert not explain('{"object":"chat.completion","choices":5}\n')[0].error


def test_gpudirect_rdma_disabled_is_said_per_host_and_a_forums_typography_is_undone():
    """The field corpus's m016 (forum 352051, two DGX Sparks): NCCL lines pasted as a bulleted list with typographic
    quotes, `GPU Direct RDMA Disabled for HCA 0 'rocep1s0f0'`: expected on a Spark (info), a cost elsewhere (warn)."""
    text = ("  \u2022 NET/IB : Made virtual device [4] name=rocep1s0f0+rocep1s0f1 speed=400000 ndevs=2\n\n"
            "NET/IB : GPU Direct RDMA Disabled for HCA 0 \u2018rocep1s0f0\u2019\n"
            "NET/IB : GPU Direct RDMA Disabled for HCA 1 \u2018rocep1s0f1\u2019\n")
    [spark] = explain(text, host="spark")
    assert spark.kind == "nccl-log" and spark.facts["gdr_off_hcas"] == ["rocep1s0f0", "rocep1s0f1"]
    assert "GPU Direct RDMA is disabled for rocep1s0f0, rocep1s0f1" in messages(spark, "info")
    assert "not graded" in messages(spark, "info") and "rocep1s0f0+rocep1s0f1" in messages(spark, "info")
    [other] = explain(text.replace("rocep1s0f", "mlx5_"), host="other")
    assert "DMA-BUF" in messages(other, "warn")
    [unknown] = explain(text.replace("rocep1s0f", "mlx5_"))  # no host said: the warning stays (helper-25's review)
    assert "DMA-BUF" in messages(unknown, "warn") and "On a DGX Spark that is expected" in messages(unknown, "warn")


def test_clean_lines_undoes_a_forums_bullets_and_quotes_only():
    from grader.parsers.common import clean_lines
    assert clean_lines("  \u2022 NET/IB : x \u2018a\u2019 \u201cb\u201d\nkeep \u2022 inside\n") == \
        ["NET/IB : x 'a' \"b\"", "keep \u2022 inside"]


def test_a_ray_status_shortened_to_totals_is_read():
    """dgx-spark-playbooks#75 (the corpus's i007): `Active: 2 nodes` and `Resources: 2.0 GPU`, a status cut by hand."""
    [s] = explain("Active:\n 2 nodes\n\nResources:\n 2.0 GPU\n", host="spark")
    assert s.kind == "ray-status" and s.facts["totals"] == {"GPU": 2.0}
    assert "Totals only, without their use (a status shortened by hand): 2 GPU." in messages(s, "info")
    assert "not part of it" not in messages(s) and not {"warn", "fail"} & set(levels(s))


def test_show_gids_of_two_nodes_with_different_indexes_warn_that_one_index_fits_neither():
    """multus-cni#1100 (the corpus's n006): two pods' tables, the RoCE v2 IPv4 GID at 5 in one and 7 in the other;
    the poster's sentence ends on the netdev (`net1.`)."""
    row = "mlx5_4\t1\t{i}\t0000:0000:0000:0000:0000:ffff:ac14:010{n}\t172.20.1.{n}  \t{v}\tnet1{dot}\n"
    table = "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n"
    one = table + row.format(i=4, n=1, v="v1", dot="") + row.format(i=5, n=1, v="v2", dot="")
    two = table + row.format(i=6, n=2, v="v1", dot="") + row.format(i=7, n=2, v="v2", dot=".")
    first, second = explain(one + "but the other:\n" + two, host="other")
    assert "(net1)." in messages(second, "ok")  # not `net1.`
    assert "different indexes (the first: 5; the second: 7)" in messages(second, "warn")
    assert "different indexes" not in messages(explain(one + "but the other:\n" + one.replace("\t4\t", "\t8\t"))[-1])


def test_what_the_second_review_found_stays_mended():
    """helper-27's review: one host's show_gids before and after re-addressing, or two devices of one host, are no
    two nodes; an echoed "ray start" is no Ray start; pending nodes are counted as Ray groups them, and launches that
    failed are said."""
    def gids(dev: str, index: int, ip: str) -> str:
        return (f"DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4\t\tVER\tDEV\n{dev}\t1\t{index}\t0000:0000:0000:0000:0000:ffff:"
                f"c0a8:640a\t{ip}\tv2\tenp1s0f1np1\nn_gids_found=1\n")
    same = (f"nvidia@spark-1:~$ show_gids\n{gids('rocep1s0f1', 3, '192.168.100.10')}"
            "nvidia@spark-1:~$ sudo ip addr add 192.168.100.20/24 dev enp1s0f1np1\n"
            f"nvidia@spark-1:~$ show_gids\n{gids('rocep1s0f1', 5, '192.168.100.20')}")
    assert "different indexes" not in " ".join(messages(s) for s in explain(same, host="spark"))
    two = (f"nvidia@spark-1:~$ show_gids rocep1s0f1\n{gids('rocep1s0f1', 3, '192.168.100.10')}"
           f"nvidia@spark-1:~$ show_gids roceP2p1s0f1\n{gids('roceP2p1s0f1', 5, '192.168.101.10')}")
    assert "different indexes" not in " ".join(messages(s) for s in explain(two, host="spark"))
    nodes = two.replace("spark-1:~$ show_gids roceP2p1s0f1", "spark-2:~$ show_gids rocep1s0f1").replace(
        "roceP2p1s0f1\t1", "rocep1s0f1\t1")
    assert "(spark-1: 3; spark-2: 5)" in " ".join(messages(s, "warn") for s in explain(nodes, host="spark"))
    from grader.parsers.common.commands import ray_lifecycle
    assert ray_lifecycle("docker exec -it node ray start --head") and not ray_lifecycle('echo "now run ray start"')
    status = ("======== Autoscaler status: 2026-11-29 17:00:00 ========\nNode status\n------\nActive:\n 1 ray.head.default\n"
              "Pending:\n ray.worker.gpu, 3 launching\nRecent failures:\n (no failures)\n")
    assert "and 3 more pending (launching)" in messages(explain(status, host="other")[0], "warn")


def test_connectx_firmware_at_probe_is_said_once_when_alike_and_warned_when_it_differs():
    """A GX10 pair's boot logs (corpus u007: journal-prefixed `mlx5_core ...: firmware version: 28.45.4028`, four
    functions on each of two hosts, under Markdown headings): one release everywhere; one function behind warns."""
    line = "Aug 04 20:32:56 spark-a kernel: mlx5_core {pci}: firmware version: {v}\n"
    alike = "## Node A\n" + "".join(line.format(pci=p, v="28.45.4028") for p in
                                    ("0000:01:00.0", "0000:01:00.1", "0002:01:00.0", "0002:01:00.1"))
    d = parse_dmesg_links(alike)
    assert [v for _, v in d.firmware] == ["28.45.4028"] * 4 and d.events == ()
    (s,) = explain(alike)
    assert s.kind == "dmesg-link" and levels(s) == ["info"] and "firmware 28.45.4028 on every function" in messages(s)
    (s,) = explain(alike.replace("0002:01:00.1: firmware version: 28.45.4028", "0002:01:00.1: firmware version: "
                                 "28.44.1036"))
    assert "28.44.1036 on 0002:01:00.1" in messages(s, "warn")
