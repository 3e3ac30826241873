"""Session 39d (issue 27): the field corpus's misses about a machine's links and setup (nvidia-smi topo -m, free,
ip addr, p2pBandwidthLatencyTest / busGrind); each rule on the real output that prompted it (read from the corpus by
path, or a few of its lines quoted) and on a neighbouring output where it must stay silent."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import levels, messages

FIELD = Path(__file__).parent / "fixtures" / "field"
ORDER = ["ok", "info", "warn", "fail"]


def _field(stem: str) -> str:
    """The text of a corpus (or pending) entry whose file name starts with ``stem``."""
    return next(p for d in ("corpus", "pending") for p in sorted((FIELD / d).glob(f"{stem}_*.txt"))).read_text()


def _worst(sections) -> str:
    return max((lv for s in sections for lv in levels(s)), key=ORDER.index)


def test_a_cut_matrix_whose_shown_cards_are_sys_to_every_unshown_one_reads_as_two_sockets():
    """NVIDIA/nccl#1817 (https://github.com/NVIDIA/nccl/issues/1817): eight PCIe GPUs, GPU0-3 on NUMA node 0 shown,
    the rows of GPU4-7 cut off; every path from 0-3 to 4-7 is SYS, so 4-7 sit on the other socket: the server's
    layout, said as a note, not a fault."""
    section = explain(_field("k019"), host="other", nodes=1)[0]
    assert section.kind == "nvidia-smi-topo" and _worst([section]) == "info"
    assert "path SYS" in messages(section, "info") and "PIX" in messages(section, "ok")


def test_a_cut_matrix_with_sys_inside_the_shown_node_still_warns():
    """The same cut shape, but two cards of the shown NUMA node are SYS to each other: not a second socket's layout,
    so the SYS pairs stay a warning (the rule reads the other socket only where the shown node has no SYS)."""
    head = "        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity\n"
    rows = ("GPU0     X      SYS     SYS     SYS     0-47    0\n"
            "GPU1    SYS      X      SYS     SYS     0-47    0\n"
            "GPU2    SYS     SYS      X      PI\n")
    section = explain("$ nvidia-smi topo -m\n" + head + rows, host="other", nodes=1)[0]
    assert section.kind == "nvidia-smi-topo" and "warn" in levels(section)


def test_old_free_whose_shared_memory_the_buffers_line_counts_as_droppable_warns_without_swap():
    """rfjakob/earlyoom#20 (https://github.com/rfjakob/earlyoom/issues/20): old procps free, 30G, 13G shared (tmpfs),
    the `-/+ buffers/cache` line says 19G free, no swap; the maintainer: only ~6 GB was really available."""
    section = explain(_field("g021"), host="other", nodes=1)[0]
    said = messages(section, "warn")
    assert section.kind == "free" and levels(section) == ["warn"]
    assert "-/+ buffers/cache" in said and "13.0 GiB" in said and "no swap" in said


def test_old_free_with_little_shared_memory_stays_a_note():
    """The same old format with a few MiB shared and swap present: the -/+ line is near the truth, nothing to warn."""
    text = ("$ free -m\n             total       used       free     shared    buffers     cached\n"
            "Mem:         32000      20000      12000         50        500      15000\n"
            "-/+ buffers/cache:       4500      27500\n"
            "Swap:         8000          0       8000\n")
    section = explain(text, host="other", nodes=1)[0]
    assert section.kind == "free" and levels(section) == ["info"]
    assert "-/+ buffers/cache" not in messages(section)


def test_several_rdma_ports_in_one_flat_subnet_is_a_note_naming_the_routing_it_needs():
    """An OCI GPU node's `ip ad` (https://docs.oracle.com/en-us/iaas/Content/Compute/References/configuringrdma.htm,
    the corpus's y002): four ConnectX ports at MTU 4220 all in 192.168.0.0/16, the cloud image's multi-rail design."""
    section = explain(_field("y002"), host="other", nodes=1)[0]
    said = messages(section, "info")
    assert section.kind == "ip-addr" and "warn" not in levels(section) and "fail" not in levels(section)
    assert "4 interfaces share the subnet 192.168.0.0/16" in said and "arp_ignore" in said


def test_several_plain_interfaces_in_one_subnet_still_warn():
    """Three interfaces that are not NIC ports named for RDMA (eth0, eth1, eth2) in one /24: the kernel's routing
    ambiguity, a warning as before."""
    text = "$ ip -br addr\n" + "".join(f"eth{i}             UP             10.0.0.{i + 1}/24\n" for i in range(3))
    section = explain(text, host="other", nodes=1)[0]
    assert section.kind == "ip-addr" and "warn" in levels(section)
    assert "3 interfaces share the subnet 10.0.0.0/24" in messages(section, "warn")


def test_busgrind_matrices_are_read_and_a_p2p_copy_below_an_x8_link_warns():
    """Level1Techs forum 185531 (https://forum.level1techs.com/t/gpu-gpu-expected-bandwidth/185531): busGrind's
    `P2P Bandwidth Matrix (GB/s) - Unidirectional, P2P=Enabled`, 3.32 GB/s between two RTX 3070 Ti."""
    text = ("P2P Bandwidth Matrix (GB/s) - Unidirectional, P2P=Enabled\n   D\\D      0      1\n"
            "      0 257.84   3.32\n      1   3.32 263.90\n"
            "P2P Bandwidth Matrix (GB/s) - Bidirectional, P2P=Enabled\n   D\\D      0      1\n"
            "      0 270.60   4.88\n      1   4.98 270.33\n")
    section = explain(text, host="other", nodes=1)[0]
    said = messages(section, "warn")
    assert section.kind == "p2p-bandwidth" and levels(section) == ["warn"]
    assert "3.32 GB/s one way" in said and "LnkSta" in said and "P2P=Disabled" in said


def test_p2p_bidirectional_rates_below_two_x8_links_warn_and_a_gen4_x16_pair_does_not():
    """NVIDIA/nccl#1127 (https://github.com/NVIDIA/nccl/issues/1127): 8x RTX 3090, 6.1-8.6 GB/s both ways with P2P;
    ik_llama.cpp#1018 (https://github.com/ikawrakow/ik_llama.cpp/issues/1018): three GPUs at ~26 GB/s one way, a
    Gen4 x16 link's worth, stays a note."""
    slow = explain(_field("i023"), host="other", nodes=1)
    assert any("6.11-8.63 GB/s both ways together with P2P" in messages(s, "warn") for s in slow)
    fast = explain(_field("u008"), host="other", nodes=1)
    assert not any("slow for P2P" in messages(s) for s in fast)
    assert any("one way with P2P: what a Gen4 x16" in messages(s, "info") for s in fast)


def test_a_rig_report_card_alone_at_x8_beside_cards_at_x16_is_no_desktop_split():
    """noonghunna/club-3090#37 (https://github.com/noonghunna/club-3090/issues/37): four cards on buses 01, 81, 82
    and c1; GPU1 alone negotiated x8 while GPU0, GPU2 and GPU3 run x16: the platform has the lanes, so the slot's
    wiring, a riser or the seating is why (a warning), not a desktop CPU's x8/x8 split."""
    section = explain(_field("wk010"), host="other", nodes=1)[0]
    said = messages(section, "warn")
    assert section.kind == "rig-report" and "warn" in levels(section)
    assert "GPU1 (NVIDIA GeForce RTX 5090) runs on PCIe x8 of its x16" in said and "GPU0, GPU2, GPU3 run x16" in said
    assert "x8/x8" not in messages(section, "info")


def test_two_rig_report_cards_both_at_x8_stay_the_desktop_split_note():
    """noonghunna/club-3090#474 (https://github.com/noonghunna/club-3090/issues/474): two RTX 5090 each at x8 Gen5,
    a desktop CPU's x8/x8: a note, not a warning."""
    section = explain(_field("zs018"), host="other", nodes=1)[0]
    assert "warn" not in levels(section) and "x8/x8" in messages(section, "info")


def test_sys_between_two_cards_is_a_note_where_simplep2p_in_the_paste_verified_p2p():
    """NVIDIA/cuda-samples#284 (https://github.com/NVIDIA/cuda-samples/issues/284): two L4 on NUMA nodes 0 and 2
    (SYS), then simpleP2P: peer access Yes both ways, 19.87 GB/s, `Test passed`: P2P works across that path."""
    sections = explain(_field("h019"), host="other", nodes=1)
    topo = next(s for s in sections if s.kind == "nvidia-smi-topo")
    assert _worst(sections) in ("ok", "info") and "path SYS" in messages(topo, "info")


def test_the_same_sys_pair_without_a_p2p_test_beside_it_still_warns():
    """The h019 matrix alone (its first three lines): nothing shows P2P working, so SYS between the only two cards
    stays a warning, as for club-3090#178's pair (corpus d019)."""
    matrix = "\n".join(_field("h019").splitlines()[:3]) + "\n"
    section = explain(matrix, host="other", nodes=1)[0]
    assert section.kind == "nvidia-smi-topo" and "path SYS" in messages(section, "warn")


_FREE = ("[root@host ~]# free -h\n              total        used        free      shared  buff/cache   available\n"
         "Mem:          225Gi       4.1Gi       174Gi        {}        46Gi       219Gi\n"
         "Swap:          63Gi       245Mi        63Gi\n")


def test_three_free_outputs_whose_shared_memory_rose_and_stayed_warn_on_the_last():
    """vllm-project/vllm#16663 (https://github.com/vllm-project/vllm/issues/16663): `free -h` before /sleep (21Mi
    shared), after it (49Gi) and after /wake_up (49Gi): the memory sleep mode offloaded is never given back."""
    sections = [s for s in explain(_field("t005"), host="other", nodes=1) if s.kind == "free"]
    assert len(sections) == 3 and "warn" not in levels(sections[0]) + levels(sections[1])
    said = messages(sections[2], "warn")
    assert "rose from 21 MiB to 49.0 GiB" in said and "still 49.0 GiB" in said and "/dev/shm" in said


def test_free_outputs_whose_shared_memory_came_back_down_or_that_are_only_two_say_nothing_of_it():
    """The same three outputs with the last back at 21Mi (released), and the first two alone (no third to show it
    stayed): no finding of held shared memory."""
    released = "\n".join(_FREE.format(x) for x in ("21Mi", "49Gi", "21Mi"))
    two = "\n".join(_FREE.format(x) for x in ("21Mi", "49Gi"))
    for text in (released, two):
        sections = explain(text, host="other", nodes=1)
        assert sections and not any("Shared memory" in messages(s) for s in sections)
        assert all(levels(s) == ["info"] for s in sections)
