"""Registers lesson 1's cross checks (grader.judges.hosts): outputs of two hosts, or several of one host, in one paste,
compared. Registered on import by the package.
"""

from __future__ import annotations

from ..judges.hosts import (addresses_across_hosts, iperf3_bound_elsewhere, netplan_against_live, same_port_on_both,
                            subnets_within_host)
from .core import register_cross_check

register_cross_check(same_port_on_both)
register_cross_check(addresses_across_hosts)
register_cross_check(subnets_within_host)
register_cross_check(iperf3_bound_elsewhere)
register_cross_check(netplan_against_live)
