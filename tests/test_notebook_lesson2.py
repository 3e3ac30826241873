"""Lesson 2's notebook (solutions/lesson2/lesson2.ipynb): its shape, its answers, its answer tests, its
grade cells against the evidence recorded on the sim, and one headless run.

The answer and test cells run here in one namespace, without a kernel; every expected value is worked out
in this file from the lesson's facts (the fixtures' text, config.json's shape), not read from the notebook.
The helpers at the top are shared with tests/test_notebook_lesson4.py.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import real_text
from tests.helpers_notebooks import as_released

# the sim evidence these grade is the project's own recordings (built finished): the instructor's switch lifts the
# rule that lesson 2's sim points come from the learner's own serving (tests/test_hands_on_sim.py holds it)
pytestmark = pytest.mark.usefixtures("sim_own_work_off")
from tests.helpers_notebooks import cells_by_id as load
from tests.helpers_notebooks import meta as nbmeta

nbformat = pytest.importorskip("nbformat", reason="nbformat is in the notebook extra: pip install -e '.[notebook]'")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "solutions" / "lesson2" / "lesson2.ipynb"
RECORDED = ROOT / "solutions" / "lesson2" / "recorded" / "lesson2.json"
HEALTHY = ROOT / "tests" / "fixtures" / "golden" / "lesson2-sim-healthy.json"
MACHINE = re.compile(r"check_my_cluster|grade_checks")


# ------------------------------------------------------------------------------------------ helpers

def exercise_cells(cells: dict) -> list[str]:
    """grade_ids of the code cells that make up the exercises: every code cell but the machine checks."""
    return [g for g, c in cells.items() if c.cell_type == "code" and not MACHINE.search(c.source)]


def run_cells(cells: dict, ids: list[str], swap: dict[str, str] | None = None) -> dict[str, str]:
    """Exec the cells in order in one namespace; return ``{answer-test grade_id: "ok" | exception name}``.

    ``swap`` replaces a cell's source (by grade_id). Only grade cells are caught: an error anywhere else
    is a broken notebook and propagates.
    """
    ns: dict = {}
    outcome = {}
    with contextlib.redirect_stdout(io.StringIO()):
        for gid in ids:
            src = (swap or {}).get(gid, cells[gid].source)
            if not nbmeta(cells[gid]).get("grade"):
                try:
                    exec(src, ns)
                except NotImplementedError:
                    pass
                continue
            try:
                exec(src, ns)
                outcome[gid] = "ok"
            except Exception as e:  # noqa: BLE001 - the outcome is the exception's kind
                outcome[gid] = type(e).__name__
    return outcome


def check_shape(path: Path) -> dict:
    """Assert the conventions every course notebook follows; return its cells by grade_id."""
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"] == {"name": "python3", "display_name": "Python 3", "language": "python"}
    ids = [nbmeta(c).get("grade_id") for c in nb.cells]
    assert all(ids) and len(ids) == len(set(ids)), "every cell needs a unique grade_id"
    for c in nb.cells:
        m = nbmeta(c)
        assert m["schema_version"] == 3 and all(re.fullmatch(r"[A-Za-z0-9_-]+", i) for i in ids)
        if c.cell_type == "code":
            assert c.outputs == [] and c.execution_count is None, f"{m['grade_id']}: outputs not cleared"
        if m["solution"]:
            assert not m["grade"] and not m["locked"]
            assert c.source.count("### BEGIN SOLUTION") == 1 and "### END SOLUTION" in c.source
        else:
            assert m["locked"], f"{m['grade_id']} should be locked"
        if m["grade"]:
            assert m["points"] > 0 and c.cell_type == "code"
            assert "### BEGIN SOLUTION" not in c.source
    first = next(c for c in nb.cells if c.cell_type == "code")
    assert first.source.splitlines()[0] == "from grader import notebook as cl"
    return {nbmeta(c)["grade_id"]: c for c in nb.cells}


def solution_values(cells: dict) -> dict:
    """The namespace after running every non-grade exercise cell (data and answers) in order."""
    ns: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        for gid in exercise_cells(cells):
            if not nbmeta(cells[gid]).get("grade"):
                exec(cells[gid].source, ns)
    return ns


def assert_answer_tests_pass_then_fail_released(path: Path, count: int) -> None:
    """Every answer test passes with the solutions and none passes with the cells as released."""
    cells = load(path)
    ids = exercise_cells(cells)
    assert set(run_cells(cells, ids).values()) == {"ok"}
    released = {g: as_released(cells[g].source) for g in ids if nbmeta(cells[g]).get("solution")}
    outcome = run_cells(cells, ids, released)
    assert len(outcome) == count and "ok" not in outcome.values(), outcome


def assert_mistake_caught(path: Path, cell: str, wrong: str) -> None:
    """With ``wrong`` in answer cell ``cell``, the test cell right after it fails an assertion."""
    cells = load(path)
    ids = exercise_cells(cells)
    test_id = ids[ids.index(cell) + 1]
    assert nbmeta(cells[test_id]).get("grade")
    assert run_cells(cells, ids, {cell: wrong})[test_id] == "AssertionError"


def assert_headless_full_points(path: Path, work: Path, grade_cells_expected: int) -> None:
    """Run the notebook in a kernel in ``work`` with no inventory: no error, no stderr, full points."""
    from tests.helpers_notebooks import execute, grade_cells, not_applicable_cells, problems

    nb = execute(path, work, env={"CLUSTERLAB_INVENTORY": str(work.parent / "no-inventory.toml")}, timeout=120)
    assert problems(nb) == []
    rows = grade_cells(nb)
    assert len(rows) == grade_cells_expected, rows
    na = not_applicable_cells(nb, "sim")
    assert all(r["score"] == (0 if r["id"] in na else r["points"]) and not r["stderr"] for r in rows), rows


def answer_tests(cells: dict) -> list[str]:
    """grade_ids of the grade cells that test answers (not the machine checks)."""
    return [g for g, c in cells.items() if nbmeta(c).get("grade") and not MACHINE.search(c.source)]


# ------------------------------------------------------------------------------------------ lesson 2

L2_CHECKS = ["L2.roce_active", "L2.ifname_vars", "L2.ib_hca", "L2.gid_index", "L2.env_same", "L2.nccl_transport",
             "L2.busbw", "L2.ib_write_bw", "L2.ray_nodes", "L2.head_on_qsfp", "L2.vllm_host_ip",
             "L2.parallel_sizes", "L2.kv_capacity", "L2.model_same", "L2.versions_same", "L2.launch"]


def grade_cells_checks(cells: dict) -> dict[str, tuple[list[str], int]]:
    """{grade_id: (check ids, points=)} of the grade_checks cells."""
    out = {}
    for gid, c in cells.items():
        m = re.fullmatch(r'cl\.grade_checks\("lesson2", \[(.*?)\], points=(\d+)\)', c.source.strip())
        if m:
            out[gid] = (re.findall(r'"(L2\.\w+)"', m.group(1)), int(m.group(2)))
    return out


def test_shape():
    cells = check_shape(NOTEBOOK)
    assert cells["check"].source.strip() == 'cl.check_my_cluster("lesson2")'
    assert len(answer_tests(cells)) == 7


def test_machine_cells_cover_every_lesson2_check_once():
    """Every L2 check (2a and 2b) in exactly one grade cell, points= equal to the cell's points and to the
    catalogue's points of its checks; all after the check panel."""
    from grader.grading import load_catalogue

    cells = load(NOTEBOOK)
    order = list(cells)
    catalogue = {c["id"]: c["points"] for c in load_catalogue("lesson2")}
    named = []
    for gid, (ids, points) in grade_cells_checks(cells).items():
        named += ids
        assert points == nbmeta(cells[gid])["points"] == sum(catalogue[i] for i in ids), gid
        assert order.index(gid) > order.index("check")
    assert sorted(named) == sorted(L2_CHECKS) == sorted(catalogue)


def test_embedded_outputs_are_the_fixtures_they_name():
    ns: dict = {}
    cells = load(NOTEBOOK)
    with contextlib.redirect_stdout(io.StringIO()):
        for gid in ("ibdev_fixture", "busbw_fixture", "logs"):
            exec(cells[gid].source, ns)
    f11 = [ln for ln in real_text("spark/11_*").splitlines() if not ln.startswith("#")]
    assert (ns["IP_BR_TEXT"] + ns["IBDEV_TEXT"]).splitlines() == f11
    f07 = real_text("spark/07_*")
    assert all(ln in f07 for ln in ns["NCCL_TESTS_TEXT"].splitlines())
    assert all(ln in real_text("spark/16_*") for ln in ns["GEMMA_LOG"].splitlines())
    assert all(ln in real_text("vllm-cpu/17_*") for ln in ns["SIM_LOG"].splitlines())
    assert "GPU KV cache size: 2,493,464 tokens" in ns["V4_LOG"]


def test_solutions_are_right():
    """The solution values against values worked out here, independently of grader.calc."""
    ns = solution_values(load(NOTEBOOK))
    # oshlabs node 1 is cabled on port 0: enP2p1s0f0np0 is PCI domain 0002, function 0 -> roceP2p1s0f0
    assert ns["roce_for_enP2p1s0f0np0"] == "roceP2p1s0f0"
    assert set(ns["nccl_ib_hca"].split(",")) == {"rocep1s0f0", "roceP2p1s0f0"}
    # prefix match: of enP7s7, enp1s0f0np0, enp1s0f1np1, enP2p1s0f0np0, enP2p1s0f1np1 only two start with "enp1"
    assert ns["socket_var"] == "NCCL_SOCKET_IFNAME"
    assert sorted(ns["picked_by_enp1"]) == ["enp1s0f0np0", "enp1s0f1np1"]
    # 16 GiB in 374,425 us; all_gather over 2 ranks moves (n-1)/n of it per link
    assert ns["algbw_gbs"] == pytest.approx(17179869184 / 0.374425 / 1e9)
    assert ns["busbw_gbs"] == pytest.approx(22.94, abs=0.01) and ns["meets_nvidia_bar"] is True
    # two 1-GPU nodes, PP across them: world size 2 = both GPUs; TP=2 x PP=2 would need 4
    assert (ns["tp_70b"], ns["pp_70b"], ns["backend_70b"], ns["fits_tp2_pp2"]) == (1, 2, "ray", False)
    # Llama-3 70B: 80 layers x 8 KV heads x 128 x (K, V) x 2 B; PP=2 -> 40 layers per rank
    assert ns["kv_bytes_total"] == 327_680 and ns["kv_bytes_rank"] == 163_840
    assert ns["kv_tokens_fit"] == 30 * 2**30 // 163_840 == 196_608
    assert ns["concurrency"] == pytest.approx(6.0)
    # the V4 README's lines; gemma's 37,392 tokens at 262,144
    assert (ns["v4_kv_tokens"], ns["v4_concurrency"]) == (2_493_464, 2.38)
    assert ns["v4_requests_128k"] == pytest.approx(19.02, abs=0.01)
    assert ns["gemma_tokens_per_len"] == pytest.approx(0.1426, abs=1e-4)
    # Qwen3-235B-A22B: experts 94 x 128 x 3 x 4096 x 1536 = 227.1e9 of 235e9 parameters; TP=2 (or TP=4), DP=1:
    # every Spark holds 1/2 (1/4) of the weights; budget 121.69 GiB x 0.85 = 111.06 GB
    budget = 121.69 * 2**30 * 0.85 / 1e9
    assert ns["plan_2"] == {"tp": 2, "pp": 1, "dp": 1, "enable_ep": True} and ns["ep_2"] == 2
    assert ns["weights_gb_2"] == pytest.approx(123.8 / 2) and ns["kv_room_gb_2"] == pytest.approx(budget - 61.9)
    assert ns["plan_4"] == {"tp": 4, "pp": 1, "dp": 1, "enable_ep": True} and ns["ep_4"] == 4
    assert ns["weights_gb_4"] == pytest.approx(236 / 4) and ns["kv_room_gb_4"] == pytest.approx(budget - 59)
    assert ns["fp8_fits_2"] is False  # 118 GB per Spark at best (TP=2 or PP=2) > 111 GB


def test_answer_tests_pass_with_the_solutions_and_fail_without():
    assert_answer_tests_pass_then_fail_released(NOTEBOOK, 7)


MOE_RIGHT = """
plan_2 = {"tp": 2, "pp": 1, "dp": 1, "enable_ep": True}
ep_2 = 2
weights_gb_2 = 61.9
kv_room_gb_2 = 49.16
plan_4 = {"tp": 4, "pp": 1, "dp": 1, "enable_ep": True}
ep_4 = 4
weights_gb_4 = 59.0
kv_room_gb_4 = 52.06
fp8_fits_2 = False
"""
MOE_MISTAKES = [  # (right, wrong) in MOE_RIGHT: each a plausible mistake its test must catch
    ('"tp": 2, "pp": 1, "dp": 1, "enable_ep": True', '"tp": 1, "pp": 1, "dp": 1, "enable_ep": True'),  # one Spark idle
    ('"tp": 4, "pp": 1, "dp": 1, "enable_ep": True', '"tp": 4, "pp": 1, "dp": 1, "enable_ep": False'),  # no EP
    ('"tp": 4, "pp": 1, "dp": 1, "enable_ep": True', '"tp": 3, "pp": 1, "dp": 1, "enable_ep": True'),  # 64 heads / 3
    ('"tp": 4, "pp": 1, "dp": 1, "enable_ep": True', '"tp": 1, "pp": 4, "dp": 1, "enable_ep": True'),  # EP = 1
    ("ep_4 = 4", "ep_4 = 16"),  # TP x PP x DP x ... instead of TP x DP
    ("weights_gb_2 = 61.9", "weights_gb_2 = 123.8"),  # the whole checkpoint on each Spark
    ("weights_gb_4 = 59.0", "weights_gb_4 = 236 * 0.966 / 4"),  # the experts only
    ("kv_room_gb_4 = 52.06", "kv_room_gb_4 = 128 - 59.0"),  # 128 GB, not vLLM's budget
    ("fp8_fits_2 = False", "fp8_fits_2 = True"),
]


@pytest.mark.parametrize("cell, wrong", [
    ("ibdev_answer", 'roce_for_enP2p1s0f0np0 = "rocep1s0f0"\nnccl_ib_hca = "rocep1s0f0,roceP2p1s0f0"'),
    ("ibdev_answer", 'roce_for_enP2p1s0f0np0 = "roceP2p1s0f0"\nnccl_ib_hca = "rocep1s0f1,roceP2p1s0f1"'),
    ("vars_answer", 'socket_var = "NCCL_IB_HCA"\npicked_by_enp1 = ["enp1s0f0np0", "enp1s0f1np1"]'),
    ("vars_answer", 'socket_var = "NCCL_SOCKET_IFNAME"\npicked_by_enp1 = ["enp1s0f0np0"]'),
    ("busbw_answer", "algbw_gbs = 45.88\nbusbw_gbs = 45.88\nmeets_nvidia_bar = True"),
    ("busbw_answer", "algbw_gbs = 45.88\nbusbw_gbs = 22.94\nmeets_nvidia_bar = False"),
    ("parallel_answer", 'tp_70b, pp_70b = 2, 1\nbackend_70b = "ray"\nfits_tp2_pp2 = False'),
    ("parallel_answer", 'tp_70b, pp_70b = 1, 2\nbackend_70b = "mp"\nfits_tp2_pp2 = False'),
    ("parallel_answer", 'tp_70b, pp_70b = 1, 2\nbackend_70b = "ray"\nfits_tp2_pp2 = True'),
    ("kv_answer", "kv_bytes_total = 327680\nkv_bytes_rank = 327680\nkv_tokens_fit = 98304\nconcurrency = 3.0"),
    ("kv_answer", "kv_bytes_total = 163840\nkv_bytes_rank = 81920\nkv_tokens_fit = 393216\nconcurrency = 12.0"),
    ("logs_answer", "v4_kv_tokens = 2493464\nv4_concurrency = 2.38\nv4_requests_128k = 2.38 * 8\n"
                    "gemma_tokens_per_len = 1.53"),
    *[("moe_answer", MOE_RIGHT.replace(right, wrong)) for right, wrong in MOE_MISTAKES],
])
def test_answer_tests_catch_plausible_mistakes(cell, wrong):
    """A typical wrong answer (one twin, the wrong variable, algbw for busbw, TP for PP, whole-model bytes
    per rank, gemma's printed concurrency) fails its test cell."""
    assert_mistake_caught(NOTEBOOK, cell, wrong)


def test_hidden_tests_hold_no_answers():
    """Feedback shows hidden tests in full: they compute, they do not spell out the lesson-2 answers."""
    cells = load(NOTEBOOK)
    hidden = "\n".join(m for c in cells.values()
                       for m in re.findall(r"### BEGIN HIDDEN TESTS(.*?)### END HIDDEN TESTS", c.source, flags=re.S))
    assert hidden.count("cl.expect_") >= 14
    for answer in ("roceP2p1s0f0", "NCCL_SOCKET_IFNAME", "enp1s0f0np0", "327680", "163840", "196608", "2493464",
                   "22.94", "0.1426", "61.9", "49.16", "52.06", '"tp": 2', '"tp": 4'):
        assert answer not in hidden, answer


# ------------------------------------------------------------------------------------------ recorded evidence

def test_recorded_evidence_is_the_sims_passing_but_a_replay_earns_nothing(tmp_path, monkeypatch):
    """recorded/lesson2.json: recorded on the serving sim (ray mode), untouched, every L2 check passing or
    n.a. for profile sim, marked as a replay: handed in, each grade cell earns 0 saying so. The golden
    recording of the same (not a replay) earns each grade cell's points."""
    from grader import notebook as cl
    from grader.checking import grade_file

    for path, replay in ((RECORDED, True), (HEALTHY, False)):
        result = grade_file(path)
        assert (result.lesson, result.profile) == ("lesson2", "sim")
        assert bool(result.unfit) is replay and result.notes == result.unfit
        status = {v.id: v.status for v in result.verdicts}
        assert status["L2.busbw"] == status["L2.ib_write_bw"] == "skip"   # spark-pair only
        assert all(status[c] == "pass" for c in L2_CHECKS if c not in ("L2.busbw", "L2.ib_write_bw"))
        (tmp_path / "evidence").mkdir(exist_ok=True)
        shutil.copy(path, tmp_path / "evidence" / "lesson2.json")
        monkeypatch.chdir(tmp_path)
        for gid, (ids, points) in grade_cells_checks(load(NOTEBOOK)).items():
            earned, out = cl.captured_stdout(cl.grade_checks, "lesson2", ids, points=points)
            na = all(status[i] == "skip" for i in ids)  # L2.busbw and L2.ib_write_bw: none applies to the sim
            assert earned == (0 if replay or na else points), (gid, out)
            assert ("replay" in out) if replay else True


def test_recorded_evidence_holds_no_secrets():
    """No private key, password or Hugging Face token reached the evidence."""
    text = RECORDED.read_text()
    assert json.loads(text)["lesson"] == "lesson2"
    assert "PRIVATE KEY" not in text
    assert not re.search(r"hf_[A-Za-z0-9]{20,}", text)
    assert not re.search(r"(?i)(HF_TOKEN|HUGGING_FACE_HUB_TOKEN|PASSWORD)=[^\s\"*<]", text)


# ------------------------------------------------------------------------------------------ headless

def test_headless_run_scores_full_points_on_the_sims_evidence(tmp_path):
    """The whole notebook in a kernel (tests/helpers_notebooks.py), with no inventory and evidence recorded
    on the serving sim handed in as evidence/lesson2.json: no errors, no stderr, every grade cell full
    except the bandwidth cell, whose checks do not apply to the sim (0, saying so)."""
    pytest.importorskip("nbclient")
    work = tmp_path / "lesson2"
    (work / "evidence").mkdir(parents=True)
    shutil.copy(HEALTHY, work / "evidence" / "lesson2.json")
    assert_headless_full_points(NOTEBOOK, work, 13)
