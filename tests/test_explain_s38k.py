"""Session 38, helper k (issue 27): the blind batches wi/wj's serving pastes (vLLM logs, Ray, load tests, GPU
tables); each on the real output (read from the pending corpus by path) and a neighbour it must stay quiet on."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import levels, messages

PENDING = Path(__file__).parent / "fixtures" / "field" / "pending"


def _paste(prefix: str) -> str:
    [path] = PENDING.glob(prefix + "_*.txt")
    return path.read_text()


def test_a_vllm_log_ending_at_the_pynccl_line_warns_and_names_what_decides():
    """https://github.com/Project-HAMi/HAMi/issues/2641: the last line vLLM printed, `vLLM is using nccl==2.28.9`,
    then nothing (an LD_PRELOADed interposer deadlocked ncclCommInitRank). A warning on that condition, not a fail:
    a paste cut at that line reads the same (the lead's review of the rule)."""
    [s] = explain(_paste("wj003"), kind="vllm-log", host="other", nodes=1)
    said = messages(s, "warn")
    assert "fail" not in levels(s) and "If the process stopped there" in said
    assert "communicator init" in said and "cannot tell why" in said
    assert "NCCL_DEBUG=INFO" in said and "py-spy" in said


def test_a_vllm_log_that_goes_on_past_the_pynccl_line_is_not_called_stuck():
    """https://github.com/ursuciprian/qwen3.8-flash-next-dgx-spark-tp-2 (rank-0 serve log): `vLLM is using
    nccl==2.30.7`, then the all-reduce backends, weights and KV cache: a healthy start, the engine came up."""
    [s] = explain(_paste("wi012"), kind="vllm-log", host="spark", nodes=2)
    assert "fail" not in levels(s) and "NCCL set-up" not in messages(s)
    assert "came up" in messages(s) and "healthy start" in messages(s)


def test_a_pynccl_line_in_the_middle_of_a_log_is_not_its_end():
    """vLLM's own start-up order (pynccl.py, then custom_all_reduce.py): the version line followed by another."""
    text = ("(Worker pid=1) INFO 08-12 20:26:09 [pynccl.py:113] vLLM is using nccl==2.28.9\n"
            "(Worker pid=1) INFO 08-12 20:26:10 [custom_all_reduce.py:35] Skipping P2P check and trusting the "
            "driver's P2P report.\n")
    [s] = explain(text, kind="vllm-log", host="other", nodes=1)
    assert "NCCL set-up" not in messages(s)


def test_a_load_test_with_no_failure_count_never_speaks_of_failed_requests():
    """https://github.com/vllm-project/vllm/pull/23369: `vllm bench serve`, 1000 successful, no failure line."""
    [_, s] = explain(_paste("wi008"), host="other", nodes=1)
    said = messages(s)
    assert "1000 requests succeeded" in said and "cannot be ruled out" in said
    assert "failed requests" not in said.lower()


def test_a_plain_nvidia_smi_table_of_two_gpus_does_not_name_nvlink():
    """https://github.com/noonghunna/club-3090/issues/1251: two RTX 5090s, the plain table (which shows no link)."""
    [s] = explain(_paste("wi006"), kind="nvidia-smi", host="other", nodes=1)
    assert "nvlink" not in messages(s).lower() and "`nvidia-smi topo -m` shows that" in messages(s)


def test_a_head_only_ray_start_of_a_two_node_cluster_says_only_the_head_is_shown():
    """https://github.com/volcengine/verl/issues/2515: the head's `ray start` output; the job then saw 8 of 16
    GPUs, i.e. the worker's side (not pasted) decides."""
    [s] = explain(_paste("wj016"), kind="ray-start", host="other", nodes=2)
    said = messages(s)
    assert "fail" not in levels(s) and "warn" not in levels(s)
    assert "only the head" in said and "`ray status` on the head" in said


def test_a_head_only_ray_start_of_one_node_stays_plain():
    """Ray's own `ray start --head` output (docs.ray.io, Starting Ray on the command line), one node asked."""
    text = ("Local node IP: 192.168.1.10\n--------------------\nRay runtime started.\n--------------------\n"
            "Next steps\n  To add another node to this Ray cluster, run\n    ray start --address='192.168.1.10:6379'\n")
    [s] = explain(text, kind="ray-start", host="other", nodes=1)
    assert "only the head" not in messages(s) and "ok" in levels(s)


def test_a_mismatched_pair_under_wsl2_warns_that_the_smaller_card_limits_tensor_parallel():
    """https://github.com/imoneoi/openchat/issues/117: nvidia-smi 545.29.04 with driver 546.17 (WSL2), an RTX 4090
    of 24 GB beside an RTX 4060 Ti of 16 GB."""
    [s] = explain(_paste("wj017"), kind="nvidia-smi", host="other", nodes=1)
    said = messages(s)
    assert "warn" in levels(s) and "fail" not in levels(s)
    assert "Mismatched GPUs" in messages(s, "warn") and "16380 MiB" in messages(s, "warn")
    assert "WSL2" in said and "546.17" in said


def test_a_pair_of_one_model_has_no_mismatch_nor_wsl_note():
    """https://github.com/noonghunna/club-3090/issues/1251: two RTX 5090s, the newer header (KMD Version)."""
    [s] = explain(_paste("wi006"), kind="nvidia-smi", host="other", nodes=1)
    assert "Mismatched" not in messages(s) and "Mixed GPU models" not in messages(s) and "WSL" not in messages(s)
    assert "warn" not in levels(s)


def test_two_models_of_near_equal_memory_on_linux_stay_an_info():
    """NVIDIA's nvidia-smi table on Linux (its tool and driver of one version): an RTX 3090 and an RTX 3090 Ti, both
    24 GB: only the note that tensor parallel runs at the slower card's pace."""
    row = ("|   {i}  NVIDIA GeForce RTX 3090{ti}    Off | 00000000:0{i}:00.0 Off |                  N/A |\n"
           "| 30%   35C    P8              20W / 350W |      5MiB / 24{m}MiB |      0%      Default |\n"
           "|                                         |                      |                  N/A |\n"
           "+-----------------------------------------+----------------------+----------------------+\n")
    text = ("+---------------------------------------------------------------------------------------+\n"
            "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
            "|-----------------------------------------+----------------------+----------------------+\n"
            "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
            "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |\n"
            "|                                         |                      |               MIG M. |\n"
            "|=========================================+======================+======================|\n"
            + row.format(i=0, ti="   ", m="576") + row.format(i=1, ti=" Ti", m="564"))
    [s] = explain(text, kind="nvidia-smi", host="other", nodes=1)
    assert "Mixed GPU models" in messages(s, "info")
    assert "warn" not in levels(s) and "WSL" not in messages(s)


CORPUS = PENDING.parent / "corpus"


def test_club3090_bench_runs_are_read_with_prefill_and_a_steady_decode():
    """https://github.com/noonghunna/club-3090/issues/939: bench.sh on two RTX 5090s, prefill at 10k and 90k tokens,
    five measured decode runs of 176-181 tok/s (CV 1.1%)."""
    [s] = explain(_paste("wj012"), host="other", nodes=1)
    said = messages(s)
    assert s.kind == "rig-report" and "warn" not in levels(s) and "fail" not in levels(s)
    assert "Prefill prefill-90k: 3,563-3,596 tok/s" in said and "slower for the longer prompt" in said
    assert "decode: 176.2-181.3 tok/s over 5 measured run(s)" in said and "steady" in said and "1.1%" in said
    assert "throttl" not in said


def test_club3090_bench_runs_of_a_wider_spread_are_not_called_steady():
    """https://github.com/noonghunna/club-3090/issues/1086 (corpus zu002), its measured runs rewritten to differ by
    about a third: a wide spread, said as such, and no all-well line."""
    [path] = CORPUS.glob("zu002_*.txt")
    text = path.read_text().replace("decode_TPS=182.46", "decode_TPS=92.46").replace("decode_TPS=187.92",
                                                                                      "decode_TPS=87.92")
    [s] = explain(text, host="other", nodes=1)
    said = messages(s)
    assert "a wide spread" in said and "steady" not in said and "Nothing in these runs points" not in said
    [steady] = explain(path.read_text(), host="other", nodes=1)
    assert "steady" in messages(steady) and "2.4%" in messages(steady)


def test_a_power_cap_sweep_of_the_same_project_is_not_read_as_its_bench_runs():
    """https://github.com/noonghunna/club-3090/issues/698 (pending zs015): `[bench] decode-single @ 220W cap` lines
    of a power sweep, not bench.sh's prefill or decode runs."""
    [path] = PENDING.glob("zs015_*.txt")
    assert all(s.kind != "rig-report" for s in explain(path.read_text(), host="other", nodes=1))


_SPANS = "Custom allreduce is disabled because this process group spans across nodes."


def test_an_sglang_log_ending_after_the_cross_node_custom_allreduce_line_fails_and_names_the_address():
    """Corpus wj014 (two DGX Sparks, SGLang TP=2: both ranks stop after `CustomAllreduce is disabled because this
    process group spans across nodes.`, the cross-node message queue bound to the Wi-Fi address); SGLang's log lines
    as it prints them (https://github.com/sgl-project/sglang, docs/references/environment_variables.md for
    SGLANG_HOST_IP)."""
    text = ("[2025-09-10 10:00:01 TP0] Init torch distributed begin.\n"
            f"[2025-09-10 10:00:03 TP0] {_SPANS}\n")
    [s] = explain(text, kind="sglang-log", host="spark", nodes=2)
    said = messages(s, "warn")
    assert "SGLANG_HOST_IP" in said and "cannot tell which" in said and "py-spy" in said


def test_the_same_line_followed_by_the_weights_loading_is_no_hang():
    """SGLang goes on to load the weights after that line (its `Load weight begin` line)."""
    text = ("[2025-09-10 10:00:01 TP0] Init torch distributed begin.\n"
            f"[2025-09-10 10:00:03 TP0] {_SPANS}\n"
            "[2025-09-10 10:00:05 TP0] Load weight begin. avail mem=110.12 GB\n")
    [s] = explain(text, kind="sglang-log", host="spark", nodes=2)
    assert "fail" not in levels(s) and "SGLANG_HOST_IP" not in messages(s)


def test_a_vllm_log_ending_at_the_same_line_names_vllm_host_ip():
    """vLLM's Ray workers across two nodes (custom_all_reduce.py's warning), then nothing."""
    text = ("(RayWorkerWrapper pid=1234, ip=10.0.0.2) INFO 05-01 10:00:01 pynccl.py:69] vLLM is using nccl==2.21.5\n"
            f"(RayWorkerWrapper pid=1234, ip=10.0.0.2) WARNING 05-01 10:00:02 custom_all_reduce.py:134] {_SPANS}\n")
    [s] = explain(text, kind="vllm-log", host="other", nodes=2)
    assert "VLLM_HOST_IP on each node" in messages(s, "warn") and "NCCL set-up" not in messages(s)


_CUDA_UNKNOWN = ("(EngineCore_0 pid=300)   File \"/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py\", "
                 "line 372, in _lazy_init\n(EngineCore_0 pid=300)     torch._C._cuda_init()\n"
                 "(EngineCore_0 pid=300) RuntimeError: CUDA unknown error - this may be due to an incorrectly set up "
                 "environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the "
                 "available devices to be zero.\n")


def test_cuda_unknown_error_at_init_on_a_spark_names_unified_memory_hedged():
    """https://github.com/tonyd2wild/GLM-5.3-Flash-NVFP4-DFlash2-2x-DGX-Spark/issues/6 (pending wj010): the head's
    rank 0 dies at torch._C._cuda_init() with `CUDA unknown error` after an OOM-killed launch."""
    [s] = explain(_CUDA_UNKNOWN, kind="vllm-log", host="spark", nodes=2)
    said = messages(s, "fail")
    assert "CUDA could not initialise" in said and "share one memory" in said and "cannot tell which" in said
    assert "not the network" in said and "NCCL_SOCKET_IFNAME" not in said


def test_cuda_unknown_error_elsewhere_names_no_spark_memory():
    """The same PyTorch line on a machine that is not a Spark: the general causes, no unified memory."""
    [s] = explain(_CUDA_UNKNOWN, kind="vllm-log", host="other", nodes=1)
    said = messages(s, "fail")
    assert "CUDA could not initialise" in said and "share one memory" not in said and "drop_caches" not in said


def test_a_small_card_driving_the_display_beside_a_large_one_is_no_mismatch_warning():
    """corpus wj017's table (openchat#117) with its RTX 4060 Ti driving the desktop (Disp.A On): a display card,
    not a tensor-parallel partner, so only the mixed-models note."""
    text = _paste("wj017").replace("| 00000000:0C:00.0 Off |", "| 00000000:0C:00.0  On |")
    [s] = explain(text, kind="nvidia-smi", host="other", nodes=1)
    assert "Mismatched GPUs" not in messages(s) and "warn" not in levels(s)
    assert "Mixed GPU models" in messages(s)


def test_a_banner_only_log_on_one_machine_gives_no_ray_advice():
    """https://github.com/eugr/spark-vllm-docker/issues/193 (pending wj006): a solo Spark launch, the banner only;
    `explain --nodes 1` says one machine, so no `ray status` nor --nnodes advice; two nodes keep it."""
    [one] = explain(_paste("wj006"), kind="vllm-log", host="spark", nodes=1)
    assert "No error in this log" in messages(one) and "ray status" not in messages(one)
    assert "lines after these decide" in messages(one)
    [two] = explain(_paste("wj006"), kind="vllm-log", host="spark", nodes=2)
    assert "ray status" in messages(two)
