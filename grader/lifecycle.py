"""The lesson lifecycle around ``check``: start, solve, finish (``check --watch``: grader.watch).

    start(inventory, "lesson2")          # live: do lesson 2's prerequisites hold? (checks/lifecycle.toml)
    solve("lesson1")                     # sim only: bring the sim to the lesson's reference end state
    finish(inventory, "lesson1")         # stop and remove what clusterlab itself started

The command line (``clusterlab start|solve|finish LESSON``) and the
notebooks (:mod:`grader.notebook`) call these. What each lesson requires is data
(``checks/lifecycle.toml``); the checks themselves are the lessons' own (grader.checking.run_lesson),
so ``start lesson2`` judges lesson 1's link exactly as ``check lesson1`` does.

``start`` and ``finish`` never change a learner's machine beyond what their names say:
``finish`` stops only processes whose command line is one clusterlab itself runs (:data:`OURS`) and
removes only its own temporary directories. ``solve`` refuses any profile but the sim's.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from grader import lessons as registry
from grader.checking import CheckError, connect_nodes, run_lesson
from grader.grading import Verdict

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

LIFECYCLE_FILE = Path(__file__).resolve().parents[1] / "checks" / "lifecycle.toml"
BLOCKING = ("fail", "unmeasured")
"""Statuses of a prerequisite check that stop ``start`` (a warn or an n.a. does not)."""


class LifecycleError(CheckError):
    """A lifecycle verb could not run (unknown lesson, sim down, solve on real machines); the message
    names the problem and the fix."""


# --- prerequisites (checks/lifecycle.toml) ------------------------------------------------------

@dataclass(frozen=True)
class Prerequisite:
    """What must already work before ``lesson`` begins: every node answers over SSH, and, when ``after``
    is set, each of ``checks`` (ids of lesson ``after``'s catalogue) passes or warns, live.
    ``sim_ray``: on the sim, the lesson starts where lesson 2 ends with vLLM stopped (the sim's Ray across the
    nodes unless the learner's own Ray or vLLM runs), and ``sim_checks`` of lesson ``sim_after`` replace
    ``checks`` there (the vLLM launch is the lesson's own work, and lesson 2's probes need a [serve] table). The rest say what ``solve`` and ``finish`` do for the lesson
    (checks/lifecycle.toml)."""

    lesson: str
    why: str
    after: str | None = None
    checks: tuple[str, ...] = ()
    sim_ray: bool = False
    sim_after: str | None = None
    sim_checks: tuple[str, ...] = ()
    solve: tuple[str, ...] = ()
    """What ``solve`` does on the sim, in order: steps of :data:`SOLVE_STEPS`."""
    solve_nothing: str | None = None
    """Why there is nothing to solve on the sim (lesson 3, lesson 4)."""
    leaves: tuple[str, ...] = ()
    """What clusterlab itself starts on a node for the lesson: names in :func:`ours`."""
    stops_serving: bool = False
    """On the sim, ``finish`` stops its Ray and vLLM."""


@functools.lru_cache(maxsize=4)  # read-only data, asked several times by one finish or solve
def prerequisites(path: Path = LIFECYCLE_FILE) -> dict[str, Prerequisite]:
    """Every lesson's :class:`Prerequisite`, read from ``checks/lifecycle.toml``.

    Raises LifecycleError when the file names a lesson the registry does not hold, a check its
    catalogue does not hold, or leaves a lesson out."""
    from grader.grading import load_catalogue

    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out: dict[str, Prerequisite] = {}
    for name in registry.names():
        table = data.get(name)
        if table is None:
            raise LifecycleError(f"{path} has no [{name}] table: every lesson says what it requires")
        after, checks = table.get("after"), tuple(table.get("checks", ()))
        sim_after, sim_checks = table.get("sim_after"), tuple(table.get("sim_checks", ()))
        for lesson, ids in ((after, checks), (sim_after, sim_checks)):
            if lesson is None:
                continue
            known = {c["id"] for c in load_catalogue(lesson)}
            unknown = [c for c in ids if c not in known]
            if unknown:
                raise LifecycleError(f"{path} [{name}]: {', '.join(unknown)} not in {lesson}'s catalogue")
        steps = tuple(table.get("solve", ()))
        bad = [x for x in steps if x not in SOLVE_STEPS] + [x for x in table.get("leaves", ()) if x not in ours()]
        if bad:
            raise LifecycleError(f"{path} [{name}]: unknown step or leftover {', '.join(bad)}")
        out[name] = Prerequisite(name, table["why"], after, checks, bool(table.get("sim_ray")), sim_after, sim_checks,
                                 steps,
                                 table.get("solve_nothing"), tuple(table.get("leaves", ())),
                                 bool(table.get("stops_serving")))
    extra = set(data) - set(out)
    if extra:
        raise LifecycleError(f"{path}: unknown lessons {', '.join(sorted(extra))}")
    return out


# --- start ------------------------------------------------------------------------------------

@dataclass
class StartResult:
    """``start``'s outcome. ``required``: the verdicts of the prerequisite checks (live);
    ``errors``: nodes not reached, with why; ``prepared``: what ``start`` did on the sim (sentences)."""

    lesson: str
    profile: str
    prerequisite: Prerequisite
    required: list[Verdict] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)
    prepared: list[str] = field(default_factory=list)
    reached: list[str] = field(default_factory=list)

    @property
    def blocking(self) -> list[Verdict]:
        """The prerequisite checks that failed or could not be measured."""
        return [v for v in self.required if v.status in BLOCKING]

    @property
    def exit_code(self) -> int:
        """0 the lesson can begin; 1 a node is unreachable or a prerequisite check blocks."""
        return 1 if self.blocking or self.errors else 0


def _inventory(path: str | Path) -> Any:
    from grader.inventory import InventoryError, load_inventory

    try:
        return load_inventory(path)
    except InventoryError as e:
        raise LifecycleError(str(e)) from None


def _known(lesson: str) -> None:
    try:
        registry.get(lesson)
    except registry.UnknownLesson as e:
        raise LifecycleError(str(e)) from None


def start(inventory: str | Path, lesson: str, progress: Callable[[str], None] = lambda m: None) -> StartResult:
    """Check, live, that ``lesson`` can begin on the inventory's machines (checks/lifecycle.toml).

    On the sim, a lesson whose serving the learner starts (``Lesson.sim_learner_serves``: lesson 2, the lab)
    stops the sim's ready-made serving and makes the model, and one with ``sim_ray`` (the lab) starts the sim's
    Ray across the nodes when nothing of the learner's runs; each says so in ``prepared``. On real machines
    nothing is changed. Raises LifecycleError (unknown lesson, bad inventory, sim down, no node reachable)."""
    _known(lesson)
    pre = prerequisites()[lesson]
    inv = _inventory(inventory)
    prepared = []
    after, checks = pre.after, pre.checks
    if inv.profile == "sim" and registry.get(lesson).sim_learner_serves:
        prepared += _sim_own_serving(lesson, pre.sim_ray, progress)
        inv = _inventory(inventory)  # its [serve] table is gone
        if pre.sim_after:
            after, checks = pre.sim_after, pre.sim_checks
    conns, errors = connect_nodes(inv, (lesson,))
    reached = sorted(conns)
    try:
        required: list[Verdict] = []
        if after:
            progress(f"checking {after}'s {', '.join(checks)} live ...")
            result = run_lesson(after, inv, conns, errors)
            required = [v for v in result.verdicts if v.id in checks]
            errors = {**errors, **result.errors}
    finally:
        for c in conns.values():
            c.close()
    return StartResult(lesson, inv.profile, pre, required, dict(errors), prepared, reached)


def _sim_serving(mode: str, progress: Callable[[str], None]) -> list[str]:
    """Start the sim's serving in ``mode`` unless it already serves healthy in it (``solve``); sentences saying what."""
    from grader.sim import serve

    now = serve.status()
    if now and now.get("healthy") and now.get("mode") == mode and not now.get("ray_only"):
        return []
    progress(f"the sim is not serving ({mode}): starting it, as `clusterlab sim up --serve {mode}` would (~40 s) ...")
    try:
        info = serve.start(mode)
    except serve.ServeError as e:
        raise LifecycleError(f"the sim's serving ({mode}) did not start: {e}") from None
    return [f"the sim was not serving: started Ray and vLLM ({mode} mode, /health after {info.get('health_s')} s)"]


def _sim_own_serving(lesson: str, ray: bool, progress: Callable[[str], None]) -> list[str]:
    """The start of a lesson whose serving the learner launches, on the sim: nothing serves that the learner did
    not launch (the sim's ready-made serving is stopped; the learner's own is left as it is), no NCCL log of a
    finished build, the model on disk, and a finished sim marked as at the lesson's start (its own-work record,
    grader.sim.cluster.begin). ``ray`` (the lab): the sim then starts Ray on every node, as lesson 2 ends, unless
    the learner's own Ray or vLLM runs. Sentences saying what was done."""
    from grader import sim
    from grader.sim import serve

    done = []
    now = serve.status()
    if now and not (ray and now.get("ray_only")):
        progress("stopping the sim's ready-made Ray and vLLM ...")
        serve.stop()
        done.append("stopped the sim's ready-made Ray and vLLM (`sim up --serve`, `solve`): in this lesson you serve")
    done += sim.forget_nccl_log()
    if sim.begin(lesson):
        done.append(f"the sim is now at {lesson}'s start: what was built so far was the answer key's; what you launch "
                    "from here on is yours and earns this lesson's points")
    why = serve.installed()
    if why:
        return done + [f"the serving stack is missing, so Ray and vLLM cannot run on the sim: {why}"]
    try:
        model = serve.ensure_model()
    except serve.ServeError as e:
        raise LifecycleError(str(e)) from None
    done.append(f"the model both nodes serve is on disk at {model} (one path both see, as shared storage)")
    if not ray:
        return done
    if now and now.get("ray_only"):  # kept above
        return done + ["the sim's Ray runs across the nodes, as lesson 2 ends; no vLLM: you serve the model"]
    theirs = serve.learners_own(sim.status())
    if theirs:
        return done + [f"your own Ray or vLLM runs on {', '.join(theirs)} (lesson 2's): the lab goes on from it"]
    progress("starting Ray on every node, as lesson 2 ends (~10 s) ...")
    try:
        serve.start("ray", vllm=False)
    except serve.ServeError as e:
        raise LifecycleError(f"the sim's Ray did not start: {e}") from None
    return done + ["started Ray on every node as lesson 2 ends (the head on spark-a's QSFP twin, its interface "
                   "variables set), and no vLLM: you serve the model, across the pair and then on spark-a alone"]


def render_start(r: StartResult) -> str:
    """The terminal report of :func:`start`: what the lesson needs, each requirement's status, the fix."""
    from grader.grading import LABELS

    lines = [f"start {r.lesson} on {r.profile}", f"  needs: {r.prerequisite.why}"]
    lines += [f"  prepared: {p}" for p in r.prepared]
    if r.reached:
        lines.append(f"  answered over SSH: {', '.join(r.reached)}")
    for node, why in r.errors.items():
        lines.append(f"  UNREACHABLE {node}: {why}")
    for v in r.required:
        lines.append(f"  {LABELS[v.status]:<12} {v.id}: {v.title}")
        if v.status in BLOCKING:
            lines += [f"      - {d}" for d in v.details[:3]]
            lines.append(f"      fix: {v.hint}")
    if r.exit_code == 0:
        lines.append(f"ready: {r.lesson} can begin")
    else:
        names = [v.id for v in r.blocking] + [f"{n} unreachable" for n in r.errors]
        lines.append(f"not ready: fix {', '.join(names)} first (then `clusterlab start {r.lesson}` again)")
    return "\n".join(lines)


# --- solve (sim only) ---------------------------------------------------------------------------

def _sim_only(inventory: str | Path | None, verb: str) -> Path:
    """The sim's inventory path; LifecycleError when ``inventory`` is another profile's or the sim is down."""
    from grader.sim import status
    from grader.sim import topology as T

    if inventory is not None and _inventory(inventory).profile != "sim":
        raise LifecycleError(f"`clusterlab {verb}` works only on the simulated cluster (profile sim): on real "
                             "machines the answer is yours to make; each failing check's hint says how")
    if not status().get("up"):
        raise LifecycleError("the simulated cluster is not up: run `clusterlab sim up` as root first")
    return Path(inventory) if inventory is not None else T.INVENTORY


def _owned_faults(lesson: str, faults: list[str]) -> list[str]:
    from grader.sim.faults import REGISTRY

    return [f for f in faults if f in REGISTRY and REGISTRY[f].lesson == lesson]


SOLVE_STEPS = ("rebuild", "serve", "load")
"""The steps ``solve`` knows (checks/lifecycle.toml ``solve``), in the order it runs them."""

SOLVE_LOAD = {"concurrency": "1,4", "num_prompts": 8, "input_len": 32, "output_len": 16, "timeout": 120.0}
"""The lab's reference load on the sim (a 2-core box): two levels, 8 prompts of 32+16 tokens."""


def _refuse_over_learner_serving(life: Prerequisite, st: dict) -> None:
    """``solve`` that serves, on a sim whose serving is the learner's own (none of the sim's recorded): raises
    LifecycleError before anything changes (the record included) when their Ray or vLLM runs in a node."""
    from grader.sim import serve

    if "serve" not in life.solve:
        return
    theirs = serve.learners_own(st)
    if theirs:
        raise LifecycleError(f"{', '.join(theirs)} run(s) your own Ray or vLLM: the answer key's would collide with "
                             "it (the same ports). Stop yours first (`ray stop` on every node stops Ray and the vLLM it "
                             "carries; end your `vllm serve`), then solve again. Nothing was changed.")


def solve(lesson: str, inventory: str | Path | None = None, evidence_dir: str | Path = "evidence",
          progress: Callable[[str], None] = lambda m: None) -> list[str]:
    """Bring the sim to ``lesson``'s reference end state; return what was done (sentences).

    The steps come from checks/lifecycle.toml. lesson1: the sim rebuilt without its faults (addresses,
    netplan, jumbo frames, keys, cabling as the course sets them); lesson2: that, then Ray on both nodes and one ``vllm serve`` (PP=2) with the
    course's interface variables; lab: that, then the load test of the pair and of the one-node
    baseline into ``<evidence_dir>/lab.json`` (spark-a then serves alone, as the baseline ran). lesson3 and lesson4
    have nothing on the sim. Raises LifecycleError on another profile, or when the sim is down."""
    from grader import sim

    _known(lesson)
    inv_path = _sim_only(inventory, "solve")
    life = prerequisites()[lesson]
    if life.solve_nothing:
        return [f"nothing to solve on the sim for {lesson}: {life.solve_nothing}"]
    done: list[str] = []
    if "rebuild" in life.solve:
        st = sim.status()
        fresh = sim.start_state()
        if fresh and fresh != "lesson1" and not st["faults"] and st["healthy"]:  # lesson 1 is done: no rebuild
            _refuse_over_learner_serving(life, st)
            sim.forfeit()
            done.append(f"the sim was at {fresh}'s start: the answer key does the steps from here, and the sim's "
                        "record says so (what is measured now earns nothing)")
            fresh = None
        if st["faults"] or not st["healthy"] or fresh:
            progress("rebuilding the sim without faults ..." if not fresh else
                     f"rebuilding the sim in {lesson}'s end state ...")
            try:
                sim.rebuild([])
            except sim.SimError as e:
                raise LifecycleError(f"could not rebuild the sim: {e}") from None
            n = len(st["nodes"])
            done.append(f"rebuilt the sim's {'two' if n == 2 else n} nodes from the course's reference state"
                        + (f" (faults cleared: {', '.join(st['faults'])})" if st["faults"] else "")
                        + (f" (it was at {fresh}'s start: the steps were done for you)" if fresh else "")
                        + (": the same port cabled on both, each twin addressed in its own subnet in netplan, "
                           "jumbo frames, the shared key authorised both ways, the peer's name on a twin" if n == 2 else
                           ": cabled and addressed as the topology's playbook sets it, in netplan, jumbo frames, the "
                           "shared key authorised between every node, each peer's name on a twin it shares"))
    if "serve" in life.solve:
        done += sim.restore_nccl_log()
        done += _sim_serving("ray", progress) or ["the sim already serves across both nodes (Ray, PP=2)"]
    if "load" in life.solve:
        done += _lab_load(inv_path, evidence_dir, progress)
    return done or [f"{lesson}'s reference state already holds: nothing to do"]


def _lab_load(inv_path: Path, evidence_dir: str | Path, progress: Callable[[str], None]) -> list[str]:
    """The lab's two load tests on the sim (pair, then the one-node baseline), as its notebook runs them."""
    import contextlib
    import io
    from types import SimpleNamespace

    from grader.loadtest import LoadTestError, cli

    done = []
    for mode, label in (("ray", "pair"), ("single", "baseline")):
        done += _sim_serving(mode, progress)
        progress(f"load-testing the {label} ...")
        args = SimpleNamespace(inventory=str(inv_path), label=label, bytes_per_token=None, evidence=str(evidence_dir),
                               format="json", **SOLVE_LOAD)
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # the report is the lab check's, not solve's
                cli(args)
        except LoadTestError as e:
            raise LifecycleError(f"the {label} load test failed: {e}") from None
        done.append(f"load-tested the {label} (concurrency {SOLVE_LOAD['concurrency']}, {SOLVE_LOAD['num_prompts']} "
                    f"prompts of {SOLVE_LOAD['input_len']}+{SOLVE_LOAD['output_len']} tokens) into "
                    f"{evidence_dir}/lab.json")
    return done


# --- finish -----------------------------------------------------------------------------------

def _ere(literal: str) -> str:
    """``literal`` as a POSIX ERE that does not match its own text (its first character bracketed), so
    the shell running ``pgrep -f`` is not found by its own pattern. ``literal`` holds no single quote."""
    return f"[{literal[0]}]" + re.sub(r"([.^$*+?(){}|\\\[\]])", r"\\\1", literal[1:])


def ours() -> dict[str, tuple[list[str], list[str]]]:
    """What clusterlab itself starts on a node: ``{name: (command-line prefixes of its processes, temporary
    directory globs)}``; a lesson's ``leaves`` (checks/lifecycle.toml) names them. ``finish`` stops and
    removes only these."""
    from grader import loadtest
    from grader.probes import lesson1

    return {"iperf3": ([lesson1.IPERF3_SERVER, lesson1.IPERF3_CLIENT], []),
            "loadtest": ([loadtest.TMP_PREFIX], [loadtest.TMP_PREFIX + "*"])}


FINISH_GRACE_S = 3
"""Seconds ``finish`` waits after SIGTERM before SIGKILL."""


def finish_command(prefixes: list[str], globs: list[str]) -> str:
    """The shell command ``finish`` runs on a node (as the SSH user, on that user's processes only):
    prints ``stopped PID ARGS``, ``removed PATH`` and ``left PID ARGS`` lines."""
    pattern = "|".join(_ere(p) for p in prefixes)
    lines = [f"pat='{pattern}'",
             'pids=$(pgrep -u "$(id -u)" -f "$pat")',
             'for p in $pids; do echo "stopped $p $(tr "\\0" " " < /proc/$p/cmdline 2>/dev/null)"; done',
             '[ -n "$pids" ] && kill $pids 2>/dev/null',
             f'i=0; while [ $i -lt {FINISH_GRACE_S * 10} ] && pgrep -u "$(id -u)" -f "$pat" >/dev/null; do sleep 0.1; i=$((i+1)); done',
             'left=$(pgrep -u "$(id -u)" -f "$pat")',
             '[ -n "$left" ] && kill -9 $left 2>/dev/null; sleep 0.2']
    for g in globs:  # by folder and name apart, so this shell's own text does not match the process pattern
        folder, name = g.rsplit("/", 1)
        lines.append(f"find {folder} -maxdepth 1 -type d -name '{name}' -user \"$(id -u)\" | while read -r d; do "
                     'rm -rf -- "$d" && echo "removed $d"; done')
    lines.append('for p in $(pgrep -u "$(id -u)" -f "$pat"); do echo "left $p $(tr "\\0" " " < /proc/$p/cmdline)"; done')
    lines.append("true")
    return "\n".join(lines)


@dataclass
class FinishResult:
    """``finish``'s outcome: per node, what was stopped, removed, and is still running (with the
    command to stop it); ``sim``: what was done to the sim (sentences)."""

    lesson: str
    stopped: dict[str, list[str]] = field(default_factory=dict)
    removed: dict[str, list[str]] = field(default_factory=dict)
    left: dict[str, list[str]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    sim: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0 nothing of clusterlab's is left; 1 something could not be stopped or a node was not reached."""
        return 1 if any(self.left.values()) or self.errors else 0


def finish(inventory: str | Path, lesson: str, progress: Callable[[str], None] = lambda m: None) -> FinishResult:
    """Stop and remove what clusterlab started for ``lesson`` on the inventory's nodes, and report
    anything of its own still running. On the sim also: its serving (lesson2, lab: Ray, vLLM and their
    /dev/shm files) and the lesson's own faults (the sim rebuilt without them). Never touches what
    the learner started. Raises LifecycleError (bad inventory, sim down, no node reachable)."""
    from grader.transport import NodeUnreachable

    _known(lesson)
    inv = _inventory(inventory)
    res = FinishResult(lesson)
    if inv.profile == "sim":
        res.sim = _finish_sim(lesson, progress)
    left = [ours()[name] for name in prerequisites()[lesson].leaves]
    prefixes, globs = [p for ps, _ in left for p in ps], [g for _, gs in left for g in gs]
    if not prefixes:
        return res
    conns, errors = connect_nodes(inv, (lesson,))
    res.errors = dict(errors)
    try:
        for name, conn in conns.items():
            try:
                out = conn.run(finish_command(prefixes, globs), timeout_s=FINISH_GRACE_S + 15).stdout
            except NodeUnreachable as e:
                res.errors[name] = str(e)
                continue
            for line in out.splitlines():
                verb, _, rest = line.partition(" ")
                target = {"stopped": res.stopped, "removed": res.removed, "left": res.left}.get(verb)
                if target is not None and rest.strip():
                    target.setdefault(name, []).append(rest.strip())
    finally:
        for c in conns.values():
            c.close()
    return res


def _finish_sim(lesson: str, progress: Callable[[str], None]) -> list[str]:
    from grader import sim
    from grader.sim import serve

    done = []
    st = sim.status()
    if not st.get("up"):
        return ["the sim is not up: nothing of it to stop"]
    if prerequisites()[lesson].stops_serving and st.get("serve"):
        progress("stopping the sim's Ray and vLLM ...")
        serve.stop()
        done.append("stopped the sim's Ray and vLLM and removed their /dev/shm files")
    owned = _owned_faults(lesson, st.get("faults", []))
    if owned:
        keep = [f for f in st["faults"] if f not in owned]
        progress(f"rebuilding the sim without {', '.join(owned)} ...")
        sim.rebuild(keep)
        done.append(f"rebuilt the sim without {lesson}'s faults ({', '.join(owned)})")
    return done


def render_finish(r: FinishResult) -> str:
    """The terminal report of :func:`finish`."""
    lines = [f"finish {r.lesson}"] + [f"  sim: {s}" for s in r.sim]
    for kind, table in (("stopped", r.stopped), ("removed", r.removed)):
        for node, items in table.items():
            lines += [f"  {node}: {kind} {x}" for x in items]
    for node, why in r.errors.items():
        lines.append(f"  UNREACHABLE {node}: {why} (nothing checked there: run `clusterlab finish {r.lesson}` again)")
    for node, items in r.left.items():
        for x in items:
            pid = x.split()[0]
            lines.append(f"  STILL RUNNING on {node}: {x} -- stop it with `kill {pid}` there")
    if r.exit_code == 0:
        lines.append("nothing of clusterlab's is left running" + ("" if any(r.stopped.values()) or r.sim
                                                                  else " (nothing was)"))
    return "\n".join(lines)
