"""explain kinds of lesson 2b: ray-status, vllm-log, vllm-models, vllm-metrics. Real outputs from
shared/fixtures/real (spark/, vllm-cpu/), pastes with prompts and noise, and the findings' words."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from grader.explain import Section, detect_kind, explain, render, to_jsonable
from tests.conftest import levels, messages, real_text

SERVING = {"ray-status", "vllm-log", "vllm-models", "vllm-metrics"}
CAPTURED = Path(__file__).resolve().parent / "fixtures" / "captured"


real = real_text


def only(sections: list[Section], kind: str) -> Section:
    found = [s for s in sections if s.kind == kind]
    assert len(found) == 1, [s.kind for s in sections]
    return found[0]


# --------------------------------------------------------------------------- real outputs

def test_spark_12_ray_status_two_nodes_two_gpus():
    s = explain(real("spark/12_*"))[0]
    assert s.kind == "ray-status" and s.error is None
    assert s.facts["nodes"] == 2 and (s.facts["gpus_used"], s.facts["gpus_total"]) == (0.0, 2.0)
    assert s.facts["resources"]["CPU"] == {"used": 0.0, "total": 40.0}
    assert "fail" not in levels(s)
    assert "Ray sees 2 nodes" in messages(s, "ok") and "GPUs 0/2 in use" in messages(s, "ok")


def test_spark_16_kv_capacity_and_the_concurrency_trap():
    [s] = explain(real("spark/16_*"))
    assert s.kind == "vllm-log" and s.facts["version"] == "0.19.1rc1.dev301+g60995c05b"
    assert s.facts["kv_tokens"] == 37_392 and s.facts["concurrency"] == 1.53
    assert s.facts["kv"][0]["form"] == "two-lines" and s.facts["ready"] is True
    assert "GPU KV cache: 37,392 tokens; maximum concurrency 1.53x for 262,144-token requests" in messages(s, "ok")
    assert "0.14" in messages(s, "info") and "sliding-window" in messages(s, "info")
    assert "fail" not in levels(s)


def test_spark_17_launcher_and_tp2_over_ray():
    [s] = explain(real("spark/17_*"))
    assert s.kind == "vllm-log"
    assert s.facts["parallel"]["tensor_parallel_size"] == 2 and s.facts["parallel"]["world_size"] == 2
    assert s.facts["parallel"]["distributed_executor_backend"] == "ray"
    assert "TP 2 x PP 1 = world size 2; backend ray" in messages(s, "info")
    assert "Expected on a Spark pair" in messages(s, "info") and "fail" not in levels(s)


def test_vllm_cpu_07_single_server():
    [s] = explain(real("vllm-cpu/07_*"))
    assert s.kind == "vllm-log" and s.facts["kv_tokens"] == 1_048_576 and s.facts["concurrency"] == 2048.0
    assert "CPU KV cache: 1,048,576 tokens; maximum concurrency 2048x for 512-token requests" in messages(s, "ok")
    assert "VLLM_CPU_KVCACHE_SPACE" in messages(s, "info")


def test_vllm_cpu_16_stock_error_is_diagnosed():
    [s] = explain(real("vllm-cpu/16_*"))
    assert s.kind == "vllm-log" and levels(s).count("fail") == 1
    msg = messages(s, "fail")
    assert "no Ray device key" in msg and "Fix:" in msg and "VLLM_CPU_RAY=1" in msg
    assert s.facts["diagnoses"][0]["kind"] == "cpu-no-ray"
    assert [e["kind"] for e in s.facts["events"]] == ["ray-connected", "engine-start-failed", "traceback", "cpu-no-ray",
                                                     "engine-init-failed"]  # the traceback between them: its events too


def test_vllm_cpu_17_serving_across_two_ray_nodes():
    sections = explain(real("vllm-cpu/17_*"))
    log = only(sections, "vllm-log")
    assert "rank 1 (PP rank 1, TP rank 0) on 127.0.0.3" in messages(log, "ok")
    assert "CPU KV cache: 2,097,152 tokens" in messages(log, "ok")
    assert "The server is up" in messages(log, "ok") and "fail" not in levels(log)
    ray = only(sections, "ray-status")
    assert (ray.facts["gpus_used"], ray.facts["gpus_total"]) == (2.0, 2.0) and ray.facts["excerpt"]
    assert "reserved in placement groups" in messages(ray, "info")


def test_vllm_cpu_09_metrics():
    m = only(explain(real("vllm-cpu/09_*")), "vllm-metrics")
    assert m.facts["prompt_tokens"] == 36.0 and m.facts["requests_finished"] == 4.0
    assert m.facts["ttft"]["count"] == 4.0 and m.facts["cache_config"]["kv_cache_size_tokens"] == "1048576"
    assert "TTFT 17.2 ms (over 4)" in messages(m, "info") and "cut off" in messages(m, "info")


def test_vllm_cpu_10_bench_output_is_not_a_server_log():
    bench, = explain(real("vllm-cpu/10_*"))  # vLLM's import line, the client's log lines, then its result block:
    assert bench.kind == "vllm-bench" and bench.error is None  # one output (the lab's kind), none read as a server's


def test_models_with_and_without_the_prompt():
    fixture = real("vllm-cpu/08_*")
    body = fixture[fixture.index('{"object":"list"'):].split("\n")[0]
    # the capture's author wrote "[{...}]" for the permission list: with the curl prompt the kind is known
    [s] = explain("$ curl -s http://127.0.0.1:8011/v1/models\n" + body)
    assert s.kind == "vllm-models" and s.facts["models"][0]["max_model_len"] == 512
    assert 'requests must name it as "model": "/models/tiny-llama"' in messages(s, "ok")
    clean = body.replace("[{...}]", "[]")
    assert detect_kind(clean) == "vllm-models"
    [as_pasted] = explain(body)  # not JSON any more, but still the compact /v1/models answer
    assert as_pasted.kind == "vllm-models" and as_pasted.facts["models"][0]["id"] == "/models/tiny-llama"
    [empty] = explain('{"object":"list","data":[]}')
    assert empty.kind == "vllm-models" and levels(empty) == ["fail"]


# --------------------------------------------------------------------------- pastes

def test_several_outputs_in_one_paste():
    models = '{"object":"list","data":[{"id":"tiny","object":"model","root":"/m","max_model_len":512}]}'
    text = "\n".join([
        "nvidia@spark-a:~$ docker exec node-1234 ray status",
        real("spark/12_*").split("# --- torchrun")[0],
        "nvidia@spark-a:~$ curl -s localhost:8000/v1/models", models,
        "nvidia@spark-a:~$ curl -s localhost:8000/metrics | grep -v '^#'",
        'vllm:num_requests_running{engine="0",model_name="tiny"} 1.0',
        'vllm:num_requests_waiting{engine="0",model_name="tiny"} 2.0',
        'vllm:kv_cache_usage_perc{engine="0",model_name="tiny"} 0.95',
        "nvidia@spark-a:~$ vllm serve /m -tp 2",
        "(APIServer pid=1) ValueError: World size (2) is larger than the number of available GPUs (1) in this node. "
        "If this is intentional and you are using:",
        "(APIServer pid=1) - ray, set '--distributed-executor-backend ray'.",
    ])
    ray, mod, met, log = explain(text)
    assert (ray.kind, mod.kind, met.kind, log.kind) == ("ray-status", "vllm-models", "vllm-metrics", "vllm-log")
    assert ray.command == "docker exec node-1234 ray status" and ray.host == "spark-a" and ray.facts["nodes"] == 2
    assert mod.facts["models"][0]["id"] == "tiny"
    assert "2 request(s) wait" in messages(met, "warn") and "KV cache usage 95.0%: near full" in messages(met, "warn")
    assert log.facts["parallel"]["tensor_parallel_size"] == 2
    fail = messages(log, "fail")
    assert "world size 2" in fail and "--distributed-executor-backend ray" in fail and "--nnodes 2" in fail


def test_docker_compose_and_colours():
    lines = ["(APIServer pid=1) INFO 11-29 14:02:11 [api_server.py:1000] vLLM API server version 0.17.1+a03ca76a.nv26.03",
             "(EngineCore_DP0 pid=123) INFO 11-29 14:02:11 [kv_cache_utils.py:1289] GPU KV cache size: 442,656 tokens",
             "(EngineCore_DP0 pid=123) INFO 11-29 14:02:11 [kv_cache_utils.py:1291] Maximum concurrency for 8,192 "
             "tokens per request: 54.04x",
             "INFO 11-29 14:02:12 [api_server.py:1100] Starting vLLM API server 0 on http://0.0.0.0:8000"]
    plain = explain("\n".join(lines))
    noisy = explain("\r\n".join("\x1b[36mvllm-head-1  |\x1b[0m " + x.replace("INFO", "\x1b[32mINFO\x1b[0m")
                                for x in lines))
    assert [s.kind for s in noisy] == [s.kind for s in plain] == ["vllm-log"]
    assert [(f.level, f.message) for f in noisy[0].findings] == [(f.level, f.message) for f in plain[0].findings]
    assert noisy[0].facts["kv_tokens"] == 442_656 and noisy[0].facts["ready"]


def test_ngc_container_logs():
    text = ("==========\n== vLLM ==\n==========\n\nNVIDIA Release 26.03 (build 250001)\n"
            "vLLM Version 0.17.1+a03ca76a.nv26.03.46967107\n\n"
            "(APIServer pid=1) INFO 11-29 14:02:11 [utils.py:233] non-default args: {'model_tag': 'm', "
            "'tensor_parallel_size': 2, 'distributed_executor_backend': 'ray'}\n"
            "(EngineCore_DP0 pid=5) (RayWorkerWrapper pid=77, ip=192.168.100.11) ERROR 11-29 14:03:00 [worker.py:1] "
            "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)\n")
    [s] = explain(text)
    assert s.kind == "vllm-log" and s.facts["version"] == "0.17.1+a03ca76a.nv26.03.46967107"
    assert "NCCL failed between the workers (on 192.168.100.11)" in messages(s, "fail")
    assert "NCCL_IB_HCA" in messages(s, "fail")


def test_nccl_lines_inside_a_vllm_log_give_the_transport():
    nccl = real("spark/13_*").split("# --- A ---")[1].split("# --- B")[0]
    head = ("(APIServer pid=1) INFO 11-29 14:02:11 [utils.py:233] non-default args: {'model_tag': 'm', "
            "'tensor_parallel_size': 2, 'distributed_executor_backend': 'ray'}\n")
    [s] = explain(head + nccl + "spark-a:2528:2528 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IBext_v10/0\n")
    assert s.kind == "vllm-log" and s.facts["nccl_transport"] == "NET/IB"
    assert "NCCL lines in this log: NCCL moved data with RDMA (NET/IB" in messages(s, "ok")  # nccl-log's judge
    sock = head + "(EngineCore_DP0 pid=5) spark-a:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n"
    [s] = explain(sock, host="spark")
    assert s.facts["nccl_transport"] == "NET/Socket" and "TCP sockets" in messages(s, "fail")  # as nccl-log says it
    [alone] = explain(sock, kind="nccl-log", host="spark")
    assert messages(alone, "fail") and messages(s, "fail").endswith(messages(alone, "fail"))  # one judge, one verdict
    # alone, NCCL lines are lesson 2a's
    assert explain(real("spark/13_*"))[0].kind != "vllm-log"


def test_placement_group_hang_is_explained():
    text = ("(EngineCore_DP0 pid=1088) INFO 12-17 23:28:00 [ray_utils.py:300] Waiting for creating a placement group "
            "of specs for 10 seconds. specs=[{'GPU': 1.0}, {'GPU': 1.0}]. Check `ray status` and `ray list nodes`.\n")
    [s] = explain(text)
    assert s.kind == "vllm-log" and "hangs" in messages(s, "warn") and "1800 s" in messages(s, "warn")


def test_ray_status_findings():
    one = ("======== Autoscaler status: 2026-01-01 00:00:00 ========\nNode status\n-----\nActive:\n"
           " 1 node_aaaaaaaabbbbbbbb\nPending:\n (no pending nodes)\nRecent failures:\n (no failures)\n\nResources\n"
           "-----\nTotal Usage:\n 1.0/20.0 CPU\n 0B/110.00GiB memory\n\nFrom request_resources:\n (none)\n"
           "Pending Demands:\n {'GPU': 1.0} * 2 (PACK): 1+ pending placement groups\n")
    [s] = explain(one)
    assert s.kind == "ray-status"
    assert "only 1 node" in messages(s, "fail") and "Ray reports no GPU" in messages(s, "fail")
    assert "vLLM's placement group" in messages(s, "warn")
    [err] = explain("$ ray status\nbash: ray: command not found\n")
    # the output is not a status, but its line is a reported fault (checks/diagnoses.toml): named with its fix, and
    # the reader's "found no status" not said beside the failure that explains it
    assert err.kind == "ray-status" and err.error is None
    assert "Ray is not installed" in messages(err, "fail") and "command not found" in messages(err, "fail")
    assert not messages(err, "info")


def test_forced_kinds():
    [s] = explain(real("spark/12_*"), kind="ray-status")
    assert s.kind == "ray-status" and s.facts["nodes"] == 2
    [bad] = explain("hello", kind="vllm-log")
    assert bad.kind == "vllm-log" and "no vLLM log line" in bad.error
    [m] = explain(real("vllm-cpu/09_*"), kind="vllm-metrics")
    assert m.error is None and m.facts["generation_tokens"] == 32.0


@pytest.mark.parametrize("command, kind", [
    ("ray status", "ray-status"), ("docker exec -it node ray status -v", "ray-status"),
    ("vllm serve /models/tiny --port 8000", "vllm-log"),
    ("python -m vllm.entrypoints.openai.api_server --model /m", "vllm-log"),
    ("curl -s http://192.168.100.10:8000/v1/models", "vllm-models"),
    ("curl -s localhost:8000/metrics", "vllm-metrics"),
    ("vllm bench serve --model x", "vllm-bench"), ("ray start --head", "ray-start"),
    ("ray stop --force", "ray-start"), ("ray job list", None), ("curl -s localhost:8000/health", None),
])
def test_kind_from_the_prompt_command(command, kind):
    from grader import explain as explain_mod
    got = explain_mod._kind_of_command(explain_mod.command_argv(command))
    assert got == kind


# --------------------------------------------------------------------------- not confused with other kinds

def test_lesson_1_captures_are_not_serving_kinds():
    for path in sorted(CAPTURED.glob("*.txt")):
        assert not any(s.kind in SERVING for s in explain(path.read_text())), path.name


@pytest.mark.parametrize("pattern", ["spark/01_*", "spark/04_*", "spark/05_*", "spark/11_*", "spark/03_*",
                                     "spark/07_*", "spark/08_*", "h200x2/nvidia-smi.txt"])
def test_other_real_outputs_are_not_serving_kinds(pattern):
    assert not any(s.kind in SERVING for s in explain(real(pattern)))


def test_serving_outputs_keep_their_kinds():
    for pattern, kind in [("spark/12_*", "ray-status"), ("spark/16_*", "vllm-log"), ("spark/17_*", "vllm-log"),
                          ("vllm-cpu/07_*", "vllm-log"), ("vllm-cpu/14_*", "vllm-log"), ("vllm-cpu/16_*", "vllm-log"),
                          ("vllm-cpu/17_*", "vllm-log")]:
        assert explain(real(pattern))[0].kind == kind, pattern


def test_never_raises_and_serialises():
    rng = random.Random(11)
    alphabet = "(){}[]:,'\"\n \t=|#$0123456789INFOWARNpid=ip=GiB tokens/ GPU CPU vllm:_x█▀"
    samples = ["".join(rng.choice(alphabet) for _ in range(300)) for _ in range(40)]
    samples += [real("vllm-cpu/17_*")[:n] for n in range(0, 9000, 700)]
    for text in samples:
        sections = explain(text)
        assert sections and all(isinstance(s, Section) for s in sections)
        json.dumps(to_jsonable(sections))
        render(sections)


def test_a_placement_group_waiting_on_a_ray_pod_that_has_not_started_fails():
    """ray-project/kuberay#3414: vLLM waits for four GPUs while a Ray worker pod is still in its init containers:
    that pod's node has not joined, so the group cannot form (the pod listing alone only warns)."""
    wait = ("Waiting for creating a placement group of specs for 150 seconds. specs=[{'GPU': 1.0, 'node:xxx': 0.001}, "
            "{'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}]. Check `ray status` to see if you have enough resources.\n")
    pods = ("ray-head-wk5dx     1/1     Running    0          6m23s\n"
            "ray-worker-bp7pn   0/1     Init:0/1   0          6m23s\n")
    sections = explain(wait + pods, host="other")
    log = only(sections, "vllm-log")
    said = messages(log, "fail")
    assert "ray-worker-bp7pn (Init:0/1, after 6m23s)" in said and "150 s so far" in said
    # every Ray pod up: the wait is the placement group's own warning, no more
    up = explain(wait + pods.replace("0/1     Init:0/1", "1/1     Running "), host="other")
    assert "fail" not in levels(only(up, "vllm-log"))


def test_a_degenerate_answer_fails_and_a_sound_one_is_ok():
    from grader.judges.vllm import distinct_share
    # "ab" * 150: its 295 six-character pieces are "ababab" and "bababa" only
    assert distinct_share("ab" * 150) == pytest.approx(2 / 295)
    assert distinct_share("abcdefgh") == 1.0 and distinct_share("") == 1.0
    garbage = "multmultimulti||" * 20  # 320 characters: 16 distinct pieces of 315
    head = '{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"content":"'
    [s] = explain(head + garbage + '"},"finish_reason":"stop"}]}')
    assert s.kind == "vllm-completion" and levels(s) == ["fail"]
    assert "degenerate" in messages(s, "fail") and "5%" in messages(s, "fail")  # 16 / 315 = 5.1%
    prose = ("Tensor parallel splits each layer's weights across the GPUs, so every layer ends with an all-reduce "
             "over the link between them; pipeline parallel gives each GPU whole layers and passes activations "
             "once per stage, which suits a slower link between two machines.")
    [s] = explain(head + prose + '"},"finish_reason":"stop"}],"usage":{"completion_tokens":52}}')
    assert levels(s) == ["ok"] and "52 tokens generated" in messages(s, "ok")
    # repetitive but sound, in words: a checklist repeats its pieces (under 40% distinct) without gluing them
    checklist = "\\n".join(f"{i}. Check the link of node {i}: run ping and iperf3 on it." for i in range(1, 15))
    [s] = explain(head + checklist + '"},"finish_reason":"stop"}]}')
    assert levels(s) == ["ok"]
    [s] = explain('{"object":"error","message":"The model `x` does not exist.","type":"NotFoundError","code":404}')
    assert s.kind == "vllm-completion" and "does not exist" in messages(s, "fail")
