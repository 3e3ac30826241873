"""Registers lesson 1's cross checks (grader.judges.hosts): outputs of two hosts, or several of one host, in one paste,
compared. Registered on import by the package.
"""

from __future__ import annotations

from .core import register_cross_check
from .readers import judge

register_cross_check(judge("hosts", "same_port_on_both"), kinds=('ibdev2netdev',))
register_cross_check(judge("hosts", "addresses_across_hosts"), kinds=('ip-addr',))
register_cross_check(judge("hosts", "subnets_within_host"), kinds=('ip-addr',))
register_cross_check(judge("hosts", "iperf3_bound_elsewhere"), kinds=('iperf3',))
register_cross_check(judge("hosts", "netplan_against_live"), kinds=('netplan',))
register_cross_check(judge("hosts", "nearest_nic_across_hosts"), kinds=("nvidia-smi-topo",))
register_cross_check(judge("memory", "shared_still_held"), kinds=("free",))
