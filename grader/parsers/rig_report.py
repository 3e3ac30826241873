"""Parser for the "club-3090 rig report" (a Markdown summary of a two-GPU desktop that owners post in issues of the
club-3090 project: OS, CPU, disks, then one block per GPU), its GPU lines only::

    - **GPU 0:** NVIDIA GeForce RTX 3090 | 24576 MiB | driver 595.58.03 | VBIOS 94.02.42.C0.05 | persistence=Enabled
      - **Power:** limit=300.00 W (default=420.00 W, max=450.00 W) | current_draw=26.61 W ⚠ user-capped below default
      - **PCIe:** x4 lanes negotiated (GPU max x16, Gen up to 3) | bus 00000000:08:00.0 ⚠ slot is narrower than ...

Units as printed: MiB, W, PCIe lanes. Other lines (the report's other sections, its ⚠ notes) are skipped; ParseError
when no GPU line is found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import ParseError, content_lines

CMD = "club-3090 rig report"

_GPU_RE = re.compile(r"^-\s+\*\*GPU (?P<i>\d{1,3}):\*\*\s+(?P<name>[^|\n]{1,120}?)\s*\|\s*(?P<mib>\d{1,9}) MiB")
_POWER_RE = re.compile(r"^-\s+\*\*Power:\*\*\s+limit=(?P<limit>[\d.]{1,10}) W \(default=(?P<default>[\d.]{1,10}) W"
                       r"(?:, max=(?P<max>[\d.]{1,10}) W)?\)")
_PCIE_RE = re.compile(r"^-\s+\*\*PCIe:\*\*\s+x(?P<lanes>\d{1,2}) lanes negotiated \(GPU max x(?P<max>\d{1,2})"
                      r"(?:, Gen up to (?P<gen>\d{1,2}))?\)")


@dataclass(frozen=True)
class RigGpu:
    """One GPU of the report: ``index``, ``name``, ``memory_mib``; ``power_limit_w``, ``power_default_w`` (its
    set limit and the card's default, W); ``lanes`` and ``lanes_max`` (PCIe lanes negotiated and the card's), ``gen``
    (the highest PCIe generation the report gives). None where the report does not print it."""

    index: int
    name: str
    memory_mib: int | None = None
    power_limit_w: float | None = None
    power_default_w: float | None = None
    lanes: int | None = None
    lanes_max: int | None = None
    gen: int | None = None


def parse_rig_report(text: str) -> tuple[RigGpu, ...]:
    """The report's GPUs (see the module docstring)."""
    gpus: list[dict] = []
    for line in content_lines(text):
        s = line.text.strip()
        if m := _GPU_RE.match(s):
            gpus.append({"index": int(m.group("i")), "name": m.group("name").strip(), "memory_mib": int(m.group("mib"))})
        elif gpus and (m := _POWER_RE.match(s)):
            gpus[-1].update(power_limit_w=float(m.group("limit")), power_default_w=float(m.group("default")))
        elif gpus and (m := _PCIE_RE.match(s)):
            gpus[-1].update(lanes=int(m.group("lanes")), lanes_max=int(m.group("max")),
                            gen=int(m.group("gen")) if m.group("gen") else None)
    if not gpus:
        raise ParseError(CMD, "no `- **GPU N:** <name> | <memory> MiB` line found")
    return tuple(RigGpu(**g) for g in gpus)
