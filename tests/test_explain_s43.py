"""Session 43 (issue 27): what blind batches vq, vr, vs and vt found the tool misreading, each rule on a real output
(the field corpus's file, or its lines quoted) with a neighbouring output on which it stays silent: a program's own
prints above its traceback or NCCL log, several ranks' tracebacks, TensorRT-LLM's world size, a CUDA error read by its
own name, llama.cpp's retry without pipeline parallelism, CUDA samples' bandwidthTest, a bridge-less GPU beside
bridged ones, iperf2's [SUM] row and -P streams not shown, ibstatus without a device, Ray's C++ driver starting a head
of its own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader.explain import explain
from grader.parsers.bandwidth_test import parse_bandwidth_test
from grader.parsers.iperf3 import parse_iperf3
from grader.parsers.traceback import parse_traceback

FIELD = Path(__file__).parent / "fixtures" / "field"


def _read(stem: str) -> str:
    return next(FIELD.glob(f"*/{stem}_*.txt")).read_text()


def _said(text: str, **context) -> list[tuple[str, str]]:
    return [(f.level, f.message) for s in explain(text, **context) for f in s.findings]


def _worst(said: list[tuple[str, str]]) -> str:
    order = ["ok", "info", "warn", "fail"]
    return max((level for level, _ in said), key=order.index, default="ok")


# ---------------------------------------------------------------- a program's prints above its traceback

def test_a_programs_print_above_its_traceback_is_read_with_it():
    """NVIDIA/TensorRT-LLM#1950 (blind batch vt008): `> [TensorRT-LLM][INFO] MPI size: 1, rank: 0` above the
    traceback: one section, the traceback's, not an unknown output then a traceback."""
    sections = explain(_read("vt008"))
    assert [s.kind for s in sections] == ["python-traceback"] and all(s.error is None for s in sections)


def test_a_known_error_above_a_traceback_keeps_its_own_section():
    """The neighbour: SGLang's c10d store timeout above its scheduler's traceback (sglang#7478, corpus zk018) is a
    reported fault of its own: it stays a section, said."""
    said = _said(_read("zk018"))
    assert any("rendezvous store" in m for _, m in said), said


def test_a_traceback_whose_head_the_paste_cut_is_read():
    """NVIDIA/TensorRT-LLM#753 (vt007): the paste starts at `tensorrt_llm/runtime/model_runner.py", line 81, in
    read_config`, a frame cut at its start; the traceback is read, and its exception named."""
    tb = parse_traceback(_read("vt007"))
    assert tb.exception == "AssertionError: Engine world size (2 * 1) != Runtime world size (1)"
    assert tb.frames[0].file == "tensorrt_llm/runtime/model_runner.py" and tb.frames[0].line == 81


def test_several_ranks_tracebacks_are_not_called_chained():
    """NVIDIA/TensorRT-LLM#440 (vt009): eight ranks print the same traceback, the last cut: no `During handling of the
    above exception` links them, so they are not a chain, and the last whole one is read."""
    tb = parse_traceback(_read("vt009"))
    assert (tb.chained, tb.repeated) == (0, 1)
    assert tb.exception == "AssertionError: Engine world size (1) != Runtime world size (8)"


def test_a_chained_traceback_is_still_a_chain():
    """The neighbour: two tracebacks joined by `During handling of the above exception` are a chain, not repeats."""
    text = ("Traceback (most recent call last):\n  File \"a.py\", line 1, in f\nKeyError: 'x'\n\nDuring handling of the "
            "above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File \"a.py\", line 3,"
            " in g\nValueError: y\n")
    tb = parse_traceback(text)
    assert (tb.chained, tb.repeated, tb.exception) == (1, 0, "ValueError: y")


# ---------------------------------------------------------------- TensorRT-LLM's world size

@pytest.mark.parametrize("stem, engine, runtime", [("vt007", "2 * 1", "1"), ("vt009", "1", "8")])
def test_trtllm_engine_and_runtime_world_size_differ(stem, engine, runtime):
    """Engine built for one world size, run with another: a failure naming both, not a GPU or memory fault."""
    said = _said(_read(stem))
    assert _worst(said) == "fail"
    msg = next(m for level, m in said if level == "fail" and "refused the engine" in m)
    assert f"built for {engine} rank(s)" in msg and f"has {runtime} MPI rank(s)" in msg


def test_trtllm_mpi_size_assertion_is_the_launch_not_the_build():
    """vt008: `Assertion failed: mpiSize == tp * pp` from a TP=2 engine run as one process: the ranks launched, not
    a feature this GPU lacks (what TensorRT-LLM's other assertions name)."""
    said = _said(_read("vt008"))
    assert any("refused its MPI world" in m for level, m in said if level == "fail"), said
    assert not any("this GPU does not support" in m for _, m in said)


# ---------------------------------------------------------------- a CUDA error read by its own name

def test_peer_mappings_exhausted_is_read_as_too_many_peers_not_memory():
    """ggml-org/llama.cpp#21883 (vt003): ten P40s, `CUDA error: peer mapping resources exhausted` in
    ggml_cuda_init: too many peers, the CUDA guide's eight; the reading names no other error (no `out of memory`)."""
    said = _said(_read("vt003"))
    fail_msg = next(m for level, m in said if level == "fail")
    assert "at most 8 peer connections" in fail_msg and "out of memory" not in fail_msg
    assert any("found 10 GPUs; the paste lists 1" in m for _, m in said)


def test_a_cuda_out_of_memory_error_says_memory_alone():
    """The neighbour (tabby#726, corpus vk002): ggml's `CUDA error 2 ... out of memory`: the memory reading only."""
    said = _said(_read("vk002"))
    msg = next(m for level, m in said if level == "fail" and "CUDA call failed" in m)
    assert "no room for what was asked" in msg and "kernel failed" not in msg and "peer" not in msg


# ---------------------------------------------------------------- llama.cpp's retry without pipeline parallelism

def test_compute_buffer_retry_that_loaded_is_a_warning():
    """ggml-org/llama.cpp#26297 (vt010): 51,748.72 MiB on device 1 failed, `retrying without pipeline parallelism`,
    then the server initialised its slot: degraded (no pipeline parallelism), not a failed start."""
    said = _said(_read("vt010"))
    assert _worst(said) == "warn"
    assert any("retried without it, and the load went on" in m for _, m in said), said


def test_compute_buffer_retry_that_failed_again_is_the_oom():
    """The neighbour: the retry's allocation failing too (`failed to allocate compute buffers` after it) is the plain
    out-of-memory failure."""
    text = _read("vt010").replace("1.07.304.130 I srv    load_model: initializing",
                                  "1.07.304.130 E graph_reserve: failed to allocate compute buffers")
    said = _said(text)
    assert _worst(said) == "fail" and not any("retried without it" in m for _, m in said)


# ---------------------------------------------------------------- CUDA samples: bandwidthTest, deviceQuery, P2P

def test_bandwidth_test_is_read_against_the_cards_own_link():
    """stelline's workstation notes (vr005): an RTX 6000 Ada, host to device 26.8 GB/s, device to host 26.3: the
    full rate of its Gen4 x16 link (23.6-27.1 GB/s by pcie.toml's practical share), and PASS."""
    t = parse_bandwidth_test(_read("vr005"))
    assert t.devices == ((0, "NVIDIA RTX 6000 Ada Generation"),) and t.passed is True
    assert [(x.way, x.gbs) for x in t.transfers] == [("Host to Device", 26.8), ("Device to Host", 26.3),
                                                      ("Device to Device", 4374.1)]
    said = _said(_read("vr005"))
    assert _worst(said) in ("ok", "info") and any("full rate of the card's own Gen4 x16 link" in m for _, m in said)


def test_bandwidth_test_below_the_cards_link_warns():
    """The neighbour: the same card at 6.3 GB/s each way is a narrower or slower link than its own Gen4 x16."""
    text = _read("vr005").replace("26.8\n", "6.3\n").replace("26.3\n", "6.2\n")
    said = _said(text)
    assert _worst(said) == "warn" and any("below what the card's own Gen4 x16 link carries" in m for _, m in said)


def test_bandwidth_test_in_old_mb_per_second_is_converted():
    """bandwidthTest before CUDA 11 printed MB/s of 2^20 bytes: 12,000 MB/s is 12.58 GB/s."""
    t = parse_bandwidth_test("[CUDA Bandwidth Test] - Starting...\n Host to Device Bandwidth, 1 Device(s)\n PINNED Memory "
                             "Transfers\n   Transfer Size (Bytes)\tBandwidth(MB/s)\n   33554432\t\t\t12000.0\n")
    assert round(t.transfers[0].gbs, 2) == 12.58


def test_device_query_peer_lines_unquoted_by_the_cleaner_stay_its_own():
    """thamada's eight RTX 4090s (vr001): 56 `> Peer access from ... : No` lines, which the paste cleaner takes for a
    quote and unquotes: still deviceQuery's, read as no P2P on GeForce cards, and its PASS."""
    sections = explain(_read("vr001"))
    assert [s.kind for s in sections] == ["device-query"]
    said = _said(_read("vr001"))
    assert any("No GPU pair reports peer access" in m for _, m in said) and _worst(said) == "info"


def test_p2p_at_the_cards_full_link_gaining_both_ways_is_not_a_capped_path():
    """stelline (vr004): two RTX 6000 Ada, 26.32 GB/s one way with P2P against 22.2 through host memory (under the
    1.2x gain), 52.1 both ways against 31.4: at the cards' own Gen4 x16, P2P works as it should."""
    said = _said(_read("vr004"))
    assert _worst(said) in ("ok", "info") and any("52.10-52.11 GB/s both ways together" in m for _, m in said)


def test_p2p_far_below_the_link_still_warns_though_it_gains_both_ways():
    """The neighbour (tinygrad#44, corpus i017): two 4090s at 6.6 GB/s one way with P2P: both ways it gains, but one
    way is far below a Gen4 x16 link: still the warning."""
    said = _said(_read("i017"))
    assert any("P2P gains nothing over copies through host memory" in m for level, m in said if level == "warn")


def test_a_gpu_without_a_bridge_beside_bridged_ones_is_named():
    """siboehm's three RTX A6000 (vr009): GPU 0 and 1 with four links each, GPU 2 `all links are inActive`: GPU 2
    has no bridge, a note, not a fault."""
    said = _said(_read("vr009"))
    assert _worst(said) in ("ok", "info") and any(m.startswith("GPU 2 (NVIDIA RTX A6000): no NVLink link active") for _, m in said)


def test_nvidia_smi_names_the_lost_gpu_by_its_index():
    """dfch's four RTX PRO 6000 (vr008): `Unable to determine the device handle for GPU1: 0000:34:00.0: Unknown
    Error`, the index before the bus address as newer drivers print it: the GPU is lost."""
    said = _said(_read("vr008"))
    assert any("The driver has lost GPU 1 at 0000:34:00.0" in m for level, m in said if level == "fail")


# ---------------------------------------------------------------- iperf, ibstat, ibstatus

def test_iperf2_sum_row_is_the_result_though_streams_end_apart():
    """magnate3's 40G notes (vs005): eight iperf2 streams ending 10.0058-10.0232 s, [SUM] at 10.0001: 36.8 Gbit/s,
    not the two streams that ended last (9.44)."""
    r = parse_iperf3(_read("vs005"))
    assert r.sent_bps == 36.8e9


def test_iperf2_with_fewer_streams_shown_than_asked():
    """vs006: `numactl -C 8-15 iperf -P 8 ...` (the command read past numactl), one stream's row and no [SUM]: the
    output is not the whole test's, said, and no warning of the link drawn from it."""
    r = parse_iperf3(_read("vs006").split("\n", 1)[1], )
    assert r.streams == 1
    sections = explain(_read("vs006"))
    assert [s.kind for s in sections] == ["iperf3"] and sections[0].command.startswith("numactl")
    said = _said(_read("vs006"))
    assert _worst(said) == "info" and any("asked for 8 streams (-P 8) and the output shows 1" in m for _, m in said)


def test_retransmissions_of_a_slow_flow_are_said_with_their_share():
    """YuXiangLo/bandwitch (vs001): 404 Mbit/s in 5 s with 1,769 retransmissions: about 1% of the segments."""
    said = _said(_read("vs001"))
    assert any(m.startswith("1769 retransmissions in 5 s, about 1.0% of the segments sent") for _, m in said), said


def test_ibstatus_with_no_device_fails_on_the_driver():
    """clustervision/trinity#219 (vs008): `device '*': sys files not found`: no RDMA device registered."""
    said = _said(_read("vs008"))
    assert _worst(said) == "fail" and any("found no InfiniBand or RDMA device" in m for _, m in said)


def test_an_infiniband_port_names_its_subnet_manager():
    """open-mpi/ompi#10432 (vs007): ConnectX-4 at EDR 100, LID 53 from the SM at LID 17."""
    said = _said(_read("vs007"))
    assert any("A subnet manager (SM lid 17) gave it LID 53." in m for _, m in said)


# ---------------------------------------------------------------- Ray's C++ driver, NCCL

def test_a_head_the_process_started_itself_that_it_cannot_reach():
    """ray-project/ray#28372 (vt006): ray::Init starts `ray start --head ... --node-ip-address '10.90.95.155'`, then
    cannot reach 10.90.95.155:6379: its own head's GCS did not come up; the output cannot say why."""
    sections = explain(_read("vt006"))
    assert [s.kind for s in sections] == ["ray-start"]
    said = _said(_read("vt006"))
    assert any("started the head itself" in m and "gcs_server" in m for level, m in said if level == "fail")


def test_a_worker_that_cannot_reach_the_head_is_still_the_network():
    """The neighbour (gpustack#5181, corpus l022): a worker dialling another host's GCS keeps the reach-the-head
    reading."""
    said = _said(_read("l022"))
    assert any("could not reach the head's GCS at 172.16.11.65:41000" in m for _, m in said)


def test_shm_hops_between_nvlink_pairs_warn():
    """vq004: NVLink pairs 0-1 and 2-3 over P2P, the ring's 1 -> 2 and 3 -> 0 through SHM: those hops cap the ring."""
    said = _said(_read("vq004"), host="other", nodes=1)
    assert any("SHM: 1 -> 2, 3 -> 0" in m for level, m in said if level == "warn"), said


def test_every_channel_p2p_is_no_shm_warning():
    """The neighbour: every hop P2P on one machine says nothing of SHM hops."""
    text = "\n".join(x for x in _read("vq004").splitlines() if "SHM" not in x) + "\n"
    assert not any("SHM:" in m for _, m in _said(text, host="other", nodes=1))


def test_busbw_at_a_nic_per_rail_with_gdrdma_shown_is_no_warning():
    """aws-samples' EFA test (vq009): 16 A100 on two p4d, 43.8 GB/s, channels over four NICs with GPUDirect RDMA in
    the same paste: the lines that decide are there; a note, not the one-NIC warning."""
    said = _said(_read("vq009"), host="other", nodes=2)
    assert _worst(said) in ("ok", "info")
    assert any("over 4 NICs with GPUDirect RDMA" in m for _, m in said)


def test_invalid_device_ordinal_from_an_mpi_example():
    """vq005: `mpirun -np 2` on a one-GPU host, `Failed: Cuda error example_allreduce_2comms.cu:107 'invalid device
    ordinal'`: more ranks than GPUs, and the program's prints above its NCCL lines are its."""
    sections = explain(_read("vq005"), host="other", nodes=1)
    assert sections[0].kind == "nccl-log" and sections[0].command.startswith("mpirun -np 2")
    assert any("GPU index this machine does not have" in f.message for s in sections for f in s.findings)


# ---------------------------------------------------------------- second round: blind batches vu, vv, vw, vx

def test_two_gpus_at_x8_of_x16_are_a_desktop_split():
    """FAH's two RTX 2060 (vv004, through a script that prints `Card: 01:00.0 ...` and rules between cards) and two
    4090s on a bifurcation riser (vv006): every GPU at x8 of x16: the x8/x8 split lesson 3's check passes, a note."""
    for stem in ("vv004", "vv006"):
        said = _said(_read(stem))
        assert sum("as every GPU of this paste" in m for level, m in said if level == "info") == 2, (stem, said)
        assert not any("link trained at x8" in m for _, m in said)


def test_a_lone_x8_beside_an_x16_card_is_still_the_slot():
    """The neighbour: the same paste with the second card at x16: the first card's x8 is its slot's fault."""
    lines = _read("vv006").splitlines()
    second = max(i for i, x in enumerate(lines) if "LnkSta:" in x)
    lines[second] = lines[second].replace("Width x8", "Width x16")
    said = _said("\n".join(lines) + "\n")
    assert any("link trained at x8, the card can do x16" in m for level, m in said if level == "fail"), said


def test_aer_corrected_errors_on_a_riser_warn_and_probe_bits_do_not():
    """vv006: `CESta: ... BadTLP+` on both cards: the link resent damaged packets (a riser), a warning; corpus ws007's
    Hi1822 with only `UnsupReq+` and `NonFatalErr+` set: no warning."""
    assert sum("PCIe errors latched in its AER status (corrected: BadTLP)" in m for level, m in _said(_read("vv006"))
               if level == "warn") == 2
    assert not any("AER status" in m for _, m in _said(_read("ws007")))


def test_rev_ff_in_a_plain_listing_is_a_gpu_off_the_bus():
    """threestones' four 4090s (vv009): c2:00.0 and its audio function read `(rev ff)`: that card fell off the bus,
    said once for the card."""
    said = _said(_read("vv009"))
    assert [m[:9] for level, m in said if level == "fail"] == ["c2:00.0 N"]


def test_a_pending_row_remap_warns_and_correctable_ecc_is_a_note():
    """mleng's A100 (vv001): 177 correctable DRAM errors (a note) and `Pending: Yes` under Remapped Rows (reset the
    GPU): a warning, not a failure."""
    said = _said(_read("vv001"))
    assert any("a row remap is pending" in m for level, m in said if level == "warn")
    assert any("correctable ECC errors" in m for level, m in said if level == "info") and _worst(said) == "warn"


def test_remapped_rows_with_nothing_pending_are_no_warning():
    """The neighbour: the same report with `Pending: No` and no correctable error: nothing to do."""
    text = _read("vv001").replace("Pending                           : Yes", "Pending                           : No")
    assert not any("remap" in m for level, m in _said(text) if level in ("warn", "fail"))


def test_a_kernel_bug_line_fails_as_the_kernels():
    """linux-rdma's hns ib_read_bw (vw005): `BUG: Bad rss-counter state` between runs: a kernel or driver defect."""
    said = _said(_read("vw005"))
    assert any("The kernel reported a bug of its own" in m for level, m in said if level == "fail")


def test_perftest_with_one_gid_on_both_ends_is_a_loopback():
    """moc-openshift's GPUDirect run (vw010): local and remote GID both 192.168.3.225: one port talking to itself, and
    its buffers in GPU memory (`--use_cuda`)."""
    said = _said(_read("vw010"))
    assert any("the local and the remote GID are the same (192.168.3.225)" in m for level, m in said if level == "warn")
    assert any("its buffers are in GPU memory" in m for _, m in said)


def test_perftest_between_two_hosts_is_no_loopback():
    """The neighbour (eugr's Spark README, corpus c001): two GIDs, two hosts: no loopback said."""
    assert not any("GID are the same" in m for _, m in _said(_read("c001")))


def test_perftest_over_infiniband_names_the_ib_mtu_not_roce():
    """felixfu520's ConnectX-3 (vw007): `Link type : IB`, `Mtu : 2048[B]`: the InfiniBand path MTU, no Ethernet MTU."""
    said = _said(_read("vw007"))
    assert any("is the InfiniBand path MTU" in m for _, m in said)
    assert not any("RoCE uses the largest RDMA MTU" in m for _, m in said)


def test_a_sweep_stopped_while_busbw_still_rises():
    """ABCI's 2x8 A100 (vw006), all_reduce to 32 MiB: 30.7 then 33.4 GB/s: stopped before the plateau, a note."""
    said = _said(_read("vw006"))
    assert any(m.startswith("The sweep ends at 33,554,432 B with busbw still rising") for _, m in said)


def test_a_sweep_that_levelled_off_is_not_said_to_rise():
    """The neighbour (SkyPilot's 2x8 H200 to 8 GiB, vx009, read past its `(head, rank=0, pid=N)` prefixes): levelled
    off at about 328 GB/s, no rising note; one section, the table's."""
    sections = explain(_read("vx009"), host="other", nodes=2)
    assert [s.kind for s in sections] == ["nccl-tests"]
    said = _said(_read("vx009"), host="other", nodes=2)
    assert any("levels off at 327.9 GB/s" in m for _, m in said) and not any("still rising" in m for _, m in said)


def test_rocm_memory_access_fault_is_a_gpu_fault_not_memory():
    """vllm#2988 (vu001): `Memory access fault by GPU node-2 ... Reason: Unknown.` under load with the KV cache at
    0.2%: the process aborts on a GPU fault; not called out of memory."""
    said = _said(_read("vu001"))
    msg = next(m for level, m in said if level == "fail")
    assert "faulted on a memory access" in msg and "not an out-of-memory condition" in msg


def test_a_checkpoint_tensor_without_a_parameter_is_the_quantization():
    """vllm#12256 (vu005): DeepSeek-V3 at TP 32, `KeyError: '...w2_weight_scale_inv'` in load_weights: the checkpoint's
    scales against this vLLM's layers, read in the log even with the paste cut inside a frame's path."""
    sections = explain(_read("vu005"), host="other")
    assert [s.kind for s in sections] == ["vllm-log"]
    assert any("has no parameter `model.layers.55.mlp.experts.w2_weight_scale_inv`" in f.message
               for s in sections for f in s.findings)


def test_sglang_weights_end_line_alone_is_read():
    """sglang#4417 (vu004): `Load weight end ... mem usage=40.46 GB` and `Memory pool end. avail mem=16.08 GB` on 8 TP
    ranks, no ready line: said, and that the paste does not show whether it came up."""
    said = _said(_read("vu004"))
    assert any("The weights loaded, 40.46 GB on each GPU" in m for _, m in said)
    assert any("do not say whether the server came up" in m for _, m in said) and _worst(said) == "info"


# ---------------------------------------------------------------- break-it 28's probes (variations of real outputs)

_BW_ALL = ("$ ./bandwidthTest --device=all\n[CUDA Bandwidth Test] - Starting...\n\n!!!!!Cumulative Bandwidth to be computed "
           "from all the devices !!!!!!\n\nRunning on...\n\n Device 0: NVIDIA GeForce RTX 3090\n Device 1: NVIDIA GeForce "
           "RTX 3090\n Quick Mode\n\n Host to Device Bandwidth, 2 Device(s)\n PINNED Memory Transfers\n   Transfer Size "
           "(Bytes)        Bandwidth(GB/s)\n   32000000                     31.4\n\n Device to Host Bandwidth, 2 Device(s)\n"
           " PINNED Memory Transfers\n   Transfer Size (Bytes)        Bandwidth(GB/s)\n   32000000                     33.9"
           "\n\nResult = PASS\n")


def test_bandwidth_test_of_all_devices_is_a_sum_not_one_link():
    """`--device=all` prints the devices' sum (cuda-samples: `Cumulative Bandwidth`): 31.4 GB/s over two 3090s is 15.7
    a card, under a Gen4 x16 link: at least one card short, never one link's `full rate`."""
    said = _said(_BW_ALL)
    assert any("summed over 2 devices" in m and "15.7 GB/s a card" in m for level, m in said if level == "warn")
    assert not any("full rate" in m for _, m in said)


def test_bandwidth_test_csv_rows_are_read():
    """`bandwidthTest --csv` (cuda-samples' printResultsCSV): an RTX 4090 at 3.2 GB/s each way is a narrow link."""
    text = ("$ ./bandwidthTest --csv\n[CUDA Bandwidth Test] - Starting...\nRunning on...\n\n Device 0: NVIDIA GeForce RTX "
            "4090\n Quick Mode\n\nbandwidthTest-H2D-Pinned, Bandwidth = 3.2 GB/s, Time = 0.00995 s, Size = 32000000 "
            "bytes, NumDevsUsed = 1\nbandwidthTest-D2H-Pinned, Bandwidth = 3.3 GB/s, Time = 0.00970 s, Size = 32000000 "
            "bytes, NumDevsUsed = 1\nResult = PASS\n")
    assert any("host to device 3.2 GB/s" in m for level, m in _said(text) if level == "warn")


def test_bandwidth_test_of_small_copies_says_nothing_of_the_link():
    """A range of 1-81 KB copies: each copy's fixed cost bounds them; no link verdict."""
    text = _read("vr005").replace("32000000                     26.8", "81000                     14.2").replace(
        "32000000                     26.3", "81000                     15.0")
    said = _said(text)
    assert _worst(said) in ("ok", "info") and any("Every copy here is under 4,000,000 bytes" in m for _, m in said)


def test_bandwidth_test_on_a_gb10_is_no_pcie_reading():
    """A GB10's CPU and GPU share memory over NVLink-C2C: no PCIe figure applies to its copies."""
    said = _said(_read("vr005").replace("NVIDIA RTX 6000 Ada Generation", "NVIDIA GB10"))
    assert any("no PCIe link between them" in m for _, m in said) and not any("Gen5" in m for _, m in said)


def test_shm_hops_of_a_run_with_p2p_off_are_the_settings():
    """vq004's lines with `NCCL_P2P_DISABLE set by environment to 1`: the SHM hops are the setting's, no warning."""
    env = "dbaaa2700fd2:1890:1890 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1\n"
    assert not any("SHM:" in m for _, m in _said(env + _read("vq004"), host="other", nodes=1))


def test_a_pair_over_p2p_in_another_run_is_no_shm_hop():
    """The same pairs over P2P elsewhere in the paste (another communicator): no SHM hop to warn of."""
    text = _read("vq004") + ("dbaaa2700fd2:1891:1891 [1] NCCL INFO Channel 02 : 1[1] -> 2[2] via P2P/CUMEM/read\n"
                             "dbaaa2700fd2:1893:1893 [3] NCCL INFO Channel 02 : 3[3] -> 0[0] via P2P/CUMEM/read\n")
    assert not any("SHM:" in m for _, m in _said(text, host="other", nodes=1))


def test_a_later_runtime_oom_after_a_held_retry_is_the_failure():
    """vt010, then the server up and a 1,536 MiB allocation failing on device 0 at run time: the retry is a warning,
    the later allocation the failure, said as after the model loaded."""
    text = _read("vt010") + ("1.07.400.000 I main: model loaded\n1.07.400.100 I main: server is listening on "
                             "http://127.0.0.1:8080\n1.58.002.117 E ggml_backend_cuda_buffer_type_alloc_buffer: allocating "
                             "1536.00 MiB on device 0: cudaMalloc failed: out of memory\n")
    said = _said(text)
    fails = [m for level, m in said if level == "fail"]
    assert len(fails) == 1 and "1536.00 MiB on GPU 0" in fails[0] and "after the model had loaded" in fails[0]
    assert any("retried without it" in m for level, m in said if level == "warn")


def test_an_sxm_gpu_with_every_nvlink_down_fails():
    """An HGX H100 whose one GPU prints `all links are inActive` beside seven with 18 links: a fault, not a bridge."""
    up = "".join(f"\t Link {k}: 26.562 GB/s\n" for k in range(18))
    text = "$ nvidia-smi nvlink -s\n" + "".join(
        f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: GPU-{i}0000000-0000-0000-0000-000000000000)\n"
        + ("NVML: Unable to retrieve NVLink information as all links are inActive\n" if i == 3 else up) for i in range(8))
    said = _said(text, host="other")
    assert any(m.startswith("GPU 3 (NVIDIA H100 80GB HBM3): no NVLink link active") for level, m in said if level == "fail")


def test_rays_5_second_gcs_warning_then_the_driver_going_on_is_no_failure():
    """vt006's first three lines, then the core worker constructed and the program's results: the GCS came up."""
    head = "".join(_read("vt006").splitlines(keepends=True)[:3])
    text = head + ("[2022-09-08 17:15:38,114 I 46829 46829] core_worker_process.cc:181: Constructing CoreWorkerProcess. "
                   "pid: 46829\ntask result: 2\n")
    assert not any(level == "fail" for level, _ in _said(text))


def test_a_launch_timeout_is_the_display_watchdog():
    """`CUDA error: the launch timed out and was terminated` (cudaErrorLaunchTimeout): a watchdog, not a kernel bug."""
    text = ("CUDA error: the launch timed out and was terminated\n  current device: 0, in function "
            "ggml_backend_cuda_synchronize at D:\\a\\llama.cpp\\ggml\\src\\ggml-cuda\\ggml-cuda.cu:2520\n")
    msg = next(m for level, m in _said(text) if level == "fail")
    assert "watchdog" in msg and "enforce-eager" not in msg


def test_busbw_far_under_its_nics_still_warns():
    """vq009 with every busbw and algbw figure cut by 8: four GDRDMA NICs carrying about 11 Gb/s each is far under any
    RDMA NIC's line rate: the warning stays."""
    import re as _re

    def eighth(m: "_re.Match[str]") -> str:
        cols = m.group(0).split()
        for k in (5, 6, 9, 10):
            if k < len(cols):
                cols[k] = f"{float(cols[k]) / 8:.2f}"
        return "  ".join(cols)

    text = _re.sub(r"(?m)^\S*<stdout>:\s+\d+\s+\d+\s+float\s+sum\s+.*$",
                   lambda m: m.group(0).split(":", 1)[0] + ":" + eighth(_re.match(r".*", m.group(0).split(":", 1)[1])),
                   _read("vq009"))
    said = _said(text, host="other", nodes=2)
    assert any("busbw levels off at" in m for level, m in said if level == "warn"), said


def test_trtllm_too_many_ranks_is_said_as_such():
    """`MPI size: 4` for a TP2 engine: mpirun started another count, not one plain process."""
    text = _read("vt008").replace("MPI size: 1, rank: 0", "MPI size: 4, rank: 0")
    msg = next(m for level, m in _said(text) if level == "fail")
    assert "this run has 4 MPI ranks" in msg and "one plain process" not in msg


def test_a_builtins_print_above_an_nccl_log_stays_its_own():
    """`$ ulimit -l` and its `64` above an NCCL log: another command's output, not the log's."""
    text = "$ ulimit -l\n64\n" + "".join(_read("vq005").splitlines(keepends=True)[4:5]) + \
        "ubuntu:1482:1482 [0] NCCL INFO NCCL version 2.22.3+cuda12.5\n"
    assert [s.command for s in explain(text, host="other")][0] == "ulimit -l"


def test_a_destructors_traceback_at_exit_is_not_what_stopped_it():
    """A KeyError in load_weights, then `Exception ignored in: <function LLM.__del__ ...>` and its traceback: the
    KeyError is read, not counted with the destructor's as two ranks'."""
    text = ("Traceback (most recent call last):\n  File \"/x/vllm/model_executor/models/qwen2_moe.py\", line 531, in "
            "load_weights\n    param = params_dict[name]\nKeyError: 'model.layers.0.mlp.experts.w13_weight_scale'\n"
            "Exception ignored in: <function LLM.__del__ at 0x7f3b2c1d8e00>\nTraceback (most recent call last):\n  File "
            "\"/x/vllm/entrypoints/llm.py\", line 318, in __del__\nAttributeError: 'LLM' object has no attribute "
            "'llm_engine'\n")
    tb = parse_traceback(text)
    assert tb.exception.startswith("KeyError:") and tb.repeated == 0


# ---------------------------------------------------------------- third round: blind batches ta, tb, vy, vz

def test_a_sanity_check_that_passed_is_a_note_naming_what_it_cannot_show():
    """AKS's RDMA job (vx003): vLLM's test.py printed every stage successful: a note, and that the transport is not
    said."""
    said = _said(_read("vx003"), host="other", nodes=2)
    assert _worst(said) in ("ok", "info") and any("does not say which transport" in m for _, m in said)


def test_nccl_bootstrap_with_no_interface_under_pytorchs_last_error():
    """MFTCoder#31 (tb009): `Last error:` then `Bootstrap : no socket interface found`, without NCCL's WARN prefix."""
    assert any("found no network interface to bootstrap over" in m for level, m in _said(_read("tb009"))
               if level == "fail")


def test_nccl_socket_to_a_veths_link_local_address():
    """accelerate#2457 (tb007): `socketStartConnect: Connect to fe80::...%veth8299cd8<54785> failed`: NCCL chose a
    container's interface; the network between the nodes is not what failed."""
    said = _said(_read("tb007"))
    assert any("link-local address on a virtual interface" in m for level, m in said if level == "fail")


def test_nccl_with_no_algorithm_names_the_forced_algorithm():
    """NVIDIA/nccl#653 (tb010): `NCCL WARN Error : no algorithm/protocol available` on every rank: NCCL_ALGO."""
    said = _said(_read("tb010"))
    assert any("NCCL_ALGO" in m for level, m in said if level == "fail")


def test_init_complete_at_the_end_of_the_paste_says_what_it_cannot_show():
    """accelerate#1489 (tb008): 8 ranks' `Init COMPLETE` and nothing after: what the job did next is not shown."""
    assert any("The paste ends there" in m for level, m in _said(_read("tb008"), host="other", nodes=2) if level == "ok")


def test_kubernetes_could_place_the_pod_nowhere():
    """StatCan/jupyter-apis#57 (ta007): `0/41 nodes are available: ... 35 Insufficient cpu` and the autoscaler's
    `wouldn't fit if a new node is added`: the pod's requests, not the GPUs."""
    said = _said(_read("ta007"))
    assert any("could place the pod on none of its 41 nodes" in m for level, m in said if level == "fail")
    assert any("would not add a node" in m for level, m in said if level == "fail")


def test_a_clients_404_is_the_clients_route_or_model():
    """colonel-otto's two Sparks (vy005): every benchmark request `HTTP Error 404: Not Found` after the server came
    up: the client's URL or model name."""
    assert any("404 Not Found" in m for level, m in _said(_read("vy005"), host="spark", nodes=2) if level == "warn")


def test_busbw_passes_that_disagree_are_not_judged():
    """colonel-otto's 3-node mesh (vy004): 4.81 out-of-place against 19.78 in-place at 32 MiB: one pass held back."""
    said = _said(_read("vy004"), host="spark", nodes=3)
    assert any("the two passes of the same size differ 4.1x" in m for _, m in said)
    assert not any("about half of what a Spark pair" in m for _, m in said)


def test_a_plateau_at_512_mib_is_not_called_a_small_message():
    """pulsar's sendrecv (vy009): flat from 128 MiB to 512 MiB: no `the message size is small` said."""
    said = _said(_read("vy009"), host="spark", nodes=2)
    assert not any("The message size is small" in m for _, m in said)


def test_llama_cards_nearly_full_yet_loaded_are_a_note():
    """ik_llama.cpp#377 (vz003): four cards nearly full of weights, yet the compute buffers and KV allocated, the model
    loaded and the server listening: it fits, a note, not a coming out-of-memory."""
    said = _said(_read("vz003"), host="other")
    assert not any("is near" in m for level, m in said if level == "warn")
    assert any("nearly full, yet its KV cache and compute buffers were allocated" in m for _, m in said)


def test_rocm_llama_bench_says_its_device_count():
    """llama.cpp#24554 (vt001): six MI50/MI60 in ROCm's device-line shape: the count `found 6 GPUs`, no empty list."""
    said = _said(_read("vt001"))
    assert any(m == "llama.cpp found 6 GPUs." for _, m in said) and not any("lists 0" in m for _, m in said)


def test_a_launch_scripts_banner_rule_is_no_benchmark_result():
    """mattbucci's launch script (vz010) opens with a 46-`=` banner, which is no `vllm bench` rule (vLLM's and SGLang's
    are 50, trtllm-bench's 59): SGLang's ValueError below it is read as the traceback it is."""
    sections = explain(_read("vz010"), host="other")
    assert "vllm-bench" not in [s.kind for s in sections]
    assert any("Speculative decoding" in f.message for s in sections for f in s.findings if f.level == "fail")


def test_sglang_jsonl_without_request_throughput_is_not_zero_req_per_s():
    """DataCrunch's SGLang results (tc009): no `request_throughput` in each line: 300 completed over 298.37 s is
    1.01 req/s, not 0.00."""
    said = _said(_read("tc009"), host="other")
    assert not any("0.00 req/s" in m for _, m in said)
    assert any(m.startswith("Output 537.4 tok/s, 1.01 req/s over 298.37 s") for _, m in said)


# ---------------------------------------------------------------- break-it 29's probes

def test_rev_ff_alone_is_a_hedged_warning_and_beside_answering_gpus_a_failure():
    """A laptop's hybrid-graphics GPU reads `(rev ff)` when powered off (a warning naming both readings); vv009's card
    beside three 4090s that answer fell off the bus (a failure); a card reader's `(rev ff)` is no GPU's."""
    laptop = ("$ lspci | grep -E 'VGA|3D'\n00:02.0 VGA compatible controller: Intel Corporation HD Graphics 530 (rev 06)\n"
              "01:00.0 3D controller: NVIDIA Corporation GM107M [GeForce GTX 960M] (rev ff)\n")
    said = _said(laptop)
    assert any("powered off by design" in m for level, m in said if level == "warn") and _worst(said) == "warn"
    assert any("while the other NVIDIA GPUs answer" in m for level, m in _said(_read("vv009")) if level == "fail")


def test_four_gpus_at_x8_are_no_desktop_split():
    """Four A6000s at x8 of x16 on a server: no desktop's 16 lanes split x8/x8; the link reading stands."""
    lines = _read("vv006").replace("01:00.0", "17:00.0").replace("03:00.0", "31:00.0")
    text = lines + lines.replace("17:00.0", "b1:00.0").replace("31:00.0", "ca:00.0")
    said = _said(text)
    assert not any("as every GPU of this paste" in m for _, m in said)


def test_new_ecc_keys_and_the_older_layout_are_read():
    """Driver 550's `SRAM Uncorrectable SEC-DED`, `SRAM Threshold Exceeded: Yes`, and the V100's nested Double Bit
    counts with a pending page retirement."""
    new = ("$ nvidia-smi -q -d ECC\nGPU 00000000:8A:00.0\n    ECC Errors\n        Volatile\n            SRAM Correctable"
           "              : 0\n            SRAM Uncorrectable SEC-DED    : 2\n        Aggregate\n            SRAM "
           "Threshold Exceeded       : Yes\n")
    said = _said(new)
    assert any("SRAM Uncorrectable SEC-DED 2" in m for level, m in said if level == "warn")
    assert any("SRAM Threshold Exceeded: Yes" in m for level, m in said if level == "fail")
    old = ("$ nvidia-smi -q -d ECC,PAGE_RETIREMENT\nGPU 00000000:D8:00.0\n    ECC Errors\n        Volatile\n            "
           "Double Bit            \n                Device Memory             : 1\n                Total            "
           "         : 1\n    Retired Pages\n        Double Bit ECC                    : 1\n        Pending Page "
           "Blacklist            : Yes\n")
    said = _said(old)
    assert any("Double Bit 1 (volatile)" in m for level, m in said if level == "warn")
    assert any("page retirement is pending" in m for level, m in said if level == "warn")


def test_failed_scheduling_then_placed_is_no_failure_and_max_size_is_the_groups():
    """FailedScheduling, then TriggeredScaleUp, Scheduled and Started: no failure; NotTriggerScaleUp for `max node group
    size reached`: the group's maximum, not the pod's requests."""
    placed = ("  Warning  FailedScheduling  5m  default-scheduler  0/6 nodes are available: 4 Insufficient "
              "nvidia.com/gpu.\n  Normal   TriggeredScaleUp  4m  cluster-autoscaler  pod triggered scale-up\n  Normal   "
              "Scheduled  98s  default-scheduler  Successfully assigned default/vllm-0 to node-7\n  Normal   Started  20s  "
              "kubelet  Started container vllm\n")
    assert not any(level == "fail" for level, _ in _said(placed))
    full = ("  Normal   NotTriggerScaleUp  2m58s (x30 over 8m)  cluster-autoscaler  pod didn't trigger scale-up (it "
            "wouldn't fit if a new node is added): 1 max node group size reached\n")
    assert any("already at its maximum size" in m for level, m in _said(full) if level == "fail")


def test_an_exit_time_destructor_traceback_after_a_good_run_is_no_failure():
    """A run that printed its four answers, then `Exception ignored in: <function CustomAllreduce.__del__ ...>` and
    its TypeError: Python went on, nothing stopped the program."""
    text = ("Prompt: 'The future of AI is', Generated text: ' in the hands of the people.'\nException ignored in: "
            "<function CustomAllreduce.__del__ at 0x7f3e2c1a5ea0>\nTraceback (most recent call last):\n  File "
            "\"/x/vllm/distributed/device_communicators/custom_all_reduce.py\", line 283, in __del__\n    self.close()\n"
            "TypeError: 'NoneType' object is not callable\n")
    assert not any(level == "fail" for level, _ in _said(text))


def test_stdouts_broken_pipe_at_exit_leaves_the_real_exception():
    """`| head` closes stdout: `Exception ignored in: <_io.TextIOWrapper ...>` / `BrokenPipeError` after the program's
    own APIConnectionError: that one is read."""
    text = ("Traceback (most recent call last):\n  File \"/home/u/bench_client.py\", line 88, in <module>\n    main()\n"
            "openai.APIConnectionError: Connection error.\nException ignored in: <_io.TextIOWrapper name='<stdout>' "
            "mode='w' encoding='utf-8'>\nBrokenPipeError: [Errno 32] Broken pipe\n")
    assert parse_traceback(text).exception == "openai.APIConnectionError: Connection error."


def test_a_server_listening_before_it_loads_is_not_loaded():
    """Newer llama-server prints `HTTP server is listening` before loading: a KV-cache allocation failing during the
    load is no request's at run time."""
    text = ("main: HTTP server is listening, hostname: 0.0.0.0, port: 8080, http threads: 15\nsrv    load_model: loading "
            "model '/models/q.gguf'\nggml_backend_cuda_buffer_type_alloc_buffer: allocating 8192.00 MiB on device 0: "
            "cudaMalloc failed: out of memory\n")
    assert not any("after the model had loaded" in m for _, m in _said(text))


def test_busbw_a_third_under_100g_nics_is_no_healthy_fabric():
    """vq009's table cut by 2.6: four GDRDMA NICs carrying about 33 Gb/s each: under any GPU server NIC's line rate."""
    import re as _re

    def cut(m: "_re.Match[str]") -> str:
        head, row = m.group(0).split(":", 1)
        cols = row.split()
        for k in (5, 6, 9, 10):
            if k < len(cols):
                cols[k] = f"{float(cols[k]) / 2.6:.2f}"
        return head + ":" + "  ".join(cols)

    text = _re.sub(r"(?m)^\S*<stdout>:\s+\d+\s+\d+\s+float\s+sum\s+.*$", cut, _read("vq009"))
    said = _said(text, host="other", nodes=2)
    assert not any("healthy fabric" in m for _, m in said)
    assert any("busbw levels off at" in m for level, m in said if level == "warn")


def test_llama_bench_csv_rows_and_a_scripts_repeated_device_list():
    """gx10-benchmarks (vy002): a script running `llama-bench -o csv` twelve times on one GB10: its CSV rows read, and
    the device list each run prints counted once (it said 12 GPUs)."""
    said = _said(_read("vy002"), host="spark")
    assert any(m.startswith("llama.cpp found 1 GPU: NVIDIA GB10") for _, m in said)
    assert any("pp512 6761.77" in m for level, m in said if level == "ok")


# --------------------------------------------------------------------------- grader.parsers.common.spans

def test_last_match_is_the_last_of_finditer_within_bounds():
    from grader.parsers.common.spans import last_match
    text = "a1 b2 a3 b4 a5"
    rx = re.compile(r"a(\d)")
    assert last_match(rx, text).group(1) == "5"
    assert last_match(rx, text, 0, 9).group(1) == "3"  # "a1 b2 a3 " holds a1 and a3
    assert last_match(rx, text, 9).group(1) == "5"
    assert last_match(rx, "b2 b4") is None
    assert last_match(rx, text, 3, 6) is None  # "b2 " alone


def test_line_at_gives_the_whole_line_without_its_end():
    from grader.parsers.common.spans import line_at, line_span
    text = "first\nsecond line\nthird"
    at = text.index("cond")
    assert line_at(text, at) == "second line"
    assert line_span(text, at, at + 4) == (6, 17)
    assert line_at(text, 0) == "first"
    assert line_at(text, len(text) - 1) == "third"  # the last line, no line end after it
    assert line_at(text, text.index("line"), text.index("third")) == "second line\nthird"  # a span over two lines
