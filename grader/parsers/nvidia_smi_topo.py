"""``nvidia-smi topo -m`` (the link matrix and its NIC legend) and ``nvidia-smi topo -p2p`` (the
peer-to-peer status matrix). Re-exported by :mod:`grader.parsers.nvidia_smi`.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from .common import Line, ParseError, command_argv, content_lines, fail_on_line, raise_if_shell_error
from .nvidia_smi_query import _raise_smi_errors

LINK_CODES = ("X", "NV#", "PIX", "PXB", "PHB", "NODE", "SYS", "SOC")
MAX_MATRIX_DEVICES = 256
"""The most devices a ``topo -m``/``topo -p2p`` header may name (a machine has a few dozen GPUs and NICs at
most); more is not nvidia-smi output, and every pair of them would be judged (quadratic)."""
_TOPO_CODE_RE = re.compile(r"^(?:X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC)$")
_RDMA_DEV = r"(?:mlx\d(?:_bond)?|hfi1|ionic|rxe|siw|bnxt_re|irdma|qedr|efa|erdma)_?\d+"  # older nvidia-smi: the NIC's own name
_TOPO_DEV_RE = re.compile(rf"^(?:GPU\d+|NIC\d+|{_RDMA_DEV})$")
_TOPO_HEADER_RE = re.compile(rf"GPU\d+|NIC\d+|{_RDMA_DEV}|CPU Affinity|NUMA Affinity|GPU NUMA ID")
_GLUED_CODES_RE = re.compile(r"^(?:X|NV\d{1,3}|PIX|PXB|PHB|NODE|SYS|SOC){2,8}$")
_ONE_CODE_RE = re.compile(r"X|NV\d{1,3}|PIX|PXB|PHB|NODE|SYS|SOC")


def _unglued(tokens: list[str]) -> list[str]:
    """``tokens`` with link codes a lost tab stop glued together read apart (``NODENODE`` is NODE, NODE; the header's
    ``NIC8NIC9`` is read apart by its own pattern)."""
    return [c for t in tokens for c in (_ONE_CODE_RE.findall(t) if _GLUED_CODES_RE.match(t) else (t,))]
_NIC_LEGEND_RE = re.compile(r"^\s*(?P<nic>NIC\d+)\s*:\s*(?P<dev>\S+)\s*$")
# any legend row ``CODE = meaning`` (nvidia-smi adds codes over versions: ``DR = Disabled by regkey``)
_LEGEND_RE = re.compile(r"^\s*(?:X|SYS|NODE|PHB|PXB|PIX|NV#|SOC|OK|CNS|GNS|TNS|NS|U|DR|[A-Z][A-Z0-9#]{0,7})\s+=\s")

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

    def nearest_nics(self) -> dict[str, tuple[str, str]]:
        """Each GPU's nearest NIC: ``{"GPU0": ("mlx5_2", "NODE")}``, the NIC (its legend's name, ``NIC0`` -> ``mlx5_0``,
        where the matrix gives one) with the best path in :data:`LINK_CODES`' order, the first in column order on a
        tie; a GPU with no NIC column is left out."""
        rank = {c: i for i, c in enumerate(LINK_CODES)}
        nics = [d for d in self.devices if not d.startswith("GPU")]
        out: dict[str, tuple[str, str]] = {}
        for g in self.gpus:
            paths = [(rank.get(link_family(code), len(rank)), i, n, code)
                     for i, n in enumerate(nics) if (code := self.link(g, n))]
            if paths:
                _, _, nic, code = min(paths)
                out[g] = (self.nic_legend.get(nic, nic), code)
        return out


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
    headless: list[tuple[Line, list[str]]] = []
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
        if headless or (devices is None and re.match(r"GPU\d{1,3}$", tokens[0] if tokens else "")
                        and any(_TOPO_CODE_RE.match(t) for t in _unglued(tokens[1:3]))):
            headless.append((line, _unglued(tokens)))  # a matrix whose header the paste lost: read after the loop
            continue
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
        tokens = _unglued(tokens)
        row = tokens[0]
        cells = tokens[1:1 + len(devices)]
        if not all(_TOPO_CODE_RE.match(c) for c in cells):
            bad = next(c for c in cells if not _TOPO_CODE_RE.match(c))
            if line is lines[-1] and bad is tokens[-1]:  # the paste ends inside this cell: the row is cut there
                cells = cells[:-1]
            else:
                raise fail_on_line("nvidia-smi topo", line, f"{bad!r} is not a link code ({', '.join(LINK_CODES)})")
        for col, code in zip(devices, cells):
            links[(row, col)] = code
        rest = [t for t in tokens[1 + len(devices):]]
        if row.startswith("GPU"):
            cpu[row] = _na(rest[0]) if len(rest) > 0 and "CPU Affinity" in extra_cols else None
            numa[row] = _na(rest[1]) if len(rest) > 1 and "NUMA Affinity" in extra_cols else None
        seen_rows.append(row)
    if headless:
        return _headless(headless, nics)
    if devices is None:
        raise ParseError("nvidia-smi topo", "no topology matrix found (expected a header line `GPU0 GPU1 ...`)")
    rows_seen = set(seen_rows)
    missing = [d for d in devices if d not in rows_seen]
    notes = [f"row{'s' if len(missing) > 1 else ''} {', '.join(missing)} {'are' if len(missing) > 1 else 'is'} missing: "
             "the paste is cut off"] if missing else []
    short = [r for r in seen_rows if sum(1 for d in devices if (r, d) in links) < len(devices)]
    notes += [f"row {r} has fewer cells than the header" for r in short]
    return TopoMatrix(tuple(devices), links, cpu, numa, nics, bool(missing or short), tuple(notes))


def _headless(rows: list[tuple[Line, list[str]]], nics: dict[str, str]) -> TopoMatrix:
    """Rows of ``topo -m`` without their header line (a paste that starts below it). A NIC row's ``X`` gives the
    columns: GPUs before NIC0's; with no NIC row, the GPU columns are those up to the last an ``X`` or an ``NV#``
    marks (at least one per GPU row shown) and the NIC columns after them, which cannot be named, are not read. The
    two cells after a GPU row's codes are its CPU and NUMA affinity. A row whose ``X`` is not in its own column is
    not such a matrix (ParseError)."""
    codes = {}
    for line, tokens in rows:
        if not re.match(r"(?:GPU|NIC)\d{1,3}$", tokens[0]):
            raise fail_on_line("nvidia-smi topo", line, "expected a matrix row starting with GPU<n> or NIC<n>")
        cells = list(itertools.takewhile(_TOPO_CODE_RE.match, tokens[1:]))
        codes[tokens[0]] = (line, cells, tokens[1 + len(cells):])
    nic_x = [(int(r[3:]), cells.index("X")) for r, (_, cells, _) in codes.items() if r[:3] == "NIC" and "X" in cells]
    gpu_rows = [r for r in codes if r[:3] == "GPU"]
    n = nic_x[0][1] - nic_x[0][0] if nic_x else max(
        [len(gpu_rows)] + [i + 1 for r in gpu_rows for i, c in enumerate(codes[r][1]) if c == "X" or c[:2] == "NV"])
    n_nics = max([k + 1 for k, _ in nic_x] + [len(codes[r][1]) - n for r in codes]) if nic_x else 0
    devices = tuple(f"GPU{j}" for j in range(n)) + tuple(f"NIC{k}" for k in range(n_nics))
    for r, (line, cells, _) in codes.items():
        if "X" in cells and (cells.index("X") >= len(devices) or devices[cells.index("X")] != r):
            raise fail_on_line("nvidia-smi topo", line, "expected the matrix header (GPU0 GPU1 ... CPU Affinity)")
    _check_matrix_size("nvidia-smi topo", rows[0][0], len(devices))
    links = {(r, d): c for r, (_, cells, _) in codes.items() for d, c in zip(devices, cells)}
    cpu = {r: _na(rest[0]) if rest else None for r, (_, _, rest) in codes.items() if r in gpu_rows}
    numa = {r: _na(rest[1]) if len(rest) > 1 else None for r, (_, _, rest) in codes.items() if r in gpu_rows}
    missing = [d for d in devices if d not in codes]
    notes = (f"no header line: the columns were read as GPU0 to GPU{n - 1}" + (
        f" and NIC0 to NIC{n_nics - 1} (where the NIC rows' X puts them)" if n_nics else
        " (NVLink or X marks them); the columns after them (NICs, by nvidia-smi's order) cannot be named and were not "
        "read"),) + ((f"row{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                      f"{'are' if len(missing) > 1 else 'is'} missing: the paste is cut off",) if missing else ())
    return TopoMatrix(devices, links, cpu, numa, nics, True, notes)


def _check_matrix_size(command: str, line: Line, n: int) -> None:
    """Raise ParseError when a matrix header names more than ``MAX_MATRIX_DEVICES`` devices."""
    if n > MAX_MATRIX_DEVICES:
        raise fail_on_line(command, line, f"a header naming {n} devices is not nvidia-smi output (a machine has "
                                          f"a few dozen GPUs and NICs at most; {MAX_MATRIX_DEVICES} are read)")


def _na(value: str) -> str | None:
    return None if value.upper() == "N/A" else value


# --------------------------------------------------------------------------- topo -p2p

P2P_STATUS = {"OK": "supported", "CNS": "chipset not supported", "GNS": "GPU not supported",
              "TNS": "topology not supported", "NS": "not supported", "DR": "disabled by regkey", "U": "unknown",
              "X": "self"}


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
    in_legend = False
    for line in lines:
        argv = command_argv(line.command)
        if "-p2p" in argv and argv.index("-p2p") + 1 < len(argv):
            mode = argv[argv.index("-p2p") + 1]
        s = line.text.strip()
        if s.startswith("Legend:"):
            in_legend = True
            continue
        if in_legend and (not s or _LEGEND_RE.match(line.text)):
            continue
        in_legend = False
        if _LEGEND_RE.match(line.text):
            continue
        tokens = [t for t in s.split() if t not in ("...", "\u2026")]  # (columns or rows a poster elided)
        if gpus is not None and tokens and all(re.fullmatch(r"GPU\d+", t) for t in tokens):
            continue  # the header again: a second matrix (another -p2p mode) pasted below the first
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


# --------------------------------------------------------------------------- nvlink -s

_NVL_GPU_RE = re.compile(r"^GPU\s+(?P<index>\d+):(?P<name>[^()]*+)(?:\(UUID:[^)]*\))?\s*$")  # name stripped
_NVL_LINK_RE = re.compile(r"^Link\s+(?P<link>\d+):\s*(?:(?P<gbs>\d+(?:\.\d+)?)\s*GB/s|(?P<inactive><inactive>))\s*$",
                          re.I)
_NVL_NONE_RE = re.compile(r"Unable to retrieve NVLink information|all links are inactive", re.I)
_NVL_CAP_RE = re.compile(r"^Link\s{1,4}(?P<link>\d{1,2}),\s{1,4}(?P<what>[A-Za-z][\w ./-]{0,60}?):\s{0,4}(?P<value>true|false)$",
                         re.I)
"""A line of ``nvidia-smi nvlink -c`` (``--capabilities``): ``Link 0, P2P is supported: true``."""


@dataclass(frozen=True)
class NvlinkGpu:
    """One GPU of ``nvidia-smi nvlink -s``: its index, name, and each link's speed in GB/s (None when
    ``<inactive>``), in link order."""

    index: int
    name: str
    links: tuple[tuple[int, float | None], ...]
    capabilities: tuple[tuple[int, str, bool], ...] = ()  # ``nvidia-smi nvlink -c``: (link, capability, value)
    all_inactive: bool = False  # nvidia-smi's all-inactive message right under this GPU's line (blind batch vr009)

    @property
    def inactive(self) -> list[int]:
        return [n for n, gbs in self.links if gbs is None]

    @property
    def active(self) -> list[int]:
        return [n for n, gbs in self.links if gbs is not None]


@dataclass(frozen=True)
class NvlinkStatus:
    """``nvidia-smi nvlink -s`` (``--status``): the GPUs listed, and whether nvidia-smi said no link is active
    (``NVML: Unable to retrieve NVLink information as all links are inActive``, as PCIe cards without a bridge do)."""

    gpus: tuple[NvlinkGpu, ...]
    none_active: bool = False


def parse_nvlink_status(text: str) -> NvlinkStatus:
    """Parse ``nvidia-smi nvlink -s``: ``GPU 0: <name> (UUID: ...)`` then ``Link N: 25.781 GB/s`` or
    ``Link N: <inactive>`` lines; ``nvidia-smi nvlink -c``'s ``Link N, <capability>: true|false`` lines under the same
    GPU lines are its capabilities. Raises ParseError when neither a GPU line nor nvidia-smi's all-inactive message is
    found."""
    lines = content_lines(text)
    raise_if_shell_error(lines, "nvidia-smi")
    found: list[tuple[int, str, list[tuple[int, float | None]], list[tuple[int, str, bool]]]] = []
    none_active = False  # (each GPU's index, name, links and capabilities)
    unlinked: set[int] = set()
    for line in lines:
        s = line.text.strip()
        m = _NVL_GPU_RE.match(s)
        if m:
            found.append((int(m.group("index")), m.group("name").strip(), [], []))
            continue
        m = _NVL_LINK_RE.match(s)
        c = _NVL_CAP_RE.match(s)
        if m and found:
            found[-1][2].append((int(m.group("link")), None if m.group("inactive") else float(m.group("gbs"))))
        elif c and found:
            found[-1][3].append((int(c.group("link")), c.group("what").strip(), c.group("value").lower() == "true"))
        elif _NVL_NONE_RE.search(s):
            none_active = True
            unlinked.update([found[-1][0]] if found and not found[-1][2] else [])
    if not found and not none_active:
        raise ParseError("nvidia-smi nvlink", "no `GPU N: <name>` line with `Link N:` lines under it")
    return NvlinkStatus(tuple(NvlinkGpu(i, name, tuple(links), tuple(caps), i in unlinked)
                              for i, name, links, caps in found), none_active)
