#!/usr/bin/env bash
# Regenerate the learners' notebooks (labs/, nbgrader's release folder) from solutions/ (its source).
#
#   bash scripts/generate_labs.sh            # rewrite labs/ in this checkout (commit the result)
#   bash scripts/generate_labs.sh OUT_DIR    # write the release into OUT_DIR instead (the sync test)
#
# One `nbgrader generate_assignment <name> --force` per folder solutions/<name>/ holding
# <name>.ipynb. Each release folder is removed first, so a file deleted from solutions/ disappears
# from labs/ too, and a labs/<name>/ without a solutions/<name>/ is removed. nbgrader's gradebook
# goes to a scratch $CLUSTERLAB_COURSE_DIR (deleted at the end): nothing of nbgrader's lands in the
# repository. The output is deterministic (same sources, same bytes): nbgrader's cell checksums are
# hashes of the cells, and file modes are normalised to 644 (folders 755).
# Exit status: 0 done; 1 a notebook failed nbgrader's metadata validation (its log says which cell);
# 2 bad usage or nbgrader missing.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

if [ $# -gt 1 ]; then
  echo "usage: bash scripts/generate_labs.sh [OUT_DIR]  (default: labs/ of this checkout)" >&2
  exit 2
fi
OUT="${1:-$ROOT/labs}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"

NBGRADER="$ROOT/.venv/bin/nbgrader"
[ -x "$NBGRADER" ] || NBGRADER="$(command -v nbgrader || true)"
if [ -z "$NBGRADER" ]; then
  echo "generate_labs: nbgrader not found: run \`bash scripts/install.sh\` (it installs the notebook extra into .venv)" >&2
  exit 2
fi

# nbgrader runs `alembic` (its gradebook migrations) from PATH: the one beside it
export PATH="$(dirname "$NBGRADER"):$PATH"

SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/clusterlab-generate.XXXXXX")"
trap 'rm -rf "$SCRATCH"' EXIT
export CLUSTERLAB_COURSE_DIR="$SCRATCH/course"
# nbgrader and Jupyter write runtime and config files: keep them in the scratch folder too
export JUPYTER_RUNTIME_DIR="$SCRATCH/runtime" JUPYTER_DATA_DIR="$SCRATCH/data" IPYTHONDIR="$SCRATCH/ipython"
mkdir -p "$CLUSTERLAB_COURSE_DIR"  # nbgrader creates gradebook.db but not its folder

names=()
for nb in solutions/*/*.ipynb; do
  [ -e "$nb" ] || continue
  name="$(basename "$(dirname "$nb")")"
  [ "$(basename "$nb")" = "$name.ipynb" ] || continue
  names+=("$name")
done

# stale releases: a labs/<name>/ whose solutions/<name>/<name>.ipynb is gone
for dir in "$OUT"/*/; do
  [ -d "$dir" ] || continue
  name="$(basename "$dir")"
  if [ ! -f "solutions/$name/$name.ipynb" ]; then
    echo "generate_labs: removing stale $dir (no solutions/$name/$name.ipynb)"
    rm -rf "$dir"
  fi
done

for name in "${names[@]}"; do
  if [ -d "solutions/$name/evidence" ]; then
    echo "generate_labs: solutions/$name/evidence/ exists: evidence recorded in nbgrader's source folder would be released to" \
         "every learner and copied over their own at autograde. Move it out (e.g. to solutions/$name/recorded/) and run again." >&2
    exit 1
  fi
  rm -rf "${OUT:?}/$name"
  if ! "$NBGRADER" generate_assignment "$name" --force \
        --CourseDirectory.release_directory="$OUT" >"$SCRATCH/$name.log" 2>&1; then
    grep -v "^ " "$SCRATCH/$name.log" | tail -n 20 >&2
    echo "generate_labs: nbgrader could not generate $name (log above)" >&2
    exit 1
  fi
  find "$OUT/$name" \( -name .ipynb_checkpoints -o -name __pycache__ \) -prune -exec rm -rf {} +
  find "$OUT/$name" -type d -exec chmod 755 {} +
  find "$OUT/$name" -type f -exec chmod 644 {} +
  echo "generate_labs: $OUT/$name"
done
[ ${#names[@]} -gt 0 ] || echo "generate_labs: no notebooks in solutions/*/ (nothing to release)"
