#!/usr/bin/env bash
# The test suite: install (idempotent), then pytest. Run as root: tests build network namespaces.
# As root it also installs the serving stack (scripts/install-serve.sh: vLLM's CPU build and Ray,
# ~2 min and 3.7 GB the first time) so the serving tests run; CLUSTERLAB_NO_SERVE=1 skips that
# (tests/test_sim_serve.py then skips its live tests, saying why).
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/install.sh
# the browser test drives JupyterLab in Debian's Chromium through Playwright (no browser download)
if [ "$(id -u)" = 0 ] && ! command -v chromium >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null \
    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
fi
if [ "$(id -u)" = 0 ] && [ "${CLUSTERLAB_NO_SERVE:-0}" != 1 ]; then
  bash scripts/install-serve.sh
fi
exec .venv/bin/python -m pytest tests -q "$@"
