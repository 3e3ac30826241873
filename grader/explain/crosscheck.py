"""Registers the cross checks: outputs of two hosts, or several of one host, in one paste, compared (grader.judges.hosts,
memory); the launch commands quoted in a paste (grader.judges.launch_args). Registered on import by the package.
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
_LAUNCHED = (None, "nccl-log", "nccl-tests", "collective-bench", "docker-run", "ray-start", "vllm-log", "sglang-log",
             "launcher", "vllm-bench", "python-traceback")  # (None: a command whose output no reader knows)
register_cross_check(judge("launch_args", "broken_continuations"), kinds=_LAUNCHED)  # type: ignore[arg-type]
register_cross_check(judge("nccl_launch_env", "launch_env"),
                     kinds=(*_LAUNCHED, "known-error"))  # type: ignore[arg-type]
register_cross_check(judge("launch_args", "few_iterations"), kinds=(None, "nccl-log", "nccl-tests"))  # type: ignore
