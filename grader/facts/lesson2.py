"""Lesson 2 facts: the RoCE mapping table per node, the interface variables of the serving
processes, and what the named NCCL / nccl-tests / ib_write_bw logs show.

Shape (JSON-able)::

    {"nodes": {name: {"reachable", "error", "roce_simulated": bool,
                      "mapping": [{"rdma_device", "netdev", "pci_bdf", "domain", "qsfp_port",
                                   "link": "Up"|"Down"|"absent", "state", "phys_state",
                                   "ipv4", "roce_v2_gid_index"}],
                      "cabled_port": [port...], "env": {VAR: value}, "env_processes": int, "ipv4": {iface: [addr]},
                      "roce_problems" | "ifname_problems" | "ib_hca_problems" | "gid_problems": [sentence],
                      "ifname_doubts": [sentence] (a ring's twin that may not reach both neighbours: warns),
                      "env_unmeasured": [sentence]}},
     "topology": "ring"|"switch" (absent for a pair),
     "pair": {"env_differences": [sentence], "env_unmeasured": [sentence],
              "nccl_transport": str|None, "nccl_transport_problems", "nccl_transport_unmeasured": [sentence],
              "allgather_busbw_gbs": float|None (GB/s, recomputed from the rows), "busbw_problems",
              "busbw_unmeasured": [sentence],
              "ib_write_bw_gbps": [float] (Gb/s, average column per twin), "ib_write_bw_problems",
              "ib_write_bw_unmeasured": [sentence],
              ... lesson 2b's serving facts (grader/facts/lesson2_serve.py)}}

``*_problems`` are what the outputs show wrong; ``*_unmeasured`` say what was not there to judge (no
Ray or vLLM process to read the variables from, a log not named or empty) and how to get it measured.
"""

from __future__ import annotations

import contextlib
import ipaddress
from typing import Any

from grader import nccl_env
from grader.evidence import Evidence, RawOutput
from grader.facts.lesson1 import twin_states
from grader.facts.lesson2_serve import serve_facts
from grader.facts.lesson2_versions import version_facts
from grader.parsers import ParseError, parse_ip_addr
from grader.parsers.ib_sysfs import parse_ib_sysfs
from grader.parsers.nccl_log import parse_nccl_log, transport_verdict
from grader.parsers.nccl_tests import parse_nccl_tests
from grader.parsers.perftest import parse_perftest
from grader.parsers.proc_env import parse_serving_env
from grader.parsers.rdma import parse_rdma_link
from grader.spark_names import HOUSE_INTERFACE, QSFP_TWINS, is_qsfp_twin, qsfp_port, rdma_device_for, twin_domain

ALL_TWINS = [t for p in sorted(QSFP_TWINS) for t in QSFP_TWINS[p]]
IFNAME_VARS = ("NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME", "UCX_NET_DEVICES", "OMPI_MCA_btl_tcp_if_include",
               "TP_SOCKET_IFNAME")
REQUIRED_IFNAME_VARS = ("NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME")
"""NCCL bootstraps and Gloo (vLLM's CPU-side groups) pick an interface by themselves when these are
unset, often the house network (procedure.md §5 item 3); the others matter only for MPI/UCX runs."""
SAME_ON_BOTH = ("NCCL_SOCKET_IFNAME", "NCCL_IB_HCA", "GLOO_SOCKET_IFNAME", "UCX_NET_DEVICES",
                "OMPI_MCA_btl_tcp_if_include", "TP_SOCKET_IFNAME", "NCCL_IB_DISABLE", "NCCL_NET")
"""Variables the ranks of one job must agree on across the nodes (L2.env_same): the interface and
HCA names are the same on both Sparks, and NCCL pairs HCAs across ranks by list position
(procedure.md §5 item 5)."""
PER_NODE = ("NCCL_IB_GID_INDEX",)
"""Variables whose right value is each node's own: the RoCE v2 GID carrying a twin's IPv4 address
sits at the index that node's GID table gives it (3 on one Spark, 5 on another: NVIDIA's advice;
MiaAI-Lab DeepSeek-v4 PR #10). L2.gid_index judges each node's value against its own table
(:func:`_gid_problems`), so L2.env_same leaves these out: a cross-node "must agree" would contradict
it whenever the tables differ. The processes of one node must still agree on them (:func:`_env`)."""


def _text(raw: RawOutput | None) -> str | None:
    return raw.stdout if raw is not None and not raw.timed_out and raw.stdout.strip() else None


def _mapping(ev: Evidence, node: str, states: dict[str, str]) -> tuple[list[dict], bool, list[str]]:
    """(mapping rows, simulated, problems reading the RoCE view)."""
    problems: list[str] = []
    simulated = False
    ipv4: dict[str, str] = {}
    ip = _text(ev.outputs(node, "ip_addr"))
    try:
        ipv4 = {i.name: i.ipv4[0].local for i in parse_ip_addr(ip or "") if i.ipv4}
    except ParseError:
        pass
    sysfs: dict[str, Any] = {}
    raw = _text(ev.outputs(node, "ib_sysfs"))
    if raw:
        simulated = "/sys/class/infiniband" not in raw.splitlines()[0]
        try:
            sysfs = parse_ib_sysfs(raw)
        except ParseError as e:
            problems.append(str(e))
    links: dict[str, Any] = {}
    raw_link = _text(ev.outputs(node, "rdma_link"))
    if raw_link:
        simulated = simulated or "simulated" in raw_link.splitlines()[0]
        try:
            links = {link.device: link for link in parse_rdma_link(raw_link)}
        except ParseError as e:
            problems.append(str(e))
    rows = []
    for twin in ALL_TWINS:
        dev = rdma_device_for(twin)
        d = sysfs.get(dev)
        port = d.ports.get(1) if d is not None else None
        link = links.get(dev)
        addr = ipv4.get(twin)
        gid = None
        if port is not None and addr:
            gid = next((g.index for g in sorted(port.gids.values(), key=lambda g: g.index)
                        if g.type == "RoCE v2" and g.ipv4 == addr), None)
        rows.append({"rdma_device": dev, "netdev": twin, "pci_bdf": d.pci_bdf if d is not None else None,
                     "domain": twin_domain(twin), "qsfp_port": qsfp_port(twin), "link": states.get(twin, "absent"),
                     "state": (link.state if link is not None else (port.state if port is not None else None)),
                     "phys_state": (link.physical_state if link is not None else
                                    (port.phys_state if port is not None else None)),
                     "ipv4": addr, "roce_v2_gid_index": gid})
    if not sysfs and not links:
        problems.append("no RoCE device found (neither /sys/class/infiniband nor `rdma link`): is the ConnectX-7 "
                        "driver loaded (`lsmod | grep mlx5`)?")
    return rows, simulated, problems


def _active(state: str | None) -> bool:
    return bool(state) and "ACTIVE" in state.upper()


def _roce_problems(rows: list[dict], ports: list[int]) -> list[str]:
    problems = []
    for r in rows:
        if r["qsfp_port"] not in ports:
            continue
        if not _active(r["state"]):
            problems.append(f"{r['rdma_device']} (behind {r['netdev']}) is {r['state'] or 'not listed'}, not ACTIVE: "
                            f"both twins of port {r['qsfp_port']} must be ACTIVE/LINK_UP (`rdma link`)")
        if len(ports) == 2 and not r["ipv4"]:
            problems.append(f"two cables are in, but {r['netdev']} has no IPv4 address: with two cables all four "
                            "interfaces need addresses for full bandwidth (NVIDIA connect-two-sparks)")
    return problems


def _env(ev: Evidence, node: str) -> tuple[dict[str, str], int, list[str]]:
    """(variables as the serving processes see them, how many processes were read, problems)."""
    procs = parse_serving_env(ev.outputs(node, "serving_env").stdout) if ev.outputs(node, "serving_env") else []
    readable = [p for p in procs if p.readable]
    denied = next((p.description or "this user" for p in procs if p.source == "docker-denied"), None)
    if not readable:
        why = ("their environment is not readable by this user (run the check as the user that started them, or "
               "the containers' env is read with `docker inspect`)") if procs else "none is running"
        if denied:
            why = (f"`docker ps` was refused: {denied} is not in the docker group, so the containers' variables "
                   f"cannot be read (`sudo usermod -aG docker {denied}`, then log out and in again)")
        return {}, 0, [f"no Ray or vLLM process could be read: {why}. Start the cluster (lesson 2b), "
                       "then check again"]
    env: dict[str, str] = {}
    problems = []
    for p in readable:
        for k, v in p.env.items():
            if k in env and env[k] != v and k in SAME_ON_BOTH + PER_NODE:
                problems.append(f"processes disagree on {k}: {env[k]!r} and {v!r} ({p.description})")
            env.setdefault(k, v)
    return env, len(readable), problems


def _reaching_all(ifaces: list, peers: dict[str, list[str]]) -> list[str]:
    """The Up interfaces of ``ifaces`` (parsed ``ip addr``) whose IPv4 subnet holds an address of every
    peer (``peers``: peer -> its IPv4 addresses)."""
    out = []
    for i in ifaces:
        nets = [a.network for a in i.ipv4 if a.network is not None]
        if i.is_up and nets and all(any(_within(p, n) for n in nets for p in paddrs) for paddrs in peers.values()):
            out.append(i.name)
    return out


def _within(address: str, net: Any) -> bool:
    with contextlib.suppress(ValueError):
        return ipaddress.ip_address(address) in net
    return False


def _selected(var: str, value: str, ipv4: dict[str, list[str]], rows: list[dict]) -> list[str]:
    """The interfaces of this node (``ipv4``: interface -> its IPv4 addresses) that ``var=value`` selects, read
    with its tool's syntax (grader.nccl_env); UCX's ``<rdma device>:<port>`` via the RoCE mapping ``rows``."""
    names = list(ipv4)
    if var == "NCCL_SOCKET_IFNAME":
        return nccl_env.socket_ifnames(value, names)
    if var == "UCX_NET_DEVICES":
        return nccl_env.ucx_devices(value, names, {r["rdma_device"]: r["netdev"] for r in rows})
    if var == "OMPI_MCA_btl_tcp_if_include":
        return nccl_env.ompi_includes(value, ipv4)
    return nccl_env.plain_ifnames(value, names)


def _ifname_problems(env: dict[str, str], rows: list[dict], ipv4: dict[str, list[str]],
                     ring_ok: list[str] | None = None) -> tuple[list[str], list[str]]:
    """What is wrong, and what is doubtful, with the interface variables on one node: ([sentence], [sentence]).
    ``env``: the serving processes' variables; ``rows``: the node's RoCE mapping (:func:`_mapping`); ``ipv4``:
    interface -> its addresses.

    A pair or a switch: each must select an Up QSFP twin (else wrong). A ring (``ring_ok``: the interfaces whose
    subnet holds every peer, :func:`_reaching_all`): each should select one of those. No QSFP twin of a ring
    does (each link is a subnet of its own, reaching one neighbour), so NVIDIA's cluster script bootstraps over
    the house network (``NCCL_SOCKET_IFNAME=enP7s7``) and carries the data over RoCE with all four HCAs
    (procedure.md §1.5 e). A twin there is doubtful, not wrong: routes to the other neighbour's address over
    another link (which these probes do not read) would make it work."""
    up = [r["netdev"] for r in rows if r["link"] == "Up"]
    ring = ring_ok is not None
    ok = ring_ok if ring else up
    use = ", ".join(ok) or (HOUSE_INTERFACE if ring else "")
    problems, doubts = [], []
    for var in IFNAME_VARS:
        value = env.get(var)
        if value is None:
            if var in REQUIRED_IFNAME_VARS:
                problems.append(f"{var} is not set for the serving processes: on a ring set {var}={ok[0] if ok else HOUSE_INTERFACE} "
                                "on every node (an interface that reaches both peers)" if ring else
                                f"{var} is not set for the serving processes: it then picks an interface itself, "
                                f"often the house network; set {var}={up[0] if up else '<QSFP twin>'} on both nodes")
            continue
        chosen = _selected(var, value, ipv4, rows)
        bad = [c for c in chosen if c not in ok or not (ring or is_qsfp_twin(c))]
        if not chosen:
            problems.append(f"{var}={value} names no interface this node has: use "
                            + (use if ring else f"an Up QSFP twin ({use or 'none Up'})"))
        elif bad and ring:
            doubts.append(f"{var}={value} selects {', '.join(bad)}, whose subnet does not hold both ring neighbours "
                          f"(each ring link is a subnet of its own): unless routes to the other one's address go over "
                          f"another link, Gloo's and Ray's connections to it fail. Use an interface on a subnet every "
                          f"node shares ({', '.join(ok) or HOUSE_INTERFACE + ', the house network'}), as NVIDIA's "
                          "cluster script does for the bootstrap; the data goes over RoCE (NCCL_IB_HCA, all four devices)")
        elif bad:
            problems.append(f"{var}={value} selects {', '.join(bad)}, not an Up QSFP twin: use {use or 'an Up twin'}")
    return problems, doubts


def _usable(r: dict, ports: list[int]) -> bool:
    """Whether mapping row ``r`` is a device NCCL can reach the peer through: on a cabled port
    (``ports``, the QSFP ports with an Up twin), its netdev Up and holding an IPv4 address."""
    return r["qsfp_port"] in ports and r["link"] == "Up" and bool(r["ipv4"])


def _ib_hca_problems(env: dict[str, str], rows: list[dict], ports: list[int]) -> list[str]:
    """What is wrong with NCCL_IB_HCA on one node: [sentence].

    ``env``: the serving processes' variables (:func:`_env`); ``rows``: the node's RoCE mapping
    (:func:`_mapping`: ``rdma_device``, ``netdev``, ``qsfp_port``, ``link``, ``ipv4``); ``ports``: the
    cabled QSFP ports (lesson 1's ``cabled_port``). The value is read with NCCL's syntax
    (:func:`grader.nccl_env.ib_hcas`: prefix match, ``=`` exact, ``^`` excludes, ``:port`` suffixes).

    Two failures, each naming the devices and why: a device the list selects that cannot reach the
    other node (not on a cabled port, or its netdev not Up with an IPv4 address: :func:`_usable`;
    NCCL pairs the listed HCAs across ranks by position, and in the field such a list fails with
    ``ibv_modify_qp ... Network is unreachable``, or a timeout for a live port on another subnet:
    procedure.md §5), and a usable twin the list leaves out (each twin is one PCIe x4 link, so one HCA
    gives about half the cable's bandwidth). So with one cable the list is the cabled port's two twins;
    with two cables, all four addressed, all four. A twin of a cabled port without an address is not
    asked for (L2.roce_active asks for its address first). With no cabled port there is nothing to
    judge here (L2.roce_active fails).
    """
    want = [r["rdma_device"] for r in rows if _usable(r, ports)]
    value = env.get("NCCL_IB_HCA")
    example = ",".join(want) or "rocep1s0f1,roceP2p1s0f1"
    if value is None:
        return ([f"NCCL_IB_HCA is not set for the serving processes: set NCCL_IB_HCA={example} (both twins of the "
                 "cabled port) so NCCL drives both PCIe x4 links"] if want else [])
    if not ports:
        return []
    by_device = {r["rdma_device"]: r for r in rows}
    chosen = nccl_env.ib_hcas(value, list(by_device))
    problems = []
    unusable = [by_device[d] for d in chosen if d not in want]
    if unusable:
        why = [f"{r['rdma_device']} ({r['netdev']}, QSFP port {r['qsfp_port']}) is "
               + (f"{r['link']} with {r['ipv4']}" if r["ipv4"] else f"{r['link']} with no IPv4 address")
               + ("" if r["qsfp_port"] in ports else f", not on the cabled port {' or '.join(map(str, ports))}")
               for r in unusable]
        problems.append(f"NCCL_IB_HCA={value} selects {', '.join(r['rdma_device'] for r in unusable)}, which cannot "
                        f"reach the other node: {'; '.join(why)}. NCCL pairs the listed HCAs across the nodes and "
                        f"fails on such a one (`ibv_modify_qp ... Network is unreachable`): set NCCL_IB_HCA={example}")
    missing = [d for d in want if d not in chosen]
    if missing and len(missing) == len(want):
        if not unusable:  # a sentence above already says what to set
            problems.append(f"NCCL_IB_HCA={value} selects none of {', '.join(want)}: NCCL has no RoCE device that "
                            f"reaches the other node (it falls back to sockets); set NCCL_IB_HCA={example}")
    elif missing:
        problems.append(f"NCCL_IB_HCA={value} leaves out {', '.join(missing)}: each twin is one PCIe x4 link "
                        f"(~100 Gb/s), so one HCA gives about half the cable's bandwidth; set NCCL_IB_HCA={example}")
    return problems


def _gid_problems(env: dict[str, str], rows: list[dict]) -> list[str]:
    """What is wrong with NCCL_IB_GID_INDEX on one node: [sentence] (nothing when it is unset: NCCL picks).

    ``rows``: the node's RoCE mapping (:func:`_mapping`), whose ``roce_v2_gid_index`` is the index of
    the RoCE v2 GID carrying the netdev's IPv4 address in that node's own sysfs GID table. Judged on
    the devices NCCL uses: those NCCL_IB_HCA selects, or every device when it is unset, whose netdev
    is Up with an IPv4 address (any other is L2.ib_hca's and L2.roce_active's). The index is this
    node's alone: another node may need another (3 here, 5 there), and L2.env_same does not compare
    it. One value serves every device of the process, so twins whose GIDs sit at different indices
    cannot share one: then it must be unset.
    """
    value = env.get("NCCL_IB_GID_INDEX")
    if value is None:
        return []
    devices = [r["rdma_device"] for r in rows]
    chosen = nccl_env.ib_hcas(env["NCCL_IB_HCA"], devices) if "NCCL_IB_HCA" in env else devices
    used = [r for r in rows if r["rdma_device"] in chosen and r["link"] == "Up" and r["ipv4"]]
    problems = [f"{r['rdma_device']} has no RoCE v2 GID for {r['netdev']}'s IPv4 address"
                for r in used if r["roce_v2_gid_index"] is None]
    indexed = [r for r in used if r["roce_v2_gid_index"] is not None]
    if len({r["roce_v2_gid_index"] for r in indexed}) > 1:
        where = ", ".join(f"{r['roce_v2_gid_index']} on {r['rdma_device']}" for r in indexed)
        problems.append(f"NCCL_IB_GID_INDEX={value}, but the RoCE v2 GIDs carrying the twins' IPv4 addresses are at "
                        f"different indices ({where}, `show_gids`): one value cannot name both; unset "
                        "NCCL_IB_GID_INDEX and let NCCL choose")
        return problems
    for r in indexed:
        if str(r["roce_v2_gid_index"]) != value.strip():
            problems.append(f"NCCL_IB_GID_INDEX={value}, but the RoCE v2 GID carrying {r['netdev']}'s IPv4 "
                            f"({r['ipv4']}) on {r['rdma_device']} is index {r['roce_v2_gid_index']} (`show_gids`): "
                            f"set NCCL_IB_GID_INDEX={r['roce_v2_gid_index']} on this node, or unset it and let NCCL "
                            "choose")
    return problems


def node_facts(ev: Evidence, node: str, cabled: int | None, ring_peers: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """Lesson-2 facts for one node. See the module docstring. ``ring_peers`` (a ring only: peer -> its
    IPv4 addresses) judges the interface variables by the ring's rule (:func:`_ifname_problems`)."""
    if node in ev.errors and ev.outputs(node, "ip_addr") is None:
        return {"reachable": False, "error": ev.errors[node]}
    ifaces = []
    try:
        ifaces = parse_ip_addr(_text(ev.outputs(node, "ip_addr")) or "")
    except ParseError:
        pass
    by_name = {i.name: i for i in ifaces}
    ts = twin_states(ev, node, by_name, None, cabled)
    rows, simulated, read_problems = _mapping(ev, node, ts["twin_state"])
    ipv4 = {i.name: [a.local for a in i.ipv4] for i in ifaces}
    env, nproc, env_problems = _env(ev, node)
    f: dict[str, Any] = {"reachable": True, "error": ev.errors.get(node), "roce_simulated": simulated or ts["roce_simulated"],
                         "mapping": rows, "cabled_port": ts["cabled_port"], "env": env, "env_processes": nproc,
                         "ipv4": ipv4}
    f["roce_problems"] = read_problems + ts["port_problems"] + _roce_problems(rows, ts["cabled_port"])
    def here(found: list[str]) -> list[str]:
        return [f"{node}: {p}" for p in found]

    # no readable serving process: nothing to judge (not measured); processes that disagree: a problem
    f["env_unmeasured"] = here(env_problems) if not nproc else []
    found = env_problems if nproc else []
    ring_ok = _reaching_all(ifaces, ring_peers) if ring_peers is not None else None
    wrong, doubtful = _ifname_problems(env, rows, ipv4, ring_ok) if nproc else ([], [])
    f["ifname_problems"], f["ifname_doubts"] = here(found + wrong), here(doubtful)
    f["ib_hca_problems"] = here(found[:1] + (_ib_hca_problems(env, rows, ts["cabled_port"]) if nproc else []))
    f["gid_problems"] = here(found[:1] + (_gid_problems(env, rows) if nproc else []))
    return f


def _env_differences(nodes: dict[str, dict]) -> tuple[list[str], list[str]]:
    """(differences, unmeasured): the variables that differ between the nodes with readable serving
    processes (each compared with the first of them, in inventory order), and why the others could not
    be compared (no readable serving process, or not reached).

    ``nodes``: :func:`node_facts` per node (``env``, ``env_processes``), two for a pair or N for a ring
    or switch. Compares :data:`SAME_ON_BOTH` only; :data:`PER_NODE` variables (NCCL_IB_GID_INDEX) may
    differ, each node's value being judged against that node's own GID table by L2.gid_index.
    """
    reached = {n: f for n, f in nodes.items() if f.get("reachable") and f.get("env_processes")}
    missing = [n for n in nodes if n not in reached]
    unmeasured = (["the variables could not be compared: " + ", ".join(
        f"{n} has no readable serving process" for n in missing)] if missing else [])
    if len(reached) < 2:
        return [], unmeasured
    (a, fa), *others = list(reached.items())
    out = []
    for var in SAME_ON_BOTH:
        for b, fb in others:
            va, vb = fa["env"].get(var), fb["env"].get(var)
            if va != vb:
                out.append(f"{var} differs: {a} has {va!r}, {b} has {vb!r}; the ranks of one job must agree")
    return out, unmeasured


def _log(ev: Evidence, probe: str, what: str, key: str) -> tuple[str | None, list[str]]:
    """(the named log's text, or None and why there is nothing to judge: not named, unreadable or empty)."""
    raw = ev.outputs_any(probe)
    if raw is None:
        return None, [f"no {what} was named: add it to the inventory's [logs] table ({key} = \"~/file\")"]
    if raw.exit_status != 0 or not raw.stdout.strip():
        return None, [f"`{raw.command}` read nothing ({(raw.stderr.strip().splitlines() or ['empty file'])[-1]})"]
    return raw.stdout, []


def pair_facts(ev: Evidence, nodes: dict[str, dict]) -> dict[str, Any]:
    """Cross-node facts: variables equal on both nodes, and what the named logs show."""
    differences, env_unmeasured = _env_differences(nodes)
    out: dict[str, Any] = {"env_differences": differences}
    text, out["nccl_transport_unmeasured"] = _log(ev, "log:nccl_debug", "NCCL_DEBUG=INFO log", "nccl_debug")
    problems: list[str] = []
    verdict = None
    if text is not None:
        try:
            log = parse_nccl_log(text)
            verdict = transport_verdict(log)
            if "NET/Socket" in verdict or log.network == "Socket":
                problems.append(f"NCCL used {verdict}: it fell back to TCP sockets. Set NCCL_IB_HCA to the Up twins' "
                                "RoCE devices and, in a container, pass /dev/infiniband with IPC_LOCK (or --privileged)")
            elif "NET/IB" not in verdict:
                problems.append(f"the log shows {verdict}, not NET/IB between the nodes: was it a two-node run?")
        except ParseError as e:
            problems.append(str(e))
    out["nccl_transport"], out["nccl_transport_problems"] = verdict, problems

    text, out["busbw_unmeasured"] = _log(ev, "log:nccl_tests", "nccl-tests all_gather_perf output", "nccl_tests")
    problems = []
    busbw = None
    if text is not None:
        try:
            res = parse_nccl_tests(text)
            busbw = res.avg_busbw_recomputed
            if busbw is None:
                problems.append("the nccl-tests output has no data rows")
        except ParseError as e:
            problems.append(str(e))
    out["allgather_busbw_gbs"], out["busbw_problems"] = busbw, problems

    bws, problems = [], []
    logs = [r for r in ev.raw if r.probe.startswith("log:ib_write_bw:")]
    out["ib_write_bw_unmeasured"] = [] if logs else [
        "no ib_write_bw output was named: add one client output per twin to [logs] ib_write_bw"]
    for r in logs:
        try:
            runs = [run.bw_avg_gbps for run in parse_perftest(r.stdout) if run.bw_avg_gbps is not None]
            if not runs:
                problems.append(f"`{r.command}`: no bandwidth row")
            bws += [round(x, 2) for x in runs]  # one file may hold both twins' client runs
        except ParseError as e:
            problems.append(str(e))
    out["ib_write_bw_gbps"], out["ib_write_bw_problems"] = bws, problems
    out.update(serve_facts(ev, nodes))
    out.update(version_facts(ev, nodes))
    out["env_unmeasured"] = env_unmeasured + [u for u in out.get("env_unmeasured", []) if u not in env_unmeasured]
    return out


def _addresses(ev: Evidence, names: list[str]) -> dict[str, list[str]]:
    """node -> every IPv4 address its ``ip -j addr`` shows (none for a node not read)."""
    out: dict[str, list[str]] = {}
    for n in names:
        try:
            out[n] = [a.local for i in parse_ip_addr(_text(ev.outputs(n, "ip_addr")) or "") for a in i.ipv4]
        except ParseError:
            out[n] = []
    return out


def derive(ev: Evidence) -> dict[str, Any]:
    """All lesson-2 facts from ``ev``'s raw outputs. Pure.

    A pair's cross-node facts, and a ring's or switch's of N nodes, are under ``pair`` (every node
    compared, Ray's counts scaled to N); a ring or switch also records ``topology``, which picks its
    own ranges in grading (the ring's all_gather bar, checks/ranges.toml)."""
    names = [n["name"] for n in ev.inventory["nodes"]]
    topology = ev.inventory.get("topology", "pair")
    addrs = _addresses(ev, names) if topology == "ring" else {}
    nodes = {n: node_facts(ev, n, ev.inventory.get("qsfp_port"),
                           {p: a for p, a in addrs.items() if p != n} if topology == "ring" else None) for n in names}
    return {"nodes": nodes, "pair": pair_facts(ev, nodes) if len(names) >= 2 else {},
            **({"topology": topology} if topology != "pair" else {})}
