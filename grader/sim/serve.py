"""Serve the tiny model on the simulated cluster: Ray across both nodes and one ``vllm serve``.

    from grader.sim import serve
    info = serve.start("ray")     # the sim must be up; returns the [serve] facts (url, mode, ...)
    serve.stop()                  # what start started; `sim down` calls it too

What runs where is data (:mod:`grader.sim.serve_spec`). Every process is started in its node's
namespaces (network, mount, UTS: nsenter into that node's sshd), so it has the node's hostname,
/etc/hosts, /root and its own /dev/shm, exactly like a command run over SSH there; and each in its
own process group (session), recorded in the sim's state so ``stop`` ends it by group. Logs go to
``/var/lib/clusterlab/sim/logs/<node>/{ray,vllm}.log``, readable over SSH on either node. When the
server answers /health, the inventory gets a ``[serve]`` table with the endpoint.

Needs the serving environment (``bash scripts/install-serve.sh``); the model is made on first use.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from grader.sim import cluster as C
from grader.sim import faults as _faults
from grader.sim import serve_spec as S
from grader.sim import tiny_model
from grader.sim import topology as T

HEALTH_DEADLINE_S = 240.0
"""How long start waits for /health. A healthy cold start takes ~60-90 s on 2 cores; a broken
launch either exits (seen within ~30 s) or hangs (placement group, a leader without an address),
and the deadline turns the hang into an error naming the log."""
ONESHOT_DEADLINE_S = 90.0
STOP_GRACE_S = 8.0
"""How long vLLM gets to stop after SIGTERM (it takes 1.6-2.6 s here) before SIGKILL."""
RAY_GRACE_S = 2.0
INSTALL_HINT = "bash scripts/install-serve.sh"


class ServeError(C.SimError):
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
    script = ('set -e; mkdir -p "$2"; cp -a "$1/." "$2/"; '
              'grep -qs " $1 tmpfs " /proc/mounts || mount -t tmpfs -o size=1m clsim-nomodel "$1"')
    p = subprocess.run(C.node_command(node) + ["sh", "-c", script, "move-model", model, elsewhere],
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise ServeError(f"{node}: moving the model to {elsewhere} failed: {(p.stderr or p.stdout).strip()[-300:]}")


def _diagnosis(path: Path) -> str | None:
    """What lesson 2b's launch check would say about a failed vLLM log: its first failing diagnosis."""
    from grader.parsers.vllm_log import diagnose, parse_vllm_log
    try:
        found = [d for d in diagnose(parse_vllm_log(path.read_text(errors="replace"))) if d.severity == "fail"]
    except (OSError, ValueError):
        return None
    return found[0].message if found else None


def _launch(proc: S.Proc) -> subprocess.Popen:
    proc.log.parent.mkdir(parents=True, exist_ok=True)
    with open(proc.log, "ab") as log:
        log.write(f"# clusterlab sim serve: {proc.node}: {' '.join(proc.argv)}\n".encode())
        log.flush()
        return subprocess.Popen(C.node_command(proc.node) + proc.argv, env=proc.env, cwd="/",
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)


def _group_alive(pgid: int) -> bool:
    """Whether any process of group ``pgid`` still runs (zombies do not count: a leader this
    process started is reaped here, others are init's)."""
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pgid, os.WNOHANG)
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[2]) == pgid and fields[0] != "Z":
                    return True
    return False


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
    return _faults.apply_faults(T.default_spec(), state.get("faults", []))


def start(mode: str = "ray", *, wait: bool = True, deadline_s: float = HEALTH_DEADLINE_S) -> dict:
    """Start serving in ``mode`` (``ray``, ``nnodes`` or ``single``) on the running sim, replacing
    any serving already there, and wait for /health (unless ``wait`` is False).

    Returns the facts recorded in the state and the inventory's [serve] table, plus
    ``health_s`` (seconds from the first process to /health). Raises ServeError with the failing
    log's tail when a process exits, or /health does not answer within ``deadline_s``; what was
    started is stopped again then, and the logs stay until ``sim down``; except when every process
    started and vLLM failed (a launch fault): then only vLLM is stopped, Ray keeps running and the
    inventory keeps a [serve] table naming the logs, so ``check lesson2`` can diagnose the launch.
    """
    if mode not in S.MODES:
        raise ServeError(f"unknown serve mode {mode!r}; known modes: {', '.join(S.MODES)}")
    missing = installed()
    if missing:
        raise ServeError(missing)
    state = C._read_state()
    if not state.get("complete"):
        raise ServeError("the simulated cluster is not up: run `clusterlab sim up` first")
    stop()
    spec = _spec_of(state)
    ss = S.serve_spec(spec, mode)
    ensure_model()
    for node, elsewhere in (getattr(spec, "model_elsewhere", None) or {}).items():
        _move_model(node, elsewhere)
    for node in T.NODES:
        for d in (S.TMP_DIR / node, S.CACHE_DIR / node, T.LOG_DIR / node):
            d.mkdir(parents=True, exist_ok=True)
    S.RAY_DIR.mkdir(parents=True, exist_ok=True)
    for proc in ss.procs:
        proc.log.unlink(missing_ok=True)

    t0 = time.monotonic()
    info = {"mode": mode, "url": ss.url, "host_url": ss.host_url, "model": ss.model,
            "served_model_name": S.SERVED_NAME, "head": ss.head, "ray_address": ss.ray_address,
            "addresses": ss.addresses, "iface": ss.iface, "started": time.time(), "groups": [],
            "logs": {f"{p.node}/{p.name}": str(p.log) for p in ss.procs}}
    running: list[tuple[S.Proc, subprocess.Popen]] = []
    try:
        with C._locked():
            st = C._read_state()
            st["serve"] = info
            C._write_state(st)
        for proc in ss.procs:
            p = _launch(proc)
            info["groups"].append({"node": proc.node, "name": proc.name, "pgid": p.pid})
            _record(info)
            if proc.oneshot:
                try:
                    rc = p.wait(timeout=ONESHOT_DEADLINE_S)
                except subprocess.TimeoutExpired:
                    raise ServeError(f"{proc.node}: `{' '.join(proc.argv[:3])}` did not finish in "
                                     f"{ONESHOT_DEADLINE_S:.0f} s: {_tail(proc.log)} (log: {proc.log})") from None
                if rc != 0:
                    raise ServeError(f"{proc.node}: `{' '.join(proc.argv[:3])}` failed (rc {rc}): "
                                     f"{_tail(proc.log)} (log: {proc.log})")
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
                    raise ServeError(f"{ss.host_url}/health did not answer within {deadline_s:.0f} s "
                                     f"(log: {running[-1][0].log}: {_tail(running[-1][0].log)})")
                time.sleep(0.5)
            info["health_s"] = round(time.monotonic() - t0, 1)
    except ServeError:
        if info["groups"] and all(any(g["name"] == p.name and g["node"] == p.node for g in info["groups"])
                                  for p in ss.procs):
            # every process was started (Ray is up) and vLLM failed: stop vLLM only, keep Ray, the
            # state and a [serve] table naming the logs, so lesson 2b's checks can diagnose the launch
            with contextlib.suppress(C.SimError, OSError):
                _end_groups([g["pgid"] for g in info["groups"] if g["name"] == "vllm"], STOP_GRACE_S)
                info["ready"] = False
                info["failed"] = True
                _record(info)
                if T.INVENTORY.is_file():
                    C._write(T.INVENTORY, _strip_serve(T.INVENTORY.read_text(encoding="utf-8")) + _serve_inventory(ss))
        else:
            with contextlib.suppress(C.SimError, OSError):
                stop()
        raise
    except BaseException:
        with contextlib.suppress(C.SimError, OSError):
            stop()
        raise
    info["ready"] = wait
    _record(info)
    if T.INVENTORY.is_file():
        C._write(T.INVENTORY, _strip_serve(T.INVENTORY.read_text(encoding="utf-8")) + _serve_inventory(ss))
    return info


def _record(info: dict) -> None:
    with C._locked():
        st = C._read_state()
        st["serve"] = info
        C._write_state(st)


def stop_groups(state: dict) -> None:
    """End the process groups ``state['serve']`` records (TERM, a grace period, KILL), then any
    process still running the serving environment in a node, then the files the run left in each
    node's /dev/shm. Needs no lock; ``sim down`` calls it with the state it read."""
    serve = state.get("serve") or {}
    groups = list(reversed(serve.get("groups", [])))
    # vLLM first: it shuts its engine down and hands Ray's placement group back within a few
    # seconds. Ray's daemons often ignore TERM, so they get a short grace before KILL.
    for names, grace in ((("vllm",), STOP_GRACE_S), (("ray",), RAY_GRACE_S)):
        _end_groups([g["pgid"] for g in groups if g["name"] in names], grace)
    # Ray's raylet starts its workers in their own sessions: whatever still runs the serving
    # environment's Python or binaries inside a node namespace is the serving stack's.
    for sig in (signal.SIGTERM, signal.SIGKILL):
        left = _stray_serving_pids()
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, sig)
        deadline = time.monotonic() + 3.0
        while left and time.monotonic() < deadline:
            time.sleep(0.1)
            left = _stray_serving_pids()
        if not left:
            break
    if serve:
        _clean_node_shm(state, serve.get("started", 0.0) - 1.0)


def _end_groups(pgids: list[int], grace: float) -> None:
    """TERM each live process group of the sim, wait up to ``grace`` s, KILL what is left."""
    live = [g for g in pgids if _group_alive(g) and _is_sim_group(g)]
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 3.0)):
        for pgid in live:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, sig)
        deadline = time.monotonic() + wait
        while live and time.monotonic() < deadline:
            time.sleep(0.1)
            live = [g for g in live if _group_alive(g)]
        if not live:
            return


def _is_sim_group(pgid: int) -> bool:
    """Whether the group leader (or, once it has exited, any member) is in a node namespace."""
    if any(C._pid_in_ns(pgid, ns) for ns in T.NODES):
        return True
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = Path(f"/proc/{entry}/stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[2]) == pgid:
                    return any(C._pid_in_ns(int(entry), ns) for ns in T.NODES)
    return False


def _stray_serving_pids() -> list[int]:
    venv = str(S.SERVE_VENV)
    out = []
    for ns in T.NODES:
        for pid in C._ns_pids(ns):
            with contextlib.suppress(OSError):
                exe = os.readlink(f"/proc/{pid}/exe")
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                if exe.startswith(venv) or venv in cmd or cmd.startswith(("ray::", "VLLM::")):
                    out.append(pid)
    return out


def _clean_node_shm(state: dict, since: float) -> None:
    """Remove what the run left in each node's own /dev/shm (Ray's plasma file, vLLM's segments):
    the entries changed since ``since``, so a learner's own files there stay."""
    for node, pid in (state.get("sshd_pids") or {}).items():
        if node in T.NODES and C._pid_in_ns(pid, node):
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                subprocess.run([C._which("nsenter") or "nsenter", "-t", str(pid), "-m", "--", "find", "/dev/shm", "-mindepth", "1",
                                "-maxdepth", "1", "-newerct", f"@{since:.0f}", "-exec", "rm", "-rf", "--", "{}", "+"],
                               capture_output=True, timeout=10)


def stop() -> None:
    """Stop serving (a no-op when nothing serves); the cluster stays up, the logs stay."""
    with C._locked():
        state = C._read_state()
    if not state.get("serve"):
        return
    stop_groups(state)
    with C._locked():
        st = C._read_state()
        st.pop("serve", None)
        C._write_state(st)
        if T.INVENTORY.is_file():
            C._write(T.INVENTORY, _strip_serve(T.INVENTORY.read_text(encoding="utf-8")))


def status() -> dict | None:
    """The recorded [serve] facts, with ``healthy`` (does /health answer now), or None."""
    serve = C._read_state().get("serve")
    if not serve:
        return None
    return {**serve, "healthy": _health(serve["host_url"], 1.0)}


def node_shm_files(node: str) -> list[str]:
    """The names in ``node``'s own /dev/shm (for tests and the benchmark)."""
    p = subprocess.run(C.node_command(node) + ["ls", "-A", "/dev/shm"], capture_output=True, text=True, timeout=10)
    return p.stdout.split()
