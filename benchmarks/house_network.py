#!/usr/bin/env python3
"""Benchmark: the house-network lesson, TTFT with the pipeline over the QSFP twin and over enP7s7.

Run as root after scripts/install-serve.sh (it holds the sim for ~3 minutes; other users of the
sim wait on the same lock):
    flock /tmp/clusterlab-sim.lock .venv/bin/python benchmarks/house_network.py [--requests 5] [--rate 2mbit]

It builds the sim (replacing one already up), serves the tiny model with Ray + PP=2 bound to the
QSFP twin, times the first token of N identical requests (a 240-token prompt, 4 tokens, one at a
time, from a client inside spark-a talking to 127.0.0.1), then serves it again bound to the house
network enP7s7 (Ray --node-ip-address, VLLM_HOST_IP and the interface variables there) and times
the same requests at the sim's 1 Gbit/s and with enP7s7 shaped to --rate by tc tbf. During the
QSFP run the house network is shaped the same way, so only where the activations go differs. It
prints each run's median TTFT (ms) and the bytes spark-b received on each link, and takes the sim
down again (unless --keep).

Reference: research/vllm_netns.md §7 measured a median TTFT of 38 ms on the link at 1 Gbit/s and
578 ms at 2 Mbit/s (vllm bench serve, 20 prompts, 64 in / 64 out, concurrency 4).
"""

from __future__ import annotations

import argparse
import json
import sys

from grader import sim
from grader.sim import serve


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--requests", type=int, default=5, help="timed requests per run (default 5)")
    ap.add_argument("--rate", default=serve.HOUSE_SHAPED_RATE, help="the shaped house rate, tc syntax (default 2mbit)")
    ap.add_argument("--keep", action="store_true", help="leave the sim up, serving over the house network")
    ap.add_argument("--json", action="store_true", help="print the measurements as JSON too")
    args = ap.parse_args(argv)
    if args.requests < 1:
        print("house_network: --requests must be at least 1", file=sys.stderr)
        return 2
    missing = serve.installed()
    if missing:
        print(f"house_network: {missing}", file=sys.stderr)
        return 2
    try:
        sim.up([])
        res = serve.compare_networks(args.requests, args.rate)
    except (sim.SimError, ValueError) as e:
        print(f"house_network: {e}", file=sys.stderr)
        return 2
    finally:
        if not args.keep:
            sim.down()
    rows = [("QSFP twin enp1s0f1np1 (house shaped too)", res["qsfp"]),
            ("house enP7s7 at 1 Gbit/s", res["house_1gbit"]),
            (f"house enP7s7 shaped to {args.rate}", res["house_shaped"])]
    print(f"TTFT of {args.requests} requests (240-token prompt, 4 tokens, one at a time), Ray + PP=2 on the sim")
    print(f"{'pipeline over':<42} {'median TTFT':>12} {'spark-b rx QSFP':>16} {'spark-b rx house':>17}")
    for name, run in rows:
        rx = run["rx_bytes"]
        print(f"{name:<42} {run['median_ms']:>9.0f} ms {rx['spark-b/enp1s0f1np1'] / 1e3:>13.1f} kB "
              f"{rx['spark-b/enP7s7'] / 1e3:>14.1f} kB")
    q, h = res["qsfp"]["median_ms"], res["house_shaped"]["median_ms"]
    print(f"house at {args.rate} / QSFP: {h / q:.1f}x (research/vllm_netns.md §7: 38 ms -> 578 ms at 2 Mbit/s); "
          f"/health after {res['health_s']['qsfp']:.0f} s (QSFP) and {res['health_s']['house']:.0f} s (house)")
    if args.json:
        print(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
