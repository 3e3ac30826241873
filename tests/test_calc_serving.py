"""grader.calc.serving: worked examples with the arithmetic written out here, checked against vLLM's own
numbers for the sim's tiny model (shared/fixtures/real/vllm-cpu: the startup logs and /metrics)."""

from __future__ import annotations

import pytest

from grader.calc import memory
from grader.calc import serving as sv
from grader.parsers.vllm_api import parse_metrics
from grader.parsers.vllm_log import parse_vllm_log
from grader.sim.tiny_model import RECIPE
from tests.conftest import real_fixture

GIB = 2 ** 30

# Published config.json figures (Hugging Face model repositories), as a learner would paste them.
LLAMA_31_8B = {"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 32,
               "num_attention_heads": 32, "num_key_value_heads": 8, "torch_dtype": "bfloat16",
               "max_position_embeddings": 131072}
LLAMA_31_70B = {"hidden_size": 8192, "num_hidden_layers": 80, "num_attention_heads": 64, "num_key_value_heads": 8,
                "torch_dtype": "bfloat16"}
LLAMA_2_7B = {"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "torch_dtype": "float16"}
DEEPSEEK_V3 = {"hidden_size": 7168, "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128,
               "kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128,
               "torch_dtype": "bfloat16"}
TINY = {"architectures": ["LlamaForCausalLM"], **{k: v for k, v in RECIPE.items() if k not in ("generator", "seed")}}


# --------------------------------------------------------------------------- KV bytes per token

def test_llama_31_8b_is_128_kib_per_token():
    # 32 layers x 8 KV heads x 128 head dim (4096 / 32) x 2 (K and V) x 2 bytes (bf16) = 131,072 B
    kvb = sv.kv_bytes_per_token(LLAMA_31_8B)
    assert kvb.total == 32 * 8 * 128 * 2 * 2 == 131_072
    assert kvb.per_rank == kvb.total and kvb.dtype_bytes == 2 and not kvb.sliding_window
    assert kvb.shape.head_dim == 128 and "hidden_size / num_attention_heads" in kvb.shape.notes[0]


def test_per_rank_share_under_tp_and_pp():
    # TP=2: each rank holds 4 of the 8 KV heads of every layer: 32 x 4 x 128 x 2 x 2 = 65,536 B
    assert sv.kv_bytes_per_token(LLAMA_31_8B, tp=2).per_rank == 32 * 4 * 128 * 2 * 2 == 65_536
    # PP=2: each rank holds 16 of the 32 layers, all heads: 16 x 8 x 128 x 2 x 2 = 65,536 B
    pp = sv.kv_bytes_per_token(LLAMA_31_8B, pp=2)
    assert pp.per_rank == 65_536 and pp.layers_per_rank == 16 and pp.total == 131_072
    # TP=2 x PP=2: 16 layers x 4 heads
    assert sv.kv_bytes_per_token(LLAMA_31_8B, tp=2, pp=2).per_rank == 16 * 4 * 128 * 2 * 2
    # fewer KV heads than ranks: vLLM replicates, one head per rank (2 heads, TP=4)
    assert sv.kv_bytes_per_token(TINY, tp=4).kv_heads_per_rank == 1


def test_llama_31_70b_matches_the_lesson_3_calculator():
    # 80 x 8 x 128 x 2 x 2 = 327,680 B = 320 KiB, the figure grader.calc.memory documents
    assert sv.kv_bytes_per_token(LLAMA_31_70B).total == 327_680 == memory.kv_bytes_per_token(80, 8, 128, 2)


def test_dtypes_auto_fp8_and_mha():
    # Llama 2 7B has no num_key_value_heads: multi-head attention, 32 KV heads, fp16
    assert sv.kv_bytes_per_token(LLAMA_2_7B).total == 32 * 32 * 128 * 2 * 2 == 524_288
    # --kv-cache-dtype fp8: one byte per element
    assert sv.kv_bytes_per_token(LLAMA_31_8B, "fp8").total == 32 * 8 * 128 * 2 * 1
    assert sv.kv_bytes_per_token({**LLAMA_31_8B, "torch_dtype": "float32"}).total == 32 * 8 * 128 * 2 * 4
    # newer transformers write "dtype" instead of "torch_dtype"
    cfg = {k: v for k, v in LLAMA_31_8B.items() if k != "torch_dtype"} | {"dtype": "bfloat16"}
    assert sv.kv_bytes_per_token(cfg).total == 131_072
    assert sv.dtype_bytes("torch.bfloat16") == 2 and sv.dtype_bytes("auto", "float16") == 2


def test_mla_latent_is_not_split_by_tp():
    # DeepSeek-V3: 61 layers x (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 bytes = 70,272 B per token
    kvb = sv.kv_bytes_per_token(DEEPSEEK_V3)
    assert kvb.shape.is_mla and kvb.total == 61 * (512 + 64) * 2 == 70_272
    assert sv.kv_bytes_per_token(DEEPSEEK_V3, tp=2).per_rank == 70_272
    # PP=2: vLLM gives the 61st layer to the first stage: 31 + 30; the larger stage decides
    assert sv.pp_layers(61, 2) == [31, 30]
    assert sv.kv_bytes_per_token(DEEPSEEK_V3, pp=2).per_rank == 31 * 576 * 2 == 35_712


def test_sliding_window_caveat():
    mistral = {"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
               "sliding_window": 4096, "torch_dtype": "bfloat16"}
    kvb = sv.kv_bytes_per_token(mistral)
    assert kvb.sliding_window and kvb.shape.sliding_window == 4096 and kvb.total == 131_072
    assert any("upper bound" in n for n in kvb.shape.notes)
    # Qwen2 configs carry a sliding_window but switch it off
    qwen = {**mistral, "use_sliding_window": False, "sliding_window": 131072}
    assert not sv.kv_bytes_per_token(qwen).sliding_window
    # Gemma-3-like: 5 sliding layers for each full one, inside text_config
    gemma = {"architectures": ["Gemma3ForConditionalGeneration"], "torch_dtype": "bfloat16",
             "text_config": {"hidden_size": 2560, "num_hidden_layers": 6, "num_attention_heads": 8,
                             "num_key_value_heads": 4, "head_dim": 256, "sliding_window": 1024,
                             "layer_types": ["sliding_attention"] * 5 + ["full_attention"]}}
    kvb = sv.kv_bytes_per_token(gemma)
    per_layer = 4 * 256 * 2 * 2
    assert kvb.total == 6 * per_layer and kvb.full_attention_only == 1 * per_layer
    assert kvb.sliding_window and kvb.shape.full_attention_layers == 1
    assert any("text_config" in n for n in kvb.shape.notes)


@pytest.mark.parametrize("config, words", [
    ({"hidden_size": 10}, "num_hidden_layers"),
    ({"num_hidden_layers": 2}, "neither"),
    ("not a dict", "dict"),
])
def test_unreadable_configs(config, words):
    with pytest.raises(ValueError, match=words):
        sv.kv_bytes_per_token(config)


def test_bad_arguments():
    with pytest.raises(ValueError):
        sv.kv_bytes_per_token(LLAMA_31_8B, "int3")
    with pytest.raises(ValueError):
        sv.kv_bytes_per_token(LLAMA_31_8B, tp=0)
    with pytest.raises(ValueError):
        sv.pp_layers(2, 3)
    with pytest.raises(ValueError):
        sv.dtype_bytes("auto")


# --------------------------------------------------------------------------- the sim's tiny model vs vLLM's own log

def test_tiny_model_kv_matches_vllm_cpu_logs():
    # 4 layers x 2 KV heads x (128 / 4 = 32) x 2 x 2 bytes = 1,024 B per token
    kvb = sv.kv_bytes_per_token(TINY)
    assert kvb.total == 4 * 2 * 32 * 2 * 2 == 1024
    # single server, VLLM_CPU_KVCACHE_SPACE=1 (1 GiB): 2**30 / 1024 = 1,048,576 tokens, 2048x at 512
    one = sv.predict_kv_capacity(TINY, 1.0, max_model_len=512)
    log = parse_vllm_log(real_fixture("vllm-cpu/07_*").read_text())
    assert (one.tokens, one.concurrency) == (log.kv[0].tokens, log.kv[0].concurrency) == (1_048_576, 2048.0)
    assert log.kv_memory[0].gib == 1.0  # the budget the log states
    # PP=2 over Ray: each rank holds 2 layers (512 B per token) in its own 1 GiB: 2,097,152 tokens, 4096x
    two = sv.predict_kv_capacity(TINY, 1.0, pp=2, max_model_len=512)
    log = parse_vllm_log(real_fixture("vllm-cpu/17_*").read_text())
    assert (two.tokens, two.concurrency) == (log.kv[0].tokens, log.kv[0].concurrency) == (2_097_152, 4096.0)
    # TP=2 splits the 2 KV heads instead: the same 512 B per rank (research/vllm_cpu.md §4)
    assert sv.predict_kv_capacity(TINY, 1.0, tp=2).tokens == 2_097_152


def test_tiny_model_kv_matches_vllm_cpu_metrics():
    m = parse_metrics(real_fixture("vllm-cpu/09_*").read_text())
    memory_bytes = int(m.cache_config["kv_cache_memory_bytes"])
    tokens = int(m.cache_config["kv_cache_size_tokens"])
    assert memory_bytes / tokens == sv.kv_bytes_per_token(TINY).total == 1024
    assert sv.kv_tokens(memory_bytes / GIB, 1024, block_size=int(m.cache_config["block_size"])) == tokens


# --------------------------------------------------------------------------- weights, budget, tokens, concurrency

def test_weights():
    # Llama-3.1-8B: 8.03e9 parameters x 2 bytes = 16.06e9 B = 16.06 GB = 14.96 GiB
    w = sv.weights_from_params(8.03e9, "bfloat16")
    assert w.bytes == 16.06e9 and w.gb == pytest.approx(16.06) and w.gib == pytest.approx(16.06e9 / 2 ** 30)
    assert round(w.gib, 2) == 14.96
    idx = {"metadata": {"total_size": 16060522496}, "weight_map": {"lm_head.weight": "model-00004-of-00004.safetensors"}}
    assert sv.weights_from_index(idx).bytes == 16_060_522_496
    assert sv.weights_from_index({"metadata": {"total_size": "2202010"}}).bytes == 2_202_010
    with pytest.raises(ValueError):
        sv.weights_from_index({"weight_map": {}})
    with pytest.raises(ValueError):
        sv.weights_from_params(0)


def test_budget_tokens_and_concurrency_on_a_spark():
    # 121.69 GiB x 0.8 = 97.352 GiB; minus 35 GiB weights and 2 GiB activations = 60.352 GiB
    budget = sv.kv_budget_gib(121.69, 0.8, 35.0, activation_gib=2.0)
    assert budget == pytest.approx(121.69 * 0.8 - 37.0)
    # at Llama-3.1-8B's 131,072 B per token: 60.352 x 2**30 / 131,072 = 494,403 tokens (floored)
    tokens = sv.kv_tokens(budget, 131_072)
    assert tokens == int(budget * 2 ** 30 // 131_072) == 494_403
    assert sv.kv_tokens(budget, 131_072, block_size=16) == 494_400
    # concurrency as vLLM prints it: tokens / max model len
    assert sv.max_concurrency(tokens, 32_768) == pytest.approx(494_403 / 32_768)
    assert sv.kv_tokens(-1.0, 1024) == 0
    with pytest.raises(ValueError):
        sv.kv_budget_gib(100, 1.5, 1)
    with pytest.raises(ValueError):
        sv.max_concurrency(10, 0)


def test_prediction_from_memory_and_utilization():
    # two Sparks, TP=2, Llama-3.1-8B: weights 8.03e9 x 2 B = 16.06e9 B = 14.957 GiB, half on each rank;
    # per rank 121.69 x 0.8 - 14.957 / 2 = 89.873 GiB; 89.873 x 2**30 / 65,536 (4 of 8 heads) = 1,472,487
    weights = 16.06e9 / 2 ** 30
    per_rank = 121.69 * 0.8 - weights / 2
    p = sv.predict_from_memory(LLAMA_31_8B, 121.69, 0.8, weights, tp=2, max_model_len=131_072)
    assert p.budget_gib == pytest.approx(per_rank) and p.bytes_per_token == 65_536
    assert p.tokens == int(per_rank * 2 ** 30 // 65_536) == 1_472_487
    assert p.concurrency == pytest.approx(1_472_487 / 131_072) and p.fits_one_request
    # too little memory: nothing fits
    tiny = sv.predict_from_memory(LLAMA_31_8B, 16.0, 0.9, weights, max_model_len=8192)
    assert tiny.tokens == 0 and tiny.fits_one_request is False


def test_kv_needed_matches_the_spark_kv_too_small_error():
    # procedure.md §3.4 (EUGR396): 23.25 GiB needed at max model len 196,608, i.e. 126,976 B per token
    assert sv.kv_needed_gib(196_608, 126_976) == pytest.approx(23.25)
    # with 22.5 GiB available: 22.5 x 2**30 / 126,976 = 190,265.7 -> 190,265 tokens; in whole blocks of 16
    # tokens 190,256 (the length used in the synthetic KV-too-small line of test_parsers_serving)
    assert sv.kv_tokens(22.5, 126_976) == 190_265
    assert sv.kv_tokens(22.5, 126_976, block_size=16) == 190_256


# --------------------------------------------------------------------------- world size

def test_world_size_on_two_sparks():
    no_backend = sv.check_world_size(2, nodes=2, gpus_per_node=1)
    assert (no_backend.world_size, no_backend.gpus_needed, no_backend.gpus_available) == (2, 2, 2)
    assert no_backend.fits and no_backend.multi_node and not no_backend.backend_ok
    assert no_backend.message.startswith("World size (2) is larger than the number of available GPUs (1) in this "
                                         "node.") and "--distributed-executor-backend ray" in no_backend.message
    assert sv.check_world_size(2, nodes=2, gpus_per_node=1, backend="ray").message is None
    assert sv.check_world_size(1, 2, nodes=2, gpus_per_node=1, nnodes=2).backend_ok
    too_big = sv.check_world_size(4, nodes=2, gpus_per_node=1, backend="ray")
    assert not too_big.fits and "4 GPUs" in too_big.message and "has 2" in too_big.message
    # DP=2 of TP=1: each Spark a full replica; no group spans nodes
    dp = sv.check_world_size(1, 1, 2, nodes=2, gpus_per_node=1)
    assert dp.world_size == 1 and dp.gpus_needed == 2 and dp.fits and dp.backend_ok and dp.message is None
    # one node with two GPUs: TP=2 needs no multi-node backend
    assert sv.check_world_size(2, nodes=1, gpus_per_node=2).message is None
    assert sv.nodes_needed(2, 1) == 2 and sv.nodes_needed(8, 4) == 2
    with pytest.raises(ValueError):
        sv.check_world_size(0)
