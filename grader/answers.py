"""The visible tests of the notebooks' answer cells: the answer's form, and the classic mistakes, named.

nbgrader's Validate runs the visible tests only; before this, they checked types, so a learner who forgot
the ICMP header (8980 bytes for a jumbo payload) read "Success!". A visible test now calls
``cl.check_answer(EXERCISE, name=value, ...)``: each value must have the exercise's form (a number, in a
range of plausible values) and must not be one of the mistakes learners make, each worked out here from
the same figures and formulas the hidden test uses (checks/ranges.toml, grader.calc, grader.metrics), so
neither the visible cell nor its message holds the answer. Where the answer space is tiny (a QSFP port, 0
or 1) there are no mistakes to name: naming the wrong one would give the right one away.

    MISTAKES_OF["l1_ex3"]()["payload_bytes"]  # [..., Mistake(8980.0, "... the ICMP echo header (8 bytes) too"), ...]

Raises AssertionError with the mistake's sentence (as a visible test must), never the expected value; each
sentence is short, since Validate's report cuts a line at about 90 characters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from grader.calc import memory, specs
from grader.lab import memory_bandwidth_gbs
from grader.metrics import tpot
from grader.ranges import expected_range, jumbo_mtu

IPV4_HEADER_B = 20
ICMP_ECHO_HEADER_B = 8
"""Header sizes of an IPv4 ICMP echo (RFC 791, RFC 792): a ping payload is the MTU less both."""
GIB = 2 ** 30


@dataclass(frozen=True)
class Mistake:
    value: float
    why: str


def _jumbo() -> float:
    return float(jumbo_mtu("spark-pair"))


def _line_rate_gbit() -> float:
    return float(expected_range("spark-pair", "link_speed_mbps")["min"]) / 1e3


def _l1_ex3() -> dict[str, list[Mistake]]:
    mtu = _jumbo()
    return {"payload_bytes": [
        Mistake(mtu, "that is the MTU: leave room for the headers"),
        Mistake(mtu - IPV4_HEADER_B, "the ICMP echo header (8 B) is missing"),
        Mistake(mtu - ICMP_ECHO_HEADER_B, "the IPv4 header (20 B) is missing")]}


def _l1_ex4() -> dict[str, list[Mistake]]:
    gbit = _line_rate_gbit()
    return {"line_rate_gbyte_s": [
        Mistake(gbit, "that is Gbit/s: 8 bits make a byte"),
        Mistake(gbit * 1e9 / 8 / GIB, "that is GiB/s; GB/s is 1e9 bytes/s")]}


def _lab_ex1(params_b: float, bits: float) -> dict[str, list[Mistake]]:
    w = memory.weights_bytes(params_b, bits) / 1e9
    return {"weights_gb": [Mistake(w * 1e9 / GIB, "that is GiB; a GB is 1e9 bytes"),
                           Mistake(w * 8, "that is bits: 8 bits make a byte"),
                           Mistake(memory.weights_bytes(params_b, 16) / 1e9, f"that is 16 bits a weight, not {bits:g}")],
            "per_node_gb": [Mistake(w, "that is the whole model: a node holds half")],
            **{key: _budget_mistakes(held) for key, held in (("left_one_gb", w), ("left_each_gb", w / 2))}}


def _budget_mistakes(held_gb: float) -> list[Mistake]:
    """What is left of a Spark's memory taken as the wrong budget (checks/specs/gpus.toml's figures): the
    128 GB on the box, the GiB CUDA sees read as GB, or all of them with no --gpu-memory-utilization."""
    gpu = specs.gpu("dgx_spark")
    total, cuda_gib = float(gpu.value("memory_gb")), float(gpu.value("cuda_memory_gib"))
    return [Mistake(total - held_gb, "that is all 128 GB: vLLM gets its share of what CUDA sees"),
            Mistake(cuda_gib - held_gb, "that reads the GiB CUDA sees as GB, and no memory-utilization"),
            Mistake(cuda_gib * GIB / 1e9 - held_gb, "that is all CUDA sees: vLLM takes only its memory-utilization")]


def _lab_ex2(bytes_per_token: float) -> dict[str, list[Mistake]]:
    gbs = memory_bandwidth_gbs("single-spark")
    one = gbs * 1e9 / bytes_per_token
    return {"ceiling_one": [Mistake(one * 8, "bits over bytes: bandwidth is bytes/s"),
                            Mistake(gbs * GIB / bytes_per_token,
                                    "that takes GB/s as GiB/s")],
            "ceiling_pair": [Mistake(one, "one Spark's: with TP=2 each reads half")]}


def _lab_ex3(e2el_s: float, ttft_s: float, tokens: int) -> dict[str, list[Mistake]]:
    right = tpot(e2el_s, ttft_s, tokens) * 1000
    return {"tpot_ms": [
        Mistake(e2el_s / tokens * 1000, "TTFT is in it: subtract it first"),
        Mistake((e2el_s - ttft_s) / tokens * 1000, "divide by output tokens - 1"),
        Mistake(right / 1000, "that is seconds, not ms")]}


MISTAKES_OF: dict[str, Callable[..., dict[str, list[Mistake]]]] = {
    "l1_ex3": _l1_ex3, "l1_ex4": _l1_ex4, "lab_ex1": _lab_ex1, "lab_ex2": _lab_ex2, "lab_ex3": _lab_ex3,
    "lab_ex4": lambda: {}}
"""Exercise -> its answers' classic mistakes, computed when asked: the catalogue's figures from checks/, the
exercise's givens (the numbers its text states) from the visible test's ``given``."""

REL = 0.005
"""How close a value must be to a mistake to be taken for it: inside the hidden tests' 1 %, and well below the
1.6 % between the lab's TPOT and its nearest mistake (dividing by every token). A whole-number answer (bytes)
must equal a whole-number mistake."""


def check_answer(exercise: str, given: dict[str, float] | None = None, **answers: Any) -> None:
    """The visible test of ``exercise``: each answer is a finite number (bool is not) and none is a classic
    mistake. ``given``: the exercise's own numbers, as its text states them (e.g. ``{"params_b": 235, "bits":
    4}``). Raises AssertionError naming the answer and what is wrong, never the expected value; prints a line
    saying the form is right and that the hidden tests grade the value."""
    mistakes = MISTAKES_OF[exercise](**(given or {}))
    for name, value in answers.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise AssertionError(f"{name} = {value!r}: it must be a number")
        for m in mistakes.get(name, []):
            exact = isinstance(value, int) and float(m.value).is_integer()  # a count of bytes: 8980 is not 8972
            if (value == m.value) if exact else math.isclose(value, m.value, rel_tol=REL):
                raise AssertionError(f"{name} = {value:g}: {m.why}")
    print(f"{', '.join(answers)}: the form is right and no classic mistake; the hidden tests grade the values")
