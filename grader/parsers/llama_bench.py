"""Parser for llama.cpp's ``llama-bench`` (its default markdown table) and the lines llama.cpp prints before it.

Shape (llama.cpp tools/llama-bench; as posted in KoyoImai/dgx_spark_cluster, two DGX Sparks with the RPC backend)::

    ggml_cuda_init: found 1 CUDA devices (Total VRAM: 122572 MiB):
      Device 0: NVIDIA GB10, compute capability 12.1, VMM: yes, VRAM: 122572 MiB
    | model                          |       size |     params | backend    | ngl |            test |                  t/s |
    | ------------------------------ | ---------: | ---------: | ---------- | --: | --------------: | -------------------: |
    | qwen3moe 235B.A22B Q2_K - Medium |  79.80 GiB |   235.09 B | CUDA,RPC   |  99 |           pp128 |        110.26 ± 5.50 |
    | qwen3moe 235B.A22B Q2_K - Medium |  79.80 GiB |   235.09 B | CUDA,RPC   |  99 |           tg256 |         16.50 ± 0.18 |
    build: 25eec6f32 (8672)

``test``: ``ppN`` (a prompt of N tokens processed at once), ``tgN`` (N tokens generated one at a time: decode), or
``ppN+tgM``; ``t/s`` tokens per second, mean ± standard deviation over the repetitions; ``ngl`` the layers offloaded to
the GPU (99: all). Columns other builds add (``n_batch``, ``fa``, ``threads``...) are read by their header's name.

llama-benchy (eugr/llama-benchy: llama-bench's table measured against an OpenAI-compatible server such as vLLM) prints
``t/s (total)`` and ``t/s (req)`` (all requests together, and each), ``peak t/s``, ``ttfr (ms)`` (time to the first
response) and ``e2e_ttft (ms)``, with the concurrency in the test's name (``pp2048 (c2)``); its rows are read the same
way, ``t/s (total)`` as the rate. A last row cut short keeps the cells it has.

llama-sweep-bench (ik_llama.cpp, and llama.cpp's examples) prints one row per context depth: ``| PP | TG | N_KV | T_PP s
| S_PP t/s | T_TG s | S_TG t/s |``: a prompt of PP tokens and TG generated tokens with N_KV tokens already in the KV
cache; each row is read as two, ``ppPP`` at S_PP t/s and ``tgTG`` at S_TG t/s, with ``depth`` N_KV.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import ParseError, content_lines, raise_if_shell_error

CMD = "llama-bench"

_RATE_RE = re.compile(r"^(?P<mean>\d+(?:\.\d+)?)(?:\s*±\s*(?P<sd>\d+(?:\.\d+)?))?$")
_TEST_RE = re.compile(r"^(?:pp|tg)\d")
_OLD_TEST_RE = re.compile(r"^(pp|tg) (\d)")
_CONCURRENCY_RE = re.compile(r"\(c(\d{1,5})\)\s*$")
_DEVICE_RE = re.compile(r"^Device (?P<i>\d+): (?P<name>[^,]+), compute capability (?P<cc>[\d.]+)"
                        r"(?:, VMM: \w{1,5})?(?:, VRAM: (?P<vram>\d{1,9}) MiB)?")


@dataclass(frozen=True)
class LlamaBenchRow:
    """One row: ``model``, ``size`` and ``backend`` as printed (``CUDA,RPC``), ``ngl`` (None where the column is
    not printed), ``test`` (``pp512``, ``tg128``), ``tps`` and ``tps_sd`` (tokens per second, mean and standard
    deviation)."""

    model: str
    size: str | None
    backend: str | None
    ngl: int | None
    test: str
    tps: float
    tps_sd: float | None = None
    tps_req: float | None = None  # llama-benchy: each request's rate (``t/s (req)``)
    ttft_ms: float | None = None  # llama-benchy: ``e2e_ttft (ms)``, else ``ttfr (ms)``
    concurrency: int | None = None  # llama-benchy: ``(cN)`` in the test's name
    depth: int | None = None  # llama-sweep-bench: the tokens already in the KV cache (``N_KV``)
    settings: tuple[tuple[str, str], ...] = ()  # the other columns (``ngl``, ``nkvo``, ``fa``, ``n_batch``...), as printed


_NOT_SETTINGS = frozenset({"model", "size", "params", "backend", "test", "t/s", "t/s (req)", "peak t/s", "ttfr (ms)",
                           "e2e_ttft (ms)", "est_ppt (ms)"})
"""Columns that are a row's result or its model, not a setting it ran with."""


@dataclass(frozen=True)
class LlamaBench:
    """The rows read, the GPUs llama.cpp found (``Device 0: NVIDIA GB10, compute capability 12.1``) and its build."""

    rows: tuple[LlamaBenchRow, ...]
    devices: tuple[str, ...] = ()
    build: str | None = None


def parse_llama_bench(text: str) -> LlamaBench:
    """Read llama-bench's table (see the module docstring); lines that are not the table's are skipped (llama.cpp
    prints its backends, and an RPC run ``Client connection closed``). ParseError when no result row and no device line
    is found (the device list alone, ``ggml_cuda_init: found N CUDA devices``, gives no rows)."""
    lines = content_lines(text)
    raise_if_shell_error(lines, CMD)
    header: list[str] | None = None
    rows: list[LlamaBenchRow] = []
    devices: list[str] = []
    build = None
    for line in lines:
        s = line.text.strip()
        if m := _DEVICE_RE.match(s):
            vram = f", VRAM {m.group('vram')} MiB" if m.group("vram") else ""
            devices.append(f"{m.group('name').strip()} (compute capability {m.group('cc')}{vram})")
            continue
        if s.startswith(("build: ", "version: ")):
            build = s.split(": ", 1)[1]
            continue
        if not (s.startswith("|") and s.endswith("|")):
            continue
        cells = [c.strip() for c in s.strip("|").split("|")]
        if {"PP", "TG", "N_KV", "S_PP t/s", "S_TG t/s"} <= set(cells) and "B" not in cells:  # llama-sweep-bench's
            header = cells  # (llama-batched-bench's has a B column: N_KV there is its B sequences' tokens, not a depth)
            continue
        if "test" in cells and ("t/s" in cells or "t/s (total)" in cells):  # (also after a sweep table)
            header = ["t/s" if c == "t/s (total)" else c for c in cells]
            continue
        if header is not None and "N_KV" in header:
            row = dict(zip(header, cells))
            sweep = [(f"{k.lower()}{row.get(k, '')}", _RATE_RE.match(row.get(f"S_{k} t/s", ""))) for k in ("PP", "TG")]
            depth = row.get("N_KV", "")
            if depth.isascii() and depth.isdigit():  # (a depth that does not read is no result row)
                rows += [LlamaBenchRow("?", None, None, None, test, float(rate.group("mean")), depth=int(depth))
                         for test, rate in sweep if rate and _TEST_RE.match(test)]
            continue
        if header is None or len(cells) > len(header) or set(cells[0]) <= set("-: "):
            continue
        row = dict(zip(header, cells))  # a row cut short (fewer cells) keeps those it has
        row["test"] = _OLD_TEST_RE.sub(r"\1\2", row.get("test", ""))  # early 2024's `pp 512`: today's `pp512`
        rate = _RATE_RE.match(row.get("t/s", ""))
        if rate is None or not _TEST_RE.match(row.get("test", "")):  # (a person's own table below: not a result)
            continue
        ngl, req = row.get("ngl"), _RATE_RE.match(row.get("t/s (req)", ""))
        ttft = _RATE_RE.match(row.get("e2e_ttft (ms)", "")) or _RATE_RE.match(row.get("ttfr (ms)", ""))
        conc = _CONCURRENCY_RE.search(row.get("test", ""))
        rows.append(LlamaBenchRow(row.get("model", "?"), row.get("size"), row.get("backend"),
                                  int(ngl) if ngl and ngl.isdigit() else None, row.get("test", "?"),
                                  float(rate.group("mean")), float(rate.group("sd")) if rate.group("sd") else None,
                                  float(req.group("mean")) if req else None,
                                  float(ttft.group("mean")) if ttft else None,
                                  int(conc.group(1)) if conc else None,
                                  settings=tuple((k, v) for k, v in row.items() if k not in _NOT_SETTINGS and v)))
    if not rows and not devices:  # (llama.cpp's device list alone, which its every program prints first, is read)
        raise ParseError(CMD, "no result row (`| model | size | ... | test | t/s |` and the rows under it)")
    return LlamaBench(tuple(rows), tuple(devices), build)
