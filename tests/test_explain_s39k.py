"""Session 39 (issue 27), blind batch wt: a request SGLang refused for its length, read against the KV pool and context
the same log shows; and torch's glog-style warnings (`W0607 ... torch/utils/_pytree.py:630]`), which are not an NCCL
log. Each on a real output from the field corpus (its source in the entry's .toml)."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import levels, messages

PENDING = Path(__file__).parent / "fixtures" / "field" / "pending"
KV674 = PENDING / "wt007_other_jethac-spark-sglang-kv674-tokens-memfrac020-input-rejected.txt"
FP4KV = PENDING / "wt009_other_jethac-spark-sglang-fp4kv-triton-kvfp4-importerror.txt"
SERVING = PENDING / "wr006_other_sostrowsk-spark-sglang-laguna-int4-serving-then-sigterm-stop.txt"
REFUSED = ("[2026-08-01 23:50:00] Input length ({n} tokens) exceeds the maximum allowed length ({m} tokens). Use a "
           "shorter input or enable --allow-auto-truncate., self.rid='5e26d0e0bf93440faecb7d9d2b471c37'\n")


def _sglang(text: str):
    return next(s for s in explain(text, host="spark", nodes=1) if s.kind == "sglang-log")


def test_a_request_refused_at_a_kv_pool_smaller_than_the_context_is_the_failure():
    """https://github.com/jethac/dgx-spark-hijinks (results/..._startup.log; SGLang 0.5.11, KV pool 674 tokens of a
    32,768 context): SGLang's message is sglang/srt/managers/utils.py validate_input_length,
    https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/managers/utils.py"""
    s = _sglang(KV674.read_text())
    assert "fail" in levels(s)
    said = messages(s, "fail")
    assert "668" in said and "KV pool of 674 tokens" in said and "32,768" in said and "mem-fraction-static" in said


def test_a_request_refused_at_the_context_length_is_the_client_s_prompt():
    """The same message on a healthy SGLang server (https://github.com/sostrowsk, blind batch wr006: KV pool 185,897
    tokens, context 65,536): the prompt was too long, a warn, and no KV-pool cause."""
    text = SERVING.read_text()
    assert "fail" not in levels(_sglang(text)) and "refused for length" not in messages(_sglang(text))  # silent
    s = _sglang(text + REFUSED.format(n=70000, m=65530))
    assert "fail" not in levels(s)
    said = messages(s, "warn")
    assert "refused for length" in said and "too long a prompt" in said and "KV pool of" not in said


def test_a_refusal_alone_says_which_start_up_lines_decide():
    """The refusal line alone (named as an SGLang log): no KV pool or context to weigh it against, so a hedged warn
    naming the lines that decide."""
    [s] = explain(REFUSED.format(n=2369, m=668), kind="sglang-log")
    said = messages(s, "warn")
    assert "fail" not in levels(s) and "KV Cache is allocated" in said and "context_len=" in said


def test_torch_glog_warnings_are_not_an_nccl_log():
    """https://github.com/jethac/dgx-spark-hijinks (blind batch wt009): an SGLang start-up whose torch warnings
    (`W0607 18:37:13.590000 1 torch/utils/_pytree.py:630] ...`) were taken for an NCCL log that had no NCCL line."""
    sections = explain(FP4KV.read_text(), host="spark", nodes=1)
    assert "nccl-log" not in [s.kind for s in sections]
    assert "nccl" not in " ".join(messages(s) for s in sections).lower()
    # torch.distributed's own glog lines still open an NCCL log
    dist = ("W1010 12:00:00.123000 4242 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable\n"
            "node1:4242:4242 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n")
    assert [s.kind for s in explain(dist)] == ["nccl-log"]


def test_an_sglang_server_stopped_by_sigterm_is_an_orderly_stop_not_a_crash():
    """https://github.com/sostrowsk (blind batch wr006, SGLang on a DGX Spark): it served, then `SIGTERM received ...
    Draining requests and shutting down`, a child's `exit code -15` and SIGQUIT lines (SGLang's SignalHandler,
    https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/managers/tokenizer_manager.py)."""
    s = _sglang(SERVING.read_text())
    assert "fail" not in levels(s) and "warn" not in levels(s)
    assert "stopped from outside" in messages(s, "info") and "not a crash" in messages(s, "info")
    # the same server's log cut before the stop: no such note
    head = SERVING.read_text().split("SIGTERM received")[0]
    assert "stopped from outside" not in messages(_sglang(head))


def test_a_sigterm_after_an_exception_is_not_called_an_orderly_stop():
    """A traceback before the SIGTERM (blind batch wt009's scheduler exception, a stop line appended): the failure's
    own finding reads it, and no note calls the end orderly."""
    text = FP4KV.read_text() + ("[2026-06-07 18:37:50] SIGTERM received. signum=None frame=None. Draining requests and "
                                "shutting down...\n")
    s = _sglang(text)
    assert "fail" in levels(s) and "stopped from outside" not in messages(s)


def test_vllm_s_default_moe_config_is_a_tuning_note_on_a_healthy_server():
    """https://github.com/videocuttingagent (blind batch wr009: vLLM 0.12.0, two H100s, Qwen3-VL-30B-A3B, healthy):
    `Using default MoE config. Performance might be sub-optimal! Config file not found at [...E=128,N=384,
    device_name=NVIDIA_H100_80GB_HBM3.json]` (vLLM's fused_moe.py get_moe_configs,
    https://github.com/vllm-project/vllm/blob/main/vllm/model_executor/layers/fused_moe/fused_moe.py)."""
    path = PENDING / "wr009_vllm-log_videocuttingagent-2xh100-tp2-qwen3vl-moe-healthy-default-moe-config.txt"
    [s] = [x for x in explain(path.read_text(), host="other", nodes=1) if x.kind == "vllm-log"]
    assert "fail" not in levels(s) and "warn" not in levels(s)
    said = messages(s, "info")
    assert "default tile sizes" in said and "E=128,N=384,device_name=NVIDIA_H100_80GB_HBM3.json" in said
    # a log with a tuned config (the same log without those lines) gets no such note
    tuned = "\n".join(x for x in path.read_text().splitlines() if "default MoE config" not in x)
    assert "default tile sizes" not in messages(next(x for x in explain(tuned) if x.kind == "vllm-log"))


def test_vllm_s_own_warnings_of_an_accuracy_loss_and_an_unbudgeted_cuda_graph_are_warnings():
    """Two vLLM WARNING lines that name their risk: NVFP4 fused layers with different global scales (blind batch wr007,
    https://github.com/sostrowsk, vLLM 0.25.1 on a Spark; compressed_tensors_w4a4_nvfp4.py) and the CUDA-graph memory
    estimate turned off (blind batch wt001, https://github.com/anemll; vLLM's gpu_worker.py,
    https://github.com/vllm-project/vllm/blob/main/vllm/v1/worker/gpu_worker.py). Both servers sized their KV cache."""
    for name, words in (("wr007_vllm-log_sostrowsk-spark-gemma4-nvfp4-global-scale-accuracy-warning.txt",
                         ("q_proj, k_proj, v_proj", "accuracy")),
                        ("wt001_vllm-log_anemll-gx10-tp2-kv852k-cudagraph-unprofiled.txt",
                         ("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0", "out of memory"))):
        [s] = [x for x in explain((PENDING / name).read_text(), host="spark") if x.kind == "vllm-log"]
        assert "fail" not in levels(s) and all(w in messages(s, "warn") for w in words), name
    # the healthy log beside them (wr009: profiling on, no NVFP4): neither
    path = PENDING / "wr009_vllm-log_videocuttingagent-2xh100-tp2-qwen3vl-moe-healthy-default-moe-config.txt"
    said = " ".join(messages(x) for x in explain(path.read_text()))
    assert "global scale" not in said and "ESTIMATE_CUDAGRAPHS" not in said


WQ009 = PENDING / "wq009_ethtool_supingisme-ethtool-m-sfp-10g-sr-rx-power-near-low-warning.txt"
QSFP = """$ ethtool -m enp1s0f0np0
	Identifier                                : 0x11 (QSFP28)
	Module temperature                        : 38.50 degrees C
	Rcvr signal avg optical power(Channel 1)  : 0.8765 mW / -0.57 dBm
	Rcvr signal avg optical power(Channel 2)  : 0.7943 mW / -1.00 dBm
	Rcvr signal avg optical power(Channel 3)  : 0.1047 mW / -9.80 dBm
	Rcvr signal avg optical power(Channel 4)  : 0.8128 mW / -0.90 dBm
	Laser rx power high alarm threshold       : 3.4673 mW / 5.40 dBm
	Laser rx power low alarm threshold        : 0.0468 mW / -13.30 dBm
	Laser rx power high warning threshold     : 1.7378 mW / 2.40 dBm
	Laser rx power low warning threshold      : 0.0933 mW / -10.30 dBm
"""


def test_an_optical_module_receiving_just_above_its_own_low_warning_is_warned():
    """https://github.com/supingisme (blind batch wq009): `ethtool -m` of an SFP-10G-SR receiving -13.57 dBm against its
    own low-warning threshold of -14.00 dBm (SFF-8472 thresholds in the module's EEPROM), every flag Off. (The paste's
    lines carry a `#<tab>` prefix, taken off here: that shape is not read yet.)"""
    text = WQ009.read_text().replace("#\t", "\t")
    [s] = explain(text)
    said = messages(s, "warn")
    assert "-13.57 dBm" in said and "0.43 dB above" in said and "-14 dBm" in said and "margin" in said
    # the same module receiving -2.10 dBm: an ok, no warning
    [healthy] = explain(text.replace("0.0440 mW / -13.57 dBm", "0.6166 mW / -2.10 dBm"))
    assert "warn" not in levels(healthy) and "rx power -2.1 dBm, 11.90 dB above" in messages(healthy, "ok")


def test_a_qsfp_module_s_weakest_lane_is_the_one_weighed():
    """A QSFP28's four lanes (ethtool's SFF-8636 layout, `Rcvr signal avg optical power(Channel N)`): lane 3 at -9.80
    dBm, 0.5 dB above a -10.30 dBm low warning, is the one named."""
    [s] = explain(QSFP)
    assert "enp1s0f0np0 lane 3" in messages(s, "warn") and "0.50 dB above" in messages(s, "warn")
    # the module's own rx-power flag On: its flag finding says it, no second reading
    [flagged] = explain(QSFP + "\tRcvr signal avg optical power low warning (Chan 3) : On\n")
    assert "lane 3: the module receives" not in messages(flagged)


def test_a_traceback_through_the_draft_model_s_loading_says_so():
    """https://github.com/anemll (blind batch wt002: a GB10 worker of vLLM TP=2 with a DSpark draft; the traceback runs
    through vllm/v1/worker/gpu/spec_decode/speculator.py load_draft_model, then a ValueError about the MXFP4 backend)."""
    path = PENDING / "wt002_vllm-log_anemll-gx10-worker-dspark-draft-mxfp4-backend-unsupported.txt"
    [s] = [x for x in explain(path.read_text(), host="spark") if x.kind == "vllm-log"]
    said = messages(s, "fail")
    assert "Unsupported mxfp4_backend" in said and "speculative-decoding draft model" in said
    # a traceback through the target model's loading alone names no draft
    plain = "\n".join(x for x in path.read_text().splitlines() if "spec_decode" not in x)
    [p] = [x for x in explain(plain, host="spark") if x.kind == "vllm-log"]
    assert "draft model" not in messages(p, "fail")
