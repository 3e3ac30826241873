#!/usr/bin/env python3
"""ibdev2netdev for the simulated cluster.

There is no RDMA on the sim's kernel, so the shim prints the real tool's shape from a layout captured
on a real DGX Spark (fixtures/real/spark/01_*), with each line's (Up)/(Down) computed live from
/sys/class/net/<netdev>/operstate in the node it runs in. A first comment line says it is simulated.
Netdevs that do not exist in the node are left out, as the real tool lists only present devices.

``sim up`` installs :func:`shell_script` as ``<state dir>/bin/ibdev2netdev``: POSIX sh, so it runs in a
node whatever Python the host has (a pyenv or venv under /root is hidden there: each node has its
own /root). :func:`render` is the same logic in Python, for tests; this file also runs as a script.
"""

import os
import sys

BANNER = "# simulated by clusterlab sim: no RDMA on this kernel; layout captured from a real DGX Spark"
LAYOUT = (  # (rdma device, port, netdev), in the real tool's order
    ("roceP2p1s0f0", 1, "enP2p1s0f0np0"),
    ("roceP2p1s0f1", 1, "enP2p1s0f1np1"),
    ("rocep1s0f0", 1, "enp1s0f0np0"),
    ("rocep1s0f1", 1, "enp1s0f1np1"),
)


def state(netdev: str, sys_net: str = "/sys/class/net") -> str | None:
    """'Up' or 'Down' from the netdev's operstate; None when the netdev does not exist."""
    try:
        with open(os.path.join(sys_net, netdev, "operstate"), encoding="ascii") as f:
            return "Up" if f.read().strip() == "up" else "Down"
    except FileNotFoundError:
        return None


def render(sys_net: str = "/sys/class/net") -> str:
    lines = [BANNER]
    for rdma, port, netdev in LAYOUT:
        st = state(netdev, sys_net)
        if st is not None:
            lines.append(f"{rdma} port {port} ==> {netdev} ({st})")
    return "\n".join(lines) + "\n"


def shell_script() -> str:
    """The installed shim: the same layout and rule as :func:`render`, in POSIX sh."""
    entries = " ".join(f"'{rdma} {port} {netdev}'" for rdma, port, netdev in LAYOUT)
    return f"""#!/bin/sh
# ibdev2netdev shim of the clusterlab sim (generated from grader/sim/ibdev2netdev_sim.py)
echo '{BANNER}'
for entry in {entries}; do
    set -- $entry
    [ -r "/sys/class/net/$3/operstate" ] || continue
    if [ "$(cat "/sys/class/net/$3/operstate")" = up ]; then st=Up; else st=Down; fi
    echo "$1 port $2 ==> $3 ($st)"
done
"""


def main(argv: list[str]) -> int:
    if any(a in ("-h", "--help") for a in argv):
        print("usage: ibdev2netdev  (clusterlab sim shim; options are ignored)")
        return 0
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
