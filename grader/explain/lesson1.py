"""Lesson 1's kinds for ``explain``: ip addr, ip route get, ibdev2netdev, ethtool, a twin's PCIe link in sysfs,
netplan (ping and iperf3 are :mod:`.linktest`'s; two hosts' outputs compared, :mod:`.crosscheck`'s). Judged by
grader.judges.link, grader.judges.netplan and grader.judges.pcie.
"""

from __future__ import annotations

import re

from ..judges.common import argv_is, argv_words, is_module_info
from .core import KindSpec, register, register_cross_check
from .readers import (judge, parse_ethtool, parse_ethtool_stats, parse_ibdev2netdev, parse_ip_addr, parse_ip_route_get_all,
                      parse_nmcli, parse_nmcli_show, parse_pcie_sysfs)


def _is_route_get(argv: list[str]) -> bool:
    """``ip [options] route get DST`` and abbreviations (``ip r g``); the table, ``ip route [show|list]``, too."""
    words = argv_words(argv)
    return argv_is("ip", "route")(argv) and (len(words) == 1 or any(v.startswith(words[1]) for v in ("get", "show", "list")))


_STATS = ("-S", "--statistics", "-a", "--show-pause")  # ethtool's counters and pause settings: ethtool-stats


register(KindSpec(
    name="ip-addr", parse=parse_ip_addr, summarise=judge("link", "summarise_ip_addr"), programs=("ip", "ifconfig"),
    matches_command=lambda argv: argv_is("ip", "address", "link")(argv) or argv_is("ifconfig")(argv),
    line=re.compile(r"^\d+:\s+\S+:\s+<|^\d+:\s+\S+\s+inet6?\s|^link/\S+|^inet6?\s|^valid_lft\s|^altname\s|^Device \".*\" does not exist"
                    r"|^[^\s:]++(?::\d{1,4})?:\s+flags=\d+<|^[^\s:]++(?::\d{1,4})?\s+Link encap:"  # ifconfig's
                    r"|^\S++\s+(?:UP|DOWN|UNKNOWN|LOWERLAYERDOWN|DORMANT|NOTPRESENT|TESTING)(?:\s|$)"),
    # `rdma -j link` objects also have "ifname": they carry "physical_state", ip's never do
    matches_json=lambda v: isinstance(v, list) and bool(v) and all(
        isinstance(x, dict) and "ifname" in x and "physical_state" not in x for x in v),
))


register(KindSpec(
    name="ip-route-get", parse=parse_ip_route_get_all, summarise=judge("link", "summarise_route"), programs=("ip",),
    matches_command=_is_route_get,
    line=re.compile(r"^(?:local\s+|broadcast\s+)?(?:default|[0-9a-fA-F.:]++(?:/\d{1,3})?)(?:\s+from\s+\S+)?(?:\s+via\s+\S+)?\s+dev\s+\S+"
                    r"|^cache\b|^RTNETLINK answers:"),
    starts=re.compile(r"^(?:default\s|[0-9a-fA-F.:]+(?:/\d{1,3})?\s)"), starts_on_repeat=True,  # a table's lines
    matches_json=lambda v: isinstance(v, list) and bool(v) and all(
        isinstance(x, dict) and "dev" in x and "/" not in str(x.get("dst", "/")) and x.get("dst") != "default"
        for x in v),
))


register(KindSpec(
    name="ibdev2netdev", parse=parse_ibdev2netdev, summarise=judge("link", "summarise_ibdev"), programs=("ibdev2netdev",),
    line=re.compile(r"\sport\s+\d+.*==>"),
))


register(KindSpec(
    name="ethtool-stats", parse=parse_ethtool_stats, summarise=judge("nic_stats", "summarise_stats"),
    programs=("ethtool",), matches_command=lambda argv: argv_is("ethtool")(argv) and any(a in _STATS for a in argv[1:]),
    line=re.compile(r"^NIC statistics:$|^Pause parameters for \S+:$"),
    starts=re.compile(r"^NIC statistics:$|^Pause parameters for "),
))

register(KindSpec(
    name="ethtool", parse=parse_ethtool, summarise=judge("link", "summarise_ethtool"), programs=("ethtool",),
    matches_command=lambda argv: argv_is("ethtool")(argv) and not is_module_info(argv)
    and not any(a in _STATS for a in argv[1:]),
    line=re.compile(r"^(?:Settings|FEC parameters) for \S+:$|^(?:Active FEC encoding|(?:Supported/)?Configured FEC "
                    r"encodings):|^(?:Speed|Duplex|Auto-negotiation|Link detected|Port|PHYAD|"
                    r"Transceiver|MDI-X|Lanes|Wake-on|Current message level|Supported [\w -]+|"
                    r"Advertised [\w -]+|Link partner [\w -]+|Supports [\w -]+):|^netlink error:"
                    r"|^Cannot get device settings|^driver: [\w.-]{1,40}$|^firmware-version: "),  # (and -i's)
    starts=re.compile(r"^(?:Settings|FEC parameters) for |^driver: [\w.-]{1,40}$"),
))


register(KindSpec(
    name="pcie-sysfs", parse=parse_pcie_sysfs, summarise=judge("pcie", "summarise_pcie"),
    matches_command=lambda argv: any("_link_" in a and a.startswith("/sys/") for a in argv),
    line=re.compile(r"^/sys/(?:class/(?:net|infiniband)/[^/\s]+/device|bus/pci/devices/[^/\s]+|devices/pci\S+)"
                    r"/(?:current|max)_link_(?:speed|width):"
                    r"|^==> /sys/\S+/(?:current|max)_link_(?:speed|width) <==$"
                    r"|^grep: /sys/class/net/[^/\s]+/device/\S*_link_\S*: No such file or directory$"),
))


register(KindSpec(
    name="netplan", parse=judge("netplan", "read_netplan"), summarise=judge("netplan", "summarise_netplan"), programs=("netplan",),
    matches_command=lambda argv: bool(argv) and (
        (argv[0] in ("cat", "less", "more", "head", "tail", "bat", "batcat")
         and any("netplan" in a or a.endswith((".yaml", ".yml")) for a in argv[1:]))
        or argv[:2] == ["netplan", "get"]),
    block_start=re.compile(r"^\s*network:\s*$"),
))


def _nmcli_table(argv: list[str]) -> bool:
    """``nmcli [options] device|connection [status|show] [--active]``: the tables (a named profile's or device's
    ``show`` prints properties, another shape)."""
    words = [a for i, a in enumerate(argv[1:], 1) if not a.startswith("-") and argv[i - 1] not in (
        "-f", "--fields", "-m", "--mode", "-c", "--colors", "-e", "--escape", "-w", "--wait", "-g", "--get-values")]
    return argv[:1] == ["nmcli"] and bool(words) and ("device".startswith(words[0]) or "connection".startswith(words[0])) \
        and (len(words) == 1 or len(words) == 2 and words[1] in ("s", "st", "status", "sh", "show"))


register(KindSpec(
    name="nmcli-show", parse=parse_nmcli_show, summarise=judge("nmcli", "summarise_nmcli_show"), programs=("nmcli",),
    matches_command=lambda argv: argv[:1] == ["nmcli"] and "show" in argv and not _nmcli_table(argv),
    line=re.compile(r"^\s{0,4}(?:connection|ipv4|ipv6|802-3-ethernet|GENERAL|IP4|IP6)\.[\w-]{1,40}(?:\[\d{1,3}\])?:(?:\s|$)"),
    starts=re.compile(r"^\s{0,4}(?:connection\.id|GENERAL\.DEVICE):"),
))


register(KindSpec(
    name="nmcli", parse=parse_nmcli, summarise=judge("nmcli", "summarise_nmcli"), programs=("nmcli",),
    matches_command=_nmcli_table,
    line=re.compile(r"^DEVICE {2,40}TYPE {2,40}STATE {2,40}CONNECTION\b|^NAME {2,40}UUID {2,40}TYPE {2,40}DEVICE\b"),
    starts=re.compile(r"^(?:DEVICE|NAME) {2,40}(?:TYPE|UUID) {2,40}"),
))


register_cross_check(judge("pcie", "connectx_links"), kinds=('lspci',))
