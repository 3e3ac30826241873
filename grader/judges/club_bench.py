"""club-3090's bench.sh runs (grader.parsers.rig_report: its prefill runs per prompt size, its single-stream
generation runs per section, warm-ups apart), judged as a careful reader does: each rate said with its range over the
runs, the spread over the measured runs recomputed (standard deviation over the mean) and called steady below
checks/specs/serving.toml [bench] steady_share, wide above wide_spread_share; prefill slower for a longer prompt is
attention's cost, expected. The rates are said, not graded: how good they are depends on the model, which the
output does not name."""

from __future__ import annotations

from statistics import mean, stdev
from typing import Any

from ..calc.specs import row
from .common import info, ok
from .model import Finding


def _span(values: list[float], fmt: str = ",.0f") -> str:
    lo, hi = min(values), max(values)
    return f"{lo:{fmt}}" if f"{lo:{fmt}}" == f"{hi:{fmt}}" else f"{lo:{fmt}}-{hi:{fmt}}"


def _prefill(report: Any) -> list[Finding]:
    labels = list(dict.fromkeys(p.label for p in report.prefill))
    out, means = [], []
    for label in labels:
        at = [p for p in report.prefill if p.label == label]
        means.append((mean(p.tokens for p in at), mean(p.rate for p in at), label))
        out.append(ok(f"Prefill {label}: {_span([p.rate for p in at])} tok/s over {len(at)} run(s), prompts of "
                      f"{_span([p.tokens for p in at])} tokens, first token after "
                      f"{_span([p.ttft_ms / 1000 for p in at], '.2f')} s."))
    means.sort()
    if len(means) > 1 and means[-1][1] < means[0][1]:
        out.append(info(f"Prefill is slower for the longer prompt ({means[-1][2]}: {means[-1][1]:,.0f} tok/s against "
                        f"{means[0][2]}'s {means[0][1]:,.0f}): attention's cost grows with the context already "
                        "read, so each prompt token costs more deep into a long prompt; expected, no fault."))
    return out


def _decode(report: Any) -> list[Finding]:
    spec = row("serving.toml", "bench")
    steady, wide = spec.graded("steady_share"), spec.graded("wide_spread_share")
    out = []
    for section in dict.fromkeys(r.section for r in report.runs):
        runs = [r for r in report.runs if r.section == section and not r.warmup]
        warm = [r for r in report.runs if r.section == section and r.warmup]
        if not runs:
            continue
        rates = [r.decode_tps for r in runs]
        name = f"{section.lower()} " if section else ""
        said = (f"Single-stream {name}decode: {_span(rates, '.1f')} tok/s over {len(runs)} measured run(s) "
                f"(mean {mean(rates):.1f}), first token after {_span([r.ttft_ms for r in runs])} ms")
        if len(rates) < 3 or not mean(rates):
            out.append(ok(said + "."))
            continue
        cv = stdev(rates) / mean(rates)
        if steady is not None and cv <= steady:
            said += (f"; steady: the runs differ by {cv:.1%} of their mean (CV): nothing points to another job "
                     "sharing the GPU or a run stalling")
            out.append(ok(said + (
                ", and the warm-ups ran at the same rate" if warm and all(
                    abs(w.decode_tps - mean(rates)) <= 3 * stdev(rates) for w in warm) else "") + "."))
        elif wide is not None and cv > wide:
            out.append(info(said + f"; a wide spread: the runs differ by {cv:.0%} of their mean, so the mean is not "
                            "one speed. Something else used the GPU during some runs, or some stalled; the output "
                            "cannot tell which: run them again and look at each."))
        else:
            out.append(ok(said + f"; the runs differ by {cv:.1%} of their mean (CV)."))
    return out


def bench_findings(report: Any) -> list[Finding]:
    """The bench.sh part of a club-3090 report: [] where the paste has none."""
    if not report.prefill and not report.runs:
        return []
    out = _prefill(report) + _decode(report)
    if out and all(f.level in ("ok", "info") and "a wide spread" not in f.message for f in out):
        out.append(info("Nothing in these runs points to a problem: the rates are consistent from run to run. "
                        "Whether they are good for this model depends on its size (its active parameters) and "
                        "others' numbers for the same recipe, which this output does not show."))
    return out
