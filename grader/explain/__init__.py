"""Explain pasted command output: what it says about connecting two DGX Sparks (``clusterlab explain``).

``explain(text)`` splits a paste into sections, recognises which command printed each one, reads it with the same
parsers the live checks use, and gives what was read to that output's judge (grader.judges: one per topic, which the
checks' facts call too), whose findings a learner can act on. The package is a core that knows no lesson and one
module per lesson area that registers its kinds; it judges nothing itself:

- ``core``: KindSpec, the registry (``register``, ``register_cross_check``), splitting a paste and detecting
  kinds, ``explain``, ``render``, ``to_jsonable``; it re-exports grader.judges.model's Finding and Section and
  grader.judges.context's ``context()`` (what ``explain --host --nodes`` says of where a paste came from);
- ``tolerant``: text around an output that is not the output (a shell that found no program, a poster's question
  below the output);
- ``output``: the sections as terminal text or JSON values, bounded (``render``, ``to_jsonable``; the core
  re-exports them), and a section's findings said once however often its lines repeat (``fold_repeats``);
- ``paste``: reading a file or standard input, bounded (``read_paste``);
- ``readers``: the parsers the lesson modules read with, each imported at its first call;
- the lesson modules, imported below (what each reads beside it): each a list of kinds (how to recognise the output,
  its parser, its judge) or of the judges' cross checks.

A lesson module imports ``core`` and ``readers`` (and the judges, parsers, facts, ranges, calc, spark_names), never
another lesson module nor this package's ``__init__``, and makes no finding (tests/test_explain_package.py). The
order of the imports below is the order in which kinds are tried, so it is part of the behaviour.
"""

from __future__ import annotations

from typing import Any

from ..parsers.common import command_argv
from . import core
from .core import (LEVELS, MAX_KIND_LINE, MAX_SHOWN_CHARS, CrossCheck, Finding, KindSpec, Section, Summary,
                   _kind_of_command, detect_kind, explain, register, register_cross_check, registered_kinds,
                   render, to_jsonable)
from .paste import IDLE_LIMIT_S, MAX_INPUT_MB, Paste, input_section, max_input_bytes, read_paste

from . import lesson1  # noqa: E402,F401  (lesson 1: ip, ethtool, a twin's PCIe link, netplan; registers on import)
from . import linktest  # noqa: E402,F401  (lesson 1: ping, iperf3, the kernel's link events)
from . import lesson3  # noqa: E402,F401  (lesson 3: nvidia-smi, lspci)
from . import machine  # noqa: E402,F401  (nvidia-smi nvlink -s and -L, free, df, ethtool -m, CUDA's P2P tests)
from . import lesson2_roce  # noqa: E402,F401  (lesson 2a: rdma link, sysfs, show_gids, ibstat, perftest runs compared)
from . import lesson2_nccl  # noqa: E402,F401  (lesson 2a: NCCL logs, nccl-tests, other benchmarks' busbw tables)
from . import crosscheck  # noqa: E402,F401  (lesson 1: two Sparks' ip addr and ibdev2netdev compared)
from . import ray  # noqa: E402,F401  (lesson 2b: ray status, ray start, docker run -d)
from . import serving  # noqa: E402,F401  (lesson 2b: vLLM; then a Spark cluster launcher's picks: IB_IF, ETH_IF)
from . import lab  # noqa: E402,F401  (the lab: vllm bench serve, AIPerf)
from . import crash  # noqa: E402,F401  (a Python traceback on its own; last: the other kinds claim first)

__all__ = ["IDLE_LIMIT_S", "KINDS", "LEVELS", "MAX_INPUT_MB", "MAX_KIND_LINE", "MAX_SHOWN_CHARS", "CrossCheck",
           "Finding", "KindSpec", "Paste", "Section", "Summary", "command_argv", "detect_kind", "explain",
           "input_section", "max_input_bytes", "read_paste", "register", "register_cross_check",
           "registered_kinds", "render", "to_jsonable"]


def __getattr__(name: str) -> Any:
    """``KINDS`` and ``_REGISTRY`` as they are now in the core (kinds registered after import included)."""
    if name in ("KINDS", "_REGISTRY", "_CROSS_CHECKS"):
        return getattr(core, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
