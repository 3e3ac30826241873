"""Spec tables as data: GPUs (checks/specs/gpus.toml), PCIe (checks/specs/pcie.toml), QSFP fabrics
(checks/specs/topologies.toml) and mixture-of-experts models (checks/specs/moe_models.toml).

Every figure carries its unit, its source and a trust grade (docs/research/figures.md):

- ``A`` a vendor document or project source;
- ``B`` a named, reproducible measurement or a reputable review's spec table;
- ``C`` a community page, retailer listing or aggregator;
- ``U`` unverified: derived here, read second-hand, or the sources disagree.

A threshold on what software prints (every figure of serving.toml and memory.toml, and gpus.toml's engine settings,
named ``vllm_...``) also names its ``engine``: the software and the versions it holds for, as checks/ranges.toml's
ranges do; gpus.toml's hardware figures have none.

A ``U`` figure is returned, marked ``verified = False``, so a calculator can show it with a
warning; :meth:`GpuSpec.graded` never returns one, and graded checks read figures through it only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

TRUST_GRADES = ("A", "B", "C", "U")


class SpecError(ValueError):
    """A spec table is malformed; the message names the file, the row and the field."""


@dataclass(frozen=True)
class Figure:
    """One sourced figure: ``value`` in ``unit`` (``""`` for words), from ``source``, graded ``trust``.

    ``engine`` names the software and the versions a threshold on what software prints holds for
    (``""`` for a hardware figure, which has none); serving.toml and memory.toml give every figure one.
    """

    value: Any
    unit: str
    source: str
    trust: str
    engine: str = ""

    @property
    def verified(self) -> bool:
        """False for a ``U`` figure: show it, with a warning, but never grade against it."""
        return self.trust != "U"

    def describe(self) -> str:
        """``450 W (trust C)`` or ``936 GB/s (UNVERIFIED)``, for messages and widgets."""
        value = f"{self.value:g}" if isinstance(self.value, (int, float)) else str(self.value)
        text = f"{value} {self.unit}".strip()
        return f"{text} (UNVERIFIED)" if not self.verified else f"{text} (trust {self.trust})"


@dataclass(frozen=True)
class SpecRow:
    """One row of a spec table: ``id`` (its TOML key), display ``name``, and its figures by key."""

    id: str
    name: str
    figures: dict[str, Figure]

    def figure(self, key: str) -> Figure | None:
        """The figure ``key`` (verified or not), or None if the table has no such figure."""
        return self.figures.get(key)

    def graded(self, key: str) -> Any:
        """The value of ``key`` if it exists and is verified (trust A, B or C), else None.

        Checks read spec figures only through this, so a ``U`` figure never decides a verdict.
        """
        fig = self.figures.get(key)
        return fig.value if fig is not None and fig.verified else None

    def value(self, key: str) -> Any:
        """The value of ``key`` whatever its trust (a calculator shows the trust beside it).

        Raises SpecError naming the row and the key when the table has no such figure.
        """
        fig = self.figures.get(key)
        if fig is None:
            raise SpecError(f"spec row [{self.id}] has no figure `{key}`; it has: {', '.join(self.figures)}")
        return fig.value


@dataclass(frozen=True)
class GpuSpec(SpecRow):
    """One card (or the DGX Spark) from gpus.toml: ``id``, display ``name``, ``match`` regex, figures."""

    match: str = ""


def _read(name: str) -> dict[str, Any]:
    path = resources.files("checks").joinpath("specs", name)
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SpecError(f"checks/specs/{name} is missing: reinstall clusterlab") from None
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"checks/specs/{name}: not valid TOML: {e}") from None


def _figure(where: str, raw: Any) -> Figure:
    if not isinstance(raw, dict):
        raise SpecError(f"{where}: a figure must be a table {{value, unit, source, trust[, engine]}}")
    for key in ("value", "unit", "source", "trust"):
        if key not in raw:
            raise SpecError(f"{where}: has no `{key}`: every figure names its value, unit, source and trust")
    if raw["trust"] not in TRUST_GRADES:
        raise SpecError(f"{where}: trust {raw['trust']!r} is not one of {', '.join(TRUST_GRADES)}")
    if not str(raw["source"]).strip():
        raise SpecError(f"{where}: empty source")
    engine = raw.get("engine", "")
    if "engine" in raw and (not isinstance(engine, str) or not engine.strip()):
        raise SpecError(f"{where} engine: {engine!r} is not a non-empty string: name the software and the "
                        "versions the figure holds for")
    return Figure(raw["value"], str(raw["unit"]), str(raw["source"]), str(raw["trust"]), engine)


@lru_cache(maxsize=None)
def load_gpus() -> dict[str, GpuSpec]:
    """{id: GpuSpec} from checks/specs/gpus.toml, in file order. Raises SpecError when malformed."""
    out: dict[str, GpuSpec] = {}
    for gid, row in _read("gpus.toml").items():
        where = f"checks/specs/gpus.toml [{gid}]"
        if not isinstance(row, dict) or "name" not in row or "match" not in row:
            raise SpecError(f"{where}: needs `name` and `match`")
        try:
            re.compile(row["match"])
        except re.error as e:
            raise SpecError(f"{where}: `match` is not a regular expression: {e}") from None
        figures = {k: _figure(f"{where} {k}", v) for k, v in row.items() if k not in ("name", "match")}
        out[gid] = GpuSpec(gid, str(row["name"]), figures, str(row["match"]))
    return out


def gpu(gid: str) -> GpuSpec:
    """The GpuSpec with id ``gid`` (e.g. ``"rtx4090"``). Raises ValueError naming the known ids."""
    table = load_gpus()
    if gid not in table:
        raise ValueError(f"unknown GPU id {gid!r}; known: {', '.join(table)}")
    return table[gid]


@lru_cache(maxsize=None)
def load_rows(name: str) -> dict[str, SpecRow]:
    """{id: SpecRow} from checks/specs/``name`` (a table of rows, each with ``name`` and figures
    {value, unit, source, trust[, engine]}), in file order: topologies.toml, moe_models.toml. Raises SpecError
    when the file is missing or malformed, naming the file, the row and the field."""
    out: dict[str, SpecRow] = {}
    for rid, row in _read(name).items():
        where = f"checks/specs/{name} [{rid}]"
        if not isinstance(row, dict) or "name" not in row:
            raise SpecError(f"{where}: needs `name`")
        figures = {k: _figure(f"{where} {k}", v) for k, v in row.items() if k != "name"}
        out[rid] = SpecRow(rid, str(row["name"]), figures)
    return out


def row(name: str, rid: str) -> SpecRow:
    """The row ``rid`` of checks/specs/``name`` (``row("topologies.toml", "ring")``). Raises ValueError
    naming the known rows."""
    table = load_rows(name)
    if rid not in table:
        raise ValueError(f"unknown row {rid!r} in checks/specs/{name}; known: {', '.join(table)}")
    return table[rid]


def match_gpu(smi_name: str | None) -> GpuSpec | None:
    """The first row whose ``match`` regex finds ``smi_name`` (as nvidia-smi prints it), else None.

    ``"NVIDIA GeForce RTX 4090"`` -> rtx4090; ``"NVIDIA H200"`` -> None (not a desktop card here).
    """
    if not smi_name:
        return None
    for spec in load_gpus().values():
        if re.search(spec.match, smi_name, re.I):
            return spec
    return None


@dataclass(frozen=True)
class PcieGeneration:
    """One PCIe generation: transfer rate in GT/s per lane and the line encoding's payload fraction."""

    gen: int
    rate_gt_s: float
    encoding: str
    payload_bits: int
    line_bits: int
    source: str
    trust: str

    @property
    def verified(self) -> bool:
        return self.trust != "U"


@dataclass(frozen=True)
class LinkFigure:
    """A measured GPU-to-GPU link: one-way bandwidth (GB/s, 1e9 bytes) and small-message latency (µs)."""

    id: str
    label: str
    bandwidth_gbs: float
    latency_us: float
    source: str
    trust: str

    @property
    def verified(self) -> bool:
        return self.trust != "U"


@lru_cache(maxsize=None)
def load_pcie() -> dict[str, Any]:
    """{"generations": {gen: PcieGeneration}, "practical": Figure-like dict, "links": {id: LinkFigure}, "p2p":
    Figure-like dict (``min_gain``), "p2p_latency": Figure-like dict (``active_drop``), "p2p_broken": Figure-like dict
    (``below_share``), "aer_corrected": Figure-like dict (``burst``), "p2p_floor" (``gen``, ``lanes``), "p2p_staged" (``min_share``, ``gen``, ``lanes``), "p2p_staged_latency" (``high_us``), "gpu_generation": {id: {match, gen, source,
    trust}}}."""
    data = _read("pcie.toml")
    gens: dict[int, PcieGeneration] = {}
    for key, row in data.get("generation", {}).items():
        where = f"checks/specs/pcie.toml [generation.{key}]"
        for f in ("rate_gt_s", "encoding", "payload_bits", "line_bits", "source", "trust"):
            if f not in row:
                raise SpecError(f"{where}: has no `{f}`")
        if row["trust"] not in TRUST_GRADES:
            raise SpecError(f"{where}: trust {row['trust']!r} is not one of {', '.join(TRUST_GRADES)}")
        gens[int(key)] = PcieGeneration(int(key), float(row["rate_gt_s"]), row["encoding"], int(row["payload_bits"]),
                                        int(row["line_bits"]), row["source"], row["trust"])
    practical = data.get("practical", {})
    for f in ("fraction_low", "fraction_high", "source", "trust"):
        if f not in practical:
            raise SpecError(f"checks/specs/pcie.toml [practical]: has no `{f}`")
    links: dict[str, LinkFigure] = {}
    for key, row in data.get("link", {}).items():
        where = f"checks/specs/pcie.toml [link.{key}]"
        for f in ("label", "bandwidth_gbs", "latency_us", "source", "trust"):
            if f not in row:
                raise SpecError(f"{where}: has no `{f}`")
        links[key] = LinkFigure(key, row["label"], float(row["bandwidth_gbs"]), float(row["latency_us"]),
                                row["source"], row["trust"])
    p2p, latency, broken = data.get("p2p", {}), data.get("p2p_latency", {}), data.get("p2p_broken", {})
    corrected, floor = data.get("aer_corrected", {}), data.get("p2p_floor", {})
    staged, staged_latency = data.get("p2p_staged", {}), data.get("p2p_staged_latency", {})
    for name, table, key in (("p2p", p2p, "min_gain"), ("p2p_latency", latency, "active_drop"), ("p2p_floor", floor, "lanes"),
                             ("p2p_staged", staged, "min_share"), ("p2p_staged_latency", staged_latency, "high_us"),
                             ("p2p_broken", broken, "below_share"), ("aer_corrected", corrected, "burst")):
        for f in (key, "source", "trust"):
            if table and f not in table:
                raise SpecError(f"checks/specs/pcie.toml [{name}]: has no `{f}`")
    cards = data.get("gpu_generation", {})
    for key, card in cards.items():
        for f in ("match", "gen", "source", "trust"):
            if f not in card:
                raise SpecError(f"checks/specs/pcie.toml [gpu_generation.{key}]: has no `{f}`")
    return {"generations": gens, "practical": dict(practical), "links": links, "p2p": dict(p2p),
            "p2p_latency": dict(latency), "p2p_broken": dict(broken), "aer_corrected": dict(corrected),
            "p2p_floor": dict(floor), "p2p_staged": dict(staged), "p2p_staged_latency": dict(staged_latency),
            "gpu_generation": dict(cards)}


def link(link_id: str) -> LinkFigure:
    """A measured link from pcie.toml (``pcie4-p2p``, ``pcie4-no-p2p``...). Raises ValueError if unknown."""
    links = load_pcie()["links"]
    if link_id not in links:
        raise ValueError(f"unknown link {link_id!r}; known: {', '.join(links)}")
    return links[link_id]
