"""What crosses the link per token, how long it takes, and what that means for decode speed.

Sources (docs/research/figures.md §3.3):

- Tensor parallel (Megatron pattern; vLLM TP, llama.cpp ``-sm tensor``): each transformer layer
  does **two all-reduces** per forward pass (after attention and after the MLP), each of shape
  [tokens × hidden_size] (colossalai.org 1D tensor-parallel docs, trust B).
- A ring all-reduce makes each rank send (and receive) 2(N−1)/N × the message: 1× at TP=2 (the
  nccl-tests bus-bandwidth convention; U, PERFORMANCE.md not re-read).
- Pipeline parallel (llama.cpp default ``-sm layer``, vLLM PP): each GPU holds a contiguous slice of
  layers; only the hidden-state activation, hidden_size × bytes per token, crosses each stage
  boundary, once per boundary (derived, U; llama.cpp docs/multi-gpu.md says layer split
  "minimizes data transfers between GPUs", trust A).
- Worked example: Llama 3.1 70B (hidden 8192, 80 layers, BF16) at TP=2 does 2 × 80 = 160
  all-reduces of 8192 × 2 B = 16 KiB per token: 2.5 MiB per rank per token (trust B).

Units: bytes (B; KiB = 1024 B), seconds (s), GB/s (1e9 B/s), µs.
"""

from __future__ import annotations

from dataclasses import dataclass

from grader.calc.pcie import transfer_time_s


@dataclass(frozen=True)
class ModelShape:
    """The shape figures of one model that decide its traffic and its KV cache.

    ``hidden_size`` and ``num_layers`` from its config.json; ``params_billion`` (total parameters,
    1e9), ``num_kv_heads`` and ``head_dim`` for the KV cache; ``trust`` grades ``hidden_size`` and
    ``num_layers``, ``extra_trust`` the other three.
    """

    name: str
    hidden_size: int
    num_layers: int
    params_billion: float
    num_kv_heads: int
    head_dim: int
    source: str
    trust: str
    extra_trust: str = "U"


MODELS: dict[str, ModelShape] = {
    "llama-3.1-70b": ModelShape(
        "Llama 3.1 70B", 8192, 80, 70.6, 8, 128,
        "config.json quoted in a vLLM issue (hidden 8192, 80 layers; figures.md §3.3); parameter count and "
        "8 KV heads x 128 not re-read here", "B"),
    "llama-3.1-8b": ModelShape(
        "Llama 3.1 8B", 4096, 32, 8.0, 8, 128,
        "standard config, not re-read (figures.md §3.3)", "U"),
    "gpt-oss-120b": ModelShape(
        "gpt-oss-120b (MoE)", 2880, 36, 117.0, 8, 64,
        "config in indexed test fixtures (hidden 2880, 36 layers; figures.md §3.3); parameters and KV "
        "shape not re-read", "B"),
    "gpt-oss-20b": ModelShape(
        "gpt-oss-20b (MoE)", 2880, 24, 21.0, 8, 64,
        "config in indexed test fixtures (hidden 2880, 24 layers; figures.md §3.3); parameters and KV "
        "shape not re-read", "B"),
}
"""Known model shapes; pass your own numbers to the functions for any other model."""


def _positive_int(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")


def _positive(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{name} must be a number > 0, got {value!r}")


@dataclass(frozen=True)
class TpTraffic:
    """Per forward step of a TP group: ``allreduces`` collectives of ``message_bytes`` each.

    ``sent_per_allreduce_bytes`` = ring factor 2(N−1)/N × message: what each rank sends (and
    receives) per all-reduce; ``sent_per_step_bytes`` over the whole step.
    """

    tp: int
    allreduces: int
    message_bytes: int
    ring_factor: float
    sent_per_allreduce_bytes: float
    sent_per_step_bytes: float


def tp_traffic(hidden_size: int, num_layers: int, tp: int = 2, bytes_per_element: int = 2,
               tokens: int = 1) -> TpTraffic:
    """Tensor-parallel traffic of one forward step over ``tokens`` tokens (1 = one decode step).

    Args:
        hidden_size: the model's hidden size (elements), e.g. 8192.
        num_layers: transformer layers, e.g. 80.
        tp: tensor-parallel size (GPUs in the group), >= 1; TP=1 moves nothing.
        bytes_per_element: activation bytes (BF16/FP16 = 2, FP32 = 4).
        tokens: tokens in the step (a decode step at batch b has b tokens).
    Returns:
        TpTraffic: 2 × num_layers all-reduces of hidden × bytes × tokens. Llama 3.1 70B, TP=2,
        one token: 160 all-reduces of 16,384 B (16 KiB), 2,621,440 B (2.5 MiB) sent per rank.
    Raises:
        ValueError: a size below 1.
    """
    for name, v in (("hidden_size", hidden_size), ("num_layers", num_layers), ("tp", tp),
                    ("bytes_per_element", bytes_per_element), ("tokens", tokens)):
        _positive_int(name, v)
    if tp == 1:
        return TpTraffic(1, 0, 0, 0.0, 0.0, 0.0)
    allreduces = 2 * num_layers
    message = hidden_size * bytes_per_element * tokens
    ring = 2 * (tp - 1) / tp
    return TpTraffic(tp, allreduces, message, ring, ring * message, allreduces * ring * message)


@dataclass(frozen=True)
class PpTraffic:
    """Per forward step of a pipeline: ``boundaries`` sends of ``activation_bytes`` each, in sequence."""

    stages: int
    boundaries: int
    activation_bytes: int
    sent_per_step_bytes: int


def pp_traffic(hidden_size: int, stages: int = 2, bytes_per_element: int = 2, tokens: int = 1) -> PpTraffic:
    """Pipeline (layer-split) traffic of one forward step: the activation crosses each boundary once.

    Args:
        hidden_size: elements per token of the hidden state.
        stages: GPUs in the pipeline, >= 1 (llama.cpp ``-sm layer`` over 2 cards = 2 stages).
        bytes_per_element: activation bytes (2 for BF16/FP16).
        tokens: tokens in the step.
    Returns:
        PpTraffic: (stages − 1) sends of hidden × bytes × tokens. Llama 3.1 70B on 2 cards: one
        send of 16 KiB per token (against 160 all-reduces of 16 KiB at TP=2).
    Raises:
        ValueError: a size below 1.
    """
    for name, v in (("hidden_size", hidden_size), ("stages", stages),
                    ("bytes_per_element", bytes_per_element), ("tokens", tokens)):
        _positive_int(name, v)
    act = hidden_size * bytes_per_element * tokens
    return PpTraffic(stages, stages - 1, act, (stages - 1) * act)


def link_time_per_step_s(transfers: int, bytes_per_transfer: float, bandwidth_gbs: float,
                         latency_us: float) -> float:
    """Seconds the link adds to one step: ``transfers`` serial transfers, each latency + bytes/bandwidth.

    The transfers of TP and PP are serial (each layer waits for its all-reduce), so their costs
    add. ``latency_us`` is the small-message time of one collective (club-3090: 1.01 µs with P2P,
    15.23 µs without, Gen4; Sparks: ~30-35 µs per 8 KiB all-reduce). Raises ValueError for a
    negative count, bytes or latency, or a non-positive bandwidth.
    """
    if isinstance(transfers, bool) or not isinstance(transfers, int) or transfers < 0:
        raise ValueError(f"transfers must be a whole number >= 0, got {transfers!r}")
    return transfers * transfer_time_s(bytes_per_transfer, bandwidth_gbs, latency_us)


def tp_link_time_s(traffic: TpTraffic, bandwidth_gbs: float, latency_us: float) -> float:
    """Seconds per step that TP's all-reduces cost on a link (one latency per all-reduce).

    Llama 3.1 70B TP=2 without P2P (11.28 GB/s, 15.23 µs): 160 × (15.23 µs + 16384 B / 11.28 GB/s)
    = 160 × 16.68 µs = 2.67 ms per token; with P2P (27.12 GB/s, 1.01 µs): 0.26 ms.
    """
    return link_time_per_step_s(traffic.allreduces, traffic.sent_per_allreduce_bytes, bandwidth_gbs, latency_us)


def pp_link_time_s(traffic: PpTraffic, bandwidth_gbs: float, latency_us: float) -> float:
    """Seconds per step that a pipeline's boundary sends cost on a link."""
    return link_time_per_step_s(traffic.boundaries, traffic.activation_bytes, bandwidth_gbs, latency_us)


@dataclass(frozen=True)
class DecodePrediction:
    """Batch-1 decode predictions (roofline upper bounds) for one card, layer split and TP.

    Times in seconds per token, speeds in tokens/s. ``single_tok_s`` assumes the weights would fit
    on one card (they may not: that is why there is a second card). ``layer_split_*`` is
    llama.cpp's default ``-sm layer``: the cards take turns, so it adds capacity, not speed.
    ``tp_*`` is vLLM tensor parallel: each card reads 1/N of the weights at once, then pays
    2 × layers all-reduces.
    """

    n_gpus: int
    weight_read_s: float
    single_tok_s: float
    layer_split_s: float
    layer_split_tok_s: float
    layer_split_link_s: float
    tp_s: float
    tp_tok_s: float
    tp_link_s: float

    @property
    def tp_speedup_over_split(self) -> float:
        return self.tp_tok_s / self.layer_split_tok_s


def predict_decode(weight_bytes_per_token: float, mem_bandwidth_gbs: float, hidden_size: int,
                   num_layers: int, link_bandwidth_gbs: float, link_latency_us: float,
                   n_gpus: int = 2, bytes_per_element: int = 2, efficiency: float = 1.0) -> DecodePrediction:
    """Predict batch-1 decode on N identical cards: llama.cpp layer split against vLLM TP.

    Decode at batch 1 is memory-bandwidth bound: time per token ≈ weight bytes read per token ÷
    memory bandwidth (figures.md §2.1; for a dense model the bytes read are all weights, for an
    MoE only the active experts'). Real engines reach a fraction of it (a 70B NVFP4 on a Spark
    ran at ~61% of its roofline: figures.md §2.1, U), so ``efficiency`` scales the bandwidth.

    Args:
        weight_bytes_per_token: bytes of weights read per token (B), e.g. 40e9 for a 70B at ~4.5 bits.
        mem_bandwidth_gbs: one card's memory bandwidth (GB/s), e.g. 1008 for an RTX 4090.
        hidden_size, num_layers: the model's shape (see MODELS).
        link_bandwidth_gbs, link_latency_us: the GPU-to-GPU link (see pcie.toml [link.*]).
        n_gpus: cards, >= 2.
        bytes_per_element: activation bytes (2).
        efficiency: fraction of memory bandwidth reached, in (0, 1].
    Returns:
        DecodePrediction. 70B at 40 GB on 2× RTX 4090 (1008 GB/s), no P2P: layer split
        39.7 + 0.02 ms -> 25.2 tok/s; TP 19.8 + 2.7 ms -> 44.4 tok/s.
    Raises:
        ValueError: a non-positive size or bandwidth, fewer than 2 GPUs, efficiency outside (0, 1].
    """
    _positive("weight_bytes_per_token", weight_bytes_per_token)
    _positive("mem_bandwidth_gbs", mem_bandwidth_gbs)
    if isinstance(n_gpus, bool) or not isinstance(n_gpus, int) or n_gpus < 2:
        raise ValueError(f"n_gpus must be a whole number >= 2 (a split needs two cards), got {n_gpus!r}")
    if not 0 < efficiency <= 1:
        raise ValueError(f"efficiency must be in (0, 1], got {efficiency!r}")
    bw = mem_bandwidth_gbs * 1e9 * efficiency
    read = weight_bytes_per_token / bw
    split_link = pp_link_time_s(pp_traffic(hidden_size, n_gpus, bytes_per_element), link_bandwidth_gbs,
                                link_latency_us)
    tp_link = tp_link_time_s(tp_traffic(hidden_size, num_layers, n_gpus, bytes_per_element), link_bandwidth_gbs,
                             link_latency_us)
    split = read + split_link
    tp = read / n_gpus + tp_link
    return DecodePrediction(n_gpus, read, 1 / read, split, 1 / split, split_link, tp, 1 / tp, tp_link)
