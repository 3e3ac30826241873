"""PCIe bandwidth per generation and lane count, per direction, after line encoding.

Units: GT/s (giga-transfers per second per lane, one bit per transfer per lane), Gbit/s
(1e9 bits/s) and GB/s (1e9 bytes/s, not GiB/s). PCIe is full duplex: each direction carries the
figure at the same time.

Arithmetic (figures.md §3.1, trust B): payload rate per lane = rate × payload_bits / line_bits.
Gen1/2 use 8b/10b (20% overhead), Gen3/4/5 use 128b/130b (~1.5%). Gen4 x16:
16 GT/s × 128/130 × 16 lanes / 8 bits per byte = 31.51 GB/s per direction. Gen6 (PAM4 with
FLIT and FEC) is modelled as 242/256 and marked unverified (U): its sources disagree.

The generation table is data: checks/specs/pcie.toml, read through :mod:`grader.calc.specs`.
"""

from __future__ import annotations

from dataclasses import dataclass

from grader.calc.specs import PcieGeneration, load_pcie

VALID_LANES = (1, 2, 4, 8, 12, 16, 32)
"""Link widths the PCIe specification defines (x12 and x32 are rare on desktops)."""


@dataclass(frozen=True)
class LinkBandwidth:
    """One link's bandwidth per direction.

    ``gbit_s`` in Gbit/s and ``gbyte_s`` in GB/s (1e9 bytes) after encoding; ``raw_gbit_s`` before
    encoding; ``verified`` False when the generation's figures are unverified (Gen6).
    """

    gen: int
    lanes: int
    raw_gbit_s: float
    gbit_s: float
    gbyte_s: float
    encoding: str
    source: str
    trust: str

    @property
    def verified(self) -> bool:
        return self.trust != "U"


def generation(gen: int) -> PcieGeneration:
    """The table row of PCIe generation ``gen`` (1-6). Raises ValueError for any other value."""
    if isinstance(gen, bool) or not isinstance(gen, int):
        raise ValueError(f"PCIe generation must be an integer 1-6, got {gen!r}")
    gens = load_pcie()["generations"]
    if gen not in gens:
        raise ValueError(f"PCIe generation {gen} does not exist; known: {', '.join(map(str, sorted(gens)))}")
    return gens[gen]


def _check_lanes(lanes: int) -> None:
    if isinstance(lanes, bool) or not isinstance(lanes, int) or lanes not in VALID_LANES:
        raise ValueError(f"PCIe link width must be one of x{', x'.join(map(str, VALID_LANES))}, got {lanes!r}")


def lane_gbit_s(gen: int) -> float:
    """Payload Gbit/s of ONE lane, one direction, after encoding: ``rate × payload/line``.

    Gen3: 8 × 128/130 = 7.877 Gbit/s; Gen4: 15.754; Gen5: 31.508. Source: pcie.toml (figures.md §3.1).
    """
    g = generation(gen)
    return g.rate_gt_s * g.payload_bits / g.line_bits


def link_bandwidth(gen: int, lanes: int) -> LinkBandwidth:
    """Bandwidth of a Gen ``gen`` x``lanes`` link, per direction, after encoding.

    Args:
        gen: PCIe generation, 1-6.
        lanes: link width, one of VALID_LANES.
    Returns:
        LinkBandwidth with Gbit/s and GB/s (1e9 bytes). Gen4 x16 -> 31.51 GB/s; Gen5 x16 -> 63.02.
    Raises:
        ValueError: unknown generation or width.
    """
    _check_lanes(lanes)
    g = generation(gen)
    raw = g.rate_gt_s * lanes
    gbit = raw * g.payload_bits / g.line_bits
    return LinkBandwidth(gen, lanes, raw, gbit, gbit / 8.0, g.encoding, g.source, g.trust)


def practical_fraction() -> tuple[float, float]:
    """(low, high) fraction of the line rate that large one-way copies reach: (0.75, 0.86).

    Source: nvbandwidth issue #15 (RTX 4090 at Gen4 x16: 23.9-27.1 of 31.5 GB/s) and club-3090
    PCIE_P2P.md (27.12 GB/s with P2P), trust B, via pcie.toml [practical]. Bidirectional copies
    reach less per direction (36-51% in the same issue); small messages are latency-bound.
    """
    p = load_pcie()["practical"]
    return float(p["fraction_low"]), float(p["fraction_high"])


def practical_bandwidth(gen: int, lanes: int) -> tuple[float, float]:
    """(low, high) GB/s a large one-way copy reaches on a Gen ``gen`` x``lanes`` link.

    ``link_bandwidth(gen, lanes).gbyte_s`` × :func:`practical_fraction`. Gen4 x16: 23.6-27.1 GB/s.
    """
    lo, hi = practical_fraction()
    bw = link_bandwidth(gen, lanes).gbyte_s
    return bw * lo, bw * hi


def links_carrying(rate: float) -> str | None:
    """The links a one-way copy of ``rate`` GB/s fits (``Gen4 x4 or Gen3 x8``: Gen4's first, then Gen3's and Gen5's),
    by :func:`practical_bandwidth`; None where no link's span holds it."""
    spans = {(g, n): practical_bandwidth(g, n) for g in (4, 3, 5) for n in (1, 2, 4, 8, 16)}  # a consumer's Gen4 first
    fit = [f"Gen{g} x{n}" for (g, n), (low, high) in spans.items() if low <= rate <= high]
    return " or ".join(fit[:2]) or None


def p2p_min_gain() -> float | None:
    """How many times faster than copies through host memory P2P between two cards should be for it to pay its way:
    1.2 (pcie.toml [p2p], trust C; measured gains 1.6-2.4x). None where the figure is missing or unverified (U)."""
    p = load_pcie()["p2p"]
    return float(p["min_gain"]) if p and p.get("trust") in ("A", "B", "C") else None


def p2p_floor_gbs() -> float | None:
    """The least one-way GB/s a P2P copy between two compute GPUs should reach: the low end of what the narrowest
    link such a card runs on carries (pcie.toml [p2p_floor], trust C: Gen3 x8, :func:`practical_bandwidth`). None
    where the figure is missing or unverified (U)."""
    p = load_pcie().get("p2p_floor")
    return practical_bandwidth(int(p["gen"]), int(p["lanes"]))[0] if p and p.get("trust") in ("A", "B", "C") else None


def p2p_staged_latency_high_us() -> float | None:
    """Above this many µs a GPU-to-GPU copy staged through host memory starts slower than the field's machines do
    (pcie.toml [p2p_staged_latency] high_us, trust C). None where the figure is missing or unverified (U)."""
    p = load_pcie().get("p2p_staged_latency")
    return float(p["high_us"]) if p and p.get("trust") in ("A", "B", "C") else None


def p2p_staged_floor(links: list[tuple[int, int] | None]) -> tuple[float, str] | None:
    """The least one-way GB/s copies staged through host memory should reach between cards of ``links`` ((gen, lanes)
    each, None for a card whose link is not known): pcie.toml [p2p_staged] min_share of the practical low of the
    narrowest link (an unknown card's taken as [p2p_staged] gen x lanes), with that link's name (``Gen4 x16``). None
    where the figures are missing or unverified (U)."""
    p = load_pcie().get("p2p_staged")
    if not p or p.get("trust") not in ("A", "B", "C") or not links:
        return None
    known = [link or (int(p["gen"]), int(p["lanes"])) for link in links]
    gen, lanes = min(known, key=lambda gl: practical_bandwidth(*gl)[0])
    return practical_bandwidth(gen, lanes)[0] * float(p["min_share"]), f"Gen{gen} x{lanes}"


def p2p_active_latency_drop() -> float | None:
    """How many times lower P2P's copy latency is than through host memory where the P2P path is in use: 3 (pcie.toml
    [p2p_latency], trust C). None where the figure is missing or unverified (U)."""
    p = load_pcie().get("p2p_latency")
    return float(p["active_drop"]) if p and p.get("trust") in ("A", "B", "C") else None


def p2p_broken_share() -> float | None:
    """Under this share of the copy rate through host memory, P2P between two cards is a broken path (pcie.toml
    [p2p_broken] below_share, trust C). None where the figure is missing or unverified (U)."""
    p = load_pcie().get("p2p_broken")
    return float(p["below_share"]) if p and p.get("trust") in ("A", "B", "C") else None


def aer_corrected_burst() -> int | None:
    """How many corrected PCIe errors in one paste make a stream worth a warning (pcie.toml [aer_corrected] burst,
    trust C). None where the figure is missing or unverified (U)."""
    p = load_pcie().get("aer_corrected")
    return int(p["burst"]) if p and p.get("trust") in ("A", "B", "C") else None


def gpu_generation(name: str | None) -> int | None:
    """The PCIe generation of the GPU named ``name`` (as nccl-tests or nvidia-smi print it): a desktop card's
    (gpus.toml pcie_gen), else a data-center card's (pcie.toml [gpu_generation]); None where no verified row (trust A,
    B or C) matches."""
    import re

    from grader.calc.specs import match_gpu
    spec = match_gpu(name)
    fig = spec.figures.get("pcie_gen") if spec else None
    if fig is not None:
        return int(fig.value) if fig.trust != "U" else None
    for card in load_pcie()["gpu_generation"].values():
        if name and card["trust"] in ("A", "B", "C") and re.search(card["match"], name, re.I):
            return int(card["gen"])
    return None


def generation_from_rate(gt_s: float) -> int:
    """The PCIe generation whose per-lane rate is ``gt_s`` GT/s (2.5 -> 1, 16 -> 4, 32 -> 5).

    ``lspci`` prints LnkCap/LnkSta speeds in GT/s. Raises ValueError for a rate no generation has.
    """
    if isinstance(gt_s, bool) or not isinstance(gt_s, (int, float)) or gt_s <= 0:
        raise ValueError(f"a PCIe rate must be a positive number of GT/s, got {gt_s!r}")
    for g in load_pcie()["generations"].values():
        if abs(g.rate_gt_s - float(gt_s)) < 1e-6:
            return g.gen
    raise ValueError(f"{gt_s:g} GT/s is not a PCIe generation's rate (2.5, 5, 8, 16, 32, 64)")


def transfer_time_s(nbytes: float, gbyte_s: float, latency_us: float = 0.0) -> float:
    """Seconds to move ``nbytes`` bytes over a link of ``gbyte_s`` GB/s with ``latency_us`` µs fixed cost.

    ``latency + bytes / bandwidth``: the simplest model that shows both regimes (small messages
    pay latency, large ones pay bandwidth). Raises ValueError for negative bytes or latency, or a
    non-positive bandwidth.
    """
    if nbytes < 0:
        raise ValueError(f"bytes must be >= 0, got {nbytes}")
    if gbyte_s <= 0:
        raise ValueError(f"bandwidth must be > 0 GB/s, got {gbyte_s}")
    if latency_us < 0:
        raise ValueError(f"latency must be >= 0 µs, got {latency_us}")
    return latency_us * 1e-6 + nbytes / (gbyte_s * 1e9)
