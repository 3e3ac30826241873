"""``--format json|junit|tap``: the payloads of grader.results written for a CI.

JUnit XML and TAP are written from the same JSON payload ``--format json`` prints (the contract,
grader.results), read once into suites of cases (:func:`suites`), so the three always agree:

- ``check`` / ``grade`` / ``loadtest``: one suite per lesson report; one case per verdict (classname:
  the lesson; name: ``"<check id> <title>"``). pass: passed. warn: passed, its details and hint in the
  case's ``<system-out>`` (TAP: a YAML block under ``ok``). fail: a failure whose message is the details
  (the measured values and, for a range check, the expected range) and whose text adds the range's
  source, the hint and the check's source. unmeasured ("not measured") and skip ("n.a."): skipped, the
  reason (the details) as its message. Each unreachable node is an **error** case ``unreachable <node>``
  (the node was not judged at all; its checks are also "not measured"), and evidence that earns nothing
  whatever its verdicts (``unfit``: a replay, a profile its outputs do not show) is one error case
  ``evidence earns points``; so JUnit errors + failures are 0 exactly when nothing but skips stands
  between the run and exit status 0, and a not-measured check, skipped here, still makes it exit 1.
- ``verify``: one suite; one case per row (classname: the lesson; name: the item): agree passed,
  DIFFERS a failure (recorded, measured, unit, note), not comparable skipped (the note).
- ``audit``: one suite per assignment; one case per row (classname ``<assignment>.<student>``; name:
  the grade cell): ABOVE and SHARED failures, below passed with the reason in ``<system-out>``, agree
  passed.

TAP is version 14: ``1..N``, ``ok`` / ``not ok`` per case, ``# SKIP <reason>`` for skipped cases, a
YAML diagnostics block (``---`` ... ``...``) under every case that has something to say (a not ok,
a warn, a not measured check), and a ``#`` comment line naming each suite.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from grader import strictjson

FORMATS = ("text", "json", "junit", "tap")
"""What ``--format`` takes (text is each command's own table; the others are written here)."""

PASSED, FAILURE, SKIPPED, ERROR = "passed", "failure", "skipped", "error"


@dataclass
class Case:
    """One test case: ``outcome`` (passed, failure, skipped, error), a one-line ``message`` and the
    diagnostics ``diag`` ({key: text or list of texts}; JUnit writes them as text, TAP as YAML)."""

    classname: str
    name: str
    outcome: str
    message: str = ""
    diag: dict[str, Any] = field(default_factory=dict)


@dataclass
class Suite:
    """One test suite: its cases, ``properties`` ({name: text}) and ``notes`` (lines for its system-out)."""

    name: str
    cases: list[Case]
    properties: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _diag(**items: Any) -> dict[str, Any]:
    """The items worth showing: None and empty lists left out."""
    return {k: v for k, v in items.items() if v is not None and v != []}


def format_value(v: Any, unit: str) -> str:
    """A row's value as the table shows it: ``-`` for None, a float to 4 significant digits, a list
    comma-separated (``(none)`` when empty), then the unit."""
    if v is None:
        return "-"
    if isinstance(v, float):
        v = f"{v:.4g}"
    elif isinstance(v, (list, tuple)):
        v = ", ".join(str(x) for x in v) or "(none)"
    return f"{v} {unit}".strip()


def _lesson_suite(p: dict[str, Any]) -> Suite:
    lesson = p["lesson"]
    cases = [Case(lesson, f"unreachable {node}", ERROR, why, {"node": node, "why": why})
             for node, why in p.get("unreachable", {}).items()]
    if p.get("unfit"):
        cases.append(Case(lesson, "evidence earns points", ERROR, "; ".join(p["unfit"]), {"unfit": p["unfit"]}))
    for v in p["verdicts"]:
        name, reason, status = f"{v['id']} {v['title']}", "; ".join(v["details"]), v["status"]
        diag = _diag(status=status, details=v["details"], range_source=v.get("range_source"), hint=v["hint"],
                     source=v["source"])
        if status == "fail":
            cases.append(Case(lesson, name, FAILURE, reason, diag))
        elif status in ("unmeasured", "skip"):
            label = "not measured" if status == "unmeasured" else "n.a."
            cases.append(Case(lesson, name, SKIPPED, f"{label}: {reason}" if reason else label,
                              diag if status == "unmeasured" else {}))
        else:
            cases.append(Case(lesson, name, PASSED, "", diag if status == "warn" else {}))
    props = {"schema_version": p["schema_version"], "kind": p["kind"], "lesson": lesson, "profile": p["profile"],
             "evidence": p.get("evidence"), "score": f"{p['score']['earned']:g}/{p['score']['total']:g}",
             "rounds": p.get("rounds"), "ranges": p.get("ranges")}
    return Suite(f"{p['kind']} {lesson}", cases, {k: str(v) for k, v in props.items() if v is not None},
                 list(p.get("notes") or []))


def _verify_suite(p: dict[str, Any]) -> Suite:
    cases = []
    for r in p["rows"]:
        rec, meas = format_value(r["recorded"], r["unit"]), format_value(r["measured"], r["unit"])
        diag = _diag(recorded=rec, measured=meas, note=r["note"] or None)
        outcome = {"agree": PASSED, "DIFFERS": FAILURE}.get(r["status"], SKIPPED)
        message = {PASSED: "", FAILURE: f"recorded {rec}, measured {meas}" + (f": {r['note']}" if r["note"] else ""),
                   SKIPPED: "not comparable" + (f": {r['note']}" if r["note"] else "")}[outcome]
        cases.append(Case(p["lesson"], r["item"], outcome, message, diag if outcome == FAILURE else {}))
    props = {"schema_version": p["schema_version"], "kind": "verify", "lesson": p["lesson"],
             "evidence": p["evidence"], "inventory": p["inventory"]}
    return Suite(f"verify {p['lesson']}", cases, props, list(p["notes"]))


def _audit_suites(p: dict[str, Any]) -> list[Suite]:
    by: dict[str, list[Case]] = {}
    for r in p["rows"]:
        status, why = r["status"], r["why"]
        outcome = FAILURE if status in ("ABOVE", "SHARED") else PASSED
        diag = {} if status == "agree" else _diag(status=status, kernel=r["kernel"], evidence=r["evidence"],
                                                  why=why or None)
        message = {"ABOVE": f"ABOVE: the kernel scored {r['kernel']:g}, the evidence supports {r['evidence']:g}: "
                            f"{why}", "SHARED": f"SHARED: {why}"}.get(status, "")
        if status == "SHARED":
            diag = _diag(status=status, why=why)
        by.setdefault(r["assignment"], []).append(Case(f"{r['assignment']}.{r['student']}", r["cell"], outcome,
                                                       message, diag))
    props = {"schema_version": p["schema_version"], "kind": "audit", "autograded": p["autograded"]}
    return [Suite(f"audit {name}", cases, props) for name, cases in sorted(by.items())]


def suites(payload: dict[str, Any] | list[dict[str, Any]]) -> list[Suite]:
    """The suites of a payload (a grader.results report, or a list of lesson reports), in order.
    Raises ValueError for a payload of no kind this module knows."""
    if isinstance(payload, list):
        return [s for p in payload for s in suites(p)]
    kind = payload.get("kind")
    if kind in ("check", "grade", "loadtest"):
        return [_lesson_suite(payload)]
    if kind == "verify":
        return [_verify_suite(payload)]
    if kind == "audit":
        return _audit_suites(payload)
    raise ValueError(f"no JUnit/TAP form for a payload of kind {kind!r}")


# ------------------------------------------------------------------------------------------------- JUnit

_NOT_XML = "[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
"""What XML 1.0 cannot carry; compiled at the first JUnit output (re keeps it): its ranges cost every command's start
5 ms to compile, and most print no XML."""


def _x(text: Any) -> str:
    """``text`` as XML 1.0 can carry it: a control character or lone surrogate becomes U+FFFD."""
    return re.sub(_NOT_XML, "\ufffd", str(text))


def _plain(diag: dict[str, Any]) -> str:
    """Diagnostics as text lines: ``key: value``, a list as ``key:`` then ``  - item`` lines."""
    lines = []
    for k, v in diag.items():
        lines += [f"{k}:"] + [f"  - {x}" for x in v] if isinstance(v, list) else [f"{k}: {v}"]
    return "\n".join(lines)


def _tally(cases: list[Case]) -> dict[str, str]:
    return {"tests": str(len(cases)), "failures": str(sum(c.outcome == FAILURE for c in cases)),
            "errors": str(sum(c.outcome == ERROR for c in cases)),
            "skipped": str(sum(c.outcome == SKIPPED for c in cases))}


def junit(payload: dict[str, Any] | list[dict[str, Any]]) -> str:
    """JUnit XML of ``payload`` (mapping: the module doc): ``<testsuites>`` with one ``<testsuite>`` per
    suite, a ``<testcase classname name>`` per case holding ``<failure message>``, ``<error message>`` or
    ``<skipped message>`` with the diagnostics as text, or (passed with something to say) ``<system-out>``."""
    import xml.etree.ElementTree as ET  # here: only junit needs it (a command that prints no XML loads none)

    all_suites = suites(payload)
    kinds = sorted({p["kind"] for p in (payload if isinstance(payload, list) else [payload])})
    root = ET.Element("testsuites", {"name": f"clusterlab {' '.join(kinds)}",
                                     **_tally([c for s in all_suites for c in s.cases])})
    for s in all_suites:
        el = ET.SubElement(root, "testsuite", {"name": _x(s.name), **_tally(s.cases)})
        if s.properties:
            props = ET.SubElement(el, "properties")
            for k, v in s.properties.items():
                ET.SubElement(props, "property", {"name": k, "value": _x(v)})
        for c in s.cases:
            tc = ET.SubElement(el, "testcase", {"classname": _x(c.classname), "name": _x(c.name)})
            if c.outcome == PASSED:
                if c.diag:
                    ET.SubElement(tc, "system-out").text = _x(_plain(c.diag))
                continue
            child = ET.SubElement(tc, c.outcome, {"message": _x(c.message)})
            if c.outcome == ERROR:
                child.set("type", "unreachable" if c.name.startswith("unreachable ") else "unfit")
            if c.diag:
                child.text = _x(_plain(c.diag))
        if s.notes:
            ET.SubElement(el, "system-out").text = _x("\n".join(s.notes))
    ET.indent(root, space=" ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode")


# --------------------------------------------------------------------------------------------------- TAP

_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def _line(text: str) -> str:
    """One TAP line's text: control characters and line breaks become one space."""
    return _CONTROL.sub(" ", text).strip()


def _escape(text: str) -> str:
    r"""A TAP description: ``\`` and ``#`` escaped (TAP 14), so no text in it starts a directive."""
    return _line(text).replace("\\", "\\\\").replace("#", "\\#")


def tap(payload: dict[str, Any] | list[dict[str, Any]]) -> str:
    """TAP version 14 of ``payload`` (mapping: the module doc): the plan ``1..N``, a ``# <suite>`` comment
    before each suite's cases, ``ok``/``not ok N - <name>`` per case (``# SKIP <reason>`` for skipped),
    and a YAML block of the diagnostics under each case that has some."""
    import yaml  # here: only tap needs it (importing PyYAML costs every other command ~20 ms)

    all_suites = suites(payload)
    lines = ["TAP version 14", f"1..{sum(len(s.cases) for s in all_suites)}"]
    n = 0
    for s in all_suites:
        lines.append(f"# {_line(s.name)}")
        lines += [f"# {_line(note)}" for note in s.notes]
        for c in s.cases:
            n += 1
            ok = "ok" if c.outcome in (PASSED, SKIPPED) else "not ok"
            desc = _escape(f"{c.classname} {c.name}")
            skip = f" # SKIP {_line(c.message)}" if c.outcome == SKIPPED else ""
            lines.append(f"{ok} {n} - {desc}{skip}")
            diag = c.diag or ({"message": c.message} if ok == "not ok" else {})
            if diag:
                block = yaml.safe_dump(diag, sort_keys=False, allow_unicode=True, width=10**6)
                lines += ["  ---"] + [f"  {ln}" for ln in block.splitlines()] + ["  ..."]
    return "\n".join(lines)


def render(payload: dict[str, Any] | list[dict[str, Any]], fmt: str) -> str:
    """``payload`` (grader.results) in ``fmt``: json (strict JSON, :func:`grader.strictjson.dumps`), junit
    or tap. Raises ValueError for another format (text is each command's own table).

    Every format is written from the payload as strict JSON carries it (a non-finite figure ``null`` with
    a ``<key>_reason``, a lone surrogate U+FFFD: grader.strictjson), so they all show the same values."""
    payload = json.loads(strictjson.dumps(payload))
    if fmt == "json":
        return strictjson.dumps(payload, indent=1)
    if fmt == "junit":
        return junit(payload)
    if fmt == "tap":
        return tap(payload)
    raise ValueError(f"no format {fmt!r}: one of {', '.join(FORMATS)}")
