"""Judge of PCIe links: each ConnectX-7 twin's link read from sysfs (``current_link_*``/``max_link_*``), ``lspci -vv``
(a desktop's cards and a Spark's ConnectX functions), and the two compared within one paste. Whether a link trained
narrower or slower than it can is ``grader.facts.lesson1.pcie_link_problem``'s call, the same one L1.link_speed
grades with.

Sources: docs/research/figures.md §3 (PCIe generations and lanes), the NVIDIA developer forum's GX10 LnkCap/LnkSta
report (a board whose root port exposes two lanes), lesson 3's card figures (checks/specs/*.toml, via grader.calc).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from ..facts.lesson1 import pcie_link_problem
from ..facts.lesson3 import stepped_down_idle
from ..parsers.lspci import PciLink
from ..parsers.pcie_sysfs import PcieLink
from ..spark_names import is_qsfp_twin, twin_domain
from .common import SPARK_RDMA, fail, head_lines, info, listed, ok, on_spark, spark_figure, warn, whole
from .context import context
from .gpu_notes import mixed_models
from .model import Finding, Section, Summary
from .pcie_above import port_above


# --------------------------------------------------------------------------- a twin's PCIe link, from sysfs

def _pci_domain(address: str) -> str | None:
    """The PCI domain of a full address (``0002:01:00.0`` -> ``0002``); None for one printed without it (``01:00.0``)
    or for another name."""
    return address[:4] if address.count(":") == 2 else None


def _idle_speed(name: str, now_gts: float, can_gts: float | None) -> Finding:
    """A link at full width but below its speed, where pcie_link_problem finds nothing wrong (another device than a
    Spark's twin): said, not judged, for sysfs and lspci alike."""
    of = f" of its {can_gts:g} GT/s" if can_gts else ", below what it can"
    return info(f"{name}: PCIe {now_gts:g} GT/s{of}, at full width: many devices (GPUs) lower the speed while idle; "
                "read it under load.")


def summarise_pcie(p: Any, command: str | None) -> Summary:
    """``grep . /sys/class/net/<twin>/device/*_link_*``: each function's link judged as L1.link_speed judges it."""
    findings = []
    for name, link in p.links.items():
        twin = SPARK_RDMA.get(name.split(" ")[0], name.split(" ")[0])  # an RDMA device: its netdev
        spark = is_qsfp_twin(twin) and on_spark(None) is not False
        if (problem := pcie_link_problem(name, link, twin_domain(twin) or _pci_domain(twin), spark)) is not None:
            findings.append(warn(problem + "."))
        elif None in (link.current_width, link.max_width, link.current_speed_gts, link.max_speed_gts):
            findings.append(info(f"{name}: these lines do not show its current and its maximum speed and width."))
        elif link.slower:
            findings.append(_idle_speed(name, link.current_speed_gts, link.max_speed_gts))
        else:
            findings.append(ok(f"{name}: PCIe {link.current_speed_gts:g} GT/s x{link.current_width}, all the function "
                               "can."))
    findings += [info(f"{i}: sysfs has no PCIe device for it: a virtual interface (such as the sim's veth), or no "
                      "interface of that name here (`ip -br link` lists them).") for i in p.no_device]
    return {"links": {n: dataclasses.asdict(v) for n, v in p.links.items()}, "no_device": list(p.no_device)}, \
        findings or [info("No PCIe link named in these lines: `grep . /sys/class/net/<twin>/device/*_link_*` prints "
                          "each value beside its file.")]


# --------------------------------------------------------------------------- lspci (ConnectX-7)

PCIE_TWIN_GBPS = whole(spark_figure("ib_write_bw_gbps", "max"))
"""About what one Spark twin's Gen5 x4 link carries (the ib_write_bw ceiling of checks/ranges.toml)."""


def connectx_links(items: list[tuple[Section, Any]]) -> list[tuple[int, Finding]]:
    """ConnectX functions in an ``lspci -vv`` paste: each Spark twin's link should train at 32 GT/s x4."""
    out: list[tuple[int, Finding]] = []
    unread: dict[int, list[str]] = {}  # section -> ConnectX functions shown without a LnkSta line
    vfs: dict[int, list[str]] = {}  # section -> the SR-IOV Virtual Functions among them
    out += _no_netdev(items)
    for index, (s, parsed) in enumerate(items):
        out += [(index, f) for f in _vf_less_ports(parsed)] if s.kind == "lspci" and not s.error and parsed else []
    for index, (s, parsed) in enumerate(items):
        if s.kind != "lspci" or s.error or not parsed:
            continue
        for d in parsed:
            if not getattr(d, "is_connectx", False):
                continue
            label = f"{d.address} {d.connectx_model or 'ConnectX'}"
            sta, cap = d.lnksta, d.lnkcap or PciLink(None, None, None)
            spark = d.connectx_model == "ConnectX-7" and on_spark(None) is not False
            problem = sta and pcie_link_problem(label, PcieLink(sta.speed_gt_s, sta.width, cap.speed_gt_s, cap.width),
                                                _pci_domain(d.address), spark)
            now = f"{sta.speed_gt_s or 0:g} GT/s x{sta.width}" if sta and sta.width is not None else ""
            if sta is None or not now:
                unread.setdefault(index, []).append(label)
                if re.search(r"Virtual Function", d.description, re.I):
                    vfs.setdefault(index, []).append(d.address)
            elif problem or sta.width_downgraded:  # lspci's own mark without LnkCap
                out.append((index, warn(f"{problem}." if problem else f"{label}: PCIe link {now} (downgraded): "
                                        "narrower than the function can; paste its LnkCap line too.")))
            elif d.lnkcap is None or sta.speed_gt_s is None:
                out.append((index, info(f"{label}: PCIe link {now}: with LnkSta alone, what this function can is not "
                                        "shown; paste LnkCap too.")))
            elif d.speed_reduced:  # not a Spark's ConnectX-7 (that is a warning above): may be idle power saving
                out.append((index, _idle_speed(label, sta.speed_gt_s, d.lnkcap.speed_gt_s)))
            else:
                out.append((index, ok(f"{label}: PCIe {now} (Gen{sta.gen}), all the function can" + (
                    f", about {PCIE_TWIN_GBPS} Gb/s for this twin: what a Spark twin should train at." if spark
                    else "."))))
    for index, labels in unread.items():  # said once per output (`lspci | grep Mellanox` lists many functions)
        vf = vfs.get(index, [])
        out.append((index, info((f"{', '.join(vf[:8])}{', ...' if len(vf) > 8 else ''}: SR-IOV Virtual Functions "
                                 f"(VFs), so SR-IOV is enabled on {'their' if len(vf) > 1 else 'its'} physical "
                                 "function and the VFs were created. " if vf else "")
                                + f"{listed(labels)}: no LnkSta line with the link's width (run `sudo lspci -vv -d "
                                "15b3:`). lspci shows only that the functions are on the PCI bus: it cannot show the "
                                "network port's state or speed (`ibstat` or `ip link` shows it)"
                                + (", nor whether a VF is bound to a driver (`lspci -k`)." if vf else "."))))
    return out


_NOT_ITS_NETDEV_RE = re.compile(r"lo$|eno\d|docker|virbr|br-|veth|vnet|wl|tailscale|cali|flannel|cni|tun|tap|wg|lxc|podman")
"""Interfaces that cannot be a PCIe NIC's own: loopback, onboard (eno*), wireless, virtual and tunnel ones."""


def _no_netdev(items: list[tuple[Section, Any]]) -> list[tuple[int, Finding]]:
    """lspci lists ConnectX Ethernet functions (not VFs, which a VM may hold) and the same host's whole ``ip addr``
    list has no interface that could be theirs (only loopback, onboard, wireless or virtual ones): no driver made a
    netdev for them, so mlx5_core (or mlx4_en) is not bound to the card: nothing RDMA or TCP can use it."""
    from .link import _lists_all
    pfs = [(i, d) for i, (s, parsed) in enumerate(items) if s.kind == "lspci" and not s.error and parsed
           for d in parsed if getattr(d, "is_connectx", False) and d.class_name == "Ethernet controller"
           and "virtual function" not in d.description.lower() and not d.driver]  # (bound: its netdev is elsewhere)
    lists = [(s, parsed) for s, parsed in items if s.kind == "ip-addr" and not s.error and parsed]
    if not pfs or len(lists) != 1 or not _lists_all(lists[0][0].command) or items[pfs[0][0]][0].host != lists[0][0].host \
            or not all(_NOT_ITS_NETDEV_RE.match(getattr(x, "name", "") or "") for x in lists[0][1]):
        return []
    names = ", ".join(x.name for x in lists[0][1])
    drv = "mlx4_en" if (pfs[0][1].connectx_model or "").startswith("ConnectX-3") else "mlx5_core"
    return [(pfs[0][0], fail(f"{', '.join(d.address for _, d in pfs)} ({pfs[0][1].connectx_model or 'ConnectX'}): lspci "
                             f"lists them, but the interface list has no netdev that could be theirs (only {names}): "
                             f"no driver is bound to the card ({drv} not loaded, blacklisted, or its probe failed), "
                             f"so nothing can use it. `lspci -k` shows the driver in use, `sudo dmesg | grep {drv[:4]}` "
                             f"why it failed; `sudo modprobe {drv}` loads it."))]


def _vf_less_ports(devices: list[Any]) -> list[Finding]:
    """A ConnectX with a port in each link type (an Infiniband and an Ethernet controller function) whose Virtual
    Functions are all of one type: a VF takes its physical function's class, so the other port has none. A warning,
    hedged: if VFs were asked for on that port, they were not created there (its sriov_numvfs, or SR-IOV not enabled
    for it in the NIC's firmware: mlxconfig SRIOV_EN / NUM_OF_VFS)."""
    cx = [d for d in devices if getattr(d, "is_connectx", False) and d.class_name]
    vf = [d for d in cx if "virtual function" in d.description.lower()]
    pf = [d for d in cx if d not in vf]
    if not vf or len({d.class_name for d in pf}) < 2 or any(d.truncated for d in devices):  # (the rest may be cut)
        return []
    have = {d.class_name for d in vf}
    return [warn(f"{d.address} ({d.class_name}) has no Virtual Function: all {len(vf)} VFs shown are "
                 f"{', '.join(sorted(have))}s, the VFs of {', '.join(p.address for p in pf if p.class_name in have)} (a VF "
                 "takes its physical function's type). If VFs were asked for on this port, they were not created: its "
                 f"sriov_numvfs (`cat /sys/bus/pci/devices/{'' if d.address.count(':') > 1 else '0000:'}{d.address}/sriov_numvfs`), or SR-IOV not enabled for it "
                 "in the NIC's firmware (mlxconfig SRIOV_EN, NUM_OF_VFS); dmesg says why.")
            for d in pf if d.class_name not in have]


# --------------------------------------------------------------------------- lspci -vv

def _acs_findings(devices: list[Any]) -> list[Finding]:
    """What the bridges' ``ACSCtl:`` lines mean for peer-to-peer traffic below them (NCCL's troubleshooting guide: ACS
    redirect sends P2P up to the root complex, so GPU-to-GPU and GPUDirect RDMA slow down or hang; it advises turning
    ACS off on bare metal). Notes: whether the traffic crosses those bridges is not in the paste. One per device for
    one or two, else one for all."""
    acs = [d for d in devices if d.acs_on is not None]
    if not acs:
        return []
    names = [d.address or f"device {i}" for i, d in enumerate(acs, start=1)]
    on = [(n, d.acs_on) for n, d in zip(names, acs) if {"ReqRedir", "CmpltRedir"} & set(d.acs_on)]
    why = ("peer-to-peer requests through {it} are sent up to the root complex (and the IOMMU), so GPU-to-GPU (P2P) and "
           "GPU-to-NIC (GPUDirect RDMA) traffic below {it} crosses the CPU, slower, or hangs. NCCL's troubleshooting "
           "guide says to disable ACS on bare metal (in the BIOS, or `setpci` on each bridge); in a VM it isolates "
           "the passed-through devices on purpose.")
    if len(acs) <= 2:
        return [info(f"{n}: ACS redirect is on ({', '.join(f'{c}+' for c in flags)}): " + why.format(it="this bridge"))
                for n, flags in on] + [
            info(f"{n}: ACS redirect is off (ACSCtl: {', '.join(f'{c}+' for c in d.acs_on) or 'every control -'}): "
                 "peer-to-peer traffic can pass this bridge directly. Other bridges above the cards may differ: "
                 "`sudo lspci -vvv | grep ACSCtl` lists them all.")
            for n, d in zip(names, acs) if (n, d.acs_on) not in on]
    if on:
        shown = ", ".join(n for n, _ in on[:8]) + (", ..." if len(on) > 8 else "")
        return [info(f"ACS redirect is on at {len(on)} of the {len(acs)} devices whose ACSCtl line is shown ({shown}): "
                     + why.format(it="them"))]
    return [info(f"ACS redirect is off at all {len(acs)} devices whose ACSCtl line is shown: peer-to-peer traffic can "
                 "pass those bridges directly, which is what GPU-to-GPU P2P and GPUDirect RDMA want on bare metal: "
                 "good, nothing to change.")]


def _driver_findings(devices: list[Any]) -> list[Finding]:
    """``lspci -k`` / ``-v``: the driver each function is bound to (``Kernel driver in use``), and a function whose
    modules are listed with no driver in use: nothing has claimed it (not loaded, blacklisted, or its probe failed)."""
    bound = [d for d in devices if getattr(d, "driver", None)]
    free = [d for d in devices if getattr(d, "modules", None) and not getattr(d, "driver", None) and not d.truncated
            and re.search(r"VGA|3D|Display|Ethernet|Infiniband|Network", d.class_name or "")]  # (not a card's audio)
    out = [info("Bound to their driver (`Kernel driver in use`): " + ", ".join(
        f"{d.address} {d.driver}" for d in bound[:8]) + (", ..." if len(bound) > 8 else "") + ".")] if bound else []
    gpus = [d for d in bound if d.is_display and not _REV_FF_RE.search(d.description or "")]
    if len(gpus) > 1 and len({d.driver for d in gpus}) == 1:  # (club-3090#232: two RTX 3090 on nvidia)
        said = ", ".join(f"{d.address} {d.name}" for d in gpus[:8])
        out.append(info(f"{'Both' if len(gpus) == 2 else f'All {len(gpus)}'} GPUs ({said}) are bound to the "
                        f"{gpus[0].driver} driver: the system sees and can use each."))
    return out + [warn(f"{d.address} {d.name or d.description}: `Kernel modules: {d.modules}` but no `Kernel driver in "
                       "use` line: no driver has claimed it, so the system cannot use it (the module not loaded, "
                       f"blacklisted, or its probe failed: `sudo dmesg | grep -i {d.modules.split(',')[0].strip()}`).")
                  for d in free[:4]]


_REV_FF_RE = re.compile(r"\(rev ff\)(?:\s*\(prog-if ff\))?\s*$")
_GPU_MAKER_RE = re.compile(r"\b(?:AMD|ATI|Radeon|Instinct|Intel Corporation .{0,40}\bArc)\b")


def _listed(devices: list[Any]) -> list[Finding]:
    """A plain ``lspci`` listing (no ``-v`` lines for any device: no link, driver, ACS or capability line, nothing cut)
    with GPUs in it: said as what it shows, that each GPU is enumerated on the PCIe bus (the system sees the
    hardware), and what it cannot show (the link, the driver bound to each)."""
    if not devices or any(d.lnkcap or d.lnksta or d.driver or d.modules or d.acs_on is not None or d.aspm or d.truncated
                          or d.access_denied or d.memory_off or not d.class_name for d in devices):
        return []
    gpus = [d for d in devices if d.is_display and not _onboard_display(d) and (
        d.is_nvidia or "3D" in d.class_name or _GPU_MAKER_RE.search(d.description or ""))]  # (a cloud VM's VGA: none)
    if not gpus:
        return []
    gone = [d for d in gpus if _REV_FF_RE.search(d.description or "")]  # (its GPU function: break-it 29 G2)
    out = [_rev_ff(d, devices) for d in gone]
    gpus = [d for d in gpus if d not in gone]
    if not gpus:
        return out
    said = ", ".join(f"{d.address} {d.name or d.description}" for d in gpus[:8]) + (", ..." if len(gpus) > 8 else "")
    return out + [info(f"lspci lists {len(gpus)} GPU{'s' if len(gpus) > 1 else ''} ({said}): "
                 + ("it is" if len(gpus) == 1 else "each is") + " enumerated on the PCIe bus, so the system sees the "
                 "hardware. A plain listing shows neither the link (width, speed: `sudo lspci -vv -d 10de:`) nor the "
                 "driver bound to each (`lspci -k`).")]


_ONBOARD_DISPLAY_RE = re.compile(r"\b(?:ASPEED|Matrox|G200e|Nuvoton|Silicon Motion|Cirrus Logic|XGI|Hi171\d|"
                                 r"ES1000|VMware SVGA|QXL|Bochs|Hyper-V)", re.I)
_ONBOARD_VENDORS = ("1a03:", "102b:", "1050:", "126f:", "1013:", "18ca:", "15ad:", "1b36:", "1234:", "1414:")
"""A display controller that is no compute GPU: a server board's BMC graphics (ASPEED AST2x00, vendor 1a03; Matrox
G200e, 102b; Nuvoton, Hisilicon Hi1710, Silicon Motion, XGI, an old board's AMD ES1000) or a VM's (Cirrus, QXL, Bochs,
VMware, Hyper-V): pci-ids (https://pci-ids.ucw.cz/) vendor names and ids."""


def _onboard_display(d: Any) -> bool:
    """Whether ``d`` is a display controller of a server board's BMC or a VM (:data:`_ONBOARD_DISPLAY_RE`), not a GPU
    that computes."""
    return d.is_display and not d.is_nvidia and (bool(_ONBOARD_DISPLAY_RE.search(d.description or "")) or (
        d.vendor_device or "").lower().startswith(_ONBOARD_VENDORS))


_AER_NOISE = {"AdvNonFatalErr", "NonFatalErr", "UnsupReq"}
"""AER bits set on healthy systems too: an advisory non-fatal error (a corrected report of a non-fatal one; older lspci
prints it ``NonFatalErr`` in CESta) and an Unsupported Request (latched while the firmware or OS probes the device),
said of no link's quality (corpus ws007: a Hi1822 NIC's bridge with both set)."""


def aer_findings(label: str, d: Any) -> list[Finding]:
    """The AER error bits lspci shows set (``CESta:``/``UESta:``, latched since boot or since they were cleared): a link
    that corrected errors (BadTLP, BadDLLP, RxErr, Rollover, Timeout: packets resent) or had uncorrected ones is a
    signal-integrity risk (a riser, a cable, the slot, seating: blind batch vv006, two 4090s on a bifurcation riser);
    Unsupported Request and advisory bits alone are not (:data:`_AER_NOISE`)."""
    ce, ue = [x for x in d.corrected if x not in _AER_NOISE], [x for x in d.uncorrected if x not in _AER_NOISE]
    if not (ce or ue):
        return []
    return [warn(f"{label}: PCIe errors latched in its AER status ("
                 + "; ".join(x for x in (f"corrected: {', '.join(ce)}" if ce else "",
                                         f"uncorrected: {', '.join(ue)}" if ue else "") if x)
                 + "): the link " + ("resent damaged packets" if ce else "lost packets") + ", a sign of poor signal "
                 "integrity: a riser or extension cable, a bifurcation adapter, the slot or the card's seating, or a link "
                 "speed the path does not hold. The bits latch until cleared, so how often it happens is in the kernel "
                 "log: `sudo dmesg | grep -i aer` (and rasdaemon's counts); a lower link speed in the BIOS, or no riser, "
                 "usually stops them.")]


def split_words(gen: int | None) -> str:
    """What x8 of a card's x16 is where two cards share a desktop CPU's graphics lanes (the course's lesson 3 check
    passes it: checks/lesson3.toml)."""
    return ("how a desktop CPU splits its 16 graphics lanes x8/x8 when two slots hold cards (or how the slot is wired), "
            "not a fault." + (f" Gen{gen} x8 carries what Gen{gen - 1} x16 does, plenty for inference;" if gen and gen > 1
                              else " Plenty for inference;") + " tensor parallel's all-reduce is what feels it. Only "
            "if a card sits alone in a slot wired x16 is it not fully seated.")


def _rev_ff(d: Any, devices: list[Any]) -> Finding:
    """A GPU whose config space reads all ones (``(rev ff)``, ``(prog-if ff)``, ``!!! Unknown header type 7f``): beside
    another NVIDIA GPU that answers, off the bus (a fault: blind batch vv009, four 4090s); alone, powered off by design
    or off the bus (break-it 29 G1, G3: a laptop's hybrid graphics reads so at idle)."""
    if any(o.is_display and o.is_nvidia and o is not d and not _REV_FF_RE.search(o.description or "") for o in devices):
        return fail(f"{d.address} {d.name or d.description}: `(rev ff)`: lspci read all ones where the device's own "
                    "revision should be while the other NVIDIA GPUs answer: this one fell off the PCIe bus (an Xid 79 "
                    "in `sudo dmesg`), from power (its cables, the PSU), heat, a riser or the slot. Only a reboot (or a "
                    "power cycle) brings it back; reseat it and check its power if it recurs.")
    return warn(f"{d.address} {d.name or d.description}: `(rev ff)`: lspci read all ones where the device's own "
                "revision should be, so the GPU does not answer on the PCIe bus: powered off by design (a laptop's "
                "hybrid graphics, bumblebee or runtime power management switch it off when idle), or fallen off the "
                "bus (an Xid 79 in `sudo dmesg`: power, heat, a riser or the slot; only a reboot brings it back). "
                "`sudo dmesg | grep -i xid` decides.")


def _desktop_split(devices: list[Any]) -> bool:
    """Two GPUs, each at x8 of an x16 card, none at x16 beside them: a desktop's x8/x8 (blind batch vv004,
    vv006: two RTX 2060s, two RTX 4090s on a bifurcation riser)."""
    gpus = [d for d in devices if d.is_display and d.lnksta and d.lnkcap and not _onboard_display(d)]
    return len(gpus) == 2 and all((d.lnksta.width, d.lnkcap.width) == (8, 16) for d in gpus)  # (4 at x8: a server's)


def summarise_lspci(devices: list[Any], command: str | None) -> Summary:
    if hasattr(devices, "buses"):  # `lspci -t`: the tree
        return {"roots": devices.roots}, tree_findings(devices)
    findings: list[Finding] = []
    # ConnectX NICs (a DGX Spark's four twins) get their findings from lesson 2a's lspci cross check
    rest = [d for d in devices if not d.is_connectx]
    shown = [d for d in rest if d.is_display or not d.class_name] if any(d.is_display for d in rest) else rest
    for i, d in enumerate(shown, start=1):
        label = (f"{d.address} {d.name or d.description}" if d.class_name else
                 f"{d.address or f'Device {i}'} (its device line is not in the paste)")
        if d.access_denied and d.lnksta is None:
            findings.append(warn(f"{label}: `Capabilities: <access denied>`: lspci hides the link lines from "
                                 "non-root users. Run `sudo lspci -vv -d 10de:`."))
            continue
        cap, sta = d.lnkcap, d.lnksta
        if d.is_display and _REV_FF_RE.search(d.description or ""):  # (`lspci -v` of a card gone: break-it 29 G3)
            findings.append(_rev_ff(d, shown))
            continue
        if d.acs_on is not None and sta is None and cap is None:
            continue  # only its ACS line: said below
        if d.memory_off:
            findings.append(warn(f"{label}: memory decoding is off (`Control: ... Mem-`) and its memory regions are "
                                 "[disabled]: the card is seen on the bus but nothing has enabled it, so no driver "
                                 "can use it. The NVIDIA driver is not bound to it (`lspci -k` shows `Kernel driver in "
                                 "use`), or the platform could not fit its BARs (`sudo dmesg | grep -i BAR` says "
                                 "`failed to assign`)."))
        if sta is None and cap is None and getattr(d, "aspm", None):  # only its LnkCtl lines: the link's settings
            findings.append(info(f"{label}: ASPM {d.aspm}" + (f", target link speed {d.target_gt_s:g} GT/s" if
                                 d.target_gt_s else "") + " (LnkCtl: what the link is set to, not how it runs; "
                                 "ASPM off keeps the link out of its power-saving states). LnkSta (`sudo lspci -vv -s "
                                 f"{d.address or '<address>'} | grep LnkSta`) shows the speed and width it runs at."))
            continue
        if sta is None:
            why = (" (the paste is cut off)" if d.truncated else
                   ": this output has no link lines; run `sudo lspci -vv -d 10de:`" if cap is None else "")
            findings.append(info(f"{label}: no LnkSta line{why}."))
            continue
        if _onboard_display(d):  # a server board's BMC (or a VM's) display: the console, on a lane or two by design
            findings.append(info(f"{label}: a server board's onboard (BMC) or virtual display controller at "
                                 f"Gen{sta.gen} x{sta.width}: it draws the console, not a compute GPU, so its narrow "
                                 "link slows no collective."))
            continue
        if d.port in ("Root Port", "Downstream Port") and sta.width and (d.speed_reduced or d.width_reduced):  # (x0: no link)
            findings.append(info(f"{label}: a {d.port.lower()} at Gen{sta.gen} x{sta.width}" + (
                                 f" of its Gen{cap.gen} x{cap.width}" if cap else "") + ": a link trains to the lower "
                                 "of its two ends, so the "
                                 "device below it decides; its own LnkCap shows whether it could run faster (then "
                                 "the slot, a riser or the seating holds it back)."))
            continue
        findings += aer_findings(label, d)
        more = "more (lspci marks it downgraded; its LnkCap line is not in the paste)"
        above = port_above(d.address) if d.width_reduced and sta.width else None
        split = d.is_display and d.width_reduced and _desktop_split(shown) and (sta.width, cap and cap.width) == (8, 16)
        if split:
            findings.append(info(f"{label}: link at x8 of the card's x16, as every GPU of this paste: "
                                 + split_words(sta.gen)))
        elif above and above[1] <= sta.width:  # the port above can do no wider: the slot's width, by design
            findings.append(info(f"{label}: link at x{sta.width} of the card's x{cap.width if cap else '?'}, under "
                                 f"{above[0]}, a port that can do x{above[1]} at most (its LnkCap): a link trains to "
                                 f"its narrower end, so x{sta.width} is this slot's full width, not a fault. Only a "
                                 "wider slot gives the card its full width."))
        elif d.width_reduced:
            # a link narrower than the card is a GPU's loss; a device the paste does not name may sit in a slot
            # wired that narrow by design (a Raspberry Pi's single lane), so it is said, not failed
            judge = fail if d.is_display else warn
            findings.append(judge(f"{label}: link trained at x{sta.width}, the card can do "
                                  + (f"x{cap.width}" if cap and cap.width else more)
                                  + (" (downgraded)" if sta.width_downgraded and cap else "") + ": a slot wired "
                                  "narrower, lanes shared with another card or an M.2 drive, or a chipset slot. "
                                  "Move it to a CPU-connected x16 slot" + ("." if d.is_display else
                                                                           " if the board has one.")))
        elif sta.width is not None and sta.width <= 4 and d.is_display:
            findings.append(fail(f"{label}: link is x{sta.width}: a GPU at x4 (often behind the chipset) drags "
                                 "every collective down to its link."))
        if d.speed_reduced:
            full = f" at its full width x{sta.width}" if sta.width and not d.width_reduced else \
                f" at x{sta.width}, its share of the split" if split else ""
            # an idle GPU's power saving (lspci cannot say the load): a GPU's link, one lspci does not name (its
            # device line not pasted) or a bridge above it (which follows the card down) at Gen1 and full width
            # (a Spark has no discrete GPU: nothing on it steps down for idleness)
            idle = full and stepped_down_idle(sta.gen, None) and not on_spark(None) and (
                d.is_display or not d.class_name or "bridge" in d.class_name.lower())
            findings.append((info if idle else warn)(f"{label}: running at {sta.speed_gt_s:g} GT/s (Gen{sta.gen}){full}, "
                                 "capable of "
                                 + (f"{cap.speed_gt_s:g} GT/s (Gen{cap.gen})" if cap and cap.speed_gt_s else more)
                                 + (" (downgraded)" if sta.speed_downgraded and cap and cap.speed_gt_s else "")
                                 + (". An idle GPU lowers its link speed to save power: read LnkSta again under load."
                                    if d.is_display else
                                    ". If it is a GPU, an idle one lowers its link speed to save power: read LnkSta "
                                    "again under load; any other device should run at its capable speed (reseat it, "
                                    "check the slot's generation in the BIOS). Paste the device lines too "
                                    "(`sudo lspci -vv -s <address>`) to say which it is.")))
        narrow = sta.width and sta.width <= 4 and (d.is_display or cap is None)  # an x4 GPU: failed above
        if not d.width_reduced and not d.speed_reduced and not narrow:
            findings.append(ok(f"{label}: LnkSta Gen{sta.gen} x{sta.width} matches LnkCap"
                               + (f" Gen{cap.gen} x{cap.width}: the full link, healthy" if cap else "") + "."))
    findings += _acs_findings(devices)
    findings += _driver_findings(devices) + _listed(devices)
    others = [d for d in rest if not d.is_display and d.class_name]
    if shown is not rest and others:
        findings.append(info(f"{len(others)} other function(s) skipped ({', '.join(d.class_name for d in others)}): "
                             "a card's audio or USB function shares its link."))
    facts = {"devices": [{"address": d.address, "class": d.class_name, "name": d.name, "description": d.description,
                          "lnkcap": d.lnkcap.__dict__ if d.lnkcap else None,
                          "lnksta": d.lnksta.__dict__ if d.lnksta else None,
                          "access_denied": d.access_denied, "acs_on": d.acs_on} for d in devices]}
    return facts, findings


_EGPU_RE = re.compile(r"(?i)\bthunderbolt\b|\beGPU\b|\bUSB4\b|\bTB[345]\b")
_NEGATED_RE = re.compile(r"(?i)\b(?:no|not|without|never|nor|isn'?t|aren'?t|n't)\b[^.;:!?\n]{0,30}$")
_TO_A_GPU_RE = re.compile(r"(?i)\beGPU\b|\benclosure\b|\bGPU\b|\bcard\b|\bRTX\b|GeForce|\bRazer Core\b|Gaming Box")


def _egpu_said(paste: str) -> bool:
    """The paste says a GPU sits behind Thunderbolt/USB4: a mention not negated (`no Thunderbolt, no eGPU`) on a
    sentence that is about a GPU or an enclosure (not `the USB4 port has a keyboard dock on it`)."""
    for ln in (part for line in head_lines(paste, 400) for part in re.split(r"(?<=[.!?;])\s", line[:300])):
        said = [m for m in _EGPU_RE.finditer(ln) if not _NEGATED_RE.search(ln[:m.start()])]
        if said and _TO_A_GPU_RE.search(ln) and not all(_NEGATED_RE.search(ln[:g.start()])
                                                        for g in _TO_A_GPU_RE.finditer(ln)):
            return True
    return False


def summarise_rig_report(report: Any, command: str | None) -> Summary:
    """The club-3090 rig report's GPUs: a card on fewer PCIe lanes than it has (every all-reduce of tensor parallel, and
    the model's loading, cross that narrower link), and a power limit set under the card's default; its bench.sh runs
    (judges/club_bench.py)."""
    from .club_bench import bench_findings
    gpus = report.gpus
    facts = {"gpus": [dict(vars(g)) for g in gpus], "prefill": [dict(vars(p)) for p in report.prefill],
             "runs": [dict(vars(r)) for r in report.runs]}
    findings: list[Finding] = [info(f"Rig report: {len(gpus)} GPU(s): " + ", ".join(
        f"GPU{g.index} {g.name}" for g in gpus[:8]) + ".")] if gpus else []
    findings += mixed_models([g.name for g in gpus]) + bench_findings(report)
    for g in gpus:
        # a desktop CPU's 16 graphics lanes split x8/x8 between two cards: not the reason where this card alone runs
        # x8 while another runs x16 (a platform with lanes for both: club-3090#37, four cards on buses 01-c1)
        narrowed = [o for o in gpus if o.lanes == 8 and o.lanes_max == 16]  # (an x8 card at its own x8 is no narrowed slot)
        lone_x8 = g.lanes == 8 and len(narrowed) == 1 and any(o.lanes == 16 for o in gpus)
        if lone_x8 and g.lanes_max == 16:
            findings.append(warn(f"GPU{g.index} ({g.name}) runs on PCIe x8 of its x16" + (f" (Gen{g.gen} at most, "
                                 f"`Gen up to {g.gen}`)" if g.gen else "") + ", while " + ", ".join(f"GPU{o.index}" for o in gpus if o.lanes == 16)
                                 + " run x16: the platform has lanes for a full link, so this is no desktop's x8/x8 "
                                 "split but a slot wired x8 (or shared with an M.2 drive), a riser, or a card not "
                                 "fully seated. Loading the model and every tensor-parallel all-reduce cross its "
                                 "link at half the others' bandwidth; the board's manual says each slot's wiring, "
                                 "`sudo lspci -vv -s <bus> | grep LnkCap` the slot's own width."))
        elif g.lanes == 8 and g.lanes_max == 16 and (g.gen or 0) >= 4:  # a desktop's x8/x8: as much as Gen(n-1) x16
            findings.append(info(f"GPU{g.index} ({g.name}) runs on PCIe x8 of its x16 (Gen up to {g.gen}): "
                                 + split_words(g.gen)))
        elif g.lanes is not None and g.lanes_max and g.lanes < g.lanes_max:
            tb = g.lanes == 4 and (g.gen or 3) <= 3  # what a Thunderbolt 3 or USB4 enclosure carries at most
            egpu = tb and _egpu_said(context().paste)
            findings.append((info if egpu else warn)(
                f"GPU{g.index} ({g.name}) runs on PCIe x{g.lanes} of its x{g.lanes_max}" + (f" (Gen up to {g.gen})" if
                g.gen else "") + (": behind a Thunderbolt eGPU enclosure, which carries at most PCIe Gen3 x4, that is "
                "the enclosure's limit, expected, not a fault" if egpu else ": the slot (or its riser, or a chipset slot) "
                "is narrower than the card") + ", so loading the model and, with tensor parallel, every all-reduce "
                "between the cards cross that narrower link; layer split (llama.cpp's default) sends far less between "
                "them." + (" x4 at Gen3 is also exactly what a Thunderbolt 3 (or USB4) eGPU enclosure carries: in one, "
                           "it is the enclosure's limit and expected; `lspci -tv` (a Thunderbolt bridge above the "
                           "card) or `boltctl` tells." if tb and not egpu else "")))
        elif g.lanes is not None and g.lanes == g.lanes_max:
            findings.append(ok(f"GPU{g.index}: PCIe x{g.lanes}, the card's full width."))
        if g.power_limit_w is not None and g.power_default_w and g.power_limit_w < g.power_default_w:
            findings.append(info(f"GPU{g.index}: power limit {g.power_limit_w:g} W, under its default "
                                 f"{g.power_default_w:g} W (set by its owner): under full load the card clocks lower; "
                                 "less heat and power from the supply."))
    return facts, findings


def tree_findings(tree: Any) -> list[Finding]:
    """``lspci -t``: which buses hang directly off a CPU root port (a bridge on a root bus) and which sit deeper,
    behind a PCIe switch or bridge; a tree of root buses with no bridge at all (a VM's virtual PCI) says nothing of
    the host's. The tree never shows link widths or speeds, and names nothing without ``-v``."""
    direct, deeper = [], []
    for root in tree.roots:
        for key in tree.buses[root].bridges:
            b = tree.buses[key]
            (deeper if b.bridges else direct).append(b)
    named = any(n for b in tree.buses.values() for _, n in b.functions)
    out = [info(f"This `lspci -t` tree shows topology only: {'' if named else 'no device names (`lspci -tv` names them), '}"
                "no link widths or speeds, so whether each card runs at its full width is not shown (`sudo lspci -vv` "
                "LnkSta says); nothing in it is a fault.")]
    if not direct and not deeper:
        return [info(f"{len(tree.roots)} root buses and no bridge below them: each device sits on a root bus of its "
                     "own, as a VM's virtual PCI shows (the host's PCIe topology is hidden).")] + out if len(
            tree.roots) > 1 else out
    pairs = [b for b in direct if [a[-1] for a, _ in b.functions] == ["0", "1"]]
    words = f"{len(tree.roots)} root complexes ({', '.join(tree.roots)}). " if len(tree.roots) > 1 else ""
    if direct:
        words += (f"Directly on a CPU root port, no PCIe switch between: {listed([f'bus {b.bus} ({b.parent})' for b in direct][:12])}."
                  + (f" The two-function ones (x.0 + x.1, as a GPU and its HDMI audio show): buses "
                     f"{', '.join(b.bus for b in pairs)}; if those are GPUs, each has its own root port, so traffic "
                     "between them goes through the CPU." if pairs else ""))
    if deeper:
        words += (f" Behind a further bridge (a PCIe switch, or a card's own bridge) below root ports "
                  f"{', '.join(b.parent for b in deeper)}: devices below one switch reach each other without the CPU.")
    return [info(words.strip())] + out
