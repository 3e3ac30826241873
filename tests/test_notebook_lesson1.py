"""Lesson 1's notebook (solutions/lesson1/lesson1.ipynb): its answers, its answer tests, its grade cells.

No kernel and no cluster: the answer and test cells run in one namespace with the grader imported as
``cl``, the way the notebook runs them. Every expected value is worked out here from the lesson's facts
(header sizes, the fixture's text), not taken from the notebook. The headless run against the sim is
``tests/helpers_notebooks.py`` (see the module docstring there).
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
from tests.helpers_notebooks import as_released as unsolved
from tests.helpers_notebooks import cells_by_id as _cells_by_id
from tests.helpers_notebooks import meta

nbformat = pytest.importorskip("nbformat", reason="nbformat is in the notebook extra: pip install -e '.[notebook]'")

ROOT = Path(__file__).resolve().parents[1]
LESSON = ROOT / "solutions" / "lesson1"
NOTEBOOK = LESSON / "lesson1.ipynb"
RECORDED = LESSON / "recorded" / "lesson1.json"
HEALTHY = ROOT / "tests" / "fixtures" / "golden" / "lesson1-sim-healthy.json"
CHECK_IDS = ["L1.port", "L1.addressing", "L1.netplan", "L1.mtu", "L1.ssh", "L1.link_speed", "L1.route", "L1.tcp"]


def cells_by_id(path: Path = NOTEBOOK) -> dict:
    """{grade_id: cell} of a source notebook (lesson 1's by default)."""
    return _cells_by_id(path)


def run(sources: list[str], namespace: dict | None = None) -> tuple[dict, str]:
    """Exec the sources in order in one namespace (``cl`` imported); return (namespace, stdout)."""
    ns = namespace if namespace is not None else {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec("from grader import notebook as cl", ns)
        for src in sources:
            exec(src, ns)
    return ns, out.getvalue()


EXERCISES = {  # test cell: (data cell or None, answer cell)
    "l1_ex1_test": ("l1_ex1_data", "l1_ex1_answer"),
    "l1_ex2_test": ("l1_ex2_data", "l1_ex2_answer"),
    "l1_ex3_test": (None, "l1_ex3_answer"),
    "l1_ex4_test": (None, "l1_ex4_answer"),
    "l1_ex5_test": ("l1_ex5_data", "l1_ex5_answer"),
}


def test_notebook_shape():
    assert_notebook_shape(NOTEBOOK)


def assert_notebook_shape(path: Path) -> None:
    """nbgrader metadata on every cell, unique ids, outputs cleared, kernelspec python3, locked where due."""
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"] == {"name": "python3", "display_name": "Python 3", "language": "python"}
    ids = [meta(c).get("grade_id") for c in nb.cells]
    assert all(ids) and len(ids) == len(set(ids))
    for c in nb.cells:
        m = meta(c)
        assert m["schema_version"] == 3
        if c.cell_type == "code":
            assert c.outputs == [] and c.execution_count is None, m["grade_id"]
        if m["solution"]:
            assert not m["locked"] and not m["grade"] and "### BEGIN SOLUTION" in c.source
        else:
            assert m["locked"], m["grade_id"]
        if m["grade"]:
            assert m["points"] > 0
    first_code = next(c for c in nb.cells if c.cell_type == "code")
    assert "from grader import notebook as cl" in first_code.source


def test_machine_cells_cover_every_lesson1_check_once():
    """The grade_checks cells name each L1 check exactly once, with points= equal to the cell's points,
    and the check cell probes lesson1."""
    cells = cells_by_id()
    named = []
    for gid, c in cells.items():
        m = re.search(r"grade_checks\(\"lesson1\", \[(.*?)\], points=(\d+)\)", c.source)
        if m:
            named += re.findall(r'"(L1\.\w+)"', m.group(1))
            assert int(m.group(2)) == meta(c)["points"], gid
    assert sorted(named) == sorted(CHECK_IDS)
    assert cells["l1_check"].source.strip() == 'cl.check_my_cluster("lesson1")'


def test_solutions_are_right():
    """The solution values, against values worked out here."""
    cells = cells_by_id()
    ns, _ = run([cells[i].source for i in ("l1_ex1_data", "l1_ex1_answer", "l1_ex2_data", "l1_ex2_answer",
                                          "l1_ex3_answer", "l1_ex4_answer", "l1_ex5_data", "l1_ex5_answer")])
    # oshlabs' node 1: ibdev2netdev shows the two port-0 twins (Up), port 1's Down
    assert ns["cabled_port"] == 0
    assert ns["up_twins"] == {"enp1s0f0np0", "enP2p1s0f0np0"}
    # plans: A and C good; B link-local; D (two /16s that overlap) and E (one /24) share a subnet
    assert ns["plan_problems"] == {"A": "ok", "B": "link-local", "C": "ok", "D": "same-subnet", "E": "same-subnet"}
    assert ns["payload_bytes"] == 9000 - 20 - 8 == 8972  # IPv4 header 20 B (RFC 791), ICMP echo header 8 B (RFC 792)
    assert ns["line_rate_gbyte_s"] == pytest.approx(200 / 8)  # 200 Gbit/s over 8 bits per byte = 25 GB/s
    # NVIDIA's switch playbook: 100000Mb/s before (auto-negotiated by the switch), 200000Mb/s after forcing
    # 200G on the switch port; 4 nodes through a switch: 6 pairs; the ring of three: 3 cables x 2 twins
    assert (ns["before_ok"], ns["after_ok"], ns["fix_on"]) == (False, True, "switch")
    assert ns["pairs_to_ping_4"] == 6 and ns["subnets_ring"] == 6


def test_embedded_output_is_the_real_fixture():
    """The ibdev2netdev and ip -br addr text in the notebook is the fixture it names, line for line."""
    ns, _ = run([cells_by_id()["l1_ex1_data"].source])
    fixture = real_text("spark/11_ip_br_addr_ibdev2netdev_jumbo_ping_oshlabs.txt").splitlines()
    embedded = [ln for ln in (ns["IBDEV2NETDEV_OSHLABS"] + "\n" + ns["IP_BR_OSHLABS"]).splitlines() if ln.strip()]
    assert len(embedded) == 9
    for line in embedded:
        assert line in fixture, line
    assert "11_ip_br_addr_ibdev2netdev_jumbo_ping_oshlabs.txt" in cells_by_id()["l1_ex1_text"].source


def test_switch_readings_are_the_real_fixture():
    """The two ethtool readings of exercise 5 are NVIDIA's switch-playbook output, line for line, in order."""
    ns, _ = run([cells_by_id()["l1_ex5_data"].source])
    fixture = [ln for ln in real_text("spark/05_ethtool_speed_nvidia_multi_sparks_switch.txt").splitlines()
               if ln.strip() and not ln.startswith("# ")]
    embedded = [ln for ln in (ns["SWITCH_ETHTOOL_BEFORE"] + ns["SWITCH_ETHTOOL_AFTER"]).splitlines() if ln.strip()]
    assert embedded == fixture
    assert "100000Mb/s" in ns["SWITCH_ETHTOOL_BEFORE"] and "200000Mb/s" in ns["SWITCH_ETHTOOL_AFTER"]
    assert "05_ethtool_speed_nvidia_multi_sparks_switch.txt" in cells_by_id()["l1_ex5_text"].source


@pytest.mark.parametrize("test_id", sorted(EXERCISES))
def test_answer_tests_pass_with_the_solution(test_id):
    cells = cells_by_id()
    data, answer = EXERCISES[test_id]
    srcs = ([cells[data].source] if data else []) + [cells[answer].source, cells[test_id].source]
    _, out = run(srcs)
    assert "✓" in out


@pytest.mark.parametrize("test_id", sorted(EXERCISES))
def test_answer_tests_fail_unanswered(test_id):
    """As released (answer replaced by raise NotImplementedError()), the answer cell raises and its test fails."""
    cells = cells_by_id()
    data, answer = EXERCISES[test_id]
    ns = {}
    if data:
        run([cells[data].source], ns)
    with pytest.raises(NotImplementedError):
        run([unsolved(cells[answer].source)], ns)
    with pytest.raises(NameError):
        run([cells[test_id].source], ns)


WRONG = {  # plausible mistakes, each must fail its test
    "l1_ex1_test": ["cabled_port = 1\nup_twins = {'enp1s0f0np0', 'enP2p1s0f0np0'}",
                    "cabled_port = 0\nup_twins = {'enp1s0f0np0', 'enp1s0f1np1'}"],
    "l1_ex2_test": ["plan_problems = {'A': 'ok', 'B': 'link-local', 'C': 'ok', 'D': 'ok', 'E': 'same-subnet'}",
                    "plan_problems = {'A': 'ok', 'B': 'ok', 'C': 'ok', 'D': 'same-subnet', 'E': 'same-subnet'}"],
    "l1_ex3_test": ["payload_bytes = 9000", "payload_bytes = 8980", "payload_bytes = 8952"],
    "l1_ex4_test": ["line_rate_gbyte_s = 200", "line_rate_gbyte_s = 200 / 1024 * 1000 / 8 * 1.1"],
    "l1_ex5_test": [  # one twin at 100G read as fine; the fix on the Spark; 12 ordered pairs; a subnet per cable
        "before_ok, after_ok, fix_on, pairs_to_ping_4, subnets_ring = True, True, 'switch', 6, 6",
        "before_ok, after_ok, fix_on, pairs_to_ping_4, subnets_ring = False, True, 'spark', 6, 6",
        "before_ok, after_ok, fix_on, pairs_to_ping_4, subnets_ring = False, True, 'switch', 12, 6",
        "before_ok, after_ok, fix_on, pairs_to_ping_4, subnets_ring = False, True, 'switch', 6, 3",
    ],
}


@pytest.mark.parametrize("test_id,wrong", [(t, w) for t, ws in WRONG.items() for w in ws])
def test_answer_tests_fail_wrong_answers(test_id, wrong):
    cells = cells_by_id()
    data = EXERCISES[test_id][0]
    with pytest.raises(AssertionError):
        run(([cells[data].source] if data else []) + [wrong, cells[test_id].source])


def test_recorded_evidence_is_the_sim_passing_but_earns_nothing(tmp_path, monkeypatch):
    """recorded/lesson1.json: profile sim, every check passes, no secrets, marked as a replay: handed in as
    evidence/lesson1.json the grade cells score 0 saying so; the learner's own healthy evidence (the golden
    recording) scores full points; no evidence scores 0."""
    from grader.checking import grade_file

    data = json.loads(RECORDED.read_text())
    assert data["lesson"] == "lesson1" and data["profile"] == "sim" and data["provenance"]["replay"] is True
    assert {v.status for v in grade_file(RECORDED).verdicts} == {"pass"}
    text = RECORDED.read_text()
    for secret in ("PRIVATE KEY", "HF_TOKEN=", "password"):
        assert secret not in text
    cells = cells_by_id()
    grade_ids = ["l1_grade_cable", "l1_grade_mtu_ssh", "l1_grade_link"]
    monkeypatch.chdir(tmp_path)
    for gid in grade_ids:  # no evidence: 0 points, said on stdout
        ns, out = run([f"_score = {cells[gid].source.strip()}"])
        assert ns["_score"] == 0.0 and out.startswith("0/")
    (tmp_path / "evidence").mkdir()
    shutil.copy(RECORDED, tmp_path / "evidence" / "lesson1.json")
    for gid in grade_ids:
        ns, out = run([f"_score = {cells[gid].source.strip()}"])
        assert ns["_score"] == 0.0 and "replay" in out, out
    shutil.copy(HEALTHY, tmp_path / "evidence" / "lesson1.json")
    ns, out = run([f"_score = {cells[grade_ids[0]].source.strip()}"])  # shipped, from a sim built finished: 0
    assert ns["_score"] == 0.0 and "was built finished" in out, out
    monkeypatch.setenv("CLUSTERLAB_SIM_OWN_WORK", "off")  # as a learner's own: the instructor's switch
    for gid in grade_ids:
        ns, out = run([f"_score = {cells[gid].source.strip()}"])
        assert ns["_score"] == meta(cells[gid])["points"], out
