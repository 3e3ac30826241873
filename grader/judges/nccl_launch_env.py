"""What a quoted launch command's NCCL settings say where the paste holds no NCCL log to show what NCCL did:
``NCCL_IB_DISABLE=1`` with ``NCCL_SOCKET_IFNAME`` naming an interface that only RDMA hardware has (an IPoIB ``ib*``,
or a port named with the physical-port suffix ``...np<N>`` that mlx5, bnxt_en and ice ports get, all RDMA-capable)
on a run across machines: NCCL then carries the data between them over TCP on that RDMA NIC, a few GB/s, with its
RDMA unused. A hedged warning: whether the NIC's RDMA device is there and works (``rdma link``) decides.
Source: https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html (NCCL_IB_DISABLE: "prevent the IB/RoCE
transport from being used by NCCL. Instead, NCCL will fall back to using IP sockets"); corpus zz010
(pytorch/pytorch#131781: torchrun --nnodes 2 with NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=enp162s0f1np1).
A paste with an NCCL log is left to that log's judge (grader.judges.nccl, which reads the transport it chose), and
a Spark's QSFP twins to the Spark rules (NCCL over sockets on a Spark pair is the course's own policy).
"""

from __future__ import annotations

import re
from typing import Any

from ..spark_names import QSFP_TWINS, is_qsfp_twin, qsfp_port, rdma_device_for
from .common import LINE_GBPS, SPARK_RDMA, hca_advice, on_spark, warn
from .context import context, spark_shown
from .model import Finding, Section

_IB_OFF_RE = re.compile(r"(?<![\w-])NCCL_IB_DISABLE[= ]{1,3}[\"']?1\b")
_IFNAME_RE = re.compile(r"(?<![\w-])NCCL_SOCKET_IFNAME[= ]{1,3}[\"']?(?P<names>[\w.,:^=-]{1,200})")
_NNODES_RE = re.compile(r"(?<!\S)--nnodes[= ](?P<n>\d{1,5})\b")
_HOSTS_RE = re.compile(r"(?<!\S)(?:-H|--host)[= ](?P<list>[^\s,]{1,200},[^\s]{1,2000})")
_RDMA_NAME_RE = re.compile(r"^ib\w{0,30}$|np\d{1,2}$")
_HCA_SET_RE = re.compile(r"^[ \t]{0,40}(?:export[ \t]{1,8}|ENV[ \t]{1,8})?NCCL_IB_HCA=[\"']?(?P<list>[^\s\"']{0,200})"
                         r"|(?<!\S)(?:-x|-e|--env)[ =]NCCL_IB_HCA=[\"']?(?P<opt>[^\s\"']{0,200})", re.M)


def _spans_machines(command: str) -> bool:
    nodes = context().nodes
    if nodes is not None:
        return nodes > 1
    m = _NNODES_RE.search(command)
    return bool(m and int(m.group("n")) > 1) or bool(_HOSTS_RE.search(command))


def launch_env(items: list[tuple[Section, Any]]) -> list[tuple[int, Finding]]:
    """The cross check registered: :func:`ib_disabled_on_rdma_nic` and :func:`one_spark_twin_in_ib_hca`."""
    return ib_disabled_on_rdma_nic(items) + one_spark_twin_in_ib_hca(items)


def one_spark_twin_in_ib_hca(items: list[tuple[Section, Any]]) -> list[tuple[int, Finding]]:
    """(index, warning) where a Spark paste with no NCCL log sets NCCL_IB_HCA (an ``export`` or ``ENV`` line, a
    ``NCCL_IB_HCA=`` line of its own, mpirun's ``-x``, docker's ``-e``) and every such setting names one RoCE
    device, one twin of a QSFP port: each twin is one PCIe x4 half of the port, so NCCL drives about half of the
    cable (what :func:`grader.judges.nccl.summarise_nccl_log` says where the log shows ``NET/IB : Using`` one
    device). Corpus ze001 (vllm-project/vllm#41725: ``export NCCL_IB_HCA=rocep1s0f0`` on two Sparks)."""
    if not items or any(s.kind in ("nccl-log", "nccl-tests") for s, _ in items):
        return []
    if not spark_shown():
        return []
    settings = [(m.group("list") or m.group("opt") or "").lstrip("=") for m in _HCA_SET_RE.finditer(context().paste)]
    if any(v.startswith("^") for v in settings):  # `^dev`: every device but those, so more than one
        return []
    devices = {tuple(d.split(":")[0] for d in v.split(",") if d) for v in settings}
    if len(devices) != 1 or len(dev := next(iter(devices))) != 1 or dev[0] not in SPARK_RDMA:
        return []
    twins = [rdma_device_for(t) or "" for t in QSFP_TWINS[qsfp_port(SPARK_RDMA[dev[0]]) or 0]]
    index = next((i for i, (s, _) in enumerate(items) if s.kind), 0)
    return [(index, warn(f"NCCL_IB_HCA={settings[0]} names one RoCE device, one twin of QSFP port "
                         f"{qsfp_port(SPARK_RDMA[dev[0]])}: each twin is one PCIe x4 half of the port, so NCCL drives "
                         f"about half of the cable's {LINE_GBPS} Gb/s. Set {hca_advice(twins)} so it drives both."))]


def ib_disabled_on_rdma_nic(items: list[tuple[Section, Any]]) -> list[tuple[int, Finding]]:
    """(index, warning) for the first quoted command that turns NCCL's RDMA off while pointing its sockets at an
    RDMA NIC's interface, for a run across machines; [] where the paste has an NCCL log or the host is a Spark."""
    if context().host == "spark" or any(s.kind in ("nccl-log", "nccl-tests") for s, _ in items):
        return []
    for index, (s, _) in enumerate(items):
        command = s.command or ""
        if not _IB_OFF_RE.search(command) or not (m := _IFNAME_RE.search(command)):
            continue
        if m.group("names").startswith("^"):  # an exclusion list (`^lo,docker0`): which interface NCCL takes is open
            continue
        names = [n.lstrip("=") for n in m.group("names").split(",")]
        rdma = [n for n in names if _RDMA_NAME_RE.search(n) and not (is_qsfp_twin(n) and on_spark(None) is not False)]
        if not rdma or len(rdma) < len(names) or not _spans_machines(command):
            continue
        said = ", ".join(rdma)
        return [(index, warn(
            f"The launch command sets NCCL_IB_DISABLE=1 with NCCL_SOCKET_IFNAME={m.group('names')}: NCCL's RDMA "
            "transport is off, so between the machines NCCL carries its data over TCP sockets, a few GB/s at best. "
            f"Yet {said} {'is' if len(rdma) == 1 else 'are'} named as an RDMA-capable NIC's interfaces are (an `ib*` "
            "IPoIB interface, or the `np<N>` port suffix of ConnectX, Broadcom and Intel E810 ports): the NIC's RDMA, "
            "if its device is there, goes unused. If `rdma link` (or `ibv_devices`) lists an RDMA device on it, unset "
            "NCCL_IB_DISABLE (NCCL_DEBUG=INFO then "
            "shows `NET/IB : Using ...`); keep it only where RDMA itself fails, and then find why."))]
    return []
