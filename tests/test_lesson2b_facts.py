"""Lesson 2b facts and verdicts (Ray across the nodes, one `vllm serve`) from evidence built of real
outputs (spark 12/16/17, vllm-cpu 16/17), no cluster needed."""

from __future__ import annotations

import json
from pathlib import Path

from grader.evidence import Evidence, RawOutput
from grader.facts.lesson2 import derive
from grader.facts.lesson2_serve import model_hashes, parse_ray_node
from grader.grading import grade
from tests.conftest import real_fixture
from tests.test_calc_serving import TINY
from tests.test_lesson2_facts import GOOD_ENV, env_text, ip_addr_text, rdma_text

A, B = "spark-a", "spark-b"
CAPTURED = Path(__file__).parent / "fixtures" / "captured" / "sim_serve"
"""vLLM logs and `ray status -v` captured on the sim under lesson 2b's launch faults."""
CHECKS_2B = ("L2.ray_nodes", "L2.head_on_qsfp", "L2.vllm_host_ip", "L2.parallel_sizes", "L2.kv_capacity",
             "L2.model_same", "L2.versions_same", "L2.launch")
MODEL = "/models/tiny-llama"
SHA_CFG, SHA_IDX = "a" * 64, "b" * 64
MODELS_JSON = json.dumps({"object": "list", "data": [{"id": "tiny-llama", "object": "model", "root": MODEL,
                                                       "max_model_len": 512, "owned_by": "vllm"}]})
LLAMA_8B = {"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 32, "num_attention_heads": 32,
            "num_key_value_heads": 8, "hidden_size": 4096, "torch_dtype": "bfloat16"}


VENV = "=== /opt/venv/lib/python3.12/site-packages/\n"


def versions_block(vllm="0.11.0", python="3.12.3", nccl="2.27.3") -> str:
    return f"{VENV}vllm {vllm}\ntorch 2.8.0+cu128\nray 2.49.1\nnccl {nccl}\n{VENV}python {python}\n"


def ray_status_fixture() -> str:
    """The `ray status` block of spark/12 (two Sparks, 1 GPU each), without the notes around it."""
    text = real_fixture("spark/12_*").read_text()
    return text.split("ray status ---\n", 1)[1].split("\n# ---", 1)[0]


def ray_node_text(ip: str, head: bool) -> str:
    gcs = f"=== gcs_server\n--node-ip-address={ip}\n" if head else ""
    return gcs + f"=== raylet\n--node_ip_address={ip}\n--gcs-address=192.168.100.10:6379\n"


def evidence(profile="spark-pair", *, ray_status=None, log="vllm-cpu/17_*", config=TINY, host_ip=None,
             head_ip="192.168.100.10", hashes_b=(SHA_CFG, SHA_IDX), models=MODELS_JSON, mode="ray") -> Evidence:
    serve = {"url": "http://192.168.100.10:8000", "model": MODEL, "served_model_name": "tiny-llama", "mode": mode,
             "head": A, "log_dir": "/var/log/vllm", "ray_address": "192.168.100.10:6379"}
    ev = Evidence(lesson="lesson2", profile=profile,
                  inventory={"profile": profile, "qsfp_port": 1, "nodes": [{"name": A}, {"name": B}], "serve": serve})
    for node, octet in ((A, 10), (B, 11)):
        env = {**GOOD_ENV, "VLLM_HOST_IP": (host_ip or {}).get(node, f"192.168.100.{octet}")}
        ip = ip_addr_text(octet) + (f"2: enP7s7: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 state UP\n"
                                    f"    inet 10.0.0.{octet}/24 brd 10.0.0.255 scope global enP7s7\n")
        hashes = (SHA_CFG, SHA_IDX) if node == A else hashes_b
        sums = f"{hashes[0]}  config.json\n{hashes[1]}  model.safetensors.index.json\n"
        node_ip = (head_ip if node == A else f"192.168.100.{octet}")
        for probe, out in (("ip_addr", ip), ("rdma_link", rdma_text()), ("serving_env", env_text(env)),
                           ("ray_node", ray_node_text(node_ip, node == A)), ("model_files", sums),
                           ("serving_versions", versions_block())):
            ev.raw.append(RawOutput(node, probe, probe, out, "", 0))
    head = [("ray_status", ray_status if ray_status is not None else ray_status_fixture()),
            ("log:vllm", (CAPTURED / log).read_text() if log.endswith(".log") else real_fixture(log).read_text()),
            ("model_config", json.dumps(config)),
            ("v1_models", models)]
    for probe, out in head:
        ev.raw.append(RawOutput(A, probe, probe, out, "", 0))
    return ev


def verdicts(ev: Evidence) -> dict[str, dict]:
    return {v.id: v.to_json() for v in grade(derive(ev), "lesson2", ev.profile) if v.id in CHECKS_2B}


def failed(ev: Evidence) -> set[str]:
    return {i for i, v in verdicts(ev).items() if v["status"] == "fail"}


def test_real_outputs_pass_every_lesson2b_check():
    ev = evidence()
    pair = derive(ev)["pair"]
    assert pair["ray_node_count"] == 2 and pair["ray_resources"] == {"CPU": 40.0, "GPU": 2.0}
    assert pair["ray_node_ips"] == {A: "192.168.100.10", B: "192.168.100.11"}
    assert (pair["ray_head"], pair["ray_head_ip"]) == (A, "192.168.100.10")
    # vllm-cpu/17: PP=2 over Ray, 1 GiB per rank, the tiny model at 512 B per rank-token
    assert (pair["tp"], pair["pp"], pair["backend"]) == (1, 2, "ray")
    assert pair["kv_tokens_logged"] == pair["kv_tokens_predicted"] == 2_097_152 and pair["kv_ratio"] == 1.0
    assert pair["model_hashes"][B] == {"config.json": SHA_CFG, "model.safetensors.index.json": SHA_IDX}
    assert pair["served_models"] == ["tiny-llama"]
    assert {i: v["status"] for i, v in verdicts(ev).items()} == {i: "pass" for i in CHECKS_2B}
    for v in verdicts(ev).values():
        assert v["hint"] and v["source"]


def test_ray_with_one_node_fails_ray_nodes_only():
    text = ray_status_fixture().replace(" 1 node_4dcd7509dc73bd2e758e4048d40233b19eb019dfb54c66095a01e30f\n", "") \
        .replace("0.0/2.0 GPU", "0.0/1.0 GPU")
    ev = evidence(ray_status=text)
    assert failed(ev) == {"L2.ray_nodes"}
    details = " ".join(verdicts(ev)["L2.ray_nodes"]["details"])
    assert "1 node(s) up, expected 2" in details and "1 GPU in all, expected 2" in details


def test_head_on_the_house_network_fails_head_on_qsfp():
    ev = evidence(head_ip="10.0.0.10", host_ip={A: "10.0.0.10"})
    assert failed(ev) == {"L2.head_on_qsfp"}
    assert "10.0.0.10 on enP7s7, not a QSFP twin" in verdicts(ev)["L2.head_on_qsfp"]["details"][0]


def test_vllm_host_ip_other_than_the_ray_address_fails():
    ev = evidence(host_ip={B: "192.168.101.11"})
    assert failed(ev) == {"L2.vllm_host_ip"}
    assert "VLLM_HOST_IP=192.168.101.11, but its Ray node address (--node-ip-address) is 192.168.100.11" in \
        verdicts(ev)["L2.vllm_host_ip"]["details"][0]


def test_kv_arithmetic_from_another_config_fails_kv_capacity():
    ev = evidence(config={**TINY, "num_hidden_layers": 8})
    assert failed(ev) == {"L2.kv_capacity"}
    assert "ratio 2.000" in verdicts(ev)["L2.kv_capacity"]["details"][0]


def test_model_files_differing_fail_model_same():
    ev = evidence(hashes_b=(SHA_CFG, "c" * 64))
    assert failed(ev) == {"L2.model_same"}
    assert "model.safetensors.index.json differs" in verdicts(ev)["L2.model_same"]["details"][0]


def test_failed_launch_is_diagnosed_by_launch_and_the_others_are_not_measured():
    # vllm-cpu/16: the stock CPU platform refuses Ray
    ev = evidence(log="vllm-cpu/16_*", models="")
    v = verdicts(ev)
    assert failed(ev) == {"L2.launch"}
    assert "no Ray device key" in " ".join(v["L2.launch"]["details"])
    assert (v["L2.kv_capacity"]["status"], v["L2.kv_capacity"]["earned"]) == ("unmeasured", 0)


def test_two_sparks_tp2_over_ray_is_the_right_layout():
    # spark/17: TP=2 over Ray on two Sparks, 1 GPU each (its tp-spans-nodes warning is expected)
    pair = derive(evidence(log="spark/17_*", config=LLAMA_8B))["pair"]
    assert (pair["tp"], pair["backend"], pair["parallel_problems"]) == (2, "ray", [])


def test_kv_line_without_a_budget_is_not_judged():
    # spark/16 (single Spark): `GPU KV cache size: 37,392 tokens` but no KV memory line in the excerpt
    pair = derive(evidence(log="spark/16_*", config=LLAMA_8B))["pair"]
    assert pair["kv_tokens_logged"] == 37_392 and pair["kv_problems"] == []
    assert "how much memory the KV cache got" in pair["kv_unmeasured"][0]


def test_without_a_serve_table_every_2b_check_is_not_measured():
    ev = evidence()
    ev.inventory.pop("serve")
    v = verdicts(ev)
    assert {i: (x["status"], x["earned"]) for i, x in v.items()} == {i: ("unmeasured", 0) for i in CHECKS_2B}
    assert "no [serve] table in the inventory" in v["L2.ray_nodes"]["details"][0]


def test_probe_output_readers():
    assert parse_ray_node(ray_node_text("192.168.100.10", True)) == {
        "node_ip": "192.168.100.10", "gcs": True, "gcs_ip": "192.168.100.10", "gcs_address": "192.168.100.10:6379"}
    assert parse_ray_node("") == {"node_ip": None, "gcs": False, "gcs_ip": None, "gcs_address": None}
    assert model_hashes(f"{SHA_CFG}  config.json\n{SHA_IDX} *model.safetensors\nsha256sum: x: No such file\n") == {
        "config.json": SHA_CFG, "model.safetensors": SHA_IDX}


def test_model_missing_on_one_node_owns_the_failed_launch():
    ev = evidence(log="vllm-cpu/16_*")
    ev.raw = [r for r in ev.raw if not (r.node == B and r.probe == "model_files")]
    ev.raw.append(RawOutput(B, "model_files", "sha256sum ...", "", "sha256sum: config.json: No such file or directory", 1))
    pair = derive(ev)["pair"]
    assert pair["model_problems"][0].startswith(f"{B}: the model files are not at {MODEL} (sha256sum: config.json")
    # the stock-platform error has a cause of its own: L2.launch keeps it
    assert failed(ev) == {"L2.model_same", "L2.launch"}


def test_sim_ray_status_without_node_ips_still_counts_the_nodes():
    pair = derive(evidence("sim", ray_status=(CAPTURED / "ray_status_v.txt").read_text()))["pair"]
    assert pair["ray_node_count"] == 2 and pair["ray_resources"] == {"CPU": 2.0, "GPU": 2.0}
    assert pair["ray_problems"] == []


def test_captured_launch_faults_fail_exactly_their_check():
    # serve-no-ray-backend on the sim: the CPU build's form of the World size error
    ev = evidence("sim", ray_status=(CAPTURED / "ray_status_v.txt").read_text(),
                  log="serve_no_ray_backend_vllm.log", models="")
    v = verdicts(ev)
    assert failed(ev) == {"L2.parallel_sizes"}
    assert "World size 2 (TP x PP) was started on this one node" in v["L2.parallel_sizes"]["details"][0]
    assert v["L2.launch"]["details"] == ["the launch failed: see L2.parallel_sizes"]
    # kv-too-small: vLLM's ValueError and its estimated maximum model length
    ev = evidence("sim", ray_status=(CAPTURED / "ray_status_v.txt").read_text(), log="kv_too_small_vllm.log",
                  models="")
    v = verdicts(ev)
    assert failed(ev) == {"L2.kv_capacity"}
    assert "estimates the longest that fits at 128 tokens" in v["L2.kv_capacity"]["details"][0]
    assert "--max-model-len 128" in v["L2.kv_capacity"]["details"][0]


# --------------------------------------------------------------------------- the serving stack's versions

def with_versions(ev: Evidence, per_node: dict[str, str]) -> Evidence:
    """``ev`` with each node's serving_versions probe output."""
    ev.raw = [r for r in ev.raw if r.probe != "serving_versions"]
    ev.raw += [RawOutput(n, "serving_versions", "serving_versions", out, "", 0) for n, out in per_node.items()]
    return ev


def verdict_of(ev: Evidence, check: str):
    return {v.id: v for v in grade(derive(ev), "lesson2", ev.profile)}[check]


def test_the_same_stack_on_both_nodes_passes_versions_same():
    ev = with_versions(evidence(), {A: versions_block(), B: versions_block()})
    facts = derive(ev)["pair"]
    assert facts["versions"][A] == {"vllm": "0.11.0", "torch": "2.8.0+cu128", "ray": "2.49.1", "nccl": "2.27.3",
                                    "python": "3.12.3"} == facts["versions"][B]
    assert facts["version_problems"] == [] and verdict_of(ev, "L2.versions_same").status == "pass"


def test_a_python_patch_apart_fails_versions_same_naming_both():
    """Ray refuses it (ray-project/ray#50511: 3.10.14 against 3.10.15); so does the check, and names each node's."""
    ev = with_versions(evidence(), {A: versions_block(python="3.12.3"), B: versions_block(python="3.12.11")})
    v = verdict_of(ev, "L2.versions_same")
    assert v.status == "fail" and v.earned == 0
    assert "Python differs between the nodes: spark-a 3.12.3, spark-b 3.12.11" in " ".join(v.details)


def test_a_container_on_one_node_and_a_venv_on_the_other_compare_by_name():
    container = "=== docker 0a1b2c3d4e5f\npython 3.12.3\nvllm 0.10.2\ntorch 2.8.0+cu128\nray 2.49.1\nnccl 2.27.3\n"
    ev = with_versions(evidence(), {A: versions_block(), B: container})
    assert derive(ev)["pair"]["version_problems"] == ["vLLM differs between the nodes: spark-a 0.11.0, spark-b 0.10.2"]


def test_no_readable_serving_process_is_not_measured_and_says_why():
    ev = with_versions(evidence(), {A: versions_block(), B: "=== 4711 unreadable\n"})
    v = verdict_of(ev, "L2.versions_same")
    assert v.status == "unmeasured" and "run the check as the user who started Ray and vLLM" in " ".join(v.details)
    ev = with_versions(evidence(), {A: versions_block()})  # spark-b's probe absent: evidence from before the check
    assert verdict_of(ev, "L2.versions_same").status == "unmeasured"


def test_versions_same_is_given_on_the_sim():
    ev = with_versions(evidence("sim"), {A: versions_block(), B: versions_block()})
    v = verdict_of(ev, "L2.versions_same")
    assert v.status == "pass" and v.points == 0


def test_no_lesson2_probe_names_what_the_serving_probes_look_for():
    """The node's probes run side by side (grader.probes.run_plan): a probe whose own command line held `vllm`,
    `raylet`, `ray::`, `gcs_server` or `default_worker` would be found by SERVING_ENV's and SERVING_VERSIONS'
    ``pgrep -f`` and read as a serving process without interface variables (it failed L2.ifname_vars on the sim
    with no vLLM running, 2026-12-04). A shell or a log reader that names a log (`tail ... vllm.log`) is skipped by
    its process name."""
    import re

    from grader.probes import lesson2 as P

    names = re.compile(r"vllm|raylet|ray::|gcs_server|default_worker")
    for probe in P.node_probes():
        assert not names.search(probe.command), probe.id
    for name in ("SERVING_VERSIONS", "RAY_NODE", "RAY_STATUS", "MODEL_FILES"):
        assert not names.search(getattr(P, name)), name
    assert "tail|cat|" in P._NOT_SERVING and f"in {P._NOT_SERVING}) continue" in P.SERVING_ENV


def test_serving_versions_as_the_sim_printed_them():
    """The probe's real output on the healthy served sim (captured, header first): one packages folder, named again
    for the Python of the interpreter that loads it (raylet and gcs_server map it too, and are not run). An older
    capture also held ``=== <pid> unreadable`` for processes that ended between pgrep and the read; such a process
    is now skipped (it is gone, not another user's), and a block of that shape still parses as not readable."""
    from grader.parsers.versions import parse_serving_versions

    text = (CAPTURED / "serving_versions_spark-a.txt").read_text()
    assert text.startswith("# clusterlab sim, healthy served pair")
    env, *gone = parse_serving_versions(text)  # gone: processes that ended between pgrep and the read
    assert all(g.source.isdigit() and not g.readable and not g.versions for g in gone)
    assert env.source == "/opt/clusterlab/serve-venv/lib/python3.11/site-packages/" and env.readable
    assert env.versions == {"vllm": ["0.32.0+cpu"], "torch": ["2.13.0+cpu"], "ray": ["2.60.0"], "python": ["3.11.2"]}


def test_serving_versions_runs_only_an_interpreter():
    """The probe asks a process's executable for its Python version only when its name is an interpreter's: raylet
    and gcs_server live under .../python3.11/site-packages/ and were once run with `-B -c` (they refused the flag;
    a read-only probe must never start them)."""
    import subprocess

    from grader.probes.lesson2 import SERVING_VERSIONS

    case = 'case "${exe##*/}" in python|python[0-9]*) echo run;; *) echo skip;; esac'
    assert case.split(")", 1)[0] in SERVING_VERSIONS
    site = "/opt/venv/lib/python3.11/site-packages/ray/core/src/ray"
    for exe, want in ((f"{site}/raylet/raylet", "skip"), (f"{site}/gcs/gcs_server", "skip"),
                      ("/usr/bin/python3.11", "run"), ("/opt/venv/bin/python", "run"), ("/usr/bin/python3", "run")):
        out = subprocess.run(["bash", "-c", f"exe={exe}; {case}"], capture_output=True, text=True).stdout.strip()
        assert out == want, exe
