"""Parser for ``getent hosts NAME``: how a node resolves its peer's name."""

from __future__ import annotations

import ipaddress


def parse_getent_hosts(text: str) -> str | None:
    """The first address ``getent hosts NAME`` printed (``"192.168.100.11  spark-b"`` -> ``"192.168.100.11"``).

    Returns None when the name did not resolve (getent prints nothing and exits 2). Lines that
    do not start with an IP address (prompts, noise) are skipped; never raises.
    """
    for line in text.splitlines():
        first = line.split()[0] if line.split() else ""
        try:
            return str(ipaddress.ip_address(first))
        except ValueError:
            continue
    return None
