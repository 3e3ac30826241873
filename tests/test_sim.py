"""The simulated DGX Spark pair: spec and shim unit tests, then the real thing (root, sshd).

The live tests build the cluster with `grader.sim.up`, then look at it only from the outside, the way
the grader and a learner would: `ip -n <node>` for links, real `ssh` (BatchMode) and paramiko for
everything a session sees. Order matters: the healthy-cluster tests share one `up`, each fault test
then does its own `up`, and the last test checks that `down` leaves nothing behind.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

import paramiko
import pytest
import yaml

import grader.sim as sim
from grader.sim import faults as F
from grader.sim import ibdev2netdev_sim as shim
from grader.sim import topology as T
from tests.helpers_schema import cli_json

A, B = T.NODES
P1 = T.TWINS[1]
P0 = T.TWINS[0]
SBIN = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
NETPLAN_DIR_EXISTED = Path("/etc/netplan").exists()
LIVE_TOOLS = ("sshd", "ip", "tc", "ssh", "ssh-keygen", "unshare", "nsenter", "ping")

# ------------------------------------------------------------------------------------------------
# Pure: the spec, the faults, the shim (no root needed)


def test_default_spec_is_the_playbook_with_jumbo_frames():
    spec = T.default_spec()
    for node in T.NODES:
        n = spec.nodes[node]
        for twin in P1:
            assert n.ifaces[twin].up and n.ifaces[twin].mtu == 9000
            assert n.ifaces[twin].addresses == [T.PLAYBOOK_ADDR[node][twin]]
        for twin in P0:
            assert not n.ifaces[twin].up and n.ifaces[twin].addresses == []
    assert spec.cables == [((A, t), (B, t)) for t in P1]
    assert spec.hosts_peer_address(A) == "192.168.100.11"
    assert spec.hosts_peer_address(B) == "192.168.100.10"


def test_netplan_yaml_has_nvidias_layout():
    text = T.netplan_yaml(T.default_spec().nodes[A].netplan)
    assert yaml.safe_load(text) == {"network": {"version": 2, "ethernets": {
        "enp1s0f1np1": {"addresses": ["192.168.100.10/24"], "dhcp4": False, "mtu": 9000},
        "enP2p1s0f1np1": {"addresses": ["192.168.101.10/24"], "dhcp4": False, "mtu": 9000}}}}
    assert "dhcp4: no" in text


def test_every_fault_is_listed_and_changes_the_spec():
    assert set(sim.FAULTS) == {"mtu-1500", "mtu-mismatch", "same-subnet", "link-local", "no-netplan",
                               "netplan-drift", "no-peer-key", "one-twin-down", "wrong-port",
                               "house-network", "no-ib-hca", "one-hca", "wrong-gid-index", "env-mismatch",
                               "socket-fallback", "serve-no-ray-backend", "kv-too-small", "model-path-differs",
                               "head-on-house-network", "no-gloo-ifname", "gloo-wrong-iface", "ray-wrong-node-ip",
                               "nnodes-no-host-ip", "docker-run-no-host-ip", "image-without-ray"}
    healthy = T.default_spec()
    for name in sim.FAULTS:
        faulty = F.apply_faults(healthy, [name])
        assert faulty != healthy, name
        assert faulty.faults == [name]
    assert T.default_spec() == healthy  # apply_faults copies


def test_unknown_fault_names_the_known_ones():
    with pytest.raises(ValueError, match="mtu-1500.*house-network"):
        F.apply_faults(T.default_spec(), ["mtu-9000"])


def test_shim_renders_live_operstate(tmp_path):
    for netdev, state in [("enp1s0f1np1", "up"), ("enP2p1s0f1np1", "lowerlayerdown"),
                          ("enp1s0f0np0", "down")]:  # enP2p1s0f0np0 absent: left out
        (tmp_path / netdev).mkdir()
        (tmp_path / netdev / "operstate").write_text(state + "\n")
    assert shim.render(str(tmp_path)) == (
        f"{shim.BANNER}\n"
        "roceP2p1s0f1 port 1 ==> enP2p1s0f1np1 (Down)\n"
        "rocep1s0f0 port 1 ==> enp1s0f0np0 (Down)\n"
        "rocep1s0f1 port 1 ==> enp1s0f1np1 (Up)\n")


# ------------------------------------------------------------------------------------------------
# Live: needs root and the tools

live = pytest.mark.skipif(
    os.geteuid() != 0 or not all(shutil.which(t, path=SBIN) for t in LIVE_TOOLS),
    reason="the simulated cluster needs root (network namespaces) and openssh-server, iproute2, "
           "iputils-ping: run the suite as root after `apt-get install openssh-server iproute2 iperf3 "
           "iputils-ping ethtool`")


def ssh(node: str, command: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run ``command`` on ``node`` as the grader does: its key, its known_hosts, no prompts."""
    argv = ["ssh", "-F", "/dev/null", "-i", str(T.GRADER_KEY), "-o", "IdentitiesOnly=yes",
            "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
            "-o", f"UserKnownHostsFile={T.KNOWN_HOSTS}", "-o", "ConnectTimeout=5",
            f"{T.LOGIN_USER}@{T.HOUSE_ADDR[node]}", command]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    if check:
        assert p.returncode == 0, f"ssh {node} {command!r}: rc {p.returncode}: {p.stderr}"
    return p


def links(node: str) -> dict[str, dict]:
    """name -> {'mtu', 'state' (operstate), 'up' (admin), 'addrs': [a/len, ...]}, from `ip -j`."""
    out = subprocess.run(["ip", "-j", "-n", node, "addr", "show"], capture_output=True, text=True,
                         check=True).stdout
    return {link["ifname"]: {"mtu": link["mtu"], "state": link["operstate"], "up": "UP" in link["flags"],
                             "addrs": sorted(f"{a['local']}/{a['prefixlen']}" for a in link["addr_info"]
                                             if a["family"] == "inet")}
            for link in json.loads(out)}


_SNAPSHOT_SCRIPT = """
echo "hostname=$(hostname)"
echo "netplan=$(stat -c %a /etc/netplan/40-cx7.yaml 2>/dev/null || echo none)"
echo "hosts_peer=$(getent hosts {peer} | awk '{{print $1}}')"
ssh -o BatchMode=yes -o ConnectTimeout=3 {peer} true 2>/dev/null && echo ssh_peer=ok || echo ssh_peer=fail
echo "ibdev2netdev=$(ibdev2netdev | tr '\\n' ';')"
echo "----"; sudo -n cat /etc/netplan/40-cx7.yaml 2>/dev/null; true
"""


def snapshot() -> dict[str, object]:
    """Every observable a lesson-1 check reads, flattened to 'node.thing' keys."""
    snap: dict[str, object] = {}
    for node in T.NODES:
        for name, link in links(node).items():
            for k in ("mtu", "state", "up", "addrs"):
                snap[f"{node}.{name}.{k}"] = link[k]
        out = ssh(node, _SNAPSHOT_SCRIPT.format(peer=T.peer_of(node))).stdout
        head, _, netplan = out.partition("----\n")
        for line in head.splitlines():
            key, _, value = line.partition("=")
            snap[f"{node}.{key}"] = value
        snap[f"{node}.netplan_content"] = yaml.safe_load(netplan) if netplan.strip() else None
    return snap


@pytest.fixture(scope="module")
def healthy():
    """One healthy cluster for the tests that only look; the snapshot is the faults' baseline."""
    t0 = time.monotonic()
    inventory = sim.up([])
    elapsed = time.monotonic() - t0
    yield {"inventory": inventory, "up_s": elapsed, "snapshot": snapshot()}
    sim.down()


@live
class TestHealthy:
    def test_up_is_fast_and_writes_the_inventory(self, healthy):
        assert healthy["up_s"] < 5, f"sim up took {healthy['up_s']:.2f} s"
        assert healthy["inventory"] == T.INVENTORY
        inv = tomllib.loads(T.INVENTORY.read_text())
        assert inv == {"profile": "sim", "qsfp_port": 1, "known_hosts": str(T.KNOWN_HOSTS), "nodes": [
            {"name": n, "address": T.HOUSE_ADDR[n], "port": 22, "user": T.LOGIN_USER, "key_file": str(T.GRADER_KEY)}
            for n in T.NODES], "logs": {"nccl_debug": "~/nccl_debug.log"}}
        assert T.GRADER_KEY.stat().st_mode & 0o777 == 0o600
        assert "ssh-ed25519" in T.GRADER_KEY.with_suffix(".pub").read_text()

    def test_status_reports_both_nodes(self, healthy):
        st = sim.status()
        assert st["up"] and st["healthy"] and st["faults"] == []
        assert st["inventory"] == str(T.INVENTORY)
        assert all(st["nodes"][n]["ssh_reachable"] and st["nodes"][n]["sshd_running"] for n in T.NODES)
        printed = cli_json("sim", "status")  # the shipped schema's sim-status (issue 16)
        assert printed[0] == 0 and {k: printed[1][k] for k in st} == st

    def test_hostnames(self, healthy):
        for node in T.NODES:
            assert ssh(node, "hostname").stdout.strip() == node
            assert ssh(node, "cat /etc/hostname").stdout.strip() == node

    def test_sim_shell_runs_inside_the_node_as_its_ssh_sessions_see_it(self, healthy):
        """`clusterlab sim shell NODE CMD`: the node's hostname, its login user's home (their SSH key to the peer) and
        network; ``--root`` is root there."""
        cli = [sys.executable, "-m", "grader.cli", "sim", "shell"]
        out = subprocess.run([*cli, "spark-a", "sh", "-c", "hostname; ssh -o BatchMode=yes 192.168.100.11 hostname"],
                             capture_output=True, text=True, timeout=30)
        assert out.returncode == 0 and out.stdout.split() == ["spark-a", "spark-b"], out.stderr
        who = subprocess.run([*cli, "spark-a", "sh", "-c", "id -un; pwd; echo $HOME; id -Gn"], capture_output=True,
                             text=True, timeout=30).stdout.split("\n")
        assert who[:3] == [T.LOGIN_USER, T.LOGIN_HOME, T.LOGIN_HOME] and {"sudo", "docker"} <= set(who[3].split())
        root = subprocess.run([*cli, "--root", "spark-a", "id", "-un"], capture_output=True, text=True, timeout=30)
        assert root.stdout == "root\n", root.stderr
        bad = subprocess.run([*cli, "spark-c"], capture_output=True, text=True, timeout=30)
        assert bad.returncode == 2 and "spark-c" in bad.stderr

    def test_interfaces_states_and_mtus(self, healthy):
        for node in T.NODES:
            ls = links(node)
            assert set(ls) == {"lo", T.HOUSE_IF, *T.ALL_TWINS}
            for twin in P1:
                assert ls[twin]["state"] == "UP" and ls[twin]["mtu"] == 9000
                assert ls[twin]["addrs"] == [T.PLAYBOOK_ADDR[node][twin]]
            for twin in P0:
                assert ls[twin]["state"] == "DOWN" and not ls[twin]["up"] and ls[twin]["addrs"] == []
            assert ls[T.HOUSE_IF]["mtu"] == 1500 and ls[T.HOUSE_IF]["addrs"] == [f"{T.HOUSE_ADDR[node]}/24"]
            assert ls["lo"]["up"]

    def test_port0_has_no_carrier_even_when_brought_up(self, healthy):
        """An uncabled port stays without carrier; only admin state changes."""
        subprocess.run(["ip", "-n", A, "link", "set", P0[0], "up"], check=True)
        try:
            time.sleep(0.05)
            carrier = subprocess.run(["ip", "netns", "exec", A, "cat", f"/sys/class/net/{P0[0]}/carrier"],
                                     capture_output=True, text=True).stdout.strip()
            assert carrier == "0"
            assert links(A)[P0[0]]["state"] != "UP"
        finally:
            subprocess.run(["ip", "-n", A, "link", "set", P0[0], "down"], check=True)

    def test_netplan_file(self, healthy):
        for node in T.NODES:
            out = ssh(node, "stat -c '%a %U' /etc/netplan/40-cx7.yaml; sudo -n cat /etc/netplan/40-cx7.yaml").stdout
            mode, _, content = out.partition("\n")
            assert mode == "600 root"
            assert yaml.safe_load(content)["network"]["ethernets"] == {
                t: {"addresses": [T.PLAYBOOK_ADDR[node][t]], "dhcp4": False, "mtu": 9000} for t in P1}

    def test_hosts_resolve_the_peer_over_the_cable(self, healthy):
        for node in T.NODES:
            peer = T.peer_of(node)
            out = ssh(node, f"getent hosts {peer}; ip route get $(getent hosts {peer} | cut -d' ' -f1)").stdout
            assert out.split()[0] == T.PLAYBOOK_ADDR[peer][P1[0]].split("/")[0]
            assert f"dev {P1[0]}" in out

    def test_ssh_both_ways_by_name_and_twin_address(self, healthy):
        for node in T.NODES:
            peer = T.peer_of(node)
            targets = [peer] + [T.PLAYBOOK_ADDR[peer][t].split("/")[0] for t in P1]
            cmd = "; ".join(f"ssh -o BatchMode=yes {t} hostname" for t in targets)
            assert ssh(node, cmd).stdout.split() == [peer] * len(targets)

    def test_shared_key_as_discover_sparks_makes_it(self, healthy):
        pubs = {n: ssh(n, "cat ~/.ssh/id_ed25519_shared.pub; cat ~/.ssh/config; "
                          "stat -c %a ~/.ssh/id_ed25519_shared").stdout for n in T.NODES}
        assert pubs[A] == pubs[B]
        assert pubs[A].split("\n")[0].startswith("ssh-ed25519 ")
        assert pubs[A].split("\n")[0].endswith(" shared-cluster-key")
        assert "Host *\n    IdentityFile ~/.ssh/id_ed25519_shared" in pubs[A]
        assert pubs[A].strip().endswith("600")

    def test_host_root_is_not_the_nodes_root(self, healthy):
        grader_pub = T.GRADER_KEY.with_suffix(".pub").read_text().split()[1]
        assert grader_pub in ssh(A, "cat ~/.ssh/authorized_keys").stdout
        host_auth = Path("/root/.ssh/authorized_keys")
        assert not host_auth.exists() or grader_pub not in host_auth.read_text()

    def test_shim_on_path_over_ssh(self, healthy):
        expected = (f"{shim.BANNER}\n"
                    "roceP2p1s0f0 port 1 ==> enP2p1s0f0np0 (Down)\n"
                    "roceP2p1s0f1 port 1 ==> enP2p1s0f1np1 (Up)\n"
                    "rocep1s0f0 port 1 ==> enp1s0f0np0 (Down)\n"
                    "rocep1s0f1 port 1 ==> enp1s0f1np1 (Up)\n")
        for node in T.NODES:
            assert ssh(node, "command -v ibdev2netdev").stdout.strip() == f"{T.NODE_BIN}/ibdev2netdev"
            assert ssh(node, "ibdev2netdev").stdout == expected
            # a login shell too (/etc/profile resets PATH; the node's ~/.profile puts it back)
            assert ssh(node, "bash -lc 'command -v ibdev2netdev'").stdout.strip() == f"{T.NODE_BIN}/ibdev2netdev"

    def test_paramiko_sees_the_shim_on_path(self, healthy):
        client = paramiko.SSHClient()
        client.load_host_keys(str(T.KNOWN_HOSTS))
        client.set_missing_host_key_policy(paramiko.RejectPolicy())
        try:
            client.connect(T.HOUSE_ADDR[B], username=T.LOGIN_USER, key_filename=str(T.GRADER_KEY),
                           look_for_keys=False, allow_agent=False, timeout=5)
            _, out, _ = client.exec_command("command -v ibdev2netdev && hostname")
            assert out.read().decode().split() == [f"{T.NODE_BIN}/ibdev2netdev", B]
        finally:
            client.close()

    def test_each_node_has_its_own_dev_shm(self, healthy):
        name = f"clsim-test-{os.getpid()}"
        ssh(A, f"touch /dev/shm/{name}")
        try:
            assert ssh(B, f"test -e /dev/shm/{name}", check=False).returncode == 1
            assert not Path("/dev/shm", name).exists()
            assert ssh(A, f"test -e /dev/shm/{name}", check=False).returncode == 0
        finally:
            ssh(A, f"rm -f /dev/shm/{name}")

    def test_house_network_is_shaped_to_1gbit(self, healthy):
        for node in T.NODES:
            qdisc = subprocess.run(["tc", "-n", node, "qdisc", "show", "dev", T.HOUSE_IF],
                                   capture_output=True, text=True, check=True).stdout
            assert "tbf" in qdisc and "rate 1Gbit" in qdisc
        bridge = subprocess.run(["ip", "-j", "addr", "show", T.BRIDGE], capture_output=True, text=True,
                                check=True).stdout
        assert "10.77.7.1" in bridge

    def test_jumbo_frames_cross_both_twins(self, healthy):
        for twin in P1:
            peer = T.PLAYBOOK_ADDR[B][twin].split("/")[0]
            ssh(A, f"ping -c1 -W2 -M do -s 8972 -I {twin} {peer}")

    def test_nodes_have_no_route_out(self, healthy):
        for node in T.NODES:
            routes = subprocess.run(["ip", "-n", node, "route", "show", "default"], capture_output=True,
                                    text=True, check=True).stdout
            assert routes.strip() == ""

    def test_baseline_snapshot(self, healthy):
        snap = healthy["snapshot"]
        assert snap[f"{A}.ssh_peer"] == snap[f"{B}.ssh_peer"] == "ok"
        assert snap[f"{A}.netplan"] == snap[f"{B}.netplan"] == "600"


@live
def test_up_twice_rebuilds(healthy):
    before = sim.status()["nodes"][A]["sshd_pid"]
    assert sim.up([]) == T.INVENTORY
    st = sim.status()
    assert st["healthy"] and st["nodes"][A]["sshd_pid"] != before
    assert ssh(A, "ssh -o BatchMode=yes spark-b hostname").stdout.strip() == B
    assert snapshot() == healthy["snapshot"]


@live
def test_unknown_fault_raises_sim_error(healthy):
    with pytest.raises(sim.SimError, match="known faults: mtu-1500"):
        sim.up(["no-such-fault"])
    assert sim.status()["up"]  # refused before touching anything


def _twin_keys(nodes, twins, fields):
    return {f"{n}.{t}.{f}" for n in nodes for t in twins for f in fields}


# fault -> (keys allowed to differ from the healthy snapshot, a check of the fault's own observable)
FAULT_CASES = {
    "mtu-1500": (_twin_keys(T.NODES, P1, ["mtu"]) | {f"{n}.netplan_content" for n in T.NODES},
                 lambda s: all(s[f"{n}.{t}.mtu"] == 1500 for n in T.NODES for t in P1)
                 and all("mtu" not in e for n in T.NODES for e in s[f"{n}.netplan_content"]["network"]["ethernets"].values())),
    "mtu-mismatch": (_twin_keys([B], P1, ["mtu"]) | {f"{B}.netplan_content"},
                     lambda s: all(s[f"{A}.{t}.mtu"] == 9000 and s[f"{B}.{t}.mtu"] == 1500 for t in P1)
                     and s[f"{B}.netplan_content"]["network"]["ethernets"][P1[0]].get("mtu", 1500) == 1500),
    "same-subnet": (_twin_keys(T.NODES, [P1[1]], ["addrs"]) | {f"{n}.netplan_content" for n in T.NODES},
                    lambda s: s[f"{A}.{P1[1]}.addrs"] == ["192.168.100.12/24"]
                    and s[f"{B}.{P1[1]}.addrs"] == ["192.168.100.13/24"]
                    and s[f"{A}.netplan_content"]["network"]["ethernets"][P1[1]]["addresses"] == ["192.168.100.12/24"]),
    "link-local": (_twin_keys(T.NODES, P1, ["addrs"]) | {f"{n}.{k}" for n in T.NODES
                                                         for k in ("netplan", "netplan_content", "hosts_peer")},
                   lambda s: s[f"{A}.{P1[0]}.addrs"] == ["169.254.35.62/16"]
                   and s[f"{B}.{P1[1]}.addrs"] == ["169.254.36.63/16"]
                   and s[f"{A}.netplan"] == s[f"{B}.netplan"] == "none"
                   and s[f"{A}.ssh_peer"] == s[f"{B}.ssh_peer"] == "ok"),
    "no-netplan": ({f"{n}.{k}" for n in T.NODES for k in ("netplan", "netplan_content")},
                   lambda s: s[f"{A}.netplan"] == s[f"{B}.netplan"] == "none"
                   and s[f"{B}.{P1[0]}.addrs"] == ["192.168.100.11/24"]),
    "netplan-drift": ({f"{B}.netplan_content"},
                      lambda s: s[f"{B}.netplan_content"]["network"]["ethernets"][P1[0]]["addresses"] == ["192.168.100.21/24"]
                      and s[f"{B}.{P1[0]}.addrs"] == ["192.168.100.11/24"]),
    "no-peer-key": ({f"{B}.ssh_peer"},
                    lambda s: s[f"{B}.ssh_peer"] == "fail" and s[f"{A}.ssh_peer"] == "ok"),
    "one-twin-down": ({f"{B}.{P1[1]}.up"} | _twin_keys(T.NODES, [P1[1]], ["state"])
                      | {f"{n}.ibdev2netdev" for n in T.NODES},
                      lambda s: not s[f"{B}.{P1[1]}.up"] and s[f"{A}.{P1[1]}.up"]
                      and s[f"{A}.{P1[1]}.state"] != "UP" and s[f"{B}.{P1[1]}.addrs"] == ["192.168.101.11/24"]
                      and "enP2p1s0f1np1 (Down)" in s[f"{A}.ibdev2netdev"]),
    "wrong-port": (_twin_keys([B], T.ALL_TWINS, ["mtu", "state", "up", "addrs"])
                   | {f"{B}.netplan_content", f"{B}.ibdev2netdev"},
                   lambda s: s[f"{B}.{P0[0]}.addrs"] == ["192.168.100.11/24"] and s[f"{B}.{P0[0]}.state"] == "UP"
                   and s[f"{B}.{P1[0]}.addrs"] == [] and s[f"{B}.{P1[0]}.state"] == "DOWN"
                   and set(s[f"{B}.netplan_content"]["network"]["ethernets"]) == set(P0)
                   and "enp1s0f0np0 (Up)" in s[f"{B}.ibdev2netdev"]
                   and "enp1s0f1np1 (Down)" in s[f"{B}.ibdev2netdev"]
                   and s[f"{A}.ssh_peer"] == s[f"{B}.ssh_peer"] == "ok"),
    "house-network": ({f"{n}.hosts_peer" for n in T.NODES},
                      lambda s: s[f"{A}.hosts_peer"] == "10.77.7.11" and s[f"{B}.hosts_peer"] == "10.77.7.10"),
    # lesson-2 faults touch only the serving processes' variables or the head's NCCL log: nothing lesson 1 reads
    "no-ib-hca": (set(), lambda s: all("NCCL_IB_HCA" not in _serve_env(n) for n in T.NODES)),
    "one-hca": (set(), lambda s: all(_serve_env(n)["NCCL_IB_HCA"] == "rocep1s0f1" for n in T.NODES)),
    "wrong-gid-index": (set(), lambda s: all(_serve_env(n)["NCCL_IB_GID_INDEX"] == "2" for n in T.NODES)),
    "env-mismatch": (set(), lambda s: _serve_env(A)["NCCL_SOCKET_IFNAME"] == "enp1s0f1np1"
                     and _serve_env(B)["NCCL_SOCKET_IFNAME"] == "enP2p1s0f1np1"),
    "socket-fallback": (set(), lambda s: "via NET/Socket" in ssh(A, "cat ~/nccl_debug.log").stdout
                        and "NET/IB : Using" not in ssh(A, "cat ~/nccl_debug.log").stdout),
}


def _serve_env(node: str) -> dict[str, str]:
    """The interface variables the sim hands this node's Ray/vLLM processes (recorded in state.json)."""
    return json.loads(T.STATE_FILE.read_text())["serve_env"][node]


SERVING_FAULTS = {"serve-no-ray-backend", "kv-too-small", "model-path-differs", "head-on-house-network",
                  "no-gloo-ifname", "gloo-wrong-iface", "ray-wrong-node-ip", "nnodes-no-host-ip",
                  "docker-run-no-host-ip", "image-without-ray"}
"""Lesson 2b's faults and the container faults: they change only what `sim serve` starts (the spec's serving
fields), nothing `sim up` builds; tests/sim_lesson2b_faults.py and sim_container_faults.py run each for real."""


def test_every_fault_has_a_live_case():
    assert set(FAULT_CASES) | SERVING_FAULTS == set(sim.FAULTS)


def test_serving_faults_change_only_the_serving_fields():
    healthy = T.default_spec()
    serving = {"serve_args", "ray_node_ip", "model_elsewhere", "image_tag", "docker_run_drop_env"}
    for name in SERVING_FAULTS:
        faulty = F.apply_faults(healthy, [name])
        for field in vars(healthy):
            if field == "faults" or field in serving:
                continue
            if field == "nodes":
                for n in T.NODES:
                    a, b = vars(healthy.nodes[n]), vars(faulty.nodes[n])
                    assert {k for k in a if a[k] != b[k]} <= {"serve_env"}, name
            else:
                assert getattr(faulty, field) == getattr(healthy, field), (name, field)


@live
@pytest.mark.parametrize("fault", list(FAULT_CASES))
def test_fault_changes_only_what_it_names(healthy, fault):
    allowed, observable = FAULT_CASES[fault]
    assert sim.up([fault]) == T.INVENTORY
    assert sim.status()["faults"] == [fault]
    snap = snapshot()
    base = healthy["snapshot"]
    changed = {k for k in set(base) | set(snap) if base.get(k) != snap.get(k)}
    assert changed or not allowed, f"{fault} changed nothing"  # lesson-2 faults change nothing lesson 1 reads
    assert changed <= allowed, f"{fault} also changed {sorted(changed - allowed)}"
    assert observable(snap), {k: snap.get(k) for k in sorted(changed)}


@live
def test_mtu_fault_breaks_jumbo_ping(healthy):
    sim.up(["mtu-mismatch"])
    assert ssh(A, f"ping -c1 -W1 -M do -s 8972 {T.PLAYBOOK_ADDR[B][P1[0]].split('/')[0]}", check=False).returncode != 0
    assert ssh(A, f"ping -c1 -W1 -M do -s 1472 {T.PLAYBOOK_ADDR[B][P1[0]].split('/')[0]}", check=False).returncode == 0


@live
def test_wrong_port_link_works_end_to_end(healthy):
    sim.up(["wrong-port"])
    for twin in P1:
        ssh(A, f"ping -c1 -W2 -M do -s 8972 -I {twin} {T.PLAYBOOK_ADDR[B][twin].split('/')[0]}")
    out = subprocess.run(["ip", "-n", A, "-d", "link", "show", P1[0]], capture_output=True, text=True).stdout
    assert f"link-netns {B}" in out


@live
def test_house_network_fault_routes_over_enp7s7(healthy):
    sim.up(["house-network"])
    assert f"dev {T.HOUSE_IF}" in ssh(A, "ip route get $(getent hosts spark-b | cut -d' ' -f1)").stdout


@live
def test_faults_combine(healthy):
    sim.up(["mtu-1500", "no-peer-key"])
    assert sim.status()["faults"] == ["mtu-1500", "no-peer-key"]
    assert links(A)[P1[0]]["mtu"] == 1500
    assert ssh(B, "ssh -o BatchMode=yes spark-a true", check=False).returncode != 0


@live
def test_non_root_is_refused_with_the_fix():
    if not shutil.which("setpriv"):
        pytest.skip("setpriv (util-linux) not installed")
    repo = Path(__file__).resolve().parents[1]
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    runnable = [py for py in (sys.executable, "/usr/bin/python3")
                if subprocess.run(nobody + [py, "-c", "pass"], capture_output=True).returncode == 0]
    if not runnable:
        pytest.skip("no Python interpreter that an unprivileged user may run (pyenv under /root?)")
    p = subprocess.run(nobody + [runnable[0], "-c",
                        "import grader.sim as s\ntry: s.up([])\nexcept s.SimError as e: print(e)"],
                       capture_output=True, text=True, cwd=repo, env={"PATH": SBIN, "PYTHONPATH": str(repo)})
    assert "run as root: the sim makes network namespaces" in p.stdout, p.stderr


@live
def test_down_leaves_nothing_behind(healthy):
    """After it, the module fixture's own down() is a no-op, which is tested here too."""
    sim.up(["no-netplan"])
    pids = [sim.status()["nodes"][n]["sshd_pid"] for n in T.NODES]
    sim.down()
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert not {A, B, T.VOID_NS} & {line.split()[0] for line in listed.splitlines() if line.strip()}
    for dev in (T.BRIDGE, *T.HOUSE_ROOT_END.values()):
        assert not Path("/sys/class/net", dev).exists()
    for pid in pids:  # gone, or a zombie waiting for init to reap it
        stat = Path(f"/proc/{pid}/stat")
        assert not stat.exists() or stat.read_text().split(") ")[1].startswith("Z"), pid
    for node in T.NODES:
        assert not (T.ETC_NETNS / node).exists()
    for part in T.RUNTIME_PARTS:
        assert not part.exists(), part
    if not NETPLAN_DIR_EXISTED:
        assert not Path("/etc/netplan").exists()
    assert T.GRADER_KEY.exists()  # kept so the grader's key and host keys stay stable
    st = sim.status()
    assert not st["up"] and st["faults"] == [] and st["inventory"] is None
    assert cli_json("sim", "status")[0] == 1  # down: exit status 1, still the schema's sim-status
    sim.down()  # nothing up: a no-op


@live
def test_stop_and_start_sshd_make_a_node_unreachable_then_back():
    try:
        sim.up([])
        sim.stop_sshd(B)
        st = sim.status()
        assert not st["nodes"][B]["ssh_reachable"] and st["nodes"][A]["ssh_reachable"]
        assert links(B)[P1[0]]["state"] == "UP"  # only sshd stopped
        sim.start_sshd(B)
        assert ssh(B, "hostname").stdout.strip() == B
        assert ssh(B, "ls ~/.ssh/authorized_keys && df --output=source /dev/shm | tail -1").stdout.split() == \
            [f"{T.LOGIN_HOME}/.ssh/authorized_keys", "tmpfs"]
    finally:
        sim.down()
