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
    named = [d for d in p.ib_if if d not in SPARK_RDMA]
    if named and all(d.startswith("mlx5_") for d in named):  # vllm-dgx-spark#7: `NCCL IB HCAs: mlx5_0,mlx5_2`
        return [info(f"IB_IF {','.join(p.ib_if)} names the RDMA devices by the mlx5_N scheme (as ibdev2netdev prints "
                     f"them where the rocep names are not used), ETH_IF {p.eth_if} (QSFP port {port}): the names alone "
                     f"do not say which port each is on; `ibdev2netdev` maps them, and both must be the twins of "
                     f"{p.eth_if}'s port ({' and '.join(QSFP_TWINS[port])}).")]
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
    return fields_of(p), findings + sparkrun_findings(p)


def sparkrun_findings(p: LauncherPicks) -> list[Finding]:
    """What sparkrun's run said of its plan (grader.parsers.launcher): the hosts it took, its own memory estimate, and
    where the output ends when it ends at a step's heading with nothing under it (spark-arena/sparkrun #208, #217)."""
    out = []
    if p.hosts_used:
        used, of, why = p.hosts_used
        out.append(info(f"sparkrun uses {used} of the {of} hosts of its cluster ({why})"
                        + (f": a {used}-node run." if used > 1 else ": a one-node run.")))
    est = dict(p.estimate)
    if "Mode" in est and not p.hosts_used:
        out.append(info(f"sparkrun's run mode: {est['Mode']}."))
    if "Per-GPU total" in est:
        fit = est.get("DGX Spark fit", "").upper()
        said = (f"sparkrun's own estimate: {est['Per-GPU total']} per GPU"
                + (f" (weights {est['Model weights']}" if "Model weights" in est else " (")
                + (f", KV cache {est['KV cache']}" if "KV cache" in est else "")
                + (f", tensor parallel {est['Tensor parallel']}" if "Tensor parallel" in est else "") + ")")
        out.append(warn(said + ", which by its own check does not fit a DGX Spark: lower the context or use more "
                        "nodes.") if fit.startswith("NO") else
                   info(said + (", which by its own check fits a DGX Spark." if fit.startswith("YES") else ".")))
    if p.last_step and not p.after_step and not p.errors:
        out.append(info(f"The output ends at sparkrun's step `{p.last_step}` with nothing under it and no error "
                        "before it: the paste stops there (cut, or the step still running), so what that step did "
                        "is not shown; sparkrun's lines after it would say."))
    return out
