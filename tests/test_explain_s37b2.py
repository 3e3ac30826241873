"""Collective and network measurements of the field corpus's blind batch wa (session 37, issue 27): libfabric's EFA
provider failing for want of locked memory, NCCL's network lines on one host, the older nccl-tests `error` column,
sockets between hosts told not Sparks, a perftest queue pair rejected at RTR, and link figures (iperf3, perftest,
nccl-tests busbw, ethtool) judged by a Spark's bar only where a Spark is said or shown. Each on real lines (the URL
beside it), with a neighbouring output on which the rule stays silent or keeps its reading."""

from __future__ import annotations


from grader.explain import explain
from tests.conftest import field_entry as _field, levels, messages


def _all(sections) -> str:
    return " ".join(f.message for s in sections for f in s.findings)


def test_efa_provider_enomem_is_locked_memory_not_the_network():
    """https://github.com/aws/aws-ofi-nccl/issues/715 (pending wa001): libfabric's efa provider cannot create its
    completion queue (`Cannot allocate memory`), aws-ofi-nccl fails, NCCL uses sockets; CloudWatch's `| time |` prefix
    kept. One NCCL section (the libfabric lines join it), failed on the ENOMEM, read as locked memory."""
    sections = explain(_field("wa001"), host="other", nodes=1)
    assert [s.kind for s in sections] == ["nccl-log"]
    said = messages(sections[0], "fail")
    assert "efa provider" in said and "locked-memory limit" in said and "not the network" in said
    assert "memlock=-1" in said


def test_efa_provider_healthy_lines_are_not_read_as_enomem():
    """https://github.com/NVIDIA/nccl-tests/issues/245 shape: aws-ofi-nccl selecting EFA, a libfabric warn of another
    kind: no locked-memory reading."""
    text = ("ip-10-0-1-2:25604:25604 [0] NCCL INFO NET/OFI Selected Provider is efa (found 4 nics)\n"
            "libfabric:25604:1732779731::efa:core:efa_device_init():120<warn> Device does not support fork\n"
            "ip-10-0-1-2:25604:25604 [0] NCCL INFO Using network AWS Libfabric\n")
    assert "locked-memory" not in _all(explain(text, host="other", nodes=2))


def test_one_host_network_lines_are_said_not_used():
    """https://github.com/NVIDIA/nccl/issues/1358 (pending wa018): two L4s of one host, `NET/IB : No device found` and
    a long NET/Socket list: on one host those lines are not used."""
    [s] = explain(_field("wa018"), host="other", nodes=1)
    assert "not used on one host" in messages(s, "info") and "fail" not in levels(s) and "warn" not in levels(s)


def test_libibverbs_warn_is_harmless_on_one_machine():
    """https://github.com/NVIDIA/nccl/issues/257 (pending wa005): four GPUs of one box, `Failed to open libibverbs.so`:
    harmless there, and the paste stops before the rows (what decides the hang)."""
    [s] = explain(_field("wa005"), host="other", nodes=1)
    said = messages(s, "info")
    assert "harmless" in said and "stops before the rows" in said and "fail" not in levels(s)


def test_old_error_column_is_float_rounding_and_a_large_one_is_not():
    """https://github.com/microsoft/NPKit/issues/19 (pending wa019): the older nccl-tests format's `error` column at
    1e-07 / 3e-08 is float rounding, and 8-64 B rows' busbw 0.00 is latency, not a single rank (no Spark advice);
    the same table with an error of 0.02 is not rounding."""
    text = _field("wa019")
    [s] = explain(text, host="other", nodes=1)
    said = messages(s, "info")
    assert "float rounding" in said and "not corruption" in said and "measure latency" in said
    assert "Spark" not in said and "warn" not in levels(s)
    [big] = explain(text.replace("3e-08    33.14", "2e-02    33.14"), host="other", nodes=1)
    assert "above float rounding" in messages(big, "warn")


def test_wrong_column_format_says_nothing_of_relative_error():
    """The newer `#wrong` format (a count, healthy at 0): no relative-error reading (corpus a042's table)."""
    sections = explain(_field("a042"), host="other", nodes=2)
    assert "relative error" not in _all(sections)


def test_sockets_with_an_np_port_name_alone_warn_for_a_host_told_other():
    """https://github.com/xorbitsai/inference/issues/4092 (pending wa007): a container on a non-Spark host,
    `NET/IB : No device found`, sockets over ens19f0np0: a hedged warn (the device likely not visible to NCCL);
    https://github.com/NVIDIA/nccl/issues/941 (corpus a030, HPC-X's RDMA plugin loaded beside np ports) stays fail,
    and a Spark pair over sockets stays fail."""
    [s] = explain(_field("wa007"), host="other", nodes=2)
    assert "fail" not in levels(s) and "not visible to NCCL" in messages(s, "warn")
    assert "RDMA hardware" in " ".join(messages(x, "fail") for x in explain(_field("a030"), host="other", nodes=2))
    [spark] = explain(_field("wa007"), host="spark", nodes=2)
    assert "fail" in levels(spark)


def test_perftest_rtr_rejected_is_the_address_vector():
    """https://github.com/linux-rdma/perftest/issues/393 (pending wa015): `Failed to modify QP N to RTR` alone, a port
    that needs a GRH: read as a perftest paste, failed on the address (GRH, GID index, MTU), not the link; with
    ETIMEDOUT (https://github.com/uccl-project/uccl/issues/641's shape) the older subnet/GID hint stays."""
    [s] = explain(_field("wa015"), host="other", nodes=2)
    said = messages(s, "fail")
    assert s.kind == "perftest" and "GRH" in said and "GID index" in said and "MTU" in said
    [t] = explain("$ ib_write_bw -d mlx5_0 10.0.0.2\nFailed to modify QP 12 to RTR: Connection timed out\n",
                  host="other", nodes=2)
    assert "GRH" not in messages(t, "fail") and "same /24" in messages(t, "fail")


def test_iperf3_with_the_host_unknown_is_hedged_not_failed():
    """https://github.com/esnet/iperf/issues/476 (pending xj020): 3.8 Mbit/s with --get-server-output and no host:
    the Spark bar is said, hedged (info), and the server's `sender 0.00 Bytes` is read as iperf3 3.1.x's reporting
    bug, its copy not overriding the client's summary. Told a Spark, or a Spark's interface shown, the bar holds."""
    text = _field("xj020")
    [s] = explain(text, nodes=2)
    assert "fail" not in levels(s) and "warn" not in levels(s)
    said = messages(s, "info")
    assert "would be below the 80 Gbit/s bar" in said and "ethtool" in said
    assert "sender 0.00 Bytes" in said and "reporting bug" in said and s.facts["retransmits"] == 467
    [spark] = explain(text, host="spark", nodes=2)
    assert "far below" in messages(spark, "fail")
    [shown] = explain(text.replace("iperf3 -c testserver", "iperf3 -c 192.168.100.11 -B enp1s0f0np0"), nodes=2)
    assert "far below" in messages(shown, "fail")


def test_perftest_and_busbw_and_ethtool_with_nothing_of_a_spark_are_hedged():
    """The same defect in other link figures: perftest without its device line, nccl-tests without rank lines, an
    unnamed ethtool at 100000Mb/s (the shapes of NVIDIA's dgx-spark-playbooks outputs, host not said)."""
    bw = ("---------------------------------------------------------------------------------------\n"
          " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
          " 65536      5000             13.25              13.23                0.025240\n"
          "---------------------------------------------------------------------------------------\n")
    [p] = explain("$ ib_write_bw 10.0.0.2 --report_gbits\n" + bw)
    assert "fail" not in levels(p) and "would be" in messages(p, "info")
    [p_spark] = explain("$ ib_write_bw 10.0.0.2 --report_gbits\n" + bw, host="spark")
    assert "fail" in levels(p_spark)
    rows = ("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
            "busbw #wrong\n  17179869184    4294967296     float    none      -1   5000000    3.44    3.44      0   "
            "5000000    3.44    3.44      0\n# Avg bus bandwidth    : 3.44\n")
    [n] = explain(rows)
    assert "fail" not in levels(n) and "If the test ran between two DGX Sparks" in messages(n, "info")
    assert "fail" in levels(explain(rows, host="spark")[0])
    eth = "$ ethtool\nSpeed: 100000Mb/s\nDuplex: Full\nLink detected: yes\n"
    assert "fail" not in levels(explain(eth, kind="ethtool")[0])
    assert "negotiated down" in messages(explain(eth, kind="ethtool", host="spark")[0], "warn")


def test_every_channel_over_shm_on_another_host_warns_and_p2p_does_not():
    """https://github.com/vllm-project/vllm/issues/6650 (pending xn018): four GPUs of one host, every channel `via
    SHM/direct/direct`: NCCL used no peer-to-peer path, a note where nothing says P2P should have worked (the oracle's
    session-39 revision) and a warn beside NCCL's dump of an NVLink; the same channels via P2P/IPC are normal (info),
    and on a Spark (one GPU a machine) SHM stays a note."""
    text = _field("xn018")
    [s] = explain(text, host="other", nodes=1)
    assert "no peer-to-peer path" in messages(s, "info") and "warn" not in levels(s)
    [s] = explain(text + "10-1-16-226:1024:1052 [0] NCCL INFO + NVL[264.0] - GPU/1000\n", host="other", nodes=1)
    assert "no peer-to-peer path" in messages(s, "warn")
    [p2p] = explain(text.replace("via SHM/direct/direct", "via P2P/IPC"), host="other", nodes=1)
    assert "warn" not in levels(p2p) and "fail" not in levels(p2p)
    [spark] = explain(text, host="spark", nodes=1)
    assert "Every channel went through host shared memory" in messages(spark, "info")


def test_pingpong_to_its_own_address_with_no_result_fails_and_a_finished_one_does_not():
    """https://github.com/linux-rdma/rdma-core/issues/51 (pending xp012): ibv_rc_pingpong on rxe0, both ends on one
    host with the same GID address, neither printing a result: a loopback that did not complete. Two hosts' addresses
    with no result are a note (the run or the paste stopped), and a pingpong that finished is not failed."""
    [s, c] = explain(_field("xp012"), host="other", nodes=1)
    assert "same address (192.168.10.19)" in messages(s, "fail") and "loopback" in messages(c, "fail")
    two = ("$ ibv_rc_pingpong -g 1 -d rxe0 10.0.0.2\n  local address:  LID 0x0000, QPN 0x000013, PSN 0x4c0dd8, GID "
           "::ffff:10.0.0.1\n  remote address: LID 0x0000, QPN 0x000012, PSN 0x5e5383, GID ::ffff:10.0.0.2\n")
    [t] = explain(two, host="other", nodes=2)
    assert "fail" not in levels(t) and "its result lines (or an error) decide" in messages(t, "info")
    finished = (two.replace("10.0.0.2\n", "10.0.0.1\n") + "8192000 bytes in 0.02 seconds = 3120.71 Mbit/sec\n"
                "1000 iters in 0.02 seconds = 21.00 usec/iter\n")
    assert "fail" not in levels(explain(finished, host="other", nodes=1)[0])
