"""The platform probe: what kind of machine each node is, and which machine it is.

Run on every node by every probed lesson (lesson 1, 2, 3) and by ``clusterlab loadtest`` (the
lab), so each evidence file shows the profile it claims instead of only naming it
(:mod:`grader.provenance` reads it). One fixed, read-only, bounded command; each part fails
quietly (``2>/dev/null``) and the command always exits 0, so a machine without ``nvidia-smi``
still answers. Its output, one ``key: value`` per line::

    nvidia_smi_exit: 0                       # nvidia-smi's exit status (127: not installed)
    gpu: NVIDIA GB10                         # one line per GPU nvidia-smi lists (at most 16)
    product: NVIDIA_DGX_Spark                # /sys/class/dmi/id/product_name (empty: none)
    sys_vendor: NVIDIA                       # /sys/class/dmi/id/sys_vendor
    sim_node: spark-a                        # /etc/clusterlab-sim-node: only `clusterlab sim up` writes it
    machine_id_sha256: 3f...                 # sha256 of "clusterlab:" + /etc/machine-id

Never the raw machine-id: machine-id(5) asks that it not be exposed and that an application hash it
with a fixed key of its own, hence the ``clusterlab:`` prefix (check it on the machine with
``{ printf clusterlab:; cat /etc/machine-id; } | sha256sum``). The node's SSH host key, as the
transport verified it against known_hosts, goes into the evidence's provenance
(:func:`record_host_keys`), not into a raw output.
"""

from __future__ import annotations

from grader.evidence import Evidence
from grader.probes import Probe
from grader.transport import Connection

SIM_MARKER = "/etc/clusterlab-sim-node"
"""A file only the sim's nodes have (in each node's own /etc, grader/sim/cluster.py), holding the node's name."""

MACHINE_ID_KEY = "clusterlab:"
"""Prefixed to /etc/machine-id before hashing: an application-specific hash, as machine-id(5) asks."""

MAX_GPUS = 16

PLATFORM = (
    "g=$(timeout 5 nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null); echo \"nvidia_smi_exit: $?\"; "
    f"printf '%s\\n' \"$g\" | head -n {MAX_GPUS} | sed -n 's/^[[:space:]]*\\(..*\\)$/gpu: \\1/p'; "
    "echo \"product: $(head -n 1 /sys/class/dmi/id/product_name 2>/dev/null | cut -b 1-128)\"; "
    "echo \"sys_vendor: $(head -n 1 /sys/class/dmi/id/sys_vendor 2>/dev/null | cut -b 1-128)\"; "
    f"echo \"sim_node: $(head -n 1 {SIM_MARKER} 2>/dev/null | cut -b 1-64)\"; "
    "if [ -s /etc/machine-id ]; then echo \"machine_id_sha256: "
    f"$({{ printf '{MACHINE_ID_KEY}'; cat /etc/machine-id; }} 2>/dev/null | sha256sum | cut -d ' ' -f 1)\"; fi; true"
)
"""The platform probe's command (POSIX sh). nvidia-smi runs under its own 5 s ``timeout`` (half the
inventory's default command timeout) so a hung driver does not cost the rest of the output."""

PROBE = Probe("platform", PLATFORM)


def record_host_keys(ev: Evidence, conns: dict[str, Connection]) -> None:
    """Put each connected node's verified SSH host key into ``ev.provenance["nodes"][node]``:
    ``host_key`` (``SHA256:...``, OpenSSH's fingerprint format) and ``host_key_type`` (``ssh-ed25519``...).
    Other keys of that node's entry (``sysinfo``) are kept."""
    nodes = ev.provenance.setdefault("nodes", {})
    for name, conn in conns.items():
        fp = getattr(conn, "host_key", None)
        if fp:
            entry = nodes.setdefault(name, {})
            entry["host_key"] = fp
            entry["host_key_type"] = getattr(conn, "host_key_type", None)
