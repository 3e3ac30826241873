"""Notes on ``ethtool`` and ``ethtool -m`` outputs that :mod:`.link` reads: what a partial excerpt cannot show, a link
up with no speed, half duplex, an optic's missing diagnostics.

Sources: the ethtool(8) man page (https://man7.org/linux/man-pages/man8/ethtool.8.html: ``Speed``, ``Duplex``, ``Link
detected``, ``-m`` module EEPROM and its diagnostics); IEEE 802.3 clause 28/40 auto-negotiation (1000BASE-T and faster
are full duplex only, so half duplex means a fallback); the kernel's virtio_net driver, which reports no speed unless
the host sets one (https://docs.kernel.org/networking/ethtool-netlink.html, ``LINKMODES_GET``).
"""

from __future__ import annotations

import re
from typing import Any

from ..spark_names import is_qsfp_twin
from .common import LINE_GBPS, LINK_MBPS, fail, info, ok, warn
from .model import Finding


def up_no_speed(r: Any, name: str) -> list[Finding]:
    """ethtool says the link is up but gives no speed: a virtual NIC's (virtio_net, a veth, a bridge) or a driver that
    reports none. An info: the link is up, nothing to fix."""
    return [info(f"{name}: up (Link detected: yes), but the driver reports no speed: what a virtual NIC (virtio_net in a "
                 "VM, a veth, a bridge) shows, with no physical port to negotiate one; on a physical NIC `ethtool -i "
                 f"{r.interface or '<iface>'}` names the driver, and a throughput test gives the real rate.")]


def unshown_link(r: Any, name: str) -> list[Finding]:
    """An ethtool excerpt with link modes but none of `Speed:`, `Duplex:` or `Link detected:`: the outcome of
    auto-negotiation is not in it. An info that says which lines decide."""
    again = f"Paste the rest (`ethtool {r.interface or '<iface>'}` to its last line)."
    if unadvertised(r, name):
        return unadvertised(r, name)
    if r.common_top_mode_mbps:
        return [info(f"{name}: the paste ends before its `Speed:` and `Link detected:` lines, so the link is not shown; "
                     f"both ends advertise up to {r.common_top_mode_mbps}Mb/s, which auto-negotiation picks when the "
                     f"link is up. {again}")]
    if not r.advertised_modes and r.supported_modes:  # cut inside (or right after) its supported modes
        return [info(f"{name}: the paste stops after {len(r.supported_modes)} of its supported link modes (up to "
                     f"{r.supported_modes[-1]}), before the advertised modes and the `Speed:` and `Link detected:` "
                     "lines: it shows neither the speed the link came up at nor whether it is up, and the supported list "
                     f"may go on below the cut (ethtool does not list it by speed). {again}")]
    if not r.advertised_modes:
        return []
    shown = ", ".join(r.advertised_modes[:4]) + (" ..." if len(r.advertised_modes) > 4 else "")
    one = (" A single advertised mode means the advertisement was restricted (a forced speed or a network manager's "
           "setting): a partner or cable that cannot run it gets no fallback." if len(r.advertised_modes) == 1
           and r.auto_negotiation is not False and "baseT/" in r.advertised_modes[0] else "")
    return [info(f"{name}: it advertises {shown}, but the `Speed:`, `Duplex:`, link partner and `Link detected:` lines "
                 "are not in the paste, so it cannot tell at what speed the link came up, or whether it is up."
                 f"{one} {again}")]


def fallback_link(r: Any, name: str, said: list[Finding]) -> list[Finding]:
    """A link that reports half duplex, or runs at 10 Mb/s, where nothing said about it already warns: a fallback
    (ports of 1 Gb/s and up run full duplex only) or a forced setting, or a driver that fills these fields with
    defaults. A hedged warning."""
    if not r.speed_mbps or r.link_detected is False or any(f.level in ("warn", "fail") for f in said):
        return []
    if (r.duplex or "").lower() != "half":
        return [warn(f"{name}: {r.speed_mbps}Mb/s, the 10BASE-T rate: a port of today runs at 100 Mb/s or more, so a "
                     "link at 10 was forced there (`ethtool -s ... speed 10 autoneg off`, here or at the far end) or "
                     "fell back (a cable with a broken pair); some drivers show it as a placeholder on an empty port. "
                     "`Auto-negotiation` and the link partner's modes in the full `ethtool` output say which; "
                     f"`ethtool -s {r.interface or '<iface>'} autoneg on` restores negotiation.")] \
            if r.speed_mbps == 10 else []
    return [warn(f"{name}: half duplex at {r.speed_mbps}Mb/s. Taken at face value the link fell back (one end forced, "
                 "the other on auto-negotiation, or a bad cable): collisions, and a fraction of the throughput. Some "
                 "drivers (embedded boards among them) do not implement ethtool's link settings and show defaults "
                 "here instead: a throughput test at the expected rate, or the kernel's `Link is Up` line, decides.")]


_WAVELENGTH_RE = re.compile(r"^\s{0,4}([1-9]\d{2,3})\s{0,2}nm")
_DIAGNOSTIC_KEY_RE = re.compile(r"power|temperature|bias|voltage|diagnostics", re.I)


def module_diagnostics_unshown(m: Any, name: str) -> list[Finding]:
    """`ethtool -m` of an optic (a laser wavelength) with no diagnostics line (temperature, bias, optical power): the
    paste stops before them, or the module has none. What decides whether light arrives is not shown: an info."""
    if not _WAVELENGTH_RE.match(m.get("Laser wavelength") or "") or any(map(_DIAGNOSTIC_KEY_RE.search, m.fields)):
        return []
    return [info(f"{name}: the module's identity only: no diagnostics (DOM: temperature, laser bias, TX and RX optical "
                 "power) in this output, so it cannot tell whether light arrives. The paste stops before them, or the "
                 "module does not report them; the `Receiver signal average optical power` line of `ethtool -m` (or "
                 f"`Link detected` in `ethtool {m.interface or '<iface>'}`) decides.")]


_VF_NETDEV_RE = re.compile(r"^(?P<pf>[a-z][\w]{1,30}?)v(?P<vf>\d{1,3})$")
"""An SR-IOV virtual function's netdev as the kernel names it after its physical function (``ibp141s0v3``,
``enp97s0f0v1``)."""


def vfs_down_under_up_pf(maps: list[Any]) -> list[Finding]:
    """``ibdev2netdev``: virtual functions Down whose physical function, in the same list, is Up. The PF has link, so no
    cable is at fault: the VFs are unused, or not brought up (on InfiniBand a VF needs its port and node GUID set and a
    subnet manager with virtualization on; an Ethernet VF's link state can be set to disable). A hedged warning."""
    up = {m.netdev for m in maps if m.is_up}
    vfs: dict[str, list[str]] = {}
    for m in maps:
        v = _VF_NETDEV_RE.match(m.netdev)
        if v and not m.is_up and v["pf"] in up:
            vfs.setdefault(v["pf"], []).append(m.netdev)
    if not vfs:
        return []
    said = "; ".join(f"{', '.join(ds[:4])}{' ...' if len(ds) > 4 else ''} of {pf}" for pf, ds in vfs.items())
    return [warn(f"Virtual functions Down under a physical function that is Up ({said}): the PF has link, so no cable "
                 "is at fault. Fine if those VFs are not in use yet; if a pod or VM should use them, an InfiniBand VF "
                 "needs its port and node GUID set (`ip link set <pf> vf N port_guid ... node_guid ...`) and a subnet "
                 "manager with virtualization enabled, and an Ethernet VF's link state must not be `disable` (`ip "
                 "link show <pf>` lists each VF's). `ibstat` on the VF's RDMA device shows its port state.")]


def unadvertised(r: Any, name: str) -> list[Finding]:
    """A link at this side's best advertised mode while the link partner advertises a faster one (and this port, where
    `Supported link modes` shows it, supports it): auto-negotiation settles on the best mode both advertise, so this
    side's advertisement holds the link back, not the cable (lienol/openwrt-package#42: an RTL8125 at 1000Mb/s whose
    advertised modes stop at 1000baseT/Full, the partner's at 2500baseT/Full)."""
    own = max(r.advertised_modes, key=_full_mbps, default="")
    theirs = max(r.partner_modes, key=_full_mbps, default="")
    if not own or not _full_mbps(own) or _full_mbps(theirs) <= _full_mbps(own) or r.auto_negotiation is False \
            or r.speed_mbps not in (_full_mbps(own), None):
        return []
    can = theirs in r.supported_modes
    if r.supported_modes and not can:
        return []  # this port cannot run it: the partner's faster mode is not one it lists
    speed = (f"{r.speed_mbps}Mb/s because" if r.speed_mbps else f"the link can come up at {_full_mbps(own)}Mb/s at "
             "most (the paste ends before `Speed:`):")
    return [warn(f"{name}: {speed} this side does not advertise {theirs}, which the link partner "
                 f"advertises{' and this port supports (`Supported link modes`)' if can else ''}: its advertised modes "
                 f"stop at {own}, and auto-negotiation settles on the best mode both ends advertise. The cable and the "
                 f"partner are not the limit: advertise it (`ethtool -s {r.interface or '<iface>'} autoneg on advertise "
                 "<mask>`, with the mode's bit) and make that persist in the network configuration; a driver or a "
                 "network manager that resets the advertised modes can hold it there.")]


def _full_mbps(mode: str) -> int:
    """The rate of an ethtool link mode in Mb/s (``2500baseT/Full``: 2500), 0 for a half-duplex or unreadable one."""
    x = re.match(r"(\d+)base", mode)
    return int(x.group(1)) if x and mode.endswith("/Full") else 0


def partner_limit(r: Any, name: str) -> list[Finding]:
    """A link at the best full-duplex mode the link partner advertises, on a port that supports (or advertises) a
    faster one: auto-negotiation settles on the best mode both ends offer, so the other end (a gigabit switch, router
    or adapter) is the limit, not this port or the cable (blind batches wu008, wu010: a 2.5G USB adapter and a 10G
    router port at 1000Mb/s beside a partner that advertises up to 1000baseT/Full). An info: nothing here to fix."""
    theirs = max(r.partner_modes, key=_full_mbps, default="")
    mine = max((*r.supported_modes, *r.advertised_modes), key=_full_mbps, default="")
    if not theirs or not r.speed_mbps or r.speed_mbps != _full_mbps(theirs) or _full_mbps(mine) <= r.speed_mbps \
            or r.auto_negotiation is False:
        return []
    told = max(r.advertised_modes, key=_full_mbps, default="")
    held = (f" (it advertises only up to {told}: with a faster partner, advertise {mine} too)"
            if told and _full_mbps(told) < _full_mbps(mine) else "")
    return [info(f"{name}: {r.speed_mbps}Mb/s, the best mode the link partner advertises ({theirs}): "
                 f"auto-negotiation settles on the best mode both ends offer, so the other end (a switch, router or "
                 f"adapter that runs no faster) is the limit, not this port or the cable. This port runs up to "
                 f"{mine}{held}.")]


def fec_findings(r: Any, name: str) -> list[Finding]:
    """``ethtool --show-fec``: forward error correction; RS (Reed-Solomon) is what 100G and faster links use. Where the
    paste also holds the same host's ``ethtool <interface>`` report, its link state decides (:func:`_own_report`)."""
    active, conf = (r.fec_active or "").strip(), r.fec_configured or "?"
    if r.fec_active is None and r.fec_configured is None:
        return []
    if active.lower() in ("", "off", "none") and active and is_qsfp_twin(r.interface or ""):
        report = _own_report(r.interface or "")
        if r.link_detected is False or "Link detected: no" in report:
            return [info(f"{name}: FEC configured {conf}, active {active}: what a port with no link shows (this paste's "
                         "`ethtool` of it says `Link detected: no`): nothing to read from FEC until it links.")]
        speed = re.search(r"Speed: (\d+)Mb/s", report) if "Link detected: yes" in report else None
        if speed:
            return [warn(f"{name}: FEC configured {conf}, active {active}, on a link up at {speed[1]}Mb/s (this paste's "
                         f"`ethtool`): a Spark's {LINE_GBPS}G QSFP link runs RS-FEC (Reed-Solomon; PAM4 signalling "
                         "needs it). " + ("Mend the speed first (its own finding): at 100 GbE the two ends settled on "
                                          "a mode without FEC." if int(speed[1]) < LINK_MBPS else "At full speed without "
                                          "FEC the link has no error correction: check the other end's FEC setting and "
                                          "the cable; leave it on Auto.")
                         )]
        return [warn(f"{name}: FEC configured {conf}, active {active}: a Spark's {LINE_GBPS}G QSFP link runs RS-FEC "
                     "(Reed-Solomon; PAM4 signalling needs it), so no FEC means this port is down (an unused, unplugged "
                     "port shows it too: fine) or linked at a lower speed or without RS. Read `ethtool "
                     f"{r.interface}` (Speed {LINK_MBPS}Mb/s, Link detected: yes) before changing FEC; leave it on "
                     "Auto.")]
    if active.lower() in ("", "off", "none"):
        return [info(f"{name}: FEC configured {conf}, active {active or 'none shown'}: links of 100G and faster "
                     "normally run RS; through a switch both ends must use the same FEC. Leave it on Auto.")]
    return [ok(f"{name}: FEC configured {conf}, active {active}: normal, not a fault by itself (100G and faster "
               "links use RS, Reed-Solomon). Look at FEC only if the link flaps (`ethtool -S <iface> | grep -i fec`).")]


def _own_report(interface: str) -> str:
    """The paste's last ``ethtool <interface>`` report (from ``Settings for <interface>:`` to the next prompt, before or
    after the FEC's) of the host whose ``--show-fec`` is read: the same prompt host (the last one a prompt named) before
    both, or no host named before either (break-it reviews 22 and 23: p06 one host, p22 two hosts with the same port
    name). "" when none."""
    from ..parsers.common import parse_prompt
    from .context import context
    reports: list[tuple[str | None, list[str]]] = []  # (host, the report's lines)
    host, fec_host, current = None, False, None
    for line in (context().paste or "").split("\n"):
        prompt = parse_prompt(line)
        if prompt is not None:
            host, current = prompt.host or host, None
        elif line.strip() == f"Settings for {interface}:":
            current = [line]
            reports.append((host, current))
        elif line.strip() == f"FEC parameters for {interface}:":
            fec_host, current = host, None
        elif current is not None:
            current.append(line)
    if not interface or fec_host is False:
        return ""
    return next(("\n".join(lines) for at, lines in reversed(reports) if at == fec_host), "")


def up_count(maps: list[Any], cut: bool) -> str:
    """How many of a non-Spark ``ibdev2netdev``'s netdevs are Up, as the end of its listing: all of them, some (which),
    or none (said by the listing alone: the judge fails it, or reads an IPoIB netdev's Down). Of the lines shown where
    the paste is cut."""
    up = [m.netdev for m in maps if m.is_up]
    if not up or len(maps) < 2 or len({m.netdev for m in maps}) < len(maps):  # (a netdev twice: two runs pasted)
        return "."
    of = " of the lines shown" if cut else ""
    if len(up) == len(maps):
        return f". {'Both' if len(maps) == 2 else f'All {len(maps)}'} netdevs{of} are Up (their link is up)."
    eth_down = [m for m in maps if not m.is_up and not re.match(r"ib", m.netdev)]  # (an IPoIB one's Down: said apart)
    return (f". {len(up)} of {len(maps)} netdevs{of} are Up ({', '.join(up[:8])}{', ...' if len(up) > 8 else ''}), "
            f"{len(maps) - len(up)} Down" + (": a Down Ethernet netdev has no link (no cable, or not in use), which "
                                             "matters only if traffic should go through it." if eth_down else "."))


def below_own_best(r: Any, name: str) -> list[Finding]:
    """A link up at a rate below the best full-duplex mode the port advertises, the link partner's modes not reported
    (``Not reported``, or the line absent): the other end, the cable or module decided the rate (a switch port of that
    speed, a breakout cable: a 100G port on 4x25G runs 25000Mb/s), which this output cannot show. Said as a note that
    names what decides, not as healthy and not as a fault."""
    own = max(r.advertised_modes, key=_full_mbps, default="")
    if not r.link_detected or not r.speed_mbps or r.partner_modes or not own or _full_mbps(own) <= r.speed_mbps:
        return []
    iface = r.interface or "<iface>"
    return [info(f"{name}: {r.speed_mbps}Mb/s, link up, below the {own} ({_full_mbps(own)} Mb/s) the port advertises. The "
                 "link partner's modes are not reported, so this output cannot say what held the rate: the other end "
                 f"(a switch port set to {r.speed_mbps / 1000:g} Gb/s), a breakout cable, or a module of that rate. "
                 f"Expected if that end runs {r.speed_mbps / 1000:g} Gb/s; if the link should run faster, read the "
                 f"other end's speed and the module (`ethtool -m {iface}`).")]


def port_state_notes(maps: list[Any]) -> list[Finding]:
    """``ibdev2netdev -v`` prints each RDMA port's own state (``port 1 (INIT)``) beside its netdev's: a port that is
    not ACTIVE is said from it. An InfiniBand port (an ``ib*`` IPoIB netdev) in INIT trained its link but waits for a
    subnet manager to assign its LID and activate it (ibstat's ``State: Initializing``): a warning naming the subnet
    manager. An InfiniBand port DOWN (or POLLING) has no link of its own, which its IPoIB netdev's state does not say
    (an Ethernet netdev's Down already does): a note, as an unused port is."""
    out = []
    init = [m for m in maps if (m.port_state or "").upper() in ("INIT", "ARMED")]
    for m in init[:4]:
        ib = re.match(r"ib", m.netdev) is not None
        out.append(warn(f"{m.rdma_device} port {m.port} is {m.port_state} (`ibdev2netdev -v` shows the port's own "
                        f"state), though {m.netdev} is {m.state}: " + (
                            "the InfiniBand link trained but no subnet manager has activated the port (no LID yet), so "
                            "no RDMA traffic can use it. Run a subnet manager on the fabric (opensm on one host, or the "
                            "switch's); `ibstat` then shows State: Active." if ib else
                            "the link trained but the RDMA port is not ACTIVE, so no RDMA traffic can use it. `rdma "
                            "link` and `ibv_devinfo` show the port's state and link layer.")))
    down = [m for m in maps if (m.port_state or "").upper() in ("DOWN", "POLLING", "DISABLED") and re.match(r"ib", m.netdev)]
    if down:
        out.append(info(f"{', '.join(f'{m.rdma_device} port {m.port}' for m in down[:8])}: the port itself is "
                        f"{'/'.join(sorted({m.port_state.upper() for m in down}))} (`ibdev2netdev -v` shows the port's "
                        "own state): no link on it (no cable, or the far end or switch port down). Nothing to fix "
                        "unless traffic should use it; then check the cable and the switch port."))
    return out


def reserved_addresses(addresses: list[tuple[str, str]]) -> list[Finding]:
    """An interface's IPv4 address that is its own subnet's network or broadcast address (``addresses``: (interface,
    ``a.b.c.d/n``) pairs; /31 and /32 have neither): no host may hold it, so the interface's traffic breaks (blind batch
    vm005: bond0 at 10.99.99.103/29, the /29's broadcast)."""
    import ipaddress
    out = []
    for name, cidr in addresses:
        try:
            iface = ipaddress.ip_interface(cidr)
        except ValueError:
            continue
        net = iface.network
        if iface.version != 4 or net.prefixlen > 30 or iface.ip not in (net.network_address, net.broadcast_address):
            continue
        which = "broadcast" if iface.ip == net.broadcast_address else "network"
        out.append(fail(f"{name}'s address {cidr} is its subnet's {which} address ({net}): no host may hold it, so "
                        f"what is sent to or from it goes astray{' (to every host of the subnet)' if which == 'broadcast' else ''}. "
                        f"Give {name} an address between {net.network_address + 1} and {net.broadcast_address - 1}."))
    return out


_FLAG_RE = re.compile(r"^(?P<what>.{1,60}?)\s+(?P<kind>alarm|warning)\s*(?:\((?:Chan(?:nel)?|Lane)\s*(?P<lane>\d{1,2})\))?\s*$", re.I)
_BIAS_KEY_RE = re.compile(r"^Laser (?:tx )?bias current(?: \((?:Chan(?:nel)?|Lane) ?\d{1,2}\))?$", re.I)


def module_flag_findings(m: Any, name: str) -> list[Finding]:
    """``ethtool -m``'s alarm and warning flags that are On, grouped by the reading they are about (its lanes listed):
    an alarm is a failure, a warning alone a warning (the module's own thresholds, in its EEPROM). With every lane's
    laser bias at 0 mA the laser is off: the module sends nothing, so the port has no link (blind batch vo010: a
    CWDM4 module the NIC's firmware left disabled)."""
    groups: dict[str, tuple[dict[str, None], dict[str, None]]] = {}  # reading -> (kinds, lanes), in order
    for flag in m.flags_on:
        f = _FLAG_RE.match(flag.strip())
        what, kind, lane = (f["what"].strip(), f["kind"].lower(), f["lane"]) if f else (flag.strip(), "warning", None)
        kinds, lanes = groups.setdefault(what, ({}, {}))
        kinds[kind] = None
        if lane:
            lanes[lane] = None
    if not groups:
        return []
    said = "; ".join(f"{what} ({' and '.join(kinds)}" + (f", lane{'s' * (len(lanes) > 1)} {', '.join(lanes)}"
                                                           if lanes else "") + ")" for what, (kinds, lanes) in groups.items())
    alarm = any("alarm" in kinds for kinds, _ in groups.values())
    bias = [v for k, v in m.fields.items() if _BIAS_KEY_RE.match(k.strip())]
    off = bool(bias) and all(re.match(r"^0(?:\.0+)? mA", v.strip()) for v in bias)
    if off and m.interface and _admin_down(m.interface):  # the NIC keeps the laser off on a port set down
        return [warn(f"{name}: every lane's laser bias is 0 mA and the module raises its low-power flags ({said}), but "
                     "`ip link` in this paste shows the port administratively down (no UP flag): the NIC keeps the "
                     "laser off while the port is down, so these readings say nothing of the module. Bring it up "
                     f"(`sudo ip link set {m.interface} up`) and read `ethtool -m` again.")]
    return [(fail if alarm or off else warn)(
        f"{name}: the module reports {'alarm' if alarm else 'warning'} flags On: {said}: readings past its own "
        f"{'alarm' if alarm else 'warning'} thresholds."
        + (" Every lane's laser bias is 0 mA: the laser is off, so the module sends nothing and the port has no link"
           " (a module the NIC's firmware does not accept and keeps disabled, or TX disabled); `ethtool "
           f"{m.interface or '<interface>'}` would show `Link detected: no`." if off else "")
        + " Reseat it, clean the fibre ends (optics), or swap the module or cable" + (
            " for one the NIC supports." if off else "."))]


def _admin_down(interface: str) -> bool:
    """Whether the paste's `ip link`/`ip addr` shows ``interface`` without the UP flag (administratively down)."""
    from .context import context
    m = re.search(rf"^\s*\d+: {re.escape(interface)}(?:@\S+)?: <(?P<flags>[^>\n]*)>", context().paste or "", re.M)
    return bool(m) and "UP" not in m["flags"].split(",")
