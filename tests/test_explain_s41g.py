"""Session 41, builder G (issue 27): serving, Ray, vLLM and GPU outputs read as a careful engineer reads them, each
rule on a real output (from the field corpus by path, or its lines quoted) and on a neighbour it must leave alone."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import said_in_all, worst_level

FIELD = Path(__file__).resolve().parent / "fixtures" / "field"


def _read(stem: str, folder: str = "corpus") -> str:
    return next((FIELD / folder).glob(stem + "*.txt")).read_text(encoding="utf-8", errors="replace")


def test_kv_cache_nearly_full_but_slowly_rising_with_none_waiting_is_a_note():
    """vllm-project/vllm#18115 (https://github.com/vllm-project/vllm/issues/18115): V1 stats every 10 s, 8 running,
    none waiting, KV cache 91.2% -> 91.9% in 20 s: full in about four minutes at that pace, so the running requests
    still fit: a note that says when it fills, not a warning that requests wait."""
    sections = explain(_read("b025_"))
    assert worst_level(sections) == "info"
    said = said_in_all(sections, "info")
    assert "nearly full but none waits" in said and "about 4 min" in said


def test_kv_cache_nearly_full_and_rising_fast_stays_a_warning():
    """tenstorrent/vllm#55 (https://github.com/tenstorrent/vllm/issues/55): V0 metrics, 16 running, none pending,
    92.1% -> 94.9% in 23 s: full in about 40 s, then preemption (the crash near a full cache followed)."""
    sections = explain(_read("b026_"), host="other")
    assert worst_level(sections) == "warn"
    assert "nearly full and rising" in said_in_all(sections, "warn")


def test_kv_cache_nearly_full_on_one_line_or_with_requests_waiting_keeps_its_warning():
    """The neighbours (vLLM V1's loggers.py stats line, as in vllm-project/vllm#18115): one line gives no trend, and
    requests waiting at a nearly full cache are held back by it now: both stay warnings."""
    line = ("INFO 07-28 06:4{m}:{s} [loggers.py:118] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation "
            "throughput: 239.2 tokens/s, Running: 8 reqs, Waiting: {w} reqs, GPU KV cache usage: {kv}%, Prefix cache "
            "hit rate: 0.0%\n")
    one = line.format(m=0, s=59, w=0, kv=91.2)
    assert worst_level(explain(one)) == "warn"
    waiting = one + line.format(m=1, s="09", w=3, kv=91.3)
    said = said_in_all(explain(waiting), "warn")
    assert "KV cache is nearly full" in said and "none waits" not in said
    flat = one + line.format(m=1, s="09", w=0, kv=91.2)
    assert "does not rise over its last lines" in said_in_all(explain(flat), "info")


def test_nvtop_gen1_at_x16_is_idle_power_saving_not_a_fault():
    """Syllo/nvtop#6 (https://github.com/Syllo/nvtop/issues/6): nvtop's header for two GTX 1080 Ti, the second at
    `PCIe GEN 1@16x`: an idle card's link speed, said as such, read again under load."""
    sections = explain(_read("p020_"), host="other")
    assert worst_level(sections) == "info"
    said = said_in_all(sections).lower()
    assert "device 1" in said and "gen 1" in said and "idle" in said and "under load" in said


def test_nvtop_header_at_gen3_or_reduced_width_is_not_called_idle():
    """The neighbours: nvtop's header at Gen 3 x16 (the other card of Syllo/nvtop#6) says nothing of power saving,
    and a Gen 1 link at x8 is not read as an idle step-down (width does not drop for idleness)."""
    for header in ("Device 0 [GeForce GTX 1080 Ti] PCIe GEN 3@16x RX: 0.000 KiB/s TX: 0.000 KiB/s\n",
                   "Device 0 [GeForce GTX 1080 Ti] PCIe GEN 1@8x RX: 0.000 KiB/s TX: 0.000 KiB/s\n"):
        assert "power saving" not in said_in_all(explain(header, host="other"))


def test_systemctl_status_of_a_power_limit_oneshot_reads_the_cap_and_the_clean_exit():
    """Puget Systems' nv-power-limit.service (https://www.pugetsystems.com/labs/hpc/quad-rtx3090-gpu-power-limiting-
    with-systemd-and-nvidia-smi-1983/): `Active: inactive (dead)` after `Succeeded.`, and nvidia-smi's `Power limit
    for GPU ... was set to 280.00 W from 350.00 W.`: the cap said, the unit's exit read as a run-once unit's."""
    sections = explain(_read("zj012_"), host="other")
    assert worst_level(sections) == "info"
    said = said_in_all(sections)
    assert "280.00 W, from 350.00 W" in said and "exited cleanly" in said and "not a failure" in said


def test_newer_systemd_wording_and_a_refused_power_limit_are_read_as_theirs():
    """The neighbours: systemd 247+ says `Deactivated successfully.` (read the same), and nvidia-smi's refusal of a
    limit out of range (stackhpc/ansible-slurm-appliance PR 975) is not said as a cap that was set."""
    newer = "May 02 10:00:01 gpu1 systemd[1]: nv-power-limit.service: Deactivated successfully.\n"
    assert "exited cleanly" in said_in_all(explain(newer, host="other"))
    refused = ("Provided power limit 50.00 W is not a valid power limit which should be between 200.00 W and 700.00 W "
               "for GPU 00000000:06:00.0\n")
    said = said_in_all(explain(refused, host="other"))
    assert "refused" in said and "was set" not in said and "set GPU" not in said


def test_closed_loop_run_with_short_prompts_and_a_long_ttft_is_a_server_queue():
    """Blind batch wt004 (https://github.com/joorklee/p2p-bench, results/2026-06-16_5060ti-16gb_2cards_gen3-x4_p2p-sweep-
    c1-2-4-8/scenarios/p2p_on-c8/run_1.stdout.txt: `vllm bench serve` at --max-concurrency 8, TP=2, two RTX 5060 Ti): 128
    requests of 1,024 prompt tokens, 0 failed, mean TTFT 16.4 s: 0.19 req/s x 25.4 s after the first token puts about
    4.8 running in the server of the 8 sent: the others waited in its queue (its log: 5 running, 3 waiting, KV 95%)."""
    sections = explain(_read("wt004_", "pending"), host="other", nodes=1)
    assert worst_level(sections) == "warn"
    said = said_in_all(sections, "warn")
    assert "waited in its queue" in said and "about 4.8 at once of the 8" in said


def test_a_modest_ttft_or_a_prefill_bound_run_is_not_called_a_server_queue():
    """The neighbours: achatbot PR 183 (https://github.com/ai-bot-pro/achatbot/pull/183, SGLang
    at concurrency 4, TTFT 2.7 s: below the bar) and vllm-project/vllm#9722 (https://github.com/vllm-project/vllm/issues/
    9722, 6 output tokens a request: the prefill-bound reading's, not this one)."""
    for stem in ("r012_", "x010_"):
        assert "waited in its queue" not in said_in_all(explain(_read(stem), host="other"))


def test_the_retokenized_zero_reading_names_its_latencies_unredacted():
    """sgl-project/sglang#9585 (https://github.com/sgl-project/sglang/issues/9585): 0 of 300,000 tokens re-tokenized;
    the sentence said `timed no token: TTFT, ...`, which the output's secret filter took for a `token: <secret>` pair
    and blanked: the latencies it names must be shown."""
    said = said_in_all(explain(_read("xg002_", "pending"), host="other"), "warn")
    assert "re-tokenized 0 of the 300,000" in said and "TTFT, ITL and TPOT were not measured" in said
    assert "[redacted]" not in said


def test_topo_with_every_gpu_on_one_numa_node_says_which_cpus_to_pin():
    """locuaz FAQ (https://github.com/pgbarletta/locuaz/blob/f4d26b618a8c0473dcb1ba8dc80e548c4f10a6d8/docs/source/
    faq.rst): four GPUs all NV4, each with its mlx5 NIC at PXB, every row `0-15` and NUMA `0`: the one node is said with its CPUs, as info."""
    sections = explain(_read("wz008_", "pending"), host="other", nodes=1)
    assert worst_level(sections) == "info"
    said = said_in_all(sections, "info")
    assert "All 4 GPUs report NUMA node 0 and CPU affinity 0-15" in said


def test_topo_on_several_numa_nodes_or_without_one_says_no_single_node():
    """The neighbours: club-3090 #46 (https://github.com/noonghunna/club-3090/issues/46: GPU0
    on node 1, the others on node 0) and NVIDIA/nccl#557 (https://github.com/NVIDIA/nccl/issues/557: NUMA N/A)."""
    for stem in ("f026_", "d021_"):
        assert "report NUMA node" not in said_in_all(explain(_read(stem), host="other"))


def test_two_gpus_joined_by_an_odd_number_of_nvlinks_warn_of_a_link_that_did_not_train():
    """NVIDIA/nccl#557 (https://github.com/NVIDIA/nccl/issues/557): two GPUs at NV3; bridges carry links in pairs
    (NV2, NV4, NV12), so one did not train, as with a bridge not fully seated: a hedged warning naming the check."""
    sections = explain(_read("d021_"), host="other", nodes=1)
    assert worst_level(sections) == "warn"
    said = said_in_all(sections, "warn")
    assert "NV3, an odd number of NVLinks" in said and "nvidia-smi nvlink -s" in said


def test_an_even_nvlink_pair_is_not_called_odd():
    """The neighbours: an H200 pair at NV18 (tests/fixtures/real h200x2, captured here) and two 3090 pairs at NV4
    (aikitoria/open-gpu-kernel-modules PR 18, https://github.com/aikitoria/open-gpu-kernel-modules/pull/18)."""
    two = "GPU0\tGPU1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tNV18\t0-31\t0\nGPU1\tNV18\t X \t0-31\t0\n"
    assert "odd number" not in said_in_all(explain(two, host="other"))
    assert "odd number" not in said_in_all(explain(_read("k018_"), host="other"))
    one = two.replace("NV18", "NV1")  # two GPUs of a DGX-1 (V100/P100 SXM2) slice: one link by design
    assert "odd number" not in said_in_all(explain(one, host="other"))


def test_gpud_on_a_unified_memory_gpu_reads_its_fallback_and_its_healthy_state():
    """leptonai/gpud#1170 (https://github.com/leptonai/gpud/issues/1170): on a GB10, NVML's memory queries answer Not
    Supported, gpud falls back to system memory and reports accelerator-nvidia-memory Healthy: notes, no warning."""
    sections = explain(_read("m025_"), host="spark", nodes=1)
    assert worst_level(sections) == "info"
    said = said_in_all(sections)
    assert "unified memory (NVIDIA-GB10)" in said and "accelerator-nvidia-memory check reports Healthy" in said
    assert not any(s.error for s in sections)  # the v2 and v1 lines are read as the same fallback


def test_gpud_unhealthy_state_is_not_said_healthy():
    """The neighbour: a gpud component state that is Unhealthy (the same shape, leptonai/gpud's states output) is not
    read as Healthy."""
    bad = ('    "component": "accelerator-nvidia-memory",\n    "states": [\n      {\n        "health": "Unhealthy",\n'
           '        "reason": "row remapping pending",\n')
    assert "reports Healthy" not in said_in_all(explain(bad, host="other"))


def test_a_worker_ray_start_that_reached_its_block_line_joined_the_cluster():
    """tom-doerr/llm (https://github.com/tom-doerr/llm/blob/760cf91214ddd3977d9f098f93aba033f43ab1e2/crash-logs/
    20260313_103305/spark3.log, a worker's start on a second Spark) and MiniMax-AI/MiniMax-M2.5#30
    (https://github.com/MiniMax-AI/MiniMax-M2.5/issues/30): `Ray runtime started.` then the --block line, with no head's next steps between: a worker's, which Ray
    prints only after its raylet registered with the head's GCS: joined, nothing wrong."""
    for stem, folder in (("wn002_", "pending"), ("zc016_", "corpus")):
        sections = explain(_read(stem, folder), host="spark", nodes=2)
        said = said_in_all(sections)
        assert "Ray runtime started (worker)" in said and "this node joined the cluster" in said
        assert worst_level(sections) == "info"


def test_a_head_ray_start_still_shows_only_the_head():
    """The neighbour: Tongyi-Zhiwen/Qwen-Doc#6 (https://github.com/Tongyi-Zhiwen/Qwen-Doc/issues/6): a head's start with its next steps (`ray start
    --address='10.88.0.182:6382'`): it shows the head only, not that workers joined."""
    said = said_in_all(explain(_read("wv004_", "pending"), host="other", nodes=2))
    assert "joined the cluster" not in said and "this shows only the head" in said


def test_a_rank_stopped_by_a_triton_kernel_load_then_timed_out_by_the_watchdog():
    """ajclark's four-Spark incident log (https://github.com/ajclark/GLM-5.3-DCP4-DFlash2-NVMe-KV-Offload-4x-DGX-Spark/
    blob/592be410a05f01b58dd3c1be3c585b9b14b4e62f/results/incident-20260907-1418-workers-exited/spark-06c4.log): rank 0's worker raises `Triton Error [CUDA]:
    operation not permitted` at load_binary, PyTorch's watchdog is told of a collective timeout from rank 3 (this
    rank's last enqueued work -1) and terminates it, and the engine loses the worker: each said, as fails."""
    sections = explain(_read("vb003_", "pending"), host="spark", nodes=4)
    said = said_in_all(sections, "fail")
    assert "Triton kernel failed at the CUDA driver" in said and "`operation not permitted`" in said
    assert "watchdog on rank 3 timed a collective out" in said and "never reached the collective" in said


def test_the_watchdog_dump_of_a_rank_that_had_work_in_flight_is_not_called_behind():
    """The neighbour (PyTorch's ProcessGroupNCCL.cpp heartbeat monitor message, https://github.com/pytorch/pytorch/blob/
    main/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp): a rank whose last enqueued work is 57 is not said to have
    never reached the collective; and a worker's death said beside its cause is not said again."""
    line = ("[rank1]:[E907 21:09:45.07 ProcessGroupNCCL.cpp:1914] [PG ID 0 PG GUID 0 Rank 1] Received a dump signal due "
            "to a collective timeout from rank 0 and we will try our best to dump the debug info. Last enqueued NCCL "
            "work: 57, last completed NCCL work: 56.\n")
    said = said_in_all(explain(line, host="other"), "fail")
    assert "timed a collective out" in said and "never reached" not in said
    died = ("(EngineCore pid=185) ERROR 09-07 21:18:35 [multiproc_executor.py:284] Worker proc VllmWorker-0 died "
            "unexpectedly, shutting down executor.\n")
    assert "lost its worker process VllmWorker-0" in said_in_all(explain(died, host="other"), "fail")


def test_kv_trend_is_read_behind_a_long_process_prefix():
    """The same V1 stats lines as vllm-project/vllm#18115 (https://github.com/vllm-project/vllm/issues/18115) behind a
    data-parallel engine's longer prefix, `(EngineCore_DP0 pid=1234567)`: the clock is still found, the trend read."""
    line = ("(EngineCore_DP0 pid=1234567) (APIServer pid=7654321) INFO 07-28 06:4{m}:{s} [loggers.py:118] Engine 000: "
            "Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 239.2 tokens/s, Running: 8 reqs, "
            "Waiting: 0 reqs, GPU KV cache usage: {kv}%, Prefix cache hit rate: 0.0%\n")
    text = line.format(m=0, s=59, kv=91.2) + line.format(m=1, s=19, kv=91.9)
    assert "nearly full but none waits" in said_in_all(explain(text), "info")


def test_nvidia_smi_xml_at_p8_is_read_as_idle():
    """netdata/netdata#15755 (https://github.com/netdata/netdata/issues/15755): a fragment of an RTX 4090's
    `nvidia-smi -q -x` with `<power_state>P8</power_state>` and 210 MHz clocks: idle, a note."""
    sections = explain(_read("zs020_", "pending"), host="other")
    assert worst_level(sections) == "info"
    said = said_in_all(sections, "info")
    assert "performance state P8" in said and "idleness, not a fault" in said


def test_nvidia_smi_xml_at_p0_or_p5_is_not_called_idle_by_its_state():
    """The neighbours: the same XML at P0 (a GPU at work) and netdata/netdata#2922's fragment at P5
    (https://github.com/netdata/netdata/issues/2922, read by its clock reasons) are not read as an idle P-state."""
    busy = "                <performance_state>P0</performance_state>\n"
    assert "performance state P0" not in said_in_all(explain(busy, host="other"))
    assert "XML report" not in said_in_all(explain(_read("xf015_", "pending"), host="other"))


def test_a_set_x_trace_after_a_ray_head_start_is_said_as_a_trace():
    """Tongyi-Zhiwen/Qwen-Doc#6 (https://github.com/Tongyi-Zhiwen/Qwen-Doc/issues/6): after `Ray runtime started.`, a
    launch script's `+ MODEL_PATH=...` trace: what it set, its outcome not in the paste, instead of `could not tell`."""
    sections = explain(_read("wv004_", "pending"), host="other", nodes=1)
    assert not any(s.error for s in sections)
    said = said_in_all(sections, "info")
    assert "A shell's trace of a script" in said and "not in this paste" in said


def test_one_plus_line_or_a_diff_is_not_a_trace():
    """The neighbours: a single `+ X=1` line (too little to call a trace) and a unified diff's added lines (`+VAR=`,
    no blank after the plus) are not read as a shell's trace."""
    assert "shell's trace" not in said_in_all(explain("+ X=1\n", host="other"))
    diff = "--- a/run.sh\n+++ b/run.sh\n@@ -1,2 +1,3 @@\n+MODEL=llama\n+PORT=8000\n"
    assert "shell's trace" not in said_in_all(explain(diff, host="other"))
