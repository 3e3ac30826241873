"""Session 39, helper a (issue 27, collectives and RDMA): TCP sockets beside RDMA-named interfaces on a host told not a
Spark, and an InfiniBand port turned off beside an Active one; each on the real output it was built for and on a
neighbour that must read as before."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import levels, messages

CORPUS = Path(__file__).parent / "fixtures" / "field" / "corpus"


def _kind(text: str, kind: str, **kw):
    return [x for x in explain(text, **kw) if x.kind == kind]


def _corpus(prefix: str) -> str:
    return next(CORPUS.glob(prefix + "_*.txt")).read_text()


def test_sockets_over_ipoib_without_a_failed_rdma_lookup_is_a_warn_naming_ib_disable():
    """https://github.com/NVIDIA/nccl/issues/207 (ze020): NCCL 2.3.7 on two IB nodes says `Using internal Network
    Socket` over ib0 (IPoIB) with `NET/IB : Using interface ib0 for sideband communication` and no `No device found`:
    slow TCP, a warning; nothing shows NCCL failed to reach the HCA, so the likely cause is NCCL_IB_DISABLE or a verbs
    stack it could not open, not a container hiding the device."""
    [s] = _kind(_corpus("ze020"), "nccl-log", host="other", nodes=2)
    assert "fail" not in levels(s)
    said = messages(s, "warn")
    assert "over TCP sockets (NET/Socket over ib0" in said and "NCCL_IB_DISABLE=1" in said
    assert "could not reach its devices" not in messages(s)


MIXED = """gpu2:46654:46654 [0] NCCL INFO NET/IB : Using interface ib0 for sideband communication
gpu2:46654:46654 [0] NCCL INFO NET/Socket : Using [0]ib0:203.0.113.102<0>
gpu2:46654:46654 [0] NCCL INFO Using network Socket
gpu2:46654:47150 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC
gpu2:46657:47151 [3] NCCL INFO Channel 00/0 : 3[3] -> 4[0] [send] via NET/Socket/0
"""


def test_channels_mixing_p2p_and_sockets_over_ipoib_read_alike():
    """The same nccl#207 shape once its channel lines show (P2P inside the machine, NET/Socket between): the same warn
    and cause, not a fail; with `NET/IB : No device found` before it, NCCL looked for the HCA and missed it: a fail."""
    [s] = _kind(MIXED, "nccl-log", host="other", nodes=2)
    assert "fail" not in levels(s) and "yet NCCL did not use them: NCCL_IB_DISABLE=1" in messages(s, "warn")
    missed = MIXED.replace("NET/IB : Using interface ib0 for sideband communication", "NET/IB : No device found.")
    [s] = _kind(missed, "nccl-log", host="other", nodes=2)
    assert "could not reach its devices: that is the fault to fix" in messages(s, "fail")


def test_sockets_beside_rdma_ports_after_no_device_found_stays_a_fail():
    """https://github.com/NVIDIA/nccl/issues/941 (a030): inside an NGC container both the IBext plugin and NCCL's IB
    transport say `NET/IB : No device found` while the host's ConnectX ports (ens*np0) are listed: the devices are
    hidden from NCCL, the fault to fix (a fail, as before)."""
    [s] = _kind(_corpus("a030"), "nccl-log", host="other", nodes=2)
    assert "fail" in levels(s)
    assert "could not reach its devices: that is the fault to fix" in messages(s, "fail")


IBSTAT = """CA 'mlx4_0'
\tCA type: MT4099
\tNumber of ports: 2
\tFirmware version: 2.42.5000
\tPort 1:
\t\tState: Down
\t\tPhysical state: Disabled
\t\tRate: 10
\t\tBase lid: {lid}
\t\tLMC: 0
\t\tSM lid: {sm}
\t\tLink layer: {layer}
\tPort 2:
\t\tState: Active
\t\tPhysical state: LinkUp
\t\tRate: 56
\t\tBase lid: 39
\t\tLMC: 0
\t\tSM lid: 13
\t\tLink layer: {layer}
"""


def test_an_infiniband_port_disabled_with_its_lid_beside_an_active_one_is_a_warn():
    """https://github.com/linux-rdma/rdma-core/pull/847 (o001): a ConnectX-3's port 1 is Down/Disabled yet keeps the
    LID 38 its subnet manager gave it, beside port 2 Active at FDR 56. An unplugged InfiniBand port shows Polling, so
    Disabled there is a port turned off (ibportstate(8)): a warning, port 2 still read as healthy."""
    [s] = _kind(_corpus("o001"), "ibstat", host="other")
    assert "warn" in levels(s)
    assert "mlx4_0 port 1: Down/Disabled, yet it keeps the LID 38" in messages(s, "warn")
    assert "turned off, not just unplugged" in messages(s, "warn")
    assert "mlx4_0 port 2: Active/LinkUp at 56 Gb/s" in messages(s, "ok")


def test_a_disabled_port_without_a_lid_or_on_ethernet_beside_an_active_one_stays_a_note():
    """https://github.com/NVIDIA/nccl/issues/489 (t002): ibstatus's mlx5_1 Down/Disabled with LID 0xffff and SM lid 0
    was never in the fabric, a second port with nothing cabled; and on Ethernet (RoCE) mlx5 reports an empty cage as
    Disabled. Both stay the `not in use` note."""
    [s] = _kind(_corpus("t002"), "ibstat", host="other")
    assert "warn" not in levels(s) and "fail" not in levels(s)
    assert "mlx5_1 port 1: Down/Disabled (not in use" in messages(s, "info")
    for lid, sm, layer in (("0", "0", "InfiniBand"), ("38", "13", "Ethernet")):
        [s] = _kind(IBSTAT.format(lid=lid, sm=sm, layer=layer), "ibstat", host="other")
        assert "warn" not in levels(s), (lid, layer)
        assert "mlx4_0 port 1: Down/Disabled (not in use" in messages(s, "info")
    [s] = _kind(IBSTAT.format(lid="38", sm="13", layer="InfiniBand"), "ibstat", host="other")
    assert "keeps the LID 38" in messages(s, "warn")


PENDING = Path(__file__).parent / "fixtures" / "field" / "pending"


def test_a_graph_file_naming_a_gpu_this_machine_lacks_is_read_as_the_graph_file():
    """https://github.com/Azure/azhpc-images/issues/327 (wk001): a one-GPU Azure VM whose image sets NCCL_GRAPH_FILE
    to a canned graph; NCCL's graph/search.cc `XML Import Channel : dev 1 not found.` then ncclSystemError. The fail
    names the graph file as the cause (not the network); a topology id missing (nccl-tests#352) keeps its reading."""
    [s] = _kind(next(PENDING.glob("wk001_*.txt")).read_text(), "nccl-log", host="other")
    said = messages(s, "fail")
    assert "from a graph file (the one NCCL_GRAPH_FILE names)" in said and "through GPU 1" in said
    topo_id = "lrdn2151:2678763:2678858 [0] graph/topo.h:234 NCCL WARN Could not find NET with id 0\n"
    [s] = _kind(topo_id, "nccl-log", host="other")
    assert "graph file" not in messages(s) and "NET 0 in the topology it built" in messages(s, "fail")


WRONG_SMALL = """# nThread 1 nGpus 8 minBytes 1048576 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 validation: 1
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
     1048576        262144     float     sum      -1    45.10   23.25   40.69      3    44.80   23.41   40.96      0
  4294967296    1073741824     float     sum      -1    29122  147.48  258.09      0    29169  147.25  257.68      0
"""


def test_wrong_results_only_at_4_gib_and_over_name_the_size_edge():
    """https://github.com/NVIDIA/nccl-tests/issues/37 (wk002): all_gather at 4 GiB on 8x V100, error 1e+00 and
    `Out of bounds values : 2 FAILED`; the maintainer fixed the test's own check. The fail stays, with a note naming
    the 4 GiB edge and asking for sizes below it; silent where a smaller row is wrong too, and on a correct run with
    rows of 4 GiB and more (corpus a024, CoreWeave's GB200 NVL72 all_reduce)."""
    [s] = _kind(next(PENDING.glob("wk002_*.txt")).read_text(), "nccl-tests", host="other")
    assert "fail" in levels(s)
    assert "Every row with wrong results is 4 GiB or more (4294967296 B)" in messages(s, "info")
    assert "cannot tell the test from the data path" in messages(s, "info")
    [s] = _kind(WRONG_SMALL, "nccl-tests", host="other")
    assert "fail" in levels(s) and "4 GiB or more" not in messages(s)
    [s] = _kind(WRONG_SMALL.replace("40.69      3", "40.69      0").replace("257.68      0", "257.68      5"),
                "nccl-tests", host="other")
    assert "with the 1 smaller size(s) correct the size edge" in messages(s, "info")
    [s] = _kind(_corpus("a024"), "nccl-tests", host="other")
    assert "4 GiB or more" not in messages(s)


IBV_DEVINFO = """hca_id:\tmlx4_0
\ttransport:\t\t\tInfiniBand (0)
\tfw_ver:\t\t\t\t2.42.5000
\tvendor_id:\t\t\t0x02c9
\tvendor_part_id:\t\t\t4099
\tphys_port_cnt:\t\t\t2
\t\tport:\t1
\t\t\tstate:\t\t\tPORT_DOWN (1)
\t\t\tmax_mtu:\t\t4096 (5)
\t\t\tactive_mtu:\t\t4096 (5)
\t\t\tsm_lid:\t\t\t13
\t\t\tport_lid:\t\t38
\t\t\tport_lmc:\t\t0x00
\t\t\tlink_layer:\t\tInfiniBand
\t\t\tphys_state:\t\tDISABLED (3)

\t\tport:\t2
\t\t\tstate:\t\t\tPORT_ACTIVE (4)
\t\t\tmax_mtu:\t\t4096 (5)
\t\t\tactive_mtu:\t\t4096 (5)
\t\t\tsm_lid:\t\t\t13
\t\t\tport_lid:\t\t39
\t\t\tport_lmc:\t\t0x00
\t\t\tlink_layer:\t\tInfiniBand
\t\t\tphys_state:\t\tLINK_UP (5)
"""


def test_ibv_devinfo_reads_a_disabled_infiniband_port_with_its_lid_as_ibstat_does():
    """ibv_devinfo prints the same port states (PORT_DOWN, phys_state DISABLED, port_lid 38; rdma-core#847's ConnectX-3
    in ibv_devinfo's words): the same warn, not its `no cable` PORT_DOWN note; with port_lid 0 (never in the fabric)
    that note stays."""
    [s] = _kind(IBV_DEVINFO, "ibv-devinfo", host="other")
    assert "mlx4_0 port 1: Down/Disabled, yet it keeps the LID 38" in messages(s, "warn")
    assert "is PORT_DOWN on InfiniBand" not in messages(s)
    [s] = _kind(IBV_DEVINFO.replace("port_lid:\t\t38", "port_lid:\t\t0"), "ibv-devinfo", host="other")
    assert "warn" not in levels(s) and "mlx4_0 port 1 is PORT_DOWN on InfiniBand" in messages(s, "info")
