"""What an nccl-tests table of machines that are not DGX Sparks says beyond its figure (for grader.judges.busbw): the
results checked correct and the bandwidth levelled off, and a plateau between machines of eight GPUs that is one
NIC's worth.

Sources: nccl-tests' `#wrong` column (elements that differ from the reference); NVIDIA/nccl#1222 (four nodes, 1-16 GiB
rows at 385-391 GB/s, #wrong 0: a saturated, correct run); NVIDIA/nccl-tests#319 (two HGX hosts, 16 ranks, 44 GB/s
from 128 MB on: one 400 Gb/s NIC's worth). Figures: checks/specs/ethernet.toml, checks/specs/topologies.toml.
"""

from __future__ import annotations

import math
import re

from ..parsers.nccl_tests import NcclTestsResult
from .common import info, machines_spanned, warn
from .model import Finding

_PLATEAU_ROWS = 3
"""How many of the largest sizes must agree for the bandwidth to be said to level off."""
_PLATEAU_SPREAD = 0.03
"""How far (a fraction of the largest size's busbw) those rows may differ and still be one plateau."""
_PLATEAU_FROM_BYTES = 64 * 2**20
"""The smallest size counted in a plateau: below it rows are still climbing (latency)."""


def _plateau(res: NcclTestsResult) -> float | None:
    """The busbw the largest sizes level off at (their mean, GB/s), or None where they do not agree or are small."""
    rows = [r for r in res.rows if r.busbw_gbs and r.size_bytes >= _PLATEAU_FROM_BYTES]
    top = sorted(rows, key=lambda r: r.size_bytes)[-_PLATEAU_ROWS:]
    if len(top) < _PLATEAU_ROWS or res.sizes_restart:
        return None
    bws = [r.busbw_gbs for r in top]
    return sum(bws) / len(bws) if max(bws) - min(bws) <= _PLATEAU_SPREAD * bws[-1] else None


def table_notes(res: NcclTestsResult) -> list[Finding]:
    """#wrong 0 in every row (said as such), and the plateau of the largest sizes; between machines of eight GPUs or
    more, a plateau no higher than one NIC of the fastest Ethernet rate is a warning the table cannot settle."""
    from ..calc.specs import row

    out: list[Finding] = []
    sides = [m for r in res.rows for m in (r.out_of_place, r.in_place) if m is not None]
    checked = bool(sides) and all(m.wrong is not None and m.rel_error is None for m in sides)
    level = _plateau(res)
    if checked and not res.wrong_total:
        out.append(info(f"#wrong 0 in every row ({len(res.rows)} sizes): the results are correct." + (
            f" busbw levels off at {level:.4g} GB/s over the {_PLATEAU_ROWS} largest sizes (within "
            f"{_PLATEAU_SPREAD:.0%}): the path is saturated, this setup's ceiling for {res.collective or 'the test'}."
            if level else "")))
    spanned = machines_spanned(None, len(res.hosts)) or 0
    out += _socket_class(res, spanned, row("topologies.toml", "host_rdma").graded("socket_busbw_max_gbs"))
    rates = row("ethernet.toml", "ieee_802_3").graded("rates_gbps") or []
    rail = row("topologies.toml", "host_rdma").graded("rail_gpus")
    if level is None or spanned < 2 or not res.nranks or not rates or not rail or res.nranks < rail * spanned:
        return out
    nic = max(rates) / 8  # the fastest NIC, GB/s
    nics = _gdr_nics(res)
    each = level * 8 / len(nics) if nics else 0.0  # Gb/s of busbw a NIC: near some RDMA NIC's line rate, or far under
    line = next((r for r in sorted(rates) if r >= 100 and 0.8 * r <= each <= r), None)  # (vq009; break-it 28 F5, 29 G8:
    # a GPU server's RDMA NICs run at 100 Gb/s or more, and near means within a fifth of one's line rate)
    if level <= nic and len(nics) > 1 and line:
        out.append(info(f"busbw levels off at {level:.4g} GB/s between {spanned} machines of {res.nranks // spanned} "
                        f"GPUs each, and its NCCL lines show the channels between machines over {len(nics)} NICs with "
                        f"GPUDirect RDMA ({', '.join(sorted(nics)[:8])}): the fabric's NICs carry it, about "
                        f"{each:.0f} Gb/s of busbw each, near a {line:g} Gb/s NIC's line rate: what a healthy fabric "
                        "of such NICs gives. Whether that is their speed, their own figure "
                        "says (`ibv_devinfo`'s active_speed, the instance's network figure)."))
    elif level <= nic:
        out.append(warn(
            f"busbw levels off at {level:.4g} GB/s between {spanned} machines of {res.nranks // spanned} GPUs each: "
            f"about one {max(rates):g} Gb/s NIC's worth ({nic:g} GB/s) or less. Servers of {rail} GPUs most often have "
            "a NIC per GPU, which gives several times that; with one NIC a machine, it is at its line rate. The table "
            "cannot tell which: the NCCL_DEBUG=INFO lines decide (its `NET/IB : Using` list, how many NICs carry "
            "channels, `/GDRDMA` on them); GPUDirect RDMA off, PCIe ACS or the IOMMU on the GPU-NIC path also "
            "hold the traffic to this."))
    return out


def _socket_class(res: NcclTestsResult, spanned: int, ceiling: float | None) -> list[Finding]:
    """Between machines, every row from _PLATEAU_FROM_BYTES up to a GiB or more at no more than a TCP socket path gives
    (checks/specs/topologies.toml socket_busbw_max_gbs): a hedged warning that names the lines that decide; silent
    where the table's own NCCL lines show an RDMA network (bottlerocket-core-kit#304, wi019)."""
    from ..parsers.nccl_log import transport_verdict
    big = [r for r in res.rows if r.busbw_gbs is not None and r.size_bytes >= _PLATEAU_FROM_BYTES]
    said = transport_verdict(res.nccl_log) if res.nccl_log else "unknown"
    if spanned < 2 or not ceiling or len(big) < _PLATEAU_ROWS or max(r.size_bytes for r in big) < 2**30 \
            or max(r.busbw_gbs for r in big) > ceiling or said not in ("unknown", "NET/Socket"):
        return []
    low, high = min(r.busbw_gbs for r in big), max(r.busbw_gbs for r in big)
    return [warn(f"busbw stays at {low:g}-{high:g} GB/s from {big[0].size_bytes:,} B to {big[-1].size_bytes:,} B between "
                 f"{spanned} machines: no more than NCCL's TCP socket transport gives (about {ceiling:g} GB/s at most) "
                 "or one slow NIC, where RDMA (InfiniBand, RoCE, EFA) reaches tens of GB/s at these sizes. "
                 + ("The table's NCCL lines show NET/Socket: the data went over TCP." if said == "NET/Socket" else
                    "The table cannot tell which: NCCL_DEBUG=INFO's `Using network` line (Socket, or IB / an OFI "
                    "plugin) and its `NET/... : Using` list decide.") + " Fine for a functional check; not for speed.")]


_PRINTED_HALF_STEP = 0.005
"""Half the last digit nccl-tests prints algbw and busbw to (``%.2f``): the rounding a ratio of them carries."""


def ranks_from_ratio(res: NcclTestsResult) -> list[Finding]:
    """Where a slice of a table shows neither its collective nor its ranks: busbw/algbw above 1 even allowing for the
    printed rounding is all-reduce's factor 2(n-1)/n (every other collective's is at most 1; nccl-tests
    doc/PERFORMANCE.md), so it gives about n ranks, and at least the n its rounding allows."""
    if res.nranks or res.ranks or re.sub(r"_perf(?:_mpi)?$", "", res.collective or "all_reduce") != "all_reduce":
        return []
    sides = [(r.size_bytes, m) for r in res.rows for m in (r.out_of_place,) if m and m.algbw_gbs and m.busbw_gbs]
    if not sides:
        return []
    size, m = max(sides, key=lambda s: s[1].algbw_gbs)
    a, b, h = m.algbw_gbs, m.busbw_gbs, _PRINTED_HALF_STEP
    low, ratio, high = (b - h) / (a + h), b / a, (b + h) / (a - h) if a > h else 2
    if not 1 < low < ratio < 2:
        return []
    least, most = math.ceil(2 / (2 - low) - 1e-9), math.floor(2 / (2 - high) + 1e-9) if high < 2 else None
    return [info(f"busbw is {ratio:.2f} x algbw at {size} B: above 1, which only all-reduce's factor 2(n-1)/n gives, "
                 "so " + (f"{least} ranks" if least == most else f"{least} to {most} ranks within the printed rounding"
                           if most else f"{least} ranks or more (the printed rounding allows no upper bound)") + "; the `# Rank` lines, not shown, would say which GPUs and machines.")]


_SIZE_EDGE_BYTES = 1 << 32
"""4 GiB: a buffer this large holds more bytes than a 32-bit size or offset can count."""


_STILL_RISING = 1.05
"""The last row's busbw over the row before it by at least this factor: the sweep stopped while it still climbed."""


def stopped_rising(res: NcclTestsResult) -> list[Finding]:
    """A sweep meant to measure bandwidth (to a MiB or more) whose largest size is under :data:`_PLATEAU_FROM_BYTES`
    times 4 and whose busbw still climbs at its last row: it ended before the path's plateau, so its top figure is not the path's bandwidth (blind batch vw006: ABCI's
    2x8 A100 to 32 MiB, 30.7 then 33.3 GB/s). [] where it levelled off or went on to large sizes."""
    rows = sorted((r for r in res.rows if r.busbw_gbs), key=lambda r: r.size_bytes)
    if len(rows) < 2 or res.sizes_restart or not 2**20 <= rows[-1].size_bytes < 4 * _PLATEAU_FROM_BYTES \
            or rows[-1].busbw_gbs < _STILL_RISING * rows[-2].busbw_gbs:
        return []
    return [info(f"The sweep ends at {rows[-1].size_bytes:,} B with busbw still rising ({rows[-2].busbw_gbs:g} then "
                 f"{rows[-1].busbw_gbs:g} GB/s): it stopped before the path's plateau, so {rows[-1].busbw_gbs:g} GB/s is "
                 "not what the GPUs and links carry. Run to larger messages (`-e 8G`) to measure that.")]


def size_edge(res: NcclTestsResult) -> list[Finding]:
    """Wrong results (``#wrong``, the old ``error`` column at 1, or an out-of-bounds check that failed) where every
    row that shows them is 4 GiB or more: nccl-tests' own checking overflowed at that edge before it was fixed
    (NVIDIA/nccl-tests#37: all_gather at 4 GiB, error 1e+00 and `Out of bounds values : 2 FAILED` on a healthy 8x V100
    NVLink box), so rows below it decide between the test and the data path. A note beside the fail, not instead;
    only where no row at or past the edge came out right and the nccl-tests is not one that prints its version (``#
    nccl-tests version``: releases years after the fix), else it would steer away from the GPUs and links."""
    bad = [r for r in res.rows if any(m is not None and ((m.wrong or 0) > 0 or (m.rel_error or 0) >= 1)
                                      for m in (r.out_of_place, r.in_place))]
    if not bad or min(r.size_bytes for r in bad) < _SIZE_EDGE_BYTES or res.tests_version \
            or any(r.size_bytes >= _SIZE_EDGE_BYTES for r in res.rows if r not in bad):
        return []  # (a correct row past the edge: no overflow there; a printed version: a release long after the fix)
    good = [r for r in res.rows if r not in bad]
    return [info("Every row with wrong results is 4 GiB or more (" + ", ".join(str(r.size_bytes) for r in bad[:3])
                 + " B), past what a 32-bit size counts: nccl-tests' own check has overflowed at that edge "
                 "(nccl-tests#37, fixed in later releases), so " + (
                     f"with the {len(good)} smaller size(s) correct the size edge, in the test or the library, is "
                     "the likely cause, not the GPUs or links. " if good else "this paste cannot tell the test from "
                     "the data path: ") + "Rerun with the current nccl-tests and sizes below 4 GiB (-e 2G) as well.")]


_NET_NIC_RE = re.compile(r"\] via (NET/[^/\n]{1,40}/\d{1,3})/GDRDMA\b")


def _gdr_nics(res: NcclTestsResult) -> set[str]:
    """The NICs (``NET/AWS Libfabric/3``) the paste's NCCL channel lines (the table's own, or those of the log above
    it) show traffic between machines going through with GPUDirect RDMA (``[send] via NET/.../N/GDRDMA``); empty
    without such lines."""
    from .context import context
    return set(_NET_NIC_RE.findall(context().paste or "")) or {
        c.detail.rsplit("/", 1)[0] for c in (res.nccl_log.channels if res.nccl_log else ())
        if c.transport.startswith("NET") and c.detail.endswith("/GDRDMA")}
