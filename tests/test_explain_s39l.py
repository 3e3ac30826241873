"""Session 39l: break-it review 21's misreadings of rules added in s39j (its probes quoted inline, each named by its
source in the docstring), and the neighbouring real outputs those rules were built for."""

from __future__ import annotations

from grader.diagnoses import diagnose_text
from grader.explain import explain
from tests.conftest import said_in_all as _said, worst_level as _worst


_P01 = (
    '$ docker run --rm -v ~/models:/models ghcr.io/ggml-org/llama.cpp:full-cuda --run -m /models/Qwen2.5-7B-Instruct-Q4_K_M.gguf -ngl 99 -p "hello" -n 16\n'
    'ggml_cuda_init: failed to initialize CUDA: no CUDA-capable device is detected\n'
    'load_backend: loaded CUDA backend from /app/libggml-cuda.so\n'
    'load_backend: loaded CPU backend from /app/libggml-cpu-haswell.so\n'
    'warning: no usable GPU found, --gpu-layers option will be ignored\n'
    'warning: one possible reason is that llama.cpp was compiled without GPU support\n'
    'warning: consult docs/build.md for compilation instructions\n'
    'build: 4970 (ef19c717) with cc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0 for x86_64-linux-gnu\n'
    'main: llama backend init\n'
    'main: load the model and apply lora adapter, if any\n'
    'llama_model_loader: loaded meta data with 38 key-value pairs and 339 tensors from /models/Qwen2.5-7B-Instruct-Q4_K_M.gguf (version GGUF V3 (latest))\n'
    'print_info: file format = GGUF V3 (latest)\n'
    'print_info: file type   = Q4_K - Medium\n'
    'print_info: file size   = 4.36 GiB (4.91 BPW)\n'
    'load_tensors: loading model tensors, this can take a while... (mmap = true)\n'
    'load_tensors:   CPU_Mapped model buffer size =  4460.45 MiB\n'
    'llama_context: n_ctx         = 4096\n'
    'llama_context:        CPU  output buffer size =     0.58 MiB\n'
    'llama_kv_cache_unified:        CPU KV buffer size =   224.00 MiB\n'
    'llama_kv_cache_unified: size =  224.00 MiB (  4096 cells,  28 layers,  1/1 seqs), K (f16):  112.00 MiB, V (f16):  112.00 MiB\n'
    'llama_context:        CPU compute buffer size =   304.00 MiB\n'
    'llama_context: graph nodes  = 1042\n'
    'llama_context: graph splits = 1\n'
)
_P02 = (
    'user@gpu01:~/llama.cpp$ ./build/bin/llama-cli -m ~/models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf -ngl 99 -p "hello" -n 16 -no-cnv\n'
    'ggml_cuda_init: failed to initialize CUDA: CUDA driver version is insufficient for CUDA runtime version\n'
    'warning: no usable GPU found, --gpu-layers option will be ignored\n'
    'warning: one possible reason is that llama.cpp was compiled without GPU support\n'
    'warning: consult docs/build.md for compilation instructions\n'
    'build: 5120 (a4e46e28) with cc (Ubuntu 13.3.0-6ubuntu2~24.04) 13.3.0 for x86_64-linux-gnu\n'
    'main: llama backend init\n'
    'main: load the model and apply lora adapter, if any\n'
    'llama_model_loader: loaded meta data with 33 key-value pairs and 292 tensors from /home/user/models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf (version GGUF V3 (latest))\n'
    'print_info: file format = GGUF V3 (latest)\n'
    'print_info: file type   = Q4_K - Medium\n'
    'print_info: file size   = 4.58 GiB (4.89 BPW)\n'
    'load_tensors: loading model tensors, this can take a while... (mmap = true)\n'
    'load_tensors:   CPU_Mapped model buffer size =  4685.30 MiB\n'
    'llama_context: n_ctx         = 4096\n'
    'llama_context:        CPU  output buffer size =     0.49 MiB\n'
    'llama_kv_cache_unified:        CPU KV buffer size =   512.00 MiB\n'
    'llama_kv_cache_unified: size =  512.00 MiB (  4096 cells,  32 layers,  1/1 seqs), K (f16):  256.00 MiB, V (f16):  256.00 MiB\n'
    'llama_context:        CPU compute buffer size =   296.01 MiB\n'
    'llama_context: graph nodes  = 1094\n'
    'llama_context: graph splits = 1\n'
)
_P03 = (
    'root@4f2a9c1e7b3d:/workspace# ip addr\n'
    '1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000\n'
    '    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n'
    '    inet 127.0.0.1/8 scope host lo\n'
    '       valid_lft forever preferred_lft forever\n'
    '23: eth0@if24: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP group default\n'
    '    link/ether 02:42:ac:11:00:02 brd ff:ff:ff:ff:ff:ff link-netnsid 0\n'
    '    inet 172.17.0.2/16 brd 172.17.255.255 scope global eth0\n'
    '       valid_lft forever preferred_lft forever\n'
    'root@4f2a9c1e7b3d:/workspace# horovodrun -np 2 -H 10.0.0.11:1,10.0.0.12:1 -p 12345 python train.py\n'
    '[1,0]<stderr>:[4f2a9c1e7b3d][[40163,1],0][btl_tcp_endpoint.c:626:mca_btl_tcp_endpoint_recv_connect_ack] received unexpected process identifier [[40163,1],1]\n'
    '[4f2a9c1e7b3d][[40163,1],1][btl_tcp_endpoint.c:803:mca_btl_tcp_endpoint_complete_connect] connect() to 172.17.0.2 failed: Connection refused (111)\n'
)
_P17 = (
    'root@a81c2f0d9e44:/examples# mpirun --allow-run-as-root -np 2 -H 10.0.0.11:1,10.0.0.12:1 -bind-to none -map-by slot -x NCCL_DEBUG=INFO -mca pml ob1 -mca btl ^openib -mca btl_tcp_if_include eth0 python tensorflow2_mnist.py\n'
    '[a81c2f0d9e44][[51822,1],1][btl_tcp_endpoint.c:803:mca_btl_tcp_endpoint_complete_connect] connect() to 172.17.0.2 failed: Connection refused (111)\n'
)
_P06 = (
    '(venv) user@ws01:~$ python -c "import torch; print(torch.__version__); torch.zeros(1).cuda()"\n'
    '2.2.2+cu121\n'
    '/home/user/venv/lib/python3.10/site-packages/torch/cuda/__init__.py:209: UserWarning:\n'
    'NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n'
    'The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\n'
    'If you want to use the NVIDIA GeForce RTX 5090 GPU with PyTorch, please check the instructions at https://pytorch.org/get-started/locally/\n'
    '\n'
    '  warnings.warn(\n'
    '(venv) user@ws01:~$ pip install --upgrade torch --index-url https://download.pytorch.org/whl/cu128\n'
    'Successfully installed torch-2.7.0+cu128\n'
    '(venv) user@ws01:~$ python -m torch.utils.collect_env\n'
    'Collecting environment information...\n'
    'PyTorch version: 2.7.0+cu128\n'
    'Is debug build: False\n'
    'CUDA used to build PyTorch: 12.8\n'
    'ROCM used to build PyTorch: N/A\n'
    '\n'
    'OS: Ubuntu 22.04.4 LTS (x86_64)\n'
    'GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0\n'
    'Clang version: Could not collect\n'
    'CMake version: version 3.22.1\n'
    'Libc version: glibc-2.35\n'
    '\n'
    'Python version: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)\n'
    'Python platform: Linux-6.8.0-57-generic-x86_64-with-glibc2.35\n'
    'Is CUDA available: True\n'
    'CUDA runtime version: 12.8.93\n'
    'CUDA_MODULE_LOADING set to: LAZY\n'
    'GPU models and configuration: GPU 0: NVIDIA GeForce RTX 5090\n'
    'Nvidia driver version: 570.124.06\n'
    'cuDNN version: Could not collect\n'
    'HIP runtime version: N/A\n'
    'MIOpen runtime version: N/A\n'
    'Is XNNPACK available: True\n'
    '\n'
    'Versions of relevant libraries:\n'
    '[pip3] numpy==2.1.2\n'
    '[pip3] nvidia-nccl-cu12==2.26.2\n'
    '[pip3] torch==2.7.0+cu128\n'
    '[conda] Could not collect\n'
)
_P10 = (
    '$ python bench_client.py --base-url http://spark1:8000/v1 --concurrency 2 --requests 2\n'
    '2025-11-03 14:02:11,402 INFO httpx: HTTP Request: POST http://spark1:8000/v1/chat/completions "HTTP/1.1 503 Service Unavailable"\n'
    '2025-11-03 14:02:11,405 INFO httpx: HTTP Request: POST http://spark1:8000/v1/chat/completions "HTTP/1.1 503 Service Unavailable"\n'
    '2025-11-03 14:02:11,406 INFO openai._base_client: Retrying request to /chat/completions in 0.428091 seconds\n'
    '2025-11-03 14:02:11,407 INFO openai._base_client: Retrying request to /chat/completions in 0.391733 seconds\n'
    '2025-11-03 14:02:14,950 INFO httpx: HTTP Request: POST http://spark1:8000/v1/chat/completions "HTTP/1.1 200 OK"\n'
    '2025-11-03 14:02:15,113 INFO httpx: HTTP Request: POST http://spark1:8000/v1/chat/completions "HTTP/1.1 200 OK"\n'
    'done: 2/2 requests succeeded, mean latency 3.62 s\n'
)
_P12 = (
    '$ python check_servers.py --model openai/gpt-oss-120b --hosts spark2,spark1\n'
    '2025-11-03 15:20:01,118 INFO httpx: HTTP Request: POST http://spark2:8000/v1/chat/completions "HTTP/1.1 404 Not Found"\n'
    '2025-11-03 15:20:03,540 INFO httpx: HTTP Request: POST http://spark1:8000/v1/chat/completions "HTTP/1.1 200 OK"\n'
    'spark2: FAILED (404)\n'
    'spark1: OK (1.9 s)\n'
)
_P07 = (
    'user@spark1:~$ free -g\n'
    '               total        used        free      shared  buff/cache   available\n'
    'Mem:             119          71           3           0          45          48\n'
    'Swap:             15           0          15\n'
    "user@spark1:~$ curl -X POST 'http://localhost:8000/sleep?level=1'\n"
    "user@spark1:~$ curl -X POST 'http://localhost:8000/wake_up'\n"
    'user@spark1:~$ free -g\n'
    '               total        used        free      shared  buff/cache   available\n'
    'Mem:             119          88           2          31          60          30\n'
    'Swap:             15           0          15\n'
    'user@spark1:~$ sleep 60; free -g\n'
    '               total        used        free      shared  buff/cache   available\n'
    'Mem:             119          88           2          31          60          30\n'
    'Swap:             15           0          15\n'
)
_P13 = (
    'user@node1:~$ nvidia-smi topo -m\n'
    '\tGPU0\tGPU1\tGPU2\tGPU3\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n'
    'GPU0\t X \tNV12\tNV12\tNV12\tPXB\tPXB\t0-31,64-95\t0\t\tN/A\n'
    'GPU1\tNV12\t X \tNV12\tNV12\tPXB\tPXB\t0-31,64-95\t0\t\tN/A\n'
    'GPU2\tNV12\tNV12\t X \tNV12\tSYS\tSYS\t32-63,96-127\t1\t\tN/A\n'
    'GPU3\tNV12\tNV12\tNV12\t X \tSYS\tSYS\t32-63,96-127\t1\t\tN/A\n'
    'NIC0\tPXB\tPXB\tSYS\tSYS\t X \tPIX\t\t\t\t\n'
    'NIC1\tPXB\tPXB\tSYS\tSYS\tPIX\t X \t\t\t\t\n'
    '\n'
    'NIC Legend:\n'
    '\n'
    '  NIC0: mlx5_0\n'
    '  NIC1: mlx5_1\n'
    'user@node1:~$ NCCL_DEBUG=INFO NCCL_PXN_DISABLE=1 mpirun -np 8 -H node1:4,node2:4 -x NCCL_DEBUG -x NCCL_PXN_DISABLE ./build/all_reduce_perf -b 8 -e 1G -f 2 -g 1\n'
    'node1:12001:12001 [0] NCCL INFO Bootstrap : Using ens1f0:10.0.0.11<0>\n'
    'node1:12001:12001 [0] NCCL INFO NCCL version 2.10.3+cuda11.4\n'
    'node1:12001:12040 [0] NCCL INFO NCCL_PXN_DISABLE set by environment to 1.\n'
    'node1:12001:12040 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ens1f0:10.0.0.11<0>\n'
    'node1:12003:12042 [2] NCCL INFO Channel 00 : 6[c1000] -> 2[c1000] [receive] via NET/IB/0\n'
    'node1:12003:12042 [2] NCCL INFO Channel 00 : 2[c1000] -> 6[c1000] [send] via NET/IB/0\n'
)
_P08 = (
    'user@spark1:~$ python -m ray.scripts.symmetric_run --address 192.168.100.10:6379 --wait-for-nnodes 2 -- vllm serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 2 --distributed-executor-backend ray\n'
    'On head node. Starting Ray cluster head...\n'
    'Head node started.\n'
    '=======================\n'
    'Waiting for nodes to start... 1/2 nodes started\n'
    'Waiting for nodes to start... 1/2 nodes started\n'
    'Waiting for nodes to start... 1/2 nodes started\n'
    'Waiting for nodes to start... 1/2 nodes started\n'
    '^CStopping Ray...\n'
    'user@spark1:~$ vllm serve Qwen/Qwen3-30B-A3B --max-model-len 8192\n'
    'INFO 09-30 11:02:11 [__init__.py:216] Automatically detected platform cuda.\n'
    '(APIServer pid=51234) INFO 09-30 11:02:14 [api_server.py:1896] vLLM API server version 0.11.0\n'
    "(APIServer pid=51234) INFO 09-30 11:02:14 [utils.py:233] non-default args: {'model': 'Qwen/Qwen3-30B-A3B', 'max_model_len': 8192}\n"
    '(APIServer pid=51234) INFO 09-30 11:04:40 [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8000\n'
    '(APIServer pid=51234) INFO:     Started server process [51234]\n'
    '(APIServer pid=51234) INFO:     Waiting for application startup.\n'
    '(APIServer pid=51234) INFO:     Application startup complete.\n'
)
_P08B = (
    'user@spark1:~$ python -m ray.scripts.symmetric_run --address 192.168.100.10:6379 --wait-for-nnodes 2 -- vllm serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 2 --distributed-executor-backend ray\n'
    'On head node. Starting Ray cluster head...\n'
    'Head node started.\n'
    '=======================\n'
    'Waiting for nodes to start... 1/2 nodes started\n'
    'Waiting for nodes to start... 1/2 nodes started\n'
    'Waiting for nodes to start... 1/2 nodes started\n'
    'Waiting for nodes to start... 1/2 nodes started\n'
)
_P05 = (
    'user@gpu01:~$ vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 &\n'
    '[1] 48211\n'
    'user@gpu01:~$ INFO 05-12 10:14:02 [__init__.py:239] Automatically detected platform cuda.\n'
    'INFO 05-12 10:14:05 [api_server.py:1043] vLLM API server version 0.8.5\n'
    "INFO 05-12 10:14:05 [api_server.py:1044] args: Namespace(model='meta-llama/Llama-3.1-8B-Instruct', max_model_len=8192)\n"
    "INFO 05-12 10:14:14 [config.py:717] This model supports multiple tasks: {'generate', 'embed', 'classify', 'score', 'reward'}. Defaulting to 'generate'.\n"
    "INFO 05-12 10:14:15 [core.py:58] Initializing a V1 LLM engine (v0.8.5) with config: model='meta-llama/Llama-3.1-8B-Instruct'\n"
    'INFO 05-12 10:14:17 [gpu_model_runner.py:1329] Starting to load model meta-llama/Llama-3.1-8B-Instruct...\n'
    "INFO 05-12 10:14:18 [weight_utils.py:265] Using model weights format ['*.safetensors']\n"
    'Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]\n'
    'Loading safetensors checkpoint shards:  25% Completed | 1/4 [00:01<00:04,  1.49s/it]\n'
    'Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:03<00:03,  1.61s/it]\n'
    '\n'
    '[1]+  Killed                  vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\n'
    'user@gpu01:~$\n'
)


# ---------------------------------------------------------------- llama.cpp: a CUDA build that could not start CUDA

def test_llama_cpp_cuda_build_that_could_not_start_cuda_names_the_driver_not_the_build():
    """llama.cpp ggml/src/ggml-cuda/ggml-cuda.cpp: `ggml_cuda_init: failed to initialize CUDA: %s` (cudaGetErrorString),
    printed only by a build WITH the CUDA backend; common/arg.cpp's `no usable GPU found` follows whatever the reason.
    `CUDA driver version is insufficient for CUDA runtime version`: the driver is older than the toolkit; `no
    CUDA-capable device is detected` in ghcr.io/ggml-org/llama.cpp:full-cuda: a container without `--gpus all`."""
    said = _said(explain(_P02, host="other"), "warn")
    assert "driver" in said and "insufficient" in said and "GGML_CUDA" not in said and "Rebuild" not in said
    said = _said(explain(_P01, host="other", kind="llama-log"), "warn")
    assert "--gpus all" in said and "no CUDA-capable device" in said and "GGML_CUDA" not in said
    bare = _P01.replace("ggml_cuda_init: failed to initialize CUDA: no CUDA-capable device is detected\n", "")
    said = _said(explain(bare, host="other", kind="llama-log"), "warn")  # the backend loaded: still not the build
    assert "loaded CUDA backend" in said and "GGML_CUDA" not in said


# ---------------------------------------------------------------- Open MPI btl tcp from inside a Docker container

def test_open_mpi_in_a_container_dialling_its_own_eth0_is_dockers_bridge_not_a_lan():
    """Open MPI's btl_tcp_endpoint.c `connect() to 172.17.0.2 failed: Connection refused (111)` from a rank inside a
    Docker container (eth0@if24, MAC 02:42:ac:11:00:02, prompt root@<12-hex id>): Docker's default bridge, each host's
    container holds 172.17.0.2 (https://github.com/horovod/horovod/issues/310 shape): --network host, not a firewall."""
    for text in (_P03, _P17):
        [d] = [d for d in diagnose_text(text) if "connect() to" in d.message]
        said = d.message + " " + d.fix
        assert d.severity == "fail" and "--network host" in said and "firewall" not in said, text
    # the address is the rank's own eth0's, with no other container sign: still the container's bridge
    plain = _P03.replace("root@4f2a9c1e7b3d", "root@node1").replace("eth0@if24", "eth0").replace(
        "02:42:ac:11:00:02", "3c:ec:ef:0a:1b:2c").replace("[4f2a9c1e7b3d]", "[node1]")
    [d] = [d for d in diagnose_text(plain) if "connect() to" in d.message]
    assert "--network host" in d.fix and "firewall" not in d.fix
    # the peer's 172.17 LAN address (not this rank's own): the LAN reading stays
    lan = plain.replace("connect() to 172.17.0.2", "connect() to 172.17.0.3")
    [d] = [d for d in diagnose_text(lan) if "connect() to" in d.message]
    assert "firewall" in d.fix and "--network host" not in d.fix


# ---------------------------------------------------------------- collect_env: the arch warning of an older wheel

def test_torch_arch_warning_of_a_wheel_replaced_later_is_not_pinned_on_the_report():
    """torch/cuda/__init__.py _check_capability's `... with CUDA capability sm_120 is not compatible with the current
    PyTorch installation` printed by torch 2.2.2+cu121; the paste then installs torch-2.7.0+cu128 (which has sm_120,
    https://pytorch.org/get-started/locally/) and its collect_env shows it with `Is CUDA available: True`."""
    sections = explain(_P06, host="other")
    assert _worst(sections) == "info" and "not compatible" not in _said(sections)
    uv = _P06.replace("Successfully installed torch-2.7.0+cu128", "Installed 1 package in 2.1s\n + torch==2.7.0+cu128")
    assert _worst(explain(uv, host="other")) == "info"
    before = _P06[:_P06.index("(venv) user@ws01:~$ pip install")] + _P06[_P06.index("(venv) user@ws01:~$ python -m"):]
    said = _said(explain(before, host="other"), "fail")  # no install between: the warning is the report's torch's
    assert "sm_120" in said and "not compatible" in said


# ---------------------------------------------------------------- HTTP 503/404: retries counted, routes per server

def test_concurrent_503s_each_retried_are_a_note():
    """openai-python's _base_client `Retrying request to /chat/completions in 0.43 seconds` once per retried request,
    httpx's `HTTP Request: POST URL "HTTP/1.1 503 Service Unavailable"`: two concurrent requests print both 503s,
    then both retry lines, then both 200s; retried and answered (the note), in either interleaving."""
    said = _said(explain(_P10, host="other"))
    assert "retried" in said and _worst(explain(_P10, host="other")) == "info"
    lines = _P10.splitlines(True)
    mixed = "".join([lines[0], lines[1], lines[3], lines[2], lines[5], lines[4], lines[6], lines[7]])
    assert _worst(explain(mixed, host="other")) == "info"
    one = "".join(lines[:4] + lines[5:])  # two 503s, one retry line: one request was not retried
    assert _worst(explain(one, host="other")) == "warn"


def test_a_404_from_one_server_and_a_200_from_another_is_no_corrected_request():
    """httpx log lines name the URL: the 404 came from spark2, the 200 from spark1 (`spark2: FAILED (404)`): spark2
    does not serve that model or path: a warn, not the note of a request corrected later."""
    sections = explain(_P12, host="spark", nodes=2)
    assert _worst(sections) == "warn" and "404" in _said(sections, "warn")
    same = _P12.replace("http://spark2:8000", "http://spark1:8000")
    assert _worst(explain(same, host="spark", nodes=2)) == "info"


# ---------------------------------------------------------------- free: /sleep then /wake_up before the second free

def test_shared_memory_held_after_sleep_and_wake_up_is_a_warning():
    """vLLM sleep mode (https://github.com/vllm-project/vllm/issues/16663): POST /sleep?level=1 then POST /wake_up,
    then `free` still shows 31 G shared: the release step ran in order and memory stayed: the warn, not the note."""
    said = _said(explain(_P07, host="spark"), "warn")
    assert "wake_up should give them back" in said
    slept = _P07.replace("user@spark1:~$ curl -X POST 'http://localhost:8000/wake_up'\n", "")
    said = _said(explain(slept, host="spark"), "info")
    assert "no /wake_up follows" in said


# ---------------------------------------------------------------- topo: NICs on one socket, PXN off

def test_nics_on_one_socket_without_pxn_keep_the_warning():
    """NCCL 2.12 release notes (PXN, https://docs.nvidia.com/deeplearning/nccl/release-notes/rel_2-12-7.html) and
    NCCL_PXN_DISABLE (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html): with `NCCL version 2.10.3`
    or `NCCL_PXN_DISABLE set by environment to 1` in the paste, GPU2/GPU3's traffic crosses the socket link."""
    assert "NICs sit on one CPU socket" in _said(explain(_P13, host="other", nodes=2), "warn")
    topo = _P13[:_P13.index("user@node1:~$ NCCL_DEBUG")]
    said = _said(explain(topo, host="other", nodes=2), "info")
    assert "NICs sit on one CPU socket" in said and "PXN" in said
    new = _P13.replace("2.10.3+cuda11.4", "2.21.5+cuda12.4")
    assert "NICs sit on one CPU socket" in _said(explain(new, host="other", nodes=2), "warn")  # PXN still disabled
    for text in (new.replace("NCCL_PXN_DISABLE set by environment to 1.", "NCCL_P2P_LEVEL set by environment to NVL.")
                 .replace(" NCCL_PXN_DISABLE=1", "").replace(" -x NCCL_PXN_DISABLE", ""),):
        assert "PXN" in _said(explain(text, host="other", nodes=2), "info")


# ---------------------------------------------------------------- ray symmetric-run: only its own output

def test_symmetric_run_given_up_then_a_single_node_server_keeps_the_warning():
    """Ray's symmetric_run.py polls `Waiting for nodes to start... 1/2 nodes started`; the user stops it (^C) and
    starts a plain `vllm serve` at the next prompt: that server's banner is another command's, the node never
    joined (p08b, the polls alone, warns the same)."""
    for text in (_P08, _P08B):
        assert "counted 1 of 2 Ray nodes" in _said(explain(text, host="spark", nodes=2), "warn"), text
    assert "ray-nodes-still-joining" in [d.kind for d in diagnose_text(_P08)]


# ---------------------------------------------------------------- bash's job lines: Killed, Terminated, Exit N

def test_bash_job_lines_are_read_as_the_jobs_end():
    """bash job control (https://www.gnu.org/software/bash/manual/html_node/Job-Control-Basics.html): `[1]+  Killed
    CMD` (SIGKILL: the OOM killer or kill -9), `[1]+  Terminated  CMD` (SIGTERM: stopped), `[1]+  Exit 1  CMD` (its
    exit code); `[1] 48211` and `Done` stay noise."""
    sections = explain(_P05, host="other")
    assert _worst(sections) == "fail" and "dmesg" in _said(sections, "fail") and "Killed" in _said(sections, "fail")
    job = "[1]+  Killed                  vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192"
    term = _P05.replace(job, job.replace("Killed    ", "Terminated"))
    assert _worst(explain(term, host="other")) != "fail" and "SIGTERM" in _said(explain(term, host="other"))
    ex = _P05.replace(job, job.replace("Killed", "Exit 1"))
    assert "exit code 1" in _said(explain(ex, host="other"), "warn")
    done = _P05.replace(job, job.replace("Killed", "Done  "))
    assert "killed" not in _said(explain(done, host="other")).lower()
    for zsh, kind in (("killed", "process-killed"), ("terminated", "shell-job-terminated"), ("exit 1", "shell-job-exit")):
        assert kind in [d.kind for d in diagnose_text(f"[1]  + 48211 {zsh}     vllm serve Qwen/Qwen3-8B\n")], zsh
    timed = "[1]+  Killed                  timeout -s KILL 60 ./build/all_reduce_perf -b 8 -e 1G -g 2\n"
    assert [d.severity for d in diagnose_text(timed) if d.kind == "process-killed"] == ["info"]
