"""The machine-readable output of the ``clusterlab`` command line: a contract.

Every JSON the command line prints (``--format json``, its alias ``--json``, and ``sim status``) is one
of these payloads, each opening with ``"schema_version"`` (:data:`SCHEMA_VERSION`) and ``"kind"`` (which
report it is; :class:`Document`):

- ``check`` / ``grade``: one lesson's verdicts (:class:`LessonReport`); ``check`` of several lessons
  prints a JSON array of them, one per lesson;
- ``loadtest``: the lab's verdicts after a load test, with the pair-over-baseline comparison
  (:class:`LoadtestReport`);
- ``verify``: the rows comparing an evidence file with the machines again (:class:`VerifyReport`);
- ``audit``: the audited grade cells and shared recordings of an nbgrader autograded folder
  (:class:`AuditReport`);
- ``explain``: one pasted file, section by section, what each output says (:class:`ExplainReport`);
- ``sim-status``: whether the simulated cluster is up and its nodes reachable (:class:`SimStatus`).

The models below are the one description of those shapes: :func:`schema` generates the JSON Schema
shipped in the package (:data:`SCHEMA_FILE`) and in ``docs/results.schema.json``; ``python -m
grader.results`` writes both again (``tests/test_results_schema.py`` fails when they drift from the
models, and validates every payload the command line prints against the shipped file).

``schema_version`` is ``MAJOR.MINOR``: MINOR goes up when a key is added, MAJOR when a key is removed
or renamed or its meaning changes. The schema forbids keys it does not name, so a payload and its
schema always describe the same keys; the one exception is strict JSON's ``"<key>_reason"`` beside a
figure written as null (grader.strictjson), which the models that hold figures allow (:class:`_Figures`).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, RootModel, model_validator

from .payload import SCHEMA_VERSION, explain_payload, stamp  # noqa: F401  (re-exported: explain --json needs no models)

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


def _reason_keys(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """The JSON Schema of a :class:`_Figures` model: its keys, and ``"<key>_reason"`` (a string) for any of
    them, nothing else."""
    keys = "|".join(re.escape(name) for name in model.model_fields)
    schema["additionalProperties"] = False
    schema["patternProperties"] = {f"^({keys})_reason$": {
        "type": "string", "description": "why the key beside it is null: a figure JSON cannot carry (NaN, "
                                         "an infinity), written as null by strict JSON (grader.strictjson)"}}


class _Figures(BaseModel):
    """A model holding figures: besides its keys, ``"<key>_reason"`` for a figure strict JSON wrote as null."""

    model_config = ConfigDict(extra="allow", json_schema_extra=_reason_keys)

    @model_validator(mode="after")
    def _only_reasons(self) -> _Figures:
        for key, value in (self.model_extra or {}).items():
            if not (key.endswith("_reason") and key[:-len("_reason")] in type(self).model_fields
                    and isinstance(value, str)):
                raise ValueError(f"{key!r} is no key of {type(self).__name__} (nor a text <key>_reason)")
        return self


class Document(_Strict):
    """What every payload opens with: the version of this contract and which report it is."""

    schema_version: Literal[SCHEMA_VERSION] = Field(  # type: ignore[valid-type]
        description="MAJOR.MINOR of this contract: MINOR goes up when a key is added, MAJOR when one is "
                    "removed, renamed or changes meaning")
    kind: str = Field(description="which report: the command that printed it")


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


class _LessonVerdicts(Document):
    """One lesson's verdicts graded from one evidence file (grader.checking.LessonResult), whichever command
    graded them."""

    lesson: str
    profile: str = Field(description="the profile whose ranges graded it (spark-pair, single-spark, "
                                     "dual-gpu-desktop, sim)")
    evidence: Optional[str] = Field(description="the evidence file graded (check, loadtest: the one written; "
                                                "null when it could not be written)")
    unreachable: dict[str, str] = Field(description="{node: why it could not be reached}")
    unfit: list[str] = Field(description="why this evidence earns no points whatever its verdicts (a replay, "
                                         "outputs that do not show its profile; for grade also sim evidence of a "
                                         "sim the learner did not build at the lesson's start); not empty: exit "
                                         "status 1 and a score that earns 0")
    ranges: str = _absent_unless("the ranges file the verdicts used")
    verdicts: list[VerdictModel]
    score: Score
    counts: Counts


class LessonReport(_LessonVerdicts):
    """``check`` or ``grade`` of one lesson: its verdicts, score and counts, and what else the run found."""

    model_config = ConfigDict(title="LessonReport")
    kind: Literal["check", "grade"]
    notes: list[str] = _absent_unless("grade only: what grading noticed (stored facts that disagree with the "
                                      "raw outputs; the unfit sentences again)")
    rounds: int = _absent_unless("check --watch only: the rounds run")


# -------------------------------------------------------------------------------------------- loadtest


class ComparisonRow(_Figures):
    """One concurrency level measured on both sides (grader.lab.compare); a figure is null when a side
    lacks it."""

    concurrency: int = Field(description="requests in flight at once (vllm bench serve --max-concurrency)")
    pair_tok_s: Optional[float] = Field(description="the pair's output throughput, tokens/s")
    baseline_tok_s: Optional[float] = Field(description="the single-node baseline's output throughput, tokens/s")
    throughput_ratio: Optional[float] = Field(description="pair_tok_s / baseline_tok_s; above 1: the pair "
                                                          "serves more tokens per second")
    tpot_ratio: Optional[float] = Field(description="the pair's median time per output token over the "
                                                    "baseline's; above 1: the pair is slower per token")
    ttft_ratio: Optional[float] = Field(description="the pair's median time to first token over the "
                                                    "baseline's; above 1: the pair is slower to start")


class LoadtestReport(_LessonVerdicts):
    """``loadtest``: the lab graded after measuring one side (pair or baseline) on the head node."""

    kind: Literal["loadtest"]
    comparison: list[ComparisonRow] = Field(description="per level measured for both sides, in rising "
                                                        "concurrency; empty until both sides are recorded")
    plots: list[str] = Field(description="the plot files written beside the evidence (empty without matplotlib)")


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


class VerifyReport(Document):
    """``verify``: an evidence file compared with the machines again, row by row."""

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


class AuditReport(Document):
    """``audit`` of an nbgrader autograded folder; exit status 1 when a row is ABOVE or SHARED."""

    kind: Literal["audit"]
    autograded: str = Field(description="the folder audited")
    assignment: Optional[str] = Field(description="the one assignment audited; null: all")
    rows: list[AuditRow]


# --------------------------------------------------------------------------------------------- explain


class FindingModel(_Strict):
    """One conclusion about an output (grader.explain.Finding)."""

    model_config = ConfigDict(title="Finding")
    level: Literal["ok", "warn", "fail", "info"] = Field(description="a fail anywhere: exit status 1")
    message: str


class ExplainedSection(_Strict):
    """One command's output in the paste, explained (grader.explain.Section)."""

    kind: Optional[str] = Field(description="the kind of output it was read as (a name --kind takes, e.g. "
                                            "ibdev2netdev); 'input' for the note that the input was cut; "
                                            "null: not recognised")
    command: Optional[str] = Field(description="the command on the prompt line above it; null: none pasted")
    host: Optional[str] = Field(description="the host the prompt names; null: none")
    facts: dict[str, Any] = Field(description="what the kind's parser read ({field: value}, as that parser "
                                              "names them); text longer than grader.explain.MAX_SHOWN_CHARS "
                                              "characters cut, saying its length")
    findings: list[FindingModel] = Field(description="what the facts mean, in the order found")
    error: Optional[str] = Field(description="why the output could not be read, and what to paste instead "
                                             "(then facts and findings are empty); null: it was read")


class ExplainReport(Document):
    """``explain``: a pasted file, one section per command output in it (a cut input's note first)."""

    kind: Literal["explain"]
    file: str = Field(description="the file read; - for standard input")
    sections: list[ExplainedSection]


# -------------------------------------------------------------------------------------------- sim status


class SimNode(_Strict):
    """One simulated node as ``sim status`` finds it (grader.sim.status)."""

    address: str = Field(description="its address on the house network, where the grader's SSH goes")
    namespace: bool = Field(description="its network namespace exists")
    sshd_pid: Optional[int] = Field(description="the process id of its sshd as recorded by sim up; null: none")
    sshd_running: bool = Field(description="that sshd is alive inside the node")
    ssh_reachable: bool = Field(description="port 22 at address accepts a connection now")


class SimServe(_Strict):
    """The model served on the sim (``sim up --serve``), as recorded in its state."""

    mode: str = Field(description="ray, nnodes or single")
    url: str = Field(description="the OpenAI-compatible server as the nodes reach it")
    host_url: str = Field(description="the same server as this machine reaches it")
    ready: Optional[bool] = Field(description="/health answered before sim up returned; false: it failed or "
                                              "hung; null: still starting")
    ray_only: Optional[bool] = Field(description="true: the sim's Ray alone, no vLLM of the sim's (the lab's start, "
                                                 "`clusterlab start lab`: the learner serves); null or false: "
                                                 "Ray and vLLM")


class SimStatus(Document):
    """``sim status``: is the simulated cluster up (exit status 0) or not (1); it changes nothing."""

    kind: Literal["sim-status"]
    up: bool = Field(description="sim up finished and both namespaces exist")
    healthy: bool = Field(description="up, and every node's SSH answers")
    faults: list[str] = Field(description="the faults injected (sim up --fault); empty when down")
    inventory: Optional[str] = Field(description="the inventory file to give check; null when down")
    nodes: dict[str, SimNode] = Field(description="{node name: its state}")
    serve: Optional[SimServe] = Field(description="what is served; null when nothing is (or the sim is down)")


# ----------------------------------------------------------------------------------------- every payload

Report = Annotated[Union[LessonReport, LoadtestReport, VerifyReport, AuditReport, ExplainReport, SimStatus],
                   Field(discriminator="kind")]


class Results(RootModel[Union[Report, list[LessonReport]]]):
    """Whatever the command line prints as JSON: one report, or (``check`` of several lessons) a list of them."""

    model_config = ConfigDict(title="clusterlab results")


def lesson_payload(result: Any, kind: str, evidence: str | None, **extra: Any) -> dict[str, Any]:
    """A :class:`LessonReport` or :class:`LoadtestReport` payload (a dict) for a
    grader.checking.LessonResult ``result`` graded from the file ``evidence``: ``{"schema_version", "kind",
    "lesson", "profile", "evidence", "unreachable", "unfit", **extra, "ranges", "verdicts", "score",
    "counts"}`` (``extra``: ``notes`` for grade, ``rounds`` for a watch, ``comparison`` and ``plots`` for a
    load test). With ``unfit`` sentences the score earns 0: what the evidence earns, not its verdicts' sum."""
    from grader.report import payload

    out = payload(result.verdicts, lesson=result.lesson, profile=result.profile, evidence=evidence,
                  unreachable=result.errors, unfit=result.unfit, **extra)
    if result.unfit:  # the score is what the evidence earns, not its verdicts' sum
        out["score"] = {**out["score"], "earned": 0.0}
    return stamp(kind, out)


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of :class:`Results`: every JSON the command line prints."""
    s = Results.model_json_schema(by_alias=True)
    return {**s, "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
            "description": (f"What `clusterlab check|grade|loadtest|verify|audit --format json`, `clusterlab "
                            f"explain --json` and `clusterlab sim status` print (schema_version {SCHEMA_VERSION}): "
                            "one report, or for `check` of several lessons an array of them. "
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
