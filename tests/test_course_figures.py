"""One figure per fact (issue 28): where a notebook's text states a quantity that checks/ holds, it states
checks/'s value. Each quantity is found by the words the notebooks use for it (a pattern per quantity), in
every cell of every source notebook (solutions/; labs/ is generated from it), and each pattern must match at
least once, so that rewording a sentence cannot leave a figure unwatched.

A different quantity is not a mismatch: the Ethernet default MTU 1500 beside the jumbo 9000, vLLM's default
--gpu-memory-utilization 0.9 beside the 0.85 a Spark needs (written "default 0.9", which no pattern takes)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable

import pytest

from grader.calc import specs
from grader.lab import memory_bandwidth_gbs
from grader.ranges import expected_range, jumbo_mtu

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "solutions").glob("*/*.ipynb"))


def _spark(key: str) -> Callable[[], float]:
    return lambda: float(specs.gpu("dgx_spark").value(key))


FIGURES: list[tuple[str, str, Callable[[], set[float]]]] = [
    # (quantity, pattern whose group 1 is the figure, the figures checks/ holds for it)
    ("--gpu-memory-utilization on a Spark (checks/specs/gpus.toml)",
     r"gpu-memory-utilization`?[ =]*\**(\d+\.\d+)", lambda: {_spark("vllm_gpu_memory_utilization")()}),
    ("the memory CUDA sees on a Spark, GiB (checks/specs/gpus.toml)",
     r"CUDA sees? (?:about )?~?\**(\d+(?:\.\d+)?)\** ?GiB", lambda: {_spark("cuda_memory_gib")()}),
    ("a Spark's unified memory, GB (checks/specs/gpus.toml)",
     r"(\d+) GB (?:of unified|shared by)", lambda: {_spark("memory_gb")()}),
    ("a Spark's peak memory bandwidth, GB/s (checks/ranges.toml)",
     r"(?:Spark's peak is\s*\**|the Spark's |`2 × )(\d+(?:\.\d+)?)\** GB/s", lambda: {memory_bandwidth_gbs("single-spark")}),
    ("the jumbo MTU, bytes (checks/ranges.toml; 1500 is Ethernet's default, another quantity)",
     r"(?:\bMTU\**\s+|mtu: |jumbo frames,\s*MTU )(\d{4,5})\b", lambda: {float(jumbo_mtu("spark-pair")), 1500.0}),
    ("NVIDIA's all_gather busbw bar, GB/s (checks/ranges.toml: pair/switch and ring)",
     r"(?:busbw ≥ |below \*\*|bar \()(\d+(?:\.\d+)?)\** GB/s",
     lambda: {float(expected_range("spark-pair", "allgather_busbw_gbs")["min"]),
              float(expected_range("spark-pair", "allgather_busbw_gbs", topology="ring")["min"])}),
    ("GB10's NVLink-C2C, GB/s both ways (checks/specs/gpus.toml; 900 GB/s is Grace Hopper's, another quantity)",
     r"GB10's, [^*]{0,80}is \*\*(\d+) GB/s", lambda: {_spark("nvlink_c2c_gbs")()}),
    ("an RTX 4090's memory bandwidth, GB/s (checks/specs/gpus.toml)",
     r"RTX 4090 \(24 GB, (\d+) GB/s", lambda: {float(specs.gpu("rtx4090").value("memory_bandwidth_gbs"))}),
]


def _text(path: Path) -> str:
    return "\n".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"])


def test_the_notebooks_are_found():
    assert {p.stem for p in NOTEBOOKS} >= {"lesson1", "lesson2", "lesson3", "lesson4", "lab"}


@pytest.mark.parametrize("quantity,pattern,held", FIGURES, ids=[f[0].split(",")[0] for f in FIGURES])
def test_a_notebook_figure_is_the_catalogues(quantity, pattern, held):
    want = held()
    found = [(p.parent.name, float(m.group(1)), m.group(0)) for p in NOTEBOOKS for m in re.finditer(pattern, _text(p))]
    assert found, f"no notebook states {quantity} in the words this test looks for: update the pattern"
    wrong = [f"{nb}: {said!r}" for nb, value, said in found if not any(abs(value - w) <= 1e-9 * max(1, w) for w in want)]
    assert not wrong, f"{quantity} is {sorted(want)} in checks/, but the notebooks say: {wrong}"


def test_the_check_catches_a_figure_typed_differently(tmp_path):
    """Lesson 2 once told one-Spark learners `--gpu-memory-utilization 0.8` beside 0.85 elsewhere: caught."""
    pattern = FIGURES[0][1]
    assert [m.group(1) for m in re.finditer(pattern, "`vllm serve x --gpu-memory-utilization 0.8`")] == ["0.8"]
    assert 0.8 not in FIGURES[0][2]()
