"""Judge of the interfaces a Spark cluster launcher picked (eugr/spark-vllm-docker ``launch-cluster.sh``;
grader.parsers.launcher), against how a Spark names its ConnectX-7 (grader.spark_names): ``IB_IF`` becomes
NCCL_IB_HCA in every container, so it should name the two twins of the QSFP port that ``ETH_IF`` is on, and nothing
of the other port (a device there leads to another machine or nowhere: NCCL may open a queue pair on it). Reported:
eugr/spark-vllm-docker issue #40 (all four devices detected with both ports cabled; the workaround was
``--ib-if rocep1s0f0,roceP2p1s0f0``).
"""

from __future__ import annotations

from ..parsers.launcher import LauncherPicks
from ..spark_names import QSFP_TWINS, qsfp_port, rdma_device_for
from .common import SPARK_RDMA, fail, fields_of, info, ok, on_spark, warn
from .context import context
from .model import Finding, Summary


_PORT_DEVICES = {port: tuple(rdma_device_for(t) for t in twins) for port, twins in QSFP_TWINS.items()}
"""QSFP port -> its two RoCE devices (``rocep1s0f0``, ``roceP2p1s0f0`` for port 0)."""


def _hca_findings(p: LauncherPicks) -> list[Finding]:
    """IB_IF against the port of ETH_IF, on a Spark pair (not said otherwise, and not a mesh: with both ports
    cabled to other Sparks, every Up device belongs in IB_IF)."""
    port = qsfp_port(p.eth_if) if p.eth_if else None
    mesh = p.mode == "mesh" or len(set(p.workers)) > 1 or (context().nodes or 2) > 2
    if mesh and p.ib_if:
        return [info(f"IB_IF {','.join(p.ib_if)} with {'the launcher in mesh mode' if p.mode == 'mesh' else 'more than two nodes'}: "
                     "each cabled port leads to another Spark, so every Up twin's device belongs in NCCL_IB_HCA; "
                     "check each port's twins are Up on every node (`ibdev2netdev`).")]
    if not p.ib_if or port is None or on_spark(None) is False:
        return [info(f"IB_IF {','.join(p.ib_if) or '(not shown)'}, ETH_IF {p.eth_if or '(not shown)'}: these become "
                     "NCCL_IB_HCA and the socket interface of every node; on a Spark pair both belong to the cabled "
                     "QSFP port.")] if p.ib_if or p.eth_if else []
    want = _PORT_DEVICES[port]
    fix = f"--ib-if {','.join(want)}"
    other = [d for d in p.ib_if if d not in want]
    lacking = [d for d in want if d not in p.ib_if]
    out = []
    if other and len(lacking) == len(want):  # all on another port than ETH_IF's: one finding, not two
        return [warn(f"IB_IF ({', '.join(p.ib_if)}) and ETH_IF ({p.eth_if}, QSFP port {port}) are on different ports: "
                     f"NCCL would move data over devices that do not lead where its sockets do. Use the twins of the "
                     f"cabled port on both: {fix} with --eth-if {p.eth_if}, or ETH_IF on the port IB_IF names.")]
    if other:
        where = sorted({qsfp_port(SPARK_RDMA[d]) for d in other if d in SPARK_RDMA})
        out.append(warn(f"IB_IF lists {', '.join(other)} besides QSFP port {port}'s twins: ETH_IF {p.eth_if} is on port "
                        f"{port}, whose RoCE devices are {' and '.join(want)}"
                        + (f"; {', '.join(other)} {'is' if len(other) == 1 else 'are'} on port "
                           f"{' and '.join(map(str, where))}, which leads to another machine or nowhere" if where else "")
                        + f". The launcher passes IB_IF to NCCL as NCCL_IB_HCA, so NCCL may open a queue pair there "
                        f"(a stall, or an `ibv_modify_qp` error). Name the devices yourself: {fix} (NCCL_IB_HCA="
                        f"{','.join(want)} where you launch by hand)."))
    if lacking:
        out.append(warn(f"IB_IF lacks {', '.join(lacking)}: QSFP port {port} is two twins, and NCCL moves data only "
                        f"over the devices it is given, about half the port with one. Use {fix}."))
    if not out:
        out.append(ok(f"IB_IF names both twins of QSFP port {port} ({', '.join(want)}), the port ETH_IF {p.eth_if} "
                      "is on."))
    return out


def summarise_launcher(p: LauncherPicks, command: str | None) -> Summary:
    findings = [fail(f"The launcher stopped: {e}") for e in p.errors] + _hca_findings(p)
    if p.local_ip and p.local_ip.startswith("169.254."):
        findings.append(warn(f"Local IP {p.local_ip} is link-local (169.254/16): such an address is picked again at "
                             "every boot, so the head's address moves; give the twins static addresses in netplan "
                             "(lesson 1)."))
    if p.head or p.workers:
        findings.append(info(f"Head {p.head or '(not shown)'}, worker{'s' if len(p.workers) != 1 else ''} "
                             f"{', '.join(p.workers) or '(none shown)'}."))
    return fields_of(p), findings
