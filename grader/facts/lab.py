"""Facts of the lab (load tests) from evidence/lab.json, recomputed from the raw per-request data.

Each load level is one raw output: probe ``vllm-bench:<label>:c<concurrency>`` (label ``pair``
or ``baseline``), stdout the result JSON ``vllm bench serve --save-result --save-detailed``
wrote. Nothing is taken from the summary fields: the metrics are recomputed
(grader.metrics) and the summary is only compared with them.

Facts::

    {"pair": {"c1": {output_throughput, median_tpot_ms, p90_ttft_ms, decode_tok_s, ...}, ...},
     "baseline": {...},
     "ratios": {"c1": pair / baseline output tok/s, ...},
     "comparison": [grader.lab.compare rows],
     "roofline": {"pair": {...} | None, "baseline": ...},
     "problems": [sentences: failed requests, no tokens, TTFT > E2EL, summary disagreeing, unreadable],
     "warnings": [sentences: a few failed requests (at most serving.toml [load] failed_share_warn of a run)],
     "missing": [sentences: a side the profile needs that was not recorded],
     "model": str | None}
"""

from __future__ import annotations

import re
from typing import Any

from grader import lab
from grader.evidence import Evidence
from grader.judges.bench import failed_level
from grader.metrics import disagreements
from grader.parsers.bench_result import parse_bench_json
from grader.parsers.common import ParseError

PROBE_RE = re.compile(r"^vllm-bench:(?P<label>pair|baseline):c(?P<c>\d+)$")
REQUIRED = {"single-spark": ("baseline",), "dual-gpu-desktop": ("pair",)}
"""Which sides a profile must record (default: both). One Spark has no pair; a 70B model on a
desktop does not fit one 24 GB card, so it has no baseline."""


def probe_name(label: str, concurrency: int) -> str:
    return f"vllm-bench:{label}:c{concurrency}"


def derive(ev: Evidence) -> dict[str, Any]:
    facts: dict[str, Any] = {"pair": {}, "baseline": {}, "ratios": {}, "comparison": [], "roofline": {},
                             "problems": [], "warnings": [], "missing": [], "model": None}
    problems: list[str] = facts["problems"]
    for raw in ev.raw:
        m = PROBE_RE.match(raw.probe)
        if not m:
            continue
        label, c = m.group("label"), int(m.group("c"))
        where = f"{label} c{c}"
        if raw.timed_out:
            problems.append(f"{where}: the load test timed out and was stopped")
            continue
        try:
            result = parse_bench_json(raw.stdout)[-1]
        except ParseError as e:
            problems.append(f"{where}: {e}" + (f" (exit status {raw.exit_status}: {raw.stderr.strip()[-200:]})"
                                               if raw.exit_status else ""))
            continue
        metrics = result.metrics()
        if metrics is None:
            problems.append(f"{where}: the result has no per-request data (run with --save-detailed)")
            continue
        flat = metrics.flat()
        flat["decode_tok_s"] = lab.decode_rate(flat)
        flat["requests"] = len(result.requests or [])
        facts[label][f"c{c}"] = flat
        facts["model"] = facts["model"] or result.meta.get("model_id")
        if metrics.failed:
            level = failed_level(metrics.failed, flat["requests"])
            (problems if level == "fail" else facts["warnings"]).append(
                f"{where}: {metrics.failed} of {flat['requests']} requests failed"
                + ("" if level == "fail" else " (a few: the run stands on the rest; find why in the server log)"))
        if metrics.completed and metrics.total_output_tokens <= 0:
            problems.append(f"{where}: no output tokens were generated")
        bad = [i for i, r in enumerate(result.requests or []) if r.success and r.ttft is not None
               and r.e2el is not None and r.ttft > r.e2el + 1e-9]
        if bad:
            problems.append(f"{where}: TTFT above E2E latency for {len(bad)} request(s): the file is inconsistent")
        for d in disagreements(flat, result.summary, abs_tol=1e-3):
            problems.append(f"{where}: summary and per-request data disagree: {d}")
        if result.truncated:
            problems.append(f"{where}: the result file is cut off")
    for label in REQUIRED.get(ev.profile, lab.LABELS):
        if not facts[label]:
            facts["missing"].append(
                f"no {label} load test recorded: run `clusterlab loadtest --inventory F` with the model served "
                + ("across both machines (mode ray or nnodes)" if label == "pair" else "on one machine (mode single)"))
    runs = lab.runs_from_facts(facts)
    facts["comparison"] = lab.compare(runs)
    facts["ratios"] = {f"c{r['concurrency']}": r["throughput_ratio"] for r in facts["comparison"]}
    bpt = (ev.measurements.get("lab") or {}).get("bytes_per_token")
    for label, nodes in (("pair", 2), ("baseline", 1)):
        c1 = facts[label].get("c1") or {}
        facts["roofline"][label] = lab.roofline(c1.get("decode_tok_s"), bpt, ev.profile, nodes)
    return facts
