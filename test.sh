#!/usr/bin/env bash
# The test suite: install (idempotent), then pytest. Run as root: tests build network namespaces.
# As root it also installs the serving stack (scripts/install-serve.sh: vLLM's CPU build and Ray,
# ~2 min and 3.7 GB the first time) so the serving tests run; CLUSTERLAB_NO_SERVE=1 skips that
# (tests/test_sim_serve.py then skips its live tests, saying why).
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/install.sh
if [ "$(id -u)" = 0 ] && [ "${CLUSTERLAB_NO_SERVE:-0}" != 1 ]; then
  bash scripts/install-serve.sh
fi
exec .venv/bin/python -m pytest tests -q "$@"
