"""Session 38 (builder e): NCCL, RDMA, links and GPU topology of the blind batches wd, we and wf, each rule fed the real
output it was built for (read from the field corpus by path, or its lines quoted) and a neighbouring output on which it
must stay silent."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import levels, messages

FIELD = Path(__file__).resolve().parent / "fixtures" / "field"


def _field(stem: str) -> str:
    [path] = [p for d in ("corpus", "pending") for p in (FIELD / d).glob(f"{stem}*.txt")]
    return path.read_text()


def _one(text: str, **kw):
    sections = [s for s in explain(text, **kw) if s.kind is not None]
    assert len(sections) == 1, [s.kind for s in sections]
    return sections[0]


def test_nccl_2_0_warn_lines_are_read_as_nccl_log():
    """NCCL 2.0 printed no `NCCL` before WARN (https://github.com/NVIDIA/nccl/issues/111): the connect refused is
    read, a socket failure, never an InfiniBand requirement nor a wrong GID."""
    s = _one(_field("wd001_"), host="other", nodes=2)
    assert s.kind == "nccl-log" and "fail" in levels(s)
    said = messages(s, "fail")
    assert "Connection refused" in said and "nothing listened" in said and "no InfiniBand is needed" in said
    assert "GID_INDEX" not in messages(s)  # the error line's GID advice: the WARN read says which call failed


def test_nccl_socket_creation_failure_in_a_container():
    """https://github.com/NVIDIA/nccl-tests/issues/14: NCCL 2.2's `WARN Socket creation failed : Address family not
    supported by protocol` is the failure (no usable interface: --net=host); the libibverbs WARN beside it a note."""
    s = _one(_field("wf001_"), host="other", nodes=1)
    fails = messages(s, "fail")
    assert "Socket creation failed" in fails and "--net=host" in fails and "libibverbs" not in fails
    assert "libibverbs" in messages(s, "info")


def test_a_warn_whose_error_is_passed_up_init_is_the_failure():
    """https://github.com/NVIDIA/nccl/issues/520: `ring 2 does not loop back to start`, then `graph/connect.cc:281
    -> 3` up through init.cc and group.cc: the communicator failed with ncclInternalError (nccl.h: 3), not a
    warning."""
    s = _one(_field("we003_"), host="other", nodes=1)
    fails = messages(s, "fail")
    assert "does not loop back" in fails and "internal error" in fails and "init" in fails
    assert "timeout" not in messages(s).lower()


def test_a_warn_with_no_error_chain_stays_a_warning():
    """The same WARN without NCCL passing an error up (the run went on past it): not raised to a failure."""
    text = ("h:1:2 [0] graph/rings.cc:38 NCCL WARN Error : ring 2 does not loop back to start (7 != 2)\n"
            "h:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n")
    s = _one(text, host="other", nodes=1)
    assert "fail" not in levels(s)


def test_topology_lookup_failure_is_an_internal_error():
    """https://github.com/NVIDIA/nccl-tests/issues/352: `Could not find NET with id 0` (graph/topo.h returns
    ncclInternalError) fails the run; the simple-order fallback beside it stays a warning."""
    s = _one(_field("we015_"), host="other", nodes=2)
    assert "NET with id 0" in messages(s, "fail") and "NCCL_ALGO" in messages(s, "fail")
    assert "simple order" in messages(s, "warn")


def test_malformed_topology_file_is_the_users_file_not_an_nccl_bug():
    """https://github.com/magnate3/linux-riscv-dev/blob/149cef22e6098bbd3553847a3fbb97044ec42431/exercises2/user_space/openMpi/README.md#L504-L525:
    NCCL_TOPO_FILE naming a file NCCL's XML reader rejects; the `internal error - please report` line follows from
    it and is not said twice."""
    s = _one(_field("wf016_"), host="other", nodes=1)
    fails = [f.message for f in s.findings if f.level == "fail"]
    assert len(fails) == 1 and "NCCL_TOPO_FILE" in fails[0] and "not NCCL" in fails[0]


def test_duplicate_gpus_all_logged_by_one_host():
    """https://github.com/huggingface/accelerate/issues/2246: every `Duplicate GPU detected` line from qgpu2018, a
    run meant for two nodes: the launcher put them on one."""
    s = _one(_field("wf013_"), host="other", nodes=2)
    said = messages(s, "info")
    assert "one host, qgpu2018" in said and "meant for 2 machines" in said
    # the same lines from two hosts: no such note
    two = _field("wf013_").replace("qgpu2018:59525", "qgpu2019:59525").replace("qgpu2018:59523", "qgpu2019:59523")
    assert "Every line here comes from one host" not in messages(_one(two, host="other", nodes=2))


def test_gpudirect_rdma_on_one_host_only():
    """https://github.com/NVIDIA/nccl/issues/1804: cl4-gpu03's channels `via NET/IB/2/GDRDMA`, cl4-gpu04's plain
    `via NET/IB/2`: the hosts differ, a warning naming the one without it."""
    s = _one(_field("wd008_"), host="other", nodes=2)
    assert "cl4-gpu04" in messages(s, "warn") and "GPUDirect RDMA on cl4-gpu03 only" in messages(s, "warn")
    # both hosts plain on their receive side, GDR on one host's sends only (GDR read off by default): no such warning
    text = ("a:1:2 [0] NCCL INFO Channel 00/0 : 1[3] -> 0[3] [receive] via NET/IB/2\n"
            "a:1:2 [0] NCCL INFO Channel 00/0 : 0[3] -> 1[3] [send] via NET/IB/2/GDRDMA\n"
            "b:1:2 [0] NCCL INFO Channel 00/0 : 0[3] -> 1[3] [receive] via NET/IB/2\n")
    assert "only (`/GDRDMA`" not in messages(_one(text, host="other", nodes=2))


def test_topology_dump_networks_slower_than_the_socket_link():
    """https://github.com/NVIDIA/nccl/issues/601: four 10 GbE NICs (1.25 GB/s) under a 6 GB/s SYS path, two nodes:
    the network sets the speed, the SYS note is not a warning; on one node the SYS warning stays."""
    s = _one(_field("wd013_"), host="other", nodes=2)
    assert "warn" not in levels(s) and "NET/0, NET/1, NET/2, NET/3" in messages(s) and "= 10 Gb/s" in messages(s)
    assert "warn" in levels(_one(_field("wd013_"), host="other", nodes=1))


def test_nccl_tests_head_without_rows_cannot_tell():
    """https://github.com/NVIDIA/nccl/issues/1320: the paste ends in NCCL's set-up of a one-node run: no verdict."""
    s = _one(_field("wd022_"), host="other", nodes=1)
    assert "cannot tell whether the test then ran, hung or failed" in messages(s) and set(levels(s)) <= {"info", "ok"}


def test_half_precision_error_column_is_rounding():
    """NCCL 1.x's allreduce_test,
    https://github.com/magnate3/linux-riscv-dev/blob/149cef22e6098bbd3553847a3fbb97044ec42431/nccl/gpu/cuda2/learnnccl/README.md#L61-L89:
    4e-03 in a half row is half's rounding, the results correct; the busbw on one host fits one PCIe link. The same
    4e-03 in a float row stays a warning."""
    s = _one(_field("wf019_"), host="other", nodes=1)
    assert "warn" not in levels(s) and "results are correct" in messages(s) and "PCIe Gen3 x16" in messages(s)
    text = _field("wf019_").replace("5e-07", "4e-03")
    assert "warn" in levels(_one(text, host="other", nodes=1))


def test_wrong_elements_at_one_size_between_machines():
    """https://github.com/NVIDIA/nccl-tests/issues/369: wrong elements at 1048576 B only, two hosts: the size is
    named and the path between the machines suspected, hedged."""
    s = _one(_field("wf021_"), host="other", nodes=2)
    fails = messages(s, "fail")
    assert "at 1048576 B only" in fails and "network transport or its plugin" in fails
    one = messages(_one(_field("wf021_"), host="other", nodes=1), "fail")  # told one machine: no network to suspect
    assert "network transport" not in one and "NCCL build or the hardware" in one


def test_a_correct_saturated_table_and_one_nics_worth():
    """https://github.com/NVIDIA/nccl/issues/1222: #wrong 0 and a 390 GB/s plateau over four nodes: correct and
    saturated, no warning. NVIDIA/nccl-tests#319: 44 GB/s between two machines of eight GPUs: one NIC's worth, a
    warning that says the table cannot tell which cause."""
    s = _one(_field("we014_"), host="other", nodes=4)
    assert "#wrong 0 in every row" in messages(s) and "saturated" in messages(s) and "warn" not in levels(s)
    s = _one(_field("wd014_"), host="other", nodes=2)
    assert "one 400 Gb/s NIC's worth" in messages(s, "warn") and "cannot tell" in messages(s, "warn")
    assert "NIC's worth" not in messages(_one(_field("wd014_"), host="other", nodes=1))  # one machine: no NIC involved


def test_counters_are_cumulative():
    """https://github.com/colonel-otto/3x-dgx-spark-mesh-deepseek-v4-0731-flash/blob/61e664b6b96ab8a875e1c6ae3d9bdede75747e9d/
    results/20260825-upper-mesh/rdma-post-spark1.txt: one snapshot of cumulative counters cannot tell now from then."""
    s = _one(_field("wf011_"), host="spark", nodes=1)
    assert "cumulative" in messages(s, "warn") and "delta" in messages(s, "warn")


def test_ibv_devinfo_infiniband_lids_efa_and_a_cut_gid_table():
    """https://github.com/deepseek-ai/DeepEP/issues/55: InfiniBand ports with LIDs from a subnet manager (ok);
    https://github.com/linux-rdma/rdma-core/pull/884: EFA is neither IB nor RoCE, its vendor no Mellanox part;
    https://github.com/magnate3/linux-riscv-dev/blob/149cef22e6098bbd3553847a3fbb97044ec42431/exercises2/soft-roce/rdma-ping/rdma-bad/README.md#L86-L181:
    a GID table cut at `::ffff` is not 'only link-local'."""
    s = _one(_field("wd019_"), host="other", nodes=1)
    assert "subnet manager at LID 1" in messages(s, "ok")
    s = _one(_field("wf003_"), host="other", nodes=1)
    assert "Elastic Fabric Adapter" in messages(s) and "MT61344" not in messages(s)
    sections = [x for x in explain(_field("wf022_"), host="other", nodes=1) if x.kind == "ibv-devinfo"]
    assert "fail" not in levels(sections[0]) and "cut off at GID[1]" in messages(sections[0])
    assert "MT5522" not in messages(sections[0])


def test_perftest_line_rate_and_a_steady_high_latency():
    """https://github.com/magnate3/linux-riscv-dev/blob/149cef22e6098bbd3553847a3fbb97044ec42431/exercises2/soft-roce/rdma-ping/uc/uc_reuse/README.md#L17-L48:
    98.03 Gb/s is a 100 Gb/s port's line rate; https://github.com/uccl-project/uccl/issues/707: 8.43 us, stdev 0.06
    us, high and steady (a warning); https://github.com/openucx/ucx/issues/6242 (corpus w014): 5.84 us with CPU
    frequency scaling stays a note."""
    s = _one(_field("wf017_"), host="other", nodes=2)
    assert "100 Gb/s port's line rate" in messages(s) and "warn" not in levels(s)
    s = _one(_field("we012_"), host="other", nodes=2)
    assert "tight distribution" in messages(s, "warn")
    assert "warn" not in levels(_one(_field("w014_perftest"), host="other", nodes=2))


def test_topo_matrix_without_its_header_and_a_gpu_without_nvlink():
    """https://github.com/vllm-project/vllm/issues/16336: rows GPU0-GPU5 of an 8x B200 `topo -m` without the header;
    GPU2 reads NODE/SYS to every GPU while the others are NV18 with each other: a GPU out of the NVLink fabric
    (fail). Corpus n011 (vllm#15098, the rows of GPU4-7 and the NICs, no header): every GPU NV18, no failure, the
    NICs placed by their rows' X."""
    s = _one(_field("wf020_"), host="other", nodes=1)
    assert "GPU2 has no NVLink to any GPU" in messages(s, "fail") and "Fabric Manager" in messages(s, "fail")
    s = _one(_field("n011_"), host="other", nodes=2)
    assert "fail" not in levels(s) and "GPU7 NIC4 (PIX)" in messages(s)
    # a workstation: two NVLinked cards and a third without NVLink is no NVSwitch board
    text = ("GPU0\t X \tNV4\tPHB\t0-15\t0\n"
            "GPU1\tNV4\t X \tPHB\t0-15\t0\n"
            "GPU2\tPHB\tPHB\t X \t0-15\t0\n")
    assert "fail" not in levels(_one(text, host="other", nodes=1))


def test_lspci_two_gpus_bound_to_nvidia():
    """https://github.com/noonghunna/club-3090/issues/232: `lspci -nnk` of two RTX 3090, both on nvidia, said as
    both."""
    sections = [x for x in explain(_field("we022_"), host="other", nodes=1) if x.kind == "lspci" and not x.error]
    assert "Both GPUs (04:00.0 GeForce RTX 3090, 09:00.0 GeForce RTX 3090)" in messages(sections[-1])
    one = "\n".join(_field("we022_").splitlines()[:12])  # the first card's functions only
    assert "GPUs (" not in " ".join(messages(x) for x in explain(one, host="other", nodes=1))


def test_the_failed_call_stays_the_cause_when_a_chain_follows():
    """https://github.com/NVIDIA/nccl/issues/331 (corpus t011): `No interface found in the same subnet` WARNs, then
    `Call to bind failed`, then `bootstrap.cc:91 -> 2`: the failed call is the failure named, the earlier WARN stays
    a warning."""
    s = _one(_field("t011_"), host="other", nodes=2)
    assert "Call to bind failed" in messages(s, "fail") and "No interface found" not in messages(s, "fail")


def test_a_network_plugin_declining_is_no_chained_failure():
    """A network plugin that declines to load passes its error up net.cc and NCCL goes on with another network
    (corpus xd011's shape): a WARN beside it is not raised to the run's failure by that chain."""
    text = ("h:1:1 [0] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin (v6)\n"
            "h:1:1 [0] NCCL INFO net.cc:626 -> 2\n"
            "h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>\n"
            "h:1:1 [0] misc/param.cc:31 NCCL WARN Invalid value 9 for NCCL_IB_TIMEOUT, using default 18\n")
    assert "fail" not in levels(_one(text, host="other", nodes=2))


def test_duplicates_on_one_host_told_one_machine_say_nothing_more():
    """https://github.com/pytorch/pytorch/issues/47885 (pending xd013): two ranks on one GPU of one host, told one
    machine: the duplicate GPU is the failure; where the ranks run is no news."""
    s = _one(_field("xd013_"), host="other", nodes=1)
    assert "Every line here comes from one host" not in messages(s) and "fail" in levels(s)


def test_hosts_on_different_networks_and_nccl_versions():
    """https://github.com/pytorch/pytorch/issues/14870 (corpus zw019): rank 0's container on NCCL 2.3.7's sockets
    (no libibverbs), the other node in NCCL 2.0-2.2's format (`[2] INFO Using internal Network IB`, no `NCCL` before
    INFO): the hosts differ, a failure; one host's network alone says nothing of the kind."""
    s = _one(_field("zw019_"), host="other", nodes=2)
    fails = messages(s, "fail")
    assert "different networks" in fails and "different NCCL versions" in fails
    one = "\n".join(x for x in _field("zw019_").splitlines() if not x.startswith("docker-100"))
    assert "different networks" not in messages(_one(one, host="other", nodes=2))
    # a logger's bracketed time stamp before INFO is not NCCL's line
    [stamped] = explain("h:1:1 [0] NCCL INFO NCCL version 2.3.7\n[2024-01-01 10:00:00] INFO Using internal Network "
                        "Socket\n", kind="nccl-log")
    assert stamped.facts.get("network") is None and stamped.facts.get("nccl_lines") == 1


def test_a_warn_far_from_the_chain_is_not_its_cause():
    """The chain's error is the WARN printed just before its first line; a WARN earlier in the log with other NCCL
    lines between (a setting NCCL ignored) is not raised to the failure by a later chain."""
    text = ("h:1:1 [0] misc/param.cc:31 NCCL WARN Invalid value 9 for NCCL_IB_TIMEOUT, using default 18\n"
            "h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>\n"
            "h:1:1 [0] NCCL INFO init.cc:771 -> 3\n")
    assert "Invalid value" in messages(_one(text, host="other", nodes=2), "warn")
