"""Judge of vLLM's environment report (``collect_env.py``, ``vllm collect-env``): what it says of the versions, the
GPUs and the path between them, the report's ``GPU Topology:`` matrix judged as ``nvidia-smi topo -m`` is
(:func:`grader.judges.gpu.summarise_topo`), and the NCCL and vLLM variables it lists."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ..parsers.common.spans import last_match
from .common import fail, info, warn
from .model import Finding, Summary

_SHOWN_ENV = ("NCCL_", "VLLM_", "CUDA_VISIBLE_DEVICES", "RAY_", "GLOO_", "UCX_", "OMPI_")
"""The variables said back: those that decide which GPUs, interface and transport a run uses."""
_VERSIONS = (("vllm", "vLLM"), ("torch", "PyTorch"), ("cuda_built", "built for CUDA"), ("cuda_runtime", "CUDA runtime"),
             ("driver", "NVIDIA driver"), ("python", "Python"), ("os", "OS"))


_ARCH_RE = re.compile(r"(?P<gpu>[^\n]{1,80}?) with CUDA capability (?P<cap>sm_\d{2,3}) is not (?:compatible with|supported by) "
                      r"the current PyTorch installation\.?(?:\s{0,4}The current PyTorch install supports CUDA "
                      r"capabilities (?P<caps>[\w ]{1,200}?)\.)?")
"""torch.cuda's own warning (torch/cuda/__init__.py, _check_capability) that its wheel has no kernels for the GPU."""
_REINSTALLED_RE = re.compile(r"Successfully installed [^\n]{0,400}?\btorch-\d|^ ?\+ torch==\d", re.M)
"""A torch installed after the warning (pip's `Successfully installed torch-X`, uv's ` + torch==X`): the warning was
the old wheel's, not the report's (a failed install leaves it standing)."""


def _no_kernels(versions: dict) -> list[Finding]:
    """A fail where the paste holds torch's warning that the GPU's architecture is not in its build: every CUDA kernel
    then fails (`no kernel image is available for execution on the device`), whatever the report lists after it. The
    last such warning only, and none where a torch was installed after it (the warning was the old wheel's)."""
    from .context import context
    paste = context().paste or ""
    m = last_match(_ARCH_RE, paste)
    if not m or _REINSTALLED_RE.search(paste, m.end()) or (m["caps"] and m["cap"] in m["caps"].split()):
        return []
    torch = versions.get("torch")
    return [fail(f"PyTorch's own warning: {m['gpu'].strip()} ({m['cap']}) is not compatible with this PyTorch"
                 + (f" ({torch.split(' (')[0]})" if torch else "") + (f", which has kernels for {m['caps']} only"
                                                                       if m["caps"] else "")
                 + ": its first CUDA kernel fails with `no kernel image is available for execution on the device`, "
                   "though `Is CUDA available` says True. Install a PyTorch built for that architecture (a wheel for "
                   "a newer CUDA that lists it, or NVIDIA's PyTorch container for the GPU).")]


def summarise_collect_env(c: Any, command: str | None) -> Summary:
    """The versions in one line, the GPUs counted by model, the topology's reading, and the variables set. PyTorch
    without CUDA beside NVIDIA GPUs (``Is CUDA available: False``) warns: vLLM cannot use the cards."""
    facts = {"versions": c.versions, "gpus": list(c.gpus), "packages": c.packages, "env": c.env,
             "sections": list(c.sections), "topology": c.topology is not None}
    versions = dict(c.versions)
    for pkg, key in (("vllm", "vllm"), ("torch", "torch")):  # `[pip3] vllm==0.8.2` where the row is not in the paste
        if key not in versions and pkg in c.packages:
            versions[key] = c.packages[pkg]
    said = [f"{label} {versions[k].split(' (')[0]}" for k, label in _VERSIONS if versions.get(k)]
    nccl = next((v for k, v in c.packages.items() if k.startswith("nvidia-nccl")), None)
    who = "PyTorch's" if command and "torch.utils.collect_env" in command else "vLLM's"
    findings: list[Finding] = [info(f"{who} environment report (collect_env)" + (
        ": " + ", ".join(said) + (f"; NCCL {nccl} (pip)" if nccl else "") if said or nccl else
        ", its `GPU Topology:` section: read as `nvidia-smi topo -m`" if c.topology is not None and not c.gpus else
        ": no version in this excerpt") + ".")]
    if c.gpus:
        counted = Counter(c.gpus)
        findings.append(info(f"{len(c.gpus)} GPU(s): " + ", ".join(f"{n} x {name}" if n > 1 else name
                                                                    for name, n in counted.items()) + "."))
    if (versions.get("cuda_available") or "").lower() == "false" and (c.gpus or versions.get("driver")):
        findings.append(warn("PyTorch sees no CUDA device (`Is CUDA available: False`) though NVIDIA GPUs or a driver "
                             "are listed: a CPU-only PyTorch, a driver older than its CUDA, or a container started "
                             "without the GPUs (`--gpus all`); vLLM cannot use the cards so."))
    findings += _no_kernels(versions)
    if c.topology is not None:
        from .gpu import summarise_topo
        findings += summarise_topo(c.topology, None)[1]
    env = {k: v for k, v in c.env.items() if k.startswith(_SHOWN_ENV)}
    if env:
        findings.append(info("Variables set: " + ", ".join(f"{k}={v}" for k, v in list(env.items())[:12])
                             + (" ..." if len(env) > 12 else "") + "."))
    if (versions.get("cuda_available") or "").lower() == "true" and c.gpus and all(f.level in ("ok", "info")
                                                                                   for f in findings):
        findings.append(info("Nothing wrong in what this report shows: PyTorch sees the GPU(s) through CUDA. It lists "
                             "versions only; what a build or a run does with them (the kernels compiled, an error) it "
                             "does not show: the run's own log does."))
    return facts, findings
