"""`clusterlab check lesson1 --watch`: the time of one round against one plain `check`, on the sim.

    flock /tmp/clusterlab-sim.lock .venv/bin/python benchmarks/watch.py [--rounds 5] [--fault mtu-1500]

Brings the sim up with ``--fault`` (so every round has a failing check and the watch goes on), then
times ``--rounds`` plain ``clusterlab check lesson1`` runs (each its own process: interpreter start,
imports, SSH connections, probes, grading, as a learner's shell runs it) and one watch of
``--rounds`` rounds (``grader.watch.watch``, interval 0: back to back; the connections opened
once). Prints each, the medians, their ratio and the SSH connections the watch opened per node;
target (issue 15): a round within 1.2x of a single check. Exits 1 if missed. Root only; brings the
sim down at the end.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time

TARGET_RATIO = 1.2


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--fault", default="mtu-1500", help="a lesson-1 fault that keeps a check failing")
    args = ap.parse_args(argv)

    from grader import sim, transport
    from grader.watch import watch

    inv = sim.up([args.fault])
    try:
        with tempfile.TemporaryDirectory() as ev:
            single = []
            for _ in range(args.rounds):
                t0 = time.monotonic()
                subprocess.run([sys.executable, "-m", "grader.cli", "check", "lesson1", "--inventory", str(inv),
                                "--evidence", ev], capture_output=True, check=False)
                single.append(time.monotonic() - t0)
            rounds: list[float] = []
            stop = threading.Event()
            transport.CONNECTIONS_OPENED.clear()

            def on_round(rnd) -> None:
                rounds.append(rnd.seconds)
                if rnd.number >= args.rounds:
                    stop.set()

            t0 = time.monotonic()
            watch(inv, ["lesson1"], timeout_s=600, interval_s=0.0, evidence_dir=ev, on_round=on_round, stop=stop)
            whole = time.monotonic() - t0
            opened = dict(transport.CONNECTIONS_OPENED)
    finally:
        sim.down()
    s, r = statistics.median(single), statistics.median(rounds)
    print(f"single `check lesson1` (own process), s: {', '.join(f'{x:.2f}' for x in single)}; median {s:.2f}")
    print(f"watch rounds, s:                        {', '.join(f'{x:.2f}' for x in rounds)}; median {r:.2f} "
          f"(whole watch {whole:.2f} s, connection set-up included)")
    print(f"SSH connections the watch opened per node: {opened}")
    ratio = r / s
    ok = ratio <= TARGET_RATIO and all(n == 1 for n in opened.values())
    print(f"round / single = {ratio:.2f} (target <= {TARGET_RATIO}); {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
