"""Session 41, builder H (issue 27): link, NIC, RDMA and NCCL readings of field pastes explain got wrong; each rule on
a real output (the field corpus's file, or its lines quoted), with the source named, and a neighbouring output on
which the rule stays silent."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain

FIELD = Path(__file__).parent / "fixtures" / "field"


def _read(stem: str) -> str:
    return next(FIELD.glob(f"*/{stem}_*.txt")).read_text()


def _said(text: str, **context) -> list[tuple[str, str]]:
    return [(f.level, f.message) for s in explain(text, **context) for f in s.findings]


# ---------------------------------------------------------------- NCCL_IB_DISABLE=1 pointed at an RDMA NIC's interface

def test_ib_disabled_in_a_multinode_launch_over_an_rdma_nic_name_warns():
    """https://github.com/pytorch/pytorch/issues/131781 (corpus zz010): `NCCL_IB_DISABLE=1 ...
    NCCL_SOCKET_IFNAME=enp162s0f1np1 torchrun --nnodes 2 ...`: NCCL forced onto TCP over a port named like a ConnectX
    port; no NCCL log in the paste to show what it did. Source of the setting's meaning:
    https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html (NCCL_IB_DISABLE)."""
    said = _said(_read("zz010"), host="other", nodes=2)
    warns = [m for lv, m in said if lv == "warn"]
    assert len(warns) == 1 and "NCCL_IB_DISABLE=1 with NCCL_SOCKET_IFNAME=enp162s0f1np1" in warns[0]
    assert "rdma link" in warns[0] and "TCP sockets" in warns[0]
    # the command alone, no context given: --nnodes 2 says it spans machines
    cmd = ("$ NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=ib0 torchrun --nnodes 2 --nproc_per_node 8 train.py\n"
           "[W801 04:55:17.113400444 socket.cpp:697] [c10d] The client socket has failed to connect to [n1]:29500 "
           "(errno: 22 - Invalid argument).\n")
    assert any(lv == "warn" and "NCCL_SOCKET_IFNAME=ib0" in m for lv, m in _said(cmd))


def test_ib_disabled_rule_is_silent_on_plain_ethernet_one_node_sparks_and_logs():
    """Silent where the interface is plain Ethernet (eno2, eth0: TCP may be all there is), on one machine, on a
    Spark (the course's own policy for its QSFP twins), and where an NCCL log is in the paste (corpus ze017,
    NVIDIA/nccl-tests#284: its judge reads the transport NCCL chose)."""
    cmd = ("$ NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME={ifname} torchrun --nnodes {n} --nproc_per_node 8 train.py\n"
           "[W801 04:55:17.113400444 socket.cpp:697] [c10d] The client socket has failed to connect to [n1]:29500 "
           "(errno: 22 - Invalid argument).\n")
    for ifname, n, host in (("eno2", 2, "other"), ("enp162s0f1np1", 1, None), ("enp1s0f0np0", 2, "spark")):
        said = _said(cmd.format(ifname=ifname, n=n), host=host)
        assert not any("NCCL_IB_DISABLE=1 with NCCL_SOCKET_IFNAME" in m for _, m in said), ifname
    assert not any("NCCL_IB_DISABLE=1 with NCCL_SOCKET_IFNAME" in m for _, m in _said(_read("ze017"), host="other",
                                                                                       nodes=2))


# ---------------------------------------------------------------- NCCL_IB_HCA set to one Spark twin, no NCCL log

_SERVE = ("```bash\n"
          "export NCCL_IB_HCA={hca}\n"
          "export NCCL_SOCKET_IFNAME=enp1s0f0np0\n"
          "export NCCL_DEBUG=WARN\n\n"
          "vllm serve nvidia/MiniMax-M2.7-NVFP4 \\\n"
          "  --tensor-parallel-size 2 \\\n"
          "  --nnodes 2 \\\n"
          "  --node-rank 0 \\\n"
          "  --master-addr 169.254.205.76 \\\n"
          "  --port 8888\n"
          "```\n")


def test_one_spark_twin_exported_as_nccl_ib_hca_warns_half_the_port():
    """https://github.com/vllm-project/vllm/issues/41725 (corpus ze001): two Sparks, `export NCCL_IB_HCA=rocep1s0f0`
    before `vllm serve ... --nnodes 2`: one twin is one PCIe x4 half of QSFP port 0, so NCCL gets about half of the
    cable (the reading NVIDIA/dgx-spark-playbooks PR #103 measured: 23.74 GB/s busbw with both twins listed)."""
    said = _said(_read("ze001"), host="spark", nodes=2)
    warns = [m for lv, m in said if lv == "warn" and "NCCL_IB_HCA=rocep1s0f0 names one RoCE device" in m]
    assert len(warns) == 1 and "NCCL_IB_HCA=rocep1s0f0,roceP2p1s0f0" in warns[0] and "half" in warns[0]
    # the quoted lines, no --host: the Spark device names say it
    assert any(lv == "warn" and "one twin of QSFP port 1" in m
               for lv, m in _said(_SERVE.format(hca="rocep1s0f1").replace("enp1s0f0np0", "enp1s0f1np1")))


def test_one_twin_rule_is_silent_with_both_twins_mlx5_names_other_hosts_or_an_nccl_log():
    """Both twins listed, the mlx5_N naming (which port is not in the name), a host not a Spark, and a paste whose
    NCCL log shows the devices NCCL used (corpus we011: its judge says `NCCL uses only one HCA`; no second warning)."""
    for hca, host in (("rocep1s0f0,roceP2p1s0f0", "spark"), ("mlx5_1", "spark"), ("rocep1s0f0", "other")):
        said = _said(_SERVE.format(hca=hca), host=host, nodes=2)
        assert not any("names one RoCE device" in m for _, m in said), hca
    said = _said(_read("we011"), host="spark", nodes=2)
    assert not any("names one RoCE device" in m for _, m in said)
    assert any(lv == "warn" and "NCCL uses only one HCA" in m for lv, m in said)


# ---------------------------------------------------------------- mixed channels with NET/Socket where no RDMA stack exists

def test_socket_between_machines_without_libibverbs_or_rdma_ports_is_a_note():
    """https://github.com/magnate3/linux-riscv-dev/blob/149cef22e6098bbd3553847a3fbb97044ec42431/nccl/pytorch-multi-GPU-training.md
    (pending wf015): NCCL 2.7.8, every rank `Failed to open libibverbs.so[.1]`, NET/Socket on eno2 between two
    machines, P2P/SHM inside each, training runs: TCP is what these machines have; a note, not a warning."""
    sections = explain(_read("wf015"), host="other", nodes=2)
    said = [(f.level, f.message) for s in sections for f in s.findings]
    mixed = [lv for lv, m in said if m.startswith("Channels used several transports (NET/Socket")]
    assert mixed == ["info"] and "warn" not in {lv for lv, _ in said}


def test_socket_between_machines_with_an_ipoib_port_stays_a_warning():
    """NVIDIA/nccl#952 (corpus a038): NET/Socket channels on a host whose interfaces include IPoIB (RDMA hardware
    there, unused): still a warning; and the same wf015 lines without the libibverbs failure stay a warning."""
    said = _said(_read("a038"), host="other", nodes=2)
    assert [lv for lv, m in said if m.startswith("Channels used several transports (NET/Socket")] == ["warn"]
    text = "\n".join(ln for ln in _read("wf015").splitlines() if "libibverbs" not in ln)
    said = _said(text, host="other", nodes=2)
    assert [lv for lv, m in said if m.startswith("Channels used several transports (NET/Socket")] == ["warn"]


# ---------------------------------------------------------------- iblinkinfo's link lines

def test_iblinkinfo_links_up_are_read_with_their_lane_rate():
    """https://github.com/NVIDIA/nccl-tests/issues/71 (corpus s009): iblinkinfo of four V100 hosts' HCAs at
    `4X 25.78125 Gbps Active/ LinkUp` (EDR) into an MQM8700 HDR switch: every link up, a note naming the lane rate;
    format: https://linux.die.net/man/8/iblinkinfo."""
    said = _said(_read("s009"), host="other", nodes=4)
    notes = [m for lv, m in said if lv == "info" and m.startswith("iblinkinfo lists")]
    assert len(notes) == 1 and "runs 4X at 25.78125 Gb/s a lane" in notes[0] and "25.78125 EDR" in notes[0]
    assert {lv for lv, _ in said} <= {"ok", "info"}


def test_iblinkinfo_note_is_silent_on_other_ib_outputs():
    """ibstatus of an EDR port (pending wj022's block, NVIDIA/nccl#307) and a port not up: not iblinkinfo's shape."""
    ibstatus = ("$ ibstatus\nInfiniband device 'mlx5_0' port 1 status:\n\tdefault gid:\t fe80:0000:0000:0000:b859:9f03:"
                "00d4:fe72\n\tbase lid:\t 0x2ed\n\tsm lid:\t\t 0x10d\n\tstate:\t\t 4: ACTIVE\n\tphys state:\t 5: LinkUp\n"
                "\trate:\t\t 100 Gb/sec (4X EDR)\n\tlink_layer:\t InfiniBand\n")
    down = "           3   17[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )\n"
    for text in (ibstatus, down):
        assert not any(m.startswith("iblinkinfo lists") for _, m in _said(text, host="other"))


# ---------------------------------------------------------------- amd-smi's AI NIC report: a port with no carrier

def test_amd_smi_nic_port_without_carrier_warns_naming_it():
    """https://github.com/ROCm/rocm-systems/pull/3654 (corpus o019): amd-smi's AI NIC entry (ionic), netdev enp229s0
    with `CARRIER: 0`, `LINK_STATE: down`, `LINK_SPEED: 0 Mb/s`: no link on that port."""
    said = _said(_read("o019"), host="other", nodes=1)
    warns = [m for lv, m in said if lv == "warn"]
    assert len(warns) == 1 and "enp229s0" in warns[0] and "no carrier" in warns[0]


def test_amd_smi_nic_port_with_carrier_is_not_warned():
    """The same entry with its link up (`CARRIER: 1`, `LINK_STATE: up`, 400000 Mb/s): no warning."""
    text = _read("o019").replace("CARRIER: 0", "CARRIER: 1").replace("LINK_STATE: down", "LINK_STATE: up")
    text = text.replace("LINK_SPEED: 0 Mb/s", "LINK_SPEED: 400000 Mb/s")
    assert not any("no carrier" in m for _, m in _said(text, host="other", nodes=1))


# ---------------------------------------------------------------- a device at x8 under a port that can do x8 at most

def test_width_below_the_card_under_a_port_no_wider_is_the_slot_not_a_fault():
    """https://github.com/magnate3/linux-riscv-dev/blob/a518471825322fa5cb85895f4539b80527ba834a/exercises/pci-read-write/README.md
    (pending ws007): a Hi1822 NIC's upstream port 03:00.0 (LnkCap x16) runs x8 under root port 00:0c.0, whose
    `Bus: primary=00, secondary=03` line makes it the port above and whose LnkCap is x8: the slot's width, a note."""
    said = _said(_read("ws007"), host="other", nodes=1)
    notes = [(lv, m) for lv, m in said if "a port that can do x8 at most" in m]
    assert [lv for lv, _ in notes] == ["info"] and "under 00:0c.0" in notes[0][1] and "not a fault" in notes[0][1]
    assert "warn" not in {lv for lv, _ in said}


def test_width_below_the_card_stays_a_warning_where_the_port_above_is_wider_or_absent():
    """The same paste with the root port able to do x16 (then x8 is a fault of the link), and the card's block alone
    (no port above in the paste): the warning stays."""
    text = _read("ws007")
    wider = text.replace("Speed 16GT/s, Width x8, ASPM not supported", "Speed 16GT/s, Width x16, ASPM not supported")
    assert wider != text
    said = _said(wider, host="other", nodes=1)
    assert any(lv == "warn" and "link trained at x8, the card can do x16" in m for lv, m in said)
    alone = text[:text.index("[root@centos7 pci_test2]# lspci -vvs 0000:00:0c.0")]
    said = _said(alone, host="other", nodes=1)
    assert any(lv == "warn" and "link trained at x8, the card can do x16" in m for lv, m in said)


def test_exclusion_lists_are_not_read_as_the_devices_named():
    """NCCL's `^` prefix excludes the names after it (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html,
    NCCL_SOCKET_IFNAME and NCCL_IB_HCA): `^ib0` keeps sockets off IPoIB, `^rocep1s0f0` leaves every other device."""
    cmd = ("$ NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=^ib0 torchrun --nnodes 2 --nproc_per_node 8 train.py\n"
           "[W801 04:55:17.113400444 socket.cpp:697] [c10d] The client socket has failed to connect to [n1]:29500 "
           "(errno: 22 - Invalid argument).\n")
    assert not any("NCCL_IB_DISABLE=1 with NCCL_SOCKET_IFNAME" in m for _, m in _said(cmd, host="other"))
    said = _said(_SERVE.format(hca="^rocep1s0f0"), host="spark", nodes=2)
    assert not any("names one RoCE device" in m for _, m in said)


# ---------------------------------------------------------------- NCCL's `=== System : maxBw M totalBw T ===`

def test_system_line_with_total_below_max_is_named_with_what_decides():
    """https://github.com/getainode/ainode/blob/d278e3a7b3d2fc85752c88af70f241b452f887e7/ops/runbooks/2026-04-18-v0.4.9-verification.md
    (corpus zh004): two Sparks, NCCL 2.28.3, `=== System : maxBw 12.0 totalBw 3.0 ===`, then a hang: the note names
    totalBw and, on a Spark, that NCCL reads GB10's PCIe entry that low; the hang stays the failure. Bounds' meaning:
    NCCL's graph/search.cc (ncclTopoSearchInit)."""
    said = _said(_read("zh004"), host="spark", nodes=2)
    notes = [(lv, m) for lv, m in said if "totalBw" in m and "topology search" in m]
    assert [lv for lv, _ in notes] == ["info"] and "3.0 GB/s" in notes[0][1] and "GB10" in notes[0][1]
    assert "fail" in {lv for lv, _ in said}
    other = _said("h1:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
                  "h1:1:1 [0] NCCL INFO === System : maxBw 24.0 totalBw 6.0 ===\n", host="other", nodes=2)
    assert any("nvidia-smi -q -d PCIE" in m for _, m in other)


def test_system_line_is_silent_where_the_gpu_link_is_not_the_lower():
    """NVIDIA/nccl#901's dump (pending xk014: `maxBw 160.0 totalBw 160.0`, NVSwitch) and NVIDIA/nccl#1053's (pending
    xd014: `maxBw 1.2 totalBw 264.0`): the GPU's own link is no narrower than its paths, nothing to say."""
    for stem in ("xk014", "xd014"):
        assert not any("topology search (" in m for _, m in _said(_read(stem), host="other", nodes=2)), stem


# ---------------------------------------------------------------- sparkrun's image pipeline over the IB link failing

def test_sparkrun_pipeline_to_an_ib_transfer_address_failing_names_the_link():
    """https://github.com/spark-arena/sparkrun/issues/67 (corpus zf015): sparkrun run from a machine outside the
    Sparks' link: `Using IB network for transfers`, then `Pipeline <- 192.168.200.12 FAILED rc=255 (10.0s): ssh:`."""
    said = _said(_read("zf015"), host="spark", nodes=2)
    fails = [m for lv, m in said if lv == "fail"]
    assert len(fails) == 1 and "192.168.200.12" in fails[0] and "management network" in fails[0]


def test_sparkrun_pipeline_failure_without_ib_transfer_is_not_read_as_the_link():
    """The same failed pipeline line where sparkrun transfers over the hosts' own addresses (no `IB network for
    transfers` line): this entry does not apply (which network failed is not the IB link)."""
    text = "\n".join(ln for ln in _read("zf015").splitlines() if "IB transfer" not in ln and "IB network" not in ln)
    assert not any("Using IB network for transfers" in m for _, m in _said(text, host="spark", nodes=2))


# ---------------------------------------------------------------- a queue pair that could not reach RTR

def test_failed_to_modify_qp_to_rtr_is_a_warning_with_its_causes():
    """https://github.com/kvcache-ai/Mooncake/issues/1766 (corpus u014): the issue's title quotes `Failed to modify
    QP to RTR` over an ibv_devinfo whose port is ACTIVE: the connection step, not the link; GID index and MTU
    named. Transition's meaning: https://man7.org/linux/man-pages/man3/ibv_modify_qp.3.html."""
    said = _said(_read("u014"), host="other", nodes=6)
    warns = [m for lv, m in said if lv == "warn"]
    assert len(warns) == 1 and "ready-to-receive" in warns[0] and "GID index" in warns[0]
    assert any(lv == "ok" and "Active" in m for lv, m in said)


def test_rtr_warning_gives_way_to_the_entries_that_fail_it():
    """Where the line carries ETIMEDOUT (corpus zn017, uccl#641: `Failed to modify QP to RTR: Connection timed out`),
    the table's failure says it and this warning is not added; perftest's own reader reads its line (corpus w019)."""
    for stem in ("zn017", "w019"):
        said = _said(_read(stem), host="other")
        assert "fail" in {lv for lv, _ in said} and not any("could not be moved to ready-to-receive" in m
                                                             for _, m in said), stem


# ---------------------------------------------------------------- two link layers on the ports of one card

def test_one_cards_ports_on_two_link_layers_warn():
    """https://github.com/NVIDIA/daqiri/blob/1134167e4b1d3c6869778f28599d31e8a7e84151/docs/tutorials/system_configuration.md
    (corpus w012): a ConnectX-7 (one sys_image_guid 48b0:2d03:00aa:0001) with mlx5_0 Ethernet and mlx5_1
    InfiniBand, both ACTIVE: one card's ports set apart, a warning with mlxconfig's LINK_TYPE fix."""
    said = _said(_read("w012"), host="other", nodes=1)
    warns = [m for lv, m in said if lv == "warn"]
    assert len(warns) == 1 and "ports of one card (mlx5_0, mlx5_1" in warns[0] and "LINK_TYPE_P" in warns[0]


def test_two_cards_on_two_link_layers_stay_a_note():
    """Corpus t017 (deepseek-ai/DeepEP#223: a CX-6 Dx on Ethernet, a CX-6 on InfiniBand, different system image
    GUIDs) and pending ws010 (a CX-6 on HDR InfiniBand, a CX-5 on RoCE): a host on two networks, a note."""
    for stem in ("t017", "ws010"):
        said = _said(_read(stem), host="other", nodes=1)
        assert [lv for lv, m in said if m.startswith("The ports run two link layers")] == ["info"], stem
