"""Lesson-2b parsers: ``ray status``, vLLM server logs (startup, KV cache, launch errors), ``/v1/models``
and ``/metrics``, on the real outputs in shared/fixtures/real (spark/, vllm-cpu/) and on synthetic
lines for each KV-cache format vLLM printed from 0.8 to 0.33 (the shape of each, and the versions
that print it, from shared/research/procedure.md §4.1, which read them in vLLM's sources).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from grader.parsers.common import ParseError
from grader.parsers.ray_status import parse_ray_status
from grader.parsers.vllm_api import is_completion_json, is_models_json, parse_completion, parse_metrics, parse_models
from grader.diagnoses import diagnose
from grader.parsers.vllm_log import (EVENT_KINDS, parse_python_mapping, parse_serve_command, parse_vllm_log,
                                     split_prefixes)
from tests.conftest import real_fixture

GIB = 2 ** 30


def real(pattern: str) -> str:
    return real_fixture(pattern).read_text()


def between(text: str, start: str, end: str | None = None) -> str:
    """The part of a multi-output fixture from the line containing ``start`` to ``end`` (excluded)."""
    i = text.index(start)
    j = text.index(end, i + len(start)) if end else len(text)
    return text[i:j]


def noisy(text: str) -> str:
    """CRLF, ANSI colours on the level words, docker compose prefixes, markdown fence."""
    out = ["```"]
    for line in text.splitlines():
        line = line.replace(" INFO ", " \x1b[32mINFO\x1b[0m ", 1).replace(" ERROR ", " \x1b[31mERROR\x1b[0m ", 1)
        out.append(("vllm-head-1  | " + line) if line and not line.startswith("#") else line)
    out.append("```")
    return "\r\n".join(out) + "\r\n"


# =========================================================================== ray status

def test_ray_status_two_sparks_fixture_12():
    st = parse_ray_status(real("spark/12_*"))
    assert st.timestamp == "2026-04-19 17:08:02.711002"
    assert [n.node_id for n in st.active_nodes] == [
        "node_83e4b7723832f251eff177c9faf45a5305de7b1755a7f91ce1f3c911",
        "node_4dcd7509dc73bd2e758e4048d40233b19eb019dfb54c66095a01e30f"]
    assert all(n.ip is None and n.count == 1 for n in st.active_nodes)
    assert st.node_count == 2 and st.idle_nodes == () and st.pending_nodes == () and st.failed_nodes == ()
    assert st.resources["CPU"] == (0.0, 40.0) and st.resources["GPU"] == (0.0, 2.0)
    # memory in bytes: Ray prints GiB (2**30)
    assert st.resources["memory"] == (0.0, pytest.approx(221.76 * GIB))
    assert st.resources["object_store_memory"] == (0.0, pytest.approx(19.46 * GIB))
    assert st.pending_demands == () and st.placement_groups == {}
    assert not st.excerpt
    # the torchrun table and NCCL lines pasted after it are not part of the status
    assert st.unread[0].startswith("size(MB)") and len(st.unread) == 12


def test_ray_status_excerpt_while_serving_vllm_cpu_17():
    text = between(real("vllm-cpu/17_*"), "# produced by: RAY_ADDRESS", "# produced by: python sse_timing")
    st = parse_ray_status(text)
    assert st.resources == {"GPU": (2.0, 2.0)} and st.placement_groups == {"GPU": (2.0, 2.0)}
    assert st.excerpt and st.active_nodes == ()


RAY_VERBOSE_PENDING = """\
======== Autoscaler status: 2026-06-30 10:00:00.123456 ========
GCS request time: 0.001234s

Node status
---------------------------------------------------------------
Active:
 1 node_aaaaaaaa11111111
Idle:
 1 node_bbbbbbbb22222222
Pending:
 192.168.100.12: ray.worker.gpu, setting-up
 ray.worker.gpu, 2 launching
Recent failures:
 ray.worker.gpu: NodeTerminated (ip: 192.168.100.13)

Resources
---------------------------------------------------------------
Total Usage:
 1.0/40.0 CPU
 1.0/2.0 GPU (1.0 used of 2.0 reserved in placement groups)
 0B/221.76GiB memory
 1.50KiB/19.46GiB object_store_memory

Total Constraints:
 (no request_resources() constraints)
Total Demands:
 {'GPU': 1.0}: 1+ pending tasks/actors (1+ using placement groups)
 {'GPU': 1.0} * 2 (PACK): 1+ pending placement groups

Node: node_aaaaaaaa11111111 (192.168.100.10)
 Usage:
  1.0/20.0 CPU
  1.0/1.0 GPU
  0B/110.88GiB memory
 Activity:
  Resource: GPU currently in use.

Node: node_bbbbbbbb22222222
 Usage:
  0.0/20.0 CPU
  0.0/1.0 GPU
 Activity:
  (no activity)
"""


def test_ray_status_verbose_with_pending_and_failures():
    st = parse_ray_status(RAY_VERBOSE_PENDING)
    assert [n.node_id for n in st.active_nodes] == ["node_aaaaaaaa11111111"]
    assert [n.node_id for n in st.idle_nodes] == ["node_bbbbbbbb22222222"] and st.node_count == 2
    assert [(n.node_id, n.ip, n.count, n.status) for n in st.pending_nodes] == [
        ("ray.worker.gpu", "192.168.100.12", 1, "setting-up"), ("ray.worker.gpu", None, 2, "launching")]
    assert [(n.node_id, n.ip, n.status) for n in st.failed_nodes] == [
        ("ray.worker.gpu", "192.168.100.13", "NodeTerminated")]
    assert st.resources["GPU"] == (1.0, 2.0) and st.placement_groups["GPU"] == (1.0, 2.0)
    assert st.resources["object_store_memory"] == (1.5 * 1024, pytest.approx(19.46 * GIB))
    assert st.pending_demands == ("{'GPU': 1.0}: 1+ pending tasks/actors (1+ using placement groups)",
                                  "{'GPU': 1.0} * 2 (PACK): 1+ pending placement groups")
    assert st.request_resources == ()
    a, b = st.per_node
    assert (a.node_id, a.ip, a.resources["GPU"], a.activity) == (
        "node_aaaaaaaa11111111", "192.168.100.10", (1.0, 1.0), ("Resource: GPU currently in use.",))
    assert (b.ip, b.resources, b.activity) == (None, {"CPU": (0.0, 20.0), "GPU": (0.0, 1.0)}, ())
    assert st.node_ips == ("192.168.100.10",) and not st.excerpt


def test_ray_status_older_shape_healthy_usage_demands():
    # Ray 2.0-2.4 printed "Healthy:", "Usage:" and "Demands:"; Ray 1.x printed memory as "x/y GiB memory"
    text = ("======== Autoscaler status: 2023-01-01 00:00:00.000000 ========\nNode status\n"
            "---------------------------------------------------------------\nHealthy:\n 1 ray.head.default\n"
            " 2 ray.worker.gpu\nPending:\n (no pending nodes)\nRecent failures:\n (no failures)\n\nResources\n"
            "---------------------------------------------------------------\nUsage:\n 0.0/48.0 CPU\n 0.0/3.0 GPU\n"
            " 0.00/100.000 GiB memory\n\nDemands:\n (no resource demands)\n")
    st = parse_ray_status(text)
    assert [(n.node_id, n.count) for n in st.active_nodes] == [("ray.head.default", 1), ("ray.worker.gpu", 2)]
    assert st.node_count == 3 and st.resources["GPU"] == (0.0, 3.0)
    assert st.resources["memory"] == (0.0, pytest.approx(100 * GIB))


def test_ray_status_autoscaled_cluster_shapes():
    # an autoscaled cluster (node types, not ids), verbose blocks keyed by IP with "Is Idle:" (Ray 2.5-2.7),
    # integer counts, a custom resource, all three kinds of demand
    text = ("======== Autoscaler status: 2023-04-04 19:21:25.239417 ========\nNode status\n-----\nHealthy:\n"
            " 2 p3.2xlarge\n 20 m4.4xlarge\nPending:\n m4.4xlarge, 2 launching\n 10.0.0.4: m4.4xlarge, waiting-for-ssh\n"
            "Recent failures:\n p3.2xlarge: RayletUnexpectedlyDied (ip: 10.0.0.6)\n\nResources\n-----\nTotal Usage:\n"
            " 1/2 AcceleratorType:V100\n 530.0/544.0 CPU\n 2/2 GPU\n 2.00/8.000 GiB memory\n\nTotal Demands:\n"
            " {'CPU': 1}: 150+ pending tasks/actors\n {'CPU': 4} * 5 (PACK): 420+ pending placement groups\n"
            " {'CPU': 16}: 100+ from request_resources()\n\nNode: 10.0.3.87 (ray.head.default)\n Usage:\n"
            "  0.0/2.0 CPU\n Is Idle:\n  False\n")
    st = parse_ray_status(text)
    assert st.node_count == 22 and st.resources["GPU"] == (2.0, 2.0) and st.resources["AcceleratorType:V100"] == (1, 2)
    assert st.resources["memory"] == (pytest.approx(2 * GIB), pytest.approx(8 * GIB))
    assert [(n.ip, n.status) for n in st.pending_nodes] == [(None, "launching"), ("10.0.0.4", "waiting-for-ssh")]
    assert st.failed_nodes[0].status == "RayletUnexpectedlyDied" and st.failed_nodes[0].ip == "10.0.0.6"
    assert len(st.pending_demands) == 3
    [node] = st.per_node
    assert (node.node_id, node.ip, node.node_type, node.activity) == ("10.0.3.87", "10.0.3.87", "ray.head.default",
                                                                      ("Is Idle: False",))
    assert st.unread == ()


def test_ray_status_survives_prompt_ansi_crlf_and_docker_exec():
    text = ("nvidia@spark-a:~$ docker exec node-1234 ray status\r\n"
            + real("spark/12_*").split("# --- torchrun")[0].replace("GPU", "\x1b[1mGPU\x1b[0m").replace("\n", "\r\n"))
    st = parse_ray_status(text)
    assert st.node_count == 2 and st.resources["GPU"] == (0.0, 2.0) and st.unread == ()


@pytest.mark.parametrize("text, words", [
    ("ConnectionError: Could not find any running Ray instance. Please specify the one to connect to by "
     "setting `--address` flag or `RAY_ADDRESS` environment variable.", "Ray is not running"),
    ("No cluster status. It may take a few seconds for the Ray internal services to start up.", "published no cluster status yet"),
    ("bash: ray: command not found", "command not found"),
    ("hello world", "does not look like `ray status`"),
    ("", "empty"),
])
def test_ray_status_errors(text, words):
    with pytest.raises(ParseError) as err:
        parse_ray_status(text)
    assert words in str(err.value) and "ray status" in str(err.value)


def test_ray_status_verbose_without_indentation():
    # a paste whose leading blanks were lost (markdown, some chat tools): node blocks still read as nodes
    flat = "\n".join(x.strip() for x in RAY_VERBOSE_PENDING.splitlines())
    st = parse_ray_status(flat)
    assert st.resources["GPU"] == (1.0, 2.0) and st.resources["CPU"] == (1.0, 40.0)
    assert [u.resources.get("GPU") for u in st.per_node] == [(1.0, 1.0), (0.0, 1.0)]
    assert st.per_node[0].activity == ("Resource: GPU currently in use.",)


def test_ray_status_two_snapshots_keeps_the_last():
    one = RAY_VERBOSE_PENDING
    two = real("spark/12_*").split("# --- torchrun")[0]
    st = parse_ray_status(one + "\n" + two)
    assert st.timestamp == "2026-04-19 17:08:02.711002" and st.resources["GPU"] == (0.0, 2.0)


# =========================================================================== vLLM log: real fixtures

def test_vllm_cpu_07_single_server_startup():
    log = parse_vllm_log(real("vllm-cpu/07_*"))
    assert (log.version, log.model, log.max_model_len) == ("0.32.0", "/models/tiny-llama", 512)
    assert log.args == {"host": "127.0.0.1", "port": 8011, "model": "/models/tiny-llama", "max_model_len": 512}
    assert not log.args_truncated
    p = log.parallel
    assert (p.tensor_parallel_size, p.pipeline_parallel_size, p.data_parallel_size) == (1, 1, 1)
    assert p.sources["tensor_parallel_size"] == "engine config" and p.world_size == 1 and p.logged_world_size == 1
    [kv] = log.kv
    assert (kv.device, kv.tokens, kv.max_model_len, kv.concurrency, kv.form) == ("CPU", 1_048_576, 512, 2048.0,
                                                                                   "one-line")
    assert kv.source.process == "EngineCore" and kv.source.pid == 13328 and kv.source.source == "kv_cache_utils.py:2327"
    assert kv.tokens_per_length == kv.concurrency
    [mem] = log.kv_memory
    assert (mem.gib, mem.total_gib, mem.kind, mem.source.process) == (1.0, 10.09, "explicit", "Worker")
    [rank] = log.ranks
    assert (rank.rank, rank.world_size, rank.backend, rank.pp_rank, rank.ip) == (0, 1, "gloo", 0, None)
    assert not log.ready and log.errors == ()  # the capture stops before the routes
    assert [d.kind for d in diagnose(log)] == ["not-ready"] and diagnose(log)[0].severity == "info"


def test_vllm_cpu_14_pp2_mp_keeps_each_rank():
    log = parse_vllm_log(real("vllm-cpu/14_*"))
    assert log.args["pipeline_parallel_size"] == 2 and log.args["distributed_executor_backend"] == "mp"
    assert log.parallel.pipeline_parallel_size == 2 and log.parallel.distributed_executor_backend == "mp"
    assert log.parallel.world_size == 2 and log.parallel.logged_world_size == 2
    assert [(m.gib, m.source.process) for m in log.kv_memory] == [(1.0, "Worker_PP0"), (1.0, "Worker_PP1")]
    assert [(r.rank, r.world_size, r.pid) for r in log.ranks] == [(0, 2, 19036), (1, 2, 19037)]
    assert log.kv == ()  # this capture has no capacity line


def test_vllm_cpu_16_stock_cpu_refuses_ray():
    log = parse_vllm_log(real("vllm-cpu/16_*"))
    assert log.parallel.distributed_executor_backend == "ray" and log.parallel.pipeline_parallel_size == 2
    assert log.ray_address == "127.0.0.2:6379"
    [cpu] = log.events_of("cpu-no-ray")
    assert cpu.severity == "error" and cpu.numbers == {"platform": "cpu"} and cpu.count == 2
    assert log.events_of("engine-init-failed")[0].numbers["procs"] == "{}"
    d = diagnose(log)
    assert d[0].kind == "cpu-no-ray" and d[0].severity == "fail"
    assert "VLLM_CPU_RAY=1" in d[0].fix and "--nnodes" in d[0].fix
    assert not any(x.kind in ("engine-init-failed", "not-ready") for x in d)


def test_vllm_cpu_17_pp2_over_ray_with_the_plugin():
    log = parse_vllm_log(real("vllm-cpu/17_*"))
    [kv] = log.kv
    assert (kv.device, kv.tokens, kv.max_model_len, kv.concurrency) == ("CPU", 2_097_152, 512, 4096.0)
    assert log.kv_tokens == 2_097_152 and log.concurrency == 4096.0
    assert log.ready and log.url == "http://127.0.0.1:8011" and log.ray_address == "127.0.0.2:6379"
    r0, r1 = log.ranks
    assert (r0.rank, r0.pp_rank, r0.ip, r0.init_method) == (0, 0, None, "tcp://127.0.0.2:33495")
    assert (r1.rank, r1.pp_rank, r1.tp_rank, r1.ip, r1.pid) == (1, 1, 0, "127.0.0.3", 21200)
    assert log.worker_ips == ("127.0.0.3",)
    [s] = log.stats
    assert (s.engine, s.prompt_tokens_per_s, s.generation_tokens_per_s, s.running, s.waiting,
            s.kv_usage_percent, s.prefix_hit_percent) == (0, 0.7, 5.9, 0, 0, 0.0, 0.0)
    assert [e.kind for e in log.events] == ["ray-connected", "pg-created"]
    assert diagnose(log) == []
    # "Restart vllm serve with --enable-scale-out" is prose, not a command line
    assert log.command_args is None


def test_vllm_cpu_10_is_a_client_not_a_server():
    log = parse_vllm_log(real("vllm-cpu/10_*"))
    assert log.client_output and not log.has_startup and diagnose(log) == []


def test_spark_16_two_line_kv_and_the_hybrid_model_trap():
    log = parse_vllm_log(real("spark/16_*"))
    assert log.version == "0.19.1rc1.dev301+g60995c05b" and log.model == "google/gemma-4-31B-it"
    assert log.max_model_len == 262_144 and log.ready
    [kv] = log.kv
    assert (kv.device, kv.tokens, kv.max_model_len, kv.concurrency, kv.form) == ("GPU", 37_392, 262_144, 1.53,
                                                                                   "two-lines")
    assert kv.source.prefix == "(EngineCore pid=1328566)" and len(kv.linenos) == 2
    # tokens / length = 0.14, not 1.53: sliding-window layers, vLLM < 0.24 (procedure.md §4.2)
    assert round(kv.tokens_per_length, 2) == 0.14
    assert diagnose(log) == []


def test_spark_17_ray_tp2_launch_excerpt():
    log = parse_vllm_log(real("spark/17_*"))
    assert log.version == "0.16.1rc1.dev296+ga73af584f.d20260305" and log.model == "QuantTrio/MiniMax-M2-AWQ"
    # the launcher echoes the command: its flags give the layout
    assert log.command_args["tensor_parallel_size"] == "2" and log.command_args["load_format"] == "fastsafetensors"
    assert log.parallel.tensor_parallel_size == 2 and log.parallel.distributed_executor_backend == "ray"
    assert log.parallel.sources["tensor_parallel_size"] == "command line"
    assert log.max_model_len == 128_000 and log.gpu_memory_utilization == 0.7
    [spans] = log.events_of("tp-spans-nodes")
    assert spans.severity == "info" and spans.numbers["tp"] == 2 and spans.numbers["gpus"] == 1
    assert spans.numbers["node"].startswith("9b520231")
    assert log.events_of("pg-created") and log.errors == ()
    assert not any(d.severity == "fail" for d in diagnose(log))


def test_spark_13_nccl_lines_show_the_remote_worker():
    log = parse_vllm_log(real("spark/13_*"))
    assert log.worker_ips == ("169.254.28.198",) and log.kv == () and log.errors == ()
    assert not log.has_startup and diagnose(log) == []


@pytest.mark.parametrize("pattern", ["vllm-cpu/07_*", "vllm-cpu/16_*", "vllm-cpu/17_*", "spark/16_*"])
def test_noisy_copies_read_the_same(pattern):
    text = real(pattern)
    a, b = parse_vllm_log(text), parse_vllm_log(noisy(text))
    assert (a.version, a.model, a.args, a.max_model_len, a.ready) == (b.version, b.model, b.args, b.max_model_len,
                                                                      b.ready)
    assert [(k.tokens, k.concurrency, k.source.prefix) for k in a.kv] == \
        [(k.tokens, k.concurrency, k.source.prefix) for k in b.kv]
    assert [(e.kind, e.count) for e in a.events] == [(e.kind, e.count) for e in b.events]


def test_cut_off_paste_reads_what_is_there():
    text = real("vllm-cpu/17_*")
    cut = text[: text.index("CPU KV cache size") + len("CPU KV cache size: 2,09")]
    log = parse_vllm_log(cut)
    assert log.kv == ()  # a number cut mid-way ("2,09") is not read as 209
    assert log.version == "0.32.0" and not log.ready


def test_not_a_vllm_log():
    with pytest.raises(ParseError) as err:
        parse_vllm_log(real("spark/01_*"))
    assert "vllm serve" in str(err.value) and "no vLLM log line" in str(err.value)
    with pytest.raises(ParseError):
        parse_vllm_log("")


def test_random_garbage_never_escapes_as_another_exception():
    rng = random.Random(7)
    alphabet = "(){}[]:,'\"\n \t=|#$@0123456789abcdefINFOWARNINGpid=ip=.GiBtokensx█"
    base = real("vllm-cpu/17_*")
    for _ in range(60):
        garbage = "".join(rng.choice(alphabet) for _ in range(300))
        cut = base[: rng.randrange(len(base))]
        for text in (garbage, cut + garbage, garbage + cut):
            try:
                parse_vllm_log(text)
            except ParseError:
                pass


# =========================================================================== vLLM log: KV formats by version

KV_SHAPES = [
    # V0 engine, vLLM <= 0.10 (gpu_executor.py in 0.6.x; executor_base.py from 0.7): blocks, old logger header
    ("v0-0.6", "INFO 10-07 18:33:05 gpu_executor.py:122] # GPU blocks: 27666, # CPU blocks: 2048\n"
               "INFO 10-07 18:33:05 gpu_executor.py:126] Maximum concurrency for 8192 tokens per request: 54.04x\n",
     dict(device="GPU", tokens=None, gpu_blocks=27666, cpu_blocks=2048, max_model_len=8192, concurrency=54.04,
          form="blocks")),
    # V0 executor_base.py in 0.8-0.10 (and still in 0.11.0), device name "cuda", bracketed tag
    ("v0-0.8", "INFO 04-01 10:00:00 [executor_base.py:111] # cuda blocks: 27666, # CPU blocks: 2048\n"
               "INFO 04-01 10:00:00 [executor_base.py:116] Maximum concurrency for 8192 tokens per request: 54.04x\n",
     dict(device="cuda", tokens=None, gpu_blocks=27666, cpu_blocks=2048, max_model_len=8192, concurrency=54.04,
          form="blocks")),
    # early V1 (Jan-Feb 2025, PR 12569): GPU blocks only
    ("v1-early", "INFO 02-10 10:00:00 kv_cache_utils.py:523] # GPU blocks: 27666\n"
                 "INFO 02-10 10:00:00 kv_cache_utils.py:526] Maximum concurrency for 8192 tokens per request: 54.04x\n",
     dict(device="GPU", tokens=None, gpu_blocks=27666, cpu_blocks=None, max_model_len=8192, concurrency=54.04,
          form="blocks")),
    # PR 13596 (2025-02-20) through 0.27.x: tokens (comma-grouped) and concurrency on two lines
    ("0.8-0.27", "INFO 05-01 12:00:00 [kv_cache_utils.py:634] GPU KV cache size: 442,656 tokens\n"
                 "INFO 05-01 12:00:00 [kv_cache_utils.py:637] Maximum concurrency for 8,192 tokens per request: 54.04x\n",
     dict(device="GPU", tokens=442_656, gpu_blocks=None, cpu_blocks=None, max_model_len=8192, concurrency=54.04,
          form="two-lines")),
    # 0.20+ (info_once from the engine core, DP prefix)
    ("0.20", "(EngineCore_DP0 pid=123) INFO 11-29 14:02:11 [kv_cache_utils.py:1087] GPU KV cache size: 643,232 tokens\n"
             "(EngineCore_DP0 pid=123) INFO 11-29 14:02:11 [kv_cache_utils.py:1091] Maximum concurrency for 40,960 "
             "tokens per request: 15.70x\n",
     dict(device="GPU", tokens=643_232, gpu_blocks=None, cpu_blocks=None, max_model_len=40_960, concurrency=15.70,
          form="two-lines")),
    # 0.28-0.29: one line
    ("0.28", "(EngineCore_DP0 pid=123) INFO 11-29 14:02:11 [kv_cache_utils.py:1289] GPU KV cache size: 442,656 "
             "tokens, Maximum concurrency for 8,192 tokens per request: 54.04x\n",
     dict(device="GPU", tokens=442_656, gpu_blocks=None, cpu_blocks=None, max_model_len=8192, concurrency=54.04,
          form="one-line")),
    # 0.30+: the device word is the platform's (XPU here; CPU in vllm-cpu/07_*)
    ("0.30-xpu", "(EngineCore_DP0 pid=5) INFO 11-29 14:02:11 [kv_cache_utils.py:2327] XPU KV cache size: 100,000 "
                 "tokens, Maximum concurrency for 4,096 tokens per request: 24.41x\n",
     dict(device="XPU", tokens=100_000, gpu_blocks=None, cpu_blocks=None, max_model_len=4096, concurrency=24.41,
          form="one-line")),
    # 0.32+: "GPU + host" with hisparse offload
    ("0.32-host", "(EngineCore pid=5) INFO 11-29 14:02:11 [kv_cache_utils.py:2327] GPU + host KV cache size: "
                  "1,310,720 tokens, Maximum concurrency for 131,072 tokens per request: 10.00x\n",
     dict(device="GPU + host", tokens=1_310_720, gpu_blocks=None, cpu_blocks=None, max_model_len=131_072,
          concurrency=10.0, form="one-line")),
]


@pytest.mark.parametrize("version, text, want", KV_SHAPES, ids=[v for v, _, _ in KV_SHAPES])
def test_kv_capacity_line_of_each_version(version, text, want):
    [kv] = parse_vllm_log(text).kv
    got = {k: getattr(kv, k) for k in want}
    assert got == want


@pytest.mark.parametrize("version, text, want", KV_SHAPES, ids=[v for v, _, _ in KV_SHAPES])
def test_kv_capacity_line_of_each_version_with_noise(version, text, want):
    [kv] = parse_vllm_log(noisy(text)).kv
    assert (kv.tokens, kv.gpu_blocks, kv.concurrency, kv.max_model_len) == (
        want["tokens"], want["gpu_blocks"], want["concurrency"], want["max_model_len"])


def test_kv_memory_lines():
    text = (
        # V1 gpu_worker, %.2f (0.11) and format_gib (0.20+), one per worker under Ray: each kept with its prefix
        "(EngineCore_DP0 pid=10) INFO 11-29 14:02:11 [gpu_worker.py:298] Available KV cache memory: 50.47 GiB\n"
        "(EngineCore_DP0 pid=10) (RayWorkerWrapper pid=77, ip=192.168.100.11) INFO 11-29 14:02:11 "
        "[gpu_worker.py:298] Available KV cache memory: 50.5 GiB\n"
        # V0 (0.7): the profiling summary
        "INFO 02-01 10:00:00 worker.py:267] the current vLLM instance can use total_gpu_memory (79.15GiB) x "
        "gpu_memory_utilization (0.90) = 71.24GiB; model weights take 14.99GiB; non_torch_memory takes 0.09GiB; "
        "PyTorch activation peak memory takes 1.19GiB; the rest of the memory reserved for KV Cache is 54.97GiB.\n"
        # V0 (0.6.4): "Memory profiling results: ... kv_cache_size=61.54GiB"
        "INFO 10-07 18:33:20 worker.py:232] Memory profiling results: total_gpu_memory=79.15GiB "
        "initial_memory_usage=8.23GiB peak_torch_memory=9.16GiB memory_usage_post_profile=8.35GiB "
        "non_torch_memory=0.53GiB kv_cache_size=61.54GiB gpu_memory_utilization=0.90\n")
    log = parse_vllm_log(text)
    assert [(m.gib, m.kind, m.source.ip) for m in log.kv_memory] == [
        (50.47, "available", None), (50.5, "available", "192.168.100.11"), (54.97, "reserved", None),
        (61.54, "reserved", None)]
    assert log.kv_memory[1].source.prefix == "(EngineCore_DP0 pid=10) (RayWorkerWrapper pid=77, ip=192.168.100.11)"


def test_wrapped_profiling_summary_of_early_v1():
    # 0.8-era V1 wraps the profiling summary over three lines, only the first with a logger header
    text = ("INFO 03-14 09:13:07 [gpu_worker.py:227] Memory profiling takes 11.85 seconds\n"
            "the current vLLM instance can use total_gpu_memory (79.11GiB) x gpu_memory_utilization (0.90) = 71.20GiB\n"
            "model weights take 14.99GiB; non_torch_memory takes 0.35GiB; PyTorch activation peak memory takes "
            "1.24GiB;\n"
            "the rest of the memory reserved for KV Cache is 54.62GiB.\n"
            "INFO 03-14 09:13:08 [kv_cache_utils.py:566] GPU KV cache size: 447,088 tokens\n"
            "INFO 03-14 09:13:08 [kv_cache_utils.py:570] Maximum concurrency for 32,768 tokens per request: 13.64x\n")
    log = parse_vllm_log(text)
    assert [(m.gib, m.kind) for m in log.kv_memory] == [(54.62, "reserved")]
    assert log.gpu_memory_utilization == 0.9 and log.weights_gib == (14.99,)
    assert (log.kv[0].tokens, log.kv[0].concurrency, log.kv[0].max_model_len) == (447_088, 13.64, 32_768)
    # a negative rest (weights and activations above the budget) is read as printed
    neg = parse_vllm_log("INFO 08-12 22:32:11 [worker.py:295] the rest of the memory reserved for KV Cache is "
                         "-7.83GiB.\n")
    assert neg.kv_memory[0].gib == -7.83


def test_per_dp_engine_repetitions_are_each_kept():
    text = ("(EngineCore_DP0 pid=10) INFO 11-29 14:02:11 [kv_cache_utils.py:1087] GPU KV cache size: 100,000 tokens\n"
            "(EngineCore_DP1 pid=11) INFO 11-29 14:02:11 [kv_cache_utils.py:1087] GPU KV cache size: 99,000 tokens\n"
            "(EngineCore_DP1 pid=11) INFO 11-29 14:02:11 [kv_cache_utils.py:1091] Maximum concurrency for 1,000 "
            "tokens per request: 99.00x\n"
            "(EngineCore_DP0 pid=10) INFO 11-29 14:02:11 [kv_cache_utils.py:1091] Maximum concurrency for 1,000 "
            "tokens per request: 100.00x\n")
    a, b = parse_vllm_log(text).kv
    assert (a.source.process, a.tokens, a.concurrency) == ("EngineCore_DP0", 100_000, 100.0)
    assert (b.source.process, b.tokens, b.concurrency) == ("EngineCore_DP1", 99_000, 99.0)


def test_concurrency_line_without_its_size_line():
    [kv] = parse_vllm_log("INFO 05-01 12:00:00 [kv_cache_utils.py:637] Maximum concurrency for 8,192 tokens per "
                          "request: 54.04x\n").kv
    assert (kv.tokens, kv.max_model_len, kv.concurrency) == (None, 8192, 54.04)


def test_cp_multiplier_line_is_not_a_capacity():
    log = parse_vllm_log("INFO 11-29 14:02:11 [kv_cache_utils.py:900] Multiplying the GPU KV cache size by the "
                         "cp_world_size 2 (pcp_world_size 1 * dcp_world_size 2).\n")
    assert log.kv == ()


# =========================================================================== vLLM log: startup facts

def test_v0_banner_namespace_args_and_engine_config():
    text = (
        "INFO 10-07 18:33:01 api_server.py:528] vLLM API server version 0.6.3.post1\n"
        "INFO 10-07 18:33:01 api_server.py:529] args: Namespace(subparser='serve', model_tag='meta-llama/"
        "Llama-3.1-8B-Instruct', host=None, port=8000, tensor_parallel_size=2, pipeline_parallel_size=1, "
        "distributed_executor_backend='ray', max_model_len=8192, gpu_memory_utilization=0.9, "
        "dispatch_function=<function serve at 0x7f>)\n"
        "INFO 10-07 18:33:02 llm_engine.py:237] Initializing an LLM engine (v0.6.3.post1) with config: "
        "model='meta-llama/Llama-3.1-8B-Instruct', dtype=torch.bfloat16, max_seq_len=8192, tensor_parallel_size=2, "
        "pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, seed=0\n"
        "INFO 10-07 18:33:20 model_runner.py:1067] Loading model weights took 7.5122 GB\n"
        "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)\n")
    log = parse_vllm_log(text)
    assert log.version == "0.6.3.post1" and log.model == "meta-llama/Llama-3.1-8B-Instruct"
    assert log.args["dispatch_function"] == "<function serve at 0x7f>" and log.args["port"] == 8000
    assert log.parallel.tensor_parallel_size == 2 and log.parallel.sources["tensor_parallel_size"] == "engine config"
    assert log.parallel.distributed_executor_backend == "ray" and log.gpu_memory_utilization == 0.9
    assert log.max_model_len == 8192 and log.weights_gib == (7.5122,)
    assert log.ready and log.url == "http://0.0.0.0:8000"


def test_ngc_version_banner_and_platform():
    text = ("(APIServer pid=1) INFO 11-29 14:02:10 [__init__.py:216] Automatically detected platform cuda.\n"
            "(APIServer pid=1) INFO 11-29 14:02:11 [utils.py:299]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version "
            "0.17.1+a03ca76a.nv26.03.46967107\n"
            "(APIServer pid=1) INFO 11-29 14:02:11 [utils.py:299]   █▄█▀ █     █     █     █  model   "
            "meta-llama/Llama-3.3-70B-Instruct\n")
    log = parse_vllm_log(text)
    assert (log.version, log.platform, log.model) == ("0.17.1+a03ca76a.nv26.03.46967107", "cuda",
                                                      "meta-llama/Llama-3.3-70B-Instruct")


def test_truncated_non_default_args():
    text = ("(APIServer pid=1) INFO 11-29 14:02:11 [utils.py:233] non-default args: {'model_tag': 'm', "
            "'tensor_parallel_size': 2, 'distributed_executor_backend': 'ray', 'compilation_config': {'level': 3, "
            "'cudagraph_capture_sizes': [1, 2, 4")
    log = parse_vllm_log(text)
    assert log.args == {"model_tag": "m", "tensor_parallel_size": 2, "distributed_executor_backend": "ray"}
    assert log.args_truncated and log.parallel.tensor_parallel_size == 2


def test_python_mapping_reader():
    assert parse_python_mapping("{'a': 1, 'b': [1, 2], 'c': {'d': 'x,y'}, 'e': <Mode.X: 2>}") == (
        {"a": 1, "b": [1, 2], "c": {"d": "x,y"}, "e": "<Mode.X: 2>"}, False)
    assert parse_python_mapping("{'a': 'it''s', 'b': 2") == ({"a": "its"}, True)
    assert parse_python_mapping("a=1, b='x', c=None)", opener="(") == ({"a": 1, "b": "x", "c": None}, False)
    assert parse_python_mapping("{") == ({}, True)


def test_serve_command_line():
    args = parse_serve_command("vllm serve meta-llama/Llama-3.3-70B-Instruct --tensor-parallel-size 2 "
                               "--max-model-len 2048 --gpu-memory-utilization=0.8 --distributed-executor-backend ray "
                               "--enforce-eager -pp 1")
    assert args == {"model": "meta-llama/Llama-3.3-70B-Instruct", "tensor_parallel_size": "2",
                    "max_model_len": "2048", "gpu_memory_utilization": "0.8", "distributed_executor_backend": "ray",
                    "enforce_eager": "True", "pipeline_parallel_size": "1"}
    assert parse_serve_command("python -m vllm.entrypoints.openai.api_server --model /m -tp 2")["tensor_parallel_size"] == "2"
    assert parse_serve_command("vllm bench serve --model x") == {}
    assert parse_serve_command("ls") == {}


def test_prompt_command_gives_the_layout():
    log = parse_vllm_log("nvidia@spark-a:~$ vllm serve /models/tiny --nnodes 2 --node-rank 0 --master-addr "
                         "192.168.100.10 -pp 2 --headless\n(APIServer pid=1) INFO 11-29 14:02:11 [x.py:1] hello\n")
    p = log.parallel
    assert (p.nnodes, p.node_rank, p.pipeline_parallel_size, p.headless) == (2, 0, 2, True)
    assert log.model == "/models/tiny"


@pytest.mark.parametrize("line, process, pid, ip, level, message", [
    ("(APIServer pid=1) INFO 11-29 14:02:11 [api_server.py:1] hi", "APIServer", 1, None, "INFO", "hi"),
    ("(EngineCore_DP0 pid=2301) (RayWorkerWrapper pid=2981, ip=169.254.28.198) WARNING 11-29 14:02:11 [a.py:2] w",
     "RayWorkerWrapper", 2981, "169.254.28.198", "WARNING", "w"),
    ("(pid=21200, ip=127.0.0.3) Triton is installed", None, 21200, "127.0.0.3", None, "Triton is installed"),
    ("vllm-head-1  | (APIServer pid=1) INFO:     Application startup complete.", "APIServer", 1, None, "INFO",
     "Application startup complete."),
    ("2025-06-01T10:00:00.123456789Z (EngineCore pid=9) ERROR 06-01 10:00:00 [core.py:5] boom [repeated 2x across "
     "cluster]", "EngineCore", 9, None, "ERROR", "boom"),
    ("INFO 08-01 10:00:00 llm_engine.py:176] old style", None, None, None, "INFO", "old style"),
    ("2026-11-29 13:55:51,726\tINFO worker.py:1691 -- Using address 127.0.0.2:6379", None, None, None, "INFO",
     "Using address 127.0.0.2:6379"),
    ("(autoscaler +1m2s) Error: No available node types", "autoscaler", None, None, None,
     "Error: No available node types"),
    ("(no failures)", None, None, None, None, "(no failures)"),
    ("(VllmWorker rank=1 pid=4242) INFO 05-01 10:00:00 [gpu_worker.py:1] mp worker, 0.8-0.10", "VllmWorker", 4242,
     None, "INFO", "mp worker, 0.8-0.10"),
    ("(VllmWorker TP1 pid=4242) INFO 05-01 10:00:00 [gpu_worker.py:1] tp tag", "VllmWorker", 4242, None, "INFO",
     "tp tag"),
    ("[pod/vllm-head-0/vllm] (APIServer pid=1) INFO 11-29 14:02:11 [a.py:1] k8s", "APIServer", 1, None, "INFO", "k8s"),
    ("Nov 29 14:02:11 spark-a vllm[1234]: (EngineCore_DP0 pid=9) WARNING 11-29 14:02:11 [a.py:1] journal",
     "EngineCore_DP0", 9, None, "WARNING", "journal"),
    ("(raylet, ip=192.168.100.11) [2026-11-29 14:00:00,000 E 1 1] worker died", "raylet", None, "192.168.100.11",
     None, "[2026-11-29 14:00:00,000 E 1 1] worker died"),
])
def test_split_prefixes(line, process, pid, ip, level, message):
    rec = split_prefixes(line)
    assert (rec.process, rec.pid, rec.ip, rec.level, rec.message) == (process, pid, ip, level, message)


# =========================================================================== vLLM log: errors and diagnose

ERRORS = {
    "world-size": (
        "(APIServer pid=1) pydantic_core._pydantic_core.ValidationError: 1 validation error for ParallelConfig\n"
        "(APIServer pid=1)   Value error, World size (2) is larger than the number of available GPUs (1) in this "
        "node. If this is intentional and you are using:\n"
        "(APIServer pid=1) - ray, set '--distributed-executor-backend ray'.\n"
        "(APIServer pid=1) - multiprocessing, set '--nnodes' appropriately. [type=value_error]\n",
        {"world_size": 2, "gpus": 1}),
    "kv-too-small": (
        "(EngineCore_DP0 pid=10) ERROR 11-29 14:02:12 [core.py:700] ValueError: To serve at least one request with "
        "the model's max seq len (196608), (23.25 GiB KV cache is needed, which is larger than the available KV cache "
        "memory (22.50 GiB). Based on the available memory, the estimated maximum model length is 190256. Try "
        "increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.\n",
        {"max_model_len": 196608, "needed_gib": 23.25, "available_gib": 22.5, "estimated_max_len": 190256}),
    "pg-timeout": (
        "(EngineCore_DP0 pid=1) ValueError: Cannot provide a placement group requiring 2 GPUs (placement_group_specs="
        "[{'node:192.168.100.10': 0.001, 'GPU': 1.0}, {'GPU': 1.0}]) within 1800 seconds. Tensor parallel size may "
        "exceed available GPUs in your cluster.\n",
        {"gpus": 2, "seconds": 1800}),
    "gloo-iface": (
        "(RayWorkerProc pid=1434, ip=192.168.100.11) RuntimeError: [enforce fail at /__w/pytorch/pytorch/third_party/"
        "gloo/gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable to find address for: enP7s7\n",
        {"iface": "enP7s7"}),
    "gloo-connect": (
        "(RayWorkerProc pid=32174) RuntimeError: Gloo connectFullMesh failed with [/__w/pytorch/pytorch/third_party/"
        "gloo/gloo/transport/tcp/pair.cc:152] timed out connecting: SO_ERROR: Connection refused, "
        "remote=[127.0.0.1]:28572\n",
        {"remote": "127.0.0.1", "port": 28572, "loopback": True, "refused": "refused"}),
    "startup-memory": (
        "(EngineCore pid=1) ValueError: Free memory on device (101.2/121.69 GiB) on startup is less than desired GPU "
        "memory utilization (0.9, 109.52 GiB). Decrease GPU memory utilization or reduce GPU memory used by other "
        "processes.\n",
        {"free_gib": 101.2, "total_gib": 121.69, "utilization": 0.9, "wanted_gib": 109.52}),
    "ray-node-timeout": (
        "Exception: The current node timed out during startup. This could happen because some of the raylet failed "
        "to startup or the GCS has become overloaded.\n", {}),
    "shm-open": ("(RayWorkerProc pid=5) RuntimeError: open shm in SHMManager failed. errno: 2\n", {}),
    "vllm-metadata": ("importlib.metadata.PackageNotFoundError: No package metadata was found for vllm\n", {}),
    "nccl-error": ("(EngineCore_DP0 pid=5) (RayWorkerWrapper pid=77, ip=192.168.100.11) ERROR 11-29 14:03:00 "
                   "[worker.py:1] RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO)\n", {}),
    "device-type": ("RuntimeError: Failed to infer device type\n", {}),
    "cpu-thread-binding": ("(EngineCore pid=1) AssertionError: Not enough allowed NUMA nodes to bind threads of 2 "
                           "local CPUWorkers. Allowed NUMA nodes are [0].\n", {}),
    "ray-missing": ("(EngineCore pid=1) ValueError: Failed to import Ray: No module named 'ray'.Please install Ray "
                    "with `pip install ray`.\n", {}),
}


@pytest.mark.parametrize("kind", list(ERRORS))
def test_errors_are_named_and_diagnosed(kind):
    text, numbers = ERRORS[kind]
    log = parse_vllm_log(text)
    event = log.events_of(kind)[0]
    assert event.severity == "error" and event.numbers == numbers
    d = diagnose(log)
    assert d and d[0].kind == kind and d[0].severity == "fail" and d[0].message and d[0].fix


def test_diagnose_says_the_fix_with_the_numbers():
    ws = diagnose(parse_vllm_log(ERRORS["world-size"][0]))[0]
    assert "--distributed-executor-backend ray" in ws.fix and "--nnodes" in ws.fix and "world size 2" in ws.message
    kv = diagnose(parse_vllm_log(ERRORS["kv-too-small"][0]))[0]
    assert "--max-model-len 190256" in kv.fix and "23.25 GiB" in kv.message and "22.5 GiB" in kv.message
    gloo = diagnose(parse_vllm_log(ERRORS["gloo-connect"][0]))[0]
    assert "GLOO_SOCKET_IFNAME" in gloo.fix and "loopback" in gloo.message
    iface = diagnose(parse_vllm_log(ERRORS["gloo-iface"][0]))[0]
    assert "enP7s7" in iface.message and "192.168.100.11" in iface.message


def test_placement_group_wait_is_the_hang():
    text = ("2025-12-17 23:27:49,100\tINFO worker.py:1821 -- Connecting to existing Ray cluster at address: "
            "192.168.100.10:6379...\n"
            "(EngineCore_DP0 pid=1088) INFO 12-17 23:27:50 [ray_utils.py:396] No current placement group found. "
            "Creating a new placement group.\n"
            "(EngineCore_DP0 pid=1088) INFO 12-17 23:28:00 [ray_utils.py:300] Waiting for creating a placement group "
            "of specs for 10 seconds. specs=[{'node:192.168.100.10': 0.001, 'GPU': 1.0}, {'GPU': 1.0}]. Check `ray "
            "status` and `ray list nodes` to see if you have enough resources.\n"
            "(EngineCore_DP0 pid=1088) INFO 12-17 23:28:20 [ray_utils.py:300] Waiting for creating a placement group "
            "of specs for 30 seconds. specs=[{'node:192.168.100.10': 0.001, 'GPU': 1.0}, {'GPU': 1.0}]. Check `ray "
            "status` and `ray list nodes` to see if you have enough resources.\n"
            "(autoscaler +1m2s) Error: No available node types can fulfill resource request {'GPU': 1.0}. Add "
            "suitable node types to this cluster to resolve this issue.\n")
    log = parse_vllm_log(text)
    assert log.ray_address == "192.168.100.10:6379"
    [wait] = log.events_of("pg-wait")
    assert wait.count == 2 and wait.numbers["seconds"] == 30 and wait.numbers["bundles"] == 2
    assert wait.numbers["gpus"] == 2.0
    assert log.events_of("no-gpu-resource")[0].numbers["request"] == "{'GPU': 1.0}"
    [d] = diagnose(log)
    assert d.kind == "pg-wait" and d.severity == "warn" and "hangs" in d.message and "ray status" in d.fix


def test_no_gpu_resource_alone_explains_the_hang():
    log = parse_vllm_log("(autoscaler +10s) Error: No available node types can fulfill resource request "
                         "{'GPU': 1.0}. Add suitable node types to this cluster to resolve this issue.\n")
    [d] = diagnose(log)
    assert d.kind == "no-gpu-resource" and "hangs" in d.message and "--num-gpus=1" in d.fix


def test_native_mode_without_host_ip_hangs_silently():
    text = ("nvidia@spark-a:~$ vllm serve /m --nnodes 2 --node-rank 0 --master-addr 192.168.100.10 -pp 2\n"
            "(EngineCore pid=5) <venv>/lib/python3.11/site-packages/vllm/v1/executor/ray_utils.py:627: UserWarning: "
            "Failed to get the IP address, using 0.0.0.0 by default.\n"
            "(EngineCore pid=5) INFO 11-29 14:30:00 [multiproc_executor.py:153] DP group leader: node_rank=0, "
            "node_rank_within_dp=0, master_addr=192.168.100.10, mq_connect_ip=0.0.0.0 (local), world_size=2, "
            "local_world_size=1\n")
    log = parse_vllm_log(text)
    assert log.parallel.nnodes == 2 and log.parallel.logged_world_size == 2
    d = diagnose(log)
    assert d[0].kind == "no-host-ip" and d[0].severity == "fail" and "VLLM_HOST_IP" in d[0].fix
    assert not any(x.kind == "not-ready" for x in d)


def test_spark_warnings_are_harmless():
    log = parse_vllm_log(
        "(EngineCore_DP0 pid=1) WARNING 03-06 08:40:40 [ray_utils.py:330] Tensor parallel size (2) exceeds available "
        "GPUs (1). This may result in Ray placement group allocation failures. Consider reducing "
        "tensor_parallel_size to 1 or less, or ensure your Ray cluster has 2 GPUs available.\n"
        "(APIServer pid=1) INFO:     Application startup complete.\n")
    assert log.events_of("tp-exceeds-local-gpus")[0].numbers == {"tp": 2, "gpus": 1}
    assert [d.severity for d in diagnose(log)] == ["info"]


def test_started_a_local_ray_instance_is_a_warning():
    log = parse_vllm_log("2026-01-01 10:00:00,000\tINFO worker.py:1917 -- Started a local Ray instance.\n")
    [d] = diagnose(log)
    assert d.kind == "ray-local-instance" and "RAY_ADDRESS" in d.fix


def test_unknown_exception_is_reported():
    log = parse_vllm_log("(EngineCore pid=1) ERROR 11-29 14:02:12 [core.py:1] EngineCore failed to start.\n"
                         "(EngineCore pid=1) KeyError: 'cmpl-abc'\n")
    [d] = diagnose(log)
    assert d.kind == "exception" and "KeyError" in d.message


def test_harmless_import_warnings_are_not_errors():
    log = parse_vllm_log("WARNING 05-01 10:00:00 [_custom_ops.py:20] Failed to import from vllm._C with "
                         "ModuleNotFoundError(\"No module named 'vllm._C'\")\n"
                         "(APIServer pid=1) INFO:     Application startup complete.\n")
    assert log.errors == () and diagnose(log) == []
    ready = parse_vllm_log("(EngineCore pid=1) KeyError: 'x'\n(APIServer pid=1) INFO:     Application startup complete.\n")
    assert [(d.kind, d.severity) for d in diagnose(ready)] == [("exception", "warn")]


def test_event_kinds_are_listed():
    assert {"world-size", "kv-too-small", "pg-wait", "pg-timeout", "cpu-no-ray", "gloo-connect", "gloo-iface",
            "no-gpu-resource", "exception"} <= set(EVENT_KINDS)


# =========================================================================== /v1/models

def test_models_fixture_08():
    text = between(real("vllm-cpu/08_*"), "# produced by: curl -s http://127.0.0.1:8011/v1/models",
                   "# produced by: ./venv")
    [m] = parse_models(text)
    assert (m.id, m.root, m.max_model_len, m.owned_by, m.parent) == ("/models/tiny-llama", "/models/tiny-llama", 512,
                                                                    "vllm", None)


def test_models_pretty_cut_and_served_name():
    text = ('$ curl -s localhost:8000/v1/models | jq\n{\n  "object": "list",\n  "data": [\n    {\n      "id": "tiny",\n'
            '      "object": "model",\n      "root": "/models/tiny-llama",\n      "max_model_len": 2048\n    },\n'
            '    {\n      "id": "lora-a",\n      "object": "model",\n      "root": "/adapters/a",\n      "parent": "tiny",\n'
            '      "max_model_len": 2048\n    },\n    {\n      "id": "cut')
    a, b = parse_models(text)
    assert (a.id, a.root, a.max_model_len) == ("tiny", "/models/tiny-llama", 2048) and b.parent == "tiny"
    assert is_models_json({"object": "list", "data": [{"id": "x", "object": "model"}]})
    assert not is_models_json({"object": "list", "data": [{"ifname": "x"}]})


@pytest.mark.parametrize("text, words", [
    ("curl: (7) Failed to connect to localhost port 8000 after 0 ms: Couldn't connect to server", "could not reach"),
    ('{"detail":"Not Found"}', "answered with an error"),
    ('{"object":"error","message":"boom","type":"x","code":500}', "boom"),
    ('{"foo": 1}', "no `data` list"),
    ("nothing here", "no JSON"),
])
def test_models_errors(text, words):
    with pytest.raises(ParseError) as err:
        parse_models(text)
    assert words in str(err.value) and "/v1/models" in str(err.value)


# =========================================================================== /metrics

def test_metrics_fixture_09():
    m = parse_metrics(real("vllm-cpu/09_*"))
    assert (m.requests_running, m.requests_waiting, m.kv_cache_usage) == (0.0, 0.0, 0.0)
    assert (m.prompt_tokens, m.generation_tokens) == (36.0, 32.0)
    assert (m.ttft.name, m.ttft.sum, m.ttft.count) == ("vllm:time_to_first_token_seconds", 0.06862545013427734, 4.0)
    assert m.ttft.mean == pytest.approx(0.06862545013427734 / 4)
    assert (m.tpot.name, m.tpot.count) == ("vllm:request_time_per_output_token_seconds", 4.0)
    assert (m.itl.name, m.itl.sum, m.itl.count) == ("vllm:inter_token_latency_seconds", 0.04951734899998428, 28.0)
    assert (m.e2e.sum, m.e2e.count) == (0.11567974090576172, 4.0)
    assert m.request_success == {"stop": 0.0, "length": 4.0, "abort": 0.0, "error": 0.0, "repetition": 0.0}
    assert m.requests_finished == 4.0
    # the last line (cache_config_info) is cut off in the capture: its complete labels are kept
    assert m.truncated and m.cache_config["kv_cache_size_tokens"] == "1048576"
    assert m.cache_config["kv_cache_memory_bytes"] == "1073741824" and m.cache_config["block_size"] == "128"
    assert m.models == ("/models/tiny-llama",) and m.engines == ("0",)
    assert "vllm:kv_cache_usage_perc" in m.names
    assert len(m.skipped) == 1  # the "--- samples" note


OLD_METRICS = """\
# HELP vllm:num_requests_running Number of requests currently running on GPU.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="meta-llama/Llama-3.1-8B-Instruct"} 3.0
vllm:num_requests_waiting{model_name="meta-llama/Llama-3.1-8B-Instruct"} 1.0
vllm:num_requests_swapped{model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.0
vllm:gpu_cache_usage_perc{model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.42
vllm:prompt_tokens_total{model_name="meta-llama/Llama-3.1-8B-Instruct"} 1200.0
vllm:generation_tokens_total{model_name="meta-llama/Llama-3.1-8B-Instruct"} 3400.0
vllm:time_to_first_token_seconds_sum{model_name="meta-llama/Llama-3.1-8B-Instruct"} 2.5
vllm:time_to_first_token_seconds_count{model_name="meta-llama/Llama-3.1-8B-Instruct"} 10.0
vllm:time_per_output_token_seconds_sum{model_name="meta-llama/Llama-3.1-8B-Instruct"} 6.8
vllm:time_per_output_token_seconds_count{model_name="meta-llama/Llama-3.1-8B-Instruct"} 340.0
"""


def test_metrics_older_names():
    # V0 (<= 0.10): gpu_cache_usage_perc and time_per_output_token_seconds
    m = parse_metrics(OLD_METRICS)
    assert (m.requests_running, m.requests_waiting, m.kv_cache_usage) == (3.0, 1.0, 0.42)
    assert m.tpot.name == m.itl.name == "vllm:time_per_output_token_seconds"
    assert m.tpot.mean == pytest.approx(0.02) and m.ttft.mean == pytest.approx(0.25)


def test_metrics_two_engines_and_underscore_names():
    text = ('vllm_num_requests_running{engine="0"} 2\nvllm_num_requests_running{engine="1"} 3\n'
            'vllm_kv_cache_usage_perc{engine="0"} 0.1\nvllm_kv_cache_usage_perc{engine="1"} 0.7\n')
    m = parse_metrics(text)
    assert m.requests_running == 5.0 and m.kv_cache_usage == 0.7 and m.engines == ("0", "1")


@pytest.mark.parametrize("text, words", [
    ("curl: (7) Failed to connect to 127.0.0.1 port 8000", "could not reach"),
    ('go_gc_duration_seconds{quantile="0"} 0\nprocess_cpu_seconds_total 1.5\n', "no vLLM metric"),
    ('vllm:num_requests_running{engine="0" 1\nvllm:num_requests_waiting 0\n', "not a Prometheus sample"),
])
def test_metrics_errors(text, words):
    with pytest.raises(ParseError) as err:
        parse_metrics(text)
    assert words in str(err.value) and "/metrics" in str(err.value)


# https://github.com/eugr/spark-vllm-docker/issues/396 (two Sparks, TP=2), as posted: quoted with '▎ ', the
# ValueError wrapped over three lines, and without the '(' before the GiB needed
KV_WRAPPED_QUOTED = ("▎ Available KV cache memory: 22.5 GiB\n"
                     "▎ ValueError: To serve at least one request with the model's max seq len (196608),\n"
                     "▎ 23.25 GiB KV cache is needed, which is larger than the available KV cache memory (22.5 GiB).\n"
                     "▎ Based on the available memory, the estimated maximum model length is 190272.\n")


@pytest.mark.parametrize("text", [KV_WRAPPED_QUOTED, KV_WRAPPED_QUOTED.replace("▎ ", "> "),
                                  KV_WRAPPED_QUOTED.replace("▎ ", "")])
def test_a_wrapped_kv_error_is_one_event_with_all_its_numbers(text):
    log = parse_vllm_log(text)
    assert [(e.kind, e.numbers) for e in log.events] == [
        ("kv-too-small", {"max_model_len": 196608, "needed_gib": 23.25, "available_gib": 22.5,
                          "estimated_max_len": 190272})]
    kv = diagnose(log)[0]
    assert "--max-model-len 190272" in kv.fix and "23.25 GiB" in kv.message


def test_a_lone_continuation_prompt_is_not_a_quote():
    from grader.parsers.common import clean_lines
    assert clean_lines("$ cat <<EOF\n> a\nb\n") == ["$ cat <<EOF", "> a", "b"]
    assert clean_lines("> x\n> y\n\n>> z\n") == ["x", "y", "", "> z"]


def test_the_one_match_way_reads_a_line_as_the_layer_by_layer_way(monkeypatch):
    """split_prefixes reads the common line (one process prefix with its pid, then vLLM's logger header) with one
    match (vllm_lines._PLAIN_RE); every line of the project's real outputs, read that way and the layer-by-layer
    way (the one match turned off), gives the same record."""
    import re as _re

    from grader.parsers import vllm_lines
    root = Path(__file__).resolve().parent / "fixtures"
    lines = sorted({line for p in root.rglob("*") if p.is_file() and p.suffix in (".txt", ".log", "")
                    for line in p.read_text(errors="replace").splitlines()})
    fast = {line: vllm_lines.split_prefixes(line, 7) for line in lines}
    plain = [line for line in lines if vllm_lines._PLAIN_RE.match(line.strip())]
    monkeypatch.setattr(vllm_lines, "_PLAIN_RE", _re.compile(r"(?!)"))
    assert len(plain) > 100  # the way is taken: the logs' lines are mostly of this shape
    assert [line for line in lines if vllm_lines.split_prefixes(line, 7) != fast[line]] == []


# --------------------------------------------------------------------------- a completion's answer

CHAT_ANSWER = ('{"id":"chatcmpl-9","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,'
               '"message":{"role":"assistant","content":"Hello.\\nI am a model."},"finish_reason":"length"}],'
               '"usage":{"prompt_tokens":12,"total_tokens":20,"completion_tokens":8}}')


def test_a_chat_completion_answer_is_read():
    c = parse_completion("$ curl -s localhost:8000/v1/chat/completions -d @req.json\n" + CHAT_ANSWER + "\n")
    assert c.texts == ("Hello.\nI am a model.",) and c.finish_reasons == ("length",)
    assert (c.model, c.prompt_tokens, c.completion_tokens, c.error, c.truncated) == ("m", 12, 8, None, False)
    assert is_completion_json({"object": "text_completion"}) and not is_completion_json({"object": "list"})


def test_an_answer_cut_inside_its_text_is_read_up_to_the_cut():
    # cut after an escaped newline and half of a \\u escape: the text up to the cut, the half escape dropped
    cut = CHAT_ANSWER[:CHAT_ANSWER.index("I am")] + "I am \\u00"
    c = parse_completion(cut)
    assert c.truncated and c.texts == ("Hello.\nI am ",) and c.finish_reasons == (None,)


def test_an_error_answer_is_read_as_the_servers_error():
    c = parse_completion('{"object":"error","message":"max context length is 4096 tokens","type":"BadRequestError",'
                         '"code":400}')
    assert c.error == "max context length is 4096 tokens" and c.texts == ()
    assert parse_completion('{"error": {"message": "model not found", "code": 404}}').error == "model not found"
    with pytest.raises(ParseError, match="could not reach"):
        parse_completion("$ curl localhost:8000/v1/completions\ncurl: (7) Failed to connect to localhost port 8000\n")
