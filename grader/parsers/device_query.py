"""Parser for CUDA samples' ``deviceQuery``: the CUDA devices the runtime sees, each one's name, compute capability and
memory, the driver's and the runtime's CUDA versions, whether each pair reports peer access, and the result.

Shape (cuda-samples, Samples/1_Utilities/deviceQuery; as posted in thamada/gls and NVIDIA/cuda-samples issue 13)::

    ./deviceQuery Starting...
     CUDA Device Query (Runtime API) version (CUDART static linking)
    Detected 2 CUDA Capable device(s)
    Device 0: "NVIDIA GeForce RTX 3090"
      CUDA Driver Version / Runtime Version          12.6 / 12.4
      CUDA Capability Major/Minor version number:    8.6
      Total amount of global memory:                 24154 MBytes (25327697920 bytes)
      Device PCI Domain ID / Bus ID / location ID:   0 / 65 / 0
    > Peer access from NVIDIA GeForce RTX 3090 (GPU0) -> NVIDIA GeForce RTX 3090 (GPU1) : No
    deviceQuery, CUDA Driver = CUDART, CUDA Driver Version = 12.6, CUDA Runtime Version = 12.4, NumDevs = 2
    Result = PASS

Or, where the runtime sees no device: ``cudaGetDeviceCount returned 999`` then ``-> unknown error`` and ``Result =
FAIL``. Memory is MBytes as printed (2^20 bytes: MiB).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import ParseError, content_lines, raise_if_shell_error
from .simple_p2p import PEER_RE

CMD = "deviceQuery"

START_RE = re.compile(r"^(?:[^\n]{0,200}[/\\])?deviceQuery(?:\.exe)? Starting")
_COUNT_RE = re.compile(r"^Detected (?P<n>\d{1,3}) CUDA Capable device")
_DEVICE_RE = re.compile(r"^Device (?P<i>\d{1,3}): \"(?P<name>[^\"]{1,80})\"")
_VERSIONS_RE = re.compile(r"^CUDA Driver Version / Runtime Version\s+(?P<driver>\d+\.\d+) / (?P<runtime>\d+\.\d+)")
_CAPABILITY_RE = re.compile(r"^CUDA Capability Major/Minor version number:\s+(?P<cc>\d+\.\d+)")
_MEMORY_RE = re.compile(r"^Total amount of global memory:\s+(?P<mib>\d+) MBytes")
_BUS_RE = re.compile(r"^Device PCI Domain ID / Bus ID / location ID:\s+(?P<domain>\d+) / (?P<bus>\d+) / (?P<loc>\d+)")
_FAILED_RE = re.compile(r"^cudaGetDeviceCount returned (?P<code>\d{1,4})")
_RESULT_RE = re.compile(r"^Result = (?P<result>PASS|FAIL)\b")


@dataclass(frozen=True)
class QueriedDevice:
    """One ``Device N:`` block: its index, name, compute capability (``8.6``), memory (MiB) and PCI bus (decimal, as
    printed); None where the paste does not show it."""

    index: int
    name: str
    capability: str | None = None
    memory_mib: int | None = None
    bus: int | None = None


@dataclass(frozen=True)
class DeviceQuery:
    """``devices`` in order; ``detected`` the count it printed; ``driver`` and ``runtime`` the CUDA versions (``12.6``);
    ``peer`` {(a, b): True for Yes}; ``error`` ``(code, message)`` of a failed cudaGetDeviceCount; ``passed`` True/False
    for ``Result = PASS``/``FAIL``, None when the paste stops before it."""

    devices: tuple[QueriedDevice, ...]
    detected: int | None
    driver: str | None
    runtime: str | None
    peer: dict[tuple[int, int], bool]
    error: tuple[int, str] | None
    passed: bool | None


def parse_device_query(text: str) -> DeviceQuery:
    """Read deviceQuery's output (see the module docstring). ParseError when none of its lines is there."""
    lines = content_lines(text)
    raise_if_shell_error(lines, CMD)
    devices: list[dict] = []
    detected = driver = runtime = error = passed = None
    peer: dict[tuple[int, int], bool] = {}
    seen = False
    for i, line in enumerate(lines):
        s = line.text.strip()
        if m := _DEVICE_RE.match(s):
            devices.append({"index": int(m["i"]), "name": m["name"]})
        elif (m := _CAPABILITY_RE.match(s)) and devices:
            devices[-1]["capability"] = m["cc"]
        elif (m := _MEMORY_RE.match(s)) and devices:
            devices[-1]["memory_mib"] = int(m["mib"])
        elif (m := _BUS_RE.match(s)) and devices:
            devices[-1]["bus"] = int(m["bus"])
        elif m := _VERSIONS_RE.match(s):
            driver, runtime = m["driver"], m["runtime"]
        elif m := _COUNT_RE.match(s):
            detected = int(m["n"])
        elif m := PEER_RE.match(s):
            peer[(int(m["a"]), int(m["b"]))] = m["yes"] == "Yes"
        elif m := _FAILED_RE.match(s):
            said = lines[i + 1].text.strip() if i + 1 < len(lines) else ""
            error = (int(m["code"]), said[2:].strip() if said.startswith("->") else "")
        elif m := _RESULT_RE.match(s):
            passed = m["result"] == "PASS"
        elif not START_RE.match(s):
            continue
        seen = True
    if not seen:
        raise ParseError(CMD, "no deviceQuery line (`Device 0: \"...\"`, `Result = PASS` ...)")
    return DeviceQuery(tuple(QueriedDevice(**d) for d in devices), detected, driver, runtime, peer, error, passed)
