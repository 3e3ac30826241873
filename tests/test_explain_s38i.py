"""Session 38, helper i (issue 27): NCCL, RDMA, nccl-tests and topology readings the blind batches wg and wh found
explain getting wrong; each on a real output (the field corpus's file, or its lines quoted), with the source named,
and a neighbouring output on which the rule stays silent."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import levels, messages

PENDING = Path(__file__).parent / "fixtures" / "field" / "pending"


def _read(stem: str) -> str:
    return next(PENDING.glob(f"{stem}_*.txt")).read_text()


def test_a_communicator_used_after_a_failed_op_is_a_failure_whose_first_error_is_not_in_the_excerpt():
    """https://github.com/NVIDIA/TensorRT-LLM/issues/1039 (wh001): `Attempt to use communicator before the previous
    operation returned ncclSuccess` follows an earlier failure the excerpt does not show."""
    [s] = explain(_read("wh001"), host="other", nodes=1)
    fails = messages(s, "fail")
    assert "fail" in levels(s) and "earlier NCCL call" in fails
    assert "not shown in this excerpt" in fails and "The earlier WARN in this paste" not in fails


def test_a_communicator_used_after_a_failed_op_names_the_earlier_warn_where_the_paste_shows_it():
    """NCCL's init.cc ncclCommEnsureReady: the earlier WARN (here a completion error, NVIDIA/nccl#1405's shape) is the
    one to follow."""
    text = ("h:1:2 [0] transport/net_ib.cc:100 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with error 12, "
            "opcode 0, len 0, vendor err 129\n"
            "h:1:1 [0] init.cc:303 NCCL WARN Attempt to use communicator before the previous operation returned "
            "ncclSuccess\n")
    said = messages(explain(text, host="other")[0], "fail")
    assert "The earlier WARN in this paste (`NET/IB : Got completion from peer" in said
    assert "not shown in this excerpt" not in said


def test_one_machine_with_no_ib_device_says_so_plainly_and_stays_info():
    """https://github.com/NVIDIA/Megatron-LM/issues/998 (wg009): `NET/IB : No device found` and NET/Socket on eth0
    on a one-node job: harmless there."""
    [s] = explain(_read("wg009"), host="other", nodes=1)
    assert set(levels(s)) <= {"ok", "info"}
    assert "NCCL found no IB or RoCE device (`NET/IB : No device found`)" in messages(s)
    assert "on one machine" in messages(s)


def test_net_socket_line_beside_net_ib_is_the_bootstrap_and_gdr_is_not_shown_without_channels():
    """https://github.com/horovod/horovod/issues/1523 (wh014): NCCL 2.4.7 prints `NET/Socket : Using [0]ib0` and
    `NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0`: the data goes over IB; `/GDRDMA` shows on channel lines only."""
    [s] = explain(_read("wh014"), host="other", nodes=2)
    said = messages(s)
    assert set(levels(s)) <= {"ok", "info"}
    assert "ib0 names the TCP interface NCCL also set up (for its bootstrap and out-of-band exchanges)" in said
    assert "GPUDirect RDMA (`/GDRDMA` on them) is not shown either" in said


def test_gdr_lines_of_the_log_keep_the_not_shown_note_silent():
    """NCCL prints `GPU Direct RDMA Enabled for HCA 0 'mlx5_0'` (NCCL 2.x net_ib): then GDR is shown."""
    text = ("h1:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:192.168.11.1<0>\n"
            "h1:1:1 [0] NCCL INFO GPU Direct RDMA Enabled for HCA 0 'mlx5_0'\n")
    assert "is not shown either" not in messages(explain(text, host="other", nodes=2)[0])


def test_a_topology_with_a_nic_behind_each_gpus_switch_is_said_healthy_and_a_cut_row_has_no_nearest_nic():
    """https://github.com/NVIDIA/nccl/issues/2157 (wh011): GPU0/1 PXB to NIC5-8, GPU2/3 PXB to NIC1-4; the paste
    stops inside GPU4's row, whose nearest NIC is then not known."""
    [s] = explain(_read("wh011"), host="other", nodes=1)
    said = messages(s)
    assert set(levels(s)) <= {"ok", "info"}
    assert "Every GPU shown has a NIC behind its own PCIe switch" in said and "GPU4 NIC0 (SYS)" not in said
    assert "GPU4: the row is cut before its NICs end" in said


def test_a_topology_whose_nearest_nic_is_node_is_not_said_healthy():
    """Pod1 of https://github.com/NVIDIA/nccl/issues/719's shape: mlx5_2 at NODE is the nearest NIC."""
    text = ("\tGPU0\tGPU1\tmlx5_0\tmlx5_1\tmlx5_2\tCPU Affinity\tNUMA Affinity\n"
            "GPU0\t X \tNV12\tSYS\tSYS\tNODE\t64-127,192-255\t1\n"
            "GPU1\tNV12\t X \tSYS\tSYS\tNODE\t64-127,192-255\t1\n"
            "mlx5_0\tSYS\tSYS\t X \tNODE\tSYS\n"
            "mlx5_1\tSYS\tSYS\tNODE\t X \tSYS\n"
            "mlx5_2\tNODE\tNODE\tSYS\tSYS\t X\n")
    said = messages(explain(text, kind="nvidia-smi-topo", host="other")[0])
    assert "GPU0 mlx5_2 (NODE)" in said and "Every GPU shown" not in said


def test_a_slice_of_an_all_reduce_table_gives_its_rank_count_from_busbw_over_algbw():
    """https://github.com/NVIDIA/nccl/issues/527 (wh022): 0.62 / 0.32 at 131072 B is 2(n-1)/n with n about 32; the
    printed rounding (two decimals) allows 19 to 126."""
    [s] = explain(_read("wh022"), host="other", nodes=4)
    assert set(levels(s)) <= {"ok", "info"}
    assert "busbw is 1.94 x algbw at 131072 B" in messages(s) and "19 to 126 ranks" in messages(s)


def test_a_two_rank_slice_says_no_rank_count():
    """Two ranks: all-reduce's factor is 2(2-1)/2 = 1, as broadcast's: nothing to infer (nccl-tests
    doc/PERFORMANCE.md)."""
    text = ("    33554432       8388608     float     sum      -1   1523.1   22.03   22.03      0   1520.2   22.07   "
            "22.07      0\n"
            "    67108864      16777216     float     sum      -1   3021.5   22.21   22.21      0   3019.8   22.22   "
            "22.22      0\n")
    assert "x algbw at" not in messages(explain(text, kind="nccl-tests", host="other")[0])


def test_a_hang_the_sender_tells_over_nccl_lines_with_no_error_is_a_failure_whose_cause_is_not_shown():
    """https://github.com/vllm-project/vllm/issues/5484 (xp008): 'Testing 2 GPUs on 1 node hangs after this:' above
    the start of NCCL's init."""
    text = next(PENDING.glob("xp008_*.txt")).read_text()
    [s] = [x for x in explain(text, host="other", nodes=1) if x.kind == "nccl-log"]
    said = messages(s, "fail")
    assert "fail" in levels(s) and "The paste says the run hangs" in said and "cannot tell why" in said
    assert "NCCL_P2P_DISABLE=1 tests the GPU-to-GPU path" in said
    # the same lines without the sentence: no end shown, nothing failed
    [quiet] = [x for x in explain(text.split("\n", 1)[1], host="other", nodes=1) if x.kind == "nccl-log"]
    assert "fail" not in levels(quiet) and "says the run hangs" not in messages(quiet)


def test_a_grep_output_run_into_its_command_line_is_split_and_its_gid_table_read():
    """Juniper's JVD appendix (xp020): `ibv_devinfo -vvv -d mlx5_6 | grep GID GID[ 0]: ...` on one line, the page's
    copy without line breaks; grep prints one line per GID, and with no port state shown the table is still read."""
    [s] = explain(next(PENDING.glob("xp020_*.txt")).read_text(), host="other", nodes=1)
    assert s.kind == "ibv-devinfo" and not s.error and s.command.endswith("| grep GID")
    assert "RoCE v2 GID index 3 carries 10.200.1.10" in messages(s)


def test_a_grep_command_with_its_output_below_is_not_split():
    """The same command, its output on lines of its own (the shape rdma-core prints): read as before."""
    text = ("user@h:~$ ibv_devinfo -v -d mlx5_0 | grep GID\n"
            "\t\t\tGID[  0]:\t\tfe80:0000:0000:0000:0ac0:ebff:fe1a:2b3c, RoCE v1\n"
            "\t\t\tGID[  1]:\t\tfe80::ac0:ebff:fe1a:2b3c, RoCE v2\n"
            "\t\t\tGID[  2]:\t\t0000:0000:0000:0000:0000:ffff:c0a8:640a, RoCE v1\n"
            "\t\t\tGID[  3]:\t\t::ffff:192.168.100.10, RoCE v2\n")
    [s] = explain(text, host="other")
    assert s.command == "ibv_devinfo -v -d mlx5_0 | grep GID" and "RoCE v2 GID index 3 carries 192.168.100.10" in messages(s)


def test_ibv_reg_mr_bad_address_is_the_gpudirect_path_not_the_memlock_limit():
    """Mellanox/nv_peer_memory#115 (NCCL 2.18 on a CX-7: `ibv_reg_mr_iova2 failed with error Bad address`, ib_write_bw
    fine) and flagos-ai/FlagCX#61 (a 3090): EFAULT pinning GPU memory; the locked-memory limit gives ENOMEM instead."""
    bad = ("h1:1:2 [0] misc/ibvwrap.cc:200 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Bad address\n"
           "h1:1:2 [0] NCCL INFO transport/net_ib.cc:520 -> 2\n")
    said = messages(explain(bad, host="other", nodes=2)[0], "fail")
    assert "nvidia-peermem" in said and "not the locked-memory limit" in said
    nomem = bad.replace("Bad address", "Cannot allocate memory")
    said = messages(explain(nomem, host="other", nodes=2)[0], "fail")
    assert "memlock" in said and "nvidia-peermem" not in said


def test_rdma_cms_default_roce_mode_v1_is_a_warning_and_v2_the_default():
    """The kernel's configfs rdma_cm (`/sys/kernel/config/rdma_cm/<dev>/ports/<n>/default_roce_mode`), as in the RHEL
    RoCE guide's shape (pending xi018): v1 is raw Ethernet, one L2 segment, for RDMA CM's connections only."""
    text = ("$ cat /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode\nRoCE v2\n"
            "root@h:~# echo \"RoCE v1\" > /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode\n"
            "$ cat /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode\nRoCE v1\n")
    first, change, last = explain(text, host="other")
    assert first.kind == last.kind == "roce-mode" and change.kind != "roce-mode"
    assert levels(first) == ["info"] and "mlx5_0 port 1 is RoCE v2" in messages(first)
    assert levels(last) == ["warn"] and "RoCE v1" in messages(last) and "not routable between subnets" in messages(last)
    [cma] = explain("$ cma_roce_mode -d mlx5_1 -p 1\nIB/RoCE v1\n", host="other")
    assert cma.kind == "roce-mode" and levels(cma) == ["warn"] and "mlx5_1" in messages(cma)


def test_a_scripts_echo_heading_between_outputs_is_a_note_and_the_output_above_it_still_reads():
    """openucx/ucx#11048 (pending xi006): a script's transcript, `rdma link show` then `echo -e "\\n${BYellow}
    Infiniband${NC}"` then `ibstat`: the echo is a command (its words come back), not output of `rdma link`."""
    text = next(PENDING.glob("xi006_*.txt")).read_text()
    sections = explain(text, host="other", nodes=2)
    link = next(s for s in sections if s.kind == "rdma-link")
    assert not link.error and "bnxt_re1/1 DOWN on enp194s0f1np1" in messages(link)
    echo = next(s for s in sections if (s.command or "").startswith("echo -e"))
    assert levels(echo) == ["info"] and "prints its own words (`Infiniband`)" in messages(echo)
    assert any(s.kind == "ibstat" and not s.error for s in sections)


def test_bare_gids_of_a_glob_give_indices_0_and_1_only():
    """Pending zt017 (an rxe device): `cat /sys/class/infiniband/*/ports/1/gids/*` prints bare GIDs in the glob's
    text order (0, 1, 10, 100...): the first two are indices 0 and 1; an IPv4-mapped one later has no sure index."""
    [s] = explain(next(PENDING.glob("zt017_*.txt")).read_text(), host="other", nodes=1)
    assert s.kind == "ib-sysfs" and not s.error and "GID 1, IPv4 1.1.1.2" in messages(s)
    later = ("$ cat /sys/class/infiniband/mlx5_0/ports/1/gids/*\nfe80:0000:0000:0000:76e6:e2ff:fe05:0c78\n"
             "fe80:0000:0000:0000:76e6:e2ff:fe05:0c78\n0000:0000:0000:0000:0000:ffff:0101:0102\n")
    [s] = explain(later, host="other", nodes=1)
    assert "GID 2" not in messages(s) and "1.1.1.2" not in messages(s)  # its index (2 or 10...) is not known
    assert "text order (0, 1, 10, 100...)" in (s.error or "")


def test_an_unread_programs_output_that_ends_at_a_bare_message_prefix_is_said_cut():
    """openucx/ucx#978 (pending xi016): ucp_hello_world's output ends at `libibverbs:`, its message cut off; a
    program's output whose last line says something stays an unknown output (the error asking for its kind)."""
    text = "$ ./a.out -n peer-host\nINFO: UCP_HELLO_WORLD mode = 0 server = peer-host port = 13337\nlibibverbs:\n"
    [s] = explain(text, host="other")
    assert not s.error and levels(s) == ["info"] and "ends at `libibverbs:`" in messages(s)
    [whole] = explain(text.replace("libibverbs:\n", "libibverbs: Warning: couldn't load driver 'mlx4'\n"), host="other")
    assert "ends at" not in messages(whole)
