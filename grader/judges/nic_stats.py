"""Judge of a NIC's counters (``ethtool -S``) and pause settings (``ethtool -a``), grader.parsers.ethtool_stats.

What a counter means is the NIC driver's: mlx5's are NVIDIA's "Understanding mlx5 ethtool Counters" (the ``_phy``
counters are the port's own: ``link_down_events_phy`` each time the link went down, ``rx_crc_errors_phy`` and
``rx_symbol_err_phy`` frames damaged on the wire, ``rx_discards_phy`` frames the port dropped for lack of buffer,
``rx_out_of_buffer`` packets dropped because software had posted no receive buffer); Intel's ``lsc_int`` counts link
state change interrupts (each a link going down or up). Counters add up since the driver loaded: a value says that it
happened, not when; read them twice around a test to see what it added.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from .common import info, listed, warn
from .model import Finding, Summary

_LINK_FLAPS = ("link_down_events_phy", "lsc_int", "link_down_events", "carrier_changes")
_ON_THE_WIRE = ("rx_crc_errors_phy", "rx_symbol_err_phy", "rx_crc_errors", "rx_fcs_errors", "rx_corrected_bits_phy")
_FAULT_RE = re.compile(r"err|drop|discard|reject|crc|miss|fcs|symbol|overrun", re.I)  # a counter of things gone wrong
_PRIO_RE = re.compile(r"^[rt]x_prio(\d)_(?:bytes|packets)$")  # mlx5's traffic per 802.1p priority
_DROPPED = ("rx_discards_phy", "rx_out_of_buffer", "tx_discards_phy", "rx_dropped", "rx_missed_errors")


_RX_PACKETS_RE = re.compile(r"^(?:[rt]xq\d+: )?rx_?(?:packets|pkts|frames)(?:_phy)?$|^rx packets$", re.I)
_LOSS_RE = re.compile(r"drop|discard|no_?frags|no_?bufs?\b|no_?pbuf|no_?skbs?|overflow|(?:checksum|csum|crc|fcs|length|"
                      r"frame|fifo)_?errs?|out_of_buffer|rx_missed", re.I)
_NOT_LOSS_RE = re.compile(r"lane|corrected|bits|bytes|blocks|fdir|_ok\b|good", re.I)  # FEC's corrections, steering


def _losses(where: str, counters: dict[str, int]) -> list[Finding]:
    """Loss counters of any driver (not only those named above) against the packets received, where the paste shows
    that count, above checks/specs/ethernet.toml [rx_errors] warn_fraction of them (blind batch zy010: be2net's rx_drops_no_frags and rx_tcp_checksum_errs, billions since boot)."""
    port = [v for k, v in counters.items() if _RX_PACKETS_RE.match(k) and not k.startswith(("rxq", "txq"))]
    received = max(port) if port else sum(v for k, v in counters.items() if _RX_PACKETS_RE.match(k))  # (queues added)
    from ..calc.specs import row
    share = row("ethernet.toml", "rx_errors").graded("warn_fraction")  # a thousandth: more than noise
    named = set(_LINK_FLAPS + _ON_THE_WIRE + _DROPPED)
    big = sorted(((v / received, k, v) for k, v in counters.items() if received and k not in named and v > 0
                  and _LOSS_RE.search(k) and not _NOT_LOSS_RE.search(k) and not _RX_PACKETS_RE.match(k)
                  and v >= share * received), reverse=True)
    if not big:
        return []
    return [warn(f"{where}losses large beside the {received:,} packets received: "
                 + listed([f"{k} {v:,} ({part:.2%})" for part, k, v in big[:6]])
                 + ". The host or the port dropped or refused that share (a receive ring or queue starved of buffers, "
                 "a CPU that cannot keep up, checksum or length errors of what arrived). The counters add up since the "
                 "driver loaded: read them twice around a test for a rate, and enlarge the rings (`ethtool -G`) or "
                 "spread the queues if it grows.")]


_PAUSE_RE = re.compile(r"^(?P<way>[rt])x_(?:pause_ctrl_phy|prio(?P<prio>\d)_pause|flow_control_xoff|link_xoff_[rt]x"
                       r"|(?:priority_)?pause_?frames?)$")  # mlx5's global and per-priority (PFC) pause frames; Intel's XOFF; be2net's
_STORM_RE = re.compile(r"^tx_pause_storm_(?:warning|error)_events$")  # mlx5's pause storm prevention


def _pause_counters(where: str, counters: dict[str, int]) -> list[Finding]:
    """Pause frames counted (NVIDIA's "Understanding mlx5 ethtool Counters",
    https://enterprise-support.nvidia.com/s/article/understanding-mlx5-ethtool-counters: ``tx_pause_ctrl_phy`` and ``tx_prioN_pause``
    are pause frames this port sent, its receive buffer filling faster than the host drained it; ``rx_...`` those it
    received, the far end congested; ``tx_pause_storm_*_events`` the device stalled while pausing its peer for too long,
    so its storm prevention stopped the pauses). Counts since the driver loaded: notes, and a storm a warning."""
    sent = {k: v for k, v in counters.items() if v and (m := _PAUSE_RE.match(k)) and m["way"] == "t"}
    got = {k: v for k, v in counters.items() if v and (m := _PAUSE_RE.match(k)) and m["way"] == "r"}
    storm = {k: v for k, v in counters.items() if v and _STORM_RE.match(k)}
    out = []
    if storm:
        out.append(warn(f"{where}pause storm events ({listed([f'{k} {v:,}' for k, v in storm.items()])}): the port kept "
                        "pausing its peer for so long that the NIC's storm prevention stopped the pauses: its receive "
                        "path stalled (a host or driver not draining the queues, a hung application or VF), and frames "
                        "are then dropped. `dmesg` around the events, and the host's load, say why."))
    if sent:
        out.append(info(f"{where}this port sent pause frames ({listed([f'{k} {v:,}' for k, v in sent.items()])}): its "
                        "receive side filled faster than the host drained it (PCIe, memory, a busy CPU or receive "
                        "buffers posted too slowly), so it asked the far end to wait: on the paused priority bandwidth "
                        "is lost rather than frames. In bursts that is flow control doing its job; a count that grows fast during a test points at this host."))
    if got:
        out.append(info(f"{where}this port received pause frames ({listed([f'{k} {v:,}' for k, v in got.items()])}): "
                        "the far end (a switch port or the peer) was congested and held this port's sending. Growing "
                        "fast during a test means congestion on the path (several senders into one port, a slower "
                        "link beyond): the switch's counters show where."))
    return out


def summarise_stats(st: Any, command: str | None) -> Summary:
    findings: list[Finding] = []
    for iface, counters in st.counters.items():
        where = f"{iface}: " if iface else ""
        shown = [f"{k} {v:,}" for k, v in counters.items()]
        if len(counters) <= 8:
            findings.append(info(f"{where}counters {', '.join(shown)}."))
        for name in _LINK_FLAPS:
            if counters.get(name):
                findings.append(warn(f"{where}{name} is {counters[name]:,}: the link went down (or changed state) that "
                                     "often since the driver loaded: a loose or failing cable or module, or the far "
                                     "end restarting. Read it again in a while: if it grows, reseat or change the "
                                     "cable."))
        wire = [f"{n} {counters[n]:,}" for n in _ON_THE_WIRE if counters.get(n)]
        if wire:
            findings.append(warn(f"{where}frames damaged on the wire ({listed(wire)}): a dirty or failing cable, "
                                 "module or port; clean or change the cable and module."))
        prios: dict[int, int] = {}  # each priority's rx/tx bytes and packets added up
        for k, v in counters.items():
            if (m := _PRIO_RE.match(k)) is not None:
                prios[int(m.group(1))] = prios.get(int(m.group(1)), 0) + v
        if len(prios) > 1 and prios.get(0) and not any(v for p_, v in prios.items() if p_):
            findings.append(info(f"{where}all traffic is on priority 0 (`prio0` counters; priorities "
                                 f"{', '.join(map(str, sorted(p_ for p_ in prios if p_)))} carry none): no traffic class "
                                 "of its own, so no lossless class either (PFC on the priority the RoCE traffic uses): "
                                 "a dropped frame is then a retransmission (for RoCE, an ack timeout)."))
        faults = [n for n in counters if _FAULT_RE.search(n)]
        if faults and not any(counters[n] for n in faults) and len(counters) > 8:
            findings.append(info(f"{where}the error, drop and discard counters shown are all 0 ({len(faults)} of "
                                 "them): no error or drop since the driver loaded."))
        findings += _losses(where, counters) + _pause_counters(where, counters)
        dropped = [f"{n} {counters[n]:,}" for n in _DROPPED if counters.get(n)]
        if dropped:
            findings.append(info(f"{where}frames dropped ({listed(dropped)}): the port or the host could not keep up "
                                 "at some moment (for RoCE, a lossless setup with PFC or ECN prevents it). Compare "
                                 "with the packet counts: a few in millions is harmless."))
    pause = st.pause
    for iface, p in pause.items():
        said = ", ".join(f"{k} {'on' if v else 'off'}" for k, v in p.items())
        findings.append(info(f"{iface}: pause frames {said}."))
    settings = Counter((p.get("RX"), p.get("TX")) for p in pause.values())
    if len(settings) > 1:  # several interfaces in one paste, not all alike: name the ones unlike the most
        usual = settings.most_common(1)[0][0]
        odd = [i for i, p in pause.items() if (p.get("RX"), p.get("TX")) != usual]
        findings.append(warn(f"The interfaces' pause settings differ ({listed(odd)} unlike the others): set the same "
                             "flow control on every port of the path (`ethtool -A IF rx on tx on`), or a port that "
                             "sends no pause frames lets its peer's buffers overflow."))
    facts = {"counters": {k or "": v for k, v in st.counters.items()}, "pause": st.pause}
    return facts, findings
