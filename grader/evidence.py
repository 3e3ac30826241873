"""Evidence: one JSON file per lesson with the raw outputs, the facts and their provenance.

Shape (``schema = "clusterlab.evidence/1"``)::

    {"schema", "lesson", "profile",
     "inventory": {"profile", "qsfp_port", "nodes": [{"name", "address", "port", "user"}]},
     "provenance": {"grader_version", "created_at" (UTC ISO 8601), "controller", "python",
                    "nodes": {name: {"sysinfo": "..."}}},
     "raw": [{"node", "probe", "command", "stdout", "stderr", "exit_status", "timed_out",
              "duration_s", "started_at", "sha256"}],
     "errors": {node: reason},           # nodes that could not be probed
     "measurements": {...},              # named, bounded measurements (iperf3 ...)
     "facts": {...}}                     # as derived when recorded; grading derives them again

``sha256`` is the hex SHA-256 of ``stdout + "\\0" + stderr`` (UTF-8) after redaction.
Secrets (private keys, passwords, tokens such as HF_TOKEN) are redacted before anything is
hashed or written.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import socket
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from grader import __version__

SCHEMA = "clusterlab.evidence/1"

_SECRETS = [
    (re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.S),
     "[private key redacted by clusterlab]"),
    (re.compile(r"\bhf_[A-Za-z0-9]{20,}\b"), "hf_[redacted]"),
    # a variable or option whose name has TOKEN, SECRET, PASSWORD, PASSWD or API_KEY as a whole
    # ``_``-separated part (HF_TOKEN, token, AWS_SECRET_ACCESS_KEY; not tokenizer, max_num_batched_tokens);
    # a value already redacted is left alone, so redacting twice changes nothing (load_evidence
    # redacts again before it checks each sha256)
    (re.compile(r"(?i)\b((?:[A-Z0-9]+_)*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY)(?:_[A-Z0-9]+)*)\b(\s*[=:]\s*)"
                r"(?!\[redacted\])(\"[^\"]*\"|'[^']*'|\S+)"),
     r"\1\2[redacted]"),
]


def redact(text: str) -> str:
    """``text`` with private keys, Hugging Face tokens and ``*TOKEN*=``/``password:`` values removed."""
    for pattern, repl in _SECRETS:
        text = pattern.sub(repl, text)
    return text


def digest(stdout: str, stderr: str) -> str:
    """Hex SHA-256 of one raw output as stored (``stdout + NUL + stderr``, UTF-8)."""
    return hashlib.sha256((stdout + "\0" + stderr).encode("utf-8")).hexdigest()


@dataclass
class RawOutput:
    """One probe's output on one node, as recorded (already redacted)."""

    node: str
    probe: str
    command: str
    stdout: str
    stderr: str
    exit_status: int | None
    timed_out: bool = False
    duration_s: float = 0.0
    started_at: str = ""
    sha256: str = ""

    def __post_init__(self) -> None:
        self.stdout, self.stderr = redact(self.stdout), redact(self.stderr)
        if not self.sha256:
            self.sha256 = digest(self.stdout, self.stderr)


class EvidenceError(ValueError):
    """An evidence file is missing, not JSON, of another schema, or edited after recording."""


@dataclass
class Evidence:
    """All that one ``clusterlab check LESSON`` recorded. See the module docstring for the JSON shape."""

    lesson: str
    profile: str
    inventory: dict[str, Any]
    raw: list[RawOutput] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)
    measurements: dict[str, Any] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)

    def outputs(self, node: str, probe: str) -> RawOutput | None:
        """The raw output of ``probe`` on ``node``, or None if it was not recorded."""
        for r in self.raw:
            if r.node == node and r.probe == probe:
                return r
        return None

    def outputs_any(self, probe: str) -> RawOutput | None:
        """The first raw output of ``probe`` on any node (for pair measurements), or None."""
        return next((r for r in self.raw if r.probe == probe), None)

    def stamp(self) -> None:
        """Fill the provenance: grader version, UTC time, controller host and Python."""
        self.provenance.setdefault("grader_version", __version__)
        self.provenance.setdefault("created_at", datetime.now(timezone.utc).isoformat(timespec="seconds"))
        self.provenance.setdefault("controller", socket.gethostname())
        self.provenance.setdefault("python", platform.python_version())

    def to_json(self) -> dict[str, Any]:
        return {"schema": SCHEMA, "lesson": self.lesson, "profile": self.profile, "inventory": self.inventory,
                "provenance": self.provenance, "raw": [asdict(r) for r in self.raw], "errors": self.errors,
                "measurements": self.measurements, "facts": self.facts}

    def save(self, directory: str | os.PathLike[str]) -> Path:
        """Write ``<directory>/<lesson>.json`` atomically; returns the path."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"{self.lesson}.json"
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1, sort_keys=False) + "\n", encoding="utf-8")
        os.replace(tmp, path)
        return path


def _how_to_record(lesson: str) -> str:
    """The command that records ``lesson``'s evidence (the lab's comes from the load test)."""
    if lesson == "lab":
        return "`clusterlab loadtest --inventory F` (the lab notebook's measuring cells)"
    name = lesson if lesson.startswith("lesson") else "LESSON"
    return f"`clusterlab check {name} --inventory F` (or the notebook's Check my cluster cell)"


def load_evidence(path: str | os.PathLike[str]) -> Evidence:
    """Read an evidence file and verify every raw output against its sha256.

    Raises EvidenceError naming the file and the problem (missing, not JSON, wrong schema,
    missing field, an output edited after it was recorded).
    """
    p = Path(path)
    how = _how_to_record(p.stem)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EvidenceError(f"{p}: no such evidence file. Record it with {how}.") from None
    except (OSError, UnicodeDecodeError) as e:
        raise EvidenceError(f"{p}: cannot read: {e}") from None
    except json.JSONDecodeError as e:
        raise EvidenceError(f"{p}: not JSON ({e.msg} at line {e.lineno}). Record it again with {how}.") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise EvidenceError(f"{p}: not a clusterlab evidence file (expected schema {SCHEMA!r}).")
    try:
        raw = [RawOutput(**{**r, "sha256": ""}) for r in data["raw"]]
        stored = [r["sha256"] for r in data["raw"]]
        ev = Evidence(lesson=data["lesson"], profile=data["profile"], inventory=data["inventory"], raw=raw,
                      errors=data.get("errors", {}), measurements=data.get("measurements", {}),
                      facts=data.get("facts", {}), provenance=data.get("provenance", {}))
    except (KeyError, TypeError) as e:
        raise EvidenceError(f"{p}: evidence is missing a field or has a wrong one ({e}). Record it again.") from None
    for r, want in zip(raw, stored):
        if r.sha256 != want:
            raise EvidenceError(f"{p}: the output of `{r.probe}` on {r.node} does not match its sha256: the file was "
                                f"edited after it was recorded. Record it again with {how}.")
    return ev
