"""The simulated two-node DGX Spark pair (the no-hardware path, and the grader's test bed).

    from grader.sim import up, down, status, FAULTS, SimError
    inventory = up(["mtu-1500"])   # root only; returns the inventory.toml path
    status()                        # {"up": True, "faults": ["mtu-1500"], "nodes": {...}, ...}
    down()

See DESIGN.md "The simulated cluster"; names and addresses are in :mod:`grader.sim.topology`,
the faults in :mod:`grader.sim.faults`.
"""

from grader.sim.cluster import SimError, begin, down, forfeit, forget_nccl_log, node_command, rebuild, restore_nccl_log, start_state, status, up
from grader.sim.node import reboot, start_sshd, stop_sshd
from grader.sim.topology import LOGIN_PASSWORD, LOGIN_USER, session_env
from grader.sim.faults import REGISTRY as _REGISTRY

FAULTS: dict[str, str] = {name: f.description for name, f in _REGISTRY.items()}
"""Every fault ``up`` accepts, name -> one-line description."""

__all__ = ["FAULTS", "LOGIN_PASSWORD", "LOGIN_USER", "SimError", "begin", "down", "forfeit", "forget_nccl_log", "node_command", "reboot", "rebuild", "restore_nccl_log", "session_env", "start_state", "start_sshd", "status",
           "stop_sshd", "up"]
