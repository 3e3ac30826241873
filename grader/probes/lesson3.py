"""Lesson 3 probes: the two cards of a desktop, their PCIe links, the path between them, their power.

Every command is a fixed, read-only constant: nothing from the inventory reaches a shell. No probe
changes a GPU setting (no ``-pl``, no persistence mode, no reset, no clocks).
"""

from __future__ import annotations

from grader.evidence import Evidence
from grader.inventory import Inventory
from grader.probes import Probe, platform, run_plan
from grader.transport import Connection

QUERY_FIELDS = ("index,name,pci.bus_id,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,"
                "pcie.link.width.max,power.draw,power.limit,power.default_limit,power.min_limit,power.max_limit,"
                "enforced.power.limit,memory.total,pstate,utilization.gpu")
"""The ``--query-gpu`` fields lesson 3 reads: link gen/width now and max, power draw and limits, memory,
and whether the card is busy (an idle card steps its link down). Only fields every driver since the
4xx series knows: one unknown field fails the whole query."""

LSPCI_DISPLAY = ("if sudo -n true 2>/dev/null; then S='sudo -n'; else S=''; fi; "
                 "for c in 0300 0302 0380; do $S lspci -vv -d 10de::$c; done")
"""``lspci -vv`` of NVIDIA display controllers only (PCI classes 0300 VGA, 0302 3D, 0380 other); with
``sudo -n`` when it needs no password, since the link capabilities are hidden from other users."""

PCI_PATHS = ("for d in /sys/bus/pci/devices/*; do [ \"$(cat $d/vendor)\" = 0x10de ] || continue; "
             "case \"$(cat $d/class)\" in 0x03*) echo \"$(basename $d) $(readlink -f $d)\";; esac; done")
"""Each NVIDIA display controller's sysfs path: the bridges between the CPU's root and the card."""

SYSINFO = ("uname -srm; nvidia-smi --version 2>&1 | head -n 4; lspci --version 2>&1 | head -n 1; "
           "cat /sys/module/nvidia/version 2>/dev/null; true")

PROBES = (
    Probe("sysinfo", SYSINFO),
    Probe("smi_query", f"nvidia-smi --query-gpu={QUERY_FIELDS} --format=csv"),
    Probe("smi_topo", "nvidia-smi topo -m"),
    Probe("smi_p2p", "nvidia-smi topo -p2p r"),
    Probe("smi_power", "nvidia-smi -q -d POWER"),
    Probe("lspci", LSPCI_DISPLAY),
    Probe("pci_paths", PCI_PATHS),
    platform.PROBE,
)
"""The fixed lesson-3 probes, run on each node of the inventory (a desktop has one); the last one,
``platform``, shows what machine it is (grader.probes.platform)."""


def inventory_summary(inventory: Inventory) -> dict:
    """The inventory as recorded in evidence (no key paths, no secrets), with the declared [desktop] budget."""
    return {"profile": inventory.profile, "qsfp_port": inventory.qsfp_port,
            "desktop": inventory.desktop.model_dump() if inventory.desktop else None,
            "nodes": [{"name": n.name, "address": n.address or n.ssh_alias, "port": n.port, "user": n.user}
                      for n in inventory.nodes]}


def collect(inventory: Inventory, conns: dict[str, Connection], errors: dict[str, str]) -> Evidence:
    """Run the lesson-3 probes on every reachable node; return the evidence (facts not yet derived)."""
    ev = Evidence(lesson="lesson3", profile=inventory.profile, inventory=inventory_summary(inventory), errors=errors)
    ev.raw += run_plan(conns, {n.name: list(PROBES) for n in inventory.nodes}, errors)
    for n in inventory.nodes:
        info = ev.outputs(n.name, "sysinfo")
        ev.provenance.setdefault("nodes", {}).setdefault(n.name, {})["sysinfo"] = info.stdout.strip() if info else None
    platform.record_host_keys(ev, conns)
    ev.stamp()
    return ev
