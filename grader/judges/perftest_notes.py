"""What a perftest result on a machine that is not a DGX Spark says beyond its figure (for grader.judges.perftest):
a bandwidth at a standard Ethernet rate's line rate, and a small-message latency high for RDMA but steady.

Sources: IEEE 802.3's rates (checks/specs/ethernet.toml); ib_write_lat between neighbouring RDMA NICs
(checks/specs/topologies.toml [host_rdma] write_lat_high_us); magnate3/linux-riscv-dev's ib_write_bw notes (98.03 Gb/s
on a 100 GbE RoCE port); uccl-project/uccl#707 (AMD IONIC: 8.43 us typical, 0.06 us stdev).
"""

from __future__ import annotations

from ..parsers.perftest import PerftestRun
from .common import info, warn
from .model import Finding

_LINE_RATE_SHARE = 0.9
"""A result at least this share of a standard rate (and not above it) is that rate's line rate, less headers."""
_STEADY_STDEV_SHARE = 0.05
"""A latency whose standard deviation is at most this share of its typical value is steady: a fixed cost."""


def other_host_notes(r: PerftestRun, label: str) -> list[Finding]:
    """A bandwidth within _LINE_RATE_SHARE under a standard Ethernet rate said as that rate's line rate (healthy if the
    port runs at it); a small-message write latency above the bar warned, with whether it is steady."""
    from ..calc.specs import row

    out: list[Finding] = []
    bw = r.bw_average_gbps
    rates = [x for x in row("ethernet.toml", "ieee_802_3").graded("rates_gbps") or [] if x >= 25]
    rate = min((x for x in rates if bw is not None and x >= bw), default=None)
    if bw is not None and rate and bw >= _LINE_RATE_SHARE * rate:
        out.append(info(f"{label}: {bw:.2f} Gb/s is a {rate:g} Gb/s port's line rate (less the headers): what a "
                        f"healthy link gives, if this port runs at {rate:g} Gb/s; on a faster port it would fall short "
                        "of it, so the port's speed (`ethtool <netdev>`, `ibstat` Rate) decides."))
    lat = r.lat_rows[0] if r.lat_rows else None
    bar = row("topologies.toml", "host_rdma").graded("write_lat_high_us")
    t = r.t_typical_us
    if lat is None or t is None or not bar or t <= bar or lat.bytes > 64:
        return out
    steady = lat.t_stdev_us is not None and lat.t_stdev_us <= _STEADY_STDEV_SHARE * t
    out.append(warn(f"{label}: t_typical {t:.2f} us for {lat.bytes}-byte messages is high for RDMA between "
                    "neighbouring hosts (hardware RDMA NICs one cable or one switch apart give 1-3 us, 5-6 us with "
                    f"power saving or a slower transport; above {bar:g} us something adds to it)"
                    + (f", and steady, a tight distribution (t_stdev {lat.t_stdev_us:.2f} us"
                                     + (f", 99.9% {lat.p99_9_us:.2f} us" if lat.p99_9_us is not None else "")
                                     + "): a fixed cost of the NIC, its firmware or the hops on the path, not jitter, "
                                     "loss or retransmission" if steady else "")
                    + ". This output cannot tell which: compare a back-to-back run, or another NIC on the same path."))
    return out
