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
