"""grader/explain/ is a package whose core knows no lesson (issue 13 part 2) and whose lesson modules judge nothing
(issue 27: the judges are grader/judges/, one per topic, which the checks' facts call too), checked from the code with
ast: the lesson modules import the core and ``readers`` (plus the judges, parsers, facts, ranges, calc, spark_names,
metrics, diagnoses), never each other nor the package itself, and make no finding; the package stays under 2,200
lines; no module of it or of the judges is over 600 lines; the catalogue's figures (checks/ranges.toml) are read, not
written, in either (docstrings and comments aside)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "grader" / "explain"
JUDGES = PKG.parent / "judges"
CORE = {"core", "paste", "readers", "output", "tolerant"}
LESSONS = {p.stem for p in PKG.glob("*.py")} - CORE - {"__init__"}
CORE_IMPORTS = {"core": ("output", "tolerant"), "paste": ("core",), "readers": (), "output": (), "tolerant": ()}
ALLOWED = {"judges", "parsers", "facts", "ranges", "calc", "spark_names", "metrics", "diagnoses", "failures",
           "redact"}  # redact: what explain says back has no secret of a pasted command line
FINDING_MAKERS = {"Finding", "ok", "warn", "fail", "info"}
"""What makes a finding (grader.judges.model, grader.judges.common): a lesson module of explain imports none."""


def _imports(path: Path) -> list[tuple[int, str | None, list[str]]]:
    """(level, module, names) of every import in ``path``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            out.append((node.level, node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out += [(0, a.name, []) for a in node.names]
    return out


def test_lesson_modules_import_only_the_core():
    assert {"lesson1", "lesson3", "lesson2_roce", "lesson2_nccl", "serving", "lab"} <= LESSONS
    for name in sorted(LESSONS | CORE):
        for level, module, names in _imports(PKG / f"{name}.py"):
            if level == 1:  # from .X import ...: a lesson reads the core and readers; the core reads no lesson
                assert module in CORE_IMPORTS[name] if name in CORE_IMPORTS else module in ("core", "readers"), \
                    f"{name}.py imports .{module}"
            elif level == 2:  # from ..X import ...: the layers below explain
                top = (module or names[0]).split(".")[0]
                assert top in ALLOWED, (name, module)
                assert name in CORE or not FINDING_MAKERS & set(names), f"{name}.py judges: {module} {names}"
            elif module and module.startswith("grader"):
                raise AssertionError(f"{name}.py imports {module} absolutely: use the relative layers")


def test_no_module_over_600_lines():
    for p in [*PKG.glob("*.py"), *JUDGES.glob("*.py")]:
        assert len(p.read_text().splitlines()) <= 600, p.name


def test_explain_stays_small():
    """Issue 27's bound: what explain adds to the judges (recognising a paste's outputs) is under 2,200 lines."""
    lines = sum(len(p.read_text().splitlines()) for p in PKG.glob("*.py"))
    assert lines < 2200, lines


def _code_constants(path: Path) -> list[tuple[int, str]]:
    """Numbers and string pieces in ``path``'s code, docstrings left out."""
    tree = ast.parse(path.read_text())
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    for n in ast.walk(tree):  # attribute docstrings: a string expression right after an assignment
        if isinstance(n, (ast.Module, ast.ClassDef)):
            docs |= {id(s.value) for s in n.body if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)}
    return [(n.lineno, repr(n.value)) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and id(n) not in docs and isinstance(n.value, (int, float, str))]


def test_the_catalogue_figures_are_read_not_written():
    figures = ("9000", "8972", "200000", "21.875", "175 Gb", "126 Gb", "200 Gb", "200 GbE", "200G")
    found = [(p.name, line, text) for p in sorted([*PKG.glob("*.py"), *JUDGES.glob("*.py")])
             for line, text in _code_constants(p)
             if any(re.search(r"(?<![\d.])" + re.escape(f) + r"(?![\d])", text) for f in figures)]
    assert not found, found


def test_registering_every_kind_loads_no_judge():
    """A paste holds one or a few kinds: ``import grader.explain`` registers them all and imports no judge of a topic
    (grader/judges/<topic>.py), only what every paste needs (model, context, common, and programs: a shell's `command not
    found`, asked of every line); a judge is imported at its
    kind's first output (grader.explain.readers.judge), a cross check's only for a paste holding a kind it reads."""
    import subprocess
    import sys
    code = ("import sys, grader.explain, grader.explain.core as c\n"
            "before = sorted(m for m in sys.modules if m.startswith('grader.judges.'))\n"
            "c.explain('$ ibdev2netdev\\nrocep1s0f1 port 1 ==> enp1s0f1np1 (Up)\\n')\n"
            "after = sorted(m for m in sys.modules if m.startswith('grader.judges.'))\n"
            "print(before); print(after)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == str(["grader.judges.common", "grader.judges.context", "grader.judges.model", "grader.judges.programs"])
    assert eval(out[1]) == ["grader.judges.common", "grader.judges.context", "grader.judges.hosts",
                            "grader.judges.ip_notes", "grader.judges.link", "grader.judges.link_notes",  # (link's notes)
                            "grader.judges.model", "grader.judges.programs"]  # ibdev2netdev's judge, its cross check's
