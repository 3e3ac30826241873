#!/usr/bin/env python3
"""Benchmark: time from `sim up --serve` to /health, and the peak memory of the whole sim.

Targets (issue 4): <= 120 s on 2 cores, <= 8 GiB. Run as root after scripts/install-serve.sh:
    .venv/bin/python benchmarks/sim_serve.py [--mode ray|nnodes|single] [--cold] [--requests 20]
        [--nodes N --topology switch|ring]   # beyond a pair: --mode ray only, pipeline parallel N
It builds the sim from scratch (`down` first), starts serving in-process (the same code as the
CLI), then sends a few completions so serving memory counts too, and finally takes the sim down
again (unless --keep). `--cold` first removes the per-node torch.compile caches, as on a fresh
machine. Memory is sampled every 0.2 s two ways:

- PSS: the proportional set size of every process in the node namespaces (sshd, Ray, vLLM),
  summed: shared pages are counted once, split between the processes mapping them;
- system: MemTotal - MemAvailable, minus its value before `up` (includes page cache growth and
  anything else the machine did meanwhile, so an upper bound on a busy box).
"""

from __future__ import annotations

import argparse
import json
import shutil
import threading
import time
import urllib.request

from grader import sim
from grader.sim import cluster as C
from grader.sim import serve
from grader.sim import serve_spec as S
from grader.sim import topology as T

GIB = 2**30


def mem_used() -> int:
    info = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":")
            info[k] = int(v.split()[0]) * 1024
    return info["MemTotal"] - info["MemAvailable"]


def sim_pss() -> tuple[int, int]:
    """(summed PSS in bytes, process count) over the node namespaces."""
    total = count = 0
    for ns in T.NODE_NAMES:  # absent namespaces list nothing
        for pid in C._ns_pids(ns):
            try:
                with open(f"/proc/{pid}/smaps_rollup") as f:
                    for line in f:
                        if line.startswith("Pss:"):
                            total += int(line.split()[1]) * 1024
                            count += 1
                            break
            except OSError:
                pass
    return total, count


class Sampler(threading.Thread):
    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.base = mem_used()
        self.peak_pss = self.peak_sys = self.peak_procs = 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            pss, n = sim_pss()
            self.peak_pss = max(self.peak_pss, pss)
            self.peak_procs = max(self.peak_procs, n)
            self.peak_sys = max(self.peak_sys, mem_used() - self.base)
            self.stop.wait(0.2)


def complete(url: str, n: int) -> float:
    t0 = time.perf_counter()
    for i in range(n):
        body = json.dumps({"model": S.SERVED_NAME, "prompt": f"request {i} " * 20, "max_tokens": 32,
                           "ignore_eos": True}).encode()
        req = urllib.request.Request(url + "/v1/completions", body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            assert json.loads(r.read())["usage"]["completion_tokens"] == 32
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", default="ray", choices=S.MODES)
    ap.add_argument("--cold", action="store_true", help="remove the compile caches first")
    ap.add_argument("--requests", type=int, default=20, help="completions sent after /health (32 tokens each)")
    ap.add_argument("--keep", action="store_true", help="leave the sim up and serving")
    ap.add_argument("--nodes", type=int, default=2, help="how many nodes (default 2: the pair)")
    ap.add_argument("--topology", default=None, choices=("pair", "switch", "ring"),
                    help="default: pair for 2 nodes, switch above")
    args = ap.parse_args()
    missing = serve.installed()
    if missing:
        print(missing)
        return 2
    sim.down()
    if args.cold:
        shutil.rmtree(S.CACHE_DIR, ignore_errors=True)
    sampler = Sampler()
    sampler.start()
    t0 = time.monotonic()
    topology = args.topology or ("pair" if args.nodes == 2 else "switch")
    sim.up([], nodes=args.nodes, topology=topology)
    t_up = time.monotonic() - t0
    info = serve.start(args.mode)
    t_health = time.monotonic() - t0
    t_req = complete(info["host_url"], args.requests) if args.requests else 0.0
    sampler.stop.set()
    sampler.join()
    if not args.keep:
        t1 = time.monotonic()
        sim.down()
        t_down = time.monotonic() - t1
    print()
    print(f"sim up --nodes {args.nodes} --topology {topology} --serve {args.mode}{' (cold compile cache)' if args.cold else ''}, {args.requests} completions after")
    print(f"  sim up (network, sshd):              {t_up:6.1f} s")
    print(f"  sim up --serve to /health:           {t_health:6.1f} s   (target <= 120 s)")
    print(f"  {args.requests} completions of 32 tokens:        {t_req:6.1f} s")
    print(f"  peak PSS of the sim's processes:     {sampler.peak_pss / GIB:6.2f} GiB   (target <= 8 GiB; "
          f"up to {sampler.peak_procs} processes)")
    print(f"  peak system memory used, over idle:  {sampler.peak_sys / GIB:6.2f} GiB")
    if not args.keep:
        print(f"  sim down:                            {t_down:6.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
