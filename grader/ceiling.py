"""What a course notebook can earn, per profile: the answer of "if I only have one Spark, what can I get?".

Read from the notebook's own nbgrader grade cells and the catalogue's ``profiles`` (checks/<lesson>.toml), with
the rule the grade cells use (:func:`grader.scoring.score_checks`): a machine grade cell
(``cl.grade_checks(lesson, [check ids], points=N)``) earns up to its points on a profile when at least one of
its checks applies there, and 0 when none does (n.a. is never full points); any other grade cell (an answer
checked by its tests) can earn its points on every profile. Pure: reads files, prints nothing.

    ceilings(Path("labs/lesson2/lesson2.ipynb"))  # {profile: Ceiling}, for each of inventory.PROFILES
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path

from grader.grading import load_catalogue
from grader.inventory import PROFILES


def machine_calls(source: str) -> list[dict]:
    """Every ``cl.grade_checks(lesson, [ids], points=N)`` in ``source`` as ``{lesson, ids, points}``
    ([] for source that is not Python, e.g. a cell of shell magics)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "grade_checks":
            args = [ast.literal_eval(a) for a in node.args]
            kw = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
            out.append({"lesson": args[0], "ids": list(args[1]),
                        "points": kw.get("points", args[2] if len(args) > 2 else None)})
    return out


@dataclass
class Ceiling:
    """One profile's ceiling in one notebook. Points as nbgrader counts them."""

    profile: str
    total: float
    """Every grade cell's points."""
    earnable: float
    """What the profile can earn at most."""
    machine_total: float
    machine_earnable: float
    nothing_here: list[str] = field(default_factory=list)
    """Grade ids of the machine cells none of whose checks applies to the profile."""


def ceilings(notebook: Path) -> dict[str, Ceiling]:
    """``{profile: Ceiling}`` for ``notebook`` (an .ipynb with nbgrader metadata). Raises OSError or
    ValueError when the file cannot be read as a notebook."""
    nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    cells = []
    for cell in nb.get("cells", []):
        meta = (cell.get("metadata") or {}).get("nbgrader") or {}
        if not meta.get("grade"):
            continue
        source = "".join(cell.get("source") or [])
        calls = machine_calls(source) if cell.get("cell_type") == "code" else []
        cells.append((meta.get("grade_id", "?"), float(meta.get("points") or 0), calls))
    applies: dict[tuple[str, str], set[str]] = {}
    for _, _, calls in cells:
        for call in calls:
            for c in load_catalogue(call["lesson"]):
                applies[(call["lesson"], c["id"])] = set(c["profiles"])
    out = {}
    for profile in PROFILES:
        ceiling = Ceiling(profile, 0.0, 0.0, 0.0, 0.0)
        for grade_id, points, calls in cells:
            ceiling.total += points
            if not calls:
                ceiling.earnable += points
                continue
            ceiling.machine_total += points
            if any(profile in applies.get((call["lesson"], i), set()) for call in calls for i in call["ids"]):
                ceiling.earnable += points
                ceiling.machine_earnable += points
            else:
                ceiling.nothing_here.append(grade_id)
        out[profile] = ceiling
    return out


def render(notebook: Path) -> str:
    """The table a notebook's "what can I earn" cell prints: per profile, the notebook's ceiling and the
    machine grade cells that earn nothing there."""
    table = ceilings(notebook)
    lines = [f"What {Path(notebook).name} can earn, per profile (from its grade cells and checks/*.toml):",
             f"{'profile':18} {'at most':>9} {'machine cells':>14}  cells that earn nothing on it"]
    for p, c in table.items():
        lines.append(f"{p:18} {c.earnable:>4g}/{c.total:<4g} {c.machine_earnable:>6g}/{c.machine_total:<6g}  "
                     f"{', '.join(c.nothing_here) or '-'}")
    lines.append("A machine cell earns nothing where none of its checks applies (n.a. is not full points): record "
                 "that lesson where they apply, or ask whether your course accepts the sim there.")
    return "\n".join(lines)
