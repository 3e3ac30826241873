"""L1.netplan reads the netplan files as netplan does: in the lexical order of their names, a later file's
scalar (``mtu``) replacing an earlier one's and a later list (``addresses``) appended to it
(netplan-generate(8), "Handling multiple files"). Each expectation below was checked against netplan.io
0.106's own ``netplan get --root-dir`` on the same files (Debian 12), not against the grader.

The evidence is the sim's healthy lesson-1 recording, with spark-a's netplan listing replaced: its twins are
enp1s0f1np1 = 192.168.100.10/24 and enP2p1s0f1np1 = 192.168.101.10/24, both at MTU 9000."""

from __future__ import annotations

import copy
from pathlib import Path

from grader.evidence import RawOutput, read_evidence
from grader.facts.lesson1 import derive
from grader.grading import grade

GOLDEN_L1 = Path(__file__).resolve().parent / "fixtures" / "golden" / "lesson1-sim-healthy.json"
HEAD = "network:\n  version: 2\n  ethernets:\n"


def twin(name: str, address: str | None = None, mtu: int | None = None) -> str:
    return (f"    {name}:\n" + (f"      addresses: [{address}]\n" if address else "")
            + (f"      mtu: {mtu}\n" if mtu else ""))


def listing(*files: tuple[str, str]) -> str:
    """The netplan probe's output (grader.probes.lesson1.NETPLAN_LISTING) for ``(name, body)`` files, in this order."""
    return "".join(f"=== 600 root:root /etc/netplan/{name}\n{body}" for name, body in files)


def l1_netplan(spark_a_listing: str):
    ev, _ = read_evidence(GOLDEN_L1)
    ev = copy.deepcopy(ev)
    ev.raw = [RawOutput(**{**r.__dict__, "stdout": spark_a_listing, "sha256": ""})
              if r.probe == "netplan" and r.node == "spark-a" else r for r in ev.raw]
    facts = derive(ev)
    verdict = {v.id: v for v in grade(facts, "lesson1", ev.profile)}["L1.netplan"]
    return verdict, facts["nodes"]["spark-a"]["netplan_problems"]


def test_the_recording_as_it_is_passes():
    ev, _ = read_evidence(GOLDEN_L1)
    assert {v.id: v for v in grade(derive(ev), "lesson1", ev.profile)}["L1.netplan"].status == "pass"


def test_addresses_in_one_file_and_the_mtu_in_another_pass():
    """`netplan get` merges them to each twin's address with mtu 9000: what runs."""
    verdict, problems = l1_netplan(listing(
        ("40-cx7.yaml", HEAD + twin("enp1s0f1np1", "192.168.100.10/24") + twin("enP2p1s0f1np1", "192.168.101.10/24")),
        ("70-netplan-set.yaml", HEAD + twin("enp1s0f1np1", mtu=9000) + twin("enP2p1s0f1np1", mtu=9000))))
    assert problems == [] and verdict.status == "pass", problems


def test_a_later_file_overrides_the_mtu_whatever_order_the_listing_has():
    """90-old.yaml sorts after 40-cx7.yaml, so its mtu 1500 is what a reboot brings, though the listing
    prints it first; the same address in both is one address (netplan get prints it once)."""
    full = HEAD + twin("enp1s0f1np1", "192.168.100.10/24", 9000) + twin("enP2p1s0f1np1", "192.168.101.10/24", 9000)
    old = HEAD + twin("enp1s0f1np1", "192.168.100.10/24", 1500)
    verdict, problems = l1_netplan(listing(("90-old.yaml", old), ("40-cx7.yaml", full)))
    assert verdict.status == "fail"
    assert problems == ["/etc/netplan/40-cx7.yaml and /etc/netplan/90-old.yaml, merged, say enp1s0f1np1 has mtu 1500, "
                        "but it runs at 9000 now: fix the file or run `sudo netplan apply`"]
    # the other way round (the old file sorts first), 40-cx7.yaml's 9000 wins and nothing is wrong
    verdict, problems = l1_netplan(listing(("40-cx7.yaml", full), ("10-old.yaml", old)))
    assert problems == [] and verdict.status == "pass", problems


def test_an_address_in_a_second_file_is_added_not_replacing():
    """A stale address in another file is appended: the twin would carry two addresses after a reboot."""
    full = HEAD + twin("enp1s0f1np1", "192.168.100.10/24", 9000) + twin("enP2p1s0f1np1", "192.168.101.10/24", 9000)
    verdict, problems = l1_netplan(listing(("40-cx7.yaml", full),
                                           ("50-cloud-init.yaml", HEAD + twin("enp1s0f1np1", "10.0.0.5/24"))))
    assert verdict.status == "fail"
    assert problems == ["/etc/netplan/40-cx7.yaml and /etc/netplan/50-cloud-init.yaml, merged, say enp1s0f1np1 is "
                        "10.0.0.5/24, 192.168.100.10/24, but it has 192.168.100.10/24 now: fix the file or run "
                        "`sudo netplan apply`"]


def test_an_unreadable_file_is_not_measured_and_the_hint_is_the_lessons_rule():
    """A file of mode 600 that neither the learner's user nor ``sudo -n`` may read (a Spark's first user, whose sudo asks
    a password): L1.netplan is not measured, and says the two lines of lesson 1 that let the grader read it."""
    from grader.facts.lesson1 import NETPLAN_READ_INSTALL, NETPLAN_READ_RULE

    ev, _ = read_evidence(GOLDEN_L1)
    ev = copy.deepcopy(ev)
    ev.raw = [RawOutput(**{**r.__dict__, "stdout": "=== 600 root:root /etc/netplan/40-cx7.yaml\n!!! unreadable\n",
                           "sha256": ""}) if r.probe == "netplan" and r.node == "spark-a" else r for r in ev.raw]
    facts = derive(ev)
    [why] = facts["nodes"]["spark-a"]["netplan_unverified"]
    assert why.startswith("/etc/netplan/40-cx7.yaml (mode 600) is not readable by this user")
    assert f"`{NETPLAN_READ_RULE}` then `{NETPLAN_READ_INSTALL}`" in why
    verdict = {v.id: v for v in grade(facts, "lesson1", ev.profile)}["L1.netplan"]
    assert verdict.status == "unmeasured" and NETPLAN_READ_RULE in " ".join(verdict.details), verdict


def test_a_twin_no_file_sets_is_named_with_what_it_has():
    """No file for a twin: one with an address was set by hand (lost at reboot); one with none is simply not
    configured yet, as at lesson 1's start (it was never "set by hand")."""
    from grader.facts.lesson1 import persistence_problems
    from grader.parsers.iproute import parse_ip_addr

    ifaces = {i.name: i for i in parse_ip_addr(
        "7: enp1s0f1np1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default qlen 1000\n"
        "    link/ether 4c:bb:47:2c:84:21 brd ff:ff:ff:ff:ff:ff\n"
        "    inet 192.168.100.10/24 brd 192.168.100.255 scope global enp1s0f1np1\n"
        "8: enP2p1s0f1np1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default qlen 1000\n"
        "    link/ether 4c:bb:47:2c:84:22 brd ff:ff:ff:ff:ff:ff\n")}
    assert persistence_problems({}, ifaces, ["enp1s0f1np1", "enP2p1s0f1np1"], 9000) == [
        "no file in /etc/netplan sets enp1s0f1np1: its address 192.168.100.10/24 was set by hand and is lost at "
        "reboot; write /etc/netplan/40-cx7.yaml (mode 600) and `sudo netplan apply`",
        "no file in /etc/netplan sets enP2p1s0f1np1, which has no address yet: write /etc/netplan/40-cx7.yaml "
        "(mode 600) and `sudo netplan apply`"]
    assert persistence_problems({}, ifaces, ["enp1s0f1np1"], 9000, complete=False) == []  # a paste may show one file
