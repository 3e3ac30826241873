"""Lesson-3 parsers on real outputs (shared/fixtures/real/h200x2, tests/fixtures/captured/h200x1) and on
noisy variants derived from them: prompts, CRLF, ANSI codes, cut-off pastes, other column orders and
other drivers' names. Derived variants are built in the test from the real text, never hand-written
whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.parsers.common import ParseError
from grader.parsers.lspci import parse_lspci_vv, parse_pci_paths
from grader.parsers.nvidia_smi import (canonical_field, parse_query_gpu, parse_smi_q, parse_smi_table,
                                       parse_topo_matrix, parse_topo_p2p, smi_value)

from tests.conftest import real_fixture  # noqa: E402

CAPTURED = Path(__file__).resolve().parent / "fixtures" / "captured" / "h200x1"


def real(name: str) -> str:
    """A real fixture (tests/conftest.py); skip when absent."""
    return real_fixture(name).read_text()


def captured(name: str) -> str:
    return (CAPTURED / f"{name}.txt").read_text()


def body(text: str) -> list[str]:
    """The fixture's lines without its `#` header and exit lines."""
    return [x for x in text.splitlines() if not x.startswith("#")]


# --------------------------------------------------------------------------- --query-gpu

def test_h200x2_query_reads_gen5_x16_700w():
    q = parse_query_gpu(real("h200x2/nvidia-smi-query.txt"))
    assert len(q.rows) == 2 and q.had_header and not q.truncated
    for i, row in enumerate(q.rows):
        assert (row.index, row.name, row.bus_id) == (i, "NVIDIA H200", f"00000000:00:0{6 + i}.0")
        assert row.get("pcie.link.gen.current") == row.get("pcie.link.gen.max") == 5
        assert row.get("pcie.link.width.current") == row.get("pcie.link.width.max") == 16
        assert row.get("power.limit") == row.get("enforced.power.limit") == row.get("power.max_limit") == 700.0
        assert row.get("memory.total") == 143771
    assert q.rows[0].get("power.draw") == 76.95 and q.units["power.draw"] == "W" and q.units["memory.total"] == "MiB"
    # clocks.sm was queried, nvidia-smi printed clocks.current.sm: both names find it
    assert q.rows[0].get("clocks.sm") == q.rows[0].get("clocks.current.sm") == 345


def test_captured_noheader_nounits_takes_names_from_the_command():
    q = parse_query_gpu(captured("nvidia-smi-query-noheader-nounits"))
    assert not q.had_header and q.units == {}
    row = q.rows[0]
    assert (row.get("pcie.link.gen.max"), row.get("pcie.link.width.current")) == (5, 16)
    assert (row.get("power.min_limit"), row.get("power.limit"), row.get("power.draw")) == (200.0, 700.0, 77.88)
    # without the prompt line and without fields, the columns cannot be named
    with pytest.raises(ParseError, match="no header line and no --query-gpu field list"):
        parse_query_gpu("\n".join(body(captured("nvidia-smi-query-noheader-nounits"))))
    fields = "index,name,pci.bus_id,pcie.link.gen.current".split(",")
    text = "0, NVIDIA H200, 00000000:00:06.0, 5"
    assert parse_query_gpu(text, fields).rows[0].get("pcie.link.gen.current") == 5


def test_captured_unavailable_values_are_none_and_say_so():
    q = parse_query_gpu(captured("nvidia-smi-query-na"))
    row = q.rows[0]
    assert row.get("fan.speed") is None and row.unavailable("fan.speed") == "[N/A]"
    assert row.get("pcie.link.gen.hostmax") is None and row.get("pcie.link.gen.gpucurrent") == 5
    assert row.get("pstate") == "P0" and row.get("clocks_event_reasons.sw_power_cap") == "Not Active"
    # older drivers print clocks_throttle_reasons.*: the same canonical name
    assert canonical_field("clocks_throttle_reasons.sw_power_cap") == "clocks_event_reasons.sw_power_cap"


def test_captured_invalid_field_names_the_field_and_the_fix():
    with pytest.raises(ParseError) as err:
        parse_query_gpu(captured("nvidia-smi-query-badfield"))
    assert "pcie.link.speed" in str(err.value) and "--help-query-gpu" in str(err.value) and err.value.lineno == 5


def test_other_column_order_and_not_supported():
    """Columns reordered (another driver, another query) and a [Not Supported] value: matched by name."""
    lines = body(real("h200x2/nvidia-smi-query.txt"))
    table = [[c.strip() for c in x.split(",")] for x in lines]
    order = list(reversed(range(len(table[0]))))
    shuffled = [", ".join(r[i] for i in order) for r in table]
    shuffled[1] = shuffled[1].replace("76.95 W", "[Not Supported]")
    q = parse_query_gpu("\n".join(shuffled))
    assert q.fields[0] == "clocks.max.sm" and q.fields[-1] == "index"
    assert [r.index for r in q.rows] == [0, 1] and q.rows[1].get("pcie.link.width.max") == 16
    assert q.rows[0].get("power.draw") is None and q.rows[0].unavailable("power.draw") == "[Not Supported]"
    assert q.rows[1].get("power.draw") == 79.89


def test_query_with_prompt_crlf_ansi_and_markdown():
    text = real("h200x2/nvidia-smi-query.txt")
    noisy = "```\r\n" + "\r\n".join(body(text)).replace("NVIDIA H200", "\x1b[1mNVIDIA H200\x1b[0m") + "\r\n```\r\n"
    noisy = "user@box:~$ nvidia-smi --query-gpu=index,name --format=csv\r\n" + noisy
    q = parse_query_gpu(noisy)
    assert [r.name for r in q.rows] == ["NVIDIA H200", "NVIDIA H200"]
    assert q.rows[1].get("enforced.power.limit") == 700.0


def test_cut_off_query_keeps_what_is_there_and_says_what_is_missing():
    lines = body(real("h200x2/nvidia-smi-query.txt"))
    cut = "\n".join(lines[:2] + [lines[2][:lines[2].index("700.00 W")].rstrip(", ")])
    q = parse_query_gpu(cut)
    assert q.truncated and len(q.rows) == 2
    assert q.rows[1].get("pcie.link.width.current") == 16 and q.rows[1].get("power.limit") is None
    assert "power.limit" in q.rows[1].missing and "cut off" in q.notes[0]


def test_query_errors():
    with pytest.raises(ParseError, match="could not read the GPUs"):
        parse_query_gpu("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
                        "Make sure that the latest NVIDIA driver is installed and running.")
    with pytest.raises(ParseError, match="command not found"):
        parse_query_gpu("$ nvidia-smi --query-gpu=index --format=csv\nbash: nvidia-smi: command not found")
    with pytest.raises(ParseError, match="values but"):
        parse_query_gpu("index, name\n0, NVIDIA H200, extra")
    with pytest.raises(ParseError, match="no GPU rows"):
        parse_query_gpu("index, name [W]")


def test_smi_value_typing():
    assert smi_value("power.draw", "700.00 W") == (700.0, "W")
    assert smi_value("memory.total", "143771 MiB") == (143771, "MiB")
    assert smi_value("driver_version", "535.54") == ("535.54", None)  # not a float
    assert smi_value("pstate", "P0") == ("P0", None)
    assert smi_value("fan.speed", "[N/A]") == (None, None)


# --------------------------------------------------------------------------- topo -m / -p2p

def test_h200x2_topo_reads_nv18():
    t = parse_topo_matrix(real("h200x2/nvidia-smi-topo.txt"))
    assert t.devices == ("GPU0", "GPU1") and t.gpu_pairs() == [("GPU0", "GPU1", "NV18")]
    assert t.link("GPU1", "GPU0") == "NV18" and t.link("GPU0", "GPU0") == "X"
    assert t.cpu_affinity == {"GPU0": "0-31", "GPU1": "0-31"} and t.numa_affinity == {"GPU0": "0", "GPU1": "0"}
    assert not t.truncated


def test_topo_without_tabs_with_crlf_reads_the_same():
    text = real("h200x2/nvidia-smi-topo.txt")
    spaced = "\r\n".join("    " + x.replace("\t", "   ") for x in text.splitlines())
    t = parse_topo_matrix(spaced)
    assert t.gpu_pairs() == [("GPU0", "GPU1", "NV18")] and t.cpu_affinity["GPU1"] == "0-31"


def test_topo_consumer_pair_with_nic_from_the_real_layout():
    """The h200x2 matrix with the NVLink replaced by PHB and a NIC column added, as a desktop with a NIC
    prints it (derived from the real layout)."""
    lines = body(real("h200x2/nvidia-smi-topo.txt"))
    head = lines[0].replace("GPU1\t", "GPU1\tNIC0\t")
    rows = [lines[1].replace("NV18\t", "PHB\tPHB\t"), lines[2].replace("NV18\t X \t", "PHB\t X \tNODE\t"),
            "NIC0\tPHB\tNODE\t X "]
    text = "\n".join([head, *rows, "", "Legend:", "  X    = Self", "", "NIC Legend:", "", "  NIC0: mlx5_0"])
    t = parse_topo_matrix(text)
    assert t.devices == ("GPU0", "GPU1", "NIC0") and t.gpus == ("GPU0", "GPU1")
    assert t.gpu_pairs() == [("GPU0", "GPU1", "PHB")] and t.link("GPU1", "NIC0") == "NODE"
    assert t.nic_legend == {"NIC0": "mlx5_0"} and t.cpu_affinity == {"GPU0": "0-31", "GPU1": "0-31"}


def test_cut_off_topo_says_which_row_is_missing():
    lines = real("h200x2/nvidia-smi-topo.txt").splitlines()
    t = parse_topo_matrix("\n".join(lines[:3]))
    assert t.truncated and t.devices == ("GPU0", "GPU1") and "GPU1 is missing" in t.notes[0]
    assert t.link("GPU0", "GPU1") == "NV18"


def test_topo_errors():
    with pytest.raises(ParseError, match="not a link code"):
        parse_topo_matrix("\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tFAST\t0-31")
    with pytest.raises(ParseError, match="no topology matrix"):
        parse_topo_matrix("Legend:\n  X    = Self")


def test_captured_single_gpu_topo_and_p2p():
    t = parse_topo_matrix(captured("nvidia-smi-topo-m"))
    assert t.devices == ("GPU0",) and t.gpu_pairs() == [] and t.cpu_affinity == {"GPU0": "0-15"}
    p = parse_topo_p2p(captured("nvidia-smi-topo-p2p-r"))
    assert p.gpus == ("GPU0",) and p.mode == "r" and p.status == {("GPU0", "GPU0"): "X"} and p.pairs() == []


def test_p2p_pair_from_the_captured_layout():
    """The captured one-GPU `topo -p2p r` grown to two GPUs, as a GeForce pair prints it (CNS)."""
    lines = body(captured("nvidia-smi-topo-p2p-r"))
    lines[0] = lines[0].replace("GPU0\t", "GPU0\tGPU1\t")
    lines[1] = lines[1] + "CNS\t"
    lines.insert(2, " GPU1\tCNS\tX\t")
    p = parse_topo_p2p("$ nvidia-smi topo -p2p r\n" + "\n".join(lines))
    assert p.pairs() == [("GPU0", "GPU1", "CNS")] and p.mode == "r"
    with pytest.raises(ParseError, match="not a P2P status"):
        parse_topo_p2p(" \tGPU0\tGPU1\n GPU0\tX\tMAYBE")


# --------------------------------------------------------------------------- the plain table

def test_h200x2_table():
    t = parse_smi_table(real("h200x2/nvidia-smi.txt"))
    assert (t.driver_version, t.cuda_version) == ("580.159.04", "13.0") and len(t.gpus) == 2
    g = t.gpus[1]
    assert (g.index, g.name, g.bus_id, g.persistence) == (1, "NVIDIA H200", "00000000:00:07.0", "On")
    assert (g.power_draw_w, g.power_cap_w, g.memory_total_mib, g.temperature_c, g.perf_state) == \
        (79.0, 700.0, 143771, 33, "P0")


def test_table_cut_after_first_line_of_a_gpu():
    lines = real("h200x2/nvidia-smi.txt").splitlines()
    cut = lines[:lines.index(next(x for x in lines if x.startswith("|   1  NVIDIA"))) + 1]
    t = parse_smi_table("\n".join(cut))
    assert t.truncated and [g.index for g in t.gpus] == [0, 1] and t.gpus[1].power_cap_w is None


def test_table_old_driver_layout():
    """The captured row in the narrower 470/525-series layout (fan in %, no padding), built from it."""
    lines = body(captured("nvidia-smi"))
    row1 = next(x for x in lines if x.startswith("|   0  NVIDIA"))
    old1 = row1.replace("NVIDIA H200", "NVIDIA GeForce ...").replace("  On  |", "  Off |")
    old2 = "| 30%   43C    P8    17W / 350W |    521MiB / 24265MiB |      2%      Default |"
    t = parse_smi_table("\n".join(["| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |",
                                   old1, old2]))
    g = t.gpus[0]
    assert t.driver_version == "470.82.01" and g.persistence == "Off"
    assert (g.power_draw_w, g.power_cap_w, g.memory_used_mib, g.utilization_pct) == (17.0, 350.0, 521, 2)


# --------------------------------------------------------------------------- -q

def test_captured_q_full_and_power():
    q = parse_smi_q(captured("nvidia-smi-q"))
    assert q.driver_version == "580.159.04" and len(q.gpus) == 1
    g = q.gpus[0]
    assert g.bus_id == "00000000:00:06.0" and g.product_name == "NVIDIA H200"
    assert (g.pcie_gen_current, g.pcie_gen_max, g.pcie_width_current, g.pcie_width_max) == (5, 5, 16, 16)
    assert g.pcie_gen_host_max is None  # N/A in a VM
    assert (g.power("limit"), g.power("default"), g.power("min"), g.power("max")) == (700.0, 700.0, 200.0, 700.0)
    assert g.power("draw") == 77.86 and g.clock_event("SW Power Cap") is False
    assert g.get("FB Memory Usage", "Total") == "143771 MiB"
    p = parse_smi_q(captured("nvidia-smi-q-power")).gpus[0]
    assert (p.power("min"), p.power("max"), p.power("requested")) == (200.0, 700.0, 700.0)


def test_q_older_driver_names():
    """Power Readings / Power Limit / Enforced Power Limit and Clocks Throttle Reasons, as drivers before
    the 5xx series print them: the captured section with those names swapped in."""
    text = captured("nvidia-smi-q-power").replace("GPU Power Readings", "Power Readings") \
        .replace("Current Power Limit ", "Enforced Power Limit").replace("Requested Power Limit", "Power Limit          ")
    text += ("\n    Clocks Throttle Reasons\n        SW Power Cap                                   : Active\n")
    g = parse_smi_q(text).gpus[0]
    assert (g.power("enforced"), g.power("limit"), g.power("max")) == (700.0, 700.0, 700.0)
    assert g.clock_event("SW Power Cap") is True


def test_q_crlf_and_errors():
    crlf = captured("nvidia-smi-q-power").replace("\n", "\r\n")
    assert parse_smi_q(crlf).gpus[0].power("limit") == 700.0
    with pytest.raises(ParseError, match="no `GPU"):
        parse_smi_q("Timestamp : now\nDriver Version : 580.159.04")
    with pytest.raises(ParseError, match="No devices were found|could not read the GPUs"):
        parse_smi_q("No devices were found")


# --------------------------------------------------------------------------- lspci

def test_captured_lspci_link():
    [d] = parse_lspci_vv(captured("lspci-vv-nvidia"))
    assert (d.address, d.class_name, d.is_display) == ("00:06.0", "3D controller", True)
    assert (d.lnkcap.gen, d.lnkcap.width, d.lnksta.gen, d.lnksta.width) == (5, 16, 5, 16)
    assert d.lnksta.speed_gt_s == 32.0 and not d.width_reduced and not d.speed_reduced and not d.truncated
    assert parse_lspci_vv(captured("lspci-vv-nvidia-3d"))[0].lnksta.width == 16


def test_lspci_downgraded_variant_from_the_capture():
    """A Gen4 x16 card trained at x4 in a chipset slot: the captured block with its link lines edited."""
    text = captured("lspci-vv-nvidia").replace("LnkCap:\tPort #0, Speed 32GT/s", "LnkCap:\tPort #0, Speed 16GT/s") \
        .replace("LnkSta:\tSpeed 32GT/s, Width x16", "LnkSta:\tSpeed 2.5GT/s (downgraded), Width x4 (downgraded)") \
        .replace("3D controller: NVIDIA Corporation Device 2335",
                 "VGA compatible controller [0300]: NVIDIA Corporation AD102 [GeForce RTX 4090] [10de:2684]")
    [d] = parse_lspci_vv(text)
    assert d.class_id == "0300" and d.vendor_device == "10de:2684" and d.name == "GeForce RTX 4090"
    assert (d.lnkcap.gen, d.lnksta.gen, d.lnksta.width) == (4, 1, 4)
    assert d.lnksta.width_downgraded and d.lnksta.speed_downgraded and d.width_reduced and d.speed_reduced


def test_lspci_access_denied_and_cut_off():
    lines = captured("lspci-vv-nvidia").splitlines()
    start = next(i for i, x in enumerate(lines) if x.startswith("\tCapabilities: [40]"))
    denied = "\n".join(lines[:start] + ["\tCapabilities: <access denied>", "\tKernel driver in use: nvidia"])
    [d] = parse_lspci_vv(denied)
    assert d.access_denied and d.lnksta is None and not d.truncated
    cut_at = next(i for i, x in enumerate(lines) if "LnkCap:" in x)
    [c] = parse_lspci_vv("\n".join(lines[:cut_at + 1]))
    assert c.lnkcap.width == 16 and c.lnksta is None and c.truncated


def test_lspci_errors():
    tree = parse_lspci_vv(captured("lspci-tv"))  # the tree is read as one (grader.parsers.lspci_tree), no devices
    assert tree == [] and tree.roots == ["0000:00"] and len(tree.buses["0000:00"].functions) == 7
    with pytest.raises(ParseError, match="command not found"):
        parse_lspci_vv("$ lspci -vv\nbash: lspci: command not found")
    with pytest.raises(ParseError, match="no PCI device"):
        parse_lspci_vv("lspci: Unable to load libkmod resources: error -2")


def test_pci_paths():
    paths = parse_pci_paths("0000:00:06.0 /sys/devices/pci0000:00/0000:00:06.0\n"
                            "0000:05:00.0 /sys/devices/pci0000:00/0000:00:02.1/0000:02:00.0/0000:03:08.0/0000:05:00.0")
    assert [(p.address, p.bridges) for p in paths] == [("0000:00:06.0", 0), ("0000:05:00.0", 3)]
    with pytest.raises(ParseError, match="does not end"):
        parse_pci_paths("0000:01:00.0 /sys/devices/pci0000:00/0000:00:01.0")


# https://github.com/NVIDIA/nccl/issues/523 (one bridge's ACS lines, as posted)
ACS_OFF = """lspci -s a8:0c.0 -vvvv | grep ACS
                UESta:  DLP- SDES- TLP- FCP- CmpltTO- CmpltAbrt- UnxCmplt- RxOF- MalfTLP- ECRC- UnsupReq- ACSViol-
                UEMsk:  DLP- SDES- TLP- FCP- CmpltTO- CmpltAbrt- UnxCmplt- RxOF- MalfTLP- ECRC- UnsupReq- ACSViol-
                UESvrt: DLP- SDES- TLP+ FCP+ CmpltTO- CmpltAbrt- UnxCmplt- RxOF- MalfTLP- ECRC- UnsupReq- ACSViol-
                ACSCap: SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans+
                ACSCtl: SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-
"""


def test_a_bridges_acs_controls_grepped_alone():
    """`lspci -s ADDR -vvvv | grep ACS` (nccl#523): the ACSCtl line gives the device lspci was asked for, its controls
    all off, and explain says P2P can pass that bridge; with ReqRedir+ and CmpltRedir+ (club-3090#1095's root port,
    the corpus's u015) it says peer-to-peer traffic is redirected to the root complex. ACSCap (what it could do) and
    the error registers' ACSViol- are not its controls."""
    from grader.explain import explain
    (dev,) = parse_lspci_vv("$ " + ACS_OFF)
    assert (dev.address, dev.acs_on, dev.lnksta) == ("a8:0c.0", (), None)
    [section] = explain("$ " + ACS_OFF, host="other")
    assert [(f.level, "ACS redirect is off" in f.message) for f in section.findings] == [("info", True)]
    on = ACS_OFF.replace("ACSCtl: SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd-",
                         "ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+")
    (dev,) = parse_lspci_vv("$ " + on)
    assert dev.acs_on == ("SrcValid", "ReqRedir", "CmpltRedir", "UpstreamFwd")
    [section] = explain("$ " + on, host="other")
    assert "ACS redirect is on (SrcValid+, ReqRedir+, CmpltRedir+, UpstreamFwd+)" in section.findings[0].message


def test_several_acsctl_lines_grepped_are_several_bridges():
    """`lspci -vvv | grep -i acsctl` over a whole machine (nccl#523 posted 13 such lines): one bridge per line, and
    explain counts those with redirect on, instead of keeping the last line only (a review's finding)."""
    from grader.explain import explain
    off = "\t\tACSCtl:\tSrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-\n"
    on = "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n"
    text = "$ lspci -vvv | grep -i acsctl\n" + on + off + off + on
    assert [d.acs_on for d in parse_lspci_vv(text)] == [("SrcValid", "ReqRedir", "CmpltRedir", "UpstreamFwd"), (), (),
                                                         ("SrcValid", "ReqRedir", "CmpltRedir", "UpstreamFwd")]
    [section] = explain(text, host="other")
    assert section.findings[0].message.startswith("ACS redirect is on at 2 of the 4 devices whose ACSCtl line is shown")
