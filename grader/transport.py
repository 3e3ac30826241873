"""SSH transport: one paramiko connection per node, reused for every probe, host keys verified.

- Host keys are checked against the inventory's known_hosts file. An unknown or changed key is
  refused with :class:`HostKeyRefused`, whose message shows the offered fingerprint and how to
  accept it deliberately. Nothing is ever added to known_hosts by the grader.
- Every command has a deadline: the grader stops waiting at ``timeout_s`` and the remote side
  runs under coreutils ``timeout`` so nothing outlives the probe.
- Only key or agent authentication: the grader never asks for or stores a password.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import logging
import os
import shlex
import socket
import subprocess
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import paramiko

logging.getLogger("paramiko").addHandler(logging.NullHandler())
"""paramiko logs a failed handshake (``Error reading SSH protocol banner``) with its traceback at ERROR; with
no handler Python would print it on stderr. The grader says what went wrong itself (:class:`NodeUnreachable`)."""

from grader.inventory import Inventory, Node, key_file_problem, resolve_ssh

CONNECTIONS_OPENED: Counter[str] = Counter()
"""How many SSH connections were opened per node name in this process (for the benchmark)."""

_REMOTE_PATH = "PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin; export PATH; "


class NodeUnreachable(RuntimeError):
    """The node could not be reached or logged into. The message says why and what to do."""


class HostKeyRefused(NodeUnreachable):
    """The node's host key is not in known_hosts, or differs from the one recorded there."""


def reason(e: BaseException) -> str:
    """Why an SSH operation failed, in words, never empty: paramiko raises ``EOFError()`` and
    ``SSHException()`` with no message when the other side goes away."""
    text = " ".join(str(getattr(e, "strerror", None) or e).split())
    if text and text != "None":
        return text
    if isinstance(e, EOFError):
        return "the node closed the connection (EOF)"
    if isinstance(e, (ConnectionResetError, BrokenPipeError)):
        return "the connection was reset"
    return f"{type(e).__name__} with no message (the node or the network went away)"


@dataclass(frozen=True)
class CommandResult:
    """What one remote command produced. Times in seconds; exit_status None when it timed out."""

    command: str
    stdout: str
    stderr: str
    exit_status: int | None
    duration_s: float
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.exit_status == 0 and not self.timed_out


def fingerprint(key: paramiko.PKey) -> str:
    """OpenSSH-style SHA256 fingerprint of a public key, e.g. ``SHA256:abc...``."""
    return fingerprint_blob(key.asbytes())


def fingerprint_blob(blob: bytes) -> str:
    """:func:`fingerprint` of a public key's wire blob (the base64 field of a ``.pub`` line, decoded)."""
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


class _RefuseUnknown(paramiko.MissingHostKeyPolicy):
    def __init__(self, node: Node, host: str, port: int, known_hosts: str):
        self.node, self.host, self.port, self.known_hosts = node, host, port, known_hosts

    def missing_host_key(self, client, hostname, key):  # noqa: D401 - paramiko API
        target = host_pattern(self.host, self.port)
        keyscan = f"ssh-keyscan -p {self.port} {self.host}" if self.port != 22 else f"ssh-keyscan {self.host}"
        raise HostKeyRefused(
            f"{self.node.name}: host key of {target} is not in {self.known_hosts} "
            f"(it offers {key.get_name()} {fingerprint(key)}). The grader never trusts a new key by itself. "
            f"Check that fingerprint on the machine (`ssh-keygen -lf /etc/ssh/ssh_host_{_short(key)}_key.pub`), "
            f"then accept it deliberately: `{keyscan} >> {self.known_hosts}`, or log in once with "
            f"`ssh -p {self.port} {self.host}` and answer yes."
        )


def _short(key: paramiko.PKey) -> str:
    name = key.get_name()
    return "ed25519" if "ed25519" in name else "ecdsa" if "ecdsa" in name else "rsa"


def host_pattern(host: str, port: int) -> str:
    """How known_hosts names ``host`` at ``port``: ``host`` for 22, ``[host]:port`` otherwise."""
    return host if port == 22 else f"[{host}]:{port}"


ANSWER_MARGIN_S = 1.5
"""How long after a command's ``timeout_s`` the grader still waits for it: the node's own ``timeout -k 1``
sends TERM at ``timeout_s`` and KILL a second later. With no exit status by then, a keepalive asks whether
the node still answers (:data:`LIVENESS_S`); if it answers, the command is reported timed out, as when a
child of it kept its output open."""
LIVENESS_S = 2.0
"""How long a keepalive may wait for its answer before the connection is given up (s). OpenSSH answers a
global request at once from its main loop; 2 s leaves room for a node loaded by a starting engine."""
BEAT_S = 1.0
"""While a command runs on a connection, a keepalive goes out this often (s, after the last one was answered):
a link that goes silent (a pulled cable answers nothing, not even a reset) is noticed within
``BEAT_S + LIVENESS_S`` of the loss, whatever the command's own timeout, and every command on it ends at once."""


class Connection:
    """One SSH connection to one node; :meth:`run` may be called from several threads at once."""

    def __init__(self, node: Node, inventory: Inventory):
        self.node = node
        self.inventory = inventory
        self.host, self.port, self.user, self.key_file = resolve_ssh(node)
        self._client: paramiko.SSHClient | None = None
        self._lock = threading.Lock()
        self._gone: str | None = None
        """Why this connection was given up (the node or its link stopped answering); None while it serves."""
        self.host_key: str | None = None
        """The node's host key as verified against known_hosts at :meth:`connect`: its OpenSSH SHA256
        fingerprint (``SHA256:...``, :func:`fingerprint`); None before connecting."""
        self.host_key_type: str | None = None
        """That key's algorithm, e.g. ``ssh-ed25519``."""
        self._busy = 0
        """Commands running (or starting) now: the heartbeat (:meth:`_heartbeat`) beats while it is above 0."""
        self._asking = threading.Lock()
        """One keepalive at a time: paramiko keeps one answer slot for global requests."""

    def connect(self, timeout_s: float) -> None:
        """Open the connection. Raises NodeUnreachable / HostKeyRefused with a message naming the fix."""
        known_hosts = os.path.expanduser(self.inventory.known_hosts)
        client = paramiko.SSHClient()
        try:
            client.load_host_keys(known_hosts)
        except FileNotFoundError:
            pass  # every key is then unknown, and refused below with the way to add it
        except (OSError, paramiko.SSHException) as e:
            raise NodeUnreachable(f"{self.node.name}: cannot read known_hosts {known_hosts}: {e}") from None
        client.set_missing_host_key_policy(_RefuseUnknown(self.node, self.host, self.port, known_hosts))
        where = f"{self.user}@{self.host}:{self.port}"
        if self.key_file is not None:
            problem = key_file_problem(self.key_file)
            if problem:
                raise NodeUnreachable(f"{self.node.name}: {problem}")
        began = time.monotonic()
        try:
            client.connect(
                self.host, port=self.port, username=self.user, key_filename=self.key_file,
                timeout=timeout_s, banner_timeout=timeout_s, auth_timeout=timeout_s,
                allow_agent=True, look_for_keys=self.key_file is None, passphrase=None,
            )
        except HostKeyRefused:
            raise
        except (paramiko.SSHException, OSError, EOFError, ValueError) as e:
            client.close()
            raise self._refusal(e, where, known_hosts, timeout_s, time.monotonic() - began) from None
        self._client = client
        key = client.get_transport().get_remote_server_key()  # the one known_hosts just accepted
        self.host_key, self.host_key_type = fingerprint(key), key.get_name()
        CONNECTIONS_OPENED[self.node.name] += 1
        threading.Thread(target=self._heartbeat, args=(client,), name=f"heartbeat-{self.node.name}",
                         daemon=True).start()

    def _refusal(self, e: BaseException, where: str, known_hosts: str, timeout_s: float,
                 waited_s: float) -> Exception:
        """What :meth:`connect` raises for ``e`` (raised by paramiko after ``waited_s``): the cause and its fix."""
        name = self.node.name
        if isinstance(e, paramiko.BadHostKeyException):
            return HostKeyRefused(
                f"{name}: the host key of {host_pattern(self.host, self.port)} CHANGED: known_hosts "
                f"has {fingerprint(e.expected_key)}, the machine offers {fingerprint(e.key)}. If you reinstalled "
                f"the machine, remove the old entry with `ssh-keygen -R {host_pattern(self.host, self.port)} "
                f"-f {known_hosts}` and accept the new key deliberately; otherwise stop: something else answers "
                f"at that address.")
        if isinstance(e, paramiko.PasswordRequiredException):
            return NodeUnreachable(f"{name}: key {self.key_file} is encrypted; load it into ssh-agent "
                                   "(`ssh-add`) first: the grader never asks for passphrases.")
        if isinstance(e, (socket.timeout, TimeoutError)):
            return NodeUnreachable(f"{name}: no answer from {where} within {timeout_s:g} s. Is it on, "
                                   "and is `address` right?")
        if waited_s >= timeout_s:  # a later phase waited its whole timeout, whatever paramiko calls it then
            return NodeUnreachable(f"{name}: {where} stopped answering during the SSH handshake (nothing for "
                                   f"{timeout_s:g} s): is it on, and is the link to it up?")
        if isinstance(e, paramiko.AuthenticationException):
            return NodeUnreachable(f"{name}: {where} refused our key. Check `user` and `key_file` in the "
                                   f"inventory, and that the public key is in ~/.ssh/authorized_keys there "
                                   f"(`ssh-copy-id -p {self.port} {self.user}@{self.host}`).")
        why = reason(e)
        if isinstance(e, ValueError):  # UnicodeDecodeError and the like: what paramiko raises on a key it cannot read
            return NodeUnreachable(f"{name}: key_file {self.key_file or '(from ~/.ssh)'} cannot be read as "
                                   f"an SSH private key ({why[:120]}): point key_file at the private key you "
                                   "log in with (e.g. ~/.ssh/id_ed25519), or drop it to use ssh-agent")
        if "private key" in why and self.key_file:
            return NodeUnreachable(f"{name}: key_file {self.key_file} is not an SSH private key paramiko "
                                   f"can read ({why}): point key_file at the private key you log in with "
                                   "(e.g. ~/.ssh/id_ed25519), or drop it to use ssh-agent")
        return NodeUnreachable(f"{name}: cannot connect to {where}: {why}. Check that sshd runs "
                               "there (`systemctl status ssh`) and that `address`/`port` are right.")

    def _heartbeat(self, client: paramiko.SSHClient) -> None:
        """While commands run on this connection, ask for a keepalive every :data:`BEAT_S`; one not answered
        within :data:`LIVENESS_S` gives the connection up (:meth:`_alive`). Ends with the connection."""
        while self._client is client and self._gone is None:
            if self._busy > 0 and not self._alive():
                return
            time.sleep(BEAT_S)

    def run(self, command: str, timeout_s: float | None = None) -> CommandResult:
        """Run ``command`` (a fixed shell command line) and return its output.

        The remote side is wrapped in ``timeout`` so it dies at the deadline; locally we stop
        waiting at the same deadline + 1 s. Never raises for a failing command (see exit_status);
        raises NodeUnreachable if the connection itself is gone.
        """
        timeout_s = timeout_s or self.inventory.command_timeout_s
        wrapped = f"{_REMOTE_PATH}timeout -k 1 {timeout_s:g} sh -c {shlex.quote(command)}"
        with self._lock:
            self._busy += 1
        try:
            return self._run(command, wrapped, timeout_s)
        finally:
            with self._lock:
                self._busy -= 1

    def _run(self, command: str, wrapped: str, timeout_s: float) -> CommandResult:
        start = time.monotonic()
        chan = self._open(wrapped, timeout_s)
        out, err = bytearray(), bytearray()
        deadline = start + timeout_s + ANSWER_MARGIN_S
        timed_out = False
        try:
            while True:
                got = self._drain(chan, out, err)
                # sshd may send exit-status before the last output: finish only at EOF *and* exit-status
                if (chan.eof_received or chan.closed) and chan.exit_status_ready():
                    self._drain(chan, out, err)
                    break
                if time.monotonic() > deadline:
                    if not chan.exit_status_ready() and not self._alive():  # its own `timeout` would have answered
                        self.give_up(f"{self.node.name}: no answer for {timeout_s + ANSWER_MARGIN_S:g} s while "
                                     f"`{command[:60]}` ran, though the node's own `timeout` ends it in "
                                     f"{timeout_s + 1:g} s: the node or the link to it went away")
                        raise NodeUnreachable(self._gone or "")
                    timed_out = True  # the node answers: the command's output stayed open (a child kept it)
                    break
                if not got:
                    time.sleep(0.003)
            status = None if timed_out else chan.recv_exit_status()
            chan.close()
        except (paramiko.SSHException, OSError, EOFError) as e:
            raise NodeUnreachable(self._gone or f"{self.node.name}: the SSH connection failed while "
                                  f"`{command[:60]}` ran: {reason(e)}") from None
        if status == -1 and not self._active():  # the channel closed with no exit status: the node went away
            raise NodeUnreachable(self._gone or f"{self.node.name}: the SSH connection dropped while "
                                  f"`{command[:60]}` ran")
        if status == 124:  # coreutils timeout's own exit code
            timed_out, status = True, None
        return CommandResult(command, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
                             status, round(time.monotonic() - start, 4), timed_out)

    def is_active(self) -> bool:
        """The connection is open (its transport alive): False after a reboot or a dropped link."""
        return self._active()

    def _active(self) -> bool:
        transport = self._client.get_transport() if self._client is not None else None
        return transport is not None and transport.is_active()

    def _alive(self) -> bool:
        """Whether the node's sshd still answers: a keepalive request answered within :data:`LIVENESS_S`
        (OpenSSH answers any global request, if only to refuse it). Gives the connection up when it is not."""
        transport = self._client.get_transport() if self._client is not None else None
        if transport is None or not transport.is_active():
            return False
        with self._asking:
            silent = threading.Timer(LIVENESS_S, self.give_up, (f"{self.node.name}: no answer to a keepalive within "
                                                                f"{LIVENESS_S:g} s: the node or the link to it went away",))
            silent.daemon = True
            silent.start()
            try:
                transport.global_request("keepalive@openssh.com", wait=True)
            except (paramiko.SSHException, OSError, EOFError):
                pass
            finally:
                silent.cancel()
        return self._gone is None and transport.is_active()

    def give_up(self, why: str) -> None:
        """Give this connection up: close it, so that every command running on it or waiting for it ends at
        once with NodeUnreachable(``why``) instead of each waiting out its own deadline (a cut link answers
        nothing, not even a reset). Safe from any thread; the first reason is kept."""
        with self._lock:
            if self._gone is None:
                self._gone = why
            client = self._client
        if client is not None:
            client.close()

    def _open(self, wrapped: str, timeout_s: float) -> paramiko.Channel:
        """A new channel running ``wrapped``; NodeUnreachable, with the reason, when that fails.

        Opening the channel and starting the command each wait for the node's answer, at most ``timeout_s``:
        paramiko's ``exec_command`` itself waits without a limit, so a watchdog gives the connection up
        (:meth:`give_up`) when the answer does not come."""
        if self._gone is not None:
            raise NodeUnreachable(self._gone)
        if self._client is None:
            raise NodeUnreachable(f"{self.node.name}: not connected")
        transport = self._client.get_transport()
        if transport is None or not transport.is_active():
            raise NodeUnreachable(f"{self.node.name}: the SSH connection dropped")
        silent = (f"{self.node.name}: no answer within {timeout_s:g} s to starting a command: the node or the link "
                  "to it went away")
        watchdog = threading.Timer(timeout_s, self.give_up, (silent,))
        watchdog.daemon = True
        watchdog.start()
        try:
            chan = transport.open_session(timeout=timeout_s)
            chan.exec_command(wrapped)
        except (paramiko.SSHException, OSError, EOFError) as e:
            if "Timeout opening channel" in str(e) and self._gone is None:
                self.give_up(silent)  # open_session timed out: the same silence
            raise NodeUnreachable(self._gone or f"{self.node.name}: the SSH connection failed: {reason(e)}") from None
        finally:
            watchdog.cancel()
        return chan

    @staticmethod
    def _drain(chan: paramiko.Channel, out: bytearray, err: bytearray) -> bool:
        """Move whatever stdout/stderr has arrived into ``out``/``err``; True if anything came."""
        got = False
        while chan.recv_ready():
            out += chan.recv(65536)
            got = True
        while chan.recv_stderr_ready():
            err += chan.recv_stderr(65536)
            got = True
        return got

    def open_stream(self, command: str, timeout_s: float) -> paramiko.Channel:
        """Start a long-running fixed command (e.g. an iperf3 server) and return its channel.

        The caller must close it; the remote side is bounded by ``timeout`` in any case. Raises
        NodeUnreachable, with the reason, when the connection is gone.
        """
        return self._open(f"{_REMOTE_PATH}exec timeout -k 1 {timeout_s:g} sh -c {shlex.quote(command)}", timeout_s)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


LOCAL = "local"
"""A node's ``address`` meaning "this machine": probed by :class:`LocalConnection`, no SSH."""
HOST_KEY_FILES = ("/etc/ssh/ssh_host_ed25519_key.pub", "/etc/ssh/ssh_host_ecdsa_key.pub", "/etc/ssh/ssh_host_rsa_key.pub")


class LocalConnection:
    """A node that is the machine the grader runs on (inventory ``address = "local"``): the same fixed probes
    as over SSH, run as local processes under the same deadlines (``sh -c`` under coreutils ``timeout -k 1``,
    waited for at most ``timeout_s`` + :data:`ANSWER_MARGIN_S`), as the user running the grader. No sshd is
    needed. Its identity for ``audit`` and ``verify`` is what an SSH host key gives: the fingerprint of the
    machine's own host key (``/etc/ssh/ssh_host_*_key.pub``, read, not served) when it has one; the platform
    probe's machine-id hash adds to it as for any node."""

    def __init__(self, node: Node, inventory: Inventory):
        self.node = node
        self.inventory = inventory
        self.host, self.port, self.user, self.key_file = LOCAL, 0, os.environ.get("USER") or "root", None
        self.host_key: str | None = None
        self.host_key_type: str | None = None

    def connect(self, timeout_s: float) -> None:
        for path in HOST_KEY_FILES:
            with contextlib.suppress(OSError, ValueError, IndexError, binascii.Error):
                kind, body = open(path, encoding="ascii").read().split()[:2]
                self.host_key, self.host_key_type = fingerprint_blob(base64.b64decode(body)), kind
                break
        CONNECTIONS_OPENED[self.node.name] += 1

    def _popen(self, command: str, timeout_s: float) -> subprocess.Popen:
        wrapped = f"{_REMOTE_PATH}exec timeout -k 1 {timeout_s:g} sh -c {shlex.quote(command)}"
        return subprocess.Popen(["sh", "-c", wrapped], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)

    def run(self, command: str, timeout_s: float | None = None) -> CommandResult:
        """As :meth:`Connection.run`, locally. Never raises for a failing command."""
        timeout_s = timeout_s or self.inventory.command_timeout_s
        start = time.monotonic()
        p = self._popen(command, timeout_s)
        try:
            out, err = p.communicate(timeout=timeout_s + ANSWER_MARGIN_S)
            status: int | None = p.returncode
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                os.killpg(p.pid, 9)
            out, err = p.communicate()
            status = None
        timed_out = status in (124, None) or (status is not None and status < 0)
        return CommandResult(command, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
                             None if timed_out else status, round(time.monotonic() - start, 4), timed_out)

    def open_stream(self, command: str, timeout_s: float) -> "_LocalChannel":
        """As :meth:`Connection.open_stream`: a long-running fixed command, read as paramiko's channel is."""
        return _LocalChannel(self._popen(command, timeout_s))

    def is_active(self) -> bool:
        return True

    def give_up(self, why: str) -> None:
        """Nothing to give up: a local process cannot lose its link."""

    def close(self) -> None:
        pass


class _LocalChannel:
    """The part of paramiko's Channel that the measurements use, over a local process."""

    def __init__(self, proc: subprocess.Popen):
        self._proc = proc
        self._buf = {"out": bytearray(), "err": bytearray()}
        self._lock = threading.Lock()
        self._readers = [threading.Thread(target=self._pump, args=(proc.stdout, "out"), daemon=True),
                         threading.Thread(target=self._pump, args=(proc.stderr, "err"), daemon=True)]
        for r in self._readers:
            r.start()

    def _pump(self, pipe: Any, which: str) -> None:
        for chunk in iter(lambda: pipe.read1(65536), b""):
            with self._lock:
                self._buf[which] += chunk

    def _take(self, which: str, n: int) -> bytes:
        with self._lock:
            data = bytes(self._buf[which][:n])
            del self._buf[which][:n]
        return data

    def recv_ready(self) -> bool:
        return bool(self._buf["out"])

    def recv(self, n: int) -> bytes:
        return self._take("out", n)

    def recv_stderr_ready(self) -> bool:
        return bool(self._buf["err"])

    def recv_stderr(self, n: int) -> bytes:
        return self._take("err", n)

    def exit_status_ready(self) -> bool:
        if self._proc.poll() is None:
            return False
        for r in self._readers:  # the last output is in the buffers before the status counts
            r.join(1.0)
        return True

    def recv_exit_status(self) -> int:
        return self._proc.wait()

    def close(self) -> None:
        if self._proc.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(self._proc.pid, 15)


def open_connection(node: Node, inventory: Inventory) -> Connection | LocalConnection:
    """The connection for ``node``: :class:`LocalConnection` for ``address = "local"``, else SSH (not yet
    connected: call ``connect``)."""
    return LocalConnection(node, inventory) if node.address == LOCAL else Connection(node, inventory)


def connect_all(inventory: Inventory) -> tuple[dict[str, Connection], dict[str, str]]:
    """Connect to every node in parallel. Returns (connections by node name, error by node name).

    A node that cannot be reached appears in the second dict with the reason; the others are
    still connected, so a check can record and grade what it reached.
    """
    conns: dict[str, Connection] = {}
    errors: dict[str, str] = {}

    def one(node: Node) -> None:
        c = open_connection(node, inventory)
        try:
            c.connect(inventory.command_timeout_s)
            conns[node.name] = c
        except NodeUnreachable as e:
            errors[node.name] = str(e)
        except Exception as e:  # anything else paramiko raises: this node is unreachable, the others go on
            errors[node.name] = (f"{node.name}: cannot connect ({type(e).__name__}: {reason(e)[:200]}): check "
                                 "`address`, `port`, `user` and `key_file` in the inventory")

    with ThreadPoolExecutor(max_workers=len(inventory.nodes)) as pool:
        list(pool.map(one, inventory.nodes))
    return conns, errors


def reconnect(inventory: Inventory, conns: dict[str, Connection]) -> dict[str, str]:
    """Connect again every node of ``inventory`` whose connection in ``conns`` is missing or dropped
    (a netplan apply, a reboot), in place; the live ones are kept. Returns ``{node: why not reached}``."""
    lost = [n for n in inventory.nodes if n.name not in conns or not conns[n.name].is_active()]
    for node in lost:
        old = conns.pop(node.name, None)
        if old is not None:
            old.close()
    if not lost:
        return {}
    sub = inventory.model_copy(update={"nodes": lost})
    fresh, errors = connect_all(sub)
    conns.update(fresh)
    return errors
