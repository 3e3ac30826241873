"""Grading: ``grade(facts, catalogue, profile) -> verdicts``, a pure function over data.

A check (checks/<lesson>.toml) lists expectations ``{fact, op, range?, severity?}``. ``fact`` is
a dotted path into the facts where ``*`` stands for every key at that level (every node).
Operators:

- ``same``: the values are equal across the matches and not empty/None;
- ``empty``: every match is an empty list (lists of problem sentences);
- ``in_range``: every match is a number within the profile's range ``range``;
- ``all_in_range``: every match is a non-empty list of numbers, each within the range.

A missing value (a node not reached, a probe not recorded) fails its expectation and says so.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from grader.ranges import CatalogueError, _read, expected_range

OPS = ("same", "empty", "in_range", "all_in_range")
STATUSES = ("pass", "warn", "fail", "skip")


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check: status pass/warn/fail/skip, points earned of ``points``, and why."""

    id: str
    title: str
    status: str
    points: float
    earned: float
    details: tuple[str, ...]
    hint: str
    source: str
    range_source: str | None = None

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["details"] = list(self.details)
        return d


@lru_cache(maxsize=None)
def load_catalogue(lesson: str) -> tuple[dict[str, Any], ...]:
    """The checks of ``lesson`` from checks/<lesson>.toml, validated. Raises CatalogueError."""
    if not resources.files("checks").joinpath(f"{lesson}.toml").is_file():
        raise CatalogueError(f"no catalogue for {lesson!r}: checks/{lesson}.toml does not exist")
    checks = _read(f"{lesson}.toml").get("check", [])
    for c in checks:
        for key in ("id", "title", "points", "profiles", "expect", "hint", "source"):
            if key not in c:
                raise CatalogueError(f"checks/{lesson}.toml: check {c.get('id', '?')} has no `{key}`")
        for e in c["expect"]:
            if e.get("op") not in OPS:
                raise CatalogueError(f"checks/{lesson}.toml: {c['id']}: op {e.get('op')!r} is not one of {OPS}")
            if e["op"].endswith("in_range") and "range" not in e:
                raise CatalogueError(f"checks/{lesson}.toml: {c['id']}: {e['op']} needs `range`")
    return tuple(checks)


_MISSING = object()


def lookup(facts: Any, path: str) -> list[tuple[str, Any]]:
    """[(concrete path, value)] for a dotted ``path`` with ``*`` wildcards; missing leaves give _MISSING."""
    results = [("", facts)]
    for part in path.split("."):
        nxt = []
        for where, value in results:
            if part == "*":
                if isinstance(value, dict):
                    nxt += [(f"{where}.{k}".lstrip("."), v) for k, v in value.items()]
                else:
                    nxt.append((f"{where}.*".lstrip("."), _MISSING))
            else:
                v = value.get(part, _MISSING) if isinstance(value, dict) else _MISSING
                nxt.append((f"{where}.{part}".lstrip("."), v))
        results = nxt
    return results


def _why_missing(facts: dict, where: str) -> str:
    parts = where.split(".")
    if len(parts) > 1 and parts[0] == "nodes":
        node = facts.get("nodes", {}).get(parts[1], {})
        if isinstance(node, dict) and node.get("reachable") is False:
            return f"{parts[1]}: not measured, the node was unreachable ({node.get('error')})"
    return f"{where}: not measured"


def _in(value: Any, r: dict[str, Any]) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and ("min" not in r or value >= r["min"]) and ("max" not in r or value <= r["max"]))


def _describe_range(r: dict[str, Any]) -> str:
    lo, hi, unit = r.get("min"), r.get("max"), r.get("unit", "")
    if lo is not None and lo == hi:
        return f"{lo:g} {unit}".strip()
    if hi is None:
        return f">= {lo:g} {unit}".strip()
    if lo is None:
        return f"<= {hi:g} {unit}".strip()
    return f"{lo:g}-{hi:g} {unit}".strip()


def evaluate(expect: dict[str, Any], facts: dict[str, Any], profile: str) -> tuple[bool, list[str], str | None]:
    """(passed, detail sentences, range source) for one expectation."""
    op, matches = expect["op"], lookup(facts, expect["fact"])
    details = [_why_missing(facts, w) for w, v in matches if v is _MISSING]
    present = [(w, v) for w, v in matches if v is not _MISSING]
    r, src = None, None
    if op.endswith("in_range"):
        r = expected_range(profile, expect["range"])
        if r is None:
            return False, [f"no range {expect['range']!r} for profile {profile!r} in checks/ranges.toml"], None
        src = f"{r['source']} [holds for: {r['engine']}]"
    if op == "same":
        values = [v for _, v in present]
        if any(v in (None, [], "") for v in values):
            details += [f"{w} = {v!r}: nothing measured" for w, v in present if v in (None, [], "")]
        elif len({repr(v) for v in values}) > 1:
            details.append("differs: " + ", ".join(f"{w} = {v!r}" for w, v in present))
    elif op == "empty":
        for w, v in present:
            if v:
                details += [str(x) for x in (v if isinstance(v, list) else [v])]
    elif op == "in_range":
        for w, v in present:
            if not _in(v, r):
                details.append(f"{w} = {v!r}, expected {_describe_range(r)}")
    elif op == "all_in_range":
        for w, v in present:
            if not isinstance(v, list) or not v:
                details.append(f"{w}: no value measured, expected {_describe_range(r)}")
            elif not all(_in(x, r) for x in v):
                details.append(f"{w} = {v!r}, expected {_describe_range(r)}")
    return not details, details, src


def grade(facts: dict[str, Any], lesson: str, profile: str) -> list[Verdict]:
    """Grade ``facts`` against ``lesson``'s catalogue for ``profile``. Pure; raises CatalogueError only."""
    verdicts = []
    for c in load_catalogue(lesson):
        if profile not in c["profiles"]:
            verdicts.append(Verdict(c["id"], c["title"], "skip", 0, 0, (f"not part of profile {profile!r}",),
                                    c["hint"], c["source"]))
            continue
        status, details, range_src = "pass", [], None
        for e in c["expect"]:
            ok, d, src = evaluate(e, facts, profile)
            range_src = range_src or src
            if not ok:
                details += d
                if e.get("severity") == "warn":
                    status = "warn" if status == "pass" else status
                else:
                    status = "fail"
        earned = c["points"] if status in ("pass", "warn") else 0
        verdicts.append(Verdict(c["id"], c["title"], status, c["points"], earned, tuple(details),
                                c["hint"], c["source"], range_src))
    return verdicts


def exit_code(verdicts: list[Verdict]) -> int:
    """0 when nothing failed, 1 when some check failed (DESIGN.md's exit-status contract)."""
    return 1 if any(v.status == "fail" for v in verdicts) else 0
