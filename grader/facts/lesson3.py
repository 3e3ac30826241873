"""Lesson 3 facts: two cards in one desktop. Derived from the raw outputs in the evidence.

Shape (JSON-able)::

    {"desktop": {"psu_watts", "circuit_volts", "circuit_amps", "cpu_watts", "other_watts"} | None,
     "nodes": {name: {
        "reachable": bool, "error": str|None,
        "gpus": [{"index", "name", "bus_id", "spec", "tgp_w", "tgp_trust", "pstate", "utilization_pct",
                  "idle", "gen_current", "gen_max", "gen_spec", "width_current", "width_max", "width_cap",
                  "width_spec",
                  "pci_bridges", "power_draw_w", "limit_w", "default_limit_w", "max_limit_w",
                  "enforced_limit_w"}],
        "p2p": [{"a", "b", "path", "meaning", "p2p_read"}],
        "power": {"gpu_enforced_w", "gpu_default_w", "cpu_w", "other_w", "load_w", "load_default_w",
                  "psu_w", "load_fraction", "transient_w", "circuit_continuous_w"},
        "link_remarks": [sentence, ...] (information, never graded),
        "gpu_count_problems" | "link_problems" | "link_notes" | "p2p_problems" |
        "power_problems" | "power_warnings" | "circuit_problems": [sentence, ...]}}}

Each ``*_problems`` list holds one sentence per thing wrong, naming the card and the value seen.
Spec figures (TGP, the card's PCIe generation and width) are read through
:meth:`grader.calc.specs.GpuSpec.graded`, so an unverified (U) figure never decides a verdict.

The sentence builders (``link_sentences``, ``p2p_sentences``, ``power_sentences``) are shared
with ``clusterlab explain`` (grader/judges/gpu.py): one place says what an output means.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from grader.calc import power as pw
from grader.calc.specs import match_gpu
from grader.parsers.common import ParseError
from grader.parsers.lspci import PciDevice, PciPath, parse_lspci_vv, parse_pci_paths
from grader.parsers.nvidia_smi import (LINK_MEANING, P2P_STATUS, QueryRow, link_family, parse_query_gpu,
                                       parse_topo_matrix, parse_topo_p2p)

if TYPE_CHECKING:  # annotations only: `explain` reads these sentences without loading the evidence module
    from grader.evidence import Evidence, RawOutput

CHIPSET_BRIDGES = 3
"""A card with this many PCIe bridges above it hangs off a chipset or a PCIe switch, not a CPU root port."""


def _bus_key(bus_id: str | None) -> str | None:
    """``00000000:01:00.0`` / ``0000:01:00.0`` / ``01:00.0`` -> ``01:00.0`` (bus:device.function)."""
    if not bus_id:
        return None
    return bus_id.lower().split(":", bus_id.count(":") - 1)[-1] if bus_id.count(":") >= 1 else bus_id.lower()


IDLE_GEN = 1
"""The PCIe generation an idle NVIDIA card steps its link down to (2.5 GT/s): a link at Gen1 and full width is what
an idle card shows, so where the load is not known it is said, not warned (the corpus's d028 and h015: an RTX 3090,
4090 and A4000 idle at 2.5 GT/s x16; nvidia-smi --help-query-gpu: current values "may be reduced when the GPU is not
in use")."""


def stepped_down_idle(gen_current: int | None, idle: bool | None) -> bool:
    """Whether a link below its generation is an idle card's power saving: the card is idle, or its load is not known
    and the link sits at ``IDLE_GEN``. A busy card (``idle`` False) below its generation never is."""
    return idle is True or idle is None and gen_current == IDLE_GEN


def is_idle(pstate: Any, util: Any) -> bool | None:
    """True when the card is idle (utilization below 10%, or a P-state of P5 or lower power), None if unknown."""
    if isinstance(util, (int, float)) and util >= 10:
        return False
    if isinstance(pstate, str) and pstate.startswith("P") and pstate[1:].isdigit():
        return int(pstate[1:]) >= 5 or (isinstance(util, (int, float)) and util < 10)
    return (util < 10) if isinstance(util, (int, float)) else None


def _number(value: Any) -> Any:
    """``value`` when it is a number, else None (a mangled cell such as ``nan`` or ``5x`` reads as a word)."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _numeric(row: QueryRow) -> Any:
    """``row.get`` for numeric fields: words in them count as missing."""
    def get(name: str, default: Any = None) -> Any:
        value = _number(row.get(name))
        return default if value is None else value
    return get


def gpu_record(row: QueryRow, lspci: dict[str, PciDevice] | None = None,
               paths: dict[str, PciPath] | None = None) -> dict[str, Any]:
    """One card's facts from its ``--query-gpu`` row, its lspci block and its sysfs path (when recorded).

    ``gen_max``/``width_max`` are nvidia-smi's: "the maximum ... possible with this GPU and system
    configuration", i.e. the lower of the card's and the slot's (``nvidia-smi --help-query-gpu``).
    ``width_cap`` is the card's own width from lspci LnkCap; ``*_spec`` the card's from the spec
    table (verified figures only).
    """
    spec = match_gpu(row.name)
    key = _bus_key(row.bus_id)
    num = _numeric(row)
    dev = (lspci or {}).get(key) if key else None
    path = (paths or {}).get(key) if key else None
    tgp = spec.figure("tgp_watts") if spec else None
    pstate, util = row.get("pstate"), row.get("utilization.gpu")
    return {
        "index": row.index, "name": row.name, "bus_id": row.bus_id, "spec": spec.id if spec else None,
        "tgp_w": spec.graded("tgp_watts") if spec else None,
        "tgp_trust": tgp.trust if tgp else None,
        "pstate": pstate, "utilization_pct": _number(util), "idle": is_idle(pstate, util),
        "gen_current": num("pcie.link.gen.current", dev.lnksta.gen if dev and dev.lnksta else None),
        "gen_max": num("pcie.link.gen.max"),
        "gen_spec": spec.graded("pcie_gen") if spec else None,
        "width_current": num("pcie.link.width.current", dev.lnksta.width if dev and dev.lnksta else None),
        "width_max": num("pcie.link.width.max"),
        "width_cap": dev.lnkcap.width if dev and dev.lnkcap else None,
        "width_spec": spec.graded("pcie_lanes") if spec else None,
        "lspci_downgraded": bool(dev and dev.lnksta and (dev.lnksta.width_downgraded or dev.lnksta.speed_downgraded)),
        "pci_bridges": path.bridges if path else None,
        "power_draw_w": num("power.draw"), "limit_w": num("power.limit"),
        "default_limit_w": num("power.default_limit"), "min_limit_w": num("power.min_limit"),
        "max_limit_w": num("power.max_limit"), "enforced_limit_w": num("enforced.power.limit"),
        "memory_total_mib": num("memory.total"),
    }


def _card(g: dict[str, Any]) -> str:
    return f"GPU{g['index']} ({g['name'] or 'unknown'}, {g['bus_id'] or '?'})"


def link_sentences(g: dict[str, Any]) -> tuple[list[str], list[str], list[str]]:
    """(problems, notes, remarks) about one card's PCIe link.

    - problems (fail): the link is x4 or narrower on a card that has more lanes (a chipset slot,
      or an x4 slot): club-3090 measured 6.5 GB/s through the chipset against 13.2 GB/s on CPU
      lanes (figures.md §3.1).
    - notes (warn): a busy card below the width or generation it could train (nvidia-smi: both
      "may be reduced when the GPU is not in use", so under load it is a fault: riser, seating,
      BIOS); a slot of an older generation than the card; many bridges above the card.
    - remarks (info, never graded): an idle card stepped down; a slot with fewer lanes than the
      card (x8/x8 across two CPU slots is the normal two-card layout).
    """
    problems: list[str] = []
    notes: list[str] = []
    remarks: list[str] = []
    card = _card(g)
    wc, wm = g.get("width_current"), g.get("width_max")
    full = max([x for x in (wm, g.get("width_cap"), g.get("width_spec")) if x] or [0])
    idle = g.get("idle")
    saves = "Idle cards step their link down to save power"
    recheck = ("Re-check while a model runs: `nvidia-smi --query-gpu=pcie.link.gen.current,"
               "pcie.link.width.current --format=csv -l 1`.")
    under_load = f"{saves}; this one is idle, so this is expected. {recheck}"
    if wc is not None and wc <= 4 and (not full or full > 4):
        problems.append(f"{card}: link is x{wc}" + (f" of the card's x{full}" if full else "") + ": a card at x4 "
                        "(usually a chipset slot) drags every collective down to its link (club-3090: 6.5 GB/s "
                        "through the chipset vs 13.2 GB/s on CPU lanes). Move it to a CPU-connected slot (the board "
                        "manual's lane table) and check `nvidia-smi --query-gpu=pcie.link.width.current --format=csv`.")
    elif wc is not None and wm and wc < wm:
        text = f"{card}: trained at x{wc}, x{wm} is possible in this slot."
        if idle:
            remarks.append(f"{text} {under_load}")
        else:
            notes.append(f"{text} Under load that is a fault: reseat the card, drop any riser cable, check the "
                         "slot is not sharing lanes with an M.2 drive.")
    elif wc is not None and full and wc < full:
        remarks.append(f"{card}: the slot gives x{wc} of the card's x{full} (e.g. the board's x8/x8 split for two "
                       "cards): half the bandwidth per direction. Layer split hardly notices; TP's small "
                       "all-reduces are latency-bound.")
    gc, gm, gs = g.get("gen_current"), g.get("gen_max"), g.get("gen_spec")
    if gm is not None and gs is not None and gm < gs:
        notes.append(f"{card}: the slot allows PCIe Gen{gm}, the card does Gen{gs}: each generation step halves the "
                     "bandwidth per lane. Chipset slots are often an older generation: use a CPU slot of the "
                     "card's generation if the board has one.")
    if gc is not None and gm is not None and gc < gm:
        text = f"{card}: running at Gen{gc} now, Gen{gm} is possible."
        if stepped_down_idle(gc, idle):
            remarks.append(f"{text} {under_load}" if idle else
                           f"{text} {saves}, to Gen{IDLE_GEN}: the load is not known here, so this is said, not "
                           f"judged. {recheck}")
        else:
            notes.append(f"{text} " + ("The card is busy, so it should run at full speed: reseat it or set the "
                                       "slot's generation in the BIOS." if idle is False else
                                       "If the card was idle this is power saving; otherwise reseat it or set the "
                                       f"slot's generation in the BIOS. {saves}."))
    if g.get("pci_bridges") is not None and g["pci_bridges"] >= CHIPSET_BRIDGES:
        notes.append(f"{card}: {g['pci_bridges']} PCIe bridges between it and the CPU's root: it hangs off the "
                     "chipset or a PCIe switch. Behind a chipset it shares one x4 uplink with every other device "
                     "there.")
    return problems, notes, remarks


def gpu_homes(topo: Any) -> tuple[dict[str, str], bool]:
    """Where each GPU of a topology matrix sits: its NUMA node, or where the matrix shows none (older nvidia-smi prints
    only CPU Affinity) its CPU set as printed; and whether those are NUMA nodes. Two cards with one home share a
    socket."""
    numa = {g: n for g, n in topo.numa_affinity.items() if n is not None}
    return (numa, True) if numa else ({g: c for g, c in topo.cpu_affinity.items() if c and g in topo.gpus}, False)


def two_sockets(topo: Any) -> bool:
    """Whether a topology matrix shows more than two GPUs in more than one home (:func:`gpu_homes`: a two-socket
    server's layout); CPU sets count as two homes only where they share no CPU."""
    homes, numa = gpu_homes(topo)
    if len(topo.gpus) <= 2:
        return False
    if len(set(homes.values())) <= 1:
        return _cut_before_other_socket(topo, homes)
    sets = {_cpus(c) for c in homes.values()} - {frozenset()}
    return numa or len(sets) > 1 and sum(map(len, sets)) == len(frozenset().union(*sets))


def _cut_before_other_socket(topo: Any, homes: dict[str, str]) -> bool:
    """Whether a matrix cut off before its last rows (the field corpus's k019: GPU0-3 on NUMA node 0 shown, GPU4-7's
    rows lost) shows a second socket all the same: the cards whose home is shown reach each other without SYS, and
    every path from them to the cards whose home is not shown is SYS (two NUMA nodes apart, by nvidia-smi's legend),
    so those sit on another node."""
    if not getattr(topo, "truncated", False) or len(homes) < 2:
        return False
    unknown = [g for g in topo.gpus if g not in homes]
    within = [topo.link(a, b) for i, a in enumerate(homes) for b in list(homes)[i + 1:]]
    across = [topo.link(a, u) for a in homes for u in unknown]
    return bool(unknown) and all(c and not c.startswith(("SYS", "SOC")) for c in within) and bool(across) and all(
        c is not None and c.startswith(("SYS", "SOC")) for c in across)


def _cpus(affinity: str | None) -> frozenset[int]:
    """The CPUs of an affinity as nvidia-smi prints it (``0-13,28-41``); empty when none or not read."""
    out: set[int] = set()
    for part in (affinity or "").split(","):
        lo, _, hi = part.strip().partition("-")
        if not lo.isdigit() or hi and not hi.isdigit() or int(hi or lo) - int(lo) > 4096:
            return frozenset()
        out.update(range(int(lo), int(hi or lo) + 1))
    return frozenset(out)


P2P_MODES = {"r": "reads", "w": "writes", "n": "over NVLink", "a": "atomics", "p": "over PCIe"}
"""What each ``nvidia-smi topo -p2p <mode>`` asks (nvidia-smi's help: read, write, nvlink, atomics, pcie)."""


def p2p_sentences(a: str, b: str, code: str | None, p2p_read: str | None,
                  layout: bool = False, mode: str = "r") -> tuple[list[str], list[str]]:
    """(warnings, notes) about the path between two GPUs; ``layout``: the machine has more than two cards and its
    matrix shows them on different NUMA nodes (:func:`two_sockets`: SYS between them is how it is built). A warning:
    P2P reads not supported for a reason the code does not pin on the cards (CNS, DR, TNS: copies staged through
    host memory), the path not shown, or a pair of two cards across the CPUs' interconnect between NUMA nodes (SYS):
    whoever built a two-card machine chose the slots, and one node's slots mend it. A note: a path through one CPU's
    host bridges (PHB/NODE), which is what two cards on a consumer board have and costs only where P2P is off, so
    whether P2P works decides (``nvidia-smi topo -p2p r``): club-3090 PCIE_P2P.md measured both (figures.md §3.1);
    SYS where it is the ``layout`` (a server's two sockets, not a fault; the field corpus's k019, r008, t003; with
    the NUMA column N/A a hidden PCIe tree may be why, so it warns); cards that offer no P2P at all (GNS: GeForce on
    the stock driver), since nothing on the machine can mend that; NS, which GeForce cards print too (which it is, the
    cards' names say). ``mode``: the ``-p2p`` letter the status is of
    (P2P_MODES; reads unless said)."""
    out: list[str] = []
    notes: list[str] = []
    fam = link_family(code or "")
    if code is None:
        out.append(f"{a}-{b}: the path between the cards was not shown (`nvidia-smi topo -m`).")
    elif fam in ("PHB", "NODE", "SYS", "SOC"):
        where = ("; pin each process to its card's node, or put both cards on one node" if fam == "SYS" else
                 ": what two cards on a consumer board have")
        (out if fam in ("SYS", "SOC") and not layout else notes).append(
            f"{a}-{b}: path {code}, {LINK_MEANING[fam]}{where}. It costs most where P2P is off: GPU-to-GPU copies "
            "then go through host memory (~11 GB/s, ~15 µs each on Gen4 in club-3090's test, against ~27 GB/s and "
            "~1 µs with P2P), and tensor parallel pays that latency twice per layer; layer split (llama.cpp "
            "default) suffers far less. `nvidia-smi topo -p2p r` says whether P2P works.")
    if p2p_read == "GNS":  # the card itself offers none: expected of GeForce cards, nothing to mend
        notes.append(f"{a}-{b}: P2P {P2P_STATUS['GNS']} (GNS, `nvidia-smi topo -p2p`): these cards offer no P2P "
                     "over PCIe (GeForce drivers do not enable it on recent cards; an RTX 4090 pair has it only with "
                     "a patched driver), so copies between them are staged through host memory and NCCL uses "
                     "shared host memory. Expected of such cards, not a fault: prefer layer split (llama.cpp) or "
                     "pipeline parallel for one stream.")
    elif p2p_read is not None and p2p_read not in ("OK", "X") and mode in ("n", "a"):  # no NVLink, or no atomics
        notes.append(f"{a}-{b}: P2P {P2P_MODES[mode]} {P2P_STATUS.get(p2p_read, p2p_read)} ({p2p_read}, `nvidia-smi "
                     f"topo -p2p {mode}`): " + ("no NVLink joins these cards; they talk over PCIe" if mode == "n" else
                                               "no peer atomics between these cards") + ". Whether P2P over PCIe "
                     "works is `nvidia-smi topo -p2p r`'s answer, not this one.")
    elif p2p_read is not None and p2p_read not in ("OK", "X"):
        # NS, plain "not supported", is what GeForce cards on the stock driver print too (field corpus d007, x002): a
        # note naming what decides; CNS, TNS and DR name a cause on the board or a setting
        (notes if p2p_read == "NS" else out).append(
            f"{a}-{b}: P2P {P2P_MODES.get(mode, mode)} {P2P_STATUS.get(p2p_read, p2p_read)} ({p2p_read}, "
            f"`nvidia-smi topo -p2p {mode}`): copies between the cards are staged through host memory, and NCCL moves "
            "data through shared host memory instead. GeForce cards on the stock driver show this too (expected "
            "there); on cards that offer P2P, the board or a setting (ACS, the IOMMU) blocks it."
            + (" Which it is, the cards' names say (`nvidia-smi -L`)." if p2p_read == "NS" else ""))
    return out, notes


def _declared(desktop: dict[str, Any] | None, key: str) -> float | None:
    """A figure the learner declared in the inventory's [desktop] table (watts, volts, amps): a finite
    number above 0, else None (not declared: an evidence file's inventory may hold anything)."""
    value = desktop.get(key) if desktop else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        value = float(value)
    except OverflowError:
        return None
    return value if math.isfinite(value) and value > 0 else None


def power_sentences(gpus: list[dict[str, Any]], desktop: dict[str, Any] | None) -> dict[str, Any]:
    """The PSU and circuit arithmetic for the cards seen and the budget the learner declared.

    Returns {"power": figures, "power_problems", "power_warnings", "power_unmeasured", "circuit_problems",
    "circuit_unmeasured"}: ``*_unmeasured`` say what was not there to judge (the cards' limits not read,
    no [desktop] budget, no circuit declared), so L3.power_budget / L3.circuit are not measured, never
    passed on nothing. Uses the enforced power limits (what the cards may draw now) and the default
    limits (what they draw after a reboot, since ``nvidia-smi -pl`` does not persist).
    """
    problems: list[str] = []
    warnings: list[str] = []
    circuit: list[str] = []
    enforced = [g["enforced_limit_w"] or g["limit_w"] for g in gpus]
    defaults = [g["default_limit_w"] for g in gpus]
    figures: dict[str, Any] = {}

    def result(unmeasured: list[str], circuit_unmeasured: list[str]) -> dict[str, Any]:
        return {"power": figures, "power_problems": problems, "power_warnings": warnings,
                "power_unmeasured": unmeasured, "circuit_problems": circuit, "circuit_unmeasured": circuit_unmeasured}

    if not gpus or any(x is None for x in enforced):
        why = ("the cards' power limits were not read (`nvidia-smi --query-gpu=power.limit,"
               "enforced.power.limit --format=csv`)")
        return result([why], [why])
    for g in gpus:
        if g["tgp_w"] is not None and g["enforced_limit_w"] is not None and g["enforced_limit_w"] > g["tgp_w"] * 1.05:
            warnings.append(f"{_card(g)}: power limit {g['enforced_limit_w']:g} W is above the card's "
                            f"{g['tgp_w']:g} W TGP (trust {g['tgp_trust']}): the budget counts the limit.")
    desktop = desktop if isinstance(desktop, dict) else None
    psu = _declared(desktop, "psu_watts")
    if psu is None:
        why = ("no power budget declared: add a [desktop] table with psu_watts (and circuit_volts, "
               "circuit_amps, cpu_watts, other_watts) to the inventory" if desktop is None else
               "the inventory's [desktop] table has no psu_watts (a number of watts, the PSU's rating): add it")
        figures["gpu_enforced_w"] = sum(enforced)
        return result([why], [why])
    cpu = _declared(desktop, "cpu_watts")
    other = _declared(desktop, "other_watts")
    if cpu is None or other is None:
        missing = " and ".join(n for n, v in (("cpu_watts", cpu), ("other_watts", other)) if v is None)
        warnings.append(f"{missing} not declared: the budget counts them as 0 W, so it is too optimistic. An "
                        "i9-14900K alone may draw 253 W (Tom's Hardware); board, drives and fans add about 100 W "
                        "(an estimate).")
    load = pw.system_load_w(enforced, cpu or 0, other or 0)
    check = pw.psu_check(load, psu)
    figures = {"gpu_enforced_w": sum(enforced), "cpu_w": cpu, "other_w": other, "load_w": load, "psu_w": psu,
               "load_fraction": round(check.load_fraction, 4)}
    if not check.sustained_ok:
        problems.append(f"sustained load {load:g} W (cards at their enforced limits {' + '.join(f'{w:g}' for w in enforced)}"
                        f" W, CPU {cpu or 0:g} W, rest {other or 0:g} W) exceeds the {psu:g} W PSU. Lower the cards' "
                        f"limits (`sudo nvidia-smi -i N -pl W`, re-applied at every boot), or fit a larger PSU.")
    if all(d is not None for d in defaults):
        load_default = pw.system_load_w(defaults, cpu or 0, other or 0)
        figures["gpu_default_w"] = sum(defaults)
        figures["load_default_w"] = load_default
        if check.sustained_ok and load_default > psu:
            warnings.append(f"the budget fits only with the current power caps: at the default limits "
                            f"({' + '.join(f'{d:g}' for d in defaults)} W) the load is {load_default:g} W > {psu:g} W, "
                            "and `nvidia-smi -pl` is lost at reboot. Apply the caps from a systemd unit at boot.")
    transient_gpus = []
    for g, w in zip(gpus, enforced):
        spec = match_gpu(g["name"])
        spike = spec.graded("transient_watts") if spec else None
        tgp = spec.graded("tgp_watts") if spec else None
        transient_gpus.append(w * spike / tgp if spike and tgp else w)
    transient = pw.system_load_w(transient_gpus, cpu or 0, other or 0)
    if transient > load:
        figures["transient_w"] = round(transient, 1)
        if check.sustained_ok and transient > psu:
            warnings.append(f"power spikes of 0.1 s or more reach about {transient:.0f} W ({pw.reference_spike_words()}, "
                            f"Tom's Hardware) > {psu:g} W: an ATX 3.x PSU rides out 200% for "
                            "only 100 µs; expect shutdowns under load.")
    volts, amps = _declared(desktop, "circuit_volts"), _declared(desktop, "circuit_amps")
    if volts and amps:
        c = pw.circuit_capacity(volts, amps)
        figures["circuit_continuous_w"] = c.continuous_w
        figures["heat_btu_h_at_least"] = round(pw.btu_per_hour(load), 0)
        rule = "80% continuous-load rule (NEC)" if c.verified else "80% rule as applied to 230 V circuits (unverified)"
        if load > c.continuous_w:
            circuit.append(f"the box draws at least {load:g} W from the wall (more, after PSU losses), above the "
                           f"{c.continuous_w:g} W a {c.volts:g} V {c.amps:g} A circuit carries continuously "
                           f"({rule}). Cap the cards, or use a 20 A / 230 V circuit, and keep other loads off it.")
        return result([], [])
    return result([], ["no wall circuit declared: add circuit_volts and circuit_amps (the breaker's rating) to the "
                       "inventory's [desktop] table"])


def _usable(raw: RawOutput | None) -> str | None:
    if raw is None:
        return "not recorded"
    if raw.timed_out:
        return f"`{raw.command}` timed out"
    return None


def _text(raw: RawOutput) -> str:
    """The output with the command as a prompt line (so noheader CSV finds its fields)."""
    body = raw.stdout if raw.stdout.strip() else raw.stderr
    return f"$ {raw.command}\n{body}"


def node_facts(ev: Evidence, node: str, desktop: dict[str, Any] | None) -> dict[str, Any]:
    """Facts for one desktop from its raw outputs. See the module docstring."""
    q = ev.outputs(node, "smi_query")
    if node in ev.errors and q is None:
        return {"reachable": False, "error": ev.errors[node]}
    f: dict[str, Any] = {"reachable": True, "error": ev.errors.get(node)}
    count_problems: list[str] = []
    rows: list[QueryRow] = []
    why = _usable(q)
    if why is None:
        try:
            rows = list(parse_query_gpu(_text(q)).rows)
        except ParseError as e:
            why = str(e)
    if why is not None:
        count_problems.append(f"no GPU listing: {why}")
    lspci: dict[str, PciDevice] = {}
    raw = ev.outputs(node, "lspci")
    if raw is not None and raw.stdout.strip():
        try:
            lspci = {_bus_key(d.address): d for d in parse_lspci_vv(raw.stdout) if d.is_display}
        except ParseError:
            lspci = {}
    paths: dict[str, PciPath] = {}
    raw = ev.outputs(node, "pci_paths")
    if raw is not None and raw.stdout.strip():
        try:
            paths = {_bus_key(p.address): p for p in parse_pci_paths(raw.stdout)}
        except ParseError:
            paths = {}
    gpus = [gpu_record(r, lspci, paths) for r in rows]
    f["gpus"] = gpus
    if rows and len(gpus) < 2:
        count_problems.append(f"only {len(gpus)} GPU visible ({', '.join(_card(g) for g in gpus)}): a two-card "
                              "desktop shows two. Check the second card's power cables and slot, and `lspci | grep -i nvidia`.")
    f["gpu_count_problems"] = count_problems
    link_problems: list[str] = []
    link_notes: list[str] = []
    link_remarks: list[str] = []
    for g in gpus:
        p, n, r = link_sentences(g)
        link_problems += p
        link_notes += n
        link_remarks += r
    if not gpus:
        link_problems.append("no card's link was read")
    f["link_problems"], f["link_notes"], f["link_remarks"] = link_problems, link_notes, link_remarks
    f["p2p"], f["p2p_problems"], f["p2p_unmeasured"] = _p2p(ev, node, gpus)
    f.update(power_sentences(gpus, desktop))
    return f


def _p2p(ev: Evidence, node: str, gpus: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """(pairs, problems, unmeasured) from ``nvidia-smi topo -m`` (and ``-p2p r``): with fewer than two cards
    in the matrix, or no readable matrix, there is no path to judge (unmeasured), never a pass."""
    raw = ev.outputs(node, "smi_topo")
    why = _usable(raw)
    if why is not None:
        return [], [], [f"`nvidia-smi topo -m` {why}"]
    try:
        topo = parse_topo_matrix(raw.stdout)
    except ParseError as e:
        return [], [], [str(e)]
    p2p_status: dict[tuple[str, str], str] = {}
    raw_p2p = ev.outputs(node, "smi_p2p")
    if raw_p2p is not None and raw_p2p.stdout.strip():
        try:
            p2p_status = {(a, b): s for a, b, s in parse_topo_p2p(raw_p2p.stdout).pairs() if s}
        except ParseError:
            p2p_status = {}
    pairs = topo.gpu_pairs()
    if not pairs:
        return [], [], [f"the topology shows {len(topo.gpus)} GPU: no path between two cards to report "
                        "(a second card must be visible, see L3.cards)"]
    out, problems = [], []
    for a, b, code in pairs:
        status = p2p_status.get((a, b))
        out.append({"a": a, "b": b, "path": code, "meaning": LINK_MEANING.get(link_family(code or ""), None),
                    "p2p_read": status})
        problems += p2p_sentences(a, b, code, status, two_sockets(topo))[0]
    return out, problems, []


def derive(ev: Evidence) -> dict[str, Any]:
    """All lesson-3 facts from ``ev``'s raw outputs and the declared [desktop] budget. Pure."""
    desktop = ev.inventory.get("desktop")
    nodes = {n["name"]: node_facts(ev, n["name"], desktop) for n in ev.inventory["nodes"]}
    return {"desktop": desktop, "nodes": nodes}
