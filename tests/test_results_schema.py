"""Machine-readable results (issue 16): every JSON the command line prints validates against the schema
shipped in the package, the shipped schema files are what grader/results.py generates, and JUnit XML and
TAP say what the JSON says, with the same exit status in every format.

The payloads are the command line's own: ``grade`` on every golden and every shipped recorded evidence
file (under each profile too), ``audit`` on an autograded folder built here, ``check``, ``check
--watch`` and ``verify`` against a real OpenSSH sshd on 127.0.0.1 (tests/helpers_sshd.py: a spark-pair
inventory whose spark-b has a public key for its key file, so spark-b is unreachable), ``explain
--json`` on every real, captured and field output (and the break-it campaign's pastes), ``loadtest``
answered by the lab's recorded vllm bench serve results, and ``sim status`` reading sim states as ``sim
up`` writes them (the live sim's own: tests/test_sim.py, tests/test_sim_serve.py and
tests/test_verify_sim.py validate what they print too). What each test expects is worked out from the
JSON payload's verdicts and rows, not from grader.formats."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import nbformat
import pytest
import yaml
from jsonschema import Draft202012Validator
from junitparser import Error, Failure, JUnitXml, Skipped

from grader.cli import main
from grader.results import DOCS_SCHEMA_FILE, SCHEMA_FILE, SCHEMA_VERSION, schema_text
from tests.conftest import real_fixtures_root
from tests.helpers_schema import VALIDATOR, valid
from tests.test_robust import ADV, cli, pair_inventory, sshd, strict  # noqa: F401 - sshd: the loopback sshd fixture

pytestmark = pytest.mark.usefixtures("sim_own_work_off")  # grades the shipped sim evidence (conftest)

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = sorted((ROOT / "tests" / "fixtures" / "golden").glob("*.json"))
RECORDED = sorted(ROOT.glob("solutions/*/recorded/*.json"))
PROFILES = ("spark-pair", "single-spark", "dual-gpu-desktop", "sim")


def run(capsys, *args: str) -> tuple[int, str]:
    """``clusterlab ARGS`` in this process: (exit status, stdout); stderr must hold no traceback."""
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return code, out


def expected_exit(p: dict) -> int:
    """The exit-status contract for a lesson report: 1 when a check failed or was not measured, or the
    evidence earns nothing whatever its verdicts; else 0."""
    return 1 if p["unfit"] or any(v["status"] in ("fail", "unmeasured") for v in p["verdicts"]) else 0


# ------------------------------------------------------------------------------------------- the schema


def test_the_shipped_schema_files_are_what_the_models_generate():
    assert SCHEMA_FILE.read_text() == schema_text(), "run: python -m grader.results"
    assert (ROOT / DOCS_SCHEMA_FILE).read_text() == schema_text(), "run: python -m grader.results"
    Draft202012Validator.check_schema(json.loads(schema_text()))


def test_the_schema_refuses_what_the_contract_does_not_name(capsys):
    _, out = run(capsys, "grade", str(GOLDEN[0]), "--json")
    good = valid(json.loads(out))
    assert good["schema_version"] == SCHEMA_VERSION and good["kind"] == "grade"
    bad = [{**good, "surprise": 1}, {**good, "schema_version": "0.9"}, {**good, "kind": "explain"},
           {k: v for k, v in good.items() if k != "schema_version"},
           {**good, "verdicts": [{**good["verdicts"][0], "status": "ok"}]},
           {**good, "counts": {**good["counts"], "maybe": 0}}]
    for payload in bad:
        assert not VALIDATOR.is_valid(payload), payload
    # optional keys: the ranges file a verdict used, a watch's rounds
    valid({**good, "ranges": "checks/ranges.toml", "rounds": 3})


# ---------------------------------------------------------------------------------------- grade --json


@pytest.mark.parametrize("path", GOLDEN + RECORDED, ids=lambda p: str(p.relative_to(ROOT)))
def test_grade_json_of_every_evidence_file_validates(capsys, path):
    code, out = run(capsys, "grade", str(path), "--json")
    p = valid(json.loads(out))
    assert p["kind"] == "grade" and p["evidence"] == str(path)
    assert p["counts"] == {s: Counter(v["status"] for v in p["verdicts"])[s]
                           for s in ("pass", "warn", "unmeasured", "fail", "skip")}
    assert code == expected_exit(p)
    if path in RECORDED:  # a replay shipped with the labs earns nothing (checks/replays.toml)
        assert p["unfit"] and code == 1


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.name)
def test_grade_json_under_every_profile_validates(capsys, path, profile):
    code, out = run(capsys, "grade", str(path), "--profile", profile, "--json")
    p = valid(json.loads(out))
    assert p["profile"] == profile and code == expected_exit(p)


# ------------------------------------------------------------------------------------------ JUnit, TAP

_POINT = re.compile(r"(not ok|ok) (\d+) - (.*?)(?: # SKIP (.*))?")


def read_tap(text: str) -> list[dict]:
    """A TAP 14 reader for what the grader writes: the version, the plan, then test points, each maybe
    followed by a YAML block; ``#`` lines are comments. Returns the points as {ok, desc, skip, yaml}."""
    lines = text.splitlines()
    assert lines[0] == "TAP version 14"
    plan = re.fullmatch(r"1\.\.(\d+)", lines[1])
    assert plan, lines[1]
    points, i = [], 2
    while i < len(lines):
        if lines[i].startswith("#"):
            i += 1
            continue
        m = _POINT.fullmatch(lines[i])
        assert m and int(m.group(2)) == len(points) + 1, lines[i]
        point = {"ok": m.group(1) == "ok", "desc": m.group(3), "skip": m.group(4), "yaml": None}
        if i + 1 < len(lines) and lines[i + 1] == "  ---":
            end = lines.index("  ...", i + 1)
            point["yaml"] = yaml.safe_load("\n".join(ln[2:] for ln in lines[i + 2:end]))
            i = end
        points.append(point)
        i += 1
    assert len(points) == int(plan.group(1))
    return points


def errors_of(p: dict) -> int:
    """Error cases a lesson report gives: one per unreachable node, one when the evidence is unfit."""
    return len(p["unreachable"]) + bool(p["unfit"])


def assert_lesson_junit(xml: str, reports: list[dict]) -> None:
    """One suite per lesson report; failures, skips and errors as its verdicts say; each failure carries
    the verdict's details (the measured values and expected range), range source and hint."""
    doc = JUnitXml.fromstring(xml)
    suites = list(doc)
    assert [s.name for s in suites] == [f"{p['kind']} {p['lesson']}" for p in reports]
    for s, p in zip(suites, reports):
        by_status = Counter(v["status"] for v in p["verdicts"])
        assert (s.tests, s.failures, s.skipped, s.errors) == (
            len(p["verdicts"]) + errors_of(p), by_status["fail"], by_status["unmeasured"] + by_status["skip"],
            errors_of(p))
        cases = {c.name: c for c in s}
        for v in p["verdicts"]:
            case = cases[f"{v['id']} {v['title']}"]
            assert case.classname == p["lesson"]
            kinds = [type(r) for r in case.result]
            if v["status"] == "fail":
                (f,) = case.result
                assert kinds == [Failure] and all(d in f.message and d in f.text for d in v["details"])
                assert v["hint"] in f.text and (v["range_source"] or "") in f.text
            elif v["status"] in ("unmeasured", "skip"):
                assert kinds == [Skipped] and all(d in case.result[0].message for d in v["details"])
            else:
                assert kinds == []
                if v["status"] == "warn":
                    assert all(d in case.system_out for d in v["details"]) and v["hint"] in case.system_out
        errs = [c for c in s if any(isinstance(r, Error) for r in c.result)]
        assert sorted(c.name for c in errs) == sorted([f"unreachable {n}" for n in p["unreachable"]]
                                                      + (["evidence earns points"] if p["unfit"] else []))


def assert_lesson_tap(text: str, reports: list[dict]) -> None:
    """A point per verdict (and per error case); not ok exactly for fail and errors, with a YAML block
    holding the details and hint; # SKIP exactly for not measured and n.a."""
    points = read_tap(text)
    verdicts = [v for p in reports for v in p["verdicts"]]
    assert len(points) == len(verdicts) + sum(errors_of(p) for p in reports)
    assert sum(not pt["ok"] for pt in points) == sum(v["status"] == "fail" for v in verdicts) + \
        sum(errors_of(p) for p in reports)
    assert sum(pt["skip"] is not None for pt in points) == sum(v["status"] in ("unmeasured", "skip") for v in verdicts)
    for v in verdicts:
        pt = next(pt for pt in points if pt["desc"].endswith(f"{v['id']} {v['title']}".replace("#", "\\#")))
        assert pt["ok"] == (v["status"] != "fail")
        if v["status"] == "fail":
            assert pt["yaml"]["details"] == v["details"] and pt["yaml"]["hint"] == v["hint"]


@pytest.mark.parametrize("path, profile", [(p, None) for p in GOLDEN + RECORDED]
                         + [(ROOT / "tests/fixtures/golden/lab-sim-healthy.json", "spark-pair")],  # a warn
                         ids=lambda x: x.name if isinstance(x, Path) else str(x))
def test_every_format_of_grade_says_what_the_json_says(capsys, path, profile):
    extra = ["--profile", profile] if profile else []
    code, out = run(capsys, "grade", str(path), "--format", "json", *extra)
    p = valid(json.loads(out))
    assert run(capsys, "grade", str(path), "--json", *extra) == (code, out)  # --json is --format json
    text_code, text = run(capsys, "grade", str(path), *extra)
    assert text_code == code and "score " in text
    junit_code, xml = run(capsys, "grade", str(path), "--format", "junit", *extra)
    assert junit_code == code
    assert_lesson_junit(xml, [p])
    tap_code, tap = run(capsys, "grade", str(path), "--format", "tap", *extra)
    assert tap_code == code
    assert_lesson_tap(tap, [p])
    if profile:
        assert p["counts"]["warn"] == 1


def test_json_and_format_are_one_or_the_other(capsys):
    with pytest.raises(SystemExit) as e:
        main(["grade", str(GOLDEN[0]), "--json", "--format", "tap"])
    assert e.value.code == 2 and "not allowed with argument" in capsys.readouterr().err


def test_junit_and_tap_carry_any_text_a_detail_holds():
    """A detail with a control character, a lone surrogate, '#', a newline and XML's own characters: the
    JUnit is still XML and keeps the rest; each TAP point stays one line and '#' starts no directive."""
    from grader.formats import render
    from grader.grading import Verdict
    from grader.report import payload
    from grader.results import stamp

    odd = "a\x00b \ud800 <&> # SKIP not really\nsecond line"
    verdicts = [Verdict("X.odd", "odd # title", "fail", 1, 0.0, (odd,), "hint <b>", "src"),
                Verdict("X.na", "n.a. one", "skip", 0, 0.0, ("does not apply",), "h", "s")]
    p = valid(stamp("grade", payload(verdicts, lesson="x", profile="sim", evidence=None, unreachable={}, unfit=[])))
    case = next(iter(next(iter(JUnitXml.fromstring(render(p, "junit"))))))
    failure = case.result[0]
    assert "<&>" in failure.message and "second line" in failure.text and "hint <b>" in failure.text
    points = read_tap(render(p, "tap"))
    assert [(pt["ok"], pt["skip"]) for pt in points] == [(False, None), (True, "n.a.: does not apply")]
    assert points[0]["desc"] == "x X.odd odd \\# title" and "second line" in points[0]["yaml"]["details"][0]


# ----------------------------------------------------------------------------------------------- audit


def autograded(root: Path) -> Path:
    """nbgrader's autograded layout with one machine grade cell (4 points: L1.mtu and L1.port) a student:
    alice hands in lesson 1 with the wrong MTU and her kernel scored the cell full (ABOVE); bob and carol
    hand in the same healthy recording (SHARED), bob's cell scored full (agree), carol's errored (below)."""
    golden = ROOT / "tests" / "fixtures" / "golden"
    for student, evidence, outputs in (
            ("alice", "lesson1-sim-mtu-1500.json", []),
            ("bob", "lesson1-sim-healthy.json", []),
            ("carol", "lesson1-sim-healthy.json", [nbformat.v4.new_output("error", ename="AssertionError",
                                                                          evalue="", traceback=[])])):
        d = root / student / "lesson1"
        (d / "evidence").mkdir(parents=True)
        shutil.copy(golden / evidence, d / "evidence" / "lesson1.json")
        cell = nbformat.v4.new_code_cell('cl.grade_checks("lesson1", ["L1.mtu", "L1.port"], points=4)')
        cell.metadata["nbgrader"] = {"grade": True, "grade_id": "machine_l1", "points": 4, "solution": False,
                                     "locked": True}
        cell.outputs = outputs
        nb = nbformat.v4.new_notebook()
        nb.cells.append(cell)
        nbformat.write(nb, d / "lesson1.ipynb")
    return root


def test_audit_in_every_format(capsys, tmp_path):
    folder = str(autograded(tmp_path / "autograded"))
    code, out = run(capsys, "audit", folder, "--json")
    p = valid(json.loads(out))
    assert code == 1 and p["kind"] == "audit" and p["autograded"] == folder and p["assignment"] is None
    got = {(r["student"], r["cell"]): r["status"] for r in p["rows"]}
    assert got == {("alice", "machine_l1"): "ABOVE", ("bob", "machine_l1"): "agree", ("carol", "machine_l1"): "below",
                   ("bob", "evidence/lesson1.json"): "SHARED", ("carol", "evidence/lesson1.json"): "SHARED"}
    alice = next(r for r in p["rows"] if r["student"] == "alice")
    assert alice["kernel"] == 4 and alice["evidence"] < 4
    flagged = sum(r["status"] in ("ABOVE", "SHARED") for r in p["rows"])
    junit_code, xml = run(capsys, "audit", folder, "--format", "junit")
    (suite,) = JUnitXml.fromstring(xml)
    assert junit_code == 1 and (suite.tests, suite.failures, suite.skipped) == (len(p["rows"]), flagged, 0)
    above = next(c for c in suite if c.classname == "lesson1.alice")
    assert above.name == "machine_l1" and alice["why"] in above.result[0].text
    tap_code, tap = run(capsys, "audit", folder, "--format", "tap")
    points = read_tap(tap)
    assert tap_code == 1 and len(points) == len(p["rows"]) and sum(not pt["ok"] for pt in points) == flagged
    assert run(capsys, "audit", folder)[0] == 1
    assert run(capsys, "audit", folder, "--assignment", "lab", "--json")[0] == 2  # nothing to audit: could not run


# ------------------------------------------------------------------- check, check --watch, verify (sshd)


@pytest.fixture(scope="module")
def machines(sshd, tmp_path_factory):
    """(inventory, evidence dir): a spark-pair inventory of the loopback sshd, spark-b unreachable."""
    server, key, _ = sshd
    d = tmp_path_factory.mktemp("machines")
    return pair_inventory(d, server, key, f"{key}.pub"), d / "evidence"


def test_check_and_watch_in_every_format(capsys, machines):
    inv, ev = machines
    base = ("check", "lesson1", "lesson3", "--inventory", str(inv), "--evidence", str(ev))
    code, out = run(capsys, *base, "--json")
    reports = valid(json.loads(out))  # two lessons: an array of lesson reports
    assert [(p["kind"], p["lesson"], p["evidence"]) for p in reports] == [
        ("check", lesson, str(ev / f"{lesson}.json")) for lesson in ("lesson1", "lesson3")]
    assert all(list(p["unreachable"]) == ["spark-b"] for p in reports)
    assert code == max(expected_exit(p) for p in reports) == 1
    for fmt, check in (("junit", assert_lesson_junit), ("tap", assert_lesson_tap)):
        fmt_code, text = run(capsys, *base, "--format", fmt)
        assert fmt_code == code
        # a run measures again: compare with the JSON of this run's evidence, graded again
        again = [json.loads(run(capsys, "grade", p["evidence"], "--json")[1]) for p in reports]
        check(text, [{**p, "kind": "check"} for p in again])
    code, out = run(capsys, *base[:2], *base[3:], "--watch", "--timeout", "0.5", "--interval", "0.1", "--json")
    w = valid(json.loads(out))
    assert code == 1 and w["kind"] == "check" and w["lesson"] == "lesson1" and w["rounds"] == 1 and "notes" not in w


def test_verify_in_every_format(capsys, machines):
    inv, ev = machines
    run(capsys, "check", "lesson1", "--inventory", str(inv), "--evidence", str(ev), "--json")
    code, out = run(capsys, "verify", str(ev / "lesson1.json"), "--inventory", str(inv), "--json")
    p = valid(json.loads(out))
    assert code == 0 and p["exit_code"] == 0 and p["kind"] == "verify" and p["rows"]
    assert all(r["status"] == "agree" for r in p["rows"]) and any("spark-b" in n for n in p["notes"])
    edited = ev.parent / "edited.json"  # an output edited after recording: its sha256 no longer matches
    data = json.loads((ev / "lesson1.json").read_text())
    data["raw"][0]["stdout"] += "edited\n"
    edited.write_text(json.dumps(data))
    code, out = run(capsys, "verify", str(edited), "--inventory", str(inv), "--format", "json")
    p = valid(json.loads(out))
    differs = [r for r in p["rows"] if r["status"] == "DIFFERS"]
    skipped = sum(r["status"] == "not comparable" for r in p["rows"])
    assert code == 1 and differs and "sha256" in differs[0]["item"]
    junit_code, xml = run(capsys, "verify", str(edited), "--inventory", str(inv), "--format", "junit")
    (suite,) = JUnitXml.fromstring(xml)
    assert junit_code == 1 and (suite.tests, suite.failures, suite.skipped) == (len(p["rows"]), len(differs), skipped)
    tap_code, tap = run(capsys, "verify", str(edited), "--inventory", str(inv), "--format", "tap")
    points = read_tap(tap)
    assert tap_code == 1 and sum(not pt["ok"] for pt in points) == len(differs)
    assert [pt["desc"] for pt in points if not pt["ok"]] == [f"lesson1 {r['item']}" for r in differs]


# --------------------------------------------------------------------------------------- explain --json

CAPTURED_DIRS = [real_fixtures_root(), ROOT / "tests" / "fixtures" / "captured", ROOT / "tests" / "fixtures" / "field"]
PASTES = sorted(p for d in CAPTURED_DIRS for p in d.rglob("*") if p.suffix in (".txt", ".json", ".log"))


@pytest.mark.parametrize("path", PASTES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_explain_json_of_every_captured_output_validates(capsys, path):
    code, out = run(capsys, "explain", str(path), "--json")
    p = valid(json.loads(out))
    assert p["kind"] == "explain" and p["file"] == str(path) and p["sections"]
    failed = any(f["level"] == "fail" for s in p["sections"] for f in s["findings"])
    unread = all(s["kind"] is None and not s["findings"] or s["error"] for s in p["sections"])  # (a note is read)
    assert code == (1 if failed else 2 if unread else 0)


def test_explain_json_of_a_cut_a_forced_and_an_odd_paste_validates(capsys, tmp_path, monkeypatch):
    """The cut input's note (a section of kind input), a --kind that does not fit (errors), a paste of
    nothing known, and the break-it campaign's pastes (a NaN in the facts: null with a reason)."""
    big = tmp_path / "big.txt"
    big.write_text("tools/capture_gpu_host.sh: line 5: ip: command not found\n" * 40_000)
    monkeypatch.setenv("CLUSTERLAB_MAX_INPUT_MB", "1")
    code, out = run(capsys, "explain", str(big), "--json")
    p = valid(json.loads(out))
    assert code == 1 and p["sections"][0]["kind"] == "input" and p["sections"][0]["findings"][0]["level"] == "warn"
    monkeypatch.delenv("CLUSTERLAB_MAX_INPUT_MB")
    code, out = run(capsys, "explain", str(PASTES[0]), "--kind", "nvidia-smi", "--json")
    assert valid(json.loads(out))["sections"][0]["error"] and code == 2
    prose = tmp_path / "prose.txt"
    prose.write_text("my cable is blue\n")
    code, out = run(capsys, "explain", str(prose), "--json")
    assert code == 2 and valid(json.loads(out))["sections"][0]["kind"] is None
    for paste in sorted((ADV / "A").glob("explain_*")) if (ADV / "A").is_dir() else []:
        code, out = run(capsys, "explain", str(paste), "--json")
        p = valid(json.loads(out))
        if paste.name == "explain_json_nan_stdout.txt":
            assert "_reason" in json.dumps(p), "the NaN is null with a reason"


def test_explain_json_from_standard_input_validates():
    res = cli("explain", "--json", "-", stdin=(real_fixtures_root() / "spark").glob("11_*").__next__().read_bytes())
    p = valid(strict(res.out))
    assert p["file"] == "-" and p["sections"][0]["kind"] and res.returncode in (0, 1)


def test_the_schema_refuses_the_bare_array_explain_printed_before(capsys):
    _, out = run(capsys, "explain", str(PASTES[0]), "--json")
    p = valid(json.loads(out))
    for bad in (p["sections"], {**p, "sections": [{**p["sections"][0], "findings": [{"level": "FAIL", "message": ""}]}]},
                {k: v for k, v in p.items() if k != "file"}):
        assert not VALIDATOR.is_valid(bad)


# ------------------------------------------------------------------------------------- loadtest --json

LAB_REPLAY = ROOT / "solutions" / "lab" / "recorded" / "lab.json"


class Replay:
    """A node that answers the load test's commands with what the lab's recorded evidence holds (real
    vllm bench serve results from the sim): the ``side`` run's level for a bench command, the recorded
    weight size, the recorded platform probe output."""

    def __init__(self, name: str, side: list[str]):
        from types import SimpleNamespace

        self.node, self.side, self.raw = SimpleNamespace(name=name), side, json.loads(LAB_REPLAY.read_text())["raw"]
        self.host_key, self.host_key_type = f"SHA256:{name}", "ssh-ed25519"

    def run(self, command: str, timeout_s: float | None = None):
        from grader.transport import CommandResult

        if "vllm bench serve" in command:
            level = re.search(r"--max-concurrency (\d+)", command).group(1)
            probe = f"vllm-bench:{self.side[0]}:c{level}"
        else:
            probe = "model-weight-bytes" if "safetensors" in command else "platform"
        r = next(r for r in self.raw if r["probe"] == probe and (probe != "platform" or r["node"] == self.node.name))
        return CommandResult(command, r["stdout"], r["stderr"], r["exit_status"], r["duration_s"])

    def close(self) -> None:
        pass


def test_loadtest_in_every_format(capsys, tmp_path, monkeypatch):
    """Both sides measured (the replay's real results), the pair first: the pair's JSON has no comparison
    yet, the baseline's compares each level; JUnit and TAP say what the JSON says."""
    import grader.checking
    import grader.transport

    side = ["pair"]
    monkeypatch.setattr(grader.transport, "connect_all",
                        lambda inv: ({n.name: Replay(n.name, side) for n in inv.nodes}, {}))
    monkeypatch.setattr(grader.checking, "sim_is_down", lambda profile: False)
    inv = tmp_path / "inv.toml"
    nodes = json.loads(LAB_REPLAY.read_text())["inventory"]["nodes"]
    inv.write_text('profile = "sim"\nqsfp_port = 1\n' + "".join(
        f'[[nodes]]\nname = "{n["name"]}"\naddress = "{n["address"]}"\nport = 22\nuser = "root"\n' for n in nodes)
        + '[serve]\nurl = "http://192.168.100.10:8000"\nmodel = "/var/lib/clusterlab/sim/models/tiny-llama"\n'
          'served_model_name = "tiny-llama"\nmode = "ray"\nhead = "spark-a"\n')
    ev = tmp_path / "evidence"
    base = ("loadtest", "--inventory", str(inv), "--concurrency", "1,4", "--evidence", str(ev))
    code, out = run(capsys, *base, "--json")
    pair = valid(json.loads(out))
    assert pair["kind"] == "loadtest" and pair["lesson"] == "lab" and pair["evidence"] == str(ev / "lab.json")
    assert pair["comparison"] == [] and code == expected_exit(pair)
    side[0] = "baseline"
    code, out = run(capsys, *base, "--label", "baseline", "--format", "json")
    p = valid(json.loads(out))
    assert [r["concurrency"] for r in p["comparison"]] == [1, 4] and code == expected_exit(p)
    assert all(r["throughput_ratio"] == pytest.approx(r["pair_tok_s"] / r["baseline_tok_s"]) for r in p["comparison"])
    graded = json.loads(run(capsys, "grade", p["evidence"], "--json")[1])
    assert [(v["id"], v["status"]) for v in p["verdicts"]] == [(v["id"], v["status"]) for v in graded["verdicts"]]
    for fmt, check in (("junit", assert_lesson_junit), ("tap", assert_lesson_tap)):
        fmt_code, text = run(capsys, *base, "--label", "baseline", "--format", fmt)
        assert fmt_code == code
        check(text, [p])


def test_the_comparison_carries_a_figure_json_cannot_as_null_with_a_reason():
    from grader.formats import render
    from grader.grading import Verdict
    from grader.report import payload
    from grader.results import stamp

    row = {"concurrency": 1, "pair_tok_s": float("nan"), "baseline_tok_s": 10.0, "throughput_ratio": float("inf"),
           "tpot_ratio": None, "ttft_ratio": 1.0}
    verdicts = [Verdict("LAB.x", "t", "pass", 1, 1.0, (), "h", "s")]
    p = valid(json.loads(render(stamp("loadtest", payload(verdicts, lesson="lab", profile="sim", evidence=None,
                                                          unreachable={}, unfit=[], comparison=[row], plots=[])),
                                "json")))
    assert p["comparison"][0]["pair_tok_s"] is None and p["comparison"][0]["pair_tok_s_reason"].startswith("NaN")
    assert not VALIDATOR.is_valid({**p, "comparison": [{**p["comparison"][0], "surprise_reason": "x"}]})
    assert not VALIDATOR.is_valid({**p, "comparison": [{**p["comparison"][0], "pair_tok_s_reason": 1}]})


# ------------------------------------------------------------------------------------------- sim status


def sim_state(tmp_path: Path, monkeypatch, state: dict, namespaces: set[str], reachable: bool) -> None:
    """``sim status`` reading ``state`` as sim up writes it, these namespaces present and every sshd alive
    and answering (``reachable``) or not, without looking at this machine's own sim."""
    from grader.sim import cluster
    from grader.sim import topology as T

    (tmp_path / "state.json").write_text(json.dumps(state))
    (tmp_path / "inventory.toml").write_text('profile = "sim"\n')
    monkeypatch.setattr(T, "STATE_FILE", tmp_path / "state.json")
    monkeypatch.setattr(T, "INVENTORY", tmp_path / "inventory.toml")
    monkeypatch.setattr(cluster, "_netns_list", lambda: set(namespaces))
    monkeypatch.setattr(cluster, "_pid_in_ns", lambda pid, ns: reachable)
    monkeypatch.setattr(cluster, "_tcp_open", lambda addr, port=22, timeout=0.3: reachable)


@pytest.mark.parametrize("case", ["down", "up", "up-serving", "up-unreachable", "serve-starting"])
def test_sim_status_validates(capsys, tmp_path, monkeypatch, case):
    from grader.sim import topology as T

    serve = {"mode": "ray", "url": "http://192.168.100.10:8000", "host_url": "http://10.77.7.10:8000",
             "model": "/var/lib/clusterlab/sim/models/tiny-llama", "groups": [], "ready": True}
    state = {} if case == "down" else {
        "complete": True, "faults": ["mtu-1500"], "sshd_pids": {n: 4000 + i for i, n in enumerate(T.NODES)},
        **({"serve": serve} if case == "up-serving" else {}),
        **({"serve": {k: v for k, v in serve.items() if k != "ready"}} if case == "serve-starting" else {})}
    sim_state(tmp_path, monkeypatch, state, set() if case == "down" else set(T.NODES), case != "up-unreachable")
    code, out = run(capsys, "sim", "status")
    p = valid(json.loads(out))
    assert p["kind"] == "sim-status" and code == (0 if p["up"] else 1) and set(p["nodes"]) == set(T.NODES)
    assert p["up"] == (case != "down") and p["healthy"] == (case not in ("down", "up-unreachable"))
    assert (p["serve"] or {}).get("ready", "absent") == {"up-serving": True, "serve-starting": None}.get(case, "absent")
