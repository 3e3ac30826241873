"""Session 38, fixer G (issue 27): a break-it review's findings on this session's new rules (probes of
/tmp/breakit16, quoted here). Each fix on the probe's text, and the case the rule was built for still read as before."""

from __future__ import annotations

from grader.explain import explain
from tests.conftest import field_entry as _paste, levels, messages


def _all(sections) -> tuple[set[str], str]:
    return {lv for s in sections for lv in levels(s)}, "\n".join(messages(s) for s in sections)


# --------------------------------------------------------------------------- ping: local error, mtu=N

_PMTU_PING = ("$ ping -M do -s 8972 -c 3 10.20.0.5\nPING 10.20.0.5 (10.20.0.5) 8972(9000) bytes of data.\n"
              + "ping: local error: message too long, mtu=1500\n" * 3
              + "\n--- 10.20.0.5 ping statistics ---\n3 packets transmitted, 0 received, +3 errors, 100% packet loss, "
              "time 2043ms\n")


def _link(mtu: int) -> str:
    return (f"$ ip link show enp1s0f0np0 | head -1\n4: enp1s0f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu {mtu} qdisc "
            "mq state UP mode DEFAULT group default qlen 1000\n")


def test_a_local_refusal_below_the_interface_shown_is_the_route_or_a_cached_path_mtu():
    """https://man7.org/linux/man-pages/man8/ip-route.8.html (`ip route get` shows a route's `mtu` and a cached path
    MTU; `ip route flush cache`): `ping: local error: message too long, mtu=1500` while the same paste's `ip link`
    shows the interface at MTU 9000: the 1500 is the route's or a cached path MTU, never `the interface's MTU (1500)`."""
    for host in ("spark", "other"):
        got, said = _all(explain(_link(9000) + _PMTU_PING, host=host, nodes=2))
        assert "fail" in got
        assert "interface shown (enp1s0f0np0 MTU 9000) is larger" in said and "route's MTU or a path MTU" in said
        assert "`ip route get 10.20.0.5`" in said and "ip route flush cache" in said
        assert "interface MTU (1500)" not in said and "own interface MTU" not in said


def test_a_local_refusal_at_the_interface_shown_still_names_the_interface():
    """https://github.com/MicrosoftDocs/azure-docs (articles/virtual-network/how-to-virtual-machine-mtu.md): the same
    refusal where `ip link` shows the interface at 1500: the interface's MTU, as the rule was built to say; and with no
    interface shown (the doc's own paste, corpus zn007) a hedge: the interface's or the route's cached path MTU."""
    got, said = _all(explain(_link(1500) + _PMTU_PING, host="other", nodes=2))
    assert "fail" in got and "This host's own interface MTU (1500) is too small for 9000-byte packets" in said
    got, said = _all(explain(_link(1500) + _PMTU_PING, host="spark", nodes=2))
    assert "fail" in got and "This Spark's outgoing interface MTU (1500)" in said
    got, said = _all(explain(_paste("zn007"), host="other", nodes=2))
    assert "fail" in got and "the outgoing interface's own or a path MTU" in said and "interface shown" not in said


def test_another_hosts_interfaces_do_not_decide_the_pings():
    """https://man7.org/linux/man-pages/man8/ip-link.8.html: the peer's `ip link` (spark2, MTU 9000) beside spark1's
    refused ping: spark1's interface is not shown, so the hedge, not `the interface shown is larger`."""
    paste = ("spark2:~$ ip link show enp1s0f0np0 | head -1\n" + _link(9000).split("\n", 1)[1]
             + "spark1:~$ " + _PMTU_PING[2:])
    got, said = _all(explain(paste, host="spark", nodes=2))
    assert "fail" in got and "interface shown" not in said and "the outgoing interface's own or a path MTU" in said


def test_the_interface_on_the_route_decides_among_several_shown():
    """https://man7.org/linux/man-pages/man8/ip-address.8.html: with eno1 at 1500 and the twin at 9000 shown, the
    refusal is not decided (the hedge) until `ip addr` shows which subnet holds the peer: the twin's (9000: the route's
    or a cached path MTU) or eno1's (1500: its interface)."""
    both = ("$ ip link\n2: eno1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP mode DEFAULT group "
            "default qlen 1000\n" + _link(9000).split("\n", 1)[1])
    got, said = _all(explain(both + _PMTU_PING, host="other", nodes=2))
    assert "fail" in got and "the outgoing interface's own or a path MTU" in said and "interface shown" not in said
    addr = ("$ ip addr\n2: eno1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default qlen 1000\n"
            "    inet 192.168.1.20/24 brd 192.168.1.255 scope global eno1\n"
            "4: enp1s0f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP group default qlen 1000\n"
            "    inet 10.20.0.4/24 brd 10.20.0.255 scope global enp1s0f0np0\n")
    got, said = _all(explain(addr + _PMTU_PING, host="other", nodes=2))
    assert "interface shown (enp1s0f0np0 MTU 9000) is larger" in said
    got, said = _all(explain(addr.replace("10.20.0.4/24", "10.30.0.4/24").replace("192.168.1.20", "10.20.0.4")
                             + _PMTU_PING, host="other", nodes=2))
    assert "This host's own interface MTU (1500)" in said


# --------------------------------------------------------------------------- ping of this host's own address

_OWN = ("spark1:~$ ip -br addr show enp1s0f0np0\nenp1s0f0np0      DOWN           192.168.100.10/24\n"
        "spark1:~$ ping -c 4 192.168.100.10\nPING 192.168.100.10 (192.168.100.10) 56(84) bytes of data.\n"
        + "".join(f"64 bytes from 192.168.100.10: icmp_seq={i} ttl=64 time=0.0{i}1 ms\n" for i in range(1, 5))
        + "\n--- 192.168.100.10 ping statistics ---\n4 packets transmitted, 4 received, 0% packet loss, time 3061ms\n"
        "rtt min/avg/max/mdev = 0.011/0.026/0.041/0.011 ms\n")


def test_a_ping_of_this_hosts_own_address_proves_nothing_about_the_link():
    """https://www.kernel.org/doc/Documentation/networking/ip-sysctl.txt (a packet to one of this host's own addresses
    is delivered locally, through lo): pinging the address `ip -br addr` shows on this host's DOWN interface answers
    in 0.02 ms: an info that the kernel answered, never `reachable over IP`."""
    got, said = _all(explain(_OWN, host="spark", nodes=2))
    assert "192.168.100.10 is one of this host's own addresses (enp1s0f0np0's, which is DOWN)" in said
    assert "prove nothing about a link or its cable" in said and "reachable over IP" not in said
    loop = _OWN.split("spark1:~$ ping")[1].replace("192.168.100.10", "127.0.0.1")
    got, said = _all(explain("$ ping" + loop, host="other", nodes=1))
    assert got == {"info"} and "this host's loopback address" in said


def test_a_ping_of_the_peer_is_still_reachable_over_ip():
    """https://github.com/NVIDIA/dgx-spark-playbooks (connect-two-sparks: ping the peer's address): the same paste
    pinging the peer's address (192.168.100.11, not this host's) stays the `reachable over IP` ok; and the peer's
    address shown by another host's `ip addr` does not make it this host's own."""
    paste = _OWN.replace("ping -c 4 192.168.100.10", "ping -c 4 192.168.100.11").replace(
        "from 192.168.100.10", "from 192.168.100.11").replace("PING 192.168.100.10 (192.168.100.10)",
                                                            "PING 192.168.100.11 (192.168.100.11)")
    got, said = _all(explain(paste, host="spark", nodes=2))
    assert "192.168.100.11 answers (4 of 4" in said and "own addresses" not in said
    other = _OWN.replace("spark1:~$ ip -br", "spark2:~$ ip -br", 1)
    got, said = _all(explain(other, host="spark", nodes=2))
    assert "own addresses" not in said and "reachable over IP" in said


# --------------------------------------------------------------------------- lspci: a server board's BMC display

_ASPEED = ("$ sudo lspci -vv | grep -E 'VGA|3D|LnkCap:|LnkSta:'\n"
           "03:00.0 VGA compatible controller: ASPEED Technology, Inc. ASPEED Graphics Family (rev 52) (prog-if 00 "
           "[VGA controller])\n\t\tLnkCap:\tPort #0, Speed 5GT/s, Width x1, ASPM L0s L1, Exit Latency L0s <512ns, L1 "
           "<32us\n\t\tLnkSta:\tSpeed 5GT/s, Width x1\n")
_RTX = ("4f:00.0 VGA compatible controller: NVIDIA Corporation AD102 [GeForce RTX 4090] (rev a1) (prog-if 00 [VGA "
        "controller])\n\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM L1, Exit Latency L1 <4us\n"
        "\t\tLnkSta:\tSpeed 16GT/s, Width x16\n")


def test_a_bmc_display_at_its_own_x1_is_no_gpu_at_x4():
    """https://pci-ids.ucw.cz/read/PC/1a03/2000 (ASPEED Graphics Family, a server board's BMC VGA): at its full x1
    (LnkSta = LnkCap) beside two RTX 4090 at Gen4 x16: an info that it is the console's display, never the `GPU at x4`
    fail; the GPUs keep their healthy ok."""
    got, said = _all(explain(_ASPEED + _RTX + _RTX.replace("4f:00.0", "d5:00.0"), host="other", nodes=1))
    assert got == {"ok", "info"}
    assert "ASPEED Graphics Family (rev 52) (prog-if 00 [VGA controller]): a server board's onboard (BMC)" in said
    assert "GPU at x4" not in said and "4f:00.0 GeForce RTX 4090: LnkSta Gen4 x16 matches LnkCap Gen4 x16" in said
    matrox = _ASPEED.replace("ASPEED Technology, Inc. ASPEED Graphics Family (rev 52)",
                             "Matrox Electronics Systems Ltd. Integrated Matrox G200eW3 Graphics Controller (rev 04)")
    got, said = _all(explain(matrox, host="other", nodes=1))
    assert got == {"info"} and "onboard (BMC)" in said


def test_a_gpu_at_x4_still_fails():
    """https://github.com/noonghunna/club-3090/issues/158 (a GPU on four lanes): an NVIDIA GPU whose LnkSta is x4 (its
    LnkCap not pasted) keeps the `GPU at x4` fail: the BMC rule is for display controllers that compute nothing."""
    x4 = _RTX.split("\t\tLnkCap")[0] + "\t\tLnkSta:\tSpeed 16GT/s, Width x4\n"
    got, said = _all(explain("$ sudo lspci -vv | grep -E 'VGA|LnkSta:'\n" + x4, host="other", nodes=1))
    assert "fail" in got and "a GPU at x4 (often behind the chipset) drags every collective" in said
    assert "onboard" not in said


# --------------------------------------------------------------------------- nccl-tests: PCIe 3.0 cards

_HEAD = ("# nThread 1 nGpus 4 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
         "validation: 1 graph: 0\n#\n# Using devices\n"
         + "".join(f"#  Rank  {i} Group  0 Pid  21455 on    gpu-srv device  {i} [0x{b}] Tesla V100-PCIE-32GB\n"
                   for i, b in enumerate(("3b", "5e", "86", "af")))
         + "#\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
         "busbw #wrong\n")


def _v100(busbw: tuple[float, ...], card: str = "Tesla V100-PCIE-32GB") -> str:
    rows = "".join(f"{s:>12} {s // 4:>13}     float     sum      -1    100.0 {bw / 1.5:7.2f} {bw:7.2f}      0    "
                   f"100.0 {bw / 1.5:7.2f} {bw:7.2f}      0\n" for s, bw in zip((2**23 << k for k in range(7)), busbw))
    return "$ ./build/all_reduce_perf -b 8 -e 1G -f 2 -g 4\n" + _HEAD.replace("Tesla V100-PCIE-32GB", card) + rows


def test_pcie3_cards_at_their_links_figure_are_the_links_ceiling():
    """NVIDIA's Tesla V100 PCIe product brief (images.nvidia.com/content/tesla/pdf/Tesla-V100-PCIe-Product-Brief.pdf:
    PCIe Gen3 x16): four V100-PCIE flat at ~11.5 GB/s busbw from 8 MiB (the break-it probe's rows): a Gen3 x16 link
    in practice, an info, not the `below a PCIe 4.0 link` warning; the T4 (a Gen3 card too) alike."""
    for card in ("Tesla V100-PCIE-32GB", "Tesla T4"):
        got, said = _all(explain(_v100((10.94, 11.24, 11.39, 11.46, 11.48, 11.50, 11.51), card), host="other", nodes=1))
        assert "warn" not in got and "fail" not in got
        assert f"{card} is a PCIe 3.0 card" in said and "this is the link's ceiling" in said and "PCIe 4.0" not in said


def test_pcie3_cards_well_below_their_link_still_warn_and_gen4_cards_keep_the_gen4_bar():
    """The same V100-PCIE table at half the figure (~5.8 GB/s) warns against Gen3's own figure; an SXM2 V100 (NVLink,
    no row) and the RTX 4090 ring of tinygrad/open-gpu-kernel-modules#22 (corpus zj004) keep the PCIe 4.0 warning."""
    got, said = _all(explain(_v100((5.5, 5.6, 5.7, 5.7, 5.75, 5.75, 5.75)), host="other", nodes=1))
    assert "warn" in got and "is a PCIe 3.0 card" in said and "below that, something holds it" in said
    got, said = _all(explain(_v100((10.94, 11.24, 11.39, 11.46, 11.48, 11.50, 11.51), "Tesla V100-SXM2-32GB"),
                             host="other", nodes=1))
    assert "warn" in got and "below what one PCIe 4.0 x16 link carries" in said
    got, said = _all(explain(_paste("zj004"), host="other", nodes=1))
    assert "warn" in got and "flattens at about 12.8 GB/s" in said and "PCIe 3.0 card" not in said


# --------------------------------------------------------------------------- libibverbs: no providers, a socket run

_SOCKET_RUN = ("$ torchrun --nnodes 2 --node-rank 0 --nproc-per-node 1 --master-addr 10.0.0.1 --master-port 29500 "
               "train.py\n" + "libibverbs: Warning: couldn't open config directory '/etc/libibverbs.d'.\n" * 2
               + "node0:2231:2231 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\nNCCL version 2.20.5+cuda12.4\n"
               "node0:2231:2260 [0] NCCL INFO Failed to open libibverbs.so[.1]\n"
               "node0:2231:2260 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
               "node0:2231:2260 [0] NCCL INFO Using network Socket\n"
               "node0:2231:2260 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n"
               "node0:2231:2260 [0] NCCL INFO comm 0x55d4c8a0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId "
               "0x8a3f1c2d4e5b6a79 - Init COMPLETE\n")


def test_the_provider_warning_of_a_socket_run_with_no_rdma_nic_shown_is_noise():
    """https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html (NCCL uses IB verbs where it finds a device,
    else its socket transport): a two-node torchrun over eth0 that set NCCL up (Init COMPLETE) over NET/Socket, nothing
    of an RDMA NIC in the paste: the libibverbs provider warning is an info beside the transport finding, not a fail."""
    for host in (None, "other"):
        sections = explain(_SOCKET_RUN, host=host, nodes=2)
        known = next(s for s in sections if s.kind == "known-error")
        assert set(levels(known)) == {"info"} and "on machines without one the warning is noise" in messages(known)
        assert any(s.kind == "nccl-log" and "TCP" in messages(s) for s in sections)  # the transport finding


def test_the_provider_warning_stays_a_fault_where_rdma_is_meant():
    """https://github.com/dsx-ai-factory/infra-controller/pull/5251 (no providers, then `No IB devices found` from
    ibv_devinfo, corpus zy008) and the same socket run on a DGX Spark (its ConnectX-7 is meant to carry NCCL) or with
    an HCA named in the paste: the provider warning stays the fail."""
    got, said = _all(explain(_paste("zy008"), host="other", nodes=2))
    assert "fail" in got and "no vendor's user-space driver" in said
    for host, text in (("spark", _SOCKET_RUN), ("other", _SOCKET_RUN + "node0:2231:2260 [0] NCCL INFO NCCL_IB_HCA set "
                                                "to mlx5_0\n")):
        known = next(s for s in explain(text, host=host, nodes=2) if s.kind == "known-error")
        assert "fail" in levels(known) and "noise" not in messages(known)


# --------------------------------------------------------------------------- InfiniBand PortInfo

_PORTINFO = ("$ ibportstate 12 2 query\nCA/RT PortInfo:\n# Port info: Lid 12 port 2\n"
             "LinkState:.......................Active\nPhysLinkState:...................LinkUp\n"
             "LinkWidthSupported:..............1X or 4X\nLinkWidthEnabled:................4X\n"
             "LinkWidthActive:.................4X\n"
             "LinkSpeedSupported:..............2.5 Gbps or 5.0 Gbps or 10.0 Gbps\n"
             "LinkSpeedEnabled:................2.5 Gbps or 5.0 Gbps or 10.0 Gbps\n"
             "LinkSpeedActive:.................10.0 Gbps\nLinkSpeedExtSupported:...........14.0625 Gbps\n"
             "LinkSpeedExtEnabled:.............14.0625 Gbps\nLinkSpeedExtActive:..............14.0625 Gbps\n")


def test_a_portinfo_with_an_extended_speed_reads_the_lane_speed_from_it():
    """https://github.com/linux-rdma/rdma-core (infiniband-diags' ibportstate prints LinkSpeedExtActive, FDR and up):
    an FDR port (LinkSpeedActive 10.0, LinkSpeedExtActive 14.0625) runs at 14.0625 Gbps a lane, FDR, not QDR; an
    HDR one at 53.125. `No Extended Speed` (a QDR port, tuananh0788/Exadata#2, corpus zi014) keeps LinkSpeedActive."""
    got, said = _all(explain(_PORTINFO, host="other"))
    assert got == {"info"} and "runs at 4X width and 14.0625 Gbps per lane, from LinkSpeedExtActive" in said
    assert "14.0625 Gbps a lane is FDR" in said and "runs at 4X width and 10.0 Gbps" not in said
    got, said = _all(explain(_PORTINFO.replace("14.0625 Gbps\n", "53.125 Gbps\n"), host="other"))
    assert "runs at 4X width and 53.125 Gbps per lane" in said
    got, said = _all(explain(_paste("zi014"), host="other"))
    assert "runs at 4X width and 10.0 Gbps per lane" in said and "LinkSpeedExtActive" not in said


def test_a_portinfo_of_a_port_down_or_unconfigured_claims_no_running_link():
    """infiniband-diags ibportstate (https://github.com/linux-rdma/rdma-core): LinkState Down, PhysLinkState Polling:
    the port has no link (a warn naming the cable and the peer), never `the link runs at`; Armed with the physical
    link up: no subnet manager has activated it (opensm)."""
    down = (_PORTINFO.replace("Active\nPhys", "Down\nPhys").replace("LinkUp", "Polling")
            .replace("ExtActive:..............14.0625 Gbps", "ExtActive:..............No Extended Speed"))
    got, said = _all(explain(down, host="other"))
    assert got == {"warn"} and "LinkState is Down (PhysLinkState Polling)" in said and "the port has no link" in said
    assert "runs at" not in said and "the port's defaults, not a running link" in said
    got, said = _all(explain(_PORTINFO.replace("Active\nPhys", "Armed\nPhys"), host="other"))
    assert got == {"warn"} and "no subnet manager has activated it yet" in said and "opensm" in said
