"""Notes of the ``roce`` judge that compare the devices of one output (grader.judges.roce calls them).

GID tables laid out differently: the index of a port's IPv4-mapped (RoCE v2) GID depends on its addresses and on the
RoCE versions its driver offers (a v1/v2 pair per address, or v2 alone), so one fixed index (NCCL_IB_GID_INDEX,
perftest's ``-x``, UCX_IB_GID_INDEX) can be right on one host and point at a link-local or missing entry on the other
(NCCL's environment variables: https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-gid-index).
"""

from __future__ import annotations

from typing import Any

from ..parsers.ib_sysfs import ipv4_of_gid
from .common import info, ok, warn
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


def cut_gids(label: str, port: Any, v2_index: int | None) -> list[Finding]:
    """``ibv_devinfo -v``'s GID table cut inside its last line (``GID[  1]: ::ffff``, no type after it, where the
    lines above print theirs): the entry that would carry the IPv4 address is not shown, so no verdict on it."""
    if v2_index is not None or len(port.gids) < 2:
        return []
    index, gid, kind = port.gids[-1]
    if kind is not None or not any(k for _, _, k in port.gids[:-1]) or gid.count(":") >= 7 or "." in gid:
        return []
    return [info(f"{label}: the GID table is cut off at GID[{index}] (`{gid}`, the start of an IPv4-mapped address "
                 "where it ends in ffff): which RoCE v2 entry carries the netdev's IPv4 address is not shown. "
                 "`show_gids` (or the whole `ibv_devinfo -v`) shows the table.")]


def fabric_notes(cas: Any) -> list[Finding]:
    """What ``ibv_devinfo`` says of the fabric beyond a port's state: an InfiniBand port given its LID by a subnet
    manager (the fabric is up and managed); an AWS Elastic Fabric Adapter (vendor 0x1d0f), which is neither InfiniBand
    nor RoCE whatever older rdma-core prints as its link layer (linux-rdma/rdma-core#884)."""
    out: list[Finding] = []
    efa = [c for c in cas if (c.ca or "").startswith("efa") or "0x1d0f" in (c.ca_type or "")]
    for c in efa[:2]:
        quirk = any((p.link_layer or "").lower() == "infiniband" for p in c.ports)
        out.append(info(f"{c.ca or 'this device'} is an AWS Elastic Fabric Adapter (EFA): neither InfiniBand nor RoCE"
                        + (". Its `link_layer: InfiniBand` is how older rdma-core prints a link layer the kernel "
                           "leaves unspecified (later ones print Unspecified), not a sign of InfiniBand" if quirk else "")
                        + "; LID 0, zero GUIDs and firmware 0.0.0.0 are normal for it (no subnet manager). NCCL reaches "
                          "it through the aws-ofi-nccl plugin (libfabric), not its own NET/IB transport."))
    managed = [(c.ca or "this device", p) for c in cas if c not in efa for p in c.ports
               if (p.link_layer or "").lower() == "infiniband" and p.is_active and p.base_lid and p.sm_lid
               and p.base_lid not in (0, 65535)]
    if managed:
        lids = ", ".join(f"{n} port {p.port} LID {p.base_lid}" for n, p in managed[:4])
        sms = sorted({p.sm_lid for _, p in managed})
        out.append(ok(f"InfiniBand, each port with its own LID from a subnet manager ({lids}; subnet manager at LID "
                      f"{', '.join(map(str, sms))}): the fabric is up and managed."))
    return out
