"""Parser for NCCL_DEBUG=INFO logs: which network NCCL chose, which HCAs, and the transport of
each channel (P2P, SHM, NET/IB, NET/Socket...).

NCCL writes ``<host>:<pid>:<tid> [<cuda dev>] NCCL INFO <message>``. In the field these lines
come mixed with torchrun, vLLM and Ray output, behind launcher prefixes
(``(RayWorkerWrapper pid=123, ip=10.0.0.2) spark-a:123:456 [0] NCCL INFO ...``,
``[1,0]<stdout>:``, timestamps): only lines with ``NCCL INFO``/``NCCL WARN`` (or a bare NCCL
message, as authors quote them with the prefix cut) are read; the rest is skipped. Messages read::

    NCCL version 2.28.9+cuda13.0
    NET/Plugin: Could not find: libnccl-net.so
    NET/IB : Using [0]rocep1s0f1:1/RoCE [1]roceP2p1s0f1:1/RoCE [RO]; OOB enp1s0f1np1:192.168.100.10<0>
    NET/IB : No device found.
    NET/Socket : Using [0]eth0:10.0.0.2<0>
    Bootstrap: Using eth0:192.0.2.2<0>
    Using network IB                         (or Socket, or an external plugin's name; 2.3-2.4: Using internal
                                             Network Socket)
    NCCL_SOCKET_IFNAME set by environment to enp1s0f1np1
    NCCL_IB_HCA set to rocep1s0f1,roceP2p1s0f1
    Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read
    Channel 00/0 : 1[1] -> 0[0] [receive] via NET/Socket/0
    Channel 08/0 : 0[0] -> 1[0] [receive] via NET/IBext_v10/0        (NCCL's IB transport in a plugin)
    Ring 00 : 15 -> 0 [send] via NET/Socket/0                         (NCCL 2.4 and older: Ring, a rank's device
                                                                        not always given)
    Connected all rings
    NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 0 'rocep1s0f1
    NET/IB : Made virtual device [0] name=rocep1s0f1 speed=200000 ndevs=1   (an RDMA device NCCL found)
    NET/Plugin: Loaded net plugin NCCL RDMA Plugin (v5)   P2P plugin v10 IBext_v10   (an external net plugin)
    P2P is disabled between connected GPUs 1 and 0. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.
    comm 0x... rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0
    NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 1047 mtu 5 query_ece={...} GID 3 (0/4801A8C0FFFF0000) fifoRkey=0x..
    NET/IB: Dev 3 Port 1 qpn 2455 mtu 5 GID 3 (0/7D02A8C0FFFF0000)       (older NCCL; an IB port prints LID)
    NCCL WARN <anything>
    misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed with error Network is unreachable
    NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out, on dev rocep1s0f0:1, ...

A ``NET/IB: ... qpn N mtu M GID G (...)`` line is one RDMA queue pair NCCL connected (transport/net_ib):
such lines alone prove the data path is NET/IB, even when the excerpt has no ``Channel ... via`` line.
A ``Call to ibv_* failed`` warning is a fatal verbs error: the communicator did not come up.

``NET/Socket`` channels mean NCCL sends over TCP sockets: a fallback when it finds no usable RDMA
device (no /dev/infiniband in the container, NCCL_IB_DISABLE=1, wrong NCCL_IB_HCA).
Sources: NCCL's log strings (transport/net_ib.cc, net_socket.cc, init.cc, as seen in the
fixtures); vLLM docs parallelism_scaling.md (``via NET/IB/GDRDMA`` vs ``via NET/Socket``);
procedure.md §2.4.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from .common import ParseError, content_lines, raise_if_shell_error, strip_log_prefix

CMD = "NCCL_DEBUG=INFO log"

_MARK_RE = re.compile(r"(?:^|\s)NCCL (?P<lvl>INFO|WARN|TRACE|ABORT|ERROR)\b:?\s?(?P<msg>.*)$")
_OLD_MARK_RE = re.compile(r"(?<=\] )(?P<src>[\w./-]{1,200}\.(?:cc|cu|h):\d{1,5} )?(?P<lvl>WARN|INFO) (?P<msg>.*)$")
"""NCCL 2.0-2.2's lines, no NCCL before the level: ``h:1:2 [0] socket.h:185 WARN ...``, ``h:1:2 [2] INFO ...``."""
# Linear forms (issue 12): a search starts only where a host name starts (the look-behind: not again at
# each character of a long name); runs are possessive; a field that ends before optional blanks ends on
# a non-blank (``\S(?:.*\S)?``) instead of being lazy (a lazy field rescans a run of blanks per blank).
_HOST_RE = re.compile(r"(?<![\w.-])(?P<host>[\w.-]++):(?P<pid>\d++):(?P<tid>\d++)\s++\[(?P<dev>\d++)\]\s*+$")
_SRC_RE = re.compile(r"(?<!\s)\s++[\w./-]{1,200}\.(?:cc|cpp|cu|c|h):\d++$")  # `... [0] misc/ibvwrap.cc:187 NCCL WARN`
_VERSION_RE = re.compile(r"^NCCL version (?P<v>\S+)")
_NET_USING_RE = re.compile(r"^NET/(?P<net>IB\w*|Socket|[\w .-]*[\w.-]| )\s*:\s*+Using\s*+(?P<rest>.*)$")
_NO_DEVICE_RE = re.compile(r"^NET/IB\w*\s*:\s*No device found", re.I)
_HCA_RE = re.compile(r"\[(?P<i>\d+)\] ?(?P<dev>[^:\s\[\]={},]+):(?P<port>\d+)/(?P<ll>[A-Za-z]+)")
"""A device of ``NET/IB : Using``: ``[0]mlx5_0:1/RoCE``; a merged NIC lists its devices as ``[0]={[0] mlx5_2:1/RoCE,
[1] mlx5_3:1/RoCE}`` (NCCL_IB_MERGE_NICS, HPC-X's IBext plugin)."""
_OOB_RE = re.compile(r"OOB\s+(?P<iface>[^:\s]+):(?P<addr>[^<\s]+)(?:<\d+>)?")
_SOCK_RE = re.compile(r"\[(?P<i>\d+)\](?P<iface>[^:\s\[\]]+):(?P<addr>[^<\s]+)(?:<\d+>)?")
_OLD_IFACE_RE = re.compile(r"^NET\s*+:\s*+Using interface (?P<iface>[^:\s]+):(?P<addr>[^<\s]+)")
_BOOTSTRAP_RE = re.compile(r"^Bootstrap\s*:\s*Using\s+(?:\[\d{1,3}\])?(?P<iface>[^:\s]+):(?P<addr>[^<\s]+)")
_NETWORK_RE = re.compile(r"^Using (?:internal )?[Nn]etwork (?P<net>.*\S|.)\s*$")  # 2.3-2.4: "Using internal Network Socket"
_ASSIGNED_RE = re.compile(r"^(?:Assigned|Initialized) NET plugin (?P<net>\S+)")
_FAILED_RE = re.compile(r"^Failed to initialize NET plugin (?P<net>\S+)")
_ENV_RE = re.compile(r"^(?P<key>[A-Z][A-Z0-9]*_[A-Z0-9_]+) set (?:by environment )?to (?P<val>(?:.*\S)?)\s*$")
_CHANNEL_RE = re.compile(r"^(?:Channel|Ring)\s+(?P<ch>\d+)(?:/(?P<sub>\d+))?\s*:\s*(?P<src>\d+)"
                         r"(?:\[(?P<srcdev>[0-9a-fA-Fx]+)\])?\s*->\s*(?P<dst>\d+)(?:\[(?P<dstdev>[0-9a-fA-Fx]+)\])?\s*"
                         r"(?:\[(?P<dir>send|receive|recv)\]\s*)?via\s+(?P<via>\S(?:.*\S)?)\s*$")  # Ring: NCCL 2.4 and older
_CHANNEL_RANKS_RE = re.compile(r"\bcomm 0x[0-9a-fA-F]+ nRanks (\d+)\s*$")
_RINGS_RE = re.compile(r"^Connected all rings")
_TREES_RE = re.compile(r"^Connected all trees")
_GDR_RE = re.compile(r"GPU Direct RDMA (?:\(DMABUF\) )?(?P<on>[Ee]nabled|Disabled) for HCA (?P<i>\d+) '(?P<dev>[^'\s]+)")
_COMM_RE = re.compile(r"\bnRanks (?P<n>\d+) nNodes (?P<nodes>\d+)(?: localRanks (?P<local>\d{1,5}))?")
_TROUBLE_RE = re.compile(r"\berror\b|\bretrying\b|\bfailed\b|\brefused\b|\btimed out\b|\bunreachable\b|\bstatus=[1-9]", re.I)
_CHAIN_RE = re.compile(r"^(?P<file>[\w./-]{1,80}\.(?:cc|cu|h|hpp)):(?P<line>\d{1,5}) -> (?P<code>[1-9])\b")
"""A line of NCCL's error chain (its NCCLCHECK at INFO: ``transport/net.cc:515 -> 2``, a file, a line, a result)."""
_NVLS_RE = re.compile(r"^\d+ coll channels, \d+ collnet channels, (?P<n>\d+) nvls channels")
_INIT_RE = re.compile(r"^(?:ncclCommInit\w*\s+)?comm \S+ rank (?P<r>\d+) nranks (?P<n>\d+)")  # InitRank, InitAll; 2.7: bare
_TOPO_GPU_RE = re.compile(r"^GPU/(?:\d{1,4}-)?(?P<a>[0-9a-fA-F]{1,16})\s{0,4}:(?P<rest>GPU/.*)$")
_TOPO_PATH_RE = re.compile(r"GPU/(?:\d{1,4}-)?(?P<b>[0-9a-fA-F]{1,16}) \(\d{1,3}/(?P<bw>[\d.]{1,12})/(?P<type>[A-Z]{2,4})\)")
_TOPO_NET_RE = re.compile(r"\bNET/(?:\d{1,4}-)?(?P<n>[0-9a-fA-F]{1,16}) \(\d{1,3}/(?P<bw>[\d.]{1,12})/[A-Z0-9]{2,4}\)")
_AFFINITY_RE = re.compile(r"^Setting affinity for GPU (?P<gpu>\d{1,3}) to (?P<mask>[0-9a-fA-F]{1,16}(?:,[0-9a-fA-F]{1,16}){0,64})")
_TOPO_NVS_RE = re.compile(r"^\+ NVL\[(?P<bw>[\d.]{1,12})\] - NVS/\d")
_BUS_COMM_RE = re.compile(r"\bbusId (?P<bus>[0-9a-fA-F]{1,16}) commId (?P<comm>0x[0-9a-fA-F]{1,16})\b")
_BARE_RE = re.compile(r"^(?:NCCL version \d|NET/(?:IB|Socket|Plugin)|Channel \d+/\d+\s*:\s*\d+\[|Ring \d+ : \d+(?:\[| ->)"
                      r"|Using (?:internal )?[Nn]etwork \w"
                      r"|NCCL_[A-Z0-9_]+ set (?:by environment )?to |Connected all (?:rings|trees)|Bootstrap\s*:\s*Using "
                      r"|[\w./-]{1,80}\.(?:cc|cu):\d{1,5} -> [1-9]\b)")  # (the last: an error chain's line, its tag cut)
_RANK_TAG_RE = re.compile(r"^\[[\w|.-]{1,40}\]:")  # a launcher's `[trainer0|0]:` before each line
_ERROR_RE = re.compile(r"NCCL error|ncclSystemError|ncclInternalError|ncclInvalidUsage|ncclRemoteError"
                       r"|ncclUnhandledCudaError|ncclInvalidArgument|unhandled system error")
# one RDMA queue pair NCCL connected (net_ib.cc's connection log): GID index and (subnet/interface id) for RoCE
_QP_RE = re.compile(r"^NET/IB\w*\s*:\s*(?:NCCL (?:Merged)?Dev\s+\d+\s+)?(?:Ib)?Dev\s+(?P<dev>\d+)\s+Port\s+(?P<port>\d+)"
                    r"\s+qpn\s+(?P<qpn>\d+)\s+mtu\s+(?P<mtu>\d+)\b(?P<rest>.*)$")
_QP_GID_RE = re.compile(r"\bGID\s+(?P<index>-?\d+)\s*\((?P<prefix>[0-9A-Fa-f]{1,16})/(?P<iid>[0-9A-Fa-f]{1,16})\)")
_VERBS_FAIL_RE = re.compile(r"Call to (?P<call>ibv_\w+) failed(?: with (?:error )?(?P<errno>\d+)?\s*(?P<why>[^,]*\S))?")
_VIRTUAL_RE = re.compile(r"^NET/IB\w*\s*:\s*Made virtual device \[\d+\] name=(?P<dev>\S+)")
_P2P_OFF_RE = re.compile(r"^P2P is disabled between connected GPUs (?P<a>\d+) and (?P<b>\d+)")
_BENCH_RE = re.compile(r"^size_MiB=(?P<size>\d+(?:\.\d+)?)\s+time_us=(?P<t>\d+(?:\.\d+)?)\s+"
                       r"algbw_GBps=(?P<alg>\d+(?:\.\d+)?)\s+busbw_GBps=(?P<bus>\d+(?:\.\d+)?)\b")

MAX_IB_CONNECTIONS = 256
"""Queue-pair lines kept (a long log prints one per QP per connection; they are counted, not all kept)."""

TRANSPORT_ORDER = ("NET/IB", "NET/Socket", "P2P", "SHM", "COLLNET", "NVLS")


#: ibverbs path MTU codes as NCCL prints them (``mtu 5``) -> bytes (IBV_MTU_256 .. IBV_MTU_4096)
IB_MTU_BYTES = {1: 256, 2: 512, 3: 1024, 4: 2048, 5: 4096}


class IbConnection(NamedTuple):
    """One ``NET/IB: ... IbDev D Port P qpn Q mtu M [GID G (prefix/iid)]`` line: a queue pair NCCL set up.
    ``gid_index`` None on an InfiniBand port (LID) or when not printed; ``gid_ipv4`` the IPv4 address of an
    IPv4-mapped RoCE GID, ``gid_link_local`` a fe80 GID; ``mtu_bytes`` from the ibverbs MTU code."""

    ib_dev: int
    port: int
    mtu_bytes: int | None
    gid_index: int | None
    gid_ipv4: str | None
    gid_link_local: bool
    host: str | None


def _decode_gid(prefix: str, iid: str) -> tuple[str | None, bool]:
    """NCCL prints the GID's two 64-bit halves as little-endian integers (``0/4801A8C0FFFF0000`` is
    ::ffff:192.168.1.72; ``80FE/...`` is fe80::...): (IPv4 of an IPv4-mapped GID, is link-local)."""
    try:
        p = int(prefix, 16).to_bytes(8, "little")
        i = int(iid, 16).to_bytes(8, "little")
    except (ValueError, OverflowError):
        return None, False
    if p == bytes(8) and i[:4] == b"\x00\x00\xff\xff":
        return ".".join(str(b) for b in i[4:]), False
    return None, p[:2] == b"\xfe\x80"


class NcclHca(NamedTuple):
    """An HCA from ``NET/IB : Using [0]rocep1s0f1:1/RoCE``: device, port, link layer (``RoCE``, ``IB``)."""

    device: str
    port: int
    link_layer: str


class SocketIface(NamedTuple):
    """An interface from ``NET/Socket : Using [0]eth0:10.0.0.2<0>``: its name and address."""

    name: str
    address: str


@dataclass(frozen=True)
class NcclChannel:
    """One ``Channel NN/M : a[da] -> b[db] [send|receive] via T`` line.

    ``transport`` classifies ``via``: ``NET/IB`` (also an external IB plugin such as
    ``NET/IBext_v10`` or ``NET/NCCL RDMA Plugin v10``), ``NET/Socket``, ``P2P`` (NVLink or PCIe between GPUs of one host),
    ``SHM`` (through host shared memory), ``COLLNET``, ``NVLS``, else the first word of ``via``.
    ``detail`` is ``via`` as printed (``NET/IB/0/GDRDMA``); ``direction`` ``send``/``receive``
    or None; ``host`` the host that logged it (None without the ``host:pid:tid`` prefix).
    """

    channel: int
    src_rank: int
    dst_rank: int
    transport: str
    detail: str
    direction: str | None = None
    host: str | None = None


@dataclass(frozen=True)
class BenchLine:
    """A ``size_MiB=.. time_us=.. algbw_GBps=.. busbw_GBps=..`` line a benchmark script printed
    among the NCCL lines (GB/s = 10^9 bytes/s)."""

    size_mib: float
    time_us: float
    algbw_gbs: float
    busbw_gbs: float


@dataclass(frozen=True)
class NcclLog:
    """What an NCCL_DEBUG=INFO log says.

    ``version`` (``2.28.9+cuda13.0``); ``network`` the network NCCL chose: ``"IB"`` (RDMA:
    InfiniBand or RoCE, also through an IB plugin), ``"Socket"`` (TCP), another plugin's name,
    or None when the log does not say; ``ib_devices`` the HCAs of ``NET/IB : Using`` (all hosts,
    first seen first) and ``ib_devices_by_host``; ``socket_ifaces`` of ``NET/Socket : Using``;
    ``oob_iface``/``oob_address`` the out-of-band interface of the IB line; ``bootstrap_iface``/
    ``bootstrap_address`` (the first ``Bootstrap : Using`` line's; ``bootstrap_by_host``: each host's first, host ->
    (interface, address), ``""`` for lines without a host); ``ib_no_device`` (``NET/IB : No device found``); ``net_plugins_failed``
    (``Failed to initialize NET plugin IB``); ``plugin_messages`` the ``NET/Plugin`` lines (and ``P2P plugin ...``,
    ``Successfully loaded external plugin ...``); ``channels`` in order; ``env_settings`` from ``X set [by environment] to Y`` (a trailing period dropped);
    ``warnings`` the ``NCCL WARN`` messages; ``errors`` NCCL error lines (torch's ``NCCL error ...: unhandled system
    error``); ``hosts`` that logged; ``nranks``/``nnodes`` from the communicator lines; ``gdr_hcas`` HCAs with GPU
    Direct RDMA enabled (``gdr_off_hcas``: reported disabled); ``rings_connected``; ``bench`` benchmark result lines;
    ``simulated`` a line says the log is simulated; ``nccl_lines`` how many NCCL lines were read; ``ib_connections``
    the RDMA queue pairs NCCL logged (``NET/IB: ... qpn ... GID ...``; at most ``MAX_IB_CONNECTIONS`` kept,
    ``n_ib_connections`` counts all); ``verbs_failures`` fatal ibverbs errors (``Call to ibv_modify_qp failed with ...
    Network is unreachable``); ``virtual_devices`` the RDMA devices NCCL's IB transport found (``Made virtual device
    [0] name=...``); ``p2p_disabled`` the GPU pairs NCCL says have peer-to-peer off (``P2P is disabled between
    connected GPUs 1 and 0``), each pair sorted; ``gdrdma_in_text``: ``/GDRDMA`` is somewhere in the text, also in a
    piece of a channel line that Ray's forwarding cut and interleaved with other workers' lines.
    """

    version: str | None = None
    network: str | None = None
    ib_devices: tuple[NcclHca, ...] = ()
    ib_devices_by_host: dict = field(default_factory=dict)
    socket_ifaces: tuple[SocketIface, ...] = ()
    oob_iface: str | None = None
    oob_address: str | None = None
    bootstrap_iface: str | None = None
    bootstrap_address: str | None = None
    bootstrap_by_host: dict = field(default_factory=dict)
    ib_no_device: bool = False
    net_plugins_failed: tuple[str, ...] = ()
    plugin_messages: tuple[str, ...] = ()
    channels: tuple[NcclChannel, ...] = ()
    env_settings: dict = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    nranks: int | None = None
    nnodes: int | None = None
    gdr_hcas: tuple[str, ...] = ()
    gdr_off_hcas: tuple[str, ...] = ()
    rings_connected: bool = False
    bench: tuple[BenchLine, ...] = ()
    simulated: bool = False
    nccl_lines: int = 0
    ib_connections: tuple[IbConnection, ...] = ()
    n_ib_connections: int = 0
    verbs_failures: tuple[str, ...] = ()
    virtual_devices: tuple[str, ...] = ()
    p2p_disabled: tuple[tuple[int, int], ...] = ()
    gdrdma_in_text: bool = False
    init_complete: int = 0  # `ncclCommInitRank ... - Init COMPLETE` lines: ranks whose communicator was set up
    nvls_channels: int = 0  # `N coll channels, M collnet channels, K nvls channels, ...`: the most K (NVLink SHARP)
    troubled: int = 0  # INFO lines of a failure or a retry (`connect returned ... retrying`, `... with error 12`)
    error_chain: tuple | None = None  # its first `file:line -> N` line: (file, line, code, the WARN line just before)
    chain_in_bootstrap: bool = False  # a line of that chain is bootstrap.cc's: it failed while the ranks met
    chain_in_progress: bool = False  # a line of it is the proxy's `[Progress Thread]`: it failed while data moved
    duplicate_gpus: tuple = ()  # (host, busId, ranks): ranks of one communicator (commId) that init on one GPU
    gpu_paths: dict = field(default_factory=dict)  # NCCL's topology dump: (bus a, bus b) -> (path type, GB/s)
    cpu_affinity: dict = field(default_factory=dict)  # `Setting affinity for GPU N to <mask>`: GPU -> CPU mask
    nvswitch_gbs: float = 0.0  # NCCL's topology dump: a GPU's NVLink to an NVSwitch (`+ NVL[160.0] - NVS/0`), GB/s
    net_gbs: dict = field(default_factory=dict)  # the dump's GPU path lines: network device (`NET/0`) -> its GB/s
    networks_by_host: dict = field(default_factory=dict)  # host -> the network its `Using network` line names (first)
    one_process_gpus: int = 0  # every line from one process (host:pid): how many GPUs (`[dev]`) it drives; else 0
    old_format_hosts: tuple = ()  # hosts whose lines have no `NCCL` before INFO/WARN (NCCL 2.0-2.2's format)

    @property
    def transports(self) -> tuple[str, ...]:
        """The transports the channels used, in TRANSPORT_ORDER (others after, as first seen)."""
        seen = list(dict.fromkeys(c.transport for c in self.channels))
        return tuple(sorted(seen, key=lambda t: (TRANSPORT_ORDER.index(t) if t in TRANSPORT_ORDER
                                                 else len(TRANSPORT_ORDER), seen.index(t))))


_CUT_VIA = frozenset(name[:n] for name in ("P2P", "SHM", "NET/IB", "NET/Socket", "NVLS") for n in range(1, len(name)))
"""A channel line's ``via`` cut before its transport's name is whole (a paste that ends there): each name's prefixes."""


def classify_transport(via: str) -> str:
    """The transport family of a channel's ``via`` text (see NcclChannel)."""
    d = via.strip()
    if re.match(r"^NET/(?:IB|[^/]{0,40}\bRDMA\b)", d):  # (an IB plugin: `NET/IBext_v10`, `NET/NCCL RDMA Plugin v10`)
        return "NET/IB"
    if d.startswith("NET/Socket"):
        return "NET/Socket"
    if d.startswith("NET/"):
        return "NET/" + re.split(r"[/(]", d[4:])[0]
    if d.startswith("P2P"):
        return "P2P"
    if d.startswith("SHM") or d.startswith("direct shared memory"):  # (the latter: 2.4-2.7, P2P refused in-process)
        return "SHM"
    if d.lower().startswith("collnet"):
        return "COLLNET"
    if d.startswith("NVLS"):
        return "NVLS"
    return re.split(r"[/\s]", d)[0] or d


def _network_name(net: str) -> str:
    n = net.strip()
    return "IB" if re.match(r"^IB", n) else "Socket" if n.lower() == "socket" else n


MAX_INERT = 20_000
"""At most this many distinct messages of which nothing was read are remembered while one log is read (so each is
read once; a log of more has the rest read each time)."""


def _duplicate_gpus(st: dict) -> tuple:
    """Ranks of one communicator whose Init lines name one host's same busId: (host, busId, ranks), unless NCCL's
    own lines place them apart (every ``nNodes N localRanks 1`` line says each rank is alone on its node: hosts of one
    name, as cloned images have) or every one of them reached ``Init COMPLETE`` (NCCL refuses a GPU twice at init)."""
    if st.get("alone") and all(st["alone"]):
        return ()
    done = st.get("completed", set())
    return tuple((h, bus, tuple(sorted(r))) for (h, comm, bus), r in st.get("gpus", {}).items()
                 if len(r) > 1 and not all((comm, x) in done for x in r))


def _one_host_holds_all(st: dict) -> int | None:
    """1 where one host logged every rank of the communicator (``comm ... rank R nranks N`` for each R below N, an
    NCCL that prints no nNodes), else None: the run's machines are not shown."""
    n = st.get("nranks")
    return 1 if n and len(st["hosts"]) == 1 and st.get("ranks_seen", set()) >= set(range(n)) else None


def parse_nccl_log(text: str) -> NcclLog:
    """Parse an NCCL_DEBUG=INFO log (lines mixed with other programs' output) into NcclLog.

    Lines without an NCCL marker are skipped unless they are a bare NCCL message (see
    _BARE_RE), a torch/NCCL error line, or a ``size_MiB=`` benchmark line. Never depends on line
    order. Raises ParseError when no NCCL line is found (with the hint to set NCCL_DEBUG=INFO),
    or when the paste is a shell error (``No such file or directory``) instead of a log.
    """
    lines = content_lines(text, keep_comments=True)
    simulated = any("simulated" in x.text.lower() for x in lines if x.text.lstrip().startswith("#"))
    st: dict = {"ib": [], "by_host": {}, "sock": [], "channels": [], "env": {}, "warn": [], "err": [],
                "hosts": [], "failed": [], "plugin": [], "gdr": [], "gdr_off": [], "bench": [], "qps": [], "n_qps": 0, "verbs": [],
                "virtual": [], "p2p_off": [], "boot_by_host": {}}
    count = 0
    hosts_seen: set[str] = set()
    inert: set[str] = set()  # messages of which _read_message read nothing
    detail_next = False
    for line in lines:
        raw = line.text.strip()
        if raw.startswith("#"):
            continue
        if "/GDRDMA" in raw:  # also in a piece of a line Ray's forwarding cut (a comment above does not count)
            st["gdr_text"] = True
        s = strip_log_prefix(raw).strip()
        if detail_next and st["err"] and s:  # NCCL's `Last error:` line, then what failed, on the next line
            st["err"][-1] += " Last error: " + _RANK_TAG_RE.sub("", s)[:300]
        detail_next = s.endswith("Last error:")
        m = _MARK_RE.search(s) or _OLD_MARK_RE.search(s)
        if m and "src" in m.groupdict() and not m.group("src") and not _HOST_RE.search(s[:m.start()].rstrip()):
            m = None  # `[...] INFO` behind anything but NCCL's own `host:pid:tid [dev]` (a logger's time stamp)
        host = None
        if m:
            msg, lvl = m.group("msg").strip(), m.group("lvl")
            head = s[:m.start()].rstrip()
            hm = _HOST_RE.search(_SRC_RE.sub("", head) if head[-1:].isdigit() else head)  # a source's line number last?
            host = hm.group("host") if hm else None
            _ = hm and st.setdefault("procs", {}).setdefault((host, hm["pid"]), set()).add(hm["dev"])  # (GPUs a pid)
            if host and host not in hosts_seen:
                hosts_seen.add(host)
                st["hosts"].append(host)
            if host and "src" in m.groupdict():  # NCCL 2.0-2.2's format: an older NCCL than `NCCL INFO`'s
                st.setdefault("old", {})[host] = None
        elif _BARE_RE.match(s):
            msg, lvl = s, "INFO"
        else:
            if _ERROR_RE.search(s):
                st["err"].append(s)
            b = _BENCH_RE.match(s)
            if b:
                st["bench"].append(BenchLine(float(b.group("size")), float(b.group("t")), float(b.group("alg")),
                                             float(b.group("bus"))))
            continue
        count += 1
        if lvl in ("WARN", "ERROR", "ABORT"):
            st["warn"].append(msg)
            st["just_warned"] = msg  # (until the next NCCL line: a chain right after it passes its error up)
            if _ERROR_RE.search(msg):
                st["err"].append(msg)
            if _VERBS_FAIL_RE.search(msg):
                st["verbs"].append(msg)
            continue
        if msg not in inert and not _read_message(msg, host, st) and len(inert) < MAX_INERT:
            inert.add(msg)  # nothing in it was read: its next copies (a log's repeated lines) are not read again
        st["just_warned"] = None
    if count == 0 and not st["err"]:
        raise_if_shell_error(lines, CMD)
        first = next((x for x in lines if x.text.strip() and not x.text.strip().startswith("#")), None)
        raise ParseError(CMD, "no NCCL line found (`... NCCL INFO ...`): run with NCCL_DEBUG=INFO (for vLLM "
                              "pass -e NCCL_DEBUG=INFO to the container) and paste the lines that contain `NCCL`",
                         first.text.strip() if first else None, first.no if first else None)
    by_host = {h: tuple(dict.fromkeys(v)) for h, v in st["by_host"].items()}
    return NcclLog(
        version=st.get("version"), network=(st.get("network") if len(set(st.get("by_net", {}).values())) < 2 else None)
        or st.get("assigned"), networks_by_host=dict(st.get("by_net", {})), old_format_hosts=tuple(st.get("old", ())),
        ib_devices=tuple(dict.fromkeys(st["ib"])), ib_devices_by_host=by_host,
        socket_ifaces=tuple(dict.fromkeys(st["sock"])), oob_iface=st.get("oob_iface"),
        oob_address=st.get("oob_addr"), bootstrap_iface=st.get("boot_iface"), bootstrap_address=st.get("boot_addr"),
        bootstrap_by_host=dict(st["boot_by_host"]),
        ib_no_device=bool(st.get("no_device")), net_plugins_failed=tuple(dict.fromkeys(st["failed"])),
        plugin_messages=tuple(dict.fromkeys(st["plugin"])), channels=tuple(st["channels"]), env_settings=dict(st["env"]),
        warnings=tuple(st["warn"]), errors=tuple(dict.fromkeys(st["err"])), hosts=tuple(st["hosts"]),
        one_process_gpus=len(next(iter(procs.values()))) if len(procs := st.get("procs", {})) == 1 else 0,
        nranks=st.get("nranks"), nnodes=st.get("nnodes") or _one_host_holds_all(st), gdr_hcas=tuple(dict.fromkeys(st["gdr"])),
        gdr_off_hcas=tuple(dict.fromkeys(st["gdr_off"])),
        rings_connected=bool(st.get("rings")), bench=tuple(st["bench"]), simulated=simulated, nccl_lines=count,
        ib_connections=tuple(st["qps"]), n_ib_connections=st["n_qps"], verbs_failures=tuple(dict.fromkeys(st["verbs"])),
        virtual_devices=tuple(dict.fromkeys(st["virtual"])),
        p2p_disabled=tuple(dict.fromkeys(tuple(sorted(p)) for p in st["p2p_off"])), gdrdma_in_text=bool(st.get("gdr_text")),
        init_complete=st.get("init_complete", 0), troubled=st.get("troubled", 0), nvls_channels=st.get("nvls", 0),
        error_chain=st.get("chain"), chain_in_bootstrap=bool(st.get("boot_chain")),
        chain_in_progress=bool(st.get("progress_chain")),
        gpu_paths=dict(st.get("paths", {})), cpu_affinity=dict(sorted(st.get("affinity", {}).items())), nvswitch_gbs=st.get("nvswitch", 0.0),
        net_gbs=dict(sorted(st.get("nets", {}).items())),
        duplicate_gpus=_duplicate_gpus(st))


def _read_setup(msg: str, host: str | None, st: dict) -> bool:
    """Read a message of how NCCL set up (its version, network, devices, settings) into ``st``; whether it was one."""
    m = _VERSION_RE.match(msg)
    if m:
        st.setdefault("version", m.group("v"))
        return True
    if _NO_DEVICE_RE.match(msg):
        st["no_device"] = True
        return True
    m = _QP_RE.match(msg)
    if m:
        st["n_qps"] += 1
        if len(st["qps"]) < MAX_IB_CONNECTIONS:
            g = _QP_GID_RE.search(m.group("rest"))
            ipv4, link_local = _decode_gid(g.group("prefix"), g.group("iid")) if g else (None, False)
            st["qps"].append(IbConnection(int(m.group("dev")), int(m.group("port")),
                                          IB_MTU_BYTES.get(int(m.group("mtu"))), int(g.group("index")) if g else None,
                                          ipv4, link_local, host))
        return True
    m = _NET_USING_RE.match(msg)
    if m:
        net, rest = m.group("net").strip(), m.group("rest")
        if net.startswith("IB"):
            hcas = [NcclHca(h.group("dev"), int(h.group("port")), h.group("ll")) for h in _HCA_RE.finditer(rest)]
            st["ib"] += hcas
            st["by_host"].setdefault(host or "", []).extend(hcas)
            o = _OOB_RE.search(rest)
            if o and "oob_iface" not in st:
                st["oob_iface"], st["oob_addr"] = o.group("iface"), o.group("addr")
        elif net == "Socket":
            st["sock"] += [SocketIface(x.group("iface"), x.group("addr")) for x in _SOCK_RE.finditer(rest)]
        return True
    m = _OLD_IFACE_RE.match(msg)  # NCCL 2.3-2.4: `NET : Using interface ib0:10.0.0.2<0>`, its sockets' interface
    if m:
        st["sock"].append(SocketIface(m.group("iface"), m.group("addr")))
        return True
    if msg.startswith(("NET/Plugin", "P2P plugin", "Successfully loaded external plugin")):
        st["plugin"].append(msg)
        return True
    m = _VIRTUAL_RE.match(msg)
    if m:
        st["virtual"].append(m.group("dev"))
        return True
    m = _P2P_OFF_RE.match(msg)
    if m:
        st["p2p_off"].append((int(m.group("a")), int(m.group("b"))))
        return True
    m = _BOOTSTRAP_RE.match(msg)
    if m:
        if "boot_iface" not in st:
            st["boot_iface"], st["boot_addr"] = m.group("iface"), m.group("addr")
        st["boot_by_host"].setdefault(host or "", (m.group("iface"), m.group("addr")))
        return True
    m = _NETWORK_RE.match(msg)
    if m:
        st["network"] = _network_name(m.group("net"))
        st.setdefault("by_net", {}).setdefault(host or "", st["network"])
        return True
    m = _FAILED_RE.match(msg)
    if m:
        st["failed"].append(m.group("net"))
        return True
    m = _ASSIGNED_RE.match(msg)
    if m:
        st.setdefault("assigned", _network_name(m.group("net")))
        return True
    m = _ENV_RE.match(msg)
    if m:
        val = m.group("val")
        st["env"][m.group("key")] = val[:-1] if val.endswith(".") else val
        return True
    return False


def _read_message(msg: str, host: str | None, st: dict) -> bool:
    """Read a message of NCCL into ``st``; whether any of it was read (False: nothing, whatever the host, so the same
    message need not be read again)."""
    # most lines of a log are "Channel ..." ones: no pattern of _read_setup reads one (each needs other words first,
    # an environment setting capitals up to its "_"), and _CHANNEL_RE reads no other
    if not msg.startswith(("Channel", "Ring ")) and _read_setup(msg, host, st):
        return True
    m = _CHANNEL_RE.match(msg)
    if m and m.group("via") in _CUT_VIA:  # a line cut inside its transport's name (`via P2`): no transport to count
        return False
    if m:
        direction = m.group("dir")
        st["channels"].append(NcclChannel(int(m.group("ch")), int(m.group("src")), int(m.group("dst")),
                                          classify_transport(m.group("via")), m.group("via"),
                                          "receive" if direction == "recv" else direction, host))
        if (ranks := _CHANNEL_RANKS_RE.search(m.group("via"))) is not None:  # NCCL 2.19+: `... comm 0x.. nRanks 32`
            st.setdefault("nranks", int(ranks.group(1)))
        return True
    if _RINGS_RE.match(msg):
        st["rings"] = True
        return True
    m = _GDR_RE.search(msg)
    if m:
        st["gdr" if m.group("on") != "Disabled" else "gdr_off"].append(m.group("dev"))
        return True
    m = _COMM_RE.search(msg)
    if m:
        st["nranks"], st["nnodes"] = int(m.group("n")), int(m.group("nodes"))
        st.setdefault("alone", []).append(m.group("local") == "1" and int(m.group("nodes")) > 1)
        return True
    m = _TOPO_GPU_RE.match(msg)
    if m:  # NCCL's topology dump: a GPU's paths (`GPU/50000 :GPU/0-4e000 (4/24.0/PHB) ...`), its NVSwitch link
        for p in _TOPO_PATH_RE.finditer(m.group("rest")):
            if p.group("type") != "LOC":
                st.setdefault("paths", {})[tuple(sorted((m.group("a"), p.group("b"))))] = (p.group("type"),
                                                                                           float(p.group("bw")))
        for n in _TOPO_NET_RE.finditer(m.group("rest")):
            st.setdefault("nets", {})[f"NET/{n.group('n')}"] = float(n.group("bw"))
        return True
    m = _AFFINITY_RE.match(msg)
    if m:
        seen = st.setdefault("affinity", {})  # the longest mask of a GPU: a line cut at the paste's end is shorter
        if len(m.group("mask")) > len(seen.get(int(m.group("gpu")), "")):
            seen[int(m.group("gpu"))] = m.group("mask")
        return True
    m = _TOPO_NVS_RE.search(msg)
    if m:
        st["nvswitch"] = max(st.get("nvswitch", 0.0), float(m.group("bw")))
        return True
    m = _NVLS_RE.search(msg)
    if m:
        st["nvls"] = max(st.get("nvls", 0), int(m.group("n")))
        return True
    m = _INIT_RE.match(msg)
    if m:
        st.setdefault("nranks", int(m.group("n")))
        st.setdefault("ranks_seen", set()).add(int(m.group("r")))
        gpu = _BUS_COMM_RE.search(msg)
        if gpu and host:  # one communicator's ranks on one host's GPU: NCCL refuses it (`Duplicate GPU detected`)
            st.setdefault("gpus", {}).setdefault((host, gpu["comm"], gpu["bus"]), set()).add(int(m.group("r")))
            if "- Init COMPLETE" in msg:
                st.setdefault("completed", set()).add((gpu["comm"], int(m.group("r"))))
        st["init_complete"] = st.get("init_complete", 0) + ("- Init COMPLETE" in msg)  # (Ray may add `[repeated Nx]`)
        return True
    m = _CHAIN_RE.match(msg)
    if m:
        st.setdefault("chain", (m.group("file"), int(m.group("line")), int(m.group("code")), st.get("just_warned")))
        st["boot_chain"] = st.get("boot_chain") or m.group("file").endswith("bootstrap.cc")
        st["progress_chain"] = st.get("progress_chain") or "[Progress Thread]" in msg
    if m or _TROUBLE_RE.search(msg):
        st["troubled"] = st.get("troubled", 0) + 1
        return True
    return False


def transport_verdict(log: NcclLog) -> str:
    """One word for how NCCL moved data: ``"NET/IB"``, ``"NET/Socket"``, ``"P2P"``, ``"SHM"``,
    another transport's name, ``"mixed: NET/IB+P2P"`` (several, in TRANSPORT_ORDER), or
    ``"unknown"``.

    Read from the channel lines. A log without channel lines falls back on the network NCCL
    chose (``Using network IB`` -> ``"NET/IB"``, ``Socket`` -> ``"NET/Socket"``), then on the
    ``NET/IB : Using [0]...`` / ``NET/IB: ... qpn ... GID`` (RDMA queue pairs) / ``NET/Socket : Using`` lines; but when the communicator had one
    node or one rank (``nNodes 1``), that network carried nothing and the verdict is
    ``"unknown"``. Pure; never raises.
    """
    used = log.transports
    if len(used) == 1:
        return used[0]
    if used:
        return "mixed: " + "+".join(used)
    if log.nnodes == 1 or log.nranks == 1:
        return "unknown"  # one node (or one rank): the network NCCL chose carried nothing between machines
    if log.network == "IB" or (log.network is None and (log.ib_devices or log.n_ib_connections)):
        return "NET/IB"
    if log.network == "Socket" or (log.network is None and log.socket_ifaces and not log.ib_devices):
        return "NET/Socket"
    if log.network:
        return f"NET/{log.network}"
    return "unknown"
