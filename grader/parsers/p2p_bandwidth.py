"""Parser for CUDA samples' ``p2pBandwidthLatencyTest``: which GPUs can reach each other directly (P2P), and the
copy bandwidth and latency between each pair with P2P off (copies staged through host memory) and on.

Shape (cuda-samples, Samples/5_Domain_Specific/p2pBandwidthLatencyTest; as posted in tinygrad/open-gpu-kernel-modules
issues 6, 36 and 44, NVIDIA/nccl issue 1127)::

    [P2P (Peer-to-Peer) GPU Bandwidth Latency Test]
    Device: 0, NVIDIA GeForce RTX 4090, pciBusID: 2, pciDeviceID: 0, pciDomainID:0
    Device=0 CAN Access Peer Device=1                      (or CANNOT)
    P2P Connectivity Matrix
         D\\D     0     1
         0       1     1
    Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)
       D\\D     0      1
         0 1008.06   6.34
         1   6.34 926.75
    Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)
    Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)
    Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)
    P2P=Disabled Latency Matrix (us)
    P2P=Enabled Latency (P2P Writes) Matrix (us)

Bandwidths in GB/s (10^9 bytes per second; a bidirectional figure counts both directions together), latencies in
µs. The diagonal is a GPU's copy within its own memory. A matrix cut off is read up to its last whole number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .common import ParseError, content_lines, raise_if_shell_error

CMD = "p2pBandwidthLatencyTest"

_DEVICE_RE = re.compile(r"^Device: (?P<i>\d+), (?P<name>[^,]+), pciBusID: (?P<bus>[0-9a-fA-F]+)")
_ACCESS_RE = re.compile(r"^Device=(?P<a>\d+) (?P<can>CAN|CANNOT) Access Peer Device=(?P<b>\d+)")
_TITLE_RE = re.compile(r"^(?P<dir>Unidirectional |Bidirectional )?P2P=(?P<p2p>Enabled|Disabled) "
                       r"(?P<what>Bandwidth|Latency)\b.*Matrix \((?P<unit>GB/s|us)\)"
                       # CUDA's demo-suite busGrind titles its matrices the other way round (the field corpus's u001)
                       r"|^P2P (?P<what2>Bandwidth|Latency) Matrix \((?P<unit2>GB/s|us)\) - (?P<dir2>Uni|Bi)directional, "
                       r"P2P=(?P<p2p2>Enabled|Disabled)$")
_ROW_RE = re.compile(r"^\s*+(?P<i>\d+)\s++(?P<values>[\d.]++(?:\s++[\d.]++)*+)")

MATRICES = ("uni_off", "uni_on", "bi_off", "bi_on", "lat_off", "lat_on")
"""The names of the six matrices: bandwidth one way and both ways, latency; P2P off, then on."""


@dataclass(frozen=True)
class P2pTest:
    """What ``p2pBandwidthLatencyTest`` printed: ``devices`` {index: name}, ``access`` {(a, b): True for CAN,
    False for CANNOT}, ``connectivity`` {(a, b): 0 or 1}, and ``matrices`` {name (MATRICES): {(row, column): value}}
    (GB/s, or µs for latency). ``truncated``: the paste ends inside a matrix."""

    devices: dict[int, str] = field(default_factory=dict)
    access: dict[tuple[int, int], bool] = field(default_factory=dict)
    connectivity: dict[tuple[int, int], int] = field(default_factory=dict)
    matrices: dict[str, dict[tuple[int, int], float]] = field(default_factory=dict)
    truncated: bool = False

    def pairs(self, name: str) -> dict[tuple[int, int], float]:
        """The matrix ``name`` without its diagonal (a GPU with itself)."""
        return {k: v for k, v in self.matrices.get(name, {}).items() if k[0] != k[1]}


def parse_p2p_bandwidth(text: str) -> P2pTest:
    """Read the test's lines (see the module docstring); other lines are skipped. ParseError when none is one."""
    lines = content_lines(text)
    raise_if_shell_error(lines, CMD)
    devices: dict[int, str] = {}
    access: dict[tuple[int, int], bool] = {}
    matrices: dict[str, dict[tuple[int, int], float]] = {}
    current: dict[tuple[int, int], float] | None = None
    columns: list[int] = []
    truncated = False
    for line in lines:
        s = line.text.strip()
        if m := _DEVICE_RE.match(s):
            devices[int(m.group("i"))] = m.group("name").strip()
        elif m := _ACCESS_RE.match(s):
            access[int(m.group("a")), int(m.group("b"))] = m.group("can") == "CAN"
        elif m := _TITLE_RE.match(s):
            what, way, p2p = (m.group("what") or m.group("what2"), m.group("dir") or m.group("dir2") or "",
                              m.group("p2p") or m.group("p2p2"))
            kind = "lat" if what == "Latency" else "bi" if way.startswith("Bi") else "uni"
            current, columns = matrices.setdefault(f"{kind}_{'on' if p2p == 'Enabled' else 'off'}", {}), []
        elif s == "P2P Connectivity Matrix":
            current, columns = matrices.setdefault("connectivity", {}), []
        elif s.startswith(("D\\D", "GPU")) and current is not None:
            columns = [int(x) for x in s.split()[1:] if x.isdigit()]
        elif (m := _ROW_RE.match(line.text)) and current is not None:
            values = m.group("values").split()
            cols = columns or list(range(len(values)))
            for col, value in zip(cols, values):
                current[int(m.group("i")), col] = float(value)
            truncated = len(values) < len(cols)
        elif s:
            current = None
    connectivity = {k: int(v) for k, v in matrices.pop("connectivity", {}).items()}
    if not (devices or access or matrices or connectivity):
        raise ParseError(CMD, "no line of p2pBandwidthLatencyTest (`Device: 0, ...`, `Device=0 CAN Access Peer "
                              "Device=1`, a `P2P=Enabled ... Matrix`)")
    truncated = truncated or (lines[-1].text.strip()[-1:].isdigit() and current is not None
                              and len({k[0] for k in current}) < max(len(columns), 1))
    return P2pTest(devices, access, connectivity, matrices, truncated)
