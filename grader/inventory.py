"""The inventory: which machines to probe, how to reach them, and what they are.

An inventory is a TOML file::

    profile = "spark-pair"          # spark-pair | single-spark | dual-gpu-desktop | sim
    topology = "pair"               # optional: pair (default) | ring | switch (see below)
    qsfp_port = 1                   # the QSFP port the cable is in (0 = next to the RJ45, 1 = further)
    known_hosts = "~/.ssh/known_hosts"   # optional; host keys are always checked

    [[nodes]]
    name = "spark-a"                # the node's hostname, as its peer resolves it
    address = "192.168.1.50"        # where the grader reaches it (management / house network)
    port = 22
    user = "nvidia"
    key_file = "~/.ssh/id_ed25519"  # or: ssh_alias = "spark-a" (a Host entry in ~/.ssh/config)

    [[nodes]]
    name = "spark-b"
    ...

    [desktop]                       # optional, profile dual-gpu-desktop only (lesson 3)
    psu_watts = 1300                # the PSU's rated DC output, W
    circuit_volts = 120             # the wall circuit the box is on, V (with circuit_amps)
    circuit_amps = 15               # its breaker rating, A
    cpu_watts = 253                 # optional: the CPU's sustained package power, W
    other_watts = 100               # optional: board, drives, fans, pumps, W

    [serve]                         # optional (lesson 2b, the lab): the served model
    url = "http://192.168.100.10:8000"   # the OpenAI-compatible endpoint, as the nodes reach it
    model = "/models/Qwen3-8B"      # what `vllm serve` was given
    mode = "ray"                    # optional: ray | nnodes | single
    head = "spark-a"                # optional: the node `vllm serve` runs on (one of [[nodes]])

``topology`` says how the QSFP fabric of a multi-node profile (spark-pair, sim) is cabled:

- ``pair`` (the default): exactly 2 nodes, one cable between them in port ``qsfp_port`` on both
  (NVIDIA connect-two-sparks);
- ``ring``: exactly 3 nodes, two cables per node, one subnet per link. The [[nodes]] order is the
  ring's: node i's port 0 is cabled to node i+1's port 1, the last node's port 0 to the first's
  port 1 (NVIDIA connect-three-sparks, Step 2). Both ports are cabled, so ``qsfp_port`` is not set;
- ``switch``: 2 or more nodes, each with one cable in the same port ``qsfp_port`` to one switch,
  every node's twins on the switch's subnet(s) (NVIDIA multi-sparks-through-switch).

:meth:`Inventory.pairs` gives the pairs of nodes that should talk: all pairs for a pair and a
switch, the ring's links (neighbours) for a ring. One-node profiles keep the default ``pair``.

``load_inventory`` validates it and raises :class:`InventoryError` whose message names the
field and the fix; it never returns a half-valid inventory.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Literal

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

import paramiko
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from grader.ranges import TOPOLOGIES  # how the QSFP fabric is cabled (see the module doc); ``pair`` is the default

PROFILES = ("spark-pair", "single-spark", "dual-gpu-desktop", "sim")
"""The hardware profiles a course run can grade; each has its own expected ranges in checks/."""

_ONE_NODE_PROFILES = ("single-spark", "dual-gpu-desktop")
_RING_NODES = 3  # NVIDIA's connect-three-sparks: a ring of exactly three Sparks
_RING_OUT_PORT, _RING_IN_PORT = 0, 1  # node i's port 0 -> node i+1's port 1 (connect-three-sparks, Step 2)

_HOSTNAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.-]{0,252})$")


class InventoryError(ValueError):
    """The inventory file is missing, not TOML, or has a field that is wrong. The message names it."""


class Node(BaseModel):
    """One machine. ``address`` may be empty when ``ssh_alias`` names a ~/.ssh/config Host entry."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="hostname of the node, as its peer resolves it")
    address: str = Field(default="", description="IP or DNS name the grader connects to")
    port: int = Field(default=22, ge=1, le=65535)
    user: str = Field(default="")
    key_file: str | None = None
    ssh_alias: str | None = None

    @field_validator("name")
    @classmethod
    def _name_is_hostname(cls, v: str) -> str:
        if not _HOSTNAME.match(v):
            raise ValueError(f"{v!r} is not a hostname: use letters, digits, '-' and '.' (e.g. spark-a)")
        return v

    @field_validator("address")
    @classmethod
    def _address_is_host(cls, v: str) -> str:
        if v and not re.match(r"^[A-Za-z0-9.:\-\[\]]+$", v):
            raise ValueError(f"{v!r} is not an IP address or host name")
        return v

    @model_validator(mode="after")
    def _reachable_somehow(self) -> "Node":
        if not self.address and not self.ssh_alias:
            raise ValueError("give `address` (IP or name the grader can reach) or `ssh_alias` "
                             "(a Host entry in ~/.ssh/config)")
        if self.key_file:
            path = Path(os.path.expanduser(self.key_file))
            if path.is_dir():
                raise ValueError(f"key_file {self.key_file!r} is a directory, not a key: point it at the private "
                                 f"key file you log in with (e.g. {self.key_file.rstrip('/')}/id_ed25519), or drop it "
                                 "to use ssh-agent")
            if not path.is_file():
                raise ValueError(f"key_file {self.key_file!r} does not exist: point it at the private key "
                                 "you log in with (e.g. ~/.ssh/id_ed25519), or drop it to use ssh-agent")
        return self


class Desktop(BaseModel):
    """The learner's declared power budget for a two-card desktop (lesson 3), in W, V and A."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    psu_watts: float = Field(gt=0, le=5000, description="the PSU's rated DC output, W")
    circuit_volts: float | None = Field(default=None, ge=90, le=260, description="household mains, V")
    circuit_amps: float | None = Field(default=None, gt=0, le=63, description="the circuit breaker's rating, A")
    cpu_watts: float | None = Field(default=None, ge=0, le=1500)
    other_watts: float | None = Field(default=None, ge=0, le=2000)

    @model_validator(mode="after")
    def _circuit_pair(self) -> "Desktop":
        if (self.circuit_volts is None) != (self.circuit_amps is None):
            raise ValueError("give circuit_volts and circuit_amps together (e.g. 120 and 15, or 230 and 16)")
        return self


class Logs(BaseModel):
    """Logs the learner made on the head node (lesson 2), as paths there (``~`` allowed).

    ``nccl_debug``: a log of a run with NCCL_DEBUG=INFO (vLLM, torchrun or nccl-tests);
    ``nccl_tests``: an ``all_gather_perf`` output; ``ib_write_bw``: one ``ib_write_bw`` client
    output per twin; ``vllm``: the ``vllm serve`` log (lesson 2b; default: ``[serve] log_dir``'s
    ``<head>/vllm.log``). The grader only reads them (``tail -c``), never writes.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    nccl_debug: str | None = None
    nccl_tests: str | None = None
    ib_write_bw: list[str] = Field(default_factory=list)
    vllm: str | None = None

    @field_validator("nccl_debug", "nccl_tests", "vllm")
    @classmethod
    def _one_path(cls, v: str | None) -> str | None:
        if v is not None and (not v.strip() or any(c in v for c in "\0\n\r")):
            raise ValueError(f"{v!r} is not a file path on the head node (e.g. \"~/nccl_debug.log\")")
        return v

    @field_validator("ib_write_bw")
    @classmethod
    def _paths(cls, v: list[str]) -> list[str]:
        for p in v:
            cls._one_path(p)
        return v


class Serve(BaseModel):
    """The served model (lesson 2b, the lab): where its OpenAI-compatible endpoint answers and how
    it was launched. ``sim up --serve`` writes one; a learner writes their own.

    ``url``: ``http(s)://host[:port]`` as the nodes reach it; ``model``: the path or name given to
    ``vllm serve``; ``mode``: ``ray`` (Ray across the nodes), ``nnodes`` (vLLM's own multi-node
    mode) or ``single`` (one node); ``head``: the node ``vllm serve`` runs on; ``log_dir``: where
    ``<node>/vllm.log`` and ``<node>/ray.log`` are, on the nodes; ``ray_address``: ``host:port``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str
    model: str
    served_model_name: str | None = None
    mode: Literal["ray", "nnodes", "single"] | None = None
    head: str | None = None
    log_dir: str | None = None
    ray_address: str | None = None

    @field_validator("url")
    @classmethod
    def _url(cls, v: str) -> str:
        if not re.match(r"^https?://([A-Za-z0-9.\-]+|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?/?$", v):
            raise ValueError(f"{v!r} is not an endpoint URL: give http://HOST:PORT (e.g. \"http://192.168.100.10:8000\")")
        return v.rstrip("/")

    @field_validator("ray_address")
    @classmethod
    def _host_port(cls, v: str | None) -> str | None:
        if v is not None and not re.match(r"^[A-Za-z0-9.\-]+:\d{1,5}$", v):
            raise ValueError(f"{v!r} is not HOST:PORT (e.g. \"192.168.100.10:6379\")")
        return v

    @field_validator("model", "log_dir", "served_model_name")
    @classmethod
    def _plain(cls, v: str | None) -> str | None:
        if v is not None and (not v.strip() or any(c in v for c in "\0\n\r")):
            raise ValueError(f"{v!r} must be one non-empty line")
        return v


@dataclass(frozen=True)
class Pair:
    """Two nodes that should talk over the QSFP fabric, by their inventory names.

    ``a`` and ``b``: node names (a before b in [[nodes]] order, except a ring's closing link, which
    runs from the last node to the first); ``a_port`` and ``b_port``: the QSFP port (0 or 1) each end
    uses for this pair; ``via``: ``"cable"`` (a pair), ``"ring link i/3"`` (i from 1), or ``"switch"``.
    """

    a: str
    b: str
    a_port: int
    b_port: int
    via: str

    @property
    def names(self) -> tuple[str, str]:
        """``(a, b)``."""
        return self.a, self.b

    def __str__(self) -> str:
        return f"{self.a} (port {self.a_port}) <-> {self.b} (port {self.b_port}) via {self.via}"


class Inventory(BaseModel):
    """A validated inventory. ``path`` is where it was read from (for messages and relative paths)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    profile: Literal["spark-pair", "single-spark", "dual-gpu-desktop", "sim"]
    topology: Literal["pair", "ring", "switch"] = "pair"
    qsfp_port: Literal[0, 1] | None = None
    known_hosts: str = "~/.ssh/known_hosts"
    command_timeout_s: float = Field(default=10.0, gt=0, le=600)
    nodes: list[Node]
    desktop: Desktop | None = None
    logs: Logs | None = None
    serve: Serve | None = None
    path: str | None = None

    @model_validator(mode="after")
    def _shape(self) -> "Inventory":
        self._node_count()
        names = [n.name for n in self.nodes]
        if len(set(names)) != len(names):
            twice = sorted({n for n in names if names.count(n) > 1})
            raise ValueError(f"node names must differ, got {names}: rename the second {', '.join(map(repr, twice))} "
                             "to that node's own hostname")
        if self.desktop is not None and self.profile != "dual-gpu-desktop":
            raise ValueError("the [desktop] table is for profile \"dual-gpu-desktop\"; remove it or change the profile")
        if self.serve is not None and self.serve.head is not None and self.serve.head not in names:
            raise ValueError(f"[serve] head {self.serve.head!r} is not one of the [[nodes]] names {names}")
        self._ports()
        return self

    def _node_count(self) -> None:
        n = len(self.nodes)
        if self.profile in _ONE_NODE_PROFILES:
            if self.topology != "pair":
                raise ValueError(f"topology = {self.topology!r} is for the multi-node profiles (spark-pair, sim); "
                                 f"profile {self.profile!r} has one node: remove `topology`")
            if n != 1:
                raise ValueError(f"profile {self.profile!r} needs 1 [[nodes]] table(s), found {n}")
        elif self.topology == "pair" and n != 2:
            more = (f": for {n} Sparks set topology = \"ring\" (3 in a ring) or \"switch\" (through a switch)"
                    if n > 2 else "")
            raise ValueError(f"profile {self.profile!r} needs 2 [[nodes]] table(s), found {n}{more}")
        elif self.topology == "ring" and n != _RING_NODES:
            raise ValueError(f"topology \"ring\" needs exactly {_RING_NODES} [[nodes]] tables (NVIDIA's "
                             f"connect-three-sparks ring), found {n}: for 2 nodes use topology = \"pair\", "
                             "for 4 or more cable them to a switch and use topology = \"switch\"")
        elif self.topology == "switch" and n < 2:
            raise ValueError(f"topology \"switch\" needs 2 or more [[nodes]] tables, found {n}: add a [[nodes]] "
                             "table for every Spark cabled to the switch")

    def _ports(self) -> None:
        if self.profile in _ONE_NODE_PROFILES:
            return
        if self.topology == "ring" and self.qsfp_port is not None:
            raise ValueError(f"remove qsfp_port: a ring cables both ports of every node (node i's port "
                             f"{_RING_OUT_PORT} to node i+1's port {_RING_IN_PORT}, in [[nodes]] order)")
        if self.topology == "pair" and self.qsfp_port is None:
            raise ValueError("set qsfp_port = 0 or 1: the QSFP port the cable is in "
                             "(`ibdev2netdev` shows its two twins as (Up))")
        if self.topology == "switch" and self.qsfp_port is None:
            raise ValueError("set qsfp_port = 0 or 1: the QSFP port every node's cable to the switch is in, the "
                             "same on every node (`ibdev2netdev` shows its two twins as (Up))")

    def pairs(self) -> list[Pair]:
        """The pairs of nodes that should talk over the QSFP fabric, in a fixed order.

        pair: the one pair; switch: every pair of nodes, N*(N-1)/2 of them, in [[nodes]] order
        ((n1, n2), (n1, n3), ..., (n2, n3), ...), each end on ``qsfp_port``; ring: its links, neighbour
        to neighbour: (n1 port 0, n2 port 1), (n2 port 0, n3 port 1), (n3 port 0, n1 port 1). For a ring
        of 3 that is every pair too, named by the cable that joins it. A one-node profile: [].
        """
        names = [n.name for n in self.nodes]
        if self.profile in _ONE_NODE_PROFILES:
            return []
        if self.topology == "ring":
            k = len(names)
            return [Pair(names[i], names[(i + 1) % k], _RING_OUT_PORT, _RING_IN_PORT, f"ring link {i + 1}/{k}")
                    for i in range(k)]
        port = self.qsfp_port if self.qsfp_port is not None else 0  # validated: set for pair and switch
        via = "switch" if self.topology == "switch" else "cable"
        return [Pair(a, b, port, port, via) for a, b in combinations(names, 2)]

    def peers_of(self, name: str) -> list[Node]:
        """The nodes ``name`` should talk to (see :meth:`pairs`), in [[nodes]] order. Raises KeyError if
        there is no node ``name``."""
        self.node(name)
        mates = {p.b if p.a == name else p.a for p in self.pairs() if name in p.names}
        return [n for n in self.nodes if n.name in mates]

    def node(self, name: str) -> Node:
        """The node called ``name``. Raises KeyError if there is none."""
        for n in self.nodes:
            if n.name == name:
                return n
        raise KeyError(name)

    def peer(self, name: str) -> Node | None:
        """The other node of a pair, or None for a one-node profile.

        Raises ValueError for an inventory of 3 or more nodes (a ring or a switch), where "the other node"
        is not one: use :meth:`peers_of` or :meth:`pairs` there.
        """
        others = [n for n in self.nodes if n.name != name]
        if len(others) > 1:
            raise ValueError(f"{name} has {len(others)} peers in this {self.topology} of {len(self.nodes)} nodes: "
                             "use Inventory.peers_of() or Inventory.pairs()")
        return others[0] if others else None


_PUBLIC_KEY_LINE = re.compile(r"^\s*(?:(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-\S+|sk-\S+@openssh\.com)\s+AAAA"
                              r"|---- BEGIN SSH2 PUBLIC KEY ----)")
_KEY_FIX = "point key_file at the private key you log in with (e.g. ~/.ssh/id_ed25519), or drop it to use ssh-agent"


def key_file_problem(key_file: str) -> str | None:
    """Why ``key_file`` cannot be an SSH private key, in one sentence naming it and the fix; None when it
    may be one (paramiko then reads it). Reads at most 64 KiB; never raises.

    Says so for a missing file, a directory, an unreadable or empty file, binary data, a public key
    (``id_ed25519.pub``: give the private one), a PuTTY ``.ppk`` (convert it), and text with no
    ``-----BEGIN ... PRIVATE KEY-----`` line.
    """
    shown = key_file
    path = Path(os.path.expanduser(key_file))
    if path.is_dir():
        return f"key_file {shown} is a directory, not a key: point it at the private key file in it (e.g. " \
               f"{shown.rstrip('/')}/id_ed25519), or drop it to use ssh-agent"
    try:
        with open(path, "rb") as f:
            head = f.read(65536)
    except FileNotFoundError:
        return f"key_file {shown} does not exist: {_KEY_FIX}"
    except OSError as e:
        return f"key_file {shown} cannot be read ({e.strerror or e}): make it readable by this user, or {_KEY_FIX}"
    if not head.strip():
        return f"key_file {shown} is empty: {_KEY_FIX}"
    try:
        text = head.decode("utf-8")
        if "\0" in text:
            raise UnicodeDecodeError("utf-8", head, text.index("\0"), text.index("\0") + 1, "NUL byte")
    except UnicodeDecodeError:
        return f"key_file {shown} is binary data, not an SSH private key (a key file is text starting " \
               f"-----BEGIN OPENSSH PRIVATE KEY-----): {_KEY_FIX}"
    if _PUBLIC_KEY_LINE.match(text):
        private = shown[:-4] if shown.endswith(".pub") else "the file without .pub"
        return f"key_file {shown} is a public key: give the private key it pairs with ({private}), the one you log in " \
               "with; the public key goes into ~/.ssh/authorized_keys on the node"
    if text.lstrip().startswith("PuTTY-User-Key-File"):
        return f"key_file {shown} is a PuTTY key (.ppk): convert it with `puttygen {shown} -O private-openssh " \
               f"-o ~/.ssh/id_ed25519` and point key_file there"
    if "PRIVATE KEY-----" not in text:
        return f"key_file {shown} is not an SSH private key (no -----BEGIN ... PRIVATE KEY----- line): {_KEY_FIX}"
    return None


def resolve_ssh(node: Node, ssh_config_path: str = "~/.ssh/config") -> tuple[str, int, str, str | None]:
    """(hostname, port, user, key_file) for ``node``, filling blanks from its ~/.ssh/config alias.

    Fields set in the inventory win over the alias. ``user`` falls back to the local login name.
    """
    host, port, user, key = node.address, node.port, node.user, node.key_file
    if node.ssh_alias:
        cfg_path = Path(os.path.expanduser(ssh_config_path))
        if cfg_path.is_file():
            entry = paramiko.SSHConfig.from_path(str(cfg_path)).lookup(node.ssh_alias)
            host = host or entry.get("hostname", node.ssh_alias)
            if "port" in entry and node.port == 22:
                port = int(entry["port"])
            user = user or entry.get("user", "")
            if not key and entry.get("identityfile"):
                key = entry["identityfile"][0]
        host = host or node.ssh_alias
    user = user or os.environ.get("USER") or "root"
    return host, port, user, (os.path.expanduser(key) if key else None)


def _describe(err: ValidationError, path: str) -> str:
    lines = [f"{path}: the inventory is not valid:"]
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"]) or "(top level)"
        if loc.startswith("nodes.") and loc.split(".")[1].isdigit():
            parts = loc.split(".")
            loc = f"[[nodes]] #{int(parts[1]) + 1}" + (f" field `{'.'.join(parts[2:])}`" if parts[2:] else "")
        else:
            loc = f"field `{loc}`"
        msg = e["msg"].removeprefix("Value error, ")
        if e["type"] == "missing":
            msg = "is required"
        elif e["type"] == "extra_forbidden":
            msg = "is not a known field (check the spelling; see README 'Inventory')"
        elif e["type"] == "literal_error" and loc == "field `profile`":
            msg = f"must be one of {', '.join(PROFILES)}"
        elif e["type"] == "literal_error" and loc == "field `topology`":
            msg = (f"must be one of {', '.join(TOPOLOGIES)} (got {e.get('input')!r}): pair for two Sparks on one "
                   "cable, ring for three cabled in a ring, switch for two or more through a switch")
        lines.append(f"  - {loc} {msg}")
    return "\n".join(lines)


def load_inventory(path: str | os.PathLike[str]) -> Inventory:
    """Read and validate the TOML inventory at ``path``.

    Raises InventoryError (a ValueError) naming the file, the field and the fix when the file is
    missing, is not TOML, or any field is wrong.
    """
    p = Path(path)
    try:
        raw = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InventoryError(f"{p}: no such inventory file. Run `clusterlab sim up` for the simulated "
                             "cluster, or write one (see README 'Inventory').") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InventoryError(f"{p}: cannot read the inventory: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise InventoryError(f"{p}: not valid TOML: {e}. Fix the line it names.") from None
    raw["path"] = str(p)
    try:
        return Inventory.model_validate(raw)
    except ValidationError as e:
        raise InventoryError(_describe(e, str(p))) from None
