"""Pure parsers: command output text -> typed, frozen facts.

Each parser takes the text a learner pasted or a probe captured (prompts, comments, ANSI
codes and CRLF allowed) and returns dataclasses, or raises ParseError naming the command
and the line it could not read.

The names below are those of lesson 1's parsers, re-exported here (``from grader.parsers import
parse_ip_addr``); each parser module is imported when one of its names is first asked for, so
importing one parser (``grader.parsers.nccl_log``) does not import the others (``clusterlab explain``
starts in a fraction of the time).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .common import ParseError

_EXPORTS: dict[str, tuple[str, ...]] = {  # parser module -> the names re-exported from it
    "iproute": ("Address", "Interface", "Route", "parse_ip_addr", "parse_ip_route_get", "parse_ip_route_get_all"),
    "ibdev2netdev": ("RoceMapping", "Ibdev2Netdev", "parse_ibdev2netdev"),
    "ethtool": ("EthtoolReport", "parse_ethtool"),
    "ping": ("PingResult", "parse_ping"),
    "iperf3": ("Iperf3Result", "parse_iperf3"),
    "netplan": ("NetplanInterface", "NetplanConfig", "parse_netplan"),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = ["ParseError", *_MODULE_OF]

if TYPE_CHECKING:  # what the names are, for readers and type checkers (at run time: __getattr__)
    from .ethtool import EthtoolReport, parse_ethtool
    from .ibdev2netdev import Ibdev2Netdev, RoceMapping, parse_ibdev2netdev
    from .iperf3 import Iperf3Result, parse_iperf3
    from .iproute import Address, Interface, Route, parse_ip_addr, parse_ip_route_get, parse_ip_route_get_all
    from .netplan import NetplanConfig, NetplanInterface, parse_netplan
    from .ping import PingResult, parse_ping


def __getattr__(name: str) -> Any:
    """A re-exported name, its parser module imported the first time one of its names is asked for (PEP 562)."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_MODULE_OF})
