"""Lesson-2a parsers on real outputs (shared/fixtures/real/spark 03, 07, 08, 12, 13; h200x2 NCCL
logs; tests/fixtures/captured/nccl_tests_h200x1) and on variants derived from them: prompts,
launcher prefixes, timestamps, X11 noise, CRLF, other line orders, other tool versions, cut-offs.
Outputs the real fixtures lack (rdma link, show_gids, ibstat, the sysfs probe) come from
tests/samples_lesson2.py."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from grader.parsers.common import ParseError, strip_log_prefix
from grader.parsers.ib_sysfs import ipv4_of_gid, parse_ib_sysfs, roce_v2_ipv4_gid_index
from grader.parsers.ibstat import parse_ibstat, parse_ibv_devinfo
from grader.parsers.lspci import parse_lspci_vv
from grader.parsers.nccl_log import classify_transport, parse_nccl_log, transport_verdict
from grader.parsers.nccl_tests import busbw_factor, parse_bench_table, parse_nccl_tests
from grader.parsers.perftest import MB_PER_SEC_IN_GBPS, BwRow, LatRow, parse_perftest
from grader.parsers.rdma import parse_rdma_link
from grader.parsers.show_gids import parse_show_gids
from tests import samples_lesson2 as S
from tests.conftest import real_fixture

CAPTURED = Path(__file__).resolve().parent / "fixtures" / "captured" / "nccl_tests_h200x1"


def real(pattern: str) -> str:
    return real_fixture(pattern).read_text()


def captured(name: str) -> str:
    return (CAPTURED / f"{name}.txt").read_text()


def section(text: str, start: str, end: str | None = None) -> str:
    """The part of a fixture from the line containing ``start`` up to the one containing ``end``."""
    a = text.index(start)
    return text[a:text.index(end, a)] if end else text[a:]


def prefixed(text: str, prefix: str) -> str:
    return "\n".join(prefix + x for x in text.splitlines())


def x11(text: str) -> str:
    """X11 noise after every fourth line, CRLF line ends, as pasted from an mpirun over ssh -X."""
    out = []
    for i, line in enumerate(text.splitlines()):
        out.append(line)
        if i % 4 == 3:
            out.append("Authorization required, but no authorization protocol specified")
    return "\r\n".join(out)


# --------------------------------------------------------------------------- common

@pytest.mark.parametrize("line, expected", [
    ("[1,0]<stdout>:#  Rank  0 Group  0", "#  Rank  0 Group  0"),
    ("[1,1]<stderr>: spark:1:1 [0] NCCL WARN x", "spark:1:1 [0] NCCL WARN x"),
    ("(EngineCore_DP0 pid=2301) (RayWorkerWrapper pid=2981, ip=169.254.28.198) spark-b:2981:3113 [0] NCCL INFO a",
     "spark-b:2981:3113 [0] NCCL INFO a"),
    ("2026-11-29T13:41:44.463000123Z vm:1:1 [0] NCCL INFO b [repeated 3x across cluster]", "vm:1:1 [0] NCCL INFO b"),
    ("[2026-11-29 13:41:44,463] [default0]: x", "x"),
    ("vllm-head-1  | spark:1:1 [0] NCCL INFO c", "spark:1:1 [0] NCCL INFO c"),
    ("   65536      5000   1.0", "   65536      5000   1.0"),
    ("[0]rocep1s0f1:1/RoCE", "[0]rocep1s0f1:1/RoCE"),
])
def test_strip_log_prefix(line, expected):
    assert strip_log_prefix(line) == expected


# --------------------------------------------------------------------------- rdma link

def test_rdma_link_text_reads_state_not_the_word_link_up():
    links = parse_rdma_link(S.RDMA_LINK)
    assert [(x.device, x.port, x.state, x.physical_state, x.netdev) for x in links] == [
        ("rocep1s0f0", 1, "DOWN", "DISABLED", "enp1s0f0np0"), ("rocep1s0f1", 1, "ACTIVE", "LINK_UP", "enp1s0f1np1"),
        ("roceP2p1s0f0", 1, "DOWN", "DISABLED", "enP2p1s0f0np0"),
        ("roceP2p1s0f1", 1, "ACTIVE", "LINK_UP", "enP2p1s0f1np1")]
    assert [x.device for x in links if x.is_active] == ["rocep1s0f1", "roceP2p1s0f1"]
    assert not links.truncated and not links.json and isinstance(links, list)
    odd = parse_rdma_link("link rocep1s0f1/1 state DOWN physical_state LINK_UP netdev enp1s0f1np1\n")
    assert not odd[0].is_active and odd[0].physical_state == "LINK_UP"


def test_rdma_link_json_matches_text():
    text, js = parse_rdma_link(S.RDMA_LINK), parse_rdma_link("$ rdma -j -p link\n" + S.RDMA_LINK_JSON)
    assert js.json and list(js) == list(text)
    one_line = parse_rdma_link(re.sub(r"\s*\n\s*", "", S.RDMA_LINK_JSON))
    assert list(one_line) == list(text)
    cut = parse_rdma_link(S.RDMA_LINK_JSON[:S.RDMA_LINK_JSON.index('"ifname": "roceP2p1s0f0"') + 10])
    assert cut.truncated and [x.device for x in cut] == ["rocep1s0f0", "rocep1s0f1"]


def test_rdma_link_other_versions_and_noise():
    old = "1/1: mlx5_0/1: state ACTIVE physical_state LINK_UP netdev ens1f0\n2/1: mlx5_1/1: state DOWN physical_state DISABLED netdev ens1f1\n"
    assert [(x.device, x.state, x.netdev) for x in parse_rdma_link(old)] == [
        ("mlx5_0", "ACTIVE", "ens1f0"), ("mlx5_1", "DOWN", "ens1f1")]
    detail = ("link mlx5_0/1 subnet_prefix fe80:0000:0000:0000 lid 5 sm_lid 1 lmc 0 state ACTIVE physical_state LINK_UP\n"
              "    caps: <SM, TRAP, OPT_IPD, AUTO_MIG, SL_MAP, LED_INFO, SYS_IMAGE_GUID>\n")
    [ib] = parse_rdma_link(detail)
    assert (ib.state, ib.physical_state, ib.netdev) == ("ACTIVE", "LINK_UP", None)
    shuffled = S.RDMA_LINK.splitlines()
    random.Random(3).shuffle(shuffled)
    noisy = "```\r\n[sudo] password for nvidia:\r\nnvidia@spark-a:~$ rdma link show\r\n" + "\r\n".join(
        "  \x1b[1m" + x + "\x1b[0m" for x in shuffled) + "\r\n```"
    assert sorted(parse_rdma_link(noisy), key=lambda x: x.device) == sorted(parse_rdma_link(S.RDMA_LINK),
                                                                           key=lambda x: x.device)
    sim = parse_rdma_link("# simulated by clusterlab sim: no RDMA on this kernel\n" + S.RDMA_LINK)
    assert sim.simulated and len(sim) == 4


def test_rdma_link_cut_off_and_errors():
    cut = parse_rdma_link(S.RDMA_LINK[:S.RDMA_LINK.rindex("ACTIVE") + 4])
    assert cut.truncated and cut[-1].truncated and cut[-1].state is None and cut[-1].device == "roceP2p1s0f1"
    assert parse_rdma_link(S.RDMA_LINK.rstrip()[:-30]).truncated
    with pytest.raises(ParseError, match="command not found"):
        parse_rdma_link("$ rdma link\nbash: rdma: command not found\n")
    with pytest.raises(ParseError, match="no `link"):
        parse_rdma_link("$ rdma link\n")
    with pytest.raises(ParseError, match=r"line 2 .*expected `link"):
        parse_rdma_link(S.RDMA_LINK.splitlines()[0] + "\nlorem ipsum\n" + S.RDMA_LINK)
    with pytest.raises(ParseError, match="rdma"):
        parse_rdma_link("Error: Object \"foo\" is unknown\n")


# --------------------------------------------------------------------------- sysfs probe

@pytest.fixture
def sysfs_text(tmp_path) -> str:
    return S.ib_sysfs_probe_output(tmp_path)


def test_ib_sysfs_probe_output(sysfs_text):
    assert sysfs_text.startswith("device roceP2p1s0f0 0002:01:00.0\n")  # the glob sorts capital P first
    assert "/sys/class/infiniband/rocep1s0f1/ports/1/state:4: ACTIVE" in sysfs_text
    assert "/sys/class/infiniband/rocep1s0f1/ports/1/gid_attrs/types/0:IB/RoCE v1" in sysfs_text
    devs = parse_ib_sysfs(sysfs_text)
    assert list(devs) == ["roceP2p1s0f0", "roceP2p1s0f1", "rocep1s0f0", "rocep1s0f1"]
    for name, (netdev, bdf) in S.SPARK_TWINS.items():
        d = devs[name]
        assert d.pci_bdf == bdf and d.pci_domain == bdf[:4] and list(d.ports) == [1]
        p = d.ports[1]
        assert p.netdev == netdev
        assert (p.state, p.phys_state) == (("ACTIVE", "LinkUp") if name.endswith("f1") else ("DOWN", "Disabled"))
    p = devs["rocep1s0f1"].ports[1]
    assert sorted(p.gids) == [0, 1, 2, 3]  # the all-zero entries 4..7 are left out
    assert [(g.index, g.type, g.ipv4) for g in p.gids.values()] == [
        (0, "RoCE v1", None), (1, "RoCE v2", None), (2, "RoCE v1", "192.168.100.10"), (3, "RoCE v2", "192.168.100.10")]
    assert p.gids[3].gid == "0000:0000:0000:0000:0000:ffff:c0a8:640a" and p.gids[3].ndev == "enp1s0f1np1"
    assert roce_v2_ipv4_gid_index(devs["rocep1s0f1"], 1, "192.168.100.10") == 3
    assert roce_v2_ipv4_gid_index(devs["roceP2p1s0f1"]) == 3
    assert roce_v2_ipv4_gid_index(devs["roceP2p1s0f1"], 1, "192.168.100.10") is None
    assert roce_v2_ipv4_gid_index(devs["rocep1s0f0"]) is None  # no address: only fe80 GIDs
    assert roce_v2_ipv4_gid_index(devs["rocep1s0f1"], 2) is None
    assert not devs.truncated and not devs.simulated


def test_ib_sysfs_any_order_noise_and_cut(sysfs_text):
    lines = sysfs_text.splitlines()
    random.Random(7).shuffle(lines)
    noisy = ["nvidia@spark-a:~$ for d in /sys/class/infiniband/*; do ...; done",
             "grep: /sys/class/infiniband/rocep1s0f0/ports/1/gid_attrs/types/4: Invalid argument"] + lines
    assert parse_ib_sysfs("\r\n".join(noisy)) == parse_ib_sysfs(sysfs_text)
    cut = parse_ib_sysfs(sysfs_text[:sysfs_text.rindex("ffff:c0a8") + 4])
    assert cut.truncated
    sim_root = sysfs_text.replace("/sys/class/infiniband", "/var/lib/clusterlab/sim/nodes/spark-a/infiniband")
    assert parse_ib_sysfs("# simulated by clusterlab sim\n" + sim_root).simulated
    assert parse_ib_sysfs(sim_root) == parse_ib_sysfs(sysfs_text)


def test_ib_sysfs_without_an_address_and_errors(tmp_path):
    devs = parse_ib_sysfs(S.ib_sysfs_probe_output(tmp_path, addresses={}, active={"rocep1s0f1"}))
    assert devs["rocep1s0f1"].ports[1].state == "ACTIVE" and roce_v2_ipv4_gid_index(devs["rocep1s0f1"]) is None
    with pytest.raises(ParseError, match="no RDMA device"):
        parse_ib_sysfs("device * \n")
    with pytest.raises(ParseError, match=r"line 2"):
        parse_ib_sysfs("device rocep1s0f1 0000:01:00.1\nhello world\n")


@pytest.mark.parametrize("gid, ipv4", [
    ("0000:0000:0000:0000:0000:ffff:c0a8:640a", "192.168.100.10"), ("::ffff:192.168.201.12", "192.168.201.12"),
    ("00:00:00:00:00:00:00:00:00:00:255:255:192:168:200:13", "192.168.200.13"),
    ("fe80:0000:0000:0000:4ebb:47ff:fe01:0211", None), ("not a gid", None), ("", None),
])
def test_ipv4_of_gid(gid, ipv4):
    assert ipv4_of_gid(gid) == ipv4


# --------------------------------------------------------------------------- show_gids

def test_show_gids_rows():
    t = parse_show_gids("$ show_gids\n" + S.SHOW_GIDS)
    assert len(t) == 8 and t.n_gids_found == 8 and not t.truncated
    assert [(r.device, r.index, r.ipv4, r.version, r.netdev) for r in t.roce_v2_ipv4()] == [
        ("rocep1s0f1", 3, "192.168.100.10", "v2", "enp1s0f1np1"), ("roceP2p1s0f1", 3, "192.168.101.10", "v2", "enP2p1s0f1np1")]
    assert t[0].ipv4 is None and t[0].gid.startswith("fe80")
    rows_only = parse_show_gids("\n".join(x for x in S.SHOW_GIDS.splitlines() if x.startswith("roce")))
    assert list(rows_only) == list(t) and not rows_only.truncated


def test_show_gids_cut_and_errors():
    cut = parse_show_gids(S.SHOW_GIDS[:S.SHOW_GIDS.index("c0a8:650a\t192.168.101.10  \tv2")])
    assert cut.truncated and len(cut) == 7
    with pytest.raises(ParseError, match="show_gids"):
        parse_show_gids("$ show_gids\nbash: show_gids: command not found\n")
    with pytest.raises(ParseError, match=r"line 3"):
        parse_show_gids(S.SHOW_GIDS.replace("rocep1s0f1\t1\t0\t", "rocep1s0f1 one zero ", 1))


# --------------------------------------------------------------------------- ibstat

def test_ibstat_spark():
    cas = parse_ibstat("$ ibstat\n" + S.IBSTAT)
    assert [c.ca for c in cas] == ["rocep1s0f0", "rocep1s0f1", "roceP2p1s0f0", "roceP2p1s0f1"]
    assert all((c.ca_type, c.firmware, c.model) == ("MT4129", "28.45.4028", "ConnectX-7") for c in cas)
    assert [(p.port, p.state, p.physical_state, p.rate_gbps, p.link_layer) for c in cas for p in c.ports] == [
        (1, "Down", "Disabled", 40.0, "Ethernet"), (1, "Active", "LinkUp", 200.0, "Ethernet"),
        (1, "Down", "Disabled", 40.0, "Ethernet"), (1, "Active", "LinkUp", 200.0, "Ethernet")]
    assert not cas.truncated


def test_ibv_devinfo_in_ibstats_words():
    [c] = parse_ibv_devinfo("$ ibv_devinfo -v\n" + S.IBV_DEVINFO)
    assert (c.ca, c.ca_type, c.firmware, c.model) == ("rocep1s0f1", "MT4129", "28.45.4028", "ConnectX-7")
    [p] = c.ports
    # 4X x 50.0 Gbps = 200 Gb/s, as ibstat's Rate line says it
    assert (p.port, p.state, p.physical_state, p.rate_gbps, p.link_layer, p.active_mtu) == (
        1, "Active", "LinkUp", 200.0, "Ethernet", 4096)
    assert [(i, k) for i, _, k in p.gids] == [(0, "RoCE v1"), (1, "RoCE v2"), (2, "RoCE v1"), (3, "RoCE v2")]
    assert ipv4_of_gid(p.gids[3][1]) == "192.168.100.10" and not parse_ibv_devinfo(S.IBV_DEVINFO).truncated
    # a grep excerpt that starts inside the port block: one device without a name, port 1
    [x] = parse_ibv_devinfo("\n".join(S.IBV_DEVINFO.splitlines()[16:]))
    assert x.ca is None and x.ports[0].physical_state == "LinkUp" and len(x.ports[0].gids) == 4
    down = parse_ibv_devinfo(S.IBV_DEVINFO.replace("PORT_ACTIVE (4)", "PORT_DOWN (1)"))
    assert down[0].ports[0].state == "Down" and not down[0].ports[0].is_active
    with pytest.raises(ParseError, match="no RDMA device"):
        parse_ibv_devinfo("$ ibv_devinfo\nNo IB devices found\n")
    with pytest.raises(ParseError, match="no device found"):
        parse_ibv_devinfo("hello: world\n")


def test_ibstat_other_forms_and_cut():
    assert [c.ca for c in parse_ibstat("$ ibstat -l\nrocep1s0f0\nrocep1s0f1\n")] == ["rocep1s0f0", "rocep1s0f1"]
    port_only = "nvidia@spark-a:~$ ibstat rocep1s0f1 1\n" + "\n".join(
        x.strip() for x in S.IBSTAT.split("CA 'rocep1s0f1'")[1].split("CA '")[0].splitlines()[7:])
    [c] = parse_ibstat(port_only)
    assert c.ca == "rocep1s0f1" and c.ports[0].rate_gbps == 200.0 and c.ports[0].is_active
    grep = parse_ibstat("State: Active\nPhysical state: LinkUp\nRate: 200\n")
    assert len(grep) == 1 and len(grep[0].ports) == 1 and grep[0].ports[0].physical_state == "LinkUp"
    cut = parse_ibstat(S.IBSTAT[:S.IBSTAT.rindex("Capability mask")])
    assert cut.truncated and cut[-1].ports[0].link_layer is None and cut[-1].ports[0].state == "Active"
    with pytest.raises(ParseError, match="modprobe ib_umad"):
        parse_ibstat("ibpanic: [1234] main: can't init UMAD library: No such file or directory\n")
    with pytest.raises(ParseError, match=r"line 2"):
        parse_ibstat("CA 'rocep1s0f1'\n!!! what\n")


# --------------------------------------------------------------------------- lspci (ConnectX-7)

def test_lspci_connectx_functions():
    devs = parse_lspci_vv(S.LSPCI_CX7)
    assert [d.address for d in devs] == ["0000:01:00.0", "0000:01:00.1", "0002:01:00.0", "0002:01:00.1"]
    assert all(d.is_connectx and d.connectx_model == "ConnectX-7" and not d.is_display for d in devs)
    assert [(d.lnksta.speed_gt_s, d.lnksta.width, d.lnksta.width_downgraded) for d in devs] == [
        (32.0, 4, False), (32.0, 4, False), (32.0, 2, True), (32.0, 2, True)]
    nn = parse_lspci_vv("0000:01:00.0 Ethernet controller [0200]: Mellanox Technologies MT2910 Family "
                        "[ConnectX-7] [15b3:1021]\n")[0]
    assert nn.is_connectx and nn.vendor_device == "15b3:1021" and nn.class_id == "0200"


# --------------------------------------------------------------------------- perftest

def test_fixture_03_two_rails():
    a, b = parse_perftest(real("spark/03_*"))
    for run, dev, peer, local, bw, n in ((a, "rocep1s0f0", "192.168.200.12", "192.168.200.13", 92.57, 5),
                                         (b, "roceP2p1s0f0", "192.168.201.12", "192.168.201.13", 97.28, 6)):
        assert (run.program, run.test, run.kind, run.role, run.peer, run.device) == (
            "ib_write_bw", "RDMA_Write BW Test", "bw", "client", peer, dev)
        assert (run.qps, run.transport_type, run.connection_type, run.link_type, run.gid_index, run.rdma_mtu_bytes) == (
            1, "IB", "RC", "Ethernet", 3, 1024)
        assert (run.rdma_cm, run.data_exchange, run.ib_port, run.report_unit) == (False, "Ethernet", 1, "Gb/sec")
        assert (run.local_gid_ipv4, run.remote_gid_ipv4) == (local, peer)
        assert run.run_infinitely and not run.truncated and not run.complete and run.warnings
        assert len(run.rows) == n and all(isinstance(r, BwRow) and r.bytes == 65536 for r in run.rows)
        assert run.bw_average_gbps == bw and run.rows[-1].bw_peak_gbps == 0.0
    assert a.rows[0] == BwRow(65536, 882805, 0.0, 92.57, 0.176554)
    assert b.max_bw_average_gbps == 97.29 and b.rows[-1].msg_rate_mpps == 0.185554


def test_fixture_07_four_qps_rdma_cm():
    [run] = parse_perftest(section(real("spark/07_*"), "# --- ib_write_bw"))
    assert (run.device, run.qps, run.link_type, run.rdma_cm, run.data_exchange, run.gid_index) == (
        "rocep1s0f0", 4, "IB", True, "rdma_cm", None)
    assert run.rows == (BwRow(65536, 20000, 111.62, 111.61, 0.212877),) and run.complete and not run.truncated
    assert (run.program, run.role, run.peer) == ("ib_write_bw", "client", "192.168.10.11")  # from the `# ---` comment
    assert parse_perftest(section(real("spark/07_*"), "# --- ib_write_bw")).bw_avg_gbps == 111.61


def test_perftest_mb_per_sec_server_side():
    [run] = parse_perftest(S.IB_WRITE_BW_SERVER_MB)
    assert run.role == "server" and run.peer is None and run.report_unit == "MB/sec" and run.complete
    assert run.bw_average_gbps == pytest.approx(11034.55 * 8 * 2**20 / 1e9) == pytest.approx(92.5645, abs=1e-4)
    assert MB_PER_SEC_IN_GBPS == 0.008388608


def test_perftest_latency_versions():
    [run] = parse_perftest(S.IB_WRITE_LAT)
    assert (run.kind, run.program, run.role, run.peer, run.rdma_mtu_bytes) == ("lat", "ib_write_lat", "client",
                                                                              "192.168.100.10", 4096)
    assert run.rows == (LatRow(2, 1000, 1.42, 4.20, 1.47, 1.49, 0.05, 1.57, 4.20),) and run.t_typical_us == 1.47
    old = S.IB_WRITE_LAT.replace(
        " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   "
        "99% percentile[usec]   99.9% percentile[usec] ", " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]")
    old = re.sub(r"(?m)^ 2       1000 .*$", " 2       1000          1.42           4.20         1.47", old)
    assert parse_perftest(old)[0].rows == (LatRow(2, 1000, 1.42, 4.20, 1.47),)
    dur = re.sub(r"(?m)^ #bytes #iterations .*$", " #bytes        #iterations       t_avg[usec]  \t", S.IB_WRITE_LAT)
    dur = re.sub(r"(?m)^ 2       1000 .*$", " 2             1473212            1.36", dur)
    r = parse_perftest(dur)[0]
    assert r.rows == (LatRow(2, 1473212, t_avg_us=1.36),) and r.t_typical_us == 1.36


def test_perftest_other_columns_prefixes_and_cuts():
    text = section(real("spark/07_*"), "# --- ib_write_bw")
    cpu = text.replace("MsgRate[Mpps]", "MsgRate[Mpps]    CPU_Util[%]").replace("0.212877", "0.212877\t    5.07")
    assert parse_perftest(cpu)[0].rows[0].cpu_util_percent == 5.07
    tagged = prefixed(text, "2026-11-29T10:00:00Z ")
    assert parse_perftest(tagged)[0].rows == parse_perftest(text)[0].rows
    cut = text[:text.index("111.61") + 3]
    assert parse_perftest(cut)[0].truncated and parse_perftest(cut)[0].rows == ()
    no_result = text[:text.index(" #bytes")]
    assert parse_perftest(no_result)[0].truncated
    rows_only = "$ ib_write_bw -d rocep1s0f0 --report_gbits 10.0.0.2\n 65536      20000            111.62             111.61             0.212877\n"
    assert parse_perftest(rows_only)[0].bw_average_gbps == 111.61


def test_perftest_errors():
    err = ("nvidia@spark-b:~$ ib_write_bw -d rocep1s0f1 192.168.100.10\n"
           "Couldn't connect to 192.168.100.10:18515\n Unable to open file descriptor for socket connection"
           " Unable to init the socket connection\n")
    [run] = parse_perftest(err)
    assert run.role == "client" and len(run.errors) == 2 and not run.rows
    with pytest.raises(ParseError, match="perftest"):
        parse_perftest("$ ib_write_bw -d x\nbash: ib_write_bw: command not found\n")
    with pytest.raises(ParseError, match="no perftest run"):
        parse_perftest("lorem ipsum\n")
    bad = section(real("spark/07_*"), "# --- ib_write_bw").replace("0.212877", "0.212877 1 2 3 4 5") + "\n 64 1 1 1 1\n"
    with pytest.raises(ParseError, match="result row"):
        parse_perftest(bad)


# --------------------------------------------------------------------------- nccl-tests

def test_fixture_07_all_gather_2_ranks():
    r = parse_nccl_tests(section(real("spark/07_*"), "", "# --- ib_write_bw"))
    assert (r.collective, r.tests_version, r.nccl_version, r.nthreads, r.ngpus, r.iters) == (
        "all_gather_perf", "2.18.5", "2.28.9", 1, 1, 20)
    assert (r.min_bytes, r.max_bytes, r.nranks, r.hosts) == (17179869184, 17179869184, 2, ("gb10-node-a", "gb10-node-b"))
    assert [(x.rank, x.group, x.pid, x.device, x.bus_id, x.gpu) for x in r.ranks] == [
        (0, 0, 37755, 0, "000f:01:00", "NVIDIA GB10"), (1, 0, 30808, 0, "000f:01:00", "NVIDIA GB10")]
    [row] = r.rows
    assert (row.size_bytes, row.count, row.dtype, row.redop, row.root) == (17179869184, 2147483648, "float", "none", -1)
    assert (row.out_of_place.time_us, row.out_of_place.algbw_gbs, row.out_of_place.busbw_gbs, row.out_of_place.wrong) == (
        374425, 45.88, 22.94, 0)
    assert (row.in_place.time_us, row.in_place.algbw_gbs, row.in_place.busbw_gbs, row.in_place.wrong) == (
        373792, 45.96, 22.98, 0)
    assert r.avg_busbw_reported == 22.9611 and r.avg_busbw_recomputed == pytest.approx(22.96)
    assert r.out_of_bounds == 0 and r.out_of_bounds_ok and r.concluded and not r.truncated and not r.errors
    assert busbw_factor(r.collective, r.nranks) == 0.5 and row.out_of_place.algbw_gbs * 0.5 == pytest.approx(22.94)


def test_fixture_08_cut_before_avg():
    r = parse_nccl_tests(real("spark/08_*"))
    assert (r.tests_version, r.nccl_version, r.nranks, r.hosts) == ("2.17.6", "2.28.3", 2, ("spark-a", "spark-b"))
    assert r.truncated and r.avg_busbw_reported is None and not r.concluded and r.out_of_bounds_ok
    assert (r.rows[0].out_of_place.busbw_gbs, r.rows[0].in_place.busbw_gbs) == (18.94, 20.95)
    assert r.avg_busbw_recomputed == pytest.approx((18.94 + 20.95) / 2) and r.busbw_at_largest_gbs == pytest.approx(19.945)


@pytest.mark.parametrize("name, collective, nrows, cols_tail", [
    ("all_reduce_perf", "all_reduce_perf", 13, ("busbw", "#wrong")),
    ("all_gather_perf_cputime_timestamps", "all_gather_perf", 4, ("#wrong", "timestamp")),
    ("all_reduce_perf_per_iter", "all_reduce_perf", 3, ("i_p99", "i_cv%")),
    ("all_reduce_perf_nocheck", "all_reduce_perf", 6, ("busbw", "#wrong")),
    ("reduce_scatter_perf", "reduce_scatter_perf", 3, ("busbw", "#wrong")),
    ("all_gather_perf_nccl_debug", "all_gather_perf", 3, ("busbw", "#wrong")),
    ("mpirun_tag_output_all_gather", "all_gather_perf", 3, ("busbw", "#wrong")),
])
def test_nccl_tests_2_19_6_shapes(name, collective, nrows, cols_tail):
    r = parse_nccl_tests(captured(name))
    assert (r.collective, r.tests_version, r.nccl_version, r.nranks) == (collective, "2.19.6", "2.28.3", 1)
    assert len(r.rows) == nrows and r.columns[-2:] == cols_tail and r.columns[:5] == ("size", "count", "type", "redop", "root")
    assert r.avg_busbw_reported == 0 and r.avg_busbw_recomputed == 0 and r.concluded and not r.truncated
    assert r.ranks[0].host == "vm" and r.ranks[0].gpu == "NVIDIA H200" and r.ranks[0].bus_id == "0000:00:06"


def test_nccl_tests_2_19_6_values():
    r = parse_nccl_tests(captured("all_gather_perf_cputime_timestamps"))
    assert r.columns[5] == "cputime" and r.rows[0].timestamp == "2026-11-29 15:47:06"
    assert (r.rows[0].size_bytes, r.rows[0].out_of_place.time_us, r.rows[0].in_place.algbw_gbs) == (1048576, 5.16, 1768.3)
    per_iter = parse_nccl_tests(captured("all_reduce_perf_per_iter")).rows[1]
    assert (per_iter.out_of_place.time_us, per_iter.out_of_place.algbw_gbs, per_iter.in_place.time_us) == (10.81, 387.82, 3.83)
    assert all(m.wrong is None for row in parse_nccl_tests(captured("all_reduce_perf_nocheck")).rows
               for m in (row.out_of_place, row.in_place))
    big = parse_nccl_tests(captured("all_reduce_perf")).rows[-1]
    assert big.in_place.algbw_gbs == 318883 and big.size_bytes == 134217728
    dbg = parse_nccl_tests(captured("all_gather_perf_nccl_debug")).nccl_log
    assert dbg.network == "Socket" and dbg.ib_no_device and dbg.version == "2.28.3+cuda13.0" and dbg.nranks == 1
    assert transport_verdict(dbg) == "unknown"


def test_nccl_tests_mpi_less_build_and_failure():
    two = parse_nccl_tests(captured("mpirun_two_processes"))
    assert two.independent_runs and two.starts == 2 and len(two.rows) == 6 and two.nranks == 1
    assert not parse_nccl_tests(captured("all_reduce_perf")).independent_runs
    bad = parse_nccl_tests(captured("all_reduce_perf_too_many_gpus"))
    assert bad.rows == () and bad.truncated and bad.nranks is None
    assert bad.errors == ("Invalid number of GPUs: 2 requested but only 1 were found.",
                          ".. vm pid 1778: Test failure common.cu:1454")


def test_nccl_tests_older_versions_and_headerless_rows():
    text = real("spark/08_*")
    no_root = re.sub(r"(?m)^(#\s+size\s+count\s+type\s+redop)\s+root", r"\1", text).replace("#wrong", " error")
    no_root = no_root.replace("none      -1   453650", "none   453650").replace("       0   410049", "  0e+00   410049")
    no_root = re.sub(r"(?m)\s+0$", "  0e+00", no_root)
    r = parse_nccl_tests(no_root)
    assert r.columns == ("size", "count", "type", "redop", "time", "algbw", "busbw", "error", "time", "algbw", "busbw", "error")
    assert r.rows[0].root is None and r.rows[0].in_place.busbw_gbs == 20.95 and r.rows[0].in_place.wrong == 0
    old_rank = text.replace("#  Rank  0 Group  0 Pid 1935208 on    spark-a device  0 [000f:01:00] NVIDIA GB10",
                            "#   Rank  0 Pid 1935208 on    spark-a device  0 [0x01] NVIDIA GB10")
    rk = parse_nccl_tests(old_rank).ranks[0]
    assert (rk.group, rk.pid, rk.host, rk.bus_id) == (None, 1935208, "spark-a", "0x01")
    rows = "\n".join(x for x in text.splitlines() if not x.startswith("#"))
    hl = parse_nccl_tests(rows)
    assert hl.rows == parse_nccl_tests(text).rows and hl.columns == () and hl.nranks is None


def test_nccl_tests_noise_prefixes_and_cuts():
    text = section(real("spark/07_*"), "", "# --- ib_write_bw")
    base = parse_nccl_tests(text)
    for variant in (x11(text), prefixed(text, "[1,0]<stdout>:"), prefixed(text, "2026-11-29T10:00:00.5Z "),
                    "nvidia@spark-a:~$ mpirun -np 2 -H 10.0.0.1:1,10.0.0.2:1 $HOME/nccl-tests/build/all_gather_perf "
                    "-b 16G -e 16G -f 2\n" + text):
        r = parse_nccl_tests(variant)
        assert (r.rows, r.ranks, r.avg_busbw_reported, r.collective) == (base.rows, base.ranks, 22.9611, "all_gather_perf")
    cut = text[:text.index("45.96") + 2]
    r = parse_nccl_tests(cut)
    assert r.truncated and r.rows == ()
    with pytest.raises(ParseError, match="nccl-tests"):
        parse_nccl_tests("lorem ipsum\n")
    with pytest.raises(ParseError, match=r"values in a row"):
        parse_nccl_tests(text.replace("22.98       0", "22.98", 1) + "\n 8 2 float none -1 1 1 1 0 1 1 1 0\n")


def test_bench_tables():
    t = parse_bench_table(real("spark/12_*"))
    assert t.form == "table" and t.columns == ("size(MB)", "time(ms)", "algbw(GB/s)", "busbw(GB/s)")
    assert len(t.rows) == 6 and t.largest.size == 2048 and t.largest.busbw_gbs == 23.65 and t.largest.time_us == 90790
    kv = parse_bench_table(real("h200x2/nccl-allreduce-socket-fallback.txt"))
    assert kv.form == "key=value" and [r.busbw_gbs for r in kv.rows] == [1.86, 2.81, 2.86] and kv.rows[0].time_us == 562.8
    with pytest.raises(ParseError):
        parse_bench_table("no table\n")


# --------------------------------------------------------------------------- NCCL_DEBUG=INFO logs

def test_h200x2_p2p_log():
    log = parse_nccl_log(real("h200x2/nccl-allreduce-p2p.txt"))
    assert transport_verdict(log) == "P2P"
    assert (log.version, log.network, log.nranks, log.nnodes, log.hosts) == ("2.28.9+cuda13.0", "Socket", 2, 1, ("vm",))
    assert len(log.channels) == 48 and {c.transport for c in log.channels} == {"P2P"}
    assert log.channels[0].detail == "P2P/CUMEM" and log.ib_no_device and log.ib_devices == ()
    assert log.net_plugins_failed == ("IB",) and log.rings_connected and log.env_settings == {"NCCL_NVLS_ENABLE": "0"}
    assert [b.busbw_gbs for b in log.bench] == [18.58, 259.02, 312.40]


def test_h200x2_socket_fallback_log():
    log = parse_nccl_log(real("h200x2/nccl-allreduce-socket-fallback.txt"))
    assert transport_verdict(log) == "NET/Socket"
    assert log.network == "Socket" and log.socket_ifaces == (("lo", "127.0.0.1"),) and log.nnodes == 2
    assert log.env_settings == {"NCCL_SOCKET_IFNAME": "lo", "NCCL_IB_DISABLE": "1", "NCCL_P2P_DISABLE": "1",
                                "NCCL_SHM_DISABLE": "1", "NCCL_NVLS_ENABLE": "0"}
    assert len(log.channels) == 8 and all(c.transport == "NET/Socket" and c.detail == "NET/Socket/0" for c in log.channels)
    assert {c.direction for c in log.channels} == {"send", "receive"} and log.bootstrap_iface == "lo"


def test_spark_13_vllm_log_two_twins():
    log = parse_nccl_log(real("spark/13_*"))
    assert transport_verdict(log) == "NET/IB"
    assert log.ib_devices == (("rocep1s0f1", 1, "RoCE"), ("roceP2p1s0f1", 1, "RoCE"))
    assert log.ib_devices_by_host == {"spark-a": log.ib_devices, "spark-b": log.ib_devices}
    assert (log.oob_iface, log.oob_address) == ("enp1s0f1np1", "10.100.216.2")
    assert log.env_settings == {"NCCL_IB_HCA": "roce", "NCCL_IB_GID_INDEX": "3"}
    assert log.hosts == ("spark-a", "spark-b") and log.gdr_hcas == ("rocep1s0f1", "roceP2p1s0f1")
    assert [(c.channel, c.transport, c.detail, c.direction, c.host) for c in log.channels] == [
        (8, "NET/IB", "NET/IBext_v10/0", "receive", "spark-b"), (9, "NET/IB", "NET/IBext_v10/1", "receive", "spark-b")]


def test_spark_12_quoted_lines_without_prefix():
    log = parse_nccl_log(real("spark/12_*"))
    assert transport_verdict(log) == "NET/IB" and [h.device for h in log.ib_devices] == ["rocep1s0f0", "roceP2p1s0f0"]
    assert [c.detail for c in log.channels] == ["NET/IBext_v11/0", "NET/IBext_v11/1"] * 2


def test_nccl_log_any_order_and_field_prefixes():
    for name, verdict in (("h200x2/nccl-allreduce-p2p.txt", "P2P"), ("h200x2/nccl-allreduce-socket-fallback.txt",
                                                                    "NET/Socket"), ("spark/13_*", "NET/IB")):
        text = real(name)
        lines = text.splitlines()
        random.Random(11).shuffle(lines)
        assert transport_verdict(parse_nccl_log("\n".join(lines))) == verdict
        for variant in (prefixed(text, "(RayWorkerWrapper pid=123, ip=10.0.0.2) "), prefixed(text, "[1,0]<stdout>:"),
                        prefixed(text, "2026-11-29T13:41:44.123456Z "), x11(text)):
            assert transport_verdict(parse_nccl_log(variant)) == verdict
    mixed = ("INFO 11-29 13:41:44 [__init__.py:235] Automatically detected platform cuda.\n"
             "(RayWorkerWrapper pid=2981, ip=192.168.100.11) INFO 11-29 13:41:50 [pynccl.py:69] vLLM is using nccl==2.28.9\n"
             + real("spark/13_*") + "\nW1129 13:41:44.463000 870 torch/distributed/run.py:851] *****\n")
    assert transport_verdict(parse_nccl_log(mixed)) == "NET/IB"


def test_nccl_log_other_versions_and_transports():
    old = ("host:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE ; OOB ib0:10.0.0.1<0>\n"
           "host:1:1 [0] NCCL INFO Using network IB\n"
           "host:1:1 [0] NCCL INFO Channel 00 : 0[1000] -> 1[2000] via P2P/IPC\n"
           "host:1:1 [0] NCCL INFO Channel 01 : 1[2000] -> 2[3000] via SHM/direct/direct\n"
           "host:1:1 [0] NCCL INFO Channel 00/0 : 1[1] -> 3[3] [send] via NET/IB/0(1)/GDRDMA\n"
           "host:1:1 [0] NCCL INFO Channel 01/0 : 2[0] -> 0[0] [receive] via NET/IB/1/GDRDMA/Shared\n")
    log = parse_nccl_log(old)
    assert log.ib_devices == (("mlx5_0", 1, "IB"), ("mlx5_1", 1, "RoCE")) and log.oob_iface == "ib0"
    assert [c.transport for c in log.channels] == ["P2P", "SHM", "NET/IB", "NET/IB"]
    assert [(c.channel, c.src_rank, c.dst_rank) for c in log.channels][:2] == [(0, 0, 1), (1, 1, 2)]
    assert transport_verdict(log) == "mixed: NET/IB+P2P+SHM"
    only_network = parse_nccl_log("x:1:1 [0] NCCL INFO Using network IB\n")
    assert transport_verdict(only_network) == "NET/IB" and transport_verdict(
        parse_nccl_log("x:1:1 [0] NCCL INFO NET/Socket : Using [0]enP7s7:10.0.0.5<0>\n")) == "NET/Socket"
    assert transport_verdict(parse_nccl_log("x:1:1 [0] NCCL INFO cudaDriverVersion 13000\n")) == "unknown"
    assert classify_transport("NET/AWS Libfabric/0") == "NET/AWS Libfabric" and classify_transport("CollNet/x") == "COLLNET"
    warned = parse_nccl_log("x:1:2 [0] NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out\n"
                            "x:1:1 [0] NCCL INFO transport/net_ib.cc:852 -> 3\n"
                            "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, "
                            "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.28.9\n")
    assert warned.warnings == ("Call to ibv_modify_qp failed with 110 Connection timed out",)
    assert len(warned.errors) == 1 and "unhandled system error" in warned.errors[0]


def test_nccl_log_sim_and_errors():
    from grader.sim import roce_sim, topology
    spec = topology.default_spec()
    log = parse_nccl_log(roce_sim.nccl_log(spec))
    assert log.simulated and transport_verdict(log) == "NET/IB" and len(log.ib_devices) == 2
    with pytest.raises(ParseError, match="NCCL_DEBUG=INFO"):
        parse_nccl_log("INFO 11-29 13:41:44 [api_server.py:1] vLLM API server version 0.11.0\nlorem\n")
    with pytest.raises(ParseError, match="No such file"):
        parse_nccl_log("$ cat nccl.log\ncat: nccl.log: No such file or directory\n")


def test_ib_sysfs_single_files_and_ls():
    text = ("$ cat /sys/class/infiniband/rocep1s0f1/ports/1/gid_attrs/types/3\nRoCE v2\n"
            "$ cat /sys/class/infiniband/rocep1s0f1/ports/1/gids/3\n0000:0000:0000:0000:0000:ffff:c0a8:640a\n"
            "$ grep . /sys/class/infiniband/rocep1s0f1/ports/1/state\n4: ACTIVE\n"
            "$ ls /sys/class/infiniband\nroceP2p1s0f0  roceP2p1s0f1  rocep1s0f0  rocep1s0f1\n")
    devs = parse_ib_sysfs(text)
    assert list(devs) == ["rocep1s0f1", "roceP2p1s0f0", "roceP2p1s0f1", "rocep1s0f0"]
    p = devs["rocep1s0f1"].ports[1]
    assert p.state == "ACTIVE" and roce_v2_ipv4_gid_index(devs["rocep1s0f1"], 1, "192.168.100.10") == 3
    assert devs["rocep1s0f0"].ports == {}
    with pytest.raises(ParseError):  # several files without their paths: the values cannot be placed
        parse_ib_sysfs("$ cat /sys/class/infiniband/*/ports/1/state\n4: ACTIVE\n1: DOWN\n")


@pytest.mark.parametrize("pattern", ["spark/16_*", "spark/17_*"])
def test_vllm_logs_without_nccl_lines_say_so(pattern):
    with pytest.raises(ParseError, match="NCCL_DEBUG=INFO"):
        parse_nccl_log(real(pattern))


def test_nccl_tests_two_h200_captures():
    d = CAPTURED.parent / "nccl_tests_h200x2"
    big = parse_nccl_tests((d / "all_gather_perf_16G.txt").read_text())
    assert (big.nranks, big.hosts, big.avg_busbw_reported) == (2, ("vm",), 317.298)
    [row] = big.rows
    assert (row.size_bytes, row.out_of_place.time_us, row.out_of_place.algbw_gbs, row.out_of_place.busbw_gbs) == (
        17179869184, 27163.8, 632.45, 316.23)
    assert row.in_place.busbw_gbs == 318.37 and busbw_factor(big.collective, 2) * 632.45 == pytest.approx(316.225)
    sweep = parse_nccl_tests((d / "all_gather_perf_sweep.txt").read_text())
    assert len(sweep.rows) == 6 and sweep.avg_busbw_recomputed == pytest.approx(166.657, abs=0.01)
    sock = parse_nccl_tests((d / "all_gather_perf_socket_fallback.txt").read_text())
    assert transport_verdict(sock.nccl_log) == "NET/Socket" and sock.nccl_log.socket_ifaces == (("eth0", "192.0.2.2"),)
    assert sock.avg_busbw_reported == 2.83983 and sock.busbw_at_largest_gbs == pytest.approx(2.99)
    assert sock.nccl_log.env_settings["NCCL_IB_DISABLE"] == "1"
    dbg = parse_nccl_tests((d / "all_reduce_perf_nccl_debug.txt").read_text())
    assert transport_verdict(dbg.nccl_log) == "P2P" and dbg.nccl_log.nranks == 2 and dbg.nccl_log.nnodes == 1
