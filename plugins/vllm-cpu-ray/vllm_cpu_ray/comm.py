"""Shared memory only between ranks that really share it.

vLLM's CPU communicator moves tensors through a /dev/shm segment when every rank of a group reports
the same segment name, and that name comes from the rendezvous port, not the machine. Ranks on two
machines therefore agree, and the far one fails to open the segment (``open shm in SHMManager
failed. errno: 2``), or, when the two "machines" share one /dev/shm, the tensors skip the network.
Here the ranks also compare which machine they are on (hostname and network namespace); when they
differ, the group falls back to torch.distributed over the network, as between real hosts.

Such a group is where NCCL would connect on a real pair. With NCCL_DEBUG=INFO in a rank's environment, the
rank prints the lines NCCL would print there, written by the sim's grader/sim/nccl_sim.py (loaded from
``CLUSTERLAB_SIM_NCCL``, which every sim node session has) from the rank's own NCCL variables and its node's
simulated RoCE devices; Ray forwards them into the head's vLLM log, as it does NCCL's own lines.
"""

import importlib.util
import os
import socket

import torch.distributed as dist
from vllm.distributed.device_communicators.cpu_communicator import CpuCommunicator


def node_key() -> str:
    """What tells two machines apart here: the hostname and the network namespace."""
    return f"{socket.gethostname()}/{os.stat('/proc/self/ns/net').st_ino}"


def print_simulated_nccl_lines(rank: int) -> None:
    """Print what NCCL_DEBUG=INFO would show for this rank of a group across nodes (nothing when NCCL_DEBUG is
    not INFO or this is not a sim node)."""
    path = os.environ.get("CLUSTERLAB_SIM_NCCL")
    if not path or not os.path.isfile(path):
        return
    spec = importlib.util.spec_from_file_location("clusterlab_sim_nccl", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    text = "\n".join(mod.from_this_machine(dict(os.environ), rank))
    if text:
        print(text, flush=True)


class NodeAwareCpuCommunicator(CpuCommunicator):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # a tensor- or pipeline-parallel group of two ranks, one per node (Ray places one rank per node's
        # GPU): where NCCL would connect the two nodes on a pair
        if self.world_size == 2 and self.unique_name.startswith(("tp", "pp")):
            print_simulated_nccl_lines(self.rank_in_group)

    def _all_group_ranks_share_shm_group_name(self) -> bool:
        keys: list = [None] * self.world_size
        dist.all_gather_object(keys, node_key(), group=self.device_group)
        return len(set(keys)) == 1 and super()._all_group_ranks_share_shm_group_name()
