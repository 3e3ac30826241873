"""NetworkManager's tables read by ``explain`` (grader.parsers.nmcli, grader.judges.nmcli) and its replies to
``nmcli connection add|up`` (checks/diagnoses.toml ``nmcli-*``). Real outputs: nmstate/nmstate#752 (a vagrant node whose
eth1 has no carrier), coreos/fedora-coreos-tracker#1383 (an Azure VM's ConnectX-5 VF), KoyoImai/dgx_spark_cluster (a
DGX Spark's `nmcli con up`, Japanese locale). The DGX Spark tables below are nmcli(1)'s tabular shape with the Spark's
interface names (NVIDIA's connect-two-sparks playbook): no real one was found in public threads."""

from __future__ import annotations

from grader.explain import explain
from grader.parsers.nmcli import parse_nmcli
from tests.conftest import field_entry


def _said(sections) -> list[tuple[str, str]]:
    return [(f.level, f.message) for s in sections for f in s.findings]


def test_a_device_without_carrier_and_the_profile_it_refused():
    """nmstate/nmstate#752: eth1 and eth2 `unavailable` in `nmcli d`; `nmcli c up` then fails with `No suitable device
    found`, whose cni0 wording is NetworkManager's walk over devices, not the cause."""
    sections = explain(field_entry("xh005"), host="other", nodes=1)
    kinds = [s.kind for s in sections]
    assert kinds.count("nmcli") == 2
    said = _said(sections)
    [unavailable] = [m for lvl, m in said if "are `unavailable`" in m]
    assert unavailable.startswith("eth1, eth2 are") and "carrier" in unavailable
    [failed] = [m for lvl, m in said if lvl == "fail"]
    assert "No suitable device found" in failed and "not the cause" in failed
    assert "cni0" not in unavailable  # cni0 is connected


def test_devices_all_connected_are_ok_and_profiles_counted():
    """coreos/fedora-coreos-tracker#1383: both ports connected, lo unmanaged: nothing to fix in the table itself."""
    sections = explain(field_entry("xh011"), host="other", nodes=1)
    [table] = [s for s in sections if s.kind == "nmcli"]
    assert [f.level for f in table.findings] == ["ok"]
    assert "enP35237s1 connected ('Wired Connection')" in table.findings[0].message


def test_columns_are_read_by_their_gaps_and_terse_rows_by_the_command():
    tables = parse_nmcli("$ nmcli -t -f DEVICE,STATE device\neth0:connected\nenp1s0f0np0:unavailable\n")
    assert [(d.device, d.state, d.connection) for d in tables.devices] == [("eth0", "connected", None),
                                                                           ("enp1s0f0np0", "unavailable", None)]
    text = ("DEVICE  TYPE      STATE                   CONNECTION\n"
            "enp2s0  ethernet  connected               netplan-enp2s0\n"
            "lo      loopback  connected (externally)  lo\n")
    tables = parse_nmcli(text)
    assert [(d.device, d.state, d.connection) for d in tables.devices] == [
        ("enp2s0", "connected", "netplan-enp2s0"), ("lo", "connected (externally)", "lo")]


SPARK_ONE_CABLE = """\
$ nmcli device
DEVICE         TYPE      STATE                                  CONNECTION
enP7s7         ethernet  connected                              Wired connection 1
enp1s0f1np1    ethernet  connecting (getting IP configuration)  Wired connection 3
enP2p1s0f1np1  ethernet  unmanaged                              --
enp1s0f0np0    ethernet  unavailable                            --
enP2p1s0f0np0  ethernet  unavailable                            --
lo             loopback  connected (externally)                 lo
"""


def test_a_spark_port_without_cable_is_expected_and_dhcp_on_the_other_is_a_warning():
    said = _said(explain(SPARK_ONE_CABLE, host="spark"))
    [port] = [m for _, m in said if m.startswith("QSFP port 0 has no link")]
    assert "port 1" in port and "expected with one cable" in port
    [(level, dhcp)] = [(lvl, m) for lvl, m in said if "waiting for an address" in m]
    assert level == "warn" and dhcp.startswith("enp1s0f1np1:") and "DHCP" in dhcp and "renderer: networkd" in dhcp
    [(level, managed)] = [(lvl, m) for lvl, m in said if m.startswith("NetworkManager manages")]
    assert level == "info" and "enp1s0f1np1 (profile 'Wired connection 3', QSFP port 1)" in managed
    assert any(lvl == "ok" and m.startswith("enP2p1s0f1np1: not managed") for lvl, m in said)
    assert not any("enP7s7" in m and "waiting" in m for _, m in said)


def test_no_port_lit_on_a_spark_is_a_warning_and_the_same_names_elsewhere_are_not_judged_by_port():
    dark = SPARK_ONE_CABLE.replace("connecting (getting IP configuration)  Wired connection 3",
                                   "unavailable                            --").replace(
        "unmanaged                              --", "unavailable                            --")
    said = _said(explain(dark, host="spark"))
    assert [lvl for lvl, m in said if m.startswith("No QSFP port has a link")] == ["warn"]
    said = _said(explain(dark, host="other"))
    assert not any("QSFP" in m for _, m in said)
    assert [lvl for lvl, m in said if "`unavailable`" in m] == ["info"]


def test_the_replies_of_nmcli_connection_up_are_read_in_any_locale():
    """KoyoImai/dgx_spark_cluster README (corpus j001): `nmcli con up` answered in Japanese, the D-Bus path kept."""
    said = _said(explain(field_entry("j001"), host="spark"))
    assert any(lvl == "info" and m.startswith("NetworkManager brought the profile up") for lvl, m in said)


def test_unmanaged_and_external_twins_are_neither_lit_nor_managed():
    """Break-it review (session 38): NetworkManager says nothing of an unmanaged port's carrier, and twins
    `connected (externally)` are another tool's (networkd), not NetworkManager's."""
    table = SPARK_ONE_CABLE.replace("connecting (getting IP configuration)  Wired connection 3",
                                    "connected (externally)                 enp1s0f1np1")
    said = _said(explain(table, host="spark"))
    [port] = [m for _, m in said if m.startswith("QSFP port 0 has no link")]
    assert "does not manage port 1" in port and "expected with one cable" not in port
    assert not any(m.startswith("NetworkManager manages") for _, m in said)
    [(level, external)] = [(lvl, m) for lvl, m in said if "connected (externally)`" in m]
    assert level == "info" and "networkd" in external


def test_a_connectx_on_bus_1_is_no_spark_by_its_name_alone():
    """Break-it review (session 38): `enp1s0f0np0` names a ConnectX on PCI bus 1 of many hosts; without a twin on
    domain 0002 or the Spark's RJ45 (or --host spark), no QSFP or course note is said."""
    text = ("$ nmcli d\nDEVICE       TYPE        STATE         CONNECTION\neno1         ethernet    connected     eno1\n"
            "enp1s0f0np0  ethernet    connected     ens-cx6-a\nenp1s0f1np1  ethernet    disconnected  --\n")
    said = _said(explain(text))
    assert not any("QSFP" in m or "course" in m for _, m in said)
    assert any(m.startswith("enp1s0f1np1: no profile active") for _, m in said)


PROFILE = """\
$ nmcli connection show 'Wired connection 3'
connection.id:                          Wired connection 3
connection.interface-name:              enp1s0f1np1
connection.autoconnect:                 no
802-3-ethernet.mtu:                     auto
ipv4.method:                            auto
ipv4.addresses:                         --
ipv6.method:                            auto
ipv6.may-fail:                          yes
"""


def test_a_profile_that_asks_dhcp_on_a_twin_and_does_not_autoconnect():
    """nmcli(1)'s `connection show NAME` shape (key, padding, value; `--` empty) with a Spark twin's name: DHCP on the
    direct cable warns, so does autoconnect off; MTU auto is the playbook's 1500, a note."""
    said = _said(explain(PROFILE, host="spark"))
    assert said[0][0] == "info" and said[0][1].startswith("NetworkManager profile 'Wired connection 3' on enp1s0f1np1")
    assert [lvl for lvl, m in said if m.startswith("`ipv4.method auto`")] == ["warn"]
    assert [lvl for lvl, m in said if m.startswith("`connection.autoconnect no`")] == ["warn"]
    assert [lvl for lvl, m in said if m.startswith("MTU auto on enp1s0f1np1")] == ["info"]
    assert not any("may-fail" in m for _, m in said)  # may-fail yes: IPv6 may fail


def test_a_static_profile_elsewhere_is_said_and_its_dhcp_is_a_note():
    static = PROFILE.replace("ipv4.method:                            auto",
                             "ipv4.method:                            manual").replace(
        "ipv4.addresses:                         --", "ipv4.addresses:                         192.168.100.10/24")
    said = _said(explain(static.replace("autoconnect:                 no", "autoconnect:                 yes"),
                         host="spark"))
    assert [lvl for lvl, _ in said] == ["info", "info"]  # the summary, MTU auto
    said = _said(explain(PROFILE.replace("enp1s0f1np1", "eth1"), host="other"))
    assert [lvl for lvl, m in said if m.startswith("`ipv4.method auto`")] == ["info"]
