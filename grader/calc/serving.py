"""Serving arithmetic for lesson 2b: KV cache per token from a model's config.json, weights size,
KV tokens that fit a memory budget, maximum concurrency, and world size against the cluster.

Units: bytes (B); GiB = 2**30 B (what vLLM prints: "Available KV cache memory: 22.5 GiB");
GB = 1e9 B (what disk and model cards print). Token counts are whole tokens.

Arithmetic and sources:

- KV bytes per token = layers x KV heads x head dim x 2 (K and V) x bytes per element
  (docs/research/procedure.md §4.2; vLLM's FullAttentionSpec page size is block_size x that).
  Llama-3.1-8B in BF16: 32 x 8 x 128 x 2 x 2 = 131,072 B (128 KiB) per token.
  head dim is ``head_dim`` when config.json gives it, else hidden_size / num_attention_heads;
  KV heads ``num_key_value_heads`` (GQA), else ``num_attention_heads`` (MHA).
- MLA models (DeepSeek-V2/V3 family: ``kv_lora_rank`` and ``qk_rope_head_dim`` in config.json)
  cache one compressed latent per layer instead of K and V per head: layers x (kv_lora_rank +
  qk_rope_head_dim) x bytes; DeepSeek-V3 (61 layers, 512 + 64) in BF16: 70,272 B per token. Under
  TP the latent is not split: every rank holds all of it (vLLM's MLA backends).
- dtype: ``--kv-cache-dtype auto`` follows the model's dtype (config.json ``torch_dtype``, or
  ``dtype`` in newer transformers); fp8 variants take 1 byte.
- Sliding window: a model whose config has ``sliding_window`` (Mistral 7B v0.1, Gemma 2/3,
  gpt-oss) or ``layer_types`` with ``sliding_attention`` keeps only the window's tokens in its
  sliding layers. The per-token figure here counts every layer as full attention: an upper bound
  for such models. vLLM sizes the layer groups separately, so its token count can be larger,
  and versions before 0.24 print a concurrency that is not tokens / max-model-len for them
  (spark/16_*: gemma-4-31B, 37,392 tokens vs 1.53x at 262,144). ``KvShape.sliding_window`` flags
  it, and ``full_attention_layers`` counts the layers that hold every token.
- Per rank: TP splits the KV heads (each rank max(1, heads // TP): with fewer KV heads than TP
  ranks vLLM replicates them); PP splits the layers (vLLM's get_pp_indices: layers // PP each,
  the remainder to the stages before the last). Each rank has its own memory budget, and vLLM
  sizes the cache by the worker with the least room (procedure.md §4.2: the minimum over
  workers), so the tokens that fit = per-rank budget / the largest per-rank share. The engine
  then prints that one token count for the whole engine.
- Budget: vLLM lets itself use total memory x gpu-memory-utilization; the KV cache gets what is
  left after the weights, the activation peak and non-torch memory (vLLM V0's profiling line:
  "total_gpu_memory x gpu_memory_utilization = ...; model weights take ...; non_torch_memory
  takes ...; PyTorch activation peak memory takes ...; the rest of the memory reserved for KV
  Cache is ..."). On the CPU backend, VLLM_CPU_KVCACHE_SPACE (GiB, per rank) sets it directly.
- Maximum concurrency = KV tokens / max-model-len (vLLM >= 0.24 prints exactly this:
  ``int(concurrency x max_model_len)`` is the token count).
- World size = TP x PP (each DP rank is another TP x PP group: GPUs needed = TP x PP x DP).
  vLLM >= 0.13 refuses a world size above the node's GPU count unless told to go multi-node
  (procedure.md §3.4: vllm/config/parallel.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

GIB = 2 ** 30
GB = 10 ** 9

DTYPE_BYTES: dict[str, float] = {
    "float32": 4, "fp32": 4, "float": 4,
    "float16": 2, "fp16": 2, "half": 2, "bfloat16": 2, "bf16": 2,
    "fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "fp8_inc": 1, "fp8_ds_mla": 1, "float8_e4m3fn": 1,
    "float8_e5m2": 1, "int8": 1, "uint8": 1,
}
"""Bytes per element for the dtypes config.json and ``--kv-cache-dtype`` use."""

WORLD_SIZE_MESSAGE = ("World size ({world}) is larger than the number of available GPUs ({gpus}) in this node. "
                      "If this is intentional and you are using:\n- ray, set '--distributed-executor-backend ray'.\n"
                      "- multiprocessing, set '--nnodes' appropriately.")
"""vLLM's own error text (procedure.md §3.4, vllm/config/parallel.py, 0.13 on)."""


def dtype_bytes(dtype: str | None, model_dtype: str | None = None) -> float:
    """Bytes per element of ``dtype`` (``"bfloat16"``, ``"torch.float16"``, ``"fp8"``...).

    ``"auto"`` (or None) means the model's dtype, ``model_dtype``. Raises ValueError for an
    unknown dtype, or ``auto`` without a model dtype.
    """
    name = (dtype or "auto").strip().lower().removeprefix("torch.")
    if name == "auto":
        if model_dtype is None:
            raise ValueError("dtype 'auto' needs the model's dtype (config.json torch_dtype)")
        return dtype_bytes(model_dtype)
    if name not in DTYPE_BYTES:
        raise ValueError(f"unknown dtype {dtype!r}; known: {', '.join(sorted(DTYPE_BYTES))}")
    return DTYPE_BYTES[name]


@dataclass(frozen=True)
class KvShape:
    """The KV-cache shape of a model, read from its config.json.

    ``layers`` (num_hidden_layers), ``kv_heads`` (num_key_value_heads, or the attention heads
    for MHA), ``head_dim`` (head_dim, or hidden_size / heads), ``model_dtype`` (torch_dtype or
    dtype, as written); for MLA models ``mla_latent`` = kv_lora_rank + qk_rope_head_dim (then
    kv_heads and head_dim do not count); ``sliding_window`` (tokens) when the model uses one;
    ``full_attention_layers`` the layers that are not sliding (all of them unless
    ``layer_types`` says otherwise); ``notes`` what the reader assumed.
    """

    layers: int
    kv_heads: int
    head_dim: int
    model_dtype: str | None = None
    mla_latent: int | None = None
    sliding_window: int | None = None
    full_attention_layers: int | None = None
    notes: tuple[str, ...] = ()

    @property
    def is_mla(self) -> bool:
        return self.mla_latent is not None


def _int(cfg: Mapping[str, Any], *keys: str) -> int | None:
    for key in keys:
        value = cfg.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def kv_shape(config: Mapping[str, Any]) -> KvShape:
    """Read the KV shape of a Hugging Face ``config.json`` dict.

    Multimodal configs keep the language model in ``text_config`` (Gemma 3/4, Llama 4, Qwen-VL):
    that part is read. Raises ValueError when layers, heads or head dim cannot be found.
    """
    if not isinstance(config, Mapping):
        raise ValueError("config must be a dict (the parsed config.json)")
    cfg: Mapping[str, Any] = config
    notes: list[str] = []
    if isinstance(config.get("text_config"), Mapping) and _int(config, "num_hidden_layers") is None:
        cfg = {**{k: v for k, v in config.items() if k in ("torch_dtype", "dtype")}, **config["text_config"]}
        notes.append("read text_config (the language model of a multimodal config)")
    layers = _int(cfg, "num_hidden_layers", "n_layer", "num_layers", "n_layers")
    heads = _int(cfg, "num_attention_heads", "n_head", "num_heads")
    if layers is None:
        raise ValueError("config.json has no num_hidden_layers")
    model_dtype = cfg.get("torch_dtype") or cfg.get("dtype") or config.get("torch_dtype") or config.get("dtype")
    model_dtype = model_dtype if isinstance(model_dtype, str) else None
    lora, rope = _int(cfg, "kv_lora_rank"), _int(cfg, "qk_rope_head_dim")
    mla = lora + rope if lora is not None and rope is not None else None
    kv_heads = _int(cfg, "num_key_value_heads", "num_kv_heads", "n_head_kv")
    if kv_heads is None:
        if cfg.get("multi_query"):
            kv_heads = 1
            notes.append("multi_query: one KV head")
        else:
            kv_heads = heads
            if heads is not None:
                notes.append("no num_key_value_heads: multi-head attention (KV heads = attention heads)")
    head_dim = _int(cfg, "head_dim")
    if head_dim is None:
        hidden = _int(cfg, "hidden_size", "n_embd", "d_model")
        if hidden is not None and heads:
            head_dim = hidden // heads
            notes.append(f"head_dim = hidden_size / num_attention_heads = {hidden} / {heads}")
    if mla is None and (kv_heads is None or head_dim is None):
        raise ValueError("config.json gives neither num_key_value_heads/num_attention_heads and head_dim "
                         "(or hidden_size), nor an MLA kv_lora_rank + qk_rope_head_dim")
    window = cfg.get("sliding_window")
    window = window if isinstance(window, int) and not isinstance(window, bool) and window > 0 else None
    if window is not None and cfg.get("use_sliding_window") is False:
        window = None
    full_layers = layers
    types = cfg.get("layer_types")
    if isinstance(types, list) and types:
        full_layers = sum(1 for t in types if "sliding" not in str(t))
        if full_layers < len(types) and window is None:
            window = -1  # sliding layers without a size in this config
    if window is not None:
        notes.append("sliding window: the per-token figure counts every layer as full attention (an upper bound)")
    return KvShape(layers, kv_heads or 0, head_dim or 0, model_dtype, mla, window if window != -1 else None,
                   full_layers if window is not None else layers, tuple(notes))


@dataclass(frozen=True)
class KvBytes:
    """KV-cache bytes per token for one model and layout.

    ``total`` bytes per token for the whole model (every layer, every KV head);
    ``per_rank`` the largest share one rank holds under ``tp`` and ``pp`` (what decides the
    tokens that fit); ``full_attention_only`` the bytes of the layers that keep every token (the
    same as total unless the model has sliding layers); ``dtype_bytes``; ``layers_per_rank``
    and ``kv_heads_per_rank`` (the largest stage, the heads of one TP rank); ``sliding_window``
    (the caveat, see KvShape); ``shape``.
    """

    total: float
    per_rank: float
    full_attention_only: float
    dtype_bytes: float
    tp: int
    pp: int
    layers_per_rank: int
    kv_heads_per_rank: int
    sliding_window: bool
    shape: KvShape


def pp_layers(layers: int, pp: int) -> list[int]:
    """Layers per pipeline stage as vLLM splits them: layers // pp each, one more for each of the
    ``layers % pp`` stages just before the last (vllm/distributed/utils.py get_pp_indices).
    ``pp_layers(4, 2) == [2, 2]``; ``pp_layers(61, 2) == [31, 30]``. Raises ValueError if pp < 1
    or pp > layers."""
    _whole("layers", layers)
    _whole("pp", pp)
    if pp > layers:
        raise ValueError(f"pipeline parallel size {pp} is larger than the {layers} layers")
    parts = [layers // pp] * pp
    for i in range(2, layers % pp + 2):
        parts[-i] += 1
    return parts


def _whole(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")


def kv_bytes_per_token(config: Mapping[str, Any] | KvShape, kv_cache_dtype: str = "auto",
                       tp: int = 1, pp: int = 1) -> KvBytes:
    """KV-cache bytes per token of a model (config.json dict or KvShape), whole and per rank.

    Llama-3.1-8B (32 layers, 8 KV heads, head dim 128, bfloat16): total 131,072 B; at TP=2 each
    rank holds 4 heads: 65,536 B. The tiny sim model (4 layers, 2 KV heads, 128 / 4 = 32, bf16):
    1,024 B; at PP=2 each rank 512 B.

    Raises ValueError for an unknown dtype, tp/pp below 1, or a config it cannot read.
    """
    shape = config if isinstance(config, KvShape) else kv_shape(config)
    _whole("tp", tp)
    nbytes = dtype_bytes(kv_cache_dtype, shape.model_dtype or ("bfloat16" if kv_cache_dtype == "auto" else None))
    stage_layers = max(pp_layers(shape.layers, pp))
    if shape.is_mla:
        per_layer_total = per_layer_rank = shape.mla_latent * nbytes
        heads_rank = 1
    else:
        heads_rank = max(1, shape.kv_heads // tp)
        per_layer_total = 2 * shape.kv_heads * shape.head_dim * nbytes
        per_layer_rank = 2 * heads_rank * shape.head_dim * nbytes
    full = shape.full_attention_layers if shape.full_attention_layers is not None else shape.layers
    return KvBytes(total=shape.layers * per_layer_total, per_rank=stage_layers * per_layer_rank,
                   full_attention_only=full * per_layer_total, dtype_bytes=nbytes, tp=tp, pp=pp,
                   layers_per_rank=stage_layers, kv_heads_per_rank=heads_rank,
                   sliding_window=shape.sliding_window is not None or full != shape.layers, shape=shape)


# --------------------------------------------------------------------------- weights

@dataclass(frozen=True)
class WeightsSize:
    """A model's weights: ``bytes``, and the same in ``gib`` (2**30) and ``gb`` (1e9); ``source``
    says how it was found."""

    bytes: float
    source: str

    @property
    def gib(self) -> float:
        return self.bytes / GIB

    @property
    def gb(self) -> float:
        return self.bytes / GB


def weights_from_params(num_params: float, dtype: str = "bfloat16") -> WeightsSize:
    """Weights of ``num_params`` parameters stored as ``dtype``: params x bytes per element.

    8.03e9 parameters in BF16: 16.06e9 B = 16.06 GB = 14.96 GiB. Quantized formats add scales:
    use the checkpoint's own size (weights_from_index) for them. Raises ValueError for
    num_params <= 0 or an unknown dtype.
    """
    if isinstance(num_params, bool) or not isinstance(num_params, (int, float)) or num_params <= 0:
        raise ValueError(f"num_params must be > 0, got {num_params!r}")
    return WeightsSize(num_params * dtype_bytes(dtype), f"{num_params:.4g} parameters x {dtype}")


def weights_from_index(index: Mapping[str, Any]) -> WeightsSize:
    """Weights from a ``model.safetensors.index.json`` dict: its ``metadata.total_size`` (bytes of
    tensor data in all shards, as the checkpoint was saved). Raises ValueError without it."""
    total = index.get("metadata", {}).get("total_size") if isinstance(index, Mapping) else None
    if isinstance(total, str) and total.isdigit():
        total = int(total)
    if isinstance(total, bool) or not isinstance(total, (int, float)) or total <= 0:
        raise ValueError("the safetensors index has no metadata.total_size")
    return WeightsSize(float(total), "model.safetensors.index.json metadata.total_size")


# --------------------------------------------------------------------------- budget and tokens

def kv_budget_gib(total_memory_gib: float, gpu_memory_utilization: float, weights_gib: float,
                  activation_gib: float = 0.0, other_gib: float = 0.0) -> float:
    """GiB left for the KV cache on one rank: total x utilization - weights - activation peak -
    other (non-torch memory, CUDA graphs). All per rank, in GiB (2**30 B).

    A 121.69 GiB DGX Spark at 0.8, holding 35 GiB of weights and 2 GiB of activations: 121.69 x
    0.8 - 35 - 2 = 60.35 GiB. Returns a negative number when nothing is left (vLLM then says
    "No available memory for the cache blocks"). Raises ValueError for utilization outside
    (0, 1] or negative sizes.
    """
    for name, v in (("total_memory_gib", total_memory_gib), ("weights_gib", weights_gib),
                    ("activation_gib", activation_gib), ("other_gib", other_gib)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise ValueError(f"{name} must be a number >= 0, got {v!r}")
    if isinstance(gpu_memory_utilization, bool) or not 0 < gpu_memory_utilization <= 1:
        raise ValueError(f"gpu_memory_utilization must be in (0, 1], got {gpu_memory_utilization!r}")
    return total_memory_gib * gpu_memory_utilization - weights_gib - activation_gib - other_gib


def kv_tokens(budget_gib: float, bytes_per_token: float, block_size: int | None = None) -> int:
    """Tokens of KV cache that fit ``budget_gib`` GiB (2**30 B) at ``bytes_per_token`` (per rank:
    pass KvBytes.per_rank with the per-rank budget). Rounded down to whole blocks of
    ``block_size`` tokens when given (vLLM allocates whole blocks: 16 tokens by default on GPU,
    128 on the CPU backend in 0.32).

    1 GiB at 1,024 B per token: 1,048,576 tokens (the sim model, vllm-cpu/07_*). Returns 0 for a
    budget <= 0. Raises ValueError for bytes_per_token <= 0 or block_size < 1.
    """
    if isinstance(bytes_per_token, bool) or not bytes_per_token > 0:
        raise ValueError(f"bytes_per_token must be > 0, got {bytes_per_token!r}")
    if budget_gib <= 0:
        return 0
    tokens = int(budget_gib * GIB // bytes_per_token)
    if block_size is not None:
        _whole("block_size", block_size)
        tokens -= tokens % block_size
    return tokens


def kv_needed_gib(max_model_len: int, bytes_per_token: float) -> float:
    """GiB of KV cache one request of ``max_model_len`` tokens needs (what vLLM's KV-too-small
    error prints as "X GiB KV cache is needed"). Raises ValueError for a length below 1."""
    _whole("max_model_len", max_model_len)
    if not bytes_per_token > 0:
        raise ValueError(f"bytes_per_token must be > 0, got {bytes_per_token!r}")
    return max_model_len * bytes_per_token / GIB


def max_concurrency(kv_tokens_total: int, max_model_len: int) -> float:
    """Requests of the full ``max_model_len`` that fit at once: KV tokens / max-model-len, as vLLM
    prints it ("Maximum concurrency for 512 tokens per request: 2048.00x" for 1,048,576 tokens).
    Raises ValueError for a length below 1 or negative tokens."""
    _whole("max_model_len", max_model_len)
    if isinstance(kv_tokens_total, bool) or not isinstance(kv_tokens_total, int) or kv_tokens_total < 0:
        raise ValueError(f"kv_tokens must be a whole number >= 0, got {kv_tokens_total!r}")
    return kv_tokens_total / max_model_len


@dataclass(frozen=True)
class KvPrediction:
    """Predicted KV capacity: ``budget_gib`` per rank, ``bytes_per_token`` per rank, ``tokens``
    (what vLLM's "KV cache size: N tokens" should say), ``concurrency`` at ``max_model_len``
    (None without a length), ``fits_one_request`` (tokens >= max_model_len)."""

    budget_gib: float
    bytes_per_token: float
    tokens: int
    max_model_len: int | None
    concurrency: float | None
    fits_one_request: bool | None


def predict_kv_capacity(config: Mapping[str, Any] | KvShape, budget_gib: float, *, tp: int = 1, pp: int = 1,
                        kv_cache_dtype: str = "auto", max_model_len: int | None = None,
                        block_size: int | None = None) -> KvPrediction:
    """Tokens and concurrency for a per-rank KV budget (GiB), from config.json.

    The sim model with VLLM_CPU_KVCACHE_SPACE=1 (1 GiB per rank): 1,048,576 tokens and 2048x at
    512 on one rank; at PP=2, 512 B per rank-token: 2,097,152 tokens and 4096x (vllm-cpu/17_*).
    Raises ValueError as kv_bytes_per_token and kv_tokens do.
    """
    kvb = kv_bytes_per_token(config, kv_cache_dtype, tp=tp, pp=pp)
    tokens = kv_tokens(budget_gib, kvb.per_rank, block_size)
    conc = max_concurrency(tokens, max_model_len) if max_model_len else None
    return KvPrediction(budget_gib, kvb.per_rank, tokens, max_model_len, conc,
                      tokens >= max_model_len if max_model_len else None)


def predict_from_memory(config: Mapping[str, Any] | KvShape, memory_gib: float, gpu_memory_utilization: float,
                        weights_gib: float, *, tp: int = 1, pp: int = 1, activation_gib: float = 0.0,
                        other_gib: float = 0.0, kv_cache_dtype: str = "auto", max_model_len: int | None = None,
                        block_size: int | None = None) -> KvPrediction:
    """Tokens and concurrency from each GPU's memory and ``--gpu-memory-utilization``.

    ``memory_gib`` is one GPU's memory (GiB); ``weights_gib`` the whole model's weights, taken as
    split evenly over the TP x PP ranks (an approximation: embeddings and the LM head sit on the
    first and last PP stage); ``activation_gib`` and ``other_gib`` per rank. The per-rank budget
    is kv_budget_gib(memory, utilization, weights / (TP x PP), ...), the tokens those of
    predict_kv_capacity. Two Sparks (121.69 GiB each) at 0.8 serving Llama-3.1-8B (14.96 GiB of
    weights) with TP=2: 121.69 x 0.8 - 14.96 / 2 = 89.87 GiB per rank at 65,536 B per rank-token =
    1,472,487 tokens, 11.23x at 131,072. Raises ValueError as those functions do.
    """
    _whole("tp", tp)
    _whole("pp", pp)
    budget = kv_budget_gib(memory_gib, gpu_memory_utilization, weights_gib / (tp * pp), activation_gib, other_gib)
    return predict_kv_capacity(config, budget, tp=tp, pp=pp, kv_cache_dtype=kv_cache_dtype,
                               max_model_len=max_model_len, block_size=block_size)


# --------------------------------------------------------------------------- world size

@dataclass(frozen=True)
class WorldSize:
    """World size against the cluster.

    ``world_size`` = TP x PP (vLLM's); ``gpus_needed`` = TP x PP x DP; ``gpus_available`` =
    nodes x GPUs per node; ``fits`` (enough GPUs in the cluster); ``multi_node`` (one group spans
    more than one node); ``backend_ok`` (a multi-node group has ``ray`` or ``--nnodes``, or
    needs neither); ``message`` vLLM's own error when it would refuse (WORLD_SIZE_MESSAGE), or a
    sentence about the missing GPUs, else None.
    """

    tp: int
    pp: int
    dp: int
    world_size: int
    gpus_needed: int
    gpus_available: int
    fits: bool
    multi_node: bool
    backend_ok: bool
    message: str | None


def check_world_size(tp: int, pp: int = 1, dp: int = 1, *, nodes: int = 1, gpus_per_node: int = 1,
                     backend: str | None = None, nnodes: int | None = None) -> WorldSize:
    """Check TP x PP (x DP) against ``nodes`` x ``gpus_per_node``.

    Two Sparks (1 GPU each), TP=2 without a backend: world size 2 > 1 GPU on the node, so vLLM
    refuses with "World size (2) is larger than the number of available GPUs (1) in this node..."
    unless ``backend="ray"`` or ``nnodes=2``. TP=4 on two Sparks does not fit (4 > 2 GPUs; Ray
    would wait for a placement group that never comes). Raises ValueError for sizes below 1.
    """
    for name, v in (("tp", tp), ("pp", pp), ("dp", dp), ("nodes", nodes), ("gpus_per_node", gpus_per_node)):
        _whole(name, v)
    world = tp * pp
    needed = world * dp
    available = nodes * gpus_per_node
    multi = world > gpus_per_node
    backend_ok = not multi or backend == "ray" or (nnodes is not None and nnodes > 1)
    message = None
    if needed > available:
        message = (f"TP x PP x DP = {tp} x {pp} x {dp} = {needed} GPUs, but the cluster has {available} "
                   f"({nodes} node(s) x {gpus_per_node}): Ray's placement group would wait for GPUs that do not "
                   f"exist; use at most {available}.")
    elif not backend_ok:
        message = WORLD_SIZE_MESSAGE.format(world=world, gpus=gpus_per_node)
    return WorldSize(tp, pp, dp, world, needed, available, needed <= available, multi, backend_ok, message)


def nodes_needed(world_size: int, gpus_per_node: int) -> int:
    """Nodes one TP x PP group spans: ceil(world size / GPUs per node)."""
    _whole("world_size", world_size)
    _whole("gpus_per_node", gpus_per_node)
    return math.ceil(world_size / gpus_per_node)
