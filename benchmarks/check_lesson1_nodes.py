#!/usr/bin/env python3
"""Benchmark: `check lesson1` on sim switches of 2, 4 and 8 nodes: wall time, SSH connections opened per
node, and the grader's peak memory (issue 18).

Targets: 4 nodes within 1.5x and 8 nodes within 2.5x of the 2-node time; one connection per node; the
grader's peak memory within 1.5x of the 2-node run. Run as root, with the sim free:
    .venv/bin/python benchmarks/check_lesson1_nodes.py [--sizes 2,4,8] [--runs 3]
Each run is a fresh Python process (the CLI's own code, in-process there), so its peak RSS is the
grader's alone; the sim is brought up for each size and left down.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile

from grader import sim

CHILD = r"""
import contextlib, io, json, resource, sys, time
from grader.cli import main
from grader.transport import CONNECTIONS_OPENED
t0 = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["check", "lesson1", "--inventory", sys.argv[1], "--evidence", sys.argv[2], "--json"])
wall = time.perf_counter() - t0
print(json.dumps({"code": code, "wall_s": wall, "conns": dict(CONNECTIONS_OPENED),
                  "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="2,4,8", help="switch sizes, comma-separated (default 2,4,8)")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    rows = {}
    try:
        for n in sizes:
            inv = sim.up([], nodes=n, topology="switch")
            runs = []
            with tempfile.TemporaryDirectory() as d:
                for _ in range(args.runs):
                    out = subprocess.run([sys.executable, "-c", CHILD, str(inv), d], capture_output=True, text=True,
                                         timeout=600)
                    runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
            rows[n] = runs
    finally:
        sim.down()
    base = rows[sizes[0]]
    t0 = statistics.median(r["wall_s"] for r in base)
    m0 = statistics.median(r["maxrss_mib"] for r in base)
    target = {4: 1.5, 8: 2.5}
    print()
    print("check lesson1 on sim switches (median of %d runs; each a fresh process)" % args.runs)
    print(f"{'nodes':>5}  {'wall s':>7}  {'x 2-node':>8}  {'target':>6}  {'peak MiB':>8}  {'x 2-node':>8}  "
          f"{'conns/node':>10}  exit")
    for n in sizes:
        t = statistics.median(r["wall_s"] for r in rows[n])
        m = statistics.median(r["maxrss_mib"] for r in rows[n])
        conns = sorted(set(v for r in rows[n] for v in r["conns"].values()))
        codes = sorted({r["code"] for r in rows[n]})
        print(f"{n:>5}  {t:7.2f}  {t / t0:8.2f}  {('<= %.1f' % target[n]) if n in target else '':>6}  {m:8.1f}  "
              f"{m / m0:8.2f}  {'/'.join(map(str, conns)):>10}  {codes}")
    print("targets: time as above; 1 connection per node; peak memory <= 1.5x the 2-node run")


if __name__ == "__main__":
    main()
