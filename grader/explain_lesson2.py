"""Explain kinds for lesson 2a: RoCE naming and NCCL transport (rdma link, sysfs, show_gids, ibstat,
ib_write_bw/lat, nccl-tests, NCCL_DEBUG=INFO logs). Registered on import by grader.explain.

Kinds: ``rdma-link``, ``ib-sysfs``, ``show-gids``, ``ibstat``, ``perftest``, ``nccl-log``,
``nccl-tests``; ConnectX-7 functions in an ``lspci`` paste (lesson 3's kind) get their findings
from a cross check here. Detection keys on lines only these tools print (``link dev/1 state``,
``/sys/class/infiniband/``, ``DEV PORT INDEX GID``, ``CA '...'``, ``RDMA_Write BW Test``,
``NCCL INFO``, nccl-tests data rows), so they are not confused with lesson 1's kinds.

Figures and their sources (docs/research/procedure.md §1.5, §1.6, §2, §6; figures.md §2.4; the
spark-pair ranges in checks/ranges.toml):

- ``ib_write_bw`` one twin, 1 QP: 92.57 and 97.28 Gb/s, 189.85 Gb/s for both twins at once
  (NVIDIA DGX Spark performance benchmarking guide); PASS at >= 80 Gb/s per rail (NVIDIA
  check-connectx-bandwidth, dgx-spark-playbooks PR #108); 8-25 Gb/s with the link at 200G is the
  degraded "stale initialization" state (same script); 4 QPs ~111.7 Gb/s and ``ib_write_lat``
  2-byte t_typical 1.47 us (eugr spark-vllm-docker NETWORKING.md).
- nccl-tests all_gather busbw: warning bar 21.875 GB/s = 175 Gb/s (NVIDIA spark_cluster_setup.py
  MIN_NCCL_TEST_BW); 18.94/20.95 GB/s at MTU 1500 without NCCL_IB_HCA (dgx-spark-playbooks issue
  #25); 22.96 (TrevorSquillario gb10-training) and 23.74 GB/s with both twins and MTU 9000 (PR #103);
  ~3 GB/s broken (issue #102, PR #103); ~12 GB/s = one twin, single digits = sockets (oshlabs
  dgx-spark-cluster VLLM.md).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from .explain import Finding, KindSpec, Section, Summary, register, register_cross_check
from .explain_lesson1 import C2S, _argv_is, _port_words, fail, info, ok, warn
from .parsers.ib_sysfs import IbSysfs, RoceDevice, parse_ib_sysfs, roce_v2_ipv4_gid_index
from .parsers.ibstat import CaList, parse_ibstat
from .parsers.nccl_log import NcclLog, parse_nccl_log, transport_verdict
from .parsers.nccl_tests import BenchTable, NcclTestsResult, busbw_factor, parse_bench_table, parse_nccl_tests
from .parsers.perftest import PROGRAMS as PERFTEST_PROGRAMS
from .parsers.perftest import PerftestRun, parse_perftest
from .parsers.rdma import RdmaLinks, parse_rdma_link
from .parsers.show_gids import GidTable, parse_show_gids
from .ranges import expected_range
from .spark_names import HOUSE_INTERFACE, QSFP_TWINS, is_qsfp_twin, qsfp_port, rdma_device_for, twin_domain

PERF_GUIDE = "NVIDIA's DGX Spark performance benchmarking guide"
CHECK_BW = "NVIDIA check-connectx-bandwidth"
CLUSTER_SETUP = "NVIDIA spark_cluster_setup.py"

#: RoCE device of each Spark twin, and back (rocep1s0f1 <-> enp1s0f1np1): procedure.md §2.1
SPARK_RDMA: dict[str, str] = {rdma_device_for(t): t for twins in QSFP_TWINS.values() for t in twins}
#: PCI function of each Spark twin (procedure.md §1.1)
SPARK_PCI: dict[str, str] = {"enp1s0f0np0": "0000:01:00.0", "enp1s0f1np1": "0000:01:00.1",
                             "enP2p1s0f0np0": "0002:01:00.0", "enP2p1s0f1np1": "0002:01:00.1"}


def _range(name: str, key: str, default: float) -> float:
    r = expected_range("spark-pair", name) or {}
    value = r.get(key)
    return float(value) if isinstance(value, (int, float)) else default


IB_BW_PASS_GBPS = _range("ib_write_bw_gbps", "min", 80.0)
"""NVIDIA check-connectx-bandwidth's per-rail PASS bar (Gb/s)."""
IB_BW_TYPICAL = (92.0, 97.3)
"""One twin, 1 QP, in NVIDIA's performance guide: 92.57 and 97.28 Gb/s."""
IB_BW_DEGRADED_GBPS = 25.0
"""Below this with the link at 200G: the degraded ConnectX-7 state (check-connectx-bandwidth: 8-25 Gb/s)."""
BUSBW_WARN_GBS = _range("allgather_busbw_gbs", "min", 21.875)
"""NVIDIA spark_cluster_setup.py MIN_NCCL_TEST_BW (GB/s, '175 Gbps')."""
BUSBW_BROKEN_GBS = 5.0
"""At or below this a Spark pair's NCCL is broken (~3 GB/s: sockets, stale NIC state, a bad NCCL build)."""
BUSBW_ONE_TWIN_GBS = 14.0
"""Around 12 GB/s: NCCL drives one twin only (oshlabs dgx-spark-cluster VLLM.md)."""
LAT_TYPICAL_US = 1.47
"""ib_write_lat 2-byte t_typical between two Sparks (eugr spark-vllm-docker NETWORKING.md)."""


def _twin_words(device: str) -> str:
    """``rocep1s0f1`` -> ``rocep1s0f1 (enp1s0f1np1, QSFP port 1, PCI domain 0000)``; unknown names as they are."""
    netdev = SPARK_RDMA.get(device)
    if netdev is None:
        return device
    return f"{device} ({netdev}, QSFP port {qsfp_port(netdev)}, PCI domain {twin_domain(netdev)})"


def _hca_advice(devices: list[str]) -> str:
    return f"NCCL_IB_HCA={','.join(devices)}" if devices else "NCCL_IB_HCA=rocep1s0f1,roceP2p1s0f1"


def _port_findings(active: dict[str, bool], source: str) -> list[Finding]:
    """Per QSFP port: both twins active (ok), one (warn); none at all (fail). ``active`` maps Spark
    RDMA devices seen to whether they are ACTIVE."""
    out: list[Finding] = []
    up_ports = []
    for port, (a, b) in QSFP_TWINS.items():
        da, db = rdma_device_for(a), rdma_device_for(b)
        ups = [d for d in (da, db) if active.get(d)]
        if len(ups) == 2:
            up_ports.append(port)
            out.append(ok(f"QSFP port {port} ({_port_words(port)}) is in use: both twins' RoCE devices {da} and {db} "
                          f"are ACTIVE ({source})."))
        elif len(ups) == 1:
            up_ports.append(port)
            other = db if ups[0] == da else da
            state = "not listed" if other not in active else "not ACTIVE"
            out.append(warn(f"Only {ups[0]} of QSFP port {port} is ACTIVE; its twin {other} is {state}. With a cable "
                            "in, both twins come up: reseat the cable, check `ip link` shows both netdevs UP, reboot "
                            "if it stays. One twin carries about half of the port's 200 Gb/s."))
    seen = [d for d in active if d in SPARK_RDMA]
    if seen and not up_ports:
        out.append(fail("No ConnectX-7 RoCE device is ACTIVE: no QSFP link. Check the cable at both ends and that the "
                        f"twins are UP (`ip link`); the {C2S} says: if none shows Up, check the cable, reboot both "
                        "Sparks and try again."))
    elif len(up_ports) == 1:
        devs = [rdma_device_for(t) for t in QSFP_TWINS[up_ports[0]]]
        out.append(info(f"For NCCL list both ACTIVE devices of port {up_ports[0]}: {_hca_advice(devs)} (one device "
                        "alone drives one PCIe x4 link: about half the cable's bandwidth). Cable the same port on the "
                        "other Spark."))
    elif len(up_ports) == 2:
        devs = [rdma_device_for(t) for p in up_ports for t in QSFP_TWINS[p]]
        out.append(info(f"Both QSFP ports are in use: all four twins need an IPv4 address (NVIDIA), and NCCL can use "
                        f"all four: {_hca_advice(devs)}."))
    return out


# --------------------------------------------------------------------------- rdma link

def _summarise_rdma(links: RdmaLinks, command: str | None) -> Summary:
    facts = {"links": [dataclasses.asdict(x) for x in links], "active": [x.device for x in links if x.is_active],
             "simulated": links.simulated, "truncated": links.truncated, "json": links.json}
    findings: list[Finding] = []
    if links.simulated:
        findings.append(info("This output says it is simulated (clusterlab's sim): no RDMA hardware is behind it."))
    spark = [x for x in links if x.device in SPARK_RDMA]
    for x in links:
        if x.state and not x.is_active and (x.physical_state or "").upper() == "LINK_UP":
            findings.append(warn(f"{x.device}: the cable has trained (physical_state LINK_UP) but the RDMA port is "
                                 f"{x.state}, so no RDMA traffic can flow; `state` is what counts. Check "
                                 f"`ip link show {x.netdev or '<netdev>'}` is UP, then reload with a reboot."))
        if x.device in SPARK_RDMA and x.netdev and x.netdev != SPARK_RDMA[x.device]:
            findings.append(warn(f"{x.device} rides on {x.netdev}; on a DGX Spark it belongs to {SPARK_RDMA[x.device]}: "
                                 "is this a Spark, or were the interfaces renamed?"))
    if not spark:
        states = ", ".join(f"{x.device}/{x.port} {x.state or '?'}" for x in links)
        findings.append(info(f"No DGX Spark RoCE device (rocep1s0f*/roceP2p1s0f*) here: {states}."))
        if links and not any(x.is_active for x in links):
            findings.append(fail("No RDMA port is ACTIVE: NCCL would fall back to TCP sockets."))
    else:
        findings += _port_findings({x.device: x.is_active for x in spark}, "rdma link: state ACTIVE")
    if links.truncated:
        findings.append(info("The last line is cut off: paste the whole `rdma link` output."))
    return facts, findings


def _is_rdma_json(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(
        isinstance(x, dict) and "ifname" in x and "port" in x and ("physical_state" in x or "state" in x) for x in value)


register(KindSpec(
    name="rdma-link", parse=parse_rdma_link, summarise=_summarise_rdma, programs=("rdma",),
    matches_command=_argv_is("rdma", "link"),
    line=re.compile(r"^link\s+\S+/\d+\s+(?:state|subnet_prefix|lid)\s|^\d+/\d+:\s+\S+/\d+:\s+state\s"),
    matches_json=_is_rdma_json,
))


# --------------------------------------------------------------------------- sysfs

def _device_rows(devices: dict[str, RoceDevice]) -> list[dict[str, Any]]:
    rows = []
    for d in devices.values():
        for num, p in d.ports.items():
            idx = roce_v2_ipv4_gid_index(d, num)
            netdev = p.netdev or SPARK_RDMA.get(d.name)
            rows.append({"rdma_device": d.name, "port": num, "pci_bdf": d.pci_bdf, "domain": d.pci_domain,
                         "netdev": netdev, "qsfp_port": qsfp_port(netdev) if netdev else None,
                         "state": p.state, "phys_state": p.phys_state, "roce_v2_gid_index": idx,
                         "ipv4": p.gids[idx].ipv4 if idx is not None else None,
                         "gids": [dataclasses.asdict(g) for g in p.gids.values()]})
        if not d.ports:
            rows.append({"rdma_device": d.name, "port": None, "pci_bdf": d.pci_bdf, "domain": d.pci_domain,
                         "netdev": SPARK_RDMA.get(d.name), "qsfp_port": None, "state": None, "phys_state": None,
                         "roce_v2_gid_index": None, "ipv4": None, "gids": []})
    return rows


def _gid_findings(rows: list[dict[str, Any]]) -> list[Finding]:
    """RoCE v2 IPv4 GID per active device, and whether one NCCL_IB_GID_INDEX fits them all."""
    out: list[Finding] = []
    active = [r for r in rows if (r["state"] or "").upper() == "ACTIVE"]
    for r in active:
        name = r["rdma_device"]
        if r["roce_v2_gid_index"] is None:
            has_v2 = any(g.get("type") == "RoCE v2" for g in r["gids"])
            why = ("only link-local (fe80) RoCE v2 GIDs" if has_v2 else "no RoCE v2 GID at all")
            out.append(fail(f"{name} is ACTIVE but has {why}: its netdev {r['netdev'] or '?'} has no IPv4 address, so "
                            "RoCE v2 cannot route between the Sparks. Give the twin its address (netplan, e.g. "
                            "192.168.100.10/24 on enp1s0f1np1); the GID appears by itself."))
        else:
            out.append(ok(f"{name}: RoCE v2 GID index {r['roce_v2_gid_index']} carries {r['ipv4']}"
                          f"{' (' + r['netdev'] + ')' if r['netdev'] else ''}."))
    indices = {r["rdma_device"]: r["roce_v2_gid_index"] for r in active if r["roce_v2_gid_index"] is not None}
    values = set(indices.values())
    if len(values) == 1:
        idx = values.pop()
        out.append(info(f"If you set NCCL_IB_GID_INDEX, use {idx} (the same for every active device here; perftest "
                        f"picks it too and prints `GID index : {idx}`). Unset, NCCL 2.21 and later pick the RoCE v2 "
                        "IPv4 GID themselves. Check the other Spark: the index can differ per node."))
    elif len(values) > 1:
        where = ", ".join(f"{d} {i}" for d, i in indices.items())
        out.append(warn(f"The RoCE v2 IPv4 GID sits at different indices ({where}): one NCCL_IB_GID_INDEX cannot fit "
                        "all devices. Leave NCCL_IB_GID_INDEX unset and let NCCL pick per device (NCCL 2.21 and later)."))
    return out


def _summarise_sysfs(devices: IbSysfs, command: str | None) -> Summary:
    rows = _device_rows(devices)
    facts = {"devices": rows, "simulated": devices.simulated, "truncated": devices.truncated}
    findings: list[Finding] = []
    if devices.simulated:
        findings.append(info("This output says it is simulated (clusterlab's sim): the sysfs layout is copied from a "
                             "real DGX Spark, with this machine's addresses."))
    for d in devices.values():
        netdev = SPARK_RDMA.get(d.name)
        if netdev and d.pci_bdf and d.pci_bdf.lower() != SPARK_PCI[netdev]:
            findings.append(warn(f"{d.name} sits on PCI {d.pci_bdf}; on a DGX Spark it is {SPARK_PCI[netdev]}: is this "
                                 "a Spark?"))
    for r in rows:
        if r["port"] is None:
            continue
        where = ", ".join(x for x in (f"PCI {r['pci_bdf']}" if r["pci_bdf"] else "",
                                      r["netdev"] or "", f"QSFP port {r['qsfp_port']}" if r["qsfp_port"] is not None
                                      else "") if x)
        state = f"{r['state'] or '?'}/{r['phys_state'] or '?'}"
        if r["state"] is None:
            shown = "; ".join(f"GID {g['index']}" + "".join(f", {x}" for x in (g.get("type"), g.get("ipv4") and
                                                                                f"IPv4 {g['ipv4']}", g.get("ndev")) if x)
                              for g in r["gids"])
            findings.append(info(f"{r['rdma_device']} port {r['port']} ({where}): its state is not in this output"
                                 + (f"; {shown}." if shown else ".")
                                 + (" NCCL_IB_GID_INDEX wants the RoCE v2 entry carrying the twin's IPv4 address."
                                    if shown else "")))
        elif (r["state"] or "").upper() != "ACTIVE":
            findings.append(info(f"{r['rdma_device']} port {r['port']} ({where}): {state}, not in use."))
        else:
            findings.append(ok(f"{r['rdma_device']} port {r['port']} ({where}): {state}."))
    bare = [r["rdma_device"] for r in rows if r["port"] is None]
    if bare:
        spark_names = [d for d in bare if d in SPARK_RDMA]
        findings.append(info(f"RDMA devices listed: {', '.join(bare)}"
                             + (" (all four ConnectX-7 twins of a Spark)" if len(spark_names) == 4 else "")
                             + ". Their port state is not in this output: run `rdma link`."))
    known = [r for r in rows if r["state"] is not None]
    spark = {r["rdma_device"]: r["state"].upper() == "ACTIVE" for r in known if r["rdma_device"] in SPARK_RDMA}
    if spark:
        findings += _port_findings(spark, "sysfs ports/1/state")
    elif known and not any(r["state"].upper() == "ACTIVE" for r in known):
        findings.append(fail("No RDMA port is ACTIVE: NCCL would fall back to TCP sockets."))
    findings += _gid_findings(rows)
    if devices.truncated:
        findings.append(info("The last line is cut off: the lines before it were read."))
    return facts, findings


def _mentions_sysfs_ib(argv: list[str]) -> bool:
    return any("/sys/class/infiniband" in a for a in argv)


register(KindSpec(
    name="ib-sysfs", parse=parse_ib_sysfs, summarise=_summarise_sysfs,
    matches_command=_mentions_sysfs_ib,
    line=re.compile(r"^/\S*?/infiniband/[^/\s]+/|^device\s+(?:roce|mlx5_|rxe|siw|irdma|bnxt_re|efa|ib)\S*\s+\S+$"),
))


# --------------------------------------------------------------------------- show_gids

def _summarise_show_gids(table: GidTable, command: str | None) -> Summary:
    facts = {"rows": [dataclasses.asdict(r) for r in table], "n_gids_found": table.n_gids_found,
             "truncated": table.truncated, "roce_v2_ipv4": [dataclasses.asdict(r) for r in table.roce_v2_ipv4()]}
    findings: list[Finding] = []
    devices = list(dict.fromkeys(r.device for r in table))
    rows = []
    for dev in devices:
        v2 = table.roce_v2_ipv4(dev)
        netdev = next((r.netdev for r in table if r.device == dev and r.netdev), None)
        rows.append({"rdma_device": dev, "state": "ACTIVE", "roce_v2_gid_index": v2[0].index if v2 else None,
                     "ipv4": v2[0].ipv4 if v2 else None, "netdev": netdev,
                     "gids": [{"type": "RoCE v2" if r.is_roce_v2 else "RoCE v1"} for r in table if r.device == dev]})
    findings += _gid_findings(rows)
    findings.append(info("show_gids lists every device, used or not: a GID with an IPv4 address exists only while "
                         "its netdev has that address. Check the link state with `rdma link`."))
    if table.truncated:
        findings.append(info("The table is cut off (no `n_gids_found=` line): the rows shown were read."))
    return facts, findings


register(KindSpec(
    name="show-gids", parse=parse_show_gids, summarise=_summarise_show_gids, programs=("show_gids",),
    matches_command=lambda argv: bool(argv) and argv[0] == "show_gids",
    line=re.compile(r"^DEV\s+PORT\s+INDEX\s+GID|^n_gids_found=\d+"
                    r"|^\S++\s++\d++\s++\d++\s++[0-9a-fA-F]{4}(?::[0-9a-fA-F]{4}){7}\s+(?:\d{1,3}(?:\.\d{1,3}){3}\s+)?v[12]\b"),
))


# --------------------------------------------------------------------------- ibstat

def _summarise_ibstat(cas: CaList, command: str | None) -> Summary:
    facts = {"cas": [dict(dataclasses.asdict(c), model=c.model) for c in cas], "truncated": cas.truncated}
    findings: list[Finding] = []
    kinds = {(c.ca_type, c.firmware) for c in cas if c.ca_type or c.firmware}
    if len(kinds) == 1 and len(cas) > 1:
        ca_type, fw = kinds.pop()
        model = next((c.model for c in cas if c.model), None)
        bits = [x for x in (f"{ca_type} = {model}" if model else ca_type, f"firmware {fw}" if fw else None) if x]
        findings.append(info(f"{len(cas)} devices ({', '.join(c.ca or '?' for c in cas)}): {', '.join(bits)}."))
    ethernet = [f"{c.ca} port {p.port}" for c in cas for p in c.ports if (p.link_layer or "").lower() == "ethernet"]
    if ethernet:
        findings.append(info("Link layer Ethernet, i.e. RoCE: a Spark's ConnectX-7 ports have no InfiniBand mode; NCCL "
                             "still calls its RDMA transport NET/IB."))
    for c in cas:
        name = c.ca or "this device"
        bits = [x for x in (f"{c.ca_type} = {c.model}" if c.model else c.ca_type,
                            f"firmware {c.firmware}" if c.firmware else None) if x]
        if bits and not (len(cas) > 1 and len({(x.ca_type, x.firmware) for x in cas if x.ca_type or x.firmware}) == 1):
            findings.append(info(f"{name}: {', '.join(bits)}."))
        for p in c.ports:
            label = f"{name} port {p.port}"
            if p.is_active:
                rate = p.rate_gbps
                if rate is not None and rate >= 200:
                    findings.append(ok(f"{label}: Active/{p.physical_state or '?'} at {rate:g} Gb/s, the full 200 GbE "
                                       "of a Spark QSFP port (each twin reports the port's rate)."))
                elif rate is not None and 100 <= rate < 200:
                    findings.append(warn(f"{label}: Active at only {rate:g} Gb/s: the link negotiated down; a Spark "
                                         "port runs at 200. Use a cable rated for 200G; through a switch, force 200G "
                                         "and turn auto-negotiation off on the switch port."))
                else:
                    findings.append(ok(f"{label}: Active/{p.physical_state or '?'}"
                                       + (f" at {rate:g} Gb/s." if rate is not None else ".")))
            elif p.state is not None:
                findings.append(info(f"{label}: {p.state}/{p.physical_state or '?'} (not in use; the Rate of a port "
                                     "that is down means nothing)."))
    spark = {c.ca: any(p.is_active for p in c.ports) for c in cas if c.ca in SPARK_RDMA and c.ports}
    if spark:
        findings += _port_findings(spark, "ibstat: State Active")
    if cas.truncated:
        findings.append(info("The output is cut off inside the last port block: the lines shown were read."))
    for w in cas.warnings:
        findings.append(info(f"ibstat warned: {w}"))
    return facts, findings


register(KindSpec(
    name="ibstat", parse=parse_ibstat, summarise=_summarise_ibstat, programs=("ibstat", "ibpanic"),
    matches_command=lambda argv: bool(argv) and argv[0] == "ibstat",
    line=re.compile(r"^CA '[^']*'$|^CA type:\s|^Number of ports:\s|^Firmware version:\s|^Hardware version:\s"
                    r"|^(?:Node|System image|Port) GUID:\s|^Physical state:\s|^Link layer:\s|^Base lid:\s|^SM lid:\s"
                    r"|^Capability mask:\s|^Rate:\s\d|^State:\s+(?:Active|Down|Initializing|Armed|Polling)\b|^ibpanic:"),
))


# --------------------------------------------------------------------------- perftest

_PERF_ERROR_HINTS = (
    (r"couldn't connect|unable to init the socket|connection refused|failed to connect",
     "the client could not reach the server: start the server side first (same -d device and -p port) on the other "
     "Spark, and give the client the peer twin's address in the same /24 (e.g. 192.168.100.11)."),
    (r"not found|no ib devices|couldn't get device|unable to find",
     "perftest cannot see that RDMA device: check the name with `rdma link` or `ibdev2netdev`; in a container pass "
     "--device=/dev/infiniband."),
    (r"modify qp|rtr|rts|timed out|timeout",
     "the queue pair could not connect: wrong GID index (-x) or the peer's address is in another subnet; use the "
     "RoCE v2 IPv4 GID (`show_gids`) and the peer twin on the same /24."),
    (r"mtu", "the RDMA MTU asked for (-m) is above the port's active MTU: leave -m out."),
    (r"permission|memlock|resource temporarily unavailable|cannot allocate",
     "locked memory is limited: run with sudo, or in a container add --ulimit memlock=-1 and IPC_LOCK."),
)


def _perftest_error(e: str) -> Finding:
    hint = next((h for pat, h in _PERF_ERROR_HINTS if re.search(pat, e, re.I)), "see the message.")
    return fail(f"perftest reported: {e}. Likely cause: {hint}")


def _bw_findings(r: PerftestRun, label: str) -> list[Finding]:
    bw = r.bw_average_gbps
    if bw is None:
        return []
    qps = f" with {r.qps} QPs" if r.qps and r.qps > 1 else ""
    typical = (f"{PERF_GUIDE}: 92.57 and 97.28 Gb/s per twin with 1 QP"
               + ("; 4 QPs reach ~111.7 Gb/s (eugr spark-vllm-docker)" if r.qps and r.qps > 1 else ""))
    if bw >= IB_BW_TYPICAL[0]:
        return [ok(f"{label}: {bw:.2f} Gb/s{qps}, above {CHECK_BW}'s {IB_BW_PASS_GBPS:g} Gb/s bar and in line with "
                   f"{typical}. One twin is one PCIe Gen5 x4 link (~100 Gb/s): run one ib_write_bw per twin at the "
                   "same time to fill the 200 Gb/s port (NVIDIA: 92.57 + 97.28 = 189.85 Gb/s).")]
    if bw >= IB_BW_PASS_GBPS:
        return [ok(f"{label}: {bw:.2f} Gb/s{qps}: passes {CHECK_BW}'s {IB_BW_PASS_GBPS:g} Gb/s bar, a little below "
                   f"{typical}. Close other traffic and rerun.")]
    if bw <= IB_BW_DEGRADED_GBPS:
        return [fail(f"{label}: only {bw:.2f} Gb/s{qps}, far below {CHECK_BW}'s {IB_BW_PASS_GBPS:g} Gb/s bar. If "
                     "`ethtool` shows 200000Mb/s and the PCIe link is 32 GT/s x4, this is the known degraded ConnectX-7 "
                     "state (~13 Gb/s): update DGX OS (`sudo apt full-upgrade`), reboot both Sparks with the cable in; "
                     "if it stays, unplug both Sparks and their power bricks for 60 s.")]
    return [fail(f"{label}: {bw:.2f} Gb/s{qps}, below {CHECK_BW}'s {IB_BW_PASS_GBPS:g} Gb/s bar ({typical}). Check "
                 "that `ethtool` shows 200000Mb/s on both ends, that nothing else uses the link, and that the PCIe "
                 "link of the device is Gen5 x4 (`sudo lspci -vv`: LnkSta 32GT/s, Width x4).")]


def _lat_findings(r: PerftestRun, label: str) -> list[Finding]:
    t = r.t_typical_us
    if t is None:
        return []
    row = r.lat_rows[0]
    extra = "".join(f", {n} {v:.2f} us" for n, v in (("t_avg", row.t_avg_us), ("99%", row.p99_us),
                                                      ("99.9%", row.p99_9_us)) if v is not None)
    if t <= 2.5:
        return [ok(f"{label}: t_typical {t:.2f} us for {row.bytes}-byte messages{extra}, in line with the "
                   f"{LAT_TYPICAL_US} us measured between two Sparks (eugr spark-vllm-docker).")]
    return [warn(f"{label}: t_typical {t:.2f} us for {row.bytes}-byte messages{extra}, well above the "
                 f"{LAT_TYPICAL_US} us measured between two Sparks: a switch in the path, CPU power saving, or "
                 "the test ran over another interface.")]


def _summarise_perftest(runs: list[PerftestRun], command: str | None) -> Summary:
    facts = {"runs": [dict(dataclasses.asdict(r), bw_average_gbps=r.bw_average_gbps, t_typical_us=r.t_typical_us,
                           bw_unit="Gb/s", latency_unit="us") for r in runs]}
    findings: list[Finding] = []
    for r in runs:
        dev = _twin_words(r.device) if r.device else "this device"
        side = {"client": "client side", "server": "server side"}.get(r.role or "", "")
        label = f"{r.test or r.program or 'perftest'} on {dev}" + (f" ({side})" if side else "")
        for e in r.errors:
            findings.append(_perftest_error(e))
        findings += _bw_findings(r, label) + _lat_findings(r, label)
        if r.report_unit and r.report_unit.upper().startswith("MB") and r.bw_rows:
            findings.append(info(f"{label}: perftest printed MB/sec (2^20 bytes/s); converted to Gb/s here. Add "
                                 "--report_gbits to read Gb/s directly."))
        if r.rdma_mtu_bytes:
            if r.rdma_mtu_bytes < 4096:
                findings.append(info(f"`Mtu : {r.rdma_mtu_bytes}[B]` is the RDMA path MTU, not the interface's "
                                     "Ethernet MTU: RoCE uses the largest RDMA MTU that fits, 1024 with MTU 1500 and "
                                     "4096 with MTU 9000 (jumbo frames on both Sparks)."))
            else:
                findings.append(info(f"`Mtu : {r.rdma_mtu_bytes}[B]` (RDMA path MTU): the interfaces run jumbo frames."))
        if r.link_type:
            if r.link_type.lower() == "ethernet":
                ips = (f" between {r.local_gid_ipv4} and {r.remote_gid_ipv4}" if r.local_gid_ipv4 and r.remote_gid_ipv4
                       else "")
                gid = f", GID index {r.gid_index}" if r.gid_index is not None else ""
                findings.append(info(f"Link type Ethernet: RoCE{gid}{ips}."))
            elif r.link_type.upper() == "IB" and r.rdma_cm:
                findings.append(info("Link type IB with rdma_cm: forced with --force-link IB; the Spark's link is "
                                     "Ethernet (RoCE), and rdma_cm resolves the addresses."))
        if r.role == "server" and not r.rows and not r.errors:
            findings.append(info("Server side, waiting or stopped before a result: the client prints the figures."))
        elif r.truncated:
            findings.append(info(f"{label}: the output stops before the end of the test (cut off or interrupted): "
                                 "the rows shown were read."))
        if r.run_infinitely and r.bw_rows:
            findings.append(info(f"--run_infinitely: {len(r.bw_rows)} readings; the figure above is the last one."))
    if not runs:
        findings.append(info("No perftest run found."))
    return facts, findings


def _is_perftest(argv: list[str]) -> bool:
    return any(a.rsplit("/", 1)[-1] in PERFTEST_PROGRAMS for a in argv)


register(KindSpec(
    name="perftest", parse=parse_perftest, summarise=_summarise_perftest, programs=PERFTEST_PROGRAMS,
    matches_command=_is_perftest,
    line=re.compile(r"^[A-Za-z][\w ]*?\s(?:BW|Lat|Latency)\s+Test$|^Dual-port\s*:|^Number of qps\s*:"
                    r"|^(?:local|remote) address:\s*LID\b|^\*\s*Waiting for client to connect|^\*{30,40}$"
                    r"|^WARNING: BW peak won't be measured|^-{80,}$|^Couldn't connect to \S+|^Unable to init the socket"
                    r"|^Transport type\s*:|^Link type\s*:\s*\w+$|^Mtu\s*:\s*\d+\[B\]|^GID index\s*:\s*\d+$"),
))


@register_cross_check
def _both_rails(items: list[tuple[Section, Any]]) -> list[tuple[int, Finding]]:
    """Two or more ib_write_bw clients on different Spark twins in one paste: their total."""
    seen: dict[str, float] = {}
    last = None
    for index, (s, parsed) in enumerate(items):
        if s.kind != "perftest" or s.error or not parsed:
            continue
        for r in parsed:
            if r.device in SPARK_RDMA and r.bw_average_gbps is not None and r.role != "server":
                seen[r.device] = r.bw_average_gbps
                last = index
    if len(seen) < 2 or last is None:
        return []
    total = sum(seen.values())
    parts = " + ".join(f"{v:.2f}" for v in seen.values())
    level = ok if total >= 2 * IB_BW_PASS_GBPS else warn
    return [(last, level(f"Twins {', '.join(seen)}: {parts} = {total:.2f} Gb/s together, if they ran at the same "
                         f"time ({PERF_GUIDE}: 92.57 + 97.28 = 189.85 Gb/s over one cable)."))]


# --------------------------------------------------------------------------- NCCL log

def _transport_findings(log: NcclLog, verdict: str, spark: bool | None = None) -> list[Finding]:
    """What the transport verdict means, and what to do about it."""
    out: list[Finding] = []
    hcas = [h.device for h in log.ib_devices]
    cross_node = (log.nnodes or len(log.hosts)) > 1 if (log.nnodes or log.hosts) else None
    if verdict == "NET/IB":
        names = ", ".join(f"{h.device}:{h.port}/{h.link_layer}" for h in log.ib_devices) or "(not listed in this excerpt)"
        out.append(ok(f"NCCL moved data with RDMA (NET/IB; RoCE on a Spark's ConnectX-7) over {names}."))
    elif verdict == "NET/Socket":
        where = ", ".join(f"{s.name} ({s.address})" for s in log.socket_ifaces)
        why = []
        if log.env_settings.get("NCCL_IB_DISABLE", "").strip() == "1":
            why.append("NCCL_IB_DISABLE=1 forbids RDMA: unset it")
        if log.ib_no_device:
            why.append("NCCL found no RDMA device (`NET/IB : No device found`): in a container pass "
                       "--device=/dev/infiniband with --cap-add=IPC_LOCK --ulimit memlock=-1 (or --privileged)")
        if "NCCL_IB_HCA" in log.env_settings and not hcas:
            why.append(f"NCCL_IB_HCA={log.env_settings['NCCL_IB_HCA']} matched no usable device: check the names "
                       "with `rdma link`")
        cause = ("; ".join(why) + ". ") if why else ("Give NCCL the RDMA devices: set NCCL_IB_HCA to both Up twins "
                                                      "(e.g. rocep1s0f1,roceP2p1s0f1) and, in a container, pass "
                                                      "--device=/dev/infiniband with IPC_LOCK (or --privileged). ")
        out.append(fail(f"NCCL fell back to TCP sockets (NET/Socket{' over ' + where if where else ''}): no RDMA, a "
                        f"few GB/s at best. {cause}Then check the log shows `NET/IB : Using [0]roce...`."))
        if any(s.name == HOUSE_INTERFACE for s in log.socket_ifaces):
            out.append(fail(f"...and the sockets run over {HOUSE_INTERFACE}, the 10 GbE management port: set "
                            "NCCL_SOCKET_IFNAME to a QSFP twin."))
        if any(s.name == "lo" for s in log.socket_ifaces):
            out.append(info("The socket transport ran over the loopback interface (lo): both ranks were on one "
                            "machine, so no cable was used."))
    elif verdict == "P2P":
        out.append(info("Every channel went P2P (GPU to GPU inside one machine, over NVLink or PCIe): no network "
                        "was used, so this log says nothing about the cable. Run across the two Sparks to see "
                        "NET/IB."))
    elif verdict == "SHM":
        out.append(info("Every channel went through host shared memory (SHM) inside one machine: no network was "
                        "used. Run across the two Sparks to see NET/IB."))
    elif verdict.startswith("mixed"):
        parts = verdict.split(": ", 1)[1].split("+")
        level = fail if "NET/Socket" in parts else info
        out.append(level(f"Channels used several transports ({verdict.split(': ', 1)[1]}): NET/* between machines, "
                         "P2P/SHM inside one."
                         + (" NET/Socket means some traffic went over TCP: give NCCL the RDMA devices "
                            "(NCCL_IB_HCA, /dev/infiniband in containers)." if "NET/Socket" in parts else "")))
    elif verdict == "unknown":
        out.append(info("The log does not show which transport NCCL used: no `Channel ... via ...` and no `Using "
                        "network` line. Paste more of it (NCCL prints them when the communicator is set up)."))
    else:
        out.append(info(f"NCCL used {verdict}."))
    if not log.channels and verdict in ("NET/IB", "NET/Socket"):
        out.append(info("No `Channel ... via` lines in this excerpt: the verdict comes from the network NCCL chose."))
    if verdict == "NET/IB" or (verdict.startswith("mixed") and "NET/IB" in verdict):
        out += _hca_findings(log)
    if cross_node is False and verdict in ("NET/IB", "NET/Socket"):
        out.append(info("All lines come from one machine: check the other Spark's log too."))
    return out


def _hca_findings(log: NcclLog) -> list[Finding]:
    out: list[Finding] = []
    for host, hcas in (log.ib_devices_by_host or {"": log.ib_devices}).items():
        devs = [h.device for h in hcas]
        who = f" on {host}" if host else ""
        spark = [d for d in devs if d in SPARK_RDMA]
        if len(devs) == 1:
            dev = devs[0]
            twin = None
            if dev in SPARK_RDMA:
                port = qsfp_port(SPARK_RDMA[dev])
                twin = [rdma_device_for(t) for t in QSFP_TWINS[port]]
            out.append(warn(f"NCCL uses only one HCA{who} ({dev}): one twin is one PCIe x4 link, about half the "
                            f"cable's 200 Gb/s. Set {_hca_advice(twin or [])} so it drives both."))
        elif spark and len({qsfp_port(SPARK_RDMA[d]) for d in spark}) == 1 and len(spark) == 2:
            out.append(ok(f"NCCL drives both twins of QSFP port {qsfp_port(SPARK_RDMA[spark[0]])}{who} "
                          f"({', '.join(spark)}): the whole cable."))
        elif len(spark) == 4:
            out.append(ok(f"NCCL drives all four twins{who} (both ports)."))
    hca = log.env_settings.get("NCCL_IB_HCA")
    if hca is not None:
        exact = hca.startswith("=")
        names = [x for x in hca.lstrip("=^").split(",") if x]
        if not exact and any(n not in SPARK_RDMA and not re.search(r":\d+$", n) for n in names):
            out.append(info(f"NCCL_IB_HCA={hca}: without a leading `=` each name is a prefix, so `{names[0]}` "
                            "matches every device whose name starts with it. NCCL_IB_HCA==rocep1s0f1,roceP2p1s0f1 "
                            "matches exactly."))
    gid = log.env_settings.get("NCCL_IB_GID_INDEX")
    if gid is not None:
        out.append(info(f"NCCL_IB_GID_INDEX={gid}: it must be the RoCE v2 GID carrying the twin's IPv4 address on "
                        "every node (`show_gids`); a wrong index fails with `unhandled system error`."))
    if log.oob_iface and is_qsfp_twin(log.oob_iface):
        out.append(ok(f"NCCL's out-of-band (bootstrap) traffic uses {log.oob_iface}, a QSFP twin."))
    elif log.oob_iface == HOUSE_INTERFACE:
        out.append(info(f"NCCL's out-of-band (bootstrap) traffic uses {HOUSE_INTERFACE}, the 10 GbE port: only "
                        "small setup messages go there (NVIDIA's cluster script does the same); the data goes over RDMA."))
    if log.gdr_hcas:
        out.append(info("GPU Direct RDMA is reported enabled for " + ", ".join(log.gdr_hcas) + "; whether a GB10 "
                        "really uses it is contested, so it is not graded (NET/IB is what counts)."))
    return out


def _summarise_nccl_log(log: NcclLog, command: str | None) -> Summary:
    verdict = transport_verdict(log)
    facts = dict(dataclasses.asdict(log), transport_verdict=verdict, transports=list(log.transports),
                 ib_devices=[h._asdict() for h in log.ib_devices],
                 ib_devices_by_host={k: [h._asdict() for h in v] for k, v in log.ib_devices_by_host.items()},
                 socket_ifaces=[s._asdict() for s in log.socket_ifaces],
                 channels_by_transport={t: sum(1 for c in log.channels if c.transport == t) for t in log.transports})
    facts.pop("channels")
    findings: list[Finding] = []
    if log.simulated:
        findings.append(info("This log says it is simulated (clusterlab's sim): the line shapes are copied from a real "
                             "two-Spark run."))
    if log.version:
        findings.append(info(f"NCCL {log.version}."))
    if verdict == "unknown" and (log.nranks == 1 or log.nnodes == 1) and not log.channels:
        findings.append(info(f"One {'rank' if log.nranks == 1 else 'node'} in this communicator: the network NCCL "
                             f"chose ({log.network or 'none named'}) carried nothing between machines."))
    else:
        findings += _transport_findings(log, verdict)
    for e in log.errors[:3]:
        findings.append(fail(f"NCCL error: {e}. `unhandled system error` at init is often a wrong NCCL_IB_GID_INDEX "
                             "or an HCA listed in NCCL_IB_HCA that cannot reach the peer (another subnet)."))
    for w in [w for w in log.warnings if w not in log.errors][:5]:
        findings.append(warn(f"NCCL WARN: {w}"))
    if log.bench:
        b = max(log.bench, key=lambda x: x.size_mib)
        findings.append(info(f"The benchmark lines end at {b.size_mib:g} MiB with busbw {b.busbw_gbs:g} GB/s "
                             f"(= {b.busbw_gbs * 8:g} Gb/s)."))
    return facts, findings


_NCCL_LINE = (r"\bNCCL (?:INFO|WARN|TRACE|ABORT)\b|^NET/(?:IB\w*|Socket|Plugin)\s*:|^Channel \d+/\d+\s*:\s*\d+\[\w+\]\s*->"
              r"|^Using network \w|^NCCL version \d|^NCCL_[A-Z0-9_]+ set (?:by environment )?to ")

register(KindSpec(
    name="nccl-log", parse=parse_nccl_log, summarise=_summarise_nccl_log,
    line=re.compile(_NCCL_LINE + r"|^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ \S*torch/"),
))


# --------------------------------------------------------------------------- nccl-tests

def _is_spark_pair(res: NcclTestsResult) -> bool | None:
    """True when the ranks are two GB10s on two hosts; None when the ranks are not shown."""
    if not res.ranks:
        return None
    return len(res.hosts) == 2 and res.nranks == 2 and all("GB10" in r.gpu for r in res.ranks)


def _busbw_findings(res: NcclTestsResult) -> list[Finding]:
    row = res.largest
    if row is None:
        return []
    bw = row.busbw_gbs
    size = row.size_bytes
    gib = size / 2**30
    size_words = f"{gib:g} GiB" if gib >= 1 else f"{size / 2**20:g} MiB" if size >= 2**20 else f"{size} B"
    sides = " / ".join(f"{m.busbw_gbs:g}" for m in (row.out_of_place, row.in_place) if m is not None)
    head = f"busbw {sides} GB/s (out-of-place / in-place) at {size_words}"
    spark = _is_spark_pair(res)
    out: list[Finding] = []
    if all((r.busbw_gbs or 0) == 0 for r in res.rows):
        return [info(f"{head}: busbw is 0 in every row, as with a single rank (nothing moves): run one rank per "
                     "Spark (`mpirun -np 2 -H <ip1>:1,<ip2>:1 ...`).")]
    if spark is False:
        gpus = ", ".join(dict.fromkeys(r.gpu for r in res.ranks))
        where = "one host" if len(res.hosts) == 1 else f"{len(res.hosts)} hosts"
        return [info(f"{head}; {res.nranks} ranks on {where} ({gpus}): not a two-Spark run, so the Spark bars do not "
                     "apply." + (" Ranks on one host do not use the cable between two machines." if len(res.hosts) == 1
                                else ""))]
    small = size < 2**30
    note = (" The message size is small: latency dominates; NVIDIA's check runs -b 16G -e 16G." if small else "")
    collective = res.collective or "the test"
    bar = (f"{CLUSTER_SETUP}'s warning bar {BUSBW_WARN_GBS:g} GB/s (175 Gb/s, all_gather -b 16G over the HCAs)")
    if bw >= BUSBW_WARN_GBS:
        out.append(ok(f"{head}: above {bar}. Seen on Spark pairs: 22.96 GB/s (MTU 9000, NCCL 2.28.9) and 23.74 GB/s "
                      "(both twins in NCCL_IB_HCA, MTU 9000); the cable's line rate is 25 GB/s."))
    elif bw > BUSBW_ONE_TWIN_GBS:
        out.append(warn(f"{head}: below {bar}.{note} Reported: 18.94/20.95 GB/s at MTU 1500 without NCCL_IB_HCA "
                        "(dgx-spark-playbooks issue #25), 23.74 GB/s with both twins in NCCL_IB_HCA and MTU 9000 "
                        "(PR #103): set MTU 9000 on both Sparks and NCCL_IB_HCA to both twins (-x NCCL_IB_HCA=... "
                        "with mpirun)."))
    elif bw > BUSBW_BROKEN_GBS:
        out.append(fail(f"{head}: about half of what a Spark pair reaches (~23 GB/s).{note} Around 12 GB/s means NCCL "
                        "drives only one twin (oshlabs dgx-spark-cluster): list both twins in NCCL_IB_HCA."))
    else:
        out.append(fail(f"{head}: broken (~3 GB/s is the known failure class).{note} Causes seen: NCCL fell back to "
                        "sockets (run with -x NCCL_DEBUG=INFO and look for NET/Socket), a stale ConnectX-7 state after "
                        "re-cabling (reboot both Sparks), or a development-branch NCCL build (build the v2.28.9-1 "
                        "release tag, as NVIDIA's NCCL playbook does)."))
    if spark is None and not small:
        out.append(info(f"The `# Rank` lines are not in this paste: the bar assumes {collective} ran between the two "
                        "Sparks (one GPU each)."))
    return out


def _summarise_nccl_tests(res: NcclTestsResult, command: str | None) -> Summary:
    facts = dict(dataclasses.asdict(res), nranks=res.nranks, hosts=list(res.hosts), nccl_version=res.nccl_version,
                 avg_busbw_recomputed=res.avg_busbw_recomputed, busbw_at_largest_gbs=res.busbw_at_largest_gbs,
                 busbw_unit="GB/s", time_unit="us",
                 nccl_transport=transport_verdict(res.nccl_log) if res.nccl_log else None)
    facts.pop("nccl_log")
    findings: list[Finding] = []
    head = [res.collective or "nccl-tests"]
    if res.nranks:
        gpus = ", ".join(dict.fromkeys(r.gpu for r in res.ranks))
        head.append(f"{res.nranks} rank{'s' if res.nranks != 1 else ''}" + (f" on {', '.join(res.hosts)}" if res.hosts else "") + (f" ({gpus})" if gpus else ""))
    if res.nccl_version:
        head.append(f"NCCL {res.nccl_version}")
    if res.tests_version:
        head.append(f"nccl-tests {res.tests_version}")
    findings.append(info(", ".join(head) + "."))
    for e in res.errors[:3]:
        findings.append(fail(f"The test failed: {e.rstrip('.')}. Rerun with -x NCCL_DEBUG=INFO to see why (a wrong "
                             "NCCL_IB_GID_INDEX or HCA gives `unhandled system error`)."))
    if res.independent_runs:
        findings.append(fail("Several processes each ran the test alone (each one `Rank 0` of a 1-rank job): "
                             "nccl-tests was built without MPI, so mpirun started independent copies and nothing "
                             "crossed between the Sparks. Rebuild with `make MPI=1 MPI_HOME=/usr/lib/aarch64-linux-gnu/"
                             "openmpi` (NVIDIA's NCCL playbook) and run again."))
    elif res.nranks == 1:
        findings.append(info("One rank: a collective of one GPU moves nothing (busbw 0). Run one rank per Spark "
                             "(`mpirun -np 2 -H <ip1>:1,<ip2>:1 ...`)."))
    if not res.independent_runs and res.nranks != 1:
        findings += _busbw_findings(res)
    avg, rec = res.avg_busbw_reported, res.avg_busbw_recomputed
    if avg is not None and rec is not None:
        findings.append(info(f"# Avg bus bandwidth {avg:g} GB/s; recomputed from the rows (mean busbw of every row, "
                             f"both columns): {rec:.4g} GB/s."))
        if abs(avg - rec) > 0.02 * max(avg, rec) + 0.01:
            findings.append(warn(f"The printed average ({avg:g}) does not match the rows ({rec:.4g}): some rows are "
                                 "missing from the paste, or it was edited."))
    elif rec is not None:
        findings.append(info(f"The output is cut off before `# Avg bus bandwidth`; recomputed from the {len(res.rows)} "
                             f"row(s) shown: {rec:.4g} GB/s (mean busbw of every row, both columns)."))
    factor = busbw_factor(res.collective, res.nranks)
    if factor is not None and res.largest is not None and res.largest.out_of_place is not None:
        m = res.largest.out_of_place
        if m.algbw_gbs and abs(m.busbw_gbs - m.algbw_gbs * factor) > 0.02 * m.busbw_gbs + 0.02:
            findings.append(info(f"busbw {m.busbw_gbs:g} is not algbw {m.algbw_gbs:g} x {factor:.3g} as {res.collective} "
                                 f"with {res.nranks} ranks gives: the rank count may differ from the `# Rank` lines."))
    if res.wrong_total:
        findings.append(fail(f"{res.wrong_total} wrong element(s) (#wrong): the data arrived corrupted. Rerun; if it "
                             "repeats, suspect the NCCL build or the hardware."))
    if res.out_of_bounds_ok is False:
        findings.append(fail(f"`# Out of bounds values : {res.out_of_bounds} FAILED`: results out of range."))
    if res.nccl_log is not None and transport_verdict(res.nccl_log) != "unknown":
        findings += _transport_findings(res.nccl_log, transport_verdict(res.nccl_log))
    if not res.rows and not res.errors:
        findings.append(info("No data row: the test did not get to measure (or the paste stops before the rows)."))
    return facts, findings


def _is_nccl_test(argv: list[str]) -> bool:
    return any(re.search(r"_perf(?:_mpi)?$", a.rsplit("/", 1)[-1]) for a in argv)


_DTYPES = r"(?:float|double|half|bfloat16|int8|uint8|int32|uint32|int64|uint64|f8e4m3|f8e5m2|fp8_e4m3|fp8_e5m2|int|float16|float32|float64)"

register(KindSpec(
    name="nccl-tests", header=re.compile(r"^#\s*(?:nccl-tests version|Collective test starting|nThread \d|Using devices"
                                        r"|Rank\s+\d+ (?:Group|Pid))"),
    parse=parse_nccl_tests, summarise=_summarise_nccl_tests, programs=("all_reduce_perf",
                                                                                      "all_gather_perf", "mpirun"),
    matches_command=_is_nccl_test,
    line=re.compile(r"^(?:\S*?<std(?:out|err)>:\s*)?\d++\s++\d++\s++" + _DTYPES + r"\s+"
                    r"|<std(?:out|err)>:\s*#\s*(?:nccl-tests version|Collective test|nThread|Using devices|Rank\s|"
                    r"Avg bus|Out of bounds|\s*size\s+count)"
                    r"|Test (?:NCCL |CUDA )?failure|^Invalid number of GPUs:|^Please check the number of processes and GPUs"
                    r"|" + _NCCL_LINE
                    # its summary lines (comments: they stay with the rows above them)
                    + r"|^#\s*$|^#\s*(?:Out of bounds values|Avg bus bandwidth|Collective test concluded|error:"
                      r"|GPU memory usage)\b"),
))


# --------------------------------------------------------------------------- collective benchmark tables

def _summarise_bench(t: BenchTable, command: str | None) -> Summary:
    facts = {"columns": list(t.columns), "form": t.form, "rows": [dataclasses.asdict(r) for r in t.rows],
             "busbw_unit": "GB/s", "time_unit": "us"}
    row = t.largest
    findings: list[Finding] = []
    if row is None or row.busbw_gbs is None:
        return facts, [info("No busbw column in this table.")]
    bw, size = row.busbw_gbs, f"{row.size:g} {row.size_unit}"
    facts["busbw_at_largest_gbs"] = bw
    src = "oshlabs dgx-spark-cluster: ~23-24 GB/s is the target between two Sparks"
    if bw > 30:
        findings.append(info(f"busbw {bw:g} GB/s at {size}: more than a 200 Gb/s cable can carry (25 GB/s), so the "
                             "ranks shared one machine (NVLink/PCIe): this does not measure the Spark link."))
    elif bw >= BUSBW_WARN_GBS:
        findings.append(ok(f"busbw {bw:g} GB/s at {size}: what two Sparks reach with both twins ({src})."))
    elif bw > BUSBW_ONE_TWIN_GBS:
        findings.append(warn(f"busbw {bw:g} GB/s at {size}: a little below the ~23-24 GB/s two Sparks reach ({src}); "
                             "check MTU 9000 and that NCCL_IB_HCA lists both twins."))
    elif bw > BUSBW_BROKEN_GBS:
        findings.append(fail(f"busbw {bw:g} GB/s at {size}: about half of a Spark pair's ~23 GB/s: NCCL drives only one "
                             "twin (oshlabs dgx-spark-cluster: ~12 GB/s = one twin). List both in NCCL_IB_HCA."))
    else:
        findings.append(fail(f"busbw {bw:g} GB/s at {size}: single digits mean NCCL fell back to TCP sockets "
                             "(oshlabs dgx-spark-cluster). Run with NCCL_DEBUG=INFO and look for NET/Socket."))
    if row.size_unit.upper().startswith("M") and row.size < 256:
        findings.append(info("The largest message is small: latency dominates; measure up to 1-2 GB for the link's "
                             "bandwidth."))
    return facts, findings


register(KindSpec(
    name="collective-bench", parse=parse_bench_table, summarise=_summarise_bench,
    # the table header only: `size_MiB=... busbw_GBps=...` lines sit inside NCCL logs, which read them
    # (name the kind with --kind collective-bench for such lines alone)
    line=re.compile(r"^size\([^)]*\)\s+time\([^)]*\)\s+algbw\([^)]*\)\s+busbw\([^)]*\)"),
))


# --------------------------------------------------------------------------- lspci (ConnectX-7)

@register_cross_check
def _connectx_links(items: list[tuple[Section, Any]]) -> list[tuple[int, Finding]]:
    """ConnectX functions in an ``lspci -vv`` paste: each Spark twin's link should train at 32 GT/s x4."""
    out: list[tuple[int, Finding]] = []
    for index, (s, parsed) in enumerate(items):
        if s.kind != "lspci" or s.error or not parsed:
            continue
        for d in parsed:
            if not getattr(d, "is_connectx", False):
                continue
            label = f"{d.address} {d.connectx_model or 'ConnectX'}"
            sta = d.lnksta
            if sta is None:
                out.append((index, info(f"{label}: no LnkSta line (run `sudo lspci -vv -d 15b3:`).")))
            elif sta.width is not None and sta.width < 4 or sta.width_downgraded:
                out.append((index, fail(f"{label}: PCIe link x{sta.width}" + (" (downgraded)" if sta.width_downgraded
                                                                              else "")
                                        + ": each Spark twin has a Gen5 x4 link; x2 halves that twin (seen on GX10 units "
                                          "with an early BIOS on the 0002 functions): update the BIOS/firmware.")))
            elif sta.speed_gt_s is not None and sta.speed_gt_s < 32:
                out.append((index, warn(f"{label}: PCIe link at {sta.speed_gt_s:g} GT/s x{sta.width}: a Spark twin "
                                        "trains at 32 GT/s (Gen5) x4; check again after a reboot.")))
            elif sta.speed_gt_s is None or sta.width is None:
                out.append((index, info(f"{label}: LnkSta does not show both the speed and the width.")))
            else:
                out.append((index, ok(f"{label}: PCIe {sta.speed_gt_s:g} GT/s x{sta.width} (Gen{sta.gen}), about "
                                      "126 Gb/s for this twin: what a Spark twin should train at.")))
    return out
