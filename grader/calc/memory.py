"""Does a model fit on a pair of cards: weights, KV cache, per-card overhead.

Units: bytes (B); GB = 1e9 B, GiB = 2**30 B. GPU memory capacities are sold in binary units:
``nvidia-smi --query-gpu=memory.total`` prints MiB (an H200 shows 143771 MiB, see
tests/fixtures/captured/h200x1/), so prefer that measured figure when you have it.

Arithmetic:

- weights = parameters × bits per weight / 8 (BF16 = 16 bits, FP8 = 8, 4-bit formats 4 plus
  their scales: llama.cpp's Q4_K_M averages about 4.8 bits (U: not re-read));
- KV cache per token = 2 (K and V) × layers × KV heads × head dim × bytes per element;
  Llama 3.1 70B in BF16: 2 × 80 × 8 × 128 × 2 = 327,680 B = 320 KiB per token;
- with TP over N cards the weights and the KV heads are split N ways (when KV heads ≥ N; with
  fewer KV heads than cards vLLM replicates them, which this model does not count);
- each card also keeps a CUDA context, activations and CUDA graphs: ``overhead_bytes`` (an
  assumption you set: no sourced figure, U);
- vLLM lets itself use ``gpu_memory_utilization`` (default 0.9) of each card's memory.
"""

from __future__ import annotations

from dataclasses import dataclass

GIB = 2 ** 30
DEFAULT_GPU_MEMORY_UTILIZATION = 0.9
"""vLLM's default ``--gpu-memory-utilization`` (vLLM engine-arguments documentation)."""
DEFAULT_OVERHEAD_BYTES = 2 * GIB
"""Per-card CUDA context, activations and graphs: an assumption (U), not a sourced figure."""


def _nonneg(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ValueError(f"{name} must be a number >= 0, got {value!r}")


def _positive(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{name} must be a number > 0, got {value!r}")


def weights_bytes(params_billion: float, bits_per_weight: float) -> float:
    """Bytes of weights: ``params_billion × 1e9 × bits_per_weight / 8``.

    70.6 B parameters in BF16 (16 bits): 141.2e9 B; at 4.5 bits: 39.7e9 B. Raises ValueError for
    non-positive parameters, or bits outside (0, 32].
    """
    _positive("params_billion", params_billion)
    if isinstance(bits_per_weight, bool) or not isinstance(bits_per_weight, (int, float)) or not 0 < bits_per_weight <= 32:
        raise ValueError(f"bits_per_weight must be in (0, 32], got {bits_per_weight!r}")
    return params_billion * 1e9 * bits_per_weight / 8


def kv_bytes_per_token(num_layers: int, num_kv_heads: int, head_dim: int, bytes_per_element: float = 2) -> int | float:
    """KV-cache bytes one token takes across all layers: ``2 × layers × kv_heads × head_dim × bytes``.

    Llama 3.1 70B (80 layers, 8 KV heads of 128) in BF16: 327,680 B (320 KiB); with an FP8 cache
    (bytes_per_element=1) half that. Raises ValueError for sizes below 1 or bytes <= 0.
    """
    for name, v in (("num_layers", num_layers), ("num_kv_heads", num_kv_heads), ("head_dim", head_dim)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a whole number >= 1, got {v!r}")
    _positive("bytes_per_element", bytes_per_element)
    return 2 * num_layers * num_kv_heads * head_dim * bytes_per_element


def kv_cache_bytes(per_token_bytes: float, context_tokens: int, sequences: int = 1) -> float:
    """KV-cache bytes for ``sequences`` sequences of ``context_tokens`` tokens each.

    Llama 3.1 70B BF16, one 32,768-token sequence: 327,680 × 32,768 = 10,737,418,240 B (10 GiB).
    """
    _positive("per_token_bytes", per_token_bytes)
    for name, v in (("context_tokens", context_tokens), ("sequences", sequences)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"{name} must be a whole number >= 0, got {v!r}")
    return per_token_bytes * context_tokens * sequences


@dataclass(frozen=True)
class PairFit:
    """Whether a model fits N cards split evenly (TP, or a balanced layer split).

    All in bytes, per card: ``budget`` = memory × utilization; ``need`` = weights/N + KV/N +
    overhead; ``headroom`` = budget − need (negative when it does not fit); ``max_kv_tokens`` how
    many tokens of KV cache (all sequences together) the budget leaves room for beside the weights
    (0 if none), given ``kv_per_token`` bytes.
    """

    n_cards: int
    budget: float
    weights_per_card: float
    kv_per_card: float
    overhead: float
    need: float
    headroom: float
    fits: bool
    max_kv_tokens: int


def pair_fit(weights: float, kv: float, card_memory_bytes: float, n_cards: int = 2,
             overhead_bytes: float = DEFAULT_OVERHEAD_BYTES,
             utilization: float = DEFAULT_GPU_MEMORY_UTILIZATION,
             kv_per_token: float | None = None) -> PairFit:
    """Fit ``weights`` + ``kv`` bytes on ``n_cards`` cards of ``card_memory_bytes`` each.

    Example: Llama 3.1 70B at 4.5 bits (39.7e9 B) + 10 GiB KV on 2× RTX 4090 (24 GiB each,
    utilization 0.9, 2 GiB overhead): budget 23.19e9 B per card, need 19.86e9 + 5.37e9 + 2.15e9
    = 27.38e9 B: does not fit; with 2 GiB of KV it does.

    Raises:
        ValueError: negative sizes, non-positive memory, fewer than 1 card, utilization outside (0, 1].
    """
    _nonneg("weights", weights)
    _nonneg("kv", kv)
    _nonneg("overhead_bytes", overhead_bytes)
    _positive("card_memory_bytes", card_memory_bytes)
    if isinstance(n_cards, bool) or not isinstance(n_cards, int) or n_cards < 1:
        raise ValueError(f"n_cards must be a whole number >= 1, got {n_cards!r}")
    if not 0 < utilization <= 1:
        raise ValueError(f"utilization must be in (0, 1], got {utilization!r}")
    budget = card_memory_bytes * utilization
    w, k = weights / n_cards, kv / n_cards
    need = w + k + overhead_bytes
    room_for_kv = max(0.0, budget - w - overhead_bytes) * n_cards
    max_tokens = int(room_for_kv // kv_per_token) if kv_per_token else 0
    return PairFit(n_cards, budget, w, k, overhead_bytes, need, budget - need, need <= budget, max_tokens)
