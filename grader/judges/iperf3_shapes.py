"""Shapes of an iperf3 output that its rates alone do not show (for grader.judges.linktest): UDP tests that lose the
same share of datagrams whatever rate they offer, a TCP flow that stalls second after second while retransmitting,
a --bidir test whose slow direction is the one that retransmits, several tests in one output (iperf2's server), a
test run with a small TCP window (-w), and a flow whose window stays fixed with no loss.

Sources: esnet/iperf#114 (84-85% lost at 0.1, 1 and 21 Gbit/s alike), esnet/iperf#72 (a WAN flow with -w 64M:
640 Mbit/s, then seconds of 0 bytes and retransmissions), opnsense/src#277 (--bidir on 1 GbE: RX 940 Mbit/s, TX ~300
Mbit/s with 20-40 retransmissions a second), esnet/iperf#198 (Cwnd fixed at 822 KBytes, 94 Mbit/s flat, no
retransmission), AdrielEP/test's iperf2 runs (two 10 GbE links at 9.9 Gbit/s, 2.68 with --window 8k); the
thresholds are checks/specs/ethernet.toml's.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from .common import info, warn
from .model import Finding


def same_udp_loss(iv: Any) -> Finding | None:
    """UDP tests of one paste (``iv.udp_runs``: each test's summary row's Gbit/s, lost, total) whose offered rates span
    [udp] same_loss_rate_span times over and whose loss shares lie within same_loss_spread_points of each other, each
    over loss_warn_percent: a loss that does not grow with the rate is not the path running full, but the measurement
    or a fixed drop on the link (the NIC's error counters tell which). None otherwise."""
    from ..calc.specs import row
    spec = row("ethernet.toml", "udp")
    runs = [(g, 100 * lost / total) for g, lost, total in iv.udp_runs if total and g > 0]
    if len(runs) < 2:
        return None
    rates, shares = [g for g, _ in runs], [p for _, p in runs]
    if max(rates) < spec.graded("same_loss_rate_span") * min(rates) or min(shares) <= spec.graded("loss_warn_percent") \
            or max(shares) - min(shares) > spec.graded("same_loss_spread_points"):
        return None
    lo, hi = min(shares), max(shares)
    share = f"{lo:.0f}%" if round(lo) == round(hi) else f"{lo:.0f}-{hi:.0f}%"
    return warn(f"UDP: {share} of the datagrams lost in each of {len(runs)} tests, at rates from {min(rates):.3g} to "
                f"{max(rates):.3g} Gbit/s: the same share at every rate. A path short of capacity loses more the more "
                "it is offered (next to nothing well under what it carries), so a loss that stays the same whatever "
                "the rate is not the path running full: it is the measurement or the receiver (iperf3's UDP "
                "accounting, wrong in some releases, or a receiver that counts several tests' sequence numbers as "
                "one), or a fixed share of frames dropped on the link (a cable, module or port that corrupts frames "
                "drops the same share at any rate). The NIC's error counters decide: `ethtool -S` on both ends before "
                "and after a test (rx_crc_errors, rx_errors growing: the link); none growing, check with another "
                "iperf3 version, or a TCP test (no -u: its Retr column counts real losses).")


def repeated_stalls(read: Any) -> Finding | None:
    """A TCP test whose data stopped for whole seconds more than once after its first, between seconds that moved data,
    and that retransmitted in at least half of its seconds: a lossy path where TCP waits out retransmission timeouts
    (a test that stops for good is :func:`grader.judges.linktest._stalled`'s). None otherwise."""
    iv = read.intervals
    if read.result.protocol != "TCP":
        return None
    for role, moved in iv.moved.items():
        retr = iv.retransmits_by_role.get(role, ())
        after = moved[1:]
        empty = sum(1 for m in after if not m)
        if empty < 2 or not any(after) or len(retr) != len(moved) or 2 * sum(1 for n in retr if n) < len(retr):
            continue
        rates = iv.rates_gbps.get(role, ())
        best = max(rates[1:], default=0.0)
        label = f"{role}: " if role else ""
        return warn(f"{label}The flow stalled again and again: {empty} of the {len(after)} seconds after the first moved "
                    f"0 bytes, the others at most {best * 1000:.3g} Mbit/s, and {sum(1 for n in retr if n)} of "
                    f"{len(retr)} seconds retransmitted ({sum(retr)} in all). TCP is losing segments on the path and "
                    "waiting out retransmission timeouts, so the rate collapses; the first second's figure is mostly "
                    "the socket buffer filling. On a long path with a large window (-w) a few losses a second keep a "
                    "flow far below the link: find where they are lost (`ethtool -S` on both ends, `mtr` for the hops).")
    return None


def _segments_sent(gbps: float, seconds: float) -> float:
    """About how many TCP segments a flow at ``gbps`` sends in ``seconds`` (checks/specs/ethernet.toml [tcp]
    segment_payload_bytes each, MTU 1500's)."""
    from ..calc.specs import row
    return gbps * 1e9 / 8 * seconds / row("ethernet.toml", "tcp").graded("segment_payload_bytes")


def few_retransmits(gbps: float, seconds: float, lost: int) -> bool:
    """Whether ``lost`` retransmissions of a flow at ``gbps`` for ``seconds`` are at most checks/specs/ethernet.toml
    [tcp] negligible_retransmit_share of the segments it sent (:func:`_segments_sent`)."""
    from ..calc.specs import row
    return lost <= _segments_sent(gbps, seconds) * row("ethernet.toml", "tcp").graded("negligible_retransmit_share")


def lossy_flow(label: str, gbps: float, seconds: float | None, lost: int | None) -> Finding | None:
    """A flow slower than any Ethernet line rate whose retransmissions are more than a negligible share of its
    segments (:func:`few_retransmits`): said with that share, since no line rate tells what else caps it (blind batch
    vs001: 1,769 in 5 s at 404 Mbit/s through a VM's NAT). None where it lost next to nothing or the count is not shown."""
    if not (lost and seconds and gbps > 0) or few_retransmits(gbps, seconds, lost):
        return None
    return info(f"{label}{lost} retransmissions in {seconds:g} s, about {lost / _segments_sent(gbps, seconds):.1%} of the "
                "segments sent: segments were lost on the way (a rate limit or a congested hop that drops what exceeds "
                "it, a VM's or NAT's forwarding, the receiver's buffers), which holds TCP's rate down; `ethtool -S` on "
                "both ends and `mtr` for the hops show where.")


def slow_direction_retransmits(iv: Any, means: dict[str, float]) -> Finding | None:
    """A --bidir test (``means``: each direction's mean Gbit/s) whose slow direction, under half the fast one's rate, is
    the one whose rows retransmit, in most of its seconds, more than a negligible share of its segments
    (:func:`few_retransmits`): that direction loses packets, and the fast one shows the link carries more. None
    otherwise (the Retr column is the sender's: a slow direction this side receives shows none here)."""
    if len(means) < 2:
        return None
    slow, fast = min(means, key=means.get), max(means, key=means.get)
    retr = iv.retransmits_by_role.get(slow, ())
    if means[slow] >= means[fast] / 2 or not retr or 2 * sum(1 for n in retr if n) <= len(retr) \
            or few_retransmits(means[slow], iv.seconds or len(retr), sum(retr)):
        return None
    return warn(f"The two directions are asymmetric: {slow} {means[slow]:.2f} against {fast} {means[fast]:.2f} Gbit/s, "
                f"and the slow one retransmitted in {sum(1 for n in retr if n)} of its {len(retr)} seconds "
                f"({sum(retr)} in all). A full-duplex link carries its rate both ways at once, and the {fast} "
                f"direction reaching its rate shows the link does, so the {slow} direction loses packets on its way: this host's "
                "sending path (its NIC driver and offloads, its transmit queue) or the other's receiving side. "
                "`ethtool -S` on both ends shows which counts drops or errors.")


def separate_tests(r: Any) -> Finding | None:
    """Several tests one after the other in one output (``r.separate_tests``: iperf2's server prints a summary row per
    client connection): each named, the best said to be what the link carried. None for one test."""
    if len(r.separate_tests) < 2:
        return None
    rates = ", ".join(f"{b / 1e9:.3g}" for b in r.separate_tests)
    return info(f"{len(r.separate_tests)} tests one after the other in this output (each its own connection, one row "
                f"from 0 s): {rates} Gbit/s. The best, {max(r.separate_tests) / 1e9:.3g} Gbit/s, is what the link "
                "carried; a lower one is that test's own limit (a smaller window, another path or direction).")


def ethernet() -> tuple[list[float], float | None]:
    """The standard Ethernet line rates (Gbit/s) and TCP's share of them at MTU 1500 (checks/specs/ethernet.toml
    [ieee_802_3])."""
    from ..calc.specs import row
    spec = row("ethernet.toml", "ieee_802_3")
    return sorted(spec.graded("rates_gbps") or []), spec.graded("tcp_goodput_fraction")


def at_tcp_ceiling(gbps: float) -> bool:
    """Whether ``gbps`` is a standard Ethernet link's TCP ceiling (90% of its TCP share at MTU 1500 up to its line rate,
    :func:`ethernet`): the link ran full."""
    rates, share = ethernet()
    return any(0.9 * g * (share or 1) <= gbps <= g for g in rates)


_SIZE_RE = re.compile(r"^(?P<n>\d{1,9}(?:\.\d{1,3})?)(?P<unit>[KkMmGg]?)[Bb]?$")


def small_window(command: str | None, gbps: float) -> Finding | None:
    """A test whose command asks for a TCP window (-w / --window) at or under checks/specs/ethernet.toml [tcp_window]
    small_kib: one flow moves at most a window per round trip, so its rate measures the window, not the link. None
    otherwise (no window asked, a large one, or a rate at a link's TCP ceiling: the window sufficed there)."""
    from ..calc.specs import row
    from ..parsers.common import command_argv, option_value
    asked = option_value(command_argv(command), "-w", "--window")
    m = _SIZE_RE.match(asked or "")
    if not m:
        return None
    kib = float(m["n"]) * {"": 1 / 1024, "k": 1, "m": 1024, "g": 1024 ** 2}[m["unit"].lower()]
    if kib > row("ethernet.toml", "tcp_window").graded("small_kib") or at_tcp_ceiling(gbps):
        return None  # (at a link's TCP ceiling the window was enough: the test measured the link)
    return info(f"{gbps:.2f} Gbit/s with a TCP window of {asked} asked (-w): one flow moves at most a window per round "
                "trip (rate = window / RTT), so this rate measures the window, not the link. Run without -w (the "
                "kernel then grows the window to the path's bandwidth x delay) to measure the link.")


def window_bound(read: Any) -> Finding | None:
    """One TCP stream, not paced (-b), whose congestion window (Cwnd) stays the same in every interval after the first,
    with no retransmission in any. Linux grows the window only while the flow fills it, so a flat window with no loss
    is either a window that caps the flow (the socket buffer -w asked or the kernel granted, the receiver's window) or
    a sender that does not fill it (one CPU core, a virtual NIC). The round trip that rate and window imply decides:
    one of checks/specs/ethernet.toml [tcp_window] wan_rtt_ms or more is a long path's, where a window is the likely
    cap (a warning); a shorter one is said with both readings and what tells them apart (ping's round trip, the
    sender's CPU). None otherwise (several streams, losses, a window that moves, a paced test, a link's TCP ceiling)."""
    iv = read.intervals
    if read.result.protocol != "TCP" or read.result.streams != 1 or len(iv.cwnd_bytes) != 1 or read.result.target_bps:
        return None
    role, cwnd = next(iter(iv.cwnd_bytes.items()))
    retr, rates = iv.retransmits_by_role.get(role, ()), iv.rates_gbps.get(role, ())
    if len(cwnd) < 5 or len(set(cwnd[1:])) != 1 or any(retr) or len(rates) != len(cwnd) or not min(rates[1:]):
        return None
    rate = sum(rates[1:]) / len(rates[1:])
    from ..calc.specs import row
    share = ethernet()[1] or 1
    if at_tcp_ceiling(rate):
        return None  # a standard link's TCP ceiling: the link is full, the window big enough
    rtt_ms = cwnd[-1] * 8 / (rate * 1e9) * 1000
    at = f"{rate * 1000:.3g} Mbit/s" if rate < 1 else f"{rate:.3g} Gbit/s"
    flat = (f"One TCP stream at {at} with its congestion window fixed at {cwnd[-1] / 1024:.0f} "
            "KBytes in every second after the first and no retransmission")
    if rtt_ms >= row("ethernet.toml", "tcp_window").graded("wan_rtt_ms"):
        return warn(f"{flat}: TCP neither grows the window nor loses anything, so a window caps the flow at one window "
                    "per round trip (rate = window / RTT: here a round trip of about "
                    f"{rtt_ms:.2g} ms, a long path's). The socket buffer (-w asked, or what the kernel granted: "
                    "net.core.rmem_max/wmem_max, net.ipv4.tcp_rmem/tcp_wmem) or the receiver's window is the limit, "
                    f"not the path (unless this rate is the TCP ceiling of the path's slowest hop, about {share:.0%} of "
                    "its line rate): raise them on both hosts (or run -P 4..8) before judging the link. `ping` to the "
                    "server confirms it: a round trip near that figure.")
    return info(f"{flat}. Either a window caps it (rate = window / RTT would mean a round trip of about {rtt_ms:.2g} "
                "ms) or the sender does not fill the window (Linux grows it only while the flow is window-limited, so "
                "a flow held by one CPU core, a virtual NIC or pacing keeps it flat). `ping` to the server decides: a "
                "round trip near that figure points to the window (raise net.core.rmem_max/wmem_max and tcp_rmem/"
                "tcp_wmem, or run -P 4..8); one far under it (a LAN's, under a millisecond) points to the sender, "
                "whose CPU core then sits near 100% during the test (`top`, or iperf3's -V CPU utilization line).")


def server_sender_zero(r: Any) -> Finding | None:
    """The server's own summary (``--get-server-output``) reading ``sender 0.00 Bytes`` after a client summary that
    carried data: the server was not the sender in this direction; iperf3 3.1.x printed that summary before the
    statistics exchange (esnet/iperf#293, closed as its duplicate in #476). None otherwise."""
    if not getattr(r, "server_sender_zero", False) or not (r.received_bps or r.sent_bps):
        return None
    return info("The server's own summary (`Server output:`) reads `sender 0.00 Bytes`: the server only received in "
                "this direction, and iperf3 3.1.x printed that summary before the two ends exchanged their statistics "
                "(a known reporting bug, esnet/iperf#293). Nothing was lost to it: the receiver line and the client's "
                "summary are the figures.")


def unknown_host_rate(gbps: float, bar: float, figures: str) -> Finding:
    """A TCP rate under a Spark pair's bar (``bar`` Gbit/s) where the host is not said and the paste shows nothing of
    a Spark: the bar it would be judged by on a Spark, hedged, and what decides it elsewhere (the NIC's speed)."""
    return info(f"{gbps:.3g} Gbit/s over TCP. The host is not said (`explain --host spark|other`) and the paste shows "
                f"nothing of a DGX Spark: between two Sparks' QSFP ports this would be below the {bar:g} Gbit/s bar "
                f"(published for one link: {figures}); on another machine it can be the link's full speed. What "
                "decides it is the line rate of the NIC the test crossed (`ethtool <iface>`; TCP at MTU 1500 "
                "carries about 94% of it).")



_ONE_THREAD_RE = re.compile(r" If the path is faster \([^()]{1,40}\), one iperf3 process can be the limit[^\n]{0,400}?"
                            r"suspecting the link\.")
_MORE_PROCESSES_RE = re.compile(r" \(several iperf3 processes before iperf3 3\.16\)")


def iperf2_words(f: Finding, result: Any) -> Finding:
    """A finding of a TCP rate said of iperf2's output (``result.iperf2``): iperf3's one-thread advice (all -P streams
    on one core before iperf3 3.16) does not apply to iperf2, which runs each stream in a thread of its own."""
    if not getattr(result, "iperf2", False):
        return f
    said = _ONE_THREAD_RE.sub(" If the path is faster, add streams (-P 8): iperf2 runs each in a thread of its own.",
                              f.message)
    return dataclasses.replace(f, message=_MORE_PROCESSES_RE.sub("", said))


def streams_words(r: Any) -> str:
    """What a TCP result's stream count adds to a rate that falls short: fewer streams shown than -P asked for (the
    others did not connect, or were not pasted: blind batch vs006), or too few to fill a fast link; ``""`` else."""
    if r.streams_asked and r.streams:
        return (f" The command asked for {r.streams_asked} streams (-P {r.streams_asked}) and the output shows "
                f"{r.streams} (no [SUM] row): the others did not connect, or are not in the paste, so this rate is "
                f"{'that one stream' if r.streams == 1 else 'those streams'} alone; paste the whole output.")
    return (f" With {r.streams} stream{'s' if r.streams > 1 else ''} TCP cannot fill the link: rerun with -P 8 or -P 16."
            if r.streams and r.streams < 8 else "")
