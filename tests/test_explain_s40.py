"""Session 40: the lead's policy changes, each on the field's outputs that decide it (issue 27)."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from grader.judges.bench import failed_level
from tests.conftest import messages

FIELD = Path(__file__).parent / "fixtures" / "field"


def paste(stem: str) -> str:
    return next(FIELD.glob(f"*/{stem}_*.txt")).read_text()


def bench(stem: str, **context):
    return next(s for s in explain(paste(stem), **context) if s.kind == "vllm-bench")


def test_a_few_failed_requests_warn_and_a_third_fails():
    """vllm bench serve on one DGX Spark (https://github.com/djangodevreng/dgx-spark-benchmarks, commit 5636536):
    1 of 250 requests failed (ServerDisconnectedError, blind batch xm016) and 1 of 200 (a reset, wt006) are a few: the
    run stands on the rest, a warning; 102 of 300 failed with HTTP 500 (xm015) is a broken run. Corpus n014 (vllm#2119's
    bench, 999 of 1,000) warns too."""
    for stem, failed, total in (("xm016", 1, 250), ("wt006", 1, 200), ("n014", 1, 1000)):
        section = bench(stem, host="spark", nodes=1)
        assert f"{failed} of {total} requests failed" in messages(section, "warn"), stem
        assert "failed" not in messages(section, "fail"), stem
    broken = bench("xm015", host="spark", nodes=1)
    assert "102 request(s) of the 300 sent failed" in messages(broken, "fail")


def test_failed_level_is_one_in_a_hundred():
    """The figure is serving.toml's failed_share_warn (0.01): 1 of 100 warns, 2 of 100 fail, none of none fails."""
    assert failed_level(1, 100) == "warn" and failed_level(10, 1000) == "warn"
    assert failed_level(2, 100) == "fail" and failed_level(1, 1) == "fail" and failed_level(0, 0) == "fail"


def test_ssh_host_is_read_where_the_command_is_read():
    """``ssh [options] [user@]HOST COMMAND`` names the machine the output came from (grader.parsers.common.commands,
    the same reading that strips ssh from the command): options that take a value are skipped, the user is dropped,
    and an ssh that runs nothing here names no machine's output."""
    from grader.parsers.common.commands import ssh_host
    assert ssh_host("sudo ssh -p 2222 -i key user@spark-b free -h") == "spark-b"
    assert ssh_host("ssh -o StrictHostKeyChecking=no 10.0.0.2 'free -g'") == "10.0.0.2"
    assert ssh_host("ssh -t spark2") is None and ssh_host("free -g") is None and ssh_host(None) is None


def ethtool(stem: str, host: str = "other"):
    return next(s for s in explain(paste(stem), host=host) if s.kind == "ethtool")


def test_a_link_at_the_partners_best_mode_is_the_partners_limit():
    """ethtool of a 10G router port (openwrt/openwrt#21530, blind batch wu010) and of a 2.5G USB adapter (wu008), each at
    1000Mb/s beside a link partner that advertises up to 1000baseT/Full: auto-negotiation picked the best both offer,
    the other end is the limit (a note, not a fault of the port or cable)."""
    for stem, top in (("wu010", "10000baseT/Full"), ("wu008", "2500baseX/Full")):
        section = ethtool(stem)
        said = messages(section, "info")
        assert "the best mode the link partner advertises (1000baseT/Full)" in said and f"up to {top}" in said, stem
        assert not messages(section, "warn") and not messages(section, "fail"), stem
    assert "advertise 2500baseX/Full too" in messages(ethtool("wu008"), "info")  # it advertises only up to 1000


def test_a_cut_ethtool_still_says_this_side_does_not_advertise_the_partners_faster_mode():
    """An RTL8125 under OpenWrt (r8125 DKMS issue 32, blind batch wu006): the paste ends before `Speed:`, but the modes
    decide: this port supports 2500baseT/Full, the partner advertises it, this side's advertisement stops at
    1000baseT/Full, so auto-negotiation can give 1000Mb/s at most: a warning naming the advertisement."""
    said = messages(ethtool("wu006"), "warn")
    assert "1000Mb/s at most" in said and "does not advertise 2500baseT/Full" in said


def test_a_healthy_link_at_both_ends_best_is_said_as_such():
    """A 1 GbE fibre port up at 1000Mb/s full duplex (blind batch wu005): no partner note, no warning."""
    section = ethtool("wu005")
    assert "healthy as far as ethtool shows" in messages(section, "info") and not messages(section, "warn")


def test_rdma_devices_in_sysfs_that_ibv_devices_cannot_open():
    """kvcache-ai/Mooncake#102 (blind batch wu004), in a container: /sys/class/infiniband lists erdma_0 and erdma_1,
    /dev/infiniband holds uverbs0 only, and ibv_devices lists erdma_0: libibverbs cannot open erdma_1 (its uverbs
    device was not passed in). A warning on the ibv_devices section; none where ibv_devices lists both."""
    [devices] = [s for s in explain(paste("wu004"), host="other") if s.kind == "ibv-devices"]
    said = messages(devices, "warn")
    assert "cannot open erdma_1" in said and "uverbs" in said
    both = paste("wu004").replace("erdma_0             02163efffe1041ea",
                                  "erdma_0             02163efffe1041ea\n    erdma_1             02163efffe1041eb")
    [devices] = [s for s in explain(both, host="other") if s.kind == "ibv-devices"]
    assert not messages(devices, "warn")


def test_the_management_port_is_said_up_with_carrier():
    """`ip a show enP7s7` on a Spark (KoyoImai/dgx_spark_cluster2 Step001, blind batch ww002): UP,LOWER_UP with a
    static 10.0.0.15/24: the note on the 10 GbE RJ45 port says it is up with carrier; on a Spark whose enP7s7 has no
    carrier (NO-CARRIER, state DOWN) it does not."""
    [section] = [s for s in explain(paste("ww002"), host="spark") if s.kind == "ip-addr"]
    assert "enP7s7 is the 10 GbE RJ45 management port (up, with carrier: LOWER_UP)" in messages(section, "info")
    down = paste("ww002").replace("<BROADCAST,MULTICAST,UP,LOWER_UP>", "<NO-CARRIER,BROADCAST,MULTICAST,UP>") \
        .replace("state UP", "state DOWN")
    [section] = [s for s in explain(down, host="spark") if s.kind == "ip-addr"]
    assert "with carrier" not in messages(section, "info")


def test_no_fec_on_a_spark_port_names_the_unused_port_as_the_harmless_case():
    """`ethtool --show-fec enp1s0f0np0` with Active None (KoyoImai/dgx_spark_cluster2 Step011: corpus j014 on the
    cabled port, blind batch ww007 on the idle one): the paste cannot tell which, so a hedged warning that says both."""
    [section] = [s for s in explain(paste("ww007"), host="spark") if s.kind == "ethtool"]
    said = messages(section, "warn")
    assert "down (an unused, unplugged port shows it too: fine)" in said and "without RS" in said


def test_cuda_graph_profiling_off_is_a_note_once_the_server_came_up():
    """vLLM on two ASUS GX10 (https://github.com/Anemll/dspark-vllm-gx10, blind batch wv005): CUDA-graph memory
    profiling off, then the graphs captured and `Application startup complete`: what the warning fears at start did
    not happen, a note; the same warning with nothing after it still warns."""
    [log] = [s for s in explain(paste("wv005"), host="spark", nodes=2) if s.kind == "vllm-log"]
    assert "so they fit at start" in messages(log, "info") and "CUDA graphs' memory" not in messages(log, "warn")
    cut = paste("wv005")
    cut = cut[:cut.index("CUDA graph memory profiling is disabled")] + cut[cut.index(
        "CUDA graph memory profiling is disabled"):].split("\n", 1)[0] + "\n"
    [log] = [s for s in explain(cut, host="spark", nodes=2) if s.kind == "vllm-log"]
    assert "CUDA graphs' memory is turned off" in messages(log, "warn")


def test_a_ray_status_cut_above_its_header_is_still_said_healthy():
    """`ray status` pasted from `Node status` on (no `Autoscaler status` header): one node holding its 8 GPUs in a job's
    placement groups with no demands (rllm issue 95, blind batch wv003), and 11 CPU nodes of an autoscaled cluster
    (raydp issue 104, wx001): the node list, pending, failures and demands were all read, so the status says nothing
    waits, besides the note that its first lines are cut."""
    for stem, words in (("wv003", "Healthy: all 1 node(s) up, nothing pending"),
                        ("wx001", "No failures (of a cluster of CPUs only): all 11 node(s) up, nothing pending")):
        [status] = [s for s in explain(paste(stem), host="other", nodes=1) if s.kind == "ray-status"]
        assert words in messages(status, "ok") and "excerpt" in messages(status, "info"), stem
    cut = paste("wx001").split("Demands:")[0]  # the demands not shown: said as far as it goes
    [status] = [s for s in explain(cut, host="other", nodes=1) if s.kind == "ray-status"]
    said = messages(status, "ok")
    assert "no resource demand waiting" not in said and "the `Demands` section" in said and "not in the paste" in said


def test_the_kv_line_says_how_many_full_length_requests_fit():
    """Two 3090s at TP=2 (club-3090, blind batch wx003): 302,921 tokens, 2.31x at 131,072: two full-length requests
    fit at once."""
    [log] = [s for s in explain(paste("wx003"), host="other", nodes=1) if s.kind == "vllm-log"]
    assert "2.31x for 131,072-token requests (the pool fits 2 of that full length at once)" in messages(log, "ok")


def test_a_node_stopped_on_purpose_is_a_note_and_an_unexpected_end_fails():
    """Ray's GCS `Removing node ... death reason = ...` (break-it review 22): EXPECTED_TERMINATION with `received
    SIGTERM` (a DGX Spark's `docker stop` of the head's container) and AUTOSCALER_DRAIN_IDLE are stops something asked
    for, notes quoting one line; UNEXPECTED_TERMINATION (ray-project/ray#54321, blind batch wv010) fails."""
    stopped = ("[2026-04-27 14:28:36,412 I 61 61] (gcs_server) gcs_node_manager.cc:639: Removing node, node name = "
               "192.168.100.11, death reason = EXPECTED_TERMINATION, death message = received SIGTERM "
               "node_id=90e5c8da07ae3610811933ecb98e021c4b5a7a49be80665bb8924e4b\n")
    idle = ("[2025-03-11 09:14:02,118 I 88 88] gcs_node_manager.cc:128: Removing node, node name = 10.0.3.17, death "
            "reason = AUTOSCALER_DRAIN_IDLE, death message = idle for long enough (> 60.0 s)\n"
            "[2025-03-11 09:14:02,119 I 88 88] gcs_node_manager.cc:286: Node 3f1c0d9b is removed from cluster.\n")
    for text in (stopped, idle):
        [section] = explain(text, host="other")
        assert "stopped on purpose" in messages(section, "info") and not messages(section, "fail")
        assert "is removed from cluster" not in messages(section)  # the quoted line is one line
    [section] = explain(paste("wv010"), host="other")
    assert "UNEXPECTED_TERMINATION, `Raylet could not connect to Runtime Env Agent`" in messages(section, "fail")


def test_the_redis_fix_is_for_rays_redis_only():
    """A certificate refused: Ray's GCS to a TLS Redis (wv008) names RAY_REDIS_CA_CERT; pip downloading the `redis`
    package through an intercepting proxy (break-it review 22, p15) gets the general CA-bundle fix."""
    [ray] = explain(paste("wv008"), host="other")
    assert "RAY_REDIS_CA_CERT" in messages(ray, "fail")
    pip = ("WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection "
           "broken by 'SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify "
           "failed: self-signed certificate in certificate chain (_ssl.c:1007)'))': /simple/redis/\n")
    [section] = explain(pip, host="other")
    assert "RAY_REDIS_CA_CERT" not in messages(section) and "REQUESTS_CA_BUNDLE" in messages(section, "fail")


def test_fec_none_where_the_same_paste_shows_no_link_is_a_note():
    """`ethtool enp1s0f1np1` with `Link detected: no`, then its `--show-fec` with Active None (break-it review 22,
    p06): the unused port's FEC says nothing, a note; alone (ww007) the hedged warning stays."""
    text = ("$ sudo ethtool enp1s0f1np1\nSettings for enp1s0f1np1:\n\tSpeed: Unknown!\n\tDuplex: Unknown! (255)\n"
            "\tLink detected: no\n$ sudo ethtool --show-fec enp1s0f1np1\nFEC parameters for enp1s0f1np1:\n"
            "Supported/Configured FEC encodings: Auto\nActive FEC encoding: None\n")
    fec = explain(text, host="spark")[-1]
    assert "what a port with no link shows" in messages(fec, "info") and not messages(fec, "warn")


def test_devices_not_opened_skips_a_filtered_list_and_compares_one_host():
    """`ibv_devices | head -n 4` lists some devices on purpose, and `ssh gpu-worker1 ibv_devices` is another host's
    list than the prompt's sysfs (break-it review 22, p11 and p19): no warning in either."""
    head = ("nvidia@spark1:~$ ls /sys/class/infiniband\nrocep1s0f0  rocep1s0f1  roceP2p1s0f0  roceP2p1s0f1\n"
            "nvidia@spark1:~$ ibv_devices | head -n 4\n    device          \t   node GUID\n"
            "    ------          \t----------------\n    rocep1s0f0      \t4cbb470300e1a2b0\n"
            "    rocep1s0f1      \t4cbb470300e1a2b1\n")
    other = ("admin@gpu-head:~$ ls /sys/class/infiniband\nmlx5_0  mlx5_1  mlx5_2  mlx5_3\n"
             "admin@gpu-head:~$ ssh gpu-worker1 ibv_devices\n    device          \t   node GUID\n"
             "    ------          \t----------------\n    mlx5_0          \tb8cef60300a1c2d0\n"
             "    mlx5_1          \tb8cef60300a1c2d1\n")
    for text in (head, other):
        assert "cannot open" not in " ".join(messages(s) for s in explain(text, host="other"))


def test_graphs_unprofiled_still_warn_where_the_server_ran_out_of_memory_after_it_came_up():
    """Break-it review 22, p17: CUDA-graph profiling off, `Application startup complete`, then `torch.OutOfMemoryError`
    under load: the risk the warning names came true, so it still warns (wv005 without the OOM is a note)."""
    text = (paste("wv005") + "(EngineCore pid=227) ERROR 07-18 19:40:02 [core.py:710] torch.OutOfMemoryError: CUDA out "
            "of memory. Tried to allocate 2.00 GiB.\n")
    [log] = [s for s in explain(text, host="spark", nodes=2) if s.kind == "vllm-log"]
    assert "CUDA graphs' memory is turned off" in messages(log, "warn")


def test_a_node_stopped_with_sigterm_under_a_running_engine_is_its_cause_not_a_crash():
    """Break-it review 23, p20: vLLM serving, then Ray removes a worker node with EXPECTED_TERMINATION (`received
    SIGTERM`), then `missed too many heartbeats` and the engine dies: the removal line says why (a stop, which ended the
    job), so the heartbeat line's guesses (OOM, the network) are not said, and the engine's death still fails."""
    text = ("[2025-10-21 10:02:19,447 I 88 88] (gcs_server) gcs_node_manager.cc:296: Removing node, node name = "
            "192.168.100.11, death reason = EXPECTED_TERMINATION, death message = received SIGTERM\n"
            "(raylet) The node with node id: 3b9d1c0e5f7a and address: 192.168.100.11 and node name: 192.168.100.11 has "
            "been marked dead because the detector has missed too many heartbeats from it.\n")
    [section] = explain(text, host="spark", nodes=2)
    said = messages(section)
    assert "stopped on purpose" in said and "dies with it" in said and "dropped packets" not in said
    assert not messages(section, "fail")
    alone = text.split("\n", 1)[1]  # the heartbeat line without the reason: the guesses stand
    [section] = explain(alone, host="spark", nodes=2)
    assert "removed it from the cluster" in messages(section, "fail")


def test_fec_reads_the_same_hosts_ethtool_of_the_port():
    """Break-it review 23: p22, spark-01's `Link detected: no` does not make spark-02's FEC None a note (the hedged
    warning stays); p09, FEC None beside the port's own ethtool at 100000Mb/s names the speed, not a request for it."""
    two = ("nvidia@spark-01:~$ sudo ethtool enp1s0f0np0\nSettings for enp1s0f0np0:\n\tSpeed: Unknown!\n"
           "\tLink detected: no\nnvidia@spark-02:~$ sudo ethtool --show-fec enp1s0f0np0\nFEC parameters for "
           "enp1s0f0np0:\nSupported/Configured FEC encodings: Auto\nActive FEC encoding: None\n")
    fec = explain(two, host="spark", nodes=2)[-1]
    assert "down (an unused, unplugged port shows it too" in messages(fec, "warn")
    up = ("$ sudo ethtool enp1s0f0np0\nSettings for enp1s0f0np0:\n\tSpeed: 100000Mb/s\n\tDuplex: Full\n"
          "\tLink detected: yes\n$ sudo ethtool --show-fec enp1s0f0np0\nFEC parameters for enp1s0f0np0:\n"
          "Supported/Configured FEC encodings: Auto\nActive FEC encoding: None\n")
    fec = explain(up, host="spark", nodes=2)[-1]
    assert "on a link up at 100000Mb/s" in messages(fec, "warn") and "Read `ethtool" not in messages(fec)


def test_an_ibdev2netdev_listing_without_the_twins_does_not_call_them_down():
    """A Spark's `ibdev2netdev` cut to its first PCIe domain (blind batch wz003): rocep1s0f0 and rocep1s0f1 Up, the
    roceP2p1s0f* lines not pasted: their twins are not shown, not Down (a note, no failure); a twin listed Down
    still fails L1.port's way."""
    cut = "rocep1s0f0 port 1 ==> enp1s0f0np0 (Up)\nrocep1s0f1 port 1 ==> enp1s0f1np1 (Up)\n"
    [section] = explain(cut, host="spark")
    assert "its twin enP2p1s0f0np0 is not in this listing" in messages(section, "info") and not messages(section, "fail")
    down = cut + "roceP2p1s0f0 port 1 ==> enP2p1s0f0np0 (Down)\n"
    [section] = explain(down, host="spark")
    assert "Only enp1s0f0np0 of port 0 is Up" in messages(section, "fail")


def test_a_kv_pool_under_one_request_warns_unless_the_launch_failed():
    """Three vLLM lines of a 3090 config (blind batch vb004): the block count overridden to 50, 0.77x for 205,000-token
    requests and no error: the server starts, and no request of the full length fits, a warning; corpus b006 (0.82x,
    then vLLM's ValueError) still fails."""
    [log] = [s for s in explain(paste("vb004"), host="other", nodes=1) if s.kind == "vllm-log"]
    assert "0.77x is below 1" in messages(log, "warn") and "overridden" in messages(log, "warn")
    assert not messages(log, "fail")
    [log] = [s for s in explain(paste("b006"), host="other", nodes=1) if s.kind == "vllm-log"]
    assert "0.82x is below 1" in messages(log, "fail")


def test_soft_roce_on_a_host_told_other_names_no_spark_device():
    """A Raspberry Pi's `rdma link` after `rdma link add rxe0 type rxe netdev eth0` (blind batch vc002, --host other):
    Soft-RoCE, said without the DGX Spark's ConnectX-7 names, which do not concern that host; said on a Spark."""
    text = "$ rdma link show\nlink rxe0/1 state ACTIVE physical_state LINK_UP netdev eth0\n"
    [other] = explain(text, host="other")
    assert "Soft-RoCE" in messages(other) and "ConnectX" not in messages(other)
    [spark] = explain(text, host="spark")
    assert "A DGX Spark's ConnectX-7 shows" in messages(spark)


def test_an_engine_dead_after_a_shutdown_is_its_consequence():
    """A DGX Spark's vLLM log (blind batch vd007): three requests answered 400 among served ones, then `[shutdown]
    EngineCore: trigger received signal=SIGTERM`, the teardown and EngineDeadError: a stop, not a crash (notes, no
    failure); EngineDeadError with no stop before it still fails (eugr/spark-vllm-docker#237's shape)."""
    [log] = [s for s in explain(paste("vd007"), host="spark", nodes=1) if s.kind == "vllm-log"]
    said = messages(log, "info")
    assert "after the server was told to stop" in said and "refused an inference request as bad" in said
    assert not messages(log, "fail") and "launch most likely failed" not in messages(log)
    crash = ("INFO 11-29 14:02:11 [api_server.py:1] vLLM API server version 0.32.0\n"
             "(APIServer pid=1) ERROR 08-01 23:37:28 [async_llm.py:704] vllm.v1.engine.exceptions.EngineDeadError: "
             "EngineCore encountered an issue. See stack trace (above) for the root cause.\n")
    [log] = [s for s in explain(crash, host="spark", nodes=1) if s.kind == "vllm-log"]
    assert "EngineDeadError" in messages(log, "fail")


REAL_H100 = Path(__file__).parent / "fixtures" / "real" / "h100"


def test_real_dmon_outputs_of_an_h100_are_read_whole():
    """`nvidia-smi dmon -c 5` and `-c 3 -o T` captured on an idle H100 (tests/fixtures/real/h100, driver 580.159.04):
    the `-o T` header pads `#Time` to its column (nine blanks before `gpu`), which the header pattern missed; each
    sample is a row, the GPU idle in all of them; a header with no row under it is a ParseError that names the
    command (it raised a TypeError)."""
    import pytest
    from grader.parsers.common import ParseError
    from grader.parsers.nvidia_smi_dmon import parse_dmon
    plain = parse_dmon((REAL_H100 / "nvidia-smi-dmon.txt").read_text())
    timed = parse_dmon((REAL_H100 / "nvidia-smi-dmon-time.txt").read_text())
    assert plain.columns[:2] == ("gpu", "pwr") and len(plain.rows) == 5
    assert timed.columns[:3] == ("time", "gpu", "pwr") and len(timed.rows) == 3 and timed.rows[0]["time"] == "17:04:02"
    assert timed.series("pwr") == {"0": [70.0, 70.0, 70.0]}
    for name in ("nvidia-smi-dmon.txt", "nvidia-smi-dmon-time.txt"):
        [section] = explain((REAL_H100 / name).read_text(), host="other")
        assert "Every GPU idle in every sample" in messages(section, "info") and section.error is None, name
    with pytest.raises(ParseError, match="without a row of figures"):
        parse_dmon("# gpu    sm   mem\n# Idx     %     %\n")
