#!/usr/bin/env bash
# Record the replay evidence shipped with the labs again (solutions/<lesson>/recorded/<lesson>.json),
# register the machines' identities (checks/replays.toml) and regenerate labs/. Run as root after
# scripts/install.sh and scripts/install-serve.sh, with the sim free, whenever the evidence schema, a
# lesson's probes or the facts code change (~4 min). It brings the sim up three times and leaves it down.
# Evidence saved into a folder named `recorded` is marked as a replay (it earns nothing when handed in).
set -euo pipefail
cd "$(dirname "$0")/.."
cl=.venv/bin/clusterlab
inv=/var/lib/clusterlab/sim/inventory.toml
trap '$cl sim down >/dev/null 2>&1 || true' EXIT

$cl sim up >/dev/null
$cl solve lesson1 >/dev/null                  # `sim up` is lesson 1's start: the answer key finishes it
$cl check lesson1 --inventory "$inv" --evidence solutions/lesson1/recorded >/dev/null || true  # replay: exit 1
$cl check lesson3 --inventory "$inv" --evidence solutions/lesson3/recorded >/dev/null || true  # replay: exit 1

$cl sim up --serve ray >/dev/null
$cl check lesson2 --inventory "$inv" --evidence solutions/lesson2/recorded >/dev/null || true  # replay: exit 1
rm -f solutions/lab/recorded/lab.json
$cl loadtest --inventory "$inv" --concurrency 1,4 --input-len 32 --output-len 16 --num-prompts 8 --evidence solutions/lab/recorded >/dev/null || true  # pair
$cl sim up --serve single >/dev/null
$cl loadtest --inventory "$inv" --concurrency 1,4 --input-len 32 --output-len 16 --num-prompts 8 --evidence solutions/lab/recorded >/dev/null || true  # baseline
rm -f solutions/lab/recorded/*.png

.venv/bin/python scripts/register_replays.py
bash scripts/generate_labs.sh
