"""grader.notebook: grade cells, the evidence contract and the check panel's modes, on evidence
recorded by `clusterlab check lesson1` on the simulated cluster (tests/fixtures/golden/lesson1-sim-healthy.json)."""

from __future__ import annotations

import json
import logging
import shutil
import warnings
from pathlib import Path

import pytest

from grader import notebook as cl
from grader.evidence import digest, seal

pytestmark = pytest.mark.usefixtures("sim_own_work_off")  # grades the shipped sim evidence (conftest)

RECORDED = Path(__file__).parent / "fixtures" / "golden" / "lesson1-sim-healthy.json"


@pytest.fixture
def here(tmp_path, monkeypatch):
    """A notebook folder with no inventory anywhere: not in the env, cwd, ~/.config, nor a running sim."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CLUSTERLAB_INVENTORY", raising=False)
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.delenv("CLUSTERLAB_RECORD", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(cl, "SIM_INVENTORY", tmp_path / "no-sim" / "inventory.toml")
    return tmp_path


def _evidence(folder: Path, edit=None) -> Path:
    """The golden recording in ``folder``/evidence; ``edit(data)`` applied and the manifest computed again,
    as a learner who re-hashes what they edit would (what is tested is not the manifest: tests/test_robust.py)."""
    data = json.loads(RECORDED.read_text())
    if edit:
        edit(data)
        seal(data)
    (folder / "evidence").mkdir(exist_ok=True)
    path = folder / "evidence" / "lesson1.json"
    path.write_text(json.dumps(data))
    return path


def _mtu_1500_on_spark_b(data: dict) -> None:
    """A genuine-looking failure: spark-b's twins at MTU 1500, the output re-hashed as the grader would."""
    raw = next(r for r in data["raw"] if r["node"] == "spark-b" and r["probe"] == "ip_addr")
    assert raw["stdout"].count('"mtu":9000') >= 2
    raw["stdout"] = raw["stdout"].replace('"mtu":9000', '"mtu":1500')
    raw["sha256"] = digest(raw["stdout"], raw["stderr"])
    data["facts"] = {}


def test_grade_checks_full_points_on_honest_evidence(here, capsys):
    _evidence(here)
    assert cl.grade_checks("lesson1", ["L1.addressing", "L1.mtu"], points=2) == 2.0
    out, err = capsys.readouterr()
    assert err == "" and "PASS L1.mtu" in out and "2/2 on profile sim" in out


def test_grade_checks_partial_credit_is_the_share_of_check_points(here, capsys):
    _evidence(here, _mtu_1500_on_spark_b)
    # L1.addressing (2 points) passes, L1.mtu (2 points) fails: half of the cell's 3 points
    assert cl.grade_checks("lesson1", ["L1.addressing", "L1.mtu"], points=3) == 1.5
    out, err = capsys.readouterr()
    assert err == "" and "FAIL L1.mtu" in out and "hint:" in out


@pytest.mark.parametrize("edit, needle", [
    (None, "no such evidence file"),
    (lambda d: d["raw"][2].update(stdout=d["raw"][2]["stdout"].replace("9000", "9001")), "does not match its sha256"),
    # raw outputs say spark-b runs MTU 1500 (re-hashed); the summary kept the 9000 of the honest run
    (lambda d: (_mtu_1500_on_spark_b(d), d.update(facts=json.loads(RECORDED.read_text())["facts"])),
     "claims L1.mtu, which its raw outputs do not show"),
])
def test_grade_checks_zero_for_missing_edited_or_doctored_evidence(here, capsys, edit, needle):
    if edit is not None:
        _evidence(here, edit)
    assert cl.grade_checks("lesson1", ["L1.addressing", "L1.mtu"], points=2) == 0.0
    out, err = capsys.readouterr()
    assert err == "" and needle in out and "0/2:" in out


def test_an_edited_summary_that_claims_nothing_more_is_graded_from_the_raw_outputs(here, capsys):
    _evidence(here, lambda d: d["facts"]["nodes"]["spark-b"].update(hostname="spark-z"))
    assert cl.grade_checks("lesson1", ["L1.addressing"], points=2) == 2.0
    out = capsys.readouterr().out
    assert "disagree with its raw outputs (nodes)" in out and "graded from the raw outputs" in out


@pytest.mark.parametrize("edit, needle", [
    (lambda d: d.update(profile="single-spark"), "differs from the inventory's 'sim'"),
    (lambda d: (d.update(profile="single-spark"), d["inventory"].update(profile="single-spark")),
     "needs 1 distinct node(s)"),
    (lambda d: d.update(profile="nonsense"), "not one of"),
    (lambda d: d.update(raw=[]), "no raw outputs"),
    (lambda d: d["raw"].append(dict(d["raw"][0])), "appears twice"),
    (lambda d: d["raw"][0].update(node="spark-z"), "not a node of the evidence's inventory"),
    (lambda d: d.update(provenance=[]), "`provenance` must be an object"),
    (lambda d: d["inventory"].update(nodes="spark-a"), "`inventory.nodes` must be a list"),
])
def test_malformed_or_reshaped_evidence_earns_nothing(here, capsys, edit, needle):
    _evidence(here, edit)
    assert cl.grade_checks("lesson1", ["L1.addressing"], points=2) == 0.0
    out, err = capsys.readouterr()
    assert err == "" and needle in out


def test_a_node_that_answered_nothing_earns_nothing(here, capsys):
    def drop_spark_b(d):
        d["raw"] = [r for r in d["raw"] if r["node"] != "spark-b"]
        d["errors"] = {"spark-b": "connection refused"}
        d["facts"] = {}
    _evidence(here, drop_spark_b)
    assert cl.grade_checks("lesson1", ["L1.ssh"], points=2) == 0.0
    assert "spark-b answered no probe" in capsys.readouterr().out


def test_profiles_pinned_by_the_instructor(here, capsys, monkeypatch):
    _evidence(here)
    monkeypatch.setenv("CLUSTERLAB_PROFILES", "spark-pair, single-spark")
    assert cl.grade_checks("lesson1", ["L1.addressing"], points=2) == 0.0
    assert "this course grades lesson1 on profile spark-pair, single-spark" in capsys.readouterr().out
    monkeypatch.setenv("CLUSTERLAB_PROFILES", "sim,spark-pair")
    assert cl.grade_checks("lesson1", ["L1.addressing"], points=2) == 2.0
    assert "(this course grades lesson1 on profile sim, spark-pair)" in capsys.readouterr().out  # always shown
    monkeypatch.setenv("CLUSTERLAB_PROFILES_LESSON1", "spark-pair")  # per lesson, over the course-wide list
    assert cl.grade_checks("lesson1", ["L1.addressing"], points=2) == 0.0
    assert "CLUSTERLAB_PROFILES_LESSON1" in capsys.readouterr().out


@pytest.mark.parametrize("kind", ["fifo", "dir", "huge"])
def test_evidence_that_is_not_a_plain_small_file(here, capsys, kind, monkeypatch):
    import os

    (here / "evidence").mkdir()
    p = here / "evidence" / "lesson1.json"
    if kind == "fifo":
        os.mkfifo(p)
    elif kind == "dir":
        p.mkdir()
    else:
        import grader.evidence as E
        monkeypatch.setattr(E, "MAX_BYTES", 1000)
        shutil.copy(RECORDED, p)
    assert cl.grade_checks("lesson1", ["L1.addressing"], points=2) == 0.0
    out = capsys.readouterr().out
    assert ("not a regular file" in out) if kind != "huge" else ("MiB" in out)


def test_grade_checks_names_unknown_check_ids(here, capsys):
    _evidence(here)
    assert cl.grade_checks("lesson1", ["L1.addressing", "L1.nope"], points=1) == 0.0
    assert "no checks L1.nope" in capsys.readouterr().out


def test_may_record_refuses_nbgrader_and_solutions(here, monkeypatch):
    assert cl.may_record(here) == (True, "")
    src = here / "course" / "solutions" / "lesson1"
    src.mkdir(parents=True)
    assert cl.may_record(src)[0]  # a folder named solutions is not a course's source folder by itself
    (here / "course" / "nbgrader_config.py").write_text("c = get_config()\n")
    allowed, why = cl.may_record(src)
    assert not allowed and "solutions/" in why and "CLUSTERLAB_RECORD=1" in why
    monkeypatch.setenv("CLUSTERLAB_RECORD", "1")
    assert cl.may_record(src)[0]
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    allowed, why = cl.may_record(here)
    assert not allowed and "autograde" in why


def test_find_inventory_order(here, monkeypatch):
    assert cl.find_inventory() is None and cl.mode() == "replay"
    cfg = here / "home" / ".config" / "clusterlab"
    cfg.mkdir(parents=True)
    (cfg / "inventory.toml").write_text("")
    assert cl.find_inventory() == cfg / "inventory.toml"
    (here / "inventory.toml").write_text("")
    assert cl.find_inventory() == Path("inventory.toml")
    monkeypatch.setenv("CLUSTERLAB_INVENTORY", "/elsewhere/inv.toml")
    assert cl.find_inventory() == Path("/elsewhere/inv.toml") and cl.mode() == "live"
    monkeypatch.setenv("CLUSTERLAB_REPLAY", "1")
    assert cl.mode() == "replay"  # never probe, whatever inventory is around
    monkeypatch.setenv("NBGRADER_EXECUTION", "validate")
    assert cl.mode() == "grading"


def test_panel_replays_recorded_evidence_and_says_so(here):
    (here / "recorded").mkdir()
    shutil.copy(RECORDED, here / "recorded" / "lesson1.json")
    panel = cl.check_my_cluster("lesson1")
    assert panel.mode == "replay" and panel.result is not None and panel.result.exit_code == 0
    assert "replay" in panel.banner and "not of your machines" in panel.banner
    text = panel._repr_mimebundle_()["text/plain"].splitlines()
    assert text[0].startswith("Check my cluster: lesson1 (replay). replay: no cluster inventory")
    assert text[1] == "lesson1 on sim" and text[3].startswith("PASS  L1.port")
    assert "id='clusterlab-verdicts-lesson1'" in panel._table.value
    assert not (here / "evidence").exists()  # replay records nothing


def test_panel_without_inventory_or_recording_names_the_fix(here):
    panel = cl.check_my_cluster("lesson1")
    assert panel.result is None and "inventory.toml" in panel.message
    assert "CLUSTERLAB_INVENTORY" in panel._repr_mimebundle_()["text/plain"]


def test_panel_under_nbgrader_grades_the_submitted_evidence_as_text(here, monkeypatch):
    _evidence(here, _mtu_1500_on_spark_b)
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    panel = cl.check_my_cluster("lesson1")
    bundle = panel._repr_mimebundle_()
    assert panel.mode == "grading" and list(bundle) == ["text/plain"]
    # spark-b's twins run at 1500 while its netplan file says 9000: L1.mtu fails, and L1.netplan too (the MTU
    # is not what the file persists); 11 (L1.port and L1.link_speed are the sim's, 0 points) less their 2 + 2
    assert "FAIL  L1.mtu" in bundle["text/plain"] and "FAIL  L1.netplan" in bundle["text/plain"]
    assert "score 7/11" in bundle["text/plain"]


def test_panel_live_with_an_unreachable_inventory_says_why(here):
    inv = here / "inventory.toml"
    inv.write_text('profile = "spark-pair"\n[[nodes]]\nname = "a"\naddress = "127.0.0.1"\nport = 1\nuser = "x"\n')
    panel = cl.check_my_cluster("lesson1")
    assert panel.mode == "live" and panel.result is None and panel.message


def test_quiet_sends_warnings_logs_and_stderr_to_stdout(capsys):
    import sys

    with cl.quiet():
        warnings.warn("a library warning")
        logging.getLogger("paramiko.transport").warning("paramiko says hi")
        print("to stderr", file=sys.stderr)
    out, err = capsys.readouterr()
    assert err == "" and "paramiko says hi" in out and "to stderr" in out


def test_lab_panel_grades_the_load_tests_evidence_without_probing(here, monkeypatch):
    lab = Path(__file__).resolve().parent.parent / "solutions" / "lab" / "recorded" / "lab.json"
    (here / "evidence").mkdir()
    shutil.copy(lab, here / "evidence" / "lab.json")
    monkeypatch.setenv("CLUSTERLAB_INVENTORY", str(here / "no-such-inventory.toml"))  # live, but nothing probed
    panel = cl.check_my_cluster("lab")
    assert panel.mode == "live" and panel.result is not None and panel.result.lesson == "lab"
    assert "written by the measuring cells" in panel.banner and panel._step.value == "done"
    assert "id='clusterlab-verdicts-lab'" in panel._table.value
