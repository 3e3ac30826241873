#!/usr/bin/env bash
# The main job: install, bring up the simulated two-Spark cluster, and check lesson 1 on it
# (with --serve: lessons 1 and 2, the second reading the running Ray and vLLM processes).
# Run as root on Debian/Ubuntu. Extra arguments go to `sim up` (e.g. --fault mtu-1500; --serve
# also installs the serving stack and serves a tiny model with vLLM across both nodes).
# With no arguments the sim starts where a learner starts (lesson 1's start: no addresses, MTU 1500, no SSH
# trust), the check shows what is left to do, then the answer key (`clusterlab solve lesson1`) does the
# steps and the check runs again: a learner does those steps in the nodes instead.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/install.sh
# one sim per machine: wait while a test run or a recording holds the sim lock (tests/conftest.py SIM_LOCK)
exec 9>>/tmp/clusterlab-sim.lock
flock -n 9 || { echo "waiting for /tmp/clusterlab-sim.lock (a test run or a recording is using the sim)"; flock 9; }
lessons=(lesson1)
case " $* " in *" --serve"*) bash scripts/install-serve.sh; lessons=(lesson1 lesson2) ;; esac
inventory=$(.venv/bin/clusterlab sim up "$@")
echo "sim cluster up; inventory: $inventory"
if [ $# -eq 0 ]; then
  echo
  echo "=== lesson 1's start, as a learner meets it: the check lists what is left to do ==="
  .venv/bin/clusterlab check lesson1 --inventory "$inventory" --evidence "$(mktemp -d)" || true
  echo
  echo "=== the answer key does lesson 1's steps (a learner types them in the nodes instead) ==="
  .venv/bin/clusterlab solve lesson1 --inventory "$inventory"
  echo
fi
exec .venv/bin/clusterlab check "${lessons[@]}" --inventory "$inventory" --evidence evidence
