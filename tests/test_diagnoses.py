"""The diagnosis table (checks/diagnoses.toml) and the one function that reads it (grader.diagnoses).

Each entry of the table is reached by an input below (EXAMPLES: the exact strings vLLM, Ray, Gloo and
NCCL print, from docs/research/procedure.md §3.4, vllm_cpu.md and vllm_netns.md §5). Adding a fault
to the table is one entry there and one input here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from grader.diagnoses import Diagnosis, diagnose, diagnose_entries, diagnose_text, load_table, parse_table
from grader.parsers.vllm_log import EVENT_KINDS, parse_vllm_log
from grader.ranges import CatalogueError

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parent.parent
TABLE_TEXT = (ROOT / "checks" / "diagnoses.toml").read_text()

PG_WAIT = ("(EngineCore_DP0 pid=1088) INFO 12-17 23:28:20 [ray_utils.py:300] Waiting for creating a placement group "
           "of specs for 30 seconds. specs=[{'node:192.168.100.10': 0.001, 'GPU': 1.0}, {'GPU': 1.0}]. Check `ray "
           "status` and `ray list nodes` to see if you have enough resources.\n")
READY = "(APIServer pid=1) INFO:     Application startup complete.\n"
NUMA = ("(EngineCore pid=1) AssertionError: Not enough allowed NUMA nodes to bind threads of 2 local CPUWorkers. "
        "Allowed NUMA nodes are [0].\n")

EXAMPLES: dict[str, str] = {
    "world-size": (
        "(APIServer pid=1) pydantic_core._pydantic_core.ValidationError: 1 validation error for ParallelConfig\n"
        "(APIServer pid=1)   Value error, World size (2) is larger than the number of available GPUs (1) in this "
        "node. If this is intentional and you are using:\n"),
    "kv-too-small-zero": (
        "(EngineCore_DP0 pid=10) ERROR 11-29 14:02:12 [core.py:700] ValueError: To serve at least one request with "
        "the model's max seq len (4096), (0.0 GiB KV cache is needed, which is larger than the available KV cache "
        "memory (0.0 GiB). Based on the available memory, the estimated maximum model length is 16.\n"),
    "kv-too-small": (
        "(EngineCore_DP0 pid=10) ERROR 11-29 14:02:12 [core.py:700] ValueError: To serve at least one request with "
        "the model's max seq len (196608), (23.25 GiB KV cache is needed, which is larger than the available KV cache "
        "memory (22.50 GiB). Based on the available memory, the estimated maximum model length is 190256. Try "
        "increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.\n"),
    "kv-too-small-tokens": (
        "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored "
        "in KV cache (16384). Try increasing `gpu_memory_utilization` or decreasing `max_model_len`.\n"),
    "no-kv-memory": ("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` "
                     "when initializing the engine.\n"),
    "startup-memory": (
        "(EngineCore pid=1) ValueError: Free memory on device (101.2/121.69 GiB) on startup is less than desired GPU "
        "memory utilization (0.9, 109.52 GiB). Decrease GPU memory utilization or reduce GPU memory used by other "
        "processes.\n"),
    "oom": "(EngineCore pid=1) RuntimeError: CUDA error: out of memory\n",  # (with `Tried to allocate`: oom-torch-bare)
    # vllm-project/vllm#783, PyTorch's older message with the card's figures
    "oom-torch": "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.63 GiB (GPU 0; 44.56 GiB total "
                 "capacity; 27.91 GiB already allocated; 565.31 MiB free; 27.93 GiB reserved in total by PyTorch)\n",
    # eugr/spark-vllm-docker#227: the placement group vLLM asks for, anchored to the driver's node
    "pg-anchor-pack": "INFO 11-02 10:00:00 [ray_utils.py:350] Waiting for creating a placement group of specs for 10 "
                      "seconds. specs=[{'GPU': 1.0, 'node:192.168.50.192': 0.001}, {'GPU': 1.0}] (PACK). Check "
                      "`ray status` to see if you have enough resources.\n",
    # ray-project/ray#50511: a node whose Python is one patch release apart cannot join
    "ray-version-mismatch": ("RuntimeError: Version mismatch: The cluster was started with:\n    Ray: 2.39.0\n"
                             "    Python: 3.10.14\nThis process on node 10.84.24.112 was started with:\n"
                             "    Ray: 2.39.0\n    Python: 3.10.15\n"),
    # vllm-project/vllm#14186: Ray's autoscaler on a placement group anchored to an address no node has
    "ray-infeasible-node-anchor": "(autoscaler +13s) Error: No available node types can fulfill resource request "
                                  "{'node:203.0.113.225': 0.001, 'GPU': 1.0}. Add suitable node types to this cluster "
                                  "to resolve this issue.\n",
    # ray-project/ray#53192: one actor asking for more GPUs than any node has
    "no-gpu-resource-one-bundle": "(autoscaler +44s) Error: No available node types can fulfill resource request "
                                  "{'GPU': 16.0, 'CPU': 1.0}. Add suitable node types to this cluster to resolve this "
                                  "issue.\n",
    # spark-arena/recipe-registry#13: the mp executor across two Sparks
    "mp-semlock-other-host": "(Worker pid=88) FileNotFoundError: [Errno 2] No such file or directory\n"
                             "  File \".../multiprocessing/synchronize.py\", line 115, in __setstate__\n"
                             "    self._semlock = _multiprocessing.SemLock._rebuild(*state)\n",
    # chentong0/copy-bench#2 (vLLM V0 scheduler)
    "kv-preempted": "WARNING 05-02 10:01:02 scheduler.py:1089] Sequence group 264 is preempted by "
                    "PreemptionMode.RECOMPUTE mode because there is not enough KV cache space. This can affect the "
                    "end-to-end performance. Increase gpu_memory_utilization or tensor_parallel_size to provide more "
                    "KV cache memory. total_num_cumulative_preemption=1\n",
    "cpu-no-ray": ("(EngineCore pid=20433) ERROR 11-29 14:02:12 [core.py:1510] ValueError: current platform cpu does "
                   "not support ray.\n"),
    "ray-missing": "/bin/bash: line 1: ray: command not found\n",
    "pg-timeout": (
        "(EngineCore_DP0 pid=1) ValueError: Cannot provide a placement group requiring 2 GPUs (placement_group_specs="
        "[{'node:192.168.100.10': 0.001, 'GPU': 1.0}, {'GPU': 1.0}]) within 1800 seconds. Tensor parallel size may "
        "exceed available GPUs in your cluster.\n"),
    "pg-wait-then-ready": PG_WAIT + READY,
    "pg-wait": PG_WAIT,
    "pg-not-enough-gpus": ("ValueError: The number of required GPUs exceeds the total number of available GPUs in the "
                           "placement group.\n"),
    "no-gpu-resource": ("(autoscaler +10s) Error: No available node types can fulfill resource request {'GPU': 1.0}. "
                        "Add suitable node types to this cluster to resolve this issue.\n"),
    "no-gpu-on-node": ("(EngineCore_DP0 pid=1) ValueError: Current node has no GPU available. current_node_resource="
                       "{'node:192.168.200.13_group_0_x': 0.001}.\n"),
    "no-gpu-on-driver": "ValueError: Ray does not allocate any GPUs on the driver node.\n",
    "duplicate-node-ip": ("RuntimeError: Every node should have a unique IP address. Got 2 nodes with node ids "
                          "['a', 'b'] and 1 unique IP addresses {'192.168.100.10'}.\n"),
    "gloo-connect-loopback": (
        "(RayWorkerProc pid=32174) RuntimeError: Gloo connectFullMesh failed with [/__w/pytorch/pytorch/third_party/"
        "gloo/gloo/transport/tcp/pair.cc:152] timed out connecting: SO_ERROR: Connection refused, "
        "remote=[127.0.0.1]:28572\n"),
    "gloo-connect": (
        "(RayWorkerProc pid=32174) RuntimeError: Gloo connectFullMesh failed with [/__w/pytorch/pytorch/third_party/"
        "gloo/gloo/transport/tcp/pair.cc:152] timed out connecting: SO_ERROR: Connection refused, "
        "remote=[192.168.100.11]:28572\n"),
    "gloo-iface": (
        "(RayWorkerProc pid=1434, ip=192.168.100.11) RuntimeError: [enforce fail at /__w/pytorch/pytorch/third_party/"
        "gloo/gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable to find address for: enP7s7\n"),
    "shm-open": "(RayWorkerProc pid=5) RuntimeError: open shm in SHMManager failed. errno: 2\n",
    "nccl-error": ("(EngineCore_DP0 pid=5) (RayWorkerWrapper pid=77, ip=192.168.100.11) ERROR 11-29 14:03:00 "
                   "[worker.py:1] RuntimeError: NCCL error: internal error (run with NCCL_DEBUG=INFO)\n"),
    "ray-node-timeout": (
        "Exception: The current node timed out during startup. This could happen because some of the raylet failed "
        "to startup or the GCS has become overloaded.\n"),
    "no-host-ip-hang": (
        "(EngineCore pid=5) INFO 11-29 14:30:00 [multiproc_executor.py:153] DP group leader: node_rank=0, "
        "node_rank_within_dp=0, master_addr=192.168.100.10, mq_connect_ip=0.0.0.0 (local), world_size=2, "
        "local_world_size=1\n"),
    "no-host-ip": ("(EngineCore pid=5) <venv>/lib/python3.11/site-packages/vllm/v1/executor/ray_utils.py:627: "
                   "UserWarning: Failed to get the IP address, using 0.0.0.0 by default.\n"),
    "vllm-metadata": "importlib.metadata.PackageNotFoundError: No package metadata was found for vllm\n",
    "vllm-missing": "bash: vllm: command not found\n",
    "ray-local-instance": "2026-01-01 10:00:00,000\tINFO worker.py:1917 -- Started a local Ray instance.\n",
    # vllm-project/vllm#9920: an offline TP=2 run whose paste ends at its progress bar, nothing processed
    "offline-stuck-at-zero": ("INFO 11-01 23:16:33 distributed_gpu_executor.py:56] # GPU blocks: 185231, # CPU blocks: "
                              "18724\n<vllm.entrypoints.llm.LLM object at 0x72c46e351a50>\nProcessed prompts:   0%|"
                              "          | 0/16 [00:00<?, ?it/s, est. speed input: 0.00 toks/s, output: 0.00 toks/s]\n"),
    # several ranks on one machine (no Ray backend named, no other node): Ray's own instance is how it runs there
    "ray-local-instance-one-machine": ("INFO 01-01 10:00:00 [arg_utils.py:1] non-default args: {'tensor_parallel_size': 2}"
                                       "\n2026-01-01 10:00:01,000\tINFO worker.py:1917 -- Started a local Ray instance.\n"),
    # vllm-project/vllm#11539: `ray status` showed both 8-GPU nodes, but vLLM started a Ray of its own for TP=16
    "pg-not-enough-gpus-local-ray": ("Started a local Ray instance. View the dashboard at 127.0.0.1:8266 \nWARNING 02-02 "
                                     "19:54:20 ray_utils.py:315] The number of required GPUs exceeds the total number "
                                     "of available GPUs in the placement group.\n"),
    # vllm-project/vllm PR #28873: TP 16 over two 8-GPU nodes
    "tp-exceeds-local-gpus-several": (
        "(EngineCore_DP0 pid=512) WARNING 12-25 11:51:11 [ray_utils.py:331] Tensor parallel size (16) exceeds "
        "available GPUs (8). This may result in Ray placement group allocation failures.\n"),
    "tp-exceeds-local-gpus": (
        "(EngineCore_DP0 pid=1) WARNING 03-06 08:40:40 [ray_utils.py:330] Tensor parallel size (2) exceeds available "
        "GPUs (1). This may result in Ray placement group allocation failures.\n"),
    "tp-spans-nodes": (
        "(EngineCore_DP0 pid=1) WARNING 03-06 08:40:41 [ray_utils.py:340] tensor_parallel_size=2 is bigger than a "
        "reserved number of GPUs (1 GPUs) in a node 9b520231abc. Tensor parallel workers can be spread out to 2+ "
        "nodes which can degrade the performance.\n"),
    "engine-dead": READY + ("(APIServer pid=1) ERROR 11-29 14:10:00 [async_llm.py:1] "
                            "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.\n"),
    "device-type": "RuntimeError: Failed to infer device type\n",
    "cpu-thread-binding-one-node": "nvidia@spark-a:~$ vllm serve /models/tiny -pp 2\n" + NUMA,
    "cpu-thread-binding": NUMA,
    "exception-after-ready": "(EngineCore pid=1) KeyError: 'x'\n" + READY,
    "exception": ("(EngineCore pid=1) ERROR 11-29 14:02:12 [core.py:1] EngineCore failed to start.\n"
                  "(EngineCore pid=1) KeyError: 'cmpl-abc'\n"),
    "engine-init-failed": ("(APIServer pid=1) RuntimeError: Engine core initialization failed. See root cause above. "
                           "Failed core proc(s): {'EngineCore': 1}\n"),
    # vllm#41725: the command alone, its log elsewhere
    "command-only": ("export NCCL_SOCKET_IFNAME=enp1s0f0np0\nvllm serve nvidia/MiniMax-M2.7-NVFP4 \\\n"
                     "  --tensor-parallel-size 2 \\\n  --nnodes 2 \\\n  --node-rank 0\n"),
    # vllm#22479's TP=2 start, cut after the engine's own ready line (0.10: "seconds"; 0.2x: "73.48 s (compilation: ...)")
    "engine-up-not-ready": ("(EngineCore_0 pid=1) INFO 08-07 19:06:21 [kv_cache_utils.py:833] Maximum concurrency for "
                            "40,960 tokens per request: 11.46x\n(EngineCore_0 pid=1) INFO 08-07 19:06:31 [core.py:198] "
                            "init engine (profile, create kv cache, warmup model) took 114.28 seconds\n"),
    "not-ready-after-kv": ("(EngineCore_DP0 pid=1) INFO 11-29 14:02:11 [kv_cache_utils.py:1] GPU KV cache size: "
                           "100,000 tokens\n"),
    "not-ready": "INFO 11-29 14:02:11 [api_server.py:1] vLLM API server version 0.32.0\n",
    "not-ready-one-machine": "INFO 11-29 14:02:11 [api_server.py:1] vLLM API server version 0.32.0\n",
    "fastsafetensors-across-nodes": (
        "INFO 11-29 14:02:11 [utils.py:253] non-default args: {'model': '/models/m', 'tensor_parallel_size': 2, "
        "'distributed_executor_backend': 'ray', 'load_format': 'fastsafetensors'}\n"
        "(RayWorkerWrapper pid=283, ip=192.168.100.11) INFO 11-29 14:02:30 [parallel_state.py:1234] world_size=2 "
        "rank=1 local_rank=0 distributed_init_method=tcp://192.168.100.10:45015 backend=nccl\n"),
}


# The faults people report (checks/diagnoses.toml, "faults people report"): text patterns, reached here
# in a vLLM log (a banner line makes the text one); tests/test_field_faults.py reads each in the shape
# the field prints it, through diagnose_text as well.
BANNER = "INFO 11-29 14:02:11 [api_server.py:1] vLLM API server version 0.32.0\n"
EXAMPLES.update({
    # vllm#33685: the V1 engine core's line, then its traceback, cut before the exception (the thread's own paste)
    "engine-start-failed": BANNER + "(EngineCore_DP0 pid=563) ERROR 02-04 19:47:43 [core.py:966] EngineCore failed to "
                           "start.\n(EngineCore_DP0 pid=563) ERROR 02-04 19:47:43 [core.py:966] Traceback (most recent "
                           "call last):\n",
    # QAnything#302: vLLM 0.3's log with a collector's prefix, cut inside the traceback
    "traceback-cut": "INFO 04-27 10:13:05 llm_engine.py:275] # GPU blocks: 0, # CPU blocks: 256\n2024-04-27 10:13:05 | "
                     "ERROR | stderr | Traceback (most recent call last):\n",
    # DeepSeek-v4-Flash-One-DGX-Spark#13: the API server's own traceback from runpy, the paste cut inside it
    "traceback-cut-uncaught": BANNER + "(APIServer pid=1) Traceback (most recent call last):\n(APIServer pid=1)   File "
                              "\"<frozen runpy>\", line 198, in _run_module_as_main\n(APIServer pid=1)   File "
                              "\"/opt/vllm/vllm/entrypoints/cli/serve.py\", line 148, in cmd\n",
    # spark-vllm-docker#296: the engine core's traceback through the KV page-size unification (the corpus's n018)
    "kv-page-size-unify": BANNER + "(EngineCore pid=114) ERROR 06-23 06:27:21 [core.py:1229]   File \"/usr/local/lib/"
                          "python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py\", line 1096, in "
                          "unify_kv_cache_spec_page_size\n(EngineCore pid=114) ERROR 06-23 06:27:21 [core.py:1229] "
                          "AssertionError\n",
    # GLM-5.3-Flash-NVFP4-Dual-DGX-Spark#2: Ray's memory monitor on a Spark, the line wrapped as posted (corpus m010)
    "ray-memory-monitor-kill": BANNER + "ray.exceptions.OutOfMemoryError: 1 worker(s) were killed due to the node\n"
                               "running low on memory. Memory on the node (IP: 10.99.0.2) was\n113.76GB / 119.70GB "
                               "(0.950345)\n",
    # vllm#40899: a variable vLLM no longer reads (corpus m019)
    "vllm-unknown-env": BANNER + "WARNING [envs.py:1846] Unknown vLLM environment variable detected: "
                        "VLLM_USE_RAY_COMPILED_DAG\n",
    # OpenRLHF#336: a V0 worker's failed method in a Ray actor (corpus p007)
    "vllm-worker-method-failed": BANNER + "(LLMRayActor pid=20770) ERROR 06-28 06:11:45 worker_base.py:145] Error executing "
                                 "method initialize_cache. This might cause deadlock in distributed execution.\n",
    # NVIDIA/nccl#1538: UCX's signal handler after NCCL's proxy failed (corpus p022)
    # vllm#789: a Ray worker in Docker ended by SIGBUS (abseil's handler, then Python's)
    "process-sigbus": BANNER + "(RayWorker pid=4711) *** SIGBUS received at time=1692322557 on cpu 5 ***\n"
                               "(RayWorker pid=4711) Fatal Python error: Bus error\n",
    # gpustack#5014: Ray's plasma store asking more of /dev/shm than is free (a warning since Ray 1.x)
    "ray-plasma-shm-short": BANNER + "[2026-03-25 05:44:29,435 W 39 39] (raylet) store_runner.cc:83: System memory "
                                     "request exceeds memory available in /dev/shm. The request is for 10200547328 "
                                     "bytes, and the amount available is 9663676416 bytes.\n",
    # magnate3/linux-riscv-dev (blind batch ws005): ibstat given a netdev name, not a CA name
    "ibstat-no-such-ca": BANNER + "ibpanic: [5896] main: 'ib1' IB device can't be found: No such file or directory\n",
    "process-segfault": BANNER + "[job-3bb823c0-worker-0:5665 :0:5665] Caught signal 11 (Segmentation fault: address "
                        "not mapped to object at address (nil))\n",
    # vllm#7800: TP=8 under the multiproc executor on one host (corpus p018); the layout line makes every rank local
    "nccl-system-error-one-machine": BANNER + "INFO 08-23 08:25:20 config.py:813] Defaulting to use mp for distributed "
                                     "inference\nINFO 08-23 08:25:20 llm_engine.py:174] Initializing an LLM engine "
                                     "(v0.5.4) with config: model='m', tensor_parallel_size=8, "
                                     "pipeline_parallel_size=1\n(VllmWorkerProcess pid=232) ERROR 08-23 08:25:25 "
                                     "multiproc_worker_utils.py:226] Exception in worker VllmWorkerProcess while "
                                     "processing method init_device: NCCL error: unhandled system error (run with "
                                     "NCCL_DEBUG=INFO for details)\n",
    # NVIDIA/daqiri#78: nmcli told `ipv4.mtu` on a DGX Spark (corpus o020)
    "nmcli-mtu-not-ipv4": BANNER + "Error: invalid property 'mtu': 'mtu' not among [method, dns, dns-search]\n",
    # vllm-dgx-spark#3: what a Spark's vLLM container sets for its own build (corpus m024)
    "vllm-unknown-env-image": BANNER + "WARNING [envs.py:1846] Unknown vLLM environment variable detected: "
                              "VLLM_VERSION\n",
    # forum 352051: nvidia-peermem on a DGX Spark (corpus m016)
    "nvidia-peermem-einval": BANNER + "modprobe: ERROR: could not insert \u2018nvidia_peermem\u2019: Invalid argument\n",
    # ray#62883: `ray status` where no Ray runs (the corpus's l013)
    "ray-not-running": BANNER + "ConnectionError: Could not find any running Ray instance. Please specify the one to "
                       "connect to by setting the `--address` flag or `RAY_ADDRESS` environment variable.\n",
    # ServerlessLLM#311: Ray's object store in /tmp in a container with Docker's 64 MiB /dev/shm (the corpus's l006)
    "ray-object-store-in-tmp": "2025-11-07 05:43:08,882 WARNING services.py:2159 -- WARNING: The object store is using "
                               "/tmp instead of /dev/shm because /dev/shm has only 67108864 bytes available.\n",
    # ServerlessLLM#242: `docker ps -a` with the worker container ended by SIGSEGV (the corpus's l021)
    "container-killed-by-signal": BANNER + "438a5d21b2b0   serverlessllm/sllm-worker:latest   \"/app/entrypoint.sh …\"   2 "
                                  "minutes ago   Exited (139) 2 minutes ago             sllm_worker_0\n",
    # a container stopped long ago with `docker stop` (SIGKILL after the grace period): a warning, not a crash
    "container-killed": BANNER + "a1b2c3d4e5f6   ubuntu:22.04   \"sleep infinity\"   3 weeks ago   Exited (137) 3 weeks "
                        "ago             idle\n",
    # gpustack#5181: a raylet's gRPC listener on a port another process holds (raylet.err; the corpus's l023)
    "listener-port-in-use": BANNER + "E0421 10:20:52.950933773      86 chttp2_server.cc:1063]                UNKNOWN:No "
                            "address added out of total 1 resolved for '0.0.0.0:41008' {created_time:\"2026-04-21\"}\n",
    "mlx5-probe-failed": BANNER + "[   14.059052] mlx5_core 0000:03:00.0: mlx5_load_one failed with error code -22\n",
    "host-oom-killed": BANNER + "[ 2457.202443] Out of memory: Killed process 4242 (python3) total-vm:92000000kB\n",
    "host-oom-killer": BANNER + "[ 2457.202100] python3 invoked oom-killer: gfp_mask=0x140cca, order=0\n",
    "nccl-system-error": "RuntimeError: NCCL error: unhandled system error\n",  # no vLLM log: its event entry's
    "gid-index-empty": BANNER + "[glm53-exl3] worker GID index 3 is EMPTY on rocep1s0f0\n",
    "gid-index-empty-list": BANNER + "head GID index 3 is EMPTY on rocep1s0f0,roceP2p1s0f0\n",
    "invalid-device-ordinal": BANNER + "(VllmWorker rank=1 pid=839) ERROR 10-24 13:48:14 [multiproc_executor.py:514] "
                              "torch.AcceleratorError: HIP error: invalid device ordinal\n",
    "rdma-no-suitable-gid": BANNER + "E0302 08:32:31.000000 57711 rdma_context.cpp:460] No suitable GID found on rocep153s0\n",
    "rdma-gid-query-empty": BANNER + "E0302 08:32:30.369483 57711 rdma_context.cpp:450] Failed to query GID 244 on "
                            "rocep153s0/: No data available [61]\n",
    "ray-infeasible-node-type": BANNER + "2021-02-22 13:27:35,626\tINFO resource_demand_scheduler.py:604 -- No feasible "
                                "node type to add for [{'memory': 41.0, 'CPU': 1.0}]\n",
    "pcie-aer-first": BANNER + "[  +0.000894] pcieport 0000:00:03.0:    [14] CmpltTO                (First)\n",
    "pcie-aer": BANNER + "[  +0.000041] pcieport 0000:00:03.0: AER: device recovery failed\n",
    "pcie-aer-recovered": BANNER + "[ 12.000001] pcieport 0000:00:1c.0: AER: device recovery successful\n",
    "cgroup-oom-killer": BANNER + "[ 99.1] Memory cgroup out of memory: Killed process 4242 (python3) total-vm:9000000kB\n",
    "cgroup-oom-constraint": BANNER + "[ 99.0] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=docker-1\n",
    "torch-store-timeout": BANNER + "torch.distributed.DistStoreError: Timed out after 6 seconds waiting for workers. "
                           "1/2 workers joined.\n",
    "ibverbs-provider-missing": BANNER + "libibverbs: Warning: couldn't load driver 'liberdma-rdmav34.so': liberdma-rdmav34"
                                ".so: cannot open shared object file: No such file or directory\n",
    # jethac/dgx-spark-hijinks: an NGC container's start banner on a DGX Spark
    "container-shm-64mb": BANNER + "NOTE: The SHMEM allocation limit is set to the default of 64MB.  This may be\n",
    "container-forward-compat": BANNER + "NOTE: CUDA Forward Compatibility mode ENABLED.\n  Using CUDA 13.2 driver version "
                                "595.58.03 with kernel driver version 580.159.03.\n",
    # vllm-project/vllm#27508: the one process on the GPU is the engine itself (its host PID, from a container)
    "oom-torch-own": BANNER + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 786.00 MiB. GPU 0 has a "
                     "total capacity of 79.11 GiB of which 140.75 MiB is free. Process 3270336 has 78.96 GiB memory in "
                     "use. Of the allocated memory 68.83 GiB is allocated by PyTorch, with 660.00 MiB allocated in private "
                     "pools (e.g., CUDA Graphs), and 331.08 MiB is reserved by PyTorch but unallocated.\n",
    # kreuzhofer/dgx-manager (a GB10 rank under torch.compile): the message quoted without its accounting
    "oom-torch-bare": BANNER + "CUDA out of memory. Tried to allocate 5.00 GiB.\nGPU 0 ... of which 9.71 GiB is free.\n",
    # wtdcode/vllm-backport#34: PyTorch's warning that a GPU is full (PP=2 x TP=4 on 8 RTX 3090s)
    "oom-expandable-mapping": BANNER + "[rank4]:[W827 22:16:08.199727429 CUDACachingAllocator.cpp:508] expandable_segments: "
                              "memory mapping failed with OOM on device 4 while trying to map 20971520 bytes (free: "
                              "17235968, total: 25295323136).\n",
    # the same warning in a start that went on to serve (helper-60's break-it review, /tmp/breakit10/35)
    "oom-expandable-mapping-served": BANNER + "[rank1]:[W827 22:16:08.199727429 CUDACachingAllocator.cpp:508] "
                                     "expandable_segments: memory mapping failed with OOM on device 1 while trying to "
                                     "map 2097152 bytes (free: 1048576, total: 25295323136).\n(APIServer pid=1) INFO "
                                     "02-04 19:50:01 [launcher.py:46] Application startup complete.\n",
    # lemonade-sdk/vllm-rocm#5: PyTorch 2.x's form of the message (HIP on an AMD APU; CUDA prints the same)
    "oom-torch-2": BANNER + "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 12.95 GiB. GPU 0 has a total "
                   "capacity of 127.00 GiB of which 18.55 GiB is free. Of the allocated memory 99.37 GiB is allocated by "
                   "PyTorch, and 121.80 MiB is reserved by PyTorch but unallocated.\n",
    # eugr/spark-vllm-docker#200: one Spark's profile with an impossible CUDA graph estimate
    "negative-cudagraph-estimate": BANNER + "(EngineCore pid=194) INFO 04-29 12:01:06 [gpu_model_runner.py:6042] "
                                   "Estimated CUDA graph memory: -4.74 GiB total\n",
    # mark-ramsey-ri/vllm-dgx-spark#2: a launcher script that stopped waiting for the API
    "launcher-gave-up-waiting": BANNER + "[2025-11-18 13:19:17]   vLLM not ready after 3 minutes - continuing anyway\n",
    # NCCL WARN lines (real shapes: nccl#426, nccl-tests#24, nccl#795, nccl-tests#166)
    "nccl-wc-retry": BANNER + "gpu5:6252:6325 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer "
                     "10.0.0.2<46487> with error 12, opcode 0, len 0, vendor err 129\n",
    "nccl-wc-prot": BANNER + "gpu5:6252:6325 [0] transport/net_ib.cu:788 NCCL WARN NET/IB : Got completion with error 4, opcode 1, "
                    "len 0, vendor err 81\n",
    "nccl-wc-other": BANNER + "gpu5:6252:6325 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer "
                     "10.0.0.2<46487> with error 5, opcode 0, len 0, vendor err 249\n",
    # sgl-project/sglang#1479: a TP worker's exception during CUDA-graph capture
    "sglang-worker-exception": BANNER + "[23:17:01 TP4] Capture cuda graph begin. This can take up to several minutes.\n"
                               "[23:17:08 TP4] Exception in run_tp_server:\nTraceback (most recent call last):\n",
    # blind batch zj005: the kernel's boot lines of a GPU on fewer lanes, and of one at a lower speed
    "pcie-link-narrower": BANNER + "pci 0000:04:00.0: 63.012 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x4 "
                          "link at 0000:00:01.2 (capable of 504.112 Gb/s with 32.0 GT/s PCIe x16 link)\n",
    "pcie-link-slower": BANNER + "pci 0000:01:00.0: 32.000 Gb/s available PCIe bandwidth, limited by 2.5 GT/s PCIe x16 "
                        "link at 0000:00:01.1 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)\n",
    # ray-project/ray#24305: Gloo's own line, a peer at the loopback address its hostname resolves to
    "gloo-pair-loopback": BANNER + "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:799] connect "
                          "[127.0.0.1]:14221: Connection refused\n",
    # NVIDIA/nccl-tests#180: Open MPI's UCX dialling a Docker bridge address of the other host
    "mpi-ucx-unreachable": BANNER + "[1700554343.440877] [10-192-80-132:7356 :0]            sock.c:323  UCX  ERROR   "
                           "connect(fd=48, dest_addr=172.17.0.1:42887) failed: Connection refused\n",
    # sgl-project/sglang#7478: a rank of the second node timing out on the store at node-0
    "c10d-socket-timeout": BANNER + "[rank1]:[W623 15:37:01.824135523 socket.cpp:485] [c10d] waitForInput: socket "
                           "SocketImpl(fd=100, addr=[node-0.company.net]:43590, remote=[node-0.company.net]:20000) timed "
                           "out after 1800000ms\n",
    # NVIDIA/TensorRT-LLM#2594: a device name UCX does not have (a typo for mlx5_3)
    "ucx-net-device-missing": BANNER + "[1734600615.128892] [leader:5387 :0]     ucp_context.c:1234 UCX  WARN  network "
                              "device 'mlx3_1:1' is not available, please use one or more of: 'eth0'(tcp), "
                              "'mlx5_0:1'(ib)\n",
    # vllm-project/vllm#14349: vLLM's driver through Ray Client
    "ray-client-address": BANNER + "2025-03-06 17:44:11,132\tINFO worker.py:1514 -- Using address ray://192.168.1.67:10001 "
                          "set in the environment variable RAY_ADDRESS\n",
    # joorklee/p2p-bench (blind batch zj007): vLLM 0.23's all-reduce backends on two RTX 5060 Ti, and SymmMem left out
    "vllm-allreduce-backends": BANNER + "(Worker pid=1417088) INFO 06-16 20:46:09 [cuda_communicator.py:237] Using "
                               "['PYNCCL'] all-reduce backends (in dispatch order) for group 'tp:0' out of potential "
                               "backends: ['NCCL_SYMM_MEM', 'QUICK_REDUCE', 'FLASHINFER', 'CUSTOM', 'SYMM_MEM', 'PYNCCL'].\n",
    "vllm-symm-mem-unsupported": BANNER + "(Worker pid=1417088) WARNING 06-16 20:46:09 [symm_mem.py:66] SymmMemCommunicator: "
                                 "Device capability 12.0 not supported, communicator is not available.\n",
    # stackhpc/ansible-slurm-appliance#975: nvidia-smi refusing a power limit out of range
    "nvidia-smi-pl-refused": BANNER + "Provided power limit 50.00 W is not a valid power limit which should be between "
                             "200.00 W and 700.00 W for GPU 00000000:06:00.0\n",
    # eugr/spark-vllm-docker#15: PyTorch's warning on a GB10 (12.1) with a build to 12.0
    "torch-capability-above-build": BANNER + "Found GPU0 NVIDIA GB10 which is of cuda capability 12.1. Minimum and Maximum "
                                    "cuda capability supported by this version of PyTorch is (8.0) - (12.0)\n",
    # djangodevreng/dgx-spark-benchmarks (kat-coder): the engine's traceback at ERROR, cut before its exception
    "engine-init-failed-traced": BANNER + "(EngineCore pid=273) ERROR 08-08 22:14:39 [core.py:1330]   File \"/usr/local/lib/"
                                 "python3.12/dist-packages/vllm/model_executor/model_loader/default_loader.py\", line 467, "
                                 "in track_weights_loading\n(EngineCore pid=273) ERROR 08-08 22:14:39 [core.py:1330]     "
                                 "raise ValueError(\n(APIServer pid=1) RuntimeError: Engine core initialization failed. See "
                                 "root cause above. Failed core proc(s): {}\n",
    # NVIDIA/nccl#667: the poster's words, the switch pairs hang and P2P off works around it
    "p2p-disable-workaround-hang": BANNER + "The rest will result in hanging.\nSetting NCCL_P2P_DISABLE=1 did workaround "
                                   "but got really low speed.\n",
    # linux-rdma/perftest#173 (status 4 under --use_cuda in a VM), zrlio/softiwarp#27 (status 12), a status 10
    "perftest-wc-prot": BANNER + "Completion with error at client\n  Failed status 4: wr_id 0 syndrom 0x51\n",
    "perftest-wc-retry": BANNER + " Completion with error at client Failed status 12: wr_id 0 syndrom 0x81 scnt=128, "
                         "ccnt=0\n",
    "perftest-wc-other": BANNER + "Completion with error at server\n  Failed status 10: wr_id 0 syndrom 0x88\n",
    # uccl-project/uccl#641: ports ACTIVE, then RTR times out
    "roce-rtr-timeout": BANNER + "Failed to modify QP to RTR: Connection timed out\nerrno: 110\n",
    # NVIDIA/cuda-samples#390: the test runner's summary; aikitoria/open-gpu-kernel-modules#8: simpleP2P's check
    "cuda-samples-p2p-failed": BANNER + "Failed runs (4):\n  simpleP2P : Failed (code 1)\n",
    "simple-p2p-verification": BANNER + "Copy data back to host from GPU0 and verify results...\nVerification error @ "
                               "element 0: val = nan, ref = 0.000000\n",
    # vllm#2669: the raylet's own kill message; vllm#15744: a TCPStore client that never connected; vLLM's
    # custom all-reduce off on two A100s without P2P (dennislee22/vLLM-benchmarking)
    "ray-memory-monitor-kill-raylet": BANNER + "Memory on the node (IP: 169.254.181.2, ID: 708c) where the task (actor "
                                      "ID: 0d, pid=308, memory used=11.15GB) was running was 12.49GB / 13.15GB "
                                      "(0.950003), which exceeds the memory usage threshold of 0.95. Ray killed it\n",
    "c10d-connect-timeout": BANNER + "[c10d] The client socket has timed out after 600000ms while trying to connect to "
                            "(10.1.2.33, 54485).\n",
    # https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/issues/1073 (blind batch wb008): GB10, the plugin exits
    "k8s-gpu-memory-not-supported": BANNER + "Error: error creating driver: error enumerating all possible devices: error "
                                    "visiting device: error getting info for GPU 0: error getting memory info for "
                                    "device 0: Not Supported\n",
    # https://github.com/NVIDIA/gpu-operator/issues/1794 (blind batch wb009): v0.17.4 goes on
    "k8s-gpu-memory-not-supported-ignored": BANNER + "W1204 18:29:54.725748 Ignoring error getting device memory: Not "
                                            "Supported\n",
    # https://github.com/ray-project/ray/pull/33842 (blind batch wb003): the head's GCS and a wrong RAY_REDIS_ADDRESS
    "ray-gcs-start-failed": BANNER + "2023-03-30 18:42:44,984 CRITICAL node.py:610 -- Failed to start GCS. Last 10 "
                            "lines of error files:\n",
    "ray-gcs-redis-unreachable": BANNER + "[2023-03-30 18:42:30,996 E 2487574 2487574] (gcs_server) redis_context.cc:368: "
                                 "Failed to connect to Redis due to: RedisError: Could not establish connection to Redis "
                                 "localhost:1234 (context.err = 1).. Will retry in 100ms.\n",
    "vllm-custom-allreduce-off": BANNER + "WARNING 09-03 02:12:01 [custom_all_reduce.py:147] Custom allreduce is "
                                 "disabled because your platform lacks GPU P2P capability or P2P test failed.\n",
    # NVIDIA/nccl#2076 (the peer went away), NVIDIA/nccl#697 (an error chain), Oneflow-Inc/oneflow#3586 (retried connect)
    "nccl-peer-closed-remote-error": BANNER + "ncclRemoteError: A call failed possibly due to a network error or a "
                                     "remote process exiting prematurely.\n",
    # https://github.com/NVIDIA/nccl/issues/958 (blind batch wj015): NCCL_NET=IB forced, no RDMA device
    "nccl-net-ib-no-device": BANNER + "NCCL_NET=IB\nh:1:2 [0] NCCL INFO NET/IB : No device found.\n",
    # https://github.com/vllm-project/vllm/issues/798 (blind batch wi001): NCCL's proxy could not connect two ranks
    "nccl-proxy-connect-failed": BANNER + "(LLMEngine pid=2347640, ip=10.58.226.15) Proxy Call to rank 7 failed "
                                 "(Connect)\n",
    # https://github.com/NVIDIA/TensorRT-LLM/issues/1039 (blind batch wh001): a communicator used after a failed op
    "nccl-comm-after-failed-op": BANNER + "instance-12463:390729:390729 [2] init.cc:303 NCCL WARN Attempt to use "
                                 "communicator before the previous operation returned ncclSuccess\n",
    "nccl-socket-connect-retry": BANNER + "w:1:2 [0] NCCL INFO Call to connect returned Connection timed out, retrying\n",
    # blind batch zr (TensorRT-LLM, Dynamo, NIXL/UCX) and zs010 (a GPU the driver lost), each line as posted
    "dynamo-etcd-unreachable": BANNER + "Error: Failed to connect to etcd server with config ClientOptions { etcd_url: "
                               "[\"http://localhost:2379\"], etcd_connect_options: None }\n",
    "dynamo-no-responders": BANNER + "ERROR Internal server error: Failed to generate completions: no responders\n",
    "mpi-rank-sigkill": BANNER + "mpirun noticed that process rank 6 with PID 0 on node n1 exited on signal 9 (Killed).\n",
    "tensorrt-gpu-oom": BANNER + "[TRT] [W] Requested amount of GPU memory (24793579520 bytes) could not be allocated.\n",
    "trtllm-assertion": BANNER + "[TensorRT-LLM][ERROR] Assertion failed: FP8 FMHA cannot be enabled except on Ada\n",
    "trtllm-engine-other-device": BANNER + "[TensorRT-LLM][WARNING] Using an engine plan file across different models of "
                                  "devices is not recommended\n",
    "ucx-local-protection": BANNER + "ib_mlx5_log.c:179  UCX  ERROR Local protection error on mlx5_0:1/RoCE (synd 0x4)\n",
    "ucx-link-local-gid": BANNER + "ib_device.c:1332 UCX  ERROR   ibv_create_ah(dlid=49152 sl=0 port=1 dgid=fe80::a1b "
                          "flow_label=0xffffffff sgid_index=0 traffic_class=0) failed\n",
    "ucx-wr-flushed": BANNER + "srd_iface.c:221  UCX  ERROR send completion[0] with error on rdmap1: Work Request Flushed "
                      "Error, vendor_err 0x1\n",
    "nvidia-smi-gpu-lost": BANNER + "Unable to determine the device handle for GPU 0000:09:00.0: Unknown Error\n",
    # pop-os/pop#3363: corrected PCIe errors on a root port, three of them (one alone is said nothing of)
    "pcie-corrected-burst": BANNER + "pcieport 0000:00:03.1: PCIe Bus Error: severity=Correctable, type=Data Link Layer, "
                            "(Transmitter ID)\n" * 3,
    # ai-dynamo/dynamo#429 (NATS without JetStream), NVIDIA/TensorRT-LLM#5495 (MPI spawn with no free slot)
    "nats-jetstream-unavailable": BANNER + "nats.js.errors.ServiceUnavailableError: nats: ServiceUnavailableError\n",
    "mpi-spawn-no-slots": BANNER + "All nodes which are allocated for this job are already filled.\n",
    # bytedance/byteps#313 (another libibverbs first), raspberry-pi-pcie-devices#21 (a NIC that stopped sending)
    "ibverbs-private-version": BANNER + "libibverbs: Warning: couldn't load driver 'mthca': /opt/x/libibverbs.so.1: "
                               "version `IBVERBS_PRIVATE_22' not found (required by libmthca-rdmav22.so)\n",
    "netdev-tx-timeout": BANNER + "[   43.997620] NETDEV WATCHDOG: eth1 (mlx4_core): transmit queue 0 timed out\n",
    # blind batch zu: vllm#33920, sglang#29562, llama.cpp#16748, sglang#7227
    "vllm-sampler-warmup-oom": BANNER + "RuntimeError: CUDA out of memory occurred when warming up sampler with 256 "
                               "dummy requests.\n",
    "flashinfer-trtllm-gen-arch": BANNER + "Error in function 'TllmGenFmhaRunner' at fmhaRunner.cuh:37: Unsupported "
                                  "architecture\n",
    "ggml-cuda-malloc-oom": BANNER + "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 12710.31 MiB on device 0: "
                            "cudaMalloc failed: out of memory\n",
    "triton-fp8-unsupported-arch": BANNER + "ValueError: type fp8e4nv not supported in this architecture\n",
    # LostRuins/koboldcpp#2005: an asynchronous kernel fault
    "cuda-illegal-memory-access": BANNER + "CUDA error: an illegal memory access was encountered\n",
    # blind batch zy: sriov-cni#348 (bnxt_re in a pod), infra-controller PR #5251 (no /etc/libibverbs.d)
    "ibverbs-kernel-abi": BANNER + "libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports "
                          "1 to 1) for device /sys/class/infiniband/bnxt_re2\nNo IB devices found\n",
    "ibverbs-no-providers": BANNER + "libibverbs: Warning: couldn't open config directory '/etc/libibverbs.d'.\n"
                            "No IB devices found\n",
    # vllm#1957 (blind batch zw006): four RTX 3090s of one machine, the first all-reduce never finished
    "nccl-watchdog-first-one-machine": BANNER + "(RayWorkerVllm pid=409241) [E ProcessGroupNCCL.cpp:474] [Rank 1] "
                                       "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE"
                                       ", NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800762 milliseconds "
                                       "before timing out.\n",
    # blind batch zw: nccl#626, nccl#1837, Megatron-LM#661, DeepSpeedExamples#310, each line as posted
    "nccl-ib-async-benign": BANNER + "gpu1:5021:5386 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : "
                            "client reregistration\n",
    "nccl-socket-truncated": BANNER + "transport/net_socket.cc:424 NCCL WARN NET/Socket : peer 192.168.161.30<59210> "
                             "message truncated :\nreceiving 1048576 bytes instead of 65536\n",
    "nccl-duplicate-gpu": BANNER + "Duplicate GPU detected : rank 3 and rank 0 both on CUDA device f000\n",
    "nccl-socket-no-address": BANNER + "[trainer0|0]:ncclSocketInit: connecting to address  with family 59936 is "
                              "neither AF_INET(2) nor AF_INET6(10)\n",
    # ray#42136 (blind batch zv012): the dashboard's port as the cluster address
    "ray-dashboard-port-as-gcs": BANNER + "2023-12-31 02:05:37,612 INFO worker.py:1540 -- Connecting to existing Ray "
                                 "cluster at address: 10.74.40.10:8265...\nRuntimeError: Failed to connect to GCS.\n",
    # blind batch yz: ggml-org/llama.cpp#15055 and #12385, as posted
    "llama-rpc-server-crashed": BANNER + "/opt/llama.cpp/ggml/src/ggml-rpc/ggml-rpc.cpp:615: Remote RPC server crashed or "
                                "returned malformed response\n",
    "llama-rpc-connect-failed": BANNER + "llama_model_load_from_file_impl: using device RPC(RPC[:50052]) - 0 MiB free\n"
                                "Failed to connect to :50052\n",
    # blind batch zz, as posted: pytorch#79388, ymcui/Chinese-LLaMA-Alpaca-2#274, pytorch#76367, DeepSeek-V3#487,
    # pytorch#121209
    "torch-rendezvous-connection": BANNER + "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The "
                                   "connection to the C10d store has failed. See inner exception for details.\n",
    "torch-rendezvous-timeout": BANNER + "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError\n",
    "torchrun-random-run-id": BANNER + "master_addr is only used for static rdzv_backend and when rdzv_endpoint is not "
                              "specified.\nWARNING:torch.distributed.launcher.api:config has no run_id, generated a "
                              "random run_id: 174580650467654300307713793029077439978\n",
    "torch-rendezvous-loopback-master": BANNER + "INFO:torch.distributed.elastic.agent.server.api:[default] Rendezvous "
                                        "complete for workers. Result:\n  restart_count=0\n  master_addr=localhost\n"
                                        "  master_port=23456\n  group_rank=1\n  group_world_size=2\n",
    "torchrun-loopback-master-across-nodes": BANNER + "`torchrun --nnodes 2 --nproc-per-node 8 --node-rank 1 --master-addr "
                                             "127.0.0.1 generate.py --ckpt-path DeepSeek-V3-Demo`\n",
    "torchelastic-child-failed": BANNER + "Root Cause (first observed failure):\n[0]:\n  time      : 2024-03-05_07:01:51\n"
                                 "  host      : vmgpuhostpoc.internal.cloudapp.net\n  rank      : 0 (local_rank: 0)\n"
                                 "  exitcode  : 1 (pid: 69811)\n  error_file: <N/A>\n",
    # Mellanox/mstflint#33 (blind batch zy006), as posted (the kernel's line cut where the post cut it)
    "mlx-module-not-connected": BANNER + "mlx4_core 0000:04:00.0: MLX4_CMD_MAD_IFC Get Module info attr(ff60) port(1) "
                                "i2c_addr(50) offset(0) size(2): Response Mad Status(31c) - cable is not con\n",
    "ethtool-module-unreadable": BANNER + "Cannot get module EEPROM information: Input/output error\n",
    # blind batch xb (containers), each line as posted: nvidia-container-toolkit#434, XAgent#273, FasterLivePortrait#116,
    # nvidia-docker#1629 and #1671, libnvidia-container#231, nccl#290, vllm#5283
    "docker-cdi-off": BANNER + 'docker: Error response from daemon: could not select device driver "cdi" with capabilities: [].\n',
    "docker-no-gpu-runtime": BANNER + 'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].\n',
    "cdi-unresolvable": BANNER + 'Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all\n',
    "nvidia-container-driver-not-loaded": BANNER + 'nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown.\n',
    "nvidia-container-no-nvml-library": BANNER + 'nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory\n',
    "nvml-unknown-error": BANNER + 'Failed to initialize NVML: Unknown Error\n',
    # session 39 (k8s device plugin, Docker, NGC, ssh, torchrun), each line as posted: k8s-device-plugin#303 and #1371,
    # dgx-spark-playbooks#26, AEON-7 Qwen3.6 DFlash#5, sparkrun#257, accelerate#1645
    "go-nvml-library-not-loaded": BANNER + "2022/05/13 23:09:23 Failed to initialize NVML: could not load NVML library.\n",
    "docker-no-nvidia-runtime": BANNER + "docker: Error response from daemon: unknown or invalid runtime name: nvidia\n",
    "ngc-container-no-driver": BANNER + "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be "
                               "available.\n",
    # NVIDIA/nvidia-docker#1548 (WSL2): the banner, then nvidia-smi in the same container lists the GPU; the same
    # banner after a `docker run --gpus all` whose output the paste does not show
    "ngc-container-no-driver-gpu-shown": BANNER + (
        "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n"
        "|   0  NVIDIA GeForce ...  On   | 00000000:01:00.0  On |                  N/A |\n"),
    "ngc-container-no-driver-gpus-asked": BANNER + (
        "$ docker run --gpus all --rm nvcr.io/nvidia/pytorch:24.05-py3\n"
        "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n"),
    "ssh-resolve-one-letter": BANNER + "  SSH cmd <- s FAILED rc=255: ssh: Could not resolve hostname s: Temporary failure "
                              "in name resolution\n",
    "ssh-resolve": BANNER + "ssh: Could not resolve hostname spark2: Name or service not known\n",
    "per-node-interface-overwritten": BANNER + "Overwriting environment variable NCCL_IB_HCA from 'rocep1s0f0,roceP2p1s0f0' "
                                      "to 'rocep1s0f1,roceP2p1s0f1'\n",
    "ray-dashboard-loopback": BANNER + "2022-04-21 03:58:21,746\tINFO services.py:1414 -- View the Ray dashboard at "
                              "http://127.0.0.1:8265\n",
    "nmap-port-filtered": BANNER + "8065/tcp filtered unknown no-response\n",
    "gpustack-tp-cannot-divide-worker": BANNER + '"vLLM multi-node: --tensor-parallel-size 2 cannot divide worker[0] 1 GPUs '
                                        '(vLLM requires each TP unit fit inside one node)"\n',
    "ray-private-node-vpn-head": BANNER + "{'node_ip_address': '192.168.1.41', 'redis_address': '100.87.14.22:6379', "
                                 "'object_store_address': '/tmp/ray/plasma_store'}\n",  # a Tailscale (CGNAT) head
    "ray-private-node-public-head": BANNER + "{'node_ip_address': '10.0.0.40', 'redis_address': '203.0.113.129:6379', "
                                    "'object_store_address': '/tmp/ray/plasma_store'}\n",
    "torch-can-access-peer-false": BANNER + ">>> torch.cuda.can_device_access_peer(0, 1)\nFalse\n",
    "c10d-client-connected": BANNER + "[I socket.cpp:787] [c10d] The client socket has connected to [10-198-34-55]:17333 "
                             "on [10-198-34-55]:57764.\n",
    "nccl-shm-fallocate": BANNER + 'gpu2-ru7:2143:2561 [1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device\n',
    "cuda-forward-compat-unsupported": BANNER + 'RuntimeError: Unexpected error from cudaGetDeviceCount(). Error 804: forward compatibility was attempted on non supported HW\n',
    # break-it review of session 34: an ABI warning beside devices that opened; a port without module data
    "ibverbs-kernel-abi-others-open": BANNER + "libibverbs: Warning: Driver irdma does not support the kernel ABI of 6 "
                                      "(supports 4 to 5) for device /sys/class/infiniband/irdma0\n2 HCAs found:\n",
    "ethtool-module-not-supported": BANNER + "Cannot get module EEPROM information: Operation not supported\n",
    # NVIDIA/nccl#230: the HCA's device-fatal event (NCCL 2.4's form); a port error in NCCL 2.19's form
    "nccl-ib-device-fatal": BANNER + "container-57:815:864 [0] transport/net_ib.cu:80 NCCL WARN NET/IB : Got async event "
                            ": local catastrophic error\n",
    "nccl-ib-port-error": BANNER + "gpu5:6252:6325 [0] transport/net_ib.cc:160 NCCL WARN NET/IB : mlx5_0:1 port event: "
                          "port error\n",
    # leptonai/gpud#117: the kernel's hung-task report after an Xid
    "kernel-hung-task": BANNER + "[Sat Oct 12 18:38:44 2024] INFO: task cache_mgr_event:620917 blocked for more "
                                 "than 120 seconds.\n",
    # NVIDIA/nccl-tests#5 (nccl-tests' failure line, an NCCL 1.x build)
    "nccl-unhandled-cuda": BANNER + "node03: Test NCCL failure all_reduce.cu:95 'unhandled cuda error'\n",
    # NVIDIA/nccl#1612: closed during bootstrap (a scanner hitting the listener), older NCCL
    "nccl-peer-closed-bootstrap": BANNER + "[0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by "
                                  "remote peer "
                                  "10.10.1.3<36138>\n[0] NCCL INFO misc/socket.cc:80 -> 6\n"
                                  "[0] NCCL INFO bootstrap.cc:701 -> 6\n[0] NCCL INFO init.cc:1402 -> 6\n",
    # vllm#26028: a vLLM launch under srun, waiting for its placement group, then cancelled by Slurm
    "slurm-cancelled": BANNER + "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"
                       "slurmstepd: error: *** JOB 1112356 ON host1 CANCELLED AT 2025-10-01T14:35:57 ***\n",
    "slurm-cancelled-launch": BANNER + "slurmstepd: error: *** JOB 1112356 ON host1 CANCELLED AT 2025-10-01T14:35:57 "
                              "***\n",
    "slurm-cancelled-serving": BANNER + "INFO:     Application startup complete.\nslurmstepd: error: *** JOB 99 ON "
                               "gpu-node-07 CANCELLED AT 2025-10-02T14:33:12 ***\n",
    # leptonai/gpud#348: the kernel line as its issue quotes it
    "mlx5-insufficient-slot-power": BANNER + "[Sun Dec  1 14:54:40 2024] ny2g1r12hh2 kernel: mlx5_core 0000:5c:00.0: "
                                    "mlx5_pcie_event:299:(pid 268269): Detected insufficient power on the PCIe slot "
                                    "(27W).\n",
    # gpu-operator#2511: an mlx5 NIC's probe in dmesg, on a slot that advertises no power limit
    # ray-project/ray#13586: the autoscaler removing each GPU node it started
    "ray-autoscaler-launch-failed": BANNER + "(autoscaler +49s) Removing 1 nodes of type gpu.medium (launch failed).\n",
    # colonel-otto's three Sparks at TP=3: the all-gather that never finished
    # sgl-project/sglang#10216: PyTorch 2.8's watchdog line, far into a run
    "nccl-watchdog-failure": BANNER + "[rank1]:[E909 08:45:30.126335825 ProcessGroupNCCL.cpp:2252] [PG ID 2 PG GUID 3 Rank "
                             "1]  failure detected by watchdog at work sequence id: 40231 PG status: last enqueued work: "
                             "40267, last completed work: 40230\n",
    # nccl-tests#132: mpirun -np 2 with a machinefile, both ranks on one single-GPU host
    "nccl-tests-device-ordinal": BANNER + "labnodedevai: Test CUDA failure common.cu:892 'invalid device ordinal'\n",
    # NVIDIA/nccl#1504: rank 0's communicator aborted, rank 1's first collective timed out
    "nccl-rank-aborted-peer-timed-out": BANNER + "678c7278cb2d:26023:27115 [0] NCCL INFO comm 0x1aacdee0 rank 0 nranks 4 "
                                        "cudaDev 0 busId 1000 - Abort COMPLETE\n[rank1]:[E1106 04:43:01.018941581 "
                                        "ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
                                        "timeout: WorkNCCL(SeqNum=1, OpType=COALESCED, NumelIn=1, NumelOut=1, "
                                        "Timeout(ms)=1800000) ran for 1800039 milliseconds before timing out.\n",
    # openucx/ucx#8229: `ulimit -a` of the user whose UCX over verbs failed
    "memlock-limit-low": BANNER + "max locked memory       (kbytes, -l) 64\n",
    # NVIDIA/nccl#2353: gdb's frames of rank 1 at the hang
    "nccl-proxy-op-pool-stack": BANNER + "#0  __sched_yield\n#1  ncclLocalOpAppend(ncclComm*, ncclProxyConnector*, "
                                "ncclProxyOp*)\n#2  SaveProxy(ncclComm*, ncclChannel*, int, int, ncclProxyOp*, int, "
                                "bool*)\n",
    # pytorch#149153: an lldb stack of a process stuck in ProcessGroupNCCL::abort()
    "nccl-abort-hang-stack": BANNER + "    frame #2: 0x00007fb090db0b85 libtorch_cuda.so`c10d::ProcessGroupNCCL::"
                             "waitForFutureOrTimeout(std::future<bool>&, std::chrono::duration<long, std::ratio<1l, "
                             "1000l>> const&) + 197\n    frame #3: 0x00007fb090db1068 libtorch_cuda.so`c10d::"
                             "ProcessGroupNCCL::abort() + 664\n",
    # kvcache-ai/Mooncake#936: the RDMA context of one device, GID index 3 given by the user
    "mooncake-gid-ipv4-mapped": BANNER + "I20260203 17:42:09.445906 3720677 rdma_context.cpp:140] RDMA device: mlx5_3, "
                                "LID: 0, GID: (GID_Index 3) 00:00:00:00:00:00:00:00:00:00:ff:ff:cb:00:71:14\n",
    # uxlfoundation/oneCCL#157: a machine with only lo
    "oneccl-no-host-ip": BANNER + "2025:02:17-17:20:51:( 2399) |CCL_ERROR| internal_kvs.cpp:289 fill_local_host_ip: "
                         "can't find interface  to get host IP\n",
    # uccl-project/uccl#301: UCCL's copy of NCCL's GID probe, in a pod with a sparse GID table
    "roce-version-read-einval": BANNER + "W20250825 11:10:33.595331   331 util_rdma.h:547] NET/IB: read failed in "
                                "ncclIbRoceGetVersionNum: Invalid argument\n",
    # NVIDIA/nccl#1409: two ranks' watchdog lines, one step, two collectives
    "nccl-watchdog-desync": BANNER + "[rank7]:[E816 01:45:40.183009389 ProcessGroupNCCL.cpp:607] [Rank 7] Watchdog "
                            "caught collective operation timeout: WorkNCCL(SeqNum=80078, OpType=BROADCAST, NumelIn=5056, "
                            "NumelOut=5056, Timeout(ms)=600000) ran for 600026 milliseconds before timing out.\n"
                            "[rank3]:[E816 01:45:40.212150935 ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught "
                            "collective operation timeout: WorkNCCL(SeqNum=80078, OpType=ALLREDUCE, NumelIn=2106881, "
                            "NumelOut=2106881, Timeout(ms)=600000) ran for 600013 milliseconds before timing out.\n",
    # NVIDIA/deepops#1179: srun --mpi=pmix of nccl-tests on two nodes
    "slurm-pmix-collective-timeout": BANNER + "slurmstepd: error:  mpi/pmix_v3: pmixp_coll_ring_reset_if_to: adas-ml [0]: "
                                     "pmixp_coll_ring.c:742: 0x14ce0c02cb20: collective timeout seq=0\n",
    "nccl-watchdog-timeout": BANNER + "[rank1]:[E825 00:42:25.854022710 ProcessGroupNCCL.cpp:689] [Rank 1] Watchdog "
                             "caught collective operation timeout: WorkNCCL(SeqNum=3474, OpType=_ALLGATHER_BASE, "
                             "NumelIn=8282112, NumelOut=24846336, Timeout(ms)=600000) ran for 600000 milliseconds "
                             "before timing out.\n",
    # djangodevreng's Spark benchmarks: an NVFP4 GEMM without kernels for sm_121
    "cuda-no-kernel-image": BANNER + "(EngineCore pid=212) torch.AcceleratorError: CUDA error: no kernel image is "
                            "available for execution on the device\n",
    # vllm#18814: two RTX 5090s at TP=2, a worker's traceback logged line by line, cut before its exception
    "torch-compile-failed": BANNER + "(VllmWorker rank=0 pid=492198) ERROR 05-27 23:16:12 [multiproc_executor.py:522]"
                            "     raise BackendCompilerFailed(\n",
    # djangodevreng's Spark: a first start that downloaded the weights, and vLLM's FP4 fallback on that build
    "weights-downloaded": BANNER + "(EngineCore pid=185) INFO 05-04 23:44:44 [weight_utils.py:615] Time spent "
                          "downloading weights for nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4: 6879.856840 seconds\n",
    "fp4-marlin-fallback": BANNER + "(EngineCore pid=185) WARNING 05-04 23:53:34 [marlin.py:34] Your GPU does not have "
                           "native support for FP4 computation but FP4 quantization is being used.\n",
    # nccl#1611: GB200 at 12 nodes, glibc's abort as Open MPI reports it
    "process-aborted": BANNER + "free(): corrupted unsorted chunks\n[rack1-93-slot7:186363] Signal: Aborted (6)\n",
    # Rotate-and-Render#7: PyTorch's teardown after the run, CUDA unloading (`driver shutting down`)
    "cpp-exception-at-teardown": BANNER + "terminate called after throwing an instance of 'c10::Error'\n  what():  CUDA "
                                 "error: driver shutting down\n",
    # nvidia-docker#182: user space upgraded to 367.44 over the loaded 367.35 module
    "nvidia-api-mismatch": BANNER + "[ 7386.259769] NVRM: API mismatch: the client has the version 367.44, but\n"
                           "               NVRM: this kernel module has the version 367.35.  Please\n",
    # llama.cpp#5156: convert-hf-to-gguf.py on a 72B model, killed by the OOM killer (bash's `Killed`)
    "process-killed": BANNER + "blk.35.ffn_norm.weight, n_dims = 1, torch.bfloat16 --> float32\nKilled\n",
    # distributed-llama#149: the root's command with two workers (3 nodes, not a power of two)
    "dllama-node-count": BANNER + "./dllama inference --model m.m --tokenizer t.t --workers 10.0.1.3:9998 "
                         "10.0.1.4:9998\n",
    # exo#44: NVRTC refusing a kernel tinygrad generated, and the compiler's first error
    "nvrtc-compile-failed": BANNER + "Error processing prompt: Nvrtc Error 6, NVRTC_ERROR_COMPILATION\n<null>(14): "
                            "error: more than one user-defined conversion from \"nv_bfloat16\" to\n",
    # gpustack#1471: llama-box's ggml abort on a KV view in an RPC buffer
    "ggml-abort": BANNER + "llama.cpp/ggml/src/ggml-backend.cpp:746: pre-allocated tensor (cache_k_l0 (view)) in a "
                  "buffer (RPC[]) that cannot run the operation (VIEW)\n",
    # distributed-llama#136: two MacBooks over a link-local link, its Avg summary (transfer above inference)
    "dllama-transfer-bound": BANNER + "Generated tokens:    128\nAvg tokens / second: 4.59\nAvg generation time: "
                             "218.06 ms\nAvg inference time:  78.66 ms\nAvg transfer time:   139.17 ms\n",
    # distributed-llama#108: two boards, the root's token lines (inference above transfer)
    "dllama-compute-bound": BANNER + "\U0001f536 G  559 ms I  499 ms T   60 ms S 1917200 kB R    272 kB Hello\n"
                            "\U0001f536 G  542 ms I  386 ms T  156 ms S    272 kB R    272 kB  world\n",
    # Mooncake#955: the transfer engine's failed RDMA slice in a vLLM prefill/decode split
    "mooncake-transfer-retry-exceeded": BANNER + "E1023 04:59:20.346201 375956 worker_pool.cpp:294] Worker: Process "
                                        "failed for slice (opcode: 1, length: 4096, local_nic: mlx5_9, peer_nic: "
                                        "192.168.1.161:16360@mlx5_7, dest_rkey: 1894181, retry_cnt: 0): transport "
                                        "retry counter exceeded\n",
    # ucx#8746: UCX 1.13's wording of a queue it could not create under a 64 KiB memlock limit
    "ucx-create-cq-nomem": BANNER + "[1668693503.473099] [ampere:1188443:0]          ib_log.c:246  UCX  ERROR mlx5_0: "
                           "ibv_create_cq() failed: Cannot allocate memory. Please set max locked memory (ulimit -l) to "
                           "\x27unlimited\x27 (current: 64 kbytes)\n",
    # ucx#6264: UCX's ibv_reg_mr refused for want of memory (the NIC's memory keys)
    "ucx-reg-mr-failed": BANNER + "[1650646984.495908] [hcn1:2663283:0]          ib_md.c:348  UCX  ERROR ibv_reg_mr("
                         "address=0xeda6ab0, length=593920, access=0xf) failed: Cannot allocate memory\n",
    # Mooncake#1754 (eRDMA) and #454: ibv_reg_mr refused; Mooncake#3538's thread: no device left to use
    "mooncake-register-memory-failed": BANNER + "E0326 14:23:05.675921 18944 rdma_context.cpp:265] Failed to register "
                                       "memory 0x7f105035d000: Input/output error [5]\n",
    "mooncake-no-rnic": BANNER + "E20260821 12:30:19.448818 rdma_transport.cpp:827] RdmaTransport: No available RNIC\n",
    # Mooncake#997: the TCP transport out of local ports under load
    "mooncake-tcp-connect-failed": BANNER + "E0813 10:02:11.123456 4242 tcp_transport.cpp:720] TcpTransport::"
                                   "getConnection failed to create connection to 10.0.0.2:16708. Error: connect: "
                                   "Cannot assign requested address\n",
    # sglang's mooncake conn.py abort(): a request cancelled while its KV was in flight (breakit22 p28's decode line)
    "sglang-kv-transfer-aborted": BANNER + "[2025-10-21 09:14:56 DP0 TP0] Decode transfer failed for request rank=0 "
                                  "decode_req.req.rid='5f2d0a8c41b94c3b9e7d0d3a6f1e2c44' decode_req.req.bootstrap_room="
                                  "4471929934409128371 with exception KVTransferError(bootstrap_room=4471929934409128371"
                                  "): Aborted by AbortReq.\n",
    # sglang#37022: SGLang's PD disaggregation, the prefill side's failed KV transfer over Mooncake
    "sglang-kv-transfer-failed": BANNER + "[2026-02-26 16:56:26 TP5] Prefill transfer failed for request rank=5 "
                                 "req.rid='31c9952e7f0c44fa94ddbeec39b006a3' req.bootstrap_room=4073374190146881990 "
                                 "with exception KVTransferError(bootstrap_room=4073374190146881990): Decode instance "
                                 "could be dead, remote mooncake session 10.99.91.49:15070 is not alive\n",
    # vllm#3771: vLLM in docker, the store's address not reachable (errno 110); pytorch#131781: an attempt retried
    "c10d-client-connect-unreachable": BANNER + "[W socket.cpp:663] [c10d] The client socket has failed to connect to "
                                       "[::ffff:172.16.8.232]:39623 (errno: 110 - Connection timed out).\n",
    "c10d-client-connect-retry": BANNER + "[W801 04:55:17.113400444 socket.cpp:697] [c10d] The client socket has failed "
                                 "to connect to [lccn01]:56183 (errno: 22 - Invalid argument).\n",
    # ray#53919: ray.get_gpu_ids() in the driver, its `[]`
    "ray-get-gpu-ids-empty": BANNER + "import ray\nray.get_gpu_ids()\n[]\n",
    # jethac/dgx-spark-hijinks: FlashInfer's JIT failing on an FP4 KV cache's decode kernel (GB10, sm_121a)
    "flashinfer-jit-kv-dtype": BANNER + "FAILED: [code=1] /root/.cache/flashinfer/0.6.10/121a/cached_ops/"
                               "batch_decode_with_kv_cache_dtype_q_bf16_dtype_kv_fp4_e2m1_dtype_o_bf16_dtype_idx_i32/"
                               "batch_decode.cuda.o\n",
    # club-3090#602: vLLM's spec-decode metrics line, a drafter that rarely hits
    "vllm-spec-decode-acceptance": BANNER + "(APIServer pid=1) INFO 07-06 12:40:44 [metrics.py:120] SpecDecoding "
                                   "metrics: Mean acceptance length: 1.38, Accepted throughput: 0.30 tokens/s, "
                                   "Accepted: 3 tokens, Drafted: 24 tokens\n",
    # distributed-llama#87: the C++ runtime's terminate handler on an uncaught exception
    "cpp-uncaught-exception": BANNER + "terminate called after throwing an instance of 'std::runtime_error'\n"
                              "  what():  Cannot create socket\n",
    # LlamaFactory#8045: NCCL's bootstrap connect, its last try, and one before it
    "nccl-bootstrap-unreachable": BANNER + "zgiot:1183664:1184669 [0] NCCL INFO socketPollConnect: connect returned No "
                                  "route to host, retrying (34/34) after sleep for 3400 msec\n",
    "nccl-bootstrap-unreachable-retrying": BANNER + "zgiot:1183664:1184669 [0] NCCL INFO socketPollConnect: connect "
                                           "returned No route to host, retrying (26/34) after sleep for 2600 msec\n",
    # nccl#1706: two GPUs in one process without peer-to-peer
    "nccl-no-intranode-p2p": BANNER + "deepseek:2081594:2081600 [0] NCCL INFO Check P2P Type intraNodeP2pSupport 0 "
                             "directMode 1\n",
    # spark-vllm-docker#367: four Sparks at TP=4, the engine waiting on a worker during a FlashInfer autotune
    "vllm-worker-busy-or-stuck": BANNER + "(EngineCore pid=397) INFO 09-02 11:57:54 [shm_broadcast.py:801] No available "
                                 "shared memory broadcast block found in 60 seconds.\n",
    # spark-vllm-docker#157: two Sparks at TP=2, the remote worker's unhandled error
    "ray-worker-unhandled-error": BANNER + "(EngineCore pid=689) 2026-04-05 08:59:13,998\tERROR worker.py:439 -- Unhandled "
                                  "error (suppress with 'RAY_IGNORE_UNHANDLED_ERRORS=1'): ray::RayWorkerWrapper."
                                  "execute_method() (pid=890, ip=192.168.0.221, actor_id=23fee7)\n",
    # spark-vllm-docker#184: a Spark's engine core crashing right after start-up
    "engine-core-fatal": BANNER + "(EngineCore pid=157) ERROR 04-12 18:43:21 [core.py:1112] EngineCore encountered a "
                         "fatal error.\n",
    # vllm#4383: vLLM 0.4.1's Ray worker logging its traceback's frames at ERROR, cut before the exception
    "logged-traceback": BANNER + "(RayWorkerWrapper pid=5280) ERROR 04-26 01:59:07 worker_base.py:157]   File \"/usr/local/"
                        "lib/python3.10/dist-packages/vllm/worker/worker.py\", line 110, in init_device\n",
    # spark-vllm-docker#237: the API server's EngineDeadError, the start not in the paste
    "engine-dead-serving": BANNER.replace("vLLM API server version 0.32.0", "Supported tasks: ['generate']")
                           + "(APIServer pid=79) ERROR 05-10 10:51:18 [serving.py:1143] vllm.v1.engine.exceptions."
                           "EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root "
                           "cause.\n",
    # vllm#19186: a worker's OOM inside CUDA-graph capture
    "oom-graph-capture": BANNER + "(VllmWorker rank=3 pid=1090) ERROR 06-05 06:18:13 [multiproc_executor.py:470]     "
                         "self.cuda_graph.capture_end()\n(VllmWorker rank=3 pid=1090) ERROR 06-05 06:18:13 "
                         "[multiproc_executor.py:470] torch.OutOfMemoryError: CUDA out of memory.\n",
    # nccl#857: one host, NCCL 2.10.3, no libibverbs
    # NVIDIA/nccl#1637: NCCL 2.25.1 on an RTX 5090 (an INFO line that means the run cannot work)
    "nccl-max-shared-mem": BANNER + "localhost:11344:11344 [1] NCCL INFO ncclMaxSharedMem 82240 exceeds device/fn "
                           "maxSharedMem 79856\n",
    "nccl-no-libibverbs": BANNER + "ai:480850:480850 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n",
    # nccl#1176: a p4de job's bootstrap
    "nccl-message-truncated": BANNER + "compute-st-p4de24xlarge-1:34639:36718 [5] bootstrap.cc:77 NCCL WARN Message "
                              "truncated : received 256 bytes instead of 4\n",
    # nccl-tests#208: two RTX 4090s, an NCCL built for other GPUs
    "nccl-cuda-symbol-missing": BANNER + "noodle-4090-0:1896106:1896121 [1] enqueue.cc:47 NCCL WARN Cuda failure 'named "
                                "symbol not found'\n",
    # spark-vllm-docker#348: a Spark's engine core, the workers' queue timing out
    "shm-broadcast-timeout": BANNER + "(EngineCore pid=222) ERROR 08-15 11:20:19 [core.py:1361]   File \"/usr/local/lib/"
                             "python3.12/dist-packages/vllm/distributed/device_communicators/shm_broadcast.py\", line "
                             "647, in timeout_ms\n(EngineCore pid=222) ERROR 08-15 11:20:19 [core.py:1361]     raise "
                             "TimeoutError\n(EngineCore pid=222) ERROR 08-15 11:20:19 [core.py:1361] TimeoutError\n",
    # AEON-7's Spark issue #17: the note under a CUDA error, the error line itself above the paste
    "cuda-error-footer": BANNER + "(EngineCore pid=168) ERROR 06-23 15:08:34 [core.py:1138] CUDA kernel errors might be "
                         "asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n",
    # microsoft/WSL#12467: vLLM's worker under WSL2, NCCL's /dev/shm buffer
    "nccl-shm-segment-failed": BANNER + "(VllmWorkerProcess pid=3985) ERROR 01-15 02:47:32 multiproc_worker_utils.py:226] "
                               "Error while creating shared memory segment /dev/shm/nccl-g0wGsu (size 9637888)\n",
    # nccl#442: a TITAN RTX under WSL2
    "nccl-topology-virtual-pci": BANNER + "DESKTOP:36629:36635 [0] graph/xml.cc:332 NCCL WARN Could not find real path "
                                 "of /sys/class/pci_bus/0000:21/../../0000:21:00.0\n",
    # aws-ofi-nccl#64: two p4d instances over EFA, NCCL 2.7.8
    "nccl-topo-search-simple-order": BANNER + "ip-172-31-13-103:9742:9800 [4] graph/search.cc:765 NCCL WARN Could not "
                                     "find a path for pattern 4, falling back to simple order\n",
    # transformers#15618: an 8-GPU server without P2P between pairs
    "nccl-p2p-not-enabled-one-machine": BANNER + "srv-s0:537554:537627 [1] NCCL INFO Could not enable P2P between dev "
                                        "1(=1b000) and dev 0(=1a000)\n",
    "nccl-p2p-not-enabled": BANNER + "srv-s0:537554:537627 [1] NCCL INFO Could not enable P2P between dev 1(=1b000) and "
                            "dev 0(=1a000)\n",
    # microsoft/WSL#12467: the workers' NCCL error on one machine (explain --nodes 1)
    "nccl-error-one-machine": BANNER + "(VllmWorkerProcess pid=3985) ERROR 01-15 02:47:32 multiproc_worker_utils.py:226] "
                              "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
                              "NCCLUtils.hpp:275, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL "
                              "version 2.20.5\n",
    # TensorRT-LLM#1625 and #2864: two GeForce cards without peer access
    "cuda-peer-access-unsupported": BANNER + "[TensorRT-LLM][ERROR] [TensorRT-LLM][ERROR] CUDA runtime error in error: "
                                    "peer access is not supported between these two devices\n",
    "cuda-can-access-peer-no": BANNER + "[TensorRT-LLM][INFO] cudaDeviceCanAccessPeer failed for device: 1 peerDevice: 0\n",
    # vllm#5161: two RTX 4090s under WSL2; nccl#229: two EC2 instances through libfabric's TCP
    # vllm#5161: vLLM 0.4.2's TP=2 on two RTX 4090s under WSL2
    "vllm-under-wsl-tp": BANNER + "INFO 06-01 01:06:20 llm_engine.py:161] Initializing an LLM engine (v0.4.2) with "
                         "config: model='m', tensor_parallel_size=2, disable_custom_all_reduce=False\nWARNING 06-01 "
                         "01:06:23 utils.py:465] Using 'pin_memory=False' as WSL is detected. This may slow down the "
                         "performance.\n",
    "vllm-under-wsl": BANNER + "WARNING 06-01 01:06:23 utils.py:465] Using 'pin_memory=False' as WSL is detected. This "
                      "may slow down the performance.\n",
    # eugr/spark-vllm-docker PR 367: four Sparks at TP=4, the line twice where the quoted log ends (the second cut)
    "vllm-workers-still-waiting": BANNER + "(EngineCore pid=397) INFO 09-02 11:57:54 [shm_broadcast.py:801] No "
                                  "available shared memory broadcast block found in 60 seconds.\n(EngineCore pid=397) "
                                  "INFO 09-02 11:58:54 [shm_broadcast.py:801]\n",
    # vllm#51986: a multi-node start over InfiniBand, the line once a minute (three of its five)
    "vllm-workers-stuck": BANNER + "".join(f"(EngineCore pid=2025) INFO 08-13 11:2{i}:02 [shm_broadcast.py:802] No "
                                           "available shared memory broadcast block found in 60 seconds.\n"
                                           for i in range(3)),
    # sglang PR 27894: NIXL's GDAKI channel on a ConnectX
    "ucx-devx-create-failed": BANNER + "[1784273406.684686] [iv-host:994396:0]      ib_mlx5_dv.c:452  UCX  ERROR   "
                              "mlx5dv_devx_obj_create(CQ) failed on mlx5_1, syndrome 0x2aac7c: Remote I/O error\n",
    # ai-dynamo/dynamo#1108: vLLM under Dynamo
    "nixl-backend-failed": BANNER + "2025-05-16T04:56:18.119Z ERROR engine.run_mp_engine: NIXL_ERR_BACKEND\n",
    # vllm#43357: TurboQuant's continuation prefill after the workspace was locked
    "vllm-workspace-locked": BANNER + "(EngineCore_DP0 pid=412) ERROR 05-27 10:14:02 [core.py:1100] AssertionError: "
                             "Workspace is locked but allocation from 'turboquant_attn.py:747:_continuation_prefill' "
                             "requires 8.12 MB, current size is 0.76 MB. Workspace growth is not allowed after "
                             "locking.\n",
    # local-inference-lab/vllm#746: a bare assert while capturing CUDA graphs (the poster's abridged traceback)
    "vllm-assert-at-startup": BANNER + "WorkerProc hit an exception.\n    cuda_graph_memory_bytes = self.model_runner"
                              ".capture_model()\nvllm/models/deepseek_v4/sparse_mla.py:262 in _build_c128a_metadata\n"
                              "    assert active_topk_width >= cm.max_seq_len // self.compress_ratio\nAssertionError\n"
                              "EngineCore failed to start.\n",
    # sglang#7691: eight GPUs at DP=8
    "sglang-no-kv-room": BANNER + "[2025-07-02 07:41:59 DP0 TP0] max_total_tokens=131072 is larger than the profiled "
                         "value -561981. Use the profiled value instead.\n",
    # ai-dynamo/dynamo#1540: the frontend with no worker
    "dynamo-no-instances": BANNER + "ERROR chat_completions: dynamo_llm::http::service::openai: Internal server error: "
                           "Failed to generate completions: no instances found for endpoint "
                           "\"instances/dynamo/Frontend/chat/completions\"\n",
    # triton-inference-server/tensorrtllm_backend#698: mpirun across nodes
    "ompi-daemons-not-started": BANNER + "ORTE was unable to reliably start one or more daemons.\n",
    # sglang#13198: sgl_kernel on a DGX Spark
    "cuda12-library-missing": BANNER + "* ImportError: libnvrtc.so.12: cannot open shared object file: No such file or "
                              "directory\n",
    # TensorRT-LLM#8179: trtllm-serve's KV cache
    "trtllm-kv-window-capped": BANNER + "[10/07/2025-18:33:58] [TRT-LLM] [W] Attention window size 131073 exceeds upper "
                               "bound 8224 for available blocks. Reducing to 8224.\n",
    # openucx/ucx#3463: the address routed through a device UCX was not given
    "ucx-no-sockaddr-transport": BANNER + "[1554831347.602987] [host:48104:1]      wireup_ep.c:467  UCX  ERROR no "
                                 "supported sockaddr auxiliary transports found for mlx5_4:1\n",
    # Mellanox/docker-sriov-plugin#10: rping in a container
    "rdma-cm-addr-enodev": BANNER + "cma event RDMA_CM_EVENT_ADDR_ERROR, error -19\n",
    # vllm-project/vllm-metal#625: the store on a VPN's address
    "c10d-server-socket-timeout": BANNER + "The server socket on [::ffff:10.4.6.125]:63617 has timed out, will retry.\n",
    # wtdcode/vllm-backport#14: eight ranks of one machine (told here: several)
    "gloo-hostname-loopback": BANNER + "[rank7]:[W806 14:25:27.650991133 ProcessGroupGloo.cpp:524] Warning: Unable to "
                              "resolve hostname to a (local) address. Using the loopback address as fallback.\n",
    "gloo-hostname-loopback-one-machine": BANNER + "[rank1]:[W806 14:25:27.665422024 ProcessGroupGloo.cpp:524] "
                                          "Warning: Unable to resolve hostname to a (local) address. Using the loopback "
                                          "address as fallback.\n",
    # NVIDIA/caffe#590: a container without the providers (the five uverbs warnings, then no HCA)
    "ibverbs-no-userspace-driver": BANNER + "libibverbs: Warning: no userspace device-specific driver found for "
                                   "/sys/class/infiniband_verbs/uverbs4\n0 HCAs found:\n",
    # open-mmlab/mmdetection#6002: one machine's training processes each print these while loading; nothing uses RDMA
    "ibverbs-no-userspace-driver-one-machine": BANNER + "libibverbs: Warning: no userspace device-specific driver found "
                                               "for /sys/class/infiniband_verbs/uverbs1\n",
    "ibverbs-no-providers-one-machine": BANNER + "libibverbs: Warning: couldn't open config directory "
                                        "'/etc/libibverbs.d'.\n",
    # break-it review of session 38: a two-node torchrun over eth0 sockets that set NCCL up, no RDMA NIC shown
    "ibverbs-no-providers-socket-run": BANNER + "libibverbs: Warning: couldn't open config directory "
                                       "'/etc/libibverbs.d'.\nnode0:2231:2260 [0] NCCL INFO Using network Socket\n"
                                       "node0:2231:2260 [0] NCCL INFO comm 0x55d4c8a0 rank 0 nranks 2 cudaDev 0 "
                                       "nvmlDev 0 busId 1000 commId 0x8a3f1c2d4e5b6a79 - Init COMPLETE\n",
    # Mellanox/k8s-rdma-shared-dev-plugin#54: a pod's /dev/infiniband listing, the verbs device file in it
    "dev-infiniband-uverbs-listed": BANNER + "crw-rw-rw- 1 root root 231, 192 Mar  6 04:13 uverbs0\n",
    # ai-dynamo/nixl PR 115: nixlbench's table header, as printed
    "nixlbench-results": BANNER + "Block Size (B)      Batch Size     Avg Lat. (us)  B/W (MiB/Sec)  B/W (GiB/Sec)  "
                         "B/W (GB/Sec)\n",
    # break-it review of session 38: ibportstate's PortInfo of a port with no link (Down, Polling), and an FDR port
    "ib-portinfo-no-link": BANNER + "LinkState:.......................Down\nPhysLinkState:...................Polling\n"
                           "LinkWidthActive:.................4X\nLinkSpeedActive:.................2.5 Gbps\n",
    "ib-portinfo-active-link-ext": BANNER + "LinkState:.......................Active\nLinkWidthActive:.................4X\n"
                                   "LinkSpeedActive:.................10.0 Gbps\n"
                                   "LinkSpeedExtActive:..............14.0625 Gbps\n",
    # tuananh0788/Exadata#2: ibportstate's PortInfo of a QDR switch port
    "ib-portinfo-active-link": BANNER + "LinkWidthActive:.................4X\nLinkSpeedSupported:..............2.5 Gbps "
                               "or 5.0 Gbps or 10.0 Gbps\nLinkSpeedActive:.................10.0 Gbps\n",
    "ibverbs-no-userspace-driver-others-open": BANNER + "libibverbs: Warning: no userspace device-specific driver found "
                                               "for /sys/class/infiniband_verbs/uverbs4\n2 HCAs found:\n"
                                               "    mlx5_0\n    mlx5_1\n",
    # vllm-project/vllm-metal#625: the store on a VPN's address, again and again
    "c10d-server-socket-timeouts": BANNER + "The server socket on [::ffff:10.4.6.125]:63617 has timed out, will retry.\n"
                                   * 3,
    # vllm#2084: a SageMaker container, NCCL_SOCKET_IFNAME=^lo,docker,veth
    "nccl-no-socket-interface": BANNER + "host:14391:14391 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to "
                                "^lo,docker,veth\nhost:14391:14391 [0] bootstrap.cc:45 NCCL WARN Bootstrap : no socket "
                                "interface found\n",
    # ray-project/ray#35017: `ray status` right after the head started
    "ray-no-cluster-status": BANNER + "$ ray status\nNo cluster status.\n",
    # vllm#15537: vLLM over Ray on two nodes, the raylet's disk monitor
    "ray-disk-nearly-full": BANNER + "(raylet) [2025-03-26 09:15:12,562 E 228 259] (raylet) file_system_monitor.cc:116: "
                            "/tmp/ray/session_2025-03-26_08-55-15_777925_1 is over 95% full, available space: 16.7067 "
                            "GB; capacity: 491.079 GB. Object creation will fail if spilling is required.\n",
    # ray-project/ray#62328: two DGX Sparks, vLLM over Ray, the first request
    "ray-fatal-check": BANNER + "[2026-04-03 12:10:44,576 C 107 107] experimental_mutable_object_manager.cc:177:  An "
                       "unexpected system state has occurred. You have likely discovered a bug in Ray.\n",
    # swiss-ai/model-launch#126: a launch script's next lines passed to ray start
    "ray-start-usage-error": BANNER + "Error: Got unexpected extra arguments (& RAY_HEAD_PID= echo 'Waiting for all Ray "
                             "worker nodes to connect...' EXPECTED_GPUS=8)\n",
    # vllm-project/aibrix#783: benchmark_serving.py's first request refused
    "bench-initial-test-failed": BANNER + "Starting initial single prompt test run...\nRequestFuncOutput(generated_text"
                                 "='', success=False, latency=0.0, output_tokens=0, ttft=0.0, itl=[], tpot=0.0, "
                                 "prompt_len=2048, error='Bad Request')\n",
    # Lightning-AI/pytorch-lightning#14986: two nodes under Slurm
    "nccl-rank-checked-in-twice": BANNER + "hpc-25-14:18569:18835 [0] bootstrap.cc:131 NCCL WARN Bootstrap Root : rank 1 "
                                  "of 8 ranks has already checked in\n",
    # vllm#19204: two GPUs of one host
    "nccl-ras-port-in-use": BANNER + "[2025-06-05 10:45:19] paula09:2528103:2528103 [0] ras/client_support.cc:160 NCCL "
                            "WARN Call to bind failed: Address already in use\n",
    # vllm#29670: a data-parallel start
    "vllm-fd-ulimit": BANNER + "(APIServer pid=927159) WARNING 11-28 19:08:15 [system_utils.py:222] Found ulimit of 1024 "
                      "and failed to automatically increase with error current limit exceeds maximum limit.\n",
    # gpustack#4372: a GB10's engine core dying among PTX lines (its traceback not in the paste)
    "vllm-engine-process-died": BANNER + "(EngineCore_DP0 pid=73) .b8 1      // DW_AT_inline\n(EngineCore_DP0 pid=73) "
                                "Process EngineCore_DP0:\n",
    "ptx-debug-dump": BANNER + "(EngineCore_DP0 pid=73) .b8 1                                   // DW_AT_inline\n",
    # fastsafetensors#14: the head's Ray init script, one of two nodes up at each poll; and the script giving up
    "ray-nodes-still-joining": BANNER + "Wait for all ray workers to be active. 1/2 is active\nWait for all ray workers "
                               "to be active. 1/2 is active\n",
    "ray-cluster-init-timed-out": BANNER + "Wait for all ray workers to be active. 1/2 is active\nWaiting for all ray "
                                  "workers to be active timed out.\n",
    # deepspeedai/DeepSpeed#736: one machine, two GPUs, no hostfile
    "deepspeed-launcher-started": BANNER + "[2021-02-08 22:59:18,790] [INFO] [launch.py:87:main] nnodes=1, "
                                  "num_local_procs=2, node_rank=0\n",
    # NVIDIA/TensorRT-LLM#8961: srun over two nodes at PP 2
    "trtllm-llmapi-launch-leader": BANNER + "Rank0 run mgmn leader node with mpi_world_size: 2 ...\n",
    # llama-benchy against a served name that is no Hugging Face id
    "llama-benchy-gpt2-tokenizer": BANNER + "Falling back to 'gpt2' tokenizer as approximation.\n",
    # vllm PR 3397: benchmark_serving.py's calculate_metrics on a request of no output token
    "bench-client-zero-output-tokens": BANNER + "  File \"/home/user/vllm/benchmarks/benchmark_serving.py\", line 136, in "
                                       "calculate_metrics\n    per_token_latencies.append(outputs[i].latency / "
                                       "output_len)\nZeroDivisionError: float division by zero\n",
    # ollama#8597: ten RTX 3090s, deepseek-r1:671b's planned split overflowing the first GPU
    "llama-device-buffer-alloc-failed": BANNER + "Error: llama runner process has terminated: error loading model: "
                                        "unable to allocate CUDA0 buffer\n",
    # Avarok-Cybersecurity/dgx-vllm#9: a GB10 running a kernel guarded for sm_120
    "kernel-arch-guard": BANNER + "This kernel only supports sm120.\ncudaErrorLaunchFailure: unspecified launch failure\n",
    # NVIDIA/nccl#1524: two servers whose MTUs differed
    "ib-local-access-violation": BANNER + "host:94639:94647 [0] transport/net_ib.cc:100 NCCL WARN NET/IB : mlx5_0:1 Got "
                                 "async event : local access violation work queue error\n",
    # NVIDIA/nccl#2334: four GB10 over two RoCE rails
    "nccl-ib-cts-unused-request": BANNER + "NET/IB: ncclIbCompletionEventProcess: Receiver got a completion for a CTS "
                                  "but retrieved\nan 'unused' request (req=0x..., comm=0x...)\n",
    # vllm#1116: two GPUs of one desktop under Ray
    "nccl-libcuda-not-found": BANNER + "Desktop:16696:16696 [1] misc/cudawrap.cc:179 NCCL WARN Failed to find CUDA library "
                              "libcuda.so (NCCL_CUDA_PATH='') : _Z42ncclKernel_SendRecv_RING\n",
    # vllm#4114: a Ray worker's communicator whose init failed
    "python-del-ignored": BANNER + "(RayWorkerVllm pid=14289) Exception ignored in: <function NCCLCommunicator.__del__ "
                          "at 0x7f4d8c3212d0>\n",
    # vllm#19196, vllm#8085, vllm#15537, Open-Reasoner-Zero#26: notes that are harmless on their own
    "torch-destroy-process-group": BANNER + "[rank0]:[W604 11:18:57.117195760 ProcessGroupNCCL.cpp:1476] Warning: "
                                   "WARNING: destroy_process_group() was not called before program exit, which can "
                                   "leak resources.\n",
    "resource-tracker-leaked-shm": BANNER + "/usr/lib/python3.10/multiprocessing/resource_tracker.py:224: UserWarning: "
                                   "resource_tracker: There appear to be 1 leaked shared_memory objects to clean up at "
                                   "shutdown\n",
    "c10d-client-hostname": BANNER + "[W326 09:15:16.969966369 socket.cpp:204] [c10d] The hostname of the client socket "
                            "cannot be retrieved. err=-3\n",
    "ray-fractional-cpus": BANNER + "2025-02-24 07:28:12,892\tWARNING utils.py:592 -- Ray currently does not support "
                           "initializing Ray with fractional cpus. Your num_cpus will be truncated from 104.999 to 104.\n",
    # NVIDIA/open-gpu-kernel-modules#688: a DGX Station A100's GPU lost
    "nvrm-gpu-lost": BANNER + "Feb 17 08:02:35 myhost1-DGX-Station-A100 kernel: NVRM: nvAssertOkFailedNoLog: Assertion "
                     "failed: GPU lost from the bus [NV_ERR_GPU_IS_LOST] (0x0000000F) returned from rmStatus @ "
                     "kernel_ce_gv100.c:106\n",
    # NVIDIA/nccl-tests#245: two nodes of one A10G each through aws-ofi-nccl
    "nccl-ofi-gdr-off": BANNER + "[0] NCCL INFO NET/OFI Could not disable CUDA API usage for HMEM, disabling GDR\n"
                        "[0] NCCL INFO NET/OFI Setting NCCL_PROTO to \"simple\"\n",
    "nccl-ofi-tcp-provider": BANNER + "ip-192-168-16-255:25604:25604 [0] NCCL INFO NET/OFI Selected Provider is "
                             "tcp;ofi_rxm\n",
    # vllm#53013: GB300s, the CUDA graphs' estimate, then no KV memory
    "no-kv-memory-after-graph-estimate": BANNER + "(Worker_DP1_TP1_EP3 pid=3585771) INFO 08-19 05:56:57 "
                                         "[gpu_model_runner.py:6936] Estimated CUDA graph memory: 118.65 GiB total\n"
                                         "(EngineCore_DP0 pid=3584999) ERROR 08-19 05:56:57 [core.py:1346] ValueError: "
                                         "No available memory for the cache blocks.\n",
    # MiaAI-Lab's four GB10s: rank 1's native frames through TCPStore::check as the head died
    "tcpstore-lost": BANNER + "frame #6: c10d::TCPStore::check(std::vector<std::__cxx11::basic_string<char> > const&) + "
                     "0x23c (0xfb556 in /usr/local/lib/python3.12/dist-packages/torch/lib/libtorch_cpu.so)\n",
    # nccl#258: cuda-gdb's warnings on four V100s
    "cuda-peer-already-enabled": BANNER + "warning: Cuda API error detected: cudaDeviceEnablePeerAccess returned (0x2c0)\n",
    # pytorch/pytorch#150852: NVLS set-up on a 12.2 driver under NCCL 2.26
    "nccl-nvls-failed": BANNER + "[2025-04-08 08:39:46] devgpu000:589012:591652 [0] transport/nvls.cc:254 NCCL WARN "
                        "Cuda failure 1 'invalid argument'\n",
    # jethac/dgx-spark-hijinks's server log: a forked vLLM and an installed compressed-tensors of another version
    "submodule-missing": BANNER + "(APIServer pid=1) ModuleNotFoundError: No module named "
                                  "'compressed_tensors.compressors.pack_quantized'\n",
    # NVIDIA/nvbandwidth#13: a device-to-device test skipped on two GeForce cards without peer access
    "nvbandwidth-peer-waived": BANNER + "Device 0: NVIDIA GeForce RTX 2080 Ti\nDevice 1: NVIDIA GeForce RTX 2080 Ti\n\n"
                               "Waiving device_to_device_memcpy_write_ce.\n",
    # microscaler/cylon-local-infra's notes (two Sparks, TP=2): both Ray workers abort in ncclCommInitRank
    "nccl-native-crash": BANNER + "(RayWorkerWrapper pid=4242, ip=169.254.102.149)     @ 0x7f12 352  ncclCommInitRank\n"
                         "Fatal Python error: Aborted\n",
    # Oneflow-Inc/oneflow#9115: ibv_devinfo and ibstatus with the RDMA stack stopped
    "no-rdma-device": BANNER + "Failed to get IB devices list: Function not implemented\n",
    # ideo-plus/DGX-Spark-x2-GLM5.3-Flash-NVFP4-vLLM-Recipe: a Spark's ethtool without root, its stderr
    "ethtool-netlink-not-permitted": BANNER + "netlink error: Operation not permitted\n",
    # minjaechandesu/v100-nvlink-homelab-log logs/boot/dmesg_nvidia.txt: a healthy boot's driver load
    "nvidia-driver-loaded": BANNER + "[    6.476852] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 "
                            "10:11:16 UTC 2025\n",
    # dbkinghorn/Notes (NV-4090-P2P notes): NGC HPL on 2x RTX 6000 Ada held at 626 MHz
    "hpl-gpu-slow-warning": BANNER + "!!! WARNING: Rank: 0 : wks64 : GPU 0000:41:00.0 Clock: 626 MHz Temp: 50 C Power: "
                            "65 W PCIe gen 4 x16\n",
    # NVIDIA/DCGM#49: dcgmi diag -r 2 on A100 PCIe cards without NVLink
    "dcgm-nvlink-down": BANNER + "| Warning                   | GPU 0GPU 0's NvLink link 0 is currently down   |\n",
    # the same notes: the GB10's GPU has no PCIe link to measure
    "spark-gpu-no-pcie-link": BANNER + "[    0.103426] pci 000f:01:00.0: 0.000 Gb/s available PCIe bandwidth, limited "
                              "by Unknown x0 link at 000f:00:00.0 (capable of 32.000 Gb/s with 2.5 GT/s PCIe x16 link)\n"
                              "[    5.309621] cx7-pcie-hotplug MTKP0001:00: Hotplug enabled\n",
    # kazamori/dgx-spark-deepseek-v4-flash's troubleshooting notes: a Spark's boot (its hotplug driver names it one)
    "mlx5-insufficient-slot-power-spark": BANNER + "[    1.533198] mlx5_core 0000:01:00.0: mlx5_pcie_event:326:(pid 12): "
                                          "Detected insufficient power on the PCIe slot (27W).\n[    5.309621] "
                                          "cx7-pcie-hotplug MTKP0001:00: Hotplug enabled\n",
    "mlx5-slot-power-not-advertised": BANNER + "[   22.316553] mlx5_core 0000:13:00.0: mlx5_pcie_event:297:(pid 11): "
                                      "PCIe slot power capability was not advertised.\n",
    "nccl-peer-closed": BANNER + "node1:183006:183181 [1] misc/socket.cc:538 NCCL WARN Net : Connection closed by remote peer "
                        "node2<47861>\n",
    "nccl-socket-connect": BANNER + "ubuntu:39964:40075 [0] misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to "
                           "10.0.0.2<45763> failed : Software caused connection abort\n",
    # memory registration with the NIC (the shapes of NCCL's ibvwrap.cc and aws-ofi-nccl, nccl#563, nccl#778)
    # libfabric's provider creating its verbs resources (aws-ofi-nccl#715: EFA's completion queue, ENOMEM)
    "fabric-nomem": BANNER + "libfabric:17778:1732779731::efa:cq:efa_cq_ibv_cq_ex_open_with_ibv_create_cq_ex():92<warn> "
                    "Unable to create extended CQ: Cannot allocate memory\n",
    "nccl-reg-nomem": BANNER + "node1:2211:2290 [3] misc/ibvwrap.cc:194 NCCL WARN Call to ibv_reg_dmabuf_mr failed with "
                      "error Cannot allocate memory\n",
    "nccl-reg-unsupported": BANNER + "node1:2211:2290 [3] misc/ibvwrap.cc:288 NCCL WARN Call to ibv_reg_dmabuf_mr failed "
                            "with error Operation not supported\n",
    "ray-missing-shell": BANNER + "/bin/sh: 1: ray: not found\n",
    "pg-pack-one-gpu-nodes": BANNER + (
        "Active:\n 1 node_4c9baf725a0e654\n 1 node_e6107ebf05bbc00\nPending:\n (no pending nodes)\n"
        "Usage:\n 0.0/40.0 CPU\n 0.0/2.0 GPU\nDemands:\n {'GPU': 1.0, 'node:192.168.50.192': 0.001} * 1, "
        "{'GPU': 1.0} * 1 (PACK): 1+ pending placement groups\n"),
    # vllm-project/vllm#19703: the timeout vLLM set, then a read timing out 12 s later
    "ray-cgraph-timeout-not-applied": (
        "INFO 06-12 10:46:22 [ray_distributed_executor.py:579] RAY_CGRAPH_get_timeout is set to 300\n"
        "ERROR 06-12 10:46:34 [core.py:517] ray.exceptions.RayChannelTimeoutError: System error: Timed out waiting "
        "for object available to read.\n"),
    "ray-channel-timeout": ("(EngineCore_DP0 pid=579) ERROR 12-05 22:43:45 [core.py:845] "
                            "ray.exceptions.RayChannelTimeoutError: System error: Timed out waiting for object "
                            "available to read. ObjectID: 007e768e7da845eb498bddc26311bb55310405340100000002e1f505\n"),
    "nvfp4-ptxas-sm121": BANNER + "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'\n",
    "nvfp4-cutlass-internal": ("(EngineCore_DP0 pid=1) RuntimeError: [FP4 gemm Runner] Failed to run cutlass FP4 gemm "
                               "on sm120. Error: Error Internal\n"),
    "model-type-unknown": ("(APIServer pid=1)   Value error, The checkpoint you are trying to load has model type "
                           "`gemma4` but Transformers does not recognize this architecture.\n"),
    "hf-gated": ("huggingface_hub.errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-66f4b037)\n"
                 "Cannot access gated repo for url https://huggingface.co/meta-llama/Llama-3.1-8B/resolve/main/"
                 "config.json.\n"),
    # vllm-project/vllm#56824: the driver's line alone, nothing else of the run
    "unified-memory-nv-err-alone": BANNER + ("nvCheckOkFailedNoLog: Check failed: Out of memory [NV_ERR_NO_MEMORY] "
                                             "(0x00000051) returned from _memdescAllocInternal(pMemDesc) @ mem_desc.c:1359\n"),
    "unified-memory-nv-err": BANNER + ("NVRM: nvCheckOkFailedNoLog: Check failed: Out of memory [NV_ERR_NO_MEMORY] "
                                       "(0x00000051) returned from _memdescAllocInternal(pMemDesc) @ mem_desc.c:1359\n"
                                       "VLLM::Worker_TP invoked oom-killer: gfp_mask=0x102cc2(GFP_HIGHUSER)\n"),  # b027's
    "avahi-host-name-conflict": BANNER + "avahi-daemon[1234]: Host name conflict, retrying with spark1-30\n",
    "netplan-definition-error": BANNER + ("/etc/netplan/50-couch5.yaml:7:7: Error in network definition: expected "
                                          "mapping (check indentation)\n"),
    "netplan-permissions": BANNER + ("** (generate:3775): WARNING **: 11:04:25.237: Permissions for /etc/netplan/"
                                     "01-netcfg.yaml are too open. Netplan configuration should NOT be accessible by "
                                     "others.\n"),
    "cx7-networkmanager": BANNER + ("network:\n  version: 2\n  renderer: NetworkManager\n  ethernets:\n"
                                    "    enp1s0f0np0:\n      addresses: [192.168.200.12/24]\n"),
    "ssh-publickey": BANNER + "nvidia@192.168.100.11: Permission denied (publickey).\n",
    "ssh-dir-missing": BANNER + 'Saving key "/home/nvidia/.ssh/id_ed25519_shared" failed: No such file or directory\n',
    "ssh-unreachable": BANNER + "ssh: connect to host 192.168.2.1 port 22: Connection timed out\n",
    # the GPU and its driver, each line as its source (checks/diagnoses.toml) quotes it
    "xid-gpu-lost": BANNER + "May 18 19:02:39 kernel: NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.\n",
    "xid-gsp": BANNER + ("[Mon Jul 25 16:46:20 2022] NVRM: Xid (PCI:0000:3b:00): 119, pid='<unknown>', "
                         "name=<unknown>, Timeout waiting for RPC from GSP! Expected function FREE (0x0 0x0).\n"),
    "xid-nvlink": BANNER + ("kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by "
                            "previous Xid 149\n"),
    "xid-kernel-fault": BANNER + ("[93297.027938] NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, "
                                  "Graphics Exception: ESR 0x52e7b0=0x101000e 0x52e7b4=0x4\n"),
    "xid": BANNER + "Oct 03 17:59:47 mnemosyne kernel: NVRM: Xid (PCI:0000:01:00): 45, pid=2171, channel 0x0000000a\n",
    "ray-cgraph-read": BANNER + ('ERROR 03-14 00:01:05 [core.py:337]   File "/usr/local/lib/python3.12/dist-packages/ray/'
                                 'dag/compiled_dag_node.py", line 2344, in _execute_until\n'),
    "ray-node-marked-dead": BANNER + ("(raylet) The node with node id: 0f21 and address: 10.0.0.51 and node name: 10.0.0.51 "
                                      "has been marked dead because the detector has missed too many heartbeats from "
                                      "it.\n"),
    "nvml-mismatch": BANNER + "Failed to initialize NVML: Driver/library version mismatch\n",
    "rm-init-adapter": BANNER + "Jul 01 22:55:07 gpu kernel: NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0\n",
})
EXAMPLES.update({
    # nmcli(1)'s replies to `connection up` and `connection add` (https://github.com/nmstate/nmstate/issues/752)
    "nmcli-activation-failed": BANNER + ("Error: Connection activation failed: IP configuration could not be reserved "
                                         "(no available address, timeout, etc.).\n"),
    "nmcli-profile-added": BANNER + "Connection 'cx7-0' (5fb06bd0-0bb0-7ffb-45f1-d6edd65f3e03) successfully added.\n",
    "nmcli-activated": BANNER + ("Connection successfully activated (D-Bus active path: "
                                 "/org/freedesktop/NetworkManager/ActiveConnection/4)\n"),
    # blind batches wd, we, wf (session 38): fatal lines many programs print, each as posted
    "llama-rpc-version-mismatch": BANNER + "0.00.386.093 E RPC server version mismatch: 4.0.1\n"
                                  "0.00.386.102 E Failed to connect to 10.0.0.185:50052\n",
    "cublas-not-initialized": BANNER + "CUDA error: CUBLAS_STATUS_NOT_INITIALIZED\n  current device: 0, in function "
                              "cublas_handle at ggml/src/ggml-cuda/common.cuh:644\n",
    "ggml-cuda-op-failed": BANNER + "/home/u/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:3927: GGML_ASSERT(ok) failed\n",
    "cuda-unknown-error-init": BANNER + ("RuntimeError: CUDA unknown error - this may be due to an incorrectly set up "
                                         "environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program "
                                         "start. Setting the available devices to be zero.\n"),
    "cuda-error-named": BANNER + "CUDA error: unspecified launch failure\n  current device: 0, in function "
                        "ggml_backend_cuda_synchronize at ggml-cuda.cu:2503\n",
    "ray-worker-died-system-error": BANNER + "WARNING worker.py:2037 -- A worker died or was killed while executing a "
                                    "task by an unexpected system error. To troubleshoot the problem, check the logs "
                                    "for the dead worker. Worker IP address: 172.16.103.199 Worker port: 32769 Worker "
                                    "exit type: SYSTEM_ERROR\n",
    "ggml-assert": BANNER + "/src/llama.cpp/ggml/src/ggml.c:2411: GGML_ASSERT(ggml_can_mul_mat(a, b)) failed\n",
    "c-assertion-failed": BANNER + "python3: src/ucp/core/ucp_worker.c:1234: ucp_worker_progress: Assertion "
                          "`worker->inprogress == 0' failed.\n",
    # vllm#42609 (blind batch we019), as posted, and the same line without the allocator setting
    "vllm-custom-allreduce-expandable": BANNER + "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n...\nFailed: Cuda "
                                        "error /workspace/csrc/custom_all_reduce.cuh:455 'invalid argument'\n",
    "vllm-custom-allreduce-cuda-error": BANNER + "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:455 'invalid "
                                        "argument'\n",
    # gpustat#179 (blind batch we002), as posted
    "gpustat-gb10-memory-unknown": BANNER + "[0] NVIDIA GB10 | 54°C,   0 % |    ?? /    ?? MB | gdm(43M) gdm(18M)\n",
})
EXAMPLES.update({
    # https://github.com/spark-arena/recipe-registry/issues/23 (the list of names shortened)
    "unknown-attention-backend": BANNER + ("(APIServer pid=74)   Value error, Unknown attention backend: "
                                           "'B12X_MLA_SPARSE'. Valid options are: FLASH_ATTN, TRITON_ATTN, B12X, CUSTOM "
                                           "[type=value_error, input_value='B12X_MLA_SPARSE', input_type=str]\n"),
    # https://github.com/oobabooga/textgen/issues/7357
    "llama-invalid-argument": BANNER + "error: invalid argument: -rpc\n",
    # https://github.com/vllm-project/vllm/issues/53836 (the login name shortened)
    "vllm-unbuilt-source-import-failed": BANNER + (
        "/home/u/vllm/vllm/__init__.py:7: RuntimeWarning: Failed to read commit hash:\nNo module named 'vllm._version'\n"
        "  from .version import __version__, __version_tuple__  # isort:skip\nTraceback (most recent call last):\n"
        '  File "/home/u/vllm/collect_env.py", line 20, in <module>\n'),
    "vllm-unbuilt-source": BANNER + ("/home/u/vllm/vllm/__init__.py:7: RuntimeWarning: Failed to read commit hash:\n"
                                     "No module named 'vllm._version'\n"),    # https://github.com/NVIDIA/NemoClaw/issues/4886
    "vllm-process-listed": BANNER + "  83408   82664 VLLM::EngineCore             2.6 54.7\n",
    # https://github.com/NVIDIA/nccl/issues/111 (NCCL 2.0's WARN, no `NCCL` before it; the host name the poster's)
    "nccl-socket-connect-old": BANNER + "*server name* [0] include/socket.h:185 WARN Call to connect failed : "
                                        "Connection refused\n",
    # https://github.com/NVIDIA/nccl-tests/issues/14
    "nccl-socket-create": BANNER + ("e66aa18dc444:3171:3171 [0] include/socket.h:311 WARN Socket creation failed : "
                                    "Address family not supported by protocol\n"),
    # magnate3/linux-riscv-dev exercises2/user_space/openMpi/README.md (a hand-written NCCL_TOPO_FILE)
    "nccl-topo-xml": BANNER + "node2:2601564:2601564 [0] graph/xml.cc:155 NCCL WARN XML Parse : expected >, got '\n",
    # https://github.com/NVIDIA/nccl-tests/issues/352
    "nccl-topo-id": BANNER + ("[2025-10-23 10:26:31] lrdn2151:2678763:2678858 [0] graph/topo.h:234 NCCL WARN Could not "
                              "find NET with id 0\n"),
    # https://github.com/Azure/azhpc-images/issues/327 (an image's NCCL_GRAPH_FILE written for a larger VM)
    "nccl-graph-import-dev": BANNER + "::16674:17023 [0] graph/search.cc:703 NCCL WARN XML Import Channel : dev 1 not found.\n",
})


EXAMPLES.update({
    # https://github.com/ray-project/ray/issues/21591
    "ray-driver-no-raylet-config": BANNER + ("[2022-02-02 22:24:43,102 C 32987 33002] core_worker.cc:251: Failed to get "
                                             "the system config from Raylet on time unexpectedly.IOError: \n"),
    # https://github.com/vllm-project/vllm/issues/13557
    "ray-worker-register-raylet": BANNER + (
        "[2025-02-19 13:33:40,672 E 15244 15244] core_worker.cc:496: Failed to register worker to Raylet: IOError: "
        "[RayletClient] Unable to register worker with raylet. Failed to read data from the socket: End of file "
        "worker_id=01000000ffffffffffffffffffffffffffffffffffffffffffffffff\n"),
    # https://github.com/ray-project/ray/issues/29412
    "ray-raylet-terminated": BANNER + (
        "2022-10-17 14:23:59,720 WARNING worker.py:1839 -- Raylet is terminated: ip=172.29.58.176, "
        "id=c28cee44b5cd67e730b3a9f729ca772f9bfd3f4b936ae1999d38cf36. Termination is unexpected. Possible reasons "
        "include: (1) SIGKILL by the user or system\n"),
    # https://github.com/ray-project/kuberay/issues/3897
    "ray-gcs-gone-terminate": BANNER + (
        "[2025-07-28 08:40:52,953 E 1 43] gcs_rpc_client.h:196: Failed to connect to GCS within 60 seconds. GCS may "
        "have been killed. It's either GCS is terminated by `ray stop` or is killed unexpectedly.\n"),
    # kubectl get pod's RESTARTS column: restarted, Running now
    "k8s-backoff-now-running": BANNER + (
        "  Warning  BackOff  12m (x4 over 14m)   kubelet  Back-off restarting failed container vllm in pod "
        "vllm-head-0_default(3f1c2a9e-1b2c-4d5e-8f90-123456789abc)\n"
        "NAME          READY   STATUS    RESTARTS      AGE\nvllm-head-0   1/1     Running   4 (11m ago)   15m\n"),
    # https://github.com/NVIDIA/nvidia-docker/issues/182: fixed by a reboot
    "nvidia-api-mismatch-rebooted": BANNER + (
        "[ 7386.259769] NVRM: API mismatch: the client has the version 367.44, but\n"
        "               NVRM: this kernel module has the version 367.35.  Please\n$ sudo reboot\n"
        "$ nvidia-smi --query-gpu=name,driver_version --format=csv\nname, driver_version\nTesla K80, 367.44\n"),
    # GNU coreutils timeout(1): -s KILL
    "process-killed-by-timeout": BANNER + "$ timeout -s KILL 30 ./all_reduce_perf -b 8 -e 128M -g 2\n#  Rank  0\nKilled\n",
    # sparkrun's orchestration/ssh.py: a failed step, then the same host OK
    "sparkrun-ssh-script-retried-ok": BANNER + (
        "[WARNING] sparkrun.orchestration.ssh:   SSH script <- 192.168.20.31 FAILED rc=1 (0.3s): docker: Error "
        "response from daemon: No such container: sparkrun_head\n"
        "[INFO] sparkrun.orchestration.ssh:   SSH script <- 192.168.20.31 OK (4.1s)\n"),
    "k8s-backoff-restarting": BANNER + (
        "  Warning  BackOff    5m16s (x21329 over 3d20h)  kubelet  Back-off restarting failed container ray-head in "
        "pod main-ray-cluster-kuberay-head-7zw69_default(da4143b0-f4c1-4752-b6b5-396e0ce08e3a)\n"),
    # https://github.com/ray-project/kuberay/issues/1563
    "ray-driver-not-registered-gave-up": BANNER + (
        "[2023-10-24 03:59:59,926 W 8 8] global_state_accessor.cc:401: Some processes that the driver needs to connect "
        "to have not registered with GCS, so retrying. Have you run 'ray start' on this node?\n"
        "Traceback (most recent call last):\n  File \"/home/ray/anaconda3/bin/ray\", line 8, in <module>\n"),
    # https://github.com/abetlen/llama-cpp-python/issues/1166
    "llama-cpp-max-devices": BANNER + ("ValueError: Attempt to split tensors that exceed maximum supported devices. "
                                       "Current LLAMA_MAX_DEVICES=1\n"),
    # https://github.com/spark-arena/sparkrun/issues/205
    "sparkrun-ssh-script-failed": BANNER + "[WARNING] sparkrun.orchestration.ssh:   SSH script <- 192.168.20.31 FAILED rc=1 (0.3s):\n",
    # https://github.com/ai-dynamo/dynamo/issues/4934
    # CUDA_VISIBLE_DEVICES in the launch lists the GPUs vLLM saw
    "vllm-tp-more-than-visible-gpus": BANNER + (
        "$ CUDA_VISIBLE_DEVICES=0,1 vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4\n"
        "ValueError: Tensor parallel size (4) cannot be larger than the number of available GPUs (2).\n"),
    "vllm-tp-more-than-local-gpus": BANNER + ("  Value error, Tensor parallel size (2) cannot be larger than the number of "
                                              "available GPUs (1). [type=value_error]\n"),
    # https://github.com/kyuz0/amd-strix-halo-vllm-toolboxes/issues/72
    "vllm-kernel-fallback": BANNER + ("WARNING 06-30 17:41:22 [awq_marlin.py:317] Layer 'language_model.model.layers.3.mlp."
                                      "experts' is not supported by AWQMoeMarlin. Falling back to Moe WNA16 kernels.\n"),
    # https://github.com/spark-arena/sparkrun/issues/220
    "jit-kernel-source-missing": BANNER + "          -> Failed to open: sm121_fp8_mqa_logits.cuh\n",
    # pending wg010 and wg021 (elizabetht's two-Spark notebooks: a round-robin proxy, a disaggregated run)
    "batch-served-one-after-another": BANNER + ("  Requests:       8/8 successful\n  Total time:     30.21 s\n"
                                                "  Total tokens:   800\n  Avg latency:    18632.5 ms\n"),
    "batch-served-together": BANNER + ("  Requests:       8/8 successful\n  Total time:     7.69 s\n"
                                       "  Avg latency:    7691.5 ms\n"),
    # Ray's scripts.py prints `Ray runtime started.` once the node is up
    "ray-driver-not-registered-came-up": BANNER + (
        "[2023-10-24 03:59:58,924 W 8 8] global_state_accessor.cc:401: Some processes that the driver needs to connect "
        "to have not registered with GCS, so retrying. Have you run 'ray start' on this node?\n"
        "--------------------\nRay runtime started.\n--------------------\n"),
    "ray-driver-not-registered": BANNER + (
        "[2023-10-24 03:59:58,924 W 8 8] global_state_accessor.cc:401: Some processes that the driver needs to connect "
        "to have not registered with GCS, so retrying. Have you run 'ray start' on this node?\n"),
})
EXAMPLES.update({  # blind batches wl/wm/wn (session 39e): UCX's error lines, NVRM, HTTP answers, a script's parse
    "ucx-create-ah-timeout": BANNER + (
        "[1719157763.321281] [node2:19381:0]       ib_device.c:1163 UCX  ERROR   ibv_create_ah(dlid=49152 sl=0 port=1 "
        "src_path_bits=0 dgid=::ffff:172.16.0.2 flow_label=0xffffffff sgid_index=3 traffic_class=106) for UD mlx5 "
        "connect on mlx5_1 failed: Connection timed out\n"),
    "ucx-retry-exceeded": BANNER + (
        "[master:19546:0:19546] ib_mlx5_log.c:139  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 "
        "hw_synd 0/0)\n[master:19546:0:19546] ib_mlx5_log.c:139  DCI QP 0xa9f wqe[0]: SEND s-e [rqpn 0xa66 rlid 703] "
        "[inl len 18]\n"),
    "ucx-ud-qp-refused": BANNER + (
        "[1743560160.063188] [iZ0jl9w5uimuv06kvi1ehwZ:23812:0]        ib_iface.c:1182 UCX  ERROR erdma_0: iface "
        "0x32ce7410 failed to create UD QP TX wr:256 sge:6 inl:64 resp:0 RX wr:4096 sge:1 resp:0 failed: Invalid "
        "argument\n"),
    "ucx-connect-no-route": BANNER + (
        "[1745480768.774628] [l229-7-p-ga:4112 :0]            sock.c:334  UCX  ERROR   connect(fd=208, "
        "dest_addr=10.25.117.11:64468) failed: Network is unreachable\n"),
    "nvrm-reset-required": BANNER + "NVRM: nvCheckOkFailedNoLog: Check failed: Reset required [NV_ERR_RESET_REQUIRED]\n",
    "nccl-no-graph-capture": BANNER + (
        "NCCL WARN NCCL cannot be captured in a graph if either it wasn't built with CUDA runtime >= 11.3 or if the "
        "installed CUDA driver < R465.\n"),
    "http-503-from-server": BANNER + (
        "2025-04-09 12:04:36,150 - INFO - HTTP Request: POST http://192.168.50.13/v1/chat/completions \"HTTP/1.1 503 "
        "Service Unavailable\"\n"),
    "http-503-retried": BANNER + (
        'INFO:httpx:HTTP Request: POST http://10.0.0.5:8000/v1/chat/completions "HTTP/1.1 503 Service Unavailable"\n'
        "INFO:openai._base_client:Retrying request to /chat/completions in 0.428000 seconds\n"
        'INFO:httpx:HTTP Request: POST http://10.0.0.5:8000/v1/chat/completions "HTTP/1.1 200 OK"\n'),
    "http-503-answered-later": BANNER + (
        '(APIServer pid=1) INFO:     172.18.0.5:40212 - "POST /v1/chat/completions HTTP/1.1" 503 Service Unavailable\n'
        '(APIServer pid=1) INFO:     172.18.0.5:40214 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'),
    "http-404-answered-later": BANNER + (
        '(APIServer pid=1) INFO:     127.0.0.1:40212 - "POST /v1/chat/completions HTTP/1.1" 404 Not Found\n'
        '(APIServer pid=1) INFO:     127.0.0.1:40314 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'),
    "openai-model-does-not-exist": BANNER + (
        "(APIServer pid=1276) ERROR 03-13 09:38:18 [serving.py:229] Error with model error=ErrorInfo(message='The model "
        "`Intel/Qwen3.5-122B-A10B-int4-AutoRound` does not exist.', type='NotFoundError', param='model', code=404)\n"),
    "script-parse-na-field": BANNER + (
        "  ERROR - An unexpected error occurred: invalid literal for int() with base 10: '[N/A]'\n"),
    "nccl-ring-no-loop": BANNER + "ip-0A0C04E3:76285:76947 [4] graph/rings.cc:38 NCCL WARN Error : ring 0 does not loop back "
                                  "to start (48 != 52)\n",
    "mpi-btl-tcp-connect": BANNER + (
        "[u10-154-66-206][[38971,1],2][btl_tcp_endpoint.c:796:mca_btl_tcp_endpoint_complete_connect] connect() to "
        "172.17.0.1 failed: Connection refused (111)\n"),
    "sgl-kernel-no-build": BANNER + "ImportError: [sgl_kernel] CRITICAL: Could not load any common_ops library!\n",
    "trtllm-benchmark-line-cpp": BANNER + (
        "[BENCHMARK] batch_size 1 input_length 1024 output_length 128 latency(ms) 2561.35 tokensPerSec 49.97 "
        "generation_time(ms) 2492.30 generationTokensPerSec 51.36 gpu_peak_mem(gb) 44.75\n"),
    "trtllm-benchmark-line-py": BANNER + (
        "[BENCHMARK] model_name llama_13b world_size 2 num_heads 40 num_kv_heads 40 num_layers 40 hidden_size 5120 "
        "vocab_size 32000 precision float16 batch_size 1 input_length 710 output_length 190 gpu_peak_mem(gb) 0.0 "
        "build_time(s) 116.39 tokens_per_sec 43.09 percentile95(ms) 5120.208\n"),
    "ray-symmetric-run-waiting": BANNER + "Waiting for nodes to start... 1/2 nodes started\n" * 2,
    "ray-autoscaler-crashed": BANNER + "(raylet) The autoscaler failed with the following error:\n",
    "vllm-no-common-block-size": BANNER + "(Worker_TP0 pid=271) ERROR 09-10 09:44:40 [multiproc_executor.py:1055] "
                                          "ValueError: No common block size for 64. \n",
    "rpc-server-buffer-not-found": BANNER + ("103.05.299.632 W srv        deserialize_tensor: failed: buffer not found, "
                                             "name = token_embd.weight\n"),
    "nvml-memory-not-supported": BANNER + ("pynvml.NVMLError_NotSupported: Not Supported\n\nRuntimeError: Failed to get "
                                           "free memory for device 0 (global index: 0): Not Supported\n"),
    "ucx-no-am-transport": BANNER + ("[1736788625.693157] [cnode001:521140:0]          select.c:630  UCX  ERROR   no "
                                     "active messages transport to <no debug data>: self/memory - Destination is "
                                     "unreachable\n"),
    "ucx-transport-missing": BANNER + ("[1751618583.086184] [ubuntu2:744810:0]     ucp_context.c:1321 UCX  WARN  transport "
                                       "'cuda_copy' is not available, please use one or more of: cma, rc, self, tcp\n"),
    "nvrm-fsp-timeout": BANNER + "NVRM: kfspWaitForResponse: FSP command timed out\n",
    "http-404-inference-request": BANNER + ('(APIServer pid=1) INFO:     192.168.110.1:43886 - "POST /v1/chat/completion '
                                            'HTTP/1.1" 404 Not Found\n'),
    "mpi-btl-tcp-unexpected-peer": BANNER + (
        "[u10-154-66-206][[39817,1],2][btl_tcp_endpoint.c:638:mca_btl_tcp_endpoint_recv_connect_ack] received "
        "unexpected process identifier [[39817,1],3]\n"),
    # bash job control: a background job that ended with a non-zero status, and one ended by SIGTERM
    "shell-job-exit": BANNER + "$ vllm serve Qwen/Qwen3-8B &\n[1] 48211\nValueError: bad arg\n[1]+  Exit 1                  vllm serve Qwen/Qwen3-8B\n",
    "shell-job-terminated": BANNER + "$ vllm serve Qwen/Qwen3-8B &\n[1] 48211\n$ kill %1\n[1]+  Terminated              vllm serve Qwen/Qwen3-8B\n",
})
EXAMPLES.update({  # blind batch wr (session 39k): vLLM's fused-MoE kernel without a tuned config for this GPU
    "moe-default-config": BANNER + (
        "(Worker_TP0 pid=1182678) WARNING 01-13 02:22:23 [fused_moe.py:888] Using default MoE config. Performance "
        "might be sub-optimal! Config file not found at ['/envs/VCA/lib/python3.12/site-packages/vllm/model_executor/"
        "layers/fused_moe/configs/E=128,N=384,device_name=NVIDIA_H100_80GB_HBM3.json']\n"),
    "cudagraph-profiling-disabled": BANNER + (
        "(Worker_TP0 pid=289) WARNING 07-18 19:34:18 [gpu_worker.py:570] CUDA graph memory profiling is disabled "
        "(VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0). Without it, CUDA graph memory is not accounted for during KV "
        "cache allocation, which may require lowering --gpu-memory-utilization to avoid OOM. Consider re-enabling it "
        "(the default as of v0.21.0) and increasing --gpu-memory-utilization from 0.9200 to 0.9546.\n"),
    "ray-node-death-reason": BANNER + (
        "[2025-07-03 11:12:01,375 I 42 42] (gcs_server) gcs_node_manager.cc:386: Removing node, node name = "
        "172.24.1.211, death reason = UNEXPECTED_TERMINATION, death message = Raylet could not connect to Runtime Env "
        "Agent node_id=3f59adf5c5637be592d585665324bc4d7e22d22f86bc0a4847c89076\n"),
    "http-400-inference-request": BANNER + (
        "(APIServer pid=29938) INFO:     127.0.0.1:43612 - \"POST /v1/chat/completions HTTP/1.1\" 400 Bad Request\n"),
    "engine-dead-at-shutdown": BANNER + (
        "(EngineCore pid=30070) INFO 08-01 23:37:28 [core.py:1214] [shutdown] EngineCore: trigger received "
        "signal=SIGTERM\n(APIServer pid=29938) ERROR 08-01 23:37:28 [async_llm.py:704] "
        "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the "
        "root cause.\n"),
    "ray-node-removed-on-purpose": BANNER + (
        "[2026-04-27 14:28:36,412 I 61 61] (gcs_server) gcs_node_manager.cc:639: Removing node, node name = "
        "192.168.100.11, death reason = EXPECTED_TERMINATION, death message = received SIGTERM "
        "node_id=90e5c8da07ae3610811933ecb98e021c4b5a7a49be80665bb8924e4b\n"),
    "ray-node-preempted": BANNER + (
        "[2025-03-11 09:14:02,118 I 88 88] gcs_node_manager.cc:128: Removing node, node name = 10.0.3.17, death "
        "reason = AUTOSCALER_DRAIN_PREEMPTED, death message = preempted by the cloud provider\n"),
    "tls-certificate-verify-failed": BANNER + (
        "[2023-11-13 01:47:48,664 C 8 8] (ray_init) redis_context.cc:484:  Check failed: redisInitiateSSLWithContext("
        "context_, ssl_context_) == REDIS_OK Failed to setup encrypted redis: SSL_connect failed: "
        "CERTIFICATE_VERIFY_FAILED\n"),
    "cudagraph-profiling-disabled-served": BANNER + (
        "(Worker_TP0 pid=289) WARNING 07-18 19:34:18 [gpu_worker.py:570] CUDA graph memory profiling is disabled "
        "(VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0). Without it, CUDA graph memory is not accounted for during KV "
        "cache allocation, which may require lowering --gpu-memory-utilization to avoid OOM.\n"
        "(APIServer pid=1) INFO:     Application startup complete.\n"),
    "nvfp4-global-scale-differs": BANNER + (
        "(EngineCore pid=40474) WARNING 08-02 10:29:03 [compressed_tensors_w4a4_nvfp4.py:102] In NVFP4 linear, the "
        "weight global scale is different for parallel layers (e.g. q_proj, k_proj, v_proj). This  will likely result "
        "in reduced accuracy. Please verify the model accuracy.\n"),
})

EXAMPLES.update({  # session 40c: a type subscript this Python does not take (vllm_serve.log of phivan3008/meeting-translator)
    "type-not-subscriptable": BANNER + (
        "(EngineCore pid=1632893)   File \"/w/.venv/lib/python3.11/site-packages/flashinfer/comm/fd_exchange.py\", "
        "line 55, in <module>\n(EngineCore pid=1632893)     def _fd_ancillary(fd: int) -> tuple[tuple[int, int, "
        "array.array[int]]]:\n(EngineCore pid=1632893) TypeError: type 'array.array' is not subscriptable\n"),
})


def reached(text: str, table=None) -> list[str]:
    return [entry.id for entry, _ in diagnose_entries(parse_vllm_log(text), table)]


# --------------------------------------------------------------------------- the table

def test_the_table_loads_and_every_entry_says_meaning_fix_and_source():
    entries = load_table()
    assert len(entries) == len(tomllib.loads(TABLE_TEXT)["diagnosis"]) >= 39
    for e in entries:
        assert e.meaning.strip() and e.fix.strip() and e.source.strip(), e.id
        assert e.severity in ("fail", "warn", "info")
        assert set(e.events) <= set(EVENT_KINDS) and set(e.unless_events) <= set(EVENT_KINDS)
    assert len({e.id for e in entries}) == len(entries)
    # every source names a document of this project or a URL
    for e in entries:
        assert re.search(r"https?://|docs/research/|vllm/|clusterlab|vLLM's|Ray's", e.source), (e.id, e.source)


def reached_in_text(text: str) -> list[str]:
    """The ids diagnose_text reaches in a text that is no vLLM log: the first entry of each kind that reads text."""
    from grader import diagnoses
    kinds: set[str] = set()
    out = []
    for e in load_table():
        if e.reads_text and e.kind not in kinds and e.may_match(text) and diagnoses._values(e, None, text) is not None:
            kinds.add(e.kind)
            out.append(e.id)
    return out


EXAMPLE_NODES = {"ray-local-instance-one-machine": 1, "nccl-error-one-machine": 1, "nccl-watchdog-first-one-machine": 1,
                 "gloo-hostname-loopback-one-machine": 1, "nccl-p2p-not-enabled-one-machine": 1,
                 "ibverbs-no-userspace-driver-one-machine": 1, "ibverbs-no-providers-one-machine": 1,
                 "not-ready-one-machine": 1}
"""Entries that ask what `explain --nodes` says (LOG_FLAGS' told_one_machine, details one_machine_told): the machines
their example is read with."""
EXAMPLE_HOSTS: dict[str, str] = {}
"""Entries that ask what `explain --host` says: the host their example is read on."""


def test_every_entry_is_reached_by_an_input():
    from grader.judges.context import _CONTEXT, Context
    ids = [e.id for e in load_table()]
    assert sorted(EXAMPLES) == sorted(ids), "each table entry needs an input in EXAMPLES, and only those"
    for entry_id, text in EXAMPLES.items():  # in a vLLM log, or (a known error line) in plain text
        token = _CONTEXT.set(Context(nodes=EXAMPLE_NODES.get(entry_id), host=EXAMPLE_HOSTS.get(entry_id)))
        try:
            assert entry_id in reached(text) + reached_in_text(text), (entry_id, reached(text))
        finally:
            _CONTEXT.reset(token)


def test_every_event_kind_that_is_a_fault_has_an_entry():
    """The parser's events that only describe (a placement group created, Ray connected, Gloo retrying,
    the CUDA-graph memory note) need none; every other kind is read by some entry."""
    read = {k for e in load_table() for k in e.events}
    assert set(EVENT_KINDS) - read == {"pg-created", "ray-connected", "gloo-retry", "cuda-graph-util"}


def test_the_gid_fix_names_no_fixed_index():
    """NCCL_IB_GID_INDEX is each node's own RoCE v2 index (3 on most Sparks, 5 or 7 on others): the fix says how
    to read it, never a number."""
    fixed = re.compile(r"GID_INDEX\s*[=:]?\s*\d|GID index (?:of |is )?\d|index \d\b")
    for e in load_table():
        assert not fixed.search(e.fix) and not fixed.search(e.meaning), e.id
    [d] = diagnose(parse_vllm_log(EXAMPLES["nccl-error"]))
    assert d.kind == "nccl-error" and not fixed.search(d.fix)
    assert "show_gids" in d.fix and "/sys/class/infiniband/<dev>/ports/1/gid_attrs/types" in d.fix
    assert "RoCE v2" in d.fix and "IPv4" in d.fix and "192.168.100.11" in d.message
    assert "github.com" in d.source


# --------------------------------------------------------------------------- what diagnose says

def test_the_texts_carry_the_log_s_values():
    [ws] = diagnose(parse_vllm_log(EXAMPLES["world-size"]))
    assert "world size 2" in ws.message and "1 GPU(s)" in ws.message
    kv = diagnose(parse_vllm_log(EXAMPLES["kv-too-small"]))[0]
    assert "--max-model-len 190256" in kv.fix and "23.25 GiB" in kv.message and "22.5 GiB" in kv.message
    assert "estimates the longest that fits at 190256 tokens" in kv.message
    tokens = diagnose(parse_vllm_log(EXAMPLES["kv-too-small-tokens"]))[0]
    assert "(32768 tokens)" in tokens.message and "(16384 tokens)" in tokens.message
    assert "a smaller --max-model-len" in tokens.fix
    zero = diagnose(parse_vllm_log(EXAMPLES["kv-too-small-zero"]))[0]
    assert "0.0 GiB" in zero.message and "--max-model-len 16 " in zero.fix
    pg = diagnose(parse_vllm_log(EXAMPLES["pg-timeout"]))[0]
    # the log states no layout: the GPUs are counted from the placement group's specs, never a default TP x PP of 1
    assert "within 1800 seconds" in pg.message and "(2 asked for here)" in pg.message and "1 x 1" not in pg.message
    [iface] = diagnose(parse_vllm_log(EXAMPLES["gloo-iface"]))
    assert "enP7s7" in iface.message and "on the node at 192.168.100.11" in iface.message
    [gloo] = diagnose(parse_vllm_log(EXAMPLES["gloo-connect"]))
    assert gloo.message == "Gloo could not connect its process group (remote 192.168.100.11)."


def test_optional_parts_drop_when_the_log_lacks_the_value():
    [gloo] = diagnose(parse_vllm_log("RuntimeError: Gloo connectFullMesh failed with something else\n"))
    assert gloo.message == "Gloo could not connect its process group."
    [nccl] = diagnose(parse_vllm_log("RuntimeError: NCCL error: internal error\n"))
    assert nccl.message.startswith("NCCL failed between the workers: ")


def test_braces_in_a_value_stay_as_printed():
    [d] = diagnose(parse_vllm_log(EXAMPLES["no-gpu-resource"]))
    assert "give {'GPU': 1.0}, and" in d.message


def test_variants_of_a_kind_give_one_diagnosis():
    assert [(d.kind, d.severity) for d in diagnose(parse_vllm_log(EXAMPLES["pg-wait-then-ready"]))] == [
        ("pg-wait", "info")]
    assert [(d.kind, d.severity) for d in diagnose(parse_vllm_log(EXAMPLES["pg-wait"]))] == [("pg-wait", "warn")]
    assert [(d.kind, d.severity) for d in diagnose(parse_vllm_log(EXAMPLES["no-host-ip-hang"]))] == [
        ("no-host-ip", "fail")]
    native = "nvidia@spark-a:~$ vllm serve /m --nnodes 2 --node-rank 0 -pp 2\n" + EXAMPLES["no-host-ip"]
    assert reached(native) == ["no-host-ip-hang"]
    assert reached(EXAMPLES["no-host-ip"]) == ["no-host-ip"]


def test_the_source_of_a_diagnosis_is_the_table_s():
    d = diagnose(parse_vllm_log(EXAMPLES["cpu-no-ray"]))[0]
    assert "vllm_cpu.md" in d.source
    assert Diagnosis("no-such-kind", "m", "f").source == ""


# --------------------------------------------------------------------------- adding a fault is one entry

NEW_FAULTS = '''
[[diagnosis]]
id = "ptxas-sm121a"
pattern = 'ptxas\\S* fatal\\s*: Value .(?P<arch>sm_12\\w+). is not defined'
meaning = "The kernel was compiled for {arch}, which this ptxas does not know: {line}"
fix = "Use an image whose CUDA toolkit knows the Spark's GPU."
source = "docs/research/procedure.md §5"

[[diagnosis]]
id = "ray-channel-timeout"
event = "exception"
pattern = 'RayChannelTimeoutError'
meaning = "Pipeline parallel across nodes timed out on a Ray channel ({message})."
fix = "See the source."
source = "docs/research/procedure.md §5"
'''


def _without(table_text: str, *ids: str) -> str:
    """The table's text without the entries of these ids."""
    head, *blocks = table_text.split("[[diagnosis]]\n")
    return head + "".join("[[diagnosis]]\n" + b for b in blocks if not any(b.startswith(f'id = "{i}"\n') for i in ids))


def test_a_new_fault_is_one_entry():
    """A fault the parser has no event for is read by a text pattern over the log; an exception the
    parser reports generically is refined by a pattern over its message, before the generic entry."""
    # the table as it was before these two faults were named (the shipped table names them now)
    base = _without(TABLE_TEXT, "ray-channel-timeout", "ray-cgraph-read", "nvfp4-ptxas-sm121", "nvfp4-cutlass-internal")
    generic = base.index('[[diagnosis]]\nid = "exception-after-ready"')
    table = parse_table(base[:generic] + NEW_FAULTS + base[generic:], "test table")
    text = ("INFO 11-29 14:02:11 [api_server.py:1] vLLM API server version 0.32.0\n"
            "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'\n")
    found = diagnose_entries(parse_vllm_log(text), table)
    assert [e.id for e, _ in found] == ["ptxas-sm121a"]
    d = found[0][1]
    assert d.message == ("The kernel was compiled for sm_121a, which this ptxas does not know: ptxas fatal   : "
                         "Value 'sm_121a' is not defined for option 'gpu-name'")
    ray = ("(EngineCore pid=1) ray.exceptions.RayChannelTimeoutError: System error: Timed out waiting for "
           "object available to read.\n")
    assert reached(ray, table) == ["ray-channel-timeout"]
    assert reached(ray, parse_table(base, "base table")) == ["exception"]  # the table without the entry
    assert reached(ray) == ["ray-channel-timeout"]  # the shipped table names it
    assert reached(EXAMPLES["exception"], table) == ["exception"]


@pytest.mark.parametrize("change, complaint", [
    (('source = "docs/research/vllm_cpu.md §2 (\'No package metadata was found for vllm\'; the metadata alias)"',
      'source = " "'), None),
    (('id = "oom"\nevent = "oom"', 'id = "oom"\nevent = "out-of-memory"'), "not an event kind"),
    (('id = "oom"\nevent = "oom"', 'id = "world-size"\nevent = "oom"'), "used twice"),
    (('id = "oom"\nevent = "oom"', 'id = "oom"\nevent = "oom"\nwhen = { warm = true }'), "`when`"),
    (('id = "oom"\nevent = "oom"', 'id = "oom"\nevent = "oom"\ndetail = "guess"'), "no detail function"),
    (('id = "oom"\nevent = "oom"', 'id = "oom"\nevent = "oom"\npattern = "(unclosed"'), "does not compile"),
    (('id = "oom"\nevent = "oom"', 'id = "oom"\nevent = "oom"\nseverity = "fatal"'), "severity"),
    (('id = "oom"\nevent = "oom"', 'id = "oom"\nevent = "oom"\nfixes = "x"'), "unknown field"),
    (('id = "oom"\nevent = "oom"', 'id = "oom"\nlike = "gloo-connect"\nevent = "oom"'), "names no entry"),
    (('meaning = "The GPU ran out of memory', 'meaning = "[?The GPU ran out of memory'), "not closed"),
    (('meaning = "The GPU ran out of memory', 'meaning = "{message.upper} The GPU ran out of memory'), "no format"),
])
def test_a_malformed_table_is_refused(change, complaint):
    old, new = change
    assert TABLE_TEXT.count(old) == 1, old
    with pytest.raises(CatalogueError) as err:
        parse_table(TABLE_TEXT.replace(old, new), "test table")
    assert complaint is None or complaint in str(err.value)
    if complaint is None:
        assert "non-empty `source`" in str(err.value)


# --------------------------------------------------------------------------- the layers

_PARSERS = ROOT / "grader" / "parsers"
_MINE = [_PARSERS / f"{name}.py" for name in ("vllm_log", "vllm_lines", "vllm_records", "vllm_events", "vllm_cmdline")]
_MINE.append(ROOT / "grader" / "diagnoses.py")
_HIGHER = ("grader.facts", "grader.diagnoses", "grader.explain", "grader.cli", "grader.checking", "checks")


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: inside grader.parsers
                base = ".".join(["grader", "parsers"][:3 - node.level] + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{a.name}" for a in node.names)
    return names


def test_the_parsers_import_no_judgment():
    for path in sorted(_PARSERS.glob("*.py")):
        bad = sorted(n for n in _imports(path) if n.startswith(_HIGHER))
        assert not bad, f"{path.name} imports {bad}: parsers are text -> typed facts"


def test_the_vllm_log_reader_holds_no_diagnosis_and_no_module_is_too_long():
    for path in _MINE:
        source = path.read_text()
        assert len(source.splitlines()) <= 600, path.name
        if path.parent == _PARSERS:
            assert "def diagnose" not in source and "class Diagnosis" not in source and "def _d_" not in source


def _figures() -> set[float]:
    """The figures of checks/ranges.toml and checks/specs/ (0, 1 and 2 left out: every program counts with them)."""
    found: set[float] = set()

    def walk(x):
        if isinstance(x, dict):
            x = list(x.values())
        if isinstance(x, list):
            for v in x:
                walk(v)
        elif isinstance(x, (int, float)) and not isinstance(x, bool):
            found.add(float(x))

    for path in [ROOT / "checks" / "ranges.toml"] + sorted((ROOT / "checks" / "specs").glob("*.toml")):
        walk(tomllib.loads(path.read_text()))
    return found - {0.0, 1.0, 2.0}


def test_no_catalogue_figure_in_the_diagnosis_code():
    figures = _figures()
    assert 9000.0 in figures and 21.875 in figures
    for path in _MINE:
        tree = ast.parse(path.read_text())
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
                      and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Constant) or id(node) in docstrings:
                continue
            if isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
                assert float(node.value) not in figures, f"{path.name}:{node.lineno}: {node.value}"
            elif isinstance(node.value, str):
                assert not re.search(r"GID_INDEX\s*=\s*\d|\bmtu\s*9000|21\.875", node.value), \
                    f"{path.name}:{node.lineno}"


def test_an_entry_s_gate_never_hides_a_match():
    """The gate (grader.diagnoses._gate: texts one of which every match holds; lower case under IGNORECASE, looked for
    in the text lowered) only skips searches that would find nothing: for every example text of the table and of the
    field's faults, each entry whose pattern matches it says it may."""
    from tests.test_field_faults import ALL
    texts = [*EXAMPLES.values(), *ALL]
    checked = 0
    for entry in load_table():
        if entry.pattern is None:
            continue
        for text in texts:
            if entry.pattern.search(text):
                checked += 1
                assert entry.may_match(text), (entry.id, entry.gate, text[:200])
    assert checked >= len(EXAMPLES)


def test_texts_in_answers_as_one_search_per_text(monkeypatch):
    """anyof.texts_in (one Aho-Corasick pass, in slices) finds the texts `in` finds: one across a slice's edge, one
    at the very end, none of a text that is absent; a text met past MAX_TEXT_HITS times stops the pass, and the
    others are still found. Slices and the cap are made small here so each path runs on a short text."""
    from grader.parsers.common import anyof
    monkeypatch.setattr(anyof, "TEXTS_SLICE", 16)
    monkeypatch.setattr(anyof, "MAX_TEXT_HITS", 5)
    texts = frozenset({"NCCL WARN ", "ibv_reg_dmabuf_mr", "Broken pipe", "errno:98", ""})
    text = "x" * 10 + "NCCL WARN " + "y" * 30 + "Broken pipe"  # the first crosses the edge at 16
    assert anyof.texts_in(text, texts) == {"NCCL WARN ", "Broken pipe", ""}
    assert anyof.texts_in("errno:98 " * 40 + "Broken pipe", texts) == {"errno:98", "Broken pipe", ""}
    assert anyof.texts_in("", texts) == {""} and anyof.texts_in("abc", frozenset()) == frozenset()
    for text in [*EXAMPLES.values()]:
        assert anyof.texts_in(text, texts) == {t for t in texts if t in text}


def test_the_texts_in_a_log_whose_lines_differ_in_their_digits_are_those_found_one_by_one():
    """A long text whose lines repeat but for their digits is passed over as its distinct lines, digits read as 0
    (diagnoses._line_shapes): a text with no digit is found there or nowhere; one with digits (a 0 alone, or a shape
    that other digits have) or a line break is asked of the text itself. Lines all different are read as they are."""
    from grader import diagnoses
    line = "(Worker pid={}) INFO 12-06 10:{:02d}:00 [x.py:1] GPU KV cache size: {} tokens \u2588 errno:98\n"
    log = "".join(line.format(i, i % 60, i * 7) for i in range(diagnoses.ONE_PASS_CHARS // 40))
    texts = frozenset({"errno:98", "errno:99", "errno:00", "0", "pid=12)", "pid=99999999)", "tokens \u2588", "",
                       "KV cache size: 0 ", "size: 7 tokens", "Broken pipe", "tokens \u2588 errno:98\n(Worker", "98\nx"})
    for text in (log, log + "Broken pipe\n", "".join(f"{i} {chr(0x4e00 + i)}\n" for i in range(20_000)) + "errno:98"):
        assert diagnoses._texts_in(text, texts) == {t for t in texts if t in text}
    assert diagnoses._line_shapes(log) is not None
    assert diagnoses._line_shapes("\n".join(map(chr, range(0x4e00, 0x4e40)))) is None


def test_a_long_text_s_gates_are_asked_in_one_pass_with_the_same_answers():
    """Within one_text_gated, a text past ONE_PASS_CHARS has every gate of the table answered from one pass over it
    (diagnoses._gate_texts): each entry's may_match says what it says of the text outside it, one search per text."""
    from grader.diagnoses import ONE_PASS_CHARS, one_text_gated
    filler = "(APIServer pid=1) INFO 12-06 10:00:00 [loggers.py:1] Engine 000: Avg prompt throughput: 0.0\n"
    text = filler * (ONE_PASS_CHARS // len(filler) + 1) + EXAMPLES["nccl-peer-closed"] + filler
    table = load_table()
    alone = [e.may_match(text) for e in table]
    with one_text_gated():
        together = [e.may_match(text) for e in table]
    assert together == alone and any(alone) and not all(alone)


def test_a_case_blind_entry_is_gated_on_its_words_in_any_case():
    """launcher-gave-up-waiting's pattern ignores case: its gate is the word every match holds, searched ignoring case
    as re folds it (so `ſ` for `s` and `ı` for `i` gate as the pattern matches them); a vLLM log without that word
    (every line of one says vLLM) is not searched."""
    import re as _re
    entry = next(e for e in load_table() if e.id == "launcher-gave-up-waiting")
    assert entry.gate == ("after",) and entry.gate_re is not None and entry.gate_re.flags & _re.IGNORECASE
    assert entry.may_match("VLLM NOT READY AFTER 600 S") and entry.may_match("vLLM not healthy after 10 minutes")
    assert not entry.may_match("(APIServer pid=1) INFO 04-15 09:33:51 [api_server.py:1] vLLM API server version 0.19")
    folded = "vLLM not ready afteR 5 minutes".replace("R", "\u0280")  # a letter lower() and re fold differently
    assert bool(entry.pattern.search(folded)) <= entry.may_match(folded)


def test_a_case_blind_gate_folds_what_re_folds_onto_ascii():
    """A case-blind gate of ASCII texts is asked of the text folded (diagnoses._ascii_folded): the characters beyond
    ASCII that re's case-blind matching takes for an ASCII one are exactly those of _FOLDED_TO_ASCII, each for its
    letter (every code point checked), so a match that holds one (`FAİLED`, `faıled`) still passes its gate."""
    from grader.diagnoses import _FOLDED_TO_ASCII, _ascii_folded, one_text_gated
    beyond = "".join(map(chr, [*range(0x80, 0xD800), *range(0xE000, 0x110000)]))
    assert set(re.findall("[\x00-\x7f]", beyond, re.IGNORECASE)) == set(_FOLDED_TO_ASCII)
    assert all(re.fullmatch(letter, char, re.IGNORECASE) for char, letter in _FOLDED_TO_ASCII.items())
    assert _ascii_folded("FA\u0130LED \u017f \u212a \u00e9x") == b"failed s k x"
    entry = next(e for e in load_table() if e.id == "roce-rtr-timeout")
    for text in ("NET/IB : FA\u0130LED TO MODIFY QP TO RTR: Connection timed out", "ibv_modify_qp fa\u0131led errno 110"):
        with one_text_gated():
            assert entry.pattern.search(text) and entry.may_match(text)


def test_an_unknown_vllm_variable_warns_unless_an_image_or_the_sim_sets_it():
    """A VLLM_* variable vLLM does not define changes nothing, so what it was set for is not in effect (vllm#40899:
    VLLM_USE_RAY_COMPILED_DAG, a workaround that no longer applied): a warning. The ones a container image sets for its
    own build (VLLM_VERSION, VLLM_FLASH_ATTN_SRC_DIR, vllm-dgx-spark#3) are a note, and the sim's VLLM_CPU_RAY (read by
    its platform plugin) is no news. Each line is read, not only the first: a user's variable after the image's
    still warns."""
    line = "WARNING 05-01 10:00:00 [envs.py:1846] Unknown vLLM environment variable detected: {}\n"
    by_kind = lambda text: {d.kind: d for d in diagnose_text(text)}
    both = by_kind(line.format("VLLM_VERSION") + line.format("VLLM_CPU_RAY") + line.format("VLLM_USE_RAY_COMPILED_DAG"))
    assert both["vllm-unknown-env"].severity == "warn" and "VLLM_USE_RAY_COMPILED_DAG" in both["vllm-unknown-env"].message
    image = by_kind(line.format("VLLM_FLASH_ATTN_SRC_DIR"))["vllm-unknown-env"]
    assert image.severity == "info" and "VLLM_FLASH_ATTN_SRC_DIR" in image.message
    assert "vllm-unknown-env" not in by_kind(line.format("VLLM_CPU_RAY"))


def test_the_table_s_entries_are_kept_while_it_and_the_code_reading_it_are_unchanged(tmp_path, monkeypatch):
    """load_table keeps the entries it read in __pycache__ beside the table (diagnoses._read_kept): read from there
    they are the table's entries, their patterns compiled when first used; a table changed is read again, and so is a
    cache that cannot be read (written by other code, cut short)."""
    from grader import diagnoses
    text = (ROOT / "checks" / "diagnoses.toml").read_text(encoding="utf-8")
    table = tmp_path / "diagnoses.toml"
    table.write_text(text, encoding="utf-8")
    fresh = parse_table(text)
    assert diagnoses._read_kept(table) == fresh
    [kept] = (tmp_path / "__pycache__").iterdir()
    read = diagnoses.parse_table
    monkeypatch.setattr(diagnoses, "parse_table", lambda *a: pytest.fail("the table was read again"))
    again = diagnoses._read_kept(table)
    i = next(i for i, e in enumerate(fresh) if e.regex)
    assert again == fresh and "pattern" not in vars(again[i]) and again[i].pattern.pattern == fresh[i].pattern.pattern
    monkeypatch.setattr(diagnoses, "parse_table", read)
    table.write_text(text.replace(fresh[0].fix, "Changed."), encoding="utf-8")
    assert diagnoses._read_kept(table)[0].fix == "Changed."
    kept.write_bytes(kept.read_bytes()[:100])
    assert diagnoses._read_kept(table)[0].fix == "Changed."


EXAMPLES.update({  # session 41g: nvtop's device header, an idle card's link at Gen 1 (Syllo/nvtop#6)
    "nvtop-pcie-gen-low": BANNER + "Device 1 [GeForce GTX 1080 Ti] PCIe GEN 1@16x RX: 0.000 KiB/s TX: 0.000 KiB/s\n",
    "nvidia-smi-pl-set": BANNER + "Power limit for GPU 00000000:53:00.0 was set to 280.00 W from 350.00 W.\nAll done.\n",
    "systemd-unit-exited-cleanly": BANNER + "Nov 23 16:11:27 pslabs-ml1 systemd[1]: nv-power-limit.service: Succeeded.\n",
    "gpud-unified-memory-fallback": BANNER + (
        '{"level":"warn","ts":"2025-12-05T04:45:04.257Z","caller":"memory/memory.go:97","msg":"NVML memory APIs not '
        'supported for unified memory device, falling back to system memory","product_name":"NVIDIA-GB10","error":'
        '"Not Supported"}\n'),
    "gpud-component-healthy": BANNER + (
        '    "component": "accelerator-nvidia-memory",\n    "states": [\n      {\n        "health": "Healthy",\n'
        '        "reason": "all 1 GPU(s) were checked, no memory issue found",\n'),
})


EXAMPLES.update({  # session 41g: blind batch vb003 (four Sparks): a Triton kernel load refused, the watchdog, the worker gone
    "triton-cuda-error": BANNER + ("(Worker_TP0_DCP0 pid=232) ERROR 09-07 20:59:45 [multiproc_executor.py:990] "
                                   "RuntimeError: Triton Error [CUDA]: operation not permitted\n"),
    "torch-nccl-collective-timeout-dump": BANNER + (
        "[rank0]:[E907 21:09:45.072414592 ProcessGroupNCCL.cpp:1914] [PG ID 0 PG GUID 0 Rank 0] Received a dump signal "
        "due to a collective timeout from  rank 3 and we will try our best to dump the debug info. Last enqueued NCCL "
        "work: -1, last completed NCCL work: -1.\n"),
    "vllm-worker-died": BANNER + ("(EngineCore pid=185) ERROR 09-07 21:18:35 [multiproc_executor.py:284] Worker proc "
                                  "VllmWorker-0 died unexpectedly, shutting down executor.\n"),
})


EXAMPLES.update({  # session 41g: nvidia-smi -q -x at an idle performance state (netdata/netdata#15755)
    "nvidia-smi-xml-idle-pstate": BANNER + "                        <power_state>P8</power_state>\n",
})


EXAMPLES.update({  # session 41g: a launch script traced with set -x (Tongyi-Zhiwen/Qwen-Doc#6)
    "shell-xtrace-assignments": BANNER + "+ MODEL_PATH=deepseek-ai/DeepSeek-R1-Distill-Qwen-32B\n+ DATA_DIR=./datasets/DocQA-RL-1.6K\n",
})


EXAMPLES.update({  # session 41: vLLM V0's swap-space warning (blind batch vg009, vLLM 0.4.2 on a two-GPU desktop)
    "vllm-swap-space-large": BANNER + "WARNING 05-25 00:00:22 config.py:405] Possibly too large swap space. 8.00 GiB "
                             "out of the 15.40 GiB total CPU memory is allocated for the swap space.\n",
})


EXAMPLES.update({  # session 41: a KV cache sized by --kv-cache-memory-bytes (blind batch vf004, two DGX Sparks)
    "vllm-kv-cache-bytes-set": BANNER + "(Worker_TP0 pid=435) INFO 09-20 05:08:33 [gpu_worker.py:492] Initial free memory "
                               "105.76 GiB, reserved 14.36 GiB memory for KV Cache as specified by kv_cache_memory_bytes "
                               "config and skipped memory profiling. This does not respect the gpu_memory_utilization "
                               "config.\n",
})


EXAMPLES.update({  # session 41h: iblinkinfo's per-link lines (NVIDIA/nccl-tests#71, four EDR hosts on an HDR switch)
    "iblinkinfo-link-up": BANNER + "CA: gpu-v100-3 HCA-1:\n      0x0002c9ffff0000c4      6    1[  ] ==( 4X      25.78125 "
                          "Gbps Active/  LinkUp)==>       3    3[  ] \"MF0;ibswitch254:MQM8700/U1\" ( )\n",
})

EXAMPLES.update({  # session 41h: amd-smi's AI NIC report, a port with no carrier (ROCm/rocm-systems#3654)
    "amd-smi-nic-no-carrier": BANNER + "        PORTS:\n            PORT_0:\n                TYPE: Ethernet\n"
                              "                NETDEV: enp229s0\n                IFINDEX: 229\n"
                              "                MAC_ADDRESS: 04:90:81:00:00:b0\n                CARRIER: 0\n"
                              "                MTU: 1500B\n                LINK_STATE: down\n                LINK_SPEED: 0 Mb/s\n",
})

EXAMPLES.update({  # session 41h: sparkrun's image pipeline to a Spark's CX-7 address failing over ssh (sparkrun#67)
    "sparkrun-ib-transfer-ssh-failed": BANNER + "Using IB network for transfers (1/1 hosts)\n"
                                       "  Pipeline <- 192.168.200.12 FAILED rc=255 (10.0s): ssh:\n",
})

EXAMPLES.update({  # session 41h: a queue pair that could not reach RTR, no errno the table singles out
    "qp-to-rtr-failed": BANNER + "E1021 10:04:11.512345 3051 rdma_endpoint.cpp:241] Failed to modify QP to RTR, check "
                        "mtu, gid, peer lid, peer qp num: Invalid argument [22]\n",
})


EXAMPLES.update({  # session 41j: gpud's states output, a component Unhealthy or Degraded (break-it 24 p18's shape)
    "gpud-component-unhealthy": BANNER + (
        '    "component": "accelerator-nvidia-remapped-rows",\n    "states": [\n      {\n        "health": "Unhealthy",\n'
        '        "reason": "GPU 0 has pending row remapping; reset required",\n'),
    "gpud-component-degraded": BANNER + (
        '    "component": "accelerator-nvidia-ecc",\n    "states": [\n      {\n        "health": "Degraded",\n'
        '        "reason": "GPU 0 has 12 correctable ECC errors",\n'),
})


EXAMPLES.update({  # session 41j: nvtop's device header at Gen 1 with its utilisation bar at 100% (break-it 24 p21's shape)
    "nvtop-pcie-gen-low-busy": BANNER + (
        " Device 0 [NVIDIA GeForce RTX 3090] PCIe GEN 1@16x RX: 248.0 MiB/s TX: 251.0 MiB/s\n"
        " GPU 1905MHz MEM 9751MHz TEMP  74\u00b0C FAN  78% POW 342 / 350 W\n"
        " GPU[||||||||||||||||||||||||||||||||100%] MEM[|||||||||||||||||||22.1Gi/24.0Gi]\n"),
})


EXAMPLES.update({  # session 41j: nvidia-smi -q -x at P8 with its utilisation at 100% (break-it 24 p19's shape)
    "nvidia-smi-xml-pstate-low-busy": BANNER + (
        "\t\t<performance_state>P8</performance_state>\n\t\t\t<gpu_util>100 %</gpu_util>\n"),
})


EXAMPLES.update({  # session 41: iblinkinfo's hint that a link could run wider or faster (break-it 25 p18)
    "iblinkinfo-could-be": BANNER + "CA: gpu-node02 HCA-1:\n      0xb83fd20300a1b2c3      7    1[  ] ==( 1X      53.125 "
                           "Gbps Active/  LinkUp)==>       1    3[  ] \"MF0;ibsw01:MQM8700/U1\" ( Could be 4X 53.125 Gbps)\n",
})


EXAMPLES.update({  # session 41: gpud's component Unhealthy, then Healthy later in the paste (break-it 25 p15)
    "gpud-component-unhealthy-then-healthy": BANNER + '''    "component": "accelerator-nvidia-fabric-manager",
    "states": [
      {
        "time": "2025-11-20T04:46:02Z",
        "health": "Unhealthy",
        "reason": "fabric manager found but not active"
      }
    ]
After restart
    "component": "accelerator-nvidia-fabric-manager",
    "states": [
      {
        "time": "2025-11-20T04:49:02Z",
        "health": "Healthy",
        "reason": "fabric manager found and active"
      }
    ]
''',
})


EXAMPLES.update({  # session 42: a docker command into a stopped container (blind batch vh004, a rate sweep's server)
    "docker-container-stopped": BANNER + " 9%|9         | 9/100 [00:26<03:41,  2.44s/it]OCI runtime exec failed: exec "
                                "failed: cannot exec in a stopped container\nError response from daemon: container "
                                "105379b1a609757de488752183537e84993c82c21871430bf3eab8e611e8a25d is not running\n",
    # the allocator's warning while the weights load, then the KV cache sized and the server up (blind batch vf005)
    "oom-allocator-retry-before-sizing": BANNER + "[rank0]:[W1003 19:36:19.077712446 CUDACachingAllocator.cpp:3933] "
                                         "memory allocation failed with OOM on device 0 while trying to allocate 20971520 "
                                         "bytes (free: 11599872, total: 25298141184).\n(EngineCore_DP0 pid=1) INFO 10-03 "
                                         "19:36:30 [kv_cache_utils.py:1087] GPU KV cache size: 103,760 tokens\n"
                                         "(APIServer pid=1) INFO 10-03 19:36:41 [api_server.py:1] Starting vLLM server "
                                         "on http://127.0.0.1:8000\n",
})


EXAMPLES.update({  # session 42: NCCL's NVML lookup of a peer GPU this rank cannot see (NVIDIA/nccl#1066, #1529)
    "nccl-nvml-peer-not-found-went-on": BANNER + "gcn6:1080061:1080359 [0] misc/nvmlwrap.cc:181 NCCL WARN "
                                        "nvmlDeviceGetHandleByPciBusId() failed: Not Found\n"
                                        "gcn6:1080061:1080359 [0] NCCL INFO Channel 00/02 :    0   1\n",
    "nccl-nvml-peer-not-found-init-failed": BANNER + "ucpe-resource033018034100:6896:7103 [1] misc/nvmlwrap.cc:187 "
                                            "NCCL WARN nvmlDeviceGetHandleByPciBusId() failed: Not Found\n"
                                            "ucpe-resource033018034100:6896:7103 [1] NCCL INFO graph/xml.cc:850 -> 2\n",
    # the warning with nothing of its process after it (break-it 26 F1: #1066's log cut before its channels)
    "nccl-nvml-peer-not-found": BANNER + "gcn6:1080061:1080359 [0] misc/nvmlwrap.cc:181 NCCL WARN "
                                "nvmlDeviceGetHandleByPciBusId() failed: Not Found\n",
})


EXAMPLES.update({  # session 42: a request longer than --max-model-len (blind batch vp009)
    "vllm-request-over-max-model-len": BANNER + "ERROR 08-09 10:11:12 [serving_chat.py:222] Error in preprocessing "
                                       "prompt inputs\nValueError: This model's maximum context length is 2048 tokens. "
                                       "However, you requested 5418 tokens (3918 in the messages, 1500 in the "
                                       "completion). Please reduce the length of the messages or completion.\n",
})


EXAMPLES.update({  # session 42: Ray 2.x's autoscaler with no node type for a group (xgboost_ray#202, corpus zd019)
    "ray-infeasible-node-type-group": BANNER + "2022-03-02 13:56:50,578 WARNING resource_demand_scheduler.py:746 -- The "
                                      "autoscaler could not find a node type to satisfy the request: [{'CPU': 2.0, "
                                      "'GPU': 1.0}, {'GPU': 1.0, 'CPU': 2.0}].\n"
                                      " {'GPU': 1.0, 'CPU': 2.0} * 2 (SPREAD): 1+ pending placement groups\n",
})


EXAMPLES.update({  # session 42: --max-model-len above the model's own context (blind batch vp002)
    "vllm-max-model-len-over-model": BANNER + "(APIServer pid=1)   Value error, User-specified max_model_len (999999) "
                                     "is greater than the derived max_model_len (max_position_embeddings=2048.0 or "
                                     "model_max_length=None in model's config.json). To allow overriding this maximum, "
                                     "set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.\n",
})


EXAMPLES.update({  # session 43: blind batches vt and vs (TensorRT-LLM's world size, llama.cpp's retry, ibstatus)
    "trtllm-world-size-mismatch": BANNER + "AssertionError: Engine world size (1) != Runtime world size (8)\n",
    "trtllm-mpi-size-tp-pp": BANNER + "[TensorRT-LLM][INFO] MPI size: 1, rank: 0\nRuntimeError: [TensorRT-LLM][ERROR] Assertion "
                             "failed: mpiSize == tp * pp (/src/cpp/tensorrt_llm/runtime/worldConfig.cpp:99)\n",
    "ggml-compute-buffer-retry-without-pp": BANNER + "E ggml_backend_cuda_buffer_type_alloc_buffer: allocating 51748.72 MiB on "
                                            "device 1: cudaMalloc failed: out of memory\nW sched_reserve: compute buffer "
                                            "allocation failed, retrying without pipeline parallelism\nI srv    "
                                            "load_model: initializing, n_slots = 1\n",
    "ibstatus-no-device": BANNER + "Fatal error:  device '*': sys files not found (/sys/class/infiniband/*/ports)\n",
})


EXAMPLES.update({  # session 43: a kernel's own BUG lines (blind batch vw005)
    "kernel-bug-rss-counter": BANNER + "[   87.412596] BUG: Bad rss-counter state mm:(____ptrval____) idx:0 val:-1\n",
    "kernel-bug-line": BANNER + "[ 1234.567890] BUG: unable to handle page fault for address: ffffa0a1b2c3d4e5\n",
})


EXAMPLES.update({  # session 43: ROCm's memory access fault (blind batch vu001, vu003)
    "rocm-memory-access-fault": BANNER + "Memory access fault by GPU node-2 (Agent handle: 0x9f73a80) on address "
                                "0x7ef9eb704000. Reason: Unknown.\n",
})


EXAMPLES.update({  # session 43: a checkpoint tensor the model has no parameter for (blind batch vu005)
    "vllm-weights-param-missing": BANNER + "ERROR 02-21 11:25:10 worker_base.py:581]     param = params_dict[name]\n"
                                  "ERROR 02-21 11:25:10 worker_base.py:581] KeyError: "
                                  "'model.layers.55.mlp.experts.w2_weight_scale_inv'\n",
})


EXAMPLES.update({  # session 43: vLLM's distributed sanity check passed (blind batch vx003)
    "vllm-sanity-check-passed": BANNER + "vLLM NCCL is successful!\nvLLM NCCL with cuda graph is successful!\n",
})


EXAMPLES.update({  # session 43: NCCL's socket to a veth's link-local address, no algorithm (blind batch tb007, tb010)
    "nccl-socket-connect-virtual": BANNER + "Last error:\nsocketStartConnect: Connect to "
                                   "fe80::a849:bbff:fe73:19bd%veth8299cd8<54785> failed : Software caused connection "
                                   "abort\n",
    "nccl-no-algorithm": BANNER + "node1:41367:41367 [1] enqueue.cc:422 NCCL WARN Error : no algorithm/protocol "
                         "available\n",
})


EXAMPLES.update({  # session 43: Kubernetes scheduling (blind batch ta007)
    "k8s-failed-scheduling": BANNER + "  Warning  FailedScheduling   <unknown>   default-scheduler   0/41 nodes are "
                             "available: 2 Insufficient pods, 35 Insufficient cpu, 4 Insufficient memory.\n",
    "k8s-no-scale-up": BANNER + "  Normal   NotTriggerScaleUp  12m (x3 over 14m)     cluster-autoscaler  pod didn't "
                       "trigger scale-up (it wouldn't fit if a new node is added): 1 Insufficient nvidia.com/gpu\n",
})


EXAMPLES.update({  # session 43: a client's 404 (blind batch vy005)
    "http-client-404": BANNER + "  rep 1 FAILED: HTTP Error 404: Not Found\n",
})


EXAMPLES.update({  # session 43: the autoscaler's node group at its maximum (break-it 29 G7)
    "k8s-no-scale-up-max-size": BANNER + "  Normal   NotTriggerScaleUp  2m58s (x30 over 8m)  cluster-autoscaler  pod "
                                "didn't trigger scale-up (it wouldn't fit if a new node is added): 1 max node group size "
                                "reached\n",
})
