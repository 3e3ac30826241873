"""grader.calc.moe (an MoE model across Sparks, vLLM's expert-parallel rules) and the spec tables it reads
(checks/specs/moe_models.toml, topologies.toml, gpus.toml [dgx_spark]).

Every expected value is worked out here from the model card's and config.json's figures, not read from
the calculator: Qwen3-235B-A22B has 94 layers, 64 attention heads, 4 KV heads of 128, hidden size 4096,
128 experts of width 1536 per layer, 235e9 parameters; a Spark's budget is 121.69 GiB x 0.85.
"""

from __future__ import annotations

import pytest

from grader.calc import moe, specs

QWEN = "qwen3-235b-a22b"
EXPERTS = 94 * 128 * 3 * 4096 * 1536  # gate, up and down of every expert of every layer
F = EXPERTS / 235e9
BUDGET = 121.69 * 2**30 * 0.85 / 1e9
KV_TOKEN = 94 * 4 * 128 * 2 * 2  # layers x KV heads x head dim x (K, V) x BF16 bytes


def test_the_model_reads_its_config_json_fields():
    m = moe.model(QWEN)
    assert m.config["num_hidden_layers"] == 94 and m.config["num_experts"] == 128
    assert m.config["num_key_value_heads"] == 4 and m.config["num_attention_heads"] == 64
    assert m.total_params == 235e9 and m.context_length == 32768
    assert m.expert_params == EXPERTS == 227_096_395_776
    assert m.expert_fraction == pytest.approx(F) and 0.96 < F < 0.97
    assert m.weights_gb("gptq_int4") == pytest.approx(123.8) and m.weights_gb("fp8") == 236
    assert not m.checkpoints["fp8"].verified and m.checkpoints["gptq_int4"].trust == "C"
    with pytest.raises(ValueError, match="known: .*gptq_int4"):
        m.weights_gb("bf16")
    with pytest.raises(ValueError, match="unknown row 'no-such-model'"):
        moe.model("no-such-model")


def test_every_rule_names_its_source():
    rules = specs.row(moe.MODELS, moe.RULES)
    for key in ("ep_size", "experts_without_ep", "expert_split", "attention_heads_by_tp", "kv_heads_by_tp",
                "pp_layers"):
        assert rules.figure(key).verified and rules.figure(key).source, key
    assert "EP_SIZE = TP_SIZE x DP_SIZE" in moe.rule_source("ep_size")
    assert "docs.vllm.ai" in moe.rule_source("ep_size")


def test_the_spark_budget():
    assert moe.spark_budget_gb() == pytest.approx(BUDGET) == pytest.approx(111.06, abs=0.01)


@pytest.mark.parametrize("checkpoint, nodes, tp, pp, dp, weights", [
    ("gptq_int4", 2, 2, 1, 1, 123.8 / 2),                            # TP slices everything
    ("gptq_int4", 2, 1, 2, 1, 123.8 * 47 / 94),                      # PP: 47 layers a stage
    ("gptq_int4", 2, 1, 1, 2, 123.8 * ((1 - F) + F / 2)),            # DP copies attention, EP splits experts
    ("fp8", 4, 4, 1, 1, 236 / 4),
    ("fp8", 4, 2, 1, 2, 236 * ((1 - F) / 2 + F / 4)),
    ("fp8", 4, 1, 4, 1, 236 * 24 / 94),                              # 94 = 24 + 24 + 23 + 23
])
def test_weights_and_room_per_spark(checkpoint, nodes, tp, pp, dp, weights):
    p = moe.check_plan(QWEN, checkpoint, nodes, tp, pp, dp, True)
    assert p.valid and p.fits, p.message()
    assert p.ep == (tp * dp if tp * dp > 1 else 1)
    assert p.weights_gb == pytest.approx(weights)
    assert p.kv_room_gb == pytest.approx(BUDGET - weights)
    per_token = KV_TOKEN / min(tp, 4) / pp if pp == 1 else KV_TOKEN * 24 / 94 / tp if pp == 4 else KV_TOKEN / 2
    assert p.kv_bytes_per_token == pytest.approx(per_token)
    assert p.kv_tokens == int((BUDGET - weights) * 1e9 // per_token)
    assert "fits" in p.message()


def test_ep_is_tp_times_dp_and_the_flag_changes_traffic_not_memory():
    on = moe.check_plan(QWEN, "fp8", 4, 2, 1, 2, True)
    off = moe.check_plan(QWEN, "fp8", 4, 2, 1, 2, False)
    assert (on.ep, off.ep) == (4, 1)
    assert on.weights_gb == off.weights_gb  # vLLM slices the experts over TP x DP either way
    assert any("without --enable-expert-parallel" in n for n in off.notes)
    pp_only = moe.check_plan(QWEN, "gptq_int4", 2, 1, 2, 1, True)
    assert pp_only.ep == 1 and pp_only.valid and any("forms no EP group" in n for n in pp_only.notes)


def test_what_vllm_refuses_is_named():
    p = moe.check_plan(QWEN, "fp8", 4, 3, 1, 1, True)
    assert not p.valid and not p.fits
    text = p.message()
    assert "1 of the 4 Sparks idle" in text
    assert "64 attention heads do not divide by it" in text
    assert "4 KV heads" in text
    assert "does not divide the 128 experts evenly (42 or 43 per rank)" in text
    assert "Ray would wait" in moe.check_plan(QWEN, "fp8", 4, 4, 2, 1, True).message()
    three = moe.check_plan(QWEN, "fp8", 3, 1, 1, 3, True)  # 3 ranks: the heads are fine, the experts are not
    assert three.problems == (three.problems[0],) and "128 experts" in three.problems[0]


def test_a_layout_without_room_does_not_fit():
    p = moe.check_plan(QWEN, "fp8", 2, 2, 1, 1, True)
    assert p.valid and not p.fits
    assert p.weights_gb == pytest.approx(118) and p.kv_room_gb < 0 and p.kv_tokens == 0
    assert "does not fit" in p.message()
    tight = moe.check_plan(QWEN, "gptq_int4", 2, 2, 1, 1, True, budget_gb=61.9 + 1.0)
    assert tight.need_gb == pytest.approx(32768 * KV_TOKEN / 2 / 1e9) and not tight.fits  # 3.15 GB > 1 GB


def test_which_checkpoint_fits_where():
    assert moe.any_plan_fits(QWEN, "gptq_int4", 2)
    assert not moe.any_plan_fits(QWEN, "fp8", 2)
    assert moe.any_plan_fits(QWEN, "fp8", 4)
    layouts = {(p.tp, p.pp, p.dp, p.enable_ep) for p in moe.plans(QWEN, "fp8", 4)}
    assert (4, 1, 1, True) in layouts and (1, 4, 1, False) in layouts and (1, 4, 1, True) not in layouts
    assert all(p.tp * p.pp * p.dp == 4 for p in moe.plans(QWEN, "fp8", 4))


@pytest.mark.parametrize("kwargs, field", [
    ({"tp": 0}, "tp"), ({"tp": 2.0}, "tp"), ({"pp": True}, "pp"), ({"dp": -1}, "dp"),
    ({"enable_ep": "yes"}, "enable_ep"), ({"max_model_len": 0}, "max_model_len"),
])
def test_bad_input_is_refused_by_name(kwargs, field):
    args = {"tp": 2, "pp": 1, "dp": 1, "enable_ep": True} | kwargs
    with pytest.raises(ValueError, match=field):
        moe.check_plan(QWEN, "gptq_int4", 2, **args)


def test_topologies_table_agrees_with_the_ranges_and_the_playbooks():
    from grader.ranges import expected_range

    ring, switch, pair = (specs.row("topologies.toml", t) for t in ("ring", "switch", "pair"))
    assert ring.graded("allgather_busbw_min_gbs") == 10
    assert switch.graded("allgather_busbw_min_gbs") == pair.graded("allgather_busbw_min_gbs") \
        == expected_range("spark-pair", "allgather_busbw_gbs")["min"]
    assert switch.graded("link_speed_mbps") == expected_range("spark-pair", "link_speed_mbps")["min"]
    assert (ring.graded("nodes"), ring.graded("cables_per_node"), ring.graded("subnets")) == (3, 2, 6)
    assert (switch.graded("cables_per_node"), switch.graded("subnets")) == (1, 2)
    assert "NCCL_IB_MERGE_NICS=0" in ring.graded("nccl_extra_env")
    for row in (ring, switch, pair):
        assert all(f.source and f.verified for f in row.figures.values()), row.id


def test_a_malformed_row_is_named(monkeypatch):
    with pytest.raises(specs.SpecError, match=r"\[ring\] has no figure `colour`"):
        specs.row("topologies.toml", "ring").value("colour")
    specs.load_rows.cache_clear()
    try:
        monkeypatch.setattr(specs, "_read", lambda name: {"broken": {"nodes": {"value": 3}}})
        with pytest.raises(specs.SpecError, match=r"topologies.toml \[broken\]: needs `name`"):
            specs.load_rows("topologies.toml")
        monkeypatch.setattr(specs, "_read", lambda name: {"broken": {"name": "x", "nodes": {"value": 3}}})
        with pytest.raises(specs.SpecError, match="has no `unit`"):
            specs.load_rows("topologies.toml")
    finally:
        monkeypatch.undo()
        specs.load_rows.cache_clear()
    assert specs.row("topologies.toml", "ring").graded("nodes") == 3
