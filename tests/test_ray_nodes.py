"""``ray.nodes()`` printed (grader.parsers.ray_nodes, grader.judges.ray.summarise_ray_nodes): samples in the shape of
the real prints their comments name, values worked out by hand."""

from __future__ import annotations

import pytest

from grader.explain import explain
from grader.parsers.common import ParseError
from grader.parsers.ray_nodes import parse_ray_nodes
from tests.conftest import levels, messages

# ray-project/ray#26477 (corpus t020): a remote task prints ray.nodes() behind Ray's prefix; the paste is cut inside
# the second entry
ONE_NODE_CUT = ("(print_hostname pid=102942) [{'NodeID': 'aa577a559e45a42d61dcecaee883e1baefebbeb12455e42d68d6d878', "
                "'Alive': True, 'NodeManagerAddress': '10.249.17.181', 'NodeManagerHostname': 'nid002812', "
                "'NodeManagerPort': 44021, 'NodeName': '10.249.17.181', 'alive': True, 'Resources': "
                "{'object_store_memory': 73792583270.0, 'accelerator_type:A100': 1.0, 'GPU': 4.0, "
                "'memory': 172182694298.0, 'CPU': 1.0, 'node:10.249.17.181': 1.0}}, {'\n")

# two Sparks after the worker was restarted: the old entry of 10.0.0.2 is dead, a new one is alive; JSON this time
RESTARTED = ('[{"NodeID": "11aa11aa", "Alive": true, "NodeManagerAddress": "10.0.0.1", "NodeManagerHostname": "spark-a", '
             '"Resources": {"CPU": 20.0, "GPU": 1.0}}, '
             '{"NodeID": "22bb22bb", "Alive": false, "NodeManagerAddress": "10.0.0.2", "NodeManagerHostname": "spark-b", '
             '"Resources": {"CPU": 20.0, "GPU": 1.0}}, '
             '{"NodeID": "33cc33cc", "Alive": true, "NodeManagerAddress": "10.0.0.2", "NodeManagerHostname": "spark-b", '
             '"Resources": {"CPU": 20.0, "GPU": 1.0}}]\n')

# blind batch zv003 (ray-project/ray#45644, as posted): `ray list nodes` counting 2 nodes, its table cut after one row
LIST_CUT = ("ray list nodes\n======== List: 2024-05-31 10:17:06.320697 ========\nStats:\n------------------------------\n"
            "Total: 2\n\nTable:\n------------------------------\n"
            "    NODE_ID                                                   NODE_IP    IS_HEAD_NODE    STATE    "
            "STATE_MESSAGE    NODE_NAME    RESOURCES_TOTAL                   LABELS\n"
            " 0  9e757009998dbdbe546068b7b898af3d34dfa82e89f4854de422ab5f  127.0.0.1  True            ALIVE    "
            "                 127.0.0.1    CPU: 1.0                          ray.io/node_id: 9e75\n"
            "                                                                          GPU: 1.0\n"
            "                                                                          head: 1.0\n")


def test_ray_list_nodes_table_is_read_and_a_cut_one_says_what_it_lacks():
    nodes = parse_ray_nodes(LIST_CUT)
    assert nodes.total == 2 and [(n.address, n.alive, n.resources) for n in nodes] == [
        ("127.0.0.1", True, {"CPU": 1.0, "GPU": 1.0})]
    (s,) = explain(LIST_CUT, nodes=2)
    assert s.kind == "ray-nodes" and "fail" not in levels(s)
    assert "The table lists 1 of the 2 nodes Ray counts (`Total: 2`)" in messages(s, "info")
    whole = LIST_CUT.replace("Total: 2", "Total: 1")
    assert "1 live node(s) here, and the cluster should have 2" in messages(explain(whole, nodes=2)[0], "fail")


def test_a_cut_print_of_one_node_is_read_to_its_resources():
    (node,) = parse_ray_nodes(ONE_NODE_CUT)
    assert (node.alive, node.address, node.hostname, node.accelerator) == (True, "10.249.17.181", "nid002812", "A100")
    assert node.resources["GPU"] == 4.0 and node.resources["CPU"] == 1.0 and not node.cut
    (s,) = explain(ONE_NODE_CUT)
    assert s.kind == "ray-nodes" and "warn" not in levels(s) and "fail" not in levels(s)
    assert "Node nid002812 (10.249.17.181): alive, 4 GPU (A100), 1 CPU registered." in messages(s, "info")
    assert "registered 1 CPU for 4 GPU" in messages(s, "info")


def test_a_dead_entry_of_a_restarted_node_is_history_and_missing_nodes_fail_against_the_cluster_size():
    nodes = parse_ray_nodes(RESTARTED)
    assert [(n.hostname, n.alive) for n in nodes] == [("spark-a", True), ("spark-b", False), ("spark-b", True)]
    (s,) = explain(RESTARTED, nodes=2)
    assert "warn" not in levels(s) and "fail" not in levels(s) and "spark-b (10.0.0.2): not alive" in messages(s)
    gone = RESTARTED.replace('"33cc33cc", "Alive": true, "NodeManagerAddress": "10.0.0.2", "NodeManagerHostname": '
                             '"spark-b"', '"33cc33cc", "Alive": true, "NodeManagerAddress": "10.0.0.3", '
                             '"NodeManagerHostname": "spark-c"')
    assert gone != RESTARTED
    (s,) = explain(gone, nodes=3)  # 10.0.0.2 is not alive under any entry: it left; 2 live nodes of 3
    assert "It left the cluster" in messages(s, "warn") and "2 live node(s) here, and the cluster should have 3" \
        in messages(s, "fail")


def test_text_without_a_node_entry_is_a_clear_error():
    with pytest.raises(ParseError, match="no node entry found"):
        parse_ray_nodes("[{'Alive': True}]\n")
