#!/usr/bin/env bash
# Which of nbgrader's tools a JupyterLab run from this environment shows.
#
#   bash scripts/jupyter_tools.sh learner [BIN_DIR]      # hide the instructor's tools (the default install)
#   bash scripts/jupyter_tools.sh instructor [BIN_DIR]   # show them again
#
# learner: nbgrader's formgrader, "Create Assignment" sidebar, course list, exchange-based
# assignment list and its Nbgrader menu are switched off at the environment (sys-prefix) level, which takes precedence
# over ~/.jupyter inside a virtual environment; "Validate" stays (it runs the visible tests of the
# learner's notebook). The nbgrader command line (generate_assignment, autograde, ...) is not
# affected. BIN_DIR: where `jupyter` lives (default: this checkout's .venv/bin, else PATH).
# binder/postBuild and scripts/install.sh call it with `learner`.
set -euo pipefail
mode="${1:-}"
case "$mode" in
  learner) verb=disable ;;
  instructor) verb=enable ;;
  *) echo "usage: bash scripts/jupyter_tools.sh learner|instructor [BIN_DIR]" >&2; exit 2 ;;
esac
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${2:-$ROOT/.venv/bin}"
JUPYTER="$BIN/jupyter"
[ -x "$JUPYTER" ] || JUPYTER="$(command -v jupyter || true)"
if [ -z "$JUPYTER" ]; then
  echo "jupyter_tools: jupyter not found: run \`bash scripts/install.sh\` first" >&2
  exit 2
fi
# the lab plugins' ids as nbgrader 0.9's extension declares them (@jupyter/nbgrader:<name>; tests/test_course.py
# reads them from the installed bundle): "menu" is the Nbgrader menu (formgrader, course and assignment lists)
PLUGIN_PREFIX="@jupyter/nbgrader:"
PLUGINS="formgrader create-assignment course-list assignment-list menu"
SERVER_EXTENSIONS="formgrader course_list assignment_list"
labs=() servers=()
for plugin in $PLUGINS; do labs+=("$PLUGIN_PREFIX$plugin"); done
for ext in $SERVER_EXTENSIONS; do servers+=("nbgrader.server_extensions.$ext"); done
# one call each (each jupyter start costs seconds); their output is noise, their failure is not
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
"$JUPYTER" labextension "$verb" --level=sys_prefix "${labs[@]}" >"$log" 2>&1 \
  && "$JUPYTER" server extension "$verb" --sys-prefix "${servers[@]}" >>"$log" 2>&1 \
  || { echo "jupyter_tools: could not $verb nbgrader's instructor tools:" >&2; tail -n 5 "$log" >&2; exit 1; }
echo "jupyter_tools: nbgrader's instructor tools ${verb}d for $JUPYTER"
