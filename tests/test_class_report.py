"""``clusterlab class-report`` on a generated class (tests/classgen.py): the per-check counts, the CSV, the
figures, the audit's flags, 1 worker against N, the messages of what cannot run, and the page in a real
browser (headless Debian Chromium through Playwright, as tests/test_browser.py launches it).

Every expectation is worked out here from the plan of the class (which learner handed in which golden
file), what tests/fixtures/golden/README.md says each file shows, and the profiles of checks/*.toml read
with tomllib; nothing from the grader's output.
"""

from __future__ import annotations

import csv
import html
import importlib.util
import io
import json
import shutil
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from tests.classgen import GOLDEN, ROOT, learner_names, make_class

pytestmark = pytest.mark.usefixtures("sim_own_work_off")  # grades the shipped sim evidence (conftest)

pytest.importorskip("nbformat", reason="nbformat is in the notebook extra: pip install -e '.[notebook]'")
pytest.importorskip("matplotlib", reason="matplotlib is in the notebook extra: pip install -e '.[notebook]'")

EVIL = "o'neil <img src=x onerror=alert(1)> & \"co\""
"""A learner id no HTML may show as markup (nbgrader takes any folder name as a student id)."""
LEARNERS = 12
SHOT = Path("/tmp/clusterlab-class-report.png")

NOTHING_STARTED = {"L2.ifname_vars", "L2.ib_hca", "L2.gid_index", "L2.env_same", "L2.ray_nodes", "L2.head_on_qsfp",
                   "L2.vllm_host_ip", "L2.parallel_sizes", "L2.kv_capacity", "L2.model_same", "L2.versions_same", "L2.launch"}
OUTCOMES = {
    # (assignment, case): (the evidence's profile, {check: status} for the checks that do not pass); the
    # golden README says what each file shows. Cases not listed hand in no usable evidence.
    ("lesson1", "healthy"): ("sim", {}),
    ("lesson1", "shared"): ("sim", {}),
    ("lesson1", "mtu1500"): ("sim", {"L1.mtu": "fail"}),
    ("lesson1", "inflated"): ("sim", {"L1.mtu": "fail"}),  # graded from its raw outputs: MTU 1500
    ("lesson2", "healthy"): ("sim", {}),
    ("lesson2", "nothing"): ("sim", dict.fromkeys(NOTHING_STARTED, "unmeasured")),
    ("lesson3", "healthy"): ("dual-gpu-desktop", {}),
    ("lab", "healthy"): ("sim", {}),
}
COLUMNS = ("pass", "warn", "fail", "unmeasured", "skip", "unusable")


def catalogue(lesson: str) -> list[dict]:
    return tomllib.loads((ROOT / "checks" / f"{lesson}.toml").read_text())["check"]


def expected_counts(plan) -> dict[tuple[str, str], dict[str, int]]:
    """{(assignment, check): {column: learners}} from the plan and OUTCOMES."""
    out: dict[tuple[str, str], Counter] = {}
    for (student, a), case in plan.items():
        if case.how == "missing":
            continue
        known = OUTCOMES.get((a, case.name))
        for c in catalogue(a):
            if known is None:
                status = "unusable"
            else:
                profile, wrong = known
                status = wrong.get(c["id"], "pass") if profile in c["profiles"] else "skip"
            out.setdefault((a, c["id"]), Counter())[status] += 1
    return {k: {col: v[col] for col in COLUMNS} for k, v in out.items()}


def machine_cells(assignment: str) -> dict[str, set[str]]:
    """{grade_id: the checks its grade_checks call grades} of the source notebook."""
    import nbformat

    from tests.helpers_notebooks import machine_calls, meta

    nb = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    return {meta(c)["grade_id"]: {i for call in machine_calls(c.source) for i in call["ids"]}
            for c in nb.cells if c.cell_type == "code" and meta(c).get("grade") and "grade_checks(" in c.source}


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    """The class (one learner named EVIL), its reports with 1 and 2 workers, and the files written."""
    from grader.classreport import build, check_rows, render_csv, render_html, write

    root = tmp_path_factory.mktemp("class") / "autograded"
    names = learner_names(LEARNERS)
    names[4] = EVIL
    plan = make_class(root, names)
    one = build(root, workers=1)
    many = build(root, workers=2)
    page, table = write(many, root.parent / "report.html")
    return {"root": root, "plan": plan, "one": one, "many": many, "page": page, "table": table,
            "html": page.read_text(), "csv": table.read_text(),
            "html1": render_html(one), "csv1": render_csv(check_rows(one))}


def test_one_worker_and_many_agree(klass):
    assert klass["one"].graded == klass["many"].graded
    assert klass["one"].shared == klass["many"].shared
    assert klass["csv1"] == klass["csv"]
    assert klass["html1"] == klass["html"]


def test_per_check_counts(klass):
    from grader.classreport import check_rows

    want = expected_counts(klass["plan"])
    got = {(r.assignment, r.check): r.counts for r in check_rows(klass["many"])}
    assert got == want
    # the failing learners of L1.mtu: the mtu1500 and inflated cases
    mtu = next(r for r in check_rows(klass["many"]) if r.check == "L1.mtu")
    assert set(mtu.failing) == {s for (s, a), c in klass["plan"].items() if a == "lesson1" and c.name in ("mtu1500", "inflated")}


def test_csv_parses_and_matches(klass):
    rows = list(csv.DictReader(io.StringIO(klass["csv"])))
    want = expected_counts(klass["plan"])
    assert {(r["assignment"], r["check"]): {c: int(r[c]) for c in COLUMNS} for r in rows} == want
    submitted = Counter(a for (s, a), c in klass["plan"].items() if c.how != "missing")
    assert all(int(r["learners"]) == submitted[r["assignment"]] for r in rows)
    mtu = next(r for r in rows if r["check"] == "L1.mtu")
    assert set(mtu["failing"].split(";")) == {s for (s, a), c in klass["plan"].items()
                                              if a == "lesson1" and c.name in ("mtu1500", "inflated")}
    assert klass["table"].stem == klass["page"].stem and klass["table"].suffix == ".csv"


def test_flags_are_the_doctored_and_shared_submissions(klass):
    plan, report = klass["plan"], klass["many"]
    above = {(s, a, cell) for (s, a), c in plan.items() if c.how == "tampered" for cell in machine_cells(a)}
    above |= {(s, "lesson1", cell) for (s, a), c in plan.items() if c.how == "inflated"
              for cell, ids in machine_cells("lesson1").items() if "L1.mtu" in ids}
    groups = Counter((a, c.how) for (s, a), c in plan.items() if c.how in ("shared", "replay"))
    shared = {(s, a) for (s, a), c in plan.items() if c.how in ("shared", "replay") and groups[(a, c.how)] >= 2}
    got = report.flagged
    assert {(r.student, r.assignment, r.cell) for r in got if r.status == "ABOVE"} == above
    assert {(r.student, r.assignment) for r in got if r.status == "SHARED"} == shared
    flagged_html = klass["html"].split('id="flagged"')[1].split("</table>")[0]
    for s, a, *_ in above | shared:
        assert f"<td>{html.escape(s)}</td><td>{a}</td>" in flagged_html, s


def test_figures_are_the_measured_values_against_their_ranges(klass):
    from grader.classreport import series

    plan = klass["plan"]

    def stored(name: str, *path: str) -> float:
        x = json.loads((GOLDEN / name).read_text())["facts"]
        for p in path:
            x = x[p]
        return x

    by = {(s.figure.fact, s.profile): s for s in series(klass["many"])}
    tcp = {"healthy": stored("lesson1-sim-healthy.json", "pair", "tcp_gbps"),
           "shared": stored("lesson1-sim-healthy.json", "pair", "tcp_gbps"),
           "mtu1500": stored("lesson1-sim-mtu-1500.json", "pair", "tcp_gbps"),
           "inflated": stored("lesson1-sim-mtu-1500.json", "pair", "tcp_gbps")}  # its raw outputs, not its facts
    want = sorted((c_, tcp[c.name]) for (c_, a), c in plan.items() if a == "lesson1" and c.name in tcp)
    got = by[("pair.tcp_gbps", "sim")]
    assert sorted(got.values) == want
    assert got.range["min"] == tomllib.loads((ROOT / "checks/ranges.toml").read_text())["sim"]["tcp_gbps"]["min"]
    kv = stored("lesson2-sim-healthy.json", "pair", "kv_ratio")
    assert [x for _, x in by[("pair.kv_ratio", "sim")].values] == [kv] * sum(
        1 for (s, a), c in plan.items() if (a, c.name) == ("lesson2", "healthy"))
    lab = by[("pair.c1.decode_tok_s", "sim")]
    assert lab.range is None and len(lab.values) == sum(1 for (s, a), c in plan.items() if (a, c.name) == ("lab", "healthy"))
    # what the sim does not measure is absent, not an empty plot
    assert not any(f in {k[0] for k in by} for f in ("pair.allgather_busbw_gbs", "pair.ib_write_bw_gbps"))
    # one <img> per series, each a PNG inside the page
    assert klass["html"].count('<img class="plot"') == len(by)
    assert klass["html"].count('src="data:image/png;base64,') == len(by)


def test_the_figures_are_the_measured_ones():
    """The figures plotted: every measurement a range judges (the brief's list), not the fixed specs (MTU,
    link speed, Ray's node and accelerator counts)."""
    from grader.classreport import figures_of

    got = {f.fact for f in figures_of(["lesson1", "lesson2", "lesson3", "lab"])}
    assert got == {"pair.tcp_gbps", "pair.allgather_busbw_gbs", "pair.ib_write_bw_gbps", "pair.kv_ratio",
                   "pair.c1.decode_tok_s", "baseline.c1.decode_tok_s", "pair.c1.median_tpot_ms",
                   "baseline.c1.median_tpot_ms", "pair.c1.p90_ttft_ms", "baseline.c1.p90_ttft_ms", "ratios.c1"}


def test_a_plot_against_a_ceiling_only():
    """A range with a max and no min (TTFT p90 on spark-pair): the band runs from the left edge; a value above
    it is named in the caption."""
    from grader.classreport import Figure, Series, _figure, plot_png
    from grader.ranges import expected_range

    r = expected_range("spark-pair", "lab_ttft_c1_p90_ms")
    assert "min" not in r and "max" in r
    s = Series(Figure("lab", "LAB.ttft_pair", "TTFT", "pair.c1.p90_ttft_ms", "lab_ttft_c1_p90_ms"), "spark-pair",
               (("ann", r["max"] / 3), ("<bob>", r["max"] * 2)), r)
    assert plot_png(s)[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Outside the range: &lt;bob&gt;." in _figure(s)


def test_the_page_is_self_contained_and_escaped(klass):
    page = klass["html"]
    assert EVIL not in page and "<img src=x" not in page
    assert html.escape(EVIL) in page
    lowered = page.lower()
    for bad in ("<script", "<link", "http://", "https://", "@import", "url("):
        assert bad not in lowered, bad
    assert "Content-Security-Policy" in page


def test_audit_with_one_and_many_workers(klass):
    from grader.audit import audit

    assert audit(klass["root"], workers=1) == audit(klass["root"], workers=3)


def test_command_line(klass, tmp_path, capsys):
    from grader.cli import main

    out = tmp_path / "r.html"
    assert main(["class-report", str(klass["root"]), "--out", str(out), "--workers", "2", "--assignment", "lesson1"]) == 1
    assert out.is_file() and out.with_suffix(".csv").is_file()
    assert "lesson2" not in out.with_suffix(".csv").read_text()
    capsys.readouterr()
    for argv, words in ((["class-report", str(tmp_path / "nowhere")], "no <student>/<assignment>"),
                        (["class-report", str(klass["root"]), "--workers", "0"], "--workers must be 1 or more"),
                        (["class-report", str(klass["root"]), "--ray", "auto"], "pip install ray"),
                        (["audit", str(klass["root"]), "--ray", "auto"], "pip install ray"),
                        (["class-report", str(klass["root"]), "--out", str(tmp_path / "r.csv")], ".html"),
                        (["class-report", str(klass["root"]), "--out", str(tmp_path / "no" / "dir" / "r.html")],
                         "cannot write")):
        if "--ray" in argv and importlib.util.find_spec("ray") is not None:
            continue  # Ray is installed here: the message is for where it is not
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


def test_broken_files_are_rows_not_crashes(tmp_path):
    """A notebook that is not one and evidence that is not JSON: the page says why, nothing raises."""
    from grader.classreport import build, check_rows, render_html

    d = tmp_path / "autograded" / "ann" / "lesson1"
    (d / "evidence").mkdir(parents=True)
    (d / "lesson1.ipynb").write_text("{ not a notebook")
    (d / "evidence" / "lesson1.json").write_text("[1, 2")
    report = build(tmp_path / "autograded", workers=1)
    page = render_html(report)
    assert "unreadable notebook" in page and "not JSON" in page
    assert all(r.counts["unusable"] == 1 for r in check_rows(report))


# ------------------------------------------------------------------------------------------ in a browser

CHROMIUM = Path("/usr/bin/chromium")


def test_the_page_in_a_browser(klass, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra: pip install -e '.[test]'")
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    from tests.test_browser import CHROMIUM_ARGS

    shot = tmp_path / "class-report.png"
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            requests: list[str] = []
            page.on("request", lambda r: requests.append(r.url))
            page.goto(klass["page"].as_uri())
            page.wait_for_load_state("load")
            page.screenshot(path=str(shot), full_page=True)
            plots = page.locator("img.plot")
            sizes = [plots.nth(i).bounding_box() for i in range(plots.count())]
            decoded = page.evaluate("() => [...document.querySelectorAll('img.plot')].map(i => i.naturalWidth)")
            table_visible = page.locator("#per-check").is_visible()
            table_box = page.locator("#per-check").bounding_box()
            rows = page.locator("#per-check tbody tr").count()
        finally:
            browser.close()
    shutil.copy(shot, SHOT)
    assert sizes and all(b is not None and b["width"] > 0 and b["height"] > 0 for b in sizes), sizes
    assert all(w > 0 for w in decoded), decoded
    assert table_visible and table_box["width"] > 0 and table_box["height"] > 0
    assert rows == len(expected_counts(klass["plan"]))
    assert [u for u in requests if not u.startswith(("file:", "data:"))] == []
