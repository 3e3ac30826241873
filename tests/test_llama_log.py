"""llama.cpp's load log and Ollama's offload line (grader.parsers.llama_log, grader.judges.llama): blind batch yz's
real pastes, each shortened to the lines that decide (ggml-org/llama.cpp and ollama/ollama issues, as posted)."""

from __future__ import annotations

import pytest

from grader.explain import explain
from grader.parsers.common import ParseError
from grader.parsers.llama_log import parse_llama_log
from tests.conftest import levels, messages

# yz008 (two RTX 3090s, a 70B model split by layer): every layer on the GPUs, about evenly
TWO_3090 = ("ggml_cuda_init: found 2 CUDA devices:\n"
            "  Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes\n"
            "  Device 1: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes\n"
            "load_tensors: offloading 80 repeating layers to GPU\nload_tensors: offloading output layer to GPU\n"
            "load_tensors: offloaded 81/81 layers to GPU\n"
            "load_tensors:   CPU_Mapped model buffer size =   563.62 MiB\n"
            "load_tensors:        CUDA0 model buffer size = 20038.81 MiB\n"
            "load_tensors:        CUDA1 model buffer size = 19940.67 MiB\n"
            "llama_context:  CUDA_Host  output buffer size =     0.49 MiB\n"
            "llama_kv_cache_unified:      CUDA0 KV buffer size =   328.00 MiB\n"
            "llama_kv_cache_unified:      CUDA1 KV buffer size =   312.00 MiB\n"
            "llama_context:      CUDA0 compute buffer size =   400.00 MiB\n"
            "llama_perf_context_print: prompt eval time =     406.61 ms /    26 tokens (   15.64 ms per token,    63.94 "
            "tokens per second)\n"
            "llama_perf_context_print:        eval time =    5468.27 ms /    95 runs   (   57.56 ms per token,    17.37 "
            "tokens per second)\n")
# yz002 (llama-cli with --rpc, no -ngl): the RPC device found, nothing offloaded
NONE_OFFLOADED = ("$ ./llama-cli -m tinyllama-1.1b-chat-v1.0.Q4_0.gguf -p \"I believe\" -n 1280 --rpc 192.168.13.12:50020\n"
                  "register_backend: registered backend RPC (0 devices)\n"
                  "llama_load_model_from_file: using device RPC[192.168.13.12:50020] (RPC[192.168.13.12:50020]) - 7937 "
                  "MiB free\n"
                  "llm_load_tensors: offloading 0 repeating layers to GPU\nllm_load_tensors: offloaded 0/23 layers to GPU\n"
                  "llm_load_tensors:   CPU_Mapped model buffer size =   606.53 MiB\n"
                  "llama_kv_cache_init:        CPU KV buffer size =    88.00 MiB\n")
# yz005 (Ollama on an 11.5 GiB and a 4.6 GiB card; its offload line wrapped)
OLLAMA = ("time=2025-05-23T17:16:43.377Z level=INFO source=server.go:168 msg=offload library=cuda layers.requested=49 "
          "layers.model=49\n layers.offload=37 layers.split=37,0 memory.available=\"[11.5 GiB 4.6 GiB]\" "
          "memory.gpu_overhead=\"0 B\"\n")


def test_a_full_offload_over_two_cards_is_read_per_device():
    log = parse_llama_log(TWO_3090)
    assert (log.found, log.offloaded, log.layers) == (2, 81, 81) and len(log.devices) == 2
    assert log.mib("model") == {"CPU_Mapped": 563.62, "CUDA0": 20038.81, "CUDA1": 19940.67}
    assert log.mib("KV") == {"CUDA0": 328.0, "CUDA1": 312.0} and (log.prompt_tps, log.eval_tps) == (63.94, 17.37)
    [s] = explain(TWO_3090)  # the GPU list every llama.cpp program prints first: this load log's (session 38h)
    assert s.kind == "llama-log" and "llama.cpp found 2 GPUs" in messages(s, "info")
    assert set(levels(s)) <= {"ok", "info"}  # (20 GB of weights on a 24 GB card: room left, no warn)
    assert "All 81 layers are on the GPU(s) (`offloaded 81/81`): weights CUDA0 19.6 GiB, CUDA1 19.5 GiB." in messages(
        s, "ok")
    assert "Speed printed: prompt 63.94 tokens/s, generation 17.37 tokens/s." in messages(s, "info")


def test_no_layer_offloaded_with_a_gpu_device_is_a_warning():
    [s] = explain(NONE_OFFLOADED)
    assert s.kind == "llama-log" and s.command.startswith("./llama-cli")
    assert "No layer is on a GPU (`offloaded 0/23`)" in messages(s, "warn") and "-ngl 99" in messages(s, "warn")
    assert "RPC[192.168.13.12:50020]" in messages(s, "info")
    cpu_only = NONE_OFFLOADED.replace("--rpc 192.168.13.12:50020", "").replace(
        "llama_load_model_from_file: using device RPC[192.168.13.12:50020] (RPC[192.168.13.12:50020]) - 7937 MiB free\n",
        "")
    assert "warn" not in levels(explain(cpu_only)[0])  # no GPU at all: a CPU run, nothing offloadable


def test_a_partial_offload_and_a_gpu_ollama_leaves_out_are_warnings():
    log = parse_llama_log(OLLAMA)
    assert (log.offloaded, log.layers, log.split) == (37, 49, (37, 0))
    [s] = explain(OLLAMA)
    warned = messages(s, "warn")
    assert "37 of 49 layers are on the GPU(s), the other 12 on the CPU" in warned
    assert "Ollama's split gives GPU 1 no layer (`layers.split=37,0`)" in warned


def test_text_without_a_load_line_is_a_clear_error():
    with pytest.raises(ParseError, match="no line of llama.cpp's load log"):
        parse_llama_log("main: llama backend init\n")
