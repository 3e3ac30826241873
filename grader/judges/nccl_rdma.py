"""What an NCCL log shows of the RDMA devices NCCL left unused where its traffic went over TCP sockets on a machine
that has them (an IPoIB ``ib0`` or an mlx5-style ``...np0`` interface): whether its own lines show the lookup
failing (the fault: fail) or RDMA turned off by the environment (a choice: said as such), for
:func:`grader.judges.nccl.summarise_nccl_log`'s transport findings.
"""

from __future__ import annotations

import re
from typing import Any

from .context import context

_RDMA_NETDEV_RE = re.compile(r"^ib\w*$|np\d+$")
_NO_VERBS_RE = re.compile(r"Failed to open libibverbs|libibverbs\S{0,40}: cannot open shared object", re.I)


def rdma_netdevs(log: Any) -> list[str]:
    """The interfaces of the log that only RDMA hardware has: IPoIB (``ib0``, ``ibp12s0``) or a ConnectX port named
    by the mlx5 driver's physical port suffix (``ens5f0np0``, ``enp1s0f1np1``). On such a machine NCCL over TCP sockets
    means it did not use the RDMA devices there, not that there are none."""
    names = [x.name for x in log.socket_ifaces] + [n for n in (log.bootstrap_iface, log.oob_iface) if n]
    return sorted({n for n in names if _RDMA_NETDEV_RE.search(n)})


def ib_off_by_env(log: Any) -> bool:
    """``NCCL_IB_DISABLE=1`` shown by the log (``NCCL_IB_DISABLE set by environment to 1.``)."""
    return log.env_settings.get("NCCL_IB_DISABLE", "").strip() == "1"


def lookup_failed(log: Any) -> str:
    """The log's own evidence that NCCL looked for the RDMA devices and could not reach them, as a phrase, or "":
    ``NET/IB : No device found``, ``Failed to open libibverbs`` (no rdma-core in the image), a failed IB net plugin,
    a fatal verbs call. An NCCL error of another kind (a CUDA OOM, a peer that exited) is no such evidence."""
    if ib_off_by_env(log):
        return ""
    if log.ib_no_device:
        return "NCCL found no RDMA device (`NET/IB : No device found`)"
    if _NO_VERBS_RE.search(context().paste or ""):
        return ("NCCL could not open libibverbs (`Failed to open libibverbs.so`: no rdma-core in this image or "
                "container; install it, e.g. `apt install ibverbs-providers libibverbs1`, or mount the host's)")
    if any(re.search(r"\bIB\b", p) for p in log.net_plugins_failed):
        return "NCCL's IB transport failed to start (`Failed to initialize NET plugin IB`)"
    if log.verbs_failures:
        return f"a verbs call failed ({log.verbs_failures[0][:80]})"
    return ""


def no_verbs_here(log: Any) -> bool:
    """Whether the log shows a machine with no RDMA stack and no RDMA port: NCCL could not open libibverbs (rdma-core
    is not installed) and none of its interfaces is named as only RDMA hardware names them (:func:`rdma_netdevs`).
    TCP sockets between such machines are what they have, not a fault NCCL shows (magnate3's two-node DDP notes,
    pending wf015: NCCL 2.7.8, `Failed to open libibverbs.so[.1]`, NET/Socket on eno2, training runs)."""
    paste = context().paste or ""
    return not rdma_netdevs(log) and not ib_off_by_env(log) and bool(_NO_VERBS_RE.search(paste)) \
        and not _ACTIVE_PORT_RE.search(paste)  # (an RDMA port up elsewhere in the paste: the host has one, break-it 25 F10)


_ACTIVE_PORT_RE = re.compile(r"^\s{0,12}State:\s{1,8}Active\b|\bstate ACTIVE physical_state LINK_UP\b|PORT_ACTIVE", re.M)
"""An RDMA port up, as ibstat, `rdma link` or ibv_devinfo prints it."""


def unused_rdma(log: Any) -> str:
    """A sentence naming the RDMA interfaces NCCL left unused and why, as far as the log shows, or ""."""
    seen, failed = rdma_netdevs(log), lookup_failed(log)
    if not seen:
        return ""
    head = f" This machine has RDMA hardware ({', '.join(seen)}: an InfiniBand or ConnectX interface by its name), "
    if failed:
        if log.ib_no_device:  # (the caller's reasons name `No device found` already)
            return head + "so NCCL could not reach its devices: that is the fault to fix."
        return head + f"so NCCL could not reach its devices: {failed}. That is the fault to fix."
    if ib_off_by_env(log):
        return head + ("but NCCL_IB_DISABLE=1 is set (the log says so), which turns RDMA off: TCP here is a choice; "
                       "unset it to use them.")
    return head + "yet NCCL did not use them: NCCL_IB_DISABLE=1, or an RDMA stack it could not open."
