"""Parser for vLLM's environment report, ``python collect_env.py`` / ``vllm collect-env`` (PyTorch's collect_env
extended with vLLM's lines): what an issue on vllm-project/vllm pastes under "Your current environment".

Two layouts: since vLLM 0.9 (vllm#18285) sections under ``==============================`` banners (``System Info``,
``PyTorch Info``, ``Python Environment``, ``CUDA / GPU Info``, ``CPU Info``, ``Versions of relevant libraries``,
``vLLM Info``, ``Environment Variables``) with ``Key<spaces>: value`` rows; before, the same rows as ``Key: value``
without banners. Both keep ``GPU N: <name>`` lines under ``GPU models and configuration``, ``[pip3] pkg==version``
lines, the ``GPU Topology:`` matrix of ``nvidia-smi topo -m`` (read by :func:`.nvidia_smi_topo.parse_topo_matrix`)
and ``NAME=value`` environment variables. An excerpt is read for what it holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .common import ParseError, content_lines, raise_if_shell_error
from .nvidia_smi_topo import TopoMatrix, parse_topo_matrix

CMD = "collect_env.py"

_BANNER_RE = re.compile(r"^={30}$")
_TITLE_RE = re.compile(r"^\s*(?P<title>[A-Za-z][\w /]{1,30} Info|Python Environment|Versions of relevant libraries"
                       r"|Environment Variables)\s*$")
_ROW_RE = re.compile(r"^(?P<key>[A-Za-z][\w/().-]*+(?: [\w/().-]++){0,8})\s*+:\s*+(?P<value>.*)$")
_GPU_RE = re.compile(r"^GPU (?P<n>\d{1,3}): (?P<name>.+?)\s*$")
_PIP_RE = re.compile(r"^\[(?P<tool>pip3?|conda)\] (?P<pkg>[\w.-]+)(?:==|\s+)(?P<version>\S+)")
_ENV_RE = re.compile(r"^(?P<name>[A-Z][A-Z0-9_]{1,80})=(?P<value>.*)$")
_TOPO_START_RE = re.compile(r"^GPU Topology:\s*$")
_TOPO_END_RE = re.compile(r"^(?:Legend:|={30}|[A-Z][\w ]+ Info$)")
_ABSENT = frozenset({"no cuda", "could not collect", "n/a", "none", "not found"})
"""Values the report prints for what it could not find (a CPU-only build: ``CUDA runtime version: No CUDA``)."""
KEYS = {"vLLM Version": "vllm", "PyTorch version": "torch", "CUDA runtime version": "cuda_runtime",
        "CUDA used to build PyTorch": "cuda_built", "Nvidia driver version": "driver", "OS": "os",
        "Python version": "python", "Is CUDA available": "cuda_available", "ROCM Version": "rocm",
        "Python platform": "platform"}
"""The rows kept by name (the report's label: our name)."""


@dataclass(frozen=True)
class CollectEnv:
    """What the report shows: ``versions`` (KEYS' names: the value as printed), ``gpus`` (``GPU N`` lines' names, in
    order), ``packages`` (``[pip3]`` name: version), ``env`` (the Environment Variables rows), ``topology`` (the
    ``GPU Topology:`` matrix, None where it is not in the paste or does not read) and ``sections`` (the banners' titles
    seen)."""

    versions: dict[str, str] = field(default_factory=dict)
    gpus: tuple[str, ...] = ()
    packages: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    topology: TopoMatrix | None = None
    sections: tuple[str, ...] = ()


def parse_collect_env(text: str) -> CollectEnv:
    """Parse the report, whole or an excerpt (module docstring). Raises ParseError for a shell error or a paste
    with none of its rows."""
    lines = content_lines(text)
    raise_if_shell_error(lines, CMD)
    versions: dict[str, str] = {}
    gpus: list[str] = []
    packages: dict[str, str] = {}
    env: dict[str, str] = {}
    sections: list[str] = []
    topo: list[str] | None = None
    topology: TopoMatrix | None = None
    in_env = False
    for line in lines:
        s = line.text.strip()
        if topo is not None:
            if not _TOPO_END_RE.match(s):
                topo.append(line.text)
                continue
            topology, topo = _topology(topo), None
        if _BANNER_RE.match(s):
            continue
        title = _TITLE_RE.match(s)
        if title:
            sections.append(title.group("title"))
            in_env = title.group("title") == "Environment Variables"
            continue
        if _TOPO_START_RE.match(s):
            topo = []
            continue
        if (m := _GPU_RE.match(s)) is not None:
            gpus.append(m.group("name"))
        elif (m := _PIP_RE.match(s)) is not None:
            packages.setdefault(m.group("pkg").lower(), m.group("version"))
        elif in_env and (m := _ENV_RE.match(s)) is not None:
            env[m.group("name")] = m.group("value")
        elif (m := _ROW_RE.match(s)) is not None and m.group("key") == "GPU models and configuration":
            if (g := _GPU_RE.match(m.group("value").strip())) is not None:  # one GPU: on the row itself
                gpus.append(g.group("name"))
        elif m is not None and m.group("key") in KEYS and (value := m.group("value").strip()) \
                and value.lower() not in _ABSENT:
            versions.setdefault(KEYS[m.group("key")], value)
    if topo is not None:
        topology = _topology(topo)
    if not (versions or gpus or packages or env or topology or sections):
        raise ParseError(CMD, "none of collect_env's rows (`vLLM Version : ...`, `PyTorch version: ...`, `GPU 0: "
                         "...`, `[pip3] ...`, a `=== ... Info ===` banner) found")
    return CollectEnv(versions, tuple(gpus), packages, env, topology, tuple(sections))


def _topology(lines: list[str]) -> TopoMatrix | None:
    """The ``GPU Topology:`` lines read as ``nvidia-smi topo -m``, or None when they do not read so."""
    try:
        return parse_topo_matrix("\n".join(x for x in lines if x.strip()))
    except ParseError:
        return None
