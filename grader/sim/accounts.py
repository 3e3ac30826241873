"""The accounts of a simulated node: the login user a new Spark has (grader.sim.topology.LOGIN_USER), in the node's
own /etc/passwd, group, shadow and gshadow (:func:`accounts`), and lesson 1's sudoers rule that a finished pair has
(:data:`READ_RULE`). :mod:`~grader.sim.cluster` writes them into each node's /etc at ``sim up``."""

from __future__ import annotations

import subprocess
from pathlib import Path

from grader.facts.lesson1 import NETPLAN_READ_FILE, NETPLAN_READ_SUDOERS
from grader.sim import topology as T
from grader.sim.host import SimError


def _without_login_user(lines: list[str], id_field: int) -> list[str]:
    """The host's account lines less any of the login user's name or of its uid/gid (field ``id_field``)."""
    out = []
    for line in lines:
        fields = line.split(":")
        if fields[0] == T.LOGIN_USER or (id_field and len(fields) > id_field and fields[id_field] == str(T.LOGIN_UID)):
            continue
        out.append(line)
    return out


def _with_member(line: str, groups: tuple[str, ...], last: int) -> str:
    """A group (or gshadow) line with the login user added to its member list (field ``last``) when the group
    is one of ``groups``."""
    fields = line.split(":")
    if fields[0] in groups and len(fields) > last:
        members = [m for m in fields[last].split(",") if m]
        fields[last] = ",".join([*members, T.LOGIN_USER] if T.LOGIN_USER not in members else members)
    return ":".join(fields)


LOGIN_GROUPS = ("sudo", "docker")
"""The login user's supplementary groups in a node: ``sudo`` (a Spark's first user is an administrator) and
``docker`` (the sim's Docker; the playbooks' ``sudo usermod -aG docker $USER`` is already done)."""


READ_RULE_FILE = NETPLAN_READ_FILE
READ_RULE = f"{T.LOGIN_USER} {NETPLAN_READ_SUDOERS}\n"
"""The sudoers rule lesson 1's two lines (grader.facts.lesson1 NETPLAN_READ_RULE, NETPLAN_READ_INSTALL) install as
/etc/sudoers.d/clusterlab-read for the login user: a finished pair has it, lesson 1's start does not."""


def accounts(password: str) -> dict[str, str]:
    """A node's own /etc/passwd, group, shadow and gshadow: the host's, root without a password (locked, as on
    Ubuntu), and :data:`~grader.sim.topology.LOGIN_USER` (uid/gid :data:`~grader.sim.topology.LOGIN_UID`, bash,
    ``password`` in SHA-512 crypt from ``openssl passwd -6``, in :data:`LOGIN_GROUPS`; a ``docker`` group is made
    when the host has none). Raises SimError when openssl is missing or the host's files cannot be read."""
    try:
        hashed = subprocess.run(["openssl", "passwd", "-6", "-stdin"], input=password + "\n", capture_output=True,
                                text=True, check=True, timeout=10).stdout.strip()
        host = {name: Path("/etc", name).read_text().splitlines() for name in ("passwd", "group", "shadow", "gshadow")
                if name != "gshadow" or Path("/etc/gshadow").is_file()}
    except (OSError, subprocess.SubprocessError) as e:
        raise SimError(f"cannot write the nodes' accounts ({e}): install openssl (`apt install openssl`)") from None
    user, uid = T.LOGIN_USER, T.LOGIN_UID
    gone = {line.split(":")[0] for line in host["passwd"] if line.split(":")[2:3] == [str(uid)]}
    passwd = _without_login_user(host["passwd"], 2) + [f"{user}:x:{uid}:{uid}:{user}:{T.LOGIN_HOME}:/bin/bash"]
    group = _without_login_user(host["group"], 2)
    if not any(line.startswith("docker:") for line in group):
        gids = {line.split(":")[2] for line in group if line.count(":") >= 3}
        group.append("docker:x:" + next(str(g) for g in range(999, 100, -1) if str(g) not in gids) + ":")
    group = [_with_member(line, LOGIN_GROUPS, 3) for line in group] + [f"{user}:x:{uid}:"]
    shadow = ["root:!:" + ":".join(line.split(":")[2:]) if line.startswith("root:") else line
              for line in _without_login_user(host["shadow"], 0) if line.split(":")[0] not in gone] + [f"{user}:{hashed}:19000:0:99999:7:::"]
    gnames = {line.split(":")[0] for line in group}
    gshadow = [line for line in _without_login_user(host.get("gshadow", []), 0) if line.split(":")[0] in gnames]
    gshadow += [f"{g}:!::" for g in gnames - {line.split(":")[0] for line in gshadow}]
    gshadow = [_with_member(line, LOGIN_GROUPS, 3) for line in gshadow]
    return {name: "\n".join(lines) + "\n" for name, lines in
            (("passwd", passwd), ("group", group), ("shadow", shadow), ("gshadow", gshadow))}
