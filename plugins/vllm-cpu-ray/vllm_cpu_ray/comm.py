"""Shared memory only between ranks that really share it.

vLLM's CPU communicator moves tensors through a /dev/shm segment when every rank of a group reports
the same segment name, and that name comes from the rendezvous port, not the machine. Ranks on two
machines therefore agree, and the far one fails to open the segment (``open shm in SHMManager
failed. errno: 2``), or, when the two "machines" share one /dev/shm, the tensors skip the network.
Here the ranks also compare which machine they are on (hostname and network namespace); when they
differ, the group falls back to torch.distributed over the network, as between real hosts.
"""

import os
import socket

import torch.distributed as dist
from vllm.distributed.device_communicators.cpu_communicator import CpuCommunicator


def node_key() -> str:
    """What tells two machines apart here: the hostname and the network namespace."""
    return f"{socket.gethostname()}/{os.stat('/proc/self/ns/net').st_ino}"


class NodeAwareCpuCommunicator(CpuCommunicator):
    def _all_group_ranks_share_shm_group_name(self) -> bool:
        keys: list = [None] * self.world_size
        dist.all_gather_object(keys, node_key(), group=self.device_group)
        return len(set(keys)) == 1 and super()._all_group_ranks_share_shm_group_name()
