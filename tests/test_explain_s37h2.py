"""Field pastes of the wb batch (issue 27) explain read short: a headerless slice of an old nccl-tests table (no error
in its rows; it cannot show the GPUs or the peak bandwidth), an ib_write_bw run whose later reading falls sharply, an
ethtool of a virtual NIC, NCCL's topology search falling back to its simple order over EFA. Each on real lines (the
URL beside it), with a neighbouring healthy output on which the rule stays silent."""

from __future__ import annotations

from grader.explain import explain
from tests.conftest import field_entry as _field, levels, messages


def test_old_nccl_tests_slice_says_no_error_and_what_it_cannot_show():
    """https://github.com/NVIDIA/nccl/issues/340 (pending wb015): reduce_perf rows 256 B..512 KB, `0e+00` errors."""
    [s] = explain(_field("wb015"), nodes=1)
    said = messages(s)
    assert "is 0e+00 in every row shown: no error" in said
    assert "a slice of the table" in said and "cannot tell which GPUs or machines" in said
    assert "nor the peak bandwidth" in said and "no row past 524288 B" in said
    assert "warn" not in levels(s) and "fail" not in levels(s)


def test_nccl_tests_with_header_is_not_called_a_slice():
    """https://github.com/NVIDIA/nccl/issues/340 rows under the old header line: the header makes the columns known."""
    head = ("#       size         count    type   redop    root     time   algbw   busbw  error     time   algbw   busbw  "
            "error\n")
    [s] = explain(head + _field("wb015"), nodes=1)
    said = messages(s)
    assert "a slice of the table" not in said and "is 0e+00 in every row shown" in said


PR342 = """ #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
 65536      403504           0.00               42.31                0.080701
 65536      247166           0.00"""


def test_perftest_reading_that_falls_mid_run_is_a_warn():
    """https://github.com/linux-rdma/perftest/pull/342 (pending wb017): RoCE ib_write_bw, 403,504 then 247,166
    iterations per interval, cut there."""
    [s] = explain(_field("wb017"), host="other", nodes=2)
    said = messages(s, "warn")
    assert "the throughput fell during the run, 1.6 times" in said and "403,504" in said and "247,166" in said
    assert "RoCE without a lossless setup" in said
    # steady readings of --run_infinitely (NVIDIA's Spark guide, corpus h016): silent
    [h] = explain(_field("h016"), host="spark", nodes=2)
    assert "fell during the run" not in messages(h)
    # a later reading with its figures shown, 1.2 times lower: within repeat_ratio_max, silent
    [mild] = explain(PR342.replace(" 65536      247166           0.00",
                                   " 65536      340000           0.00               35.60                0.068"),
                     host="other", nodes=2)
    assert "fell during the run" not in messages(mild)


def test_ethtool_up_with_no_negotiation_and_port_other_is_a_virtual_nic():
    """https://github.com/safchain/ethtool/issues/17 (pending wb018): `Link detected: yes` (with the poster's arrow
    after it) at 10000Mb/s, auto-negotiation off and unsupported, `Port: Other`, no advertised mode."""
    [s] = explain(_field("wb018"), nodes=1)
    said = messages(s, "info")
    assert "up (Link detected: yes) at 10000Mb/s" in said and "virtual or software NIC" in said
    assert "nominal figure" in said and "ethtool -i" in said
    assert "warn" not in levels(s) and "fail" not in levels(s)
    # a bond (corpus q015, UCX issue 10430): the same shape, read as a bond's speed
    bond = explain(_field("q015"), host="other", nodes=2)
    assert all("a bond's speed" in messages(b) and "virtual or software NIC" not in messages(b) for b in bond)
    # a real port with no cable (corpus w008, Port: Other, Link detected: no (No cable)): silent, the no-link reading
    [w] = explain(_field("w008"), nodes=1)
    assert "nominal" not in messages(w) and "no link" in messages(w)


def test_ethtool_note_after_link_detected_is_read_past():
    """https://github.com/safchain/ethtool/issues/17: a person's arrow after `Link detected: no` leaves it no."""
    [s] = explain("Settings for eth3:\n\tSpeed: Unknown!\n\tPort: FIBRE\n\tLink detected: no      <=====\n",
                  host="other", nodes=1)
    assert "no link" in messages(s)


def test_topology_search_simple_order_is_a_performance_warning_said_once():
    """https://github.com/aws/aws-ofi-nccl/issues/64 (pending wb019): p4d over EFA, NCCL 2.7.8, `Could not find a path
    for pattern 4, falling back to simple order` on both hosts, in an issue titled bad performance."""
    [s] = explain(_field("wb019"), host="other", nodes=2)
    said = messages(s, "warn")
    assert said.count("NCCL's topology search found no path") == 1  # two hosts' lines, one reading
    assert "can cost bandwidth: a sign of poor performance, not an error" in said
    assert "fail" not in levels(s) and "Libfabric" in messages(s)
    # NCCL_P2P_LEVEL=LOC on one machine (pending wb020): the same reading, naming P2P turned off, never NVLink
    [p2p] = explain(_field("v014"), host="other", nodes=1)
    assert "peer-to-peer turned off" in messages(p2p, "warn") and "nvlink" not in messages(p2p).lower()
    # an NCCL log without the line (corpus wb005's neighbour: a socket closed by its peer): silent
    [w5] = [x for x in explain(_field("wb005"), host="other", nodes=1) if x.kind == "nccl-tests"]
    assert "topology search" not in messages(w5)
