"""grader.provenance: the platform probe's outputs show the profile, the identity of the machines,
replays; the audit's shared-recording flag; and, on the sim, a live lesson-1 check."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from grader import provenance
from grader.evidence import REPLAY_DIR, Evidence, RawOutput, load_evidence
from grader.probes.platform import PLATFORM, PROBE
from grader.provenance import (identity, is_spark, parse_platform, platform, profile_problem,
                               replay_problem)

ROOT = Path(__file__).resolve().parents[1]
CAPTURED = Path(__file__).resolve().parent / "fixtures" / "captured"

MID_A, MID_B = "a" * 64, "b" * 64


def platform_text(gpus=(), product="", sim="", mid=MID_A, smi_exit=None) -> str:
    """A platform output as grader.probes.platform.PLATFORM prints it."""
    if smi_exit is None:
        smi_exit = 0 if gpus else 127
    lines = [f"nvidia_smi_exit: {smi_exit}", *(f"gpu: {g}" for g in gpus), f"product: {product}",
             "sys_vendor: ", f"sim_node: {sim}"]
    if mid:
        lines.append(f"machine_id_sha256: {mid}")
    return "\n".join(lines) + "\n"


def evidence(profile: str, outputs: dict[str, str | None], host_keys: dict[str, str] | None = None,
             errors: dict[str, str] | None = None, lesson: str = "lesson1") -> Evidence:
    """Evidence of ``profile`` whose nodes answered ``outputs`` (None: no platform output, only a hostname)."""
    raw = []
    for node, text in outputs.items():
        raw.append(RawOutput(node, "hostname", "hostname", node + "\n", "", 0))
        if text is not None:
            raw.append(RawOutput(node, "platform", PLATFORM, text, "", 0))
    nodes = {n: {"sysinfo": "Linux"} | ({"host_key": host_keys[n]} if host_keys and n in host_keys else {})
             for n in outputs}
    return Evidence(lesson, profile, {"profile": profile, "nodes": [{"name": n} for n in outputs]}, raw,
                    errors=errors or {}, provenance={"nodes": nodes, "created_at": "2026-12-01T10:00:00+00:00"})


SPARK = platform_text(["NVIDIA GB10"], "NVIDIA_DGX_Spark")
SPARK_B = platform_text(["NVIDIA GB10"], "NVIDIA_DGX_Spark", mid=MID_B)
DESKTOP = platform_text(["NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4090"], "MS-7D25")


# ----------------------------------------------------------------------------------------- parser


def test_parse_a_sparks_platform_output():
    p = parse_platform(SPARK)
    assert p["gpus"] == ["NVIDIA GB10"] and p["product"] == "NVIDIA_DGX_Spark" and p["sim_node"] is None
    assert p["machine_id_sha256"] == MID_A and p["nvidia_smi_exit"] == 0
    assert is_spark({"gpus": p["gpus"], "product": None})       # the GPU name alone
    assert is_spark({"gpus": [], "product": "NVIDIA_DGX_Spark"})  # the DMI product alone
    assert is_spark({"gpus": [], "product": "Dell Pro Max with GB10"})
    for other in ("NVIDIA GB200", "NVIDIA B200", "NVIDIA H200", "NVIDIA GeForce RTX 4090"):
        assert not is_spark({"gpus": [other], "product": "DGX GB200"}), other


def test_parse_the_real_capture_of_one_h200():
    """Captured on a lent H200 VM (tests/fixtures/captured/h200x1/platform-probe.txt): no DMI, empty machine-id."""
    text = (CAPTURED / "h200x1" / "platform-probe.txt").read_text()
    p = parse_platform(text)
    assert p == {"gpus": ["NVIDIA H200"], "product": None, "sys_vendor": None, "sim_node": None,
                 "machine_id_sha256": None, "nvidia_smi_exit": 0}


@pytest.mark.parametrize("text, gpus, mid", [
    ("", [], None),
    ("nvidia_smi_exit: 0\ngpu: NVIDIA GB1", ["NVIDIA GB1"], None),                  # cut mid-line: no GB10
    (platform_text(["NVIDIA GB10"])[:-40], ["NVIDIA GB10"], None),                  # the hash cut short
    ("\x1b[32mgpu: NVIDIA GB10\x1b[0m\r\nmachine_id_sha256: " + MID_A.upper() + "\r\n", ["NVIDIA GB10"], MID_A),
    ("nvidia_smi_exit: 9\ngpu: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
     [], None),
    ("gpu: No devices were found\n", [], None),
    ("\x00\xff\ufffd garbage: \n::::\ngpu:\n" + "x" * 10000, [], None),
    ("nvidia_smi_exit: 1\ngpu: NVIDIA GeForce RTX 4090\n", [], None),               # failed: nothing taken
])
def test_parse_is_tolerant(text, gpus, mid):
    p = parse_platform(text)
    assert p["gpus"] == gpus and p["machine_id_sha256"] == mid


def test_platform_per_node_with_host_keys():
    ev = evidence("sim", {"spark-a": platform_text(sim="spark-a"), "spark-b": None},
                  host_keys={"spark-a": "SHA256:aaa", "spark-b": "SHA256:bbb"})
    assert platform(ev) == {
        "spark-a": {"gpus": [], "product": None, "sim": True, "machine_id_sha256": MID_A, "host_key": "SHA256:aaa"},
        "spark-b": {"gpus": [], "product": None, "sim": False, "machine_id_sha256": None, "host_key": "SHA256:bbb"}}


# ----------------------------------------------------------------------------------------- profile


def test_profiles_shown_by_their_outputs():
    assert profile_problem(evidence("spark-pair", {"spark-a": SPARK, "spark-b": SPARK_B})) is None
    assert profile_problem(evidence("single-spark", {"spark": SPARK})) is None
    assert profile_problem(evidence("dual-gpu-desktop", {"desk": DESKTOP})) is None
    assert profile_problem(evidence("sim", {"spark-a": platform_text(sim="spark-a"),
                                            "spark-b": platform_text(sim="spark-b", mid=MID_B)})) is None


def test_one_card_is_not_a_dual_gpu_desktop_nor_a_spark():
    one = parse_platform((CAPTURED / "h200x1" / "platform-probe.txt").read_text())
    text = platform_text(one["gpus"], "")
    why = profile_problem(evidence("dual-gpu-desktop", {"desk": text}))
    assert why and "at least two GPUs" in why and "NVIDIA H200" in why and "profile" in why
    why = profile_problem(evidence("single-spark", {"box": text}))
    assert why and "NVIDIA GB10" in why and "box: nvidia-smi lists NVIDIA H200" in why


def test_a_desktop_claiming_a_spark_pair_is_refused():
    why = profile_problem(evidence("spark-pair", {"a": DESKTOP, "b": SPARK_B}))
    assert why and "a: nvidia-smi lists NVIDIA GeForce RTX 4090 x2" in why and "b:" not in why


def test_sim_nodes_contradict_a_real_profile():
    ev = evidence("spark-pair", {"spark-a": platform_text(sim="spark-a"), "spark-b": platform_text(sim="spark-b")})
    why = profile_problem(ev)
    assert "spark-a and spark-b are clusterlab sim nodes" in why and "contradicts profile spark-pair" in why
    assert "profile sim" in why
    # even with a (faked) GB10 in its nvidia-smi, a sim node stays a sim node
    ev = evidence("single-spark", {"spark-a": platform_text(["NVIDIA GB10"], sim="spark-a")})
    assert "sim node" in profile_problem(ev)


def test_a_real_machine_claiming_sim_is_refused():
    why = profile_problem(evidence("sim", {"spark-a": platform_text(sim="spark-a"), "spark-b": SPARK_B}))
    assert why.startswith("spark-b carries no clusterlab sim marker") and "NVIDIA GB10" in why


def test_evidence_without_the_platform_probe():
    why = profile_problem(evidence("single-spark", {"spark": None}))
    assert "no platform probe" in why and "Check again with this grader" in why
    assert "clusterlab check lesson1" in why
    lab = evidence("spark-pair", {"a": None, "b": None}, lesson="lab")
    assert "clusterlab loadtest" in profile_problem(lab)


def test_a_node_not_reached_shows_nothing():
    ev = evidence("spark-pair", {"spark-a": SPARK, "spark-b": None}, errors={"spark-b": "spark-b: no answer in 10 s"})
    ev.raw = [r for r in ev.raw if r.node != "spark-b"]
    why = profile_problem(ev)
    assert why.startswith("spark-b gave no platform output (spark-b: no answer in 10 s)") and "every node" in why


def test_one_spark_named_twice_is_not_a_pair():
    ev = evidence("spark-pair", {"spark-a": SPARK, "spark-b": SPARK})
    assert "are one machine (the same machine-id)" in profile_problem(ev)
    ev = evidence("spark-pair", {"spark-a": platform_text(["NVIDIA GB10"], mid=None),
                                 "spark-b": platform_text(["NVIDIA GB10"], mid=None)},
                  host_keys={"spark-a": "SHA256:same", "spark-b": "SHA256:same"})
    assert "the same SSH host key" in profile_problem(ev)


# ----------------------------------------------------------------------------------------- identity


def test_identity_is_the_machines_not_the_names():
    keys = {"spark-a": "SHA256:aaa", "spark-b": "SHA256:bbb"}
    one = evidence("spark-pair", {"spark-a": SPARK, "spark-b": SPARK_B}, host_keys=keys)
    renamed = evidence("spark-pair", {"x": SPARK_B, "y": SPARK}, host_keys={"x": "SHA256:bbb", "y": "SHA256:aaa"},
                       lesson="lesson2")
    assert identity(one) == identity(renamed) and len(identity(one)) == 64
    other = evidence("spark-pair", {"spark-a": SPARK, "spark-b": platform_text(["NVIDIA GB10"], mid="c" * 64)},
                     host_keys=keys)
    assert identity(other) != identity(one)
    rekeyed = evidence("spark-pair", {"spark-a": SPARK, "spark-b": SPARK_B},
                       host_keys={"spark-a": "SHA256:aaa", "spark-b": "SHA256:new"})
    assert identity(rekeyed) != identity(one)
    assert identity(evidence("sim", {"a": None})) is None
    assert identity(evidence("sim", {"a": None}, host_keys={"a": "SHA256:aaa"})) is not None  # older evidence


# ----------------------------------------------------------------------------------------- replays


def test_evidence_saved_into_recorded_is_a_replay(tmp_path):
    from grader.notebook import RECORDED_DIR

    assert REPLAY_DIR == RECORDED_DIR
    ev = evidence("sim", {"spark-a": platform_text(sim="spark-a"), "spark-b": platform_text(sim="spark-b", mid=MID_B)})
    ev.save(tmp_path / "golden")
    assert "replay" not in ev.provenance and replay_problem(load_evidence(tmp_path / "golden" / "lesson1.json")) is None
    ev.save(tmp_path / REPLAY_DIR)
    back = load_evidence(tmp_path / REPLAY_DIR / "lesson1.json")
    assert back.provenance["replay"] is True
    why = replay_problem(back)
    assert "replay evidence shipped with the labs" in why and "clusterlab check lesson1" in why


def test_a_copy_of_a_replay_without_its_mark_is_known_by_identity(monkeypatch):
    ev = evidence("sim", {"spark-a": platform_text(sim="spark-a"), "spark-b": platform_text(sim="spark-b", mid=MID_B)},
                  host_keys={"spark-a": "SHA256:aaa", "spark-b": "SHA256:bbb"})
    monkeypatch.setattr(provenance, "registered_replays", lambda: {
        identity(ev): {"files": ["solutions/lesson1/recorded/lesson1.json"], "recorded": ["2026-12-01T10:00:00+00:00"]}})
    why = replay_problem(ev)
    assert "same machines as the replay" in why and "solutions/lesson1/recorded/lesson1.json" in why
    other = evidence("sim", {"spark-a": platform_text(sim="spark-a", mid="c" * 64)}, host_keys={"spark-a": "SHA256:x"})
    assert replay_problem(other) is None


def test_the_shipped_replays_are_registered():
    """checks/replays.toml names every solutions/*/recorded/*.json by its identity, and each is a replay."""
    reg = provenance.registered_replays()
    files = sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob("solutions/*/recorded/*.json"))
    assert sorted(f for v in reg.values() for f in v["files"]) == files
    for f in files:
        ev = load_evidence(ROOT / f)
        assert identity(ev) in reg and replay_problem(ev)
        assert profile_problem(ev) is None, f  # recorded on the sim with the platform probe
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "register_replays.py"), "--check"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


# ----------------------------------------------------------------------------------------- loadtest


def test_loadtest_probes_every_reached_node_and_replaces_the_old_platform_output():
    from grader.loadtest import probe_platform
    from grader.transport import CommandResult

    class Conn:
        def __init__(self, name, out):
            self.node, self.out = SimpleNamespace(name=name), out
            self.host_key, self.host_key_type = f"SHA256:{name}", "ssh-ed25519"

        def run(self, command, timeout_s=None):
            assert command == PROBE.command
            return CommandResult(command, self.out, "", 0, 0.01)

    ev = evidence("spark-pair", {"spark-a": SPARK, "spark-b": SPARK_B}, lesson="lab")
    probe_platform(ev, {"spark-a": Conn("spark-a", SPARK_B)}, {"spark-b": "spark-b: refused"})
    assert [r.stdout for r in ev.raw if r.probe == "platform"] == [SPARK_B]
    assert ev.errors == {"spark-b": "spark-b: refused"}
    assert ev.provenance["nodes"] == {"spark-a": {"host_key": "SHA256:spark-a", "host_key_type": "ssh-ed25519"}}


def test_loadtest_never_merges_into_a_replay(tmp_path):
    """A learner who copied the lab's replay into evidence/ and measures one side does not inherit its other side."""
    from grader.loadtest import run
    from tests.test_loadtest import FakeConn, inventory

    replay = load_evidence(ROOT / "solutions" / "lab" / "recorded" / "lab.json")
    assert replay_problem(replay)
    shutil.copy(ROOT / "solutions" / "lab" / "recorded" / "lab.json", tmp_path / "lab.json")
    said = []
    ev = run(inventory("ray"), FakeConn(0.004, 0.05), label="pair", levels=(1,), input_len=64, output_len=16,
             prompts=8, evidence_dir=str(tmp_path), progress=said.append)
    assert not any(r.probe.startswith("vllm-bench:baseline") for r in ev.raw)
    assert "replay shipped with the labs" in said[0]
    # where the replays are recorded, the other side is kept
    (tmp_path / REPLAY_DIR).mkdir()
    shutil.copy(ROOT / "solutions" / "lab" / "recorded" / "lab.json", tmp_path / REPLAY_DIR / "lab.json")
    ev = run(inventory("ray"), FakeConn(0.004, 0.05), label="pair", levels=(1,), input_len=64, output_len=16,
             prompts=8, evidence_dir=str(tmp_path / REPLAY_DIR), progress=lambda m: None)
    assert any(r.probe.startswith("vllm-bench:baseline") for r in ev.raw)


# ----------------------------------------------------------------------------------------- audit


def test_audit_flags_one_recording_handed_in_by_two_students(tmp_path, capsys):
    import nbformat

    from grader.audit import flagged, render, shared_evidence
    from grader.cli import main

    keys = {"spark-a": "SHA256:aaa", "spark-b": "SHA256:bbb"}
    shared = evidence("sim", {"spark-a": platform_text(sim="spark-a"), "spark-b": platform_text(sim="spark-b", mid=MID_B)},
                      host_keys=keys)
    own = evidence("sim", {"spark-a": platform_text(sim="spark-a", mid="c" * 64),
                           "spark-b": platform_text(sim="spark-b", mid="d" * 64)}, host_keys=keys)
    for student, ev in (("alice", shared), ("bob", shared), ("carol", own)):
        d = tmp_path / student / "lesson1"
        ev.save(d / "evidence")
        nbformat.write(nbformat.v4.new_notebook(), d / "lesson1.ipynb")
    rows = shared_evidence(tmp_path)
    assert [(r.student, r.status, r.cell) for r in rows] == [("alice", "SHARED", "evidence/lesson1.json"),
                                                             ("bob", "SHARED", "evidence/lesson1.json")]
    assert "bob" in rows[0].why and identity(shared)[:12] in rows[0].why
    assert flagged(rows) and not flagged([])
    assert shared_evidence(tmp_path, "lab") == []
    assert "2 submissions share a recording" in render(rows)
    assert main(["audit", str(tmp_path), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert {(r["student"], r["status"]) for r in out["rows"]} == {("alice", "SHARED"), ("bob", "SHARED")}
    (tmp_path / "bob" / "lesson1" / "evidence" / "lesson1.json").unlink()
    assert main(["audit", str(tmp_path)]) == 0


# ----------------------------------------------------------------------------------------- live, on the sim


@pytest.mark.skipif(os.geteuid() != 0 or not (shutil.which("sshd") or Path("/usr/sbin/sshd").exists()),
                    reason="the sim needs root and OpenSSH sshd")
def test_live_lesson1_on_the_sim_shows_profile_sim(tmp_path):
    from grader import sim
    from grader.sim.cluster import SIM_MARKER

    try:
        sim.down()  # so the marker seen below is the host's own, if any
        marker_before = SIM_MARKER.exists()
        inv = sim.up([])
    except sim.SimError as e:
        pytest.skip(f"the sim cannot be brought up here: {e}")
    try:
        idents = []
        for run in ("first", "second"):
            if run == "second":
                inv = sim.up([])  # a new up: new machines
            p = subprocess.run([sys.executable, "-m", "grader.cli", "check", "lesson1", "--inventory", str(inv),
                                "--evidence", str(tmp_path / run), "--json"], capture_output=True, text=True, timeout=120)
            assert "Traceback" not in p.stderr, p.stderr
            ev = load_evidence(tmp_path / run / "lesson1.json")
            assert ev.profile == "sim" and profile_problem(ev) is None
            assert replay_problem(ev) is None
            plat = platform(ev)
            assert set(plat) == {"spark-a", "spark-b"} and all(p["sim"] for p in plat.values())
            a, b = plat["spark-a"], plat["spark-b"]
            assert a["machine_id_sha256"] and b["machine_id_sha256"] and a["machine_id_sha256"] != b["machine_id_sha256"]
            assert a["host_key"].startswith("SHA256:") and b["host_key"].startswith("SHA256:")
            assert a["host_key"] != b["host_key"]
            assert ev.provenance["nodes"]["spark-a"]["host_key_type"] == "ssh-ed25519"
            idents.append(identity(ev))
        assert idents[0] != idents[1]  # each `sim up` builds new machines: old recordings are not its own
    finally:
        sim.down()
    assert SIM_MARKER.exists() == marker_before  # down removes the empty bind target up created
