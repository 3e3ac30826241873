"""vLLM's environment report (grader/parsers/collect_env.py, judged by grader.judges.collect_env): the versions, the
GPUs, the topology matrix inside it and the variables it lists, in both of its layouts, from reports posted on
vllm-project/vllm."""

from __future__ import annotations

import pytest

from grader.explain import explain
from grader.parsers.collect_env import parse_collect_env
from grader.parsers.common import ParseError
from tests.conftest import levels, messages

# https://github.com/vllm-project/vllm/issues/19123 (vLLM 0.8.2's layout, its vLLM Info section, cut in the legend)
VLLM19123 = """==============================
         vLLM Info
==============================
ROCM Version                 : Could not collect
Neuron SDK Version           : N/A
vLLM Version                 : 0.8.2
vLLM Build Flags:
  CUDA Archs: 5.2 6.0 6.1 7.0 7.2 7.5 8.0 8.6 8.7 9.0+PTX; ROCm: Disabled; Neuron: Disabled
GPU Topology:
        GPU0    GPU1    CPU Affinity    NUMA Affinity   GPU NUMA ID
GPU0     X      SYS     0-11,24-35      0               N/A
GPU1    SYS      X      12-23,36-47     1               N/A

Legend:

  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
"""

# https://github.com/vllm-project/vllm/issues/10147 (torch's older layout, `Key: value` without banners; cut)
VLLM10147 = """Collecting environment information...
PyTorch version: 2.5.1+cu118
Is debug build: False
CUDA used to build PyTorch: 11.8
ROCM used to build PyTorch: N/A

OS: Ubuntu 20.04.6 LTS (x86_64)
Python version: 3.10.15 (main, Oct  3 2024, 07:27:34) [GCC 11.2.0] (64-bit runtime)
Is CUDA available: True
CUDA runtime version: 11.8.89
GPU models and configuration: 
GPU 0: Tesla V100S-PCIE-32GB
GPU 1: Tesla V100S-PCIE-32GB
GPU 2: Tesla V100S-PCIE-32GB
"""


def test_the_banner_layout_is_one_report_with_its_topology_judged():
    r = parse_collect_env(VLLM19123)
    assert r.versions["vllm"] == "0.8.2" and r.sections == ("vLLM Info",)
    assert r.topology is not None and r.topology.link("GPU0", "GPU1") == "SYS"
    [s] = explain(VLLM19123, host="other")  # one section: the banners, rows and matrix are the report's
    assert s.kind == "collect-env" and "vLLM 0.8.2" in messages(s, "info")
    assert "different NUMA nodes (GPU0: 0, GPU1: 1)" in messages(s, "warn")  # as `nvidia-smi topo -m` is judged


def test_the_older_layout_gives_versions_and_gpus():
    r = parse_collect_env(VLLM10147)
    assert (r.versions["torch"], r.versions["cuda_built"], r.versions["cuda_runtime"]) == ("2.5.1+cu118", "11.8",
                                                                                           "11.8.89")
    assert r.gpus == ("Tesla V100S-PCIE-32GB",) * 3 and r.topology is None
    [s] = explain(VLLM10147, host="other")
    assert levels(s) == ["info", "info", "info"] and "3 GPU(s): 3 x Tesla V100S-PCIE-32GB." in messages(s)
    assert "Nothing wrong in what this report shows" in messages(s)  # CUDA available, the GPUs seen (session 39e)


def test_one_gpu_on_the_row_itself():
    # https://github.com/vllm-project/vllm/pull/9293: `GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4070 ...`
    r = parse_collect_env("PyTorch version: 2.4.0+cu121\nGPU models and configuration: GPU 0: NVIDIA GeForce RTX 4070 "
                          "Laptop GPU\nNvidia driver version: 551.88\n")
    assert r.gpus == ("NVIDIA GeForce RTX 4070 Laptop GPU",) and r.versions["driver"] == "551.88"


def test_pytorch_without_cuda_beside_listed_gpus_warns():
    text = VLLM10147.replace("Is CUDA available: True", "Is CUDA available: False")
    [s] = explain(text, host="other")
    assert "Is CUDA available: False" in messages(s, "warn")


def test_packages_and_variables_of_the_report():
    text = ("==============================\nVersions of relevant libraries\n==============================\n"
            "[pip3] nvidia-nccl-cu12==2.21.5\n[pip3] torch==2.6.0\n[pip3] vllm==0.8.2\n"
            "==============================\n     Environment Variables\n==============================\n"
            "NCCL_SOCKET_IFNAME=enp1s0f0np0\nCUDA_VISIBLE_DEVICES=0,1\nLD_LIBRARY_PATH=/usr/local/cuda/lib64\n")
    r = parse_collect_env(text)
    assert r.packages["vllm"] == "0.8.2" and r.env["NCCL_SOCKET_IFNAME"] == "enp1s0f0np0"
    [s] = explain(text)
    said = messages(s)
    assert "vLLM 0.8.2, PyTorch 2.6.0; NCCL 2.21.5 (pip)" in said
    assert "NCCL_SOCKET_IFNAME=enp1s0f0np0, CUDA_VISIBLE_DEVICES=0,1." in said and "LD_LIBRARY_PATH" not in said


def test_nothing_of_the_report_is_an_error():
    with pytest.raises(ParseError, match="none of collect_env's rows"):
        parse_collect_env("hello\n")
