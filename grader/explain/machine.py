"""Kinds for a machine's state beyond lesson 3's tables, for ``explain``: ``nvidia-smi nvlink -s``, ``nvidia-smi -L``
(grader.judges.gpu_list), club-3090's rig report (grader.judges.pcie), ``free`` and ``df`` (judged by grader.judges.memory),
a pluggable module's EEPROM, ``ethtool -m`` (grader.judges.link), and CUDA samples' P2P tests. Registered on import by the
package, after :mod:`.lesson3`: ``nvidia-smi -q``'s ``Key : value`` lines are claimed there first, and an ``ethtool -m``
output claims them only inside itself.
"""

from __future__ import annotations

import re

from ..judges.common import is_module_info, nvidia_smi_with
from .core import KindSpec, register
from .readers import (judge, parse_bandwidth_test, parse_device_query, parse_df, parse_free, parse_simple_p2p, parse_gpu_list, parse_lsmod, parse_module_info, parse_nvlink_status,
                      parse_p2p_bandwidth, parse_rig_report)


register(KindSpec(
    name="nvidia-smi-nvlink", parse=parse_nvlink_status, summarise=judge("gpu", "summarise_nvlink"), programs=("nvidia-smi",),
    matches_command=nvidia_smi_with(lambda a: "nvlink" in a and bool({"-s", "--status", "-c", "--capabilities"} & set(a))),
    line=re.compile(r"^Link \d+: (?:\d+(?:\.\d+)? GB/s|<inactive>)$|NVLink information as all links are inActive"
                    r"|^Link \d{1,2}, P2P is supported: (?:true|false)$"),  # (-c: each link's capabilities)
    # a GPU without NVLink (a PCIe H200 passed to a VM, tests/fixtures/captured/gpu-processes): no output, exit 0
    when_empty="`nvidia-smi nvlink -s` printed nothing (if the paste left nothing out): this GPU has no NVLink (a PCIe card with no bridge), so GPUs "
               "here talk over PCIe (`nvidia-smi topo -m` shows the path).",
))


register(KindSpec(
    name="nvidia-smi-list", parse=parse_gpu_list, summarise=judge("gpu_list", "summarise_gpu_list"),
    programs=("nvidia-smi",),
    matches_command=nvidia_smi_with(lambda a: any(x in ("-L", "--list-gpus") for x in a)),
    # only its MIG lines claim a paste without the command: `nvidia-smi nvlink -s` heads its links with the same GPU lines
    line=re.compile(r"^\s+MIG \S+\s+Device\s+\d+: \(UUID: MIG-"),
))


register(KindSpec(  # club-3090's Markdown summary of a two-GPU desktop, and its bench.sh runs
    name="rig-report", parse=parse_rig_report, summarise=judge("pcie", "summarise_rig_report"),
    line=re.compile(r"^#+ club-3090 rig report|^-\s+\*\*GPU \d{1,3}:\*\*\s|^\s*-\s+\*\*(?:Power|PCIe):\*\*\s"
                    r"|^Generated: \d{4}-\d\d-\d\d \d\d:\d\d|^_Redacted output \(paths, host"
                    r"|^-\s+\*\*(?:OS|Kernel|Environment|Locale|Timezone|Uptime|CPU|RAM|Swap):\*\*\s"
                    r"|^\[bench\] prefill-[\w.]{1,20} run \d{1,4}/\d{1,4}: \d|^\s*(?:warm|run)-\d{1,4}\s{1,20}wall=\s{0,9}[\d.]"),
    starts=re.compile(r"^#+ club-3090 rig report|^Generated: \d{4}-"),
))


register(KindSpec(
    name="free", parse=parse_free, summarise=judge("memory", "summarise_free"), programs=("free",),
    line=re.compile(r"^\s*total\s+used\s+free\s+shared\s+(?:buff/cache|buffers)|^(?:Mem|Swap):\s+\d"),
    starts=re.compile(r"^\s*total\s+used\s+free\s+shared"),
))


register(KindSpec(
    name="df", parse=parse_df, summarise=judge("memory", "summarise_df"), programs=("df",),
    line=re.compile(r"^Filesystem\s+(?:Type\s+)?(?:Size|\d+[KMG]?-blocks)\s+Used\s+Avail(?:able)?\s+(?:Use|Capacity)%"
                    r"\s+Mounted on\s*$"),
    starts=re.compile(r"^Filesystem\s+"),
))


register(KindSpec(
    name="lsmod", parse=parse_lsmod, summarise=judge("roce", "summarise_lsmod"), programs=("lsmod",),
    line=re.compile(r"^Module\s+Size\s+Used by$|^(?:nvidia(?:_\w+)?|mlx5_(?:core|ib)|ib_\w+|rdma_\w+|nouveau)\s+\d+\s+\d+"
                    r"(?:\s+\S+)?$"),
    starts=re.compile(r"^Module\s+Size\s+Used by$"),
    when_empty="`lsmod | grep ...` printed nothing (if the paste left nothing out): no loaded module matches, so it is "
               "not loaded (for nvidia_peermem, GPUDirect RDMA then needs DMA-BUF, or `sudo modprobe nvidia_peermem`; "
               "a DGX Spark does not use it).",
))


register(KindSpec(
    name="ethtool-module", parse=parse_module_info, summarise=judge("module_power", "summarise_module"),
    matches_command=is_module_info,
    line=re.compile(r"^Identifier\s+: 0x[0-9a-f]{2} \(|^Module temperature(?: high| low)?(?: alarm| warning)?"
                    r"(?: threshold)?\s+: |^(?:Transceiver type|Vendor (?:name|PN|OUI|SN)|Connector)\s{8,}: "
                    r"|^(?:Laser (?:bias current|output power|rx power|tx power)|Rcvr signal avg optical power)"
                    r"|^[A-Z][^:]{40,} : \S"),  # any key: ethtool pads each to 41 characters (nvidia-smi -q's come first)
))


register(KindSpec(
    name="p2p-bandwidth", parse=parse_p2p_bandwidth, summarise=judge("gpu", "summarise_p2p_test"),
    programs=("p2pBandwidthLatencyTest",),
    line=re.compile(r"^\[P2P \(Peer-to-Peer\) GPU Bandwidth Latency Test\]|^Device=\d+ CAN(?:NOT)? Access Peer "
                    r"Device=\d+|^(?:Unidirectional |Bidirectional )?P2P=(?:Enabled|Disabled) (?:Bandwidth|Latency)|^P2P (?:Bandwidth|Latency) Matrix \((?:GB/s|us)\) - (?:Uni|Bi)directional, P2P=(?:Enabled|Disabled)$"
                    r"|^P2P Connectivity Matrix$|^Device: \d+, .+, pciBusID: "),
    starts=re.compile(r"^\[P2P \(Peer-to-Peer\) GPU Bandwidth Latency Test\]"),
))


register(KindSpec(
    name="device-query", parse=parse_device_query, summarise=judge("device_query", "summarise_device_query"),
    programs=("deviceQuery",), starts=re.compile(r"^(?:[^\n]{0,200}[/\\])?deviceQuery(?:\.exe)? Starting"), line=re.compile(
        r"^(?:[^\n]{0,200}[/\\])?deviceQuery(?:\.exe)? Starting|^CUDA Device Query \(Runtime API\)|^Detected \d+ CUDA Capable device"
        r"|^deviceQuery, CUDA Driver = |^Result = (?:PASS|FAIL)$"),  # its detail lines, and peer access, inside it:
    inner=re.compile(r"^(?:CUDA (?:Driver|Capability)|Total (?:amount|number|shared)|\(\d+\) Multiprocessors|GPU Max Clock|Memory "
                     r"(?:Clock|Bus)|L2 Cache|Max(?:imum)? |Warp size|Texture alignment|Concurrent |Run time limit|Integrated "
                     r"GPU|Support host|Alignment requirement|Device (?:has|supports|PCI)|Supports |Compute (?:Mode|Preemption)"
                     r"|< Default|(?:> )?Peer access from |-> |Device \d+: \")"),  # (its own keys only: break-it 27 F10)
))


register(KindSpec(  # its section and row lines inside it; the rows (a size and a rate) only there
    name="bandwidth-test", parse=parse_bandwidth_test, summarise=judge("bandwidth_test", "summarise_bandwidth_test"),
    programs=("bandwidthTest",), starts=re.compile(r"^\[CUDA Bandwidth Test\] - Starting"), line=re.compile(
        r"^\[CUDA Bandwidth Test\] - Starting|^(?:Host to Device|Device to Host|Device to Device) Bandwidth, \d{1,3} Device"
        r"|^bandwidthTest-(?:H2D|D2H|D2D)\b"),
    inner=re.compile(r"^(?:Running on|Device \d{1,3}: |(?:Quick|Range|Shmoo) Mode$|(?:PINNED|PAGEABLE|WRITE-COMBINED) Memory "
                     r"Transfers|Transfer Size \(Bytes\)|\d{1,13}\s+\d{1,7}(?:\.\d{1,4})?$|Result = )")))

register(KindSpec(
    name="simple-p2p", parse=parse_simple_p2p, summarise=judge("simple_p2p", "summarise_simple_p2p"),
    programs=("simpleP2P",),
    line=re.compile(r"^\[\S*simpleP2P\] - Starting|^(?:> )?Peer access from .{1,80} \(GPU\d+\) -> |^cudaMemcpyPeer / cudaMemcpy "
                    r"between GPU\d+ and GPU\d+:|^Checking GPU\(s\) for support of peer to peer memory access"),
    starts=re.compile(r"^\[\S*simpleP2P\] - Starting"),
))
