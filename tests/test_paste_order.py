"""A paste in the order a person debugged: an output, a command that changes what it shows, the same command again
(grader.judges.sequence). The later output is the state now; the earlier one's faults are said as what was before.
The sample is the field corpus's k004 shape (rdma link DOWN, `ip link set ... up`, rdma link ACTIVE), written here with
its lines as rdma-core prints them."""

from __future__ import annotations

from grader.explain import explain
from grader.judges.model import Finding, Section
from grader.judges.sequence import earlier_states
from tests.conftest import levels, messages

DOWN = ("link mlx5_0/1 state DOWN physical_state DISABLED netdev enp65s0f0np0\n"
        "link mlx5_1/1 state DOWN physical_state DISABLED netdev enp65s0f1np1\n")
UP = ("link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev enp65s0f0np0\n"
      "link mlx5_1/1 state DOWN physical_state DISABLED netdev enp65s0f1np1\n")


def _paste(between: str, after: str = UP, host2: str = "node-0") -> str:
    return (f"user@node-0:~$ rdma -d link\n{DOWN}user@node-0:~$ {between}\n"
            f"user@{host2}:~$ rdma -d link\n{after}")


def test_a_fault_mended_by_a_later_command_is_said_as_the_state_before():
    first, change, last = explain(_paste("sudo ip link set enp65s0f0np0 up"), host="other")
    assert (first.kind, last.kind) == ("rdma-link", "rdma-link")
    # without the later output, the first is a failure (no port ACTIVE); here it is what was before the change
    [alone] = explain(f"$ rdma -d link\n{DOWN}", host="other")
    assert "fail" in levels(alone) and "ACTIVE" in messages(alone, "fail")
    assert not {"warn", "fail"} & set(levels(first))
    assert "Before `sudo ip link set enp65s0f0np0 up`: No RDMA port" in messages(first, "info")
    assert "shows the state now" in messages(first, "info") and "rdma -d link" in messages(first, "info")
    assert "fail" not in levels(last) and "mlx5_0/1 ACTIVE" in messages(last)


def test_the_later_output_keeps_its_own_fault():
    still = DOWN.replace("DISABLED netdev enp65s0f0np0", "POLLING netdev enp65s0f0np0")  # (the same lines: read once)
    first, _, last = explain(_paste("sudo ip link set enp65s0f0np0 up", after=still), host="other")
    assert "fail" in levels(last)  # the change mended nothing: the state now still fails
    assert "Before `" in messages(first, "info")


def test_without_a_change_between_or_on_another_host_nothing_is_the_past():
    for between, host2 in (("ip -br a", "node-0"), ("ethtool enp65s0f0np0", "node-0"),
                           ("sudo ip link set enp65s0f0np0 up", "node-1")):
        first, *_ = explain(_paste(between, host2=host2), host="other")
        assert "fail" in levels(first), (between, host2)
        assert "Before `" not in messages(first)


def test_many_outputs_each_look_ahead_to_the_next_change():
    """3,000 outputs, a change after every ninth: each fault before the last change is the past, the last ones are
    not (positions are found by bisection: tests/test_explain_bounded.py's benchmark inputs time the whole)."""
    bad = Section("x", "probe", {}, (Finding("fail", "bad"),), None, "h")
    change = Section("y", "sudo netplan apply", {}, (), None, "h")
    sections = [change if i % 10 == 9 else bad for i in range(3000)]
    out = earlier_states(sections)
    assert [f.level for f in out[0].findings] == ["info", "info"] and "Before `sudo netplan apply`: bad" == \
        out[0].findings[0].message
    assert [f.level for f in out[-2].findings] == ["fail"]  # no change after it: the state now


def test_a_change_that_printed_nothing_is_no_error():
    _, change, _ = explain(_paste("sudo ip link set enp65s0f0np0 up"), host="other")
    assert change.error is None and "prints nothing when it succeeds" in messages(change, "info")
    [empty] = [s for s in explain("$ ibv_devinfo\n$ ip -br a\nlo UNKNOWN 127.0.0.1/8\n") if s.command == "ibv_devinfo"]
    assert empty.error == "the command printed nothing"  # a command that reads state and printed nothing: said


def test_what_a_review_found_in_the_ordering_stays_mended():
    """helper-25's break-it review: (1) an output pasted again word for word as the last state is the state now,
    though the core reads it once; (2) a later run that printed nothing shows no state; (3) a state change that
    printed nothing and that no kind reads (`netplan apply`) still orders the paste; (4) `ray start` on the other
    node changes what `ray status` shows here."""
    final = (_paste("sudo ip link set enp65s0f0np0 up") + "user@node-0:~$ sudo ip link set enp65s0f0np0 mtu 9000\n"
             f"user@node-0:~$ rdma -d link\n{DOWN}")
    assert "fail" in [f.level for s in explain(final, host="other") for f in s.findings]  # (1)
    empty = "user@node-0:~$ rdma -d link\n" + DOWN + "user@node-0:~$ sudo ip link set enp65s0f0np0 up\n" \
            "user@node-0:~$ rdma -d link\nuser@node-0:~$ hostname\nnode-0\n"
    first = explain(empty, host="other")[0]
    assert "fail" in levels(first) and "Before `" not in messages(first)  # (2)
    first, change, _ = explain(_paste("sudo netplan apply"), host="other")
    assert "Before `sudo netplan apply`" in messages(first, "info") and change.error is None  # (3)
    assert "prints nothing when it succeeds" in messages(change, "info")
    one = ("======== Autoscaler status: 2026-11-29 17:00:00 ========\nNode status\n------\nActive:\n 1 node_aaaa1111\n"
           "Pending:\n (no pending nodes)\nRecent failures:\n (no failures)\n\nResources\n------\nUsage:\n 0.0/20.0 CPU\n"
           " 0.0/1.0 GPU\n")
    joined = (f"nvidia@spark-1:~$ ray status\n{one}nvidia@spark-2:~$ ray start --address=192.168.100.10:6379\n"
              "Local node IP: 192.168.100.11\n\n--------------------\nRay runtime started.\n--------------------\n"
              f"nvidia@spark-1:~$ ray status\n{one.replace(' 1 node_aaaa1111', ' 1 node_aaaa1111' + chr(10) + ' 1 node_bbbb2222').replace('1.0 GPU', '2.0 GPU')}")
    before, _, after = explain(joined, host="spark")
    assert {"warn", "fail"} & set(levels(explain(f"$ ray status\n{one}", host="spark")[0]))  # alone: a node missing
    assert not {"warn", "fail"} & set(levels(before)) and "Before `ray start" in messages(before, "info")  # (4)
    assert "2 nodes" in messages(after)


def test_which_commands_change_state_and_which_print_nothing():
    from grader.judges.sequence import changes_state, silent_change
    for command in ("sudo ip link set x up", "docker exec -it node ray start --head", "ssh b sudo ip link set x mtu 9000",
                    "echo 1 | sudo tee /sys/class/net/x/mtu", "mlxconfig -d x set LINK_TYPE_P1=2", "sudo reboot"):
        assert changes_state(command), command
    for command in ("ip a", "last reboot", "modprobe -c", 'history | grep "ip link set"', "cma_roce_mode -d m -p 1",
                    "mlxconfig -d x q", "ethtool -S x", "ray status"):
        assert not changes_state(command), command
    assert silent_change("sudo ip link set x up") and not silent_change("ray start --head")  # ray start always prints
    assert len(silent_change("sudo ip link set x up " + "a" * 5000) or "") < 200  # the command is shown cut
