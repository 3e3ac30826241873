"""The registry of lessons (grader.lessons) is the one place that names them, and one pipeline
(grader.checking.run_lesson) runs every lesson: ``check``, ``loadtest`` and ``verify`` all call it.

No sim, no SSH: the pipelines run on fakes here; tests/test_lesson1_sim.py, test_lab_sim.py and
test_verify_sim.py run them on the sim.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from grader import checking, lessons
from grader.evidence import Evidence, RawOutput
from grader.facts import derivers
from grader.grading import load_catalogue
from tests.test_loadtest import FakeConn, inventory

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ the registry and the course's files


def catalogues() -> set[str]:
    """The lesson catalogues in checks/: the TOML files holding [[check]] tables."""
    import tomllib

    return {p.stem for p in (ROOT / "checks").glob("*.toml") if tomllib.loads(p.read_text()).get("check")}


def notebooks() -> set[str]:
    return {p.stem for p in (ROOT / "solutions").glob("*/*.ipynb") if p.stem == p.parent.name}


def test_the_registry_names_every_lesson_with_a_catalogue_and_a_notebook():
    assert catalogues() & notebooks() <= set(lessons.names())
    assert set(lessons.names()) == notebooks()  # every notebook of the course is a lesson, and no other
    assert set(lessons.checked()) == catalogues()  # every catalogue is a lesson's, and each lesson's exists
    assert lessons.names() == ("lesson1", "lesson2", "lesson3", "lesson4", "lab")  # course order


@pytest.mark.parametrize("name", lessons.names())
def test_each_entry_points_at_files_and_functions_that_exist(name):
    entry = lessons.get(name)
    assert (ROOT / entry.notebook).is_file()
    if entry.checked:
        assert (ROOT / "checks" / entry.catalogue).is_file() and load_catalogue(name)
    if entry.probed:
        assert callable(entry.collector()) and entry.recorded_by == lessons.PROBED_BY_CHECK
    if entry.records_evidence:
        assert callable(entry.deriver()) and derivers()[name] is entry.deriver()
        assert entry.checked  # what is recorded is graded
    else:
        assert name not in derivers()


def test_what_each_caller_reads_from_the_registry():
    from grader.cli import LESSONS, _parser
    from grader.evidence import _how_to_record

    assert checking.PROBED_LESSONS == LESSONS == lessons.probed() == ("lesson1", "lesson2", "lesson3")
    assert lessons.checked() == ("lesson1", "lesson2", "lesson3", "lab")
    assert set(derivers()) == set(lessons.recording()) == {"lesson1", "lesson2", "lesson3", "lab"}
    assert lessons.recorded_by(lessons.PROBED_BY_LOADTEST) == ("lab",)
    assert "loadtest" in _how_to_record("lab") and "clusterlab check lesson2" in _how_to_record("lesson2")
    with pytest.raises(SystemExit):
        _parser().parse_args(["check", "lab", "--inventory", "x"])  # the lab is not probed by check
    assert _parser().parse_args(["check", "lesson3", "--inventory", "x"]).lessons == ["lesson3"]


def test_an_unknown_lesson_names_the_known_ones():
    with pytest.raises(lessons.UnknownLesson, match="lesson1, lesson2, lesson3, lesson4, lab"):
        lessons.get("lesson9")
    with pytest.raises(lessons.UnknownLesson, match="not probed"):
        lessons.get("lab").collector()
    with pytest.raises(lessons.UnknownLesson, match="no evidence"):
        lessons.get("lesson4").deriver()
    from grader.ranges import CatalogueError

    with pytest.raises(CatalogueError, match="machine checks are lesson1, lesson2, lesson3, lab"):
        load_catalogue("lesson4")


def test_the_registry_imports_nothing_of_the_grader():
    tree = ast.parse((ROOT / "grader" / "lessons.py").read_text())
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not {m for m in imported if m.split(".")[0] in ("grader", "checks")}


def test_nbgrader_config_reads_its_assignments_from_the_registry():
    class Section(SimpleNamespace):
        pass

    class Config:
        def __getattr__(self, key):
            return self.__dict__.setdefault(key, Section())

    ns = {"get_config": Config, "__file__": str(ROOT / "nbgrader_config.py")}
    exec(compile((ROOT / "nbgrader_config.py").read_text(), "nbgrader_config.py", "exec"), ns)
    assert ns["ASSIGNMENTS"] == lessons.names()
    assert ns["c"].Autograde.exclude_overwriting == {n: [f"evidence/{n}.json"] for n in lessons.names()}


# ------------------------------------------------------------------ no second list of lessons


def lesson_lists(path: Path) -> list[str]:
    """Where ``path`` spells two or more lesson names as a literal tuple, list, set or dict's keys."""
    names = set(lessons.names())
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            elts = node.elts
        elif isinstance(node, ast.Dict):
            elts = [k for k in node.keys if k is not None]
        else:
            continue
        strings = {e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
        if len(strings & names) >= 2:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {sorted(strings & names)}")
    return found


def test_lesson_lists_are_caught():
    probe = ROOT / "tests" / "test_lessons.py"  # this file spells some, on purpose
    assert lesson_lists(probe)


def test_no_module_but_the_registry_spells_the_lesson_list():
    files = [p for p in sorted((ROOT / "grader").rglob("*.py")) if p != ROOT / "grader" / "lessons.py"]
    files.append(ROOT / "nbgrader_config.py")
    assert [hit for p in files for hit in lesson_lists(p)] == []


# ------------------------------------------------------------------ one pipeline: run_lesson


def calls_in(path: Path, function: str) -> set[str]:
    """The names called inside ``function`` of ``path`` (nested functions included)."""
    tree = ast.parse(path.read_text())
    fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function)
    return {c.func.id if isinstance(c.func, ast.Name) else c.func.attr for c in ast.walk(fn)
            if isinstance(c, ast.Call) and isinstance(c.func, (ast.Name, ast.Attribute))}


@pytest.mark.parametrize("module, function", [("checking", "check"), ("loadtest", "cli"), ("verify", "_run_lab")])
def test_the_three_pipelines_call_run_lesson_and_derive_nothing_themselves(module, function):
    called = calls_in(ROOT / "grader" / f"{module}.py", function)
    assert "run_lesson" in called
    assert not called & {"derivers", "derive", "deriver", "collector", "grade"}


def sim_inventory():
    inv = inventory("ray")
    inv.path, inv.command_timeout_s = None, 5.0
    return inv


class Closable(FakeConn):
    closed = False

    def connect(self, timeout_s=None):
        return self

    def close(self):
        self.closed = True


def spy(monkeypatch):
    """Record every run_lesson call (lesson, keyword names), running the real one."""
    seen, real = [], checking.run_lesson

    def run_lesson(lesson, *args, **kwargs):
        seen.append((lesson, sorted(kwargs)))
        return real(lesson, *args, **kwargs)

    monkeypatch.setattr(checking, "run_lesson", run_lesson)
    return seen


def test_check_runs_each_lesson_through_run_lesson(monkeypatch, tmp_path):
    import grader.inventory

    inv, conn = sim_inventory(), Closable(0.004, 0.05)
    monkeypatch.setattr(grader.inventory, "load_inventory", lambda path: inv)
    monkeypatch.setattr(checking, "connect_nodes", lambda i, lessons=(): ({"spark-a": conn}, {"spark-b": "refused"}))
    got = []

    def run_lesson(lesson, inv_, conns, errors, **kw):
        got.append((lesson, set(conns), errors, kw))
        return lesson

    monkeypatch.setattr(checking, "run_lesson", run_lesson)
    assert checking.check("inv.toml", ["lesson1", "lesson3"], tmp_path) == ["lesson1", "lesson3"]
    assert got == [(x, {"spark-a"}, {"spark-b": "refused"}, {"evidence_dir": tmp_path}) for x in ("lesson1", "lesson3")]
    assert conn.closed


def test_run_lesson_collects_derives_saves_and_grades(tmp_path):
    inv = sim_inventory()

    def collect(inv_, conns, errors):
        errors["spark-b"] = "changed by the collector"  # a copy: the caller's is untouched
        ev = Evidence("lesson3", inv_.profile, {"profile": inv_.profile, "nodes": [{"name": "spark-a"}]},
                      [RawOutput("spark-a", "hostname", "hostname", "spark-a\n", "", 0)], errors=dict(errors))
        ev.stamp()
        return ev

    errors = {"spark-b": "refused"}
    r = checking.run_lesson("lesson3", inv, {}, errors, collect=collect, evidence_dir=tmp_path)
    assert errors == {"spark-b": "refused"} and r.errors == {"spark-b": "changed by the collector"}
    assert r.lesson == "lesson3" and r.saved == tmp_path / "lesson3.json" and r.saved.is_file()
    assert r.evidence.facts == derivers()["lesson3"](r.evidence)
    assert [v.id for v in r.verdicts] == [c["id"] for c in load_catalogue("lesson3")]
    assert json.loads(r.saved.read_text())["facts"] == json.loads(json.dumps(r.evidence.facts))
    # a folder that cannot be written: graded, not saved, and said so; unless the caller must save
    blocked = tmp_path / "file"
    blocked.write_text("")
    r = checking.run_lesson("lesson3", inv, {}, {}, collect=collect, evidence_dir=blocked / "sub")
    assert r.saved is None and any("could not be written" in n for n in r.notes) and r.verdicts
    with pytest.raises(OSError):
        checking.run_lesson("lesson3", inv, {}, {}, collect=collect, evidence_dir=blocked / "sub", must_save=True)
    with pytest.raises(lessons.UnknownLesson):
        checking.run_lesson("lesson9", inv, {}, {}, collect=collect)
    with pytest.raises(lessons.UnknownLesson, match="not probed"):
        checking.run_lesson("lab", inv, {}, {})  # the lab needs its load test as the collector


def test_loadtest_runs_through_run_lesson(monkeypatch, tmp_path, capsys):
    import grader.inventory
    import grader.transport
    from grader import loadtest

    inv, conn = sim_inventory(), Closable(0.004, 0.05)
    monkeypatch.setattr(grader.inventory, "load_inventory", lambda path: inv)
    monkeypatch.setattr(grader.transport, "connect_all", lambda i: ({"spark-a": conn}, {"spark-b": "refused"}))
    monkeypatch.setattr(loadtest, "probe_platform", lambda ev, conns, errors: setattr(ev, "errors", dict(errors)))
    seen = spy(monkeypatch)
    args = SimpleNamespace(inventory="inv.toml", concurrency="1", input_len=64, output_len=16, num_prompts=8,
                           label=None, bytes_per_token=1.0, timeout=10.0, evidence=str(tmp_path), format="json")
    loadtest.cli(args)
    assert seen == [("lab", ["collect", "evidence_dir", "must_save"])] and conn.closed
    out = json.loads(capsys.readouterr().out)
    assert out["lesson"] == "lab" and (tmp_path / "lab.json").is_file()


def test_verify_runs_the_lab_level_through_run_lesson(monkeypatch, tmp_path):
    import grader.transport
    from grader import loadtest, verify

    inv = sim_inventory()
    recorded = loadtest.run(inv, FakeConn(0.004, 0.05), label="pair", levels=(1, 4), input_len=64, output_len=16,
                            prompts=8, evidence_dir=str(tmp_path), bytes_per_token=1.0, progress=lambda m: None)
    recorded.facts = derivers()["lab"](recorded)
    monkeypatch.setattr(grader.transport, "Connection", lambda node, inv_: Closable(0.004, 0.05))
    seen = spy(monkeypatch)
    rows, measured = verify._run_lab(inv, recorded, lambda m: None)
    assert seen == [("lab", ["collect"])]
    assert measured.facts["pair"]["c1"] and {r.status for r in rows if "c1" in r.item} == {verify.AGREE}
