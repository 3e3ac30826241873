"""Lesson 2b's vLLM kinds for ``explain``: ``vllm-log`` (startup and failed launches), ``vllm-models``, ``vllm-metrics``,
judged by grader.judges.vllm. Detection keys on lines no other kind prints: vLLM's logger header (``INFO MM-DD
HH:MM:SS [file.py:N]``), its process prefixes (``(APIServer pid=N)``, ``(EngineCore_DP0 pid=N)``,
``(RayWorkerWrapper pid=N, ip=X)``) and its KV/error messages; ``vllm:`` metric names; the ``/v1/models`` JSON
shape. Last, ``launcher``: the interfaces a Spark cluster launcher picked (eugr/spark-vllm-docker's
``launch-cluster.sh``), judged by grader.judges.launcher.
"""

from __future__ import annotations

import re

from ..judges.common import runs_program
from ..parsers.launcher import parse_launcher
from .core import KindSpec, register
from .readers import (is_completion_json, is_models_json, judge, parse_completion, parse_metrics, parse_models,
                      parse_sglang_log)


_VLLM_LINE = re.compile(
    r"(?:^|[)|]\s*)(?:DEBUG|INFO|WARNING|ERROR|CRITICAL|ARNING|RNING|NING|RROR|NFO)\s+(?:\d{4}-)?\d\d-\d\d\s+"
    r"\d\d:\d\d:\d\d(?:[.,]\d+)?\s+"
    r"\[?[\w./<>-]+\.py:\d+\]"
    r"|(?:^|\|\s*)\((?:APIServer|EngineCore(?:_DP\d+|_\d+)?|RayWorkerWrapper|RayWorkerProc|VllmWorker(?:-\d+)?|Worker(?:_\w+)?)"
    r"(?:\s+(?:rank=\d+|[A-Z]{2}\d+))*\s+pid=(?:\d+|\.\.\.)"
    r"|vLLM API server version|KV cache size: [\d,]+ tokens|Maximum concurrency for [\d,]+ tokens per request"
    r"|^EngineCore failed to start\.$|^WorkerProc hit an exception\.$"
    r"|# (?:GPU|cuda|CPU) blocks: \d+|Available KV cache memory:|non-default args: \{"
    r"|(?:Free|Available) memory on (?:device|node \d+)(?: [\w:]+)? \(\d|[Dd]esired (?:GPU|CPU) memory utilization (?:is )?\("
    r"|World size \(\d+\) is larger than the number of available GPUs|current platform \w+ does not support ray"
    r"|KV cache is needed, which is larger than|Gloo connectFullMesh failed|Unable to find address for"
    r"|To serve at least one request with the model's max seq len|The model's max seq len \(\d+\) is larger than"
    r"|estimated maximum model length is \d+"
    r"|Waiting for creating a placement group|Cannot provide a placement group|Engine core initialization failed"
    r"|Every node should have a unique IP address|Current node has no \w+ available|Ray does not allocate any GPUs on "
    r"the driver node|tensor_parallel_size=\d+ is bigger than a reserved\b"
    r"|^Started a local Ray instance"
    r"|^(?:Capturing CUDA graphs?(?: shapes)?(?: \([^)]{0,80}\))?|Loading safetensors checkpoint shards): +\d+%\|"
    # NCCL_DEBUG=INFO lines without a process prefix stay in the vLLM log they are part of (this
    # pattern is tried first only inside a vllm-log section; alone they are lesson 2a's nccl-log)
    r"|\bNCCL (?:INFO|WARN)\b"
    r"|(?:site|dist)-packages/vllm/|^Triton is installed, but|(?:^\S*?|: )vllm serve\s"
    # Ray's driver log inside vLLM (ray.init) and `ray start`, and the autoscaler's complaints
    r"|^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+\s+(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+[\w.]+\.py:\d+ -- "
    r"|No available node types can fulfill resource request|The current node timed out during startup"
    # NVIDIA's NGC vLLM container banner (docker logs of a container started with run_cluster.sh)
    r"|^={10}$|^== vLLM ==$|^NVIDIA Release \d|^vLLM Version:? \d"
    # eugr/spark-vllm-docker's launch-cluster.sh, a common two-Spark launcher (procedure.md §3.5)
    r"|^(?:Found peer|Cluster Nodes|Head Node|Worker Nodes|Container Name|Image Name):\s"
    r"|^(?:Starting (?:Head|Worker) Node on|Checking SSH connectivity to worker|Cluster head is responsive"
    r"|Waiting for cluster to be ready|Executing command on head node:)")


register(KindSpec(
    name="vllm-log", parse=judge("vllm", "read_vllm"), summarise=judge("vllm", "summarise_vllm"), programs=("vllm",),
    matches_command=lambda argv: runs_program(argv, "vllm", "serve") or any(
        a.startswith("vllm.entrypoints.openai.api_server") for a in argv), line=_VLLM_LINE,
))

register(KindSpec(  # SGLang's server, which Spark owners run beside vLLM: its tagged lines (grader.parsers.sglang_log)
    name="sglang-log", parse=parse_sglang_log, summarise=judge("sglang", "summarise_sglang"), programs=("sglang",),
    matches_command=lambda argv: runs_program(argv, "sglang", "serve") or "sglang.launch_server" in argv,
    line=re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?: TP\d{1,3})?\] (?:server_args=ServerArgs\(|Load weight (?:begin|end)\.|Using model weights"
                    r"|KV Cache is allocated\.|max_total_num_tokens=|Init torch distributed begin|Memory pool end\."
                    r"|[^\n]{0,200}Reported total GPU memory per device \(MiB\))"
                    r"|^max_total_num_tokens=\d+, chunked_prefill_size=|^max_running_requests is capped to \d+ by the"),
    inner=re.compile(r"\d%\|[^\n]{0,400}?\| *\d+/\d+ \[|^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ \S*torch/"),  # its progress bars,
))  # torch's own lines: in its log, not another output (NCCL's lines and a benchmark's result stay their own)


# --------------------------------------------------------------------------- /v1/models

def _curl_path(argv: list[str], suffix: str) -> bool:
    return bool(argv) and argv[0] in ("curl", "wget", "http", "https") and any(
        a.split("?")[0].rstrip("/").endswith(suffix) for a in argv[1:])


register(KindSpec(
    name="vllm-models", parse=parse_models, summarise=judge("vllm", "summarise_models"),
    matches_command=lambda argv: _curl_path(argv, "/v1/models"), matches_json=is_models_json,
    # the compact answer, also when it is not valid JSON any more (an ellipsis pasted into it)
    line=re.compile(r'^\{"object":\s*"list",\s*"data":\s*\[\s*\{"id":'),
))


register(KindSpec(
    name="vllm-completion", parse=parse_completion, summarise=judge("vllm", "summarise_completion"),
    matches_command=lambda argv: _curl_path(argv, "/completions"), matches_json=is_completion_json,
    line=re.compile(r'^\{"id":\s*"(?:chat)?cmpl-[^"]*",\s*"object":\s*"(?:chat\.completion|text_completion)"'),
))


register(KindSpec(
    name="vllm-metrics", parse=parse_metrics, summarise=judge("vllm", "summarise_metrics"),
    matches_command=lambda argv: _curl_path(argv, "/metrics"),
    line=re.compile(r"^vllm[:_][a-z]\w*(?:\{[^}]*\})?\s+[-+]?(?:\d|NaN|Inf)"),
))


# --------------------------------------------------------------------------- a Spark cluster launcher

_LAUNCHERS = ("launch-cluster.sh", "run-recipe", "run-recipe.sh")

register(KindSpec(
    name="launcher", parse=parse_launcher, summarise=judge("launcher", "summarise_launcher"),
    programs=_LAUNCHERS, matches_command=lambda argv: any(runs_program(argv, p) for p in _LAUNCHERS),
    # the launcher's other lines are vllm-log's too (registered first): this kind keeps them only
    # after its own detection lines, up to the vLLM log its `Executing command` starts
    line=re.compile(r"^(?:Detected (?:IB_IF|ETH_IF|Local IP):|Auto-detecting interfaces\.\.\.$"
                    r"|(?:Head Node|Worker Nodes|Cluster Nodes|Found peer|Container Name|Image Name):\s"
                    r"|(?:Non-mesh|Mesh) mode\b|Starting (?:Head|Worker) Node on|Checking SSH connectivity to worker"
                    r"|Cluster head is responsive|Waiting for cluster to be ready|Executing command on head node:"
                    r"|sparkrun v\d|VRAM Estimation:$|Note: .{1,120}?, using \d{1,4} of \d{1,4} hosts?$|Starting DGX Spark vLLM Head Node Setup$|NCCL IB HCAs:\s)"),
))
