"""Session 39's readings, each on the real output that prompted it and a neighbour where it must stay silent."""

from __future__ import annotations

from grader.explain import explain
from tests.conftest import field_entry, levels, messages


def test_a_slow_decode_is_not_diagnosed_from_latencies_already_called_untrustworthy():
    """https://github.com/tomdoerr/llm (blind batch wn007): `vllm bench serve --save-result` JSON of five multimodal
    requests, median TTFT 0.0 ms and median E2E 27 ms beside a mean TPOT of 1,320 ms: the latencies are not a
    measurement, so the 0.8 tok/s they give is said, not blamed on decode (or NCCL across the nodes)."""
    [s] = explain(field_entry("wn007"), host="spark", nodes=2)
    assert "not to be trusted" in messages(s, "warn")
    assert "very slow decode" not in messages(s) and "NCCL" not in messages(s, "warn")
    assert "one token every 1320 ms" in messages(s, "info") and "Not judged" in messages(s, "info")
    # the same file with real latencies (median TTFT and E2E like their means): the slow decode is judged again
    text = field_entry("wn007").replace('"median_ttft_ms": 0.0,', '"median_ttft_ms": 35.0,') \
                               .replace('"p50_ttft_ms": 0.0,', '"p50_ttft_ms": 35.0,')
    [again] = explain(text, host="spark", nodes=2)
    assert "not to be trusted" not in messages(again) and "very slow decode" in messages(again, "warn")
    assert "warn" in levels(again)


def test_a_program_killed_inside_nccl_names_the_frame_and_nccl_not_the_kv_cache():
    """https://github.com/vllm-project/vllm/issues/14628 (blind batch wp004): TP=2 on two RTX 5090s, the traceback's
    last frame PyNcclCommunicator's warm-up all_reduce, then the shell's `Killed` (an NCCL too old for the cards).
    The kill is said with where it came; the memory-sizing advice (a shorter context, the KV cache) is not given as
    the fix, and the OOM killer stays the first thing to rule out."""
    [s] = explain(field_entry("wp004"), host="other", nodes=1)
    said = messages(s, "fail")
    assert "inside `all_reduce` (pynccl.py, line 126)" in said and "NCCL call" in said
    assert "NCCL_DEBUG=INFO" in said and "dmesg" in said and "KV cache" not in said


def test_a_killed_program_outside_nccl_keeps_the_memory_advice_and_names_no_nccl():
    """llama.cpp#5156's shape (a converter killed by the OOM killer), with and without a Python frame above it; and a
    traceback that ended lines before the kill says nothing of where it came."""
    frame = ('  File "/src/convert-hf-to-gguf.py", line 212, in write_tensors\n'
             "    data = data_torch.squeeze().numpy()\n")
    for text in ("blk.35.ffn_norm.weight, n_dims = 1, torch.bfloat16 --> float32\nKilled\n",
                 "Traceback (most recent call last):\n" + frame + "Killed\n"):
        said = messages(explain(text, host="other", nodes=1)[0], "fail")
        assert "Killed" in said and "KV cache" in said and "NCCL" not in said
    assert "inside `write_tensors` (convert-hf-to-gguf.py, line 212)" in messages(
        explain("Traceback (most recent call last):\n" + frame + "Killed\n", host="other", nodes=1)[0])
    far = ('  File "/opt/vllm/vllm/distributed/device_communicators/pynccl.py", line 126, in all_reduce\n'
           + "".join(f"INFO step {i}\n" for i in range(8)) + "Killed\n")
    said = messages(explain(far, host="other", nodes=1)[0])
    assert "Killed" in said and "inside `" not in said and "NCCL call" not in said


def test_nvidia_smi_losing_its_gpu_is_read_with_or_without_a_space_before_the_bus_id():
    """https://github.com/NVIDIA/nvidia-container-toolkit/issues/846 (blind batch wo004): a recent nvidia-smi prints `Unable to determine the
    device handle for GPU0000:01:00.0: Unknown Error` (no space after GPU) where older ones printed `GPU 0000:...`:
    both are the driver losing the card, a fail naming the bus id."""
    [s] = explain(field_entry("wo004").split("root@fedora41:~# nvidia-debugdump")[0], host="other", nodes=1)
    assert levels(s) == ["fail"] and "The driver has lost GPU 0000:01:00.0" in messages(s, "fail")
    older = "Unable to determine the device handle for GPU 0000:01:00.0: Unknown Error\n"
    assert "The driver has lost GPU 0000:01:00.0" in messages(explain(older, host="other", nodes=1)[0], "fail")


def test_nvidia_smi_p2p_ns_is_one_level_in_the_lesson_check_and_in_explain():
    """corpus x002 (two RTX 2080 Ti: `nvidia-smi topo -p2p r` NS): a note in explain, and the lesson-3 check's reading
    of the same status (grader.facts.lesson3.p2p_sentences, which L3.p2p_path and explain both call) is a note too;
    CNS (chipset not supported) stays a warning in both."""
    from grader.facts.lesson3 import p2p_sentences
    for status, warned in (("NS", False), ("CNS", True)):
        warnings, notes = p2p_sentences("GPU0", "GPU1", "PIX", status)
        assert bool(warnings) is warned and bool(notes) is not warned
    [s] = explain(field_entry("x002").split("nvidia-smi topo -p2p")[-1].join(("$ nvidia-smi topo -p2p", "")),
                  host="other", nodes=1)
    assert "warn" not in levels(s) and "nvidia-smi -L" in messages(s, "info")


def test_a_note_the_catalogue_gives_a_warn_line_is_not_raised_by_the_error_chain_after_it():
    """A WARN NCCL then passed up (`init.cc:... -> 3`) raises the catalogue's warning reading of it to a fail (nccl#520,
    pending we003); a reading the catalogue gives as a note stays a note: it named no failure."""
    ring = ("h:1:2 [0] graph/rings.cc:38 NCCL WARN Error : ring 2 does not loop back to start (7 != 2)\n"
            "h:1:2 [0] NCCL INFO graph/connect.cc:281 -> 3\nh:1:2 [0] NCCL INFO init.cc:1235 -> 3\n")
    [s] = explain(ring, host="other", nodes=1)
    assert "does not loop back" in messages(s, "fail") and "passed the error up" in messages(s, "fail")
    [s] = explain(ring.splitlines(keepends=True)[0], host="other", nodes=1)
    assert "fail" not in levels(s) and "does not loop back" in messages(s, "warn")
    ras = ("h:1:2 [0] ras/client_support.cc:1456 NCCL WARN Call to bind failed: Address already in use\n"
           "h:1:2 [0] NCCL INFO ras/ras.cc:389 -> 2\n")
    [s] = explain(ras, host="other", nodes=1)
    assert "passed the error up" not in messages(s)


def test_a_caption_line_above_a_results_table_is_the_tables_not_an_unknown_output():
    """A poster's caption just above a Markdown results table (the break-it review's shapes: a sweep's model, load and
    prompt counts, no full stop) was an `[unknown]` ERROR section of its own; it is the table's caption now, which its
    reader keeps (here: the concurrency of 64 that makes "expected for one stream" wrong). A caption that quotes a
    known error stays a section of its own."""
    table = ("| Setup | Output tok/s | Mean TPOT (ms) |\n|---|---|---|\n| 1 Spark | 642.3 | 92.1 |\n"
             "| 2 Sparks | 655.8 | 90.4 |\n")
    caption = "Qwen3-32B FP8, vllm bench serve, max concurrency 64, 1024 in / 1024 out\n\n"
    sections = explain(caption + table, host="spark", nodes=2)
    assert [s.kind for s in sections] == ["results-table"] and not any(s.error for s in sections)
    assert sections[0].facts["tables"][0]["caption"].startswith("Qwen3-32B FP8")
    assert "expected" not in messages(sections[0]) or "one stream" not in messages(sections[0])
    quoted = "torch.OutOfMemoryError: CUDA out of memory\n\n"
    assert [s.kind for s in explain(quoted + table, host="spark", nodes=2)][-1] == "results-table"
    assert len(explain(quoted + table, host="spark", nodes=2)) == 2


def test_a_root_port_below_its_own_capability_follows_the_device_below_it():
    """magnate3's notes (blind batch ws007): a Gen4 x8 root port of a HiSilicon board running 8 GT/s x8 with a Gen3
    card below it. A port trains to the lower of its two ends, so its reduced speed is the device's, a note; the same
    lines as an endpoint (no `Express ... Root Port` capability) keep their warning."""
    text = field_entry("ws007").replace("\r", "")
    port = text[text.index("# lspci -vvs 0000:00:0c.0"):]
    [s] = explain("[root@centos7 pci_test2]" + port, host="other", nodes=1)
    assert "warn" not in levels(s) and "lower of its two ends" in messages(s, "info")
    [s] = explain("[root@centos7 pci_test2]" + port.replace("Root Port", "Endpoint"), host="other", nodes=1)
    assert "running at 8 GT/s (Gen3)" in messages(s, "warn")


def test_a_warn_said_by_two_source_files_is_not_read_as_the_harmless_one():
    """The same words from RAS's listener (harmless) and from a socket NCCL needed (misc/socket.cc, then its error
    chain): the RAS note is not lent to the socket's line (the break-it review's p16); RAS's alone stays a note."""
    ras = "h:1:2 [0] ras/client_support.cc:1456 NCCL WARN Call to bind failed: Address already in use\n"
    sock = ("h:1:3 [1] misc/socket.cc:457 NCCL WARN Call to bind failed: Address already in use\n"
            "h:1:3 [1] NCCL INFO misc/socket.cc:470 -> 2\nh:1:3 [1] NCCL INFO bootstrap.cc:98 -> 2\n")
    [s] = explain(ras + sock, host="other", nodes=1)
    assert "Call to bind failed" in messages(s, "fail") and "no cause of a failure" not in messages(s)
    [s] = explain(ras, host="other", nodes=1)
    assert "fail" not in levels(s) and "RAS" in messages(s, "info")


def test_a_port_whose_link_never_trained_is_not_the_device_below_deciding():
    """A switch's downstream port at `Width x0` (no link trained: the card below absent or dead) keeps the warning;
    the note that a port follows the device below it needs a link (the break-it review's p14)."""
    text = ("$ sudo lspci -vv -s 1a:01.0\n1a:01.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)\n"
            "\tCapabilities: [68] Express (v2) Downstream Port (Slot+), MSI 00\n"
            "\t\tLnkCap:\tPort #1, Speed 32GT/s, Width x16, ASPM not supported\n"
            "\t\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x0 (downgraded)\n")
    [s] = explain(text, host="other", nodes=1)
    assert "warn" in levels(s) and "lower of its two ends" not in messages(s)
    [s] = explain(text.replace("Width x0 (downgraded)", "Width x16"), host="other", nodes=1)
    assert "lower of its two ends" in messages(s, "info") and "warn" not in levels(s)


def test_ibstat_given_a_netdev_name_says_it_takes_a_ca_name():
    """magnate3's notes (blind batch ws005): `ibstat ib1` after ibdev2netdev maps mlx5_6 and mlx5_7 to ib1: ibstat's
    `ibpanic ... 'ib1' IB device can't be found` is a warning that names the CA name to give, not a parse error; a
    healthy ibstat of a CA says nothing of it."""
    text = field_entry("ws005").replace("\r", "")
    said = "\n".join(messages(s, "warn") for s in explain(text, host="other", nodes=1))
    assert "ibstat found no RDMA device named `ib1`" in said and "ibdev2netdev" in said
    healthy = ("$ ibstat mlx5_0\nCA 'mlx5_0'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n"
               "\t\tPhysical state: LinkUp\n\t\tRate: 400\n\t\tLink layer: InfiniBand\n")
    assert "can't be found" not in "\n".join(messages(s) for s in explain(healthy, host="other", nodes=1))
