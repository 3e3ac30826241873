#!/usr/bin/env bash
# Install what clusterlab needs on Debian/Ubuntu, as root: the system tools the simulated cluster
# and the probes use (apt), and the project in a virtual environment at .venv (pip).
# Idempotent: a second run installs nothing new.
set -euo pipefail
cd "$(dirname "$0")/.."

# netplan.io: the sim's nodes parse /etc/netplan with netplan's own parser (`netplan get`, `netplan generate`;
# `netplan apply` is the sim's, grader/sim/netplan_sim.py); sudo and openssl: the lessons' commands begin with sudo
# as on a Spark, and openssl sets the nodes' login password (`openssl passwd -6`)
APT_PKGS=(openssh-server openssh-client iperf3 iproute2 iputils-ping ethtool procps python3 python3-venv netplan.io sudo
          openssl)
need_apt=0
for tool in sshd ssh iperf3 ip ping ethtool tc pkill python3 netplan sudo openssl; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || need_apt=1
done
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need_apt=1
if [ "$need_apt" = 1 ]; then
  if [ "$(id -u)" != 0 ]; then echo "install.sh: run as root (apt-get install ${APT_PKGS[*]})" >&2; exit 2; fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${APT_PKGS[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test,notebook]'
# a JupyterLab from .venv shows learners the notebooks, not nbgrader's instructor tools (as on Binder);
# instructors: CLUSTERLAB_INSTRUCTOR=1 bash scripts/install.sh, or bash scripts/jupyter_tools.sh instructor
if [ "${CLUSTERLAB_INSTRUCTOR:-0}" = 1 ]; then
  bash scripts/jupyter_tools.sh instructor .venv/bin
else
  bash scripts/jupyter_tools.sh learner .venv/bin
fi
echo "installed: $(.venv/bin/clusterlab --version) in $(pwd)/.venv"
