"""Session 37, helper C (issue 27): links, RoCE devices and GPUs/PCIe. Each rule on a real output of the field corpus
(read by path, its source URL named) and on a neighbouring output where it must stay silent."""

from __future__ import annotations


from grader.explain import explain
from tests.conftest import field_entry as _paste, levels, messages


def _all(sections) -> tuple[set[str], str]:
    return {lv for s in sections for lv in levels(s)}, "\n".join(messages(s) for s in sections)


def test_a_copper_port_without_link_is_a_warning_not_a_fault():
    """https://github.com/KiaraGrouwstra/nix-config/issues/97: a desktop's gigabit BASE-T port, Link detected: no, Speed
    Unknown!: nothing plugged in or the far end off; a warning (fine if unused), not a failure."""
    got, said = _all(explain(_paste("z018"), host="other", nodes=1))
    assert "fail" not in got and "warn" in got
    assert "enp4s0: no link (Link detected: no) on a copper (BASE-T) port" in said


def test_a_fibre_port_without_link_whose_modes_are_base_t_stays_a_fault():
    """https://github.com/Aquantia/AQtion/issues/24: an SFP+ card (Port: FIBRE) with a 10G SR optic whose driver
    advertises BASE-T modes only, no link: the module is never brought up, a failure; the copper rule stays out."""
    got, said = _all(explain(_paste("zy005"), host="other", nodes=1))
    assert "fail" in got and "copper" not in said


def test_every_gpu_sys_from_every_nic_on_one_socket_warns_of_gpudirect():
    """https://github.com/horovod/horovod/issues/288: 4x V100 on socket 0, mlx5_0 SYS to every GPU: NCCL does not use
    GPUDirect RDMA at that distance by default; a warning naming GDR."""
    (s,) = explain(_paste("xk002"), host="other", nodes=1)
    assert "warn" in levels(s)
    said = messages(s, "warn")
    assert "Every GPU is SYS from every NIC" in said and "GPUDirect RDMA (GDR)" in said


def test_a_nic_sys_to_gpus_on_both_sockets_stays_a_note():
    """https://github.com/vllm-project/vllm/issues/10163: 8x H100 NV18 over two NUMA nodes, the only NIC SYS to all:
    it sits on neither GPU home (a front-end NIC), a healthy single-node topology: no warning."""
    (s,) = explain(_paste("k017"), host="other", nodes=1)
    assert "warn" not in levels(s) and "fail" not in levels(s)
    assert "Nearest NIC of each GPU" in messages(s, "info")


def test_a_gpu_with_a_pix_nic_keeps_the_nearest_nic_note():
    """https://github.com/NVIDIA/go-gpuallocator/issues/17: NIC0 is PHB to GPU6, SYS to the others: not every GPU is
    SYS, so no GPUDirect warning."""
    (s,) = explain(_paste("y011"), host="other", nodes=1)
    assert "Every GPU is SYS" not in messages(s)


def test_an_idle_card_holding_most_of_its_memory_is_a_server_s_pool_not_a_leak():
    """https://github.com/noonghunna/club-3090/issues/487: a vLLM TP=2 server loaded, GPU0 23949 of 24576 MiB at P8
    and 0%: by design (gpu_memory_utilization), an info."""
    (s,) = explain(_paste("zu008"), host="other", nodes=1)
    assert set(levels(s)) <= {"ok", "info"}
    assert "GPU0: idle, yet holding most of the card's memory (23949 of 24576 MiB)" in messages(s)
    assert "gpu_memory_utilization" in messages(s)


def test_an_idle_card_with_little_memory_held_gets_no_pool_note_and_the_driver_note_names_cuda():
    """https://github.com/vllm-project/vllm/issues/5510: two idle RTX 4090 with 191 and 11 MiB used, driver
    535.171.04 / CUDA 12.2: no held-memory note; the header's driver and the newest CUDA it runs are said."""
    (s,) = explain(_paste("xb020"), host="other", nodes=1)
    said = messages(s)
    assert "holding most of the card's memory" not in said
    assert "Driver 535.171.04; `CUDA Version: 12.2` is the newest CUDA this driver runs" in said


def test_bond_members_hold_no_address_and_the_bond_is_the_interface_to_name():
    """https://github.com/sgl-project/sglang/issues/3514: ens8f0np0/ens8f1np1 `SLAVE ... master bond0`, the paste cut
    before bond0 and inside ens16f2's flags: the members are bond0's, and a header cut inside its flags is not read as
    an interface nobody enabled."""
    (s,) = explain(_paste("xh006"), host="other", nodes=1)
    said = messages(s)
    assert "ens8f0np0, ens8f1np1 are members of bond0 (`master bond0`)" in said
    assert "is bond0, which is not in this paste" in said and "ens8f0np0 UP MTU 1500 (member of bond0)" in said
    assert "ens16f2 is administratively down" not in said


def test_a_bond_shown_with_its_address_is_named_and_an_unbonded_list_gets_no_member_note():
    """https://github.com/easzlab/kubeasz/issues/607: eth0 and eth1 in bond0, which has 10.4.252.30/24; and
    https://github.com/CumulusNetworks/ifupdown2/issues/319: one PF, no bond: no member sentence."""
    (s,) = explain(_paste("xh013"), host="other", nodes=1)
    assert "is bond0, which has 10.4.252.30/24" in messages(s) and set(levels(s)) <= {"ok", "info"}
    (o,) = explain(_paste("o017"), host="other", nodes=1)
    assert "member" not in messages(o)


def test_ifconfig_aliases_are_addresses_of_one_nic_and_a_redacted_address_is_not_an_error():
    """https://github.com/ray-project/ray/issues/8430: ifconfig with eth0, eth0:0 and eth0:1, addresses redacted
    (`inet xx.xx.xx.193`, `inet6 ...`): read, the aliases named as eth0's, no "no IPv4" claimed."""
    sections = explain(_paste("xh016"), host="other", nodes=1)
    assert not any(s.error for s in sections)
    said = "\n".join(messages(s) for s in sections)
    assert "eth0:0, eth0:1: alias names of eth0" in said and "(no IPv4)" not in said


def test_xid_13_is_a_dead_cuda_context_and_a_plain_xid_45_stays_a_warning():
    """https://github.com/vllm-project/vllm/issues/5901: a burst of Xid 13 (Graphics Exception) on 43:00 under vLLM:
    the process's CUDA context is dead, a failure; https://github.com/leptonai/gpud/pull/117: Xid 45 alone (a killed
    process's channels) stays a warning."""
    got, said = _all(explain(_paste("xn017"), host="other", nodes=1))
    assert "fail" in got and "Xid 13" in said and "CUDA context of the process on that GPU is dead" in said
    lone = "[Sat Oct 12 18:35:32 2024] NVRM: Xid (PCI:0000:61:00): 45, pid=1496200, name=distprovers-gpu, Ch 0000000a\n"
    got, said = _all(explain(lone, host="other", nodes=1))
    assert "fail" not in got and "warn" in got


def test_xid_45_caused_by_an_nvlink_xid_names_the_nvlink_error():
    """https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1150: Xid 45 on four GPUs 'caused by previous Xid 149'
    (and 145): the NVLink NETIR error is the cause, a failure."""
    got, said = _all(explain(_paste("xk012"), host="other", nodes=1))
    assert "fail" in got and "An NVLink error on the GPU at 0000:dc:00 (Xid 149" in said


def test_a_df_ping_whose_payload_is_the_mtu_itself_is_refused_as_expected():
    """https://github.com/markondej/cpp-icmplib/issues/7: Windows `ping -f -l 1500` gets 'Packet needs to be fragmented
    but DF set': 1500 + 28 > 1500, the test size is wrong, not the link (info, naming 1472); the same on Linux with
    `-M do -s 9000` on an MTU of 9000. A payload well above the MTU (`-s 3872`, MTU 1500) still warns."""
    sections = explain(_paste("zf007"), host="other", nodes=1)
    got, said = _all(sections)
    assert got <= {"ok", "info"} and "`-l 1472`" in said
    linux = ("$ ping -M do -s 9000 -c 2 192.168.100.11\nPING 192.168.100.11 (192.168.100.11) 9000(9028) bytes of data.\n"
             "ping: local error: message too long, mtu=9000\nping: local error: message too long, mtu=9000\n\n"
             "--- 192.168.100.11 ping statistics ---\n2 packets transmitted, 0 received, +2 errors, 100% packet loss, "
             "time 1010ms\n")
    got, said = _all(explain(linux, host="other", nodes=2))
    assert got <= {"ok", "info"} and "`-s 8972`" in said
    got, _ = _all(explain(_paste("zn007"), host="other", nodes=2))
    assert "warn" in got or "fail" in got


def test_a_rig_reports_gen4_or_5_card_at_x8_is_the_desktop_split_and_x4_still_warns():
    """https://github.com/noonghunna/club-3090/issues/474: two RTX 5090 on AM5, each x8 of x16 at Gen5: the CPU's
    lanes split x8/x8, an info; https://github.com/noonghunna/club-3090/issues/158: both 3090s at x4 Gen4 stay warnings."""
    (s,) = explain(_paste("zs018"), host="other", nodes=1)
    assert set(levels(s)) <= {"ok", "info"} and "splits its 16 graphics lanes x8/x8" in messages(s)
    got, said = _all(explain(_paste("zs016"), host="other", nodes=1))
    assert "warn" in got and "x8/x8" not in said


def test_a_qsfp28_module_whose_codes_stop_at_40g_is_a_40g_cable():
    """https://github.com/sonic-net/sonic-buildimage/issues/6476: `ethtool -m` shows Identifier QSFP28 but only 40G
    Base-CR4 (and 25G CR) transceiver types: a 40G DAC in a QSFP28 shell, a warning; https://github.com/lldpd/lldpd/
    issues/477: a QSFP28 100G Base-SR4 optic gets no such warning."""
    (s,) = explain(_paste("w015"), host="other", nodes=1)
    assert "warn" in levels(s) and "a QSFP28 module whose compliance codes stop at 40G" in messages(s, "warn")
    (h,) = explain(_paste("h008"), host="other", nodes=1)
    assert "compliance codes stop" not in messages(h)


def test_virtualbox_nat_address_on_several_nodes_warns_and_on_one_is_a_note():
    """https://github.com/easzlab/kubeasz/issues/220: VirtualBox VMs (08:00:27 MACs) each with 10.0.2.15 on the NAT
    adapter and 192.168.56.x host-only: over three nodes the NAT address is one address for all, a warning naming
    enp0s8; https://github.com/deepseek-ai/3FS/issues/263: one VM (nodes 1), a note only."""
    got, said = _all(explain(_paste("xh014"), host="other", nodes=3))
    assert "warn" in got and "10.0.2.15, the address VirtualBox's NAT adapter gives every VM" in said
    assert "enp0s8 192.168.56.102" in said
    got, said = _all(explain(_paste("h002"), host="other", nodes=1))
    assert "warn" not in got and "VirtualBox's NAT adapter" in said


def test_two_routes_to_one_prefix_with_one_metric_by_two_interfaces_fail():
    """https://github.com/systemd/systemd/issues/28814: `169.254.0.0/16 dev eth0 ... metric 2048` and the same by eth1:
    all link-local traffic leaves by eth0; https://github.com/aws/amazon-vpc-cni-k8s/issues/345: two default routes,
    metric 1024, by eth0 and eth1."""
    got, said = _all(explain(_paste("xh002"), host="other", nodes=1))
    assert "fail" in got and "Two routes to 169.254.0.0/16 with the same metric 2048, by eth0, eth1" in said
    got, said = _all(explain(_paste("xh009"), host="other", nodes=1))
    assert "fail" in got and "Two default routes with the same metric 1024, by eth0, eth1" in said
    assert "QSFP" not in said  # (a host said not to be a Spark: its routes are not judged as a Spark's)


def test_a_table_with_one_route_per_prefix_is_read_without_a_fault():
    """https://github.com/spark-arena/sparkrun/issues/275 (zf013): a Spark's `ip route` with no default route and one
    route per subnet: read as a table, no duplicate-route failure."""
    table = ("$ ip route\n10.10.10.0/24 dev enP7s7 proto kernel scope link src 10.10.10.2 metric 100\n"
             "10.20.3.0/24 dev enp1s0f0np0 proto kernel scope link src 10.20.3.2 metric 101\n"
             "10.20.4.0/24 dev enP2p1s0f0np0 proto kernel scope link src 10.20.4.2 metric 102\n")
    (s,) = explain(table, host="spark", nodes=2)
    assert s.kind == "ip-route-get" and levels(s) == ["info"]
    assert "Routing table: 3 route(s); no default route" in messages(s)


def test_netplan_refusing_a_file_fails_and_its_permission_warning_is_only_a_note():
    """https://github.com/canonical/ubuntu-server-documentation/issues/207: `netplan apply` printing `...yaml:7:7:
    Error in network definition: expected mapping (check indentation)`: nothing applied, a failure;
    https://github.com/lavabit/robox/issues/296: netplan generate/apply printing only 'Permissions ... are too open':
    applied, a note."""
    got, said = _all(explain(_paste("xh004"), host="other", nodes=1))
    assert "fail" in got and "netplan refused /etc/netplan/50-couch5.yaml" in said and "not applied" in said
    got, said = _all(explain(_paste("xh003"), host="other", nodes=1))
    assert got <= {"ok", "info"} and "the file was read and applied as it stands" in said


def test_ibv_devices_with_a_zero_node_guid_is_a_vf_never_given_one():
    """https://github.com/openshift/sriov-network-device-plugin/issues/20: ibv_devices on two hosts, the
    VFs (mlx5_2, mlx5_3; mlx5_1) with node GUID 0000000000000000: a failure naming them; a list with real GUIDs only
    gets no such finding."""
    got, said = _all(explain(_paste("xi001"), host="other", nodes=2))
    assert "fail" in got and "mlx5_2, mlx5_3, mlx5_1: node GUID 0000000000000000, never assigned" in said
    healthy = "$ ibv_devices\n    device                 node GUID\n    ------              ----------------\n" \
              "    mlx5_0              506b4b03002a1c28\n    mlx5_1              506b4b03002a1c34\n"
    (s,) = explain(healthy, host="other", nodes=2)
    assert "fail" not in levels(s) and "GUID" not in messages(s)


def test_perftest_finding_no_device_names_the_uverbs_node_a_container_needs():
    """https://github.com/Mellanox/k8s-rdma-shared-dev-plugin/issues/169 (a pod whose /dev/infiniband holds rdma_cm and umad only): ib_write_bw's 'Did not detect devices ...
    Unable to find the Infiniband/RoCE device' is a failure that names /dev/infiniband/uverbsN."""
    got, said = _all(explain(_paste("zt010"), host="other", nodes=1))
    assert "fail" in got and "/dev/infiniband/uverbsN" in said


def test_lspci_names_the_bound_driver_and_warns_of_a_function_no_driver_claimed():
    """https://github.com/geerlingguy/raspberry-pi-pcie-devices/issues/139 (zt019: a ConnectX-3 Pro on a CM4, `Kernel
    driver in use: mlx4_core`): said bound; the same block without its `Kernel driver in use` line (modules listed,
    none bound) is a warning naming the module to look for in dmesg."""
    text = _paste("zt019")
    (s,) = explain(text, host="other", nodes=1)
    assert set(levels(s)) <= {"ok", "info"} and "01:00.0 mlx4_core" in messages(s)
    (u,) = explain(text.replace("        Kernel driver in use: mlx4_core\n", ""), host="other", nodes=1)
    assert "no driver has claimed it" in messages(u, "warn") and "grep -i mlx4_core" in messages(u, "warn")


def test_lspci_lnkctl_lines_alone_are_read_as_the_links_settings():
    """https://github.com/NVIDIA/open-gpu-kernel-modules/issues/974 (xf014: a laptop's RTX 5060 Ti, `lspci -vv -s 05:00.0 | grep -iE 'LnkCtl'`): ASPM Disabled and target 32 GT/s
    are the link's settings; read (no error), and LnkSta named as what shows the link's state."""
    sections = explain(_paste("xf014"), host="other", nodes=1)
    assert not any(s.error for s in sections)
    said = "\n".join(messages(s) for s in sections)
    assert "05:00.0 (its device line is not in the paste): ASPM Disabled, target link speed 32 GT/s" in said
    assert "downgraded" not in said


def test_p2p_only_between_cards_of_one_model_is_said_as_that_pattern():
    """https://github.com/aikitoria/open-gpu-kernel-modules/pull/5 (p005: p2pBandwidthLatencyTest on 2x 4090, 2x 5090, an A6000, 2x 3090 with a P2P-patched driver: CAN only within
    0<->1 and 2<->3): said as pairs of one model, an info; a card pair of one model refused (here GPU2-GPU3 made
    CANNOT) is no such pattern."""
    text = _paste("p005")
    (s,) = explain(text, host="other", nodes=1)
    assert set(levels(s)) <= {"ok", "info"}
    assert "P2P works between GPU0-GPU1 (NVIDIA GeForce RTX 4090), GPU2-GPU3 (NVIDIA GeForce RTX 5090)" in messages(s)
    broken = text.replace("Device=2 CAN Access Peer Device=3", "Device=2 CANNOT Access Peer Device=3")
    (b,) = explain(broken, host="other", nodes=1)
    assert "each a pair of one model" not in messages(b)


def test_a_command_run_through_ssh_in_quotes_is_read_as_that_command():
    """https://github.com/getainode/ainode/issues/176 (zf016): `ssh spark1 'nvidia-smi --query-gpu=index,name,... --format=csv,noheader'`
    prints a headerless CSV: the fields come from the quoted command, and GB10's [N/A] memory is read as unified."""
    from grader.parsers.common import command_argv
    assert command_argv("ssh spark1 'nvidia-smi --query-gpu=index,name --format=csv,noheader'") == [
        "nvidia-smi", "--query-gpu=index,name", "--format=csv,noheader"]
    assert command_argv("ssh -p 22 spark1 ip addr") == ["ip", "addr"] and command_argv("ssh spark1") == []
    sections = explain(_paste("zf016"), host="spark", nodes=6)
    said = "\n".join(messages(s) for s in sections if s.kind == "nvidia-smi-query")
    assert "shares the Spark's unified memory" in said


def test_an_empty_ibv_devices_under_a_no_provider_warning_names_the_provider_not_the_driver():
    """https://github.com/SoftRoCE/rxe-dev/issues/49: rxe0 in /sys/class/infiniband, but ibv_devices prints
    'couldn't load driver rxe: librxe-rdmav2.so' and 'no userspace device-specific driver found for .../uverbs0' above
    an empty table: the user-space provider is missing (fail), not the kernel driver."""
    sections = explain(_paste("xi002"), host="other", nodes=1)
    (s,) = [x for x in sections if x.kind == "ibv-devices"]
    said = messages(s, "fail")
    assert "though the kernel has 1 (/sys/class/infiniband_verbs/uverbs0)" in said and "providers" in said
    assert "the driver is not loaded" not in said


def test_ipv6_link_local_routes_on_two_interfaces_and_a_devless_route_are_no_fault():
    """`ip -6 route` lists `fe80::/64 dev X proto kernel metric 256` once per interface (scoped, always so), and a
    table may hold `blackhole PREFIX` with no device: neither is a duplicate-route failure nor an unreadable table."""
    six = ("$ ip -6 route\n::1 dev lo proto kernel metric 256 pref medium\nfe80::/64 dev eth0 proto kernel metric 256 "
           "pref medium\nfe80::/64 dev eth1 proto kernel metric 256 pref medium\n")
    (s,) = explain(six, host="other", nodes=1)
    assert s.error is None and levels(s) == ["info"]
    table = ("$ ip route\ndefault via 10.0.0.1 dev eth0 proto dhcp metric 100\nblackhole 10.9.0.0/24 proto bird\n"
             "10.0.0.0/24 dev eth0 proto kernel scope link src 10.0.0.5 metric 100\n")
    (t,) = explain(table, host="other", nodes=1)
    assert t.error is None and "default via 10.0.0.1 dev eth0 metric 100" in messages(t, "info")


def test_a_speed_the_port_does_not_advertise_with_link_detected_cut_warns_of_no_link():
    """https://github.com/openwrt/openwrt/pull/19524 (y008: an RTL83xx switch's empty SFP cage, `Speed: 10Mb/s`, `Duplex: Half`
    on a port advertising 1000base modes only, the paste cut before Link detected): no real rate, most likely no link."""
    (s,) = explain(_paste("y008"), host="other", nodes=1)
    assert "warn" in levels(s) and "not a real, negotiated rate" in messages(s, "warn")
