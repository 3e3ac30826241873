"""Session 40, builder B (issue 27): launch commands quoted beside their output (mpirun/torchrun/vllm serve with
backslash continuations) and nccl-tests runs, read as a class: a continuation the shell does not continue, and a run
timed over too few iterations to judge. Each on a real paste (the corpus file, or its lines quoted) and on a healthy
neighbour it must stay silent on."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain, render
from tests.conftest import said_in_all

FIELD = Path(__file__).resolve().parent / "fixtures" / "field"


def _corpus(stem: str) -> str:
    return next(FIELD.glob(f"*/{stem}_*.txt")).read_text()


def _worst(sections) -> str:
    order = {"ok": 0, "info": 0, "warn": 1, "fail": 2}
    return max((f.level for s in sections for f in s.findings), key=order.get, default="ok")


def test_a_space_after_a_continuation_backslash_ends_the_mpirun_command_there():
    """https://github.com/NVIDIA/nccl/issues/1218: `-x NCCL_MAX_NCHANNELS=16 \\ ` (a space after the backslash) in an
    mpirun block of all_gather_perf; the lines after it run as a command of their own. The output itself ('340GB') is
    not read, so the warning must show in the rendered answer too, not only in the section's findings."""
    sections = explain(_corpus("ze015"), host="other", nodes=32)
    said = said_in_all(sections, "warn")
    assert "`-x NCCL_MAX_NCHANNELS=16 \\ ` has a space after its backslash" in said
    assert "`-x CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 \\`" in said and _worst(sections) == "warn"
    assert "has a space after its backslash" in render(sections)


def test_a_comment_after_a_continuation_backslash_is_said_on_the_vllm_section():
    """https://github.com/vllm-project/vllm/issues/41725: `--node-rank 0 \\  # (node-rank 1 on second node, ...)`
    inside `vllm serve ... \\` lines: the comment ends the command, so --master-addr and the rest never reach it."""
    sections = explain(_corpus("ze001"), host="spark", nodes=2)
    vllm = next(s for s in sections if s.kind == "vllm-log")
    said = "\n".join(f.message for f in vllm.findings if f.level == "warn")
    assert "has a comment after its backslash" in said and "`--master-addr 169.254.205.76 \\`" in said


def test_well_formed_continuations_and_prose_backslashes_are_not_flagged():
    """Every line of nccl-tests#389's srun block (corpus zl010) ends with its backslash; a Windows path with a space
    after a backslash is prose, not a command; neither is a broken continuation."""
    assert "after its backslash" not in said_in_all(explain(_corpus("zl010"), host="other", nodes=2))
    prose = "I copied it to C:\\ \n-- then it failed\n"
    assert "after its backslash" not in said_in_all(explain(prose))
    good = ("$ torchrun --nnodes=2 --nproc_per_node=1 --node-rank=0 --master_addr=10.0.0.1 --master_port=29500 \\\n"
            "    train.py --epochs 1\n")
    assert "after its backslash" not in said_in_all(explain(good))


def test_nccl_tests_run_over_one_iteration_with_the_check_off_is_noted():
    """nccl#1218's all_gather_perf `-c 0 -n 1` (mpirun's own `-np 32` is not nccl-tests' -n): one timed iteration and
    no data check, said as a note (not a fault)."""
    sections = explain(_corpus("ze015"), host="other", nodes=32)
    note = said_in_all(sections, "info")
    assert "over 1 iteration (`-n 1`" in note and "`-c 0` besides" in note
    assert "iteration" not in said_in_all(sections, "warn")


def test_nccl_tests_header_with_few_iterations_is_noted_and_the_default_is_not():
    """The nccl-tests header (`warmup iters: 5 iters: 2 agg iters: 1`, https://github.com/NVIDIA/nccl-tests README's
    shape) with -n 2 is noted; the default 20 (corpus a026, a3mega 2x8 H100 all_reduce) says nothing of it, and
    `agg iters: 1` is not the iteration count."""
    header = ("# nThread 1 nGpus 1 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 2 agg iters: 1 "
              "validation: 1 graph: 0\n")
    assert "over 2 iterations" in said_in_all(explain(header + _corpus("a026")))
    assert "timed each size over" not in said_in_all(explain(_corpus("a026"), host="other", nodes=2))


def test_sglangs_failed_kv_transfer_is_a_failure_that_does_not_take_dead_at_its_word():
    """Pending wt005 (sgl-project/sglang#37022's shape: SGLang 0.5.8 PD over Mooncake): the router is up, the first
    request gets HTTP 500 `decode_internal_error`, prefill ranks say `remote mooncake session ... is not alive`, decode
    ranks `Failed to get kvcache from prefill instance, it might be dead`. A failure of the KV transfer, said as such;
    'dead' is SGLang's word for any failed transfer, so the reading does not claim the instance crashed."""
    sections = explain(_corpus("wt005"), host="other", nodes=3)
    said = said_in_all(sections, "fail")
    assert _worst(sections) == "fail" and "could not move a request's KV cache" in said
    assert "Mooncake" in said and "may well be running" in said and "router failed" not in said.lower()


def test_a_kv_transfer_timeout_is_read_without_the_dead_caveat_and_a_healthy_sglang_log_is_silent():
    """SGLang's other KVTransferError reason (a room that timed out in KVPoll, the shape sglang's conn.py prints) is
    the same failure without the 'dead' wording; a healthy SGLang log (corpus zp017: init complete, custom all-reduce
    off) says nothing of a KV transfer."""
    line = ("[2026-02-27 15:01:51 TP0] Prefill transfer failed for request rank=0 req.rid='a1' req.bootstrap_room=65 "
            "with exception KVTransferError(bootstrap_room=65): Request a1 timed out after 300.0s in KVPoll.Bootstrapping")
    said = said_in_all(explain(line))
    assert "timed out after 300.0s" in said and "may well be running" not in said
    assert "KV cache" not in said_in_all(explain(_corpus("zp017"), host="other", nodes=3))


def test_nccl_tests_summary_lines_alone_are_read_not_printed_nothing():
    """nccl-tests' last lines pasted alone (https://github.com/NVIDIA/nccl-tests/issues/284 quotes `Avg bus bandwidth
    : 0.176812` for an all_reduce_perf between two RTX 4090 hosts over sockets): with its command above them they were
    `the command printed nothing`, without it `only prompts and comments`; they are its summary, read as printed (the
    mean of rows the paste does not hold, so no bar is held against it). A whole table (corpus a026) is read as before."""
    tail = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0.176812 \n#\n"
    cmd = "$ mpirun -np 2 -H node1,node2 -x NCCL_IB_DISABLE=1 ./build/all_reduce_perf -b 8 -e 4G -f 2 -g 1\n"
    for text in (cmd + tail, tail):
        sections = explain(text, host="other", nodes=2)
        assert [s.kind for s in sections] == ["nccl-tests"] and not sections[0].error
        assert "Avg bus bandwidth 0.176812 GB/s as printed" in said_in_all(sections)
    whole = explain(_corpus("a026"), host="other", nodes=2)
    assert "as printed; the rows it averages are not in the paste" not in said_in_all(whole)


def test_a_space_after_every_continuation_backslash_is_a_note_not_a_warning():
    """Where every continued line of a quoted command has a trailing space (the shape a forum or a mail gives a copied
    block: nccl#1218's mpirun lines, each given one), the copying more likely added them than the script: a note that
    says what it would break, not a warning."""
    text = ("$ mpirun -np 2 -H node1,node2 \\ \n    -x NCCL_DEBUG=INFO \\ \n"
            "    ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 1\n")
    sections = explain(text, host="other", nodes=2)
    assert "after its backslash (as every continued line here has" in said_in_all(sections, "info")
    assert "after its backslash" not in said_in_all(sections, "warn")


def test_c10ds_failed_connect_attempt_is_a_note_and_an_unreachable_store_a_warning():
    """PyTorch's c10d client logs each failed attempt to reach the store and retries. Corpus zz010
    (https://github.com/pytorch/pytorch/issues/131781): two `errno: 22 - Invalid argument` attempts, then all eight
    ranks `Initted`: a note, named. vllm#3771 (`[::ffff:172.16.8.232]:39623 (errno: 110 - Connection timed out)`, vLLM
    in docker): no answer at all from the store's address, a warning that names the address and how to test it."""
    sections = explain(_corpus("zz010"), host="other", nodes=2)
    note = said_in_all(sections, "info")
    assert "One attempt of this process to connect to the rendezvous store" in note and "Invalid argument" in note
    assert "rendezvous store" not in said_in_all(sections, "warn")
    line = ("[W socket.cpp:663] [c10d] The client socket has failed to connect to [::ffff:172.16.8.232]:39623 "
            "(errno: 110 - Connection timed out)\n")
    said = said_in_all(explain(line), "warn")
    assert "could not reach the rendezvous store" in said and "`nc -zv ::ffff:172.16.8.232 39623`" in said


def test_c10ds_connected_line_alone_says_no_failed_attempt():
    """The neighbour line, `The client socket has connected to [...]:17333 on [...]` (accelerate#1645's torchrun), is
    the store reached: none of the failed-attempt readings."""
    line = "[I socket.cpp:787] [c10d] The client socket has connected to [10-198-34-55]:17333 on [10-198-34-56]:50822.\n"
    said = said_in_all(explain(line))
    assert "connected to the rendezvous store" in said or "reachable from here" in said
    assert "One attempt" not in said and "could not reach" not in said


def test_an_unanswered_attempt_followed_by_a_connection_is_a_note():
    """The same errno-110 attempt, then `The client socket has connected to` the store (c10d's own success line): a
    delay it got past, said as the note, not the warning."""
    text = ("[W socket.cpp:663] [c10d] The client socket has failed to connect to [10.0.0.1]:29500 (errno: 110 - "
            "Connection timed out).\n[I socket.cpp:787] [c10d] The client socket has connected to [10.0.0.1]:29500 on "
            "[10.0.0.2]:50822.\n")
    sections = explain(text)
    assert "could not reach" not in said_in_all(sections, "warn")
    assert "One attempt of this process" in said_in_all(sections, "info")


def test_mooncakes_refused_memory_registration_names_what_its_errno_means():
    """Mooncake's rdma_context.cpp `Failed to register memory <addr>: <strerror> [errno]` (glog's PLOG): EFAULT on
    GPU memory is GPUDirect RDMA missing, ENOMEM the memlock limit; another errno (Mooncake#454's ERANGE) is said as
    the provider's refusal, without either cause. `RdmaTransport: No available RNIC` (Mooncake#3538's thread): no
    device left, a failure that names what to list."""
    line = "E0326 14:23:05.675921 18944 rdma_context.cpp:265] Failed to register memory 0x7f105035d000: {} [{}]\n"
    efault = said_in_all(explain(line.format("Bad address", 14)), "fail")
    assert "GPUDirect RDMA is not there" in efault and "memlock" not in efault.split("Fix:")[0]
    enomem = said_in_all(explain(line.format("Cannot allocate memory", 12)), "fail")
    assert "locked-memory limit" in enomem and "GPUDirect RDMA is not there" not in enomem
    erange = said_in_all(explain(line.format("Numerical result out of range", 34)), "fail")
    assert "(errno 34): the verbs provider refused it" in erange and "locked-memory" not in erange
    rnic = said_in_all(explain("E20260821 12:30:19.448818 rdma_transport.cpp:827] RdmaTransport: No available RNIC\n"))
    assert "no RDMA device it could open" in rnic and "ibv_devices" in rnic


def test_mooncakes_healthy_gid_lines_do_not_read_as_a_registration_failure():
    """Mooncake's set-up lines of a working engine (Mooncake#936: `RDMA device: mlx5_3, LID: 0, GID: (GID_Index 3)
    ...ff:ff:cb:00:71:14`, `Find best gid index`) are a note, never one of the failures above."""
    text = ("I0421 09:34:39.688733  4670 rdma_context.cpp:413] Find best gid index: 3 on mlx5_bond_5/\n"
            "I0421 09:34:39.689913  4670 rdma_context.cpp:125] RDMA device: mlx5_bond_5, LID: 0, GID: (GID_Index 3) "
            "00:00:00:00:00:00:00:00:00:00:ff:ff:1e:f6:db:2f\n")
    sections = explain(text)
    assert not said_in_all(sections, "fail") and "register a buffer" not in said_in_all(sections)


def test_ucxs_refused_registration_names_its_errno():
    """UCX's ib_md.c `ibv_reg_mr(address=..., length=..., access=...) failed: <strerror>`: ENOMEM
    (https://github.com/openucx/ucx/issues/6264) says the memlock limit or the NIC's memory regions, EFAULT
    (https://github.com/openucx/ucx/issues/8999) GPUDirect RDMA or a UCX without CUDA, never the other's cause."""
    line = "[1650646984.495908] [hcn1:2663283:0]  ib_md.c:348  UCX  ERROR ibv_reg_mr(address=0xeda6ab0, length=593920, " \
           "access=0xf) failed: {}\n"
    enomem = said_in_all(explain(line.format("Cannot allocate memory")), "fail")
    assert "593920 bytes at 0xeda6ab0" in enomem and "locked-memory limit" in enomem
    assert "GPUDirect RDMA is not there" not in enomem
    efault = said_in_all(explain(line.format("Bad address")), "fail")
    assert "GPUDirect RDMA is not there" in efault and "locked-memory limit (`ulimit -l`, 64" not in efault


def test_ucxs_queue_refused_under_a_small_memlock_limit_is_a_warning_not_a_failure():
    """https://github.com/openucx/ucx/issues/8746: UCX 1.13 prints `mlx5_0: ibv_create_cq() failed: Cannot allocate
    memory. Please set max locked memory (ulimit -l) ... (current: 64 kbytes)` and the OSU broadcast test (shared
    memory only) runs: a warning that names the limit and says when it matters, not a failure of the run."""
    text = ("$ mpirun -n 2 --mca pml ob1 --mca btl sm,self --mca smsc xpmem osu_bcast -m 1\n"
            "[1668693503.473099] [ampere:1188443:0]          ib_log.c:246  UCX  ERROR mlx5_0: ibv_create_cq() failed: "
            "Cannot allocate memory. Please set max locked memory (ulimit -l) to 'unlimited' (current: 64 kbytes)\n"
            "\n# OSU MPI Broadcast Latency Test v5.8\n# Size       Avg Latency(us)\n1                       0.23\n")
    sections = explain(text)
    said = said_in_all(sections, "warn")
    assert "locked-memory limit (now 64 KiB)" in said and "on mlx5_0" in said
    assert not said_in_all(sections, "fail")


def test_mooncakes_tcp_transport_out_of_ports_is_said_as_such():
    """Mooncake's tcp_transport.cpp `TcpTransport::getConnection failed to create connection to <host>:<port>. Error:
    connect: Cannot assign requested address` (https://github.com/kvcache-ai/Mooncake/pull/997: a connection per
    transfer, TIME_WAIT, the ephemeral ports used up) names the port exhaustion; a timed-out connect
    (https://github.com/kvcache-ai/Mooncake/issues/682) names the peer's reachability instead."""
    line = ("E0813 10:02:11.123456 4242 tcp_transport.cpp:720] TcpTransport::getConnection failed to create connection "
            "to 10.0.0.2:16708. Error: connect: {}\n")
    ports = said_in_all(explain(line.format("Cannot assign requested address")), "fail")
    assert "ran out of local ports" in ports and "to 10.0.0.2:16708" in ports
    timed = said_in_all(explain(line.format("Connection timed out")), "fail")
    assert "did not accept or could not be reached" in timed and "ran out of local ports" not in timed
