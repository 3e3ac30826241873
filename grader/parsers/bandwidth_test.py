"""Parser for CUDA samples' ``bandwidthTest``: copies between host memory and one GPU (host to device, device to host)
and inside the GPU (device to device), each at the transfer sizes the mode runs, and the result.

Shape (cuda-samples, Samples/1_Utilities/bandwidthTest; as posted in stelline's workstation notes, blind batch
vr005)::

    [CUDA Bandwidth Test] - Starting...
    Running on...
     Device 0: NVIDIA RTX 6000 Ada Generation
     Quick Mode
     Host to Device Bandwidth, 1 Device(s)
     PINNED Memory Transfers
       Transfer Size (Bytes)        Bandwidth(GB/s)
       32000000                     26.8
     ...
    Result = PASS

Older releases print ``Bandwidth(MB/s)`` (their MB: 2^20 bytes in most, 1,024,000 in CUDA 9-10's: 2.4% apart); both are
kept as printed, with their unit, and read in GB/s (10^9 bytes a second) through :attr:`Transfer.gbs`. ``Range Mode``
and ``Shmoo Mode`` print a row a size; ``--csv`` a line a test; ``--device=all`` the rate summed over the devices.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import ParseError, content_lines, raise_if_shell_error

CMD = "bandwidthTest"

START_RE = re.compile(r"^\[CUDA Bandwidth Test\] - Starting")
_DEVICE_RE = re.compile(r"^Device (?P<i>\d{1,3}): (?P<name>[^\n]{1,80})$")
_MODE_RE = re.compile(r"^(?P<mode>Quick|Range|Shmoo) Mode$")
_SECTION_RE = re.compile(r"^(?P<way>Host to Device|Device to Host|Device to Device) Bandwidth, (?P<n>\d{1,3}) Device")
_MEMORY_RE = re.compile(r"^(?P<memory>PINNED|PAGEABLE|WRITE-COMBINED) Memory Transfers")
_UNIT_RE = re.compile(r"^Transfer Size \(Bytes\)\s+Bandwidth\((?P<unit>GB/s|MB/s)\)")
_ROW_RE = re.compile(r"^(?P<size>\d{1,13})\s+(?P<rate>\d{1,7}(?:\.\d{1,4})?)$")
_RESULT_RE = re.compile(r"^Result = (?P<result>PASS|FAIL)\b")
_CSV_RE = re.compile(r"^bandwidthTest-(?P<way>H2D|D2H|D2D)(?:-(?P<memory>Pinned|Paged|Pageable|WC))?, Bandwidth = "
                     r"(?P<rate>\d{1,7}(?:\.\d{1,4})?) (?P<unit>GB/s|MB/s), Time = [\d.e-]{1,16} s, Size = (?P<size>\d{1,13}) "
                     r"bytes, NumDevsUsed = (?P<n>\d{1,3})")
"""A row of ``bandwidthTest --csv`` (cuda-samples' printResultsCSV): ``bandwidthTest-H2D-Pinned, Bandwidth = 26.8 GB/s,
Time = 0.00119 s, Size = 32000000 bytes, NumDevsUsed = 1``."""
_CSV_WAYS = {"H2D": "Host to Device", "D2H": "Device to Host", "D2D": "Device to Device"}
_CSV_MEMORY = {"Pinned": "PINNED", "Paged": "PAGEABLE", "Pageable": "PAGEABLE", "WC": "WRITE-COMBINED", None: "PINNED"}

_GB_PER_UNIT = {"GB/s": 1.0, "MB/s": 2 ** 20 / 1e9}
"""GB/s (10^9 bytes a second) in one unit as bandwidthTest prints it: its MB/s rows are 2^20 bytes a second (the
samples' ``(1 << 20)``), its GB/s rows 10^9 (``1e9``, since CUDA 11)."""


@dataclass(frozen=True)
class Transfer:
    """One row: ``way`` (``Host to Device``, ``Device to Host``, ``Device to Device``), ``memory`` (``PINNED`` or
    ``PAGEABLE``), the transfer's size in bytes, its rate as printed in ``unit``, and how many devices that rate sums."""

    way: str
    memory: str
    size_bytes: int
    rate: float
    unit: str
    devices: int = 1  # the devices the row's rate is summed over (``--device=all``: ``2 Device(s)``, its cumulative rate)

    @property
    def gbs(self) -> float:
        """The rate in GB/s (10^9 bytes a second)."""
        return self.rate * _GB_PER_UNIT[self.unit]


@dataclass(frozen=True)
class BandwidthTest:
    """``devices``: (index, name) of those it ran on; ``mode``: Quick, Range or Shmoo (None where not shown);
    ``transfers``: every row read; ``passed``: True for ``Result = PASS``, False for FAIL, None where the paste stops
    before it."""

    devices: tuple[tuple[int, str], ...]
    mode: str | None
    transfers: tuple[Transfer, ...]
    passed: bool | None


def parse_bandwidth_test(text: str) -> BandwidthTest:
    """Read ``bandwidthTest``'s output. Raises ParseError where neither its banner nor a row under a section header
    is found."""
    lines = content_lines(text)
    raise_if_shell_error(lines, CMD)
    devices: list[tuple[int, str]] = []
    transfers: list[Transfer] = []
    mode = way = memory = None
    unit, n = "GB/s", 1
    passed = None
    started = False
    for line in lines:
        s = line.text.strip()
        if START_RE.match(s):
            started = True
        elif m := _DEVICE_RE.match(s):
            devices.append((int(m["i"]), m["name"].strip()))
        elif m := _MODE_RE.match(s):
            mode = m["mode"]
        elif m := _SECTION_RE.match(s):
            way, memory, n = m["way"], None, int(m["n"])
        elif m := _MEMORY_RE.match(s):
            memory = m["memory"]
        elif m := _UNIT_RE.match(s):
            unit = m["unit"]
        elif (m := _ROW_RE.match(s)) and way and len(transfers) < 10_000:
            transfers.append(Transfer(way, memory or "PINNED", int(m["size"]), float(m["rate"]), unit, n))
        elif (m := _CSV_RE.match(s)) and len(transfers) < 10_000:
            transfers.append(Transfer(_CSV_WAYS[m["way"]], _CSV_MEMORY[m["memory"]], int(m["size"]), float(m["rate"]),
                                      m["unit"], int(m["n"])))
        elif m := _RESULT_RE.match(s):
            passed = m["result"] == "PASS"
    if not (started or transfers):
        raise ParseError(CMD, "no bandwidthTest line (`[CUDA Bandwidth Test] - Starting...`, `Host to Device "
                              "Bandwidth, 1 Device(s)` and its rows)")
    return BandwidthTest(tuple(devices), mode, tuple(transfers), passed)
