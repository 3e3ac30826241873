"""Transport against a real sshd on loopback: host keys refused or accepted, timeouts, one connection."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from grader.inventory import load_inventory
from grader.transport import CONNECTIONS_OPENED, Connection, HostKeyRefused, NodeUnreachable, connect_all
from tests.helpers_sshd import LoopbackSshd, can_run_sshd, free_port, keygen

pytestmark = pytest.mark.skipif(not can_run_sshd(), reason="needs root and OpenSSH sshd (apt-get install openssh-server)")


@pytest.fixture(scope="module")
def sshd(tmp_path_factory):
    d = tmp_path_factory.mktemp("sshd")
    key = keygen(d / "client_ed25519")
    server = LoopbackSshd(d, key)
    yield server, key, d
    server.stop()


def inventory(tmp: Path, port: int, key: Path, known_hosts: str, timeout: float = 3):
    """A loaded one-node inventory for 127.0.0.1:``port``, its known_hosts file holding ``known_hosts``."""
    kh = tmp / "known_hosts"
    kh.write_text(known_hosts)
    p = tmp / "inv.toml"
    p.write_text(f'profile = "single-spark"\nknown_hosts = "{kh}"\ncommand_timeout_s = {timeout}\n'
                 f'[[nodes]]\nname = "spark-a"\naddress = "127.0.0.1"\nport = {port}\nuser = "root"\n'
                 f'key_file = "{key}"\n')
    return load_inventory(p)


def test_unknown_host_key_is_refused_with_fingerprint_and_fix(sshd, tmp_path):
    server, key, _ = sshd
    inv = inventory(tmp_path, server.port, key, "")
    with pytest.raises(HostKeyRefused) as err:
        Connection(inv.nodes[0], inv).connect(3)
    msg = str(err.value)
    assert "is not in" in msg and "SHA256:" in msg and f"ssh-keyscan -p {server.port} 127.0.0.1" in msg
    assert (tmp_path / "known_hosts").read_text() == ""  # nothing added behind the learner's back


def test_changed_host_key_is_refused(sshd, tmp_path):
    server, key, _ = sshd
    other = keygen(tmp_path / "other_host")
    pub = Path(str(other) + ".pub").read_text().split()
    inv = inventory(tmp_path, server.port, key, f"[127.0.0.1]:{server.port} {pub[0]} {pub[1]}\n")
    with pytest.raises(HostKeyRefused, match="CHANGED") as err:
        Connection(inv.nodes[0], inv).connect(3)
    assert "ssh-keygen -R" in str(err.value)


def test_known_key_connects_once_and_runs_commands_in_parallel(sshd, tmp_path):
    server, key, _ = sshd
    inv = inventory(tmp_path, server.port, key, server.known_hosts_line())
    before = CONNECTIONS_OPENED["spark-a"]
    conns, errors = connect_all(inv)
    assert errors == {}
    c = conns["spark-a"]
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda i: c.run(f"echo out{i}; echo err{i} >&2; exit {i}"), range(4)))
    c.close()
    assert [r.stdout for r in results] == [f"out{i}\n" for i in range(4)]
    assert [r.stderr for r in results] == [f"err{i}\n" for i in range(4)]
    assert [r.exit_status for r in results] == [0, 1, 2, 3]
    assert CONNECTIONS_OPENED["spark-a"] - before == 1


def test_command_timeout_kills_the_remote_command(sshd, tmp_path):
    server, key, d = sshd
    inv = inventory(tmp_path, server.port, key, server.known_hosts_line(), timeout=1)
    c = Connection(inv.nodes[0], inv)
    c.connect(3)
    marker = f"clusterlab-timeout-test-{time.time_ns()}"
    t0 = time.monotonic()
    r = c.run(f"sleep 30; echo {marker}")
    assert r.timed_out and r.exit_status is None
    assert time.monotonic() - t0 < 2.5
    time.sleep(1.5)  # timeout -k 1: the remote sleep is gone by now
    left = c.run(f"pgrep -f '[s]leep 30; echo {marker}' || true")
    c.close()
    assert left.stdout.strip() == ""


def test_closed_port_is_unreachable_with_reason(tmp_path, sshd):
    _, key, _ = sshd
    inv = inventory(tmp_path, free_port(), key, "")
    t0 = time.monotonic()
    conns, errors = connect_all(inv)
    assert conns == {} and "cannot connect" in errors["spark-a"] and "sshd" in errors["spark-a"]
    assert time.monotonic() - t0 < 2


def test_wrong_key_is_refused_with_fix(sshd, tmp_path):
    server, _, _ = sshd
    stranger = keygen(tmp_path / "stranger")
    inv = inventory(tmp_path, server.port, stranger, server.known_hosts_line())
    with pytest.raises(NodeUnreachable, match="refused our key") as err:
        Connection(inv.nodes[0], inv).connect(3)
    assert "ssh-copy-id" in str(err.value)


def test_output_is_complete_even_when_exit_status_arrives_first(sshd, tmp_path):
    """Every byte a command printed is returned, under concurrency on one connection."""
    server, key, _ = sshd
    inv = inventory(tmp_path, server.port, key, server.known_hosts_line())
    c = Connection(inv.nodes[0], inv)
    c.connect(3)
    from concurrent.futures import ThreadPoolExecutor
    cmd = "head -c 300000 /dev/zero | tr '\\0' x; printf end; hostname >/dev/null"
    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda _: c.run(cmd), range(60)))
    c.close()
    assert [len(r.stdout) for r in results] == [300003] * 60
    assert all(r.stdout.endswith("end") and r.exit_status == 0 for r in results)


def test_a_server_that_goes_silent_in_the_handshake_is_said_so(tmp_path):
    """A peer that sends its SSH banner and then nothing (a link cut during the handshake, seen as 'No existing
    session' or 'refused our key' before): NodeUnreachable within the timeout + 1 s, saying it went silent."""
    import socket
    import threading

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    held: list[socket.socket] = []

    def serve() -> None:
        conn, _ = srv.accept()
        conn.sendall(b"SSH-2.0-OpenSSH_9.2p1 silent\r\n")
        held.append(conn)  # read nothing more, answer nothing more

    threading.Thread(target=serve, daemon=True).start()
    key = keygen(tmp_path / "client_ed25519")
    inv = inventory(tmp_path, srv.getsockname()[1], key, "")
    t0 = time.monotonic()
    with pytest.raises(NodeUnreachable, match="stopped answering during the SSH handshake") as err:
        Connection(inv.nodes[0], inv).connect(2)
    assert time.monotonic() - t0 < 2 + 1, err.value
    assert "refused our key" not in str(err.value)
    srv.close()
    for c in held:
        c.close()
