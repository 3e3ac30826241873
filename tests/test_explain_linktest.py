"""iperf3's server side, a command's first unclaimed lines, and ip addr's state UNKNOWN, as the field pastes them
(issue 27).

Samples are quoted from public threads (URL above each); the figures asserted are worked out by hand.
"""

from __future__ import annotations

from grader.explain import explain
from grader.parsers.iperf3 import parse_iperf3

# https://github.com/esnet/iperf/issues/408: the server's side, cut after its `sender 0.00 Bytes` row
SERVER_CUT = """\
 ~]# iperf3 -s -p 5101
-----------------------------------------------------------
Server listening on 5101
-----------------------------------------------------------
Accepted connection from 192.168.110.95, port 45420
[  5] local 192.168.110.94 port 5101 connected to 192.168.110.95 port 45424
[ ID] Interval           Transfer     Bandwidth
[  5]   0.00-1.00   sec   375 MBytes  3.14 Gbits/sec
[  5]   1.00-2.00   sec   392 MBytes  3.29 Gbits/sec
[  5]   2.00-3.00   sec   397 MBytes  3.33 Gbits/sec
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bandwidth
[  5]   0.00-10.04  sec  0.00 Bytes  0.00 bits/sec                  sender
"""


def test_server_side_cut_after_its_zero_sender_row_reads_the_intervals():
    r = parse_iperf3(SERVER_CUT)
    # (3.14 + 3.29 + 3.33) / 3 = 3.2533 Gbit/s received; the server sent nothing
    assert r.sent_bps is None and abs(r.received_gbps - 3.2533) < 0.001 and r.truncated
    assert r.listening_port == 5101
    [s] = [x for x in explain(SERVER_CUT, host="other", nodes=2) if x.kind]
    assert s.kind == "iperf3" and s.command == "iperf3 -s -p 5101"
    assert "3.25 Gbit/s" in s.findings[0].message and all("0.0 Gbit/s" not in f.message for f in s.findings)
    # 3.25 Gbit/s is over 2.5 GbE's line rate and well under 5 GbE's ceiling: not the link's limit; the server's side
    # has no Retr column, so whether segments were lost is the client's to say
    assert [f.level for f in s.findings] == ["info", "warn", "info"]
    assert "no Ethernet link runs full" in s.findings[1].message and "Retr column" in s.findings[1].message


# https://github.com/esnet/iperf/issues/636 (Windows cmd.exe): a server bound with -B, a client at another address
BOUND_ELSEWHERE = """\
C:\\>iperf3 -d -s -B 10.60.7.222
-----------------------------------------------------------
Server listening on 5201
-----------------------------------------------------------
C:\\>iperf3 -d -c 10.60.7.223 -p 5201
iperf3: error - unable to connect to server: Connection refused
"""


def test_a_listening_server_is_said_and_a_client_refused_elsewhere_is_the_mismatch():
    server, client = [s for s in explain(BOUND_ELSEWHERE) if s.kind]
    assert server.kind == client.kind == "iperf3" and server.error is None
    assert [f.level for f in server.findings] == ["info"] and "listening on port 5201" in server.findings[0].message
    mismatch = [f.message for f in client.findings if "-B 10.60.7.222" in f.message]
    assert len(mismatch) == 1 and "connects to 10.60.7.223" in mismatch[0]
    # the same client with a server bound to the address it dials: no mismatch
    same = BOUND_ELSEWHERE.replace("-c 10.60.7.223", "-c 10.60.7.222")
    assert not any("-B 10.60.7.222" in f.message for s in explain(same) for f in s.findings)


# https://github.com/ray-project/ray/issues/45179: a launch whose first lines no kind claims (a FutureWarning)
LAUNCH = """\
(env) (base) [user@raynode-1 ray-vllm]$ python -m vllm.entrypoints.openai.api_server --model m --tensor-parallel-size 4
/home/user/env/lib/python3.11/site-packages/huggingface_hub/file_download.py:1132: FutureWarning: `resume_download` is deprecated
  warnings.warn(
2024-05-08 14:22:55,479\tINFO worker.py:1564 -- Connecting to existing Ray cluster at address: 10.0.0.204:6379...
2024-05-08 14:22:55,484\tINFO worker.py:1740 -- Connected to Ray cluster. View the dashboard at http://127.0.0.1:8265
"""


def test_unclaimed_first_lines_belong_to_the_typed_command():
    sections = [s for s in explain(LAUNCH) if s.kind or s.error]
    assert [(s.kind, s.error) for s in sections] == [("vllm-log", None)]
    assert any("backend Ray (it joined the cluster at 10.0.0.204:6379)" in f.message for f in sections[0].findings)


def test_state_unknown_with_carrier_is_a_working_interface():
    # kube-vip/kube-vip#385 (an IBM PowerVS VM's virtual NIC)
    text = ("$ ip addr show\n2: env2: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc fq_codel state UNKNOWN group "
            "default qlen 1000\n    link/ether 02:00:00:e6:21:20 brd ff:ff:ff:ff:ff:ff\n"
            "    inet 192.168.132.86/29 brd 192.168.132.87 scope global noprefixroute env2\n")
    [s] = explain(text, host="other", nodes=1)
    said = [f for f in s.findings if "state UNKNOWN" in f.message]
    assert [f.level for f in said] == ["info"] and "working" in said[0].message
    down = text.replace("UP,LOWER_UP", "UP").replace("state UNKNOWN", "state DOWN")
    assert not any("state UNKNOWN" in f.message for f in explain(down, host="other", nodes=1)[0].findings)


# geerlingguy/raspberry-pi-pcie-devices#143 (dhcpcd on a Pi: no lease) and geerlingguy/beowulf-ai-cluster#16 (a
# Thunderbolt link on link-local addressing): one 169.254/16 address each, told apart by how it was added
DHCPCD_FALLBACK = """\
4: eth1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default qlen 1000
    link/ether 02:00:00:7f:0a:c0 brd ff:ff:ff:ff:ff:ff
    inet 169.254.211.135/16 brd 169.254.255.255 scope global noprefixroute eth1
       valid_lft forever preferred_lft forever
"""


def test_a_link_local_address_is_read_by_how_it_was_added():
    [s] = [x for x in explain(DHCPCD_FALLBACK, host="other") if x.kind]
    assert "dhcpcd's fallback" in " ".join(f.message for f in s.findings if f.level == "fail")
    link = DHCPCD_FALLBACK.replace("scope global noprefixroute", "scope link noprefixroute")
    [s] = [x for x in explain(link, host="other") if x.kind]
    assert not [f for f in s.findings if f.level in ("warn", "fail")]
    assert any("link-local addressing" in f.message for f in s.findings if f.level == "info")
    # added by hand or by avahi-autoipd (no noprefixroute), or a /24: which it was is not said, so it warns
    for other in (DHCPCD_FALLBACK.replace(" noprefixroute", ""), DHCPCD_FALLBACK.replace("/16", "/24")):
        [s] = [x for x in explain(other, host="other") if x.kind]
        assert [f.level for f in s.findings if "169.254" in f.message and f.level != "info"] == ["warn"], other


def _iperf3(rates: list[str], mean: str, host: str = "192.168.1.2") -> str:
    """A plain iperf3 client output with these interval rates (``990 Mbits``, ``1.01 Gbits``) and sender mean."""
    rows = "".join(f"[  5]   {i}.00-{i + 1}.00   sec   118 MBytes  {r}/sec    0    1.20 MBytes\n" for i, r in enumerate(rates))
    return (f"Connecting to host {host}, port 5201\n[  5] local 192.168.1.1 port 41002 connected to {host} port 5201\n"
            "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd\n" + rows +
            "- - - - - - - - - - - - - - - - - - - - - - - - -\n[ ID] Interval           Transfer     Bitrate         Retr\n"
            f"[  5]   0.00-{len(rates)}.00   sec   474 MBytes  {mean}/sec    0             sender\n"
            f"[  5]   0.00-{len(rates)}.00   sec   473 MBytes  {mean}/sec                  receiver\n")


def test_one_interval_over_a_line_rate_is_not_a_faster_link_and_loopback_crosses_no_link():
    """From a break-it review: a full 1 GbE link at MTU 9000 read 1.01 Gbit/s in one interval, and a stall's catch-up
    interval reads more; neither makes it 'at least 2.5 GbE'. Two intervals over a line rate do. To 127.0.0.1 no NIC
    is crossed, and the single-stream advice is given only where the rate falls short."""
    [s] = explain(_iperf3(["990 Mbits", "989 Mbits", "1.01 Gbits", "982 Mbits"], "993 Mbits"), host="other")
    assert {f.level for f in s.findings} == {"info"} and "TCP ceiling of a 1 GbE link" in s.findings[-1].message
    assert not any("stream" in f.message for f in s.findings)
    [s] = explain(_iperf3(["990 Mbits", "1.3 Gbits", "1.2 Gbits", "900 Mbits"], "1.1 Gbits"), host="other")
    [w] = [f.message for f in s.findings if f.level == "warn"]
    assert "at least 2.5 GbE (the rate is more than a 1 GbE link's line rate)" in w and "-P 8" in w
    [s] = explain(_iperf3(["61.0 Gbits"] * 3, "61.0 Gbits", host="127.0.0.1"), host="other", nodes=1)
    assert [(f.level, "loopback" in f.message) for f in s.findings] == [("info", True)]
