"""Session 38a (issue 27): the field corpus's misses about collectives and RDMA; each rule on the real output that
prompted it (read from the corpus by path, or a few of its lines quoted) and on a neighbouring output where it must
stay silent."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import levels, messages

FIELD = Path(__file__).parent / "fixtures" / "field"


def _field(stem: str) -> str:
    """The text of a corpus (or pending) entry whose file name starts with ``stem``."""
    return next(p for d in ("corpus", "pending") for p in sorted((FIELD / d).glob(f"{stem}_*.txt"))).read_text()


def _table(rows: list[tuple[int, float]]) -> str:
    """nccl-tests all_reduce rows (size, busbw), both sides alike, under the current header."""
    head = ("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
            "busbw #wrong\n")
    return head + "".join(f"{s:>12} {s // 4:>13}     float     sum      -1    100.0 {bw / 1.5:7.2f} {bw:7.2f}      0"
                          f"    100.0 {bw / 1.5:7.2f} {bw:7.2f}      0\n" for s, bw in rows)


def test_a_one_host_table_flat_below_a_pcie4_link_is_a_hedged_warn_naming_what_decides():
    """tinygrad/open-gpu-kernel-modules#22 (https://github.com/tinygrad/open-gpu-kernel-modules/pull/22): four RTX
    4090 all-reduce rows flat at ~12.7 GB/s busbw from 8 MiB on; gardenlinux#4556
    (https://github.com/gardenlinux/gardenlinux/issues/4556): four RTX PRO 6000 flat at ~18.8 GB/s."""
    for stem, figure in (("zj004", "12.8 GB/s"), ("zo014", "18.8 GB/s")):
        section = explain(_field(stem), host="other", nodes=1)[0]
        said = messages(section, "warn")
        assert section.kind == "nccl-tests" and max(levels(section), key=["ok", "info", "warn", "fail"].index) == "warn"
        assert f"flattens at about {figure}" in said and "PCIe 4.0" in said and "via SHM" in said
        assert "network's figure" not in said  # one host, as the learner said


def test_a_flat_table_of_unsaid_hosts_names_the_network_reading_too():
    """NVIDIA/nccl#644 (https://github.com/NVIDIA/nccl/issues/644): eight ranks of all_gather rows flat at ~7.3 GB/s,
    no `# Rank` lines and the host count not said."""
    said = messages(explain(_field("xp016"), host="other")[0], "warn")
    assert "flattens at about 7.32 GB/s" in said and "about 59 Gb/s" in said


def test_the_pcie_plateau_rule_is_silent_at_the_gen4_ceiling_while_climbing_across_hosts_and_on_nvlink():
    """A Gen4 x16 ring at its ceiling (tinygrad/open-gpu-kernel-modules#17: 5x RTX 4090 at 24.7 GB/s,
    https://github.com/tinygrad/open-gpu-kernel-modules/issues/17), a table still climbing at its largest sizes, two
    machines (NVIDIA/nccl-tests#232: 41 GB/s between two nodes), an NVLink pair (NVIDIA/nccl#1435)."""
    big = [(2**23 << k, bw) for k, bw in enumerate((24.1, 24.6, 24.7, 24.7))]
    climbing = [(2**23 << k, bw) for k, bw in enumerate((8.0, 11.0, 14.0, 17.5))]
    for text, nodes in ((_table(big), 1), (_table(climbing), 1), (_table([(2**23, 18.0), (2**24, 18.2), (2**25, 18.3)]),
                                                                  2)):
        assert "flattens" not in messages(explain(text, kind="nccl-tests", host="other", nodes=nodes)[0])
    for stem, nodes in (("a042", 2), ("a022", 1), ("xd008", 1)):
        assert "flattens" not in " ".join(messages(s) for s in explain(_field(stem), host="other", nodes=nodes))
    flat = _table([(2**23, 11.9), (2**24, 12.1), (2**25, 12.2)])
    assert "flattens at about 12.2 GB/s" in messages(explain(flat, kind="nccl-tests", host="other", nodes=1)[0])


def test_libibverbs_warnings_of_a_one_machine_run_that_uses_no_rdma_are_noise():
    """open-mmlab/mmdetection#6002 (https://github.com/open-mmlab/mmdetection/issues/6002): training processes of one
    machine each print libibverbs' provider warnings while loading; nothing in the paste uses an RDMA device."""
    section = explain(_field("zt007"), host="other", nodes=1)[0]
    assert set(levels(section)) == {"info"} and "noise, not the cause" in messages(section)
    assert "fail" in levels(explain(_field("zt007"), host="other")[0])  # machines not said: the devices may matter


def test_libibverbs_warnings_beside_an_rdma_tool_stay_a_fault_on_one_machine():
    """A Soft-RoCE set-up whose ibv_devices then finds no device (SoftRoCE/rxe-dev#48,
    https://github.com/SoftRoCE/rxe-dev/issues/48) and libfabric's fi_info (https://github.com/ofiwg/libfabric/issues/975),
    each on one machine."""
    for stem in ("zt002", "zt008"):
        said = [f for s in explain(_field(stem), host="other", nodes=1) for f in s.findings]
        assert any(f.level == "fail" for f in said) and not any("noise, not the cause" in f.message for f in said)


def test_sockets_between_machines_chosen_with_nccl_ib_disable_are_a_note_not_a_fault():
    """pytorch/pytorch#38702 (https://github.com/pytorch/pytorch/issues/38702): two nodes, one V100 each, NCCL 2.4.8,
    `NCCL_IB_DISABLE set by environment to 1.` and the ring over NET/Socket on eth0: the working case."""
    section = explain(_field("zz012"), host="other", nodes=2)[0]
    said = messages(section)
    assert set(levels(section)) <= {"ok", "info"} and "because NCCL_IB_DISABLE=1 is set: a choice" in said


def test_sockets_between_machines_not_chosen_stay_a_warn_and_on_a_spark_pair_a_fail():
    """NVIDIA/nccl-tests#179 (https://github.com/NVIDIA/nccl-tests/issues/179): two hosts, no IB device, sockets over
    eno1 (nothing disabled RDMA on purpose); and the same IB_DISABLE lines told to be two Sparks (the course's policy:
    socket fallback between Sparks is a fail)."""
    assert "warn" in levels(explain(_field("f004"), host="other", nodes=2)[0])
    assert "fail" in levels(explain(_field("zz012"), host="spark", nodes=2)[0])


def test_a_ping_that_answers_says_the_peer_is_reachable_over_ip():
    """Mellanox/docker-sriov-plugin#10 (https://github.com/Mellanox/docker-sriov-plugin/issues/10): ping answers
    inside the container while rping fails with RDMA_CM_EVENT_ADDR_ERROR -19: IP is fine, the RDMA device is not."""
    sections = explain(_field("xh012"), host="other", nodes=2)
    ping = next(s for s in sections if s.kind == "ping")
    assert "reachable over IP" in messages(ping, "ok")
    assert any("error -19" in f.message and f.level == "fail" for s in sections for f in s.findings)


def test_a_dev_infiniband_listing_with_a_uverbs_file_says_the_verbs_device_is_there():
    """Mellanox/k8s-rdma-shared-dev-plugin#54 and #64 (https://github.com/Mellanox/k8s-rdma-shared-dev-plugin/issues/54,
    /issues/64): a pod's `ls -l /dev/infiniband` with uverbs0 (and uverbs1), rdma_cm, umad, issm."""
    for stem in ("xb013", "zt009"):
        [section] = explain(_field(stem), host="other", nodes=1)
        assert levels(section) == ["info"] and "verbs device file uverbs0 is listed" in messages(section)
        assert "fail" not in messages(section).lower()


def test_a_dev_infiniband_listing_without_uverbs_is_not_read_as_the_device_passed():
    """Mellanox/k8s-rdma-shared-dev-plugin#169 (https://github.com/Mellanox/k8s-rdma-shared-dev-plugin/issues/169): a
    pod whose /dev/infiniband holds rdma_cm and umad only, ib_write_bw finding no device: the uverbs note stays silent,
    perftest's failure stands."""
    said = [f for s in explain(_field("zt010"), host="other", nodes=1) for f in s.findings]
    assert any(f.level == "fail" for f in said) and not any("verbs device file" in f.message for f in said)


def test_a_failure_in_tree_connect_after_the_rings_names_the_ring_without_a_switch():
    """MiaAI-Lab/DeepSeek-v4.1-Flash-DGX-Sparks#3 (https://github.com/MiaAI-Lab/DeepSeek-v4.1-Flash-DGX-Sparks/pull/3):
    four DGX Sparks cabled as a ring, `Connected all rings`, then `unhandled
    system error` at ncclTransportTreeConnect: the tree's edge between non-adjacent nodes has no path."""
    text = _field("wc009")
    said = " ".join(messages(s) for s in explain(text, host="spark", nodes=4))
    assert "ncclTransportTreeConnect" in said and "no direct path" in said and "NCCL_ALGO=Ring" in said
    # two machines: the tree's edges are the ring's, so the note stays silent; and a failure before the rings connected
    assert "no direct path" not in " ".join(messages(s) for s in explain(text, host="spark", nodes=2))
    early = text.replace("NCCL INFO Connected all rings, use ring PXN 0 GDR 0\n", "")
    assert "no direct path" not in " ".join(messages(s) for s in explain(early, host="spark", nodes=4))


def test_ibstat_cut_within_a_two_word_key_is_read_up_to_the_cut():
    """kvcache-ai/Mooncake#1143 (https://github.com/kvcache-ai/Mooncake/issues/1143): an E810's ibstat pasted up to
    `Link l`, cut within `Link layer`; the port block above it reads as it does whole."""
    block = ("CA 'rocep5s0f0'\n\tCA type: \n\tNumber of ports: 1\n\tFirmware version: 1.74\n\tPort 1:\n\t\tState: Active\n"
             "\t\tPhysical state: LinkUp\n\t\tRate: 10\n\t\tBase lid: 1\n\t\tPort GUID: 0x527c6ffffe5a0d41\n")
    section = explain("$ ibstat\n" + block + "\t\tLink l\n", host="other")[0]
    assert section.kind == "ibstat" and section.error is None
    assert "Active/LinkUp at 10 Gb/s" in messages(section) and "cut off inside the last port block" in messages(section)
    assert explain("$ ibstat\n" + block + "\t\tLink l\n\t\tmore words\n", host="other")[0].error  # not the last line


GIDS = """$ show_gids
DEV     PORT    INDEX   GID                                     IPv4            VER     DEV
---     ----    -----   ---                                     ------------    ---     ---
mlx5_0  1       0       fe80:0000:0000:0000:02aa:bbff:fecc:dd01                 v1      net1
mlx5_0  1       1       fe80:0000:0000:0000:02aa:bbff:fecc:dd01                 v2      net1
mlx5_0  1       2       0000:0000:0000:0000:0000:ffff:0a0c:0015 10.12.0.21      v1      net1
mlx5_0  1       3       0000:0000:0000:0000:0000:ffff:0a0c:0015 10.12.0.21      v2      net1
n_gids_found=4
"""


def test_a_gid_index_the_paste_pins_to_a_roce_v1_gid_is_a_warn_naming_the_v2_index():
    """NVIDIA/nccl#1510 (https://github.com/NVIDIA/nccl/issues/1510): both nodes export NCCL_IB_GID_INDEX=4 and the
    pasted show_gids shows index 4 is 10.12.0.21's RoCE v1 GID, index 5 its v2 one."""
    said = " ".join(messages(s, "warn") for s in explain(_field("xd003"), host="other", nodes=2))
    assert "NCCL_IB_GID_INDEX=4" in said and "RoCE v1 GID" in said and "is index 5" in said
    link_local = " ".join(messages(s, "warn") for s in explain("export NCCL_IB_GID_INDEX=0\n\n" + GIDS, host="other"))
    assert "link-local (fe80) GID" in link_local and "is index 3" in link_local


def test_the_pinned_gid_index_note_is_silent_on_the_v2_index_and_without_a_pin():
    """The same table with NCCL_IB_GID_INDEX=3 (its RoCE v2 IPv4 GID), and with no index set in the paste."""
    for text in ("export NCCL_IB_GID_INDEX=3\n\n" + GIDS, GIDS):
        assert "This paste sets NCCL_IB_GID_INDEX" not in " ".join(messages(s) for s in explain(text, host="other"))


def test_nixlbench_results_are_read_as_a_transfer_benchmark_whose_small_blocks_are_latency_bound():
    """ai-dynamo/nixl PR 115 (https://github.com/ai-dynamo/nixl/pull/115): two GPUs of one node over UCX, bandwidth
    doubling with the block; PR 2276 (https://github.com/ai-dynamo/nixl/pull/2276): READ over TCPXO at 4-16 KiB."""
    for stem in ("xl003", "xl014"):
        sections = explain(_field(stem), host="other")
        said = " ".join(messages(s) for s in sections)
        assert "nixlbench's results table" in said and "latency" in said
        assert all(f.level in ("ok", "info") for s in sections for f in s.findings)


def test_an_infiniband_portinfo_says_its_active_width_and_lane_speed():
    """tuananh0788/Exadata#2 (https://github.com/tuananh0788/Exadata/issues/2): ibportstate on a QDR switch, ports
    Active at 4X and 10.0 Gbps per lane on both ends; a port at 1X of 4X reads with its own figures."""
    said = " ".join(messages(s) for s in explain(_field("zi014"), host="other"))
    assert "runs at 4X width and 10.0 Gbps per lane" in said
    narrow = ("LinkWidthSupported:..............1X or 4X\nLinkWidthActive:.................1X\n"
              "LinkSpeedActive:.................25.78125 Gbps\n")
    [section] = explain(narrow, host="other")
    assert levels(section) == ["info"] and "runs at 1X width and 25.78125 Gbps per lane" in messages(section)
