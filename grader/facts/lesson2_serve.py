"""Lesson 2b facts: Ray across the two nodes and one ``vllm serve`` that uses both.

Read from the head's ``ray status -v``, the vLLM log, the model's config.json and ``/v1/models``,
and from each node's sha256 of the served model's files and its serving processes' variables
(lesson 2a's ``env``). Pure; merged into lesson 2's ``pair`` facts by :func:`serve_facts`.

Each check reads two lists: ``<x>_problems`` (a failure) and ``<x>_unmeasured`` (not measured:
nothing to judge, e.g. no [serve] table, or the launch failed before the log shows the KV cache, and
another check says why). So a failed launch fails exactly the check that owns its error: the World size error
L2.parallel_sizes, the KV-too-small error L2.kv_capacity, a Gloo error with the interface variables
wrong lesson 2a's L2.ifname_vars (added to the head's ``ifname_problems``), a generic error with the
model files differing L2.model_same, every other error L2.launch.

Shape (added to ``pair``)::

    {"serve_mode", "ray_node_count": int|None, "ray_resources": {name: total},
     "ray_node_ips": {node: ip}, "ray_head": node|None, "ray_head_ip": str|None, "ray_problems", "ray_unmeasured",
     "head_problems", "head_unmeasured", "host_ip_problems", "host_ip_unmeasured",
     "tp": int|None, "pp": int|None, "backend": str|None, "parallel_problems", "parallel_unmeasured",
     "kv_tokens_logged": int|None, "kv_tokens_predicted": int|None, "kv_ratio": float|None,
     "kv_problems", "kv_unmeasured", "model_hashes": {node: {file: sha256}}, "model_problems",
     "model_unmeasured", "launch_diagnosis": [{kind, message, fix, severity}], "launch_problems",
     "launch_unmeasured", "served_models": [id], "env_unmeasured"}

and to each node's facts ``env_unmeasured`` (lesson 2a's checks are not measured with it). A node
that never joined Ray (too few nodes in `ray status`, no Ray daemon on it) fails L2.ray_nodes only: its
"no Ray or vLLM process" sentence in ``env_unmeasured`` names L2.ray_nodes, and the missing vLLM log
leaves the engine checks not measured. Its Ray log, when the evidence has
one (probe ``log:ray``), names the address it was given. A launch that hangs (``--nnodes`` without
VLLM_HOST_IP) says how long the log has been silent (:func:`log_quiet_s`).
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from grader.calc import serving as calc
from grader.evidence import Evidence, RawOutput
from grader.parsers import ParseError
from grader.parsers.ray_status import parse_ray_status
from grader.parsers.vllm_api import parse_models
from grader.diagnoses import diagnose
from grader.parsers.vllm_log import VllmLog, parse_vllm_log
from grader.ranges import expected_range
from grader.spark_names import is_qsfp_twin

ACCELERATOR = {"sim": "CPU", "spark-pair": "GPU", "single-spark": "GPU", "dual-gpu-desktop": "GPU"}
"""The Ray resource each profile's workers are placed by (the sim's Ray also offers one fake GPU
per node for the platform plugin; its real resource is one CPU per node)."""

OWNED_BY = {"world-size": "parallel", "cpu-thread-binding": "parallel", "kv-too-small": "kv", "no-kv-memory": "kv",
            "gloo-connect": "ifname", "gloo-iface": "ifname", "no-host-ip": "host_ip"}
"""Launch errors judged by a check of their own; L2.launch judges every other."""
GENERIC = ("exception", "engine-init-failed", "engine-dead")
"""Launch failures that name no cause of their own: with the model files differing between the
nodes, L2.model_same owns them."""
CHECK_OF = {"ifname": "L2.ifname_vars", "parallel": "L2.parallel_sizes", "kv": "L2.kv_capacity", "model": "L2.model_same",
            "host_ip": "L2.vllm_host_ip", "launch": "L2.launch"}
NO_SERVE_TABLE = ("no [serve] table in the inventory: add one (url, model, mode, head, log_dir) once `vllm serve` runs, "
                  "then check again")
"""Why every lesson-2b fact is not measured without a [serve] table (grader/facts/lesson2_versions.py says it too)."""
NO_PROCESS = "no Ray or vLLM process could be read"
"""Lesson 2a's ``env_unmeasured`` sentence for a node without serving processes (grader/facts/lesson2.py);
for a node that never joined Ray it is replaced by one naming L2.ray_nodes, which owns that failure."""

_VLLM_STAMP_RE = re.compile(r"\b(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s+(?:(\d{4})-)?(\d\d)-(\d\d)\s+"
                            r"(\d\d):(\d\d):(\d\d)\b")
_RAY_STAMP_RE = re.compile(r"^\[?(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)[,.]\d+", re.M)
_LOCAL_IP_RE = re.compile(r"Local node IP: ([0-9A-Fa-f.:]+)")
QUIET_MAX_S = 7 * 86400
"""A log that seems silent for longer than this (or for a negative time) has clocks or zones that
disagree with the grader's: no duration is given then."""


def log_quiet_s(text: str, read_at: str) -> float | None:
    """How long a vLLM or Ray log had shown nothing new when it was read, in seconds.

    ``text``: the log; ``read_at``: when it was read (ISO 8601 with a zone, the probe's
    ``started_at``). The log's last timestamped line (vLLM: ``INFO 11-29 17:53:22``, no year; Ray:
    ``2026-11-29 17:53:22,123``) is read as local time of this machine, with ``read_at``'s year
    when the line has none. Returns None when no line has a timestamp, ``read_at`` is not a time,
    or the result is outside 0..QUIET_MAX_S (the node's clock or zone differs). Never raises.
    """
    try:
        read = datetime.fromisoformat(read_at)
    except (TypeError, ValueError):
        return None
    if read.tzinfo is None:
        read = read.replace(tzinfo=timezone.utc)
    last, where = None, -1
    for rx in (_VLLM_STAMP_RE, _RAY_STAMP_RE):
        for m in rx.finditer(text):
            if m.start() > where:
                last, where = m.groups(), m.start()
    if last is None:
        return None
    year, mon, day, hh, mm, ss = last
    try:
        stamp = datetime(int(year or read.year), int(mon), int(day), int(hh), int(mm), int(ss)).astimezone()
    except (ValueError, OverflowError, OSError):
        return None
    quiet = (read - stamp).total_seconds()
    return quiet if 0 <= quiet <= QUIET_MAX_S else None


def _qsfp_address(f: dict, near: str | None = None) -> tuple[str, str] | None:
    """(QSFP twin, its first IPv4) of node facts ``f``: the one in the same /24 as ``near`` (the head's
    Ray address) when there is one, else the first listed; None without an addressed twin."""
    twins = [(iface, addrs[0]) for iface, addrs in (f.get("ipv4") or {}).items() if addrs and is_qsfp_twin(iface)]
    for iface, addr in twins:
        with contextlib.suppress(ValueError):
            if near and ipaddress.ip_address(addr) in ipaddress.ip_network(f"{near}/24", strict=False):
                return iface, addr
    return twins[0] if twins else None


def _not_joined(name: str, f: dict, ev: Evidence, ray_address: str | None) -> str:
    """Why ``name`` (no Ray daemon runs there) is missing from `ray status`, and the fix: from its Ray log
    when the evidence has one (probe ``log:ray``), else from what `ray start` does with a wrong address."""
    msg = f"{name} runs no Ray daemon: its `ray start --address={ray_address or '<head QSFP address>:6379'}` did not join"
    text = _text(ev.outputs(name, "log:ray"))
    diag = None
    if text:
        given = _LOCAL_IP_RE.findall(text)
        owned = {a for addrs in (f.get("ipv4") or {}).values() for a in addrs}
        if given and owned and given[-1] not in owned:
            msg += f"; it was given --node-ip-address={given[-1]}, which none of {name}'s interfaces has"
        try:
            diag = next((d for d in diagnose(parse_vllm_log(text)) if d.kind == "ray-node-timeout"), None)
        except (ParseError, ValueError):
            diag = None
    if diag is not None:
        msg += f". Its Ray log: {diag.message}"
    else:
        msg += (". When `ray start` stops with `The current node timed out during startup`, its --node-ip-address "
                "is not one of the node's own addresses (a typo, or the other node's)")
    own = _qsfp_address(f, (ray_address or "").rpartition(":")[0] or None)
    return msg + (f". Fix: on {name}, `ray stop`, then `ray start --address={ray_address or '<head QSFP address>:6379'} "
                  f"--node-ip-address={own[1] if own else '<its QSFP address>'}`"
                  + (f" (its QSFP twin {own[0]})" if own else "") + ", and check `ray status` shows every node")


def _text(raw: RawOutput | None) -> str | None:
    return raw.stdout if raw is not None and not raw.timed_out and raw.stdout.strip() else None


def _why(raw: RawOutput | None, what: str) -> str:
    if raw is None:
        return f"{what} was not read"
    last = (raw.stderr.strip().splitlines() or raw.stdout.strip().splitlines() or ["no output"])[-1]
    return f"`{raw.command[:80]}` failed: {last[:200]}"


def model_hashes(text: str | None) -> dict[str, str]:
    """``sha256sum`` output -> {file name: digest}."""
    out = {}
    for line in (text or "").splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2 and len(parts[0]) == 64:
            out[parts[1].lstrip("*").strip()] = parts[0]
    return out


def _node_of(ip: str, nodes: dict[str, dict]) -> str | None:
    for name, f in nodes.items():
        if any(ip in addrs for addrs in (f.get("ipv4") or {}).values()):
            return name
    return None


def _on_qsfp(ip: str, f: dict) -> str | None:
    """The QSFP twin of node facts ``f`` carrying ``ip``, or None."""
    for iface, addrs in (f.get("ipv4") or {}).items():
        if ip in addrs and is_qsfp_twin(iface):
            return iface
    return None


def parse_ray_node(text: str | None) -> dict[str, Any]:
    """The ``ray_node`` probe's output -> {"node_ip": the raylet's --node_ip_address, "gcs": whether
    the GCS (the head) runs here, "gcs_ip": its --node-ip-address, "gcs_address": the raylet's}."""
    out: dict[str, Any] = {"node_ip": None, "gcs": False, "gcs_ip": None, "gcs_address": None}
    comm = None
    for line in (text or "").splitlines():
        line = line.strip()
        if line.startswith("=== "):
            comm = line[4:].strip()
            out["gcs"] = out["gcs"] or comm.startswith("gcs_server")
            continue
        key, _, value = line.partition("=")
        key = key.lstrip("-").replace("-", "_")
        if key == "node_ip_address" and value:
            if comm and comm.startswith("gcs_server"):
                out["gcs_ip"] = out["gcs_ip"] or value
            else:
                out["node_ip"] = out["node_ip"] or value
        elif key == "gcs_address" and value:
            out["gcs_address"] = out["gcs_address"] or value
    return out


def _range(profile: str, name: str, nodes: int | None = None) -> dict[str, Any] | None:
    """checks/ranges.toml's ``name`` for ``profile``; a count that grows with the cluster (Ray's nodes and
    accelerators) scaled to ``nodes``, the inventory's node count (grader.ranges.expected_range)."""
    return expected_range(profile, name, nodes=nodes)


KEYS = ("ray", "head", "host_ip", "parallel", "kv", "model", "launch")
"""The fact families of lesson 2b's checks: each has ``<key>_problems`` and ``<key>_unmeasured``."""


@dataclass
class _Serving:
    """What the per-check functions below share: the evidence, the node facts, the [serve] table, and
    what an earlier step read (Ray's status and daemons, the model's hashes, the vLLM log and its
    failing diagnoses). ``out`` is the facts being built."""

    ev: Evidence
    nodes: dict[str, dict]
    serve: dict
    mode: str
    head: str
    out: dict[str, Any]
    st: Any = None
    daemons: dict[str, dict] = field(default_factory=dict)
    not_joined: list[str] = field(default_factory=list)
    hashes: dict[str, dict[str, str]] = field(default_factory=dict)
    log: VllmLog | None = None
    log_raw: RawOutput | None = None
    quiet: float | None = None
    diags: list = field(default_factory=list)
    fails: list = field(default_factory=list)
    fails_owner: dict[int, str] = field(default_factory=dict)

    @property
    def profile(self) -> str:
        return self.ev.profile


def serve_facts(ev: Evidence, nodes: dict[str, dict]) -> dict[str, Any]:
    """Lesson 2b facts. See the module docstring. One step per check, in this order (later steps read
    what earlier ones found): Ray (L2.ray_nodes), its head and VLLM_HOST_IP (L2.head_on_qsfp,
    L2.vllm_host_ip), the model files (L2.model_same), the vLLM log's failures (each to the check
    that owns it), the parallel sizes (L2.parallel_sizes), the KV capacity (L2.kv_capacity), and
    whether the server answers (L2.launch)."""
    serve = ev.inventory.get("serve")
    out: dict[str, Any] = {"env_unmeasured": []}
    for k in KEYS:
        out[f"{k}_problems"], out[f"{k}_unmeasured"] = [], []
    for f in nodes.values():
        f.setdefault("env_unmeasured", [])
    if not serve:
        for k in KEYS:
            out[f"{k}_unmeasured"].append(NO_SERVE_TABLE)
        return out
    mode = serve.get("mode") or "ray"
    out["serve_mode"] = mode
    s = _Serving(ev, nodes, serve, mode, serve.get("head") or next(iter(nodes)), out)
    _ray_facts(s)
    _head_and_host_ip_facts(s)
    _model_facts(s)
    _launch_log_facts(s)
    _parallel_facts(s)
    _kv_facts(s)
    _served_facts(s)
    return out


def _ray_facts(s: _Serving) -> None:
    """L2.ray_nodes: `ray status` on the head, the nodes and accelerators it counts, nodes that never
    joined (and what lesson 2a cannot read on them), and each node's Ray daemon."""
    ev, nodes, mode, head, out = s.ev, s.nodes, s.mode, s.head, s.out
    st = None
    raw = ev.outputs(head, "ray_status")
    if mode != "ray":
        for k in ("ray", "head"):
            out[f"{k}_unmeasured"].append(f"[serve] mode is {mode!r}: no Ray cluster to judge")
    elif _text(raw) and (raw.exit_status == 0 or "Node status" in raw.stdout):
        try:
            st = parse_ray_status(raw.stdout)
        except ParseError as e:
            out["ray_problems"].append(str(e))
    else:
        out["ray_problems"].append(f"`ray status` on {head} gave no cluster: {_why(raw, 'ray status')}. Start the "
                                   "Ray head on the head node and join the other node (`ray start --address=...`)")
        out["head_unmeasured"].append("no `ray status` to read the head's address from (see L2.ray_nodes)")
    res = st.resources if st else {}
    out["ray_node_count"] = st.node_count if st else None
    out["ray_resources"] = {k: v[1] for k, v in res.items() if k in ("CPU", "GPU")}
    want_nodes = _range(s.profile, "ray_node_count", len(nodes))
    daemons = {name: parse_ray_node(_text(ev.outputs(name, "ray_node"))) for name in nodes}
    # nodes that never joined: Ray has too few nodes and no Ray daemon runs on them
    not_joined = [name for name, f in nodes.items() if mode == "ray" and st is not None and want_nodes
                  and st.node_count < want_nodes["min"] and f.get("reachable") and not daemons[name]["node_ip"]
                  and not daemons[name]["gcs"]]
    if st is not None:
        acc = ACCELERATOR.get(s.profile, "GPU")
        want_acc = _range(s.profile, "ray_accelerators", len(nodes))
        have = res.get(acc, (0.0, 0.0))[1]
        if want_nodes and not (want_nodes["min"] <= st.node_count <= want_nodes["max"]):
            out["ray_problems"].append(
                f"`ray status` shows {st.node_count} node(s) up, expected {want_nodes['min']}: join the "
                f"{'other node' if len(nodes) == 2 else 'missing nodes, each'} "
                f"with `ray start --address=<head QSFP address>:6379 --node-ip-address=<its QSFP address>`"
                + (f"; pending: {', '.join(st.pending_demands)}" if st.pending_demands else ""))
            for name in not_joined:
                out["ray_problems"].append(_not_joined(name, nodes[name], ev, s.serve.get("ray_address")))
        if want_acc and not (want_acc["min"] <= have <= want_acc["max"]):
            out["ray_problems"].append(f"Ray offers {have:g} {acc} in all, expected {want_acc['min']:g}: each node's "
                                       f"`ray start` must offer its {acc} (`--num-gpus=1` where Ray cannot see it)")
    # a node that never joined runs nothing whose variables lesson 2a could read: L2.ray_nodes owns that
    for name in not_joined:
        f = nodes[name]
        if any(NO_PROCESS in p for p in f["env_unmeasured"]):
            f["env_unmeasured"] = [p for p in f["env_unmeasured"] if NO_PROCESS not in p] + [
                f"{name}: no Ray or vLLM process runs there to read the variables from: it never joined Ray "
                "(see L2.ray_nodes)"]
    if not_joined:
        out["env_unmeasured"].append("the variables could not be compared: " + ", ".join(not_joined)
                                     + " never joined Ray (see L2.ray_nodes)")
    # each node's Ray address (its raylet's --node_ip_address), and which node runs the GCS (the head)
    out["ray_node_ips"] = {n: d["node_ip"] for n, d in daemons.items() if d["node_ip"]}
    heads = [n for n, d in daemons.items() if d["gcs"]]
    ray_head = heads[0] if heads else None
    out["ray_head"] = ray_head
    out["ray_head_ip"] = (daemons[ray_head]["gcs_ip"] or daemons[ray_head]["node_ip"]) if ray_head else None
    s.st, s.daemons, s.not_joined = st, daemons, not_joined


def _head_and_host_ip_facts(s: _Serving) -> None:
    """L2.head_on_qsfp (the GCS bound to a QSFP twin) and L2.vllm_host_ip (VLLM_HOST_IP is each
    node's Ray address, or in ``--nnodes`` mode one of its QSFP addresses)."""
    nodes, mode, out, daemons = s.nodes, s.mode, s.out, s.daemons
    ray_head = out["ray_head"]
    if mode == "ray" and s.st is not None:
        if ray_head is None:
            out["head_problems"].append("no node runs Ray's GCS (`ray start --head`) that the grader could read")
        else:
            ip = out["ray_head_ip"]
            if ip and _on_qsfp(ip, nodes[ray_head]) is None:
                iface = next((i for i, a in (nodes[ray_head].get("ipv4") or {}).items() if ip in a), "another network")
                out["head_problems"].append(
                    f"the Ray head ({ray_head}) is bound to {ip} on {iface}, not a QSFP twin: the worker joins, and "
                    "Ray, Gloo and vLLM's control traffic cross the house network. Restart it with `ray start --head "
                    "--node-ip-address=<its QSFP address, e.g. 192.168.100.10>` and join the worker to that address")
        for name, f in nodes.items():
            if not f.get("reachable"):
                out["host_ip_unmeasured"].append(f"{name} was not reached")
                continue
            mine = daemons[name]["node_ip"]
            host_ip = (f.get("env") or {}).get("VLLM_HOST_IP")
            if name in s.not_joined:
                out["host_ip_unmeasured"].append(f"{name}: it never joined Ray (see L2.ray_nodes)")
            elif not f.get("env_processes"):
                out["host_ip_unmeasured"].append(f"{name}: no serving process could be read (see L2.ifname_vars)")
            elif not mine:
                out["host_ip_problems"].append(f"{name}: no Ray daemon (raylet) runs on it: join it with `ray start "
                                               "--address=<head QSFP address>:6379 --node-ip-address=<its QSFP address>`")
            elif host_ip is None:
                out["host_ip_problems"].append(f"{name}: VLLM_HOST_IP is not set; set VLLM_HOST_IP={mine} (its Ray "
                                               "node address) where Ray and vLLM start on it")
            elif host_ip != mine:
                out["host_ip_problems"].append(f"{name}: VLLM_HOST_IP={host_ip}, but its Ray node address "
                                               f"(--node-ip-address) is {mine}: they must be the same")
    elif mode == "ray":
        out["host_ip_unmeasured"].append("no `ray status` to compare VLLM_HOST_IP with (see L2.ray_nodes)")
    if mode != "ray":
        for name, f in nodes.items():
            host_ip = (f.get("env") or {}).get("VLLM_HOST_IP")
            if mode == "nnodes" and f.get("env_processes") and host_ip is None:
                out["host_ip_problems"].append(
                    f"{name}: VLLM_HOST_IP is not set: in --nnodes mode the leader then offers 0.0.0.0 (or the "
                    "house address) and the other node waits forever without an error; set it to the QSFP address")
            elif host_ip and _on_qsfp(host_ip, f) is None:
                out["host_ip_problems"].append(f"{name}: VLLM_HOST_IP={host_ip} is not one of its QSFP addresses")


def _model_facts(s: _Serving) -> None:
    """L2.model_same: the served model's files, by sha256, at the same path on every node."""
    out, model = s.out, s.serve.get("model")
    hashes = {}
    for name, f in s.nodes.items():
        r = s.ev.outputs(name, "model_files")
        if r is None:
            out["model_unmeasured"].append(f"{name}: the model files were not read ([serve] model is not a path?)")
            continue
        h = model_hashes(r.stdout)
        hashes[name] = h
        if r.exit_status != 0 or "config.json" not in h:
            last = (r.stderr.strip().splitlines() or r.stdout.strip().splitlines() or ["no output"])[-1]
            out["model_problems"].append(f"{name}: the model files are not at {model} ({last[:200]}): "
                                         "the model must sit at the same path on every node, with the same files")
    out["model_hashes"] = hashes
    if len(hashes) >= 2 and not out["model_problems"]:
        (a, ha), *others = list(hashes.items())  # every node against the first
        for b, hb in others:
            for file in sorted(set(ha) | set(hb)):
                if ha.get(file) != hb.get(file):
                    out["model_problems"].append(
                        f"{file} differs at {model}: {a} {(ha.get(file) or 'missing')[:12]}, {b} "
                        f"{(hb.get(file) or 'missing')[:12]}: copy the same model to the same path on "
                        f"{'both nodes' if len(s.nodes) == 2 else 'every node'} (rsync -a from the head)")
    s.hashes = hashes


def _launch_log_facts(s: _Serving) -> None:
    """The head's vLLM log: read it (or say why it cannot be judged), and give each failing diagnosis
    to the check that owns it (OWNED_BY; a generic failure with the model files differing to
    L2.model_same; a Gloo failure with the variables right to L2.launch)."""
    ev, nodes, head, out, not_joined = s.ev, s.nodes, s.head, s.out, s.not_joined
    log: VllmLog | None = None
    raw = ev.outputs(head, "log:vllm")
    if _text(raw) and raw.exit_status == 0:
        try:
            log = parse_vllm_log(raw.stdout)
        except ParseError as e:
            out["launch_problems"].append(str(e))
    elif not_joined:
        # vLLM cannot use both nodes before Ray has them: nothing to judge yet
        why = _why(raw, "the vLLM log")
        for k in ("parallel", "kv", "launch"):
            out[f"{k}_unmeasured"].append(f"no vLLM log to read ({why}): Ray lacks {', '.join(not_joined)}, so "
                                          "`vllm serve` cannot use both nodes yet; see L2.ray_nodes")
    elif s.mode == "ray" and out["ray_node_count"] is None and out["ray_problems"]:
        # no Ray cluster at all (e.g. an image without Ray: run_cluster.sh's container stopped): no vLLM to judge
        why = _why(raw, "the vLLM log")
        for k in ("parallel", "kv", "launch"):
            out[f"{k}_unmeasured"].append(f"no vLLM log to read ({why}): there is no Ray cluster for "
                                          "`vllm serve --distributed-executor-backend ray` yet; see L2.ray_nodes")
    else:
        why = _why(raw, "the vLLM log")
        for k in ("parallel", "kv"):
            out[f"{k}_unmeasured"].append(f"no vLLM log to read ({why}); see L2.launch")
        out["launch_problems"].append(f"the vLLM log could not be read: {why}. Name it in [logs] vllm (or [serve] "
                                      "log_dir) and redirect `vllm serve` into it (`... 2>&1 | tee ~/vllm.log`)")
    if log is None and s.hashes and not out["model_problems"]:
        # equal files that no server loaded are the inventory's claim, not a served model: nothing to judge yet
        out["model_unmeasured"].append("no vLLM log shows a server started with this model (see L2.launch): the "
                                       "files on both nodes are judged once `vllm serve` has loaded them")
    quiet = log_quiet_s(raw.stdout, raw.started_at) if log is not None and not log.ready else None
    diags = diagnose(log) if log is not None else []
    fails_owner: dict[int, str] = {}
    fails = [d for d in diags if d.severity == "fail"]
    out["launch_diagnosis"] = [{"kind": d.kind, "message": d.message, "fix": d.fix, "severity": d.severity}
                               for d in diags]
    for d in fails:
        owner = OWNED_BY.get(d.kind, "launch")
        if owner == "launch" and out["model_problems"] and d.kind in GENERIC:
            owner = "model"  # a rank could not load what is not at the path on its node
            d = type(d)(d.kind, f"The launch failed ({d.message[:200]}), as a rank cannot load the model files "
                        "missing or different on its node.", "Put the same model at the same path on both nodes.")
        if owner == "ifname" and not any(f.get("ifname_problems") for f in nodes.values()):
            owner = "launch"  # Gloo failed although the variables look right: the launch check says so
        if owner == "ifname":  # lesson 2a's check of the variables owns what they broke
            nodes[head].setdefault("ifname_problems", []).append(f"{head}: the launch failed: {d.message} Fix: {d.fix}")
        elif owner == "host_ip":  # --nnodes without VLLM_HOST_IP: no error, a hang
            still = (f"nothing new for {quiet:.0f} s" if quiet is not None else "nothing new")
            out["host_ip_problems"].append(
                f"the launch hangs: the vLLM log on {head} shows {still}, no error and no `Application startup "
                f"complete`. {d.message} Fix: {d.fix}")
        else:
            out[f"{owner}_problems"].append(f"{d.message} Fix: {d.fix}")
        fails_owner[id(d)] = owner
    owned = set(fails_owner.values()) - {"launch"}
    if owned and "launch" not in fails_owner.values():
        out["launch_unmeasured"].append("the launch failed: see " + ", ".join(
            CHECK_OF[o] for o in sorted(owned)))
    s.log, s.log_raw, s.quiet, s.diags, s.fails, s.fails_owner = log, raw, quiet, diags, fails, fails_owner


def _parallel_facts(s: _Serving) -> None:
    """L2.parallel_sizes: TP x PP from the log, against the accelerators the cluster has."""
    log, out, mode = s.log, s.out, s.mode
    par = log.parallel if log is not None else None
    out["tp"] = par.tensor_parallel_size if par else None
    out["pp"] = par.pipeline_parallel_size if par else None
    out["backend"] = par.distributed_executor_backend if par else None
    if log is None or out["parallel_problems"]:
        return
    if not par.sources:
        out["parallel_unmeasured"].append("the log does not show the parallel sizes (non-default args or the "
                                          "engine config line): paste it from the start of `vllm serve`")
        return
    n_nodes = len(s.nodes) if mode != "single" else 1
    ws = calc.check_world_size(par.tensor_parallel_size or 1, par.pipeline_parallel_size or 1,
                               nodes=n_nodes, gpus_per_node=1, backend=par.distributed_executor_backend,
                               nnodes=par.nnodes)
    if ws.message:
        out["parallel_problems"].append(ws.message)
    elif mode != "single" and ws.world_size != n_nodes:
        out["parallel_problems"].append(
            f"TP x PP = {ws.tp} x {ws.pp} = {ws.world_size}, but the cluster has {n_nodes} accelerators (one "
            f"per node): use all of them, e.g. --tensor-parallel-size {n_nodes} or --pipeline-parallel-size "
            f"{n_nodes}")


def _kv_facts(s: _Serving) -> None:
    """L2.kv_capacity: the KV tokens the log reports against the arithmetic from config.json."""
    log, out = s.log, s.out
    cfg = None
    raw_cfg = s.ev.outputs(s.head, "model_config")
    if _text(raw_cfg) and raw_cfg.exit_status == 0:
        try:
            cfg = json.loads(raw_cfg.stdout)
        except ValueError:
            cfg = None
    out["kv_tokens_logged"] = log.kv_tokens if log is not None else None
    out["kv_tokens_predicted"] = out["kv_ratio"] = None
    if log is None:
        if not out["kv_unmeasured"]:
            out["kv_unmeasured"].append("no vLLM log to read: see L2.launch")
        return
    if out["kv_problems"]:
        return
    budget = _kv_budget_gib(log)
    if log.kv_tokens is None:
        if not s.fails:
            out["kv_unmeasured"].append("the log has no `KV cache size: N tokens` line yet (the server was still "
                                        "starting, or the paste is cut)")
        else:
            owner = CHECK_OF.get(next(iter(s.fails_owner.values()), "launch"), "L2.launch")
            out["kv_unmeasured"].append(f"the launch failed before the KV cache was sized: see {owner}")
    elif cfg is None:
        out["kv_unmeasured"].append(f"config.json of the served model could not be read ({_why(raw_cfg, 'config.json')})")
    elif budget is None:
        out["kv_unmeasured"].append("the log does not say how much memory the KV cache got (`Available KV cache "
                                    "memory`, `Explicitly set ... GiB for KV cache` or --kv-cache-memory-bytes)")
    else:
        try:
            pred = calc.predict_kv_capacity(cfg, budget, tp=out["tp"] or 1, pp=out["pp"] or 1,
                                            max_model_len=log.max_model_len)
        except ValueError as e:
            out["kv_unmeasured"].append(f"the KV arithmetic could not be done from config.json: {e}")
            return
        out["kv_tokens_predicted"] = pred.tokens
        ratio = log.kv_tokens / pred.tokens if pred.tokens else None
        out["kv_ratio"] = round(ratio, 4) if ratio is not None else None
        tol = _range(s.profile, "kv_capacity_ratio")
        if ratio is not None and tol and not (tol["min"] <= ratio <= tol["max"]):
            out["kv_problems"].append(
                f"the log says {log.kv_tokens:,} KV tokens, the arithmetic from config.json says "
                f"{pred.tokens:,} ({pred.bytes_per_token:g} B per token per rank, {budget:.4g} GiB per rank, "
                f"TP={out['tp'] or 1}, PP={out['pp'] or 1}): ratio {ratio:.3f}, expected "
                f"{tol['min']}-{tol['max']}. Check the layers, KV heads, head dim and dtype you used")


def _served_facts(s: _Serving) -> None:
    """L2.launch: the server is up (``/v1/models`` answers) and serves the model the [serve] table names."""
    out, log = s.out, s.log
    raw = s.ev.outputs(s.head, "v1_models")
    served = []
    if _text(raw) and raw.exit_status == 0:
        try:
            served = [m.id for m in parse_models(raw.stdout)]
        except ParseError:
            served = []
    out["served_models"] = served
    if s.fails or log is None:
        return
    if not served:
        msg = (f"{s.serve.get('url')}/v1/models did not answer ({_why(raw, '/v1/models')})"
               + ("" if log.ready else "; the log shows no `Application startup complete`"))
        if s.quiet is not None:
            msg += f"; the log has shown nothing new for {s.quiet:.0f} s"
        hang = [d for d in s.diags if d.kind in ("pg-wait", "no-gpu-resource", "no-host-ip", "not-ready")]
        if hang:
            msg += f": {hang[0].message} Fix: {hang[0].fix}"
        if s.not_joined:  # the placement group waits for the node Ray lacks
            out["launch_unmeasured"].append(msg + " (Ray lacks " + ", ".join(s.not_joined) + ": see L2.ray_nodes)")
        else:
            out["launch_problems"].append(msg)
    else:
        want = s.serve.get("served_model_name") or s.serve.get("model")
        if want and want not in served:
            out["launch_problems"].append(f"/v1/models serves {', '.join(served)}, not {want}")


def _kv_budget_gib(log: VllmLog) -> float | None:
    """Memory per rank given to the KV cache: --kv-cache-memory-bytes, else what the log printed."""
    args = {**(log.command_args or {}), **(log.args or {})}
    v = args.get("kv_cache_memory_bytes")
    try:
        if v is not None:
            return float(v) / 2**30
    except (TypeError, ValueError):
        pass
    return log.kv_memory[0].gib if log.kv_memory else None
