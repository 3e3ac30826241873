"""Registers grader.judges.perftest.repeated_size: several perftest runs of one size in one paste, compared.
"""

from __future__ import annotations

from ..judges.perftest import repeated_size
from .core import register_cross_check

register_cross_check(repeated_size)
