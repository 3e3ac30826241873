"""Notes of the ``roce`` judge that compare the devices of one output (grader.judges.roce calls them).

GID tables laid out differently: the index of a port's IPv4-mapped (RoCE v2) GID depends on its addresses and on the
RoCE versions its driver offers (a v1/v2 pair per address, or v2 alone), so one fixed index (NCCL_IB_GID_INDEX,
perftest's ``-x``, UCX_IB_GID_INDEX) can be right on one host and point at a link-local or missing entry on the other
(NCCL's environment variables: https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-gid-index).
"""

from __future__ import annotations

from typing import Any

from ..parsers.ib_sysfs import ipv4_of_gid
from .common import warn
from .model import Finding


def gid_layouts(cas: Any) -> list[Finding]:
    """Two or more GID tables (``ibv_devinfo -v``) whose IPv4-mapped entries sit at different indices: a warning that a
    fixed GID index cannot fit them all, naming where each holds its IPv4 address."""
    tables = [(f"{c.ca or f'table {n}'} port {p.port}", [i for i, g, _ in p.gids if ipv4_of_gid(g)], len(p.gids))
              for n, c in enumerate(cas, start=1) for p in c.ports if p.gids]
    if len(tables) < 2 or any(not v4 for _, v4, _ in tables) or len({tuple(v4) for _, v4, _ in tables}) < 2:
        return []
    where = "; ".join(f"{name}: {n} entries, IPv4 at index {', '.join(map(str, v4))}" for name, v4, n in tables[:6])
    return [warn(f"The GID tables differ ({where}): the IPv4 (RoCE v2) entry is at a different index on each, so one "
                 "fixed GID index (NCCL_IB_GID_INDEX, perftest -x, UCX_IB_GID_INDEX) cannot be right on all of them; "
                 "a table with fewer entries offers fewer RoCE versions (another driver, kernel or RoCE mode). Set "
                 "the index per host, or make the RoCE mode the same; `show_gids` shows each entry's type.")]
