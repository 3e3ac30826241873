"""Judge of the outputs that test a link end to end: ``ping`` (reachability, jumbo frames with ``-M do``), ``iperf3``
(TCP throughput against the Spark's bar or, on another host, the standard Ethernet rates of checks/specs/ethernet.toml;
its errors; a server waiting for its client) and the kernel's link messages (``dmesg``: cable plugged, link up or
down, flapping).

Sources: docs/research/procedure.md §1-2 and docs/research/figures.md §2.4: NVIDIA's connect-two-sparks playbook,
catharsis.net.au (iperf3 96.2 Gbit/s with -P 16) and the NVIDIA developer forum (~110 Gbit/s per lane, 8 streams,
MTU 9000); the pass bar is checks/ranges.toml's spark-pair tcp_gbps (L1.tcp).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
from typing import Any

from ..parsers.common import command_argv, option_value
from ..parsers.iperf3 import parse_iperf3
from .iperf3_shapes import (ethernet, few_retransmits, iperf2_words, lossy_flow, streams_words, repeated_stalls, same_udp_loss, separate_tests,
                            server_sender_zero, slow_direction_retransmits, small_window, unknown_host_rate,
                            window_bound)
from ..spark_names import HOUSE_INTERFACE, QSFP_TWINS, is_qsfp_twin, qsfp_port
from .common import (JUMBO_MTU, JUMBO_PAYLOAD, LINE_GBPS, LINK_MBPS, fail, info, is_loopback, ok, on_spark,
                     spark_figure, warn)
from .context import spark_shown
from .model import Finding, Summary
from .ping_notes import local_refusal, own_address


TCP_PASS_GBPS = spark_figure("tcp_gbps")
"""checks/ranges.toml [spark-pair.tcp_gbps] min: the rate L1.tcp passes (NVIDIA's per-rail bar)."""
IPERF_FIGURES = ("96.2 Gbit/s with iperf3 -P 16 (catharsis.net.au) and ~110 Gbit/s per lane with "
                 f"8 streams at MTU {JUMBO_MTU} (NVIDIA developer forum)")


# --------------------------------------------------------------------------- ping

def _df_flag(command: str | None, windows: bool = False) -> bool | None:
    """True if the ping command forbids fragmenting (-M do, macOS -D, Windows' -f); None if unknown."""
    argv = command_argv(command)
    if not argv or not argv[0].startswith("ping"):
        return None
    joined = " ".join(argv[1:])
    return bool(re.search(r"-M\s*do\b|(?:^|\s)-D\b|(?:^|\s)(?:do-not-fragment|df-bit)\b"  # (VyOS', Cisco's words)
                          + (r"|(?:^|\s)-f\b" if windows else ""), joined))


def _ping_payload(command: str | None) -> int | None:
    """The ``-s`` payload of a ping command line (``-s 8972`` or ``-s8972``), None when it has none."""
    argv = command_argv(command)
    m = re.search(r"(?:^| )(?:-s ?|size )(\d+)(?: |$)", " ".join(argv[1:])) if argv and argv[0].startswith("ping") else None
    return int(m.group(1)) if m else None


def _counted(r: Any) -> str:
    """``3 of 3``; where the statistics lines are not in the paste, the replies shown (``1 reply shown``)."""
    return f"{r.received} of {r.transmitted}" if r.transmitted is not None else \
        f"{r.received} repl{'y' if r.received == 1 else 'ies'} shown"


def summarise_ping(r: Any, command: str | None) -> Summary:
    df = _df_flag(command, r.windows) if command else (True if r.windows and any(
        "needs to be fragmented" in e for e in r.errors) else None)  # Windows says DF itself when it refuses
    facts = dict(dataclasses.asdict(r), ok=r.ok, mtu_error=r.mtu_error, path_mtu=r.path_mtu,
                 dont_fragment=df)
    facts["rtt_times"] = len(r.rtt_times)  # how many replies gave a time (a long ping's list would swell the JSON)
    argv = command_argv(command)
    named = next((a for a in reversed(argv[1:]) if not a.startswith("-") and not a.isdigit()), None) \
        if argv and argv[0].startswith("ping") else None  # the host the command names (no PING line pasted)
    dest = r.destination or named or "the peer"
    # the PING line says the payload; a paste that starts at the replies leaves the command's -s to say it
    payload = r.payload_bytes or _ping_payload(command)
    size = (payload or 0) + 28
    avg = f", avg {r.rtt_avg_ms} ms" if r.rtt_avg_ms is not None else ""
    errors = " ".join(r.errors).lower()
    findings = []
    if "network is unreachable" in errors:
        findings.append(fail(f"No route to {dest}: it is not in the subnet of any interface that is up. "
                             f"Check `ip addr` (the twin needs an address in the peer's /24) and "
                             f"`ip route get {dest}`."))
    elif "name or service not known" in errors or "unknown host" in errors or "name resolution" in errors:
        findings.append(fail(f"{dest} does not resolve: use the peer's IP address, or add it to /etc/hosts."))
    elif "host unreachable" in errors:
        spark = on_spark(None) is not False  # a Spark, or not said: the cabled port is the usual cause there
        findings.append(fail(f"{dest} did not answer (Destination Host Unreachable): this host's ARP (neighbour) "
                             f"requests for it, or for the gateway on the way, got no reply, so nothing at that "
                             "address answers on the link: the peer is down, has another address or sits in "
                             "another subnet, or " + ("the cable is in a different port. Check `ip addr` on both ends "
                             f"(the same /24), `ip neigh show {r.destination or '<peer address>'}` here, and `ibdev2netdev` on both Sparks."
                             if spark else "this host's own link dropped while it kept its address (a cable out, "
                             "a Wi-Fi association lost). Check `ip link` and `ip addr` here and on the peer (up, the "
                             f"same subnet) and `ip neigh show {r.destination or '<peer address>'}`; on Wi-Fi, reconnect.")))
    elif r.mtu_error:
        findings.append(_mtu_failure(r, dest, size if payload else None, command))
    elif r.ok and (mine := own_address(r, command)):  # this host's own address: its kernel answers, not a link
        findings.append(mine)
    elif r.ok and size >= JUMBO_MTU:
        how = " with fragmenting forbidden (-M do)" if df else ""
        findings.append(ok(f"Jumbo frames work end to end: {size}-byte packets reached {dest} and came back{how} "
                           f"({_counted(r)}{avg}{', no loss' if r.received == r.transmitted else ''})."))
        if df is None:
            findings.append(info("The command is not shown: this proves jumbo frames only if it was run "
                                 "with -M do (do not fragment)."))
    elif r.ok and df and payload:  # a probe of the path's MTU: packets of this size pass unfragmented
        findings.append(ok(f"{dest} answers {size}-byte packets with fragmenting forbidden ({_counted(r)}{avg}): the "
                           f"path's MTU is at least {size}."
                           + (f" For jumbo frames run `ping -c2 -M do -s {JUMBO_PAYLOAD} {dest}`."
                              if size < 1500 and on_spark(None) is not False else "")))
    elif r.ok:
        findings.append(ok(f"{dest} answers ({_counted(r)}{avg}): it is reachable over IP. This "
                           f"checks reachability only; for jumbo frames run `ping -c2 -M do -s {JUMBO_PAYLOAD} "
                           f"{dest}`."))
    elif r.received == 0 and df and payload and size - 1 in (1500, JUMBO_MTU) and on_spark(None) is False:
        # one byte over a usual MTU, off a Spark: a probe of the path's MTU (on a Spark pair at MTU 9000, silence at
        # 1501 bytes is a peer down or at 1500, judged below)
        findings.append(info(f"No reply to {size}-byte packets from {dest} with fragmenting forbidden: one byte over "
                             f"an MTU of {size - 1}, so a path of that MTU refuses them, as a probe of it expects. A "
                             f"`-s {size - 29}` ping that is answered shows the path carries {size - 1}."))
    elif r.received == 0 and size > 1500:
        unseen = r.truncated and not r.transmitted  # the paste stops at the PING line: nothing shown, nothing counted
        spark = on_spark(None) is not False
        why = (f"the far end's MTU is smaller than the packet (one Spark at {JUMBO_MTU}, the other at 1500): set MTU "
               f"{JUMBO_MTU} on both" if spark else "a hop's MTU is smaller than the packet (1500 is the usual): "
               + ("with -M do it cannot go" if df else "without -M do it goes as fragments, which the far end or a "
                  "firewall may drop") + "; keep the payload within the MTU (`-s 1472` for 1500) or raise the MTU "
               "on every hop")
        findings.append((warn if unseen else fail)(
            (f"No reply shown from {dest}: the output stops after its PING line ({size}-byte packets)." if unseen else
             f"No reply to {size}-byte packets from {dest}.") + f" If a plain `ping {dest}` gets replies, {why}. "
            "If not, the peer is unreachable."))
    elif r.received == 0:
        unseen = r.truncated and not r.transmitted
        check = (" the address is the peer's QSFP address, the cable is in the same port on both Sparks, and the peer "
                 "is up." if on_spark(None) is not False else " the address, that the peer is up, and that a firewall "
                 "lets ICMP through.")
        findings.append(warn(f"No reply shown from {dest}: the output stops after its PING line. If none comes, check"
                             + check) if unseen else fail(f"No reply from {dest}: check" + check))
    spread = _rtt_spread(r, dest)
    if spread:
        findings.append(spread)
    if r.loss_percent and 0 < r.loss_percent < 100:
        findings.append(warn(f"{r.loss_percent:g}% packet loss to {dest}: a loose cable or a flapping link; "
                             "reseat the cable and rerun with -c 20."))
    if r.truncated:
        findings.append(info("The ping output is cut off: the counts are from the lines shown."))
    return facts, findings


def _rtt_spread(r: Any, dest: str) -> Finding | None:
    """A note where the replies' round-trip times spread widely (checks/specs/ethernet.toml [ping]: the slowest over
    jitter_ratio times the fastest, and at least jitter_min_ms apart), else None."""
    from ..calc.specs import row
    low, high = r.rtt_min_ms, r.rtt_max_ms
    times = r.rtt_times
    if len(times) >= 3 and times[0] == max(times):  # a lone slow first reply: the neighbour's address being resolved
        low, high = min(times[1:]), max(times[1:])
    spec = row("ethernet.toml", "ping")
    if low is None or high is None or high - low < spec.graded("jitter_min_ms") \
            or high < spec.graded("jitter_ratio") * max(low, 0.001):
        return None
    return info(f"The replies' round-trip times vary widely ({low:g} to {high:g} ms): jitter, as on Wi-Fi (its power "
                "saving holds frames for the next beacon) or a busy path; a cable between two machines answers within "
                f"a fraction of a millisecond every time. Not a fault for reaching {dest}; to test a cable between "
                "two machines, ping the peer's address on that link (`ping -c 20 <address>`).")


def _is_global(address: str | None) -> bool:
    """Whether ``address`` is an IP address on the internet (not private, link-local, shared or documentation)."""
    try:
        return ipaddress.ip_address(address or "").is_global
    except ValueError:
        return False


def _mtu_failure(r: Any, dest: str, size: int | None, command: str | None = None) -> Finding:
    """A packet refused for its size with fragmenting forbidden. ``size`` (bytes on the wire) is None where neither
    the PING line nor the command shows it. A fault (fail) on a Spark, or where a jumbo packet was sent and the host
    is not said (this course's pair); elsewhere (another host, or one not said with no size shown) it depends on the
    MTU meant, so it is a warning."""
    mtu = r.path_mtu
    said = on_spark(None)
    df_flag, size_flag = ("-f", "-l") if r.windows else ("-M do", "-s")  # Windows' own flags
    spark = said or (said is None and size is not None and size > 1528)  # a jumbo packet sent where not said: a Spark's
    # this host's own interface refused a packet well over 1500 (`ping: local error`), and none passed: the MTU that the
    # test asks of this host is not set here, whatever the path's; a fault of what was tested, not a probe of the path
    own = bool(size and size > 1528 and not r.received and any(e.startswith("ping: local error") for e in r.errors))
    judge = fail if spark or own else warn
    packet = f"the {size}-byte packet" if size else "a packet larger than that"
    packets = f"{size}-byte packets" if size else "larger packets"
    meant = (f"Every hop (both Sparks, any switch) needs MTU {JUMBO_MTU} for jumbo frames." if spark else
             f"If jumbo frames are meant (MTU {JUMBO_MTU} on a Spark pair's twins), every hop needs that MTU; if "
             f"{mtu or 'this MTU'} is meant, keep the payload within it (`{size_flag} {(mtu or 1500) - 28}`: the MTU "
             "less 28 bytes of IP and ICMP headers).")
    payload = size - 28 if size else None  # (the size less the IP and ICMP headers: what -s or -l asked for)
    if payload and (payload == mtu or mtu is None and payload in (1500, JUMBO_MTU)):  # the MTU given as the payload
        return info(f"The {size}-byte packet was refused as it should be: its payload (`{size_flag} {payload}`) is "
                    f"the MTU itself, and the 28 bytes of IP and ICMP headers make the packet larger than an MTU of "
                    f"{payload}, which {df_flag} forbids fragmenting. Nothing is wrong with the link: the largest "
                    f"payload that fits is `{size_flag} {payload - 28}`.")
    router = next((e.split()[1] for e in r.errors if e.startswith("From ")), None)
    if router and any("frag needed" in e.lower() or "too big" in e.lower() for e in r.errors):
        if _is_global(r.destination):  # a path over the internet: its MTU is the provider's, and the router said it
            return info(f"{router} on the path to {dest}, an internet address, has MTU {mtu} and refused {packet} "
                        f"(Frag needed and DF set): path MTU discovery working over a WAN link, whose MTU is the "
                        f"provider's (`-s {(mtu or 1500) - 28}` fits it). It says nothing of a direct cable: test a "
                        "Spark pair's link with the peer's QSFP address.")
        return judge(f"{router} on the path has MTU {mtu} and refused {packet} (Frag needed and DF set): the packet "
                     f"is larger than the path's MTU. {meant}")
    at = f" ({mtu})" if mtu else ""
    seen = local_refusal(r, dest, command, size, spark)  # the paste's interfaces: the interface's MTU or the route's
    if seen and seen[0] != "interface":
        return judge(seen[1])
    if own and not spark:
        return fail(f"This host's own interface MTU{at} is too small for {packets} (`ping: local error`: it refused "
                    f"them itself), and {df_flag} forbids fragmenting them: the MTU this test needs is not set on "
                    f"this side. Raise it (and the peer's, and any hop's) to at least {size}, or, if {mtu or 1500} is "
                    f"meant, keep the payload within it (`{size_flag} {(mtu or 1500) - 28}`).")
    if not spark:
        return judge(f"The outgoing interface's MTU{at} is too small for {packets}, and {df_flag} forbids "
                     f"fragmenting them. {meant}")
    return judge(f"This Spark's outgoing interface MTU{at} is too small for {packets}, and -M do "
                 f"forbids fragmenting them: set `mtu: {JUMBO_MTU}` on the twins in netplan on BOTH Sparks and "
                 "run `sudo netplan apply` (or test MTU 1500 with -s 1472).")


# --------------------------------------------------------------------------- iperf3

_IPERF_ERROR_HINTS = (
    ("refused", "no iperf3 server is listening on the peer: start `iperf3 -s` on the other Spark first "
                "(same -p port)."),
    ("no route", "the peer's address is not reachable: check `ip addr` on both Sparks."),
    ("unreachable", "the peer's address is not reachable: check `ip addr` on both Sparks."),
    ("timed out", "no answer: wrong address, the peer is down, or a firewall blocks port 5201."),
    ("terminated", "the server stopped during the test: restart `iperf3 -s` and rerun."),
    ("closed unexpectedly", "the server stopped during the test: restart `iperf3 -s` and rerun."),
    ("busy", "the server is running another test: wait, or start a second server with another -p port."),
)


@dataclasses.dataclass(frozen=True)
class Iperf3Read:
    """An iperf3 output as explain reads it: parse_iperf3's summary (``result``) and the interval rows
    (``intervals``, :class:`~grader.parsers.iperf3.Iperf3Intervals`: each direction's rates, the Retr column)."""

    result: Any
    intervals: Any


def read_iperf3(text: str) -> Iperf3Read:
    """``text`` parsed: its summary (ParseError as parse_iperf3 raises it) and its interval rows."""
    from ..parsers.iperf3 import parse_iperf3_intervals
    return Iperf3Read(parse_iperf3(text), parse_iperf3_intervals(text))


def _against_ethernet(label: str, gbps: float, carried: float, retransmits: int | None, streams: str = "",
                      one_flow: bool = False, few: bool = False) -> Finding | None:
    """What ``gbps`` of TCP (one direction's mean) says of a link of unknown speed. The link carried ``carried`` (the
    mean, or the second-best interval where that is higher: one interval alone can read over the line rate, as a full
    1 GbE link's 1.01 Gbit/s did, or catch up after a stall), so it is at least the first standard rate at or above
    that. At 90% of its TCP ceiling or more the test filled it (info); between a standard rate and 90% of the next
    one's ceiling no Ethernet link runs full, so something else caps the test (warn, with what the Retr column says of
    loss); under the lowest rate it cannot tell (None). ``one_flow``: one TCP stream that lost next to nothing
    (:func:`_one_quiet_flow`): one flow on one CPU core rarely fills a link faster than 10 GbE, so there it is no fault
    (info); at 10 GbE or under one core keeps up. ``few``: the retransmissions are a negligible share of the segments
    (:func:`grader.judges.iperf3_shapes.few_retransmits`), said as such, not as losses on the way."""
    rates, share = ethernet()
    tier = next((g for g in rates if g >= carried), None)
    if tier is not None and gbps >= 0.9 * tier * (share or 1):
        of = f" ({share:.0%} of the line rate at MTU 1500)" if share else ""
        faster = [g for g in rates if g > tier]
        process = (f" If the path is faster ({faster[0]:g} GbE or more), one iperf3 process can be the limit at this "
                   "rate: before iperf3 3.16 all -P streams run in one thread, on one CPU core; run several iperf3 "
                   "processes on different ports (-p) and add their rates, or use iperf3 3.16 or later, before "
                   "suspecting the link." if faster and tier > 10 else "")
        return info(f"{label}It is about the TCP ceiling of a {tier:g} GbE link{of}: normal if the path is {tier:g} GbE."
                    + process)
    if tier is None or carried <= rates[0]:
        return None
    below = max(g for g in rates if g < tier)
    ceiling = f" (~{tier * share:.1f} Gbit/s of TCP)" if share else ""
    if one_flow and tier > 10:  # one core keeps up with 10 GbE
        return info(f"{label}{gbps:.2f} Gbit/s with one TCP stream and next to no retransmission: the link is at "
                    f"least {tier:g} GbE (~{tier * (share or 1):.1f} Gbit/s of TCP), and one flow, on one CPU core, "
                    "seldom fills a link that fast: the host sets this rate, not the link. Rerun with -P 8 (several "
                    "iperf3 processes before iperf3 3.16) to measure the link.")
    if retransmits == 0:
        cause = (" No retransmissions: nothing was lost on the way, so a host sets this ceiling: one stream's CPU core, "
                 "the NIC's PCIe link (`lspci -vv` LnkSta: lanes and speed) or socket buffers, not the cable.")
    elif retransmits and few:
        cause = (f" {retransmits} retransmissions, a negligible share of the segments sent (what any busy flow loses): "
                 "the path lost next to nothing, so a host sets this ceiling: one stream's CPU core, the NIC's PCIe "
                 "link (`lspci -vv` LnkSta: lanes and speed) or socket buffers, not the cable.")
    elif retransmits:
        cause = (f" {retransmits} retransmissions: segments were lost on the way (a rate limit on the path that drops "
                 "what exceeds it, as a policer or a cloud's per-flow cap does, holding the rate flat; the receiver's "
                 "ring buffers or CPU; a congested switch port; a bad cable or optic): `ethtool -S <iface>` on both "
                 "ends shows where (rx_discards, rx_out_of_buffer, CRC errors).")
    else:
        cause = (" The sending side's Retr column says whether segments were lost; if none were, a host sets the "
                 "ceiling (one stream's CPU core, the NIC's PCIe link, socket buffers), not the cable.")
    return warn(f"{label}{gbps:.2f} Gbit/s is well under what a {tier:g} GbE link carries{ceiling}, yet the link is "
                f"at least {tier:g} GbE ({'the rate is' if gbps > below else 'two intervals were'} more than a {below:g} GbE "
                "link's line rate): no Ethernet link runs "
                "full at this rate, so the link is not what limits this test (unless the path is not one Ethernet "
                f"link: a bond of several, Wi-Fi, Thunderbolt or USB networking, IPoIB, a tunnel).{cause}{streams}")


def _other_host(r: Iperf3Read, gbps: float, streams: str) -> list[Finding]:
    """An iperf3 result on a machine that is not a Spark, against the Ethernet line rates (each direction of a
    --bidir test on its own: a full-duplex link carries its rate both ways at once); to 127.0.0.1 or ::1 no NIC is
    crossed, so nothing is judged. ``streams``: the advice to add streams, said only where the rate falls short."""
    host = r.result.remote_host
    if is_loopback(host):
        return [info(f"{gbps:.2f} Gbit/s over TCP to {host}, this machine's loopback: no network link or NIC "
                     "is crossed, so this measures the host alone.")]
    rates = {role: list(v) for role, v in r.intervals.rates_gbps.items() if v} or {"": [gbps]}
    means = {role: sum(v) / len(v) if len(rates) > 1 else gbps for role, v in rates.items()}
    what = " and ".join(f"{role} {mean:.2f}" for role, mean in means.items()) if len(means) > 1 else f"{gbps:.2f}"
    findings = [info(f"{what} Gbit/s over TCP. This is not a Spark, so its figures do not apply: compare with the line "
                     "rate of the NIC the test crossed (`ethtool <iface>` shows its speed; TCP at MTU 1500 carries about "
                     "94% of it).")]
    retr, by_role = r.intervals.retransmits, r.intervals.retransmits_by_role
    lost = r.result.retransmits if r.result.retransmits is not None else sum(retr) if retr else None
    seconds = r.result.duration_s or r.intervals.seconds
    for role, mean in means.items():
        second = sorted(rates[role][1:])[-2:-1] or [0.0]  # the first interval counts what the socket buffer took at once
        own = sum(by_role[role]) if role and by_role.get(role) else None if role == "RX" else lost  # (its own Retr)
        said = _against_ethernet(f"{role}: " if role else "", mean, max(mean, second[0]), own, streams,
                                 _one_quiet_flow(r, mean, lost),
                                 bool(own and seconds and few_retransmits(mean, seconds, own))) or lossy_flow(
            f"{role}: " if role else "", mean, seconds, own)
        said = info(said.message) if said and r.result.streams_asked else said  # (not the whole test's rate)
        findings += [iperf2_words(said, r.result)] if said else []
    lossy = slow_direction_retransmits(r.intervals, means)
    if lossy:
        findings.append(lossy)
    elif len(means) > 1 and min(means.values()) < max(means.values()) / 2:
        findings.append(info("The two directions are asymmetric: one gets under half the other's rate. A full-duplex "
                             "link carries its rate both ways at once, so the slow direction's receiving or sending "
                             "host (its CPU, its NIC's PCIe link) is the limit."))
    return findings


def _one_quiet_flow(r: Iperf3Read, gbps: float, lost: int | None) -> bool:
    """Whether the test ran one TCP stream that retransmitted under checks/specs/ethernet.toml [tcp]
    negligible_retransmit_share of its segments (of [tcp] segment_payload_bytes each, MTU 1500's) over its ``duration_s`` (or the
    time its interval rows cover, where the summary is cut)."""
    seconds = r.result.duration_s or r.intervals.seconds
    return r.result.streams == 1 and lost is not None and bool(seconds) and few_retransmits(gbps, seconds, lost)


def _stalled(read: Iperf3Read) -> Finding | None:
    """A test whose data stopped: after the first interval that moved data, every interval shown moved none. TCP
    with retransmits there is a path that passes small packets and drops full-size ones (an MTU black hole: a hop
    with a smaller MTU that sends no `Frag needed`) or a flow cut off; UDP, a receiver that gets nothing more
    (datagrams larger than the MTU go as IP fragments, one lost fragment loses the datagram). None otherwise."""
    for moved in read.intervals.moved.values():
        first = next((i for i, m in enumerate(moved) if m), None)
        after = moved[first + 1:] if first is not None else ()
        if not after or any(after):
            continue
        retr = sum(read.intervals.retransmits[first + 1:]) if read.intervals.retransmits else 0
        udp = read.result.protocol == "UDP"
        why = ("The datagrams stopped arriving: a sender that gave up, or datagrams lost whole on the way (one larger "
               "than the MTU, -l, goes as IP fragments, and one lost fragment loses it); keep -l under the MTU (1472 "
               "at MTU 1500) and set -b." if udp else
               f"TCP kept the connection{f' and retransmitted {retr} time(s)' if retr else ''} but moved nothing: the "
               "path passes small packets and drops full-size ones (an MTU black hole: a hop with a smaller MTU, or a "
               "firewall dropping ICMP `Frag needed`), or the flow was cut. Check the MTU end to end with "
               "`ping -M do -s <MTU - 28> <peer>` from both sides.")
        return fail(f"The transfer stalled: data moved in interval {first + 1} only, then 0 bytes in each of the "
                    f"{len(after)} intervals after it. {why}")
    return None


def _udp_summary_loss(r: Any, command: str | None) -> Finding | None:
    """A UDP test's loss from its summary alone (the JSON's sum_sent and sum_received, no interval rows): what the
    receiver got of what was sent, a warning past checks/specs/ethernet.toml [udp] loss_warn_percent, or, for a test
    of short_test_s or less (mostly its start-up), past short_test_loss_warn_percent."""
    from ..calc.specs import row
    if not r.sent_bps or r.received_bps is None or r.received_bps >= r.sent_bps:
        return None
    spec = row("ethernet.toml", "udp")
    lost = 100 * (1 - r.received_bps / r.sent_bps)
    argv = command_argv(command)
    asked = option_value(argv, "-t", "--time") or next((a[2:] for a in argv if a[:2] == "-t" and a[2:].isdigit()), None)
    seconds = r.duration_s or (float(asked) if asked and asked.replace(".", "", 1).isdigit() else None)
    short = seconds is not None and seconds <= spec.graded("short_test_s")
    limit = spec.graded("short_test_loss_warn_percent" if short else "loss_warn_percent")
    said = (f"UDP: the receiver got {r.received_gbps:.2f} of the {r.sent_gbps:.2f} Gbit/s sent, {lost:.2g}% lost"
            + (f" in a test of {seconds:.2g} s" if short else ""))
    if lost > limit:
        return warn(said + (f": more than a test's start-up loses (over {limit:g}%)" if short else f": over {limit:g}%")
                    + ", the path drops datagrams at this rate (the receiving host is the usual limit: a larger "
                    "socket buffer, -w, or a lower -b).")
    return info(said + (", mostly its start-up (the sender at full rate before the receiver settles): a test of 10 s "
                        "says more." if short else "."))


def _udp_loss(iv: Any) -> Finding | None:
    """What a UDP test's Lost/Total column says: the datagrams lost in all (the receiver's summary row, else the
    intervals added up), the first second's apart (the sender starts at full rate before the receiver settles), and a
    warning where the seconds after it lose more than checks/specs/ethernet.toml [udp] loss_warn_percent. None when
    no row shows the column."""
    from ..calc.specs import row
    if not iv.udp_lost and iv.udp_summary is None:
        return None
    lost, total = iv.udp_summary or (sum(x for x, _ in iv.udp_lost), sum(t for _, t in iv.udp_lost))
    if not total:
        return None
    first, rest = (iv.udp_lost[0], iv.udp_lost[1:]) if len(iv.udp_lost) > 1 else ((0, 0), iv.udp_lost)
    rest = tuple(x for x in rest if x[1])  # a second with no datagram at all says nothing of loss (see _stalled)
    rest_lost, rest_total = sum(x for x, _ in rest), sum(t for _, t in rest)
    worst = max((100 * x / t for x, t in rest if t), default=0.0)
    said = f"UDP: {lost:,} of {total:,} datagrams lost ({100 * lost / total:.2g}%)"
    if first[0] and first[0] >= rest_lost and rest:
        said += (f", {first[0]:,} of them in the first second (the sender starts at full rate before the receiver "
                 f"settles); after it at most {worst:.2g}% a second")
    limit = row("ethernet.toml", "udp").graded("loss_warn_percent")
    judged = rest_lost / rest_total if rest_total else lost / total  # no second's own count (a client's rows): the total
    if 100 * judged > limit:
        return warn(said + f": over {limit:g}%" + (" after the first second" if rest_total else "") + ", the path drops "
                    "datagrams at this rate. The receiving host is the usual limit (a larger socket buffer, -w, or a "
                    "lower -b); then the link.")
    return info(said + (": near-zero loss at this rate." if 100 * lost / total <= limit else "."))


def summarise_iperf3(read: Iperf3Read, command: str | None) -> Summary:
    r = read.result
    facts = dict(dataclasses.asdict(r), sent_gbps=r.sent_gbps, received_gbps=r.received_gbps)
    findings = []
    if r.error:
        hint = next((h for key, h in _IPERF_ERROR_HINTS if key in r.error.lower()), "see the message.")
        port = option_value(command_argv(command), "-p", "--port")
        if port and re.fullmatch(r"\d+-\d+", port):  # iperf3 reads the number before the dash, atoi's way
            hint += (f" And -p takes one port: iperf3 read `{port}` as {port.split('-')[0]}, the only one it tried; "
                     "run one client per port to try the others.")
        findings.append(fail(f"iperf3 failed: {r.error}. Likely cause: {hint}"))
    gbps = r.received_gbps if r.received_gbps else r.sent_gbps
    if gbps is None and r.listening_port is not None and not r.error:
        findings.append(info(f"The iperf3 server is listening on port {r.listening_port} and no client has run a "
                             "test yet: start the client on the other host (`iperf3 -c <this host's address>`)."))
    if gbps is None or (r.error and not gbps):
        return facts, findings
    if r.intervals_only:  # a piece of -J: a second or two of the test says nothing of its result
        lost = f", {r.retransmits} retransmits" if r.retransmits is not None else ""
        findings.append(info(f"A piece of iperf3's JSON (-J): {r.intervals_only} interval(s) shown, {gbps:.2f} "
                             f"Gbit/s{lost}. An interval is a second of the test, not its result: paste the whole "
                             "JSON (its `end` section: sum_sent and sum_received) for the rate to judge."))
        return facts, findings
    if r.self_connected:  # blind batch xo015: the client connected to its own address
        return facts, findings + [warn(
            f"{gbps:.2f} Gbit/s, but the test connected {r.self_connected} to itself (`local {r.self_connected} ... "
            f"connected to {r.self_connected}`): it measured this machine's own network stack, not a link. Run the "
            "server on the other machine and the client here, against the other machine's address.")]
    if r.stopped:
        findings.append(info(f"The test was ended early (`iperf3: {r.stopped}`: Ctrl-C, or the other side stopped): "
                             "its summary covers only the seconds it ran, and a server's summary of a test cut short "
                             "may read 0 bytes though its intervals carried data: read the intervals."))
    stall = _stalled(read)
    if stall:
        return facts, findings + [stall]
    if r.protocol == "UDP":
        tests = read.intervals.udp_runs  # several tests' rows are no streams of one: each said, not added up
        said = (f"{len(tests)} UDP tests: " + ", ".join(f"{g:.3g}" for g, _, _ in tests[:6]) + " Gbit/s"
                if len(tests) > 1 else f"UDP test: {gbps:.1f} Gbit/s")
        findings.append(info(f"{said}; UDP rates follow the -b target. Compare TCP "
                             f"(the default) with -P 8..16 against the published figures ({IPERF_FIGURES})."))
        loss = same_udp_loss(read.intervals) or _udp_loss(read.intervals) or _udp_summary_loss(r, command)
        return facts, findings + ([loss] if loss else [])
    findings += filter(None, (repeated_stalls(read), window_bound(read)))
    target = (r.target_bps or 0) / 1e9 * (r.streams or 1)  # -b paces each stream
    if target and 0.95 * target <= gbps <= 1.05 * target and not r.retransmits:  # the figure is the setting's
        return facts, findings + [info(f"{gbps:.2f} Gbit/s: the {target:g} Gbit/s the test was paced to (-b for each "
                                       f"of its {r.streams or 1} stream(s), or -J's "
                                       "target_bitrate). iperf3 held it there, so it says nothing of what the link "
                                       "carries: run without -b (TCP) to measure that."
                                       + (f" It ran to {r.remote_host}, this machine's loopback: no link is crossed "
                                          "either." if is_loopback(r.remote_host) else ""))]
    findings += filter(None, (separate_tests(r),))
    window = small_window(command, gbps)
    if window:  # the rate is the window's: no link figure applies
        return facts, findings + [window]
    streams = streams_words(r)
    checks = f" Check MTU {JUMBO_MTU} on both ends and that `ethtool <twin>` shows {LINK_MBPS}Mb/s."
    findings += filter(None, (server_sender_zero(r),))
    if on_spark(None) is False:  # `explain --host other`: the Spark's figures do not apply
        findings += _other_host(read, gbps, streams)
    elif gbps < TCP_PASS_GBPS and not spark_shown():  # the host not said, nothing of a Spark shown: no Spark bar, and
        # what holds on any machine (the Ethernet line rates, the retransmits) as on another host
        findings += [unknown_host_rate(gbps, TCP_PASS_GBPS, IPERF_FIGURES)] + _other_host(read, gbps, streams)[1:]
    elif gbps >= TCP_PASS_GBPS:  # the floor L1.tcp judges with
        findings.append(ok(f"{gbps:.1f} Gbit/s over TCP: in line with the published one-link figures for two "
                           f"Sparks ({IPERF_FIGURES}). One netdev (twin) carries about half of the port's "
                           f"{LINE_GBPS} Gb/s."))
    elif gbps >= 40:
        findings.append(warn(f"{gbps:.1f} Gbit/s over TCP: below the ~96-110 Gbit/s published for one link "
                             f"({IPERF_FIGURES}).{streams}{checks}"))
    else:
        cause = ""
        if gbps <= 10:
            cause = (f" Between two Sparks that is within the 10 GbE management port's reach: the test probably ran "
                     f"over {HOUSE_INTERFACE}; point iperf3 at the peer's QSFP address (e.g. 192.168.100.11). On "
                     "hosts with another NIC, compare with its speed (`ethtool <iface>`).")
        elif gbps < 20:
            cause = (" Around 13 Gbit/s is a known degraded ConnectX-7 state (NVIDIA check-connectx-bandwidth): "
                     "update (`sudo apt full-upgrade`) and reboot both Sparks, or power-cycle them.")
        findings.append(fail(f"{gbps:.1f} Gbit/s over TCP: far below the ~96-110 Gbit/s published for one "
                             f"link ({IPERF_FIGURES}).{cause}{streams}{checks}"))
    if r.truncated:
        findings.append(info("The iperf3 output is cut off before its summary (or its receiver row): the rate is the "
                             "mean of the intervals shown."))
    return facts, findings


# --------------------------------------------------------------------------- dmesg: ConnectX link events

FLAPS = 3
"""A link that went down this many times in one paste is flapping, not being re-cabled once."""


def summarise_dmesg(d: Any, command: str | None) -> Summary:
    final = d.final
    facts = {"events": [dataclasses.asdict(e) for e in d.events], "final": final}
    findings: list[Finding] = []
    plugged = [e for e in d.events if e.what in ("module", "hotplug") and e.state in ("plugged", "plugin")]
    unplugged = [e for e in d.events if e.what in ("module", "hotplug") and e.state in ("unplugged", "plugout")]
    for port, twins in QSFP_TWINS.items():
        up = [t for t in twins if final.get(t) == "up"]
        if len(up) == 2:
            findings.append(ok(f"QSFP port {port}: both twins came up ({', '.join(twins)}): one cable, two links, one "
                               "per PCIe half of the ConnectX-7, as a Spark's port should."))
        elif up and not any(t in final for t in twins if t not in up):
            findings.append(info(f"QSFP port {port}: {up[0]} came up; its twin {[t for t in twins if t not in up][0]} "
                                 "is not in these lines (both come up with one cable: look for it, or `ip link`)."))
    for dev, state in final.items():
        if state in ("down", "init", "armed"):
            where = f" (QSFP port {qsfp_port(dev)})" if is_qsfp_twin(dev) else ""
            now = "`rdma link` shows it now" if state != "down" or dev.startswith("roce") else \
                f"`ethtool {dev}` shows `Link detected` now"
            findings.append(warn(f"{dev}{where} is {state.upper()} at the end of these lines: no link. Check the cable "
                                 f"is seated at both ends and the peer is up ({now})."))
        elif state == "up" and not is_qsfp_twin(dev):
            findings.append(info(f"{dev}: link up."))
        if (downs := d.downs(dev)) >= FLAPS:
            findings.append(warn(f"{dev} went down {downs} times in these lines: the link is flapping (a loose or "
                                 "faulty cable or module, or the peer restarting). Reseat or swap the cable."))
    if plugged or unplugged:
        findings.append(info(f"Cable events: {len(plugged)} plugged, {len(unplugged)} unplugged"
                             + (" (the module's, then each PCIe half's: one cable is reported once per half)."
                                if len({e.pci for e in plugged if e.pci}) > 1 else ".")))
    findings += _pcie_bandwidth_findings(d.pcie) + _firmware_findings(d.firmware)
    if d.firmware:
        facts["firmware"] = [{"pci": pci, "version": v} for pci, v in d.firmware]
    if d.pcie:
        facts["pcie"] = [dataclasses.asdict(b) for b in d.pcie]
    return facts, findings


def _firmware_findings(firmware: Any) -> list[Finding]:
    """The ConnectX firmware each function reported at probe: one version everywhere is said once; several differ
    (a function, or one of two hosts, not updated) warns, as both ends of a link are best on one release."""
    versions: dict[str, list[str]] = {}
    for pci, version in firmware:
        versions.setdefault(version, []).append(pci)
    if len(versions) == 1:
        (version, where), = versions.items()
        return [info(f"ConnectX firmware {version} on every function listed ({len(where)} probe line(s)): the same "
                     "everywhere.")]
    return [warn("ConnectX firmware differs between the functions listed: " + "; ".join(
        f"{v} on {', '.join(sorted(set(p))[:6])}" for v, p in versions.items()) + ". Bring them to one release, so both "
        "ends of a link run the same (`sudo mlxfwmanager --query` shows what each device runs and offers).")] \
        if versions else []


def _pcie_bandwidth_findings(lines: Any) -> list[Finding]:
    """The PCI core's report of each ConnectX function's PCIe link at probe (``... Gb/s available PCIe bandwidth``):
    the functions at their best grouped in one line; one limited by a slower link on the way to the CPU warned, in
    the words :func:`grader.facts.lesson1.pcie_link_problem` gives a Spark's twin."""
    from ..facts.lesson1 import pcie_link_problem
    from ..parsers.pcie_sysfs import PcieLink
    out: list[Finding] = []
    best: dict[tuple[float, float, int], list[str]] = {}
    for b in lines:
        if b.limited_at is None:
            best.setdefault((b.gbps, b.gts, b.width), []).append(b.pci)
            continue
        link = PcieLink(b.gts, b.width, *b.capable)
        said = pcie_link_problem(b.pci, link, b.pci[:4], spark=True) if on_spark(None) else None
        out.append(warn((said + ".") if said else (
            f"{b.pci}: the kernel reports {b.gbps:g} Gb/s of PCIe bandwidth for this ConnectX function, limited by the "
            f"{b.gts:g} GT/s x{b.width} link at {b.limited_at}; the card is capable of {b.capable_gbps:g} Gb/s "
            f"({b.capable[0]:g} GT/s x{b.capable[1]}). A slot wired for fewer lanes or an older generation, or a "
            "bridge between it and the CPU, sets that limit (the board's manual says how each slot is wired). "
            "Whether it binds depends on the ports: together they can move no more than that (`ethtool <interface>` "
            "shows each port's speed).")))
    return [info(f"{', '.join(pcis)}: PCIe {gts:g} GT/s x{width}, {gbps:g} Gb/s available to the card, its full link "
                 "(the kernel's report at probe).") for (gbps, gts, width), pcis in reversed(best.items())] + out
