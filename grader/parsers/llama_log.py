"""Parser for llama.cpp's load and run log (``llama-server``, ``llama-cli``, ``rpc-server``'s clients) and Ollama's
offload line: where the model's layers and buffers went, per device, and the speed it printed.

The lines read, as llama.cpp prints them (``llm_load_tensors:`` before mid-2025, ``load_tensors:`` after)::

    ggml_cuda_init: found 2 CUDA devices:
      Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes
    load_tensors: offloaded 81/81 layers to GPU
    load_tensors:        CUDA0 model buffer size = 20038.81 MiB
    llama_kv_cache_unified:      CUDA1 KV buffer size =   640.00 MiB
    llama_context:      CUDA0 compute buffer size =   400.00 MiB
    llama_perf_context_print:        eval time =  1234.5 ms /   127 runs   (  9.72 ms per token,   102.9 tokens per second)

rpc-server's own console (``Starting RPC server on 0.0.0.0:50052, backend memory: 28170 MB``, then ``Accepted client
connection, free_mem=..., total_mem=...`` and ``Client connection closed`` per client), and Ollama's ``msg=offload ... layers.model=49 layers.offload=37 layers.split=37,0`` (its line may wrap). Buffer
sizes are MiB (2^20 bytes) as printed; ``RPC[host:port]`` and ``RPC`` devices are remote machines' GPUs (rpc-server).

A pure parser: :func:`parse_llama_log` -> :class:`LlamaLog`, or ParseError when none of these lines is found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .common import ParseError, strip_log_prefix

CMD = "llama.cpp"

_DEVICE_RE = re.compile(r"^\s*Device (?P<i>\d{1,3}): (?P<name>[^,\n]{1,80}), compute capability (?P<cc>\d{1,2}\.\d)", re.M)
FOUND_RE = re.compile(r"\b(?:ggml_cuda_init|ggml_init_cublas): found (?P<n>\d{1,3}) (?:CUDA|ROCm) devices", re.M)
_OFFLOADED_RE = re.compile(r"\boffloaded (?P<n>\d{1,4})/(?P<m>\d{1,4}) layers to GPU\b")
_BUFFER_RE = re.compile(r"(?P<dev>(?:CUDA|ROCm|Vulkan|Metal|SYCL)\d{0,3}(?:_Split)?|RPC(?:\[[^\]\s]{1,80}\])?|CPU(?:_Mapped|_AARCH64"
                        r"|_REPACK)?|CUDA_Host)\s+(?P<what>model|KV|compute|output)? ?buffer size =\s*+(?P<mib>\d{1,9}(?:[.,]\d{1,4})?) MiB")  # (a locale's `4437,80`)
_RATE_RE = re.compile(r"\b(?P<which>prompt eval|eval) time =[^\n]{0,80}?\(\s*\d{1,9}(?:[.,]\d{1,9})? ms per token,\s+"
                      r"(?P<tps>\d{1,9}(?:[.,]\d{1,9})?) tokens per second\)")  # (a locale's decimal comma too: `5,01`)
_LOAD_RE = re.compile(r"\bload time =\s{0,20}(?P<ms>\d{1,12}(?:[.,]\d{1,9})?) ms\b")
_OLLAMA_RE = re.compile(r"\blayers\.(?P<key>model|offload|split)=\"?(?P<value>[\d,]{1,60})")
_REMOTE_RE = re.compile(r"\busing device (?P<dev>RPC\[[^\]\s]{1,80}\])")
_RPC_SERVER_RE = re.compile(r"^Starting RPC server on (?P<at>[^\s,]{1,80}), backend memory: (?P<mb>\d{1,9}) MB", re.M)
_BACKEND_RE = re.compile(r"^create_backend: using \w{1,20} backend\s*$", re.M)  # rpc-server's first line
_RPC_ACCEPTED_RE = re.compile(r"^Accepted client connection\b", re.M)
_RPC_CLOSED_RE = re.compile(r"^Client connection closed\s*$", re.M)
_GPU_BACKEND_RE = re.compile(r"\bloaded (?:CUDA|ROCm|Vulkan|Metal|SYCL) backend\b|\bmsg=\"?offload to (?:cuda|rocm)\b"
                             r"|\blibrary=(?:cuda|rocm)\b|\bfound [1-9]\d{0,2} (?:CUDA|ROCm) devices")


LINE_RE = re.compile(
    r"^(?:llm_)?load_tensors: |\boffloaded \d{1,4}/\d{1,4} layers to GPU\b|^(?:llama_kv_cache\w{0,20}|llama_context"
    r"|llama_new_context_with_model|llama_model_loader|llama_load_model_from_file|llama_perf_context_print"
    r"|llama_print_timings|llama_memory_breakdown_print|llm_load_print_meta|print_info|graph_reserve|register_backend"
    r"|load_backend|llama_model_load\w{0,20}|common_init_from_params|llama_init_from_model): "
    r"|\bmsg=offload library=|^\s*layers\.(?:offload|split)=|^Starting RPC server on \S{1,80}, backend memory: "
    r"|^create_backend: using \w{1,20} backend"  # then Ollama's server log, new (slog) and old, which runs llama.cpp
    r"|^time=\S{10,40} level=[A-Z]{4,5} source=[a-z_]{1,20}\.go:\d{1,5} msg=|^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d [a-z_]{1,20}\.go:\d{1,5}: "
    r"|^ggml_(?:cuda_init|init_cublas): (?:found \d{1,3} (?:CUDA|ROCm) devices|GGML_CUDA_|CUDA_USE_TENSOR_CORES)")  # (llama-bench's too)
"""Lines only llama.cpp's load and run log (or Ollama's offload line) prints: how ``explain`` tells the kind."""


@dataclass(frozen=True)
class LlamaLog:
    """What a llama.cpp (or Ollama) log says of its devices and the model's place on them.

    ``devices``: (index, name, compute capability) of ``ggml_cuda_init``'s list; ``found``: the count it printed
    (None without that line); ``offloaded``/``layers``: ``offloaded N/M layers to GPU`` (Ollama's layers.offload and
    layers.model), None when absent; ``split``: Ollama's layers.split (layers per GPU); ``buffers``: (device, kind,
    MiB) in printed order, kind ``model``, ``KV``, ``compute``, ``output`` or ``""``; ``remote``: RPC devices a
    client named (``using device RPC[host:port]``); ``prompt_tps``/``eval_tps``: the last rates printed (tokens/s)."""

    devices: tuple[tuple[int, str, str], ...] = ()
    found: int | None = None
    offloaded: int | None = None
    layers: int | None = None
    split: tuple[int, ...] = ()
    buffers: tuple[tuple[str, str, float], ...] = ()
    remote: tuple[str, ...] = field(default=())
    prompt_tps: float | None = None
    eval_tps: float | None = None
    rpc_server: tuple[str, int, int, int] | None = None
    """rpc-server's own console: (the address it listens on, the backend memory it offers in MB, the client connections
    it accepted, those it saw closed), None without its `Starting RPC server on ...` line."""
    gpu_backend: bool = False
    """A GPU backend was loaded or GPUs were found (``loaded CUDA backend``, Ollama's ``offload to cuda``), whether
    or not the device list is in the same paste."""
    load_ms: float | None = None
    """llama.cpp's ``load time = N ms`` (llama_perf_context_print, llama_print_timings), None without it."""

    def mib(self, what: str) -> dict[str, float]:
        """{device: MiB} of one kind of buffer (``model``, ``KV``, ``compute``), summed per device."""
        out: dict[str, float] = {}
        for dev, kind, mib in self.buffers:
            if kind == what or what == "model" and kind == "":  # an old log's `CUDA0 buffer size` is its weights
                out[dev] = out.get(dev, 0.0) + mib
        return out


def parse_llama_log(text: str) -> LlamaLog:
    """Parse ``text``; ParseError when it holds no line of llama.cpp's load log or Ollama's offload line. A log
    collector's prefix (journalctl's ``Feb 10 14:39:57 host ollama[1538]: ``, docker compose's) is read past."""
    text = "\n".join(map(strip_log_prefix, text.splitlines())) if "]: " in text or " | " in text else text
    found = FOUND_RE.search(text)
    off = _OFFLOADED_RE.search(text)
    ollama = {m.group("key"): m.group("value") for m in _OLLAMA_RE.finditer(text)}
    buffers = tuple((m.group("dev"), m.group("what") or "", float(m.group("mib").replace(",", "."))) for _, m in
                    zip(range(256), _BUFFER_RE.finditer(text)))
    rates = {m.group("which"): float(m.group("tps").replace(",", ".")) for m in _RATE_RE.finditer(text)}
    devices = tuple(dict.fromkeys((int(m.group("i")), m.group("name").strip(), m.group("cc")) for _, m in
                                  zip(range(64), _DEVICE_RE.finditer(text))))  # a restart lists them again: once
    served = _RPC_SERVER_RE.search(text)
    if not (found or off or buffers or rates or "offload" in ollama or devices or served or _BACKEND_RE.search(text)):
        raise ParseError(CMD, "no line of llama.cpp's load log (`offloaded N/M layers to GPU`, `CUDA0 model buffer size "
                              "= ... MiB`, `eval time = ...`) or Ollama's `msg=offload` line found")
    offloaded = int(off.group("n")) if off else int(ollama["offload"]) if ollama.get("offload", "").isdigit() else None
    layers = int(off.group("m")) if off else int(ollama["model"]) if ollama.get("model", "").isdigit() else None
    split = tuple(int(x) for x in ollama.get("split", "").split(",") if x.isdigit())
    remote = tuple(dict.fromkeys(m.group("dev") for _, m in zip(range(64), _REMOTE_RE.finditer(text))))
    return LlamaLog(devices, int(found.group("n")) if found else None, offloaded, layers, split, buffers, remote,
                    rates.get("prompt eval"), rates.get("eval"),
                    (served["at"], int(served["mb"]), len(_RPC_ACCEPTED_RE.findall(text)),
                     len(_RPC_CLOSED_RE.findall(text))) if served else None, _GPU_BACKEND_RE.search(text) is not None,
                    float(load["ms"].replace(",", ".")) if (load := _LOAD_RE.search(text)) else None)
