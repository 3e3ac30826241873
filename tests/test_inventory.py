"""Inventory validation: errors name the field and the fix."""

from __future__ import annotations

import pytest

from grader.inventory import InventoryError, load_inventory, resolve_ssh

PAIR = '''profile = "spark-pair"
qsfp_port = 1
[[nodes]]
name = "spark-a"
address = "192.168.1.50"
user = "nvidia"
[[nodes]]
name = "spark-b"
ssh_alias = "sparkb"
'''


def write(tmp_path, text):
    p = tmp_path / "inv.toml"
    p.write_text(text)
    return p


def test_valid_pair(tmp_path):
    inv = load_inventory(write(tmp_path, PAIR))
    assert [n.name for n in inv.nodes] == ["spark-a", "spark-b"]
    assert inv.qsfp_port == 1 and inv.peer("spark-a").name == "spark-b"
    assert inv.command_timeout_s == 10.0


@pytest.mark.parametrize("edit, needle", [
    (lambda t: t.replace('"spark-pair"', '"spark-trio"'), "field `profile` must be one of spark-pair"),
    (lambda t: t.replace("qsfp_port = 1\n", ""), "set qsfp_port = 0 or 1"),
    (lambda t: t.replace("qsfp_port = 1", "qsfp_port = 3"), "field `qsfp_port`"),
    (lambda t: t.replace('ssh_alias = "sparkb"', ""), "[[nodes]] #2"),
    (lambda t: t.replace('user = "nvidia"', 'usr = "nvidia"'), "field `usr` is not a known field"),
    (lambda t: t.replace('name = "spark-b"', 'name = "spark-a"'), "node names must differ"),
    (lambda t: t.replace('name = "spark-b"', 'name = "spark b;rm"'), "is not a hostname"),
    (lambda t: t.replace('user = "nvidia"', 'key_file = "/nope/key"'), "key_file '/nope/key' does not exist"),
    (lambda t: t.split("[[nodes]]\nname = \"spark-b\"")[0], "needs 2 [[nodes]] table(s), found 1"),
    (lambda t: t.replace("[[nodes]]", "[[nodes]", 1), "not valid TOML"),
])
def test_errors_name_field_and_fix(tmp_path, edit, needle):
    with pytest.raises(InventoryError) as err:
        load_inventory(write(tmp_path, edit(PAIR)))
    assert needle in str(err.value)


def test_missing_file(tmp_path):
    with pytest.raises(InventoryError, match="no such inventory file.*clusterlab sim up"):
        load_inventory(tmp_path / "nope.toml")


def test_ssh_alias_from_config(tmp_path):
    cfg = tmp_path / "config"
    key = tmp_path / "k"
    key.write_text("x")
    cfg.write_text(f"Host sparkb\n  HostName 10.1.2.3\n  Port 2222\n  User nv\n  IdentityFile {key}\n")
    inv = load_inventory(write(tmp_path, PAIR))
    assert resolve_ssh(inv.node("spark-b"), str(cfg)) == ("10.1.2.3", 2222, "nv", str(key))


def test_logs_table(tmp_path):
    inv = load_inventory(write(tmp_path, PAIR + '[logs]\nnccl_debug = "~/nccl.log"\nib_write_bw = ["/tmp/a.txt", "/tmp/b.txt"]\n'))
    assert inv.logs.nccl_debug == "~/nccl.log" and inv.logs.ib_write_bw == ["/tmp/a.txt", "/tmp/b.txt"]
    with pytest.raises(InventoryError, match="not a file path on the head node"):
        load_inventory(write(tmp_path, PAIR + '[logs]\nnccl_debug = "a\\nb"\n'))
