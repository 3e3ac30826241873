"""Checking what the command line prints against the JSON Schema shipped in the package (grader.results),
for tests/test_results_schema.py and the live tests whose commands need the simulated cluster."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from jsonschema import Draft202012Validator

from grader.results import SCHEMA_FILE, Results

VALIDATOR = Draft202012Validator(json.loads(SCHEMA_FILE.read_text()))
"""The shipped file, not the models it was generated from."""


def valid(payload: Any) -> Any:
    """``payload`` after checking it against the shipped schema and the models it was generated from."""
    errors = sorted(VALIDATOR.iter_errors(payload), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])
    Results.model_validate(payload)
    return payload


def valid_json(text: str) -> Any:
    """``valid`` of the JSON document ``text`` (one the command line printed on stdout)."""
    return valid(json.loads(text))


def cli_json(*args: str, timeout: float = 60) -> tuple[int, Any]:
    """(exit status, JSON) of ``clusterlab ARGS`` run in a fresh interpreter, its stdout checked against
    the shipped schema."""
    p = subprocess.run([sys.executable, "-m", "grader.cli", *args], capture_output=True, text=True, timeout=timeout)
    assert p.stdout.strip(), p.stderr
    return p.returncode, valid_json(p.stdout)
