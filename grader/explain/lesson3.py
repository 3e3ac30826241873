"""Lesson 3's kinds for ``explain``: nvidia-smi (--query-gpu CSV, topo -m, topo -p2p, the plain table, -q, the compute
apps) and ``lspci -vv``. Judged by grader.judges.gpu and grader.judges.pcie.
"""

from __future__ import annotations

import re

from ..judges.common import nvidia_smi_with
from .core import KindSpec, register
from .readers import (judge, parse_collect_env, parse_lspci_vv, parse_query_gpu, parse_smi_q, parse_smi_table,
                      parse_topo_matrix, parse_topo_p2p)


_ENV_ROWS = ("vLLM Version|vLLM Build Flags|PyTorch version|CUDA runtime version|Nvidia driver version|GPU models and "
             "configuration|Is CUDA available|CUDA used to build PyTorch|ROCM used to build PyTorch|cuDNN version|"
             "HIP runtime version|MIOpen runtime version|Is XNNPACK available|Is debug build|"
             "CUDA_MODULE_LOADING set to|"
             "ROCM Version|Neuron SDK Version")
register(KindSpec(  # before nvidia-smi-q, whose `Key : value` rows its own look like
    name="collect-env", parse=parse_collect_env, summarise=judge("collect_env", "summarise_collect_env"),
    programs=("collect_env.py",), matches_command=lambda argv: any(  # collect_env.py, vllm collect-env, torch's module
        a.rsplit("/", 1)[-1] == "collect_env.py" or a in ("collect-env", "torch.utils.collect_env") for a in argv),
    line=re.compile(r"^Collecting environment information|^={30}$|^\s*(?:System|PyTorch|CUDA / GPU|CPU|vLLM) Info$"
                    r"|^\s*Python Environment$|^Versions of relevant libraries:?$|^\s*Environment Variables$"
                    rf"|^\[(?:pip3?|conda)\] [\w.-]+|^(?:{_ENV_ROWS})\s*:|^GPU Topology:$"),
    # inside it: the topology matrix, its legend, and NAME=value variables are its own
    inner=re.compile(r"CPU Affinity|^(?:GPU|NIC)\d+\s|^\s*(?:X|SYS|NODE|PHB|PXB|PIX|NV#)\s+=\s|^NIC Legend:|^Legend:"
                     r"|^[A-Z][A-Z0-9_]+=|^[A-Za-z][\w /().-]{0,60}:\s"),  # and its `Key   : value` rows (OS, GCC...)
))


register(KindSpec(
    name="nvidia-smi-query", parse=parse_query_gpu, summarise=judge("gpu", "summarise_query"), programs=("nvidia-smi",),
    matches_command=nvidia_smi_with(lambda a: any(x.startswith("--query-gpu") for x in a)),
    line=re.compile(r"^(?:index|name|pci\.bus_id|uuid|driver_version|pcie\.link\.[\w.]+|power\.[\w.]+|"
                    r"enforced\.power\.limit|memory\.\w+|temperature\.\w+|clocks[\w.]*)(?:\s*\[[^\]]+\])?\s*,"
                    r"|^\d+,\s*NVIDIA\s|^Field \".*\" is not a valid field to query"),
    starts=re.compile(r"^(?:index|name|pci\.bus_id|uuid)(?:\s*\[[^\]]+\])?\s*,"),
))


register(KindSpec(
    name="nvidia-smi-topo", parse=parse_topo_matrix, summarise=judge("gpu", "summarise_topo"), programs=("nvidia-smi",),
    matches_command=nvidia_smi_with(lambda a: "topo" in a
                                    and any(x in ("-m", "-mp", "--matrix", "--matrix_pcie") for x in a)),
    line=re.compile(r"CPU Affinity|^(?:GPU|NIC)\d+\s++.*\b(?:NV\d+|PIX|PXB|PHB|NODE|SYS)\b|^(?:GPU|NIC)\d+\s+X\s+\d"
                    r"|^\s*(?:SYS|NODE|PHB|PXB|PIX|NV#)\s+=\s|^NIC Legend:"),
    starts=re.compile(r"CPU Affinity"),
))


register(KindSpec(
    name="nvidia-smi-p2p", parse=parse_topo_p2p, summarise=judge("gpu", "summarise_p2p"), programs=("nvidia-smi",),
    matches_command=nvidia_smi_with(lambda a: "topo" in a and any(x.startswith("-p2p") for x in a)),
    line=re.compile(r"^GPU\d+(?:\s+GPU\d+)*$|^GPU\d+(?:\s+(?:X|OK|CNS|GNS|TNS|NS|U))+$"
                    r"|^\s*(?:OK|CNS|GNS|TNS|NS)\s+=\s"),
))


register(KindSpec(
    name="nvidia-smi-apps", parse=parse_query_gpu, summarise=judge("gpu", "summarise_apps"), programs=("nvidia-smi",),
    matches_command=nvidia_smi_with(lambda a: any(x.startswith("--query-compute-apps") for x in a)),
    line=re.compile(r"^gpu_uuid, pid, process_name\b|^pid, process_name\b"),
))


register(KindSpec(
    name="nvidia-smi", parse=parse_smi_table, summarise=judge("gpu", "summarise_table"), programs=("nvidia-smi",),
    matches_command=nvidia_smi_with(lambda a: not any(x.startswith("--query") or x in (
        "-q", "topo", "-L", "--list-gpus", "nvlink", "-pl", "-pm", "pmon") for x in a[1:])),
    line=re.compile(r"NVIDIA-SMI \S+\s+Driver Version:|^#\s{0,8}gpu\s{1,40}(?:pwr|sm)\s|^\+[-=+]+\+$|^\|[=]+\|$|^\|[-=+|]+\|$|Persistence-M"
                    r"|^\|\s+Processes:|^\|\s+GPU\s+(?:GI\s+CI\s+)?PID\s+Type\s+Process name|^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}$"),
    starts=re.compile(r"^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}$"),
))


register(KindSpec(
    name="nvidia-smi-q", parse=parse_smi_q, summarise=judge("gpu", "summarise_q"), programs=("nvidia-smi",),
    matches_command=nvidia_smi_with(lambda a: any(x in ("-q", "--query") for x in a)),
    line=re.compile(r"^=+NVSMI LOG=+$|^Attached GPUs\s+:|^GPU [0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:"
                    r"|^(?:Max |Applications |Default Applications |Max Customer Boost )?Clocks$"
                    r"|^Clocks (?:Event|Throttle) Reasons$|^(?:GPU |Module )?Power Readings$|^(?:FB Memory Usage|Link Width)$"
                    r"|^\s*+</?clocks_(?:event|throttle)_reasons?[_>]"  # -q -x's XML, its clock event reasons
                    r"|^(?!Identifier|Extended identifier|Transceiver|Vendor |Module temperature|Connector|Laser |\w{1,8} latency \(ns\))"
                    r"[A-Z](?=[\w .()/-]{22,}:)[\w .()/-]*+(?<=\s\s):(?:\s|$)"),  # possessive: linear; the lookahead:
    # an `ethtool -m` output's own keys (grader.explain.machine), MLPerf loadgen's latencies (p21), in that layout
    starts=re.compile(r"^=+NVSMI LOG=+$"),
))


register(KindSpec(
    name="lspci", parse=parse_lspci_vv, summarise=judge("pcie", "summarise_lspci"), programs=("lspci",),
    # possessive (linear on long runs of blanks); the device class starts with a letter or digit
    line=re.compile(r"^(?:[A-Z][a-z]{1,15}:\s{1,4})?(?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]\s++[\w ]++(?:\s*+\[[0-9a-fA-F]{4}\])?:\s"
                    r"|^(?:LnkCap|LnkSta|LnkCtl|DevCap|DevSta|DevCtl|ACSCap|ACSCtl)\d?:|^Capabilities: |^Kernel driver in use:"
                    r"|^Kernel modules:|^lspci: "
                    # the lines that open a device's block, for a block pasted without its device line
                    r"|^Subsystem: |^Control: I/O[+-] |^Status: Cap[+-] |^Interrupt: pin |^Physical Slot: "
                    r"|^Region \d+: (?:Memory|I/O ports) at |^IOMMU group: \d|^NUMA node: \d"
                    # a continuation line of flags alone (`ClockPM+ Surprise- LLActRep-`), as a cut paste opens
                    r"|^(?:[A-Z][\w/]*+[+-]\s++){3}"),
))
