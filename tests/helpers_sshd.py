"""A real OpenSSH sshd on 127.0.0.1 for transport tests: its own host key, one authorized key."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

SSHD = shutil.which("sshd") or "/usr/sbin/sshd"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def keygen(path: Path, kind: str = "ed25519") -> Path:
    subprocess.run(["ssh-keygen", "-q", "-t", kind, "-N", "", "-f", str(path)], check=True)
    return path


class LoopbackSshd:
    """sshd -D on 127.0.0.1:<port> as the current user (root), stopped by :meth:`stop`."""

    def __init__(self, workdir: Path, client_key: Path, host_key: Path | None = None):
        self.dir = workdir
        self.port = free_port()
        self.host_key = host_key or keygen(workdir / "host_ed25519")
        auth = workdir / "authorized_keys"
        auth.write_text(Path(str(client_key) + ".pub").read_text())
        auth.chmod(0o600)
        cfg = workdir / "sshd_config"
        cfg.write_text(
            f"Port {self.port}\nListenAddress 127.0.0.1\nHostKey {self.host_key}\n"
            f"AuthorizedKeysFile {auth}\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
            f"PermitRootLogin prohibit-password\nStrictModes no\nUsePAM no\nPidFile {workdir}/sshd.pid\n"
            "LogLevel ERROR\nMaxStartups 100\n")
        Path("/run/sshd").mkdir(exist_ok=True)
        self.proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(cfg)], stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("sshd did not start")

    def known_hosts_line(self) -> str:
        pub = Path(str(self.host_key) + ".pub").read_text().split()
        return f"[127.0.0.1]:{self.port} {pub[0]} {pub[1]}\n"

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(5)


def can_run_sshd() -> bool:
    return os.geteuid() == 0 and Path(SSHD).exists() and shutil.which("ssh-keygen") is not None
