"""What an error in a vLLM, Ray or NCCL log means, and its fix (the judgment, outside ``grader/parsers/``).

``diagnose(log)`` takes a parsed :class:`grader.parsers.vllm_log.VllmLog` and returns a list of
:class:`Diagnosis` (what happened, what it means, the fix, the source). Callers import it from here,
never from the parser module.
"""

from grader.parsers.vllm_log import Diagnosis, diagnose

__all__ = ["Diagnosis", "diagnose"]
