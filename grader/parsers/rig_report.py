"""Parser for the "club-3090 rig report" (a Markdown summary of a two-GPU desktop that owners post in issues of the
club-3090 project: OS, CPU, disks, then one block per GPU), its GPU lines only::

    - **GPU 0:** NVIDIA GeForce RTX 3090 | 24576 MiB | driver 595.58.03 | VBIOS 94.02.42.C0.05 | persistence=Enabled
      - **Power:** limit=300.00 W (default=420.00 W, max=450.00 W) | current_draw=26.61 W ⚠ user-capped below default
      - **PCIe:** x4 lanes negotiated (GPU max x16, Gen up to 3) | bus 00000000:08:00.0 ⚠ slot is narrower than ...

Units as printed: MiB, W, PCIe lanes. The same project's bench script (bench.sh) prints its single-stream runs in
the report it posts; those lines are read too::

    [bench] prefill-10k run 2/3: 9997 prompt tok, 4207.9 prefill tok/s, ttft 2376ms
    ========== NARRATIVE (prompt=65 chars, max_tokens=1000) ==========
      run-1      wall=  4.91s  ttft=    52ms  toks= 880  wall_TPS=179.41  decode_TPS=181.32

Other lines (the report's other sections, its ⚠ notes, the script's summaries, recomputed from the runs instead) are
skipped; ParseError when neither a GPU line nor a bench run is found.
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


_PREFILL_RE = re.compile(r"^\[bench\] (?P<label>prefill-[\w.]{1,20}) run \d{1,4}/\d{1,4}: (?P<tok>\d{1,9}) prompt tok, "
                         r"(?P<rate>\d{1,9}(?:\.\d{1,6})?) prefill tok/s, ttft (?P<ttft>\d{1,9})ms")
_SECTION_RE = re.compile(r"^={5,40} (?P<name>[A-Za-z][\w -]{0,40}?) \(prompt=")
_RUN_RE = re.compile(r"^(?P<what>warm|run)-\d{1,4}\s{1,20}wall=\s{0,10}[\d.]{1,12}s\s{1,20}ttft=\s{0,10}(?P<ttft>\d{1,9})ms"
                     r"\s{1,20}toks=\s{0,10}(?P<toks>\d{1,9})\s{1,20}wall_TPS=\s{0,10}[\d.]{1,12}\s{1,20}"
                     r"decode_TPS=\s{0,10}(?P<tps>\d{1,9}(?:\.\d{1,6})?)")


@dataclass(frozen=True)
class BenchPrefill:
    """One prefill run of bench.sh: ``label`` (``prefill-10k``), the prompt's ``tokens``, its ``rate`` (tok/s) and
    ``ttft_ms``."""

    label: str
    tokens: int
    rate: float
    ttft_ms: int


@dataclass(frozen=True)
class BenchRun:
    """One single-stream generation run of bench.sh: its ``section`` (``NARRATIVE``), ``warmup`` (a warm-up, not
    measured), ``ttft_ms``, the tokens it generated (``tokens``) and its ``decode_tps`` (tok/s)."""

    section: str
    warmup: bool
    ttft_ms: int
    tokens: int
    decode_tps: float


@dataclass(frozen=True)
class RigReport:
    """What the report holds: its ``gpus``, and bench.sh's ``prefill`` and ``runs`` (empty where not pasted)."""

    gpus: tuple
    prefill: tuple = ()
    runs: tuple = ()


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


def parse_rig_report(text: str) -> RigReport:
    """The report's GPUs and bench runs (see the module docstring)."""
    gpus: list[dict] = []
    prefill: list[BenchPrefill] = []
    runs: list[BenchRun] = []
    section = ""
    for line in content_lines(text):
        s = line.text.strip()
        if m := _PREFILL_RE.match(s):
            prefill.append(BenchPrefill(m.group("label"), int(m.group("tok")), float(m.group("rate")),
                                        int(m.group("ttft"))))
        elif m := _SECTION_RE.match(s):
            section = m.group("name").strip()
        elif m := _RUN_RE.match(s):
            runs.append(BenchRun(section, m.group("what") == "warm", int(m.group("ttft")), int(m.group("toks")),
                                 float(m.group("tps"))))
        elif m := _GPU_RE.match(s):
            gpus.append({"index": int(m.group("i")), "name": m.group("name").strip(), "memory_mib": int(m.group("mib"))})
        elif gpus and (m := _POWER_RE.match(s)):
            gpus[-1].update(power_limit_w=float(m.group("limit")), power_default_w=float(m.group("default")))
        elif gpus and (m := _PCIE_RE.match(s)):
            gpus[-1].update(lanes=int(m.group("lanes")), lanes_max=int(m.group("max")),
                            gen=int(m.group("gen")) if m.group("gen") else None)
    if not gpus and not prefill and not runs:
        raise ParseError(CMD, "no `- **GPU N:** <name> | <memory> MiB` line and no bench.sh run found")
    return RigReport(tuple(RigGpu(**g) for g in gpus), tuple(prefill), tuple(runs))
