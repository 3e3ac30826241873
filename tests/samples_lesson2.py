"""Lesson-2a outputs that shared/fixtures/real does not hold (rdma link, show_gids, ibstat, the
sysfs probe, ib_write_lat, lspci of a ConnectX-7), built from the shapes and values the research
quotes (shared/research/procedure.md §1.1, §1.5, §2.2) and from perftest's and the kernel's own
format strings, for the parser, explain and fuzz tests. The sysfs probe output is produced by
running the real probe command (bash, readlink, grep) over a tree laid out like the kernel's.
"""

from __future__ import annotations

import ipaddress
import os
import subprocess
from pathlib import Path

# `rdma link` on a Spark with the cable in port 1 (procedure.md §2.2, [14-article] shapes)
RDMA_LINK = """\
link rocep1s0f0/1 state DOWN physical_state DISABLED netdev enp1s0f0np0
link rocep1s0f1/1 state ACTIVE physical_state LINK_UP netdev enp1s0f1np1
link roceP2p1s0f0/1 state DOWN physical_state DISABLED netdev enP2p1s0f0np0
link roceP2p1s0f1/1 state ACTIVE physical_state LINK_UP netdev enP2p1s0f1np1
"""

# `rdma -j -p link` (iproute2's JSON keys)
RDMA_LINK_JSON = """\
[ {
        "ifindex": 0,
        "ifname": "rocep1s0f0",
        "port": 1,
        "state": "DOWN",
        "physical_state": "DISABLED",
        "netdev": "enp1s0f0np0",
        "netdev_index": 3
    },{
        "ifindex": 1,
        "ifname": "rocep1s0f1",
        "port": 1,
        "state": "ACTIVE",
        "physical_state": "LINK_UP",
        "netdev": "enp1s0f1np1",
        "netdev_index": 4
    },{
        "ifindex": 2,
        "ifname": "roceP2p1s0f0",
        "port": 1,
        "state": "DOWN",
        "physical_state": "DISABLED",
        "netdev": "enP2p1s0f0np0",
        "netdev_index": 5
    },{
        "ifindex": 3,
        "ifname": "roceP2p1s0f1",
        "port": 1,
        "state": "ACTIVE",
        "physical_state": "LINK_UP",
        "netdev": "enP2p1s0f1np1",
        "netdev_index": 6
    } ]
"""

# Mellanox show_gids (tab-separated; the IPv4 column empty for link-local GIDs)
SHOW_GIDS = (
    "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n"
    "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n"
    "rocep1s0f1\t1\t0\tfe80:0000:0000:0000:4ebb:47ff:fe01:0211\t\t\tv1\tenp1s0f1np1\n"
    "rocep1s0f1\t1\t1\tfe80:0000:0000:0000:4ebb:47ff:fe01:0211\t\t\tv2\tenp1s0f1np1\n"
    "rocep1s0f1\t1\t2\t0000:0000:0000:0000:0000:ffff:c0a8:640a\t192.168.100.10  \tv1\tenp1s0f1np1\n"
    "rocep1s0f1\t1\t3\t0000:0000:0000:0000:0000:ffff:c0a8:640a\t192.168.100.10  \tv2\tenp1s0f1np1\n"
    "roceP2p1s0f1\t1\t0\tfe80:0000:0000:0000:4ebb:47ff:fe01:0212\t\t\tv1\tenP2p1s0f1np1\n"
    "roceP2p1s0f1\t1\t1\tfe80:0000:0000:0000:4ebb:47ff:fe01:0212\t\t\tv2\tenP2p1s0f1np1\n"
    "roceP2p1s0f1\t1\t2\t0000:0000:0000:0000:0000:ffff:c0a8:650a\t192.168.101.10  \tv1\tenP2p1s0f1np1\n"
    "roceP2p1s0f1\t1\t3\t0000:0000:0000:0000:0000:ffff:c0a8:650a\t192.168.101.10  \tv2\tenP2p1s0f1np1\n"
    "n_gids_found=8\n"
)

# ibstat on a Spark, cable in port 1 (values from procedure.md §1.1/§2.2 [GEER92]: MT4129,
# firmware 28.45.4028, Rate 200 when up and 40 when down, Link layer Ethernet)
IBSTAT = """\
CA 'rocep1s0f0'
\tCA type: MT4129
\tNumber of ports: 1
\tFirmware version: 28.45.4028
\tHardware version: 0
\tNode GUID: 0x4cbb470300010210
\tSystem image GUID: 0x4cbb470300010210
\tPort 1:
\t\tState: Down
\t\tPhysical state: Disabled
\t\tRate: 40
\t\tBase lid: 0
\t\tLMC: 0
\t\tSM lid: 0
\t\tCapability mask: 0x00010000
\t\tPort GUID: 0x4ebb47fffe010210
\t\tLink layer: Ethernet
CA 'rocep1s0f1'
\tCA type: MT4129
\tNumber of ports: 1
\tFirmware version: 28.45.4028
\tHardware version: 0
\tNode GUID: 0x4cbb470300010211
\tSystem image GUID: 0x4cbb470300010210
\tPort 1:
\t\tState: Active
\t\tPhysical state: LinkUp
\t\tRate: 200
\t\tBase lid: 0
\t\tLMC: 0
\t\tSM lid: 0
\t\tCapability mask: 0x00010000
\t\tPort GUID: 0x4ebb47fffe010211
\t\tLink layer: Ethernet
CA 'roceP2p1s0f0'
\tCA type: MT4129
\tNumber of ports: 1
\tFirmware version: 28.45.4028
\tHardware version: 0
\tNode GUID: 0x4cbb470300010212
\tSystem image GUID: 0x4cbb470300010210
\tPort 1:
\t\tState: Down
\t\tPhysical state: Disabled
\t\tRate: 40
\t\tBase lid: 0
\t\tLMC: 0
\t\tSM lid: 0
\t\tCapability mask: 0x00010000
\t\tPort GUID: 0x4ebb47fffe010212
\t\tLink layer: Ethernet
CA 'roceP2p1s0f1'
\tCA type: MT4129
\tNumber of ports: 1
\tFirmware version: 28.45.4028
\tHardware version: 0
\tNode GUID: 0x4cbb470300010213
\tSystem image GUID: 0x4cbb470300010210
\tPort 1:
\t\tState: Active
\t\tPhysical state: LinkUp
\t\tRate: 200
\t\tBase lid: 0
\t\tLMC: 0
\t\tSM lid: 0
\t\tCapability mask: 0x00010000
\t\tPort GUID: 0x4ebb47fffe010213
\t\tLink layer: Ethernet
"""

# ib_write_lat client, current perftest columns (perftest_parameters.h RESULT_FMT_LAT with
# t_avg/t_stdev/percentiles), figures of eugr spark-vllm-docker NETWORKING.md (t_typical 1.47 us,
# 99% 1.57 us); header as ib_write_bw prints it in fixtures/real/spark/03_*
IB_WRITE_LAT = """\
nvidia@spark-b:~$ ib_write_lat -d rocep1s0f1 -i 1 -p 13000 -F 192.168.100.10
---------------------------------------------------------------------------------------
                    RDMA_Write Latency Test
 Dual-port       : OFF          Device         : rocep1s0f1
 Number of qps   : 1            Transport type : IB
 Connection type : RC           Using SRQ      : OFF
 PCIe relax order: OFF
 ibv_wr* API     : ON
 TX depth        : 1
 Mtu             : 4096[B]
 Link type       : Ethernet
 GID index       : 3
 Max inline data : 220[B]
 rdma_cm QPs     : OFF
 Data ex. method : Ethernet
---------------------------------------------------------------------------------------
 local address: LID 0000 QPN 0x012a PSN 0x3c1f0a RKey 0x184200 VAddr 0x00aaaad4c1e000
 GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:168:100:11
 remote address: LID 0000 QPN 0x012a PSN 0x6b2d11 RKey 0x184200 VAddr 0x00aaaae0b34000
 GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:168:100:10
---------------------------------------------------------------------------------------
 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] 
 2       1000          1.42           4.20         1.47             \t       1.49     \t0.05   \t\t1.57    \t\t4.20   
---------------------------------------------------------------------------------------
"""

# ib_write_bw server side, default MB/sec report (perftest's banner and RESULT_FMT)
IB_WRITE_BW_SERVER_MB = """\
nvidia@spark-a:~$ ib_write_bw -d rocep1s0f1 -i 1 -F

************************************
* Waiting for client to connect... *
************************************
---------------------------------------------------------------------------------------
                    RDMA_Write BW Test
 Dual-port       : OFF          Device         : rocep1s0f1
 Number of qps   : 1            Transport type : IB
 Connection type : RC           Using SRQ      : OFF
 PCIe relax order: ON
 ibv_wr* API     : ON
 CQ Moderation   : 1
 Mtu             : 1024[B]
 Link type       : Ethernet
 GID index       : 3
 Max inline data : 0[B]
 rdma_cm QPs     : OFF
 Data ex. method : Ethernet
---------------------------------------------------------------------------------------
 local address: LID 0000 QPN 0x0129 PSN 0x531b7 RKey 0x184300 VAddr 0x00ffeec955d000
 GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:168:100:10
 remote address: LID 0000 QPN 0x0129 PSN 0x57279d RKey 0x184300 VAddr 0x00ec99bedad000
 GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:168:100:11
---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 65536      5000             11035.51            11034.55\t\t   0.176553
---------------------------------------------------------------------------------------
"""

# lspci -vv of a Spark's four ConnectX-7 functions (excerpt), the 0002 ones at x2 as on early GX10
# BIOSes (procedure.md §2.2 [FORUM-GX10])
LSPCI_CX7 = """\
0000:01:00.0 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]
\tSubsystem: Mellanox Technologies Device 0022
\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x4, ASPM not supported
\t\tLnkSta:\tSpeed 32GT/s, Width x4
\tKernel driver in use: mlx5_core
0000:01:00.1 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]
\tSubsystem: Mellanox Technologies Device 0022
\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x4, ASPM not supported
\t\tLnkSta:\tSpeed 32GT/s, Width x4
\tKernel driver in use: mlx5_core
0002:01:00.0 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]
\tSubsystem: Mellanox Technologies Device 0022
\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x4, ASPM not supported
\t\tLnkSta:\tSpeed 32GT/s, Width x2 (downgraded)
\tKernel driver in use: mlx5_core
0002:01:00.1 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]
\tSubsystem: Mellanox Technologies Device 0022
\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x4, ASPM not supported
\t\tLnkSta:\tSpeed 32GT/s, Width x2 (downgraded)
\tKernel driver in use: mlx5_core
"""

SPARK_TWINS = {"rocep1s0f0": ("enp1s0f0np0", "0000:01:00.0"), "rocep1s0f1": ("enp1s0f1np1", "0000:01:00.1"),
               "roceP2p1s0f0": ("enP2p1s0f0np0", "0002:01:00.0"), "roceP2p1s0f1": ("enP2p1s0f1np1", "0002:01:00.1")}

IB_SYSFS_PROBE = (
    'for d in "$IB"/*; do echo "device $(basename $d) $(basename $(readlink -f $d/device))"; done; '
    'grep -H . "$IB"/*/ports/*/state "$IB"/*/ports/*/phys_state "$IB"/*/ports/*/gid_attrs/ndevs/* '
    '"$IB"/*/ports/*/gid_attrs/types/* "$IB"/*/ports/*/gids/* 2>/dev/null'
)
"""The brief's probe, with /sys/class/infiniband replaced by $IB."""


def write_ib_tree(root: Path, addresses: dict[str, str], active: set[str], gid_tables: int = 8) -> Path:
    """Lay out ``root/class/infiniband`` like the kernel does for a Spark's four RoCE devices.

    ``addresses`` maps RDMA device -> IPv4 of its netdev; ``active`` the devices whose port is up.
    Each port gets ``gid_tables`` GID entries: fe80 (RoCE v1 as the kernel names it, ``IB/RoCE
    v1``, then v2), the IPv4-mapped pair, then all-zero unused entries (whose type files the
    kernel cannot read: EINVAL, so grep prints nothing for them).
    """
    ib = root / "class" / "infiniband"
    for i, (dev, (netdev, bdf)) in enumerate(SPARK_TWINS.items()):
        pci = root / "devices" / bdf
        pci.mkdir(parents=True, exist_ok=True)
        port = ib / dev / "ports" / "1"
        for sub in ("gids", "gid_attrs/types", "gid_attrs/ndevs"):
            (port / sub).mkdir(parents=True, exist_ok=True)
        os.symlink(pci, ib / dev / "device")
        up = dev in active
        (port / "state").write_text("4: ACTIVE\n" if up else "1: DOWN\n")
        (port / "phys_state").write_text("5: LinkUp\n" if up else "3: Disabled\n")
        gids = [(f"fe80:0000:0000:0000:4ebb:47ff:fe01:{0x210 + i:04x}", "IB/RoCE v1"),
                (f"fe80:0000:0000:0000:4ebb:47ff:fe01:{0x210 + i:04x}", "RoCE v2")]
        if dev in addresses:
            mapped = ipaddress.IPv6Address("::ffff:" + addresses[dev]).exploded
            gids += [(mapped, "IB/RoCE v1"), (mapped, "RoCE v2")]
        for n in range(gid_tables):
            if n < len(gids):
                gid, kind = gids[n]
                (port / "gid_attrs" / "types" / str(n)).write_text(kind + "\n")
                (port / "gid_attrs" / "ndevs" / str(n)).write_text(netdev + "\n")
            else:
                gid = ipaddress.IPv6Address(0).exploded
            (port / "gids" / str(n)).write_text(gid + "\n")
    return ib


def ib_sysfs_probe_output(tmp: Path, addresses: dict[str, str] | None = None,
                          active: set[str] | None = None) -> str:
    """Run the sysfs probe (bash, readlink, grep) over a kernel-like tree; return its stdout."""
    addresses = {"rocep1s0f1": "192.168.100.10", "roceP2p1s0f1": "192.168.101.10"} if addresses is None else addresses
    active = {"rocep1s0f1", "roceP2p1s0f1"} if active is None else active
    ib = write_ib_tree(tmp, addresses, active)
    out = subprocess.run(["bash", "-c", IB_SYSFS_PROBE], env=dict(os.environ, IB=str(ib)),
                         capture_output=True, text=True, check=False).stdout
    # the probe on a Spark prints /sys/class/infiniband paths
    return out.replace(str(ib), "/sys/class/infiniband")

# ibv_devinfo -v of one Spark twin's device (rdma-core's layout; values from the ibstat and show_gids samples
# above: MT4129 = vendor_part_id 4129, firmware 28.45.4028, port 1 ACTIVE at 4X 50 Gbps = 200 Gb/s, Ethernet,
# active_mtu 4096 at MTU 9000, GIDs 0/1 link-local and 2/3 the twin's IPv4 as RoCE v1/v2)
IBV_DEVINFO = """\
hca_id:\trocep1s0f1
\ttransport:\t\t\tInfiniBand (0)
\tfw_ver:\t\t\t\t28.45.4028
\tnode_guid:\t\t\t4cbb:4703:0001:0211
\tvendor_id:\t\t\t0x02c9
\tvendor_part_id:\t\t\t4129
\tphys_port_cnt:\t\t\t1
\t\tport:\t1
\t\t\tstate:\t\t\tPORT_ACTIVE (4)
\t\t\tmax_mtu:\t\t4096 (5)
\t\t\tactive_mtu:\t\t4096 (5)
\t\t\tsm_lid:\t\t\t0
\t\t\tport_lid:\t\t0
\t\t\tlink_layer:\t\tEthernet
\t\t\tactive_width:\t\t4X (2)
\t\t\tactive_speed:\t\t50.0 Gbps (64)
\t\t\tphys_state:\t\tLINK_UP (5)
\t\t\tGID[  0]:\t\tfe80:0000:0000:0000:4ebb:47ff:fe01:0211, RoCE v1
\t\t\tGID[  1]:\t\tfe80::4ebb:47ff:fe01:211, RoCE v2
\t\t\tGID[  2]:\t\t0000:0000:0000:0000:0000:ffff:c0a8:640a, RoCE v1
\t\t\tGID[  3]:\t\t::ffff:192.168.100.10, RoCE v2
"""
