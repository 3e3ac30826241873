"""The sim's stand-in for NCCL's INFO lines (grader/sim/nccl_sim.py) follows the variables a learner sets, and
the grader's own NCCL log parser reads what it writes as NCCL's choice (pure: no sim)."""

from __future__ import annotations

from grader.parsers.nccl_log import parse_nccl_log
from grader.sim import nccl_sim

DEVICES = {"rocep1s0f1": "ACTIVE", "roceP2p1s0f1": "ACTIVE", "rocep1s0f0": "DOWN", "roceP2p1s0f0": "DOWN"}
ADDRS = {"lo": "127.0.0.1", "enP7s7": "10.77.7.10", "enp1s0f1np1": "192.168.100.10", "enP2p1s0f1np1": "192.168.101.10"}
COURSE = {"NCCL_SOCKET_IFNAME": "enp1s0f1np1", "NCCL_IB_HCA": "rocep1s0f1,roceP2p1s0f1"}


def read(env: dict[str, str], devices: dict[str, str] = DEVICES, rank: int = 0):
    return parse_nccl_log("\n".join(nccl_sim.lines("spark-a", 4242, env, devices, ADDRS, rank)))


def test_the_course_variables_give_net_ib_over_both_twins():
    log = read(COURSE)
    assert log.network == "IB" and [h.device for h in log.ib_devices] == ["rocep1s0f1", "roceP2p1s0f1"]
    assert (log.oob_iface, log.oob_address) == ("enp1s0f1np1", "192.168.100.10")
    assert log.transports == ("NET/IB",) and len(log.channels) == 4 and log.rings_connected


def test_ib_disabled_or_only_cableless_devices_fall_back_to_sockets():
    for env in ({**COURSE, "NCCL_IB_DISABLE": "1"}, {**COURSE, "NCCL_IB_HCA": "rocep1s0f0,roceP2p1s0f0"}):
        log = read(env)
        assert log.network == "Socket" and log.ib_no_device and log.transports == ("NET/Socket",), env


def test_hca_list_forms_as_nccl_reads_them():
    assert [h.device for h in read({**COURSE, "NCCL_IB_HCA": "rocep1s0f1"}).ib_devices] == ["rocep1s0f1"]
    # "^" excludes; a prefix admits every device it begins (the two DOWN ones are not used)
    assert [h.device for h in read({**COURSE, "NCCL_IB_HCA": "^roceP2"}).ib_devices] == ["rocep1s0f1"]
    assert [h.device for h in read({**COURSE, "NCCL_IB_HCA": "=rocep1s0f"}).ib_devices] == []  # "=": exact names
    assert read({**COURSE, "NCCL_IB_HCA": "=rocep1s0f"}).network == "Socket"
    unset = read({"NCCL_SOCKET_IFNAME": "enp1s0f1np1"})  # unset: every ACTIVE device
    assert sorted(h.device for h in unset.ib_devices) == ["roceP2p1s0f1", "rocep1s0f1"]


def test_without_nccl_socket_ifname_the_bootstrap_takes_another_interface():
    log = read({"NCCL_IB_HCA": "rocep1s0f1,roceP2p1s0f1"})
    assert log.bootstrap_iface != "enp1s0f1np1" and log.bootstrap_iface in ADDRS and "NCCL_SOCKET_IFNAME" not in log.env_settings


def test_nothing_without_nccl_debug_info():
    assert nccl_sim.from_this_machine({**COURSE}, 0) == []
    assert nccl_sim.from_this_machine({**COURSE, "NCCL_DEBUG": "WARN"}, 0) == []


def test_rank_one_receives_from_rank_zero():
    log = read(COURSE, rank=1)
    assert {(c.direction, c.src_rank, c.dst_rank) for c in log.channels} == {("receive", 0, 1), ("send", 1, 0)}
