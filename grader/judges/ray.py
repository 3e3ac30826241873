"""Judge of lesson 2b's Ray cluster: ``ray status`` (nodes, GPUs, pending placement groups and why they wait) and, on
Kubernetes (KubeRay), ``kubectl get pods`` (a pod that is not up: the Ray node in it may not have joined; with vLLM's
log waiting for its placement group in the same paste, a Ray pod whose containers have not started is why).

Sources of the figures in the messages: docs/research/procedure.md §3 (Ray on two Sparks), research/vllm_netns.md
(Ray on the simulated cluster); the node count is checks/ranges.toml's ``ray_node_count``.
"""

from __future__ import annotations

import re
from typing import Any

from ..parsers.common.stderr import RAY_LOG_RE
from ..parsers.ray_status import Demand, RayStatus
from ..parsers.common import command_argv, option_value
from .common import fail, fmt_count, info, machines_spanned, ok, on_spark, spark_figure, warn, whole
from .context import context, spark_shown
from .model import Finding, Section, Summary
from .ray_notes import all_held, own_head_unreached, spark_cores, spark_sized, started_note, group_over_total, loopback_note, node_notes, negative_usage, slow_start, stale_demand


GIB = 2 ** 30
OTHER_ACCELERATORS = ("TPU", "HPU", "NPU", "neuron_cores")
"""Ray's resource names of accelerators other than GPUs (Google TPU, Intel Gaudi, Ascend, AWS Neuron)."""
RAY_NODES = whole(spark_figure("ray_node_count"))
"""checks/ranges.toml [spark-pair.ray_node_count]: the nodes `ray status` lists for a Spark pair (L2.ray_nodes)."""


# --------------------------------------------------------------------------- ray status

def _gpus_per_node(st: RayStatus) -> set[float]:
    """The GPUs each node has: from the ``-v`` blocks, else the cluster's total over its nodes (an even split
    assumed); empty when the output does not say."""
    per = {u.resources["GPU"][1] for u in st.per_node if "GPU" in u.resources}
    if per:
        return per
    gpu, n = st.resources.get("GPU"), st.node_count
    return {gpu[1] / n} if gpu and n else set()


def _spark_like(st: RayStatus) -> bool | None:
    """Whether the cluster is what a Spark pair looks like to Ray: True when an ``accelerator_type:GB10``
    resource says so, False when another accelerator type or more than one GPU per node says it is not (a DGX Spark
    has one GB10 GPU), None when it cannot tell (one GPU per node: a Spark, or any one-GPU box; nodes of a Spark's size,
    :func:`grader.judges.ray_notes.spark_sized`, only shape the words and a warning)."""
    kinds = {k.split(":", 1)[1] for k in list(st.resources) + [k for u in st.per_node for k in u.resources]
             if k.startswith("accelerator_type:")}
    if kinds:
        return all("GB10" in k.upper() for k in kinds)
    per = _gpus_per_node(st)
    return False if any(g > 1 for g in per) else None


def _unsaid(st: RayStatus) -> bool:
    """Nothing says how many machines the cluster should have: no ``explain --nodes`` or ``--host spark`` (a Spark shown
    says which bars apply, not that a second was meant), and no pending demand asks for a GPU (a GPU workload waiting
    says what the cluster is for); then what a Spark pair needs is said as a condition, not as a fault."""
    c = context()
    return c.host != "spark" and c.nodes is None and not any(
        d.total("GPU") for d in st.demands) and not any("GPU" in str(d) for d in st.pending_demands)


def summarise_ray(st: RayStatus, command: str | None) -> Summary:
    def usage(res: dict[str, tuple[float, float]]) -> dict[str, dict[str, float]]:
        return {k: {"used": u, "total": t} for k, (u, t) in res.items()}

    gpu = st.resources.get("GPU")
    spark = on_spark(_spark_like(st))
    facts: dict[str, Any] = {
        "timestamp": st.timestamp, "nodes": st.node_count,
        "active_nodes": [{"node_id": n.node_id, "ip": n.ip, "count": n.count} for n in st.active_nodes],
        "idle_nodes": [{"node_id": n.node_id, "ip": n.ip, "count": n.count} for n in st.idle_nodes],
        "pending_nodes": [{"node_id": n.node_id, "ip": n.ip, "count": n.count, "status": n.status}
                          for n in st.pending_nodes],
        "failed_nodes": [{"node_id": n.node_id, "ip": n.ip, "status": n.status} for n in st.failed_nodes],
        "resources": usage(st.resources), "placement_groups": usage(st.placement_groups),
        "gpus_used": gpu[0] if gpu else None, "gpus_total": gpu[1] if gpu else None,
        "pending_demands": list(st.pending_demands),
        "demands": [{"bundles": [{"resources": b, "count": c} for b, c in d.bundles], "strategy": d.strategy,
                     "what": d.what, "gpus": d.total("GPU"), "node_anchors": list(d.node_anchors)}
                    for d in st.demands],
        "per_node": [{"node_id": u.node_id, "ip": u.ip, "node_type": u.node_type, "resources": usage(u.resources)}
                     for u in st.per_node],
        "node_ips": list(st.node_ips), "node_addresses": list(st.node_addresses),
        "gpus_per_node": sorted(_gpus_per_node(st)), "spark_like": spark, "excerpt": st.excerpt, "totals": st.totals,
    }
    findings: list[Finding] = []
    n = st.node_count
    if not st.excerpt or st.active_nodes:
        if n == RAY_NODES:
            findings.append(ok(f"Ray sees {n} nodes: the head and the worker have both joined the cluster."))
        elif n == 1 and context().nodes == 1:
            findings.append(info("Ray sees 1 node: a one-machine cluster, as this run is."))
        elif n == 1 and st.pending_nodes:  # the autoscaler is bringing the others up: not (yet) a node that failed
            pending = sum(p.count or 1 for p in st.pending_nodes)
            findings.append(warn(f"Ray sees 1 node, and {pending} more pending ("
                                 + ", ".join(sorted({p.status or "pending" for p in st.pending_nodes})) + "): the "
                                 "autoscaler is starting them" + (
                                     ", and its recent launches failed (below): it cannot start them; its log says why "
                                     "(/tmp/ray/session_latest/logs/monitor.*)." if st.failed_nodes else
                                     ". Run `ray status` again in a minute; nodes that stay pending point at the "
                                     "autoscaler's launch or its set-up of the instance (SSH, setup commands), not at a worker that "
                                     "could not join; this status cannot tell which: the monitor log (/tmp/ray/session_latest/logs/monitor.*) does.")))
        elif n == 1 and not (st.resources or st.totals or st.pending_demands or st.per_node or st.failed_nodes):
            findings.append(info("Ray lists 1 node, but the output stops inside its node list (no `Pending` or "  # xp019
                                 "`Resources` section after it): more nodes may be below the cut, so it cannot say "
                                 "whether the other node joined. Paste `ray status` whole."))
        elif n == 1 and _unsaid(st):
            findings.append(info("Ray sees 1 node: a one-machine cluster, unless the run should span more machines"
                                 + (" (a Spark pair's two)" if spark is None and context().host is None else "") + ": then the other has "
                                 "not joined (start it with `ray start "
                                 "--address=<head IP>:6379`). Nothing here says which: `explain --nodes N` does."))
        elif n == 1:
            spark_said = bool(spark or spark_shown())  # (a Spark pair's words only where a Spark is said or shown)
            other = "the second Spark" if spark_said else "the other node"
            findings.append(fail(f"Ray sees only 1 node: {other} has not joined. On it, start the worker "
                                 "against the head's address on the fast link ("
                                 + ("a Spark's QSFP address: " if spark_said else "")
                                 + "`ray start --address=<head IP>:6379 --node-ip-address=<its own IP>`, or "
                                 "run_cluster.sh ... --worker), check that it can reach that address (`ping`), and "
                                 "give `ray status` ~10 s to catch up."))
        elif n == 0:
            findings.append(fail("Ray lists no active node: the cluster is not (yet) up; start the head with "
                                 "`ray start --head --node-ip-address=<head IP on the fast link>`."))
        else:
            findings.append(info(f"Ray sees {n} nodes" + (f"; a Spark pair has {RAY_NODES}." if spark is not False
                                                          else ".")))
    pending_pg = [d for d in st.demands if d.what == "placement group" or d.strategy]
    findings += _ray_gpu_findings(st, gpu, n, spark, bool(pending_pg)) + negative_usage(st) + group_over_total(st)
    cpu = st.resources.get("CPU")
    mem = st.resources.get("memory")
    if cpu or mem:
        parts = []
        if cpu:
            pg = st.placement_groups.get("CPU")
            parts.append(f"CPUs {fmt_count(cpu[0])}/{fmt_count(cpu[1])} in use" + (
                f" ({fmt_count(pg[0])} used of {fmt_count(pg[1])} reserved in placement groups: an actor or job holds "
                "them)" if pg and pg[1] else ""))
        if mem:
            parts.append(f"memory {mem[0] / GIB:.2f}/{mem[1] / GIB:.2f} GiB")
        obj = st.resources.get("object_store_memory")
        if obj:
            parts.append(f"object store {obj[1] / GIB:.2f} GiB")
        cores = spark_cores() if spark is not False else None
        findings.append(info("Ray resources: " + ", ".join(parts)
                             + (f" (two Sparks report {2 * cores:g} CPUs, {cores:g} each)." if cores else ".")))
    for d in st.demands:
        findings += _demand_findings(st, d, gpu, spark)
    for node in st.failed_nodes:
        where = f" ({node.ip})" if node.ip else ""
        findings.append(warn(f"Recent failure: {node.node_id}{where} {node.status or 'failed'}: a node left or "
                             "could not start; check its `ray start` output (a wrong --node-ip-address times out)."))
    for node in st.pending_nodes:
        findings.append(info(f"Pending node: {node.node_id}{f' ({node.ip})' if node.ip else ''}, {node.status}."))
    for u in st.per_node:
        g, c = u.resources.get("GPU"), u.resources.get("CPU")
        bits = [f"GPU {fmt_count(g[0])}/{fmt_count(g[1])}" if g else "no GPU", f"CPU {fmt_count(c[0])}/{fmt_count(c[1])}" if c else None]
        findings.append(info(f"Node {u.node_id}{f' ({u.ip})' if u.ip else ''}: " + ", ".join(b for b in bits if b) + "."))
    if st.totals and not st.resources:
        findings.append(info("Totals only, without their use (a status shortened by hand): " + ", ".join(
            f"{fmt_count(v)} {k}" if k in ("CPU", "GPU") else f"{v / GIB:.2f} GiB {k}" for k, v in st.totals.items())
                             + "."))
    quiet = _all_quiet(st, findings)
    if quiet:
        findings.append(ok(quiet))
    if st.excerpt:
        findings.append(info("This is an excerpt of `ray status` (" + ("no `Autoscaler status` header: its first lines "
                             "cut), run it in full." if st.active_nodes else "no header or node list): run it in full to "
                             "see the nodes.")))
    if unread := [x for x in st.unread if not RAY_LOG_RE.match(x)]:  # (Ray's own log lines: read for known faults)
        findings.append(info(f"{len(unread)} line(s) around the status are not part of it and were not read."))
    return facts, findings


def _all_quiet(st: RayStatus, findings: list[Finding]) -> str | None:
    """The words for a status whose reading found nothing wrong, or None: the node list, its ``Pending`` and
    ``Recent failures`` blocks and the demands were all read and empty, and no finding warns (blind batch wa017: a
    careful reader says it is healthy and idle; one of CPUs only, blind batch wb007, has no failures but is not called
    healthy, corpus zo006: whether a model was meant to run there the status cannot tell)."""
    if st.excerpt and not st.active_nodes or not st.node_count or st.pending_nodes or st.failed_nodes or st.pending_demands \
            or not {"pending", "failures"} <= set(st.sections) or not st.resources \
            or any(f.level in ("warn", "fail") for f in findings):
        return None  # (a status cut before its Demands: said so, as far as it goes)
    cpus_only, shown = not any(st.resources.get(k, (0, 0))[1] for k in ("GPU",) + OTHER_ACCELERATORS), "demands" in st.sections
    return (f"{'No failures (of a cluster of CPUs only)' if cpus_only else 'Healthy' if shown else 'Healthy as far as shown'}: all {st.node_count} node(s) up, nothing pending (no node launching"
            + (", no resource demand waiting" if shown else "") + "), no recent failures" + ("; idle: no resource in use" if _idle(st) else "")
            + ("." + all_held(st) if shown else "; the `Demands` section (resource requests waiting) is not in the paste."))


def _idle(st: RayStatus) -> bool:
    return all(used == 0 for name, (used, _) in st.resources.items() if not name.startswith(("node:", "accelerator")))


_SPREAD_FIX = ("VLLM_DISTRIBUTED_EXECUTOR_CONFIG='{\"placement_group_options\":{\"strategy\":\"SPREAD\"}}' "
               "(eugr/spark-vllm-docker#227)")


def _demand_findings(st: RayStatus, d: Demand, gpu: tuple[float, float] | None, spark: bool | None) -> list[Finding]:
    """What one pending demand means. A placement group (vLLM's: one ``{'GPU': 1}`` bundle per TP x PP worker,
    the first pinned to the driver's node by ``node:<its IP>``) waits for one of: too few GPUs in the cluster,
    GPUs held by another model, or an anchor no Ray node carries (the driver's IP, VLLM_HOST_IP or what
    get_ip() picks, is not the IP the node joined Ray with). Only a cause the status does not rule out is
    offered: with every requested GPU free, it is not a GPU shortage."""
    quoted = d.text if len(d.text) <= 200 else d.text[:197] + "..."
    if d.what != "placement group" and not d.strategy:
        if d.total("GPU") and gpu is None and not st.excerpt:
            return [warn(f"Pending demand `{quoted}`: it asks for a GPU and no node of this cluster has one, so it "
                         "waits until a node with a GPU joins (`ray start` with its GPU visible).")]
        cpu = st.resources.get("CPU")
        if d.complete and d.bundles and set().union(*(b for b, _ in d.bundles)) <= {"CPU"} and cpu and cpu[0] >= cpu[1]:
            return [info(f"Pending demand `{quoted}`: tasks queued for CPUs while all {fmt_count(cpu[1])} are busy; they "
                         "run as CPUs free up (a backlog, not a fault).")]
        one_node = _task_beyond_one_node(st, d, gpu)
        if one_node:
            return [fail(f"Pending demand `{quoted}`: {one_node}")]
        if d.total("GPU") and gpu is not None and gpu[1] and gpu[0] >= gpu[1]:
            return [warn(f"Pending demand `{quoted}`: it asks for a GPU and all {fmt_count(gpu[1])} of the cluster's "
                         "are in use, so it waits until one is freed. If what holds them is the same job (an actor "
                         "pool larger than the GPUs, a second model), that is never: give it fewer actors or GPUs "
                         "than the cluster has, or add a node.")]
        stale = stale_demand(st, d, quoted)
        return stale or [warn(f"Pending demand `{quoted}`: Ray cannot place it with the resources it has. Whatever "
                              "asked for it waits; check which node lacks the resource.")]
    big = _bundle_too_big(st, d)
    if big:
        name, asked, per = big
        return [fail(f"Pending placement group `{quoted}`: one bundle asks for {fmt_count(asked)} {name}, and a bundle must "
                     f"fit on a single node, while each node has {per} {name}: it can never be placed, however much "
                     "the cluster has in total. Ask for at most one node's share per bundle (more bundles, each "
                     "smaller), or add a node that has that much.")]
    want = d.total("GPU")
    if not want:
        return [warn(f"Pending placement group `{quoted}`: Ray cannot place it with the resources it has (it asks for "
                     "no GPU, so it is not vLLM's). Paste `ray status -v` to see which node lacks what.")]
    head = (f"Pending placement group `{quoted}`: {fmt_count(want)} GPU(s) asked for (as vLLM's placement group asks, one "
            "bundle per TP x PP worker; `vllm serve` waits for it, up to 1800 s, instead of failing).")
    if gpu is None and st.resources:
        return [warn(head + " Ray reports no GPU at all (above): that is why it waits.")]
    if not d.complete or gpu is None:
        return [warn(head + " The status does not show why it waits: paste `ray status -v` and `ray list nodes`.")]
    used, total = gpu
    free = total - used
    if want > total:
        return [fail(head + f" The cluster has only {fmt_count(total)} GPU(s): lower --tensor-parallel-size x "
                     "--pipeline-parallel-size to what Ray has, or join the missing node(s).")]
    if want > free:
        return [warn(head + f" Only {fmt_count(free)} of {fmt_count(total)} GPU(s) are free: another model (its placement "
                     "group) holds the rest. Stop it, or run the second model on its own Ray cluster.")]
    not_shortage = f" All {fmt_count(want)} requested GPU(s) are free ({fmt_count(free)} of {fmt_count(total)}): this is not a GPU shortage."
    known = st.node_addresses
    for anchor in d.node_anchors:
        if anchor in known:
            continue
        if not re.fullmatch(r"[\d.]+|[0-9A-Fa-f:]+:[0-9A-Fa-f:]*", anchor):  # not an IP: a host name
            why = (f" The first bundle is pinned to `node:{anchor}`, a host name: Ray names each node "
                   "`node:<its IP>`, so no node can ever carry it. vLLM took the driver's address from the host name "
                   "(VLLM_HOST_IP, or what get_ip() resolved) instead of the IP the node joined Ray with.")
        elif known:
            why = (f" The first bundle is pinned to `node:{anchor}` (the driver node's IP as vLLM sees it: "
                   f"VLLM_HOST_IP or get_ip()), but Ray's nodes are {', '.join(known)}: no node carries it.")
        else:
            why = (f" The first bundle is pinned to `node:{anchor}` (the driver node's IP as vLLM sees it: "
                   "VLLM_HOST_IP or get_ip()); with the GPUs free, the likely cause is that no Ray node has that IP. "
                   "Confirm with `ray list nodes` (or `ray status -v`): the driver's node must be listed under "
                   f"{anchor}.")
        return [fail(head + not_shortage + why + " Fix: on each node set VLLM_HOST_IP to the IP that node gave "
                     "`ray start --node-ip-address` (the same address on the same network), restart Ray and vLLM; "
                     "or let the group spread: " + _SPREAD_FIX + ".")]
    per = _gpus_per_node(st)
    if d.strategy in ("PACK", "STRICT_PACK") and per and max(per) <= 1 and want > 1:
        return [fail(head + not_shortage + f" It asks to PACK {fmt_count(want)} GPUs, and each node has one GPU: vLLM's PACK "
                     "group with its node anchor has been seen to stay pending on one-GPU nodes (Sparks). Fix: "
                     + _SPREAD_FIX + ", and check that VLLM_HOST_IP equals each node's Ray IP.")]
    nodes, wanted = len(st.active_nodes) + len(st.idle_nodes), sum(c for _, c in d.bundles)
    if d.strategy == "STRICT_SPREAD" and nodes and wanted > nodes and not st.pending_nodes:  # (break-it 27 F8)
        return [fail(head + f" STRICT_SPREAD puts each of its {wanted} bundles on a different node and the cluster has "
                     f"{nodes}, none being added: it can never be placed. Ask for at most {nodes} bundles, or SPREAD "
                     "(best effort) or PACK, or add nodes.")]
    return [warn(head + not_shortage + " Paste `ray status -v` and `ray list nodes` to see which resource no node "
                 "has (a custom resource, or memory).")]


def _task_beyond_one_node(st: RayStatus, d: Demand, gpu: tuple[float, float] | None) -> str | None:
    """Why a task's or actor's GPU demand (one bundle, not a placement group) can never run, or None: Ray places a task
    on one node, so a demand the cluster's free GPUs cover in total, still pending over two or more nodes, is larger
    than any one node's free GPUs; where it asks for no more than the free GPUs over the nodes, some node has that
    many (so something else keeps it waiting: not said here)."""
    nodes = len(st.active_nodes) + len(st.idle_nodes)
    asked = d.total("GPU")
    if not (d.complete and len(d.bundles) == 1 and asked and gpu and nodes > 1):
        return None
    free = gpu[1] - gpu[0]
    if free < asked or asked <= free / nodes:  # some node has free / nodes or more: then something else holds it
        return None
    per = [u.resources["GPU"][1] for u in st.per_node if "GPU" in u.resources]  # `ray status -v`'s own figures
    each = f"each node has at most {fmt_count(max(per))}" if per else f"none of the {nodes} nodes has that many"
    return (f"one task or actor asks for {fmt_count(asked)} GPUs, and Ray runs a task or actor on a single node. "
            f"{fmt_count(free)} GPUs are free across {nodes} nodes, and it still waits: {each}, so it can never be "
            "placed. Ask for at most one node's GPUs per task or actor (split the work: several workers of fewer "
            "GPUs, or a placement group of 1-GPU bundles, as vLLM uses).")


def _bundle_too_big(st: RayStatus, d: Demand) -> tuple[str, float, str] | None:
    """``(resource, amount, what each node has)`` of a bundle no single node can hold, or None. A node's share is read
    from the ``-v`` blocks (the largest node's), else, for CPUs, from the cluster's total over its nodes: a Ray node
    has at least one CPU, so two nodes with 2 in all have 1 each (GPUs may sit all on one node: not inferred)."""
    for bundle, _ in d.bundles:
        for name, asked in bundle.items():
            if name.startswith("node:") or name in ("memory", "object_store_memory") or not asked:
                continue
            per = [u.resources[name][1] for u in st.per_node if name in u.resources]
            if per and asked > max(per):
                return name, asked, f"at most {fmt_count(max(per))}"
            total, n = st.resources.get(name), st.node_count
            if name == "CPU" and not per and total and n > 1 and total[1] / n == 1 and asked > 1:
                return name, asked, "1"
    return None


def _ray_gpu_findings(st: RayStatus, gpu: tuple[float, float] | None, nodes: int, spark: bool | None,
                      pending: bool) -> list[Finding]:
    if gpu is None:
        if not st.resources:  # no usage line at all: the paste stops before Ray's Resources section
            return []
        other = [k for k in OTHER_ACCELERATORS if st.resources.get(k, (0, 0))[1]]
        if other:  # blind batch wa017: a TPU pod's cluster: accelerators, just not GPUs
            return [info("Ray reports no GPU, and " + ", ".join(f"{fmt_count(st.resources[k][1])} {k}" for k in other)
                         + ": accelerators of another kind, as a TPU pod has by design (JAX or PyTorch/XLA work "
                         "runs on it), not GPUs gone missing, unless these machines hold NVIDIA GPUs that Ray "
                         "registered as something else (`nvidia-smi` on a node tells). vLLM's GPU executor does not "
                         "place a model on it.")]
        if (unsaid := spark is None and not spark_shown() and _unsaid(st)) and spark_sized(st):
            return [warn("Ray reports no GPU, on nodes of a DGX Spark's size as Ray counts it (its CPU cores and "
                         "unified memory: checks/specs/gpus.toml [dgx_spark]): if they are Sparks, Ray was started without their GPUs (in a container, pass "
                         "`--gpus all`) and vLLM's Ray executor, one GPU per worker, cannot place a model; if they are "
                         "CPU-only machines, that is what they have (`explain --host spark|other` says which).")]
        if spark is False or unsaid:
            return [info("Ray reports no GPU: a CPU-only cluster (no node offers a `GPU` resource), so vLLM's Ray "
                         "executor, one GPU per worker, cannot place a model on it." + (
                             " If these machines have GPUs (a DGX Spark does: `explain --host spark`), Ray was "
                             "started without them: in a container pass `--gpus all`." if spark is None else ""))]
        return [fail("Ray reports no GPU: vLLM's Ray executor asks for one GPU per worker, so `vllm serve "
                     "--distributed-executor-backend ray` would wait for a placement group that never comes. Start "
                     "the containers with `--gpus all`" + (" (as on the Sparks)" if spark is not False else "")
                     + "; on the CPU-only sim cluster start each Ray node with `--num-gpus=1` (a fake resource the "
                     "platform plugin uses).")]
    used, total = gpu
    pg = st.placement_groups.get("GPU")
    out = []
    if nodes and total < nodes and spark is not False:  # a Spark pair: each node brings its one GPU
        out.append(warn(f"Only {fmt_count(total)} GPU(s) for {nodes} nodes: a node joined without its GPU (container "
                        "without `--gpus all`, or on the sim cluster `ray start` without `--num-gpus=1`)."))
    elif nodes and total < nodes:
        out.append(info(f"{fmt_count(total)} GPU(s) across {nodes} nodes: some nodes offer none, CPU-only nodes by "
                        "design or a node that joined without its GPU (`ray status -v` lists each node's resources)."))
    if used == 0 and pending:
        out.append(info(f"GPUs {fmt_count(used)}/{fmt_count(total)} in use: all {fmt_count(total)} are free, yet a placement group "
                        "is pending (see below)."))
    elif used == 0:
        out.append(ok(f"GPUs {fmt_count(used)}/{fmt_count(total)} in use: all {fmt_count(total)} "
                      f"GPU{'s are' if total != 1 else ' is'} free, so TP x "
                      f"PP up to {fmt_count(total)} can be placed"
                      + (" (NVIDIA's playbook: 2 nodes with available GPU resources)." if spark is not False else ".")))
    elif used >= total:
        held = f" ({fmt_count(pg[0])} used of {fmt_count(pg[1])} reserved in placement groups)" if pg else ""
        out.append(info(f"GPUs {fmt_count(used)}/{fmt_count(total)} in use{held}: something holds them all (a "
                        "model's placement group, as vLLM's, or a job's actors). That is expected while serving; a "
                        "second model on this Ray cluster would wait for ever."))
    else:
        out.append(info(f"GPUs {fmt_count(used)}/{fmt_count(total)} in use: some are taken; a TP x PP of "
                        f"{fmt_count(total)} would wait until they are free."))
    return out


# --------------------------------------------------------------------------- kubectl get pods (KubeRay, vLLM on Kubernetes)

def placement_group_and_pods(items: list[tuple[Section, Any]]) -> list[tuple[int, Finding]]:
    """vLLM waiting for its placement group while a Ray pod of the same paste has not started its containers (its
    init containers running, Pending, ContainerCreating): the Ray node in it has not joined, so its GPUs are not in
    the cluster and the group cannot form until it runs."""
    waits = [(i, e) for i, (s, parsed) in enumerate(items) if s.kind == "vllm-log" and parsed is not None
             for e in parsed.log.events if e.kind == "pg-wait"]
    idle = [p for s, parsed in items if s.kind == "kubectl-pods" and parsed for p in parsed
            if "ray" in p.name.lower() and not p.failed and p.status != "Running" and not p.up]
    if not waits or not idle:
        return []
    index, event = waits[-1]
    seconds = event.numbers.get("seconds")
    return [(index, fail(
        f"vLLM is waiting for its placement group{f' ({seconds} s so far)' if seconds else ''} while "
        + ", ".join(f"{p.name} ({p.status}, after {p.age})" for p in idle)
        + f" ha{'ve' if len(idle) > 1 else 's'} not started {'their' if len(idle) > 1 else 'its'} containers: the Ray "
        "node in such a pod has not joined, so its GPUs are not in the cluster and the group cannot form until it "
        "runs; vLLM hangs until then, or until its placement-group timeout. Fix: `kubectl describe pod "
        f"{idle[0].name}` (its events and init containers say what it waits for: an image pull, a volume, GPUs the "
        "node cannot schedule), then `ray status` must show every node's GPU before vLLM starts."))]


# --------------------------------------------------------------------------- ray start

def _unexpanded(value: str) -> bool:
    """A value as the person typed it, before the shell expanded it (``$VLLM_HOST_IP``, a backquoted command)."""
    return "$" in value or "`" in value


def _traceback_finding(func: str | None, exception: str | None, address: str | None) -> Finding:
    """A Python traceback in what ``ray start`` printed: the step of Ray's that raised (``func``), its exception line,
    and what waiting on the head's Redis (Ray before 1.11 kept the cluster's state there, on the head's port 6379) or
    its GCS means."""
    where = f" in `{func}`" if func else ""
    said = f"`{exception}`" if exception else "the exception line is not in the paste"
    waited = ("the head's Redis (where Ray before 1.11 keeps the cluster's state, on the head's port)" if func and
              "redis" in func.lower() else "the head's GCS" if func and "gcs" in func.lower() else None)
    return fail(f"Ray raised an exception{where} ({said})"
                + (f": waiting for {waited}" + (f" at {address}" if address else "") + " failed. The head must be running and reachable there from this node: `ping` it and `nc -zv` its "
                   "port, open the firewall between the nodes (on Windows, Windows Defender Firewall), and use the "
                   "same Ray version on both." if waited else
                   ": the start did not complete. The exception line (the traceback's last line) and "
                   "/tmp/ray/session_latest/logs/ say why."))


def summarise_ray_start(rs: Any, command: str | None) -> Summary:
    """What ``ray start`` printed (grader.parsers.ray_start.RayStart), judged: an error that stopped it fails, a node
    that registered only after retries warns, a start is said with the node IP Ray chose (on a Spark pair it must be
    the QSFP twin's address: procedure.md §3.2). Ray's object store in /tmp is checks/diagnoses.toml's
    (ray-object-store-in-tmp), said beside these."""
    findings: list[Finding] = []
    spark = on_spark(None)
    role = "head" if rs.head or (command and "--head" in command) else \
        "worker" if command and "--address" in command else None
    argv = command_argv(command)
    head_addr = option_value(argv, "--address")
    head_addr = None if head_addr and _unexpanded(head_addr) else head_addr  # `--address=$HEAD:6379` as typed
    no_host = head_addr is not None and (not head_addr or head_addr.startswith(":")) \
        or bool(rs.gcs_unreachable and rs.gcs_unreachable.startswith(":"))  # `--address=:6379`: a variable was empty
    if no_host:
        findings.append(fail(f"The head's address has no host (`--address={head_addr or rs.gcs_unreachable}`): the "
                             "variable that should hold it (e.g. $MASTER_ADDR, $HEAD_IP) was empty when the command "
                             "ran, so Ray dialled nothing. Set it to the head's address and start again."))
    elif rs.gcs_unreachable:
        findings.append(own_head_unreached(rs) or fail(f"This node{' (' + rs.local_ip + ')' if rs.local_ip else ''} could not reach the head's "
                             f"GCS at {rs.gcs_unreachable}: on the head, `ray "
                             "start --head` must be running and listening there (its `Local node IP`); from this node "
                             f"`ping` that address and `nc -zv {rs.gcs_unreachable.replace(':', ' ')}`; both nodes "
                             "need the same Ray version, and no firewall between them"
                             + (" (on a Spark pair: the head's QSFP address)" if spark else "")
                             + ". A head it reaches only far away (another region, a round-trip time of hundreds of "
                             "ms) outlasts the GCS client's connection timeout too: Ray's nodes belong on one "
                             "low-latency network."))
    if rs.already_running:
        at, running = rs.already_running
        findings.append(fail(f"Ray already runs here ({running}), so this `ray start` at {at} stopped: `ray stop` "
                             "first (or use the running instance: `ray status` shows it)."))
    if rs.subprocesses_exited:
        died = ", ".join(f"{p} (exit code {c})" for p, c in rs.exited) or "see the lines below it"
        logs = ", ".join(f"{p}.err" for p, _ in rs.exited[:3]) or "raylet.err and gcs_server.err"
        findings.append(fail(f"Ray's own processes exited right after starting: {died}. Their logs say why: "
                             f"/tmp/ray/session_latest/logs/{logs} (" + (
                                 "a port in use, an address not of this machine given to --node-ip-address, or out of "
                                 "memory)." if not rs.exited or {"raylet", "gcs_server"} & {p for p, _ in rs.exited}
                                 else "for a helper in Python, such as the dashboard's reporter: a package it needs "
                                 "missing from this image, or a port in use).")
                             + (" Ray then killed the rest of its processes (`Killing remaining processes`): their "
                                "ends after it (a SIGTERM, Redis's `User requested shutdown`) are that teardown, not "
                                "the cause." if rs.killed_rest else "")))
    if rs.traceback and (rs.traceback[1] or "").split(":")[0].endswith("KeyboardInterrupt"):
        findings.append(info("Stopped with Ctrl-C (KeyboardInterrupt)" + (": the start had completed, and `--block` kept "
                             "Ray in the foreground until then; Ray stops with it." if rs.started else
                             " before the start completed.")))
    elif rs.traceback:
        findings.append(_traceback_finding(*rs.traceback, head_addr or rs.join_address))
    if rs.ip_mismatch:
        ip, gcs, raylets = rs.ip_mismatch
        findings.append(fail(f"No Ray node runs at this machine's address {ip}"
                             + (f" (the GCS at {gcs} knows raylets at {raylets} only)" if gcs and raylets else "")
                             + ": this process reached the cluster from a machine where no `ray start` runs, or "
                             "that node registered under another address. Run `ray start --address=<head>:6379` here "
                             "with `--node-ip-address=<this machine's address on the link the nodes share>`"
                             + (" (the QSFP twin's)" if spark else "") + ", then `ray status` on the head."))
    if rs.raylet_not_found and not rs.ip_mismatch:  # blind batch xg012, corpus zk005: Ray logs it at INFO level
        findings.append(warn(
            f"While starting, Ray had not yet found a raylet at this node's address {rs.raylet_not_found}: Ray logs "
            "this at INFO level while the node's raylet registers, and it clears by itself; it matters only if the "
            "node registered under another address (several interfaces, a container). The paste cannot decide"
            + (" (Ray started in the end)" if rs.started else "") + ": `ray status` (or `ray list nodes`) on the "
            f"head would, listing this node with {rs.raylet_not_found} or not. If it is missing, start it again with "
            "`--node-ip-address=<the address the nodes share>`."))
    asked = option_value(argv, "--node-ip-address")
    if asked and rs.local_ip and asked != rs.local_ip and not _unexpanded(asked):
        findings.append(warn(f"`--node-ip-address={asked}` was asked for, but Ray took {rs.local_ip}: "
                             + ("a loopback address is never kept (no other node could reach it); " if
                                asked.startswith("127.") else "") + "give the address of the link the nodes share."))
    if head_addr and head_addr.startswith(("127.", "localhost")) and rs.gcs_unreachable:
        findings.append(info(f"`--address={head_addr}` names this machine itself: Ray dialled "
                             f"{rs.gcs_unreachable} instead (this machine's own address), where no head runs. A "
                             "worker joins with the head's address, not 127.0.0.1."))
    if (rs.gcs_rpc_failures or rs.gcs_unavailable) and not rs.gcs_unreachable:
        said = [f"`Failed to send request to gcs` {rs.gcs_rpc_failures} time{'' if rs.gcs_rpc_failures == 1 else 's'}"
                if rs.gcs_rpc_failures else "", "gRPC UNAVAILABLE" if rs.gcs_unavailable else ""]
        findings.append(fail(f"Requests to the head's GCS failed ({', '.join(x for x in said if x)})"
                             + (f" at --address={head_addr}" if head_addr else "") + ": the head is not reachable "
                             "there (not started, another port, a firewall, or another Ray version)."))
    where = f" on node IP {rs.local_ip}" if rs.local_ip else ""
    if rs.started:
        findings.append(started_note(rs, role, where, context().nodes, findings))
    if rs.retries == 1 and not slow_start(rs):
        findings.append(info("Ray asked the GCS once more for this node's registration (`Retrying to get node with "
                             "node ID`): it polls each second while the node's raylet registers, so one retry is "
                             "normal" + (", and it started." if rs.started else ".")))
    elif rs.retries:
        findings.append(warn(f"The node registered with the head's GCS only after {rs.retries} retr"
                             f"{'y' if rs.retries == 1 else 'ies'} (`Retrying to get node with node ID`){where}"
                             + (f", {rs.took_s:.1f} s after it chose its IP" if slow_start(rs) else "")
                             + (": it started in the end" if rs.started else "") + ". Slow registration means the "
                             "head answers slowly or the nodes reach each other badly: check the address given to "
                             "--address and --node-ip-address, a firewall between the nodes, and `ray status` on "
                             "the head."))
    if rs.local_ip and rs.local_ip.startswith("127."):
        given, spanned = (option_value(command_argv(command), "--node-ip-address") or "").startswith("127."), machines_spanned(None)
        alone = role != "worker" and (spanned == 1 and (not rs.join_address or given) or given and spanned is None)  # wv001, b-i 23 p01, 25 N2
        findings.append(loopback_note(rs.local_ip, alone, head_addr if role == "worker" else None, given))
    elif rs.local_ip and rs.local_ip.startswith("172.17.0.") and (spanned := machines_spanned(None)) != 1 \
            and not option_value(argv, "--node-ip-address"):  # (one given on purpose: a LAN of that range)
        # blind batch zv007 (ray#11211): a head in a container on Docker's default bridge
        findings.append((fail if spanned else warn)(
            f"Ray's node IP is {rs.local_ip}, an address of Docker's default bridge (172.17.0.0/16): the container's "
            "own, which no other machine can reach, so a node elsewhere cannot join this one. Run the container "
            "with `--network host` (NVIDIA's run_cluster.sh does), or give `--node-ip-address` the host's address "
            "and publish Ray's ports."))
    elif rs.local_ip:
        findings.append(info(f"Ray's node IP is {rs.local_ip}: the address the other node reaches this one at"
                             + (", which on a Spark pair must be this node's QSFP twin address (`--node-ip-address`), "
                                "or Ray's and vLLM's traffic goes over another network; `ip -br addr` shows which "
                                "interface holds it." if spark is not False else ".")))
    if rs.stopped is not None:
        done, found = rs.stopped
        findings.append((warn if done < found else info)(
            "`ray stop` found no Ray process here." if not found else
            f"`ray stop` stopped {done} Ray process{'es' if done != 1 else ''}" + (
                f" of {found}: the rest outlived its grace period; `ray stop --force` ends them." if done < found else
                ": Ray ran here (or what a failed start left); start it again with `ray start`.")))
    if not rs.started and rs.stopped is None and not rs.gcs_failed and not any(f.level in ("warn", "fail") for f in findings):
        findings.append(info("No `Ray runtime started.` line in the paste: cut off, or Ray was still starting"
                             + ("; nothing wrong in what it printed up to there." if findings else ".")))
    facts = {"local_ip": rs.local_ip, "started": rs.started, "role": role, "join_address": rs.join_address,
             "blocking": rs.blocking, "retries": rs.retries, "gcs_unreachable": rs.gcs_unreachable,
             "ip_mismatch": list(rs.ip_mismatch) if rs.ip_mismatch else None, "raylet_not_found": rs.raylet_not_found,
             "shm_bytes": rs.shm_bytes, "gcs_rpc_failures": rs.gcs_rpc_failures, "gcs_unavailable": rs.gcs_unavailable,
             "already_running": list(rs.already_running) if rs.already_running else None,
             "exited": [{"process": p, "exit_code": c} for p, c in rs.exited],
             "stopped": list(rs.stopped) if rs.stopped else None,
             "traceback": list(rs.traceback) if rs.traceback else None, "gcs_failed": rs.gcs_failed}
    return facts, findings


# --------------------------------------------------------------------------- ray.nodes()

def summarise_ray_nodes(nodes: list[Any], command: str | None) -> Summary:
    """``ray.nodes()`` printed or ``ray list nodes``' table (grader.parsers.ray_nodes), judged: each node said with what it registered; a node
    that is not alive warns unless a live node has its address (the same machine restarted: ray.nodes() keeps the
    old entry); fewer live nodes than ``explain --nodes`` says the cluster has fails; a cut list says so."""
    alive = [n for n in nodes if n.alive]
    where = {n.address for n in alive if n.address}
    findings: list[Finding] = []
    for n in nodes[:16]:
        res = n.resources
        what = ", ".join(f"{fmt_count(res[k])} {k}" + (f" ({n.accelerator})" if k == "GPU" and n.accelerator else "")
                         for k in ("GPU", "CPU") if k in res)
        name = " ".join(x for x in (n.hostname, f"({n.address})" if n.address and n.address != n.hostname else None)
                        if x) or n.node_id[:12]
        state = "alive" if n.alive else "not alive" if n.alive is False else "state not shown"
        said = f"Node {name}: {state}" + (f", {what} registered" + ("" if "GPU" in res else ", no GPU (no GPU task can run there)") if what else "") + \
            (" (the paste ends inside this entry)" if n.cut else "") + "."
        if n.alive is False and n.state_message and "idle" in n.state_message.lower():
            findings.append(info(said + f" Its state message, `{n.state_message}`, says the autoscaler ended it for "
                                 "having nothing to do: no failure."))
        elif n.alive is False and n.address not in where:
            findings.append(warn(said + " It left the cluster (its raylet died or the machine went away): `ray "
                                 "status` lists the nodes that are up now."))
        else:
            findings.append(info(said))
        gpus, cpus = res.get("GPU"), res.get("CPU")
        if n.alive and gpus and cpus is not None and cpus < gpus:
            findings.append(info(f"Node {name} registered {fmt_count(cpus)} CPU for {fmt_count(gpus)} GPU: Ray runs "
                                 "at most that many tasks that each ask a CPU there at once (`ray start --num-cpus`, "
                                 "or a batch scheduler's CPUs per task, sets it)."))
    findings += node_notes(nodes, OTHER_ACCELERATORS)
    total = getattr(nodes, "total", None)
    if total is not None and total > len(nodes):  # blind batch zv003: `ray list nodes` cut after its first rows
        findings.append(info(f"The table lists {len(nodes)} of the {total} nodes Ray counts (`Total: {total}`): the paste "
                             "is cut, so the state of the others is not in it; the whole table says it."))
    want = context().nodes
    if want and len(alive) < want and (total is None or total <= len(nodes)):
        findings.append(fail(f"{len(alive)} live node(s) here, and the cluster should have {want}: the others have "
                             "not joined (`ray start --address=<head>:6379` on each) or have died."))
    return {"nodes": len(nodes), "alive": len(alive)}, findings
