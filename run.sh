#!/usr/bin/env bash
# The main job: install, bring up the simulated two-Spark cluster, and check lesson 1 on it.
# Run as root on Debian/Ubuntu. Extra arguments go to `sim up` (e.g. --fault mtu-1500).
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/install.sh
inventory=$(.venv/bin/clusterlab sim up "$@")
echo "sim cluster up; inventory: $inventory"
exec .venv/bin/clusterlab check lesson1 --inventory "$inventory" --evidence evidence
