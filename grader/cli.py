"""The ``clusterlab`` command line (a contract: see DESIGN.md).

Exit status: 0 all checks pass, 1 some fail, 2 the grader could not run (usage, unreachable
inventory, unreadable file), with a one-line reason on stderr. No traceback reaches the user.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from typing import Iterator

from grader import __version__, lessons, strictjson
from grader.failures import describe_failure

LESSONS = lessons.probed()
"""The lessons ``clusterlab check`` probes (grader.lessons)."""


class CannotRun(Exception):
    """The grader could not do what was asked; the message is the one line shown on stderr (exit 2)."""


def _formats(p: argparse.ArgumentParser) -> None:
    """``--format text|json|junit|tap`` (grader.formats; the JSON contract: grader.results) and ``--json``,
    its alias for json; one or the other. Both set ``args.format``."""
    from grader.formats import FORMATS

    one = p.add_mutually_exclusive_group()
    one.add_argument("--format", choices=FORMATS, default="text", help="text (default), json (the schema "
                     "grader/schemas/clusterlab-results.schema.json), junit (JUnit XML) or tap (TAP 14)")
    one.add_argument("--json", dest="format", action="store_const", const="json", help="the same as --format json")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="clusterlab", description="Labs and auto-grader for NVIDIA DGX Spark "
                                "pairs, vLLM multi-node and multi-GPU desktops.")
    p.add_argument("--version", action="version", version=f"clusterlab {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    sim = sub.add_parser("sim", help="the simulated two-node Spark cluster (network namespaces, as root)")
    simsub = sim.add_subparsers(dest="sim_cmd", required=True, metavar="ACTION")
    up = simsub.add_parser("up", help="build it (again); print the inventory file's path")
    up.add_argument("--fault", action="append", default=[], metavar="NAME",
                    help="inject a learner's mistake; repeatable; `clusterlab sim faults` lists them")
    up.add_argument("--serve", nargs="?", const="ray", choices=("ray", "nnodes", "single"), metavar="MODE",
                    help="then serve a tiny model with vLLM: ray (default: Ray on every node, pipeline parallel = the node count), "
                         "nnodes (vLLM's own multi-node mode) or single (spark-a alone), these two on the pair only; needs "
                         "scripts/install-serve.sh")
    up.add_argument("--containers", action="store_true",
                    help="with --serve ray: Ray and vLLM in each node's containers (docker run / docker exec, as NVIDIA's "
                         "run_cluster.sh does), each node with its own podman engine behind /run/docker.sock")
    up.add_argument("--nodes", type=int, default=2, metavar="N",
                    help="how many nodes (2 to 8 through a switch, 3 in a ring); default 2")
    up.add_argument("--topology", choices=("pair", "switch", "ring"), default=None,
                    help="pair (2 nodes, one cable: the default), switch (N nodes through a switch), ring (3 nodes, "
                         "connect-three-sparks); --nodes above 2 without it means switch")
    simsub.add_parser("down", help="remove everything `sim up` made")
    simsub.add_parser("status", help="is it up, which faults, can the nodes be reached (JSON: "
                      "grader/schemas/clusterlab-results.schema.json, kind sim-status)")
    simsub.add_parser("faults", help="list the faults `sim up --fault` knows")
    sh = simsub.add_parser("shell", help="a shell (or one command) inside a node, as its login user's SSH sessions "
                           "see it (user nvidia, password spark for sudo)")
    sh.add_argument("--root", action="store_true", help="as root instead (what the sim's own tools do; a Spark's "
                    "owner would use sudo)")
    sh.add_argument("node", choices=tuple(f"spark-{c}" for c in "abcdefgh"), metavar="NODE",
                    help="spark-a, spark-b, ... (the nodes `sim up` made)")
    sh.add_argument("argv", nargs=argparse.REMAINDER, metavar="COMMAND", help="run this instead of a shell")
    rb = simsub.add_parser("reboot", help="restart a node as a machine restarts: its processes end, settings made only "
                           "live are lost, its /etc/netplan files are applied again")
    rb.add_argument("node", choices=tuple(f"spark-{c}" for c in "abcdefgh"), metavar="NODE",
                    help="spark-a, spark-b, ... (the nodes `sim up` made)")
    cab = simsub.add_parser("cable", help="move the pair's QSFP cable to another port of a node, as a hand moves it: "
                            "every twin keeps its settings, the old port's lose their carrier")
    cab.add_argument("node", choices=("spark-a", "spark-b"), metavar="NODE", help="spark-a or spark-b")
    cab.add_argument("port", type=int, choices=(0, 1), metavar="PORT", help="the QSFP port: 0 or 1")

    chk = sub.add_parser("check", help="probe the machines, record evidence, grade")
    chk.add_argument("lessons", nargs="+", choices=LESSONS, metavar="LESSON", help=f"one of {', '.join(LESSONS)}")
    chk.add_argument("--inventory", required=True, metavar="FILE", help="the inventory TOML (sim up prints one)")
    chk.add_argument("--evidence", default="evidence", metavar="DIR", help="where evidence/<lesson>.json goes")
    _formats(chk)
    chk.add_argument("--watch", action="store_true", help="check again every --interval until every check passes "
                     "or --timeout ends, printing only what changed; one SSH connection per node throughout")
    chk.add_argument("--timeout", type=float, default=300.0, metavar="S", help="with --watch: give up after S seconds "
                     "(default 300); the exit status is the last round's")
    chk.add_argument("--interval", type=float, default=10.0, metavar="S", help="with --watch: seconds from one round's "
                     "start to the next (default 10)")

    base = sub.add_parser("baseline", help="measure a known-good reference cluster N times and write expected "
                          "ranges from the spread (checks/ranges.toml's format; use with CLUSTERLAB_RANGES)")
    base.add_argument("--inventory", required=True, metavar="FILE", help="the reference cluster's inventory TOML")
    base.add_argument("--out", required=True, metavar="FILE", help="the ranges file to write, e.g. my-ranges.toml")
    base.add_argument("--repeat", type=int, default=5, metavar="N", help="runs (default 5)")
    base.add_argument("--lesson", action="append", choices=LESSONS, metavar="LESSON",
                      help=f"a lesson whose ranges to measure; repeatable (default lesson1; one of {', '.join(LESSONS)})")

    every = lessons.names()
    for verb, text in (("start", "before a lesson: check live that what it needs already works (the failing "
                                 "one named with its fix); on the sim the lab's start also brings up serving"),
                       ("solve", "sim only: bring the simulated cluster to the lesson's reference end state "
                                 "(the executable answer key)"),
                       ("finish", "after a lesson: stop and remove what clusterlab started for it (and on the sim "
                                  "its serving and faults); report anything of ours still running")):
        v = sub.add_parser(verb, help=text)
        v.add_argument("lesson", choices=every, metavar="LESSON", help=f"one of {', '.join(every)}")
        v.add_argument("--inventory", required=verb != "solve", metavar="FILE",
                       help="the inventory TOML" + (" (default: the sim's)" if verb == "solve" else ""))
        if verb == "solve":
            v.add_argument("--evidence", default="evidence", metavar="DIR", help="where the lab's load tests go")

    grd = sub.add_parser("grade", help="grade recorded evidence again, without a cluster")
    grd.add_argument("evidence", metavar="EVIDENCE.json")
    grd.add_argument("--profile", choices=("spark-pair", "single-spark", "dual-gpu-desktop", "sim"),
                     help="grade against another profile's ranges")
    _formats(grd)

    lt = sub.add_parser("loadtest", help="the lab: vllm bench serve on the head node, recorded and graded")
    lt.add_argument("--inventory", required=True, metavar="FILE", help="the inventory TOML, with a [serve] table")
    lt.add_argument("--concurrency", default="1,4,16", metavar="C,C,...", help="levels (default 1,4,16)")
    lt.add_argument("--input-len", type=int, default=128, metavar="N", help="prompt tokens (default 128)")
    lt.add_argument("--output-len", type=int, default=64, metavar="N", help="output tokens (default 64)")
    lt.add_argument("--num-prompts", type=int, default=32, metavar="N", help="requests per level (default 32)")
    lt.add_argument("--label", choices=("pair", "baseline"), help="the side measured (default: from [serve] mode)")
    lt.add_argument("--bytes-per-token", type=float, metavar="B", help="weight bytes read per token (roofline)")
    lt.add_argument("--timeout", type=float, default=300.0, metavar="S", help="seconds per level (default 300)")
    lt.add_argument("--evidence", default="evidence", metavar="DIR", help="where evidence/lab.json goes")
    _formats(lt)

    ver = sub.add_parser("verify", help="probe the machines again and report where an evidence file and they disagree")
    ver.add_argument("evidence", metavar="EVIDENCE.json", help=f"an evidence/<lesson>.json ({', '.join(lessons.recording())})")
    ver.add_argument("--inventory", required=True, metavar="FILE", help="the inventory of the machines it claims")
    _formats(ver)

    aud = sub.add_parser("audit", help="after nbgrader autograde: grade each submission's evidence again, "
                         "outside the learner's kernel, and flag grade cells scored above it and "
                         "recordings shared between students")
    aud.add_argument("autograded", metavar="DIR", help="nbgrader's autograded folder ($CLUSTERLAB_COURSE_DIR/autograded)")
    aud.add_argument("--assignment", metavar="NAME", help=f"only this assignment ({', '.join(lessons.names())})")
    _formats(aud)
    _spread_args(aud)

    cr = sub.add_parser("class-report", help="after nbgrader autograde: one HTML page (and a CSV beside it) on the "
                        "whole class: per-check counts, measured figures against their ranges, stuck checks, audit flags")
    cr.add_argument("autograded", metavar="AUTOGRADED_DIR", help="nbgrader's autograded folder")
    cr.add_argument("--out", default="class-report.html", metavar="FILE.html", help="the page (default "
                    "class-report.html); the CSV of the per-check counts goes beside it as FILE.csv")
    cr.add_argument("--assignment", metavar="NAME", help=f"only this assignment ({', '.join(lessons.names())})")
    _spread_args(cr)

    exp = sub.add_parser("explain", help="read one pasted command output and say what it means")
    exp.add_argument("file", metavar="FILE", nargs="?", help="a file, or - for standard input (needed unless --kind list)")
    exp.add_argument("--kind", help="skip detection: the kind of output it is (`--kind list` prints the kinds)")
    exp.add_argument("--host", choices=("spark", "other"), help="the machine that printed it: a DGX Spark, or "
                     "another (when the paste does not show it)")
    exp.add_argument("--nodes", type=int, metavar="N", help="how many machines the run spanned (1: one machine, "
                     "so no network carried its data)")
    exp.add_argument("--json", action="store_true", help="print JSON (grader/schemas/clusterlab-results.schema.json, "
                     "kind explain) instead of text")
    return p


def _spread_args(p: argparse.ArgumentParser) -> None:
    """``--workers`` and ``--ray``: where submissions are graded (grader.parallel)."""
    p.add_argument("--workers", type=int, metavar="N", help="grade in N processes (default: one per CPU)")
    p.add_argument("--ray", metavar="ADDRESS", help="grade on the Ray cluster at ADDRESS instead "
                   "(auto, host:6379, ray://host:10001, or local; needs `pip install ray`)")


_LESSON1_START = """\
sim up: lesson 1's start, a new pair out of the box: the cable in port 1 and its twins up, but no addresses,
MTU 1500, no netplan file, no SSH trust between the nodes. Do lesson 1's steps in each node:
  clusterlab sim shell spark-a        (or: ssh {user}@{a}; spark-b is {b}; password {password}, for sudo too)
then check: clusterlab check lesson1 --inventory {inventory}
The answer key (it does the steps for you): clusterlab solve lesson1. A finished pair with a learner's mistake in it:
clusterlab sim up --fault NAME (clusterlab sim faults lists them)."""


def _cmd_sim(args: argparse.Namespace) -> int:
    from grader import sim

    try:
        if args.sim_cmd == "up":
            if args.containers and args.serve != "ray":
                raise CannotRun("sim up: --containers needs --serve ray (run_cluster.sh starts Ray in the containers): "
                                "`clusterlab sim up --serve ray --containers`")
            topology = args.topology or ("pair" if args.nodes == 2 else "switch")
            if args.serve:
                from grader.sim.serve_spec import supported
                why_not = supported(args.serve, args.nodes, args.containers)
                if why_not:
                    raise sim.SimError(why_not)
            # a learner's `sim up` is lesson 1's start; a fault or ready-made serving needs the finished cluster
            start = None if args.fault or args.serve else "lesson1"
            inventory = sim.up(args.fault, nodes=args.nodes, topology=topology, start=start)
            if args.serve:
                from grader.sim import serve
                serve.start(args.serve, containers=args.containers)
            if start:
                from grader.sim.topology import HOUSE_ADDR
                print(_LESSON1_START.format(password=sim.LOGIN_PASSWORD, user=sim.LOGIN_USER, inventory=inventory, a=HOUSE_ADDR["spark-a"],
                                            b=HOUSE_ADDR["spark-b"]), file=sys.stderr)
            print(inventory)
        elif args.sim_cmd == "down":
            sim.down()
        elif args.sim_cmd == "shell":
            from grader.sim.host import login_command, login_env, node_command
            from grader.sim.topology import LOGIN_USER

            if args.root:
                argv, env = node_command(args.node), {**os.environ, **sim.session_env(args.node), "HOME": "/root",
                                                      "USER": "root", "LOGNAME": "root", "PS1": f"root@{args.node}:\\w# "}
            else:
                argv, env = login_command(args.node), {**os.environ, **sim.session_env(args.node), **login_env(),
                                                       "PS1": f"{LOGIN_USER}@{args.node}:\\w$ "}
            argv += args.argv or ["bash", "-l"]
            os.execvpe(argv[0], argv, env)
        elif args.sim_cmd == "reboot":
            sim.reboot(args.node)
            print(f"{args.node} rebooted: settings made only live are gone; its /etc/netplan files were applied again")
        elif args.sim_cmd == "cable":
            from grader.sim.cable import move
            print(move(args.node, args.port))
        elif args.sim_cmd == "faults":
            for name, desc in sim.FAULTS.items():
                print(f"{name:16} {desc}")
            from grader.sim import multi
            for name, f in multi.FAULTS.items():
                print(f"{name:16} (--topology {multi.FAULT_TOPOLOGY[name]}) {f.description}")
        else:
            from grader.results import stamp

            st = sim.status()
            print(strictjson.dumps(stamp("sim-status", st), indent=1))  # grader.results.SimStatus
            return 0 if st.get("up") else 1
    except sim.SimError as e:
        raise CannotRun(f"sim {args.sim_cmd}: {e}") from None
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from grader.checking import CheckError, check
    from grader.report import render_table

    if args.watch:
        return _cmd_watch(args)
    try:
        results = check(args.inventory, args.lessons, args.evidence)
    except CheckError as e:
        raise CannotRun(str(e)) from None
    if args.format != "text":
        _print_lessons(args.format, "check", results)
    else:
        for r in results:
            nodes = ", ".join(n["name"] for n in r.evidence.inventory.get("nodes", []))
            print(render_table(r.verdicts, f"{r.lesson} on {r.profile} ({nodes})",
                               colour=sys.stdout.isatty(), errors=r.errors))
            _print_unfit(r)
            _print_pairwise(r)
            print(f"evidence: {r.saved}")
    return max(r.exit_code for r in results)


def _print_pairwise(r) -> None:
    """Under lesson 1's table on a switch or ring: the pairwise bandwidth matrix (grader/widgets/pairwise.py)."""
    if r.lesson != "lesson1" or r.evidence.inventory.get("topology", "pair") == "pair":
        return
    from grader.facts.lesson1_multi import judgment
    from grader.widgets.pairwise import render_table as pairwise_table

    j = judgment(r.evidence)
    if j is not None:
        print(pairwise_table(j, [n["name"] for n in r.evidence.inventory["nodes"]], colour=sys.stdout.isatty()))


def _print_lessons(fmt: str, kind: str, results: list, **extra) -> None:
    """Print lesson results (grader.checking.LessonResult) as ``fmt`` (grader.formats): one payload
    (grader.results.LessonReport), or a list of them for several lessons."""
    from grader.formats import render
    from grader.results import lesson_payload

    out = [lesson_payload(r, kind, **{"evidence": str(r.saved) if r.saved else None, **extra}) for r in results]
    print(render(out if len(out) > 1 else out[0], fmt))


def _cmd_watch(args: argparse.Namespace) -> int:
    """``check --watch``: the first round's table, then only the changes of each round, then the verdict."""
    from grader.checking import CheckError
    from grader.watch import change_lines, watch
    from grader.report import render_table

    if args.interval <= 0 or args.timeout <= 0:
        raise CannotRun("--interval and --timeout must be positive seconds")
    to = sys.stdout if args.format == "text" else sys.stderr  # a machine format keeps stdout for the report
    say = lambda m: print(m, file=to, flush=True)  # noqa: E731

    def on_round(rnd) -> None:
        if rnd.number == 1:
            for r in rnd.results:
                say(render_table(r.verdicts, f"{r.lesson} on {r.profile}", colour=sys.stdout.isatty(), errors=r.errors))
            if rnd.exit_code:
                say(f"watching: checking again every {args.interval:g} s for up to {args.timeout:g} s "
                    "(Ctrl-C stops); only changes are printed")
        else:
            for line in change_lines(rnd):
                say(f"round {rnd.number} ({time.strftime('%H:%M:%S')}, {rnd.seconds:.1f} s): {line}")

    try:
        last = watch(args.inventory, args.lessons, timeout_s=args.timeout, interval_s=args.interval,
                     evidence_dir=args.evidence, on_round=on_round)
    except CheckError as e:
        raise CannotRun(str(e)) from None
    from grader.grading import summary_line

    if args.format != "text":
        _print_lessons(args.format, "check", last.results, rounds=last.number)
    else:
        state = "every check passes" if last.exit_code == 0 else "stopped with checks still failing"
        for r in last.results:
            print(f"{r.lesson}: {summary_line(r.verdicts)}; evidence: {r.saved}")
        print(f"after {last.number} round(s): {state}")
    return last.exit_code


def _cmd_lifecycle(args: argparse.Namespace) -> int:
    """``start``, ``solve`` and ``finish`` (grader.lifecycle)."""
    from grader import lifecycle

    say = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731 - progress, apart from the report
    try:
        if args.cmd == "start":
            r = lifecycle.start(args.inventory, args.lesson, progress=say)
            print(lifecycle.render_start(r))
            return r.exit_code
        if args.cmd == "solve":
            from grader import sim

            try:
                steps = lifecycle.solve(args.lesson, args.inventory, args.evidence, progress=say)
            except (sim.SimError) as e:
                raise CannotRun(f"solve: {e}") from None
            print("\n".join([f"solve {args.lesson}:"] + [f"  {s}" for s in steps]))
            print(f"now `clusterlab check {args.lesson}` should pass" if args.lesson in lessons.checked()
                  else "nothing to check")
            return 0
        r = lifecycle.finish(args.inventory, args.lesson, progress=say)
        print(lifecycle.render_finish(r))
        return r.exit_code
    except lifecycle.CheckError as e:
        raise CannotRun(f"{args.cmd} {args.lesson}: {e}") from None


def _cmd_baseline(args: argparse.Namespace) -> int:
    """``clusterlab baseline``: grader.baseline.measure, then the ranges file and a summary."""
    from grader import baseline
    from grader.grading import describe_range
    from grader.inventory import InventoryError, load_inventory

    try:
        inv = load_inventory(args.inventory)
        ranges, report = baseline.measure(inv, args.lesson or ["lesson1"], args.repeat,
                                          progress=lambda m: print(m, file=sys.stderr, flush=True))
        path = baseline.write(ranges, inv.profile, args.out, report.header())
    except (InventoryError, baseline.BaselineError) as e:
        raise CannotRun(f"baseline: {e}") from None
    except OSError as e:
        raise CannotRun(f"baseline: cannot write {args.out}: {e.strerror or e}") from None
    for name, r in ranges.items():
        print(f"{inv.profile}.{name:<22} {describe_range(r)}  ({len(report.figures[name])} values)")
    for name, why in report.skipped.items():
        print(f"{inv.profile}.{name:<22} not made: {why}")
    print(f"wrote {path}; use it with CLUSTERLAB_RANGES={path} (or set it in nbgrader_config.py)")
    return 0


def _refuse_sim_down(inv) -> None:
    """A sim inventory is only probed while the sim's bridge exists, so no packet leaves the machine."""
    from grader.checking import sim_is_down

    if sim_is_down(inv.profile):
        raise CannotRun("the simulated cluster is not up (no clsim-br0 bridge): run `clusterlab sim up` as root first")


def _cmd_grade(args: argparse.Namespace) -> int:
    from grader.checking import CheckError, grade_file
    from grader.report import render_table

    try:
        r = grade_file(args.evidence, args.profile)
    except CheckError as e:
        raise CannotRun(str(e)) from None
    for note in r.notes:
        print(f"clusterlab: {note}", file=sys.stderr)
    if args.format != "text":
        _print_lessons(args.format, "grade", [r], evidence=args.evidence, notes=r.notes)
    else:
        print(render_table(r.verdicts, f"{r.lesson} on {r.profile} (from {args.evidence})",
                           colour=sys.stdout.isatty(), errors=r.errors))
        _print_unfit(r)
    return r.exit_code


def _print_unfit(r) -> None:
    """Under the table: why this evidence earns nothing in the grade cells whatever its verdicts."""
    for why in r.unfit + r.not_earned:
        print(f"earns 0 in the grade cells: {why}")


@contextlib.contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Run the body without Python's cyclic garbage collector, then turn it back on if it was. Reading a
    multi-megabyte paste makes hundreds of thousands of objects that live until the end (lines, facts),
    which the collector would walk again and again for nothing: up to a tenth of ``explain``'s time on such
    a paste. Memory is the same: explain makes no reference cycles to speak of (reference counting frees
    the rest at once), and its input is bounded (CLUSTERLAB_MAX_INPUT_MB)."""
    import gc

    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _cmd_explain(args: argparse.Namespace) -> int:
    with _no_cycle_collection():
        return _explain(args)


def _explain(args: argparse.Namespace) -> int:
    from grader.explain import KINDS, explain, input_section, read_paste, render

    if args.kind == "list":
        print("\n".join(KINDS))
        return 0
    if args.file is None:
        raise CannotRun("explain needs a FILE (or - for standard input): the pasted output to read")
    if args.kind and args.kind not in KINDS:
        raise CannotRun(f"--kind {args.kind!r} is not known; known kinds: {', '.join(KINDS)}")
    try:
        paste = read_paste(args.file)  # bounded (CLUSTERLAB_MAX_INPUT_MB); a FIFO or device never hangs it
    except OSError as e:
        raise CannotRun(f"cannot read {args.file}: {e.strerror or e}") from None
    if args.nodes is not None and args.nodes < 1:
        raise CannotRun(f"--nodes {args.nodes}: a run spans at least 1 machine")
    sections = explain(paste.text, args.kind, host=args.host, nodes=args.nodes)
    shown = ([input_section(paste.note)] if paste.note else []) + sections  # a cut input says so first
    if args.json:
        from grader.payload import explain_payload

        print(strictjson.dumps(explain_payload(args.file, shown), indent=1))  # grader.results.ExplainReport
    else:
        print(render(shown))
    failed = any(f.level == "fail" for s in sections for f in s.findings)
    if failed:  # the verdict: a failure shown anywhere in the paste (a failed init, a downgraded link...)
        return 1
    if all(s.kind is None and not s.findings or s.error for s in sections):  # 2 only when nothing could be read
        errors = [s.error or "not recognised" for s in sections]
        reasons = "; ".join(errors[:3]) + (f"; and {len(errors) - 3} more outputs that could not be read"
                                           if len(errors) > 3 else "")  # one line, however long the paste
        cut = f" ({paste.note})" if paste.note else ""
        print(f"clusterlab: could not read {args.file}: {reasons}{cut}", file=sys.stderr)
        return 2
    return 0


def _cmd_loadtest(args: argparse.Namespace) -> int:
    from grader.loadtest import LoadTestError, cli

    try:
        return cli(args, refuse=_refuse_sim_down)
    except LoadTestError as e:
        raise CannotRun(f"loadtest: {e}") from None


def _cmd_verify(args: argparse.Namespace) -> int:
    from grader.verify import VerifyError, cli

    try:
        return cli(args)
    except VerifyError as e:
        raise CannotRun(f"verify: {e}") from None


def _cmd_audit(args: argparse.Namespace) -> int:
    from grader.audit import AuditError, audit, flagged, payload, render, shared_evidence
    from grader.formats import render as render_as
    from grader.parallel import PoolError

    try:
        rows = audit(args.autograded, args.assignment, workers=args.workers, ray_address=args.ray)
    except (AuditError, PoolError) as e:
        raise CannotRun(str(e)) from None
    rows += shared_evidence(args.autograded, args.assignment)
    print(render(rows) if args.format == "text" else render_as(payload(rows, args.autograded, args.assignment),
                                                                args.format))
    return 1 if flagged(rows) else 0


def _cmd_class_report(args: argparse.Namespace) -> int:
    from grader.audit import AuditError
    from grader.classreport import ReportError, build, write
    from grader.parallel import PoolError

    try:
        report = build(args.autograded, args.assignment, workers=args.workers, ray_address=args.ray)
        page, table = write(report, args.out)
    except (AuditError, PoolError, ReportError) as e:
        raise CannotRun(f"class-report: {e}") from None
    print(f"{page} and {table}: {len(report.graded)} submissions from {len(report.students)} learners, "
          f"{len(report.flagged)} flagged by the audit")
    return 1 if report.flagged else 0


EXIT_BROKEN_PIPE = 141
"""The exit status when the reader of stdout went away (``clusterlab ... | head``): 128 + SIGPIPE, what a
Unix tool killed by SIGPIPE reports to its shell. Nothing is printed (see :func:`main`)."""


def _quiet_stdout() -> None:
    """Point stdout (and stderr, when it is the same broken pipe) at /dev/null, so that nothing more is
    written to a reader that went away, not even by Python's flush at exit (Python's documentation,
    "Note on SIGPIPE", in the signal module)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        try:
            os.dup2(devnull, stream.fileno())
        except (OSError, ValueError, AttributeError):  # a stream with no file descriptor (pytest's capture)
            pass
    os.close(devnull)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``clusterlab`` console script; returns the exit status.

    Every failure ends in one line on stderr, never a traceback: :class:`CannotRun` and anything
    unexpected exit 2 (set ``CLUSTERLAB_DEBUG=1`` to see the traceback of an unexpected one); a reader
    that closed stdout early (``| head``) ends the command quietly with :data:`EXIT_BROKEN_PIPE`."""
    args = _parser().parse_args(argv)
    handlers = {"sim": _cmd_sim, "check": _cmd_check, "grade": _cmd_grade, "explain": _cmd_explain,
                "loadtest": _cmd_loadtest, "audit": _cmd_audit, "class-report": _cmd_class_report, "verify": _cmd_verify,
                "baseline": _cmd_baseline, "start": _cmd_lifecycle, "solve": _cmd_lifecycle, "finish": _cmd_lifecycle}
    try:
        try:
            code = handlers[args.cmd](args)
            sys.stdout.flush()  # a closed pipe shows here, not in Python's flush at exit
            return code
        except CannotRun as e:
            print(f"clusterlab: {e}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("clusterlab: interrupted", file=sys.stderr)
            return 2
        except BrokenPipeError:
            raise
        except Exception as e:  # a bug or an input no reader expected: one line, never a traceback
            if os.environ.get("CLUSTERLAB_DEBUG"):
                raise
            print(f"clusterlab: {args.cmd}: could not finish: {describe_failure(e)}", file=sys.stderr)
            return 2
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    sys.exit(main())
