"""Every threshold on what software prints names the engine versions it holds for (the project's rule, as
checks/ranges.toml's ranges do): each figure of checks/specs/serving.toml and memory.toml, and each engine setting of
gpus.toml (GB10's --gpu-memory-utilization), carries a non-empty ``engine``, and grader.calc.specs rejects one that is empty or not a string, naming file, row and key."""

from __future__ import annotations

import re

import pytest

from grader.calc import specs

SOFTWARE_TABLES = ("serving.toml", "memory.toml")


@pytest.mark.parametrize("name", SOFTWARE_TABLES)
def test_every_software_threshold_names_its_engine(name):
    rows = specs.load_rows(name)
    figures = [(r.id, k, f) for r in rows.values() for k, f in r.figures.items()]
    assert figures, name
    missing = [f"checks/specs/{name} [{rid}] {key}" for rid, key, f in figures if not f.engine.strip()]
    assert not missing, "figures with no engine (the software and versions they hold for):\n" + "\n".join(missing)


@pytest.mark.parametrize("name", SOFTWARE_TABLES)
def test_each_engine_shows_a_version_or_says_why_not(name):
    """An engine shows the versions its sources printed, says they did not print one, or says the figure holds
    for any engine (a reader's rate, a queue's arithmetic): never a bare software name."""
    vague = [f"[{r.id}] {k}: {f.engine!r}" for r in specs.load_rows(name).values() for k, f in r.figures.items()
             if not (re.search(r"\d+\.\d+|build \w+", f.engine) or "not printed" in f.engine
                     or f.engine.startswith("any engine"))]
    assert not vague, "\n".join(vague)


ENGINE_SETTINGS = ("vllm_", "sglang_", "llama_", "trtllm_", "nccl_")
"""A checks/specs/gpus.toml figure whose name starts so is an engine's setting for that machine (vLLM's
--gpu-memory-utilization on GB10), not a property of the hardware."""


def test_hardware_figures_need_no_engine_and_engine_settings_name_theirs():
    fig = specs.Figure("x", "", "a source", "C")
    assert fig.engine == "" and fig.verified
    figures = [(gid, k, f) for gid, g in specs.load_gpus().items() for k, f in g.figures.items()]
    settings = [(gid, k, f) for gid, k, f in figures if k.startswith(ENGINE_SETTINGS)]
    assert settings  # GB10's --gpu-memory-utilization figures
    assert all(f.engine == "" for gid, k, f in figures if not k.startswith(ENGINE_SETTINGS))
    vague = [f"[{gid}] {k}: {f.engine!r}" for gid, k, f in settings
             if not (re.search(r"\d+\.\d+", f.engine) or "not printed" in f.engine)]
    assert not vague, "\n".join(vague)


BAD_ENGINES = {'""': "''", '"   "': "'   '", "3": "3", '["vLLM"]': r"\['vLLM'\]", "{ name = \"vLLM\" }": r"\{'name'"}


@pytest.mark.parametrize("engine", list(BAD_ENGINES))
def test_the_loader_rejects_a_bad_engine(engine, tmp_path, monkeypatch):
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "bad_engine.toml").write_text(
        '[stall]\nname = "A row"\n'
        'ok_one = { value = 7.5, unit = "s", source = "a thread", trust = "C", engine = "vLLM 0.11" }\n'
        f'wait_lines = {{ value = 7.5, unit = "lines", source = "a thread", trust = "C", engine = {engine} }}\n',
        encoding="utf-8")
    monkeypatch.setattr(specs.resources, "files", lambda package: tmp_path)
    specs.load_rows.cache_clear()
    try:
        with pytest.raises(specs.SpecError) as e:
            specs.load_rows("bad_engine.toml")
    finally:
        monkeypatch.undo()
        specs.load_rows.cache_clear()
    assert re.search(r"checks/specs/bad_engine\.toml \[stall\] wait_lines engine: " + BAD_ENGINES[engine], str(e.value))
    assert "non-empty string" in str(e.value)


def test_the_loader_reads_a_good_engine(tmp_path, monkeypatch):
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "good_engine.toml").write_text(
        '[stall]\nname = "A row"\n'
        'wait_lines = { value = 7.5, unit = "lines", source = "a thread", trust = "C", engine = "vLLM 0.11" }\n'
        'bare = { value = 7.5, unit = "GB", source = "a datasheet", trust = "A" }\n', encoding="utf-8")
    monkeypatch.setattr(specs.resources, "files", lambda package: tmp_path)
    specs.load_rows.cache_clear()
    try:
        rows = specs.load_rows("good_engine.toml")
    finally:
        monkeypatch.undo()
        specs.load_rows.cache_clear()
    assert rows["stall"].figure("wait_lines").engine == "vLLM 0.11"
    assert rows["stall"].figure("bare").engine == ""
    assert specs.row("serving.toml", "engine").figure("stall_repeats").engine.startswith("vLLM")
