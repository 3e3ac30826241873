"""Execute a course notebook headless (nbclient) in a scratch copy of its folder, and read the result.

As a script, for authors: ``.venv/bin/python tests/helpers_notebooks.py solutions/lesson1/lesson1.ipynb``
copies ``solutions/lesson1/`` to a temporary folder (outside ``solutions/``, so evidence may be
written), runs every cell top to bottom against the inventory in ``$CLUSTERLAB_INVENTORY`` (or the
running sim's), and prints each grade cell's score and any error.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from grader.ceiling import machine_calls  # noqa: F401  (the tests import it from here too)

ROOT = Path(__file__).resolve().parent.parent


def meta(cell: Any) -> dict:
    """A cell's nbgrader metadata ({} when it has none)."""
    return cell.get("metadata", {}).get("nbgrader", {})


def cells_by_id(path: Path) -> dict:
    """{grade_id: cell} of a source notebook, in order."""
    import nbformat

    return {meta(c)["grade_id"]: c for c in nbformat.read(path, as_version=4).cells}


def as_released(source: str) -> str:
    """An answer cell as nbgrader releases it: the solution region replaced by its code stub."""
    return re.sub(r"### BEGIN SOLUTION.*?### END SOLUTION", "# YOUR CODE HERE\nraise NotImplementedError()",
                  source, flags=re.S)


def execute(notebook: Path, workdir: Path, env: dict[str, str] | None = None, timeout: int = 600) -> Any:
    """Copy ``notebook``'s folder into ``workdir``, execute it there, return the executed notebook.

    Cells run with ``allow_errors=True``: the caller inspects the outputs (see :func:`problems`).
    ``env`` is added to the kernel's environment. Raises nbclient's errors only for a dead kernel
    or a cell over ``timeout`` seconds.
    """
    import nbformat
    from nbclient import NotebookClient

    src = notebook.parent
    shutil.copytree(src, workdir, dirs_exist_ok=True, ignore=shutil.ignore_patterns("evidence", ".ipynb_checkpoints"))
    nb = nbformat.read(workdir / notebook.name, as_version=4)
    saved = dict(os.environ)
    os.environ.update(env or {})
    os.environ.pop("NBGRADER_EXECUTION", None)
    try:
        client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                                resources={"metadata": {"path": str(workdir)}})
        client.execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    nbformat.write(nb, workdir / notebook.name)
    return nb


def not_applicable_cells(nb: Any, profile: str) -> set[str]:
    """Grade ids of the machine grade cells none of whose checks applies to ``profile`` (checks/*.toml
    ``profiles``): they earn 0 there, saying where the checks apply."""
    from grader.grading import load_catalogue

    out = set()
    for cell in nb.cells:
        calls = machine_calls(cell.source) if cell.cell_type == "code" and meta(cell).get("grade") else []
        applies = {c["id"]: profile in c["profiles"] for call in calls for c in load_catalogue(call["lesson"])}
        if calls and not any(applies[i] for call in calls for i in call["ids"]):
            out.add(meta(cell)["grade_id"])
    return out


def grade_cells(nb: Any) -> list[dict[str, Any]]:
    """Every nbgrader grade cell: ``{"id", "points", "score", "stderr", "error"}``.

    ``score`` follows nbgrader's rule (shared/research/grading.md §2.8): an error or any stderr
    output scores 0; a float last expression is partial credit capped at the points; else full.
    """
    rows = []
    for cell in nb.cells:
        m = meta(cell)
        if cell.cell_type != "code" or not m.get("grade"):
            continue
        outs = cell.get("outputs", [])
        err = next((f"{o.get('ename')}: {o.get('evalue')}" for o in outs if o.output_type == "error"), None)
        stderr = "".join(o.get("text", "") for o in outs if o.output_type == "stream" and o.get("name") == "stderr")
        points = float(m.get("points", 0))
        score = points
        for o in outs:
            if o.output_type == "execute_result":
                try:
                    score = min(points, float(o["data"]["text/plain"]))
                except (KeyError, ValueError):
                    pass
        if err or stderr:
            score = 0.0
        rows.append({"id": m.get("grade_id"), "points": points, "score": score, "stderr": stderr, "error": err})
    return rows


def assert_full_marks(nb: Any, name: str, workdir: Path, profile: str = "sim") -> None:
    """The executed notebook ``nb`` (run in ``workdir``) raised no error and every grade cell earned its full
    points, except the machine cells none of whose checks applies to ``profile``: those earn 0 and say so."""
    errors = problems(nb)
    assert errors == [], f"{name}: cells raised errors (executed copy: {workdir}):\n" + "\n".join(errors)
    printed = {meta(c).get("grade_id"):
               "".join(o.get("text", "") for o in c.get("outputs", []) if o.get("name") == "stdout") for c in nb.cells}
    na = not_applicable_cells(nb, profile)
    rows = grade_cells(nb)
    assert rows, f"{name} has no grade cell"
    short = [f"{r['id']}: {r['score']:g}/{r['points']:g}" + (f" stderr={r['stderr'][:300]!r}" if r["stderr"] else "")
             + f" printed={printed.get(r['id'], '')[:300]!r}" for r in rows
             if r["score"] < r["points"] and r["id"] not in na]
    for r in rows:
        if r["id"] in na:
            assert r["score"] == 0 and f"none of these checks applies to profile {profile}" in printed[r["id"]], r
    assert short == [], f"{name}: grade cells below full points (executed copy: {workdir}):\n" + "\n".join(short)


def problems(nb: Any) -> list[str]:
    """Every error output of any cell, as ``"<grade_id or cell n>: ename: evalue"``."""
    out = []
    for i, cell in enumerate(nb.cells):
        name = meta(cell).get("grade_id") or f"cell {i}"
        for o in cell.get("outputs", []):
            if o.output_type == "error":
                out.append(f"{name}: {o.get('ename')}: {o.get('evalue')}")
    return out


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    nb_path = Path(argv[0]).resolve()
    work = Path(tempfile.mkdtemp(prefix=f"clusterlab-{nb_path.stem}-"))
    nb = execute(nb_path, work)
    for row in grade_cells(nb):
        print(f"{row['id']}: {row['score']:g}/{row['points']:g}" + (f"  ERROR {row['error']}" if row["error"] else "")
              + (f"  STDERR {row['stderr'][:200]!r}" if row["stderr"] else ""))
    for p in problems(nb):
        print("problem:", p)
    print(f"executed copy: {work / nb_path.name}")
    return 1 if problems(nb) or any(r["score"] < r["points"] for r in grade_cells(nb)) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
