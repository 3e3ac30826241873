"""The machine-readable results of ``clusterlab check``, ``grade``, ``verify`` and ``audit``: a contract.

What ``--format json`` (and its alias ``--json``) prints is one of these payloads, each carrying
``"schema_version"`` (:data:`SCHEMA_VERSION`) and ``"kind"`` (which report it is):

- ``check`` / ``grade``: one lesson's verdicts (:class:`LessonReport`); ``check`` of several lessons
  prints a JSON array of them, one per lesson;
- ``verify``: the rows comparing an evidence file with the machines again (:class:`VerifyReport`);
- ``audit``: the audited grade cells and shared recordings of an nbgrader autograded folder
  (:class:`AuditReport`).

The models below are the one description of those shapes: :func:`schema` generates the JSON Schema
shipped in the package (:data:`SCHEMA_FILE`) and in ``docs/results.schema.json``; ``python -m
grader.results`` writes both again (``tests/test_results_schema.py`` fails when they drift from the
models, and validates every payload the command line prints against the shipped file).

``schema_version`` is ``MAJOR.MINOR``: MINOR goes up when a key is added, MAJOR when a key is removed
or renamed or its meaning changes. The schema forbids keys it does not name, so a payload and its
schema always describe the same keys.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, RootModel

SCHEMA_VERSION = "1.0"
"""The version every payload carries as ``"schema_version"`` (see the module doc for when it changes)."""

SCHEMA_FILE = Path(__file__).with_name("schemas") / "clusterlab-results.schema.json"
"""The JSON Schema shipped in the package (package data: pyproject's ``[tool.setuptools.package-data]``)."""

DOCS_SCHEMA_FILE = "docs/results.schema.json"
"""Its copy in a checkout, relative to the repository root."""

SCHEMA_ID = "https://clusterlab.invalid/schemas/clusterlab-results.schema.json"
"""The schema's ``$id``: a name, not a place to download it from (it ships with the package)."""


def _absent_unless(description: str) -> Any:
    """A key printed only by some runs: optional, never null (the schema shows no default)."""
    return Field(None, description=description, json_schema_extra=lambda s: s.pop("default", None))


class _Strict(BaseModel):
    """Every model: no key outside those named (the schema says ``additionalProperties: false``)."""

    model_config = ConfigDict(extra="forbid")


# ----------------------------------------------------------------------------------- check and grade


class VerdictModel(_Strict):
    """One check's verdict (grader.grading.Verdict)."""

    model_config = ConfigDict(title="Verdict")
    id: str = Field(description="the check's id in checks/<lesson>.toml, e.g. L1.mtu")
    title: str
    status: Literal["pass", "warn", "unmeasured", "fail", "skip"] = Field(
        description="pass; warn (measured, doubtful); unmeasured (not measured: nothing to judge); fail; "
                    "skip (n.a.: the check does not apply to the profile)")
    points: float = Field(description="the check's points; 0 for skip")
    earned: float = Field(description="points earned: all for pass, the check's warn_points for warn, else 0")
    details: list[str] = Field(description="what failed, what was doubtful, or what was missing and how to "
                                           "get it measured; a range check's sentence names the measured value "
                                           "and the expected range")
    hint: str = Field(description="what to do about it")
    source: str = Field(description="where the expectation comes from")
    range_source: Optional[str] = Field(description="the source of the range compared with (checks/ranges.toml), "
                                                    "and the engine it holds for; null for a check with no range")


class Score(_Strict):
    """Points earned of points possible (n.a. checks left out)."""

    earned: float
    total: float


class Counts(_Strict):
    """How many verdicts have each status."""

    pass_: int = Field(alias="pass")
    warn: int
    unmeasured: int
    fail: int
    skip: int


class LessonReport(_Strict):
    """``check`` or ``grade`` of one lesson: its verdicts, score and counts, and what else the run found."""

    model_config = ConfigDict(title="LessonReport")
    schema_version: Literal[SCHEMA_VERSION]  # type: ignore[valid-type]
    kind: Literal["check", "grade"]
    lesson: str
    profile: str = Field(description="the profile whose ranges graded it (spark-pair, single-spark, "
                                     "dual-gpu-desktop, sim)")
    evidence: Optional[str] = Field(description="the evidence file graded (check: the one written; null when "
                                                "it could not be written)")
    unreachable: dict[str, str] = Field(description="{node: why it could not be reached}")
    unfit: list[str] = Field(description="why this evidence earns no points whatever its verdicts (a replay, "
                                         "outputs that do not show its profile); not empty: exit status 1")
    notes: list[str] = _absent_unless("grade only: what grading noticed (stored facts that disagree with the "
                                      "raw outputs; the unfit sentences again)")
    rounds: int = _absent_unless("check --watch only: the rounds run")
    ranges: str = _absent_unless("the ranges file the verdicts used")
    verdicts: list[VerdictModel]
    score: Score
    counts: Counts


# ---------------------------------------------------------------------------------------------- verify


class VerifyRow(_Strict):
    """One compared item (grader.verify.Row)."""

    item: str = Field(description="what is compared, e.g. 'spark-a enp1s0f1np1 IPv4'")
    recorded: Any = Field(description="the value in the evidence file; null when it has none")
    measured: Any = Field(description="the value measured again; null when there is none")
    recorded_reason: str = _absent_unless("why recorded is null (a value JSON cannot carry; grader.strictjson)")
    measured_reason: str = _absent_unless("why measured is null (a value JSON cannot carry; grader.strictjson)")
    unit: str = Field(description="their unit; empty for text")
    status: Literal["agree", "DIFFERS", "not comparable"]
    note: str = Field(description="why, and the spread allowed")


class VerifyReport(_Strict):
    """``verify``: an evidence file compared with the machines again, row by row."""

    schema_version: Literal[SCHEMA_VERSION]  # type: ignore[valid-type]
    kind: Literal["verify"]
    evidence: str
    inventory: str
    lesson: str
    exit_code: Literal[0, 1] = Field(description="1 when any row DIFFERS")
    rows: list[VerifyRow]
    notes: list[str] = Field(description="e.g. nodes unreachable now")


# ----------------------------------------------------------------------------------------------- audit


class AuditRow(_Strict):
    """One machine grade cell of one submission, or one shared recording (grader.audit.CellAudit)."""

    student: str
    assignment: str
    cell: str = Field(description="the grade cell's grade_id; for SHARED the evidence file")
    kernel: float = Field(description="points nbgrader's kernel scored")
    evidence: float = Field(description="points the evidence supports, recomputed outside the kernel")
    status: Literal["agree", "ABOVE", "below", "SHARED"]
    why: str


class AuditReport(_Strict):
    """``audit`` of an nbgrader autograded folder; exit status 1 when a row is ABOVE or SHARED."""

    schema_version: Literal[SCHEMA_VERSION]  # type: ignore[valid-type]
    kind: Literal["audit"]
    autograded: str = Field(description="the folder audited")
    assignment: Optional[str] = Field(description="the one assignment audited; null: all")
    rows: list[AuditRow]


# ----------------------------------------------------------------------------------------- every payload

Report = Annotated[Union[LessonReport, VerifyReport, AuditReport], Field(discriminator="kind")]


class Results(RootModel[Union[Report, list[LessonReport]]]):
    """Whatever ``--format json`` prints: one report, or (``check`` of several lessons) a list of them."""

    model_config = ConfigDict(title="clusterlab results")


def stamp(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    """``{"schema_version": SCHEMA_VERSION, "kind": kind, **payload}``: a payload as the contract prints it."""
    return {"schema_version": SCHEMA_VERSION, "kind": kind, **payload}


def lesson_payload(result: Any, kind: str, evidence: str | None, **extra: Any) -> dict[str, Any]:
    """A :class:`LessonReport` payload (a dict) for a grader.checking.LessonResult ``result`` graded from
    the file ``evidence``: ``{"schema_version", "kind", "lesson", "profile", "evidence", "unreachable",
    "unfit", **extra, "verdicts", "score", "counts"}`` (``extra``: ``notes`` for grade, ``rounds`` for a
    watch, ``ranges``)."""
    from grader.report import payload

    return stamp(kind, payload(result.verdicts, lesson=result.lesson, profile=result.profile, evidence=evidence,
                               unreachable=result.errors, unfit=result.unfit, **extra))


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of :class:`Results`: every payload ``--format json`` prints."""
    s = Results.model_json_schema(by_alias=True)
    return {**s, "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
            "description": (f"What `clusterlab check|grade|verify|audit --format json` prints (schema_version "
                            f"{SCHEMA_VERSION}): one report, or for `check` of several lessons an array of them. "
                            "Generated from grader/results.py (python -m grader.results); do not edit.")}


def schema_text() -> str:
    """:func:`schema` as the shipped files hold it (indented, sorted keys, a final newline)."""
    return json.dumps(schema(), indent=2, sort_keys=True) + "\n"


def write_schemas(root: str | Path | None = None) -> list[Path]:
    """Write :func:`schema_text` to :data:`SCHEMA_FILE` and, in a checkout (``root``, default the folder
    above the package), to :data:`DOCS_SCHEMA_FILE`; return the paths written."""
    root = Path(root) if root is not None else SCHEMA_FILE.parents[2]
    paths = [SCHEMA_FILE] + ([root / DOCS_SCHEMA_FILE] if (root / "docs").is_dir() else [])
    text = schema_text()
    for p in paths:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return paths


if __name__ == "__main__":  # python -m grader.results: regenerate the shipped schema files
    for written in write_schemas():
        print(written, file=sys.stdout)
