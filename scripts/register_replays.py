#!/usr/bin/env python3
"""Write checks/replays.toml: the identity of every replay evidence file shipped with the labs.

    .venv/bin/python scripts/register_replays.py           # after recording solutions/*/recorded/*.json again
    .venv/bin/python scripts/register_replays.py --check   # exit 1 when checks/replays.toml is out of date

Reads ``solutions/<lesson>/recorded/<lesson>.json`` (every raw output verified against its sha256),
computes each file's :func:`grader.provenance.identity` (host keys and machine-id hashes of the machines
it was recorded on) and writes one ``[[replay]]`` per identity: ``identity``, the ``files`` recorded on
those machines and when each was ``recorded`` (its provenance ``created_at``, UTC). Grading then treats
any evidence with one of these identities as a copy of a replay (grader.provenance.replay_problem), even
with the ``replay`` mark removed from its provenance. ``labs/*/recorded/`` holds copies of the same files
(scripts/generate_labs.sh), so they need no entry of their own.

Exit status: 0 written (or up to date), 1 out of date (--check) or a replay without an identity
(recorded by a grader without the platform probe: record it again), 2 unreadable evidence.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader.evidence import EvidenceError, load_evidence  # noqa: E402
from grader.provenance import REPLAYS_FILE, identity  # noqa: E402

HEADER = """\
# The replay evidence shipped with the labs (solutions/<lesson>/recorded/, copied to labs/), by the
# identity of the machines it was recorded on (grader.provenance.identity: sha256 over the nodes' SSH
# host key fingerprints and machine-id hashes). Evidence with one of these identities is a copy of a
# replay and earns nothing (grader.provenance.replay_problem).
# Written by scripts/register_replays.py after the replays are recorded again; do not edit by hand.
"""


def render(root: Path = ROOT) -> tuple[str, list[str]]:
    """(the text of checks/replays.toml, problems). Raises EvidenceError for an unreadable replay."""
    groups: dict[str, list[tuple[str, str]]] = {}
    problems = []
    for path in sorted((root / "solutions").glob("*/recorded/*.json")):
        ev = load_evidence(path)
        rel = path.relative_to(root).as_posix()
        ident = identity(ev)
        if ident is None:
            problems.append(f"{rel}: no host key or machine-id recorded (an older grader): record it again on the sim")
            continue
        groups.setdefault(ident, []).append((rel, str(ev.provenance.get("created_at", ""))))
    out = [HEADER]
    for ident, files in sorted(groups.items(), key=lambda kv: kv[1][0][0]):
        out.append(f'\n[[replay]]\nidentity = "{ident}"\n'
                   f"files = [{', '.join(repr_toml(f) for f, _ in files)}]\n"
                   f"recorded = [{', '.join(repr_toml(t) for _, t in files)}]\n")
    return "".join(out), problems


def repr_toml(s: str) -> str:
    """A TOML basic string (the paths and times here hold no quote or backslash; escaped anyway)."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="only compare with checks/replays.toml")
    args = ap.parse_args(argv)
    target = ROOT / "checks" / REPLAYS_FILE
    try:
        text, problems = render()
    except EvidenceError as e:
        print(f"register_replays: {e}", file=sys.stderr)
        return 2
    for p in problems:
        print(f"register_replays: {p}", file=sys.stderr)
    if args.check:
        same = target.is_file() and target.read_text(encoding="utf-8") == text
        if not same:
            print(f"register_replays: {target.relative_to(ROOT)} is out of date: run scripts/register_replays.py",
                  file=sys.stderr)
        return 0 if same and not problems else 1
    target.write_text(text, encoding="utf-8")
    print(f"register_replays: wrote {target.relative_to(ROOT)} ({text.count('[[replay]]')} identities)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
