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
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .common import Line, ParseError, command_argv, content_lines, fail_on_line, raise_if_shell_error

CMD = "nvidia-smi"

# nvidia-smi's own failures: the text it prints instead of output.
_SMI_FATAL_RE = re.compile(
    r"NVIDIA-SMI has failed because|No devices were found|Failed to initialize NVML"
    r"|Unable to determine the device handle|GPU access blocked by the operating system"
    r"|couldn't communicate with the NVIDIA driver|Driver/library version mismatch", re.I)
_BAD_FIELD_RE = re.compile(r'^Field "(?P<field>[^"]*)" is not a valid field to query\.?$')
_UNAVAILABLE = {"[n/a]", "n/a", "[not supported]", "not supported", "[unknown error]", "[insufficient permissions]",
                "[gpu is lost]", "[requested functionality has been deprecated]", "[not available]", "[unknown]"}

# --------------------------------------------------------------------------- query-gpu CSV

# Second names nvidia-smi accepts for a field (alias -> the first name, which the header prints), from
# `nvidia-smi --help-query-gpu` of driver 580 (tests/fixtures/captured/h200x1/nvidia-smi-help-query-gpu.txt).
# pcie.link.gen.gpumax is NOT an alias of pcie.link.gen.max: gpumax is the GPU's own maximum, max the
# lower of the GPU's and the system's.
FIELD_ALIASES = {
    "gpu_name": "name", "gpu_serial": "serial", "gpu_uuid": "uuid", "gpu_bus_id": "pci.bus_id",
    "inforom.image": "inforom.img", "inforom.power": "inforom.pwr",
    "gpu_operation_mode.current": "gom.current", "gpu_operation_mode.pending": "gom.pending",
    "gpu.power.draw.average": "power.draw.average", "gpu.power.draw.instant": "power.draw.instant",
    "gpu.power.requested_limit": "power.limit", "gpu.power.current_limit": "enforced.power.limit",
    "gpu.power.default_limit": "power.default_limit", "gpu.power.min_limit": "power.min_limit",
    "gpu.power.max_limit": "power.max_limit",
    "module.power.requested_limit": "module.power.limit", "module.power.current_limit": "module.enforced.power.limit",
    "clocks.gr": "clocks.current.graphics", "clocks.sm": "clocks.current.sm", "clocks.mem": "clocks.current.memory",
    "clocks.video": "clocks.current.video", "clocks.applications.gr": "clocks.applications.graphics",
    "clocks.applications.mem": "clocks.applications.memory",
    "clocks.default_applications.gr": "clocks.default_applications.graphics",
    "clocks.default_applications.mem": "clocks.default_applications.memory",
    "clocks.max.gr": "clocks.max.graphics", "clocks.max.mem": "clocks.max.memory",
    "retired_pages.sbe": "retired_pages.single_bit_ecc.count", "retired_pages.dbe": "retired_pages.double_bit.count",
    "remapped_rows.sbe": "remapped_rows.correctable", "remapped_rows.dbe": "remapped_rows.uncorrectable",
    # deprecated name -> its replacement (same value): "Deprecated, use pcie.link.gen.gpucurrent instead"
    "pcie.link.gen.gpucurrent": "pcie.link.gen.current",
}
_PREFIX_ALIASES = (("clocks_throttle_reasons.", "clocks_event_reasons."), ("clocks_event_reasons_counters.",
                   "clocks_event_reasons_counters."))
# Fields whose values are words or identifiers even when they look like numbers (driver 535.54).
STRING_FIELDS = {"name", "driver_version", "vbios_version", "uuid", "serial", "pci.bus_id", "pci.bus", "pci.domain",
                 "pci.device", "pci.device_id", "pci.sub_device_id", "inforom.img", "inforom.oem", "inforom.ecc",
                 "inforom.pwr", "timestamp", "pstate", "compute_mode", "display_mode", "display_active",
                 "persistence_mode", "accounting.mode", "mig.mode.current", "mig.mode.pending", "gom.current",
                 "gom.pending", "power.management", "compute_cap", "gsp.mode.current", "addressing_mode"}
_FIELD_RE = re.compile(r"^(?P<name>[a-z_][a-z0-9_.]*)(?:\s*\[(?P<unit>[^\]]+)\])?$", re.I)
_NUMBER_RE = re.compile(r"^(?P<num>-?\d+(?:\.\d+)?)(?:\s*(?P<unit>[A-Za-z%/]+(?:/s)?))?$")


def canonical_field(name: str) -> str:
    """The header name nvidia-smi prints for a queried field (``clocks.sm`` -> ``clocks.current.sm``)."""
    n = name.strip().lower()
    for old, new in _PREFIX_ALIASES:
        if n.startswith(old):
            n = new + n[len(old):]
    return FIELD_ALIASES.get(n, n)


def smi_value(field_name: str, text: str) -> tuple[Any, str | None]:
    """Type one value: ``(value, unit)``. Numbers become int/float, ``[N/A]`` & co. None, words stay str.

    ``("power.draw", "700.00 W")`` -> ``(700.0, "W")``; ``("index", "0")`` -> ``(0, None)``;
    ``("name", "NVIDIA H200")`` -> ``("NVIDIA H200", None)``; ``("fan.speed", "[N/A]")`` -> ``(None, None)``.
    """
    s = text.strip()
    if s.lower() in _UNAVAILABLE:
        return None, None
    if canonical_field(field_name) in STRING_FIELDS:
        return s, None
    m = _NUMBER_RE.match(s)
    if m:
        num = m.group("num")
        return (float(num) if "." in num else int(num)), m.group("unit")
    return s, None


@dataclass(frozen=True)
class QueryRow:
    """One GPU's row. ``values`` maps each canonical field name to its typed value (None when
    nvidia-smi printed ``[N/A]``/``[Not Supported]``); ``raw`` keeps the text as printed;
    ``missing`` names fields cut off by a truncated paste."""

    values: dict[str, Any]
    raw: dict[str, str]
    missing: tuple[str, ...] = ()

    def get(self, name: str, default: Any = None) -> Any:
        """The value of ``name`` (queried or printed name), or ``default`` when absent or unavailable."""
        v = self.values.get(canonical_field(name))
        return default if v is None else v

    def unavailable(self, name: str) -> str | None:
        """What nvidia-smi printed for a field it could not read (``[N/A]``), else None."""
        key = canonical_field(name)
        return self.raw.get(key) if key in self.raw and self.values.get(key) is None else None

    @property
    def index(self) -> int | None:
        return self.get("index")

    @property
    def name(self) -> str | None:
        return self.get("name")

    @property
    def bus_id(self) -> str | None:
        return self.get("pci.bus_id")


@dataclass(frozen=True)
class QueryGpu:
    """A ``--query-gpu`` CSV: the fields (canonical names, in column order), one row per GPU.

    ``units`` maps a field to the unit its header names (``W``, ``MiB``); ``had_header`` is False
    for ``noheader`` output (names then came from the command line); ``truncated`` when the paste
    ends inside a row; ``notes`` say what is missing.
    """

    fields: tuple[str, ...]
    rows: tuple[QueryRow, ...]
    units: dict[str, str] = field(default_factory=dict)
    had_header: bool = True
    truncated: bool = False
    notes: tuple[str, ...] = ()


def _query_fields_from_command(command: str | None) -> list[str] | None:
    argv = command_argv(command)
    if not argv or argv[0] != "nvidia-smi":
        return None
    for i, arg in enumerate(argv):
        if arg.startswith("--query-gpu="):
            return [x for x in arg.split("=", 1)[1].split(",") if x.strip()]
        if arg == "--query-gpu" and i + 1 < len(argv):
            return [x for x in argv[i + 1].split(",") if x.strip()]
    return None


def _split_csv(text: str) -> list[str]:
    return [c.strip() for c in text.split(",")]


def _is_header(cells: list[str]) -> bool:
    return all(_FIELD_RE.match(c) for c in cells) and not all(re.fullmatch(r"\d+", c) for c in cells) \
        and any(re.search(r"[._]", c) or c.lower() in ("index", "name", "uuid", "serial", "count", "pstate",
                                                       "timestamp") for c in cells)


def parse_query_gpu(text: str, fields: list[str] | None = None) -> QueryGpu:
    """Parse ``nvidia-smi --query-gpu=F1,F2,... --format=csv[,noheader][,nounits]``.

    Column names come from the header line; for ``noheader`` output from ``fields`` or the
    ``--query-gpu=`` list on the prompt line. Values are typed by :func:`smi_value`.

    Raises ParseError for nvidia-smi's errors (an invalid field names itself and the fix), a
    ``noheader`` paste with no field list, a row with more values than fields, or no rows.
    """
    lines = content_lines(text)
    raise_if_shell_error(lines, CMD)
    _raise_smi_errors(lines)
    names: list[str] | None = None
    units: dict[str, str] = {}
    had_header = False
    rows: list[QueryRow] = []
    notes: list[str] = []
    truncated = False
    data_lines = [ln for ln in lines if "," in ln.text or ln.text.strip()]
    for i, line in enumerate(data_lines):
        cells = _split_csv(line.text)
        if names is None:
            if _is_header(cells):
                had_header = True
                names = []
                for c in cells:
                    m = _FIELD_RE.match(c)
                    key = canonical_field(m.group("name"))
                    names.append(key)
                    if m.group("unit"):
                        units[key] = m.group("unit")
                continue
            names = [canonical_field(f) for f in (fields or _query_fields_from_command(line.command) or [])]
            if not names:
                raise fail_on_line(CMD, line, "no header line and no --query-gpu field list: run with "
                                   "--format=csv (not noheader), or paste the command line too")
        if _is_header(cells) and [canonical_field(_FIELD_RE.match(c).group("name")) for c in cells] == names:
            continue  # the same header pasted again (two runs)
        if len(cells) > len(names):
            raise fail_on_line(CMD, line, f"{len(cells)} values but {len(names)} fields "
                               f"({', '.join(names)}); was the header cut or another output pasted in?")
        values: dict[str, Any] = {}
        raw: dict[str, str] = {}
        for name, cell in zip(names, cells):
            raw[name] = cell
            values[name], unit = smi_value(name, cell)
            if unit and name not in units:
                units[name] = unit
        missing = tuple(names[len(cells):])
        if missing:
            is_last = i == len(data_lines) - 1
            truncated = truncated or is_last
            notes.append(f"row {len(rows)} ends after {len(cells)} of {len(names)} values: "
                         f"{', '.join(missing)} missing" + (" (the paste is cut off)" if is_last else ""))
        rows.append(QueryRow(values, raw, missing))
    if names is None or not rows:
        raise ParseError(CMD, "no GPU rows found (expected a CSV header like `index, name, ...` and one row per GPU)")
    return QueryGpu(tuple(names), tuple(rows), units, had_header, truncated, tuple(notes))


def _raise_smi_errors(lines: list[Line]) -> None:
    for line in lines:
        s = line.text.strip()
        m = _BAD_FIELD_RE.match(s)
        if m:
            raise fail_on_line(CMD, line, f"nvidia-smi does not know the field {m.group('field')!r} (this driver "
                               "may name it differently); `nvidia-smi --help-query-gpu` lists the valid fields")
        if _SMI_FATAL_RE.search(s):
            raise fail_on_line(CMD, line, f"nvidia-smi could not read the GPUs: {s}. Check the driver is "
                               "loaded (`lsmod | grep nvidia`) and that this machine has the cards")


# --------------------------------------------------------------------------- topo -m

LINK_CODES = ("X", "NV#", "PIX", "PXB", "PHB", "NODE", "SYS", "SOC")
MAX_MATRIX_DEVICES = 256
"""The most devices a ``topo -m``/``topo -p2p`` header may name (a machine has a few dozen GPUs and NICs at
most); more is not nvidia-smi output, and every pair of them would be judged (quadratic)."""
_TOPO_CODE_RE = re.compile(r"^(?:X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC)$")
_TOPO_DEV_RE = re.compile(r"^(?:GPU\d+|NIC\d+|mlx5_\d+)$")
_TOPO_HEADER_RE = re.compile(r"GPU\d+|NIC\d+|mlx5_\d+|CPU Affinity|NUMA Affinity|GPU NUMA ID")
_NIC_LEGEND_RE = re.compile(r"^\s*(?P<nic>NIC\d+)\s*:\s*(?P<dev>\S+)\s*$")
_LEGEND_RE = re.compile(r"^\s*(?:X|SYS|NODE|PHB|PXB|PIX|NV#|SOC|OK|CNS|GNS|TNS|NS|U)\s+=\s")

# Best to worst for GPU-to-GPU traffic; words for findings.
LINK_MEANING = {
    "NV": "NVLink (a bonded set of NVLinks): P2P over NVLink, bypassing PCIe",
    "PIX": "at most one PCIe bridge between them (a PCIe switch): P2P can stay off the CPU",
    "PXB": "several PCIe bridges, not through the CPU's host bridge: P2P can stay off the CPU",
    "PHB": "through the CPU's PCIe host bridge: traffic crosses the CPU root complex",
    "NODE": "between PCIe host bridges of one NUMA node: traffic crosses the CPU",
    "SYS": "across the CPU-to-CPU interconnect (QPI/UPI/Infinity Fabric) between NUMA nodes: the slowest path",
    "SOC": "across the CPU socket interconnect (older drivers' name for SYS)",
}


def link_family(code: str) -> str:
    """``NV18`` -> ``NV``; other codes unchanged."""
    return "NV" if re.fullmatch(r"NV\d+", code or "") else code


@dataclass(frozen=True)
class TopoMatrix:
    """``nvidia-smi topo -m``: device names in column order, the link code between each pair,
    each GPU's CPU and NUMA affinity, and the NIC legend (NIC0 -> mlx5_0).

    ``links[(a, b)]`` is the code printed in row a, column b (``X``, ``NV18``, ``PIX``, ``PXB``,
    ``PHB``, ``NODE``, ``SYS``). ``truncated`` when a device's row is missing.
    """

    devices: tuple[str, ...]
    links: dict[tuple[str, str], str]
    cpu_affinity: dict[str, str | None]
    numa_affinity: dict[str, str | None]
    nic_legend: dict[str, str]
    truncated: bool = False
    notes: tuple[str, ...] = ()

    @property
    def gpus(self) -> tuple[str, ...]:
        return tuple(d for d in self.devices if d.startswith("GPU"))

    def link(self, a: str, b: str) -> str | None:
        """The code between devices a and b (row a, else row b), or None if not shown."""
        return self.links.get((a, b)) or self.links.get((b, a))

    def gpu_pairs(self) -> list[tuple[str, str, str | None]]:
        """[(GPUi, GPUj, code)] for every pair of GPUs, i < j."""
        g = self.gpus
        return [(a, b, self.link(a, b)) for i, a in enumerate(g) for b in g[i + 1:]]


def parse_topo_matrix(text: str) -> TopoMatrix:
    """Parse ``nvidia-smi topo -m`` (tabs or spaces, ANSI underline, legend, NIC legend).

    Raises ParseError for nvidia-smi's errors, a matrix with no header, or a row whose cells are
    not link codes.
    """
    lines = content_lines(text)
    raise_if_shell_error(lines, "nvidia-smi topo")
    _raise_smi_errors(lines)
    devices: list[str] | None = None
    extra_cols: list[str] = []
    links: dict[tuple[str, str], str] = {}
    cpu: dict[str, str | None] = {}
    numa: dict[str, str | None] = {}
    nics: dict[str, str] = {}
    seen_rows: list[str] = []
    in_legend = False
    for line in lines:
        s = line.text.strip()
        if s.startswith("Legend:") or s.startswith("NIC Legend:"):
            in_legend = True
            continue
        m = _NIC_LEGEND_RE.match(line.text)
        if m:
            nics[m.group("nic")] = m.group("dev")
            continue
        if in_legend or _LEGEND_RE.match(line.text):
            continue
        tokens = s.split()
        if devices is None:
            found = _TOPO_HEADER_RE.findall(s)
            if found and _TOPO_DEV_RE.match(found[0]) and not any(_TOPO_CODE_RE.match(t) for t in tokens):
                devices = [f for f in found if _TOPO_DEV_RE.match(f)]
                extra_cols = [f for f in found if not _TOPO_DEV_RE.match(f)]
                _check_matrix_size("nvidia-smi topo", line, len(devices))
                continue
            raise fail_on_line("nvidia-smi topo", line, "expected the matrix header (GPU0 GPU1 ... CPU Affinity)")
        if not tokens or not _TOPO_DEV_RE.match(tokens[0]):
            raise fail_on_line("nvidia-smi topo", line, "expected a matrix row starting with GPU<n> or NIC<n>")
        row = tokens[0]
        cells = tokens[1:1 + len(devices)]
        if not all(_TOPO_CODE_RE.match(c) for c in cells):
            bad = next(c for c in cells if not _TOPO_CODE_RE.match(c))
            raise fail_on_line("nvidia-smi topo", line, f"{bad!r} is not a link code ({', '.join(LINK_CODES)})")
        for col, code in zip(devices, cells):
            links[(row, col)] = code
        rest = [t for t in tokens[1 + len(devices):]]
        if row.startswith("GPU"):
            cpu[row] = _na(rest[0]) if len(rest) > 0 and "CPU Affinity" in extra_cols else None
            numa[row] = _na(rest[1]) if len(rest) > 1 and "NUMA Affinity" in extra_cols else None
        seen_rows.append(row)
    if devices is None:
        raise ParseError("nvidia-smi topo", "no topology matrix found (expected a header line `GPU0 GPU1 ...`)")
    rows_seen = set(seen_rows)
    missing = [d for d in devices if d not in rows_seen]
    notes = [f"row {d} is missing: the paste is cut off" for d in missing]
    short = [r for r in seen_rows if sum(1 for d in devices if (r, d) in links) < len(devices)]
    notes += [f"row {r} has fewer cells than the header" for r in short]
    return TopoMatrix(tuple(devices), links, cpu, numa, nics, bool(missing or short), tuple(notes))


def _check_matrix_size(command: str, line: Line, n: int) -> None:
    """Raise ParseError when a matrix header names more than ``MAX_MATRIX_DEVICES`` devices."""
    if n > MAX_MATRIX_DEVICES:
        raise fail_on_line(command, line, f"a header naming {n} devices is not nvidia-smi output (a machine has "
                                          f"a few dozen GPUs and NICs at most; {MAX_MATRIX_DEVICES} are read)")


def _na(value: str) -> str | None:
    return None if value.upper() == "N/A" else value


# --------------------------------------------------------------------------- topo -p2p

P2P_STATUS = {"OK": "supported", "CNS": "chipset not supported", "GNS": "GPU not supported",
              "TNS": "topology not supported", "NS": "not supported", "U": "unknown", "X": "self"}


@dataclass(frozen=True)
class TopoP2P:
    """``nvidia-smi topo -p2p r|w|n|a|p``: the P2P capability between each pair of GPUs.

    ``mode`` is the letter from the command (``r`` read, ``w`` write, ``n`` NVLink, ``a`` atomics,
    ``p`` prop) when the prompt shows it; ``status[(a, b)]`` the code (OK, CNS, GNS, TNS, NS, U, X).
    """

    gpus: tuple[str, ...]
    status: dict[tuple[str, str], str]
    mode: str | None = None

    def pairs(self) -> list[tuple[str, str, str | None]]:
        g = self.gpus
        return [(a, b, self.status.get((a, b)) or self.status.get((b, a))) for i, a in enumerate(g) for b in g[i + 1:]]


def parse_topo_p2p(text: str) -> TopoP2P:
    """Parse ``nvidia-smi topo -p2p r`` (or w/n/a/p). Raises ParseError when there is no matrix."""
    lines = content_lines(text)
    raise_if_shell_error(lines, "nvidia-smi topo")
    _raise_smi_errors(lines)
    gpus: list[str] | None = None
    status: dict[tuple[str, str], str] = {}
    mode = None
    for line in lines:
        argv = command_argv(line.command)
        if "-p2p" in argv and argv.index("-p2p") + 1 < len(argv):
            mode = argv[argv.index("-p2p") + 1]
        s = line.text.strip()
        if s.startswith("Legend:") or _LEGEND_RE.match(line.text):
            continue
        tokens = s.split()
        if gpus is None:
            if tokens and all(re.fullmatch(r"GPU\d+", t) for t in tokens):
                _check_matrix_size("nvidia-smi topo", line, len(tokens))
                gpus = tokens
                continue
            raise fail_on_line("nvidia-smi topo", line, "expected the header `GPU0 GPU1 ...`")
        if not tokens or not re.fullmatch(r"GPU\d+", tokens[0]):
            raise fail_on_line("nvidia-smi topo", line, "expected a row starting with GPU<n>")
        for col, code in zip(gpus, tokens[1:]):
            if code not in P2P_STATUS:
                raise fail_on_line("nvidia-smi topo", line, f"{code!r} is not a P2P status ({', '.join(P2P_STATUS)})")
            status[(tokens[0], col)] = code
    if gpus is None:
        raise ParseError("nvidia-smi topo", "no P2P matrix found (expected a header `GPU0 GPU1 ...`)")
    return TopoP2P(tuple(gpus), status, mode)


# --------------------------------------------------------------------------- the plain table

_SMI_HEADER_RE = re.compile(r"NVIDIA-SMI\s+(?P<smi>\S+)\s+Driver Version:\s*(?P<driver>\S+)"
                            r"(?:\s+CUDA Version:\s*(?P<cuda>\S+))?")
# The two lines of a GPU. Linear: possessive runs, and fields that end on a non-blank (a lazy field
# followed by optional blanks rescans a long run of blanks once per blank: quadratic).
_ROW1_RE = re.compile(r"^\|\s*+(?P<index>\d++)\s++(?P<name>\S(?:.*?\S)?)\s++(?P<persist>On|Off)\s*+\|\s*+"
                      r"(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s++(?P<disp>On|Off)\s*+\|"
                      r"\s*+(?P<ecc>(?:[^|]*[^|\s])?)\s*+\|$")
# power "77W /  700W", "N/A / N/A", or "77W/700W"
_ROW2_RE = re.compile(r"^\|\s*+(?P<fan>\S++)\s++(?P<temp>\S++)\s++(?P<perf>\S++)\s++"
                      r"(?:(?P<usage>\S++)\s++/\s*+(?P<cap>\S++)|(?P<usage2>[^\s/]++)/\s*+(?P<cap2>\S++))"
                      r"\s*+\|\s*+(?P<used>\d++)MiB\s*+/\s*+(?P<total>\d++)MiB\s*+\|"
                      r"\s*+(?P<util>\d++%|N/A)\s++(?P<compute>(?:[^|]*[^|\s])?)\s*+\|$")


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
    utilization_pct: int | None = None
    compute_mode: str | None = None


@dataclass(frozen=True)
class SmiTable:
    """The plain ``nvidia-smi`` output: versions and one SmiTableGpu per GPU (``truncated`` if a
    GPU's second line is missing)."""

    smi_version: str | None
    driver_version: str | None
    cuda_version: str | None
    gpus: tuple[SmiTableGpu, ...]
    truncated: bool = False


def _watts(text: str) -> float | None:
    m = re.match(r"^(\d+(?:\.\d+)?)W$", text)
    return float(m.group(1)) if m else None


def parse_smi_table(text: str) -> SmiTable:
    """Parse the plain ``nvidia-smi`` table (driver 4xx-5xx layouts). Raises ParseError when no GPU row is found."""
    lines = content_lines(text)
    raise_if_shell_error(lines, CMD)
    _raise_smi_errors(lines)
    smi = driver = cuda = None
    gpus: list[SmiTableGpu] = []
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
                       "persistence": m.group("persist")}
            continue
        m = _ROW2_RE.match(s)
        if m and pending is not None:
            temp = re.match(r"^(\d+)C$", m.group("temp"))
            util = re.match(r"^(\d+)%$", m.group("util"))
            pending.update(temperature_c=int(temp.group(1)) if temp else None, perf_state=m.group("perf"),
                           power_draw_w=_watts(m.group("usage") or m.group("usage2")),
                           power_cap_w=_watts(m.group("cap") or m.group("cap2")),
                           memory_used_mib=int(m.group("used")), memory_total_mib=int(m.group("total")),
                           utilization_pct=int(util.group(1)) if util else None,
                           compute_mode=m.group("compute").strip() or None)
            gpus.append(SmiTableGpu(**pending))
            pending = None
    if pending is not None:
        gpus.append(SmiTableGpu(**pending))
        truncated = True
    if not gpus:
        raise ParseError(CMD, "no GPU row found in the table (expected `|   0  NVIDIA ...  On  | 00000000:..`)")
    return SmiTable(smi, driver, cuda, tuple(gpus), truncated)


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
        v = self.get("PCI", "GPU Link Info", section, key)
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


def parse_smi_q(text: str) -> SmiQuery:
    """Parse ``nvidia-smi -q`` and ``-q -d POWER,PERFORMANCE,...`` into nested dicts.

    A line ``Title`` with no colon opens a section that holds the more-indented lines below it;
    ``Key : value`` lines are leaves (values kept as printed). Several ``NVSMI LOG`` blocks
    (two pastes) merge. Raises ParseError for nvidia-smi's errors or when no GPU section is found.
    """
    lines = content_lines(text)
    raise_if_shell_error(lines, CMD)
    _raise_smi_errors(lines)
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
    if not gpus:
        raise ParseError(CMD, "no `GPU 00000000:xx:xx.x` section found in the -q output")
    return SmiQuery(top, tuple(SmiQGpu(b, t) for b, t in gpus.items()))
