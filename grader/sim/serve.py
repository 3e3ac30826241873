"""Serve the tiny model on the simulated cluster: Ray across its nodes and one ``vllm serve``.

    from grader.sim import serve
    info = serve.start("ray")     # the sim must be up; returns the [serve] facts (url, mode, ...)
    serve.stop()                  # what start started; `sim down` calls it too

What runs where is data (:mod:`grader.sim.serve_spec`). Every process is started in its node's
namespaces (network, mount, UTS: nsenter into that node's sshd), so it has the node's hostname,
/etc/hosts, /root and its own /dev/shm, exactly like a command run over SSH there; and each in its
own process group (session), recorded in the sim's state so ``stop`` ends it by group. Logs go to
``/var/lib/clusterlab/sim/logs/<node>/{ray,vllm}.log``, readable over SSH on either node. When the
server answers /health, the inventory gets a ``[serve]`` table with the endpoint.

On the pair the pipeline has 2 stages; on a switch of N or a ring of 3 (``sim up --nodes N --topology
switch|ring --serve ray``) it has N, one per node, the tiny model's 4 layers split as vLLM splits them
(3 nodes: 1, 2, 1 layers; ``KV cache size: 131,072 tokens`` as with PP=2, grader.calc's figure).
Measured 2026-12-03 on the 2-core, 23 GiB box, ``sim up`` to /health with warm compile caches: PP=3
56-86 s (a switch 59, 71, 74, 85 s; a ring 56, 68, 80 s; 126 s the first time, spark-c's caches cold) against
the pair's PP=2 50-68 s; peak PSS of the sim's processes 4.4 GiB against 3.3 GiB (34 processes against
25); 5 completions of 32 tokens 3.0-4.1 s against 1.1 s. A start counts against HEALTH_DEADLINE_S either way.
Since 2026-12-04 the sim's vLLM runs eager (plugins/vllm-cpu-ray): measured in the suite's runs that day,
the pair's PP=2 answers /health 36-40 s after ``serve.start`` (``sim up`` included: 38-40 s), the baseline
and ``--nnodes`` 26-29 s, a switch of three's PP=3 49 s from ``sim up``.

Needs the serving environment (``bash scripts/install-serve.sh``); the model is made on first use.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from grader.sim import containers as _containers
from grader.sim import host as H
from grader.sim import faults as _faults
from grader.sim import multi as _multi
from grader.sim.groups import RAY_GRACE_S, STOP_GRACE_S, _end_groups, _stray_serving_pids, stop_groups  # noqa: F401
from grader.sim import serve_spec as S
from grader.sim import tiny_model
from grader.sim import topology as T

RAY_TMP = "/tmp/ray"
"""Ray's own default temporary folder (in a node, its private /tmp): where the lab's start keeps the sim's Ray."""
HEALTH_DEADLINE_S = 240.0
"""How long start waits for /health. A healthy start takes ~30-50 s on 2 cores (eager, the sim's plugin; it
took ~60-90 s compiling, PP=3 on three nodes ~126 s cold); a broken
launch either exits (seen within ~30 s) or hangs (placement group, a leader without an address),
and the deadline turns the hang into an error naming the log."""
HANG_QUIET_S = 20.0
"""A log that has not grown for this long when the deadline passes is reported as a hang."""
ONESHOT_DEADLINE_S = 90.0
INSTALL_HINT = "bash scripts/install-serve.sh"


class ServeError(H.SimError):
    """Serving could not start or stop; the message names the log or the fix."""


def installed() -> str | None:
    """None when the serving environment is ready; otherwise what is missing and the fix."""
    for exe in ("vllm", "ray", "python"):
        if not os.access(S.SERVE_VENV / "bin" / exe, os.X_OK):
            return f"no {S.SERVE_VENV}/bin/{exe}: install vLLM's CPU build and Ray first ({INSTALL_HINT})"
    if not (S.SERVE_VENV / ".clusterlab-serve").is_file():
        return f"{S.SERVE_VENV} is incomplete: run {INSTALL_HINT} again"
    return None


def ensure_model(out: Path = S.MODEL_DIR) -> Path:
    """Make the tiny model at ``out`` unless it is there with the current recipe."""
    if tiny_model.is_current(out):
        return out
    p = subprocess.run([str(S.SERVE_VENV / "bin" / "python"), tiny_model.__file__, str(out)],
                       capture_output=True, text=True, timeout=300,
                       env={**os.environ, **S.QUIET_ENV, "PATH": f"{S.SERVE_VENV}/bin:{os.environ.get('PATH', '')}"})
    if p.returncode != 0 or not tiny_model.is_current(out):
        tail = " / ".join((p.stderr or p.stdout).strip().splitlines()[-3:])
        raise ServeError(f"making the tiny model at {out} failed: {tail}")
    return out


def _tail(path: Path, lines: int = 4) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return f"(no {path})"
    return " / ".join(line.strip()[:300] for line in text[-lines:])


def _move_model(node: str, elsewhere: str) -> None:
    """In ``node``'s own mount namespace: copy the model to ``elsewhere`` and cover the shared path
    with an empty tmpfs (fault model-path-differs); gone with the node at ``sim down``."""
    model = str(S.MODEL_DIR)
    script = ('set -e; mkdir -p "$2"; cp -a "$1/." "$2/"; chown -R "$3" "$2"; '
              'grep -qs " $1 tmpfs " /proc/mounts || mount -t tmpfs -o size=1m clsim-nomodel "$1"')
    p = subprocess.run(H.node_command(node) + ["sh", "-c", script, "move-model", model, elsewhere,
                                                     f"{T.LOGIN_UID}:{T.LOGIN_UID}"],
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise ServeError(f"{node}: moving the model to {elsewhere} failed: {(p.stderr or p.stdout).strip()[-300:]}")


def _diagnosis(path: Path) -> str | None:
    """What lesson 2b's launch check would say about a failed vLLM log: its first failing diagnosis."""
    from grader.diagnoses import diagnose
    from grader.parsers.vllm_log import parse_vllm_log
    try:
        found = [d for d in diagnose(parse_vllm_log(path.read_text(errors="replace"))) if d.severity == "fail"]
    except (OSError, ValueError):
        return None
    return found[0].message if found else None


def _hang_message(host_url: str, deadline_s: float, log: Path) -> str:
    """Why start gave up waiting for /health: the deadline, and how long ``log`` has not grown."""
    try:
        quiet = time.time() - log.stat().st_mtime
    except OSError:
        quiet = None
    still = (f"; {log} has had no new line for {quiet:.0f} s: vLLM hangs without an error"
             if quiet is not None and quiet >= HANG_QUIET_S else "")
    return (f"{host_url}/health did not answer within {deadline_s:.0f} s{still} (log: {log}: {_tail(log)}; "
            "it is left running for `clusterlab check lesson2`, which diagnoses it; `clusterlab sim down` stops it)")


def _launch(proc: S.Proc, as_login_user: bool = True) -> subprocess.Popen:
    """Start ``proc`` in its node, as the node's login user (as the learner's own ``ray start`` and ``vllm serve``
    run; the grader, logged in as that user, reads their environment) or, for the containers' engine, as root."""
    proc.log.parent.mkdir(parents=True, exist_ok=True)
    with open(proc.log, "ab") as log:
        log.write(f"# clusterlab sim serve: {proc.node}: {' '.join(proc.argv)}\n".encode())
        log.flush()
        prefix = H.login_command(proc.node, workdir=None) if as_login_user else H.node_command(proc.node)
        return subprocess.Popen(prefix + proc.argv, env=proc.env, cwd="/",
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)


def _health(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(url + "/health", timeout=timeout) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _serve_inventory(ss: S.ServeSpec) -> str:
    lines = ["", "[serve]", f'url = "{ss.url}"', f'model = "{ss.model}"', f'served_model_name = "{S.SERVED_NAME}"',
             f'mode = "{ss.mode}"', f'head = "{ss.head}"', f'log_dir = "{T.LOG_DIR}"']
    if ss.ray_address:
        lines.append(f'ray_address = "{ss.ray_address}"')
    return "\n".join(lines) + "\n"


def _strip_serve(text: str) -> str:
    """The inventory without its [serve] table (always written last)."""
    head, sep, _ = text.partition("\n[serve]\n")
    return head.rstrip("\n") + "\n" if sep else text


def _spec_of(state: dict) -> T.Spec:
    """The spec the running sim was built from: its topology, node count and faults (the state's)."""
    names = state.get("nodes") or list(T.NODES)
    return _multi.build_spec(len(names), state.get("topology", "pair"), state.get("faults", []))


def start(mode: str = "ray", *, wait: bool = True, deadline_s: float = HEALTH_DEADLINE_S,
          network: str = "qsfp", containers: bool = False, vllm: bool = True) -> dict:
    """Start serving in ``mode`` (``ray``, ``nnodes`` or ``single``) on the running sim, replacing
    any serving already there, and wait for /health (unless ``wait`` is False). ``network``:
    ``qsfp`` (the twins, the course's setup) or ``house`` (Ray, VLLM_HOST_IP and the interface
    variables on ``enP7s7``: the house-network lesson, see :func:`shape_house`). ``containers``: Ray
    and vLLM in each node's containers, as NVIDIA's run_cluster.sh starts them (:mod:`grader.sim.containers`).
    ``vllm`` False: Ray only (its ``ray start`` commands, no ``vllm serve``, no [serve] table; the state's
    ``serve`` says ``ray_only``): the lab's start on the sim, lesson 2's end with vLLM stopped, where the
    learner serves the model (grader.lifecycle).

    Returns the facts recorded in the state and the inventory's [serve] table, plus
    ``health_s`` (seconds from the first process to /health). ``deadline_s`` is shortened by a
    fault that hangs the launch (``Fault.health_deadline_s``, e.g. nnodes-no-host-ip).

    Raises ServeError, naming the failing log and its last lines (and, for a hang, how long the log
    has not grown), when a `ray start` fails, vLLM exits, or /health does not answer within the
    deadline; also when a fault belongs to another mode. After a failure Ray is left as it is (a
    worker that never joined stays out), vLLM that exited is stopped, vLLM that hangs is left
    hanging (as a learner finds it), the logs stay until ``sim down``, and the inventory keeps a
    [serve] table naming them, so ``check lesson2`` can diagnose the launch.
    """
    if mode not in S.MODES:
        raise ServeError(f"unknown serve mode {mode!r}; known modes: {', '.join(S.MODES)}")
    if network not in S.NETWORKS:
        raise ServeError(f"unknown serving network {network!r}; known: {', '.join(S.NETWORKS)}")
    if containers and not vllm:
        raise ServeError("Ray alone (no vLLM) is not offered in containers")
    missing = installed()
    if missing:
        raise ServeError(missing)
    state = H._read_state()
    if not state.get("complete"):
        raise ServeError("the simulated cluster is not up: run `clusterlab sim up` first")
    wrong_mode, fault_deadline = _faults.serve_requirements(state.get("faults", []), mode, containers)
    if wrong_mode:
        raise ServeError(wrong_mode)
    if fault_deadline is not None:
        deadline_s = min(deadline_s, fault_deadline)
    spec = _spec_of(state)
    why_not = S.supported(mode, len(spec.names), containers)
    if why_not:
        raise ServeError(why_not)
    theirs = learners_own(state)
    stop()
    if theirs:
        raise ServeError(f"{', '.join(theirs)} already run(s) Ray or vLLM that the sim did not start (your own, from "
                         "lesson 2's sim path): the sim's serving would collide with it (the same ports). Stop yours "
                         "first (`ray stop` on every node stops Ray and the vLLM it carries; end your `vllm serve`), "
                         "or keep serving it yourself")
    ss = S.serve_spec(spec, mode, network)
    if containers:
        missing = _containers.installed(spec.image_tag)
        if missing:
            raise ServeError(missing)
        try:
            ss = _containers.containerize(ss, spec.image_tag, spec.docker_run_drop_env)
        except ValueError as e:
            raise ServeError(str(e)) from None
    ensure_model()
    for node, elsewhere in (getattr(spec, "model_elsewhere", None) or {}).items():
        _move_model(node, elsewhere)
    os.chmod(T.LOG_DIR, 0o755)  # each node's logs are read over SSH as the login user
    S.RAY_DIR.mkdir(parents=True, exist_ok=True)
    for node in ss.nodes:
        for d in (S.TMP_DIR / node, S.CACHE_DIR / node, T.LOG_DIR / node, S.RAY_DIR / node[-1]):
            d.mkdir(parents=True, exist_ok=True)
            if not containers:  # what the login user's processes write
                H.own(d)
    for proc in ss.procs:
        proc.log.unlink(missing_ok=True)

    t0 = time.monotonic()
    info = {"mode": mode, "url": ss.url, "host_url": ss.host_url, "model": ss.model,
            "served_model_name": S.SERVED_NAME, "head": ss.head, "ray_address": ss.ray_address,
            "addresses": ss.addresses, "iface": ss.iface, "network": network, "started": time.time(), "groups": [],
            "logs": {f"{p.node}/{p.name}": str(p.log) for p in ss.procs}, "containers": containers}
    if not vllm:
        # Ray's default temporary folder in the node (its own /tmp), where a learner's `ray start` keeps it: a
        # `vllm serve` typed in the node then finds this cluster as it finds one the learner started
        ss = dataclasses.replace(ss, procs=[dataclasses.replace(p, argv=[
            f"--temp-dir={RAY_TMP}" if a.startswith("--temp-dir=") else a for a in p.argv]) for p in ss.procs if p.oneshot])
        info.update(ray_only=True, logs={f"{p.node}/{p.name}": str(p.log) for p in ss.procs})
        wait = False
    running: list[tuple[S.Proc, subprocess.Popen]] = []
    hung = False
    try:
        with H._locked():
            st = H._read_state()
            st["serve"] = info
            H._write_state(st)
        if containers:
            _containers.hide_host_ray()
            info["engines"] = {}
            _record(info)
            try:
                info["engines"] = _containers.start_engines(info["engines"])
            finally:
                _record(info)
        for proc in ss.procs:
            p = _launch(proc, as_login_user=not containers)
            info["groups"].append({"node": proc.node, "name": proc.name, "pgid": p.pid})
            _record(info)
            if proc.oneshot:
                try:
                    rc = p.wait(timeout=ONESHOT_DEADLINE_S)
                except subprocess.TimeoutExpired:
                    raise ServeError(f"{proc.node}: `{proc.label or ' '.join(proc.argv[:3])}` did not finish in "
                                     f"{ONESHOT_DEADLINE_S:.0f} s: {_tail(proc.log)} (log: {proc.log})") from None
                if rc != 0:
                    raise ServeError(f"{proc.node}: `{proc.label or ' '.join(proc.argv[:3])}` failed (rc {rc}): "
                                     f"{_diagnosis(proc.log) or _tail(proc.log)} (log: {proc.log}; "
                                     "`clusterlab check lesson2` diagnoses it)")
            else:
                running.append((proc, p))
        if wait:
            deadline = t0 + deadline_s
            while not _health(ss.host_url):
                for proc, p in running:
                    if p.poll() is not None:
                        raise ServeError(f"{proc.node}: vllm serve exited (rc {p.returncode}) before /health "
                                         f"answered: {_diagnosis(proc.log) or _tail(proc.log)} (log: {proc.log}; "
                                         "`clusterlab check lesson2` diagnoses it)")
                if time.monotonic() > deadline:
                    hung = True
                    raise ServeError(_hang_message(ss.host_url, deadline_s, running[-1][0].log))
                time.sleep(0.5)
            info["health_s"] = round(time.monotonic() - t0, 1)
    except ServeError:
        if info["groups"]:
            # something started and failed (a `ray start`, or vLLM exited or hung): keep Ray as it is,
            # the logs, the state and a [serve] table naming them, so lesson 2b's checks can read what
            # failed. vLLM that exited is stopped (its other processes); vLLM that hangs is left hanging,
            # as a learner would find it (its processes and variables readable), until `sim down`
            with contextlib.suppress(H.SimError, OSError):
                if not hung:
                    _end_groups([g["pgid"] for g in info["groups"] if g["name"] == "vllm"], STOP_GRACE_S)
                info["ready"] = False
                info["failed"] = True
                info["hung"] = hung
                _record(info)
                if T.INVENTORY.is_file():
                    H._write(T.INVENTORY, _strip_serve(T.INVENTORY.read_text(encoding="utf-8")) + _serve_inventory(ss))
        else:
            with contextlib.suppress(H.SimError, OSError):
                stop()
        raise
    except BaseException:
        with contextlib.suppress(H.SimError, OSError):
            stop()
        raise
    info["ready"] = wait
    _record(info)
    if vllm and T.INVENTORY.is_file():
        H._write(T.INVENTORY, _strip_serve(T.INVENTORY.read_text(encoding="utf-8")) + _serve_inventory(ss))
    return info


def learners_own(state: dict) -> list[str]:
    """The nodes where the learner's own Ray or vLLM runs, from the sim's ``state`` (its state file, or
    ``sim status``): none while the sim's own serving is recorded (then :func:`stop` ends every serving process
    in the nodes); else any found (:func:`learner_serving`) is the learner's, which the sim must not kill."""
    if state.get("serve"):
        return []
    return learner_serving(list(state.get("nodes") or T.NODES))


def learner_serving(nodes: list[str]) -> list[str]:
    """The nodes where a Ray daemon or a ``vllm serve`` runs (:func:`start` asks only when the sim's own serving
    is not up, so any found is the learner's). Reads each node's process table; changes nothing."""
    found = []
    for node in nodes:
        p = subprocess.run(H.node_command(node) + ["pgrep", "-f", r"raylet|gcs_server|vllm serve"],
                           capture_output=True, text=True, timeout=10)
        if p.stdout.strip():
            found.append(node)
    return found


def _record(info: dict) -> None:
    with H._locked():
        st = H._read_state()
        st["serve"] = info
        H._write_state(st)


def stop() -> None:
    """Stop serving (a no-op when nothing serves); the cluster stays up, the logs stay."""
    with H._locked():
        state = H._read_state()
    if not state.get("serve"):
        return
    stop_groups(state)
    with H._locked():
        st = H._read_state()
        st.pop("serve", None)
        H._write_state(st)
        if T.INVENTORY.is_file():
            H._write(T.INVENTORY, _strip_serve(T.INVENTORY.read_text(encoding="utf-8")))


def status() -> dict | None:
    """The recorded [serve] facts, with ``healthy`` (does /health answer now), or None."""
    serve = H._read_state().get("serve")
    if not serve:
        return None
    return {**serve, "healthy": _health(serve["host_url"], 1.0)}


def node_shm_files(node: str) -> list[str]:
    """The names in ``node``'s own /dev/shm (for tests and the benchmark)."""
    p = subprocess.run(H.node_command(node) + ["ls", "-A", "/dev/shm"], capture_output=True, text=True, timeout=10)
    return p.stdout.split()


# --- the house-network lesson: shaping enP7s7 and timing the first token ---------------------------

HOUSE_SHAPED_RATE = "2mbit"
"""The slow house network of the lesson: 2 Mbit/s, the rate research/vllm_netns.md §7 measured TTFT at
(median 38 ms on the link at 1 Gbit/s, 578 ms at 2 Mbit/s, PP=2 across private /dev/shm)."""
HOUSE_SHAPED_TBF = ("burst", "32kb", "latency", "400ms")


def shape_house(rate: str | None) -> None:
    """Shape every node's ``enP7s7`` egress to ``rate`` (tc tbf, e.g. ``"2mbit"``), or restore the sim's
    own 1 Gbit/s shaping with None. Raises ServeError when tc fails (the sim must be up, as root)."""
    tbf = T.HOUSE_TBF if rate is None else ("rate", rate, *HOUSE_SHAPED_TBF)
    for node in H._read_state().get("nodes") or T.NODES:
        p = subprocess.run(["tc", "-n", node, "qdisc", "replace", "dev", T.HOUSE_IF, "root", "tbf", *tbf],
                           capture_output=True, text=True, timeout=10)
        if p.returncode != 0:
            raise ServeError(f"{node}: shaping {T.HOUSE_IF} to {rate or T.HOUSE_RATE} failed: {p.stderr.strip()[:200]}")


def link_bytes(node: str, iface: str) -> tuple[int, int]:
    """(rx, tx) bytes counted so far on ``node``'s ``iface`` (``ip -s -j link``)."""
    p = subprocess.run(["ip", "-n", node, "-s", "-j", "link", "show", iface], capture_output=True, text=True, timeout=10)
    try:
        stats = json.loads(p.stdout)[0]["stats64"]
        return int(stats["rx"]["bytes"]), int(stats["tx"]["bytes"])
    except (ValueError, LookupError, TypeError):
        raise ServeError(f"{node}: no byte counters for {iface}: {(p.stderr or p.stdout).strip()[:200]}") from None


TTFT_PROMPT = " ".join(["the pipeline sends activations over the cable"] * 24)
"""The fixed prompt of the TTFT measurement: each request moves ~86 KB to spark-b (its counters, measured
on the sim: PP rank 0's hidden states and residual for the prompt, and the engine's messages)."""

_TTFT_CLIENT = r"""
import http.client, json, sys, time
port, model, prompt, n, max_tokens = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
body = json.dumps({"model": model, "prompt": prompt, "max_tokens": max_tokens, "stream": True,
                   "ignore_eos": True, "temperature": 0})
out = []
for _ in range(n):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    t0 = time.perf_counter()
    conn.request("POST", "/v1/completions", body, {"Content-Type": "application/json"})
    resp = conn.getresponse()
    if resp.status != 200:
        sys.exit("HTTP %d: %s" % (resp.status, resp.read()[:300]))
    first = None
    while True:
        line = resp.readline()
        if not line:
            break
        if first is None and line.startswith(b"data: {"):
            first = time.perf_counter()
    conn.close()
    if first is None:
        sys.exit("no streamed token")
    out.append((first - t0) * 1000)
print(json.dumps(out))
"""


def ttft_ms(n: int = 5, *, prompt: str = TTFT_PROMPT, max_tokens: int = 4, node: str = S.HEAD) -> list[float]:
    """Time to first token of ``n`` streamed completions, one after another, in ms (a list of n floats).

    The client runs inside the head ``node`` and talks to 127.0.0.1: its own traffic crosses no link,
    so the only bytes on the QSFP twin or the house network are the ranks' (PP activations, the
    engine's messages). Raises ServeError when a request fails or nothing serves."""
    argv = [str(S.SERVE_VENV / "bin" / "python"), "-c", _TTFT_CLIENT, str(S.SERVE_PORT), S.SERVED_NAME, prompt,
            str(n), str(max_tokens)]
    p = subprocess.run(H.node_command(node) + argv, capture_output=True, text=True, timeout=60 + 60 * n)
    try:
        values = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise ServeError(f"the TTFT client on {node} failed: {(p.stderr or p.stdout).strip()[-300:]}") from None
    return [float(v) for v in values]


def _median(xs: list[float]) -> float:
    xs = sorted(xs)
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2


def _measure(n: int, links: list[tuple[str, str]]) -> dict:
    """One warm-up request, then ``n`` timed ones; the bytes spark-b received meanwhile on each link."""
    ttft_ms(1)
    before = {f"{node}/{iface}": link_bytes(node, iface)[0] for node, iface in links}
    samples = ttft_ms(n)
    return {"ttft_ms": [round(x, 1) for x in samples], "median_ms": round(_median(samples), 1),
            "rx_bytes": {k: link_bytes(*k.split("/", 1))[0] - v for k, v in before.items()}}


def compare_networks(n: int = 5, rate: str = HOUSE_SHAPED_RATE) -> dict:
    """The house-network lesson, measured: the same ``n`` requests (TTFT_PROMPT, 4 tokens, one at a time)
    served by Ray + PP=2 bound to the QSFP twin, then bound to the house network ``enP7s7`` at the
    sim's 1 Gbit/s and shaped down to ``rate``. The house network is shaped to ``rate`` during the QSFP
    run too, so only where the activations go differs. Needs the sim up (``sim.up()``), as root; a healthy
    Ray + PP=2 already serving on the twins is measured as it is (its ``health_s`` is then None), anything
    else is replaced. Leaves the house-network serving running, and the house shaping restored to 1 Gbit/s.

    Returns {"qsfp": run, "house_1gbit": run, "house_shaped": run, "rate": rate, "health_s": {...}},
    each run {"ttft_ms": [n floats, ms], "median_ms", "rx_bytes": {"spark-b/<iface>": bytes received
    during the n requests}}. Raises ServeError when serving cannot start or a request fails.
    """
    worker = S.WORKER
    links = [(worker, T.TWINS[T.QSFP_PORT][0]), (worker, T.HOUSE_IF)]
    out: dict = {"rate": rate, "n": n, "health_s": {}}
    try:
        now = status()
        ours = (now is not None and now["healthy"] and now.get("ready") and now["mode"] == "ray"
                and now.get("network", "qsfp") == "qsfp" and not now.get("containers"))
        out["health_s"]["qsfp"] = None if ours else start("ray")["health_s"]
        shape_house(rate)
        out["qsfp"] = _measure(n, links)
        shape_house(None)
        out["health_s"]["house"] = start("ray", network="house")["health_s"]
        out["house_1gbit"] = _measure(n, links)
        shape_house(rate)
        out["house_shaped"] = _measure(n, links)
    finally:
        with contextlib.suppress(ServeError, OSError, subprocess.SubprocessError):
            shape_house(None)
    return out
