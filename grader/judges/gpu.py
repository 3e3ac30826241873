"""Judge of a machine's GPUs: nvidia-smi (--query-gpu CSV, topo -m, topo -p2p, the plain table, -q, the compute apps,
``nvlink -s``), read for what they mean in a two-card desktop or on a Spark (whose GPU has no memory of its own;
``free`` is grader.judges.memory's).

What a GPU's link and the path between cards mean comes from grader/facts/lesson3.py (one place for the meaning,
which lesson 3's checks grade with): a card at x4 or narrower than it can do, a slot below the card's generation, the
path between the cards (NVLink, a PCIe switch, or through the CPU) and whether P2P works, power limits against the
card's TGP. Figures and sources: docs/research/figures.md §3-4, via grader/calc and checks/specs/*.toml.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from ..calc.pcie import links_carrying
from ..calc.specs import row
from .common import fail, info, ok, on_spark, warn
from .gpu_notes import (staged_latency, compute_p2, no_p2p_level, lone_without_nvlink, p2p_proven, p2p_rate_alone, nearest_nics, no_memory_figure,
                        nvlink_capabilities, p2p_model_pairs, table_all_well, display_gpus, table_notes, unavailable_fields, mixed_table, wsl_driver, na_cells, topo_layout, one_gpu_layout)
from .gpu_memory_health import memory_health
from .model import Finding, Summary
from .topo_notes import unlinked_gpu, bridge_pairs_note, nvlink_meshed, odd_nvlink_pair, one_numa_node, switch_board_short


def _tgp_words(name: str | None) -> str | None:
    from ..calc.specs import match_gpu
    spec = match_gpu(name)
    if spec is None:
        return None
    fig = spec.figure("tgp_watts")
    return f"{spec.name}: TGP {fig.describe()}" if fig else None


def _power_findings(g: dict[str, Any]) -> list[Finding]:
    out: list[Finding] = []
    card = f"GPU{g['index']}"
    lim, dflt, mx, mn = g.get("enforced_limit_w") or g.get("limit_w"), g.get("default_limit_w"), \
        g.get("max_limit_w"), g.get("min_limit_w")
    if lim is None:
        return out
    parts = [f"{card}: power limit {lim:g} W"]
    if dflt is not None:
        parts.append(f"default {dflt:g} W")
    if mn is not None and mx is not None:
        parts.append(f"settable {mn:g}-{mx:g} W")
    if g.get("power_draw_w") is not None:
        parts.append(f"drawing {g['power_draw_w']:g} W now")
    out.append(info(", ".join(parts) + "."))
    asked = g.get("requested_limit_w")
    if asked is not None and asked > lim:  # nvidia-smi -pl sets the requested one: something else holds it lower
        out.append(warn(f"{card} enforces {lim:g} W though {asked:g} W is requested: something other than `nvidia-smi "
                        "-pl` holds it lower (the platform's power brake or its BMC, a power or thermal policy); "
                        "`nvidia-smi -q -d PERFORMANCE` names what throttles it."))
    elif dflt is not None and lim < dflt:
        out.append(info(f"{card} is capped below its default ({lim:g} < {dflt:g} W), as `nvidia-smi -pl` does: the cap "
                        "is lost at reboot unless a boot-time unit applies it again."))
    tgp = _tgp_words(g.get("name"))
    if tgp:
        out.append(info(f"{card} is a {tgp}. Budget the PSU for the limit the card enforces, plus spikes above it."))
    elif g.get("name"):
        out.append(info(f"{card} ({g['name']}) is not in the desktop spec table (checks/specs/gpus.toml): only "
                        "nvidia-smi's own figures are used."))
    return out


# --------------------------------------------------------------------------- --query-gpu

def summarise_query(q: Any, command: str | None) -> Summary:
    from ..facts.lesson3 import gpu_record, link_sentences
    gpus = [gpu_record(r) for r in q.rows]
    findings: list[Finding] = []
    for g in gpus:
        has_link = g["width_current"] is not None or g["gen_current"] is not None
        problems, notes, remarks = link_sentences(g) if has_link else ([], [], [])
        findings += [fail(p) for p in problems] + [warn(n) for n in notes] + [info(r) for r in remarks]
        if has_link and not problems:
            findings.append(ok(f"GPU{g['index']} ({g['name']}): PCIe Gen{g['gen_current']} x{g['width_current']}"
                               + (f", max Gen{g['gen_max']} x{g['width_max']}" if g["gen_max"] else "")
                               + ": the full width the card can train, healthy."))
        findings += _power_findings(g)
    limits = [g.get("enforced_limit_w") or g.get("limit_w") for g in gpus]
    if len(gpus) >= 2 and all(x is not None for x in limits):
        findings.append(info(f"The {len(gpus)} cards may draw {sum(limits):g} W together at their limits; add the CPU "
                             "and ~100 W for the rest of the box and compare with the PSU's rating "
                             "(`clusterlab check lesson3` does it with the [desktop] budget you declare)."))
    elif len(gpus) == 1:
        findings.append(_one_gpu("output", gpus[0].get("name")))
    findings += unavailable_fields(q, gpus)
    if q.truncated or q.notes:
        findings += [info(f"The paste is incomplete: {n}.") for n in q.notes]  # (the paste's, not the machine's)
    facts = {"fields": list(q.fields), "units": q.units, "had_header": q.had_header, "gpus": gpus,
             "truncated": q.truncated}
    return facts, findings


def _one_gpu(where: str, name: str | None) -> Finding:
    """The note on an output (``where``: "output", "table") of one GPU: a GB10 is all a DGX Spark has; a two-card
    desktop lists two."""
    if "GB10" in (name or "").upper():
        return info(f"One GPU in this {where}: the GB10, all a DGX Spark has.")
    return info(f"One GPU in this {where}: a two-card desktop lists two" + (" rows." if where == "output" else "."))


# --------------------------------------------------------------------------- topo -m

def summarise_topo(t: Any, command: str | None) -> Summary:
    from ..facts.lesson3 import gpu_homes, p2p_sentences, two_sockets
    from ..parsers.nvidia_smi import LINK_MEANING, link_family
    findings: list[Finding] = []
    pairs = t.gpu_pairs()
    if t.truncated:  # rows cut off the paste: their pairs are not known (the note below says which rows)
        pairs = [p for p in pairs if p[2] is not None]
    numa = {g: n for g, n in t.numa_affinity.items() if n is not None}
    home, by_numa = gpu_homes(t)
    proven = len(t.gpus) == 2 and p2p_proven(len(t.gpus))  # simpleP2P in the paste verified P2P between the two: SYS is no fault
    where = "NUMA node" if by_numa else "socket (the same CPU Affinity)"
    families = {link_family(c or "") for _, _, c in pairs}
    pcie_view = bool(command) and bool(re.search(r"(?:^|\s)(?:-mp|--matrix_pcie)\b", command))
    pcie_only = bool(pairs) and "NV" not in families and not pcie_view
    # what the matrix says beyond the path, said once with the first pair judged (no NVLink; one NUMA node)
    beside = ""
    if pcie_view and pairs:
        findings.append(info("This is `nvidia-smi topo -mp`, the PCIe-only view: it leaves NVLink out, so it cannot "
                             "say whether the cards have NVLink. `nvidia-smi topo -m` shows NV# where they do; the "
                             "paths below are the PCIe ones."))
    if pcie_only:
        beside = " No NVLink between the cards (no NV# in the matrix): they talk over PCIe."
        if len(t.gpus) == len(numa) >= 2 and len(set(numa.values())) == 1:  # every card's row shown
            beside += (" Both cards sit" if len(numa) == 2 else f" All {len(numa)} cards sit") + \
                f" on NUMA node {next(iter(numa.values()))}: no CPU-to-CPU hop between them."
    nv = [(a, b, code) for a, b, code in pairs if link_family(code or "") == "NV"]
    folded = nv if len(nv) > 3 and len({c for _, _, c in nv}) == 1 else []  # an NVLink server: every pair alike
    if folded:  # said once
        gpus = sorted({g for a, b, _ in nv for g in (a, b)}, key=lambda g: int(re.sub(r"\D", "", g) or 0))
        findings.append(ok(f"{nv[0][2]} between every pair of the {len(gpus)} GPUs ({len(nv)} pairs): "
                           f"{LINK_MEANING['NV']}." if len(nv) == len(gpus) * (len(gpus) - 1) // 2 else
                           f"{nv[0][2]} between {len(nv)} pairs of GPUs: {LINK_MEANING['NV']}."))
    alike: dict[str | None, list[tuple[str, str, str | None]]] = {}  # the pairs of each path, said once
    for p in pairs:
        if p not in folded:
            alike.setdefault(p[2], []).append(p)
    for same in alike.values():
        a, b, code = same[0]
        fam = link_family(code or "")
        label = f"{a}-{b}" if len(same) == 1 else (", ".join(f"{x}-{y}" for x, y, _ in same[:8])
                                                   + (", ..." if len(same) > 8 else "") + f" ({len(same)} pairs)")
        if fam == "NV":
            findings.append(ok(f"{label}: {code}, {LINK_MEANING['NV']}. An NVLink bridge is what consumer pairs "
                               "lack: on two GeForce cards expect PHB/NODE/PIX here."))
        elif fam in ("PIX", "PXB"):
            findings.append(ok(f"{label}: {code}, {LINK_MEANING[fam]}. P2P still needs driver support: check "
                               "`nvidia-smi topo -p2p r`." + beside))
            beside = ""
        else:
            one_node = [f"{x}-{y}" for x, y, _ in same if home.get(x) is not None and home.get(x) == home.get(y)]
            hidden = fam in ("SYS", "SOC") and bool(one_node) and not pcie_view and not nvlink_meshed(t, one_node)
            warnings, notes = p2p_sentences(a, b, code, None, two_sockets(t) or len(one_node) == len(same) > 0 or proven)
            warnings, notes = [[x.replace(f"{a}-{b}:", f"{label}:", 1) for x in said] for said in (warnings, notes)]
            if (warnings or notes) and beside:
                (notes or warnings)[-1] += beside
                beside = ""
            findings += [(info if pcie_view else warn)(s) for s in warnings] + [info(s) for s in notes]
            if hidden:
                findings.append(warn(f"{', '.join(one_node[:8])}{', ...' if len(one_node) > 8 else ''}: path {code} "
                                     f"although the two cards of each pair sit on one {where}: SYS means two NUMA "
                                     "nodes apart, so the driver cannot see the PCIe tree between them (a VM or "
                                     "container often hides it), and no NVLink is up between them."))
    if not pairs:
        findings.append(info(f"{len(t.gpus)} GPU in this matrix: no path between two cards to judge."))
    if len(set(numa.values())) > 1:
        where = ", ".join(f"{g}: {n}" for g, n in numa.items())
        if families == {"NV"}:  # NVLink carries every pair
            findings.append(info(f"The cards sit on different NUMA nodes ({where}), but NVLink joins every pair: "
                                 "traffic between the cards does not cross the CPU. Pin each process near its card "
                                 "for its copies to and from host memory."))
        else:
            findings.append((info if two_sockets(t) or proven else warn)(
                f"The cards sit on different NUMA nodes ({where}): traffic between them crosses the CPU-to-CPU link"
                + (", which is this machine's layout, not a fault. Pin each process near its card, and keep a "
                   "tensor-parallel group on one node where you can." if two_sockets(t) else
                   ". Pin each process near its card, or put both cards in one node's slots.")))
    for nic, dev in t.nic_legend.items():
        near = [f"{g} {t.link(g, nic)}" for g in t.gpus if t.link(g, nic)]
        findings.append(info(f"{nic} is {dev}" + (f"; path to it: {', '.join(near)}" if near else "") + "."))
    findings += nearest_nics(t) + lone_without_nvlink(t) + one_numa_node(t, pcie_only or not numa) + odd_nvlink_pair(t) + switch_board_short(t)
    findings += topo_layout(t, findings, pcie_view) or one_gpu_layout(t, findings)
    if t.truncated:
        findings += [info(f"The paste is incomplete: {n}; what is said is about the rows shown.") for n in t.notes]
    facts = {"devices": list(t.devices), "pairs": [{"a": a, "b": b, "path": c} for a, b, c in pairs],
             "cpu_affinity": t.cpu_affinity, "numa_affinity": t.numa_affinity, "nic_legend": t.nic_legend,
             "truncated": t.truncated}
    return facts, findings


# --------------------------------------------------------------------------- topo -p2p

def summarise_p2p(p: Any, command: str | None) -> Summary:
    from ..facts.lesson3 import P2P_MODES, p2p_sentences
    from ..parsers.nvidia_smi import P2P_STATUS
    findings: list[Finding] = []
    mode = P2P_MODES.get(p.mode or "", "P2P")
    said = "P2P" if mode == "P2P" else f"P2P {mode}"  # (the command not shown: no mode to name)
    if len(p.pairs()) > 2 and all(s == "OK" for _, _, s in p.pairs()):  # every pair alike: said once, as healthy
        findings.append(ok(f"{said} supported (OK) between every pair of the {len(p.gpus)} GPUs: GPU-to-GPU copies go "
                           "card to card; nothing wrong."))
    for a, b, status in p.pairs() if not findings else ():
        if status == "OK":
            findings.append(ok(f"{a}-{b}: {said} supported (OK): GPU-to-GPU copies go card to card."))
        else:
            warnings, notes = p2p_sentences(a, b, "PIX", status, mode=p.mode or "r")
            findings += [warn(s) for s in warnings] + [info(s) for s in notes]
    if not p.pairs():
        findings.append(info(f"{len(p.gpus)} GPU in this matrix: no pair to judge."))
    elif p.mode is None:
        findings.append(info("The paste does not show the command: read as `nvidia-smi topo -p2p r` (reads); "
                             "`-p2p w` (writes), `n` (NVLink) and `a` (atomics) print the same kind of matrix."))
    facts = {"mode": p.mode, "gpus": list(p.gpus),
             "pairs": [{"a": a, "b": b, "status": s, "meaning": P2P_STATUS.get(s or "")} for a, b, s in p.pairs()]}
    return facts, findings


# --------------------------------------------------------------------------- the plain table

def summarise_table(t: Any, command: str | None) -> Summary:
    if hasattr(t, "series"):  # `nvidia-smi dmon` (grader.parsers.nvidia_smi_dmon)
        return __import__("grader.judges.gpu_dmon", fromlist=["x"]).summarise_dmon(t, command)
    findings: list[Finding] = []
    for g in t.gpus:
        rec = {"index": g.index, "name": g.name, "limit_w": g.power_cap_w, "power_draw_w": g.power_draw_w}
        findings += _power_findings(rec)
        if g.memory_total_mib:
            findings.append(info(f"GPU{g.index} ({g.name}): {g.memory_used_mib} of {g.memory_total_mib} MiB used ("
                                 f"{g.memory_total_mib / 1024:.1f} GiB on the card)"
                                 + (f", {g.utilization_pct}% GPU-Util." if g.utilization_pct is not None else ".")))
        elif g.memory_not_reported:
            findings.append(info(no_memory_figure(g.index, g.name, f"Memory-Usage `{g.memory_not_reported}`")))
        if g.unread:
            findings.append(warn(f"GPU{g.index}: {' and '.join(g.unread)} reads `ERR!`: the driver (NVML) could not "
                                 "read that sensor when the table was printed. Once is usually transient; if it stays, "
                                 "the board's sensor or the driver is at fault (look for Xid lines in `sudo dmesg`)."))
    findings += [_one_gpu("table", t.gpus[0].name)] if len(t.gpus) == 1 else []
    if t.gpus:
        findings.append(info("The plain table shows no PCIe link: run `nvidia-smi --query-gpu=index,name,"
                             "pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max "
                             "--format=csv` to see whether each card trained at full width" + (
                                 "; nor how the GPUs reach each other: `nvidia-smi topo -m` "
                                 "shows that." if len(t.gpus) > 1 else ".")))
    findings += _process_findings(t) + table_notes(t)
    findings += [info("The paste is cut off inside a GPU's rows: what is said is of the rows shown.")] if t.truncated \
        else []
    findings += display_gpus(t) + mixed_table(t) + wsl_driver(t) + na_cells(t)
    findings += table_all_well(t, findings)
    facts = {"driver_version": t.driver_version, "cuda_version": t.cuda_version,
             "gpus": [g.__dict__ for g in t.gpus], "processes": [p.__dict__ for p in t.processes],
             "truncated": t.truncated}
    return facts, findings


def _mib(n: int) -> str:
    return f"{n:,} MiB ({n / 1024:.1f} GiB)"


def _process_findings(t: Any) -> list[Finding]:
    """The Processes section of the plain table (see _gpu_process_findings)."""
    no_figure = {g.index for g in t.gpus if g.memory_total_mib is None}
    return _gpu_process_findings(t.processes, lambda gpu: gpu in no_figure or not t.gpus,
                                 lambda gpu: gpu in no_figure)


def _gpu_process_findings(processes: Any, say_held: Callable[[Any], bool],
                          unified: Callable[[Any], bool]) -> list[Finding]:
    """GPU processes (``gpu``, ``pid``, ``name``, ``used_mib``): one nvidia-smi cannot name (NVML's ``Unknown
    Error``: it exited or is a zombie whose CUDA context still holds memory), several vLLM engines on one GPU, and
    what the processes hold on a GPU where ``say_held`` (the GPU row gives no memory figure: a GB10, ``unified``)."""
    out: list[Finding] = []
    for p in processes:
        if p.name.lower() == "unknown error":
            out.append(warn(f"GPU {p.gpu}: PID {p.pid} holds {_mib(p.used_mib) if p.used_mib else 'memory'} but "
                            "nvidia-smi cannot name it (`Unknown Error`): the process has exited or is a zombie "
                            "(defunct) whose CUDA context still holds the memory. It comes back when the last "
                            "process holding the device exits (`sudo fuser -v /dev/nvidia*` names it), else after a "
                            "reboot."))
    by_gpu: dict[Any, list[Any]] = {}
    for p in processes:
        by_gpu.setdefault(p.gpu, []).append(p)
    for gpu, procs in by_gpu.items():
        engines = [p for p in procs if p.name.startswith("VLLM::EngineCore")]
        held = sum(p.used_mib or 0 for p in procs)
        if len(engines) > 1:
            out.append(warn(f"GPU {gpu} runs {len(engines)} vLLM engines (PIDs "
                            f"{', '.join(str(p.pid) for p in engines)}: "
                            f"{' + '.join(f'{p.used_mib or 0:,}' for p in engines)} MiB): each took its own "
                            "--gpu-memory-utilization share, so the shares together must stay below 1, and on a "
                            "Spark leave the OS its room too (`free -h`). Stop the one you do not need, or lower "
                            "each one's share."))
        if say_held(gpu):
            out.append(info(f"GPU {gpu}: {len(procs)} process(es) hold {_mib(held)} "
                            f"({', '.join(f'{p.name} {p.used_mib or 0:,} MiB' for p in procs[:8])})"
                            + (": on a GB10 that is unified memory, shared with the CPU." if unified(gpu) else ".")))
    return out


def summarise_apps(q: Any, command: str | None) -> Summary:
    from ..parsers.nvidia_smi import SmiProcess
    procs = []
    for r in q.rows:
        v, mem = r.values, r.values.get("used_gpu_memory")
        procs.append(SmiProcess(v.get("uuid") or v.get("gpu_bus_id") or "?", v.get("pid") or 0, "C",
                                str(v.get("process_name") or "?"), mem if isinstance(mem, int) else None))
    findings = _gpu_process_findings(procs, lambda gpu: True, lambda gpu: False)
    if not procs:
        findings.append(info("No compute process holds GPU memory."))
    return {"processes": [p.__dict__ for p in procs]}, findings


# --------------------------------------------------------------------------- -q

def _gen_x(gen: Any, width: Any) -> str:
    return " ".join(x for x in (f"Gen{gen}" if gen is not None else "", f"x{width}" if width is not None else "") if x)


def summarise_q(q: Any, command: str | None) -> Summary:
    from ..calc.specs import match_gpu
    from ..facts.lesson3 import is_idle, link_sentences
    from ..parsers.nvidia_smi import FRAGMENT_GPU, smi_value
    findings: list[Finding] = []
    gpus = []
    for i, g in enumerate(q.gpus):
        rec = {"index": i, "name": g.product_name, "bus_id": g.bus_id, "gen_current": g.pcie_gen_current,
               "gen_max": g.pcie_gen_max, "width_current": g.pcie_width_current, "width_max": g.pcie_width_max,
               "gen_spec": None, "width_spec": None, "width_cap": None, "pci_bridges": None,
               "idle": is_idle(g.get("Performance State"), smi_value("util", g.get("Utilization", "GPU") or "")[0]),
               "limit_w": g.power("limit"), "enforced_limit_w": g.power("enforced"),
               "default_limit_w": g.power("default"), "min_limit_w": g.power("min"), "max_limit_w": g.power("max"),
               "power_draw_w": g.power("draw"), "requested_limit_w": g.power("requested")}
        spec = match_gpu(g.product_name)
        if spec is not None:
            rec["gen_spec"], rec["width_spec"] = spec.graded("pcie_gen"), spec.graded("pcie_lanes")
        gpus.append(rec)
        if rec["width_current"] is not None or rec["gen_current"] is not None:
            problems, notes, remarks = link_sentences(rec)
            findings += [fail(p) for p in problems] + [warn(n) for n in notes] + [info(r) for r in remarks]
            if not problems:
                findings.append(ok(f"GPU {g.bus_id}: PCIe {_gen_x(rec['gen_current'], rec['width_current'])} "
                                   f"(max {_gen_x(rec['gen_max'], rec['width_max'])})."))
        findings += _power_findings(rec)
        if g.clock_event("SW Power Cap"):
            findings.append(info(f"GPU {g.bus_id}: SW Power Cap is Active: the card is being held at its power "
                                 "limit right now, so a higher limit (or none) would let it clock higher."))
        limiting = ("SW Power Cap", "HW Slowdown", "HW Thermal Slowdown", "HW Power Brake Slowdown",
                    "SW Thermal Slowdown")
        for reason in limiting[1:]:
            if g.clock_event(reason):
                findings.append(warn(f"GPU {g.bus_id}: {reason} is Active: the card is throttled by heat or by its "
                                     "power delivery. Check the airflow around it and its PSU cables."))
        states = [g.clock_event(r) for r in limiting]
        if any(v is not None for v in states) and not any(states):
            findings.append(ok(f"GPU {g.bus_id}: not throttled: no power cap, thermal or hardware slowdown is Active"
                               + ("; `Idle` is Active: nothing ran on it at that moment, so its clocks were allowed "
                                  "down." if g.clock_event("Idle") else ".")))
        findings += _temperature_findings(g) + _clock_findings(g) + _memory_na_findings(g) + compute_p2(g, rec) \
            + memory_health(g)
    if not findings:
        findings.append(info("Nothing here about the PCIe link or power: try `nvidia-smi -q -d POWER,PCIE`."))
    named = [f"{g.product_name} ({g.bus_id})" for g in q.gpus if g.product_name]
    if named:
        findings.insert(0, info(f"{len(named)} GPU{'s' if len(named) > 1 else ''}: {', '.join(named)}"
                                + (f"; driver {q.driver_version}" if q.driver_version else "") + "."))
    if any(g.bus_id == FRAGMENT_GPU for g in q.gpus):
        findings.append(info("A fragment of `nvidia-smi -q`: sections without the `GPU <bus id>` line above them, read "
                             "as one GPU's; lines before the first heading in the paste belong to a section cut off "
                             "above it (paste from `==NVSMI LOG==` to say which)."))
    return {"driver_version": q.driver_version, "gpus": gpus}, findings


_UNIFIED = ("GB10", "GH200", "GB200", "GB300")
"""GPUs whose memory is coherent with a Grace CPU's (NVLink-C2C), or, on a GB10, is the CPU's: nvidia-smi gives no BAR1
figure for them; a GB10 has no frame buffer of its own either (a GH200 or GB200 has its HBM, which FB reports)."""


def _memory_na_findings(g: Any) -> list[Finding]:
    """``FB Memory Usage`` / ``BAR1 Memory Usage`` given as N/A: normal where the GPU shares the CPU's memory."""
    gone = [s.split(" Memory")[0] for s in ("FB Memory Usage", "BAR1 Memory Usage")
            if str(g.get(s, "Total") or "").strip("[] ") in ("N/A", "Not Supported")]
    if not gone:
        return []
    name = (g.product_name or "").upper() or ("GB10" if on_spark(None) else "")  # a fragment: the host says which
    expected = [x for x in gone if x == "BAR1" and any(u in name for u in _UNIFIED) or "GB10" in name]
    said = [info(f"GPU {g.bus_id or '(bus id not in the paste)'} ({g.product_name or 'a DGX Spark GB10'}): "
                 f"{' and '.join(expected)} memory N/A, as expected: "
                 + ("a GB10 has no memory of its own, it shares the Spark's unified memory with the CPU (read it with "
                    "`free -h`)." if "GB10" in name else "its memory is coherent with the Grace CPU's over NVLink-C2C, "
                    "so there is no BAR1 aperture to report."))] if expected else []
    rest = [x for x in gone if x not in expected]
    return said + ([info(f"GPU {g.bus_id}: {' and '.join(rest)} memory N/A: this card or driver gives no figure.")]
                   if rest else [])


def _clock_findings(g: Any) -> list[Finding]:
    """``-q -d CLOCK``: each clock against its maximum (MHz); below it is GPU Boost at work, and the clock event
    reasons (when shown) say whether something holds it down."""
    now, top = g.get("Clocks"), g.get("Max Clocks")
    if not isinstance(now, dict) or not isinstance(top, dict):
        return []
    said = []
    for name in ("Graphics", "SM", "Memory", "Video"):
        m, n = _mhz(now.get(name)), _mhz(top.get(name))
        if m is not None and n:
            said.append(f"{name} {m} of {n} MHz ({m / n:.0%})")
    if not said:
        return []
    return [info(f"GPU {g.bus_id}: clocks {', '.join(said)}. Below the maximum is GPU Boost following load, heat and "
                 "power; the clock event reasons (`nvidia-smi -q -d PERFORMANCE`) say whether something holds it down.")]


def _mhz(value: Any) -> int | None:
    m = re.match(r"^\s*(\d+)\s*MHz\b", value) if isinstance(value, str) else None
    return int(m.group(1)) if m else None


def _celsius(value: Any) -> int | None:
    m = re.match(r"^\s*(\d+)\s*C\b", value) if isinstance(value, str) else None
    return int(m.group(1)) if m else None


def _temperature_findings(g: Any) -> list[Finding]:
    """``-q -d TEMPERATURE``: the GPU's temperature against its slowdown and max operating limits (the margin:
    checks/specs/cooling.toml [gpu_temperature])."""
    from ..calc.specs import row
    t = g.get("Temperature")
    if not isinstance(t, dict):
        return []
    cur, top = _celsius(t.get("GPU Current Temp")), _celsius(t.get("GPU Max Operating Temp"))
    slow, down = _celsius(t.get("GPU Slowdown Temp")), _celsius(t.get("GPU Shutdown Temp"))
    if cur is None:
        return []
    limits = ", ".join(f"{name} {v} C" for name, v in (("max operating", top), ("slowdown", slow),
                                                        ("shutdown", down)) if v is not None)
    margin = row("cooling.toml", "gpu_temperature").graded("near_max_operating_c")
    if slow is not None and cur >= slow:
        return [warn(f"GPU {g.bus_id}: {cur} C, at or above its slowdown temperature ({slow} C): the hardware is "
                     "cutting its clocks. Improve the airflow (case fans, the gap between the cards).")]
    if top is not None and margin is not None and cur >= top - margin:
        platform = (f" (Its hardware slowdown is at {slow} C: a max operating limit well below that is the "
                    "platform's, as a laptop's thermal policy sets it, not a sign that the GPU runs hot.)"
                    if slow is not None and top < slow else "")
        return [warn(f"GPU {g.bus_id}: {cur} C against a max operating temperature of {top} C: the driver holds "
                     f"the clocks down to stay under it, so it is throttled.{platform}")]
    return [info(f"GPU {g.bus_id}: {cur} C" + (f" ({limits})." if limits else "."))]


# --------------------------------------------------------------------------- nvlink -s

def _wired_by_design(name: str | None, active: int, listed: int) -> bool:
    """Whether ``active`` links of ``listed`` is what this card's bridges wire when all are seated: PCIe cards whose
    NVLink bridges wire only some of the die's links (checks/specs/topologies.toml [nvlink_boards]: an H100 NVL or PCIe
    pair, 12 of 18). An A100 PCIe's three bridges and an RTX card's one wire every link its nvidia-smi lists, so an
    inactive one there is a bridge off."""
    boards = row("topologies.toml", "nvlink_boards")
    cards, wired = boards.graded("bridge_partial_cards") or [], boards.graded("bridge_partial_links") or []
    return [active, listed] == list(wired) and any(card in (name or "") for card in cards)


def summarise_nvlink(st: Any, command: str | None) -> Summary:
    findings: list[Finding] = []
    if st.none_active and not any(g.active for g in st.gpus):
        findings.append(info("No NVLink link is active: PCIe cards without an NVLink bridge (or a bridge not seated) "
                             "say this; the cards then talk over PCIe (`nvidia-smi topo -m` shows the path)."))
    for g in st.gpus:
        findings += nvlink_capabilities(g)
        findings += unlinked_gpu(g, st)
        if not g.links:
            continue
        speeds = sorted({gbs for _, gbs in g.links if gbs is not None})
        each = f" at {', '.join(f'{x:g}' for x in speeds)} GB/s each" if speeds else ""
        if g.inactive and g.active and _wired_by_design(g.name, len(g.active), len(g.links)):
            findings.append(info(f"GPU {g.index} ({g.name}): {len(g.active)} of {len(g.links)} NVLink links active"
                                 f"{each}, link(s) {', '.join(map(str, g.inactive))} <inactive>: what this card's "
                                 f"bridges wire when all are seated ({len(g.active)} of the die's {len(g.links)}), so "
                                 f"the others are <inactive> by design; `nvidia-smi topo -m` shows NV{len(g.active)} to "
                                 "its partner."))
        elif g.inactive and g.active:
            findings.append(fail(f"GPU {g.index} ({g.name}): link(s) {', '.join(map(str, g.inactive))} <inactive>, "
                                 f"{len(g.active)} of {len(g.links)} active{each}: the NVLink bandwidth of the "
                                 "inactive links is lost (or their traffic rerouted). On a board whose GPUs are all "
                                 "wired by NVLink every link should be up: reset the GPU (or reboot), and if a link "
                                 "stays inactive it is a hardware fault (bridge, baseboard or GPU) to report."))
        elif g.inactive:
            findings.append(info(f"GPU {g.index} ({g.name}): none of its {len(g.links)} NVLink links is active: "
                                 "no bridge (or it is not seated); the card talks over PCIe."))
        else:
            total = sum(gbs for _, gbs in g.links if gbs is not None)
            findings.append(ok(f"GPU {g.index} ({g.name}): NVLink up, all {len(g.links)} links active{each} "
                               f"({total:g} GB/s per direction in all, as nvidia-smi counts it)."))
    findings += bridge_pairs_note(st) or ([] if findings else [info("No link lines under the GPUs: this GPU has no NVLink.")])
    facts = {"none_active": st.none_active, "gpus": [{"index": g.index, "name": g.name, "links": list(g.links)}
                                                     for g in st.gpus]}
    return facts, findings


# --------------------------------------------------------------------------- p2pBandwidthLatencyTest

def _span(values: dict[tuple[int, int], float], unit: str = "GB/s") -> str:
    """``6.11-8.63 GB/s`` (or one figure) over the pairs of a matrix (latencies: ``unit`` µs)."""
    lo, hi = min(values.values()), max(values.values())
    return f"{lo:.2f} {unit}" if round(lo, 2) == round(hi, 2) else f"{lo:.2f}-{hi:.2f} {unit}"


def summarise_p2p_test(t: Any, command: str | None) -> Summary:
    """cuda-samples' p2pBandwidthLatencyTest: which pairs can use P2P, whether P2P beats copies through host memory
    (checks/specs/pcie.toml [p2p] min_gain), and whether a one-way P2P copy reaches what the cards' own link carries
    (checks/specs/gpus.toml pcie_gen and pcie_lanes, at grader.calc.pcie's practical share)."""
    from ..calc.pcie import p2p_active_latency_drop, p2p_broken_share, p2p_min_gain, practical_bandwidth
    from ..calc.specs import match_gpu
    facts = {"devices": t.devices, "access": [[a, b, ok_] for (a, b), ok_ in t.access.items()],
             "matrices": {k: [[a, b, v] for (a, b), v in m.items()] for k, m in t.matrices.items()},
             "truncated": t.truncated}
    findings: list[Finding] = []
    names = sorted(set(t.devices.values()))
    if t.devices:
        findings.append(info(f"{len(t.devices)} GPU(s): {', '.join(names)}."))
    access = {**{k: bool(v) for k, v in t.connectivity.items() if k[0] != k[1]}, **t.access}  # either says it
    cannot = sorted(k for k, v in access.items() if not v)
    if cannot:
        staged = {w: {k: v for k, v in t.pairs(f"{w}_off").items() if k in cannot} for w in ("uni", "bi")}
        rates = "; ".join(f"{_span(v)} {w}" for w, v in (("one way", staged["uni"]), ("both ways", staged["bi"])) if v)
        none = len(cannot) == len(access)  # no pair at all: every byte between the cards goes through the host
        level, tail = no_p2p_level(names, staged["uni"]) if none else (info, ".")
        findings.append(level("No P2P between " + ", ".join(f"GPU{a}-GPU{b}" for a, b in cannot[:8])
                              + ": copies between them go through host memory" + (f" ({rates})" if rates else "")
                              + ". GeForce drivers do not enable P2P over PCIe on recent cards; NCCL then moves data "
                              "through shared host memory" + tail))
        findings += p2p_model_pairs(t.devices, access) + staged_latency(t.pairs("lat_off"), cannot)
    elif access:
        patched = ", a patched driver on GeForce cards" if any("GeForce" in n for n in names) else ""
        findings.append(info(f"Every pair can access its peer (P2P on{patched})."))
    gain = p2p_min_gain()
    # one way where shown (what a copy gets), else both ways together; the pairs that can use P2P
    shown_by_way = {w: {k: v for k, v in t.pairs(f"{w}_on").items() if access.get(k, True)} for w in ("uni", "bi")}
    way = next((w for w, shown in shown_by_way.items() if shown), None)
    if way is not None:
        shown, off = shown_by_way[way], t.pairs(f"{way}_off")
        both = " both ways together" if way == "bi" else " one way"
        said = f"{_span(shown)}{both} with P2P" + (f", {_span(off)} through host memory" if off else "")
        rate = max(shown.values())
        spec = match_gpu(names[0]) if len(names) == 1 else None
        gen, lanes = (spec.graded("pcie_gen"), spec.graded("pcie_lanes")) if spec else (None, None)
        low, high = practical_bandwidth(int(gen), int(lanes)) if gen and lanes else (None, None)
        full = low if low is not None else practical_bandwidth(4, 16)[0]  # the cards' own link, else Gen4 x16
        bi_on, bi_off = shown_by_way["bi"], t.pairs("bi_off")  # one way at a full link and gaining both ways (vr004)
        poor = sorted(k for k, v in shown.items() if k[0] < k[1] and k in off and gain is not None and v < off[k] * gain
                      and not (way == "uni" and v >= full and k in bi_on and k in bi_off and bi_on[k] >= bi_off[k] * gain))
        drop, lat_on, lat_off = p2p_active_latency_drop(), t.pairs("lat_on"), t.pairs("lat_off")
        share = p2p_broken_share()
        broken = [k for k in poor if share and shown[k] < off[k] * share]
        if broken:
            findings.append(fail(f"P2P moves far less than copies through host memory ({said}: under {share:g}x on "
                                 + ", ".join(f"GPU{a}-GPU{b}" for a, b in broken[:6]) + "): the peer path is broken, "
                                 "not capped by the link. On GeForce cards with a patched P2P driver that is most often "
                                 "the BAR1 aperture (resizable BAR off, `BAR ... no space` in dmesg); elsewhere ACS or "
                                 "the IOMMU on the path. Until it is mended, run with P2P off (NCCL_P2P_DISABLE=1; "
                                 "vLLM --disable-custom-all-reduce)."))
        elif poor and drop and all(k in lat_on and k in lat_off and lat_on[k] * drop <= lat_off[k] for k in poor):
            lat = {k: lat_on[k] for k in poor}, {k: lat_off[k] for k in poor}
            findings.append(warn(f"P2P is in use (its latency {_span(lat[0], 'µs')} against {_span(lat[1], 'µs')} "
                                 f"through host memory) yet moves no more ({said}): the link between the cards caps "
                                 f"both paths" + (f", about what a {links_carrying(rate)} link carries" if links_carrying(rate) else
                                                  ": a narrow or slow PCIe link (`nvidia-smi -q` Link Width and "
                                                  "Generation, or `lspci -vv` LnkSta, say which)")
                                 + ". A wider or faster slot raises it; P2P itself works, so keep it on."))
        elif poor:
            findings.append(warn(f"P2P gains nothing over copies through host memory ({said}; less than {gain:g}x on "
                                 + ", ".join(f"GPU{a}-GPU{b}" for a, b in poor[:6]) + (" ..." if len(poor) > 6 else "")
                                 + "). The path between those cards (a PCIe switch with ACS on, the IOMMU, or a narrow "
                                 "slot) holds it back: run NCCL with NCCL_P2P_DISABLE=1 until the platform is fixed."))
        elif off:
            findings.append(ok(("P2P copies beat the path through host memory" if rate >= max(off.values()) else "One "
                                "way both paths run at the cards' full link, and P2P gains both ways together")  # (F14)
                               + f": {said}" + (f"; {_span(bi_on)} both ways "
                               f"together with P2P, {_span(bi_off)} through host memory" if way == "uni" and bi_on and bi_off else "")
                               + ". (This test does not check the data that arrives; CUDA samples' simpleP2P does.)"))
        else:
            findings += p2p_rate_alone(said, rate, way, links_carrying(rate), names)
        if way == "uni" and low is not None and rate < low:
            fit = links_carrying(rate)
            findings.append(warn(f"{rate:.2f} GB/s one way with P2P is below what the cards' own Gen{gen:g} "
                                 f"x{lanes:g} link carries ({low:.1f}-{high:.1f} GB/s)"
                                 + (f": it is what a {fit} link carries" if fit else "")
                                 + ". A card sits in a narrower slot, behind the chipset, or trained fewer lanes: "
                                 "read each card's LnkSta (`sudo lspci -vv -d 10de: | grep LnkSta`)."))
    if t.truncated:
        findings.append(info("The output is cut off: the matrices shown were read."))
    elif not t.matrices and (t.access or t.connectivity):  # the test's first part only: no figure measured
        findings.append(info("No bandwidth or latency matrix in this paste: it stops before the test measured "
                             "anything, so nothing can be said of speed. Paste the rest (the `Unidirectional ...` and "
                             "`Bidirectional ...` matrices)."))
    return facts, findings
