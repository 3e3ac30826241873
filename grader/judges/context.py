"""What is known of the host an output came from that the output itself may not show (``explain --host --nodes``).

:func:`grader.explain.core.explain` sets it for the paste it reads; a judge reads it with :func:`context` (through
:func:`grader.judges.common.on_spark` and ``machines_spanned`` where it can).
"""

from __future__ import annotations

import contextvars
import re
from dataclasses import dataclass, field
from functools import cached_property


@dataclass(frozen=True)
class Context:
    """What is known of where a paste came from that the paste itself may not show (``explain --host --nodes``).

    ``host``: ``"spark"`` (a DGX Spark / GB10), ``"other"`` (any other machine) or None (not said); ``nodes``: how
    many hosts the run spanned (1: one machine, so no network carried its data), or None (not said). A judge
    that needs one of these reads :func:`context` and, where it is None, says which output would decide."""

    host: str | None = None
    nodes: int | None = None
    paste: str = field(default="", repr=False, compare=False)
    """The head of the paste (:data:`HEAD_CHARS`), which :attr:`seen` reads."""

    @cached_property
    def seen(self) -> str | None:
        """What the whole paste shows of its machines where ``host`` is not said (:func:`host_seen`): ``"other"`` when
        it names another machine's parts and nothing of a Spark, else None. Read when first asked (a catalogue text
        that words its advice for a Spark): a judge of one line of the paste reads it."""
        return host_seen(self.paste) if self.host is None else None

    @cached_property
    def spark_sure(self) -> bool:
        """Whether the paste shows one of a Spark's own signs (:data:`_SPARK_SURE_RE`: GB10, its CPU's cores, the
        domain-0002 twins, enP7s7), wherever in it: an `lscpu` above an NCCL log says whose log it is (a host or
        caption named spark-a, or "DGX Spark" in words, does not: the paste reads the same with its caption or without)."""
        return bool(_SPARK_SURE_RE.search(self.paste[:HEAD_CHARS]))

    @cached_property
    def other_machine_shown(self) -> bool:
        """Where ``host`` is not said: whether the paste shows a machine that cannot be a Spark (a GPU other than
        GB10, an x86 server CPU, a second GPU on one host) and none of a Spark's own signs (:data:`_SPARK_SURE_RE`;
        rocep1s0f0 and enp1s0f0np0 are any ConnectX's at PCI 0000:01). Stronger than :attr:`seen`, which an HCA named
        mlx5_N (a Spark's, where udev did not rename it) also sets: levels follow this one."""
        return self.host is None and bool(_OTHER_MACHINE_RE.search(self.paste[:HEAD_CHARS])) and not self.spark_sure


_CONTEXT: contextvars.ContextVar[Context] = contextvars.ContextVar("explain_context", default=Context())


def context() -> Context:
    """The context of the paste being explained (:class:`Context`; all None outside ``explain``)."""
    return _CONTEXT.get()


_OTHER_MACHINE_RE = re.compile(r"(?<!Cortex-)\b(?:[HAL]\d{2,3}S?|[BH]\d{3}|G[HB]\d{3}|V100|A10G|RTX|GeForce|Quadro|Tesla|TITAN|Radeon"
                               r"|MI\d{3}X?|Xeon|EPYC)\b"
                               r"|\b(?:cuda|nvml)Dev [1-9]")  # (a Spark has one GPU: NCCL's second device on a host is not one)
_OTHER_HOST_RE = re.compile(r"\bmlx5_\d|" + _OTHER_MACHINE_RE.pattern)  # (mlx5_N: a Spark's HCA where udev did not rename it)
_SPARK_SURE_RE = re.compile(r"\bGB10\b|roceP2p1s0f|enP2p1s0f|enP7s7|Cortex-(?:X925|A725)")
"""A Spark's own signs as its outputs print them: its GPU, its CPU's cores (10 Cortex-X925 + 10 Cortex-A725), the
twins on PCI domain 0002 and its 10 GbE port, names no other machine gives (words a person writes, `DGX Spark` in a
caption, are not: break-it 25 F9, an H100 cluster's log captioned "my two DGX Sparks")."""
_SPARK_HOST_RE = re.compile(_SPARK_SURE_RE.pattern + r"|\b(?:DGX )?Sparks?\b|rocep1s0f|enp1s0f\dnp\d", re.I)  # (and
# the word Spark, which host names and captions carry, and the names any ConnectX at PCI 0000:01 gets)
HEAD_CHARS = 300_000  # (the start of a long log says which machines it is from)


def host_seen(text: str) -> str | None:
    """``"other"`` where ``text`` names another machine's parts (an HCA named mlx5_N, a data-center, GeForce or AMD
    GPU, an x86 server CPU, a second GPU on one host in NCCL's ``cudaDev 1``) and nothing of a DGX Spark (GB10, its RoCE devices and interfaces, the word Spark), else None."""
    head = text[:HEAD_CHARS] if isinstance(text, str) else ""
    return "other" if _OTHER_HOST_RE.search(head) and not _SPARK_HOST_RE.search(head) else None


def spark_shown() -> bool:
    """Whether the paste is known to come from a DGX Spark: `explain --host spark`, or, where the host is not said, the
    paste names a Spark's parts (GB10, its RoCE devices and interfaces, the word Spark)."""
    c = context()
    return c.host == "spark" if c.host is not None else bool(_SPARK_HOST_RE.search(c.paste[:HEAD_CHARS]))


def spark_wording() -> bool:
    """Whether advice may name a Spark pair's parts (QSFP twins, their addresses): unless `explain --host other` says
    the machines are not Sparks, or the paste shows another machine (:func:`host_seen`)."""
    c = context()
    return c.host == "spark" if c.host is not None else c.seen != "other"
