"""Inventories of N nodes (issue 18): `topology = "pair" | "ring" | "switch"`, its validation, and the pairs
that should talk. The two-node default is unchanged (tests/test_inventory.py holds its cases)."""

from __future__ import annotations

import pytest

from grader.inventory import InventoryError, Pair, load_inventory


def _nodes(*names: str) -> str:
    return "".join(f'[[nodes]]\nname = "{n}"\naddress = "10.0.0.{i + 1}"\n' for i, n in enumerate(names))


def write(tmp_path, text):
    p = tmp_path / "inv.toml"
    p.write_text(text)
    return p


def load(tmp_path, head: str, *names: str):
    return load_inventory(write(tmp_path, head + _nodes(*names)))


def error(tmp_path, head: str, *names: str) -> str:
    with pytest.raises(InventoryError) as err:
        load(tmp_path, head, *names)
    return str(err.value)


# --------------------------------------------------------------------------- the default: a pair, as before

def test_no_topology_is_a_pair_as_before(tmp_path):
    inv = load(tmp_path, 'profile = "spark-pair"\nqsfp_port = 1\n', "spark-a", "spark-b")
    assert inv.topology == "pair"
    assert inv.peer("spark-a").name == "spark-b" and inv.peer("spark-b").name == "spark-a"
    assert inv.pairs() == [Pair("spark-a", "spark-b", 1, 1, "cable")]
    assert [n.name for n in inv.peers_of("spark-b")] == ["spark-a"]


def test_explicit_pair_is_the_same(tmp_path):
    a = load(tmp_path, 'profile = "sim"\nqsfp_port = 0\n', "spark-a", "spark-b")
    b = load(tmp_path, 'profile = "sim"\ntopology = "pair"\nqsfp_port = 0\n', "spark-a", "spark-b")
    assert a.model_dump(exclude={"path"}) == b.model_dump(exclude={"path"})


def test_one_node_profiles_keep_the_default(tmp_path):
    inv = load(tmp_path, 'profile = "single-spark"\n', "spark-a")
    assert inv.topology == "pair" and inv.pairs() == [] and inv.peer("spark-a") is None
    assert "profile 'single-spark' has one node: remove `topology`" in error(
        tmp_path, 'profile = "single-spark"\ntopology = "switch"\n', "spark-a")


def test_pair_of_three_says_which_topology(tmp_path):
    msg = error(tmp_path, 'profile = "spark-pair"\nqsfp_port = 1\n', "a", "b", "c")
    assert "needs 2 [[nodes]] table(s), found 3" in msg
    assert 'topology = "ring"' in msg and '"switch"' in msg


def test_pair_of_one_message_unchanged(tmp_path):
    msg = error(tmp_path, 'profile = "spark-pair"\nqsfp_port = 1\n', "a")
    assert "profile 'spark-pair' needs 2 [[nodes]] table(s), found 1" in msg
    assert "topology" not in msg


# --------------------------------------------------------------------------- ring

def test_ring_of_three_pairs_are_its_links(tmp_path):
    inv = load(tmp_path, 'profile = "spark-pair"\ntopology = "ring"\n', "n1", "n2", "n3")
    # NVIDIA connect-three-sparks Step 2: Node1 port0 - Node2 port1, Node2 port0 - Node3 port1, Node3 port0 - Node1 port1
    assert inv.pairs() == [Pair("n1", "n2", 0, 1, "ring link 1/3"), Pair("n2", "n3", 0, 1, "ring link 2/3"),
                           Pair("n3", "n1", 0, 1, "ring link 3/3")]
    # in a ring of 3 every pair is a neighbour pair
    assert {frozenset(p.names) for p in inv.pairs()} == {frozenset(x) for x in (("n1", "n2"), ("n1", "n3"), ("n2", "n3"))}
    assert [n.name for n in inv.peers_of("n2")] == ["n1", "n3"]
    assert str(inv.pairs()[2]) == "n3 (port 0) <-> n1 (port 1) via ring link 3/3"


@pytest.mark.parametrize("names", [("a", "b"), ("a", "b", "c", "d"), ("a", "b", "c", "d", "e", "f")])
def test_ring_needs_three(tmp_path, names):
    msg = error(tmp_path, 'profile = "spark-pair"\ntopology = "ring"\n', *names)
    assert f'topology "ring" needs exactly 3 [[nodes]] tables' in msg and f"found {len(names)}" in msg
    assert 'use topology = "pair"' in msg and 'topology = "switch"' in msg


def test_ring_refuses_a_qsfp_port(tmp_path):
    msg = error(tmp_path, 'profile = "spark-pair"\ntopology = "ring"\nqsfp_port = 1\n', "a", "b", "c")
    assert "remove qsfp_port: a ring cables both ports of every node" in msg


def test_peer_refuses_to_guess_in_a_ring(tmp_path):
    inv = load(tmp_path, 'profile = "sim"\ntopology = "ring"\n', "a", "b", "c")
    with pytest.raises(ValueError, match="a has 2 peers in this ring of 3 nodes: use Inventory.peers_of"):
        inv.peer("a")
    with pytest.raises(KeyError):
        inv.peers_of("zz")


# --------------------------------------------------------------------------- switch

def test_switch_of_four_all_six_pairs(tmp_path):
    inv = load(tmp_path, 'profile = "spark-pair"\ntopology = "switch"\nqsfp_port = 1\n', "s1", "s2", "s3", "s4")
    expected = [("s1", "s2"), ("s1", "s3"), ("s1", "s4"), ("s2", "s3"), ("s2", "s4"), ("s3", "s4")]
    assert [p.names for p in inv.pairs()] == expected
    assert all(p.a_port == p.b_port == 1 and p.via == "switch" for p in inv.pairs())
    assert [n.name for n in inv.peers_of("s3")] == ["s1", "s2", "s4"]


def test_switch_of_eight_has_28_pairs(tmp_path):
    names = [f"s{i}" for i in range(1, 9)]
    inv = load(tmp_path, 'profile = "sim"\ntopology = "switch"\nqsfp_port = 0\n', *names)
    assert len(inv.pairs()) == 8 * 7 // 2
    assert len({frozenset(p.names) for p in inv.pairs()}) == 28


def test_switch_of_two_is_like_a_pair(tmp_path):
    inv = load(tmp_path, 'profile = "spark-pair"\ntopology = "switch"\nqsfp_port = 0\n', "a", "b")
    assert [p.names for p in inv.pairs()] == [("a", "b")] and inv.peer("a").name == "b"


def test_switch_needs_two_and_a_port(tmp_path):
    msg = error(tmp_path, 'profile = "spark-pair"\ntopology = "switch"\nqsfp_port = 1\n', "a")
    assert 'topology "switch" needs 2 or more [[nodes]] tables, found 1' in msg
    msg = error(tmp_path, 'profile = "spark-pair"\ntopology = "switch"\n', "a", "b", "c")
    assert "set qsfp_port = 0 or 1: the QSFP port every node's cable to the switch is in" in msg


# --------------------------------------------------------------------------- common errors

def test_unknown_topology_names_field_and_choices(tmp_path):
    msg = error(tmp_path, 'profile = "spark-pair"\ntopology = "mesh"\nqsfp_port = 1\n', "a", "b")
    assert "field `topology` must be one of pair, ring, switch (got 'mesh')" in msg


def test_duplicate_names_in_a_switch_name_the_twice_used_one(tmp_path):
    msg = error(tmp_path, 'profile = "spark-pair"\ntopology = "switch"\nqsfp_port = 1\n', "a", "b", "b", "c")
    assert "node names must differ" in msg and "rename the second 'b'" in msg


def test_serve_head_may_be_any_of_n(tmp_path):
    head = 'profile = "sim"\ntopology = "switch"\nqsfp_port = 1\n[serve]\nurl = "http://10.0.0.1:8000"\nmodel = "m"\nhead = "c"\n'
    assert load(tmp_path, head, "a", "b", "c").serve.head == "c"


# --------------------------------------------------------------------------- the lessons, for now

@pytest.mark.parametrize("head,names", [('topology = "ring"\n', ("n1", "n2", "n3")),
                                        ('topology = "switch"\nqsfp_port = 1\n', ("n1", "n2", "n3", "n4"))])
def test_check_refuses_more_than_two_nodes_cleanly(tmp_path, head, names):
    """A ring or a switch of 3+ is validated, but `check lesson3` probes a pair only: exit 2 with what to do,
    no traceback, no connection tried (10.0.0.x is not reachable here; a connection would time out)."""
    import subprocess
    import sys
    import time

    inv = write(tmp_path, 'profile = "spark-pair"\n' + head + _nodes(*names))
    t = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "grader.cli", "check", "lesson3", "--inventory", str(inv)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert "nodes: lesson3 probes two nodes for now (lesson1 and lesson2 probe any number)" in p.stderr
    assert 'topology = "pair"' in p.stderr and time.monotonic() - t < 15


def test_lesson2_on_a_ring_it_cannot_reach_says_so_without_a_traceback(tmp_path):
    """lesson2 probes any number of nodes: a ring whose nodes do not answer is exit 2, "no node could be
    reached", and paramiko's own log of the failed handshake (a traceback at ERROR) stays off stderr."""
    import subprocess
    import sys

    inv = write(tmp_path, 'profile = "spark-pair"\ntopology = "ring"\n' + _nodes("n1", "n2", "n3"))
    p = subprocess.run([sys.executable, "-m", "grader.cli", "check", "lesson2", "--inventory", str(inv)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "no node could be reached" in p.stderr, p.stderr
    assert "Traceback" not in p.stderr and "probes two nodes" not in p.stderr, p.stderr
