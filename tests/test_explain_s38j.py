"""Session 38, helper j (issue 27): NCCL, nccl-tests, RDMA and link readings the blind batches wi and wj found explain
getting wrong; each on a real output (the field corpus's file, or its lines quoted), with the source named, and a
neighbouring output on which the rule stays silent."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import levels, messages

FIELD = Path(__file__).parent / "fixtures" / "field"


def _read(stem: str) -> str:
    return next(FIELD.glob(f"*/{stem}_*.txt")).read_text()


def test_p2p_level_loc_set_by_the_environment_is_a_choice_and_its_shm_channels_are_info():
    """https://github.com/ParCIS/Chimera/issues/2 (wi003): NCCL_P2P_LEVEL=LOC from the environment, every channel
    `via SHM/direct/direct`: slower, but a setting, not a fault."""
    [s] = explain(_read("wi003"), host="other", nodes=1)
    assert set(levels(s)) <= {"ok", "info"}
    said = messages(s, "info")
    assert "P2P between GPUs is off (NCCL_P2P_LEVEL=LOC" in said and "a setting, not a fault" in said
    assert "host shared memory (SHM)" in said


def test_shm_channels_without_a_p2p_setting_stay_a_warning():
    """NCCL's transport/shm.cc channel lines (`via SHM/direct/direct`) on a host not a Spark with no P2P setting in
    the log: NCCL found no peer-to-peer path, which is worth a look (nvidia-smi topo -p2p r) where the paste shows P2P
    should have worked (here NCCL's dump of an NVLink); without such a sign a note (the oracle's session-39 revision:
    pending we021, xn018)."""
    text = "".join(f"h:1:2 [{a}] NCCL INFO Channel 0{c} : {a}[{a}] -> {b}[{b}] via SHM/direct/direct\n"
                   for c in (0, 1) for a, b in ((0, 1), (1, 0)))
    [s] = explain(text + "h:1:2 [0] NCCL INFO + NVL[264.0] - GPU/1000\n", host="other", nodes=1)
    assert "host shared memory (SHM)" in messages(s, "warn")
    [s] = explain(text, host="other", nodes=1)
    assert "host shared memory (SHM)" in messages(s, "info") and "warn" not in levels(s)


def test_a_link_local_veth_beside_the_nic_in_the_socket_list_is_a_hedged_warning():
    """https://github.com/NVIDIA/nccl/issues/1499 (wi004): NET/Socket takes eno8303 and vethf4fabc7 (fe80:: only), NET/IB
    finds no device; the excerpt ends before the failure."""
    [s] = explain(_read("wi004"), host="other", nodes=1)
    said = messages(s, "warn")
    assert "vethf4fabc7" in said and "NCCL_SOCKET_IFNAME=eno8303" in said
    assert "does not show that this is what failed" in said
    assert "fail" not in levels(s)


def test_bridges_in_the_socket_list_of_one_process_or_one_host_stay_silent():
    """https://github.com/NVIDIA/nccl/issues/1358 (wa018: one process, `-g 2`, docker bridges and a veth listed) and
    https://github.com/vllm-project/vllm/issues/6370 (a019: one host, lxcbr0 and tailscale0 with IPv4 addresses)."""
    for stem in ("wa018", "a019"):
        [s] = explain(_read(stem), host="other", nodes=1)
        assert "beside" not in messages(s, "warn"), stem
        assert set(levels(s)) <= {"ok", "info"}, stem


def test_a_proxy_connect_failure_inside_a_vllm_log_is_a_failure_that_names_interface_and_firewall_not_one_cause():
    """https://github.com/vllm-project/vllm/issues/798 (wi001): `Proxy Call to rank 7 failed (Connect)` under
    ncclInternalError, on Ray workers of two hosts; NCCL's proxy.cc prints it."""
    [s, *_] = explain(_read("wi001"), host="other", nodes=2)
    said = messages(s, "fail")
    assert "could not connect this rank to rank 7" in said
    assert "NCCL_SOCKET_IFNAME" in said and "firewall" in said and "does not say which" in said


def test_a_single_host_without_ib_says_harmless_and_that_the_excerpt_does_not_show_the_end():
    """https://github.com/vllm-project/vllm/issues/4277 (wj001): NET/IB finds no device, `Using network Socket`, one
    host, the log stops before Init COMPLETE."""
    [s] = explain(_read("wj001"), host="other", nodes=1)
    assert set(levels(s)) <= {"ok", "info"}
    said = messages(s, "info")
    assert "so it is harmless here" in said and "does not show whether that worked" in said


def test_a_spark_fingerprint_reads_free_in_bytes_rdma_link_before_other_output_and_the_idle_port_as_no_cable():
    """https://github.com/ursuciprian (a two-Spark setup's node fingerprint, wi013): `free -b` numbers without the
    command line, `rdma link` with port 1's twins ACTIVE and port 0's DOWN/DISABLED, then an image digest and an
    nvidia-smi CSV: one cable, healthy."""
    s = {x.kind: x for x in explain(_read("wi013"), host="spark", nodes=1)}
    assert set(levels(s["rdma-link"])) <= {"ok", "info"} and s["rdma-link"].error is None
    said = messages(s["rdma-link"])
    assert "Port 0's twins (rocep1s0f0 and roceP2p1s0f0) are down" in said and "one-cable layout" in said
    assert "plain numbers read as bytes, `free -b`" in messages(s["free"]) and "warn" not in levels(s["free"])


def test_rdma_link_with_a_foreign_line_before_its_links_is_still_not_read():
    """The rdma link parser ends at another output only after its last link line; a stray line first is an error."""
    from grader.parsers.rdma import parse_rdma_link
    import pytest
    from grader.parsers import ParseError
    good = "link rocep1s0f1/1 state ACTIVE physical_state LINK_UP netdev enp1s0f1np1\n"
    assert len(parse_rdma_link(good + "sha256:2395615\n")) == 1
    with pytest.raises(ParseError):
        parse_rdma_link("sha256:2395615\n" + good)


def test_a_nic_sys_from_every_gpu_beside_a_pix_one_is_named_as_the_far_one():
    """https://github.com/rapidsai/ucx-py/issues/638 (wi009): GPU0 PIX to mlx5_0 and mlx5_1, SYS to mlx5_2."""
    [s] = explain(_read("wi009"), host="other", nodes=1)
    assert set(levels(s)) <= {"ok", "info"}
    said = messages(s, "info")
    assert "GPU0 mlx5_0 (PIX)" in said and "mlx5_2 is SYS from every GPU" in said


def test_no_far_nic_is_named_when_every_nic_is_near():
    """The same matrix without mlx5_2 (nvidia-smi topo -m, ucx-py#638's rows): no far NIC to name."""
    text = "\n".join(line.rsplit("SYS", 1)[0].rstrip() + ("     0-23,48-71" if line.startswith("GPU0") else "")
                     if line.startswith(("GPU0 ", "mlx5_0", "mlx5_1")) else line
                     for line in _read("wi009").splitlines() if not line.startswith("mlx5_2"))
    text = text.replace("mlx5_1  mlx5_2  CPU", "mlx5_1  CPU")
    [s] = explain(text, host="other", nodes=1)
    assert "GPU0 mlx5_0 (PIX)" in messages(s, "info") and "SYS from every GPU" not in messages(s)


def test_disabled_ports_beside_a_device_cut_before_its_state_are_a_note_not_no_rdma():
    """https://github.com/sgl-project/sglang/issues/6823 (wi011): ibstat, a ConnectX-6 Dx's two ports Down/Disabled,
    then a ConnectX-7 (mlx5_10) cut at `Port 1:`: whether it is Active is not shown."""
    [s] = explain(_read("wi011_ibstat"), host="other", nodes=1)
    assert set(levels(s)) <= {"ok", "info"}
    assert "mlx5_0 port 1: Down/Disabled: turned off" in messages(s) and "(mlx5_10: its state is cut off)" in messages(s)


def test_disabled_ports_in_a_whole_output_with_nothing_active_still_warn():
    """The same two ConnectX-6 Dx blocks alone (sglang#6823's first lines, whole): no port Active at all."""
    text = _read("wi011_ibstat").split("CA 'mlx5_10'")[0]
    [s] = explain(text, host="other", nodes=1)
    assert "no port in this output is Active" in messages(s, "fail") + messages(s, "warn")


def test_a_placeholder_node_guid_is_named_as_unset():
    """https://github.com/openucx/ucx/issues/3787 (wi017): ibv_devinfo, mlx5_3 with node_guid 0000:0000:0000:0001."""
    [s] = explain(_read("wi017"), host="other", nodes=1)
    said = messages(s, "warn")
    assert "mlx5_3: node GUID a placeholder, 0000:0000:0000:0001:" in said
    assert "mlx5_1:" not in said.split("node GUID")[0]  # mlx5_1's GUID 98f2:b3ff:ffd2:d4e1 is a vendor's


def test_a_link_held_at_this_sides_best_advertised_mode_below_the_partners_names_the_advertisement():
    """https://github.com/Lienol/openwrt-package/issues/42 (wi018): an RTL8125 at 1000Mb/s, advertising up to
    1000baseT/Full while it supports and its partner advertises 2500baseT/Full."""
    [s] = explain(_read("wi018"), host="other", nodes=1)
    said = messages(s, "warn")
    assert "does not advertise 2500baseT/Full" in said and "this port supports" in said and "cable" in said


def test_a_link_at_the_best_mode_both_advertise_stays_quiet_about_the_advertisement():
    """The same ethtool with 2500baseT/Full advertised and the link at 2500Mb/s (ethtool(8)): nothing held back."""
    text = _read("wi018").replace("                                1000baseT/Full\n        Advertised pause",
                                  "                                1000baseT/Full\n                                "
                                  "2500baseT/Full\n        Advertised pause").replace("Speed: 1000Mb/s", "Speed: 2500Mb/s")
    assert "2500baseT/Full\n        Advertised pause" in text
    [s] = explain(text, host="other", nodes=1)
    assert "does not advertise" not in messages(s) and "warn" not in levels(s)


def test_an_all_gather_flat_at_a_few_gb_s_between_two_machines_is_a_hedged_socket_class_warning():
    """https://github.com/bottlerocket-os/bottlerocket-core-kit/pull/304 (wi019): all_gather_perf, 16 ranks on two
    8-GPU nodes, busbw 1.6-2.8 GB/s from 32 MiB to 8 GiB, #wrong 0."""
    [s] = explain(_read("wi019"), host="other", nodes=2)
    said = messages(s, "warn")
    assert "TCP socket transport" in said and "The table cannot tell which" in said and "`Using network`" in said
    assert "#wrong 0 in every row" in messages(s, "info") and "fail" not in levels(s)


def test_the_same_table_on_one_machine_says_nothing_of_sockets():
    """The same rows told one machine (`explain --nodes 1`): no network between machines, so no socket reading."""
    [s] = explain(_read("wi019"), host="other", nodes=1)
    assert "TCP socket transport" not in messages(s)


def test_a_test_failure_before_the_table_is_a_failed_run_not_an_error_the_test_survived():
    """https://github.com/NVIDIA/nccl-tests/issues/280 (wj008): `-g 4` dies with `Test NCCL failure common.cu:1005
    'unhandled CUDA error'`, then a `-g 3` table runs; no NCCL_DEBUG lines."""
    [s] = explain(_read("wj008"), host="other", nodes=1)
    said = messages(s, "fail")
    assert "A run before the table failed (the rows are another run's)" in said and "NCCL_DEBUG=INFO" in said
    assert "though the test went on" not in messages(s)


def test_an_error_line_after_the_header_of_a_run_that_measured_stays_a_warning():
    """nccl-tests' rows after an error line of the same run (an MPI transport it tried first): the test went on."""
    lines = _read("wj008").split("Using devices\n")[1].splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith("8 "))
    text = "\n".join(["# Using devices"] + lines[:at] + ["c2211f46f318: Test NCCL failure common.cu:1005 'unhandled "
                                                          "CUDA error'"] + lines[at:]) + "\n"
    [s] = explain(text, host="other", nodes=1)
    assert "though the test went on" in messages(s, "warn") and "fail" not in levels(s)


def test_a_one_node_communicator_names_ncclss_nranks():
    """https://github.com/tinygrad/open-gpu-kernel-modules/issues/35 (wi020): ncclCommInitAll, nranks 2 on one host,
    `Using network Socket`: nothing between machines; the excerpt stops at Init START."""
    [s] = explain(_read("wi020"), host="other", nodes=1)
    assert set(levels(s)) <= {"ok", "info"}
    assert "2 ranks on one node: NCCL's nranks 2" in messages(s) and "cannot tell" in messages(s)


def test_direct_pointer_p2p_channels_are_one_process_and_healthy():
    """https://github.com/NVIDIA/nccl/issues/1773 (wj009): all_reduce_perf -g 8, every ring hop `via P2P/direct
    pointer`, rings connected."""
    [s] = explain(_read("wj009"), host="other", nodes=1)
    assert set(levels(s)) <= {"ok", "info"}
    assert "`P2P/direct pointer`: the GPUs are driven by one process" in messages(s, "info")


def test_p2p_channels_between_processes_do_not_claim_one_process():
    """NCCL's `via P2P/IPC` (GPUs of separate processes, transport/p2p.cc): P2P, but not the one-process path."""
    text = _read("wj009").replace("P2P/direct pointer", "P2P/IPC")
    [s] = explain(text, host="other", nodes=1)
    assert "Every channel went P2P" in messages(s) and "one process" not in messages(s)


def test_an_active_ib_port_gives_its_rate_per_port_in_gb_s():
    """https://github.com/NVIDIA/nccl/issues/307 (wj022): ibstatus, mlx5_0 ACTIVE/LinkUp at 100 Gb/sec (4X EDR)."""
    sections = explain(_read("wj022"), host="other", nodes=2)
    [s] = [x for x in sections if x.kind == "ibstat"]
    assert "at 100 Gb/s (this NIC's negotiated rate, 12.5 GB/s per port at most)" in messages(s, "ok")


def test_nccl_net_forced_to_ib_with_no_device_points_below_nccl():
    """https://github.com/NVIDIA/nccl/issues/958 (wj015): NCCL_NET=Socket (TCP) tried, then NCCL_NET=IB gives
    `NET/IB: No device found`: the RDMA stack (ibv_devinfo) decides."""
    sections = explain(_read("wj015"), host="other", nodes=1)
    said = " ".join(messages(x, "fail") for x in sections)
    assert "NCCL_NET=IB forces NCCL's RDMA transport" in said and "ibv_devinfo" in said and "TCP" in said


def test_no_device_found_without_nccl_net_forced_reads_no_such_failure():
    """https://github.com/vllm-project/vllm/issues/4277 (wj001): `NET/IB : No device found` on one host, NCCL_NET not
    set: the known-error line stays silent."""
    sections = explain(_read("wj001"), host="other", nodes=1)
    assert not any("NCCL_NET=IB forces" in messages(x) for x in sections)


def test_the_ray_worker_error_names_its_node_without_template_brackets():
    """https://github.com/vllm-project/vllm/issues/798 (wi001): `Unhandled error ...: ray::RayWorker.execute_method()
    (pid=1985577, ip=10.58.226.18, ...)`: the node is said once, with no `[` or `]` of the entry's template left."""
    [s, *_] = explain(_read("wi001"), host="other", nodes=2)
    said = messages(s, "fail")
    assert "pid 1985577, on 10.58.226.18)" in said and "it ran on 10.58.226.18: that node's own log" in said
    assert "[, on" not in said and "[; it ran" not in said
