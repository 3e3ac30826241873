"""The sim's stand-in for NCCL's NCCL_DEBUG=INFO lines: which transport NCCL would pick, from the variables set.

There is no RDMA (and no NCCL: vLLM's CPU build moves tensors with Gloo) on the sim, so these lines are
written, in the shapes of a real two-Spark vLLM run (fixtures/real/spark/13_*; grader/parsers/nccl_log.py
reads them), from what decides NCCL's choice on a real node:

- ``NCCL_IB_DISABLE=1``, or no RDMA device that ``NCCL_IB_HCA`` admits is ACTIVE: ``NET/IB : No device
  found.`` and the data goes over ``NET/Socket`` (NCCL's fallback, with no error);
- otherwise ``NET/IB : Using [0]dev:1/RoCE ...`` over every admitted ACTIVE device (``NCCL_IB_HCA``: a comma
  list; a leading ``^`` excludes, a leading ``=`` matches names exactly, otherwise a prefix matches, as in
  NCCL's env docs), one channel per device;
- the bootstrap and the socket transport use ``NCCL_SOCKET_IFNAME``'s interface, else the first interface
  with an IPv4 address that is not loopback or docker (NCCL's default order, simplified).

Two users, one shape: ``grader.sim.roce_sim.nccl_log`` (the finished sim's ``~/nccl_debug.log``, from the
topology spec) calls :func:`lines`; in a vLLM rank launched by a learner on the sim with ``NCCL_DEBUG=INFO``,
the sim's vLLM platform plugin (plugins/vllm-cpu-ray) loads this file from the sim's bin folder
(``CLUSTERLAB_SIM_NCCL`` in every node session) and prints :func:`from_this_machine`'s lines, which Ray
forwards into the head's vLLM log as it does NCCL's own. Standard library only: it runs in the serving
environment, which does not have the grader.
"""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

DRIVER = "cudaDriverVersion 13000"
VERSION = "NCCL version 2.28.9+cuda13.0"
"""The versions the captured run printed (fixtures/real/spark/13_*)."""


def _admitted(devices: list[str], hca: str | None) -> list[str]:
    """The RDMA devices NCCL_IB_HCA admits, in the order given (all, sorted, when unset)."""
    if not hca:
        return sorted(devices)
    exclude = hca.startswith("^")
    spec = hca.lstrip("^")
    exact = spec.startswith("=")
    names = [n.split(":")[0] for n in spec.lstrip("=").split(",") if n]
    match = (lambda d, n: d == n) if exact else (lambda d, n: d.startswith(n))
    if exclude:
        return [d for d in sorted(devices) if not any(match(d, n) for n in names)]
    return list(dict.fromkeys(d for n in names for d in sorted(devices) if match(d, n)))


def socket_interface(env: dict[str, str], addrs: dict[str, str]) -> tuple[str, str]:
    """(interface, IPv4) NCCL's bootstrap and socket transport use: NCCL_SOCKET_IFNAME's first name that has
    an address, else the first non-loopback, non-docker interface with one (name order)."""
    names = [n for n in (env.get("NCCL_SOCKET_IFNAME") or "").lstrip("^=").split(",") if n]
    for n in names:
        if n in addrs:
            return n, addrs[n]
    for n in sorted(addrs):
        if n != "lo" and not n.startswith("docker"):
            return n, addrs[n]
    return "lo", addrs.get("lo", "127.0.0.1")


def lines(host: str, pid: int, env: dict[str, str], devices: dict[str, str], addrs: dict[str, str],
          rank: int = 0) -> list[str]:
    """NCCL_DEBUG=INFO lines of rank ``rank`` (0 or 1) of a two-rank group on ``host``: ``devices`` maps each
    RDMA device to its port state (``ACTIVE``, ``DOWN``); ``addrs`` each interface to its IPv4 address."""
    tid = pid + 95
    pre = f"{host}:{pid}:{pid} [0] NCCL INFO "
    ch = f"{host}:{pid}:{tid} [0] NCCL INFO "
    iface, addr = socket_interface(env, addrs)
    out = []
    if env.get("NCCL_SOCKET_IFNAME"):
        out.append(pre + f"NCCL_SOCKET_IFNAME set by environment to {env['NCCL_SOCKET_IFNAME']}")
    out += [pre + f"Bootstrap: Using {iface}:{addr}<0>", pre + DRIVER, pre + VERSION]
    usable = [] if env.get("NCCL_IB_DISABLE") == "1" else \
        [d for d in _admitted(list(devices), env.get("NCCL_IB_HCA")) if devices.get(d) == "ACTIVE"]
    peer = 1 - rank
    if not usable:
        out += [pre + "NET/IB : No device found.", pre + f"NET/Socket : Using [0]{iface}:{addr}<0>",
                pre + "Using network Socket"]
        via = ["NET/Socket/0", "NET/Socket/0"]
    else:
        if env.get("NCCL_IB_HCA"):
            out.append(pre + f"NCCL_IB_HCA set to {env['NCCL_IB_HCA']}")
        hcas = " ".join(f"[{i}]{d}:1/RoCE" for i, d in enumerate(usable))
        out += [pre + f"NET/IB : Using {hcas} ; OOB {iface}:{addr}<0>", pre + "Using network IB"]
        via = [f"NET/IB/{i % len(usable)}" for i in range(2)]
    for c in range(2):
        out.append(ch + f"Channel {c:02d}/0 : {peer}[0] -> {rank}[0] [receive] via {via[c]}")
    for c in range(2):
        out.append(ch + f"Channel {c:02d}/0 : {rank}[0] -> {peer}[0] [send] via {via[c]}")
    out.append(ch + "Connected all rings")
    return out


def read_machine(sysfs: str | os.PathLike[str] | None) -> tuple[dict[str, str], dict[str, str]]:
    """(RDMA device -> port state, interface -> IPv4) of the machine this runs on: the simulated sysfs tree at
    ``sysfs`` (``CLUSTERLAB_SIM_INFINIBAND``; ``ports/1/state`` reads ``4: ACTIVE``) and ``ip -4 -o addr``."""
    devices = {}
    if sysfs and Path(sysfs).is_dir():
        for d in sorted(Path(sysfs).iterdir()):
            state = d / "ports" / "1" / "state"
            if state.is_file():
                devices[d.name] = state.read_text().split(":")[-1].strip()
    addrs = {}
    try:
        text = subprocess.run(["ip", "-4", "-o", "addr", "show"], capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        text = ""
    for row in text.splitlines():
        f = row.split()
        if len(f) >= 4 and f[2] == "inet":
            addrs.setdefault(f[1].split("@")[0], f[3].split("/")[0])
    return devices, addrs


def from_this_machine(env: dict[str, str], rank: int) -> list[str]:
    """What NCCL_DEBUG=INFO would print in this process (rank ``rank`` of a two-node group), labelled
    simulated in its first line. Empty unless NCCL_DEBUG is INFO."""
    if (env.get("NCCL_DEBUG") or "").upper() != "INFO":
        return []
    devices, addrs = read_machine(env.get("CLUSTERLAB_SIM_INFINIBAND"))
    banner = "# simulated by clusterlab sim: the transport NCCL would pick from this process's variables"
    return [banner] + lines(socket.gethostname(), os.getpid(), env, devices, addrs, rank)
