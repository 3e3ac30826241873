"""clusterlab loadtest without a cluster: the command it sends, merging sides into evidence, the CLI errors."""

from __future__ import annotations

import shlex
from types import SimpleNamespace

import pytest

from grader.facts import derivers
from grader.loadtest import LoadTestError, bench_command, label_of, parse_levels, run
from grader.transport import CommandResult
from tests.test_lab import result_json


class FakeConn:
    """Answers each bench command with a result like the head would print."""

    def __init__(self, tpot: float, ttft: float):
        self.node = SimpleNamespace(name="spark-a")
        self.tpot, self.ttft, self.commands = tpot, ttft, []

    def run(self, command: str, timeout_s: float | None = None) -> CommandResult:
        self.commands.append((command, timeout_s))
        if "safetensors" in command:
            return CommandResult(command, "2300000\n", "", 0, 0.01)
        c = int(shlex.split(command.split("; ", 2)[2])[shlex.split(command.split("; ", 2)[2]).index("--max-concurrency") + 1])
        return CommandResult(command, result_json(self.tpot, self.ttft, c), "tail of the console", 0, 1.5)


def inventory(mode: str | None = "ray"):
    node = SimpleNamespace(name="spark-a", address="10.77.7.10", port=22, user="root")
    serve = SimpleNamespace(url="http://10.77.7.10:8000", model="/models/tiny-llama", served_model_name=None,
                            mode=mode, head="spark-a")
    worker = SimpleNamespace(name="spark-b", address="10.77.7.11", port=22, user="root")
    return SimpleNamespace(profile="sim", qsfp_port=1, nodes=[node, worker], serve=serve)


def test_levels_and_labels():
    assert parse_levels("16,1,4,4") == (1, 4, 16)
    with pytest.raises(ValueError):
        parse_levels("0,x")
    assert label_of("single", None) == "baseline" and label_of("ray", None) == "pair"
    assert label_of(None, "baseline") == "baseline"
    with pytest.raises(LoadTestError):
        label_of(None, None)


def test_bench_command_is_bounded_quoted_and_cleans_up():
    cmd = bench_command("http://h:8000", "my model'; rm -rf /", "/m", 4, 64, 32, 10)
    assert "'my model'\"'\"'; rm -rf /'" in cmd
    assert "--save-detailed" in cmd and "--max-concurrency 4" in cmd and "--ignore-eos" in cmd
    assert cmd.startswith("d=$(mktemp -d") and 'rm -rf "$d"' in cmd


def test_run_records_each_level_and_keeps_the_other_side(tmp_path, monkeypatch):
    monkeypatch.setenv("CLUSTERLAB_SIM_OWN_WORK", "off")  # these runs seal no sim record (run() alone, no sim)
    inv = inventory("ray")
    conn = FakeConn(0.004, 0.05)
    ev = run(inv, conn, label="pair", levels=(1, 4), input_len=64, output_len=16, prompts=8,
             evidence_dir=str(tmp_path), progress=lambda m: None)
    assert [r.probe for r in ev.raw] == ["vllm-bench:pair:c1", "vllm-bench:pair:c4", "model-weight-bytes"]
    assert ev.measurements["lab"]["bytes_per_token"] == 2300000 and conn.commands[0][1] == 300.0
    ev.facts = derivers()["lab"](ev)
    ev.save(tmp_path)
    ev2 = run(inventory("single"), FakeConn(0.002, 0.02), label="baseline", levels=(1, 4), input_len=64,
              output_len=16, prompts=8, evidence_dir=str(tmp_path), progress=lambda m: None)
    f = derivers()["lab"](ev2)
    assert set(f["pair"]) == set(f["baseline"]) == {"c1", "c4"} and f["missing"] == [] and f["problems"] == []
    assert f["ratios"]["c1"] < 1
    # running the pair again replaces the pair's levels, not the baseline's
    ev2.facts = f
    ev2.save(tmp_path)
    ev3 = run(inv, FakeConn(0.004, 0.05), label="pair", levels=(1,), input_len=64, output_len=16, prompts=8,
              evidence_dir=str(tmp_path), progress=lambda m: None)
    assert sorted(r.probe for r in ev3.raw if r.probe.startswith("vllm-bench")) == [
        "vllm-bench:baseline:c1", "vllm-bench:baseline:c4", "vllm-bench:pair:c1"]


def test_sim_evidence_that_earns_nothing_is_not_merged_into(tmp_path, monkeypatch):
    """A side measured on the sim's ready-made serving (or with no record of how the sim was built) earns nothing:
    the next side, measured at the lab's start, starts a new lab.json rather than hide it under the new run's
    record; the answer key's next side (a record that earns nothing too) and, with the instructor's switch off,
    any next side merge."""
    import grader.checking

    monkeypatch.delenv("CLUSTERLAB_SIM_OWN_WORK", raising=False)
    now = {"start": "lab", "built_at": "t", "nodes": {}, "served_by_sim": False}
    monkeypatch.setattr(grader.checking, "sim_record", lambda profile: now)
    said = []
    ev = run(inventory("ray"), FakeConn(0.004, 0.05), label="pair", levels=(1,), input_len=64, output_len=16,
             prompts=8, evidence_dir=str(tmp_path), progress=lambda m: None)
    ev.provenance["sim"] = {"start": None, "built_at": "t", "nodes": {}, "served_by_sim": True}
    ev.facts = derivers()["lab"](ev)
    ev.save(tmp_path)
    ev2 = run(inventory("single"), FakeConn(0.002, 0.02), label="baseline", levels=(1,), input_len=64, output_len=16,
              prompts=8, evidence_dir=str(tmp_path), progress=said.append)
    assert [r.probe for r in ev2.raw if r.probe.startswith("vllm-bench")] == ["vllm-bench:baseline:c1"]
    assert any("starting a new" in m and "earns nothing" in m and "was built finished" in m for m in said), said
    ev.save(tmp_path)
    now.update(start=None, served_by_sim=True)  # the answer key's baseline after its pair: kept together
    ev4 = run(inventory("single"), FakeConn(0.002, 0.02), label="baseline", levels=(1,), input_len=64, output_len=16,
              prompts=8, evidence_dir=str(tmp_path), progress=lambda m: None)
    assert sorted(r.probe for r in ev4.raw if r.probe.startswith("vllm-bench")) == [
        "vllm-bench:baseline:c1", "vllm-bench:pair:c1"]
    now.update(start="lab", served_by_sim=False)
    monkeypatch.setenv("CLUSTERLAB_SIM_OWN_WORK", "off")
    ev3 = run(inventory("single"), FakeConn(0.002, 0.02), label="baseline", levels=(1,), input_len=64, output_len=16,
              prompts=8, evidence_dir=str(tmp_path), progress=lambda m: None)
    assert sorted(r.probe for r in ev3.raw if r.probe.startswith("vllm-bench")) == [
        "vllm-bench:baseline:c1", "vllm-bench:pair:c1"]


def test_cli_without_serve_table(tmp_path, capsys):
    from grader.cli import main
    inv = tmp_path / "inv.toml"
    inv.write_text('profile = "spark-pair"\nqsfp_port = 1\n[[nodes]]\nname = "a"\naddress = "127.0.0.1"\n'
                   '[[nodes]]\nname = "b"\naddress = "127.0.0.2"\n')
    assert main(["loadtest", "--inventory", str(inv)]) == 2
    assert "[serve]" in capsys.readouterr().err
    assert main(["loadtest", "--inventory", str(inv), "--concurrency", "0"]) == 2
