"""grader.calc: worked examples computed independently (the arithmetic is written out here), spec
tables with trust grades, and ValueError for impossible input."""

from __future__ import annotations

import math

import pytest

from grader.calc import memory, pcie, power, specs, traffic

# --------------------------------------------------------------------------- PCIe


def test_gen4_x16_is_31_5_gb_per_s_per_direction():
    # 16 GT/s per lane, 128b/130b: 16e9 * 128 / 130 = 15.7538e9 bit/s per lane; x16 = 252.06e9 bit/s;
    # / 8 bits per byte = 31.508e9 B/s = 31.5 GB/s (GB = 1e9 bytes).
    expected = 16e9 * 128 / 130 * 16 / 8 / 1e9
    bw = pcie.link_bandwidth(4, 16)
    assert bw.gbyte_s == pytest.approx(expected) and round(bw.gbyte_s, 1) == 31.5
    assert bw.gbit_s == pytest.approx(252.0615, rel=1e-6) and bw.raw_gbit_s == 256
    assert bw.verified and bw.trust == "B"


@pytest.mark.parametrize("gen, lanes, gb_s", [
    (1, 16, 2.5 * 8 / 10 * 16 / 8),      # 8b/10b: 4.0 GB/s
    (2, 16, 5.0 * 8 / 10 * 16 / 8),      # 8.0 GB/s
    (3, 16, 8.0 * 128 / 130 * 16 / 8),   # 15.75 GB/s
    (3, 4, 8.0 * 128 / 130 * 4 / 8),     # 3.94 GB/s
    (4, 4, 16.0 * 128 / 130 * 4 / 8),    # 7.88 GB/s: a Gen4 card behind a chipset x4 slot
    (4, 8, 16.0 * 128 / 130 * 8 / 8),    # 15.75 GB/s: x8/x8
    (5, 16, 32.0 * 128 / 130 * 16 / 8),  # 63.0 GB/s
])
def test_bandwidth_table_matches_figures_md(gen, lanes, gb_s):
    assert pcie.link_bandwidth(gen, lanes).gbyte_s == pytest.approx(gb_s)


def test_gen6_is_shown_but_unverified():
    bw = pcie.link_bandwidth(6, 16)
    assert not bw.verified and bw.trust == "U"
    assert 120 < bw.gbyte_s < 126  # figures.md: ~121-126 GB/s, sources disagree


def test_practical_fraction_and_bandwidth():
    assert pcie.practical_fraction() == (0.75, 0.86)
    lo, hi = pcie.practical_bandwidth(4, 16)
    assert lo == pytest.approx(31.5077 * 0.75, rel=1e-4) and hi == pytest.approx(31.5077 * 0.86, rel=1e-4)
    # the measured 4090 host->device copies (23.90-26.38 GB/s, nvbandwidth #15) lie in the range
    assert lo <= 23.90 and 26.38 <= hi


@pytest.mark.parametrize("rate, gen", [(2.5, 1), (5, 2), (8, 3), (16, 4), (32.0, 5), (64, 6)])
def test_generation_from_rate(rate, gen):
    assert pcie.generation_from_rate(rate) == gen


@pytest.mark.parametrize("call, needle", [
    (lambda: pcie.link_bandwidth(7, 16), "generation 7 does not exist"),
    (lambda: pcie.link_bandwidth(0, 16), "does not exist"),
    (lambda: pcie.link_bandwidth(4, 3), "width must be one of"),
    (lambda: pcie.link_bandwidth(4, 0), "width must be one of"),
    (lambda: pcie.link_bandwidth("4", 16), "must be an integer"),
    (lambda: pcie.generation_from_rate(10), "not a PCIe generation's rate"),
    (lambda: pcie.generation_from_rate(-1), "positive"),
    (lambda: pcie.transfer_time_s(100, 0), "bandwidth must be > 0"),
    (lambda: pcie.transfer_time_s(-1, 10), "bytes must be >= 0"),
])
def test_pcie_impossible_input(call, needle):
    with pytest.raises(ValueError, match=needle):
        call()


# --------------------------------------------------------------------------- traffic


def test_llama_70b_tp2_does_160_allreduces_of_16_kib_per_token():
    # 80 layers x 2 all-reduces (after attention, after the MLP) = 160 per token;
    # each is hidden 8192 x 2 bytes (bf16) = 16,384 B = 16 KiB; ring at TP=2 sends 2(2-1)/2 = 1x.
    m = traffic.MODELS["llama-3.1-70b"]
    t = traffic.tp_traffic(m.hidden_size, m.num_layers, tp=2, bytes_per_element=2)
    assert t.allreduces == 80 * 2 == 160
    assert t.message_bytes == 8192 * 2 == 16 * 1024
    assert t.ring_factor == 1.0
    assert t.sent_per_step_bytes == 160 * 16384 == 2.5 * 2**20  # 2.5 MiB per rank per token


def test_tp4_ring_factor_and_batch():
    t = traffic.tp_traffic(4096, 32, tp=4, bytes_per_element=2, tokens=8)
    # 2(4-1)/4 = 1.5; message = 4096 * 2 * 8 = 65,536 B
    assert (t.allreduces, t.message_bytes, t.ring_factor) == (64, 65536, 1.5)
    assert t.sent_per_allreduce_bytes == 1.5 * 65536
    assert traffic.tp_traffic(4096, 32, tp=1).allreduces == 0


def test_pp_sends_one_activation_per_boundary():
    p = traffic.pp_traffic(8192, stages=2)
    assert (p.boundaries, p.activation_bytes, p.sent_per_step_bytes) == (1, 16384, 16384)
    assert traffic.pp_traffic(8192, stages=4).sent_per_step_bytes == 3 * 16384


def test_link_time_per_token_with_and_without_p2p():
    t = traffic.tp_traffic(8192, 80)
    # no P2P (club-3090, 2x 3090 Gen4): 11.28 GB/s, 15.23 us. Per all-reduce:
    # 15.23e-6 + 16384 / 11.28e9 = 15.23e-6 + 1.4525e-6 = 16.6825e-6 s; x 160 = 2.669 ms
    no_p2p = 160 * (15.23e-6 + 16384 / 11.28e9)
    assert traffic.tp_link_time_s(t, 11.28, 15.23) == pytest.approx(no_p2p) and round(no_p2p * 1e3, 2) == 2.67
    # P2P on: 27.12 GB/s, 1.01 us -> 160 * (1.01e-6 + 0.6041e-6) = 0.258 ms
    p2p = 160 * (1.01e-6 + 16384 / 27.12e9)
    assert traffic.tp_link_time_s(t, 27.12, 1.01) == pytest.approx(p2p) and round(p2p * 1e3, 3) == 0.258
    link = specs.link("pcie4-no-p2p")
    assert (link.bandwidth_gbs, link.latency_us, link.trust) == (11.28, 15.23, "B")


def test_layer_split_against_tp_on_two_4090s():
    # 70B at ~4.5 bits ~ 40 GB read per token; one RTX 4090 reads 1008 GB/s (heise, B).
    # one card (if it fitted): 40e9 / 1008e9 = 39.68 ms -> 25.2 tok/s
    # layer split: the cards take turns: 39.68 ms + one 16 KiB send (16.68 us) -> 25.19 tok/s
    # TP=2, no P2P: 19.84 ms + 2.669 ms -> 44.4 tok/s
    read = 40e9 / 1008e9
    send = 15.23e-6 + 16384 / 11.28e9
    p = traffic.predict_decode(40e9, 1008, 8192, 80, 11.28, 15.23)
    assert p.layer_split_tok_s == pytest.approx(1 / (read + send))
    assert p.tp_tok_s == pytest.approx(1 / (read / 2 + 160 * send))
    assert round(p.layer_split_tok_s, 1) == 25.2 and round(p.tp_tok_s, 1) == 44.4
    assert p.tp_speedup_over_split == pytest.approx(p.tp_tok_s / p.layer_split_tok_s)
    # a small model on a slow link: TP's latency outweighs halving the reads
    small = traffic.predict_decode(1e9, 1008, 2048, 24, 6.5, 15.23)
    assert small.tp_tok_s < small.layer_split_tok_s


@pytest.mark.parametrize("call, needle", [
    (lambda: traffic.tp_traffic(0, 80), "hidden_size must be"),
    (lambda: traffic.tp_traffic(8192, 80, tp=0), "tp must be"),
    (lambda: traffic.tp_traffic(8192, 80, bytes_per_element=1.5), "bytes_per_element must be"),
    (lambda: traffic.pp_traffic(8192, stages=0), "stages must be"),
    (lambda: traffic.link_time_per_step_s(-1, 10, 10, 1), "transfers must be"),
    (lambda: traffic.predict_decode(40e9, 1008, 8192, 80, 11.28, 15.23, n_gpus=1), "n_gpus must be"),
    (lambda: traffic.predict_decode(40e9, 0, 8192, 80, 11.28, 15.23), "mem_bandwidth_gbs must be"),
    (lambda: traffic.predict_decode(40e9, 1008, 8192, 80, 11.28, 15.23, efficiency=1.5), "efficiency"),
])
def test_traffic_impossible_input(call, needle):
    with pytest.raises(ValueError, match=needle):
        call()


# --------------------------------------------------------------------------- memory


def test_kv_cache_of_llama_70b():
    # 2 (K and V) x 80 layers x 8 KV heads x 128 head dim x 2 bytes = 327,680 B = 320 KiB per token
    per_tok = memory.kv_bytes_per_token(80, 8, 128, 2)
    assert per_tok == 2 * 80 * 8 * 128 * 2 == 320 * 1024
    assert memory.kv_cache_bytes(per_tok, 32768) == 320 * 1024 * 32768 == 10 * 2**30  # 10 GiB


def test_pair_fit_70b_on_two_4090s():
    # weights: 70.6e9 params x 4.5 bits / 8 = 39.7125e9 B -> 19.856e9 per card
    # budget: 24 GiB x 0.9 = 23.193e9 B per card; overhead 2 GiB = 2.147e9
    weights = memory.weights_bytes(70.6, 4.5)
    assert weights == pytest.approx(70.6e9 * 4.5 / 8)
    big = memory.pair_fit(weights, 10 * 2**30, 24 * 2**30)
    # need = 19.856e9 + 5.369e9 (10 GiB / 2) + 2.147e9 = 27.372e9 > 23.193e9
    assert big.need == pytest.approx(weights / 2 + 5 * 2**30 + 2 * 2**30)
    assert big.budget == pytest.approx(24 * 2**30 * 0.9) and not big.fits and big.headroom < 0
    small = memory.pair_fit(weights, 2 * 2**30, 24 * 2**30, kv_per_token=327680)
    # need = 19.856e9 + 1.074e9 + 2.147e9 = 23.077e9 <= 23.193e9: fits, just
    assert small.fits and 0 < small.headroom < 0.2e9
    # room for KV beside the weights: (23.193e9 - 19.856e9 - 2.147e9) x 2 cards / 327,680 B per token
    room = (24 * 2**30 * 0.9 - weights / 2 - 2 * 2**30) * 2
    assert small.max_kv_tokens == int(room // 327680)


@pytest.mark.parametrize("call, needle", [
    (lambda: memory.weights_bytes(0, 16), "params_billion"),
    (lambda: memory.weights_bytes(7, 0), "bits_per_weight"),
    (lambda: memory.weights_bytes(7, 64), "bits_per_weight"),
    (lambda: memory.kv_bytes_per_token(0, 8, 128), "num_layers"),
    (lambda: memory.kv_cache_bytes(1000, -1), "context_tokens"),
    (lambda: memory.pair_fit(1e9, 0, 0), "card_memory_bytes"),
    (lambda: memory.pair_fit(1e9, 0, 24e9, n_cards=0), "n_cards"),
    (lambda: memory.pair_fit(1e9, 0, 24e9, utilization=1.2), "utilization"),
    (lambda: memory.pair_fit(-1, 0, 24e9), "weights"),
])
def test_memory_impossible_input(call, needle):
    with pytest.raises(ValueError, match=needle):
        call()


# --------------------------------------------------------------------------- power


def test_two_4090s_and_an_i9_14900k_on_a_1300w_atx3_psu_and_a_120v_15a_circuit():
    """The named build: 2x GeForce RTX 4090 (450 W TGP each), Intel Core i9-14900K (253 W, Tom's
    Hardware via figures.md §4.3), 100 W for board, drives and fans; MSI MEG Ai1300P (1,300 W,
    ATX 3.0, AnandTech review); a US 120 V 15 A circuit; the PSU at 90% efficiency."""
    load = power.system_load_w([450, 450], cpu_watts=253, rest_watts=100)
    assert load == 450 + 450 + 253 + 100 == 1253
    psu = power.psu_check(load, 1300, atx3=True)
    assert psu.sustained_ok and psu.load_fraction == pytest.approx(1253 / 1300)  # 96.4%
    assert psu.excursion_limit_w == 2 * 1300 == 2600  # ATX 3.0: 200% for 100 us
    # a generic 1200 W ATX 3.0 unit is too small: 1253 > 1200
    assert not power.psu_check(load, 1200).sustained_ok
    # circuit: 120 V x 15 A = 1800 W nominal; 80% continuous = 1440 W
    c = power.circuit_capacity(120, 15)
    assert (c.nominal_w, c.continuous_w, c.verified) == (1800, 1440, True)
    # wall draw: 1253 / 0.90 = 1392.2 W < 1440 W: fits, with 48 W to spare
    wall = power.wall_draw_w(load, 0.90)
    assert wall == pytest.approx(1253 / 0.9) and round(wall) == 1392 and wall < c.continuous_w
    # heat: 1392.2 W x 3.412141633 = 4750.5 BTU/h
    assert power.btu_per_hour(wall) == pytest.approx(1253 / 0.9 * 3.412141633)
    assert round(power.btu_per_hour(wall)) == 4750


def test_two_5090s_overflow_psu_and_circuit():
    # figures.md §4.3: 2 x 575 + 253 + 100 = 1503 W DC > 1300 W PSU and > 1440 W continuous
    load = power.system_load_w([575, 575], 253, 100)
    assert load == 1503 and not power.psu_check(load, 1300).sustained_ok
    assert load > power.circuit_capacity(120, 15).continuous_w
    # spikes: 575 W x 659/575 = 659 W per card -> 2 x 659 + 353 = 1671 W for 0.1 s windows
    assert power.transient_load_w([575, 575], 253, 100) == pytest.approx(2 * 659 + 353)
    # capped to 400 W each with nvidia-smi -pl: 800 + 353 = 1153 W fits both
    capped = power.system_load_w([400, 400], 253, 100)
    assert capped == 1153 and power.psu_check(capped, 1300).sustained_ok
    assert power.wall_draw_w(capped, 0.9) < 1440
    # 230 V 16 A: 3680 W nominal, 2944 W at 80%: arithmetic only, so unverified
    eu = power.circuit_capacity(230, 16)
    assert (eu.nominal_w, eu.continuous_w, eu.verified) == (3680, 2944, False)


def test_connectors():
    # 3090 FE: 2 x 8-pin (150 W each) + 75 W slot = 375 W >= 350 W TGP
    assert power.connector_capacity_w({"pcie-8pin": 2}) == 2 * 150 + 75
    # 5090: one 12V-2x6 (600 W) + slot = 675 W >= 575 W
    assert power.connector_capacity_w({"12v-2x6": 1}) == 675
    assert power.connector_capacity_w({"12v-2x6": 1}, slot=False) == 600


def test_case_airflow_and_slot_spacing():
    # standard air: 1.08 BTU/h per CFM per °F; 1053 W = 3593 BTU/h; a 10 °C rise is 18 °F: 3593 / 19.44 = 184.8 CFM
    assert power.case_airflow_cfm(1053, 10) == pytest.approx(1053 * 3.412141633 / (1.08 * 18)) == pytest.approx(184.82, abs=0.01)
    # half the rise allowed, twice the air; no heat, no air
    assert power.case_airflow_cfm(1053, 5) == pytest.approx(2 * power.case_airflow_cfm(1053, 10))
    assert power.case_airflow_cfm(0, 10) == 0
    # 3-slot coolers in x16 slots 1 and 4 touch; in 1 and 5 one slot is free; a 3-slot card in slot 1 covers slot 3
    assert power.free_slots(1, 4, 3) == 0 and power.free_slots(1, 5, 3) == 1 and power.free_slots(1, 3, 3) == -1
    assert specs.gpu("rtx3090").graded("fe_slots") == 3


def test_power_limit_notes_say_what_pl_does_not_do():
    text = power.POWER_LIMIT_NOTES
    assert "not persistent" in text and "Min/Max Power Limit" in text and "root" in text
    assert "enforced" in text and "659 W" in text


@pytest.mark.parametrize("call, needle", [
    (lambda: power.system_load_w([], 100, 100), "at least one card"),
    (lambda: power.system_load_w([-1], 100, 100), r"gpu_watts\[0\]"),
    (lambda: power.system_load_w([450], -5, 100), "cpu_watts"),
    (lambda: power.psu_check(100, 0), "psu_w"),
    (lambda: power.psu_check(1000, 1200, transient_w=900), "transient_w"),
    (lambda: power.transient_load_w([450], 100, 100, gpu_factor=0.5), "gpu_factor"),
    (lambda: power.circuit_capacity(12, 15), "household mains"),
    (lambda: power.circuit_capacity(120, 0), "amps"),
    (lambda: power.wall_draw_w(1000, 0), "efficiency"),
    (lambda: power.wall_draw_w(1000, 1.2), "efficiency"),
    (lambda: power.btu_per_hour(-3), "watts"),
    (lambda: power.case_airflow_cfm(-1, 10), "heat_w"),
    (lambda: power.case_airflow_cfm(1000, 0), "rise_c"),
    (lambda: power.free_slots(4, 1, 3), "second > first"),
    (lambda: power.free_slots(1, 4, 0), "card_slots"),
    (lambda: power.connector_capacity_w({"molex": 2}), "unknown connector"),
    (lambda: power.connector_capacity_w({"pcie-8pin": -1}), "whole number"),
])
def test_power_impossible_input(call, needle):
    with pytest.raises(ValueError, match=needle):
        call()


# --------------------------------------------------------------------------- spec tables


def test_every_gpu_figure_has_unit_source_and_trust():
    table = specs.load_gpus()
    assert set(table) >= {"rtx3090", "rtx4090", "rtx5090", "rtx_a6000", "rtx_6000_ada", "rtx_pro_6000", "dgx_spark"}
    for spec in table.values():
        assert spec.figures, spec.id
        for key, fig in spec.figures.items():
            assert fig.trust in specs.TRUST_GRADES and fig.source.strip(), (spec.id, key)
    gens = specs.load_pcie()["generations"]
    assert sorted(gens) == [1, 2, 3, 4, 5, 6] and all(g.source and g.trust for g in gens.values())


@pytest.mark.parametrize("smi_name, gid", [
    ("NVIDIA GeForce RTX 3090", "rtx3090"), ("NVIDIA GeForce RTX 3090 Ti", "rtx3090ti"),
    ("NVIDIA GeForce RTX 4090", "rtx4090"), ("NVIDIA GeForce RTX 5090", "rtx5090"),
    ("NVIDIA RTX A6000", "rtx_a6000"), ("NVIDIA RTX 6000 Ada Generation", "rtx_6000_ada"),
    ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "rtx_pro_6000"),
    ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "rtx_pro_6000_maxq"),
    ("NVIDIA GB10", "dgx_spark"), ("NVIDIA H200", None), (None, None),
])
def test_match_gpu_by_nvidia_smi_name(smi_name, gid):
    spec = specs.match_gpu(smi_name)
    assert (spec.id if spec else None) == gid


def test_unverified_figures_are_shown_but_never_graded():
    maxq = specs.gpu("rtx_pro_6000_maxq")
    fig = maxq.figure("tgp_watts")
    assert fig.value == 300 and not fig.verified and "UNVERIFIED" in fig.describe()
    assert maxq.graded("tgp_watts") is None
    r3090 = specs.gpu("rtx3090")
    assert r3090.figure("memory_bandwidth_gbs").trust == "U" and r3090.graded("memory_bandwidth_gbs") is None
    assert r3090.graded("tgp_watts") == 350
    assert specs.gpu("rtx5090").graded("tgp_watts") == 575
    assert specs.gpu("dgx_spark").graded("memory_bandwidth_gbs") == 273
    with pytest.raises(ValueError, match="unknown GPU id"):
        specs.gpu("rtx9999")


def test_spec_loader_refuses_a_figure_without_source(monkeypatch):
    monkeypatch.setattr(specs, "_read", lambda name: {"x": {"name": "X", "match": "X",
                                                            "tgp_watts": {"value": 1, "unit": "W", "trust": "B"}}})
    specs.load_gpus.cache_clear()
    try:
        with pytest.raises(specs.SpecError, match="has no `source`"):
            specs.load_gpus()
    finally:
        monkeypatch.undo()
        specs.load_gpus.cache_clear()
    assert math.isclose(specs.load_gpus()["rtx4090"].graded("tgp_watts"), 450)
