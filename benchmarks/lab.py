#!/usr/bin/env python3
"""Benchmark: the whole lab on the simulated cluster, and the load generator's peak memory.

Targets (issue 5): the lab run <= 5 min on 2 cores; the client (`vllm bench serve`) under 1 GiB.
Run as root after scripts/install-serve.sh, with the sim free (it takes it down at the end):
    .venv/bin/python benchmarks/lab.py [--concurrency 1,4,16] [--num-prompts 32] [--keep]
It does what the README's lab section does: `sim up --serve ray`, `clusterlab loadtest`,
`--serve single`, `clusterlab loadtest` again (same code as the CLI, in-process), then prints:
the time of each phase and of the whole lab; the peak RSS of the load generator (every process
whose command line holds `bench serve`, with its children, sampled every 0.2 s); and the
pair/baseline table.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
from pathlib import Path

GIB = 2**30


def bench_rss() -> int:
    """Summed RSS (bytes) of the processes running `vllm bench serve` and their children now."""
    procs: dict[int, tuple[int, int, str]] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            stat = (d / "stat").read_text().rsplit(")", 1)[1].split()
            rss = int(stat[21]) * os.sysconf("SC_PAGE_SIZE")
            procs[int(d.name)] = (int(stat[1]), rss, cmd)
        except (OSError, IndexError, ValueError):
            continue
    roots = {p for p, (_, _, cmd) in procs.items() if "bench serve" in cmd and "sh -c" not in cmd}
    total, seen = 0, set()
    stack = list(roots)
    while stack:
        p = stack.pop()
        if p in seen or p not in procs:
            continue
        seen.add(p)
        total += procs[p][1]
        stack += [c for c, (ppid, _, _) in procs.items() if ppid == p]
    return total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--concurrency", default="1,4,16")
    ap.add_argument("--num-prompts", default="32")
    ap.add_argument("--keep", action="store_true", help="leave the sim up")
    args = ap.parse_args()

    from grader import sim
    from grader.cli import main as cli
    from grader.sim import serve
    from grader.sim import topology as T

    peak = [0]
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], bench_rss())
            time.sleep(0.2)

    threading.Thread(target=sample, daemon=True).start()
    out = Path(tempfile.mkdtemp(prefix="clusterlab-lab-"))
    load = ["--concurrency", args.concurrency, "--num-prompts", args.num_prompts, "--evidence", str(out), "--json"]
    times: dict[str, float] = {}
    t_all = time.monotonic()
    try:
        t = time.monotonic()
        sim.up([])
        serve.start("ray")
        times["sim up --serve ray"] = time.monotonic() - t
        t = time.monotonic()
        cli(["loadtest", "--inventory", str(T.INVENTORY), *load])
        times["loadtest pair"] = time.monotonic() - t
        t = time.monotonic()
        serve.start("single")
        times["serve single"] = time.monotonic() - t
        t = time.monotonic()
        code = cli(["loadtest", "--inventory", str(T.INVENTORY), *load])
        times["loadtest baseline"] = time.monotonic() - t
    finally:
        if not args.keep:
            sim.down()
        stop.set()
    total = time.monotonic() - t_all
    for k, v in times.items():
        print(f"{k:22} {v:7.1f} s")
    print(f"{'whole lab':22} {total:7.1f} s   (target <= 300 s)")
    print(f"load generator peak RSS {peak[0] / GIB:.2f} GiB   (target < 1 GiB)")
    ev = json.loads((out / "lab.json").read_text())
    from grader import lab
    print(lab.table(ev["facts"]["comparison"]))
    print(f"evidence and plots: {out}; exit {code}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
