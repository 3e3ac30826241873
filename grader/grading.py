"""Grading: ``grade(facts, catalogue, profile) -> verdicts``, a pure function over data.

A check (checks/<lesson>.toml) lists expectations ``{fact, op, range?, severity?}``. ``fact`` is
a dotted path into the facts where ``*`` stands for every key at that level (every node).
Operators:

- ``same``: the values are equal across the matches and not empty/None;
- ``empty``: every match is an empty list (lists of problem sentences);
- ``in_range``: every match is a number within the profile's range ``range``;
- ``all_in_range``: every match is a non-empty list of numbers, each within the range.

Statuses (docs/DESIGN.md "Statuses and points"), strongest first:

- ``fail``: measured and wrong; earns 0.
- ``unmeasured`` ("not measured"): nothing to judge: a value missing (a node not reached, a probe
  not recorded, a log not named), an empty value where ``same``/``all_in_range`` need one, ``None``
  where ``in_range`` needs a number, or a non-empty list under ``severity = "unmeasured"`` (the
  facts' ``*_unmeasured`` sentences say what was missing). Earns 0; the details say what to do.
- ``warn``: measured and doubtful (a non-empty list or value under ``severity = "warn"``); earns
  the check's ``warn_points`` (default half its points; equal to its points only with
  ``warn_points_why`` in the catalogue).
- ``pass``: earns the check's points.
- ``skip`` (shown "n.a."): the catalogue declares the check does not apply to the profile (its
  ``profiles`` list, or its optional ``topologies`` list, with ``topologies_why``, for the facts'
  ``topology``: a ring's or a switch's); left out of every total. Never inferred from missing data.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from grader import lessons
from grader.ranges import TOPOLOGIES, CatalogueError, _read, expected_range

OPS = ("same", "empty", "in_range", "all_in_range")
SEVERITIES = ("fail", "warn", "unmeasured")
STATUSES = ("pass", "warn", "unmeasured", "fail", "skip")
"""Every status a verdict can have; ``skip`` is "n.a." (not applicable to the profile)."""
LABELS = {"pass": "PASS", "warn": "WARN", "fail": "FAIL", "unmeasured": "NOT MEASURED", "skip": "n.a."}
"""How every report names a status."""


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check: ``status`` (one of STATUSES), points ``earned`` of ``points``, and why.

    ``details`` are sentences: what failed, what was doubtful, or (``unmeasured``) what was missing and
    how to get it measured. ``points`` is 0 for ``skip`` (not counted anywhere).
    """

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
    """The checks of ``lesson`` from its catalogue in checks/ (grader.lessons: checks/<lesson>.toml),
    validated. Raises CatalogueError."""
    known = lessons.REGISTRY.get(lesson)
    if known is None or not known.checked:
        raise CatalogueError(f"no catalogue for {lesson!r}: the lessons with machine checks are "
                             f"{', '.join(lessons.checked())} (grader.lessons)")
    name = known.catalogue
    if not resources.files("checks").joinpath(name).is_file():
        raise CatalogueError(f"no catalogue for {lesson!r}: checks/{name} does not exist")
    checks = _read(name).get("check", [])
    for c in checks:
        for key in ("id", "title", "points", "profiles", "expect", "hint", "source"):
            if key not in c:
                raise CatalogueError(f"checks/{name}: check {c.get('id', '?')} has no `{key}`")
        for e in c["expect"]:
            if e.get("op") not in OPS:
                raise CatalogueError(f"checks/{name}: {c['id']}: op {e.get('op')!r} is not one of {OPS}")
            if e["op"].endswith("in_range") and "range" not in e:
                raise CatalogueError(f"checks/{name}: {c['id']}: {e['op']} needs `range`")
            if e.get("severity", "fail") not in SEVERITIES:
                raise CatalogueError(f"checks/{name}: {c['id']}: severity {e['severity']!r} is not one of "
                                     f"{SEVERITIES}")
        tops = c.get("topologies")
        if tops is not None and (not isinstance(tops, list) or not set(tops) <= set(TOPOLOGIES) or not tops
                                 or not c.get("topologies_why")):
            raise CatalogueError(f"checks/{name}: {c['id']}: `topologies` must be a non-empty list of "
                                 f"{', '.join(TOPOLOGIES)}, with `topologies_why` saying why the others are left out")
        given = c.get("given_on")
        if given is not None and (not isinstance(given, list) or not set(given) <= set(c["profiles"])
                                  or not c.get("given_why")):
            raise CatalogueError(f"checks/{name}: {c['id']}: `given_on` must list profiles of the check's `profiles`, "
                                 "with `given_why` saying what there makes it pass without the learner")
        wp = warn_points(c)
        if not 0 <= wp <= c["points"]:
            raise CatalogueError(f"checks/{name}: {c['id']}: warn_points {wp:g} is not within 0-{c['points']:g}")
        if wp == c["points"] and c["points"] and not c.get("warn_points_why"):
            raise CatalogueError(f"checks/{name}: {c['id']}: a warning earns full points only with "
                                 "`warn_points_why` saying why")
    return tuple(checks)


def warn_points(check: dict[str, Any]) -> float:
    """What a WARN earns for ``check``: its ``warn_points``, default half its ``points``."""
    return float(check.get("warn_points", check["points"] / 2))


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


def describe_range(r: dict[str, Any]) -> str:
    """A range in words with its unit: ``9000 bytes``, ``>= 2 Gbit/s``, ``<= 3000 ms``, ``80-200 Gbit/s``."""
    lo, hi, unit = r.get("min"), r.get("max"), r.get("unit", "")
    if lo is not None and lo == hi:
        return f"{lo:g} {unit}".strip()
    if hi is None:
        return f">= {lo:g} {unit}".strip()
    if lo is None:
        return f"<= {hi:g} {unit}".strip()
    return f"{lo:g}-{hi:g} {unit}".strip()


def evaluate(expect: dict[str, Any], facts: dict[str, Any], profile: str) -> tuple[list[str], list[str], str | None]:
    """(wrong, unmeasured, range source) for one expectation: the sentences of what the facts show
    wrong (a non-empty list, a differing or out-of-range value), the sentences of what could not be
    judged (missing or empty values), and the range's source. Both lists empty: it holds. A range is
    the one for the facts' ``topology`` (a ring's or switch's facts carry it; a pair's do not) when
    checks/ranges.toml holds one for it."""
    op, matches = expect["op"], lookup(facts, expect["fact"])
    unmeasured = [_why_missing(facts, w) for w, v in matches if v is _MISSING]
    wrong: list[str] = []
    present = [(w, v) for w, v in matches if v is not _MISSING]
    r, src = None, None
    if op.endswith("in_range"):
        r = expected_range(profile, expect["range"], topology=facts.get("topology"))  # a ring's own bar, if any
        if r is None:
            return [f"no range {expect['range']!r} for profile {profile!r} in checks/ranges.toml"], [], None
        src = f"{r['source']} [holds for: {r['engine']}" + (f"; ranges file: {r['file']}]" if r.get("file") else "]")
    if op == "same":
        values = [v for _, v in present]
        if any(v in (None, [], "") for v in values):
            unmeasured += [f"{w} = {v!r}: nothing measured" for w, v in present if v in (None, [], "")]
        elif len({repr(v) for v in values}) > 1:
            wrong.append("differs: " + ", ".join(f"{w} = {v!r}" for w, v in present))
    elif op == "empty":
        for w, v in present:
            if v:
                wrong += [str(x) for x in (v if isinstance(v, list) else [v])]
    elif op == "in_range":
        for w, v in present:
            if v is None:
                unmeasured.append(f"{w}: no value measured, expected {describe_range(r)}")
            elif not _in(v, r):
                wrong.append(f"{w} = {v!r}, expected {describe_range(r)}")
    elif op == "all_in_range":
        for w, v in present:
            if not isinstance(v, list) or not v:
                unmeasured.append(f"{w}: no value measured, expected {describe_range(r)}")
            elif not all(_in(x, r) for x in v):
                wrong.append(f"{w} = {v!r}, expected {describe_range(r)}")
    return wrong, unmeasured, src


_RANK = {"pass": 0, "warn": 1, "unmeasured": 2, "fail": 3}


def grade(facts: dict[str, Any], lesson: str, profile: str) -> list[Verdict]:
    """Grade ``facts`` against ``lesson``'s catalogue for ``profile``. Pure; raises CatalogueError only.

    A check's status is the strongest of its expectations' outcomes (fail > unmeasured > warn >
    pass); a wrong value under ``severity = "warn"`` warns, under ``severity = "unmeasured"`` means
    nothing was there to judge. Details list every sentence, strongest first. On a profile of the check's
    ``given_on`` (the sim, for what the sim itself sets up: the cable) the check is judged as usual but
    carries 0 points, so it neither earns nor counts in a total.
    """
    verdicts = []
    for c in load_catalogue(lesson):
        if profile not in c["profiles"]:
            verdicts.append(Verdict(c["id"], c["title"], "skip", 0, 0,
                                    (f"does not apply to profile {profile!r} (checks/{lessons.get(lesson).catalogue}: "
                                     f"{', '.join(c['profiles'])})",), c["hint"], c["source"]))
            continue
        topology = facts.get("topology", "pair")
        if topology not in c.get("topologies", TOPOLOGIES):
            verdicts.append(Verdict(c["id"], c["title"], "skip", 0, 0,
                                    (f"does not apply to a {topology} (checks/{lessons.get(lesson).catalogue}: "
                                     f"{c['topologies_why']})",), c["hint"], c["source"]))
            continue
        found: dict[str, list[str]] = {"fail": [], "unmeasured": [], "warn": []}
        range_src = None
        for e in c["expect"]:
            wrong, missing, src = evaluate(e, facts, profile)
            range_src = range_src or src
            found[e.get("severity", "fail")] += wrong
            found["unmeasured"] += missing
        status = max((s for s, d in found.items() if d), key=_RANK.__getitem__, default="pass")
        earned = {"pass": float(c["points"]), "warn": warn_points(c)}.get(status, 0.0)
        details = tuple(dict.fromkeys(found["fail"] + found["unmeasured"] + found["warn"]))  # a sentence once
        points = c["points"]
        if profile in c.get("given_on", ()):  # judged, shown, but no work of the learner's: no points
            points, earned = 0, 0.0
            details += (f"on profile {profile} this is given ({c['given_why']}): checked, but it earns no points",)
        verdicts.append(Verdict(c["id"], c["title"], status, points, earned, details,
                                c["hint"], c["source"], range_src))
    return verdicts


def counts(verdicts: list[Verdict]) -> dict[str, int]:
    """{status: how many verdicts have it}, every status present."""
    return {s: sum(v.status == s for v in verdicts) for s in STATUSES}


def score(verdicts: list[Verdict]) -> tuple[float, float]:
    """(points earned, points possible): n.a. (skip) checks are left out; not measured ones count as 0 of their points."""
    return (sum(v.earned for v in verdicts), float(sum(v.points for v in verdicts if v.status != "skip")))


def summary_line(verdicts: list[Verdict]) -> str:
    """``score 10/22: 8 pass, 0 warn, 1 fail, 3 not measured`` (+ ``, 2 n.a.`` when some do not apply)."""
    earned, total = score(verdicts)
    n = counts(verdicts)
    line = (f"score {earned:g}/{total:g}: {n['pass']} pass, {n['warn']} warn, {n['fail']} fail, "
            f"{n['unmeasured']} not measured")
    return line + (f", {n['skip']} n.a." if n["skip"] else "")


def exit_code(verdicts: list[Verdict]) -> int:
    """0 when every applicable check passed or warned, 1 when some check failed or was not measured
    (DESIGN.md's exit-status contract: 0 means the work is done)."""
    return 1 if any(v.status in ("fail", "unmeasured") for v in verdicts) else 0
