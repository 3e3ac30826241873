"""The course as nbgrader sees it: labs/ in sync with solutions/, nothing secret released, and the
golden pipeline (generate_assignment -> submissions -> autograde -> export) with exact grades.

Built over whatever notebooks exist in ``solutions/*/`` (each ``solutions/<name>/<name>.ipynb``).
The golden pipeline follows nbgrader's own test suite (shared/research/grading.md §2.10, §7.3):
a temporary course folder (``$CLUSTERLAB_COURSE_DIR``), the real ``nbgrader`` command line from
the virtual environment, hand-made submissions under ``submitted/<student>/<lab>/`` with a
``timestamp.txt``, then ``grades.csv`` read back per student. Every expected grade is worked out
here from the points written in the notebook's cell metadata, not from the grader's output.
"""

from __future__ import annotations

import ast
import copy
import csv
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers_notebooks import machine_calls, meta

# the golden nbgrader pipeline grades the sim evidence the project ships, as an instructor who lifted the rule
# that lesson 1's sim points come from the learner's own work (tests/test_hands_on_sim.py holds the rule)
pytestmark = pytest.mark.usefixtures("sim_own_work_off")

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions"
LABS = ROOT / "labs"
GOLDEN = Path(__file__).resolve().parent / "fixtures" / "golden"
BIN = Path(sys.executable).parent
NBGRADER = BIN / "nbgrader"

nbformat = pytest.importorskip("nbformat", reason="nbformat is in the notebook extra: pip install -e '.[notebook]'")

MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION", "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS",
           "### BEGIN MARK SCHEME", "### END MARK SCHEME")
SAFE_BUILTINS = {"abs", "all", "any", "bool", "float", "int", "isinstance", "len", "max", "min", "print", "range",
                 "round", "set", "sorted", "str", "sum", "tuple", "list", "dict", "type"}
"""Builtins a grade cell may call besides the grader (pure, no side effects)."""


def assignments() -> list[str]:
    """The assignment names: every ``solutions/<name>/`` holding ``<name>.ipynb``, sorted."""
    return sorted(p.parent.name for p in SOLUTIONS.glob("*/*.ipynb") if p.stem == p.parent.name)


def is_machine_cell(cell) -> bool:
    """A grade cell that grades the evidence file (it calls ``cl.grade_checks``)."""
    return meta(cell).get("grade") and "grade_checks(" in cell.source


def course_env(tmp: Path) -> dict[str, str]:
    """The environment of every nbgrader call: course, Jupyter and IPython folders under ``tmp``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLUSTERLAB_", "NBGRADER_"))}
    env.update(CLUSTERLAB_COURSE_DIR=str(tmp / "course"), JUPYTER_RUNTIME_DIR=str(tmp / "jruntime"),
               JUPYTER_DATA_DIR=str(tmp / "jdata"), IPYTHONDIR=str(tmp / "ipython"),
               PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}")
    (tmp / "course").mkdir(parents=True, exist_ok=True)
    return env


def run_nbgrader(args: list[str], env: dict[str, str], timeout: int = 600) -> str:
    """Run ``nbgrader ARGS`` in the repository (nbgrader_config.py there); return its log; fail on exit != 0."""
    if not NBGRADER.exists():
        pytest.skip(f"{NBGRADER} not found: install the notebook extra (`bash scripts/install.sh`)")
    proc = subprocess.run([str(NBGRADER), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    log = proc.stdout + proc.stderr
    first_error = log.find("Traceback")  # the cause, which a long log's tail leaves out
    cause = log[first_error:first_error + 3000] + "\n...\n" if first_error >= 0 else ""
    assert proc.returncode == 0, f"nbgrader {' '.join(args)} exited {proc.returncode}:\n{cause}{log[-3000:]}"
    return log


# ---------------------------------------------------------------------------------------------
# labs/ in sync


def tree(d: Path) -> dict[str, Path]:
    """Every file under ``d`` by its relative path (checkpoints and caches left out)."""
    skip = {".ipynb_checkpoints", "__pycache__", "evidence"}
    return {str(p.relative_to(d)): p for p in sorted(d.rglob("*"))
            if p.is_file() and not skip & set(p.relative_to(d).parts)}


def generate_labs(out: Path) -> subprocess.CompletedProcess:
    """``bash scripts/generate_labs.sh OUT`` as an instructor runs it (.venv/bin on PATH); never raises."""
    return subprocess.run(["bash", str(ROOT / "scripts/generate_labs.sh"), str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"})


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """One run of the script into a new folder (each run is ~25 s of nbgrader on 2 cores: shared)."""
    out = tmp_path_factory.mktemp("generated") / "labs"
    proc = generate_labs(out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


@pytest.fixture(scope="module")
def generated_again(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """A second run, into a folder holding a release with no source notebook (``lesson99``): (folder, the run)."""
    out = tmp_path_factory.mktemp("generated-again") / "labs"
    (out / "lesson99").mkdir(parents=True)
    (out / "lesson99" / "lesson99.ipynb").write_text("{}")
    return out, generate_labs(out)


@pytest.mark.slow
def test_labs_in_sync_with_solutions(generated):
    """labs/ is exactly what scripts/generate_labs.sh makes from solutions/ now."""
    fix = "run `bash scripts/generate_labs.sh` and commit labs/"
    want, have = tree(generated), tree(LABS) if LABS.is_dir() else {}
    missing, extra = sorted(set(want) - set(have)), sorted(set(have) - set(want))
    assert missing == [], f"labs/ lacks {missing}: {fix}"
    assert extra == [], f"labs/ has files solutions/ no longer makes: {extra}: {fix}"
    stale = [rel for rel in want if not filecmp.cmp(want[rel], have[rel], shallow=False)]
    assert not stale, f"labs/{stale[0]} differs from what solutions/ generates now ({len(stale)} file(s)): {fix}"
    assert sorted({r.split("/")[0] for r in want}) == assignments()


@pytest.mark.slow
def test_generate_labs_is_deterministic(generated, generated_again):
    """Two runs of the script give byte-identical releases (nbgrader's checksums are content hashes)."""
    if not assignments():
        pytest.skip("no notebooks in solutions/ yet")
    again, proc = generated_again
    assert proc.returncode == 0, proc.stdout + proc.stderr
    first, second = tree(generated), tree(again)
    assert first.keys() == second.keys()
    assert [r for r in first if first[r].read_bytes() != second[r].read_bytes()] == []


@pytest.mark.slow
def test_generate_labs_removes_stale_release(generated_again):
    """A release folder with no source notebook is removed; a bad argument count is a usage error."""
    out, proc = generated_again
    assert proc.returncode == 0, proc.stderr
    assert not (out / "lesson99").exists()
    assert "removing stale" in proc.stdout
    bad = subprocess.run(["bash", str(ROOT / "scripts/generate_labs.sh"), "a", "b"], capture_output=True, text=True)
    assert bad.returncode == 2 and "usage" in bad.stderr


# ---------------------------------------------------------------------------------------------
# what is released


def released() -> list[Path]:
    return sorted(LABS.glob("*/*.ipynb"))


def solution_lines(nb) -> set[str]:
    """The distinctive lines of every solution region and hidden-test region of a source notebook."""
    lines = set()
    for cell in nb.cells:
        inside = False
        for line in cell.source.splitlines():
            s = line.strip()
            if s.startswith(("### BEGIN SOLUTION", "### BEGIN HIDDEN TESTS")):
                inside = True
            elif s.startswith(("### END SOLUTION", "### END HIDDEN TESTS")):
                inside = False
            elif inside and len(s) > 12 and not s.startswith("#"):
                lines.add(s)
    return lines


ALLOWED_MODULES = {"grader", "math", "json", "pathlib", "numpy"}
"""What a grade cell may import or call into: the grader, and pure standard or numeric helpers."""


def bound_names(tree_: ast.AST) -> set[str]:
    """Names a piece of code binds: assignment, for, with and comprehension targets, function names."""
    out = set()
    for node in ast.walk(tree_):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
    return out


def imported(tree_: ast.AST, allowed_only: bool = True) -> dict[str, str]:
    """``{bound name: module}`` for every import in ``tree_`` (only allowed modules unless told)."""
    out = {}
    for node in ast.walk(tree_):
        if isinstance(node, ast.Import):
            for a in node.names:
                out[a.asname or a.name.split(".")[0]] = a.name
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                out[a.asname or a.name] = node.module or ""
    return {k: m for k, m in out.items() if not allowed_only or m.split(".")[0] in ALLOWED_MODULES}


def notebook_context(source_nb) -> set[str]:
    """Names a grade cell may call: grader (and pure helper) imports of the locked cells, and the
    learner's answer variables (bound in solution cells of the source notebook)."""
    names = set()
    for cell in source_nb.cells:
        if cell.cell_type != "code" or meta(cell).get("grade"):
            continue
        try:
            t = ast.parse(cell.source)
        except SyntaxError:
            continue
        names |= set(imported(t))
        if meta(cell).get("solution"):
            names |= bound_names(t)
    return names


def grade_cell_problems(source: str, context: set[str]) -> list[str]:
    """What a grade cell does besides calling the grader, pure helpers and asserting: [] when clean.

    Flags imports outside ALLOWED_MODULES, calls rooted at any other name (``open``, ``subprocess``,
    ``os.system``, ``eval``...), ``print(file=...)`` (stderr zeroes the cell) and definitions."""
    t = ast.parse(source)
    ok = context | SAFE_BUILTINS | {"cl"} | bound_names(t) | set(imported(t))
    bad = [f"import {m}" for m in imported(t, allowed_only=False).values() if m.split(".")[0] not in ALLOWED_MODULES]
    for node in ast.walk(t):
        if isinstance(node, ast.Call):
            f = node.func
            while isinstance(f, (ast.Attribute, ast.Subscript, ast.Call)):
                f = f.func if isinstance(f, ast.Call) else f.value
            if isinstance(f, ast.Name) and f.id not in ok:
                bad.append(ast.unparse(node.func))
            if isinstance(node.func, ast.Name) and node.func.id == "print" and any(k.arg == "file" for k in node.keywords):
                bad.append("print(file=...)")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Global, ast.Delete)):
            bad.append(type(node).__name__)
    return bad


@pytest.mark.parametrize("path", released(), ids=lambda p: p.parent.name)
def test_released_notebook_has_no_solutions(path):
    """The learner's notebook: no solution or hidden-test text, no outputs, grade cells locked and clean."""
    nb = nbformat.read(path, as_version=4)
    src = nbformat.read(SOLUTIONS / path.parent.name / path.name, as_version=4)
    secret, context = solution_lines(src), notebook_context(src)
    for cell in nb.cells:
        m, where = meta(cell), f"{path.relative_to(ROOT)} cell {meta(cell).get('grade_id', '?')}"
        for marker in MARKERS:
            assert marker not in cell.source, f"{where} still has {marker!r}: regenerate with scripts/generate_labs.sh"
        leaked = [line for line in cell.source.splitlines() if line.strip() in secret]
        assert not leaked, f"{where} shows solution or hidden-test text: {leaked[:2]}"
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{where} carries outputs"
        if m.get("grade"):
            assert m.get("locked"), f"{where}: a grade cell must be locked"
            bad = grade_cell_problems(cell.source, context)
            assert not bad, f"{where}: a grade cell may call only the grader (cl.*) and plain asserts, not {bad}"
    assert not (path.parent / "evidence").exists(), f"{path.parent}/evidence/ must never be released"
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3"


@pytest.mark.parametrize("name", assignments())
def test_source_grade_cells_call_only_the_grader(name):
    """Grade cells of the source (hidden tests included, which feedback shows in full) call only the grader,
    and every machine-check cell's ``points=`` equals the points in its metadata."""
    nb = nbformat.read(SOLUTIONS / name / f"{name}.ipynb", as_version=4)
    ids = [meta(c).get("grade_id") for c in nb.cells if meta(c)]
    assert len(ids) == len(set(ids)), f"duplicate grade_id in solutions/{name}"
    graded = [c for c in nb.cells if meta(c).get("grade")]
    assert graded, f"solutions/{name}/{name}.ipynb has no grade cell"
    context = notebook_context(nb)
    for cell in graded:
        where = f"solutions/{name} cell {meta(cell)['grade_id']}"
        bad = grade_cell_problems(cell.source, context)
        assert not bad, f"{where}: a grade cell may call only the grader (cl.*) and plain asserts, not {bad}"
        for call in machine_calls(cell.source):
            assert call["points"] == meta(cell)["points"], \
                f"{where}: grade_checks(points={call['points']}) but the cell is worth {meta(cell)['points']}"


# ---------------------------------------------------------------------------------------------
# the golden pipeline: submissions


def fill_answers(released_nb, source_nb, answer) -> object:
    """The learner's notebook: the released one with each solution cell's source taken from the source
    notebook, every region between the solution markers replaced by ``answer(region)`` (markers removed)."""
    nb = copy.deepcopy(released_nb)
    src = {meta(c).get("grade_id"): c for c in source_nb.cells}
    for cell in nb.cells:
        if not meta(cell).get("solution"):
            continue
        out, region, inside = [], [], False
        for line in src[meta(cell)["grade_id"]].source.splitlines():
            if line.strip().startswith("### BEGIN SOLUTION"):
                inside, region = True, []
            elif line.strip().startswith("### END SOLUTION"):
                inside = False
                out.append(answer("\n".join(region)) if cell.cell_type == "code" else "\n".join(region))
            elif inside:
                region.append(line)
            else:
                out.append(line)
        cell.source = "\n".join(out)
    return nb


def wrong_answer(code: str) -> str:
    """The same names bound to wrong values: every assigned variable -12345.5, every function returns it."""
    try:
        tree_ = ast.parse(code)
    except SyntaxError:
        return "pass"
    out = []
    for node in tree_.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(ast.unparse(node))
        elif isinstance(node, ast.FunctionDef):
            out.append(f"def {node.name}(*args, **kwargs):\n    return -12345.5")
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        out.append(f"{n.id} = -12345.5")
    return "\n".join(dict.fromkeys(out)) or "pass"


NOISE = ("import sys, warnings, logging\nprint('learner noise on stderr', file=sys.stderr)\n"
         "warnings.warn('learner warning')\nlogging.warning('learner log record')\n")


def noisy_answer(code: str) -> str:
    """The right answer, with stderr output, a warning and a root-logger record (which installs a stderr handler)."""
    return NOISE + code + "\n" + NOISE


def tamper_fact(ev: dict) -> dict:
    """The evidence with one stored fact changed and every raw output kept (the summary disagrees with the data)."""
    ev = copy.deepcopy(ev)

    def change(x):
        if isinstance(x, dict):
            for k in sorted(x):
                if change_inplace(x, k):
                    return True
        elif isinstance(x, list):
            for i in range(len(x)):
                if change_inplace(x, i):
                    return True
        return False

    def change_inplace(box, key):
        v = box[key]
        if isinstance(v, bool):
            box[key] = not v
        elif isinstance(v, (int, float)):
            box[key] = v + 1
        elif isinstance(v, str):
            box[key] = v + "-edited"
        else:
            return change(v)
        return True

    assert change(ev["facts"]), "the golden evidence has no fact to edit"
    return ev


def patched_answer(code: str) -> str:
    """The right answer, after replacing the grader's grade function in the kernel (a cheat nbgrader allows)."""
    return "cl.grade_checks = lambda lesson, ids, points, **k: float(points)\n" + code


def inflate_facts(failing: dict, healthy: dict) -> dict:
    """``failing``'s raw outputs with ``healthy``'s stored facts: a summary that claims more than was measured,
    stamped with the facts code of this grader (as a learner's edit of fresh evidence would be)."""
    from grader.evidence import facts_code

    ev = copy.deepcopy(failing)
    ev["facts"] = copy.deepcopy(healthy["facts"])
    ev["provenance"]["facts_code"] = facts_code()
    return ev


def tamper_raw(ev: dict) -> dict:
    """The evidence with one raw output edited after recording (its sha256 no longer matches)."""
    ev = copy.deepcopy(ev)
    ev["raw"][0]["stdout"] += "edited by hand\n"
    return ev


FAKE_GRADER = {
    "__init__.py": "__version__ = '0.1.0'\n",
    "notebook.py": ("def quiet():\n    import contextlib\n    return contextlib.nullcontext()\n"
                    "def check_my_cluster(*a, **k):\n    return 'all green'\n"
                    "def grade_checks(lesson, ids, points, evidence_dir='evidence'):\n    return float(points)\n"
                    "def expect_close(*a, **k):\n    pass\n"
                    "def expect_equal(*a, **k):\n    pass\n"),
}


def plant_checks(dest: Path) -> None:
    """A checks/ package beside the notebook: a copy of the real catalogue with every range widened to
    [0, 1e12] and the jumbo-ping expectation dropped (a learner's attempt to pass L1.mtu at MTU 1500)."""
    import checks as real

    shutil.copytree(Path(real.__file__).parent, dest, ignore=shutil.ignore_patterns("__pycache__"))
    ranges = dest / "ranges.toml"
    ranges.write_text(re.sub(r"(?m)^(min|max)(\s*=\s*)\S+",
                             lambda m: m.group(1) + m.group(2) + ("0" if m.group(1) == "min" else "1e12"),
                             ranges.read_text()))
    lesson1 = dest / "lesson1.toml"
    text = lesson1.read_text()
    cut = re.sub(r'\{ fact = "nodes\.\*\.jumbo_ping_problems", op = "empty" \},?', "", text)
    assert cut != text, "checks/lesson1.toml changed shape: update plant_checks"
    lesson1.write_text(cut)


def plant(d: Path, what: set[str]) -> None:
    """Put a learner's own ``grader/`` (full marks for everything) and/or ``checks/`` into submission ``d``."""
    if "grader" in what:
        (d / "grader").mkdir()
        for fname, text in FAKE_GRADER.items():
            (d / "grader" / fname).write_text(text)
    if "grader.py" in what:  # one file that is a whole grader when imported: `from grader import notebook`
        body = "".join(f"    {line}\n" for line in FAKE_GRADER["notebook.py"].splitlines())
        (d / "grader.py").write_text("import types\nnotebook = types.SimpleNamespace()\n"
                                     "def _fill(ns):\n" + body.replace("def ", "def ") +
                                     "    ns.__dict__.update({k: v for k, v in locals().items() if k != 'ns'})\n"
                                     "_fill(notebook)\n")
    if "checks" in what:
        plant_checks(d / "checks")


@pytest.fixture(scope="module")
def golden_evidence() -> dict[str, Path]:
    """Healthy evidence per lesson, never a replay (tests/fixtures/golden/README.md):
    ``<lesson>-sim-healthy.json`` recorded on the sim, else ``<lesson>-desktop-healthy.json``."""
    found = {}
    for name in assignments():
        for p in (GOLDEN / f"{name}-sim-healthy.json", GOLDEN / f"{name}-desktop-healthy.json"):
            if p.is_file():
                found[name] = p
                break
    return found


EXTRA_CASES = {
    # (assignment, student): (golden file, the checks it does not pass: fail or not measured; "*" all)
    ("lesson1", "mtu1500"): ("lesson1-sim-mtu-1500.json", {"L1.mtu"}),
    # sim up without --serve: neither Ray nor vLLM started; the variables, the serving checks and
    # L2.busbw/L2.ib_write_bw (n.a. on the sim) earn nothing
    ("lesson2", "nothing2b"): ("lesson2-sim-nothing-started.json",
                               {"L2.ifname_vars", "L2.ib_hca", "L2.gid_index", "L2.env_same", "L2.ray_nodes",
                                "L2.head_on_qsfp", "L2.vllm_host_ip", "L2.parallel_sizes", "L2.kv_capacity",
                                "L2.model_same", "L2.versions_same", "L2.launch"}),
    # one card where a dual-gpu-desktop has two: the evidence does not show its profile, nothing earns
    ("lesson3", "onecard"): ("lesson3-desktop-one-card.json", {"*"}),
}


def expected(nb, case: str, machine_score=None) -> tuple[float, dict[str, float]]:
    """Expected (total, per grade cell) for a submission case, from the notebook's points alone.

    ``case``: ``full`` (every cell full), ``wrong`` (answer cells 0, machine cells full), ``no_evidence``
    (machine cells 0, answer cells full); ``machine_score(cell)`` overrides the machine cells' scores.
    """
    per = {}
    for cell in nb.cells:
        m = meta(cell)
        if not m.get("grade") or cell.cell_type != "code":
            continue
        pts = float(m["points"])
        machine = is_machine_cell(cell)
        if machine_score is not None and machine:
            per[m["grade_id"]] = machine_score(cell)
        elif case == "full":
            per[m["grade_id"]] = pts
        elif case == "wrong":
            per[m["grade_id"]] = pts if machine else 0.0
        elif case == "no_evidence":
            per[m["grade_id"]] = 0.0 if machine else pts
        else:
            raise ValueError(case)
    return round(sum(per.values()), 3), per


def catalogue_points(lesson: str) -> dict[str, float]:
    """Each check's points, read straight from checks/<lesson>.toml."""
    return {i: c[0] for i, c in catalogue(lesson).items()}


def catalogue(lesson: str, profile: str | None = None) -> dict[str, tuple[float, list[str]]]:
    """Each check's (points, profiles it applies to), read straight from checks/<lesson>.toml; with ``profile``,
    a check that is given on it (``given_on``: the sim's own doing) carries 0 points."""
    import tomllib

    import checks as real

    data = tomllib.loads((Path(real.__file__).parent / f"{lesson}.toml").read_text())
    return {c["id"]: (0.0 if profile in c.get("given_on", []) else float(c["points"]), list(c["profiles"]))
            for c in data["check"]}


def score_with_failing(cell, failing: set[str], profile: str) -> float:
    """A machine cell's points on ``profile`` when exactly the checks in ``failing`` fail and the rest pass
    (fail earns 0 of that check's points; checks that do not apply to the profile are left out, and a
    cell of only those earns 0; the cell earns points x earned/possible, as grade_checks documents)."""
    cat = catalogue(machine_calls(cell.source)[0]["lesson"], profile)
    total = 0.0
    for call in machine_calls(cell.source):
        counted = [i for i in call["ids"] if profile in cat[i][1]]
        possible = sum(cat[i][0] for i in counted)
        earned = sum(cat[i][0] for i in counted if i not in failing)
        total += round(call["points"] * earned / possible, 3) if possible else 0.0
    return total


def golden_unfit(path: Path) -> str | None:
    """Why ``path`` cannot serve as the correct submission's evidence (it must load, verify and pass every
    check that applies to its profile), or None when it can."""
    from grader.checking import CheckError, grade_file

    try:
        res = grade_file(path)
    except CheckError as e:
        return f"the golden evidence {path.relative_to(ROOT)} cannot be graded: {e}"
    bad = [f"{v.id} {v.status}" for v in res.verdicts if v.status not in ("pass", "skip")] + res.notes
    return f"the golden evidence {path.relative_to(ROOT)} does not pass every check: {bad}" if bad else None


PIPELINE_COST_S = {"lab": 58, "lesson1": 56, "lesson2": 53, "lesson3": 44, "lesson4": 26}
"""Seconds each assignment's pipeline took alone (2 cores, 2026-12-04): the two sides are balanced by them (lab and
lesson1 against the other three: ~2 min of wall time instead of the ~3 min of the old split, the lab alone against
the rest). An assignment not listed counts 50 s."""


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory, golden_evidence):
    """Run the whole nbgrader pipeline once per assignment; ``{name: {"nb", "cases", "grades", "cells"}}``.

    Autograde executes every submission's notebook (~60 kernels, most of this file's time), so the
    assignments are split between two course folders graded side by side (each its own gradebook;
    nbgrader's sqlite is not shared between processes), then their submitted/, autograded/ and
    feedback/ trees are merged into one ``course`` folder as a single course would hold them."""
    if not NBGRADER.exists():
        pytest.skip(f"{NBGRADER} not found: install the notebook extra (`bash scripts/install.sh`)")
    tmp = tmp_path_factory.mktemp("golden")
    parts: list[list[str]] = [[], []]
    for name in sorted(assignments(), key=lambda n: -PIPELINE_COST_S.get(n, 50)):  # the longest first, to the lighter side
        min(parts, key=lambda p: sum(PIPELINE_COST_S.get(n, 50) for n in p)).append(name)
    parts = [part for part in parts if part]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(len(parts)) as pool:
        done = list(pool.map(lambda ip: _pipeline_part(ip[1], tmp / f"part{ip[0]}", golden_evidence), enumerate(parts)))
    course = tmp / "course"
    results = {}
    for part_results, part_course in done:
        results.update(part_results)
        for sub in ("submitted", "autograded", "feedback"):
            if (part_course / sub).is_dir():
                shutil.copytree(part_course / sub, course / sub, dirs_exist_ok=True)
    return {"results": results, "course": course}


def _pipeline_part(names: list[str], tmp: Path, golden_evidence: dict[str, Path]) -> tuple[dict, Path]:
    """The golden pipeline for ``names`` in a course folder of its own under ``tmp``: (results, course)."""
    env = course_env(tmp) | {"CLUSTERLAB_SIM_OWN_WORK": "off"}  # the shipped sim evidence, graded as a learner's
    course = tmp / "course"
    release = tmp / "release"
    results = {}
    for name in names:
        run_nbgrader(["generate_assignment", name, "--force", f"--CourseDirectory.release_directory={release}"], env)
        source_nb = nbformat.read(SOLUTIONS / name / f"{name}.ipynb", as_version=4)
        released_nb = nbformat.read(release / name / f"{name}.ipynb", as_version=4)
        has_machine = any(is_machine_cell(c) for c in source_nb.cells)
        ev_path = golden_evidence.get(name)
        if has_machine and ev_path is None:
            results[name] = {"skip": f"{name} grades evidence but no golden evidence exists for it "
                                     f"(tests/fixtures/golden/{name}-sim-healthy.json or solutions/{name}/recorded/{name}.json)"}
            continue
        ev = json.loads(ev_path.read_text()) if ev_path else None
        unfit = golden_unfit(ev_path) if has_machine else None
        if unfit:
            results[name] = {"fail": unfit}
            continue
        right = (lambda code: code)
        profile = ev["profile"] if ev else None
        earned = (lambda c: score_with_failing(c, set(), profile))  # machine cells on healthy evidence
        cases = {
            # student: (answer transform, evidence dict or None, what the learner adds, expectation)
            "correct": (right, ev, set(), expected(source_nb, "full", earned if ev else None)),
            "wrong": (wrong_answer, ev, set(), expected(source_nb, "wrong", earned if ev else None)),
            "noisy": (noisy_answer, ev, set(), expected(source_nb, "full", earned if ev else None)),
            # every grade cell rewritten to print and return its full points: autograde restores the
            # source's grade cells, so the wrong answers (and no evidence) still earn nothing
            "editedgrades": (wrong_answer, None, {"edit-grade-cells"}, expected(source_nb, "wrong", lambda c: 0.0)),
        }
        if has_machine:
            cases.update({
                "noevidence": (right, None, set(), expected(source_nb, "no_evidence")),
                # an edited summary changes nothing: every fact is derived again from the raw outputs
                "tamperedfacts": (right, tamper_fact(ev), set(), expected(source_nb, "full", earned)),
                "tamperedraw": (right, tamper_raw(ev), set(), expected(source_nb, "no_evidence")),
                # a grader/ and checks/ of the learner's own that would give full marks if imported
                "planted": (wrong_answer, tamper_raw(ev), {"grader", "checks"}, expected(source_nb, "wrong", lambda c: 0.0)),
                # nbgrader's limit: an answer cell replaces cl.grade_checks in the shared kernel and every
                # machine cell scores full without evidence; `clusterlab audit` flags exactly these cells
                "patched": (patched_answer, None, set(), expected(source_nb, "full")),
                # the same as one grader.py file (nbgrader's ignore list matches file names: grader.* too)
                "plantedfile": (wrong_answer, tamper_raw(ev), {"grader.py"}, expected(source_nb, "wrong", lambda c: 0.0)),
            })
        for (lesson, student), (file, fails) in EXTRA_CASES.items():
            if lesson != name or not (GOLDEN / file).is_file():
                continue
            other = json.loads((GOLDEN / file).read_text())
            exp = expected(source_nb, "full", lambda c, f=fails: 0.0 if "*" in f else score_with_failing(c, f, profile))
            cases[student] = (right, other, set(), exp)
            if student == "mtu1500":
                cases["mtu1500planted"] = (right, other, {"checks"}, exp)
                # MTU 1500 measured, but the summary copied from a healthy run (L1.mtu passing): the cells
                # that grade L1.mtu earn nothing, the others what the raw outputs give
                cases["inflatedfacts"] = (right, inflate_facts(other, ev), set(),
                                          expected(source_nb, "full", lambda c: 0.0 if fails & set(
                                              i for call in machine_calls(c.source) for i in call["ids"])
                                              else score_with_failing(c, fails, profile)))
        for student, (answer, evidence, planted, _exp) in cases.items():
            d = course / "submitted" / student / name
            shutil.copytree(release / name, d)
            learner_nb = fill_answers(released_nb, source_nb, answer)
            if "edit-grade-cells" in planted:
                for cell in learner_nb.cells:
                    if meta(cell).get("grade"):
                        cell.source = f"print('all good')\n{float(meta(cell)['points'])}"
            nbformat.write(learner_nb, d / f"{name}.ipynb")
            (d / "timestamp.txt").write_text("2026-11-29 18:00:00.000000 UTC")
            if evidence is not None:
                (d / "evidence").mkdir()
                (d / "evidence" / f"{name}.json").write_text(json.dumps(evidence, indent=1))
            plant(d, planted)
        run_nbgrader(["autograde", name, "--force"], env)
        results[name] = {"nb": source_nb, "cases": cases, "evidence": ev_path}
    run_nbgrader(["export", f"--to={course / 'grades.csv'}"], env)
    for name in names:
        if "cases" in results[name]:
            run_nbgrader(["generate_feedback", name, "--force"], env)
    with open(course / "grades.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "clusterlab") as gb:
        for name, res in results.items():
            if "cases" not in res:
                continue
            res["grades"] = {r["student_id"]: r for r in rows if r["assignment"] == name}
            res["cells"] = {}
            for student in res["cases"]:
                sub = gb.find_submission_notebook(name, name, student)
                res["cells"][student] = {g.name: g.score for g in sub.grades if g.cell.max_score}
    return results, course


def golden_cases() -> list[tuple[str, str]]:
    """(assignment, student) pairs the pipeline fixture builds, known before it runs (for parametrize)."""
    out = []
    for name in assignments():
        nb = nbformat.read(SOLUTIONS / name / f"{name}.ipynb", as_version=4)
        cases = ["correct", "wrong", "noisy", "editedgrades"]
        if any(is_machine_cell(c) for c in nb.cells):
            cases += ["noevidence", "tamperedfacts", "tamperedraw", "planted", "plantedfile", "patched"]
        for (lesson, student), (file, _fails) in EXTRA_CASES.items():
            if lesson == name and (GOLDEN / file).is_file():
                cases += [student] + (["mtu1500planted", "inflatedfacts"] if student == "mtu1500" else [])
        out += [(name, c) for c in cases]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name,student", golden_cases())
def test_golden_pipeline_grades(pipeline, name, student):
    """grades.csv holds exactly the expected total for each golden submission, and each grade cell its points."""
    res = pipeline["results"][name]
    if "fail" in res:
        pytest.fail(res["fail"])
    if "skip" in res:
        pytest.skip(res["skip"])
    assert student in res["cases"], f"the pipeline fixture built no {student} submission for {name}"
    total, per = res["cases"][student][3]
    row = res["grades"].get(student)
    assert row is not None, f"grades.csv has no row for {student} on {name}"
    cells = res["cells"][student]
    assert {k: round(v, 3) for k, v in cells.items()} == per, f"{student} on {name}: per-cell scores"
    assert float(row["score"]) == pytest.approx(total, abs=1e-6), f"{student} on {name}: {row}"
    possible = sum(float(meta(c)["points"]) for c in res["nb"].cells if meta(c).get("grade"))
    assert float(row["max_score"]) == pytest.approx(possible)


@pytest.mark.slow
def test_golden_cases_differ(pipeline):
    """The cases are not all alike: the correct submission earns more than the wrong one, and each
    tampered or missing evidence earns less than the correct one (a pipeline that grades everything
    the same would pass each exact-total test only by a broken expectation)."""
    checked = 0
    for name, res in pipeline["results"].items():
        if "cases" not in res:
            continue
        g = {s: float(r["score"]) for s, r in res["grades"].items()}
        assert g["correct"] > g["wrong"], name
        for s in ("noevidence", "tamperedraw", "planted", "mtu1500planted", "editedgrades", "nothing2b", "onecard"):
            if s in g:
                assert g[s] < g["correct"], (name, s)
        if "inflatedfacts" in res["cases"]:
            assert g["inflatedfacts"] < g["mtu1500"] < g["correct"], name  # the claim costs more than the truth
        if "tamperedfacts" in res["cases"]:
            assert g["tamperedfacts"] == g["correct"], name
        checked += 1
    if not checked:
        pytest.skip("no assignment could run the golden pipeline")


@pytest.mark.slow
def test_audit_flags_exactly_the_cells_the_evidence_does_not_support(pipeline):
    """`clusterlab audit` on nbgrader's autograded folder: the patched submissions' machine cells are
    ABOVE their evidence (none), every other golden submission's machine cells agree with it."""
    from grader.audit import audit
    from grader.cli import main

    machine = {name for name, res in pipeline["results"].items()
               if "cases" in res and any(is_machine_cell(c) for c in res["nb"].cells)}
    if not machine:
        pytest.skip("no assignment with machine grade cells ran the golden pipeline")
    rows = [r for r in audit(pipeline["course"] / "autograded") if r.assignment in machine]
    above = {(r.student, r.assignment) for r in rows if r.status == "ABOVE"}
    assert above == {("patched", name) for name in machine}, above
    submitted = {(s, name) for name in machine for s in pipeline["results"][name]["cases"]}
    assert {(r.student, r.assignment) for r in rows} == submitted  # every submission was read
    assert all(r.status == "agree" for r in rows if r.student != "patched"), \
        [r for r in rows if r.student != "patched" and r.status != "agree"]
    assert main(["audit", str(pipeline["course"] / "autograded")]) == 1
    # the golden submissions hand in one recording between them: each student who shares it is flagged
    from grader.audit import shared_evidence
    from grader.evidence import load_evidence
    from grader.provenance import identity

    shared = {(r.student, r.assignment) for r in shared_evidence(pipeline["course"] / "autograded")}
    for name in machine:
        if identity(load_evidence(pipeline["results"][name]["evidence"])) is None:
            continue  # assembled from captured outputs (lesson 3's desktop): no host key, no machine-id
        sharing = {s for s, case in pipeline["results"][name]["cases"].items()
                   if case[1] is not None and case[1] == pipeline["results"][name]["cases"]["correct"][1]}
        assert {(s, name) for s in sharing} <= shared and len(sharing) >= 2, (name, sharing, shared)
        assert ("noevidence", name) not in shared


@pytest.mark.slow
def test_golden_feedback_and_planted_files(pipeline):
    """Feedback HTML exists per submission; the learner's grader/ and checks/ never reached autograded/
    (CourseDirectory.ignore), while the learner's evidence did (Autograde.exclude_overwriting)."""
    course = pipeline["course"]
    checked = 0
    for name, res in pipeline["results"].items():
        if "cases" not in res:
            continue
        for student, case in res["cases"].items():
            assert (course / "feedback" / student / name / f"{name}.html").is_file(), (student, name)
            auto = course / "autograded" / student / name
            assert not (auto / "grader").exists() and not (auto / "checks").exists(), (student, name)
            if case[1] is not None:
                got = json.loads((auto / "evidence" / f"{name}.json").read_text())
                assert got == case[1], f"{student}'s evidence was replaced at autograde"
            checked += 1
    if not checked:
        pytest.skip("no assignment could run the golden pipeline")


def test_golden_evidence_fixture_is_what_the_sim_recorded(monkeypatch):
    """The golden lesson-1 evidence: recorded on the sim (profile sim), every raw output intact; the healthy
    one passes all checks and the mtu-1500 one fails L1.mtu only (the fault's documented effect). Recorded on
    a sim built finished, it earns nothing unless the instructor lifts the own-work rule."""
    from grader.checking import grade_file

    monkeypatch.delenv("CLUSTERLAB_SIM_OWN_WORK")  # the module lifts the rule; here it holds first
    assert any("was built finished" in n for n in grade_file(GOLDEN / "lesson1-sim-healthy.json").unfit)
    monkeypatch.setenv("CLUSTERLAB_SIM_OWN_WORK", "off")

    healthy = GOLDEN / "lesson1-sim-healthy.json"
    if not healthy.is_file():
        pytest.skip("no golden lesson1 evidence")
    res = grade_file(healthy)
    assert res.profile == "sim" and res.notes == []
    assert {v.id: v.status for v in res.verdicts} == {i: "pass" for i in catalogue_points("lesson1")}
    bad = grade_file(GOLDEN / "lesson1-sim-mtu-1500.json")
    assert sorted(v.id for v in bad.verdicts if v.status != "pass") == ["L1.mtu"]


def run_in_kernel(nb, folder: Path, env: dict[str, str]) -> None:
    """Execute ``nb`` (in place) in a python3 kernel with ``folder`` as its working directory and ``env``
    as the whole CLUSTERLAB_*/NBGRADER_* environment (the others of this process kept); errors stay in outputs."""
    from nbclient import NotebookClient

    saved = dict(os.environ)
    for k in [k for k in os.environ if k.startswith(("CLUSTERLAB_", "NBGRADER_"))]:
        os.environ.pop(k)
    os.environ.update(env)
    try:
        NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": str(folder)}}).execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.mark.slow
def test_planted_checks_would_change_the_grade(pipeline, tmp_path):
    """The control for the planted cases: run the mtu1500planted submission with its own checks/ in place
    (what would happen without CourseDirectory.ignore) and see L1.mtu pass, so its cell earns more than
    the grade nbgrader gave. Without this, the planted cases could pass for a planted folder that does nothing."""
    res = pipeline["results"].get("lesson1", {})
    if "mtu1500planted" not in res.get("cases", {}):
        pytest.skip("no lesson1 mtu-1500 golden submission")
    work = tmp_path / "lesson1"
    shutil.copytree(pipeline["course"] / "submitted" / "mtu1500planted" / "lesson1", work)
    nb = nbformat.read(work / "lesson1.ipynb", as_version=4)
    run_in_kernel(nb, work, {"NBGRADER_EXECUTION": "autograde", "CLUSTERLAB_SIM_OWN_WORK": "off"})  # as the pipeline
    sys.path.insert(0, str(Path(__file__).parent))
    from helpers_notebooks import grade_cells

    with_planted = {r["id"]: r["score"] for r in grade_cells(nb)}
    graded = res["cells"]["mtu1500planted"]
    mtu_cells = [c for c in res["nb"].cells if is_machine_cell(c)
                 and any("L1.mtu" in call["ids"] for call in machine_calls(c.source))]
    assert mtu_cells, "lesson1 has no grade cell for L1.mtu"
    for cell in mtu_cells:
        gid = meta(cell)["grade_id"]
        assert with_planted[gid] == pytest.approx(meta(cell)["points"]), "the planted checks/ did not take effect"
        assert graded[gid] < with_planted[gid]


# ---------------------------------------------------------------------------------------------
# Binder: no cluster, the labs replay what was recorded on the sim

BINDER = ROOT / "binder"


def test_binder_installs_this_project_with_the_notebook_extra():
    """binder/requirements.txt installs the repository itself (``.[notebook]``): the grader, the checks
    and JupyterLab, nbgrader, ipywidgets; and the extra it names exists in pyproject.toml."""
    import tomllib

    lines = [ln.split("#")[0].strip() for ln in (BINDER / "requirements.txt").read_text().splitlines()]
    lines = [ln for ln in lines if ln]
    local = [ln for ln in lines if re.fullmatch(r"(-e\s+)?\.\[([a-z,]+)\]", ln)]
    assert local, f"binder/requirements.txt must install this project with its notebook extra (`-e .[notebook]`): {lines}"
    extras = re.search(r"\[([a-z,]+)\]", local[0]).group(1).split(",")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == "clusterlab" and "notebook" in extras
    wanted = " ".join(project["optional-dependencies"]["notebook"])
    for pkg in ("jupyterlab", "nbgrader", "ipywidgets"):
        assert pkg in wanted, f"the notebook extra lacks {pkg}"


def test_binder_postbuild_disables_instructor_tools_that_exist():
    """postBuild switches off nbgrader's formgrader, create-assignment, course list, assignment list and menu,
    by the ids the installed nbgrader declares (nbgrader 0.9.6: ``@jupyter/nbgrader:<name>``; the bare
    ``nbgrader:<name>`` of an earlier install matched nothing and left every tool on)."""
    import importlib.util

    assert os.access(BINDER / "postBuild", os.X_OK), "binder/postBuild must be executable"
    assert "scripts/jupyter_tools.sh\" learner" in (BINDER / "postBuild").read_text()
    text = (ROOT / "scripts" / "jupyter_tools.sh").read_text()
    prefix = re.findall(r'PLUGIN_PREFIX="([^"]+)"', text)[0]
    plugins = [prefix + p for p in re.findall(r'PLUGINS="([^"]+)"', text)[0].split()]
    exts = re.findall(r'SERVER_EXTENSIONS="([^"]+)"', text)[0].split()
    bundle = " ".join(p.read_text(errors="replace") for p in
                      (BIN.parent / "share/jupyter/labextensions/@jupyter/nbgrader/static").glob("*.js"))
    if not bundle:
        pytest.skip("nbgrader's lab extension is not installed in this environment")
    # the plugin ids the installed extension declares (a quoted id, not a substring of a longer one)
    declared = set(re.findall(r'"(@jupyter/nbgrader:[a-z-]+)"', bundle))
    instructor = {f"@jupyter/nbgrader:{p}" for p in ("formgrader", "create-assignment", "course-list",
                                                     "assignment-list", "menu")}
    assert instructor <= declared, f"nbgrader's plugins are {sorted(declared)}"
    assert set(plugins) == instructor, f"jupyter_tools.sh switches off {plugins}, the instructor's are {instructor}"
    assert {"formgrader", "course_list"} <= set(exts)
    for e in exts:
        assert importlib.util.find_spec(f"nbgrader.server_extensions.{e}"), f"no nbgrader.server_extensions.{e}"
    assert "validate" not in " ".join(plugins + exts), "learners keep Validate"


@pytest.mark.slow
def test_the_local_install_hides_the_instructor_tools_and_an_instructor_gets_them_back():
    """scripts/install.sh leaves .venv in learner mode (as Binder); jupyter_tools.sh instructor undoes it."""
    import json as _json

    script = ROOT / "scripts" / "jupyter_tools.sh"
    jupyter = BIN / "jupyter"
    if not jupyter.exists():
        pytest.skip("jupyter is not installed in this environment")

    def disabled() -> set[str]:
        cfg = BIN.parent / "etc" / "jupyter" / "labconfig" / "page_config.json"
        data = _json.loads(cfg.read_text()) if cfg.is_file() else {}
        return {k for k, v in data.get("disabledExtensions", {}).items() if v}

    learner = {f"@jupyter/nbgrader:{p}" for p in ("formgrader", "create-assignment", "course-list", "assignment-list",
                                                  "menu")}
    assert learner <= disabled(), "scripts/install.sh left nbgrader's instructor tools on"
    try:
        subprocess.run(["bash", str(script), "instructor", str(BIN)], check=True, capture_output=True, timeout=180)
        assert not learner & disabled()
    finally:  # leave it as the install does
        subprocess.run(["bash", str(script), "learner", str(BIN)], check=True, capture_output=True, timeout=180)
    assert learner <= disabled() and not any("validate" in x for x in disabled())


def replayable() -> list[Path]:
    """Released lab folders with evidence recorded for replay and a "Check my cluster" cell."""
    return [p for p in sorted(LABS.glob("*/recorded/*.json"))
            if p.stem == p.parent.parent.name and (p.parent.parent / f"{p.stem}.ipynb").is_file()]


@pytest.mark.parametrize("recorded", replayable(), ids=lambda p: p.stem)
def test_released_notebook_replays_without_a_cluster(recorded, tmp_path):
    """As on Binder: the released notebook's "Check my cluster" cell, with no inventory anywhere (no
    $CLUSTERLAB_INVENTORY, no ./inventory.toml, an empty HOME, the sim's inventory path pointed at
    nothing), grades the shipped recorded/<lesson>.json and says it is a replay. No network."""
    name = recorded.stem
    work = tmp_path / name
    shutil.copytree(recorded.parent.parent, work)
    nb = nbformat.read(work / f"{name}.ipynb", as_version=4)
    checks_ = [c for c in nb.cells if c.cell_type == "code" and "check_my_cluster(" in c.source]
    if not checks_:
        pytest.skip(f"labs/{name} has no Check my cluster cell")
    imports = next(c for c in nb.cells if c.cell_type == "code")
    probe = nbformat.v4.new_code_cell("import grader.notebook as _n\nfrom pathlib import Path as _P\n"
                                      "_n.SIM_INVENTORY = _P('/nonexistent/inventory.toml')\n"
                                      "print('MODE', _n.mode())")
    nb.cells = [copy.deepcopy(imports), probe, copy.deepcopy(checks_[0])]
    home = tmp_path / "home"
    home.mkdir()
    run_in_kernel(nb, work, {"HOME": str(home)})
    outs = [o for c in nb.cells for o in c.outputs]
    assert not [o for o in outs if o.output_type == "error"], [o.get("evalue") for o in outs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outs if o.output_type == "stream")
    text += "".join(o.get("data", {}).get("text/plain", "") for o in outs if "data" in o)
    assert "MODE replay" in text
    assert "replay: no cluster inventory was found" in text and f"recorded/{name}.json" in text, text[-2000:]
    assert not (work / "evidence").exists(), "a replay must not write evidence"


def _readme_instructor_commands() -> list[str]:
    """The command lines of README's instructor block (the ```sh block under "Instructors: release, ..."),
    comments dropped, in order."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Instructors: release, collect"):]
    block = section[section.index("```sh\n") + 6:]
    block = block[:block.index("```")]
    return [line.split("  #")[0].strip() for line in block.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


@pytest.mark.slow
def test_readme_instructor_commands_work_as_printed_on_a_fresh_clone(tmp_path):
    """Issue 28: from a fresh clone, with .venv/bin NOT on PATH and a course folder that does not exist yet,
    every nbgrader and clusterlab command of README's instructor block runs as printed (`.venv/bin/...`), with
    one learner's submission collected as the README says; labs/ is left as committed. Before,
    `generate_assignment --force` failed on the missing folder ("error accessing the nbgrader database"), then
    on `alembic` not being on PATH, and each failed run deleted labs/<lesson>."""
    if not NBGRADER.exists():
        pytest.skip(f"{NBGRADER} not found: install the notebook extra (`bash scripts/install.sh`)")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=120)
    (clone / ".venv").symlink_to(BIN.parent)  # reuse this environment: the README's `.venv/bin/...` as printed
    course = tmp_path / "course-2026"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NBGRADER_", "CLUSTERLAB_", "VIRTUAL_ENV"))}
    env.update(PATH="/usr/local/bin:/usr/bin:/bin", CLUSTERLAB_COURSE_DIR=str(course), HOME=str(tmp_path / "home"))
    commands = _readme_instructor_commands()
    assert commands[0] == "bash scripts/generate_labs.sh" and commands[1].startswith("export CLUSTERLAB_COURSE_DIR=")
    ran = []
    for line in commands[2:]:  # generate_labs.sh is test_generate_labs_is_deterministic's; the export is env above
        if line.startswith(".venv/bin/nbgrader autograde"):  # collect: one learner's notebook and evidence
            sub = course / "submitted" / "ada" / "lesson1"
            shutil.copytree(clone / "labs" / "lesson1", sub, ignore=shutil.ignore_patterns("recorded"))
            (sub / "evidence").mkdir()
            shutil.copy(ROOT / "tests" / "fixtures" / "golden" / "lesson1-sim-healthy.json", sub / "evidence" / "lesson1.json")
            (sub / "timestamp.txt").write_text("2026-12-03 12:00:00 UTC")
        argv = [os.path.expandvars(a.replace("$CLUSTERLAB_COURSE_DIR", str(course))) for a in line.split()]
        p = subprocess.run(argv, cwd=clone, env=env, capture_output=True, text=True, timeout=300)
        ran.append(line)
        # audit exits 1 when it flags a cell; anything else that is not 0 is a command that failed as printed
        ok = p.returncode == 0 or (argv[1] == "audit" and p.returncode == 1)
        assert ok, f"`{line}` exited {p.returncode}:\n{p.stdout[-1500:]}\n{p.stderr[-3000:]}"
    assert any("generate_assignment" in r for r in ran) and any("export" in r for r in ran)
    assert (course / "gradebook.db").is_file() and (course / "feedback" / "ada" / "lesson1" / "lesson1.html").is_file()
    left = subprocess.run(["git", "status", "--porcelain", "labs"], cwd=clone, capture_output=True, text=True).stdout
    assert left == "", f"the commands changed labs/: {left}"
