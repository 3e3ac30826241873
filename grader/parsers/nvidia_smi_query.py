"""``nvidia-smi --query-gpu`` CSV, and what every nvidia-smi parser shares: the command's name and
its own failures (``Field "x" is not a valid field to query``, ``NVIDIA-SMI has failed``). The shapes
seen are in :mod:`grader.parsers.nvidia_smi`'s docstring, which re-exports these names.
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
    "used_memory": "used_gpu_memory",  # --query-compute-apps=used_memory prints its header as used_gpu_memory
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
                 "gom.pending", "power.management", "compute_cap", "gsp.mode.current", "addressing_mode",
                 "process_name"}
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
        name, eq, value = arg.partition("=")
        if name in ("--query-gpu", "--query-compute-apps", "--query-accounted-apps"):
            value = value if eq else (argv[i + 1] if i + 1 < len(argv) else "")
            return [x for x in value.split(",") if x.strip()] or None
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


_USAGE_RE = re.compile(r'^Option "(?P<option>-{1,2}[\w-]{1,40})" is missing its value\.?$')
"""nvidia-smi's answer to an option given without its value (`nvidia-smi topo -p2p -p`: aikitoria/open-gpu-kernel-modules#13)."""


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
        if m := _USAGE_RE.match(s):  # nvidia-smi refused its command line: it printed no output to read
            raise fail_on_line(CMD, line, f"nvidia-smi refused the command line ({s}), so it printed nothing else: "
                               f"`{m.group('option')}` takes its value as the next word"
                               + (" (`nvidia-smi topo -p2p r`: r, w, n, a or p)" if m.group("option") == "-p2p" else "")
                               + "; `nvidia-smi -h` lists the options. Not a GPU fault")


# --------------------------------------------------------------------------- nvidia-smi -L

_LIST_GPU_RE = re.compile(r"^GPU (?P<i>\d{1,3}): (?P<name>[^(\n]{1,120}?)\s*\(UUID: (?P<uuid>GPU-[0-9a-fA-F-]{1,60})\)\s*$")
_LIST_MIG_RE = re.compile(r"^\s*MIG (?P<profile>[\w.+]{1,30})\s+Device\s+(?P<i>\d{1,3}): \(UUID: MIG-[\w/-]{1,80}\)\s*$")


@dataclass(frozen=True)
class ListedGpu:
    """One GPU of ``nvidia-smi -L`` (``GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-...)``): its index, its name and the
    profiles of the MIG instances listed under it (``1g.20gb`` each), () when it is whole."""

    index: int
    name: str
    mig: tuple[str, ...] = ()


def parse_gpu_list(text: str) -> tuple[ListedGpu, ...]:
    """``nvidia-smi -L``: one line per GPU, its MIG instances indented under it. Other lines are skipped; ParseError
    for the shell's or nvidia-smi's own errors, and when no GPU line is found."""
    lines = content_lines(text)
    raise_if_shell_error(lines, CMD)
    _raise_smi_errors(lines)
    gpus: list[tuple[int, str, list[str]]] = []
    for line in lines:
        g = _LIST_GPU_RE.match(line.text.strip())
        if g:
            gpus.append((int(g.group("i")), g.group("name").strip(), []))
            continue
        m = _LIST_MIG_RE.match(line.text)
        if m and gpus:
            gpus[-1][2].append(m.group("profile"))
    if not gpus:
        raise ParseError(CMD, "no `GPU N: <name> (UUID: GPU-...)` line found (`nvidia-smi -L` prints one per GPU)")
    return tuple(ListedGpu(i, name, tuple(mig)) for i, name, mig in gpus)
