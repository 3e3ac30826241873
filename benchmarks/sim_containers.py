#!/usr/bin/env python3
"""Benchmark: `sim up --serve ray --containers` (issue 17) next to the plain `sim up --serve ray`.

Target: the containerised start within 1.3x the plain one's time, once the image is built (its first
build is scripts/install-serve.sh's: ~1 min here, ~470 MB). Run as root after scripts/install-serve.sh:
    .venv/bin/python benchmarks/sim_containers.py [--rounds 2] [--requests 5]
Each round builds the sim from scratch in each mode (plain first), waits for /health, sends a few
completions, and takes the sim down, timing that too (the containers and each node's engine are removed,
the image kept). Memory is sampled as benchmarks/sim_serve.py does: the summed PSS of every process in
the two node namespaces (sshd, Ray, vLLM, and with containers each node's podman engine and conmon), and
the system's used memory over its value before `up`. The compile caches are warm after the first start.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]  # this checkout's grader, and sim_serve beside this file
from sim_serve import GIB, Sampler, complete  # noqa: E402

from grader import sim  # noqa: E402
from grader.sim import containers, serve  # noqa: E402

TARGET_RATIO = 1.3


def one(containerised: bool, requests: int) -> dict:
    sim.down()
    sampler = Sampler()
    sampler.start()
    t0 = time.monotonic()
    sim.up([])
    info = serve.start("ray", containers=containerised)
    health = time.monotonic() - t0
    t_req = complete(info["host_url"], requests) if requests else 0.0
    sampler.stop.set()
    sampler.join()
    t1 = time.monotonic()
    sim.down()
    return {"health_s": health, "requests_s": t_req, "down_s": time.monotonic() - t1,
            "pss": sampler.peak_pss, "sys": sampler.peak_sys, "procs": sampler.peak_procs}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=1, help="plain + containers starts, alternating")
    ap.add_argument("--requests", type=int, default=5, help="completions sent after /health (32 tokens each)")
    args = ap.parse_args()
    missing = serve.installed() or containers.installed()
    if missing:
        print(missing)
        return 2
    runs: dict[str, list[dict]] = {"plain": [], "containers": []}
    for _ in range(args.rounds):
        for mode in runs:
            runs[mode].append(one(mode == "containers", args.requests))
    print()
    print(f"sim up --serve ray, plain vs --containers ({args.rounds} round(s), {args.requests} completions after /health)")
    print(f"  {'':34s} {'plain':>10s} {'containers':>11s}")
    best = {m: min(r["health_s"] for r in rs) for m, rs in runs.items()}
    rows = [("sim up --serve ray to /health (best)", lambda m: f"{best[m]:8.1f} s"),
            ("  each round", lambda m: " ".join(f"{r['health_s']:.1f}" for r in runs[m])),
            (f"{args.requests} completions of 32 tokens", lambda m: f"{min(r['requests_s'] for r in runs[m]):8.1f} s"),
            ("sim down", lambda m: f"{max(r['down_s'] for r in runs[m]):8.1f} s"),
            ("peak PSS of the sim's processes", lambda m: f"{max(r['pss'] for r in runs[m]) / GIB:6.2f} GiB"),
            ("peak system memory over idle", lambda m: f"{max(r['sys'] for r in runs[m]) / GIB:6.2f} GiB"),
            ("processes (most)", lambda m: f"{max(r['procs'] for r in runs[m]):8d}  ")]
    for name, cell in rows:
        print(f"  {name:34s} {cell('plain'):>10s} {cell('containers'):>11s}")
    ratio = best["containers"] / best["plain"]
    print(f"  containers / plain time: {ratio:.2f}x (target <= {TARGET_RATIO}x after the image's first build)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
