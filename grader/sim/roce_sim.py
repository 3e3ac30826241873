"""The simulated RoCE view of each sim node: there is no RDMA on this kernel, so it is written out.

What a real DGX Spark shows (procedure.md §1.1 and §2; fixtures/real/spark/01_*), rebuilt from the
sim's own netdevs and addresses and labelled simulated wherever it appears:

- a sysfs tree like ``/sys/class/infiniband`` at ``nodes/<node>/infiniband`` (each node's sshd
  exports ``CLUSTERLAB_SIM_INFINIBAND`` pointing at it): per RDMA device a ``device`` link to its
  PCI function (0000:01:00.0/.1, 0002:01:00.0/.1), ``ports/1/state`` and ``phys_state`` from the
  twin's link, GIDs 0/1 (fe80 link-local, RoCE v1/v2) and 2/3 (the twin's IPv4 mapped, v1/v2),
  so the RoCE v2 IPv4 GID index is 3 as on most Sparks; a ``SIMULATED`` file beside it;
- an ``rdma`` command (``rdma link`` shape) computed live from each twin's operstate;
- a NCCL_DEBUG=INFO log on the head (``~/nccl_debug.log``) in the line shapes captured from a real
  two-Spark vLLM run (fixtures/real/spark/13_*), over NET/IB, or NET/Socket under a fault.
"""

from __future__ import annotations

import ipaddress
import shutil
from pathlib import Path

from grader.ranges import pairwise_counters
from grader.sim import nccl_sim
from grader.sim import topology as T

BANNER = "# simulated by clusterlab sim: no RDMA on this kernel; layout captured from a real DGX Spark"
PCI_OF = {"enp1s0f0np0": "0000:01:00.0", "enp1s0f1np1": "0000:01:00.1",
          "enP2p1s0f0np0": "0002:01:00.0", "enP2p1s0f1np1": "0002:01:00.1"}
"""PCI function of each twin on a Spark (procedure.md §1.1)."""


def _gid_of_ipv4(addr: str) -> str:
    """IPv4-mapped GID text as sysfs prints it, e.g. 192.168.100.10 -> 0000:...:ffff:c0a8:640a."""
    packed = ipaddress.IPv6Address("::ffff:" + addr).exploded
    return packed


def _link_local_gid(index: int) -> str:
    return f"fe80:0000:0000:0000:0000:00ff:fe00:{index:04x}"


def write_sysfs(spec: T.Spec, node: str, up: set[str], root: Path) -> None:
    """Write ``node``'s simulated /sys/class/infiniband under ``root`` (replaced if present)."""
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    (root.parent / "SIMULATED").write_text(BANNER + "\n")
    pci = root.parent / "pci"
    for twin in T.ALL_TWINS:
        dev = T.RDMA_OF[twin]
        fn = pci / PCI_OF[twin]
        fn.mkdir(parents=True, exist_ok=True)
        d = root / dev
        (d / "ports" / "1" / "gids").mkdir(parents=True)
        (d / "ports" / "1" / "gid_attrs" / "types").mkdir(parents=True)
        (d / "ports" / "1" / "gid_attrs" / "ndevs").mkdir(parents=True)
        (d / "device").symlink_to(fn)
        active = twin in up
        port = d / "ports" / "1"
        (port / "state").write_text("4: ACTIVE\n" if active else "1: DOWN\n")
        (port / "phys_state").write_text("5: LinkUp\n" if active else "3: Disabled\n")
        gids = [(_link_local_gid(0x10 + T.ALL_TWINS.index(twin)), "IB/RoCE v1"),
                (_link_local_gid(0x10 + T.ALL_TWINS.index(twin)), "RoCE v2")]
        for cidr in spec.nodes[node].ifaces[twin].addresses[:1]:
            ip = cidr.split("/")[0]
            gids += [(_gid_of_ipv4(ip), "IB/RoCE v1"), (_gid_of_ipv4(ip), "RoCE v2")]
        (port / "counters").mkdir()
        for name in pairwise_counters():  # error counters that never grow: the sim's links lose nothing
            (port / "counters" / name).write_text("0\n")
        for i, (gid, kind) in enumerate(gids):
            (port / "gids" / str(i)).write_text(gid + "\n")
            (port / "gid_attrs" / "types" / str(i)).write_text(kind + "\n")
            (port / "gid_attrs" / "ndevs" / str(i)).write_text(twin + "\n")


def rdma_shell_script() -> str:
    """The ``rdma`` command of the sim: ``rdma link`` lines from each twin's live operstate (options ignored)."""
    entries = " ".join(f"'{T.RDMA_OF[t]} {t}'" for t in T.ALL_TWINS)
    return f"""#!/bin/sh
# rdma shim of the clusterlab sim (generated from grader/sim/roce_sim.py); prints `rdma link` only
echo '{BANNER}'
for entry in {entries}; do
    set -- $entry
    [ -r "/sys/class/net/$2/operstate" ] || continue
    if [ "$(cat "/sys/class/net/$2/operstate")" = up ]; then
        echo "link $1/1 state ACTIVE physical_state LINK_UP netdev $2"
    else
        echo "link $1/1 state DOWN physical_state DISABLED netdev $2"
    fi
done
"""


def nccl_log(spec: T.Spec) -> str:
    """A simulated NCCL_DEBUG=INFO log of a two-node vLLM run on the finished sim, in the real line shapes
    (:func:`grader.sim.nccl_sim.lines`, from the course's variables: NET/IB over both twins, or NET/Socket when
    the topology's NCCL network is Socket)."""
    a = T.NODES[0]
    twins = T.TWINS[T.QSFP_PORT]
    addr_a = spec.primary_address(a) or "192.168.100.10"
    env = {"NCCL_SOCKET_IFNAME": twins[0]}
    if spec.nccl_network == "Socket":
        env["NCCL_IB_DISABLE"] = "1"
    else:
        env["NCCL_IB_HCA"] = ",".join(T.RDMA_OF[t] for t in twins)
    devices = {T.RDMA_OF[t]: "ACTIVE" for t in twins}
    banner = BANNER.replace("layout captured from a real DGX Spark", "line shapes captured from a real two-Spark vLLM run")
    return "\n".join([banner] + nccl_sim.lines(a, 2171, env, devices, {twins[0]: addr_a})) + "\n"


NCCL_LOG_NAME = "nccl_debug.log"
"""Where the simulated log sits in the head node's home; the sim's inventory names it in [logs]."""
