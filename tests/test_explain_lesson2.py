"""explain on lesson-2a outputs: the right kind, the facts read and the verdict, on every real
fixture that holds one (shared/fixtures/real, tests/fixtures/captured/nccl_tests_h200x1) and on
the samples of tests/samples_lesson2.py; and that these kinds and lesson 1's do not take each
other's outputs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from grader import explain as explain_mod
from grader.explain import Finding, Section, detect_kind, explain, to_jsonable
from tests import samples_lesson2 as S
from tests.conftest import levels, messages, real_text

CAPTURED = Path(__file__).resolve().parent / "fixtures" / "captured"
LESSON1 = {"ip-addr", "ip-route-get", "ibdev2netdev", "ethtool", "ping", "iperf3", "netplan"}
LESSON2A = {"rdma-link", "ib-sysfs", "show-gids", "ibstat", "perftest", "nccl-log", "nccl-tests", "collective-bench"}


real = real_text


def kinds(sections: list[Section]) -> list[str | None]:
    return [s.kind for s in sections]


def test_kinds_registered():
    assert LESSON2A <= set(explain_mod.KINDS)
    order = list(explain_mod.KINDS)
    assert order.index("nccl-log") < order.index("nccl-tests")  # a bare NCCL log is not nccl-tests


# --------------------------------------------------------------------------- real fixtures

def test_fixture_03_two_rails_and_their_total():
    a, b = explain(real("spark/03_*"))
    assert kinds([a, b]) == ["perftest", "perftest"] and a.host == b.host == "spark-b" and not a.error
    assert a.command.startswith("ib_write_bw -d rocep1s0f0")
    run = a.facts["runs"][0]
    assert (run["device"], run["bw_average_gbps"], run["gid_index"], run["rdma_mtu_bytes"], run["role"]) == (
        "rocep1s0f0", 92.57, 3, 1024, "client")
    assert b.facts["runs"][0]["bw_average_gbps"] == 97.28 and a.facts["runs"][0]["bw_unit"] == "Gb/s"
    assert "fail" not in levels(a) + levels(b)
    assert "92.57 Gb/s" in messages(a, "ok") and "80 Gb/s" in messages(a, "ok")
    assert "RDMA path MTU, not the interface's Ethernet MTU" in messages(a, "info")
    assert "GID index 3 between 192.168.200.13 and 192.168.200.12" in messages(a, "info")
    assert re.search(r"92\.57 \+ 97\.28 = 189\.85 Gb/s together", messages(b, "ok"))


def test_fixture_07_nccl_tests_then_ib_write_bw():
    n, p = explain(real("spark/07_*"))
    assert kinds([n, p]) == ["nccl-tests", "perftest"]
    assert (n.facts["collective"], n.facts["nranks"], n.facts["avg_busbw_reported"], n.facts["truncated"]) == (
        "all_gather_perf", 2, 22.9611, False)
    assert n.facts["avg_busbw_recomputed"] == pytest.approx(22.96) and n.facts["busbw_unit"] == "GB/s"
    assert "21.875 GB/s" in messages(n, "ok") and "fail" not in levels(n)
    assert p.facts["runs"][0]["bw_average_gbps"] == 111.61 and p.facts["runs"][0]["qps"] == 4
    assert "with 4 QPs" in messages(p, "ok") and "--force-link IB" in messages(p, "info")


def test_fixture_08_below_nvidia_bar_and_cut_off():
    [s] = explain(real("spark/08_*"))
    assert s.kind == "nccl-tests" and s.facts["truncated"] and s.facts["avg_busbw_reported"] is None
    assert s.facts["avg_busbw_recomputed"] == pytest.approx(19.945)
    warn = messages(s, "warn")
    assert "18.94 / 20.95 GB/s" in warn and "21.875" in warn and "MTU 9000" in warn and "NCCL_IB_HCA" in warn
    assert "cut off before `# Avg bus bandwidth`" in messages(s, "info")


def test_fixture_12_bench_and_nccl_lines():
    sections = explain(real("spark/12_*"))
    assert [k for k in kinds(sections) if k in LESSON2A] == ["collective-bench", "nccl-log"]
    bench = next(s for s in sections if s.kind == "collective-bench")
    nccl = next(s for s in sections if s.kind == "nccl-log")
    assert bench.facts["busbw_at_largest_gbs"] == 23.65 and "ok" in levels(bench)
    assert nccl.facts["transport_verdict"] == "NET/IB"
    assert [h["device"] for h in nccl.facts["ib_devices"]] == ["rocep1s0f0", "roceP2p1s0f0"]
    assert "both twins of QSFP port 0" in messages(nccl, "ok")


def test_fixture_13_net_ib_over_both_twins():
    [s] = explain(real("spark/13_*"))
    assert s.kind == "nccl-log" and s.facts["transport_verdict"] == "NET/IB" and not s.error
    assert [h["device"] for h in s.facts["ib_devices"]] == ["rocep1s0f1", "roceP2p1s0f1"]
    assert s.facts["hosts"] == ["spark-a", "spark-b"] and s.facts["channels_by_transport"] == {"NET/IB": 2}
    ok = messages(s, "ok")
    assert "NET/IB" in ok and "rocep1s0f1:1/RoCE, roceP2p1s0f1:1/RoCE" in ok and "on spark-b" in ok
    assert "prefix" in messages(s, "info") and "NCCL_IB_GID_INDEX=3" in messages(s, "info")
    assert "fail" not in levels(s) and "warn" not in levels(s)


def test_h200x2_p2p_verdict():
    [s] = explain(real("h200x2/nccl-allreduce-p2p.txt"))
    assert s.kind == "nccl-log" and s.facts["transport_verdict"] == "P2P"
    assert s.facts["channels_by_transport"] == {"P2P": 48} and s.facts["version"] == "2.28.9+cuda13.0"
    assert "no network was used" in messages(s, "info") and "fail" not in levels(s)


def test_h200x2_socket_fallback_verdict():
    """Read as two Sparks' (`--host spark`), TCP is a fallback, a fault; read with no host said, the log's two H200s
    on one host (cudaDev 1) say another machine, where NCCL_IB_DISABLE=1 is a choice (session 41)."""
    [s] = explain(real("h200x2/nccl-allreduce-socket-fallback.txt"), host="spark")
    assert s.kind == "nccl-log" and s.facts["transport_verdict"] == "NET/Socket"
    [unsaid] = explain(real("h200x2/nccl-allreduce-socket-fallback.txt"))
    assert "fail" not in levels(unsaid) and "because NCCL_IB_DISABLE=1 is set: a choice" in messages(unsaid, "info")
    fail = messages(s, "fail")
    assert "fell back to TCP sockets" in fail and "NCCL_IB_DISABLE=1" in fail
    assert "loopback" in messages(s, "info") and "2.86 GB/s" in messages(s, "info")


@pytest.mark.parametrize("name, collective", [
    ("all_reduce_perf", "all_reduce_perf"), ("all_gather_perf_cputime_timestamps", "all_gather_perf"),
    ("all_reduce_perf_per_iter", "all_reduce_perf"), ("all_reduce_perf_nocheck", "all_reduce_perf"),
    ("reduce_scatter_perf", "reduce_scatter_perf"), ("all_gather_perf_nccl_debug", "all_gather_perf"),
    ("mpirun_tag_output_all_gather", "all_gather_perf"),
])
def test_captured_nccl_tests_one_rank(name, collective):
    [s] = explain((CAPTURED / "nccl_tests_h200x1" / f"{name}.txt").read_text())
    assert s.kind == "nccl-tests" and s.facts["collective"] == collective and s.facts["nranks"] == 1
    assert "One rank" in messages(s, "info") and "fail" not in levels(s)


def test_captured_nccl_tests_failures():
    [two] = explain((CAPTURED / "nccl_tests_h200x1" / "mpirun_two_processes.txt").read_text())
    assert two.kind == "nccl-tests" and "built without MPI" in messages(two, "fail")
    [bad] = explain((CAPTURED / "nccl_tests_h200x1" / "all_reduce_perf_too_many_gpus.txt").read_text())
    assert bad.kind == "nccl-tests" and "Invalid number of GPUs" in messages(bad, "fail")


# --------------------------------------------------------------------------- samples

def test_rdma_link_text_and_json():
    [t] = explain("nvidia@spark-a:~$ rdma link\n" + S.RDMA_LINK)
    [j] = explain("nvidia@spark-a:~$ rdma -j -p link\n" + S.RDMA_LINK_JSON)
    [bare] = explain(S.RDMA_LINK_JSON)
    assert t.kind == j.kind == bare.kind == "rdma-link"
    assert t.facts["active"] == j.facts["active"] == ["rocep1s0f1", "roceP2p1s0f1"]
    assert "QSFP port 1" in messages(t, "ok") and "NCCL_IB_HCA=rocep1s0f1,roceP2p1s0f1" in messages(t, "info")
    one = S.RDMA_LINK.replace("roceP2p1s0f1/1 state ACTIVE physical_state LINK_UP",
                              "roceP2p1s0f1/1 state DOWN physical_state LINK_UP")
    [s] = explain(one)
    assert "Only rocep1s0f1 of QSFP port 1" in messages(s, "warn") and "`state` is what counts" in messages(s, "warn")
    [none] = explain(S.RDMA_LINK.replace("ACTIVE", "DOWN").replace("LINK_UP", "DISABLED"))
    assert "No ConnectX-7 RoCE device is ACTIVE" in messages(none, "fail")


def test_ib_sysfs_mapping_and_gid(tmp_path):
    text = S.ib_sysfs_probe_output(tmp_path)
    [s] = explain(text)
    assert s.kind == "ib-sysfs" and not s.error
    rows = {r["rdma_device"]: r for r in s.facts["devices"]}
    assert rows["rocep1s0f1"] | {"gids": None} == {
        "rdma_device": "rocep1s0f1", "port": 1, "pci_bdf": "0000:01:00.1", "domain": "0000", "netdev": "enp1s0f1np1",
        "qsfp_port": 1, "state": "ACTIVE", "phys_state": "LinkUp", "roce_v2_gid_index": 3, "ipv4": "192.168.100.10",
        "gids": None}
    assert rows["roceP2p1s0f0"]["domain"] == "0002" and rows["roceP2p1s0f0"]["roce_v2_gid_index"] is None
    assert "RoCE v2 GID index 3 carries 192.168.100.10" in messages(s, "ok")
    assert "NCCL_IB_GID_INDEX, use 3" in messages(s, "info")
    [noaddr] = explain(S.ib_sysfs_probe_output(tmp_path / "b", addresses={"rocep1s0f1": "192.168.100.10"}))
    assert "roceP2p1s0f1 is ACTIVE but has only link-local" in messages(noaddr, "fail")


def test_show_gids_and_ibstat():
    [g] = explain("$ show_gids\n" + S.SHOW_GIDS)
    assert g.kind == "show-gids" and [r["index"] for r in g.facts["roce_v2_ipv4"]] == [3, 3]
    assert "use 3" in messages(g, "info")
    diff = S.SHOW_GIDS.replace("roceP2p1s0f1\t1\t3\t", "roceP2p1s0f1\t1\t5\t")
    assert "different indices" in messages(explain(diff)[0], "warn")
    [i] = explain(S.IBSTAT)
    assert i.kind == "ibstat" and i.facts["cas"][1]["model"] == "ConnectX-7"
    assert "200 Gb/s" in messages(i, "ok") and "QSFP port 1" in messages(i, "ok")
    assert "Link layer Ethernet, i.e. RoCE" in messages(i, "info") and "MT4129 = ConnectX-7" in messages(i, "info")
    slow = S.IBSTAT.replace("Rate: 200", "Rate: 100")
    assert "negotiated down" in messages(explain(slow)[0], "warn")


def test_perftest_samples():
    [lat] = explain(S.IB_WRITE_LAT)
    assert lat.kind == "perftest" and lat.facts["runs"][0]["t_typical_us"] == 1.47 and "1.47 us" in messages(lat, "ok")
    assert "jumbo frames" in messages(lat, "info")
    [srv] = explain(S.IB_WRITE_BW_SERVER_MB)
    assert srv.facts["runs"][0]["role"] == "server" and "server side" in messages(srv, "ok")
    assert "MB/sec = 92.56 Gb/s (its MB is 2^20 bytes)" in messages(srv, "info")
    slow = real("spark/03_*").replace("92.57", "13.23")
    assert "degraded ConnectX-7 state" in messages(explain(slow)[0], "fail")
    mid = real("spark/03_*").replace("92.57", "85.10")
    assert "passes" in messages(explain(mid)[0], "ok")
    err = explain("$ ib_write_bw -d rocep1s0f1 192.168.100.11\nCouldn't connect to 192.168.100.11:18515\n")[0]
    assert err.kind == "perftest" and "start the server side first" in messages(err, "fail")


def test_nccl_tests_busbw_classes():
    text = real("spark/07_*")
    one_twin = text.replace("22.94", "11.90").replace("22.98", "12.02")
    assert "only one twin" in messages(explain(one_twin)[0], "fail")
    broken = text.replace("22.94", "3.04").replace("22.98", "3.01")
    assert "broken" in messages(explain(broken)[0], "fail")
    one_host = text.replace("gb10-node-b", "gb10-node-a")
    s = explain(one_host)[0]
    assert "not a two-Spark run" in messages(s, "info") and "do not use the cable" in messages(s, "info")


def test_nccl_log_one_hca_and_house_network():
    text = real("spark/13_*").replace(" [1]roceP2p1s0f1:1/RoCE", "")
    s = explain(text)[0]
    assert "only one HCA on spark-a (rocep1s0f1)" in messages(s, "warn")
    assert "NCCL_IB_HCA=rocep1s0f1,roceP2p1s0f1" in messages(s, "warn")
    house = ("spark-a:1:1 [0] NCCL INFO NET/IB : No device found.\n"
             "spark-a:1:1 [0] NCCL INFO NET/Socket : Using [0]enP7s7:10.0.0.5<0>\n"
             "spark-a:1:1 [0] NCCL INFO Using network Socket\n"
             "spark-a:1:9 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n")
    s = explain(house)[0]
    assert s.facts["transport_verdict"] == "NET/Socket"
    assert "/dev/infiniband" in messages(s, "fail") and "10 GbE management port" in messages(s, "fail")


def test_lspci_connectx_cross_check():
    [s] = explain(S.LSPCI_CX7)
    assert s.kind == "lspci"
    # the check's own judge (grader.facts.lesson1.pcie_link_problem, L1.link_speed): a warning naming the GX10 report
    assert ("0002:01:00.0 ConnectX-7: its PCIe link trained at 32 GT/s x2, not the 32 GT/s x4 the function can"
            in messages(s, "warn")) and "ASUS Ascent GX10" in messages(s, "warn") and "fail" not in levels(s)
    assert "0000:01:00.0 ConnectX-7: PCIe 32 GT/s x4" in messages(s, "ok")
    [s] = explain(S.LSPCI_CX7.replace("\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x4, ASPM not supported\n", ""))
    assert "0000:01:00.0 ConnectX-7: PCIe link 32 GT/s x4: with LnkSta alone" in messages(s, "info")
    assert "0002:01:00.0 ConnectX-7: PCIe link 32 GT/s x2 (downgraded)" in messages(s, "warn")


# --------------------------------------------------------------------------- detection

@pytest.mark.parametrize("command, kind", [
    ("rdma link", "rdma-link"), ("rdma -j link show", "rdma-link"), ("sudo rdma -d link", "rdma-link"),
    ("show_gids", "show-gids"), ("ibstat", "ibstat"), ("sudo ibstat rocep1s0f1 1", "ibstat"),
    ("ib_write_bw -d rocep1s0f1 -F --report_gbits 192.168.100.11", "perftest"), ("ib_read_lat -d x", "perftest"),
    ("mpirun -np 2 -H a:1,b:1 $HOME/nccl-tests/build/all_gather_perf -b 16G -e 16G", "nccl-tests"),
    ("./build/all_reduce_perf -b 8 -e 1G -f 2 -g 1", "nccl-tests"),
    ("grep -H . /sys/class/infiniband/*/ports/*/state", "ib-sysfs"),
    ("rdma dev", None), ("ip -j addr", "ip-addr"),
])
def test_kind_from_the_prompt(command, kind):
    assert explain_mod._kind_of_command(explain_mod.command_argv(command)) == kind


def test_detection_without_a_prompt(tmp_path):
    assert detect_kind(S.RDMA_LINK) == "rdma-link"
    assert detect_kind(S.RDMA_LINK_JSON) == "rdma-link"
    assert detect_kind(S.SHOW_GIDS) == "show-gids"
    assert detect_kind(S.IBSTAT) == "ibstat"
    assert detect_kind(S.ib_sysfs_probe_output(tmp_path)) == "ib-sysfs"
    assert detect_kind(S.IB_WRITE_LAT.split("\n", 1)[1]) == "perftest"
    assert detect_kind(real("spark/13_*")) == "nccl-log"
    assert detect_kind(real("spark/08_*")) == "nccl-tests"
    # ip -j addr JSON is still ip-addr
    assert detect_kind('[{"ifindex":1,"ifname":"lo","flags":["LOOPBACK"],"mtu":65536,"addr_info":[]}]') == "ip-addr"


@pytest.mark.parametrize("name", sorted(p.name for p in (CAPTURED).glob("*.txt")))
def test_lesson1_captures_are_not_lesson2_kinds(name):
    sections = explain((CAPTURED / name).read_text())
    assert not any(s.kind in LESSON2A for s in sections)


def test_lesson2_outputs_are_not_lesson1_kinds(tmp_path):
    texts = [S.RDMA_LINK, S.RDMA_LINK_JSON, S.SHOW_GIDS, S.IBSTAT, S.IB_WRITE_LAT, S.IB_WRITE_BW_SERVER_MB,
             S.ib_sysfs_probe_output(tmp_path)] + [real(p) for p in ("spark/03_*", "spark/07_*", "spark/08_*",
                                                                     "spark/13_*")]
    for text in texts:
        sections = explain(text)
        assert sections and not any(s.kind in LESSON1 for s in sections), text[:80]
        assert all(s.kind in LESSON2A for s in sections), [(s.kind, s.error) for s in sections]


def test_json_output_and_levels(tmp_path):
    texts = [S.RDMA_LINK, S.SHOW_GIDS, S.IBSTAT, S.IB_WRITE_LAT, S.ib_sysfs_probe_output(tmp_path)] + [
        real(p) for p in ("spark/03_*", "spark/07_*", "spark/08_*", "spark/12_*", "spark/13_*",
                          "h200x2/nccl-allreduce-p2p.txt", "h200x2/nccl-allreduce-socket-fallback.txt")]
    for text in texts:
        sections = explain(text)
        json.dumps(to_jsonable(sections))
        for s in sections:
            assert all(isinstance(f, Finding) and f.level in explain_mod.LEVELS and f.message for f in s.findings)
            assert not (s.error or "").startswith("internal error")


def test_nccl_lines_inside_a_vllm_log_give_its_transport():
    # lesson 2b's vllm-log kind reads the NCCL lines of its log with this lesson's parser
    vllm = real("spark/17_*")
    nccl = "\n".join(x for x in real("spark/13_*").splitlines() if not x.startswith("#"))
    [s] = explain(vllm + "\n" + nccl)
    assert s.kind == "vllm-log" and s.facts.get("nccl_transport") == "NET/IB"


def test_nccl_tests_with_nccl_debug_lines_and_no_prompt_stay_one_section():
    for name in ("all_gather_perf_nccl_debug", "mpirun_tag_output_all_gather"):
        text = (CAPTURED / "nccl_tests_h200x1" / f"{name}.txt").read_text()
        bare = "\n".join(x for x in text.splitlines()
                         if not re.match(r"^# (?:command|date|machine|nccl-tests:|exit):", x))
        [s] = explain(bare)
        assert s.kind == "nccl-tests" and s.facts["nranks"] == 1 and s.command is None
    rows = "\n".join(x for x in (CAPTURED / "nccl_tests_h200x1" / "all_reduce_perf.txt").read_text().splitlines()
                     if not x.startswith("#"))
    [s] = explain(rows)
    assert s.kind == "nccl-tests" and "busbw is 0 in every row" in messages(s, "info") and "fail" not in levels(s)


def test_single_sysfs_files_read_their_path_from_the_prompt():
    text = ("nvidia@spark-a:~$ cat /sys/class/infiniband/rocep1s0f1/ports/1/gid_attrs/types/3\nRoCE v2\n"
            "nvidia@spark-a:~$ cat /sys/class/infiniband/rocep1s0f1/ports/1/gids/3\n"
            "0000:0000:0000:0000:0000:ffff:c0a8:640a\n"
            "nvidia@spark-a:~$ ls /sys/class/infiniband/\nroceP2p1s0f0  roceP2p1s0f1  rocep1s0f0  rocep1s0f1\n")
    a, b, c = explain(text)
    assert a.kind == b.kind == c.kind == "ib-sysfs" and not (a.error or b.error or c.error)
    assert "GID 3, RoCE v2" in messages(a, "info") and "IPv4 192.168.100.10" in messages(b, "info")
    assert "fail" not in levels(a) + levels(b) + levels(c)
    assert "all four ConnectX-7 twins" in messages(c, "info")


def test_nccl_tests_summary_lines_stay_with_their_rows_through_x11_noise():
    out = []
    for line in real("spark/07_*").splitlines():
        out.append(line)
        if line.startswith(" 17179869184") or line.startswith("# Out of bounds"):
            out.append("Authorization required, but no authorization protocol specified")
    n, p = explain("\n".join(out))
    assert (n.kind, p.kind) == ("nccl-tests", "perftest") and n.facts["avg_busbw_reported"] == 22.9611


def test_captured_two_h200_runs():
    d = CAPTURED / "nccl_tests_h200x2"
    [big] = explain((d / "all_gather_perf_16G.txt").read_text())
    assert big.kind == "nccl-tests" and big.facts["nranks"] == 2 and big.facts["avg_busbw_reported"] == 317.298
    assert "not a two-Spark run" in messages(big, "info") and "fail" not in levels(big)
    [sock] = explain((d / "all_gather_perf_socket_fallback.txt").read_text(), host="spark")  # (unsaid: H200s, a choice)
    assert sock.facts["nccl_transport"] == "NET/Socket" and "fell back to TCP sockets" in messages(sock, "fail")
    [p2p] = explain((d / "all_reduce_perf_nccl_debug.txt").read_text())
    assert p2p.facts["nccl_transport"] == "P2P" and "fail" not in levels(p2p)


# --------------------------------------------------------------------------- shapes from the field corpus (issue 27)

def test_nccl_warn_lines_get_their_meaning():
    """NCCL WARN lines are explained (checks/diagnoses.toml), not only repeated: completion error 12 is the
    verbs transport retry exceeded (the NICs cannot reach each other), a closed socket is a consequence."""
    text = ("gpu5:6252:6325 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0>\n"
            "gpu5:6252:6325 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<46487> "
            "with error 12, opcode 0, len 0, vendor err 129\n"
            "gpu5:6252:6300 [0] misc/socket.cc:538 NCCL WARN Net : Connection closed by remote peer node2<47861>\n")
    [s] = explain(text, host="other", nodes=2)
    assert s.kind == "nccl-log"
    fails = messages(s, "fail")
    assert "IBV_WC_RETRY_EXC_ERR" in fails and "NCCL_IB_GID_INDEX" in fails
    assert "the consequence, not the cause" in fails


def test_sockets_between_other_machines_warn_and_mpirun_rank_tags_are_nccl():
    """Two machines that are not Sparks on NET/Socket: it works, slowly (warn), with advice for RDMA NICs and no
    Spark device names; mpirun's `[0] ` rank tags do not make the lines iperf3's."""
    text = ("[0] node0:13571:13571 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n"
            "[1] node2:22555:22555 [0] NCCL INFO Channel 00/0 : 2[1] -> 1[0] [receive] via NET/Socket/0\n"
            "[0] node0:13571:13571 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] via SHM/direct/direct\n")
    [s] = explain(text, host="other", nodes=2)
    assert s.kind == "nccl-log" and levels(s).count("fail") == 0
    assert "over TCP" in messages(s, "warn") and "rocep1s0f1" not in messages(s)
    [spark] = explain(text, host="spark", nodes=2)
    assert "fail" in levels(spark)  # a Spark pair must use RDMA


def test_sockets_on_a_machine_with_rdma_interfaces_fail():
    """NET/Socket between machines whose interfaces are ConnectX ports by their mlx5 names (`ens5f0np0`) or IPoIB
    (`ib0`): RDMA hardware is there and NCCL did not use it (NVIDIA/nccl#941: a container without /dev/infiniband).
    The same log over `eth0` warns, saying sockets are expected there: NCCL found no RDMA device and the interface
    names show none, as on a cloud VM without RDMA (NVIDIA/nccl#447), and data between machines at a few GB/s over TCP
    is the slow setup this course's multi-node runs are not (the field corpus's f004, f005, f029 read it so; its a035
    reads it info)."""
    text = ("node1:7839:7839 [0] NCCL INFO NET/IB : No device found.\n"
            "node1:7839:7839 [0] NCCL INFO NET/Socket : Using [0]ens5f0np0:10.220.178.201<0> [1]virbr0:192.168.122.1<0>\n"
            "node1:7839:7839 [0] NCCL INFO Using network Socket\n")
    plugin = "node1:7839:7839 [0] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin (v5)\n"
    [s] = explain(plugin + text, host="other", nodes=2)  # nccl#941: HPC-X's RDMA plugin, its image built for RDMA
    assert "ens5f0np0" in messages(s, "fail") and "RDMA hardware" in messages(s, "fail")
    [named] = explain(text, host="other", nodes=2)  # an `np0` name alone (mlx5's, but also ice's, bnxt's): a hedged warn
    assert "fail" not in levels(named) and "not visible to NCCL" in messages(named, "warn")
    [w] = explain(text.replace("ens5f0np0", "eth0"), host="other", nodes=2)
    assert "fail" not in levels(w) and "over TCP" in messages(w, "warn") and "expected" in messages(w, "warn")
    [found] = explain(text.replace("ens5f0np0", "eth0").replace("NET/IB : No device found.", "NET/IB : Using "
                                                                "[0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0>"), host="other", nodes=2)
    assert "over TCP" in messages(found, "warn")
    [ipoib] = explain(text.replace("ens5f0np0", "ibp12s0"), host="other", nodes=2)
    assert "ibp12s0" in messages(ipoib, "fail")


def test_interleaved_tables_are_said_and_not_judged_as_one_run():
    """NVIDIA/nccl-tests#182: the size column restarts (256 then 8, 512 then 16): two processes' tables interleaved."""
    def table(sizes: list[int]) -> str:
        return ("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)"
                "  (GB/s)\n" + "".join(f"{n:>12} {n // 4:>13}     float     sum      -1    47.00    0.00    0.00      0"
                                      "    47.00    0.00    0.00      0\n" for n in sizes))
    [s] = explain(table([8, 16, 256, 8, 512, 16, 1024]), host="other", nodes=2)
    assert s.kind == "nccl-tests" and "two tables interleaved" in messages(s, "warn")
    assert "fail" not in levels(s) and "busbw" not in messages(s, "warn")
    [rising] = explain(table([8, 16, 256, 512, 1024]), host="other", nodes=2)
    assert "interleaved" not in messages(rising)


def test_gid_index_above_3_says_the_link_local_gids_below_it():
    """An IBM nsdperf page's show_gids (ConnectX-6, two IPv6 link-local addresses): the IPv4 RoCE v2 GID is index 5."""
    text = ("$ show_gids mlx5_0\nDEV     PORT    INDEX   GID                                     IPv4            VER     DEV\n"
            "---     ----    -----   ---                                     ------------    ---     ---\n"
            + "".join(f"mlx5_0  1       {i}       {gid}{ip:<16}v{1 + i % 2}      ens1f0\n" for i, gid, ip in [
                (0, "fe80:0000:0000:0000:0200:00ff:fe5d:4db8 ", ""), (1, "fe80:0000:0000:0000:0200:00ff:fe5d:4db8 ", ""),
                (2, "fe80:0000:0000:0000:1186:a6b1:3f0b:c441 ", ""), (3, "fe80:0000:0000:0000:1186:a6b1:3f0b:c441 ", ""),
                (4, "0000:0000:0000:0000:0000:ffff:ac13:003c ", "172.19.0.60"),
                (5, "0000:0000:0000:0000:0000:ffff:ac13:003c ", "172.19.0.60")]) + "n_gids_found=6\n")
    [s] = explain(text, host="other", nodes=1)
    good = messages(s, "ok")
    assert "index 5 carries 172.19.0.60" in good and "4 link-local IPv6 (fe80::) GIDs" in good
    # one IPv6 address (the usual): nothing more is said
    usual = "".join(line + "\n" for line in text.splitlines() if " 2       fe80" not in line and " 3       fe80" not in line)
    assert "link-local IPv6" not in messages(explain(usual, host="other", nodes=1)[0])


def test_gpudirect_rdma_is_read_from_the_network_channels():
    """NVIDIA/nccl#687 (`via NET/IB/0/GDRDMA`, healthy) and #1412 (`via NET/IB/3`: staged through host memory)."""
    line = "node1:1:1 [3] NCCL INFO Channel 00/0 : 3[3] -> 6[2] [send] via NET/IB/0{}\n"
    [gdr] = explain(line.format("/GDRDMA"), host="other", nodes=2)
    assert "GPUDirect RDMA" in messages(gdr, "info") and "warn" not in levels(gdr)
    [staged] = explain(line.format(""), host="other", nodes=2)
    assert "host memory" in messages(staged, "warn") and "nvidia_peermem" in messages(staged, "warn")
    [spark] = explain(line.format(""), host="spark", nodes=2)  # a GB10's memory is unified: nothing to say
    assert "GPUDirect" not in messages(spark)


def test_nccl_tests_launched_with_ib_disabled_say_sockets():
    """NVIDIA/nccl-tests#82: mpirun ... -x NCCL_IB_DISABLE=1 ...: the figure is a TCP socket one."""
    row = ("           8             2     float    none       0    40.64    0.00    0.00      0    45.02    0.00    0.00"
           "      0\n")
    [s] = explain("$ mpirun -np 2 -x NCCL_IB_DISABLE=1 ./build/broadcast_perf -b 8 -e 8\n" + row, host="other", nodes=2)
    assert "NCCL_IB_DISABLE=1" in messages(s, "info") and "TCP sockets" in messages(s, "info")
    [plain] = explain("$ mpirun -np 2 ./build/broadcast_perf -b 8 -e 8\n" + row, host="other", nodes=2)
    assert "NCCL_IB_DISABLE" not in messages(plain)


def test_one_host_above_any_pcie_link_is_nvlink():
    rows = "\n".join(f"{n:>12} {n // 2:>12}     bfloat16    none      -1    {t:>7.2f}  {a:>6.2f}  {b:>6.2f}      0"
                     f"    {t:>7.2f}  {a:>6.2f}  {b:>6.2f}      0" for n, t, a, b in
                     [(16777216, 230.0, 72.9, 72.9), (117440512, 837.4, 140.2, 140.2)])
    text = ("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
            "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
            + rows + "\n")
    [s] = explain(text, host="other", nodes=1)
    assert s.kind == "nccl-tests" and "NVLink" in messages(s, "info") and "Spark bars do not apply" in messages(s)


def test_nccl_plugin_devices_and_peer_access_are_said():
    """What an excerpt without channel lines still shows. mark-ramsey-ri/vllm-dgx-spark#1 (a Ray worker on a Spark):
    the RDMA plugin and the devices NCCL's IB transport found. vllm-project/vllm#5405 (colour codes spelled `ESC[36m`):
    a v5 plugin after NCCL asked for v6. akash-network/awesome-akash#543 (a `[vllm]: ` log viewer's tag): P2P off."""
    ray = "(EngineCore_DP0 pid=2301) (RayWorkerWrapper pid=2981, ip=169.254.28.198) spark-3995:2981:2981 [0] NCCL INFO "
    [s] = explain(ray + "P2P plugin v10 IBext_v10\n" + ray + "NET/IB : Made virtual device [0] name=rocep1s0f1 "
                  "speed=200000 ndevs=1\n" + ray + "NET/IB : Made virtual device [1] name=roceP2p1s0f1 speed=200000 "
                  "ndevs=1\n", host="spark", nodes=2)
    assert "rocep1s0f1, roceP2p1s0f1" in messages(s, "info") and "IBext_v10" in messages(s, "info")
    assert set(levels(s)) == {"info"}
    esc = "ESC[36m(RayWorkerVllm pid=4095)ESC[0m mwh-0:4095:4095 [1] NCCL INFO NET/Plugin: "
    [v5] = explain(esc + "Failed to find ncclNetPlugin_v6 symbol.\n" + esc + "Loaded net plugin NCCL RDMA Plugin (v5)\n")
    assert "NCCL RDMA Plugin (v5 API)" in messages(v5, "info") and "newer plugin APIs first" in messages(v5, "info")
    assert "ESC" not in messages(v5)
    tag = "[vllm]: vllm-0:1:1 [0] NCCL INFO "
    sections = explain("[vllm]: INFO 07-29 12:12:21 pynccl.py:63] vLLM is using nccl==2.20.5\n" + tag + "Using network "
                       "Socket\n" + tag + "P2P is disabled between connected GPUs 1 and 0. You can repress this message "
                       "with NCCL_IGNORE_DISABLED_P2P=1.\n", host="other", nodes=1)
    assert kinds(sections)[0] == "vllm-log" and not any(x.error for x in sections)  # the tag read as a tag
    assert all("P2P is disabled between GPUs 0 and 1" in messages(x, "warn") for x in sections)  # one judge for NCCL


def test_network_channels_inside_one_machine_are_said():
    """horovod/horovod#3658: mpirun-tagged channel lines; a `[send]` line's host holds its sender, a `[receive]` line's
    its receiver, so ranks 1 and 2 are both on ip-172-31-0-63 and their channel still went via NET/Socket."""
    a, b = "[1,1]<stdout>:ip-172-31-0-63:2121:2136 [1] NCCL INFO ", "[1,2]<stdout>:ip-172-31-0-63:2122:2137 [2] NCCL INFO "
    c = "[1,4]<stdout>:ip-172-31-12-129:1759:1773 [0] NCCL INFO "
    text = (a + "Channel 01 : 1[1c0] -> 2[1d0] [send] via NET/Socket/0\n" + b + "Channel 01 : 1[1c0] -> 2[1d0] "
            "[receive] via NET/Socket/0\n" + c + "Channel 00 : 0[1b0] -> 4[1b0] [receive] via NET/Socket/0\n")
    [s] = explain(text, host="other", nodes=2)
    [inside] = [m for m in messages(s, "warn").split("\n") if "same machine" in m] or [""]
    assert "1->2 on ip-172-31-0-63" in inside and "0->4" not in inside
    [split] = explain(text.replace(b, b.replace("ip-172-31-0-63", "ip-172-31-12-129")), host="other", nodes=2)
    assert "same machine" not in messages(split)


def test_cut_rank_list_counts_the_highest_rank():
    """coreweave/nccl-tests PR 43 (a GB200 NVL72 rack, 72 ranks; the poster kept the last `# Rank` line): 72 ranks,
    not one, and a busbw above any PCIe link across machines is NVLink's."""
    row = "  8589934592    2147483648     float     sum      -1    20299  423.16  834.57      0    20006  429.37  846.82      0\n"
    [s] = explain("#  Rank 71 Group  0 Pid  14840 on slurm-gb200-207-171 device  3 [0x01] NVIDIA Graphics Device\n"
                  "#\n" + row, host="other", nodes=18)
    assert "72 ranks (some `# Rank` lines are not in the paste)" in messages(s, "info")
    assert "MNNVL" in messages(s, "info") and "One rank" not in messages(s)


def test_no_gid_at_all_and_a_veth_are_said():
    """Mellanox/k8s-rdma-shared-dev-plugin#30 (a pod: show_gids finds nothing, `ethtool -i eth0` says veth): zero GIDs
    fail (RoCE has no address to use), the veth is said as virtual, and text after the count line is not show_gids'."""
    text = ("[root@rdma-test tmp]# show_gids\nDEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n"
            "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\nn_gids_found=0\n\nother info like :\n"
            "[root@rdma-test tmp]# ethtool -i eth0\ndriver: veth\nversion: 1.0\nfirmware-version: \nbus-info: \n"
            "supports-statistics: yes\n")
    gids, eth = explain(text, host="other")
    assert gids.kind == "show-gids" and "n_gids_found=0" in messages(gids, "fail") and not gids.error
    assert eth.kind == "ethtool" and "virtual interface (driver veth" in messages(eth, "info")
    assert eth.facts["reports"][0]["driver"] == "veth"


def test_perftest_tiny_messages_are_message_rate_bound():
    """openucx/ucx#8852 (a forum copy: prompt glued to its command, `iterations` without its `#`): the rows of a small
    `-a` sweep are read, and their Gb/s is said to be bound by the message rate, not by the link."""
    text = ("[root@cn3 ~]#ib_read_bw  cn2  -a -F -d mlx5_1\n                    RDMA_Read BW Test\n"
            " Link type       : IB\n #bytes     iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
            " 2          1000             4.86               4.67               2.450225\n"
            " 128        1000             310.13             310.05             2.539960\n")
    [s] = explain(text, host="other")
    assert s.kind == "perftest" and s.command == "ib_read_bw  cn2  -a -F -d mlx5_1" and not s.error
    assert "at 128 B per message" in messages(s, "info") and "message rate (2.53996 Mpps)" in messages(s, "info")
    [spark] = explain(text.replace("-d mlx5_1", "-d rocep1s0f1").replace(" Link type", " Device : rocep1s0f1\n Link type"), host="spark")
    assert "fail" not in levels(spark) and "message rate" in messages(spark, "info")  # a cut sweep is no degraded NIC
    [big] = explain(text.replace(" 128        1000", " 65536      1000"), host="other")
    assert "message rate" not in messages(big)


def test_perftest_link_local_gid_index_warns():
    """linux-rdma/perftest#262 (ib_write_bw's server side with no -x: GID index 1 on RoCE): mlx5's GID 1 is a
    link-local one; an index whose GID shows the IPv4 address (the client's `GID: ...:192.168...` lines) is not."""
    head = ("$ ib_write_bw\n                    RDMA_Write BW Test\n Dual-port       : OFF          Device         : "
            "rocep4s0f0\n Mtu             : 4096[B]\n Link type       : Ethernet\n GID index       : {i}\n")
    [low] = explain(head.format(i=1), host="other")
    assert "GID index 1" in messages(low, "warn") and "`-x 3`" in messages(low, "warn")
    [v4] = explain(head.format(i=3), host="other")
    assert "warn" not in levels(v4)


@pytest.mark.parametrize("busbw, level, said", [
    ("27.00", "info", "ranks shared one machine"),  # above the cable's 25 GB/s (checks/ranges.toml max)
    ("23.65", "ok", "both twins"), ("18.00", "warn", "a little below"),
    ("12.00", "fail", "only one"), ("3.00", "fail", "single digits"),
])
def test_collective_bench_busbw_bars_from_the_catalogue(busbw, level, said):
    """The pair's busbw bars (checks/ranges.toml [spark-pair.allgather_busbw_gbs]: min 21.875, one_twin_max 14,
    broken_max 5, max 25 = the line rate) on fixture 12's table with its largest busbw set to ``busbw``."""
    text = real("spark/12_*").replace("23.65", busbw)
    bench = next(s for s in explain(text) if s.kind == "collective-bench")
    assert bench.facts["busbw_at_largest_gbs"] == float(busbw)
    assert said in messages(bench, level), bench.findings


def test_a_perftest_the_paste_marks_as_hung_fails_and_a_cut_one_is_only_said():
    """SoftRoCE/rxe-dev#47: ibv_read_bw over rxe with the poster's `--Hang--` note where the result should be."""
    head = ("$ ib_read_bw -d rxe0 -x 0 192.168.122.20\n"
            "---------------------------------------------------------------------------------------\n"
            "                    RDMA_Read BW Test\n"
            " Dual-port       : OFF      Device         : rxe0\n"
            " Number of qps   : 1        Transport type : IB\n"
            " Link type       : Ethernet\n"
            " Gid index       : 0\n")
    [hung] = [s for s in explain(head + "--Hang--\n", host="other") if s.kind]
    assert "notes a hang (`--Hang--`)" in messages(hung, "fail")
    [cut] = [s for s in explain(head, host="other") if s.kind]
    assert "fail" not in levels(cut) and "stops before the end" in messages(cut, "info")
