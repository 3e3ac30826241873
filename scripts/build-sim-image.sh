#!/usr/bin/env bash
# The container engine of the simulated cluster (`clusterlab sim up --serve ray --containers`) and its
# image, made on this machine from Debian's packages: no registry. Called by install-serve.sh; run as root.
#   - apt: podman, runc, debootstrap, and a real Docker CLI (docker.io) unless a `docker` is on PATH
#     (never podman-docker: its `docker` runs podman here and bypasses each node's own engine);
#   - a `docker` group (the learner's user is in it on a Spark);
#   - /etc/containers/containers.conf: runc (crun refuses this host's hybrid cgroups), cgroupfs, and no
#     default ulimits (podman's nofile/nproc defaults exceed this host's hard limits);
#   - the images clusterlab-sim-vllm:latest (Debian minbase + python3.11 + libnuma; the serving venv is
#     mounted read-only at run time; g++ and Python's headers for torch.compile's CPU kernels) and clusterlab-sim-vllm:noray (the same without Ray on PATH, as NGC
#     images since vLLM dropped its Ray dependency). Cached: rebuilt only when the recipe changes.
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE=clusterlab-sim-vllm
CACHE=${CLUSTERLAB_IMAGE_CACHE:-/var/cache/clusterlab}
SUITE=bookworm
MIRROR=${CLUSTERLAB_DEBIAN_MIRROR:-http://deb.debian.org/debian}
PKGS=python3.11,python3.11-dev,g++,libnuma1,procps,curl,ca-certificates
VENV=${CLUSTERLAB_SERVE_VENV:-/opt/clusterlab/serve-venv}
PATH_IN=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
recipe="suite=$SUITE pkgs=$PKGS venv=$VENV path=$PATH_IN v=2"
key=$(printf '%s' "$recipe" | sha256sum | cut -c1-16)

if [ "$(id -u)" != 0 ]; then echo "build-sim-image.sh: run as root" >&2; exit 2; fi
need=()
for t in podman runc debootstrap; do command -v "$t" >/dev/null 2>&1 || need+=("$t"); done
command -v docker >/dev/null 2>&1 || need+=(docker.io)
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # (docker.io's daemon is not used: each sim node runs its own `podman system service`)
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  case " ${need[*]} " in *" docker.io "*) (service docker stop; update-rc.d docker disable) >/dev/null 2>&1 || true;; esac
fi
getent group docker >/dev/null || groupadd --system docker

conf=/etc/containers/containers.conf
want_conf='# clusterlab: the sim nodes'"'"' podman (build-sim-image.sh)
[containers]
default_ulimits = []
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"'
if [ "$(cat "$conf" 2>/dev/null)" != "$want_conf" ]; then
  [ -f "$conf" ] && ! grep -q '^# clusterlab' "$conf" && cp "$conf" "$conf.before-clusterlab"
  mkdir -p /etc/containers; printf '%s\n' "$want_conf" >"$conf"
fi

stamp="$CACHE/image-$key"
if [ -f "$stamp" ] && podman image exists "$IMAGE:latest" && podman image exists "$IMAGE:noray"; then
  echo "image $IMAGE already built (recipe $key)"; exit 0
fi
t0=$(date +%s)
mkdir -p "$CACHE"
tar="$CACHE/rootfs-$key.tar"
if [ ! -s "$tar" ]; then
  root=$(mktemp -d "$CACHE/rootfs.XXXXXX"); trap 'rm -rf "$root"' EXIT
  debootstrap --variant=minbase --include="$PKGS" "$SUITE" "$root" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 \
    || { echo "build-sim-image.sh: debootstrap failed; see $CACHE/debootstrap.log" >&2; exit 1; }
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  mkdir -p "$root$VENV"
  tar -C "$root" -cf "$tar.part" . && mv "$tar.part" "$tar"
  rm -rf "$root"; trap - EXIT
fi
rm -f "$CACHE"/rootfs-*.tar.part
for old in "$CACHE"/rootfs-*.tar; do [ "$old" = "$tar" ] || rm -f "$old"; done
podman import -q --change "ENV PATH=$VENV/bin:$PATH_IN" --change 'ENV LANG=C.UTF-8' --change 'CMD ["/bin/bash"]' \
  "$tar" "$IMAGE:latest" >/dev/null
# without Ray: vLLM and Python on PATH through links, the venv's bin (ray) not
podman rm -f clusterlab-noray-build >/dev/null 2>&1 || true
podman run --name clusterlab-noray-build --network none -v "$VENV:$VENV:ro" "$IMAGE:latest" \
  sh -c "mkdir -p /opt/clusterlab/bin && for t in vllm python python3; do ln -s $VENV/bin/\$t /opt/clusterlab/bin/\$t; done" >/dev/null
podman commit -q --change "ENV PATH=/opt/clusterlab/bin:$PATH_IN" clusterlab-noray-build "$IMAGE:noray" >/dev/null
podman rm -f clusterlab-noray-build >/dev/null
rm -f "$CACHE"/image-*; echo "$recipe" >"$stamp"
echo "built $IMAGE:latest and :noray in $(( $(date +%s) - t0 )) s ($(podman image inspect -f '{{.Size}}' "$IMAGE:latest") bytes)"
