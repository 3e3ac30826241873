"""clusterlab's grader: probe a learner's machines over SSH, parse, record evidence, grade.

The flow (see DESIGN.md): inventory -> transport -> probes -> parsers -> facts -> evidence
-> checks -> verdicts -> report.
"""

__version__ = "0.1.0"
