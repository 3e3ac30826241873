#!/usr/bin/env python3
"""Benchmark: wall time of `check lesson1` on the sim cluster, and SSH connections opened per node.

Targets (issue 2): <= 1.5 s per check, 1 connection per node. Run as root:
    .venv/bin/python benchmarks/check_lesson1.py [--runs 5]
It brings the sim up if it is not, runs the check in-process (the same code as the CLI) RUNS
times, prints each wall time, the median, and the connections per node, and leaves the sim as it
found it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import tempfile
import time
from pathlib import Path

from grader import sim
from grader.cli import main as cli_main
from grader.transport import CONNECTIONS_OPENED


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    was_up = bool(sim.status().get("up"))
    inv = sim.up([]) if not was_up else Path("/var/lib/clusterlab/sim/inventory.toml")
    times, conns, tcp = [], [], []
    try:
        with tempfile.TemporaryDirectory() as d:
            for _ in range(args.runs):
                CONNECTIONS_OPENED.clear()
                t0 = time.perf_counter()
                with contextlib.redirect_stdout(io.StringIO()):
                    code = cli_main(["check", "lesson1", "--inventory", str(inv), "--evidence", d, "--json"])
                times.append(time.perf_counter() - t0)
                conns.append(dict(CONNECTIONS_OPENED))
                tcp.append(json.loads((Path(d) / "lesson1.json").read_text())["facts"]["pair"]["tcp_gbps"])
                if code != 0:
                    print(f"(check exit status {code})")
    finally:
        if not was_up:
            sim.down()
    print()
    print("check lesson1 on the sim cluster")
    print("  wall time per run (s): " + ", ".join(f"{t:.3f}" for t in times))
    print(f"  median: {statistics.median(times):.3f} s   (target <= 1.5 s)")
    print(f"  SSH connections opened per node, per run: {conns[-1]}   (target 1 each)")
    print(f"  iperf3 TCP over one veth twin (Gbit/s): " + ", ".join(f"{g:.1f}" for g in tcp if g))


if __name__ == "__main__":
    main()
