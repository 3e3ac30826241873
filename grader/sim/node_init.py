#!/usr/bin/python3
"""PID 1 of one simulated node: makes the node a machine of its own, then reaps orphans until told to stop.

``sim up`` (grader/sim/cluster.py) starts it as
``ip netns exec NODE unshare --uts --pid --fork --mount-proc -- /usr/bin/python3 -I node_init.py SPEC``,
so it runs in the node's own network, UTS, PID and mount namespaces (``unshare`` makes the mounts
private: nothing mounted here reaches the host). ``SPEC`` is a JSON object:

- ``node``: the hostname;
- ``home``: the folder bound over /root (the node's own root home); ``homes``: the folder bound over /home
  (the login user's home is in it);
- ``etc_upper``, ``etc_work``: an overlay over /etc, the host's /etc below, the node's own files above
  (hostname, hosts, machine-id, netplan/, ssh/): an edit under /etc in one node lands in its upper folder
  and never reaches the host or another node;
- ``bin``: the sim's commands (ibdev2netdev, netplan, rdma, ray, vllm), bound over /usr/local/sbin, which
  every PATH a node's shells use (sudo's secure_path included) has before /usr/sbin;
- ``hide``: folders covered with an empty tmpfs (the other nodes' folders, the sim's keys) and ``hide_files``
  files covered with /dev/null (the grader's private key, the sim's state file).

It also mounts fresh tmpfs on /dev/shm, /tmp and /run (with /run/sshd for sshd's privilege separation),
prints ``ready`` on stdout and closes it, then waits: as PID 1 it inherits every orphan of the node and reaps
it, so stopping the node's sshd does not end the node. SIGTERM ends it, and with it (the kernel's rule for a
PID namespace's init) every process of the node: that is how ``sim reboot`` and ``sim down`` stop a node.
Standard library only: it runs under the system's Python, not the grader's environment.
"""

import json
import os
import signal
import socket
import subprocess
import sys


def mount(*args: str) -> None:
    subprocess.run(["mount", *args], check=True)


def setup(spec: dict) -> None:
    socket.sethostname(spec["node"])
    mount("-t", "tmpfs", "-o", "mode=1777,nosuid,nodev", "tmpfs", "/dev/shm")
    mount("-t", "tmpfs", "-o", "mode=1777,nosuid,nodev", "tmpfs", "/tmp")
    mount("-t", "tmpfs", "-o", "mode=755,nosuid,nodev", "tmpfs", "/run")
    for d in ("/run/sshd", "/run/lock", "/run/user"):
        os.makedirs(d, mode=0o755, exist_ok=True)
    os.chmod("/run/lock", 0o1777)
    mount("-t", "overlay", "overlay", "-o",
          f"lowerdir=/etc,upperdir={spec['etc_upper']},workdir={spec['etc_work']}", "/etc")
    mount("--bind", spec["home"], "/root")
    if spec.get("homes"):
        os.makedirs("/home", exist_ok=True)
        mount("--bind", spec["homes"], "/home")
    if spec.get("bin") and os.path.isdir("/usr/local/sbin"):
        mount("--bind", spec["bin"], "/usr/local/sbin")
    for d in spec.get("hide", []):
        if os.path.isdir(d):
            mount("-t", "tmpfs", "-o", "mode=700,size=1m", "tmpfs", d)
    for f in spec.get("hide_files", []):
        if os.path.isfile(f):
            mount("--bind", "/dev/null", f)


def reap(_signum=None, _frame=None) -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def main(argv: list) -> int:
    spec = json.loads(argv[1])
    try:
        setup(spec)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"node init of {spec.get('node')}: {e}", flush=True)
        return 1
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    signal.signal(signal.SIGINT, lambda *_: os._exit(0))
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGCHLD, reap)
    print("ready", flush=True)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    while True:
        signal.pause()
        reap()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
