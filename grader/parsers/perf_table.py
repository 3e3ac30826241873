"""The console table NVIDIA AIPerf and GenAI-Perf print at the end of a run, read as a load test's summary.

Shapes read (Rich's box-drawn table; a title line, a header row, a row per metric):

    NVIDIA AIPerf | LLM Metrics          (or ``NVIDIA GenAI-Perf | LLM Metrics``)
    ┃ Metric ┃ avg ┃ min ┃ max ┃ p99 ┃ p90 ┃ p50 ┃ std ┃     (GenAI-Perf: ``Statistic``, p75 for p50, no std)
    │ Time to First Token (ms) │ 912.29 │ 81.52 │ 2,270.46 │ ...
    │ Output Token Throughput Per User │ 69.01 │ ...   then  │ (tokens/sec/user) │  │ ...  (a label wrapped)

Each latency row's statistics go under vLLM's key names (``mean_ttft_ms``, ``p99_ttft_ms``, ``median_ttft_ms``),
with AIPerf's and GenAI-Perf's naming: their *Inter Token Latency* is vLLM's TPOT (grader.metrics.CROSSWALK); *Time
to Second Token* keeps its own key (``mean_ttst_ms``). Rates and counts (``avg`` only): ``output_throughput``,
``request_throughput``, ``completed``; the mean output and input lengths as ``mean_output_len`` and
``mean_input_len``. A table the paste cut keeps the rows it holds. No per-request data: the tool's own figures.
"""

from __future__ import annotations

import re

from grader.parsers.common import as_float

TITLE_RE = re.compile(r"^\s*NVIDIA (?P<tool>AIPerf|GenAI-Perf) \| LLM Metrics\s*$")
"""The title above the table (explain's aiperf kind starts there)."""
_BARS = "│┃|"
_STATS = {"avg": "mean", "p50": "median", "std": "std", "max": "max", "min": "min"}
_LATENCIES = {"time to first token": "ttft", "time to second token": "ttst", "inter token latency": "tpot",
              "request latency": "e2el"}
_ONE = {"output token throughput": "output_throughput", "output token throughput (per sec)": "output_throughput",
        "output token throughput (tokens/sec)": "output_throughput", "request throughput": "request_throughput",
        "request throughput (per sec)": "request_throughput", "request count": "completed",
        "output sequence length": "mean_output_len", "input sequence length": "mean_input_len"}
MAX_ROWS = 64
"""At most this many rows are read (a bounded cost)."""


def _cells(line: str) -> list[str] | None:
    """The cells of a table row (``│ a │ b │``), None for a line of another shape (a rule, the title)."""
    s = line.strip()
    if len(s) < 3 or s[0] not in _BARS:
        return None
    return [c.strip() for c in re.split(r"[│┃|]", s[1:].rstrip(_BARS))]


def _label(text: str) -> str:
    """A row's label, lower case, with a unit in brackets kept only for the names of several units."""
    return re.sub(r"\s?\((?:ms|tokens|count)\)$", "", re.sub(r"\s{1,20}", " ", text).strip().lower())


def parse_perf_table(lines: list[str]) -> tuple[str, dict[str, float]] | None:
    """(the tool, the summary under vLLM's key names) of the table in ``lines``, None when none is there."""
    start = next((i for i, line in enumerate(lines) if TITLE_RE.match(line)), None)
    if start is None:
        return None
    tool = TITLE_RE.match(lines[start])["tool"]  # type: ignore[index]
    header: list[str] = []
    rows: list[tuple[str, list[str]]] = []
    for line in lines[start + 1:start + 1 + MAX_ROWS]:
        cells = _cells(line)
        if cells is None:
            continue
        if not header and cells and cells[0].lower() in ("metric", "statistic"):
            header = [c.lower() for c in cells[1:]]
        elif header and cells[0] and not any(cells[1:]) and rows:  # a wrapped label: `(tokens/sec/user)`
            rows[-1] = (f"{rows[-1][0]} {cells[0]}", rows[-1][1])
        elif header and cells[0]:
            rows.append((cells[0], cells[1:]))
    summary: dict[str, float] = {}
    for text, values in rows:
        label = _label(text)
        base = re.sub(r"\s?\([^)]{0,40}\)$", "", label)
        for col, raw in zip(header, values):
            x = as_float(raw.replace(",", "")) if raw and raw.upper() != "N/A" else None
            if x is None:
                continue
            if base in _LATENCIES:
                stat = _STATS.get(col, col if re.fullmatch(r"p\d{1,2}(?:\.\d{1,3})?", col) else None)
                if stat:
                    summary[f"{stat}_{_LATENCIES[base]}_ms"] = x
            elif col == "avg" and (label in _ONE or base in _ONE):
                summary[_ONE.get(label) or _ONE[base]] = x
    return tool, summary
