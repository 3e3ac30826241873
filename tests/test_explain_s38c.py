"""Session 38, helper C (issue 27): ethtool, ethtool -m, ping, dmesg. Each rule on a real output of the field corpus
(read by path, its source URL named) and on a neighbouring output where it must stay silent."""

from __future__ import annotations


from grader.explain import explain
from tests.conftest import field_entry as _paste, levels, messages


def _all(sections) -> tuple[set[str], str]:
    return {lv for s in sections for lv in levels(s)}, "\n".join(messages(s) for s in sections)


# --------------------------------------------------------------------------- ethtool

def test_a_link_up_with_no_speed_says_it_is_up():
    """https://github.com/HariSekhon/Nagios-Plugins/pull/203: a KVM guest's virtio NIC, `Link detected: yes` and
    nothing else: the link is up; no speed is what a virtual NIC reports. A note, naming virtio."""
    got, said = _all(explain(_paste("wc004"), host="other", nodes=1))
    assert got == {"info"}
    assert "eth0: up (Link detected: yes)" in said and "virtio_net" in said and "no link" not in said


def test_link_modes_without_the_speed_lines_say_what_decides():
    """https://github.com/Ansuel/tch-nginx-gui/issues/1000: only the Supported/Advertised block of `ethtool`, one
    advertised mode (1000baseT/Full): the Speed and Link detected lines are not in the paste, so the link's state is
    not shown; the single mode is a restricted advertisement. An info, never `link is down`."""
    got, said = _all(explain(_paste("wc002"), host="other", nodes=1))
    assert got == {"info"}
    assert "`Link detected:` lines are not in the paste" in said and "advertises 1000baseT/Full" in said
    assert "single advertised mode" in said and "link is down" not in said.lower()


def test_both_ends_advertised_without_speed_keeps_its_own_note():
    """https://github.com/geerlingguy/raspberry-pi-pcie-devices/issues/364: the excerpt stops inside the partner's
    modes: both ends advertise 10000baseT, the note of the common top mode (not the restricted-advertisement one)."""
    got, said = _all(explain(_paste("c027"), host="other", nodes=1))
    assert got == {"info"}
    assert "both ends advertise up to 10000Mb/s" in said and "single advertised mode" not in said


def test_half_duplex_is_a_hedged_warning():
    """https://github.com/gnubee-git/GnuBee_Docs/issues/85: `Speed: 10Mb/s`, `Duplex: Half` alone: taken at face value
    a fallen-back link, but some embedded drivers show defaults there; a warning naming what decides."""
    got, said = _all(explain(_paste("wc003"), host="other", nodes=1))
    assert "warn" in got and "fail" not in got
    assert "half duplex at 10Mb/s" in said and "drivers" in said and "throughput test" in said


def test_half_duplex_on_an_unadvertised_rate_keeps_the_one_warning():
    """https://github.com/openwrt/openwrt/pull/19524: an empty SFP cage's bogus 10Mb/s Half, a rate the port does not
    advertise: the existing warning says so; no second (half duplex) warning, no `duplex mismatch`."""
    got, said = _all(explain(_paste("y008"), host="other", nodes=1))
    assert "warn" in got and "half duplex at" not in said
    assert "duplex mismatch with the switch" not in said.lower()


def test_a_full_duplex_gigabit_link_stays_silent():
    """https://github.com/svinota/pyroute2/issues/720: enp0s31f6 at 1000Mb/s full duplex, link up: no half-duplex
    warning, no note of lines not shown."""
    got, said = _all(explain(_paste("n008"), host="other", nodes=1))
    assert "warn" not in got and "half duplex" not in said and "not in the paste" not in said


# --------------------------------------------------------------------------- ethtool -m

def test_an_optic_without_diagnostics_says_what_decides():
    """https://github.com/netdata/netdata/issues/19375: an FS 10G-LR SFP's identity, cut before the DOM block: the optical
    power that decides whether light arrives is not shown; an info, never `no light`."""
    got, said = _all(explain(_paste("zy020"), host="other", nodes=1))
    assert got == {"info"}
    assert "10G Base-LR" in said and "no diagnostics (DOM" in said and "optical power" in said
    assert "no light" not in said.lower()


def test_a_module_with_its_readings_gets_no_diagnostics_note():
    """https://github.com/henrygd/beszel/issues/554: an SFP with temperature and alarm flags shown: no note of missing
    diagnostics."""
    _, said = _all(explain(_paste("h007"), host="other", nodes=1))
    assert "no diagnostics (DOM" not in said


# --------------------------------------------------------------------------- ping, dmesg

def test_a_ping_that_answers_says_reachable_beside_the_rdma_cm_failure():
    """https://github.com/Mellanox/docker-sriov-plugin/issues/10: ping to the server answers, rping fails with
    RDMA_CM_EVENT_ADDR_ERROR -19: IP is reachable, the RDMA device is missing; the fail stays."""
    got, said = _all(explain(_paste("xh012"), host="other", nodes=2))
    assert "fail" in got
    assert "192.168.10.17 answers" in said and "it is reachable over IP" in said and "error -19" in said


def test_a_driver_load_line_is_a_normal_note():
    """https://github.com/minjaechandesu/v100-nvlink-homelab-log (logs/boot/dmesg_nvidia.txt): a healthy boot's
    nvidia lines: the NVRM load line is the driver's normal start; a note, nothing about a lost GPU."""
    got, said = _all(explain(_paste("xf002"), host="other", nodes=1))
    assert got == {"info"}
    assert "NVIDIA kernel driver 580.95.05 loaded" in said and "normal" in said
    assert "fallen off the bus" not in said and "gpu lost" not in said.lower()


def test_every_limited_pcie_link_of_a_boot_is_named():
    """https://github.com/joorklee/p2p-bench (results/2026-06-16_5060ti-16gb_2cards_gen3-x4_p2p-sweep-c1-2-4-8/env/
    dmesg_gpu.txt): the chipset's x4 uplink at 00:01.2 limits everything behind it, and the two 5060 Ti run 8.0 GT/s
    x4 at their own ports: the warning names the devices sharing the uplink and the Gen3 x4 ones."""
    got, said = _all(explain(_paste("zj005"), host="other", nodes=1))
    assert "warn" in got and "fail" not in got
    assert "0000:04:00.0, 0000:06:00.0, 0000:07:00.0, 0000:08:00.0 behind the same link at 0000:00:01.2" in said
    assert "0000:09:00.0 (8.0 GT/s x4 at 0000:00:03.1, capable of 32.0 GT/s x16)" in said


def test_one_limited_link_alone_names_no_others():
    """The lesson-table sample of pcie-link-narrower (one kernel line, github.com/torvalds/linux drivers/pci/pci.c
    pcie_print_link_status): the warning stands, with no list of other devices."""
    line = ("[    1.0] pci 0000:04:00.0: 63.012 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x4 link at "
            "0000:00:01.2 (capable of 504.112 Gb/s with 32.0 GT/s PCIe x16 link)\n")
    got, said = _all(explain(line, host="other", nodes=1))
    assert "warn" in got and "fewer PCIe lanes" in said and "other devices limited" not in said


# --------------------------------------------------------------------------- nvidia-smi -q

def test_a_q_fragment_from_link_width_reads_the_width_and_the_compute_p2():
    """https://github.com/fangq/mcx/issues/18: a fragment of `nvidia-smi -q` from inside the PCI section (Link Width
    Max 16x, Current 8x) of a busy Maxwell GeForce in P2: the x8 of x16 is read (a warning), and P2 under load is the
    compute P-state, a note; the `Unknown` reason is no hardware slowdown."""
    got, said = _all(explain(_paste("zs014"), host="other", nodes=1))
    assert "warn" in got and "fail" not in got
    assert "trained at x8, x16 is possible" in said and "busy in P2, the compute P-state" in said
    assert "hw slowdown active" not in said.lower()


def test_a_busy_gpu_in_p0_gets_no_p2_note():
    """https://github.com/shkhln/libc6-shim/issues/14: an RTX 5070's -q fragment in P0, no reason active: no P2 note."""
    got, said = _all(explain(_paste("zs013"), host="other", nodes=1))
    assert "warn" not in got and "P2" not in said


# --------------------------------------------------------------------------- lspci

def test_an_x4_link_at_its_own_x4_is_the_full_link():
    """https://github.com/stondo/stondo.github.io (content/posts/nvidia-peermem-gpudirect-rdma-dgx-spark.md): `lspci -vvv
    -s 0000:01:00.0 | grep LnkCap/LnkSta` of a ConnectX-7 function, 32GT/s x4 both: the full link, said as healthy."""
    got, said = _all(explain(_paste("xc003"), host="spark", nodes=2))
    assert "fail" not in got and "warn" not in got
    assert "LnkSta Gen5 x4 matches LnkCap Gen5 x4: the full link, healthy" in said and "downgraded" not in said


def test_an_x4_link_below_the_card_stays_a_warning_without_the_healthy_note():
    """https://github.com/HeyMeco/Rockchip-pcie-devices/issues/6: LnkSta x4 (downgraded), LnkCap not pasted: the
    narrower-link warning, no `full link` note."""
    got, said = _all(explain(_paste("g014"), host="other", nodes=1))
    assert "warn" in got and "link trained at x4" in said and "the full link" not in said


# --------------------------------------------------------------------------- ping -M do

def test_a_large_df_ping_this_host_refuses_itself_is_a_fault():
    """https://github.com/MicrosoftDocs/azure-docs (articles/virtual-network/how-to-virtual-machine-mtu.md): a 3900-byte
    -M do ping from a VM whose interface is at MTU 1500: `ping: local error: message too long, mtu=1500` for all ten,
    this host refuses them itself: a fail naming the route's MTU of 1500 (the interface's or a cached path MTU: no
    interface is shown), not the peer or a firewall."""
    got, said = _all(explain(_paste("zn007"), host="other", nodes=2))
    assert "fail" in got
    assert "This host refused 3900-byte packets itself (`ping: local error`" in said
    assert "the MTU (1500) of its route to 10.0.0.5 is the outgoing interface's own or a path MTU" in said
    assert "firewall" not in said and "peer is down" not in said


def test_a_router_refusing_a_1500_packet_stays_a_warning():
    """https://www.fir3net.com/Networking/Protocols/notes-mtu-and-pmtu.html (corpus f022, `Frag needed and DF set (mtu = 1500)` from a hop): a router on the path, not
    this host, refused it: the path's MTU, which depends on the MTU meant: still a warning."""
    got, said = _all(explain(_paste("f022"), host="other", nodes=2))
    assert "warn" in got and "fail" not in got and "own interface" not in said


# --------------------------------------------------------------------------- a rig report's GPUs

def test_a_rig_of_mixed_gpu_models_says_the_slowest_sets_the_pace():
    """https://github.com/noonghunna/club-3090/issues/707: a club-3090 rig report of an RTX 3080 (x4) and an RTX 5090:
    mixed models, so tensor parallel runs at the slowest card's pace (an info), beside the x4 warning."""
    got, said = _all(explain(_paste("zs017"), host="other", nodes=1))
    assert "warn" in got and "fail" not in got
    assert "Mixed GPU models (NVIDIA GeForce RTX 3080, NVIDIA GeForce RTX 5090)" in said and "slowest card" in said


def test_a_rig_of_one_model_gets_no_mixed_note():
    """https://github.com/noonghunna/club-3090/issues/474: two RTX 5090: one model, no mixed-models note."""
    _, said = _all(explain(_paste("zs018"), host="other", nodes=1))
    assert "Mixed GPU models" not in said


# --------------------------------------------------------------------------- nvidia-smi nvlink -c

def test_nvlink_capabilities_are_read_as_capabilities_not_state():
    """https://github.com/m4rs-mt/ILGPU/issues/378: `nvidia-smi nvlink --capabilities -i 0` of a V100-SXM2, cut in link 4:
    P2P supported on every link shown; `SLI is supported` and `Link is supported` false are flags, not a link down;
    the state is `nvlink -s`'s. An info."""
    got, said = _all(explain(_paste("xk003"), host="other", nodes=1))
    assert got == {"info"}
    assert "P2P is supported on link(s) 0, 1, 2, 3, 4" in said and "`nvidia-smi nvlink -s` shows that" in said
    assert "link is down" not in said.lower() and "not supported" not in said.lower()


def test_nvlink_status_gets_no_capabilities_note():
    """https://github.com/Azure/azhpc-diagnostics/issues/73 (corpus d022): `nvidia-smi nvlink -s` with inactive links: the
    status findings as before, no capabilities note."""
    _, said = _all(explain(_paste("d022"), host="other", nodes=1))
    assert "NVLink capabilities" not in said and "inactive" in said


# --------------------------------------------------------------------------- HPL's GPU warning

def test_hpl_gpu_warning_at_a_low_clock_is_a_hedged_warning():
    """https://github.com/dbkinghorn/Notes/blob/246cc48fb5983b32aa1af6944ad788e5d352a23f/2023/NV-4090-P2P/
    NVIDIAmultiGPU-RTX4090-Issues-vs-RTX6000Ada-RTX3090.md: NGC HPL's `!!! WARNING` lines, both GPUs at 626 MHz, ~50 C,
    65-70 W, Gen4 x16: a warning giving the clock and what decides; never thermal throttling or a downgraded link."""
    got, said = _all(explain(_paste("xf004"), host="other", nodes=1))
    assert got == {"warn"}
    assert "626 MHz at 49 C and 70 W" in said and "nvidia-smi -q -d PERFORMANCE,CLOCK" in said
    assert "thermal throttling" not in said.lower() and "downgraded" not in said


# --------------------------------------------------------------------------- dcgmi diag

def test_dcgm_nvlink_down_says_what_decides_and_no_rma():
    """https://github.com/NVIDIA/DCGM/issues/49: dcgmi diag's PCIe test `Fail - All` for `NvLink link N is currently
    down` on A100 PCIe cards without a bridge: a warning that it is expected without NVLink and that `nvidia-smi nvlink
    -s` decides; never reseat, RMA or a broken PCIe link."""
    got, said = _all(explain(_paste("xk017"), host="other", nodes=1))
    assert got == {"warn"}
    assert "without an NVLink bridge" in said and "`nvidia-smi nvlink -s` decides" in said
    assert not any(w in said.lower() for w in ("reseat", "rma the", "replace the gpu", "pcie link is broken"))


def test_a_link_at_10_mbps_is_a_hedged_warning():
    """https://github.com/magnate3/linux-riscv-dev/blob/a518471825322fa5cb85895f4539b80527ba834a/exercises/clock/README.md
    (L97-L101): `ethtool eth0 | grep Speed` at 1000Mb/s, then `ethtool -s eth0 speed 10 duplex full autoneg off`, then
    10Mb/s: the 10 Mb/s reading is a warning naming a forced setting or a fallback, the 1000 one stays a note; never
    `no link`."""
    sections = explain(_paste("q018"), host="other", nodes=1)
    got, said = _all(sections)
    assert "warn" in got and "fail" not in got
    assert "eth0: 10Mb/s, the 10BASE-T rate" in said and "autoneg on" in said
    assert "no link" not in said and "link is down" not in said
    assert "warn" not in levels(sections[0])  # (the 1000Mb/s reading)


# --------------------------------------------------------------------------- ibdev2netdev: SR-IOV VFs

def test_vfs_down_under_an_up_pf_are_a_hedged_warning_not_a_cable():
    """https://github.com/openshift/sriov-network-operator/issues/635: ibdev2netdev of a ConnectX-6 IB host, ibp141s0 and
    ibp75s0 Up, their VFs (ibp141s0v0..v6, ibp75s0v7) Down: a warning naming the VFs and what brings an IB VF up; no
    cable fault."""
    got, said = _all(explain(_paste("g018"), host="other", nodes=1))
    assert "warn" in got and "fail" not in got
    assert "Virtual functions Down under a physical function that is Up" in said and "of ibp141s0" in said
    assert "cable fault" not in said and "replace the cable" not in said


def test_ports_down_without_vfs_get_no_vf_warning():
    """https://github.com/imbue-ai/cluster-health/issues/4 (corpus c004): an H100 host's IB ports Down, no VF among them: no
    virtual-function warning."""
    _, said = _all(explain(_paste("c004"), host="other", nodes=1))
    assert "Virtual functions Down" not in said
