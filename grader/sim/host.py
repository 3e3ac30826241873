"""The sim's host-side plumbing, shared by :mod:`~grader.sim.cluster` (build, remove) and
:mod:`~grader.sim.serve` (the serving stack): its error, running a tool, writing files, the state
file and its lock, and which processes live in a node's namespaces. Imports no other sim module
but :mod:`~grader.sim.topology`, so neither of the two imports the other.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from grader.sim import topology as T

_SBIN_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/local/sbin", "/usr/sbin", "/sbin"])


class SimError(Exception):
    """The simulated cluster could not be built or removed. The message says what to do."""


def _which(tool: str) -> str | None:
    return shutil.which(tool, path=_SBIN_PATH)


def _run(argv: list[str], *, input: str | None = None, what: str = "", check: bool = True,
         timeout: float = 30) -> subprocess.CompletedProcess:
    try:
        p = subprocess.run(argv, input=input, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise SimError(f"{what or argv[0]}: `{' '.join(argv)}` did not finish in {timeout:.0f} s") from None
    if check and p.returncode != 0:
        detail = (p.stderr or p.stdout).strip().splitlines()
        raise SimError(f"{what or argv[0]} failed: `{' '.join(argv)}`: {' / '.join(detail[-3:]) or 'rc ' + str(p.returncode)}")
    return p


def _ip_batch(commands: list[str], netns: str | None = None, *, what: str, force: bool = False) -> None:
    if not commands:
        return
    argv = ["ip"] + (["-n", netns] if netns else []) + (["-force"] if force else []) + ["-batch", "-"]
    _run(argv, input="\n".join(commands) + "\n", what=what, check=not force)



def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, mode)  # O_CREAT's mode does not apply to an existing file, and umask trims it


def _mkdir(path: Path, mode: int = 0o755) -> None:
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(path, mode)


def _netns_list() -> set[str]:
    try:
        return set(os.listdir("/run/netns"))
    except OSError:
        return set()


def _ns_inode(ns: str) -> int | None:
    try:
        return os.stat(f"/run/netns/{ns}").st_ino
    except OSError:
        return None


def _pid_in_ns(pid: int, ns: str) -> bool:
    ino = _ns_inode(ns)
    try:
        return ino is not None and os.stat(f"/proc/{pid}/ns/net").st_ino == ino
    except OSError:
        return False


def _ns_pids(ns: str) -> list[int]:
    """Live processes whose network namespace is ``ns`` (what ``ip netns pids`` lists)."""
    ino = _ns_inode(ns)
    if ino is None:
        return []
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}/ns/net").st_ino == ino:
                    pids.append(int(entry))
            except OSError:
                pass
    return pids


def _tcp_open(addr: str, port: int = 22, timeout: float = 0.3) -> bool:
    try:
        with socket.create_connection((addr, port), timeout=timeout):
            return True
    except OSError:
        return False


def _read_state() -> dict:
    try:
        return json.loads(T.STATE_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _write_state(state: dict) -> None:
    _write(T.STATE_FILE, json.dumps(state, indent=2, sort_keys=True) + "\n", 0o600)


@contextlib.contextmanager
def _locked():
    """One up/down at a time on this box (the CLI and a test run may race)."""
    _mkdir(T.STATE_DIR, 0o755)  # readable inventory and known_hosts; the keys inside are 0600
    with open(T.STATE_DIR / ".lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def init_pid(node: str) -> int:
    """The host's process id of ``node``'s init (PID 1 of its namespaces); SimError when it is not up."""
    pid = (_read_state().get("init_pids") or {}).get(node)
    if node not in T.NODE_NAMES or not pid or not _pid_in_ns(pid, node):
        raise SimError(f"{node} is not up: run `clusterlab sim up`")
    return pid


def node_command(node: str, workdir: str | None = None) -> list[str]:
    """argv prefix that runs a command in ``node`` exactly as an SSH session there sees it (its network,
    hostname, process table, /etc, /root, /tmp, /run and /dev/shm), as root, in ``workdir`` (a path in the node;
    None: the caller's): ``nsenter`` into its init's namespaces. The command's process is a process of the node
    (``ps`` there lists it, ``sim reboot`` ends it)."""
    return [_which("nsenter") or "nsenter", "-t", str(init_pid(node)), "-n", "-m", "-u", "-p",
            *([f"--wdns={workdir}"] if workdir else []), "--"]


def own(path: Path) -> None:
    """``path`` and everything under it owned by the login user (uid and gid :data:`~grader.sim.topology.LOGIN_UID`)."""
    for dirpath, dirnames, filenames in os.walk(path):
        for name in [dirpath, *(os.path.join(dirpath, f) for f in dirnames + filenames)]:
            os.lchown(name, T.LOGIN_UID, T.LOGIN_UID)


def login_command(node: str, workdir: str | None = T.LOGIN_HOME) -> list[str]:
    """argv prefix that runs a command in ``node`` as its login user (:data:`~grader.sim.topology.LOGIN_USER`:
    its uid, gid and groups, in ``workdir``), as that user's SSH session there does: :func:`node_command`, then
    ``setpriv`` to the user. The environment is the caller's: give it HOME, USER and LOGNAME
    (:func:`login_env`)."""
    uid = str(T.LOGIN_UID)
    return node_command(node, workdir) + [_which("setpriv") or "setpriv", f"--reuid={uid}", f"--regid={uid}",
                                          "--init-groups", "--"]


def login_env() -> dict[str, str]:
    """HOME, USER, LOGNAME and SHELL of the login user, for :func:`login_command`."""
    return {"HOME": T.LOGIN_HOME, "USER": T.LOGIN_USER, "LOGNAME": T.LOGIN_USER, "SHELL": "/bin/bash"}


def group_alive(pgid: int) -> bool:
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


def end_groups(live: list[int], grace: float, kill_wait: float = 3.0) -> None:
    """TERM the process groups ``live``, wait up to ``grace`` s for them to end, KILL what is left and
    wait up to ``kill_wait`` s more."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, kill_wait)):
        for pgid in live:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, sig)
        deadline = time.monotonic() + wait
        while live and time.monotonic() < deadline:
            time.sleep(0.1)
            live = [g for g in live if group_alive(g)]
        if not live:
            return
