"""Session 39j: break-it review 20's misreadings of the rules of s39e/s39f/s39i (its probes quoted inline, each
named by its source in the docstring), and the neighbouring real outputs those rules were built for."""

from __future__ import annotations

from grader.diagnoses import diagnose_text
from grader.explain import explain
from tests.conftest import field_entry as corpus, levels, messages


def _said(sections, level: str | None = None) -> str:
    return "\n".join(messages(s, level) for s in sections)


def _worst(sections) -> str:
    order = {"ok": 0, "info": 0, "warn": 1, "fail": 2}
    worst = max((lv for s in sections for lv in levels(s)), key=order.get, default="info")
    return "info" if worst == "ok" else worst


# ------------------------------------------------------------------ ray symmetric-run: the polls stop once all joined

_SYMRUN = """\
$ python -m ray.scripts.symmetric_run --address 192.168.100.10:6379 --wait-for-nnodes 2 -- vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 --distributed-executor-backend ray
On head node. Starting Ray cluster head...
Head node started.
=======================
Waiting for nodes to start... 1/2 nodes started
Waiting for nodes to start... 1/2 nodes started
"""
_RAN = """\
Running command on head node: vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 --distributed-executor-backend ray
=======================
(APIServer pid=5121) INFO 11-02 10:14:44 [api_server.py:1839] vLLM API server version 0.11.0
(APIServer pid=5121) INFO:     Application startup complete.
"""


def test_a_symmetric_run_that_went_on_had_every_node_join():
    """Ray's python/ray/scripts/symmetric_run.py: check_cluster_ready() echoes `Waiting for nodes to start... N/M
    nodes started` only while len(ray.nodes()) != nnodes and returns silently once equal, then the head prints
    `Running command on head node:`; so a last poll at 1/2 followed by the command running means both joined. Polls
    the paste ends on (ray#59795's head, corpus wm010) keep the warn; `Timed out waiting` after them is no join."""
    assert "ray-nodes-still-joining" not in [d.kind for d in diagnose_text(_SYMRUN + _RAN)]
    assert "ray-nodes-still-joining" in [d.kind for d in diagnose_text(_SYMRUN)]
    timed = _SYMRUN + "Timed out waiting for other nodes to start.\nRunning command on head node: x\n"
    assert "ray-nodes-still-joining" in [d.kind for d in diagnose_text(timed)]
    said = _said(explain(corpus("wm010"), host="other", nodes=2), "warn")
    assert "1 of 2" in said and "not joined" in said


# ------------------------------------------------------------- llama.cpp: -ngl given to a build without a GPU backend

_LLAMA_CPU_BUILD = """\
$ ./build/bin/llama-server -m ~/models/Qwen3-8B-Q4_K_M.gguf -ngl 99 -c 8192 --host 0.0.0.0 --port 8080
warning: no usable GPU found, --gpu-layers option will be ignored
warning: one possible reason is that llama.cpp was compiled without GPU support
warning: consult docs/build.md for compilation instructions
build: 6708 (74b8fc17) with cc (Ubuntu 13.3.0-6ubuntu2~24.04) 13.3.0 for aarch64-linux-gnu
load_tensors: loading model tensors, this can take a while... (mmap = true)
load_tensors:   CPU_REPACK model buffer size =  3204.00 MiB
load_tensors:   CPU_Mapped model buffer size =  4794.46 MiB
llama_context: constructing llama_context
llama_context:        CPU  output buffer size =     0.58 MiB
llama_kv_cache:        CPU KV buffer size =  1152.00 MiB
llama_context:        CPU compute buffer size =   560.01 MiB
"""


def test_llama_cpp_ngl_ignored_by_a_build_without_gpu_support_names_the_build():
    """llama.cpp common/arg.cpp: `no usable GPU found, --gpu-layers option will be ignored` / `one possible reason is
    that llama.cpp was compiled without GPU support` (b6xxx wording): -ngl 99 was given, the build has no GPU backend;
    no --rpc, so no rpc-server sits idle. llama.cpp#14307 (pending wn009, no -ngl shown, a client of rpc-servers) keeps
    its -ngl reading."""
    for nodes in (1, 2):
        said = _said(explain(_LLAMA_CPU_BUILD, host="spark", nodes=nodes), "warn")
        assert "compiled without GPU support" in said and "GGML_CUDA" in said
        assert "rpc-servers" not in said and "Pass `-ngl 99`" not in said
    old = _said(explain(corpus("wn009"), host="other", nodes=2), "warn")
    assert "-ngl 99" in old and "rpc-servers" in old
