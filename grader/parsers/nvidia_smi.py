"""Parsers for ``nvidia-smi``: the ``--query-gpu`` CSV, ``topo -m``, ``topo -p2p``, the plain table, ``-q``.

Every parser takes pasted text (prompts, ``#`` comment lines, ANSI codes, CRLF allowed), reads
what is there, says what is missing (a cut-off paste gives ``truncated`` and notes), and raises
ParseError naming the command and the line for output it cannot read or nvidia-smi's own errors
(``Field "x" is not a valid field to query``, ``NVIDIA-SMI has failed``, ``No devices were found``).

Shapes seen (tests/fixtures/captured/h200x1/, shared/fixtures/real/h200x2/, driver 580):

- CSV header cells are ``name [unit]`` (``power.draw [W]``); values carry the unit unless
  ``nounits`` (``700.00 W`` / ``700.00``); unavailable values read ``[N/A]`` or
  ``[Not Supported]``. Some fields print another name than the one queried: ``clocks.sm`` prints
  ``clocks.current.sm``; older drivers say ``clocks_throttle_reasons`` where newer ones say
  ``clocks_event_reasons``. Columns are matched by name, never by position.
- ``topo -m``: a tab-separated matrix (first header cell empty), then a legend; with NICs, a
  ``NIC Legend`` maps NIC0 to mlx5_0.
- ``-q``: ``Key : value`` lines nested by indentation under section titles.

The plain table and ``-q`` are parsed here; the CSV (and the command's own errors every parser
shares) in :mod:`.nvidia_smi_query`, ``topo -m`` and ``topo -p2p`` in :mod:`.nvidia_smi_topo`. Every
name is importable from here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .common import ParseError, content_lines, raise_if_shell_error
from .nvidia_smi_query import (CMD, FIELD_ALIASES, STRING_FIELDS, QueryGpu, QueryRow, _raise_smi_errors,
                               canonical_field, parse_query_gpu, smi_value)
from .nvidia_smi_topo import (LINK_CODES, LINK_MEANING, MAX_MATRIX_DEVICES, P2P_STATUS, NvlinkGpu, NvlinkStatus,
                              TopoMatrix, TopoP2P, link_family, parse_nvlink_status, parse_topo_matrix, parse_topo_p2p)

__all__ = ["CMD", "FIELD_ALIASES", "LINK_CODES", "LINK_MEANING", "MAX_MATRIX_DEVICES", "P2P_STATUS", "STRING_FIELDS",
           "NvlinkGpu", "NvlinkStatus", "QueryGpu", "QueryRow", "SmiProcess", "SmiQGpu", "SmiQuery", "SmiTable", "SmiTableGpu", "TopoMatrix", "TopoP2P",
           "canonical_field", "link_family", "parse_nvlink_status", "parse_query_gpu", "parse_smi_q", "parse_smi_table", "parse_topo_matrix",
           "parse_topo_p2p", "smi_value"]

# --------------------------------------------------------------------------- the plain table

_SMI_HEADER_RE = re.compile(r"NVIDIA-SMI\s+(?P<smi>\S+)\s+Driver Version:\s*(?P<driver>\S+)"
                            r"(?:\s+CUDA Version:\s*(?P<cuda>\S+))?")
# The two lines of a GPU. Linear: possessive runs, and fields that end on a non-blank (a lazy field
# followed by optional blanks rescans a long run of blanks once per blank: quadratic).
_ROW1_RE = re.compile(r"^\|\s*+(?P<index>\d++)\s++(?P<name>\S(?:.*?\S)?)\s++(?P<persist>On|Off)\s*+\|\s*+"
                      r"(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s++(?P<disp>On|Off|N/A)\s*+\|"
                      r"\s*+(?P<ecc>(?:[^|]*[^|\s])?)\s*+\|$")
# power "77W /  700W", "N/A / N/A", or "77W/700W"
_ROW2_RE = re.compile(r"^\|\s*+(?P<fan>\S++)\s++(?P<temp>\S++)\s++(?P<perf>\S++)\s++"
                      r"(?:(?P<usage>\S++)\s++/\s*+(?P<cap>\S++)|(?P<usage2>[^\s/]++)/\s*+(?P<cap2>\S++))"
                      r"\s*+\|\s*+(?:(?P<used>\d++)Mi?B\s*+/\s*+(?P<total>\d++)Mi?B|(?P<nomem>Not Supported|N/A))\s*+\|"
                      r"\s*+(?P<util>\d++%|N/A)\s++(?P<compute>(?:[^|]*[^|\s])?)\s*+\|$")

# (drivers of 2013-14 print the memory as `14MB /  6143MB`, MiB by its figures: blind batch wy005)
# a row of the Processes table: `|    0   N/A  N/A    6008      C   VLLM::EngineCore      56501MiB |` (R450 and
# later, GI/CI columns) or `|    0     31794    C   Unknown Error      5371MiB |` (older drivers). The name is
# greedy up to the last blank run before the memory cell: one backtrack over the line, linear.
_PROC_RE = re.compile(r"^\|\s*+(?P<gpu>\d++)\s++(?:(?:N/A|\d++)\s++(?:N/A|\d++)\s++)?(?P<pid>\d++)\s++"
                      r"(?:(?P<type>C\+G|M\+C|[CGM])\s++)?(?P<name>\S(?:.*\S)?)\s++(?P<mem>\d++Mi?B|N/A)\s*+\|$")
# (drivers of 2013 print `|    1     31794  /usr/bin/python     5653MB  |` under `Compute processes:`: no Type
# column, MB; break-it 23 p15)


@dataclass(frozen=True)
class SmiProcess:
    """One row of the plain table's Processes section: GPU index, PID, type (``C`` compute, ``G`` graphics,
    ``C+G``), the name as printed (``Unknown Error`` where NVML could not read the process) and its GPU
    memory in MiB (None for ``N/A``)."""

    gpu: int
    pid: int
    type: str
    name: str
    used_mib: int | None


@dataclass(frozen=True)
class SmiTableGpu:
    """One GPU in the plain ``nvidia-smi`` table. Watts, °C, MiB and % as numbers; None for N/A."""

    index: int
    name: str
    bus_id: str
    persistence: str
    temperature_c: int | None = None
    perf_state: str | None = None
    power_draw_w: float | None = None
    power_cap_w: float | None = None
    memory_used_mib: int | None = None
    memory_total_mib: int | None = None
    memory_not_reported: str | None = None
    """What the Memory-Usage cell says instead of figures (``Not Supported`` on a GB10, whose memory is the
    unified system memory), or None."""
    utilization_pct: int | None = None
    compute_mode: str | None = None
    display_active: str | None = None
    """The Disp.A cell: ``On`` where a display is initialised on the GPU (it drives a monitor), ``Off``, ``N/A``."""
    unread: tuple[str, ...] = ()
    """The cells nvidia-smi printed as ``ERR!`` (NVML could not read that sensor): ``fan``, ``temperature``,
    ``power draw``, ``power cap``."""


@dataclass(frozen=True)
class SmiTable:
    """The plain ``nvidia-smi`` output: versions and one SmiTableGpu per GPU (``truncated`` if a
    GPU's second line is missing)."""

    smi_version: str | None
    driver_version: str | None
    cuda_version: str | None
    gpus: tuple[SmiTableGpu, ...]
    truncated: bool = False
    processes: tuple[SmiProcess, ...] = ()
    """The Processes section's rows (empty when it is not pasted or says ``No running processes found``)."""
    no_processes: bool = False
    """The Processes section says ``No running processes found`` (in a container: none of its own)."""


def _watts(text: str) -> float | None:
    m = re.match(r"^(\d+(?:\.\d+)?)W$", text)
    return float(m.group(1)) if m else None


def parse_smi_table(text: str) -> SmiTable:
    """Parse the plain ``nvidia-smi`` table (driver 4xx-5xx layouts) and its Processes section. Raises ParseError
    when neither a GPU row nor a process row is found (a paste of the Processes section alone is read)."""
    lines = content_lines(text)
    raise_if_shell_error(lines, CMD)
    _raise_smi_errors(lines)
    from .nvidia_smi_dmon import is_dmon, parse_dmon
    if is_dmon(text):  # `nvidia-smi dmon`, the device monitor: read by grader.judges.gpu_dmon
        return parse_dmon(text)  # type: ignore[return-value]
    smi = driver = cuda = None
    gpus: list[SmiTableGpu] = []
    procs: list[SmiProcess] = []
    none_said = False
    pending: dict[str, Any] | None = None
    truncated = False
    for line in lines:
        s = line.text.strip()
        m = _SMI_HEADER_RE.search(s)
        if m:
            smi, driver, cuda = m.group("smi"), m.group("driver"), m.group("cuda")
            continue
        m = _ROW1_RE.match(s)
        if m:
            if pending is not None:
                gpus.append(SmiTableGpu(**pending))
                truncated = True
            pending = {"index": int(m.group("index")), "name": m.group("name").strip(), "bus_id": m.group("bus"),
                       "persistence": m.group("persist"), "display_active": m.group("disp")}
            continue
        m = _ROW2_RE.match(s)
        if m and pending is not None:
            temp = re.match(r"^(\d+)C$", m.group("temp"))
            util = re.match(r"^(\d+)%$", m.group("util"))
            pending.update(temperature_c=int(temp.group(1)) if temp else None, perf_state=m.group("perf"),
                           power_draw_w=_watts(m.group("usage") or m.group("usage2")),
                           power_cap_w=_watts(m.group("cap") or m.group("cap2")),
                           memory_used_mib=int(m.group("used")) if m.group("used") else None,
                           memory_total_mib=int(m.group("total")) if m.group("total") else None,
                           memory_not_reported=m.group("nomem"),
                           utilization_pct=int(util.group(1)) if util else None,
                           compute_mode=m.group("compute").strip() or None,
                           unread=tuple(name for name, cell in (("fan", m.group("fan")), ("temperature", m.group("temp")),
                                                                ("power draw", m.group("usage") or m.group("usage2")),
                                                                ("power cap", m.group("cap") or m.group("cap2")))
                                        if cell == "ERR!"))
            gpus.append(SmiTableGpu(**pending))
            pending = None
            continue
        none_said = none_said or "No running processes found" in s
        m = _PROC_RE.match(s) if s.startswith("|") and s.endswith("|") else None
        if m:
            mem = m.group("mem")
            procs.append(SmiProcess(int(m.group("gpu")), int(m.group("pid")), m.group("type") or "C", m.group("name"),
                                    int(mem.rstrip("MiB")) if mem.endswith("B") else None))
    if pending is not None:
        gpus.append(SmiTableGpu(**pending))
        truncated = True
    if not gpus and not procs:
        raise ParseError(CMD, "no GPU row found in the table (expected `|   0  NVIDIA ...  On  | 00000000:..`)")
    return SmiTable(smi, driver, cuda, tuple(gpus), truncated, tuple(procs), none_said and not procs)


# --------------------------------------------------------------------------- -q

# A ``Key : value`` line of -q is split at its first colon (str.partition: linear; the pattern it
# replaces, ``^(\s*)([^:]+?)\s*:\s?(.*)$``, backtracked cubically on a long line of blanks).
_Q_GPU_RE = re.compile(r"^GPU\s+(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])$")


@dataclass(frozen=True)
class SmiQGpu:
    """One ``GPU <bus id>`` section of ``nvidia-smi -q``: ``tree`` is nested dicts of strings.

    The properties read the figures lesson 3 needs across driver versions (``GPU Power Readings``
    in 5xx, ``Power Readings`` before; ``Clocks Event Reasons`` vs ``Clocks Throttle Reasons``).
    Watts as floats, None when N/A or absent.
    """

    bus_id: str
    tree: dict[str, Any]

    def get(self, *path: str) -> Any:
        """The value at ``path`` (section titles, then a key), or None."""
        node: Any = self.tree
        for p in path:
            if not isinstance(node, dict) or p not in node:
                return None
            node = node[p]
        return node

    @property
    def product_name(self) -> str | None:
        return self.get("Product Name")

    def _power_section(self) -> dict[str, Any]:
        for title in ("GPU Power Readings", "Power Readings"):
            sec = self.get(title)
            if isinstance(sec, dict):
                return sec
        return {}

    def power(self, key: str) -> float | None:
        """A figure of the power section in W: ``draw``, ``limit``, ``default``, ``min``, ``max``,
        ``enforced``, ``requested``."""
        names = {
            "draw": ("Average Power Draw", "Power Draw", "Instantaneous Power Draw"),
            "limit": ("Current Power Limit", "Power Limit"),
            "enforced": ("Enforced Power Limit", "Current Power Limit"),
            "requested": ("Requested Power Limit", "Power Limit"),
            "default": ("Default Power Limit",),
            "min": ("Min Power Limit",),
            "max": ("Max Power Limit",),
        }[key]
        sec = self._power_section()
        for n in names:
            v = sec.get(n)
            if isinstance(v, str):
                val, _ = smi_value("power", v)
                if isinstance(val, (int, float)):
                    return float(val)
        return None

    def _link(self, section: str, key: str) -> int | None:
        v = self.get("PCI", "GPU Link Info", section, key) or self.get("GPU Link Info", section, key) or (
            self.get(section, key) if section in self.tree else None)  # a fragment of -q that starts inside the PCI part
        m = re.match(r"^(\d+)x?$", v or "")
        return int(m.group(1)) if m else None

    @property
    def pcie_gen_current(self) -> int | None:
        return self._link("PCIe Generation", "Current")

    @property
    def pcie_gen_max(self) -> int | None:
        """The GPU's max generation (``Device Max`` where printed, else ``Max``, which is the
        lower of the GPU's and the host's)."""
        return self._link("PCIe Generation", "Device Max") or self._link("PCIe Generation", "Max")

    @property
    def pcie_gen_host_max(self) -> int | None:
        return self._link("PCIe Generation", "Host Max")

    @property
    def pcie_width_current(self) -> int | None:
        return self._link("Link Width", "Current")

    @property
    def pcie_width_max(self) -> int | None:
        return self._link("Link Width", "Max")

    def clock_event(self, reason: str) -> bool | None:
        """True if a clock event (throttle) reason such as ``SW Power Cap`` is Active, None if absent."""
        for title in ("Clocks Event Reasons", "Clocks Throttle Reasons", "Clocks Reasons"):
            sec = self.get(title)
            if isinstance(sec, dict):
                found = _find_key(sec, reason)
                if found is not None:
                    return found.strip().lower() == "active"
        return None


def _find_key(tree: dict[str, Any], key: str) -> str | None:
    for k, v in tree.items():
        if k == key and isinstance(v, str):
            return v
        if isinstance(v, dict):
            found = _find_key(v, key)
            if found is not None:
                return found
    return None


@dataclass(frozen=True)
class SmiQuery:
    """``nvidia-smi -q [-d SECTION]``: the top-level keys (``Driver Version``...) and each GPU."""

    top: dict[str, Any]
    gpus: tuple[SmiQGpu, ...]

    @property
    def driver_version(self) -> str | None:
        v = self.top.get("Driver Version")
        return v if isinstance(v, str) else None


FRAGMENT_GPU = "(bus id not in the paste)"
"""The bus id of the one GPU a fragment of ``-q`` (its sections without the ``GPU <bus id>`` line) is read as."""


_XML_REASON_RE = re.compile(r"^<clocks_(event|throttle)_reason_(\w{1,40})>([^<]{0,40})</clocks_\1_reason_\2>$")
_XML_REASONS = {"gpu_idle": "Idle", "applications_clocks_setting": "Applications Clocks Setting",
                "sw_power_cap": "SW Power Cap", "hw_slowdown": "HW Slowdown", "hw_thermal_slowdown": "HW Thermal Slowdown",
                "hw_power_brake_slowdown": "HW Power Brake Slowdown", "sync_boost": "Sync Boost",
                "sw_thermal_slowdown": "SW Thermal Slowdown", "display_clocks_setting": "Display Clock Setting"}
"""``nvidia-smi -q -x``'s clock event reasons (``<clocks_event_reason_sw_power_cap>Not Active</...>``; ``throttle``
before driver 535) by the names the text form prints."""
_XML_GPU_ID_RE = re.compile(r'<gpu id="([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])">')
"""A whole ``-q -x`` report's GPU element, its bus id (``<gpu id="00000000:01:00.0">``)."""


def parse_smi_q(text: str) -> SmiQuery:
    """Parse ``nvidia-smi -q`` and ``-q -d POWER,PERFORMANCE,...`` into nested dicts.

    A line ``Title`` with no colon opens a section that holds the more-indented lines below it;
    ``Key : value`` lines are leaves (values kept as printed). Several ``NVSMI LOG`` blocks
    (two pastes) merge. Sections pasted without their ``GPU <bus id>`` line (``nvidia-smi -q | grep -A8
    Clocks``) are one GPU's, with bus id :data:`FRAGMENT_GPU`. Raises ParseError for nvidia-smi's errors or when
    no section is found.
    """
    lines = content_lines(text)
    raise_if_shell_error(lines, CMD)
    _raise_smi_errors(lines)
    reasons = {_XML_REASONS.get(m.group(2), m.group(2)): m.group(3) for line in lines
               if (m := _XML_REASON_RE.match(line.text.strip()))}
    if reasons:  # `nvidia-smi -q -x`'s <clocks_event_reasons> pasted alone: read as the text form's section
        bus = _XML_GPU_ID_RE.findall(text)  # a whole report's one <gpu id="..."> names it
        return SmiQuery({}, (SmiQGpu(bus[0] if len(bus) == 1 else FRAGMENT_GPU, {"Clocks Event Reasons": reasons}),))
    top: dict[str, Any] = {}
    gpus: dict[str, dict[str, Any]] = {}
    stack: list[tuple[int, dict[str, Any]]] = [(-1, top)]
    for line in lines:
        raw = line.text.replace("\t", "    ")
        s = raw.strip()
        if not s or s.startswith("====") and s.endswith("===="):
            stack = [(-1, top)]
            continue
        indent = len(raw) - len(raw.lstrip())
        m = _Q_GPU_RE.match(s)
        if m and indent == 0:
            node = gpus.setdefault(m.group("bus"), {})
            stack = [(-1, top), (0, node)]
            continue
        while len(stack) > 1 and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        key, colon, value = raw.partition(":")
        if colon and key.strip():
            parent[key.strip()] = value.strip()
        else:
            child: dict[str, Any] = {}
            parent[s] = child
            stack.append((indent, child))
    if not gpus and any(isinstance(v, dict) for v in top.values()):  # a fragment (`| grep -A8 'Clocks'`): one GPU's
        return SmiQuery({}, (SmiQGpu(FRAGMENT_GPU, top),))
    if not gpus:
        raise ParseError(CMD, "no `GPU 00000000:xx:xx.x` section found in the -q output")
    return SmiQuery(top, tuple(SmiQGpu(b, t) for b, t in gpus.items()))
