"""What pairwise measurements across N nodes mean (issue 18): bandwidth per pair judged against the best
pair and against the profile's range, and RDMA error counters read before and after, judged per link.

Pure functions of measured numbers; the figures come from ``checks/pairwise.toml`` (the best-pair
fraction, how often a flagged pair is measured again, the counters and how much they may grow, each with
its source) and ``checks/ranges.toml`` (the profile's Gbit/s range). Units: bandwidth in **Gbit/s**
(bits / 1e9, as iperf3 prints ``Gbits/sec``; not GB/s, which is 8 times as much per unit), counters in counts.

A measurement is keyed by the pair it crossed, ``(a, b)``: node names, measured from ``a`` to ``b``
(iperf3's client on ``a``, its server on ``b``). Both ``(a, b)`` and ``(b, a)`` may be given: they
are two measurements, judged apart. A ``frozenset({a, b})`` key is an unordered pair, kept as
``(min, max)`` of the two names. Views of the result (terminal table, heat map): grader/widgets/pairwise.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Iterable, Mapping, Sequence

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from grader.ranges import CatalogueError, expected_range

RULE_FILE = "pairwise.toml"
PairKey = tuple[str, str]
STATUS_ORDER = ("pass", "flag", "unmeasured", "fail")
"""Pair and link statuses, best first: ``flag`` = below the best-pair bar, to be measured again."""
_GBPS_UNITS = ("Gbit/s", "Gb/s", "Gbits/sec")


@dataclass(frozen=True)
class Rule:
    """checks/pairwise.toml, validated: ``min_fraction_of_best`` (0-1), ``remeasure_times`` (>= 0),
    ``range_name`` (a range of checks/ranges.toml), ``counters`` (sysfs counter names), ``max_growth``
    (counts), and the ``source`` of each table."""

    min_fraction_of_best: float
    remeasure_times: int
    range_name: str
    counters: tuple[str, ...]
    max_growth: int
    sources: dict[str, str]
    relative_not_for: tuple[str, ...] = ()
    """Profiles where the best-pair bar is not applied (``[relative] not_for``), only the range."""

    def for_profile(self, profile: str | None) -> "Rule":
        """This rule as it applies to ``profile``: without the best-pair bar where ``not_for`` names it."""
        from dataclasses import replace
        return replace(self, min_fraction_of_best=0.0) if profile in self.relative_not_for else self


def rule_from_toml(data: Mapping[str, Any], where: str = f"checks/{RULE_FILE}") -> Rule:
    """The :class:`Rule` in ``data`` (checks/pairwise.toml parsed). Raises CatalogueError naming ``where``,
    the entry and the fix for a missing table, key or source, or a value out of its range."""
    def get(table: str, key: str, kind: type | tuple[type, ...]) -> Any:
        t = data.get(table)
        if not isinstance(t, Mapping):
            raise CatalogueError(f"{where}: no [{table}] table: restore it from the project's copy")
        v = t.get(key)
        if not isinstance(v, kind) or isinstance(v, bool):
            raise CatalogueError(f"{where}: [{table}] `{key}` is missing or not a {kind}: restore it")
        return v

    frac = float(get("relative", "min_fraction_of_best", (int, float)))
    if not 0 < frac <= 1:
        raise CatalogueError(f"{where}: [relative] min_fraction_of_best = {frac:g} must be above 0 and at most 1")
    times = get("relative", "remeasure_times", int)
    growth = get("counters", "max_growth", int)
    names = get("counters", "names", list)
    if times < 0 or growth < 0 or not names or not all(isinstance(n, str) and n.isidentifier() for n in names):
        raise CatalogueError(f"{where}: remeasure_times and max_growth must be >= 0 and [counters] names a "
                             "non-empty list of sysfs counter names")
    sources = {t: get(t, "source", str) for t in ("relative", "range", "counters")}
    not_for = data["relative"].get("not_for", [])
    if not isinstance(not_for, list) or not all(isinstance(x, str) for x in not_for):
        raise CatalogueError(f"{where}: [relative] not_for must be a list of profile names")
    return Rule(frac, times, get("range", "name", str), tuple(names), growth, sources, tuple(not_for))


@lru_cache(maxsize=1)
def load_rule() -> Rule:
    """checks/pairwise.toml as a :class:`Rule`. Raises CatalogueError naming the file and the fix."""
    text = resources.files("checks").joinpath(RULE_FILE).read_text(encoding="utf-8")
    try:
        return rule_from_toml(tomllib.loads(text))
    except tomllib.TOMLDecodeError as e:
        raise CatalogueError(f"checks/{RULE_FILE}: not valid TOML: {e}") from None


def _pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def _key(k: Any) -> PairKey:
    if isinstance(k, frozenset) and len(k) == 2:
        a, b = sorted(k)
    elif isinstance(k, (tuple, list)) and len(k) == 2:
        a, b = k
    else:
        raise ValueError(f"{k!r} is not a pair of node names: key each measurement by (a, b) or frozenset({{a, b}})")
    if not (isinstance(a, str) and isinstance(b, str) and a and b) or a == b:
        raise ValueError(f"{k!r} is not a pair of two different node names")
    return a, b


def _gbps(k: PairKey, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        raise ValueError(f"{k[0]} -> {k[1]}: {v!r} is not a bandwidth (a finite number >= 0, in Gbit/s)")
    return float(v)


@dataclass(frozen=True)
class PairVerdict:
    """One measured pair: ``a -> b``; ``gbps`` the first measurement and ``remeasured`` the later ones
    (Gbit/s); ``fraction_of_best`` of the latest value (None when the best pair measured 0); ``status``
    ``pass``, ``flag`` (below the bar, measure it again) or ``fail``; ``reasons`` the sentences."""

    a: str
    b: str
    gbps: float
    remeasured: tuple[float, ...]
    fraction_of_best: float | None
    status: str
    reasons: tuple[str, ...]

    @property
    def key(self) -> PairKey:
        return self.a, self.b

    @property
    def final_gbps(self) -> float:
        """The latest measurement of the pair, Gbit/s."""
        return self.remeasured[-1] if self.remeasured else self.gbps

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "gbps": round(self.gbps, 3),
                "remeasured_gbps": [round(x, 3) for x in self.remeasured], "final_gbps": round(self.final_gbps, 3),
                "fraction_of_best": None if self.fraction_of_best is None else round(self.fraction_of_best, 4),
                "status": self.status, "reasons": list(self.reasons)}


@dataclass(frozen=True)
class PairwiseJudgment:
    """Every pair's verdict (in the order given), the best pair and the bar it sets (Gbit/s), the
    profile's range used (None: none), and ``status``: the worst pair's."""

    pairs: tuple[PairVerdict, ...]
    best: PairKey
    best_gbps: float
    bar_gbps: float
    min_fraction_of_best: float
    range: dict[str, Any] | None
    sources: dict[str, str]

    @property
    def status(self) -> str:
        return max((p.status for p in self.pairs), key=STATUS_ORDER.index)

    def to_remeasure(self) -> list[PairKey]:
        """The flagged pairs: measure each once more and judge again with ``remeasured``."""
        return [p.key for p in self.pairs if p.status == "flag"]

    def nodes(self) -> list[str]:
        """The node names in the order they first appear in the pairs."""
        return list(dict.fromkeys(n for p in self.pairs for n in p.key))

    def verdict(self, a: str, b: str) -> PairVerdict | None:
        """The verdict of the measurement ``a -> b``, or None if it was not measured."""
        return next((p for p in self.pairs if p.key == (a, b)), None)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: ``{"unit": "Gbit/s", "status", "best": {"a", "b", "gbps"}, "bar_gbps",
        "min_fraction_of_best", "range", "nodes", "pairs": [PairVerdict.to_dict()...], "sources"}``."""
        return {"unit": "Gbit/s", "status": self.status,
                "best": {"a": self.best[0], "b": self.best[1], "gbps": round(self.best_gbps, 3)},
                "bar_gbps": round(self.bar_gbps, 3), "min_fraction_of_best": self.min_fraction_of_best,
                "range": self.range, "nodes": self.nodes(), "pairs": [p.to_dict() for p in self.pairs],
                "sources": dict(self.sources)}


def _range(profile: str | None, expected: Mapping[str, Any] | None, rule: Rule) -> dict[str, Any] | None:
    r = expected if expected is not None else (expected_range(profile, rule.range_name) if profile else None)
    if r is None:
        return None
    if r.get("unit") not in _GBPS_UNITS:
        raise ValueError(f"the range's unit is {r.get('unit')!r}: pairwise bandwidth is judged in Gbit/s")
    return {k: r[k] for k in ("min", "max", "unit", "source") if k in r}


def _in_range(value: float, r: dict[str, Any] | None) -> str | None:
    """Why ``value`` (Gbit/s) is outside ``r``, or None when it is inside (or there is no range)."""
    if r is None:
        return None
    lo, hi = r.get("min"), r.get("max")
    if lo is not None and value < lo:
        return f"{value:g} Gbit/s is below the profile's range ({lo:g} Gbit/s at least)"
    if hi is not None and value > hi:
        return f"{value:g} Gbit/s is above the profile's range ({hi:g} Gbit/s at most: a measurement that " \
               "did not cross the cable?)"
    return None


def judge_pairs(measured: Mapping[Any, float], remeasured: Mapping[Any, float | Sequence[float]] | None = None,
                *, profile: str | None = None, expected: Mapping[str, Any] | None = None,
                rule: Rule | None = None) -> PairwiseJudgment:
    """Judge each pair's bandwidth against the best pair and the profile's range.

    ``measured``: ``{(a, b): Gbit/s}``, the first measurement of every pair (see the module doc for keys).
    ``remeasured``: ``{(a, b): Gbit/s or [Gbit/s, ...]}``, the measurements again of flagged pairs
    (:meth:`PairwiseJudgment.to_remeasure`), at most ``rule.remeasure_times`` each. ``profile`` reads the
    range ``rule.range_name`` from checks/ranges.toml; ``expected`` (a range table: ``min``/``max``,
    ``unit`` in Gbit/s) overrides it; neither: no range check. ``rule``: default :func:`load_rule`.

    The best pair is the highest first measurement; its bar is ``min_fraction_of_best`` of it. A pair whose
    first value is below the bar is ``flag`` (measure it again); after re-measures, the latest value
    decides: at or above the bar ``pass``, still below with no re-measure left ``fail``, else ``flag``.
    A pair outside the range (judged on its latest value) or at 0 Gbit/s is ``fail`` whatever the bar says.

    Raises ValueError for no measurement, a key that is not two different node names, a value that is
    not a finite number >= 0, a pair given twice, a re-measure of a pair not measured or not flagged,
    more re-measures than the rule allows, or a range whose unit is not Gbit/s.
    """
    rule = rule or load_rule()
    first: dict[PairKey, float] = {}
    for k, v in measured.items():
        key = _key(k)
        if key in first:
            raise ValueError(f"{key[0]} -> {key[1]} is given twice: give each measurement once")
        first[key] = _gbps(key, v)
    if not first:
        raise ValueError("no pair was measured: give {(a, b): Gbit/s} for every pair that should talk")
    best = max(first, key=lambda k: first[k])  # the first of equal bests, in the order given
    best_gbps = first[best]
    frac = rule.min_fraction_of_best
    rng = _range(profile, expected, rule)

    def fraction(x: float) -> float | None:
        return round(x / best_gbps, 9) if best_gbps > 0 else None

    again: dict[PairKey, tuple[float, ...]] = {}
    for k, v in (remeasured or {}).items():
        key = _key(k)
        values = (v,) if isinstance(v, (int, float)) else tuple(v)
        if key not in first:
            raise ValueError(f"{key[0]} -> {key[1]} was measured again but never first: give its first measurement")
        f0 = fraction(first[key])
        if f0 is not None and f0 >= frac:
            raise ValueError(f"{key[0]} -> {key[1]} was not flagged ({_pct(f0)} of the best pair): only "
                             "flagged pairs are measured again")
        if len(values) > rule.remeasure_times:
            raise ValueError(f"{key[0]} -> {key[1]} was measured again {len(values)} times: the rule measures a "
                             f"flagged pair again at most {rule.remeasure_times} time(s)")
        again[key] = tuple(_gbps(key, x) for x in values)

    bar = f"{frac * 100:g}% of the best pair ({best[0]} -> {best[1]}, {best_gbps:g} Gbit/s)"
    verdicts = []
    for key, x in first.items():
        later = again.get(key, ())
        last = later[-1] if later else x
        f, f0 = fraction(last), fraction(x)
        reasons: list[str] = []
        if f0 is not None and f0 < frac:
            reasons.append(f"first {x:g} Gbit/s = {_pct(f0)}, below {bar}")
            if later:
                shown = ", ".join(f"{y:g}" for y in later)
                reasons.append(f"measured again: {shown} Gbit/s = {_pct(f)}" if f is not None else
                               f"measured again: {shown} Gbit/s")
            status = "pass" if f is not None and f >= frac else (
                "fail" if len(later) >= rule.remeasure_times else "flag")
            if status == "flag":
                reasons.append(f"measure it again ({rule.remeasure_times - len(later)} more time(s)) before judging")
            elif status == "fail":
                reasons.append(f"still below after {len(later)} more measurement(s): check this pair's cable, "
                               "ports and MTU against the best pair's")
        else:
            status = "pass"
        out = _in_range(last, rng)
        if last <= 0:
            status, out = "fail", f"{last:g} Gbit/s: no traffic crossed between {key[0]} and {key[1]}"
        if out:
            status = "fail"
            reasons.append(out)
        verdicts.append(PairVerdict(key[0], key[1], x, later, f, status, tuple(reasons)))
    return PairwiseJudgment(tuple(verdicts), best, best_gbps, best_gbps * frac, frac, rng,
                            {"relative": rule.sources["relative"], "range": (rng or {}).get("source", "none")})


# --------------------------------------------------------------------------- RDMA error counters

@dataclass(frozen=True)
class CounterVerdict:
    """One link's counters across a measurement: ``link`` (the caller's name for it, e.g.
    ``"spark-a rocep1s0f1/1"``), ``status`` (``pass``, ``fail``: a counter grew, ``unmeasured``: a reading
    or a counter is missing, or went down), ``grew`` ({counter: delta} beyond the allowed growth), ``reasons``."""

    link: str
    status: str
    grew: dict[str, int]
    reasons: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"link": self.link, "status": self.status, "grew": dict(self.grew), "reasons": list(self.reasons)}


def per_link(readings: Mapping[str, Mapping[str, Mapping[str, int]]]) -> dict[str, dict[str, int]]:
    """``{node: {"<device>/<port>": {counter: count}}}`` (one :meth:`IbCounters.values` per node) ->
    ``{"<node> <device>/<port>": {counter: count}}``, the links :func:`judge_counters` reads."""
    return {f"{node} {port}": dict(values) for node, ports in readings.items() for port, values in ports.items()}


def judge_counters(before: Mapping[str, Mapping[str, int]], after: Mapping[str, Mapping[str, int]],
                   *, links: Iterable[str] | None = None, rule: Rule | None = None) -> list[CounterVerdict]:
    """Judge each link's RDMA error counters read ``before`` and ``after`` a measurement.

    ``before``/``after``: ``{link: {counter name: count}}`` (e.g. from :func:`per_link`); ``links``: the
    links to judge (default: every link in either reading, before's order first). For each counter of
    ``rule.counters``: grown by more than ``rule.max_growth`` -> the link fails, naming the counter and its
    delta (``symbol_error grew by 3 (0 -> 3)``); lower after than before -> unmeasured (reset between the
    readings); missing in a reading -> unmeasured, naming it. A growth fails the link even when another
    counter is missing. Raises ValueError for a count that is not a whole number >= 0.
    """
    rule = rule or load_rule()
    names = list(links) if links is not None else list(dict.fromkeys([*before, *after]))
    out = []
    for link in names:
        b, a = before.get(link), after.get(link)
        if b is None or a is None:
            which = "before" if b is None else "after"
            out.append(CounterVerdict(link, "unmeasured", {}, (f"its counters were not read {which} the "
                                                               "measurement: read them on both sides of it",)))
            continue
        grew: dict[str, int] = {}
        reasons, unknown = [], []
        for c in rule.counters:
            x, y = b.get(c), a.get(c)
            for v in (x, y):
                if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                    raise ValueError(f"{link} {c}: {v!r} is not a count (a whole number >= 0)")
            if x is None or y is None:
                unknown.append(f"{c} not read {'before' if x is None else 'after'}")
            elif y < x:
                unknown.append(f"{c} went down ({x} -> {y}): the counters were reset between the readings; "
                               "measure again")
            elif y - x > rule.max_growth:
                grew[c] = y - x
                reasons.append(f"{c} grew by {y - x} ({x} -> {y}) during the measurement")
        status = "fail" if grew else ("unmeasured" if unknown else "pass")
        out.append(CounterVerdict(link, status, grew, tuple(reasons + unknown)))
    return out


def matrix(judgment: PairwiseJudgment, nodes: Sequence[str] | None = None
           ) -> tuple[list[str], list[list[tuple[PairVerdict, bool] | None]]]:
    """The pairs as a square matrix for a table or a heat map: ``(names, cells)``; ``cells[i][j]`` is
    ``(verdict, mirrored)`` for the measurement ``names[i] -> names[j]``, or, where only ``names[j] ->
    names[i]`` was measured, that one with ``mirrored`` True; None on the diagonal and where neither
    direction was measured. ``nodes`` orders the rows (default: as the pairs name them); a node of the
    pairs missing from ``nodes`` is added at the end."""
    names = list(nodes or []) + [n for n in judgment.nodes() if n not in (nodes or [])]
    cells: list[list[tuple[PairVerdict, bool] | None]] = []
    for a in names:
        row: list[tuple[PairVerdict, bool] | None] = []
        for b in names:
            v = judgment.verdict(a, b) if a != b else None
            back = judgment.verdict(b, a) if a != b and v is None else None
            row.append((v, False) if v else ((back, True) if back else None))
        cells.append(row)
    return names, cells
