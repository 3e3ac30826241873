"""Session 39j: break-it review 20's misreadings of the rules of s39e/s39f/s39i (its probes quoted inline, each
named by its source in the docstring), and the neighbouring real outputs those rules were built for."""

from __future__ import annotations

from grader.diagnoses import diagnose_text
from grader.explain import explain
from tests.conftest import field_entry as corpus, levels, messages, said_in_all as _said, worst_level as _worst


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


# ------------------------------------------------------------------ free: the step between, in order; ssh's target

def _free(shared: int, used: int = 20) -> str:
    return ("               total        used        free      shared  buff/cache   available\n"
            f"Mem:             225          {used}         100          {shared}          85         136\n"
            "Swap:              7           0           7\n")


_SLEEP = ("user@gpu-node:~$ free -g\n" + _free(0) + "user@gpu-node:~$ curl -X POST 'localhost:8000/sleep?level=1'\n"
          "user@gpu-node:~$ free -g\n" + _free(49) + "user@gpu-node:~$ free -g\n" + _free(49, 19))


def test_shared_memory_after_sleep_is_the_design_and_a_kill_after_the_last_free_proves_nothing():
    """vLLM's sleep mode (docs: level 1 offloads the weights to CPU memory): free -g, POST /sleep?level=1, free -g twice,
    then `kill %1` and bash's `[1]+ Terminated` line after the last free: the rise is /sleep's, by design, and nothing
    between the outputs was meant to release it. vllm#16663's shape (corpus t005, /wake_up between: still held) warns."""
    kill = _SLEEP + ("user@gpu-node:~$ kill %1\n"
                     "[1]+  Terminated              vllm serve meta-llama/Llama-3.1-8B-Instruct --enable-sleep-mode\n")
    for text in (_SLEEP, kill):
        sections = [s for s in explain(text, host="other") if s.kind == "free"]
        said = messages(sections[-1], "info")
        assert "warn" not in levels(sections[-1]) and "by design" in said and "rose from 0 MiB to 49.0 GiB" in said
    woke = _SLEEP.replace("user@gpu-node:~$ free -g\n" + _free(49) + "user@gpu-node:~$ free -g\n",
                          "user@gpu-node:~$ free -g\n" + _free(49)
                          + "user@gpu-node:~$ curl -X POST localhost:8000/wake_up\nuser@gpu-node:~$ free -g\n", 1)
    sections = [s for s in explain(woke, host="other") if s.kind == "free"]
    assert "the step between was meant to release it" in messages(sections[-1], "warn")
    t005 = [s for s in explain(corpus("t005"), host="other", nodes=1) if s.kind == "free"]
    assert "rose from 21 MiB to 49.0 GiB" in messages(t005[-1], "warn")


def _spark(shared: int, used: int = 20) -> str:
    return ("               total        used        free      shared  buff/cache   available\n"
            f"Mem:             119          {used}          40          {shared}          60          98\n"
            "Swap:              15           0          15\n")


def test_free_over_ssh_is_the_ssh_targets_output_whatever_the_prompt():
    """`user@spark1:~$ ssh admin@spark2 free -g` (and `ssh -i ~/.ssh/key -l admin -p 22 -o BatchMode=yes spark2 free
    -g`): spark2's figures, not spark1's; spark1's 1 GiB of shared against spark2's 50 GiB is two machines, not a rise."""
    for ssh in ("ssh admin@spark2", "ssh -i ~/.ssh/spark_ed25519 -l admin spark2",
                "ssh -p 2222 -o BatchMode=yes spark2"):
        text = ("user@spark1:~$ free -g\n" + _spark(1) + f"user@spark1:~$ {ssh} free -g\n" + _spark(50)
                + f"user@spark1:~$ {ssh} docker stop vllm\nvllm\n" + f"user@spark1:~$ {ssh} free -g\n" + _spark(50, 19))
        sections = explain(text, host="spark", nodes=2)
        assert "rose from" not in _said(sections) and _worst(sections) != "warn", ssh
    # one machine reached over ssh three times, a stop between: the warning stays
    one = ("user@spark1:~$ ssh spark2 free -g\n" + _spark(1) + "user@spark1:~$ ssh spark2 free -g\n" + _spark(50)
           + "user@spark1:~$ ssh spark2 docker stop vllm\nvllm\nuser@spark1:~$ ssh spark2 free -g\n" + _spark(50, 19))
    assert "the step between was meant to release it" in _said(explain(one, host="spark", nodes=2), "warn")


# ------------------------------------------------------------------ Open MPI: a LAN in 172.17/16 is not docker0

_MPI_LAB = """\
$ ip -br addr
lo               UNKNOWN        127.0.0.1/8 ::1/128
eno1             UP             172.17.4.21/16 fe80::3eec:efff:fe0a:1b2c/64
$ mpirun -np 2 -H 172.17.4.21,172.17.4.22 --mca btl_tcp_if_include eno1 ./hello_mpi
[node21][[40311,1],0][btl_tcp_endpoint.c:626:mca_btl_tcp_endpoint_complete_connect] connect() to 172.17.4.22 failed: No route to host (113)
"""


def test_open_mpi_connect_to_a_172_17_lan_address_is_no_docker_bridge():
    """Open MPI's btl_tcp_endpoint.c (`connect() to <addr> failed: No route to host (113)`): where the paste's own eno1
    holds 172.17.4.21/16 (a LAN in 172.16/12) or btl_tcp_if_include already names eno1, the peer did not answer on
    that network (a firewall's reject, the peer down): still a fail, no docker0. horovod#310 (pending wl012: docker0
    holds 172.17.0.1 in its ifconfig) keeps the docker0 reading."""
    for text in (_MPI_LAB, _MPI_LAB.replace("eno1             UP             172.17.4.21/16", "eno1  UP  10.0.0.5/24"),
                 "eno1: flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 1500\n        inet 172.17.4.21  netmask "
                 "255.255.0.0\n" + _MPI_LAB.split("\n", 3)[3]):
        [d] = [d for d in diagnose_text(text) if "connect() to" in d.message]
        said = d.message + " " + d.fix
        assert d.severity == "fail" and "docker0" not in said and "eno1" in said and "firewall" in said, text
    [d] = [d for d in diagnose_text(corpus("wl012")) if "connect() to" in d.message]
    assert "Docker's default bridge (docker0)" in d.message and "btl_tcp_if_exclude lo,docker0" in d.fix
    bare = _MPI_LAB.split("\n", 3)[3].replace("--mca btl_tcp_if_include eno1 ", "")
    [d] = [d for d in diagnose_text(bare) if "connect() to" in d.message]
    assert "docker0" in d.message


# ------------------------------------------------------------------ topo: NICs on one socket, GPUs joined by NVLink

_TOPO_NV = """\
$ nvidia-smi topo -m
\tGPU0\tGPU1\tGPU2\tGPU3\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID
GPU0\t X \tNV12\tNV12\tNV12\tPXB\tPXB\t0-31,64-95\t0\t\tN/A
GPU1\tNV12\t X \tNV12\tNV12\tPXB\tPXB\t0-31,64-95\t0\t\tN/A
GPU2\tNV12\tNV12\t X \tNV12\tSYS\tSYS\t32-63,96-127\t1\t\tN/A
GPU3\tNV12\tNV12\tNV12\t X \tSYS\tSYS\t32-63,96-127\t1\t\tN/A
NIC0\tPXB\tPXB\tSYS\tSYS\t X \tPIX\t\t\t\t
NIC1\tPXB\tPXB\tSYS\tSYS\tPIX\t X \t\t\t\t

NIC Legend:

  NIC0: mlx5_0
  NIC1: mlx5_1
"""


def test_nics_on_one_socket_reached_over_nvlink_by_the_far_gpus_is_pxn_not_a_sys_path():
    """NCCL 2.12 release notes (PXN: a GPU sends through a NIC of another GPU it reaches over NVLink, on by default):
    4 SXM GPUs NV12 to each other, both NIC ports PXB to GPU0/GPU1 and SYS to GPU2/GPU3: their data goes over NVLink to
    GPU0/1 and out with GDR, a note. The same matrix over PCIe only (PIX between GPUs) keeps the warning, and so does
    nccl#634 (corpus wl005: the relay GPUs NODE from the HCAs)."""
    said = explain(_TOPO_NV, host="other", nodes=2)
    assert _worst(said) == "info" and "PXN" in _said(said, "info") and "GPU2-GPU0 NV12" in _said(said, "info")
    pcie = explain(_TOPO_NV.replace("NV12", "SYS"), host="other", nodes=2)
    assert "All 2 NICs sit on one CPU socket" in _said(pcie, "warn")
    assert "All 4 NICs sit on one CPU socket" in _said(explain(corpus("wl005"), host="other", nodes=1), "warn")


# ------------------------------------------------------------------ collect_env: torch's own capability warning

_COLLECT_SM121 = """\
$ python -m torch.utils.collect_env
/home/user/venv/lib/python3.12/site-packages/torch/cuda/__init__.py:287: UserWarning: 
NVIDIA GB10 with CUDA capability sm_121 is not compatible with the current PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.
If you want to use the NVIDIA GB10 GPU with PyTorch, please check the instructions at https://pytorch.org/get-started/locally/

  warnings.warn(
Collecting environment information...
PyTorch version: 2.7.1+cu126
Is debug build: False
CUDA used to build PyTorch: 12.6
ROCM used to build PyTorch: N/A

OS: Ubuntu 24.04.3 LTS (aarch64)
Python version: 3.12.3 (main, Aug 14 2025, 17:47:21) [GCC 13.3.0] (64-bit runtime)
Is CUDA available: True
CUDA runtime version: 13.0.88
GPU models and configuration: GPU 0: NVIDIA GB10
Nvidia driver version: 580.95.05
"""


def test_collect_env_under_torchs_own_capability_warning_is_no_healthy_report():
    """torch/cuda/__init__.py's _check_capability warning (`NVIDIA GB10 with CUDA capability sm_121 is not compatible
    with the current PyTorch installation. The current PyTorch install supports CUDA capabilities sm_50 ... sm_90.`)
    above a collect_env whose `Is CUDA available` is True: a fail naming the architecture, no healthy note. Without the
    warning (vllm#36835, corpus-style healthy Spark report), the healthy note stays."""
    said = explain(_COLLECT_SM121, host="spark")
    assert _worst(said) == "fail" and "sm_121" in _said(said, "fail") and "no kernel image" in _said(said, "fail")
    assert "Nothing wrong" not in _said(said) and "PyTorch's environment report" in _said(said)
    healthy = _COLLECT_SM121.replace("NVIDIA GB10 with CUDA capability sm_121 is not compatible with the current "
                                     "PyTorch installation.\nThe current PyTorch install supports CUDA capabilities "
                                     "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\n", "")
    assert "Nothing wrong in what this report shows" in _said(explain(healthy, host="spark"))


def test_ngc_banner_with_the_gpu_listed_inside_the_container_is_a_note():
    """NVIDIA/nvidia-docker#1548 (WSL2): `docker run --gpus all ... nvcr.io/nvidia/tensorflow:20.03-tf2-py3 nvidia-smi`,
    the NGC banner's `WARNING: The NVIDIA Driver was not detected.` and then nvidia-smi inside listing GPU0: s39i's
    ngc-container-no-driver-gpu-shown reads it (a note), no fail (break-it 20's probe ran before s39i merged)."""
    text = ("$ docker run --gpus all --rm nvcr.io/nvidia/tensorflow:20.03-tf2-py3 nvidia-smi\n\n"
            "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n"
            "   Use 'nvidia-docker run' to start this container; see\n\n"
            "+-----------------------------------------------------------------------------+\n"
            "| NVIDIA-SMI 510.06       Driver Version: 510.06       CUDA Version: 11.6     |\n"
            "|-------------------------------+----------------------+----------------------+\n"
            "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
            "|===============================+======================+======================|\n"
            "|   0  NVIDIA GeForce ...  On   | 00000000:01:00.0  On |                  N/A |\n"
            "| 30%   41C    P8    15W / 220W |    921MiB /  8192MiB |      4%      Default |\n"
            "+-------------------------------+----------------------+----------------------+\n")
    said = explain(text, host="other")
    assert _worst(said) == "info" and "false alarm" in _said(said, "info")


# ------------------------------------------------------------------ HTTP 503 / 404 answered on the same route later

_LOADED = '(APIServer pid=1) INFO:     Application startup complete.\n'
_POST = '(APIServer pid=1) INFO:     172.18.0.5:{} - "POST /v1/chat/completions HTTP/1.1" {}\n'
_HTTPX = 'INFO:httpx:HTTP Request: POST http://10.0.0.5:8000/v1/chat/completions "HTTP/1.1 {}"\n'


def test_a_503_retried_or_answered_200_later_on_the_same_route_is_a_note():
    """RFC 9110 §15.6.4; the openai SDK (https://github.com/openai/openai-python: 5xx retried twice by default, logged
    `Retrying request to /chat/completions in 0.428000 seconds`): a 503 then the retry's 200 succeeded; a vLLM access
    log with one 503 first and four 200s to the same route: a start-up race. The retried one is a note. gpustack#1677's
    load test (503s among 200s, corpus-style: 200, 503, 200) and a retry that ends on 503 stay fails; the early 503s
    not retried failed (a warn, naming the start-up race)."""
    retried = _HTTPX.format("503 Service Unavailable") + (
        "INFO:openai._base_client:Retrying request to /chat/completions in 0.428000 seconds\n") + _HTTPX.format("200 OK")
    early = _POST.format(40212, "503 Service Unavailable") + "".join(
        _POST.format(40214 + i, "200 OK") for i in range(4))
    said = explain(retried, host="other", nodes=2)
    assert _worst(said) == "info" and "turned away 1 inference request(s)" in _said(said, "info")
    said = explain(early, host="other", nodes=2)  # (those requests failed, the server did not stay down: a warn)
    assert _worst(said) == "warn" and "a start-up race" in _said(said, "warn") and "1 request(s) failed" in _said(said)
    mixed = _LOADED + _POST.format(1, "200 OK") + _POST.format(2, "503 Service Unavailable") + _POST.format(3, "200 OK")
    ended = retried.replace("200 OK", "503 Service Unavailable")
    for text in (mixed, ended):
        assert "http-503-from-server" in [d.kind for d in diagnose_text(text)]
        assert [d.severity for d in diagnose_text(text) if d.kind == "http-503-from-server"] == ["fail"], text


def test_a_404_corrected_later_in_the_paste_is_a_note():
    """A vLLM access log: `"POST /v1/chat/completions HTTP/1.1" 404 Not Found`, then `GET /v1/models` 200 and two
    POSTs 200 to the same route (the model name corrected): a note. tomdoerr/llm's clients asking for another model
    throughout (pending wn005) keep the warn."""
    text = (_LOADED + _POST.format(40212, "404 Not Found")
            + '(APIServer pid=1) INFO:     127.0.0.1:40300 - "GET /v1/models HTTP/1.1" 200 OK\n'
            + _POST.format(40314, "200 OK") + _POST.format(40320, "200 OK"))
    said = explain(text, host="other", nodes=2)
    assert _worst(said) == "info" and "succeeded after it" in _said(said, "info")
    assert [d.severity for d in diagnose_text(_POST.format(1, "404 Not Found"))] == ["warn"]
    assert "warn" in [lv for s in explain(corpus("wn005"), host="spark", nodes=2) for lv in levels(s)]


# ------------------------------------------------------------------ bash's job lines; a compound `free` command line

def test_bashs_job_line_after_a_redirected_command_leaves_the_redirect_note():
    """bash's job control: an interactive shell prints `[1] 48211` for every command sent to the background, and
    `[1]+  Terminated  vllm serve ...` when it ends: neither is the command's output. `nohup vllm serve ... > vllm.log
    2>&1 &` then `tail -n 4 vllm.log`: the redirect note, no unreadable vllm-log section."""
    text = ("$ nohup vllm serve Qwen/Qwen3-8B --port 8000 > vllm.log 2>&1 &\n[1] 48211\n$ tail -n 4 vllm.log\n"
            "(APIServer pid=48211) INFO:     Started server process [48211]\n"
            "(APIServer pid=48211) INFO:     Application startup complete.\n")
    said = explain(text, host="other", nodes=2)
    assert not any(s.error for s in said) and "sends its output to vllm.log" in _said(said)
    assert "could not read" not in _said(said)
    done = "$ kill %1\n[1]+  Terminated              vllm serve meta-llama/Llama-3.1-8B-Instruct --enable-sleep-mode\n"
    assert not any(s.error for s in explain(_SLEEP + done, host="other"))


def test_free_in_a_compound_command_line_keeps_its_unit_flag():
    """`sleep 60; free -g` (procps free: -g shows GiB): 136 of 225 GiB available, not `0.0 GiB of 0.0 GiB`."""
    text = "$ sleep 60; free -g\n" + _free(49)
    assert "136.0 GiB of 225.0 GiB" in _said(explain(text, host="other"))
    assert "136.0 GiB of 225.0 GiB" in _said(explain("$ free -g && sleep 1\n" + _free(49), host="other"))
