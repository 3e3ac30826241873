"""Issue 14, lessons 1 and 2a (network, RoCE, NCCL): `explain` reads the field's pastes to the conclusion
their README gives (../shared/fixtures/field/README.md; copies in tests/fixtures/field), and the shapes the
issue lists, each on a small sample quoted or captured from its source (named beside it). Each asserts the
key findings, their levels and the exit status of `clusterlab explain FILE` (0: nothing fails, 1: a fail).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from grader import cli
from grader.explain import Section, explain
from grader.parsers.show_gids import parse_show_gids
from grader.ranges import expected_range
from tests.conftest import field_text, levels


def _msgs(section: Section, level: str | None = None) -> str:
    return "\n".join(f.message for f in section.findings if level in (None, f.level))


def _levels(section: Section) -> list[str]:
    return [f.level for f in section.findings]


def _exit(tmp_path: Path, capsys, text: str) -> int:
    """The exit status of `clusterlab explain FILE` on ``text``."""
    path = tmp_path / "paste.txt"
    path.write_text(text, encoding="utf-8")
    rc = cli.main(["explain", str(path)])
    capsys.readouterr()
    return rc


# --------------------------------------------------------------------------- the field's pastes

def test_01_ip_addr_spark_without_qsfp_link(tmp_path, capsys):
    """All four CX-7 netdevs NO-CARRIER/DOWN, MTU 1500, no IPv4: QSFP not linked; wlP9s9 has the IPv4;
    enP7s7 up with link-local IPv6 only."""
    text = field_text("01_")
    [s] = explain(text)
    assert s.kind == "ip-addr"
    bad = _msgs(s, "fail")
    for twin in ("enp1s0f0np0", "enp1s0f1np1", "enP2p1s0f0np0", "enP2p1s0f1np1"):
        assert twin in bad
    assert "NO-CARRIER" in bad and "no QSFP link" in bad and "MTU 1500" in bad and "IPv4" in bad
    notes = _msgs(s, "info")
    assert "wlP9s9 192.168.111.87/24 (Wi-Fi)" in notes and "no QSFP twin has one" in notes
    assert "UP with link but no IPv4" not in notes  # enP7s7 (the house port) is said on its own; nothing else is bare
    usb = ("5: enx6c6e07000003: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc fq_codel state UP group default qlen"
           " 1000\n    link/ether 6c:6e:07:00:00:03 brd ff:ff:ff:ff:ff:ff\n")
    [s] = explain(text.rstrip("\n") + "\n" + usb)  # a USB NIC up with link and no address (corpus j019's shape)
    assert "UP with link but no IPv4 address: enx6c6e07000003." in _msgs(s, "info")
    assert "enP7s7 is UP with only a link-local IPv6 address" in notes
    assert "ok" not in _levels(s)
    assert _exit(tmp_path, capsys, text) == 1


def test_02_ibdev2netdev_cable_in_port_0(tmp_path, capsys):
    """Port-0 twins Up, port 1 Down: the cable is in port 0; NCCL_IB_HCA lists both port-0 HCAs."""
    text = field_text("02_")
    [s] = explain(text)
    assert s.kind == "ibdev2netdev" and s.facts["up_ports"] == [0]
    assert "QSFP port 0" in _msgs(s, "ok") and "both twins are Up" in _msgs(s, "ok")
    assert "Port 1" in _msgs(s, "info") and "Down" in _msgs(s, "info")
    assert "NCCL_IB_HCA=roceP2p1s0f0,rocep1s0f0" in _msgs(s, "info")
    assert "fail" not in _levels(s)
    assert _exit(tmp_path, capsys, text) == 0


def test_07_ethtool_show_fec_rs_is_normal(tmp_path, capsys):
    """FEC configured Auto, active RS on enp1s0f1np1 (behind a Japanese sudo prompt): normal, not a fault."""
    text = field_text("07_")
    [s] = explain(text)
    assert s.kind == "ethtool" and s.error is None
    [r] = s.facts["reports"]
    assert (r["interface"], r["fec_configured"], r["fec_active"]) == ("enp1s0f1np1", "Auto", "RS")
    assert _levels(s) == ["ok"] and "not a fault" in _msgs(s) and "RS" in _msgs(s)
    assert "speed" not in _msgs(s).lower()  # no speed line: no verdict on the speed
    assert _exit(tmp_path, capsys, text) == 0


def test_19_show_gids_non_spark_indented_truncated(tmp_path, capsys):
    """mlx5_0/mlx5_1 on a non-Spark host, indented 22 spaces, cut after two HCAs: RoCE v2 IPv4 GID is index 3."""
    text = field_text("19_")
    [s] = explain(text)
    assert s.kind == "show-gids"
    assert {(r["device"], r["index"], r["ipv4"]) for r in s.facts["roce_v2_ipv4"]} == {
        ("mlx5_0", 3, "11.0.0.72"), ("mlx5_1", 3, "11.0.0.73")}
    assert "use 3" in _msgs(s, "info") and "cut off" in _msgs(s, "info")
    assert "not a DGX Spark" in _msgs(s, "info")
    assert "Spark" not in _msgs(s, "ok") and "other Spark" not in _msgs(s)
    assert _exit(tmp_path, capsys, text) == 0


def test_34_soft_roce_on_a_virtualbox_vm(tmp_path, capsys):
    """rxe_0 on p1p1 is Soft-RoCE (software, no RDMA NIC); VirtualBox MACs 08:00:27; MTU 1500."""
    text = field_text("34_")
    rdma, ip = explain(text)
    assert (rdma.kind, ip.kind) == ("rdma-link", "ip-addr")
    assert rdma.facts["software_rdma"] == ["rxe_0"]
    soft = _msgs(rdma, "info")  # a fact of a host not said to be a Spark (corpus h002, the same paste, reads info)
    assert "Soft-RoCE" in soft and "not an RDMA NIC" in soft and "p1p1" in soft
    assert "ok" not in _levels(rdma) and "Soft-RoCE" in _msgs(explain(text, host="spark")[0], "warn")
    notes = _msgs(ip, "info")
    assert "Not a DGX Spark" in notes and "VirtualBox" in notes and "08:00:27" in notes
    assert "p1p1 UP MTU 1500 (192.168.56.102/24)" in notes
    assert _exit(tmp_path, capsys, text) == 0


# --------------------------------------------------------------------------- shapes from the issue

# NCCL's RoCE queue-pair line (transport/net_ib: "NET/IB: %s %d IbDev %d Port %d qpn %d mtu %d ... GID %ld
# (%lX/%lX) ..."), in the form quoted in github.com/NVIDIA/nccl/issues/1657, with an IPv4-mapped GID
# (0/0A64A8C0FFFF0000 = ::ffff:192.168.100.10, little-endian) and no `Using network` or `Channel ... via` line in the excerpt.
NET_IB_QPS = "".join(
    f"spark-a:88:159 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev {d} Port 1 qpn {1047 + d} mtu 3 query_ece={{supported=1, "
    f"vendor_id=0x15b3, options=0x0, comp_mask=0x0}} GID 3 (0/0A64A8C0FFFF0000) fifoRkey=0x15e6c5 fifoLkey=0x15e6c5\n"
    for d in (0, 1))
# nccl-tests' header as it prints it (NVIDIA/nccl-tests), then NCCL's lines, then the rows
TESTS_HEADER = ("# nccl-tests version 2.17.6 nccl-headers=22809 nccl-library=22809\n"
                "# Collective test starting: all_gather_perf\n"
                "# nThread 1 nGpus 1 minBytes 4294967296 maxBytes 4294967296 step: 2(factor) warmup iters: 5 iters: 20\n")
# nccl-tests rows of a degraded run (~2.8 GB/s; procedure.md section 5: stale ConnectX-7 after re-cabling)
DEGRADED_ROWS = ("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw"
                 "   busbw #wrong\n"
                 " 4294967296    1073741824     float    none      -1   767000    5.60    2.80      0   766000    5.61"
                 "    2.80      0\n")


def test_net_ib_qp_lines_are_net_ib_never_sockets(tmp_path, capsys):
    [s] = explain(NET_IB_QPS)
    assert s.kind == "nccl-log" and s.facts["transport_verdict"] == "NET/IB"
    assert "unknown" not in _msgs(s) and "fell back" not in _msgs(s)
    assert "did not fall back to TCP sockets" in _msgs(s, "info")
    assert "GID index 3" in _msgs(s) and "192.168.100.10" in _msgs(s)
    assert "RDMA path MTU 1024" in _msgs(s, "info")
    assert _exit(tmp_path, capsys, NET_IB_QPS) == 0


def test_degraded_nccl_tests_with_net_ib_lines_names_stale_cx7_not_sockets():
    [s] = explain(TESTS_HEADER + NET_IB_QPS + DEGRADED_ROWS)
    assert s.kind == "nccl-tests"
    broken = _msgs(s, "fail")
    assert "not a fallback to sockets" in broken and "stale ConnectX-7" in broken and "reboot both Sparks" in broken
    assert "NCCL fell back to sockets" not in broken
    [plain] = explain(DEGRADED_ROWS, host="spark")  # without NCCL lines: sockets stay a cause, with how to tell
    assert "fell back to sockets" in _msgs(plain, "fail") and "stale ConnectX-7" in _msgs(plain, "fail")
    [unsaid] = explain(DEGRADED_ROWS)  # the host not said, nothing of a Spark shown: the Spark bar hedged, no fail
    assert "fail" not in levels(unsaid) and "If the test ran between two DGX Sparks" in _msgs(unsaid, "info")


# The warning as nccl-tests issue #185 (github.com/NVIDIA/nccl-tests/issues/185) titles it, behind NCCL's prefix
VERBS_UNREACHABLE = ("dgxh100-4:460770:460790 [0] NCCL INFO NET/IB : Using [0]mlx5_10:1/RoCE [1]mlx5_11:1/RoCE [RO]; "
                     "OOB enp220s0np0:10.5.128.34<0>\n"
                     "dgxh100-4:460770:460790 [0] misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed with "
                     "error Network is unreachable\n")


def test_ibv_modify_qp_network_unreachable_is_a_fail(tmp_path, capsys):
    [s] = explain(VERBS_UNREACHABLE)
    assert s.kind == "nccl-log"
    bad = _msgs(s, "fail")
    assert "ibv_modify_qp" in bad and "Meaning:" in bad and "Fix:" in bad and "same /24" in bad
    assert "Spark" not in _msgs(s)  # mlx5 devices on an H100 box: no Spark advice
    assert _exit(tmp_path, capsys, VERBS_UNREACHABLE) == 1


# show_gids as printed (procedure.md section 2.2), with the GIDs and addresses masked as people paste them
REDACTED_GIDS = """DEV     PORT    INDEX   GID                                     IPv4            VER     DEV
---     ----    -----   ---                                     ------------    ---     ---
rocep1s0f1      1       0       fe80:0000:0000:0000:xxxx:xxxx:xxxx:xxxx                 v1      enp1s0f1np1
rocep1s0f1      1       1       fe80:0000:0000:0000:xxxx:xxxx:xxxx:xxxx                 v2      enp1s0f1np1
rocep1s0f1      1       2       0000:0000:0000:0000:0000:ffff:xxxx:xxxx x.x.x.x         v1      enp1s0f1np1
rocep1s0f1      1       3       0000:0000:0000:0000:0000:ffff:xxxx:xxxx x.x.x.x         v2      enp1s0f1np1
n_gids_found=4
"""


def test_show_gids_redacted_still_reads_index_type_and_netdev(tmp_path, capsys):
    table = parse_show_gids(REDACTED_GIDS)
    assert table.redacted and [(r.index, r.version, r.netdev) for r in table.roce_v2_ipv4()] == [
        (3, "v2", "enp1s0f1np1")]
    [s] = explain(REDACTED_GIDS)
    assert s.kind == "show-gids" and s.facts["redacted"]
    assert "masked" in _msgs(s, "info") and "RoCE v2 GID index 3" in _msgs(s, "ok")
    assert _exit(tmp_path, capsys, REDACTED_GIDS) == 0


def test_25g_connectx6_host_is_judged_as_itself():
    """A 25G ConnectX-6 host: mlx5 names, 25000Mb/s. No Spark figure (200 Gb/s, twins, enP7s7) for it."""
    line_mbps = expected_range("spark-pair", "link_speed_mbps")["min"]
    [eth] = explain("$ ethtool ens3np0\nSettings for ens3np0:\n\tSpeed: 25000Mb/s\n\tLink detected: yes\n")
    assert "fail" not in _levels(eth) and f"{line_mbps:g}" not in _msgs(eth)
    [bare] = explain("\tSpeed: 25000Mb/s\n")  # a grep excerpt without the interface: no confident verdict
    assert "fail" not in _levels(bare)
    # ibstat of a ConnectX-6 at 25 Gb/s (ibstat's own layout)
    [ib] = explain("CA 'mlx5_0'\n\tCA type: MT4123\n\tNumber of ports: 1\n\tFirmware version: 20.31.1014\n"
                   "\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 25\n"
                   "\t\tLink layer: Ethernet\n")
    assert "fail" not in _levels(ib) and "warn" not in _levels(ib) and "negotiated down" not in _msgs(ib)


def test_soft_roce_is_software_wherever_it_shows():
    """Soft-RoCE is said wherever it shows: a warning on a host said to be a Spark (its RDMA is the ConnectX-7's), a
    fact elsewhere or where nothing says which (the field corpus's readers: c026, c038, h002, q012 read it so)."""
    line = "link rxe0/1 state ACTIVE physical_state LINK_UP netdev eth0\n"
    [s] = explain(line)
    assert "Soft-RoCE" in _msgs(s, "info") and "warn" not in _levels(s) and "rocep1s0f" not in _msgs(s, "ok")
    [spark] = explain(line, host="spark")
    assert "Soft-RoCE" in _msgs(spark, "warn")


def test_busbw_hint_and_explain_warn_about_the_16g_all_gather():
    checks = tomllib.loads((Path(__file__).resolve().parents[1] / "checks" / "lesson2.toml").read_text())["check"]
    hint = next(c["hint"] for c in checks if c["id"] == "L2.busbw")
    assert "stale ConnectX-7" in hint and "2.8 GB/s" in hint and "reboot" in hint
    assert "-b 16G" in hint and "frozen a Spark" in hint and "-e 4G" in hint
    small = DEGRADED_ROWS.replace(" 4294967296    1073741824", "   33554432       8388608")
    [s] = explain(small)
    assert "-b 16G" in _msgs(s) and "-e 4G" in _msgs(s) and "frozen a Spark" in _msgs(s)


@pytest.mark.parametrize("prefix", ["01_", "02_", "07_", "19_", "34_"])
def test_field_pastes_read_without_error(prefix):
    sections = explain(field_text(prefix))
    assert sections and all(s.kind and s.error is None for s in sections)


def test_netplan_bond_of_twins_is_said_and_its_members_need_no_address():
    """elizabetht's Spark netplan (a balance-xor bond0 over enp1s0f0np0 and enp1s0f1np1, address and MTU on the bond):
    the bond is the finding; its members are not told to get an address, nor the file to add an MTU."""
    text = ("network:\n  version: 2\n  renderer: networkd\n  ethernets:\n    enp1s0f0np0:\n      dhcp4: false\n"
            "    enp1s0f1np1:\n      dhcp4: false\n  bonds:\n    bond0:\n      interfaces:\n        - enp1s0f0np0\n"
            "        - enp1s0f1np1\n      addresses:\n        - 192.168.100.10/24\n      mtu: 9000\n"
            "      parameters:\n        mode: balance-xor\n")
    [s] = explain(text)
    said = " ".join(f.message for f in s.findings)
    [w] = [f.message for f in s.findings if f.level == "warn"]
    assert s.kind == "netplan" and "bond0" in w and "RoCE GID" in w and "ports 0 and 1" in w
    assert "gets no IPv4 address" not in said and "No `mtu:` key" not in said
    assert s.facts["ethernets"]["enp1s0f0np0"]["addresses"] == []
