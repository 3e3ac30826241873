"""``clusterlab verify``: probe the machines again and say where an evidence file and they disagree.

nbgrader grades what a learner hands in; it cannot tell a measured figure from a typed one. A
figure that was really measured on the learner's machines comes out (about) the same when the
machines are probed again, so ``verify`` probes them again (the same code as ``clusterlab check``
and ``clusterlab loadtest``, nothing saved) and compares item by item:

- **integrity**: every raw output still matches its sha256; the manifest still covers every graded
  field (grader.evidence); the facts stored in the file equal those derived again from its raw
  outputs; the nodes named in the file are the inventory's nodes; the recorded times are not in the
  future; the profile is the inventory's;
- **machines**: each node's SSH host-key fingerprint and machine-id hash (grader.provenance): the
  file was recorded on these machines, not on others with the same addresses;
- **addresses**: each node's QSFP twin addresses, the Ray head's address and every Ray node's
  address (lesson 2), the serving URL (lab);
- **versions**: kernel (``uname -srm``), iperf3, vLLM (its log's banner), NCCL (its debug log),
  where the evidence recorded them;
- **capacity**: lesson 2's ``KV cache size`` tokens from the vLLM log;
- **throughput**, allowed a run-to-run spread (the ``*_SPREAD`` constants below): lesson 1's
  iperf3 Gbit/s; for the lab, ONE load level is run again (the smallest recorded, with the
  recorded prompt and output lengths and number of prompts, on the side the server now serves)
  and its output tok/s and median TPOT compared with the recorded level; while it differs, up to
  :data:`LAB_SAMPLES` runs, the closest compared.

Each compared item is a :class:`Row` with status ``agree``, ``DIFFERS`` or ``not comparable``
(recorded on one side only, a node unreachable now, the server now serving the other side).
Exit status of the command: 0 everything comparable agrees, 1 something differs, 2 ``verify``
could not run (the message names the fix).
"""

from __future__ import annotations

import re
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

from grader import strictjson
from grader.evidence import Evidence, EvidenceError, read_evidence, stored_facts_differ
from grader.formats import format_value, render

AGREE, DIFFERS, NOT_COMPARABLE = "agree", "DIFFERS", "not comparable"

TCP_SPREAD = 0.5
"""iperf3 Gbit/s may differ by this fraction between two honest runs (ratio of the larger to the
smaller <= 1.5). Reasoning: a single-stream TCP test over one twin is limited by one CPU core, and
what else runs on that core moves it; on the sim (2 shared cores, veth twins, vLLM serving) four
back-to-back ``clusterlab check lesson1`` runs measured 16.9-18.7 Gbit/s (max/min 1.11; 29 Nov 2026),
so 1.5 leaves room for a busier machine while a figure typed ten times too high (or the house network's 1 Gbit/s
instead of a twin's) is still far outside."""

TCP_SPREAD_SIM = 1.0
"""The same on the sim profile (ratio <= 2): there iperf3 over a veth twin measures the host's CPU, and in the
fresh-clone suite the other half of the tests runs beside the sim on the same 2 cores, so a re-run can land on a busy
moment: a recording of 16.7 Gbit/s re-measured at 9.4 (1.78; 6 Dec 2026, session 30, test_honest_evidence_agrees).
A figure typed ten times too high is still far outside."""

LAB_THROUGHPUT_SPREAD = 0.75
"""Output tok/s of the same load level may differ by this fraction between two honest runs
(max/min <= 1.75). On the sim (concurrency 1, 8 prompts of 32+16 tokens, Ray PP=2), four back-to-back
runs gave 147-169 output tok/s (max/min 1.15; 29 Nov 2026), but a recording and its re-run a minute
later in tests/test_verify_sim.py gave 108.3 then 69.8 tok/s (1.55; 2 Dec 2026, fresh-clone suite,
nothing else running): latencies on 2 shared cores are noisy (research/vllm_cpu.md §4). A GPU server
at concurrency 1 is steadier (decode is memory-bound), so on Sparks 1.75 is generous; an edit by 2x
or more still shows against the recorded figure."""

LAB_TPOT_SPREAD = 0.75
"""Median TPOT (ms) of the same level: max/min <= 1.75, for the same reasons as
LAB_THROUGHPUT_SPREAD (the four sim runs: 4.68-5.69 ms, max/min 1.22; the 2 Dec pair: 8.55 then
12.60 ms, 1.47)."""

LAB_SAMPLES = 3
"""How many times ``verify`` runs the lab's load level while it differs from the recording; the run closest to
the recording is compared (its note says so). One run is one noisy sample: on CI (3 Dec 2026, 2 cores, the
suite running nothing else) a recording gave 41.7 output tok/s and its re-run a minute later 78.0 (1.87),
while six back-to-back runs on an idle sim gave 76.8-112.6 (1.47, the same day): a slow outlier is the machine's, not
the figure's. A figure edited by 2x or more stays outside the spread in every run, so three runs let an honest
recording agree without letting an edited one through."""

KV_SPREAD = 0.0
"""vLLM's ``KV cache size`` tokens are arithmetic on the same memory figure, model and flags:
equal on every start, so any difference means the server was started differently."""

CLOCK_SKEW_S = 300
"""A recorded time up to this many seconds ahead of this machine's clock is taken as clock skew,
not as a future date."""


class VerifyError(Exception):
    """``verify`` cannot run (bad inventory, unreadable evidence, sim down, no node reachable);
    the message names the problem and the fix."""


@dataclass
class Row:
    """One compared item: ``item`` (e.g. ``spark-a enp1s0f1np1 IPv4``), the recorded and measured
    values (``None`` when one side has none), their ``unit`` (``""`` for text), ``status``
    (agree, DIFFERS, not comparable) and ``note`` (why, and the spread allowed)."""

    item: str
    recorded: Any
    measured: Any
    unit: str = ""
    status: str = AGREE
    note: str = ""


@dataclass
class Report:
    """All rows of one verification, with the evidence file and inventory compared."""

    evidence: str
    inventory: str
    lesson: str
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """1 when any row DIFFERS, else 0."""
        return 1 if any(r.status == DIFFERS for r in self.rows) else 0

    def payload(self) -> dict[str, Any]:
        """``{"schema_version", "kind": "verify", "evidence", "inventory", "lesson", "exit_code", "rows": [Row
        as dict], "notes"}`` (grader.results.VerifyReport)."""
        from grader.results import stamp

        return stamp("verify", {"evidence": self.evidence, "inventory": self.inventory, "lesson": self.lesson,
                                "exit_code": self.exit_code, "rows": [asdict(r) for r in self.rows],
                                "notes": self.notes})

    def to_json(self) -> str:
        """:meth:`payload` as strict JSON (:func:`grader.strictjson.dumps`: a non-finite figure is ``null``
        with a ``"<key>_reason"``)."""
        return strictjson.dumps(self.payload(), indent=1)

    def render(self) -> str:
        """The rows as a text table: status, item, recorded, measured, unit, then a note line."""
        title = f"verify {self.evidence} ({self.lesson}) against the machines of {self.inventory}"
        lines = [title, "=" * len(title)]
        w = max([len(r.item) for r in self.rows] + [4])
        for r in self.rows:
            lines.append(f"{r.status:<14} {r.item:<{w}}  recorded {format_value(r.recorded, r.unit)}  "
                         f"measured {format_value(r.measured, r.unit)}")
            if r.note:
                lines.append(f"{'':14} {'':{w}}  {r.note}")
        counts = {s: sum(r.status == s for r in self.rows) for s in (AGREE, DIFFERS, NOT_COMPARABLE)}
        lines += self.notes
        lines.append(f"{counts[AGREE]} agree, {counts[DIFFERS]} differ, {counts[NOT_COMPARABLE]} not comparable")
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# reading the evidence without refusing an edited one


def load_lenient(path: str | Path) -> tuple[Evidence, list[str]]:
    """Read an evidence file like :func:`grader.evidence.load_evidence`, but report the outputs
    whose sha256 does not match instead of refusing the file.

    Returns ``(evidence, ["<probe> on <node>", ...])`` (an empty list: every output matches).
    Raises VerifyError for everything else load_evidence refuses (missing, not a regular file, too
    large, not JSON, another schema, malformed).
    """
    try:
        ev, edited = read_evidence(path)
    except EvidenceError as e:
        raise VerifyError(str(e)) from None
    return ev, [f"{r.probe} on {r.node}" for r in edited]


# ---------------------------------------------------------------------------------------------
# the comparable items of one evidence


@dataclass
class Item:
    """A value an evidence file holds: ``value``, its ``unit``, ``kind`` (``exact`` or a spread
    as a fraction, e.g. 0.5 = max/min within 1.5), and ``why`` (the spread's constant)."""

    value: Any
    unit: str = ""
    spread: float | None = None
    why: str = ""


_KERNEL_RE = re.compile(r"^(Linux \S+ \S+)", re.M)
_IPERF_RE = re.compile(r"^iperf (\d+\.\d+(?:\.\d+)?)", re.M)


def items(ev: Evidence) -> dict[str, Item]:
    """``{item name: Item}`` of every comparable figure in ``ev`` (its facts must be derived).

    Names are stable across runs (``"spark-a enp1s0f1np1 IPv4"``, ``"spark-a kernel"``,
    ``"TCP throughput (iperf3)"``...), so two evidences of the same lesson compare by name.
    """
    out: dict[str, Item] = {}
    facts = ev.facts or {}
    nodes = facts.get("nodes") or {}
    for raw in ev.raw:
        if raw.probe == "sysinfo" and raw.exit_status == 0:
            if m := _KERNEL_RE.search(raw.stdout):
                out[f"{raw.node} kernel"] = Item(m.group(1))
            if m := _IPERF_RE.search(raw.stdout):
                out[f"{raw.node} iperf3 version"] = Item(m.group(1))
        elif raw.probe == "hostname" and raw.exit_status == 0 and raw.stdout.strip():
            out[f"{raw.node} hostname"] = Item(raw.stdout.strip())
    for name, nf in sorted(nodes.items()):
        if not isinstance(nf, dict) or nf.get("reachable") is False:
            continue
        if nf.get("hostname"):
            out[f"{name} hostname"] = Item(nf["hostname"])
        twins = nf.get("twin_ipv4")
        if twins is None and isinstance(nf.get("ipv4"), dict):  # lesson 2: every interface; keep the twins
            from grader.spark_names import is_qsfp_twin
            twins = {i: a for i, a in nf["ipv4"].items() if is_qsfp_twin(i)}
        for twin, addrs in sorted((twins or {}).items()):
            out[f"{name} {twin} IPv4"] = Item(sorted(addrs) if isinstance(addrs, list) else addrs)
    from grader.provenance import platform

    for name, node in sorted(platform(ev).items()):  # which machines: each node's SSH host key and machine-id
        if node.get("host_key"):
            out[f"{name} SSH host key"] = Item(node["host_key"])
        if node.get("machine_id_sha256"):
            out[f"{name} machine-id (sha256)"] = Item(node["machine_id_sha256"])
    pair = facts.get("pair") or {}
    if isinstance(pair.get("tcp_gbps"), (int, float)):
        spread, name = (TCP_SPREAD_SIM, "TCP_SPREAD_SIM") if ev.profile == "sim" else (TCP_SPREAD, "TCP_SPREAD")
        out["TCP throughput (iperf3, one twin)"] = Item(float(pair["tcp_gbps"]), "Gbit/s", spread, name)
    if pair.get("ray_head_ip"):
        out["Ray head address"] = Item(pair["ray_head_ip"])
    for n, ip in sorted((pair.get("ray_node_ips") or {}).items()):
        out[f"{n} Ray node address"] = Item(ip)
    if isinstance(pair.get("kv_tokens_logged"), int):
        out["KV cache size (vLLM log)"] = Item(pair["kv_tokens_logged"], "tokens", KV_SPREAD, "KV_SPREAD")
    for raw in ev.raw:
        if raw.probe == "log:vllm" and raw.stdout:
            from grader.parsers.vllm_log import parse_vllm_log
            try:
                v = parse_vllm_log(raw.stdout).version
            except Exception:  # an unreadable log has no version to compare
                v = None
            if v:
                out["vLLM version (its log)"] = Item(v)
        elif raw.probe == "log:nccl_debug" and raw.stdout:
            from grader.parsers.nccl_log import parse_nccl_log
            try:
                v = parse_nccl_log(raw.stdout).version
            except Exception:
                v = None
            if v:
                out["NCCL version (its debug log)"] = Item(v)
    return out


def compare_items(recorded: dict[str, Item], measured: dict[str, Item], reachable: set[str] | None = None) -> list[Row]:
    """One Row per item name in either dict.

    Exact items agree when equal; spread items when ``max/min <= 1 + spread``. An item on one side
    only is ``not comparable`` (a node in ``reachable``'s complement is named as unreachable now).
    """
    rows = []
    for name in sorted(set(recorded) | set(measured), key=_order):
        r, m = recorded.get(name), measured.get(name)
        unit = (r or m).unit  # type: ignore[union-attr]
        if r is None or m is None:
            node = name.split(" ")[0]
            why = ("the node could not be reached now" if reachable is not None and node not in reachable
                   and m is None else "not in the evidence" if r is None else "not measured now")
            rows.append(Row(name, r.value if r else None, m.value if m else None, unit, NOT_COMPARABLE, why))
            continue
        if r.spread:
            ok, note = within(r.value, m.value, r.spread)
            note += f" ({r.why})"
        else:
            ok, note = r.value == m.value, ""
        rows.append(Row(name, r.value, m.value, unit, AGREE if ok else DIFFERS, note))
    return rows


def ratio(recorded: Any, measured: Any) -> float:
    """max/min of two positive figures; inf when either is not a positive number."""
    if not isinstance(recorded, (int, float)) or not isinstance(measured, (int, float)) or recorded <= 0 or measured <= 0:
        return float("inf")
    return max(recorded, measured) / min(recorded, measured)


def within(recorded: float, measured: float, spread: float) -> tuple[bool, str]:
    """Whether two positive figures agree within ``spread``: ``max/min <= 1 + spread``;
    ``(ok, "ratio X, allowed <= Y")``. A zero or negative figure agrees only with an equal one."""
    if recorded <= 0 or measured <= 0:
        return recorded == measured, "not a positive figure"
    r = ratio(recorded, measured)
    return r <= 1 + spread + 1e-12, f"ratio {r:.2f}, allowed <= {1 + spread:.2f}"


def _order(name: str) -> tuple[int, str]:
    for i, key in enumerate(("hostname", "IPv4", "Ray", "kernel", "version", "KV", "throughput", "TPOT")):
        if key in name:
            return i, name
    return 99, name


# ---------------------------------------------------------------------------------------------
# integrity: what the file itself says


def integrity_rows(ev: Evidence, bad_hashes: list[str], inventory_nodes: list[str], inventory_profile: str,
                   rederived: dict[str, Any] | None, now: datetime | None = None) -> list[Row]:
    """Rows about the file: sha256s, stored against re-derived facts, nodes, times, profile.

    ``rederived`` is the facts derived again from the raw outputs (None: not checked); they are
    compared only when the same facts code derived the stored ones (:func:`stored_facts_differ`).
    ``now`` defaults to the current UTC time.
    """
    now = now or datetime.now(timezone.utc)
    rows = [Row("raw outputs match their sha256", len(ev.raw) - len(bad_hashes), len(ev.raw), "outputs",
                DIFFERS if bad_hashes else AGREE,
                ("edited after recording: " + ", ".join(bad_hashes[:6]) + (" ..." if len(bad_hashes) > 6 else ""))
                if bad_hashes else "")]
    mp = getattr(ev, "manifest_problem", None)
    rows.append(Row("the manifest covers every graded field", "recorded", "as read", "", DIFFERS if mp else AGREE,
                    mp or ""))
    keys = stored_facts_differ(ev, rederived) if rederived is not None else None
    if keys is not None:
        rows.append(Row("stored facts = facts derived from the raw outputs", "stored", "re-derived", "",
                        DIFFERS if keys else AGREE, f"these differ: {', '.join(keys)}" if keys else ""))
    named = sorted({r.node for r in ev.raw} | {n.get("name") for n in ev.inventory.get("nodes", []) if n.get("name")})
    foreign = [n for n in named if n not in inventory_nodes]
    rows.append(Row("nodes named in the evidence are the inventory's", named, sorted(inventory_nodes), "",
                    DIFFERS if foreign else AGREE, f"not in the inventory: {', '.join(foreign)}" if foreign else ""))
    rows.append(Row("profile", ev.profile, inventory_profile, "", AGREE if ev.profile == inventory_profile else DIFFERS))
    times = [("created_at", ev.provenance.get("created_at"))] + [(f"{r.probe} on {r.node}", r.started_at)
                                                                 for r in ev.raw if r.started_at]
    future, unreadable = [], []
    for what, t in times:
        when = _parse_time(t)
        if when is None:
            if t:
                unreadable.append(what)
        elif when > now + timedelta(seconds=CLOCK_SKEW_S):
            future.append(f"{what} {t}")
    rows.append(Row("recorded times are not in the future", ev.provenance.get("created_at"),
                    now.isoformat(timespec="seconds"), "UTC", DIFFERS if future or unreadable else AGREE,
                    "; ".join(([f"in the future: {', '.join(future[:4])}"] if future else [])
                              + ([f"unreadable: {', '.join(unreadable[:4])}"] if unreadable else []))
                    or f"allowed clock skew {CLOCK_SKEW_S} s (CLOCK_SKEW_S)"))
    return rows


def _parse_time(t: Any) -> datetime | None:
    if not isinstance(t, str) or not t:
        return None
    try:
        when = datetime.fromisoformat(t.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


# ---------------------------------------------------------------------------------------------
# the lab: one load level again


def lab_level(ev: Evidence, label: str) -> tuple[int, dict[str, Any]] | None:
    """The level to run again for ``label``: ``(concurrency, the recorded run's parameters)``, the
    smallest recorded level; None when that side was not recorded."""
    levels = sorted(int(k[1:]) for k in (ev.facts.get(label) or {}) if k.startswith("c") and k[1:].isdigit())
    if not levels:
        return None
    run = ((ev.measurements.get("lab") or {}).get("runs") or {}).get(label) or {}
    return levels[0], run


def lab_rows(recorded: Evidence, measured: Evidence, label: str, c: int) -> list[Row]:
    """Output tok/s and median TPOT of level ``c`` of side ``label``, recorded against measured."""
    r = (recorded.facts.get(label) or {}).get(f"c{c}") or {}
    m = (measured.facts.get(label) or {}).get(f"c{c}") or {}
    rows = []
    for key, name, unit, spread, why in (
            ("output_throughput", f"{label} c{c} output throughput", "tok/s", LAB_THROUGHPUT_SPREAD,
             "LAB_THROUGHPUT_SPREAD"),
            ("median_tpot_ms", f"{label} c{c} median TPOT", "ms", LAB_TPOT_SPREAD, "LAB_TPOT_SPREAD")):
        rv, mv = r.get(key), m.get(key)
        if not isinstance(rv, (int, float)) or not isinstance(mv, (int, float)):
            problems = "; ".join(measured.facts.get("problems") or [])[:300]
            rows.append(Row(name, rv, mv, unit, NOT_COMPARABLE, f"no figure on one side {problems}".strip()))
            continue
        ok, note = within(float(rv), float(mv), spread)
        rows.append(Row(name, float(rv), float(mv), unit, AGREE if ok else DIFFERS, f"{note} ({why})"))
    return rows


def _run_lab(inv: Any, recorded: Evidence, progress: Callable[[str], None]) -> tuple[list[Row], Evidence | None]:
    from grader import loadtest
    from grader.checking import run_lesson
    from grader.transport import NodeUnreachable, open_connection

    rows: list[Row] = []
    if inv.serve is None:
        raise VerifyError(f"{inv.path or 'the inventory'} has no [serve] table: serve the model as it was served for "
                          "the evidence and name its url and model there (on the sim: `clusterlab sim up --serve ray`)")
    try:
        label = loadtest.label_of(inv.serve.mode, None)
    except loadtest.LoadTestError as e:
        raise VerifyError(str(e)) from None
    runs = (recorded.measurements.get("lab") or {}).get("runs") or {}
    for side, run in sorted(runs.items()):
        if run.get("url"):
            rows.append(Row(f"{side} serving URL", run["url"], inv.serve.url if side == label else None, "",
                            (AGREE if run["url"] == inv.serve.url else DIFFERS) if side == label else NOT_COMPARABLE,
                            "" if side == label else f"the server now serves the {label} side"))
    level = lab_level(recorded, label)
    if level is None:
        rows.append(Row(f"{label} load level", None, None, "", NOT_COMPARABLE,
                        f"the evidence has no {label} run; the server now serves that side ([serve] mode "
                        f"{inv.serve.mode}): serve the side the evidence recorded"))
        return rows, None
    c, run = level
    head = next((n for n in inv.nodes if n.name == (inv.serve.head or inv.nodes[0].name)), inv.nodes[0])
    conn = open_connection(head, inv)
    try:
        conn.connect(inv.command_timeout_s)
    except NodeUnreachable as e:
        raise VerifyError(f"cannot run the load level again: {e}") from None
    def one_level(inv: Any, conns: dict[str, Any], errors: dict[str, str], tmp: str) -> Evidence:
        # bytes_per_token given so that no weight-size probe runs: the roofline is not compared
        return loadtest.run(inv, conns[head.name], label=label, levels=(c,),
                            input_len=int(run.get("input_len", 128)), output_len=int(run.get("output_len", 64)),
                            prompts=int(run.get("num_prompts", 32)), evidence_dir=tmp, bytes_per_token=1.0,
                            progress=progress)

    best: tuple[float, list[Row], Evidence] | None = None
    try:
        for sample in range(1, LAB_SAMPLES + 1):
            with tempfile.TemporaryDirectory(prefix="clusterlab-verify-") as tmp:  # a scratch folder: nothing kept
                ev = run_lesson(recorded.lesson, inv, {head.name: conn}, {},
                                collect=lambda i, cs, er: one_level(i, cs, er, tmp)).evidence
            got = lab_rows(recorded, ev, label, c)
            worst = max((ratio(r.recorded, r.measured) for r in got), default=float("inf"))
            if best is None or worst < best[0]:
                best = (worst, got, ev)
            if all(r.status != DIFFERS for r in got):
                break
            if sample < LAB_SAMPLES:
                progress(f"[{label}] concurrency {c} differs from the recording (sample {sample} of at most "
                         f"{LAB_SAMPLES}): running it once more")
    except NodeUnreachable as e:
        raise VerifyError(f"the load level stopped: {e}") from None
    finally:
        conn.close()
    _, got, ev = best
    if sample > 1:
        got = [Row(r.item, r.recorded, r.measured, r.unit, r.status,
                   f"{r.note}; the closest of {sample} runs") for r in got]
    return rows + got, ev


# ---------------------------------------------------------------------------------------------
# the whole verification


def verify(evidence_path: str | Path, inventory_path: str | Path, now: datetime | None = None,
           progress: Callable[[str], None] | None = None) -> Report:
    """Probe the inventory's machines again for the evidence's lesson and compare (see module doc).

    Nothing is written. Raises VerifyError when it cannot run: unreadable evidence, a lesson it
    cannot probe, a bad inventory, the sim down, no node reachable, no [serve] table for the lab.
    """
    from grader import lessons
    from grader.checking import PROBED_LESSONS, CheckError, check, sim_is_down
    from grader.facts import derivers
    from grader.inventory import InventoryError, load_inventory

    say = progress or (lambda m: print(m, file=sys.stderr))
    recorded, bad = load_lenient(evidence_path)
    derive = derivers().get(recorded.lesson)
    if derive is None:
        raise VerifyError(f"{evidence_path}: this grader does not know lesson {recorded.lesson!r}")
    try:
        inv = load_inventory(inventory_path)
    except InventoryError as e:
        raise VerifyError(str(e)) from None
    if sim_is_down(inv.profile):
        raise VerifyError("the simulated cluster is not up (no clsim-br0 bridge): run `clusterlab sim up` as root "
                          "first (with --serve for lesson 2b and the lab)")
    stored = dict(recorded.facts)
    try:
        rederived = derive(recorded)
    except Exception as e:  # a hand-edited output may not parse: say so, compare what can be
        rederived = {}
        say(f"the evidence's raw outputs could not all be read ({type(e).__name__}: {e})")
    recorded.facts = stored
    report = Report(str(evidence_path), str(inventory_path), recorded.lesson)
    report.rows += integrity_rows(recorded, bad, [n.name for n in inv.nodes], inv.profile, rederived, now)
    recorded.facts = rederived
    if recorded.lesson in PROBED_LESSONS:
        say(f"probing {', '.join(n.name for n in inv.nodes)} again for {recorded.lesson} ...")
        try:
            measured = check(inv.path or inventory_path, [recorded.lesson], evidence_dir=None)[0]
        except CheckError as e:
            raise VerifyError(str(e)) from None
        reachable = {n.name for n in inv.nodes} - set(measured.errors)
        report.rows += compare_items(items(recorded), items(measured.evidence), reachable)
        report.notes += [f"unreachable now: {n}: {w}" for n, w in measured.errors.items()]
    elif recorded.lesson in lessons.recorded_by(lessons.PROBED_BY_LOADTEST):
        say("running one load level again ...")
        rows, _ = _run_lab(inv, recorded, say)
        report.rows += rows
    else:
        raise VerifyError(f"{evidence_path}: cannot verify lesson {recorded.lesson!r}")
    return report


def cli(args: Any) -> int:
    """``clusterlab verify EVIDENCE.json --inventory F [--format text|json|junit|tap]``; raises VerifyError
    (exit 2). Progress goes to stdout with the table, to stderr with any other format."""
    text = args.format == "text"
    say = print if text else (lambda m: print(m, file=sys.stderr))
    report = verify(args.evidence, args.inventory, progress=say)
    print(report.render() if text else render(report.payload(), args.format))
    return report.exit_code
