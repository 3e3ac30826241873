"""Pairwise bandwidth and RDMA error counters across N nodes (issue 18): the judgment
(grader/facts/pairwise.py), its rule (checks/pairwise.toml), the counter parser
(grader/parsers/ib_counters.py) and the views (grader/widgets/pairwise.py).

Expected values are worked out here by hand from the rule's figures as the test reads them from the TOML
itself (not through the module under test)."""

from __future__ import annotations

import itertools
import json
import tomllib
from pathlib import Path

import pytest

from grader.facts.pairwise import (CounterVerdict, Rule, judge_counters, judge_pairs, load_rule, matrix, per_link,
                                   rule_from_toml)
from grader.parsers import ParseError
from grader.parsers.ib_counters import parse_ib_counters
from grader.ranges import CatalogueError, expected_range

ROOT = Path(__file__).resolve().parents[1]
TOML = tomllib.loads((ROOT / "checks" / "pairwise.toml").read_text())
FRACTION = TOML["relative"]["min_fraction_of_best"]
COUNTERS = TOML["counters"]["names"]
NO_RANGE = {"unit": "Gbit/s"}  # a range with neither bound: the relative rule alone


# --------------------------------------------------------------------------- the rule file

def test_the_rule_file_holds_every_figure_with_a_source():
    assert TOML["relative"]["source"] and TOML["range"]["source"] and TOML["counters"]["source"]
    assert "ClusterKit" in TOML["relative"]["source"]
    assert "DGX Station" in TOML["counters"]["source"] and "/sys/class/infiniband" in TOML["counters"]["source"]
    assert COUNTERS == ["port_rcv_errors", "port_xmit_discards", "symbol_error", "link_error_recovery", "link_downed"]
    r = load_rule()
    assert r.min_fraction_of_best == FRACTION and r.counters == tuple(COUNTERS)
    assert r.remeasure_times == TOML["relative"]["remeasure_times"] and r.max_growth == TOML["counters"]["max_growth"]
    assert expected_range("spark-pair", r.range_name)["unit"] == "Gbit/s"  # the range it names exists, in Gbit/s


@pytest.mark.parametrize("edit, needle", [
    (lambda t: t.pop("relative"), "no [relative] table"),
    (lambda t: t["relative"].update(min_fraction_of_best=1.5), "must be above 0 and at most 1"),
    (lambda t: t["counters"].pop("source"), "[counters] `source` is missing"),
    (lambda t: t["counters"].update(names=[]), "non-empty list"),
    (lambda t: t["relative"].update(remeasure_times=-1), "must be >= 0"),
])
def test_a_broken_rule_file_names_the_entry(edit, needle):
    data = tomllib.loads((ROOT / "checks" / "pairwise.toml").read_text())
    edit(data)
    with pytest.raises(CatalogueError) as err:
        rule_from_toml(data)
    assert needle in str(err.value) and "checks/pairwise.toml" in str(err.value)


# --------------------------------------------------------------------------- against the best pair

def test_the_bar_is_the_fraction_of_the_best():
    # best 100 Gbit/s; the bar at FRACTION (0.93) of it is 93 Gbit/s: 92.9 is below, 93.0 is not
    assert FRACTION == 0.93
    j = judge_pairs({("a", "b"): 100.0, ("a", "c"): 92.9, ("b", "c"): 93.0}, expected=NO_RANGE)
    assert j.best == ("a", "b") and j.best_gbps == 100.0 and j.bar_gbps == pytest.approx(93.0)
    st = {p.key: p.status for p in j.pairs}
    assert st == {("a", "b"): "pass", ("a", "c"): "flag", ("b", "c"): "pass"}
    assert j.status == "flag" and j.to_remeasure() == [("a", "c")]
    flagged = j.verdict("a", "c")
    assert flagged.fraction_of_best == pytest.approx(0.929)
    assert "below 93% of the best pair (a -> b, 100 Gbit/s)" in flagged.reasons[0]
    assert "measure it again (1 more time(s))" in flagged.reasons[-1]


def test_remeasure_recovers_to_pass():
    j = judge_pairs({("a", "b"): 100.0, ("a", "c"): 92.9}, {("a", "c"): 96.5}, expected=NO_RANGE)
    v = j.verdict("a", "c")
    assert v.status == "pass" and v.final_gbps == 96.5 and v.remeasured == (96.5,)
    assert v.fraction_of_best == pytest.approx(0.965) and j.status == "pass" and j.to_remeasure() == []
    assert any("measured again: 96.5 Gbit/s = 96.5%" in r for r in v.reasons)  # the history stays visible


def test_still_low_after_the_remeasure_fails():
    j = judge_pairs({("a", "b"): 100.0, ("a", "c"): 92.9}, {("a", "c"): [92.0]}, expected=NO_RANGE)
    v = j.verdict("a", "c")
    assert v.status == "fail" and j.status == "fail"
    assert "still below after 1 more measurement(s)" in v.reasons[-1]


def test_remeasure_rules_are_enforced():
    m = {("a", "b"): 100.0, ("a", "c"): 50.0}
    with pytest.raises(ValueError, match="was not flagged"):
        judge_pairs(m, {("a", "b"): 99.0}, expected=NO_RANGE)
    with pytest.raises(ValueError, match="at most 1 time"):
        judge_pairs(m, {("a", "c"): [60.0, 99.0]}, expected=NO_RANGE)
    with pytest.raises(ValueError, match="never first"):
        judge_pairs(m, {("b", "c"): 99.0}, expected=NO_RANGE)


def test_no_remeasure_left_fails_at_once():
    rule = Rule(0.93, 0, "tcp_gbps", tuple(COUNTERS), 0, {"relative": "s", "range": "s", "counters": "s"})
    j = judge_pairs({("a", "b"): 100.0, ("a", "c"): 92.9}, expected=NO_RANGE, rule=rule)
    assert j.verdict("a", "c").status == "fail"


def test_both_directions_are_two_measurements():
    j = judge_pairs({("a", "b"): 100.0, ("b", "a"): 80.0}, expected=NO_RANGE)
    assert j.verdict("a", "b").status == "pass" and j.verdict("b", "a").status == "flag"


def test_unordered_keys():
    j = judge_pairs({frozenset({"b", "a"}): 100.0, frozenset({"c", "a"}): 99.0}, expected=NO_RANGE)
    assert [p.key for p in j.pairs] == [("a", "b"), ("a", "c")]
    with pytest.raises(ValueError, match="given twice"):
        judge_pairs({frozenset({"a", "b"}): 1.0, ("a", "b"): 2.0}, expected=NO_RANGE)


@pytest.mark.parametrize("measured, needle", [
    ({}, "no pair was measured"),
    ({("a", "a"): 1.0}, "two different node names"),
    ({("a",): 1.0}, "not a pair of node names"),
    ({("a", "b"): -1.0}, "not a bandwidth"),
    ({("a", "b"): float("nan")}, "not a bandwidth"),
    ({("a", "b"): "fast"}, "not a bandwidth"),
])
def test_bad_input_raises(measured, needle):
    with pytest.raises(ValueError, match=needle):
        judge_pairs(measured, expected=NO_RANGE)


# --------------------------------------------------------------------------- against the profile's range

def test_range_check_from_the_profile():
    r = expected_range("spark-pair", "tcp_gbps")
    lo = r["min"]
    # every pair equally slow: the relative rule passes them all; the range fails them all
    j = judge_pairs({("a", "b"): lo - 1, ("a", "c"): lo - 1, ("b", "c"): lo - 1}, profile="spark-pair")
    assert {p.status for p in j.pairs} == {"fail"}
    assert f"below the profile's range ({lo:g} Gbit/s at least)" in j.pairs[0].reasons[-1]
    assert j.range["min"] == lo and j.range["unit"] == "Gbit/s" and j.sources["range"] == r["source"]


def test_range_judges_the_latest_value():
    rng = {"min": 80.0, "unit": "Gbit/s"}
    j = judge_pairs({("a", "b"): 100.0, ("a", "c"): 70.0}, {("a", "c"): 95.0}, expected=rng)
    assert j.verdict("a", "c").status == "pass"
    j = judge_pairs({("a", "b"): 100.0, ("a", "c"): 70.0}, expected=rng)
    assert j.verdict("a", "c").status == "fail"  # out of range: fails now, flagged or not


def test_zero_fails_and_a_range_in_other_units_is_refused():
    j = judge_pairs({("a", "b"): 0.0, ("a", "c"): 0.0}, expected=NO_RANGE)
    assert {p.status for p in j.pairs} == {"fail"} and j.pairs[0].fraction_of_best is None
    with pytest.raises(ValueError, match="judged in Gbit/s"):
        judge_pairs({("a", "b"): 1.0}, expected={"min": 20, "unit": "GB/s"})


def test_a_pair_alone_is_judged_by_its_range():
    j = judge_pairs({("spark-a", "spark-b"): 95.0}, profile="spark-pair")
    assert j.status == "pass" and j.best == ("spark-a", "spark-b")


# --------------------------------------------------------------------------- RDMA error counters

def zeros() -> dict[str, int]:
    return {c: 0 for c in COUNTERS}


def test_a_counter_that_grew_fails_its_link_with_the_delta():
    before = {"spark-a rocep1s0f1/1": zeros(), "spark-b rocep1s0f1/1": zeros()}
    after = {"spark-a rocep1s0f1/1": zeros(), "spark-b rocep1s0f1/1": dict(zeros(), symbol_error=3)}
    a, b = judge_counters(before, after)
    assert a == CounterVerdict("spark-a rocep1s0f1/1", "pass", {}, ())
    assert b.status == "fail" and b.grew == {"symbol_error": 3}
    assert b.reasons == ("symbol_error grew by 3 (0 -> 3) during the measurement",)


def test_counters_already_high_but_steady_pass():
    before = {"l": dict(zeros(), port_rcv_errors=1200, link_downed=2)}
    assert judge_counters(before, {"l": dict(before["l"])})[0].status == "pass"


def test_missing_or_reset_counters_are_unmeasured_and_say_what():
    before = {"l": zeros(), "gone": zeros()}
    after = {"l": {c: 0 for c in COUNTERS if c != "link_downed"}}
    v = {x.link: x for x in judge_counters(before, after)}
    assert v["l"].status == "unmeasured" and v["l"].reasons == ("link_downed not read after",)
    assert v["gone"].status == "unmeasured" and "not read after the measurement" in v["gone"].reasons[0]
    reset = judge_counters({"l": dict(zeros(), symbol_error=9)}, {"l": zeros()})[0]
    assert reset.status == "unmeasured" and "symbol_error went down (9 -> 0)" in reset.reasons[0]
    grew_and_missing = judge_counters({"l": zeros()}, {"l": {"symbol_error": 1}})[0]
    assert grew_and_missing.status == "fail" and grew_and_missing.grew == {"symbol_error": 1}
    with pytest.raises(ValueError, match="not a count"):
        judge_counters({"l": zeros()}, {"l": dict(zeros(), symbol_error=-1)})


def test_per_link_names_node_and_port():
    readings = {"spark-a": {"rocep1s0f1/1": {"symbol_error": 0}}, "spark-b": {"roceP2p1s0f1/1": {"symbol_error": 2}}}
    assert per_link(readings) == {"spark-a rocep1s0f1/1": {"symbol_error": 0},
                                  "spark-b roceP2p1s0f1/1": {"symbol_error": 2}}


# --------------------------------------------------------------------------- the counter parser

GREP = """nvidia@spark-a:~$ grep . /sys/class/infiniband/*/ports/*/counters/symbol_error
/sys/class/infiniband/roceP2p1s0f1/ports/1/counters/symbol_error:0
/sys/class/infiniband/rocep1s0f1/ports/1/counters/symbol_error:3
"""


def test_parse_grep_output():
    r = parse_ib_counters(GREP)
    assert r.values() == {"roceP2p1s0f1/1": {"symbol_error": 0}, "rocep1s0f1/1": {"symbol_error": 3}}
    assert r.ports["rocep1s0f1/1"].device == "rocep1s0f1" and r.ports["rocep1s0f1/1"].port == 1
    assert not r.truncated and r.ignored == ()


def test_parse_is_tolerant_of_colours_crlf_sudo_and_noise():
    grep_colour = ("\x1b[35m\x1b[K/sys/class/infiniband/rocep1s0f1/ports/1/counters/link_downed\x1b[m\x1b[K"
                   "\x1b[36m\x1b[K:\x1b[m\x1b[K0")
    text = ("[sudo] password for nvidia: \r\n$ sudo grep -H . /sys/class/infiniband/*/ports/*/counters/*\r\n"
            "grep: /sys/class/infiniband/rocep1s0f1/ports/1/counters/vl15_dropped: Invalid argument\r\n"
            + grep_colour + "\r\n^[[0;32m/sys/class/infiniband/rocep1s0f1/ports/1/counters/port_rcv_errors:12^[[0m\r\n"
            "...\r\nsome banner line\r\n")
    r = parse_ib_counters(text)
    assert r.values() == {"rocep1s0f1/1": {"link_downed": 0, "port_rcv_errors": 12}}
    assert len(r.ignored) == 2  # grep's complaint and the banner, kept aside


def test_parse_truncated_last_line_is_left_out():
    for cut in ("/sys/class/infiniband/rocep1s0f1/ports/1/counters/port_xmit_disc",
                "/sys/class/infiniband/rocep1s0f1/ports/1/counters/port_xmit_discards:",
                "/sys/class/infini"):
        r = parse_ib_counters(GREP + cut)
        assert r.truncated and r.values()["rocep1s0f1/1"] == {"symbol_error": 3}
    assert parse_ib_counters(GREP + "/sys/class/infini").missing(COUNTERS, ["rocep1s0f1/1"])[-1] == \
        "the reading was cut off at its end: read it again whole"


def test_missing_says_what_is_missing():
    r = parse_ib_counters(GREP)
    assert r.missing(["symbol_error"]) == []
    assert r.missing(["symbol_error", "link_downed"], ["rocep1s0f1/1", "rocep1s0f0/1"]) == [
        "rocep1s0f1/1: link_downed not read", "rocep1s0f0/1: no counter was read for this port"]


def test_parse_one_file_under_its_prompt():
    text = ("$ cat /sys/class/infiniband/rocep1s0f1/ports/1/counters/symbol_error\n0\n"
            "$ cat /sys/class/infiniband/rocep1s0f1/ports/1/counters/link_downed\n1\n")
    assert parse_ib_counters(text).values() == {"rocep1s0f1/1": {"symbol_error": 0, "link_downed": 1}}


def test_parse_errors_name_the_command_and_line():
    with pytest.raises(ParseError, match="no RDMA counter was read"):
        parse_ib_counters("grep: /sys/class/infiniband/*/ports/*/counters/symbol_error: No such file or directory\n")
    with pytest.raises(ParseError) as err:
        parse_ib_counters("/sys/class/infiniband/rocep1s0f1/ports/1/counters/symbol_error:lots\n" + GREP)
    assert "at line 1" in str(err.value) and "a whole number after the colon" in str(err.value)
    with pytest.raises(ParseError, match="two readings pasted together"):
        parse_ib_counters(GREP + GREP.replace(":3", ":7"))


def test_parse_then_judge_a_counter_that_grew():
    before = parse_ib_counters(GREP.replace(":3", ":0"))
    after = parse_ib_counters(GREP)
    v = judge_counters(per_link({"spark-a": before.values()}), per_link({"spark-a": after.values()}))
    by = {x.link: x for x in v}
    # only symbol_error was read: the others are unmeasured, but the growth still fails the link
    assert by["spark-a rocep1s0f1/1"].status == "fail" and by["spark-a rocep1s0f1/1"].grew == {"symbol_error": 3}
    assert by["spark-a roceP2p1s0f1/1"].status == "unmeasured"


# --------------------------------------------------------------------------- views

NODES = ["spark-1", "spark-2", "spark-3", "spark-4"]


def switch_of_four(remeasure: dict | None = None):
    values = iter([98.4, 97.1, 96.8, 99.0, 86.2, 97.5])
    measured = {(a, b): next(values) for a, b in itertools.combinations(NODES, 2)}
    return judge_pairs(measured, remeasure, profile="spark-pair")


def test_matrix_mirrors_one_direction():
    names, cells = matrix(switch_of_four(), NODES)
    assert names == NODES and cells[0][0] is None
    v, mirrored = cells[1][3]
    assert v.key == ("spark-2", "spark-4") and not mirrored
    v, mirrored = cells[3][1]
    assert v.key == ("spark-2", "spark-4") and mirrored


def test_terminal_table():
    from grader.widgets.pairwise import render_table

    before = {"spark-2 rocep1s0f1/1": zeros()}
    after = {"spark-2 rocep1s0f1/1": dict(zeros(), symbol_error=3)}
    text = render_table(switch_of_four({("spark-2", "spark-4"): 85.9}), NODES, counters=judge_counters(before, after))
    lines = text.splitlines()
    assert lines[0].startswith("Pairwise bandwidth, Gbit/s (row -> column): best spark-2 -> spark-3 99.0, bar 93% = 92.1")
    assert lines[0].endswith("FAIL")
    assert lines[1].split() == NODES
    assert lines[3].split() == ["spark-2", "~98.4", ".", "99.0", "85.9X"]
    assert any(x.startswith("FAIL  spark-2 -> spark-4: first 86.2 Gbit/s = 87.1%") for x in lines)
    assert "FAIL  spark-2 rocep1s0f1/1: symbol_error grew by 3 (0 -> 3) during the measurement" in lines
    assert "\x1b[" not in text and "\x1b[31m" in render_table(switch_of_four({("spark-2", "spark-4"): 85.9}),
                                                               NODES, colour=True)


def test_dict_is_json():
    from grader.widgets.pairwise import to_dict

    d = json.loads(json.dumps(to_dict(switch_of_four(), NODES)))
    assert d["unit"] == "Gbit/s" and d["status"] == "flag" and d["matrix"]["nodes"] == NODES
    assert d["matrix"]["gbps"][1][3] == 86.2 and d["matrix"]["status"][1][3] == "flag"
    assert d["matrix"]["mirrored"][3][1] is True and d["matrix"]["gbps"][2][2] is None
    assert d["best"] == {"a": "spark-2", "b": "spark-3", "gbps": 99.0} and d["min_fraction_of_best"] == FRACTION


def test_heatmap_draws(tmp_path):
    pytest.importorskip("matplotlib")
    from grader.widgets.pairwise import heatmap

    fig = heatmap(switch_of_four(), NODES, title="switch of 4")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == NODES
    texts = [t.get_text() for t in ax.texts]
    assert "86.2\nflag" in texts and "~86.2\nflag" in texts and "99.0" in texts
    assert "best spark-2 -> spark-3 99.0 Gbit/s; bar 93% = 92.1; flag" in ax.get_title()
    fig.savefig(tmp_path / "m.png")
    assert (tmp_path / "m.png").stat().st_size > 1000
