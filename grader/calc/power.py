"""Power and heat for a two-card desktop: the load, the PSU, the connectors, the wall circuit.

Units: watts (W) of DC load inside the box unless a name says ``wall``; volts (V), amps (A),
BTU/h. Sources (docs/research/figures.md §4) with trust grades:

- ATX 3.0 power excursion: a PSU must survive 200% of its rated power for 100 µs (AnandTech's
  MSI MEG Ai1300P review, B); the ATX 3 design guide's +12V add-in-card rail steps are 100% -> 300%
  of rated AIC amps (Intel ATX Version 3 design guide, Table 4-3, A). Intermediate tiers (e.g.
  160% for 10 ms) were not found (U), so longer excursions must fit the rating itself.
- RTX 5090 transients: up to 659 W over ≥ 0.1 s windows against a 575 W TGP (Tom's Hardware, B):
  a factor of 659/575 = 1.146 for that card; for other cards the same factor is an assumption (U).
- Connectors: 12V-2x6 / 12VHPWR 600 W per connector (gamereactor, secondary; PCIe CEM not read:
  C/U); 8-pin PCIe 150 W and the x16 slot 75 W (dzen.ru summary of the PCIe spec, C; the
  captured H200's lspci shows ``SlotPowerLimit 75W``).
- Circuits: the NEC 80% rule for continuous loads (≥ 3 h): 15 A × 120 V = 1,800 W nominal,
  1,440 W continuous; 20 A: 2,400 / 1,920 W (summaries of the NEC, C). 230 V regions:
  16 A × 230 V = 3,680 W, 80% -> 2,944 W is arithmetic only, no local code read (U).
- Heat: 1 W = 3.412141633 BTU/h (dataspan.com, bnoack.com, B). All the power a box draws from
  the wall ends up as heat in the room, so heat = wall draw, not DC load. Inside the case, the case fans carry
  the parts' DC load; the PSU's own loss leaves through its own fan.
- Airflow: the sensible-heat factor of standard air, 1.08 BTU/h per CFM per °F (checks/specs/cooling.toml, C).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

BTU_PER_HOUR_PER_WATT = 3.412141633
"""1 W = 3.412141633 BTU/h (figures.md §4.3, trust B)."""

CONTINUOUS_FRACTION = 0.8
"""The NEC 80% rule for continuous loads (figures.md §4.3, trust C; at 230 V unverified, U)."""

ATX3_EXCURSION_FACTOR = 2.0
ATX3_EXCURSION_SECONDS = 100e-6
"""ATX 3.0: 200% of rated power for 100 µs (figures.md §4.2, trust B)."""

REFERENCE_SPIKE_GPU = "rtx5090"
"""The card whose measured power spikes stand in for a card without its own (checks/specs/gpus.toml)."""


def reference_spike() -> tuple[float, float]:
    """The reference card's measured transient watts (≥ 0.1 s windows) and its TGP, from checks/specs/gpus.toml
    (RTX 5090: Tom's Hardware, trust B). Raises ValueError if the table lost either figure."""
    from grader.calc.specs import gpu
    spec = gpu(REFERENCE_SPIKE_GPU)
    spike, tgp = spec.graded("transient_watts"), spec.graded("tgp_watts")
    if not spike or not tgp:
        raise ValueError(f"checks/specs/gpus.toml: {REFERENCE_SPIKE_GPU} lacks a graded transient_watts or tgp_watts")
    return float(spike), float(tgp)


def reference_spike_words() -> str:
    """``"the RTX 5090: 659 W measured against its 575 W TGP, Tom's Hardware"``-like words for messages,
    built from the spec table (the figures live there only)."""
    from grader.calc.specs import gpu
    spike, tgp = reference_spike()
    return f"the {gpu(REFERENCE_SPIKE_GPU).name}: {spike:g} W measured against its {tgp:g} W TGP"


_SPIKE_W, _TGP_W = reference_spike()
RTX5090_TRANSIENT_FACTOR = _SPIKE_W / _TGP_W
"""The reference card's transient / TGP ratio (checks/specs/gpus.toml; RTX 5090, Tom's Hardware, trust B)."""


@dataclass(frozen=True)
class ConnectorLimit:
    """The rated power of one connector kind, with its source and trust."""

    watts: float
    source: str
    trust: str


CONNECTORS: dict[str, ConnectorLimit] = {
    "12v-2x6": ConnectorLimit(600, "gamereactor.eu (secondary); PCIe CEM 5.x not read (figures.md §4.2)", "C"),
    "12vhpwr": ConnectorLimit(600, "gamereactor.eu (secondary); PCIe CEM 5.x not read (figures.md §4.2)", "C"),
    "pcie-8pin": ConnectorLimit(150, "dzen.ru summary of the PCIe spec ('8-pin PCI-E Power ... 150 W')", "C"),
    "slot": ConnectorLimit(75, "dzen.ru summary of the PCIe spec; SlotPowerLimit 75W in the captured H200 lspci", "C"),
}
"""Connector limits by kind: ``12v-2x6``, ``12vhpwr``, ``pcie-8pin``, ``slot`` (PCIe x16 slot)."""


def _nonneg(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ValueError(f"{name} must be a number of watts >= 0, got {value!r}")


def _positive(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{name} must be a number > 0, got {value!r}")


def system_load_w(gpu_watts: Iterable[float], cpu_watts: float, rest_watts: float) -> float:
    """The box's sustained DC load: sum of the cards' power (TGP or power limit) + CPU + the rest.

    Args:
        gpu_watts: each card's board power, W (its TGP, or the limit ``nvidia-smi`` enforces).
        cpu_watts: the CPU's sustained package power, W (e.g. an i9-14900K's 253 W PL2, Tom's Hardware
            via figures.md §4.3).
        rest_watts: board, memory, drives, fans, pumps, W (~100 W in figures.md's example, U).
    Raises:
        ValueError: a negative figure, or no card.
    """
    gpus = list(gpu_watts)
    if not gpus:
        raise ValueError("give at least one card's power")
    for i, w in enumerate(gpus):
        _nonneg(f"gpu_watts[{i}]", w)
    _nonneg("cpu_watts", cpu_watts)
    _nonneg("rest_watts", rest_watts)
    return float(sum(gpus) + cpu_watts + rest_watts)


def transient_load_w(gpu_watts: Iterable[float], cpu_watts: float, rest_watts: float,
                     gpu_factor: float = RTX5090_TRANSIENT_FACTOR) -> float:
    """The load during GPU power spikes of ≥ 0.1 s: each card × ``gpu_factor``, CPU and rest as is.

    The default factor is the RTX 5090's measured 659/575 (B); for other cards it is an
    assumption (U). Raises ValueError for a factor below 1 and the same inputs as system_load_w.
    """
    if not gpu_factor >= 1:
        raise ValueError(f"gpu_factor must be >= 1 (a spike is not below the sustained power), got {gpu_factor!r}")
    gpus = list(gpu_watts)
    return system_load_w([w * gpu_factor for w in gpus], cpu_watts, rest_watts)


@dataclass(frozen=True)
class PsuCheck:
    """A load against a PSU. Watts throughout; ``load_fraction`` = sustained / rated.

    ``sustained_ok``: the sustained load is within the rating. ``transient_ok``: spikes of ≥ 0.1 s
    are within the rating too (ATX 3.0 only promises 200% for 100 µs, so longer spikes must fit the
    rating). ``excursion_limit_w``: what an ATX 3.x unit survives for 100 µs (None if not ATX 3).
    """

    psu_w: float
    load_w: float
    load_fraction: float
    sustained_ok: bool
    transient_w: float | None
    transient_ok: bool | None
    atx3: bool
    excursion_limit_w: float | None


def psu_check(load_w: float, psu_w: float, transient_w: float | None = None, atx3: bool = True) -> PsuCheck:
    """Check a sustained load (and optionally its ≥ 0.1 s transient) against a PSU's rated watts.

    Example (tests/test_calc.py): 2× RTX 4090 (450 W) + i9-14900K (253 W) + 100 W = 1,253 W on
    a 1,300 W ATX 3.0 unit: 96.4% loaded, sustained OK, 2,600 W excursion limit for 100 µs.
    Raises ValueError for a negative load or a non-positive rating, or a transient below the load.
    """
    _nonneg("load_w", load_w)
    _positive("psu_w", psu_w)
    if transient_w is not None and transient_w < load_w:
        raise ValueError(f"transient_w ({transient_w}) cannot be below the sustained load ({load_w})")
    return PsuCheck(float(psu_w), float(load_w), load_w / psu_w, load_w <= psu_w, transient_w,
                    None if transient_w is None else transient_w <= psu_w, atx3,
                    psu_w * ATX3_EXCURSION_FACTOR if atx3 else None)


def connector_capacity_w(connectors: Mapping[str, int], slot: bool = True) -> float:
    """Rated watts a card can draw: the sum over its power connectors, plus 75 W from the slot.

    ``{"pcie-8pin": 2}`` -> 2 × 150 + 75 = 375 W (an RTX 3090 FE at 350 W fits);
    ``{"12v-2x6": 1}`` -> 675 W (an RTX 5090 at 575 W fits). Raises ValueError for an unknown
    connector kind or a negative count.
    """
    total = CONNECTORS["slot"].watts if slot else 0.0
    for kind, count in connectors.items():
        if kind not in CONNECTORS or kind == "slot":
            raise ValueError(f"unknown connector {kind!r}; known: {', '.join(k for k in CONNECTORS if k != 'slot')}")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"connector count for {kind} must be a whole number >= 0, got {count!r}")
        total += CONNECTORS[kind].watts * count
    return float(total)


@dataclass(frozen=True)
class Circuit:
    """A wall circuit: ``nominal_w`` = volts × amps; ``continuous_w`` = nominal × 0.8 (the 80% rule)."""

    volts: float
    amps: float
    nominal_w: float
    continuous_w: float
    verified: bool


def circuit_capacity(volts: float, amps: float, continuous_fraction: float = CONTINUOUS_FRACTION) -> Circuit:
    """The watts a circuit carries: nominal, and continuous under the 80% rule.

    120 V × 15 A = 1,800 W nominal, 1,440 W continuous; 120 V × 20 A = 2,400 / 1,920 W (C);
    230 V × 16 A = 3,680 / 2,944 W (arithmetic only: ``verified`` False, U). Raises ValueError for
    volts outside 90-260 V (household mains), non-positive amps, or a fraction outside (0, 1].
    """
    if isinstance(volts, bool) or not isinstance(volts, (int, float)) or not 90 <= volts <= 260:
        raise ValueError(f"circuit volts must be household mains, 90-260 V, got {volts!r}")
    _positive("amps", amps)
    if not 0 < continuous_fraction <= 1:
        raise ValueError(f"continuous_fraction must be in (0, 1], got {continuous_fraction!r}")
    nominal = float(volts) * float(amps)
    return Circuit(float(volts), float(amps), nominal, nominal * continuous_fraction, volts < 150)


def wall_draw_w(dc_load_w: float, efficiency: float) -> float:
    """Watts from the wall for a DC load: ``dc_load / efficiency``.

    A PSU's efficiency at your load comes from its 80 PLUS report or review (e.g. 0.90); it is an
    input, not a figure this module knows. Raises ValueError for a negative load or efficiency
    outside (0, 1].
    """
    _nonneg("dc_load_w", dc_load_w)
    if isinstance(efficiency, bool) or not isinstance(efficiency, (int, float)) or not 0 < efficiency <= 1:
        raise ValueError(f"efficiency must be in (0, 1], e.g. 0.90, got {efficiency!r}")
    return dc_load_w / efficiency


def btu_per_hour(watts: float) -> float:
    """Heat in BTU/h for ``watts`` W dissipated: ``watts × 3.412141633``. 1,000 W -> 3,412 BTU/h."""
    _nonneg("watts", watts)
    return watts * BTU_PER_HOUR_PER_WATT


def case_airflow_cfm(heat_w: float, rise_c: float) -> float:
    """The airflow (CFM, cubic feet per minute) that carries ``heat_w`` W out of a case whose air may leave at most
    ``rise_c`` °C warmer than it came in: the sensible-heat equation of standard air, BTU/h = factor × CFM × ΔT(°F)
    (factor 1.08, checks/specs/cooling.toml [standard_air]), with 1 W = 3.412 BTU/h and ΔT(°F) = 1.8 × ΔT(°C).
    1,053 W at 10 °C: 184.8 CFM. Above 3,000 ft the air is thinner and needs about 10% more (same source).

    ``heat_w`` is what heats the case air: the DC load of the parts inside (the PSU's own loss leaves through its
    own fan). Fans' rated CFM is free-air flow: filters, radiators and a dense card stack deliver less. Raises
    ValueError for a negative heat or a rise that is not above 0; SpecError if the table lost its factor."""
    from grader.calc.specs import row
    _nonneg("heat_w", heat_w)
    _positive("rise_c", rise_c)
    factor = row("cooling.toml", "standard_air").graded("sensible_heat_factor")
    if not factor:
        raise ValueError("checks/specs/cooling.toml [standard_air] lacks a graded sensible_heat_factor")
    return btu_per_hour(heat_w) / (float(factor) * 1.8 * rise_c)


def free_slots(first_slot: int, second_slot: int, card_slots: int) -> int:
    """Empty slot widths between a card in ``first_slot`` and the next card in ``second_slot`` (slots numbered from
    the CPU down, one slot width apart), when the first card's cooler is ``card_slots`` wide:
    ``second_slot - first_slot - card_slots``. 0: the second card's backplate touches the first card's fans, which
    then breathe the second card's heat (club-3090 issue #178's GPU 1, 'sandwiched'); negative: the first card
    covers the second slot and both do not fit. Raises ValueError unless ``second_slot > first_slot >= 1`` and
    ``card_slots >= 1``."""
    if not (isinstance(first_slot, int) and isinstance(second_slot, int) and 1 <= first_slot < second_slot):
        raise ValueError(f"slots must be whole numbers with second > first >= 1, got {first_slot!r}, {second_slot!r}")
    if not (isinstance(card_slots, int) and card_slots >= 1):
        raise ValueError(f"card_slots must be a whole number >= 1, got {card_slots!r}")
    return second_slot - first_slot - card_slots


POWER_LIMIT_NOTES = """\
What `sudo nvidia-smi -i N -pl WATTS` does:
- It asks the driver (NVML nvmlDeviceSetPowerManagementLimit) to hold card N's board power at or
  below WATTS, by lowering clocks and voltage when the card would draw more. It needs root.
- WATTS must lie within the card's Min/Max Power Limit, shown by `nvidia-smi -q -d POWER`.
- The limit the card obeys is the enforced limit (`enforced.power.limit`), which other limiters
  can hold below the one you set.

What it does not do:
- It is not persistent: a reboot or a driver reload restores the default limit (NVML docs: "not
  persistent across reboots or driver unloads"). Re-apply it at boot, e.g. from a systemd unit.
- It does not stop short spikes: a {tgp:g} W RTX 5090 at its stock limit was measured at {spike:g} W over
  0.1 s windows (Tom's Hardware), so transients above the limit still reach the PSU.
- It saves nothing when the card already draws less: an RTX 4090 decoding one stream drew 246 W
  under caps of 500-530 W (club-3090 issue #697). Capping a 3090 pair at 330-350 W changed decode by
  about 2% (club-3090 issue #698).
- It does not reduce the CPU's or the rest of the box's power, nor raise a limit above Max.
""".format(spike=_SPIKE_W, tgp=_TGP_W)
"""What ``nvidia-smi -pl`` does and does not do (figures.md §4.4: NVML docs, trust A; club-3090, C)."""
