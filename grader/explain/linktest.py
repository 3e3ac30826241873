"""Kinds that test the link end to end, for ``explain``: ``ping``, ``iperf3`` and ``dmesg-link`` (the kernel's word on
each ConnectX link). Judged by grader.judges.linktest. Registered on import by the package.
"""

from __future__ import annotations

import re

from ..judges.common import argv_is
from .core import KindSpec, register
from .readers import judge, parse_dmesg_links, parse_ping


register(KindSpec(
    name="ping", parse=parse_ping, summarise=judge("linktest", "summarise_ping"), programs=("ping", "ping4", "ping6"),
    line=re.compile(r"^PING\s|^\d++ bytes from |^From \S+ .*icmp_seq|^ping\d?: |^--- .* ping statistics ---"
                    r"|packets transmitted|^(?:rtt|round-trip) |^Request timeout for icmp_seq"),
    starts=re.compile(r"^PING\s"),
))


register(KindSpec(
    name="iperf3", parse=judge("linktest", "read_iperf3"), summarise=judge("linktest", "summarise_iperf3"),
    programs=("iperf3", "iperf"),  # iperf2 too
    # a row is `[  5]   0.00-1.00   sec ...`, `[  5] local ...` or `[ ID] Interval ...`: not any `[0] ...` (mpirun's
    # --tag-output rank tags put `[0] ` before every line of an NCCL log)
    line=re.compile(r"^\[\s*(?:\d+|SUM)\]\s+(?:\d+\.\d+-\s*\d+\.\d+\s+sec|local\s)|^\[\s*ID\]\s|^Connecting to host"
                    r"|^iperf Done|^- - - -|^iperf3?: (?:error|interrupt)"
                    r"|^Server listening on|^Accepted connection from|^Client connecting to \S+, (?:TCP|UDP) port \d"
                    # --debug's own lines (iperf 3.1-3.9): the banner, the control messages its JSON blocks follow
                    r"|^iperf 3\.\d+(?:\.\d+)?\s*$|^(?:send_parameters:|send_results|get_results|get_parameters:)$"
                    r"|^SO_SNDBUF is \d|^Starting Test: protocol: |^tcpi_snd_cwnd \d|^Time: \w{3}, \d"
                    r'|^"(?:bits_per_second|retransmits|snd_cwnd|rttvar|pmtu|start|end|seconds|bytes)":\s*[\d.]'),
    # the last: a piece of -J's intervals pasted without its opening brace (numbers only: no other JSON is read so)
    starts=re.compile(r"^Connecting to host|^Server listening on"), prelude=True, inner_json=True,
    matches_json=lambda v: isinstance(v, dict) and (bool({"start", "end", "intervals"} & v.keys())
                                                    or v.get("event") in ("start", "interval", "end", "error")),
))


register(KindSpec(
    name="dmesg-link", parse=parse_dmesg_links, summarise=judge("linktest", "summarise_dmesg"), programs=("dmesg", "journalctl"),
    matches_command=argv_is("dmesg"),
    line=re.compile(r"\bmlx5_core [0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d(?: [\w.-]+)?: (?:Link (?:up|down)"
                    r"|Port: \d+ Link |Port module event|[\d.]+ Gb/s available PCIe bandwidth|firmware version: \d"
                    r"|mlx5_pcie_event:)"
                    r"|\bcx7-pcie-hotplug\b"),
    counts_repeats=True,  # how often a link went down, and how it ended: never read as one copy
))
