"""What ``ray status`` shows beside its nodes and demands that a careful reader remarks on (judges/ray.py, at its size
limit, calls these): a resource whose use is negative, or a placement group's that holds more than the cluster has
(Ray's accounting, not the nodes, is wrong), and a task demand that fits in what is free (listed before the scheduler
placed it: stale). Beside ``ray.nodes()`` / ``ray list nodes``: a node registered with an accelerator of another kind
than a GPU, or under a host name beside nodes registered by IP; beside ``ray start``: a registration slow enough to
warn. And the size of a DGX Spark as Ray counts it (:func:`spark_cores`, :func:`spark_sized`)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Sequence

from ..parsers.ray_start import RayStart
from ..parsers.ray_status import Demand, RayStatus
from .common import fail, fmt_count, info, ok, warn
from .model import Finding, Summary

ZERO = 1e-6  # a used figure nearer 0 than this is a float's residue (`-2.7755575615628914e-17/1.0 GPU`): zero


def negative_usage(st: RayStatus) -> list[Finding]:
    """A usage line whose used figure is below 0 (ray#19131: ``-1.0/32.0 CPU (14.0 used of 15.0 reserved in placement
    groups)`` after the job was killed): impossible, so Ray's own bookkeeping is off, most often a placement group's
    reservation not released. A warn: new work asking for those resources may wait for ever."""
    out = []
    for name, (used, total) in st.resources.items():
        if used > -ZERO or name in ("memory", "object_store_memory"):  # -2.8e-17: a float's residue, zero
            continue
        pg = st.placement_groups.get(name)
        held = (f" while {fmt_count(pg[1])} stay reserved in placement groups ({fmt_count(pg[0])} used of them)"
                if pg and pg[1] else "")
        out.append(warn(f"Ray counts {fmt_count(used)}/{fmt_count(total)} {name} in use: a negative use, which cannot "
                        f"be{held}. Ray's resource bookkeeping is inconsistent, not a node: most often a placement "
                        "group (or its actors) not released cleanly after its job was killed, so its reservation "
                        "stays held (leaked) and new work asking for it may wait for ever. Remove the stale placement "
                        "groups (`ray list placement-groups`, then ray.util.remove_placement_group) or restart Ray."))
    return out


def stale_demand(st: RayStatus, d: Demand, quoted: str) -> list[Finding]:
    """A demand of tasks for CPUs alone whose one bundle fits in the CPUs free in the same report (ray#36926: 20/24
    CPU used, yet ``{'CPU': 4.0}: 5+ pending tasks/actors``): Ray's demand list lags its scheduler, so what it lists
    may already run; an autoscaler acting on it launches nodes not needed. A hedged warn; [] otherwise."""
    cpu = st.resources.get("CPU")
    if not (cpu and d.complete and d.bundles and d.what != "placement group" and not d.strategy):
        return []
    if set().union(*(b for b, _ in d.bundles)) > {"CPU"} or not all(b.get("CPU") for b, _ in d.bundles):
        return []
    free = cpu[1] - cpu[0]
    each = min(float(b["CPU"]) for b, _ in d.bundles)
    if each > free or cpu[0] <= 0:
        return []
    per_node = [u.resources["CPU"] for u in st.per_node if "CPU" in u.resources]
    fits = max((t - u for u, t in per_node), default=None)
    if fits is not None and fits + ZERO < each:
        return [info(f"Pending demand `{quoted}`: {fmt_count(free)} of the {fmt_count(cpu[1])} CPUs are free in all, "
                     f"but no node has {fmt_count(each)} free (at most {fmt_count(fits)} on one): a task runs on one "
                     "node, so the demand is real, the free CPUs too scattered to take it; it runs as others end.")]
    said = (f"Pending demand `{quoted}`, though {fmt_count(free)} of the {fmt_count(cpu[1])} CPUs are free, enough "
            f"for one of them ({fmt_count(each)} CPU each) and {fmt_count(cpu[0])} already in use")
    if fits is None and st.node_count > 1:  # the free CPUs may be spread over the nodes: which, `ray status -v` says
        return [warn(said + f", in all over {st.node_count} nodes: if one node has {fmt_count(each)} of them free, "
                     "Ray's demand list lags its scheduler and lists tasks it has already placed (stale), and an "
                     "autoscaler acting on it starts extra nodes that are not needed; if the free CPUs are spread, "
                     f"fewer than {fmt_count(each)} on every node, the demand is real (a task runs on one node). "
                     "`ray status -v` shows each node's free CPUs and decides.")]
    return [warn(said + ": Ray's demand list lags its scheduler, so tasks it has already placed can still be listed "
                 "here (stale). An autoscaler acting on it starts extra nodes that are not needed; a demand that stays "
                 "listed over several reports, with the CPUs still free, is real (then `ray status -v` shows which "
                 "node lacks what).")]


_GROUP_RE = re.compile(r"^(?P<base>[A-Za-z][\w.-]{0,60}?)_group_(?P<pg>[0-9a-f]{16,64})$")
"""A placement group's wildcard resource (``CPU_group_<pg id>``: the sum of its bundles'), not one bundle's
(``CPU_group_<index>_<pg id>``)."""


def group_over_total(st: RayStatus) -> list[Finding]:
    """A placement group's wildcard resource whose total is more than the cluster's own total of that resource
    (ray#14883: ``0.0/84.0 CPU_group_<pg>`` in a cluster of ``66.0 CPU``): a group reserves from the nodes' resources,
    so it cannot hold more; Ray's placement-group bookkeeping counts bundles twice. A warn, once per group."""
    out = []
    for name, (_, total) in st.resources.items():
        m = _GROUP_RE.match(name)
        whole = st.resources.get(m.group("base")) if m else None
        if whole and total > whole[1]:
            base = m.group("base")
            out.append(warn(f"Placement group {m.group('pg')[:12]}... holds {fmt_count(total)} {base} (`{name}`, the sum "
                            f"of its bundles), more than the {fmt_count(whole[1])} {base} the whole cluster has: a "
                            "group only reserves what the nodes have, so Ray's placement-group bookkeeping is "
                            "inconsistent (bundles counted twice), not the nodes. The usage figures of its groups are "
                            "not to be trusted; `ray list placement-groups` shows the groups, and removing stale ones "
                            "or restarting Ray clears it."))
    return out


_GPU_WANTED_RE = re.compile(r"placement group[^\n]{0,200}?['\"]GPU['\"]: ?\d"
                            r"|\{[^{}\n]{0,200}?['\"]GPU['\"]: [\d.]{1,8}[^{}\n]{0,200}\}: \d{1,6}\+? pending")
"""A GPU the paste shows asked for and waiting: vLLM's ``Waiting for creating a placement group of specs ...
specs=[{'GPU': 1.0}, ...]``, or ``ray status``' demand ``{'CPU': 1.0, 'GPU': 1.0}: 1+ pending tasks/actors``."""


def accelerators_not_gpus(nodes: list[Any], others: tuple[str, ...]) -> list[Finding]:
    """Live nodes of ``ray.nodes()`` / ``ray list nodes`` that registered an accelerator of another kind (``others``:
    TPU, NPU...) and no GPU. A fail where the paste shows a GPU asked for and waiting (gpustack#4979, corpus zk015: the
    worker's GB-class GPU registered as `TPU: 1.0`, vLLM's placement group waiting for its GPU); a hedged warn where
    only another node's GPUs suggest the cluster is a GPU one. A note where nothing asks for a GPU (a TPU pod, blind
    batch wa017), or where the node names its accelerator's model (``accelerator_type:TPU-V4``, which Ray registers
    on a real TPU host beside ``TPU-v4-8-head``; a GPU taken for a TPU gets a bare ``TPU: 1.0``): a mixed cluster by
    design (break-it 19 p20)."""
    from .context import context
    odd = [(n, k) for n in nodes if n.alive is not False and not n.resources.get("GPU")
           for k in others if n.resources.get(k)]
    if not odd:
        return []
    pending = bool(_GPU_WANTED_RE.search(context().paste))
    named = all(n.accelerator for n, _ in odd)  # Ray knows the model: the device is what it says
    gpus_beside = any(n.resources.get("GPU") for n in nodes)
    said = "; ".join(f"{n.address or n.hostname or n.node_id[:12]}: {fmt_count(n.resources[k])} {k}"
                     + (f" ({n.accelerator})" if n.accelerator else "") + ", no GPU" for n, k in odd[:8])
    if named or not (pending or gpus_beside):
        return [info(f"Ray registered an accelerator of another kind than a GPU ({said}): what a TPU or NPU machine "
                     "registers by design; a GPU job (vLLM's Ray executor) cannot place a worker there"
                     + (", and the GPU nodes beside it take the GPU work: a mixed cluster." if gpus_beside else "."))]
    if not pending:
        return [warn(f"Ray registered {'this node' if len(odd) == 1 else 'these nodes'} with an accelerator of another "
                     f"kind and no GPU ({said}) beside nodes that registered GPUs, and without naming its model (a real "
                     "TPU host also registers `accelerator_type:TPU-...`). If that machine has a GPU, Ray took it for "
                     "another device and will place no GPU worker there: start its Ray with `--num-gpus=<its GPUs>`. "
                     "Nothing in this paste waits for a GPU; `ray status` (its pending demands) says whether it "
                     "matters.")]
    return [fail(f"Ray registered {'this node' if len(odd) == 1 else 'these nodes'} with an accelerator of another "
                 f"kind and no GPU ({said}), while this cluster is asked for GPUs: Ray counts no GPU there, so a "
                 "worker that needs one (vLLM's Ray executor asks one GPU per worker) is never placed on it and its "
                 "placement group waits for ever. Start that node's Ray with `--num-gpus=<its GPUs>` (and no TPU or "
                 "NPU variables or libraries in its container, which make Ray detect one); `ray status` must then "
                 "count its GPU.")]


def slow_start(rs: Any) -> bool:
    """A ``ray start`` (grader.parsers.ray_start.RayStart) that logged a registration retry and took checks/specs/
    serving.toml [ray_start] slow_register_s or more from choosing its node IP to starting (its logger's stamps):
    one retry is Ray polling each second, a retry ten seconds in is a node the head's GCS was slow to list."""
    from ..calc.specs import row
    bar = row("serving.toml", "ray_start").graded("slow_register_s")
    return bool(rs.retries) and rs.took_s is not None and bar is not None and rs.took_s >= bar


_IP_RE = re.compile(r"(?:\d{1,3}\.){3}\d{1,3}|[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}")


def node_notes(nodes: list[Any], others: tuple[str, ...]) -> list[Finding]:
    """What the node table shows beside each node's own line: accelerators that are not GPUs
    (:func:`accelerators_not_gpus`), and live nodes registered under a host name beside others registered by IP."""
    out = accelerators_not_gpus(nodes, others)
    live = [n for n in nodes if n.alive is not False and n.address]
    named = [n for n in live if not _IP_RE.fullmatch(n.address)]
    if named and len(named) < len(live):  # ray#32921 (corpus zv019): `NodeManagerAddress: 'pascal35'` beside an IP
        out.append(fail(f"Node{'s' if len(named) > 1 else ''} {', '.join(n.address for n in named[:4])} registered "
                        "under a host name, not an IP address, while the other nodes registered by IP: Ray names its "
                        f"node resource after it (`node:{named[0].address}`), so whatever looks a node up by its IP "
                        "(vLLM's placement group pins a bundle to `node:<the driver's IP>`, Ray Tune and Train find "
                        "their own node by IP, VLLM_HOST_IP) does not find this one and waits or fails. Start that "
                        "node's Ray with `--node-ip-address=<its IP on the network the nodes share>`."))
    return out


_RAN_RE = re.compile(r"Running command on (?:head|worker) node|vLLM API server version|Application startup complete")


def symmetric_run_went_on(poll: str, text: str) -> bool:
    """Whether `ray symmetric-run` goes on after its last ``poll``: it prints the polls only while nodes are short
    (check_cluster_ready returns silently once all joined), so its `Running command on head node`, or the command's
    own output, after them says every node joined: in its own output only, before a ^C or the next prompt."""
    from grader.judges.context import context
    from grader.parsers.common import is_prompt_line
    if not poll.startswith("Waiting for nodes"):
        return False
    at, paste = text.rfind(poll), context().paste or ""
    after = text[at + len(poll):] + "\n" + (paste[paste.rfind(poll) + len(poll):] if poll in paste else "")
    if "Timed out waiting for other nodes" in after:
        return False
    for line in after.splitlines():  # its own output only: a ^C or the next prompt ends it (another command follows)
        if line.lstrip().startswith("^C") or is_prompt_line(line.strip()):
            return False
        if _RAN_RE.search(line):
            return True
    return False


def ray_status_after(poll: str, size: int) -> bool:
    """Whether the paste (explain's whole paste where there is one, for the text is one section of it) shows, after
    its last ``poll`` line, a `ray status` with ``size`` nodes or more up: the nodes joined after the polls shown."""
    from grader.judges.context import context
    from grader.parsers.common import ParseError
    from grader.parsers.ray_status import parse_ray_status
    paste = context().paste or ""
    at = paste.rfind(poll)
    if at < 0 or "Active:" not in paste[at:] and "Healthy:" not in paste[at:]:
        return False
    try:
        return parse_ray_status(paste[at + len(poll):]).node_count >= size
    except (ParseError, ValueError):
        return False


def pods_up(pods: list[Any]) -> str:
    """The sentence for a pod listing with none down: Running with every container ready, or Completed (a one-shot
    pod, a job's or a test's, that ran to its end: READY 0/1 is what a finished pod shows; blind batch wy007, a GPU
    test pod that ran nvidia-smi and Completed)."""
    done = [p.name for p in pods if p.status == "Completed"]
    if not done:
        return f"All {len(pods)} pod(s) are Running with every container ready."
    running = len(pods) - len(done)
    return ((f"{running} pod(s) Running with every container ready; " if running else "")
            + f"{', '.join(done[:4])}{' ...' if len(done) > 4 else ''} Completed: "
            + ("a one-shot pod that ran to its end and exited 0" if len(done) == 1 else "one-shot pods that ran to "
               "their end and exited 0") + " (READY 0/N is what a finished pod shows, not a fault); what it printed is "
            "in `kubectl logs`.")


def all_held(st: RayStatus) -> str:
    """For a healthy status whose every GPU is held and nothing waits (blind batch wv003, one node, 8.0/8.0 GPU in an
    FSDP job's placement groups, no demands, a job said to hang): Ray is not what holds the job back, and what does is
    not in a `ray status`; "" where a GPU is free or none is listed."""
    used, total = st.resources.get("GPU", (0, 0))
    if not total or used < total:
        return ""
    return (f" Every GPU is held ({fmt_count(used)}/{fmt_count(total)}) and nothing waits for more: Ray is not what "
            "holds a job back. If a job makes no progress, this output cannot tell why (its workers' logs, or "
            "`py-spy dump --pid <worker pid>`, show where they wait).")


_DEPLOYMENT_POD_RE = re.compile(r"-[a-z0-9]{8,10}-[a-z0-9]{5}$")
"""A Deployment's pod name: ``<deployment>-<pod-template-hash>-<5 chars>`` (a Job's is ``<job>-<5 chars>``)."""


def completed_restarted(pod: Any, what: str, ray: str) -> Finding:
    """A pod Completed after restarts (break-it 23 p02): a Deployment's (its ReplicaSet hash in the name) restarts a
    container whatever its exit code (restartPolicy Always), so its server keeps exiting and Completed alternates with
    CrashLoopBackOff: a fail; another's may be a Job's pod retried (restartPolicy OnFailure) that then ended well, so
    a warning that says which output decides."""
    logs = f"`kubectl logs {pod.name} --previous` shows what the last run printed before it exited"
    if _DEPLOYMENT_POD_RE.search(pod.name):
        return fail(f"{what}, after {pod.age}: a Deployment's pod whose container keeps exiting (a Deployment restarts "
                    f"it even after exit 0, so Completed alternates with CrashLoopBackOff): it crash-loops and will "
                    f"not come up by waiting; {logs}, and `kubectl describe pod {pod.name}` its exit codes.{ray}")
    return warn(f"{what}, after {pod.age}: its container exited and was restarted {pod.restarts} time(s) before this "
                f"end. A Job's pod retried after failures (restartPolicy OnFailure) that then ended with 0 shows this; a "
                f"server's pod that keeps exiting shows it too (a crash loop). `kubectl describe pod {pod.name}` "
                f"(its restart policy, last state and exit codes) decides; {logs}.{ray}")


def loopback_note(ip: str, alone: bool, head_addr: str | None, given: bool = False) -> Finding:
    """Ray's node IP on loopback: a runtime for this one machine where a head was started and one machine told
    (wv001); a warning otherwise, and for a worker joining a head at another address (break-it 23 p19: `ray start
    --address=192.168.100.10:6379`, `Local node IP: 127.0.0.1`; a worker prints no join line, so its absence says
    nothing of one machine) the head and the other nodes cannot reach this node's raylet or object store. ``given``:
    the command set that address itself (``--node-ip-address=127.0.0.1``), so with one machine told it is the user's
    one-machine runtime even where Ray printed its join line (break-it 23 p01)."""
    give = " `--node-ip-address=<this node's address on the link the nodes share>`."
    chose = f"The node IP is the loopback address {ip}, as --node-ip-address gives it" if given else \
        f"Ray chose the loopback address {ip}"
    if alone:
        return info(f"{chose}: a Ray runtime for this one machine, fine for jobs run on it; no other machine can join "
                    "it" + ("" if given else " (Ray printed no `ray start --address` line)") + ". A cluster of several "
                    "machines needs" + give)
    remote = head_addr and not head_addr.startswith(("127.", "localhost"))
    return warn(f"{chose}: no other node can reach it"
                + (f". This node joins the head at {head_addr}, on another machine, and advertises {ip}: the head and "
                   "the other nodes cannot reach its raylet or object store, so tasks placed on it fail or hang"
                   if remote else "") + ". Give" + give)


def summarise_pods(pods: list[Any], command: str | None) -> Summary:
    facts = {"pods": [dataclasses.asdict(p) for p in pods], "up": sum(p.up for p in pods), "total": len(pods)}
    down = [p for p in pods if not p.up]
    findings = [ok(pods_up(pods))] if not down else []
    for p in down:
        what = f"{p.name}: {p.ready}/{p.containers} ready, {p.status}" + (f", {p.restarts} restarts" if p.restarts else "")
        ray = (" A Ray node in a pod that is not up may not have joined, and its GPU is then missing from the cluster "
               "(`ray status`).") if "ray" in p.name.lower() else ""
        if p.status == "Completed":
            findings.append(completed_restarted(p, what, ray))
        elif p.failed:
            findings.append(fail(f"{what}, after {p.age}: it will not come up by waiting (`kubectl describe pod "
                                 f"{p.name}` and `kubectl logs {p.name}`{' --previous' if p.restarts else ''} say "
                                 f"why).{ray}"))
        else:
            why = (" (its init containers have not finished)" if p.status.startswith("Init:") else
                   " (running, but its readiness probe does not pass)" if p.status == "Running" else "")
            findings.append(warn(f"{what}, after {p.age}: not up yet{why}; `kubectl describe pod {p.name}` shows what "
                                 f"it waits for.{ray}"))
    heads = [p.name for p in pods if "ray" in p.name.lower() and "head" in p.name.lower()]
    filtered = any(w in (command or "") for w in ("grep", " -l ", "-l=", "--selector"))
    if heads and not filtered and not any("worker" in p.name.lower() for p in pods):
        findings.append(warn(f"A Ray head pod ({heads[0]}) and no worker pod: KubeRay runs a RayCluster's workers as "
                             "pods of their own (`...-worker-...`), and none exists in this listing, so the Ray cluster "
                             "has only the head's GPUs. The worker group was not created or not scheduled: "
                             "`kubectl describe raycluster` (its worker group's replicas, GPU requests, node selector "
                             "and tolerations) and `kubectl get events` say why."))
    return facts, findings


def started_note(rs: Any, role: str | None, where: str, nodes: int | None, beside: Sequence[Finding] = ()) -> Finding:
    """``ray start``'s `Ray runtime started.` (``rs``: the parsed output; ``role``: head, worker or None; ``where``: the
    node IP said; ``nodes``: `explain --nodes`; ``beside``: the section's findings so far). A worker (its command's
    --address, or an output that goes on to the --block line with no head's next steps between: a head prints them
    there) prints it only once its raylet registered with the head's GCS, so it joined; a head's shows only itself.
    Not "joined, nothing wrong" where the output goes on to a subprocess's exit, its node IP is a loopback or Docker
    bridge address, or a finding beside it warns or fails (break-it 24 p01, p02): registered, and what follows
    decides."""
    worker = role == "worker" or (role is None and rs.blocking and rs.head is None and not rs.join_address)
    said = (f"Ray runtime started{' (' + (role or 'worker') + ')' if role or worker else ''}{where}"
            + (f"; other nodes join with `ray start --address='{rs.join_address}'`" if rs.join_address
               and not rs.join_address.startswith(("127.", "localhost")) else "")
            + (", in the foreground (--block)" if rs.blocking else ""))
    troubled = rs.subprocesses_exited or rs.exited or (rs.local_ip or "").startswith(("127.", "172.17.0.")) \
        or any(f.level in ("warn", "fail") for f in beside)
    joined = worker and not (rs.retries or rs.raylet_not_found or rs.gcs_unreachable)
    if joined and troubled:
        return info(said + ": a worker prints this once its raylet registered with the head's GCS; what this output "
                    "shows after it (the findings beside this one) decides whether the node stayed in the cluster.")
    if joined:
        return ok(said + ": a worker prints this only once it reached the head's GCS and its raylet registered there, "
                  "so this node joined the cluster; nothing wrong in this output. `ray status` on the head lists it "
                  "with its GPUs.")
    return ok(said + ("." if rs.join_address and (nodes or 1) < 2 else (": this shows only the head" if rs.join_address
              else ": that this node came up") + ", not that the nodes make one cluster; `ray status` on the head "
              "shows which nodes joined, with their GPUs."))


def spark_cores() -> float | None:
    """The CPUs Ray counts on one DGX Spark (checks/specs/gpus.toml [dgx_spark] cpu_cores), None without the row."""
    from ..calc.specs import match_gpu
    spec = match_gpu("GB10")
    return spec.graded("cpu_cores") if spec else None


def spark_sized(st: RayStatus) -> bool:
    """Whether each node has a DGX Spark's CPUs and memory as Ray counts them (checks/specs/gpus.toml [dgx_spark]
    cpu_cores, and at most its cuda_memory_gib, more than three quarters of it): a Spark pair's cluster whose GPUs Ray
    does not see (break-it 24 L1), or any machines of that size (break-it 25 F3): a hedged warning, not a fault."""
    from ..calc.specs import match_gpu
    spec, cpu, mem, n = match_gpu("GB10"), st.resources.get("CPU"), st.resources.get("memory"), st.node_count or 0
    cores, gib = (spec.graded("cpu_cores"), spec.graded("cuda_memory_gib")) if spec else (None, None)
    per_node_gib = mem[1] / n / 2 ** 30 if mem and n else 0.0  # (Ray counts bytes)
    return bool(cores and gib and cpu and mem and n) and cpu[1] / n == cores and 0.75 * gib <= per_node_gib <= gib


def own_head_unreached(rs: RayStart) -> Finding | None:
    """A head this very process started (``rs.head``, its node IP the one of the GCS address it then could not reach):
    the GCS did not come up there, not a network between two machines; what stopped it is in the head's own logs, not
    in this output (blind batch vt006: Ray's C++ ``ray::Init`` starting a head, then `Failed to connect to GCS within 60
    seconds`). None otherwise."""
    addr = rs.gcs_unreachable or ""
    host, _, port = addr.rpartition(":")
    if not (rs.head and rs.local_ip and host == rs.local_ip):
        return None
    return fail(f"This process started the head itself (at {rs.local_ip}) and then could not reach that head's GCS at "
                f"{addr}: the GCS server did not come up there, or it listens elsewhere (a port held by an earlier Ray "
                "or Redis, a crash at its start). This output does not show which: the head's own logs do "
                "(/tmp/ray/session_latest/logs/gcs_server.out and gcs_server.err); `ss -ltnp | grep "
                f"{port or 6379}` shows what holds the port, and `ray stop --force` clears an earlier Ray.")
