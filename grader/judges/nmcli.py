"""Judge of NetworkManager's device and profile tables (``nmcli device``, ``nmcli connection``: lesson 1, the addresses
that survive a reboot). What each device state means is NetworkManager's (nmcli(1), NMDeviceState in
NetworkManager's D-Bus API: ``unavailable`` = the device cannot be activated, for a wired port no carrier;
``disconnected`` = it could be, no profile is active; ``connecting (getting IP configuration)`` = a profile waits for
its addresses, DHCP's; ``connected (externally)`` = configured outside NetworkManager). On a DGX Spark the course keeps
the ConnectX-7 twins in netplan with ``renderer: networkd`` (docs/research/procedure.md §1.3, §1.4 and §5 item 1;
checks/diagnoses.toml ``cx7-networkmanager``).
"""

from __future__ import annotations

import re
from typing import Any

from ..spark_names import HOUSE_INTERFACE, QSFP_TWINS, is_qsfp_twin, qsfp_port
from .common import info, ok, on_spark, warn
from .model import Finding, Summary

_SHOWN = 12  # devices named in the first line at most


def _names(devices: list[Any]) -> str:
    return ", ".join(d.device for d in devices)


_CARRIER = ("connected", "connecting", "disconnected", "prepare", "config", "ip-config", "ip-check", "secondaries")
"""States NetworkManager gives only a device it may activate: for a wired port, one with carrier (``unmanaged``
says nothing of it; ``connected (externally)`` is configured by another tool, carrier or not)."""


def _spark(names: set[str]) -> bool | None:
    """Whether these interface names are a Spark's (``explain --host`` first): enp1s0f0np0 alone names a ConnectX on
    PCI bus 1 of many hosts; a twin on PCI domain 0002 or the RJ45 (enP7s7) is a Spark's. None: the names cannot tell."""
    return on_spark(True if any(n.startswith("enP2p1s0f") or n == HOUSE_INTERFACE for n in names) else None)


def _twin_ports(devices: list[Any]) -> list[Finding]:
    """The QSFP ports of a Spark, by their twins' states: a port both of whose twins are unavailable has no link; one
    whose twins NetworkManager does not manage is not known from this table."""
    state = {d.device: d.state for d in devices if is_qsfp_twin(d.device)}
    dark = [p for p, twins in QSFP_TWINS.items() if twins[0] in state and twins[1] in state
            and all(state[t] == "unavailable" for t in twins)]
    lit = [p for p, twins in QSFP_TWINS.items() if any(state.get(t, "").startswith(_CARRIER)
                                                         and state[t] != "connected (externally)" for t in twins)]
    unknown = [p for p in QSFP_TWINS if p not in dark and p not in lit and any(t in state for t in QSFP_TWINS[p])]
    if not dark:
        return []
    if not lit and not unknown:
        return [warn(f"No QSFP port has a link: every ConnectX-7 twin listed ({', '.join(sorted(state))}) is "
                     "`unavailable`, which NetworkManager says of a wired port without carrier. The cable is not seated "
                     "at one end, the other Spark is off, or the cable is one the port does not take; `ethtool "
                     "<twin>` (`Link detected`) and `ip link` (NO-CARRIER) on both Sparks decide.")]
    said = f"QSFP port {' and '.join(map(str, dark))} has no link (both twins `unavailable`)"
    if lit:
        return [info(f"{said}, port {' and '.join(map(str, lit))} has: expected with one cable, in the port that has "
                     "it.")]
    return [info(f"{said}; NetworkManager does not manage port {' and '.join(map(str, unknown))}'s twins, so this table "
                 "says nothing of their link (`ip link` shows NO-CARRIER or LOWER_UP).")]


def summarise_nmcli(tables: Any, command: str | None) -> Summary:
    devices, profiles = list(tables.devices), list(tables.profiles)
    facts = {"devices": {d.device: {"type": d.type, "state": d.state, "connection": d.connection} for d in devices},
             "profiles": {p.name: {"type": p.type, "device": p.device} for p in profiles}}
    findings: list[Finding] = []
    spark = _spark({d.device for d in devices} | {p.device for p in profiles if p.device})
    wired = [d for d in devices if d.type in (None, "ethernet", "infiniband")]  # (wifi: `unavailable` is its radio)
    if devices:
        shown = ", ".join(f"{d.device} {d.state}" + (f" ('{d.connection}')" if d.connection else "")
                          for d in devices[:_SHOWN])
        more = f" and {len(devices) - _SHOWN} more" if len(devices) > _SHOWN else ""
        findings.append((ok if any(d.state == "connected" for d in devices) else info)(
            f"NetworkManager's devices: {shown}{more}."))
    findings += _twin_ports(devices) if spark else []
    plain = [d for d in wired if not (spark and is_qsfp_twin(d.device))]  # (a Spark's twins: by port, above)
    off = [d for d in plain if d.state == "unavailable"]
    if off:
        findings.append(info(f"{_names(off)} {'is' if len(off) == 1 else 'are'} `unavailable`: NetworkManager sees no "
                             "carrier on a wired port (no cable, the far end down) or the device is not ready, so no "
                             f"profile can come up on it; `ip link show {off[0].device}` (NO-CARRIER) decides."))
    idle = [d for d in plain if d.state == "disconnected"]
    if idle:
        findings.append(info(f"{_names(idle)}: no profile active (`disconnected`), so NetworkManager gives "
                             f"{'it' if len(idle) == 1 else 'them'} no address; `nmcli connection up <profile>` brings "
                             "one up, unless another tool (netplan's networkd) configures the port."))
    dhcp = [d for d in wired if d.state.startswith("connecting") and "ip configuration" in d.state]
    if dhcp:
        findings.append(warn(f"{_names(dhcp)}: still waiting for an address (`{dhcp[0].state}`). A profile that asks "
                             "DHCP for it (`ipv4.method auto`) waits for ever on a link with no DHCP server, as a direct "
                             "cable between two machines is: give the port a static address (`nmcli connection modify "
                             "<profile> ipv4.method manual ipv4.addresses <address>/24`"
                             + (", or netplan with `renderer: networkd` as the course does)" if spark else ")")
                             + ". If it was a moment after the cable went in, run `nmcli device` again."))
    going = [d for d in wired if d.state.startswith(("connecting", "prepare", "config", "need-auth", "ip-check",
                                                      "secondaries", "deactivating")) and d not in dhcp]
    if going:
        findings.append(info(f"{_names(going)}: between states when this ran ({going[0].state}); run `nmcli device` "
                             "again to see where it settles."))
    failed = [d for d in wired if d.state == "failed"]
    if failed:
        findings.append(warn(f"{_names(failed)}: NetworkManager failed to activate its profile (`failed`); "
                             f"`journalctl -u NetworkManager` says why, `nmcli connection up <profile>` prints it."))
    external = [d for d in wired if d.state == "connected (externally)"]
    if external:
        findings.append(info(f"{_names(external)}: configured outside NetworkManager (`connected (externally)`: by "
                             "another tool, such as netplan's networkd, or by hand with `ip addr add`), which "
                             "NetworkManager shows but does not keep: whether it survives a reboot is that tool's (an "
                             "address set by hand does not)."))
    if spark:
        managed = {d.device: d.connection for d in devices if is_qsfp_twin(d.device) and d.connection
                   and d.state not in ("connected (externally)", "unmanaged")} or \
            {p.device: p.name for p in profiles if p.device and is_qsfp_twin(p.device)}
        if managed:
            findings.append(info(
                "NetworkManager manages the ConnectX-7 twin" + ("s " if len(managed) > 1 else " ")
                + ", ".join(f"{t} (profile '{n}', QSFP port {qsfp_port(t)})" for t, n in managed.items())
                + ". The course keeps the twins in netplan with `renderer: networkd`: NetworkManager's automatic "
                "`Wired connection N` profiles ask DHCP there and make avahi announce the host name on the "
                "interconnect (`Host name conflict`). Whether a profile holds a static address, "
                f"`nmcli -f ipv4.method,ipv4.addresses connection show '{next(iter(managed.values()))}'` shows."))
        unmanaged = [d.device for d in devices if is_qsfp_twin(d.device) and d.state == "unmanaged"]
        if unmanaged:
            findings.append(ok(f"{', '.join(unmanaged)}: not managed by NetworkManager, as the course has it (netplan's "
                               "networkd configures the twins)."))
    if profiles:
        active = [p for p in profiles if p.device]
        findings.append(info(f"{len(profiles)} profile{'s' if len(profiles) != 1 else ''}, {len(active)} active"
                             + (": " + ", ".join(f"'{p.name}' on {p.device}" for p in active[:_SHOWN]) if active else "")
                             + (f"; not active: {', '.join(repr(p.name) for p in profiles if not p.device)}"
                                if len(active) < len(profiles) <= _SHOWN else "") + "."))
    return facts, findings


_HOUSE_PORT_RE = re.compile(rf"^(?:wl|{HOUSE_INTERFACE}$)")
_OTHERS_PORT_RE = re.compile(r"^(?:docker\d|br-[0-9a-f]|virbr\d|cni\d|flannel|vxlan|veth|lxcbr|lxdbr|podman)")


def summarise_nmcli_show(props: dict[str, Any], command: str | None) -> Summary:
    """One profile's (``nmcli connection show NAME``) or device's (``nmcli device show IF``) properties: what it asks
    for (IPv4 method and addresses, autoconnect, MTU) against lesson 1's aim, addresses that come back after a reboot
    on a direct cable (no DHCP server on it)."""
    from .common import JUMBO_MTU
    from .link import JUMBO_GUIDES
    g = props.get
    port = g("connection.interface-name") or g("GENERAL.DEVICE")
    words = [w for w in (command or "").split() if not w.startswith("-")]
    asked = words[-1].strip("'\"") if len(words) > 3 and words[-2] in ("show", "s") else None  # `connection show NAME`
    profile = any(k[:1].islower() for k in props)  # (a device's keys are GENERAL.*, IP4.*...)
    name = g("connection.id") or g("GENERAL.CONNECTION") or (asked if profile else None)
    twin = bool(port) and is_qsfp_twin(port)
    spark = _spark({port} if port else set())
    shown = [f"{k} {v}" for k, v in props.items() if k in ("ipv4.method", "ipv4.addresses", "ipv6.method",
             "connection.autoconnect", "802-3-ethernet.mtu", "GENERAL.STATE", "GENERAL.MTU") or k.startswith("IP4.ADDRESS")]
    findings = [info(f"NetworkManager {'profile' if profile else 'device'}"
                     + (f" '{name}'" if name else "") + (f" on {port}" if port else "")
                     + (f": {', '.join(shown[:8])}." if shown else ": none of its addressing properties are shown."))]
    method = (g("ipv4.method") or "").lower()
    house = bool(port) and bool(_HOUSE_PORT_RE.match(port))  # a Spark's RJ45 port or Wi-Fi: a router serves them
    state = g("GENERAL.STATE") or ""
    global6 = any(k.startswith("IP6.ADDRESS") and not str(v).lower().startswith("fe80") for k, v in props.items())
    external = (g("GENERAL.IS-EXTERNAL") or "").lower() == "yes" or bool(port and _OTHERS_PORT_RE.match(port))
    if method == "auto" and not house:
        findings.append((warn if twin and spark is not False else info)(
            "`ipv4.method auto`: the profile asks DHCP for its IPv4 address. A direct cable between two machines has no "
            "DHCP server, so it waits and gets none (`nmcli connection up` fails with `IP configuration could not be "
            "reserved`); `nmcli connection modify" + (f" '{name}'" if name else " <profile>") + " ipv4.method manual "
            "ipv4.addresses <address>/24` gives it one that comes back after a reboot."))
    if (g("ipv6.method") or "").lower() in ("auto", "dhcp") and (g("ipv6.may-fail") or "").lower() == "no" and not (
            "activated" in state and "deactivated" not in state and global6):  # (came up with its address: no matter)
        findings.append((warn if twin or (spark and not house) or (state and "activated" not in state) else info)(
            f"`ipv6.method {g('ipv6.method')}` with `ipv6.may-fail no`: the profile comes up only once IPv6 gets an "
            "address from a router or DHCPv6 server, which a direct cable between two machines does not have, so "
            "activation fails however its IPv4 is set; `ipv6.may-fail yes`, or `ipv6.method link-local` (or "
            "`disabled`), lets it come up."))
    if (g("connection.autoconnect") or "").lower() == "no" and external:
        findings.append(info(f"`connection.autoconnect no` on {port}: an interface another program made (Docker, "
                             "libvirt: NetworkManager shows it as external), which that program brings up; expected, "
                             "nothing to set."))
    elif (g("connection.autoconnect") or "").lower() == "no":
        findings.append(warn("`connection.autoconnect no`: the profile does not come up by itself, so after a reboot the "
                             "port has none of its addresses until someone runs `nmcli connection up`; `nmcli "
                             "connection modify " + (f"'{name}'" if name else "<profile>") + " connection.autoconnect yes`."))
    mtu = g("802-3-ethernet.mtu") or g("GENERAL.MTU")
    if twin and mtu and mtu.split()[0] in ("auto", "1500"):
        findings.append(info(f"MTU {mtu} on {port}: the port stays at 1500, as in NVIDIA's playbook; the {JUMBO_GUIDES} "
                             f"set {JUMBO_MTU} on each twin of both Sparks (`ethernet.mtu {JUMBO_MTU}` in a profile)."))
    if "unavailable" in state:
        findings.append(info(f"{port or 'The device'} is `{state}`: no carrier on a wired port (no cable, the far end "
                             "down), so no profile comes up on it; `ip link` (NO-CARRIER) decides."))
    return {"properties": dict(props)}, findings
