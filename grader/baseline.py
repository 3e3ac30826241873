"""``clusterlab baseline``: expected ranges measured on a known-good reference cluster.

    ranges, report = measure(inventory, ["lesson1"], repeat=5)   # probes the reference cluster 5 times
    write(ranges, "my-ranges.toml", header=report.header())      # checks/ranges.toml's format

An instructor with their own Spark pair (or a lab room's model machine) measures it N times; every
figure a check judges against a range (``op = "in_range"`` / ``"all_in_range"`` in ``checks/``) becomes
a range by the rule in ``checks/baseline.toml`` (equal runs: that value exactly; else mean ± max(k·std,
rel_floor·|mean|), floored at 0; a figure where more is better, up to a line rate, keeps only the lower bound
and the project's physical ceiling as its max), each with its source
("measured on spark-a/spark-b, <date>, clusterlab <version>, N runs") and the engines the nodes
report. ``CLUSTERLAB_RANGES=my-ranges.toml`` then lays it over ``checks/ranges.toml``
(:mod:`grader.ranges`), and every verdict judged by one of its ranges names the file.

A reference cluster must be good: a check that fails on something other than a range (a route over
the house network, a missing key) stops the baseline, naming it, so a broken cluster's figures never
become a course's ranges.
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from grader import __version__
from grader.checking import CheckError, connect_nodes, run_lesson
from grader.grading import evaluate, load_catalogue, lookup
from grader.ranges import expected_range, load_ranges

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

RULE_FILE = Path(__file__).resolve().parents[1] / "checks" / "baseline.toml"
RANGE_OPS = ("in_range", "all_in_range")


class BaselineError(CheckError):
    """The baseline could not be made (the reference cluster fails a check, nothing was measured); the
    message names the check and the fix."""


def rule() -> dict[str, Any]:
    """checks/baseline.toml: ``k``, ``rel_floor``, ``min_runs``, ``clip`` (range names), ``source``."""
    return tomllib.loads(RULE_FILE.read_text(encoding="utf-8"))


def make_range(values: list[float], limits: dict[str, Any] | None, name: str, r: dict[str, Any]) -> dict[str, float]:
    """``{min, max}`` from ``values`` (one figure, every run and node) by the rule ``r`` (checks/baseline.toml).

    For a name in ``r["clip"]`` (more is better, up to a line rate or a spec) the max is that ceiling, the
    project's range of the same name for the profile (``limits``), or absent where it has none: a cluster
    faster than the reference is no fault. ``limits``' min is a pass bar, not a limit, and is not used.
    Raises ValueError on no values."""
    if not values:
        raise ValueError(f"{name}: no value measured")
    if len(set(values)) == 1:
        return {"min": values[0], "max": values[0]}
    mean = statistics.fmean(values)
    half = max(r["k"] * statistics.stdev(values), r["rel_floor"] * abs(mean))
    lo = round(max(0.0, mean - half), 3)
    if name in r["clip"]:  # more is better up to a line rate or a spec: a faster cluster is no fault
        return {"min": lo, "max": limits["max"]} if limits and "max" in limits else {"min": lo}
    return {"min": lo, "max": round(mean + half, 3)}


@dataclass
class Report:
    """What ``measure`` saw: ``runs`` done, the node names, ``figures`` {range name: values}, the
    ``engines`` the nodes report, ``skipped`` {range name: why no range was made}."""

    profile: str
    runs: int
    nodes: list[str]
    figures: dict[str, list[float]] = field(default_factory=dict)
    engines: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    when: str = field(default_factory=lambda: time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))

    def source(self) -> str:
        return (f"measured on {'/'.join(self.nodes)}, {self.when}, clusterlab {__version__}, {self.runs} runs "
                f"(clusterlab baseline; rule: checks/baseline.toml)")

    def header(self) -> str:
        r = rule()
        return "\n".join([
            f"# Expected ranges for profile {self.profile}, measured by `clusterlab baseline` on a known-good",
            f"# reference cluster: {', '.join(self.nodes)}, {self.runs} runs, {self.when}, clusterlab {__version__}.",
            f"# Rule (checks/baseline.toml): equal runs give that value; else mean +/- max({r['k']:g} * std, "
            f"{r['rel_floor']:g} * |mean|),",
            "# capped at the physical ceiling (line rate) and floored at 0. Use it with CLUSTERLAB_RANGES=<this file>.",
            *[f"# not made: {name}: {why}" for name, why in self.skipped.items()]])


def _figures(facts: dict[str, Any], lesson: str, profile: str) -> tuple[dict[str, list[float]], list[str]]:
    """(the range-judged figures of one run {range name: values}, the non-range failures as sentences)."""
    figures: dict[str, list[float]] = {}
    broken: list[str] = []
    for check in load_catalogue(lesson):
        if profile not in check.get("profiles", [profile]):
            continue
        for expect in check["expect"]:
            if expect["op"] in RANGE_OPS:
                vals = figures.setdefault(expect["range"], [])
                for _, v in lookup(facts, expect["fact"]):
                    for x in (v if isinstance(v, list) else [v]):
                        if isinstance(x, (int, float)) and not isinstance(x, bool):
                            vals.append(x)
            elif expect.get("severity") is None:
                wrong, _, _ = evaluate(expect, facts, profile)
                broken += [f"{check['id']}: {w}" for w in wrong]
    return figures, broken


def measure(inventory: Any, lessons: list[str], repeat: int,
            progress: Callable[[str], None] = lambda m: None) -> tuple[dict[str, dict[str, Any]], Report]:
    """Probe the reference cluster ``repeat`` times for each lesson (one SSH connection per node for all
    runs; nothing saved) and make a range of every figure a check judges against one.

    ``inventory``: a loaded inventory. Returns ``({range name: {min, max, unit, source, engine}}, Report)``.
    Raises BaselineError: fewer runs than the rule's ``min_runs``, an unreachable node, a check failing on
    something other than a range (named), or no figure measured at all."""
    r = rule()
    if repeat < r["min_runs"]:
        raise BaselineError(f"--repeat {repeat}: a spread needs at least {r['min_runs']} runs")
    conns, errors = connect_nodes(inventory)
    report = Report(inventory.profile, repeat, [n.name for n in inventory.nodes])
    if errors:
        raise BaselineError("a reference cluster must answer on every node: " + " | ".join(errors.values()))
    try:
        for i in range(1, repeat + 1):
            for lesson in lessons:
                progress(f"run {i}/{repeat}: {lesson} ...")
                res = run_lesson(lesson, inventory, conns, {})
                figures, broken = _figures(res.evidence.facts, lesson, inventory.profile)
                if broken:
                    raise BaselineError(f"run {i}: the reference cluster fails {broken[0]}; a baseline is measured "
                                        "on a known-good cluster: fix it (`clusterlab check "
                                        f"{lesson}` shows the hint) and run the baseline again")
                for name, vals in figures.items():
                    report.figures.setdefault(name, []).extend(vals)
                for node in report.nodes:
                    info = (res.evidence.provenance.get("nodes", {}).get(node) or {}).get("sysinfo") or ""
                    for line in info.splitlines()[:4]:
                        if line.strip() and line.strip() not in report.engines:
                            report.engines.append(line.strip())
    finally:
        for c in conns.values():
            c.close()
    ranges: dict[str, dict[str, Any]] = {}
    for name, vals in report.figures.items():
        if not vals:
            report.skipped[name] = "no value measured (the check had nothing to judge on this cluster)"
            continue
        own = expected_range(inventory.profile, name)  # the profile's own range: its ceiling caps the new one
        unit = (own or next((p[name] for p in load_ranges().values() if name in p), None) or {}).get("unit", "?")
        ranges[name] = {**make_range(vals, own, name, r),
                        "unit": unit, "source": f"{report.source()}: {len(vals)} values, "
                        f"{min(vals):g}-{max(vals):g} {unit}", "engine": "; ".join(report.engines[:6]) or "unknown"}
    if not ranges:
        raise BaselineError("no figure was measured: nothing to make a range from")
    return ranges, report


def _toml_value(v: Any) -> str:
    return json.dumps(v) if isinstance(v, str) else repr(v) if isinstance(v, (int, float)) else json.dumps(str(v))


def render(ranges: dict[str, dict[str, Any]], profile: str, header: str = "") -> str:
    """The ranges as TOML in checks/ranges.toml's format (``[profile.name]`` tables)."""
    out = [header, ""] if header else []
    for name, r in ranges.items():
        out.append(f"[{profile}.{name}]")
        out += [f"{key} = {_toml_value(r[key])}" for key in ("min", "max", "unit", "source", "engine") if key in r]
        out.append("")
    return "\n".join(out)


def write(ranges: dict[str, dict[str, Any]], profile: str, path: str | Path, header: str = "") -> Path:
    """Write :func:`render`'s TOML to ``path`` (read back to prove it parses); return the path. OSError as raised."""
    text = render(ranges, profile, header)
    tomllib.loads(text)
    out = Path(path)
    out.write_text(text, encoding="utf-8")
    return out
