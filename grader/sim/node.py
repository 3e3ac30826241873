"""One simulated node as a machine: its init, its sshd, stopping and starting them, and rebooting it.

:mod:`~grader.sim.cluster` builds the network and the files, then boots each node here (:func:`boot`);
``sim reboot`` (:func:`reboot`), ``stop_sshd``/``start_sshd`` (the grader's unreachable-node tests) and
``sim down`` (:func:`kill_processes`) act on one node or all. What a node's init mounts is
:mod:`~grader.sim.node_init`'s docstring; the process ids here are the host's.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import time
from pathlib import Path

from grader.sim import nccl_sim as _nccl_sim
from grader.sim import netplan_sim as _netplan
from grader.sim import node_init as _node_init
from grader.sim import topology as T
from grader.sim.host import (SimError, _ip_batch, _locked, _mkdir, _ns_pids, _pid_in_ns, _read_state, _run, _tcp_open,
                             _which, _write, _write_state, init_pid, node_command)

SSHD_READY_S = 8.0
NETPLAN_APPLY = "clsim-netplan-apply"
"""The sim's ``netplan apply`` (grader/sim/netplan_sim.py), beside the ``netplan`` wrapper in a node's /usr/local/sbin."""
NODE_INIT = "clsim-node-init"
"""The node's PID 1 (grader/sim/node_init.py), copied beside the sim's commands."""
INIT_READY_S = 10.0
NODE_PYTHON = "/usr/bin/python3"
"""The system's Python, which runs a node's init and its ``netplan apply`` (the grader's venv may be under
/root, which each node has its own of)."""


def home(node: str) -> Path:
    """The node's own /root (bound there by its init)."""
    return T.NODES_DIR / node / "root"


def homes(node: str) -> Path:
    """The node's own /home (bound there by its init), which holds :data:`~grader.sim.topology.LOGIN_USER`'s home."""
    return T.NODES_DIR / node / "home"


def user_home(node: str) -> Path:
    """The login user's home in ``node`` (``/home/nvidia`` there), as the host sees it."""
    return homes(node) / T.LOGIN_USER


def etc(node: str) -> Path:
    """The node's own /etc files: the upper folder of its /etc overlay (edits made in the node land here)."""
    return T.NODES_DIR / node / "etc"


def opaque(path: Path) -> None:
    """Mark an overlay upper folder opaque: the host's folder of that name does not show through."""
    _mkdir(path, 0o755)
    os.setxattr(path, "trusted.overlay.opaque", b"y")


def install_commands() -> None:
    """Put the node's init, the sim's ``netplan`` (wrapper and applier) and its NCCL lines (grader/sim/nccl_sim.py,
    for the vLLM plugin) in the sim's bin folder, which every node sees as /usr/local/sbin."""
    shutil.copyfile(Path(_node_init.__file__), T.BIN_DIR / NODE_INIT)
    shutil.copyfile(Path(_netplan.__file__), T.BIN_DIR / NETPLAN_APPLY)
    shutil.copyfile(Path(_nccl_sim.__file__), T.BIN_DIR / Path(T.NCCL_SIM).name)
    os.chmod(T.BIN_DIR / NETPLAN_APPLY, 0o755)
    _write(T.BIN_DIR / "netplan", _netplan.wrapper(f"{T.NODE_BIN}/{NETPLAN_APPLY}"), 0o755)


# --- the node's init and sshd ------------------------------------------------------------------


def _init_spec(node: str) -> dict:
    """What :mod:`~grader.sim.node_init` mounts in ``node`` (see its docstring)."""
    upper = etc(node)
    return {"node": node, "home": str(home(node)), "homes": str(homes(node)), "etc_upper": str(upper),
            "etc_work": str(upper.with_name("etc-work")), "bin": str(T.BIN_DIR),
            "hide": [str(T.NODES_DIR / n) for n in T.NODE_NAMES if n != node] + [str(T.KEYS_DIR)],
            "hide_files": [str(T.GRADER_KEY), str(T.STATE_FILE)]}


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                if int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(entry))
    return out


def _start_init(node: str) -> int:
    """Start ``node``'s init (its own PID, UTS and mount namespaces inside its network namespace) and
    return its process id as the host sees it, once its mounts are made. Raises SimError with its words."""
    argv = ["ip", "netns", "exec", node, _which("unshare") or "unshare", "--uts", "--pid", "--fork",
            "--mount-proc", "--", NODE_PYTHON, "-I", str(T.BIN_DIR / NODE_INIT),
            json.dumps(_init_spec(node))]
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True)
    said = b""
    deadline = time.monotonic() + INIT_READY_S
    while b"ready\n" not in said and time.monotonic() < deadline:
        ready, _, _ = select.select([p.stdout], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(p.stdout.fileno(), 4096)
        if not chunk:
            break
        said += chunk
    p.stdout.close()
    kids = _children(p.pid)
    if b"ready\n" not in said or not kids:
        with contextlib.suppress(OSError):
            os.killpg(p.pid, signal.SIGKILL)
        detail = said.decode(errors="replace").strip().splitlines()[-2:]
        raise SimError(f"{node} did not start: {' / '.join(detail) or 'its init said nothing'} "
                       f"(`{NODE_PYTHON}` and `unshare --pid` are needed)")
    return kids[0]


def _start_sshd(node: str) -> None:
    log = T.LOG_DIR / f"sshd-{node}.log"
    p = _run(node_command(node) + [_which("sshd"), "-f", "/etc/ssh/sshd_config", "-E", str(log)],
             what=f"starting {node}'s sshd", check=False, timeout=15)
    if p.returncode != 0:  # sshd daemonizes: a non-zero exit means it never started
        tail = log.read_text(errors="replace").strip().splitlines()[-3:] if log.exists() else []
        detail = " / ".join(tail + (p.stderr.strip().splitlines()[-2:]))
        raise SimError(f"{node}'s sshd did not start: {detail or 'rc ' + str(p.returncode)} (log: {log})")


def wait_sshd(nodes: tuple[str, ...]) -> None:
    deadline = time.monotonic() + SSHD_READY_S
    pending = list(nodes)
    while pending:
        for node in list(pending):
            if _tcp_open(T.HOUSE_ADDR[node], 22, 0.2) and sshd_pid(node):  # the cheap test first
                pending.remove(node)
        if pending and time.monotonic() > deadline:
            raise SimError(f"sshd of {', '.join(pending)} not answering on port 22 after {SSHD_READY_S:.0f} s "
                           f"(logs in {T.LOG_DIR})")
        if pending:
            time.sleep(0.02)


def sshd_pid(node: str) -> int | None:
    """The host's process id of ``node``'s listening sshd (the sshd whose parent is the node's init), or None."""
    try:
        init = init_pid(node)
    except SimError:
        return None
    for pid in _children(init):
        with contextlib.suppress(OSError):
            if Path(f"/proc/{pid}/comm").read_text().strip() == "sshd":
                return pid
    return None


def boot(node: str, state: dict, *, netplan: bool) -> None:
    """Start ``node``'s init, record it, apply its netplan files as a boot does (``netplan``; else only note what
    they configure: the built state stands for their result), start its sshd."""
    state.setdefault("init_pids", {})[node] = _start_init(node)
    _write_state(state)
    p = _run(node_command(node) + [f"{T.NODE_BIN}/netplan", "apply", "--boot" if netplan else "--record"],
             what=f"{node}: netplan at boot", check=False, timeout=30)
    if netplan:
        if p.returncode != 0:
            state.setdefault("boot_problems", {})[node] = (p.stderr or p.stdout).strip()[-400:]
            _write_state(state)
    _start_sshd(node)


def kill_processes(state: dict, nodes: tuple[str, ...] = (*T.NODE_NAMES, T.VOID_NS)) -> None:
    """End every process of ``nodes``: their inits first (a PID namespace ends with its init), then
    whatever is left in their network namespaces (each holds only processes the sim started)."""
    for node, pid in (state.get("init_pids") or {}).items():
        if node in nodes and _pid_in_ns(pid, node):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    for sig, wait in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 2.0)):
        pids = [p for ns in nodes for p in _ns_pids(ns)]
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while pids and time.monotonic() < deadline:
            pids = [p for ns in nodes for p in _ns_pids(ns)]
            if pids:
                time.sleep(0.02)
        if not pids:
            return
    raise SimError(f"processes {pids} in the sim's namespaces survived SIGKILL; `ip netns pids {nodes[0]}`")


def _node_up(state: dict, node: str) -> None:
    if node not in (state.get("nodes") or T.NODES) or not state.get("complete"):
        raise SimError(f"{node} is not up: run `clusterlab sim up`")


def stop_sshd(node: str) -> None:
    """Stop ``node``'s sshd (its listener and process group), leaving the node and its network as they are:
    the grader then finds the node unreachable (connection refused). ``down`` ends whatever is left."""
    with _locked():
        _node_up(_read_state(), node)
        pid = sshd_pid(node)
        if pid:
            for send in (lambda: os.killpg(pid, signal.SIGTERM), lambda: os.kill(pid, signal.SIGTERM)):
                with contextlib.suppress(OSError):
                    send()
            deadline = time.monotonic() + 3
            while _pid_in_ns(pid, node) and time.monotonic() < deadline:
                time.sleep(0.02)
            if _pid_in_ns(pid, node):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)


def start_sshd(node: str) -> None:
    """Start ``node``'s sshd again after :func:`stop_sshd` (a no-op if it is running)."""
    with _locked():
        _node_up(_read_state(), node)
        if sshd_pid(node):
            return
        _start_sshd(node)
        wait_sshd((node,))


def reboot(node: str) -> None:
    """Restart ``node`` as a machine restarts: every process of it ends (Ray, vLLM, sshd, sessions), its
    /tmp, /run and /dev/shm start empty, each CX-7 twin comes back up with no address and MTU 1500, and
    its /etc/netplan files are applied again (:mod:`~grader.sim.netplan_sim`); its files (/etc, /root, /home) stay.
    A setting made only live (``ip addr add``, ``ip link set ... mtu``) is gone afterwards, as on a Spark.
    Raises SimError when the node is not up or does not come back."""
    with _locked():
        state = _read_state()
        _node_up(state, node)
        kill_processes(state, (node,))
        cmds = []
        for iface in T.ALL_TWINS:
            cmds += [f"addr flush dev {iface}", f"link set {iface} mtu {T.DEFAULT_MTU}", f"link set {iface} up"]
        _ip_batch(cmds, node, what=f"resetting {node}'s twins", force=True)
        state.get("boot_problems", {}).pop(node, None)
        boot(node, state, netplan=True)
        wait_sshd((node,))
