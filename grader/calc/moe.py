"""A mixture-of-experts (MoE) model across Sparks: which TP, PP, DP (and EP) sizes vLLM accepts, what each
Spark then holds of the weights, and the room its KV cache has left (lesson 2's expert-parallel exercise).

Units: GB = 1e9 bytes (what model cards and disks print) for weights, budget and KV room; bytes (B) per
token for the KV cache; parameters as plain counts. One GPU per Spark (``gpus_per_node`` otherwise).

The model's figures (its config.json fields, its parameter count, its checkpoints' weights) and vLLM's
rules, each with its source, are data: checks/specs/moe_models.toml. The Spark's memory is
checks/specs/gpus.toml [dgx_spark]. Nothing here is a figure.

vLLM's rules (sources in moe_models.toml [vllm-ep-rules]):

- every rank is one GPU: TP x PP x DP GPUs, and the exercise uses every Spark (TP x PP x DP = nodes);
- TP must divide ``num_attention_heads``; the KV heads must divide by TP, or TP by them (replicated);
- PP splits the layers: layers // PP per stage, the remainder to the stages before the last;
- ``--enable-expert-parallel`` forms one EP group of TP x DP ranks (PP is not in it); with TP x DP = 1
  there is no group and the flag does nothing. Each EP rank holds whole experts, experts / EP of them
  (the course asks for an even split: vLLM gives a remainder to the first ranks, which then do more);
- without EP vLLM still spreads the experts over TP x DP ranks, as a slice of every expert, so the
  memory per rank is the same; EP changes the traffic (an all-to-all of the routed tokens instead of
  the all-reduce of every expert's partial output), not the bytes.

Weights per rank (an estimate, uniform bytes per parameter): expert parameters = layers x experts x 3 x
hidden_size x moe_intermediate_size (SwiGLU: gate, up and down projections; Qwen3-235B-A22B:
94 x 128 x 3 x 4,096 x 1,536 = 227.1 B of its 235 B); the rest (attention, embeddings, norms, routers)
is split by TP and copied on every DP replica. On the busiest pipeline stage:

    weights = W x (stage layers / layers) x ((1 - f) / TP + f / (TP x DP)),  f = expert share

(embeddings and lm_head sit on the first and last stage in vLLM; spreading them evenly is the
approximation). The KV cache gets the rest of vLLM's budget, ``cuda_memory_gib`` x
``vllm_gpu_memory_utilization`` (activations and CUDA graphs, which vLLM also subtracts, are not
counted: the room is an upper bound); its bytes per token per rank come from
:func:`grader.calc.serving.kv_bytes_per_token` (TP splits the KV heads, PP the layers).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Any

from grader.calc import serving, specs
from grader.calc.specs import Figure

MODELS = "moe_models.toml"
"""The spec table of MoE models and vLLM's rules (checks/specs/)."""
RULES = "vllm-ep-rules"
"""The row of MODELS holding vLLM's rules, each with its source."""
CONFIG_KEYS = ("num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim", "hidden_size",
               "num_experts", "num_experts_per_tok", "moe_intermediate_size", "torch_dtype")
"""The config.json fields the arithmetic reads, under config.json's names."""
_GB = 1e9
_GIB = 2 ** 30


@dataclass(frozen=True)
class MoeModel:
    """One MoE model: its ``config`` (config.json fields, :data:`CONFIG_KEYS`), ``total_params`` (parameters),
    ``context_length`` (tokens, native), ``checkpoints`` {name: Figure of its weights in GB}."""

    id: str
    name: str
    config: dict[str, Any]
    total_params: float
    context_length: int
    checkpoints: dict[str, Figure]

    @property
    def expert_params(self) -> float:
        """Parameters in the experts: layers x experts x 3 (gate, up, down) x hidden x moe_intermediate."""
        c = self.config
        return float(c["num_hidden_layers"] * c["num_experts"] * 3 * c["hidden_size"] * c["moe_intermediate_size"])

    @property
    def expert_fraction(self) -> float:
        """The experts' share of all parameters (0-1)."""
        return self.expert_params / self.total_params

    def weights_gb(self, checkpoint: str) -> float:
        """The whole checkpoint's weights in GB. Raises ValueError naming the known checkpoints."""
        if checkpoint not in self.checkpoints:
            raise ValueError(f"unknown checkpoint {checkpoint!r} of {self.id}; known: {', '.join(self.checkpoints)}")
        return float(self.checkpoints[checkpoint].value)


def model(model_id: str) -> MoeModel:
    """The MoE model ``model_id`` of checks/specs/moe_models.toml (e.g. ``"qwen3-235b-a22b"``).

    Checkpoints are its figures named ``weights_gb_<checkpoint>`` (``fp8``, ``gptq_int4``). Raises
    ValueError for an unknown id, SpecError for a row missing a field the arithmetic needs.
    """
    row = specs.row(MODELS, model_id)
    config = {k: row.value(k) for k in CONFIG_KEYS}
    checkpoints = {k[len("weights_gb_"):]: f for k, f in row.figures.items() if k.startswith("weights_gb_")}
    return MoeModel(model_id, row.name, config, float(row.value("total_params_b")) * 1e9,
                    int(row.value("context_length")), checkpoints)


def rule_source(key: str) -> str:
    """Where vLLM's rule ``key`` (``ep_size``, ``attention_heads_by_tp``...) comes from (moe_models.toml)."""
    fig = specs.row(MODELS, RULES).figure(key)
    return fig.source if fig is not None else ""


def spark_budget_gb(gpu_id: str = "dgx_spark") -> float:
    """vLLM's memory budget per GPU in GB: the memory CUDA sees x the --gpu-memory-utilization a Spark
    takes (checks/specs/gpus.toml ``cuda_memory_gib`` and ``vllm_gpu_memory_utilization``)."""
    gpu = specs.gpu(gpu_id)
    return float(gpu.value("cuda_memory_gib")) * _GIB * float(gpu.value("vllm_gpu_memory_utilization")) / _GB


@dataclass(frozen=True)
class MoePlan:
    """One parallel layout of an MoE model on ``nodes`` Sparks, as vLLM would run it.

    ``ep``: the EP size vLLM forms (TP x DP with EP on and TP x DP > 1, else 1); ``weights_gb`` on the
    busiest rank; ``budget_gb`` vLLM's budget per rank; ``kv_room_gb`` = budget - weights (may be < 0);
    ``kv_bytes_per_token`` on one rank; ``kv_tokens`` that fit the room (per DP replica); ``need_gb`` the
    KV one request of ``max_model_len`` tokens takes on a rank. ``problems``: what vLLM refuses or the
    layout breaks (empty when valid); ``notes``: what is allowed but worth knowing.
    """

    model: str
    checkpoint: str
    nodes: int
    tp: int
    pp: int
    dp: int
    enable_ep: bool
    ep: int
    weights_gb: float
    budget_gb: float
    kv_room_gb: float
    kv_bytes_per_token: float
    kv_tokens: int
    max_model_len: int
    need_gb: float
    problems: tuple[str, ...]
    notes: tuple[str, ...]

    @property
    def valid(self) -> bool:
        """vLLM accepts the layout and it uses every Spark."""
        return not self.problems

    @property
    def fits(self) -> bool:
        """Valid, and the weights leave room for at least one request of ``max_model_len`` tokens."""
        return self.valid and self.kv_room_gb >= self.need_gb

    def message(self) -> str:
        """One line: the layout and what is wrong with it, or that it fits and with how much room."""
        head = (f"TP={self.tp} PP={self.pp} DP={self.dp}" + (f" EP={self.ep}" if self.enable_ep else "")
                + f" on {self.nodes} Sparks ({self.checkpoint})")
        if self.problems:
            return f"{head}: " + " ".join(self.problems)
        if not self.fits:
            return (f"{head}: {self.weights_gb:.1f} GB of weights on the busiest Spark leave {self.kv_room_gb:.1f} GB "
                    f"of its {self.budget_gb:.1f} GB budget, less than the {self.need_gb:.2f} GB one "
                    f"{self.max_model_len:,}-token request needs: it does not fit.")
        return (f"{head}: fits: {self.weights_gb:.1f} GB of weights per Spark, {self.kv_room_gb:.1f} GB left for "
                f"the KV cache, about {self.kv_tokens:,} tokens.")


def _whole(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")


def _rule_problems(m: MoeModel, nodes: int, gpus_per_node: int, tp: int, pp: int, dp: int,
                   enable_ep: bool, ep: int) -> tuple[list[str], list[str]]:
    c = m.config
    problems, notes = [], []
    gpus, have = tp * pp * dp, nodes * gpus_per_node
    if gpus > have:
        problems.append(f"TP x PP x DP = {gpus} GPUs, but {nodes} Sparks have {have}: Ray would wait for GPUs "
                        "that do not exist.")
    elif gpus < have:
        problems.append(f"TP x PP x DP = {gpus} GPUs leaves {have - gpus} of the {have} Sparks idle: use them all.")
    heads, kv = c["num_attention_heads"], c["num_key_value_heads"]
    if heads % tp:
        problems.append(f"vLLM refuses TP={tp}: the {heads} attention heads do not divide by it "
                        "(\"Total number of attention heads must be divisible by tensor parallel size\").")
    if (kv >= tp and kv % tp) or (kv < tp and tp % kv):
        problems.append(f"TP={tp} does not fit the {kv} KV heads: they must divide by TP, or TP by them.")
    if pp > c["num_hidden_layers"]:
        problems.append(f"PP={pp} is more stages than the {c['num_hidden_layers']} layers.")
    experts = c["num_experts"]
    if enable_ep and ep == 1:
        notes.append("--enable-expert-parallel with TP x DP = 1 forms no EP group (EP = TP x DP = 1): the flag "
                     "does nothing here.")
    if ep > experts:
        problems.append(f"EP={ep} is more ranks than the {experts} experts.")
    elif experts % ep:
        problems.append(f"EP = TP x DP = {ep} does not divide the {experts} experts evenly ({experts // ep} or "
                        f"{experts // ep + 1} per rank): pick sizes whose TP x DP divides {experts}.")
    if dp > 1 and not enable_ep:
        notes.append(f"DP={dp} without --enable-expert-parallel: vLLM still spreads the experts over TP x DP ranks, "
                     "but as a slice of every expert, with an all-reduce instead of EP's all-to-all.")
    return problems, notes


def check_plan(model_id: str, checkpoint: str, nodes: int, tp: int, pp: int = 1, dp: int = 1,
               enable_ep: bool = False, *, gpus_per_node: int = 1, max_model_len: int | None = None,
               budget_gb: float | None = None) -> MoePlan:
    """Check one layout of ``model_id`` (its ``checkpoint``) on ``nodes`` Sparks against vLLM's rules and
    the memory; see the module doc for the arithmetic.

    ``max_model_len`` defaults to the model's native context; ``budget_gb`` to :func:`spark_budget_gb`.
    Qwen3-235B-A22B GPTQ-Int4 (123.8 GB) on 2 Sparks at TP=2 with EP: EP = 2, about 61.9 GB per Spark,
    about 49 GB left for the KV cache at 96,256 B per token per rank. Raises ValueError for sizes
    that are not whole numbers >= 1, an ``enable_ep`` that is not a bool, or an unknown model or
    checkpoint.
    """
    for name, v in (("nodes", nodes), ("tp", tp), ("pp", pp), ("dp", dp), ("gpus_per_node", gpus_per_node)):
        _whole(name, v)
    if not isinstance(enable_ep, bool):
        raise ValueError(f"enable_ep must be True or False, got {enable_ep!r}")
    m = model(model_id)
    total_gb = m.weights_gb(checkpoint)
    length = m.context_length if max_model_len is None else max_model_len
    _whole("max_model_len", length)
    ep = tp * dp if enable_ep and tp * dp > 1 else 1
    problems, notes = _rule_problems(m, nodes, gpus_per_node, tp, pp, dp, enable_ep, ep)
    layers = m.config["num_hidden_layers"]
    stage = max(serving.pp_layers(layers, min(pp, layers))) / layers
    f = m.expert_fraction
    weights = total_gb * stage * ((1 - f) / tp + f / (tp * dp))
    budget = spark_budget_gb() if budget_gb is None else float(budget_gb)
    room = budget - weights
    per_token = serving.kv_bytes_per_token(m.config, tp=tp, pp=min(pp, layers)).per_rank
    tokens = int(room * _GB // per_token) if room > 0 else 0
    need = length * per_token / _GB
    return MoePlan(model_id, checkpoint, nodes, tp, pp, dp, enable_ep, ep, weights, budget, room, per_token,
                   tokens, length, need, tuple(problems), tuple(notes))


def plans(model_id: str, checkpoint: str, nodes: int, *, gpus_per_node: int = 1,
          max_model_len: int | None = None) -> list[MoePlan]:
    """Every layout that uses all ``nodes`` x ``gpus_per_node`` GPUs (each TP x PP x DP split, EP off and
    on where it forms a group), checked; valid or not, in (TP, PP, DP, EP) order."""
    _whole("nodes", nodes)
    _whole("gpus_per_node", gpus_per_node)
    n = nodes * gpus_per_node
    out = []
    for tp, pp in product(range(1, n + 1), repeat=2):
        if n % (tp * pp):
            continue
        dp = n // (tp * pp)
        for ep_on in ((False, True) if tp * dp > 1 else (False,)):
            out.append(check_plan(model_id, checkpoint, nodes, tp, pp, dp, ep_on, gpus_per_node=gpus_per_node,
                                  max_model_len=max_model_len))
    return out


def any_plan_fits(model_id: str, checkpoint: str, nodes: int, *, gpus_per_node: int = 1,
                  max_model_len: int | None = None) -> bool:
    """Whether some layout on ``nodes`` Sparks is valid and fits (:func:`plans`)."""
    return any(p.fits for p in plans(model_id, checkpoint, nodes, gpus_per_node=gpus_per_node,
                                     max_model_len=max_model_len))
