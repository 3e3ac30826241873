"""Notes of the ``roce`` judge that compare the devices of one output (grader.judges.roce calls them).

GID tables laid out differently: the index of a port's IPv4-mapped (RoCE v2) GID depends on its addresses and on the
RoCE versions its driver offers (a v1/v2 pair per address, or v2 alone), so one fixed index (NCCL_IB_GID_INDEX,
perftest's ``-x``, UCX_IB_GID_INDEX) can be right on one host and point at a link-local or missing entry on the other
(NCCL's environment variables: https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-gid-index).
"""

from __future__ import annotations

import re
from typing import Any

from ..parsers.ib_sysfs import ipv4_of_gid
from .common import SPARK_RDMA, info, ok, output_machine, warn
from .context import context
from .model import Finding


def gid_layouts(cas: Any) -> list[Finding]:
    """Two or more GID tables (``ibv_devinfo -v``) whose IPv4-mapped entries sit at different indices: a warning that a
    fixed GID index cannot fit them all, naming where each holds its IPv4 address."""
    tables = [(f"{c.ca or f'table {n}'} port {p.port}", [i for i, g, _ in p.gids if ipv4_of_gid(g)], len(p.gids))
              for n, c in enumerate(cas, start=1) for p in c.ports if p.gids]
    if len(tables) < 2 or any(not v4 for _, v4, _ in tables) or len({tuple(v4) for _, v4, _ in tables}) < 2:
        return []
    where = "; ".join(f"{name}: {n} entries, IPv4 at index {', '.join(map(str, v4))}" for name, v4, n in tables[:6])
    return [warn(f"The GID tables differ ({where}): the IPv4 (RoCE v2) entry is at a different index on each, so one "
                 "fixed GID index (NCCL_IB_GID_INDEX, perftest -x, UCX_IB_GID_INDEX) cannot be right on all of them; "
                 "a table with fewer entries offers fewer RoCE versions (another driver, kernel or RoCE mode). Set "
                 "the index per host, or make the RoCE mode the same; `show_gids` shows each entry's type.")]


_GID_INDEX_SET_RE = re.compile(r"\bNCCL_IB_GID_INDEX\s{0,3}=\s{0,3}[\"']?(?P<n>\d{1,3})\b")


def pinned_gid_index(table: Any) -> list[Finding]:
    """A ``show_gids`` table beside the NCCL_IB_GID_INDEX the same paste sets (one value): where that index is a RoCE
    v1 GID of an address whose RoCE v2 GID sits at another index, or a link-local one, a warning naming the v2 index.
    NVIDIA/nccl#1510 (two H100 nodes exporting index 4 as NCCL_IB_GID_INDEX; show_gids: index 4 is 10.12.0.21's v1 GID, 5 its
    v2); RoCE v1 is an Ethernet-layer protocol that no router forwards, v2 runs over UDP/IP (NCCL's environment
    variables: https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-gid-index)."""
    values = {m.group("n") for m in _GID_INDEX_SET_RE.finditer(context().paste)}
    if len(values) != 1:
        return []
    n = int(values.pop())
    for row in (r for r in table if r.index == n):
        v2 = next((r for r in table if r.device == row.device and r.port == row.port and r.is_roce_v2 and r.ipv4
                   and (r.ipv4 == row.ipv4 or row.gid.lower().startswith("fe80"))), None)
        if v2 is None or row.is_roce_v2 and not row.gid.lower().startswith("fe80"):
            continue
        what = "a link-local (fe80) GID, which reaches only its own segment" if row.gid.lower().startswith("fe80") \
            else f"{row.ipv4}'s RoCE v1 GID: v1 is an Ethernet-layer protocol that no router forwards, with none of v2's " \
                 "IP-based congestion control (ECN/DSCP)"
        return [warn(f"This paste sets NCCL_IB_GID_INDEX={n}, and on {row.device} port {row.port} index {n} is {what}. "
                     f"The RoCE v2 GID of {v2.ipv4} is index {v2.index}: set NCCL_IB_GID_INDEX={v2.index} on this host "
                     "(each node's own index, from its show_gids), or leave it unset (NCCL 2.21 and later pick the "
                     "RoCE v2 IPv4 GID).")]
    return []


def cut_gids(label: str, port: Any, v2_index: int | None) -> list[Finding]:
    """``ibv_devinfo -v``'s GID table cut inside its last line (``GID[  1]: ::ffff``, no type after it, where the
    lines above print theirs): the entry that would carry the IPv4 address is not shown, so no verdict on it."""
    if v2_index is not None or len(port.gids) < 2:
        return []
    index, gid, kind = port.gids[-1]
    if kind is not None or not any(k for _, _, k in port.gids[:-1]) or gid.count(":") >= 7 or "." in gid:
        return []
    return [info(f"{label}: the GID table is cut off at GID[{index}] (`{gid}`, the start of an IPv4-mapped address "
                 "where it ends in ffff): which RoCE v2 entry carries the netdev's IPv4 address is not shown. "
                 "`show_gids` (or the whole `ibv_devinfo -v`) shows the table.")]


def fabric_notes(cas: Any) -> list[Finding]:
    """What ``ibv_devinfo`` says of the fabric beyond a port's state: an InfiniBand port given its LID by a subnet
    manager (the fabric is up and managed); an AWS Elastic Fabric Adapter (vendor 0x1d0f), which is neither InfiniBand
    nor RoCE whatever older rdma-core prints as its link layer (linux-rdma/rdma-core#884)."""
    out: list[Finding] = []
    efa = [c for c in cas if (c.ca or "").startswith("efa") or "0x1d0f" in (c.ca_type or "")]
    for c in efa[:2]:
        quirk = any((p.link_layer or "").lower() == "infiniband" for p in c.ports)
        out.append(info(f"{c.ca or 'this device'} is an AWS Elastic Fabric Adapter (EFA): neither InfiniBand nor RoCE"
                        + (". Its `link_layer: InfiniBand` is how older rdma-core prints a link layer the kernel "
                           "leaves unspecified (later ones print Unspecified), not a sign of InfiniBand" if quirk else "")
                        + "; LID 0, zero GUIDs and firmware 0.0.0.0 are normal for it (no subnet manager). NCCL reaches "
                          "it through the aws-ofi-nccl plugin (libfabric), not its own NET/IB transport."))
    managed = [(c.ca or "this device", p) for c in cas if c not in efa for p in c.ports
               if (p.link_layer or "").lower() == "infiniband" and p.is_active and p.base_lid and p.sm_lid
               and p.base_lid not in (0, 65535)]
    if managed:
        lids = ", ".join(f"{n} port {p.port} LID {p.base_lid}" for n, p in managed[:4])
        sms = sorted({p.sm_lid for _, p in managed})
        out.append(ok(f"InfiniBand, each port with its own LID from a subnet manager ({lids}; subnet manager at LID "
                      f"{', '.join(map(str, sms))}): the fabric is up and managed."))
    return out


_ROCE_MODE_RE = re.compile(r"^(?:IB/)?RoCE v(?P<v>[12])(?:\.0)?$", re.I)
_MODE_AT_RE = re.compile(r"rdma_cm/(?P<dev>[^/\s]{1,64})/ports/(?P<port>\d{1,3})/default_roce_mode|-d\s{1,4}(?P<d>\S{1,64})")


def read_roce_mode(text: str) -> str:
    """The RoCE version RDMA CM uses by default (``cat /sys/kernel/config/rdma_cm/<dev>/ports/<n>/default_roce_mode``,
    or rdma-core's ``cma_roce_mode -d <dev> -p <n>``: ``RoCE v2``, ``IB/RoCE v1``): ``"1"`` or ``"2"``, the last said."""
    from ..parsers.common import ParseError
    modes = [m["v"] for x in text.splitlines()[:50] if (m := _ROCE_MODE_RE.match(x.strip()))]
    if not modes:
        raise ParseError("default_roce_mode", "no `RoCE v1` or `RoCE v2` line: paste what the command printed")
    return modes[-1]


def summarise_roce_mode(mode: str, command: str | None) -> tuple[dict[str, Any], list[Finding]]:
    """RoCE v2, the kernel's default, routes over IP; RoCE v1 is raw Ethernet, one L2 segment, and cannot reach a
    v2-only peer. Only connections set up through RDMA CM follow it (perftest's -R, rping, other rdma_cm users); NCCL's own IB
    transport picks a GID index instead (linux-rdma/rdma-core's cma_roce_mode(1), the kernel's configfs-rdma_cm)."""
    at = _MODE_AT_RE.search(command or "")
    where = (f"{at['dev']} port {at['port']}" if at and at["dev"] else at["d"] if at else "this device")
    if mode == "2":
        return {"roce_mode": 2}, [info(f"RDMA CM's default on {where} is RoCE v2 (UDP over IP, routable between "
                                       "subnets): the kernel's default, what a RoCE v2 fabric wants.")]
    dev = (at["dev"] or at["d"]) if at else None
    if dev and _infiniband_port(dev):
        return {"roce_mode": 1}, [info(
            f"RDMA CM's default on {where} reads `IB/RoCE v1`, and the paste shows {dev}'s link layer is InfiniBand: "
            "on an InfiniBand port that is the IB GID type (the kernel prints the two under one name), RoCE versions "
            "do not apply, nothing to mend.")]
    if dev and dev.startswith("mlx4"):
        return {"roce_mode": 1}, [info(
            f"RDMA CM's default on {where} is RoCE v1 (or, on an InfiniBand port, the IB GID type, printed under the "
            "same name). The kernel makes RoCE v2 the default wherever the device offers it, and mlx4 is the "
            "ConnectX-3 (and older) driver, most of which speak RoCE v1 only: the device's own default, not a "
            "setting to mend; it does mean RDMA CM connections stay on one layer-2 segment and cannot reach a peer "
            "that speaks RoCE v2 only.")]
    return {"roce_mode": 1}, [warn(
        f"RDMA CM's default on {where} is RoCE v1: connections set up through RDMA CM (perftest's -R, rping, other rdma_cm users) go as "
        "raw Ethernet frames, not routable between subnets (one layer-2 segment only), and cannot reach a peer that "
        "speaks RoCE v2 only. Right only for a v1-only peer (a ConnectX-3) on the same segment; otherwise set it back "
        "(`echo \"RoCE v2\" > .../default_roce_mode`, or `cma_roce_mode -d <dev> -p <port> -m 2`). NCCL's own IB "
        "transport picks a GID index instead and does not follow it.")]


def disabled_beside_cut(cas: Any, p: Any, said: str) -> Finding | None:
    """A port Disabled (turned off) where no port shown is Active but the output is cut before some port's state
    (sglang#6823's ibstat, wi011: a ConnectX-6 Dx's two ports Down/Disabled, then a ConnectX-7 cut at its `Port 1:`): a
    note, since the ports that matter may be the unseen ones; None otherwise."""
    unseen = [c.ca or "?" for c in cas if not c.ports or any(q.state is None for q in c.ports)]
    if not unseen or (p.physical_state or "").lower() != "disabled":
        return None
    return info(f"{said}: turned off, no link, so not in use; whether another port is Active is not shown "
                f"({', '.join(unseen[:4])}: its state is cut off). The Rate of a port that is down means nothing.")


def _infiniband_port(dev: str) -> bool:
    """The paste's ibstat (``CA 'dev'`` ... ``Link layer: InfiniBand``) or ibv_devinfo (``hca_id: dev`` ...
    ``link_layer: InfiniBand``) block of this device says its port runs InfiniBand."""
    paste = context().paste or ""
    for m in re.finditer(r"(?m)^\s{0,8}(?:CA '|hca_id:\s{0,8})" + re.escape(dev) + r"'?\s{0,8}$", paste):
        nxt = re.compile(r"(?m)^\s{0,8}(?:CA '|hca_id:|\$ )").search(paste, m.end())
        if re.search(r"(?i)link[ _]layer:\s{0,8}InfiniBand", paste[m.end():nxt.start() if nxt else len(paste)]):
            return True
    return False


def idle_port(label: str, p: Any, phys: str) -> Finding:
    """A port not Active beside one that is: not in use, a note; but an InfiniBand port whose physical state is
    Disabled was turned off (by ``ibportstate ... disable`` or the subnet manager): an unplugged InfiniBand port shows
    Polling, while on Ethernet (RoCE) ``Disabled`` is how mlx5 reports an empty cage, so only InfiniBand's, and only
    one that holds a LID (it was in the fabric; 0xffff or 0 is a port never brought up, corpus t002), is a warning
    (rdma-core#847: a ConnectX-3's port 1 Down/Disabled, LID 38, beside port 2 Active at FDR 56). ibstat(8),
    ibportstate(8)."""
    if (p.physical_state or "").lower() == "disabled" and (p.link_layer or "").lower() == "infiniband" \
            and p.base_lid and 0 < p.base_lid < 0xC000:
        return warn(f"{label}: {p.state}{phys}, yet it keeps the LID {p.base_lid} a subnet manager gave it: this "
                    "InfiniBand port was in the fabric and is turned off, not just unplugged (an unplugged one shows "
                    "Polling), so it carries nothing until enabled again (`ibportstate <lid> <port> enable`, or the "
                    "subnet manager's port policy). Fine if it is meant to be out of service.")
    return info(f"{label}: {p.state}{phys} (not in use; the Rate of a port that is down means nothing).")


def active_count(links: Any) -> str:
    """The end of a non-Spark ``rdma link``'s port list: every port ACTIVE (healthy), or how many of them are, which,
    and what a port that is not means (no link: no cable, or a port not in use); nothing where none is (the judge
    fails a machine whose RDMA NICs have no ACTIVE port)."""
    active = [f"{x.device}/{x.port}" for x in links if x.is_active]
    if links and len(active) == len(links):
        up = all((getattr(x, "physical_state", None) or "").upper() == "LINK_UP" for x in links)
        return " Every port shown is ACTIVE" + (" (physical state LINK_UP: the link is up)" if up else "") + ": healthy."
    if not active or len({(x.device, x.port) for x in links}) < len(links):  # (a port listed twice: a watch's rounds)
        return ""
    return (f" {len(active)} of {len(links)} ports ACTIVE ({', '.join(active[:8])}{', ...' if len(active) > 8 else ''}): "
            "those carry RDMA; a port that is not has no link (no cable, or not in use), which matters only if "
            "traffic should go through it.")


def devices_not_opened(items: list[tuple[Any, Any]]) -> list[tuple[int, Finding]]:
    """A cross check: ``/sys/class/infiniband`` lists RDMA devices that ``ibv_devices`` of the same host, later in the
    paste, does not: the kernel has them but libibverbs cannot open them. Its user-space side is missing for those:
    the character device ``/dev/infiniband/uverbsN`` (a container given some of them: Docker's ``--device`` per
    device) or the provider library of their driver (rdma-core's). Blind batch wu004 (kvcache-ai/Mooncake#102: erdma_0
    and erdma_1 in sysfs, /dev/infiniband with uverbs0 only, ibv_devices lists erdma_0). Not across a command that
    changed the state between the two, nor two hosts."""
    from ..parsers.common.commands import changes_state, filters_output
    seen: dict[Any, tuple[int, list[str]]] = {}
    out: list[tuple[int, Finding]] = []
    for index, (s, parsed) in enumerate(items):
        if s.error or parsed is None:
            continue
        host, filtered = output_machine(s), filters_output(s.command)  # (`| head` lists some)
        if changes_state(s.command):
            seen.clear()
        elif s.kind == "ib-sysfs" and len(parsed) > 1 and not filtered:
            seen[host] = (index, list(parsed))
        elif s.kind == "ibv-devices" and host in seen and parsed and not filtered:
            missing = [d for d in seen[host][1] if d not in parsed]
            if missing and all(d in seen[host][1] for d in parsed):
                out.append((index, warn(
                    f"`ibv_devices` lists {', '.join(parsed)}, but /sys/class/infiniband has {', '.join(seen[host][1])}: "
                    f"libibverbs cannot open {', '.join(missing)}. The kernel has {'it' if len(missing) == 1 else 'them'}; "
                    "what user space needs is missing: its /dev/infiniband/uverbsN (`ls /dev/infiniband`; in a container "
                    "pass each one, or /dev/infiniband whole, with --device) or its driver's provider library "
                    "(rdma-core's, e.g. libmlx5).")))
    return out


NO_LID = 65535
"""The LID an InfiniBand port reports before a subnet manager assigned it one (0xFFFF, the permissive LID; 0 reads
the same way): no subnet manager has swept the port (IBTA, and ``ibstat``'s ``Base lid: 65535`` on an INIT port)."""


def ib_lids(x: Any) -> str:
    """An InfiniBand port's LIDs as ``rdma link`` prints them, said: a LID of 0 or 65535 is none assigned, an
    ``sm_lid`` of 0 no subnet manager seen, where the port's link is up; a port with no link (POLLING, DISABLED) has
    met no subnet manager yet, so its zeros say nothing of one (blind batch vm010)."""
    if x.physical_state in ("POLLING", "DISABLED", "SLEEP") and not x.lid and not x.sm_lid:
        return f"no link ({x.physical_state}), so no LID yet"
    lid = f"lid {x.lid}, none assigned" if x.lid in (0, NO_LID) else f"lid {x.lid}"
    return lid + ("; sm_lid 0, no subnet manager seen" if x.sm_lid == 0 else
                  f"; subnet manager at lid {x.sm_lid}" if x.sm_lid is not None else "")


def trained_not_active(x: Any) -> Finding:
    """``rdma link``: a port whose cable trained (physical_state LINK_UP) but whose state is not ACTIVE. On InfiniBand
    (a LID shown, no netdev) a port waits in INIT until a subnet manager assigns its LID and activates it (ibv_devinfo's
    PORT_INIT, ibstat's ``State: Initializing``): the fix is a subnet manager, not the netdev. On RoCE the state
    follows the netdev's."""
    if x.lid is not None and not x.netdev and x.lid not in (0, NO_LID) and x.sm_lid:
        return warn(f"{x.device}/{x.port}: the cable has trained and the subnet manager (at lid {x.sm_lid}) gave the "
                    f"InfiniBand port lid {x.lid}, but the port is {x.state}, not ACTIVE: the subnet manager has not "
                    "finished bringing it up. Its log (opensm's /var/log/opensm.log, or the switch's) says why.")
    if x.lid is not None and not x.netdev:
        return warn(f"{x.device}/{x.port}: the cable has trained (physical_state LINK_UP) but the InfiniBand port is "
                    f"{x.state} ({ib_lids(x)}): no subnet manager has configured it, so no RDMA traffic can flow. Run "
                    "a subnet manager on the fabric (opensm on one host, `sudo systemctl start opensm`, or the "
                    "switch's); the port then turns ACTIVE. `sminfo` shows whether one answers.")
    return warn(f"{x.device}: the cable has trained (physical_state LINK_UP) but the RDMA port is {x.state}, so no "
                f"RDMA traffic can flow; `state` is what counts. Check `ip link show {x.netdev or '<netdev>'}` is UP, "
                "then reload with a reboot.")


def _slow_ports(cas: Any) -> dict[tuple[str, str], list[tuple[str, float]]]:
    """Active ports with a rate, by (card model, link layer), not a Spark's: what :func:`uneven_rates` compares."""
    groups: dict[tuple[str, str], list[tuple[str, float]]] = {}
    for c in cas:
        if c.ca in SPARK_RDMA:
            continue
        for p in c.ports:
            if p.is_active and p.rate_gbps and c.ca_type:
                groups.setdefault((c.ca_type, (p.link_layer or "").lower()), []).append(
                    (f"{c.ca or '?'} port {p.port}", p.rate_gbps))
    return groups


def up_words(cas: Any, c: Any, p: Any) -> str:
    """How an Active port's line ends: healthy, unless other ports of its card model run faster (:func:`uneven_rates`
    says it)."""
    ports = _slow_ports(cas).get((c.ca_type, (p.link_layer or "").lower()), [])
    sm = (f" A subnet manager (SM lid {p.sm_lid}) gave it LID {p.base_lid}." if (p.link_layer or "").lower() == "infiniband"
          and p.sm_lid and p.base_lid else "")  # (blind batch vs007)
    if p.rate_gbps and ports and p.rate_gbps < max(r for _, r in ports):
        return ": the port's link is up, at a lower rate than other ports of its model (below)." + sm
    return ": the port's link is up and healthy." + sm


def uneven_rates(cas: Any) -> list[Finding]:
    """Active ports of one card model (ibstat's ``CA type``) on one link layer that report different rates (``Rate:
    100`` beside ``Rate: 200``): the same card trained lower on some ports, by a cable or module of a lower rate, a
    split (breakout) switch port or a port the switch set lower, unless those ports are meant for another network.
    A port below all the others of three or more of its model is a warning (a rail trained lower); else a note naming
    what decides (``mlxlink -d <dev> -m`` shows the cable and the rate it allows)."""
    out = []
    for (ca_type, _), ports in _slow_ports(cas).items():
        rates = sorted({r for _, r in ports})
        if len(rates) < 2:
            continue
        top = rates[-1]
        low = [(n, r) for n, r in ports if r < top]
        said = ", ".join(f"{n} at {r:g}" for n, r in low[:6])
        rail = len(ports) >= 3 and len(low) == 1
        out.append((warn if rail else info)(
            f"Ports of one card model ({ca_type}) run at different rates: {said} Gb/s, the other "
            f"{sum(r == top for _, r in ports)} at {top:g} Gb/s. If they serve one fabric, the slower ones trained lower: a cable or module of a lower rate, a split "
            "(breakout) switch port, or a port the switch set lower; `mlxlink -d <dev> -m` (or `ethtool -m` of its "
            "netdev) shows the cable and what it allows. Fine if those ports are meant for another, slower network."))
    return out


def guid_gids(table: Any, dev: str) -> bool:
    """Whether every GID ``show_gids`` lists for ``dev`` is an fe80 one with no netdev whose interface part is not
    built from a MAC (no ``ff:fe`` in its middle, as a RoCE GID from a netdev's EUI-64 link-local address has): an
    InfiniBand port's GID, its port GUID, where RoCE's IPv4 GIDs do not apply (a table of InfiniBand ports only has no
    netdev column to tell it otherwise)."""
    import ipaddress
    rows = [r for r in table if r.device == dev]
    def from_mac(gid: str) -> bool:
        try:
            packed = ipaddress.IPv6Address(gid).packed
        except ValueError:
            return True  # (masked or cut: not known to be a GUID's)
        return packed[11:13] == b"\xff\xfe"
    return bool(rows) and all(not r.netdev and r.gid.lower().startswith("fe80") and not from_mac(r.gid) for r in rows)


def two_link_layers(cas: Any, ethernet: list[str], ib: list[str]) -> Finding:
    """Ports on two link layers: a note (hosts often have an InfiniBand fabric and an Ethernet one); a warning where
    the two are ports of one card (one CA's ports, or CAs sharing a nonzero system image GUID): a VPI card's ports are
    set one by one (mlxconfig LINK_TYPE_P1/P2), and one set apart from its sibling is most often the one left at the
    other protocol. Corpus w012 (NVIDIA/daqiri's tutorial: a ConnectX-7 with port 1 Ethernet, port 2 InfiniBand; the
    fix it gives is LINK_TYPE_P2=ETH and a reboot); t017 and pending ws010 (two cards, one per network): notes."""
    said = (f"The ports run two link layers: Ethernet, i.e. RoCE, on {', '.join(ethernet)}; InfiniBand on "
            f"{', '.join(ib)}. A RoCE port and an InfiniBand port cannot reach each other, so use one kind for a job "
            "(NCCL_IB_HCA)")
    fix = "a VPI card's port changes with `mlxconfig -d <dev> set LINK_TYPE_P<n>=ETH` (or IB) and a reboot."
    cards: dict[str, list[Any]] = {}
    for c in cas:
        digits = (getattr(c, "system_guid", None) or "").lower().replace(":", "").removeprefix("0x")
        key = digits if digits.strip("0") else f"ca:{c.ca}"  # no GUID (or zeros): the CA alone is one card
        cards.setdefault(key, []).append(c)
    mixed = [cs for cs in cards.values() if {(p.link_layer or "").lower() for c in cs for p in c.ports}
             >= {"ethernet", "infiniband"}]
    if not mixed:
        return info(f"{said}; {fix}")
    names = ", ".join(c.ca or "?" for c in mixed[0])
    return warn(f"{said}. Here the two are ports of one card ({names}: one system image GUID): a card's ports are set "
                "one by one, so one of them was left at the other protocol, or set apart on purpose (one port on an "
                "InfiniBand fabric, one on Ethernet). If both are meant for one network, " + fix)
