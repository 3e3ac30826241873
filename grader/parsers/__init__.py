"""Pure parsers: command output text -> typed, frozen facts.

Each parser takes the text a learner pasted or a probe captured (prompts, comments, ANSI
codes and CRLF allowed) and returns dataclasses, or raises ParseError naming the command
and the line it could not read.
"""

from .common import ParseError
from .ethtool import EthtoolReport, parse_ethtool
from .ibdev2netdev import Ibdev2Netdev, RoceMapping, parse_ibdev2netdev
from .iperf3 import Iperf3Result, parse_iperf3
from .iproute import Address, Interface, Route, parse_ip_addr, parse_ip_route_get, parse_ip_route_get_all
from .netplan import NetplanConfig, NetplanInterface, parse_netplan
from .ping import PingResult, parse_ping

__all__ = [
    "ParseError",
    "Address", "Interface", "Route", "parse_ip_addr", "parse_ip_route_get", "parse_ip_route_get_all",
    "RoceMapping", "Ibdev2Netdev", "parse_ibdev2netdev",
    "EthtoolReport", "parse_ethtool",
    "PingResult", "parse_ping",
    "Iperf3Result", "parse_iperf3",
    "NetplanInterface", "NetplanConfig", "parse_netplan",
]
