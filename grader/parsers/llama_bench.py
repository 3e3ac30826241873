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

compare-llama-bench.py (llama.cpp's scripts/compare-commits.sh) prints ``| Model | Test | t/s <build A> | t/s <build B> |
Speedup |``, a row per test (``pp512@d1024``: at a context depth of 1024); its rows are read as comparisons.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import ParseError, content_lines, raise_if_shell_error
from .llama_log import FOUND_RE

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
class LlamaBenchComparison:
    """One row of llama.cpp's compare-llama-bench.py table (``scripts/compare-commits.sh``): a test's rate under two
    builds (``t/s <name>`` columns) and their ratio (``Speedup``: the second over the first; None where cut)."""

    model: str
    test: str
    builds: tuple[str, str]
    rates: tuple[float, float]
    speedup: float | None


@dataclass(frozen=True)
class LlamaBench:
    """The rows read, the GPUs llama.cpp found (``Device 0: NVIDIA GB10, compute capability 12.1``) and its build;
    ``compared``: compare-llama-bench.py's rows, where the paste is its table; ``found``: the GPU count its
    ``ggml_cuda_init: found N CUDA devices`` line gives (None without one: a list cut with ``...`` holds fewer)."""

    rows: tuple[LlamaBenchRow, ...]
    devices: tuple[str, ...] = ()
    build: str | None = None
    compared: tuple[LlamaBenchComparison, ...] = ()
    found: int | None = None


_COMPARE_TEST_RE = re.compile(r"^(?:pp|tg)\d{1,7}(?:\+tg\d{1,7})?(?:@d\d{1,8})?$")
_NUMBER_RE = re.compile(r"^\d{1,9}(?:\.\d{1,6})?$")


def _csv_row(head: list[str], line: str) -> LlamaBenchRow | None:
    """A row of ``llama-bench -o csv`` under its header (``model_type``, ``model_size`` in bytes, ``backends``,
    ``n_gpu_layers``, ``n_prompt``/``n_gen`` for the test, ``avg_ts``/``stddev_ts``), None where it does not read."""
    import csv
    cells = next(csv.reader([line[:20000]]), [])
    if len(cells) != len(head):
        return None
    row = dict(zip(head, cells))
    try:
        n_prompt, n_gen, tps = int(row["n_prompt"]), int(row["n_gen"]), float(row["avg_ts"])
    except (KeyError, ValueError):
        return None
    test = f"pp{n_prompt}+tg{n_gen}" if n_prompt and n_gen else f"pp{n_prompt}" if n_prompt else f"tg{n_gen}"
    size = f"{int(row['model_size']) / 2**30:.2f} GiB" if row.get("model_size", "").isdigit() else None
    ngl = row.get("n_gpu_layers", "")
    sd = row.get("stddev_ts", "")
    return LlamaBenchRow(row.get("model_type") or "?", size, row.get("backends") or None,
                         int(ngl) if ngl.isdigit() else None, test, tps,
                         float(sd) if re.fullmatch(r"\d{1,12}(?:\.\d{1,12})?", sd) else None)


def _compared(header: list[str], cells: list[str]) -> LlamaBenchComparison | None:
    """A compare-llama-bench.py row under ``header``, None when the row is not one (a rate that does not read)."""
    row = dict(zip(header, cells))
    builds = [h for h in header if h.startswith("t/s ")]
    test = row.get("Test", "")
    rates = [row.get(b, "") for b in builds]
    if not _COMPARE_TEST_RE.match(test) or not all(_NUMBER_RE.match(r) for r in rates):
        return None
    speedup = row.get("Speedup", "")
    return LlamaBenchComparison(row.get("Model", "?"), test, (builds[0][4:], builds[1][4:]),
                                (float(rates[0]), float(rates[1])),
                                float(speedup) if _NUMBER_RE.match(speedup) else None)


_SIZE_RE = re.compile(r"^\d+(?:\.\d+)? [KMGT]iB$")
_PARAMS_RE = re.compile(r"^\d+(?:\.\d+)? [KMBT]$")


def _header_of(cells: list[str]) -> list[str] | None:
    """The header a result row of llama-bench's default table implies, where the paste left its header out (a table
    quoted from its separator row on, or a second run's table, with another column, pasted under the first):
    ``model``, ``size``, ``params``, ``backend`` first, ``test`` and ``t/s`` last, the columns between unnamed
    (``""``: their names are not in the paste). None when the row is not of that shape."""
    if len(cells) < 6 or not (_SIZE_RE.match(cells[1]) and _PARAMS_RE.match(cells[2])
                              and _TEST_RE.match(_OLD_TEST_RE.sub(r"\1\2", cells[-2])) and _RATE_RE.match(cells[-1])):
        return None
    return ["model", "size", "params", "backend"] + [""] * (len(cells) - 6) + ["test", "t/s"]


def parse_llama_bench(text: str) -> LlamaBench:
    """Read llama-bench's table (see the module docstring); lines that are not the table's are skipped (llama.cpp
    prints its backends, and an RPC run ``Client connection closed``). ParseError when no result row and no device line
    is found (the device list alone, ``ggml_cuda_init: found N CUDA devices``, gives no rows)."""
    lines = content_lines(text)
    raise_if_shell_error(lines, CMD)
    header: list[str] | None = None
    rows: list[LlamaBenchRow] = []
    devices: list[str] = []
    csv_head: list[str] | None = None
    seen: set[str] = set()
    build = None
    compare: list[str] | None = None  # compare-llama-bench.py's header, while its table goes on
    compared: list[LlamaBenchComparison] = []
    for line in lines:
        s = line.text.strip()
        if m := _DEVICE_RE.match(s):
            vram = f", VRAM {m.group('vram')} MiB" if m.group("vram") else ""
            if m.group("i") not in seen:  # (each run of a script prints the list again: blind batch vy002, 12 runs)
                seen.add(m.group("i"))
                devices.append(f"{m.group('name').strip()} (compute capability {m.group('cc')}{vram})")
            continue
        if s.startswith(("build: ", "version: ")):
            build = s.split(": ", 1)[1]
            continue
        if s.startswith("build_commit,") and ",avg_ts," in s:  # `llama-bench -o csv`'s header (blind batch vy002)
            csv_head = s.split(",")
            continue
        if csv_head and s.startswith('"') and (row := _csv_row(csv_head, s)) is not None:
            rows.append(row)
            continue
        if not (s.startswith("|") and s.endswith("|")):
            continue
        cells = [c.strip() for c in s.strip("|").split("|")]
        if "Test" in cells and "Speedup" in cells and sum(c.startswith("t/s ") for c in cells) == 2:
            compare = cells
            continue
        if compare is not None and (got := _compared(compare, cells)):
            compared.append(got)
            continue
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
        if set(cells[0]) <= set("-: "):
            continue
        implied = _header_of(cells) if header is None or len(cells) > len(header) else None
        if implied is None and (header is None or len(cells) > len(header)):
            continue
        row = dict(zip(implied or header, cells))  # a row cut short (fewer cells) keeps those it has
        row.pop("", None)
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
    if not rows and not devices and not compared:  # (llama.cpp's device list alone, which its every program prints
        raise ParseError(CMD, "no result row (`| model | size | ... | test | t/s |` and the rows under it)")  # first)
    found = FOUND_RE.search(text)
    return LlamaBench(tuple(rows), tuple(devices), build, tuple(compared), int(found.group("n")) if found else None)
