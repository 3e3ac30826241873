"""Expected ranges and measurement parameters per profile, read from ``checks/ranges.toml``.

Every range carries ``source`` (a URL or document) and ``engine`` (the software and version it
holds for); :func:`load_ranges` refuses a file where one is missing.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]


class CatalogueError(ValueError):
    """A file in checks/ is malformed; the message names the file, the entry and the fix."""


def _read(name: str) -> dict[str, Any]:
    text = resources.files("checks").joinpath(name).read_text(encoding="utf-8")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise CatalogueError(f"checks/{name}: not valid TOML: {e}") from None


@lru_cache(maxsize=None)
def load_ranges() -> dict[str, dict[str, dict[str, Any]]]:
    """{profile: {range name: {min?, max?, unit, source, engine, ...}}}. Raises CatalogueError."""
    data = _read("ranges.toml")
    for profile, ranges in data.items():
        for name, r in ranges.items():
            if name == "measure":
                continue
            for key in ("source", "engine", "unit"):
                if not r.get(key):
                    raise CatalogueError(f"checks/ranges.toml: [{profile}.{name}] has no `{key}`: every range "
                                         "names its source, the engine version it holds for, and its unit")
            if "min" not in r and "max" not in r:
                raise CatalogueError(f"checks/ranges.toml: [{profile}.{name}] needs `min` and/or `max`")
    return data


def expected_range(profile: str, name: str) -> dict[str, Any] | None:
    """The range ``name`` for ``profile`` ({min?, max?, unit, source, engine}), or None if it has none."""
    return load_ranges().get(profile, {}).get(name)


def measurement_params(profile: str, measurement: str) -> dict[str, Any] | None:
    """Parameters of a named measurement for a profile (e.g. iperf3 streams and seconds), or None."""
    return load_ranges().get(profile, {}).get("measure", {}).get(measurement)
