#!/usr/bin/env bash
# The test suite: install (idempotent), then pytest. Run as root: tests build network namespaces.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/install.sh
exec .venv/bin/python -m pytest tests -q "$@"
