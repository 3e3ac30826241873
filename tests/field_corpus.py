"""Score ``clusterlab explain`` against the field corpus (issue 27): real outputs people posted, each with the
reading a careful engineer gives it, written by whoever gathered it without looking at what explain says.
Each is explained with the context its entry states (``explain --host``, ``--nodes``), as a learner who
knows their own machine would run it.

    python tests/field_corpus.py [FOLDER] [-v]      # prints N/M read right and the confident-wrong count

A corpus entry is ``<stem>.txt`` (the output, verbatim but for personal data) and ``<stem>.toml``: ``url``,
``kind``, ``host`` (spark | other | unknown), ``nodes``, ``cut``, ``resolution``, ``level`` (the worst level the
output deserves: ok, info, warn, fail), ``cause`` (the reading, in words), ``must_say`` (items, each a set of
``|``-separated alternatives, case-insensitive; every item must appear in explain's findings) and
``must_not_say`` (phrases a wrong diagnosis would contain).

*Read right*: explain's worst level is the entry's (ok and info count as one: nothing wrong), every
``must_say`` item appears in its findings, and no ``must_not_say`` phrase does. *Confident-wrong*: a warn or
fail finding that says a ``must_not_say`` phrase (a cause the paste contradicts), or a fail on an output the
entry reads as healthy (ok).
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "fixtures" / "field" / "corpus"
RANK = {"ok": 0, "info": 0, "warn": 1, "fail": 2}
"""The levels as a careful reader weighs them: ok and info both say nothing is wrong."""
NAMES = {0: "ok/info", 1: "warn", 2: "fail"}
KEYS = ("url", "kind", "host", "level", "cause", "must_say")


@dataclass
class Scored:
    stem: str
    want: str
    got: str
    missing: list[str] = field(default_factory=list)
    wrongly_said: list[str] = field(default_factory=list)
    confident_wrong: bool = False

    @property
    def right(self) -> bool:
        return NAMES[RANK[self.want]] == self.got and not self.missing and not self.wrongly_said


def entries(folder: Path = CORPUS) -> list[tuple[Path, dict]]:
    """Every ``(text path, metadata)`` of the corpus, sorted; ValueError naming a malformed entry."""
    out = []
    for meta_path in sorted(folder.glob("*.toml")):
        text = meta_path.with_suffix(".txt")
        try:
            meta = tomllib.loads(meta_path.read_text())
        except tomllib.TOMLDecodeError as e:
            raise ValueError(f"{meta_path.name}: not TOML ({e})") from None
        missing = [k for k in KEYS if k not in meta]
        if missing or not text.exists() or meta["level"] not in RANK:
            raise ValueError(f"{meta_path.name}: needs {', '.join(missing) or 'a level of ' + '/'.join(RANK)}"
                             f"{'' if text.exists() else ' and ' + text.name}")
        out.append((text, meta))
    return out


def score(text_path: Path, meta: dict, context: bool = True) -> Scored:
    """explain's reading of one entry, compared with the entry's; ``context=False``: without the host and node count
    the entry states (``explain FILE`` with no options, as a paste read by someone who gives none)."""
    from grader.explain import explain

    host = meta.get("host") if context and meta.get("host") in ("spark", "other") else None
    nodes = meta.get("nodes") if context and isinstance(meta.get("nodes"), int) and meta.get("nodes", 0) > 0 else None
    sections = explain(text_path.read_text(encoding="utf-8", errors="replace"), host=host, nodes=nodes)
    findings = [(f.level, f.message) for s in sections for f in s.findings]
    findings += [("info", s.error) for s in sections if s.error]  # a part it could not read: said, not a diagnosis
    worst = max((RANK.get(level, 0) for level, _ in findings), default=0)
    got = NAMES[worst]
    said = " ".join(m for _, m in findings).lower()
    missing = [item for item in meta.get("must_say", []) if not any(a.strip().lower() in said
                                                                      for a in item.split("|") if a.strip())]
    wrong = [p for p in meta.get("must_not_say", []) if p.strip() and p.strip().lower() in said]
    loud = " ".join(m for level, m in findings if RANK.get(level, 0) >= 1).lower()
    confident = any(p.strip().lower() in loud for p in wrong) or (meta["level"] == "ok" and worst == 2)
    return Scored(text_path.stem, meta["level"], got, missing, wrong, confident)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", nargs="?", default=str(CORPUS))
    ap.add_argument("-v", "--verbose", action="store_true", help="list every entry read wrong, and why")
    ap.add_argument("--no-context", action="store_true",
                    help="explain each entry without its host and node count (`explain FILE`, no options)")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    try:
        corpus = entries(Path(args.folder))
    except ValueError as e:
        print(f"field corpus: {e}", file=sys.stderr)
        return 2
    results = [score(t, m, not args.no_context) for t, m in corpus]
    right = sum(r.right for r in results)
    wrong = [r for r in results if not r.right]
    if args.verbose:
        for r in wrong:
            why = [f"level {r.got}, not {r.want}"] if NAMES[RANK[r.want]] != r.got else []
            why += [f"never says {m!r}" for m in r.missing] + [f"says {w!r}" for w in r.wrongly_said]
            print(f"{'CONFIDENT-WRONG ' if r.confident_wrong else ''}{r.stem}: {'; '.join(why)}")
    n = len(results)
    print(f"read right: {right}/{n} ({100 * right / max(n, 1):.0f}%); confident-wrong: "
          f"{sum(r.confident_wrong for r in results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
