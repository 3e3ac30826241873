"""Each QSFP twin's PCIe link (reported fault #16): lesson 1's ``nic_pcie`` probe reads sysfs, L1.link_speed warns
when a twin trained narrower or slower than its function can.

The sysfs shape is the kernel's (drivers/pci/pci-sysfs.c), as a user pasted it from a desktop card
(https://github.com/nokyan/resources/issues/512, verbatim below). The GX10 values are the forum report's LnkCap and
LnkSta lines written as sysfs shows them (NVIDIA developer forum, "ASUS Ascent GX10 - second ConnectX-7 PCIe slot
wired at Gen5 x2 instead of x4": 0002:01:00.0 and .1 at ``Speed 32GT/s, Width x2 (downgraded)`` of ``Width x4``;
the DGX Spark FE's four at x4). This machine has no ConnectX-7: no Spark's own sysfs capture is in the project.
"""

from __future__ import annotations

import copy
from pathlib import Path

from grader.evidence import RawOutput, read_evidence
from grader.facts.lesson1 import derive
from grader.grading import grade
from grader.parsers.pcie_sysfs import PcieLink, parse_pcie_sysfs
from grader.probes.lesson1 import NIC_PCIE

GOLDEN_L1 = Path(__file__).resolve().parent / "fixtures" / "golden" / "lesson1-sim-healthy.json"

NOKYAN_512 = """> tail -v -n +1 /sys/bus/pci/devices/0000\\:01\\:00.0/*_link_*
==> /sys/bus/pci/devices/0000:01:00.0/current_link_speed <==
16.0 GT/s PCIe

==> /sys/bus/pci/devices/0000:01:00.0/current_link_width <==
8

==> /sys/bus/pci/devices/0000:01:00.0/max_link_speed <==
32.0 GT/s PCIe

==> /sys/bus/pci/devices/0000:01:00.0/max_link_width <==
16
"""


def sysfs(twin: str, speed: str, width: int, max_width: int = 4) -> str:
    """What ``grep -H . /sys/class/net/TWIN/device/*_link_*`` prints (the probe's form); speed as the kernel writes it."""
    d = f"/sys/class/net/{twin}/device"
    return (f"{d}/current_link_speed:{speed}\n{d}/current_link_width:{width}\n"
            f"{d}/max_link_speed:32.0 GT/s PCIe\n{d}/max_link_width:{max_width}\n")


GX10 = (sysfs("enp1s0f0np0", "32.0 GT/s PCIe", 4) + sysfs("enP2p1s0f0np0", "32.0 GT/s PCIe", 2)
        + sysfs("enp1s0f1np1", "32.0 GT/s PCIe", 4) + sysfs("enP2p1s0f1np1", "32.0 GT/s PCIe", 2))
SPARK_FE = GX10.replace("current_link_width:2", "current_link_width:4")
VETH = "".join(f"grep: /sys/class/net/{t}/device/*_link_*: No such file or directory\n"
               for t in ("enp1s0f0np0", "enP2p1s0f0np0", "enp1s0f1np1", "enP2p1s0f1np1"))


def test_the_real_tail_paste_reads_as_the_kernel_wrote_it():
    got = parse_pcie_sysfs(NOKYAN_512)
    assert got.links == {"0000:01:00.0": PcieLink(16.0, 8, 32.0, 16)} and got.no_device == ()
    assert got.links["0000:01:00.0"].narrower and got.links["0000:01:00.0"].slower


def test_the_probes_form_a_missing_device_and_unknown_values():
    got = parse_pcie_sysfs(GX10 + VETH.splitlines()[0] + "\n")
    assert got.links["enP2p1s0f1np1"] == PcieLink(32.0, 2, 32.0, 4) and got.links["enP2p1s0f1np1"].narrower
    assert not got.links["enp1s0f1np1"].narrower and not got.links["enp1s0f1np1"].slower
    assert got.no_device == ()  # enp1s0f0np0 is shown above: one missing line does not undo it
    assert parse_pcie_sysfs(VETH).no_device == ("enp1s0f0np0", "enP2p1s0f0np0", "enp1s0f1np1", "enP2p1s0f1np1")
    unknown = parse_pcie_sysfs("/sys/class/net/x/device/current_link_speed:Unknown\n/sys/class/net/x/device/"
                               "max_link_speed:32.0 GT/s PCIe\n")
    assert unknown.links["x"] == PcieLink(None, None, 32.0, None) and not unknown.links["x"].slower
    assert parse_pcie_sysfs("nvidia@spark-a:~$ \n\x1b[0m").links == {}


def test_the_probe_names_every_twin_and_changes_nothing():
    for twin in ("enp1s0f0np0", "enP2p1s0f0np0", "enp1s0f1np1", "enP2p1s0f1np1"):
        assert twin in NIC_PCIE
    assert NIC_PCIE.startswith("for t in ") and "grep -H . /sys/class/net/$t/device/*_link_*" in NIC_PCIE


def l1_link_speed(spark_b_output: str, profile: str = "spark-pair", stderr: str = ""):
    """The golden sim recording with spark-b's ``nic_pcie`` output replaced (added, in a recording from before the
    probe); its veth speeds set aside, since what is asked here is the PCIe expectation alone."""
    ev, _ = read_evidence(GOLDEN_L1)
    ev = copy.deepcopy(ev)
    ev.raw = [r for r in ev.raw if r.probe != "nic_pcie"]
    for node in ("spark-a", "spark-b"):
        ev.raw.append(RawOutput(node=node, probe="nic_pcie", command=NIC_PCIE, exit_status=0,
                                stdout=spark_b_output if node == "spark-b" else SPARK_FE,
                                stderr=stderr if node == "spark-b" else ""))
    facts = derive(ev)
    return facts["nodes"]["spark-b"], {v.id: v for v in grade(facts, "lesson1", profile)}["L1.link_speed"]


def test_a_gx10s_x2_twin_warns_and_names_the_board():
    node, verdict = l1_link_speed(GX10)
    assert node["nic_pcie_not_judged"] == []
    assert len(node["nic_pcie_problems"]) == 1  # the cabled port's Up twins only: enp1s0f1np1 at x4, enP2p1s0f1np1 at x2
    problem = node["nic_pcie_problems"][0]
    assert problem.startswith("enP2p1s0f1np1 on spark-b: its PCIe link trained at 32 GT/s x2, not the 32 GT/s x4 the "
                              "function can: it moves about 50% of that.")
    assert "If this machine is an ASUS Ascent GX10" in problem and "367853" in problem
    assert problem in verdict.details
    assert verdict.status == "fail"  # the sim's veth speeds fail a Spark's range beside it: the worse outcome wins


def test_a_twin_on_a_0000_function_is_not_blamed_on_the_gx10():
    node, _ = l1_link_speed(SPARK_FE.replace("enp1s0f1np1/device/current_link_width:4",
                                             "enp1s0f1np1/device/current_link_width:2"))
    assert len(node["nic_pcie_problems"]) == 1 and "GX10" not in node["nic_pcie_problems"][0]
    assert "power the machine off and on" in node["nic_pcie_problems"][0]
    node, _ = l1_link_speed(SPARK_FE.replace("enp1s0f1np1/device/current_link_speed:32.0", "enp1s0f1np1/device/"
                                             "current_link_speed:16.0"))  # a NIC does not lower its speed at idle
    assert node["nic_pcie_problems"][0].startswith("enp1s0f1np1 on spark-b: its PCIe link trained at 16 GT/s x4, not "
                                                   "the 32 GT/s x4 the function can: it moves about 50% of that.")


def test_full_width_passes_a_veth_has_nothing_to_judge_and_a_missing_twin_is_not_judged():
    node, _ = l1_link_speed(SPARK_FE)
    assert (node["nic_pcie_problems"], node["nic_pcie_not_judged"]) == ([], [])
    node, verdict = l1_link_speed("", profile="sim", stderr=VETH)
    assert (node["nic_pcie_problems"], node["nic_pcie_not_judged"]) == ([], [])
    assert verdict.status == "pass"  # the sim: its veth's 10 Gbit/s is its range, and a veth has no PCIe link
    node, verdict = l1_link_speed(sysfs("enp1s0f1np1", "32.0 GT/s PCIe", 4))
    assert node["nic_pcie_not_judged"] == ["the PCIe link of enP2p1s0f1np1 on spark-b was not shown "
                                           "(`grep . /sys/class/net/enP2p1s0f1np1/device/*_link_*` prints it)"]
    unreadable = SPARK_FE.replace("enP2p1s0f1np1/device/current_link_width:4", "enP2p1s0f1np1/device/current_link_width:255")
    assert l1_link_speed(unreadable)[0]["nic_pcie_not_judged"][0].startswith("the PCIe link of enP2p1s0f1np1 on spark-b")
    assert verdict.status in ("fail", "unmeasured")


def test_a_recording_from_before_the_probe_leaves_the_check_not_measured_on_a_spark():
    ev, _ = read_evidence(GOLDEN_L1)
    ev = copy.deepcopy(ev)
    ev.raw = [r for r in ev.raw if r.probe != "nic_pcie"]
    facts = derive(ev)
    assert "nic_pcie_problems" not in facts["nodes"]["spark-a"]
    v = {v.id: v for v in grade(facts, "lesson1", "sim")}["L1.link_speed"]
    assert v.status == "unmeasured" and "nodes.spark-a.nic_pcie_problems: not measured" in v.details


def test_explain_says_what_the_check_says_of_the_same_lines():
    """One judge (grader.facts.lesson1.pcie_link_problem): a pasted probe output warns with the check's sentence."""
    from grader.explain import explain
    node, _ = l1_link_speed(GX10)
    [s] = explain("nvidia@gx10-b:~$ grep . /sys/class/net/enp1s0f1np1/device/*_link_* "
                  "/sys/class/net/enP2p1s0f1np1/device/*_link_*\n" + GX10)
    assert s.kind == "pcie-sysfs"
    warned = [f.message for f in s.findings if f.level == "warn"]
    assert [m for m in warned if m.startswith("enP2p1s0f1np1")] == [
        node["nic_pcie_problems"][0].replace("enP2p1s0f1np1 on spark-b", "enP2p1s0f1np1") + "."]
    assert {f.level for f in s.findings} == {"ok", "warn"}  # enp1s0f1np1 and the port-0 twins run at x4
    [veth] = explain(VETH)
    assert veth.kind == "pcie-sysfs" and {f.level for f in veth.findings} == {"info"}
    assert "sysfs has no PCIe device for it" in veth.findings[0].message


def test_what_is_not_a_sparks_nic_is_judged_as_what_it_is():
    """From a break-it review: the share counts the speed too; no Spark or GX10 words for another machine's device;
    a speed alone lowered (a GPU at idle) is not a fault; a link that never trained says so; two hosts' outputs in
    one paste stay apart."""
    from grader.explain import explain
    d = "/sys/class/net/ens1f0/device"
    slot = f"{d}/current_link_speed:8.0 GT/s PCIe\n{d}/current_link_width:8\n{d}/max_link_speed:16.0 GT/s PCIe\n" \
           f"{d}/max_link_width:16\n"
    [s] = explain(slot)
    [w] = [f.message for f in s.findings if f.level == "warn"]
    assert "about 25% of that" in w and "slot wired for fewer lanes" in w and "Spark" not in w and "GX10" not in w
    g = "/sys/bus/pci/devices/0000:01:00.0"
    idle = f"{g}/current_link_speed:2.5 GT/s PCIe\n{g}/current_link_width:16\n{g}/max_link_speed:16.0 GT/s PCIe\n" \
           f"{g}/max_link_width:16\n"
    [s] = explain(idle)
    assert [f.level for f in s.findings] == ["info"] and "while idle" in s.findings[0].message
    [s] = explain(sysfs("enp1s0f1np1", "Unknown", 0))
    assert "did not train (width 0" in s.findings[0].message and s.findings[0].level == "warn"
    two = sysfs("enP2p1s0f0np0", "32.0 GT/s PCIe", 2) + sysfs("enP2p1s0f0np0", "32.0 GT/s PCIe", 4)
    assert parse_pcie_sysfs(two).links == {"enP2p1s0f0np0": PcieLink(32.0, 2, 32.0, 4),
                                           "enP2p1s0f0np0 (#2)": PcieLink(32.0, 4, 32.0, 4)}
    assert parse_pcie_sysfs(sysfs("x", "8.0 GT/s PCIe", 4, max_width=0)).links["x"].max_width is None


def test_lspci_of_a_connectx_elsewhere_is_not_called_a_spark_twin():
    from grader.explain import explain
    cx6 = ("3b:00.0 Ethernet controller: Mellanox Technologies MT28908 Family [ConnectX-6]\n"
           "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM not supported\n"
           "\t\tLnkSta:\tSpeed 16GT/s (ok), Width x16 (ok)\n")
    [s] = explain(cx6)
    assert [(f.level, f.message) for f in s.findings] == [("ok", "3b:00.0 ConnectX-6: PCIe 16 GT/s x16 (Gen4), all the "
                                                                 "function can.")]
    [s] = explain(cx6.replace("Width x16 (ok)", "Width x8 (downgraded)"))
    [w] = [f.message for f in s.findings if f.level == "warn"]
    assert "x8, not the 16 GT/s x16" in w and "Spark" not in w and "GX10" not in w


def test_a_judge_given_half_a_link_never_raises():
    """A Spark twin shown with its speeds and not its widths (or the other way round) is judged on what is shown."""
    from grader.facts.lesson1 import pcie_link_problem
    assert pcie_link_problem("t", PcieLink(16.0, None, 32.0, None), spark=True).startswith(
        "t: its PCIe link trained at 16 GT/s, not the 32 GT/s the function can: it moves about 50% of that.")
    assert pcie_link_problem("t", PcieLink(None, 2, None, 4), spark=True).startswith(
        "t: its PCIe link trained at x2, not the x4 the function can: it moves about 50% of that.")
    assert pcie_link_problem("t", PcieLink(None, None, None, None), spark=True) is None


def test_a_speed_lowered_at_full_width_is_said_in_one_sentence_by_sysfs_and_lspci():
    """The same link (a ConnectX-6 at 8 of its 16 GT/s, all 16 lanes) read from sysfs and from lspci gives one
    sentence, the device's name aside (grader.judges.pcie._idle_speed): info, not a fault."""
    from grader.explain import explain
    d = "/sys/class/net/ens1f0/device"
    [s] = explain(f"{d}/current_link_speed:8.0 GT/s PCIe\n{d}/current_link_width:16\n"
                  f"{d}/max_link_speed:16.0 GT/s PCIe\n{d}/max_link_width:16\n", host="other")
    [l] = explain("3b:00.0 Ethernet controller: Mellanox Technologies MT28908 Family [ConnectX-6]\n"
                  "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM not supported\n"
                  "\t\tLnkSta:\tSpeed 8GT/s (downgraded), Width x16 (ok)\n", host="other")
    said = ": PCIe 8 GT/s of its 16 GT/s, at full width: many devices (GPUs) lower the speed while idle; read it under load."
    assert [(f.level, f.message) for f in s.findings] == [("info", "ens1f0" + said)]
    assert [(f.level, f.message) for f in l.findings] == [("info", "3b:00.0 ConnectX-6" + said)]


def test_the_same_files_reached_by_an_rdma_device_or_a_pci_path_are_read_too():
    """From a break-it review: ``/sys/class/infiniband/<dev>/device/*_link_*`` (lesson 2 names the twins by their
    RDMA devices) is a PCIe link, judged as its netdev's (roceP2p1s0f1 is enP2p1s0f1np1: a Spark twin, domain
    0002); a ``/sys/devices/pci...`` path names the function by its last address."""
    from grader.explain import explain
    d = "/sys/class/infiniband/roceP2p1s0f1/device"
    text = (f"{d}/current_link_speed:32.0 GT/s PCIe\n{d}/current_link_width:2\n{d}/max_link_speed:32.0 GT/s PCIe\n"
            f"{d}/max_link_width:4\n")
    assert parse_pcie_sysfs(text).links == {"roceP2p1s0f1": PcieLink(32.0, 2, 32.0, 4)}
    [s] = explain(text, host="spark")
    [w] = [f for f in s.findings if f.level == "warn"]
    assert s.kind == "pcie-sysfs" and w.message.startswith("roceP2p1s0f1: its PCIe link trained at 32 GT/s x2, not "
                                                           "the 32 GT/s x4") and "GX10" in w.message
    p = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
    deep = f"{p}/current_link_speed:16.0 GT/s PCIe\n{p}/current_link_width:8\n{p}/max_link_width:16\n"
    assert parse_pcie_sysfs(deep).links == {"0000:01:00.0": PcieLink(16.0, 8, None, 16)}
