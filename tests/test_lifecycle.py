"""The lesson lifecycle without a cluster: the prerequisites file, the command line's refusals, and
``finish``'s command run for real in a local shell (it stops only clusterlab's own processes and
removes only its own temporary directories)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader import lessons, lifecycle
from grader.grading import load_catalogue

CLI = [sys.executable, "-m", "grader.cli"]


def test_every_lesson_says_what_it_requires_and_names_real_checks():
    pre = lifecycle.prerequisites()
    assert list(pre) == list(lessons.names())
    assert pre["lesson2"].after == "lesson1"
    assert set(pre["lesson2"].checks) == {"L1.port", "L1.addressing", "L1.mtu", "L1.ssh", "L1.route"}  # the list
    assert pre["lab"].after == "lesson2" and pre["lab"].sim_ray
    # on the sim the lab starts with Ray and no vLLM (lesson 2's probes need the [serve] table the learner writes
    # then): lesson 1's link is what is checked there, as lesson 2's start checks it
    assert (pre["lab"].sim_after, pre["lab"].sim_checks) == ("lesson1", pre["lesson2"].checks)
    assert pre["lesson3"].checks == ("L3.cards",)
    for p in pre.values():
        if p.after:
            assert set(p.checks) <= {c["id"] for c in load_catalogue(p.after)}
        if p.sim_after:
            assert set(p.sim_checks) <= {c["id"] for c in load_catalogue(p.sim_after)}


def test_a_prerequisite_naming_an_unknown_check_is_refused(tmp_path):
    bad = tmp_path / "lifecycle.toml"
    text = lifecycle.LIFECYCLE_FILE.read_text().replace('"L1.mtu"', '"L1.mtuu"')
    bad.write_text(text)
    with pytest.raises(lifecycle.LifecycleError, match="L1.mtuu not in lesson1's catalogue"):
        lifecycle.prerequisites(bad)


def test_solve_refuses_real_machines(tmp_path):
    inv = tmp_path / "inventory.toml"
    inv.write_text('profile = "spark-pair"\nqsfp_port = 1\n[[nodes]]\nname = "spark-a"\naddress = "10.0.0.1"\n'
                   '[[nodes]]\nname = "spark-b"\naddress = "10.0.0.2"\n')
    p = subprocess.run(CLI + ["solve", "lesson1", "--inventory", str(inv)], capture_output=True, text=True)
    assert p.returncode == 2 and "works only on the simulated cluster" in p.stderr and "Traceback" not in p.stderr


def test_watch_refuses_a_zero_interval(tmp_path):
    p = subprocess.run(CLI + ["check", "lesson1", "--inventory", str(tmp_path / "x.toml"), "--watch", "--interval", "0"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "--interval and --timeout must be positive" in p.stderr


def test_ere_does_not_match_its_own_text():
    pat = lifecycle._ere("/tmp/clusterlab-bench.")
    assert pat == r"[/]tmp/clusterlab-bench\."
    grep = shutil.which("grep")
    own = subprocess.run([grep, "-E", pat], input=f"sh -c pat='{pat}'\n", capture_output=True, text=True)
    assert own.stdout == ""
    hit = subprocess.run([grep, "-E", pat], input="vllm bench serve --result-dir /tmp/clusterlab-bench.AbC123\n",
                         capture_output=True, text=True)
    assert hit.stdout


def test_ours_are_the_prefixes_of_the_commands_clusterlab_runs():
    from grader import loadtest
    from grader.probes import lesson1

    (iperf, _), (bench, globs) = lifecycle.ours()["iperf3"], lifecycle.ours()["loadtest"]
    pre = lifecycle.prerequisites()
    assert pre["lesson1"].leaves == ("iperf3",) and pre["lab"].leaves == ("loadtest",)
    assert pre["lab"].solve == ("rebuild", "serve", "load") and pre["lesson3"].solve_nothing
    assert iperf == [lesson1.IPERF3_SERVER, lesson1.IPERF3_CLIENT]
    cmd = loadtest.bench_command("http://x:8000", "m", "/m", 1, 32, 16, 8)
    assert cmd.startswith(f"d=$(mktemp -d {bench[0]}XXXXXX)") and globs == [bench[0] + "*"]


@pytest.mark.skipif(not shutil.which("pgrep") or not shutil.which("bash"), reason="needs procps and bash")
def test_finish_command_stops_only_ours(tmp_path):
    """A stray iperf3 server of ours (its command line as iperf3_between starts it) and a load-test folder
    of ours go; the learner's own process and folder stay. The patterns carry this test's own address
    and folder name, so the test never stops a real run of this machine."""
    from grader.probes.lesson1 import IPERF3_SERVER

    tag = f"192.0.2.{os.getpid() % 250}"
    ours_cmd = f"{IPERF3_SERVER} -B {tag} -p 5201"
    ours = subprocess.Popen(["bash", "-c", f'exec -a "{ours_cmd}" sleep 60'])
    theirs = subprocess.Popen(["bash", "-c", f'exec -a "iperf3 -s -B {tag} -p 5201" sleep 60'])
    mine_dir = Path(f"/tmp/clusterlab-bench.t{os.getpid()}")
    mine_dir.mkdir()
    (mine_dir / "console.log").write_text("x")
    their_dir = tmp_path / "clusterlab-bench-notes"
    their_dir.mkdir()
    try:
        time.sleep(0.3)
        out = subprocess.run(["sh", "-c", lifecycle.finish_command([f"{IPERF3_SERVER} -B {tag}"], [f"{mine_dir}*"])],
                             capture_output=True, text=True, timeout=30).stdout
        assert ours.wait(timeout=5) is not None
        assert theirs.poll() is None, "the learner's own iperf3 was stopped"
        assert f"stopped {ours.pid} {ours_cmd}" in out
        assert f"removed {mine_dir}" in out and not mine_dir.exists()
        assert their_dir.exists() and "left" not in out
    finally:
        for p in (ours, theirs):
            p.kill()
            p.wait()
        shutil.rmtree(mine_dir, ignore_errors=True)


def test_render_finish_names_the_command_for_what_is_left():
    r = lifecycle.FinishResult("lab", left={"spark-a": ["4242 vllm bench serve --result-dir /tmp/clusterlab-bench.x"]})
    text = lifecycle.render_finish(r)
    assert r.exit_code == 1 and "STILL RUNNING on spark-a" in text and "`kill 4242`" in text


def test_notebook_cells_probe_nothing_while_grading_or_without_an_inventory(monkeypatch, capsys, tmp_path):
    from grader import notebook as cl

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CLUSTERLAB_INVENTORY", raising=False)
    monkeypatch.setenv("CLUSTERLAB_REPLAY", "1")
    assert cl.start_lesson("lesson2") is None and cl.finish_lesson("lesson2") is None
    out = capsys.readouterr().out
    assert "start lesson2: no inventory found" in out and "clusterlab finish lesson2 --inventory" in out
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert cl.start_lesson("lab") is None
    assert "nothing to do while nbgrader grades" in capsys.readouterr().out


def test_notebook_start_names_an_unreachable_inventory(tmp_path, capsys):
    from grader import notebook as cl

    inv = tmp_path / "inventory.toml"
    inv.write_text('profile = "spark-pair"\nqsfp_port = 1\ncommand_timeout_s = 2\nknown_hosts = "/dev/null"\n'
                   '[[nodes]]\nname = "spark-a"\naddress = "127.0.0.1"\nport = 9\n'
                   '[[nodes]]\nname = "spark-b"\naddress = "127.0.0.1"\nport = 9\n')
    assert cl.start_lesson("lesson1", inventory=inv) is None
    out = capsys.readouterr().out
    assert "start lesson1: no node could be reached" in out and "spark-a" in out and "Traceback" not in out


def test_solve_lab_gives_the_load_test_every_option_the_command_line_would(monkeypatch, tmp_path):
    """solve lab runs grader.loadtest.cli itself (no sim here: serving and the load test stubbed): the
    options it passes are the ones `clusterlab loadtest` parses, so a renamed option fails here, not live."""
    import inspect
    import re

    from grader import loadtest

    read = set(re.findall(r"\bargs\.(\w+)", inspect.getsource(loadtest.cli)))
    seen = []
    monkeypatch.setattr(lifecycle, "_sim_serving", lambda mode, progress: [])
    monkeypatch.setattr(loadtest, "cli", lambda args: seen.append(vars(args)) or 0)
    lifecycle._lab_load(tmp_path / "inv.toml", tmp_path, lambda m: None)
    assert [s["label"] for s in seen] == ["pair", "baseline"]
    assert all(read <= set(s) and s["format"] == "json" for s in seen), (read, seen)


def test_solve_refuses_to_serve_over_the_learners_own_serving_and_changes_nothing(monkeypatch, tmp_path):
    """solve lesson2 on a sim at lesson 2's start whose Ray or vLLM is the learner's own (the sim records none of
    its own): refused before anything changes, the own-work record included (no sim here: its state stubbed)."""
    from grader import sim
    from grader.sim import serve

    inv = tmp_path / "inventory.toml"
    monkeypatch.setattr(lifecycle, "_sim_only", lambda inventory, verb: inv)
    monkeypatch.setattr(sim, "status", lambda: {"faults": [], "healthy": True, "serve": None,
                                                "nodes": {"spark-a": {}, "spark-b": {}}})
    monkeypatch.setattr(sim, "start_state", lambda: "lesson2")
    monkeypatch.setattr(serve, "learner_serving", lambda nodes: ["spark-a"])
    changed = []
    for name in ("forfeit", "rebuild", "restore_nccl_log"):
        monkeypatch.setattr(sim, name, lambda *a, name=name, **k: changed.append(name) or [])
    monkeypatch.setattr(lifecycle, "_sim_serving", lambda mode, progress: changed.append("serve") or [])
    with pytest.raises(lifecycle.LifecycleError, match=r"spark-a run\(s\) your own Ray or vLLM.*Nothing was changed"):
        lifecycle.solve("lesson2", inv)
    assert changed == []
    monkeypatch.setattr(serve, "learner_serving", lambda nodes: [])  # stopped: the answer key goes on
    lifecycle.solve("lesson2", inv)
    assert changed == ["forfeit", "restore_nccl_log", "serve"]
