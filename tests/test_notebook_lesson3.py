"""Lesson 3's notebook (solutions/lesson3/lesson3.ipynb): its answers, its answer tests, its grade cell.

Run without a kernel, as tests/test_notebook_lesson1.py does. Every expected value is worked out here
by hand from the lesson's inputs (PCIe rates and encodings, the model's shape, the cards' TGPs), not
taken from the notebook or the calculators.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.test_notebook_lesson1 import assert_notebook_shape, cells_by_id, meta, run, unsolved

ROOT = Path(__file__).resolve().parents[1]
LESSON = ROOT / "solutions" / "lesson3"
NOTEBOOK = LESSON / "lesson3.ipynb"
RECORDED = LESSON / "recorded" / "lesson3.json"
CHECK_IDS = ["L3.cards", "L3.pcie_link", "L3.p2p_path", "L3.power_budget", "L3.circuit"]
LSPCI_FIXTURE = ROOT / "tests" / "fixtures" / "captured" / "h200x1" / "lspci-vv-nvidia.txt"

EXERCISES = {  # test cell: (data cell or None, answer cell)
    "l3_ex1_test": (None, "l3_ex1_answer"),
    "l3_ex2_test": ("l3_ex2_data", "l3_ex2_answer"),
    "l3_ex3_test": (None, "l3_ex3_answer"),
    "l3_ex4_test": (None, "l3_ex4_answer"),
    "l3_ex5_test": (None, "l3_ex5_answer"),
    "l3_ex6_test": ("l3_ex6_data", "l3_ex6_answer"),
}


def cells() -> dict:
    return cells_by_id(NOTEBOOK)


def test_notebook_shape():
    assert_notebook_shape(NOTEBOOK)
    c = cells()
    assert c["l3_check"].source.strip() == 'cl.check_my_cluster("lesson3")'
    for name in ("pcie_calculator()", "traffic_calculator()", "memory_calculator()", "power_calculator()"):
        assert any(cell.source.strip() == name for cell in c.values()), name


def test_grade_cell_covers_every_lesson3_check():
    src = cells()["l3_grade_desktop"]
    m = re.search(r"grade_checks\(\"lesson3\", \[(.*?)\], points=(\d+)\)", src.source)
    assert m and sorted(re.findall(r'"(L3\.\w+)"', m.group(1))) == sorted(CHECK_IDS)
    assert int(m.group(2)) == meta(src)["points"]


def test_solutions_are_right():
    """The solution values against hand arithmetic."""
    c = cells()
    ns, _ = run([c[i].source for i in ("l3_ex1_answer", "l3_ex2_data", "l3_ex2_answer", "l3_ex3_answer",
                                      "l3_ex4_answer", "l3_ex5_answer", "l3_ex6_data", "l3_ex6_answer")])
    # Gen4: 16 GT/s, Gen5: 32 GT/s per lane, 128b/130b, 8 bits per byte
    assert ns["gen4_x16_gbyte_s"] == pytest.approx(16 * 16 * 128 / 130 / 8) == pytest.approx(31.5077, abs=1e-4)
    assert ns["gen5_x8_gbyte_s"] == pytest.approx(32 * 8 * 128 / 130 / 8) == pytest.approx(ns["gen4_x16_gbyte_s"])
    # the H200's LnkSta: Speed 32GT/s (Gen5), Width x16
    assert (ns["h200_gen"], ns["h200_lanes"]) == (5, 16)
    assert ns["h200_gbyte_s"] == pytest.approx(63.0154, abs=1e-3)
    # Llama 3.1 70B: 80 layers x 2 all-reduces, 8192 x 2 B each; the layer split sends one activation
    assert ns["tp_allreduces"] == 160
    assert ns["tp_bytes_per_token"] == 160 * 16384 == 2_621_440
    assert ns["split_bytes_per_token"] == 16384
    # A: 40 GB / 1008 GB/s = 39.7 ms per token split; TP 19.8 ms + 160 x (15.23 us + 16384 B / 11.28 GB/s) = 22.5 ms
    split_ms = 40e9 / 1008e9 * 1e3 + (15.23e-6 + 16384 / 11.28e9) * 1e3
    tp_ms = 40e9 / 2 / 1008e9 * 1e3 + 160 * (15.23e-6 + 16384 / 11.28e9) * 1e3
    assert tp_ms < split_ms and ns["decision_a"] == "tp"
    # B: TP puts 10e9 B weights + 1 GiB KV + 2 GiB overhead on each card; the 12 GiB card offers 0.9 x 12 GiB
    assert 10e9 + 2**30 + 2 * 2**30 > 0.9 * 12 * 2**30 and ns["decision_b"] == "layer"
    # 2 x 350 W (RTX 3090 TGP) + 253 W + 100 W = 1053 W: the 1200 W unit; 1053 / 0.9 = 1170 W <= 1440 W;
    # on a 1000 W unit each card may draw (1000 - 253 - 100) / 2 = 323.5 W
    assert ns["load_w"] == 1053 and ns["psu_w"] == 1200
    assert ns["wall_w"] == pytest.approx(1170.0) and ns["circuit_ok"] is True
    assert ns["cap_w"] == pytest.approx(323.5)
    # 1053 W of DC load at a 10 °C (18 °F) rise: 1053 x 3.412 BTU/h / (1.08 x 18) = 184.8 CFM
    assert ns["case_cfm"] == pytest.approx(1053 * 3.412 / (1.08 * 18), rel=1e-3) == pytest.approx(184.8, abs=0.1)
    # two 3-slot Founders Edition coolers in slots 1 and 4: 4 - 1 - 3 = 0 slots between them
    assert ns["free_slots"] == 0
    # club-3090 #178: 68.55 -> 65.23 tok/s is 4.84%; 1725 -> 1365 MHz is 20.87%
    assert ns["tps_loss_pct"] == pytest.approx(4.843, abs=1e-3)
    assert ns["clock_loss_pct"] == pytest.approx(20.870, abs=1e-3)
    assert ns["why_small"] == "memory-bandwidth"


def test_embedded_lspci_is_the_captured_output():
    ns, _ = run([cells()["l3_ex2_data"].source])
    captured = LSPCI_FIXTURE.read_text().splitlines()
    embedded = [ln for ln in ns["LSPCI_H200"].splitlines() if ln.strip()]
    assert len(embedded) == 4 and all(ln in captured for ln in embedded)
    assert "tests/fixtures/captured/h200x1/lspci-vv-nvidia.txt" in cells()["l3_ex2_text"].source


@pytest.mark.parametrize("test_id", sorted(EXERCISES))
def test_answer_tests_pass_with_the_solution(test_id):
    c = cells()
    data, answer = EXERCISES[test_id]
    _, out = run(([c[data].source] if data else []) + [c[answer].source, c[test_id].source])
    assert "✓" in out


@pytest.mark.parametrize("test_id", sorted(EXERCISES))
def test_answer_tests_fail_unanswered(test_id):
    c = cells()
    data, answer = EXERCISES[test_id]
    ns = {}
    if data:
        run([c[data].source], ns)
    with pytest.raises(NotImplementedError):
        run([unsolved(c[answer].source)], ns)
    with pytest.raises(NameError):
        run([c[test_id].source], ns)


WRONG = {  # plausible mistakes, each must fail its test
    "l3_ex1_test": ["gen4_x16_gbyte_s = 32.0\ngen5_x8_gbyte_s = 31.5",        # no encoding overhead
                    "gen4_x16_gbyte_s = 31.5\ngen5_x8_gbyte_s = 63.0",        # Gen5 x16, not x8
                    "gen4_x16_gbyte_s = 252.1\ngen5_x8_gbyte_s = 252.1"],     # Gbit/s, not GB/s
    "l3_ex2_test": ["h200_gen = 5\nh200_lanes = 16\nh200_gbyte_s = 64.0",
                    "h200_gen = 32\nh200_lanes = 16\nh200_gbyte_s = 63.0"],
    "l3_ex3_test": ["tp_allreduces = 80\ntp_bytes_per_token = 80 * 16384\nsplit_bytes_per_token = 16384",
                    "tp_allreduces = 160\ntp_bytes_per_token = 160 * 8192\nsplit_bytes_per_token = 8192",
                    "tp_allreduces = 160\ntp_bytes_per_token = 160 * 16384\nsplit_bytes_per_token = 80 * 16384"],
    "l3_ex4_test": ["decision_a = 'layer'\ndecision_b = 'layer'", "decision_a = 'tp'\ndecision_b = 'tp'"],
    "l3_ex5_test": [f"load_w = 1053\npsu_w = {p}\nwall_w = {w}\ncircuit_ok = {ok}\ncap_w = {cap}" for p, w, ok, cap in (
        (1000, 1170.0, True, 323.5),          # a PSU below the load
        (1300, 1170.0, True, 323.5),          # not the smallest that carries it
        (1200, 1053 * 0.9, True, 323.5),      # efficiency applied the wrong way
        (1200, 1170.0, False, 323.5),         # circuit misjudged
        (1200, 1170.0, True, 350.0),          # the cap at the TGP: 1053 W on a 1000 W unit
        (1200, 1170.0, True, 300.0),          # a cap that fits but is not the highest
    )] + ["load_w = 2 * 450 + 253 + 100\npsu_w = 1300\nwall_w = 1392.2\ncircuit_ok = True\ncap_w = 323.5"],
    "l3_ex6_test": [f"case_cfm = {cfm}\nfree_slots = {free}\ntps_loss_pct = {tps}\nclock_loss_pct = {clk}\nwhy_small = {why!r}"
                    for cfm, free, tps, clk, why in (
        (332.7, 0, 4.84, 20.87, "memory-bandwidth"),   # the rise in °C used as °F
        (205.4, 0, 4.84, 20.87, "memory-bandwidth"),   # the wall draw (PSU loss included), not the DC load
        (184.8, 3, 4.84, 20.87, "memory-bandwidth"),   # slots apart, not free between the coolers
        (184.8, 0, 0.0484, 0.2087, "memory-bandwidth"),  # fractions, not %
        (184.8, 0, 5.09, 26.37, "memory-bandwidth"),   # losses over the hot figures, not the cold ones
        (184.8, 0, 4.84, 20.87, "pcie"),               # the link between the cards is not what slowed
    )],
}


@pytest.mark.parametrize("test_id,wrong", [(t, w) for t, ws in WRONG.items() for w in ws])
def test_answer_tests_fail_wrong_answers(test_id, wrong):
    c = cells()
    data = EXERCISES[test_id][0]
    with pytest.raises(AssertionError):
        run(([c[data].source] if data else []) + [wrong, c[test_id].source])


def test_recorded_evidence_earns_nothing(tmp_path, monkeypatch):
    """recorded/lesson3.json was recorded on the sim (no GPU there: every L3 check is n.a.) and is a replay:
    handed in as evidence, the grade cell gives 0 saying so; without evidence it gives 0 too."""
    data = json.loads(RECORDED.read_text())
    assert data["lesson"] == "lesson3" and data["profile"] == "sim"
    cell = cells()["l3_grade_desktop"]
    monkeypatch.chdir(tmp_path)
    ns, out = run([f"_score = {cell.source.strip()}"])
    assert ns["_score"] == 0.0 and out.startswith("0/")
    (tmp_path / "evidence").mkdir()
    shutil.copy(RECORDED, tmp_path / "evidence" / "lesson3.json")
    ns, out = run([f"_score = {cell.source.strip()}"])
    # nothing of lesson 3 applies to the sim (and the file is a replay): nothing was measured, nothing earned
    assert ns["_score"] == 0.0 and "0/" in out
    assert "replay" in out
