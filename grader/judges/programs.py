"""What a shell's ``command not found`` means: which program is missing, and the package that brings it (for the
programs the course runs). Read by ``explain`` under a command whose output is that message, and for a part no kind
reads that starts with it.
"""

from __future__ import annotations

import re

from .model import Finding

NOT_FOUND_RE = re.compile(r"(?:^|:\s)(?:[\w.+/-]*/)?([\w.+-]+): (?:command )?not found\s*$|^Command '([\w.+-]+)' not found"
                          r"|^zsh: command not found: (?:[\w.+/-]*/)?([\w.+-]+)\s*$")
"""A shell's ``PROG: command not found`` (bash, also ``NAME: line N: PROG: ...`` and sudo's ``sudo: ./PROG: ...``),
dash's ``PROG: not found``, zsh's ``zsh: command not found: PROG``, Ubuntu's ``Command 'PROG' not found``."""
PIP_OF = {"vllm": "vllm", "huggingface-cli": "huggingface_hub", "hf": "huggingface_hub", "nvitop": "nvitop"}
"""Programs that come from pip, not apt: installed in the Python environment (or container) that runs them."""

PACKAGE_OF = {"avahi-browse": "avahi-utils", "iperf3": "iperf3", "ethtool": "ethtool", "ibv_devinfo": "ibverbs-utils",
              "ibv_devices": "ibverbs-utils", "ibstat": "infiniband-diags", "ibstatus": "infiniband-diags", "mpirun": "openmpi-bin",
              "netplan": "netplan.io", "rsync": "rsync", "ib_write_bw": "perftest", "ib_write_lat": "perftest",
              "ib_send_bw": "perftest", "ib_read_bw": "perftest", "ifconfig": "net-tools", "ip": "iproute2",
              "rdma": "iproute2", "ping": "iputils-ping", "lspci": "pciutils", "lsmod": "kmod"}
"""Ubuntu's package for a program the course runs (DGX OS is Ubuntu), for a shell's ``command not found``; NVIDIA's
discover-sparks needs avahi-browse to find the other Spark. Ubuntu moved ``ifconfig`` to net-tools
(https://github.com/rocket-pool/old.docs.rocketpool.net/pull/93)."""


def not_found_program(line: str) -> str | None:
    """The program a shell says it could not find in ``line`` (:data:`NOT_FOUND_RE`), or None."""
    gone = NOT_FOUND_RE.search(line) if "not found" in line else None
    return (gone.group(1) or gone.group(2) or gone.group(3)) if gone else None


def not_installed(line: str) -> Finding | None:
    """A fail naming the program a shell could not find in ``line`` (and its package, for the course's programs),
    or None when ``line`` is not such a message."""
    prog = not_found_program(line)
    if prog is None:
        return None
    if prog == "nvidia-smi":  # the driver's tool: a container is given it with the GPUs
        return Finding("fail", f"The shell found no program `nvidia-smi` (`{line[:160]}`): the NVIDIA driver's "
                               "utilities are not here. On the host, install the driver; in a container, start it with "
                               "the GPUs (`docker run --gpus all`, the NVIDIA Container Toolkit), which brings them.")
    pkg = f"`sudo apt install {PACKAGE_OF[prog]}`" if prog in PACKAGE_OF else \
        f"`pip install {PIP_OF[prog]}` in the environment (or container) that runs it" if prog in PIP_OF else \
        "install its package (`apt-file search` names it) or put its folder on PATH"
    return Finding("fail", f"The shell found no program `{prog}` (`{line[:160]}`): it is not installed here, or not "
                           f"on PATH: {pkg}, then run the command again.")
