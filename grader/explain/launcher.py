"""Kind ``launcher`` for ``explain``: the interfaces a Spark cluster launcher picked (eugr/spark-vllm-docker
``launch-cluster.sh``), judged by grader.judges.launcher.
"""

from __future__ import annotations

import re

from ..judges.common import runs_program
from ..parsers.launcher import parse_launcher
from .core import KindSpec, register
from .readers import judge


PROGRAMS = ("launch-cluster.sh", "run-recipe", "run-recipe.sh")


register(KindSpec(
    name="launcher", parse=parse_launcher, summarise=judge("launcher", "summarise_launcher"),
    programs=PROGRAMS, matches_command=lambda argv: any(runs_program(argv, p) for p in PROGRAMS),
    # the launcher's other lines are vllm-log's too (serving.py, which is tried first): this kind keeps them only
    # after its own detection lines, up to the vLLM log its `Executing command` starts
    line=re.compile(r"^(?:Detected (?:IB_IF|ETH_IF|Local IP):|Auto-detecting interfaces\.\.\.$"
                    r"|(?:Head Node|Worker Nodes|Cluster Nodes|Found peer|Container Name|Image Name):\s"
                    r"|(?:Non-mesh|Mesh) mode\b|Starting (?:Head|Worker) Node on|Checking SSH connectivity to worker"
                    r"|Cluster head is responsive|Waiting for cluster to be ready|Executing command on head node:)"),
))
