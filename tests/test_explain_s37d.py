"""Session 37, the break-it review's link and GPU findings (issue 27): outputs composed by the reviewer in the shapes
the programs print (ip route's policy tables, -j, multipath; ethtool -m of an AOC; ethtool through grep; ip addr of a
VRF, Open vSwitch, a bond in a bridge and a Spark's twins in a bond; nvidia-smi with no process listed), each of which
a rule of this session once misread. Each test asserts the reading the output's own lines support."""

from __future__ import annotations

from grader.explain import explain
from tests.conftest import levels, messages


def _all(text: str, **context) -> tuple[set[str], str]:
    sections = explain(text, **context)
    return {lv for s in sections for lv in levels(s)}, "\n".join(messages(s) for s in sections)


POLICY = """$ ip route show table all
default via 10.10.1.1 dev ens1f0 table 101
10.10.1.0/24 dev ens1f0 table 101 scope link src 10.10.1.5
default via 10.10.2.1 dev ens1f1 table 102
10.10.2.0/24 dev ens1f1 table 102 scope link src 10.10.2.5
default via 192.168.1.1 dev eno1 proto dhcp src 192.168.1.20 metric 100
10.10.1.0/24 dev ens1f0 proto kernel scope link src 10.10.1.5
192.168.1.0/24 dev eno1 proto kernel scope link src 192.168.1.20 metric 100
local 10.10.1.5 dev ens1f0 table local proto kernel scope host src 10.10.1.5
"""


def test_policy_routing_tables_each_hold_their_own_default():
    """Two defaults in tables 101 and 102 (picked by `ip rule`) are policy routing, the fix the clash finding itself
    recommends: no clash; the tables are named. The same two defaults in the main table still fail."""
    got, said = _all(POLICY, host="other")
    assert "fail" not in got and "(table 101)" in said and "(table 102)" in said
    clash = POLICY.replace(" table 101", "").replace(" table 102", "")
    got, said = _all(clash, host="other")
    assert "fail" in got and "Two default routes with the same metric, by ens1f0, ens1f1" in said


def test_json_routes_keep_their_metrics():
    """`ip -j route`: two defaults with metrics 100 and 600 (a wired and a wireless link): the lower metric wins, no
    clash; the JSON's metric is read as the text's is."""
    text = ('$ ip -j route\n[{"dst":"default","gateway":"192.168.1.1","dev":"enp5s0","metric":100,"flags":[]},'
            '{"dst":"default","gateway":"192.168.1.1","dev":"wlp4s0","metric":600,"flags":[]}]\n')
    got, said = _all(text, host="other")
    assert "fail" not in got and "dev enp5s0 metric 100" in said and "dev wlp4s0 metric 600" in said


def test_a_multipath_route_is_one_default_over_its_next_hops():
    """A multipath (ECMP) default route: its head line has no device, its `nexthop` lines name them. One route spread
    over eth0 and eth1 (by design), not "no default route" and not a clash."""
    text = ("$ ip route\ndefault proto static metric 100\n\tnexthop via 10.0.1.1 dev eth0 weight 1\n"
            "\tnexthop via 10.0.2.1 dev eth1 weight 1\n10.0.1.0/24 dev eth0 proto kernel scope link src 10.0.1.10\n")
    got, said = _all(text, host="other")
    assert "fail" not in got and "default via 10.0.1.1 dev eth0+eth1 metric 100" in said
    assert "no default route" not in said


AOC = """$ sudo ethtool -m enp65s0f0np0
	Identifier                                : 0x11 (QSFP28)
	Transceiver codes                         : 0x84 0x00 0x00 0x00 0x00 0x00 0x00 0x00
	Transceiver type                          : 40G Ethernet: 40G Base-SR4
	Transceiver type                          : 100G Ethernet: 100G AOC or 25GAUI C2M AOC with worst BER of 5x10^(-5)
	Vendor name                               : Mellanox
	Vendor PN                                 : MFA1A00-C003
"""


def test_a_dual_rate_aoc_is_not_called_a_40g_module():
    """A QSFP28 AOC whose codes name both 40G-SR4 and 100G AOC: its top rate is 100G, so no "stops at 40G" warning;
    with the 100G line gone the warning stands (the rule's own case, corpus w015)."""
    got, said = _all(AOC, host="other")
    assert "compliance codes stop" not in said
    got, said = _all(AOC.replace("\tTransceiver type                          : 100G Ethernet: 100G AOC or 25GAUI C2M "
                                 "AOC with worst BER of 5x10^(-5)\n", ""), host="other")
    assert "warn" in got and "compliance codes stop at 40G" in said


def test_ethtool_through_grep_draws_nothing_from_its_cut_mode_list():
    """`ethtool X | grep -E "Speed|...|Advertised link modes"` keeps only the first line of the advertised list: the
    speed is not 'none of the rates the port advertises'."""
    text = ('$ ethtool enp1s0f0np0 | grep -E "Speed|Duplex|Advertised link modes"\n'
            "\tAdvertised link modes:  1000baseKX/Full\n\tSpeed: 100000Mb/s\n\tDuplex: Full\n")
    got, said = _all(text, host="other")
    assert "warn" not in got and "fail" not in got and "none of the rates" not in said
    got, said = _all(text.replace(' | grep -E "Speed|Duplex|Advertised link modes"', ""), host="other")
    assert "none of the rates the port advertises" in said  # unfiltered, the same lines are the whole list


def _iface(n: int, name: str, flags: str, extra: str = "", inet: str = "") -> str:
    return (f"{n}: {name}: <{flags}> mtu 9000 qdisc mq {extra}state UP group default qlen 1000\n"
            f"    link/ether 0c:42:a1:55:66:{n:02x} brd ff:ff:ff:ff:ff:ff\n"
            + (f"    inet {inet} brd 10.0.0.255 scope global {name}\n" if inet else ""))


def test_a_bond_inside_a_bridge_names_the_bridge():
    """Proxmox: two ports in bond0, bond0 in vmbr0, the address on vmbr0: the interface to name is vmbr0."""
    text = "$ ip addr\n" + "".join([
        _iface(2, "enp65s0f0np0", "BROADCAST,MULTICAST,SLAVE,UP,LOWER_UP", "master bond0 "),
        _iface(3, "enp65s0f1np1", "BROADCAST,MULTICAST,SLAVE,UP,LOWER_UP", "master bond0 "),
        _iface(4, "bond0", "BROADCAST,MULTICAST,MASTER,UP,LOWER_UP", "master vmbr0 "),
        _iface(5, "vmbr0", "BROADCAST,MULTICAST,UP,LOWER_UP", "", "10.40.0.21/24")])
    got, said = _all(text, host="other")
    assert "members of bond0 (`master bond0`, itself in vmbr0)" in said and "is vmbr0, which has 10.40.0.21/24" in said
    assert "is bond0, which" not in said


def test_a_vrf_member_with_its_own_address_and_ovs_get_no_member_note():
    """A VRF (`master mgmt`) keeps its members' addresses; Open vSwitch's datapath (`master ovs-system`) is no
    interface to name: neither gets 'a member holds no address'."""
    vrf = "$ ip addr\n" + _iface(2, "eno1", "BROADCAST,MULTICAST,UP,LOWER_UP", "master mgmt ", "10.20.0.15/24") \
        + _iface(4, "mgmt", "NOARP,MASTER,UP,LOWER_UP")
    ovs = "$ ip addr\n" + _iface(2, "ens3f0", "BROADCAST,MULTICAST,UP,LOWER_UP", "master ovs-system ") \
        + _iface(4, "br-ex", "BROADCAST,MULTICAST,UP,LOWER_UP", "", "10.0.10.21/24")
    for text in (vrf, ovs):
        assert "holds no address of its own" not in _all(text, host="other")[1]


def test_spark_twins_in_a_bond_warn_instead_of_failing_for_no_ipv4():
    """A Spark whose port-0 twins are enslaved to bond0 (the address on bond0): not 'UP but has no IPv4' (a fail the
    member line contradicts) but a warning that a bond works against RoCE, whose devices are the twins' own."""
    text = "$ ip addr\n" + "".join([
        _iface(3, "enp1s0f0np0", "BROADCAST,MULTICAST,SLAVE,UP,LOWER_UP", "master bond0 "),
        _iface(5, "enP2p1s0f0np0", "BROADCAST,MULTICAST,SLAVE,UP,LOWER_UP", "master bond0 "),
        _iface(7, "bond0", "BROADCAST,MULTICAST,MASTER,UP,LOWER_UP", "", "192.168.100.10/24")])
    got, said = _all(text, host="spark")
    assert "fail" not in got and "warn" in got
    assert "enp1s0f0np0 is a member of bond0" in said and "has no IPv4" not in said


def test_memory_held_with_no_process_listed_is_not_called_by_design():
    """nvidia-smi: two idle H100s each holding 76.5 of 81.6 GB, `No running processes found`: the note says what no
    listed process means (another namespace's server, or a process that died holding it), not 'the process table
    says which process holds it'."""
    row = ("|   {i}  NVIDIA H100 80GB HBM3          On  |   00000000:{bus}:00.0 Off |                    0 |\n"
           "| N/A   33C    P0             71W /  700W |   76514MiB /  81559MiB |      0%      Default |\n"
           "|                                         |                        |             Disabled |\n"
           "+-----------------------------------------+------------------------+----------------------+\n")
    text = ("$ nvidia-smi\n"
            "| NVIDIA-SMI 570.133.20             Driver Version: 570.133.20     CUDA Version: 12.8     |\n"
            "|=========================================+========================+======================|\n"
            + row.format(i=0, bus="18") + row.format(i=1, bus="2A")
            + "| Processes:                                                                              |\n"
            "|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |\n"
            "|=========================================================================================|\n"
            "|  No running processes found                                                             |\n")
    said = _all(text, host="other")[1]
    assert "The process table lists none" in said and "says which process holds it" not in said


def test_a_warn_line_cut_at_the_end_of_the_paste_is_said_as_cut():
    """NVIDIA's aws-ofi-nccl#64 paste (pending wb019) ends inside a WARN line, `... NCCL WARN Co`: its message is not
    shown, so it is said as cut (a note), not repeated as a warning; a whole WARN line no table reads stays a warning."""
    head = "ip-172-31-6-104:9923:9981 [2] NCCL INFO comm 0x7f rank 2 nranks 16 cudaDev 2 busId 201c0 - Init START\n"
    got, said = _all(head + "ip-172-31-6-104:9923:9981 [2] graph/search.cc:765 NCCL WARN Co\n", host="other")
    assert "warn" not in got and "cut off after `Co`" in said
    got, said = _all(head + "ip-172-31-6-104:9923:9981 [2] graph/search.cc:765 NCCL WARN Could not find a path for "
                     "pattern 4, falling back to simple order\n", host="other")
    assert "cut off after" not in said
