"""Parser for ``ibdev2netdev`` (Mellanox/NVIDIA OFED): which RDMA device maps to which netdev."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import ParseError, content_lines, fail_on_line, is_comment_line, raise_if_shell_error

# rocep1s0f1 port 1 ==> enp1s0f1np1 (Up)
# ibdev2netdev -v: 0000:01:00.1 rocep1s0f1 (MT4129 - ...) ConnectX-7 ... fw 28.45.4028 port 1 (ACTIVE) ==> enp1s0f1np1 (Up)
_LINE_RE = re.compile(
    r"^\s*(?:[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d+\s+)?(?P<rdma>\S+)\s++"
    r"(?:.*?\s)?port\s+(?P<port>\d++)(?:\s++\(\s*+(?P<port_state>\w++)\s*+\))?\s*+==>\s*+(?P<netdev>[^\s(]++)\s*+"
    r"\((?P<state>[^)]*)\)\s*+(?:#.*)?$")  # a person's note after it (`(Down)  # CX-7 1/8 infiniband`)
# what a cut-off last line can look like: an RDMA device name, maybe part of the rest
_PARTIAL_RE = re.compile(r"^\s*(?:roce|mlx\d|ib|rxe|siw|irdma|bnxt|efa|[0-9a-fA-F]{4}:)\S*(?:\s+p.*)?$")


@dataclass(frozen=True)
class RoceMapping:
    """One ibdev2netdev line: RDMA device, its port number, the netdev, the link state.

    ``state`` is the netdev's, as printed, normally ``"Up"`` or ``"Down"``; ``port_state`` the RDMA port's, which
    only ``ibdev2netdev -v`` prints (``ACTIVE``, ``DOWN``; None without it).
    """

    rdma_device: str
    port: int
    netdev: str
    state: str
    port_state: str | None = None

    @property
    def is_up(self) -> bool:
        """True when the state reads Up (any case)."""
        return self.state.lower() == "up"


@dataclass(frozen=True)
class Ibdev2Netdev:
    """All mappings, in the order printed (the order varies between machines).

    ``simulated`` is True when a line says the output is simulated (clusterlab's sim).
    ``truncated`` is True when the last line was cut off mid-way (it is left out).
    """

    mappings: tuple[RoceMapping, ...]
    simulated: bool
    truncated: bool = False

    def by_netdev(self, netdev: str) -> RoceMapping | None:
        """The mapping for a netdev name, or None."""
        return next((m for m in self.mappings if m.netdev == netdev), None)

    @property
    def up_netdevs(self) -> tuple[str, ...]:
        """Netdevs whose state is Up, in the order printed."""
        return tuple(m.netdev for m in self.mappings if m.is_up)


def parse_ibdev2netdev(text: str) -> Ibdev2Netdev:
    """Parse ``ibdev2netdev`` (and ``ibdev2netdev -v``) output.

    Reads ``rocep1s0f1 port 1 ==> enp1s0f1np1 (Up)`` and ``mlx5_0 port 1 ==> ib0 (Up)``
    lines in any order (a ``# note`` after a line is left out); skips prompts, sudo prompts, comments and blanks. Any line
    (comment or not) containing "simulated" sets ``simulated``. A cut-off last line is
    dropped and sets ``truncated``.

    Raises ParseError for ``command not found``, a line it cannot read, or no mapping.
    """
    lines = content_lines(text, keep_comments=True)
    simulated = any("simulated" in line.text.lower() for line in lines)
    lines = [x for x in lines if not is_comment_line(x.text) and "simulated" not in x.text.lower()]
    raise_if_shell_error(lines, "ibdev2netdev")
    mappings, truncated = [], False
    for pos, line in enumerate(lines):
        m = _LINE_RE.match(line.text)
        if m:
            mappings.append(RoceMapping(m.group("rdma"), int(m.group("port")), m.group("netdev"),
                                        m.group("state").strip(), m.group("port_state")))
        elif pos == len(lines) - 1 and mappings and _PARTIAL_RE.match(line.text):
            truncated = True
        else:
            raise fail_on_line("ibdev2netdev", line,
                               "expected `<rdma device> port <n> ==> <netdev> (Up|Down)`")
    if not mappings:
        raise ParseError("ibdev2netdev", "no `<rdma> port <n> ==> <netdev> (state)` line found "
                         "(no RDMA devices, or the driver is not loaded?)")
    return Ibdev2Netdev(tuple(mappings), simulated, truncated)
