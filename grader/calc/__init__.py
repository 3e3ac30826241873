"""Pure, sourced arithmetic for lesson 3 (two cards in one desktop): PCIe, traffic, memory, power.

Every function documents the units of its inputs and outputs and the source of each figure it
uses, and raises ValueError with a clear message for impossible input. Spec figures come from
checks/specs/*.toml through :mod:`grader.calc.specs`, each with its source and trust grade.
"""

import importlib
from typing import Any

__all__ = ["memory", "pcie", "power", "specs", "traffic"]


def __getattr__(name: str) -> Any:
    """A submodule, imported when first named (``grader.calc.pcie``): a reader that needs one figure table (a vLLM log's
    judge, checks/specs/memory.toml through :mod:`.specs`) does not import the others."""
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
