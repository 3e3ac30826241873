"""Lesson 2a's RoCE kinds for ``explain``: ``rdma-link``, ``ib-counters`` (grader.judges.counters), ``ib-sysfs``,
``show-gids``, ``ibstat``, ``ibv_devinfo`` (judged by grader.judges.roce) and ``perftest`` (ib_write_bw/ib_write_lat;
grader.judges.perftest, whose ``repeated_size`` compares several runs of one size in a paste). NCCL's side is
:mod:`.lesson2_nccl`.

Detection keys on lines only these tools print (``link dev/1 state``, ``/sys/class/infiniband/``, ``DEV PORT INDEX
GID``, ``CA '...'``, ``RDMA_Write BW Test``, ``#bytes #iterations``), so they are not confused with lesson 1's kinds.
"""

from __future__ import annotations

import re

from ..judges.common import argv_is, runs_program
from ..parsers.common.commands import PERFTEST_PROGRAMS
from .core import KindSpec, register, register_cross_check
from .readers import (judge, parse_ib_counters, parse_ib_sysfs, parse_ibstat, parse_ibv_devices, parse_ibv_devinfo, parse_perftest,
                      parse_rdma_link, parse_show_gids)


register(KindSpec(
    name="rdma-link", parse=parse_rdma_link, summarise=judge("roce", "summarise_rdma"), programs=("rdma",),
    matches_command=argv_is("rdma", "link"),
    line=re.compile(r"^link\s+\S+/\d+\s+(?:state|subnet_prefix|lid)\s|^\d+/\d+:\s+\S+/\d+:\s+state\s"),
    matches_json=lambda v: isinstance(v, list) and bool(v) and all(
        isinstance(x, dict) and "ifname" in x and "port" in x and ("physical_state" in x or "state" in x) for x in v),
))


register(KindSpec(  # before ib-sysfs: its lines are sysfs paths too
    name="ib-counters", parse=parse_ib_counters, summarise=judge("counters", "summarise_counters"),
    matches_command=lambda argv: any("/sys/class/infiniband" in a and "counters" in a for a in argv),
    line=re.compile(r"^/\S*?/infiniband/[^/\s]+/ports/\d+/(?:hw_)?counters/+(?:\w+:\s*\d+\s*)?$"),
))


register(KindSpec(
    name="ib-sysfs", parse=parse_ib_sysfs, summarise=judge("roce", "summarise_sysfs"),
    matches_command=lambda argv: any("/sys/class/infiniband" in a for a in argv),
    line=re.compile(r"^/\S*?/infiniband/[^/\s]+/|^device\s+(?:roce|mlx5_|rxe|siw|irdma|bnxt_re|efa|ib)\S*\s+\S+$"),
))


register(KindSpec(
    name="show-gids", parse=parse_show_gids, summarise=judge("roce", "summarise_show_gids"), programs=("show_gids",),
    line=re.compile(r"^DEV\s+PORT\s+INDEX\s+GID|^n_gids_found=\d+"
                    r"|^\S++\s++\d++\s++\d++\s++[0-9a-fA-FxX*]{4}(?::[0-9a-fA-FxX*]{4}){7}\s+"
                    r"(?:[\dxX*]{1,3}(?:\.[\dxX*]{1,3}){3}\s+)?v[12]\b"
                    r"|^\S++\s++\d++\s++\d++\s++(?:fe80::|::ffff:)[0-9a-fA-F:.]++\s++v[12]\b"),  # GIDs shortened
))


register(KindSpec(  # the RoCE version RDMA CM uses (configfs rdma_cm, or rdma-core's cma_roce_mode)
    name="roce-mode", parse=judge("roce_notes", "read_roce_mode"), summarise=judge("roce_notes", "summarise_roce_mode"),
    programs=("cma_roce_mode",), matches_command=lambda argv: runs_program(argv, "cma_roce_mode") or (
        bool(argv) and argv[0] == "cat" and any(a.endswith("/default_roce_mode") for a in argv)),
))


register(KindSpec(
    name="ibv-devinfo", parse=parse_ibv_devinfo, summarise=judge("roce", "summarise_ibv_devinfo"), programs=("ibv_devinfo",),
    line=re.compile(r"^hca_id:\s|^phys_port_cnt:\s|^port:\s+\d+\s*$|^state:\s+PORT_|^phys_state:\s+(?:LINK_UP|POLLING|"
                    r"DISABLED)|^active_mtu:\s|^\W{0,4}GID\[\s*\d+\]:|^No IB devices found|^Failed to open device$"),
    starts=re.compile(r"^hca_id:\s"), starts_on_repeat=True,  # a device of one output, or the same one again
    prelude=True,  # the `Failed to open device` lines printed before the first device it could open
))


register(KindSpec(
    name="ibv-devices", parse=parse_ibv_devices, summarise=judge("roce", "summarise_ibv_devices"),
    programs=("ibv_devices",),
    line=re.compile(r"^\s*device\s+node GUID\s*$"),
))


register(KindSpec(
    name="ibstat", parse=parse_ibstat, summarise=judge("roce", "summarise_ibstat"), programs=("ibstat", "ibstatus", "ibpanic"),
    matches_command=lambda argv: bool(argv) and argv[0] in ("ibstat", "ibstatus"),
    line=re.compile(r"^CA '[^']*'$|^Infiniband device '[^']*' port \d+ status:$|^CA type:\s|^Number of ports:\s|^Firmware version:\s|^Hardware version:\s"
                    r"|^(?:Node|System image|Port) GUID:\s|^Physical state:\s|^Link layer:\s|^Base lid:\s|^SM lid:\s"
                    r"|^Capability mask:\s|^Rate:\s\d|^State:\s+(?:Active|Down|Initializing|Armed|Polling)\b|^ibpanic:"),
))


register(KindSpec(
    name="perftest", parse=parse_perftest, summarise=judge("perftest", "summarise_perftest"), programs=PERFTEST_PROGRAMS,
    matches_command=lambda argv: any(runs_program(argv, p) for p in PERFTEST_PROGRAMS),
    line=re.compile(r"^[A-Za-z][\w ]*?\s(?:BW|Lat|Latency)\s+Test$|^Dual-port\s*:|^Number of qps\s*:"
                    r"|^(?:local|remote) address:\s*LID\b|^\*\s*Waiting for client to connect|^\*{30,40}$"
                    r"|^WARNING: BW peak won't be measured|^-{87}$|^Couldn't connect to \S+|^Unable to init the socket"
                    r"|^Transport type\s*:|^Link type\s*:\s*\w+$|^Mtu\s*:\s*\d+\[B\]|^GID index\s*:\s*\d+$"
                    r"|^Conflicting CPU frequency values detected:|^Failed to modify QP \d+ to RT[RS]\b"
                    # its GPUDirect (--use_cuda) lines above the banner (blind batch vw010)
                    r"|^Perftest doesn't supports? CUDA tests|^initializing CUDA$|^Listing all CUDA devices in system:"
                    r"|^CUDA device \d+: PCIe address is|^Picking device No\. \d+|^creating CUDA Ctx|^making it the current CUDA"),
    header=re.compile(r"^#\s?bytes\s+#?iterations\s+(?:BW peak|t_min)"),  # a result table pasted without its banner
))

register_cross_check(judge("roce", "both_rails"), kinds=('perftest',))
register_cross_check(judge("roce", "gid_index_across_tables"), kinds=('show-gids',))
register_cross_check(judge("roce_notes", "devices_not_opened"), kinds=('ibv-devices',))
register_cross_check(judge("perftest", "repeated_size"), kinds=('perftest',))
