"""Serving on the simulated cluster: Ray across both nodes and vLLM's CPU build, for real.

The pure tests check what would be started (serve_spec) and the inventory's [serve] table. The live
tests need root and the serving environment (scripts/install-serve.sh); they share one served
cluster per mode: Ray + PP=2 first (most tests), then the one-node baseline, then vLLM's own
multi-node mode, and the last test checks that `down` leaves nothing behind.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import statistics
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

import grader.sim as sim
from grader.inventory import InventoryError, load_inventory
from grader.sim import cluster as C
from grader.sim import serve
from grader.sim import serve_spec as S
from grader.sim import tiny_model
from grader.sim import topology as T

A, B = T.NODES
QSFP = T.TWINS[T.QSFP_PORT][0]
ADDR = {n: T.PLAYBOOK_ADDR[n][QSFP].split("/")[0] for n in T.NODES}

# ------------------------------------------------------------------------------------------------
# Pure: what would be started, the inventory table


def test_ray_mode_binds_ray_and_vllm_to_the_qsfp_twin():
    ss = S.serve_spec(T.default_spec(), "ray")
    head, worker, vllm = ss.procs
    assert (head.node, head.name, head.oneshot) == (A, "ray", True)
    assert "--head" in head.argv and f"--node-ip-address={ADDR[A]}" in head.argv and "--num-gpus=1" in head.argv
    assert (worker.node, worker.name) == (B, "ray")
    assert f"--address={ADDR[A]}:6379" in worker.argv and f"--node-ip-address={ADDR[B]}" in worker.argv
    assert vllm.node == A and vllm.argv[1:3] == ["serve", str(S.MODEL_DIR)]
    args = " ".join(vllm.argv)
    assert "--pipeline-parallel-size 2 --distributed-executor-backend ray" in args
    assert "--enforce-eager" not in args  # crashes PP=2 on the first request (vllm_cpu.md §5)
    assert vllm.env["RAY_ADDRESS"] == f"{ADDR[A]}:6379"
    for proc in ss.procs:
        assert proc.env["VLLM_CPU_RAY"] == "1"  # the opt-in platform plugin, in raylets and the driver
        assert proc.env["VLLM_HOST_IP"] == ADDR[proc.node]
        for var in S.IFACE_VARS:
            assert proc.env[var] == QSFP, var
        assert proc.env["HF_HUB_OFFLINE"] == "1" and proc.env["PATH"].startswith(f"{S.SERVE_VENV}/bin:")
        assert proc.log == T.LOG_DIR / proc.node / f"{proc.name}.log"
    assert ss.url == f"http://{ADDR[A]}:8000" and ss.host_url == f"http://{T.HOUSE_ADDR[A]}:8000"


def test_nnodes_mode_is_headless_on_the_worker_and_needs_no_ray():
    ss = S.serve_spec(T.default_spec(), "nnodes")
    assert [(p.node, p.name) for p in ss.procs] == [(B, "vllm"), (A, "vllm")]
    worker, head = ss.procs
    assert "--headless" in worker.argv and "--host" not in worker.argv
    for proc, rank in ((head, "0"), (worker, "1")):
        args = " ".join(proc.argv)
        assert f"--nnodes 2 --master-addr {ADDR[A]} --master-port 29501" in args
        assert f"--node-rank {rank}" in args and "--distributed-executor-backend mp" in args
        assert "VLLM_CPU_RAY" not in proc.env and proc.env["VLLM_HOST_IP"] == ADDR[proc.node]
    assert (head.env["VLLM_CPU_OMP_THREADS_BIND"], worker.env["VLLM_CPU_OMP_THREADS_BIND"]) == ("0", "1")
    assert ss.ray_address is None


def test_single_mode_is_one_server_on_the_head():
    ss = S.serve_spec(T.default_spec(), "single")
    assert [(p.node, p.name) for p in ss.procs] == [(A, "vllm")]
    assert "--pipeline-parallel-size" not in ss.procs[0].argv


def test_unknown_mode_names_the_known_ones():
    with pytest.raises(ValueError, match="ray, nnodes, single"):
        S.serve_spec(T.default_spec(), "tp4")


def test_serve_follows_the_cabled_port():
    from grader.sim import faults as F

    spec = F.apply_faults(T.default_spec(), ["wrong-port"])
    assert S.fabric(spec, B) == (T.TWINS[0][0], ADDR[B])  # spark-b's cable is in port 0 there
    assert S.fabric(spec, A) == (QSFP, ADDR[A])


def test_tiny_model_recipe_fits_vllm_cpu():
    r = tiny_model.RECIPE
    assert r["hidden_size"] // r["num_attention_heads"] in (32, 64, 80, 96, 112, 128)
    assert r["num_hidden_layers"] % 2 == 0 and r["num_key_value_heads"] % 2 == 0


def test_tiny_model_is_not_current_in_an_empty_dir(tmp_path):
    assert not tiny_model.is_current(tmp_path)


def test_missing_serving_install_names_the_fix(monkeypatch, tmp_path):
    monkeypatch.setattr(S, "SERVE_VENV", tmp_path / "nope")
    assert "bash scripts/install-serve.sh" in serve.installed()
    with pytest.raises(serve.ServeError, match="install-serve.sh"):
        serve.start("ray")
    with pytest.raises(serve.ServeError, match="known modes: ray, nnodes, single"):
        serve.start("tp8")


def _inventory(tmp_path, serve_table: str) -> Path:
    key = tmp_path / "k"
    key.write_text("x")
    nodes = "".join(f'\n[[nodes]]\nname = "{n}"\naddress = "{T.HOUSE_ADDR[n]}"\nkey_file = "{key}"\n' for n in T.NODES)
    p = tmp_path / "inv.toml"
    p.write_text('profile = "sim"\nqsfp_port = 1\n' + nodes + serve_table)
    return p


def test_inventory_serve_table_as_sim_writes_it(tmp_path):
    ss = S.serve_spec(T.default_spec(), "ray")
    inv = load_inventory(_inventory(tmp_path, serve._serve_inventory(ss)))
    assert inv.serve.url == "http://192.168.100.10:8000" and inv.serve.mode == "ray"
    assert inv.serve.model == str(S.MODEL_DIR) and inv.serve.served_model_name == "tiny-llama"
    assert inv.serve.head == A and inv.serve.ray_address == "192.168.100.10:6379"
    assert inv.serve.log_dir == str(T.LOG_DIR)
    assert load_inventory(_inventory(tmp_path, "")).serve is None  # optional


def test_strip_serve_removes_only_the_serve_table():
    base = 'profile = "sim"\n\n[[nodes]]\nname = "a"\n\n[logs]\nnccl_debug = "~/x"\n'
    ss = S.serve_spec(T.default_spec(), "single")
    assert serve._strip_serve(base + serve._serve_inventory(ss)) == base
    assert serve._strip_serve(base) == base


@pytest.mark.parametrize("table, needle", [
    ('\n[serve]\nurl = "192.168.100.10:8000"\nmodel = "m"\n', "is not an endpoint URL"),
    ('\n[serve]\nurl = "http://x:8000/v1; rm"\nmodel = "m"\n', "is not an endpoint URL"),
    ('\n[serve]\nmodel = "m"\n', "field `serve.url` is required"),
    ('\n[serve]\nurl = "http://x:8000"\nmodel = "m"\nmode = "tp"\n', "field `serve.mode`"),
    ('\n[serve]\nurl = "http://x:8000"\nmodel = "m"\nhead = "spark-z"\n', "[serve] head 'spark-z' is not one of"),
    ('\n[serve]\nurl = "http://x:8000"\nmodel = "m"\nray_address = "x"\n', "is not HOST:PORT"),
    ('\n[serve]\nurl = "http://x:8000"\nmodel = ""\n', "must be one non-empty line"),
    ('\n[serve]\nurl = "http://x:8000"\nmodel = "m"\nport = 1\n', "field `serve.port` is not a known field"),
])
def test_inventory_serve_errors_name_the_field(tmp_path, table, needle):
    with pytest.raises(InventoryError) as err:
        load_inventory(_inventory(tmp_path, table))
    assert needle in str(err.value)


# ------------------------------------------------------------------------------------------------
# Live: root, the tools, and the serving environment

_why_not = None
if os.geteuid() != 0:
    _why_not = "serving on the simulated cluster needs root (network namespaces)"
elif not shutil.which("sshd", path="/usr/sbin:/usr/bin:/sbin:/bin"):
    _why_not = "the simulated cluster needs openssh-server (bash scripts/install.sh)"
else:
    _why_not = serve.installed()
live = pytest.mark.skipif(_why_not is not None, reason=f"{_why_not} (vLLM's CPU build: bash scripts/install-serve.sh)")


def in_node(node: str, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(C.node_command(node) + list(argv), capture_output=True, text=True, timeout=timeout)


def get_json(url: str, body: dict | None = None, timeout: float = 60) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode() if body else None,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())


PROMPT = " ".join(["the pipeline sends activations over the cable"] * 24)


def ttft_ms(host_url: str, prompt: str = PROMPT, max_tokens: int = 4) -> float:
    """Time to the first streamed token of one completion, in ms (a direct client, no batching)."""
    host, port = host_url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    body = json.dumps({"model": S.SERVED_NAME, "prompt": prompt, "max_tokens": max_tokens, "stream": True,
                       "ignore_eos": True, "temperature": 0})
    t0 = time.perf_counter()
    conn.request("POST", "/v1/completions", body, {"Content-Type": "application/json"})
    resp = conn.getresponse()
    assert resp.status == 200, resp.read()
    first = None
    while True:
        line = resp.readline()
        if not line:
            break
        if first is None and line.startswith(b"data: {"):
            first = time.perf_counter()
    conn.close()
    assert first is not None
    return (first - t0) * 1000


def serving_pids() -> dict[str, list[int]]:
    """node -> pids of processes running the serving environment there."""
    stack = set(serve._stray_serving_pids())
    return {node: [p for p in C._ns_pids(node) if p in stack] for node in T.NODES}


def environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode(errors="replace").split("=", 1) for item in raw if b"=" in item)


def cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")


@pytest.fixture(scope="module")
def served():
    host_shm_before = set(os.listdir("/dev/shm"))
    sim.up([])
    info = serve.start("ray")
    yield {"info": info, "host_shm_before": host_shm_before}
    sim.down()


@live
class TestRayPP2:
    def test_health_within_the_deadline(self, served):
        assert served["info"]["health_s"] < serve.HEALTH_DEADLINE_S
        assert sim.status()["serve"] == {"mode": "ray", "url": f"http://{ADDR[A]}:8000",
                                         "host_url": f"http://{T.HOUSE_ADDR[A]}:8000", "ready": True}

    def test_ray_status_shows_two_nodes(self, served):
        deadline = time.monotonic() + 30  # ray status shows a snapshot up to ~10 s old
        while True:
            out = in_node(A, str(S.SERVE_VENV / "bin" / "ray"), "status", f"--address={ADDR[A]}:6379").stdout
            active = out.split("Active:")[1].split("Pending:")[0] if "Active:" in out else ""
            if active.count("node_") == 2 or time.monotonic() > deadline:
                break
            time.sleep(2)
        assert active.count("node_") == 2, out
        assert "2.0/2.0 GPU" in out, out  # both fake GPUs held by vLLM's placement group

    def test_models_lists_the_tiny_model_from_both_nodes(self, served):
        models = get_json(served["info"]["host_url"] + "/v1/models")
        assert [m["id"] for m in models["data"]] == [S.SERVED_NAME]
        assert models["data"][0]["max_model_len"] == S.MAX_MODEL_LEN
        over_qsfp = in_node(B, "curl", "-sf", f"http://{ADDR[A]}:8000/v1/models")
        assert json.loads(over_qsfp.stdout)["data"][0]["id"] == S.SERVED_NAME

    def test_completion_and_chat(self, served):
        url = served["info"]["host_url"]
        out = get_json(url + "/v1/completions", {"model": S.SERVED_NAME, "prompt": "Ray and vLLM",
                                                 "max_tokens": 8, "ignore_eos": True, "temperature": 0})
        assert out["usage"]["completion_tokens"] == 8 and out["choices"][0]["text"]
        chat = get_json(url + "/v1/chat/completions", {"model": S.SERVED_NAME, "max_tokens": 4, "ignore_eos": True,
                                                       "messages": [{"role": "user", "content": "hello"}]})
        assert chat["usage"]["completion_tokens"] == 4

    def test_startup_log_has_kv_cache_and_pipeline_lines(self, served):
        log = (T.LOG_DIR / A / "vllm.log").read_text(errors="replace")
        assert "KV cache size:" in log and "Maximum concurrency for 512 tokens per request" in log
        assert f"ip={ADDR[B]}" in log and "PP rank 1" in log
        assert f"tcp://{ADDR[A]}:" in log and "backend=gloo" in log
        assert "CPU SHM communicator disabled for group pp" in log  # activations go over the network
        assert "Connected to Ray cluster" in log
        assert "Local node IP: " + ADDR[A] in (T.LOG_DIR / A / "ray.log").read_text()
        # the grader reads them over SSH from either node
        assert in_node(B, "grep", "-c", "KV cache size", str(T.LOG_DIR / A / "vllm.log")).stdout.strip() != "0"

    def test_pp_rank_1_runs_in_spark_b(self, served):
        workers = [p for p in C._ns_pids(B) if cmdline(p).startswith("ray::RayWorker")]
        assert workers, [cmdline(p)[:80] for p in C._ns_pids(B)]
        assert any(cmdline(p).startswith("ray::RayWorker") for p in C._ns_pids(A))

    def test_processes_carry_the_interface_variables(self, served):
        pids = serving_pids()
        for node in T.NODES:
            named = {cmdline(p).split()[0].rsplit("/", 1)[-1]: p for p in pids[node]}
            raylets = [p for p in pids[node] if "raylet" in cmdline(p).split()[0]]
            assert raylets, named
            for pid in raylets + [p for p in pids[node] if "vllm serve" in cmdline(p)]:
                env = environ(pid)
                assert env["GLOO_SOCKET_IFNAME"] == QSFP and env["NCCL_SOCKET_IFNAME"] == QSFP
                assert env["TP_SOCKET_IFNAME"] == QSFP and env["UCX_NET_DEVICES"] == QSFP
                assert env["OMPI_MCA_btl_tcp_if_include"] == QSFP
                assert env["VLLM_HOST_IP"] == ADDR[node], (node, cmdline(pid)[:80])

    def test_each_node_has_its_own_dev_shm(self, served):
        """The head's shared-memory files (torch's psm_*) are in its own tmpfs, seen nowhere else."""
        devs = {n: in_node(n, "stat", "-c", "%d", "/dev/shm").stdout.strip() for n in T.NODES}
        assert len({*devs.values(), str(os.stat("/dev/shm").st_dev)}) == 3, devs
        a, b = serve.node_shm_files(A), serve.node_shm_files(B)
        assert a and not set(a) & set(b) and not set(a) & set(os.listdir("/dev/shm"))

    def test_shaping_the_qsfp_twin_raises_ttft(self, served):
        """Activations and the engine's messages cross the veth: throttle it and TTFT rises."""
        url = served["info"]["host_url"]
        ttft_ms(url)  # warm
        before = statistics.median(ttft_ms(url) for _ in range(5))
        rx0 = _bytes(B)
        for node in T.NODES:
            subprocess.run(["tc", "-n", node, "qdisc", "replace", "dev", QSFP, "root", "tbf", "rate", "1mbit",
                            "burst", "16kb", "latency", "1s"], check=True)
        try:
            shaped = statistics.median(ttft_ms(url) for _ in range(3))
        finally:
            for node in T.NODES:
                subprocess.run(["tc", "-n", node, "qdisc", "del", "dev", QSFP, "root"], check=False)
        assert _bytes(B) - rx0 > 20_000  # the prompts' activations reached spark-b over the veth
        after = statistics.median(ttft_ms(url) for _ in range(3))
        print(f"TTFT median: {before:.0f} ms unshaped, {shaped:.0f} ms at 1 Mbit/s, {after:.0f} ms unshaped again")
        assert shaped > 2 * before + 50, (before, shaped, after)
        assert after < shaped / 2, (before, shaped, after)


def _bytes(node: str) -> int:
    out = json.loads(subprocess.run(["ip", "-n", node, "-s", "-j", "link", "show", QSFP], capture_output=True,
                                    text=True, check=True).stdout)
    return out[0]["stats64"]["rx"]["bytes"]


@live
def test_single_node_baseline(served):
    info = serve.start("single")
    assert info["mode"] == "single" and info["ray_address"] is None
    assert not serving_pids()[B]  # spark-b idle: no Ray, no vLLM
    out = get_json(info["host_url"] + "/v1/completions", {"model": S.SERVED_NAME, "prompt": "one machine",
                                                          "max_tokens": 4, "ignore_eos": True})
    assert out["usage"]["completion_tokens"] == 4
    log = (T.LOG_DIR / A / "vllm.log").read_text(errors="replace")
    assert "pipeline_parallel_size=1" in log and "Maximum concurrency for 512 tokens per request" in log
    assert 'mode = "single"' in T.INVENTORY.read_text()


@live
def test_vllm_native_multinode_without_ray(served):
    info = serve.start("nnodes")
    assert serving_pids()[B] and not any("raylet" in cmdline(p) for p in serving_pids()[A])
    out = get_json(info["host_url"] + "/v1/completions", {"model": S.SERVED_NAME, "prompt": "two nodes, no Ray",
                                                          "max_tokens": 4, "ignore_eos": True})
    assert out["usage"]["completion_tokens"] == 4
    assert "headless" in (T.LOG_DIR / B / "vllm.log").read_text(errors="replace")
    assert "CPU SHM communicator disabled for group pp" in (T.LOG_DIR / A / "vllm.log").read_text(errors="replace")


@live
def test_down_leaves_nothing_behind(served):
    if not (sim.status().get("serve") or {}).get("ready"):
        served["info"] = serve.start("ray")
    pids = [p for ps in serving_pids().values() for p in ps]
    sshd = [sim.status()["nodes"][n]["sshd_pid"] for n in T.NODES]
    node_mnt = {os.stat(f"/proc/{pid}/ns/mnt").st_ino for pid in sshd}
    assert pids and serve.node_shm_files(A)
    t0 = time.monotonic()
    sim.down()
    took = time.monotonic() - t0
    for pid in pids + sshd:  # gone, or a zombie waiting to be reaped
        stat = Path(f"/proc/{pid}/stat")
        assert not stat.exists() or stat.read_text().split(") ")[1].startswith("Z"), cmdline(pid)
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert not {A, B, T.VOID_NS} & {line.split()[0] for line in listed.splitlines() if line.strip()}
    # nothing at all runs the serving environment, and no process is left in a node's mount
    # namespace (whose private /dev/shm vanishes with its last process)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                assert os.stat(f"/proc/{entry}/ns/mnt").st_ino not in node_mnt, cmdline(int(entry))
                assert str(S.SERVE_VENV) not in cmdline(int(entry)), cmdline(int(entry))
            except (FileNotFoundError, PermissionError):
                pass
    new_shm = set(os.listdir("/dev/shm")) - served["host_shm_before"]
    assert not {n for n in new_shm if "cpushm" in n or n.startswith(("psm_", "plasma", "sem.mp"))}, new_shm
    for part in (T.RUN_DIR, T.LOG_DIR, T.STATE_FILE):
        assert not part.exists(), part
    assert S.MODEL_DIR.is_dir()  # kept: made once, like the keys
    print(f"sim down with Ray and vLLM running: {took:.1f} s")
