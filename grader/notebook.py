"""What the course notebooks call: the "Check my cluster" panel, grade cells, and answer checks.

One code path (:mod:`grader.checking`) serves the three uses, told apart by the environment:

==============  ===================================================  ==========================================
mode            when                                                 what ``check_my_cluster`` does
==============  ===================================================  ==========================================
``live``        an inventory is found (argument, ``$CLUSTERLAB_      probes the nodes now, shows progress, writes
                INVENTORY``, ``./inventory.toml``,                   ``evidence/<lesson>.json`` (unless under
                ``~/.config/clusterlab/inventory.toml``, or the      ``solutions/``), shows the verdict table
                running sim's)
``grading``     ``NBGRADER_EXECUTION`` is set (nbgrader autograde    probes nothing; grades the submitted
                or validate)                                         ``evidence/<lesson>.json`` and prints it
``replay``      no inventory (Binder, a laptop)                      grades ``recorded/<lesson>.json`` shipped
                                                                     with the lab (recorded on the sim) and
                                                                     says so
==============  ===================================================  ==========================================

Grade cells call :func:`grade_checks`; it prints to stdout only (nbgrader scores a grade cell that
writes anything to stderr as zero, docs/research/grading.md §2.8) and returns the points earned,
which nbgrader takes as partial credit when it is the cell's last expression.

The evidence contract (docs/DESIGN.md "nbgrader rules"): evidence is written only outside
nbgrader (``NBGRADER_EXECUTION`` unset) and never inside a ``solutions/`` folder, so that
``nbgrader generate_solution`` cannot plant the instructor's evidence in the source folder, which
autograde would then copy over every learner's file (grading.md §2.7). ``CLUSTERLAB_RECORD=1``
overrides the folder rule (not the nbgrader one).
"""

from __future__ import annotations

import contextlib
import html
import io
import logging
import math
import os
import sys
import warnings
from pathlib import Path
from typing import Any, Iterator

from grader import lessons
from grader.answers import check_answer  # noqa: F401  (the visible tests call cl.check_answer)
from grader.checking import PROBED_LESSONS, CheckError, LessonResult, check, grade_file
from grader.report import EXPLAINED
from grader.grading import LABELS, summary_line
from grader.scoring import score_checks

SIM_INVENTORY = Path("/var/lib/clusterlab/sim/inventory.toml")
USER_INVENTORY = Path("~/.config/clusterlab/inventory.toml")
RECORDED_DIR = "recorded"
"""Beside each lab notebook: evidence recorded on the sim cluster, for replay where no cluster exists."""

_COLOURS = {"pass": ("#dafbe1", "#1a7f37"), "warn": ("#fff8c5", "#9a6700"), "fail": ("#ffebe9", "#cf222e"),
            "unmeasured": ("#eaeef2", "#57606a"), "skip": ("#f6f8fa", "#8c959f")}
"""Row colours (background, text) per status: green, amber, red, grey (not measured), light grey (n.a.)."""


# ---------------------------------------------------------------------------------------------
# quiet: nothing reaches stderr from a grade cell


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Send stderr, warnings and log records (paramiko's included) to stdout for the block."""
    handler = logging.StreamHandler(sys.stdout)
    root = logging.getLogger()
    saved_handlers, saved_level = root.handlers[:], root.level
    root.handlers = [handler]
    root.setLevel(logging.WARNING)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stderr(sys.stdout):
            try:
                yield
            finally:
                root.handlers = saved_handlers
                root.setLevel(saved_level)


# ---------------------------------------------------------------------------------------------
# where we are


def mode() -> str:
    """``"grading"`` under nbgrader; ``"replay"`` with ``CLUSTERLAB_REPLAY=1`` (never probe, e.g. on a
    machine whose sim cluster belongs to someone else); else ``"live"`` if an inventory is found,
    else ``"replay"``."""
    if os.environ.get("NBGRADER_EXECUTION"):
        return "grading"
    if os.environ.get("CLUSTERLAB_REPLAY") == "1":
        return "replay"
    return "live" if find_inventory() is not None else "replay"


def find_inventory(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """The inventory file to probe with, or None.

    Order: ``explicit``; ``$CLUSTERLAB_INVENTORY``; ``./inventory.toml``;
    ``~/.config/clusterlab/inventory.toml``; the running sim's ``/var/lib/clusterlab/sim/inventory.toml``
    (only while its bridge exists; ``$CLUSTERLAB_SIM_INVENTORY`` names another path for it, which the test suite
    points at nothing so that a test away from the sim never acts on the machine's running sim). An explicit path
    or the variable is returned even if missing, so the check names it in its error.
    """
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("CLUSTERLAB_INVENTORY")
    if env:
        return Path(env).expanduser()
    for p in (Path("inventory.toml"), USER_INVENTORY.expanduser()):
        if p.is_file():
            return p
    sim_inventory = Path(os.environ.get("CLUSTERLAB_SIM_INVENTORY") or SIM_INVENTORY)
    if sim_inventory.is_file() and Path("/sys/class/net/clsim-br0").exists():
        return sim_inventory
    return None


def may_record(cwd: str | os.PathLike[str] | None = None) -> tuple[bool, str]:
    """Whether a measuring cell may write evidence here: ``(allowed, reason)``.

    Not under nbgrader (``NBGRADER_EXECUTION``), and not in a course's source folder
    (``<course>/solutions/<lab>/`` beside ``<course>/nbgrader_config.py``) unless ``CLUSTERLAB_RECORD=1``.
    """
    if os.environ.get("NBGRADER_EXECUTION"):
        return False, f"nbgrader is running ({os.environ['NBGRADER_EXECUTION']}): evidence is graded, not recorded"
    here = Path(cwd or os.getcwd()).resolve()
    in_source = here.parent.name == "solutions" and (here.parent.parent / "nbgrader_config.py").is_file()
    if in_source and os.environ.get("CLUSTERLAB_RECORD") != "1":
        return False, (f"{here} is inside the course's solutions/ (nbgrader's source folder): evidence written here "
                       "would be copied over every learner's at autograde. Set CLUSTERLAB_RECORD=1 to record anyway.")
    return True, ""


# ---------------------------------------------------------------------------------------------
# the verdict table


def verdicts_html(result: LessonResult, banner: str = "") -> str:
    """The verdicts as an HTML table (green pass, amber warn, red fail, grey not measured, light grey
    n.a.), with the details and hint under every fail, warn and not measured row.

    The table has ``class="clusterlab-verdicts"`` and ``id="clusterlab-verdicts-<lesson>"`` (the
    browser test waits for it).
    """
    rows = []
    for v in result.verdicts:
        bg, fg = _COLOURS[v.status]
        mark = LABELS[v.status]
        more = ""
        if v.status in EXPLAINED:
            items = "".join(f"<li>{html.escape(d)}</li>" for d in v.details)
            more = f"<ul style='margin:2px 0'>{items}</ul><i>hint:</i> {html.escape(v.hint)}"
        rows.append(f"<tr style='background:{bg}'><td style='color:{fg};font-weight:bold'>{mark}</td>"
                    f"<td><code>{html.escape(v.id)}</code></td><td>{v.earned:g}/{v.points:g}</td>"
                    f"<td>{html.escape(v.title)}{more}</td></tr>")
    unreachable = "".join(f"<p style='color:#cf222e'>UNREACHABLE {html.escape(n)}: {html.escape(w)}</p>"
                          for n, w in result.errors.items())
    notes = "".join(f"<p style='color:#9a6700'>{html.escape(n)}</p>" for n in result.notes)
    head = f"<p>{html.escape(banner)}</p>" if banner else ""
    return (f"{head}{unreachable}{notes}<table class='clusterlab-verdicts' id='clusterlab-verdicts-{result.lesson}' "
            f"style='border-collapse:collapse'><tr><th></th><th>check</th><th>points</th><th>what</th></tr>"
            f"{''.join(rows)}</table><p><b>{html.escape(summary_line(result.verdicts))}</b> on profile "
            f"<code>{html.escape(result.profile)}</code></p>")


def verdicts_text(result: LessonResult, banner: str = "") -> str:
    """The same verdicts as the terminal table (for nbgrader's feedback, which shows text)."""
    from grader.report import render_table

    table = render_table(result.verdicts, f"{result.lesson} on {result.profile}", errors=result.errors)
    return "\n".join(([banner] if banner else []) + result.notes + [table])


# ---------------------------------------------------------------------------------------------
# "Check my cluster"


class CheckPanel:
    """The "Check my cluster" panel of one lesson: an ipywidgets VBox and what it found.

    Attributes: ``lesson``; ``mode`` (live, grading, replay); ``result`` (LessonResult or None);
    ``message`` (why there is no result, or where the evidence went); ``widget`` (the VBox, None
    without ipywidgets). Displaying the panel displays the widget (text where widgets cannot show).
    """

    def __init__(self, lesson: str, inventory: str | os.PathLike[str] | None = None,
                 evidence_dir: str = "evidence", replay: str | os.PathLike[str] | None = None) -> None:
        self.lesson, self.evidence_dir = lesson, evidence_dir
        self.inventory = find_inventory(inventory)
        self.replay = Path(replay) if replay else None
        self.mode = "replay" if self.replay else mode() if inventory is None else "live"
        self.result: LessonResult | None = None
        self.message = ""
        self.banner = ""
        self.widget = self._build()

    # -- ipywidgets, when present
    def _build(self) -> Any:
        try:
            import ipywidgets as w
        except ImportError:
            return None
        self._title = w.HTML(f"<b>Check my cluster: {html.escape(self.lesson)}</b> ({self.mode})")
        self._bar = w.IntProgress(value=0, min=0, max=1, description="probes", bar_style="info")
        self._step = w.Label("")
        self._table = w.HTML("")
        self._again = w.Button(description="Check again", icon="refresh")
        self._again.on_click(lambda _b: self.run())
        self._keep = w.ToggleButton(value=False, description="Keep checking while I fix it", icon="eye",
                                    layout=w.Layout(width="auto"),
                                    disabled=self.mode != "live" or self.lesson not in PROBED_LESSONS)
        self._keep.observe(lambda change: self.watch(change["new"]), names="value")
        self._changes = w.HTML("")
        return w.VBox([self._title, w.HBox([self._bar, self._step]), self._table,
                       w.HBox([self._again, self._keep]), self._changes])

    def _progress(self, label: str, done: int, total: int) -> None:
        if self.widget is not None:
            self._bar.max = max(total, 1)
            self._bar.value = done
            self._step.value = label

    def run(self) -> "CheckPanel":
        """Check (live), or grade the recorded evidence (grading, replay). Never raises."""
        with quiet():
            self.result, self.message = None, ""
            if self.widget is not None:
                self._table.value = "<i>checking…</i>"
                self._bar.bar_style = "info"
            try:
                self._run()
            except CheckError as e:
                self.message = str(e)
            except Exception as e:  # never a traceback in a learner's notebook: say what broke
                self.message = (f"the check stopped on an unexpected problem ({type(e).__name__}: {e}); "
                                "what was measured so far is kept. Please report it with this message.")
            if self.widget is not None:
                if self.result is not None:
                    self._table.value = verdicts_html(self.result, self.banner)
                    self._bar.bar_style = "success" if self.result.exit_code == 0 else "danger"
                    self._bar.value = self._bar.max
                    self._step.value = (f"done: {len(self.result.evidence.raw)} outputs" if self.result.saved is not None
                                        and self.lesson in PROBED_LESSONS and self.mode == "live" else "done")
                else:
                    self._table.value = f"<p style='color:#cf222e'>{html.escape(self.message)}</p>"
                    self._bar.bar_style = "danger"
        return self

    def _run(self) -> None:
        name = f"{self.lesson}.json"
        if self.mode == "grading":
            self.result = grade_file(Path(self.evidence_dir) / name)
            self.banner = f"graded from {self.evidence_dir}/{name}"
        elif self.mode == "replay":
            path = self.replay or Path(RECORDED_DIR) / name
            if not path.is_file():
                raise CheckError(f"no inventory found and no recorded evidence at {path}: write inventory.toml "
                                 "(see lesson 1) or set CLUSTERLAB_INVENTORY")
            self.result = grade_file(path)
            when = self.result.evidence.provenance.get("created_at", "?")
            self.banner = (f"replay: no cluster inventory was found, so these are the checks of evidence recorded "
                           f"on the {self.result.profile} cluster at {when} ({path}), not of your machines")
        elif self.lesson not in lessons.checked():
            raise CheckError(f"{self.lesson!r} has no machine checks: the checked lessons are "
                             f"{', '.join(lessons.checked())}")
        elif self.lesson not in PROBED_LESSONS:
            # the lab's evidence is written by its measuring cells (clusterlab loadtest): grade that file
            self.result = grade_file(Path(self.evidence_dir) / name)
            self.banner = f"graded from {self.evidence_dir}/{name} (written by the measuring cells above)"
        else:
            if self.inventory is None:
                raise CheckError("no inventory: pass inventory=, set CLUSTERLAB_INVENTORY or write inventory.toml")
            allowed, why = may_record()
            results = check(self.inventory, [self.lesson], self.evidence_dir if allowed else None, self._progress)
            self.result = results[0]
            self.banner = (f"evidence: {self.result.saved}" if self.result.saved
                           else f"evidence not written: {why}")

    # -- "keep checking while I fix it": grader.watch.watch in a thread, one per lesson
    _watching: dict[str, Any] = {}
    """lesson -> the stop Event of the panel now watching it (a re-run cell's new panel stops the old one)."""

    def watch(self, on: bool = True, timeout_s: float = 1800.0, interval_s: float = 10.0) -> None:
        """Start (``on``) or stop checking again every ``interval_s`` until every check passes or
        ``timeout_s`` ends, showing each change under the table (live mode, probed lessons only). One SSH
        connection per node for the whole watch (grader.watch.watch). Never raises."""
        import threading

        from grader.watch import change_lines, watch

        old = CheckPanel._watching.pop(self.lesson, None)
        if old is not None:
            old.set()
        if not on or self.mode != "live" or self.lesson not in PROBED_LESSONS or self.inventory is None:
            return
        stop = threading.Event()
        CheckPanel._watching[self.lesson] = stop
        seen: list[str] = []

        def on_round(rnd: Any) -> None:
            self.result = rnd.results[0]
            seen.extend(change_lines(rnd))
            if self.widget is not None:
                self._table.value = verdicts_html(self.result, f"round {rnd.number} ({rnd.seconds:.1f} s)")
                self._bar.bar_style = "success" if rnd.exit_code == 0 else "danger"
                self._changes.value = "<br>".join(html.escape(x) for x in seen[-10:])

        def run() -> None:
            allowed, _why = may_record()
            try:  # not under quiet(): it swaps sys.stderr for the whole process, and this runs beside other cells
                watch(self.inventory, [self.lesson], timeout_s=timeout_s, interval_s=interval_s,
                      evidence_dir=self.evidence_dir if allowed else None, on_round=on_round, stop=stop)
            except Exception as e:  # a thread's error never reaches the learner as a traceback
                self.message = f"keep checking stopped: {type(e).__name__}: {e}"
                if self.widget is not None:
                    self._changes.value = f"<span style='color:#cf222e'>{html.escape(self.message)}</span>"
            finally:
                if CheckPanel._watching.get(self.lesson) is stop:
                    CheckPanel._watching.pop(self.lesson, None)
                if self.widget is not None and self._keep.value:
                    self._keep.value = False

        threading.Thread(target=run, name=f"clusterlab-watch-{self.lesson}", daemon=True).start()

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        head = f"Check my cluster: {self.lesson} ({self.mode})"
        text = (verdicts_text(self.result, f"{head}. {self.banner}") if self.result is not None
                else f"{head}: {self.message}")
        if self.widget is None or self.mode == "grading":
            return {"text/plain": text}
        bundle = self.widget._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = text
        return bundle


def _lifecycle_mode(verb: str, lesson: str, inventory: str | os.PathLike[str] | None) -> Path | None:
    """The inventory to use for a lifecycle cell, or None after printing why the cell does nothing here."""
    how = mode() if inventory is None else "live"
    if how == "live":
        return find_inventory(inventory)
    if how == "grading":
        print(f"{verb} {lesson}: nothing to do while nbgrader grades (it probes no machine)")
    else:
        print(f"{verb} {lesson}: no inventory found, so no machine to look at (write inventory.toml, see lesson 1, "
              f"or set CLUSTERLAB_INVENTORY); in a shell: `clusterlab {verb} {lesson} --inventory inventory.toml`")
    return None


def _lifecycle_cell(verb: str, lesson: str, inventory: str | os.PathLike[str] | None) -> int | None:
    """Run ``clusterlab <verb> LESSON`` (grader.lifecycle) for a notebook cell: print its report, return its exit
    status, or None when nothing was done (grading, no inventory, an error: said in the output). Never raises."""
    from grader import lifecycle

    path = _lifecycle_mode(verb, lesson, inventory)
    if path is None:
        return None
    run, render = {"start": (lifecycle.start, lifecycle.render_start),
                   "finish": (lifecycle.finish, lifecycle.render_finish)}[verb]
    if verb == "start":
        print(lifecycle.prerequisites()[lesson].why)
    try:
        with quiet():
            r = run(path, lesson, progress=print)
    except CheckError as e:
        print(f"{verb} {lesson}: {e}")
        return None
    print(render(r))
    return r.exit_code


def start_lesson(lesson: str, inventory: str | os.PathLike[str] | None = None) -> int | None:
    """A lesson's opening cell: ``clusterlab start LESSON`` (grader.lifecycle.start): checks live that what the
    lesson needs already works, and names the failing check with its fix. Prints the report and returns
    its exit status (0 ready, 1 not), or None when nothing was checked (grading, no inventory, an error,
    said in the output). Never raises."""
    return _lifecycle_cell("start", lesson, inventory)


def finish_lesson(lesson: str, inventory: str | os.PathLike[str] | None = None) -> int | None:
    """A lesson's closing cell: ``clusterlab finish LESSON`` (grader.lifecycle.finish): stops and removes
    what clusterlab started for the lesson and reports anything of its own still running, with the
    command to stop it. Returns its exit status, or None when nothing was done (said). Never raises."""
    return _lifecycle_cell("finish", lesson, inventory)


def check_my_cluster(lesson: str, inventory: str | os.PathLike[str] | None = None, evidence_dir: str = "evidence",
                     replay: str | os.PathLike[str] | None = None) -> CheckPanel:
    """Run the "Check my cluster" panel of ``lesson`` now and return it (the cell displays it).

    ``lesson``: a lesson with machine checks (grader.lessons): lesson1, lesson2 or lesson3 (probed; live
    mode writes ``<evidence_dir>/<lesson>.json``), or ``lab`` (its evidence comes from the load-test cells:
    live mode grades ``<evidence_dir>/lab.json``).
    Never raises: a problem (no inventory, sim down, node unreachable) shows as a red message
    naming the fix, and what was measured on reachable nodes is still shown and saved.
    """
    return CheckPanel(lesson, inventory, evidence_dir, replay).run()


def pairwise_heatmap(evidence: str | os.PathLike[str] = "evidence/lesson1.json") -> Any:
    """The pairwise bandwidth heat map of a switch's or ring's lesson-1 evidence (a matplotlib Figure: the
    cell displays it; rows send, columns receive, Gbit/s, grader/widgets/pairwise.py), or a line saying why
    there is none (no such file, unreadable, a pair's evidence, no pair measured). Never raises."""
    from grader.evidence import EvidenceError, load_evidence
    from grader.facts.lesson1_multi import judgment
    from grader.widgets.pairwise import heatmap

    try:
        ev = load_evidence(evidence)
    except (EvidenceError, OSError) as e:
        return f"no heat map: {e}"
    if ev.inventory.get("topology", "pair") == "pair":
        return (f"no heat map: {evidence} is of a pair (one link, one figure: L1.tcp). Check a switch or a ring, "
                "e.g. `clusterlab sim up --nodes 4` then `clusterlab check lesson1`, to see one.")
    j = judgment(ev)
    if j is None:
        return f"no heat map: no pair was measured in {evidence} (see L1.tcp)"
    return heatmap(j, [n["name"] for n in ev.inventory["nodes"]],
                   title=f"lesson1 on a {ev.inventory['topology']} of {len(ev.inventory['nodes'])}")


# ---------------------------------------------------------------------------------------------
# grade cells


def what_can_be_earned(lesson: str, notebook: str | os.PathLike[str] | None = None) -> None:
    """Print, per profile, what ``lesson``'s notebook can earn at most and which machine grade cells earn
    nothing there (:mod:`grader.ceiling`). ``notebook``: default ``<lesson>.ipynb`` in the current folder (the
    notebook's own). Prints to stdout only; never raises."""
    from grader.ceiling import render

    path = Path(notebook) if notebook is not None else Path(f"{lesson}.ipynb")
    try:
        print(render(path))
    except (OSError, ValueError) as e:
        print(f"cannot read {path} to say what it can earn: {e}")


def grade_checks(lesson: str, check_ids: list[str] | tuple[str, ...], points: float,
                 evidence_dir: str = "evidence") -> float:
    """Grade ``check_ids`` from ``<evidence_dir>/<lesson>.json``; print why; return points earned.

    Returns ``points × (points earned by those checks / their points)``: a float in [0, points],
    which nbgrader takes as partial credit when it is the cell's last expression. Checks the
    catalogue declares not applicable to the evidence's profile (n.a., e.g. L1.port on one machine)
    are left out; a check not measured earns 0 of its points (grader.grading's statuses). Earns 0,
    saying why and where to record it instead: none of the checks applies to the profile; a missing,
    unreadable, malformed or edited evidence file; one whose stored summary claims checks its raw
    outputs do not pass; a node of the evidence that answered no probe (unreachable when recorded); a
    replay shipped with the labs, or evidence whose outputs do not show its profile
    (grader.provenance); sim evidence of lessons 1 and 2 recorded on a sim the learner did not build at the lesson's
    start (grader.provenance.sim_work_problem; CLUSTERLAB_SIM_OWN_WORK=off in the instructor's config lifts
    it); a profile outside :func:`grader.scoring.accepted_profiles` (the instructor's per-lesson
    setting in nbgrader_config.py, printed in every cell's output). Prints to stdout only; never raises.
    """
    with quiet():
        try:
            earned, lines = score_checks(lesson, list(check_ids), float(points), Path(evidence_dir),
                                         replay=mode() == "replay")
        except Exception as e:  # a grade cell must not error: that is a 0 without a reason
            earned, lines = 0.0, [f"0/{points:g}: the grader could not grade this ({type(e).__name__}: {e})"]
        print("\n".join(lines))
        return earned


def expect_close(name: str, value: Any, expected: float, rel: float = 0.01, unit: str = "") -> None:
    """Assert an answer is a number within ``rel`` (relative) of ``expected``; print a short verdict.

    Raises AssertionError naming ``name``, the value and (for visible tests) the tolerance, not the
    expected value, so a hidden test's failure does not give the answer away.
    """
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) \
        and math.isclose(value, expected, rel_tol=rel)
    if not ok:
        raise AssertionError(f"{name} = {value!r} {unit}".rstrip() + f" is not right (tolerance {rel:.0%}); "
                             "check the units and the formula in the text above")
    print(f"{name}: {value:g} {unit} ✓".replace("  ", " "))


def expect_equal(name: str, value: Any, expected: Any) -> None:
    """Assert an answer equals ``expected`` (strings compared stripped); print a short verdict."""
    norm = (lambda x: x.strip() if isinstance(x, str) else x)
    if norm(value) != norm(expected):
        raise AssertionError(f"{name} = {value!r} is not right; read the question and the output again")
    print(f"{name}: {value!r} ✓")


def captured_stdout(fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, str]:
    """Call ``fn`` and return ``(its result, what it printed)``; for tests of grade cells."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        res = fn(*args, **kwargs)
    return res, buf.getvalue()
