#!/usr/bin/env bash
# The main job: install, bring up the simulated two-Spark cluster, and check lesson 1 on it.
# Run as root on Debian/Ubuntu. Extra arguments go to `sim up` (e.g. --fault mtu-1500; --serve
# also installs the serving stack and serves a tiny model with vLLM across both nodes).
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/install.sh
case " $* " in *" --serve"*) bash scripts/install-serve.sh ;; esac
inventory=$(.venv/bin/clusterlab sim up "$@")
echo "sim cluster up; inventory: $inventory"
exec .venv/bin/clusterlab check lesson1 --inventory "$inventory" --evidence evidence
