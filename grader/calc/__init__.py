"""Pure, sourced arithmetic for lesson 3 (two cards in one desktop): PCIe, traffic, memory, power.

Every function documents the units of its inputs and outputs and the source of each figure it
uses, and raises ValueError with a clear message for impossible input. Spec figures come from
checks/specs/*.toml through :mod:`grader.calc.specs`, each with its source and trust grade.
"""

from grader.calc import memory, pcie, power, specs, traffic

__all__ = ["memory", "pcie", "power", "specs", "traffic"]
