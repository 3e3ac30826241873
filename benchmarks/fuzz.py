"""The slow, end-to-end fuzz run: `clusterlab explain` and `clusterlab grade` on mutated inputs, counted.

    .venv/bin/python benchmarks/fuzz.py [--explain 3000] [--grade 2000] [--seed 0] [--jobs N] [--keep DIR]

Each run is the command line itself (``grader.cli.main`` with the run's argv) in a process of its own,
forked from one that has already imported the grader (an interpreter start per run would make 5,000
runs take an hour on two cores; what runs after the fork is exactly the command). The child has
``CLUSTERLAB_DEBUG=1``, so an error no reader expected shows as the traceback it is rather than as the
CLI's one-line "could not finish". Inputs:

- explain: one or two real, captured or field outputs mutated as pastes are (tests/fuzzing.py
  ``mutate_text``), with ``--json`` one run in three, ``--kind`` left to detection;
- grade: the golden evidence files and the labs' recorded ones, edited by ``mutate_evidence``; half of
  them sealed again (each output's sha256 and the manifest recomputed, so the edit reaches the readers),
  with ``--json`` one run in three.

Printed per command: runs, exit statuses, tracebacks, hangs (past ``--timeout``), odd exits (a status
the command does not document, or a signal), ``--json`` output that is not strict JSON or not valid
against the shipped schema (grader/schemas/clusterlab-results.schema.json, grader.results), runs that
printed more than 1 MB, wall time (median, 95th percentile, max) and peak memory (max RSS of a run's
process, which includes the interpreter and grader the fork inherits; the parent's own RSS is printed
for comparison). The exit status is 1 when any traceback, hang, odd exit or bad JSON was seen.
``--keep DIR`` keeps the input of every such run there, with its stderr, to reproduce it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from jsonschema import Draft202012Validator, ValidationError

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader import cli  # noqa: E402
from grader import checking, explain, report  # noqa: E402,F401  (imported once, before the forks)
from grader.facts import derivers  # noqa: E402
from grader.results import SCHEMA_FILE  # noqa: E402
from tests.fuzzing import RandomChooser, dump_evidence, mutate_evidence, mutate_text, reseal, seed_texts  # noqa: E402
from tests.test_robust import strict  # noqa: E402

SCHEMA = Draft202012Validator(json.loads(SCHEMA_FILE.read_text()))
"""The shipped schema every ``--json`` output must validate against (the file, not the models)."""

EXIT_OK = {"explain": {0, 1, 2}, "grade": {0, 1, 2}}
"""Exit statuses each command documents (README: 0 nothing fails, 1 a failing or unmeasured verdict, 2 cannot
run: for explain, a paste no reader could read; for grade, a refused file)."""
BIG_OUTPUT = 1 << 20
_TRACEBACK_RE = re.compile(r'(?m)^Traceback \(most recent call last\):\n\s+File "')


@dataclass
class Run:
    cmd: str
    argv: list[str]
    files: list[Path]
    json: bool


@dataclass
class Tally:
    runs: int = 0
    exits: dict[str, int] = field(default_factory=dict)
    tracebacks: int = 0
    hangs: int = 0
    odd_exits: int = 0
    bad_json: int = 0
    big_output: int = 0
    deadline: int = 0
    seconds: list[float] = field(default_factory=list)
    peak_kib: int = 0


def _seed_texts() -> list[str]:
    from tests.conftest import field_fixtures_root, real_fixtures_root
    return seed_texts(real_fixtures_root(), ROOT / "tests" / "fixtures" / "captured", field_fixtures_root())


def _seed_evidence() -> list[dict]:
    files = sorted((ROOT / "tests" / "fixtures" / "golden").glob("*.json")) + sorted(ROOT.glob("labs/*/recorded/*.json"))
    return [json.loads(p.read_text()) for p in files]


def plan(n_explain: int, n_grade: int, seed: int, work: Path) -> list[Run]:
    """The runs, their inputs written under ``work``: the same ``seed`` gives the same inputs."""
    texts, records = _seed_texts(), _seed_evidence()
    runs: list[Run] = []
    for i in range(n_explain):
        c = RandomChooser(random.Random(seed * 1_000_003 + i))
        text = "\n".join(mutate_text(c.choice(texts), c) for _ in range(c.integer(1, 2)))
        path = work / f"explain-{i}.txt"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        as_json = i % 3 == 0
        runs.append(Run("explain", ["explain", str(path)] + (["--json"] if as_json else []), [path], as_json))
    for i in range(n_grade):
        c = RandomChooser(random.Random(seed * 1_000_003 + 500_000 + i))
        original = c.choice(records)
        record = mutate_evidence(original, c)
        if i % 2:
            record = reseal(record)
        d = work / f"grade-{i}"
        d.mkdir()
        path = d / f"{original.get('lesson', 'lesson')}.json"
        path.write_text(dump_evidence(record))
        as_json = i % 3 == 0
        runs.append(Run("grade", ["grade", str(path)] + (["--json"] if as_json else []), [path], as_json))
    return runs


def _child(run: Run, out: Path, err: Path) -> None:
    """In the forked process: the command line, stdout and stderr to files; never returns."""
    code = 70
    try:
        fo = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        fe = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(fo, 1)
        os.dup2(fe, 2)
        os.environ["CLUSTERLAB_DEBUG"] = "1"
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        code = cli.main(run.argv)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 2
    except BaseException:
        import traceback
        traceback.print_exc()
        code = 3
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:
            pass
        os._exit(code)


def _judge(run: Run, status: int, out: Path, err: Path, tally: Tally, keep: Path | None, i: int) -> None:
    stderr = err.read_text(errors="replace")
    bad = []
    if os.WIFSIGNALED(status):
        tally.exits[f"signal {os.WTERMSIG(status)}"] = tally.exits.get(f"signal {os.WTERMSIG(status)}", 0) + 1
        tally.odd_exits += 1
        bad.append("signal")
        code = None
    else:
        code = os.WEXITSTATUS(status)
        tally.exits[str(code)] = tally.exits.get(str(code), 0) + 1
        if code not in EXIT_OK[run.cmd]:
            tally.odd_exits += 1
            bad.append(f"exit {code}")
    if _TRACEBACK_RE.search(stderr):  # Python's own, not a paste's traceback quoted in a message
        tally.tracebacks += 1
        bad.append("traceback")
    if "CLUSTERLAB_GRADE_DEADLINE_S" in stderr:
        tally.deadline += 1
    size = out.stat().st_size + err.stat().st_size
    if size > BIG_OUTPUT:
        tally.big_output += 1
        bad.append(f"printed {size:,} bytes")
    if run.json and code in (0, 1):
        try:
            SCHEMA.validate(strict(out.read_text(errors="replace")))
        except (ValueError, AssertionError):  # not JSON, or NaN/Infinity in it
            tally.bad_json += 1
            bad.append("not strict JSON")
        except ValidationError as e:
            tally.bad_json += 1
            bad.append(f"not valid against the schema: {list(e.absolute_path)}: {e.message[:200]}")
    if bad and keep is not None:
        _keep(keep, run, i, ", ".join(bad), stderr)


def _keep(keep: Path, run: Run, i: int, why: str, stderr: str = "") -> None:
    """Keep run ``i``'s input under ``keep``, with its argv, why it was kept and the tail of its stderr."""
    dest = keep / f"{run.cmd}-{i}"
    dest.mkdir(parents=True, exist_ok=True)
    for f in run.files:
        shutil.copy(f, dest / f.name)
    (dest / "argv.txt").write_text(" ".join(run.argv) + "\n" + why + "\n")
    (dest / "stderr.txt").write_text(stderr[-20_000:])


def execute(runs: list[Run], jobs: int, timeout: float, work: Path, keep: Path | None) -> dict[str, Tally]:
    """Run every planned run, ``jobs`` at a time, each killed after ``timeout`` s (a hang)."""
    tallies = {"explain": Tally(), "grade": Tally()}
    pending = list(enumerate(runs))
    active: dict[int, tuple[int, Run, float, Path, Path]] = {}
    done = 0
    while pending or active:
        while pending and len(active) < jobs:
            i, run = pending.pop(0)
            out, err = work / f"out-{i}", work / f"err-{i}"
            pid = os.fork()
            if pid == 0:
                _child(run, out, err)
            active[pid] = (i, run, time.monotonic(), out, err)
        pid, status, usage = os.wait4(-1, os.WNOHANG)
        if pid == 0:
            now = time.monotonic()
            for p, (i, run, start, out, err) in list(active.items()):
                if now - start > timeout:
                    os.kill(p, signal.SIGKILL)
                    os.waitpid(p, 0)
                    t = tallies[run.cmd]
                    t.runs += 1
                    t.hangs += 1
                    t.seconds.append(now - start)
                    del active[p]
                    if keep is not None:
                        _keep(keep, run, i, "hang")
            time.sleep(0.002)
            continue
        i, run, start, out, err = active.pop(pid)
        t = tallies[run.cmd]
        t.runs += 1
        t.seconds.append(time.monotonic() - start)
        t.peak_kib = max(t.peak_kib, usage.ru_maxrss)
        _judge(run, status, out, err, t, keep, i)
        out.unlink(missing_ok=True)
        err.unlink(missing_ok=True)
        done += 1
        if done % 500 == 0:
            print(f"  {done:,}/{len(runs):,} runs", file=sys.stderr, flush=True)
    return tallies


def report(tallies: dict[str, Tally], wall: float) -> int:
    """Print the table; 1 when anything but a clean exit was seen."""
    parent_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{'command':<8} {'runs':>6} {'tracebacks':>10} {'hangs':>6} {'odd exits':>9} {'bad JSON':>8} "
          f"{'>1 MB out':>9} {'deadline':>8} {'median s':>9} {'p95 s':>6} {'max s':>6} {'peak MiB':>8}  exit statuses")
    failed = 0
    for cmd, t in tallies.items():
        if not t.runs:
            continue
        s = sorted(t.seconds)
        p95 = s[min(len(s) - 1, int(0.95 * len(s)))]
        exits = ", ".join(f"{k}: {v}" for k, v in sorted(t.exits.items()))
        print(f"{cmd:<8} {t.runs:>6,} {t.tracebacks:>10} {t.hangs:>6} {t.odd_exits:>9} {t.bad_json:>8} "
              f"{t.big_output:>9} {t.deadline:>8} {statistics.median(s):>9.3f} {p95:>6.2f} {s[-1]:>6.2f} "
              f"{t.peak_kib / 1024:>8.0f}  {exits}")
        failed += t.tracebacks + t.hangs + t.odd_exits + t.bad_json
    print(f"wall {wall:.0f} s; the parent process (the grader imported, inherited by each run) peaked at "
          f"{parent_mib:.0f} MiB")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--explain", type=int, default=3000, help="explain runs (default 3000)")
    ap.add_argument("--grade", type=int, default=2000, help="grade runs (default 2000)")
    ap.add_argument("--seed", type=int, default=0, help="the same seed gives the same inputs (default 0)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="runs at a time (default: CPUs)")
    ap.add_argument("--timeout", type=float, default=30.0,
                    help="seconds after which a run is a hang (default 30; grade's own deadline is 20)")
    ap.add_argument("--keep", type=Path, help="keep the inputs of bad runs here")
    args = ap.parse_args(argv)
    derivers()  # every lesson's facts and parsers imported once, before the forks
    with tempfile.TemporaryDirectory(prefix="clusterlab-fuzz-") as tmp:
        work = Path(tmp)
        t0 = time.monotonic()
        runs = plan(args.explain, args.grade, args.seed, work)
        print(f"{len(runs):,} runs planned (seed {args.seed}) in {time.monotonic() - t0:.0f} s; {args.jobs} at a time",
              file=sys.stderr, flush=True)
        tallies = execute(runs, args.jobs, args.timeout, work, args.keep)
        return report(tallies, time.monotonic() - t0)


if __name__ == "__main__":
    sys.exit(main())
