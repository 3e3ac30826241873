"""Session 37 (helper C2, links, RoCE devices, GPUs/PCIe): readings of real outputs mended as general rules, each
test naming the output it comes from."""

from __future__ import annotations


from grader.explain import explain
from tests.conftest import field_entry as corpus, messages


def said(sections, level: str | None = None) -> str:
    return " ".join(messages(s, level) if level else messages(s) for s in sections).strip()


def test_fan_speed_not_supported_on_passive_data_centre_cards_is_said_once_and_not_a_fault():
    """https://github.com/roscisz/TensorHive/issues/289 (pending wa021): three hosts of eight Tesla P40 each, queried
    without an index column, fan.speed `[Not Supported]` or `[N/A]`: one note per output naming the cards, a passively
    cooled board with no fan of its own, not a fault (no GPUNone, no note per row)."""
    sections = explain(corpus("wa021"), host="other", nodes=3)
    text = said(sections)
    assert "GPUNone" not in text and not said(sections, "warn") and not said(sections, "fail")
    assert text.count("All 8 GPUs (Tesla P40): fan.speed") == 3
    assert "passively cooled" in text and "Not a fault" in text and "[N/A]" in text
    # a GeForce card's fan [N/A] is not called passive
    desk = ("$ nvidia-smi --query-gpu=index,name,fan.speed --format=csv\nindex, name, fan.speed [%]\n"
            "0, NVIDIA GeForce RTX 3090, [N/A]\n1, NVIDIA GeForce RTX 3090, 30 %\n")
    text = said(explain(desk, host="other", nodes=1))
    assert "GPU0 (NVIDIA GeForce RTX 3090): fan.speed [N/A]" in text and "passively" not in text


def test_one_gpu_on_a_gb10_is_all_a_spark_has():
    """A DGX Spark's `nvidia-smi --query-gpu` lists its one GB10 (as in the corpus's Spark pastes): not compared with a
    two-card desktop."""
    text = said(explain("$ nvidia-smi --query-gpu=index,name,utilization.gpu --format=csv\nindex, name, "
                        "utilization.gpu [%]\n0, NVIDIA GB10, 0 %\n", host="spark", nodes=1))
    assert "all a DGX Spark has" in text and "two-card desktop" not in text


def test_ibv_devinfo_cut_before_its_port_section_says_the_port_is_not_shown():
    """https://github.com/open-mpi/ompi/issues/9087 (pending wa012): `ibv_devinfo -v` of a ConnectX-4 that stops in
    the capability flags, before the port block: the port's state and rate are not shown. A whole one (corpus xi016's
    ibv_devinfo shape: a port block) does not say so."""
    text = said(explain(corpus("wa012"), host="other", nodes=1))
    assert "mlx5_0: the output stops before the port section" in text and "rate are not shown" in text
    whole = ("$ ibv_devinfo\nhca_id: mlx5_0\n\ttransport: InfiniBand (0)\n\tfw_ver: 16.35.2000\n\tvendor_part_id: 4119\n"
             "\tphys_port_cnt: 1\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tactive_mtu:\t\t4096 (5)\n"
             "\t\t\tlink_layer:\t\tEthernet\n")
    assert "port section" not in said(explain(whole, host="other", nodes=1))


def test_lspci_tree_reads_root_ports_and_says_topology_only():
    """https://github.com/noonghunna/club-3090/issues/1106 (pending wa013): `lspci -t` of a WRX80 board, four root
    complexes, two-function devices directly on CPU root ports (no PCIe switch); the tree shows no widths. A VM's
    tree (corpus s005, Azure NC24rs_v3: each device on a root bus of its own) is said to hide the host's topology."""
    text = said(explain(corpus("wa013"), host="other", nodes=1))
    assert "4 root complexes" in text and "no PCIe switch" in text and "buses 21, 41, 42" in text
    assert "topology only" in text and "ERROR" not in text
    vm = said(explain(corpus("s005"), host="other", nodes=2))
    assert "each device sits on a root bus of its own" in vm and "no PCIe switch" not in vm
    switched = ("$ lspci -t\n-[0000:00]-+-00.0\n           +-01.0-[01-03]----00.0-[02-03]--+-08.0-[03]----00.0\n"
                "           \\-02.0\n")
    text = said(explain(switched, host="other", nodes=1))
    assert "Behind a further bridge" in text and "Directly on a CPU root port" not in text


def test_lspci_grep_mellanox_names_the_virtual_functions_and_what_lspci_cannot_show():
    """https://github.com/hustcat/k8s-rdma-device-plugin/issues/1 (pending wa022): `lspci | grep Mellanox` with a
    ConnectX-3 PF and SR-IOV VFs, the last line cut mid-word: the VFs named, and lspci cannot show the port's state.
    Without VFs (the PF alone) no SR-IOV is claimed."""
    text = said(explain(corpus("wa022"), host="other", nodes=1))
    assert "01:00.1, 01:00.2, 01:00.3: SR-IOV Virtual Functions" in text and "port's state" in text
    assert "01:00.4 Mellanox" not in text  # the cut line is one more Mellanox function, not an unnamed device
    pf = corpus("wa022").splitlines()[:2]
    text = said(explain("\n".join(pf) + "\n", host="other", nodes=1))
    assert "Virtual Function" not in text and "ConnectX-3" in text and "port's state" in text


def test_lspci_grep_with_vfs_on_one_port_only_warns_of_the_other_port():
    """Pending zt015 (a ConnectX-4 with port 0 in InfiniBand and port 1 in Ethernet mode, six VFs all Infiniband
    controllers): the Ethernet PF has no VF, a hedged warning; a one-PF list with its VFs (pending wa022) is not."""
    warned = said(explain(corpus("zt015"), host="other", nodes=1), "warn")
    assert "0b:00.1 (Ethernet controller) has no Virtual Function" in warned and "If VFs were asked for" in warned
    assert not said(explain(corpus("wa022"), host="other", nodes=1), "warn")


def test_outputs_read_as_all_well_say_so_in_plain_words():
    """Where the judge read the output and found nothing wrong, its words say so: an nvidia-smi table in a podman
    container (pending xb006, https://github.com/NixOS/nixpkgs/issues/420638), ibstat ports Active (pending zt018),
    `rdma link` all ACTIVE (corpus y020), a host's `ip addr`/ifconfig all up (pending wa020), lspci LnkSta matching
    LnkCap (corpus zc011). Not where something is wrong: an ifconfig with receive errors (corpus zf004)."""
    assert "GPU0 (NVIDIA GeForce RTX 4090) is visible" in said(explain(corpus("xb006"), host="other", nodes=1))
    assert "Active/LinkUp at 100 Gb/s (this NIC's negotiated rate, 12.5 GB/s per port at most): the port's link is up and healthy" in said(
        explain(corpus("zt018"), host="other", nodes=1), "ok")
    assert "Every port shown is ACTIVE (physical state LINK_UP: the link is up): healthy." in said(
        explain(corpus("y020"), host="other", nodes=1))
    assert "Every interface shown (enp105s0) is UP with link and an IPv4 address: healthy" in said(
        explain(corpus("wa020"), host="other", nodes=1))
    assert "matches LnkCap Gen4 x16: the full link, healthy" in said(explain(corpus("zc011"), host="other", nodes=1))
    bad = said(explain(corpus("zf004"), host="other", nodes=1)).lower()
    assert "receive errors" in bad and "healthy" not in bad and "nothing wrong" not in bad
    # a GPU table with a sensor nvidia-smi could not read is not called normal
    err = corpus("xb006").replace("| 34%   33C    P3 ", "| 34%  ERR!    P3 ")
    assert "ERR!" in err and "nothing wrong" not in said(explain(err, host="other", nodes=1))


def test_a_sentence_starting_with_ethtool_is_prose_not_a_command():
    """Pending zy014 (https://github.com/canonical/lxd/issues/7370): 'ethtool is correctly reporting that the card
    supports 100G/s and is connected to a 100G/s uplink.' between two fenced blocks is the poster's sentence, not a
    command line (a rate like 100G/s is no path); `ethtool -s eth0 speed 100000` stays a command."""
    text = said(explain(corpus("zy014"), host="other", nodes=1))
    assert "ethtool is correctly reporting" not in " ".join(s.command or "" for s in explain(corpus("zy014"),
                                                                                          host="other", nodes=1))
    assert "the command printed nothing" not in text
    from grader.explain.tolerant import is_sentence
    assert is_sentence("ethtool is correctly reporting that the card supports 100G/s and is connected.")
    assert not is_sentence("ethtool --show-fec enp1s0f0np0 and then /usr/sbin/ethtool -m enp1s0f0np0 again")


def test_every_port_of_a_whole_device_list_down_fails_a_slice_warns():
    """Pending xi013 (https://github.com/deepseek-ai/3FS/issues/39): `ibstat` of both ConnectX-6 Dx devices (mlx5_0,
    mlx5_1), every port Down/Disabled: no RDMA port at all, a failure (as `rdma link` with none ACTIVE). Pending xp013
    (a slice of ibstatus blocks, mlx5_11 and mlx5_2.. cut mid-word) stays a warning: other ports may be up."""
    assert "no port in this output is Active" in said(explain(corpus("xi013"), host="other", nodes=1), "fail")
    slice_ = explain(corpus("xp013"), host="other", nodes=1)
    assert not said(slice_, "fail") and "no port in this output is Active" in said(slice_, "warn")


def test_a_fragment_of_nvidia_smi_q_inside_the_pci_part_still_reads_the_link_width():
    """Pending zs014 (a Maxwell GeForce's `nvidia-smi -q` pasted from inside its PCI section): `Link Width` Max 16x,
    Current 8x with no `GPU Link Info` heading above is read as the card's link (narrower than it can)."""
    from grader.judges.gpu import summarise_q
    from grader.parsers.nvidia_smi import parse_smi_q
    text = corpus("zs014")
    _, found = summarise_q(parse_smi_q(text[text.index("            Link Width"):]), None)
    words = " ".join(f.message for f in found)
    assert "trained at x8, x16 is possible" in words and "GenNone" not in words


def test_connectx_in_lspci_with_no_netdev_in_the_same_hosts_ip_list_fails():
    """Pending zt012 (a ConnectX-4 Lx at 18:00.0/.1 in `lspci`, and `ip a` listing only lo and eno1): no netdev could
    be the card's, so no driver is bound to it. With its netdev listed (enp24s0f0np0), nothing is said of it."""
    text = corpus("zt012")
    assert "no netdev that could be theirs (only lo, eno1)" in said(explain(text, host="other", nodes=1), "fail")
    fixed = text.replace("#\n\n# dnf", "3: enp24s0f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP "
                         "group default qlen 1000\n    link/ether aa:bb:cc:dd:ee:f0 brd ff:ff:ff:ff:ff:ff\n#\n\n# dnf")
    assert fixed != text and "no netdev" not in said(explain(fixed, host="other", nodes=1))


def test_two_gid_tables_laid_out_differently_warn_that_one_index_cannot_fit_both():
    """Pending zy012 (https://github.com/openucx/ucx/issues/7785): the GID lines of `ibv_devinfo -v` on two nodes,
    mu01 with IPv4 at indices 2 and 3, cu01 with two entries and IPv4 at 1: two tables (the index starts again), and a
    fixed GID index cannot be right on both. Two tables of one layout say nothing of it."""
    text = corpus("zy012")
    warned = said(explain(text, host="other", nodes=2), "warn")
    assert "The GID tables differ" in warned and "IPv4 at index 2, 3" in warned and "IPv4 at index 1)" in warned
    same = text.split("cu01:")[0] + "cu01:\n" + text.split("cu01:")[0].split("mu01:\n")[1].replace("cb00:7164",
                                                                                                 "cb00:7101")
    assert same.count("GID[  3]") == 2 and "GID tables differ" not in said(explain(same, host="other", nodes=2))


def test_rdma_dev_typed_beside_rdma_link_is_set_aside():
    """Pending xi006 (https://github.com/openucx/ucx/issues/11048: `rdma link show` then `rdma dev` in one block,
    Broadcom bnxt_re): the `rdma dev` line and its device lines are another command's, not unreadable link lines; the
    links read (bnxt_re0 ACTIVE, bnxt_re1 DOWN/DISABLED)."""
    block = corpus("xi006").split("\necho -e")[0].split("RDMA\n", 1)[1]
    text = said(explain(block, host="other", nodes=1))
    assert "ERROR" not in text and "bnxt_re0/1 ACTIVE on enp194s0f0np0" in text and "bnxt_re1/1 DOWN" in text
