"""``clusterlab verify``'s comparison, on evidence objects built here (no sim, no SSH).

The expected verdicts are worked out by hand from the spread constants: an item agrees when the
larger of the two figures over the smaller is at most 1 + spread.
"""

from __future__ import annotations

import copy
import json
from datetime import datetime, timezone

import pytest

from grader import verify as V
from grader.cli import main
from grader.evidence import Evidence, RawOutput

NOW = datetime(2026, 11, 29, 18, 0, 0, tzinfo=timezone.utc)
SYSINFO_A = ("Linux 6.11.0-1016-nvidia aarch64\nip utility, iproute2-6.1.0, libbpf 1.1.0\n"
             "ethtool version 6.1\niperf 3.16 (cJSON 1.7.15)\n")


def lesson1_evidence(tcp_gbps: float = 18.0, b_addr: str = "192.168.100.11/24") -> Evidence:
    """A lesson-1 evidence of a healthy pair, facts as grader.facts.lesson1 shapes them."""
    raw = [RawOutput("spark-a", "sysinfo", "uname -srm; ...", SYSINFO_A, "", 0, started_at="2026-11-29T17:00:00Z"),
           RawOutput("spark-b", "sysinfo", "uname -srm; ...", SYSINFO_A.replace("1016", "1017"), "", 0,
                     started_at="2026-11-29T17:00:00Z")]
    nodes = {
        "spark-a": {"reachable": True, "hostname": "spark-a",
                    "twin_ipv4": {"enp1s0f1np1": ["192.168.100.10/24"], "enP2p1s0f1np1": ["192.168.101.10/24"]}},
        "spark-b": {"reachable": True, "hostname": "spark-b",
                    "twin_ipv4": {"enp1s0f1np1": [b_addr], "enP2p1s0f1np1": ["192.168.101.11/24"]}},
    }
    inv = {"profile": "spark-pair", "nodes": [{"name": "spark-a"}, {"name": "spark-b"}]}
    return Evidence("lesson1", "spark-pair", inv, raw, facts={"nodes": nodes, "pair": {"tcp_gbps": tcp_gbps}},
                    provenance={"created_at": "2026-11-29T17:00:00+00:00"})


def by_item(rows: list[V.Row]) -> dict[str, V.Row]:
    return {r.item: r for r in rows}


# ------------------------------------------------------------------ the spread rule


@pytest.mark.parametrize("a,b,ok", [(10.0, 10.0, True), (10.0, 14.9, True), (14.9, 10.0, True),
                                    (10.0, 15.1, False), (10.0, 100.0, False), (0.0, 0.0, True), (0.0, 1.0, False)])
def test_within_uses_max_over_min(a, b, ok):
    assert V.within(a, b, 0.5)[0] is ok


def test_spreads_are_wide_enough_for_measured_runs_and_narrow_enough_for_a_10x_edit():
    # the sim's measured max/min (module docstrings) must agree; a 10x edit must not
    for spread, measured in ((V.TCP_SPREAD, 18.696 / 16.857), (V.LAB_THROUGHPUT_SPREAD, 168.64 / 147.20),
                             (V.LAB_THROUGHPUT_SPREAD, 108.281 / 69.775), (V.LAB_TPOT_SPREAD, 5.686 / 4.676),
                             (V.LAB_TPOT_SPREAD, 12.601 / 8.545)):
        assert V.within(1.0, measured, spread)[0]
        assert not V.within(1.0, 10.0, spread)[0] and not V.within(1.0, 2.0, spread)[0]
    # the sim's iperf3 over veth measures the host's CPU beside the suite's other half: a recording and its re-run
    assert V.within(16.666, 9.388, V.TCP_SPREAD_SIM)[0] and not V.within(1.0, 10.0, V.TCP_SPREAD_SIM)[0]


# ------------------------------------------------------------------ items and their comparison


def test_items_of_lesson1():
    got = V.items(lesson1_evidence())
    assert got["spark-a kernel"].value == "Linux 6.11.0-1016-nvidia aarch64"
    assert got["spark-b kernel"].value == "Linux 6.11.0-1017-nvidia aarch64"
    assert got["spark-a iperf3 version"].value == "3.16"
    assert got["spark-b enp1s0f1np1 IPv4"].value == ["192.168.100.11/24"]
    assert got["spark-a hostname"].value == "spark-a"
    tcp = got["TCP throughput (iperf3, one twin)"]
    assert (tcp.value, tcp.unit, tcp.spread) == (18.0, "Gbit/s", V.TCP_SPREAD)
    import dataclasses
    sim = V.items(dataclasses.replace(lesson1_evidence(), profile="sim"))["TCP throughput (iperf3, one twin)"]
    assert sim.spread == V.TCP_SPREAD_SIM  # the sim's veth twins measure the host's CPU


def test_items_of_lesson2_keep_only_the_twins_and_read_ray_kv_and_versions():
    nccl = "spark-a:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n"
    vllm_log = "INFO 11-29 17:00:00 [api_server.py:1] vLLM API server version 0.32.0\n"
    ev = Evidence("lesson2", "sim", {"nodes": []},
                  [RawOutput("spark-a", "log:nccl_debug", "tail", nccl, "", 0),
                   RawOutput("spark-a", "log:vllm", "tail", vllm_log, "", 0)],
                  facts={"nodes": {"spark-a": {"reachable": True, "ipv4": {"enp1s0f1np1": ["192.168.100.10"],
                                                                           "enP7s7": ["10.77.7.10"], "lo": ["127.0.0.1"]}}},
                         "pair": {"ray_head_ip": "192.168.100.10", "ray_node_ips": {"spark-b": "192.168.100.11"},
                                  "kv_tokens_logged": 131072}})
    got = V.items(ev)
    assert got["spark-a enp1s0f1np1 IPv4"].value == ["192.168.100.10"]
    assert not any("enP7s7" in k or " lo " in k for k in got)
    assert got["Ray head address"].value == "192.168.100.10"
    assert got["spark-b Ray node address"].value == "192.168.100.11"
    assert (got["KV cache size (vLLM log)"].value, got["KV cache size (vLLM log)"].unit) == (131072, "tokens")
    assert got["NCCL version (its debug log)"].value == "2.28.9+cuda13.0"
    assert got["vLLM version (its log)"].value == "0.32.0"


def test_honest_rerun_agrees():
    rows = V.compare_items(V.items(lesson1_evidence(18.0)), V.items(lesson1_evidence(15.0)))
    assert rows and {r.status for r in rows} == {V.AGREE}, rows
    assert "ratio 1.20" in by_item(rows)["TCP throughput (iperf3, one twin)"].note


def test_changed_address_differs_on_that_row_only():
    rows = V.compare_items(V.items(lesson1_evidence(b_addr="192.168.100.99/24")), V.items(lesson1_evidence()))
    differ = [r.item for r in rows if r.status == V.DIFFERS]
    assert differ == ["spark-b enp1s0f1np1 IPv4"]
    r = by_item(rows)["spark-b enp1s0f1np1 IPv4"]
    assert (r.recorded, r.measured) == (["192.168.100.99/24"], ["192.168.100.11/24"])


def test_throughput_typed_ten_times_too_high_differs():
    rows = V.compare_items(V.items(lesson1_evidence(180.0)), V.items(lesson1_evidence(18.0)))
    r = by_item(rows)["TCP throughput (iperf3, one twin)"]
    assert r.status == V.DIFFERS and "ratio 10.00" in r.note and "TCP_SPREAD" in r.note


def test_unreachable_node_is_not_comparable_and_says_why():
    measured = lesson1_evidence()
    del measured.facts["nodes"]["spark-b"]
    measured.raw = [r for r in measured.raw if r.node != "spark-b"]
    rows = by_item(V.compare_items(V.items(lesson1_evidence()), V.items(measured), reachable={"spark-a"}))
    assert rows["spark-b kernel"].status == V.NOT_COMPARABLE
    assert rows["spark-b kernel"].note == "the node could not be reached now"
    assert rows["spark-a kernel"].status == V.AGREE


def test_report_exit_code_render_and_json():
    rep = V.Report("e.json", "i.toml", "lesson1",
                   V.compare_items(V.items(lesson1_evidence(180.0)), V.items(lesson1_evidence(18.0))))
    assert rep.exit_code == 1
    text = rep.render()
    assert "DIFFERS" in text and "180 Gbit/s" in text and "18 Gbit/s" in text
    data = json.loads(rep.to_json())
    assert data["exit_code"] == 1 and {r["status"] for r in data["rows"]} == {V.AGREE, V.DIFFERS}
    ok = V.Report("e.json", "i.toml", "lesson1", V.compare_items(V.items(lesson1_evidence()), V.items(lesson1_evidence())))
    assert ok.exit_code == 0


# ------------------------------------------------------------------ integrity


def test_integrity_of_an_honest_file_agrees():
    ev = lesson1_evidence()
    rows = V.integrity_rows(ev, [], ["spark-a", "spark-b"], "spark-pair", None, now=NOW)
    assert {r.status for r in rows} == {V.AGREE}, rows


def test_integrity_flags_hashes_foreign_nodes_profile_future_time_and_edited_facts():
    from grader import __version__

    ev = lesson1_evidence()
    ev.provenance.update(grader_version=__version__, created_at="2027-01-01T00:00:00+00:00")
    rederived = copy.deepcopy(ev.facts)
    rederived["pair"]["tcp_gbps"] = 1.8
    rows = by_item(V.integrity_rows(ev, ["ip_addr on spark-b"], ["spark-a", "spark-c"], "sim", rederived, now=NOW))
    assert rows["raw outputs match their sha256"].status == V.DIFFERS
    assert "ip_addr on spark-b" in rows["raw outputs match their sha256"].note
    assert rows["nodes named in the evidence are the inventory's"].status == V.DIFFERS
    assert "spark-b" in rows["nodes named in the evidence are the inventory's"].note
    assert rows["profile"].status == V.DIFFERS
    assert rows["recorded times are not in the future"].status == V.DIFFERS
    assert "2027-01-01" in rows["recorded times are not in the future"].note
    assert rows["stored facts = facts derived from the raw outputs"].note == "these differ: pair"


def test_clock_skew_within_the_allowance_is_not_the_future():
    ev = lesson1_evidence()
    ev.provenance["created_at"] = "2026-11-29T18:04:00+00:00"  # 240 s ahead, allowance 300 s
    rows = by_item(V.integrity_rows(ev, [], ["spark-a", "spark-b"], "spark-pair", None, now=NOW))
    assert rows["recorded times are not in the future"].status == V.AGREE


def test_load_lenient_names_edited_outputs(tmp_path):
    p = lesson1_evidence().save(tmp_path)
    ev, bad = V.load_lenient(p)
    assert bad == [] and len(ev.raw) == 2
    data = json.loads(p.read_text())
    data["raw"][1]["stdout"] = data["raw"][1]["stdout"].replace("1017", "9999")
    p.write_text(json.dumps(data))
    ev, bad = V.load_lenient(p)
    assert bad == ["sysinfo on spark-b"]
    assert "9999" in ev.raw[1].stdout


@pytest.mark.parametrize("content,words", [(None, "no such evidence file"), ("{", "not JSON"),
                                           ('{"schema": "other"}', "not a clusterlab evidence file")])
def test_load_lenient_refuses_what_is_not_evidence(tmp_path, content, words):
    p = tmp_path / "e.json"
    if content is not None:
        p.write_text(content)
    with pytest.raises(V.VerifyError, match=words):
        V.load_lenient(p)


# ------------------------------------------------------------------ the lab's load level


def lab_evidence(tok_s: float, tpot_ms: float) -> Evidence:
    return Evidence("lab", "sim", {"nodes": [{"name": "spark-a"}]},
                    facts={"pair": {"c1": {"output_throughput": tok_s, "median_tpot_ms": tpot_ms},
                                    "c4": {"output_throughput": 3 * tok_s, "median_tpot_ms": tpot_ms}}},
                    measurements={"lab": {"runs": {"pair": {"input_len": 32, "output_len": 16, "num_prompts": 8}}}})


def test_lab_level_is_the_smallest_recorded_with_its_parameters():
    c, run = V.lab_level(lab_evidence(150.0, 5.0), "pair")
    assert c == 1 and (run["input_len"], run["output_len"], run["num_prompts"]) == (32, 16, 8)
    assert V.lab_level(lab_evidence(150.0, 5.0), "baseline") is None


def test_lab_rows_agree_within_the_spread_and_differ_beyond_it():
    rows = by_item(V.lab_rows(lab_evidence(150.0, 5.0), lab_evidence(120.0, 6.0), "pair", 1))
    assert rows["pair c1 output throughput"].status == V.AGREE  # 1.25 <= 1.5
    assert rows["pair c1 median TPOT"].status == V.AGREE  # 1.2
    rows = by_item(V.lab_rows(lab_evidence(300.0, 2.5), lab_evidence(120.0, 6.0), "pair", 1))
    assert rows["pair c1 output throughput"].status == V.DIFFERS  # 2.5
    assert rows["pair c1 median TPOT"].status == V.DIFFERS  # 2.4
    assert rows["pair c1 output throughput"].unit == "tok/s" and rows["pair c1 median TPOT"].unit == "ms"


def test_lab_rows_without_a_measured_figure_are_not_comparable():
    measured = Evidence("lab", "sim", {}, facts={"pair": {}, "problems": ["pair c1: 8 of 8 requests failed"]})
    rows = V.lab_rows(lab_evidence(150.0, 5.0), measured, "pair", 1)
    assert {r.status for r in rows} == {V.NOT_COMPARABLE}
    assert "8 of 8 requests failed" in rows[0].note


# ------------------------------------------------------------------ the command


def test_cli_cannot_run_without_the_evidence(tmp_path, capsys):
    assert main(["verify", str(tmp_path / "none.json"), "--inventory", str(tmp_path / "inv.toml")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("clusterlab: verify:") and "no such evidence file" in err and "Traceback" not in err


def test_cli_cannot_run_without_the_inventory(tmp_path, capsys):
    p = lesson1_evidence().save(tmp_path)
    assert main(["verify", str(p), "--inventory", str(tmp_path / "inv.toml")]) == 2
    err = capsys.readouterr().err
    assert "no such inventory file" in err and "Traceback" not in err
