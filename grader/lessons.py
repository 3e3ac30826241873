"""The registry of lessons: the one place that names them and says what each one probes, derives,
grades and records, and which notebook teaches it.

Everything else reads this table: the command line (``clusterlab check``'s choices, ``audit``'s help),
:mod:`grader.checking` (which lessons ``check`` can probe, the collector of each, :func:`run_lesson
<grader.checking.run_lesson>`), :mod:`grader.facts` (the deriver of each), :mod:`grader.grading`
(the catalogue file), :mod:`grader.notebook` (which lessons have machine checks), :mod:`grader.verify`,
:mod:`grader.loadtest`, :mod:`grader.evidence` (how a lesson's evidence is recorded) and the course's
``nbgrader_config.py`` (its assignments).

Adding a lesson is one :class:`Lesson` entry below plus its modules: a collector in ``grader/probes/``
(or a measuring command, as the lab's load test), a deriver in ``grader/facts/``, a catalogue in
``checks/`` and a notebook in ``solutions/<name>/<name>.ipynb``.

This module imports nothing of the grader: collectors and derivers are named by their dotted path
(``"grader.probes.lesson1:collect"``) and imported only when asked for, so reading the registry is
cheap (``nbgrader_config.py`` reads it in nbgrader's process) and creates no import circle.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

PROBED_BY_CHECK = "check"
"""``Lesson.recorded_by``: ``clusterlab check`` (or the notebook's Check my cluster cell) probes the nodes."""
PROBED_BY_LOADTEST = "loadtest"
"""``Lesson.recorded_by``: ``clusterlab loadtest`` (the lab notebook's measuring cells) records it."""


class UnknownLesson(KeyError):
    """A name the registry does not hold (the message lists the ones it does)."""

    def __str__(self) -> str:  # KeyError's own str() quotes the message
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class Lesson:
    """One lesson of the course.

    ``collect``: the dotted name (``module:function``) of ``collect(inventory, conns, errors) -> Evidence``
    that ``clusterlab check`` runs, or None when the lesson's evidence comes another way (the lab's
    from ``clusterlab loadtest``). ``derive``: ``derive(evidence) -> facts``, None for a lesson that
    records no evidence. ``catalogue``: its checks' file in ``checks/``, None for a lesson without
    machine checks (its notebook grades answers only). ``recorded_by``: :data:`PROBED_BY_CHECK`,
    :data:`PROBED_BY_LOADTEST` or None (no evidence). ``notebook``: the nbgrader source notebook,
    relative to the course root.
    """

    name: str
    title: str
    collect: str | None = None
    derive: str | None = None
    catalogue: str | None = None
    recorded_by: str | None = None
    any_nodes: bool = False
    """Its probes and facts take a ring or a switch of N nodes, not only a pair (grader.checking refuses
    an inventory of more than two nodes for the other lessons)."""
    sim_starts: tuple[str, ...] = ()
    """The start states its work on the sim may begin from: ``"lesson1"`` (``clusterlab sim up``: a new pair
    out of the box), ``"lesson2"`` (``clusterlab start lesson2`` on a finished pair: lesson 1 done by the answer
    key, nothing of lesson 2's), ``"lab"`` (``clusterlab start lab`` on a finished pair: lesson 2's end with vLLM
    stopped, the sim's Ray on every node). Sim evidence of the lesson earns points only when the sim's record sealed into
    it shows one of them was built and nothing since did the work (grader.provenance.sim_work_problem); a
    lesson with none is not yet held to that."""
    sim_learner_serves: bool = False
    """On the sim the learner launches vLLM in this lesson (lesson 2: Ray too; the lab: the pair's server, then the
    one-node baseline's): ``clusterlab start`` stops the sim's ready-made serving, removes the NCCL log a finished
    build wrote and makes the model (grader.lifecycle), and evidence measured while the sim's own ready-made
    serving ran (``sim up --serve``, ``solve``) earns nothing (grader.provenance.sim_work_problem)."""

    @property
    def notebook(self) -> str:
        """``solutions/<name>/<name>.ipynb``: nbgrader's source notebook (its release copy is in ``labs/``)."""
        return f"solutions/{self.name}/{self.name}.ipynb"

    @property
    def evidence_file(self) -> str:
        """``evidence/<name>.json`` beside the notebook (written only outside nbgrader)."""
        return f"evidence/{self.name}.json"

    @property
    def probed(self) -> bool:
        """``clusterlab check`` probes the nodes for it."""
        return self.collect is not None

    @property
    def records_evidence(self) -> bool:
        return self.recorded_by is not None

    @property
    def checked(self) -> bool:
        """It has machine checks (a catalogue in ``checks/``)."""
        return self.catalogue is not None

    def collector(self) -> Callable[..., Any]:
        """The collect function (imported now). Raises UnknownLesson when the lesson is not probed."""
        if self.collect is None:
            raise UnknownLesson(f"{self.name} is not probed by `clusterlab check`: {self.how_to_record}")
        return resolve(self.collect)

    def deriver(self) -> Callable[..., Any]:
        """The derive function (imported now). Raises UnknownLesson when the lesson records no evidence."""
        if self.derive is None:
            raise UnknownLesson(f"{self.name} records no evidence, so there are no facts to derive")
        return resolve(self.derive)

    @property
    def how_to_record(self) -> str:
        """The command that records its evidence, for messages."""
        if self.recorded_by == PROBED_BY_LOADTEST:
            return "`clusterlab loadtest --inventory F` (the lab notebook's measuring cells)"
        if self.recorded_by == PROBED_BY_CHECK:
            return f"`clusterlab check {self.name} --inventory F` (or the notebook's Check my cluster cell)"
        return f"nothing: {self.name} records no evidence"


def _probed(n: int, title: str, module: str | None = None, any_nodes: bool = False,
            sim_starts: tuple[str, ...] = (), sim_learner_serves: bool = False) -> Lesson:
    name = f"lesson{n}"
    module = module or name
    return Lesson(name, title, collect=f"grader.probes.{module}:collect", derive=f"grader.facts.{module}:derive",
                  catalogue=f"{name}.toml", recorded_by=PROBED_BY_CHECK, any_nodes=any_nodes, sim_starts=sim_starts,
                  sim_learner_serves=sim_learner_serves)


REGISTRY: dict[str, Lesson] = {lesson.name: lesson for lesson in (
    _probed(1, "Cabling and addressing two Sparks", "lesson1_multi", any_nodes=True,  # a pair, or a switch or ring of N
            sim_starts=("lesson1",)),
    _probed(2, "RoCE, interface variables, Ray and one `vllm serve` across two hosts", any_nodes=True,
            sim_starts=("lesson1", "lesson2"), sim_learner_serves=True),
    _probed(3, "Two cards in one desktop"),
    Lesson("lesson4", "TensorRT-LLM multi-node and NVIDIA Dynamo"),  # answers only: nothing of it runs on the sim
    Lesson("lab", "Serve a very large model across two Sparks, load-test it, compare with one machine",
           derive="grader.facts.lab:derive", catalogue="lab.toml", recorded_by=PROBED_BY_LOADTEST,
           sim_starts=("lesson1", "lesson2", "lab"), sim_learner_serves=True),
)}
"""Every lesson, in course order."""


def resolve(dotted: str) -> Callable[..., Any]:
    """``"package.module:attr"`` -> the object (the module imported now)."""
    module, _, attr = dotted.partition(":")
    return getattr(importlib.import_module(module), attr)


def get(name: str) -> Lesson:
    """The lesson called ``name``; raises UnknownLesson naming the known ones."""
    try:
        return REGISTRY[name]
    except (KeyError, TypeError):
        raise UnknownLesson(f"this grader does not know lesson {name!r}; its lessons are {', '.join(REGISTRY)}") \
            from None


def names() -> tuple[str, ...]:
    """Every lesson's name, in course order: nbgrader's assignments."""
    return tuple(REGISTRY)


def probed() -> tuple[str, ...]:
    """The lessons ``clusterlab check`` probes (the lab's evidence comes from ``clusterlab loadtest``)."""
    return tuple(n for n, lesson in REGISTRY.items() if lesson.probed)


def checked() -> tuple[str, ...]:
    """The lessons with machine checks (a catalogue in ``checks/``)."""
    return tuple(n for n, lesson in REGISTRY.items() if lesson.checked)


def recording() -> tuple[str, ...]:
    """The lessons that record evidence (``evidence/<lesson>.json``)."""
    return tuple(n for n, lesson in REGISTRY.items() if lesson.records_evidence)


def recorded_by(how: str) -> tuple[str, ...]:
    """The lessons whose evidence ``how`` (:data:`PROBED_BY_CHECK` or :data:`PROBED_BY_LOADTEST`) records."""
    return tuple(n for n, lesson in REGISTRY.items() if lesson.recorded_by == how)
