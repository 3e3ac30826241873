"""``clusterlab class-report``: after ``nbgrader autograde``, the whole class on one page.

One self-contained HTML file (no external resource: the plots are PNGs inside it, its styles inline, and
its Content-Security-Policy forbids loading anything else) and a CSV beside it (same stem):

- **per check**: how many learners pass, warn, fail, were not measured, n.a. (the check does not apply
  to their profile), and how many handed in no usable evidence (none, unreadable, edited, a replay, a
  profile its outputs do not show or the course does not accept): those are counted in that column only;
- **stuck**: the checks that fail for the most learners (where the course should explain better), with
  the learners and the hint the course gives them;
- **measured figures**: for every figure a check compares with a range (checks/*.toml ``in_range`` /
  ``all_in_range`` over a range that is not one fixed value, plus the KV capacity ratio that lesson 2's
  facts judge), its values across the class per profile as a strip plot, against the profile's range
  (shaded, its source and engine in the caption); a figure no learner's evidence holds is left out;
- **flagged by the audit**: the grade cells the kernel scored above their evidence, and the recordings
  shared between students (grader.audit);
- **submissions**: one row each, with what its evidence earns and why it earns nothing when it does not.

Every submission is graded from its evidence by grader.checking.grade_file (grader.audit.grade_all), never
from the scores its notebook claims. Learner names and evidence text are escaped (html.escape) wherever
they appear; in the CSV a cell that a spreadsheet would run as a formula is prefixed with ``'``.
"""

from __future__ import annotations

import base64
import csv
import html
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader import __version__, lessons
from grader.audit import CellAudit, GradedSubmission, LessonGrade, grade_all, shared_evidence
from grader.grading import LABELS, describe_range, load_catalogue
from grader.ranges import expected_range, load_ranges

COLUMNS = ("pass", "warn", "fail", "unmeasured", "skip", "unusable")
"""The per-check counts, in table order: grader.grading's statuses, then ``unusable`` (no usable evidence)."""
HEADINGS = {**{s: LABELS[s].lower() if s != "skip" else LABELS[s] for s in COLUMNS[:-1]},
            "unusable": "no usable evidence"}
STUCK_SHOWN = 5
"""How many of the most failed checks the page lists under "Stuck"."""
NAMES_SHOWN = 30
"""How many learner names a list shows before "and N more"."""


class ReportError(Exception):
    """The report could not be written (the message is one line naming the fix)."""


@dataclass(frozen=True)
class Figure:
    """A measured figure: the fact path (grader.grading.lookup) in ``lesson``'s facts, the range of
    checks/ranges.toml it is compared with, and the check that compares it (its title)."""

    lesson: str
    check: str
    title: str
    fact: str
    range: str


EXTRA_FIGURES = (
    # L2.kv_capacity compares this ratio with [*.kv_capacity_ratio] inside grader/facts/lesson2_serve.py
    # (_kv_facts), not through an in_range expectation of checks/lesson2.toml
    Figure("lesson2", "L2.kv_capacity", "KV cache tokens the vLLM log reports / tokens the arithmetic from "
           "config.json predicts", "pair.kv_ratio", "kv_capacity_ratio"),
)


def _one_value(range_name: str) -> bool:
    """Every profile's range ``range_name`` is one fixed value (min == max: a spec such as MTU 9000, not a
    measurement that spreads across a class)."""
    found = [r for prof in load_ranges().values() for name, r in prof.items() if name == range_name]
    return bool(found) and all(r.get("min") is not None and r.get("min") == r.get("max") for r in found)


def figures_of(names: tuple[str, ...] | list[str]) -> tuple[Figure, ...]:
    """The measured figures of the lessons ``names`` (those with machine checks), catalogue order."""
    out = []
    for lesson in names:
        if lesson not in lessons.checked():
            continue
        for c in load_catalogue(lesson):
            ranged = [e for e in c["expect"] if e["op"].endswith("in_range")]
            specs = {e["fact"] for e in ranged if _one_value(e["range"])}  # (a spec's looser band: still a spec)
            for e in ranged:
                if not _one_value(e["range"]) and e["fact"] not in specs:
                    out.append(Figure(lesson, c["id"], c["title"], e["fact"], e["range"]))
        out += [f for f in EXTRA_FIGURES if f.lesson == lesson]
    return tuple(out)


@dataclass(frozen=True)
class CheckRow:
    """One check across the class: ``counts`` {column of COLUMNS: learners}, ``failing`` the students whose
    check failed (sorted), ``learners`` the submissions of its assignment."""

    assignment: str
    check: str
    title: str
    hint: str
    counts: dict[str, int]
    failing: tuple[str, ...]
    learners: int


@dataclass(frozen=True)
class Series:
    """One figure on one profile: ``values`` ((student, number), ...) sorted by number then student, and
    the profile's range (None: checks/ranges.toml has none for this profile)."""

    figure: Figure
    profile: str
    values: tuple[tuple[str, float], ...]
    range: dict[str, Any] | None


@dataclass
class ClassReport:
    """A graded class: ``graded`` one entry per submission (grader.audit.grade_all, path order),
    ``shared`` the SHARED rows of grader.audit.shared_evidence, ``students`` everyone with a submission."""

    root: str
    assignment: str | None
    graded: list[GradedSubmission]
    shared: list[CellAudit]
    figures: tuple[Figure, ...]
    students: tuple[str, ...] = field(default=())

    @property
    def cells(self) -> list[CellAudit]:
        """Every audited machine grade cell, then the SHARED rows (what ``clusterlab audit`` lists)."""
        return [c for g in self.graded for c in g.cells] + self.shared

    @property
    def flagged(self) -> list[CellAudit]:
        """The rows that need the instructor (grader.audit.flagged): ABOVE cells and SHARED recordings."""
        return [c for c in self.cells if c.status in ("ABOVE", "SHARED")]

    def assignments(self) -> list[str]:
        """The assignments handed in, in course order (grader.lessons), unknown names last."""
        seen = {g.assignment for g in self.graded}
        return [n for n in lessons.names() if n in seen] + sorted(seen - set(lessons.names()))


def build(autograded: str | Path, assignment: str | None = None, *, workers: int | None = None,
          ray_address: str | None = None) -> ClassReport:
    """Grade every submission under nbgrader's ``autograded`` folder from its evidence (in ``workers``
    processes or on Ray, grader.parallel) and audit it. Raises grader.audit.AuditError (no submissions
    there) and grader.parallel.PoolError."""
    figs = figures_of(lessons.names() if assignment is None else [assignment])
    graded = grade_all(autograded, assignment, figures=tuple(dict.fromkeys(f.fact for f in figs)), workers=workers,
                       ray_address=ray_address)
    shared = shared_evidence(autograded, assignment)
    return ClassReport(str(Path(autograded).expanduser()), assignment, graded, shared, figs,
                       tuple(sorted({g.student for g in graded})))


def _grade_of(g: GradedSubmission, lesson: str) -> LessonGrade | None:
    return next((x for x in g.lessons if x.lesson == lesson), None)


def check_rows(report: ClassReport) -> list[CheckRow]:
    """Per check of each assignment with machine checks: how many learners have each status (COLUMNS)."""
    rows = []
    for name in report.assignments():
        if name not in lessons.checked():
            continue
        subs = [g for g in report.graded if g.assignment == name]
        for c in load_catalogue(name):
            counts = dict.fromkeys(COLUMNS, 0)
            failing = []
            for g in subs:
                lg = _grade_of(g, name)
                status = dict(lg.statuses).get(c["id"]) if lg is not None and not lg.unusable else None
                counts[status or "unusable"] += 1
                if status == "fail":
                    failing.append(g.student)
            rows.append(CheckRow(name, c["id"], c["title"], c["hint"], counts, tuple(sorted(failing)), len(subs)))
    return rows


def stuck(rows: list[CheckRow]) -> list[CheckRow]:
    """The checks that fail for the most learners (at least one), most first, at most STUCK_SHOWN."""
    order = {r.check: i for i, r in enumerate(rows)}
    failed = sorted((r for r in rows if r.counts["fail"]), key=lambda r: (-r.counts["fail"], order[r.check]))
    return failed[:STUCK_SHOWN]


def series(report: ClassReport) -> list[Series]:
    """Each figure's values per profile from the usable evidence (a figure nobody measured is left out)."""
    out = []
    for fig in report.figures:
        by_profile: dict[str, list[tuple[str, float]]] = {}
        for g in report.graded:
            lg = _grade_of(g, fig.lesson)
            if lg is None or lg.unusable or lg.profile is None:
                continue
            for x in dict(lg.figures).get(fig.fact, ()):
                by_profile.setdefault(lg.profile, []).append((g.student, x))
        for profile in sorted(by_profile):
            values = tuple(sorted(by_profile[profile], key=lambda sv: (sv[1], sv[0])))
            out.append(Series(fig, profile, values, expected_range(profile, fig.range)))
    return out


# ---------------------------------------------------------------------------------------------- the plots


def _outside(x: float, r: dict[str, Any] | None) -> bool:
    return r is not None and (("min" in r and x < r["min"]) or ("max" in r and x > r["max"]))


def plot_png(s: Series) -> bytes:
    """A strip plot of ``s``'s values (one dot per value, spread vertically so equal values stay apart; red
    outside the range) over the profile's range shaded green; PNG bytes, the same for the same series."""
    try:
        import matplotlib
    except ImportError:
        raise ReportError("class-report draws its plots with matplotlib: pip install matplotlib "
                          "(or clusterlab's notebook extra)") from None
    if matplotlib.get_backend().lower() != "agg":
        matplotlib.use("Agg")
    from matplotlib.figure import Figure as MplFigure

    xs = [x for _, x in s.values]
    r = s.range or {}
    lo, hi = r.get("min"), r.get("max")
    span = [v for v in (*xs, lo, hi) if v is not None]
    left, right = min(span), max(span)
    pad = (right - left) * 0.08 or abs(right) * 0.1 or 1.0
    left, right = left - pad, right + pad
    fig = MplFigure(figsize=(7.5, 2.2), dpi=100)
    ax = fig.add_subplot()
    if s.range is not None:
        ax.axvspan(left if lo is None else lo, right if hi is None else hi, color="#2da44e", alpha=0.18, lw=0)
        for edge in (lo, hi):
            if edge is not None:
                ax.axvline(edge, color="#1a7f37", lw=1)
    ys = [((i * 0.618034) % 1.0) - 0.5 for i in range(len(xs))]  # golden-ratio steps: spread, repeatable
    colours = ["#cf222e" if _outside(x, s.range) else "#0969da" for x in xs]
    ax.scatter(xs, ys, s=22, c=colours, alpha=0.75, edgecolors="none")
    ax.set_xlim(left, right)
    ax.set_ylim(-0.9, 0.9)
    ax.set_yticks([])
    ax.set_xlabel(r.get("unit") or _unit_anywhere(s.figure.range))
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def _unit_anywhere(range_name: str) -> str:
    """The unit any profile gives ``range_name`` (for a profile that has no such range)."""
    return next((p[range_name]["unit"] for p in load_ranges().values() if range_name in p), "")


# ---------------------------------------------------------------------------------------------- the page

_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 80em; padding: 0 1em; color: #1f2328; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.8em; border-bottom: 1px solid #d0d7de; }
table { border-collapse: collapse; margin: .5em 0; } div.scroll { overflow-x: auto; }
th, td { border: 1px solid #d0d7de; padding: .2em .5em; vertical-align: top; }
td.why { overflow-wrap: anywhere; min-width: 20em; } td.flag, td.n, td.st { white-space: nowrap; }
th { background: #f6f8fa; text-align: left; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
td.pass { background: #dafbe1; } td.warn { background: #fff8c5; } td.fail { background: #ffebe9; }
td.unmeasured { background: #eaeef2; } td.unusable { background: #fbefff; } td.zero { color: #8c959f; }
h3 { font-size: 1em; margin: 1.4em 0 .3em; } figure { margin: 0 0 1.5em; } figcaption { font-size: .9em; color: #57606a; max-width: 60em; }
img.plot { display: block; width: 750px; max-width: 100%; height: auto; border: 1px solid #d0d7de; }
.flag { color: #cf222e; font-weight: 600; } .small { font-size: .85em; color: #57606a; }
"""
_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
"""Nothing outside the file may load: images only as data: URLs, styles only inline."""


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _names(names: list[str] | tuple[str, ...]) -> str:
    shown = ", ".join(_e(n) for n in names[:NAMES_SHOWN])
    return shown + (f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else "")


def _table(head: list[str], rows: list[str], css_id: str = "") -> str:
    ident = f' id="{css_id}"' if css_id else ""
    return (f'<div class="scroll"><table{ident}><thead><tr>' + "".join(f"<th>{_e(h)}</th>" for h in head)
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>")


def _summary(report: ClassReport) -> str:
    parts = []
    for name in report.assignments():
        have = {g.student for g in report.graded if g.assignment == name}
        missing = [s for s in report.students if s not in have]
        parts.append(f"<li><b>{_e(name)}</b>: {len(have)} of {len(report.students)} learners handed it in"
                     + (f"; not: {_names(missing)}" if missing else "") + "</li>")
    return "<ul>" + "".join(parts) + "</ul>"


def _check_table(rows: list[CheckRow]) -> str:
    body = []
    for r in rows:
        cells = "".join(f'<td class="n {c if r.counts[c] else "zero"}">{r.counts[c]}</td>' for c in COLUMNS)
        body.append(f"<tr><td>{_e(r.assignment)}</td><td>{_e(r.check)}</td><td>{_e(r.title)}</td>{cells}</tr>")
    return _table(["assignment", "check", "title"] + [HEADINGS[c] for c in COLUMNS], body, "per-check")


def _stuck(rows: list[CheckRow]) -> str:
    top = stuck(rows)
    if not top:
        return "<p>No check fails for any learner.</p>"
    items = [f"<li><b>{_e(r.check)}</b> ({_e(r.title)}): fails for {r.counts['fail']} of {r.learners} learners: "
             f"{_names(r.failing)}<br><span class=small>the hint they get: {_e(r.hint)}</span></li>" for r in top]
    return "<ol>" + "".join(items) + "</ol>"


def _figure(s: Series) -> str:
    png = base64.b64encode(plot_png(s)).decode("ascii")
    xs = [x for _, x in s.values]
    out = [n for n, x in s.values if _outside(x, s.range)]
    where = (f"range {_e(describe_range(s.range))} on {_e(s.profile)}; source: {_e(s.range['source'])} "
             f"[holds for: {_e(s.range['engine'])}]" if s.range is not None
             else f"no range for profile {_e(s.profile)} in checks/ranges.toml [{_e(s.profile)}.{_e(s.figure.range)}]")
    learners = len({n for n, _ in s.values})
    spread = f"{min(xs):.4g} to {max(xs):.4g}" if min(xs) < max(xs) else f"all {xs[0]:.4g}"
    caption = (f"<b>{_e(s.figure.fact)}</b> ({_e(s.figure.check)}: {_e(s.figure.title)}), profile "
               f"<b>{_e(s.profile)}</b>: {len(xs)} values from {learners} learners, {spread}. Shaded: {where}."
               + (f' <span class="flag">Outside the range: {_names(out)}.</span>' if out else ""))
    alt = f"{s.figure.fact} on {s.profile}: {len(xs)} values"
    return (f"<h3>{_e(s.figure.check)}: {_e(s.figure.fact)} on {_e(s.profile)}</h3>"
            f'<figure><img class="plot" alt="{_e(alt)}" src="data:image/png;base64,{png}">'
            f"<figcaption>{caption}</figcaption></figure>")


def _course_order(report: ClassReport) -> dict[str, int]:
    return {name: i for i, name in enumerate(report.assignments())}


def _short(report: ClassReport, text: str) -> str:
    """``text`` with the autograded folder (named in the page's title) left out of the paths it names."""
    return text.replace(report.root.rstrip("/") + "/", "")


def _flags(report: ClassReport) -> str:
    order = _course_order(report)
    rows = [f'<tr><td class="flag">{_e(c.status)}</td><td>{_e(c.student)}</td><td>{_e(c.assignment)}</td>'
            f'<td>{_e(c.cell)}</td><td class="n">{c.kernel:g}</td><td class="n">{c.evidence:g}</td>'
            f'<td class="why">{_e(_short(report, c.why))}</td></tr>'
            for c in sorted(report.flagged, key=lambda c: (c.status, order.get(c.assignment, 0), c.student, c.cell))]
    if not rows:
        return "<p>Nothing flagged: every machine grade cell agrees with its evidence and no recording is shared.</p>"
    return _table(["status", "student", "assignment", "cell / file", "kernel", "evidence", "why"], rows, "flagged")


def _submissions(report: ClassReport) -> str:
    rows, order = [], _course_order(report)
    for g in sorted(report.graded, key=lambda g: (order.get(g.assignment, 0), g.student)):
        lg = _grade_of(g, g.assignment)
        st = list(dict(lg.statuses).values()) if lg is not None and not lg.unusable else []
        checks = ", ".join(f"{st.count(c)} {HEADINGS[c]}" for c in COLUMNS[:-1] if st.count(c))
        kernel, earned = sum(c.kernel for c in g.cells), sum(c.evidence for c in g.cells)
        flags = sorted({c.status for c in g.cells if c.status in ("ABOVE", "below")}
                       | {c.status for c in report.shared if (c.student, c.assignment) == (g.student, g.assignment)})
        why = "; ".join(([lg.unusable] if lg is not None and lg.unusable else list(lg.notes) if lg is not None else [])
                        + [c.why for c in g.cells if c.cell == "-"])
        profile = lg.profile if lg is not None and lg.profile else "-"
        rows.append(f"<tr><td>{_e(g.student)}</td><td>{_e(g.assignment)}</td><td>{_e(profile)}</td>"
                    f'<td class="st">{_e(checks or "-")}</td><td class="n">{kernel:g}</td><td class="n">{earned:g}</td>'
                    f'<td class="flag">{_e(" ".join(flags))}</td><td class="why">{_e(_short(report, why))}</td></tr>')
    return _table(["student", "assignment", "profile", "checks", "kernel points", "evidence points", "audit", "why"],
                  rows, "submissions")


def render_html(report: ClassReport, rows: list[CheckRow] | None = None) -> str:
    """The whole page as one HTML string (plots inside as data: URLs; every name and text escaped)."""
    rows = check_rows(report) if rows is None else rows
    plots = series(report)
    figures = "".join(_figure(s) for s in plots) or "<p>No measured figure in this class's evidence.</p>"
    title = f"Class report: {report.root}" + (f" ({report.assignment})" if report.assignment else "")
    n_flag = len(report.flagged)
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f"<p>{len(report.graded)} submissions from {len(report.students)} learners, each graded from its evidence "
        f"(clusterlab {_e(__version__)}, <code>grade_file</code>: every fact derived again from the raw outputs), "
        f"not from the scores its notebook shows. "
        + (f'<span class="flag">{n_flag} flagged by the audit.</span>' if n_flag else "Nothing flagged by the audit.")
        + "</p>", _summary(report),
        "<h2>Per check</h2><p class=small>Learners per status. <i>no usable evidence</i>: none handed in, unreadable, "
        "edited after recording, a replay shipped with the labs, a profile its outputs do not show or the course "
        "does not accept; those learners are counted there only.</p>", _check_table(rows),
        "<h2>Stuck: the checks that fail for the most learners</h2>", _stuck(rows),
        "<h2>Measured figures</h2><p class=small>One dot per value (red: outside the range); the shaded band is the "
        "profile's range from checks/ranges.toml. Values come from usable evidence only.</p>", figures,
        "<h2>Flagged by the audit</h2>", _flags(report),
        "<h2>Submissions</h2>", _submissions(report),
        "</body></html>", ""])


def _cell(x: Any) -> Any:
    """A CSV cell a spreadsheet will not run as a formula (OWASP: a leading = + - @ tab or CR gets a ')."""
    return "'" + x if isinstance(x, str) and x[:1] in ("=", "+", "-", "@", "\t", "\r") else x


def render_csv(rows: list[CheckRow]) -> str:
    """The per-check table as CSV: assignment, check, title, one column per COLUMNS entry, learners, and
    the failing learners joined by ``;``."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["assignment", "check", "title", *COLUMNS, "learners", "failing"])
    for r in rows:
        w.writerow([_cell(r.assignment), _cell(r.check), _cell(r.title), *(r.counts[c] for c in COLUMNS),
                    r.learners, _cell(";".join(r.failing))])
    return buf.getvalue()


def write(report: ClassReport, out: str | Path) -> tuple[Path, Path]:
    """Write the page to ``out`` and the per-check CSV beside it (same stem, ``.csv``); return both paths.
    Raises ReportError when they cannot be written (or matplotlib is missing)."""
    page = Path(out).expanduser()
    table = page.with_suffix(".csv")
    if table == page:
        raise ReportError(f"--out {out}: give the page a name ending in .html (the CSV goes beside it as .csv)")
    rows = check_rows(report)
    text = render_html(report, rows)
    try:
        page.write_text(text, encoding="utf-8")
        table.write_text(render_csv(rows), encoding="utf-8")
    except OSError as e:
        raise ReportError(f"cannot write {e.filename or page}: {e.strerror or e}") from None
    return page, table
