"""Registers grader.judges.perftest.repeated_size: several perftest runs of one size in one paste, compared.
"""

from __future__ import annotations

from .core import register_cross_check
from .readers import judge

register_cross_check(judge("perftest", "repeated_size"), kinds=('perftest',))
