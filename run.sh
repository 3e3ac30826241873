#!/usr/bin/env bash
# The main job: install, bring up the simulated two-Spark cluster, and check lesson 1 on it
# (with --serve: lessons 1 and 2, the second reading the running Ray and vLLM processes).
# Run as root on Debian/Ubuntu. Extra arguments go to `sim up` (e.g. --fault mtu-1500; --serve
# also installs the serving stack and serves a tiny model with vLLM across both nodes).
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/install.sh
lessons=(lesson1)
case " $* " in *" --serve"*) bash scripts/install-serve.sh; lessons=(lesson1 lesson2) ;; esac
inventory=$(.venv/bin/clusterlab sim up "$@")
echo "sim cluster up; inventory: $inventory"
exec .venv/bin/clusterlab check "${lessons[@]}" --inventory "$inventory" --evidence evidence
