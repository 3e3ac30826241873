"""Facts about how a DGX Spark names its ConnectX-7 (CX-7) network interfaces.

The GB10 SoC reaches the CX-7 through two PCIe Gen5 x4 links, PCI domains 0000 and 0002.
Each physical QSFP port therefore appears as TWO netdevs and TWO RDMA devices, the
"twins"; each twin carries about half of the port's 200 Gb/s. Port 0 is the QSFP cage next
to the RJ45 socket, port 1 the one further from it. The 10 GbE RJ45 management NIC is
``enP7s7``.

Sources (see docs/research/procedure.md §1.1, §2.1 and §9):
NVIDIA connect-two-sparks playbook,
https://github.com/NVIDIA/dgx-spark-playbooks/blob/main/nvidia/connect-two-sparks/README.md
("each physical port has two logical interfaces"; the ibdev2netdev example), and
ServeTheHome, https://www.servethehome.com/the-nvidia-gb10-connectx-7-200gbe-networking-is-really-different
"""

from __future__ import annotations

import re

#: QSFP port number -> (twin on PCI domain 0000, twin on PCI domain 0002).
QSFP_TWINS: dict[int, tuple[str, str]] = {
    0: ("enp1s0f0np0", "enP2p1s0f0np0"),
    1: ("enp1s0f1np1", "enP2p1s0f1np1"),
}

#: The 10 GbE RJ45 management ("house") NIC; not a QSFP port.
HOUSE_INTERFACE = "enP7s7"

_PORT_OF = {name: port for port, twins in QSFP_TWINS.items() for name in twins}

# Predictable PCI netdev names: en[P<domain>]p<bus>s<slot>f<function>[np<port>]
_NETDEV_RE = re.compile(r"^en(?P<dom>P\d+)?p(?P<bus>\d+)s(?P<slot>\d+)f(?P<fn>\d+)(?:np\d+)?$")


def qsfp_port(netdev: str) -> int | None:
    """The QSFP port (0 = next to the RJ45, 1 = further) of a Spark twin name, else None.

    ``qsfp_port("enP2p1s0f1np1") == 1``; ``qsfp_port("enP7s7") is None``.
    Source: NVIDIA connect-two-sparks playbook (procedure.md §1.1).
    """
    return _PORT_OF.get(netdev)


def is_qsfp_twin(netdev: str) -> bool:
    """True for the four CX-7 QSFP twin names of a DGX Spark (procedure.md §1.1)."""
    return netdev in _PORT_OF


def twin_domain(netdev: str) -> str | None:
    """The PCI domain of a QSFP twin: ``"0000"`` (``enp1...``), ``"0002"`` (``enP2p1...``).

    None for any other name. Source: procedure.md §1.1 (PCI functions 0000:01:00.x and
    0002:01:00.x).
    """
    if not is_qsfp_twin(netdev):
        return None
    return "0002" if netdev.startswith("enP2") else "0000"


def other_twin(netdev: str) -> str | None:
    """The other twin of the same QSFP port, e.g. ``enp1s0f1np1`` -> ``enP2p1s0f1np1``."""
    port = qsfp_port(netdev)
    if port is None:
        return None
    a, b = QSFP_TWINS[port]
    return b if netdev == a else a


def rdma_device_for(netdev: str) -> str | None:
    """The RoCE RDMA device name the kernel gives a PCI netdev, or None.

    ``enp1s0f1np1`` -> ``rocep1s0f1``; ``enP2p1s0f0np0`` -> ``roceP2p1s0f0`` (capital P2 =
    PCI domain 0002). Works for any ``en[P<d>]p<b>s<s>f<f>[np<n>]`` name; None for names
    without a bus/slot/function (``enP7s7``) or other schemes (``eth0``).
    Source: NVIDIA connect-two-sparks ibdev2netdev example (procedure.md §2.1).
    """
    m = _NETDEV_RE.match(netdev)
    if not m:
        return None
    return f"roce{m.group('dom') or ''}p{m.group('bus')}s{m.group('slot')}f{m.group('fn')}"
