#!/usr/bin/python3
"""``netplan apply`` for the simulated nodes, which have no systemd to hand the configuration to.

A real ``netplan apply`` renders /etc/netplan/*.yaml for systemd-networkd and restarts it. The nodes run
no systemd, so the sim does the nearest faithful thing: netplan.io's own parser reads and validates the
files (``netplan generate``: the same errors, line and column, a real Spark prints, and its warning on files
others can read), its merged result comes from ``netplan get all``, and this script sets each listed
ethernet with ``ip`` as networkd would: the MTU when the file names one, exactly the listed addresses (an
address the file no longer lists is removed, link-local IPv6 kept), the link up. An interface this script
configured before and the files no longer list loses its addresses. It says on every run that it is the
sim's. ``--boot`` is what a node's start (``sim reboot``) runs: the same, quietly; ``--record`` is ``sim up``'s, whose
nodes start in the built state as if their files had been applied at boot: it only notes the interfaces the files
configure (so that one dropped from them later loses its addresses, as after a real boot), changing nothing.

Installed by ``sim up`` beside a ``netplan`` wrapper in each node's /usr/local/sbin (see :func:`wrapper`);
every other subcommand (``get``, ``set``, ``generate``, ``try``...) goes to the real /usr/sbin/netplan.
Standard library plus PyYAML (python3-yaml, which netplan.io depends on): it runs under the system's Python.
:func:`plan` is pure, for tests.
"""

import ipaddress
import json
import subprocess
import sys

NETPLAN = "/usr/sbin/netplan"
STATE = "/run/clusterlab-netplan.json"
"""The interfaces the last apply configured (the node's /run: a reboot forgets them, as networkd's state)."""
BANNER = ("netplan apply (clusterlab sim): parsed by netplan.io, applied with ip as systemd-networkd would "
          "(the nodes run no systemd)")


def wrapper(applier: str) -> str:
    """The ``netplan`` command of a node: ``apply`` runs ``applier`` (this file), the rest the real netplan."""
    return f"""#!/bin/sh
# netplan of the clusterlab sim: 'apply' is the sim's (grader/sim/netplan_sim.py), the rest is netplan.io's
if [ ! -x {NETPLAN} ]; then
    echo "netplan: netplan.io is not installed on this host (apt-get install netplan.io, or bash scripts/install.sh)" >&2
    exit 1
fi
if [ "$1" = apply ]; then shift; exec /usr/bin/python3 -I {applier} "$@"; fi
exec {NETPLAN} "$@"
"""


def plan(ethernets: dict, live: list, before: list) -> tuple[list[str], list[str]]:
    """``ip -batch`` lines that make the live interfaces match netplan's merged ``ethernets`` map, and what
    they do, one sentence per interface.

    ``live``: ``ip -j addr show``'s list; ``before``: the interfaces the previous apply configured.
    Interfaces the files name that do not exist are reported, not configured (networkd waits for them).
    """
    by_name = {link.get("ifname"): link for link in live}
    cmds: list[str] = []
    said: list[str] = []
    for name, conf in sorted((ethernets or {}).items()):
        conf = conf or {}
        link = by_name.get(name)
        if link is None:
            said.append(f"{name}: not present on this node; nothing applied")
            continue
        want = []
        for a in conf.get("addresses") or []:
            a = next(iter(a)) if isinstance(a, dict) else str(a)  # `- 10.0.0.1/24: {label: x}` form
            want.append(str(ipaddress.ip_interface(a)))
        have = [f"{i['local']}/{i['prefixlen']}" for i in link.get("addr_info", [])
                if not (i.get("family") == "inet6" and i.get("scope") == "link")]
        mtu = conf.get("mtu")
        if mtu is not None and int(mtu) != link.get("mtu"):
            cmds.append(f"link set dev {name} mtu {int(mtu)}")
        cmds.append(f"link set dev {name} up")
        for a in have:
            if a not in want:
                cmds.append(f"addr del {a} dev {name}")
        for a in want:
            if a not in have:
                cmds.append(f"addr add {a} dev {name}")
        parts = [f"mtu {mtu}" if mtu is not None else f"mtu {link.get('mtu')} (no mtu key: left as it is)"]
        parts.append(", ".join(want) if want else "no addresses")
        if conf.get("dhcp4") in (True, "true", "yes"):
            parts.append("dhcp4 is not simulated")
        said.append(f"{name}: " + "; ".join(parts))
    for name in before:
        if name not in (ethernets or {}) and name in by_name:
            cmds.append(f"addr flush dev {name} scope global")
            said.append(f"{name}: no longer in /etc/netplan: its addresses removed")
    return cmds, said


def _run(argv: list, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def _record() -> int:
    """``--record``: note the ethernets the node's /etc/netplan files name as configured (read with PyYAML, not
    netplan: a node's start stays quick), changing nothing."""
    import glob
    import yaml
    names = set()
    for path in sorted(glob.glob("/etc/netplan/*.yaml")):
        try:
            with open(path, encoding="utf-8") as f:
                network = (yaml.safe_load(f) or {}).get("network") or {}
            names |= set(network.get("ethernets") or {})
        except (OSError, ValueError, yaml.YAMLError, AttributeError):
            continue  # an unreadable file configures nothing; `netplan apply` says why
    with open(STATE, "w", encoding="utf-8") as f:
        json.dump(sorted(map(str, names)), f)
    return 0


def main(argv: list) -> int:
    if "--record" in argv:  # `sim up` of a built state: the files count as applied, nothing is changed
        return _record()
    boot = "--boot" in argv
    gen = _run([NETPLAN, "generate"])
    if gen.returncode != 0:
        sys.stderr.write(gen.stderr or gen.stdout)
        return gen.returncode
    if gen.stderr and not boot:  # netplan's warnings, e.g. a file others can read
        sys.stderr.write(gen.stderr)
    import yaml  # python3-yaml: netplan.io depends on it

    got = _run([NETPLAN, "get", "all"])
    if got.returncode != 0:
        sys.stderr.write(got.stderr)
        return got.returncode
    network = (yaml.safe_load(got.stdout) or {}).get("network") or {}
    live = json.loads(_run(["ip", "-j", "addr", "show"]).stdout or "[]")
    try:
        with open(STATE, encoding="utf-8") as f:
            before = json.load(f)
    except (OSError, ValueError):
        before = []
    cmds, said = plan(network.get("ethernets") or {}, live, before)
    if cmds:
        p = _run(["ip", "-force", "-batch", "-"], input="\n".join(cmds) + "\n")
        if p.returncode != 0:
            sys.stderr.write(p.stderr)
    with open(STATE, "w", encoding="utf-8") as f:
        json.dump(sorted(n for n in (network.get("ethernets") or {})), f)
    if not boot:
        print(BANNER)
        for line in said:
            print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
