"""Lesson-1 parsers on real outputs (shared/fixtures/real, tests/fixtures/captured) and
on noisy variants of them (prompts, CRLF, ANSI codes, indentation, reordering, cut-offs)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from grader.parsers import (ParseError, parse_ethtool, parse_ibdev2netdev, parse_ip_addr,
                            parse_ip_route_get, parse_ip_route_get_all, parse_iperf3,
                            parse_netplan, parse_ping)
from grader.parsers.common import (clean_lines, command_argv, content_lines, parse_prompt,
                                   split_chunks, split_sections)
from grader import spark_names
from tests.conftest import real_fixtures_root

CAPTURED = Path(__file__).resolve().parent / "fixtures" / "captured"


def real_dir() -> Path:
    """The real fixtures' folder (tests/conftest.py); skip when absent."""
    root = real_fixtures_root()
    if not root.is_dir():
        pytest.skip(f"real fixtures not found at {root} (set CLUSTERLAB_FIXTURES to their folder)")
    return root


def real(name: str) -> str:
    """The text of one real fixture, by file name prefix under spark/ or a path under real/."""
    root = real_dir()
    if "/" in name:
        return (root / name).read_text()
    matches = sorted((root / "spark").glob(f"{name}*"))
    if not matches:
        pytest.skip(f"fixture spark/{name}* not found under {root}")
    return matches[0].read_text()


def captured(name: str) -> str:
    return (CAPTURED / f"{name}.txt").read_text()


def body(text: str) -> str:
    """The fixture without its `#` header lines."""
    return "\n".join(x for x in text.splitlines() if not x.startswith("#"))


def noisy(text: str) -> str:
    """CRLF line ends, colour codes, a sudo prompt and markdown indentation."""
    lines = ["```", "[sudo] password for nvidia:"]
    lines += ["    " + x.replace("UP", "\x1b[32mUP\x1b[0m", 1) for x in text.splitlines()]
    lines += ["```", ""]
    return "\r\n".join(lines)


# --------------------------------------------------------------------------- common

def test_parse_error_reads_well():
    err = ParseError("ethtool", "bad value", "xyz", 3)
    assert str(err) == "could not read `ethtool` output at line 3 ('xyz'): bad value"
    assert str(ParseError("ping", "no output")) == "could not read `ping` output: no output"
    assert isinstance(err, ValueError)


def test_clean_lines_strips_transport_noise():
    text = "\x1b]0;nvidia@spark-a: ~\x07\x1b[01;32mnvidia@spark-a\x1b[00m:~$ ip a\r\n\tSpeed: 1\xa0x\r\nlast"
    assert clean_lines(text) == ["nvidia@spark-a:~$ ip a", "\tSpeed: 1 x", "last"]
    assert clean_lines(b"a\rb\n") == ["a", "b"]


@pytest.mark.parametrize("line, command, host", [
    ("nvidia@spark-a:~$ sudo ethtool enp1s0f1np1 | grep Speed", "sudo ethtool enp1s0f1np1 | grep Speed", "spark-a"),
    ("root@spark-b:/etc/netplan# cat 40-cx7.yaml", "cat 40-cx7.yaml", "spark-b"),
    ("(venv) nvidia@spark-a:~/x$ ping -c2 10.0.0.2", "ping -c2 10.0.0.2", "spark-a"),
    ("[nvidia@spark-a ~]$ ibdev2netdev", "ibdev2netdev", "spark-a"),
    ("me@mac ~ % ping 1.2.3.4", "ping 1.2.3.4", "mac"),
    ("$ ip -br addr", "ip -br addr", None),
    ("    $ ip -br addr", "ip -br addr", None),
    ("# ip addr show enp1s0f1np1", "ip addr show enp1s0f1np1", None),
    ("# command: ip -j addr", "ip -j addr", None),
    ("nvidia@spark-a:~$", "", "spark-a"),
    ("!ibdev2netdev", "ibdev2netdev", None),
    ("In [3]: !ip -br addr", "ip -br addr", None),
    # two environments' prefixes (ray-project/ray#45179), cmd.exe (esnet/iperf#636), a Red Hat prompt cut at `~]#`
    ("(env) (base) [user@raynode-1 ray-vllm]$ python -m vllm.entrypoints.openai.api_server --model m",
     "python -m vllm.entrypoints.openai.api_server --model m", "raynode-1"),
    ("C:\\>iperf3 -d -s -B 10.60.7.222", "iperf3 -d -s -B 10.60.7.222", None),
    (" ~]# iperf3 -s -p 5101", "iperf3 -s -p 5101", None),
])
def test_prompts_are_recognised(line, command, host):
    prompt = parse_prompt(line)
    assert prompt is not None and prompt.command == command and prompt.host == host


@pytest.mark.parametrize("line", ["# notes: first pair = bad", "# --- A ---", "#", "Speed: 1000Mb/s",
                                  "C:\\Users\\me> ", "[rank0]# 12 done", "x = a[1]# comment",
                                  "# commands in source: ip -br addr ; ibdev2netdev", "$5 is the price"])
def test_non_prompts_are_not_prompts(line):
    assert parse_prompt(line) is None


def test_command_argv_unwraps_sudo_pipes_and_wrappers():
    assert command_argv("sudo ethtool enp1s0f1np1 | grep Speed") == ["ethtool", "enp1s0f1np1"]
    assert command_argv("sudo -u nvidia env A=1 /usr/sbin/ip -j addr 2>&1") == ["ip", "-j", "addr"]
    assert command_argv("ip netns exec spark-a ping -c2 10.0.0.2") == ["ping", "-c2", "10.0.0.2"]
    assert command_argv("ssh -p 22 spark-b ibdev2netdev") == ["ibdev2netdev"]
    assert command_argv("echo 'unbalanced") == ["echo", "'unbalanced"]
    assert command_argv(None) == []


def test_split_sections_at_prompts_keeps_preamble_comments_with_first_prompt():
    chunks = split_chunks(real("05"))
    assert [c.command for c in chunks] == ["sudo ethtool enp1s0f1np1 | grep Speed",
                                          "sudo ethtool enP2p1s0f1np1 | grep Speed"] * 2
    assert chunks[0].lines[0].startswith("# source:")
    assert all(c.host == "spark-a" for c in chunks)
    pairs = split_sections("intro line\n$ ip a\nout\n")
    assert pairs == [(None, ["intro line"]), ("ip a", ["out"])]


def test_content_lines_tracks_prompt_groups():
    lines = content_lines("# c\n$ a\nx\n\n$ b\ny\n")
    assert [(x.text, x.command, x.group) for x in lines] == [("x", "a", 1), ("y", "b", 2)]


# --------------------------------------------------------------------------- spark_names

def test_spark_names():
    assert spark_names.QSFP_TWINS == {0: ("enp1s0f0np0", "enP2p1s0f0np0"), 1: ("enp1s0f1np1", "enP2p1s0f1np1")}
    assert spark_names.HOUSE_INTERFACE == "enP7s7"
    assert [spark_names.qsfp_port(n) for n in ("enp1s0f0np0", "enP2p1s0f1np1", "enP7s7", "eth0")] == [0, 1, None, None]
    assert spark_names.twin_domain("enp1s0f1np1") == "0000"
    assert spark_names.twin_domain("enP2p1s0f0np0") == "0002"
    assert spark_names.twin_domain("enP7s7") is None
    assert spark_names.rdma_device_for("enp1s0f1np1") == "rocep1s0f1"
    assert spark_names.rdma_device_for("enP2p1s0f0np0") == "roceP2p1s0f0"
    assert spark_names.rdma_device_for("enP7s7") is None
    assert spark_names.is_qsfp_twin("enP2p1s0f1np1") and not spark_names.is_qsfp_twin("enP7s7")
    assert spark_names.other_twin("enp1s0f1np1") == "enP2p1s0f1np1"


# --------------------------------------------------------------------------- ip addr

def test_ip_addr_fixture_04_static_and_link_local():
    (_, a), (_, b) = split_sections(real("04"))
    [ia], [ib] = parse_ip_addr("\n".join(a)), parse_ip_addr("\n".join(b))
    for iface in (ia, ib):
        assert (iface.name, iface.ifindex, iface.mtu, iface.operstate) == ("enp1s0f1np1", 4, 1500, "UP")
        assert iface.flags == ("BROADCAST", "MULTICAST", "UP", "LOWER_UP") and iface.is_up
        assert iface.mac == "02:00:00:00:00:01"
        assert iface.addresses[1].cidr == "fe80::ff:fe00:1/64" and iface.addresses[1].scope == "link"
    static, = ia.ipv4
    assert (static.cidr, static.prefixlen, static.scope, static.label) == ("192.168.100.10/24", 24, "global", "enp1s0f1np1")
    assert static.noprefixroute and not static.dynamic and not static.is_link_local
    ll, = ib.ipv4
    assert (ll.cidr, ll.prefixlen, ll.scope) == ("169.254.35.62/16", 16, "link") and ll.is_link_local


def test_ip_br_addr_fixture_11_with_metric():
    lines = [x for x in real("11").splitlines() if not x.startswith("#")][:5]
    ifaces = parse_ip_addr("\n".join(lines))
    got = [(i.name, i.operstate, i.is_up, [a.cidr for a in i.addresses], i.mtu) for i in ifaces]
    assert got == [("enP7s7", "UP", True, ["172.31.0.100/23"], None),
                   ("enp1s0f0np0", "UP", True, ["172.31.5.1/29"], None),
                   ("enp1s0f1np1", "DOWN", False, [], None),
                   ("enP2p1s0f0np0", "UP", True, ["172.31.5.9/29"], None),
                   ("enP2p1s0f1np1", "DOWN", False, [], None)]


def test_ip_addr_fixture_11_whole_names_the_foreign_line():
    with pytest.raises(ParseError) as err:
        parse_ip_addr(real("11"))
    assert "rocep1s0f0 port 1 ==> enp1s0f0np0 (Up)" in str(err.value) and err.value.lineno == 9


def test_ip_addr_h200_command_not_found():
    with pytest.raises(ParseError, match="command not found"):
        parse_ip_addr(real("h200x2/ip-j-addr.txt"))


EXPECTED_NS = [  # what every captured ip shape of namespace clp-a must give
    ("lo", 65536, "UNKNOWN", ["127.0.0.1/8", "::1/128"], "00:00:00:00:00:00"),
    ("enp1s0f1np1", 9000, "UP", ["192.168.100.10/24", "fe80::ff:fe00:a/64"], "02:00:00:00:00:0a"),
    ("enP2p1s0f1np1", 9000, "UP", ["192.168.101.10/24", "fe80::ff:fe00:10a/64"], "02:00:00:00:01:0a"),
]


@pytest.mark.parametrize("name, has_mtu, has_addrs, has_mac", [
    ("ip_j_addr", True, True, True), ("ip_j_p_addr", True, True, True), ("ip_j_d_addr", True, True, True),
    ("ip_addr", True, True, True), ("ip_br_addr", False, True, False), ("ip_j_link", True, False, True),
    ("ip_link", True, False, True), ("ip_br_link", False, False, True),
])
def test_ip_addr_captured_shapes_agree(name, has_mtu, has_addrs, has_mac):
    ifaces = parse_ip_addr(captured(name))
    assert [i.name for i in ifaces] == [e[0] for e in EXPECTED_NS]
    for iface, (_, mtu, state, addrs, mac) in zip(ifaces, EXPECTED_NS):
        assert iface.operstate == state
        assert iface.mtu == (mtu if has_mtu else None)
        assert [a.cidr for a in iface.addresses] == (addrs if has_addrs else [])
        assert iface.addresses_listed == has_addrs
        assert iface.mac == (mac if has_mac else None)
    if has_mtu:
        assert [i.ifindex for i in ifaces] == [1, 23, 25]
    assert ifaces[1].is_up and ifaces[2].is_up


def test_ip_addr_veth_kind_and_scopes():
    ifaces = parse_ip_addr(captured("ip_j_d_addr"))
    assert [i.link_kind for i in ifaces] == [None, "veth", "veth"]
    assert [a.scope for a in ifaces[1].addresses] == ["global", "link"]
    assert [a.scope for a in parse_ip_addr(captured("ip_br_addr"))[0].addresses] == ["host", "host"]


def test_ip_4_addr_show_single_interface():
    [iface] = parse_ip_addr(captured("ip_4_addr_show"))
    assert (iface.name, iface.mtu, [a.cidr for a in iface.addresses], iface.mac) == \
        ("enp1s0f1np1", 9000, ["192.168.100.10/24"], None)


def test_ip_addr_noisy_variants_read_the_same():
    clean = parse_ip_addr(captured("ip_addr"))
    assert parse_ip_addr(noisy(body(captured("ip_addr")))) == clean
    prompted = "nvidia@spark-a:~$ ip addr\n" + body(captured("ip_addr")) + "\nnvidia@spark-a:~$ "
    assert parse_ip_addr(prompted) == clean
    assert parse_ip_addr(noisy(captured("ip_j_p_addr"))) == parse_ip_addr(captured("ip_j_p_addr"))
    brief = body(captured("ip_br_addr")).splitlines()
    assert {i.name for i in parse_ip_addr("\n".join(reversed(brief)))} == {i.name for i in clean}


def test_ip_addr_colour_output_of_ip_c():
    text = ("4: \x1b[36menp1s0f1np1: \x1b[0m<BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state "
            "\x1b[32mUP \x1b[0mgroup default qlen 1000\n    link/ether \x1b[33m02:00:00:00:00:01\x1b[0m brd "
            "ff:ff:ff:ff:ff:ff\n    inet \x1b[35m192.168.100.10\x1b[0m/24 scope global enp1s0f1np1\n")
    [iface] = parse_ip_addr(text)
    assert (iface.name, iface.operstate, iface.mtu, iface.ipv4[0].cidr) == ("enp1s0f1np1", "UP", 9000, "192.168.100.10/24")


def test_ip_j_addr_cut_off_keeps_complete_interfaces():
    text = captured("ip_j_addr")
    cut = text.index('"local":"192.168.101.10"') + 5
    ifaces = parse_ip_addr(text[:cut])
    assert [i.name for i in ifaces] == ["lo", "enp1s0f1np1", "enP2p1s0f1np1"]
    assert [i.truncated for i in ifaces] == [False, False, True]
    assert [a.cidr for a in ifaces[1].addresses] == ["192.168.100.10/24", "fe80::ff:fe00:a/64"]
    assert ifaces[2].addresses == ()  # the address entry itself was cut
    with pytest.raises(ParseError, match="cut off"):
        parse_ip_addr('[{"ifindex":1,"ifname":"l')


def test_ip_addr_text_cut_mid_address():
    text = body(captured("ip_addr"))
    ifaces = parse_ip_addr(text[: text.index("192.168.101.10/24") + 9])
    assert ifaces[-1].name == "enP2p1s0f1np1" and ifaces[-1].truncated
    assert not ifaces[1].truncated


def test_ip_addr_errors():
    with pytest.raises(ParseError, match='Device "enp1s0f0np0" does not exist'):
        parse_ip_addr(captured("ip_addr_show_missing"))
    with pytest.raises(ParseError, match="command not found"):
        parse_ip_addr("nvidia@spark-a:~$ ip a\nbash: ip: command not found\n")
    with pytest.raises(ParseError, match="no output"):
        parse_ip_addr("# nothing\n\n")
    with pytest.raises(ParseError) as err:
        parse_ip_addr("hello world\nmore")
    assert err.value.lineno == 1 and err.value.line == "hello world"
    with pytest.raises(ParseError, match="invalid JSON") as err:
        parse_ip_addr('[{"ifname": "a",, "mtu": 1}, {"ifname": "b"}]\n')
    assert err.value.lineno == 1


# --------------------------------------------------------------------------- ip route get

def test_ip_route_get_text_json_and_via():
    direct = parse_ip_route_get(captured("ip_route_get"))
    assert direct == parse_ip_route_get(captured("ip_j_route_get"))
    assert (direct.dst, direct.dev, direct.src, direct.via) == ("192.168.100.11", "enp1s0f1np1", "192.168.100.10", None)
    via = parse_ip_route_get(captured("ip_route_get_via"))
    assert (via.dst, via.dev, via.src, via.via) == ("192.168.102.11", "enP2p1s0f1np1", "192.168.101.10", "192.168.101.1")
    assert parse_ip_route_get(noisy(body(captured("ip_route_get")))) == direct
    local = parse_ip_route_get("local 127.0.0.1 dev lo table local src 127.0.0.1 uid 1000\n    cache <local>")
    assert (local.dst, local.dev, local.src) == ("127.0.0.1", "lo", "127.0.0.1")
    assert len(parse_ip_route_get_all("10.0.0.2 dev a src 10.0.0.1\n    cache\n10.0.1.2 dev b src 10.0.1.1\n")) == 2


def test_ip_route_get_unreachable():
    with pytest.raises(ParseError, match="Network is unreachable"):
        parse_ip_route_get(captured("ip_route_get_unreachable"))
    with pytest.raises(ParseError):
        parse_ip_route_get("nonsense here")


# --------------------------------------------------------------------------- ibdev2netdev

FIXTURE_01 = {("roceP2p1s0f0", 1, "enP2p1s0f0np0", "Down"), ("roceP2p1s0f1", 1, "enP2p1s0f1np1", "Up"),
              ("rocep1s0f0", 1, "enp1s0f0np0", "Down"), ("rocep1s0f1", 1, "enp1s0f1np1", "Up")}


def _tuples(result):
    return {(m.rdma_device, m.port, m.netdev, m.state) for m in result.mappings}


def test_ibdev2netdev_fixture_01():
    result = parse_ibdev2netdev(real("01"))
    assert _tuples(result) == FIXTURE_01 and len(result.mappings) == 4
    assert not result.simulated and not result.truncated
    assert set(result.up_netdevs) == {"enp1s0f1np1", "enP2p1s0f1np1"}
    assert result.by_netdev("enp1s0f0np0").state == "Down"


def test_ibdev2netdev_fixture_11_lines():
    lines = [x for x in real("11").splitlines() if "==>" in x]
    result = parse_ibdev2netdev("\n".join(lines))
    assert _tuples(result) == {("rocep1s0f0", 1, "enp1s0f0np0", "Up"), ("rocep1s0f1", 1, "enp1s0f1np1", "Down"),
                               ("roceP2p1s0f0", 1, "enP2p1s0f0np0", "Up"), ("roceP2p1s0f1", 1, "enP2p1s0f1np1", "Down")}


def test_ibdev2netdev_order_noise_and_simulated():
    lines = [x for x in real("01").splitlines() if "==>" in x]
    random.Random(1).shuffle(lines)
    text = "# simulated by clusterlab (no RDMA on this kernel)\n" + noisy("\n".join(lines))
    result = parse_ibdev2netdev(text)
    assert _tuples(result) == FIXTURE_01 and result.simulated


def test_chatter_between_command_and_output_is_skipped():
    text = ("nvidia@spark-a:~$ sudo ibdev2netdev\nsudo: unable to resolve host spark-a: Name or service not known\n"
            + body(real("01")))
    assert _tuples(parse_ibdev2netdev(text)) == FIXTURE_01
    with pytest.raises(ParseError, match="command not found"):
        parse_ibdev2netdev("$ sudo ibdev2netdev\nsudo: ibdev2netdev: command not found\n")


def test_ibdev2netdev_other_shapes():
    result = parse_ibdev2netdev(
        "0000:01:00.1 rocep1s0f1 (MT4129 - 900-9X81Q-00CN-ST0) ConnectX-7 fw 28.45.4028 port 1 (ACTIVE) ==> enp1s0f1np1 (Up)\n"
        "mlx5_0 port 1 ==> ib0 (Up)\n")
    assert _tuples(result) == {("rocep1s0f1", 1, "enp1s0f1np1", "Up"), ("mlx5_0", 1, "ib0", "Up")}


def test_ibdev2netdev_cut_and_bad_lines():
    text = body(real("01")) + "\nrocep1s0f0 port 1 ==> enp1"
    result = parse_ibdev2netdev(text)
    assert result.truncated and len(result.mappings) == 4
    with pytest.raises(ParseError) as err:
        parse_ibdev2netdev("rocep1s0f1 port 1 ==> enp1s0f1np1 (Up)\nsomething else\nrocep1s0f0 port 1 ==> x (Up)")
    assert err.value.line == "something else" and err.value.lineno == 2
    with pytest.raises(ParseError, match="command not found"):
        parse_ibdev2netdev("$ ibdev2netdev\nbash: ibdev2netdev: command not found")
    with pytest.raises(ParseError, match="no `<rdma>"):
        parse_ibdev2netdev("$ ibdev2netdev\n")


# --------------------------------------------------------------------------- ethtool

def test_ethtool_fixture_05_four_speed_excerpts():
    got = [(r.interface, r.speed_mbps) for r in parse_ethtool(real("05"))]
    assert got == [("enp1s0f1np1", 100000), ("enP2p1s0f1np1", 100000),
                   ("enp1s0f1np1", 200000), ("enP2p1s0f1np1", 200000)]


def test_ethtool_fixture_05_noisy():
    got = [(r.interface, r.speed_mbps) for r in parse_ethtool(noisy(real("05")))]
    assert got == [("enp1s0f1np1", 100000), ("enP2p1s0f1np1", 100000),
                   ("enp1s0f1np1", 200000), ("enP2p1s0f1np1", 200000)]


def test_ethtool_full_output_captured():
    [r] = parse_ethtool(captured("ethtool_veth"))
    assert (r.interface, r.speed_mbps, r.duplex, r.auto_negotiation, r.link_detected, r.port) == \
        ("enp1s0f1np1", 10000, "Full", False, True, "Twisted Pair")


def test_ethtool_several_blocks_unknown_speed_and_harmless_errors():
    text = ("Settings for enp1s0f0np0:\n\tSupported link modes:   200000baseCR4/Full\n"
            "\t                        100000baseCR4/Full\n\tSpeed: Unknown!\n\tDuplex: Unknown! (255)\n"
            "\tAuto-negotiation: on\n\tPort: Direct Attach Copper\n"
            "Cannot get wake-on-lan settings: Operation not permitted\n"
            "\tCurrent message level: 0x00000004 (4)\n\t\t\t       link\n\tLink detected: no\n"
            "Settings for enp1s0f1np1:\n\tSpeed: 200000Mb/s\n\tDuplex: Full\n\tLink detected: yes\n")
    a, b = parse_ethtool(text)
    assert (a.interface, a.speed_mbps, a.duplex, a.auto_negotiation, a.link_detected, a.port) == \
        ("enp1s0f0np0", None, None, True, False, "Direct Attach Copper")
    assert (b.interface, b.speed_mbps, b.link_detected) == ("enp1s0f1np1", 200000, True)


def test_ethtool_grep_without_prompt_and_repeated_keys():
    reports = parse_ethtool("\tSpeed: 200000Mb/s\n\tSpeed: 100000Mb/s\n")
    assert [(r.interface, r.speed_mbps) for r in reports] == [(None, 200000), (None, 100000)]


def test_ethtool_errors():
    with pytest.raises(ParseError, match="No such device"):
        parse_ethtool(captured("ethtool_missing"))
    with pytest.raises(ParseError, match="Cannot get device settings"):
        parse_ethtool("$ ethtool eth9\nCannot get device settings: No such device\n")
    with pytest.raises(ParseError, match="no settings"):
        parse_ethtool("$ ethtool -i enp1s0f1np1\nversion: 24.10\n")
    [driver] = parse_ethtool("$ ethtool -i enp1s0f1np1\ndriver: mlx5_core\nversion: 24.10\nbus-info: 0000:01:00.1\n")
    assert (driver.interface, driver.driver, driver.bus_info, driver.speed_shown) == \
        ("enp1s0f1np1", "mlx5_core", "0000:01:00.1", False)  # `ethtool -i`: the driver, no link settings
    with pytest.raises(ParseError) as err:
        parse_ethtool("Settings for x:\n\tSpeed: fast\n")
    assert err.value.lineno == 2


# --------------------------------------------------------------------------- ping

@pytest.mark.parametrize("name, dest, payload, tx, rx, loss, avg, errors, ok, mtu", [
    ("ping_jumbo_ok", "192.168.100.11", 8972, 2, 2, 0.0, 0.087, (), True, None),
    ("ping_small_ok", "192.168.100.11", 56, 2, 2, 0.0, 0.075, (), True, None),
    ("ping_local_mtu1500", "192.168.101.10", 8972, 2, 0, 100.0, None,
     ("ping: local error: message too long, mtu=1500",), False, 1500),
    ("ping_frag_needed", "192.168.102.11", 8972, 2, 0, 100.0, None,
     ("From 192.168.101.1 Frag needed and DF set (mtu = 1500)", "ping: local error: message too long, mtu=1500"),
     False, 1500),
    ("ping_peer_mtu1500_loss", "192.168.100.11", 8972, 2, 0, 100.0, None,
     ("ping: sendmsg: No buffer space available",), False, None),
])
def test_ping_captured(name, dest, payload, tx, rx, loss, avg, errors, ok, mtu):
    r = parse_ping(captured(name))
    assert (r.destination, r.payload_bytes, r.transmitted, r.received, r.loss_percent) == (dest, payload, tx, rx, loss)
    assert r.rtt_avg_ms == avg and r.errors == errors and r.ok is ok and r.path_mtu == mtu
    assert not r.truncated
    assert parse_ping(noisy(captured(name))) == r


def test_ping_busybox_macos_and_sendmsg_shapes():
    bb = parse_ping("PING 10.0.0.2 (10.0.0.2): 56 data bytes\n64 bytes from 10.0.0.2: seq=0 ttl=64 time=0.100 ms\n\n"
                    "--- 10.0.0.2 ping statistics ---\n1 packets transmitted, 1 packets received, 0% packet loss\n"
                    "round-trip min/avg/max = 0.100/0.100/0.100 ms\n")
    assert (bb.destination, bb.payload_bytes, bb.received, bb.rtt_avg_ms, bb.ok) == ("10.0.0.2", 56, 1, 0.1, True)
    mac = parse_ping("PING 10.0.0.2 (10.0.0.2): 8972 data bytes\nping: sendto: Message too long\n"
                     "Request timeout for icmp_seq 0\n\n--- 10.0.0.2 ping statistics ---\n"
                     "1 packets transmitted, 0 packets received, 100.0% packet loss\n")
    assert mac.mtu_error and not mac.ok and mac.loss_percent == 100.0
    msg = parse_ping("PING 10.0.0.2 (10.0.0.2) 8972(9000) bytes of data.\nping: sendmsg: Message too long\n")
    assert msg.mtu_error and msg.truncated and msg.transmitted is None


def test_ping_timestamps_and_duplicates():
    r = parse_ping("PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n"
                   "[1700000000.123456] 64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=0.2 ms\n"
                   "[1700000000.123999] 64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=0.3 ms (DUP!)\n"
                   "[1700000001.2] no answer yet for icmp_seq=2\n\n--- 10.0.0.2 ping statistics ---\n"
                   "2 packets transmitted, 1 received, +1 duplicates, 50% packet loss, time 1001ms\n"
                   "rtt min/avg/max/mdev = 0.2/0.25/0.3/0.05 ms, pipe 2\n")
    assert (r.transmitted, r.received, r.loss_percent, r.rtt_avg_ms, r.truncated) == (2, 1, 50.0, 0.25, False)


def test_ping_cut_off_counts_replies():
    text = body(captured("ping_jumbo_ok"))
    r = parse_ping(text[: text.index("--- ")])
    assert r.truncated and r.received == 2 and r.transmitted is None and r.ok
    r = parse_ping(text[: text.index("icmp_seq=2") + 4])  # cut inside the second reply line
    assert r.truncated and r.received == 1


def test_ping_errors():
    unreachable = parse_ping("$ ping -c2 10.9.9.9\nping: connect: Network is unreachable\n")
    assert unreachable.errors == ("ping: connect: Network is unreachable",) and not unreachable.ok
    assert not unreachable.truncated
    with pytest.raises(ParseError, match="command not found"):
        parse_ping("bash: ping: command not found")
    with pytest.raises(ParseError, match="second ping run"):
        parse_ping(body(captured("ping_jumbo_ok")) + "\n" + body(captured("ping_small_ok")))
    with pytest.raises(ParseError, match="no ping output"):
        parse_ping("# nothing here\n")
    with pytest.raises(ParseError) as err:
        parse_ping("PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\nbanana\nmore")
    assert err.value.line == "banana"


# --------------------------------------------------------------------------- iperf3

def test_iperf3_json_tcp_captured():
    r = parse_iperf3(captured("iperf3_json_tcp"))
    assert (r.protocol, r.streams, r.duration_s, r.retransmits, r.error, r.remote_host, r.truncated) == \
        ("TCP", 1, 1.000076, 1936, None, "192.168.100.11", False)
    assert r.sent_bps == 25370465316.635937 and r.received_bps == 25360245914.2071
    assert r.received_gbps == pytest.approx(25.3602459142071) and r.sent_gbps == pytest.approx(25.370465316635937)


def test_iperf3_json_four_streams_udp_and_errors():
    p4 = parse_iperf3(captured("iperf3_json_tcp_p4"))
    assert (p4.streams, p4.retransmits, p4.received_bps) == (4, 4, 21928171666.0618)
    udp = parse_iperf3(captured("iperf3_json_udp"))
    assert (udp.protocol, udp.retransmits, udp.sent_bps, udp.received_bps) == ("UDP", None, 999122160.462905, 978887957.047302)
    refused = parse_iperf3(captured("iperf3_json_refused"))
    assert refused.error == "unable to connect to server: Connection refused"
    assert refused.sent_bps is None and refused.received_bps is None
    killed = parse_iperf3(captured("iperf3_json_server_killed"))
    assert killed.error == "the server has terminated"
    assert killed.sent_bps == 36456272444.037384 and killed.received_bps == 0


def test_iperf3_json_after_prompt_noise_and_cut_off():
    text = "nvidia@spark-a:~$ iperf3 -J -c 192.168.100.11 -P 1\n[sudo] password for nvidia:\n" + body(captured("iperf3_json_tcp"))
    assert parse_iperf3(noisy(text)) == parse_iperf3(captured("iperf3_json_tcp"))
    full = body(captured("iperf3_json_tcp"))
    cut = parse_iperf3(full[: full.index('\n\t"end":')])  # intervals only, no end summary
    assert cut.truncated and cut.received_bps is None
    assert cut.sent_bps == pytest.approx(25370463908.004, rel=1e-9)  # the one interval's rate
    with pytest.raises(ParseError, match="not an iperf3 result"):
        parse_iperf3('{"foo": 1}')


def test_iperf3_json_stream_events():
    # shape of iperf3 >= 3.17 --json-stream (constructed: this machine's iperf3 3.12 lacks the option)
    text = ('{"event":"start","data":{"connecting_to":{"host":"10.0.0.2","port":5201},'
            '"test_start":{"protocol":"TCP","num_streams":8,"duration":10}}}\n'
            '{"event":"interval","data":{"sum":{"bits_per_second":9.0e10}}}\n'
            '{"event":"end","data":{"sum_sent":{"seconds":10.0,"bits_per_second":9.6e10,"retransmits":3},'
            '"sum_received":{"seconds":10.0,"bits_per_second":9.5e10}}}\n')
    r = parse_iperf3(text)
    assert (r.streams, r.remote_host, r.sent_bps, r.received_bps, r.retransmits, r.truncated) == \
        (8, "10.0.0.2", 9.6e10, 9.5e10, 3, False)
    cut = parse_iperf3("\n".join(text.splitlines()[:2]))
    assert cut.truncated and cut.sent_bps == 9.0e10 and cut.received_bps is None


def test_iperf3_old_udp_sum_only():
    text = ('{"start": {"test_start": {"protocol": "UDP", "num_streams": 1}}, "end": {"sum": '
            '{"seconds": 10, "bits_per_second": 1e9, "lost_percent": 10}}}')
    r = parse_iperf3(text)
    assert r.sent_bps == 1e9 and r.received_bps == pytest.approx(9e8) and r.duration_s == 10


def test_iperf3_text_captured():
    p4 = parse_iperf3(captured("iperf3_text_p4"))
    assert (p4.protocol, p4.streams, p4.duration_s, p4.sent_bps, p4.received_bps, p4.retransmits, p4.remote_host) == \
        ("TCP", 4, 1.0, 38.7e9, 38.7e9, 178, "192.168.100.11")
    one = parse_iperf3(captured("iperf3_text_single"))
    assert (one.streams, one.sent_bps, one.received_bps, one.retransmits) == (1, 24.0e9, 24.0e9, 1455)
    assert parse_iperf3(noisy(captured("iperf3_text_p4"))) == p4
    refused = parse_iperf3(captured("iperf3_text_refused"))
    assert refused.error == "unable to connect to server: Connection refused" and refused.sent_bps is None


def test_iperf3_text_units_udp_and_cut_off():
    text = ("[  5]   0.00-10.00  sec  1.16 GBytes   999 Mbits/sec  0.004 ms  0/139580 (0%)  sender\n"
            "[  5]   0.00-10.00  sec  1.16 GBytes   998 Mbits/sec  0.004 ms  12/139580 (0.01%)  receiver\n")
    r = parse_iperf3(text)
    assert (r.protocol, r.sent_bps, r.received_bps, r.retransmits) == ("UDP", 999e6, 998e6, None)
    kbit = parse_iperf3("[SUM]   0.00-1.00   sec  100 KBytes   819 Kbits/sec  0  sender\n")
    assert kbit.sent_bps == 819e3 and kbit.retransmits == 0
    lines = body(captured("iperf3_text_p4")).splitlines()
    cut = parse_iperf3("\n".join(lines[:11]))  # intervals of all four streams, no summary
    assert cut.truncated and cut.sent_bps == pytest.approx(38.7e9)
    with pytest.raises(ParseError, match="no iperf3 result"):
        parse_iperf3("Connecting to host 10.0.0.2, port 5201\n")


# --------------------------------------------------------------------------- netplan

NVIDIA_CURRENT = """\
network:
  version: 2
  ethernets:
    enp1s0f1np1:
      addresses:
        - 192.168.100.10/24
      dhcp4: no
    enP2p1s0f1np1:
      addresses:
        - 192.168.101.10/24
      dhcp4: no
"""

NVIDIA_LINK_LOCAL = """\
network:
  version: 2
  ethernets:
    enp1s0f0np0:
      link-local: [ ipv4 ]
    enp1s0f1np1:
      link-local: [ ipv4 ]
"""


def test_netplan_nvidia_current_file():
    cfg = parse_netplan("nvidia@spark-a:~$ sudo cat /etc/netplan/40-cx7.yaml\n" + NVIDIA_CURRENT)
    assert cfg.renderer is None and cfg.version == 2 and list(cfg.ethernets) == ["enp1s0f1np1", "enP2p1s0f1np1"]
    a = cfg.ethernets["enp1s0f1np1"]
    assert (a.addresses, a.dhcp4, a.mtu, a.link_local, a.optional) == (("192.168.100.10/24",), False, None, None, None)
    assert cfg.ethernets["enP2p1s0f1np1"].addresses == ("192.168.101.10/24",)
    assert parse_netplan(noisy(NVIDIA_CURRENT)) == cfg


def test_netplan_link_local_variant():
    cfg = parse_netplan(NVIDIA_LINK_LOCAL)
    assert {n: (i.addresses, i.link_local) for n, i in cfg.ethernets.items()} == \
        {"enp1s0f0np0": ((), ("ipv4",)), "enp1s0f1np1": ((), ("ipv4",))}


def test_netplan_mapping_addresses_mtu_renderer():
    cfg = parse_netplan("# oshlabs style\nnetwork:\n  version: 2\n  renderer: networkd\n  ethernets:\n"
                        "    enp1s0f0np0:\n      dhcp4: \"no\"\n      link-local: []\n      mtu: 9000\n"
                        "      optional: true\n      addresses:\n        - 172.31.5.1/29:\n"
                        "            lifetime: 0\n        - \"172.31.6.1/29\"\n")
    i = cfg.ethernets["enp1s0f0np0"]
    assert cfg.renderer == "networkd"
    assert (i.addresses, i.dhcp4, i.mtu, i.link_local, i.optional) == (("172.31.5.1/29", "172.31.6.1/29"), False, 9000, (), True)


def test_netplan_errors_carry_line_numbers():
    with pytest.raises(ParseError, match="invalid YAML") as err:
        parse_netplan("$ cat x.yaml\nnetwork:\n  ethernets:\n\tenp1s0f1np1: {}\n")
    assert err.value.lineno == 4
    with pytest.raises(ParseError, match="must be a list") as err:
        parse_netplan("network:\n  ethernets:\n    enp1s0f1np1:\n      addresses: 192.168.100.10/24\n")
    assert err.value.lineno == 4
    with pytest.raises(ParseError, match="Permission denied"):
        parse_netplan("$ cat /etc/netplan/40-cx7.yaml\ncat: /etc/netplan/40-cx7.yaml: Permission denied\n")
    with pytest.raises(ParseError, match="network:"):
        parse_netplan("ethernets: {}\n")


# --------------------------------------------------------------------------- robustness

PARSERS = [parse_ip_addr, parse_ip_route_get, parse_ibdev2netdev, parse_ethtool, parse_ping, parse_iperf3,
           parse_netplan]


def _all_texts() -> list[str]:
    texts = [p.read_text() for p in sorted(CAPTURED.glob("*.txt"))] + [NVIDIA_CURRENT, NVIDIA_LINK_LOCAL]
    root = real_fixtures_root()
    texts += [p.read_text() for p in sorted(root.glob("*/*.txt"))] if root.is_dir() else []
    return texts


def test_parsers_raise_only_parse_error_on_any_cut_or_shuffle():
    rng = random.Random(7)
    for text in _all_texts():
        variants = [text[: rng.randrange(len(text) + 1)] for _ in range(6)]
        lines = text.splitlines()
        rng.shuffle(lines)
        variants += ["\n".join(lines), text.replace("\n", "\r\n"), noisy(text), "\x00\x1b[" + text[::-1]]
        for variant in variants:
            for parser in PARSERS:
                try:
                    parser(variant)
                except ParseError:
                    pass


def test_ip_addr_with_an_address_that_is_no_ip_is_a_clear_error():
    """A mutated or hand-edited address (`-1.100.12`, `999.1.1.1`) is a ParseError naming it, never a ValueError
    later in the facts (the fuzzer found one in a sim recording of a switch of 4)."""
    bad = ('[{"ifindex":2,"ifname":"enp1s0f1np1","flags":["UP"],"mtu":9000,"operstate":"UP",'
           '"addr_info":[{"family":"inet","local":"-1.100.12","prefixlen":24}]}]')
    with pytest.raises(ParseError, match="'-1.100.12' in an addr_info is not an IP address"):
        parse_ip_addr(bad)
    text = ("2: enp1s0f1np1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 state UP\n"
            "    inet 999.1.1.1/24 scope global enp1s0f1np1\n    inet6 fe80::1/64 scope link\n")
    with pytest.raises(ParseError, match="'999.1.1.1' is not an IP address"):
        parse_ip_addr(text)


IFCONFIG_AWS = """(base) ubuntu@p5-st-p5-1:~$ ifconfig
enp105s0: flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 9001
        inet 10.1.46.161  netmask 255.255.128.0  broadcast 10.1.127.255
        inet6 fe80::14ca:49ff:fecc:33e3  prefixlen 64  scopeid 0x20<link>
        ether 16:ca:49:cc:33:e3  txqueuelen 1000  (Ethernet)
        RX packets 34982  bytes 1692318 (1.6 MB)
        RX errors 0  dropped 0  overruns 0  frame 0
        TX packets 36084  bytes 2058025 (2.0 MB)
        TX errors 0  dropped 0 overruns 0  carrier 0  collisions 0
"""
"""net-tools' ifconfig on an AWS p5 node, as posted in awslabs/awsome-distributed-ai#168 (review, 2024-02-28)."""

IFCONFIG_POD = """[root@sample-pod-4-5bddf8c4b4-hf49j /]# ifconfig
eth0: flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 1450
        inet 10.42.1.158  netmask 255.255.255.255  broadcast 0.0.0.0
        ether 8a:fa:35:00:00:01  txqueuelen 0  (Ethernet)
        RX packets 5  bytes 446 (446.0 B)
        RX errors 0  dropped 0  overruns 0  frame 0
        TX packets 0  bytes 0 (0.0 B)
        TX errors 0  dropped 0 overruns 0  carrier 0  collisions 0

lo: flags=73<UP,LOOPBACK,RUNNING>  mtu 65536
        inet 127.0.0.1  netmask 255.0.0.0
        loop  txqueuelen 1000  (Local Loopback)
        RX packets 0  bytes 0
"""
"""ifconfig in a Kubernetes pod, cut inside lo's counters (k8snetworkplumbingwg/sriov-network-operator#382; the
corpus's k008)."""


def test_ifconfig_is_read_as_ip_addr_reads_an_interface():
    """net-tools' ifconfig gives the Interfaces ip's output would: the netmask as a prefix length (255.255.128.0 has
    17 one bits, 255.255.255.255 32), inet6's prefixlen, the MAC, the MTU, UP with RUNNING as operstate UP and
    LOWER_UP; without RUNNING, DOWN and NO-CARRIER; a paste cut after an interface's first line marks it truncated
    (one cut among its counters, as the pod's, shows no sign of it)."""
    (aws,) = parse_ip_addr(IFCONFIG_AWS)
    assert (aws.name, aws.mtu, aws.operstate, aws.mac, aws.is_up) == ("enp105s0", 9001, "UP", "16:ca:49:cc:33:e3", True)
    assert [a.cidr for a in aws.addresses] == ["10.1.46.161/17", "fe80::14ca:49ff:fecc:33e3/64"]
    assert [a.scope for a in aws.addresses] == ["global", "link"] and "LOWER_UP" in aws.flags
    eth0, lo = parse_ip_addr(IFCONFIG_POD)
    assert eth0.ipv4[0].cidr == "10.42.1.158/32" and eth0.mtu == 1450 and not eth0.truncated
    assert (lo.name, lo.ipv4[0].cidr, lo.ipv4[0].scope, lo.truncated) == ("lo", "127.0.0.1/8", "host", False)
    assert parse_ip_addr(IFCONFIG_POD.split("        inet 127")[0])[1].truncated
    (dark,) = parse_ip_addr(IFCONFIG_AWS.replace("UP,BROADCAST,RUNNING,MULTICAST", "UP,BROADCAST,MULTICAST"))
    assert (dark.operstate, dark.is_up, "NO-CARRIER" in dark.flags) == ("DOWN", False, True)
    mac_os = "en0: flags=8863<UP,BROADCAST,SMART,RUNNING,SIMPLEX,MULTICAST> mtu 1500\n\tinet 192.168.1.5 netmask " \
             "0xffffff00 broadcast 192.168.1.255\n"
    assert parse_ip_addr(mac_os)[0].ipv4[0].cidr == "192.168.1.5/24"
    with pytest.raises(ParseError, match="netmask or prefixlen"):
        parse_ip_addr(IFCONFIG_AWS.replace("netmask 255.255.128.0", "netmask 255.0.255.0"))


IFCONFIG_OLD_IB = """\
ib0       Link encap:UNSPEC  HWaddr 80-00-00-68-FE-80-00-00-00-00-00-00-00-00-00-00
          inet addr:10.0.0.50  Bcast:10.0.0.255  Mask:255.255.255.0
          inet6 addr: fe80::526b:4b03:f5:ce9c/64 Scope:Link
          UP BROADCAST RUNNING MULTICAST  MTU:65520  Metric:1
          RX packets:2655 errors:0 dropped:0 overruns:0 frame:0
          TX packets:2697 errors:0 dropped:10 overruns:0 carrier:0
          collisions:0 txqueuelen:256
          RX bytes:183152 (183.1 KB)  TX bytes:194696 (194.6 KB)
"""
"""net-tools 1.60's `ifconfig ib0`, as rapidsai/cuml's wiki page "Using Infiniband for Multi-Node Multi-GPU cuML"
shows it (IPoIB, the address a person gave it with `ifconfig ib0 10.0.0.50/24`)."""


def test_old_ifconfig_is_read_as_ip_addr_reads_an_interface():
    """net-tools 1.60 (`Link encap:` headers, `inet addr:` with `Mask:`, the flags and `MTU:` on a line of their own):
    the same Interfaces as 2.x's format; an interface without UP in its flags line is DOWN, UP without RUNNING has
    no carrier; one whose flags line is not in the paste is cut short; 1.60's three-line IPoIB note is not output."""
    (ib0,) = parse_ip_addr("$ ifconfig ib0\n" + IFCONFIG_OLD_IB)
    assert (ib0.name, ib0.mtu, ib0.operstate, ib0.is_up, ib0.truncated) == ("ib0", 65520, "UP", True, False)
    assert [a.cidr for a in ib0.addresses] == ["10.0.0.50/24", "fe80::526b:4b03:f5:ce9c/64"]
    assert ib0.mac == "80:00:00:68:fe:80:00:00:00:00:00:00:00:00:00:00"
    down = IFCONFIG_OLD_IB.replace("UP BROADCAST RUNNING MULTICAST", "BROADCAST MULTICAST")
    dark = IFCONFIG_OLD_IB.replace("UP BROADCAST RUNNING MULTICAST", "UP BROADCAST MULTICAST")
    assert parse_ip_addr(down)[0].operstate == "DOWN" and "NO-CARRIER" not in parse_ip_addr(down)[0].flags
    assert (parse_ip_addr(dark)[0].operstate, "NO-CARRIER" in parse_ip_addr(dark)[0].flags) == ("DOWN", True)
    assert parse_ip_addr(IFCONFIG_OLD_IB.split("          UP BROADCAST")[0])[0].truncated
    noted = ("Ifconfig uses the ioctl access method to get the full address information, which limits hardware "
             "addresses to 8 bytes.\nBecause Infiniband address has 20 bytes, only the first 8 bytes are displayed "
             "correctly.\nIfconfig is obsolete! For replacement check ip.\n" + IFCONFIG_OLD_IB)
    assert parse_ip_addr(noted) == parse_ip_addr(IFCONFIG_OLD_IB)
    tun = ("tun0      Link encap:UNSPEC  HWaddr 00-00-00-00-00-00-00-00-00-00-00-00-00-00-00-00\n"
           "          inet addr:10.0.6.14  P-t-P:10.0.6.14  Mask:255.255.255.255\n"
           "          UP POINTOPOINT RUNNING NOARP MULTICAST  MTU:1500  Metric:1\n")
    assert [a.cidr for a in parse_ip_addr(tun)[0].addresses] == ["10.0.6.14/32"]


def test_ibdev2netdev_lines_with_a_persons_note_after_them():
    # imbue-ai's H100 write-up: `ibdev2netdev | column -t` annotated line by line
    text = ("$ ibdev2netdev | column -t\nmlx5_0   port  1  ==>  ibp26s0        (Down)  # CX-7 1/8 infiniband\n"
            "mlx5_1   port  1  ==>  enp27s0f0np0   (Up)    # CX-6 2/2 *ethernet* port 1/2\n")
    r = parse_ibdev2netdev(text)
    assert [(m.rdma_device, m.netdev, m.state) for m in r.mappings] == [("mlx5_0", "ibp26s0", "Down"),
                                                                         ("mlx5_1", "enp27s0f0np0", "Up")]


def test_ethtool_link_modes_over_their_continuation_lines():
    # geerlingguy/raspberry-pi-pcie-devices#364: an Aquantia 10GBASE-T card, cut before its Speed line
    text = ("$ sudo ethtool eth1\nSettings for eth1:\n\tSupported ports: [ TP ]\n"
            "\tAdvertised link modes:  10baseT/Full\n\t                        1000baseT/Full\n"
            "\t                        10000baseT/Full\n\t                        2500baseT/Full\n"
            "\tAdvertised auto-negotiation: Yes\n"
            "\tLink partner advertised link modes:  100baseT/Half 100baseT/Full\n"
            "\t                                     1000baseT/Full\n\t                                     10000baseT/Full\n")
    [r] = parse_ethtool(text)
    assert r.interface == "eth1" and not r.speed_shown
    assert r.advertised_modes == ("10baseT/Full", "1000baseT/Full", "10000baseT/Full", "2500baseT/Full")
    assert r.partner_modes == ("100baseT/Half", "100baseT/Full", "1000baseT/Full", "10000baseT/Full")
    assert r.common_top_mode_mbps == 10000


def test_iperf3_intervals_per_direction_and_retransmits():
    """parse_iperf3_intervals: each interval's total ([SUM] where there is one), per --bidir direction, and the Retr
    column per row; the end summary's sender/receiver rows are not intervals."""
    from grader.parsers.iperf3 import parse_iperf3_intervals
    p4 = parse_iperf3_intervals(captured("iperf3_text_p4"))
    assert p4.rates_gbps == {"": (38.7,)} and p4.retransmits == (80, 15, 39, 44)
    bidir = parse_iperf3_intervals(  # jeff geerling's Pi with an XG-C100C (field corpus c022), its first lines
        "[ ID][Role] Interval           Transfer     Bitrate         Retr  Cwnd\n"
        "[  5][TX-C]   0.00-1.00   sec   371 MBytes  3.11 Gbits/sec    0   1.17 MBytes       \n"
        "[  7][RX-C]   0.00-1.00   sec   152 MBytes  1.28 Gbits/sec                  \n"
        "[  5][TX-C]   1.00-2.00   sec   369 MBytes  3.09 Gbits/sec    0   1.29 MBytes       \n"
        "[  7][RX-C]   1.00-2.00   sec   160 MBytes  1.34 Gbits/sec                  \n"
        "[  5][TX-C]   1.00-1.20   sec    70 MBytes  2.90 Gbits/sec    0   1.29 MBytes       \n")  # cut short: left out
    assert bidir.rates_gbps == {"TX": (3.11, 3.09), "RX": (1.28, 1.34)} and bidir.retransmits == (0, 0, 0)
    assert parse_iperf3_intervals("nothing here\n").rates_gbps == {}
