"""The CPU platform, with a Ray resource and a node-aware device communicator."""

from vllm.platforms.cpu import CpuPlatform


class CpuRayPlatform(CpuPlatform):
    # Ray places one vLLM worker per unit of this resource. The sim starts each Ray node with
    # --num-gpus=1, so "GPU" means "one worker per node" here; torch+cpu ignores the
    # CUDA_VISIBLE_DEVICES that Ray then sets.
    ray_device_key: str = "GPU"

    @classmethod
    def get_device_communicator_cls(cls) -> str:
        return "vllm_cpu_ray.comm.NodeAwareCpuCommunicator"
