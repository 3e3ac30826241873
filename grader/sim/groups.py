"""Ending the serving stack's processes in the sim's nodes: the process groups the state records
(vLLM, then Ray), strays still running the serving environment, and what the run left in each
node's own /dev/shm. Below both :mod:`~grader.sim.serve` (``stop``) and :mod:`~grader.sim.cluster`
(``sim down``), which call :func:`stop_groups`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

from grader.sim import containers as _containers
from grader.sim import host as H
from grader.sim import serve_spec as S
from grader.sim import topology as T

STOP_GRACE_S = 8.0
"""How long vLLM gets to stop after SIGTERM (it takes 1.6-2.6 s here) before SIGKILL."""
RAY_GRACE_S = 2.0


_group_alive = H.group_alive


def stop_groups(state: dict) -> None:
    """End the process groups ``state['serve']`` records (TERM, a grace period, KILL), then any
    process still running the serving environment in a node, then the files the run left in each
    node's /dev/shm. Needs no lock; ``sim down`` calls it with the state it read."""
    serve = state.get("serve") or {}
    if serve.get("containers"):  # the containers (Ray and vLLM in them), then each node's engine
        _containers.end_engines(state)
        _containers.restore_host_ray()
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
    H.end_groups([g for g in pgids if _group_alive(g) and _is_sim_group(g)], grace)


def _is_sim_group(pgid: int) -> bool:
    """Whether the group leader (or, once it has exited, any member) is in a node namespace."""
    if any(H._pid_in_ns(pgid, ns) for ns in T.NODE_NAMES):
        return True
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = Path(f"/proc/{entry}/stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[2]) == pgid:
                    return any(H._pid_in_ns(int(entry), ns) for ns in T.NODE_NAMES)
    return False


def _stray_serving_pids() -> list[int]:
    venv = str(S.SERVE_VENV)
    out = []
    for ns in T.NODE_NAMES:  # every node a sim may have (a switch of up to 8); absent ones list nothing
        for pid in H._ns_pids(ns):
            with contextlib.suppress(OSError):
                exe = os.readlink(f"/proc/{pid}/exe")
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                if exe.startswith(venv) or venv in cmd or cmd.startswith(("ray::", "VLLM::")):
                    out.append(pid)
    return out


def _clean_node_shm(state: dict, since: float) -> None:
    """Remove what the run left in each node's own /dev/shm (Ray's plasma file, vLLM's segments):
    the entries changed since ``since``, so a learner's own files there stay."""
    for node, pid in (state.get("init_pids") or {}).items():
        if node in T.NODE_NAMES and H._pid_in_ns(pid, node):
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                subprocess.run([H._which("nsenter") or "nsenter", "-t", str(pid), "-m", "--", "find", "/dev/shm", "-mindepth", "1",
                                "-maxdepth", "1", "-newerct", f"@{since:.0f}", "-exec", "rm", "-rf", "--", "{}", "+"],
                               capture_output=True, timeout=10)
