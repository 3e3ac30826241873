"""The shape of grader/, asserted from the code (issue 13): layers, no import circle, no catalogue figure in
Python, no module over 600 lines.

Layers, lowest first (a module may import its own layer and those below, never above):

    base      grader/__init__, strictjson, failures, deadline, spark_names, ranges, redact*, calc/*, metrics
    parsers   grader/parsers/*            pure text -> typed facts
    records   evidence, inventory, transport, provenance, lessons
    facts     grader/facts/*, grader/judges/*, diagnoses, diagnosis_details(_runs), nccl_env, lab, grading     what a fact means; the checks
    probes    grader/probes/*             fixed read-only commands
    uses      explain/*, checking, lifecycle, watch, baseline, report, results, payload, formats, notebook, scoring, loadtest, verify, audit, classreport, parallel, sim/*, widgets/*
    cli       grader/cli

Every import counts, a function-local one too: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GRADER = ROOT / "grader"

LAYERS = ["base", "parsers", "records", "facts", "probes", "uses", "cli"]
_PLACE = [  # (module name pattern, layer): first match wins
    (r"grader$|grader\.(strictjson|failures|deadline|spark_names|ranges|redact\w*|calc(\..*)?|metrics)$", "base"),
    (r"grader\.parsers(\..*)?$", "parsers"),
    (r"grader\.(evidence|inventory|transport|provenance|lessons)$", "records"),
    (r"grader\.(facts(\..*)?|judges(\..*)?|diagnoses|diagnosis_details|diagnosis_runs|diagnosis_frames|diagnosis_paste|diagnosis_memory|nccl_env|lab|grading|ceiling|answers)$", "facts"),
    (r"grader\.probes(\..*)?$", "probes"),
    (r"grader\.(explain(\..*)?|checking|lifecycle|watch|baseline|report|results|payload|formats|notebook|scoring|loadtest|verify|audit|classreport|parallel|sim(\..*)?"
     r"|widgets(\..*)?)$", "uses"),
    (r"grader\.cli$", "cli"),
]


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(GRADER.rglob("*.py")) if "__pycache__" not in p.parts}


def layer(module: str) -> str:
    for pattern, name in _PLACE:
        if re.match(pattern, module):
            return name
    raise AssertionError(f"{module} is in no layer: add it to tests/test_layers.py _PLACE")


def imports(module: str) -> set[str]:
    """The grader modules ``module`` imports (resolving relative imports and ``from pkg import submodule``)."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = [target] + [f"{target}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name.startswith("grader") and name != module:
                out.add(name)
    return out


GRAPH = {m: imports(m) for m in MODULES}


def test_every_module_has_a_layer():
    for m in MODULES:
        layer(m)


def test_no_import_goes_up_a_layer():
    up = [f"{m} ({layer(m)}) imports {d} ({layer(d)})" for m, deps in GRAPH.items() for d in sorted(deps)
          if LAYERS.index(layer(d)) > LAYERS.index(layer(m))]
    assert not up, "imports from a lower layer to a higher one:\n" + "\n".join(up)


def test_parsers_facts_and_probes_keep_to_their_room():
    bad = []
    for m, deps in GRAPH.items():
        for d in deps:
            if layer(m) == "parsers" and layer(d) != "parsers" and d != "grader.metrics" and layer(d) != "base":
                bad.append(f"parser {m} imports {d}")
            if layer(m) == "facts" and layer(d) in ("probes", "uses", "cli"):
                bad.append(f"{m} imports {d}")
            if layer(m) == "probes" and d.startswith("grader.facts"):
                bad.append(f"probe {m} imports the judgment {d}")
    assert not bad, "\n".join(bad)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_circle():
    # a package's __init__ importing its own submodules (to re-export or register them) is how a package
    # is assembled, not a circle: leave those edges out
    graph = {m: {d for d in deps if not (MODULES[m].name == "__init__.py" and d.startswith(m + "."))}
             for m, deps in GRAPH.items()}
    assert not _cycles(graph), f"import circles: {_cycles(graph)}"


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_over_600_lines(module):
    n = len(MODULES[module].read_text().splitlines())
    assert n <= 600, f"{MODULES[module].relative_to(ROOT)} has {n} lines (split it by topic)"


# --------------------------------------------------------------------------- figures

def _numbers(tree: object) -> set[float]:
    out: set[float] = set()
    if isinstance(tree, dict):
        for k, v in tree.items():
            if k in ("min", "max", "value") and isinstance(v, (int, float)) and not isinstance(v, bool):
                out.add(float(v))
            else:
                out |= _numbers(v)
    elif isinstance(tree, list):
        for v in tree:
            out |= _numbers(v)
    return out


def _fmt(x: float) -> str:
    return f"{x:g}" if x != int(x) else str(int(x))


def _distinctive(x: float) -> bool:
    """A figure worth grepping for: an integer of 1,000 or more that is not a power of ten (9000, 200000),
    one from 100 to 999 that is not a multiple of 100 (126, 273, 575), and no power of two (128, 4096), or a number with three or more
    significant digits after its point (21.875, 1.02). Round numbers (2, 24, 200, 300, 600, 0.02) are
    written in code for other reasons (a count, a timeout, a file mode, HTTP 200) too often to tell."""
    if x == int(x):
        n = abs(int(x))
        if n & (n - 1) == 0:  # a power of two (128, 4096): a size
            return False
        return (n >= 1000 and str(n).rstrip("0") != "1") or (100 <= n < 1000 and n % 100 != 0)
    digits = _fmt(abs(x)).replace(".", "").lstrip("0")
    return len(digits) >= 3


def catalogue_figures() -> set[float]:
    """The distinctive figures (:func:`_distinctive`) of checks/ranges.toml and checks/specs/*.toml."""
    figs: set[float] = set()
    for f in [ROOT / "checks" / "ranges.toml", *sorted((ROOT / "checks" / "specs").glob("*.toml"))]:
        figs |= _numbers(tomllib.loads(f.read_text()))
    return {x for x in figs if _distinctive(x)}


SAME_NUMBER_OTHER_QUANTITY = {
    ("grader/calc/power.py", "350"): "club-3090 #698's power caps of 330-350 W, not the RTX 3090's TGP",
    ("grader/probes/lesson2.py", "200000"): "a read cap of 200,000 bytes for config.json, not a link speed",
    ("grader/sim/serve.py", "240"): "seconds the sim waits for its vLLM server to start, not a card's figure",
}
"""Where a catalogue figure's number is written in grader/ for another quantity: (file, figure) -> what it is."""


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
        # an attribute docstring: a bare string right after an assignment
        body = getattr(node, "body", None)
        if isinstance(body, list):
            for a, b in zip(body, body[1:]):
                if isinstance(a, (ast.Assign, ast.AnnAssign)) and isinstance(b, ast.Expr) \
                        and isinstance(b.value, ast.Constant) and isinstance(b.value.value, str):
                    ids.add(id(b.value))
    return ids


def figures_in_code() -> list[str]:
    """Where a catalogue figure is written in grader/ outside comments and docstrings: a number literal
    equal to it, or a string that shows it as a number (``"MTU 9000"``, ``"200000Mb/s"``)."""
    figs = catalogue_figures()
    word = {x: re.compile(rf"(?<![\w.]){re.escape(_fmt(x))}(?![\w.]|\.\d)") for x in figs}
    hits = []
    for m, path in MODULES.items():
        tree = ast.parse(path.read_text())
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Constant) or id(node) in docs:
                continue
            v = node.value
            rel = str(path.relative_to(ROOT))
            if isinstance(v, (int, float)) and not isinstance(v, bool) and float(v) in figs:
                if (rel, _fmt(float(v))) not in SAME_NUMBER_OTHER_QUANTITY:
                    hits.append(f"{rel}:{node.lineno}: {v!r}")
            elif isinstance(v, str):
                for x, rx in word.items():
                    if rx.search(v) and (rel, _fmt(x)) not in SAME_NUMBER_OTHER_QUANTITY:
                        hits.append(f"{rel}:{node.lineno}: {_fmt(x)} in {v[:80]!r}")
    return hits


def test_no_catalogue_figure_is_written_in_python():
    hits = figures_in_code()
    assert not hits, ("figures checks/ holds, written again in grader/ (read them from checks/ through "
                      "grader.ranges or grader.calc.specs):\n" + "\n".join(hits))


def test_the_figure_grep_finds_a_planted_figure(tmp_path, monkeypatch):
    planted = GRADER / "facts" / "_planted_figure_test.py"
    planted.write_text('"""Docstring 9000 is fine."""\nMTU = 9000\nWHY = f"set MTU 9000 on {MTU}"\n')
    try:
        MODULES["grader.facts._planted_figure_test"] = planted
        hits = [h for h in figures_in_code() if "_planted_figure_test" in h]
    finally:
        planted.unlink()
        del MODULES["grader.facts._planted_figure_test"]
    assert len(hits) == 2, hits


def test_the_distinctive_rule():
    assert all(_distinctive(x) for x in (9000, 200000, 21.875, 126, 273, 575, 1.02, 3000))
    assert not any(_distinctive(x) for x in (2, 24, 80, 128, 200, 300, 600, 1000, 4096, 10000, 0.02, 0.98, 25.0, 2.5))


def test_no_fixed_gid_index_in_advice():
    """The RoCE v2 GID index differs per node (3 on many, 5 or 7 on others): advice reads it from the node.
    (The sim's faults set a wrong index on purpose: grader/sim/ is not advice.)"""
    bad = []
    for m, path in MODULES.items():
        if m.startswith("grader.sim"):
            continue
        for i, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"GID_INDEX=\d", line) and not line.lstrip().startswith("#"):
                bad.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()[:100]}")
    assert not bad, "\n".join(bad)
