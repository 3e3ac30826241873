"""Evidence: one JSON file per lesson with the raw outputs, the facts and their provenance.

Shape (``schema = "clusterlab.evidence/1"``)::

    {"schema", "lesson", "profile",
     "inventory": {"profile", "qsfp_port", "nodes": [{"name", "address", "port", "user"}]},
     "provenance": {"grader_version", "created_at" (UTC ISO 8601), "controller", "python", "facts_code",
                    "nodes": {name: {"sysinfo": "...", "host_key": "SHA256:...", "host_key_type": "ssh-ed25519"}},
                    "replay": true},     # only in evidence saved into a folder named `recorded` (REPLAY_DIR)
     "raw": [{"node", "probe", "command", "stdout", "stderr", "exit_status", "timed_out",
              "duration_s", "started_at", "sha256"}],
     "errors": {node: reason},           # nodes that could not be probed
     "measurements": {...},              # named, bounded measurements (iperf3 ...)
     "facts": {...},                     # as derived when recorded; grading derives them again
     "manifest": {"version": 1, "sha256", "parts": {part: sha256}}}   # see below

``sha256`` is the hex SHA-256 of ``stdout + "\\0" + stderr`` (UTF-8) after redaction. The ``manifest``
covers everything else that grading reads (:func:`manifest_parts`): every field but ``facts`` (derived
again at grading time) and ``provenance.facts_code``, and each raw output's node, probe, command,
exit status, timed_out, times and sha256. It is written by :meth:`Evidence.save` and checked by
:func:`load_evidence`: an edited, added or deleted part is refused like an edited stdout, and a file
without one was recorded by an older grader and is refused too. ``host_key`` is
the node's SSH host key fingerprint as the transport verified it against known_hosts (OpenSSH's
``SHA256:`` form); the ``platform`` raw output of each node says what machine it is
(grader.probes.platform, read by grader.provenance).
Secrets (private keys, passwords, tokens such as HF_TOKEN) are redacted before anything is
hashed or written.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import socket
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from grader import __version__
from grader.redact import redact  # what is redacted and why: grader/redact.py (re-exported here)

SCHEMA = "clusterlab.evidence/1"

def digest(stdout: str, stderr: str) -> str:
    """Hex SHA-256 of one raw output as stored (``stdout + NUL + stderr``, UTF-8). Never raises: a lone
    surrogate (which no recorded output holds, see :func:`read_evidence`) is hashed as its code point."""
    return hashlib.sha256((stdout + "\0" + stderr).encode("utf-8", "surrogatepass")).hexdigest()


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
    manifest_problem: str | None = field(default=None, repr=False, compare=False)
    """Set by :func:`read_evidence`: why the file's manifest does not vouch for its graded fields (recorded
    by an older grader, or edited after recording), one sentence naming the file; None when it does.
    :func:`load_evidence` refuses such a file; ``clusterlab verify`` reads it anyway. Never written."""

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
        self.provenance.setdefault("facts_code", facts_code())

    def to_json(self) -> dict[str, Any]:
        return {"schema": SCHEMA, "lesson": self.lesson, "profile": self.profile, "inventory": self.inventory,
                "provenance": self.provenance, "raw": [asdict(r) for r in self.raw], "errors": self.errors,
                "measurements": self.measurements, "facts": self.facts}

    def save(self, directory: str | os.PathLike[str]) -> Path:
        """Write ``<directory>/<lesson>.json`` atomically; returns the path.

        Evidence saved into a folder named ``recorded`` (:data:`REPLAY_DIR`, where the replays shipped
        beside each lab notebook live) is marked ``provenance["replay"] = True``, here and in the file:
        it is the course's replay, never a learner's record (grader.provenance.replay_problem).
        """
        d = Path(directory)
        if d.resolve().name == REPLAY_DIR:
            self.provenance["replay"] = True
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"{self.lesson}.json"
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(seal(self.to_json()), indent=1, sort_keys=False) + "\n", encoding="utf-8")
        os.replace(tmp, path)
        return path


REPLAY_DIR = "recorded"
"""The folder name of the replay evidence shipped beside each lab notebook (grader.notebook.RECORDED_DIR):
``clusterlab check lessonN --evidence solutions/lessonN/recorded`` records one. Evidence saved there is
marked as a replay."""

MAX_BYTES = 64 * 2**20
"""An evidence file larger than this (64 MiB) is refused: a real one is under 1 MiB (50 MB grades in ~4 s)."""

PAIR_PROFILES = ("spark-pair", "sim")


@functools.lru_cache(maxsize=None)
def facts_code() -> str:
    """sha256 of the code that turns raw outputs into facts (grader/facts/ and grader/parsers/, subpackages too).

    Recorded in provenance: stored facts are compared with re-derived ones only when the same code
    derived them, so evidence recorded before a parser changed is not mistaken for an edited one.
    Read once per process (every grade cell asks).
    """
    h = hashlib.sha256()
    root = Path(__file__).resolve().parent
    for f in sorted([*(root / "facts").rglob("*.py"), *(root / "parsers").rglob("*.py")]):
        h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


MANIFEST_VERSION = 1
MANIFEST_SKIPPED = ("facts", "manifest")
"""Top-level fields the manifest leaves out: the facts (grading derives them again from the raw outputs;
an edited summary is only noted, grader.checking.grade_file) and the manifest itself."""
MANIFEST_SKIPPED_PROVENANCE = ("facts_code",)
"""Provenance fields the manifest leaves out: ``facts_code`` says which code derived the stored facts."""
_RAW_TEXT = ("stdout", "stderr")  # covered by each output's own sha256


def _hash_json(value: Any) -> str:
    """sha256 of ``value`` as canonical JSON (sorted keys, no spaces, ASCII: never raises on a surrogate)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def manifest_parts(data: dict[str, Any]) -> dict[str, str]:
    """The sha256 of each graded part of an evidence record as its JSON holds it.

    Parts: every top-level field but :data:`MANIFEST_SKIPPED` (``schema``, ``lesson``, ``profile``,
    ``inventory``, ``errors``, ``measurements``, ``provenance`` without ``facts_code``: host keys,
    ``replay``, sysinfo, times, versions), and one part per raw output, named ``raw NODE PROBE``, with
    every field of it but stdout and stderr (node, probe, command, exit_status, timed_out, duration_s,
    started_at and the sha256 that covers its text). Which outputs exist is in the part names.
    """
    parts: dict[str, str] = {}
    for key, value in data.items():
        if key in MANIFEST_SKIPPED:
            continue
        if key == "raw" and isinstance(value, list):
            for i, r in enumerate(value):
                if isinstance(r, dict):
                    name = f"raw {r.get('node')} {r.get('probe')}"
                    r = {k: v for k, v in r.items() if k not in _RAW_TEXT}
                else:
                    name = f"raw #{i}"
                while name in parts:
                    name += f" #{i}"
                parts[name] = _hash_json(r)
            parts["raw"] = _hash_json(len(value))
            continue
        if key == "provenance" and isinstance(value, dict):
            value = {k: v for k, v in value.items() if k not in MANIFEST_SKIPPED_PROVENANCE}
        parts[key] = _hash_json(value)
    return parts


def manifest(data: dict[str, Any]) -> dict[str, Any]:
    """The manifest of ``data`` (an evidence record as JSON holds it): ``{"version", "sha256", "parts"}``,
    ``sha256`` being the hash of all the parts (:func:`manifest_parts`)."""
    parts = manifest_parts(data)
    return {"version": MANIFEST_VERSION, "sha256": _hash_json(parts), "parts": parts}


def seal(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (an evidence record, as :meth:`Evidence.to_json` or a JSON file gives it) with its manifest
    set (replaced), computed on the record as a reader will see it after a JSON round trip; returned.

    :meth:`Evidence.save` seals what it writes. Tests and tools that build or rewrite evidence by hand
    seal it, as the grader would have, so what they exercise is not the manifest."""
    data.pop("manifest", None)
    data["manifest"] = manifest(json.loads(json.dumps(data)))
    return data


def _part_label(name: str) -> str:
    if name.startswith("raw "):
        node, _, probe = name[4:].partition(" ")
        return f"output `{probe}` of {node}" if probe else f"output {node}"
    return "the number of raw outputs" if name == "raw" else f"`{name}`"


def manifest_mismatch(data: dict[str, Any]) -> str | None:
    """None when ``data``'s manifest vouches for its graded parts; else a clause saying what differs:
    ``"no manifest"`` (recorded by an older grader), or the parts changed, added or deleted (at most
    four named), or ``""`` when the manifest itself is what was edited."""
    m = data.get("manifest")
    if m is None:
        return "no manifest"
    computed = manifest_parts(data)
    if isinstance(m, dict) and m.get("version") == MANIFEST_VERSION and m.get("sha256") == _hash_json(computed):
        return None
    stored = m.get("parts") if isinstance(m, dict) else None
    if not isinstance(stored, dict) or not stored:
        return ""
    diffs = []
    for name in [*stored, *(n for n in computed if n not in stored)]:
        if name == "raw":
            continue
        if name not in computed:
            diffs.append(f"{_part_label(name)} deleted")
        elif name not in stored:
            diffs.append(f"{_part_label(name)} added")
        elif stored[name] != computed[name]:
            diffs.append(f"{_part_label(name)} changed")
    if not diffs and stored.get("raw") != computed.get("raw"):
        diffs.append("the number of raw outputs changed")
    if not diffs:
        return ""
    return ", ".join(diffs[:4]) + (f" and {len(diffs) - 4} more" if len(diffs) > 4 else "")


def shape_problems(data: dict[str, Any]) -> list[str]:
    """What makes a parsed evidence file unfit to grade: wrong types, an unknown profile, a profile
    the inventory does not have, the wrong number of nodes for it, outputs of nodes it does not
    name, duplicate outputs, no outputs at all. Empty list: fit."""
    from grader.inventory import PROFILES

    probs = []
    for key, typ in (("lesson", str), ("profile", str), ("inventory", dict), ("raw", list)):
        if not isinstance(data.get(key), typ):
            probs.append(f"`{key}` must be a {typ.__name__}")
    for key in ("errors", "measurements", "facts", "provenance"):
        if data.get(key) is not None and not isinstance(data[key], dict):
            probs.append(f"`{key}` must be an object")
    if probs:
        return probs
    profile, inv = data["profile"], data["inventory"]
    if profile not in PROFILES:
        probs.append(f"profile {profile!r} is not one of {', '.join(PROFILES)}")
    if inv.get("profile", profile) != profile:
        probs.append(f"profile {profile!r} differs from the inventory's {inv.get('profile')!r}")
    nodes = inv.get("nodes")
    if not isinstance(nodes, list) or not all(isinstance(n, dict) and isinstance(n.get("name"), str) for n in nodes):
        return probs + ["`inventory.nodes` must be a list of objects with a `name`"]
    names = [n["name"] for n in nodes]
    want = 2 if profile in PAIR_PROFILES else 1
    topology = inv.get("topology", "pair")
    if topology in ("switch", "ring") and profile in PAIR_PROFILES:  # N nodes (grader/inventory.py)
        if len(names) < (3 if topology == "ring" else 2) or len(set(names)) != len(names):
            probs.append(f"a {topology} needs distinct node names, the evidence names {names}")
    elif topology != "pair":
        probs.append(f"`inventory.topology` is {topology!r}: pair, switch or ring (switch and ring for {', '.join(PAIR_PROFILES)})")
    elif len(names) != want or len(set(names)) != len(names):
        probs.append(f"profile {profile!r} needs {want} distinct node(s), the evidence names {names}")
    if not data["raw"]:
        probs.append("it holds no raw outputs")
    seen = set()
    for i, r in enumerate(data["raw"]):
        if not isinstance(r, dict) or not all(isinstance(r.get(k), str) for k in ("node", "probe", "command",
                                                                                 "stdout", "stderr", "sha256")):
            probs.append(f"raw output #{i} lacks a node, probe, command, stdout, stderr or sha256 string")
            continue
        if r["node"] not in names:
            probs.append(f"raw output `{r['probe']}` is from {r['node']!r}, not a node of the evidence's inventory")
        if (r["node"], r["probe"]) in seen:
            probs.append(f"raw output `{r['probe']}` of {r['node']} appears twice")
        seen.add((r["node"], r["probe"]))
    return probs


def _how_to_record(lesson: str) -> str:
    """The command that records ``lesson``'s evidence (grader.lessons: the lab's comes from the load test)."""
    from grader import lessons

    known = lessons.REGISTRY.get(lesson)
    if known is not None and known.records_evidence:
        return known.how_to_record
    name = lesson if lesson.startswith("lesson") else "LESSON"
    return f"`clusterlab check {name} --inventory F` (or the notebook's Check my cluster cell)"


def load_evidence(path: str | os.PathLike[str]) -> Evidence:
    """Read an evidence file and verify every raw output against its sha256.

    Raises EvidenceError naming the file and the problem (missing, not a regular file, too large,
    not JSON, wrong schema, malformed, an output edited after it was recorded, a graded field edited,
    added or deleted after it was recorded (:func:`manifest_mismatch`), no manifest: recorded by an
    older grader).
    """
    ev, edited = read_evidence(path)
    if edited:
        r = edited[0]
        raise EvidenceError(f"{path}: the output of `{r.probe}` on {r.node} does not match its sha256: the file was "
                            f"edited after it was recorded. Record it again with {_how_to_record(Path(path).stem)}.")
    if ev.manifest_problem:
        raise EvidenceError(ev.manifest_problem)
    return ev


def read_evidence(path: str | os.PathLike[str]) -> tuple[Evidence, list[RawOutput]]:
    """Read an evidence file; return it and the raw outputs that no longer match their sha256.

    Everything :func:`load_evidence` refuses except edited outputs and a manifest that does not match
    raises EvidenceError; the edited outputs are returned, the manifest's problem is in
    ``Evidence.manifest_problem`` (``clusterlab verify`` reports them, the grader refuses them).
    """
    p = Path(path)
    how = _how_to_record(p.stem)
    if not p.exists():
        raise EvidenceError(f"{p}: no such evidence file. Record it with {how}.")
    if not p.is_file():
        raise EvidenceError(f"{p}: not a regular file. The evidence is the JSON file {how} writes.")
    if p.stat().st_size > MAX_BYTES:
        raise EvidenceError(f"{p}: {p.stat().st_size / 2**20:.0f} MiB, over the {MAX_BYTES // 2**20} MiB a real "
                            f"evidence file never reaches. Record it again with {how}.")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeError) as e:
        raise EvidenceError(f"{p}: cannot read: {e}") from None
    except json.JSONDecodeError as e:
        raise EvidenceError(f"{p}: not JSON ({e.msg} at line {e.lineno}). Record it again with {how}.") from None
    except RecursionError:
        raise EvidenceError(f"{p}: nested too deeply to be evidence. Record it again with {how}.") from None
    except ValueError as e:  # an integer over Python's 4,300-digit limit: no recorder writes one
        why = ("it holds an integer of more than 4,300 digits, which no recorded evidence holds"
               if "integer string conversion" in str(e) else f"unreadable ({' '.join(str(e).split())[:120]})")
        raise EvidenceError(f"{p}: {why}. Record it again with {how}.") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise EvidenceError(f"{p}: not a clusterlab evidence file (expected schema {SCHEMA!r}).")
    problems = shape_problems(data)
    if problems:
        raise EvidenceError(f"{p}: not valid evidence: {'; '.join(problems[:4])}. Record it again with {how}.")
    how = _how_to_record(data["lesson"])
    where = _not_unicode(data)
    if where:
        raise EvidenceError(f"{p}: {where} holds a lone surrogate (an escape like \\ud800 that is not Unicode), "
                            f"which no recorded output holds: the file was edited. Record it again with {how}.")
    try:
        raw = [RawOutput(**{**r, "sha256": ""}) for r in data["raw"]]
        stored = [r["sha256"] for r in data["raw"]]
        ev = Evidence(lesson=data["lesson"], profile=data["profile"], inventory=data["inventory"], raw=raw,
                      errors=data.get("errors") or {}, measurements=data.get("measurements") or {},
                      facts=data.get("facts") or {}, provenance=data.get("provenance") or {})
    except (KeyError, TypeError) as e:
        raise EvidenceError(f"{p}: evidence is missing a field or has a wrong one ({e}). Record it again.") from None
    try:
        mismatch = manifest_mismatch(data)
    except (RecursionError, ValueError):
        mismatch = ""
    if mismatch == "no manifest":
        ev.manifest_problem = (f"{p}: recorded by an older grader: check again with {how} (this grader "
                               "refuses evidence without a manifest of its graded fields)")
    elif mismatch is not None:
        ev.manifest_problem = (f"{p}: the file's manifest does not match its contents"
                               + (f" ({mismatch})" if mismatch else "") + f": it was edited after it was recorded. "
                               f"Record it again with {how}.")
    return ev, [r for r, want in zip(raw, stored) if r.sha256 != want]


def _not_unicode(data: dict[str, Any]) -> str | None:
    """Where ``data`` holds a lone UTF-16 surrogate (``json`` reads ``"\\ud800"`` as one; no recorded output
    holds one: outputs are decoded with replacement), or None."""
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
        return None
    except UnicodeEncodeError:
        pass
    except (RecursionError, ValueError):
        return None  # unreachable after json.loads; other checks refuse such a file
    for r in data["raw"]:
        for k in _RAW_TEXT:
            try:
                r[k].encode("utf-8")
            except UnicodeEncodeError:
                return f"the {k} of `{r['probe']}` on {r['node']}"
    return "a field"


def stored_facts_differ(ev: Evidence, rederived: dict[str, Any]) -> list[str] | None:
    """The top-level fact keys where ``ev``'s stored facts and ``rederived`` differ ([] if none), or
    None when they cannot be compared: no stored facts, or facts derived by other code (its
    ``facts_code``, or for older files its grader version, differs from this grader's)."""
    code = ev.provenance.get("facts_code")
    same_code = code == facts_code() if code else ev.provenance.get("grader_version") == __version__
    if not (same_code and ev.facts):
        return None

    def plain(x: Any) -> Any:
        return json.loads(json.dumps(x, sort_keys=True, default=str))

    return sorted(k for k in set(ev.facts) | set(rederived) if plain(ev.facts.get(k)) != plain(rederived.get(k)))
