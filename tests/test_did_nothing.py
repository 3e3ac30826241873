"""Points mean work done: every machine grade cell of every notebook, on every profile the course may
accept, earns 0 for a learner who did nothing for that cell (issue 11).

Two tables, one row per case, so a new check, cell or notebook cannot slip past:

1. ``(notebook, grade cell, profile)`` for every ``cl.grade_checks`` call in ``solutions/`` and every
   profile: the evidence of a learner who did nothing. Its nodes answered and their platform probe
   proves the profile (so the 0 is not the provenance refusal), but every other probe of the lesson
   came back empty-handed: the lab's evidence holds no load test. Expected, worked out by hand: 0 —
   every counted check is not measured or fails, and a cell whose checks are all n.a. for the profile
   earns 0 naming where they apply.
2. The scenarios of ``shared/fixtures/adversarial/B2`` (real sim recordings and constructed files that
   scored points for nothing with the grader before this change): each named check earns 0 from its
   verdict alone, and each cell the scenario is about earns 0.

The platform outputs are the shapes a GB10 (``NVIDIA GB10``), a two-card desktop and a sim node print
(grader/probes/platform.py); no hardware here has them.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import re
from pathlib import Path

import nbformat
import pytest

from grader.checking import grade_file
from grader.evidence import Evidence, RawOutput, read_evidence
from grader.facts import derivers
from grader.grading import grade
from grader.scoring import score_checks
from grader.provenance import profile_problem

from tests.helpers_notebooks import as_released, cells_by_id, machine_calls, meta

pytestmark = pytest.mark.usefixtures("sim_own_work_off")  # the 0s must come from the verdicts, not the sim rule

ROOT = Path(__file__).resolve().parent.parent
B2 = ROOT / "tests" / "fixtures" / "adversarial" / "B2"
PROFILES = ("spark-pair", "single-spark", "dual-gpu-desktop", "sim")
NODES = {"spark-pair": ["spark-a", "spark-b"], "sim": ["spark-a", "spark-b"], "single-spark": ["spark"],
         "dual-gpu-desktop": ["desktop"]}
GPUS = {"spark-pair": ["NVIDIA GB10"], "single-spark": ["NVIDIA GB10"], "sim": [],
        "dual-gpu-desktop": ["NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4090"]}


def machine_cells() -> list[tuple[str, str, str, list[str], float]]:
    """(notebook, grade id, lesson, check ids, points) for every grade cell calling cl.grade_checks."""
    rows = []
    for path in sorted((ROOT / "solutions").glob("*/*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code" and meta(cell).get("grade"):
                rows += [(path.stem, meta(cell)["grade_id"], c["lesson"], c["ids"], float(c["points"]))
                         for c in machine_calls(cell.source)]
    return rows


CELLS = machine_cells()


def test_every_notebook_with_machine_checks_is_in_the_table():
    # lesson4 has no machine checks (neither TensorRT-LLM nor Dynamo runs on the sim); the other four do
    assert {nb for nb, *_ in CELLS} == {"lesson1", "lesson2", "lesson3", "lab"}
    assert len(CELLS) >= 14


def platform_text(profile: str, node: str) -> str:
    gpus = GPUS[profile]
    lines = [f"nvidia_smi_exit: {0 if gpus else 127}"] + [f"gpu: {g}" for g in gpus]
    lines += [f"product: {'NVIDIA_DGX_Spark' if 'GB10' in ''.join(gpus) else 'MS-7E25'}",
              f"sys_vendor: {'NVIDIA' if gpus == ['NVIDIA GB10'] else 'Micro-Star International Co., Ltd.'}",
              f"sim_node: {node if profile == 'sim' else ''}",
              f"machine_id_sha256: {hashlib.sha256(f'{profile}:{node}'.encode()).hexdigest()}"]
    return "\n".join(lines) + "\n"


def did_nothing(lesson: str, profile: str, folder: Path) -> Path:
    """The evidence file of a learner who did nothing for ``lesson`` on ``profile``: every node answered
    (hostname, platform) and nothing else was measured; the lab's holds no load test."""
    nodes = NODES[profile]
    inventory = {"profile": profile, "nodes": [{"name": n, "address": f"10.0.0.{i}", "port": 22, "user": "u"}
                                               for i, n in enumerate(nodes, 1)]}
    if lesson in ("lesson1", "lesson2"):
        inventory["qsfp_port"] = 1
    ev = Evidence(lesson=lesson, profile=profile, inventory=inventory)
    for n in nodes:
        ev.raw.append(RawOutput(node=n, probe="hostname", command="hostname", stdout=f"{n}\n", stderr="", exit_status=0))
        ev.raw.append(RawOutput(node=n, probe="platform", command="platform", stdout=platform_text(profile, n),
                                stderr="", exit_status=0))
    ev.stamp()
    return ev.save(folder)


def verdict_points(verdicts, ids: list[str], points: float) -> float:
    """The cell's points from its verdicts alone (the oracle: n.a. left out, a cell of only n.a. earns 0)."""
    counted = [v for v in verdicts if v.id in ids and v.status != "skip"]
    return points * sum(v.earned for v in counted) / sum(v.points for v in counted) if counted else 0.0


@pytest.mark.parametrize("notebook,cell,lesson,ids,points,profile",
                         [(*c, p) for c in CELLS for p in PROFILES],
                         ids=lambda x: x if isinstance(x, str) else None)
def test_a_learner_who_did_nothing_earns_nothing(notebook, cell, lesson, ids, points, profile, tmp_path):
    path = did_nothing(lesson, profile, tmp_path)
    result = grade_file(path)
    assert profile_problem(result.evidence) is None, "the platform probe should prove the profile here"
    assert not result.unfit
    earned, lines = score_checks(lesson, ids, points, tmp_path)
    assert earned == 0.0, "\n".join(lines)                     # by hand: nothing done, nothing earned
    assert verdict_points(result.verdicts, ids, points) == 0.0  # from the verdicts, not from a refusal
    mine = [v for v in result.verdicts if v.id in ids]
    assert all(v.status in ("unmeasured", "fail", "skip") for v in mine), [(v.id, v.status) for v in mine]
    if all(v.status == "skip" for v in mine):
        assert "none of these checks applies to profile" in lines[-1]


# --------------------------------------------------------------------------------------------------
# the B2 scenarios: (folder, lesson file, the checks the learner did not do, the cells it is about)

L2B = ["L2.ray_nodes", "L2.head_on_qsfp", "L2.vllm_host_ip", "L2.parallel_sizes", "L2.kv_capacity",
       "L2.model_same", "L2.versions_same", "L2.launch"]
L3 = ["L3.cards", "L3.pcie_link", "L3.p2p_path", "L3.power_budget", "L3.circuit"]
SCENARIOS = [
    ("constructed-L1_netplan_unreadable_no_cx7_netplan_file", "lesson1", ["L1.netplan"]),
    ("constructed-L1_netplan_unreadable_no_cx7_netplan_file_spark-pair", "lesson1", ["L1.netplan"]),
    ("constructed-L3_dual-gpu-desktop_nvidia-smi_lspci_not_found", "lesson3", L3),
    ("constructed-LAB_sim_no_load_test_at_all", "lab", ["LAB.recorded", "LAB.sane", "LAB.pair_vs_one"]),
    ("constructed-LAB_sim_pair_side_missing", "lab", ["LAB.recorded", "LAB.sane", "LAB.pair_vs_one"]),
    ("constructed-LAB_spark-pair_no_load_test_at_all", "lab",
     ["LAB.recorded", "LAB.sane", "LAB.decode_pair", "LAB.tpot_pair", "LAB.ttft_pair", "LAB.pair_vs_one"]),
    ("sim-recorded-l2-no-serve", "lesson2", L2B + ["L2.ifname_vars", "L2.ib_hca", "L2.env_same"]),
    ("sim-recorded-l2-serve-table-nothing-running", "lesson2", L2B),
    ("sim-recorded-one-node-dual-desktop", "lesson1", []),
    ("sim-recorded-one-node-dual-desktop", "lesson2", []),
    ("sim-recorded-one-node-dual-desktop", "lesson3", L3),
    ("sim-recorded-one-node-single-spark", "lesson1", []),
    ("sim-recorded-one-node-single-spark", "lesson2", []),
    ("sim-recorded-one-node-single-spark", "lesson3", []),
]


@pytest.mark.parametrize("folder,lesson,not_done", SCENARIOS, ids=lambda x: x if isinstance(x, str) else None)
def test_b2_scenarios_earn_nothing_for_what_was_not_done(folder, lesson, not_done, tmp_path):
    src = B2 / folder / f"{lesson}.json"
    # recorded by an older grader (no manifest, no platform probe): the grade cells refuse it outright, so
    # judge its raw outputs as they are, to see that the verdicts alone give nothing for what was not done
    ev, edited = read_evidence(src)
    assert not edited
    verdicts = grade(derivers()[lesson](ev), lesson, ev.profile)
    v = {x.id: x for x in verdicts}
    assert {i: v[i].earned for i in not_done} == {i: 0 for i in not_done}
    assert all(v[i].status in ("unmeasured", "fail") for i in not_done), [(i, v[i].status) for i in not_done]
    # every cell of this lesson whose checks are all among those not done (or all n.a.) earns 0, from its
    # verdicts alone and as the grade cell scores it
    (tmp_path / f"{lesson}.json").write_bytes(src.read_bytes())
    for _, cell, cell_lesson, ids, points in CELLS:
        if cell_lesson != lesson or not all(i in not_done or v[i].status == "skip" for i in ids):
            continue
        assert verdict_points(verdicts, ids, points) == 0.0, cell
        assert score_checks(lesson, ids, points, tmp_path)[0] == 0.0, cell


def test_b2_scenarios_cover_every_recorded_file():
    files = {(p.parent.name, p.stem) for p in B2.glob("*/*.json") if p.parent.name != "tamper"}
    assert files == {(f, lesson) for f, lesson, _ in SCENARIOS}
    assert json.loads((B2 / "scenarios.json").read_text())  # the scenario list the files come from


# --------------------------------------------------------------------------------------------------
# answer cells: a learner who did nothing (the notebook as released, each answer `raise NotImplementedError()`)
# earns 0 in every answer test cell. Lessons 1 and 2 here (the exercises of issue 18 among them); their
# modules test each exercise's right and wrong answers.

ANSWER_NOTEBOOKS = ("lesson1", "lesson2")


def answer_test_cells(notebook: str) -> list[str]:
    """grade_ids of the grade cells of ``notebook`` that test answers (every grade cell but the machine checks)."""
    cells = cells_by_id(ROOT / "solutions" / notebook / f"{notebook}.ipynb")
    return [g for g, c in cells.items() if meta(c).get("grade") and not machine_calls(c.source)
            and "check_my_cluster" not in c.source]


def test_the_answer_table_holds_the_multi_node_exercises():
    assert "l1_ex5_test" in answer_test_cells("lesson1")  # the switch's ethtool readings
    assert "moe_test" in answer_test_cells("lesson2")     # expert parallelism on 2 and 4 Sparks


@pytest.mark.parametrize("notebook", ANSWER_NOTEBOOKS)
def test_every_answer_cell_earns_nothing_unanswered(notebook):
    """Run the notebook's code cells in order, as released, without a kernel or a cluster (the machine cells
    left out): every answer test cell fails."""
    cells = cells_by_id(ROOT / "solutions" / notebook / f"{notebook}.ipynb")
    tests = answer_test_cells(notebook)
    ns: dict = {}
    failed = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec("from grader import notebook as cl", ns)
        for gid, c in cells.items():
            if c.cell_type != "code" or machine_calls(c.source) or "check_my_cluster" in c.source \
                    or re.search(r"cl\.(start|finish)_lesson", c.source):
                continue
            src = as_released(c.source) if meta(c).get("solution") else c.source
            try:
                exec(src, ns)
            except NotImplementedError:
                assert meta(c).get("solution"), gid
            except (AssertionError, NameError) as e:
                assert gid in tests, f"{gid}: {e!r}"
                failed[gid] = type(e).__name__
    assert sorted(failed) == sorted(tests), failed
