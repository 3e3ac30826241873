"""Judge of RDMA port counters read from sysfs (grader.parsers.ib_counters): the standard ``counters/`` (the port's
physical and link errors) and the driver's ``hw_counters/`` (mlx5's retransmissions, sequence errors, failed work
requests, congestion notifications), as ``grep "" /sys/class/infiniband/*/ports/1/hw_counters/*`` prints them.

What each counter means: Linux Documentation/ABI/stable/sysfs-class-infiniband (``counters/``) and NVIDIA's "Understanding
mlx5 Linux Counters and Status Parameters" (``hw_counters/``: local_ack_timeout_err, packet_seq_err, out_of_sequence,
np_cnp_sent...). Every count is cumulative since the driver loaded: a count says something happened, not when.
"""

from __future__ import annotations

import re
from typing import Any

from .common import info, ok, warn
from .model import Finding, Summary

_MEANING: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("link_downed", "symbol_error", "link_error_recovery", "port_rcv_errors", "port_xmit_discards",
      "local_link_integrity_errors", "excessive_buffer_overrun_errors", "port_rcv_remote_physical_errors"), "warn",
     "errors of the port and its link (bits in error, a link that went down and came back, frames discarded): a "
     "cable or module, or a port that flapped"),
    (("local_ack_timeout_err",), "warn",
     "this side's retransmission timer ran out waiting for the peer's acknowledgement: packets lost on the way, or a "
     "peer that does not answer on that path (a GID or route it cannot use)"),
    (("packet_seq_err", "out_of_sequence", "implied_nak_seq_err", "duplicate_request"), "warn",
     "packets lost or out of order and sent again: a lossy path (RoCE without lossless flow control, PFC or ECN, "
     "on a congested or dropping link)"),
    (("rnr_nak_retry_err",), "warn",
     "the receiver was not ready (no receive buffer posted) until the retries ran out"),
    (("req_cqe_error", "resp_cqe_error", "req_remote_access_errors", "resp_remote_access_errors",
      "resp_local_length_error", "req_remote_invalid_request"), "warn",
     "RDMA operations that completed in error (what NCCL reports as `completion error`): the traffic on this port "
     "failed"),
    (("out_of_buffer", "out_of_sequence_drop"), "warn",
     "packets dropped because no receive buffer was posted for them (the receiving application fell behind)"),
    (("req_cqe_flush_error", "resp_cqe_flush_error"), "info",
     "requests flushed after an error on their queue pair: the errors above, carried on"),
    (("np_cnp_sent", "rp_cnp_handled", "np_ecn_marked_roce_packets", "rp_cnp_ignored"), "info",
     "congestion notifications (ECN marks, CNPs): the path signalled congestion and the senders slowed down "
     "(DCQCN at work, not an error)"),
)
"""(counters, the level a count there deserves, what it means), by the counter's name."""


_SETTINGS = frozenset({"lifespan"})
"""Files beside the counters that are settings, not counts (``lifespan``: how often, in ms, the driver refreshes them)."""
_TRAFFIC = re.compile(r"^(?:port_(?:rcv|xmit)_(?:data|packets)|(?:port_)?(?:unicast|multicast)_(?:rcv|xmit)_packets"
                      r"|rx_(?:write|read|atomic)_requests|rx_icrc_encapsulated|roce_(?:adp_)?\w*)$")
"""Counters of traffic, not of trouble: how much the port carried (port_rcv_data counts 4-byte words)."""


def _meaning(name: str) -> tuple[str, str] | None:
    return next(((level, said) for names, level, said in _MEANING if name in names), None)


def summarise_counters(c: Any, command: str | None) -> Summary:
    """Per port, the counters that counted something, grouped by what they mean, with the ports that show the same
    counts said once; the ports with nothing counted named together."""
    facts = {"ports": c.values(), "truncated": c.truncated}
    findings: list[Finding] = []
    clean = [k for k, p in c.ports.items()
             if not any(v for n, v in p.values.items() if n not in _SETTINGS and not _TRAFFIC.match(n))]
    counted: dict[tuple, list[str]] = {}
    for key, p in c.ports.items():
        nonzero = tuple(sorted((n, v) for n, v in p.values.items()
                               if v and n not in _SETTINGS and not _TRAFFIC.match(n)))
        if nonzero:
            counted.setdefault(nonzero, []).append(key)
    for nonzero, keys in counted.items():
        groups: dict[str, list[str]] = {}
        worst = "info"
        for name, value in nonzero:
            level, said = _meaning(name) or ("info", "a counter this reader does not know")
            groups.setdefault(said, []).append(f"{name} {value:,}")
            worst = "warn" if level == "warn" else worst
        where = " and ".join(keys)
        text = "; ".join(f"{', '.join(names)}: {said}" for said, names in groups.items())
        findings.append((warn if worst == "warn" else info)(
            f"{where}: {text}. The counts are cumulative, added up since the driver loaded: one snapshot cannot "
            "tell whether they are rising now or left from an earlier incident" + (
                f" (the same values on {len(keys)} ports suggest one past event)" if len(keys) > 1 else "")
            + ". Read them again before and after a test (`grep \"\" .../hw_counters/*`): the delta is what the test "
            "itself adds."))
    if clean:
        findings.append(ok(f"No error counter above 0 on {', '.join(clean)}"
                           + (" (traffic counters aside)." if any(_TRAFFIC.match(n) for p in c.ports.values()
                                                                   for n in p.values) else ".")))
    if c.truncated:
        findings.append(info("The reading is cut off at its end: the last counter was left out."))
    return facts, findings
