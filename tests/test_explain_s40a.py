"""Session 40 (builder A): links, NICs and RDMA readings, each on the real output that prompted it and a neighbour
where it must stay silent."""

from __future__ import annotations

from grader.explain import explain
from tests.conftest import field_entry, levels, messages


def test_ip_link_of_an_sriov_pf_names_its_vfs_and_what_the_host_set_on_them():
    """https://github.com/magnate3/linux-riscv-dev/blob/a518471825322fa5cb85895f4539b80527ba834a/exercises2/soft-roce/
    mellanox/sriov-roce.md (blind batch ws009): `ip l show ens6` of a ConnectX-4 Lx PF with two VFs, MACs set, trust
    on, link-state auto: a working SR-IOV setup, said as such (ip-link(8) for the VF settings)."""
    [s] = explain(field_entry("ws009"), host="other", nodes=1)
    said = messages(s, "info")
    assert "2 virtual functions shown (vf 0, vf 1)" in said and "each with a MAC set" in said
    assert "link-state auto (each follows the port's link)" in said and "trust on" in said
    assert "warn" not in levels(s) and "fail" not in levels(s)


def test_a_vf_held_down_by_link_state_disable_warns_and_a_zero_mac_is_named():
    """ip-link(8) `vf N state disable` (newer iproute2's `vf 0     link/ether ... link-state disable` shape): that VF
    passes no traffic whatever the port's link, a hedged warning naming the command that lets it follow the port."""
    text = ("$ ip link show ens1f0\n"
            "6: ens1f0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT group default qlen 1000\n"
            "    link/ether b8:59:9f:aa:bb:cc brd ff:ff:ff:ff:ff:ff\n"
            "    vf 0     link/ether 00:00:00:00:00:00 brd ff:ff:ff:ff:ff:ff, spoof checking off, link-state disable, "
            "trust off, query_rss off\n"
            "    vf 1     link/ether 52:54:00:12:34:56 brd ff:ff:ff:ff:ff:ff, vlan 100, spoof checking on, "
            "link-state auto, trust off, query_rss off\n")
    [s] = explain(text, host="other", nodes=1)
    assert "vf 0 of ens1f0 has link-state disable" in messages(s, "warn")
    assert "ip link set ens1f0 vf 0 state auto" in messages(s, "warn")
    assert "no address set by the host on vf 0" in messages(s, "info") and "random MAC" in messages(s, "info")
    assert "vf 1" not in messages(s, "warn")


def test_an_interface_list_without_vf_lines_says_nothing_of_sriov():
    """https://github.com/KoyoImai/dgx_spark_cluster (corpus zc002): a Spark's `ip a` with no vf lines: no SR-IOV note."""
    [s] = explain(field_entry("zc002"), host="spark", nodes=1)
    assert "SR-IOV" not in messages(s) and "virtual function" not in messages(s)


def test_chinese_labels_between_two_ifconfig_outputs_are_words_and_tx_errors_warn():
    """https://github.com/kvcache-ai/Mooncake/issues/1143 (blind batch xi008): two PCs' ifconfig under Chinese labels
    ending in a full-width comma (`PC2的IP是100.100.100.2，`), then ibstat: each output is read (the labels set aside),
    PC1's 425 TX errors in 16,847 packets warn, and the two outputs' one subnet is not called an ambiguity of one host."""
    sections = explain(field_entry("xi008"), host="other", nodes=2)
    assert not [s for s in sections if s.error]
    said = "\n".join(messages(s) for s in sections)
    assert "enp5s0f0 counted 425 transmit errors in 16,847 packets sent" in said
    assert "enp3s0f1 counted" not in said
    assert "the two ends of one link" in said and "are in the same subnet" not in said


def test_a_localised_output_line_is_not_taken_for_words():
    """A Chinese-localised ping's lines end in figures, not full-width punctuation: never prose; a label ending in
    `：` is."""
    from grader.explain.tolerant import is_prose
    assert not is_prose("来自 192.168.1.1 的回复: 字节=32 时间<1ms TTL=64")
    assert is_prose("PC1的网卡信息（ibstat）：") and is_prose("使用英特尔E810的RDMA网卡，")


def test_two_ip_outputs_of_one_host_in_one_subnet_still_warn():
    """The same two interfaces in one subnet, in a paste of one machine: the routing ambiguity stays a warning."""
    text = ("$ ip addr show eth1\n3: eth1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default"
            " qlen 1000\n    link/ether 0c:42:a1:00:00:01 brd ff:ff:ff:ff:ff:ff\n    inet 10.1.0.5/24 brd 10.1.0.255 scope"
            " global eth1\n       valid_lft forever preferred_lft forever\n"
            "$ ip addr show eth2\n4: eth2: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default"
            " qlen 1000\n    link/ether 0c:42:a1:00:00:02 brd ff:ff:ff:ff:ff:ff\n    inet 10.1.0.6/24 brd 10.1.0.255 scope"
            " global eth2\n       valid_lft forever preferred_lft forever\n")
    said = "\n".join(messages(s, "warn") for s in explain(text, host="other", nodes=1))
    assert "eth1 (10.1.0.5/24) and eth2 (10.1.0.6/24) are in the same subnet" in said


RDMA_LINK_IB_INIT = """$ rdma link show
link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens1f0np0
link mlx5_2/1 subnet_prefix fe80:0000:0000:0000 lid 12 sm_lid 1 lmc 0 state ACTIVE physical_state LINK_UP
link mlx5_3/1 subnet_prefix fe80:0000:0000:0000 lid 65535 sm_lid 0 lmc 0 state INIT physical_state LINK_UP
"""


def test_rdma_link_infiniband_port_in_init_names_the_subnet_manager_not_the_netdev():
    """iproute2's rdma(8) `rdma link` of an InfiniBand port (subnet_prefix, lid, sm_lid: no netdev) in INIT with
    physical_state LINK_UP, lid 65535 and sm_lid 0: the cable trained, no subnet manager assigned a LID (ibv_devinfo's
    PORT_INIT), so the fix is a subnet manager (https://docs.nvidia.com/networking/display/mlnxofedv590560125/
    opensm), not the netdev or a reboot."""
    [s] = explain(RDMA_LINK_IB_INIT, host="other", nodes=1)
    said = messages(s, "warn")
    assert "mlx5_3/1" in said and "no subnet manager has configured it" in said and "opensm" in said
    assert "ip link show" not in said and "reboot" not in said
    assert "lid 65535, none assigned; sm_lid 0, no subnet manager seen" in messages(s, "info")
    assert "mlx5_2/1 ACTIVE (InfiniBand: lid 12; subnet manager at lid 1)" in messages(s, "info")


def test_rdma_link_roce_port_trained_but_not_active_keeps_the_netdev_advice():
    """The same shape on RoCE (a netdev, no LID): the port's state follows its netdev, the old advice stands."""
    text = "$ rdma link\nlink rocep1s0f0/1 state INIT physical_state LINK_UP netdev ens1f0np0\n"
    said = messages(explain(text, host="other", nodes=1)[0], "warn")
    assert "ip link show ens1f0np0" in said and "subnet manager" not in said


def test_rdma_link_of_active_infiniband_ports_stays_quiet():
    """https://github.com/magnate3/linux-riscv-dev (corpus q014): old iproute2's `rdma link` with an ACTIVE InfiniBand
    port (lid 12, sm_lid 4): no warning."""
    [s] = explain(field_entry("q014"), host="other", nodes=1)
    assert "warn" not in levels(s) and "subnet manager at lid 4" in messages(s, "info")


ETHTOOL_25G_OF_100G = """$ sudo ethtool ens1f0np0
Settings for ens1f0np0:
\tSupported ports: [ Backplane ]
\tSupported link modes:   25000baseCR/Full
\t                        100000baseCR4/Full
\tAdvertised link modes:  25000baseCR/Full
\t                        100000baseCR4/Full
\tAdvertised auto-negotiation: Yes
\tLink partner advertised link modes:  Not reported
\tSpeed: 25000Mb/s
\tDuplex: Full
\tAuto-negotiation: on
\tPort: Direct Attach Copper
\tLink detected: yes
"""


def test_ethtool_link_below_its_best_advertised_mode_names_what_decides():
    """ethtool(8) of a ConnectX port that advertises 100000baseCR4 but links at 25000Mb/s with the partner's modes
    `Not reported` (a 25G switch port, a 4x25G breakout): not called healthy, not a fault; the other end decides."""
    [s] = explain(ETHTOOL_25G_OF_100G, host="other", nodes=1)
    said = messages(s, "info")
    assert "25000Mb/s, link up, below the 100000baseCR4/Full" in said and "breakout" in said
    assert "healthy" not in messages(s) and levels(s) == ["info"]


def test_ethtool_at_its_best_mode_is_still_healthy():
    """https://github.com/ntop/PF_RING (corpus g003): a ConnectX-2 10G fibre port at its best mode: no below-rate note."""
    [s] = explain(field_entry("g003"), host="other", nodes=1)
    assert "below the" not in messages(s)


IBDEV_V = """$ ibdev2netdev -v
0000:17:00.0 mlx5_0 (MT4123 - MCX653105A-HDAT) ConnectX-6 VPI adapter card, HDR IB (200Gb/s) and 200GbE, single-port QSFP56 fw 20.35.2000 port 1 (ACTIVE) ==> ib0 (Up)
0000:31:00.0 mlx5_1 (MT4123 - MCX653105A-HDAT) ConnectX-6 VPI adapter card, HDR IB (200Gb/s) and 200GbE, single-port QSFP56 fw 20.35.2000 port 1 (INIT) ==> ib1 (Up)
0000:4b:00.0 mlx5_2 (MT4123 - MCX653105A-HDAT) ConnectX-6 VPI adapter card, HDR IB (200Gb/s) and 200GbE, single-port QSFP56 fw 20.35.2000 port 1 (DOWN  ) ==> ib2 (Down)
"""


def test_ibdev2netdev_v_port_states_of_infiniband_ports_are_read():
    """MLNX_OFED's `ibdev2netdev -v` prints each port's own state (`port 1 (INIT)`): an InfiniBand port in INIT waits
    for a subnet manager (a warning naming it); a port DOWN is said from the port, not hedged as an IPoIB netdev that
    may stay Down while its port is Active."""
    [s] = explain(IBDEV_V, host="other", nodes=1)
    assert "mlx5_1 port 1 is INIT" in messages(s, "warn") and "subnet manager" in messages(s, "warn")
    assert "mlx5_2 port 1: the port itself is DOWN" in messages(s, "info")
    assert "stays Down while the port is Active" not in messages(s)


def test_ibdev2netdev_v_of_ethernet_ports_adds_no_port_note():
    """https://github.com/magnate3/linux-riscv-dev (corpus q009): `ibdev2netdev -v` of Ethernet ports and VFs, some
    DOWN: their netdevs' Down already says it; no port note (a VF has no cable)."""
    said = "\n".join(messages(s) for s in explain(field_entry("q009"), host="other", nodes=1))
    assert "the port itself is" not in said and "is INIT" not in said


IBSTAT_100_OF_200 = "$ ibstat\n" + "".join(f"""CA 'mlx5_{i}'
\tCA type: MT4123
\tNumber of ports: 1
\tFirmware version: 20.35.2000
\tHardware version: 0
\tNode GUID: 0x0c42a10300b2c3d{i}
\tSystem image GUID: 0x0c42a10300b2c3d{i}
\tPort 1:
\t\tState: Active
\t\tPhysical state: LinkUp
\t\tRate: {rate}
\t\tBase lid: {7 + i}
\t\tLMC: 0
\t\tSM lid: 1
\t\tCapability mask: 0x2651e848
\t\tPort GUID: 0x0c42a10300b2c3d{i}
\t\tLink layer: InfiniBand
""" for i, rate in enumerate((100, 200, 200, 200)))


def test_ibstat_one_rail_below_the_others_of_its_model_warns():
    """ibstat(8) of four ConnectX-6 (MT4123) InfiniBand ports, three at Rate 200 and one at 100: one rail trained
    lower (an HDR100/EDR cable, a split switch port): a warning naming it; two ports at different rates, a note."""
    [s] = explain(IBSTAT_100_OF_200, host="other", nodes=1)
    assert "mlx5_0 port 1 at 100 Gb/s, the other 3 at 200 Gb/s" in messages(s, "warn")
    assert "at a lower rate than other ports of its model" in messages(s, "ok")
    assert messages(s, "ok").count("up and healthy") == 3
    two = IBSTAT_100_OF_200.split("CA 'mlx5_2'")[0]
    [t] = explain(two, host="other", nodes=1)
    assert "warn" not in levels(t) and "mlx5_0 port 1 at 100 Gb/s, the other 1 at 200 Gb/s" in messages(t, "info")


def test_ibstat_ports_at_one_rate_say_nothing_of_rates():
    """The same four ports all at Rate 200: no rate note."""
    [s] = explain(IBSTAT_100_OF_200.replace("Rate: 100", "Rate: 200"), host="other", nodes=1)
    assert "different rates" not in messages(s) and "warn" not in levels(s)


def test_an_output_kept_as_tab_comments_in_a_notes_file_is_read():
    """https://github.com/supingisme/test/blob/c3374bec4694603d5c2df9448eb65e39f37ae966/linux/cmd/ethtool/ethtool-m.sh
    (blind batch wq009): `ethtool -m` whose every output line is kept as `#` + tab in a shell notes file: read, and
    the 10G-SR module's receive power 0.43 dB above its own low-warning threshold warns."""
    [s] = explain(field_entry("wq009"), host="other", nodes=1)
    assert not s.error and "-13.57 dBm" in messages(s, "warn") and "low-warning threshold" in messages(s, "warn")


def test_comment_marks_of_other_shapes_stay():
    """nccl-tests' `#` lines (a space after the mark) and a short run of tab comments are left as they are."""
    from grader.parsers.common.pasted import unquoted
    lines = ["#  Avg bus bandwidth    : 3.94", "#", "# Out of bounds values : 0 OK"]
    assert unquoted(lines) == lines
    short = ["network:", "#\tversion: 2", "#\trenderer: networkd", "  ethernets: {}"]
    assert unquoted(short) == short
    assert unquoted(["cmd"] + ["#\tline %d" % i for i in range(5)]) == ["cmd"] + ["line %d" % i for i in range(5)]


IP_S_LINK = """$ ip -s link show ens1f0np0
4: ens1f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT group default qlen 1000
    link/ether 0c:42:a1:7b:2c:10 brd ff:ff:ff:ff:ff:ff
    RX:  bytes packets errors dropped  missed   mcast
    98765432100 81234567  403120      0       0    1234
    TX:  bytes packets errors dropped carrier collsns
    87654321000 71234567       0       0       0       0
    RX errors:  length    crc   frame    fifo  missed
                     0 403120       0       0       0
"""


def test_ip_s_link_counters_are_read_as_ifconfigs_are():
    """ip-link(8) `-s`: the counters under `RX:  bytes packets errors ...` (iproute2 5.x's header; older ones print
    `RX: bytes  packets  errors  dropped overrun mcast`): receive errors above the error share warn, as ifconfig's."""
    [s] = explain(IP_S_LINK, host="other", nodes=1)
    assert "ens1f0np0 counted 403,120 receive errors in 81,234,567 packets" in messages(s, "warn")
    assert "transmit errors" not in messages(s)
    old = IP_S_LINK.replace("RX:  bytes packets errors dropped  missed   mcast", "RX: bytes  packets  errors  dropped overrun mcast")
    assert "403,120 receive errors" in messages(explain(old, host="other", nodes=1)[0], "warn")
    clean = IP_S_LINK.replace("403120", "0")
    assert "warn" not in levels(explain(clean, host="other", nodes=1)[0])


def test_rdma_link_json_of_an_infiniband_port_reads_its_lids():
    """`rdma -j link show` (iproute2's JSON: "lid", "sm_lid" keys on an InfiniBand port): the same reading as the
    text form, the subnet manager named for a port in INIT."""
    text = ('$ rdma -j link show\n[{"ifindex":0,"ifname":"mlx5_0","port":1,"state":"ACTIVE","physical_state":"LINK_UP",'
            '"netdev":"ens1f0np0","netdev_index":4},{"ifindex":1,"ifname":"mlx5_1","port":1,"subnet_prefix":'
            '"fe80:0000:0000:0000","lid":65535,"sm_lid":0,"lmc":0,"state":"INIT","physical_state":"LINK_UP"}]\n')
    said = messages(explain(text, host="other", nodes=1)[0], "warn")
    assert "mlx5_1/1" in said and "no subnet manager has configured it" in said and "ip link show" not in said


SHOW_GIDS_IB = """$ show_gids
DEV     PORT    INDEX   GID                                     IPv4            VER     DEV
---     ----    -----   ---                                     ------------    ---     ---
mlx5_0  1       0       fe80:0000:0000:0000:0c42:a103:00b2:c3d4                 v1
mlx5_1  1       0       fe80:0000:0000:0000:0c42:a103:00b2:c3d5                 v1
n_gids_found=2
"""


def test_show_gids_of_infiniband_ports_only_asks_for_no_roce_gid():
    """show_gids (MLNX_OFED's script) on a host whose ports are all InfiniBand: no netdev column, each GID the port
    GUID under fe80 (no MAC-derived ff:fe): InfiniBand ports, where RoCE v2 IPv4 GIDs do not apply, not a warning."""
    [s] = explain(SHOW_GIDS_IB, host="other", nodes=1)
    assert "warn" not in levels(s) and "mlx5_0 has no netdev in this table: an InfiniBand port" in messages(s, "info")
    roce = SHOW_GIDS_IB.replace("0c42:a103:00b2:c3d4", "0e42:a1ff:fe7b:2c10").replace("0c42:a103:00b2:c3d5",
                                                                                    "0e42:a1ff:fe7b:2c11")
    assert "has no RoCE v2 GID at all" in messages(explain(roce, host="other", nodes=1)[0], "warn")


def test_ip_j_link_vfinfo_list_is_read_as_the_text_vf_lines():
    """`ip -j link` (iproute2's JSON) lists an SR-IOV PF's VFs under "vfinfo_list" ("link_state", "trust" as a
    boolean): the same note, and the same warning for a VF whose link-state is disable."""
    text = ('$ ip -j link show ens1f0\n[{"ifindex":6,"ifname":"ens1f0","flags":["BROADCAST","MULTICAST","UP",'
            '"LOWER_UP"],"mtu":1500,"qdisc":"mq","operstate":"UP","linkmode":"DEFAULT","group":"default","txqlen":1000,'
            '"link_type":"ether","address":"b8:59:9f:aa:bb:cc","broadcast":"ff:ff:ff:ff:ff:ff","vfinfo_list":[{"vf":0,'
            '"link_type":"ether","address":"52:54:00:11:22:33","broadcast":"ff:ff:ff:ff:ff:ff","spoofchk":true,'
            '"link_state":"disable","trust":false,"query_rss_en":false},{"vf":1,"link_type":"ether","address":'
            '"52:54:00:11:22:34","broadcast":"ff:ff:ff:ff:ff:ff","spoofchk":true,"link_state":"auto","trust":true,'
            '"query_rss_en":false}]}]\n')
    [s] = explain(text, host="other", nodes=1)
    assert "2 virtual functions shown (vf 0, vf 1)" in messages(s, "info") and "trust off/on" in messages(s, "info")
    assert "vf 0 of ens1f0 has link-state disable" in messages(s, "warn") and "vf 1" not in messages(s, "warn")


ETHTOOL_S_PAUSE = """$ ethtool -S ens1f0np0 | grep -E 'discard|error|pause|out_of_buffer'
     rx_out_of_buffer: 184223
     rx_discards_phy: 1029384
     rx_crc_errors_phy: 0
     rx_pause_ctrl_phy: 0
     tx_pause_ctrl_phy: 9921331
     tx_prio3_pause: 9921331
     tx_pause_storm_warning_events: 0
     tx_pause_storm_error_events: 0
"""


def test_ethtool_s_pause_frames_sent_are_read_and_a_storm_warns():
    """https://enterprise-support.nvidia.com/s/article/understanding-mlx5-ethtool-counters: tx_pause_ctrl_phy and
    tx_prioN_pause count pause frames the port sent (its receive side filling faster than the host drains it);
    tx_pause_storm_error_events the NIC's pause storm prevention firing: a note for the first, a warning for the second."""
    [s] = explain(ETHTOOL_S_PAUSE, host="other", nodes=1)
    assert "this port sent pause frames (tx_pause_ctrl_phy 9,921,331, tx_prio3_pause 9,921,331)" in messages(s, "info")
    assert "received pause frames" not in messages(s) and "pause storm" not in messages(s)
    [t] = explain(ETHTOOL_S_PAUSE.replace("tx_pause_storm_error_events: 0", "tx_pause_storm_error_events: 3"),
                  host="other", nodes=1)
    assert "pause storm events (tx_pause_storm_error_events 3)" in messages(t, "warn")
    quiet = ETHTOOL_S_PAUSE.replace("9921331", "0")
    assert "pause frames" not in messages(explain(quiet, host="other", nodes=1)[0])


def test_ethtool_cut_inside_its_supported_modes_says_what_is_missing():
    """https://github.com/canonical/lxd/issues/7370 (blind batch zy014's ethtool part): `ethtool ens3f0` cut inside
    its supported link modes: the speed and link are not shown, and the list may go on, said instead of nothing."""
    text = field_entry("zy014")
    part = text[text.index("ubuntu@node-host"):]
    [s] = explain(part, host="other", nodes=1)
    said = messages(s, "info")
    assert "the paste stops after 4 of its supported link modes (up to 40000baseCR4/Full)" in said
    assert "may go on below the cut" in said and "warn" not in levels(s)
    filtered = "$ ethtool ens3f0 | grep -A3 Supported\n" + "\n".join(part.split("\n")[2:7]) + "\n"
    assert "the paste stops after" not in messages(explain(filtered, host="other", nodes=1)[0])


def test_a_roce_lag_device_is_named_as_one_device_over_both_ports():
    """NVIDIA's RoCE LAG (https://docs.nvidia.com/networking/display/mlnxofedv24010331/rdma+over+converged+ethernet+(roce)
    : an mlx5_bond_N device over a bond of the card's two ports): said once, with what a single flow reaches; an
    output of plain mlx5_N devices says nothing of it (corpus q014)."""
    text = "$ rdma link\nlink mlx5_bond_0/1 state ACTIVE physical_state LINK_UP netdev bond0\n"
    said = messages(explain(text, host="other", nodes=1)[0], "info")
    assert "mlx5_bond_0: RoCE LAG" in said and "kernel's bond bond0" in said and "one port's rate" in said
    assert "RoCE LAG" not in messages(explain(field_entry("q014"), host="other", nodes=1)[0])


IPERF2 = """$ iperf -c 10.0.0.1 -P 4 -t 10
------------------------------------------------------------
Client connecting to 10.0.0.1, TCP port 5001
TCP window size: 85.0 KByte (default)
------------------------------------------------------------
[  5] local 10.0.0.2 port 38990 connected with 10.0.0.1 port 5001
[  4] local 10.0.0.2 port 38988 connected with 10.0.0.1 port 5001
[  3] local 10.0.0.2 port 38986 connected with 10.0.0.1 port 5001
[  6] local 10.0.0.2 port 38992 connected with 10.0.0.1 port 5001
[ ID] Interval       Transfer     Bandwidth
[  5]  0.0-10.0 sec  5.42 GBytes  4.66 Gbits/sec
[  4]  0.0-10.0 sec  5.51 GBytes  4.73 Gbits/sec
[  3]  0.0-10.0 sec  5.38 GBytes  4.62 Gbits/sec
[  6]  0.0-10.0 sec  5.47 GBytes  4.70 Gbits/sec
[SUM]  0.0-10.0 sec  21.8 GBytes  18.7 Gbits/sec
"""


def test_iperf2_client_result_rows_are_its_summary_not_a_cut_output():
    """iperf2's client (https://iperf2.sourceforge.io/iperf-manpage.html) prints no sender/receiver rows: its rows
    from 0 s to the end ([SUM] with -P) are the result, so the output is not called cut off; a pasted first interval
    of a longer run (blind batch wc008: `-i 1 -t 1000`, rows of 0.0-1.0 s only) still is."""
    [s] = explain(IPERF2, host="other", nodes=2)
    assert "18.70 Gbit/s over TCP" in messages(s) and "cut off" not in messages(s)
    [w] = explain(field_entry("wc008"), host="other", nodes=2)
    assert "cut off before its summary" in messages(w, "info")
    with_intervals = IPERF2.replace("[  5]  0.0-10.0 sec", "[SUM]  0.0- 1.0 sec  2.10 GBytes  18.0 Gbits/sec\n"
                                    "[  5]  0.0-10.0 sec")
    assert "cut off" not in messages(explain(with_intervals, host="other", nodes=2)[0])


def test_an_ipoib_interface_is_named_with_its_mode_and_what_its_mtu_matters_to():
    """The kernel's Documentation/infiniband/ipoib.rst: IPoIB datagram mode carries the IB MTU less 4 bytes (2044 on
    an IB MTU of 2048), connected mode up to 65520; NCCL moves data over the port, not ib0. An Ethernet interface
    (corpus zc002) gets no such note."""
    text = ("$ ip addr show ib0\n5: ib0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 2044 qdisc mq state UP group default "
            "qlen 256\n    link/infiniband 00:00:10:29:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:b2:c3:d4 brd "
            "00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff\n    inet 10.10.0.5/16 brd 10.10.255.255 scope "
            "global ib0\n       valid_lft forever preferred_lft forever\n")
    [s] = explain(text, host="other", nodes=1)
    assert "ib0 MTU 2044 (datagram mode on an IB MTU of 2048)" in messages(s, "info") and "warn" not in levels(s)
    assert "IP over InfiniBand" not in messages(explain(field_entry("zc002"), host="spark", nodes=1)[0])


def test_iperf2_is_not_given_iperf3s_one_thread_advice():
    """iperf2 runs each -P stream in a thread of its own (https://iperf2.sourceforge.io/iperf-manpage.html), so the
    advice that iperf3 before 3.16 runs all streams on one core is left out of an iperf2 reading; an iperf3 summary
    (corpus f021) keeps it."""
    text = ("$ iperf -c 10.0.0.1 -e -i 1 -t 3\n------------------------------------------------------------\n"
            "Client connecting to 10.0.0.1, TCP port 5001 with pid 12345 (1 flows)\n"
            "TCP window size: 16.0 KByte (default)\n------------------------------------------------------------\n"
            "[  1] local 10.0.0.2%ens1f0 port 46282 connected with 10.0.0.1 port 5001 (sock=3)\n"
            "[ ID] Interval        Transfer    Bandwidth       Write/Err  Rtry     Cwnd/RTT(var)        NetPwr\n"
            "[  1] 0.0000-1.0000 sec  2.75 GBytes  23.6 Gbits/sec  22499/0          0     3168K/1234(56) us  2391734\n"
            "[  1] 1.0000-2.0000 sec  2.74 GBytes  23.5 Gbits/sec  22451/0          3     3168K/1240(60) us  2371234\n"
            "[  1] 2.0000-3.0000 sec  2.75 GBytes  23.6 Gbits/sec  22499/0          0     3168K/1231(50) us  2391734\n"
            "[  1] 0.0000-3.0038 sec  8.24 GBytes  23.6 Gbits/sec  67450/0          3     3168K/1233(52) us  2381734\n")
    said = messages(explain(text, host="other", nodes=2)[0])
    assert "TCP ceiling of a 25 GbE link" in said and "iperf2 runs each in a thread of its own" in said
    assert "3.16" not in said and "cut off" not in said
    assert "3.16" in messages(explain(field_entry("f021"), host="other", nodes=2)[0])
