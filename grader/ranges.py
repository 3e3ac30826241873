"""Expected ranges and measurement parameters per profile, read from ``checks/ranges.toml``.

Every range carries ``source`` (a URL or document) and ``engine`` (the software and version it
holds for); :func:`load_ranges` refuses a file where one is missing.
"""

from __future__ import annotations

import os
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]


TOPOLOGIES = ("pair", "ring", "switch")
"""How the nodes are cabled (an inventory's ``topology``). A range may hold a table per topology
(``[spark-pair.allgather_busbw_gbs.ring]``) that replaces its figures, source and engine for that topology."""


class CatalogueError(ValueError):
    """A file in checks/ is malformed; the message names the file, the entry and the fix."""


RANGES_ENV = "CLUSTERLAB_RANGES"
"""An instructor's ranges file (``clusterlab baseline`` writes one) laid over ``checks/ranges.toml``: each
``[profile.name]`` table it holds replaces the project's for that profile; the rest stay."""


def _read(name: str) -> dict[str, Any]:
    text = resources.files("checks").joinpath(name).read_text(encoding="utf-8")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise CatalogueError(f"checks/{name}: not valid TOML: {e}") from None


def _check_table(r: Any, label: str, keys: tuple[str, ...]) -> None:
    """Raise CatalogueError naming ``label`` (``[profile.name]`` or ``[profile.name.ring]``) unless ``r`` is a
    table holding every one of ``keys`` and a ``min`` and/or ``max``."""
    if not isinstance(r, dict):
        raise CatalogueError(f"{label} is not a table")
    for key in keys:
        if not r.get(key):
            raise CatalogueError(f"{label} has no `{key}`: every range names its source, the engine version it "
                                 "holds for, and its unit (a topology's table inherits the unit)")
    if "min" not in r and "max" not in r:
        raise CatalogueError(f"{label} needs `min` and/or `max`")


def _validate(data: dict[str, Any], where: str) -> None:
    for profile, ranges in data.items():
        if not isinstance(ranges, dict):
            raise CatalogueError(f"{where}: [{profile}] is not a table of ranges")
        for name, r in ranges.items():
            if name == "measure":
                continue
            _check_table(r, f"{where}: [{profile}.{name}]", ("source", "engine", "unit"))
            if "nodes" in r and not (isinstance(r["nodes"], int) and not isinstance(r["nodes"], bool) and r["nodes"] >= 1):
                raise CatalogueError(f"{where}: [{profile}.{name}] `nodes` must be a whole number of nodes (the "
                                     "cluster size the figures hold for), e.g. nodes = 2")
            for topology in TOPOLOGIES:
                if topology in r:
                    _check_table(r[topology], f"{where}: [{profile}.{name}.{topology}]", ("source", "engine"))


def ranges_file() -> str | None:
    """The instructor's ranges file named by ``$CLUSTERLAB_RANGES``, or None (the project's ranges only)."""
    return os.environ.get(RANGES_ENV) or None


def ranges_used() -> str:
    """Which ranges a verdict is judged against, for reports: ``checks/ranges.toml`` or
    ``checks/ranges.toml + <file> ($CLUSTERLAB_RANGES)``."""
    extra = ranges_file()
    return "checks/ranges.toml" + (f" + {extra} (${RANGES_ENV})" if extra else "")


def load_ranges() -> dict[str, dict[str, dict[str, Any]]]:
    """{profile: {range name: {min?, max?, unit, source, engine, ...}}}: checks/ranges.toml with the file
    of ``$CLUSTERLAB_RANGES`` laid over it. Raises CatalogueError naming the file and the fix."""
    return _load(ranges_file())


@lru_cache(maxsize=8)
def _load(extra: str | None) -> dict[str, dict[str, dict[str, Any]]]:
    data = _read("ranges.toml")
    _validate(data, "checks/ranges.toml")
    if extra is None:
        return data
    try:
        over = tomllib.loads(Path(extra).expanduser().read_text(encoding="utf-8"))
    except OSError as e:
        raise CatalogueError(f"{extra} (${RANGES_ENV}) cannot be read: {e.strerror or e}; point ${RANGES_ENV} at "
                             "the file `clusterlab baseline --out` wrote, or unset it") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise CatalogueError(f"{extra} (${RANGES_ENV}): not valid TOML: {e}") from None
    _validate(over, f"{extra} (${RANGES_ENV})")
    merged = {profile: dict(ranges) for profile, ranges in data.items()}
    for profile, ranges in over.items():
        merged.setdefault(profile, {}).update({name: ({**r, "file": extra} if name != "measure" else r)
                                               for name, r in ranges.items()})
    return merged


def expected_range(profile: str, name: str, *, topology: str | None = None,
                   nodes: int | None = None) -> dict[str, Any] | None:
    """The range ``name`` for ``profile`` ({min?, max?, unit, source, engine}), or None if it has none.

    ``topology`` (``pair``, ``ring``, ``switch``; None: the range as written): the range's table for
    that topology, when it has one, replaces its ``min``, ``max``, ``source`` and ``engine``.
    ``nodes``: the cluster's node count; a range written for ``nodes = K`` nodes (a count that grows
    with the cluster: Ray's nodes, its accelerators) has its ``min`` and ``max`` scaled by nodes / K,
    and says so in ``source``. Without ``nodes`` (or a range with no ``nodes``) the figures are as written.
    """
    r = load_ranges().get(profile, {}).get(name)
    if r is None:
        return None
    out = {k: v for k, v in r.items() if k not in TOPOLOGIES}
    sub = r.get(topology) if topology else None
    if isinstance(sub, dict):
        out = {k: v for k, v in out.items() if k not in ("min", "max")} | sub
    per = out.get("nodes")
    if nodes is not None and per and nodes != per:
        for k in ("min", "max"):
            if out.get(k) is not None:
                scaled = out[k] * nodes / per
                out[k] = int(scaled) if isinstance(out[k], int) and scaled == int(scaled) else scaled
        out["source"] = f"{out['source']} (written for {per} nodes; scaled to {nodes})"
        out["nodes"] = nodes
    return out


def jumbo_mtu(profile: str) -> int | None:
    """The MTU lesson 1 asks for on ``profile`` (bytes: the ``mtu`` range's floor in checks/ranges.toml), or
    None where the profile has no such range (no jumbo MTU is asked for there). The one place this is read:
    the probes' DF pings, the netplan persistence judgment and the exercises' classic mistakes."""
    r = expected_range(profile, "mtu")
    return int(r["min"]) if r and "min" in r else None


def measurement_params(profile: str, measurement: str) -> dict[str, Any] | None:
    """Parameters of a named measurement for a profile (e.g. iperf3 streams and seconds), or None."""
    return load_ranges().get(profile, {}).get("measure", {}).get(measurement)


@lru_cache(maxsize=1)
def pairwise_counters() -> tuple[str, ...]:
    """The RDMA error counters read before and after a pairwise measurement: checks/pairwise.toml
    ``[counters] names`` (grader.facts.pairwise judges them; the probes and the sim read the names here).
    Raises CatalogueError when the list is missing or not names."""
    data = tomllib.loads(resources.files("checks").joinpath("pairwise.toml").read_text(encoding="utf-8"))
    names = (data.get("counters") or {}).get("names")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n.isidentifier() for n in names):
        raise CatalogueError("checks/pairwise.toml: [counters] names must be a non-empty list of sysfs counter "
                             "names: restore it from the project's copy")
    return tuple(names)
