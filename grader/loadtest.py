"""``clusterlab loadtest``: the lab's measurement, ``vllm bench serve`` on the head node over SSH.

One load level per concurrency: on the head, in a fresh temporary directory, ``vllm bench serve``
runs against the inventory's ``[serve]`` endpoint with ``--save-result --save-detailed``; the
same SSH command prints the result JSON, sends the console tail to stderr and removes the
directory, so nothing stays behind. Every level is bounded (coreutils ``timeout`` on the head,
the transport's deadline here). The raw JSON of every level goes into ``evidence/lab.json`` under
the side it measured (``pair`` when the model is served across both machines, ``baseline`` on one;
from ``[serve] mode`` unless ``--label`` says), merged with the other side's earlier run; the
facts are recomputed from the per-request data (grader.facts.lab) and graded (checks/lab.toml).
Every node of the inventory it can reach answers the platform probe (grader.probes.platform: what
machine it is), which replaces the earlier run's, and its host key goes into the provenance.

Every argument reaching the remote shell is validated here or quoted with shlex.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any, Callable

from grader.evidence import Evidence, EvidenceError, RawOutput, load_evidence
from grader.facts.lab import PROBE_RE, probe_name

DEFAULT_LEVELS = (1, 4, 16)
DEFAULT_INPUT_LEN = 128
DEFAULT_OUTPUT_LEN = 64
DEFAULT_PROMPTS = 32
LEVEL_TIMEOUT_S = 300.0
RESULT_FILE = "result.json"


TMP_PREFIX = "/tmp/clusterlab-bench."
"""Each level runs in its own ``mktemp -d`` folder with this prefix on the head, removed when the level
ends; ``clusterlab finish lab`` removes any left by a run that was killed (grader.lifecycle.ours)."""


class LoadTestError(RuntimeError):
    """The load test could not run; the message says why and what to do."""


def parse_levels(text: str) -> tuple[int, ...]:
    """``"1,4,16"`` -> (1, 4, 16); raises ValueError for anything but positive integers."""
    levels = tuple(int(x) for x in text.split(",") if x.strip())
    if not levels or any(c < 1 or c > 4096 for c in levels):
        raise ValueError(f"--concurrency {text!r}: give positive integers such as 1,4,16")
    return tuple(sorted(set(levels)))


def label_of(mode: str | None, label: str | None) -> str:
    """The side measured: --label, else from [serve] mode (single -> baseline, ray/nnodes -> pair)."""
    if label:
        return label
    if mode == "single":
        return "baseline"
    if mode in ("ray", "nnodes"):
        return "pair"
    raise LoadTestError("the inventory's [serve] table has no mode: say which side this run measures with "
                        "--label pair (served across both machines) or --label baseline (one machine)")


def bench_command(url: str, model: str, tokenizer: str, concurrency: int, input_len: int, output_len: int,
                  prompts: int, vllm: str = "vllm") -> str:
    """The shell command run on the head for one level: prints the result JSON on stdout."""
    args = ["bench", "serve", "--backend", "vllm", "--base-url", url, "--model", model, "--tokenizer", tokenizer,
            "--dataset-name", "random", "--random-input-len", str(input_len), "--random-output-len", str(output_len),
            "--num-prompts", str(prompts), "--max-concurrency", str(concurrency), "--request-rate", "inf",
            "--ignore-eos", "--temperature", "0", "--percentile-metrics", "ttft,tpot,itl,e2el",
            "--metric-percentiles", "50,90,99", "--save-result", "--save-detailed"]
    bench = " ".join(shlex.quote(a) for a in [vllm, *args])
    return (f"d=$(mktemp -d {TMP_PREFIX}XXXXXX) || exit 2; "
            "export HF_HUB_OFFLINE=1 VLLM_NO_USAGE_STATS=1 TOKENIZERS_PARALLELISM=false; "
            f"{bench} --result-dir \"$d\" --result-filename {RESULT_FILE} > \"$d/console.log\" 2>&1; rc=$?; "
            f"cat \"$d/{RESULT_FILE}\" 2>/dev/null; tail -n 25 \"$d/console.log\" >&2; rm -rf \"$d\"; exit $rc")


def model_bytes_command(model: str) -> str | None:
    """A command summing the model's weight files on the head (for the roofline), or None for a hub name."""
    if not model.startswith("/"):
        return None
    q = shlex.quote(model.rstrip("/"))
    return f"cat {q}/*.safetensors 2>/dev/null | wc -c"


def run(inv: Any, conn: Any, *, label: str, levels: tuple[int, ...], input_len: int, output_len: int,
        prompts: int, evidence_dir: str, bytes_per_token: float | None = None,
        level_timeout_s: float = LEVEL_TIMEOUT_S, progress: Callable[[str], None] = print) -> Evidence:
    """Run every level on the head over ``conn``; merge into evidence_dir/lab.json; return it (saved)."""
    serve = inv.serve
    model = serve.served_model_name or serve.model
    ev = _previous(Path(evidence_dir) / "lab.json", inv, label, progress)
    head = conn.node.name
    started = time.monotonic()
    for i, c in enumerate(levels, start=1):
        cmd = bench_command(serve.url, model, serve.model, c, input_len, output_len, prompts)
        progress(f"[{label}] level {i}/{len(levels)}: concurrency {c}, {prompts} prompts of {input_len}+{output_len} "
                 f"tokens on {head} ...")
        t0 = time.monotonic()
        res = conn.run(cmd, timeout_s=level_timeout_s)
        raw = RawOutput(head, probe_name(label, c), cmd, res.stdout, res.stderr, res.exit_status, res.timed_out,
                        res.duration_s, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        ev.raw.append(raw)
        progress(f"[{label}] concurrency {c}: " + _one_line(res, time.monotonic() - t0))
        if res.exit_status == 127 or "not found" in res.stderr[-300:] and not res.stdout.strip():
            raise LoadTestError(f"`vllm` is not on {head}'s PATH for SSH sessions: install vLLM there (the sim "
                                "links its serving environment's vllm into the session PATH at `sim up`)")
    lab = ev.measurements.setdefault("lab", {})
    lab.setdefault("runs", {})[label] = {"levels": list(levels), "input_len": input_len, "output_len": output_len,
                                         "num_prompts": prompts, "url": serve.url, "model": model,
                                         "mode": serve.mode, "head": head,
                                         "seconds": round(time.monotonic() - started, 1)}
    if bytes_per_token:
        lab["bytes_per_token"] = bytes_per_token
    elif "bytes_per_token" not in lab and (mb := model_bytes_command(serve.model)):
        res = conn.run(mb, timeout_s=30)
        ev.raw.append(RawOutput(head, "model-weight-bytes", mb, res.stdout, res.stderr, res.exit_status, res.timed_out,
                                res.duration_s))
        n = res.stdout.strip()
        if res.ok and n.isdigit() and int(n) > 0:
            lab["bytes_per_token"] = int(n)
            lab["bytes_per_token_note"] = "all weight files of the model (a dense model reads each once per token)"
    ev.stamp()
    return ev


def probe_platform(ev: Evidence, conns: dict[str, Any], errors: dict[str, str]) -> None:
    """Run the platform probe on every connected node; it replaces any earlier one in ``ev`` (the
    machines are the ones reached now). ``errors``: ``{node: why it was not reached}``, recorded as the
    evidence's errors. Host keys go into ``ev.provenance["nodes"]``."""
    from grader.probes import platform, run_plan

    ev.raw = [r for r in ev.raw if r.probe != platform.PROBE.id]
    ev.errors = dict(errors)
    ev.provenance.pop("nodes", None)
    ev.raw += run_plan(conns, {n: [platform.PROBE] for n in conns}, ev.errors)
    platform.record_host_keys(ev, conns)


def _previous(path: Path, inv: Any, label: str, progress: Callable[[str], None]) -> Evidence:
    """The earlier lab evidence without this side's levels (the other side is kept), or a new one.

    A replay shipped with the labs (grader.provenance.replay_problem) is never merged into, except where
    the replays themselves are recorded (a folder named ``recorded``): its other side is not the learner's.
    Nor is sim evidence that earns nothing for want of the learner's own work (grader.provenance.sim_work_problem:
    measured on the sim's ready-made serving or the answer key's) when this run's would earn: the new run's
    record would hide it (the answer key's two sides, both earning nothing, merge)."""
    from grader.checking import sim_record
    from grader.evidence import REPLAY_DIR
    from grader.provenance import record_fault, replay_problem, sim_work_problem

    inventory = {"profile": inv.profile, "qsfp_port": inv.qsfp_port,
                 "nodes": [{"name": n.name, "address": n.address, "port": n.port, "user": n.user} for n in inv.nodes]}
    if path.exists():
        try:
            old = load_evidence(path)
            if replay_problem(old) and path.resolve().parent.name != REPLAY_DIR:
                progress(f"starting a new {path}: the old one is the replay shipped with the labs, not your machines'")
            elif (old.lesson == "lab" and path.resolve().parent.name != REPLAY_DIR
                  and record_fault("lab", sim_record(inv.profile)) is None and (why := sim_work_problem(old))):
                progress(f"starting a new {path}: the old one earns nothing ({why})")
            elif old.lesson == "lab" and old.profile == inv.profile:
                kept = [r for r in old.raw if not (PROBE_RE.match(r.probe) and r.probe.split(":")[1] == label)]
                progress(f"keeping the {len(kept)} earlier output(s) of {path} that are not the {label} run")
                return Evidence("lab", inv.profile, inventory, kept, measurements=old.measurements)
        except (EvidenceError, ValueError) as e:
            progress(f"starting a new {path}: the old one cannot be used ({e})")
    return Evidence("lab", inv.profile, inventory)


def _one_line(res: Any, seconds: float) -> str:
    if res.timed_out:
        return f"stopped at the {seconds:.0f} s deadline"
    try:
        data = json.loads(res.stdout)
        return (f"{data.get('completed')} completed, {data.get('failed', 0)} failed, "
                f"{data.get('output_throughput', 0):.1f} output tok/s ({seconds:.1f} s)")
    except (ValueError, TypeError, AttributeError):
        tail = (res.stderr.strip().splitlines() or ["no output"])[-1][:200]
        return f"no result (exit {res.exit_status}): {tail}"


def cli(args: Any, refuse: Callable[[Any], None] = lambda inv: None) -> int:
    """The ``clusterlab loadtest`` command (called by grader.cli, which turns LoadTestError into exit 2;
    ``refuse(inventory)`` raises when the inventory must not be probed now)."""
    from grader import lab as lab_mod
    from grader.checking import run_lesson
    from grader.formats import render
    from grader.inventory import InventoryError, load_inventory
    from grader.report import render_table
    from grader.results import lesson_payload
    from grader.transport import NodeUnreachable, connect_all

    try:
        inv = load_inventory(args.inventory)
        levels = parse_levels(args.concurrency)
    except (InventoryError, ValueError) as e:
        raise LoadTestError(str(e)) from None
    if inv.serve is None:
        raise LoadTestError(f"{args.inventory} has no [serve] table: serve the model first (on the sim: "
                        "`clusterlab start lab`, then `vllm serve` in the nodes as the lab notebook's section 4 "
                        "prints it) and name its url and model there")
    refuse(inv)
    head = next((n for n in inv.nodes if n.name == (inv.serve.head or inv.nodes[0].name)), inv.nodes[0])
    fmt = args.format  # text, or json, junit, tap (grader.formats)
    say: Callable[[str], None] = print if fmt == "text" else (lambda m: print(m, file=sys.stderr))
    label = label_of(inv.serve.mode, args.label)

    def collect(inv: Any, conns: dict[str, Any], errors: dict[str, str]) -> Evidence:
        """The head runs the load; every node answers the platform probe."""
        if head.name not in conns:
            raise LoadTestError(errors.get(head.name, f"{head.name}: not reached"))
        try:
            ev = run(inv, conns[head.name], label=label, levels=levels, input_len=args.input_len,
                     output_len=args.output_len, prompts=args.num_prompts, evidence_dir=args.evidence,
                     bytes_per_token=args.bytes_per_token, level_timeout_s=args.timeout, progress=say)
            probe_platform(ev, conns, errors)
        except NodeUnreachable as e:
            raise LoadTestError(str(e)) from None
        return ev

    conns, errors = connect_all(inv)
    try:
        result = run_lesson("lab", inv, conns, errors, collect=collect, evidence_dir=args.evidence, must_save=True)
    finally:
        for c in conns.values():
            c.close()
    ev, path, verdicts = result.evidence, result.saved, result.verdicts
    plots = []
    try:
        plots = lab_mod.save_plots(lab_mod.runs_from_facts(ev.facts), args.evidence,
                                   title=str(ev.facts.get("model") or ""))
    except ImportError:
        say("no plots: matplotlib is not installed (pip install 'clusterlab[lab]')")
    if fmt != "text":  # grader.results.LoadtestReport
        print(render(lesson_payload(result, "loadtest", str(path), comparison=ev.facts["comparison"],
                                    plots=[str(p) for p in plots]), fmt))
    else:
        if ev.facts["comparison"]:
            print(lab_mod.table(ev.facts["comparison"]))
        for side, r in ev.facts["roofline"].items():
            if ev.facts.get(side):
                print(lab_mod.roofline_line(side, r, inv.profile))
        print(render_table(verdicts, f"lab on {inv.profile} ({label} recorded)", colour=sys.stdout.isatty()))
        for why in result.unfit:
            print(f"earns 0 in the grade cells: {why}")
        print(f"evidence: {path}" + (f"; plots: {', '.join(str(p) for p in plots)}" if plots else ""))
    return result.exit_code
