"""The helpers every judge shares, written once: the four levels (``ok`` ... ``info``), matchers for a command line
(``argv_is``, ``runs_program``; ``option_value`` is grader.parsers.common's), the names of the sources quoted in messages, the catalogue's
figures (``spark_figure``: read from ``checks/ranges.toml``, never written here), what is known of the host
(``on_spark``, ``machines_spanned``: ``explain --host/--nodes`` first, then the output's own signs), the RDMA
device and QSFP port words lesson 2a's judges share, and a parser's dataclass as facts (``fields_of``).
"""

from __future__ import annotations

import dataclasses
import functools
import ipaddress
import re
from typing import Any, Callable

from ..parsers.common.commands import filters_output, ssh_host
from ..ranges import expected_range
from ..spark_names import HOUSE_INTERFACE, QSFP_TWINS, is_qsfp_twin, qsfp_port, rdma_device_for, twin_domain
from .context import context, spark_shown
from .model import Finding


C2S = "NVIDIA connect-two-sparks playbook"
SWITCH = "NVIDIA multi-sparks-through-switch playbook"

#: RoCE device of each Spark twin, and back (rocep1s0f1 <-> enp1s0f1np1): procedure.md §2.1
SPARK_RDMA: dict[str, str] = {rdma_device_for(t): t for twins in QSFP_TWINS.values() for t in twins}


def ok(msg: str) -> Finding:
    """A Finding of level ``ok``."""
    return Finding("ok", msg)


def warn(msg: str) -> Finding:
    """A Finding of level ``warn``."""
    return Finding("warn", msg)


def fail(msg: str) -> Finding:
    """A Finding of level ``fail``."""
    return Finding("fail", msg)


def info(msg: str) -> Finding:
    """A Finding of level ``info``."""
    return Finding("info", msg)


def spark_figure(name: str, key: str = "min", profile: str = "spark-pair") -> float:
    """The figure ``key`` (``min``, ``max`` or another figure of that range) of the range ``name`` in
    checks/ranges.toml for ``profile`` (a DGX Spark pair unless told): the one place the catalogue's figures are
    written. Raises LookupError when the catalogue lacks it (a catalogue without it is broken, not a reason to guess)."""
    value = (expected_range(profile, name) or {}).get(key)
    if not isinstance(value, (int, float)):
        raise LookupError(f"checks/ranges.toml has no [{profile}.{name}] {key}")
    return value


def fmt_count(x: float | None) -> str:
    """1.0 -> "1", 2.5 -> "2.5", None -> "?" (Ray prints resource counts as floats)."""
    return "?" if x is None else f"{x:g}"


def listed(names: list[str] | tuple[str, ...], most: int = 8) -> str:
    """``names`` joined with commas, the first ``most`` of them and how many more: ``a, b and 3 more``."""
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")


def whole(x: float) -> int | float:
    """``9000.0`` -> ``9000`` (for messages and equality with integer readings); other values as they are."""
    return int(x) if float(x).is_integer() else x


def in_spark_range(name: str, value: float | None, profile: str = "spark-pair") -> bool:
    """Whether ``value`` lies within the range ``name`` of checks/ranges.toml (both ends included), as the
    check reading that range judges it."""
    r = expected_range(profile, name) or {}
    if value is None or not r:
        return False
    return ("min" not in r or value >= r["min"]) and ("max" not in r or value <= r["max"])


JUMBO_MTU = whole(spark_figure("mtu"))
"""[spark-pair.mtu]: the MTU of every twin with jumbo frames (what L1.mtu wants)."""
JUMBO_PAYLOAD = JUMBO_MTU - 28
"""The ``ping -s`` payload that fills one jumbo frame: the MTU less 20 bytes of IPv4 and 8 of ICMP header."""
LINK_MBPS = whole(spark_figure("link_speed_mbps"))
"""[spark-pair.link_speed_mbps]: what ``ethtool`` shows for a Spark QSFP twin (what L1.link_speed wants)."""
LINE_GBPS = whole(LINK_MBPS / 1000)
"""The QSFP port's line rate in Gb/s, from the same range."""


def port_words(port: int) -> str:
    """Where a Spark's QSFP port sits on the back panel."""
    return "next to the RJ45" if port == 0 else "further from the RJ45"


def hca_advice(devices: list[str]) -> str:
    """``NCCL_IB_HCA=...`` naming ``devices`` (both twins of port 1 when none are given)."""
    return f"NCCL_IB_HCA={','.join(devices)}" if devices else "NCCL_IB_HCA=rocep1s0f1,roceP2p1s0f1"


MAX_COMPARED_ADDRESSES = 128
"""At most this many distinct (interface, address) pairs are compared for overlapping subnets (a machine
has a handful; a paste of thousands is not a machine's output, and comparing is quadratic)."""
MAX_OVERLAP_FINDINGS = 16
"""At most this many overlapping pairs are named, one finding each; one more finding counts the rest."""


def overlap_pairs(named: list[tuple[str, str]]) -> list[tuple[str, str, str, str]]:
    """Pairs (a, cidr_a, b, cidr_b) of different interfaces whose IPv4 subnets overlap, in the order of
    ``named``; repeated (interface, address) entries count once, and only the first
    ``MAX_COMPARED_ADDRESSES`` distinct ones are compared."""
    nets = []
    for name, cidr in dict.fromkeys(named):
        net = _ipv4_network(cidr)
        if net is not None:
            nets.append((name, cidr, net))
            if len(nets) == MAX_COMPARED_ADDRESSES:
                break
    return [(a, ca, b, cb) for i, (a, ca, na) in enumerate(nets) for b, cb, nb in nets[i + 1:]
            if a != b and na.overlaps(nb)]


@functools.lru_cache(maxsize=1024)  # the same addresses come back in each section and comparison of a paste
def _ipv4_network(cidr: str) -> ipaddress.IPv4Network | None:
    """The IPv4 subnet of ``10.0.0.2/24`` (``10.0.0.0/24``); None for IPv6 or what is no address."""
    try:
        net = ipaddress.ip_interface(cidr).network
    except ValueError:
        return None
    return net if isinstance(net, ipaddress.IPv4Network) else None


def fields_of(value: Any) -> dict[str, Any]:
    """A dataclass's fields by name, their values as they are: the core makes facts plain JSON values as
    ``dataclasses.asdict`` would (explain.output._plain), without copying a field that is dropped after."""
    return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}


_HOUSE_RE = re.compile(rf"^(?:wl|{HOUSE_INTERFACE}$)")
"""Interfaces of a house network, not of a cluster's link: Wi-Fi, and a Spark's 10 GbE RJ45 port
(spark_names.HOUSE_INTERFACE). A container bridge (docker0) in a LAN's subnet is no such pair: it shadows the LAN."""


_RDMA_PORT_RE = re.compile(r"np\d{1,2}$")
"""A NIC port named with its physical port (mlx5's and ice's ``enp72s0f0np0``): the ports of an RDMA-capable NIC."""


def overlap_finding(a: str, ca: str, b: str, cb: str) -> Finding:
    """Two interfaces in one subnet. A QSFP twin among them: a fault (fail), the one the playbook warns of. Two
    interfaces of a house network (a Spark's RJ45 port and Wi-Fi to one router): the kernel sends by route metric,
    harmless for the house network (info). Two others (a container bridge over a LAN's subnet among them): a warning,
    since traffic for one goes to the other and NCCL or Gloo may pick either."""
    said = f"{a} ({ca}) and {b} ({cb}) are in the same subnet"
    if _HOUSE_RE.match(a) and _HOUSE_RE.match(b):
        return info(f"{said}: both on one house network (wired and Wi-Fi to one router, say), so the kernel sends by "
                    "route metric. Harmless for that network; keep NCCL and Gloo off it (NCCL_SOCKET_IFNAME on the "
                    "cluster's link).")
    if not (is_qsfp_twin(a) or is_qsfp_twin(b)):
        return warn(f"{said}: the kernel cannot tell which interface to use, and NCCL or Gloo may pick either. Give "
                    "each interface that carries the cluster's traffic its own subnet.")
    return fail(f"{said}: the kernel cannot tell which "
                "interface to use (routing ambiguity; the " + SWITCH + " warns it causes NCCL "
                "communication failures). Give each twin its own subnet, e.g. 192.168.100.0/24 and "
                "192.168.101.0/24.")


def overlaps(named: list[tuple[str, str]], fabric: Any = ()) -> list[Finding]:
    """Findings (:func:`overlap_finding`) for different interfaces whose IPv4 subnets overlap (at most
    ``MAX_OVERLAP_FINDINGS`` pairs named, then one finding counting the others). Three or more in one subnet are a
    note, not a warning, only where all are RDMA NIC ports by name (``np0``: mlx5's, but ice's and bnxt's too) and
    ``fabric`` holds them all: interfaces shown as a fabric's (MTU above 1500, no DHCP lease), as cloud multi-rail
    images lay them out; ports at MTU 1500 with DHCP leases in one LAN are the ordinary routing ambiguity."""
    pairs = overlap_pairs(named)
    shared: dict[Any, dict[str, str]] = {}  # a subnet three or more interfaces (no twin) have: said once
    for a, ca, b, cb in pairs:
        if _ipv4_network(ca) == _ipv4_network(cb):
            shared.setdefault(_ipv4_network(ca), {}).update({a: ca, b: cb})
    shared = {n: m for n, m in shared.items()
              if len(m) > 2 and not any(map(is_qsfp_twin, m)) and not all(map(_HOUSE_RE.match, m))}
    rails = {n: all(map(_RDMA_PORT_RE.search, m)) and all(x in fabric for x in m) for n, m in shared.items()}
    out = [(info if rails[n] else warn)(
        f"{len(m)} interfaces share the subnet {n} (" + ", ".join(f"{x} {c}" for x, c in m.items())
        + "): the kernel may answer for any of their addresses on any of them, and NCCL or Gloo may pick any. "
        "That works only with per-interface routing (arp_ignore=1 and arp_announce=2, rp_filter loose, a "
        "routing table per interface), as cloud RDMA images set it up; otherwise give each its own subnet."
        + (" These are all RDMA NIC ports (`...np0`/`np1`): a multi-rail fabric in one flat subnet is how such "
           "images lay it out, so it is a design to check (`sysctl net.ipv4.conf.all.arp_ignore`), not a fault "
           "shown." if rails[n] else ""))
           for n, m in shared.items()]
    pairs = [p for p in pairs if _ipv4_network(p[1]) not in shared or _ipv4_network(p[1]) != _ipv4_network(p[3])]
    out += [overlap_finding(*pair) for pair in pairs[:MAX_OVERLAP_FINDINGS]]
    if len(pairs) > MAX_OVERLAP_FINDINGS:
        out.append(fail(f"... and {len(pairs) - MAX_OVERLAP_FINDINGS} more pairs of interfaces share a subnet: "
                        "give each interface its own subnet"))
    return out


# iproute2 options that take a value (ip -n NS addr, ip -f inet addr)
_OPTS_WITH_VALUE = {"-n", "-netns", "-f", "-family", "-b", "-batch", "-rc", "-rcvbuf", "-l", "-loops"}


def argv_words(argv: list[str]) -> list[str]:
    """The non-option arguments of argv (options that take a value skip it too)."""
    words, skip = [], False
    for arg in argv[1:]:
        if skip:
            skip = False
        elif arg.startswith("-"):
            skip = arg in _OPTS_WITH_VALUE
        else:
            words.append(arg)
    return words


def is_module_info(argv: list[str]) -> bool:
    """``ethtool -m IF`` (``--module-info``, ``--dump-module-eeprom``): a pluggable module's EEPROM, not the link."""
    return bool(argv) and argv[0] == "ethtool" and any(a in ("-m", "--module-info", "--dump-module-eeprom")
                                                       for a in argv[1:])


def argv_is(program: str, *objects: str) -> Callable[[list[str]], bool]:
    """A matcher for ``program [options] OBJECT ...`` where OBJECT abbreviates one of objects."""
    def match(argv: list[str]) -> bool:
        if not argv or argv[0] != program:
            return False
        words = argv_words(argv)
        return not objects or (bool(words) and any(o.startswith(words[0]) for o in objects))
    return match


def nvidia_smi_with(want: Callable[[list[str]], bool]) -> Callable[[list[str]], bool]:
    """A matcher for ``nvidia-smi`` run with the arguments ``want`` asks for (the nvidia-smi kinds')."""
    return lambda argv: bool(argv) and argv[0] == "nvidia-smi" and want(argv)


def is_loopback(host: str | None) -> bool:
    """Whether a host (an address or a name, without its port) is this machine's own: 127.x, ::1 or localhost."""
    return bool(host) and (host.startswith("127.") or host in ("::1", "localhost"))


def runs_program(argv: list[str], program: str, sub: str | None = None) -> bool:
    """Whether ``program [sub]`` is run anywhere in argv (also behind ``docker exec C``)."""
    for i, arg in enumerate(argv):
        if arg.rsplit("/", 1)[-1] == program and (sub is None or argv[i + 1:i + 2] == [sub]):
            return True
    return False


def machines_spanned(from_paste: int | None, hosts_seen: int = 0) -> int | None:
    """How many machines the run spanned: ``explain --nodes`` when given, else what the paste shows (a count it
    states, such as NCCL's ``nNodes``, then more than one host in its lines), else None (the paste cannot say)."""
    given = context().nodes
    if given is not None:
        return given
    if from_paste is not None:
        return from_paste
    return hosts_seen if hosts_seen > 1 else None


def on_spark(from_paste: bool | None) -> bool | None:
    """Whether the paste came from a DGX Spark: ``explain --host`` when given; else False where the whole paste shows
    another machine and none of a Spark's own signs (:attr:`grader.judges.context.Context.other_machine_shown`: a
    data-center, GeForce or AMD GPU, an x86 server CPU, a second GPU on one host), which outranks the names any
    ConnectX at PCI 0000:01 gets; else the caller's sign from the paste (``from_paste``: True, False, or None when it
    cannot tell)."""
    c = context()
    if c.host is not None:
        return c.host == "spark"
    return False if c.other_machine_shown else from_paste  # (another machine's CPU or GPU outranks ConnectX names)


# --------------------------------------------------------------------------- RDMA devices (lesson 2a's readers share these)

def twin_words(device: str) -> str:
    """``rocep1s0f1`` -> ``rocep1s0f1 (enp1s0f1np1, QSFP port 1, PCI domain 0000)``; unknown names as they are."""
    netdev = SPARK_RDMA.get(device)
    if netdev is None:
        return device
    return f"{device} ({netdev}, QSFP port {qsfp_port(netdev)}, PCI domain {twin_domain(netdev)})"


#: RDMA device name prefixes of software RDMA (no RDMA NIC): the kernel's rdma_rxe (Soft-RoCE) and siw (soft-iWARP)
SOFT_RDMA = {"rxe": "Soft-RoCE (the rdma_rxe kernel driver)", "siw": "soft-iWARP (the siw kernel driver)"}


def soft_rdma_kind(device: str) -> str | None:
    """What a software RDMA device is (``rxe_0`` -> Soft-RoCE), or None for a hardware one."""
    m = re.match(r"^([a-z]+)", device)
    return SOFT_RDMA.get(m.group(1)) if m else None


def host_findings(devices: list[str], source: str, netdevs: dict[str, str | None] | None = None) -> list[Finding]:
    """Judge the host as what its RDMA device names say: software RDMA (rxe, siw: no RDMA NIC), a DGX Spark's
    ConnectX-7 (rocep1s0f*/roceP2p1s0f*), or another RDMA NIC (mlx5_0, irdma0, bnxt_re0 ...): then no Spark
    figure applies."""
    out: list[Finding] = []
    netdevs = netdevs or {}
    soft = [d for d in devices if soft_rdma_kind(d)]
    spark = on_spark(None)
    for d in soft:
        on = f" on {netdevs[d]}" if netdevs.get(d) else ""
        # a fact of a host not said or known to be a Spark (`explain --host other`); a warning on a Spark (said or shown)
        out.append((info if not (spark or spark is None and spark_shown()) else warn)(
            f"{d}{on} is {soft_rdma_kind(d)}: RDMA emulated in software over an ordinary Ethernet interface, not an "
            "RDMA NIC. This host has no hardware RDMA in this output, so RDMA figures measured over it (ib_write_bw, "
            "NCCL's NET/IB) say nothing about an RDMA NIC." + ("" if spark is False else " A DGX Spark's "
                                                              "ConnectX-7 shows rocep1s0f0/rocep1s0f1/roceP2p1s0f0/roceP2p1s0f1.")))
    other = [d for d in devices if d not in SPARK_RDMA and not soft_rdma_kind(d)]
    if other and not any(d in SPARK_RDMA for d in devices) and spark and all(d.startswith("mlx5")
                                                                                       for d in other):
        out.append(info(f"{', '.join(other[:8])}: the DGX Spark's ConnectX-7 RDMA device(s) under the kernel's "
                        "classic names (in a container, or without DGX OS's udev names); `ibdev2netdev` maps each to "
                        "its twin."))
    elif other and not any(d in SPARK_RDMA for d in devices):
        kind = ("ConnectX (mlx5 driver) devices under their classic names" if all(d.startswith("mlx5") for d in other)
                else "RDMA devices")
        out.append(info(f"{', '.join(other[:8])}: {kind}, not a DGX Spark's (rocep1s0f*/roceP2p1s0f*): read as this "
                        f"host's own devices ({source}); no Spark figure applies."))
    lag = [d for d in devices if re.match(r"mlx5_bond_\d{1,3}$", d)]
    if lag:  # NVIDIA's RoCE LAG: the card's ports bonded in its firmware under one RDMA device
        out.append(info(f"{', '.join(lag[:4])}: RoCE LAG, the two ports of one ConnectX bonded (the kernel's bond"
                        f"{' ' + netdevs[lag[0]] if netdevs.get(lag[0]) else ''} over them) under one RDMA device. "
                        "A queue pair sends over one port at a time, so one flow (a single-QP `ib_write_bw`) reaches "
                        "one port's rate; several QPs (perftest `-q`, NCCL_IB_QPS_PER_CONNECTION) spread over both."))
    return out


def output_machine(section: Any) -> str | None:
    """The machine a section's output came from: the host of ``ssh HOST command``, else its prompt's host (None: not
    told). (`user@spark1:~$ ssh spark2 free -g` is spark2's output.)"""
    return ssh_host(section.command) or section.host


def port_findings(active: dict[str, bool], source: str, command: str | None = None) -> list[Finding]:
    """Per QSFP port: both twins active (ok), one (warn); none at all (fail). ``active`` maps Spark
    RDMA devices seen to whether they are ACTIVE. A twin not listed by a ``command`` that names a device
    (``ibstatus rocep1s0f0``, ``ibv_devinfo -d``, a sysfs path) or filters its output (``| grep``) is only not shown
    (break-it 23 p23): a note, not a fault."""
    named = bool(command) and (any(d in command for d in SPARK_RDMA) or filters_output(command))
    out: list[Finding] = []
    up_ports = []
    for port, (a, b) in QSFP_TWINS.items():
        da, db = rdma_device_for(a), rdma_device_for(b)
        ups = [d for d in (da, db) if active.get(d)]
        if len(ups) == 2:
            up_ports.append(port)
            out.append(ok(f"QSFP port {port} ({port_words(port)}) is in use: both twins' RoCE devices {da} and {db} "
                          f"are ACTIVE ({source})."))
        elif len(ups) == 1:
            up_ports.append(port)
            other = db if ups[0] == da else da
            state = "not listed" if other not in active else "not ACTIVE"
            if named and other not in active:
                out.append(info(f"{ups[0]} of QSFP port {port} is ACTIVE; its twin {other} is not shown: the command "
                                f"(`{command}`) asked for some devices only, so its state is not in this output. "
                                "`rdma link` lists every twin (with a cable in, both come up)."))
                continue
            out.append(warn(f"Only {ups[0]} of QSFP port {port} is ACTIVE; its twin {other} is {state}. With a cable "
                            "in, both twins come up: reseat the cable, check `ip link` shows both netdevs UP, reboot "
                            f"if it stays. One twin carries about half of the port's {LINE_GBPS} Gb/s."))
    seen = [d for d in active if d in SPARK_RDMA]
    if seen and not up_ports:
        out.append(fail("No ConnectX-7 RoCE device is ACTIVE: no QSFP link. Check the cable at both ends and that the "
                        f"twins are UP (`ip link`); the {C2S} says: if none shows Up, check the cable, reboot both "
                        "Sparks and try again."))
    elif len(up_ports) == 1:
        devs = [rdma_device_for(t) for t in QSFP_TWINS[up_ports[0]]]
        idle = [(p, [rdma_device_for(t) for t in ts]) for p, ts in QSFP_TWINS.items() if p != up_ports[0]]
        idle = [(p, ds) for p, ds in idle if all(d in active and not active[d] for d in ds)]  # (wi013: both listed)
        out.append(info(f"For NCCL list both ACTIVE devices of port {up_ports[0]}: {hca_advice(devs)} (one device "
                        "alone drives one PCIe x4 link: about half the cable's bandwidth). Cable the same port on the "
                        "other Spark." + "".join(f" Port {p}'s twins ({' and '.join(ds)}) are down (not ACTIVE): no "
                                                 "cable in that port, the usual one-cable layout, not a fault."
                                                 for p, ds in idle)))
    elif len(up_ports) == 2:
        devs = [rdma_device_for(t) for p in up_ports for t in QSFP_TWINS[p]]
        out.append(info(f"Both QSFP ports are in use: all four twins need an IPv4 address (NVIDIA), and NCCL can use "
                        f"all four: {hca_advice(devs)}."))
    return out


# --------------------------------------------------------------------------- NCCL busbw between two Sparks (lesson 2a)

CLUSTER_SETUP = "NVIDIA spark_cluster_setup.py"

BUSBW_WARN_GBS = spark_figure("allgather_busbw_gbs")
"""checks/ranges.toml [spark-pair.allgather_busbw_gbs] min: NVIDIA spark_cluster_setup.py MIN_NCCL_TEST_BW (GB/s)."""
BUSBW_LINE_GBS = spark_figure("allgather_busbw_gbs", "max")
"""The same range's max: the cable's line rate in GB/s."""
BUSBW_BROKEN_GBS = spark_figure("allgather_busbw_gbs", "broken_max")
"""At or below this a Spark pair's NCCL is broken (~3 GB/s: sockets, stale NIC state, a bad NCCL build)."""
BUSBW_ONE_TWIN_GBS = spark_figure("allgather_busbw_gbs", "one_twin_max")
"""Around 12 GB/s: NCCL drives one twin only (oshlabs dgx-spark-cluster VLLM.md)."""
STALE_CX7 = ("a stale ConnectX-7 state after re-cabling: moving the QSFP cable without a reboot left busbw at ~2.8 GB/s "
             "(21.4 GB/s after rebooting both Sparks; procedure.md section 5): reboot both Sparks with the cable in")


def head_lines(text: str, n: int) -> list[str]:
    """``text.splitlines()[:n]`` without splitting the rest of a long paste (a 5 MB log: only its first n lines are
    cut apart). Each of the first n newline-ended pieces holds at least one of splitlines' lines, so the answer is the
    same."""
    at = 0
    for _ in range(n):
        at = text.find("\n", at) + 1
        if not at:
            return text.splitlines()[:n]
    return text[:at].splitlines()[:n]
